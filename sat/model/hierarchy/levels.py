"""Traffic at every level of the memory hierarchy: the layer condition per cache level.

ExaSAT's model (:mod:`~sat.model.exasat.memory`) has one cache, ``CacheKB``.  A machine with several
cache levels (``L1KB``, ``L2KB``, …; :mod:`sat.parameters.levels`) gets, per nest and level, the
reuse case that holds at that level (the layer condition: planes, pencils, within pencils or
none, ExaSAT's cases) and the bytes moved between that level and the next one out, loads plus
write-backs.  The last cache level's traffic is the memory traffic of the hierarchy.

It is ExaSAT's rule with two changes that matter at small caches:

- **Cache-line granularity within a pencil.**  Reuse within a pencil keeps, for every pencil
  the stencil touches, the cache lines its X offsets span: ``ceil(span / elements per line)
  + 1`` lines (one line for a single offset), not one word per cell as ExaSAT counts; and
  without that reuse every access moves a whole line.  (ExaSAT's columns keep their words.)
  A step along X moves one line per access, whatever elements it skips; the footprints
  along X count a stride's lines, rows that lie back to back and tiles of X one after the
  other without rounding each to whole lines (:mod:`sat.model.exasat.memory`).
- **Capacity of exclusive and victim caches** adds the capacity of the levels inside it (their
  contents do not repeat each other).

The same read, read-write and write costs (``ReadCost``, …) and the same StreamingWrites /
NTAHints variants apply at every level.  Caches are taken as fully associative with LRU
replacement; a link's reads and write-backs are counted together (exact for a half-duplex
link, pessimistic for a full-duplex one).

**Gathers and scatters** (:mod:`sat.model.irregular.gathers`) move, per level, the lines
their visits miss in an LRU cache of the level's capacity beside the lines the nest's other
arrays bring in (:mod:`sat.model.irregular.gather_lru`): the distinct lines of the draws
when the range stays, more when the streams push its lines out.  Those bytes replace the
indexed array's count as a stream at the condition the level takes (the index array stays
a stream, as on the Loops sheet); the Loops sheet keeps the Gathers sheet's rule at
``CacheKB`` (a range that fits moves its lines once), so the two differ by the lines the
streams push out.

**Repetitions** (:mod:`sat.model.hierarchy.repetitions`): a loop whose variable subscripts
no reference, or a pass of a time loop, moves the data at a level only when what one of its
trips touches does not fit the level's capacity; otherwise the first trip moves it and the
others move nothing (the Repeats column). ExaSAT's Loops sheet moves it at every trip, so
with repetitions the last cache level's traffic may be less than the Loops sheet's. Tiles of
X the source writes share the lines at their edges in what a trip touches: an array's rows
count the whole X range in lines when that is less than every tile's row in whole lines.

``WarmCaches`` (FALSE by default: one sweep from memory, as ExaSAT) set TRUE is Kerncraft's
steady state: the nest runs again and again, so a level that holds all the data the nest
touches (per thread) moves nothing to or from the level further out (condition 0,
"resident").

A machine with ExaSAT's single on-chip cache has one level, ``on-chip``, whose numbers are
ExaSAT's: capacity ``CacheKB``, the Loops sheet's traffic and reuse, bandwidth ``GBsPerCore``.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from sat.machine.levels import ON_CHIP
from sat.model import expr as E
from sat.model.context import ModelContext, derive_default
from sat.model.exasat.iteration import NestShape, NestSpace
from sat.model.exasat.lines import elements_per_line, program_shapes, round_to_lines, row_lines
from sat.model.exasat.memory import (
    CASES,
    GB,
    KIB,
    ArrayModel,
    NestMemory,
    actual_chain,
    layer_condition,
    strided_condition,
)
from sat.model.hierarchy.held_arrays import (
    held_arrays,
    held_over_repetitions,
    held_traffic,
    tiled_along_x,
)
from sat.model.hierarchy.pass_data import PassFootprint, pass_footprint
from sat.model.hierarchy.repetitions import PassData, moving_repetitions, repetition_loops
from sat.model.hierarchy.runs import run_elements_per_line, run_lines_held
from sat.model.hierarchy.straddle import straddled_case, straddled_traffic, unstraddled_lines
from sat.model.hierarchy.tile_lines import tile_lines, tile_traffic
from sat.model.tables import CellValue, Column, nest_columns
from sat.model.tables import column as _c
from sat.parameter import LevelSpec, ParameterSet

if TYPE_CHECKING:  # the irregular-access model is read only for a program with gathers
    from sat.model.irregular.gathers import GatherTraffic

# Layer condition codes, as the Loops sheet's reuse column, -> the names of the JSON.
CONDITIONS = {0: "resident", 1: "planes", 2: "pencils", 3: "within", 4: "none"}

LEVEL_COLUMNS: list[Column] = [
    *nest_columns(),
    _c("level", "Level", "", "Cache level (the machine file's name), innermost first."),
    _c("size_kib", "Capacity", "KiB", "Capacity per thread the layer condition compares "
       "with: the level's parameter (LnKB; for a shared level, LnKB x LnSharedBy / MAX(1, "
       "MIN(Cores, LnSharedBy)): the instance over the cores in use that share it), plus the "
       "inner levels' for an exclusive or victim cache; CacheKB for ExaSAT's single on-chip "
       "cache."),
    _c("ws_plane_kb", "WS/plane", "KiB", "Working set for reuse between planes (actual "
       "variant).", "Working set"),
    _c("ws_pencil_kb", "WS/pencil", "KiB", "Working set for reuse between pencils (actual "
       "variant).", "Working set"),
    _c("ws_cell_kb", "WS/cell", "KiB", "Working set for reuse within pencils, in whole "
       "cache lines per pencil touched (ExaSAT's words on a one-level machine).",
       "Working set"),
    _c("ws_sweep_kb", "WS/sweep", "KiB", "Only for a nest whose X loop (the unit-stride "
       "axis) encloses loops of Y or Z (c[i] += a[i][j]*b[i], j outer): the data one step of "
       "X touches, a whole cache line per access of an array stepping along X, the inner "
       "footprint of one invariant along X. When it does not fit, each such access moves a "
       "whole line and the invariant arrays are read again at every step of X (condition "
       "4); blank otherwise.", "Working set"),
    _c("data_kib", "Data", "KiB", "Data the nest touches per thread (every array's "
       "footprint over its blocks, whole cache lines) / Cores: with WarmCaches TRUE, a level "
       "it fits in keeps it from one run of the nest to the next."),
    _c("layer_condition", "Condition", "case", "The reuse case that holds at this level: "
       "0 all the nest's data stays in it (WarmCaches), 1 planes, 2 pencils, 3 within "
       "pencils, 4 none.",
       words=tuple(CONDITIONS[case] for case in sorted(CONDITIONS)), first_code=min(CONDITIONS)),
    _c("repeats", "Repeats", "", "Only for a nest with repetitions (loops whose variable "
       "subscripts no reference, passes of a time loop): how many of their runs move the "
       "data over the link out, each repetition loop counting 1 when what one of its trips "
       "touches (Data times the trips of the sweeps inside it that bring new elements; for "
       "a time loop around several nests, what all of them touch) fits this level's "
       "Capacity, its trips otherwise. Traffic is the one sweep's traffic times Repeats "
       "over all the repetitions; blank without repetitions."),
    _c("gathers_gb", "Gathers", "GB", "Of Traffic, the change the nest's gathers and "
       "scatters make (Gathers sheet's model with this level's capacity for CacheKB: "
       "compulsory lines plus the revisits that miss, x 2 when written) less the indexed "
       "arrays' count as streams at this level's condition; empty without gathers.",
       "Transfer", "0.000000"),
    _c("traffic_gb", "Traffic", "GB", "Bytes moved between this level and the next one out "
       "per run of the nest (loads plus write-backs), gathers and scatters included.",
       "Transfer", "0.000000"),
    _c("bytes_per_iteration", "Per iteration", "B", "The same per iteration of the nest.",
       "Transfer", "0.00"),
    _c("bandwidth_gbs", "Bandwidth", "GB/s", "Bandwidth of the link out for all Cores: "
       "per-core links times Cores; a memory interface's bandwidth times the interfaces the "
       "Cores use (at least one).", "Transfer"),
    _c("time_s", "Time", "s", "Traffic / bandwidth: the time of the transfers over this "
       "link at its throughput (the ECM sheet's Roofline takes measured bandwidths instead "
       "when the machine file has them).", "Transfer"),
]


@dataclass
class NestLevels:
    """The per-level quantities of one nest, by level name, and its Levels-sheet rows."""

    rows: list[dict[str, CellValue]]
    traffic: dict[str, E.Quantity] = field(default_factory=dict)
    bytes_per_iteration: dict[str, E.Quantity] = field(default_factory=dict)
    time: dict[str, E.Quantity] = field(default_factory=dict)
    condition: dict[str, E.Quantity] = field(default_factory=dict)
    bandwidth: dict[str, E.Quantity] = field(default_factory=dict)  # the link's, all Cores


class Hierarchy:
    """The quantities every nest shares: each level's capacity and aggregate bandwidth."""

    def __init__(self, specs: list[LevelSpec], ctx: ModelContext):
        self.specs = specs
        self.passes = PassData()  # what a pass of a time loop touches, over all its nests
        # the program's declared array shapes (the whole arrays a pass touches at most)
        self.shapes: dict[str, tuple[str, ...]] = program_shapes(ctx.read_procedures.values())
        self.capacity: dict[str, E.Quantity] = {}
        self.bandwidth: dict[str, E.Quantity] = {}
        cores = ctx.param("Cores")
        if not specs:
            self.capacity[ON_CHIP] = E.Quantity(("level", ON_CHIP, "size_kib"),
                                                ctx.param("CacheKB"), "KiB", "on-chip capacity")
            self.bandwidth[ON_CHIP] = E.Quantity(("level", ON_CHIP, "bandwidth_gbs"),
                                                 E.mul(ctx.param("GBsPerCore"), cores), "GB/s",
                                                 "memory bandwidth of all cores")
            return
        inner: E.Quantity | None = None
        for spec in specs:
            # an exclusive or victim cache holds what the level inside it does not: their
            # capacities add (as for CacheKB, sat.machine.levels.on_chip_kib_per_core)
            own = own_capacity(spec)
            capacity = E.add(own, inner) if spec.adds_inner and inner is not None else own
            inner = self.capacity[spec.name] = E.Quantity(
                ("level", spec.name, "size_kib"), capacity, "KiB",
                f"{spec.name} capacity per thread")
            instances = cores if spec.link_shared_by == 1 else \
                E.maximum(1, cores / spec.link_shared_by)
            self.bandwidth[spec.name] = E.Quantity(
                ("level", spec.name, "bandwidth_gbs"), E.mul(ctx.param(spec.bandwidth),
                                                             instances),
                "GB/s", f"{spec.link} bandwidth of all cores")


