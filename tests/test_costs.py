"""Costs: power, energy, price, die area and rack space, checked against numbers worked out by
hand.

The kernel is the STREAM triad, a(i) = b(i) + s*c(i), over n = 10^7 elements on one socket of
the Xeon E5-2680 (8 cores, 21.6 Gflop/s and 6.4 GB/s per core; TDP 130 W, price 1,723 USD):

- work: 2 flops per iteration (1 add, 1 multiply) -> 0.02 Gflop, weighted the same;
- memory traffic: 32 B per iteration (b and c read, 8 B each; a written, 16 B: its line is read
  for ownership, then written back) -> 0.32 GB, the same over the L1-L2 and L2-L3 links (no
  reuse: every access moves its line);
- time: DRAM 0.32 GB / 51.2 GB/s = 6.25 ms; CPU 0.02 / 172.8 = 0.116 ms; time 6.25 ms.

The defaults derived from the TDP:

- StaticPowerW = 0.3 × 130 W = 39 W;
- FlopEnergyPJ = 0.5 × (130 − 39) W / (8 × 21.6 Gflop/s) × 1000 = 45.5 / 172.8 × 1000
  = 263.31 pJ per flop;
- MemByteEnergyPJ = 0.5 × 91 W / (8 × 6.4 GB/s) × 1000 = 45.5 / 51.2 × 1000 = 888.67 pJ/B;
- L1ByteEnergyPJ = L2ByteEnergyPJ = 888.67 / 10 = 88.867 pJ/B (no L3ByteEnergyPJ: the L3's link
  is memory's).

So the nest's energy is
  static 39 W × 6.25 ms                   = 0.24375 J
  flops  263.31 pJ × 0.02 × 10^9          = 0.0052662 J
  memory 888.67 pJ × 0.32 × 10^9 B        = 0.284375 J
  caches 2 × 88.867 pJ × 0.32 × 10^9 B    = 0.056875 J
  total                                   = 0.5902662 J,
and its power 0.5902662 J / 6.25 ms = 94.44 W (39 W static + 0.84 W flops + 45.5 W memory at
its peak bandwidth + 9.1 W caches).
"""

from __future__ import annotations

import json
import math
import re
from pathlib import Path

import openpyxl
import pytest

from sat.cli import main
from sat.machine import MachineError, load_machine
from sat.parameters import ParameterError, build_parameters
from sat.parameters.costs import COST_PARAMETERS

ROOT = Path(__file__).resolve().parent.parent
TRIAD = ROOT / "examples" / "triad.f90"
XEON = ["-m", "xeon-e5-2680", "--set", "n=10000000"]
YAML_MACHINE = ROOT / "tests" / "data" / "machines" / "toy-victim-l3.yml"

TIME = 0.32 / 51.2  # s, DRAM-bound
STATIC_W = 0.3 * 130
FLOP_PJ = 0.5 * (130 - 39) / (8 * 21.6) * 1000
MEM_PJ = 0.5 * (130 - 39) / (8 * 6.4) * 1000
ENERGY = 39 * TIME + FLOP_PJ * 0.02e-3 + MEM_PJ * 0.32e-3 + 2 * MEM_PJ / 10 * 0.32e-3


def run_json(capsys, *argv: str) -> dict:
    status = main([str(TRIAD), *argv, "--json", "-", "-q"])
    out, err = capsys.readouterr()
    assert status == 0, err
    return json.loads(out)


def error_of(capsys, *argv: str) -> str:
    status = main([str(TRIAD), *argv, "--json", "-"])
    out, err = capsys.readouterr()
    assert status == 2 and out == ""
    lines = [line for line in err.splitlines() if line.strip()]
    assert len(lines) == 1 and "Traceback" not in err, err
    return lines[0]


def parameters(data: dict) -> dict[str, dict]:
    return {p["name"]: p for p in data["parameters"]}


# ------------------------------------------------------------------ parameters


