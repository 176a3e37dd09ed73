"""What a nest's text says, read right: opaque bounds, statement functions, constant subscripts
written as expressions, index functions, array reductions and OpenMP's types.

Each construct is checked on a snippet and two variants of it, with numbers worked out by hand
(the arithmetic is in the comments). Traffic figures are the compulsory ("blocks") traffic of
the default machine: a read moves 8 B per double, a write 16 B (the line is read for
ownership, then written back), an element read and written 16 B.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sat.cli import main
from sat.frontend import read_sources
from sat.model.nests import averaged_bounds


def run(tmp_path: Path, name: str, source: str, *options: str) -> dict:
    path = tmp_path / name
    path.write_text(source)
    out = tmp_path / "out.json"
    assert main([str(path), "-q", "--json", str(out), *options]) == 0
    return json.loads(out.read_text())


def xml(tmp_path: Path, name: str, source: str) -> str:
    path = tmp_path / name
    path.write_text(source)
    out = tmp_path / "out.xml"
    assert main([str(path), "-q", "--xml", str(out)]) == 0
    return out.read_text()


def flops(loop: dict) -> tuple[int, int, int, int]:
    return loop["adds"], loop["multiplies"], loop["divides"], loop["specials"]


def parameters(result: dict) -> dict[str, float]:
    return {p["name"]: p["value"] for p in result["parameters"] if p["group"] == "problem"}


# ------------------------------------------------------------------ opaque bounds

BLOCKS_C = """\
struct dim { int i, j, k; };
struct block { struct dim dim; };
struct level { int nblocks[4]; struct block *blocks[4]; double *x; int nx, ny; };
int shape(void);
void smooth(struct level *lv, int nsweeps) {
  for (int s = 0; s < nsweeps; s++)
    for (int b = 0; b < lv->nblocks[shape()]; b++) {
      int ihi = lv->blocks[shape()][b].dim.i - 1;
      for (int k = 1; k < 64; k++) for (int j = 1; j < 64; j++) for (int i = 1; i < ihi; i++)
        lv->x[i + j*lv->nx + k*lv->nx*lv->ny] *= 0.5;
    }
}
"""


def test_a_bound_read_from_a_block_table_keeps_its_nest(tmp_path):
    result = run(tmp_path, "blocks.c", BLOCKS_C, "--set", "nsweeps=2",
                 "--set", "lv->nblocks[shape()]=3", "--set", "lv->blocks[shape()][b].dim.i=34")
    assert result["unmodelled"] == []
    (loop,) = result["loops"]
    # 2 sweeps x 3 blocks; i = 1 .. ihi - 1 with ihi = 34 - 1: 32; j, k = 1 .. 63
    assert (loop["sweeps"], loop["iter_x"], loop["iter_y"], loop["iter_z"]) == (6, 32, 63, 63)
    # one multiply per iteration: 6 * 32 * 63 * 63 = 762,048
    assert loop["gflops"] == pytest.approx(762_048e-9)
    # x read and written, 16 B per element; the sweep loop s around the one nest is a
    # repetition (the same elements again: counted once), the block loop b sets the range
    # ihi of each block (new elements per block): 3 x 32 x 63 x 63 x 16 B = 6,096,384 B
    assert loop["traffic_blocks_gb"] == pytest.approx(6_096_384e-9)


GRIDS_F90 = """\
module grids
  type block
    integer :: n
  end type
  type level
    integer :: nb
    integer, allocatable :: perm(:)
    type(block), allocatable :: blocks(:)
  end type
end module
subroutine relax(lv, x)
  use grids
  type(level), intent(in) :: lv
  real(8), intent(inout) :: x(*)
  integer :: b, i
  do b = 1, lv%nb
    do i = 1, lv%blocks(lv%perm(b))%n
      x(i) = x(i) * 0.5d0
    end do
    call bump(x, 10)
  end do
end subroutine
subroutine bump(y, m)
  integer :: m, j
  real(8) :: y(m)
  do j = 1, m
    y(j) = y(j) + 1.0d0
  end do
