"""Conditions on a repetition loop's own variable, evaluated from the loop's bounds.

Inside a time loop ``do ncycle = 1, itmax``, an arm ``if (ncycle > 1)`` runs on the passes
``2 .. itmax`` and its ``else`` on the pass ``1``: no probability is needed, the arm's nest
is the time loop over those passes.  :func:`arm_range` gives the bounds of the passes an arm
runs on, as source text (``max(1, 1 + 1)``, ``min(itmax, 1)``) that the model's trip counts
read like any other bound, so that they follow ``itmax`` live.

A condition is taken when it compares the variable with an expression that does not use it
(``v > e``, ``e <= v``, ``v == e``; Fortran's ``.gt.`` forms too) and the loop steps by 1.
An ``else`` or ``else if`` arm excludes the earlier arms of its chain: it is taken when
each of those is one-sided (``v > e`` excludes to ``v <= e``) or tests the first or last pass
(``v == 1`` in ``do v = 1, nt`` excludes to ``v >= 2``).  Anything else (``mod(v, 10)
== 0``, a condition on another variable) is None: the arm keeps its probability.
"""

from __future__ import annotations

import re

from sat.ir import Branch, Loop
from sat.regex import LazyPattern

_OPS = {">": ">", ">=": ">=", "<": "<", "<=": "<=", "==": "==", ".gt.": ">", ".ge.": ">=",
        ".lt.": "<", ".le.": "<=", ".eq.": "=="}
_MIRROR = {">": "<", ">=": "<=", "<": ">", "<=": ">=", "==": "=="}
_COMPARISON = LazyPattern(r"^(.*?)(>=|<=|==|>|<|\.gt\.|\.ge\.|\.lt\.|\.le\.|\.eq\.)(.*)$",
                          re.I | re.S)

_LOGICAL = LazyPattern(r"\.(and|or|not|eqv|neqv)\.|&&|\|\|", re.I)

# one side of the passes an arm runs on: ("lo", e) is v >= e, ("hi", e) is v <= e
Bound = tuple[str, str]


def _strip(text: str) -> str:
    """``text`` without the parentheses around all of it."""
    text = text.strip()
    while text.startswith("(") and text.endswith(")") and _balanced(text[1:-1]):
        text = text[1:-1].strip()
    return text


def _balanced(text: str) -> bool:
    depth = 0
    for char in text:
        depth += {"(": 1, ")": -1}.get(char, 0)
        if depth < 0:
            return False
    return depth == 0


def condition_bounds(condition: str, var: str) -> list[Bound] | None:
    """The passes ``condition`` holds on, as bounds on ``var`` (None: not a comparison of
    ``var`` alone with an expression free of it)."""
    match = _COMPARISON.match(_strip(condition))
    if match is None:
        return None
    left, op, right = _strip(match[1]), _OPS[match[2].lower()], _strip(match[3])
    if not left or not right or any(c in right for c in "<>=!") or _LOGICAL.search(right):
        return None
    word = re.compile(rf"(?<![\w.]){re.escape(var)}(?!\w)", re.I)
    if left.lower() != var.lower():
        left, right, op = right, left, _MIRROR[op]
    if left.lower() != var.lower() or word.search(right) or not _balanced(right):
        return None
    return {">": [("lo", f"({right}) + 1")], ">=": [("lo", f"({right})")],
            "<": [("hi", f"({right}) - 1")], "<=": [("hi", f"({right})")],
            "==": [("lo", f"({right})"), ("hi", f"({right})")]}[op]


def _excluded(bounds: list[Bound], loop: Loop) -> list[Bound] | None:
    """The passes a condition does not hold on: the other side of a one-sided one; for
    ``v == e`` with ``e`` the loop's first or last value as written, the passes after or
    before it (None: no range)."""
    if len(bounds) == 2 and bounds[0][1] == bounds[1][1]:
        value = _strip(bounds[0][1]).replace(" ", "").lower()
        if value == _strip(loop.lower).replace(" ", "").lower():
            return [("lo", f"{bounds[0][1]} + 1")]
        if value == _strip(loop.upper).replace(" ", "").lower():
            return [("hi", f"{bounds[0][1]} - 1")]
    if len(bounds) != 1:
        return None
    side, text = bounds[0]
    return [("hi", f"{text} - 1")] if side == "lo" else [("lo", f"{text} + 1")]


def arm_range(arm: Branch, chain: list[Branch], loop: Loop) -> tuple[str, str] | None:
    """(lower, upper) of the passes of ``loop`` on which ``arm`` runs, ``chain`` being the arms
    of its if/else-if/else in order (None: the condition is not one on the loop's own
    variable, or the loop does not step by 1)."""
    if not loop.loopvar or loop.stride.strip() != "1" or loop.kind == "tile":
        return None
    var = loop.loopvar
    bounds: list[Bound] = []
    for earlier in chain:
        if earlier is arm:
            break
        found = condition_bounds(earlier.condition, var)
        excluded = _excluded(found, loop) if found is not None else None
        if excluded is None:
            return None
        bounds.extend(excluded)
    if arm.condition.strip().lower() != "else":
        found = condition_bounds(arm.condition, var)
        if found is None:
            return None
        bounds.extend(found)
    lows = [text for side, text in bounds if side == "lo"]
    highs = [text for side, text in bounds if side == "hi"]
    lower = f"max({loop.lower}, {', '.join(lows)})" if lows else loop.lower
    upper = f"min({loop.upper}, {', '.join(highs)})" if highs else loop.upper
    return lower, upper