def test_the_defaults_derive_from_the_tdp():
    machine = load_machine("xeon-e5-2680")
    assert machine.costs["TDPW"][0] == 130 and "Intel ARK" in machine.costs["TDPW"][1]
    params = build_parameters(machine)
    assert "TDPW" not in params  # a machine-file figure the defaults come from, no parameter
    assert params["ProcessorPriceUSD"].value == 1723
    assert params["StaticPowerW"].value == pytest.approx(39)
    assert params["StaticPowerW"].source.startswith("assumed: 30 % of the TDP 130 W")
    assert params["FlopEnergyPJ"].value == pytest.approx(263.3101852)  # 45.5 / 172.8 × 1000
    assert params["MemByteEnergyPJ"].value == pytest.approx(888.671875)  # 45.5 / 51.2 × 1000
    # the source shows the arithmetic
    assert "0.5 × (TDP 130 W − 39 W) / (8 cores × 6.4 GB/s) × 1000" in \
        params["MemByteEnergyPJ"].source
    assert not params["MemByteEnergyPJ"].formula  # a plain value (see test below)
    assert params["L1ByteEnergyPJ"].formula == "MemByteEnergyPJ / 10.0"
    for level in ("L1", "L2"):
        assert params[f"{level}ByteEnergyPJ"].value == pytest.approx(88.8671875)
        assert "Horowitz" in params[f"{level}ByteEnergyPJ"].source
    assert "L3ByteEnergyPJ" not in params  # the last cache's link is memory's
    assert (params["Nodes"].value, params["Nodes"].kind) == (1, "integer")
    assert (params["MemoryGiB"].value, params["MemoryPriceUSDPerGiB"].value) == (64, 3)
    assert (params["CoreAreaMM2"].value, params["CacheAreaMM2PerMiB"].value) == (5, 1.5)
    assert params["RackUnitsPerNode"].source == "assumed: one node per 1U server"
    # every cost parameter has a unit and a sentence
    for name in COST_PARAMETERS:
        assert params[name].unit and params[name].label.endswith("."), name
        assert params[name].group == "machine"


def test_the_builtins_cite_their_tdp_and_price():
    expected = {"xeon-e5-2680": (130, 1723), "epyc-9654": (360, 11805),
                "xeon-8480plus": (350, 10710), "grace-superchip": (500, 0),
                "exascale": (200, 0)}
    for name, (tdp, price) in expected.items():
        machine = load_machine(name)
        value, source = machine.costs["TDPW"]
        assert value == tdp and source.startswith(f"machine file machines/{name}.xml ("), name
        params = build_parameters(machine)
        assert params["StaticPowerW"].value == pytest.approx(0.3 * tdp), name
        assert params["ProcessorPriceUSD"].value == price, name
    grace = build_parameters(load_machine("grace-superchip"))
    assert grace["ProcessorPriceUSD"].source == "not published: give it with --set"
    # the exascale node: 0.5 × (200 − 60) W / (1000 × 10 Gflop/s) × 1000 = 7 pJ per flop,
    # / (1000 × 1 GB/s) = 70 pJ/B; one on-chip cache: no per-level energy
    exascale = build_parameters(load_machine("exascale"))
    assert (exascale["FlopEnergyPJ"].value, exascale["MemByteEnergyPJ"].value) == (7, 70)
    assert not any(name.endswith("ByteEnergyPJ") and name != "MemByteEnergyPJ"
                   for name in exascale.parameters)


def test_a_kerncraft_machine_takes_the_defaults():
    params = build_parameters(load_machine(str(YAML_MACHINE)))
    # 4 cores × 40 Gflop/s, 31.5 GB/s: 0.5 × 140 W / 160 × 1000 = 437.5 pJ per flop,
    # 70 / 31.5 × 1000 = 2222.2 pJ/B, a tenth of that per byte between caches
    assert "TDP 200 W (assumed)" in params["StaticPowerW"].source
    assert params["FlopEnergyPJ"].value == pytest.approx(437.5)
    assert params["MemByteEnergyPJ"].value == pytest.approx(70 / 31.5 * 1000)
    assert params["L2ByteEnergyPJ"].value == pytest.approx(7 / 31.5 * 1000)


