"""Public HPC codes, their main kernels counted by hand.

Each code's files sit under ``tests/data/public/<code>/`` exactly as its repository has them
(``manifest.json``: source, commit, licence, flags; the licence file beside them). Each entry
runs through satreport from its folder with its flags, and the tests assert, per main
kernel, what a hand count of the source gives for the stated problem size: flops by kind,
iterations, bytes per iteration and the compulsory bytes (every distinct element once, a
written element 16 B: its line read for ownership, then written back; doubles 8 B, integers
4 B). Every run is also within its physical bounds.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

PUBLIC = Path(__file__).resolve().parent / "data" / "public"
ENTRIES = {entry["id"]: (code, entry) for code in sorted(PUBLIC.iterdir()) if code.is_dir()
           for entry in json.loads((code / "manifest.json").read_text())["files"]}


@pytest.fixture(scope="module")
def runs(tmp_path_factory) -> dict[str, dict]:
    """Every entry with loops through satreport once: its JSON, by id."""
    out = tmp_path_factory.mktemp("public")
    found = {}
    for ident, (code, entry) in ENTRIES.items():
        json_path = out / f"{ident}.json"
        # "with": further files of the code read in the same run (a module it uses)
        done = subprocess.run([sys.executable, "-m", "sat", *entry.get("with", []),
                               entry["source"], *entry["flags"], "-q", "--json",
                               str(json_path)], cwd=code, capture_output=True, text=True,
                              timeout=600)
        assert done.returncode == 0 and "Traceback" not in done.stderr, \
            f"{ident}: exit {done.returncode}: {done.stderr[-2000:]}"
        found[ident] = json.loads(json_path.read_text())
    return found


def nest(data: dict, procedure: str, line: int | None = None) -> dict:
    """The Loops row of ``procedure``'s nest (at ``line``, when it has several)."""
    rows = [r for r in data["loops"] if r["procedure"] == procedure
            and (line is None or r["line"] == line)]
    assert len(rows) == 1, [(r["procedure"], r["line"]) for r in data["loops"]]
    return rows[0]


def bytes_per_iteration(row: dict) -> float:
    return row["levels"][0]["bytes_per_iteration"]


def test_every_manifest_entry_names_its_file_commit_and_licence():
    assert len({code for code, _ in ENTRIES.values()}) >= 3
    for ident, (code, entry) in ENTRIES.items():
        for name in (entry["source"], *entry.get("with", [])):
            assert (code / name).is_file(), ident
        assert (code / "LICENSE").is_file(), ident
        assert len(entry["commit"]) == 40 and entry["repository"] and entry["license"], ident


@pytest.mark.parametrize("ident", sorted(ENTRIES))
def test_a_public_code_runs_within_its_bounds(ident, runs):
    data = runs[ident]
    assert data["bounds_violations"] == []
    assert data["loops"]


# HPCCG's CG vectors, n = 1,000,000 (its 100 x 100 x 100 local grid), doubles


def test_hpccg_ddot(runs):
    row = nest(runs["hpccg_f90_vectors"], "ddot")
    # local_result = local_result + x(i) * y(i): 1 add, 1 multiply per i, 1,000,000 i
    assert (row["adds"], row["multiplies"], row["divides"]) == (1, 1, 0)
    assert row["iter_x"] * row["sweeps"] == 1_000_000
    assert row["gflops"] == pytest.approx(2 * 1_000_000 / 1e9)
    # x(i) and y(i) read: 8 + 8 = 16 B per i; compulsory 16 B * 1e6 = 0.016 GB
    assert bytes_per_iteration(row) == pytest.approx(16)
    assert row["traffic_blocks_gb"] == pytest.approx(0.016)


def test_hpccg_ddot1_reads_one_vector(runs):
    row = nest(runs["hpccg_f90_vectors"], "ddot1")
    # x(i) * x(i): 1 add, 1 multiply; one 8 B element per i: 0.008 GB
    assert (row["adds"], row["multiplies"]) == (1, 1)
    assert bytes_per_iteration(row) == pytest.approx(8)
    assert row["traffic_blocks_gb"] == pytest.approx(0.008)


def test_hpccg_waxpby(runs):
    row = nest(runs["hpccg_f90_vectors"], "waxpby")
    # w(i) = alpha * x(i) + beta * y(i): 1 add, 2 multiplies per i
    assert (row["adds"], row["multiplies"], row["divides"]) == (1, 2, 0)
    assert row["gflops"] == pytest.approx(3 * 1_000_000 / 1e9)
    # x, y read (8 + 8 B), w written (16 B): 32 B per i; 0.032 GB
    assert bytes_per_iteration(row) == pytest.approx(32)
    assert row["traffic_blocks_gb"] == pytest.approx(0.032)


def test_hpccg_vector_updates_in_place(runs):
    data = runs["hpccg_f90_vectors"]
    for procedure in ("wwpby", "wxbw"):  # w = w + beta*y, w = x + beta*w: 1 add, 1 multiply
        row = nest(data, procedure)
        assert (row["adds"], row["multiplies"]) == (1, 1)
        # w read and written back (16 B), the other vector read (8 B): 24 B per i
        assert bytes_per_iteration(row) == pytest.approx(24)
    row = nest(data, "vcopy")  # y(i) = x(i): no flop, 8 B read + 16 B written
    assert (row["adds"], row["multiplies"], row["gflops"]) == (0, 0, 0)
    assert bytes_per_iteration(row) == pytest.approx(24)


