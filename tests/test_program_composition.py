"""How a program is composed: kernels called one after another in a time loop, a call beside a
sibling nest, nests inside if/else arms of a time loop (sat.model.nests, sat.model.conditions).

Every number is worked out by hand: bytes per element x elements x passes for the traffic
(a read costs 8 B, a write 16 B: the line is read for ownership and written back; an array
read and written 16 B), flops per element x elements x passes for the Gflop.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sat.cli import main
from sat.ir import Branch, Loop
from sat.model.conditions import arm_range, condition_bounds


def run(tmp_path: Path, capsys, sources: dict[str, str], *options: str) -> dict:
    """satreport's JSON for ``sources`` (file name -> text) with ``options``."""
    paths = []
    for name, text in sources.items():
        (tmp_path / name).write_text(text)
        paths.append(str(tmp_path / name))
    out = tmp_path / "out.json"
    status = main([*paths, "-q", "--json", str(out), *options])
    assert status == 0, capsys.readouterr().err
    return json.loads(out.read_text())


def rows_of(data: dict) -> list[tuple]:
    """(line, sweeps, X, Y, Gflop, GB) of each Loops row."""
    return [(r["line"], r["sweeps"], r["iter_x"], r["iter_y"], r["gflops"], r["traffic_gb"])
            for r in data["loops"]]


def approx_rows(rows: list[tuple]) -> list[tuple]:
    return [(*row[:4], pytest.approx(row[4], rel=1e-9), pytest.approx(row[5], rel=1e-9))
            for row in rows]


# ---------------------------------------------------------------- kernels one after another

STREAM_F = """module kern
  integer, parameter :: n = 33554432
  real(8) :: a(n), b(n), c(n)
contains
  subroutine copy()
    integer :: i
    do i = 1, n
      c(i) = a(i)
    end do
  end subroutine
  subroutine mul(s)
    real(8) :: s
    integer :: i
    do i = 1, n
      b(i) = s * c(i)
    end do
  end subroutine
  subroutine add()
    integer :: i
    do i = 1, n
      c(i) = a(i) + b(i)
    end do
  end subroutine
end module
program main
  use kern
  integer :: k
  do k = 1, 100
    call copy()
    call mul(0.4d0)
    call add()
  end do
end program
"""

N = 33554432  # 256 MiB per array of doubles

TRIAD = """  subroutine triad(s)
    real(8) :: s
    integer :: i
    do i = 1, n
      a(i) = b(i) + s * c(i)
    end do
  end subroutine
"""


def test_kernels_called_in_a_time_loop_are_a_row_each(tmp_path, capsys):
    data = run(tmp_path, capsys, {"stream.f90": STREAM_F})
    # nothing is reused between kernels: each moves its arrays once per pass, 100 passes
    # copy c = a: 8 + 16 = 24 B; mul b = s*c: 24 B, 1 flop; add c = a + b: 8 + 8 + 16 = 32 B,
    # 1 flop
    assert rows_of(data) == approx_rows([
        (7, 100, N, 1, 0, 24 * N * 100 / 1e9),              # 80.5306368 GB
        (14, 100, N, 1, N * 100 / 1e9, 24 * N * 100 / 1e9),  # 3.3554432 Gflop
        (20, 100, N, 1, N * 100 / 1e9, 32 * N * 100 / 1e9),  # 107.3741824 GB
    ])
    # 80 B per element: 268.435456 GB (fused, the default before, gave 134 GB); 6.7108864 Gflop
    assert data["totals"]["traffic_gb"] == pytest.approx(80 * N * 100 / 1e9, rel=1e-9)
    assert data["totals"]["gflops"] == pytest.approx(2 * N * 100 / 1e9, rel=1e-9)
    assert [[c["callee"] for c in r["calls"]] for r in data["loops"]] == \
        [["copy"], ["mul"], ["add"]]


