"""Working sets and memory traffic of a nest, per array-component pair and in total.

For each streamed array-component the stencil offsets give plain numbers: the planes,
pencils and cells it *touches* per iteration, and the planes, pencils and cells that must
stay in cache for reuse.  The reuse rule is the paper's: span of the pattern plus its largest
gap (planes -2,+2 need 8 planes; -2..+2 need 5).  In an LRU cache every array streams through
for as long as the array with the largest gap waits for its data, so the gap is the nest's
largest over its read arrays (as in the original tool) and applies to every array.

From those counts and the block sizes come expressions: working sets (KiB) for reuse between
planes, pencils and cells in four variants (naive; streaming writes, where read-write and
written arrays bypass the cache; reuse-only, where non-temporal reads also keep streamed-only
data out; actual, picked by the StreamingWrites and NTAHints parameters) and traffic (GB) for
each reuse case.  The actual case is the best one whose actual working set fits in CacheKB.

Footprints are exact unions: the block shifted by every offset, counted in whole cache lines
along X (optimistic alignment), as a polynomial in the block sizes (valid when a block is at
least as wide as the stencil).

An element of an array is its ``Bytes_<array>`` parameter's bytes (:mod:`sat.model.elements`;
by default the declared type's words times ``WordBytes``: one for a double, two for a
double-precision complex, half for a float or an int).  Its working sets count ``Bytes``
bytes per element, its cache lines hold ``LineBytes/Bytes`` elements, and its traffic moves
``Bytes/WordBytes`` times the read, read-write or write cost per element (those costs are per
double-precision word: ``ReadCost = ld_sf * WordBytes``).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from sat.ir import Loop
from sat.model import expr as E
from sat.model.context import ModelContext
from sat.model.exasat.arm_lines import path_chance, touched_pencils
from sat.model.exasat.beyond_axes import beyond_union
from sat.model.exasat.compulsory import (
    expected_elements,
    sparse_axis_union,
    stepped_groups,
    stepped_union,
    triangle_halo,
    widest_across_invariant_axes,
    widest_extents,
)
from sat.model.exasat.iteration import (
    NestShape,
    NestSpace,
    Pattern,
    copies_expr,
    pattern_bytes,
    trip_count,
)
from sat.model.exasat.lines import (
    elements_per_line,
    ragged_row_lines,
    ragged_rows,
    round_to_lines,
    row_lines,
    started_row_lines,
    strided_lines,
)
from sat.model.exasat.row_window import (
    add_row_window,
    arrays_strided,
    strided_traffic,
    window_reuse,
    window_span,
)
from sat.model.exasat.stencil import (
    Counts,
    footprint,
    nest_gaps,
    pattern_counts,
    plane_terms,
    spans,
    volume_terms,
)
from sat.model.exasat.sweep_rows import UNION_PENCILS, own_row_spans, shifted_rows
from sat.model.exasat.triangle_union import triangle_union
from sat.model.sums import summed_trip_count
from sat.model.tables import ArrayTraffic, Column, nest_columns
from sat.model.tables import column as _c

KIB = 1024.0
GB = 1e9
Point = tuple[int, int, int]

# Reuse levels of the "reuse" column, best first (0 is never chosen: "between blocks" is the
# compulsory-traffic bound, shown for comparison).
REUSE_LEVELS = {1: "planes", 2: "pencils", 3: "within pencils", 4: "none"}


# ---------------------------------------------------------------- quantities


CASES = ("blocks", "planes", "pencils", "within", "none")


@dataclass
class ArrayModel:
    """Quantities of one array-component in one nest (a row of the Arrays sheet)."""

    key: str
    kind: str
    counts: Counts
    spans: tuple[int, int, int]
    copies: E.Expr = field(default_factory=lambda: E.Num(1))  # per cell (component loops)
    size: E.Expr = field(default_factory=lambda: E.Param("WordBytes"))  # bytes per element
    invariant: frozenset[int] = frozenset()  # axes it does not step along (Pattern.invariant)
    x_step: int = 1  # of copies, the elements one step of a stepped X loop spans
    run_copies: bool = False  # its copies are one contiguous run (Pattern.run_copies)
    # with a stepped Y or Z loop: the X span of each row or plane of the step it touches,
    # and those rows and planes per step (its copies count them): see own_row_spans
    step_spans: tuple[int, ...] = ()
    step_rows: int = 1
    unit_run_copies: bool = False  # a cell's copies are a short run (Pattern.unit_run_copies)
    cells: dict[str, E.CellValue] = field(default_factory=dict)  # column key -> value
    q: dict[str, E.Quantity] = field(default_factory=dict)


@dataclass
class NestMemory:
    """Nest-level working sets and traffic (columns of the Loops sheet)."""

    arrays: list[ArrayModel]
    numbers: dict[str, int]
    q: dict[str, E.Quantity]
    sweeps: E.Expr = E.Num(1)  # expected sweeps of the nest
    variants: dict[str, E.Expr] = field(default_factory=dict)  # plane/pencil/cell -> the
    # working-set variant StreamingWrites and NTAHints select
    # the sweep condition at CacheKB (a nest whose X loop encloses others), else None
    sweep_fits: E.Expr | None = None

    def traffic_of(self, keys: set[str]) -> E.Expr:
        """Traffic (GB) of the arrays ``keys`` for the reuse case the nest takes."""
        sums = [E.mul(self.sweeps, _sum([a.q[f"traffic_{case}_gb"] for a in self.arrays
                                         if a.key in keys])) for case in CASES[1:]]
        reuse = self.q["reuse"]
        taken = E.if_(E.compare("=", reuse, 1), sums[0],
                      E.if_(E.compare("=", reuse, 2), sums[1],
                            E.if_(E.compare("=", reuse, 3), sums[2], sums[3])))
        if self.sweep_fits is None:
            return taken
        strided = arrays_strided(self.q, [a for a in self.arrays if a.key in keys],
                                 self.sweeps)
        return E.if_(self.sweep_fits, taken, strided)

    def array_traffic(self, ident: str, ctx: ModelContext,
                      write_cost: E.Expr) -> list[ArrayTraffic]:
        """Each array-component pair's traffic for the reuse case the nest takes (its share of
        the Loops sheet's actual traffic), split into loads and stores.

        A read-only pair's traffic is all loads.  Of a written pair's bytes per element
        (``ReadWriteCost``, or the write cost: ``WriteCost``, or ``WordBytes`` when writes
        bypass the cache), one word per word of the element is the store that writes it back;
        the rest is loads: the read of a read-write element, the read for ownership of a
        written one.  Loads plus stores is the pair's traffic, and the pairs add up to the
        nest's.
        """
        out = []
        for array in self.arrays:
            prefix = ("array", ident, array.key)
            traffic = E.Quantity((*prefix, "traffic_gb"), self.traffic_of({array.key}), "GB",
                                 f"traffic of {array.key}, actual")
            if array.kind == "R":
                store_share: E.Expr = E.Num(0)
            else:
                cost = array_cost(array.kind, ctx, write_cost)  # per word
                store_share = E.minimum(1, E.div(ctx.param("WordBytes"), cost))
            stores = E.Quantity((*prefix, "stores_gb"), E.mul(store_share, traffic), "GB",
                                f"stores of {array.key}, actual")
            loads = E.Quantity((*prefix, "loads_gb"), E.Ref(traffic) if array.kind == "R"
                               else E.Ref(traffic) - E.Ref(stores), "GB",
                               f"loads of {array.key}, actual")
            out.append(ArrayTraffic(array.key, array.key.split(".", 1)[0], array.kind, loads,
                                    stores))
        return out


def array_cost(kind: str, ctx: ModelContext, write_cost: E.Expr) -> E.Expr:
    """Bytes moved per element for an array of kind R, RW or W."""
    if kind == "R":
        return ctx.param("ReadCost")
    if kind == "RW":
        return ctx.param("ReadWriteCost")
    return write_cost


def effective_write_cost(ctx: ModelContext) -> E.Expr:
    """WriteCost, or one word when writes bypass the cache (no read for ownership)."""
    bypass = E.func("OR", ctx.param("StreamingWrites"), ctx.param("NTAHints"))
    return E.if_(bypass, ctx.param("WordBytes"), ctx.param("WriteCost"))


def actual_variant(naive: E.ExprLike | E.Quantity, stream: E.ExprLike | E.Quantity,
                   reuse: E.ExprLike | E.Quantity, ctx: ModelContext) -> E.Expr:
    """The working-set variant the StreamingWrites and NTAHints parameters select."""
    return E.if_(ctx.param("NTAHints"), reuse,
                 E.if_(ctx.param("StreamingWrites"), stream, naive))


def _same(a: E.Quantity, b: E.Quantity) -> E.Expr:
    # the better reuse case saves nothing: no need to hold its larger working set
    return E.compare("<=", E.func("ABS", E.Ref(a) - E.Ref(b)), E.mul(1e-9, b))


def actual_chain(q: dict[str, E.Quantity], cell: E.Quantity, pencil_variant: E.Expr,
                 plane_variant: E.Expr, make) -> tuple[E.Quantity, E.Quantity]:
    """(pencil, plane) actual working sets: a level whose reuse saves no traffic over the
    next one takes that level's working set.  ``make(name, expr, unit, label)`` makes the
    quantities (named ``ws_actual_pencil_kb`` and ``ws_actual_plane_kb``, or with a prefix)."""
    pencil = make("ws_actual_pencil_kb",
                  E.if_(_same(q["traffic_pencils_gb"], q["traffic_within_gb"]), cell,
                        pencil_variant), "KiB", "working set per pencil, actual")
    plane = make("ws_actual_plane_kb",
                 E.if_(_same(q["traffic_planes_gb"], q["traffic_pencils_gb"]), pencil,
                       plane_variant), "KiB", "working set per plane, actual")
    return pencil, plane


def layer_condition(working_sets: list[E.Quantity], capacity: E.ExprLike,
                    cases: list[E.Quantity]):
    """(traffic, reuse) for a cache of ``capacity`` KiB: the traffic is the least among the
    best case whose working set (plane, pencil, cell) fits and the worse ones, since a worse
    case can move fewer bytes (no cache-line rounding), as the original does; ``reuse`` maps
    the traffic's quantity to the case taken (1 planes, 2 pencils, 3 within pencils, 4 none)."""
    fits = [E.compare("<", ws, capacity) for ws in working_sets]
    t = cases
    traffic = E.if_(fits[0], E.minimum(*t),
                    E.if_(fits[1], E.minimum(*t[1:]),
                          E.if_(fits[2], E.minimum(*t[2:]), t[3])))

    def reuse(taken_traffic: E.Quantity) -> E.Expr:
        taken = [E.func("AND", fits[k], _same(t[k], taken_traffic)) for k in range(3)]
        return E.if_(taken[0], 1, E.if_(taken[1], 2, E.if_(taken[2], 3, 4)))

    return traffic, reuse