def test_hpccg_spmv_iterations(runs):
    row = nest(runs["hpccg_f90_spmv"], "spmv")
    # do i = 1, A%local_nrow: 1,000,000 rows; the flags give each row 27 nonzeros
    # (rowindex(i) = 1, rowindex(i+1) = 28: HPCCG's 27-point matrix, an interior row)
    assert row["iter_x"] * row["sweeps"] == 1_000_000
    gather = next(g for g in runs["hpccg_f90_spmv"]["gathers"] if g["procedure"] == "spmv")
    assert gather["array"] == "x" and gather["index"] == "a%colindex"
    assert gather["references"] == 27 * 1_000_000


def test_hpccg_spmv_flops_and_compulsory_bytes(runs):
    row = nest(runs["hpccg_f90_spmv"], "spmv")
    # rowsum = rowsum + A%values(k) * x(A%colindex(k)): 1 add, 1 multiply per nonzero,
    # 27 per row: 54 flops * 1e6 rows = 0.054 Gflop
    assert row["gflops"] == pytest.approx(0.054)
    # compulsory: values 27e6 * 8 B = 216 MB, colindex 27e6 * 4 B = 108 MB, rowindex
    # (1e6 + 1) * 4 B = 4 MB, x's 1e6 elements once (the indices pick them all) 8 MB,
    # y written 1e6 * 16 B = 16 MB: 352 MB
    assert row["traffic_blocks_gb"] == pytest.approx(0.352, rel=1e-3)


# miniAMR's 7-point stencil (stencil_calc, stencil_in == 7): 1,000 blocks of 16^3 cells


def test_miniamr_seven_point_stencil(runs):
    row = nest(runs["miniamr_stencil"], "stencil_calc", 85)
    # work = (six neighbours + the cell) / 7.0: 6 adds, 1 divide per cell
    assert (row["adds"], row["multiplies"], row["divides"]) == (6, 0, 1)
    # the in loop over 1,000 blocks around i, j, k = 1..16
    assert row["sweeps"] == 1000
    assert (row["iter_x"], row["iter_y"], row["iter_z"]) == (16, 16, 16)
    assert row["gflops"] == pytest.approx(7 * 1000 * 16**3 / 1e9)  # 0.028672
    # per block: the block's array read over the star's union, 16^3 + 6 * 16^2 = 5,632
    # elements * 8 B, and work written, 16^3 * 16 B: 45,056 + 65,536 = 110,592 B; the model
    # counts work once per block (a scratch of 46 KiB that could stay in cache between
    # blocks: each block's pass is counted as a pass of its own)
    assert row["traffic_blocks_gb"] == pytest.approx(1000 * 110_592 / 1e9)


def test_miniamr_copy_back(runs):
    row = nest(runs["miniamr_stencil"], "stencil_calc", 95)
    # bp->array[var][i][j][k] = work[i][j][k]: no flop; 8 B read + 16 B written per cell
    assert row["gflops"] == 0
    assert bytes_per_iteration(row) == pytest.approx(24)
    assert row["traffic_blocks_gb"] == pytest.approx(1000 * 16**3 * 24 / 1e9)  # 0.098304


def test_miniamr_27_point_arm_is_not_taken(runs):
    # the else arm (27 points) runs with probability 1 - 1 = 0 under conds.xml
    row = nest(runs["miniamr_stencil"], "stencil_calc", 105)
    assert row["gflops"] == 0 and row["traffic_blocks_gb"] == 0


# TheBandwidthBenchmark, Fortran: n = 20,000,000 doubles (its constants.f90)
BANDWIDTH = {  # kernel: (adds, multiplies, bytes per iteration), by hand
    "init": (0, 0, 16),     # a(i) = scalar: a written
    "summ": (1, 0, 8),      # summe = summe + a(i): a read
    "copy": (0, 0, 24),     # a(i) = b(i): b read, a written
    "update": (0, 1, 16),   # a(i) = a(i) * scalar: a read and written back
    "triad": (1, 1, 32),    # a(i) = b(i) + scalar * c(i): b, c read, a written
    "daxpy": (1, 1, 24),    # a(i) = a(i) + scalar * b(i): a read and written, b read
    "striad": (1, 1, 40),   # a(i) = b(i) + c(i) * d(i): b, c, d read, a written
    "sdaxpy": (1, 1, 32),   # a(i) = a(i) + b(i) * c(i): a read and written, b, c read
}


@pytest.mark.parametrize("kernel", sorted(BANDWIDTH))
def test_bandwidth_benchmark_kernel(kernel, runs):
    adds, multiplies, per_iteration = BANDWIDTH[kernel]
    row = nest(runs["bandwidth_f90_kernels"], kernel)
    assert row["iter_x"] * row["sweeps"] == 20_000_000  # n from constants.f90
    assert (row["adds"], row["multiplies"], row["divides"]) == (adds, multiplies, 0)
    assert row["gflops"] == pytest.approx((adds + multiplies) * 20_000_000 / 1e9)
    assert bytes_per_iteration(row) == pytest.approx(per_iteration)
    # every element once: the bytes per iteration times n (triad: 32 B * 2e7 = 0.64 GB)
    assert row["traffic_blocks_gb"] == pytest.approx(per_iteration * 20_000_000 / 1e9)
