"""Parsing one Fortran source file with fparser, and saying where and why it fails."""

from __future__ import annotations

import os
import re
import shutil
import tempfile
from collections.abc import Sequence

from fparser.common.readfortran import Comment, FortranFileReader
from fparser.two.parser import ParserFactory

from sat import ir
from sat.frontend.fortran.preprocess import (
    Preprocessed,
    PreprocessError,
    needs_preprocessing,
    preprocess,
)

#: The longest statement (continuation lines joined, character constants not counted) handed
#: to fparser. fparser's parse time grows with the square of a statement's length: measured on
#: a 2-core machine for ``y = x0+x1+...`` (one line or continued over 100-character lines),
#: 4,000 characters take 0.6-0.7 s, 8,000 take 1.2-2.5 s, 10,000 take 2.3-2.7 s, 16,000 take
#: 9-13 s and 200,000 about half an hour. Character constants are set aside by fparser before
#: matching (a 100,000-character string parses in 0.1 s), so they do not count. A file with a
#: longer statement is skipped with a diagnostic instead of stalling the run.
MAX_STATEMENT_CHARS = 8000
_CHARACTER_CONSTANT = re.compile(r"'(?:[^']|'')*'|\"(?:[^\"]|\"\")*\"")
_FPARSER_NOISE = re.compile(r"\.?\s*Please report this to the authors\.?", re.I)


class ParseFailure(Exception):
    """A source file that could not be read or parsed (``file:line: message``)."""

    def __init__(self, message: str, file: str, line: int = 0):
        super().__init__(message)
        self.diagnostic = ir.Diagnostic(message, file, line)


class Source:
    """One parsed source file and its line map back to the original text."""

    def __init__(self, path: str, tree: object, parsed_id: str,
                 pre: Preprocessed | None):
        self.path = path
        self.tree = tree
        self._parsed_id = parsed_id
        self._pre = pre

    def where(self, node: object) -> tuple[str, int]:
        """``(file, line)`` of a statement node in the original sources (``(path, 0)`` if none)."""
        item = getattr(node, "item", None)
        if item is None:
            return self.path, 0
        return _place(item, self.path, self._parsed_id, self._pre)

    def line_of(self, node: object) -> int:
        return self.where(node)[1]


def _place(item: object, path: str, parsed_id: str, pre: Preprocessed | None
           ) -> tuple[str, int]:
    """``(file, line)`` in the original sources of the first line of a reader item."""
    line = item.span[0]
    reader_id = getattr(getattr(item, "reader", None), "id", parsed_id)
    if reader_id != parsed_id:  # a line from an included file
        return str(reader_id), line
    if pre is not None:
        file, original = pre.origin(line)
        return (file or path), original
    return path, line


def fortran_parser():
    return ParserFactory().create(std="f2008")


class _TrackingReader(FortranFileReader):
    """fparser's file reader, remembering the last statement it handed to the parser.

    Some fparser failures (its internal errors) carry no position: the statement being matched
    when one is raised is the last one read.
    """

    last_statement: object | None = None

    def next(self, ignore_comments: bool | None = None) -> object:
        item = super().next(ignore_comments)
        if not isinstance(item, Comment):
            self.last_statement = item
        return item


def _check_statement_lengths(parse_path: str, dirs: list[str], path: str,
                             pre: Preprocessed | None) -> None:
    """Raise :class:`ParseFailure` at the first statement longer than MAX_STATEMENT_CHARS.

    fparser's own reader joins continuation lines (free and fixed form), splits at ``;`` and
    drops comments, in time linear in the file's size.
    """
    reader = FortranFileReader(parse_path, include_dirs=dirs, ignore_comments=True)
    parsed_id = getattr(reader, "id", parse_path)
    for item in reader:
        text = getattr(item, "line", "")
        if isinstance(item, Comment) or len(text) <= MAX_STATEMENT_CHARS:
            continue
        length = len(_CHARACTER_CONSTANT.sub("''", text))
        if length > MAX_STATEMENT_CHARS:
            file, line = _place(item, path, parsed_id, pre)
            raise ParseFailure(f"statement of {length} characters is longer than satreport's "
                               f"limit of {MAX_STATEMENT_CHARS}; the file is skipped", file, line)


