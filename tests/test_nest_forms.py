"""Nest forms the model counts as the program runs them: loops tiled in the source with a
copy into a scratch tile, arrays at the row level of a nest, triangular ranges nested
several deep, reuse carried by loops beyond the three axes (docs/nest-forms.md)."""

import json
import math
from pathlib import Path

import pytest

from sat.cli import main

# every element once per sweep at most (compulsory traffic is the "blocks" column); costs per
# word: 8 B a read, 16 B a read-and-write or a write (read for ownership, written back)
MACHINE = ["--set", "StreamingWrites=0", "--set", "NTAHints=0", "--set", "ReadCost=8",
           "--set", "ReadWriteCost=16", "--set", "WriteCost=16", "--set", "WordBytes=8",
           "--set", "LineBytes=64"]


def source(tmp_path: Path, text: str, name: str) -> str:
    path = tmp_path / name
    path.write_text(text)
    return str(path)


def run(capsys, path: str, *options: str) -> dict:
    assert main([path, "--json", "-", "-q", *MACHINE, *options]) == 0
    return json.loads(capsys.readouterr().out)


def nest_loops(capsys, tmp_path: Path, text: str, name: str, *options: str) -> list[dict]:
    """The Loops rows of ``text`` written as ``name`` and run with ``options``."""
    return run(capsys, source(tmp_path, text, name), *options)["loops"]


def workbook(capsys, tmp_path: Path, path: str, *options: str) -> tuple[Path, dict]:
    """The workbook of ``path`` run with ``options``, and the run's totals."""
    book = tmp_path / "book.xlsx"
    assert main([path, "--json", "-", "-q", *MACHINE, *options, "-o", str(book)]) == 0
    return book, json.loads(capsys.readouterr().out)["totals"]


def iterations(loop: dict) -> float:
    return loop["sweeps"] * loop["iter_x"] * loop["iter_y"] * loop["iter_z"]


# ------------------------------------------------------------ triangular ranges

LU = """\
subroutine lu(n, a)
  integer, intent(in) :: n
  real(8), intent(inout) :: a(n,n)
  integer :: i, j, k
  do k = 1, n
    do j = k+1, n
      do i = k+1, n
        a(i,j) = a(i,j) - a(i,k)*a(k,j)
      end do
    end do
  end do
end subroutine
"""

# a tetrahedron: k runs to j, which runs to i
TETRA = """\
subroutine tetra(n, a)
  integer, intent(in) :: n
  real(8), intent(inout) :: a(n,n,n)
  integer :: i, j, k
  do i = 1, n
    do j = 1, i
      do k = 1, j
        a(k,j,i) = 2.0d0*a(k,j,i)
      end do
    end do
  end do
end subroutine
"""

# LU with the update's rows starting at the column: i runs from j, which runs from k + 1
CHAIN = """\
void chain(int n, double a[n][n])
{
  for (int k = 0; k < n; k++)
    for (int j = k + 1; j < n; j++)
      for (int i = j; i < n; i++)
        a[j][i] = a[j][i] - a[j][k]*a[k][i];
}
"""


def test_lu_update_counts_the_sum_of_squares(capsys, tmp_path):
    (loop,) = nest_loops(capsys, tmp_path, LU, "lu.f90", "--set", "n=1000")
    # by hand: 2 flops x sum_{k=1}^{1000} (1000-k)^2 = 2 x (999 x 1000 x 1999 / 6)
    #        = 2 x 332,833,500 = 665,667,000 flops (the two means multiplied gave 0.499 G)
    assert loop["gflops"] * 1e9 == pytest.approx(665_667_000)
    assert iterations(loop) == pytest.approx(332_833_500)