def _sum(quantities: list[E.Quantity]) -> E.Expr:
    if not quantities:
        return E.Num(0)
    return E.Ref(quantities[0]) if len(quantities) == 1 else E.Add(tuple(map(E.Ref, quantities)))


def _prod(count: int, *factors: E.Expr) -> E.Expr:
    """``count`` times the factors (all expressions already), without generic folding."""
    if count == 0:
        return E.Num(0)
    factors = tuple([f for f in factors if type(f) is not E.Num or f.value != 1]) \
        or (E.Num(1),)
    items = factors if count == 1 else (E.Num(count), *factors)
    return items[0] if len(items) == 1 else E.Mul(items)


@dataclass(frozen=True)
class Collapsed:
    """Block sizes of one pattern per reuse case: an axis it is invariant along counts 1
    where the case keeps its elements from one step of the axis to the next.

    The same element comes back after one step of the innermost axis of the run of invariant
    axes that ends at the axis: along X after a cell (a register, in every case), along Y
    after a pencil (cases planes and pencils), along Z after a plane (case planes), or after
    a pencil when it is invariant along Y too (``w(i)`` in a 3-D nest), or after a cell when
    along X and Y too (``c(k)``).
    """

    x: E.Expr
    h_planes: E.Expr  # case planes: every invariant axis is reused
    i_planes: E.Expr
    i_pencils: E.Expr  # case pencils: axes whose elements come back within a pencil
    h_within: E.Expr  # cases within and none: axes whose elements come back within a cell
    i_within: E.Expr


