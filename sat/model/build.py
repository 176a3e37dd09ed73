"""Build the model of a program: the tables of the workbook, every number an expression.

The pipeline per reported nest: iteration space (:mod:`~sat.model.exasat.iteration`), flops
(:mod:`~sat.model.exasat.flops`), working sets and traffic
(:mod:`~sat.model.exasat.memory`), times; then
the alternative block scheme (:mod:`~sat.model.exasat.blocking`) and the tables of the other
analyses (registers, occupancy, communication, dependences).
"""

from __future__ import annotations

from sat.ir import Body, Procedure, Program
from sat.model import expr as E
from sat.model import fusion
from sat.model.bounds import NestBounds, nest_bounds
from sat.model.calls import array_callees, calls_summary, inline_calls
from sat.model.context import ExpressionError, ModelContext, derive_formulas
from sat.model.costs import ENERGY_NOTE, cost_totals, costs_table, nest_costs
from sat.model.elements import declared_words
from sat.model.exasat.blocking import (
    ALT_COLUMNS,
    FLOP_COLUMNS,
    SPACE_COLUMNS,
    TIME_COLUMNS,
    NestRecord,
    overlap_time,
    plans,
    procedure_rows,
)
from sat.model.exasat.comm import comm_table
from sat.model.exasat.dependences import dependences_table
from sat.model.exasat.flops import (
    KINDS,
    FlopCounter,
    branch_probability,
    flop_totals,
    gflop_exprs,
    long_sum,
)
from sat.model.exasat.iteration import analyse_nest, nest_space
from sat.model.exasat.lines import program_shapes
from sat.model.exasat.memory import (
    ARRAY_COLUMNS,
    GB,
    REUSE_LEVELS,
    TRAFFIC_CASES,
    effective_write_cost,
    nest_memory,
)
from sat.model.exasat.occupancy import data_bytes, footprint, occupancy_table
from sat.model.exasat.registers import register_counts, registers_table
from sat.model.exasat.windows import program_constants
from sat.model.hierarchy.aliasing import geometry, nest_checks
from sat.model.hierarchy.levels import (
    LEVEL_COLUMNS,
    Hierarchy,
    derive_machine_defaults,
    nest_levels,
)
from sat.model.irregular.idioms import idiom_tables
from sat.model.irregular.patterns import IdiomSet
from sat.model.nests import (
    averaged_bounds,
    bounds_assigned_inside,
    enclosing_branches,
    outermost_loops,
    program_nests,
    setup_reason,
    untiled_program,
)
from sat.model.sums import summed_paths
from sat.model.tables import CellValue, Column, FusedWork, ModelResult, NestWork, Note, Table
from sat.model.tables import column as _c
from sat.parameter import DEFAULT_SETUP_ITERATIONS, ParameterSet, symbol_to_name
from sat.parameters.costs import has_cost_parameters

UNITS_NOTE = ("Units: working sets and cache sizes in KiB (1024 bytes); traffic in GB "
              "(10^9 bytes) and bandwidth in GB/s (10^9 bytes/s). The original ExaSAT sheet "
              "divided bytes by 2^30 for its 'GBytes' but by a 10^9-based bandwidth, so its "
              "DRAM times are 10^9/2^30 (0.931) of the time for the bytes it counts.")
REUSE_NOTE = ("Loops 'reuse' column: the case whose traffic was taken, 1 = reuse between "
              "planes, 2 = between pencils, 3 = within pencils, 4 = none. The actual traffic is "
              "the least traffic among the best case whose actual working set fits in CacheKB "
              "and the worse ones. 'Reuse between blocks' is the compulsory traffic (every "
              "element once, a lower bound), for comparison.")
CALLS_NOTE = ("Calls inside a loop nest to procedures of the program count the callee's work "
              "in the nest: its flops, and its accesses mapped onto the actual arguments (a "
              "dummy array is the actual array or section; the callee's loops run inside the "
              "calling iteration). Calls are followed transitively; recursive calls are not "
              "followed (zero cost, with a warning). A call to a procedure that is not in the "
              "sources costs its CallFlops_<name> parameter's flops per call (0 unless set, "
              "counted as additions); its array arguments are taken as read and written by "
              "the nest. A callee's traffic is that of the arrays only it touches in the nest.")

LEVELS_NOTE = ("Levels and ECM sheets: per cache level, ExaSAT's reuse cases with the "
               "level's capacity per thread (L1KB, L2KB, ...), counting whole cache lines for "
               "reuse within a pencil, and every access as a whole line without it (one "
               "line per access of a step along X); a stride counts the lines of its range, "
               "rows that lie back to back and tiles of X one after the other share their "
               "lines; an "
               "exclusive or victim cache adds the inner levels' capacity. Caches are taken "
               "as fully associative with LRU replacement; a link's reads and write-backs add "
               "up (half duplex). The ECM model's in-core part is a port model of one unit of "
               "work: vector (Vectorised_ TRUE) or scalar instructions by class (add, "
               "multiply, FMA as MIN(adds, multiplies) when the core has FMA ports, divide, "
               "special, one load per distinct cell read, one store per array written) over "
               "the core's ports (AddPorts, MulPorts, FMAPorts, FPPorts, DivCycles, "
               "LoadsPerCycle x LoadBytes, StoresPerCycle x StoreBytes, AGUsPerCycle), with the "
               "loop's own and the address arithmetic's integer instructions (IntPorts, "
               "SharedIntPorts, LoopOverheadOps, LoadAddressOps) and a reduction's chain of "
               "adds (AddLatency, Accumulators, FastMath); T_OL is the arithmetic, the chain "
               "and what overlaps (StoresOverlap, AGUsOverlap), T_nOL the rest. A loop is "
               "vectorised by default when it steps along an array's contiguous dimension and "
               "carries no array element from one iteration to the next (a reduction too: "
               "without FastMath its adds stay in order). The Loops sheet's columns (CacheKB, "
               "GBsPerCore) are ExaSAT's and do not depend on these.")

