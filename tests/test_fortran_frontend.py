"""The Fortran front end: the 7-point Laplacian against ExaSAT's reference, and the public API."""

from __future__ import annotations

import shutil
import textwrap
from pathlib import Path

import pytest
from lxml import etree

from sat import ir
from sat.frontend import FrontendError, read_sources
from sat.frontend.fortran.preprocess import map_lines

DATA = Path(__file__).parent / "data" / "exasat" / "xml" / "micro"


def write(tmp_path: Path, name: str, code: str) -> str:
    path = tmp_path / name
    path.write_text(textwrap.dedent(code))
    return str(path)


def nest(proc: ir.Procedure) -> list[ir.Loop]:
    """The loops of a perfect nest, outermost first."""
    out = []
    body: ir.Body = proc
    while body.loops:
        body = body.loops[0]
        out.append(body)
    return out


def scalars(body: ir.Body) -> dict[str, ir.Scalar]:
    return {s.name: s for s in body.scalars}


def arrays(body: ir.Body) -> dict[str, ir.Array]:
    return {a.key: a for a in body.arrays}


def messages(program: ir.Program) -> list[str]:
    return [str(d) for d in program.warnings]


LAPLACIAN = """\
subroutine laplacian(lo, hi, ng, a0, anext, fac, fac2)
  implicit none
  integer, intent(in) :: lo(3), hi(3), ng
  double precision, intent(in) :: a0(lo(1)-ng:hi(1)+ng, lo(2)-ng:hi(2)+ng, lo(3)-ng:hi(3)+ng)
  double precision, intent(out) :: anext(lo(1):hi(1), lo(2):hi(2), lo(3):hi(3))
  double precision, intent(in) :: fac, fac2
  integer :: i, j, k
  do k = lo(3), hi(3)
    do j = lo(2), hi(2)
      do i = lo(1), hi(1)
        anext(i,j,k) = fac*a0(i,j,k) + fac2*(a0(i+1,j,k) + a0(i-1,j,k) + a0(i,j+1,k) &
                       + a0(i,j-1,k) + a0(i,j,k+1) + a0(i,j,k-1))
      end do
    end do
  end do
end subroutine
"""


def _parse_tuple(text: str) -> tuple:
    items = text.strip("()").split(",") if text != "()" else [""]
    return tuple(int(x) if x.lstrip("-").isdigit() else x for x in items)


def _xml_body(element) -> dict:
    """Counts of one reference loop level, in the IR's terms (names lower-cased)."""
    return {
        "flops": tuple(int(element.get(k)) for k in ("adds", "multiplies", "divides",
                                                     "specials")),
        "scalars": {s.get("name").lower(): (s.get("datatype"), s.get("accesstype"),
                                            int(s.get("reads")), int(s.get("writes")))
                    for s in element.findall("scalar")},
        "arrays": {a.get("name").lower(): (a.get("datatype"), a.get("accesstype"), sorted(
            (_parse_tuple(x.get("offset")), _parse_tuple(x.get("dependentloopvar")),
             int(x.get("reads")), int(x.get("writes"))) for x in a.findall("access")))
                   for a in element.findall("array")},
    }


def _ir_body(body: ir.Body) -> dict:
    return {
        "flops": (body.adds, body.multiplies, body.divides, body.specials),
        "scalars": {s.name: (s.datatype, s.accesstype, s.reads, s.writes) for s in body.scalars},
        "arrays": {a.name: (a.datatype, a.accesstype, sorted(
            (x.offsets, x.loopvars, x.reads, x.writes) for x in a.accesses))
                   for a in body.arrays},
    }