def _collapsed(invariant: frozenset[int], g: E.Expr, h: E.Expr, i: E.Expr,
               inside_x: frozenset[int] = frozenset()) -> Collapsed:
    one = E.Num(1)
    back = {}  # invariant axis -> the reuse level its elements come back after (0 cell, ...)
    for axis in sorted(invariant):
        # an axis whose loop runs inside the X loop (red(i) summed over an inner j loop)
        # gives the same element back at the next cell
        back[axis] = 0 if axis in inside_x else back.get(axis - 1, axis)
    return Collapsed(one if 0 in back else g,
                     one if 1 in back else h, one if 2 in back else i,
                     one if back.get(2, 2) <= 1 else i,
                     one if back.get(1, 1) == 0 else h, one if back.get(2, 2) == 0 else i)


def _accessed(pattern: Pattern, counts: Counts, pencils: bool = False) -> E.Expr:
    """Cells (or pencils) a line per access moves per iteration, per copy: the pattern's, or
    with a stepped Y or Z loop those in their own rows and planes of the step (``a[j-1],
    a[j], a[j+1]`` of ``j += 3``: 3 rows, not the 2 folded offsets in each of the 3 rows of a
    step), over the rows and planes the copies count."""
    if pattern.step_rows == 1:
        return E.Num(counts.pencils if pencils else counts.cells)
    points = {point[1:] for point in pattern.step_points} if pencils else pattern.step_points
    return E.div(len(points), pattern.step_rows)


def _volume(x: E.Expr, h: E.Expr, i: E.Expr, ghi: E.Expr) -> E.Expr:
    """x*h*i, the shared product when nothing is collapsed."""
    return ghi if isinstance(x, E.Ref) and isinstance(h, E.Ref) and isinstance(i, E.Ref) \
        else E.mul(x, h, i)


def _x_lines(x: E.Quantity, pattern: Pattern, ctx: ModelContext, size: E.Expr) -> E.Expr:
    """A row's elements along X in whole cache lines: from where the row starts in its line
    when the source says (:func:`sat.model.exasat.lines.started_row_lines`), else from the
    start of a line."""
    if pattern.row_start is None:
        return round_to_lines(x, ctx, size)
    return started_row_lines(x, *pattern.row_start, ctx, size)


