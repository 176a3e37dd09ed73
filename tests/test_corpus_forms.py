"""Loop forms met in public codes (reference BLAS, PolyBench, NPB, Himeno): matrix products
whose contraction loop shares an axis, triangular loops, boundary planes addressed through a
scalar, constants passed by straight-line calls, Fortran ``block`` constructs.

Every expected number is worked out by hand in the comments.  Traffic is ExaSAT's with the
default machine (exascale: 64 KiB of cache, 8-byte words): a read-only array element costs
8 B, a written-only one 16 B (the write and its write-allocate read), a read-and-written one
16 B.
"""

from __future__ import annotations

import pytest
from test_authored_forms import iterations, loop, problem, run, source

# ------------------------------------------------------ 1. two loops of one axis, nested

# PolyBench's gemm: k subscripts the unit-stride dimension of A and the second one of B, a tie
# that used to put it on X with j (whose arrays C and B agree on X).
GEMM_C = """\
#define NI 40
#define NJ 50
#define NK 60
double C[NI][NJ], A[NI][NK], B[NK][NJ];
void gemm(double alpha, double beta)
{
  int i, j, k;
  for (i = 0; i < NI; i++) {
    for (j = 0; j < NJ; j++)
      C[i][j] *= beta;
    for (k = 0; k < NK; k++)
      for (j = 0; j < NJ; j++)
        C[i][j] += alpha * A[i][k] * B[k][j];
  }
}
"""

# the reference BLAS form: do j; do l; temp = alpha*b(l,j); do i; c(i,j) += temp*a(i,l)
GEMM_F = """\
subroutine gemm(alpha, a, b, c)
  integer, parameter :: m = 40, n = 50, k = 60
  real(8) :: alpha, a(m,k), b(k,n), c(m,n), temp
  integer :: i, j, l
  do j = 1, n
    do l = 1, k
      temp = alpha*b(l,j)
      do i = 1, m
        c(i,j) = c(i,j) + temp*a(i,l)
      end do
    end do
  end do
end subroutine
"""


def test_a_contraction_loop_nested_in_its_axis_gets_an_axis_of_its_own(tmp_path, capsys):
    """C: j on X (50), k moves off X to a free axis (60), i (40): 50*60*40 = 120,000
    iterations (it was max(50, 60)*40 = 2,400). Flops: the innermost level 1 add + 2
    multiplies runs 120,000 times, the beta scaling 1 multiply runs 40*50 = 2,000 times:
    3*120,000 + 2,000 = 362,000 flops = 3.62e-4 Gflop."""
    data = run(capsys, source(tmp_path, GEMM_C))
    entry = loop(data, 8)
    assert iterations(entry) == 120_000 and entry["sweeps"] == 1
    assert entry["gflops"] * 1e9 == 362_000


def test_a_moved_contraction_loop_keeps_the_nesting_order_of_the_axes(tmp_path, capsys):
    """With NI = 40, NJ = 512, NK = 600: j on X, k (middle loop) on Y, i (outer) on Z, so
    reuse follows the nesting. B (600 x 512 x 8 B = 2.4 MB) does not stay in the 64 KiB
    cache: B[k][j] streams 8 B per iteration. C[i][j] is invariant along k and its row of
    512 elements (4 KiB) stays: read and written once per i, 16 B x 512 per 512 x 600
    iterations. A[i][k] is invariant along j: 8 B per 512 iterations. Per iteration:
    8 + 16/600 + 8/512 = 8 + 0.026667 + 0.015625 = 8.042292 B (with i on Y around k on Z,
    nothing was reused across k: 32 B)."""
    text = GEMM_C.replace("NJ 50", "NJ 512").replace("NK 60", "NK 600")
    data = run(capsys, source(tmp_path, text))
    entry = loop(data, 8)
    assert (entry["iter_x"], entry["iter_y"], entry["iter_z"]) == (512, 600, 40)
    assert entry["traffic_gb"] * 1e9 / iterations(entry) == pytest.approx(
        8 + 16 / 600 + 8 / 512, rel=1e-12)


def test_the_reference_blas_product_multiplies_its_three_loops(tmp_path, capsys):
    """Fortran: i on X (40); l (a tie between X and Y, so first on X) is the outer of the
    two X loops and moves to the free axis, and as j encloses it the two swap: l on Y (60),
    j on Z (50): 120,000 iterations. Flops:
    c(i,j) + temp*a(i,l) is 1 add + 1 multiply at each of the 120,000, temp = alpha*b(l,j)
    1 multiply at each of the 50*60 = 3,000 (j, l) pairs: 240,000 + 3,000 = 243,000 flops."""
    data = run(capsys, source(tmp_path, GEMM_F, "gemm.f90"))
    entry = loop(data, 5)
    assert (entry["iter_x"], entry["iter_y"], entry["iter_z"]) == (40, 60, 50)
    assert entry["gflops"] * 1e9 == 243_000
    assert not [p for p in problem(data).values() if p["defaulted"]]