def test_four_kernels_one_called_twice(tmp_path, capsys):
    """Variant: a fourth kernel, and copy called twice per pass (one arm run twice)."""
    text = STREAM_F.replace("end module", TRIAD + "end module").replace("""  do k = 1, 100
    call copy()
    call mul(0.4d0)
    call add()""", """  do k = 1, 10
    call copy()
    call mul(0.4d0)
    call add()
    call triad(0.4d0)
    call copy()""")
    data = run(tmp_path, capsys, {"stream.f90": text})
    # copy twice per pass: 20 sweeps of 24 B; mul, add 10 sweeps; triad a = b + s*c:
    # 8 + 8 + 16 = 32 B, 2 flops
    assert rows_of(data) == approx_rows([
        (7, 20, N, 1, 0, 24 * N * 20 / 1e9),                  # 16.10612736 GB
        (14, 10, N, 1, N * 10 / 1e9, 24 * N * 10 / 1e9),       # 8.05306368 GB
        (20, 10, N, 1, N * 10 / 1e9, 32 * N * 10 / 1e9),       # 10.73741824 GB
        (27, 10, N, 1, 2 * N * 10 / 1e9, 32 * N * 10 / 1e9),   # 0.67108864 Gflop
    ])


STREAM_C = """#define N 33554432
double a[N], b[N], c[N];
void copy(void) { for (int i = 0; i < N; i++) c[i] = a[i]; }
void mul(double s) { for (int i = 0; i < N; i++) b[i] = s * c[i]; }
void add(void) { for (int i = 0; i < N; i++) c[i] = a[i] + b[i]; }
int main(void) {
  for (int k = 0; k < 100; k++) {
    copy();
    mul(0.4);
    add();
  }
  return 0;
}
"""


def test_kernels_called_in_a_time_loop_in_c(tmp_path, capsys):
    """Variant: the same program in C gives the same three rows."""
    data = run(tmp_path, capsys, {"stream.c": STREAM_C})
    assert rows_of(data) == approx_rows([
        (3, 100, N, 1, 0, 24 * N * 100 / 1e9),
        (4, 100, N, 1, N * 100 / 1e9, 24 * N * 100 / 1e9),
        (5, 100, N, 1, N * 100 / 1e9, 32 * N * 100 / 1e9),
    ])


# ---------------------------------------------------------------- a call beside a sibling nest

CALLER = """program main
  integer, parameter :: r = 2
  integer :: n, iterations, ts, k, i, j
  logical :: tiling
  real(8), allocatable :: a(:,:), b(:,:), w(:)
  read(*,*) n, iterations, ts
  allocate(a(n,n), b(n,n), w(-r:r))
  tiling = (ts > 0 .and. ts < n)
  do k = 0, iterations
    call apply(tiling, ts, r, n, w, a, b)
    do j = 1, n
      do i = 1, n
        a(i,j) = a(i,j) + 1.d0
      end do
    end do
  end do
end program
"""

TILE = """subroutine apply(tiling, ts, r, n, w, a, b)
  logical, intent(in) :: tiling
  integer, intent(in) :: ts, r, n
  real(8), intent(in) :: w(-r:r), a(n,n)
  real(8), intent(inout) :: b(n,n)
  integer :: i, j, jj, it, jt
  if (.not. tiling) then
    do j = r, n-r-1
      do i = r, n-r-1
        do jj = -r, r
          b(i+1,j+1) = b(i+1,j+1) + w(jj)*a(i+1,j+jj+1)
        end do
      end do
    end do
  else
    do jt = r, n-r-1, ts
      do it = r, n-r-1, ts
        do j = jt, min(n-r-1, jt+ts-1)
          do i = it, min(n-r-1, it+ts-1)
            do jj = -r, r
              b(i+1,j+1) = b(i+1,j+1) + w(jj)*a(i+1,j+jj+1)
            end do
          end do
        end do
      end do
    end do
  end if
end subroutine
"""

INNER = 7996 ** 2  # the stencil's points: r .. n-r-1 is 8000 - 4 = 7996 per axis at n = 8000


