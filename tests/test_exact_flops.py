"""Flops counted exactly: the else arm of a chain whose other arms' probabilities --conds
gives (sat.model.exasat.flops), loops stepping by more than 1 over a range that moves
with an enclosing loop (sat.model.sums.stepped_mean_trips), and the tiles of such a range
(their tile loop runs once, sat.model.exasat.iteration.trip_count). Every number worked by
hand.
"""

from __future__ import annotations

from pathlib import Path
from xml.sax.saxutils import escape

import pytest

from sat.frontend import read_sources
from sat.machine.library import load_machine
from sat.model.build import build_model
from sat.parameters import build_parameters


def _loops(tmp_path: Path, name: str, text: str, *sets: str, conds: dict[str, float] | None
           = None) -> tuple[list[dict], object]:
    """The Loops rows of ``text`` (every nest modelled, however short) and the evaluation."""
    path = tmp_path / name
    path.write_text(text)
    conds_file = None
    if conds:
        conds_file = tmp_path / "conds.xml"
        conds_file.write_text("<conds>\n" + "".join(
            f'<prop key="{escape(key)}" val="{value}" />\n'
            for key, value in conds.items()) + "</conds>\n")
    params = build_parameters(load_machine(None), sets=["SetupIterations=1", *sets],
                              conds_file=conds_file)
    result = build_model(read_sources([str(path)]), params)
    return result.tables["Loops"].rows, result.env()


def _value(cell, env) -> float:
    return cell.value(env) if hasattr(cell, "value") else float(cell)


BRANCH_C = """\
float out[2000], inp[2000]; int w[2000];
void k(void) {
  for (int i = 0; i < 2000; i++) {
    if (w[i] > 0) {
      out[i] = 0.5f * inp[i] + inp[i];
    } else {
      out[i] = 1.5f * inp[i];
    }
  }
}
"""

BRANCH_F = """\
subroutine k(out, inp, w)
  real :: out(2000), inp(2000)
  integer :: w(2000), i
  do i = 1, 2000
    if (w(i) > 0) then
      out(i) = 0.5 * inp(i) + inp(i)
    else
      out(i) = 1.5 * inp(i)
    end if
  end do
end subroutine
"""


@pytest.mark.parametrize("name, text, condition", [("k.c", BRANCH_C, "w[i] > 0"),
                                                   ("k.f90", BRANCH_F, "w(i) > 0")])
def test_the_else_arm_runs_one_minus_its_if(tmp_path, name, text, condition):
    """p = 0.28 for the if: its arm (1 add, 1 multiply) runs 0.28 of the iterations, the
    else (1 multiply) 1 - 0.28 = 0.72, not 1/2. Per iteration: adds 0.28, multiplies 0.28 +
    0.72 = 1 (0.28 + 0.5 = 0.78 before). Total over 2,000 iterations: 2000*(0.28*2 +
    0.72*1) = 2,560 flops."""
    rows, env = _loops(tmp_path, name, text, conds={condition: 0.28})
    (row,) = rows
    assert _value(row["adds"], env) == pytest.approx(0.28)
    assert _value(row["multiplies"], env) == pytest.approx(1.0)
    assert _value(row["gflops"], env) * 1e9 == pytest.approx(2_560)


def test_an_else_after_else_if_arms_runs_what_they_leave(tmp_path):
    """if p 0.2 (1 add), else if p 0.3 (1 multiply), else (1 divide): the else runs 1 - 0.2 -
    0.3 = 0.5. Over 2,000 iterations: 2000*(0.2 + 0.3 + 0.5) = 2,000 flops, divides 0.5 per
    iteration."""
    rows, env = _loops(tmp_path, "k.f90", """\
subroutine k(out, inp, w)
  real :: out(2000), inp(2000)
  integer :: w(2000), i
  do i = 1, 2000
    if (w(i) > 0) then
      out(i) = inp(i) + 1.0
    else if (w(i) < 5) then
      out(i) = inp(i) * 3.0
    else
      out(i) = inp(i) / 3.0
    end if
  end do
end subroutine
""", conds={"w(i) > 0": 0.2, "w(i) < 5": 0.3})
    (row,) = rows
    assert _value(row["divides"], env) == pytest.approx(0.5)
    assert _value(row["gflops"], env) * 1e9 == pytest.approx(2_000)


