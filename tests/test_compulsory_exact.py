"""Compulsory bytes (the JSON's ``traffic_blocks_gb``) equal to the distinct bytes a nest
touches, on shapes where a count over mean ranges or folded offsets is not exact: a
repetition that moves one end of a range, a loop stepping by more than 1 with offsets of
several residues, and a gather repeated by a time loop. Each count is worked out by hand."""

import json
import math
from pathlib import Path

import pytest

from sat.cli import main

# costs per word: 8 B a read, 16 B a read-and-write or a write (read for ownership, written
# back); 8-byte words, 64-byte lines; small nests modelled (SetupIterations=1)
MACHINE = ["--set", "StreamingWrites=0", "--set", "NTAHints=0", "--set", "ReadCost=8",
           "--set", "ReadWriteCost=16", "--set", "WriteCost=16", "--set", "WordBytes=8",
           "--set", "LineBytes=64", "--set", "SetupIterations=1"]


def run(capsys, tmp_path: Path, text: str, name: str) -> dict:
    path = tmp_path / name
    path.write_text(text)
    assert main([str(path), "--json", "-", "-q", *MACHINE]) == 0
    return json.loads(capsys.readouterr().out)


def compulsory_bytes(data: dict) -> float:
    return sum(loop["traffic_blocks_gb"] for loop in data["loops"]) * 1e9


# ------------------------------------------------- a repetition moving one end of a range

SHRINKING_F = """\
subroutine shrink(a, b)
  real(8), intent(in) :: a(16, 12)
  real(8), intent(out) :: b(16, 12)
  integer :: i, j, k
  do k = 1, 3
    do j = k + 1, 12
      do i = k + 1, 16
        b(i, j) = 2.0d0 * a(i, j)
      end do
    end do
  end do
end subroutine
"""

SHRINKING_C = """\
double a[12][16], b[12][16];
void shrink(void)
{
    for (int k = 0; k < 3; k++)
        for (int j = k + 1; j < 12; j++)
            for (int i = k + 1; i < 16; i++)
                b[j][i] = 2.0 * a[j][i];
}
"""


def test_a_repetition_that_shrinks_ranges_touches_the_widest_ones(capsys, tmp_path):
    for text, name in ((SHRINKING_F, "shrink.f90"), (SHRINKING_C, "shrink.c")):
        data = run(capsys, tmp_path, text, name)
        # k subscripts nothing: its trips sweep nested ranges, the first one the widest:
        # j over 11 rows, i over 15 elements, 165 elements of a and of b (the mean ranges,
        # (11*15 + 10*14 + 9*13) / 3 = 140.7, missed 15 %); a read 165 x 8 = 1,320 B, b
        # written 165 x 16 = 2,640 B
        assert compulsory_bytes(data) == pytest.approx(1_320 + 2_640), name


GROWING_C = """\
double r[16], s[16];
void grow(void)
{
    for (int k = 0; k < 4; k++)
        for (int i = 0; i < 8 + k; i++)
            s[i] = 2.0 * r[i];
}
"""


def test_a_repetition_that_grows_a_range_touches_its_last_one(capsys, tmp_path):
    data = run(capsys, tmp_path, GROWING_C, "grow.c")
    # the range grows with k: k = 3 runs i over 11 elements, which hold the others' (the
    # mean, 9.5, missed 14 %); r 11 x 8 = 88 B, s 11 x 16 = 176 B
    assert compulsory_bytes(data) == pytest.approx(88 + 176)


CHAINED_F = """\
subroutine chained(a, b)
  real(8), intent(in) :: a(30)
  real(8), intent(out) :: b(30)
  integer :: i, j, k
  do i = 0, 1
    do j = i, 1
      do k = j + 2, 25
        b(k) = 2.0d0 * a(k)
      end do
    end do
  end do
end subroutine
"""

CHAINED_C = """\
double a[30], b[30];
void chained(void)
{
    for (int i = 0; i < 2; i++)
        for (int j = i; j < 2; j++)
            for (int k = j + 2; k < 26; k++)
                b[k] = 2.0 * a[k];
}
"""


