"""Gathers at the cache levels: a CSR row's contiguous arrays share their lines, and a
gather's lines compete with the nest's other arrays in an LRU cache.

The gather's lines at a level (:mod:`sat.model.irregular.gather_lru`): with ``C`` lines the
nest's other working set leaves of the level, ``sigma`` lines the other arrays load per
visit of the gather and ``L`` lines in the range, the cache reaches back ``u`` visits,

    sigma x u + L x (1 - exp(-u/L)) = C      (u at most V1, the visits of one pass)

and a pass of ``V1`` visits moves ``L(1 - exp(-min(u, V1)/L)) + max(0, V1 - u) exp(-u/L)``
lines, each further pass of the same indices ``V1 exp(-u/L)`` (nothing when the pass fits).
:func:`lru_lines` below solves ``u`` by bisection, independently of the model's Newton steps.

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
- the gather replaces x's 32,768 B by its lines.  Of the 6 lines, x's own and rowptr's 2
  are not held for it (rowptr is touched once per row: its line stays only while the
  gather's visits of a row, 4096 / 1024 = 4, are fewer than the cache reaches back): the
  others keep 3, C = 8 - 3 = 5 lines.  They load val 512 + col 256 + y 128 (half of its
  16,384 B: the rest are write-backs) + rowptr 65 = 961 lines over V = 4096 visits of
  L = 1024 lines: sigma = 0.2346, u = 5 / (0.2346 + ~1) = 4.056 visits (> 4: rowptr keeps
  its line from row to row), a visit misses with exp(-4.056/1024) = 0.99605; lines = 1024
  (1 - 0.99605) + (4096 - 4.056) x 0.99605 = 4079.81 (the old rule, 1 - left/range, gave
  4075);
- L1 traffic = 102,464 - 32,768 + 4079.81 x 64 = 330,804 B.
"""

from __future__ import annotations

import json
import math
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



def lru_lines(left: float, streams: float, range_lines: float, visits: float,
              passes: float = 1) -> float:
    """The lines a gather moves (see the module docstring), ``u`` found by bisection."""
    sigma, pass_visits = streams / visits, visits / passes

    def excess(u: float) -> float:
        return sigma * u + range_lines * (1 - math.exp(-u / range_lines)) - left

    if left <= 0:
        u = 0.0
    elif excess(pass_visits) <= 0:
        u = pass_visits
    else:
        low, high = 0.0, pass_visits
        for _ in range(200):
            low, high = ((low + high) / 2, high) if excess((low + high) / 2) < 0 else \
                (low, (low + high) / 2)
        u = low
    miss = math.exp(-u / range_lines)
    first = range_lines * (1 - math.exp(-min(u, pass_visits) / range_lines)) + \
        max(0.0, pass_visits - u) * miss
    return first + (passes - 1) * (pass_visits * miss if u < pass_visits else 0)


L1_TRAFFIC = 102464 - 32768 + lru_lines(5, 961, 1024, 4096) * 64  # 330,804 B, see above


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
    assert level["traffic_gb"] * 1e9 == pytest.approx(L1_TRAFFIC, rel=1e-4)


def test_csr_row_keeps_one_line_per_stream_c(tmp_path: Path) -> None:
    level = l1(tmp_path, "csr.c", CSR_C, *CSR_SETS)
    assert level["layer_condition"] == "planes"
    assert level["traffic_gb"] * 1e9 == pytest.approx(L1_TRAFFIC, rel=1e-4)


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
    # declaration) = 1024 lines; 3 passes of 4096 = 12,288 visits, the same indices each
    # pass; the other streams keep a line each of idx and v (C = 512 - 2 = 510 lines at L1).
    # A pass touches idx 16 KiB, v 32 KiB and x's 64 KiB, 56 KiB per thread of the 2 cores:
    # more than L1, so every pass moves its streams there, 3 x (4096 x 4 + 4096 x 8) / 64 =
    # 2304 lines (sigma = 0.1875); L2 holds a pass: its streams move once, 768 lines.
    # L1: u = 526.04 (0.1875 x 526.04 + 1024 (1 - exp(-526.04/1024)) = 98.63 + 411.37 =
    #     510), a visit misses with exp(-526.04/1024) = 0.59827; first pass 1024 x 0.40173 +
    #     3569.96 x 0.59827 = 2547.4 lines, the two others 4096 x 0.59827 each: 7448.24
    #     lines, x 64 B x 2 (read for ownership, written back) = 953,374 B.
    # L2: a pass fits (u reaches its 4096 visits): its distinct lines only, 1024 (1 -
    #     exp(-4)) = 1005.24 lines, x 128 B = 128,671 B.
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
        lru_lines(510, 2304, 1024, 12288, 3) * 128, rel=1e-4)
    assert levels["L2"]["gathers_gb"] * 1e9 == pytest.approx(1024 * (1 - math.exp(-4)) * 128)


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


