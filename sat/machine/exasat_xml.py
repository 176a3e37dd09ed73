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
  ``CacheAreaMM2PerMiB`` (:mod:`sat.parameters.costs`).  They go to :attr:`Machine.costs`; the
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

from pathlib import Path

from lxml import etree

from sat.machine.costs import cost_name, cost_spec
from sat.machine.levels import (
    CORE_FLAGS,
    CORE_KEYS,
    DUPLEXES,
    EXPECTED_NAMES,
    POLICIES,
    CoreThroughput,
    MemoryLevel,
    level_name,
)
from sat.machine.spec import (
    MACHINE_PARAMETERS,
    MACHINE_SPECS,
    Machine,
    MachineError,
    checked_hierarchy,
    parse_number,
)
from sat.parameter import check_value
from sat.safexml import read_xml

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


def _key_name(key: str) -> str | None:
    lowered = " ".join(key.split()).lower()
    return _EXASAT_KEYS.get(lowered) or _NAME_KEYS.get(lowered) or _LABEL_KEYS.get(lowered)


def load_exasat_xml(path: Path, display: str) -> Machine:
    """An ExaSAT or satreport machine file (``<machine>`` of ``<prop>`` elements)."""
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
    if key in CORE_FLAGS and value not in (0, 1):
        raise MachineError(f"{where}: {key} must be 1 (TRUE) or 0 (FALSE), got {value:g}")
    if value < 0 or (value == 0 and not may_be_zero):
        raise MachineError(f"{where}: {key} must be {'non-negative' if may_be_zero else 'positive'}"
                           f", got {value:g}")
    setattr(core, attribute, value)
    core.sources[attribute] = prov
    lines[attribute] = line




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