def test_a_range_moving_with_a_moving_range_is_summed_exactly(capsys, tmp_path):
    (loop,) = nest_loops(capsys, tmp_path, TETRA, "tetra.f90", "--set", "n=100")
    # by hand: sum_i sum_{j<=i} j = sum_i i(i+1)/2 = n(n+1)(n+2)/6 = 100 x 101 x 102 / 6
    #        = 171,700 iterations, one multiply each
    assert iterations(loop) == pytest.approx(171_700)
    assert loop["gflops"] * 1e9 == pytest.approx(171_700)


def test_a_c_chain_of_three_ranges(capsys, tmp_path):
    (loop,) = nest_loops(capsys, tmp_path, CHAIN, "chain.c", "--set", "n=10")
    # by hand: for k, j = k+1..9 and i = j..9: sum_k sum_{j=k+1}^{9} (10 - j)
    #        = sum_k (9-k)(10-k)/2 = sum_{m=0}^{9} m(m+1)/2 = 9 x 10 x 11 / 6 = 165
    assert iterations(loop) == pytest.approx(165)
    assert loop["gflops"] * 1e9 == pytest.approx(2 * 165)


# outer loops the data is invariant along, the inner one starting at the middle one's variable:
# no tile (do j steps by one and k's end does not move with it), a triangular range
STARTS = """\
subroutine starts(a, b)
  real(8), intent(inout) :: a(504)
  real(8), intent(in) :: b(504)
  integer :: i, j, k
  do i = 1, 3
    do j = i, 3
      do k = j + 2, 502
        a(k) = 3.0d0 * b(k) + b(k + 2)
      end do
    end do
  end do
end subroutine
"""


def test_a_range_starting_at_an_outer_variable_is_no_tile(capsys, tmp_path):
    (loop,) = nest_loops(capsys, tmp_path, STARTS, "starts.f90")
    # by hand: k runs 501 - j times; (i, j) = (1,1) (1,2) (1,3) (2,2) (2,3) (3,3):
    # 500 + 499 + 498 + 499 + 498 + 498 = 2,992 iterations of 2 flops, 5,984 flops (taken
    # for a tile of j, k ran its whole range: 6 x 500)
    assert iterations(loop) == pytest.approx(2_992)
    assert loop["gflops"] * 1e9 == pytest.approx(5_984)


def test_the_count_is_a_formula_of_the_size(capsys, tmp_path):
    path = source(tmp_path, LU, "lu.f90")
    small = run(capsys, path, "--set", "n=10")["loops"][0]
    # by hand: sum_{m=0}^{9} m^2 = 9 x 10 x 19 / 6 = 285 iterations at n = 10
    assert iterations(small) == pytest.approx(285)


@pytest.mark.libreoffice
def test_editing_the_size_in_libreoffice_recounts_the_triangle(capsys, tmp_path):
    from libreoffice import named_value, recalculate_edited

    book, _ = workbook(capsys, tmp_path, source(tmp_path, LU, "lu.f90"), "--set", "n=1000")
    values = recalculate_edited(book, {"n": 10}, tmp_path / "edit")
    # by hand at n = 10: 2 x 285 = 570 flops
    assert math.isclose(float(named_value(values, "Total_GFlops")) * 1e9, 570, rel_tol=1e-9)


# ------------------------------------------------------------ accesses at the row level

CSR = """\
void spmv(int nrows, const int *rowptr, const int *col, const double *val, const double *x,
          double *y)
{
  for (int row = 0; row < nrows; row++) {
    double temp = 0;
    for (int k = rowptr[row]; k < rowptr[row+1]; k++)
      temp += val[k]*x[col[k]];
    y[row] += temp;
  }
}
"""

CSR_F = """\
subroutine csr(n, rowptr, col, val, x, y)
  integer, intent(in) :: n, rowptr(n+1), col(*)
  real(8), intent(in) :: val(*), x(n)
  real(8), intent(inout) :: y(n)
  real(8) :: temp
  integer :: row, k
  do row = 1, n
    temp = 0
    do k = rowptr(row), rowptr(row+1) - 1
      temp = temp + val(k) * x(col(k))
    end do
    y(row) = y(row) + temp
  end do
end subroutine
"""

