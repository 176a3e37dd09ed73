"""C syntax errors a user can act on: placed at a line of the file, naming an unknown type."""

from __future__ import annotations

import os
import re

from pycparser import c_parser

from sat.regex import LazyPattern

_PARSE_COORD = LazyPattern(r"^(?P<file>.*?):(?P<line>\d+)(?::(?P<column>\d+))?: (?P<msg>.*)$",
                           re.S)


class CSyntaxError(Exception):
    """Why and where one parse failed; ``at_end``: the input ended inside a construct."""

    def __init__(self, message: str, file: str, line: int, at_end: bool = False,
                 column: int = 0):
        super().__init__(message)
        self.message, self.file, self.line, self.at_end = message, file, line, at_end
        self.column = column


def reported_error(path: str, whole: CSyntaxError, fragment: CSyntaxError) -> CSyntaxError:
    """The error a user needs when the file parses neither whole nor as a fragment.

    An error at the end of the input, or at the fragment wrapper's closing brace (a line past
    the end of the file), means the file ends inside a declaration or statement: it is reported
    at the file's last non-blank line. Of two errors inside the file, the one further into it
    is reported (the whole-file parse of a fragment stops at its first statement, the fragment
    parse of a whole file at its first function); on the same line, an unexpected end of file
    comes first (a fragment cut inside its last statement), then the error further right, then
    the whole-file error.
    """
    last = _last_line(path)
    errors = [_within(error, path, last) for error in (whole, fragment)]
    placed = [e for e in errors if e.line > 0 and _same_file(e.file, path)]
    if not placed:
        return errors[0]
    # max() keeps the first of equals: the whole-file error unless the other says more.
    return max(placed, key=lambda e: (e.line, e.at_end, e.column))


def _within(error: CSyntaxError, path: str, last: int) -> CSyntaxError:
    """``error``, moved to the last line of the file when it lies at or past the file's end."""
    if _same_file(error.file or path, path) and (error.at_end or error.line > last):
        if error.at_end and not error.message.endswith("unexpected end of file"):
            message = f"{error.message} at the end of the file"
        else:
            message = "C syntax error: unexpected end of file"
        return CSyntaxError(message, path, last, at_end=True)
    return error


def _last_line(path: str) -> int:
    """The number of the file's last non-blank line (1 for an empty or unreadable file)."""
    try:
        with open(path, encoding="utf-8", errors="replace") as handle:
            lines = handle.read().splitlines()
    except OSError:
        return 1
    return max((n for n, line in enumerate(lines, 1) if line.strip()), default=1)


def _same_file(a: str, b: str) -> bool:
    if a == b:
        return True
    try:
        return os.path.samefile(a, b)
    except OSError:
        return os.path.normpath(a) == os.path.normpath(b)


def syntax_error(parser: c_parser.CParser, error: str, path: str,
                  source: str) -> CSyntaxError:
    """The error pycparser gave, naming the token it stopped at and any unknown type name."""
    match = _PARSE_COORD.match(error)
    if match:
        message = match.group("msg").strip()
        file, line = match.group("file") or path, int(match.group("line"))
        column = int(match.group("column") or 0)
        tokens = _line_tokens(source, file, line)
        if message.startswith("before: "):
            message = f"C syntax error before '{message[len('before: '):]}'"
        else:
            near = next((tok for col, tok in tokens if col == column), None)
            named = near is None or f"'{near}'" in message
            message = f"C syntax error: {message}" + ("" if named else f" near '{near}'")
        return CSyntaxError(message + _type_hint(parser, tokens, column), file, line,
                            column=column)
    # Messages without a place ("x.c: Invalid expression"): the next token is where it failed.
    message = error.split(": ", 1)[1] if ": " in error else error
    try:
        token = parser._peek()  # noqa: SLF001 - pycparser gives no public position
    except Exception:  # the token stream may itself be broken
        return CSyntaxError(f"C syntax error: {message.strip()}", path, 0)
    if token is None:  # the input ended before the declaration or statement did
        if message.strip() == "At end of input":
            return CSyntaxError("C syntax error: unexpected end of file", path, 0, at_end=True)
        return CSyntaxError(f"C syntax error: {message.strip()}", path, 0, at_end=True)
    file = parser.clex.filename or path
    column = getattr(token, "column", 0)  # only a tie-breaker (see reported_error)
    column = column if isinstance(column, int) else 0
    hint = _type_hint(parser, _line_tokens(source, file, token.lineno), column)
    return CSyntaxError(f"C syntax error: {message.strip()} near '{token.value}'{hint}", file,
                        token.lineno, column=column)


