"""A machine as the model sees it: its parameters with their sources, its memory levels, its core.

:class:`Machine` is what every machine format's reader (:mod:`sat.machine.exasat_xml`,
:mod:`sat.machine.kerncraft_yaml`, :mod:`sat.machine.aspen`) returns, and
:data:`MACHINE_SPECS` the machine parameters every machine has, with the exascale node's
values as defaults.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field

from sat.machine.levels import CoreThroughput, HierarchyError, MemoryLevel, check_hierarchy
from sat.parameter import ParameterSpec


class MachineError(ValueError):
    """A machine file that cannot be used; the message is one line, ``path:line: …``."""



# Sheet order.  Defaults are the exascale node: the ExaSAT paper's Listing 1 (Cores,
# GflopsPerCore, GBsPerCore, CacheKB, DivCost, SpecialCost, NICGBs) completed with ExaSAT's own
# reference machine.xml (registers, line, word, scale factors, NIC latency); Overlap = 1 is the
# paper's T = max(T_cpu, T_dram) (section 3.3).  machines/exascale.xml states each source.
MACHINE_SPECS: tuple[ParameterSpec, ...] = (
    ParameterSpec("Cores", "cores", "Number of cores (threads) working on the problem in parallel.",
                  1000, "positive"),
    ParameterSpec("GflopsPerCore", "Gflop/s",
                  "Peak speed of one core, in billions of additions or multiplications per second.",
                  10, "positive"),
    ParameterSpec("GBsPerCore", "GB/s",
                  "Main-memory bandwidth per core: the machine's memory bandwidth divided by its "
                  "cores.", 1, "positive"),
    ParameterSpec("CacheKB", "KiB",
                  "On-chip memory (cache) that one core, or one group of cores working on the same "
                  "data, can keep data in.", 64, "positive"),
    ParameterSpec("LineBytes", "B",
                  "Size of a cache line, the smallest piece of memory the cache moves.",
                  64, "positive"),
    ParameterSpec("WordBytes", "B", "Size of one array element (8 for double precision); a "
                  "double-precision complex element is two words.",
                  8, "positive"),
    ParameterSpec("IntRegs", "registers", "Number of integer (general-purpose) registers per core.",
                  16, "count", "integer"),
    ParameterSpec("FPRegs", "registers",
                  "Number of floating-point (vector) registers per core.", 16, "count", "integer"),
    ParameterSpec("DivCost", "flop-equivalents",
                  "How many additions' worth of time one division takes.", 39, "nonnegative"),
    ParameterSpec("SpecialCost", "flop-equivalents",
                  "How many additions' worth of time one special function (exp, log, sqrt, …) "
                  "takes.", 125, "nonnegative"),
    ParameterSpec("ReadCost", "B/element",
                  "Bytes moved between memory and cache for an array element that is only read.",
                  8, "nonnegative"),
    ParameterSpec("ReadWriteCost", "B/element",
                  "Bytes moved between memory and cache for an array element that is read and then "
                  "written.", 16, "nonnegative"),
    ParameterSpec("WriteCost", "B/element",
                  "Bytes moved for an array element that is only written (its cache line is read "
                  "first, then written back).", 16, "nonnegative"),
    ParameterSpec("NICGBs", "GB/s", "Network bandwidth of one node (injection bandwidth).",
                  100, "positive"),
    ParameterSpec("NICLatencyUs", "µs",
                  "Time a message takes to cross the network, whatever its size.",
                  0.4, "nonnegative"),
    ParameterSpec("Overlap", "",
                  "1 if computation and memory transfers overlap (time = the larger of the two), "
                  "0 if their times add up.", 1, "flag", "integer"),
)
MACHINE_PARAMETERS = tuple(spec.name for spec in MACHINE_SPECS)


@dataclass
class MemoryBenchmark:
    """One measured memory-bandwidth kernel of a machine file (Kerncraft's ``load``, ``copy``,
    ``triad``, …): the streams it reads and writes over the memory bus and the bandwidth one
    memory domain's cores reached with it, in bytes that crossed the memory bus."""

    name: str
    # streams read over the memory bus: arrays read, plus the write-allocate read of each
    # array only written (Kerncraft's read + write - read+write streams)
    read_streams: float
    write_streams: float
    bandwidth_gbs: float
    source: str


@dataclass
class LevelBenchmark:
    """One benchmark kernel measured with its data in one level past L1 (Kerncraft's
    ``measurements: L2``, …, ``MEM``): the bandwidth of the link into that level from the one
    inside it, per count of cores, in bytes that crossed the link (the measured figure times
    the kernel's write-allocate factor)."""

    level: str  # "L2", "L3", …, or "MEM": the outer end of the link
    kernel: str
    bandwidths: list[tuple[int, float]]  # (cores, GB/s), by cores
    source: str


@dataclass
class Machine:
    """A machine description: every machine parameter with its value and where it came from."""

    name: str
    description: str
    source: str  # the file it was read from, as shown to users
    values: dict[str, tuple[float, str]]  # parameter name -> (value, provenance)
    memory_levels: list[MemoryLevel] = field(default_factory=list)  # from the core outwards
    notes: list[str] = field(default_factory=list)  # defaults taken, keys ignored
    core: CoreThroughput = field(default_factory=CoreThroughput)  # in-core throughput (ECM)
    # cost parameters the file gives (sat.parameters.costs): name -> (value, provenance)
    costs: dict[str, tuple[float, str]] = field(default_factory=dict)
    # measured memory bandwidth by stream mix (ECM's memory link picks one per nest)
    memory_benchmarks: list[MemoryBenchmark] = field(default_factory=list)
    # measured bandwidth by level, kernel and cores (the Roofline's links pick one per nest)
    level_benchmarks: list[LevelBenchmark] = field(default_factory=list)

    def value(self, name: str) -> float:
        return self.values[name][0]

    @property
    def cache_levels(self) -> list[MemoryLevel]:
        """The cache levels, innermost first (empty when the file lists no levels)."""
        return [level for level in self.memory_levels if not level.is_memory]

    @property
    def memory_level(self) -> MemoryLevel | None:
        return next((level for level in self.memory_levels if level.is_memory), None)

    def link_out(self, name: str) -> MemoryLevel | None:
        """The level describing the link from level ``name`` to the next level out.

        A level describes the link over which it delivers data inwards, so the L1–L2 link
        (DESIGN's ``L1GBs``) is described by L2, the last cache's link by memory.  ``None``
        when nothing lies further out.
        """
        names = [level.name for level in self.memory_levels]
        index = names.index(name)
        return self.memory_levels[index + 1] if index + 1 < len(names) else None



def parse_number(text: str | None) -> float | None:
    """A finite number in any float syntax (Fortran ``1.0d3`` too), else ``None``."""
    if text is None:
        return None
    cleaned = text.strip()
    if re.fullmatch(r"[+-]?(\d+\.?\d*|\.\d+)[dD][+-]?\d+", cleaned):
        cleaned = cleaned.replace("d", "e").replace("D", "e")
    try:
        value = float(cleaned)
    except ValueError:
        return None
    return value if math.isfinite(value) else None


def checked_hierarchy(levels: list[MemoryLevel], display: str) -> list[MemoryLevel]:
    """:func:`check_hierarchy` with its errors as ``display:line: …`` machine errors."""
    try:
        check_hierarchy(levels)
    except HierarchyError as exc:
        raise MachineError(f"{display}:{exc.line}: {exc}") from None
    return levels
