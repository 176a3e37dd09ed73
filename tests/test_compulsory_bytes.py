"""The compulsory traffic (the Loops sheet's "reuse between blocks", the JSON's
``traffic_blocks_gb``): every element a nest touches, once, reads and writes at their costs
(docs/nest-forms.md). Each test works the bytes out by hand."""

import json
from pathlib import Path

import pytest

from sat.cli import main

# costs per word: 8 B a read, 16 B a read-and-write or a write (read for ownership, written
# back); 8-byte words, 64-byte lines
MACHINE = ["--set", "StreamingWrites=0", "--set", "NTAHints=0", "--set", "ReadCost=8",
           "--set", "ReadWriteCost=16", "--set", "WriteCost=16", "--set", "WordBytes=8",
           "--set", "LineBytes=64"]


def run(capsys, tmp_path: Path, text: str, name: str, *options: str) -> dict:
    path = tmp_path / name
    path.write_text(text)
    assert main([str(path), "--json", "-", "-q", *MACHINE, *options]) == 0
    (loop,) = json.loads(capsys.readouterr().out)["loops"]
    return loop


# ------------------------------------------------------------ a scratch tile

TILED_F = """\
subroutine tiled(a, c)
  real(8), intent(in) :: a(16,16)
  real(8), intent(out) :: c(16,16)
  real(8) :: t(4,4)
  integer :: ii, jj, ti, tj
  do jj = 0, 12, 4
    do ii = 0, 12, 4
      do tj = 1, 4
        do ti = 1, 4
          t(ti,tj) = a(ti+ii, tj+jj)
        end do
      end do
      do tj = 1, 4
        do ti = 1, 4
          c(ti+ii, tj+jj) = 2.0d0 * t(ti,tj)
        end do
      end do
    end do
  end do
end subroutine
"""

TILED_C = """\
double a[16][16], c[16][16];
void tiled(void)
{
    double t[4][4];
    for (int jj = 0; jj < 16; jj += 4)
        for (int ii = 0; ii < 16; ii += 4) {
            for (int tj = 0; tj < 4; tj++)
                for (int ti = 0; ti < 4; ti++)
                    t[tj][ti] = a[tj + jj][ti + ii];
            for (int tj = 0; tj < 4; tj++)
                for (int ti = 0; ti < 4; ti++)
                    c[tj + jj][ti + ii] = 2.0 * t[tj][ti];
        }
}
"""


def test_a_scratch_tile_counts_once_not_once_per_tile(capsys, tmp_path):
    for text, name in ((TILED_F, "tiled.f90"), (TILED_C, "tiled.c")):
        loop = run(capsys, tmp_path, text, name)
        # a read once: 256 x 8 B = 2,048; c written once: 256 x 16 B = 4,096; the scratch
        # tile t (written, then read) the same 16 elements for each of the 16 tiles:
        # 16 x 16 B = 256 (it was 16 tiles x 256 = 4,096)
        assert loop["traffic_blocks_gb"] * 1e9 == pytest.approx(2_048 + 4_096 + 256), name
        # reuse between planes (the block fits): a and c a 64-byte line per row of each
        # tile, 16 tiles x 4 rows x (64 + 2 x 64) = 12,288; t written first stays in cache
        # from one tile to the next, moved once: 256
        assert loop["traffic_planes_gb"] * 1e9 == pytest.approx(12_288 + 256), name


# ------------------------------------------------------------ gathers and scatters

GATHER_F = """\
subroutine gather(idx, x, v, y)
  integer(4), intent(in) :: idx(1000)
  real(8), intent(in) :: x(4000), v(1000)
  real(8), intent(inout) :: y(1000)
  integer :: i
  do i = 1, 1000
    y(i) = y(i) + v(i) * x(idx(i))
  end do
end subroutine
"""

SCATTER_C = """\
int idx[1000];
double x[2000], v[1000];
void scatter(void)
{
    for (int i = 0; i < 1000; i++)
        x[idx[i]] = x[idx[i]] + 3.0 * v[i];
}
"""


def test_a_gather_counts_the_distinct_elements_its_indices_pick(capsys, tmp_path):
    loop = run(capsys, tmp_path, GATHER_F, "gather.f90")
    # idx 1,000 x 4 B (a read costs 8 B a word, half a word each) = 4,000; v 8,000; y read
    # and written 1,000 x 16 B = 16,000; x: 1,000 uniform draws over 4,000 elements pick
    # 4000 x (1 - (1 - 1/4000)^1000) = 884.894 distinct elements, 8 B each = 7,079.15
    # (it was 1,000 elements, one per reference, as a stream)
    assert loop["traffic_blocks_gb"] * 1e9 == pytest.approx(
        4_000 + 8_000 + 16_000 + 884.894232518651 * 8)


