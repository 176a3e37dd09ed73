"""Machine files: ExaSAT's format, satreport's format, the built-ins, errors."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from sat.machine import (
    MACHINE_PARAMETERS,
    MachineError,
    list_machines,
    load_machine,
)
from sat.parameters import build_parameters, validate
from sat.resources import machines_dir

DATA = Path(__file__).parent / "data" / "exasat"
REFERENCE_MACHINE = DATA / "config" / "machine.xml"

# The parameter block at the top of ExaSAT's reference sheet (tsv/hypterm.values.tsv).
REFERENCE_VALUES = {
    "Cores": 1024, "GBsPerCore": 1, "GflopsPerCore": 10, "IntRegs": 16, "FPRegs": 16,
    "CacheKB": 1024, "WordBytes": 8, "LineBytes": 64,
    "ReadCost": 8,        # ld_sf 1 × 8 B
    "ReadWriteCost": 16,  # ls_sf 2 × 8 B
    "WriteCost": 16,      # st_sf 2 × 8 B
    "DivCost": 39, "SpecialCost": 125, "NICGBs": 100, "NICLatencyUs": 0.4, "Overlap": 1,
}
SHEET_LABELS = {
    "Threads": "Cores", "GB/s/thread": "GBsPerCore", "Gflop/s/thread": "GflopsPerCore",
    "Int Regs/thread": "IntRegs", "FP Regs/thread": "FPRegs", "$/thread group (kB)": "CacheKB",
    "Word Size": "WordBytes", "Cache Line Size": "LineBytes", "R cost": "ReadCost",
    "RW cost": "ReadWriteCost", "W cost": "WriteCost", "Division Cost": "DivCost",
    "Special Cost": "SpecialCost", "NIC BW (GB/s)": "NICGBs", "NIC Latency (us)": "NICLatencyUs",
    "CPU/DRAM Overlap": "Overlap",
}


def write(tmp_path: Path, text: str, name: str = "m.xml") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def values(machine) -> dict[str, float]:
    return {name: value for name, (value, _source) in machine.values.items()}


# ------------------------------------------------------------------ ExaSAT's machine.xml


def test_reference_machine_xml_gives_the_reference_sheet_values():
    machine = load_machine(str(REFERENCE_MACHINE))
    assert values(machine) == pytest.approx(REFERENCE_VALUES)
    assert list(machine.values) == list(MACHINE_PARAMETERS)  # sheet order
    assert machine.values["Cores"][1] == f"machine file {REFERENCE_MACHINE}"
    assert "ld_sf 1 × word 8 B" in machine.values["ReadCost"][1]
    # machine.xml has no overlap key: the default (1) is taken and said.
    assert machine.values["Overlap"] == (1, "default")
    assert any("Overlap" in note for note in machine.notes)


def test_reference_values_match_the_sheet_itself():
    """The same numbers, read from the sheet's Parameters block rather than typed by hand."""
    sheet = {}
    for row in (DATA / "tsv" / "hypterm.values.tsv").read_text().splitlines()[1:28]:
        label, value = row.split("\t")[:2]
        if label in SHEET_LABELS:
            sheet[SHEET_LABELS[label]] = float(value)
    assert len(sheet) == len(SHEET_LABELS)
    machine = values(load_machine(str(REFERENCE_MACHINE)))
    assert {name: machine[name] for name in sheet} == pytest.approx(sheet)


def test_builtin_exasat_reference_has_the_same_numbers():
    assert values(load_machine("exasat-reference")) == pytest.approx(REFERENCE_VALUES)


def test_listing1_keys(tmp_path):
    path = write(tmp_path, """<machine>
    <prop key="Cores" val="1000" />
    <prop key="Gflop/s/core" val="10" />
    <prop key="GB/s/core" val="1" />
    <prop key="Cache/core (kB)" val="64" />
    <prop key="Division Cost" val="39" />
    <prop key="Transcendental Cost" val="125" />
    <prop key="NIC BW (GB/s)" val="100" />
    <prop key="DRAM size (GB)" val="512" />
    </machine>""")
    machine = load_machine(str(path))
    got = values(machine)
    assert (got["Cores"], got["GflopsPerCore"], got["GBsPerCore"], got["CacheKB"]) == (
        1000, 10, 1, 64)
    assert (got["DivCost"], got["SpecialCost"], got["NICGBs"]) == (39, 125, 100)
    assert machine.values["LineBytes"] == (64, "default")
    assert any("'DRAM size (GB)' ignored" in note and ":9:" in note for note in machine.notes)


