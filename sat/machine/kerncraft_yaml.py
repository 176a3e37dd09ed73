"""Kerncraft's YAML machine files, read as they are (``satreport -m SandyBridgeEP.yml``).

A machine file arrives like any other input, possibly by e-mail, so it is read as plain data:
PyYAML composes the document with its safe loader and satreport builds the values itself,
accepting only YAML's plain types (mappings, sequences, strings, numbers, booleans, null) and
Kerncraft's ``!!omap`` lists.  A Python tag (``!!python/object…``) is refused, as is a file
over 1 MiB, nesting deeper than 100, a recursive alias, or aliases that expand to more than
100 000 values (an "aliases bomb"; Kerncraft's own files use no aliases at all).  Errors are
one line, ``path:line: field: what was expected``.

Quantities are Kerncraft's ``value prefix unit`` strings (``2.7 GHz``, ``64 B``, ``32 B/cy``,
``84.07 GB/s``) or plain numbers.  Prefixes are decimal (k = 10³, M = 10⁶, G = 10⁹) except in
cache sizes (``size per group: 32.00 kB``), where Kerncraft writes what likwid reports and
``kB``/``MB`` mean KiB/MiB.  A value Kerncraft left as ``INFORMATION_REQUIRED…`` counts as not
given.

Mapping onto satreport (one socket: per-socket figures are divided among its cores):

- ``model name`` (else ``model type``) → the description; the machine's name is the file's stem.
- ``clock`` → ``ClockGHz`` (:attr:`Machine.core`).
- ``cores per socket`` → ``Cores``.
- ``FLOPs per cycle: DP: total`` → ``FlopsPerCycle``; ``GflopsPerCore`` = clock (GHz) × total.
  ``DP: ADD``, ``MUL``, ``FMA`` → ``AddFlopsPerCycle``, ``MulFlopsPerCycle``,
  ``FMAFlopsPerCycle``.
- ``in-core model`` (``OSACA: SNB``, …) → the micro-architecture, whose port figures
  (:mod:`sat.machine.microarchitectures`: vector width, ports, load/store widths, address
  units, divider) fill what the file does not give; ``FLOPs per cycle: DP: ADD``, ``MUL`` →
  ``AddPorts``, ``MulPorts`` (flops / elements per vector), ``total`` → ``FMAPorts`` (total /
  2 / elements, when the file gives FMA); the ``non-overlapping model`` ports decide
  ``StoresOverlap`` and ``AGUsOverlap`` (FALSE when the store-data or address ports are
  listed there).
- ``compiler``: the flags of ``gcc`` (else the first compiler listed) → ``FastMath`` (TRUE when
  they allow reassociating sums: ``-Ofast``, ``-ffast-math``, ``-fassociative-math``).
- ``cacheline size`` → ``LineBytes`` (else L1's ``cl_size``).
- ``memory hierarchy`` → the levels, innermost first, named by ``level`` (``MEM`` → ``memory``):

  - ``cache per group: sets, ways, cl_size`` → ``sets``, ``ways``, ``line_bytes`` (``cl_size``
    a number or a quantity, ``64`` or ``64 B``, as Kerncraft's own files write it); the size of
    one instance is sets × ways × cl_size (what Kerncraft's cache simulator uses), ``size per
    group`` only when these are missing (a note says when the two disagree);
  - ``cache per group: write_allocate, write_back`` → ``write_allocate``, ``write_back``;
  - ``cache per group: victims_to: L3`` → L3's ``policy`` is ``victim``; every other cache
    level past L1 is ``inclusive`` (filled on every miss, as Kerncraft's simulator treats it);
  - ``cores per group`` → ``shared_by_cores`` (for memory, when it has none: ``cores per NUMA
    domain``, else ``cores per socket``; and ``cores per NUMA domain`` when that is fewer: a
    memory interface per NUMA domain);
  - ``upstream throughput: [N B/cy, half-duplex]`` → ``cycles_per_line`` = line / N and
    ``duplex`` of that level: the link from it to the level inside it, as in Kerncraft (L2's
    is the L1–L2 link);
  - ``upstream throughput: [full socket memory bandwidth, …]`` (memory) → the memory
    bandwidth comes from ``benchmarks``;
  - ``transfers overlap`` → ``transfers_overlap`` (L1's: ``LoadsOverlap``, whether the load
    ports' cycles overlap the transfers).
  - MEM's ``penalty cycles per cacheline load`` and ``… store`` → ``MemLoadPenaltyCycles``,
    ``MemStorePenaltyCycles``.

- ``benchmarks: measurements: MEM`` → the socket's memory bandwidth: the highest result over
  all core counts (1 thread per core) of the ``load`` kernel, else ``update``, ``copy``,
  ``triad``, times Kerncraft's write-allocate factor (read + 2 × write − read-write bytes) /
  (read + write bytes) of that kernel (1, 1, 1.5, 1.25): bytes that crossed the bus.  ``load``
  comes first because it needs no assumption about write-allocation.  ``GBsPerCore`` = that
  bandwidth / ``cores per socket``; the memory level's ``bandwidth_gbs`` is its share.
- ``benchmarks`` also give the table of memory bandwidth by stream mix
  (:attr:`Machine.memory_benchmarks`): per kernel with ``measurements: MEM`` results, the
  streams it reads over the memory bus (``kernels: <name>: read streams`` + ``write streams``
  − ``read+write streams``: the write-allocate read of an array only written counts) and
  writes (``write streams``; Kerncraft's standard definitions of load, update, copy and
  triad when the file does not describe the kernel; other undescribed kernels are left out)
  and its highest result up to the cores of one memory interface (the memory level's
  ``shared_by_cores``), times the kernel's write-allocate factor, as Kerncraft reads it.
  The ECM model's memory link takes, per nest, the kernel whose read/write ratio is closest
  to the nest's.
- ``benchmarks: measurements: <level>`` for every level past L1 (L2, L3, …, MEM) also give
  :attr:`Machine.level_benchmarks`: per kernel with known streams, its result at each count
  of cores (``cores``; one thread per core, else the fewest threads measured) times its
  write-allocate factor, the bandwidth of the link into that level for the Roofline per level
  (as Kerncraft's Roofline reads it).

``CacheKB`` (ExaSAT's on-chip memory per thread) is the last cache level's capacity per core,
plus the capacity per core of the levels inside it while the outer level is a victim or
exclusive cache (:func:`sat.machine.levels.on_chip_kib_per_core`).  ``WordBytes`` is 8 (double
precision), ``ReadCost`` 8 B, ``ReadWriteCost`` 16 B and ``WriteCost`` 16 B (8 B if no cache
level write-allocates).  Kerncraft files do not describe registers, division and special-function
costs, the network or the compute/memory overlap: those take the exascale defaults, said in one
note.  Every other field (``sockets``, ``threads per core``,
``isa``, the ``overlapping model`` ports, ``performance counter metrics``, ``groups``,
``threads per group``, ``replacement_policy``, other ``penalty cycles …`` keys, L1's
port list, the single-precision FLOPs, the cache levels' benchmark results, …) is
ignored, and one note lists them.
"""