def test_laplacian_matches_exasat_reference_count_for_count(tmp_path):
    program = read_sources([write(tmp_path, "lap.f90", LAPLACIAN)])
    proc = program.procedure("laplacian")
    k, j, i = nest(proc)
    ref_function = etree.parse(str(DATA / "lap.xml")).getroot().find("function")
    ref_k = ref_function.find("loop")
    ref_j = ref_k.find("loop")
    ref_i = ref_j.find("loop")
    # Innermost: adds 6 (5 '+' between the neighbours, 1 '+' between the two products),
    # multiplies 2 (fac*, fac2*); i/j/k read 8 times (7 a0 subscripts + 1 anext subscript).
    assert _ir_body(i) == _xml_body(ref_i)
    assert (i.adds, i.multiplies) == (6, 2)
    assert scalars(i)["i"].reads == 8 and scalars(i)["i"].accesstype == "writeread"
    assert len(arrays(i)["a0"].accesses) == 7
    # Outer levels: the loop variable written once; bounds lo(2)/hi(2) read at the k level.
    assert _ir_body(j) == _xml_body(ref_j)
    assert _ir_body(k) == _xml_body(ref_k)
    # Function level: lo(3), hi(3) for the k loop's bounds.
    assert _ir_body(proc)["arrays"] == _xml_body(ref_function)["arrays"]
    assert [(lp.loopvar, lp.lower, lp.upper, lp.stride, lp.line) for lp in (k, j, i)] == [
        ("k", "lo(3)", "hi(3)", "1", 8), ("j", "lo(2)", "hi(2)", "1", 9),
        ("i", "lo(1)", "hi(1)", "1", 10)]
    assert i.file == program.procedures[0].file
    # Nonlocals as in the reference, in argument order (plus ng and the scalars).
    assert [v.name for v in proc.nonlocals][:2] == ["lo", "hi"]
    assert {v.name for v in proc.nonlocals} >= {"lo", "hi", "a0", "anext"}
    a0 = next(v for v in proc.nonlocals if v.name == "a0")
    assert a0.shape == ("lo(1)-ng:hi(1)+ng", "lo(2)-ng:hi(2)+ng", "lo(3)-ng:hi(3)+ng")
    assert (a0.datatype, a0.intent) == ("double", "in")
    assert [v.name for v in proc.locals] == ["i", "j", "k"]
    assert arrays(i)["anext"].firstaccess == "store" and arrays(i)["a0"].firstaccess == "load"


def test_procedure_file_and_line(tmp_path):
    path = write(tmp_path, "p.f90", """\
        ! a comment line
        subroutine s(a, n)
          integer n, i
          real(8) a(n)
          do i = 1, n
            a(i) = 0.5d0 * a(i)
          end do
        end subroutine
        """)
    program = read_sources([path])
    proc = program.procedures[0]
    assert (proc.name, proc.file, proc.line) == ("s", path, 2)
    assert (proc.loops[0].file, proc.loops[0].line) == (path, 5)


def test_module_and_use_across_two_files_in_either_order(tmp_path):
    mod = write(tmp_path, "consts.f90", """\
        module consts
          implicit none
          integer, parameter :: dp_t = kind(1.d0)
          integer, parameter :: qu = 2
          real(kind=dp_t), parameter :: half = 0.5_dp_t
          real(kind=dp_t) :: gscale
        end module consts
        """)
    user = write(tmp_path, "user.f90", """\
        subroutine scale(q, n)
          use consts
          implicit none
          integer, intent(in) :: n
          real(kind=dp_t), intent(inout) :: q(n, 4)
          integer :: i
          do i = 1, n
            q(i, qu) = half * q(i, qu) * gscale
          end do
        end subroutine
        """)
    for order in ([mod, user], [user, mod]):
        program = read_sources(order)
        proc = program.procedure("scale")
        loop = proc.loops[0]
        # 2 multiplies (half*, *gscale); qu is an integer parameter -> component "qu".
        assert (loop.adds, loop.multiplies) == (0, 2)
        q = arrays(loop)["q.qu"]
        assert (q.accesstype, q.datatype) == ("readwrite", "double")
        assert [(a.offsets, a.loopvars, a.reads, a.writes) for a in q.accesses] == [
            ((0, "qu"), ("i", ""), 1, 1)]
        assert scalars(loop)["qu"].is_constant and scalars(loop)["qu"].reads == 2
        assert scalars(loop)["half"].datatype == "double" and scalars(loop)["half"].is_constant
        # A module variable used in the procedure is nonlocal; parameters are not variables.
        assert "gscale" in [v.name for v in proc.nonlocals]
        assert "gscale" not in [v.name for v in proc.locals]
        assert not any("consts" in m for m in messages(program))