def test_the_defaults_are_the_machine_files_and_set_moves_only_the_live_ones(tmp_path, capsys):
    # --set Cores (like an edit of Cores in the workbook) leaves the energies per flop and per
    # memory byte as derived from the machine file (a property of the technology)
    data = parameters(run_json(capsys, *XEON, "--set", "Cores=16"))
    assert data["FlopEnergyPJ"]["value"] == pytest.approx(FLOP_PJ)
    assert "derived_from" not in data["FlopEnergyPJ"]
    # the cache-to-cache energies follow MemByteEnergyPJ: 500 / 10 = 50 pJ/B
    data = parameters(run_json(capsys, *XEON, "--set", "MemByteEnergyPJ=500"))
    assert data["L2ByteEnergyPJ"]["value"] == 50
    assert data["L2ByteEnergyPJ"]["derived_from"] == ["MemByteEnergyPJ"]
    # unless given: then it stays
    data = parameters(run_json(capsys, *XEON, "--set", "MemByteEnergyPJ=500", "--set",
                               "L2ByteEnergyPJ=20"))
    assert data["L2ByteEnergyPJ"]["value"] == 20 and "derived_from" not in data["L2ByteEnergyPJ"]
    # values the machine file gives are used in deriving the others: 0.5 × (260 − 30) W
    # / 172.8 Gflop/s × 1000 = 665.5 pJ; memory given, a tenth of it between caches
    xml = (ROOT / "machines" / "xeon-e5-2680.xml").read_text()
    xml = re.sub(r'<prop key="TDPW"[^>]*/>', '<prop key="TDPW" val="260"/>\n  <prop '
                 'key="StaticPowerW" val="30"/>\n  <prop key="MemByteEnergyPJ" val="100"/>', xml)
    path = tmp_path / "machine.xml"
    path.write_text(xml)
    params = build_parameters(load_machine(str(path)))
    assert params["StaticPowerW"].value == 30
    assert params["FlopEnergyPJ"].value == pytest.approx(0.5 * 230 / 172.8 * 1000)
    assert params["MemByteEnergyPJ"].value == 100
    assert params["L2ByteEnergyPJ"].value == pytest.approx(10)


@pytest.mark.parametrize("setting, fragment", [
    ("Nodes=0", "Nodes = 0 (--set) must be positive"),
    ("Nodes=2.5", "Nodes = 2.5 (--set) must be a whole number"),
    ("MemoryGiB=-1", "MemoryGiB = -1 (--set) must not be negative"),
    ("L1ByteEnergyPJ=-3", "L1ByteEnergyPJ = -3 (--set) must not be negative"),
])
def test_bad_cost_values_are_refused(setting, fragment):
    with pytest.raises(ParameterError, match=fragment.replace("(", r"\(").replace(")", r"\)")):
        build_parameters(load_machine("xeon-e5-2680"), sets=[setting])


# ------------------------------------------------------------------ machine files


def machine_file(tmp_path: Path, props: str, levels: bool = True) -> Path:
    memory = """
  <memory>
    <level name="L1" size_kib="32" bandwidth_gbs="100" source="test"/>
    <level name="L2" size_kib="1024" bandwidth_gbs="50" source="test"/>
    <level name="memory" shared_by_cores="4" bandwidth_gbs="40" source="test"/>
  </memory>""" if levels else ""
    path = tmp_path / "m.xml"
    path.write_text(f"""<machine name="m" description="test machine">
  <prop key="Cores" val="4" source="test"/>
  <prop key="GflopsPerCore" val="16" source="test"/>
  <prop key="GBsPerCore" val="10" source="test"/>
{props}{memory}
</machine>
""")
    return path