DIVISION_NOTE = ("Divisions are guarded: where a denominator can be zero (a nest with no flops "
                 "has no B:F; a parameter edited to 0 in the workbook), the quotient is 0 "
                 "instead of an error, in the workbook (IF(den=0,0,...)) and in Python alike.")



_VARIANTS = (("naive", "Working set (naive)", "all arrays held in cache"),
             ("stream", "Working set (streaming writes)", "read-only arrays only: RW and W "
              "arrays bypass the cache"),
             ("reuse", "Working set (reuse only)", "only read data that is reused (NTA "
              "hints keep streamed-only reads out)"),
             ("actual", "Working set (actual)", "the variant StreamingWrites/NTAHints select; "
              "a level whose reuse saves no traffic takes the next level's working set"))

LOOP_COLUMNS: list[Column] = [
    *SPACE_COLUMNS,
    _c("block_x", "X", "iterations", "Block size along X: MIN(BlockX, X), or X when BlockX "
       "is 0.", "Block iteration space"),
    _c("block_y", "Y", "iterations", "Block size along Y.", "Block iteration space"),
    _c("block_z", "Z", "iterations", "Block size along Z.", "Block iteration space"),
    _c("block_x_lines", "X (cache lines)", "elements", "Block X rounded up to whole cache "
       "lines (LineBytes / WordBytes elements each).", "Block iteration space"),
    _c("blocks", "Blocks", "blocks", "Number of blocks: product of extent / block (partial "
       "edge blocks count by the fraction they fill)."),
    *FLOP_COLUMNS,
    _c("gp_regs", "GP regs", "registers", "Integer registers the innermost iteration needs "
       "(see Registers).", "Registers"),
    _c("fp_regs", "FP regs", "registers", "Floating-point registers the innermost iteration "
       "needs.", "Registers"),
    _c("rw_arrays", "RW arrays", "arrays", "Array-components read and written.", "Arrays"),
    _c("w_arrays", "W arrays", "arrays", "Array-components only (or first) written.",
       "Arrays"),
    _c("rww_planes", "RW/W planes", "", "Planes of RW and W arrays held for reuse between "
       "planes.", "RW/W working set"),
    _c("rww_pencils", "RW/W pencils", "", "Pencils of RW and W arrays held.",
       "RW/W working set"),
    _c("rww_cells", "RW/W cells", "", "Cells of RW and W arrays held.", "RW/W working set"),
    *[_c(f"ws_{v}_{k}_kb", f"WS/{k}", "KiB", f"Working set for reuse between {k}s "
         f"({c}).", band) for v, band, c in _VARIANTS for k in ("plane", "pencil", "cell")],
    *[_c(f"traffic_{k}_gb", h, "GB", f"Traffic of the nest, {c}.", "Memory traffic",
         "0.000000") for k, h, c in TRAFFIC_CASES],
    _c("ws_sweep_kb", "WS/sweep", "KiB", "Only for a nest whose X loop (the unit-stride "
       "axis) encloses loops of Y or Z (c[i] += a[i][j]*b[i], j outer): the data one step of "
       "X touches (a whole cache line per access of an array stepping along X, the inner "
       "footprint of one invariant along X); blank otherwise.", "Memory traffic"),
    _c("traffic_strided_gb", "Strided", "GB", "Only for such a nest: the traffic when "
       "WS/sweep does not fit in CacheKB, a whole line per access of the arrays stepping "
       "along X and the invariant ones read again at every step of X.", "Memory traffic",
       "0.000000"),
    _c("traffic_gb", "Actual", "GB", "Traffic for the reuse the cache allows: the least of "
       "the cases whose working sets fit in CacheKB (the strided traffic when WS/sweep does "
       "not fit).", "Memory traffic", "0.000000"),
    _c("reuse", "Reuse", "level", "1 planes, 2 pencils, 3 within pencils, 4 none: the best "
       "reuse whose actual working set is below CacheKB.",
       words=tuple(REUSE_LEVELS[level] for level in sorted(REUSE_LEVELS))),
    *TIME_COLUMNS,
    _c("cpu_bound", "CPU-bound", "0/1", "1 when the nest's CPU time is at least its DRAM time "
       "(compute-bound), 0 when memory-bound. Totals row: the share of the total time spent "
       "in compute-bound nests.", "Estimated time", "0.00"),
    _c("callee_gflops", "In callees", "Gflop", "Gflop of the nest done inside the procedures "
       "it calls (included in Gflop; see the Calls sheet).", "Calls"),
    _c("callee_traffic_gb", "Traffic in callees", "GB", "Traffic of the arrays only the "
       "procedures the nest calls touch (included in Actual; see the Calls sheet).", "Calls",
       "0.000000"),
    _c("calls", "Calls", "", "Procedures the nest calls, with the number of call sites "
       "(transitively): those of the program count in the nest's work; those marked "
       "'not in the sources' cost their CallFlops parameter per call.", "Calls"),
]

