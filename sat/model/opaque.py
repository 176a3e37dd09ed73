"""Expressions the model cannot read, made into parameters instead of dropping their nest.

A loop bound or an extent arrives from the IR as source text. Arithmetic over names and
simple references (``hi(1) + ng``, ``lv->b[k].dim.i``) is modelled term by term; a reference
nested deeper (``lv->blocks[shape()][nb[b]].dim.i``) or an expression of a form the model
has no operator for (``a > b ? c : d``) is *opaque*: :func:`opaque_terms` finds the smallest
references of the first kind, and :func:`opaque_name` names the parameter that stands for
such a term, or for the whole text when even that is not enough.
"""

from __future__ import annotations

import re

from sat.parameter import MEMBER_SELECTOR, SELECTED_NAME, symbol_to_name
from sat.regex import LazyPattern

#: how a placeholder for an opaque term is spelt inside the text handed to Python's parser
PLACEHOLDER = "opaque_term_{}_"

_NAME = re.compile(r"[A-Za-z_]\w*")
_NUMBER = LazyPattern(r"(?:\d+\.?\d*|\.\d+)(?:[eEdD][+-]?\d+)?\w*")
_SELECTOR = LazyPattern(rf"{MEMBER_SELECTOR}[A-Za-z_]\w*")
# a reference the ordinary reading takes whole: subscripts and members, no bracket in a bracket
_PLAIN = re.compile(rf"{SELECTED_NAME}(?:{MEMBER_SELECTOR}{SELECTED_NAME})*")
_PAIRS = {"(": ")", "[": "]"}
_LONGEST = 40


def _closing(text: str, start: int) -> int | None:
    """The index after the bracket group opening at ``start`` (None: not closed)."""
    stack = []
    for index in range(start, len(text)):
        char = text[index]
        if char in _PAIRS:
            stack.append(_PAIRS[char])
        elif char in ")]":
            if not stack or stack.pop() != char:
                return None
            if not stack:
                return index + 1
    return None


def _reference_end(text: str, start: int) -> int | None:
    """The end of the reference starting with a name at ``start``: its subscripts, calls and
    members (None: a bracket is not closed)."""
    position = _NAME.match(text, start).end()  # type: ignore[union-attr]
    while True:
        after = len(text) - len(text[position:].lstrip())
        if after < len(text) and text[after] in _PAIRS:
            closed = _closing(text, after)
            if closed is None:
                return None
            position = closed
            continue
        member = _SELECTOR.match(text, position)
        if member is None:
            return position
        position = member.end()


def opaque_terms(text: str, functions: frozenset[str]) -> tuple[str, dict[str, str]] | None:
    """``text`` with each reference nested too deep to read replaced by a placeholder, and
    the placeholders' source text; calls of ``functions`` (``min``, ``max``) stay, their
    arguments read alike. None when the text has no such reference or is not balanced."""
    terms: dict[str, str] = {}
    out = _replaced(text, functions, terms)
    return (out, terms) if out is not None and terms else None


def _replaced(text: str, functions: frozenset[str], terms: dict[str, str]) -> str | None:
    out, index = [], 0
    while index < len(text):
        number = _NUMBER.match(text, index)
        if number and (index == 0 or not (text[index - 1].isalnum() or text[index - 1] == "_")):
            out.append(number.group(0))
            index = number.end()
            continue
        if not _NAME.match(text, index) or (index and (text[index - 1].isalnum()
                                                       or text[index - 1] == "_")):
            out.append(text[index])
            index += 1
            continue
        end = _reference_end(text, index)
        if end is None:
            return None
        reference = text[index:end]
        head = _NAME.match(reference).group(0)  # type: ignore[union-attr]
        rest = reference[len(head):].lstrip()
        if (head.lower() in functions and rest.startswith("(")
                and _closing(rest, 0) == len(rest)):
            inner = _replaced(rest[1:-1], functions, terms)
            if inner is None:
                return None
            out.append(f"{head}({inner})")
        elif _PLAIN.fullmatch(reference):
            out.append(reference)
        else:
            placeholder = PLACEHOLDER.format(len(terms))
            terms[placeholder] = re.sub(r"\s+", "", reference)
            out.append(placeholder)
        index = end
    return "".join(out)


def opaque_name(text: str) -> str:
    """The parameter name that stands for opaque source text: its symbols joined by ``_``
    (``lv->blocks[shape()][nb[b]]`` -> ``lv_blocks_shape_nb_b``), shortened with a digest
    of the text when long."""
    name = re.sub(r"_+", "_", symbol_to_name(text)).strip("_") or "expression"
    if name[0].isdigit():
        name = f"expr_{name}"
    if len(name) > _LONGEST:
        import hashlib  # only for a long name (start-up time: hashlib loads OpenSSL)

        digest = hashlib.sha1(text.encode()).hexdigest()[:6]
        name = f"{name[:_LONGEST - 7].rstrip('_')}_{digest}"
    return name
