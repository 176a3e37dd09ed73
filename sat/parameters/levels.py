"""The parameters of a machine's memory hierarchy and core for the per-level model and ECM.

A machine with two or more cache levels gets, besides ExaSAT's parameters (``CacheKB`` and
``GBsPerCore`` keep their meaning; the model makes them derived defaults of the level
parameters, :func:`sat.model.hierarchy.levels.derive_machine_defaults`), one capacity and one
bandwidth per cache level and the core's clock and load/store throughput:

- ``L1KB``, ``L2KB``, … — capacity per thread (KiB) when every core sharing an instance runs:
  one instance's size divided by the cores that share it;
- ``L3SharedBy``, … — for a level whose instance several cores share, their number: the
  capacity the model uses is then ``L3KB × L3SharedBy / MAX(1, MIN(Cores, L3SharedBy))``, the
  instance's size over the cores *in use* that share it (one core running alone owns the
  whole cache; :class:`sat.model.hierarchy.levels.Hierarchy`);
- ``L1GBs``, ``L2GBs``, … — bandwidth of the link from that level to the next one out (GB/s).
  A link between caches is counted per core (one instance's bandwidth divided by the cores
  sharing it, or ``LineBytes × ClockGHz / cycles per line``): caches' bandwidth grows with the
  cores.  The link of the last cache to memory is one memory interface's whole bandwidth,
  shared by the cores the machine file says (memory bandwidth saturates: the ECM model's
  saturation point comes from it);
- ``Bench<kernel>Reads``, ``Bench<kernel>Writes``, ``Bench<kernel>GBs`` — one row per memory
  benchmark the machine file measured (Kerncraft's ``load``, ``copy``, ``triad``, …): the
  streams it reads (write-allocate reads included) and writes over the memory bus and the
  bandwidth one memory domain's cores reach with it (bytes over the bus). With them, each
  nest's memory link takes the bandwidth of the benchmark whose read/write ratio is closest to
  the nest's (:mod:`sat.model.hierarchy.ecm`);
- ``Bench<kernel><level>GBs<cores>`` — the bandwidth the machine file measured for that
  benchmark with its data in ``<level>`` (``L2``, ``L3``, …, ``MEM``: the link into it from
  the level inside) on ``<cores>`` cores, bytes over the link (times the kernel's
  write-allocate factor), for every kernel of the memory table: the Roofline per level takes,
  per nest and link, the kernel closest in read/write ratio at ``Cores`` cores
  (:mod:`sat.model.hierarchy.ecm`);
- ``ClockGHz``, ``VectorBytes`` and the port model (``AddPorts``, ``MulPorts``,
  ``FMAPorts``, ``FPPorts``, ``DivCycles``, ``LoadsPerCycle``, ``LoadBytes``,
  ``StoresPerCycle``, ``StoreBytes``, ``AGUsPerCycle``, ``StoresOverlap``, ``AGUsOverlap``,
  ``IntPorts``, ``SharedIntPorts``, ``LoopOverheadOps``, ``LoadAddressOps``, ``AddLatency``)
  and the compiler's reductions (``Accumulators``, ``FastMath``) — the core, for ECM's
  in-core part (:mod:`sat.model.hierarchy.incore`); ``LoadsOverlap``, ``MemLoadPenaltyCycles``
  and ``MemStorePenaltyCycles`` for the ECM prediction (:mod:`sat.model.hierarchy.ecm`).

Values the machine file does not give are documented assumptions, said in their source.
ExaSAT's machines (one ``on-chip`` cache) get none of these: their model is ExaSAT's.
"""

from __future__ import annotations

import re

from sat.machine import Machine
from sat.machine.levels import CORE_FLAGS, CORE_KEYS, CoreThroughput, MemoryLevel
from sat.parameter import LevelSpec, Parameter, ParameterSet, ParameterSpec

