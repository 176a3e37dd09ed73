"""Compulsory bytes (the JSON's ``traffic_blocks_gb``) of a triangle read at several offsets:
the distinct elements are the union of the triangle's shifted copies, worked out by hand row
by row (or plane by plane) in each comment."""

import json
from pathlib import Path

import pytest

from sat.cli import main

# costs per word: 8 B a read, 16 B a write (read for ownership, written back); 8-byte
# words, 64-byte lines; small nests modelled (SetupIterations=1)
MACHINE = ["--set", "StreamingWrites=0", "--set", "NTAHints=0", "--set", "ReadCost=8",
           "--set", "ReadWriteCost=16", "--set", "WriteCost=16", "--set", "WordBytes=8",
           "--set", "LineBytes=64", "--set", "SetupIterations=1"]


def compulsory(capsys, tmp_path: Path, text: str, name: str, *extra: str) -> dict:
    path = tmp_path / name
    path.write_text(text)
    assert main([str(path), "--json", "-", "-q", *MACHINE, *extra]) == 0
    return json.loads(capsys.readouterr().out)


def compulsory_bytes(capsys, tmp_path: Path, text: str, name: str, *extra: str) -> float:
    data = compulsory(capsys, tmp_path, text, name, *extra)
    return sum(loop["traffic_blocks_gb"] for loop in data["loops"]) * 1e9


# ------------------------------------------- a 2-D triangle, offsets along both of its axes

TRIANGLE_F = """\
subroutine tri(a, b, n)
  integer, intent(in) :: n
  real(8), intent(in) :: a(0:n+1, 0:n+1)
  real(8), intent(out) :: b(n, n)
  integer :: i, j
  do j = 1, n
    do i = j, n
      b(i, j) = a(i, j) + a(i + 1, j) + a(i, j - 1)
    end do
  end do
end subroutine
"""

TRIANGLE_C = """\
double a[34][34], b[34][34];
void tri(int n)
{
    for (int j = 1; j <= n; j++)
        for (int i = j; i <= n; i++)
            b[j][i] = a[j][i] + a[j][i + 1] + a[j - 1][i];
}
"""


def triangle_bytes(n: int) -> int:
    # the triangle: j = 1..n, i = j..n, n(n+1)/2 points; b written once each, 16 B.
    # a by row y (its second index): a(i, j) reaches x = y..n on rows 1..n; a(i+1, j)
    # x = y+1..n+1 on rows 1..n; a(i, j-1) x = y+1..n on rows 0..n-1. Row 0: n elements;
    # rows y = 1..n: y..n+1, n - y + 2 elements. In all n + n(n+1)/2 + n = n(n+1)/2 + 2n
    # (n = 8: 36 + 16 = 52; a loop over the three offsets' sets of (x, y), its length,
    # gives 52 too). Rows of the mean length grown by the halo counted 48.5 at n = 8.
    points = n * (n + 1) // 2
    return points * 16 + (points + 2 * n) * 8


@pytest.mark.parametrize("text, name", [(TRIANGLE_F, "tri.f90"), (TRIANGLE_C, "tri.c")])
@pytest.mark.parametrize("n", [8, 20])
def test_a_triangle_at_three_offsets_counts_their_union(capsys, tmp_path, text, name, n):
    # n = 8: 36 x 16 + 52 x 8 = 576 + 416 = 992 B; n = 20: 210 x 16 + 250 x 8 = 5,360 B
    assert compulsory_bytes(capsys, tmp_path, text, name, "--set", f"n={n}") == \
        pytest.approx(triangle_bytes(n))
    assert triangle_bytes(8) == 992 and triangle_bytes(20) == 5_360


# ------------------------------ a square per plane shrinking with the plane, read at offsets

SHRINKING_F = """\
subroutine shrink(inp, out)
  real(8), intent(in) :: inp(14, 14, 14)
  real(8), intent(out) :: out(14, 14, 14)
  integer :: i, j, k
  do i = 3, 12
    do j = i, 12
      do k = i, 12
        out(k, j, i) = inp(k, j, i) + inp(k, j, i + 2) + inp(k, j, i + 1) + inp(k, j - 1, i)
      end do
    end do
  end do
end subroutine
"""

SHRINKING_C = """\
double inp[14][14][14], out[14][14][14];
void shrink(void)
{
    for (int i = 3; i <= 12; i++)
        for (int j = i; j <= 12; j++)
            for (int k = i; k <= 12; k++)
                out[i][j][k] = inp[i][j][k] + inp[i + 2][j][k] + inp[i + 1][j][k]
                             + inp[i][j - 1][k];
}
"""