def test_a_machine_file_gives_costs_case_insensitively(tmp_path):
    path = machine_file(tmp_path, '  <prop key="tdpw" val="100" source="datasheet"/>\n'
                                  '  <prop key="l1byteenergypj" val="5" source="paper"/>\n'
                                  '  <prop key="Nodes" val="16" source="the system"/>\n')
    machine = load_machine(str(path))
    assert machine.costs["TDPW"] == (100, f"machine file {path} (datasheet)")
    assert machine.costs["L1ByteEnergyPJ"][0] == 5
    assert not any("ignored" in note for note in machine.notes)
    params = build_parameters(machine)
    assert params["L1ByteEnergyPJ"].value == 5 and "paper" in params["L1ByteEnergyPJ"].source
    assert params["Nodes"].value == 16
    assert params["StaticPowerW"].value == 30  # 0.3 × 100 W
    names = list(params.parameters)  # the level's energy follows memory's
    at = names.index("MemByteEnergyPJ")
    assert names[at:at + 3] == ["MemByteEnergyPJ", "L1ByteEnergyPJ", "ProcessorPriceUSD"]


@pytest.mark.parametrize("props, message", [
    ('<prop key="TDPW" val="100"/>\n  <prop key="tdpw" val="120"/>',
     ":6: tdpw: TDPW is given twice (also line 5)"),
    ('<prop key="MemoryPriceUSDPerGiB" val="-3"/>',
     ":5: MemoryPriceUSDPerGiB (MemoryPriceUSDPerGiB) must not be negative, got -3"),
    ('<prop key="Nodes" val="1.5"/>', ":5: Nodes (Nodes) must be a whole number, got 1.5"),
    ('<prop key="Nodes" val="0"/>', ":5: Nodes (Nodes) must be positive, got 0"),
    ('<prop key="L2ByteEnergyPJ" val="3"/>',
     ":5: L2ByteEnergyPJ: no link from L2 to a further cache level"),
])
def test_bad_cost_keys_stop_at_their_line(tmp_path, props, message):
    path = machine_file(tmp_path, "  " + props + "\n")
    with pytest.raises(MachineError) as error:
        load_machine(str(path))
    assert str(error.value).startswith(f"{path}{message}")


def test_a_level_energy_needs_several_cache_levels(tmp_path):
    path = machine_file(tmp_path, '  <prop key="L1ByteEnergyPJ" val="3"/>\n', levels=False)
    with pytest.raises(MachineError, match="fewer than two cache levels"):
        load_machine(str(path))


# ------------------------------------------------------------------ results


def test_the_energy_of_a_nest_is_its_parts(capsys):
    data = run_json(capsys, *XEON)
    (loop,) = data["loops"]
    costs = loop["costs"]
    # the model's own time and traffic, as worked out above
    assert loop["time_s"] == pytest.approx(TIME) == costs["time_s"]
    assert loop["traffic_gb"] == pytest.approx(0.32)
    assert loop["weighted_gflops"] == pytest.approx(0.02)
    assert [level["traffic_gb"] for level in loop["levels"]] == pytest.approx([0.32] * 3)
    # the composition, from the result's numbers
    assert costs["static_energy_j"] == pytest.approx(STATIC_W * loop["time_s"])
    assert costs["flop_energy_j"] == pytest.approx(FLOP_PJ * 1e-12 * loop["weighted_gflops"]
                                                   * 1e9)
    assert costs["memory_energy_j"] == pytest.approx(MEM_PJ * 1e-12 * loop["traffic_gb"] * 1e9)
    l1, l2, _l3 = loop["levels"]
    assert costs["cache_energy_j"] == pytest.approx(
        MEM_PJ / 10 * 1e-12 * (l1["traffic_gb"] + l2["traffic_gb"]) * 1e9)
    assert costs["energy_j"] == pytest.approx(
        costs["static_energy_j"] + costs["flop_energy_j"] + costs["memory_energy_j"]
        + costs["cache_energy_j"])
    # and the numbers by hand
    assert costs["energy_j"] == pytest.approx(ENERGY) == pytest.approx(0.5902662, rel=1e-6)
    assert costs["power_w"] == pytest.approx(94.4426, rel=1e-5)