CALL_COLUMNS: list[Column] = [
    _c("procedure", "Procedure", "", "Procedure holding the calling nest."),
    _c("file", "File", "", "Source file of the calling nest."),
    _c("line", "Nest line", "", "Line of the calling nest's outermost loop."),
    _c("callee", "Callee", "", "Procedure called inside the nest (directly; the work of the "
       "procedures it calls in turn counts for it)."),
    _c("call_line", "Call line", "", "Line of the first call to the callee in the nest."),
    _c("calls_per_iteration", "Calls", "per iteration", "Calls per iteration of the level "
       "that makes them, summed over the nest's levels (as the flop counts are).",
       "Per iteration"),
    *[_c(f"callee_{kind}", kind.capitalize(), "per iteration", f"{kind.capitalize()} done "
         "inside the callee per iteration, summed over levels (flops of a procedure that is "
         "not in the sources are in its CallFlops parameter instead).", "Per iteration")
      for kind in KINDS],
    _c("gflops", "Gflop", "Gflop", "Flops done inside the callee per run of the nest: its "
       "flops per call times the calls the enclosing loops make; a procedure that is not in "
       "the sources does its CallFlops parameter's flops per call.", "Work in the callee"),
    _c("share", "Share", "", "Fraction of the nest's Gflop done inside the callee.",
       "Work in the callee", "0.0%"),
    _c("traffic_gb", "Traffic", "GB", "Traffic of the arrays only the callee touches in the "
       "nest (its own arrays, and actual arguments the nest does not touch itself), for the "
       "reuse case the nest takes; arrays the nest touches too count for the nest.",
       "Work in the callee", "0.000000"),
    _c("traffic_share", "Traffic share", "", "Fraction of the nest's traffic that is the "
       "callee's.", "Work in the callee", "0.0%"),
]


def _copies(shape, array) -> CellValue:
    """Copies column: 1, or a quantity of the component loops' trips."""
    if array.copies == E.Num(1):
        return 1
    return E.Quantity(("array", shape.ident, array.key, "copies"), array.copies, "",
                      "copies per cell")


def _element_bytes(shape, array) -> CellValue:
    """Element column: the array's element size parameter (``Bytes_<array>``, by default its
    declared type's words x WordBytes; sat.model.elements)."""
    return E.Quantity(("array", shape.ident, array.key, "element_bytes"), array.size, "B",
                      "bytes per element")


def _number(value: float) -> float | int:
    return int(value) if float(value).is_integer() else value


