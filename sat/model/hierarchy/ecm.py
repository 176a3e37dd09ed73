"""The Execution-Cache-Memory (ECM) model, a Roofline per level and multicore scaling.

Per nest, in core cycles per *unit of work*: one cache line's worth of iterations,
``LineBytes / MAX(element sizes)`` of them, the widest element of the nest's arrays (their
``Bytes_`` parameters; ``LineBytes / WordBytes`` for double-precision data, the ECM model's
convention):

- ``T_OL`` and ``T_nOL`` — the in-core port model (:mod:`~sat.model.hierarchy.incore`): the
  instructions of a unit of work by class over the core's ports; what overlaps with data
  transfers (arithmetic, integer work, a reduction's chain, and the store ports and address
  units when ``StoresOverlap`` and ``AGUsOverlap`` say so) and what does not (the load
  ports, and the others otherwise);
- ``T_L1L2``, ``T_L2L3``, ``T_L3Mem`` — each link's bytes per unit of work (from the per-level
  traffic, :mod:`~sat.model.hierarchy.levels`) over its bytes per cycle, ``LnGBs / ClockGHz``;
  the memory link at the whole memory interface's bandwidth.  When the machine file measured
  memory benchmarks (``Bench<kernel>Reads``, ``…Writes``, ``…GBs``), the memory link's
  bandwidth is, per nest, that of the benchmark whose read/write ratio is closest to the
  nest's, both as streams over the memory bus: streams read (arrays read, R and RW, plus the
  read for ownership of each array only written, W, when writes allocate: ``WriteCost`` over
  ``WordBytes`` minus one, between 0 and 1, and none with ``StreamingWrites``) over streams
  written (RW and W), a ratio of 1E9 when nothing is written; the first such benchmark of the
  table on a tie.  This is Kerncraft's choice.

The machine's overlap hypothesis combines them: ``T_ECM = max(T_OL, T_nOL + sum of the
transfers that do not overlap, each transfer that overlaps)`` (Intel cores: none overlaps;
``LoadsOverlap``, Kerncraft's L1 ``transfers overlap``, takes T_nOL out of the sum, as on
AMD's cores), the memory transfer with its penalty (:mod:`~sat.model.hierarchy.penalty`).
One core's time is ``T_ECM`` per unit of work; ``n`` cores scale linearly until the memory
interface saturates, at ``ceil(T_ECM / T_L3Mem)`` cores; beyond it the time is the memory
transfer time at the interface's bandwidth.  The Roofline per level takes the slowest of the
CPU time and each link's time for ``Cores`` cores and names it.  A link's time is its traffic
(the Levels sheet's) over, when the machine file measured benchmarks with the data in the
link's outer level (``Bench<kernel><level>GBs<cores>``), the bandwidth of the kernel closest
in read/write ratio to the streams over that link at the largest count of cores measured that
is not above ``Cores`` (the smallest one below it), as Kerncraft's Roofline reads its table;
else over the link's throughput for ``Cores`` cores (the Levels sheet's bandwidth).  The
streams over a link, as Kerncraft counts them per level: the arrays written (RW and W), one
write-back each, and the rest of the link's words per iteration read (bytes per iteration /
``WordBytes`` - written; reads for ownership and the reuse the level misses included), so a
stencil whose rows do not fit L1 reads more streams over L1-L2 than from memory.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from sat.model import expr as E
from sat.model.context import ModelContext
from sat.model.exasat.flops import long_sum
from sat.model.exasat.iteration import NestShape, NestSpace
from sat.model.exasat.memory import NestMemory
from sat.model.hierarchy.incore import incore_columns, nest_incore
from sat.model.hierarchy.levels import NestLevels, executed_iterations
from sat.model.hierarchy.penalty import memory_penalty, memory_streams, penalty_column
from sat.model.tables import CellValue, Column, nest_columns
from sat.model.tables import column as _c
from sat.parameter import LevelSpec

CYCLES = "cycles/unit"
IN_CORE, LOAD_STORE = "in-core", "load/store"
# Core counts of the scaling table: every count up to 16, then doubling, up to the cores of
# one memory interface.
_DENSE_UP_TO = 16


def bound_names(links: list[str]) -> list[str]:
    """Names of the ECM contributions, in the order of the ``bound`` code (1, 2, …)."""
    return [IN_CORE, LOAD_STORE, *links]


def roofline_names(links: list[str]) -> list[str]:
    """Names of the Roofline bounds, in the order of the ``roofline_bound`` code (1, 2, …)."""
    return ["core", *links]


# The read/write ratio of a kernel that writes nothing (Kerncraft's "load"): larger than any
# real kernel's, so that only another read-only kernel is close to it.
NO_WRITES_RATIO = 1e9


def outer_level(spec: LevelSpec) -> str:
    """The level at the outer end of a cache level's link: ``L2``, …, ``MEM``."""
    return spec.link.split("-", 1)[1]