from __future__ import annotations

import math
import re
from pathlib import Path
from typing import Any

from sat.machine.levels import (
    CORE_KEYS,
    MEMORY,
    CoreThroughput,
    MemoryLevel,
    level_name,
    on_chip_kib_per_core,
)
from sat.machine.microarchitectures import lookup
from sat.machine.spec import (
    MACHINE_SPECS,
    LevelBenchmark,
    Machine,
    MachineError,
    MemoryBenchmark,
    checked_hierarchy,
)
from sat.quoting import quoted
from sat.safeyaml import Located, LocatedList, read_yaml

# Machine-level fields satreport reads (everything else goes to the "ignored" note).
_USED = {"model name", "model type", "clock", "cores per socket", "cores per NUMA domain",
         "FLOPs per cycle", "cacheline size", "memory hierarchy", "benchmarks", "in-core model",
         "non-overlapping model", "compiler"}
_LEVEL_USED = {"level", "cache per group", "size per group", "cores per group",
               "upstream throughput", "transfers overlap", "penalty cycles per cacheline load",
               "penalty cycles per cacheline store"}
_CACHE_USED = {"sets", "ways", "cl_size", "write_allocate", "write_back", "load_from", "store_to",
               "victims_to"}
# Kerncraft's benchmark kernels, in the order their memory bandwidth is preferred, with the
# streams of their standard definitions (read, read+write, write; 8 bytes each), used when
# the file's "kernels" section does not give them.
_KERNELS = {"load": (1, 0, 0), "update": (1, 1, 1), "copy": (1, 0, 1), "triad": (3, 0, 1)}
# What a Kerncraft file cannot say, taken from the exascale node.
_DEFAULTED = ("IntRegs", "FPRegs", "DivCost", "SpecialCost", "NICGBs", "NICLatencyUs", "Overlap")
_PLACEHOLDER = "INFORMATION_REQUIRED"

_DECIMAL = {"": 1.0, "k": 1e3, "M": 1e6, "G": 1e9, "T": 1e12, "P": 1e15}
_BINARY = {"": 1.0, "k": 2.0**10, "K": 2.0**10, "M": 2.0**20, "G": 2.0**30, "T": 2.0**40,
           "Ki": 2.0**10, "Mi": 2.0**20, "Gi": 2.0**30, "Ti": 2.0**40}
_LARGEST = 1.7976931348623157e308
_QUANTITY = re.compile(r"\s*([+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?)\s*(\S*)\s*")


# ------------------------------------------------------------------ the mapping


