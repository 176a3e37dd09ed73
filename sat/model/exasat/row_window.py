"""Rows walked across with offsets along the walk: the lines the last few rows left behind.

A nest whose X loop (the unit-stride axis) encloses a loop of Y (``do i; do j; a(i, j-1) +
a(i, j) + a(i, j+1)``) touches one cache line per reference and iteration once one step of
X does not fit in a cache (the sweep condition of :mod:`sat.model.exasat.memory`). The
references that differ only in their Y offset are the same lines at a few iterations'
distance: ``a(i, j-1)`` is the line ``a(i, j)`` touched at the previous iteration. While the
lines of the iterations between two uses of a row fit (the *row window*: every reference's
line in each of them; one iteration for offsets ``j-1, j, j+1``, four for ``j-2, j+2``),
each such reference finds its line still there, and an array moves one line per iteration
and plane (Z offset) instead of one per pencil.

Only for a nest whose loops inside X are of Y alone, for arrays stepping along X and Y with
their unit stride on X (stride 1) and Y offsets that differ; any other nest keeps the sweep
condition as it was.
"""

from __future__ import annotations

from collections.abc import Callable

from sat.model import expr as E
from sat.model.context import ModelContext

KIB = 1024


def window_span(shape, pattern) -> int:
    """The Y offsets' span of a pattern whose lines a row window reuses (0: none)."""
    if shape.inside_x != frozenset({1}) or pattern.unit != "x" or pattern.stride != 1 \
            or pattern.invariant & {0, 1} or pattern.step_rows != 1 or pattern.x_step != 1:
        return 0
    ys = [y for _, y, _ in pattern.offsets]
    return max(ys) - min(ys)


def window_traffic(planes: int, per_line: E.Expr, unit: E.Expr, ghi: E.Expr) -> E.Expr:
    """Traffic (GB per sweep) of such a pattern while the row window fits: a line per
    iteration and plane (``planes``: its distinct Z offsets)."""
    return E.mul(planes, per_line, unit, ghi)


def row_gap(offsets) -> int:
    """The most iterations of Y between two uses of one row: the largest gap between the
    pattern's consecutive Y offsets (1 for ``j-1, j, j+1``: a row serves three iterations
    in a row)."""
    ys = sorted({y for _, y, _ in offsets})
    return max((b - a for a, b in zip(ys, ys[1:], strict=False)), default=0)


def add_row_window(arrays: list, gaps: dict[str, int], sweeps: E.Expr, ctx: ModelContext,
                   nest_q: Callable[[str, E.Expr, str, str], E.Quantity]) -> None:
    """The nest's row window (``ws_window_kb``: the lines of the iterations between two uses
    of a row, every reference's line in each) and its traffic while that fits
    (``traffic_window_gb``), when some array's Y offsets differ (``gaps``: the arrays with a
    ``traffic_window_gb``, by key); nothing otherwise."""
    gap = max(gaps.values(), default=0)
    if gap == 0:
        return
    lines = E.add(*[E.mul(a.counts.pencils, a.copies) for a in arrays])
    nest_q("ws_window_kb", E.mul(gap, lines, ctx.param("LineBytes")) / KIB, "KiB",
           "lines of the iterations of Y between two uses of a row")
    nest_q("traffic_window_gb", E.mul(sweeps, E.add(*[
        a.q["traffic_window_gb" if a.key in gaps else "traffic_strided_gb"]
        for a in arrays])), "GB", "traffic when one step of X does not fit but the last "
           "rows' lines do")


def strided_traffic(q: dict[str, E.Quantity], capacity: E.ExprLike
                    ) -> E.Expr | E.Quantity:
    """The nest's traffic when one step of X does not fit in ``capacity``: with a row
    window, its traffic while the window fits, the strided traffic otherwise."""
    if "ws_window_kb" not in q:
        return q["traffic_strided_gb"]
    return E.if_(E.compare("<", q["ws_window_kb"], capacity), q["traffic_window_gb"],
                 q["traffic_strided_gb"])


def arrays_strided(q: dict[str, E.Quantity], arrays: list, sweeps: E.Expr) -> E.Expr:
    """The strided traffic of some of a nest's arrays, at CacheKB, with the row window."""
    strided = E.mul(sweeps, E.add(*[a.q["traffic_strided_gb"] for a in arrays]))
    if "ws_window_kb" not in q:
        return strided
    window = E.mul(sweeps, E.add(*[a.q.get("traffic_window_gb", a.q["traffic_strided_gb"])
                                   for a in arrays]))
    return E.if_(E.compare("<", q["ws_window_kb"], E.Param("CacheKB")), window, strided)
