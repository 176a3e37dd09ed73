"""Gathers at the cache levels: a CSR row's contiguous arrays share their lines.

The machine is tests/data/machines/toy-roofline.yml with its L1 set to 512 B (8 lines of
64 B).  The nest is a CSR product over 1024 rows of 4 entries (rowptr_r = 0,
rowptr_r_1 = 4: 4096 entries), x of 8192 doubles (64 KiB, 1024 lines) gathered through col.

The row loop ``k`` moves with ``r``: its trips are copies of a cell, but ``val(k)`` and
``col(k)`` of one row follow each other in memory, so between two uses of a line of val the
stream keeps that one line.  Counted by hand, the lines a cell keeps at L1:

- rowptr(r), rowptr(r+1): a span of 1 element, CEILING(1/16) + 1 = 2 lines;
- col(k), val(k), x(col(k)): one line each (one run, not one line per copy): 3 lines;
- y(r): 1 line;

6 lines = 384 B = 0.375 KiB <= 0.5 KiB: the reuse holds at L1 (case planes).  Counting one
line per copy (the components of an ExaSAT cell) would give 2 + 3 x 4 + 1 = 15 lines and a
line per access at L1.

Traffic at L1 (the regular streams, then the gather):
- val 4096 x 8 = 32,768 B; col 4096 x 4 = 16,384 B; y read and written 1024 x 8 x 2 =
  16,384 B; x as a stream 4096 x 8 = 32,768 B; rowptr 1025 elements x 4 B rounded to 65
  lines = 4,160 B: 102,464 B;
- the gather replaces x's 32,768 B by its lines: 4096 visits over 1024 lines, the other
  streams' working set 64 B leaves 0.4375 KiB; miss = 1 - 0.4375/64; lines = 1024 + 3072 x
  (1 - 0.4375/64) = 1024 + 3072 - 21 = 4075; 4075 x 64 = 260,800 B;
- L1 traffic = 102,464 - 32,768 + 260,800 = 330,496 B.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sat.cli import main

MACHINE = str(Path(__file__).parent / "data" / "machines" / "toy-roofline.yml")

CSR_F90 = """\
subroutine spmv(rowptr, col, val, x, y)
  integer :: rowptr(1025), col(4096)
  double precision :: val(4096), x(8192), y(1024)
  integer :: r, k
  do r = 1, 1024
    do k = rowptr(r), rowptr(r + 1) - 1
      y(r) = y(r) + val(k) * x(col(k))
    end do
  end do
end subroutine spmv
"""

CSR_C = """\
void spmv(int rowptr[1025], int col[4096], double val[4096], double x[8192], double y[1024])
{
    for (int r = 0; r < 1024; r++) {
        for (int k = rowptr[r]; k < rowptr[r + 1]; k++) {
            y[r] += val[k] * x[col[k]];
        }
    }
}
"""

# ExaSAT's component loop: the five components of q(m,i) are separate streams of a cell
COMPONENTS = """\
subroutine comp(q, f)
  integer :: i, m
  double precision :: q(5, 1024), f(5, 1024)
  do i = 1, 1024
    do m = 1, 5
      f(m, i) = q(m, i) * 2.0d0
    end do
  end do
