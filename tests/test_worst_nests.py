"""The mechanisms behind the generated nests the model was furthest from (10x to 150x): each
with a small snippet in C and Fortran and its numbers worked out by hand.

- Rows of a stepped Y loop (``i += 3`` with ``a[i-2]``, ``a[i]``, ``a[i+2]``) are three rows at
  once, not the folded offsets in each row of a step: the cell working set and the data one
  step of X touches count each row once.
- A window of X offsets (``a[j-1]``, ``a[j]``) straddles a line boundary at one position in
  eight of doubles: a level holding the lines of the other positions keeps the reuse within
  pencils except there.
- One step of an outer X loop over inner loops touches each row its pencils reach once
  (``a[j][k+1][i]`` over ``k`` is ``a[j][k][i]`` one step later) and an array not indexed
  by the inner loops (``c[i]``) in one line.

The machine: the tests' two-level machine (4 KiB L1, 16 KiB L2, 64-byte lines), its L1
resized with ``--set L1KB``.
"""

from __future__ import annotations

import math

import pytest

from machines import run_with_machine, two_level_machine

ROWS_C = """\
float a[40][64], b[40][64];
void rows(void)
{
    for (int i = 4; i < 36; i += 3)
        for (int j = 0; j < 64; j++)
            b[i][j] = a[i][j] + a[i - 2][j] + a[i + 2][j];
}
"""

ROWS_F90 = """\
subroutine rows(a, b)
  real :: a(64, 40), b(64, 40)
  integer :: i, j
  do i = 5, 35, 3
    do j = 1, 64
      b(j, i) = a(j, i) + a(j, i - 2) + a(j, i + 2)
    end do
  end do
end subroutine rows
"""

SHIFT_C = """\
double a[16][64], b[16][64];
void shift(void)
{
    for (int i = 0; i < 16; i++)
        for (int j = 1; j < 64; j++)
            b[i][j] = a[i][j] + a[i][j - 1];
}
"""

SHIFT_F90 = """\
subroutine shift(a, b)
  real(8) :: a(64, 16), b(64, 16)
  integer :: i, j
  do i = 1, 16
    do j = 2, 64
      b(j, i) = a(j, i) + a(j - 1, i)
    end do
  end do
end subroutine shift
"""

SWEEP_C = """\
float a[8][12][32], b[8][12][32], c[32];
void sweep(void)
{
    for (int i = 0; i < 32; i++)
        for (int j = 0; j < 8; j++)
            for (int k = 0; k < 10; k++)
                b[j][k][i] = a[j][k][i] + a[j][k + 1][i] + a[j][k + 2][i] + c[i];
}
"""

SWEEP_F90 = """\
subroutine sweep(a, b, c)
  real :: a(32, 12, 8), b(32, 12, 8), c(32)
  integer :: i, j, k
  do i = 1, 32
    do j = 1, 8
      do k = 1, 10
        b(i, k, j) = a(i, k, j) + a(i, k + 1, j) + a(i, k + 2, j) + c(i)
      end do
    end do
  end do
end subroutine sweep
"""

DIAGONAL_C = """\
float a[8][8][32], b[8][8][32];
void diagonal(void)
{
    for (int i = 0; i < 32; i++)
        for (int j = 0; j < 4; j++)
            for (int k = 0; k < 4; k++)
                b[j][k][i] = a[j][k][i] + a[j + 2][k + 3][i];
}
"""


def run(capsys, tmp_path, name: str, text: str, *options: str) -> dict:
    return run_with_machine(capsys, tmp_path, name, text, two_level_machine(16), *options)


def levels(loop: dict) -> dict[str, dict]:
    return {level["level"]: level for level in loop["levels"]}


@pytest.mark.parametrize("name, text", [("rows.c", ROWS_C), ("rows.f90", ROWS_F90)])
def test_rows_of_a_stepped_loop_are_held_once_each(capsys, tmp_path, name, text):
    """11 steps of i (4, 7, ..., 34), each reading the rows i-2, i and i+2 of a and writing
    row i of b, 64 floats (4 lines) per row. At once: 3 lines of a and 1 of b, 4 lines =
    0.25 KiB, which an L1 of 0.25 KiB holds (it used to count 3 copies x 2 folded pencils
    = 6 lines of a, and moved a line per access: 225,280 B).
    Traffic: a 11 x 3 rows x 4 lines = 132 lines; b 11 x 4 lines read for ownership and
    44 written back = 88 lines; 220 lines x 64 B = 14,080 B."""
    (loop,) = run(capsys, tmp_path, name, text, "--set", "L1KB=0.25")["loops"]
    l1 = levels(loop)["L1"]
    assert l1["ws_cell_kb"] == pytest.approx(4 * 64 / 1024)
    assert l1["layer_condition"] == "within"
    assert l1["traffic_gb"] * 1e9 == pytest.approx(14_080)