def test_scale_factors_use_the_word_size(tmp_path):
    # single precision: ReadCost = 1 × 4, ReadWriteCost = 2 × 4, WriteCost = 3 × 4
    path = write(tmp_path, """<machine>
    <prop key="st_sf" val="3"/><prop key="ld_sf" val="1"/><prop key="ls_sf" val="2"/>
    <prop key="double_byte_n" val="4"/>
    </machine>""")
    got = values(load_machine(str(path)))
    assert (got["ReadCost"], got["ReadWriteCost"], got["WriteCost"]) == (4, 8, 12)


# ------------------------------------------------------------------ satreport's format


def test_own_format_with_sources_and_memory_levels(tmp_path):
    path = write(tmp_path, """<?xml version="1.0"?>
<machine name="toy" description="A toy   machine">
  <!-- a comment -->
  <prop key="Cores" val="4" source="datasheet p. 3"/>
  <prop key="LineBytes" val="128"/>
  <memory>
    <level name="L1" size_kib="48" shared_by_cores="1" bandwidth_gbs="100" source="manual"/>
    <level name="memory" line_bytes="64" shared_by_cores="4" bandwidth_gbs="80"/>
  </memory>
</machine>""")
    machine = load_machine(str(path))
    assert (machine.name, machine.description) == ("toy", "A toy machine")
    assert machine.values["Cores"] == (4, f"machine file {path} (datasheet p. 3)")
    l1, memory = machine.memory_levels
    assert (l1.name, l1.size_kib, l1.line_bytes, l1.shared_by_cores, l1.bandwidth_gbs) == (
        "L1", 48, 128, 1, 100)  # line size defaults to the machine's LineBytes
    assert l1.source == "manual"
    assert (memory.size_kib, memory.line_bytes, memory.shared_by_cores) == (None, 64, 4)


def test_default_machine_is_the_exascale_node_of_listing1():
    machine = load_machine(None)
    got = values(machine)
    assert machine.name == "exascale"
    assert machine.source == "machines/exascale.xml"
    assert (got["Cores"], got["GflopsPerCore"], got["GBsPerCore"], got["CacheKB"]) == (
        1000, 10, 1, 64)
    assert (got["DivCost"], got["SpecialCost"], got["NICGBs"]) == (39, 125, 100)
    # 10 Tflop/s and 1 TB/s aggregate, as section 3.2.1 of the paper says
    assert got["Cores"] * got["GflopsPerCore"] == 10_000
    assert got["Cores"] * got["GBsPerCore"] == 1000
    assert "Listing 1" in machine.values["Cores"][1]


BUILTINS = ["epyc-9654", "exasat-reference", "exascale", "grace-superchip", "xeon-8480plus",
            "xeon-e5-2680"]


def test_list_machines_names_every_builtin():
    listed = dict(list_machines())
    assert sorted(listed) == BUILTINS
    assert all(description and not description.startswith("(unusable")
               for description in listed.values())


@pytest.mark.parametrize("name", BUILTINS)
def test_every_builtin_loads_validates_and_cites_its_numbers(name):
    machine = load_machine(name)
    assert machine.name == name
    assert machine.notes == []  # every parameter given, no unknown key
    for parameter, (_value, source) in machine.values.items():
        assert re.fullmatch(rf"machine file machines/{name}\.xml \(.+\).*", source), parameter
    assert machine.memory_levels and machine.memory_levels[-1].name == "memory"
    assert all(level.source for level in machine.memory_levels)
    # the memory level's bandwidth is what GBsPerCore shares out among the cores that share it
    # (all of them, or those of one CPU of a two-CPU module such as Grace)
    memory = machine.memory_levels[-1]
    assert memory.shared_by_cores <= machine.value("Cores")
    assert machine.value("Cores") % memory.shared_by_cores == 0
    assert memory.bandwidth_gbs == pytest.approx(memory.shared_by_cores
                                                 * machine.value("GBsPerCore"))
    validate(build_parameters(machine))


def test_xeon_e5_2680_per_core_figures():
    got = values(load_machine("xeon-e5-2680"))
    assert got["Cores"] == 8
    assert got["GflopsPerCore"] == pytest.approx(2.7 * 8)  # 2.7 GHz × 8 DP flop/cycle = 21.6
    assert got["GBsPerCore"] == pytest.approx(51.2 / 8)  # 4 × 1600 MT/s × 8 B / 8 cores = 6.4
    assert got["CacheKB"] == 20 * 1024 / 8  # 20 MiB L3 / 8 cores = 2560 KiB
    assert (got["IntRegs"], got["FPRegs"], got["LineBytes"]) == (16, 16, 64)
    assert (got["DivCost"], got["SpecialCost"]) == (39, 125)  # paper, Table 2


