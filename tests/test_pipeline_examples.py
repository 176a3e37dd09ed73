"""Every bundled example goes through the whole pipeline (workbook, JSON, HTML) cleanly."""

from __future__ import annotations

import json
from pathlib import Path

import openpyxl
import pytest

from sat.cli import main

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = sorted(p for p in (ROOT / "examples").rglob("*")
                  if p.suffix.lower() in (".f90", ".f", ".c"))


def test_every_example_is_found():
    names = {p.name for p in EXAMPLES}
    assert {"lap.f90", "hypterm.f90", "jacobi.f", "heat.F90", "stencil7.c", "uxx.c"} <= names


@pytest.mark.parametrize("source", EXAMPLES, ids=lambda p: p.name)
def test_example_runs_without_warnings(capsys, tmp_path, source):
    book, data, page = tmp_path / "out.xlsx", tmp_path / "out.json", tmp_path / "out.html"
    status = main([str(source), "-o", str(book), "--json", str(data), "--html", str(page)])
    out, err = capsys.readouterr()
    assert status == 0, err
    assert err == "" and out == ""
    report = json.loads(data.read_text())
    assert report["warnings"] == []
    assert report["loops"], "every example has at least one modelled loop nest"
    for row in report["loops"]:
        assert row["time_s"] > 0 and row["time_s"] >= row["time_dram_s"]
    sheets = openpyxl.load_workbook(book, read_only=True).sheetnames
    assert sheets[:3] == ["Summary", "Parameters", "Loops"] and sheets[-1] == "Notes"
    assert "<html" in page.read_text()[:200]