# ------------------------------------------------------------- 2. triangular loops

# dtrsv's two forms: the inner range starts after (or ends before) the outer loop's variable
TRIANGLES = """\
subroutine solve(x, a, t)
  integer, parameter :: n = 100
  real(8) :: x(n), a(n,n), t
  integer :: i, j
  do j = 1, n
    do i = j + 1, n
      x(i) = x(i) - t*a(i,j)
    end do
  end do
  do j = n, 1, -1
    do i = j - 1, 1, -1
      x(i) = x(i) - t*a(i,j)
    end do
  end do
end subroutine
"""


def test_a_triangular_loop_runs_its_average_trip_count(tmp_path, capsys):
    """Both nests run sum over j of (n - j) = n (n - 1) / 2 = 100*99/2 = 4,950 iterations:
    the inner loop at the mean j, (1 + 100)/2 = 50.5, runs 100 - 50.5 = 49.5 times (ascending)
    and 50.5 - 1 = 49.5 times (descending), times 100 values of j. Each iteration 1 add and 1
    multiply: 9,900 flops. The outer loop's variable is no problem parameter (it was a
    defaulted j of 1 or 128, giving 99 or 127 trips)."""
    data = run(capsys, source(tmp_path, TRIANGLES, "solve.f90"))
    for line in (5, 10):
        entry = loop(data, line)
        assert iterations(entry) == 4_950
        assert entry["gflops"] * 1e9 == 9_900
    assert set(problem(data)) == {"n"}


# ------------------------------------------- 3. a boundary plane addressed by a scalar

# NPB's rhs.f: "i = 1" then rhs(m,i,j,k) on the first plane, "i = nx-2" on the last
BOUNDARY = """\
subroutine edges(nx, ny, u)
  integer :: nx, ny, i, j
  real(8) :: u(nx, ny)
  do j = 1, ny
    do i = 2, nx - 1
      u(i, j) = 0.5d0*u(i, j)
    end do
  end do
  do j = 1, ny
    i = 1
    u(i, j) = 0.5d0*u(i + 1, j)
    i = nx
    u(i, j) = 0.5d0*u(i - 1, j)
  end do
end subroutine
"""


def test_a_subscript_over_a_computed_scalar_is_no_problem_size(tmp_path, capsys):
    """The second nest writes u(i,j) with i = 1 and i = nx: i is a loop variable of the
    procedure and a scalar the nest assigns, not a size to default (it was a problem
    parameter i = 128, from the array-size estimate). The problem sizes are the dummies nx
    and ny (defaults 128: 2 multiplies x 128 values of j = 256 flops in the second nest)."""
    data = run(capsys, source(tmp_path, BOUNDARY, "edges.f90"))
    assert set(problem(data)) == {"nx", "ny"}
    assert loop(data, 9)["gflops"] * 1e9 == 256


# ------------------------------------- 4. constants passed by calls outside any loop

# PolyBench/Fortran's main program: call kernel_gemm(NI, NJ, NK, ...) with NI a #define
PASSED = """\
module kernels
contains
subroutine scale(n, x)
  integer :: n, i
  real(8) :: x(n)
  do i = 1, n
    x(i) = 2.0d0*x(i)
  end do
end subroutine
subroutine shift(m, y)
  integer :: m, i
  real(8) :: y(m)
  do i = 1, m
    y(i) = y(i) + 1.0d0
  end do
end subroutine
end module
program main
  use kernels
  integer, parameter :: nx = 500
  real(8) :: a(nx), b(300)
  call scale(nx, a)
  call shift(nx, a)
  call shift(300, b)
end program
"""


def test_a_dummy_every_call_passes_one_constant_has_its_value(tmp_path, capsys):
    """scale is called once, with the named constant nx = 500: its dummy n is 500 and its
    nest does 500 multiplies (it was a defaulted n = 128: 128). shift is called with 500 and
    with 300: m stays a problem parameter, defaulted to 128 (128 adds)."""
    data = run(capsys, source(tmp_path, PASSED, "passed.f90"))
    params = problem(data)
    assert (params["n"]["value"], params["n"]["defaulted"]) == (500, False)
    first = f"first at {tmp_path}/passed.f90:22"
    assert params["n"]["source"] == f"constant argument of every call ({first})"
    assert (params["m"]["value"], params["m"]["defaulted"]) == (128, True)
    assert loop(data, 6)["gflops"] * 1e9 == 500
    assert loop(data, 13)["gflops"] * 1e9 == 128