# Assumed when a machine with several cache levels does not say (a common server core); the
# field and unit of each are the machine files' (CORE_KEYS).  Port figures a file leaves out
# are first derived from what it does give (_derived_core).
ASSUMED_CORE = {
    "ClockGHz": (2.0, "Core clock: ECM times are in its cycles."),
    "VectorBytes": (32.0, "Width of the vectors the compiler uses (32 for AVX, 64 for "
                    "AVX-512, 16 for NEON)."),
    "AddPorts": (1.0, "Vector add/subtract instructions the core issues per cycle."),
    "MulPorts": (1.0, "Vector multiply instructions the core issues per cycle."),
    "FMAPorts": (0.0, "Fused multiply-add instructions the core issues per cycle (0: no FMA, "
                 "products and sums stay apart)."),
    "FPPorts": (2.0, "Floating-point instructions (add, multiply, FMA together) the core "
                "issues per cycle: the ports they share."),
    "DivCycles": (16.0, "Cycles one vector divide keeps the divider busy (reciprocal "
                  "throughput)."),
    "LoadsPerCycle": (2.0, "Loads the core issues per cycle (load ports), each moving up to "
                      "LoadBytes."),
    "LoadBytes": (32.0, "Bytes one load port moves per cycle: a wider vector load takes "
                  "VectorBytes / LoadBytes cycles of a port."),
    "StoresPerCycle": (1.0, "Stores the core issues per cycle (store-data ports), each moving "
                       "up to StoreBytes."),
    "StoreBytes": (32.0, "Bytes one store port moves per cycle."),
    "AGUsPerCycle": (3.0, "Addresses the core generates per cycle, for loads and stores "
                     "together."),
    "StoresOverlap": (1.0, "TRUE: the store ports' cycles overlap with data transfers (in "
                      "T_OL, Kerncraft's Intel and AMD files); FALSE: they add to T_nOL."),
    "AGUsOverlap": (1.0, "TRUE: the address units' cycles overlap with data transfers (in "
                    "T_OL); FALSE: they add to T_nOL."),
    "IntPorts": (4.0, "Integer instructions (loop counter, compare and branch, address "
                 "arithmetic) the core issues per cycle: its integer ALU ports."),
    "SharedIntPorts": (0.0, "Of the IntPorts, those that also execute the floating-point "
                       "instructions (0: separate integer and floating-point pipes)."),
    "LoopOverheadOps": (2.0, "Integer instructions of the loop's own per iteration of the "
                        "(vector) loop: counter increment, compare and branch (a fused "
                        "compare-and-branch counts one)."),
    "LoadAddressOps": (0.0, "Integer instructions a load needs for its address beyond what "
                       "the address unit does (0: the addressing mode covers it)."),
    "AddLatency": (4.0, "Cycles from the start of a floating-point add to its result: one "
                   "link of a reduction's loop-carried chain."),
    "Accumulators": (1.0, "Partial sums the compiler keeps for a reduction when it may "
                     "reassociate (FastMath): gcc -O3 -ffast-math keeps one (one vector "
                     "register) unless told to unroll."),
    "FastMath": (0.0, "TRUE: the compiler may reassociate floating-point sums (-ffast-math, "
                 "-Ofast), so a reduction runs one chain per vector lane and accumulator; "
                 "FALSE: it adds in source order, one element after another."),
    "LoadsOverlap": (0.0, "TRUE: the load ports' cycles (T_nOL) overlap with the transfers "
                     "between caches, the ECM prediction takes the largest (L1's transfers "
                     "overlap, AMD's cores); FALSE: they add up (Intel's)."),
    "MemLoadPenaltyCycles": (0.0, "Cycles a core loses per cache line it reads from memory, "
                             "beyond the transfer at the measured bandwidth."),
    "MemStorePenaltyCycles": (0.0, "Cycles a core loses per cache line it writes to memory, "
                              "beyond the transfer at the measured bandwidth."),
}
# Bytes per cycle of a link between caches when the file gives neither bandwidth nor cycles.
ASSUMED_BYTES_PER_CYCLE = 32.0


