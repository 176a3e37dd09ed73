"""Triangles at the cache levels: the lines a triangle's rows touch when the source says
where one end of every row stays, with a reduction into an array of lower rank beside them.

The machine (:func:`machines.two_level_machine`): one core, 64-byte lines, an L1 of 4 KiB
and an L2 of 256 KiB before memory. A read array moves 64 B per line, a written one 128 B
(the line read for ownership, then written back).

Every expected number is also what the write-back LRU simulation gives: the nest's element
accesses in source order (``L addr,size`` for a read, ``S addr,size`` for a write, each
array at its own 64-byte aligned base), then reads of 2.5 MiB of fresh lines, piped into
``bench/validation/cachesim 4096:0:262144:0`` (``gcc -O2 -o cachesim
bench/validation/cachesim.c``), each level's bytes being its misses plus write-backs, less
the flush's own misses, times 64 B (as ``bench/differential/measure.py`` counts them).

**Rows with one end fixed.** A triangle's row ``j = 1, i`` starts at the same element of
every row and ends anywhere. With P elements to a line, rows ``pitch`` elements long and
``g = GCD(pitch, P)``, the fixed end sits at ``a`` (its element mod g; for a fixed last
element, g - 1 - that) and a row of ``x`` elements on average touches
``(x + a + P - (g + 1) / 2) / P`` lines: exact when the row lengths run over whole cycles of
P. The rule for rows whose both ends move, ``(x + P - 1) / P``, is the case g = 1.
"""

from __future__ import annotations

import math

import pytest

from machines import level_bytes, run_with_machine, two_level_machine

MACHINE_XML = two_level_machine(256)

# Rows of 48 reals (192 B, three lines: every row starts a line), row i holding elements
# 1 .. i, i = 1 .. 32: lengths 1 .. 32, mean x = 16.5. By hand: SUM CEILING(k / 16), k = 1 ..
# 32, = 16 x 1 + 16 x 2 = 48 lines per array; the rule: g = GCD(48, 16) = 16, a = 0,
# 16.5 + 0 + 16 - 8.5 = 24 elements, 1.5 lines a row, 32 x 1.5 = 48. a read: 48 x 64 =
# 3,072 B; b written: 48 x 128 = 6,144 B; red, 32 reals, two lines read and written:
# 2 x 128 = 256 B. 9,472 B at both levels (the simulation: 9,472 and 9,472). The rule for
# rows of two moving ends gave 16.5 + 15 = 31.5 elements, 63 lines a array: 12,352 B (+30 %).
LOW_F90 = """\
subroutine lowtri(a, b, red)
  integer :: i, j
  real(4) :: a(48, 32), b(48, 32), red(32)
  do i = 1, 32
    red(i) = 0.0
    do j = 1, i
      b(j, i) = 2.0 * a(j, i)
      red(i) = red(i) + a(j, i)
    end do
  end do
end subroutine
"""
LOW_BYTES = 48 * 64 + 48 * 128 + 2 * 128

# The same rows from element 5 (``j = 5, i + 4``): a = 4. By hand a row of k elements touches
# FLOOR((4 + k - 1) / 16) + 1 lines: 1 for k = 1 .. 12, 2 for 13 .. 28, 3 for 29 .. 32,
# 12 + 32 + 12 = 56 lines; the rule: 16.5 + 4 + 16 - 8.5 = 28 elements, 1.75 lines a row,
# 56 lines. 56 x 64 + 56 x 128 = 10,752 B (the simulation: 10,752 and 10,752).
OFFSET_F90 = """\
subroutine offtri(a, b)
  integer :: i, j
  real(4) :: a(48, 32), b(48, 32)
  do i = 1, 32
    do j = 5, i + 4
      b(j, i) = 2.0 * a(j, i)
    end do
  end do
end subroutine
"""
OFFSET_BYTES = 56 * 64 + 56 * 128

# Rows of 32 reals (two lines) holding elements i .. 32: the last element stays, at element
# 31 of its row (from 0), 31 mod 16 = 15, a = 16 - 1 - 15 = 0: the end of a line. Lengths
# 32 .. 1: 48 lines per array as above, 48 x 192 = 9,216 B (the simulation: 9,216 and 9,216).
HIGH_F90 = """\
subroutine hightri(a, b)
  integer :: i, j
  real(4) :: a(32, 32), b(32, 32)
  do i = 1, 32
    do j = i, 32
      b(j, i) = 2.0 * a(j, i)
    end do
  end do
end subroutine
"""

# C, a loop walking down from the diagonal to element 0 of rows of 48 floats: the first
# element stays (the range is 0 .. i whatever the direction), lengths 1 .. 32: 48 lines per
# array, 9,216 B (the simulation: 9,216 and 9,216).
DOWN_C = """\
float a[32][48], b[32][48];
void downtri(void)
{
    for (int i = 0; i < 32; i++)
        for (int k = i; k >= 0; k--)
            b[i][k] = 2.0f * a[i][k];
}
"""
TRIANGLE_BYTES = 48 * 64 + 48 * 128