def own_capacity(spec: LevelSpec) -> E.Expr:
    """A level's own capacity per thread: its parameter, or for a shared level the instance's
    size over the cores in use that share it (one core running alone owns the whole cache)."""
    own: E.Expr = E.Param(spec.capacity)
    if spec.shared_by:
        sharing = E.Param(spec.shared_by)
        own = E.mul(own, sharing) / E.maximum(1, E.minimum(E.Param("Cores"), sharing))
    return own


def derive_machine_defaults(params: ParameterSet) -> None:
    """On a machine with several cache levels, ExaSAT's ``CacheKB`` and ``GBsPerCore`` stand
    for level parameters: ``CacheKB`` is the last cache level's capacity per thread (plus the
    inner levels' while it is an exclusive or victim cache, as the Levels sheet counts it),
    ``GBsPerCore`` the memory link's bandwidth over the cores sharing it.  Each becomes a
    derived default of them, so one edit moves the ExaSAT model and the per-level ones alike
    (a value given for it wins)."""
    specs = params.levels
    if not specs or "CacheKB" not in params or "GBsPerCore" not in params:
        return
    index = len(specs) - 1
    capacity = own_capacity(specs[index])
    while index > 0 and specs[index].adds_inner:
        index -= 1
        capacity = E.add(capacity, own_capacity(specs[index]))
    derive_default(params, "CacheKB", capacity, f"the {specs[-1].name} capacity per thread"
                   + (", plus the levels inside it (exclusive or victim)"
                      if index < len(specs) - 1 else ""))
    memory = specs[-1]
    if params[memory.bandwidth].formula:  # the memory link's bandwidth derives from GBsPerCore
        return
    derive_default(params, "GBsPerCore", E.div(E.Param(memory.bandwidth), memory.link_shared_by),
                   f"the {memory.link} link's bandwidth over the {memory.link_shared_by:g} cores "
                   "sharing it")