def _roofline_link_columns(specs: list[LevelSpec], benchmarks: dict[str, str],
                           tables: dict[str, dict[str, list[int]]]) -> list[Column]:
    """Per link, the benchmark and bandwidth of the Roofline (machines with measured
    bandwidths at some level past L1)."""
    columns = []
    for spec in specs:
        table = tables.get(outer_level(spec))
        if table:
            names = [benchmarks[name] for name in table]
            columns.append(_c(
                f"roofline_benchmark_{spec.link}", f"Benchmark {spec.link}", "code",
                f"Benchmark measured with the data in {outer_level(spec)} whose read/write "
                f"ratio is closest to that of the streams over {spec.link}: written arrays "
                "(RW and W) one each, read ones the rest of its bytes per iteration / "
                "WordBytes (1E9 when nothing is written): "
                + ", ".join(f"{k} {name}" for k, name in enumerate(names, start=1)) + ".",
                "Roofline", words=tuple(names)))
        columns.append(_c(
            f"roofline_gbs_{spec.link}", f"BW {spec.link}", "GB/s",
            (f"That benchmark's Bench<name>{outer_level(spec)}GBs<n> at the largest n "
             "measured not above Cores (the smallest n when Cores is below them all)"
             if table else f"The {spec.link} link's throughput for Cores cores (Levels "
             "sheet)") + ": the bandwidth of the link's Roofline time, traffic / it.",
            "Roofline", "0.00"))
    return columns