class _Reader:
    """Field access with ``display:line: field: expected …`` errors."""

    def __init__(self, display: str) -> None:
        self.display = display

    def fail(self, line: int, field: str, expected: str, got: Any = None, *,
             missing: bool = False) -> MachineError:
        shown = "" if got is None else f", got {quoted(got)}"
        what = "missing: expected" if missing else "expected"
        return MachineError(f"{self.display}:{line}: {field}: {what} {expected}{shown}")

    def quantity(self, container: Located, key: str, field: str, units: tuple[str, ...],
                 prefixes: dict[str, float], expected: str, *, required: bool = True,
                 positive: bool = True) -> float | None:
        """A number or ``value prefix unit`` string in base units; ``None`` if not given."""
        line = container.lines.get(key, container.line)
        raw = container.get(key)
        if raw is None or (isinstance(raw, str) and raw.strip().startswith(_PLACEHOLDER)):
            if required:
                raise self.fail(line, field, expected, raw, missing=key not in container)
            return None
        value = _parse_quantity(raw, units, prefixes)
        if value is None or (positive and value <= 0) or (not positive and value < 0):
            raise self.fail(line, field, expected, raw)
        return value

    def count(self, container: Located, key: str, field: str, *,
              required: bool = True) -> int | None:
        value = self.quantity(container, key, field, ("",), {"": 1.0},
                              "a positive whole number", required=required)
        if value is None:
            return None
        if not float(value).is_integer():
            raise self.fail(container.lines.get(key, container.line), field,
                            "a positive whole number", container.get(key))
        return int(value)

    def flag(self, container: Located, key: str, field: str) -> bool | None:
        raw = container.get(key)
        if raw is None:
            return None
        if isinstance(raw, bool):
            return raw
        text = str(raw).strip().lower()
        if text in ("true", "yes", "on"):
            return True
        if text in ("false", "no", "off"):
            return False
        if text.startswith(_PLACEHOLDER.lower()):
            return None
        raise self.fail(container.lines.get(key, container.line), field, "true or false", raw)

    def mapping(self, container: Located, key: str, field: str, *,
                required: bool = True) -> Located | None:
        raw = container.get(key)
        if isinstance(raw, Located):
            return raw
        if raw is None and not required:
            return None
        raise self.fail(container.lines.get(key, container.line), field, "a mapping of fields",
                        raw, missing=key not in container)


def _parse_quantity(raw: Any, units: tuple[str, ...], prefixes: dict[str, float]) -> float | None:
    if isinstance(raw, bool):
        return None
    if isinstance(raw, (int, float)):
        value = float(raw) if abs(raw) <= _LARGEST else math.inf
        return value if math.isfinite(value) else None
    if not isinstance(raw, str):
        return None
    found = _QUANTITY.fullmatch(raw)
    if not found:
        return None
    number, rest = float(found.group(1)), found.group(2)
    for unit in units:
        value = None
        if rest == unit:
            value = number
        elif unit and rest.endswith(unit) and rest[: -len(unit)] in prefixes:
            value = number * prefixes[rest[: -len(unit)]]
        if value is not None:  # "1e400 GHz" is beyond a double: no quantity
            return value if math.isfinite(value) else None
    return None