_LEVEL_NAME = re.compile(r"L[1-9][0-9]?(KB|GBs|SharedBy)")
_LEVEL_UNITS = {"KB": "KiB", "GBs": "GB/s", "SharedBy": "cores"}
_BENCHMARK_NAME = re.compile(r"Bench[A-Za-z0-9]+?(Reads|Writes|GBs)")
_BENCHMARK_UNITS = {"Reads": "arrays", "Writes": "arrays", "GBs": "GB/s"}
_LEVEL_BENCHMARK_NAME = re.compile(r"Bench[A-Za-z0-9]+?(L[1-9][0-9]?|MEM)GBs[1-9][0-9]*")


def level_spec(name: str) -> ParameterSpec | None:
    """The rule a level or core parameter's value must follow (all are positive numbers)."""
    if name in ASSUMED_CORE:
        default, label = ASSUMED_CORE[name]
        if name in CORE_FLAGS:
            return ParameterSpec(name, "", label, default, "flag", "boolean")
        rule = "nonnegative" if CORE_KEYS[name][2] else "positive"
        return ParameterSpec(name, CORE_KEYS[name][1], label, default, rule)
    found = _LEVEL_NAME.fullmatch(name)
    if found:
        return ParameterSpec(name, _LEVEL_UNITS[found.group(1)], "", 1, "positive")
    if _LEVEL_BENCHMARK_NAME.fullmatch(name):
        return ParameterSpec(name, "GB/s", "", 1, "positive")
    found = _BENCHMARK_NAME.fullmatch(name)
    if found:
        kind = found.group(1)
        return ParameterSpec(name, _BENCHMARK_UNITS[kind], "", 1,
                             "positive" if kind == "GBs" else "nonnegative")
    return None


def add_level_parameters(paramset: ParameterSet, machine: Machine) -> None:
    """Add the level and core parameters of ``machine`` (two or more cache levels) to
    ``paramset`` and record the levels the model reads."""
    caches = machine.cache_levels
    if len(caches) < 2 or any(level.size_kib is None for level in caches):
        return
    core = machine.core
    derived = _derived_core(core, machine.value("WordBytes"))
    for name, (default, label) in ASSUMED_CORE.items():
        attribute, unit, _ = CORE_KEYS[name]
        value = getattr(core, attribute)
        source = core.sources.get(attribute, machine.source)
        formula = ""
        if value is None and name == "LoadsOverlap" and caches[0].transfers_overlap is not None:
            value = float(caches[0].transfers_overlap)
            source = f"{caches[0].name} transfers overlap: {caches[0].source or machine.source}"
        if value is None and name in derived:
            value, source, formula = derived[name]
        if value is None:
            value, source = default, f"assumed: {machine.name} does not give it"
        if name in CORE_FLAGS:
            paramset.add(Parameter(name, int(value), "", "machine", label, source, "boolean"))
        else:
            paramset.add(Parameter(name, value, unit, "machine", label, source,
                                   formula=formula))
    clock = paramset["ClockGHz"].value
    line = machine.value("LineBytes")
    for index, level in enumerate(caches):
        outer = machine.link_out(level.name)
        link_name = f"{level.name}-{'MEM' if outer is None or outer.is_memory else outer.name}"
        capacity, bandwidth = f"{level.name}KB", f"{level.name}GBs"
        per_thread = level.size_kib / level.shared_by_cores  # type: ignore[operator]
        paramset.add(Parameter(
            capacity, per_thread, "KiB", "machine",
            f"{level.name} cache capacity per thread when every core sharing it runs: one "
            "instance's size divided by the cores sharing it.",
            f"{level.size_kib:g} KiB / {level.shared_by_cores:g} cores: {level.source}".rstrip(
                ": ")))
        shared_by = ""
        if level.shared_by_cores > 1:
            shared_by = f"{level.name}SharedBy"
            paramset.add(Parameter(
                shared_by, level.shared_by_cores, "cores", "machine",
                f"Cores sharing one {level.name} instance: with fewer of them in use (Cores), "
                f"each has a larger part of it ({level.name}KB × {shared_by} / MIN(Cores, "
                f"{shared_by})).", level.source or machine.source))
        value, source, shared, formula = _link_bandwidth(outer, machine, clock, line)
        paramset.add(Parameter(bandwidth, value, "GB/s", "machine",
                               f"Bandwidth of the {link_name} link"
                               + (" (one memory interface, shared by its cores)."
                                  if outer is None or outer.is_memory else " per core."),
                               source, formula=formula))
        paramset.levels.append(LevelSpec(
            level.name, capacity, bandwidth, link_name, shared,
            adds_inner=index > 0 and level.policy in ("exclusive", "victim"),
            overlaps=bool(outer is not None and outer.transfers_overlap),
            ways=level.ways, sets=level.sets, shared_by=shared_by))
    _add_benchmarks(paramset, machine)
    _add_level_benchmarks(paramset, machine)