def nest_memory(shape: NestShape, space: NestSpace, ctx: ModelContext,
                write_cost: E.Expr) -> NestMemory:
    """Per-array and per-nest working sets and traffic of one nest."""
    plane_gap, pencil_gap = nest_gaps(shape)
    g, h, i = (E.Ref(b) for b in space.block)
    blocks = E.Ref(space.blocks)
    arrays: list[ArrayModel] = []
    units: dict[tuple[str, E.Expr], E.Expr] = {}
    shapes: dict[tuple, tuple[E.Expr, E.Expr, E.Expr]] = {}
    ghi = E.Mul((g, h, i))
    # Block X in whole cache lines, per element size: a complex array's lines hold half as
    # many elements as a double array's, a float array's twice as many.
    x_lines: dict[E.Expr, E.Expr] = {}
    ragged = ragged_rows(shape.loop, shape.axis_loops, shape.tiles)

    def lined(s: int, size: E.Expr, p: Pattern) -> E.Expr:
        if shape.x_tiles_share_lines:  # the tiles along X share their lines: no rounding
            return E.add(g, s)
        if ragged:  # rows of changing range: their mean lines, not the mean row's
            return ragged_row_lines(E.add(g, s), ctx, size, p.ragged_end, p.x_step)
        if p.row_start is not None:  # the source says where a row starts in its line
            return started_row_lines(E.add(g, s), *p.row_start, ctx, size)
        if s == 0:
            return x_lines.setdefault(size, round_to_lines(g, ctx, size))
        return round_to_lines(g + s, ctx, size)

    for pattern in sorted(shape.patterns, key=lambda p: (p.kind != "R", p.key.lower())):
        counts = pattern_counts(pattern.offsets, plane_gap, pencil_gap)
        sx, sy, sz = spans(pattern.offsets)
        size = pattern_bytes(ctx, shape, pattern)
        sizes = _collapsed(pattern.invariant, g, h, i, shape.inside_x)
        form = (pattern.offsets, size, pattern.invariant, pattern.unit, pattern.stride,
                pattern.row_length, pattern.row_start, pattern.ragged_end, pattern.x_step)
        if form not in shapes:  # identical stencils share their expressions

            def length(s: int, _size: E.Expr = size, _p=pattern, _g=sizes.x) -> E.Expr:
                if 0 not in _p.invariant:
                    return row_lines(lined(s, _size, _p), _p.row_length, E.add(_g, s)) \
                        if _p.stride == 1 \
                        else strided_lines(g, s, _p.stride, ctx, _size)
                # one element per change of the other indices: its neighbours along the
                # axis of its unit-stride dimension share its line; with a constant there
                # every change is a line of its own
                return E.add(_g, s) if _p.unit == "other" else \
                    round_to_lines(E.add(_g, s), ctx, _size)

            shapes[form] = (footprint(plane_terms(pattern.offsets), length, sizes.h_planes, 1),
                            footprint(volume_terms(pattern.offsets), length, sizes.h_planes,
                                      sizes.i_planes), length(sx))
        plane_expr, block_expr, x_length = shapes[form]
        if (pattern.kind, size) not in units:
            cost = array_cost(pattern.kind, ctx, write_cost)  # per word
            units[(pattern.kind, size)] = E.Div(
                E.Mul((blocks, E.div(E.mul(cost, size), ctx.param("WordBytes")))), E.Num(GB))
        unit, kb = units[(pattern.kind, size)], size / KIB
        copies = copies_expr(pattern, ctx)
        if copies != E.Num(1):  # every count holds once per copy, as in the original sheet
            unit, kb = E.mul(copies, unit), E.mul(copies, kb)
        prefix = ("array", shape.ident, pattern.key)
        once = _compulsory(shape, space, pattern, ctx, write_cost, copies, size)
        q: dict[str, E.Quantity] = {}
        for name, expr, qunit, label in (
            ("access_x", E.add(sizes.x, sx), "elements", "block access space X"),
            ("access_y", E.add(sizes.h_planes, sy), "elements", "block access space Y"),
            ("access_z", E.add(sizes.i_planes, sz), "elements", "block access space Z"),
        ):
            q[name] = E.Quantity((*prefix, name), expr, qunit, label)
        ax_lines = E.Ref(E.Quantity((*prefix, "access_x_lines"),
                                    x_length if pattern.invariant or pattern.stride > 1 else
                                    row_lines(ragged_row_lines(q["access_x"], ctx, size,
                                                               pattern.ragged_end,
                                                               pattern.x_step)
                                              if ragged else
                                              _x_lines(q["access_x"], pattern, ctx, size),
                                              pattern.row_length, q["access_x"]), "elements",
                                    "access X rounded to cache lines"))
        plane = E.Ref(E.Quantity((*prefix, "plane_elements"), plane_expr, "elements",
                                 "footprint of one plane"))
        block = E.Ref(E.Quantity((*prefix, "block_elements"), block_expr, "elements",
                                 "footprint of one block"))
        q["access_x_lines"] = ax_lines.quantity
        q["plane_elements"] = plane.quantity
        q["block_elements"] = block.quantity
        for name, expr, qunit, label in (
            ("ws_plane_kb", _prod(counts.ws_planes, kb, plane), "KiB",
             "working set for reuse between planes"),
            ("ws_pencil_kb", _prod(counts.ws_pencils, kb, ax_lines), "KiB",
             "working set for reuse between pencils"),
            ("ws_cell_kb", _prod(counts.ws_cells, kb), "KiB",
             "working set for reuse within pencils"),
            ("reuse_plane_kb", _prod(counts.reuse_planes, kb, plane), "KiB",
             "reused data for reuse between planes"),
            ("reuse_pencil_kb", _prod(counts.reuse_pencils, kb, ax_lines), "KiB",
             "reused data for reuse between pencils"),
            ("reuse_cell_kb", _prod(counts.reuse_cells, kb), "KiB",
             "reused data for reuse within pencils"),
            # every element of the block once, not rounded to cache lines: a lower bound of
            # every other case, so never more than the traffic chosen
            ("traffic_blocks_gb", once or
             _prod(1, unit, _volume(sizes.x, sizes.h_planes, sizes.i_planes, ghi)), "GB",
             "traffic per sweep with reuse between blocks"),
            # a scratch tile is in the block's working set and touched by every block: when
            # that fits (this case), it stays, moved once
            ("traffic_planes_gb", once if (pattern.local or pattern.scratch)
             and once is not None else
             _per_tile(shape, ctx, _prod(1, unit, block)), "GB",
             "traffic per sweep with reuse between planes"),
            ("traffic_pencils_gb", _prod(counts.planes, unit, plane, sizes.i_pencils), "GB",
             "traffic per sweep with reuse between pencils"),
            ("traffic_within_gb", _prod(1, _accessed(pattern, counts, pencils=True), unit,
                                        ax_lines, sizes.h_within, sizes.i_within), "GB",
             "traffic per sweep with reuse within pencils"),
            ("traffic_none_gb", _prod(1, _accessed(pattern, counts), unit,
                                      _volume(sizes.x, sizes.h_within, sizes.i_within, ghi)),
             "GB", "traffic per sweep without reuse within pencils"),
        ):
            q[name] = E.Quantity((*prefix, name), expr, qunit, label)
        if shape.inside_x:
            q.update(_sweep_quantities(shape, space, pattern, counts, q, unit, kb, ghi, ctx))
        arrays.append(ArrayModel(pattern.key, pattern.kind, counts, (sx, sy, sz), copies, size,
                                 q=q, invariant=pattern.invariant, x_step=pattern.x_step,
                                 run_copies=pattern.run_copies,
                                 step_spans=own_row_spans(pattern), step_rows=pattern.step_rows,
                                 unit_run_copies=pattern.unit_run_copies))

    reads = [a for a in arrays if a.kind == "R"]
    writes = [a for a in arrays if a.kind != "R"]
    numbers = {
        "r_arrays": len(reads),
        "rw_arrays": sum(a.kind == "RW" for a in arrays),
        "w_arrays": sum(a.kind == "W" for a in arrays),
        "rww_planes": sum(a.counts.ws_planes for a in writes),
        "rww_pencils": sum(a.counts.ws_pencils for a in writes),
        "rww_cells": sum(a.counts.ws_cells for a in writes),
    }
    q: dict[str, E.Quantity] = {}

    def nest_q(name: str, expr: E.Expr, unit: str, label: str) -> E.Quantity:
        q[name] = E.Quantity(("loop", shape.ident, name), expr, unit, label)
        return q[name]

    variants: dict[str, E.Expr] = {}
    for level in ("plane", "pencil", "cell"):
        stream = nest_q(f"ws_stream_{level}_kb", _sum([a.q[f"ws_{level}_kb"] for a in reads]),
                        "KiB", f"working set per {level}, streaming writes")
        naive = nest_q(f"ws_naive_{level}_kb",
                       E.add(stream, *[a.q[f"ws_{level}_kb"] for a in writes]),
                       "KiB", f"working set per {level}, naive")
        reuse = nest_q(f"ws_reuse_{level}_kb",
                       _sum([a.q[f"reuse_{level}_kb"] for a in reads]),
                       "KiB", f"working set per {level}, reuse only")
        variants[level] = actual_variant(naive, stream, reuse, ctx)
    sweeps = E.mul(space.probability, space.sweeps)  # expected sweeps of the nest
    for case in CASES:
        nest_q(f"traffic_{case}_gb",
               E.mul(sweeps, _sum([a.q[f"traffic_{case}_gb"] for a in arrays])),
               "GB", f"traffic with reuse {case}")

    cell = nest_q("ws_actual_cell_kb", variants["cell"], "KiB", "working set per cell, actual")
    pencil, plane = actual_chain(q, cell, variants["pencil"], variants["plane"], nest_q)
    cases = [q[f"traffic_{c}_gb"] for c in CASES[1:]]
    if shape.inside_x:
        nest_q("ws_sweep_kb", _sum([a.q["ws_sweep_kb"] for a in arrays]), "KiB",
               "working set of one step of X")
        nest_q("traffic_strided_gb", E.mul(sweeps, _sum([a.q["traffic_strided_gb"]
                                                         for a in arrays])),
               "GB", "traffic when one step of X does not fit")
        add_row_window(shape, arrays, {p.key: p.offsets for p in shape.patterns
                                if window_span(shape, p)}, sweeps, ctx, nest_q)
    traffic, case_taken = strided_condition(
        q, *layer_condition([plane, pencil, cell], ctx.param("CacheKB"), cases),
        ctx.param("CacheKB"))
    nest_q("traffic_gb", traffic, "GB", "memory traffic, actual")
    nest_q("reuse", case_taken(q["traffic_gb"]), "level",
           "reuse level: 1 planes, 2 pencils, 3 within pencils, 4 none (the case taken)")
    fits = E.compare("<", q["ws_sweep_kb"], ctx.param("CacheKB")) if shape.inside_x else None
    return NestMemory(arrays, numbers, q, sweeps, variants, fits)


