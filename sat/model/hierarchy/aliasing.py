"""Cache-set aliasing: rows a nest reuses that fall into too few sets of a cache level.

Layer conditions take caches as fully associative.  A set-associative cache maps a line to
set ``(address / LineBytes) mod sets``, so rows of an array whose leading dimension is a
multiple of a large power of two (1024 doubles, say) land in the same few sets: when a nest
relies on keeping more of those rows than a set has ways, they evict each other and the reuse
the layer condition promised is lost.  This module finds such cases once the parameters are
known and says which padding of the leading dimension avoids them.

The check is deliberately simple: for reuse between pencils (the condition that keeps whole
rows), the rows one array keeps are one leading dimension apart; arrays of the nest with the
same leading dimension are taken to be aligned alike (the worst case, and the usual one for
arrays of equal power-of-two size); a set may hold ``ways`` of the rows.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from sat.ir import Procedure
from sat.model import expr as E
from sat.model.context import ExpressionError, ModelContext
from sat.model.exasat.iteration import NestShape, pattern_bytes

PENCILS = 2  # the layer-condition code of reuse between pencils (1, planes, keeps rows too)
MAX_PAD_LINES = 16  # padding suggestions are searched up to this many cache lines


@dataclass
class AliasCheck:
    """What the check needs of one nest at one cache level."""

    procedure: str
    file: str
    line: int
    level: str
    ways: int
    sets: int
    condition: E.Quantity  # the layer condition that holds at the level
    # (array, rows kept, leading dimension and row length used in elements, element bytes)
    rows: list[tuple[str, int, E.Expr, E.Expr, E.Expr]]


def _leading_extent(procedure: Procedure, array: str, ctx: ModelContext) -> E.Expr | None:
    """Declared extent (elements) of the unit-stride dimension of ``array``, if known."""
    variables = {v.name.lower(): v for v in (*procedure.nonlocals, *procedure.locals)}
    variable = variables.get(array.lower())
    if variable is None or len(variable.shape) < 2:
        return None
    text = variable.shape[-1 if procedure.layout == "row-major" else 0].strip()
    if text in ("", ":", "*") or text.endswith((":", "*")):
        return None
    try:
        if ":" in text:
            lower, upper = text.split(":", 1)
            return ctx.expr(upper, "upper") - ctx.expr(lower, "lower") + 1
        return ctx.expr(text, "upper")
    except ExpressionError:
        return None


def nest_checks(shape: NestShape, row_length: E.Expr, ctx: ModelContext,
                levels: list[tuple[str, int, int]],
                conditions: dict[str, E.Quantity]) -> list[AliasCheck]:
    """The checks of one nest: one per level ``(name, ways, sets)`` whose geometry is known;
    ``row_length`` is the elements of a row one block uses (block X in whole lines)."""
    rows = []
    for pattern in shape.patterns:
        kept = sum(len(set(y for _, y, z in pattern.offsets if z == plane)) > 1
                   for plane in {z for _, _, z in pattern.offsets})
        if not kept:
            continue
        extent = _leading_extent(shape.procedure, pattern.key.split(".")[0], ctx)
        if extent is not None:
            span = {y for _, y, _ in pattern.offsets}
            rows.append((pattern.key, max(span) - min(span) + 1, extent, row_length,
                         pattern_bytes(ctx, shape, pattern)))
    if not rows:
        return []
    return [AliasCheck(shape.procedure.name, shape.file, shape.loop.line, name, ways, sets,
                       conditions[name], rows) for name, ways, sets in levels]


def _pressure(stride_lines: float, length_lines: int, rows: int, sets: int) -> int:
    """Most rows sharing one set: ``rows`` rows of ``length_lines`` lines each, starting
    ``stride_lines`` apart (the lines of a row fill consecutive sets)."""
    stride = int(stride_lines)  # a fractional stride shifts rows by less than a line
    counts = [0] * sets
    for m in range(rows):
        start = m * stride % sets
        for k in range(min(length_lines, sets)):
            counts[(start + k) % sets] += 1
    return max(counts)


def aliasing_warnings(checks: list[AliasCheck], env: E.Env,
                      line_bytes: float) -> list[tuple[str, str, int]]:
    """(message, file, line) for each nest and level where the rows kept thrash."""
    found = []
    for check in checks:
        if check.condition.value(env) > PENCILS:
            continue
        groups: dict[float, list[tuple[str, int, float, int]]] = {}
        for array, kept, extent, length, word in check.rows:
            elements, size = extent.evaluate(env), word.evaluate(env)
            lines = math.ceil(length.evaluate(env) * size / line_bytes)
            if elements > 0 and size > 0 and lines > 0:
                groups.setdefault(elements * size, []).append((array, kept, elements, lines))

        def pressure(stride_bytes: float, arrays: list[tuple[str, int, float, int]],
                     sets: int = check.sets) -> int:
            # arrays of one leading dimension taken as aligned alike: their rows add up
            return sum(_pressure(stride_bytes / line_bytes, lines, kept, sets)
                       for _, kept, _, lines in arrays)

        for stride, arrays in groups.items():
            if pressure(stride, arrays) <= check.ways:
                continue
            elements = arrays[0][2]
            size = stride / elements
            per_line = max(1, int(line_bytes // size))
            pad = next((p * per_line for p in range(1, MAX_PAD_LINES + 1)
                        if pressure((elements + p * per_line) * size, arrays) <= check.ways),
                       None)
            advice = (f"padding the leading dimension by {pad} elements (to {elements + pad:g}) "
                      "spreads them" if pad else "pad the leading dimension to spread them")
            names = ", ".join(a for a, _, _, _ in arrays)
            found.append((f"{check.procedure}: at {check.level} ({check.ways}-way, "
                          f"{check.sets} sets) the rows of {names} that reuse between pencils "
                          f"keeps are {stride:g} B apart: up to {pressure(stride, arrays)} of "
                          f"them share a cache set and evict each other, which the layer "
                          f"condition does not predict; {advice}", check.file, check.line))
    return found


def geometry(ways: int | None, sets: int | None) -> tuple[int, int] | None:
    """(ways, sets) of a level when the machine file gives them (checked positive whole
    numbers there)."""
    return (int(ways), int(sets)) if ways and sets else None
