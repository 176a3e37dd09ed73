"""Memory levels and in-core throughput of machine files; Kerncraft's YAML machine files."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from sat.cli import main
from sat.machine import MachineError, list_machines, load_machine
from sat.machine.levels import CORE_KEYS, on_chip_kib_per_core

ROOT = Path(__file__).resolve().parent.parent
MACHINES = Path(__file__).parent / "data" / "machines"
TOY = MACHINES / "toy-victim-l3.yml"
ONE_CACHE = MACHINES / "toy-one-cache.yaml"
REFERENCE_MACHINE = Path(__file__).parent / "data" / "exasat" / "config" / "machine.xml"
LAP = ROOT / "examples" / "lap.f90"
REAL = ["epyc-9654", "grace-superchip", "xeon-8480plus", "xeon-e5-2680"]


def write(tmp_path: Path, text: str, name: str = "m.xml") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def error_of(path: Path) -> str:
    with pytest.raises(MachineError) as info:
        load_machine(str(path))
    message = str(info.value)
    assert "\n" not in message
    return message


# ------------------------------------------------------------------ built-in machines


@pytest.mark.parametrize("name", [name for name, _ in list_machines()])
def test_builtin_levels_are_ordered_sized_and_sourced(name):
    machine = load_machine(name)
    levels = machine.memory_levels
    names = [level.name for level in levels]
    caches = [level for level in levels if not level.is_memory]
    assert names[-1] == "memory"
    assert names[:-1] in (["on-chip"], [f"L{i + 1}" for i in range(len(caches))])
    sizes = [level.size_kib for level in caches]
    assert all(size and size > 0 for size in sizes) and sizes == sorted(sizes)
    assert all(level.source for level in levels)
    for level in caches:
        if level.ways is not None:  # the geometry is whole and adds up
            assert level.sets * level.ways * level.line_bytes == level.size_kib * 1024
    # ExaSAT's CacheKB is the hierarchy's on-chip memory per core, by the documented rule
    assert machine.value("CacheKB") == pytest.approx(on_chip_kib_per_core(levels), rel=1e-4)
    # every in-core figure given has a source
    for attribute, _unit, _zero in CORE_KEYS.values():
        if getattr(machine.core, attribute) is not None:
            assert machine.core.sources[attribute].startswith(f"machine file {machine.source} (")


# Caches whose vendor says nothing about associativity or policy: their source says so.
UNDOCUMENTED = {("grace-superchip", "L3")}


@pytest.mark.parametrize("name", REAL)
def test_real_builtins_describe_every_cache(name):
    machine = load_machine(name)
    for level in machine.cache_levels:
        if (name, level.name) in UNDOCUMENTED:
            assert "not given" in level.source
            continue
        assert level.ways and level.write_allocate is not None and level.write_back, level.name
    core = machine.core
    assert core.clock_ghz and core.flops_per_cycle and core.vector_bytes
    # GflopsPerCore is the clock times the flops per cycle (Grace: from NVIDIA's 7.1 TFLOPS)
    assert machine.value("GflopsPerCore") == pytest.approx(
        core.clock_ghz * core.flops_per_cycle, rel=1e-3)
    assert machine.memory_level.bandwidth_gbs == pytest.approx(
        machine.memory_level.shared_by_cores * machine.value("GBsPerCore"))


def test_sapphire_rapids_numbers():
    machine = load_machine("xeon-8480plus")
    got = {name: value for name, (value, _) in machine.values.items()}
    assert got["Cores"] == 56
    assert got["GflopsPerCore"] == 2.0 * 2 * 8 * 2  # 2 GHz × 2 FMA units × 8 lanes × 2 = 64
    assert got["GBsPerCore"] == pytest.approx(8 * 4.8 * 8 / 56)  # 307.2 GB/s / 56
    l1, l2, l3, memory = machine.memory_levels
    assert (l1.size_kib, l1.ways, l1.sets) == (48, 12, 64)  # 48 KiB / (64 B × 12)
    assert (l2.size_kib, l2.ways, l2.sets, l2.cycles_per_line) == (2048, 16, 2048, 1)
    assert l3.size_kib == 105 * 1024 and l3.shared_by_cores == 56
    assert (l3.policy, l3.ways, l3.sets) == ("victim", 15, 56 * 2048)  # 105 MiB / (64 B × 15)
    assert got["CacheKB"] == 2048 + 105 * 1024 / 56  # L2 + L3 share: 2048 + 1920
    assert memory.bandwidth_gbs == pytest.approx(307.2)
    assert (machine.core.loads_per_cycle, machine.core.stores_per_cycle) == (2, 1)


def test_grace_numbers():
    machine = load_machine("grace-superchip")
    got = {name: value for name, (value, _) in machine.values.items()}
    assert got["Cores"] == 144
    assert got["GflopsPerCore"] == pytest.approx(7100 / 144)  # 7.1 TFLOPS FP64 / 144 cores
    assert got["GBsPerCore"] == pytest.approx(500 / 72)  # 1 TB/s = 2 × 500 GB/s for 72 cores
    assert (got["IntRegs"], got["FPRegs"]) == (31, 32)
    l1, l2, l3, memory = machine.memory_levels
    assert (l1.size_kib, l1.ways, l1.sets) == (64, 4, 256)
    assert (l2.size_kib, l2.ways, l2.sets) == (1024, 8, 2048)
    assert (l3.size_kib, l3.shared_by_cores, l3.policy) == (117 * 1024, 72, None)
    assert got["CacheKB"] == 117 * 1024 / 72  # 1664: the L3 share, L2 not added
    assert (memory.shared_by_cores, memory.bandwidth_gbs) == (72, 500)
    assert machine.core.flops_per_cycle == 4 * 2 * 2  # 4 × 128-bit FMA pipes


def test_filled_levels_of_the_existing_machines():
    xeon = load_machine("xeon-e5-2680")
    assert [(lv.policy, lv.ways, lv.sets) for lv in xeon.cache_levels] == [
        (None, 8, 64), ("inclusive", 8, 512), ("inclusive", 20, 16384)]
    assert [lv.cycles_per_line for lv in xeon.cache_levels] == [None, 2, 2]  # 64 B / 32 B/cy
    # one store-data port, 16 bytes wide: a 256-bit store every other cycle (StoreBytes)
    assert (xeon.core.fma_flops_per_cycle, xeon.core.stores_per_cycle) == (0, 1)
    epyc = load_machine("epyc-9654")
    assert [(lv.policy, lv.ways) for lv in epyc.cache_levels] == [
        (None, 8), ("inclusive", 8), ("victim", 16)]
    assert epyc.cache_levels[-1].write_allocate is False


def test_link_out_is_the_next_level_outwards():
    xeon = load_machine("xeon-e5-2680")
    assert xeon.link_out("L1").name == "L2"  # the L1–L2 link is described by L2
    assert xeon.link_out("L3").name == "memory"
    assert xeon.link_out("memory") is None
    assert xeon.memory_level.name == "memory"


def test_exasat_reference_machine_xml_loads_exactly_as_before():
    machine = load_machine(str(REFERENCE_MACHINE))
    assert machine.memory_levels == []
    assert machine.core.sources == {} and machine.core.clock_ghz is None
    assert machine.notes == [f"{REFERENCE_MACHINE}: no Overlap given: assumed 1"]


def test_a_single_cache_level_works_as_today(tmp_path):
    path = write(tmp_path, """<machine>
  <prop key="CacheKB" val="64"/>
  <memory>
    <level name="L1" size_kib="64"/>
    <level name="memory" bandwidth_gbs="100"/>
  </memory>