def read_text(path: str, defines: Sequence[str], include_dirs: Sequence[str],
              warnings: list[ir.Diagnostic], blank: Sequence[tuple[int, int]] = ()
              ) -> tuple[bytes, bytes, Preprocessed | None]:
    """The file's bytes and the text a parser reads (preprocessed for upper-case suffixes,
    without a UTF-8 byte order mark, fixed-form comments ending in '&' cut, ``blank``'s
    lines emptied); raises :class:`ParseFailure`. Warns of bytes that are not UTF-8 and of
    directives left in a file with a lower-case suffix."""
    if not os.path.isfile(path):
        raise ParseFailure("cannot read file: no such file", path)
    try:
        with open(path, "rb") as handle:
            raw = handle.read()
    except OSError as exc:
        raise ParseFailure(f"cannot read file: {exc.strerror or exc}", path) from None
    _check_encoding(raw, path, warnings)
    if needs_preprocessing(path):
        try:
            pre = preprocess(path, defines, include_dirs)
        except PreprocessError as exc:
            raise ParseFailure(str(exc), path, exc.line) from None
        return raw, _fixed_form_comments(pre.text.encode(), parse_name(path)), pre
    text = _fixed_form_comments(raw.removeprefix(b"\xef\xbb\xbf"), path)
    if text == raw:
        directive = re.search(rb"(?m)^#\s*(if|ifdef|ifndef|define|include)\b", raw)
        if directive:
            warnings.append(ir.Diagnostic(
                "preprocessor directives in a file with a lower-case suffix are not "
                "processed (all branches of #if are counted); name it .F90/.F to "
                "preprocess it", path, raw[: directive.start()].count(b"\n") + 1))
    return raw, (blank_lines(text, blank) if blank else text), None


def parse_name(path: str) -> str:
    """The name the parsed text goes by: a preprocessed file's suffix in lower case."""
    if not needs_preprocessing(path):
        return os.path.basename(path)
    stem, suffix = os.path.splitext(os.path.basename(path))
    return stem + suffix.lower()


def parse_file(path: str, parser, defines: Sequence[str], include_dirs: Sequence[str],
               warnings: list[ir.Diagnostic],
               blank: Sequence[tuple[int, int]] = ()) -> Source:
    """Parse one Fortran file with fparser; raises :class:`ParseFailure`.

    ``blank``: line ranges parsed as empty lines (see :mod:`sat.frontend.fortran.shares`).
    """
    import fparser.two.symbol_table as symbol_table

    raw, text, pre = read_text(path, defines, include_dirs, warnings, blank)
    dirs = [os.path.dirname(os.path.abspath(path)), *include_dirs]
    tmpdir = None
    parse_path = path
    try:
        if pre is not None or text != raw:
            tmpdir = tempfile.mkdtemp(prefix="satreport-")
            parse_path = os.path.join(tmpdir, parse_name(path))
            with open(parse_path, "wb") as handle:
                handle.write(text)
        symbol_table.SYMBOL_TABLES.clear()
        reader: _TrackingReader | None = None
        try:
            _check_statement_lengths(parse_path, dirs, path, pre)
            reader = _TrackingReader(parse_path, include_dirs=dirs, ignore_comments=False)
            tree = parser(reader)
        except ParseFailure:
            raise
        except RecursionError:
            raise ParseFailure("expression nesting too deep to parse", path,
                               _failing_line(reader, path, parse_path, pre)[1]) from None
        except SystemExit:  # fparser's reader.error() exits, e.g. on an END with a wrong name
            file, line = _failing_line(reader, path, parse_path, pre)
            raise ParseFailure("Fortran syntax error (a statement fparser cannot place, such "
                               "as an END naming another unit)", file, line) from None
        except Exception as exc:  # fparser raises many kinds; every one is a parse failure
            raise _parse_failure(exc, path, pre, reader, parse_path) from None
        return Source(path, tree, getattr(reader, "id", parse_path), pre)
    finally:
        if tmpdir is not None:
            shutil.rmtree(tmpdir, ignore_errors=True)


