"""Names and values echoed in one-line messages: quoted, control characters as escapes."""

from __future__ import annotations

from typing import Any

_SHOWN = 60  # characters of a long value shown before an ellipsis


def quoted(value: Any, limit: int = _SHOWN) -> str:
    """``value`` as a literal (a string quoted) whose line breaks and other control
    characters are shown as escapes (``'a\\nb'``), shortened to about ``limit`` characters:
    an echoed name never breaks the one-line message it is in, nor hides what was typed."""
    try:
        text = repr(value)
    except ValueError:  # an integer beyond Python's int-to-text limit
        text = f"'<a number of about {value.bit_length() * 0.30103:.0f} digits>'"
    if len(text) <= limit:
        return text
    return text[: limit - 2] + "…" + (text[0] if isinstance(value, str) else "")


def one_line(message: str) -> str:
    """``message`` with its line breaks and other control characters shown as escapes: what
    reaches standard error is always one line."""
    if message.isprintable():
        return message
    return "".join(c if c.isprintable() else c.encode("unicode_escape").decode("ascii")
                   for c in message)


def echoed(text: str) -> str:
    """A name the user typed, as typed when it is plain printable text, else :func:`quoted`
    (``--socket 'a\\nb'``)."""
    text = str(text)
    return text if text.isprintable() and text.strip() == text else quoted(text, 200)
