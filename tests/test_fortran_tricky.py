"""Hand-worked counts for the Fortran constructs that are easy to get wrong."""

from __future__ import annotations

import shutil
import textwrap
from pathlib import Path

import pytest

from sat import ir
from sat.frontend import read_sources
from sat.frontend.subscripts import normalise


def analyse(tmp_path: Path, code: str, name: str = "t.f90", **kwargs) -> ir.Program:
    path = tmp_path / name
    path.write_text(textwrap.dedent(code))
    return read_sources([str(path)], **kwargs)


def flops(body: ir.Body) -> tuple[int, int, int, int]:
    return body.adds, body.multiplies, body.divides, body.specials


def scalars(body: ir.Body) -> dict[str, ir.Scalar]:
    return {s.name: s for s in body.scalars}


def arrays(body: ir.Body) -> dict[str, ir.Array]:
    return {a.key: a for a in body.arrays}


def accesses(array: ir.Array) -> list[tuple]:
    return [(a.offsets, a.loopvars, a.reads, a.writes) for a in array.accesses]


def messages(program: ir.Program) -> list[str]:
    return [str(d) for d in program.warnings]


def test_integer_arithmetic_is_free_and_mixed_arithmetic_counts(tmp_path):
    program = analyse(tmp_path, """\
        subroutine s(a, n, m)
          implicit none
          integer, intent(in) :: n, m
          real(8), intent(inout) :: a(n)
          integer :: i, k
          real(8) :: x
          do i = 1, n
            k = i*m + 2 - n/2
            x = a(i) * 2 + k
            a(i) = x - 1.0d0 + i * 1.d0
          end do
        end subroutine
        """)
    loop = program.procedures[0].loops[0]
    # k = i*m + 2 - n/2: all integer -> 0.  x = a(i)*2 + k: 1 mul + 1 add (real * int is real).
    # a(i) = x - 1.0d0 + i*1.d0: 2 adds + 1 mul.  Total: 3 adds, 2 multiplies.
    assert flops(loop) == (3, 2, 0, 0)
    assert scalars(loop)["k"].datatype == "int" and scalars(loop)["k"].accesstype == "writeread"
    assert scalars(loop)["x"].accesstype == "writeread"


def test_unary_minus_is_not_a_flop(tmp_path):
    program = analyse(tmp_path, """\
        subroutine s(a, b, c, n)
          integer n, i
          real(8) a(n), b(n), c(n)
          do i = 1, n
            a(i) = -a(i)
          end do
          do i = 1, n
            a(i) = -b(i) * c(i)
          end do
          do i = 1, n
            a(i) = b(i) - (-c(i))
          end do
        end subroutine
        """)
    loops = program.procedures[0].loops
    # -a: 0 flops;  -b*c: 1 multiply;  b - (-c): 1 add (the subtraction only).
    assert [flops(lp) for lp in loops] == [(0, 0, 0, 0), (0, 1, 0, 0), (1, 0, 0, 0)]


def test_powers(tmp_path):
    program = analyse(tmp_path, """\
        subroutine s(a, y, n, j)
          implicit none
          integer, parameter :: four = 4
          integer n, i, j
          real(8) a(n), y
          do i = 1, n
            a(i) = a(i)**2
          end do
          do i = 1, n
            a(i) = a(i)**3
          end do
          do i = 1, n
            a(i) = a(i)**0.5d0
          end do
          do i = 1, n
            a(i) = a(i)**y
          end do
          do i = 1, n
            a(i) = a(i)**four
          end do
          do i = 1, n
            a(i) = a(i)**(-2)
          end do
          do i = 1, n
            a(i) = a(i)**2.0
          end do
          do i = 1, n
            a(i) = a(i)**j
          end do
          do i = 1, n
            j = i**2
          end do
        end subroutine
        """)
    got = [flops(lp) for lp in program.procedures[0].loops]
    assert got == [
        (0, 1, 0, 0),  # x**2 = x*x
        (0, 2, 0, 0),  # x**3 = x*x*x
        (0, 0, 0, 1),  # x**0.5: special
        (0, 0, 0, 1),  # x**y: special
        (0, 3, 0, 0),  # x**four (parameter 4): 3 multiplies
        (0, 1, 1, 0),  # x**(-2) = 1/(x*x): 1 divide, 1 multiply
        (0, 1, 0, 0),  # x**2.0: integral exponent, 1 multiply
        (0, 0, 0, 1),  # x**j, j not constant: special
        (0, 0, 0, 0),  # i**2 on integers: index arithmetic
    ]


