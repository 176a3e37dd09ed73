"""Offload what-ifs (sat.model.irregular.offload, the Offload sheet), worked out by hand on
examples/spmv.f90 and examples/histogram.f90 with the built-in accelerators (hc1, h100-pcie) and
the Xeon E5-2680 host (machines/xeon-e5-2680.xml of this tree, by path)."""

from __future__ import annotations

import json
from pathlib import Path

import openpyxl
import pytest

from sat.frontend import read_sources
from sat.machine import load_machine
from sat.machine.accelerators import AcceleratorError, load_accelerator
from sat.model.build import build_model
from sat.parameters import build_parameters

ROOT = Path(__file__).resolve().parent.parent
SOURCES = [str(ROOT / "examples" / "spmv.f90"), str(ROOT / "examples" / "histogram.f90")]
HOST = ROOT / "machines" / "xeon-e5-2680.xml"
# 1e6 rows of 10 nonzeros; 1e6 elements into 1e6 bins
SETS = ["n=1000000", "nnz=10000000", "nbins=1000000", "rowptr_i=1", "rowptr_i_1=11"]
SPMV_RANGE, HIST_RANGE = "RangeKB_spmv_23_x", "RangeKB_histogram_16_h"


def model(accelerator: str | None = "h100-pcie", *sets: str, table: str = "Offload"):
    """The model, its values and the rows of ``table`` (Offload or Offload idioms) by
    procedure, evaluated."""
    acc = load_accelerator(accelerator) if accelerator else None
    result = build_model(read_sources(SOURCES),
                         build_parameters(load_machine(str(HOST)), sets=[*SETS, *sets],
                                          accelerator=acc))
    env = result.env()
    rows = {}
    if table in result.tables:
        for row in result.tables[table].rows:
            rows[row["procedure"]] = {k: (v.value(env) if hasattr(v, "expr") else v)
                                      for k, v in row.items()}
    return result, env, rows


def idioms(accelerator: str = "h100-pcie", *sets: str):
    return model(accelerator, *sets, table="Offload idioms")


def test_builtins():
    hc1 = load_accelerator("hc1")
    assert hc1.values["GsSlope"][0] == 1e-5 and hc1.values["GsInterceptGBs"][0] == 12.6
    assert hc1.values["GsLowKB"][0] == 192 and hc1.values["GsHighKB"][0] == 3072
    assert hc1.values["GsHighGBs"][0] == 48 and "PIR" in hc1.source
    assert hc1.values["Resident"][0] == 1  # shared memory with the host
    gpu = load_accelerator("h100-pcie")
    assert gpu.values["AccGflops"][0] == 26000 and gpu.values["AccGBs"][0] == 2000
    assert "datasheet" in gpu.values["AccGBs"][1]
    assert "assumed" in gpu.values["LaunchUs"][1]
    with pytest.raises(AcceleratorError):
        load_accelerator("no-such-device")


def test_no_accelerator_no_offload():
    result, _, rows = model(None)
    assert "Offload" not in result.tables and not rows
    assert not any(p.name in ("AccGflops", "LinkGBs") for p in result.parameters)
    assert "Offload_Speedup" not in result.totals


def test_h100_by_hand():
    result, env, rows = model()
    s, h = rows["spmv"], rows["histogram"]
    # spmv: 1e7 references to x(col(k)), 8 B each: 0.08 GB gathered at 500 GB/s = 1.6e-4 s;
    # the range of x(n) is 1e6 x 8 B = 7812.5 KiB, as the link moves it: 0.008 GB
    assert s["gather_gb"] == pytest.approx(0.08)
    assert s["gather_s"] == pytest.approx(0.08 / 500)
    # memory = regular / 2000 + gathers; compute = Gflop / 26000 (0.02 Gflop)
    assert s["memory_s"] == pytest.approx(s["regular_gb"] / 2000 + 1.6e-4)
    assert s["compute_s"] == pytest.approx(0.02 / 26000)
    assert s["link_gb"] == pytest.approx(s["regular_gb"] + 0.008)
    # link: link GB / 64 GB/s + 2 x 10 us; device = 5 us + MAX(compute, memory) + link
    assert s["link_s"] == pytest.approx(s["link_gb"] / 64 + 20e-6)
    assert s["device_s"] == pytest.approx(5e-6 + max(s["compute_s"], s["memory_s"])
                                          + s["link_s"])
    assert s["offload"] == 1 and s["after_s"] == pytest.approx(s["device_s"])
    # histogram: h(idx(i)) gathered and scattered: 1e6 x 8 B = 0.008 GB at 500 GB/s; its range
    # (h(nbins): 7812.5 KiB) goes there and back over the link: 2 x 0.008 GB
    assert h["gather_gb"] == pytest.approx(0.008)
    assert h["gather_s"] == pytest.approx(0.008 / 500)
    assert h["link_gb"] == pytest.approx(h["regular_gb"] + 0.016)
    assert h["offload"] == 1
    # Amdahl: Total_Time_s / (Total_Time_s - the gains)
    total = result.totals["Total_Time_s"].value(env)
    gains = s["host_s"] - s["device_s"] + h["host_s"] - h["device_s"]
    assert result.totals["Offload_Speedup"].value(env) == pytest.approx(total / (total - gains))


