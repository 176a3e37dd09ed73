"""Component copies that lie next to each other in memory, at the cache levels.

A short loop over the contiguous elements of an array (a scratch tile's ``do ti = 1, 4``
around ``t(ti, tj) = a(ti + ii, tj + jj)``) is read as a component loop
(:mod:`sat.model.exasat.iteration`): every cell touches ``copies`` elements. When that loop
walks the array's unit-stride dimension in a nest with a scratch tile or tile loops
(:attr:`~sat.model.exasat.iteration.Pattern.unit_run_copies`), the copies of a cell are a
run of neighbouring elements, which share cache lines: a run of ``c`` elements with ``P``
to a line spans at most ``ceil((c - 1) / P) + 1`` lines (what the level must hold while
the run is used), and on average ``(c - 1 + P) / P`` lines (the run starts at any element
of a line), which is what it moves when nothing is reused between cells, in place of a
whole line for each copy.
"""

from __future__ import annotations

from sat.model import expr as E
from sat.model.context import ModelContext
from sat.model.exasat.lines import elements_per_line
from sat.model.exasat.memory import ArrayModel


def run_lines_held(array: ArrayModel, ctx: ModelContext) -> E.Expr:
    """Cache lines one cell's run of copies of ``array`` spans at most."""
    per_line = elements_per_line(ctx, array.size)
    return E.add(E.ceiling(E.div(E.add(array.copies, -1), per_line)), 1)


def run_elements_per_line(array: ArrayModel, ctx: ModelContext) -> E.Expr:
    """Elements of ``array`` (its traffic without reuse counts one per access and copy) that
    a cell's run moves as lines: a run of ``c`` copies moves ``(c - 1 + P) / P`` lines of
    ``P`` elements on average, ``(c - 1 + P) / c`` elements per copy (``P`` for one copy)."""
    per_line = elements_per_line(ctx, array.size)
    return E.div(E.add(array.copies, -1, per_line), array.copies)