def test_epyc_9654_per_core_figures():
    machine = load_machine("epyc-9654")
    got = values(machine)
    assert got["Cores"] == 96
    assert got["GflopsPerCore"] == pytest.approx(2.4 * 16)  # 2 FMA × 4 lanes × 2 flops = 16
    assert got["GBsPerCore"] == pytest.approx(12 * 4.8 * 8 / 96)  # 460.8 GB/s / 96 = 4.8
    assert got["CacheKB"] == 1024 + 32 * 1024 / 8  # L2 1 MiB + 32 MiB L3 / 8 cores = 5120
    assert got["FPRegs"] == 32
    l3 = next(level for level in machine.memory_levels if level.name == "L3")
    assert l3.size_kib * 12 == 384 * 1024  # 12 dies × 32 MiB = 384 MiB


# ------------------------------------------------------------------ errors


def error_of(path_or_name: str) -> str:
    with pytest.raises(MachineError) as info:
        load_machine(path_or_name)
    message = str(info.value)
    assert "\n" not in message
    return message


def test_missing_file_and_unknown_builtin():
    assert error_of("no/such/file.xml").startswith("no/such/file.xml: no such machine file")
    message = error_of("nosuchmachine")
    assert message.startswith("nosuchmachine: ") and "exascale" in message


@pytest.mark.parametrize("body, line, fragment", [
    ('<machine>\n<prop key="core_n" val="8">\n</machine>', 3, "malformed XML"),
    ('<machine>\n<prop key="core_n" val="eight"/>\n</machine>', 2, "'eight' is not a number"),
    ('<machine>\n\n<prop key="core_n" val="0"/>\n</machine>', 3, "must be positive"),
    ('<machine>\n<prop key="CacheKB" val="-64"/>\n</machine>', 2, "must be positive"),
    ('<machine>\n<prop key="core_n"/>\n</machine>', 2, "no value"),
    ('<machine>\n<prop key="core_n" val=" "/>\n</machine>', 2, "no value"),
    ('<machine>\n<prop val="3"/>\n</machine>', 2, "without a key"),
    ('<machine>\n<prop key="nic_bw_gbs" val="nan"/>\n</machine>', 2, "not a number"),
    ('<machine>\n<prop key="core_int_reg_n" val="-1"/>\n</machine>', 2, "must not be negative"),
    ('<machine>\n<prop key="FPRegs" val="15.5"/>\n</machine>', 2, "whole number"),
    ('<machine>\n<prop key="Overlap" val="2"/>\n</machine>', 2, "must be 0 or 1"),
    ('<machine>\n<prop key="ld_sf" val="-1"/>\n</machine>', 2, "must not be negative"),
    ('<machine>\n<prop key="core_n" val="8"/>\n<prop key="Cores" val="8"/>\n</machine>', 3,
     "Cores is given twice (also line 2)"),
    ('<machine>\n<prop key="ld_sf" val="1"/>\n<prop key="ReadCost" val="8"/>\n</machine>', 3,
     "ReadCost is given twice (also line 2)"),
    ('<params>\n<prop key="core_n" val="8"/>\n</params>', 1, "expected a <machine> root"),
    ('<machine>\n<cpu/>\n</machine>', 2, "unexpected <cpu>"),
    ('<machine>\n<memory>\n<level name="L1" size_kib="0"/>\n</memory>\n</machine>', 3,
     "size_kib must be a positive number"),
    ('<machine>\n<memory>\n<level name="L1" size="32"/>\n</memory>\n</machine>', 3,
     "unknown attribute 'size'"),
    ('<machine>\n<memory>\n<level size_kib="32"/>\n</memory>\n</machine>', 3, "without a name"),
    ('<?xml version="1.0"?>\n<!DOCTYPE machine [<!ENTITY n "1024">]>\n'
     '<machine><prop key="core_n" val="&n;"/></machine>', 2, "DOCTYPE"),
])
def test_bad_machine_files_name_file_and_line(tmp_path, body, line, fragment):
    path = write(tmp_path, body)
    message = error_of(str(path))
    assert message.startswith(f"{path}:{line}: "), message
    assert fragment in message


def test_builtins_live_in_the_top_level_machines_folder():
    # An editable install maps the data package sat.machines onto the repository's machines/.
    top_level = Path(__file__).resolve().parent.parent / "machines"
    assert machines_dir().resolve() == top_level.resolve()
    assert (machines_dir() / "README.md").is_file()
