"""Loops as real codes' authors write them: member-chain bounds, source tiles, comma headers,
stepped and unrolled loops, K&R definitions, MPI and pthread headers, initialised variables.

Every expected number is worked out by hand in the comments.  Traffic is ExaSAT's with the
default machine: a read-only array element costs 8 B, a written-only one 16 B (the write and
its write-allocate read), a read-and-written one 16 B.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sat.cli import main


def source(tmp_path: Path, text: str, name: str = "kernel.c") -> str:
    path = tmp_path / name
    path.write_text(text)
    return str(path)


def run(capsys, path: str, *options: str) -> dict:
    assert main([path, "--json", "-", "-q", *options]) == 0
    return json.loads(capsys.readouterr().out)


def problem(result: dict) -> dict[str, dict]:
    return {p["name"]: p for p in result["parameters"] if p["group"] == "problem"}


def loop(result: dict, line: int) -> dict:
    return next(entry for entry in result["loops"] if entry["line"] == line)


def iterations(entry: dict) -> float:
    return entry["sweeps"] * entry["iter_x"] * entry["iter_y"] * entry["iter_z"]


def bytes_per_iteration(entry: dict) -> float:
    return entry["traffic_gb"] * 1e9 / iterations(entry)


# ------------------------------------------------------------- 1. member-chain bounds

MEMBERS = """\
typedef struct { int lookups; } Inputs;
typedef struct { int nLocalBoxes; } Boxes;
typedef struct { Boxes *boxes; } Sim;
typedef struct { int i, j, k; } dim3;
typedef struct { dim3 dim; } block_t;
typedef struct { block_t *my_blocks; int num_my_blocks; } level_t;
void kern(Inputs in, Sim *s, level_t *level, double *a, double *b)
{
  int i, b2, blk, k, j;
  for (i = 0; i < in.lookups; i++)
    a[i] = 2.0 * b[i];
  for (b2 = 0; b2 < s->boxes->nLocalBoxes; b2++)
    a[b2] = a[b2] + b[b2];
  for (blk = 0; blk < level->num_my_blocks; blk++)
    for (k = 0; k < level->my_blocks[blk].dim.k; k++)
      for (j = 0; j < level->my_blocks[blk].dim.j; j++)
        for (i = 0; i < level->my_blocks[blk].dim.i; i++)
          a[(k*64 + j)*64 + i] = 0.5 * b[(k*64 + j)*64 + i];
}
"""


@pytest.mark.parametrize("spelling", ["in.lookups", "in_lookups"])
def test_c_member_chains_are_problem_parameters(tmp_path, capsys, spelling):
    result = run(capsys, source(tmp_path, MEMBERS), "--set", f"{spelling}=1000")
    params = problem(result)
    lookups = params["in_lookups"]
    assert (lookups["value"], lookups["source"]) == (1000, "--set")
    assert lookups["label"] == "code symbol in.lookups"
    chain = params["s_boxes_nlocalboxes"]  # defaulted as an upper bound: 128
    assert (chain["value"], chain["source"]) == (128, "default")
    assert chain["label"] == "code symbol s->boxes->nLocalBoxes"
    assert {"level_my_blocks_blk_dim_k", "level_my_blocks_blk_dim_j",
            "level_my_blocks_blk_dim_i", "level_num_my_blocks"} <= set(params)
    # a[i] = 2.0*b[i], 1000 trips: 1 multiply; b read 8 B, a written 16 B -> 24 B/iteration.
    first = loop(result, 10)
    assert (iterations(first), first["multiplies"]) == (1000, 1)
    assert bytes_per_iteration(first) == pytest.approx(24)
    # a[b2] = a[b2] + b[b2], 128 trips: 1 add, a read-and-written 16 B + b 8 B = 24 B.
    second = loop(result, 12)
    assert (iterations(second), second["adds"]) == (128, 1)
    assert bytes_per_iteration(second) == pytest.approx(24)
    # Every chain is a whole loop: 128 blocks x 128^3 points, 1 multiply, 24 B each
    # (the inner k, j, i loops are no longer taken as one iteration).
    third = loop(result, 14)
    assert iterations(third) == 128 ** 4
    assert third["traffic_gb"] == pytest.approx(128 ** 4 * 24 / 1e9)
    assert not [w for w in result["warnings"] if "one iteration" in w["message"]]


DERIVED = """\
module gridmod
  type grid_t
    integer :: nx, ny
    integer :: lo(3), hi(3)
  end type