# STREAM's stream.f: n is 2,000,000 in the main program and 20 in checktick
STREAM_TWINS = """\
      PROGRAM stream
      INTEGER n, offset, ndim, ntimes
      PARAMETER (n=2000000, offset=0, ndim=n+offset, ntimes=10)
      DOUBLE PRECISION a(ndim), b(ndim), c(ndim), scalar
      INTEGER j, k
      scalar = 3.0d0
      DO k = 1, ntimes
         DO j = 1, n
            a(j) = b(j) + scalar*c(j)
         END DO
      END DO
      CALL checktick()
      END
      SUBROUTINE checktick()
      INTEGER n
      PARAMETER (n=20)
      DOUBLE PRECISION timesfound(n), t1
      INTEGER i
      DO i = 1, n
         timesfound(i) = t1 + 1.0d0
      END DO
      END
"""


def test_a_constant_with_two_values_leaves_no_defaulted_twin(tmp_path, capsys):
    """Each procedure's n is a parameter of its own (n_stream = 2,000,000, n_checktick =
    20) and no plain n is left to default: the triad runs 10 sweeps x 2,000,000 = 2e7
    iterations of 1 add + 1 multiply = 4e7 flops, checktick 20 adds."""
    data = run(capsys, source(tmp_path, STREAM_TWINS, "stream.f"))
    params = problem(data)
    assert "n" not in params and not [p for p in params.values() if p["defaulted"]]
    assert (params["n_stream"]["value"], params["n_checktick"]["value"]) == (2_000_000, 20)
    assert loop(data, 7)["gflops"] * 1e9 == 4e7
    assert loop(data, 19)["gflops"] * 1e9 == 20


# --------------------------------------------- 5. comments before a construct's opening

# Himeno in modern Fortran: "! Initializing matrixes" above "Initialize: block"
BLOCKS = """\
subroutine init(n, a)
  integer :: n
  real(8) :: a(n)
  ! fill the array
  ! (two comment lines, which fparser puts inside the construct)
  fill: block
    integer :: i
    do i = 1, n
      a(i) = 2.0d0*a(i) + 1.0d0
    end do
  end block fill
  ! then a named construct of another kind
  again: if (n > 1) then
    a(1) = a(1)*3.0d0
  end if again
end subroutine
"""


def test_comments_before_a_block_are_no_statement_left_unanalysed(tmp_path, capsys):
    """The block's loop is a nest of n (128) iterations of 1 add + 1 multiply = 256 flops,
    and satreport warns about nothing: the comments before "fill: block" used to push the
    block statement itself among the construct's statements ("statement not analysed
    (block)")."""
    path = source(tmp_path, BLOCKS, "blocks.f90")
    data = run(capsys, path)
    assert loop(data, 8)["gflops"] * 1e9 == 256
    assert not [n for n in data["notes"] if n["kind"] == "warning"]


# ----------------------------- 6. a short component loop over a named constant's range

# NPB BT: do m = 1, BLOCK_SIZE over rhs(m,i,j,k), BLOCK_SIZE a parameter 5
COMPONENTS = """\
subroutine comp(nx, u, r)
  integer, parameter :: nc = 5
  integer :: nx, i, m
  real(8) :: u(nc, nx), r(nc, nx)
  do i = 1, nx
    do m = 1, nc
      r(m, i) = 2.0d0*u(m, i)
    end do
  end do
end subroutine
"""


def test_a_component_loop_over_a_named_constant_is_no_axis(tmp_path, capsys):
    """m runs over the 5 contiguous components of a cell, as do m = 1, 5 would: a component
    loop, i the X axis (nx = 128 by default), 128 iterations of 5 copies each. Per i: u read
    5 x 8 B, r written 5 x 16 B (write and write-allocate) = 120 B; 5 multiplies. (With m on
    X, pencils of 5 elements rounded up to lines of 8 made that 192 B per i.)"""
    data = run(capsys, source(tmp_path, COMPONENTS, "comp.f90"))
    entry = loop(data, 5)
    assert (entry["iter_x"], entry["iter_y"], entry["iter_z"], entry["sweeps"]) == (128, 1, 1, 1)
    assert entry["traffic_gb"] * 1e9 / iterations(entry) == pytest.approx(120, rel=1e-12)
    assert entry["gflops"] * 1e9 == 640


# ----------------------------- 7. a time loop that reads a per-step table in a sibling

# PolyBench's fdtd-2d: do t; do j: ey(j,1) = fict(t); then the ey, ex and hz sweeps
STEPS = """\
subroutine fdtd(ex, hz, f)
  integer, parameter :: nx = 100, ny = 200, nt = 10
  real(8) :: ex(ny, nx), hz(ny, nx), f(nt)
  integer :: i, j, t
  do t = 1, nt
    do j = 1, ny
      ex(j, 1) = f(t)
    end do
    do i = 2, nx
      do j = 1, ny
        ex(j, i) = ex(j, i) - 0.5d0*(hz(j, i) - hz(j, i - 1))
      end do
    end do
    do i = 1, nx - 1
      do j = 1, ny
        hz(j, i) = hz(j, i) - 0.7d0*(ex(j, i + 1) - ex(j, i))
      end do
    end do
  end do
end subroutine
"""


