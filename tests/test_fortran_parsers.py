"""The two Fortran parsers give one code description: tree-sitter (the default) and fparser.

Parity is the contract: on every bundled example, ExaSAT's reference inputs (SMC's
``kernels.f90`` among them) and the Fortran files of the public corpus (run from its folder
with its flags), the XML code description is the same text whichever parser read the file,
and tree-sitter did read it (a file it hands to fparser would make the comparison empty).
The fixed-form conversion, the fallback to fparser and the option are tested beside.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sat.cli import main
from sat.frontend import read_sources
from sat.frontend.fortran import read_fortran
from sat.frontend.fortran.fixedform import fixed_to_free
from sat.xmlio import program_to_xml

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"
SHARED = next((p for p in (ROOT.parent / "shared", ROOT.parent.parent / "shared")
               if p.is_dir()), ROOT.parent / "shared")
EXASAT = SHARED / "reference" / "exasat" / "inputs"
CORPUS = SHARED / "corpus"
FORTRAN = (".f", ".f90", ".F90", ".F")
# Files whose fparser parse takes more than a few seconds on a loaded 2-core machine.
BIG = {"smc-kernels.f90", "advance-smc-fused.f90", "advance-smc-modified.f90", "mxm_std.f",
       "mg.f", "advance.f90"}


def _examples() -> list:
    return sorted(p for p in EXAMPLES.iterdir() if p.suffix in FORTRAN)


def _exasat() -> list:
    return sorted(p for p in EXASAT.iterdir() if p.suffix in FORTRAN) if EXASAT.is_dir() else []


def _corpus() -> list:
    manifest = CORPUS / "manifest.json"
    if not manifest.is_file():
        return []
    entries = json.loads(manifest.read_text())["files"]
    return [(e["source"], e["flags"]) for e in entries if Path(e["source"]).suffix in FORTRAN]


def _marks(name: str) -> list:
    return [pytest.mark.slow] if name in BIG else []


def both(paths: list[str], flags: list[str] = ()) -> tuple[str, str, list]:
    """The XML of ``paths`` read by fparser and by tree-sitter, and who read each file."""
    defines = [flags[i + 1] for i, f in enumerate(flags) if f == "-D"]
    includes = [flags[i + 1] for i, f in enumerate(flags) if f == "-I"]
    slow = read_sources(paths, defines, includes, processes=1, fortran_parser="fparser")
    fast = read_sources(paths, defines, includes, processes=1, fortran_parser="tree-sitter")
    return program_to_xml(slow), program_to_xml(fast), fast.parsed_by


def assert_parity(paths: list[str], flags: list[str] = ()) -> None:
    slow, fast, parsed_by = both(paths, flags)
    assert [(p.parser, p.reason) for p in parsed_by] == [("tree-sitter", "")] * len(paths)
    assert fast == slow


@pytest.mark.parametrize("path", [pytest.param(p, id=p.name, marks=_marks(p.name))
                                  for p in _examples()])
def test_examples_parity(path):
    assert_parity([str(path)])


@pytest.mark.skipif(not EXASAT.is_dir(), reason="ExaSAT's reference inputs are not here")
@pytest.mark.parametrize("path", [pytest.param(p, id=p.name, marks=_marks(p.name))
                                  for p in _exasat()])
def test_exasat_inputs_parity(path):
    assert_parity([str(path)])


@pytest.mark.skipif(not CORPUS.is_dir(), reason="the public corpus is not here")
@pytest.mark.parametrize("source, flags", [
    pytest.param(s, f, id=Path(s).name, marks=_marks(Path(s).name)) for s, f in _corpus()])
def test_corpus_parity(source, flags, monkeypatch):
    monkeypatch.chdir(CORPUS)
    assert_parity([source], flags)


# ----------------------------------------------------------------- fixed form


def test_fixed_form_becomes_free_form_line_for_line():
    text = ("c     a comment\n"
            "      x = a +\n"
            "     &    b ! trailing comment\n"
            "   10 y = 'ab\n"
            "     1cd'\n"
            "      z = 1" + " " * 61 + "sequence number from column 73\n"
            "\tw = 2\n"
            "   ! an indented comment\n"
            "     !    + 3\n")
    assert fixed_to_free(text).split("\n") == [
        "!     a comment",
        "      x = a +&",  # the code ends before the blanks
        "     &    b ! trailing comment",
        "   10 y = 'ab&",  # inside a string: joined as written, no blank lost
        "     &cd'",
        "      z = 1" + " " * 61,  # columns 73 and beyond are dropped
        "      w = 2&",  # tab form: the statement starts after the tab
        "!  ! an indented comment",
        "     &    + 3",  # '!' in column 6 marks a continuation (fparser's rule)
        "",
    ]


def test_fixed_form_continuation_after_a_comment_line(tmp_path):
    # the '&' goes on the last code line, not on the comment between the two lines
    source = tmp_path / "cont.f"
    source.write_text("      subroutine s(a, n)\n      real a(n)\n      do i = 1, n\n"
                      "        a(i) = a(i) *\n* a comment between\n     &         2.0 + 1.0\n"
                      "      end do\n      end\n")
    slow, fast, parsed_by = both([str(source)])
    assert parsed_by[0].parser == "tree-sitter"
    assert fast == slow
    loop = read_sources([str(source)]).procedures[0].loops[0]
    assert (loop.adds, loop.multiplies) == (1, 1)  # a(i) * 2.0 + 1.0


# ----------------------------------------------------------------- fallback and option


def test_a_file_tree_sitter_cannot_parse_is_read_by_fparser(tmp_path):
    # '.dot.' as a user operator: the adapter does not build operator interfaces
    source = tmp_path / "ops.f90"
    source.write_text("module ops\n  interface operator(.dot.)\n    module procedure d\n"
                      "  end interface\ncontains\n  real function d(a, b)\n"
                      "    real, intent(in) :: a(:), b(:)\n    d = sum(a*b)\n  end function\n"
                      "end module\n")
    program = read_sources([str(source)])
    [parsed] = program.parsed_by
    assert (parsed.parser, parsed.reason) == (
        "fparser", "a construct the fast parser does not read (operator interface)")
    assert [p.name for p in program.procedures] == ["d"]


def test_a_syntax_error_goes_to_fparser_which_reports_it(tmp_path):
    source = tmp_path / "bad.f90"
    source.write_text("subroutine s(a)\n  real a(10)\n  a(1) = = 2\nend\n")
    slow, _ = read_fortran([str(source)], parser="fparser")
    fast, _ = read_fortran([str(source)])
    [parsed] = fast.parsed_by
    assert parsed.parser == "fparser"
    assert parsed.reason == "tree-sitter finds a syntax error at bad.f90:3"
    # fparser's own diagnostic, once
    assert [str(w) for w in fast.warnings] == [str(w) for w in slow.warnings] == [
        f"{source}:3: Fortran syntax error near 'a(1) = = 2'"]


def test_a_statement_too_long_for_fparser_is_read_by_tree_sitter(tmp_path):
    source = tmp_path / "long.f90"
    source.write_text("subroutine s(y, x)\n  real :: y, x\n  y = " + "+".join(["x"] * 4500)
                      + "\nend subroutine s\n")
    program = read_sources([str(source)])
    assert program.parsed_by[0].parser == "tree-sitter"
    # 4,500 terms are 4,499 adds, all at the procedure's level
    assert program.procedures[0].adds == 4499


def test_missing_include_is_reported_alike(tmp_path):
    source = tmp_path / "inc.f90"
    source.write_text("subroutine s(a, n)\n  include 'missing.h'\n  real a(n)\n  do i = 1, n\n"
                      "    a(i) = 0.5 * a(i)\n  end do\nend subroutine s\n")
    (tmp_path / "found.h").write_text("      real b\n")
    slow, fast, parsed_by = both([str(source)])
    assert parsed_by[0].parser == "tree-sitter"
    assert fast == slow and "missing.h" in fast


def test_option_and_outputs_say_which_parser(tmp_path, capsys):
    example = str(EXAMPLES / "triad.f90")
    for chosen in ("tree-sitter", "fparser"):
        out = tmp_path / f"{chosen}.json"
        assert main([example, "--fortran-parser", chosen, "--json", str(out)]) == 0
        data = json.loads(out.read_text())
        assert data["parsers"] == [{"file": example, "parser": chosen}]
        assert {"kind": "parser", "file": example, "line": 0,
                "message": f"read by {chosen}"} in data["notes"]


CONSTRUCTS = """\
module shapes
  implicit none
  integer, parameter :: n = 8, m = 2*n + 1
  real(8), parameter :: half = 0.5d0
  interface twice
    module procedure twice_r
  end interface