end module
subroutine kern(grid, g, a, b)
  use gridmod
  type(grid_t) :: grid, g
  real(8) :: a(grid%nx, grid%ny), b(grid%nx, grid%ny)
  integer :: i, j
  do j = 1, grid%ny
    do i = g%lo(1), g%hi(1)
      a(i,j) = 2.0d0*b(i,j)
    end do
  end do
end subroutine
"""


def test_fortran_derived_type_components_are_problem_parameters(tmp_path, capsys):
    path = source(tmp_path, DERIVED, "kern.f90")
    result = run(capsys, path, "--set", "g%hi(1)=64", "--set", "grid_ny=10")
    params = problem(result)
    assert params["g_hi_1"]["value"] == 64 and params["g_hi_1"]["label"] == "code symbol g%hi(1)"
    assert params["g_lo_1"]["value"] == 1  # a lower bound's default
    assert params["grid_ny"]["value"] == 10
    # j: 10 trips; i: g%lo(1)..g%hi(1) = 1..64, 64 trips -> 640 iterations of one multiply,
    # 24 B each (b read 8, a written 16).
    entry = loop(result, 12)
    assert iterations(entry) == 640 and entry["multiplies"] == 1
    assert bytes_per_iteration(entry) == pytest.approx(24)


# ------------------------------------------------------------- 2. tiles written in the source

TILED_C = """\
#define MIN(a,b) (((a)<(b))?(a):(b))
void tiled(int n, int ts, double a[n][n], double b[n][n])
{
  int i, j, jt;
  for (jt = 0; jt < n; jt += ts)
    for (i = 0; i < n; i++)
      for (j = jt; j < MIN(n, jt+ts); j++)
        a[i][j] = a[i][j] + 2.0*b[i][j];
}
"""

TILED_F = """\
subroutine tiled(n, ts, a, b)
  integer :: n, ts, i, j, jt
  real(8) :: a(n,n), b(n,n)
  do jt = 1, n, ts
    do i = 1, n
      do j = jt, min(n, jt+ts-1)
        a(j,i) = a(j,i) + 2.0d0*b(j,i)
      end do
    end do
  end do
end subroutine
"""


# fmin takes doubles: its comparison is one add, at the level that evaluates the bound (the i
# loop), and flops are summed over the levels of a nest: 1 + 1 = 2 adds.
@pytest.mark.parametrize("text, name, line, adds", [
    (TILED_C, "tiled.c", 5, 1),
    (TILED_C.replace("MIN(n, jt+ts)", "fmin(n, jt+ts)"), "tiled_fmin.c", 5, 2),
    (TILED_C.replace("MIN(n, jt+ts)", "(n < jt+ts ? n : jt+ts)"), "tiled_ternary.c", 5, 1),
    (TILED_C.replace("#define MIN(a,b) (((a)<(b))?(a):(b))", ""), "tiled_header_macro.c", 5, 1),
    (TILED_F, "tiled.f90", 4, 1)])
def test_a_source_tile_covers_its_range_in_blocks(tmp_path, capsys, text, name, line, adds):
    result = run(capsys, source(tmp_path, text, name), "--set", "n=1000", "--set", "ts=50")
    entry = loop(result, line)
    # The tile loop and its element loop run j over 0..n-1 once, in blocks of ts: 1000 x 1000
    # iterations, not 20 x 1000 x 50 (and not one j per tile); the unit-stride axis X (j) is
    # blocked by ts = 50, Y (i) not at all: 1000/50 x 1000/1000 = 20 blocks.
    assert (entry["iter_x"], entry["iter_y"], entry["sweeps"]) == (1000, 1000, 1)
    assert (entry["block_x"], entry["block_y"], entry["blocks"]) == (50, 1000, 20)
    # a = a + 2*b: one add, one multiply; a read-and-written 16 B + b read 8 B = 24 B.
    assert (entry["adds"], entry["multiplies"]) == (adds, 1)
    assert bytes_per_iteration(entry) == pytest.approx(24)
    assert not result["warnings"]  # no unknown MIN, no one-iteration loop


def test_source_tiles_in_two_axes_and_literal_min(tmp_path, capsys):
    text = """\