_FIXED_FORM = (".f", ".for", ".ftn", ".f77")
# A fixed-form comment line ending in '&': fparser takes the '&' for a continuation.
_AMPERSAND_COMMENT = re.compile(rb"(?mi)^([c*!][^\n]*?)&[ \t]*(\r?)$")


def _fixed_form_comments(text: bytes, path: str) -> bytes:
    """The text with the '&' that ends a fixed-form comment line removed (lines kept)."""
    if os.path.splitext(path)[1].lower() not in _FIXED_FORM:
        return text
    return _AMPERSAND_COMMENT.sub(rb"\1\2", text)


def blank_lines(text: bytes, ranges: Sequence[tuple[int, int]]) -> bytes:
    """``text`` with lines ``first..last`` (1-based, inclusive) of each range emptied."""
    lines = text.split(b"\n")
    for first, last in ranges:
        for number in range(first - 1, min(last, len(lines))):
            lines[number] = b"\r" if lines[number].endswith(b"\r") else b""
    return b"\n".join(lines)


def _parse_failure(exc: Exception, path: str, pre: Preprocessed | None,
                   reader: _TrackingReader | None = None, parse_path: str = "") -> ParseFailure:
    """One ``file:line: message`` for whatever fparser raised, at the best line known."""
    text = str(exc)
    match = re.search(r"line (\d+)", text)
    statement = getattr(reader, "last_statement", None)
    if match:
        file, line = path, int(match.group(1))
        if pre is not None:
            file, line = pre.origin(line)
            file = file or path
    else:
        file, line = _failing_line(reader, path, parse_path, pre)
    code = ""
    code_match = re.search(r">>>\s*(.*)", text)
    if code_match:
        code = code_match.group(1).strip()
    kind = type(exc).__name__
    if kind == "FortranSyntaxError":
        return ParseFailure("Fortran syntax error" + (f" near '{code[:60]}'" if code else ""),
                            file, line)
    first = next((t.strip() for t in text.splitlines() if t.strip()), kind)
    detail = _FPARSER_NOISE.sub("", first).strip().strip("'\"").strip()
    where = re.search(r"in class (\w+)", detail)
    if statement is not None and not match and kind == "InternalError":
        # fparser's "internal" errors come from input it cannot match (e.g. "integer, i"):
        # the statement is what the user needs, fparser's class name says where it gave up.
        stated = " ".join(str(getattr(statement, "line", "")).split())[:60]
        reason = f" (fparser gives up in {where.group(1)})" if where else ""
        return ParseFailure(f"cannot parse '{stated}'{reason}", file, line)
    return ParseFailure(f"cannot parse: {' '.join(detail.split())[:120] or kind}", file, line)


def _failing_line(reader: _TrackingReader | None, path: str, parse_path: str,
                  pre: Preprocessed | None) -> tuple[str, int]:
    """Where the reader was when fparser failed: its last statement, else its line count."""
    if reader is None:
        return path, 0
    parsed_id = getattr(reader, "id", parse_path)
    statement = getattr(reader, "last_statement", None)
    if statement is not None and getattr(statement, "span", None):
        return _place(statement, path, parsed_id, pre)
    count = getattr(reader, "linecount", 0) or 0
    if count and pre is not None:
        file, line = pre.origin(count)
        return (file or path), line
    return path, count


def _check_encoding(raw: bytes, path: str, warnings: list[ir.Diagnostic]) -> None:
    try:
        raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        warnings.append(ir.Diagnostic(
            "bytes that are not UTF-8 were ignored (comments or strings are assumed)", path,
            line))
