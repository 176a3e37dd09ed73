"""Tiles written in the source: a tile loop and its element loop read as one loop in blocks.

``do jt = lo, n, ts`` around ``do j = jt, min(n, jt+ts-1)`` (in C ``for (jt = lo; jt < n;
jt += ts)`` around ``for (j = jt; j < MIN(n, jt+ts); j++)``) runs ``j`` over ``lo .. n``
exactly once, in blocks of ``ts``.  :func:`mark_tiles` writes that into the IR: the element
loop gets the tile loop's range and ``tile = ts`` (the source's own block size along its
axis), and the tile loop becomes ``kind="tile"``, a loop whose iterations its element loops
already count.  Bounds are compared as linear forms of their text, so both front ends (and
code descriptions) share this one reading.
"""

from __future__ import annotations

import ast
import functools
import re

from sat import ir
from sat.parameter import MEMBER_SELECTOR, SELECTED_NAME
from sat.regex import LazyPattern

# A name with its subscripts and members (``n``, ``hi(1)``, ``s->b[k].n``, ``g%n``): one term.
_TERM = re.compile(rf"{SELECTED_NAME}(?:{MEMBER_SELECTOR}{SELECTED_NAME})*")
_MIN = LazyPattern(r"^\s*min\s*\(", re.I)
_OFFSET = LazyPattern(r"^\s*([+-])\s*(\d+)\s*$")

Linear = dict[str, int]  # name -> coefficient, "" -> constant; no zero entries


def _linear(text: str) -> Linear | None:
    """``text`` as a linear form with integer coefficients, or None when it is not one (a
    copy of the form worked out once per text: the model reads the same bounds and offsets
    for every nest and pattern, and a caller may change the form it gets)."""
    form = _cached_linear(text)
    return None if form is None else dict(form)


@functools.lru_cache(maxsize=4096)
def _cached_linear(text: str) -> Linear | None:
    """:func:`_linear` without the memo."""
    names: dict[str, str] = {}

    def term(match: re.Match[str]) -> str:
        key = re.sub(r"\s+", "", match.group(0)).lower()
        return names.setdefault(key, f"_t{len(names)}")

    try:
        tree = ast.parse(_TERM.sub(term, text), mode="eval").body
    except SyntaxError:
        return None
    form = _form(tree)
    if form is None:
        return None
    # keyed by the terms' own text, so that forms of different bounds compare
    texts = {placeholder: key for key, placeholder in names.items()}
    return {texts.get(name, name): coeff for name, coeff in form.items()}


def linear_form(text: str) -> Linear | None:
    """``text`` as a linear form with integer coefficients, keyed by each term's text in lower
    case (``""``: the constant), or None when it is not one."""
    return _linear(text)


def _form(node: ast.AST) -> Linear | None:
    if isinstance(node, ast.Constant) and type(node.value) is int:
        return {"": node.value} if node.value else {}
    if isinstance(node, ast.Name):
        return {node.id: 1}
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        inner = _form(node.operand)
        return None if inner is None else _scale(inner, -1 if isinstance(node.op, ast.USub)
                                                 else 1)
    if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Sub, ast.Mult)):
        left, right = _form(node.left), _form(node.right)
        if left is None or right is None:
            return None
        if isinstance(node.op, ast.Mult):
            if set(left) <= {""}:
                return _scale(right, left.get("", 0))
            if set(right) <= {""}:
                return _scale(left, right.get("", 0))
            return None
        return _add(left, _scale(right, -1) if isinstance(node.op, ast.Sub) else right)
    return None


def _scale(form: Linear, factor: int) -> Linear:
    return {k: v * factor for k, v in form.items() if v * factor}


def _add(a: Linear, b: Linear) -> Linear:
    out = dict(a)
    for k, v in b.items():
        out[k] = out.get(k, 0) + v
    return {k: v for k, v in out.items() if v}


def _min_arguments(text: str) -> tuple[list[str], int] | None:
    """``min(a, b) + c`` -> ``([a, b], c)``; None for any other form."""
    match = _MIN.match(text)
    if match is None:
        return None
    depth, args, start = 1, [], match.end()
    for index in range(match.end(), len(text)):
        char = text[index]
        if char in "([":
            depth += 1
        elif char in ")]":
            depth -= 1
            if depth == 0:
                args.append(text[start:index])
                rest = text[index + 1:]
                break
        elif char == "," and depth == 1:
            args.append(text[start:index])
            start = index + 1
    else:
        return None
    if not rest.strip():
        return args, 0
    offset = _OFFSET.match(rest)
    if offset is None:
        return None
    return args, int(offset.group(2)) * (1 if offset.group(1) == "+" else -1)


def _same(a: str, b: str) -> bool:
    return re.sub(r"\s+", "", a).lower() == re.sub(r"\s+", "", b).lower()


def _unit(stride: str) -> bool:
    return stride.strip() in ("", "1")


def _element_of(tile: ir.Loop, element: ir.Loop) -> bool:
    """Whether ``element`` runs ``tile.loopvar .. min(tile.upper, tile.loopvar + step - 1)``."""
    if not _unit(element.stride) or not _same(element.lower, tile.loopvar):
        return False
    parts = _min_arguments(element.upper)
    if parts is None or len(parts[0]) != 2:
        return False
    args, offset = parts
    found = [_linear(f"({arg}) + ({offset})") for arg in args]
    wanted = [_linear(tile.upper), _linear(f"({tile.loopvar}) + ({tile.stride}) - 1")]
    return None not in found and None not in wanted and (
        found == wanted or found == wanted[::-1])


def _uses_in_subscripts(loop: ir.Loop, var: str) -> bool:
    var = var.lower()
    return any(var in (v.lower() for v in access.loopvars)
               for body in (loop, *loop.all_loops()) for array in body.arrays
               for access in array.accesses)


def mark_tiles(procedure: ir.Procedure) -> int:
    """Rewrite every tile loop of ``procedure`` and its element loops (see the module);
    returns how many element loops were rewritten."""
    rewritten = 0
    for tile in list(procedure.all_loops()):
        stride = tile.stride.strip()
        if (tile.kind != "do" or not tile.loopvar or _unit(stride) or stride.startswith("-")
                or _uses_in_subscripts(tile, tile.loopvar)):
            continue
        elements = [lp for lp in tile.all_loops() if _element_of(tile, lp)]
        mentions = re.compile(rf"\b{re.escape(tile.loopvar)}\b", re.I)
        if any(mentions.search(f"{lp.lower} {lp.upper} {lp.stride}") for lp in tile.all_loops()
               if all(lp is not element for element in elements)):
            continue  # another loop's range depends on the tile: not a plain tile
        for element in elements:
            element.lower, element.upper, element.tile = tile.lower, tile.upper, stride
        if elements:
            tile.kind = "tile"
            rewritten += len(elements)
    return rewritten