subroutine tiled2(a, b)
  real(8) :: a(1000,1000), b(1000,1000)
  integer :: i, j, it, jt
  do jt = 1, 1000, 64
    do it = 1, 1000, 32
      do j = jt, min(jt+63, 1000)
        do i = it, min(1000, it+31)
          a(i,j) = 0.25d0*(b(i-1,j) + b(i+1,j) + b(i,j-1) + b(i,j+1))
        end do
      end do
    end do
  end do
  do j = 1, min(4, 8)
    do i = 1, 1000
      a(i,j) = 0.0d0
    end do
  end do
end subroutine
"""
    result = run(capsys, source(tmp_path, text, "tiled2.f90"))
    tiled = loop(result, 4)
    # 1000 x 1000 points in 32 x 64 tiles: 1000/32 x 1000/64 = 31.25 x 15.625 = 488.28125
    # blocks; 3 adds and 1 multiply per point.
    assert (tiled["iter_x"], tiled["iter_y"], tiled["sweeps"]) == (1000, 1000, 1)
    assert (tiled["block_x"], tiled["block_y"]) == (32, 64)
    assert tiled["blocks"] == pytest.approx(1000 / 32 * 1000 / 64)
    assert (tiled["adds"], tiled["multiplies"]) == (3, 1)
    # min(4, 8) is the number 4: 4 x 1000 iterations.
    literal = loop(result, 13)
    assert (literal["iter_x"], literal["iter_y"]) == (1000, 4)


def test_tile_survives_the_code_description(tmp_path, capsys):
    from sat.frontend import read_sources
    from sat.xmlio import read_program, write_program

    program = read_sources([source(tmp_path, TILED_F, "tiled.f90")])
    tile = program.procedures[0].loops[0]
    element = tile.loops[0].loops[0]
    assert (tile.kind, element.lower, element.upper, element.tile) == ("tile", "1", "n", "ts")
    path = tmp_path / "tiled.xml"
    write_program(program, str(path))
    again = read_program(str(path)).procedures[0].loops[0]
    assert again.kind == "tile" and again.loops[0].loops[0].tile == "ts"


# ------------------------------------------------------------- 4. comma expressions in for

CSR = """\
void spmv(int nrows, const int *rowptr, const int *col, const double *val,
          const double *x, double *y)
{
  int i, j, first, last;
  double temp;
  for (i = 0; i < nrows; i++) {
    first = rowptr[i]; last = rowptr[i+1] - 1;
    for (j = first, temp = 0.0; j <= last; j++)
      temp += val[j] * x[col[j]];
    y[i] = temp;
  }
}
"""

CSR_DIRECT = CSR.replace("for (j = first, temp = 0.0; j <= last; j++)",
                         "for (j = rowptr[i]; j < rowptr[i+1]; j++)")

REVERSED = """\
void reverse(int n, double *a, const double *b)
{
  for (int i = 0, k = n - 1; i < n; i++, k--)
    a[i] = b[k] * 3.0;
}
"""


def test_comma_initialisers_find_the_loop_variable(tmp_path, capsys):
    comma = run(capsys, source(tmp_path, CSR, "csr.c"))
    direct = run(capsys, source(tmp_path, CSR_DIRECT, "direct.c"))
    # The row loop is a counted loop over j (not one trip): first and last are the row's
    # bounds rowptr[i] .. rowptr[i+1]-1, exactly the loop written with rowptr directly, so
    # both give the same iterations, flops (1 add, 1 multiply) and traffic.
    assert not comma["warnings"]
    for field in ("sweeps", "iter_x", "adds", "multiplies", "traffic_gb"):
        assert loop(comma, 6)[field] == loop(direct, 6)[field], field
    assert (loop(comma, 6)["adds"], loop(comma, 6)["multiplies"]) == (1, 1)


def test_comma_updates_step_a_second_induction_variable(tmp_path, capsys):
    result = run(capsys, source(tmp_path, REVERSED, "reverse.c"), "--set", "n=1000")
    entry = loop(result, 3)
    # i = 0..999 with k = n-1-i: b[k] streams like b[i]: 1 multiply, b read 8 B + a written
    # 16 B = 24 B per iteration, 24000 B in all.
    assert (iterations(entry), entry["multiplies"]) == (1000, 1)
    assert entry["traffic_gb"] == pytest.approx(24000 / 1e9)


# ------------------------------------------------------------- 5. stepped and unrolled loops

UNROLLED = """\
#define N 4000
double a[N], b[N];
void unrolled(void)
{
  int i;
  for (i = 0; i < N; i += 4) {
    a[i]   = 2.0 * b[i];
    a[i+1] = 2.0 * b[i+1];
    a[i+2] = 2.0 * b[i+2];
    a[i+3] = 2.0 * b[i+3];
  }
}
void rolled(void)
{
  int i;
  for (i = 0; i < N; i++)
    a[i] = 2.0 * b[i];
}
"""

JACOBI_UNROLLED = """\
#define N 4000
double a[N], b[N];
void unrolled(double c)
{
  for (int i = 1; i < N-1; i += 2) {
    a[i]   = c * (b[i-1] + b[i]   + b[i+1]);
    a[i+1] = c * (b[i]   + b[i+1] + b[i+2]);
  }
}
void rolled(double c)
{
  for (int i = 1; i < N-1; i++)
    a[i] = c * (b[i-1] + b[i] + b[i+1]);
}
"""


def test_an_unrolled_loop_moves_what_its_rolled_twin_moves(tmp_path, capsys):
    result = run(capsys, source(tmp_path, UNROLLED, "unrolled.c"))
    unrolled, rolled = loop(result, 6), loop(result, 16)
    # i = 0, 4, ..., 3996: 4000/4 = 1000 trips of 4 multiplies; the twin 4000 trips of 1:
    # 4000 flops each.
    assert (unrolled["iter_x"], unrolled["multiplies"]) == (1000, 4)
    assert (rolled["iter_x"], rolled["multiplies"]) == (4000, 1)
    assert unrolled["gflops"] == rolled["gflops"] == pytest.approx(4000 / 1e9)
    # Each trip touches 4 new elements of a and b: 4000 x (8 B of b + 16 B of a) = 96000 B
    # for both (before, the unrolled loop counted 1003 elements per array: 3.97x less).
    assert unrolled["traffic_gb"] == pytest.approx(96000 / 1e9)
    assert rolled["traffic_gb"] == pytest.approx(96000 / 1e9)


def test_an_unrolled_stencil_keeps_its_rolled_traffic(tmp_path, capsys):
    result = run(capsys, source(tmp_path, JACOBI_UNROLLED, "jacobi.c"))
    unrolled, rolled = loop(result, 5), loop(result, 12)
    # 3998 points: the twin runs 3998 trips of 2 adds + 1 multiply, the unrolled loop 1999
    # of 4 + 2: 11994 flops both.
    assert (unrolled["iter_x"], unrolled["adds"], unrolled["multiplies"]) == (1999, 4, 2)
    assert unrolled["gflops"] == rolled["gflops"] == pytest.approx(11994 / 1e9)
    # The twin: b read over 3998 + 2 halo = 4000 elements (8 B), a written over 3998 rounded
    # to whole lines, 4000 (16 B): 96000 B.  The unrolled loop's offsets -1..2 in steps of 2
    # are -1..1 steps; its halo is one step (2 elements) each side and its pencil 1999 steps
    # of 2 rounded to lines: 96128 B, within 0.2 % of the twin.
    assert rolled["traffic_gb"] == pytest.approx(96000 / 1e9)
    assert unrolled["traffic_gb"] == pytest.approx(rolled["traffic_gb"], rel=2e-3)


# ------------------------------------------------------------- 6. K&R definitions, implicit int

KR = """\
static count;
scale(a, n)
double *a;
int n;
{
  register i;
  for (i = 0; i < n; i++)
    a[i] = 2.0 * a[i];
  return 0;
}
double dot(x, y, n)
double x[], y[];
{
  int i; double s = 0.0;
  for (i = 0; i < n; i++)
    s += x[i] * y[i];
  return s;
}
"""


def test_k_and_r_definitions_and_implicit_int(tmp_path, capsys):
    result = run(capsys, source(tmp_path, KR, "kr.c"), "--set", "n=1000")
    # scale: a[i] = 2*a[i], 1000 trips, 1 multiply, a read and written: 16 B per iteration.
    scale = loop(result, 7)
    assert (scale["procedure"], iterations(scale), scale["multiplies"]) == ("scale", 1000, 1)
    assert bytes_per_iteration(scale) == pytest.approx(16)
    # dot: n is not declared after the list, so it is an int; x, y are double arrays
    # (no "not declared" warning): 1 add + 1 multiply, two reads of 8 B = 16 B.
    dot = loop(result, 15)
    assert (dot["procedure"], iterations(dot), dot["adds"], dot["multiplies"]) == (
        "dot", 1000, 1, 1)
    assert bytes_per_iteration(dot) == pytest.approx(16)
    assert not result["warnings"]


# ------------------------------------------------------------- 7. <mpi.h> and <pthread.h>

MPI_THREADS = """\
#include <mpi.h>
#include <pthread.h>
double a[1000], b[1000];
pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
int main(int argc, char **argv)
{
  int rank, size, i;
  MPI_Request req[2];
  MPI_Status st[2];
  MPI_Comm comm = MPI_COMM_WORLD;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Irecv(a, 10, MPI_DOUBLE, (rank+1)%size, 0, comm, &req[0]);
  MPI_Isend(b, 10, MPI_DOUBLE, (rank+size-1)%size, 0, comm, &req[1]);
  MPI_Waitall(2, req, MPI_STATUSES_IGNORE);
  pthread_mutex_lock(&lock);
  for (i = 0; i < 1000; i++)
    a[i] = a[i] + 0.5 * b[i];
  pthread_mutex_unlock(&lock);
  double t = MPI_Wtime();
  MPI_Allreduce(MPI_IN_PLACE, a, 1000, MPI_DOUBLE, MPI_SUM, comm);
  MPI_Finalize();
  return 0;
}
"""


def test_mpi_and_pthread_headers_need_no_definitions(tmp_path, capsys):
    from sat.frontend.c import read_c

    path = source(tmp_path, MPI_THREADS, "mpi_threads.c")
    result = run(capsys, path)  # no -D MPI_Request=int, no -D MPI_Comm=int
    entry = loop(result, 18)
    # a[i] = a[i] + 0.5*b[i], 1000 trips: 1 add, 1 multiply; a read-and-written 16 B, b 8 B.
    assert (iterations(entry), entry["adds"], entry["multiplies"]) == (1000, 1, 1)
    assert bytes_per_iteration(entry) == pytest.approx(24)
    assert not result["warnings"]  # no unknown function, no unknown type
    # MPI calls are the procedure's communication points (no flops), as in Fortran.
    comms = [(c.name, c.line, c.arrays) for c in read_c(path).procedures[0].comms]
    assert comms[:5] == [("MPI_Init", 11, []), ("MPI_Comm_rank", 12, []),
                         ("MPI_Comm_size", 13, []), ("MPI_Irecv", 14, ["a"]),
                         ("MPI_Isend", 15, ["b"])]
    assert ("MPI_Allreduce", 22, ["a"]) in comms


# ------------------------------------------------------------- 3. tiny sizes from -D

FIVE_POINT = """\
double a[M][N], b[M][N], s;
for (int j = 1; j < M-1; ++j)
  for (int i = 1; i < N-1; ++i)
    b[j][i] = (a[j][i-1] + a[j][i+1] + a[j-1][i] + a[j+1][i]) * s;