def test_an_else_whose_if_has_no_probability_stays_one_over_the_arms(tmp_path):
    """No --conds: both arms 1/2. Per iteration: adds 0.5, multiplies 0.5 + 0.5 = 1; total
    2000*(0.5*2 + 0.5*1) = 3,000 flops."""
    rows, env = _loops(tmp_path, "k.c", BRANCH_C)
    (row,) = rows
    assert _value(row["adds"], env) == pytest.approx(0.5)
    assert _value(row["gflops"], env) * 1e9 == pytest.approx(3_000)


def _triangle(lower: str, upper: str, step: int) -> str:
    return f"""\
subroutine tri(n, a, b)
  integer :: n, j, k
  real(8) :: a(64, n), b(64, n)
  do j = 1, n
    do k = {lower}, {upper}, {step}
      b(k, j) = 2.0d0 * a(k, j)
    end do
  end do
end subroutine
"""


@pytest.mark.parametrize("lower, upper, step, n, flops", [
    # k = 1..j by 2: ceil(j/2) trips; j = 1..24: 2*(1 + ... + 12) = 156
    ("1", "j", 2, 24, 156),
    # n = 25 adds j = 25: ceil(25/2) = 13 more, 169 (the count follows n)
    ("1", "j", 2, 25, 169),
    # k = j..1 by -3: FLOOR((j-1)/3) + 1 trips; j = 1..10: 1,1,1,2,2,2,3,3,3,4 = 22
    ("j", "1", -3, 10, 22),
    # k = j..n by 2: FLOOR((n-j)/2) + 1; j = 1..10 (n-j = 9..0): 5,5,4,4,3,3,2,2,1,1 = 30
    ("j", "n", 2, 10, 30),
    # k = 3..j by 3, j = 1..10: j < 3 runs nothing; j-3 = 0..7: 1,1,1,2,2,2,3,3 = 15
    ("3", "j", 3, 10, 15),
])
def test_a_triangular_loop_with_a_step_counts_its_exact_iterations(tmp_path, lower, upper,
                                                                   step, n, flops):
    """One multiply an iteration: the flops are the iterations, summed exactly (the count at
    the mean j, FLOOR((12.5 - 1)/2) + 1 = 6 per j, gave 144 for the first)."""
    rows, env = _loops(tmp_path, "tri.f90", _triangle(lower, upper, step), f"n={n}")
    (row,) = rows
    assert _value(row["gflops"], env) * 1e9 == pytest.approx(flops)


def _stepped_outer(first: int, end: int, step: int) -> str:
    return f"""\
subroutine tri(a, b)
  double precision :: a(20, 20), b(20, 20)
  integer :: l, m
  do l = {first}, {end}, {step}
    do m = 4, l
      b(m, l) = a(m, l) + a(m - 1, l)
    end do
  end do
end subroutine
"""


@pytest.mark.parametrize("first, end, step, flops, compulsory", [
    # l = 4, 7, 10, 13 (it stops short of 15): m = 4..l runs 1 + 4 + 7 + 10 = 22 times, one
    # add each; a is read at m = 3..l, 2 + 5 + 8 + 11 = 26 elements, b written at 22:
    # (26 + 22) * 8 B touched + 22 * 8 B written = 560 B (the mean of l taken between 4 and
    # 15, 9.5, gave 26 flops and 656 B)
    (4, 15, 3, 22, 560),
    # l = 15, 12, 9, 6: 12 + 9 + 6 + 3 = 30 adds; a at 13 + 10 + 7 + 4 = 34 elements:
    # (34 + 30) * 8 + 30 * 8 = 752 B
    (15, 4, -3, 30, 752),
])
def test_a_range_below_a_stepped_loop_moves_with_the_values_it_takes(tmp_path, first, end,
                                                                    step, flops, compulsory):
    rows, env = _loops(tmp_path, "stepped.f90", _stepped_outer(first, end, step))
    (row,) = rows
    assert _value(row["gflops"], env) * 1e9 == pytest.approx(flops)
    assert _value(row["traffic_blocks_gb"], env) * 1e9 == pytest.approx(compulsory)