def test_idioms_h100_by_hand():
    """Each gather or scatter alone on the H100, its nest on the host (PIR's simulator)."""
    result, env, rows = idioms()
    x, h = rows["spmv"], rows["histogram"]
    assert (x["array"], x["index"], x["idiom"]) == ("x", "col", "gather")
    assert (h["array"], h["index"], h["idiom"]) == ("h", "idx", "gather, scatter")
    gathers = {g["array"]: g["time_s"].value(env) for g in result.tables["Gathers"].rows}
    # host: the gather's time (Gathers sheet) + its index stream, 1e7 x 8 B = 0.08 GB at
    # GBsPerCore x Cores = 6.4 x 8 = 51.2 GB/s (the E5-2680)
    assert x["host_s"] == pytest.approx(gathers["x"] + 0.08 / 51.2)
    # device: 0.08 GB of indices at 2000 GB/s + 0.08 GB gathered at 500 GB/s = 2e-4 s; the
    # link: x's range 0.008 GB + indices 0.08 + gathered values 0.08 = 0.168 GB at 64 GB/s
    # + 2 x 10 us = 2.645e-3 s; + 5 us launch = 2.85e-3 s
    assert x["memory_s"] == pytest.approx(0.08 / 2000 + 0.08 / 500)
    assert x["link_gb"] == pytest.approx(0.168)
    assert x["link_s"] == pytest.approx(0.168 / 64 + 20e-6)
    assert x["device_s"] == pytest.approx(2.85e-3)
    assert x["offload"] == 1 and x["gain_s"] == pytest.approx(x["host_s"] - 2.85e-3)
    # histogram: 1e6 references: 0.008 GB of indices and 0.008 gathered; its range (7812.5
    # KiB, 0.008 GB) there and back: 0.016 GB; link 0.032 GB: 5.2e-4 s; memory 4e-6 + 1.6e-5
    assert h["range_gb"] == pytest.approx(0.016)
    assert h["device_s"] == pytest.approx(5e-6 + 2e-5 + 0.032 / 64 + 20e-6)
    assert h["offload"] == 1
    total = result.totals["Total_Time_s"].value(env)
    gains = x["gain_s"] + h["gain_s"]
    assert result.totals["Offload_Idioms_Speedup"].value(env) == pytest.approx(
        total / (total - gains))
    # a nest's row sums its idioms' gathered bytes, gather time and range
    _, _, nests = model()
    assert nests["spmv"]["gather_s"] == pytest.approx(x["gather_s"])
    assert nests["histogram"]["link_gb"] == pytest.approx(nests["histogram"]["regular_gb"]
                                                          + h["range_gb"])


def test_idioms_link_bandwidth_and_range_change_the_decision():
    _, _, slow = idioms("h100-pcie", "LinkGBs=4")
    # 0.168 GB / 4 GB/s = 0.042 s > 0.010 s on the host; 0.032 / 4 = 0.008 s > 0.0019 s
    assert slow["spmv"]["link_s"] == pytest.approx(0.168 / 4 + 20e-6)
    assert slow["spmv"]["offload"] == 0 and slow["histogram"]["offload"] == 0
    # the HC-1 shares memory (no link) and gathers at 48 GB/s beyond 3 MB: offloaded; at a
    # range of 100 KiB x stays in the host's cache and its 14.6 GB/s lose
    _, _, large = idioms("hc1")
    _, _, small = idioms("hc1", f"{SPMV_RANGE}=100")
    assert large["spmv"]["link_s"] == 0
    assert large["spmv"]["gather_s"] == pytest.approx(0.08 / 48)
    assert large["spmv"]["offload"] == 1 and small["spmv"]["offload"] == 0
    assert small["spmv"]["bw_gs_gbs"] == pytest.approx(1e-5 * 192 * 1024 + 12.6)


def test_link_bandwidth_changes_the_decision():
    _, _, fast = model()
    _, _, slow = model("h100-pcie", "LinkGBs=4")
    for name in ("spmv", "histogram"):
        # 16 x the link time: the copy now costs more than the host's run
        assert slow[name]["link_s"] == pytest.approx(fast[name]["link_gb"] / 4 + 20e-6)
        assert slow[name]["device_s"] > slow[name]["host_s"]
        assert slow[name]["offload"] == 0 and slow[name]["gain_s"] == 0
    result, env, _ = model("h100-pcie", "LinkGBs=4")
    assert result.totals["Offload_Speedup"].value(env) == pytest.approx(1)
    # resident data: no link time at all
    _, _, resident = model("h100-pcie", "LinkGBs=4", "Resident=1")
    assert resident["spmv"]["link_s"] == 0 and resident["spmv"]["offload"] == 1


