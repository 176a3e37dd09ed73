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

    first pass = L x (1 - EXP(-MIN(u, V1)/L)) + MAX(0, V1 - u) x EXP(-u/L)

and each further pass of the same indices (a loop around the gather that subscripts
nothing, a time loop's pass) misses ``V1 x EXP(-u/L)``, nothing when the pass fits.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from sat.model import expr as E
from sat.model.context import ModelContext
from sat.model.exasat.memory import KIB

if TYPE_CHECKING:
    from sat.model.irregular.gathers import GatherTraffic

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


def lru_gather_lines(gather: GatherTraffic, left_kb: E.ExprLike | E.Quantity,
                     stream_lines: E.ExprLike | E.Quantity, ctx: ModelContext,
                     key: tuple) -> tuple[E.Expr, E.Quantity]:
    """(the cache lines the gather moves over a level whose cache leaves it ``left_kb`` KiB
    beside ``stream_lines`` lines the nest's other arrays load, the miss fraction of a
    revisit)."""
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
    first = E.mul(lines, 1 - E.func("EXP", E.div(E.mul(-1, E.minimum(u, pass_visits)),
                                                   lines))) + \
        E.mul(E.maximum(0, E.Ref(pass_visits) - E.Ref(u)), miss)
    later = E.mul(E.maximum(0, E.as_expr(gather.passes) - 1), E.if_(
        E.compare("<", u, pass_visits), E.mul(pass_visits, miss), 0))
    return first + later, miss
