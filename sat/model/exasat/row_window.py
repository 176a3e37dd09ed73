"""Rows walked across with offsets along the walk: the lines the last few rows left behind.

A nest whose X loop (the unit-stride axis) encloses a loop of Y (``do i; do j; a(i, j-1) +
a(i, j) + a(i, j+1)``) touches one cache line per reference and iteration once one step of
X does not fit in a cache (the sweep condition of :mod:`sat.model.exasat.memory`). The
references that differ only in their Y offset are the same lines at a few iterations'
distance: ``a(i, j-1)`` is the line ``a(i, j)`` touched at the previous iteration. Each
such reference finds its line still there while the lines of the iterations since that
touch fit (its *row window*: every array's distinct lines over those iterations; one
iteration for offsets ``j-1, j, j+1``; for ``j-3, j-1, j`` one iteration for ``j-1`` and
two for ``j-3``, rows ``j-4 .. j`` of the array). With every window in the cache an array
moves one line per iteration and plane (Z offset) instead of one per pencil; with some, the
references whose windows fit save their lines, the others move theirs (an LRU cache at the
edge keeps the recent rows, not all or none).

The walk is the loop innermost inside X's: of Y (rows) or of Z (planes, whose lines a walk
along Z reuses in the same way). Only for arrays stepping along X and the walk with their
unit stride on X (stride 1) and offsets along the walk that differ; any other nest keeps
the sweep condition as it was. A reference inside an ``if``/``else`` arm reuses the line
only when it and the reference before it both run (the product of their chances,
:mod:`sat.model.exasat.arm_lines`).
"""

from __future__ import annotations

from collections.abc import Callable

from sat.model import expr as E
from sat.model.context import ModelContext
from sat.model.exasat.arm_lines import pencil_chances
from sat.model.exasat.lines import elements_per_line

KIB = 1024


def walk_axis(shape) -> int:
    """The axis (1 Y, 2 Z) whose loop is innermost inside the X loop when the X loop encloses
    loops of Y or Z: the walk across rows (Y) or planes (Z); 0 for any other nest."""
    inside = shape.inside_x
    if inside in (frozenset({1}), frozenset({2})):
        return min(inside)
    if inside != frozenset({1, 2}) or not shape.axis_loops[1] or not shape.axis_loops[2]:
        return 0
    z_loops = {id(lp) for y_loop in shape.axis_loops[1] for lp in y_loop.all_loops()}
    return 2 if all(id(lp) in z_loops for lp in shape.axis_loops[2]) else 1


def window_span(shape, pattern) -> int:
    """The span of the offsets along the walk (:func:`walk_axis`) of a pattern whose lines a
    row window reuses (0: none)."""
    walk = walk_axis(shape)
    if not walk or pattern.unit != "x" or pattern.stride != 1 \
            or pattern.invariant & {0, walk} or pattern.step_rows != 1 or pattern.x_step != 1:
        return 0
    along = [point[walk] for point in pattern.offsets]
    return max(along) - min(along)


def reference_pairs(chances: dict[tuple[int, int], float], walk: int = 1
                    ) -> dict[int, float]:
    """Per number of iterations ``g`` of the walk's loop (``walk``: 1 Y, 2 Z), the expected
    references per iteration that find their line touched ``g`` iterations before. Among
    the pencils of one row of the other axis (one Z plane for a walk along Y) sorted by
    their offset along the walk, each but the highest finds the line the next one up
    touched (``j-3, j-1, j``: one after 1 iteration, one after 2; ``j`` itself brings the
    new line), when both run: the product of their chances (``chances``: each (Y, Z)
    pencil's, :func:`sat.model.exasat.arm_lines.pencil_chances`)."""
    other = 3 - walk
    found: dict[int, float] = {}
    for row in {pencil[other - 1] for pencil in chances}:
        steps = sorted((pencil[walk - 1], chance) for pencil, chance in chances.items()
                       if pencil[other - 1] == row)
        for (low, low_chance), (high, high_chance) in zip(steps, steps[1:], strict=False):
            found[high - low] = found.get(high - low, 0.0) + low_chance * high_chance
    return found


def window_reuse(prefix: tuple, shape, space, pattern, strided: E.Quantity,
                 ctx: ModelContext) -> dict[str, E.Quantity]:
    """Per gap ``g`` (:func:`reference_pairs`), the traffic per sweep the pattern's
    references that reuse a line after ``g`` iterations save while the lines of ``g``
    iterations stay (``window_reuse_<g>_gb``): their share of its strided traffic (a line
    per pencil touched and iteration), on the iterations of each walk past its first ``g``
    (``MAX(0, B - g) / B`` of them, B the walk's block: before, the row was last touched by
    the previous walk, long gone)."""
    chances = pencil_chances(pattern, ctx, shape.procedure.file)
    touched = sum(chances.values())
    walk = E.Ref(space.block[walk_axis(shape)])
    return {f"window_reuse_{g}_gb": E.Quantity(
        (*prefix, f"window_reuse_{g}_gb"), E.mul(E.div(saved, touched), E.Ref(strided), E.div(
            E.maximum(0, E.add(walk, -g)), E.maximum(1, walk))), "GB",
        f"traffic per sweep of the references reusing a row's line after {g} iterations")
        for g, saved in sorted(reference_pairs(chances, walk_axis(shape)).items())
        if touched > 0 and saved > 0}


