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

import re
from collections.abc import Callable
from dataclasses import dataclass, replace

from sat.model import expr as E
from sat.model.context import ModelContext
from sat.model.exasat.iteration import NestShape, NestSpace, collect_accesses, trip_count
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
    band: TileBand | None = None


@dataclass
class TileBand:
    """The tiles of the inner tile loop (a band): the KiB of one band of every array (the
    scratch tiles beside it), and the traffic (GB) when a level holds a band, each line of
    the tiled range moving once and the scratch tiles once in all."""

    band_kb: E.Expr
    held_gb: E.Expr
    rows_gb: E.Expr | None = None  # a level holding a tile, the tiles along X inner


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
    band = _TileSweep(shape, ctx)
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
            band.add_scratch(size, cost)
        else:
            moved.append(E.mul(size, cost))
            band.add_array(pattern.array, run, rows, extent,
                           elements_per_line(ctx, array.size), cost)
    if not kept:  # tile loops alone: their element loop need not run along the rows
        return None
    tiles = E.mul(memory.sweeps, E.Ref(space.blocks))
    others = [size for key, size in sizes.items() if key not in kept]
    scratch_kb = E.div(E.add(*[sizes[key] for key in sorted(kept)],
                             *([E.maximum(*others)] if others else [])), KIB)
    return TileLines(
        tile_kb=E.div(E.add(*sizes.values()), KIB), scratch_kb=scratch_kb,
        moved_gb=E.div(E.mul(tiles, E.add(*moved, *reread)), GB),
        scratch_held_gb=E.div(E.add(E.mul(tiles, E.add(*moved)), *held), GB),
        band=band.result(memory.sweeps))


class _TileSweep:
    """The tile loops' range of every array of a tiled nest with a scratch tile: the tile
    loop stepping along the arrays' rows (X) and the one stepping from row to row (Y), found
    in the tile offsets of the subscripts (``a(ti + ii, tj + jj)``: ii along X, jj along Y);
    the band is the tiles of the inner one."""

    def __init__(self, shape: NestShape, ctx: ModelContext):
        self.ctx = ctx
        self.loops = {lp.loopvar.lower(): lp for lp in shape.sweep_loops}
        self.order = [lp.loopvar.lower() for lp in shape.sweep_loops]
        self.offsets = _tile_offsets(shape)
        self.row_major = shape.procedure.layout == "row-major"
        self.band_lines: list[E.Expr] = []
        self.sweep_lines: list[E.Expr] = []
        self.row_lines: list[E.Expr] = []
        self.scratch_lines: list[E.Expr] = []
        self.valid = True
        self.x_inner = False
        self.tile_loops: tuple[str, str] | None = None

    def add_scratch(self, size: E.Expr, cost: E.Expr) -> None:
        self.band_lines.append(size)
        self.scratch_lines.append(E.mul(size, cost))

    def add_array(self, name: str, run: E.Expr, rows: E.Expr, row_length: E.Expr,
                  per_line: E.Expr, cost: E.Expr) -> None:
        """An array whose tile is ``rows`` rows of ``run`` elements: its band and its lines
        over the whole tiled range."""
        found = self._tile_loops(name)
        if found is None or (self.tile_loops or found) != found:
            self.valid = False
            return
        self.tile_loops = found
        along_x, along_y = (self.loops[v] for v in found)
        ctx = self.ctx
        # the tiles' rows start a stride of their tile loop apart: the last one starts
        # (trips - 1) x stride further on than the first
        x_run = E.add(run, E.mul(E.add(trip_count(along_x, ctx), -1),
                                 ctx.expr(along_x.stride, "stride")))
        y_rows = E.add(rows, E.mul(E.add(trip_count(along_y, ctx), -1),
                                   ctx.expr(along_y.stride, "stride")))
        x_inner = self.order.index(found[0]) > self.order.index(found[1])
        band = tile_row_lines(x_run, rows, row_length, per_line) if x_inner \
            else tile_row_lines(run, y_rows, row_length, per_line)
        line = ctx.param("LineBytes")
        self.band_lines.append(E.mul(band, line))
        self.sweep_lines.append(E.mul(tile_row_lines(x_run, y_rows, row_length, per_line),
                                      line, cost))
        if x_inner:  # each band's rows, the tiles along them sharing the lines at their edges
            self.row_lines.append(E.mul(trip_count(along_y, ctx), band, line, cost))
        self.x_inner = x_inner

    def _tile_loops(self, name: str) -> tuple[str, str] | None:
        """(the sweep loop stepping along the array's rows, the one stepping from row to
        row), by their variables in the array's tile offsets; None when not both."""
        offsets = self.offsets.get(name.lower())
        if not offsets or len(offsets) < 2:
            return None
        unit, row = (offsets[-1], offsets[-2]) if self.row_major else (offsets[0], offsets[1])
        along_x = [v for v in self.loops if v in unit]
        along_y = [v for v in self.loops if v in row]
        if len(along_x) != 1 or len(along_y) != 1 or along_x == along_y:
            return None
        return along_x[0], along_y[0]

    def result(self, sweeps: E.Expr) -> TileBand | None:
        if not self.valid or self.tile_loops is None:
            return None
        trips = E.mul(*[trip_count(self.loops[v], self.ctx) for v in self.tile_loops])
        passes = E.div(sweeps, E.maximum(trips, 1))  # sweeps of the tiled range (time loops)

        def moved(lines: list[E.Expr]) -> E.Expr:
            return E.div(E.add(E.mul(passes, E.add(*lines)), *self.scratch_lines), GB)

        return TileBand(band_kb=E.div(E.add(*self.band_lines), KIB),
                        held_gb=moved(self.sweep_lines),
                        rows_gb=moved(self.row_lines) if self.x_inner else None)