def test_a_scatter_counts_its_distinct_elements_read_and_written(capsys, tmp_path):
    loop = run(capsys, tmp_path, SCATTER_C, "scatter.c")
    # idx 4,000; v 8,000; x read and written through the index, 16 B per element:
    # 2000 x (1 - (1 - 1/2000)^1000) = 787.090 distinct elements = 12,593.4 (it was left
    # out: the scattered array has no loop-variable subscript)
    assert loop["traffic_blocks_gb"] * 1e9 == pytest.approx(
        4_000 + 8_000 + 787.09035431981 * 16)


# ------------------------------------------------------------ a reduction, the loop outside

REDUCE_C = """\
double out[24][48], inp[24][48], red[48];
void reduce(void)
{
    for (int i = 0; i < 48; i++)
        for (int j = 0; j < 24; j++) {
            out[j][i] = inp[j][i];
            red[i] = red[i] + 3.0 * inp[j][i];
        }
}
"""

REDUCE_F = """\
subroutine reduce(out, inp, red)
  real(8), intent(out) :: out(48,24)
  real(8), intent(in) :: inp(48,24)
  real(8), intent(inout) :: red(48)
  integer :: i, j
  do i = 1, 48
    do j = 1, 24
      out(i,j) = inp(i,j)
      red(i) = red(i) + 3.0d0 * inp(i,j)
    end do
  end do
end subroutine
"""


def test_an_array_reduced_into_counts_its_own_elements_in_any_loop_order(capsys, tmp_path):
    for text, name in ((REDUCE_C, "reduce.c"), (REDUCE_F, "reduce.f90")):
        loop = run(capsys, tmp_path, text, name)
        # out written 48 x 24 x 16 B = 18,432; inp read 1,152 x 8 B = 9,216; red read and
        # written, its 48 elements only: 48 x 16 B = 768 (it was charged the 1,152 points
        # of the nest, 18,432, as its loop i is not the innermost)
        assert loop["traffic_blocks_gb"] * 1e9 == pytest.approx(18_432 + 9_216 + 768), name


# ------------------------------------------------------------ steps

STEP_F = """\
subroutine step(out, inp, coef)
  integer(4), intent(out) :: out(1500)
  integer(4), intent(in) :: inp(1500), coef(1500)
  integer :: i
  do i = 1, 1500, 3
    out(i) = 2 * inp(i) - coef(i) * inp(i)
  end do
end subroutine
"""

STEP_C = """\
double out[3000], inp[3000];
void step(void)
{
    for (int i = 0; i < 3000; i += 2)
        out[i] = inp[i] + inp[i + 1];
}
"""


def test_a_loop_with_a_step_counts_the_elements_it_touches(capsys, tmp_path):
    loop = run(capsys, tmp_path, STEP_F, "step.f90", "--set", "SetupIterations=1")
    # 500 iterations touch every third element: inp and coef 500 x 4 B (half a word of
    # 8 B) = 2,000 each; out written 500 x 8 B = 4,000 (it was the whole range: 1,500 each)
    assert loop["traffic_blocks_gb"] * 1e9 == pytest.approx(2_000 + 2_000 + 4_000)
    loop = run(capsys, tmp_path, STEP_C, "step.c")
    # 1,500 iterations: inp[i] and inp[i+1] touch all 3,000 elements of inp, 8 B each =
    # 24,000; out every second one, 1,500 x 16 B = 24,000
    assert loop["traffic_blocks_gb"] * 1e9 == pytest.approx(24_000 + 24_000)


# ------------------------------------------------------------ halos

HALO_C = """\
double a[40][40], b[40][40];
void halo(void)
{
    for (int j = 4; j < 40; j++)
        for (int i = 4; i < 40; i++)
            b[j][i] = a[j - 4][i] + a[j][i - 4];
}
"""

STAR_F = """\
subroutine star(a, b)
  real(8), intent(in) :: a(34,34)
  real(8), intent(out) :: b(34,34)
  integer :: i, j
  do j = 2, 33
    do i = 2, 33
      b(i,j) = a(i-1,j) + a(i+1,j) + a(i,j-1) + a(i,j+1)
    end do
  end do
end subroutine
"""


def test_a_stencil_counts_the_union_of_its_shifted_grids(capsys, tmp_path):
    loop = run(capsys, tmp_path, HALO_C, "halo.c")
    # 36 x 36 points; a at (j-4, i) covers rows 0..35, columns 4..39, a at (j, i-4) rows
    # 4..39, columns 0..35: 2 x 1,296 - 32 x 32 shared = 1,568 elements x 8 B = 12,544
    # (it was 1,296, the halo of the one-sided offsets left out); b 1,296 x 16 B = 20,736
    assert loop["traffic_blocks_gb"] * 1e9 == pytest.approx(12_544 + 20_736)
    loop = run(capsys, tmp_path, STAR_F, "star.f90")
    # 32 x 32 points; a's star covers rows 2..33 from column 1 to 34 (32 x 34 = 1,088) and
    # rows 1 and 34 over columns 2..33 (2 x 32 = 64): 1,152 elements x 8 B = 9,216 (the
    # four corners left out); b 1,024 x 16 B = 16,384
    assert loop["traffic_blocks_gb"] * 1e9 == pytest.approx(9_216 + 16_384)


