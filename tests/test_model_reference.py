"""Parity with the original ExaSAT sheet for hypterm-cns-fused.xml (tests/data/exasat/tsv).

Expected numbers are read from hypterm.values.tsv (the sheet evaluated); the parameters from
its top rows.  The original counted traffic in 2^30-byte "GBytes" and divided it by a
10^9-based bandwidth: traffic is compared in bytes, DRAM times after the 2^30/10^9 factor.
"""

from __future__ import annotations

import pytest
from lxml import etree
from reference_sheet import DATA, sheet, sheet_parameters

from sat.model.build import build_model
from sat.parameter import ParameterSet
from sat.xmlio import read_program

GIB = 2.0**30
REL = 1e-3  # 0.1 %

def column(letters: str) -> int:
    n = 0
    for ch in letters:
        n = n * 26 + ord(ch) - 64
    return n - 1


def cell(rows: list[list[str]], ref: str) -> str:
    letters = "".join(ch for ch in ref if ch.isalpha())
    row = int(ref[len(letters):]) - 1
    values = rows[row]
    index = column(letters)
    return values[index] if index < len(values) else ""


def num(rows: list[list[str]], ref: str) -> float:
    return float(cell(rows, ref))


def reference_params(rows: list[list[str]]) -> ParameterSet:
    params = sheet_parameters(rows)
    x, y, z = (num(rows, f"B{i}") for i in (2, 3, 4))
    for k, extent in ((1, x), (2, y), (3, z)):
        params.symbol_values[f"lo({k})"] = (1, "test")
        params.symbol_values[f"hi({k})"] = (extent, "test")
    params.symbol_values["ng"] = (num(rows, "B8"), "test")
    params.symbol_values["nspecies"] = (num(rows, "B9"), "test")
    tree = etree.parse(str(DATA / "config" / "symsubs.xml"))
    for prop in tree.iter("prop"):
        params.symsubs[prop.get("key")] = prop.get("val")
    return params


# one pytest-xdist worker runs this module's tests: the reference model built once (tests/run.sh)
pytestmark = pytest.mark.xdist_group("model_reference")


@pytest.fixture(scope="module")
def model():
    rows = sheet()
    program = read_program(str(DATA / "xml" / "hypterm-cns-fused.xml"))
    result = build_model(program, reference_params(rows))
    return rows, result, result.env()


def find_row(rows: list[list[str]], start: str, line: int) -> int:
    """Sheet row number (1-based) of a nest's row after the section title ``start``."""
    begin = next(i for i, r in enumerate(rows) if r and r[0] == start)
    for i in range(begin, len(rows)):
        if len(rows[i]) > 1 and rows[i][1] == str(line):
            return i + 1
    raise AssertionError(f"no row for line {line} in {start}")


def table_row(result, table: str, line: int) -> dict:
    return next(r for r in result.tables[table].rows if r["line"] == line)


LOOP_WS = {  # sheet column -> Loops key
    "W": "ws_naive_plane_kb", "X": "ws_naive_pencil_kb", "Y": "ws_naive_cell_kb",
    "Z": "ws_stream_plane_kb", "AA": "ws_stream_pencil_kb", "AB": "ws_stream_cell_kb",
    "AC": "ws_reuse_plane_kb", "AD": "ws_reuse_pencil_kb", "AE": "ws_reuse_cell_kb",
    "AF": "ws_actual_plane_kb", "AG": "ws_actual_pencil_kb", "AH": "ws_actual_cell_kb",
}
LOOP_TRAFFIC = {"AJ": "traffic_planes_gb", "AK": "traffic_pencils_gb",
                "AL": "traffic_within_gb", "AM": "traffic_none_gb", "AN": "traffic_gb"}


def close(actual: float, expected: float) -> bool:
    return actual == pytest.approx(expected, rel=REL, abs=1e-12)