# x(idx(i)) written through 500 indices over 4000 doubles: 500 lines, as many visits
SCATTER_FITS = """\
subroutine sc(idx, x, v)
  integer :: idx(500)
  double precision :: x(4000), v(500)
  integer :: i
  do i = 1, 500
    x(idx(i)) = x(idx(i)) + 0.125d0 * v(i)
  end do
end subroutine sc
"""


def levels_of(tmp_path: Path, name: str, source: str, *options: str) -> dict[str, dict]:
    path, out = tmp_path / name, tmp_path / "out.json"
    path.write_text(source)
    assert main([str(path), "-m", MACHINE, "--json", str(out), "-q", *options]) == 0
    return {lv["level"]: lv for lv in json.loads(out.read_text())["loops"][0]["levels"]}


def test_a_range_that_fits_moves_the_distinct_lines_its_draws_pick(tmp_path: Path) -> None:
    # toy-roofline, L1 32 KiB (510 lines left beside idx's and v's) and L2 256 KiB: 500
    # visits touch 95 stream lines and 500 (1 - exp(-1)) = 316.06 distinct lines of x,
    # 411 < 510: nothing is pushed out, u = the 500 visits.  x's lines, read for ownership
    # and written back: 316.06 x 128 = 40,455.7 B (the old rule counted MIN(visits, range
    # lines) = 500 lines, 64,000 B; the cache simulation of the same nest, 4000 doubles
    # over 500 indices, at 16 KiB and 2 MiB: 49,600 and 46,912 B with its streams).
    # Streams: idx 500 x 4 B in 32 lines, 2048 B; v 500 x 8 B in 63 lines, 4032 B.
    levels = levels_of(tmp_path, "sc.f90", SCATTER_FITS, "--set", "SetupIterations=1")
    for name in ("L1", "L2"):
        assert levels[name]["traffic_gb"] * 1e9 == pytest.approx(
            2048 + 4032 + 500 * (1 - math.exp(-1)) * 128)


# the gather of a generated nest whose cache simulation is known (bench/differential, seed
# 0, nest 1584): 4000 floats of x, 250 lines, read and written through 4000 indices
SCATTER_C = """\
int idx[4000];
float x[4000];
float v[4000];

void kernel(void)
{
    for (int i = 0; i < 4000; i++) {
        x[idx[i]] = x[idx[i]] + (1.5f * v[i]);
    }
}
"""


def test_streams_push_a_fitting_range_out_of_an_lru_cache(tmp_path: Path) -> None:
    # L1 set to 16 KiB: x's 250 lines fit the 254 lines left, but idx and v bring 500 new
    # lines over the 4000 visits (sigma = 0.125): the cache reaches back u = 413.9 visits
    # (0.125 x 413.9 + 250 (1 - exp(-413.9/250)) = 51.7 + 202.3 = 254), a visit misses with
    # exp(-413.9/250) = 0.191: 250 x 0.809 + 3586.1 x 0.191 = 887.06 lines, x 128 B =
    # 113,544 B, with the streams' 32,000 B: 145,544 B.  The write-back cache simulation of
    # the nest at 16 KiB (bench/validation/cachesim.c) moves 138,624 B (+5.0 %); the old
    # rule (the range fits: its 250 lines once) gave 64,000 B (-54 %).
    levels = levels_of(tmp_path, "g.c", SCATTER_C, "--set", "L1KB=16")
    assert levels["L1"]["traffic_gb"] * 1e9 == pytest.approx(
        32000 + lru_lines(254, 500, 250, 4000) * 128, rel=1e-4)
    assert levels["L1"]["traffic_gb"] * 1e9 == pytest.approx(145544, rel=1e-4)
    assert levels["L1"]["traffic_gb"] * 1e9 == pytest.approx(138624, rel=0.06)