contains
  real(8) function twice_r(x) result(y)
    real(8), intent(in) :: x
    y = 2.0d0*x
  end function
  subroutine all_forms(a, b, c, k)
    real(8), intent(inout) :: a(n), b(0:n+1, m)
    complex(8) :: c(n)
    integer :: k, i, j
    character(len=8) :: label
    do 10 j = 1, m
      do 10 i = 1, n
        b(i, j) = b(i-1, j) + half*b(i+1, j)
10  continue
    outer: do i = 1, n
      if (a(i) > 1.0d0 .and. k /= 0) then
        a(i) = sqrt(a(i))
      else if (a(i) < -1.0d0) then
        a(i) = -a(i)**2
      else
        cycle outer
      end if
    end do outer
    select case (k)
    case (1, 3:4)
      a(1:n:2) = twice(a(2:n:2))
    case default
      a = 0.0d0
    end select
    where (a > 0.0d0)
      a = log(a)
    elsewhere
      a = exp(a)
    end where
    forall (i = 1:n, a(i) /= 0.0d0) a(i) = 1.0d0/a(i)
    associate (first => a(1), s => b(1, 1) + b(2, 1))
      first = s*first
    end associate
    c = cmplx(a, 1.0d0, kind=8)*c
    label = 'x' // "y"
    do while (k > 0)
      k = k - 1
    end do
    if (k == 0) go to 20
    write (*, *) label
20  continue
  end subroutine
end module
"""


def test_every_statement_form_parity(tmp_path):
    # labelled and named loops, IF/ELSE IF/ELSE, SELECT CASE with a range, WHERE/ELSEWHERE,
    # FORALL with a mask, ASSOCIATE, array sections with strides, a generic interface,
    # complex arithmetic, concatenation, DO WHILE, GO TO: one code description either way
    source = tmp_path / "forms.f90"
    source.write_text(CONSTRUCTS)
    assert_parity([str(source)])


def test_named_constructs_parity(tmp_path):
    source = tmp_path / "named.f90"
    source.write_text("subroutine init(n, a)\n  integer :: n\n  real(8) :: a(n)\n"
                      "  fill: block\n    integer :: i\n    do i = 1, n\n"
                      "      a(i) = 2.0d0*a(i) + 1.0d0\n    end do\n  end block fill\n"
                      "  again: if (n > 1) then\n    a(1) = a(1)*3.0d0\n  end if again\n"
                      "end subroutine\n")
    assert_parity([str(source)])