def load_kerncraft(path: Path, display: str) -> Machine:
    """A :class:`Machine` from a Kerncraft YAML machine file (see the module docstring)."""
    data = read_yaml(path, display, MachineError, "a YAML machine file")
    if not isinstance(data, Located):
        raise MachineError(f"{display}:1: expected a Kerncraft machine description (a mapping "
                           "with clock, cores per socket, memory hierarchy, …)")
    read = _Reader(display)
    origin = f"machine file {display}"
    ignored: list[str] = [str(key) for key in data if key not in _USED]

    clock_hz = read.quantity(data, "clock", "clock", ("Hz",), _DECIMAL,
                             "the core clock, e.g. '2.7 GHz'")
    assert clock_hz is not None
    clock_ghz = clock_hz / 1e9
    cores = read.count(data, "cores per socket", "cores per socket")
    assert cores is not None
    numa_cores = read.count(data, "cores per NUMA domain", "cores per NUMA domain",
                            required=False)
    core = CoreThroughput(clock_ghz=clock_ghz, sources={"clock_ghz": f"{origin} (clock)"})

    flops = read.mapping(data, "FLOPs per cycle", "FLOPs per cycle")
    assert flops is not None
    if "SP" in flops:
        ignored.append("FLOPs per cycle: SP")
    dp = read.mapping(flops, "DP", "FLOPs per cycle: DP")
    assert dp is not None
    for key, attribute in (("total", "flops_per_cycle"), ("ADD", "add_flops_per_cycle"),
                           ("MUL", "mul_flops_per_cycle"), ("FMA", "fma_flops_per_cycle")):
        value = read.quantity(dp, key, f"FLOPs per cycle: DP: {key}", ("", "FLOP/cy"),
                              {"": 1.0}, "double-precision flops per cycle, a number",
                              required=key == "total" and _PLACEHOLDER not in str(dp.get(key)),
                              positive=key == "total")
        if value is not None:
            setattr(core, attribute, value)
            core.sources[attribute] = f"{origin} (FLOPs per cycle: DP: {key})"

    notes: list[str] = []
    _ports(data, core, origin, notes)
    _fast_math(data, core, origin)
    levels, memory_raw, throughputs = _levels(data, read, ignored, notes)
    if memory_raw is not None:
        _penalties(memory_raw, core, read, origin)
    line_bytes = read.quantity(data, "cacheline size", "cacheline size", ("B",), _DECIMAL,
                               "the cache line size, e.g. '64 B'", required=False)
    line_source = "cacheline size"
    if line_bytes is None:
        line_bytes = levels[0].line_bytes if levels and levels[0].line_bytes else None
        line_source = "L1 cl_size"
    if line_bytes is None:
        raise read.fail(data.line, "cacheline size", "the cache line size, e.g. '64 B'",
                        missing=True)
    for level, bytes_per_cycle in zip(levels, throughputs, strict=True):
        if level.line_bytes is None:
            level.line_bytes = line_bytes
        if bytes_per_cycle is not None:  # Kerncraft gives B/cy, satreport cycles per line
            level.cycles_per_line = level.line_bytes / bytes_per_cycle
    memory = next((level for level in levels if level.is_memory), None)
    if memory is not None and memory_raw is not None and "cores per group" not in memory_raw:
        memory.shared_by_cores = float(numa_cores or cores)
    elif memory is not None and numa_cores and numa_cores < memory.shared_by_cores:
        # one memory interface per NUMA domain (Zen 2: MEM's group is the socket of 4 domains)
        memory.shared_by_cores = float(numa_cores)
    checked_hierarchy(levels, display)
    cache_kib = on_chip_kib_per_core(levels)
    if cache_kib is None:
        raise read.fail(data.lines.get("memory hierarchy", 1), "memory hierarchy",
                        "at least one cache level (L1, …) before MEM")

    socket_gbs, bandwidth_how = _memory_bandwidth(data, read, memory_raw, ignored)
    if memory is not None:
        memory.bandwidth_gbs = socket_gbs * memory.shared_by_cores / cores
        memory.source = f"{origin}: {bandwidth_how}"

    values: dict[str, tuple[float, str]] = {
        "Cores": (float(cores), f"{origin} (cores per socket)"),
        "GBsPerCore": (socket_gbs / cores, f"{origin}: {bandwidth_how} / {cores} cores"),
        "CacheKB": (cache_kib, f"{origin}: {_cache_how(levels)}"),
        "LineBytes": (line_bytes, f"{origin} ({line_source})"),
        "WordBytes": (8.0, f"{origin}: double precision (Kerncraft files give no word size)"),
    }
    if core.flops_per_cycle is not None:
        values["GflopsPerCore"] = (clock_ghz * core.flops_per_cycle,
                                   f"{origin}: clock {clock_ghz:g} GHz × FLOPs per cycle DP "
                                   f"total {core.flops_per_cycle:g}")
    allocates = any(level.write_allocate is not False for level in levels if not level.is_memory)
    values["ReadCost"] = (8.0, f"{origin}: a read moves one 8-byte word")
    values["ReadWriteCost"] = (16.0, f"{origin}: read once, written back once")
    values["WriteCost"] = ((16.0, f"{origin}: write-allocate caches read a line before writing "
                            "it back") if allocates else
                           (8.0, f"{origin}: no cache level write-allocates"))
    defaulted = [spec for spec in MACHINE_SPECS if spec.name not in values]
    for spec in defaulted:
        values[spec.name] = (spec.default, "default")
    if defaulted:
        listed = ", ".join(f"{spec.name} {spec.default:g}{_unit(spec.unit)}" for spec in defaulted)
        notes.append(f"{display}: a Kerncraft machine file does not give these, the exascale "
                     f"node's values are assumed: {listed}")
    if ignored:
        notes.append(f"{display}: Kerncraft fields satreport does not use, ignored: "
                     f"{', '.join(dict.fromkeys(ignored))}")
    ordered = {spec.name: values[spec.name] for spec in MACHINE_SPECS}
    description = _description(data, path)
    benchmarks = _memory_benchmarks(data, read, memory_raw, memory.shared_by_cores
                                    if memory is not None else float(cores), origin)
    return Machine(path.stem, description, display, ordered, levels, notes, core,
                   memory_benchmarks=benchmarks,
                   level_benchmarks=_level_benchmarks(data, read, levels, origin))


