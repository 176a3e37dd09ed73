"""Tiled nests at a level that holds every array they touch: each line moves once.

A nest copying tiles into a scratch tile (or walking tile loops) touches, tile after tile,
lines that neighbouring tiles share: a tile row narrower than a line shares its lines with
the next tile along the row, and rows shorter than a line share lines with the next row.
The layer condition counts each tile's footprint, as if the level kept nothing from one tile
to the next. A level that holds the whole of every array the nest touches (their declared
sizes) keeps them all: no array moves more than its declared bytes, once per sweep that
brings it again (a time loop) and once in all for a scratch tile, at the array's cost per word.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from sat.ir import Variable
from sat.model import expr as E
from sat.model.context import ModelContext
from sat.model.exasat.iteration import (
    NestShape,
    NestSpace,
    Pattern,
    collect_accesses,
    trip_count,
)
from sat.model.exasat.memory import GB, KIB, NestMemory, array_cost, effective_write_cost
from sat.model.exasat.occupancy import declared_size, procedure_variables


def tiled_nest(shape: NestShape) -> bool:
    """Whether the nest copies into a scratch tile or walks tile loops."""
    return bool(shape.tiles) or any(p.scratch for p in shape.patterns) \
        or any(lp.kind == "tile" for lp in shape.loop.all_loops())


def nest_variable(shape: NestShape, name: str, shapes: dict[str, tuple[str, ...]]
                  ) -> Variable | None:
    """The declaration of an array the nest touches: its procedure's, else the one every
    procedure read declares alike (``shapes``, :func:`sat.model.exasat.lines.program_shapes`:
    a module or file-scope array of a called procedure, for the nest of the time loop that
    calls it)."""
    found = procedure_variables(shape.procedure).get(name.lower())
    if found is not None and found.shape:
        return found
    declared = shapes.get(name.lower())
    return Variable(name, shape=declared) if declared else found


def tiled_along_x(shape: NestShape) -> bool:
    """Whether the source tiles X: a tile loop the frontend found, or a tile loop with its
    inner loop (as :func:`sat.model.exasat.iteration.nest_space` sizes the block)."""
    return any(lp.tile for lp in shape.axis_loops[0]) or \
        any(axis == 0 for *_, axis in shape.tiles)


def _subscripting(shape: NestShape) -> dict[str, set[str]]:
    """Names in the subscripts of each array of the nest (by lower-case name): its loop
    variables and those of its offsets (``a(ti + ii, tj + jj)``: ti, ii, tj, jj)."""
    found: list = []
    collect_accesses(shape.loop, (shape.loop,), found)
    names: dict[str, set[str]] = {}
    for array, access, _ in found:
        words = [str(o) for o in access.offsets if isinstance(o, str)]
        words += [sub.text for sub in access.subscripts]
        names.setdefault(array.name.lower(), set()).update(
            {v.lower() for v in access.loopvars if v},
            *(re.findall(r"[a-z_]\w*", w.lower()) for w in words))
    return names


def _passes(shape: NestShape, pattern: Pattern, variables: set[str],
            ctx: ModelContext, staying: frozenset[int] = frozenset()) -> E.Expr:
    """Passes over the array's whole range: the trips of the sweeps that bring it elements
    again without subscripting it (a time loop around the tiles; the tile loops subscript it
    and bring other parts of the same declared range), one for a scratch tile (written
    first, moved once)."""
    if pattern.scratch:
        return E.Num(1)
    bringing = range(len(shape.sweep_loops)) if pattern.new_sweeps is None \
        else pattern.new_sweeps
    return E.mul(E.Num(1), *[trip_count(shape.sweep_loops[k], ctx) for k in bringing
                             if shape.sweep_loops[k].loopvar.lower() not in variables
                             and id(shape.sweep_loops[k]) not in staying])


def held_arrays(shape: NestShape, space: NestSpace, memory: NestMemory,
                ctx: ModelContext, shapes: dict[str, tuple[str, ...]],
                staying: frozenset[int] = frozenset()) -> tuple[E.Expr, E.Expr] | None:
    """(KiB of the whole arrays the nest touches, GB they move at most when a level holds
    them) for a tiled nest whose arrays all have declared extents; None otherwise.
    ``shapes``: the program's declared shapes (:func:`nest_variable`). ``staying``: the
    loops (by ``id``) whose passes bring nothing again (the repetitions, when a level holds
    the arrays from one pass to the next)."""
    if not tiled_nest(shape):
        return None
    write_cost = effective_write_cost(ctx)
    subscripting = _subscripting(shape)
    sizes: list[E.Expr] = []
    moved: list[E.Expr] = []
    for array in memory.arrays:
        pattern = shape.pattern(array.key)
        if pattern is None or "%" in array.key or "@" in array.key:
            return None
        elements = declared_size(nest_variable(shape, pattern.array, shapes), ctx)
        if elements is None:
            return None
        sizes.append(E.mul(elements, array.size))
        per_word = E.div(array_cost(array.kind, ctx, write_cost), ctx.param("WordBytes"))
        moved.append(E.mul(elements, array.size, per_word, _passes(
            shape, pattern, subscripting.get(pattern.array.lower(), set()), ctx, staying)))
    if not sizes:
        return None
    return E.add(*sizes) / KIB, E.mul(space.probability, E.add(*moved)) / GB


def held_traffic(held: tuple[E.Expr, E.Expr], capacity: E.ExprLike, traffic: E.Expr,
                 case: Callable[[E.Quantity], E.Expr]
                 ) -> tuple[E.Expr, Callable[[E.Quantity], E.Expr]]:
    """(traffic, case) at a level of ``capacity`` KiB: when it holds the whole arrays of
    ``held`` (:func:`held_arrays`), no more than their bytes, with reuse between planes (1)
    as the case; the layer condition's traffic and case otherwise."""
    fits = E.compare("<", held[0], capacity)

    def held_case(taken: E.Quantity) -> E.Expr:
        return E.if_(fits, 1, case(taken))

    return E.if_(fits, E.minimum(traffic, held[1]), traffic), held_case


def held_over_repetitions(held: tuple[E.Expr, E.Expr], capacity: E.ExprLike,
                          repeated: E.Expr, moving: E.ExprLike | E.Quantity) -> E.Expr:
    """Traffic (GB) at a level of ``capacity`` KiB of a nest with repetitions (a time loop
    around the tiles, in the nest or around a call of it), ``repeated`` over all of them,
    ``moving`` of which move the data: when only the first moves it (what a pass touches,
    the other nests of a time loop included, fits the level) and the level holds the whole
    arrays of ``held``, no more than their bytes, which stay from one pass to the next."""
    fits = E.func("AND", E.compare("<", held[0], capacity), E.compare("<=", moving, 1))
    return E.if_(fits, E.minimum(repeated, held[1]), repeated)