end subroutine
"""


def test_a_reference_nested_too_deep_is_one_parameter_with_a_note(tmp_path):
    result = run(tmp_path, "grids.f90", GRIDS_F90)
    assert result["unmodelled"] == []
    name = "lv_blocks_lv_perm_b_n"
    # an upper bound by itself: the default of an upper bound, 128
    assert parameters(result)[name] == 128
    assert any(f"cannot be modelled: parameter {name} stands for it" in n["message"]
               for n in result["notes"])
    # given by its name or by the code's own spelling
    result = run(tmp_path, "grids.f90", GRIDS_F90, "--set", f"{name}=40", "--set", "lv%nb=5")
    assert parameters(result)[name] == 40
    result = run(tmp_path, "grids.f90", GRIDS_F90, "--set", "lv%blocks(lv%perm(b))%n=40",
                 "--set", "lv%nb=5")
    relax = next(lp for lp in result["loops"] if lp["procedure"] == "relax")
    # 5 blocks of 40 elements, one multiply each: 200 flops; the procedure called only
    # inside that nest is not lost: 5 calls of 10 adds, 50 flops, 250 in all
    assert (relax["sweeps"], relax["iter_x"]) == (5, 40)
    assert relax["callee_gflops"] == pytest.approx(50e-9)
    assert relax["gflops"] == pytest.approx(250e-9)


LEVELS_F90 = """\
subroutine levels(nl, m1, x)
  integer, intent(in) :: nl, m1(nl)
  real(8), intent(inout) :: x(*)
  integer :: lt, i
  do lt = 1, nl
    do i = 1, m1(lt) - lt
      x(i) = x(i) + 1.0d0
    end do
  end do
end subroutine
"""


def test_a_loop_variable_mean_never_enters_a_subscript(tmp_path):
    (tmp_path / "blocks.c").write_text(BLOCKS_C)
    (tmp_path / "levels.f90").write_text(LEVELS_F90)
    # b is a subscript of the second reference of a chain: the bound keeps its text
    assert averaged_bounds(read_sources([str(tmp_path / "blocks.c")])) == {}
    # lt outside m1(lt) is at its mean (1 + nl)/2, inside it stays the level's own
    (loop, used), = averaged_bounds(read_sources([str(tmp_path / "levels.f90")])).values()
    assert loop.upper == "-(((1) + (nl))*0.5) + m1(lt)" and [u.loopvar for u in used] == ["lt"]


def test_a_level_size_bound_moves_with_its_level_outside_the_reference(tmp_path):
    result = run(tmp_path, "levels.f90", LEVELS_F90, "--set", "nl=9", "--set", "m1(lt)=100")
    # the loop variable is not a problem size; m1(lt) stays one symbol
    assert "lt" not in parameters(result) and parameters(result)["m1_lt"] == 100
    (loop,) = result["loops"]
    # sum over lt = 1..9 of (100 - lt) = 900 - 45 = 855 iterations, one add each
    assert loop["sweeps"] * loop["iter_x"] == pytest.approx(855)
    assert loop["gflops"] == pytest.approx(855e-9)


def test_a_part_with_no_arithmetic_the_model_knows_is_one_parameter(tmp_path):
    source = """\
void f(int n, int m, double *u) {
  for (int i = 0; i < (m > 4 ? n % 4 : n / 3); i++)
    u[i] = u[i] * 2.0;
  for (int i = 0; i < n % 4; i++)
    u[i] = u[i] * 3.0;
}
"""
    result = run(tmp_path, "parts.c", source)
    assert result["unmodelled"] == []
    # i < e is the upper bound e - 1: the "- 1" stays arithmetic, e is the parameter (128, an
    # upper bound's default): 128 iterations each
    assert [lp["iter_x"] for lp in result["loops"]] == [128, 128]
    result = run(tmp_path, "parts.c", source, "--set", "m_4_n_4_n_3=10", "--set", "n_4=3")
    assert [lp["iter_x"] for lp in result["loops"]] == [10, 3]


# ------------------------------------------------------------------ statement functions

CLOUD_F90 = """\
subroutine cloud(n, t, q)
  integer, intent(in) :: n
  real(8), intent(inout) :: t(n), q(n)
  real(8) :: ptare, foew
  integer :: i
  foew(ptare) = 611.21d0 * exp(17.5d0 * (ptare - 273.16d0) / (ptare - 32.19d0))
  real(8) :: qsat
  do i = 1, n
    qsat = foew(t(i)) / 1.0d5
    q(i) = min(q(i), qsat)
  end do