def _ports(data: Located, core: CoreThroughput, origin: str, notes: list[str]) -> None:
    """The port model of the file's micro-architecture (``in-core model``): its table entry
    (:mod:`sat.machine.microarchitectures`), the file's ``FLOPs per cycle`` for the add,
    multiply and FMA ports, and the overlap of stores and address units from the file's
    ``non-overlapping model`` port list."""
    models = data.get("in-core model")  # an !!omap: a list of one-entry mappings
    pairs = [models] if isinstance(models, Located) else \
        [item for item in models if isinstance(item, Located)] \
        if isinstance(models, LocatedList) else []
    names = [str(value) for pair in pairs for key, value in pair.items()
             if key in ("OSACA", "IACA")]
    entry = next((found for name in names if (found := lookup(name)) is not None), None)
    if entry is None:
        if names:
            notes.append(f"{origin}: micro-architecture {', '.join(names)} is not in satreport's "
                         "table: the port model takes its assumed defaults")
        return
    core.microarchitecture = entry.name
    for key, value in entry.values.items():
        attribute = CORE_KEYS[key][0]
        if getattr(core, attribute) is None:
            setattr(core, attribute, float(value))
            core.sources[attribute] = (f"{origin}: micro-architecture {entry.name}, "
                                       f"satreport's table: {entry.source}")
    elements = entry.values["VectorBytes"] / 8  # double precision
    for attribute, per_cycle, divisor in (
            ("add_ports", core.add_flops_per_cycle, elements),
            ("mul_ports", core.mul_flops_per_cycle, elements),
            # Kerncraft's files disagree on FMA (operations or flops); total = 2 x FMA ops
            ("fma_ports", core.flops_per_cycle if core.fma_flops_per_cycle else None,
             2 * elements)):
        if per_cycle:
            fma = " x 2 flops per FMA" if attribute == "fma_ports" else ""
            setattr(core, attribute, per_cycle / divisor)
            core.sources[attribute] = (f"{origin}: FLOPs per cycle DP {per_cycle:g} / "
                                       f"{divisor:g} (elements per {entry.name} vector"
                                       f"{fma})")
    model = data.get("non-overlapping model")
    ports = model.get("ports") if isinstance(model, Located) else None
    listed = ports.get("OSACA") if isinstance(ports, Located) else None
    if isinstance(listed, LocatedList):
        serial = {str(port).strip() for port in listed}
        for attribute, own, what in (("stores_overlap", entry.store_ports, "store-data"),
                                     ("agus_overlap", entry.agu_ports, "address")):
            setattr(core, attribute, 0.0 if serial & set(own) else 1.0)
            core.sources[attribute] = (f"{origin}: non-overlapping model ports "
                                       f"{sorted(serial)}, {entry.name}'s {what} "
                                       f"ports {list(own)}")


def _penalties(memory: Located, core: CoreThroughput, read: _Reader, origin: str) -> None:
    """``penalty cycles per cacheline load`` / ``store`` of the MEM level (a key spelt
    otherwise is not these: it stays among the ignored fields, as Kerncraft ignores it)."""
    for key, attribute in (("penalty cycles per cacheline load", "mem_load_penalty"),
                           ("penalty cycles per cacheline store", "mem_store_penalty")):
        value = read.quantity(memory, key, f"memory hierarchy MEM: {key}", ("",), {"": 1.0},
                              "cycles per cache line, a number", required=False,
                              positive=False)
        if value is not None:
            setattr(core, attribute, value)
            core.sources[attribute] = f"{origin} (memory hierarchy MEM: {key})"


_REASSOCIATING = ("-Ofast", "-ffast-math", "-fassociative-math")


def _fast_math(data: Located, core: CoreThroughput, origin: str) -> None:
    """``FastMath`` from the flags the file compiles with (gcc's, satreport's reference)."""
    compilers = data.get("compiler")  # an !!omap: a list of one-entry mappings
    pairs = [compilers] if isinstance(compilers, Located) else \
        [item for item in compilers if isinstance(item, Located)] \
        if isinstance(compilers, LocatedList) else []
    flags = {str(key): str(value or "") for pair in pairs for key, value in pair.items()}
    if not flags:
        return
    name = "gcc" if "gcc" in flags else next(iter(flags))
    words = flags[name].split()
    core.fast_math = 1.0 if any(word in _REASSOCIATING for word in words) else 0.0
    core.sources["fast_math"] = f"{origin}: compiler {name} {flags[name]}".strip()


def _unit(unit: str) -> str:
    return f" {unit}" if unit and unit not in ("registers", "flop-equivalents", "") else ""


def _description(data: Located, path: Path) -> str:
    parts = [str(data[key]).strip() for key in ("model name", "model type")
             if isinstance(data.get(key), str) and data[key].strip()
             and not data[key].startswith(_PLACEHOLDER)]
    text = parts[0] if parts else path.stem
    return " ".join(f"{text} (Kerncraft machine file)".split())