def window_lines(array, offsets: frozenset | None, gap: int, walk: int,
                 ctx: ModelContext) -> E.Expr:
    """Lines ``array`` touches over ``gap`` iterations of the walk (per copy): the union of
    its pencils shifted along the walk by 0 .. gap - 1 rows (``a(i,j)``, ``a(i,j-1)``,
    ``a(i,j-3)`` over 2 iterations: rows j-4 .. j, 5 lines, not 2 x 3), a row whose X
    offsets span ``s`` elements ``1 + s / P`` lines (a window of X offsets crosses into the
    next line at ``s`` of every ``P`` positions, ``P`` elements a line); one line per pencil
    for an array invariant along the walk (its line stays), its pencils times ``gap`` for
    one without offsets given."""
    if walk in array.invariant:
        return E.Num(array.counts.pencils)
    if offsets is None:
        return E.Num(array.counts.pencils * gap)
    spans: dict[tuple[int, int], list[int]] = {}
    for x, *pencil in offsets:
        spans.setdefault(tuple(pencil), []).append(x)
    rows: dict[tuple[int, ...], int] = {}
    for pencil, xs in spans.items():
        for t in range(gap):
            row = tuple(v + t if a == walk else v for a, v in enumerate(pencil, 1))
            rows[row] = max(rows.get(row, 0), max(xs) - min(xs))
    crossing = sum(rows.values())
    return E.Num(len(rows)) if not crossing else \
        E.add(len(rows), E.div(crossing, elements_per_line(ctx, array.size)))


def _gaps(arrays: list) -> list[int]:
    """The gaps after which some array's references reuse a line, ascending."""
    return sorted({int(name.split("_")[2]) for a in arrays for name in a.q
                   if name.startswith("window_reuse_")})


def add_row_window(shape, arrays: list, offsets: dict[str, frozenset], sweeps: E.Expr,
                   ctx: ModelContext,
                   nest_q: Callable[[str, E.Expr, str, str], E.Quantity]) -> None:
    """Per gap ``g`` after which some reference reuses a row's line, the lines of ``g``
    iterations (``ws_window_<g>_kb``, every array's distinct lines over them:
    :func:`window_lines`; ``ws_window_kb`` for the largest gap) and what those references
    save while that fits (``window_reuse_<g>_gb``), and the traffic with every window in the
    cache (``traffic_window_gb``); nothing when no array's offsets along the walk differ
    (``offsets``: the offsets of the arrays walked across with offsets along the walk)."""
    gaps = _gaps(arrays)
    saved = []
    for gap in gaps:
        # the reused line itself takes no room among the lines touched since its last use
        lines = E.add(*[E.mul(window_lines(a, offsets.get(a.key), gap, walk_axis(shape), ctx),
                              a.copies) for a in arrays], -1)
        nest_q("ws_window_kb" if gap == gaps[-1] else f"ws_window_{gap}_kb",
               E.mul(lines, ctx.param("LineBytes")) / KIB, "KiB",
               f"lines of {gap} iterations of the walk, other than a reused row's")
        saved.append(nest_q(f"window_reuse_{gap}_gb", E.mul(sweeps, E.add(*[
            a.q[f"window_reuse_{gap}_gb"] for a in arrays if f"window_reuse_{gap}_gb" in a.q])),
            "GB", f"traffic the references reusing a row's line after {gap} iterations save"))
    if gaps:  # every row window in the cache
        nest_q("traffic_window_gb", E.add(E.mul(sweeps, E.add(*[
            a.q["traffic_strided_gb"] for a in arrays])), *[E.mul(-1, s) for s in saved]), "GB",
            "traffic when one step of X does not fit but every row window does")


def _window_fits(q: dict[str, E.Quantity], gap: int, last: int, capacity: E.ExprLike
                 ) -> E.Expr:
    return E.compare("<", q["ws_window_kb" if gap == last else f"ws_window_{gap}_kb"],
                     capacity)


def strided_traffic(q: dict[str, E.Quantity], capacity: E.ExprLike
                    ) -> E.Expr | E.Quantity:
    """The nest's traffic when one step of X does not fit in ``capacity``: the strided
    traffic less, for each gap whose row window fits, what the references reusing a line
    after that many iterations save."""
    if "ws_window_kb" not in q:
        return q["traffic_strided_gb"]
    gaps = sorted(int(name.split("_")[2]) for name in q if name.startswith("window_reuse_"))
    return E.add(q["traffic_strided_gb"], *[
        E.if_(_window_fits(q, gap, gaps[-1], capacity), E.mul(-1, q[f"window_reuse_{gap}_gb"]),
              0) for gap in gaps])


def arrays_strided(q: dict[str, E.Quantity], arrays: list, sweeps: E.Expr) -> E.Expr:
    """The strided traffic of some of a nest's arrays, at CacheKB, with the row windows."""
    strided = E.mul(sweeps, E.add(*[a.q["traffic_strided_gb"] for a in arrays]))
    if "ws_window_kb" not in q:
        return strided
    gaps = sorted(int(name.split("_")[2]) for name in q if name.startswith("window_reuse_"))
    saved = [E.if_(_window_fits(q, gap, gaps[-1], E.Param("CacheKB")), E.mul(-1, sweeps, E.add(
        *[a.q[f"window_reuse_{gap}_gb"] for a in arrays if f"window_reuse_{gap}_gb" in a.q])), 0)
        for gap in gaps if any(f"window_reuse_{gap}_gb" in a.q for a in arrays)]
    return E.add(strided, *saved)