@pytest.mark.parametrize("text, name", [(SHRINKING_F, "shrink.f90"), (SHRINKING_C, "shrink.c")])
def test_shrinking_squares_at_offsets_across_planes_count_their_union(
        capsys, tmp_path, text, name):
    # plane i = 3..12 holds the square S(i) = [i, 12]^2, (13 - i)^2 points: 100 + 81 + .. +
    # 1 = 385, out written once each, 385 x 16 = 6,160 B. inp's plane p holds S(p), S(p-1),
    # S(p-2) (offsets 0, 1, 2 across planes, where those planes exist: the largest wins,
    # they are nested) and S(p) moved one row down (j - 1), inside S(p-1) except at p = 3.
    # p = 3: S(3) and its row j = 2, 100 + 10; p = 4, 5: S(3), 100 each; p = 6..12: S(p-2),
    # 81, 64, 49, 36, 25, 16, 9; p = 13: S(11), 4; p = 14: S(12), 1. 595 elements (as many as
    # a run of the nest touches), 595 x 8 = 4,760 B. The widest slice for the halo planes
    # counted 655, the mean rows 532.
    assert compulsory_bytes(capsys, tmp_path, text, name) == pytest.approx(6_160 + 4_760)


def test_a_rectangle_at_offsets_keeps_the_stencil_union(capsys, tmp_path):
    # no bound moves with another loop: the stencil's union, rows 0..8 of x 1..9: 8 rows of
    # 8 (i, j) plus the row j-1 = 0 and the column i+1 = 9: 8 x 8 + 8 + 8 = 80 elements,
    # 640 B, and b 64 x 16 = 1,024 B
    text = TRIANGLE_F.replace("do i = j, n", "do i = 1, n")
    assert compulsory_bytes(capsys, tmp_path, text, "rect.f90", "--set", "n=8") == \
        pytest.approx(1_024 + 640)


@pytest.mark.libreoffice
def test_editing_the_extent_in_libreoffice_recounts_the_union(capsys, tmp_path):
    """The workbook of TRIANGLE_F written at n = 8, its n edited to 20 and recalculated: the
    union is a formula over n, 5,360 B as worked out above (at n = 8: 992 B)."""
    from libreoffice import recalculate_edited, value_at

    source = tmp_path / "tri.f90"
    source.write_text(TRIANGLE_F)
    book = tmp_path / "tri.xlsx"
    assert main([str(source), "--json", "-", "-q", *MACHINE, "--set", "n=8",
                 "-o", str(book)]) == 0
    before = json.loads(capsys.readouterr().out)
    assert before["totals"]["traffic_blocks_gb"] * 1e9 == pytest.approx(992)
    values = recalculate_edited(book, {"n": 20}, tmp_path / "edit")
    got = float(value_at(values, before["totals"]["cells"]["traffic_blocks_gb"])) * 1e9
    assert got == pytest.approx(5_360)


# ----------------------------------------------- a triangle written with tile loops, in C

TILED_C = """\
#define MIN(a, b) ((a) < (b) ? (a) : (b))
double a[12][12], b[12][12];
void tiled(void)
{
    for (int ii = 2; ii < 10; ii += 4)
        for (int i = ii; i < MIN(ii + 4, 10); i++)
            for (int j = 2; j < i + 1; j++)
                b[i][j] = a[i][j] - a[i - 2][j] + a[i][j - 1];
}
"""


def test_a_tiled_triangle_counts_the_union_over_its_whole_range(capsys, tmp_path):
    # the tiles of 4 walk i = 2..9, j = 2..i: 36 points, b 36 x 16 = 576 B. a by row r (its
    # first index): a[i][j] reaches j = 2..r on rows 2..9, a[i-2][j] j = 2..r+2 on rows
    # 0..7, a[i][j-1] j = 1..r-1 on rows 2..9. Row 0: 1 element, row 1: 2, rows 2..7: j =
    # 1..r+2, 4 + 5 + .. + 9 = 39, rows 8 and 9: j = 1..r, 8 + 9 = 17; 59 elements (a loop
    # over the three offsets' sets counts 59), 59 x 8 = 472 B
    assert compulsory_bytes(capsys, tmp_path, TILED_C, "tiled.c") == pytest.approx(576 + 472)