def test_intrinsic_costs(tmp_path):
    program = analyse(tmp_path, """\
        subroutine s(a, b, n)
          integer n, i, k
          real(8) a(n), b(n)
          do i = 1, n
            a(i) = max(a(i), b(i), 0.0d0) + abs(b(i))
          end do
          do i = 1, n
            k = max(i, n, 3) + abs(i)
          end do
          do i = 1, n
            a(i) = exp(a(i)) * log(b(i)) + sqrt(a(i)) - sin(b(i))
          end do
          do i = 1, n
            a(i) = mod(a(i), b(i)) + dble(i)
          end do
        end subroutine
        """)
    got = [flops(lp) for lp in program.procedures[0].loops]
    assert got == [
        (3, 0, 0, 0),  # max of 3 args = 2 adds, + 1 add; abs is free
        (0, 0, 0, 0),  # integer max/abs
        (2, 1, 0, 4),  # exp, log, sqrt, sin = 4 specials; 1 mul; + and - = 2 adds
        (2, 1, 1, 0),  # mod = 1 div + 1 mul + 1 add; + 1 add; dble is free
    ]


def test_local_array_shadowing_an_intrinsic_name(tmp_path):
    program = analyse(tmp_path, """\
        subroutine s(b, n)
          implicit none
          integer n, i
          real(8) b(n), exp(n), sum(n)
          do i = 1, n
            b(i) = exp(i) + sum(i+1)
          end do
        end subroutine
        """)
    loop = program.procedures[0].loops[0]
    assert flops(loop) == (1, 0, 0, 0)  # one add, no special: exp here is an array
    assert accesses(arrays(loop)["exp"]) == [((0,), ("i",), 1, 0)]
    assert accesses(arrays(loop)["sum"]) == [((1,), ("i",), 1, 0)]


def test_array_reference_versus_function_call(tmp_path):
    path = tmp_path / "t.f90"
    program = analyse(tmp_path, """\
        module funcs
        contains
          real(8) function twice(x)
            real(8), intent(in) :: x
            twice = 2.0d0 * x
          end function
        end module
        subroutine s(a, b, c, n)
          use funcs
          implicit none
          integer n, i
          real(8) a(n), b(n), c(n)
          real(8), external :: mystery
          do i = 1, n
            a(i) = twice(b(i)) + c(i)
          end do
          do i = 1, n
            a(i) = mystery(b, i) * c(i)
          end do
        end subroutine
        """)
    s = program.procedure("s")
    known, unknown = s.loops
    assert [c.name for c in known.calls] == ["twice"] and known.calls[0].line == 15
    assert flops(known) == (1, 0, 0, 0)  # the call's own work is in procedure 'twice'
    assert accesses(arrays(known)["b"]) == [((0,), ("i",), 1, 0)]
    assert flops(program.procedure("twice")) == (0, 1, 0, 0)
    assert [c.name for c in unknown.calls] == ["mystery"]
    # The whole array b passed to an unknown function: conservatively read and written.
    assert accesses(arrays(unknown)["b"]) == [((":",), ("",), 1, 1)]
    assert flops(unknown) == (0, 1, 0, 0)
    assert any(m.startswith(f"{path}:18: reference to unknown procedure 'mystery'")
               for m in messages(program))
    assert not any("twice" in m for m in messages(program))