def test_unknown_module_warns_with_file_and_line(tmp_path):
    path = write(tmp_path, "u.f90", """\
        subroutine s(a, n)
          use nowhere_mod
          implicit none
          integer :: n, i
          real(8) :: a(n)
          do i = 1, n
            a(i) = a(i) * coef
          end do
        end subroutine
        """)
    program = read_sources([path])
    assert any(m.startswith(f"{path}:2: module 'nowhere_mod' is not among the sources")
               for m in messages(program))
    loop = program.procedures[0].loops[0]
    assert loop.multiplies == 1  # coef, from the unknown module, is assumed real
    assert scalars(loop)["coef"].datatype == "double"
    assert "coef" in [v.name for v in program.procedures[0].nonlocals]


def test_functions_filter_keeps_named_procedures_and_warns_for_missing(tmp_path):
    path = write(tmp_path, "two.f90", """\
        subroutine one(a)
          real a(10)
          a = 1.0
        end subroutine
        subroutine two(a)
          real a(10)
          a = 2.0
        end subroutine
        """)
    program = read_sources([path], functions=["TWO", "three"])
    assert [p.name for p in program.procedures] == ["two"]
    assert any("'three' not found" in m for m in messages(program))


def test_syntax_error_in_one_file_other_file_still_analysed(tmp_path):
    bad = write(tmp_path, "bad.f90", """\
        subroutine broken(x)
          real x
          x = = 1.0
        end subroutine
        """)
    good = write(tmp_path, "good.f90", """\
        subroutine fine(x, n)
          integer n, i
          real x(n)
          do i = 1, n
            x(i) = x(i) + 1.0
          end do
        end subroutine
        """)
    program = read_sources([bad, good])
    assert [p.name for p in program.procedures] == ["fine"]
    errors = [m for m in messages(program) if m.startswith(f"{bad}:3:")]
    assert errors and "syntax error" in errors[0] and "\n" not in errors[0]


def test_nothing_analysable_raises_frontend_error(tmp_path):
    bad = write(tmp_path, "bad.f90", "subroutine s\n  x = = 1\nend\n")
    with pytest.raises(FrontendError) as info:
        read_sources([bad, str(tmp_path / "missing.f90")])
    assert "nothing could be analysed" in str(info.value)
    assert "\n" not in str(info.value)


def test_empty_file_and_no_loops_give_warnings(tmp_path):
    empty = write(tmp_path, "empty.f90", "")
    flat = write(tmp_path, "flat.f90", "subroutine s(x)\n  real x\n  x = 2.0*x\nend\n")
    program = read_sources([empty, flat])
    assert program.procedures[0].multiplies == 1
    found = messages(program)
    assert any(m.startswith(f"{empty}: no procedures found") for m in found)
    assert any("no loops found" in m for m in found)


def test_non_utf8_bytes_are_reported_and_the_rest_analysed(tmp_path):
    path = tmp_path / "latin.f90"
    path.write_bytes(b"subroutine s(a, n)\n  integer n, i\n  real a(n)\n"
                     b"  ! caf\xe9 \xff comment\n  do i = 1, n\n    a(i) = a(i) * 2.0\n"
                     b"  end do\nend subroutine\n")
    program = read_sources([str(path)])
    assert program.procedures[0].loops[0].multiplies == 1
    assert any(m.startswith(f"{path}:4: bytes that are not UTF-8") for m in messages(program))


def test_unknown_suffix_and_missing_c_front_end(tmp_path):
    good = write(tmp_path, "g.f90", "subroutine s(x)\n  real x\n  x = x + 1.0\nend\n")
    other = write(tmp_path, "notes.txt", "hello")
    program = read_sources([good, other])
    assert any("unknown source type" in m for m in messages(program))
    try:
        import sat.frontend.c  # noqa: F401
    except ImportError:
        cfile = write(tmp_path, "k.c", "void f(void) {}\n")
        program = read_sources([good, cfile])
        assert any("C front end not available" in m for m in messages(program))


def test_xml_sources_go_to_xmlio(tmp_path):
    pytest.importorskip("sat.xmlio")
    program = read_sources([str(DATA / "lap.xml")])
    assert program.procedures and program.procedures[0].name.lower() == "laplacian"


PREPROCESSED = """\
subroutine pp(a, n)
  integer n, i
  real(8) a(n)
#ifdef USE_SQRT
  do i = 1, n
    a(i) = sqrt(a(i))
  end do
#else
  do i = 1, n
    a(i) = a(i) * a(i)
  end do
#endif
end subroutine
"""


@pytest.mark.skipif(not (shutil.which("cpp") or shutil.which("gfortran")),
                    reason="no C preprocessor")