def _loop_rows(program: Program, ctx: ModelContext, setup_iterations: float,
               known: set[str], call_rows: list[dict[str, CellValue]],
               idiom_rows: list[dict[str, CellValue]] = (),  # type: ignore[assignment]
               gather_rows: list[dict[str, CellValue]] | None = None,
               origins: dict[str, tuple[Procedure, dict[int, int]]] | None = None):
    """Yield (shape, space, loop row dict, memory, the nest's work) for each reported nest; add a
    row to ``call_rows`` for each procedure a nest calls, and to ``gather_rows`` for each
    gather or scatter (:mod:`sat.model.irregular.gathers`) of a nest.  ``origins``: per
    procedure of fused nests, the source procedure and where its loops' lines went in them
    (:func:`sat.model.fusion.member_lines`): a member's gathers are the fused nest's."""
    counter = FlopCounter(program, ctx)
    write_cost = effective_write_cost(ctx)
    cores = ctx.param("Cores")
    shared = program_constants(program.procedures, ctx.constant_values())
    shapes = program_shapes(ctx.read_procedures.values())
    # the idiom rows a nest's gathers are read from; none without a gather or scatter in the
    # program (looked for once, not once per nest)
    gather_idioms = idiom_rows if any(row["idiom"] in _GATHER_IDIOMS for row in idiom_rows) \
        else []
    for procedure, loop in program_nests(program):
        file = loop.file or procedure.file
        reason = setup_reason(loop, setup_iterations)
        if reason:
            flops = sum((b.adds + b.multiplies + b.divides + b.specials) * times
                        for b, times in loop.counted_levels())
            ctx.skip_nest(procedure.name, file, loop.line,
                          f"{reason} ({flops} flops per iteration)", "assumption")
            continue
        probability = 1.0
        holder: Body = procedure
        for branch in enclosing_branches(procedure, loop) or []:
            probability *= branch_probability(branch, ctx, file, holder.branches)
            holder = branch
        # a sibling inside arms of a repetition loop runs on a pass with their probability:
        # its sweeps count with it (its flops already do, through the arms it keeps)
        runs = probability
        for branch in getattr(loop, "guards", ()):
            runs *= branch_probability(branch, ctx, file)
        try:
            shape = analyse_nest(procedure, loop, shared, shapes)
            space = nest_space(shape, ctx, runs)
            # iterations = sweeps * X * Y * Z is the innermost trip product only without
            # component loops inside the grid loops
            perfect = all(len(a) <= 1 for a in shape.axis_loops) and not shape.copy_loops \
                and not shape.repeats
            sums = counter.nest(loop, file, E.Ref(space.iterations) if perfect else None,
                                probability, frozenset(map(id, shape.repeats)))
            memory = nest_memory(shape, space, ctx, write_cost)
            where = {"procedure": procedure.name, "file": file, "line": loop.line}
            source, lines = (origins or {}).get(procedure.name, (procedure, None))
            nest_gathers = _nest_gathers(source, loop, shape, space, memory, ctx,
                                         gather_idioms, where, lines)
        except ExpressionError as error:
            ctx.skip_nest(procedure.name, file, loop.line, str(error))
            continue
        for message in shape.notes:
            ctx.note(f"{procedure.name}:{loop.line}: {message}", "assumption", file, loop.line)
        for inner, symbol in bounds_assigned_inside(loop):
            parameter = ctx.params.parameters.get(symbol_to_name(symbol))
            value = f" = {parameter.value:g}" + (", a default" if parameter.defaulted else "") \
                if parameter is not None else ""
            ctx.note(f"'{procedure.name}': a bound of the loop at line {inner.line} uses "
                     f"'{symbol}', which the nest itself assigns: its trip count changes from "
                     "pass to pass, "
                     f"and one value (parameter {symbol_to_name(symbol)}{value}) stands for "
                     f"every pass; give a typical value with --set {symbol}=VALUE", "warning",
                     file, inner.line)
        ident = shape.ident
        q = memory.q
        gathers = nest_gathers.rows if nest_gathers is not None else []
        if gathers and gather_rows is not None:
            # the gathers' bytes replace the ExaSAT count of their arrays
            # (sat.model.irregular.gathers)
            gather_rows.extend(gathers)
            regular = q["traffic_gb"]
            regular.key = ("loop", ident, "traffic_regular_gb")
            regular.label = "memory traffic, actual, without the gathers' own model"
            q["traffic_regular_gb"] = regular
            q["traffic_gb"] = E.Quantity(("loop", ident, "traffic_gb"),
                                         E.Ref(regular) + nest_gathers.delta, "GB",
                                         "memory traffic, actual, with gathers and scatters")
            # the compulsory count takes the distinct elements the gathers pick
            blocks = q["traffic_blocks_gb"]
            blocks.key = ("loop", ident, "traffic_blocks_regular_gb")
            blocks.label = "traffic with reuse between blocks, without the gathers"
            q["traffic_blocks_regular_gb"] = blocks
            q["traffic_blocks_gb"] = E.Quantity(
                ("loop", ident, "traffic_blocks_gb"),
                E.Ref(blocks) + nest_gathers.compulsory_delta, "GB",
                "traffic with reuse between blocks, with gathers and scatters")

        def quantity(name: str, expr: E.Expr, unit: str, label: str,
                     _q: dict = q, _ident: str = ident) -> E.Quantity:
            _q[name] = E.Quantity(("loop", _ident, name), expr, unit, label)
            return _q[name]

        per_kind = flop_totals(sums, ident)
        gflops_expr, weighted_expr = gflop_exprs(per_kind, ctx)
        gflops = quantity("gflops", gflops_expr, "Gflop", "Gflop performed")
        # every procedure the nest calls has a row, one without flops too
        in_callee = {callee: E.Quantity(("call", ident, callee, "gflops"),
                                        long_sum(sums.by_callee.get(callee, []),
                                                 ("call", ident, callee, "flops"),
                                                 f"flops in {callee}") / 1e9,
                                        "Gflop", f"Gflop in {callee}")
                     for callee in dict.fromkeys([*sums.calls, *sums.by_callee])}
        quantity("callee_gflops", E.add(*in_callee.values()) if in_callee else E.Num(0),
                 "Gflop", "Gflop done inside called procedures")
        touched_by = array_callees(loop)
        callee_traffic = {callee: E.Quantity(
            ("call", ident, callee, "traffic_gb"),
            memory.traffic_of({key for key, callees in touched_by.items()
                               if callees == {callee}}), "GB", f"traffic in {callee}")
            for callee in in_callee}
        quantity("callee_traffic_gb",
                 E.add(*callee_traffic.values()) if callee_traffic else E.Num(0), "GB",
                 "traffic of arrays only called procedures touch")
        weighted = quantity("weighted_gflops", weighted_expr, "Gflop", "weighted Gflop")
        traffic = q["traffic_gb"]
        quantity("bytes_per_flop", E.mul(traffic, GB) / E.mul(weighted, 1e9), "B/flop",
                 "bytes per weighted flop")
        cpu = quantity("time_cpu_s", E.Ref(weighted) / E.mul(ctx.param("GflopsPerCore"), cores),
                       "s", "CPU time")
        dram = quantity("time_dram_s", E.Ref(traffic) / E.mul(ctx.param("GBsPerCore"), cores),
                        "s", "DRAM time")
        quantity("time_s", overlap_time(cpu, dram, ctx), "s", "time")
        quantity("cpu_bound", E.if_(E.compare(">=", cpu, dram), 1, 0), "0/1",
                 "1 if compute-bound")
        gp, fp = register_counts(loop)
        row: dict[str, CellValue] = {
            "procedure": procedure.name, "file": file, "line": loop.line,
            "calls": calls_summary(loop, known),
            "sweeps": space.sweeps,
            "iter_x": space.extent[0], "iter_y": space.extent[1], "iter_z": space.extent[2],
            "block_x": space.block[0], "block_y": space.block[1], "block_z": space.block[2],
            "block_x_lines": space.x_lines, "blocks": space.blocks,
            **{k: _number(sums.per_iteration[k]) for k in KINDS},
            "gp_regs": gp, "fp_regs": fp, **memory.numbers,
        }
        for column in LOOP_COLUMNS:
            if column.key not in row and column.key in q:
                row[column.key] = q[column.key]
        q["write_cost"] = E.Quantity(("loop", ident, "write_cost"), write_cost, "B")
        for callee, callee_gflops in in_callee.items():
            kinds = sums.callee_per_iteration.get(callee, dict.fromkeys(KINDS, 0.0))
            call_rows.append({
                "procedure": procedure.name, "file": file, "line": loop.line,
                "callee": callee, "call_line": sums.call_lines.get(callee, loop.line),
                "calls_per_iteration": _number(sums.calls.get(callee, 0.0)),
                **{f"callee_{kind}": _number(kinds[kind]) for kind in KINDS},
                "gflops": callee_gflops,
                "share": E.Quantity(("call", ident, callee, "share"),
                                    E.Ref(callee_gflops) / E.Ref(gflops), "",
                                    f"share of the nest's Gflop in {callee}"),
                "traffic_gb": callee_traffic[callee],
                "traffic_share": E.Quantity(("call", ident, callee, "traffic_share"),
                                            E.Ref(callee_traffic[callee]) / E.Ref(traffic), "",
                                            f"share of the nest's traffic in {callee}")})
        work = NestWork(procedure.name, file, loop.line, space.iterations,
                        {k: E.Quantity(("nest", ident, f"{k}_flops"), expr, "flops",
                                       f"{k} per run")
                         for k, expr in per_kind.items()},
                        _with_gathers(memory.array_traffic(ident, ctx, write_cost), gathers))
        yield shape, space, row, memory, work, (nest_gathers.models if gathers else [])


