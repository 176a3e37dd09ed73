"""Compulsory bytes (the JSON's ``traffic_blocks_gb``) on shapes where a count over the mean
range or over offsets taken as neighbours is not the distinct elements the nest touches:
references in an if/else arm at offsets far apart along one axis, and a coefficient array
whose range moves with a loop it does not step along. Each count is worked out by hand,
the distinct elements listed in the comment."""

import json
from pathlib import Path

import pytest

from sat.cli import main

# costs per word: 8 B a read, 16 B a read-and-write or a write (read for ownership, written
# back); 8-byte words, 64-byte lines; small nests modelled (SetupIterations=1)
MACHINE = ["--set", "StreamingWrites=0", "--set", "NTAHints=0", "--set", "ReadCost=8",
           "--set", "ReadWriteCost=16", "--set", "WriteCost=16", "--set", "WordBytes=8",
           "--set", "LineBytes=64", "--set", "SetupIterations=1"]


def compulsory_bytes(capsys, tmp_path: Path, text: str, name: str, *extra: str) -> float:
    path = tmp_path / name
    path.write_text(text)
    assert main([str(path), "--json", "-", "-q", *MACHINE, *extra]) == 0
    data = json.loads(capsys.readouterr().out)
    return sum(loop["traffic_blocks_gb"] for loop in data["loops"]) * 1e9


def conds(tmp_path: Path, condition: str, p: float) -> list[str]:
    path = tmp_path / "conds.xml"
    path.write_text(f'<conds>\n<prop key="{condition}" val="{p}" />\n</conds>\n')
    return ["--conds", str(path)]


# ------------------------------------- an arm's references at offsets far apart along X

FAR_IN_ARM_C = """\
double a[64], b[16], w[16];
void far(int n)
{
    for (int i = 0; i < n; i++) {
        if (w[i] > 0)
            b[i] = a[i] + a[i + 40];
        else
            b[i] = 0.0;
    }
}
"""

FAR_IN_ARM_F = """\
subroutine far(a, b, w, n)
  integer, intent(in) :: n
  real(8), intent(in) :: a(64), w(16)
  real(8), intent(out) :: b(16)
  integer :: i
  do i = 1, n
    if (w(i) > 0) then
      b(i) = a(i) + a(i + 40)
    else
      b(i) = 0.0d0
    end if
  end do
end subroutine
"""


@pytest.mark.parametrize("text, name, condition", [
    (FAR_IN_ARM_C, "far.c", "w[i] > 0"), (FAR_IN_ARM_F, "far.f90", "w(i) > 0")])
def test_offsets_far_apart_in_an_arm_count_each_with_its_probability(
        capsys, tmp_path, text, name, condition):
    taken = conds(tmp_path, condition, 0.25)
    # n = 16: the arm runs a quarter of the iterations. w read at each: 16 x 8 = 128 B; b
    # written in both arms: 16 x 16 = 256 B. a[i] touches a[0..15], a[i+40] a[40..55]:
    # 32 elements, none reached by both offsets (the gap, 40, is longer than the 16
    # iterations), each touched when its one iteration takes the arm: 32 x 0.25 = 8
    # elements, 64 B. (The offsets taken as neighbours, an interior of 16 - 40 < 0 positions
    # and 2 x 40 edge positions, counted 20 elements, 160 B.)
    assert compulsory_bytes(capsys, tmp_path, text, name, *taken, "--set", "n=16") == \
        pytest.approx(128 + 256 + 64)
    # n = 48, longer than the gap: w 48 x 8 = 384 B, b 48 x 16 = 768 B. a[0..39] reached by
    # a[i] alone, a[48..87] by a[i+40] alone: 80 elements at 0.25 = 20; a[40..47] by both,
    # from two iterations: 8 x (1 - 0.75^2) = 3.5; 23.5 elements, 188 B
    assert compulsory_bytes(capsys, tmp_path, text, name, *taken, "--set", "n=48") == \
        pytest.approx(384 + 768 + 188)


# rows of a matrix read as planes of a 3-D array through an index function: offsets 30 rows
# apart along Y, in the else arm
PLANES_IN_ARM_C = """\
static inline int ix(int p, int j, int i) { return (p * 30 + j) * 16 + i; }
double z[1920], out[30][16], w[30][16];
void planes(int n)
{
    for (int j = 0; j < n; j++)
        for (int i = 0; i < 16; i++) {
            if (w[j][i] > 0)
                out[j][i] = 1.0;
            else
                out[j][i] = z[ix(1, j, i)] + z[ix(3, j, i)];
        }
}
"""


