"""Reuse across repetitions: the layer condition of a loop that sweeps the same data again.

A *repetition* is a sweep loop whose variable subscripts no reference of the nest: a loop
written in the nest around its grid loops (``do r = 1, 3`` around a sweep), or a pass of a
time loop (:func:`sat.model.exasat.compulsory.time_passes`). Each of its trips touches the
same elements. At a cache level, the next trip finds them still there when what is touched
between two trips fits the level's capacity: then only the first trip moves the data over
the link out, and the others move nothing; when it does not fit, every trip moves it again.

What is touched between two trips is, for a loop of the nest, the data of one run of the
loops inside it: the nest's data per sweep of its grid (``data_kib`` of the Levels sheet)
times the trips of the sweep loops inside it that bring new elements (a loop over a fourth
index). For the pass of a time loop around several nests, each a row of its own (the
siblings, the nests of a procedure it calls), it is the sum of that over every row under
the time loop: they all run between two passes, and all their data must stay.

Every test is a formula over the level's capacity (the Parameters sheet's ``LnKB``), so an
edited cache size moves the traffic. A repetition inside a tile loop of the source repeats
one tile, which the reuse between planes already counts once
(:func:`sat.model.exasat.compulsory.tile_repeats`): it is left out here.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from sat.ir import Loop
from sat.model import expr as E
from sat.model.context import ModelContext
from sat.model.exasat.compulsory import is_repetition
from sat.model.exasat.iteration import NestShape, trip_count
from sat.model.hierarchy.pass_data import PassFootprint


@dataclass
class PassData:
    """Per time loop split into several rows (by ``id`` of the source's loop), the data one
    pass touches (KiB per thread): the sum over its rows, filled in as they are built and
    closed once every row is (:meth:`close`)."""

    terms: dict[int, dict[str, E.Expr]] = field(default_factory=dict)  # by row
    quantities: dict[int, E.Quantity] = field(default_factory=dict)
    closed: bool = False

    def of(self, whole: Loop, ident: str, term: E.Expr) -> E.Expr | E.Quantity:
        """The pass's data, ``term`` (this row's share) added while the rows are built (a
        nest built after them, a fused one, under a time loop none of them was under: its
        own share)."""
        key = id(whole)
        if self.closed and key not in self.quantities:
            return term
        if key not in self.quantities:
            self.quantities[key] = E.Quantity(
                ("pass", ident, "data_kib"), E.Num(0), "KiB",
                f"data one pass of the time loop at line {whole.line} touches, all its nests")
        if not self.closed:  # one share per row, whichever level asks
            self.terms.setdefault(key, {}).setdefault(ident, term)
        return self.quantities[key]

    def close(self) -> None:
        """Every row is built: each pass's data is the sum of its rows' shares."""
        for key, terms in self.terms.items():
            self.quantities[key].expr = E.add(*terms.values())
        self.closed = True


def repetition_loops(shape: NestShape) -> list[Loop]:
    """The nest's sweep loops whose variable subscripts, places and bounds nothing
    (:func:`~sat.model.exasat.compulsory.is_repetition`),
    outside the source's tile loops (a repetition of one tile is counted by the reuse
    between planes)."""
    used = {var.lower() for body in shape.loop.levels() for array in body.arrays
            for access in array.accesses for var in access.loopvars if var}
    return [lp for n, lp in enumerate(shape.sweep_loops)
            if is_repetition(lp, used) and n not in shape.tile_repeats]


def moving_repetitions(shape: NestShape, data: E.Expr, capacity: E.Quantity,
                       passes: PassData, ctx: ModelContext,
                       whole_kib: E.Expr | None = None,
                       footprint: PassFootprint | None = None) -> tuple[E.Expr, E.Expr] | None:
    """(the repetitions whose trips move the data at a level of ``capacity``, all of them):
    per repetition loop, its trips when what one trip touches does not fit, else 1 (None for
    a nest without repetition loops). ``data``: the nest's data per sweep of its grid;
    ``whole_kib``: the declared size of the arrays it touches, which one trip never exceeds
    (tiles counted one by one overlap at their shared lines); ``footprint``: its arrays'
    shares, each at most the whole array (:mod:`sat.model.hierarchy.pass_data`)."""
    loops = repetition_loops(shape)
    if not loops:
        return None
    repeated = {id(lp) for lp in loops}
    moving: list[E.Expr] = []
    for loop in loops:
        inside = {id(lp) for lp in loop.all_loops()}
        # the sweeps inside it that bring new elements (a fourth index) run between trips
        fresh = [trip_count(lp, ctx) for lp in shape.sweep_loops
                 if id(lp) in inside and id(lp) not in repeated]
        touched: E.Expr | E.Quantity = E.mul(data, *fresh) if footprint is None \
            else footprint.touched(fresh)
        if whole_kib is not None:
            touched = E.minimum(touched, whole_kib)
        whole = getattr(loop, "whole", None)
        if whole is not None:  # a pass of a time loop: every row under it runs in between
            touched = passes.of(whole, shape.ident, touched)
        trips = trip_count(loop, ctx)
        moving.append(E.if_(E.compare("<=", touched, capacity), 1, trips))
    return E.mul(*moving), E.mul(*[trip_count(lp, ctx) for lp in loops])