def ecm_columns(specs: list[LevelSpec], benchmarks: dict[str, str] | None = None,
                tables: dict[str, dict[str, list[int]]] | None = None) -> list[Column]:
    links = [spec.link for spec in specs]
    memory = specs[-1]
    chosen = [
        _c("memory_benchmark", "Benchmark", "code", "Memory benchmark whose read/write ratio "
           "(BenchnameReads / BenchnameWrites) is closest to the nest's (streams read from "
           "memory, with the read for ownership of arrays only written when writes allocate, / "
           "arrays written; 1E9 when nothing is written): "
           + ", ".join(f"{k} {name}" for k, name in enumerate((benchmarks or {}).values(),
                                                                start=1))
           + ".", "Memory link", words=tuple((benchmarks or {}).values())),
        _c("memory_bandwidth_gbs", "Bandwidth", "GB/s", "That benchmark's BenchnameGBs: the "
           f"bandwidth of the {memory.link} link in T_{memory.link}.", "Memory link", "0.00"),
    ] if benchmarks else []
    bounds = ", ".join(f"{k} {name}" for k, name in enumerate(bound_names(links), start=1))
    roofs = ", ".join(f"{k} {name}" for k, name in enumerate(roofline_names(links), start=1))
    return [
        *nest_columns(),
        _c("iterations_per_unit", "Iterations/unit", "iterations", "Iterations per unit of "
           "work: LineBytes over the widest element of the nest's arrays (their Bytes_ "
           "parameters; LineBytes / WordBytes for double-precision data): one cache line of "
           "one array."),
        *incore_columns(),
        _c("t_ol", "T_OL", CYCLES, "In-core time that overlaps with data transfers: the "
           "largest of T_fp, T_int, T_chain, and of T_store and T_agu when StoresOverlap and "
           "AGUsOverlap are TRUE.", "ECM contributions", "0.00"),
        _c("t_nol", "T_nOL", CYCLES, "In-core time that does not overlap: the largest of "
           "T_load, and of T_store and T_agu when they do not overlap.",
           "ECM contributions", "0.00"),
        *chosen,
        *[_c(f"t_{spec.link}", f"T_{spec.link}", CYCLES, f"Bytes over the {spec.link} link "
             f"per unit of work / ({'Bandwidth' if chosen and spec is memory else spec.bandwidth}"
             " / ClockGHz)"
             + ("; overlaps with the others." if spec.overlaps else "."),
             "ECM contributions", "0.00") for spec in specs],
        penalty_column(),
        _c("t_ecm", "T_ECM", CYCLES, "One core's time per unit of work: MAX(T_OL, T_nOL + "
           "the transfers that do not overlap, those that do; T_nOL alone when "
           "LoadsOverlap; T_penalty with the memory transfer).", "ECM prediction", "0.00"),
        _c("bound", "Bound", "code", f"Largest contribution: {bounds}.", "ECM prediction",
           words=tuple(bound_names(links))),
        _c("saturation_cores", "Saturation", "cores", "Cores at which the memory interface "
           "saturates: CEILING(T_ECM / T_memory).", "ECM prediction"),
        _c("time_single_core_s", "1 core", "s", "Time of the nest on one core: units of work "
           "× T_ECM / ClockGHz.", "ECM prediction"),
        _c("time_s", "Cores", "s", "Time on Cores cores: the larger of one core's time / "
           "Cores and the memory transfer time at the bandwidth of the memory interfaces "
           "the Cores use.", "ECM prediction"),
        _c("gflop_per_s", "Gflop/s", "Gflop/s", "Gflop / time on Cores cores.",
           "ECM prediction", "0.00"),
        *(_roofline_link_columns(specs, benchmarks or {}, tables) if tables else []),
        _c("roofline_time_s", "Time", "s", "The slowest of the CPU time (Loops sheet) and "
           "each link's time for Cores cores: the Levels sheet's traffic over "
           + ("BW of the link." if tables else "the link's bandwidth (Levels sheet)."),
           "Roofline"),
        _c("roofline_bound", "Bound", "code", f"What sets the Roofline time: {roofs}.",
           "Roofline", words=tuple(roofline_names(links))),
    ]


SCALING_COLUMNS: list[Column] = [
    _c("cores", "Cores", "cores", "Cores working on the program (within one memory "
       "interface)."),
    _c("time_s", "Time", "s", "Program time: per nest, the larger of one core's time / cores "
       "and the memory transfer time; summed over the nests."),
    _c("gflop_per_s", "Gflop/s", "Gflop/s", "Total Gflop / time.", "", "0.00"),
]


@dataclass
class Core:
    """The quantities every nest's ECM shares."""

    bytes_per_cycle: dict[str, E.Quantity]
    # per memory benchmark (parameter name part): its read/write ratio, its bandwidth
    benchmark_ratio: dict[str, E.Quantity]
    benchmark_gbs: dict[str, E.Expr]
    # per outer level of a link with measured bandwidths: per benchmark, its bandwidth at
    # Cores cores (the Roofline's)
    level_gbs: dict[str, dict[str, E.Quantity]]

    @classmethod
    def of(cls, specs: list[LevelSpec], ctx: ModelContext,
           benchmarks: dict[str, str] | None = None,
           tables: dict[str, dict[str, list[int]]] | None = None) -> Core:
        clock = ctx.param("ClockGHz")
        ratios = {name: E.Quantity(("ecm", "benchmark", name, "ratio"),
                                   _ratio(ctx.param(f"Bench{name}Reads"),
                                          ctx.param(f"Bench{name}Writes")),
                                   "", f"read/write ratio of the {name} benchmark")
                  for name in benchmarks or {}}
        return cls(
            {spec.name: E.Quantity(("ecm", spec.link, "bytes_per_cycle"),
                                   ctx.param(spec.bandwidth) / clock, "B/cycle",
                                   f"{spec.link} bytes per cycle") for spec in specs},
            ratios, {name: ctx.param(f"Bench{name}GBs") for name in ratios},
            {level: {name: E.Quantity(("ecm", "benchmark", name, level, "gbs"),
                                      _at_cores(name, level, counts, ctx), "GB/s",
                                      f"bandwidth of the {name} benchmark in {level} at "
                                      "Cores cores")
                     for name, counts in table.items()}
             for level, table in (tables or {}).items()})