def test_component_subscripts(tmp_path):
    program = analyse(tmp_path, """\
        subroutine s(q, f, n, m)
          implicit none
          integer, parameter :: qu = 2
          integer n, m, i, j, c
          real(8) q(n, n, 5), f(n, n)
          do c = 1, 5
            do j = 1, n
              do i = 1, n
                f(i,j) = q(i,j,qu) + q(i,j,3) + q(i,j,m) + q(i,j,c)
              end do
            end do
          end do
        end subroutine
        """)
    inner = program.procedures[0].loops[0].loops[0].loops[0]
    found = arrays(inner)
    assert accesses(found["q.qu"]) == [((0, 0, "qu"), ("i", "j", ""), 1, 0)]
    assert accesses(found["q.3"]) == [((0, 0, 3), ("i", "j", ""), 1, 0)]
    assert accesses(found["q.m"]) == [((0, 0, "m"), ("i", "j", ""), 1, 0)]
    # c is a loop variable: an index, not a component.
    assert accesses(found["q"]) == [((0, 0, 0), ("i", "j", "c"), 1, 0)]
    assert scalars(inner)["qu"].is_constant and not scalars(inner)["m"].is_constant
    assert flops(inner) == (3, 0, 0, 0)


def test_offsets_in_every_dimension_with_reversed_index_order(tmp_path):
    program = analyse(tmp_path, """\
        subroutine s(a, b, n)
          integer n, i, j, k
          real(8) a(0:n+1, 0:n+1, 0:n+1), b(n, n, n)
          do i = 1, n
            do j = 1, n
              do k = 1, n
                b(k,j,i) = a(k+1,j,i) + a(k,j-2,i) + a(k,j,i+3) - a(k-1,j+1,i-1)
              end do
            end do
          end do
        end subroutine
        """)
    inner = program.procedures[0].loops[0].loops[0].loops[0]
    assert inner.loopvar == "k"
    # Dimension order is the array's: a(k,j,i) -> loopvars (k, j, i).
    assert accesses(arrays(inner)["a"]) == [
        ((1, 0, 0), ("k", "j", "i"), 1, 0),
        ((0, -2, 0), ("k", "j", "i"), 1, 0),
        ((0, 0, 3), ("k", "j", "i"), 1, 0),
        ((-1, 1, -1), ("k", "j", "i"), 1, 0)]
    assert accesses(arrays(inner)["b"]) == [((0, 0, 0), ("k", "j", "i"), 0, 1)]
    assert flops(inner) == (3, 0, 0, 0)


def test_strided_reversed_and_symbolic_bounds(tmp_path):
    program = analyse(tmp_path, """\
        subroutine s(a, lo, hi, ng, n)
          integer n, ng, lo(3), hi(3), i
          real(8) a(n)
          do i = 1, n, 2
            a(i) = 0
          end do
          do i = n, 1, -1
            a(i) = 0
          end do
          do i = lo(1)-ng, hi(1)+ng+1
            a(i) = 0
          end do
        end subroutine
        """)
    loops = program.procedures[0].loops
    assert [(lp.lower, lp.upper, lp.stride) for lp in loops] == [
        ("1", "n", "2"), ("n", "1", "-1"), ("lo(1) - ng", "hi(1) + ng + 1", "1")]
    # Bounds are read at the enclosing (procedure) level: n twice, lo(1), hi(1), ng twice.
    proc = program.procedures[0]
    assert scalars(proc)["n"].reads == 2 and scalars(proc)["ng"].reads == 2
    assert accesses(arrays(proc)["lo"]) == [((1,), ("",), 1, 0)]
    assert normalise("hi(1)+ ng") == "hi(1) + ng"


