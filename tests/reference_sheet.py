"""Test helper: the original ExaSAT reference sheet (tests/data/exasat/tsv) and its parameters."""

from __future__ import annotations

import csv
from pathlib import Path

from sat.parameter import Parameter, ParameterSet

DATA = Path(__file__).parent / "data" / "exasat"

# sheet label -> satreport parameter name
SHEET_PARAMETERS = {
    "X Block Size": "BlockX", "Y Block Size": "BlockY", "Z Block Size": "BlockZ",
    "GB/s/thread": "GBsPerCore", "Gflop/s/thread": "GflopsPerCore",
    "Int Regs/thread": "IntRegs", "FP Regs/thread": "FPRegs", "Threads": "Cores",
    "$/thread group (kB)": "CacheKB", "Word Size": "WordBytes", "Cache Line Size": "LineBytes",
    "R cost": "ReadCost", "RW cost": "ReadWriteCost", "W cost": "WriteCost",
    "Division Cost": "DivCost", "Special Cost": "SpecialCost",
    "Streaming Writes": "StreamingWrites", "NTA Hints": "NTAHints",
    "NIC BW (GB/s)": "NICGBs", "NIC Latency (us)": "NICLatencyUs",
    "CPU/DRAM Overlap": "Overlap",
}


def sheet() -> list[list[str]]:
    """The evaluated reference sheet, row by row."""
    with open(DATA / "tsv" / "hypterm.values.tsv", newline="") as f:
        return list(csv.reader(f, delimiter="\t"))


def sheet_parameters(rows: list[list[str]]) -> ParameterSet:
    """The machine and software parameters printed at the top of the sheet (rows 2-28)."""
    params = ParameterSet()
    for row in rows[1:28]:
        name = SHEET_PARAMETERS.get(row[0])
        if name:
            text = row[1].strip()
            value = {"False": 0.0, "True": 1.0}.get(text)
            params.add(Parameter(name, float(text) if value is None else value))
    return params