@pytest.mark.parametrize("line", [43, 81])
def test_loops_row(model, line):
    rows, result, env = model
    r = find_row(rows, "LOOP ANALYSIS", line)
    row = table_row(result, "Loops", line)
    for col, key in {"D": "iter_x", "E": "iter_y", "F": "iter_z", "G": "block_x",
                     "H": "block_y", "I": "block_z", "J": "block_x_lines", "K": "blocks",
                     "C": "sweeps"}.items():
        assert close(row[key].value(env), num(rows, f"{col}{r}")), key
    for col, key in {"L": "adds", "M": "multiplies", "N": "divides", "O": "specials",
                     "P": "gp_regs", "Q": "fp_regs", "R": "rw_arrays", "S": "w_arrays",
                     "T": "rww_planes", "U": "rww_pencils", "V": "rww_cells"}.items():
        assert row[key] == num(rows, f"{col}{r}"), key
    for col, key in LOOP_WS.items():
        assert close(row[key].value(env), num(rows, f"{col}{r}")), key
    for col, key in LOOP_TRAFFIC.items():  # bytes
        assert close(row[key].value(env) * 1e9, num(rows, f"{col}{r}") * GIB), key
    assert close(row["gflops"].value(env), num(rows, f"AO{r}"))
    assert close(row["weighted_gflops"].value(env), num(rows, f"AP{r}"))
    assert close(row["bytes_per_flop"].value(env), num(rows, f"AQ{r}"))
    assert close(row["time_cpu_s"].value(env), num(rows, f"AR{r}"))
    dram = num(rows, f"AS{r}") * GIB / 1e9
    assert close(row["time_dram_s"].value(env), dram)
    assert close(row["time_s"].value(env), max(num(rows, f"AR{r}"), dram))


def test_loops_totals_and_defined_names(model):
    rows, result, env = model
    r = find_row(rows, "LOOP ANALYSIS", 81) + 1  # the Total/Max row
    assert cell(rows, f"A{r}") == "Total/Max"
    totals = result.tables["Loops"].totals
    for col, key in {"AF": "ws_actual_plane_kb", "AG": "ws_actual_pencil_kb",
                     "AH": "ws_actual_cell_kb", "AO": "gflops", "AP": "weighted_gflops",
                     "AR": "time_cpu_s"}.items():
        assert close(totals[key].value(env), num(rows, f"{col}{r}")), key
    for col, key in LOOP_TRAFFIC.items():
        assert close(totals[key].value(env) * 1e9, num(rows, f"{col}{r}") * GIB), key
    assert close(totals["time_dram_s"].value(env), num(rows, f"AS{r}") * GIB / 1e9)
    assert close(result.totals["Total_Traffic_GB"].value(env), num(rows, f"AN{r}") * GIB / 1e9)
    assert close(result.totals["Total_GFlops"].value(env), num(rows, f"AO{r}"))
    assert close(result.totals["Total_Weighted_GFlops"].value(env), num(rows, f"AP{r}"))
    assert close(result.totals["Total_Time_s"].value(env), num(rows, f"AT{r}") * GIB / 1e9)
    assert "Footprint_GiB" in result.totals


def test_setup_loop_is_noted_not_reported(model):
    # hypterm's `do i = 1, 3` (line 76) has no row in the original sheet: constant bounds,
    # only 1-D arrays dx/dxinv.  satreport leaves it out of the Loops sheet and says so.
    _, result, _ = model
    assert [r["line"] for r in result.tables["Loops"].rows] == [43, 81]
    assert any(n.line == 76 and "not modelled" in n.message for n in result.notes)
    assert any("10^9/2^30" in n.message for n in result.notes)


@pytest.mark.parametrize("line", [43, 81])
def test_alternative_blocking(model, line):
    rows, result, env = model
    r = find_row(rows, "WOODWARD LOOP ANALYSIS", line)
    row = table_row(result, "Alternative blocking", line)
    for col, key in {"G": "block_x", "H": "block_y", "I": "block_z", "J": "block_x_lines",
                     "K": "blocks", "V": "ws_kb", "AA": "gflops", "AB": "weighted_gflops",
                     "AD": "time_cpu_s"}.items():
        assert close(row[key].value(env), num(rows, f"{col}{r}")), key
    for col, key in {"R": "resident", "S": "read_arrays", "T": "write_arrays",
                     "U": "rw_arrays"}.items():
        assert row[key] == num(rows, f"{col}{r}"), key
    # The block does not fit in 1024 KiB: the original shows N/A / #VALUE!; satreport falls
    # back to the traditional traffic of the nest.
    assert cell(rows, f"W{r}") == "N/A" and cell(rows, f"Z{r}") == "#VALUE!"
    assert row["fits"].value(env) == 0
    loops = table_row(result, "Loops", line)
    assert row["traffic_gb"].value(env) == loops["traffic_gb"].value(env)


