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
    result = run(capsys, source(tmp_path, LU, "lu.f90"), "--set", "n=1000")
    (loop,) = result["loops"]
    # by hand: 2 flops x sum_{k=1}^{1000} (1000-k)^2 = 2 x (999 x 1000 x 1999 / 6)
    #        = 2 x 332,833,500 = 665,667,000 flops (the two means multiplied gave 0.499 G)
    assert loop["gflops"] * 1e9 == pytest.approx(665_667_000)
    assert iterations(loop) == pytest.approx(332_833_500)


def test_a_range_moving_with_a_moving_range_is_summed_exactly(capsys, tmp_path):
    result = run(capsys, source(tmp_path, TETRA, "tetra.f90"), "--set", "n=100")
    (loop,) = result["loops"]
    # by hand: sum_i sum_{j<=i} j = sum_i i(i+1)/2 = n(n+1)(n+2)/6 = 100 x 101 x 102 / 6
    #        = 171,700 iterations, one multiply each
    assert iterations(loop) == pytest.approx(171_700)
    assert loop["gflops"] * 1e9 == pytest.approx(171_700)


def test_a_c_chain_of_three_ranges(capsys, tmp_path):
    result = run(capsys, source(tmp_path, CHAIN, "chain.c"), "--set", "n=10")
    (loop,) = result["loops"]
    # by hand: for k, j = k+1..9 and i = j..9: sum_k sum_{j=k+1}^{9} (10 - j)
    #        = sum_k (9-k)(10-k)/2 = sum_{m=0}^{9} m(m+1)/2 = 9 x 10 x 11 / 6 = 165
    assert iterations(loop) == pytest.approx(165)
    assert loop["gflops"] * 1e9 == pytest.approx(2 * 165)


def test_the_count_is_a_formula_of_the_size(capsys, tmp_path):
    path = source(tmp_path, LU, "lu.f90")
    small = run(capsys, path, "--set", "n=10")["loops"][0]
    # by hand: sum_{m=0}^{9} m^2 = 9 x 10 x 19 / 6 = 285 iterations at n = 10
    assert iterations(small) == pytest.approx(285)


@pytest.mark.libreoffice
def test_editing_the_size_in_libreoffice_recounts_the_triangle(capsys, tmp_path):
    from libreoffice import named_value, recalculate_edited

    path = source(tmp_path, LU, "lu.f90")
    book = tmp_path / "lu.xlsx"
    assert main([path, "-q", *MACHINE, "--set", "n=1000", "-o", str(book)]) == 0
    values = recalculate_edited(book, {"n": 10}, tmp_path / "edit")
    # by hand at n = 10: 2 x 285 = 570 flops
    assert math.isclose(float(named_value(values, "Total_GFlops")) * 1e9, 570, rel_tol=1e-9)