def test_a_call_beside_a_sibling_nest(tmp_path, capsys):
    data = run(tmp_path, capsys, {"caller.f90": CALLER, "tile.f90": TILE},
               "--set", "n=8000", "--set", "iterations=10", "--set", "ts=32")
    rows = data["loops"]
    assert [(r["line"], r["sweeps"]) for r in rows] == [(8, 11), (16, 11), (11, 11)]
    # the refresh is its own nest over 8000 x 8000 (the callee's loops are not multiplied
    # into it): a read and written, 16 B x 64e6 x 11 passes = 11.264 GB, 1 add: 0.704 Gflop
    refresh = rows[2]
    assert (refresh["iter_x"], refresh["iter_y"], refresh["iter_z"]) == (8000, 8000, 1)
    assert refresh["traffic_gb"] == pytest.approx(16 * 8000**2 * 11 / 1e9, rel=1e-12)
    assert refresh["gflops"] == pytest.approx(8000**2 * 11 / 1e9, rel=1e-12)
    # each arm of the if (1/2, no --conds): 7996^2 points x 5 (jj) x 2 flops x 11 / 2
    # = 3.51648088 Gflop; in all 7.73696176 Gflop
    for arm in rows[:2]:
        assert arm["gflops"] == pytest.approx(INNER * 10 * 11 / 2 / 1e9, rel=1e-12)
    assert data["totals"]["gflops"] == pytest.approx((INNER * 10 + 8000**2) * 11 / 1e9,
                                                     rel=1e-12)
    # ts, read at run time, is a parameter: the tiled arm's block along X is the tile
    assert rows[1]["block_x"] == 32
    ts = next(p for p in data["parameters"] if p["name"] == "ts")
    assert (ts["value"], ts["source"]) == (32, "--set")
    assert any("'.not. tiling'" in n["message"] and "1/2" in n["message"]
               for n in data["notes"])
    # jj (-r..r, r = 2) is the stencil's reach along j, not a dimension of 5: both arms sweep
    # 7996 x 7996.  The untiled arm on the default 64 KiB cache: a pencil of the window is
    # 5 rows of a + b, 375 KiB, which does not fit, so every point reads its 5 elements of a
    # (40 B) and updates b (16 B): 56 x 63,936,016 x 11 / 2 = 19.692292928 GB.  The tiled arm
    # (32 x 32 tiles, 62437.515625 of them a pass): a tile reads a over 32 x (32 + 4) points
    # (8 B) and updates b over 32 x 32 (16 B), 9216 + 16384 = 25600 B; x 62437.515625 x 11 / 2
    # = 8.7912022 GB.  (Before, jj was an axis of extent 5: 42.2 and 42.6 GB.)
    assert (rows[0]["iter_x"], rows[0]["iter_y"], rows[0]["iter_z"]) == (7996, 7996, 1)
    assert rows[0]["traffic_gb"] == pytest.approx(56 * INNER * 11 / 2 / 1e9, rel=1e-12)
    assert rows[1]["traffic_gb"] == pytest.approx(62437.515625 * 25600 * 11 / 2 / 1e9,
                                                  rel=1e-12)


def test_a_call_beside_a_sibling_nest_with_a_cache_for_the_reach(tmp_path, capsys):
    """The same program on a 4 MiB cache, which holds the untiled arm's 5-row window: the
    hand count, 11 passes of a stencil reading a and updating b and a refresh updating a."""
    data = run(tmp_path, capsys, {"caller.f90": CALLER, "tile.f90": TILE},
               "--set", "n=8000", "--set", "iterations=10", "--set", "ts=32",
               "--set", "CacheKB=4096")
    # untiled arm: a read once over its rows 1..8000 (offsets -1..+3 of j = 2..7997) in
    # whole lines (7996 elements along X are 8000 in lines of 8), 8000 x 8000 x 8 B =
    # 512,000,000 B; b updated over 7996 rows of 8000, 16 B: 1,023,488,000 B; a pass
    # 1,535,488,000 B x 11 / 2 = 8.445184 GB.  Tiled arm: 8.7912022 GB (as above, the tiles
    # already fit 64 KiB).  Refresh: 16 x 8000^2 x 11 = 11.264 GB.
    # In all 8.445184 + 8.7912022 + 11.264 = 28.5003862 GB (11 x 8000^2 x 40 B = 28.16 GB
    # by the rough count).
    rows = data["loops"]
    assert [r["traffic_gb"] for r in rows] == [
        pytest.approx(8.445184, rel=1e-12), pytest.approx(8.7912022, rel=1e-12),
        pytest.approx(11.264, rel=1e-12)]
    assert data["totals"]["traffic_gb"] == pytest.approx(28.5003862, rel=1e-12)