def benchmark_parameter_name(kernel: str) -> str:
    """The part of a benchmark's parameter names that names it: ``triad`` -> ``Triad``."""
    cleaned = re.sub(r"[^A-Za-z0-9]", "", kernel)
    return cleaned[:1].upper() + cleaned[1:]


def _add_benchmarks(paramset: ParameterSet, machine: Machine) -> None:
    """One row per memory benchmark: its read streams, write streams and bandwidth."""
    memory = machine.memory_level
    domain = f"{memory.shared_by_cores:g} cores" if memory is not None else "its cores"
    for benchmark in machine.memory_benchmarks:
        name = benchmark_parameter_name(benchmark.name)
        if not name or name in paramset.benchmarks:
            continue
        paramset.benchmarks[name] = benchmark.name
        for suffix, value, label in (
                ("Reads", benchmark.read_streams, f"Streams the {benchmark.name} memory "
                 "benchmark reads over the memory bus: arrays read, plus the write-allocate "
                 "read of each array only written."),
                ("Writes", benchmark.write_streams, f"Streams (arrays) the {benchmark.name} "
                 "memory benchmark writes."),
                ("GBs", benchmark.bandwidth_gbs, f"Memory bandwidth of the {benchmark.name} "
                 f"benchmark on one memory domain ({domain}), bytes over the bus: the memory "
                 "link's bandwidth for a nest whose read/write ratio is closest to its own.")):
            paramset.add(Parameter(f"Bench{name}{suffix}", value,
                                   _BENCHMARK_UNITS[suffix], "machine", label,
                                   benchmark.source))


def level_benchmark_name(kernel: str, level: str, cores: int) -> str:
    """The parameter of a benchmark's bandwidth in a level at a count of cores:
    ``BenchTriadL2GBs4``."""
    return f"Bench{kernel}{level}GBs{cores}"


def _add_level_benchmarks(paramset: ParameterSet, machine: Machine) -> None:
    """One row per benchmark of the memory table, level past L1 and count of cores measured:
    the bandwidth of the link into that level."""
    for benchmark in machine.level_benchmarks:
        name = benchmark_parameter_name(benchmark.kernel)
        if paramset.benchmarks.get(name) != benchmark.kernel:
            continue  # only the memory table's kernels have a read/write ratio
        counts = paramset.level_benchmarks.setdefault(benchmark.level, {}).setdefault(name, [])
        for cores, gbs in benchmark.bandwidths:
            if cores in counts:
                continue
            counts.append(cores)
            paramset.add(Parameter(
                level_benchmark_name(name, benchmark.level, cores), gbs, "GB/s", "machine",
                f"Bandwidth of the {benchmark.kernel} benchmark with its data in "
                f"{benchmark.level} on {cores} core(s), bytes over the link into it: the "
                "Roofline's bandwidth of that link at Cores = "
                f"{cores} for a nest whose read/write ratio is closest to the kernel's.",
                f"{benchmark.source}: {gbs:g} GB/s"))