end subroutine comp
"""

L1_TRAFFIC = 102464 - 32768 + 4075 * 64  # 330,496 B, see the module docstring


def l1(tmp_path: Path, name: str, source: str, *options: str) -> dict:
    path, out = tmp_path / name, tmp_path / "out.json"
    path.write_text(source)
    assert main([str(path), "-m", MACHINE, "--set", "L1KB=0.5", "--json", str(out), "-q",
                 *options]) == 0
    return json.loads(out.read_text())["loops"][0]["levels"][0]


CSR_SETS = ("--set", "rowptr_r=0", "--set", "rowptr_r_1=4")


def test_csr_row_keeps_one_line_per_stream_fortran(tmp_path: Path) -> None:
    level = l1(tmp_path, "csr.f90", CSR_F90, *CSR_SETS)
    assert level["ws_cell_kb"] == pytest.approx(6 * 64 / 1024)  # 6 lines, not 15
    assert level["layer_condition"] == "planes"
    assert level["traffic_gb"] * 1e9 == pytest.approx(L1_TRAFFIC)


def test_csr_row_keeps_one_line_per_stream_c(tmp_path: Path) -> None:
    level = l1(tmp_path, "csr.c", CSR_C, *CSR_SETS)
    assert level["layer_condition"] == "planes"
    assert level["traffic_gb"] * 1e9 == pytest.approx(L1_TRAFFIC)


def test_longer_rows_keep_the_same_lines(tmp_path: Path) -> None:
    # 8 entries per row: still one line per stream (one line per copy would be 2 + 3 x 8 + 1
    # = 27 lines); val 8192 x 8 + col 8192 x 4 + y 16,384 + x 65,536 + rowptr 4,160 = 184,384 B
    # of streams at L1 in the planes case
    level = l1(tmp_path, "csr.f90", CSR_F90.replace("4096", "8192"), "--set", "rowptr_r=0",
               "--set", "rowptr_r_1=8")
    assert level["ws_cell_kb"] == pytest.approx(6 * 64 / 1024)
    assert level["layer_condition"] == "planes"
    streams = (level["traffic_gb"] - level["gathers_gb"]) * 1e9
    assert streams == pytest.approx(8192 * 8 + 8192 * 4 + 16384 + 8192 * 8 + 4160)


def test_component_loop_keeps_a_line_per_component(tmp_path: Path) -> None:
    # q(m,i), f(m,i), m = 1..5: each component its own line, 5 + 5 = 10 lines = 0.625 KiB >
    # 0.5 KiB: a line per access at L1 (as the ExaSAT reference counts components)
    level = l1(tmp_path, "comp.f90", COMPONENTS)
    assert level["ws_cell_kb"] == pytest.approx(10 * 64 / 1024)
    assert level["layer_condition"] == "none"


# A scatter in a procedure the nest calls: the caller's time loop runs it 3 times.
CALLED_SCATTER = """\
int idx[4096];
double x[8192];
double v[4096];

void sweep(void)
{
    for (int i = 0; i < 4096; i++) {
        x[idx[i]] = x[idx[i]] + 0.25 * v[i];
    }
}

void kernel(void)
{
    for (int t = 0; t < 3; t++) {
        sweep();
    }
}
"""


def test_scatter_in_a_called_procedure_is_the_nests(tmp_path: Path) -> None:
    # toy-roofline: L1 32 KiB, L2 256 KiB.  x spans 8192 x 8 B = 64 KiB (the callee's
    # declaration) = 1024 lines; 3 x 4096 = 12,288 visits; the other streams keep
    # idx 4 B + v 8 B = 12 B.
    # L1: left = 32,768 - 12 = 32,756 B; miss = 1 - 32,756/65,536 = 32,780/65,536;
    #     lines = 1024 + 11,264 x 32,780/65,536 = 6658.0625; x 64 B x 2 (read for ownership,
    #     written back) = 852,232 B.
    # L2: the range fits: the 1024 lines once, x 128 B = 131,072 B.
    path, out = tmp_path / "call.c", tmp_path / "out.json"
    path.write_text(CALLED_SCATTER)
    assert main([str(path), "-m", MACHINE, "--json", str(out), "-q"]) == 0
    data = json.loads(out.read_text())
    (row,) = data["gathers"]
    assert (row["procedure"], row["array"], row["index"]) == ("kernel", "x", "idx")
    assert row["references"] == 12288
    assert row["range_kb"] == 64
    levels = {lv["level"]: lv for lv in data["loops"][0]["levels"]}
    assert levels["L1"]["gathers_gb"] * 1e9 == pytest.approx(
        (1024 + 11264 * 32780 / 65536) * 128)
    assert levels["L2"]["gathers_gb"] * 1e9 == pytest.approx(131072)


@pytest.mark.libreoffice
def test_editing_l1_in_the_workbook_moves_the_csr_case_as_set_does(tmp_path: Path) -> None:
    # L1 0.5 KiB holds the 6 lines (planes); 0.25 KiB (4 lines) does not: a line per access
    from libreoffice import recalculate_edited, value_at

    path, book_path = tmp_path / "csr.f90", tmp_path / "csr.xlsx"
    path.write_text(CSR_F90)

    def run(*options: str) -> dict:
        out = tmp_path / "out.json"
        assert main([str(path), "-m", MACHINE, "--json", str(out), "-q", *CSR_SETS,
                     *options]) == 0
        return json.loads(out.read_text())["loops"][0]["levels"][0]

    written = run("--set", "L1KB=0.5", "-o", str(book_path))
    expected = run("--set", "L1KB=0.25")
    assert (written["layer_condition"], expected["layer_condition"]) == ("planes", "none")
    book = recalculate_edited(book_path, {"L1KB": 0.25}, tmp_path / "lo")
    for key in ("ws_cell_kb", "gathers_gb", "traffic_gb"):
        assert value_at(book, written["cells"][key]) == pytest.approx(expected[key],
                                                                      rel=1e-9), key
    assert value_at(book, written["cells"]["ws_cell_kb"]) == pytest.approx(6 * 64 / 1024)