def test_upper_case_suffix_is_preprocessed_with_defines_and_original_lines(tmp_path):
    path = write(tmp_path, "pp.F90", PREPROCESSED)
    plain = read_sources([path]).procedures[0].loops
    # Without -D: the #else branch, a multiply on line 9 of the original file.
    assert len(plain) == 1 and (plain[0].line, plain[0].multiplies, plain[0].specials) == (
        9, 1, 0)
    with_sqrt = read_sources([path], defines=["USE_SQRT"]).procedures[0].loops
    assert len(with_sqrt) == 1 and (with_sqrt[0].line, with_sqrt[0].specials) == (5, 1)
    assert with_sqrt[0].file == path


@pytest.mark.skipif(not (shutil.which("cpp") or shutil.which("gfortran")),
                    reason="no C preprocessor")
def test_syntax_error_line_in_preprocessed_file_refers_to_original(tmp_path):
    path = write(tmp_path, "bad.F90", """\
        subroutine s(x)
        #ifdef NEVER
          x = 1
          x = 2
        #endif
          real x
          x = = 1.0
        end subroutine
        """)
    with pytest.raises(FrontendError) as info:
        read_sources([path])
    assert f"{path}:7:" in str(info.value)


def test_line_marker_map():
    text = '# 1 "a.F90"\nline1\n# 5 "a.F90"\nline5\n# 1 "inc.h" 1\nh1\n# 6 "a.F90" 2\nline6\n'
    pre = map_lines(text, "a.F90")
    assert pre.origin(2) == ("a.F90", 1)
    assert pre.origin(4) == ("a.F90", 5)
    assert pre.origin(6) == ("inc.h", 1)
    assert pre.origin(8) == ("a.F90", 6)


def test_fortran_include_is_expanded_from_include_dirs_or_warned(tmp_path):
    incdir = tmp_path / "inc"
    incdir.mkdir()
    (incdir / "decl.h").write_text("      real*8 a(n)\n      integer n, i\n")
    path = write(tmp_path, "inc.f90", """\
        subroutine s(a, n)
          include 'decl.h'
          do i = 1, n
            a(i) = a(i) / 3.0
          end do
        end subroutine
        """)
    program = read_sources([path], include_dirs=[str(incdir)])
    loop = program.procedures[0].loops[0]
    assert loop.divides == 1 and arrays(loop)["a"].datatype == "double"
    missing = read_sources([path])
    assert any(m.startswith(f"{path}:2: include file 'decl.h' not found")
               for m in messages(missing))


def test_directives_in_lower_case_file_warn_once_with_line(tmp_path):
    path = write(tmp_path, "p.f90", PREPROCESSED)
    program = read_sources([path])
    found = [m for m in messages(program) if "preprocessor" in m]
    assert len(found) == 1 and found[0].startswith(f"{path}:4: preprocessor directives")
    # Not preprocessed: both branches are counted (a special in one loop, a multiply in other).
    assert [(lp.specials, lp.multiplies) for lp in program.procedures[0].loops] == [
        (1, 0), (0, 1)]


def test_intrinsic_module_kinds_resolve_without_warning(tmp_path):
    path = write(tmp_path, "k.f90", """\
        subroutine s(a, n)
          use iso_fortran_env, only: real32, real64
          integer n, i
          real(real64) a(n)
          real(real32) b
          do i = 1, n
            b = a(i) * 2
          end do
        end subroutine
        """)
    program = read_sources([path])
    loop = program.procedures[0].loops[0]
    assert arrays(loop)["a"].datatype == "double" and scalars(loop)["b"].datatype == "float"
    assert program.warnings == []


def test_comment_or_blank_line_before_a_module_procedure_keeps_its_name(tmp_path):
    path = write(tmp_path, "m.f90", """\
        module m
        contains
        subroutine first(a, n)
          integer :: n, i
          real(8) :: a(n)
          do i = 1, n
            a(i) = a(i) * 2.0d0
          end do
        end subroutine

        ! a comment between two module procedures
        subroutine second(a, n)
          integer :: n, i
          real(8) :: a(n)
          do i = 1, n
            a(i) = a(i) + 1.0d0
          end do
        end subroutine second
        end module
        """)
    program = read_sources([path])
    assert [(p.name, p.line) for p in program.procedures] == [("first", 3), ("second", 12)]
    assert messages(program) == []
