"""A gather's lines at one cache level, its lines competing with the nest's streams in LRU.

A least-recently-used cache of ``C`` lines keeps a line as long as fewer than ``C`` other
distinct lines have been touched since its last use. Counted in visits of the gather (one
visit: one line its indices pick), the lines touched over ``u`` visits are the streams'
``sigma x u`` (``sigma``: the lines the nest's other arrays load per visit, each new) and
the gather's own distinct lines ``L x (1 - EXP(-u/L))`` (``L``: the lines of the range, each
visit a line drawn uniformly). The reach ``u`` of the cache solves

    sigma x u + L x (1 - EXP(-u/L)) = C

(Che's approximation of an LRU cache), ``C`` being what the nest's other working set leaves
of the level. A visit misses when its line was not visited in the last ``u`` visits:
``EXP(-u/L)``. The left side grows with ``u`` and bends down, so Newton's steps from
``u = 0`` rise to the root from below; five steps, each a cell, are written out, and ``u``
stops at the visits of one pass of the indices, ``V1`` (a pass that fits keeps its lines).
Over one pass of ``V1`` visits, from a cold cache, the first ``u`` visits miss only on new
lines and each later visit with the probability above:

    first pass = MIN(w, L x (1 - EXP(-w x c/L))) + MAX(0, V1 - u) x EXP(-u/L),  w = MIN(u, V1)

the new lines being those of the ``w x c`` elements the visits draw (``c``: ClusterElems,
the elements used per line fetched; with ``c = 1`` the expected distinct lines of ``w``
uniform draws), at most one per visit (sorted indices fetch each line once); and never
fewer than the new lines of the whole pass, ``MIN(V1, L x (1 - EXP(-V1 x c/L)))``.

and each further pass of the same indices (a loop around the gather that subscripts
nothing, a time loop's pass) misses ``V1 x EXP(-u/L)``, nothing when the pass fits.

An array read at the level of a loop around the gather's loop (a CSR row's ``rowptr(r)``,
in the bounds of the row's loop) is touched once per trip of that loop, the gather's
visits of a trip in between: its line stays only when the cache reaches back further than
those visits. Otherwise each touch takes its lines again, ``1 + span / elements per line``
(``rowptr(r)`` and ``rowptr(r+1)`` share a line but where they straddle one), twice for a
written array (:func:`row_level_arrays`, :func:`row_level_traffic`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from sat.ir import Loop
from sat.model import expr as E
from sat.model.context import ModelContext
from sat.model.exasat.iteration import trip_count
from sat.model.exasat.lines import elements_per_line
from sat.model.exasat.memory import GB, KIB, NestMemory


class GatherLines(Protocol):
    """What the LRU rule reads of a gather (:class:`~sat.model.irregular.gathers.GatherTraffic`)."""

    visits: E.Quantity  # line visits: references / ClusterElems
    range_lines: E.Quantity  # lines of the range the indices span
    passes: E.Expr  # passes over the same indices
    cluster: E.Expr  # elements used per line fetched

NEWTON_STEPS = 5


def reach_visits(left_lines: E.ExprLike | E.Quantity, sigma: E.ExprLike | E.Quantity,
                 range_lines: E.ExprLike | E.Quantity, pass_visits: E.ExprLike | E.Quantity,
                 key: tuple) -> E.Quantity:
    """The visits ``u`` an LRU cache of ``left_lines`` lines reaches back (Newton's steps on
    ``sigma*u + L*(1 - EXP(-u/L)) = C`` from ``u = 0``, at most ``pass_visits``)."""
    lines = E.maximum(1, range_lines)
    u: E.ExprLike | E.Quantity = 0
    for step in range(1, NEWTON_STEPS + 1):
        kept = E.func("EXP", E.div(E.mul(-1, u), lines))
        value = E.mul(sigma, u) + E.mul(lines, 1 - kept) - E.as_expr(left_lines)
        # the slope is at least sigma; a tiny floor keeps a range that all stays from
        # dividing by zero (its step then jumps to the pass's visits)
        slope = E.maximum(1e-12, E.as_expr(sigma) + kept)
        u = E.Quantity((*key, "reach", step), E.minimum(pass_visits, E.maximum(
            0, E.as_expr(u) - E.div(value, slope))), "visits",
            f"visits an LRU cache reaches back, Newton step {step}")
    assert isinstance(u, E.Quantity)
    return u


def lru_gather_lines(gather: GatherLines, left_kb: E.ExprLike | E.Quantity,
                     stream_lines: E.ExprLike | E.Quantity, ctx: ModelContext,
                     key: tuple) -> tuple[E.Expr, E.Quantity, E.Quantity]:
    """(the cache lines the gather moves over a level whose cache leaves it ``left_kb`` KiB
    beside ``stream_lines`` lines the nest's other arrays load, the miss fraction of a
    revisit, the visits the cache reaches back)."""
    visits = E.Ref(gather.visits)
    pass_visits = E.Quantity((*key, "pass_visits"), E.div(visits, E.maximum(1, gather.passes)),
                             "visits", "visits of one pass of the gather's indices")
    sigma = E.Quantity((*key, "stream_per_visit"), E.div(stream_lines, E.maximum(1, visits)),
                       "lines", "lines the other arrays load per visit of the gather")
    left_lines = E.div(E.mul(left_kb, KIB), ctx.param("LineBytes"))
    u = reach_visits(left_lines, sigma, gather.range_lines, pass_visits, key)
    lines = E.maximum(1, gather.range_lines)
    miss = E.Quantity((*key, "miss_fraction"), E.func("EXP", E.div(E.mul(-1, u), lines)), "",
                      "fraction of visits that miss (not visited within the cache's reach)")
    # the distinct lines of the visits within reach: drawn as elements, ClusterElems per
    # visit (sorted indices: each visit a new line, as many as the elements' lines)
    reached = E.minimum(u, pass_visits)
    distinct = E.minimum(reached, E.mul(lines, 1 - E.func("EXP", E.div(
        E.mul(-1, reached, gather.cluster), lines))))
    # never fewer than the distinct lines of the whole pass (sorted indices: the visits
    # beyond the reach are new lines, not revisits)
    whole = E.minimum(pass_visits, E.mul(lines, 1 - E.func("EXP", E.div(
        E.mul(-1, pass_visits, gather.cluster), lines))))
    first = E.maximum(whole, distinct + E.mul(E.maximum(0, E.Ref(pass_visits) - E.Ref(u)),
                                              miss))
    later = E.mul(E.maximum(0, E.as_expr(gather.passes) - 1), E.if_(
        E.compare("<", u, pass_visits), E.mul(pass_visits, miss), 0))
    return first + later, miss, u


@dataclass
class RowLevelArray:
    """An array touched once per trip of a loop around a gather's loop (``rowptr(r)``)."""

    key: str  # its key among the nest's arrays
    touches: E.Expr  # trips of its loop over the run
    between: E.Expr  # the gather's visits between two touches
    lines: E.Expr  # lines one touch takes: 1 + span / elements per line
    factor: int  # 2 when written (its line written back)