"""


def test_sizes_given_with_d_are_spatial_whatever_their_trips(tmp_path, capsys):
    path = source(tmp_path, FIVE_POINT, "2d5pt.c")
    tiny = run(capsys, path, "-D", "N=10", "-D", "M=20")
    symbolic = run(capsys, path, "--set", "n=10", "--set", "m=20")
    entry = loop(tiny, 2)
    # i = 1..8 (8 trips over the unit-stride dimension) is X, not a loop over 8 components;
    # j = 1..18 is Y: 144 iterations of 3 adds and 1 multiply, exactly the nest with the
    # sizes as problem parameters (before: 1 x 1 x 1 and no traffic).
    assert (entry["iter_x"], entry["iter_y"], entry["sweeps"]) == (8, 18, 1)
    assert (entry["adds"], entry["multiplies"]) == (3, 1)
    for field in ("iter_x", "iter_y", "gflops"):
        assert entry[field] == loop(symbolic, 2)[field], field
    # with literal extents the rows of 10 doubles (80 B) lie back to back and share their
    # lines; with extents given at run time each row is rounded up to whole lines
    assert entry["traffic_gb"] < loop(symbolic, 2)["traffic_gb"]


def test_a_small_d_size_is_work_not_setup(tmp_path, capsys):
    text = "#define NX (N+2)\ndouble a[NX], b[NX];\nfor (int i = 0; i < NX; i++)\n" \
           "  a[i] = 3.0 * b[i];\n"
    result = run(capsys, source(tmp_path, text, "small.c"), "-D", "N=98")
    # NX is N+2 = 100 through the file's own #define: 100 trips (fewer than SetupIterations,
    # one-dimensional) are still the modelled work: 1 multiply, 8 + 16 = 24 B per iteration.
    entry = loop(result, 3)
    assert (iterations(entry), entry["multiplies"]) == (100, 1)
    assert bytes_per_iteration(entry) == pytest.approx(24)


def test_fortran_sizes_given_with_d(tmp_path, capsys):
    text = """\
