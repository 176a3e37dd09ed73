"""Rows at the cache levels: the lines a row touches when its range changes from row to row,
an array of the outer axis while rows are walked across, and the lines of the last rows a
walk across them reuses (each case's arithmetic is beside its snippet).

The machine (written here, :func:`machines.two_level_machine`): one core, 64-byte lines, an
L1 of 4 KiB and an L2 of 256 KiB before memory. Reals of 4 bytes: 16 elements per line; a
read array moves 64 B per line, a written one 128 B (the line read for ownership, then
written back).

A triangular range (``j = 0 .. i``) touches a part of each row whose length changes from row
to row. Every row here starts at its element 0 and ends anywhere in a line: over the places
its start takes in a line (g = GCD(60, 16) = 4 apart) a row of ``e`` elements touches on
average ``(e + 16 - (4 + 1) / 2) / 16`` lines. The mean row (``e`` = 12.5 over the 24 rows)
rounded up once to whole lines would be one line per row, 24 lines per array.

The exact count (rows of 60 reals, 240 B, so each row starts at another place in a line):
the lines of bytes ``[240 i, 240 i + 4 (i + 1))`` over i = 0..23 are 39 per array, so the
truth is 39 x 64 + 39 x 128 = 7,488 B at both levels (the data, 11.25 KiB as the model
counts it, does not fit the L1, but a row is read once: no reuse to lose). The write-back
simulator gives the same: ``gcc -O2 -o cachesim bench/validation/cachesim.c`` and the trace
``L a+240i+4j,4`` then ``S b+240i+4j,4`` for every (i, j), followed by 2.5 MiB of flush
reads (as ``bench/differential/emit.py`` writes it), through ``cachesim 4096:0:262144:0``.
"""

from __future__ import annotations

import math

import pytest

from machines import level_bytes, run_with_machine, two_level_machine

MACHINE_XML = two_level_machine(256)

TRIANGLE_C = """\
float a[24][60], b[24][60];
void tri(void)
{
    for (int i = 0; i < 24; i++)
        for (int j = 0; j <= i; j++)
            b[i][j] = 2.0f * a[i][j];
}
"""

TRIANGLE_F90 = """\
subroutine tri(a, b)
  integer :: i, j
  real(4) :: a(60, 24), b(60, 24)
  do i = 1, 24
    do j = 1, i
      b(j, i) = 2.0 * a(j, i)
    end do
  end do
end subroutine
"""

RECTANGLE_C = """\
float a[24][60], b[24][60];
void rect(void)
{
    for (int i = 0; i < 24; i++)
        for (int j = 0; j < 12; j++)
            b[i][j] = 2.0f * a[i][j];
}
"""

# the mean row: (1 + 24) / 2 = 12.5 elements. Every row starts at its element 0 (the source
# says so): GCD(60, 16) = 4, a = 0, 12.5 + 0 + 16 - (4 + 1) / 2 = 26 elements, 1.625 lines a
# row (tests/test_lower_rank_levels.py), 39 lines per array; rows taken to start and end
# anywhere: (12.5 + 15) / 16 = 1.71875 lines a row, 41.25 lines, 7,920 B (+5.8 %)
FIXED_END_LINES = 24 * (12.5 + 0 + 16 - 2.5) / 16  # 39 lines per array
FIXED_END_BYTES = FIXED_END_LINES * 64 + FIXED_END_LINES * 128  # a read, a written array
EXACT_BYTES = 39 * 64 + 39 * 128  # 7,488 B (the module's docstring)


def _levels(capsys, tmp_path, name: str, text: str) -> dict[str, float]:
    return level_bytes(capsys, tmp_path, name, text, MACHINE_XML)


@pytest.mark.parametrize("name,text", [("tri.c", TRIANGLE_C), ("tri.f90", TRIANGLE_F90)],
                         ids=["c", "fortran"])
def test_a_triangular_range_moves_the_mean_lines_of_its_rows(capsys, tmp_path, name, text):
    levels = _levels(capsys, tmp_path, name, text)
    for level in ("L1", "L2"):
        assert math.isclose(levels[level], FIXED_END_BYTES, rel_tol=1e-9), level
        # the exact count (the mean row rounded once: 4,608 B, 38 % short)
        assert math.isclose(levels[level], EXACT_BYTES, rel_tol=1e-9), level