TRIANGLE_IN_TILES_C = """\
#define MIN(a, b) ((a) < (b) ? (a) : (b))
double out[40][60], inp[40][60];
void tiles(void) {
  for (int j = 0; j < 40; j++) {
    for (int kk = 0; kk < j + 1; kk += 12) {
      for (int k = kk; k < MIN(kk + 12, j + 1); k++) {
        out[j][k] = 1.5 * inp[j][k];
      }
    }
  }
}
"""

TRIANGLE_IN_TILES_F = """\
subroutine tiles(n, a, b)
  integer :: n, j, kt, k
  real(8) :: a(64, n), b(64, n)
  do j = 1, n
    do kt = j, n, 5
      do k = kt, min(kt + 4, n)
        b(k, j) = a(k, j) + 2.0d0 * a(k, j)
      end do
    end do
  end do
end subroutine
"""


TILES_IN_A_TRIANGLE_C = """\
#define MIN(a, b) ((a) < (b) ? (a) : (b))
float out[16][16], inp[16][16];
void tiles(void) {
  for (int i = 0; i < 2; i++) {
    for (int k = i + 4; k < 16; k++) {
      for (int ll = 4; ll < k + 1; ll += 12) {
        for (int l = ll; l < MIN(ll + 12, k + 1); l++) {
          out[k][l] = 3.0f * inp[k][l];
        }
      }
    }
  }
}
"""


@pytest.mark.parametrize("name, text, sets, flops", [
    # l runs 4..k through its tiles, k - 3 times, k from i + 4 to 15: for i = 0,
    # 1 + 2 + ... + 12 = 78; for i = 1, 2 + ... + 12 = 77; 155 (the nested sum over i, k
    # and l, the tile loop once; without it, the mean of the range: 155.25)
    ("tri.c", TILES_IN_A_TRIANGLE_C, (), 155),
    # k runs 0..j through its tiles of 12: j + 1 multiplies a j, 1 + 2 + ... + 40 = 820
    # (the tile loop counted again at its mean ceil((j+1)/12), 2.2, gave 1,804)
    ("tiles.c", TRIANGLE_IN_TILES_C, (), 820),
    # k runs j..n through tiles of 5: n - j + 1 iterations of 2 flops, n = 20:
    # 2 * (20 + 19 + ... + 1) = 420 (times the tile loop's mean trips, ceil((21-j)/5) =
    # 4,4,4,4,4,3,...,1: 50/20 = 2.5, it gave 1,050)
    ("tiles.f90", TRIANGLE_IN_TILES_F, ("n=20",), 420),
])
def test_tiles_of_a_triangular_range_count_the_range_once(tmp_path, name, text, sets, flops):
    """A tile loop whose range moves with an enclosing loop still runs once for the model:
    its element loop counts the whole (triangular) range."""
    rows, env = _loops(tmp_path, name, text, *sets)
    (row,) = rows
    assert _value(row["gflops"], env) * 1e9 == pytest.approx(flops)


CROSSING_F = """\
subroutine crossing(a, b)
  real(8) :: a(20, 18, 14), b(20, 18, 14)
  integer :: k, l, m
  do k = 5, 10
    do l = k, 14
      do m = l + 4, 16
        b(m, l, k) = 2.0d0 * a(m, l, k)
      end do
    end do
  end do
end subroutine
"""

CROSSING_C = """\
float a[10][10][10], b[10][10][10];
void crossing(void) {
  for (int i = 0; i < 6; i++) {
    for (int j = i; j < 10; j++) {
      for (int k = j + 3; k < 10; k++) {
        b[i][j][k] = a[i][j][k] * 0.5f;
      }
    }
  }
}
"""


