"""Whole programs stay within Excel's limits on formulas, and their workbooks stay live.

Two shapes of a big program: a ring of 200 one-nest procedures, each calling the next (sums
over arrays shared by every procedure: occupancy, footprint), and 5,000 nests in 500
procedures (totals over every nest: Loops, Alternative blocking, Costs).  Every formula of
their workbooks is measured (``excel_limits``: length, nesting of functions, arguments of one
function); the ring's workbook is recalculated in LibreOffice and its totals compared with
the JSON's (the 5,000-nest one too when SATREPORT_RECALC_5000 is set: it takes over half an
hour).
"""

from __future__ import annotations

import copy
import math
import os
import sys
from pathlib import Path

import openpyxl
import pytest
from excel_limits import MAX_ARGUMENTS, MAX_LENGTH, MAX_NESTING, largest, violations
from libreoffice import recalculate, value_at

from sat.frontend import read_sources
from sat.ir import Program
from sat.machine import load_machine
from sat.model.build import build_model
from sat.parameters import build_parameters
from sat.report.json_export import to_json_data
from sat.report.workbook import WorkbookMeta, write_workbook

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))

from generate_fortran import generate_module, generate_ring  # noqa: E402

pytestmark = pytest.mark.slow
META = WorkbookMeta(["generated.f90"], "exascale", "built-in", "test", "2026-01-01")


def _model(program: Program):
    params = build_parameters(load_machine(None))
    result = build_model(program, params)
    return result, result.env()


def _read(text: str, folder: Path) -> Program:
    source = folder / "generated.f90"
    source.write_text(text)
    return read_sources([str(source)])


def _copies(program: Program, times: int) -> Program:
    """``program`` with its procedures repeated ``times`` times under new names: the same
    nests in more procedures, each copy its own objects (the model tells nests apart by
    identity)."""
    procedures = []
    for k in range(times):
        for procedure in program.procedures:
            twin = copy.deepcopy(procedure)
            twin.name = f"{procedure.name}_{k:03d}"
            procedures.append(twin)
    return Program(procedures, program.sources)


def _json_totals(program: Program, result, env, cells) -> dict:
    data = to_json_data(program, result, env, {"name": "exascale", "source": "built-in"},
                        cells.cell, cells.parameter_cell)
    return data["totals"]


def _assert_recalculates(path: Path, totals: dict, folder: Path, timeout: float) -> None:
    """LibreOffice's recalculation of the workbook at ``path`` gives the JSON's totals."""
    (recalculated,) = recalculate([path], folder, timeout=timeout)
    book = openpyxl.load_workbook(recalculated, data_only=True, read_only=True)
    compared = 0
    for key, address in totals["cells"].items():
        value = totals[key]
        if not isinstance(value, (int, float)) or not math.isfinite(value):
            continue
        got = value_at(book, address)
        assert isinstance(got, (int, float)), (key, address, got)
        assert math.isclose(got, value, rel_tol=1e-9, abs_tol=1e-300), (key, got, value)
        compared += 1
    assert compared >= 10  # times, traffic, flops, B:F, the share, energy, ...


@pytest.mark.libreoffice
def test_a_ring_of_200_procedures_stays_within_the_limits_and_recalculates(
        tmp_path: Path) -> None:
    program = _read(generate_ring(200), tmp_path)
    result, env = _model(program)
    assert len(result.tables["Loops"].rows) == 200
    path = tmp_path / "ring.xlsx"
    cells = write_workbook(result, str(path), META, env)
    assert violations(path) == []
    # the occupancy and footprint sums over 200 procedures were over 8,192 characters once
    most = largest(path)
    assert most.length <= MAX_LENGTH and most.nesting <= MAX_NESTING
    assert most.arguments <= MAX_ARGUMENTS
    # the sums split into parts on the Workings sheet stay live
    _assert_recalculates(path, _json_totals(program, result, env, cells), tmp_path / "recalc",
                         timeout=1200)


def _5000_nests(folder: Path):
    # 50 generated nests in 5 procedures, repeated 100 times: 5,000 nests, 500 procedures
    program = _copies(_read(generate_module(50), folder), 100)
    result, env = _model(program)
    assert len(result.tables["Loops"].rows) == 5000
    path = folder / "big.xlsx"
    cells = write_workbook(result, str(path), META, env)
    return path, _json_totals(program, result, env, cells)


def test_5000_nests_stay_within_the_limits(tmp_path: Path) -> None:
    path, totals = _5000_nests(tmp_path)
    assert violations(path) == []
    # every nest's time counts: 100 copies of the same 50 nests take 100 times as long as
    # one copy (the model of one copy, built apart)
    one, one_env = _model(_copies(_read(generate_module(50), tmp_path), 1))
    one_time = one.totals["Total_Time_s"].value(one_env)
    assert math.isclose(totals["time_s"], 100 * one_time, rel_tol=1e-9)


@pytest.mark.libreoffice
@pytest.mark.skipif(not os.environ.get("SATREPORT_RECALC_5000"),
                    reason="a million formulas: LibreOffice takes over half an hour on 2 cores; "
                           "set SATREPORT_RECALC_5000=1 to run it")
def test_5000_nests_recalculate(tmp_path: Path) -> None:
    path, totals = _5000_nests(tmp_path)
    _assert_recalculates(path, totals, tmp_path / "recalc", timeout=3600)


def test_tables_written_ahead_hold_the_same_cells(tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """A big program's long tables are written ahead of the file (ModelSheet.stream_rows):
    every cell, formula and cached value is as in the workbook written all at the end."""
    import sat.report.sheet as S

    program = _copies(_read(generate_module(20), tmp_path), 10)  # 200 nests
    result, env = _model(program)
    ahead, kept = tmp_path / "ahead.xlsx", tmp_path / "kept.xlsx"
    write_workbook(result, str(ahead), META, env)
    monkeypatch.setattr(S, "STREAMED_ROWS", 10**9)
    write_workbook(result, str(kept), META, env)
    streamed = [ws.title for ws in openpyxl.load_workbook(kept, read_only=True).worksheets
                if ws.max_row >= 2000]
    assert streamed  # the Workings sheet at least: about 50 rows per nest
    for formulas in (False, True):  # the cached values, then the formulas
        one = openpyxl.load_workbook(ahead, read_only=True, data_only=not formulas)
        two = openpyxl.load_workbook(kept, read_only=True, data_only=not formulas)
        assert one.sheetnames == two.sheetnames
        for name in one.sheetnames:
            rows_one = list(one[name].iter_rows(values_only=True))
            assert rows_one == list(two[name].iter_rows(values_only=True)), name