def test_a_range_moved_by_a_repetition_whose_own_range_moves_takes_the_widest(capsys,
                                                                            tmp_path):
    for text, name in ((CHAINED_F, "chained.f90"), (CHAINED_C, "chained.c")):
        data = run(capsys, tmp_path, text, name)
        # j runs from i, at least 0 (i = 0): k from j + 2 = 2 to 25, 24 elements of a and b
        # (the mean over the three (i, j) pairs, (24 + 23 + 23) / 3, is 23.3); a 24 x 8 =
        # 192 B, b 24 x 16 = 384 B
        assert compulsory_bytes(data) == pytest.approx(192 + 384), name


TRIANGLE_F = """\
subroutine tri(a, b)
  real(8), intent(in) :: a(20, 12)
  real(8), intent(out) :: b(20, 12)
  integer :: j, k, l
  do j = 0, 1
    do k = j + 4, 11
      do l = k, 19
        b(l, k) = 2.0d0 * a(l, k)
      end do
    end do
  end do
end subroutine
"""

TRIANGLE_C = """\
double a[12][20], b[12][20];
void tri(void)
{
    for (int j = 0; j < 2; j++)
        for (int k = j + 4; k < 12; k++)
            for (int l = k; l < 20; l++)
                b[k][l] = 2.0 * a[k][l];
}
"""


def test_a_triangle_under_a_shrinking_repetition_touches_the_widest_triangle(capsys,
                                                                            tmp_path):
    for text, name in ((TRIANGLE_F, "tri.f90"), (TRIANGLE_C, "tri.c")):
        data = run(capsys, tmp_path, text, name)
        # j = 0 gives the widest triangle, k from 4 to 11 and l from k to 19: 16 + 15 + ...
        # + 9 = 100 elements of a and of b (j = 1 touches 84 of them again); a 100 x 8 =
        # 800 B, b 100 x 16 = 1,600 B
        assert compulsory_bytes(data) == pytest.approx(800 + 1_600), name


TRIANGLE_HALO_F = """\
subroutine tri(a, b)
  real(8), intent(in) :: a(40, 46)
  real(8), intent(out) :: b(40, 46)
  integer :: i, j
  do i = 3, 42
    do j = 3, i
      b(j, i) = a(j, i) + a(j, i - 2) + a(j, i + 1)
    end do
  end do
end subroutine
"""

TRIANGLE_HALO_C = """\
double a[46][40], b[46][40];
void tri(void)
{
    for (int i = 3; i < 43; i++)
        for (int j = 3; j < i + 1; j++)
            b[i][j] = a[i][j] + a[i - 2][j] + a[i + 1][j];
}
"""


def test_a_halo_across_a_triangle_grows_each_column(capsys, tmp_path):
    for text, name in ((TRIANGLE_HALO_F, "tri.f90"), (TRIANGLE_HALO_C, "tri.c")):
        data = run(capsys, tmp_path, text, name)
        # b: rows i = 3..42 of i - 2 elements, 1 + 2 + ... + 40 = 820. a: column j holds
        # i from j to 42, shifted by -2, 0 and +1: i from j - 2 to 43, 46 - j elements,
        # but for the last column, j = 42, whose one i (42) reaches 40, 42 and 43, not 41:
        # 3 elements. Over the 40 columns j = 3..42: 43 + 42 + ... + 5 + 3 = 939 (a loop
        # over the three offsets' sets of (j, i) counts 939 too; the rows of mean length
        # 20.5 grown by the halo of 3 rows: 43 x 20.5 = 881.5); a 939 x 8 = 7,512 B, b
        # 820 x 16 = 13,120 B
        assert compulsory_bytes(data) == pytest.approx(7_512 + 13_120), name


# ------------------------------------------------- a stepped loop, offsets of two residues

STEPPED_F = """\
subroutine stepped(a, b)
  real(8), intent(in) :: a(0:30, 0:9)
  real(8), intent(out) :: b(0:30, 0:9)
  integer :: j, k
  do j = 1, 8
    do k = 1, 28, 3
      b(k, j) = a(k, j) + a(k - 1, j) + a(k, j + 1) + a(k, j - 1)
    end do
  end do
end subroutine
"""

STEPPED_C = """\
double a[10][31], b[10][31];
void stepped(void)
{
    for (int j = 1; j < 9; j++)
        for (int k = 1; k < 29; k += 3)
            b[j][k] = a[j][k] + a[j][k - 1] + a[j + 1][k] + a[j - 1][k];
}
"""