subroutine smooth(a, b)
  real(8) :: a(N, N), b(N, N)
  integer :: i, j
  do j = 2, N-1
    do i = 2, N-1
      b(i,j) = 0.25d0*(a(i-1,j) + a(i+1,j) + a(i,j-1) + a(i,j+1))
    end do
  end do
end subroutine
"""
    entry = loop(run(capsys, source(tmp_path, text, "smooth.F90"), "-D", "N=10"), 4)
    # 2..9 both ways: 8 x 8 points of 3 adds and 1 multiply.
    assert (entry["iter_x"], entry["iter_y"], entry["adds"], entry["multiplies"]) == (8, 8, 3, 1)


def test_sized_survives_the_code_description(tmp_path):
    from sat.frontend import read_sources
    from sat.xmlio import read_program, write_program

    program = read_sources([source(tmp_path, FIVE_POINT, "2d5pt.c")], ["N=10", "M=20"])
    outer = program.procedures[0].loops[0]
    assert (outer.upper, outer.sized, outer.loops[0].upper, outer.loops[0].sized) == (
        "18", True, "8", True)
    path = tmp_path / "sized.xml"
    write_program(program, str(path))
    again = read_program(str(path)).procedures[0].loops[0]
    assert again.sized and again.loops[0].sized


# ------------------------------------------------------------- 8. initialised variables

INITIALISED = """\
#define OUTER 500
#define INNER 300
double a[OUTER][INNER];
const int Nk = 20;
int changed = 7;
void init(double s)
{
  int Nm = OUTER, Nn = INNER;
  int i, j, k;
  for (k = 0; k < Nk; k++)
    for (i = 0; i < Nm; i++)
      for (j = 0; j < Nn; j++)
        a[i][j] = s * a[i][j];
  for (i = 0; i < changed; i++)
    a[0][i] = 0.0;
}
void later(void) { changed = 9; }
"""


def test_initialised_and_never_changed_variables_keep_their_values(tmp_path, capsys):
    result = run(capsys, source(tmp_path, INITIALISED, "init.c"))
    params = problem(result)
    # Nm = OUTER = 500, Nn = INNER = 300, Nk = 20: their values, not a defaulted 128.
    assert {name: params[name]["value"] for name in ("nm", "nn", "nk")} == {
        "nm": 500, "nn": 300, "nk": 20}
    assert params["nm"]["source"].startswith("initial value at ")
    # 20 sweeps x 500 x 300 of 1 multiply; a read and written, 16 B: 48e6 B.
    entry = loop(result, 10)
    assert (iterations(entry), entry["multiplies"]) == (20 * 500 * 300, 1)
    assert entry["traffic_gb"] == pytest.approx(20 * 500 * 300 * 16 / 1e9)
    # changed is assigned in later(): a problem symbol with the usual default.
    assert params["changed"]["source"] == "default"


def test_named_constant_over_symbols_of_a_missing_include(tmp_path, capsys):
    text = """\
      subroutine ax(u, w)
      include 'SIZE'
      parameter (lt = lx1*ly1*lz1*lelt)
      real u(lt), w(lt)
      do i = 1, lt
         w(i) = 2.0*u(i)
      enddo
      end