def _levels(data: Located, read: _Reader, ignored: list[str], notes: list[str],
            ) -> tuple[list[MemoryLevel], Located | None, list[float | None]]:
    """The levels of ``memory hierarchy``, the raw MEM entry (``None`` without one) and each
    level's upstream throughput in B/cy (``None`` when not a number)."""
    hierarchy = data.get("memory hierarchy")
    if not isinstance(hierarchy, LocatedList) or not hierarchy:
        raise read.fail(data.lines.get("memory hierarchy", data.line), "memory hierarchy",
                        "a list of levels (level: L1, …, level: MEM)", hierarchy,
                        missing="memory hierarchy" not in data)
    levels: list[MemoryLevel] = []
    raws: list[Located] = []
    throughputs: list[float | None] = []
    memory_raw = None
    for index, entry in enumerate(hierarchy):
        line = hierarchy.lines[index]
        if not isinstance(entry, Located):
            raise read.fail(line, f"memory hierarchy item {index + 1}",
                            "a level (a mapping with 'level: L1', …)", entry)
        raw_name = entry.get("level")
        name = level_name(raw_name) if isinstance(raw_name, str) else None
        if name is None or name == "on-chip":
            raise read.fail(entry.lines.get("level", line), f"memory hierarchy item {index + 1}: "
                            "level", "L1, L2, L3, … or MEM", raw_name)
        field = f"memory hierarchy {name}"
        ignored.extend(f"memory hierarchy: {key}" for key in entry if key not in _LEVEL_USED)
        level = MemoryLevel(name, None, None, 1.0, None,
                            f"machine file {read.display} (memory hierarchy {raw_name})",
                            file_line=line)
        if name == MEMORY:
            memory_raw = entry
        else:
            _cache_geometry(entry, level, read, field, ignored, notes)
        sharing = read.count(entry, "cores per group", f"{field}: cores per group",
                             required=name != MEMORY)
        if sharing is not None:
            level.shared_by_cores = float(sharing)
        throughputs.append(_upstream(entry, level, read, field, ignored))
        level.transfers_overlap = read.flag(entry, "transfers overlap",
                                            f"{field}: transfers overlap")
        levels.append(level)
        raws.append(entry)
    # A level the one inside it sends its victims to is a victim cache; other cache levels
    # past L1 are filled on every miss (inclusive, as Kerncraft's cache simulator treats them).
    for index in range(1, len(levels)):
        if levels[index].is_memory:
            continue
        inner = raws[index - 1].get("cache per group")
        victims = inner.get("victims_to") if isinstance(inner, Located) else None
        levels[index].policy = ("victim" if isinstance(victims, str)
                                and level_name(victims) == levels[index].name else "inclusive")
    return levels, memory_raw, throughputs


def _cache_geometry(entry: Located, level: MemoryLevel, read: _Reader, field: str,
                    ignored: list[str], notes: list[str]) -> None:
    cache = read.mapping(entry, "cache per group", f"{field}: cache per group", required=False)
    if cache is not None:
        ignored.extend(f"cache per group: {key}" for key in cache if key not in _CACHE_USED)
        sets = read.count(cache, "sets", f"{field}: cache per group: sets", required=False)
        ways = read.count(cache, "ways", f"{field}: cache per group: ways", required=False)
        line = read.quantity(cache, "cl_size", f"{field}: cache per group: cl_size",
                             ("", "B"), {"": 1.0}, "the line size in bytes, e.g. 64 or '64 B'",
                             required=False)
        level.sets, level.ways = sets, ways
        if line is not None:
            level.line_bytes = float(line)
        if sets is not None and ways is not None and line is not None:
            level.size_kib = sets * ways * line / 1024
        level.write_allocate = read.flag(cache, "write_allocate",
                                         f"{field}: cache per group: write_allocate")
        level.write_back = read.flag(cache, "write_back", f"{field}: cache per group: write_back")
    expected = "the cache size, e.g. '32 kB' (or sets, ways and cl_size in cache per group)"
    size = read.quantity(entry, "size per group", f"{field}: size per group", ("B",), _BINARY,
                         expected, required=level.size_kib is None)
    if level.size_kib is None:
        assert size is not None
        level.size_kib = size / 1024
        if level.sets is not None and level.ways is not None:  # sets × ways × line must match
            level.sets = None
    elif size is not None and abs(size / 1024 - level.size_kib) > 0.01 * level.size_kib:
        notes.append(f"{read.display}:{entry.lines['size per group']}: {field}: size per group "
                     f"{size / 1024:g} KiB differs from sets × ways × cl_size = "
                     f"{level.size_kib:g} KiB; the latter is used, as Kerncraft's cache "
                     "simulator does")