def _derived_core(core: CoreThroughput, word: float) -> dict[str, tuple[float, str, str]]:
    """Port figures a machine file implies without giving them: ports from its flops per
    cycle (``AddFlopsPerCycle`` / elements per vector, …), load and store widths of a full
    vector, address units for every load and store port.  Each is (value, source, formula):
    the formula over the other core parameters when it derives from them ("" otherwise)."""
    out: dict[str, tuple[float, str, str]] = {}
    vector = core.vector_bytes or ASSUMED_CORE["VectorBytes"][0]
    elements = vector / word
    for name, flops, per in (("AddPorts", core.add_flops_per_cycle, elements),
                             ("MulPorts", core.mul_flops_per_cycle, elements),
                             ("FMAPorts", core.fma_flops_per_cycle, 2 * elements)):
        if flops is not None:
            out[name] = (flops / per, f"{name[:-5]}FlopsPerCycle {flops:g} / {per:g} (flops "
                         f"per {vector:g}-byte instruction)", "")
    ports = [out[name][0] for name in ("AddPorts", "MulPorts", "FMAPorts") if name in out]
    if len(ports) == 3:
        fma = out["FMAPorts"][0]
        out["FPPorts"] = ((max(ports), "the largest of AddPorts, MulPorts, FMAPorts: the FMA "
                           "units also add and multiply", "MAX(AddPorts, MulPorts, FMAPorts)")
                          if fma else
                          (ports[0] + ports[1], "AddPorts + MulPorts: separate add and "
                           "multiply units, no FMA", "AddPorts + MulPorts"))
    for name in ("LoadBytes", "StoreBytes"):
        out[name] = (vector, f"full-width {name[:-5].lower()} ports (the machine file gives no "
                     "width)", "VectorBytes")
    if core.loads_per_cycle is not None and core.stores_per_cycle is not None:
        out["AGUsPerCycle"] = (core.loads_per_cycle + core.stores_per_cycle,
                               "LoadsPerCycle + StoresPerCycle: an address unit per port",
                               "LoadsPerCycle + StoresPerCycle")
    return out


def _link_bandwidth(outer: MemoryLevel | None, machine: Machine, clock: float,
                    line: float) -> tuple[float, str, float, str]:
    """(GB/s, source, cores sharing it, formula) of the link delivering data from ``outer``
    inwards; the formula over other parameters when the bandwidth derives from them."""
    if outer is None or outer.is_memory:
        shared = outer.shared_by_cores if outer is not None else machine.value("Cores")
        if outer is not None and outer.bandwidth_gbs is not None:
            return outer.bandwidth_gbs, outer.source or machine.source, shared, ""
        per_core = machine.value("GBsPerCore")
        return (per_core * shared, f"GBsPerCore {per_core:g} GB/s × {shared:g} cores "
                "(the machine file gives no memory bandwidth)", shared,
                f"GBsPerCore * {shared!r}")
    if outer.bandwidth_gbs is not None:
        return (outer.bandwidth_gbs / outer.shared_by_cores,
                f"{outer.bandwidth_gbs:g} GB/s / {outer.shared_by_cores:g} cores: "
                f"{outer.source}".rstrip(": "), 1.0, "")
    if outer.cycles_per_line:
        return (line * clock / outer.cycles_per_line,
                f"LineBytes per {outer.cycles_per_line:g} cycles × ClockGHz: "
                f"{outer.source}".rstrip(": "), 1.0,
                f"LineBytes * ClockGHz / {float(outer.cycles_per_line)!r}")
    return (ASSUMED_BYTES_PER_CYCLE * clock,
            f"assumed: {ASSUMED_BYTES_PER_CYCLE:g} B/cycle × ClockGHz ({machine.name} gives "
            f"no bandwidth for {outer.name})", 1.0, f"{ASSUMED_BYTES_PER_CYCLE!r} * ClockGHz")
