"""Fixed-form Fortran as free form, line for line, for the tree-sitter parser.

The conversion is mechanical and keeps every line where it was (so line numbers need no
map): a comment line (``c``, ``C``, ``*`` or ``!`` in column 1, or ``!`` as its first
non-blank character anywhere but column 6: fparser's rule) becomes a ``!`` comment; columns
73 and beyond are dropped; a line with a character other than blank or ``0`` in column 6 is
a continuation: the previous code line gets a ``&`` where its code ends (before any ``!``
comment) and the continuation line starts with ``&``, so that a name or a string split
across the two lines is joined as in fixed form. A tab in the first six columns ends the
label field (a digit after it marks a continuation).
"""

from __future__ import annotations

FIXED_FORM_SUFFIXES = (".f", ".for", ".ftn", ".f77")
_COMMENT_MARKS = frozenset("cC*!")


def is_fixed_form(path: str) -> bool:
    """Whether a file is fixed form by its suffix (as fparser decides for these suffixes)."""
    lowered = path.lower()
    return any(lowered.endswith(suffix) for suffix in FIXED_FORM_SUFFIXES)


def _bang_comment(line: str) -> bool:
    """A line whose first non-blank character is a '!' outside column 6."""
    stripped = line.lstrip(" ")
    return stripped[:1] == "!" and len(line) - len(stripped) != 5


def _fields(line: str) -> tuple[str, bool, str]:
    """``(label, continued, statement text)`` of a fixed-form code line."""
    head = line[:6]
    if "\t" in head:
        label, rest = line.split("\t", 1)
        if rest[:1] in "123456789" and rest[:1] != "":
            return label, True, rest[1:]
        return label, False, rest
    return line[:5], line[5:6] not in ("", " ", "0"), line[6:72]


def _scan(text: str, quote: str) -> tuple[int, str]:
    """Where the code of ``text`` ends (the start of a ``!`` comment, or its length) and the
    quote still open at its end (``quote``: the one open at its start)."""
    for index, char in enumerate(text):
        if quote:
            if char == quote:
                quote = ""
        elif char in "'\"":
            quote = char
        elif char == "!":
            return index, ""
    return len(text), quote


def fixed_to_free(text: str) -> str:
    """Fixed-form source text as free-form text with the same lines."""
    out: list[str] = []
    last = -1  # index in out of the last code line
    last_end = 0  # where that line's code ends
    quote = ""
    for raw in text.split("\n"):
        ending = "\r" if raw.endswith("\r") else ""
        line = raw[:-1] if ending else raw
        if line[:1] in _COMMENT_MARKS or _bang_comment(line) or not line.strip():
            out.append(("!" + line[1:] if line.strip() else "") + ending)
            continue
        label, continued, statement = _fields(line)
        if continued and last >= 0:
            previous = out[last]
            code, rest = previous[:last_end], previous[last_end:]
            if not quote:
                code = code.rstrip()
            out[last] = code + "&" + rest
            converted = "     &" + statement
            offset, start_quote = 6, quote
        else:
            converted = label.ljust(5) + " " + statement
            offset, start_quote = 6, ""
        end, quote = _scan(statement, start_quote)
        last, last_end = len(out), offset + end
        out.append(converted + ending)
    return "\n".join(out)