def _compulsory(shape: NestShape, space: NestSpace, pattern: Pattern, ctx: ModelContext,
                write_cost: E.Expr, copies: E.Expr, size: E.Expr) -> E.Expr | None:
    """Every element of the pattern once per sweep of the nest, reused across blocks along
    the axes it is invariant along, one tile along those it is a scratch tile on, and only
    over the sweeps that bring it new elements (:mod:`sat.model.exasat.compulsory`); None
    when that is the block count times the block (the pattern steps along every axis with
    loops and every sweep repeats it)."""
    every = tuple(range(len(shape.sweep_loops)))
    new_sweeps = every if pattern.new_sweeps is None else pattern.new_sweeps
    # an axis it does not step along adds no element, in any loop order (red(i) summed
    # over an inner j loop)
    invariant = pattern.invariant | pattern.unstepped
    # a stepped pattern's offsets count steps, its residues within a step already hold the
    # elements a shifted access adds (c(ti + ii) over tiles of ii: offsets 0 and 1 step)
    halo = any(spans(pattern.offsets)) and pattern.step_copies == 1
    # (a stepped pattern or a scratch tile keeps its own count)
    # (a loop stepping along X by a few elements, one residue: its steps as the grid)
    taken = arm_chances(pattern, ctx, shape.procedure.file) if pattern.step_elements == 1 \
        and not pattern.local and not shape.tiles else None
    groups = [] if pattern.local or taken is not None else stepped_groups(list(zip(
        (point for point, _ in pattern.arm_points), pattern.step_residues, strict=False)))
    beyond = _beyond_loop(shape, pattern, new_sweeps) if not groups and not pattern.local \
        and not shape.tiles and pattern.step_copies == pattern.step_elements == 1 else None
    if not invariant and not pattern.local and new_sweeps == every and not halo and \
            pattern.step_elements == pattern.step_copies and taken is None and not groups \
            and beyond is None:
        return None
    # along an invariant axis, one element per other index: none when the axis runs no
    # iteration (then neither does the nest)
    base = [(E.minimum(1, E.Ref(space.extent[a])) if shape.axis_loops[a] else E.Num(1))
            if a in invariant else E.Ref(space.block[a]) if a in pattern.local
            else E.Ref(space.extent[a]) for a in range(3)]
    mean_x = base[0]
    if not shape.tiles:  # a repetition's ranges held by its widest ones
        base = widest_extents(shape.loop, shape.axis_loops, shape.sweep_loops, new_sweeps,
                              base, invariant | pattern.local, lambda lp: trip_count(lp, ctx),
                              lambda path: summed_trip_count(path, ctx,
                                                             lambda lp: trip_count(lp, ctx)))
        # ranges moved by a loop the pattern does not step along: their union, the widest
        base = widest_across_invariant_axes(
            shape.axis_loops, invariant - pattern.local, base,
            [isinstance(b, E.Ref) and b.quantity is space.extent[a] and a not in pattern.local
             for a, b in enumerate(base)], lambda lp: trip_count(lp, ctx))
    along = [E.Ref(space.extent[a]) for a in invariant if shape.axis_loops[a]]
    repeats = E.mul(*along) if along else None

    def exact(points: frozenset[Point]) -> E.Expr | None:  # a triangle's shifted copies
        return None if invariant or pattern.local else \
            triangle_union(shape, points, new_sweeps, ctx)

    factors = [stepped_union([point for point, _ in pattern.arm_points], groups,
                             lambda points: exact(points) or stencil_union(points, base, space),
                             None if shape.tiles else arm_chances(pattern, ctx,
                                                                  shape.procedure.file),
                             base, repeats)] if groups \
        else [exact(pattern.offsets) or E.add(
            stencil_union(pattern.offsets, base, space),
            _triangle_columns(shape, pattern, base, base[0] is mean_x, ctx))] if halo \
        else \
        [base[a] for a in range(3) if a not in invariant or shape.axis_loops[a]]
    if taken is not None:  # references inside if/else arms: the elements they touch
        expected = expected_elements(taken, base, repeats)
        # never more than the union of the offsets (an extent narrower than the offsets'
        # span, where the edges of the grid overlap)
        factors = [E.minimum(expected, factors[0]) if halo else
                   E.if_(E.compare(">", space.iterations, 0), expected, 0)]
    if beyond is not None:  # offsets along a loop beyond the axes: the union of four axes
        chances = arm_chances(pattern, ctx, shape.procedure.file)
        factors = [E.if_(E.compare(">", space.iterations, 0), beyond_union(
            pattern.beyond, [point for point, _ in pattern.arm_points],
            None if chances is None else [p for _, p in chances], base,
            trip_count(beyond, ctx), repeats), 0)]
        if any(lp is beyond for lp in shape.sweep_loops):  # its trips are in the union
            new_sweeps = tuple(n for n in new_sweeps if shape.sweep_loops[n] is not beyond)
        else:
            copies = E.div(copies, trip_count(beyond, ctx))
    if groups:  # every residue's elements counted in its union, not the lines they move
        copies = E.div(copies, pattern.step_copies)
    elif pattern.step_elements != pattern.step_copies:  # elements, not the lines they move
        copies = E.mul(copies, E.div(pattern.step_elements, pattern.step_copies))
    if new_sweeps != every:  # per sweep of the nest: the sweeps that repeat it over all
        factors.append(E.div(E.mul(*[trip_count(shape.sweep_loops[n], ctx)
                                     for n in new_sweeps]),
                             E.mul(*[trip_count(lp, ctx) for lp in shape.sweep_loops])))
    cost = array_cost(pattern.kind, ctx, write_cost)
    per_element = E.div(E.div(E.mul(cost, size), ctx.param("WordBytes")), E.Num(GB))
    return E.mul(copies, per_element, *factors)