# The idioms the irregular-access model takes up (sat.model.irregular.IDIOMS): that module is
# imported only for a program that has one (start-up time of the others).
_GATHER_IDIOMS = ("gather", "scatter")


def _nest_gathers(procedure, loop, shape, space, memory, ctx: ModelContext,
                  idiom_rows: list[dict[str, CellValue]], where: dict[str, CellValue],
                  lines: dict[int, int] | None = None):
    """The gathers and scatters of one nest (``nest_gathers``), None without any."""
    if not idiom_rows:
        return None
    from sat.model.irregular.gathers import nest_gathers

    return nest_gathers(procedure, loop, shape, space, memory, ctx, list(idiom_rows), where,
                        lines)


def _with_gathers(traffic: list, gathers: list[dict[str, CellValue]]) -> list:
    """A nest's traffic per array with its gathers' own model (``with_gathers``)."""
    if not gathers:
        return list(traffic)
    from sat.model.irregular.gathers import with_gathers

    return with_gathers(traffic, gathers)


def _totals(rows: list[dict[str, CellValue]], table: str,
            groups: list[fusion.Group] = (),  # type: ignore[assignment]
            view: str = "loops") -> dict[str, CellValue]:
    """Totals row: maxima of working sets, sums of traffic, work and times; with fusion
    groups, each one's toggle chooses its members or its fused nest (sat.model.fusion) on the
    sheet ``view``."""
    totals: dict[str, CellValue] = {"procedure": "Total/Max"}
    if not rows:
        return totals
    # rows of different kinds of nest carry different columns (WS/sweep only for a nest whose
    # X loop encloses others): each column's total is over the rows that carry it
    for key in dict.fromkeys(k for row in rows for k in row):
        having = [r for r in rows if isinstance(r.get(key), E.Quantity)]
        if not having:
            continue
        value = having[0][key]
        values = [E.Ref(r[key]) for r in having]  # type: ignore[arg-type]
        if key.startswith("ws_"):
            if groups:
                values = fusion.max_values(key, having, groups, view)  # type: ignore
            expr, unit = E.maximum(*values), value.unit  # type: ignore[union-attr]
        elif "gb" in key or "gflops" in key or key.startswith("time_"):
            expr, unit = E.add(*values, *fusion.sum_terms(key, groups, view)), value.unit
        else:
            continue
        totals[key] = E.Quantity((table, "total", key), expr, unit,
                                 f"total {value.label}")  # type: ignore[union-attr]
    if all("cpu_bound" in r for r in rows):
        time = E.Ref(totals["time_s"])  # type: ignore[arg-type]
        bound_time = E.add(*(E.mul(r["cpu_bound"], r["time_s"]) for r in rows),
                           *fusion.bound_terms(groups))
        totals["cpu_bound"] = E.Quantity((table, "total", "cpu_bound"), bound_time / time, "",
                                         "share of the time in compute-bound nests")
    traffic, weighted = totals["traffic_gb"], totals["weighted_gflops"]
    totals["bytes_per_flop"] = E.Quantity((table, "total", "bytes_per_flop"),
                                          E.mul(traffic, GB) / E.mul(weighted, 1e9), "B/flop",
                                          "bytes per weighted flop")
    return totals


def _fusion_groups(program: Program, ctx: ModelContext, setup_iterations: float,
                   known: set[str], rows: dict[int, dict[str, CellValue]],
                   fuse_all: bool, idiom_rows: list[dict[str, CellValue]]
                   ) -> list[fusion.Group]:
    """The fusion candidates of the program (``rows``: the Loops row of each modelled nest by
    ``id`` of its loop) with, for each legal group, its toggle and its fused nest modelled as
    any other nest, its members' gathers included (notes about its code were made for its
    members already; the fused nest's gathers are on no sheet's rows)."""
    groups = []
    for candidate in fusion.candidates(program, set(rows)):
        members = [rows[id(loop)] for loop in candidate.nests]
        groups.append(fusion.Group(candidate, members))
    legal = [g for g in groups if g.candidate.legal]
    if not legal:
        return groups
    procedures, origins = [], {}
    for g in legal:
        loop = fusion.fused_loop(g.candidate.nests)
        procedures.append(fusion.fused_procedure(g.candidate.procedure, g.candidate.parameter,
                                                 [loop]))
        origins[g.candidate.parameter] = (g.candidate.procedure,
                                          fusion.member_lines(g.candidate.nests, loop))
    with ctx.muted():
        fused = {shape.procedure.name: (shape, space, row, memory, work, models)
                 for shape, space, row, memory, work, models in _loop_rows(
                     Program(procedures, program.sources), ctx, setup_iterations, known, [],
                     idiom_rows, [], origins)}
    for group in legal:
        nest = fused.get(group.candidate.parameter)
        if nest is not None:  # a fused nest the model cannot build is no toggle
            nest[2]["procedure"] = group.candidate.procedure.name
            group.fused, group.toggle = nest[2], fusion.toggle(ctx, group.candidate, fuse_all)
            group.nest, group.work = (*nest[:4], nest[5]), nest[4]
    return groups