# ------------------------------------------------------------ references inside if/else arms

ARM_F = """\
subroutine arm(w, a, b)
  real(8), intent(in) :: w(100), a(104)
  real(8), intent(out) :: b(100)
  integer :: i
  do i = 1, 100
    b(i) = 0.0d0
    if (w(i) > 0) then
      b(i) = a(i+1) + a(i+3)
    end if
  end do
end subroutine
"""

ARM_C = """\
double w[8][16], a[8][17], c[8], b[8][16];
void arm(void)
{
    for (int j = 0; j < 8; j++)
        for (int i = 0; i < 16; i++) {
            b[j][i] = 0.0;
            if (w[j][i] > 0)
                b[j][i] = a[j][i + 1] * c[j];
        }
}
"""

ELSE_F = """\
subroutine arms(w, a, b)
  real(8), intent(in) :: w(100), a(104)
  real(8), intent(out) :: b(100)
  integer :: i
  do i = 1, 100
    if (w(i) > 0) then
      b(i) = a(i+1)
    else
      b(i) = a(i+3)
    end if
  end do
end subroutine
"""


def conds(tmp_path: Path, condition: str, p: float) -> str:
    path = tmp_path / "conds.xml"
    path.write_text(f'<conds>\n<prop key="{condition}" val="{p}" />\n</conds>\n')
    return str(path)


SMALL = ["--set", "SetupIterations=1"]  # model these small nests (not setup work)


def test_an_arm_touches_each_element_with_its_probability(capsys, tmp_path):
    loop = run(capsys, tmp_path, ARM_F, "arm.f90", "--conds", conds(tmp_path, "w(i) > 0", 0.5),
               *SMALL)
    # w read: 100 x 8 B = 800; b written every iteration: 100 x 16 B = 1,600; a(i+1) and
    # a(i+3) only in the arm (p = 0.5): a(2), a(3), a(102), a(103) reached from one iteration
    # each, 4 x 0.5 = 2 elements; a(4) .. a(101) from two, 98 x (1 - 0.5^2) = 73.5 elements;
    # 75.5 x 8 B = 604 (it was all 102 elements, 816 B)
    assert loop["traffic_blocks_gb"] * 1e9 == pytest.approx(800 + 1_600 + 604)


def test_an_arm_in_c_and_a_coefficient_reached_along_the_row(capsys, tmp_path):
    loop = run(capsys, tmp_path, ARM_C, "arm.c", "--conds",
               conds(tmp_path, "w[j][i] > 0", 0.5), *SMALL)
    # w read: 8 x 16 x 8 B = 1,024; b written: 128 x 16 B = 2,048; a[j][i+1] in the arm:
    # 128 elements each reached once, 64 expected, 512 B; c[j] in the arm, reached from the
    # 16 iterations of its row: 8 x (1 - 0.5^16) = 7.9998779296875 elements, x 8 B
    assert loop["traffic_blocks_gb"] * 1e9 == pytest.approx(
        1_024 + 2_048 + 512 + 8 * (1 - 0.5 ** 16) * 8)


def test_the_else_arm_takes_what_the_if_leaves(capsys, tmp_path):
    loop = run(capsys, tmp_path, ELSE_F, "arms.f90", "--conds",
               conds(tmp_path, "w(i) > 0", 0.25), *SMALL)
    # w: 800 B; b written in both arms, 0.25 + 0.75: every iteration, 1,600 B; a(i+1) with
    # 0.25, a(i+3) with 0.75: a(2), a(3) 2 x 0.25, a(102), a(103) 2 x 0.75, a(4) .. a(101)
    # 98 x (1 - 0.75 x 0.25) = 79.625: 81.625 elements x 8 B = 653
    assert loop["traffic_blocks_gb"] * 1e9 == pytest.approx(800 + 1_600 + 653)


def test_an_arm_taken_always_counts_every_element(capsys, tmp_path):
    loop = run(capsys, tmp_path, ARM_F, "arm.f90", "--conds", conds(tmp_path, "w(i) > 0", 1),
               *SMALL)
    # probability 1: a(2) .. a(103), 102 x 8 B = 816, as for an unconditional reference
    assert loop["traffic_blocks_gb"] * 1e9 == pytest.approx(800 + 1_600 + 816)
