"""Constructs met in real stencil codes, with hand-worked expected descriptions.

Each test is a small hand-written snippet of one construct found while checking satreport
against the code descriptions the original ExaSAT published for its CNS/SMC inputs; the
expected numbers are worked out by hand in the comments.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

from sat import ir
from sat.frontend import read_sources


def analyse(tmp_path: Path, code: str, name: str = "t.f90") -> ir.Program:
    path = tmp_path / name
    path.write_text(textwrap.dedent(code))
    return read_sources([str(path)])


def flops(body: ir.Body) -> tuple[int, int, int, int]:
    return body.adds, body.multiplies, body.divides, body.specials


def pairs(body: ir.Body) -> dict[str, list[tuple]]:
    """``name.component`` -> [(offsets, loopvars, reads, writes)] in first-access order."""
    return {a.key: [(x.offsets, x.loopvars, x.reads, x.writes) for x in a.accesses]
            for a in body.arrays}


def test_position_subscript_outside_its_loop_is_an_offset_not_a_component(tmp_path):
    # Inside the j loop, i is not a loop variable: u(i,j,k,m1) and u(i-1,j,k,m1) address the
    # same component m1 at two positions.  Before the fix, the plain name i was taken as a
    # second component ("i,m1") while "i-1" was not, splitting one component into two pairs.
    program = analyse(tmp_path, """\
        subroutine s(u, w, i, n)
          implicit none
          integer, parameter :: m1 = 1
          integer, intent(in) :: i, n
          real(8), intent(inout) :: u(0:n, n, n, 3), w(0:n, n, n, 3)
          integer :: j, k
          do k = 1, n
            do j = 1, n
              w(i,j,k,m1) = u(i,j,k,m1) - 2.0d0*u(i-1,j,k,m1)
            end do
          end do
        end subroutine
        """)
    inner = program.procedures[0].loops[0].loops[0]
    found = pairs(inner)
    # One pair per array: u/m1 read at positions i and i-1, w/m1 written at i.
    assert sorted(found) == ["u.m1", "w.m1"]
    assert found["u.m1"] == [(("i", 0, 0, "m1"), ("", "j", "k", ""), 1, 0),
                             (("i - 1", 0, 0, "m1"), ("", "j", "k", ""), 1, 0)]
    assert found["w.m1"] == [(("i", 0, 0, "m1"), ("", "j", "k", ""), 0, 1)]
    # u - 2*u: 1 add (the subtraction), 1 multiply.
    assert flops(inner) == (1, 1, 0, 0)


def test_component_before_the_loop_subscripts_when_none_follow(tmp_path):
    # Array-of-structures layout: the component comes first, q(qv, i, j); a loop-free
    # position between loop subscripts (the plane index p) is an offset, not a component.
    program = analyse(tmp_path, """\
        subroutine s(q, r, p, n)
          implicit none
          integer, parameter :: qv = 2
          integer, intent(in) :: p, n
          real(8), intent(in) :: q(3, n, n), r(n, 4, n)
          real(8) :: t
          integer :: i, j
          t = 0.0d0
          do j = 1, n
            do i = 1, n
              t = t + q(qv, i, j) * r(i, p, j)
            end do
          end do
        end subroutine
        """)
    inner = program.procedures[0].loops[0].loops[0]
    found = pairs(inner)
    assert sorted(found) == ["q.qv", "r"]
    assert found["q.qv"] == [(("qv", 0, 0), ("", "i", "j"), 1, 0)]
    assert found["r"] == [((0, "p", 0), ("i", "", "j"), 1, 0)]
    # t + q*r: 1 add, 1 multiply.
    assert flops(inner) == (1, 1, 0, 0)


def test_component_after_array_syntax_sections(tmp_path):
    # y(:,:,m) * c(m) outside any loop over m: the trailing m selects a component of y, as
    # the last subscript after the section dimensions; c(m) has no loop subscript at all.
    program = analyse(tmp_path, """\
        subroutine s(a, y, c, n, m)
          implicit none
          integer, intent(in) :: n, m
          real(8), intent(out) :: a(n, n)
          real(8), intent(in) :: y(n, n, 5), c(5)
          a(:, :) = y(:, :, m) * c(m)
        end subroutine
        """)
    inner = program.procedures[0].loops[0].loops[0]
    found = pairs(inner)
    assert found["y.m"] == [((0, 0, "m"), ("_i1", "_i2", ""), 1, 0)]
    assert found["c"] == [(("m",), ("",), 1, 0)]
    # one multiply per element
    assert flops(inner) == (0, 1, 0, 0)
