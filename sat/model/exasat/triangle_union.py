"""Distinct elements of a triangle (or trapezoid) read at several offsets: the union of shifted
copies of a nest's iteration space, exactly.

A nest whose ranges move with its outer loops (``do i = 3, 12; do j = i, 12; do k = i, 12``)
iterates over a polytope ``D`` bounded by affine inequalities; a reference at offset ``o``
touches ``D + o``. Shifting ``D`` moves only the constants of its inequalities: a bound
``j >= i`` of the copy shifted by ``(ox, oy, oz)`` reads ``j >= i + oy - oz``. So the
intersection of several copies is again a nest of the same loops, each bound the tightest
of the shifted ones (the largest constant of a lower bound, the smallest of an upper), and
its points are an exact nested sum (:func:`sat.model.sums.summed_executions`: Faulhaber sums
over the bounds' own expressions). The union of the copies follows by inclusion and
exclusion over the sets of offsets:

    |D+o1 ∪ … ∪ D+om| = Σ over non-empty sets S of offsets of (-1)^(|S|+1) |∩_{o∈S} D+o|

Sets whose intersections have the same bounds are counted once, with their signs summed, so
a stencil of a few offsets costs a few sums. Only where the source's bounds make a triangle
(an axis loop's range moves with another axis loop's variable), every axis loop steps by 1
(up or down), and no other loop's variable bounds them but a repetition's, taken where its
ranges are widest; a tile loop counts its element loop's whole range. A rectangular nest
keeps the stencil's union. Where a copy's range empties for some problem sizes, the sums
clip it with ``MIN`` and ``MAX`` of the sizes (:func:`sat.model.sums._clipped_live`).
"""

from __future__ import annotations

import dataclasses
import itertools
import re
from collections.abc import Sequence

from sat.frontend.tiles import linear_form
from sat.ir import Loop
from sat.model import expr as E
from sat.model.context import ModelContext
from sat.model.exasat.compulsory import widest_ranges
from sat.model.exasat.iteration import NestShape, trip_count
from sat.model.sums import summed_executions

Point = tuple[int, int, int]
# at most this many distinct offsets: 2**m - 1 sets of them
MAX_OFFSETS = 8


def triangle_path(nest: Loop, axis_loops: Sequence[Sequence[Loop]],
                  widest: Sequence[Sequence[Loop]] | None = None) -> list[tuple[Loop, int]]:
    """The nest's axis loops outermost first, each with its axis, when they form a triangle
    this module counts (see the module); empty otherwise. ``widest``: the axis loops with
    the ranges a repetition around them sweeps at their widest
    (:func:`sat.model.exasat.compulsory.widest_ranges`), taken in their place."""
    if any(len(loops) > 1 for loops in axis_loops):
        return []
    path = _path_to_innermost(nest, {id(lp[0]): a for a, lp in enumerate(axis_loops) if lp})
    if not path:
        return []
    if widest is not None:
        path = [(widest[a][0], a) for _, a in path]
    names = {lp.loopvar.lower() for lp in (nest, *nest.all_loops()) if lp.loopvar}
    axis_vars = {lp.loopvar.lower() for lp, _ in path}
    moving = False
    for lp, _ in path:
        if lp.kind == "tile" or lp.stride.strip() not in ("", "1", "-1"):
            return []
        bounds = f"{lp.lower} {lp.upper}"
        used = {v for v in names if re.search(rf"\b{re.escape(v)}\b", bounds, re.I)}
        if used - axis_vars or any(linear_form(str(b)) is None for b in (lp.lower, lp.upper)):
            return []
        moving = moving or bool(used)
    return path if moving else []


def _path_to_innermost(nest: Loop, axes: dict[int, int]) -> list[tuple[Loop, int]]:
    """The axis loops (ids in ``axes``) on the one chain of loops below ``nest``, or empty
    when they branch or another loop sits between them."""
    path: list[tuple[Loop, int]] = []
    body: Loop | None = nest
    while body is not None:
        if id(body) in axes:
            path.append((body, axes[id(body)]))
        elif path and body.kind != "tile":  # a tile loop: its element loop holds the range
            return []
        inner = list(body.loops)
        if len(inner) > 1 or any(next(branch.all_loops(), None) for branch in body.branches):
            return path if len(path) == len(axes) and not inner else []
        body = inner[0] if inner else None
    return path if len(path) == len(axes) else []


def _shift(bound: str, axis: int, offset: Point, path: Sequence[tuple[Loop, int]]) -> int:
    """The constant a copy shifted by ``offset`` adds to ``bound`` of the loop of ``axis``:
    ``o_axis`` less each outer axis variable's coefficient times its axis's offset."""
    form = linear_form(bound) or {}
    coefficients = {name.lower(): c for name, c in form.items() if name}
    return offset[axis] - sum(coefficients.get(lp.loopvar.lower(), 0) * offset[a]
                              for lp, a in path)


def triangle_union(shape: NestShape, offsets: frozenset[Point], new_sweeps: Sequence[int],
                   ctx: ModelContext) -> E.Expr | None:
    """Distinct elements of the nest's iteration space shifted by every one of ``offsets``
    (see the module), or None when the nest is no triangle this counts, or a sum is not
    affine. A sweep that repeats the pattern (not in ``new_sweeps``) and moves one end of
    the ranges (``do i = 1, 3; do j = i + 4, 28``) repeats nested triangles: the widest."""
    points = sorted(offsets)
    if not 1 < len(points) <= MAX_OFFSETS:
        return None
    repeated = [n for n in range(len(shape.sweep_loops)) if n not in new_sweeps]
    widest = widest_ranges(shape.axis_loops, shape.sweep_loops, repeated) if repeated else None
    path = triangle_path(shape.loop, shape.axis_loops, widest)
    stepped = {a for _, a in path}
    if not path or any(len({p[a] for p in points}) > 1 for a in range(3) if a not in stepped):
        return None
    ends = [(lp.upper, lp.lower) if lp.stride.strip() == "-1" else (lp.lower, lp.upper)
            for lp, _ in path]  # each loop's smallest and largest value
    shifts = [[(_shift(low, a, p, path), _shift(high, a, p, path))
               for (_, a), (low, high) in zip(path, ends, strict=True)] for p in points]
    signs: dict[tuple[tuple[int, int], ...], int] = {}
    for size in range(1, len(points) + 1):
        for chosen in itertools.combinations(range(len(points)), size):
            key = tuple((max(shifts[n][d][0] for n in chosen),
                         min(shifts[n][d][1] for n in chosen)) for d in range(len(path)))
            signs[key] = signs.get(key, 0) + (1 if size % 2 else -1)
    terms = []
    for key, sign in sorted(signs.items()):
        if not sign:
            continue
        count = summed_executions(tuple(_narrowed(lp, low, high) for (lp, _), (low, high)
                                 in zip(path, key, strict=True)), ctx,
                                  lambda lp: trip_count(lp, ctx))
        if count is None:
            return None
        terms.append(E.mul(sign, count))
    return E.add(*terms)


def _narrowed(loop: Loop, low: int, high: int) -> Loop:
    """``loop`` with ``low`` added to its smallest value's bound and ``high`` to its largest
    (a descending loop's first bound is its largest), alone."""
    if loop.stride.strip() == "-1":
        low, high = high, low
    return dataclasses.replace(loop, lower=_plus(loop.lower, low), upper=_plus(loop.upper, high),
                               loops=[], arrays=[], branches=[])


def _plus(bound: str, constant: int) -> str:
    return bound if not constant else f"({bound}) + ({constant})"