@pytest.mark.parametrize("name, text", [("shift.c", SHIFT_C), ("shift.f90", SHIFT_F90)])
@pytest.mark.parametrize("l1_kib, expected", [
    # 3 lines: a's window (2 lines where it straddles) and b's line always fit. Within
    # pencils: a 16 rows x 8 lines = 128 lines, b 16 x 8 lines x 2 (read for ownership,
    # written back) = 256 lines; 384 x 64 B = 24,576 B
    (0.1875, 24_576),
    # 2 lines: a's window fits except at the 1 position in 8 where j-1 and j straddle a
    # line. A line per access moves a 2 x 63 x 16 = 2,016 lines, b 63 x 16 x 2 = 2,016:
    # 258,048 B; 24,576 + (258,048 - 24,576) / 8 = 53,760 B
    (0.125, 53_760),
    # 1 line: not even a's and b's lines: a line per access
    (0.0625, 258_048),
])
def test_a_window_straddling_a_line_costs_only_where_it_straddles(capsys, tmp_path, name,
                                                                   text, l1_kib, expected):
    (loop,) = run(capsys, tmp_path, name, text, "--set", f"L1KB={l1_kib}")["loops"]
    l1 = levels(loop)["L1"]
    assert l1["traffic_gb"] * 1e9 == pytest.approx(expected)
    assert l1["layer_condition"] == ("none" if l1_kib < 0.125 else "within")


@pytest.mark.parametrize("name, text", [("sweep.c", SWEEP_C), ("sweep.f90", SWEEP_F90)])
def test_one_step_of_an_outer_x_loop_touches_each_row_once(capsys, tmp_path, name, text):
    """X (i) outermost. One step of i touches a's rows k = 0..11 in 8 planes: 96 lines (not
    3 offsets x 80 points = 240), b's 80 rows: 80 lines, and c's one line (not 80): 177
    lines = 11.0625 KiB (it was 25 KiB), which the 16 KiB L2 holds. Every line then moves
    once: a 8 x 12 rows x 2 lines (32 floats) = 192, b 8 x 10 x 2 x 2 (read for ownership,
    written back) = 320, c 2: 514 lines x 64 B = 32,896 B (it was 491,520 B)."""
    (loop,) = run(capsys, tmp_path, name, text)["loops"]
    assert loop["ws_sweep_kb"] == pytest.approx(177 * 64 / 1024)
    assert levels(loop)["L2"]["traffic_gb"] * 1e9 == pytest.approx(32_896)


def test_shifted_blocks_share_only_the_rows_they_overlap_in(capsys, tmp_path):
    """One step of i: a's rows (j, k) over 4 x 4 points and the same shifted by (2, 3):
    16 + 16 rows, of which the 2 rows j = 2..3, k = 3 are in both: 30 lines (not 32, nor
    the 6 x 7 = 42 rows of the box the two span); b 16 lines; 46 lines of 64 B = 2.875
    KiB."""
    (loop,) = run(capsys, tmp_path, "diagonal.c", DIAGONAL_C)["loops"]
    assert loop["ws_sweep_kb"] == pytest.approx(46 * 64 / 1024)


@pytest.mark.libreoffice
def test_editing_the_l1_size_in_libreoffice_recomputes_the_straddled_traffic(capsys,
                                                                              tmp_path):
    """The workbook written with L1KB 0.1875 (24,576 B), L1KB edited to 0.125 and
    recalculated: 53,760 B, as the command line gives with --set L1KB=0.125."""
    from libreoffice import recalculate_edited, value_at

    book = tmp_path / "shift.xlsx"
    (before,) = run_with_machine(capsys, tmp_path, "shift.c", SHIFT_C, two_level_machine(16),
                                 "--set", "L1KB=0.1875", workbook=book)["loops"]
    values = recalculate_edited(book, {"L1KB": 0.125}, tmp_path / "edit")
    (want,) = run(capsys, tmp_path, "shift.c", SHIFT_C, "--set", "L1KB=0.125")["loops"]
    for level, expected in zip(before["levels"], want["levels"], strict=True):
        got = float(value_at(values, level["cells"]["traffic_gb"]))
        assert math.isclose(got, expected["traffic_gb"], rel_tol=1e-9), level["level"]
    assert float(value_at(values, before["levels"][0]["cells"]["traffic_gb"])) * 1e9 == \
        pytest.approx(53_760)
