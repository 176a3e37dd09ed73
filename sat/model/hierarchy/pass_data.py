"""What one trip of a repetition touches: each array's share, at most the whole array.

A repetition (a pass of a time loop, a loop whose variable subscripts no reference) finds
its data still in a level when what one of its trips touches fits the level's capacity
(:mod:`sat.model.hierarchy.repetitions`). A trip runs the nest's sweep once per trip of the
sweep loops inside the repetition that bring new elements (the tiles of a tile loop, a
fourth index), and the nest's footprint per sweep counts each block's rows in whole lines:
over many tiles or short rows, that sum can exceed the array itself. A trip never touches
more of an array than the array holds: its declared extents times its element size, in
whole cache lines. Each array's share of a trip is the smaller of the two, a live ``MIN``
over the problem sizes and ``LineBytes``; an array without literal or parametric extents
(an allocatable, a dummy of assumed shape) keeps its footprint.

Whether the lines stay depends on the lines, not the elements: the footprint rounds each
row of ``e`` elements up to whole lines as if it started at a line's start (ExaSAT's
optimistic alignment), which holds for one row but not for rows that start anywhere in a
line. For the share of a trip, a row starting anywhere touches ``(e + P - 1) / P`` lines of
``P`` elements on average, and rows lying back to back (the declared row length ``R``
known) touch no more than their span, ``R`` elements a row: the row counts
``MIN(R, e + P - 1)`` elements in place of its rounded length (a section ``out(3:50, j)``
of 52-element rows: 52, not 48).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from sat.model import expr as E
from sat.model.context import ModelContext
from sat.model.exasat.iteration import NestShape
from sat.model.exasat.lines import elements_per_line
from sat.model.exasat.memory import KIB, ArrayModel
from sat.model.exasat.occupancy import declared_size
from sat.model.hierarchy.held_arrays import nest_variable, tiled_along_x


def unaligned_rows(shape: NestShape, array: ArrayModel, ctx: ModelContext) -> E.Expr:
    """The factor from the footprint's rows (rounded up to whole lines from a line's start)
    to the lines rows starting anywhere touch: ``MIN(R, e + P - 1)`` over the rounded row
    (``e + P - 1`` when the rows do not lie back to back); 1 for an array whose rows are
    not unit-stride runs along X (strided, invariant along X, copies of a cell) and in a
    nest that tiles X (consecutive tiles of a row share its lines: the footprint's rows are
    the tiles', :mod:`sat.model.hierarchy.held_arrays`)."""
    pattern = shape.pattern(array.key)
    if tiled_along_x(shape) or pattern is None or pattern.stride != 1 or pattern.unit != "x" \
            or 0 in pattern.invariant or array.x_step != 1 or array.unit_run_copies \
            or array.run_copies or "access_x_lines" not in array.q:
        return E.Num(1)
    run = E.add(array.q["access_x"], elements_per_line(ctx, array.size) - 1)
    if pattern.row_length:
        run = E.minimum(pattern.row_length, run)
    return run / E.maximum(E.Ref(array.q["access_x_lines"]), 1)


def declared_array_bytes(shape: NestShape, array: ArrayModel, ctx: ModelContext,
                         shapes: dict[str, tuple[str, ...]]) -> E.Expr | None:
    """Bytes of the whole array of ``array`` in whole cache lines, from its declaration in
    the nest's procedure or, for a module or file-scope array a called procedure uses, the
    program's (``shapes``); None when the extents are unknown or the access is a component
    (``%``) or a gather (``@``)."""
    pattern = shape.pattern(array.key)
    if pattern is None or "%" in array.key or "@" in array.key:
        return None
    elements = declared_size(nest_variable(shape, pattern.array, shapes), ctx)
    if elements is None:
        return None
    return E.ceiling(E.mul(elements, array.size), ctx.param("LineBytes"))


@dataclass
class PassFootprint:
    """Per array of a nest: its bytes per sweep of the grid (rows at any alignment) and the
    bytes of the whole array (None: unknown)."""

    sweeps: list[E.Expr]
    wholes: list[E.Expr | None]
    cores: E.Expr

    def touched(self, fresh: list[E.Expr]) -> E.Expr:
        """KiB per thread one trip touches, the sweeps ``fresh`` inside it bringing new
        elements: each array's sweeps, at most the whole array."""
        terms = [E.mul(sweep, *fresh) if whole is None else
                 E.minimum(E.mul(sweep, *fresh), whole)
                 for sweep, whole in zip(self.sweeps, self.wholes, strict=True)]
        return E.add(*terms) / KIB / self.cores


def pass_footprint(shape: NestShape, arrays: list[ArrayModel], sweeps: list[E.Expr],
                   ctx: ModelContext, shapes: dict[str, tuple[str, ...]],
                   gathered: Sequence[E.Expr] = ()) -> PassFootprint:
    """The nest's :class:`PassFootprint`: ``sweeps`` are the bytes of each of ``arrays`` per
    sweep of the grid (in the same order), their rows taken at any alignment; ``gathered``:
    the bytes of each gather's lines, taken as they are."""
    wholes = [declared_array_bytes(shape, a, ctx, shapes) for a in arrays]
    lined = [E.mul(sweep, unaligned_rows(shape, a, ctx)) for sweep, a in zip(sweeps, arrays,
                                                                             strict=True)]
    return PassFootprint([*lined, *gathered], [*wholes, *[None] * len(gathered)],
                         ctx.param("Cores"))