def test_imperfect_nest_statements_between_levels(tmp_path):
    program = analyse(tmp_path, """\
        subroutine s(a, c, n)
          integer n, i, k
          real(8) a(n, n), c(n), s1, t
          do k = 1, n
            s1 = c(k) * 2.0
            do i = 1, n
              a(i,k) = a(i,k) + s1
            end do
            t = s1 / 3.0
          end do
        end subroutine
        """)
    outer = program.procedures[0].loops[0]
    inner = outer.loops[0]
    assert flops(outer) == (0, 1, 1, 0)  # s1 = c*2 (1 mul), t = s1/3 (1 div): exclusive
    assert flops(inner) == (1, 0, 0, 0)
    assert (scalars(outer)["s1"].accesstype, scalars(outer)["s1"].reads,
            scalars(outer)["s1"].writes) == ("writeread", 1, 1)
    assert scalars(inner)["s1"].accesstype == "readonly"
    assert accesses(arrays(outer)["c"]) == [((0,), ("k",), 1, 0)]
    assert accesses(arrays(inner)["a"]) == [((0, 0), ("i", "k"), 1, 1)]
    assert arrays(inner)["a"].accesstype == "readwrite"


def test_do_concurrent_gives_one_loop_per_index(tmp_path):
    program = analyse(tmp_path, """\
        subroutine s(a, n, m)
          integer n, m, i, j
          real(8) a(n, m)
          do concurrent (j = 1:m, i = 1:n)
            a(i, j) = a(i, j) * 0.5d0
          end do
        end subroutine
        """)
    outer = program.procedures[0].loops[0]
    inner = outer.loops[0]
    assert [(lp.kind, lp.loopvar, lp.upper) for lp in (outer, inner)] == [
        ("concurrent", "j", "m"), ("concurrent", "i", "n")]
    assert flops(inner) == (0, 1, 0, 0) and flops(outer) == (0, 0, 0, 0)
    assert accesses(arrays(inner)["a"]) == [((0, 0), ("i", "j"), 1, 1)]


def test_array_syntax_is_an_implicit_nest(tmp_path):
    program = analyse(tmp_path, """\
        subroutine s(a, b, c, n, m)
          integer n, m, j
          real(8) a(n, m), b(0:n+1, m), c(n, m)
          a(:, :) = b(0:n-1, :) + 2.0d0 * c
          do j = 1, m
            a(2:n-1, j) = c(1:n-2, j) * c(3:n, j)
          end do
        end subroutine
        """)
    proc = program.procedures[0]
    outer, inner = proc.loops[0], proc.loops[0].loops[0]
    # Column-major: the last dimension (_i2 over 1..m) is outermost.
    assert [(lp.kind, lp.loopvar, lp.lower, lp.upper, lp.line) for lp in (outer, inner)] == [
        ("array", "_i2", "1", "m", 4), ("array", "_i1", "1", "n", 4)]
    assert flops(inner) == (1, 1, 0, 0) and flops(outer) == (0, 0, 0, 0)
    # b(0:n-1, :) against a(1:n, 1:m): first dimension shifted by 0 - 1 = -1.
    assert accesses(arrays(inner)["b"]) == [((-1, 0), ("_i1", "_i2"), 1, 0)]
    assert accesses(arrays(inner)["c"]) == [((0, 0), ("_i1", "_i2"), 1, 0)]
    assert accesses(arrays(inner)["a"]) == [((0, 0), ("_i1", "_i2"), 0, 1)]
    section = proc.loops[1].loops[0]
    assert (section.kind, section.loopvar, section.lower, section.upper) == (
        "array", "_i1", "2", "n - 1")
    # c(1:n-2) and c(3:n) against a(2:n-1): offsets -1 and +1, the j dimension an index.
    assert accesses(arrays(section)["c"]) == [((-1, 0), ("_i1", "j"), 1, 0),
                                              ((1, 0), ("_i1", "j"), 1, 0)]
    assert flops(section) == (0, 1, 0, 0)


