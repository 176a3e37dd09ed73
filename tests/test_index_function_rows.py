"""Rows of an array read through an index function know their length: a one-dimensional
array read as ``a[IX(i, j)]`` with ``IX(i, j) = i + 52*j`` has rows of 52 elements, as the
same array declared ``a[24][52]``, so the model counts a row's lines from where it starts in
its line (``sat.model.exasat.lines.started_row_lines``), not from a line's start.

The machine (:func:`machines.two_level_machine`): one core, 64-byte lines, an L1 of 4 KiB and
an L2 of 256 KiB before memory. A read array moves 64 B per line, a written one 128 B (the
line read for ownership, then written back).

The nest: 24 rows of 52 doubles (416 B), the X loop over elements 2 .. 49 (48 elements).
A row starts at element 2 + 52 r: with P = 8 doubles to a line, g = GCD(52, 8) = 4, a = 2
mod 4 = 2, a row touches (FLOOR(48 - 1 + 2, 4) + 8) / 8 = (48 + 8) / 8 = 7 lines on average
from where it starts, at most the row's own 52 elements (6.5 lines: rows one after the other
share the lines at their ends): 24 x 6.5 = 156 lines per array (counting the distinct lines
of bytes [416 r + 16, 416 r + 400), r = 0 .. 23, gives 156 too), 156 x 64 + 156 x 128 =
29,952 B at both levels. A row taken to start a line: 6 lines, 144 x 192 = 27,648 B.

The simulation agrees: the nest's accesses (``L addr,8`` / ``S addr,8``, each array at its own
64-byte aligned base) then 2.5 MiB of fresh reads, piped into ``bench/validation/cachesim
4096:0:262144:0`` (``gcc -O2 -o cachesim bench/validation/cachesim.c``): 29,952 B at L1 and L2.
"""

from __future__ import annotations

import math

import pytest

from machines import level_bytes, run_with_machine, two_level_machine

MACHINE_XML = two_level_machine(256)

STARTED_BYTES = 156 * 64 + 156 * 128  # 29,952 B
LINE_START_BYTES = 144 * 64 + 144 * 128  # 27,648 B: what rows taken to start a line give

TWO_D_C = """\
double out[24][52], inp[24][52];
void rows(void)
{
    for (int j = 0; j < 24; j++)
        for (int i = 2; i < 50; i++)
            out[j][i] = 2.0 * inp[j][i];
}
"""

MACRO_C = """\
#define IX(i, j) ((i) + 52 * (j))
double out[1248], inp[1248];
void rows(void)
{
    for (int j = 0; j < 24; j++)
        for (int i = 2; i < 50; i++)
            out[IX(i, j)] = 2.0 * inp[IX(i, j)];
}
"""

FUNCTION_C = """\
static inline int ix(int i, int j) { return i + 52 * j; }
double out[24 * 52], inp[24 * 52];
void rows(void)
{
    for (int j = 0; j < 24; j++)
        for (int i = 2; i < 50; i++)
            out[ix(i, j)] = 2.0 * inp[ix(i, j)];
}
"""

TWO_D_F90 = """\
subroutine rows(out, inp)
  integer :: i, j
  real(8) :: out(52, 24), inp(52, 24)
  do j = 1, 24
    do i = 3, 50
      out(i, j) = 2.0d0 * inp(i, j)
    end do
  end do
end subroutine
"""

FUNCTION_F90 = """\
subroutine rows(out, inp)
  integer :: i, j
  real(8) :: out(1248), inp(1248)
  do j = 1, 24
    do i = 3, 50
      out(ix(i, j)) = 2.0d0 * inp(ix(i, j))
    end do
  end do
contains
  integer function ix(i, j)
    integer, intent(in) :: i, j
    ix = i + 52 * (j - 1)
  end function
end subroutine
"""

STATEMENT_F90 = """\
subroutine rows(out, inp)
  integer :: i, j, ix
  real(8) :: out(0:1247), inp(0:1247)
  ix(i, j) = i + 52 * j
  do j = 0, 23
    do i = 2, 49
      out(ix(i, j)) = 2.0d0 * inp(ix(i, j))
    end do
  end do
end subroutine
"""


def _levels(capsys, tmp_path, name: str, text: str) -> dict[str, float]:
    return level_bytes(capsys, tmp_path, name, text, MACHINE_XML)


@pytest.mark.parametrize(("name", "text"), [
    ("two_d.c", TWO_D_C), ("macro.c", MACRO_C), ("function.c", FUNCTION_C),
    ("two_d.f90", TWO_D_F90), ("function.f90", FUNCTION_F90),
    ("statement.f90", STATEMENT_F90),
], ids=["two-d-c", "macro-c", "function-c", "two-d-fortran", "function-fortran",
        "statement-function-fortran"])
def test_rows_through_an_index_function_count_lines_from_their_start(capsys, tmp_path, name,
                                                                     text):
    levels = _levels(capsys, tmp_path, name, text)
    for level in ("L1", "L2"):
        assert math.isclose(levels[level], STARTED_BYTES, rel_tol=1e-9), (level, levels)


def test_the_index_function_gives_the_array_its_rows(capsys, tmp_path):
    """The code description declares ``out`` as the index makes it: 1,248 / 52 = 24 rows of
    52 elements (the same shape as ``double out[24][52]``)."""
    data = run_with_machine(capsys, tmp_path, "macro.c", MACRO_C, MACHINE_XML,
                            "--xml", str(tmp_path / "macro.xml"))
    assert data["loops"]
    two_d = run_with_machine(capsys, tmp_path, "two_d.c", TWO_D_C, MACHINE_XML,
                             "--xml", str(tmp_path / "two_d.xml"))
    assert two_d["loops"]
    text = (tmp_path / "macro.xml").read_text()
    assert 'shape="(0:23,0:51)"' in _declaration(text, "out")
    assert _declaration(text, "out") == _declaration((tmp_path / "two_d.xml").read_text(),
                                                     "out")


def test_an_index_that_is_no_whole_number_of_rows_keeps_one_axis(capsys, tmp_path):
    """1,250 elements are no whole number of rows of 52: nothing says where the rows lie in
    the declaration, so the rows are taken to start a line (6 lines a row, 27,648 B)."""
    text = MACRO_C.replace("[1248]", "[1250]")
    levels = _levels(capsys, tmp_path, "odd.c", text)
    assert math.isclose(levels["L2"], LINE_START_BYTES, rel_tol=1e-9), levels


def _declaration(xml: str, name: str) -> str:
    """The XML element declaring the array ``name``."""
    import re

    match = re.search(rf'<(?:nonlocal|local)[^>]*name="{name}"[^>]*shape="[^"]*"[^>]*>', xml)
    assert match is not None
    return match.group(0)


@pytest.mark.parametrize("parser", ["tree-sitter", "fparser"])
def test_fortran_rows_through_an_index_function_take_their_shape(capsys, tmp_path, parser):
    """``out(1248)`` read as ``out(ix(i, j))``, ``ix = i + 52*(j - 1)``: ``out(i, j - 1)`` of
    shape (1:52, 0:23), the element i + 52*(j - 1) as declared; both parsers say so."""
    run_with_machine(capsys, tmp_path, "function.f90", FUNCTION_F90, MACHINE_XML,
                     "--fortran-parser", parser, "--xml", str(tmp_path / "f.xml"))
    text = (tmp_path / "f.xml").read_text()
    assert 'shape="(1:52,0:23)"' in _declaration(text, "out")
    assert 'dependentloopvar="(i,j)"' in text and 'offset="(0,-1)"' in text