def executed_iterations(space: NestSpace) -> E.Expr:
    """Iterations the nest runs, counting the chance that it runs at all."""
    return E.mul(space.probability, space.iterations)


def _lines_within(array: ArrayModel, ctx: ModelContext) -> E.Expr:
    """Cache lines ``array`` keeps for reuse within its pencils (per copy; the elements of
    one step of a stepped X loop share the line of their access)."""
    spans = Counter(pencil_spans(array))
    per_line = elements_per_line(ctx, array.size)
    terms: list[E.Expr] = [E.Num(spans.pop(0, 0))]
    for span, count in sorted(spans.items()):
        terms.append(E.mul(count, E.add(E.ceiling(E.div(span, per_line)), 1)))
    if array.run_copies:  # one contiguous run (a CSR row's val(k)): its copies share the
        return E.add(*terms)  # line of the access, the next copy reuses it at once
    if array.unit_run_copies:  # a short run of neighbours per cell: the lines it spans
        return E.mul(run_lines_held(array, ctx), E.add(*terms))
    return E.mul(_line_copies(array), E.add(*terms))


def _line_copies(array: ArrayModel) -> E.Expr:
    """Copies of ``array`` that each move a line of their own per access: its copies less
    the elements of a step of a stepped X loop (``a(i)`` of ``do i = 1, n, 2`` spans two
    elements per access, one line), and less the rows (planes) of a step of a stepped Y or
    Z loop where its pencils are counted in their own rows (:func:`pencil_spans`)."""
    copies = array.copies if array.x_step == 1 else E.div(array.copies, array.x_step)
    return E.div(copies, array.step_rows) if array.step_spans else copies