def test_a_call_beside_a_sibling_nest_without_the_reach_loop(tmp_path, capsys):
    """Variant: the stencil's reach reduced to one point (b += w(0)*a), traffic by hand."""
    tile = TILE.replace("w(jj)*a(i+1,j+jj+1)", "w(0)*a(i+1,j+1)").replace(
        "do jj = -r, r", "do jj = 1, 1")
    data = run(tmp_path, capsys, {"caller.f90": CALLER, "tile.f90": tile},
               "--set", "n=8000", "--set", "iterations=10")
    # each arm: a read 8 B + b updated 16 B over 7996^2 points, 11 passes, probability 1/2:
    # 24 x 63,936,016 x 11 / 2 = 8.439554112 GB; the refresh 11.264 GB: 28.143108224 GB
    # (11 x 8000^2 x 40 B = 28.16 GB by the rough count); before, 1.19e10 GB
    assert rows_of(data) == approx_rows([
        (8, 11, 7996, 7996, INNER * 2 * 11 / 2 / 1e9, 24 * INNER * 11 / 2 / 1e9),
        (16, 11, 7996, 7996, INNER * 2 * 11 / 2 / 1e9, 24 * INNER * 11 / 2 / 1e9),
        (11, 11, 8000, 8000, 8000**2 * 11 / 1e9, 16 * 8000**2 * 11 / 1e9),
    ])
    assert data["totals"]["traffic_gb"] == pytest.approx(28.143108224, rel=1e-12)
    # the tile size nobody gave is a parameter with a documented default
    assert next(p for p in data["parameters"] if p["name"] == "ts")["defaulted"]


SIBLING_C = """#define N 4000
double a[N][N], b[N][N];
void smooth(void) {
  for (int j = 1; j < N - 1; j++)
    for (int i = 1; i < N - 1; i++)
      b[j][i] = 0.25 * (a[j-1][i] + a[j+1][i] + a[j][i-1] + a[j][i+1]);
}
int main(void) {
  for (int k = 0; k < 20; k++) {
    smooth();
    for (int j = 0; j < N; j++)
      for (int i = 0; i < N; i++)
        a[j][i] = b[j][i];
  }
  return 0;
}
"""


def test_a_call_beside_a_sibling_nest_in_c(tmp_path, capsys):
    """Variant in C: a 5-point smoother called beside a copy, 20 passes, every reuse in cache
    (CacheKB 4096)."""
    data = run(tmp_path, capsys, {"sibling.c": SIBLING_C}, "--set", "CacheKB=4096")
    # smooth: 3998^2 points x 4 flops x 20 = 1.27872032 Gflop; a read over rows 0..3999 in
    # whole lines, 4000 x 4000 x 8 B = 128,000,000 B; b written over 3998 rows of 3998
    # elements, 500 lines = 4000 elements each: 3998 x 4000 x 16 B = 255,872,000 B;
    # x 20 = 7.67744 GB.  The copy: 4000^2 x (8 + 16) B x 20 = 7.68 GB, no flops.
    assert rows_of(data) == approx_rows([
        (4, 20, 3998, 3998, 3998**2 * 4 * 20 / 1e9, (128_000_000 + 255_872_000) * 20 / 1e9),
        (11, 20, 4000, 4000, 0, 4000**2 * 24 * 20 / 1e9),
    ])


def test_a_sibling_nest_before_a_call_with_two_nests(tmp_path, capsys):
    """Variant: the sibling comes first and the callee has two nests of its own: three rows."""
    text = """module m
  integer, parameter :: n = 1000
  real(8) :: u(n,n), v(n,n)
contains
  subroutine two()
    integer :: i, j
    do j = 1, n
      do i = 1, n
        v(i,j) = 2.d0 * u(i,j)
      end do
    end do
    do j = 1, n
      do i = 1, n
        u(i,j) = u(i,j) + v(i,j)
      end do
    end do
  end subroutine
end module
subroutine run(steps)
  use m
  integer :: steps, s, i, j
  do s = 1, steps
    do j = 1, n
      do i = 1, n
        u(i,j) = 0.5d0 * u(i,j)
      end do
    end do
    call two()
  end do
end subroutine
"""
    data = run(tmp_path, capsys, {"two.f90": text}, "--set", "steps=5")
    # 1e6 points, 5 passes: u = 0.5*u 16 B 1 flop; v = 2*u 8 + 16 B 1 flop;
    # u = u + v 16 + 8 B 1 flop
    assert rows_of(data) == approx_rows([
        (23, 5, 1000, 1000, 5e6 / 1e9, 16 * 5e6 / 1e9),
        (7, 5, 1000, 1000, 5e6 / 1e9, 24 * 5e6 / 1e9),
        (12, 5, 1000, 1000, 5e6 / 1e9, 24 * 5e6 / 1e9),
    ])