def _tile_offsets(shape: NestShape) -> dict[str, tuple[set[str], ...]]:
    """Names in each array's offsets per dimension (by lower-case name; the same for every
    access, else none): ``a(ti + ii, tj + jj)`` gives ({ii}, {jj})."""
    found: list = []
    collect_accesses(shape.loop, (shape.loop,), found)
    offsets: dict[str, tuple[set[str], ...]] = {}
    mixed: set[str] = set()
    for array, access, _ in found:
        name = array.name.lower()
        names = tuple(set(re.findall(r"[a-z_]\w*", str(o).lower())) for o in access.offsets)
        if offsets.setdefault(name, names) != names:
            mixed.add(name)
    return {name: names for name, names in offsets.items() if name not in mixed}


def tile_traffic(tile: TileLines, capacity: E.ExprLike, traffic: E.Expr,
                 case: Callable[[E.Quantity], E.Expr]
                 ) -> tuple[E.Expr, Callable[[E.Quantity], E.Expr]]:
    """(traffic GB, case) at a level of ``capacity`` KiB. A level holding a band of tiles
    (:class:`TileBand`) moves each line of the tiled range once, reuse between planes (1);
    one holding a tile, not a band, with the tiles of the inner tile loop along X moves each
    band's rows once, the tiles along them sharing their edge lines, reuse between pencils
    (2); one holding a tile otherwise keeps the layer condition's ``traffic`` and ``case``;
    one holding no tile moves the tiles' lines (the scratch tiles moved once in all when the
    level holds them beside the largest other tile), reuse between pencils (2): a row's
    lines serve the next row, nothing stays from one tile to the next."""
    fits = E.compare("<", tile.tile_kb, capacity)
    rows = E.if_(E.compare("<", tile.scratch_kb, capacity), tile.scratch_held_gb,
                 tile.moved_gb)
    band = tile.band
    band_fits = E.compare("<", band.band_kb, capacity) if band is not None else None
    if band is not None:
        traffic = E.if_(band_fits, band.held_gb,
                        traffic if band.rows_gb is None else band.rows_gb)

    def tile_case(taken: E.Quantity) -> E.Expr:
        held = case(taken)
        if band is not None:
            held = E.if_(band_fits, 1, held if band.rows_gb is None else 2)
        return E.if_(fits, held, 2)

    return E.if_(fits, traffic, rows), tile_case