def test_rows_of_one_length_keep_their_whole_lines(capsys, tmp_path):
    # 12 reals (48 B) a row, the rows 60 reals (240 B) apart: row i starts at byte 240 i,
    # 0, 48, 32, 16 of a line in turn, and touches 1, 2, 2, 1 lines (the source gives both
    # the start and the row length: GCD(60, 16) = 4, (FLOOR(11, 4) + 16) / 16 = 1.5 lines a
    # row), 36 per array, as the distinct lines of bytes [240 i, 240 i + 48) count:
    # 36 x 64 + 36 x 128 = 6,912 B (a row taken to start a line would give 24 lines, 4,608 B)
    levels = _levels(capsys, tmp_path, "rect.c", RECTANGLE_C)
    assert math.isclose(levels["L2"], 36 * 64 + 36 * 128, rel_tol=1e-9)


# Rows walked across (the contiguous axis outermost) with an array indexed by the outer
# variable alone: c(i) is read and written at every j, so its line is always the most
# recently used one and stays while i does not move. a is 96 rows of 48 doubles: one step of
# i touches a line in each of its 96 rows, 6 KiB, more than the 4 KiB L1, so every a(i, j)
# misses. L1: 48 x 96 lines of a x 64 B = 294,912 B, plus c's 6 lines read and written back
# (6 x 128 = 768 B): 295,680 B. L2 (256 KiB) holds everything: a once (36,864 B) and c
# once (768 B), 37,632 B. The write-back simulator (trace ``L c+8i,8``, ``L a+384j+8i,8``,
# ``S c+8i,8`` for i outer, j inner, then the flush, through ``cachesim 4096:0:262144:0``)
# gives the same two numbers. Before, c moved a line per access as a does: 589,824 B more.
COLUMN_SUM_C = """\
double a[96][48], c[48];
void colsum(void)
{
    for (int i = 0; i < 48; i++)
        for (int j = 0; j < 96; j++)
            c[i] = c[i] + a[j][i];
}
"""

COLUMN_SUM_F90 = """\
subroutine colsum(a, c)
  integer :: i, j
  real(8) :: a(48, 96), c(48)
  do i = 1, 48
    do j = 1, 96
      c(i) = c(i) + a(i, j)
    end do
  end do
end subroutine
"""


@pytest.mark.parametrize("name,text", [("colsum.c", COLUMN_SUM_C),
                                       ("colsum.f90", COLUMN_SUM_F90)], ids=["c", "fortran"])
def test_an_array_of_the_outer_axis_stays_while_rows_are_walked_across(capsys, tmp_path, name,
                                                                     text):
    levels = _levels(capsys, tmp_path, name, text)
    assert math.isclose(levels["L1"], 48 * 96 * 64 + 6 * 128, rel_tol=1e-9)
    assert math.isclose(levels["L2"], 48 * 96 * 8 + 48 * 16, rel_tol=1e-9)


# Rows walked across (i, the contiguous axis, outermost) with offsets along the walk: a(i,
# j-1), a(i, j), a(i, j+1). One step of i touches 64 lines of a and 62 of b, 7.9 KiB, more
# than the 4 KiB L1, so each reference would move a line. But a row serves three iterations
# in a row: between two uses of a row one iteration passes, whose lines (a's 3 and b's 1,
# 256 B) fit. So a moves one line per iteration, b one line read and written back, except
# at the first iteration of each walk of j, where a(i, j-1) and a(i, j) find no earlier
# iteration (the row was last touched by the previous walk): the two references that reuse
# a line after one iteration do so on 61 of 62 iterations, 48 x (62 x (64 + 128) + 2 x 64)
# = 577,536 B at the L1 (the simulator: 577,536 B; 571,392 B without the walks' edges).
# With a 128 B L1 (L1KB = 0.125) the 256 B do not fit: a moves its three lines
# per iteration, 48 x 62 x (3 x 64 + 128) = 952,320 B (the simulator: the same). L2 holds
# everything: a's 64 x 48 x 8 = 24,576 B and b's 62 x 48 x 16 = 47,616 B, 72,192 B.
# Simulator: the trace ``L a+384(j+d)+8i,8`` for d = -1, 0, 1, then ``S b+384j+8i,8``, i
# outer, j inner, then the flush, through ``cachesim 4096:0:262144:0`` and
# ``cachesim 128:0:262144:0``.
ROW_WINDOW_C = """\
double a[64][48], b[64][48];
void rows(void)
{
    for (int i = 0; i < 48; i++)
        for (int j = 1; j < 63; j++)
            b[j][i] = a[j - 1][i] + a[j][i] + a[j + 1][i];
}
"""