def pencil_spans(array: ArrayModel) -> tuple[int, ...]:
    """The X span of each pencil ``array`` touches at once: with a stepped Y or Z loop, of
    each row (plane) of the step in its own row (whose copies :func:`_line_copies` does not
    count again), else of its pencils."""
    return array.step_spans or array.counts.pencil_x_spans


def _line_per_access(array: ArrayModel, ctx: ModelContext) -> E.Expr:
    """Elements of ``array`` (its traffic without reuse counts one per access and copy) that
    a whole line per access stands for (a cell's short run of copies: the lines the run
    spans, shared among its copies)."""
    if array.unit_run_copies:
        return run_elements_per_line(array, ctx)
    per_line = elements_per_line(ctx, array.size)
    return per_line if array.x_step == 1 else E.div(per_line, array.x_step)


def _unstraddled(memory: NestMemory, ctx: ModelContext, either: E.Expr, nest_q
                 ) -> tuple[E.Quantity, E.Quantity]:
    """(the cell working set at positions where no window of X offsets straddles a line,
    the chance that one does at a position): :mod:`sat.model.hierarchy.straddle`."""
    line_kb = ctx.param("LineBytes") / KIB
    parts = {a.key: unstraddled_lines(a, ctx, _lines_within(a, ctx),
                                       _line_copies(a), pencil_spans(a)) for a in memory.arrays}
    reads = [parts[a.key] for a in memory.arrays if a.kind == "R"]
    every = list(parts.values())

    def total(items: list[tuple[E.Expr, E.Expr]], index: int) -> E.Expr:
        return E.add(*[item[index] for item in items])

    lines = nest_q("ws_unstraddled_cell_kb", E.mul(line_kb, E.if_(
        either, total(reads, 0), total(every, 0))), "KiB",
        "working set per cell where no window of X offsets straddles a line")
    chance = nest_q("straddle_chance", E.if_(either, total(reads, 1), total(every, 1)), "",
                    "chance that a window of X offsets straddles a line at a position")
    return lines, chance