def row_level_arrays(chain: tuple[Loop, ...], visits: E.Quantity, memory: NestMemory,
                     ctx: ModelContext) -> list[RowLevelArray]:
    """The arrays read or written in the bodies of the loops around the gather's loop (not
    inside it), each with its touches and the gather's visits between two of them."""
    found: list[RowLevelArray] = []
    for depth, loop in enumerate(chain[:-1]):
        touches = E.mul(*[trip_count(lp, ctx) for lp in chain[:depth + 1]])
        for array in loop.arrays:
            model = next((a for a in memory.arrays
                          if a.key.split(".", 1)[0].lower() == array.name.lower()), None)
            if model is None or any(r.key == model.key for r in found):
                continue
            offsets = [int(off) for access in array.accesses
                       for var, off in zip(access.loopvars, access.offsets, strict=False)
                       if var and var.lower() == loop.loopvar.lower() and isinstance(off, int)]
            span = max(offsets) - min(offsets) if offsets else 0
            found.append(RowLevelArray(
                model.key, touches, E.div(E.Ref(visits), E.maximum(1, touches)),
                E.add(1, E.div(span, elements_per_line(ctx, model.size))),
                1 if model.kind == "R" else 2))
    return found


def row_level_traffic(row: RowLevelArray, reach: E.Quantity, stream_gb: E.Expr,
                      ctx: ModelContext) -> E.Expr:
    """The change (GB) to a row-level array's traffic at a level whose cache reaches back
    ``reach`` visits: its lines at every touch in place of its stream count ``stream_gb``
    when the gather's visits between two touches push its line out."""
    again = E.mul(row.touches, row.lines, row.factor, ctx.param("LineBytes")) / GB
    return E.if_(E.compare("<", reach, row.between), E.maximum(0, again - stream_gb), 0)
