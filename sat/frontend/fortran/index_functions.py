"""Index functions in Fortran: small integer functions inlined into the subscripts using them.

``src(p(x - 1, y, z))`` with the statement function ``p(i, j, k) = i + nx*((j - 1) + ny*(k -
1))``, or an internal function whose body is the one assignment ``idx = i + nx*(j - 1)``,
computes its index through a call: a function result is irregular to the analysis. The
function's expression, its dummies replaced by the call's arguments, is the index the
subscript computes (:func:`inline_text`); the analyser parses it again and reads that.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from fparser.two import Fortran2003 as F

from sat.frontend.fortran.tree import first_child

#: calls of index functions inside index functions followed at most this deep
MAX_DEPTH = 8
_CALL = re.compile(r"(?<![\w%.])([A-Za-z]\w*)\s*\(")
_NAME = re.compile(r"(?<![\w%.])([A-Za-z]\w*)(?!\w)")

Definition = tuple[tuple[str, ...], str]


def one_line_function(node: object, result: str) -> str | None:
    """The expression a function's body assigns to its result ``result`` when that is its
    only statement, else None."""
    execution = first_child(node, F.Execution_Part)
    statements = [s for s in (execution.content if execution is not None else ())
                  if not isinstance(s, F.Comment)]
    if len(statements) != 1 or not isinstance(statements[0], F.Assignment_Stmt):
        return None
    lhs, _op, rhs = statements[0].items
    return str(rhs) if str(lhs).lower() == result else None


def inline_text(text: str, definition: Callable[[str], Definition | None],
                depth: int = 0) -> str | None:
    """``text`` with each call of a function ``definition`` knows replaced by its expression
    over the call's arguments (None when it calls none)."""
    out, index, changed = [], 0, False
    for match in _CALL.finditer(text):
        if match.start() < index:
            continue
        found = definition(match.group(1).lower())
        close = _closing(text, match.end() - 1)
        if found is None or close is None:
            continue
        dummies, expression = found
        args = _arguments(text[match.end():close - 1])
        if len(args) != len(dummies) or depth >= MAX_DEPTH:
            continue
        args = [inline_text(arg, definition, depth) or arg for arg in args]
        values = dict(zip((d.lower() for d in dummies), args, strict=True))
        body = _substituted(expression, values)
        body = inline_text(body, definition, depth + 1) or body
        out.append(text[index:match.start()] + f"({body})")
        index, changed = close, True
    if not changed:
        return None
    out.append(text[index:])
    return "".join(out)


def _substituted(expression: str, values: dict[str, str]) -> str:
    """``expression`` with each dummy replaced by its argument, in parentheses."""
    def value(match: re.Match[str]) -> str:
        name = match.group(1).lower()
        return f"({values[name]})" if name in values else match.group(0)

    return _NAME.sub(value, expression)


def _closing(text: str, start: int) -> int | None:
    """The index after the parenthesis that closes the one at ``start``."""
    depth = 0
    for index in range(start, len(text)):
        if text[index] == "(":
            depth += 1
        elif text[index] == ")":
            depth -= 1
            if depth == 0:
                return index + 1
    return None


def _arguments(text: str) -> list[str]:
    """The arguments of a call, split at the commas outside parentheses."""
    args, depth, start = [], 0, 0
    for index, char in enumerate(text):
        if char == "(":
            depth += 1
        elif char == ")":
            depth -= 1
        elif char == "," and depth == 0:
            args.append(text[start:index].strip())
            start = index + 1
    args.append(text[start:].strip())
    return args if any(args) else []