def _sweep(q: dict[str, E.Quantity]) -> dict[str, CellValue]:
    """The WS/sweep cell of a nest whose X loop encloses others (no key for the others)."""
    return {"ws_sweep_kb": q["ws_sweep_kb"]} if "ws_sweep_kb" in q else {}


def _stream_share(memory: NestMemory, keys: frozenset[str], condition: E.ExprLike,
                  ctx: ModelContext) -> E.Expr:
    """Traffic (GB) the arrays ``keys`` move as streams at a level in ``condition`` (1 planes,
    2 pencils, 3 within pencils, 4 none: a line per access, as the level's own count)."""
    arrays = [a for a in memory.arrays if a.key in keys]
    sums = [E.add(*[a.q[f"traffic_{case}_gb"] for a in arrays]) for case in CASES[1:-1]]
    sums.append(E.add(*[a.q["traffic_within_gb"] if 0 in a.invariant else
                        E.mul(_line_per_access(a, ctx), a.q["traffic_none_gb"])
                        for a in arrays]))
    return E.mul(memory.sweeps, E.if_(E.compare("=", condition, 1), sums[0], E.if_(
        E.compare("=", condition, 2), sums[1], E.if_(E.compare("=", condition, 3), sums[2],
                                                     sums[3]))))


def _gather_other_kb(memory: NestMemory, gather: GatherTraffic, condition: E.Quantity,
                     working_sets: tuple[E.Quantity, E.Quantity, E.Quantity],
                     ctx: ModelContext) -> E.Expr:
    """KiB the nest's other arrays hold at a level in ``condition``: the level's working set
    for its case (planes, pencils; within pencils or none: the lines in use, its cell) less
    the shares of the indexed array and of the arrays touched once per trip of a loop
    around the gather (held or not as the gather's visits allow: ``gather.rows``)."""
    plane, pencil, cell = working_sets
    keys = {gather.own, *(row.key for row in gather.rows)}
    apart = [a for a in memory.arrays if a.key in keys]

    def other(total: E.Quantity, name: str) -> E.Expr:
        if not apart:
            return E.Ref(total)
        shares = []
        for array in apart:
            own_cell = E.mul(ctx.param("LineBytes") / KIB, _lines_within(array, ctx))
            shares.append(own_cell if name == "cell" else E.if_(
                E.compare("<=", total, cell), own_cell, array.q[f"ws_{name}_kb"]))
        return E.maximum(0, E.Ref(total) - E.add(*shares))

    return E.if_(E.compare("=", condition, 1), other(plane, "plane"), E.if_(
        E.compare("=", condition, 2), other(pencil, "pencil"), other(cell, "cell")))


def _loaded_lines(memory: NestMemory, replaced: frozenset[str], condition: E.Quantity,
                  ctx: ModelContext, share: E.Expr) -> E.Expr:
    """Lines the nest's arrays other than ``replaced`` load into a level in ``condition``:
    their stream traffic, half of it for a written array (the other half is write-backs,
    which take no room)."""
    read = frozenset(a.key for a in memory.arrays if a.key not in replaced and a.kind == "R")
    written = frozenset(a.key for a in memory.arrays
                        if a.key not in replaced and a.kind != "R")
    traffic = E.add(*([_stream_share(memory, read, condition, ctx)] if read else []),
                    *([E.mul(0.5, _stream_share(memory, written, condition, ctx))]
                      if written else []))
    return E.div(E.mul(traffic, share, GB), ctx.param("LineBytes"))


def _gathered_bytes(gathers: list[GatherTraffic], ctx: ModelContext) -> list[E.Expr]:
    """Bytes each gather touches in one pass of its indices (its range, or a line per
    visit when fewer), in place of the gathered array's count as a stream (an element per
    access)."""
    return [E.mul(E.minimum(g.range_lines, E.div(E.Ref(g.visits), E.maximum(1, g.passes))),
                  ctx.param("LineBytes")) for g in gathers]


