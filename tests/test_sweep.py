"""Parameter sweeps: every configuration equals the model run with --set, invalid rows say why."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

from sat.cli import main
from sat.explore.sweep import SweepError, parse_axis

ROOT = Path(__file__).resolve().parent.parent
LAP = str(ROOT / "examples" / "lap.f90")


def run_json(capsys, *options: str) -> dict:
    assert main([LAP, "-q", "--json", "-", *options]) == 0
    return json.loads(capsys.readouterr().out)


@pytest.mark.parametrize(("spec", "values"), [
    ("CacheKB=16..128*2", (16, 32, 64, 128)),
    ("hi(1)=32..128:4", (32, 64, 96, 128)),
    ("BlockX=1..3", (1, 2, 3)),
    ("x=0.5..1:2", (0.5, 1.0)),
])
def test_axes(spec, values):
    assert parse_axis(spec)[1] == pytest.approx(values)


@pytest.mark.parametrize("spec", ["CacheKB=8..4", "CacheKB=a..4", "CacheKB=0..8*2",
                                  "CacheKB=1..2:0", "CacheKB", "x=0.5..2"])
def test_bad_axes(spec):
    with pytest.raises(SweepError):
        parse_axis(spec)


def test_every_configuration_equals_the_model_with_set(capsys):
    data = run_json(capsys, "--sweep", "CacheKB=16..1024*4", "--sweep", "hi(1)=32..64:2")
    sweep = data["sweep"]
    assert (sweep["parameters"], sweep["points"], sweep["invalid"]) == \
        (["CacheKB", "hi_1"], 8, 0)
    for row in sweep["rows"]:
        single = run_json(capsys, "--set", f"CacheKB={row['CacheKB']}",
                          "--set", f"hi(1)={row['hi_1']}")["totals"]
        assert row["Total_Time_s"] == pytest.approx(single["time_s"], rel=1e-12)
        assert row["Total_Traffic_GB"] == pytest.approx(single["traffic_gb"], rel=1e-12)
        assert row["Total_GFlops"] == pytest.approx(single["gflops"], rel=1e-12)


def test_invalid_configurations_are_rows_with_a_reason(capsys):
    rows = run_json(capsys, "--sweep", "GBsPerCore=0..2:3", "--sweep", "BlockY=1..2")["sweep"]
    by_value = {(r["GBsPerCore"], r["BlockY"]): r for r in rows["rows"]}
    zero = by_value[(0, 2)]
    assert not zero["valid"] and zero["reason"] == "GBsPerCore = 0 must be positive"
    assert zero["Total_Time_s"] is None
    # the 7-point stencil spans 2 along Y: a block of 1 is narrower
    narrow = by_value[(1, 1)]
    assert not narrow["valid"] and "block along Y narrower than the stencil" in narrow["reason"]
    assert by_value[(1, 2)]["valid"] and by_value[(2, 2)]["valid"]


def test_the_workbook_and_the_csv_hold_the_rows(capsys, tmp_path):
    out, table = tmp_path / "s.xlsx", tmp_path / "s.csv"
    data = run_json(capsys, "--sweep", "CacheKB=16..64*2", "-o", str(out),
                    "--sweep-csv", str(table))
    with table.open() as handle:
        rows = list(csv.DictReader(handle))
    assert [float(r["CacheKB"]) for r in rows] == [16, 32, 64]
    assert [float(r["Total_Time_s"]) for r in rows] == \
        pytest.approx([r["Total_Time_s"] for r in data["sweep"]["rows"]])
    import openpyxl

    sheet = openpyxl.load_workbook(out)["Sweep"]
    assert "values computed by satreport" in sheet["A1"].value
    assert [sheet.cell(row=r, column=1).value for r in (4, 5, 6)] == [16, 32, 64]


@pytest.mark.parametrize(("options", "message"), [
    (["--sweep", "CacheKBB=1..2"], "no parameter 'CacheKBB' (did you mean CacheKB?)"),
    (["--sweep", "CacheKB=4..2"], "the range is reversed"),
    (["--sweep-csv", "x.csv"], "--sweep-csv: give the grid with --sweep"),
])
def test_bad_sweeps_stop_with_one_line(capsys, tmp_path, options, message):
    out = tmp_path / "never.json"
    assert main([LAP, "-q", "--json", str(out), *options]) == 2
    assert message in capsys.readouterr().err
    assert not out.exists()


@pytest.mark.parametrize(("sweeps", "charts"), [
    (["CacheKB=16..1024*2"], 4),  # one line chart per total: time, traffic, Gflop, energy
    (["CacheKB=16..1024*2", "GBsPerCore=0..4:5"], 1),  # one heat map
])
def test_the_html_draws_the_sweep(tmp_path, sweeps, charts):
    page = tmp_path / "s.html"
    options = [option for spec in sweeps for option in ("--sweep", spec)]
    assert main([LAP, "-q", "--html", str(page), *options]) == 0
    html = page.read_text()
    section = html[html.index('<section id="sweep">'):]
    section = section[:section.index("</section>")]
    assert section.count("<svg") == charts
    if len(sweeps) == 2:
        assert "not valid" in section  # GBsPerCore = 0


def test_ctrl_c_during_a_sweep_leaves_no_output(monkeypatch, tmp_path):
    import sat.explore.sweep as sweep_module

    real, calls = sweep_module._rows, []

    def interrupted(*args):
        calls.append(1)
        if len(calls) == 2:  # the second chunk: the CSV holds the first one's rows by now
            raise KeyboardInterrupt
        return real(*args)

    monkeypatch.setattr(sweep_module, "_rows", interrupted)
    csv_path, book = tmp_path / "s.csv", tmp_path / "s.xlsx"
    status = main([LAP, "-q", "-o", str(book), "--sweep-csv", str(csv_path), "--sweep",
                   "CacheKB=1..10000:10000", "--sweep", "GBsPerCore=1..10:10"])
    assert status == 130 and len(calls) == 2
    assert not csv_path.exists() and not book.exists()
    assert list(tmp_path.iterdir()) == []  # no temporary file left either