def _at_cores(name: str, level: str, counts: list[int], ctx: ModelContext) -> E.Expr:
    """The measured bandwidth at the largest count of cores not above Cores (the smallest
    count when Cores is below them all)."""
    ordered = sorted(counts)
    cores = ctx.param("Cores")
    expr: E.Expr = ctx.param(f"Bench{name}{level}GBs{ordered[0]}")
    for count in ordered[1:]:
        expr = E.if_(E.compare(">=", cores, count), ctx.param(f"Bench{name}{level}GBs{count}"),
                     expr)
    return expr


def _closest(ratios, ratio: E.Expr) -> E.Expr:
    """The code (1, 2, …) of the benchmark whose read/write ratio (quantities) is nearest to
    ``ratio``, the first of equals."""
    return _first_smallest([E.func("ABS", E.add(E.Ref(r), E.mul(-1, ratio))) for r in ratios])


def _ratio(reads: E.ExprLike, writes: E.ExprLike) -> E.Expr:
    """Reads over writes, NO_WRITES_RATIO when nothing is written."""
    return E.if_(E.compare(">", writes, 0), E.div(reads, writes), NO_WRITES_RATIO)


@dataclass
class NestECM:
    row: dict[str, CellValue]
    time_single_core: E.Quantity
    time_memory: E.Quantity  # the memory transfers of one core's run at one interface's bandwidth


