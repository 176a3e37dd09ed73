"""The parameters of a machine's memory hierarchy and core for the per-level model and ECM.

A machine with two or more cache levels gets, besides ExaSAT's parameters (``CacheKB`` and
``GBsPerCore`` keep their meaning), one capacity and one bandwidth per cache level and the
core's clock and load/store throughput:

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
- ``ClockGHz``, ``LoadsPerCycle``, ``StoresPerCycle``, ``VectorBytes`` — the core, for ECM's
  in-core part.  The peak flops per cycle is ``GflopsPerCore / ClockGHz``.

Values the machine file does not give are documented assumptions, said in their source.
ExaSAT's machines (one ``on-chip`` cache) get none of these: their model is ExaSAT's.
"""

from __future__ import annotations

import re

from sat.machine import Machine
from sat.machine.levels import CORE_KEYS, MemoryLevel
from sat.parameter import LevelSpec, Parameter, ParameterSet, ParameterSpec

# Assumed when a machine with several cache levels does not say (a common server core); the
# field and unit of each are the machine files' (CORE_KEYS).
ASSUMED_CORE = {
    "ClockGHz": (2.0, "Core clock: ECM times are in its cycles."),
    "LoadsPerCycle": (2.0, "Full-width vector loads the core issues per cycle."),
    "StoresPerCycle": (1.0, "Full-width vector stores the core issues per cycle."),
    "VectorBytes": (32.0, "Width of one vector load or store (32 for AVX, 64 for AVX-512)."),
}
# Bytes per cycle of a link between caches when the file gives neither bandwidth nor cycles.
ASSUMED_BYTES_PER_CYCLE = 32.0


_LEVEL_NAME = re.compile(r"L[1-9][0-9]?(KB|GBs|SharedBy)")
_LEVEL_UNITS = {"KB": "KiB", "GBs": "GB/s", "SharedBy": "cores"}


def level_spec(name: str) -> ParameterSpec | None:
    """The rule a level or core parameter's value must follow (all are positive numbers)."""
    if name in ASSUMED_CORE:
        default, label = ASSUMED_CORE[name]
        return ParameterSpec(name, CORE_KEYS[name][1], label, default, "positive")
    found = _LEVEL_NAME.fullmatch(name)
    if found:
        return ParameterSpec(name, _LEVEL_UNITS[found.group(1)], "", 1, "positive")
    return None


def add_level_parameters(paramset: ParameterSet, machine: Machine) -> None:
    """Add the level and core parameters of ``machine`` (two or more cache levels) to
    ``paramset`` and record the levels the model reads."""
    caches = machine.cache_levels
    if len(caches) < 2 or any(level.size_kib is None for level in caches):
        return
    core = machine.core
    for name, (default, label) in ASSUMED_CORE.items():
        attribute, unit, _ = CORE_KEYS[name]
        value = getattr(core, attribute)
        source = core.sources.get(attribute, machine.source)
        if value is None:
            value, source = default, f"assumed: {machine.name} does not give it"
        paramset.add(Parameter(name, value, unit, "machine", label, source))
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
        value, source, shared = _link_bandwidth(outer, machine, clock, line)
        paramset.add(Parameter(bandwidth, value, "GB/s", "machine",
                               f"Bandwidth of the {link_name} link"
                               + (" (one memory interface, shared by its cores)."
                                  if outer is None or outer.is_memory else " per core."),
                               source))
        paramset.levels.append(LevelSpec(
            level.name, capacity, bandwidth, link_name, shared,
            adds_inner=index > 0 and level.policy in ("exclusive", "victim"),
            overlaps=bool(outer is not None and outer.transfers_overlap),
            ways=level.ways, sets=level.sets, shared_by=shared_by))


def _link_bandwidth(outer: MemoryLevel | None, machine: Machine, clock: float,
                    line: float) -> tuple[float, str, float]:
    """(GB/s, source, cores sharing it) of the link delivering data from ``outer`` inwards."""
    if outer is None or outer.is_memory:
        shared = outer.shared_by_cores if outer is not None else machine.value("Cores")
        if outer is not None and outer.bandwidth_gbs is not None:
            return outer.bandwidth_gbs, outer.source or machine.source, shared
        per_core = machine.value("GBsPerCore")
        return (per_core * shared, f"GBsPerCore {per_core:g} GB/s × {shared:g} cores "
                "(the machine file gives no memory bandwidth)", shared)
    if outer.bandwidth_gbs is not None:
        return (outer.bandwidth_gbs / outer.shared_by_cores,
                f"{outer.bandwidth_gbs:g} GB/s / {outer.shared_by_cores:g} cores: "
                f"{outer.source}".rstrip(": "), 1.0)
    if outer.cycles_per_line:
        return (line * clock / outer.cycles_per_line,
                f"{line:g} B per {outer.cycles_per_line:g} cycles × {clock:g} GHz: "
                f"{outer.source}".rstrip(": "), 1.0)
    return (ASSUMED_BYTES_PER_CYCLE * clock,
            f"assumed: {ASSUMED_BYTES_PER_CYCLE:g} B/cycle × {clock:g} GHz ({machine.name} gives "
            f"no bandwidth for {outer.name})", 1.0)
