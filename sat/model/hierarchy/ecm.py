"""The Execution-Cache-Memory (ECM) model, a Roofline per level and multicore scaling.

Per nest, in core cycles per *unit of work*: one cache line's worth of iterations,
``LineBytes / WordBytes`` of them (the ECM model's convention):

- ``T_OL`` — the arithmetic, which overlaps with data transfers: the nest's weighted flops per
  iteration (divisions and special functions at ``DivCost`` and ``SpecialCost``, as ExaSAT's
  CPU time counts them) at the core's peak, ``GflopsPerCore / ClockGHz`` flops per cycle;
- ``T_nOL`` — loads and stores between registers and L1, which do not overlap: per iteration
  one load per distinct element read (the stencil's cells of read arrays) and one store per
  array written, ``VectorBytes / WordBytes`` elements per access, at ``LoadsPerCycle`` and
  ``StoresPerCycle`` (the slower of the two ports sets the time);
- ``T_L1L2``, ``T_L2L3``, ``T_L3Mem`` — each link's bytes per unit of work (from the per-level
  traffic, :mod:`~sat.model.hierarchy.levels`) over its bytes per cycle, ``LnGBs / ClockGHz``;
  the memory link at the whole memory interface's bandwidth.

The machine's overlap hypothesis combines them: ``T_ECM = max(T_OL, T_nOL + sum of the
transfers that do not overlap, each transfer that overlaps)`` (Intel cores: none overlaps).
One core's time is ``T_ECM`` per unit of work; ``n`` cores scale linearly until the memory
interface saturates, at ``ceil(T_ECM / T_L3Mem)`` cores; beyond it the time is the memory
transfer time at the interface's bandwidth.  The Roofline per level takes the slowest of the
CPU time and each link's time for ``Cores`` cores and names it.
"""

from __future__ import annotations

from dataclasses import dataclass

from sat.model import expr as E
from sat.model.context import ModelContext
from sat.model.exasat.flops import long_sum
from sat.model.exasat.iteration import NestSpace
from sat.model.exasat.memory import NestMemory
from sat.model.hierarchy.levels import NestLevels, executed_iterations
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