def nest_ecm(shape: NestShape, space: NestSpace, memory: NestMemory, levels: NestLevels,
             flops: dict[str, CellValue], specs: list[LevelSpec], core: Core,
             ctx: ModelContext, memory_shared_by: float,
             where: dict[str, CellValue]) -> NestECM:
    """The ECM and Roofline quantities of one nest (a row of the ECM sheet)."""
    ident, q = shape.ident, memory.q
    sizes = list(dict.fromkeys(a.size for a in memory.arrays)) or [ctx.param("WordBytes")]
    element = E.maximum(*sizes)
    per_unit = E.Quantity(("ecm", ident, "iterations_per_unit"),
                          ctx.param("LineBytes") / element, "iterations",
                          "iterations per unit of work")
    unit = E.Ref(per_unit)
    executed = executed_iterations(space)
    units = E.Quantity(("ecm", ident, "units"), executed / unit, "units", "units of work")
    clock = ctx.param("ClockGHz")

    def quantity(name: str, expr: E.Expr, qunit: str, label: str) -> E.Quantity:
        return E.Quantity(("ecm", ident, name), expr, qunit, label)

    incore = nest_incore(shape, memory, flops, unit, element, ctx)
    t_ol, t_nol = incore.t_ol, incore.t_nol
    per_cycle: dict[str, E.Expr] = {spec.name: E.Ref(core.bytes_per_cycle[spec.name])
                                    for spec in specs}
    chosen: dict[str, CellValue] = {}
    if core.benchmark_ratio:
        ratio = _ratio(*memory_streams(memory, ctx))
        closest = quantity("memory_benchmark", _closest(core.benchmark_ratio.values(), ratio),
                           "code", "memory benchmark closest in read/write ratio")
        bandwidth = quantity("memory_bandwidth_gbs",
                             _picked(closest, list(core.benchmark_gbs.values())), "GB/s",
                             "memory bandwidth of that benchmark")
        per_cycle[specs[-1].name] = E.Ref(bandwidth) / clock
        chosen = {"memory_benchmark": closest, "memory_bandwidth_gbs": bandwidth}
    links = {spec.name: quantity(f"t_{spec.link}",
                                 E.mul(levels.bytes_per_iteration[spec.name], unit)
                                 / per_cycle[spec.name], CYCLES,
                                 f"T_{spec.link}") for spec in specs}
    memory_name = specs[-1].name
    penalty = memory_penalty(ident, memory, E.mul(levels.bytes_per_iteration[memory_name],
                                                  unit), ctx)
    paid = {name: E.add(link, penalty) if name == memory_name else E.Ref(link)
            for name, link in links.items()}
    serial = E.add(E.if_(ctx.param("LoadsOverlap"), 0, t_nol),
                   *[paid[s.name] for s in specs if not s.overlaps])
    t_ecm = quantity("t_ecm", E.maximum(t_ol, t_nol, serial, *[paid[s.name] for s in specs
                                                               if s.overlaps]), CYCLES, "T_ECM")
    contributions = [t_ol, t_nol, *links.values()]
    largest = quantity("largest", E.maximum(*contributions), CYCLES, "largest contribution")
    memory_link = links[specs[-1].name]
    per_second = E.mul(clock, 1e9)
    single = quantity("time_single_core_s", E.Ref(units) * E.Ref(t_ecm) / per_second, "s",
                      "time on one core")
    # one core's memory transfers at one interface's bandwidth: the saturated time
    saturated = quantity("time_memory_s", E.Ref(units) * E.Ref(memory_link) / per_second, "s",
                         "memory transfer time at one interface's bandwidth")
    cores = ctx.param("Cores")
    interfaces = E.maximum(1, cores / memory_shared_by)
    time = quantity("time_s", E.maximum(E.Ref(single) / cores, E.Ref(saturated) / interfaces),
                    "s", "ECM time on Cores cores")
    level_times: list[E.Quantity] = [q["time_cpu_s"]]
    roofs: dict[str, CellValue] = {}
    for spec in specs:
        if not core.level_gbs:  # no measured bandwidths: the Levels sheet's times
            level_times.append(levels.time[spec.name])
            continue
        table = core.level_gbs.get(outer_level(spec), {})
        roof_gbs: E.Quantity = levels.bandwidth[spec.name]
        if table:
            # the streams over this link: the written arrays' write-backs, and the rest of
            # its words per iteration read (reads for ownership and the reuse the level
            # misses included), as Kerncraft counts them per level
            written = memory.numbers["rw_arrays"] + memory.numbers["w_arrays"]
            mix = quantity(f"roofline_ratio_{spec.link}", _ratio(
                E.div(levels.bytes_per_iteration[spec.name], ctx.param("WordBytes")) - written,
                written), "", f"read/write ratio of the streams over {spec.link}")
            code = quantity(f"roofline_benchmark_{spec.link}", _closest(
                [core.benchmark_ratio[name] for name in table], E.Ref(mix)), "code",
                f"{spec.link} benchmark closest in read/write ratio")
            roof_gbs = quantity(f"roofline_gbs_{spec.link}", _picked(
                code, [E.Ref(gbs) for gbs in table.values()]), "GB/s",
                f"{spec.link} bandwidth of that benchmark at Cores cores")
            roofs[f"roofline_benchmark_{spec.link}"] = code
        else:
            roof_gbs = quantity(f"roofline_gbs_{spec.link}", E.Ref(roof_gbs), "GB/s",
                                f"{spec.link} throughput for Cores cores")
        roofs[f"roofline_gbs_{spec.link}"] = roof_gbs
        level_times.append(quantity(f"roofline_time_{spec.link}",
                                    E.Ref(levels.traffic[spec.name]) / E.Ref(roof_gbs), "s",
                                    f"{spec.link} Roofline time"))
    roofline = quantity("roofline_time_s", E.maximum(*level_times), "s", "Roofline time")
    row: dict[str, CellValue] = {
        **where, "iterations_per_unit": per_unit, **incore.row, "t_ol": t_ol,
        "t_nol": t_nol, **chosen, **{f"t_{s.link}": links[s.name] for s in specs},
        "t_penalty": penalty, "t_ecm": t_ecm,
        "bound": quantity("bound", _first_equal(contributions, largest), "code",
                          "largest ECM contribution"),
        "saturation_cores": quantity("saturation_cores",
                                     E.ceiling(E.Ref(t_ecm) / E.Ref(memory_link)), "cores",
                                     "cores that saturate the memory interface"),
        "time_single_core_s": single, "time_s": time,
        "gflop_per_s": quantity("gflop_per_s", E.Ref(q["gflops"]) / E.Ref(time), "Gflop/s",
                                "Gflop/s on Cores cores"),
        **roofs, "roofline_time_s": roofline,
        "roofline_bound": quantity("roofline_bound", _first_equal(level_times, roofline),
                                   "code", "Roofline bound"),
    }
    return NestECM(row, single, saturated)