"""
    result = run(capsys, source(tmp_path, text, "ax.f"), "--set", "lx1=8", "--set", "ly1=8",
                 "--set", "lz1=8", "--set", "lelt=100")
    params = problem(result)
    # lt is the formula lx1*ly1*lz1*lelt = 8*8*8*100 = 51200, not a defaulted parameter.
    assert "lt" not in params and {"lx1", "ly1", "lz1", "lelt"} <= set(params)
    entry = loop(result, 5)
    assert (iterations(entry), entry["multiplies"]) == (51200, 1)
    # default real: 4 B elements, u read 4 B + w written 8 B (write and write-allocate)
    assert bytes_per_iteration(entry) == pytest.approx(12)


# ------------------------------------------------------------- 10. reasons of unmodelled nests

# fixed setup work (a bound the model cannot read, n % 7, is a parameter: its nest is modelled)
UNMODELLED = """\
void odd(int n, double *a)
{
  for (int i = 0; i < 7; i++)
    a[i] = 1.0;
  for (int i = 0; i < 5; i++)
    a[i] = 2.0;
  for (int i = 0; i < 3; i++)
    a[i] = 3.0;
}
"""


def test_every_unmodelled_nest_has_its_reason_in_the_json(tmp_path, capsys):
    text = UNMODELLED.replace("}\n", "  for (int i = 0; i < n; i++)\n    a[i] = 4.0;\n}\n")
    result = run(capsys, source(tmp_path, text, "odd.c"))
    assert [entry["line"] for entry in result["loops"]] == [9]
    reasons = result["unmodelled"]
    assert [(e["procedure"], e["line"]) for e in reasons] == [("odd", 3), ("odd", 5), ("odd", 7)]
    assert all("constant trip counts" in e["reason"] for e in reasons)
    # the same reasons are notes (the Notes sheet) too
    assert sum("is not modelled" in n["message"] for n in result["notes"]) == 3


def test_nothing_to_model_lists_every_reason_with_v(tmp_path, capsys):
    path = source(tmp_path, UNMODELLED, "odd.c")
    assert main([path, "--json", "-"]) == 2
    error = capsys.readouterr().err
    assert "odd.c:3: nothing to model" in error and "(and 2 more nests: -v lists them)" in error
    assert main([path, "--json", "-", "-v"]) == 2
    error = capsys.readouterr().err
    for line in (3, 5, 7):
        assert f"the nest at line {line} is not modelled: constant trip counts" in error


# ------------------------------------------------------------- the workbook stays live

LIVE = TILED_F + """\
subroutine ax(u, w)
  include 'SIZE'
  parameter (lt = lxd*nel)
  real(8) u(lt), w(lt)
  do i = 1, lt
     w(i) = 2.0d0*u(i)
  enddo