# a norm per block: norm(b) written once per block of bs elements
BLOCKS = """\
subroutine blocknorm(nb, bs, x, norm)
  integer, intent(in) :: nb, bs
  real(8), intent(in) :: x(bs, nb)
  real(8), intent(out) :: norm(nb)
  real(8) :: s
  integer :: b, i
  do b = 1, nb
    s = 0
    do i = 1, bs
      s = s + x(i, b) * x(i, b)
    end do
    norm(b) = s
  end do
end subroutine
"""

# a sum over species per cell: t(i) read and written once per cell, y once per species
SPECIES = """\
subroutine species(n, ns, y, t)
  integer, intent(in) :: n, ns
  real(8), intent(in) :: y(ns, n)
  real(8), intent(inout) :: t(n)
  real(8) :: s
  integer :: i, m
  do i = 1, n
    s = 0
    do m = 1, ns
      s = s + y(m, i)
    end do
    t(i) = t(i) + s
  end do
end subroutine
"""

# ten nonzeros per row: k runs rowptr(row) .. rowptr(row+1) - 1 = 1 .. 10
ROWS = ["--set", "rowptr(row)=1", "--set", "rowptr_row_1=11"]


def test_csr_row_costs_y_once_per_row(capsys, tmp_path):
    (loop,) = nest_loops(capsys, tmp_path, CSR, "csr.c", "--set", "nrows=1000", *ROWS)
    # by hand, per row: val 10 x 8 B + col 10 x 4 B (int) + y read and written 16 B +
    # rowptr 4 B (rowptr[row+1] is the next row's rowptr[row]) = 140 B; 1000 rows: 140,000 B,
    # and rowptr's last element, 4 B; x[col[k]] is a gather over a range of one element per
    # reference (x has no declared extent): 10,000 draws over 10,000 elements pick
    # 10000 x (1 - (1 - 1/10000)^10000) = 6,321.389 distinct, 8 B each = 50,571.12 B
    assert loop["traffic_blocks_gb"] * 1e9 == pytest.approx(140_004 + 50_571.11628536237)
    # 2 flops per nonzero and the add into y: 1000 x (2 x 10 + 1)
    assert loop["gflops"] * 1e9 == pytest.approx(21_000)


def test_fortran_csr_row_costs_y_once_per_row(capsys, tmp_path):
    (loop,) = nest_loops(capsys, tmp_path, CSR_F, "csr.f90", "--set", "n=1000", *ROWS)
    # by hand, per row: val 80 B + col 40 B (default integer, 4 B) + y 16 B + rowptr 4 B =
    # 140 B; 140,000 B, and rowptr's last element, 4 B; x(col(k)), a gather, its distinct
    # elements: 10,000 draws over x's 1,000 pick 1000 x (1 - (1 - 1/1000)^10000) = 999.955,
    # 8 B each = 7,999.64 B (it was a stream of 80 B per row)
    assert loop["traffic_blocks_gb"] * 1e9 == pytest.approx(140_004 + 7_999.63861323218)


def test_a_value_per_block_costs_once_per_block(capsys, tmp_path):
    (loop,) = nest_loops(capsys, tmp_path, BLOCKS, "blocks.f90", "--set", "nb=1000",
                         "--set", "bs=64")
    # by hand: x 64 x 1000 x 8 B = 512,000 B; norm written once per block, 16 B x 1000
    #        = 16,000 B; together 528,000 B
    assert loop["traffic_blocks_gb"] * 1e9 == pytest.approx(528_000)


def test_a_value_per_cell_beside_a_species_loop_costs_once_per_cell(capsys, tmp_path):
    (loop,) = nest_loops(capsys, tmp_path, SPECIES, "species.f90", "--set", "n=1000",
                         "--set", "ns=9")
    # by hand: y 9 x 1000 x 8 B = 72,000 B; t read and written once per cell, 16 B x 1000
    #        = 16,000 B; together 88,000 B
    assert loop["traffic_blocks_gb"] * 1e9 == pytest.approx(88_000)