def _picked(code: E.ExprLike | E.Quantity, values: list[E.Expr]) -> E.Expr:
    """The value of ``values`` the 1-based ``code`` names."""
    picked: E.Expr = values[-1]
    for index in range(len(values) - 1, 0, -1):
        picked = E.if_(E.compare("=", code, index), values[index - 1], picked)
    return picked


def _first_equal(candidates: list[E.Quantity], target: E.Quantity) -> E.Expr:
    """1-based index of the first candidate equal to ``target`` (its maximum)."""
    expr: E.Expr = E.Num(len(candidates))
    for index in range(len(candidates) - 1, 0, -1):
        expr = E.if_(E.compare(">=", candidates[index - 1], target), index, expr)
    return expr


def _first_smallest(candidates: list[E.Expr]) -> E.Expr:
    """1-based index of the first of ``candidates`` equal to their minimum."""
    smallest = E.minimum(*candidates) if len(candidates) > 1 else candidates[0]
    expr: E.Expr = E.Num(len(candidates))
    for index in range(len(candidates) - 1, 0, -1):
        expr = E.if_(E.compare("<=", candidates[index - 1], smallest), index, expr)
    return expr


def scaling_term(times: dict[str, CellValue], cores: int) -> E.Expr:
    """A nest's time on ``cores`` cores of one memory interface: the larger of one core's
    time / cores and its memory transfers at the interface's bandwidth (``times``: the
    nest's :func:`scaling_times`)."""
    return E.maximum(E.Ref(times["time_single_core_s"]) / cores,  # type: ignore[arg-type]
                     times["time_memory_s"])  # type: ignore[arg-type]


def scaling_times(nest: NestECM) -> dict[str, CellValue]:
    """The times of a nest the ECM scaling sheet uses, by name."""
    return {"time_single_core_s": nest.time_single_core, "time_memory_s": nest.time_memory}


def scaling_rows(nests: list[NestECM], total_gflops: E.Quantity, memory_shared_by: float,
                 more: Callable[[int], list[E.Expr]] = lambda cores: []
                 ) -> list[dict[str, CellValue]]:
    """Program time and Gflop/s against cores, up to one memory interface's cores.
    ``more(cores)``: terms added to the program time (a fusion toggle's,
    :mod:`sat.model.fusion`)."""
    counts = list(range(1, min(_DENSE_UP_TO, int(memory_shared_by)) + 1))
    while counts[-1] * 2 <= memory_shared_by:
        counts.append(counts[-1] * 2)
    if counts[-1] < memory_shared_by:
        counts.append(int(memory_shared_by))
    rows: list[dict[str, CellValue]] = []
    for n in counts:
        terms = [*(scaling_term(scaling_times(nest), n) for nest in nests), *more(n)]
        total = long_sum(terms, ("scaling", n, "time_s"), f"program time on {n} cores", "s")
        time = total.quantity if isinstance(total, E.Ref) else \
            E.Quantity(("scaling", n, "time_s"), total, "s", f"program time on {n} cores")
        rows.append({"cores": n, "time_s": time,
                     "gflop_per_s": E.Quantity(("scaling", n, "gflop_per_s"),
                                               E.Ref(total_gflops) / E.Ref(time), "Gflop/s",
                                               f"Gflop/s on {n} cores")})
    return rows