def _upstream(entry: Located, level: MemoryLevel, read: _Reader, field: str,
              ignored: list[str]) -> float | None:
    """``upstream throughput: [N B/cy | full socket memory bandwidth | …, duplex]``: the
    duplex goes to the level, N (B/cy) is returned."""
    raw = entry.get("upstream throughput")
    if raw is None:
        return None
    line = entry.lines.get("upstream throughput", entry.line)
    where = f"{field}: upstream throughput"
    if not isinstance(raw, LocatedList) or not raw:
        raise read.fail(line, where, "[N B/cy, half-duplex or full-duplex]", raw)
    throughput = raw[0]
    if isinstance(throughput, str) and throughput.strip() == "architecture code analyzer":
        ignored.append(f"upstream throughput of {level.name} (the in-core model's load ports)")
        return None
    value = None  # "full socket memory bandwidth": the bandwidth comes from the benchmarks
    if not (isinstance(throughput, str) and throughput.strip() == "full socket memory bandwidth"):
        value = _parse_quantity(throughput, ("B/cy", "B/cycle"), _DECIMAL)
        if value is None or value <= 0:
            raise read.fail(line, where, "a throughput such as '32 B/cy' or 'full socket memory "
                            "bandwidth'", throughput)
        level.source += f", upstream throughput {throughput}"
    duplex = raw[1] if len(raw) > 1 else None
    if isinstance(duplex, str) and duplex.strip() in ("half-duplex", "full-duplex"):
        level.duplex = "half" if duplex.strip() == "half-duplex" else "full"
    elif duplex is not None and not (isinstance(duplex, str) and _PLACEHOLDER in duplex):
        raise read.fail(line, where, "half-duplex or full-duplex as second item", duplex)
    return value


def _memory_measurements(data: Located, read: _Reader, memory_raw: Located | None
                         ) -> tuple[str, Any, Located, Any]:
    """(memory level name, threads per core, the results of that many threads, the kernels
    section) of the file's memory benchmarks."""
    name = str(memory_raw.get("level")) if memory_raw is not None else "MEM"
    line = data.lines.get("benchmarks", memory_raw.line if memory_raw is not None else data.line)
    expected = (f"measured memory bandwidth (benchmarks: measurements: {name}: results of the "
                "load, update, copy or triad kernel)")
    benchmarks = data.get("benchmarks")
    measurements = benchmarks.get("measurements") if isinstance(benchmarks, Located) else None
    per_thread = measurements.get(name) if isinstance(measurements, Located) else None
    if not isinstance(per_thread, Located) or not per_thread:
        raise read.fail(line, "benchmarks", expected, missing=True)
    threads = 1 if 1 in per_thread else min(per_thread, key=str)
    entry = per_thread[threads]
    results = entry.get("results") if isinstance(entry, Located) else None
    if not isinstance(entry, Located) or not isinstance(results, Located):
        raise read.fail(per_thread.line, "benchmarks", expected)
    kernels = benchmarks.get("kernels") if isinstance(benchmarks, Located) else None
    return name, threads, entry, kernels


def _measured(series: LocatedList, where: str, read: _Reader) -> list[float]:
    """A kernel's results (GB/s), one per core count."""
    measured = []
    for index, raw in enumerate(series):
        value = _parse_quantity(raw, ("B/s",), _DECIMAL)
        if value is None or value <= 0:
            raise read.fail(series.lines[index], where, "bandwidths such as '45.1 GB/s'", raw)
        measured.append(value / 1e9)
    return measured


def _memory_bandwidth(data: Located, read: _Reader, memory_raw: Located | None,
                      ignored: list[str]) -> tuple[float, str]:
    """The socket's measured memory bandwidth (GB/s) and how it was obtained."""
    name, threads, entry, kernels = _memory_measurements(data, read, memory_raw)
    results = entry["results"]
    for kernel in _KERNELS:
        series = results.get(kernel)
        if not isinstance(series, LocatedList) or not series:
            continue
        measured = _measured(series, f"benchmarks: measurements: {name}: results: {kernel}",
                             read)
        streams = _kernel_streams(kernels, kernel, read)
        factor = _write_allocate_factor(streams[0]) if streams is not None else 1.0
        best = max(measured)
        how = (f"benchmarks {name} {kernel} kernel, {threads} thread(s) per core: highest of "
               f"{len(measured)} results {best:g} GB/s" +
               (f" × write-allocate factor {factor:g}" if factor != 1 else ""))
        return best * factor, how
    raise read.fail(results.line, "benchmarks",
                    f"measured memory bandwidth (benchmarks: measurements: {name}: results of "
                    "the load, update, copy or triad kernel)")


def _memory_benchmarks(data: Located, read: _Reader, memory_raw: Located | None,
                       domain_cores: float, origin: str) -> list[MemoryBenchmark]:
    """Every memory benchmark the file measured, for one memory domain: the highest result up
    to its cores (all results when the core counts are not listed), times the kernel's
    write-allocate factor; the kernels whose streams are unknown are left out."""
    name, threads, entry, kernels = _memory_measurements(data, read, memory_raw)
    counts = entry.get("cores")
    out = []
    for kernel, series in entry["results"].items():
        if not isinstance(series, LocatedList) or not series:
            continue
        streams = _kernel_streams(kernels, str(kernel), read)
        if streams is None:
            continue
        measured = _measured(series, f"benchmarks: measurements: {name}: results: {kernel}",
                             read)
        within = measured
        if isinstance(counts, LocatedList) and len(counts) == len(measured):
            within = [value for count, value in zip(counts, measured, strict=True)
                      if isinstance(count, int | float) and count <= domain_cores] or measured
        best, factor = max(within), _write_allocate_factor(streams[0])
        out.append(MemoryBenchmark(
            str(kernel), streams[1][0] + streams[1][2] - streams[1][1], streams[1][2],
            best * factor,
            f"{origin}: benchmarks {name} {kernel} kernel, {threads} thread(s) per core: "
            f"highest result up to {domain_cores:g} cores {best:g} GB/s"
            + (f" × write-allocate factor {factor:g}" if factor != 1 else "")))
    return out