end subroutine
"""


def test_tiles_and_constant_formulas_recalculate_in_the_workbook(tmp_path, capsys):
    from libreoffice import recalculate_edited

    path = source(tmp_path, LIVE, "live.f90")
    book = tmp_path / "live.xlsx"
    assert main([path, "-q", "-o", str(book)]) == 0
    edits = {"n": 600, "ts": 40, "lxd": 10, "nel": 700}
    values = recalculate_edited(book, edits, tmp_path / "edit")

    def total(name: str) -> float:
        sheet, cell = next(iter(values.defined_names[name].destinations))
        return values[sheet][cell.replace("$", "")].value

    sets = [item for name, value in edits.items() for item in ("--set", f"{name}={value}")]
    want = run(capsys, path, *sets)
    # by hand: the tiled nest 600 x 600 points of 2 flops and 24 B; ax lt = 10*700 = 7000
    # points of 1 flop and 24 B
    assert want["totals"]["gflops"] == pytest.approx((600 * 600 * 2 + 7000) / 1e9)
    assert loop(want, 4)["block_x"] == 40
    for name, key in (("Total_Traffic_GB", "traffic_gb"), ("Total_GFlops", "gflops"),
                      ("Total_Time_s", "time_s")):
        assert total(name) == pytest.approx(want["totals"][key], rel=1e-9), name


# ------------------------------------------------------------- 9. element types

ELEMENTS_C = """\
typedef float real_t;
void k(int n, real_t *a, const float *b, const int *idx, const double *x, double *y,
       long *l, double _Complex *z)
{
  for (int i = 0; i < n; i++)
    a[i] = 2.0f*b[i];
  for (int i = 0; i < n; i++)
    l[i] = l[i] + 1;
  for (int i = 0; i < n; i++)
    z[i] = 2.0*z[i];
  for (int i = 0; i < n; i++)
    y[i] = y[i] + x[idx[i]];
}
"""

ELEMENTS_F = """\
module kinds
#ifdef _MG_REAL8
  integer, parameter :: rk = 8
#else
  integer, parameter :: rk = 4
#endif
  integer, parameter :: dp = selected_real_kind(15)