# ---------------------------------------------------------------- nests inside an if

CYCLE = """subroutine cycle(n, itmax, u, p, uold)
  integer :: n, itmax, ncycle, i, j
  real(8) :: u(n,n), p(n,n), uold(n,n)
  do ncycle = 1, itmax
    do j = 1, n
      do i = 1, n
        u(i,j) = u(i,j) + 0.5d0*p(i,j)
      end do
    end do
    if (ncycle > 1) then
      do j = 1, n
        do i = 1, n
          uold(i,j) = u(i,j) + 0.1d0*(uold(i,j) - 2.d0*u(i,j))
        end do
      end do
    else
      do j = 1, n
        do i = 1, n
          uold(i,j) = u(i,j)
        end do
      end do
    end if
  end do
end subroutine
"""


def test_nests_in_an_if_on_the_time_loop_variable(tmp_path, capsys):
    data = run(tmp_path, capsys, {"cycle.f90": CYCLE}, "--set", "n=1000", "--set", "itmax=100")
    # u += 0.5 p: every pass, 2 flops, u 16 + p 8 = 24 B; ncycle > 1: passes 2..100 (99),
    # 4 flops, uold 16 + u 8 = 24 B; else: pass 1 alone, no flops, u 8 + uold written 16 B
    assert rows_of(data) == approx_rows([
        (5, 100, 1000, 1000, 2 * 1e6 * 100 / 1e9, 24 * 1e6 * 100 / 1e9),   # 0.2, 2.4
        (11, 99, 1000, 1000, 4 * 1e6 * 99 / 1e9, 24 * 1e6 * 99 / 1e9),     # 0.396, 2.376
        (17, 1, 1000, 1000, 0, 24 * 1e6 / 1e9),                            # 0, 0.024
    ])
    # 0.596 Gflop and 4.8 GB (one row of 0.4 Gflop and 4 GB before)
    assert data["totals"]["gflops"] == pytest.approx(0.596, rel=1e-12)
    assert data["totals"]["traffic_gb"] == pytest.approx(4.8, rel=1e-12)
    assert not any("ncycle > 1" in n["message"] for n in data["notes"])  # no probability


def test_nests_in_an_if_on_a_parameter_take_conds_or_half(tmp_path, capsys):
    """Variant: a condition on something else than the time loop's variable takes the
    conditions file's probability, else 1/2 with a note."""
    text = CYCLE.replace("if (ncycle > 1) then", "if (mode > 0) then").replace(
        "integer :: n, itmax,", "integer :: mode, n, itmax,")
    options = ("--set", "n=1000", "--set", "itmax=100")
    data = run(tmp_path, capsys, {"cycle.f90": text}, *options)
    # each arm 1/2 of 100 passes: 4 x 1e6 x 50 = 0.2 Gflop, 24 x 1e6 x 50 = 1.2 GB
    assert [(r["gflops"], r["traffic_gb"]) for r in data["loops"][1:]] == [
        (pytest.approx(0.2), pytest.approx(1.2)), (0, pytest.approx(1.2))]
    assert any("'mode > 0'" in n["message"] and "1/2" in n["message"] for n in data["notes"])
    conds = tmp_path / "conds.xml"
    conds.write_text('<conds><prop key="mode > 0" val="0.25"/>'
                     '<prop key="else" val="0.75"/></conds>')
    data = run(tmp_path, capsys, {"cycle.f90": text}, *options, "--conds", str(conds))
    # 25 and 75 passes' worth: 4 x 1e6 x 25 = 0.1 Gflop, 24 x 1e6 x 25 = 0.6 GB; 1.8 GB
    assert [(r["gflops"], r["traffic_gb"]) for r in data["loops"][1:]] == [
        (pytest.approx(0.1), pytest.approx(0.6)), (0, pytest.approx(1.8))]


CYCLE_C = """void cycle(int n, int tmax, double u[n][n], double p[n][n], double uold[n][n]) {
  for (int t = 0; t < tmax; t++) {
    for (int j = 0; j < n; j++)
      for (int i = 0; i < n; i++)
        u[j][i] = u[j][i] + 0.5 * p[j][i];
    if (t < 10) {
      for (int j = 0; j < n; j++)
        for (int i = 0; i < n; i++)
          uold[j][i] = u[j][i];
    } else {
      for (int j = 0; j < n; j++)
        for (int i = 0; i < n; i++)
          uold[j][i] = u[j][i] + 0.1 * (uold[j][i] - 2.0 * u[j][i]);
    }
  }
}
"""


