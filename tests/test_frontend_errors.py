"""Exact bad-input diagnostics of the C and Fortran front ends: one line, a line of the file.

Each input is small and hand-made; the expected line numbers are counted in the source text
and the statement lengths worked out in the comments.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from sat.cli import main
from sat.frontend import FrontendError, read_sources
from sat.frontend.c import CSourceError, read_c
from sat.frontend.fortran import parse, read_fortran
from sat.frontend.fortran.parse import MAX_STATEMENT_CHARS


def ones(k: int) -> str:
    """``1+1+...+1`` with ``k`` ones: 2k - 1 characters."""
    return "+".join(["1"] * k)


def c_error(tmp_path: Path, name: str, text: str) -> str:
    path = tmp_path / name
    path.write_text(text)
    with pytest.raises(CSourceError) as caught:
        read_c(str(path))
    diagnostic = caught.value.diagnostic
    assert Path(diagnostic.file) == path
    return f"{path.name}:{diagnostic.line}: {diagnostic.message}"


def fortran_warnings(tmp_path: Path, name: str, text: str,
                     parser: str = "tree-sitter") -> tuple[int, list[str]]:
    """Files parsed and the diagnostics (file names relative to ``tmp_path``)."""
    path = tmp_path / name
    path.write_text(text)
    program, parsed = read_fortran([str(path)], parser=parser)
    return parsed, [str(w).replace(f"{tmp_path}/", "") for w in program.warnings]


# ---------------------------------------------------------------- C: errors inside the file


@pytest.mark.parametrize("name, text, expected", [
    # A function cut inside its parameter list: the file ends on line 2, not the wrapper's
    # closing brace on line 3.
    ("cut.c", "/* axpy */\nvoid f(int n, double al",
     "cut.c:2: C syntax error: unexpected end of file"),
    # pycparser's own message is kept when it says more than "at end of input".
    ("decl.c", "void f(int n, ", "decl.c:1: C syntax error: Invalid declaration at the end of "
     "the file"),
    # A function whose braces are not closed: its last line (3) is reported.
    ("open.c", "void f(double *a) {\n  for (int i = 0; i < 4; ++i) {\n    a[i] = 1.0;\n",
     "open.c:3: C syntax error: unexpected end of file"),
    # A kernel fragment cut after its loop header: not "before 'for'" (statements at file
    # scope are fine in a fragment) but the end of the file, on line 2.
    ("frag.c", "double a[10];\nfor (int i = 0; i < 10; ++i)\n",
     "frag.c:2: C syntax error: unexpected end of file"),
    # A fragment's last statement without its ';', followed by blank lines: line 3.
    ("semi.c", "double a[10], s;\nfor (int i = 0; i < 10; ++i)\n  s += a[i]\n\n\n",
     "semi.c:3: C syntax error: unexpected end of file"),
    # An error inside a function stays where it is.
    ("expr.c", "void f(void) {\n  int x = ;\n}\n",
     "expr.c:2: C syntax error: Invalid expression near ';'"),
    # A fragment with an error in its loop body: the fragment parse got further along line 2
    # (column 31) than the whole-file parse (column 1, at 'for').
    ("body.c", "double s;\nfor (int i = 0; i < 3; ++i) s += ;\ns = 1;\n",
     "body.c:2: C syntax error: Invalid expression near ';'"),
    # A whole file with an error on the function's line: the whole-file parse got further
    # (column 25) than the fragment parse (column 13, the function's '{').
    ("one.c", "int f(void) { return 1 +; }\n",
     "one.c:1: C syntax error: Invalid expression near ';'"),
])
def test_c_syntax_error_names_a_line_of_the_file(tmp_path, name, text, expected):
    assert c_error(tmp_path, name, text) == expected


def test_c_error_line_is_never_past_the_end(tmp_path):
    # Cut in the middle of every character of a small fragment: the line is always 1..last.
    text = "double a[8], b[8];\nfor (int i = 1; i < 7; ++i)\n  b[i] = a[i-1] + a[i+1];\n"
    for cut in range(1, len(text) - 1):
        piece = text[:cut]
        path = tmp_path / "piece.c"
        path.write_text(piece)
        try:
            read_c(str(path))
        except CSourceError as exc:
            last = max(n for n, line in enumerate(piece.splitlines(), 1) if line.strip())
            assert 1 <= exc.diagnostic.line <= last, (piece, str(exc.diagnostic))


# ---------------------------------------------------------------- Fortran: fparser's failures


def test_fparser_internal_error_gets_the_statement_line(tmp_path):
    # fparser raises an internal error (Kind_Selector) with no line for "integer, i".
    text = ("subroutine s(n)\n"
            "  implicit none\n"
            "  integer, i ! ntent(in) :: n\n"
            "end subroutine s\n")
    parsed, warnings = fortran_warnings(tmp_path, "kind.f90", text)
    assert parsed == 0
    assert warnings == ["kind.f90:3: cannot parse 'integer, i' (fparser gives up in "
                        "Kind_Selector)"]


def test_fparser_internal_error_through_the_cli(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "kind.f90").write_text("subroutine s(n)\n\n  integer, i ! ntent(in) :: n\n"
                                       "end subroutine s\n")
    assert main(["kind.f90", "--json", "out.json"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == ["satreport: error: nothing could be analysed: kind.f90:3: cannot parse "
                   "'integer, i' (fparser gives up in Kind_Selector)"]
    assert not (tmp_path / "out.json").exists()


# ---------------------------------------------------------------- Fortran: statement length
# The limit protects fparser's parse, whose time grows with the square of a statement's
# length; tree-sitter reads such statements in linear time (tests/test_fortran_parsers.py).


def refused(length: int) -> str:
    return (f"statement of {length} characters is longer than satreport's limit of "
            f"{MAX_STATEMENT_CHARS}; the file is skipped")


@pytest.mark.parametrize("name, text, line, length", [
    # "y = " (4) + 4500 ones (8999) = 9003 characters, on line 4.
    ("one.f90", "subroutine s(y)\n  real :: y\n  ! long\n  y = " + ones(4500)
     + "\nend subroutine s\n", 4, 9003),
    # Free form: 9 pieces of 500 ones (999 each) joined by " &" / "& + ": each join keeps
    # " " + " + " (4), so 4 + 9 * 999 + 8 * 4 = 9027; the statement starts on line 3.
    ("cont.f90", "subroutine s(y)\n  real :: y\n  y = " + " &\n      & + ".join([ones(500)] * 9)
     + "\nend subroutine s\n", 3, 9027),
    # Fixed form: column 6 continues, " + ..." follows: 4 + 9 * 999 + 8 * 3 = 9019, line 4.
    ("fixed.f", "      subroutine s(y)\n      real y\nc     comment\n      y = "
     + "\n     & + ".join([ones(500)] * 9) + "\n      end\n", 4, 9019),
    # The second statement of a line ("y = 1.0; y = ..."): 9003 characters, line 3.
    ("semi.f90", "subroutine s(y)\n  real :: y\n  y = 1.0; y = " + ones(4500)
     + "\nend subroutine s\n", 3, 9003),
    # Preprocessed: line 5 of the original file (the #define and #if lines count).
    ("pre.F90", "#define N 3\nsubroutine s(y)\n  real :: y\n#if N > 2\n  y = " + ones(4500)
     + "\n#endif\nend subroutine s\n", 5, 9003),
])
def test_over_long_statement_is_refused(tmp_path, name, text, line, length):
    parsed, warnings = fortran_warnings(tmp_path, name, text, "fparser")
    assert parsed == 0
    assert warnings == [f"{name}:{line}: {refused(length)}"]


def test_limit_boundary(tmp_path, monkeypatch):
    monkeypatch.setattr(parse, "MAX_STATEMENT_CHARS", 20)
    head = "subroutine s(y)\n  real :: y\n"
    # "y = 1+1+1+1+1+1+1+11": 4 + 15 + 1 = 20 characters, at the limit: parsed.
    parsed, warnings = fortran_warnings(tmp_path, "at.f90", head + "  y = " + ones(8) + "1\n"
                                        "end subroutine s\n", "fparser")
    assert parsed == 1 and not any("limit" in w for w in warnings)
    # One more digit: 21 characters, refused.
    parsed, warnings = fortran_warnings(tmp_path, "over.f90", head + "  y = " + ones(8) + "11\n"
                                        "end subroutine s\n", "fparser")
    assert parsed == 0
    assert warnings == ["over.f90:3: statement of 21 characters is longer than satreport's "
                        "limit of 20; the file is skipped"]


def test_character_constants_do_not_count(tmp_path):
    # A 10,000-character string: fparser sets it aside before matching, the file is parsed.
    text = ("subroutine s(y)\n  character(len=*), parameter :: t = '" + "ab" * 5000 + "'\n"
            "  real :: y\n  do i = 1, 2\n    y = y + 1.0\n  end do\nend subroutine s\n")
    parsed, warnings = fortran_warnings(tmp_path, "str.f90", text)
    assert parsed == 1 and warnings == []


def test_long_comment_is_not_a_statement(tmp_path):
    text = ("subroutine s(y)\n  real :: y\n  ! " + "x" * 50_000 + "\n"
            "  do i = 1, 2\n    y = y + 1.0\n  end do\nend subroutine s\n")
    parsed, warnings = fortran_warnings(tmp_path, "comment.f90", text)
    assert parsed == 1 and warnings == []


def test_long_statement_in_an_included_file(tmp_path):
    (tmp_path / "long.inc").write_text("! included\ny = " + ones(4500) + "\n")
    text = "subroutine s(y)\n  real :: y\n  include 'long.inc'\nend subroutine s\n"
    path = tmp_path / "main.f90"
    path.write_text(text)
    program, parsed = read_fortran([str(path)], parser="fparser")
    assert parsed == 0
    [warning] = program.warnings
    assert Path(warning.file) == tmp_path / "long.inc"
    assert (warning.line, warning.message) == (2, refused(9003))


def test_other_sources_are_still_analysed(tmp_path):
    good = tmp_path / "good.f90"
    good.write_text("subroutine g(a, n)\n  integer :: n, i\n  real :: a(n)\n  do i = 1, n\n"
                    "    a(i) = a(i) * 2.0\n  end do\nend subroutine g\n")
    bad = tmp_path / "bad.f90"
    bad.write_text("subroutine b(y)\n  real :: y\n  y = " + ones(4500) + "\nend subroutine b\n")
    program = read_sources([str(good), str(bad)], fortran_parser="fparser")
    assert [p.name for p in program.procedures] == ["g"]
    assert [str(w) for w in program.warnings] == [f"{bad}:3: {refused(9003)}"]
    with pytest.raises(FrontendError) as caught:
        read_sources([str(bad)], fortran_parser="fparser")
    assert str(caught.value) == f"nothing could be analysed: {bad}:3: {refused(9003)}"