FIXED_FORM = """\
      subroutine s(a, n)
      implicit double precision (a-h, o-z)
      dimension a(n, n)
      do 30 j = 1, n
      do 30 i = 1, n
         a(i,j) = a(i,j) * 2 + x
   30 continue
      do 40 i = n, 1, -1
         k = i * 2 + n
   40 continue
      end
"""


def test_fixed_form_shared_label_and_implicit_double_precision(tmp_path):
    program = analyse(tmp_path, FIXED_FORM, name="t.f")
    proc = program.procedures[0]
    outer = proc.loops[0]
    inner = outer.loops[0]
    assert [(lp.loopvar, lp.line) for lp in (outer, inner)] == [("j", 4), ("i", 5)]
    assert flops(inner) == (1, 1, 0, 0) and flops(outer) == (0, 0, 0, 0)
    assert arrays(inner)["a"].datatype == "double"  # implicit double precision (a-h)
    assert scalars(inner)["x"].datatype == "double"
    # Second loop: k = i*2 + n is integer arithmetic under the i-n default rule.
    assert flops(proc.loops[1]) == (0, 0, 0, 0)
    assert (proc.loops[1].lower, proc.loops[1].stride) == ("n", "-1")


def test_do_while_is_a_while_loop_with_a_warning(tmp_path):
    path = tmp_path / "t.f90"
    program = analyse(tmp_path, """\
        subroutine s(x)
          real(8) x
          do while (x > 1.0d0)
            x = x * 0.5d0
          end do
        end subroutine
        """)
    loop = program.procedures[0].loops[0]
    assert (loop.kind, loop.upper, loop.loopvar) == ("while", "1", "")
    assert flops(loop) == (1, 1, 0, 0)  # the test x > 1 (1 add) runs every iteration
    assert any(m.startswith(f"{path}:3: DO WHILE") for m in messages(program))


def test_branches_keep_arms_and_conditions(tmp_path):
    program = analyse(tmp_path, """\
        subroutine s(a, b, n, m)
          integer n, m, i
          real(8) a(n), b(n)
          do i = 1, n
            if (a(i) > 0.0d0) then
              a(i) = a(i) * 2.0d0
            else if (a(i) < -1.0d0) then
              a(i) = a(i) / 2.0d0
            end if
            if (b(i) > 0) b(i) = sqrt(b(i))
          end do
          select case (m)
          case (1)
            a(1) = 0
          case default
            a(2) = 0
          end select
        end subroutine
        """)
    proc = program.procedures[0]
    loop = proc.loops[0]
    # Conditions are evaluated unconditionally: three real comparisons = 3 adds.
    assert flops(loop) == (3, 0, 0, 0)
    got = [(b.condition, b.arm, b.arms, b.line, flops(b)) for b in loop.branches]
    assert got == [("a(i) > 0.0d0", 0, 3, 5, (0, 1, 0, 0)),
                   ("a(i) < - 1.0d0", 1, 3, 7, (0, 0, 1, 0)),
                   ("b(i) > 0", 0, 2, 10, (0, 0, 0, 1))]
    first = loop.branches[0]
    assert accesses(arrays(first)["a"]) == [((0,), ("i",), 1, 1)]
    cases = [(b.condition, b.arm, b.arms) for b in proc.branches]
    assert cases == [("case (1)", 0, 2), ("else", 1, 2)]
    assert scalars(proc)["m"].reads == 1


def test_loop_inside_a_branch_goes_to_the_branch(tmp_path):
    program = analyse(tmp_path, """\
        subroutine s(a, n, flag)
          integer n, i
          logical flag
          real(8) a(n)
          if (flag) then
            do i = 1, n
              a(i) = a(i) + 1.0d0
            end do
          end if
        end subroutine
        """)
    proc = program.procedures[0]
    assert proc.loops == []
    branch = proc.branches[0]
    assert (branch.condition, branch.arms) == ("flag", 2)
    assert flops(branch.loops[0]) == (1, 0, 0, 0)
    assert [lp.line for lp in proc.all_loops()] == [6]