def test_planes_read_in_an_else_arm_count_with_its_probability(capsys, tmp_path):
    taken = conds(tmp_path, "w[j][i] > 0", 0.75)
    # n = 10 rows of 16: 160 iterations, the else arm a quarter of them. w read 160 x 8 =
    # 1,280 B; out written in both arms 160 x 16 = 2,560 B; z's planes 1 and 3 hold 160
    # elements each (rows 30 and 90 apart from plane 0: never the same), each touched when
    # its iteration takes the else arm: 320 x 0.25 = 80 elements, 640 B (the arms' chances
    # added as if the two planes were one element: 320 elements, 2,560 B)
    assert compulsory_bytes(capsys, tmp_path, PLANES_IN_ARM_C, "planes.c", *taken,
                            "--set", "n=10") == pytest.approx(1_280 + 2_560 + 640)


# ------------------------------------- a coefficient over a triangle

TRIANGLE_COEF_C = """\
double out[17][18], inp[17][18], coef[18];
void tri(void)
{
    for (int i = 16; i >= 1; i--)
        for (int j = 1; j < i + 1; j++)
            out[i][j] = inp[i][j] * coef[j];
}
"""

TRIANGLE_COEF_F = """\
subroutine tri(out, inp, coef)
  real(8), intent(out) :: out(18, 17)
  real(8), intent(in) :: inp(18, 17), coef(18)
  integer :: i, j
  do i = 16, 1, -1
    do j = 1, i
      out(j, i) = inp(j, i) * coef(j)
    end do
  end do
end subroutine
"""


@pytest.mark.parametrize("text, name", [(TRIANGLE_COEF_C, "tri.c"), (TRIANGLE_COEF_F, "tri.f90")])
def test_a_coefficient_over_a_triangle_touches_its_widest_row(capsys, tmp_path, text, name):
    # i = 16 down to 1, j = 1 .. i: 16 + 15 + ... + 1 = 136 iterations. inp read once each:
    # 136 x 8 = 1,088 B; out written: 136 x 16 = 2,176 B; coef(j) over every row is the
    # union of 1..i, the widest row: coef(1..16), 16 x 8 = 128 B (the mean row, 8.5
    # elements, gave 68 B)
    assert compulsory_bytes(capsys, tmp_path, text, name) == \
        pytest.approx(1_088 + 2_176 + 128)


# ------------------------------------- offsets along a loop beyond the three axes

# a short stepped loop over the contiguous dimension inside the others: a component loop
COMPONENT_OFFSET_C = """\
double a[8][18], b[8][18];
void comp(void)
{
    for (int i = 2; i < 8; i++)
        for (int k = 2; k < 18; k += 2)
            b[i][k] = a[i][k] + a[i][k - 2] + a[i - 2][k];
}
"""

COMPONENT_OFFSET_F = """\
subroutine comp(a, b)
  real(8), intent(in) :: a(18, 8)
  real(8), intent(out) :: b(18, 8)
  integer :: i, k
  do i = 3, 8
    do k = 3, 18, 2
      b(k, i) = a(k, i) + a(k - 2, i) + a(k, i - 2)
    end do
  end do
end subroutine
"""


@pytest.mark.parametrize("text, name", [(COMPONENT_OFFSET_C, "comp.c"),
                                        (COMPONENT_OFFSET_F, "comp.f90")])
def test_offsets_along_a_component_loop_add_its_shifted_elements(capsys, tmp_path, text, name):
    # rows i = 2..7 (6), k = 2, 4, .., 16 (8 trips of step 2). b written 48 x 16 = 768 B.
    # a: rows 2..7 at k = 0, 2, .., 16 (a[i][k] and a[i][k-2], the same residue one step
    # apart): 6 x 9 = 54; rows 0 and 1 (a[i-2][k] only) at k = 2..16: 2 x 8 = 16; 70
    # elements, 560 B (the component loop's trips times the rows, 8 x 8, gave 512 B)
    assert compulsory_bytes(capsys, tmp_path, text, name) == pytest.approx(768 + 560)


# a stepped loop over the contiguous dimension outside the others: a sweep
SWEEP_OFFSET_C = """\
double a[4][6][24], b[4][6][24];
void sweep(void)
{
    for (int i = 14; i >= 4; i -= 2)
        for (int j = 0; j < 4; j++)
            for (int k = 0; k < 6; k++)
                b[j][k][i] = a[j][k][i] + a[j][k][i - 1] + a[j][k][i + 3];
}
"""


def test_offsets_along_a_stepped_sweep_count_each_residue(capsys, tmp_path):
    # i = 14, 12, .., 4: 6 trips; j = 0..3, k = 0..5: 24 rows. b written 144 x 16 = 2,304 B.
    # a[j][k][i]: the even i 4..14, 6 per row; a[j][k][i-1] and a[j][k][i+3]: the odd i
    # 3..13 and 7..17, together 3..17, 8 per row; 24 x 14 = 336 elements, 2,688 B (the
    # sweep's 6 trips alone gave 24 x 6 = 144 elements, 1,152 B)
    assert compulsory_bytes(capsys, tmp_path, SWEEP_OFFSET_C, "sweep.c") == \
        pytest.approx(2_304 + 2_688)