def test_nests_in_an_if_on_the_time_loop_variable_in_c(tmp_path, capsys):
    """Variant in C, the first passes in the if arm: t < 10 runs on t = 0..9, else 10..99."""
    data = run(tmp_path, capsys, {"cycle.c": CYCLE_C}, "--set", "n=1000", "--set", "tmax=100")
    assert rows_of(data) == approx_rows([
        (3, 100, 1000, 1000, 2 * 1e6 * 100 / 1e9, 24 * 1e6 * 100 / 1e9),
        (7, 10, 1000, 1000, 0, 24 * 1e6 * 10 / 1e9),                      # 0.24 GB
        (11, 90, 1000, 1000, 4 * 1e6 * 90 / 1e9, 24 * 1e6 * 90 / 1e9),   # 0.36, 2.16
    ])


def test_the_passes_of_an_arm_follow_the_bounds_live(tmp_path, capsys):
    """At itmax = 10 the ncycle > 1 arm runs 9 passes (the trip count is a formula)."""
    data = run(tmp_path, capsys, {"cycle.f90": CYCLE}, "--set", "n=1000", "--set", "itmax=10")
    assert [r["sweeps"] for r in data["loops"]] == [10, 9, 1]


# ---------------------------------------------------------------- conditions on the variable

def test_condition_bounds():
    assert condition_bounds("ncycle > 1", "ncycle") == [("lo", "(1) + 1")]
    assert condition_bounds("(1 .lt. ncycle)", "ncycle") == [("lo", "(1) + 1")]
    assert condition_bounds("t <= n/2", "t") == [("hi", "(n/2)")]
    assert condition_bounds("k == 0", "k") == [("lo", "(0)"), ("hi", "(0)")]
    # not a comparison of the variable alone: a probability, as before
    for text in ("mod(k, 10) == 0", "k > 1 .and. flag", "m > 1", "k > k0 + k", "flag"):
        assert condition_bounds(text, "k") is None, text


def test_an_else_excludes_the_earlier_arms_when_each_is_one_sided():
    loop = Loop(loopvar="k", lower="1", upper="nt")
    first = Branch(condition="k < 5", arm=0, arms=3)
    second = Branch(condition="k > 20", arm=1, arms=3)
    last = Branch(condition="else", arm=2, arms=3)
    chain = [first, second, last]
    assert arm_range(first, chain, loop) == ("1", "min(nt, (5) - 1)")
    # k > 20 once k < 5 failed: k >= 5 and k >= 21
    assert arm_range(second, chain, loop) == ("max(1, (5) - 1 + 1, (20) + 1)", "nt")
    # else: k >= 5 and k <= 20
    assert arm_range(last, chain, loop) == ("max(1, (5) - 1 + 1)", "min(nt, (20) + 1 - 1)")
    two_sided = [Branch(condition="k == 3", arm=0, arms=2), Branch(condition="else", arm=1,
                                                                   arms=2)]
    assert arm_range(two_sided[1], two_sided, loop) is None  # k /= 3 is no range
    # but k /= 1 (the first pass) and k /= nt (the last) are
    first_pass = [Branch(condition="k == 1", arm=0, arms=2), Branch(condition="else", arm=1,
                                                                    arms=2)]
    assert arm_range(first_pass[0], first_pass, loop) == ("max(1, (1))", "min(nt, (1))")
    assert arm_range(first_pass[1], first_pass, loop) == ("max(1, (1) + 1)", "nt")
    last_pass = [Branch(condition="k .eq. nt", arm=0, arms=2), Branch(condition="else", arm=1,
                                                                      arms=2)]
    assert arm_range(last_pass[1], last_pass, loop) == ("1", "min(nt, (nt) - 1)")
    assert arm_range(first, chain, Loop(loopvar="k", lower="1", upper="nt", stride="2")) \
        is None


