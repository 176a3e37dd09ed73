"""Reuse across repetitions: a cache level keeps what one repetition touches when it fits.

The machine (written here): one core, 64-byte lines, 8-byte words, an L1 of 4 KiB and an L2
of 64 KiB (the level before memory). Doubles: 8 elements per line; a read array moves 8 B
per element, a written one 16 B (the line read for ownership, then written back).
"""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from machines import run_with_machine, two_level_machine

MACHINE_XML = two_level_machine(64)

# a 1-D sweep written four times over: r subscripts nothing, a repetition of the nest's own
REPEATED_F90 = """\
subroutine rep(n, a, b)
  integer :: n, r, i
  real(8) :: a(n), b(n)
  do r = 1, 4
    do i = 1, n
      b(i) = 2.0d0 * a(i)
    end do
  end do
end subroutine
"""

REPEATED_C = """\
void rep(int n, double *a, double *b)
{
    for (int r = 0; r < 4; r++)
        for (int i = 0; i < n; i++)
            b[i] = 2.0 * a[i];
}
"""

# a time loop of 3 passes around two sibling nests, each a row of its own
SIBLINGS_C = """\
double a[512], b[512], c[512];
void run(void)
{
    for (int t = 0; t < 3; t++) {
        for (int i = 0; i < 512; i++)
            b[i] = a[i] + 1.0;
        for (int i = 0; i < 512; i++)
            c[i] = b[i] * 2.0;
    }
}
"""

SIBLINGS_F90 = """\
subroutine run(a, b, c)
  integer :: t, i
  real(8) :: a(512), b(512), c(512)
  do t = 1, 3
    do i = 1, 512
      b(i) = a(i) + 1.0d0
    end do
    do i = 1, 512
      c(i) = b(i) * 2.0d0
    end do
  end do
end subroutine
"""


def run(capsys, tmp_path: Path, name: str, text: str, *options: str) -> dict:
    return run_with_machine(capsys, tmp_path, name, text, MACHINE_XML, *options)


def traffic(loop: dict) -> dict[str, float]:
    """Bytes per level of one Loops row."""
    return {level["level"]: level["traffic_gb"] * 1e9 for level in loop["levels"]}


@pytest.mark.parametrize(("name", "text"), [("rep.f90", REPEATED_F90), ("rep.c", REPEATED_C)])
def test_a_repeated_sweep_that_fits_the_l2_moves_once_there(capsys, tmp_path, name, text):
    """n = 512: a and b are 512 x 8 B = 4 KiB each, 8 KiB of data. One sweep moves a's
    4,096 B and b's 512 x 16 = 8,192 B: 12,288 B. The L1 (4 KiB) does not hold the 8 KiB,
    so each of the 4 repetitions moves them again: 4 x 12,288 = 49,152 B. The L2 (64 KiB)
    holds them: the first repetition moves 12,288 B, the other three nothing. The distinct
    bytes (compulsory, a read once, b read and written back once) are 12,288 B, not 4 x."""
    data = run(capsys, tmp_path, name, text, "--set", "n=512")
    (loop,) = data["loops"]
    assert traffic(loop) == pytest.approx({"L1": 49_152, "L2": 12_288})
    assert [level.get("repeats") for level in loop["levels"]] == [4, 1]
    assert loop["traffic_blocks_gb"] * 1e9 == pytest.approx(12_288)
    assert data["bounds_violations"] == []


@pytest.mark.parametrize(("name", "text"), [("rep.f90", REPEATED_F90), ("rep.c", REPEATED_C)])
def test_a_repeated_sweep_larger_than_the_l2_moves_every_time(capsys, tmp_path, name, text):
    """n = 16,384: 128 KiB of a and 128 KiB of b, 256 KiB > 64 KiB: every repetition moves
    16,384 x (8 + 16) = 393,216 B at both levels, 4 x 393,216 = 1,572,864 B; the compulsory
    bytes stay once: 393,216 B."""
    data = run(capsys, tmp_path, name, text, "--set", "n=16384")
    (loop,) = data["loops"]
    assert traffic(loop) == pytest.approx({"L1": 1_572_864, "L2": 1_572_864})
    assert loop["traffic_blocks_gb"] * 1e9 == pytest.approx(393_216)
    assert data["bounds_violations"] == []


@pytest.mark.parametrize(("name", "text"), [("sib.c", SIBLINGS_C), ("sib.f90", SIBLINGS_F90)])
def test_sibling_nests_that_fit_together_stay_from_pass_to_pass(capsys, tmp_path, name, text):
    """Each nest reads one array of 4 KiB and writes another: 8 KiB of data and 4,096 +
    8,192 = 12,288 B per pass; a pass of the time loop touches both nests' 16 KiB. The L2
    of 64 KiB holds them: 12,288 B per nest over the 3 passes; the L1 (4 KiB) moves them
    every pass, 3 x 12,288 = 36,864 B. The compulsory bytes count each pass of a time loop
    afresh: 36,864 B per nest."""
    data = run(capsys, tmp_path, name, text)
    assert len(data["loops"]) == 2
    for loop in data["loops"]:
        assert traffic(loop) == pytest.approx({"L1": 36_864, "L2": 12_288})
        assert loop["traffic_blocks_gb"] * 1e9 == pytest.approx(36_864)
    assert data["bounds_violations"] == []