def ecm_columns(specs: list[LevelSpec]) -> list[Column]:
    links = [spec.link for spec in specs]
    bounds = ", ".join(f"{k} {name}" for k, name in enumerate(bound_names(links), start=1))
    roofs = ", ".join(f"{k} {name}" for k, name in enumerate(roofline_names(links), start=1))
    return [
        *nest_columns(),
        _c("iterations_per_unit", "Iterations/unit", "iterations", "Iterations per unit of "
           "work: LineBytes / WordBytes (one cache line of one array)."),
        _c("loads_per_iteration", "Loads", "per iteration", "Elements loaded per iteration: "
           "the distinct cells of the arrays read.", "In core"),
        _c("stores_per_iteration", "Stores", "per iteration", "Elements stored per "
           "iteration: one per array written.", "In core"),
        _c("t_ol", "T_OL", CYCLES, "Arithmetic: weighted flops per unit of work / "
           "(GflopsPerCore / ClockGHz); overlaps with data transfers.", "ECM contributions",
           "0.00"),
        _c("t_nol", "T_nOL", CYCLES, "Loads and stores per unit of work over the L1 ports "
           "(VectorBytes wide, LoadsPerCycle and StoresPerCycle); does not overlap.",
           "ECM contributions", "0.00"),
        *[_c(f"t_{spec.link}", f"T_{spec.link}", CYCLES, f"Bytes over the {spec.link} link "
             f"per unit of work / ({spec.bandwidth} / ClockGHz)"
             + ("; overlaps with the others." if spec.overlaps else "."),
             "ECM contributions", "0.00") for spec in specs],
        _c("t_ecm", "T_ECM", CYCLES, "One core's time per unit of work: MAX(T_OL, T_nOL + "
           "the transfers that do not overlap, those that do).", "ECM prediction", "0.00"),
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
        _c("roofline_time_s", "Time", "s", "The slowest of the CPU time (Loops sheet) and "
           "each link's time for Cores cores (Levels sheet).", "Roofline"),
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

    iterations_per_unit: E.Quantity
    flops_per_cycle: E.Quantity
    bytes_per_cycle: dict[str, E.Quantity]

    @classmethod
    def of(cls, specs: list[LevelSpec], ctx: ModelContext) -> Core:
        clock = ctx.param("ClockGHz")
        return cls(
            E.Quantity(("ecm", "iterations_per_unit"),
                       ctx.param("LineBytes") / ctx.param("WordBytes"), "iterations",
                       "iterations per unit of work"),
            E.Quantity(("ecm", "flops_per_cycle"), ctx.param("GflopsPerCore") / clock,
                       "flop/cycle", "peak flops per cycle"),
            {spec.name: E.Quantity(("ecm", spec.link, "bytes_per_cycle"),
                                   ctx.param(spec.bandwidth) / clock, "B/cycle",
                                   f"{spec.link} bytes per cycle") for spec in specs})


@dataclass
class NestECM:
    row: dict[str, CellValue]
    time_single_core: E.Quantity
    time_memory: E.Quantity  # the memory transfers of one core's run at one interface's bandwidth


def nest_ecm(ident: str, space: NestSpace, memory: NestMemory, levels: NestLevels,
             q: dict[str, E.Quantity], specs: list[LevelSpec], core: Core, ctx: ModelContext,
             memory_shared_by: float, where: dict[str, CellValue]) -> NestECM:
    """The ECM and Roofline quantities of one nest (a row of the ECM sheet)."""
    unit = E.Ref(core.iterations_per_unit)
    executed = executed_iterations(space)
    units = E.Quantity(("ecm", ident, "units"), executed / unit, "units", "units of work")
    clock = ctx.param("ClockGHz")

    def quantity(name: str, expr: E.Expr, qunit: str, label: str) -> E.Quantity:
        return E.Quantity(("ecm", ident, name), expr, qunit, label)

    loads = quantity("loads_per_iteration", E.add(*[
        E.mul(a.counts.cells, a.copies) for a in memory.arrays if a.kind in ("R", "RW")]),
        "per iteration", "elements loaded per iteration")
    stores = quantity("stores_per_iteration", E.add(*[
        a.copies for a in memory.arrays if a.kind != "R"]), "per iteration",
        "elements stored per iteration")
    t_ol = quantity("t_ol", E.mul(q["weighted_gflops"], 1e9) / E.Ref(units)
                    / E.Ref(core.flops_per_cycle), CYCLES, "T_OL")
    accesses = E.mul(unit, ctx.param("WordBytes")) / ctx.param("VectorBytes")
    t_nol = quantity("t_nol", E.mul(accesses, E.maximum(
        E.Ref(loads) / ctx.param("LoadsPerCycle"), E.Ref(stores) / ctx.param("StoresPerCycle"))),
        CYCLES, "T_nOL")
    links = {spec.name: quantity(f"t_{spec.link}",
                                 E.mul(levels.bytes_per_iteration[spec.name], unit)
                                 / E.Ref(core.bytes_per_cycle[spec.name]), CYCLES,
                                 f"T_{spec.link}") for spec in specs}
    serial = E.add(t_nol, *[links[s.name] for s in specs if not s.overlaps])
    t_ecm = quantity("t_ecm", E.maximum(t_ol, serial, *[links[s.name] for s in specs
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
    level_times = [q["time_cpu_s"], *[levels.time[s.name] for s in specs]]
    roofline = quantity("roofline_time_s", E.maximum(*level_times), "s", "Roofline time")
    row: dict[str, CellValue] = {
        **where, "iterations_per_unit": core.iterations_per_unit,
        "loads_per_iteration": loads, "stores_per_iteration": stores, "t_ol": t_ol,
        "t_nol": t_nol, **{f"t_{s.link}": links[s.name] for s in specs}, "t_ecm": t_ecm,
        "bound": quantity("bound", _first_equal(contributions, largest), "code",
                          "largest ECM contribution"),
        "saturation_cores": quantity("saturation_cores",
                                     E.ceiling(E.Ref(t_ecm) / E.Ref(memory_link)), "cores",
                                     "cores that saturate the memory interface"),
        "time_single_core_s": single, "time_s": time,
        "gflop_per_s": quantity("gflop_per_s", E.Ref(q["gflops"]) / E.Ref(time), "Gflop/s",
                                "Gflop/s on Cores cores"),
        "roofline_time_s": roofline,
        "roofline_bound": quantity("roofline_bound", _first_equal(level_times, roofline),
                                   "code", "Roofline bound"),
    }
    return NestECM(row, single, saturated)


def _first_equal(candidates: list[E.Quantity], target: E.Quantity) -> E.Expr:
    """1-based index of the first candidate equal to ``target`` (its maximum)."""
    expr: E.Expr = E.Num(len(candidates))
    for index in range(len(candidates) - 1, 0, -1):
        expr = E.if_(E.compare(">=", candidates[index - 1], target), index, expr)
    return expr


def scaling_rows(nests: list[NestECM], total_gflops: E.Quantity,
                 memory_shared_by: float) -> list[dict[str, CellValue]]:
    """Program time and Gflop/s against cores, up to one memory interface's cores."""
    counts = list(range(1, min(_DENSE_UP_TO, int(memory_shared_by)) + 1))
    while counts[-1] * 2 <= memory_shared_by:
        counts.append(counts[-1] * 2)
    if counts[-1] < memory_shared_by:
        counts.append(int(memory_shared_by))
    rows: list[dict[str, CellValue]] = []
    for n in counts:
        terms = [E.maximum(E.Ref(nest.time_single_core) / n, nest.time_memory)
                 for nest in nests]
        total = long_sum(terms, ("scaling", n, "time_s"), f"program time on {n} cores", "s")
        time = total.quantity if isinstance(total, E.Ref) else \
            E.Quantity(("scaling", n, "time_s"), total, "s", f"program time on {n} cores")
        rows.append({"cores": n, "time_s": time,
                     "gflop_per_s": E.Quantity(("scaling", n, "gflop_per_s"),
                                               E.Ref(total_gflops) / E.Ref(time), "Gflop/s",
                                               f"Gflop/s on {n} cores")})
    return rows