def test_known_and_unknown_subroutine_calls(tmp_path):
    path = tmp_path / "t.f90"
    program = analyse(tmp_path, """\
        subroutine helper(x, y)
          real(8) x, y
          y = x * 3.0d0
        end subroutine
        subroutine s(a, n)
          integer n, i
          real(8) a(n), x
          do i = 1, n
            call helper(a(i), x)
            call mystery(a, x)
          end do
        end subroutine
        """)
    loop = program.procedure("s").loops[0]
    assert [(c.name, c.line, c.args) for c in loop.calls] == [
        ("helper", 9, ["a(i)", "x"]), ("mystery", 10, ["a", "x"])]
    # helper's arguments are read once here; mystery's whole array a is read and written.
    assert accesses(arrays(loop)["a"]) == [((0,), ("i",), 1, 0), ((":",), ("",), 1, 1)]
    assert [m for m in messages(program) if "unknown procedure" in m] == [
        f"{path}:10: call to unknown procedure 'mystery': it costs CallFlops_mystery flops "
        "per call (a parameter, 0 unless set), its array arguments are assumed read and "
        "written"]
    assert flops(program.procedure("helper")) == (0, 1, 0, 0)


def test_internal_procedure_and_host_variables(tmp_path):
    program = analyse(tmp_path, """\
        subroutine outer(a, n)
          integer n, i
          real(8) a(n), w
          w = 2.0d0
          do i = 1, n
            a(i) = scaled(a(i))
          end do
        contains
          real(8) function scaled(v)
            real(8) v
            scaled = v * w
          end function
        end subroutine
        """)
    names = [p.name for p in program.procedures]
    assert names == ["outer", "scaled"]
    inner = program.procedure("scaled")
    assert flops(inner) == (0, 1, 0, 0)
    assert "w" in [v.name for v in inner.nonlocals]  # host association
    assert [c.name for c in program.procedure("outer").loops[0].calls] == ["scaled"]


def test_complex_counts_as_floating_point(tmp_path):
    program = analyse(tmp_path, """\
        subroutine s(z, w, n)
          integer n, i
          complex(8) z(n), w
          do i = 1, n
            z(i) = z(i) * w + (1.0, 2.0)
          end do
        end subroutine
        """)
    loop = program.procedures[0].loops[0]
    # z*w: 4 multiplies, 2 adds; + (1.0, 2.0), complex + complex: 2 adds
    assert flops(loop) == (4, 4, 0, 0)
    assert arrays(loop)["z"].datatype == "double complex"


def test_goto_and_pointer_assignment_warn(tmp_path):
    path = tmp_path / "t.f90"
    program = analyse(tmp_path, """\
        subroutine s(x)
          real(8), target :: x
          real(8), pointer :: p
          p => x
        10 x = x * 0.5d0
          if (x > 1.0d0) goto 10
        end subroutine
        """)
    found = messages(program)
    assert any(m.startswith(f"{path}:4: pointer assignment") for m in found)
    assert any(m.startswith(f"{path}:6: goto") for m in found)
    assert flops(program.procedures[0]) == (1, 1, 0, 0)


@pytest.mark.parametrize("suffix", [".f90", ".f"])
def test_labelled_loop_ending_on_an_action_statement(tmp_path, suffix):
    code = ("      subroutine s(a, n)\n      integer n, i\n      real a(n)\n"
            "      do 10 i = 1, n\n   10 a(i) = a(i) + 1.0\n      end\n")
    program = analyse(tmp_path, code, name="t" + suffix)
    loop = program.procedures[0].loops[0]
    assert flops(loop) == (1, 0, 0, 0)
    assert accesses(arrays(loop)["a"]) == [((0,), ("i",), 1, 1)]