@pytest.mark.parametrize("name, text, flops", [
    # m runs 13 - l times while l <= 12 and not at all for l = 13, 14: per k, the sum of
    # 13 - l for l = k..12 = (13 - k)(14 - k)/2; k = 5..10: 36 + 28 + 21 + 15 + 10 + 6 = 116
    # (summed with l = 13 and 14 counting 0 and -1 trips, 116 - 6 = 110)
    ("crossing.f90", CROSSING_F, 116),
    # k runs 7 - j times while j <= 6: per i, (7 - i)(8 - i)/2; i = 0..5: 28 + 21 + 15 +
    # 10 + 6 + 3 = 83 (with j = 7, 8, 9 counting 0, -1, -2: 83 - 18 = 65)
    ("crossing.c", CROSSING_C, 83),
])
def test_a_range_that_empties_inside_a_triangle_counts_no_trips_there(tmp_path, name, text,
                                                                       flops):
    """Two ranges moving with the loops around them, the innermost one empty for the last
    values of its parent: those values run nothing (one multiply an iteration)."""
    rows, env = _loops(tmp_path, name, text)
    (row,) = rows
    assert _value(row["gflops"], env) * 1e9 == pytest.approx(flops)


CROSSING_SIZE_C = """\
float out[10][10][10], inp[10][10][10];
int sz[3];
void crossing(void) {
  for (int i = 0; i < sz[2]; i++) {
    for (int j = i + 1; j < 9; j++) {
      for (int k = i + 1; k < 9; k++) {
        for (int l = 1; l < k + 1; l++) {
          out[j][k][l] = inp[j][k][l] * 0.5f;
        }
      }
    }
  }
}
"""


def _crossing_size_flops(size: int) -> int:
    """The multiplies of CROSSING_SIZE_C for ``sz[2] = size``, by running its loops."""
    return sum(1 for i in range(size) for j in range(i + 1, 9) for k in range(i + 1, 9)
               for _ in range(1, k + 1))


@pytest.mark.parametrize("size, flops", [
    # i = 0..7 run the rest (j, k: 8 - i values each, l: k of them); i >= 8 run nothing:
    # sum over i = 0..7 of (8 - i) x (sum of k for k = i+1..8) = 8x36 + 7x35 + 6x33 + 5x30 +
    # 4x26 + 3x21 + 2x15 + 1x8 = 288 + 245 + 198 + 150 + 104 + 63 + 30 + 8 = 1086, whatever
    # the size above 8 (summed as if i = 9..127 counted negative trips, a negative number)
    (128, 1086), (8, 1086),
    # i = 0..4: 288 + 245 + 198 + 150 + 104 = 985
    (5, 985), (1, 288),
])
def test_a_number_bound_range_inside_a_size_bound_loop_counts_no_trips_past_it(
        tmp_path, size, flops):
    """A range bound by a number (``j < 9``) inside a loop bound by the problem's size: the
    loop's values past the number run nothing, for any size (the default one too)."""
    assert _crossing_size_flops(size) == flops
    rows, env = _loops(tmp_path, "crossing.c", CROSSING_SIZE_C, f"sz_2={size}")
    (row,) = rows
    assert _value(row["gflops"], env) * 1e9 == pytest.approx(flops)
    iterations = 1.0
    for key in ("sweeps", "iter_x", "iter_y", "iter_z"):
        assert _value(row[key], env) >= 0
        iterations *= _value(row[key], env)
    assert iterations == pytest.approx(flops)


@pytest.mark.libreoffice
def test_a_number_bound_range_recalculates_for_any_size(tmp_path):
    """The narrowed ranges are live: the workbook written for the default size, recalculated
    with sz_2 = 5, gives the 985 multiplies of the CLI run at that size."""
    from libreoffice import recalculate_edited, soffice, value_at

    from sat.cli import main

    soffice()
    source = tmp_path / "crossing.c"
    source.write_text(CROSSING_SIZE_C)
    out = tmp_path / "crossing.json"
    assert main([str(source), "--set", "SetupIterations=1", "--json", str(out), "-q",
                 "-o", str(tmp_path / "crossing.xlsx")]) == 0
    import json

    row = json.loads(out.read_text())["loops"][0]
    # the default size (128): j runs (8 + 7 + ... + 1)/128 = 36/128 times per i
    assert row["iter_z"] == pytest.approx(36 / 128)
    book = recalculate_edited(tmp_path / "crossing.xlsx", {"sz_2": 5}, tmp_path / "edit")
    assert value_at(book, row["cells"]["gflops"]) * 1e9 == pytest.approx(985)
    # i = 0..4: j runs (8 + 7 + 6 + 5 + 4)/5 = 6 times per i
    assert value_at(book, row["cells"]["iter_z"]) == pytest.approx(6)