def _beyond_loop(shape: NestShape, pattern: Pattern, new_sweeps: tuple[int, ...]
                 ) -> Loop | None:
    """The loop beyond the axes along which the pattern's references sit at several offsets
    (:mod:`sat.model.exasat.beyond_axes`), when it is a sweep bringing the pattern new
    elements or the pattern's one component loop; None otherwise."""
    if pattern.beyond is None:
        return None
    loop = pattern.beyond[0]
    if any(shape.sweep_loops[n] is loop for n in new_sweeps) or \
            (len(pattern.copy_chains) == 1 and len(pattern.copy_chains[0]) == 1
             and pattern.copy_chains[0][0] is loop):
        return loop
    return None


def _triangle_columns(shape: NestShape, pattern: Pattern, base: list[E.Expr], plain: bool,
                      ctx: ModelContext) -> E.Expr:
    """What a halo along Y adds over a triangle beyond rows of mean length
    (:func:`triangle_halo`); ``plain``: X's extent is its mean trip count."""
    found = triangle_halo(shape.loop, shape.axis_loops, pattern.offsets, pattern.invariant,
                          plain, volume_terms(pattern.offsets), base[2])
    return E.Num(0) if found is None else \
        E.mul(E.maximum(0, E.add(trip_count(found[0], ctx), E.mul(-1, base[0]))), found[1])


def arm_chances(pattern: Pattern, ctx: ModelContext, file: str
                ) -> list[tuple[Point, float]] | None:
    """Each reference's offset and the chance an iteration makes it (the product of its
    arms' probabilities); None when every reference runs every iteration."""
    taken = [(point, path_chance(path, ctx, file)) for point, path in pattern.arm_points]
    return taken if any(p < 1.0 for _, p in taken) else None


