"""JSON text indented by two spaces, as ``json.dumps(data, indent=2, ensure_ascii=False)``
writes it, with a number that is not finite written ``null``.

The standard library encodes indented JSON in Python, a generator per container and a
``yield`` per token: for a whole program's report that is most of the JSON's time. This
writer makes the very same text (same escapes, same number spellings, same layout) with one
list of pieces and the C string escaper; ``tests/test_json_text.py`` holds it to
``json.dumps`` on every kind of value.
"""

from __future__ import annotations

import math
from json.encoder import encode_basestring
from typing import Any

_INDENT = "  "


def dumps(data: Any) -> str:
    """``data`` as indented JSON text; a float that is not finite is ``null``."""
    pieces: list[str] = []
    _value(data, pieces, "\n")
    return "".join(pieces)


def _value(value: Any, pieces: list[str], newline: str) -> None:
    """Append ``value``'s text; ``newline`` is a line break with the indent of its line."""
    if isinstance(value, str):
        pieces.append(encode_basestring(value))
    elif value is None:
        pieces.append("null")
    elif value is True:
        pieces.append("true")
    elif value is False:
        pieces.append("false")
    elif isinstance(value, int):
        pieces.append(int.__repr__(value))
    elif isinstance(value, float):
        pieces.append(float.__repr__(value) if math.isfinite(value) else "null")
    elif isinstance(value, (list, tuple)):
        if not value:
            pieces.append("[]")
            return
        inner = newline + _INDENT
        separator = "," + inner
        pieces.append("[" + inner)
        first = True
        for item in value:
            if not first:
                pieces.append(separator)
            first = False
            leaf = _leaf(item)
            if leaf is None:
                _value(item, pieces, inner)
            else:
                pieces.append(leaf)
        pieces.append(newline + "]")
    elif isinstance(value, dict):
        if not value:
            pieces.append("{}")
            return
        inner = newline + _INDENT
        separator = "," + inner
        pieces.append("{" + inner)
        first = True
        for key, item in value.items():
            if not first:
                pieces.append(separator)
            first = False
            leaf = _leaf(item)
            if leaf is None:
                pieces.append(_key(key) + ": ")
                _value(item, pieces, inner)
            else:
                pieces.append(_key(key) + ": " + leaf)
        pieces.append(newline + "}")
    else:
        raise TypeError(f"Object of type {type(value).__name__} is not JSON serializable")


def _leaf(value: Any) -> str | None:
    """The text of a value of the commonest exact types, None for any other."""
    kind = type(value)
    if kind is float:
        return float.__repr__(value) if math.isfinite(value) else "null"
    if kind is str:
        return encode_basestring(value)
    if kind is int:
        return int.__repr__(value)
    if value is None:
        return "null"
    return None


def _key(key: Any) -> str:
    """A member's name, spelt as ``json.dumps`` spells a key of its type."""
    if isinstance(key, str):
        return encode_basestring(key)
    if isinstance(key, float):
        if not math.isfinite(key):
            raise ValueError(f"Out of range float values are not JSON compliant: {key!r}")
        return encode_basestring(float.__repr__(key))
    if key is True:
        return '"true"'
    if key is False:
        return '"false"'
    if key is None:
        return '"null"'
    if isinstance(key, int):
        return encode_basestring(int.__repr__(key))
    raise TypeError(f"keys must be str, int, float, bool or None, not {type(key).__name__}")