# ------------------------------------------------------------ tiles with a scratch copy

TILED = """\
subroutine mm(order, ts, a, b, c)
  integer, intent(in) :: order, ts
  real(8), intent(in) :: a(order,order), b(order,order)
  real(8), intent(inout) :: c(order,order)
  real(8) :: t(ts,ts)
  integer :: i, j, k, it, jt, kt
  do jt = 1, order, ts
    do kt = 1, order, ts
      do it = 1, order, ts
        do k = kt, min(order, kt+ts-1)
          do j = jt, min(order, jt+ts-1)
            t(j-jt+1, k-kt+1) = b(k, j)
          end do
        end do
        do j = jt, min(order, jt+ts-1)
          do k = kt, min(order, kt+ts-1)
            do i = it, min(order, it+ts-1)
              c(i,j) = c(i,j) + a(i,k) * t(j-jt+1, k-kt+1)
            end do
          end do
        end do
      end do
    end do
  end do
end subroutine
"""

# a transpose in tiles of the source, no copy: one nest
TILED_TRANSPOSE = """\
subroutine tr(n, ts, a, b)
  integer, intent(in) :: n, ts
  real(8), intent(in) :: a(n,n)
  real(8), intent(out) :: b(n,n)
  integer :: i, j, it, jt
  do jt = 1, n, ts
    do it = 1, n, ts
      do j = jt, min(n, jt+ts-1)
        do i = it, min(n, it+ts-1)
          b(j,i) = a(i,j)
        end do
      end do
    end do
  end do
end subroutine
"""

# the copy hoisted to the level of its own tiles (outside do it): repeated by no tile loop
HOISTED = TILED.replace("""      do it = 1, order, ts
        do k = kt, min(order, kt+ts-1)
          do j = jt, min(order, jt+ts-1)
            t(j-jt+1, k-kt+1) = b(k, j)
          end do
        end do
""", """      do k = kt, min(order, kt+ts-1)
        do j = jt, min(order, jt+ts-1)
          t(j-jt+1, k-kt+1) = b(k, j)
        end do
      end do
      do it = 1, order, ts
""")


def test_tiled_product_with_a_scratch_copy(capsys, tmp_path):
    copy, product = nest_loops(capsys, tmp_path, TILED, "mm.f90", "--set", "order=1000",
                               "--set", "ts=32")  # the copy is a nest of its own
    # by hand: the product runs order^3 = 10^9 iterations of 2 flops, in 32^3 blocks
    assert iterations(product) == pytest.approx(1e9)
    assert product["gflops"] == pytest.approx(2)
    assert [product[f"block_{a}"] for a in "xyz"] == [32, 32, 32]
    # the copy runs order^2 once per tile of it: ceil(1000/32) = 32 tiles, 32 x 10^6
    assert iterations(copy) == pytest.approx(32e6)
    # compulsory, by hand: a 10^6 x 8 B = 8 MB, c read and written 10^6 x 16 B = 16 MB, b 8 MB;
    # the scratch tile t once: 32 x 32 x 8 B read (8,192 B) and x 16 B written (16,384 B)
    #   product: 8,000,000 + 16,000,000 + 8,192 = 24,008,192 B
    #   copy:    8,000,000 + 16,384 = 8,016,384 B
    assert product["traffic_blocks_gb"] * 1e9 == pytest.approx(24_008_192)
    assert copy["traffic_blocks_gb"] * 1e9 == pytest.approx(8_016_384)