def stencil_union(offsets: frozenset[Point], base: list[E.Expr], space: NestSpace) -> E.Expr:
    """Distinct elements of a stencil over the grid of ``base`` points per axis: the union of
    the grid shifted by every offset (each axis's extent plus the offsets' span where they
    reach, exactly, corners of a star left out), none when the nest runs no iteration."""
    union = sparse_axis_union(offsets, base) or \
        footprint(volume_terms(offsets), lambda s: E.add(base[0], s), base[1], base[2])
    return E.if_(E.compare(">", space.iterations, 0), union, 0)


def _per_tile(shape: NestShape, ctx: ModelContext, traffic: E.Expr) -> E.Expr:
    """``traffic`` once over the repetitions inside the source's tile loops: the block they
    repeat stays in cache when it fits (:func:`sat.model.exasat.compulsory.tile_repeats`)."""
    if not shape.tile_repeats:
        return traffic
    return E.div(traffic, E.mul(*[trip_count(shape.sweep_loops[n], ctx)
                                  for n in shape.tile_repeats]))


def _sweep_quantities(shape: NestShape, space: NestSpace, pattern: Pattern, counts: Counts,
                      q: dict[str, E.Quantity], unit: E.Expr, kb: E.Expr, ghi: E.Expr,
                      ctx: ModelContext) -> dict[str, E.Quantity]:
    """The sweep condition of a nest whose X loop encloses loops of Y or Z (``c[i] +=
    a[i][j]*b[i]`` with ``j`` outer): what one step of X touches, and the traffic when that
    does not stay in cache until the next step.

    An array stepping along X with its unit-stride dimension on X (``a``) touches one cache
    line per pencil and point of the inner loops, and without the sweep in cache moves that
    whole line per access; one invariant along X (``b``, ``c``) touches its inner footprint,
    reused at the next step of X when the sweep fits and read again otherwise; one stepping
    along X with its unit stride on an inner axis moves an element per access either way.
    """
    g, h, i = (E.Ref(b) for b in space.block)
    inner = [h if 1 in shape.inside_x else E.Num(1), i if 2 in shape.inside_x else E.Num(1)]
    per_line = elements_per_line(ctx, pattern_bytes(ctx, shape, pattern))
    if pattern.x_step != 1:  # the copies of one step of a stepped X loop share its line
        per_line = E.div(per_line, pattern.x_step)
    rows = _sweep_rows(pattern, counts, inner)
    if 0 in pattern.invariant:
        elements = _prod(1, rows, E.Ref(q["access_x_lines"]))
        strided = E.mul(g, q["traffic_within_gb"])
    elif _held_inside_x(shape, pattern):  # its line is the one every inner iteration
        elements = _prod(counts.pencils, per_line)  # touches: it stays, moved once
        strided = E.Ref(q["traffic_within_gb"])
    elif pattern.unit == "other":
        elements = rows
        strided = E.Ref(q["traffic_none_gb"])
    else:
        elements = _prod(1, rows, per_line)  # (references inside arms: their chances)
        strided = _prod(1, touched_pencils(pattern, ctx, shape.procedure.file)
                        or _accessed(pattern, counts, pencils=True), per_line, unit, ghi)
    prefix = ("array", shape.ident, pattern.key)
    found = {"ws_sweep_kb": E.Quantity((*prefix, "ws_sweep_kb"), E.mul(elements, kb), "KiB",
                                       "working set of one step of X"),
             "traffic_strided_gb": E.Quantity((*prefix, "traffic_strided_gb"), strided, "GB",
                                              "traffic per sweep when one step of X does not "
                                              "fit")}
    if window_span(shape, pattern):  # rows walked across, offsets along the walk
        found.update(window_reuse(prefix, shape, space, pattern, found["traffic_strided_gb"],
                                  ctx))
    return found


def _held_inside_x(shape: NestShape, pattern: Pattern) -> bool:
    """Whether a pattern stepping along X with its unit stride on X is invariant along every
    loop inside the X loop (``red(i)`` or ``coef(i)`` in ``do i; do j``): each inner
    iteration touches the same line, the most recently used one, so it stays in any cache
    while X does not move, and its lines along X move once, however little the level holds."""
    return pattern.unit == "x" and pattern.stride == 1 and bool(shape.inside_x) \
        and shape.inside_x <= pattern.invariant


def _sweep_rows(pattern: Pattern, counts: Counts, inner: list[E.Expr]) -> E.Expr:
    """Rows (pencils) one step of X touches over the inner loops of Y and Z (``inner``,
    their block sizes; 1 for an axis whose loop is not inside X's).

    Along an inner axis the pattern does not step along (``coef(i)`` under loops of ``j``
    and ``k``) its row is the same at every inner step. Its pencils shifted over the inner
    block share rows (``a(i,k)``, ``a(i,k+1)``, ``a(i,k+2)`` over 8 steps of ``k``: 10
    rows, not 24): no more than the box the shifted block spans, ``(H + span Y) x (I +
    span Z)``. With a stepped Y or Z loop, the pencils in their own rows of the step, over
    the rows its copies count (as a line per access moves them), not the folded pencils in
    every row."""
    h, i = (E.Num(1) if axis in pattern.invariant else block
            for axis, block in zip((1, 2), inner, strict=True))
    if pattern.step_rows != 1:
        return _prod(1, _accessed(pattern, counts, pencils=True), h, i)
    every = _prod(counts.pencils, h, i)
    if h == E.Num(1) and i == E.Num(1):
        return every
    pencils = sorted({(y, z) for _, y, z in pattern.offsets})
    if len(pencils) > UNION_PENCILS:
        _, span_y, span_z = spans(pattern.offsets)
        return E.minimum(every, E.mul(E.add(h, span_y), E.add(i, span_z)))
    return shifted_rows(tuple(pencils), h, i)


