"""Time loops at the cache levels (:mod:`sat.model.hierarchy.pass_data`): a level keeps a
step's data for the next step when the lines the step touches fit it; a step never touches
more of an array than the whole array, and its rows count the lines they span at any
alignment.

A time loop around a called procedure's tiled nest: a level holding every array the pass
touches moves them in the first pass only.

The nest (C and Fortran, the same layout): ``a`` and ``b`` of 8 x 8 x 20 4-byte integers
(5,120 B each, 80 lines), ``r`` of 8 x 8 (256 B, 4 lines), walked in tiles of ``ts`` = 1
planes, three passes of a time loop around the call. The whole arrays: 5,120 + 5,120 + 256 =
10,496 B = 10.25 KiB. The model's footprint per tile, 2.5 KiB, times the 8 tiles of a pass
is 20 KiB: before, a 12 KiB L2 moved the data at every pass (3 x 32,768 = 98,304 B); now the
pass's share of each array is at most the array, 10.25 KiB < 12 KiB: the first pass moves
the data, the others nothing (32,768 B). A 10 KiB L2 (10.25 > 10) moves it at every pass.

The write-back LRU simulation (``gcc -O2 -o cachesim bench/validation/cachesim.c``; the trace
of the nest, a load of ``a``, a store of ``b``, a load and a store of ``r`` per iteration,
then 2.5 MiB of flush reads, through ``cachesim 4096:0:12288:0 4096:0:10240:0``) gives at
12 KiB 248 lines, 15,872 B (a 80 lines read, b 80 read and written back, r 4 read and
written back: one pass), at 10 KiB 26,112 B, and at the 4 KiB L1 3 x 15,872 = 47,616 B. The
model's one pass, 32,768 B, counts each row of 80 B in a tile as two whole lines (the rows of
a tile lie back to back): that is the tile's own count, left as it is here. At the 12 KiB L2,
which holds every whole array, the tiled nest's own rule (:mod:`sat.model.hierarchy.
held_arrays`) moves each array once in all: a 5,120 read, b 5,120 read for ownership and
5,120 written back, r 256 read and 256 written back = 15,872 B, the simulation's figure.
"""

from __future__ import annotations

import math

import pytest

from machines import level_rows, run_with_machine, two_level_machine

TILED_C = """\
#define MIN(a, b) ((a) < (b) ? (a) : (b))
int a[8][8][20], b[8][8][20], r[8][8];
void sweep(int n, int ts)
{
    for (int ii = 0; ii < 8; ii += ts)
        for (int i = ii; i < MIN(ii + ts, 8); i++)
            for (int j = 0; j < 8; j++) {
                r[i][j] = 0;
                for (int k = 0; k < n; k++) {
                    b[i][j][k] = 2 * a[i][j][k];
                    r[i][j] = r[i][j] + a[i][j][k];
                }
            }
}
void run(int n, int ts)
{
    for (int t = 0; t < 3; t++)
        sweep(n, ts);
}
"""

TILED_F90 = """\
subroutine sweep(a, b, r, n, ts)
  integer :: n, ts, ii, i, j, k
  integer(4) :: a(n, 8, 8), b(n, 8, 8), r(8, 8)
  do ii = 1, 8, ts
    do i = ii, min(ii + ts - 1, 8)
      do j = 1, 8
        r(j, i) = 0
        do k = 1, n
          b(k, j, i) = 2 * a(k, j, i)
          r(j, i) = r(j, i) + a(k, j, i)
        end do
      end do
    end do
  end do
end subroutine
subroutine run(a, b, r, n, ts)
  integer :: n, ts, t
  integer(4) :: a(n, 8, 8), b(n, 8, 8), r(8, 8)
  do t = 1, 3
    call sweep(a, b, r, n, ts)
  end do
end subroutine
"""

SOURCES = [("tiled.c", TILED_C), ("tiled.f90", TILED_F90)]
ONE_PASS = 32_768  # the model's bytes of one pass (see the module's docstring)
WHOLE_ONCE = 5_120 + 2 * 5_120 + 2 * 256  # each whole array once, b and r written back