ROW_WINDOW_F90 = """\
subroutine rows(a, b)
  integer :: i, j
  real(8) :: a(48, 64), b(48, 64)
  do i = 1, 48
    do j = 2, 63
      b(i, j) = a(i, j - 1) + a(i, j) + a(i, j + 1)
    end do
  end do
end subroutine
"""

WINDOW_FITS = 48 * (62 * (64 + 128) + 2 * 64)  # 577,536 B
WINDOW_MISSES = 48 * 62 * (3 * 64 + 128)  # 952,320 B


@pytest.mark.parametrize("name,text", [("rows.c", ROW_WINDOW_C), ("rows.f90", ROW_WINDOW_F90)],
                         ids=["c", "fortran"])
def test_rows_walked_across_reuse_the_lines_of_the_last_rows(capsys, tmp_path, name, text):
    levels = _levels(capsys, tmp_path, name, text)
    assert math.isclose(levels["L1"], WINDOW_FITS, rel_tol=1e-9)
    assert math.isclose(levels["L2"], 64 * 48 * 8 + 62 * 48 * 16, rel_tol=1e-9)


def test_a_level_smaller_than_the_last_rows_moves_a_line_per_reference(capsys, tmp_path):
    data = run_with_machine(capsys, tmp_path, "rows.c", ROW_WINDOW_C, MACHINE_XML,
                            "--set", "L1KB=0.125")
    (loop,) = data["loops"]
    assert math.isclose(loop["levels"][0]["traffic_gb"] * 1e9, WINDOW_MISSES, rel_tol=1e-9)


@pytest.mark.libreoffice
def test_editing_the_l1_size_in_libreoffice_recomputes_the_row_window(capsys, tmp_path):
    """The workbook written with the 4 KiB L1 (577,536 B), its L1KB edited to 0.125 and
    recalculated: 952,320 B, as the command line gives with --set L1KB=0.125."""
    from libreoffice import recalculate_edited, value_at

    book = tmp_path / "rows.xlsx"
    (loop,) = run_with_machine(capsys, tmp_path, "rows.c", ROW_WINDOW_C, MACHINE_XML,
                               workbook=book)["loops"]
    assert math.isclose(loop["levels"][0]["traffic_gb"] * 1e9, WINDOW_FITS, rel_tol=1e-9)
    values = recalculate_edited(book, {"L1KB": 0.125}, tmp_path / "edit")
    got = float(value_at(values, loop["levels"][0]["cells"]["traffic_gb"]))
    assert math.isclose(got * 1e9, WINDOW_MISSES, rel_tol=1e-9)


# A time loop calling a procedure whose arrays only the callee names (module or file-scope
# arrays): their rows still lie back to back. Three arrays of 32 rows of 40 4-byte integers:
# a row is 160 B, 2.5 lines; rows back to back, an array is 5,120 B, 15 KiB for the three,
# which a 16 KiB L2 holds: the first of the three passes moves them (p and q read, out read
# for ownership and written back: 4 x 5,120 = 20,480 B), the other two nothing. Each row
# rounded to whole lines (3 lines, 192 B) would make 18 KiB, more than the L2, and every
# pass would move them (73,728 B). The 4 KiB L1 holds no pass: 3 x 20,480 = 61,440 B.
CALLED_F90 = """\
module fields
  implicit none
  integer(4) :: out(40, 32), p(40, 32), q(40, 32)
contains
  subroutine steps()
    integer :: t
    do t = 1, 3
      call sweep()
    end do
  end subroutine steps
  subroutine sweep()
    out = p - 3 * q
  end subroutine sweep
end module fields
"""

CALLED_C = """\
int out[32][40], p[32][40], q[32][40];
void sweep(void)
{
    for (int j = 0; j < 32; j++)
        for (int i = 0; i < 40; i++)
            out[j][i] = p[j][i] - 3 * q[j][i];
}
void steps(void)
{
    for (int t = 0; t < 3; t++)
        sweep();
}
"""


@pytest.mark.parametrize("name,text", [("fields.c", CALLED_C), ("fields.f90", CALLED_F90)],
                         ids=["c", "fortran"])
def test_rows_of_a_called_procedures_arrays_lie_back_to_back(capsys, tmp_path, name, text):
    data = run_with_machine(capsys, tmp_path, name, text, two_level_machine(16))
    (loop,) = data["loops"]
    assert not data["bounds_violations"]
    at = {row["level"]: row for row in loop["levels"]}
    assert at["L2"]["data_kib"] == pytest.approx(15)
    assert at["L2"]["traffic_gb"] * 1e9 == pytest.approx(20_480)
    assert at["L1"]["traffic_gb"] * 1e9 == pytest.approx(61_440)