def test_hc1_gather_bandwidth_against_the_range():
    # PIR: BW_gs = 1e-5 x bytes + 12.6 (GB/s) for 192 KB < range < 3 MB, 48 beyond
    for range_kb, bandwidth in ((7812.5, 48.0), (1024, 1e-5 * 1024 * 1024 + 12.6),
                                (100, 1e-5 * 192 * 1024 + 12.6)):  # held at 192 KB below
        _, _, rows = model("hc1", f"{SPMV_RANGE}={range_kb}")
        assert rows["spmv"]["gather_s"] == pytest.approx(0.08 / bandwidth), range_kb
        assert rows["spmv"]["link_s"] == 0  # HC-1: memory shared with the host


def test_hc1_range_changes_the_decision():
    _, _, large = model("hc1")
    _, _, small = model("hc1", f"{SPMV_RANGE}=100")
    # 7.6 MiB: 0.08 GB at 48 GB/s beats the host's cache misses; 100 KiB: x stays in the
    # host's cache and the HC-1's gathers run at 14.6 GB/s
    assert large["spmv"]["offload"] == 1
    assert small["spmv"]["offload"] == 0


def test_cli_json(tmp_path, capsys):
    from sat.cli import main

    out = tmp_path / "o.json"
    args = [*SOURCES, "-m", str(HOST), "--accelerator", "h100-pcie", "--json", str(out)]
    for s in SETS:
        args += ["--set", s]
    assert main(args) == 0
    data = json.loads(out.read_text())["offload"]
    assert data["device"] == "NVIDIA H100 PCIe"
    assert [(n["procedure"], n["line"], n["offload"]) for n in data["nests"]] == [
        ("spmv", 22, True), ("histogram", 16, True)]
    _, env, rows = model()
    assert data["nests"][0]["device_s"] == pytest.approx(rows["spmv"]["device_s"])
    assert data["speedup"] > 1
    assert [(n["procedure"], n["array"], n["offload"]) for n in data["idioms"]] == [
        ("spmv", "x", True), ("histogram", "h", True)]
    result, env, _ = idioms()
    assert data["idioms_speedup"] == pytest.approx(
        result.totals["Offload_Idioms_Speedup"].value(env))
    assert main([*SOURCES, "--accelerator", "nope"]) != 0


def _workbook(tmp_path, *sets, accelerator: str = "h100-pcie"):
    from test_workbook import META

    from sat.report.workbook import write_workbook

    result, env, _ = model(accelerator, *sets)
    path = tmp_path / "offload.xlsx"
    cells = write_workbook(result, str(path), META)
    return result, cells, path


def test_workbook_formulas(tmp_path):
    result, cells, path = _workbook(tmp_path)
    book = openpyxl.load_workbook(path)
    assert "Offload" in book.sheetnames
    row = result.tables["Offload"].rows[0]
    for key in ("host_s", "gather_s", "link_s", "device_s", "offload", "gain_s"):
        sheet, r, c = cells.home(row[key])
        value = book[sheet].cell(r + 1, c + 1).value
        assert isinstance(value, str) and value.startswith("="), (key, value)
    sheet, r, c = cells.home(result.tables["Offload"].totals["speedup"])
    assert str(book[sheet].cell(r + 1, c + 1).value).startswith("=")
    assert "LinkGBs" in cells.names


@pytest.mark.libreoffice
def test_libreoffice_edit_of_the_link_equals_set(tmp_path):
    from libreoffice import recalculate_edited

    result, cells, base = _workbook(tmp_path)
    values = recalculate_edited(base, {cells.names["LinkGBs"]: 4}, tmp_path / "edit")
    expected, env, rows = model("h100-pcie", "LinkGBs=4")
    for row in result.tables["Offload"].rows:
        want = rows[row["procedure"]]
        assert want["offload"] == 0  # was 1 before the edit
        for key in ("link_s", "device_s", "offload", "after_s", "gain_s"):
            s, r, c = cells.home(row[key])
            assert values[s].cell(r + 1, c + 1).value == pytest.approx(want[key], rel=1e-9), \
                key
    s, r, c = cells.home(result.tables["Offload"].totals["speedup"])
    assert values[s].cell(r + 1, c + 1).value == pytest.approx(
        expected.totals["Offload_Speedup"].value(env), rel=1e-9)
    _, _, idiom_rows = idioms("h100-pcie", "LinkGBs=4")
    for row in result.tables["Offload idioms"].rows:
        want = idiom_rows[row["procedure"]]
        assert want["offload"] == 0  # was 1 before the edit
        for key in ("link_s", "device_s", "offload", "gain_s"):
            s, r, c = cells.home(row[key])
            assert values[s].cell(r + 1, c + 1).value == pytest.approx(want[key], rel=1e-9), \
                key
    s, r, c = cells.home(result.tables["Offload idioms"].totals["speedup"])
    assert values[s].cell(r + 1, c + 1).value == pytest.approx(1, rel=1e-9)