def test_a_stepped_loop_counts_each_residue_with_its_own_halo(capsys, tmp_path):
    for text, name in ((STEPPED_F, "stepped.f90"), (STEPPED_C, "stepped.c")):
        data = run(capsys, tmp_path, text, name)
        # k = 1, 4, ..., 28: 10 steps, j 8 rows. a: the references at k (residue 1 of 3)
        # reach rows 0 to 9: 10 x 10 = 100 elements; a(k-1) (residue 0) rows 1 to 8:
        # 10 x 8 = 80; never the same elements: 180 (two elements per step over the 8 rows,
        # 160, left the halo rows out); a 180 x 8 = 1,440 B, b 80 x 16 = 1,280 B
        assert compulsory_bytes(data) == pytest.approx(1_440 + 1_280), name


# ------------------------------------------------- a gather repeated by a time loop

def distinct(draws: int, elements: int) -> float:
    """Expected distinct elements of ``draws`` uniform draws over ``elements``."""
    return elements * (1 - (1 - 1 / elements) ** draws)


GATHER_IN_TIME_LOOP_C = """\
int idx[100];
double x[400], y[100];
void gather(void)
{
    for (int t = 0; t < 5; t++)
        for (int i = 0; i < 100; i++)
            y[i] = y[i] + x[idx[i]];
}
"""

GATHER_IN_PASSES_C = """\
int idx[100];
double x[400], y[100];
void sweep(void)
{
    for (int i = 0; i < 100; i++)
        y[i] = y[i] + x[idx[i]];
}
void passes(void)
{
    for (int t = 0; t < 5; t++)
        sweep();
}
"""

GATHER_IN_TIME_LOOP_F = """\
subroutine gather(idx, x, y)
  integer, intent(in) :: idx(100)
  real(8), intent(in) :: x(400)
  real(8), intent(inout) :: y(100)
  integer :: i, t
  do t = 1, 5
    do i = 1, 100
      y(i) = y(i) + x(idx(i))
    end do
  end do
end subroutine
"""


def test_a_time_loop_repeats_a_gathers_indices_not_new_draws(capsys, tmp_path):
    # the 100 indices are read again on every t: the same 100 draws over x's 400 elements,
    # 400 x (1 - (1 - 1/400)^100) = 88.58 elements (500 fresh draws would pick 285.6)
    once = distinct(100, 400)
    assert once == pytest.approx(88.577, abs=1e-3)
    for text, name in ((GATHER_IN_TIME_LOOP_C, "gather.c"), (GATHER_IN_TIME_LOOP_F, "gather.f90")):
        data = run(capsys, tmp_path, text, name)
        (row,) = data["gathers"]
        assert row["distinct"] == pytest.approx(once), name
        # y read and written 100 x 16 = 1,600 B, idx 100 x 4 = 400 B, x 88.58 x 8 B
        assert compulsory_bytes(data) == pytest.approx(1_600 + 400 + once * 8), name


def test_each_pass_of_a_time_loop_around_a_call_gathers_anew(capsys, tmp_path):
    data = run(capsys, tmp_path, GATHER_IN_PASSES_C, "passes.c")
    (row,) = data["gathers"]
    # every pass of a time loop around a call moves its arrays again (the original tool's
    # rule, kept for every array): 5 passes of 88.58 distinct elements each (500 draws
    # counted once gave 285.6)
    assert row["distinct"] == pytest.approx(5 * distinct(100, 400))
    assert math.isclose(compulsory_bytes(data), 5 * (1_600 + 400 + distinct(100, 400) * 8),
                        rel_tol=1e-9)


# ------------------------------------------------- a stepped loop's references in an arm

STEPPED_ARM_C = """\
double a[40], b[40], w[40];
void arm(void)
{
    for (int k = 1; k < 37; k += 3) {
        if (w[k] > 0)
            b[k] = a[k] + a[k - 1];
        else
            b[k] = 0.0;
    }
}
"""