</machine>""")
    machine = load_machine(str(path))
    assert [level.name for level in machine.memory_levels] == ["L1", "memory"]
    assert machine.memory_levels[0].line_bytes == 64  # the machine's LineBytes
    assert on_chip_kib_per_core(machine.memory_levels) == 64


def test_level_names_are_canonical(tmp_path):
    path = write(tmp_path, """<machine><memory>
    <level name="l1" size_kib="32"/><level name="L2" size_kib="512"/><level name="MEM"/>
    </memory></machine>""")
    assert [level.name for level in load_machine(str(path)).memory_levels] == [
        "L1", "L2", "memory"]


def test_new_xml_attributes_are_read(tmp_path):
    path = write(tmp_path, """<machine>
  <prop key="ClockGHz" val="3" source="datasheet"/>
  <prop key="FMAFlopsPerCycle" val="0"/>
  <memory>
    <level name="L1" size_kib="32" sets="64" write_allocate="false" write_back="true"/>
    <level name="L2" size_kib="1024" cycles_per_line="2.5" duplex="full"
           transfers_overlap="true" policy="exclusive" ways="16"/>
    <level name="memory"/>
  </memory>
</machine>""")
    machine = load_machine(str(path))
    l1, l2, _ = machine.memory_levels
    assert (l1.sets, l1.ways, l1.write_allocate, l1.write_back) == (64, 8, False, True)
    assert (l2.cycles_per_line, l2.duplex, l2.transfers_overlap, l2.policy) == (
        2.5, "full", True, "exclusive")
    assert (l2.ways, l2.sets) == (16, 1024)  # 1 MiB / (64 B × 16)
    assert machine.core.clock_ghz == 3 and machine.core.fma_flops_per_cycle == 0
    assert machine.core.sources["clock_ghz"] == f"machine file {path} (datasheet)"
    assert "ClockGHz" not in machine.values  # not a model parameter
    assert not any("ClockGHz" in note for note in machine.notes)


def _levels_xml(*levels: str) -> str:
    return "<machine>\n<memory>\n" + "\n".join(levels) + "\n</memory>\n</machine>"


@pytest.mark.parametrize("body, line, fragment", [
    (_levels_xml('<level name="L0" size_kib="32"/>'), 3,
     "level L0: name: expected L1, L2, L3, … (or on-chip), then memory, got 'L0'"),
    (_levels_xml('<level name="LLC" size_kib="32"/>'), 3, "name: expected L1, L2, L3"),
    (_levels_xml('<level name="L2" size_kib="256"/>', '<level name="L1" size_kib="32"/>'), 3,
     "level L2: out of order: expected L1 here"),
    (_levels_xml('<level name="L1" size_kib="32"/>', '<level name="L3" size_kib="256"/>'), 4,
     "level L3: out of order: expected L2 here"),
    (_levels_xml('<level name="L1" size_kib="32"/>', '<level name="memory"/>',
                 '<level name="L2" size_kib="256"/>'), 4,
     "level memory: out of order: the memory level comes last"),
    (_levels_xml('<level name="on-chip" size_kib="32"/>', '<level name="L2" size_kib="256"/>'),
     4, "level L2: out of order: expected memory (on-chip is the only cache"),
    (_levels_xml('<level name="L1" size_kib="32"/>', '<level name="L2" size_kib="16"/>'), 4,
     "level L2: size_kib: 16 KiB is smaller than L1's 32 KiB: expected a level at least as "
     "large as the one inside it"),
    (_levels_xml('<level name="L1" size_kib="-32"/>'), 3,
     "level L1: size_kib must be a positive number, got '-32'"),
    (_levels_xml('<level name="L1"/>'), 3, "level L1: size_kib: expected the capacity"),
    (_levels_xml('<level name="L1" size_kib="32" cycles_per_line="fast"/>'), 3,
     "level L1: cycles_per_line must be a positive number, got 'fast'"),
    (_levels_xml('<level name="L1" size_kib="32" ways="7.5"/>'), 3,
     "level L1: ways must be a whole number, got '7.5'"),
    (_levels_xml('<level name="L1" size_kib="32" shared_by_cores="1.5"/>'), 3,
     "shared_by_cores must be a whole number"),
    (_levels_xml('<level name="L1" size_kib="32" ways="3"/>'), 3,
     "level L1: ways: 32 KiB / (64 B × 3 ways) is not a whole number of sets"),
    (_levels_xml('<level name="L1" size_kib="32" ways="8" sets="32"/>'), 3,
     "level L1: sets: 32 sets × 8 ways × 64 B is not size_kib 32 KiB"),
    (_levels_xml('<level name="L1" size_kib="32" policy="mostly"/>'), 3,
     "level L1: policy must be inclusive or exclusive or victim, got 'mostly'"),
    (_levels_xml('<level name="L1" size_kib="32" policy="victim"/>'), 3,
     "level L1: policy: victim describes a level relative to the one inside it"),
    (_levels_xml('<level name="L1" size_kib="32" write_allocate="sometimes"/>'), 3,
     "level L1: write_allocate must be true or false, got 'sometimes'"),
    (_levels_xml('<level name="L1" size_kib="32" duplex="simplex"/>'), 3,
     "level L1: duplex must be half or full"),
    (_levels_xml('<level name="L1" size_kib="32"/>', '<level name="memory" ways="8"/>'), 4,
     "level memory: ways: expected on a cache level only"),
    ('<machine>\n<prop key="ClockGHz" val="fast"/>\n</machine>', 2,
     "ClockGHz: 'fast' is not a number"),
    ('<machine>\n<prop key="ClockGHz" val="0"/>\n</machine>', 2, "ClockGHz must be positive"),
    ('<machine>\n<prop key="AddFlopsPerCycle" val="-1"/>\n</machine>', 2,
     "AddFlopsPerCycle must be non-negative"),
    ('<machine>\n<prop key="ClockGHz" val="2"/>\n<prop key="clockghz" val="3"/>\n</machine>', 3,
     "ClockGHz: given twice (also line 2)"),
])
def test_bad_levels_name_file_line_field_and_expectation(tmp_path, body, line, fragment):
    path = write(tmp_path, body)
    message = error_of(path)
    assert message.startswith(f"{path}:{line}: "), message
    assert fragment in message, message


# ------------------------------------------------------------------ Kerncraft's YAML files


def test_kerncraft_file_maps_as_documented():
    machine = load_machine(str(TOY))
    got = {name: value for name, (value, _) in machine.values.items()}
    # The numbers of the file's header comment, checked by hand:
    assert machine.name == "toy-victim-l3"
    assert machine.description == "Toy Victim 4-core (invented) (Kerncraft machine file)"
    assert got["Cores"] == 4  # cores per socket
    assert got["GflopsPerCore"] == 2.5 * 16  # clock 2.5 GHz × FLOPs per cycle DP total 16
    assert got["GBsPerCore"] == 31.5 / 4  # highest MEM "load" result / cores per socket
    assert got["CacheKB"] == 8192 / 4 + 512  # victim L3 share + L2: capacities add
    assert (got["LineBytes"], got["WordBytes"]) == (64, 8)
    assert (got["ReadCost"], got["ReadWriteCost"], got["WriteCost"]) == (8, 16, 16)
    l1, l2, l3, memory = machine.memory_levels
    assert (l1.name, l1.size_kib, l1.sets, l1.ways, l1.policy) == ("L1", 32, 64, 8, None)
    assert (l2.size_kib, l2.policy, l2.cycles_per_line, l2.duplex) == (512, "inclusive", 1, "half")
    assert (l3.size_kib, l3.shared_by_cores, l3.policy, l3.cycles_per_line, l3.duplex) == (
        8192, 4, "victim", 2, "full")  # 64 B / 32 B/cy = 2 cycles per line
    assert (l3.write_allocate, l3.transfers_overlap) == (False, True)
    assert (memory.name, memory.shared_by_cores, memory.bandwidth_gbs) == ("memory", 4, 31.5)
    assert machine.core.clock_ghz == 2.5
    assert (machine.core.add_flops_per_cycle, machine.core.mul_flops_per_cycle,
            machine.core.fma_flops_per_cycle) == (8, 8, 16)
    assert "load kernel" in machine.values["GBsPerCore"][1]


def test_kerncraft_unused_fields_are_listed_in_one_note():
    machine = load_machine(str(TOY))
    ignored = [note for note in machine.notes if "does not use" in note]
    assert len(ignored) == 1
    for name in ("kerncraft version", "sockets", "threads per core",
                 "overlapping model",
                 "performance counter metrics", "replacement_policy", "FLOPs per cycle: SP",
                 "upstream throughput of L1"):
        assert name in ignored[0], name
    # the compiler is read: its gcc flags (-O3, no -ffast-math) decide FastMath FALSE
    assert machine.core.fast_math == 0
    for used in ("clock,", "cores per socket", "memory hierarchy,", "benchmarks", "compiler"):
        assert f" {used}" not in ignored[0].split("ignored:")[1], used
    defaults = [note for note in machine.notes if "exascale node's values" in note]
    assert len(defaults) == 1 and "IntRegs 16" in defaults[0]
    assert machine.values["IntRegs"] == (16, "default")
    # the toy's in-core model (OSACA: TOY) names no micro-architecture of the port table
    (unknown,) = [note for note in machine.notes if "micro-architecture" in note]
    assert "TOY is not in satreport's table" in unknown
    assert len(machine.notes) == 3


def test_kerncraft_single_cache_file():
    machine = load_machine(str(ONE_CACHE))
    got = {name: value for name, (value, _) in machine.values.items()}
    assert machine.description == "Toy single-cache core (invented) (Kerncraft machine file)"
    assert got["GflopsPerCore"] == 1.5 * 4
    assert got["CacheKB"] == 16  # 16.00 kB of "size per group" is 16 KiB
    assert got["LineBytes"] == 32
    assert got["GBsPerCore"] == 6 * 1.5 / 2  # copy: (8 + 2·8) / (8 + 8) write-allocate factor
    l1, memory = machine.memory_levels
    assert (l1.size_kib, l1.line_bytes, l1.sets) == (16, 32, None)
    assert (memory.shared_by_cores, memory.duplex) == (2, None)  # cores per NUMA domain
    assert machine.core.fma_flops_per_cycle is None  # INFORMATION_REQUIRED: not given


def test_kerncraft_placeholder_flops_take_the_default_with_a_note(tmp_path):
    text = ONE_CACHE.read_text().replace("{total: 4,", "{total: INFORMATION_REQUIRED,")
    machine = load_machine(str(write(tmp_path, text, "m.yml")))
    assert machine.values["GflopsPerCore"] == (10, "default")
    assert any("GflopsPerCore 10" in note for note in machine.notes)


def test_kerncraft_sizes_disagreeing_are_noted(tmp_path):
    text = TOY.read_text().replace("size per group: 8.00 MB", "size per group: 4.00 MB")
    machine = load_machine(str(write(tmp_path, text, "m.yml")))
    assert machine.value("CacheKB") == 2560  # sets × ways × cl_size wins
    assert any("size per group 4096 KiB differs" in note for note in machine.notes)


def _toy(old: str, new: str) -> str:
    text = TOY.read_text()
    assert old in text, old
    return text.replace(old, new, 1)


def _line_of(text: str, fragment: str) -> int:
    return text[:text.index(fragment)].count("\n") + 1


BAD_YAML = {
    "clock-word": (lambda: _toy("clock: 2.5 GHz", "clock: fast"), "clock: fast",
                   "clock: expected the core clock, e.g. '2.7 GHz', got 'fast'"),
    "clock-unit": (lambda: _toy("clock: 2.5 GHz", "clock: 2.5 GB"), "clock: 2.5 GB",
                   "clock: expected the core clock"),
    "cores-missing": (lambda: _toy("cores per socket: 4\n", ""), "kerncraft version",
                      "cores per socket: missing: expected a positive whole number"),
    "cores-fraction": (lambda: _toy("cores per socket: 4", "cores per socket: 4.5"),
                       "cores per socket: 4.5", "cores per socket: expected a positive whole"),
    "flops-missing": (lambda: _toy("  DP: {total: 16, ADD: 8, MUL: 8, FMA: 16}\n", ""),
                      "FLOPs per cycle:", "FLOPs per cycle: DP: missing: expected a mapping"),
    "level-unknown": (lambda: _toy("- level: L2", "- level: LLC"), "- level: LLC",
                      "level: expected L1, L2, L3, … or MEM, got 'LLC'"),
    "level-order": (lambda: _toy("- level: L2", "- level: L4"), "- level: L4",
                    "level L4: out of order: expected L2 here"),
    "level-smaller": (lambda: _toy("sets: 1024", "sets: 16"), "- level: L2",
                      "level L2: size_kib: 8 KiB is smaller than L1's 32 KiB"),
    "sets-negative": (lambda: _toy("sets: 1024", "sets: -1024"), "sets: -1024",
                      "memory hierarchy L2: cache per group: sets: expected a positive whole "
                      "number, got -1024"),
    "sets-word": (lambda: _toy("sets: 1024", "sets: many"), "sets: many",
                  "cache per group: sets: expected a positive whole number, got 'many'"),
    "size-missing": (lambda: _toy("    sets: 1024\n", "").replace("  size per group: 512.00 kB\n",
                                                               ""), "- level: L2",
                     "memory hierarchy L2: size per group: missing: expected the cache size"),
    "sharing-missing": (lambda: _toy("  cores per group: 4\n  threads per group: 8\n  groups",
                                     "  threads per group: 8\n  groups"), "- level: L3",
                        "memory hierarchy L3: cores per group: missing: expected a positive"),
    "throughput": (lambda: _toy("[64 B/cy, half-duplex]", "[64 GB/s, half-duplex]"),
                   "[64 GB/s", "memory hierarchy L2: upstream throughput: expected a "
                   "throughput such as '32 B/cy'"),
    "duplex": (lambda: _toy("[64 B/cy, half-duplex]", "[64 B/cy, sideways]"), "sideways",
               "upstream throughput: expected half-duplex or full-duplex"),
    "flag": (lambda: _toy("transfers overlap: true", "transfers overlap: maybe"),
             "transfers overlap: maybe", "L3: transfers overlap: expected true or false"),
    "bandwidth-word": (lambda: _toy("load: [12.00 GB/s", "load: [lots"), "load: [lots",
                       "benchmarks: measurements: MEM: results: load: expected bandwidths "
                       "such as '45.1 GB/s', got 'lots'"),
    "benchmarks-missing": (lambda: TOY.read_text().split("benchmarks:")[0], "- level: MEM",
                           "benchmarks: missing: expected measured memory bandwidth"),
    "mem-first": (lambda: _toy("- level: L1\n", "- level: MEM\n  cores per group: 4\n"
                                                 "- level: L1\n"), "- level: MEM",
                  "level memory: out of order: the memory level comes last"),
    "duplicate-key": (lambda: _toy("clock: 2.5 GHz", "clock: 2.5 GHz\nclock: 3 GHz"),
                      "clock: 3 GHz", "clock: given twice (also line"),
    "syntax": (lambda: _toy("cores per socket: 4", "cores per socket: [4"), "threads per core",
               "malformed YAML: did not find expected ',' or ']' (while parsing a flow sequence "
               "that starts on line 22)"),
    "not-a-mapping": (lambda: "- 1\n- 2\n", "- 1", "expected a Kerncraft machine description"),
    "empty": (lambda: "", None, "empty document: expected a YAML machine file"),
    "python-tag": (lambda: _toy("clock: 2.5 GHz",
                                "clock: !!python/object/apply:os.system ['echo owned']"),
                   "clock: !!python", "python/object/apply:os.system: Python tags are not "
                   "allowed"),
    "python-name": (lambda: "clock: !!python/name:os.system\n", "clock",
                    "Python tags are not allowed"),
    "other-tag": (lambda: _toy("clock: 2.5 GHz", "clock: !custom 2.5 GHz"), "clock: !custom",
                  "!custom: unsupported YAML tag"),
    "merge-key": (lambda: "base: &b {x: 1}\nother:\n  <<: *b\n", "  <<",
                  "merge keys (<<) are not supported"),
    "recursive-alias": (lambda: "a: &x [1, *x]\n", "a:", "recursive alias"),
    "alias-bomb": (lambda: "a: &a [x, x, x, x, x, x, x, x, x, x]\n" + "".join(
        f"{n}: &{n} [{', '.join(['*' + p] * 10)}]\n" for p, n in zip("abcdef", "bcdefg",
                                                                      strict=True)),
                   None, "aliases expand to more than 100000 values"),
    "deep": (lambda: "a: " + "[" * 500 + "]" * 500 + "\n", None, "nested deeper than 100"),
    "control-character": (lambda: "clock: \x00\n", None, "malformed YAML"),
}


@pytest.mark.parametrize("kind", list(BAD_YAML))
def test_bad_kerncraft_files_give_one_line_with_file_line_field(tmp_path, kind):
    make, anchor, fragment = BAD_YAML[kind]
    text = make()
    path = write(tmp_path, text, "bad.yml")
    message = error_of(path)
    line = _line_of(text, anchor) if anchor else 1
    assert message.startswith(f"{path}:{line}: "), message
    assert fragment in message, message


def test_huge_and_binary_yaml_files_are_refused(tmp_path):
    huge = tmp_path / "huge.yml"
    huge.write_bytes(TOY.read_bytes() + b"# " + b"x" * (1 << 20) + b"\n")
    assert "file is larger than 1024 KiB" in error_of(huge)
    binary = tmp_path / "binary.yaml"
    binary.write_bytes(b"clock: \xff\xfe 2 GHz\n")
    assert error_of(binary) == f"{binary}:1: not UTF-8 text: expected a YAML machine file"


def test_python_tags_are_never_executed(tmp_path):
    marker = tmp_path / "executed"
    text = f"clock: !!python/object/apply:os.system ['touch {marker}']\n"
    assert "Python tags are not allowed" in error_of(write(tmp_path, text, "evil.yml"))
    assert not marker.exists()


def test_yaml_is_imported_only_for_yaml_machine_files():
    code = ("import sys; from sat.machine import load_machine; import sat.cli; "
            "load_machine('exascale'); assert 'yaml' not in sys.modules, 'eager'; "
            f"load_machine({str(TOY)!r}); assert 'yaml' in sys.modules")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          cwd=ROOT, timeout=60)
    assert done.returncode == 0, done.stderr


# ------------------------------------------------------------------ the command line


@pytest.mark.parametrize("machine", ["bad.yml", "bad.xml"])
def test_cli_bad_machine_file_exits_2_and_writes_nothing(tmp_path, capsys, monkeypatch,
                                                         machine):
    monkeypatch.chdir(tmp_path)
    if machine.endswith(".yml"):
        write(tmp_path, _toy("sets: 1024", "sets: 16"), machine)
    else:
        write(tmp_path, _levels_xml('<level name="L1" size_kib="32"/>',
                                    '<level name="L3" size_kib="256"/>'), machine)
    (tmp_path / "lap.f90").write_bytes(LAP.read_bytes())
    status = main(["lap.f90", "-m", machine, "-o", "out.xlsx", "--json", "out.json",
                   "--xml", "out.xml", "--html", "out.html"])
    err = capsys.readouterr().err
    assert status == 2
    errors = [line for line in err.splitlines() if line.startswith("satreport: error:")]
    assert len(errors) == 1 and f"{machine}:" in errors[0] and "expected" in errors[0]
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(["lap.f90", machine])


def test_cli_runs_with_a_kerncraft_machine_file(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    status = main([str(LAP), "-m", str(TOY), "--json", "-"])
    out = capsys.readouterr().out
    assert status == 0
    data = json.loads(out)
    assert data["machine"]["name"] == "toy-victim-l3"
    notes = " ".join(note["message"] for note in data["notes"])
    assert "Kerncraft fields satreport does not use" in notes