end subroutine
"""


def test_a_declaration_after_a_statement_function_hides_no_loop(tmp_path):
    result = run(tmp_path, "cloud.f90", CLOUD_F90, "--set", "n=1000")
    (loop,) = result["loops"]
    # foew: 2 subtractions, 2 multiplies, 1 divide, exp; / 1.0d5: a divide; min: an add
    assert flops(loop) == (3, 2, 2, 1)
    assert loop["gflops"] == pytest.approx(8 * 1000e-9)  # 8 flops per iteration
    # t read (8 B), q read and written (16 B)
    assert loop["levels"][0]["bytes_per_iteration"] == pytest.approx(24)


SATURATION_F90 = """\
subroutine saturation(n, m, t, p, q, c)
  integer, intent(in) :: n, m
  real(8), intent(in) :: t(n, m), p(n, m), c(4)
  real(8), intent(out) :: q(n, m)
  real(8) :: x, y, es, qs
  integer :: i, j
  es(x) = c(1) * exp(c(2) * x)
  qs(x, y) = 0.622d0 * es(x) / y
  real(8) :: w
  do j = 1, m
    do i = 1, n
      w = qs(t(i, j), p(i, j))
      q(i, j) = w
    end do
  end do
end subroutine
"""


def test_statement_functions_using_each_other_and_an_array(tmp_path):
    result = run(tmp_path, "saturation.f90", SATURATION_F90, "--set", "n=100", "--set", "m=50")
    (loop,) = result["loops"]
    # es: c(1) * exp(c(2) * x): 2 multiplies and exp; qs: 0.622 * es(x) / y: a multiply and
    # a divide: 5 flops per iteration, 100 * 50 iterations
    assert flops(loop) == (0, 3, 1, 1)
    assert loop["gflops"] == pytest.approx(5 * 5000e-9)
    # t and p read (16 B), q written (16 B)
    assert loop["levels"][0]["bytes_per_iteration"] == pytest.approx(32)
    # the array the expression names itself is read where the function is used
    text = xml(tmp_path, "saturation.f90", SATURATION_F90)
    assert '<array name="c" component=""' in text.split('loopvar="i"')[1]


ICE_F90 = """\
subroutine ice(n, t, f)
  integer, intent(in) :: n
  real(8), intent(in) :: t(n)
  real(8), intent(out) :: f(n)
  include 'fcttre.h'
  integer :: i
  do i = 1, n
    f(i) = foedelta(t(i))
  end do
end subroutine
"""

FCTTRE_H = """\
  real(8) :: foedelta, ptare
  foedelta(ptare) = max(0.0d0, sign(1.0d0, ptare - 273.16d0))
"""


def test_statement_functions_from_an_included_header(tmp_path):
    (tmp_path / "fcttre.h").write_text(FCTTRE_H)
    result = run(tmp_path, "ice.f90", ICE_F90, "--set", "n=500")
    (loop,) = result["loops"]
    # ptare - 273.16: an add; sign: free; max of two: an add
    assert flops(loop) == (2, 0, 0, 0)
    assert loop["gflops"] == pytest.approx(2 * 500e-9)
    assert loop["levels"][0]["bytes_per_iteration"] == pytest.approx(24)  # t 8 B, f 16 B


# ------------------------------------------------------------------ constant subscripts

PLANES_C = """\
void planes(int nk, int nl, double z[5][nk][nl], double *out) {
  for (int jk = 0; jk < nk; jk++)
    for (int jl = 0; jl < nl; jl++)
      out[jk*nl+jl] = z[3-1][jk][jl] + z[1-1][jk][jl] + z[4-1][jk][jl];
}
"""


@pytest.mark.parametrize("name, source, planes", [
    ("planes.c", PLANES_C, 3),
    # z[3-1] and z[2] are one plane; z[(2*3)/2 - 2] is plane 1: two planes
    ("same.c", PLANES_C.replace("z[1-1]", "z[2]").replace("z[4-1]", "z[(2*3)/2 - 2]"), 2),
    ("planes.f90", """\
subroutine planes(nk, nl, z, out)
  integer :: nk, nl, jk, jl
  real(8) :: z(nl, nk, 5), out(nl, nk)
  do jk = 1, nk
    do jl = 1, nl
      out(jl, jk) = z(jl, jk, 3-1) + z(jl, jk, 1+0) + z(jl, jk, 2*2)
    end do
  end do
