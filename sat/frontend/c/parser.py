"""Parsing preprocessed C with pycparser: as a whole file, else as a wrapped kernel fragment."""

from __future__ import annotations

from pycparser import c_ast, c_parser

from sat.frontend.c.errors import CSourceError
from sat.frontend.c.old_style import explicit_int
from sat.frontend.c.syntax_errors import CSyntaxError, reported_error, syntax_error

#: Name of the function a kernel fragment is wrapped in before parsing.
FRAGMENT_FUNCTION = "__satreport_fragment__"


def parse(path: str, text: str) -> tuple[c_ast.FileAST, bool]:
    """Parse preprocessed text: as a whole file, else as a kernel fragment wrapped in a function.

    Returns the tree and whether it is a fragment. A file that parses as a whole but defines
    no function (only declarations) is a fragment too. When neither parse succeeds, the error
    reported is at a line of the file (see
    :func:`sat.frontend.c.syntax_errors.reported_error`).
    """
    try:
        tree = _parse_text(path, text)
    except CSyntaxError as whole:
        try:  # K&R C: implicit int, as compilers read it
            tree = _parse_text(path, explicit_int(text))
            if any(isinstance(node, c_ast.FuncDef) for node in tree.ext or ()):
                return tree, False
        except CSyntaxError:
            pass
        try:
            return _parse_text(path, _wrapped(text)), True
        except CSyntaxError as fragment:
            best = reported_error(path, whole, fragment)
            raise CSourceError(best.message, best.file or path, best.line) from None
    if not any(isinstance(node, c_ast.FuncDef) for node in tree.ext or ()):
        try:
            return _parse_text(path, _wrapped(text)), True
        except CSyntaxError:
            return tree, False
    return tree, False


def _wrapped(text: str) -> str:
    # The preprocessor's line markers keep the fragment's lines numbered as in the file; the
    # closing brace comes after its last line.
    return f"void {FRAGMENT_FUNCTION}(void) {{\n{text}\n}}\n"


def _parse_text(path: str, text: str) -> c_ast.FileAST:
    parser = c_parser.CParser()
    try:
        return parser.parse(text, path)
    except c_parser.ParseError as exc:
        raise syntax_error(parser, str(exc), path, text) from None
    except RecursionError:
        raise CSyntaxError("C expression nesting too deep to parse", path, 0) from None
    except Exception as exc:  # pycparser raises other kinds on odd input: still a parse failure
        raise CSyntaxError(f"cannot parse C: {type(exc).__name__}: {str(exc)[:120]}",
                           path, 0) from None