@pytest.mark.libreoffice
def test_the_passes_of_an_arm_recalculate_in_the_workbook(tmp_path, capsys):
    """itmax edited to 10 on the Parameters sheet: LibreOffice's recalculation gives the
    sweeps and traffic of a run with --set itmax=10 (10, 9 and 1 passes; 24 B x 1e6 x 20
    passes = 0.48 GB)."""
    from libreoffice import recalculate_edited, value_at

    source = tmp_path / "cycle.f90"
    source.write_text(CYCLE)
    book = tmp_path / "cycle.xlsx"
    out = tmp_path / "cycle.json"
    assert main([str(source), "-q", "-o", str(book), "--json", str(out), "--set", "n=1000",
                 "--set", "itmax=100"]) == 0, capsys.readouterr().err
    cells = json.loads(out.read_text())
    edited = recalculate_edited(book, {"itmax": 10}, tmp_path / "edit")
    sweeps = [value_at(edited, row["cells"]["sweeps"]) for row in cells["loops"]]
    assert sweeps == [10, 9, 1]
    total = value_at(edited, cells["totals"]["cells"]["traffic_gb"])
    assert total == pytest.approx(24 * 1e6 * 20 / 1e9, rel=1e-12)


def test_kernels_called_in_a_do_while_are_a_row_each(tmp_path, capsys):
    """Variant: a DO WHILE time loop (no variable; one pass counted, warned) repeats its
    kernels like a counted one: a row each, not one sweep over all of them."""
    text = STREAM_F.replace("""program main
  use kern
  integer :: k
  do k = 1, 100
    call copy()
    call mul(0.4d0)
    call add()
  end do""", """program main
  use kern
  real(8) :: time
  time = 0
  do while (time < 10)
    call copy()
    call add()
    time = time + 1
  end do""")
    data = run(tmp_path, capsys, {"stream.f90": text})
    # one pass: copy 24 B, add 32 B per element; add 1 flop per element (mul, called
    # nowhere, is a row of its own: 24 B, 1 flop).  The loop's own 2 flops per pass (the
    # test time < 10 and time + 1, each counted as an add) count with its first kernel.
    assert rows_of(data) == approx_rows([
        (14, 1, N, 1, N / 1e9, 24 * N / 1e9),
        (7, 1, N, 1, 2 / 1e9, 24 * N / 1e9),     # 0.805306368 GB
        (20, 1, N, 1, N / 1e9, 32 * N / 1e9),    # 1.073741824 GB
    ])


def test_one_kernel_called_twice_with_other_arrays(tmp_path, capsys):
    """Variant: a procedure of two loops called twice per pass with other arguments: four
    rows (two per call), each listing the call."""
    text = """module m
  integer, parameter :: n = 1000
  real(8) :: u(n), v(n), w(n)
contains
  subroutine step(x, y)
    real(8) :: x(n), y(n)
    integer :: i
    do i = 1, n
      y(i) = 2.d0 * x(i)
    end do
    do i = 1, n
      x(i) = x(i) + y(i)
    end do
  end subroutine
end module
subroutine run(nt)
  use m
  integer :: nt, t
  do t = 1, nt
    call step(u, v)
    call step(v, w)
  end do
end subroutine
"""
    data = run(tmp_path, capsys, {"step.f90": text}, "--set", "nt=10")
    # each loop: 1 flop, 8 B read + 16 B written (or 16 + 8) per element, 1000 x 10 passes:
    # 1e-5 Gflop, 24 x 1e4 = 2.4e-4 GB
    assert rows_of(data) == approx_rows([(8, 10, 1000, 1, 1e-5, 2.4e-4),
                                         (11, 10, 1000, 1, 1e-5, 2.4e-4)] * 2)
    assert [r["calls_summary"] for r in data["loops"]] == ["step ×1"] * 4


# ------------------------------------------------- arms and level loops outside time loops

ARMS_IN_A_GRID_LOOP = """subroutine sweep(a, b, n, m, mode)
  integer :: n, m, mode, i, j
  real(8) :: a(n, m), b(n, m)
  do j = 1, m
    if (mode > 0) then
      do i = 1, n
        a(i,j) = 2.d0 * b(i,j)
      end do
    else
      do i = 1, n
        b(i,j) = a(i,j) + 1.d0
      end do
    end if
  end do
end subroutine
"""