def test_tiled_product_moves_a_and_c_once_per_tile_and_keeps_the_scratch_tile(capsys,
                                                                            tmp_path):
    copy, product = nest_loops(capsys, tmp_path, TILED, "mm.f90", "--set", "order=1000",
                               "--set", "ts=32", "--set", "CacheKB=64")
    # the copy's block (b's and t's 32 x 32 tiles, 16 KiB) fits: it stays while do it repeats
    # it, b is read once, 8,000,000 B, t written once, 16,384 B
    assert copy["reuse"] == 1
    assert copy["traffic_gb"] * 1e9 == pytest.approx(8_016_384)
    # a block's working set: a, c and t tiles of 32 x 32 x 8 B, 24 KiB: fits 64 KiB, reuse
    # between planes. By hand: (1000/32)^3 blocks; a's 32 x 32 tile read per block,
    # 10^9/32 x 8 B = 250,000,000 B; c's read and written, x 16 B = 500,000,000 B; the
    # scratch tile t stays, read once: 8,192 B. 750,008,192 B (the nest read whole: 9,250 GB)
    assert product["reuse"] == 1
    assert product["traffic_gb"] * 1e9 == pytest.approx(750_008_192)


def test_the_tile_size_is_the_block_and_stays_live(capsys, tmp_path):
    path = source(tmp_path, TILED, "mm.f90")
    result = run(capsys, path, "--set", "order=1000", "--set", "ts=50")
    copy, product = result["loops"]
    # by hand: blocks of 50; the copy repeats once per tile of it: 1000/50 = 20 tiles
    assert [product[f"block_{a}"] for a in "xyz"] == [50, 50, 50]
    assert iterations(copy) == pytest.approx(20e6)
    # t: 50 x 50 x (8 + 16) B = 60,000 B beside 32 MB of a, b, c
    total = copy["traffic_blocks_gb"] + product["traffic_blocks_gb"]
    assert total * 1e9 == pytest.approx(32_000_000 + 60_000)


def test_a_tiled_transpose_is_one_nest_of_n_squared(capsys, tmp_path):
    (loop,) = nest_loops(capsys, tmp_path, TILED_TRANSPOSE, "tr.f90", "--set", "n=1000",
                         "--set", "ts=64")
    # by hand: 10^6 iterations; a read 8 MB, b written 16 MB
    assert iterations(loop) == pytest.approx(1e6)
    assert loop["traffic_blocks_gb"] * 1e9 == pytest.approx(24e6)


def test_a_copy_hoisted_out_of_the_inner_tile_runs_once(capsys, tmp_path):
    copy, product = nest_loops(capsys, tmp_path, HOISTED, "mm.f90", "--set", "order=1000",
                               "--set", "ts=32")
    # by hand: outside do it, the copy covers b once: 10^6 iterations
    assert iterations(copy) == pytest.approx(1e6)
    assert iterations(product) == pytest.approx(1e9)
    assert copy["traffic_blocks_gb"] * 1e9 == pytest.approx(8_016_384)


# ------------------------------------------------------------ reuse in nests four deep

DEEP = """\
subroutine deep(np, nq, nr, a, c4)
  integer, intent(in) :: np, nq, nr
  real(8), intent(inout) :: a(np,nq,nr)
  real(8), intent(in) :: c4(np,np)
  real(8) :: s(np)
  integer :: p, q, r, k
  do r = 1, nr
    do q = 1, nq
      do p = 1, np
        s(p) = 0
        do k = 1, np
          s(p) = s(p) + a(k,q,r)*c4(p,k)
        end do
      end do
      do p = 1, np
        a(p,q,r) = s(p)
      end do
    end do
  end do
end subroutine
"""

# a product over a fourth index with the operator per r: c4(p,k,r)
DEEP_PER_R = DEEP.replace("c4(np,np)", "c4(np,np,nr)").replace("c4(p,k)", "c4(p,k,r)")

# the same with a time loop around it: every element once per step
DEEP_TIMED = DEEP.replace("  do r = 1, nr\n", "  do it = 1, nt\n  do r = 1, nr\n").replace(
    "  end do\nend subroutine", "  end do\n  end do\nend subroutine").replace(
    "integer :: p, q, r, k", "integer :: p, q, r, k, it\n  integer, intent(in) :: nt").replace(
    "subroutine deep(np, nq, nr, a, c4)", "subroutine deep(np, nq, nr, nt, a, c4)")