TILED_SWEEP_C = """\
#define MIN(a, b) ((a) < (b) ? (a) : (b))
double out[16][14][22], inp[16][14][22], red[16][14];
void tiled(void)
{
  for (int kk = 3; kk < 11; kk += 12) {
    for (int k = kk; k < MIN(kk + 12, 11); k++) {
      for (int l = 3; l < 13; l++) {
        red[l][k] = 0.0;
        for (int m = 3; m < 19; m++) {
          out[l][k][m] = inp[l][k][m] + inp[l + 2][k][m];
          red[l][k] = red[l][k] + inp[l][k][m];
        }
      }
    }
  }
}
"""


@pytest.mark.parametrize("tiled", [True, False])
def test_a_tiles_element_loop_outside_the_axis_loops_brings_new_elements(capsys, tmp_path,
                                                                        tiled):
    """k, the element loop of the tile kk, runs outside the loops of l and m: each k is a new
    row of every array. inp is read at l = 3..14 (12 planes) for k = 3..10 (8) and m = 3..18
    (16): 1,536 words, 8 B each, 12,288 B; out written at 10 * 8 * 16 = 1,280 words, 16 B
    each, 20,480 B; red read and written at 10 * 8 = 80 words, 1,280 B: 34,048 B, with the
    tile or without it (in the tile, k was once taken for a repetition of one row: 4,256 B)."""
    text = TILED_SWEEP_C if tiled else TILED_SWEEP_C.replace(
        "for (int kk = 3; kk < 11; kk += 12) {", "{").replace(
        "for (int k = kk; k < MIN(kk + 12, 11); k++)", "for (int k = 3; k < 11; k++)")
    assert compulsory_bytes(capsys, tmp_path, text, "tiled.c") == pytest.approx(34_048)


BEYOND_DOWNWARDS_F = """\
subroutine down(out, inp, red)
  double precision :: out(18, 16, 16), inp(18, 16, 16), red(16, 16)
  integer :: j, k, l
  do j = {j_loop}
    do k = 5, 12
      red(k, j) = 0.0d0
      do l = 5, 14
        out(l, k, j) = inp(l, k, j) + inp(l, k - 4, j) + inp(l - 2, k, j)
        red(k, j) = red(k, j) + inp(l, k, j)
      end do
    end do
  end do
end subroutine
"""


@pytest.mark.parametrize("j_loop", ["5, 12", "12, 5, -1"])
def test_a_loop_walking_down_one_at_a_time_counts_as_one_walking_up(capsys, tmp_path, j_loop):
    """k runs outside the axes of l and j (red(k, j) is summed over l), and inp sits at k and
    k - 4 along it and at l and l - 2: per j, l = 3..14 for k = 5..12 (96) and l = 5..14
    for k = 1..4 (40), 136 words; 8 planes: 1,088 words read, 8,704 B; out 10 * 8 * 8 = 640
    words written, 10,240 B; red 64 words read and written, 1,024 B: 19,968 B either way (a
    step of -1 was once taken for a stepped loop, which dropped the 40 words at k - 4:
    17,408 B)."""
    text = BEYOND_DOWNWARDS_F.replace("{j_loop}", j_loop)
    assert compulsory_bytes(capsys, tmp_path, text, "down.f90") == pytest.approx(19_968)


@pytest.mark.libreoffice
def test_editing_the_extent_in_libreoffice_recounts_the_far_offsets(capsys, tmp_path):
    """The workbook of FAR_IN_ARM_C written at n = 16, its n edited to 48 and recalculated:
    the positions each run of offsets reaches are formulas over n, so the count follows,
    384 + 768 + 188 = 1,340 B as worked out above (at n = 16: 448 B)."""
    from libreoffice import recalculate_edited, value_at

    taken = conds(tmp_path, "w[i] > 0", 0.25)
    source = tmp_path / "far.c"
    source.write_text(FAR_IN_ARM_C)
    book = tmp_path / "far.xlsx"
    assert main([str(source), "--json", "-", "-q", *MACHINE, *taken, "--set", "n=16",
                 "-o", str(book)]) == 0
    before = json.loads(capsys.readouterr().out)
    assert before["totals"]["traffic_blocks_gb"] * 1e9 == pytest.approx(448)
    values = recalculate_edited(book, {"n": 48}, tmp_path / "edit")
    got = float(value_at(values, before["totals"]["cells"]["traffic_blocks_gb"])) * 1e9
    assert got == pytest.approx(1_340)
