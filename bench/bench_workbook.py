"""Workbook size and speed for a big program: write time, file size, LibreOffice recalculation.

Builds a synthetic ModelResult shaped like the model's (a Loops sheet of N nests with about
40 formula columns each, an Arrays sheet of 8 array rows per nest, totals), writes the workbook
with ``sat.report.workbook.write_workbook`` and recalculates it once in headless LibreOffice
with recalculation forced (skipped when ``soffice`` is missing).

Usage: ``python bench/bench_workbook.py [N_NESTS]`` (default 400)

``python bench/bench_workbook.py --generated [N_NESTS]`` times instead the workbook of the real
model of a generated N-nest module (``generate_fortran.py``; parsed and modelled first, not
timed): three writes, each time printed, the best against the 2 s target.
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

from sat.model import expr as E  # noqa: E402
from sat.model.expr import Param as P  # noqa: E402
from sat.model.expr import Quantity  # noqa: E402
from sat.model.tables import Column, ModelResult, Table  # noqa: E402
from sat.parameter import Parameter  # noqa: E402
from sat.report.workbook import WorkbookMeta, write_workbook  # noqa: E402

MACHINE = {"Cores": 1024, "GBsPerCore": 1, "GflopsPerCore": 10, "FPRegs": 16, "CacheKB": 1024,
           "WordBytes": 8, "LineBytes": 64, "ReadCost": 8, "ReadWriteCost": 16,
           "WriteCost": 16, "DivCost": 39, "SpecialCost": 125, "Overlap": 1}
EXTRA_COLUMNS = 28  # working-set and traffic variants, as in the model's Loops sheet


def synthetic_result(n_nests: int) -> ModelResult:
    """``n_nests`` nests whose quantities chain through cell references like the model's."""
    params = [Parameter(k, v, group="machine", source="bench") for k, v in MACHINE.items()]
    params += [Parameter(f"hi_{d}", 128, group="problem", symbol=f"hi({d})") for d in (1, 2, 3)]
    params += [Parameter("ng", 4, group="problem", symbol="ng"),
               Parameter("StreamingWrites", 0, group="software", kind="boolean"),
               Parameter("NTAHints", 0, group="software", kind="boolean")]
    params += [Parameter(f"Block{a}", b, group="software", kind="integer")
               for a, b in (("X", 16), ("Y", 16), ("Z", 128))]
    ext = [P(f"hi_{d}") + 2 * P("ng") for d in (1, 2, 3)]
    columns = [Column("procedure", "function"), Column("line", "line"),
               Column("adds", "add"), Column("divides", "div")]
    columns += [Column(f"x{i}", f"variant {i}", "KiB") for i in range(EXTRA_COLUMNS)]
    columns += [Column(k, k, u) for k, u in (
        ("iterations", "cells"), ("blocks", ""), ("gflops", "Gflop"),
        ("weighted_gflops", "Gflop"), ("traffic_gb", "GB"), ("bytes_per_flop", "B/flop"),
        ("time_cpu_s", "s"), ("time_dram_s", "s"), ("time_s", "s"))]
    rows, array_rows = [], []
    for n in range(n_nests):
        adds, divs = 10 + n % 50, n % 3
        it = Quantity(("it", n), E.mul(*ext), "cells")
        blocks = Quantity(("blocks", n), E.ceiling(E.div(ext[0], P("BlockX")), 1)
                          * E.ceiling(E.div(ext[1], P("BlockY")), 1))
        variants = []
        for i in range(EXTRA_COLUMNS):
            base = E.Ref(variants[-1]) if variants else E.Ref(it)
            variants.append(Quantity(("x", n, i), base * P("WordBytes") / 1024
                                     + E.if_(P("StreamingWrites"), i, 0), "KiB"))
        gflops = Quantity(("gflops", n), (adds + divs) * E.Ref(it) / 1e9)
        weighted = Quantity(("weighted", n), (adds + P("DivCost") * divs) * E.Ref(it) / 1e9)
        fits = E.compare("<=", E.Ref(variants[3]), P("CacheKB"))
        traffic = Quantity(("traffic", n), E.Ref(it) * P("WordBytes") * E.if_(fits, 3, 5) / 1e9)
        cpu = Quantity(("cpu", n), E.div(weighted, P("GflopsPerCore") * P("Cores")))
        dram = Quantity(("dram", n), E.div(traffic, P("GBsPerCore") * P("Cores")))
        time_s = Quantity(("time", n), E.if_(P("Overlap"), E.maximum(cpu, dram), E.add(cpu, dram)))
        row = {"procedure": f"kernel_{n // 10:03d}", "line": 10 + 12 * n, "adds": adds,
               "divides": divs, "iterations": it, "blocks": blocks, "gflops": gflops,
               "weighted_gflops": weighted, "traffic_gb": traffic,
               "bytes_per_flop": Quantity(("bf", n), E.div(traffic, weighted)),
               "time_cpu_s": cpu, "time_dram_s": dram, "time_s": time_s}
        row.update({f"x{i}": q for i, q in enumerate(variants)})
        rows.append(row)
        for a in range(8):
            array_rows.append({"array": f"q{a}", "line": row["line"],
                               "traffic_gb": Quantity(("at", n, a), E.Ref(traffic) / 8)})
    totals = {k: Quantity(("total", k), E.add(*[r[k] for r in rows]))
              for k in ("gflops", "weighted_gflops", "traffic_gb", "time_cpu_s", "time_dram_s",
                        "time_s")}
    loops = Table("Loops", "Loop analysis", columns, rows, totals)
    arrays = Table("Arrays", "Arrays", [Column("array", "array"), Column("line", "line"),
                                        Column("traffic_gb", "traffic", "GB")], array_rows)
    return ModelResult(params, {"Loops": loops, "Arrays": arrays},
                       {"Total_Time_s": totals["time_s"], "Total_Traffic_GB": totals["traffic_gb"],
                        "Total_GFlops": totals["gflops"],
                        "Total_Weighted_GFlops": totals["weighted_gflops"]})