def strided_condition(q: dict[str, E.Quantity], traffic: E.Expr, reuse, capacity: E.ExprLike):
    """(traffic, reuse) of :func:`layer_condition` under the sweep condition: when one step of
    X does not fit in ``capacity`` (``ws_sweep_kb``, a nest whose X loop encloses others), the
    strided traffic and no reuse (4); unchanged for a nest in ExaSAT's loop order."""
    if "ws_sweep_kb" not in q:
        return traffic, reuse
    fits = E.compare("<", q["ws_sweep_kb"], capacity)

    def case(taken_traffic: E.Quantity) -> E.Expr:
        return E.if_(fits, reuse(taken_traffic), 4)

    return E.if_(fits, traffic, strided_traffic(q, capacity)), case


# ---------------------------------------------------------------- the Arrays sheet



_LEVELS = (("plane", "Plane"), ("pencil", "Pencil"), ("cell", "Cell"))
TRAFFIC_CASES = (
    ("blocks", "Reuse between blocks",
     "compulsory: every element once, the halo of the grid once (a lower bound, never chosen)"),
    ("planes", "Reuse between planes",
     "the block footprint (block plus halos, whole cache lines) loaded once per block"),
    ("pencils", "Reuse between pencils",
     "planes touched times one plane's footprint, for every plane of the block"),
    ("within", "Reuse within pencils",
     "pencils touched times the access X extent (cache lines), for every pencil"),
    ("none", "No reuse within pencils",
     "cells touched times the block volume: one element per access"),
)

ARRAY_COLUMNS: list[Column] = [
    *nest_columns(),
    _c("array", "Array.component", "", "Array-component pair (name.component)."),
    _c("access", "Access", "", "R read-only, RW read and written, W written (first or only)."),
    _c("copies", "Copies", "", "Copies of the pair per cell: the trips of the component "
       "loops inside the grid loops that subscript it (1 if none; a component loop around "
       "the grid loops is counted in the nest's sweeps). Working sets and traffic include "
       "them; the stencil counts are per copy."),
    _c("element_bytes", "Element", "B", "Bytes of one element: the array's Bytes_<array> "
       "parameter (Parameters sheet, group 'Array element sizes'), by default its declared "
       "type's size as a formula of WordBytes: WordBytes for a double precision real, half of "
       "it for a single precision real or a 4-byte integer, twice it for a double precision "
       "complex. Edit the parameter to change it."),
    _c("planes", "Planes", "", "Distinct Z planes the stencil touches per iteration.",
       "Touched"),
    _c("pencils", "Pencils", "", "Distinct (Y, Z) pencils the stencil touches per iteration.",
       "Touched"),
    _c("cells", "Cells", "", "Distinct cells (offsets) the stencil touches per iteration.",
       "Touched"),
    _c("ws_planes", "Planes", "", "Planes held for reuse between planes: span plus the "
       "nest's largest plane gap.", "Working set"),
    _c("ws_pencils", "Pencils", "", "Pencils held for reuse between pencils: per plane, "
       "span plus the nest's largest pencil gap.", "Working set"),
    _c("ws_cells", "Cells", "", "Cells held for reuse within a pencil.", "Working set"),
    _c("reuse_planes", "Planes", "", "Planes held counting only reused data (0 when one "
       "plane is touched and its pencils are not reused).", "Reuse working set"),
    _c("reuse_pencils", "Pencils", "", "Pencils held counting only planes with more than "
       "one pencil.", "Reuse working set"),
    _c("reuse_cells", "Cells", "", "Cells held counting only reused data.",
       "Reuse working set"),
    *[_c(f"span_{a}", f"Span {a.upper()}", "elements", f"Largest minus smallest {a.upper()} "
         "offset of the stencil.", "Stencil") for a in "xyz"],
    _c("access_x", "X", "elements", "Block X plus the stencil's X span.", "Block access space"),
    _c("access_y", "Y", "elements", "Block Y plus the stencil's Y span.", "Block access space"),
    _c("access_z", "Z", "elements", "Block Z plus the stencil's Z span.", "Block access space"),
    _c("access_x_lines", "X (cache lines)", "elements",
       "Access X rounded up to whole cache lines.", "Block access space"),
    _c("plane_elements", "Plane footprint", "elements", "Elements of one plane the stencil "
       "touches over a block (union of the shifted block, X in whole cache lines)."),
    _c("block_elements", "Block footprint", "elements", "Elements the stencil touches over "
       "a block (union of the shifted block, X in whole cache lines)."),
    *[_c(f"ws_{k}_kb", f"WS/{k}", "KiB", f"Working set for reuse between {k}s "
         f"(the array's Bytes_ parameter per element).",
         "Working set (all data)") for k, _ in _LEVELS],
    *[_c(f"reuse_{k}_kb", f"WS/{k}", "KiB", f"Working set for reuse between {k}s, reused "
         f"data only.", "Working set (reuse only)") for k, _ in _LEVELS],
    *[_c(f"traffic_{k}_gb", h, "GB", f"Traffic per sweep, {c}.", "Traffic per sweep",
         "0.000000") for k, h, c in TRAFFIC_CASES],
]