def _levels(capsys, tmp_path, name: str, text: str, l2_kib: int, *options: str) -> dict:
    return level_rows(capsys, tmp_path, name, text, two_level_machine(l2_kib),
                      "--set", "ts=1", "--set", "n=20", *options)


@pytest.mark.parametrize("name,text", SOURCES, ids=["c", "fortran"])
def test_a_level_holding_the_whole_arrays_moves_them_in_the_first_pass(capsys, tmp_path,
                                                                       name, text):
    levels = _levels(capsys, tmp_path, name, text, 12)
    # the 4 KiB L1 holds no pass: 3 passes; the 12 KiB L2 holds the 10.25 KiB: 1 pass
    assert levels["L1"]["repeats"] == 3
    assert math.isclose(levels["L1"]["traffic_gb"] * 1e9, 3 * ONE_PASS, rel_tol=1e-9)
    assert levels["L2"]["repeats"] == 1
    assert math.isclose(levels["L2"]["traffic_gb"] * 1e9, WHOLE_ONCE, rel_tol=1e-9)


@pytest.mark.parametrize("name,text", SOURCES, ids=["c", "fortran"])
def test_a_level_smaller_than_the_whole_arrays_moves_them_every_pass(capsys, tmp_path,
                                                                     name, text):
    levels = _levels(capsys, tmp_path, name, text, 10)  # 10.25 KiB > 10 KiB
    assert levels["L2"]["repeats"] == 3
    assert math.isclose(levels["L2"]["traffic_gb"] * 1e9, 3 * ONE_PASS, rel_tol=1e-9)


def test_the_declared_extents_follow_the_problem_size(capsys, tmp_path):
    # n = 24: a and b 24 x 64 x 4 = 6,144 B each, with r 12,544 B = 12.25 KiB > 12 KiB
    levels = _levels(capsys, tmp_path, "tiled.f90", TILED_F90, 12, "--set", "n=24")
    assert levels["L2"]["repeats"] == 3


@pytest.mark.libreoffice
def test_editing_the_cache_or_the_problem_size_in_libreoffice_recomputes_the_passes(
        capsys, tmp_path):
    """The workbook written with a 12 KiB L2 and n = 20 (each whole array once, 15,872 B), its L2KB
    edited to 10, or n to 24, and recalculated: every pass moves, as the command line gives
    with the same --set."""
    from libreoffice import recalculate_edited, value_at

    book = tmp_path / "tiled.xlsx"
    data = run_with_machine(capsys, tmp_path, "tiled.f90", TILED_F90, two_level_machine(12),
                            "--set", "ts=1", "--set", "n=20", workbook=book)
    (loop,) = data["loops"]
    cell = loop["levels"][1]["cells"]["traffic_gb"]
    assert loop["levels"][1]["traffic_gb"] * 1e9 == pytest.approx(WHOLE_ONCE)
    for edits, options in (({"L2KB": 10}, ("--set", "L2KB=10")), ({"n": 24}, ("--set", "n=24"))):
        values = recalculate_edited(book, edits, tmp_path / f"edit{len(options[1])}")
        want = _levels(capsys, tmp_path, "tiled.f90", TILED_F90, 12, *options)["L2"]
        got = float(value_at(values, cell))
        assert math.isclose(got, want["traffic_gb"], rel_tol=1e-9), edits
        assert want["repeats"] == 3