def _alternative_view(group: fusion.Group, by_procedure: dict[str, list[NestRecord]],
                      ctx: ModelContext) -> None:
    """The group's rows on the Alternative blocking sheet: its procedure's nests run with the
    fused nest in place of its members (the procedure's other groups separate).  The rows
    replacing the members' are the fused nest's and those of the procedure's other nests
    whose arrays held or streamed change (an array the group writes before reading it is no
    longer live before the group, say); an unchanged nest has an unchanged row."""
    if group.nest is None:
        return
    shape, space, row, memory, _ = group.nest
    records = by_procedure[group.candidate.procedure.name]
    members = {id(loop) for loop in group.candidate.nests}
    at = next(n for n, r in enumerate(records) if id(r.shape.loop) in members)
    fused = NestRecord(shape, space, memory.q, {k: row[k] for k in KINDS})  # type: ignore
    kept = [r for r in records if id(r.shape.loop) not in members]
    variant = [*kept[:at], fused, *kept[at:]]
    before = {id(r): plan for r, plan in zip(records, plans(records), strict=True)}
    changed = [n for n, (r, plan) in enumerate(zip(variant, plans(variant), strict=True))
               if r is not fused and plan != before[id(r)]]
    with ctx.muted():
        rows = procedure_rows(variant, ctx, f"{group.candidate.parameter}/",
                              {variant.index(fused), *changed})
    group.views["alt"] = ([r.row for r in records if id(r.shape.loop) in members] +
                          [variant[n].row for n in changed], rows)