SIZES = ["--set", "np=128", "--set", "nq=128", "--set", "nr=128"]


def test_a_four_deep_nest_reads_each_element_once(capsys, tmp_path):
    (loop,) = nest_loops(capsys, tmp_path, DEEP, "deep.f90", *SIZES)
    # by hand: np^2 nq nr = 128^4 = 268,435,456 innermost iterations
    assert iterations(loop) == pytest.approx(128 ** 4)
    # compulsory, every element once (a written line is read for ownership, then written
    # back: 16 B, whether or not the program read it first):
    # - a(:,q,r) is read by the k loops and written by the second p loop of the same (r,q),
    #   np elements, 1 KiB, still in the cache: 16 B x np per (r,q), over the np^2 innermost
    #   iterations of that (r,q): 16/np = 0.125 B per iteration; 16 x 128^3 = 33,554,432 B
    # - c4(p,k), np^2 elements, once in the whole run: 8 x 128^2 = 131,072 B, 8/(nq nr) per
    #   iteration (re-read per r it would be 8/nq, per (r,q) 8 B: that is a cache's, not
    #   the compulsory traffic)
    # - the scratch s(p), np elements written and read: 16 x 128 = 2,048 B
    # 33,687,552 B, 0.1255 B per iteration (16/np + 8/(nq nr) + 16/(np nq nr)), not 16
    # (read and written a(k,q,r) and s(p) at every k) nor 0.25 (a at 24/np: read 8 B, then
    # written 16 B as if the pencil left the cache in between; c4 once per r, 8/nq)
    assert loop["traffic_blocks_gb"] * 1e9 == pytest.approx(33_687_552)
    assert loop["traffic_blocks_gb"] * 1e9 / iterations(loop) < 0.13


def test_a_four_deep_nest_moves_what_a_cache_simulation_moves(capsys, tmp_path):
    (loop,) = nest_loops(capsys, tmp_path, DEEP, "deep.f90", "--set", "np=128", "--set", "nq=16",
                         "--set", "nr=8")
    # by hand as above at nq = 16, nr = 8: a 16 x 128 x 16 x 8 = 262,144 B, c4 131,072 B,
    # s 2,048 B: 395,264 B over 128^2 x 16 x 8 = 2,097,152 iterations, 0.1885 B each.
    # The nest's trace through bench/validation/cachesim.c (fully associative LRU,
    # write-back, 64 B lines; a 16 KiB L2, a 2 MiB L3, then 2.5 MiB of fresh lines read):
    # the L3 misses 4,096 lines on reads and 16 on writes and writes 2,064 dirty lines back,
    # 6,176 x 64 = 395,264 B, the same to the byte. (With a 64 KiB last level, c4's 128 KiB
    # leave the cache at every (r,q): 8.2 B per iteration, a cache's traffic, not compulsory.)
    assert loop["traffic_blocks_gb"] * 1e9 == pytest.approx(395_264)


def test_a_fourth_index_on_the_operator_reads_it_per_r(capsys, tmp_path):
    (loop,) = nest_loops(capsys, tmp_path, DEEP_PER_R, "deep.f90", *SIZES)
    # by hand: a 33,554,432 B as before; c4(p,k,r) 8 B x 128^3 = 16,777,216 B; s 2,048 B
    assert loop["traffic_blocks_gb"] * 1e9 == pytest.approx(33_554_432 + 16_777_216 + 2_048)