def test_the_program_totals(capsys):
    totals = run_json(capsys, *XEON)["totals"]
    assert totals["energy_j"] == pytest.approx(ENERGY)
    assert totals["power_w"] == pytest.approx(ENERGY / TIME)
    assert totals["price_usd"] == 1915  # 1723 + 64 GiB × 3 USD
    assert totals["peak_gflops"] == pytest.approx(172.8)  # 8 × 21.6
    # 39 W + 263.31 pJ × 172.8 Gflop/s + 888.67 pJ × 51.2 GB/s = 39 + 45.5 + 45.5 W: the TDP
    assert totals["peak_power_w"] == pytest.approx(130)
    # 8 × 5 mm² + 8 × (32 + 256 + 2560 KiB) / 1024 × 1.5 mm² = 40 + 22.25 × 1.5 = 73.375 mm²
    assert totals["die_area_mm2"] == pytest.approx(73.375)
    assert totals["rack_units"] == 1
    assert totals["memory_bandwidth_gbs"] == pytest.approx(51.2)


def test_nodes_scale_the_system_not_the_run(capsys):
    totals = run_json(capsys, *XEON, "--set", "Nodes=4", "--set", "ProcessorPriceUSD=2000",
                      "--set", "RackUnitsPerNode=2")["totals"]
    assert totals["price_usd"] == 4 * (2000 + 64 * 3)
    assert totals["peak_gflops"] == pytest.approx(4 * 172.8)
    assert totals["peak_power_w"] == pytest.approx(4 * 130)
    assert totals["rack_units"] == 8
    assert totals["memory_bandwidth_gbs"] == pytest.approx(4 * 51.2)
    assert totals["energy_j"] == pytest.approx(ENERGY)  # the run uses one node
    assert totals["die_area_mm2"] == pytest.approx(73.375)  # one node's chip


def test_set_static_power_changes_the_energy(capsys):
    totals = run_json(capsys, *XEON, "--set", "StaticPowerW=78")["totals"]
    # the static part doubles, the rest stays (39 W -> 78 W)
    single = run_json(capsys, *XEON)["totals"]
    assert totals["energy_j"] - single["energy_j"] == pytest.approx(39 * single["time_s"])
    assert totals["peak_power_w"] == pytest.approx(130 + 39)


def test_a_one_cache_machine_has_no_cache_energy(capsys):
    data = run_json(capsys, "-m", "exascale", "--set", "n=10000000")
    (loop,) = data["loops"]
    assert "cache_energy_j" not in loop["costs"]
    # 0.32 GB at 1000 GB/s: 0.32 ms; 60 W × 0.32 ms + 7 pJ × 0.02 Gflop + 70 pJ × 0.32 GB
    assert loop["costs"]["energy_j"] == pytest.approx(60 * 3.2e-4 + 7e-3 * 0.02 + 70e-3 * 0.32)
    # 1000 × 5 mm² + 1000 × 64 KiB / 1024 × 1.5 mm²
    assert data["totals"]["die_area_mm2"] == pytest.approx(5000 + 93.75)
    assert data["totals"]["peak_power_w"] == pytest.approx(200)


