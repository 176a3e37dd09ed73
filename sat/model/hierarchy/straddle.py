"""Reuse within pencils at a level that holds the pencils' lines but not every line a window
of X offsets straddles.

The cell working set (:func:`sat.model.hierarchy.levels.nest_levels`) counts, for a pencil whose
references span ``s`` elements along X (``a(i-1)``, ``a(i+1)``: ``s = 2``), ``ceil(s / L) +
1`` lines (``L`` elements per line): the lines the window covers when it straddles a line
boundary. It straddles one only at ``s mod L`` of every ``L`` positions along X; at the
others it covers ``floor(s / L) + 1`` lines. A level holding the pencils' lines at the other
positions but not the straddling window's extra lines keeps the reuse within pencils
except at the straddling positions, where an LRU cache evicts a line the same iteration
still needs and every access of that iteration misses (a line per access).

So at such a level the traffic is the within-pencils traffic plus, for the fraction of the
positions at which some window straddles (the sum of every straddling window's ``(s mod L)
/ L``, at most 1), the difference to a line per access. A level holding even the
non-straddling lines moves what ExaSAT's within case says; one too small for those moves a
line per access, as before.
"""

from __future__ import annotations

from collections import Counter

from sat.model import expr as E
from sat.model.context import ModelContext
from sat.model.exasat.lines import elements_per_line
from sat.model.exasat.memory import ArrayModel


def unstraddled_lines(array: ArrayModel, ctx: ModelContext, within: E.Expr,
                      copies: E.Expr, spans: tuple[int, ...]) -> tuple[E.Expr, E.Expr]:
    """(lines ``array`` keeps for reuse within its pencils at a position where no window of
    its X offsets straddles a line boundary, the chance summed over its windows that one
    straddles at a position): ``floor(s / L) + 1`` lines and ``(s mod L) / L`` per window of
    span ``s``, both per copy and times its copies. ``within``: its lines with every window
    straddling, kept (and no chance added) for a contiguous run of copies (a CSR row's
    ``val(k)``, whose next copy reuses the line at once); ``copies``: its copies that each
    move a line of their own; ``spans``: the X span of each pencil it touches at once."""
    if array.run_copies:
        return within, E.Num(0)
    spans = Counter(spans)
    per_line = elements_per_line(ctx, array.size)
    lines: list[E.Expr] = [E.Num(spans.pop(0, 0))]
    chances: list[E.Expr] = []
    for span, count in sorted(spans.items()):
        # floor(s / L) for a whole number s: ceil((s + 1) / L) - 1
        whole = E.add(E.ceiling(E.div(span + 1, per_line)), -1)
        lines.append(E.mul(count, E.add(whole, 1)))
        chances.append(E.mul(count, E.add(E.div(span, per_line), E.mul(-1, whole))))
    chance = E.mul(copies, E.add(*chances)) if chances else E.Num(0)
    return E.mul(copies, E.add(*lines)), chance


def straddled_traffic(within: E.ExprLike | E.Quantity, none: E.ExprLike | E.Quantity,
                      lines_kb: E.ExprLike | E.Quantity, unstraddled_kb: E.ExprLike,
                      chance: E.ExprLike, capacity: E.ExprLike | E.Quantity) -> E.Expr:
    """A level's traffic where the cell working set ``lines_kb`` (every window straddling)
    does not fit ``capacity``: the within-pencils traffic plus the straddling positions'
    share (``chance``, at most 1) of the difference to a line per access when the lines
    of the other positions (``unstraddled_kb``) fit, a line per access (``none``)
    otherwise."""
    share = E.if_(E.compare("<=", lines_kb, capacity), 0, E.minimum(1, chance))
    graded = E.add(within, E.mul(share, E.add(none, E.mul(-1, within))))
    return E.if_(E.compare("<=", unstraddled_kb, capacity), graded, none)


def straddled_case(case: E.Expr, taken: E.Quantity, straddled: E.Quantity,
                   none: E.ExprLike | E.Quantity, unstraddled_kb: E.ExprLike,
                   capacity: E.ExprLike | E.Quantity) -> E.Expr:
    """The reuse case of a level (:func:`sat.model.exasat.memory.layer_condition`'s code):
    within pencils (3), not none (4), where the level takes the straddled traffic with its
    unstraddled lines in the level and less than a line per access."""
    kept = E.func("AND", E.compare("=", case, 4), E.compare("<=", unstraddled_kb, capacity),
                  E.compare("<", straddled, none),
                  E.compare("<=", E.func("ABS", E.Ref(taken) - E.Ref(straddled)),
                            E.mul(1e-9, straddled)))
    return E.if_(kept, 3, case)