end subroutine
""", 3),
])
def test_constant_subscripts_written_as_expressions_are_planes(tmp_path, name, source, planes):
    result = run(tmp_path, name, source, "--set", "nk=100", "--set", "nl=100")
    (loop,) = result["loops"]
    # each plane read is 8 B per iteration, out written 16 B: 3 planes 40 B, 2 planes 32 B
    assert loop["levels"][0]["bytes_per_iteration"] == pytest.approx(8 * planes + 16)
    assert loop["traffic_blocks_gb"] == pytest.approx((8 * planes + 16) * 10_000e-9)
    assert loop["adds"] == 2


# ------------------------------------------------------------------ index functions

LBM_C = """\
static inline int P(int nx, int ny, int x, int y, int z, int d) {
  return ((z*ny + y)*nx + x)*19 + d;
}
void stream(int nx, int ny, int nz, const double *src, double *dst) {
  for (int z = 0; z < nz; z++)
    for (int y = 0; y < ny; y++)
      for (int x = 1; x < nx - 1; x++)
        dst[P(nx,ny,x,y,z,1)] = src[P(nx,ny,x-1,y,z,1)];
}
"""

LBM_NESTED_C = """\
#define CELL(x, y, z) (((z)*ny + (y))*nx + (x))
static int Q(int nx, int ny, int x, int y, int z) { return CELL(x, y, z); }
static inline long P(int nx, int ny, int x, int y, int z, int d) {
  return Q(nx, ny, x, y, z)*19 + d;
}
void stream(int nx, int ny, int nz, const double *src, double *dst) {
  for (int z = 0; z < nz; z++)
    for (int y = 0; y < ny; y++)
      for (int x = 1; x < nx - 1; x++)
        dst[P(nx,ny,x,y,z,1)] = src[P(nx,ny,x-1,y,z,1)] + src[CELL(x,y,z)*19 + 1];
}
"""

LBM_F90 = """\
subroutine stream(nx, ny, nz, src, dst)
  integer, intent(in) :: nx, ny, nz
  real(8), intent(in) :: src(*)
  real(8), intent(inout) :: dst(*)
  integer :: x, y, z, p, i, j, k
  p(i, j, k) = 1 + (i - 1) + nx*((j - 1) + ny*(k - 1))
  do z = 1, nz
    do y = 1, ny
      do x = 2, nx - 1
        dst(p(x, y, z)) = src(p(x - 1, y, z)) + src(idx(x, y, z))
      end do
    end do
  end do
contains
  integer function idx(i, j, k)
    integer, intent(in) :: i, j, k
    idx = i + nx*((j - 1) + ny*(k - 1))
  end function
