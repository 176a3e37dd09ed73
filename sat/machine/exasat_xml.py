"""Machine files: load, validate, list the built-ins in ``machines/``.

Two XML formats are read, both ``<machine>`` documents made of ``<prop key=… val=…/>``,
Kerncraft's YAML format and Aspen's machine models:

* **ExaSAT's** ``machine.xml``, read as is::

      <machine>
        <prop key="core_n" desc="Cores" val="1024"/>
        <prop key="ld_sf" desc="Load Scale Factor" val="1"/>
        …
      </machine>

  ``core_n`` → ``Cores``, ``core_gflops`` → ``GflopsPerCore``, ``core_gbs`` → ``GBsPerCore``,
  ``core_int_reg_n`` / ``core_fp_reg_n`` → ``IntRegs`` / ``FPRegs``, ``cache_kbytes`` →
  ``CacheKB``, ``double_byte_n`` → ``WordBytes``, ``line_byte_n`` → ``LineBytes``, ``div_sf`` /
  ``spc_sf`` → ``DivCost`` / ``SpecialCost``, ``nic_bw_gbs`` / ``nic_lat_us`` → ``NICGBs`` /
  ``NICLatencyUs``.  The scale factors ``ld_sf``, ``ls_sf``, ``st_sf`` count words moved per
  element read, read-and-written, written, so ``ReadCost = ld_sf × WordBytes``,
  ``ReadWriteCost = ls_sf × WordBytes``, ``WriteCost = st_sf × WordBytes``.
  ``bool/int/long/float_byte_n`` are recognised and ignored (the model moves one word size).
  The keys of the ExaSAT paper's Listing 1 (``Cores``, ``Gflop/s/core``, ``GB/s/core``,
  ``Cache/core (kB)``, ``Division Cost``, ``Transcendental Cost``, ``NIC BW (GB/s)``) and the row
  labels of ExaSAT's Parameters sheet (``Threads``, ``R cost``, ``CPU/DRAM Overlap``, …) are
  accepted too, as are satreport's parameter names (``CacheKB``), all case-insensitively.

* **satreport's own** format, a superset: the root carries a ``name`` and a ``description``,
  each ``prop`` may say where its number comes from, and a ``<memory>`` element lists the
  memory levels from the core outwards::

      <machine name="xeon-e5-2680" description="Intel Xeon E5-2680 (Sandy Bridge-EP)">
        <prop key="Cores" val="8" source="Intel ARK: 8 cores"/>
        …
        <memory>
          <level name="L1" size_kib="32" line_bytes="64" shared_by_cores="1"
                 bandwidth_gbs="86.4" source="…"/>
          <level name="memory" shared_by_cores="8" bandwidth_gbs="51.2" source="…"/>
        </memory>
      </machine>

  Attributes of a ``<level>`` (all but ``name`` optional; :mod:`sat.machine.levels` has the
  typed form and the rules):

  - ``name``: ``L1``, ``L2``, ``L3``, … in order, or ExaSAT's single ``on-chip`` cache; then
    ``memory`` (or ``MEM``), last;
  - ``size_kib``: capacity of one instance, KiB; required on a cache level;
  - ``line_bytes``: line size, B (default: the machine's ``LineBytes``);
  - ``shared_by_cores``: cores sharing one instance (default 1);
  - ``bandwidth_gbs``: peak bandwidth of one instance towards the cores, GB/s (10⁹ B/s);
  - ``cycles_per_line``: core cycles one core needs to move one line over the same link;
  - ``duplex``: ``half`` (reads and write-backs share the link) or ``full``;
  - ``transfers_overlap``: ``true``/``false``, the ECM overlap hypothesis for this link;
  - ``policy``: ``inclusive``, ``exclusive`` or ``victim``, relative to the level inside it;
  - ``write_allocate``: ``true``/``false``, a write miss first reads the line;
  - ``write_back``: ``true``/``false``, modified lines are written back on eviction;
  - ``ways``, ``sets``: associativity and sets, sets × ways × line_bytes = size_kib × 1024;
  - ``source``: where the numbers come from.

  A level's link fields (``bandwidth_gbs``, ``cycles_per_line``, ``duplex``,
  ``transfers_overlap``) describe the link over which it delivers data to the level inside it:
  L2's describe the L1–L2 link, memory's the memory bus; L1's are the core's load/store ports.
  Levels must be in order, a level may not be smaller than the one inside it, and sizes,
  bandwidths and counts must be positive numbers; anything else stops the run with
  ``path:line: level …: field: what was expected``.

  In-core throughput, for the ECM model, is given as ``<prop>`` elements too, each with its
  source: ``ClockGHz``, ``FlopsPerCycle`` (double precision, peak), ``AddFlopsPerCycle``,
  ``MulFlopsPerCycle``, ``FMAFlopsPerCycle`` (flops per cycle of code made only of that
  operation), ``LoadsPerCycle``, ``StoresPerCycle`` (full-width vector accesses per cycle) and
  ``VectorBytes``.  They go to :attr:`Machine.core`, not to the model parameters.

  Costs, as ``<prop>`` elements too: ``Nodes``, ``RackUnitsPerNode``, ``TDPW``,
  ``StaticPowerW``, ``FlopEnergyPJ``, ``MemByteEnergyPJ``, ``L1ByteEnergyPJ``, …,
  ``ProcessorPriceUSD``, ``MemoryGiB``, ``MemoryPriceUSDPerGiB``, ``CoreAreaMM2``,
  ``CacheAreaMM2PerMiB`` (:mod:`sat.cost_parameters`).  They go to :attr:`Machine.costs`; the
  ones a file leaves out are assumed when the parameters are built, without a note (their
  source says so).

* **Kerncraft's** YAML machine files (``*.yml``, ``*.yaml``), read as they are:
  :mod:`sat.machine.kerncraft_yaml` documents the mapping.

* **Aspen's** abstract machine models (``*.aspen``), one socket type of them (``socket``
  argument of :func:`load_machine`, ``--socket``; default: the machine's first):
  :mod:`sat.machine.aspen` documents the mapping.

A key the file does not give takes the default of the exascale node (the ``DEFAULT`` column of
:data:`MACHINE_SPECS`) and the machine records a note saying so.  Every value remembers where it
came from: ``"machine file <path>"`` plus the ``source`` attribute, or ``"default"``.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from pathlib import Path

from lxml import etree

from sat.machine.levels import (
    CORE_KEYS,
    DUPLEXES,
    EXPECTED_NAMES,
    POLICIES,
    CoreThroughput,
    HierarchyError,
    MemoryLevel,
    check_hierarchy,
    level_name,
)
from sat.parameter import ParameterSpec, check_value
from sat.resources import machines_dir
from sat.safexml import parse_xml

DEFAULT_MACHINE = "exascale"

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
_SPECS = {spec.name: spec for spec in MACHINE_SPECS}

# ExaSAT machine.xml keys -> satreport names.
_EXASAT_KEYS = {
    "core_n": "Cores", "core_gflops": "GflopsPerCore", "core_gbs": "GBsPerCore",
    "core_int_reg_n": "IntRegs", "core_fp_reg_n": "FPRegs", "cache_kbytes": "CacheKB",
    "double_byte_n": "WordBytes", "line_byte_n": "LineBytes", "div_sf": "DivCost",
    "spc_sf": "SpecialCost", "nic_bw_gbs": "NICGBs", "nic_lat_us": "NICLatencyUs",
}
# Scale factors: words moved per element; the cost is factor × WordBytes.
_SCALE_FACTORS = {"ld_sf": "ReadCost", "ls_sf": "ReadWriteCost", "st_sf": "WriteCost"}
_IGNORED_KEYS = {"bool_byte_n", "int_byte_n", "long_byte_n", "float_byte_n"}
# The paper's Listing 1 keys and the row labels of ExaSAT's Parameters sheet (lower case).
_LABEL_KEYS = {
    "cores": "Cores", "threads": "Cores",
    "gflop/s/core": "GflopsPerCore", "gflop/s/thread": "GflopsPerCore",
    "gb/s/core": "GBsPerCore", "gb/s/thread": "GBsPerCore",
    "cache/core (kb)": "CacheKB", "$/thread group (kb)": "CacheKB",
    "int regs/core": "IntRegs", "int regs/thread": "IntRegs",
    "fp regs/core": "FPRegs", "fp regs/thread": "FPRegs",
    "word size": "WordBytes", "cache line size": "LineBytes",
    "division cost": "DivCost", "transcendental cost": "SpecialCost", "special cost": "SpecialCost",
    "r cost": "ReadCost", "rw cost": "ReadWriteCost", "w cost": "WriteCost",
    "nic bw (gb/s)": "NICGBs", "nic latency (us)": "NICLatencyUs", "cpu/dram overlap": "Overlap",
}
_NAME_KEYS = {name.lower(): name for name in MACHINE_PARAMETERS}


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
    # cost parameters the file gives (sat.cost_parameters): name -> (value, provenance)
    costs: dict[str, tuple[float, str]] = field(default_factory=dict)

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


# ------------------------------------------------------------------ safe XML

def read_xml(path: Path, display: str, error: type[Exception]) -> etree._Element:
    """Parse an XML file safely (no DTD, entities or network); errors as ``display:line: …``."""
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise error(f"{display}: cannot read file: {exc.strerror or exc}") from None
    return parse_xml(data, display, error)


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


# ------------------------------------------------------------------ loading


# .yml and .yaml: Kerncraft's format; .aspen: an Aspen abstract machine model
MACHINE_SUFFIXES = (".xml", ".yml", ".yaml", ".aspen")
_YAML_SUFFIXES = (".yml", ".yaml")
ASPEN_SUFFIX = ".aspen"


def builtin_path(name: str) -> Path:
    """The built-in machine file called ``name`` (``machines/<name>.xml`` if none exists)."""
    for suffix in MACHINE_SUFFIXES:
        path = machines_dir() / f"{name}{suffix}"
        if path.is_file():
            return path
    return machines_dir() / f"{name}.xml"


def _display(path: Path) -> str:
    """Built-ins are shown as ``machines/<name>.xml``, other files as given."""
    try:
        return str(Path("machines") / path.resolve().relative_to(machines_dir().resolve()))
    except ValueError:
        return str(path)


def load_machine(name_or_path: str | None, socket: str | None = None) -> Machine:
    """A built-in machine by name (``None``: the exascale node) or a machine file by path.

    ``socket`` chooses the socket type of an Aspen machine model (default: its first); it is
    an error with any other kind of machine.
    """
    if name_or_path is None:
        name_or_path = DEFAULT_MACHINE
    text = str(name_or_path)
    looks_like_path = text.lower().endswith(MACHINE_SUFFIXES) or "/" in text or "\\" in text
    if not looks_like_path and builtin_path(text).is_file():
        path = builtin_path(text)
    else:
        path = Path(text)
        if not path.is_file():
            names = ", ".join(name for name, _ in list_machines())
            raise MachineError(f"{text}: no such machine file or built-in machine "
                               f"(built-ins: {names})")
    display = _display(path)
    if socket is not None and path.suffix.lower() != ASPEN_SUFFIX:
        raise MachineError(f"{display}: socket {socket!r}: only an Aspen machine model "
                           f"({ASPEN_SUFFIX}) has socket types to choose from")
    return _load_file(path, display, socket)


def _load_file(path: Path, display: str, socket: str | None = None) -> Machine:
    if path.suffix.lower() == ASPEN_SUFFIX:
        # Imported here: the Aspen reader (and its grammar) only when a model is read.
        from sat.machine.aspen import load_aspen_machine

        return load_aspen_machine(path, display, socket)
    if path.suffix.lower() in _YAML_SUFFIXES:
        # Imported here: PyYAML is only loaded when a YAML file is read (start-up time).
        from sat.machine.kerncraft_yaml import load_kerncraft

        return load_kerncraft(path, display)
    return _load(path, display)


def list_machines() -> list[tuple[str, str]]:
    """(name, description) of every built-in machine, for ``--list-machines``."""
    result = []
    paths = [p for p in machines_dir().iterdir() if p.suffix.lower() in MACHINE_SUFFIXES]
    for path in sorted(paths):
        try:
            machine = _load_file(path, _display(path))
        except MachineError as exc:
            result.append((path.stem, f"(unusable: {exc})"))
            continue
        result.append((path.stem, machine.description))
    return result


def _key_name(key: str) -> str | None:
    lowered = " ".join(key.split()).lower()
    return _EXASAT_KEYS.get(lowered) or _NAME_KEYS.get(lowered) or _LABEL_KEYS.get(lowered)


def _load(path: Path, display: str) -> Machine:
    # imported here: sat.cost_parameters builds on this module
    from sat.cost_parameters import cost_name, cost_spec

    root = read_xml(path, display, MachineError)
    if root.tag != "machine":
        raise MachineError(f"{display}:{root.sourceline}: expected a <machine> root element, "
                           f"found <{root.tag}>")
    given: dict[str, tuple[float, str, int]] = {}  # name -> (value, provenance, line)
    factors: dict[str, tuple[float, str, int]] = {}
    notes: list[str] = []
    levels: list[MemoryLevel] = []
    core = CoreThroughput()
    core_lines: dict[str, int] = {}  # core field -> line, to name a key given twice
    costs: dict[str, tuple[float, str, int]] = {}  # cost parameter -> (value, prov, line)
    origin = f"machine file {display}"

    for element in root:
        line = element.sourceline or 0
        if element.tag == "memory":
            levels.extend(_levels(element, display))
            continue
        if element.tag != "prop":
            raise MachineError(f"{display}:{line}: unexpected <{element.tag}>: a machine file "
                               "holds <prop key=… val=…/> and <memory> elements")
        key = (element.get("key") or "").strip()
        if not key:
            raise MachineError(f"{display}:{line}: <prop> without a key")
        raw = element.get("val")
        if raw is None or not raw.strip():
            raise MachineError(f"{display}:{line}: {key}: no value (val attribute)")
        value = parse_number(raw)
        if value is None:
            raise MachineError(f"{display}:{line}: {key}: {raw.strip()!r} is not a number")
        cited = (element.get("source") or "").strip()
        prov = f"{origin} ({cited})" if cited else origin
        lowered = key.lower()
        if lowered in _IGNORED_KEYS:
            if value <= 0:
                raise MachineError(f"{display}:{line}: {key} must be positive, got {value:g}")
            continue
        if lowered in _SCALE_FACTORS:
            if value < 0:
                raise MachineError(f"{display}:{line}: {key} must not be negative, "
                                   f"got {value:g}")
            target = _SCALE_FACTORS[lowered]
            if target in given or target in factors:
                other = (given.get(target) or factors[target])[2]
                raise MachineError(f"{display}:{line}: {key}: {target} is given twice "
                                   f"(also line {other})")
            factors[target] = (value, prov, line)
            continue
        if lowered in _CORE_KEYS:
            _set_core(core, core_lines, _CORE_KEYS[lowered], value, prov, display, line)
            continue
        cost = cost_name(key)
        if cost is not None:
            if cost in costs:
                raise MachineError(f"{display}:{line}: {key}: {cost} is given twice "
                                   f"(also line {costs[cost][2]})")
            problem = check_value(cost_spec(cost), value)  # type: ignore[arg-type]
            if problem:
                raise MachineError(f"{display}:{line}: {key} ({cost}) {problem}, got {value:g}")
            costs[cost] = (value, prov, line)
            continue
        name = _key_name(key)
        if name is None:
            notes.append(f"{display}:{line}: unknown machine key {key!r} ignored")
            continue
        if name in given or name in factors:
            other = (given.get(name) or factors[name])[2]
            raise MachineError(f"{display}:{line}: {key}: {name} is given twice "
                               f"(also line {other})")
        problem = check_value(_SPECS[name], value)
        if problem:
            raise MachineError(f"{display}:{line}: {key} ({name}) {problem}, got {value:g}")
        given[name] = (value, prov, line)

    values: dict[str, tuple[float, str]] = {}
    for spec in MACHINE_SPECS:
        if spec.name in given:
            value, prov, _ = given[spec.name]
            values[spec.name] = (value, prov)
    word = values.get("WordBytes", (_SPECS["WordBytes"].default, "default"))[0]
    for name, (factor, prov, _line) in factors.items():
        key = next(k for k, v in _SCALE_FACTORS.items() if v == name)
        values[name] = (factor * word, f"{prov}: {key} {factor:g} × word {word:g} B")
    for spec in MACHINE_SPECS:  # sheet order, defaults for what the file leaves out
        if spec.name not in values:
            values[spec.name] = (spec.default, "default")
            notes.append(f"{display}: no {spec.name} given: assumed {spec.default:g} "
                         f"{spec.unit}".rstrip())
    ordered = {spec.name: values[spec.name] for spec in MACHINE_SPECS}
    for level in levels:
        if level.line_bytes is None:
            level.line_bytes = ordered["LineBytes"][0]
    checked_hierarchy(levels, display)
    _check_level_energies(costs, levels, display)
    name = (root.get("name") or "").strip() or path.stem
    description = " ".join((root.get("description") or "").split())
    return Machine(name, description, display, ordered, levels, notes, core,
                   {cost: (value, prov) for cost, (value, prov, _line) in costs.items()})


def _check_level_energies(costs: dict[str, tuple[float, str, int]], levels: list[MemoryLevel],
                          display: str) -> None:
    """An ``LnByteEnergyPJ`` needs a cache level Ln with a further cache level out."""
    caches = [level.name for level in levels if not level.is_memory]
    linked = caches[:-1] if len(caches) >= 2 else []
    for cost, (_value, _prov, line) in costs.items():
        level = cost.removesuffix("ByteEnergyPJ")
        if level not in (cost, "Mem") and level not in linked:
            have = (f"the links between caches are those of {', '.join(linked)}" if linked
                    else "the file lists fewer than two cache levels")
            raise MachineError(f"{display}:{line}: {cost}: no link from {level} to a further "
                               f"cache level ({have}; the last cache's link to memory is "
                               "MemByteEnergyPJ)")


_CORE_KEYS = {key.lower(): key for key in CORE_KEYS}


def _set_core(core: CoreThroughput, lines: dict[str, int], key: str, value: float, prov: str,
              display: str, line: int) -> None:
    """Record one in-core figure (``ClockGHz``, ``LoadsPerCycle``, …) after checking it."""
    attribute, _unit, may_be_zero = CORE_KEYS[key]
    where = f"{display}:{line}"
    if attribute in lines:
        raise MachineError(f"{where}: {key}: given twice (also line {lines[attribute]})")
    if value < 0 or (value == 0 and not may_be_zero):
        raise MachineError(f"{where}: {key} must be {'non-negative' if may_be_zero else 'positive'}"
                           f", got {value:g}")
    setattr(core, attribute, value)
    core.sources[attribute] = prov
    lines[attribute] = line


def checked_hierarchy(levels: list[MemoryLevel], display: str) -> list[MemoryLevel]:
    """:func:`check_hierarchy` with its errors as ``display:line: …`` machine errors."""
    try:
        check_hierarchy(levels)
    except HierarchyError as exc:
        raise MachineError(f"{display}:{exc.line}: {exc}") from None
    return levels


_LEVEL_NUMBERS = ("size_kib", "line_bytes", "shared_by_cores", "bandwidth_gbs",
                  "cycles_per_line", "ways", "sets")
_LEVEL_WHOLE = ("shared_by_cores", "ways", "sets")  # counts
_LEVEL_FLAGS = ("transfers_overlap", "write_allocate", "write_back")
_LEVEL_CHOICES = {"policy": POLICIES, "duplex": DUPLEXES}
_LEVEL_ATTRIBUTES = ("name", "source", *_LEVEL_NUMBERS, *_LEVEL_FLAGS, *_LEVEL_CHOICES)
_TRUE, _FALSE = ("true", "yes", "1"), ("false", "no", "0")


def _levels(memory: etree._Element, display: str) -> list[MemoryLevel]:
    levels = []
    for element in memory:
        line = element.sourceline or 0
        if element.tag != "level":
            raise MachineError(f"{display}:{line}: unexpected <{element.tag}> in <memory>: "
                               "expected <level name=… size_kib=… line_bytes=… "
                               "shared_by_cores=… bandwidth_gbs=…/>")
        unknown = sorted(set(element.attrib) - set(_LEVEL_ATTRIBUTES))
        if unknown:
            raise MachineError(f"{display}:{line}: <level> has unknown attribute {unknown[0]!r}")
        raw_name = (element.get("name") or "").strip()
        if not raw_name:
            raise MachineError(f"{display}:{line}: <level> without a name")
        name = level_name(raw_name)
        if name is None:
            raise MachineError(f"{display}:{line}: level {raw_name}: name: expected "
                               f"{EXPECTED_NAMES}, got {raw_name!r}")
        where = f"{display}:{line}: level {name}"
        numbers = {attribute: _level_number(element, attribute, where)
                   for attribute in _LEVEL_NUMBERS}
        flags = {attribute: _level_flag(element, attribute, where) for attribute in _LEVEL_FLAGS}
        choices = {attribute: _level_choice(element, attribute, allowed, where)
                   for attribute, allowed in _LEVEL_CHOICES.items()}
        level = MemoryLevel(name, numbers.pop("size_kib"), numbers.pop("line_bytes"),
                            numbers.pop("shared_by_cores") or 1.0, numbers.pop("bandwidth_gbs"),
                            (element.get("source") or "").strip(), file_line=line)
        for attribute, value in {**numbers, **flags, **choices}.items():
            if value is not None and attribute in _LEVEL_WHOLE:
                value = int(value)
            setattr(level, attribute, value)
        levels.append(level)
    return levels


def _level_number(element: etree._Element, attribute: str, where: str) -> float | None:
    """A positive number attribute of a <level>, or None when it is left out."""
    raw = element.get(attribute)
    if raw is None:
        return None
    value = parse_number(raw)
    if value is None or value <= 0:
        raise MachineError(f"{where}: {attribute} must be a positive number, got {raw.strip()!r}")
    if attribute in _LEVEL_WHOLE and not value.is_integer():
        raise MachineError(f"{where}: {attribute} must be a whole number, got {raw.strip()!r}")
    return value


def _level_flag(element: etree._Element, attribute: str, where: str) -> bool | None:
    raw = element.get(attribute)
    if raw is None:
        return None
    text = raw.strip().lower()
    if text not in _TRUE + _FALSE:
        raise MachineError(f"{where}: {attribute} must be true or false, got {raw.strip()!r}")
    return text in _TRUE


def _level_choice(element: etree._Element, attribute: str, allowed: tuple[str, ...],
                  where: str) -> str | None:
    raw = element.get(attribute)
    if raw is None:
        return None
    text = raw.strip().lower()
    if text not in allowed:
        raise MachineError(f"{where}: {attribute} must be {' or '.join(allowed)}, "
                           f"got {raw.strip()!r}")
    return text