def _gathers_at(gathers: list[GatherTraffic], capacity: E.Quantity, condition: E.Quantity,
                memory: NestMemory, ctx: ModelContext, key: tuple, share: E.Expr,
                working_sets: tuple[E.Quantity, E.Quantity, E.Quantity]) -> E.Expr:
    """The change the gathers make to a level's traffic (GB): their lines at the level's
    capacity, competing in LRU with the other arrays' lines
    (:func:`~sat.model.irregular.gather_lru.lru_gather_lines`), less the stream count of
    the arrays they replace (``share``: of the repetitions, those that move the streams)."""
    from sat.model.irregular.gather_lru import lru_gather_lines, row_level_traffic

    terms: list[E.Expr] = []
    rows_seen: set[str] = set()
    for index, gather in enumerate(gathers, start=1):
        at = (*key, "gather", index)
        other = _gather_other_kb(memory, gather, condition, working_sets, ctx)
        left = E.Quantity((*at, "cache_left_kb"), E.maximum(0, E.as_expr(capacity) - other),
                          "KiB", "cache left for the gather")
        streams = E.Quantity((*at, "stream_lines"), _loaded_lines(
            memory, gather.replaces, condition, ctx, share), "lines",
            "lines the nest's other arrays load")
        lines, _, reach = lru_gather_lines(gather.at_level(left, ctx, at), left, streams, ctx,
                                           at)
        terms.append(gather.traffic_gb(lines, ctx))
        for row in gather.rows:  # a CSR row's rowptr: its line lost between two rows
            if row.key not in rows_seen:
                rows_seen.add(row.key)
                terms.append(row_level_traffic(row, reach, E.mul(_stream_share(
                    memory, frozenset({row.key}), condition, ctx), share), ctx))
        if gather.replaces:
            terms.append(E.mul(-1, _stream_share(memory, gather.replaces, condition, ctx),
                               share))
    return E.add(*terms)


def _repetition_share(shape: NestShape, data: E.Quantity, capacity: E.Quantity,
                      passes: PassData, ctx: ModelContext, key: tuple,
                      whole_kib: E.Expr | None = None,
                      footprint: PassFootprint | None = None
                      ) -> tuple[E.Expr, dict[str, CellValue]]:
    """(the share of the nest's repetitions that move its data at a level, the Repeats cell):
    1 and no cell for a nest without repetitions (:mod:`sat.model.hierarchy.repetitions`)."""
    found = moving_repetitions(shape, E.Ref(data), capacity, passes, ctx, whole_kib, footprint)
    if found is None:
        return E.Num(1), {}
    moving, every = found
    repeats = E.Quantity((*key, "repeats"), moving, "", f"{key[-1]} repetitions that move "
                         "the data")
    return E.Div(E.Ref(repeats), E.maximum(1, every)), {"repeats": repeats}


def _sweep_elements(array: ArrayModel, shape: NestShape, space: NestSpace,
                    ctx: ModelContext) -> E.Expr:
    """Bytes one sweep of the nest touches in ``array``: its blocks' footprints, or, for a
    row of X the source tiles, the lines of the whole X range the tiles cover when fewer
    (tiles narrower than a line share the line between them: counted once, not per tile)."""
    tiles = footprint = E.mul(E.Ref(space.blocks), array.q["block_elements"])
    pattern = shape.pattern(array.key)
    if pattern is not None and pattern.stride == 1 and 0 not in pattern.invariant \
            and not shape.x_tiles_share_lines and tiled_along_x(shape):
        extent = E.add(E.Ref(space.extent[0]), array.spans[0])
        whole = row_lines(round_to_lines(extent, ctx, array.size), pattern.row_length, extent)
        # tiles along X: the X extent over a tile's; the tile rows cover blocks_x of them
        tiles_x = E.Ref(space.extent[0]) / E.maximum(E.Ref(space.block[0]), 1)
        share = whole / E.maximum(E.mul(tiles_x, array.q["access_x_lines"]), 1)
        tiles = E.mul(footprint, E.minimum(1, share))
    return E.mul(tiles, array.copies, array.size)


