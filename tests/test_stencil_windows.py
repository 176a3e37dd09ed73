"""A stencil's reach written as a loop: ``s(i) += w(jj)*a(i+jj)`` inside ``do jj = -2, 2``
reads ``a`` along ``i`` at offsets -2..+2 (sat.model.exasat.windows), in Fortran and C.

Traffic by hand: a read costs 8 B, an array read and written 16 B, X extents are rounded up
to whole cache lines of 8 doubles.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sat.cli import main
from sat.ir import Loop
from sat.model.exasat.windows import constant_range

FORTRAN = """subroutine smooth(n, w, a, s)
  integer, parameter :: r = 2
  integer, intent(in) :: n
  real(8), intent(in) :: w(-r:r), a(n)
  real(8), intent(inout) :: s(n)
  integer :: i, jj
  do i = 3, n-2
    do jj = -r, r
      s(i) = s(i) + w(jj)*a(i+jj)
    end do
  end do
end subroutine
"""

C = """void smooth(int n, const double *w, const double *a, double *s) {
  for (int i = 2; i < n - 2; i++)
    for (int jj = -2; jj <= 2; jj++)
      s[i] += w[jj + 2] * a[i + jj];
}
"""

RUNTIME = FORTRAN.replace("integer, parameter :: r = 2\n", "").replace(
    "integer, intent(in) :: n", "integer, intent(in) :: n, r").replace(
    "subroutine smooth(n,", "subroutine smooth(n, r,")


def run(tmp_path: Path, capsys, name: str, text: str, *options: str) -> dict:
    (tmp_path / name).write_text(text)
    out = tmp_path / "out.json"
    status = main([str(tmp_path / name), "-q", "--json", str(out), *options])
    assert status == 0, capsys.readouterr().err
    return json.loads(out.read_text())


@pytest.mark.parametrize("name,text", [("smooth.f90", FORTRAN), ("smooth.c", C)])
def test_a_reach_loop_is_offsets_of_the_point(tmp_path, capsys, name, text):
    data = run(tmp_path, capsys, name, text, "--set", "n=1000000")
    (row,) = data["loops"]
    # i runs over 3..n-2 (C: 2..n-3): 999,996 points along X, jj is no axis
    assert (row["iter_x"], row["iter_y"], row["iter_z"], row["sweeps"]) == (999996, 1, 1, 1)
    # 5 x (a multiply and an add) a point: 999,996 x 10 = 9,999,960 flops
    assert row["gflops"] == pytest.approx(999996 * 10 / 1e9, rel=1e-12)
    # a read once over its points 1..n (offsets -2..+2 of i), 1,000,000 x 8 B; s updated
    # over 999,996 points, 124,999.5 lines rounded up to 125,000 = 1,000,000 elements x 16 B:
    # 24,000,000 B, 24 B per point (before: 16 B, a taken as a 5 x 999,996 grid read once)
    assert row["traffic_gb"] == pytest.approx(24e6 / 1e9, rel=1e-12)
    assert row["traffic_gb"] * 1e9 / 999996 == pytest.approx(24, rel=1e-5)


def test_a_reach_of_run_time_range_stays_a_dimension(tmp_path, capsys):
    """``do jj = -r, r`` with ``r`` an argument: the window's width is unknown, so the loop
    is taken as a dimension of its own as before, and a note says so."""
    data = run(tmp_path, capsys, "smooth.f90", RUNTIME, "--set", "n=1000000", "--set", "r=2")
    (row,) = data["loops"]
    # jj on X (5 iterations), i on Y, as before windows were recognised: the flops are
    # right (999,996 x 5 x 2), the traffic reads a as a 5 x 999,996 grid
    assert (row["iter_x"], row["iter_y"]) == (5, 999996)
    assert row["gflops"] == pytest.approx(999996 * 10 / 1e9, rel=1e-12)
    assert any("loop jj (line 7)" in n["message"] and "not a constant" in n["message"]
               for n in data["notes"])


def test_constant_range_evaluates_named_constants():
    def loop(lower: str, upper: str, stride: str = "1") -> Loop:
        return Loop(line=1, loopvar="jj", lower=lower, upper=upper, stride=stride)

    assert constant_range(loop("-r", "r"), {"r": 2.0}) == (-2, 2)
    assert constant_range(loop("1 - r", "2*r + 1"), {"r": 3.0}) == (-2, 7)
    assert constant_range(loop("-m", "m"), {"r": 2.0}) is None  # m is no constant
    assert constant_range(loop("-r", "r", "2"), {"r": 2.0}) is None  # a window has stride 1
    assert constant_range(loop("3", "1"), {}) is None  # an empty loop is no window


MODULE_CONSTANTS = """module sizes
  integer, parameter :: hs = 2, sten_size = 4
end module
subroutine interp(n, q, v)
  use sizes
  integer, intent(in) :: n
  real(8), intent(in) :: q(1-hs:n+hs)
  real(8), intent(inout) :: v(n+1)
  integer :: i, s
  do i = 1, n+1
    do s = 1, sten_size
      v(i) = v(i) + q(i-hs-1+s)
    end do
  end do
end subroutine
"""


def test_a_reach_over_module_constants(tmp_path, capsys):
    """miniWeather's form: the window's width and its shift are a module's named constants,
    and the offset is written around them (``i-hs-1+s``: offsets -2 .. +1 of ``i``)."""
    data = run(tmp_path, capsys, "interp.f90", MODULE_CONSTANTS, "--set", "n=999999")
    (row,) = data["loops"]
    # i = 1 .. n+1: 1,000,000 points along X, s is no axis
    assert (row["iter_x"], row["iter_y"], row["iter_z"]) == (1_000_000, 1, 1)
    # 4 adds a point
    assert row["gflops"] == pytest.approx(4e6 / 1e9, rel=1e-12)
    # q read once (8 B) over 1,000,000 + 3 points, v updated (16 B): 24 B a point
    assert row["traffic_gb"] * 1e9 / 1e6 == pytest.approx(24, rel=1e-4)