def test_openmp_and_compiler_directives_are_ignored(tmp_path):
    program = analyse(tmp_path, """\
        subroutine s(a, n)
          integer n, i
          real(8) a(n)
        !$omp parallel do private(i)
        !dir$ ivdep
          do i = 1, n
            a(i) = a(i) * 2.0d0
          end do
        !$omp end parallel do
        end subroutine
        """)
    loop = program.procedures[0].loops[0]
    assert (loop.line, flops(loop)) == (6, (0, 1, 0, 0))
    assert program.warnings == []


def test_statement_function_is_inlined_not_an_unknown_call(tmp_path):
    program = analyse(tmp_path, """\
        subroutine s(a, n)
          integer n, i
          real(8) a(n), f, q
          f(q) = q * q + 1.0d0
          do i = 1, n
            a(i) = f(a(i)) / 2.0d0
          end do
        end subroutine
        """)
    proc = program.procedures[0]
    loop = proc.loops[0]
    # f(a(i)) costs its expression (1 mul + 1 add) where it is used; then / 2 (1 divide).
    assert flops(loop) == (1, 1, 1, 0)
    assert flops(proc) == (0, 0, 0, 0)  # the definition itself is no work
    assert loop.calls == [] and program.warnings == []
    assert "f" not in [v.name for v in proc.locals]


def test_generic_interface_resolves_to_its_module_procedure(tmp_path):
    program = analyse(tmp_path, """\
        module m
          interface twice
            module procedure twice_r
          end interface
        contains
          real(8) function twice_r(x)
            real(8), intent(in) :: x
            twice_r = x + x
          end function
        end module
        subroutine s(a, n)
          use m
          integer n, i
          real(8) a(n)
          do i = 1, n
            a(i) = twice(a(i))
          end do
        end subroutine
        """)
    loop = program.procedure("s").loops[0]
    assert [c.name for c in loop.calls] == ["twice_r"]
    assert not any("unknown" in m for m in messages(program))


def test_byte_order_mark_crlf_and_a_very_long_expression(tmp_path):
    bom = tmp_path / "bom.f90"
    bom.write_bytes(b"\xef\xbb\xbfsubroutine s(a)\r\n real a(3)\r\n integer i\r\n"
                    b" do i=1,3\r\n  a(i)=a(i)*2.0\r\n end do\r\nend\r\n")
    loop = read_sources([str(bom)]).procedures[0].loops[0]
    assert (loop.line, flops(loop)) == (4, (0, 1, 0, 0))
    # 300 terms summed in one statement: 299 adds (deeper than Python's default recursion).
    terms = "".join(f"      + a({k}) &\n" for k in range(2, 301))
    code = ("subroutine s(a, x)\n  real(8) a(300), x\n  integer i\n  do i = 1, 2\n"
            f"    x = a(1) &\n{terms}      + 0.0d0 * x\n  end do\nend\n")
    loop = analyse(tmp_path, code, name="long.f90").procedures[0].loops[0]
    # 299 adds between the 300 terms, 1 more for "+ 0.0d0*x", and that multiply.
    assert flops(loop) == (300, 1, 0, 0)
    assert len(arrays(loop)["a"].accesses) == 300


@pytest.mark.skipif(not (shutil.which("cpp") or shutil.which("gfortran")),
                    reason="no C preprocessor")
def test_fixed_form_upper_case_suffix_is_preprocessed(tmp_path):
    code = ("      subroutine s(a, n)\n      integer n, i\n      real a(n)\n#ifdef TWICE\n"
            "      do i = 1, n\n         a(i) = a(i) * 2.0\n      end do\n#endif\n"
            "      do i = 1, n\n         a(i) = a(i) + 1.0\n      end do\n      end\n")
    program = analyse(tmp_path, code, name="t.F", defines=["TWICE"])
    loops = program.procedures[0].loops
    assert [(lp.line, flops(lp)) for lp in loops] == [(5, (0, 1, 0, 0)), (9, (1, 0, 0, 0))]