def nest_levels(shape: NestShape, space: NestSpace, memory: NestMemory, hierarchy: Hierarchy,
                ctx: ModelContext, where: dict[str, CellValue],
                gathers: list[GatherTraffic] | None = None) -> NestLevels:
    """Per-level traffic of one nest, with its gathers and scatters; ``where`` (procedure,
    file, line) heads each row."""
    gathers = gathers or []
    q = memory.q
    executed = executed_iterations(space)

    def per_iteration(name: str, traffic: E.Quantity) -> E.Quantity:
        return E.Quantity(("level", shape.ident, name, "bytes_per_iteration"),
                          E.mul(traffic, GB) / executed, "B", f"{name} bytes per iteration")

    if not hierarchy.specs:
        traffic = q["traffic_gb"]
        row = {**where, "level": ON_CHIP, "size_kib": hierarchy.capacity[ON_CHIP],
               "ws_plane_kb": q["ws_actual_plane_kb"], "ws_pencil_kb": q["ws_actual_pencil_kb"],
               "ws_cell_kb": q["ws_actual_cell_kb"], **_sweep(q), "layer_condition": q["reuse"],
               "traffic_gb": traffic, "bytes_per_iteration": per_iteration(ON_CHIP, traffic),
               "bandwidth_gbs": hierarchy.bandwidth[ON_CHIP], "time_s": q["time_dram_s"]}
        return NestLevels([row], {ON_CHIP: traffic},
                          {ON_CHIP: row["bytes_per_iteration"]},  # type: ignore[dict-item]
                          {ON_CHIP: q["time_dram_s"]})

    lines: dict[str, E.Quantity] = {}

    def nest_q(name: str, expr: E.Expr, unit: str, label: str) -> E.Quantity:
        lines[name] = E.Quantity(("loop", shape.ident, "lines_" + name), expr, unit,
                                 label + " (cache lines)")
        return lines[name]

    line_kb = ctx.param("LineBytes") / KIB
    reads = [a for a in memory.arrays if a.kind == "R"]
    stream = E.mul(line_kb, E.add(*[_lines_within(a, ctx) for a in reads]))
    naive = E.mul(line_kb, E.add(*[_lines_within(a, ctx) for a in memory.arrays]))
    # Streaming writes and non-temporal reads keep written arrays out of the cache.
    either = E.func("OR", ctx.param("StreamingWrites"), ctx.param("NTAHints"))
    cell = nest_q("ws_actual_cell_kb", E.if_(either, stream, naive), "KiB",
                  "working set per cell, actual")
    unstraddled = _unstraddled(memory, ctx, either, nest_q)
    pencil, plane = actual_chain(q, cell, memory.variants["pencil"], memory.variants["plane"],
                                 nest_q)
    by_size: dict[tuple, list[E.Quantity]] = {}
    registers: list[E.Quantity] = []
    per_access: dict[tuple, E.Expr] = {}
    for array in memory.arrays:
        if 0 in array.invariant:  # held in a register along X: one element (or line) per
            registers.append(array.q["traffic_within_gb"])  # change of its other indices
        else:
            form = (array.size, array.x_step, array.copies if array.unit_run_copies else None)
            by_size.setdefault(form, []).append(array.q["traffic_none_gb"])
            per_access.setdefault(form, _line_per_access(array, ctx))
    none = nest_q("traffic_none_gb", E.mul(memory.sweeps, E.add(*[
        E.mul(per_access[form], E.add(*traffic))
        for form, traffic in by_size.items()], *registers)), "GB",
        "traffic without reuse within pencils, one line per access")
    cases = [q[f"traffic_{case}_gb"] for case in CASES[1:-1]] + [none]
    # the data of one run of the nest, per thread: with WarmCaches, a level that holds it
    # all moves nothing to or from the next level out (Kerncraft's steady state)
    gathered = {key for g in gathers for key in g.replaces}  # counted by their lines
    kept = [a for a in memory.arrays if a.key not in gathered]
    sweeps = [_sweep_elements(a, shape, space, ctx) for a in kept]
    gathered_bytes = _gathered_bytes(gathers, ctx)
    data = E.Quantity(("level", shape.ident, "data_kib"), E.add(*sweeps, *gathered_bytes)
                      / KIB / ctx.param("Cores"), "KiB", "data the nest touches per thread")
    footprint = pass_footprint(shape, kept, sweeps, ctx, hierarchy.shapes, gathered_bytes) \
        if repetition_loops(shape) else None
    result = NestLevels([])
    held = None if gathers else held_arrays(shape, space, memory, ctx, hierarchy.shapes)
    tile = None if gathers else tile_lines(shape, space, memory, ctx, hierarchy.shapes)
    # the whole arrays moved once in all, over the repetitions too (a level holding them
    # keeps them from one pass to the next)
    staying = frozenset(id(lp) for lp in repetition_loops(shape)) if held is not None \
        else frozenset()
    once = held_arrays(shape, space, memory, ctx, hierarchy.shapes, staying) if staying \
        else None
    for spec in hierarchy.specs:
        capacity = hierarchy.capacity[spec.name]
        level_cases = [*cases[:3], E.Quantity(
            ("level", shape.ident, spec.name, "traffic_straddled_gb"),
            straddled_traffic(cases[2], none, cell, unstraddled[0], unstraddled[1], capacity),
            "GB", f"{spec.name} traffic where a window of X offsets straddles a line")]
        traffic_expr, case_taken = strided_condition(
            memory.q, *layer_condition([plane, pencil, cell], capacity, level_cases), capacity)
        resident = E.func("AND", ctx.param("WarmCaches"), E.compare("<", data, capacity))
        key = ("level", shape.ident, spec.name)
        share, repeats = _repetition_share(shape, data, capacity, hierarchy.passes, ctx, key,
                                           None if once is None else once[0], footprint)
        if held is not None and not repeats:  # the level holds every array
            traffic_expr, case_taken = held_traffic(held, capacity, traffic_expr, case_taken)
        if tile is not None:  # a level smaller than a tile moves the tile's lines
            traffic_expr, case_taken = tile_traffic(tile, capacity, traffic_expr, case_taken)
        taken = regular = E.Quantity(
            (*key, "traffic_regular_gb" if gathers else "traffic_gb"),
            E.if_(resident, 0, traffic_expr), "GB",
            f"{spec.link} traffic" + (", streams" if gathers else ""))
        if repeats:  # the case is that of every repetition; the share of them moves
            taken = E.Quantity((*key, "traffic_repeated_gb"), E.if_(resident, 0, traffic_expr),
                               "GB", f"{spec.link} traffic if every repetition moved the data")
            regular.expr = E.mul(E.Ref(taken), share)
            if once is not None:  # a level holding every array moves each once in all
                regular.expr = held_over_repetitions(once, capacity, regular.expr,
                                                     repeats["repeats"])
        condition = E.Quantity((*key, "layer_condition"), E.if_(resident, 0, straddled_case(
            case_taken(taken), taken, level_cases[3], none, unstraddled[0], capacity)), "case",
                               f"{spec.name} layer condition")
        traffic, extra = regular, {}
        if gathers:
            change = E.Quantity((*key, "gathers_gb"), E.if_(resident, 0, _gathers_at(
                gathers, capacity, condition, memory, ctx, key, share, (plane, pencil, cell))),
                "GB",
                f"{spec.link} traffic of the gathers and scatters, less the streams they "
                "replace")
            traffic = E.Quantity((*key, "traffic_gb"), E.Ref(regular) + E.Ref(change), "GB",
                                 f"{spec.link} traffic")
            extra = {"gathers_gb": change}
        bandwidth = hierarchy.bandwidth[spec.name]
        time = E.Quantity((*key, "time_s"), E.Ref(traffic) / E.Ref(bandwidth), "s",
                          f"{spec.link} transfer time")
        result.traffic[spec.name] = traffic
        result.bytes_per_iteration[spec.name] = per_iteration(spec.name, traffic)
        result.time[spec.name] = time
        result.condition[spec.name] = condition
        result.bandwidth[spec.name] = bandwidth
        result.rows.append({
            **where, "level": spec.name, "size_kib": capacity, "data_kib": data,
            "ws_plane_kb": plane, **_sweep(q),
            "ws_pencil_kb": pencil, "ws_cell_kb": cell, "layer_condition": condition,
            **repeats, **extra, "traffic_gb": traffic,
            "bytes_per_iteration": result.bytes_per_iteration[spec.name],
            "bandwidth_gbs": bandwidth, "time_s": time})
    return result