def build_model(program: Program, params: ParameterSet,
                setup_iterations: float = DEFAULT_SETUP_ITERATIONS,
                idioms: IdiomSet | None = None, fuse_all: bool = False) -> ModelResult:
    """The model of ``program`` under ``params``: tables, totals and notes.

    A nest with literal bounds and fewer than ``setup_iterations`` iterations is set-up work
    (see :mod:`sat.model.nests`). ``idioms``: the loop idioms to recognise (default: the
    built-in ones, :mod:`sat.model.irregular.idioms`). ``fuse_all``: every legal fusion
    group's toggle is 1 unless ``--set`` gives it (:mod:`sat.model.fusion`).
    """
    derive_machine_defaults(params)  # before anything reads CacheKB or GBsPerCore
    derive_formulas(params)
    ctx = ModelContext(params, (c for proc in program.procedures for c in proc.constants))
    # The front ends' warnings head the Notes: every one, with its place in the sources.
    ctx.notes.extend(Note(w.message, "warning", w.file, w.line) for w in program.warnings)
    # then which parser read each Fortran file, and why not the fast one when it did not
    ctx.notes.extend(Note(f"read by {p.parser}" + (f" ({p.reason})" if p.reason else ""),
                          "parser", p.file) for p in program.parsed_by)
    known = {proc.name.lower() for proc in program.procedures}
    # idioms are where the source has them: in each procedure, callees not written into nests
    idiom_table, idiom_counts, idiom_warnings = idiom_tables(program, idioms)
    ctx.read_procedures = {proc.name.lower(): proc for proc in program.procedures}
    inlined = inline_calls(program)
    program, tile_sizes = untiled_program(inlined.program)
    for size in tile_sizes:  # a tile size given at run time stays a parameter of the run
        ctx.expr(size, "stride")
    ctx.averaged_loops = averaged_bounds(program)
    ctx.summed_paths = summed_paths(program, ctx.averaged_loops)
    ctx.array_words = declared_words(program)
    ctx.notes.extend(Note(d.message, "warning", d.file, d.line) for d in inlined.notes)
    ctx.notes.extend(Note(d.message, "assumption", d.file, d.line)
                     for d in inlined.assumptions)
    if any(body.calls for proc in program.procedures for loop in outermost_loops(proc)
           for body in loop.levels()):
        ctx.note(CALLS_NOTE)
    ctx.note(UNITS_NOTE)
    ctx.note(REUSE_NOTE)
    ctx.note(DIVISION_NOTE)
    loop_rows: list[dict[str, CellValue]] = []
    array_rows: list[dict[str, CellValue]] = []
    by_procedure: dict[str, list[NestRecord]] = {}
    call_rows: list[dict[str, CellValue]] = []
    level_rows: list[dict[str, CellValue]] = []
    ecm_nests = []
    cost_rows: list[dict[str, CellValue]] = []
    costs = has_cost_parameters(params)  # not in a parameter set made by hand without them
    specs = params.levels
    hierarchy = Hierarchy(specs, ctx)
    core = None
    if specs:
        # the ECM model needs the machine's memory levels: imported only for such a machine
        # (start-up time of the others)
        from sat.model.hierarchy import ecm

        core = ecm.Core.of(specs, ctx, params.benchmarks, params.level_benchmarks)
    geometries = [(spec.name, *known) for spec in specs
                  if (known := geometry(spec.ways, spec.sets)) is not None]
    alias_checks: list = []
    nests: list[NestWork] = []
    bounds: list[NestBounds] = []  # each nest's physical bounds (sat.model.bounds)
    gather_rows: list[dict[str, CellValue]] = []
    offload_rows: list[dict[str, CellValue]] = []
    idiom_offload_rows: list[dict[str, CellValue]] = []
    rows_by_loop: dict[int, dict[str, CellValue]] = {}
    works: dict[int, NestWork] = {}  # a nest's work by id of its loop
    # a Loops row's rows on the Costs and ECM sheets (by id of the Loops row): the totals of
    # those sheets with fusion toggles
    views: dict[str, dict[int, dict[str, CellValue]]] = {"costs": {}, "ecm": {}, "scaling": {}}

    def hierarchy_rows(shape, space, row, memory, gathers=()):
        """(the nest's levels, its Costs row, its ECM model), the last two None without."""
        where = {"procedure": row["procedure"], "file": row["file"], "line": row["line"]}
        per_level = nest_levels(shape, space, memory, hierarchy, ctx, where, list(gathers))
        cost_row = nest_costs(shape.ident, row, per_level.traffic, specs, ctx) if costs \
            else None
        ecm_nest = ecm.nest_ecm(shape, space, memory, per_level, {k: row[k] for k in KINDS},
                                specs, core, ctx, specs[-1].link_shared_by, where) \
            if core is not None else None
        return per_level, cost_row, ecm_nest

    for shape, space, row, memory, work, models in _loop_rows(
            program, ctx, setup_iterations, known, call_rows, idiom_table.rows, gather_rows):
        loop_rows.append(row)
        rows_by_loop[id(shape.loop)] = row
        nests.append(work)
        works[id(shape.loop)] = work
        if params.accelerator:
            # the offload model is read only for runs with an accelerator (start-up)
            from sat.model.irregular.offload import idiom_offload, nest_offload

            q = memory.q
            own = [g for g in gather_rows if g["procedure"] == row["procedure"]
                   and g["line"] == row["line"]]
            idioms = [idiom_offload(shape.loop, g, ctx) for g in own]
            idiom_offload_rows.extend(idioms)
            offload_rows.append(nest_offload(
                {**row, "time_s": q["time_s"], "gflops": q["gflops"],
                 "traffic_gb": q["traffic_gb"]}, own, idioms, ctx))
        per_level, cost_row, ecm_nest = hierarchy_rows(shape, space, row, memory, models)
        level_rows.extend(per_level.rows)
        first_array = len(array_rows)
        if cost_row is not None:
            cost_rows.append(cost_row)
            views["costs"][id(row)] = cost_row
        alias_checks.extend(nest_checks(shape, E.Ref(space.x_lines), ctx, geometries,
                                        per_level.condition))
        if ecm_nest is not None:
            ecm_nests.append(ecm_nest)
            views["ecm"][id(row)] = ecm_nest.row
            views["scaling"][id(row)] = ecm.scaling_times(ecm_nest)
        for array in memory.arrays:
            c = array.counts
            array_rows.append({
                "procedure": shape.procedure.name, "file": shape.file, "line": shape.loop.line,
                "array": array.key, "access": array.kind,
                "copies": _copies(shape, array),
                "element_bytes": _element_bytes(shape, array),
                "planes": c.planes, "pencils": c.pencils, "cells": c.cells,
                "ws_planes": c.ws_planes, "ws_pencils": c.ws_pencils, "ws_cells": c.ws_cells,
                "reuse_planes": c.reuse_planes, "reuse_pencils": c.reuse_pencils,
                "reuse_cells": c.reuse_cells, "span_x": array.spans[0],
                "span_y": array.spans[1], "span_z": array.spans[2], **array.q,
            })
        bounds.append(nest_bounds(shape, space, row, per_level.rows, array_rows[first_array:],
                                  ctx))
        flops = {k: row[k] for k in KINDS}
        by_procedure.setdefault(shape.procedure.name, []).append(
            NestRecord(shape, space, memory.q, flops))  # type: ignore[arg-type]
    hierarchy.passes.close()  # every nest under a time loop is built: its passes' data
    alt_rows = []
    for records in by_procedure.values():
        rows = procedure_rows(records, ctx)
        alt_rows.extend(rows)
        for record, alt_row in zip(records, rows, strict=True):
            record.row = alt_row

    groups = _fusion_groups(program, ctx, setup_iterations, known, rows_by_loop, fuse_all,
                            idiom_table.rows)
    for group in groups:  # the fused nest on the Costs and ECM sheets' totals
        if group.nest is not None:
            with ctx.muted():
                _, cost_row, ecm_nest = hierarchy_rows(*group.nest)
            for view, fused_row in (("costs", cost_row), ("ecm", ecm_nest and ecm_nest.row),
                                    ("scaling", ecm_nest and ecm.scaling_times(ecm_nest))):
                by_row = views[view]
                if fused_row is not None:
                    group.views[view] = ([by_row[id(m)] for m in group.members], [fused_row])
        _alternative_view(group, by_procedure, ctx)
    loops = Table("Loops", "Loop analysis", LOOP_COLUMNS, loop_rows,
                  _totals(loop_rows, "loops", groups),
                  "One row per loop nest, traditional blocking: each nest runs over the whole "
                  "domain, block by block, before the next nest.")
    alternative = Table("Alternative blocking", "All loops per block", ALT_COLUMNS, alt_rows,
                        _totals(alt_rows, "alt", groups, "alt"),
                        "Alternative scheme: all nests of a procedure run on one block before "
                        "the next block (temporaries stay in cache, halos are recomputed).")
    arrays = Table("Arrays", "Array-component working sets and traffic", ARRAY_COLUMNS,
                   array_rows, None, "Per nest, per array-component pair: stencil counts, "
                   "working sets and traffic per sweep for each reuse case.")
    tables: dict[str, Table] = {t.name: t for t in (loops, alternative, arrays)}
    if call_rows:
        tables["Calls"] = Table("Calls", "Work done in called procedures", CALL_COLUMNS,
                                call_rows, None, "Per nest, each procedure it calls: the "
                                "flops done inside it (they are part of the nest's Gflop on "
                                "the Loops sheet).")
    if specs:
        ctx.note(LEVELS_NOTE)
        tables["Levels"] = Table("Levels", "Traffic at every cache level", LEVEL_COLUMNS,
                                 level_rows, None, "Per nest and cache level, innermost first: "
                                 "the layer condition that holds and the bytes moved to the "
                                 "next level out.")
        tables["ECM"] = Table("ECM", "Execution-Cache-Memory model",
                              ecm.ecm_columns(specs, params.benchmarks,
                                              params.level_benchmarks),
                              [nest.row for nest in ecm_nests], _ecm_totals(ecm_nests, groups),
                              "Per nest: cycles per unit of work (one cache line of "
                              "iterations) in the core and over each link, one core's "
                              "prediction, the cores that saturate memory, the Roofline.")
    totals_row = loops.totals or {}
    result_totals: dict[str, E.Quantity] = {}
    for name, key in (("Total_Time_s", "time_s"), ("Total_Traffic_GB", "traffic_gb"),
                      ("Total_GFlops", "gflops"), ("Total_Weighted_GFlops", "weighted_gflops"),
                      ("Total_Bytes_Per_Flop", "bytes_per_flop"),
                      ("Compute_Bound_Share", "cpu_bound")):
        value = totals_row.get(key)
        result_totals[name] = value if isinstance(value, E.Quantity) else \
            E.Quantity(("loops", "total", key), E.Num(0), "", name)
    if "ECM" in tables:  # the hierarchy's predictions beside ExaSAT's Total_Time_s
        ecm_totals = tables["ECM"].totals or {}
        result_totals["Total_ECM_Time_s"] = ecm_totals["time_s"]  # type: ignore[assignment]
        result_totals["Total_Roofline_Time_s"] = ecm_totals["roofline_time_s"]  # type: ignore
    tables["Registers"] = registers_table(program, ctx)
    tables["Occupancy"] = occupancy_table(program, ctx)
    result_totals["Footprint_GiB"] = footprint(program, ctx)
    tables["Communication"] = comm_table(program, ctx, E.Ref(result_totals["Total_Time_s"]))
    tables["Dependences"] = dependences_table(program, ctx)
    if groups:
        ctx.note(fusion.NOTE)
        tables["Fusion"] = fusion.fusion_table(groups)
    tables["Idioms"], tables["Idiom counts"] = idiom_table, idiom_counts
    if gather_rows:
        from sat.model.irregular.gathers import NOTE as GATHER_NOTE
        from sat.model.irregular.gathers import gathers_table

        ctx.note(GATHER_NOTE)
        tables["Gathers"] = gathers_table(gather_rows)
    for warning in idiom_warnings:
        ctx.note(warning.message, "warning", warning.file, warning.line)
    if offload_rows:
        from sat.model.irregular.offload import NOTE as OFFLOAD_NOTE
        from sat.model.irregular.offload import idiom_offload_table, offload_table

        ctx.note(OFFLOAD_NOTE)
        total_time = result_totals["Total_Time_s"]
        tables["Offload"] = offload_table(offload_rows, total_time, params.accelerator)
        result_totals["Offload_Speedup"] = tables["Offload"].totals["speedup"]  # type: ignore
        if idiom_offload_rows:
            tables["Offload idioms"] = idiom_offload_table(idiom_offload_rows, total_time,
                                                           params.accelerator)
            result_totals["Offload_Idioms_Speedup"] = \
                tables["Offload idioms"].totals["speedup"]  # type: ignore[index]
    if costs:
        ctx.note(ENERGY_NOTE)
        tables["Costs"] = costs_table(cost_rows, result_totals["Total_Time_s"], specs,
                                      lambda key: fusion.sum_terms(key, groups, "costs"))
        result_totals.update(cost_totals(tables["Costs"], specs, ctx))
    if ecm_nests:
        tables["ECM scaling"] = Table(
            "ECM scaling", "Program performance against cores (ECM)", ecm.SCALING_COLUMNS,
            ecm.scaling_rows(ecm_nests, result_totals["Total_GFlops"], specs[-1].link_shared_by,
                             lambda cores: fusion.change_terms(
                                 groups, "scaling", f"time_s_{cores}",
                                 lambda times: ecm.scaling_term(times, cores), "s",
                                 f"change of the program time on {cores} cores when fused")),
            None, "Each nest scales with the cores until the memory interface saturates.")
        # beside the ECM sheet
        names = list(tables)
        names.insert(names.index("ECM") + 1, names.pop())
        tables = {name: tables[name] for name in names}
    return ModelResult(list(params.parameters.values()), tables, result_totals, ctx.notes,
                       [q for q in ctx.derived.values() if q is not None], program, level_rows,
                       alias_checks, nests=nests, data_bytes=data_bytes(program, ctx),
                       unmodelled=ctx.unmodelled, bounds=bounds,
                       fused=[FusedWork(g.candidate.parameter,
                                        [works[id(loop)] for loop in g.candidate.nests], g.work)
                              for g in groups if g.work is not None and g.toggle is not None])


def _ecm_totals(nests, groups: list[fusion.Group]) -> dict[str, CellValue]:
    """ECM totals: the times summed over the nests (a fusion group's toggle chooses its
    members or its fused nest)."""
    totals: dict[str, CellValue] = {"procedure": "Total"}
    for key, label in (("time_single_core_s", "ECM time on one core"),
                       ("time_s", "ECM time on Cores cores"),
                       ("roofline_time_s", "Roofline time over every memory level")):
        totals[key] = E.Quantity(("ecm", "total", key),
                                 E.add(*[E.Ref(n.row[key]) for n in nests],
                                       *fusion.sum_terms(key, groups, "ecm")) if nests else
                                 E.Num(0), "s", label)
    return totals


__all__ = ["build_model", "Column"]