def test_alternative_blocking_when_it_fits(model):
    # With a cache that holds the block (8192 KiB > 4960 KiB), hypterm's traffic is its
    # inputs read once and its outputs written once, per block footprint with halos.
    rows, result, _ = model
    env = result.env({"CacheKB": 8192})
    row = table_row(result, "Alternative blocking", 81)
    # 8 inputs: cons x4 and q.qpres star(4): (16+8)*16*128 + 16*(16+8)*128 + 16*16*(128+8)
    # - 2*16*16*128 = 67584 each; q.qu/qv/qw = 24*16*128, 16*24*128, 16*16*136 = 49152,
    # 49152, 34816 -> 5*67584 + 133120 = 471040 elements per block; 64 blocks, 8 B each.
    assert row["read_gb"].value(env) * 1e9 == pytest.approx(8 * 64 * 471040)
    # 5 flux outputs, 16*16*128 per block, write cost 16 B.
    assert row["write_gb"].value(env) * 1e9 == pytest.approx(16 * 64 * 5 * 32768)
    assert row["traffic_gb"].value(env) * 1e9 == pytest.approx(8 * 64 * 471040
                                                               + 16 * 64 * 5 * 32768)


ARRAY_COLUMNS = {"L": "access_x", "M": "access_y", "N": "access_z", "O": "access_x_lines",
                 "Z": "ws_plane_kb", "AA": "ws_pencil_kb", "AB": "ws_cell_kb",
                 "AC": "reuse_plane_kb", "AD": "reuse_pencil_kb", "AE": "reuse_cell_kb"}
ARRAY_COUNTS = {"P": "copies", "Q": "planes", "R": "pencils", "S": "cells", "T": "ws_planes",
                "U": "ws_pencils", "V": "ws_cells", "W": "reuse_planes", "X": "reuse_pencils",
                "Y": "reuse_cells"}
ARRAY_TRAFFIC = {"AF": "traffic_planes_gb", "AG": "traffic_pencils_gb",
                 "AH": "traffic_within_gb", "AI": "traffic_none_gb"}


def detailed_rows(rows: list[list[str]]):
    """(line, array name, sheet row number) of every DETAILED READ-ONLY ARRAY INFO row."""
    begin = next(i for i, r in enumerate(rows) if r and r[0] == "DETAILED READ-ONLY ARRAY INFO")
    end = next(i for i, r in enumerate(rows) if r and r[0] == "ARRAY READ-WRITE TABLES")
    line = None
    for i in range(begin, end):
        r = rows[i]
        if r and r[0] == "Loop line num:":
            line = int(r[1])
        elif len(r) > 3 and r[2] not in ("", "Name", "Total") and line is not None:
            yield line, r[2], i + 1


def test_detailed_array_rows(model):
    rows, result, env = model
    found = list(detailed_rows(rows))
    assert len(found) == 15 + 8
    for line, name, r in found:
        row = next(a for a in result.tables["Arrays"].rows
                   if a["line"] == line and a["array"] == name)
        assert row["access"] == "R"
        for col, key in ARRAY_COUNTS.items():
            assert row[key] == num(rows, f"{col}{r}"), (name, key)
        for col, key in ARRAY_COLUMNS.items():
            assert close(row[key].value(env), num(rows, f"{col}{r}")), (name, key)
        for col, key in ARRAY_TRAFFIC.items():
            assert close(row[key].value(env) * 1e9, num(rows, f"{col}{r}") * GIB), (name, key)