def _level_benchmarks(data: Located, read: _Reader, levels: list[MemoryLevel], origin: str
                      ) -> list[LevelBenchmark]:
    """Every kernel measured with its data in a level past L1, at each count of cores, times
    its write-allocate factor; kernels whose streams or core counts are unknown are left
    out."""
    benchmarks = data.get("benchmarks")
    measurements = benchmarks.get("measurements") if isinstance(benchmarks, Located) else None
    if not isinstance(measurements, Located):
        return []
    kernels = benchmarks.get("kernels")
    by_name = {level_name(str(key)): per_thread for key, per_thread in measurements.items()}
    out = []
    for level in levels[1:]:
        per_thread = by_name.get(level.name)
        if not isinstance(per_thread, Located) or not per_thread:
            continue
        threads = 1 if 1 in per_thread else min(per_thread, key=str)
        entry = per_thread[threads]
        results = entry.get("results") if isinstance(entry, Located) else None
        counts = entry.get("cores") if isinstance(entry, Located) else None
        if not isinstance(results, Located) or not isinstance(counts, LocatedList):
            continue
        label = "MEM" if level.is_memory else level.name
        for kernel, series in results.items():
            streams = _kernel_streams(kernels, str(kernel), read)
            if streams is None or not isinstance(series, LocatedList) or \
                    len(series) != len(counts) or \
                    not all(isinstance(c, int) and not isinstance(c, bool) for c in counts):
                continue
            measured = _measured(series, f"benchmarks: measurements: {label}: results: "
                                 f"{kernel}", read)
            factor = _write_allocate_factor(streams[0])
            out.append(LevelBenchmark(
                label, str(kernel), sorted(zip(counts, (value * factor for value in measured),
                                               strict=True)),
                f"{origin}: benchmarks {label} {kernel} kernel, {threads} thread(s) per core"
                + (f", × write-allocate factor {factor:g}" if factor != 1 else "")))
    return out


def _kernel_streams(kernels: Any, kernel: str, read: _Reader
                    ) -> tuple[tuple[float, float, float], tuple[float, float, float]] | None:
    """(bytes, streams) per iteration of a benchmark kernel, each as (read, read+write,
    write): the file's ``kernels`` section, else Kerncraft's standard definition (8-byte
    elements); ``None`` for a kernel neither describes."""
    info = kernels.get(kernel) if isinstance(kernels, Located) else None
    if not isinstance(info, Located):
        if kernel not in _KERNELS:
            return None
        counts = tuple(float(n) for n in _KERNELS[kernel])
        return (8 * counts[0], 8 * counts[1], 8 * counts[2]), counts  # type: ignore[return-value]
    found: list[tuple[float, float]] = []
    for key in ("read streams", "read+write streams", "write streams"):
        entry = info.get(key)
        raw = entry.get("bytes") if isinstance(entry, Located) else None
        value = _parse_quantity(raw, ("B",), _DECIMAL) if raw is not None else None
        if value is None or value < 0:
            raise read.fail(info.lines.get(key, info.line),
                            f"benchmarks: kernels: {kernel}: {key}: bytes",
                            "a byte count such as '8.00 B'", raw)
        count = entry.get("streams") if isinstance(entry, Located) else None
        if not isinstance(count, int | float) or isinstance(count, bool) or count < 0:
            count = value / 8  # the byte count of 8-byte elements
        found.append((value, float(count)))
    return ((found[0][0], found[1][0], found[2][0]),  # type: ignore[return-value]
            (found[0][1], found[1][1], found[2][1]))


def _write_allocate_factor(streams: tuple[float, float, float]) -> float:
    """Kerncraft's correction from measured bytes to bytes that crossed the memory bus."""
    reads, both, writes = streams
    if reads + writes <= 0:
        return 1.0
    return (reads + 2 * writes - both) / (reads + writes)


def _cache_how(levels: list[MemoryLevel]) -> str:
    caches = [level for level in levels if not level.is_memory]
    last = caches[-1]
    parts = [f"{last.name} {last.size_kib:g} KiB / {_cores(last.shared_by_cores)}"]
    index = len(caches) - 1
    while index > 0 and caches[index].policy in ("victim", "exclusive"):
        index -= 1
        inner = caches[index]
        parts.append(f"{inner.name} {inner.size_kib:g} KiB / {_cores(inner.shared_by_cores)} "
                     f"({caches[index + 1].name} is a {caches[index + 1].policy} cache, so "
                     "capacities add)")
    return " + ".join(parts)


def _cores(count: float) -> str:
    return f"{count:g} core" + ("" if count == 1 else "s")