# --------------------------------------------------------------------------- unknown types

_MARKER = LazyPattern(r'^#\s*(?:line\s+)?(\d+)\s+"((?:\\.|[^"\\])*)"')
_TOKEN = LazyPattern(r"[A-Za-z_]\w*|\d[\w.]*|\S")
_LITERAL = LazyPattern(r'"(?:\\.|[^"\\])*"|\'(?:\\.|[^\'\\])*\'')
_C_KEYWORDS = frozenset(
    "auto break case char const continue default do double else enum extern float for goto "
    "if inline int long register restrict return short signed sizeof static struct switch "
    "typedef union unsigned void volatile while _Alignas _Alignof _Atomic _Bool _Complex "
    "_Generic _Imaginary _Noreturn _Static_assert _Thread_local".split())
# words that may stand between a type name and the declared name (my_t const *restrict p)
_QUALIFIERS = frozenset(("const", "volatile", "restrict", "_Atomic"))
# tokens after which a declaration may start
_DECLARATION_START = frozenset((None, ";", "{", "}", "(", ",", "static", "extern", "register",
                                "auto", "inline", "typedef", "_Thread_local", *_QUALIFIERS))


def _line_tokens(source: str, file: str, line: int) -> list[tuple[int, str]]:
    """``(column, token)`` of one line of the preprocessed text, found by its line markers."""
    lines = source.splitlines()
    # without line markers (no preprocessor) the text is numbered as it stands
    marked = any(_MARKER.match(raw) for raw in lines)
    current, number = "", 1
    for raw in lines:
        marker = _MARKER.match(raw)
        if marker:
            current, number = marker.group(2), int(marker.group(1))
            continue
        if number == line and (_same_file(current, file) if marked else True):
            # string and character literals become one token each, so their words are not
            # mistaken for names
            text = _LITERAL.sub(lambda m: '"' + " " * (len(m.group(0)) - 2) + '"', raw)
            return [(m.start() + 1, m.group(0)) for m in _TOKEN.finditer(text)
                    if m.group(0) != '"']
        number += 1
    return []


def _type_hint(parser: c_parser.CParser, tokens: list[tuple[int, str]], column: int) -> str:
    """``": unknown type name 'T'? (define it, e.g. -D T=double)"`` when the line has one.

    In C two names side by side (``T x``), a name and a declared name behind stars at the
    start of a declaration (``T *x``) or a name in a cast (``(T) x``) make sense only when
    the first is a type: if it is neither a keyword nor a name pycparser knows (a typedef or a
    variable in scope), it is an unknown type, typically one a build defines with ``-D``.
    The candidate nearest before the error is named.
    """
    try:
        scopes = list(parser._scope_stack)  # noqa: SLF001 - the names pycparser has seen
    except AttributeError:
        scopes = []
    known = {name for scope in scopes for name in scope}
    words = [tok for _col, tok in tokens]

    def is_name(tok: str | None) -> bool:
        return tok is not None and (tok[0].isalpha() or tok[0] == "_") \
            and tok not in _C_KEYWORDS

    def unknown_type(at: int) -> bool:
        word = words[at]
        if not is_name(word) or word in known:
            return False
        before = words[at - 1] if at else None
        after = at + 1
        while after < len(words) and words[after] in _QUALIFIERS:
            after += 1
        following = words[after] if after < len(words) else None
        if is_name(following):
            return True  # T x
        stars = after
        while stars < len(words) and words[stars] in ("*", *_QUALIFIERS):
            stars += 1
        if stars > after and stars < len(words) and is_name(words[stars]) \
                and before in _DECLARATION_START:
            return True  # T *x at the start of a declaration
        if before == "(" and following == ")" and after + 1 < len(words):
            cast_of = words[after + 1]
            return is_name(cast_of) or cast_of[0].isdigit() or cast_of == "("  # (T) x
        return False

    candidates = [(col, words[at]) for at, (col, _tok) in enumerate(tokens) if unknown_type(at)]
    if not candidates:
        return ""
    before_error = [name for col, name in candidates if col <= column]
    name = before_error[-1] if before_error else candidates[0][1]
    return f": unknown type name '{name}'? (define it, e.g. -D {name}=double)"