end subroutine
"""


# distinct bytes: 30 * 32 * 32 = 30,720 iterations; dst written, 16 B each: 491,520 B; src
# read at x - 1 only: 30 elements a row, 8 B each, 245,760 B; at x - 1 and x: 31 elements a
# row (the union of the two, the halo once), 253,952 B
@pytest.mark.parametrize("name, source, compulsory", [
    ("lbm.c", LBM_C, 491_520 + 245_760), ("nested.c", LBM_NESTED_C, 491_520 + 253_952),
    ("lbm.f90", LBM_F90, 491_520 + 253_952)])
def test_index_functions_are_inlined_into_subscripts(tmp_path, name, source, compulsory):
    result = run(tmp_path, name, source, "--set", "nx=32", "--set", "ny=32", "--set", "nz=32")
    (loop,) = result["loops"]
    assert loop["sweeps"] * loop["iter_x"] * loop["iter_y"] * loop["iter_z"] == 30_720
    assert loop["traffic_blocks_gb"] == pytest.approx(compulsory * 1e-9)
    text = xml(tmp_path, name, source)
    assert "irregular(" not in text and "functioncall" not in text.split("<loop")[-1]
    # the src stencil point one cell to the left of the written one: C's P(x-1,y,z,1) is
    # src[z][y][x-1][1]; Fortran's p(x-1,y,z) = x - 1 + nx*(y - 1) + nx*ny*(z - 1) is
    # src(x-1, y-1, z-1) over extents nx, ny (the -1 of y and z: the arrays start at 1)
    assert 'offset="(0,0,-1,1)"' in text or 'offset="(-1,-1,-1)"' in text


TILED_IX_C = """\
static inline int ix(int j, int i) { return j*66 + i; }
void tiled(const double *a, double *b) {
  for (int tj = 0; tj < 64; tj += 16)
    for (int ti = 0; ti < 64; ti += 16)
      for (int jj = 0; jj < 16; jj++)
        for (int ii = 0; ii < 16; ii++)
          b[ix(tj+jj+1, ti+ii+1)] = a[ix(tj+jj+1, ti+ii)] + a[ix(tj+jj+1, ti+ii+2)];
}
"""

TILED_2D_C = """\
void tiled(const double a[66][66], double b[66][66]) {
  for (int tj = 0; tj < 64; tj += 16)
    for (int ti = 0; ti < 64; ti += 16)
      for (int jj = 0; jj < 16; jj++)
        for (int ii = 0; ii < 16; ii++)
          b[tj+jj+1][ti+ii+1] = a[tj+jj+1][ti+ii] + a[tj+jj+1][ti+ii+2];
}
"""


@pytest.mark.parametrize("index, offsets", [
    # (tj + jj + 1)*66 + ti + ii + 1: jj and tj both have stride 66, ii and ti stride 1
    ("(tj + jj + 1)*66 + ti + ii + 1", ["tj + 1", "ti + 1"]),
    # 66*tj + 66*jj + ti + ii - 67 = 66*(tj + jj - 1) + (ti + ii - 1)
    ("66*tj + 66*jj + ti + ii - 67", ["tj - 1", "ti - 1"]),
    # a 3-D tile: (kt + kk)*66*66 + (jj + 2)*66 + ti + ii
    ("(kt + kk)*4356 + (jj + 2)*66 + ti + ii", ["kt", 2, "ti"]),
])
def test_tile_origin_and_element_share_a_dimension(index, offsets):
    import sympy

    from sat.frontend.c.delinearise import delinearise

    split = delinearise(sympy.sympify(index), ["kt", "tj", "ti", "kk", "jj", "ii"])
    inner = [var for var in ("kk", "jj", "ii") if var in index]
    assert split.loopvars == inner
    assert split.offsets == offsets
    assert split.extents[1:] == ["66"] * (len(inner) - 1)


def test_origin_terms_split_over_a_product_stride():
    import sympy

    from sat.frontend.c.delinearise import delinearise

    x, y, z, nx, ny = sympy.symbols("x y z nx ny")
    # x - 1 + nx*(y - 1) + nx*ny*(z - 1): -nx*ny is -1 plane, -nx is -1 row, -1 element
    split = delinearise(x - 1 + nx * y + nx * ny * z, ["z", "y", "x"], [-nx * ny, -nx])
    assert (split.offsets, split.loopvars, split.extents) == (
        [-1, -1, -1], ["z", "y", "x"], ["*", "ny", "nx"])


def test_index_function_of_tile_origin_and_element_reads_as_its_twin(tmp_path):
    ix, twin = xml(tmp_path, "ix.c", TILED_IX_C), xml(tmp_path, "twin.c", TILED_2D_C)
    # a at (tj + jj + 1, ti + ii) and (.., ti + ii + 2), b at (.., ti + ii + 1): two dimensions
    for offset in ("(tj + 1,ti)", "(tj + 1,ti + 2)", "(tj + 1,ti + 1)"):
        assert f'offset="{offset}"' in ix and f'offset="{offset}"' in twin
    (loop_ix,) = run(tmp_path, "ix.c", TILED_IX_C)["loops"]
    (loop_twin,) = run(tmp_path, "twin.c", TILED_2D_C)["loops"]
    assert loop_ix["traffic_blocks_gb"] == pytest.approx(loop_twin["traffic_blocks_gb"])


# ------------------------------------------------------------------ array reductions

DOTS_F90 = """\
subroutine dots(n, m, a, b, r)
  integer, intent(in) :: n, m
  real(8), intent(in) :: a(n), b(n)
  real(8), intent(inout) :: r(m)
  integer :: k
  do k = 1, m
    r(k) = r(k) + dot_product(a, b) + sum(a*b)
  end do