@pytest.mark.parametrize(("name", "text"), [("sib.c", SIBLINGS_C), ("sib.f90", SIBLINGS_F90)])
def test_sibling_nests_that_fit_only_alone_move_every_pass(capsys, tmp_path, name, text):
    """An L2 of 12 KiB holds either nest's 8 KiB but not the 16 KiB of the pass: every pass
    moves each nest's 12,288 B again, 3 x 12,288 = 36,864 B; 20 KiB holds both (12,288 B)."""
    data = run(capsys, tmp_path, name, text, "--set", "L2KB=12")
    for loop in data["loops"]:
        assert traffic(loop)["L2"] == pytest.approx(36_864)
    assert data["bounds_violations"] == []
    data = run(capsys, tmp_path, name, text, "--set", "L2KB=20")
    for loop in data["loops"]:
        assert traffic(loop)["L2"] == pytest.approx(12_288)


def test_a_time_loop_around_a_call_counts_each_pass_afresh(capsys, tmp_path):
    """do t = 1, 3 around a call of the sweep: a pass of a time loop, so the compulsory bytes
    are 3 x 12,288 = 36,864 B (n = 512), while the L2, holding the 8 KiB, moves 12,288 B."""
    text = REPEATED_F90.replace("  do r = 1, 4\n", "").replace("  end do\n  end do\n",
                                                                "  end do\n") + """\
subroutine steps(n, a, b)
  integer :: n, t
  real(8) :: a(n), b(n)
  do t = 1, 3
    call rep(n, a, b)
  end do
end subroutine
"""
    data = run(capsys, tmp_path, "steps.f90", text, "--set", "n=512")
    (loop,) = [lp for lp in data["loops"] if lp["procedure"] == "steps"]
    assert loop["traffic_blocks_gb"] * 1e9 == pytest.approx(36_864)
    assert traffic(loop) == pytest.approx({"L1": 36_864, "L2": 12_288})
    assert data["bounds_violations"] == []


@pytest.mark.libreoffice
def test_editing_the_l2_size_in_libreoffice_switches_the_reuse(capsys, tmp_path):
    """The workbook written with the 64 KiB L2 (siblings fit: 12,288 B per nest), its L2KB
    edited to 12 and recalculated: 36,864 B per nest, as the command line gives with --set."""
    from libreoffice import recalculate_edited, value_at

    book = tmp_path / "sib.xlsx"
    loops = run_with_machine(capsys, tmp_path, "sib.c", SIBLINGS_C, MACHINE_XML,
                             workbook=book)["loops"]
    values = recalculate_edited(book, {"L2KB": 12}, tmp_path / "edit")
    want = run(capsys, tmp_path, "sib.c", SIBLINGS_C, "--set", "L2KB=12")["loops"]
    for before, after in zip(loops, want, strict=True):
        for level, expected in zip(before["levels"], after["levels"], strict=True):
            got = float(value_at(values, level["cells"]["traffic_gb"]))
            assert math.isclose(got, expected["traffic_gb"], rel_tol=1e-9), level["level"]
        assert float(value_at(values, before["levels"][1]["cells"]["traffic_gb"])) * 1e9 == \
            pytest.approx(36_864)
        assert before["levels"][1]["traffic_gb"] * 1e9 == pytest.approx(12_288)


def test_a_loop_placing_a_tile_is_no_repetition(capsys, tmp_path):
    """ii subscripts no array but places every reference (a(ti + ii)): each of its 64 trips
    touches 8 new elements, so it is no repetition. The distinct bytes: a read, 512 x 8 =
    4,096 B, and c read for ownership and written back, 512 x 16 = 8,192 B: 12,288 B (taken
    as a repetition they would be 64 times fewer), and no level has a Repeats cell."""
    text = """\
subroutine copy(a, c)
  integer :: ii, ti
  real(8) :: a(512), c(512)
  do ii = 0, 504, 8
    do ti = 1, 8
      c(ti + ii) = a(ti + ii)
    end do
  end do
end subroutine
"""
    data = run(capsys, tmp_path, "tile.f90", text)
    (loop,) = data["loops"]
    assert loop["traffic_blocks_gb"] * 1e9 == pytest.approx(12_288)
    assert all("repeats" not in level for level in loop["levels"])
    assert data["bounds_violations"] == []


def test_a_loop_trimming_an_inner_range_is_a_repetition(capsys, tmp_path):
    """k moves only the lower end of m's range (do m = k + 2, 702): its three trips run over
    ranges that hold one another, the same elements again, so the compulsory bytes count one
    range, the widest (k = 1: m = 3..702, 700 elements): out written (16 B each, 11,200 B), inp
    read at m - 1, m, m + 1 (700 + 2 elements, 8 B each, 5,616 B): 16,816 B, what the execution
    touches. Counted once per trip of k it was 3 x as much."""
    text = """\
subroutine tri(out, inp)
  integer :: k, m
  real(8) :: out(704), inp(704)
  do k = 1, 3
    do m = k + 2, 702
      out(m) = inp(m) + inp(m - 1) + inp(m + 1)
    end do
  end do
end subroutine
"""
    data = run(capsys, tmp_path, "tri.f90", text)
    (loop,) = data["loops"]
    assert loop["traffic_blocks_gb"] * 1e9 == pytest.approx(16_816)
    assert data["bounds_violations"] == []