@pytest.mark.libreoffice
def test_libreoffice_edit_of_a_range_equals_set(tmp_path):
    """The HC-1: spmv's gathers over 7.6 MiB go to the accelerator; edited to 100 KiB in the
    workbook, x stays in the host's cache and spmv stays on the host, as --set says."""
    from libreoffice import recalculate_edited

    result, cells, base = _workbook(tmp_path, accelerator="hc1")
    values = recalculate_edited(base, {cells.names[SPMV_RANGE]: 100}, tmp_path / "edit")
    _, _, before = model("hc1")
    expected, env, rows = model("hc1", f"{SPMV_RANGE}=100")
    assert before["spmv"]["offload"] == 1 and rows["spmv"]["offload"] == 0
    for row in result.tables["Offload"].rows:
        want = rows[row["procedure"]]
        for key in ("host_s", "gather_s", "device_s", "offload", "after_s", "gain_s"):
            s, r, c = cells.home(row[key])
            assert values[s].cell(r + 1, c + 1).value == pytest.approx(want[key], rel=1e-9), \
                (row["procedure"], key)
    s, r, c = cells.home(result.tables["Offload"].totals["speedup"])
    assert values[s].cell(r + 1, c + 1).value == pytest.approx(
        expected.totals["Offload_Speedup"].value(env), rel=1e-9)


def test_html_section():
    """The HTML's Offload section shows the model's decisions and speedups."""
    import re

    from sat.report.html import render_html

    result, env, nests = model()
    _, _, alone = idioms()
    page = render_html(read_sources(SOURCES), result, env, {}, use_dot=False)
    section = page[page.index('<section id="offload">'):]
    section = section[:section.index("</section>")]
    assert "Offload to NVIDIA H100 PCIe" in section
    speedup = re.search(r'data-key="nest_speedup" data-v="([^"]+)"', section).group(1)
    assert float(speedup) == pytest.approx(result.totals["Offload_Speedup"].value(env))
    speedup = re.search(r'data-key="idiom_speedup" data-v="([^"]+)"', section).group(1)
    assert float(speedup) == pytest.approx(result.totals["Offload_Idioms_Speedup"].value(env))
    devices = [float(v) for v in re.findall(r'data-key="device_s" data-v="([^"]+)"', section)]
    assert devices == pytest.approx([nests["spmv"]["device_s"], nests["histogram"]["device_s"],
                                     alone["spmv"]["device_s"], alone["histogram"]["device_s"]])
    assert section.count(">yes</td>") == 4
    slow_result, env, _ = model("h100-pcie", "LinkGBs=4")
    slow = render_html(read_sources(SOURCES), slow_result, env, {}, use_dot=False)
    assert '<section id="offload">' in slow and ">yes</td>" not in slow


def test_the_totals_row_sums_times_not_decisions(tmp_path):
    """The Offload sheet's Total row adds times; under the 0/1 decisions it is empty (a sum
    of decisions read as one). Both nests go to the H100 here: the HTML's count says 2."""
    from sat.report.html import _offload

    result, cells, path = _workbook(tmp_path)
    book = openpyxl.load_workbook(path)
    for name in ("Offload", "Offload idioms"):
        table = result.tables[name]
        assert "offload" not in table.totals and "host_s" in table.totals
        ws = book[name]
        header = next(r for r in range(1, 6) if ws.cell(r, 1).value == "Procedure")
        col = [ws.cell(header, c).value for c in range(1, ws.max_column + 1)].index(
            "Offload (0/1)")
        assert ws.cell(ws.max_row, 1).value == "Total"
        assert ws.cell(ws.max_row, col + 1).value is None
    section = _offload(result, result.env())
    assert section["nest_speedup"]["offloaded"] == 2


def test_accelerator_units_read_as_the_machine_s():
    """Latencies in µs like NICLatencyUs; Resident a TRUE/FALSE switch without a 0/1 unit."""
    result, _, _ = model("h100-pcie")
    units = {p.name: (p.unit, p.kind) for p in result.parameters}
    assert units["LinkLatencyUs"][0] == units["LaunchUs"][0] == units["NICLatencyUs"][0] == "µs"
    assert units["Resident"] == ("", "boolean")