end subroutine
"""


@pytest.mark.parametrize("n, m", [(128, 128), (64, 128)])
def test_dot_product_and_sum_are_loops_over_the_elements(tmp_path, n, m):
    result = run(tmp_path, "dots.f90", DOTS_F90, "--set", f"n={n}", "--set", f"m={m}")
    assert not any("not counted as flops" in w["message"] for w in result["warnings"])
    # dot_product: a multiply and an add per element; sum(a*b): the same; two adds per k:
    # 4 n m + 2 m (n = m = 128: 65,792; n = 64: 33,024)
    total = sum(loop["gflops"] for loop in result["loops"])
    assert total == pytest.approx((4 * n * m + 2 * m) * 1e-9)
    # a and b read once per element of each reduction, each k: 2 reductions * 16 B * n * m
    assert sum(loop["traffic_blocks_gb"] for loop in result["loops"]) == pytest.approx(
        2 * 16 * n * m * 1e-9)


NORMS_F90 = """\
subroutine norms(n, m, a, r)
  integer, intent(in) :: n, m
  real(8), intent(in) :: a(n, n)
  real(8), intent(out) :: r(m)
  integer :: k
  do k = 1, m
    r(k) = maxval(a) + norm2(a) * k
  end do
end subroutine
"""


@pytest.mark.parametrize("parser", ["tree-sitter", "fparser"])
def test_maxval_and_norm2_over_a_two_dimensional_array(tmp_path, parser):
    # both parsers know norm2 (Fortran 2008) for an intrinsic, not a call of an unknown function
    result = run(tmp_path, "norms.f90", NORMS_F90, "--set", "n=10", "--set", "m=7",
                 "--fortran-parser", parser)
    # per k: maxval n^2 compares (adds), norm2 n^2 multiplies and adds and one square root,
    # then a multiply and an add: 3 * 100 + 1 + 2 = 303; 7 * 303 = 2,121 flops
    total = sum(loop["gflops"] for loop in result["loops"])
    assert total == pytest.approx(2_121e-9)
    assert sum(lp["specials"] for lp in result["loops"]) == 1


def test_a_reduction_over_an_array_of_unknown_extent_stays_uncounted(tmp_path):
    source = DOTS_F90.replace("a(n), b(n)", "a(*), b(*)")
    result = run(tmp_path, "dots.f90", source)
    assert any("array reduction 'dot_product' is not counted as flops" in w["message"]
               for w in result["warnings"])


# ------------------------------------------------------------------ OpenMP's types

def test_openmp_locks_and_schedules_are_declared(tmp_path):
    result = run(tmp_path, "hist.c", """\
#include <omp.h>
void hist(int n, const int *bin, double *count, omp_lock_t *locks) {
  omp_nest_lock_t outer;
  omp_sched_t kind; int chunk;
  omp_init_nest_lock(&outer);
  omp_get_schedule(&kind, &chunk);
  #pragma omp parallel for
  for (int i = 0; i < n; i++) {
    omp_set_lock(&locks[bin[i]]);
    count[bin[i]] += 1.0;
    omp_unset_lock(&locks[bin[i]]);
  }
  omp_destroy_nest_lock(&outer);
}
""", "--set", "n=1000")
    assert result["warnings"] == []
    (loop,) = result["loops"]
    assert loop["adds"] == 1 and loop["gflops"] == pytest.approx(1000e-9)


# ------------------------------------------------------------------ the workbook stays live

def test_an_opaque_bound_is_a_live_cell_of_the_workbook(tmp_path):
    from libreoffice import recalculate_edited

    path = tmp_path / "grids.f90"
    path.write_text(GRIDS_F90)
    book = tmp_path / "grids.xlsx"
    assert main([str(path), "-q", "-o", str(book)]) == 0
    edits = {"lv_blocks_lv_perm_b_n": 40, "lv_nb": 5}
    values = recalculate_edited(book, edits, tmp_path / "edit")
    sheet, cell = next(iter(values.defined_names["Total_GFlops"].destinations))
    # as the command line with the same values: 5 blocks of 40 multiplies, 5 calls of 10 adds
    sets = [item for name, value in edits.items() for item in ("--set", f"{name}={value}")]
    want = run(tmp_path, "grids.f90", GRIDS_F90, *sets)
    assert want["totals"]["gflops"] == pytest.approx(250e-9)
    assert values[sheet][cell.replace("$", "")].value == pytest.approx(250e-9, rel=1e-9)
