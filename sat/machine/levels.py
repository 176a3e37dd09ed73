"""The memory hierarchy and in-core throughput of a machine, as typed data.

Every machine file format (satreport's XML, Kerncraft's YAML) ends up here: a list of
:class:`MemoryLevel` from the core outwards and one :class:`CoreThroughput`, checked by
:func:`check_hierarchy`.  The single-level model reads none of this (it uses ``CacheKB`` and
``GBsPerCore``); per-level analyses (layer conditions per cache, ECM, multicore scaling) do.

Level names, from the core outwards: ``L1``, ``L2``, ``L3``, … without gaps, or ExaSAT's single
``on-chip`` cache, then at most one ``memory`` level (``MEM`` is read as ``memory``).

Each level describes its own capacity and **the link over which it delivers data to the level
inside it** (for L1: the core's load/store ports; for memory: the memory bus to the last
cache).  This is the convention of the existing ``bandwidth_gbs`` attribute ("towards the
cores") and of Kerncraft's ``upstream throughput``, which sits on the level data is read from;
vendor manuals list bandwidths the same way (an "L2 bandwidth" is what L2 returns to L1).  So
the boundary between L1 and L2 is described by L2, and DESIGN's ``L1GBs`` ("the link to the
next level out") is ``L2``'s link: :meth:`Machine.link_out` in :mod:`sat.machine` gives it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Literal

Policy = Literal["inclusive", "exclusive", "victim"]
Duplex = Literal["half", "full"]

POLICIES: tuple[str, ...] = ("inclusive", "exclusive", "victim")
DUPLEXES: tuple[str, ...] = ("half", "full")
MEMORY = "memory"
ON_CHIP = "on-chip"  # ExaSAT's one cache (CacheKB): a hierarchy of one cache level
_CACHE_NAME = re.compile(r"[Ll]([1-9][0-9]?)")


@dataclass
class MemoryLevel:
    """One level of the memory hierarchy, from the core outwards.

    Capacities and bandwidths are per *instance* of the level; ``shared_by_cores`` cores share
    an instance.  The link fields describe the link over which this level delivers data to the
    level inside it (see the module docstring).  ``None`` means the file does not say.
    """

    name: str  # "L1", "L2", …, "on-chip" or "memory"
    size_kib: float | None  # capacity of one instance, KiB (2¹⁰ B)
    line_bytes: float | None  # None only while a file is read: then the machine's LineBytes
    shared_by_cores: float
    bandwidth_gbs: float | None  # peak bandwidth of one instance towards the cores, 10⁹ B/s
    source: str = ""
    cycles_per_line: float | None = None  # core cycles to move one line over the link, per core
    duplex: Duplex | None = None  # half: reads and write-backs share the link's cycles
    transfers_overlap: bool | None = None  # ECM: this link's transfers overlap other time
    policy: Policy | None = None  # relation to the level inside it
    write_allocate: bool | None = None  # a write miss first reads the line
    write_back: bool | None = None  # modified lines are written back on eviction
    ways: int | None = None  # associativity
    sets: int | None = None  # size / (line × ways), filled in when ways or sets is given
    file_line: int = field(default=0, compare=False, repr=False)  # where the file says it

    @property
    def is_memory(self) -> bool:
        return self.name == MEMORY

    @property
    def size_per_core_kib(self) -> float | None:
        """Capacity one core can count on when every core of the instance works (KiB)."""
        if self.size_kib is None:
            return None
        return self.size_kib / self.shared_by_cores


# In-core throughput, given in a machine file as <prop key=… val=… source=…/>, kept apart from
# the model parameters (no Parameters-sheet row until a model uses them).
# key -> (field, unit, may be zero)
CORE_KEYS: dict[str, tuple[str, str, bool]] = {
    "ClockGHz": ("clock_ghz", "GHz", False),
    "FlopsPerCycle": ("flops_per_cycle", "flop/cycle", False),
    "AddFlopsPerCycle": ("add_flops_per_cycle", "flop/cycle", True),
    "MulFlopsPerCycle": ("mul_flops_per_cycle", "flop/cycle", True),
    "FMAFlopsPerCycle": ("fma_flops_per_cycle", "flop/cycle", True),
    "LoadsPerCycle": ("loads_per_cycle", "loads/cycle", False),
    "StoresPerCycle": ("stores_per_cycle", "stores/cycle", False),
    "VectorBytes": ("vector_bytes", "B", False),
    # the port model of the ECM model's in-core part (sat.model.hierarchy.incore)
    "AddPorts": ("add_ports", "instructions/cycle", False),
    "MulPorts": ("mul_ports", "instructions/cycle", False),
    "FMAPorts": ("fma_ports", "instructions/cycle", True),
    "FPPorts": ("fp_ports", "instructions/cycle", False),
    "DivCycles": ("div_cycles", "cycles", False),
    "LoadBytes": ("load_bytes", "B", False),
    "StoreBytes": ("store_bytes", "B", False),
    "AGUsPerCycle": ("agus_per_cycle", "addresses/cycle", False),
    "StoresOverlap": ("stores_overlap", "", True),
    "AGUsOverlap": ("agus_overlap", "", True),
    # integer work and the latency of a reduction's chain (same module)
    "IntPorts": ("int_ports", "instructions/cycle", False),
    "SharedIntPorts": ("shared_int_ports", "ports", True),
    "LoopOverheadOps": ("loop_overhead_ops", "instructions/iteration", True),
    "LoadAddressOps": ("load_address_ops", "instructions/load", True),
    "AddLatency": ("add_latency", "cycles", False),
    "Accumulators": ("accumulators", "partial sums", False),
    "FastMath": ("fast_math", "", True),
    # what the ECM prediction adds or overlaps (sat.model.hierarchy.ecm, .penalty)
    "LoadsOverlap": ("loads_overlap", "", True),
    "MemLoadPenaltyCycles": ("mem_load_penalty", "cycles/line", True),
    "MemStorePenaltyCycles": ("mem_store_penalty", "cycles/line", True),
}
# In-core keys that are TRUE/FALSE (0/1 in a machine file)
CORE_FLAGS = ("StoresOverlap", "AGUsOverlap", "FastMath", "LoadsOverlap")


@dataclass
class CoreThroughput:
    """What one core can do per cycle, for the ECM model's in-core part (double precision).

    ``flops_per_cycle`` is the peak (all pipes busy with the best instruction mix);
    ``add_``/``mul_``/``fma_flops_per_cycle`` the flops per cycle of code made only of
    additions, multiplications or fused multiply-adds (an FMA counts 2 flops).  Loads and
    stores issue ``loads_per_cycle`` and ``stores_per_cycle`` per cycle, each moving up to
    ``load_bytes`` / ``store_bytes`` (a wider access takes several cycles of a port; a file
    that gives no width has full-width ports of ``vector_bytes``).  The ``*_ports``,
    ``div_cycles``, ``agus_per_cycle``, the overlap flags, the integer ports and instructions
    and ``add_latency`` are the port model of :mod:`sat.machine.microarchitectures`;
    ``accumulators`` and ``fast_math`` say how the compiler builds a reduction;
    ``loads_overlap`` and the memory penalties what the ECM prediction adds.  ``sources``
    maps a field name to where its number comes from.
    """

    clock_ghz: float | None = None
    flops_per_cycle: float | None = None
    add_flops_per_cycle: float | None = None
    mul_flops_per_cycle: float | None = None
    fma_flops_per_cycle: float | None = None
    loads_per_cycle: float | None = None
    stores_per_cycle: float | None = None
    vector_bytes: float | None = None
    add_ports: float | None = None
    mul_ports: float | None = None
    fma_ports: float | None = None
    fp_ports: float | None = None
    div_cycles: float | None = None
    load_bytes: float | None = None
    store_bytes: float | None = None
    agus_per_cycle: float | None = None
    stores_overlap: float | None = None
    agus_overlap: float | None = None
    int_ports: float | None = None
    shared_int_ports: float | None = None
    loop_overhead_ops: float | None = None
    load_address_ops: float | None = None
    add_latency: float | None = None
    accumulators: float | None = None
    fast_math: float | None = None
    loads_overlap: float | None = None
    mem_load_penalty: float | None = None
    mem_store_penalty: float | None = None
    microarchitecture: str = ""  # the name a file gives (Kerncraft's in-core model), if any
    sources: dict[str, str] = field(default_factory=dict)


class HierarchyError(ValueError):
    """A hierarchy that cannot be used: ``line`` in the file and a message naming the field."""

    def __init__(self, line: int, message: str) -> None:
        super().__init__(message)
        self.line = line


def level_name(raw: str) -> str | None:
    """The canonical name of a level (``l2`` → ``L2``, ``MEM`` → ``memory``), else ``None``."""
    text = raw.strip()
    found = _CACHE_NAME.fullmatch(text)
    if found:
        return f"L{found.group(1)}"
    if text.lower() in (MEMORY, "mem"):
        return MEMORY
    if text.lower() == ON_CHIP:
        return ON_CHIP
    return None


EXPECTED_NAMES = "L1, L2, L3, … (or on-chip), then memory"


def check_hierarchy(levels: list[MemoryLevel]) -> None:
    """Raise :class:`HierarchyError` for the first thing wrong; fill in ``sets``/``ways``.

    Every ``line_bytes`` must be known (the caller fills in the machine's LineBytes first).
    """
    caches = [level for level in levels if not level.is_memory]
    for index, level in enumerate(levels):
        where = f"level {level.name}"
        if level.is_memory:
            if index != len(levels) - 1:
                raise HierarchyError(level.file_line, f"{where}: out of order: the memory level "
                                     f"comes last (levels go from the core outwards: "
                                     f"{EXPECTED_NAMES})")
            for attribute in ("policy", "write_allocate", "write_back", "ways", "sets"):
                if getattr(level, attribute) is not None:
                    raise HierarchyError(level.file_line, f"{where}: {attribute}: expected on a "
                                         "cache level only, not on memory")
            continue
        expected = _expected_cache_name(caches, index)
        if level.name != expected:
            raise HierarchyError(level.file_line, f"{where}: out of order: expected {expected} "
                                 f"here (levels go from the core outwards: {EXPECTED_NAMES})")
        if level.size_kib is None:
            raise HierarchyError(level.file_line, f"{where}: size_kib: expected the capacity "
                                 "of the cache in KiB")
        if index > 0 and level.size_kib < levels[index - 1].size_kib:
            inner = levels[index - 1]
            raise HierarchyError(level.file_line, f"{where}: size_kib: {level.size_kib:g} KiB is "
                                 f"smaller than {inner.name}'s {inner.size_kib:g} KiB: expected "
                                 "a level at least as large as the one inside it")
        if index == 0 and level.policy in ("exclusive", "victim"):
            raise HierarchyError(level.file_line, f"{where}: policy: {level.policy} describes a "
                                 "level relative to the one inside it, and the first level has "
                                 "none: expected inclusive or nothing")
        _check_geometry(level, where)


def _expected_cache_name(caches: list[MemoryLevel], index: int) -> str:
    if caches and caches[0].name == ON_CHIP:
        return ON_CHIP if index == 0 else "memory (on-chip is the only cache when it is used)"
    return f"L{index + 1}"


def _check_geometry(level: MemoryLevel, where: str) -> None:
    """Sets × ways × line = size, in whole numbers; the missing one of sets/ways is derived."""
    if level.ways is None and level.sets is None:
        return
    assert level.size_kib is not None and level.line_bytes is not None
    lines = level.size_kib * 1024 / level.line_bytes
    if level.ways is not None and level.sets is not None:
        if level.ways * level.sets != lines:
            raise HierarchyError(level.file_line, f"{where}: sets: {level.sets} sets × "
                                 f"{level.ways} ways × {level.line_bytes:g} B is not "
                                 f"size_kib {level.size_kib:g} KiB: expected sets × ways × "
                                 "line_bytes = size_kib × 1024")
        return
    known, other = ("ways", "sets") if level.ways is not None else ("sets", "ways")
    count = lines / getattr(level, known)
    if count < 1 or not float(count).is_integer():
        raise HierarchyError(level.file_line, f"{where}: {known}: {level.size_kib:g} KiB / "
                             f"({level.line_bytes:g} B × {getattr(level, known)} {known}) is not "
                             f"a whole number of {other}: expected {known} dividing the "
                             f"{lines:g} lines of the cache")
    setattr(level, other, int(count))


def on_chip_kib_per_core(levels: list[MemoryLevel]) -> float | None:
    """ExaSAT's ``CacheKB`` from a hierarchy: the on-chip memory one core can count on (KiB).

    The last cache level's share per core, plus the shares of the levels inside it for as
    long as the outer level is a victim or exclusive cache (their contents do not repeat each
    other, so capacities add); an inclusive level, or one whose policy is not given, repeats
    what is inside it and adds nothing.  ``None`` without a cache level.
    """
    caches = [level for level in levels if not level.is_memory and level.size_kib is not None]
    if not caches:
        return None
    index = len(caches) - 1
    total = caches[index].size_per_core_kib or 0.0
    while index > 0 and caches[index].policy in ("victim", "exclusive"):
        index -= 1
        total += caches[index].size_per_core_kib or 0.0
    return total
