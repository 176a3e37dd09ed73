"""The lines a tile touches, and a scratch tile read again, at a level smaller than a tile.

A nest that copies a tile into a scratch tile and computes from it (one loop of the tile
writes the scratch tile, a later one reads it) works tile after tile; each tile is ``R``
rows of a run of ``c`` neighbouring elements of every array.
Where the tile starts is set by the tile loops (``a(ti + ii, tj + jj)``): a row starts at
any element of a line, so a run of ``c`` elements with ``P`` to a line spans ``(c - 1 + P)
/ P`` lines on average, not ``c / P``; the next row (``L`` elements further on, the array's
declared extent along its unit-stride axis) starts a line of its own unless the gap between
them is shorter than a line, when it shares the line with the previous row: each row after
the first adds ``MIN(c - 1 + P, L) / P`` lines. A tile of an array then spans

    (c - 1 + P + (R - 1) x MIN(c - 1 + P, L)) / P   lines.

At a level that does not hold one tile of every array (a level that does keeps the layer
condition's count), each tile moves these lines of every array at its cost per word. A
scratch tile written by one loop of the tile (the copy) and read by a later one (the
product) is used again only after the other arrays' rows between: when the level holds
the scratch tile beside the largest other array's tile, it stays from tile to tile and moves
once in all; otherwise every tile writes it (a line read, then written back) and reads it
again: its lines move at its read-write cost plus its read cost.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace

from sat.model import expr as E
from sat.model.context import ModelContext
from sat.model.exasat.iteration import NestShape, NestSpace, collect_accesses
from sat.model.exasat.lines import elements_per_line
from sat.model.exasat.memory import GB, KIB, NestMemory, array_cost, effective_write_cost
from sat.model.exasat.occupancy import declared_size
from sat.model.hierarchy.held_arrays import nest_variable, tiled_nest


@dataclass
class TileLines:
    """Per tile: each array's lines (by key), the KiB of one tile of every array, the KiB of
    the scratch tiles beside the largest other tile, and the traffic (GB) when the level
    holds no tile and when it holds the scratch tiles only."""

    tile_kb: E.Expr
    scratch_kb: E.Expr
    moved_gb: E.Expr
    scratch_held_gb: E.Expr


def _unit_extent(name: str, shape: NestShape, ctx: ModelContext,
                 shapes: dict[str, tuple[str, ...]]) -> E.Expr | None:
    """Declared elements of the array's unit-stride dimension (None when not declared or
    one-dimensional)."""
    variable = nest_variable(shape, name, shapes)
    if variable is None or len(variable.shape) < 2:
        return None
    unit = -1 if shape.procedure.layout == "row-major" else 0
    return declared_size(replace(variable, shape=(variable.shape[unit],)), ctx)


def reread_scratch(shape: NestShape) -> set[str]:
    """Arrays (lower-case names) written by one innermost loop of the nest and read by
    another: a scratch tile between its copy and its product."""
    found: list = []
    collect_accesses(shape.loop, (shape.loop,), found)
    writers: dict[str, set[int]] = {}
    readers: dict[str, set[int]] = {}
    for array, access, chain in found:
        name = array.name.lower()
        if access.writes:
            writers.setdefault(name, set()).add(id(chain[-1]))
        if access.reads:
            readers.setdefault(name, set()).add(id(chain[-1]))
    return {name for name, loops in writers.items() if readers.get(name, set()) - loops}


def tile_row_lines(run: E.ExprLike, rows: E.ExprLike, row_length: E.ExprLike,
                   per_line: E.ExprLike) -> E.Expr:
    """Lines ``rows`` rows of a run of ``run`` elements span, the rows ``row_length``
    elements apart, ``per_line`` elements to a line, each row starting anywhere in a line."""
    spanned = E.add(run, -1, per_line)
    return E.div(E.add(spanned, E.mul(E.add(rows, -1), E.minimum(spanned, row_length))),
                 per_line)


def tile_lines(shape: NestShape, space: NestSpace, memory: NestMemory,
               ctx: ModelContext, shapes: dict[str, tuple[str, ...]]) -> TileLines | None:
    """The tile's lines of a nest copying two-dimensional tiles into a scratch tile that a
    later loop reads, whose arrays all have declared extents (``shapes``: the program's,
    :func:`~sat.model.hierarchy.held_arrays.nest_variable`) and walk their unit-stride axis
    in the tile's rows; None otherwise."""
    if not tiled_nest(shape) or shape.axis_loops[2] or shape.tiles:
        return None
    scratch = reread_scratch(shape)
    g, h = (E.Ref(b) for b in space.block[:2])
    line = ctx.param("LineBytes")
    write_cost = effective_write_cost(ctx)
    words = ctx.param("WordBytes")
    sizes: dict[str, E.Expr] = {}
    kept: set[str] = set()  # keys of the scratch tiles read again by a later loop
    moved: list[E.Expr] = []
    held: list[E.Expr] = []
    reread: list[E.Expr] = []
    for array in memory.arrays:
        pattern = shape.pattern(array.key)
        if pattern is None or "%" in array.key or "@" in array.key or pattern.invariant \
                or pattern.stride != 1 or pattern.x_step != 1:
            return None
        extent = _unit_extent(pattern.array, shape, ctx, shapes)
        if extent is None:
            return None
        if array.unit_run_copies:  # the tile's rows are X, each cell a run of its copies
            run, rows = E.add(array.copies, array.spans[0]), g
        elif pattern.unit == "x":  # X runs along the rows, Y from row to row
            run, rows = E.add(g, array.spans[0]), E.add(h, array.spans[1])
        else:
            return None
        size = sizes[array.key] = E.mul(
            tile_row_lines(run, rows, extent, elements_per_line(ctx, array.size)), line)
        cost = E.div(array_cost(array.kind, ctx, write_cost), words)
        if pattern.scratch and pattern.array.lower() in scratch:
            kept.add(array.key)
            held.append(E.mul(size, cost))
            reread.append(E.mul(size, E.add(cost, E.div(ctx.param("ReadCost"), words))))
        else:
            moved.append(E.mul(size, cost))
    if not kept:  # tile loops alone: their element loop need not run along the rows
        return None
    tiles = E.mul(memory.sweeps, E.Ref(space.blocks))
    others = [size for key, size in sizes.items() if key not in kept]
    scratch_kb = E.div(E.add(*[sizes[key] for key in sorted(kept)],
                             *([E.maximum(*others)] if others else [])), KIB)
    return TileLines(
        tile_kb=E.div(E.add(*sizes.values()), KIB), scratch_kb=scratch_kb,
        moved_gb=E.div(E.mul(tiles, E.add(*moved, *reread)), GB),
        scratch_held_gb=E.div(E.add(E.mul(tiles, E.add(*moved)), *held), GB))


def tile_traffic(tile: TileLines, capacity: E.ExprLike, traffic: E.Expr,
                 case: Callable[[E.Quantity], E.Expr]
                 ) -> tuple[E.Expr, Callable[[E.Quantity], E.Expr]]:
    """(traffic GB, case) at a level of ``capacity`` KiB: the layer condition's ``traffic``
    and ``case`` when the level holds one tile of every array; otherwise the tiles' lines
    (the scratch tiles moved once in all when the level holds them beside the largest other
    tile), with reuse between pencils (2) as the case: a row's lines serve the next row,
    nothing stays from one tile to the next."""
    fits = E.compare("<", tile.tile_kb, capacity)
    rows = E.if_(E.compare("<", tile.scratch_kb, capacity), tile.scratch_held_gb,
                 tile.moved_gb)

    def tile_case(taken: E.Quantity) -> E.Expr:
        return E.if_(fits, case(taken), 2)

    return E.if_(fits, traffic, rows), tile_case