# A C triangle whose rows start at a run-time element: nothing says where a row's ends sit,
# the rule for two moving ends stands: 16.5 + 15 = 31.5 elements, 63 / 32 lines a row,
# 63 lines per array, 63 x 192 = 12,096 B.
RUNTIME_C = """\
float a[32][48], b[32][48];
void anytri(int lo)
{
    for (int i = 0; i < 32; i++)
        for (int k = lo; k < lo + i + 1; k++)
            b[i][k] = 2.0f * a[i][k];
}
"""

# A triangle stepping by 2 (``j = 1, i, 2``): row i runs CEILING(i / 2) trips, 272 over the
# 32 rows, 8.5 on average. The model takes 2 elements a trip and the P - 1 = 15 elements of
# the rows' ends once: 8.5 x 2 + 15 = 32 elements, 2 lines a row, 64 lines per array,
# 64 x 192 = 12,288 B (counting the ends once per element of a step, (8.5 + 15) x 2 = 47
# elements, gave 94 lines, 18,048 B). The simulation: 9,216 B (48 lines per array: the
# rows start a line, which the model does not use for a stepped loop: +33 %).
STEPPED_F90 = """\
subroutine steptri(a, b)
  integer :: i, j
  real(4) :: a(48, 32), b(48, 32)
  do i = 1, 32
    do j = 1, i, 2
      b(j, i) = 2.0 * a(j, i)
    end do
  end do
end subroutine
"""


def _levels(capsys, tmp_path, name: str, text: str, *options: str) -> dict[str, float]:
    return level_bytes(capsys, tmp_path, name, text, MACHINE_XML, *options)


@pytest.mark.parametrize(("name", "text", "expected"), [
    ("low.f90", LOW_F90, LOW_BYTES), ("off.f90", OFFSET_F90, OFFSET_BYTES),
    ("high.f90", HIGH_F90, TRIANGLE_BYTES), ("down.c", DOWN_C, TRIANGLE_BYTES),
], ids=["first-element-with-reduction", "from-element-5", "last-element", "c-descending"])
def test_a_triangle_row_counts_its_lines_from_its_fixed_end(capsys, tmp_path, name, text,
                                                            expected):
    levels = _levels(capsys, tmp_path, name, text)
    for level in ("L1", "L2"):
        assert math.isclose(levels[level], expected, rel_tol=1e-9), level


def test_a_triangle_whose_ends_the_source_does_not_give_keeps_both_moving(capsys, tmp_path):
    levels = _levels(capsys, tmp_path, "any.c", RUNTIME_C, "--set", "lo=0")
    for level in ("L1", "L2"):
        assert math.isclose(levels[level], 63 * 192, rel_tol=1e-9), level


def test_a_stepped_triangle_counts_the_ends_of_its_rows_once(capsys, tmp_path):
    levels = _levels(capsys, tmp_path, "step.f90", STEPPED_F90)
    for level in ("L1", "L2"):
        assert math.isclose(levels[level], 64 * 192, rel_tol=1e-9), level


@pytest.mark.libreoffice
def test_editing_the_cache_and_line_sizes_in_libreoffice_recomputes_the_triangle(
        capsys, tmp_path):
    """The workbook of the triangle with its reduction (9,472 B at both levels), its L1KB
    edited to 8 and recalculated: as the command line gives with --set L1KB=8 (every line is
    touched once, 9,472 B still); LineBytes edited to 128: 32 reals a line, g = GCD(48, 32) =
    16, a = 0: 16.5 + 0 + 32 - 8.5 = 40 elements, 1.25 lines a row, 40 lines of a and of b,
    red one line: 40 x 128 + 40 x 256 + 256 = 15,616 B (the simulation with 128-byte lines,
    ``cachesim -l 128``: 15,616 B; row by row the starts alternate between elements 0 and 16
    of a line: 16 rows of one line, 8 of one and 8 of two)."""
    from libreoffice import recalculate_edited, value_at

    book = tmp_path / "low.xlsx"
    (before,) = run_with_machine(capsys, tmp_path, "low.f90", LOW_F90, MACHINE_XML,
                                 workbook=book)["loops"]
    assert before["levels"][0]["traffic_gb"] * 1e9 == pytest.approx(LOW_BYTES)
    values = recalculate_edited(book, {"L1KB": 8}, tmp_path / "edit")
    (want,) = run_with_machine(capsys, tmp_path, "low.f90", LOW_F90, MACHINE_XML,
                               "--set", "L1KB=8")["loops"]
    for level, expected in zip(before["levels"], want["levels"], strict=True):
        got = float(value_at(values, level["cells"]["traffic_gb"]))
        assert math.isclose(got, expected["traffic_gb"], rel_tol=1e-9), level["level"]
    lines = recalculate_edited(book, {"LineBytes": 128}, tmp_path / "lines")
    for level in before["levels"]:
        assert float(value_at(lines, level["cells"]["traffic_gb"])) * 1e9 == \
            pytest.approx(40 * 128 + 40 * 256 + 256), level["level"]