end module
subroutine k(n, a, b, c, d, e, f, z, r)
  use kinds
  integer :: n, i
  real :: a(n)
  real(8) :: b(n)
  real(dp) :: c(n)
  double precision :: d(n)
  integer :: e(n)
  integer(8) :: f(n)
  complex(8) :: z(n)
  real(rk) :: r(n)
  do i = 1, n
    a(i) = 2.0*a(i)
  end do
  do i = 1, n
    b(i) = c(i) + d(i)
  end do
  do i = 1, n
    e(i) = e(i) + 1
    f(i) = f(i) + 1
  end do
  do i = 1, n
    z(i) = 2.0d0*z(i)
  end do
  do i = 1, n
    r(i) = 2.0*r(i)
  end do
end subroutine
"""


def test_c_element_sizes_come_from_declared_types(tmp_path, capsys):
    result = run(capsys, source(tmp_path, ELEMENTS_C, "elements.c"), "--set", "n=1000")
    # real_t (a typedef of float) and float: b read 4 B + a written 4 + 4 (write-allocate)
    assert bytes_per_iteration(loop(result, 5)) == pytest.approx(12)
    # long: read and written, 8 + 8
    assert bytes_per_iteration(loop(result, 7)) == pytest.approx(16)
    # double _Complex: 16 B read and written: 32
    assert bytes_per_iteration(loop(result, 9)) == pytest.approx(32)
    # the int index stream idx is 4 B an element (was 8: twice the index traffic)
    gather = loop(result, 11)
    unit = run(capsys, source(tmp_path, ELEMENTS_C.replace("const int *idx", "const long *idx"),
                              "long_index.c"), "--set", "n=1000")
    assert (loop(unit, 11)["traffic_gb"] - gather["traffic_gb"]) * 1e9 == pytest.approx(
        1000 * (8 - 4))


@pytest.mark.parametrize("defines, r_bytes", [((), 8), (("-D", "_MG_REAL8"), 16)])
def test_fortran_element_sizes_come_from_declared_kinds(tmp_path, capsys, defines, r_bytes):
    result = run(capsys, source(tmp_path, ELEMENTS_F, "elements.F90"), *defines)
    per = {line: bytes_per_iteration(loop(result, line)) for line in (20, 23, 26, 30, 33)}
    # real (4 B) read and written: 8; real(8), real(dp) with dp = selected_real_kind(15),
    # double precision: 8 + 8 read, 16 written: 32; integer 4 + 4 and integer(8) 8 + 8: 24;
    # complex(8) 16 + 16: 32; real(rk): rk = 4 (8 B in all) unless -D _MG_REAL8 (16 B)
    assert per == pytest.approx({20: 8, 23: 32, 26: 24, 30: 32, 33: r_bytes})


def test_arrays_sheet_shows_element_bytes_of_wordbytes(tmp_path):
    import openpyxl

    book = tmp_path / "elements.xlsx"
    assert main([source(tmp_path, ELEMENTS_C, "elements.c"), "-q", "-o", str(book)]) == 0
    sheet = openpyxl.load_workbook(book)["Arrays"]
    header = next(row for row in sheet.iter_rows(values_only=True) if "Element (B)" in row)
    col = header.index("Element (B)")
    key = header.index("Array.component")
    cells = {row[key].value: row[col].value for row in sheet.iter_rows()
             if row[key].value in ("a", "b", "l", "z", "idx")}
    # each array's column refers to its element size parameter...
    assert cells == {name: f"=Bytes_{name}" for name in ("a", "b", "l", "z", "idx")}
    # ...whose input cell holds a formula of WordBytes: the float and int elements half a
    # word, the complex two words
    parameters = {row[0]: row[1] for row in openpyxl.load_workbook(book)["Parameters"]
                  .iter_rows(values_only=True) if row and str(row[0]).startswith("Bytes_")}
    assert parameters["Bytes_a"] == "=0.5*WordBytes" and parameters["Bytes_idx"] == \
        "=0.5*WordBytes"
    assert parameters["Bytes_l"] == "=WordBytes" and parameters["Bytes_z"] == "=2*WordBytes"


def test_a_min_over_another_size_is_no_tile(tmp_path):
    from sat.frontend import read_sources

    text = TILED_F.replace("min(n, jt+ts-1)", "min(m, jt+ts-1)").replace(
        "integer :: n, ts", "integer :: m, n, ts")
    tile = read_sources([source(tmp_path, text, "not_a_tile.f90")]).procedures[0].loops[0]
    element = tile.loops[0].loops[0]
    # j runs to min(m, jt+ts-1), not to the tile loop's n: the pair is left as written
    assert (tile.kind, element.tile, element.upper) == ("do", "", "min(m,jt+ts-1)")