# A Fortran section in a time loop (C: the same loop): out(3:50, j) of rows of 52 doubles
# and p(1:52, j), 20 rows, three passes. The footprint rounds out's rows of 48 elements to
# 6 lines from a line's start: 48 x 20 x 8 = 7,680 B, with p's 8,320 B 16,000 B = 15.625 KiB,
# which a 16 KiB L2 would hold. But the rows lie back to back and start anywhere in a line:
# each row counts MIN(52, 48 + 8 - 1) = 52 elements, 8,320 B: 16,640 B = 16.25 KiB, more
# than 16 KiB, so every pass moves the data; a 17 KiB L2 holds it. A pass moves p's 8,320 B
# and out's rows counted from where they start (:func:`sat.model.exasat.lines.row_start`):
# element 2 of rows of 52, GCD(52, 8) = 4, (FLOOR(48 - 1 + 2, 4) + 8) / 8 = 7 lines, at most
# the row's 52 elements: 52 x 20 x 8 = 8,320 B read and written back; 24,960 B a pass.
# The write-back LRU simulation (trace ``L p+8(52j+i+d),8`` for d = -2, 0, 2 then
# ``S out+8(52j+i),8``, i = 2..49, j = 0..19, three times, then the flush, through
# ``cachesim 512:0:16384:0 512:0:17408:0``): 72,320 B at 16 KiB (the model 74,880 B, +3.5 %;
# it gave 23,680 B before, -67 %) and 24,960 B at 17 KiB (exact).
SECTION_F90 = """\
subroutine sweep(out, p)
  real(8) :: out(52, 20), p(52, 20)
  integer :: j
  do j = 1, 20
    out(3:50, j) = (p(1:48, j) - p(3:50, j)) + p(5:52, j)
  end do
end subroutine
subroutine run(out, p)
  real(8) :: out(52, 20), p(52, 20)
  integer :: t
  do t = 1, 3
    call sweep(out, p)
  end do
end subroutine
"""

SECTION_C = """\
double out[20][52], p[20][52];
void sweep(void)
{
    for (int j = 0; j < 20; j++)
        for (int i = 2; i < 50; i++)
            out[j][i] = (p[j][i - 2] - p[j][i]) + p[j][i + 2];
}
void run(void)
{
    for (int t = 0; t < 3; t++)
        sweep();
}
"""

SECTION_PASS = 24_960  # 8,320 B of p read, out's 52 x 20 x 8 = 8,320 B read and written back


def _section_l2(capsys, tmp_path, name: str, text: str, l2_kib: int) -> dict:
    return level_rows(capsys, tmp_path, name, text, two_level_machine(l2_kib),
                      "--set", "L1KB=0.5")["L2"]


@pytest.mark.parametrize("name,text", [("section.f90", SECTION_F90), ("section.c", SECTION_C)],
                         ids=["fortran", "c"])
def test_rows_starting_anywhere_in_a_line_fill_the_level(capsys, tmp_path, name, text):
    at16 = _section_l2(capsys, tmp_path, name, text, 16)  # 16.25 KiB > 16 KiB: every pass
    assert at16["repeats"] == 3
    assert math.isclose(at16["traffic_gb"] * 1e9, 3 * SECTION_PASS, rel_tol=1e-9)
    at17 = _section_l2(capsys, tmp_path, name, text, 17)  # 16.25 KiB <= 17 KiB: the first
    assert at17["repeats"] == 1
    assert math.isclose(at17["traffic_gb"] * 1e9, SECTION_PASS, rel_tol=1e-9)


@pytest.mark.libreoffice
def test_editing_the_l2_size_in_libreoffice_recomputes_the_rows(capsys, tmp_path):
    """The section's workbook with a 17 KiB L2 (one pass, 24,960 B), its L2KB edited to 16
    and recalculated: the 16.25 KiB of unaligned rows no longer fit, every pass moves
    (74,880 B, as the command line gives with a 16 KiB L2)."""
    from libreoffice import recalculate_edited, value_at

    book = tmp_path / "section.xlsx"
    data = run_with_machine(capsys, tmp_path, "section.f90", SECTION_F90,
                            two_level_machine(17), "--set", "L1KB=0.5", workbook=book)
    (loop,) = data["loops"]
    row = next(r for r in loop["levels"] if r["level"] == "L2")
    assert row["traffic_gb"] * 1e9 == pytest.approx(SECTION_PASS)
    values = recalculate_edited(book, {"L2KB": 16}, tmp_path / "edit")
    assert float(value_at(values, row["cells"]["traffic_gb"])) * 1e9 == \
        pytest.approx(3 * SECTION_PASS)