def test_a_per_step_table_does_not_fuse_the_sweeps_of_a_time_loop(tmp_path, capsys):
    """f(t) indexes a table by the step alone: t still repeats each sibling sweep, which is
    a nest of its own (they were one nest whose arrays moved once per point, 48 B). The ex
    sweep: 10 steps x 99 x 200 = 198,000 iterations of 2 adds + 1 multiply; ex read and
    written (16 B), hz read over the columns i-1 and i: 100 columns of 200 for 99 of them,
    8 x 100/99 B. The hz sweep the same with the roles swapped (ex columns 1 to 100)."""
    data = run(capsys, source(tmp_path, STEPS, "fdtd.f90"))
    for line in (9, 14):
        entry = loop(data, line)
        assert iterations(entry) == 198_000 and entry["sweeps"] == 10
        assert entry["gflops"] * 1e9 == 3 * 198_000
        assert entry["traffic_gb"] * 1e9 / iterations(entry) == pytest.approx(
            16 + 8 * 100 / 99, rel=1e-12)


# PolyBench/Fortran's order: do i; do j; c(j,i) *= beta; do k: c(j,i) += alpha*a(k,i)*b(j,k)
GEMM_K_INNER = """\
subroutine gemm(alpha, beta, a, b, c)
  integer, parameter :: ni = 40, nj = 512, nk = 600
  real(8) :: alpha, beta, a(nk, ni), b(nj, nk), c(nj, ni)
  integer :: i, j, k
  do i = 1, ni
    do j = 1, nj
      c(j, i) = c(j, i)*beta
      do k = 1, nk
        c(j, i) = c(j, i) + alpha*a(k, i)*b(j, k)
      end do
    end do
  end do
end subroutine
"""


def test_the_inner_of_two_nested_loops_of_one_axis_keeps_it(tmp_path, capsys):
    """j subscripts the unit-stride dimension of c and b, k that of a and the second of b:
    both on X, k inside j. The outer j moves (to Z, then swapped with i to follow the
    nesting: j on Y, i on Z), k keeps X: 600 x 512 x 40 = 12,288,000 iterations of 1 add + 2
    multiplies, plus the beta scaling once per (i, j): 3 x 12,288,000 + 20,480 =
    36,884,480 flops."""
    data = run(capsys, source(tmp_path, GEMM_K_INNER, "gemmk.f90"))
    entry = loop(data, 5)
    assert (entry["iter_x"], entry["iter_y"], entry["iter_z"]) == (600, 512, 40)
    assert entry["gflops"] * 1e9 == 36_884_480


# ------------------------------- 8. one vector stepped by the inner and the outer loop

# the reference BLAS dtrsv: x(j) = x(j)/a(j,j) per column, x(i) updated by the inner loop
TRSV = """\
subroutine trsv(x, a)
  integer, parameter :: n = 512
  real(8) :: x(n), a(n, n), temp
  integer :: i, j
  do j = n, 1, -1
    x(j) = x(j)/a(j, j)
    temp = x(j)
    do i = j - 1, 1, -1
      x(i) = x(i) - temp*a(i, j)
    end do
  end do
end subroutine
"""


def test_a_vector_stepped_by_two_loops_is_reused_by_the_inner_one(tmp_path, capsys):
    """n = 512: 512 x 511 / 2 = 130,816 iterations (i at the mean j: 511/2 = 255.5 trips,
    times 512). The inner loop's range moves with j, so each of its rows touches its mean
    length plus a line's elements less one (where the row starts in a line varies from row to
    row): 255.5 + 8 - 1 = 262.5 elements. a streams 8 B per element over those rows: 8 x 262.5
    x 512 B (a(j,j) is at an offset of the same pattern). x(i) is invariant along j: its pencil
    of 262.5 elements is read and written once, 16 x 262.5 B; x(j) once per j, 16 x 512 B.
    Total 1,075,200 + 4,200 + 8,192 = 1,087,592 B, 8.314 B per iteration. (One pattern of x
    stepping along both loops streamed it at every iteration: 24 B. The whole lines the lower
    triangle of a really touches, 64 - floor((j - 1) / 8) in column j, are 16,640 lines,
    1,064,960 B: the rows' rule is 1.0 % above them, rounding each mean row up once was 1.5 %
    below.)"""
    data = run(capsys, source(tmp_path, TRSV, "trsv.f90"))
    entry = loop(data, 5)
    assert iterations(entry) == 130_816
    assert entry["traffic_gb"] * 1e9 == pytest.approx(8 * 262.5 * 512 + 16 * 262.5 + 16 * 512,
                                                      rel=1e-12)