def test_the_workbook_html_and_notes_carry_the_costs(capsys, tmp_path):
    book, page, out = tmp_path / "t.xlsx", tmp_path / "t.html", tmp_path / "t.json"
    status = main([str(TRIAD), *XEON, "-q", "-o", str(book), "--html", str(page),
                   "--json", str(out)])
    assert status == 0, capsys.readouterr().err
    data = json.loads(out.read_text())
    # the JSON points at the cells
    assert data["totals"]["cells"]["energy_j"].startswith("Costs!")
    assert data["totals"]["cells"]["price_usd"].startswith("Summary!")
    assert data["loops"][0]["costs"]["cells"]["energy_j"].startswith("Costs!")
    assert data["loops"][0]["costs"]["cells"]["time_s"].startswith("Loops!")
    workbook = openpyxl.load_workbook(book)
    assert "Costs" in workbook.sheetnames
    costs = workbook["Costs"]
    assert [c.value for c in costs[4]] == ["Procedure", "File", "Line", "Time (s)", "Static (J)",
                                           "Flops (J)", "Memory (J)", "Caches (J)", "Total (J)",
                                           "Power (W)"]
    assert costs["E4"].comment.text.startswith("StaticPowerW × time")
    names = set(workbook.defined_names.keys())
    assert {"Energy_J", "Power_W", "Price_USD", "Peak_GFlops", "Peak_Power_W", "Die_Area_mm2",
            "Rack_Units", "Memory_Bandwidth_GBs", "L2ByteEnergyPJ"} <= names
    summary = workbook["Summary"]
    rows = {row[0].value: (row[1].value, row[2].value)
            for row in summary.iter_rows(min_row=16, max_col=3) if row[0].value}
    assert rows["Energy of the run on one node (Costs sheet)"] == ("=Energy_J", "J")
    assert rows["Price of the system: Nodes × (processors + memory)"][1] == "USD"
    html = page.read_text()
    for key, text in (("energy_j", "J"), ("power_w", "W"), ("price_usd", "1,915 USD")):
        assert f'data-key="{key}"' in html and text in html
    assert 'data-key="power_w" data-v="' + repr(data["totals"]["power_w"]) in html
    notes = [n["message"] for n in data["notes"]]
    assert any(n.startswith("Costs sheet: the energy of a nest") and "approximation" in n
               for n in notes)
    # the cost parameters the machine assumes are not "parameters that differ from the
    # defaults"
    changed = html[html.index('id="changed-parameters"'):] if 'id="changed-parameters"' in html \
        else ""
    assert "StaticPowerW" not in changed.split("</table>")[0]


@pytest.mark.libreoffice
def test_the_recalculated_workbook_agrees_with_the_cli(capsys, tmp_path):
    from libreoffice import recalculate_edited

    book = tmp_path / "base.xlsx"
    assert main([str(TRIAD), *XEON, "-q", "-o", str(book)]) == 0
    # values no default derives from (--set StaticPowerW would move FlopEnergyPJ too, a cell
    # edit cannot; L1ByteEnergyPJ is a derived default, typed over as --set gives it)
    edits = {"FlopEnergyPJ": 100, "L1ByteEnergyPJ": 20, "Nodes": 3, "MemoryGiB": 256,
             "CoreAreaMM2": 7}
    values = recalculate_edited(book, edits, tmp_path / "edit")

    def total(name: str) -> float:
        sheet, cell = next(iter(values.defined_names[name].destinations))
        return values[sheet][cell.replace("$", "")].value

    sets = [item for name, value in edits.items() for item in ("--set", f"{name}={value}")]
    want = run_json(capsys, *XEON, *sets)["totals"]
    for name, key in (("Energy_J", "energy_j"), ("Power_W", "power_w"),
                      ("Price_USD", "price_usd"), ("Peak_Power_W", "peak_power_w"),
                      ("Rack_Units", "rack_units"), ("Peak_GFlops", "peak_gflops"),
                      ("Die_Area_mm2", "die_area_mm2")):
        assert math.isclose(total(name), want[key], rel_tol=1e-9), name
    # by hand: 100 pJ replaces 263.31 pJ per flop over 0.02 Gflop, 20 pJ/B replaces 88.87 pJ/B
    # over the L1-L2 link's 0.32 GB
    assert want["energy_j"] == pytest.approx(ENERGY + (100 - FLOP_PJ) * 0.02e-3
                                             + (20 - MEM_PJ / 10) * 0.32e-3)
    assert want["price_usd"] == 3 * (1723 + 256 * 3)
    # 3 × (39 W + 100 pJ × 172.8 Gflop/s + 888.67 pJ × 51.2 GB/s)
    assert want["peak_power_w"] == pytest.approx(3 * (39 + 17.28 + 45.5))
    assert want["die_area_mm2"] == pytest.approx(8 * 7 + 33.375)