def test_a_row_longer_than_the_cache_reaches_takes_rowptr_at_every_row(tmp_path: Path) -> None:
    # rows of 16 entries (16,384 in all) at L1 512 B: C = 5 lines (as above); the others load
    # val 2048 + col 1024 + y 128 + rowptr 65 = 3265 lines over 16,384 visits (sigma =
    # 0.1993): u = 5 / 1.1993 = 4.18 visits < the 16 visits of a row, so rowptr's line is
    # gone when the next row reads it: 1024 rows x (1 + 1/16) lines x 64 B = 69,632 B in
    # place of its 4160 B as a stream (+65,472 B).  x: 16,317.3 lines x 64 B in place of
    # its 16,384 x 8 B as a stream.
    source = CSR_F90.replace("4096", "16384")
    level = l1(tmp_path, "csr.f90", source, "--set", "rowptr_r=0", "--set", "rowptr_r_1=16")
    assert level["gathers_gb"] * 1e9 == pytest.approx(
        lru_lines(5, 3265, 1024, 16384) * 64 - 16384 * 8 + 65472, rel=1e-4)


@pytest.mark.libreoffice
def test_editing_cluster_and_l2_in_the_workbook_recomputes_the_lru_lines(tmp_path: Path
                                                                         ) -> None:
    # ClusterElems_ 4 (a quarter of the visits) and an L2 of 128 KiB, edited in the workbook
    # and recalculated by LibreOffice, give what --set gives: the Newton steps are cells
    from libreoffice import recalculate_edited, value_at

    path, book_path = tmp_path / "g.c", tmp_path / "g.xlsx"
    path.write_text(SCATTER_C)

    def run(*options: str) -> list[dict]:
        out = tmp_path / "out.json"
        assert main([str(path), "-m", MACHINE, "--json", str(out), "-q", "--set",
                     "L1KB=16", *options]) == 0
        return json.loads(out.read_text())["loops"][0]["levels"]

    written = run("-o", str(book_path))
    edits = {"ClusterElems_kernel_7_x": 4, "L2KB": 128}
    expected = run(*[f"--set={name}={value}" for name, value in edits.items()])
    assert expected[0]["gathers_gb"] != pytest.approx(written[0]["gathers_gb"], rel=1e-3)
    book = recalculate_edited(book_path, edits, tmp_path / "lo")
    for before, after in zip(written, expected, strict=True):
        for key in ("gathers_gb", "traffic_gb"):
            assert value_at(book, before["cells"][key]) == pytest.approx(after[key],
                                                                         rel=1e-9), key


# nest 1584's shape written in Fortran with sorted indices (seed 0, nest 1442): 4000 integers
# of x, 250 lines, read and written through 4000 sorted indices
SORTED_F90 = """\
subroutine ss(idx, x, v)
  integer :: idx(4000), x(4000), v(4000)
  integer :: i
  do i = 1, 4000
    x(idx(i)) = x(idx(i)) + 2 * v(i)
  end do
end subroutine ss
"""


def test_sorted_indices_with_their_cluster_move_each_line_once(tmp_path: Path) -> None:
    # ClusterElems_ 16, what the sorted indices use of a line (4-byte elements): 250 visits.
    # L1 16 KiB: C = 254 lines; idx and v load 500 lines, sigma = 2 per visit; u = 89.41
    # (2 x 89.41 + 250 (1 - exp(-89.41/250)) = 178.83 + 75.17 = 254), a revisit misses with
    # exp(-89.41/250) = 0.6993.  The rule for revisits would give MIN(89.41, 250 (1 -
    # exp(-89.41 x 16/250))) + (250 - 89.41) x 0.6993 = 89.41 + 112.30 = 201.7 lines, fewer
    # than the distinct lines of the pass, MIN(250, 250 (1 - exp(-16))) = 250: each line
    # once, 250 x 128 B (read for ownership, written back) + idx 16,000 + v 16,000 =
    # 64,000 B, as the cache simulation of the nest moves at every level.  The default
    # (ClusterElems_ 1, uniform indices) charges 145,544 B at this level.
    levels = levels_of(tmp_path, "ss.f90", SORTED_F90, "--set", "L1KB=16", "--set",
                       "ClusterElems_ss_4_x=16")
    assert levels["L1"]["traffic_gb"] * 1e9 == pytest.approx(
        32000 + 250 * (1 - math.exp(-16)) * 128)
    reach = 89.41
    assert 2 * reach + 250 * (1 - math.exp(-reach / 250)) == pytest.approx(254, abs=0.05)
    assert reach + (250 - reach) * math.exp(-reach / 250) == pytest.approx(201.7, abs=0.05)
    default = levels_of(tmp_path, "ss.f90", SORTED_F90, "--set", "L1KB=16")
    assert default["L1"]["traffic_gb"] * 1e9 == pytest.approx(
        32000 + lru_lines(254, 500, 250, 4000) * 128, rel=1e-4)