TARGET_S = 2.0
WRITES = 3


def generated(n_nests: int) -> None:
    """Write the workbook of the model of a generated ``n_nests``-nest module ``WRITES`` times."""
    sys.path.insert(0, str(ROOT / "bench"))
    from generate_fortran import generate_module

    from sat.frontend import read_sources
    from sat.machine import load_machine
    from sat.model.build import build_model
    from sat.parameters import build_parameters

    with tempfile.TemporaryDirectory() as tmp:
        source = Path(tmp) / "generated.f90"
        source.write_text(generate_module(n_nests, seed=0))
        machine = load_machine(None)
        result = build_model(read_sources([str(source)]), build_parameters(machine))
        env = result.env()
        meta = WorkbookMeta([source.name], machine.name, machine.source, "bench", "2026-01-01")
        times = []
        for _ in range(WRITES):
            start = time.perf_counter()
            write_workbook(result, str(Path(tmp) / "generated.xlsx"), meta, env)
            times.append(time.perf_counter() - start)
        formulas = sum(isinstance(v, Quantity) for t in result.tables.values()
                       for r in t.rows for v in r.values())
        best = min(times)
        print(f"generated module, {n_nests} nests: about {formulas:,} formula cells in tables")
        print("write times: " + ", ".join(f"{t:.2f} s" for t in times))
        print(f"best of {WRITES}: {best:.2f} s: {best / TARGET_S:.2f} of the target "
              f"({'met' if best <= TARGET_S else 'NOT met'})")


def main() -> None:
    if "--generated" in sys.argv:
        rest = [a for a in sys.argv[1:] if a != "--generated"]
        generated(int(rest[0]) if rest else 400)
        return
    n_nests = int(sys.argv[1]) if len(sys.argv) > 1 else 400
    result = synthetic_result(n_nests)
    meta = WorkbookMeta(["synthetic.f90"], "bench", "bench", "bench", "2026-01-01")
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "bench.xlsx"
        start = time.perf_counter()
        write_workbook(result, str(path), meta)
        written = time.perf_counter() - start
        formulas = sum(isinstance(v, Quantity) for t in result.tables.values()
                       for r in t.rows for v in r.values())
        print(f"nests: {n_nests}, formula cells: about {formulas:,}")
        print(f"write time: {written:.2f} s, size: {path.stat().st_size / 1e6:.2f} MB")
        try:
            import pytest
            from libreoffice import recalculate
        except ImportError:
            print("LibreOffice recalculation: skipped (pytest not installed)")
            return
        try:
            start = time.perf_counter()
            recalculate([path], Path(tmp) / "recalc")
            print(f"LibreOffice load + forced recalculation + save: "
                  f"{time.perf_counter() - start:.2f} s")
        except pytest.skip.Exception as skipped:
            print(f"LibreOffice recalculation: skipped ({skipped})")


if __name__ == "__main__":
    main()