def test_a_time_loop_around_a_four_deep_nest_repeats_it(capsys, tmp_path):
    (loop,) = nest_loops(capsys, tmp_path, DEEP_TIMED, "deep.f90", *SIZES, "--set", "nt=10")
    # by hand: ten steps of the four-deep nest, 10 x 128^4 iterations; a loop written around
    # the one nest is a repetition of it, whose steps touch the same elements: the distinct
    # bytes stay 33,687,552 (the ExaSAT traffic moves them every step, 10 times as many)
    assert iterations(loop) == pytest.approx(10 * 128 ** 4)
    assert loop["traffic_blocks_gb"] * 1e9 == pytest.approx(33_687_552)
    assert loop["traffic_gb"] * 1e9 >= 10 * 33_687_552


@pytest.mark.libreoffice
def test_editing_the_tile_size_in_libreoffice_equals_set(capsys, tmp_path):
    from libreoffice import recalculate_edited, value_at

    path = source(tmp_path, TILED, "mm.f90")
    book, totals = workbook(capsys, tmp_path, path, "--set", "order=1000", "--set", "ts=32")
    cells = totals["cells"]
    values = recalculate_edited(book, {"ts": 50}, tmp_path / "edit")
    want = run(capsys, path, "--set", "order=1000", "--set", "ts=50")["totals"]
    for key in ("traffic_blocks_gb", "traffic_gb", "gflops"):
        assert math.isclose(float(value_at(values, cells[key])), want[key], rel_tol=1e-9), key
    # by hand (above): 32 MB of a, b, c and 60,000 B of the scratch tile
    assert want["traffic_blocks_gb"] * 1e9 == pytest.approx(32_060_000)


TILED_C = """\
#define MIN(a,b) ((a) < (b) ? (a) : (b))
void mm(int n, int ts, double a[n][n], double b[n][n], double c[n][n], double t[ts][ts])
{
  for (int jt = 0; jt < n; jt += ts)
    for (int kt = 0; kt < n; kt += ts)
      for (int it = 0; it < n; it += ts) {
        for (int k = kt; k < MIN(n, kt+ts); k++)
          for (int j = jt; j < MIN(n, jt+ts); j++)
            t[k-kt][j-jt] = b[j][k];
        for (int j = jt; j < MIN(n, jt+ts); j++)
          for (int k = kt; k < MIN(n, kt+ts); k++)
            for (int i = it; i < MIN(n, it+ts); i++)
              c[j][i] += a[k][i] * t[k-kt][j-jt];
      }
}
"""


def test_the_tiled_product_in_c_reads_the_same(capsys, tmp_path):
    copy, product = nest_loops(capsys, tmp_path, TILED_C, "mm.c", "--set", "n=1000",
                               "--set", "ts=32")
    # by hand, as the Fortran: 10^9 and 32 x 10^6 iterations, compulsory 24,008,192 B and
    # 8,016,384 B (t is an argument here: its 32 x 32 tile all the same)
    assert iterations(product) == pytest.approx(1e9)
    assert iterations(copy) == pytest.approx(32e6)
    assert product["traffic_blocks_gb"] * 1e9 == pytest.approx(24_008_192)
    assert copy["traffic_blocks_gb"] * 1e9 == pytest.approx(8_016_384)


# a time loop reading a per-step table: its variable subscripts an array, yet it repeats
# the whole grid
STEPPED = """\
subroutine stepped(n, nt, u, f)
  integer, intent(in) :: n, nt
  real(8), intent(inout) :: u(n,n)
  real(8), intent(in) :: f(nt)
  integer :: i, j, t
  do t = 1, nt
    do j = 1, n
      do i = 1, n
        u(i,j) = u(i,j) + f(t)
      end do
    end do
  end do
end subroutine
"""


def test_a_time_loop_reading_a_table_per_step_still_repeats_the_grid(capsys, tmp_path):
    (loop,) = nest_loops(capsys, tmp_path, STEPPED, "stepped.f90", "--set", "n=100",
                         "--set", "nt=10")
    # by hand: u read and written once per step, 16 B x 100 x 100 x 10 = 1,600,000 B
    assert loop["traffic_blocks_gb"] * 1e9 == pytest.approx(1_600_000)