def test_a_stepped_loops_references_in_an_arm_count_with_its_probability(capsys, tmp_path):
    path = tmp_path / "conds.xml"
    path.write_text('<conds>\n<prop key="w[k] > 0" val="0.5" />\n</conds>\n')
    (tmp_path / "arm.c").write_text(STEPPED_ARM_C)
    assert main([str(tmp_path / "arm.c"), "--json", "-", "-q", *MACHINE,
                 "--conds", str(path)]) == 0
    data = json.loads(capsys.readouterr().out)
    # k = 1, 4, ..., 34: 12 steps. w read at each: 12 x 8 = 96 B; b written in both arms:
    # 12 x 16 = 192 B; a[k] and a[k-1] (two residues of 3, never the same element) only in
    # the arm taken half the time: 12 x 0.5 + 12 x 0.5 = 12 elements, 96 B (every element
    # in full, 24, gave 192 B)
    assert compulsory_bytes(data) == pytest.approx(96 + 192 + 96)


# ------------------------------------------------- offsets far apart along one axis

FAR_ROWS_C = """\
double a[40][16], b[40][16];
void rows(void)
{
    for (int j = 0; j < 8; j++)
        for (int i = 0; i < 16; i++)
            b[j][i] = a[j][i] + a[j + {gap}][i];
}
"""

FAR_ROWS_F = """\
subroutine rows(a, b)
  real(8), intent(in) :: a(16, 40)
  real(8), intent(out) :: b(16, 40)
  integer :: i, j
  do j = 1, 8
    do i = 1, 16
      b(i, j) = a(i, j) + a(i, j + {gap})
    end do
  end do
end subroutine
"""


def test_offsets_farther_apart_than_the_extent_touch_separate_rows(capsys, tmp_path):
    for text, name in ((FAR_ROWS_C, "rows.c"), (FAR_ROWS_F, "rows.f90")):
        data = run(capsys, tmp_path, text.replace("{gap}", "20"), name)
        # 8 rows at j and 8 at j + 20, 20 > 8 rows apart: 16 rows of 16, 256 elements of a
        # (the extent plus the span, 28 x 16 = 448, counted the 12 rows between); a 256 x 8 =
        # 2,048 B, b 128 x 16 = 2,048 B
        assert compulsory_bytes(data) == pytest.approx(2_048 + 2_048), name
        data = run(capsys, tmp_path, text.replace("{gap}", "5"), name)
        # 5 rows apart: rows 0 to 12 overlap, 8 + MIN(8, 5) = 13 rows, 208 elements, 1,664 B
        assert compulsory_bytes(data) == pytest.approx(1_664 + 2_048), name


# ------------------------------------------------- the widest range as a live formula

SHRINKING_PARAMETRIC_F = """\
subroutine shrink(a, b, n)
  integer, intent(in) :: n
  real(8), intent(in) :: a(n, n)
  real(8), intent(out) :: b(n, n)
  integer :: i, j, k
  do k = 1, 3
    do j = k + 1, n
      do i = k + 1, n
        b(i, j) = 2.0d0 * a(i, j)
      end do
    end do
  end do
end subroutine
"""


@pytest.mark.libreoffice
def test_editing_the_size_in_libreoffice_recomputes_the_widest_range(capsys, tmp_path):
    """The workbook written at n = 16, its n edited to 12 and recalculated: the widest
    range follows, (12 - 1)^2 = 121 elements of a and of b, 121 x 24 = 2,904 B, as the
    command line gives with --set n=12 (at n = 16: 225 x 24 = 5,400 B)."""
    from libreoffice import recalculate_edited, value_at

    source = tmp_path / "shrink.f90"
    source.write_text(SHRINKING_PARAMETRIC_F)
    book = tmp_path / "shrink.xlsx"
    assert main([str(source), "--json", "-", "-q", *MACHINE, "--set", "n=16",
                 "-o", str(book)]) == 0
    before = json.loads(capsys.readouterr().out)
    assert compulsory_bytes(before) == pytest.approx(5_400)
    values = recalculate_edited(book, {"n": 12}, tmp_path / "edit")
    got = float(value_at(values, before["totals"]["cells"]["traffic_blocks_gb"])) * 1e9
    assert got == pytest.approx(2_904)
    assert compulsory_bytes(run(capsys, tmp_path, SHRINKING_PARAMETRIC_F.replace(
        "integer, intent(in) :: n", "integer, parameter :: n = 12").replace(
        "subroutine shrink(a, b, n)", "subroutine shrink(a, b)"), "shrink12.f90")) == \
        pytest.approx(2_904)