def test_nests_in_the_arms_of_a_grid_loop_are_a_row_each(tmp_path, capsys):
    """j subscripts a and b (a grid loop, no time loop), yet each arm's loop is a nest of its
    own weighted by the arm (1/2 each, `mode > 0` unknown), instead of one nest sweeping
    both arms' loops. n = 1000, m = 100: 1e5 points an arm.
    Arm 1: b read 8 B + a written 16 B = 24 B x 1e5 x 1/2 = 1.2e6 B = 0.0012 GB; 1 flop x
    1e5 x 1/2 = 5e-5 Gflop. Else: a read 8 + b written 16: the same."""
    data = run(tmp_path, capsys, {"sweep.f90": ARMS_IN_A_GRID_LOOP},
               "--set", "n=1000", "--set", "m=100")
    assert rows_of(data) == approx_rows([(6, 1, 1000, 100, 5e-5, 0.0012),
                                         (10, 1, 1000, 100, 5e-5, 0.0012)])
    assert data["bounds_violations"] == []


LEVEL_LOOP = """subroutine levels(u, v, n, nl)
  integer :: n, nl, k, i
  real(8) :: u(n*(nl+1)), v(n)
  do k = 1, nl
    do i = 1, n
      u(i + n*k) = 0.d0
    end do
    do i = 1, n
      v(i) = v(i) + 2.d0 * u(i + n*k)
    end do
  end do
end subroutine
"""


def test_a_loop_that_only_places_its_siblings_repeats_each(tmp_path, capsys):
    """k only places the references (u(i + n*k), as NPB MG's level loop places u(ir(k))): each
    sibling is a nest repeated by k's 10 trips. n = 1000, nl = 10:
    line 5: u written 16 B x 1000 x 10 = 1.6e5 B = 1.6e-4 GB, no flop;
    line 8: v read and written 16 + u read 8 = 24 B x 1e4 = 2.4e-4 GB; 2 flops x 1e4 = 2e-5
    Gflop. (One nest of both loops moved 3.2e-4 GB.)"""
    data = run(tmp_path, capsys, {"levels.f90": LEVEL_LOOP}, "--set", "n=1000", "--set", "nl=10")
    assert rows_of(data) == approx_rows([(5, 10, 1000, 1, 0, 1.6e-4),
                                         (8, 10, 1000, 1, 2e-5, 2.4e-4)])
    assert data["bounds_violations"] == []


FFT_PLANES = """subroutine planes(x, y, n, nz, ts, m)
  integer :: n, nz, ts, m, k, bl, i, l
  real(8) :: x(n, nz), y(n)
  do k = 1, nz
    do bl = 1, n, ts
      do i = bl, bl + ts - 1
        y(i) = x(i, k)
      end do
      do l = 1, m
        if (l == m) then
          do i = 1, n
            y(i) = 2.d0 * y(i)
          end do
        else
          do i = 1, n
            y(i) = y(i) + 1.d0
          end do
        end if
      end do
    end do
  end do
end subroutine
"""


def test_a_grid_loop_around_a_tile_loop_with_arms_below(tmp_path, capsys):
    """NPB FT's shape: k (a grid loop: x(i, k)) around a tile loop bl (it only bounds i) that
    holds a copy and a pass loop l whose two arms hold loops. n = 64, nz = 8, ts = 16,
    m = 4: bl runs 4 tiles a plane.
    Copy (line 6): k x bl x i = 8 x 4 x 16 = 512 points; x read once, 512 x 8 = 4096 B; y
    (64 doubles, invariant along k) stays in cache across the planes: written once, 64 x 16
    = 1024 B; 5120 B, no flop.
    `l == m` (line 11): on l's last pass only: 8 x 4 x 1 sweeps of 64 = 2048 points, y read
    and written 16 B: 32,768 B, 2048 flops.
    else (line 15): passes 1..3: 8 x 4 x 3 x 64 = 6144 points: 98,304 B, 6144 flops."""
    data = run(tmp_path, capsys, {"planes.f90": FFT_PLANES},
               "--set", "n=64", "--set", "nz=8", "--set", "ts=16", "--set", "m=4")
    got = {r["line"]: (r["iterations"] if "iterations" in r else
                       r["sweeps"] * r["iter_x"] * r["iter_y"] * r["iter_z"],
                       r["gflops"] * 1e9, r["traffic_gb"] * 1e9) for r in data["loops"]}
    assert got == {6: (512, 0, pytest.approx(5_120)),
                   11: (2048, pytest.approx(2048), pytest.approx(32_768)),
                   15: (6144, pytest.approx(6144), pytest.approx(98_304))}
    assert data["bounds_violations"] == []
