"""The workbook writer: layout, defined names, cached values, atomic writing, errors.

``hand_result()`` is a small ModelResult built by hand whose numbers are worked out in the
comments; ``hypterm_result()`` runs the real model on the ExaSAT reference program when the
model is available.  ``RESULTS`` lists the builders every workbook test runs on.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

import openpyxl
import pytest

from sat.model import expr as E
from sat.model.expr import Param as P
from sat.model.expr import Quantity
from sat.model.tables import Column, ModelResult, Note, Table
from sat.parameter import Parameter, ParameterSet
from sat.report import workbook as W
from sat.report.workbook import WorkbookError, WorkbookMeta, write_workbook

DATA = Path(__file__).parent / "data" / "exasat"
META = WorkbookMeta(sources=["lap.f90"], machine_name="test node",
                    machine_source="machines/test.xml", version="0.1.0", created="2026-11-21")


def Q(key: str, expr: E.ExprLike | Quantity, unit: str = "", label: str = "") -> Quantity:
    return Quantity((key,), E.as_expr(expr), unit, label or key)


# ---------------------------------------------------------------- hand-built model

def hand_result() -> ModelResult:
    """Three loop nests, arrays, registers; numbers in the comments (default parameters)."""
    params = [
        Parameter("Cores", 4, "", "machine", "cores", "test machine"),
        Parameter("GflopsPerCore", 10, "Gflop/s", "machine", "peak per core", "test machine"),
        Parameter("GBsPerCore", 2, "GB/s", "machine", "bandwidth per core", "test machine"),
        Parameter("CacheKB", 1024, "KiB", "machine", "cache per thread group", "test machine"),
        Parameter("WordBytes", 8, "B", "machine", "word size", "test machine"),
        Parameter("DivCost", 39, "flop", "machine", "cost of a division", "test machine"),
        Parameter("FPRegs", 2, "", "machine", "floating-point registers", "test machine"),
        Parameter("Overlap", 1, "", "machine", "CPU/DRAM overlap", "test machine"),
        Parameter("hi_1", 64, "", "problem", "code symbol hi(1)", "params.xml", "number",
                  "hi(1)"),
        Parameter("lo_1", 1, "", "problem", "code symbol lo(1)", "params.xml", "number",
                  "lo(1)"),
        Parameter("ng", 4, "", "problem", "code symbol ng", "params.xml", "number", "ng"),
        # nx1 looks like a cell reference: the workbook maps it to nx_1.
        Parameter("nx1", 8, "", "problem", "code symbol nx1", "default", "number", "nx1",
                  defaulted=True),
        Parameter("StreamingWrites", 1, "", "software", "streaming writes", "default",
                  "boolean"),
        Parameter("NTAHints", 0, "", "software", "non-temporal hints", "default", "boolean"),
        Parameter("BlockX", 16, "", "software", "block size x", "default", "integer"),
    ]
    hi, lo, ng, nx = P("hi_1"), P("lo_1"), P("ng"), P("nx1")
    sw, nta, block = P("StreamingWrites"), P("NTAHints"), P("BlockX")
    word, cache = P("WordBytes"), P("CacheKB")
    cpu_rate = P("GflopsPerCore") * P("Cores")  # 40 Gflop/s
    dram_rate = P("GBsPerCore") * P("Cores")  # 8 GB/s

    dlo = Quantity(("symbol", "dlo(1)"), lo - ng, "", "dlo(1) = lo(1) - ng")  # 1-4 = -3
    # Boolean coercion checks (StreamingWrites TRUE): 2, 1, 1, 1, and 3/NTAHints guarded -> 0.
    checks = [
        Q("sw_times_2", 2 * sw, label="2*StreamingWrites"),
        Q("sw_max", E.maximum(sw, 0.5), label="MAX(StreamingWrites, 0.5)"),
        Q("sw_equals_1", E.compare("=", sw, 1), label="StreamingWrites = 1"),
        Q("sw_plain", sw, label="StreamingWrites as a number"),
        Q("three_over_nta", E.div(3, nta), label="3 / NTAHints (zero-guarded)"),
    ]

    def nest(procedure: str, line: int, adds: int, muls: int, divs: int, points: E.Expr,
             blocks: E.Expr, arrays_read: int, ws_kb: E.Expr, traffic: E.Expr) -> dict:
        points_q = Q("points", points, "cells")
        gflops = Q("gflops", (adds + muls + divs) * E.Ref(points_q) / 1e9, "Gflop")
        weighted = Q("weighted", (adds + muls + P("DivCost") * divs) * E.Ref(points_q) / 1e9,
                     "Gflop")
        traffic_q = Q("traffic", traffic * E.Ref(points_q), "GB")
        cpu = Q("cpu", E.div(weighted, cpu_rate), "s")
        dram = Q("dram", E.div(traffic_q, dram_rate), "s")
        time = Q("time", E.if_(P("Overlap"), E.maximum(cpu, dram), E.add(cpu, dram)), "s")
        return {"procedure": procedure, "file": "lap.f90", "line": line, "adds": adds,
                "multiplies": muls, "divides": divs, "points": points_q,
                "blocks": Q("blocks", blocks), "ws_kb": Q("ws", ws_kb, "KiB"),
                "gflops": gflops, "weighted_gflops": weighted, "traffic_gb": traffic_q,
                "bytes_per_flop": Q("bf", E.div(traffic_q, gflops)), "time_cpu_s": cpu,
                "time_dram_s": dram, "time_s": time}

    extent = Q("extent", hi - E.Ref(dlo) + 1)  # 64+3+1 = 68, never placed: inlined
    ws_a = 3 * block * nx * word / 1024  # 3*16*8*8/1024 = 3 KiB
    # A: 544 points, 9 flops, 47 weighted: gflops 4.896e-6, weighted 2.5568e-5;
    # traffic 544*8*(3*1 + 1)/1e9 = 1.7408e-5 GB; cpu 6.392e-7 s, dram 2.176e-6 s (DRAM-bound)
    ws_a_q = Q("ws_a", ws_a, "KiB")
    a = nest("lap", 10, 6, 2, 1, E.Ref(extent) * nx, E.ceiling(E.Ref(extent) / block, 1), 3,
             ws_a,
             word * (3 * E.if_(E.compare("<=", ws_a_q, cache), 1, 3) + E.if_(sw, 1, 2)) / 1e9)
    # B: 512 points, no flops (B:F guarded to 0); traffic 512*8*2/1e9 = 8.192e-6, dram 1.024e-6
    b = nest("lap", 30, 0, 0, 0, hi * nx, E.ceiling(hi / block, 1), 1,
             2 * block * nx * word / 1024, word * E.if_(nta, 1.5, 2) / 1e9)
    # C: CEILING(64/16)*16*8 = 512 points, 200 flops: 1.024e-4 Gflop, cpu 2.56e-6 (CPU-bound)
    c = nest("flux", 50, 100, 100, 0, E.ceiling(hi / block, 1) * block * nx,
             E.ceiling(hi / block, 1), 2, 2 * block * nx * word / 1024, word * 2 / 1e9)
    rows = [a, b, c]

    def total(key: str, unit: str) -> Quantity:
        return Q("total_" + key, E.add(*[r[key] for r in rows]), unit)

    totals = {key: total(key, unit) for key, unit in (
        ("gflops", "Gflop"), ("weighted_gflops", "Gflop"), ("traffic_gb", "GB"),
        ("time_cpu_s", "s"), ("time_dram_s", "s"), ("time_s", "s"))}
    loops = Table("Loops", "Loop nests", [
        Column("procedure", "function"), Column("file", "file"), Column("line", "line"),
        Column("adds", "add", "flops", "add/sub per point", band="Flops per point"),
        Column("multiplies", "mul", "flops", "multiplies per point", band="Flops per point"),
        Column("divides", "div", "flops", "divides per point", band="Flops per point"),
        Column("points", "points", "cells", "points computed"),
        Column("blocks", "blocks", "", "number of blocks"),
        Column("ws_kb", "working set", "KiB", "working set per block"),
        Column("gflops", "work", "Gflop", "flops performed / 1E+9"),
        Column("weighted_gflops", "weighted work", "Gflop", "with division cost"),
        Column("traffic_gb", "traffic", "GB", "DRAM traffic"),
        Column("bytes_per_flop", "B:F", "B/flop", "bytes per flop", "0.000"),
        Column("time_cpu_s", "time CPU", "s", "compute time", band="Times"),
        Column("time_dram_s", "time DRAM", "s", "memory time", band="Times"),
        Column("time_s", "time", "s", "max of the two when overlapped", band="Times"),
    ], rows, {"procedure": "Total", **totals}, "One row per loop nest.")

    # Arrays: u, v over A's 544 points (4.25 KiB each), w over B's 512 (4 KiB): 12.5 KiB.
    footprints = [Q("fp", E.Ref(extent) * nx * word / 1024, "KiB"),
                  Q("fp", E.Ref(extent) * nx * word / 1024, "KiB"),
                  Q("fp", hi * nx * word / 1024, "KiB")]
    fp_total = Q("fp_total", E.add(*footprints), "KiB")
    arrays = Table("Arrays", "Arrays", [
        Column("array", "array"), Column("line", "nest line"),
        Column("footprint_kib", "footprint", "KiB", "memory the array occupies")],
        [{"array": n, "line": line, "footprint_kib": f}
         for n, line, f in zip("uvw", (10, 10, 30), footprints, strict=True)],
        {"array": "Total", "footprint_kib": fp_total})
    # Registers: a, b, c with 10, 7, 3 accesses; FPRegs = 2 keeps a, b: c spills 3 accesses.
    spills = [Q("spill", E.if_(E.compare(">", rank, P("FPRegs")), n, 0))
              for rank, n in ((1, 10), (2, 7), (3, 3))]
    registers = Table("Registers", "State variables", [
        Column("variable", "variable"), Column("accesses", "accesses", "", "reads + writes"),
        Column("spilled_accesses", "spilled accesses", "", "accesses beyond FPRegs")],
        [{"variable": v, "accesses": n, "spilled_accesses": s}
         for v, n, s in zip("abc", (10, 7, 3), spills, strict=True)],
        {"variable": "Total", "spilled_accesses": Q("spill_total", E.add(*spills))})
    return ModelResult(
        parameters=params,
        tables={"Loops": loops, "Arrays": arrays, "Registers": registers},
        totals={"Total_Time_s": totals["time_s"], "Total_Traffic_GB": totals["traffic_gb"],
                "Total_GFlops": totals["gflops"],
                "Total_Weighted_GFlops": totals["weighted_gflops"],
                # 12.5 / 1024**2 GiB; in no table: its home is the Summary sheet
                "Footprint_GiB": Q("footprint", E.Ref(fp_total) / 1048576, "GiB"),
                "Total_Bytes_Per_Flop": Q("bf_total", E.div(totals["traffic_gb"],
                                                            totals["weighted_gflops"])),
                # C is the only CPU-bound nest: 2.56e-6 of 5.76e-6 s
                "Compute_Bound_Share": Q("cpu_share", E.div(E.add(*[
                    E.if_(E.compare(">=", r["time_cpu_s"], r["time_dram_s"]), r["time_s"], 0)
                    for r in rows]), totals["time_s"]))},
        notes=[Note("problem symbol nx1 has no value: assumed 8", "default"),
               Note("loop has no flops", "warning", "lap.f90", 30),
               Note("=SUM(A1) is text, not a formula", "assumption")],
        derived=[dlo, *checks])


# Hand-worked totals with the default parameters (see hand_result's comments).
HAND_TOTAL_TIME = 2.176e-6 + 1.024e-6 + 2.56e-6  # 5.76e-6 s
HAND_TOTAL_TRAFFIC = 1.7408e-5 + 8.192e-6 + 8.192e-6  # 3.3792e-5 GB
HAND_TOTAL_GFLOPS = 4.896e-6 + 1.024e-4  # 1.07296e-4


# ---------------------------------------------------------------- the real model

MACHINE = {"Cores": 1024, "GBsPerCore": 1, "GflopsPerCore": 10, "IntRegs": 16, "FPRegs": 16,
           "CacheKB": 1024, "WordBytes": 8, "LineBytes": 64, "ReadCost": 8,
           "ReadWriteCost": 16, "WriteCost": 16, "DivCost": 39, "SpecialCost": 125,
           "NICGBs": 100, "NICLatencyUs": 0.4, "Overlap": 1}
SOFTWARE = {"StreamingWrites": 0, "NTAHints": 0, "BlockX": 16, "BlockY": 16, "BlockZ": 128}
SYMBOLS = {"lo(1)": 1, "lo(2)": 1, "lo(3)": 1, "hi(1)": 128, "hi(2)": 128, "hi(3)": 128,
           "ng": 4, "nspecies": 9}


def hypterm_result() -> ModelResult:
    """The model on the ExaSAT reference program with the reference parameters."""
    build = pytest.importorskip("sat.model.build", reason="the model is not available yet")
    from sat.xmlio import read_program

    params = ParameterSet()
    for name, value in MACHINE.items():
        params.add(Parameter(name, value, group="machine", source="reference"))
    for name, value in SOFTWARE.items():
        kind = "boolean" if name in ("StreamingWrites", "NTAHints") else "integer"
        params.add(Parameter(name, value, group="software", source="reference", kind=kind))
    params.symbol_values = {k: (float(v), "reference") for k, v in SYMBOLS.items()}
    program = read_program(str(DATA / "xml" / "hypterm-cns-fused.xml"))
    return build.build_model(program, params)


RESULTS = {"hand": hand_result, "hypterm": hypterm_result}


@pytest.fixture(params=list(RESULTS))
def any_result(request: pytest.FixtureRequest) -> ModelResult:
    return RESULTS[request.param]()


# ---------------------------------------------------------------- helpers

def formula_cells(path: Path) -> dict[tuple[str, str], str]:
    """(sheet, coordinate) -> formula text of every formula cell."""
    book = openpyxl.load_workbook(path)
    return {(ws.title, c.coordinate): c.value for ws in book.worksheets for row in ws.iter_rows()
            for c in row if isinstance(c.value, str) and c.value.startswith("=")}


def workings_cell(path: Path, key: str) -> str:
    """Coordinate of the value cell of the Workings row for quantity ``key``."""
    sheet = openpyxl.load_workbook(path)["Workings"]
    return next(f"B{row[0].row}" for row in sheet.iter_rows() if row[0].value == key)


def cached_values(path: Path) -> dict[tuple[str, str], object]:
    book = openpyxl.load_workbook(path, data_only=True)
    return {(ws.title, c.coordinate): c.value for ws in book.worksheets
            for row in ws.iter_rows() for c in row}


def split(address: str) -> tuple[str, str]:
    """``'Sheet name'!$B$7`` -> (``Sheet name``, ``B7``)."""
    sheet, cell = address.rsplit("!", 1)
    return sheet.strip("'"), cell.replace("$", "")


def name_cell(path: Path, name: str) -> tuple[str, str]:
    book = openpyxl.load_workbook(path)
    sheet, cell = next(iter(book.defined_names[name].destinations))
    return sheet, cell.replace("$", "")


# ---------------------------------------------------------------- tests

def test_cached_values_equal_python(tmp_path: Path, any_result: ModelResult) -> None:
    path = tmp_path / "model.xlsx"
    cells = write_workbook(any_result, str(path), META)
    cached = cached_values(path)
    env = any_result.env()
    checked = 0
    for table in any_result.tables.values():
        for row in table.rows + ([table.totals] if table.totals else []):
            for value in row.values():
                if isinstance(value, Quantity):
                    got = cached[split(cells.cell(value))]
                    assert got == pytest.approx(value.value(env), rel=1e-12, abs=0), value.key
                    checked += 1
    assert checked > 0
    for name, quantity in any_result.totals.items():
        assert cached[name_cell(path, name)] == pytest.approx(quantity.value(env), rel=1e-12)


def test_hand_workbook_numbers(tmp_path: Path) -> None:
    result = hand_result()
    path = tmp_path / "hand.xlsx"
    cells = write_workbook(result, str(path), META)
    cached = cached_values(path)
    assert cached[name_cell(path, "Total_Time_s")] == pytest.approx(HAND_TOTAL_TIME, rel=1e-12)
    assert cached[name_cell(path, "Total_Traffic_GB")] == pytest.approx(HAND_TOTAL_TRAFFIC,
                                                                        rel=1e-12)
    assert cached[name_cell(path, "Total_GFlops")] == pytest.approx(HAND_TOTAL_GFLOPS, rel=1e-12)
    # 12.5 KiB / 1024**2
    assert cached[name_cell(path, "Footprint_GiB")] == pytest.approx(12.5 / 1048576, rel=1e-12)
    # The Footprint total is in no table: it lives on the Summary.
    assert cells.cell(result.totals["Footprint_GiB"]).startswith("Summary!$B$")
    # Totals of the Loops table carry the defined names.
    assert split(cells.cell(result.totals["Total_Time_s"]))[0] == "Loops"
    assert name_cell(path, "Total_Time_s") == split(cells.cell(result.totals["Total_Time_s"]))
    # Boolean checks on the Parameters sheet: 2, 1, 1, 1, 0.
    values = [cached[split(cells.cell(q))] for q in result.derived]
    assert values == [-3, 2, 1, 1, 1, 0]
    # Summary: B:F = 3.3792e-5 / (2.5568e-5 + 1.024e-4) weighted Gflop;
    # compute-bound share = 2.56e-6 / 5.76e-6 = 4/9.
    book = openpyxl.load_workbook(path, data_only=True)
    summary = {r[0].value: r[1].value for r in book["Summary"].iter_rows(max_col=2)
               if r[0].value}
    assert summary["Bytes per weighted flop (B:F)"] == \
        pytest.approx(3.3792e-5 / 1.27968e-4, rel=1e-12)
    share = "Share of the time in compute-bound nests (CPU ≥ DRAM)"
    assert summary[share] == pytest.approx(4 / 9, rel=1e-12)
    assert summary["Share of the time in memory-bound nests"] == pytest.approx(5 / 9, rel=1e-12)
    assert summary["Sources"] == "lap.f90"
    assert summary["Machine"] == "test node"


def test_formulas_reference_names_and_cells(tmp_path: Path) -> None:
    result = hand_result()
    path = tmp_path / "hand.xlsx"
    cells = write_workbook(result, str(path), META)
    formulas = formula_cells(path)
    loops = result.tables["Loops"]
    a = loops.rows[0]
    # cpu = weighted / (GflopsPerCore*Cores): weighted is the cell on the same row.
    sheet, cpu_cell = split(cells.cell(a["time_cpu_s"]))
    weighted_cell = split(cells.cell(a["weighted_gflops"]))[1]
    assert formulas[(sheet, cpu_cell)] == \
        f"=IF(GflopsPerCore*Cores=0,0,{weighted_cell}/(GflopsPerCore*Cores))"
    # A's points refer to the extent, which no table shows: it has a cell on the Workings
    # sheet, whose formula refers to dlo(1) on Parameters; nx1 is mapped to nx_1.
    extent = workings_cell(path, "extent")
    dlo_cell = split(cells.cell(result.derived[0]))[1]
    assert formulas[("Workings", extent)] == f"=hi_1-Parameters!{dlo_cell}+1"
    assert formulas[split(cells.cell(a["points"]))] == f"=Workings!{extent}*nx_1"
    # Loops totals are sums of cells; the Summary refers to totals by defined name.
    assert formulas[("Summary", split(cells.cell(result.totals["Footprint_GiB"]))[1])] == \
        f"=Arrays!{split(cells.cell(result.tables['Arrays'].totals['footprint_kib']))[1]}" \
        "/1048576"
    summary_formulas = {v for (s, _), v in formulas.items() if s == "Summary"}
    assert "=Total_Time_s" in summary_formulas
    assert "=IF(Total_Weighted_GFlops=0,0,Total_Traffic_GB/Total_Weighted_GFlops)" \
        in summary_formulas
    # Boolean coercions on the Parameters sheet.
    derived = [formulas[split(cells.cell(q))] for q in result.derived]
    assert derived == ["=lo_1-ng", "=2*StreamingWrites", "=MAX(1*StreamingWrites,0.5)",
                       "=1*(1*StreamingWrites=1)", "=1*StreamingWrites",
                       "=IF(1*NTAHints=0,0,3/NTAHints)"]


def test_parameters_sheet(tmp_path: Path) -> None:
    result = hand_result()
    path = tmp_path / "hand.xlsx"
    cells = write_workbook(result, str(path), META)
    book = openpyxl.load_workbook(path)
    ws = book["Parameters"]
    for p in result.parameters:
        sheet, cell = split(cells.parameter_cell(p.name))
        assert sheet == "Parameters"
        value = ws[cell].value
        if p.kind == "boolean":
            assert value is bool(p.value)
        else:
            assert value == p.value
        row = ws[cell].row
        assert ws.cell(row, 1).value == p.name
        # Every value cell has its defined name; nx1 (a cell reference) is mapped to nx_1.
        defined = "nx_1" if p.name == "nx1" else p.name
        assert ws.cell(row, 6).value == defined
        assert cells.names[p.name] == defined
        assert name_cell(path, defined) == ("Parameters", cell)
    nx1_row = ws[split(cells.parameter_cell("nx1"))[1]].row
    assert ws.cell(nx1_row, 5).value == "default — please set"
    default_fill = ws.cell(nx1_row, 2).fill.fgColor.rgb
    input_fill = ws[split(cells.parameter_cell("Cores"))[1]].fill.fgColor.rgb
    assert default_fill != input_fill
    assert input_fill.endswith("FFF2CC")
    # Groups in order machine, problem, software.
    labels = [r[0].value for r in ws.iter_rows(min_row=5) if r[0].value]
    assert labels.index("Machine") < labels.index("Cores") < labels.index(
        "Problem size (code symbols)") < labels.index("hi_1") < labels.index(
        "Software and optimisation") < labels.index("StreamingWrites")
    # Booleans have a TRUE/FALSE drop-down.
    sw_cell = split(cells.parameter_cell("StreamingWrites"))[1]
    lists = [dv for dv in ws.data_validations.dataValidation if dv.type == "list"]
    assert any(sw_cell in str(dv.sqref) and dv.formula1 == '"TRUE,FALSE"' for dv in lists)


def test_sheets_layout(tmp_path: Path) -> None:
    result = hand_result()
    path = tmp_path / "hand.xlsx"
    write_workbook(result, str(path), META)
    book = openpyxl.load_workbook(path)
    assert book.sheetnames == ["Summary", "Parameters", "Loops", "Arrays", "Registers",
                               "Workings", "Notes"]
    loops = book["Loops"]
    # Band row 3, header row 4 with units, data from row 5, totals in row 8.
    assert loops["D3"].value == "Flops per point"
    assert loops["A4"].value == "function"
    assert loops["P4"].value == "time (s)"
    assert loops["P4"].comment.text.startswith("max of the two")
    assert loops.freeze_panes == "D5"
    assert loops.auto_filter.ref == "A4:P7"
    assert loops["A8"].value == "Total"
    assert loops["C5"].value == 10  # a constant, not a formula
    assert loops["M5"].number_format == "0.000"
    # A header sits where its numbers sit (right) so a printout pairs them correctly; a text
    # column's header stays at the left.
    assert loops["A4"].alignment.horizontal is None
    assert loops["C4"].alignment.horizontal == "right"
    assert loops["J5"].number_format == "0.000E+00"
    rules = [r.formula for rng in loops.conditional_formatting for r in rng.rules]
    assert ["$N5>=$O5"] in rules and ["$O5>$N5"] in rules
    assert loops.page_setup.orientation == "landscape"
    notes = book["Notes"]
    assert [c.value for c in notes[5]] == ["warning", "lap.f90", 30, "loop has no flops"]
    assert notes["D6"].data_type == "s" and notes["D6"].value.startswith("=SUM")
    # Charts survive only in the zip: one on the Summary, one on Registers.
    import zipfile
    with zipfile.ZipFile(path) as archive:
        charts = [n for n in archive.namelist() if n.startswith("xl/charts/chart")]
    assert len(charts) == 2


def test_invalid_and_clashing_names(tmp_path: Path) -> None:
    result = hand_result()
    result.parameters += [
        Parameter("nx_1", 3, group="problem", symbol="nx(1)"),  # real nx_1 keeps its name
        Parameter("R1C1", 2, group="problem"), Parameter("TRUE", 1, group="problem"),
        Parameter("x" * 300, 5, group="problem"), Parameter("2d", 1, group="problem")]
    path = tmp_path / "names.xlsx"
    cells = write_workbook(result, str(path), META)
    assert cells.names["nx_1"] == "nx_1"
    assert cells.names["nx1"] == "nx_1_2"
    assert cells.names["R1C1"] == "R1C1_"
    assert cells.names["TRUE"] == "TRUE_"
    assert cells.names["x" * 300] == "x" * 255
    assert cells.names["2d"] == "_2d"
    book = openpyxl.load_workbook(path)
    assert set(cells.names.values()) <= set(book.defined_names)
    # The points formula of loop A uses the mapped name of nx1.
    formulas = formula_cells(path)
    assert formulas[split(cells.cell(result.tables["Loops"].rows[0]["points"]))].endswith(
        "*nx_1_2")


def test_missing_directory(tmp_path: Path) -> None:
    with pytest.raises(WorkbookError, match="does not exist"):
        write_workbook(hand_result(), str(tmp_path / "no" / "x.xlsx"), META)


def test_not_xlsx(tmp_path: Path) -> None:
    with pytest.raises(WorkbookError, match=r"must end in \.xlsx"):
        write_workbook(hand_result(), str(tmp_path / "x.xls"), META)


@pytest.mark.skipif(os.geteuid() == 0, reason="root ignores permissions")
def test_unwritable_directory(tmp_path: Path) -> None:
    locked = tmp_path / "ro"
    locked.mkdir()
    locked.chmod(stat.S_IRUSR | stat.S_IXUSR)
    try:
        with pytest.raises(WorkbookError, match="not writable"):
            write_workbook(hand_result(), str(locked / "x.xlsx"), META)
    finally:
        locked.chmod(stat.S_IRWXU)


def test_open_elsewhere(tmp_path: Path) -> None:
    (tmp_path / ".~lock.x.xlsx#").write_text("someone,host,...")
    with pytest.raises(WorkbookError, match="open in another program"):
        write_workbook(hand_result(), str(tmp_path / "x.xlsx"), META)


def test_failure_mid_write_leaves_old_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch
                                           ) -> None:
    path = tmp_path / "x.xlsx"
    path.write_bytes(b"old workbook")

    def explode(self: object, ws: object) -> None:  # fails after the other sheets are written
        raise RuntimeError("disk on fire")

    monkeypatch.setattr(W._Writer, "_write_notes", explode)
    with pytest.raises(RuntimeError, match="disk on fire"):
        write_workbook(hand_result(), str(path), META)
    assert path.read_bytes() == b"old workbook"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["x.xlsx"]


def test_failure_in_close_leaves_no_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch
                                         ) -> None:
    import xlsxwriter

    real_close = xlsxwriter.Workbook.close

    def close_then_fail(self: xlsxwriter.Workbook) -> None:
        real_close(self)  # the temporary file is complete: the rename must still not happen
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(xlsxwriter.Workbook, "close", close_then_fail)
    with pytest.raises(WorkbookError, match="No space left"):
        write_workbook(hand_result(), str(tmp_path / "x.xlsx"), META)
    assert list(tmp_path.iterdir()) == []


def test_overwrites_old_file_atomically(tmp_path: Path) -> None:
    path = tmp_path / "x.xlsx"
    path.write_bytes(b"old workbook")
    write_workbook(hand_result(), str(path), META)
    assert openpyxl.load_workbook(path).sheetnames[0] == "Summary"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["x.xlsx"]


def test_garbage_collection_is_paused_only_while_writing(tmp_path: Path,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    import gc

    seen: list[bool] = []
    real_write = W._Writer.write

    def write(self: W._Writer, path: str) -> None:
        seen.append(gc.isenabled())
        real_write(self, path)

    monkeypatch.setattr(W._Writer, "write", write)
    assert gc.isenabled()
    write_workbook(hand_result(), str(tmp_path / "a.xlsx"), META)
    assert seen == [False] and gc.isenabled()
    gc.disable()  # whoever paused it keeps it paused
    try:
        write_workbook(hand_result(), str(tmp_path / "b.xlsx"), META)
        assert not gc.isenabled()
    finally:
        gc.enable()
    monkeypatch.setattr(W._Writer, "_write_notes", lambda self, ws: 1 / 0)
    with pytest.raises(ZeroDivisionError):
        write_workbook(hand_result(), str(tmp_path / "c.xlsx"), META)
    assert gc.isenabled()


def test_the_writer_is_freed_without_the_garbage_collector(tmp_path: Path,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    """The writer holds no reference cycle: what it made goes as soon as the file is written."""
    import gc
    import weakref

    writers: list[weakref.ref] = []
    real_init = W._Writer.__init__

    def init(self: W._Writer, *args: object) -> None:
        real_init(self, *args)
        writers.append(weakref.ref(self))

    monkeypatch.setattr(W._Writer, "__init__", init)
    gc.disable()
    try:
        write_workbook(hand_result(), str(tmp_path / "x.xlsx"), META)
        assert len(writers) == 1 and writers[0]() is None
    finally:
        gc.enable()


def test_written_map_keeps_what_the_json_names(tmp_path: Path) -> None:
    """After the write the map still places every table quantity, total and parameter (what
    the JSON names), and no longer the Workings sheet's intermediate quantities."""
    result = hypterm_result()
    env = result.env()
    writer = W._Writer(result, META, env)
    writer.write(str(tmp_path / "h.xlsx"))
    cells = writer.cells
    workings = [q for q in writer.workings.quantities if id(q) not in writer.total_names]
    assert workings  # hypterm's formulas refer to quantities no table shows
    assert all(cells.home(q) is None for q in workings)
    for table in result.tables.values():
        for row in table.rows + ([table.totals] if table.totals else []):
            for value in row.values():
                if isinstance(value, Quantity):
                    assert cells.cell(value) is not None, value.key
    assert all(cells.cell(q) is not None for q in result.totals.values())
    assert cells.parameter_cell(result.parameters[0].name).startswith("Parameters!$B$")
    book = openpyxl.load_workbook(tmp_path / "h.xlsx", read_only=True)
    assert book["Workings"].max_row >= len(workings) + 3  # title, description, header
