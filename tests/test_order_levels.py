"""Rows and loop orders at the cache levels: where a row starts in its cache line, and an
array the X loop does not subscript when Y and Z run in another order than ExaSAT's.

The machine (:func:`machines.two_level_machine`): one core, 64-byte lines, an L1 of 4 KiB
and an L2 of 256 KiB before memory. A read array moves 64 B per line, a written one 128 B
(the line read for ownership, then written back).

Every expected number is also what the write-back LRU simulation gives: the nest's element
accesses in source order (``L addr,size`` for a read, ``S addr,size`` for a write, each
array at its own 64-byte aligned base), then reads of 2.5 MiB of fresh lines, piped into
``bench/validation/cachesim 4096:0:262144:0`` (``gcc -O2 -o cachesim
bench/validation/cachesim.c``), each level's bytes being its misses plus write-backs, less
the flush's own misses, times 64 B (as ``bench/differential/measure.py`` counts them).

**Where a row starts.** Arrays start on a cache line. A row of ``x`` elements starting at
element ``s`` of its line (P elements to a line) touches ``FLOOR((s + x - 1) / P) + 1``
lines. When the source says where the X loop starts and how long the declared rows are, the
start moves by the row length from row to row: with ``g = GCD(row length, P)`` it takes
the values ``a, a + g, ...`` (``a`` = start mod g) equally often, and a row touches
``(FLOOR(x - 1 + a, g) + P) / P`` lines on average, never more than the row length (rows
one after the other share their end lines) and never fewer than a row that starts a line.
"""

from __future__ import annotations

import math

import pytest

from machines import level_bytes, run_with_machine, two_level_machine

MACHINE_XML = two_level_machine(256)

# Rows of 56 doubles (448 B, 7 lines: every row starts a line), the loop from element 4 to
# 51: bytes 32 .. 415 of the row, lines 0 .. 6, 7 lines a row (FLOOR(47 + 4, 8) + 8 = 56
# elements); a row taken to start a line would give 48 elements, 6 lines. 24 rows: 168 lines
# per array, 168 x 64 + 168 x 128 = 32,256 B at both levels (the simulation: 32,256 and
# 32,256); 27,648 B from a line start.
STARTED_C = """\
double out[32][56], inp[32][56];
void started(void)
{
    for (int i = 4; i < 28; i++)
        for (int j = 4; j < 52; j++)
            out[i][j] = 2.0 * inp[i][j];
}
"""

STARTED_F90 = """\
subroutine started(out, inp)
  integer :: i, j
  real(8) :: out(56, 32), inp(56, 32)
  do j = 5, 28
    do i = 5, 52
      out(i, j) = 2.0d0 * inp(i, j)
    end do
  end do
end subroutine
"""
STARTED_BYTES = 168 * 64 + 168 * 128

# Rows of 20 reals (80 B) from element 4, 12 reals each: GCD(20, 16) = 4, a = 0, FLOOR(11, 4)
# + 16 = 24 elements, at most the row length, 20: 1.25 lines a row. The rows follow each other
# (bytes [80 r + 16, 80 r + 64), r = 0 .. 11): the distinct lines are 15 per array,
# 15 x 64 + 15 x 128 = 2,880 B (the simulation: 2,880 and 2,880); a row taken to start a line
# would give 12 lines, 2,304 B.
SHORT_ROWS_F90 = """\
subroutine short(a, b)
  integer :: i, j
  real(4) :: a(20, 12), b(20, 12)
  do j = 1, 12
    do i = 5, 16
      b(i, j) = 2.0 * a(i, j)
    end do
  end do
end subroutine
"""

SHORT_ROWS_C = """\
float a[12][20], b[12][20];
void short_rows(void)
{
    for (int j = 0; j < 12; j++)
        for (int i = 4; i < 16; i++)
            b[j][i] = 2.0f * a[j][i];
}
"""
SHORT_ROWS_BYTES = 15 * 64 + 15 * 128

# X innermost, Y (the second axis) outermost, Z in between: coef(i) keeps its element through
# the whole row of X, a register; it moves its 8 doubles once, one line. inp and out: 16 x 8 x
# 4 doubles, 4,096 B, 64 lines each. 64 x 64 + 64 x 128 + 64 = 12,352 B at both levels (the
# simulation: 12,352 and 12,352). Taking coef as stepping along every axis gave it a row of X
# per row: 16 x 8 x 4 doubles, 4,096 B, 16,384 B in all (+33 %). The model still counts coef's
# element once per row of Z (4 x 8 doubles, 256 B for 64 B: 12,544 B, +1.6 %): the Z loop runs
# inside coef's own Y loop, so its element stays, but out of ExaSAT's order the model keeps
# no reuse along Z.
COEF_F90 = """\
subroutine scaled(out, inp, coef)
  integer :: i, j, k
  real(8) :: out(16, 8, 4), inp(16, 8, 4), coef(8)
  do i = 1, 8
    do j = 1, 4
      do k = 1, 16
        out(k, i, j) = coef(i) * inp(k, i, j)
      end do
    end do
  end do
end subroutine
"""

COEF_C = """\
double out[4][8][16], inp[4][8][16], coef[8];
void scaled(void)
{
    for (int i = 0; i < 8; i++)
        for (int j = 0; j < 4; j++)
            for (int k = 0; k < 16; k++)
                out[j][i][k] = coef[i] * inp[j][i][k];
}
"""
COEF_BYTES = 64 * 64 + 64 * 128 + 64


def _levels(capsys, tmp_path, name: str, text: str, *options: str) -> dict[str, float]:
    return level_bytes(capsys, tmp_path, name, text, MACHINE_XML, *options)


@pytest.mark.parametrize(("name", "text", "expected"), [
    ("started.c", STARTED_C, STARTED_BYTES), ("started.f90", STARTED_F90, STARTED_BYTES),
    ("short.f90", SHORT_ROWS_F90, SHORT_ROWS_BYTES), ("short.c", SHORT_ROWS_C, SHORT_ROWS_BYTES),
], ids=["line-rows-c", "line-rows-fortran", "short-rows-fortran", "short-rows-c"])
def test_a_row_counts_the_lines_from_where_it_starts(capsys, tmp_path, name, text, expected):
    levels = _levels(capsys, tmp_path, name, text)
    for level in ("L1", "L2"):
        assert math.isclose(levels[level], expected, rel_tol=1e-9), level


def test_a_row_whose_start_the_source_does_not_give_starts_a_line(capsys, tmp_path):
    """The X loop from a run-time ``lo`` (48 trips whatever it is): nothing says where the
    row starts; it is taken to start a line (6 lines a row of 48 doubles, as ExaSAT's
    rounding): 24 x 6 lines of each array, 144 x 64 + 144 x 128 = 27,648 B."""
    text = STARTED_C.replace("void started(void)", "void started(int lo)") \
        .replace("j = 4; j < 52", "j = lo; j < lo + 48")
    levels = _levels(capsys, tmp_path, "unknown.c", text)
    assert math.isclose(levels["L2"], 144 * 64 + 144 * 128, rel_tol=1e-9)


@pytest.mark.parametrize(("name", "text"), [("coef.f90", COEF_F90), ("coef.c", COEF_C)],
                         ids=["fortran", "c"])
def test_an_array_x_does_not_subscript_stays_along_x_in_any_order(capsys, tmp_path, name,
                                                                  text):
    levels = _levels(capsys, tmp_path, name, text)
    for level in ("L1", "L2"):
        assert math.isclose(levels[level], COEF_BYTES + 3 * 64, rel_tol=1e-9), level


@pytest.mark.libreoffice
def test_editing_the_line_size_in_libreoffice_recomputes_the_row_lines(capsys, tmp_path):
    """The workbook of the started rows with 64-byte lines (32,256 B at the L2), LineBytes
    edited to 128 and recalculated: as the command line gives with --set LineBytes=128. By
    hand: 16 doubles a line, rows of 56 (GCD(56, 16) = 8, start 4: a = 4), FLOOR(47 + 4, 8)
    + 16 = 64 elements, at most the row's 56: 3.5 lines of 128 B a row, 24 rows x 3.5 x
    (128 + 256) = 32,256 B (the simulation with 128-byte lines, ``cachesim -l 128``: 32,256 B)."""
    from libreoffice import recalculate_edited, value_at

    book = tmp_path / "started.xlsx"
    (before,) = run_with_machine(capsys, tmp_path, "started.c", STARTED_C, MACHINE_XML,
                                 workbook=book)["loops"]
    values = recalculate_edited(book, {"LineBytes": 128}, tmp_path / "edit")
    (want,) = run_with_machine(capsys, tmp_path, "started.c", STARTED_C, MACHINE_XML,
                               "--set", "LineBytes=128")["loops"]
    for level, expected in zip(before["levels"], want["levels"], strict=True):
        got = float(value_at(values, level["cells"]["traffic_gb"]))
        assert math.isclose(got, expected["traffic_gb"], rel_tol=1e-9), level["level"]
    assert before["levels"][1]["traffic_gb"] * 1e9 == pytest.approx(STARTED_BYTES)


# ---------------------------------------------------------------- walks across rows with arms
#
# X (the unit stride, 16 doubles: two lines a row) outermost, 256 rows of Y inside: one step
# of X touches 256 rows x 3 arrays = 768 lines, 48 KiB, more than the 4 KiB L1 holds, so at
# the L1 every access moves a line of its own (the line's next element is reached at the
# next step of X, after 768 other lines). 16 x 256 = 4,096 iterations. The branch is taken
# on a quarter of them (the conditions file says 0.25; the simulated trace takes it where
# (i + j) mod 4 = 0, so every line is touched at some step of X and the L2 moves every
# line once).
#
# masked: w is read at every iteration (a line, 64 B); inp (64 B) and out (128 B: read for
# ownership, written back) only when the arm runs: 4,096 x (64 + 0.25 x (64 + 128)) =
# 4,096 x 112 = 458,752 B at the L1 (the simulation: 4,096 + 1,024 + 2 x 1,024 = 7,168
# lines, 458,752 B); without the arm's chance 4,096 x 256 = 1,048,576 B (+129 %). The L2
# (256 KiB) holds a step of X: every line once, 512 lines of w and of inp, 512 x 2 of out,
# 2,048 lines, 131,072 B (the simulation: 131,072).
#
# either: the else arm reads b, both arms write out: out's row is touched at every
# iteration (0.25 + 0.75 = 1), inp's on a quarter, b's on three quarters: 4,096 x (64 + 128
# + 0.25 x 64 + 0.75 x 64) = 4,096 x 256 = 1,048,576 B at the L1 (the simulation: 4,096 +
# 2 x 4,096 + 1,024 + 3,072 = 16,384 lines, 1,048,576 B); the L2 moves 512 lines of w, inp
# and b and 512 x 2 of out: 2,560 lines, 163,840 B (the simulation: 163,840).
MASKED_C = """\
double out[256][16], inp[256][16], w[256][16];
void masked(void)
{
    for (int j = 0; j < 16; j++)
        for (int i = 0; i < 256; i++)
            if (w[i][j] > 0.0)
                out[i][j] = 2.0 * inp[i][j];
}
"""

MASKED_F90 = """\
subroutine masked(out, inp, w)
  integer :: i, j
  real(8) :: out(16, 256), inp(16, 256), w(16, 256)
  do j = 1, 16
    do i = 1, 256
      if (w(j, i) > 0.0d0) then
        out(j, i) = 2.0d0 * inp(j, i)
      end if
    end do
  end do
end subroutine
"""

EITHER_C = """\
double out[256][16], inp[256][16], b[256][16], w[256][16];
void either(void)
{
    for (int j = 0; j < 16; j++)
        for (int i = 0; i < 256; i++)
            if (w[i][j] > 0.0)
                out[i][j] = 2.0 * inp[i][j];
            else
                out[i][j] = b[i][j];
}
"""

MASKED_BYTES = {"L1": 4096 * (64 + 0.25 * (64 + 128)), "L2": 2048 * 64}
EITHER_BYTES = {"L1": 4096 * (64 + 128 + 0.25 * 64 + 0.75 * 64), "L2": 2560 * 64}


def _conds(tmp_path) -> list[str]:
    """The branch taken on a quarter of the iterations, in either language's spelling."""
    path = tmp_path / "conds.xml"
    path.write_text('<conds>\n<prop key="w[i][j] > 0.0" val="0.25" />\n'
                    '<prop key="w(j, i) > 0.0d0" val="0.25" />\n</conds>\n')
    return ["--conds", str(path)]


@pytest.mark.parametrize(("name", "text", "expected"), [
    ("masked.c", MASKED_C, MASKED_BYTES), ("masked.f90", MASKED_F90, MASKED_BYTES),
    ("either.c", EITHER_C, EITHER_BYTES),
], ids=["if-c", "if-fortran", "if-else-c"])
def test_a_walk_across_rows_moves_an_arms_lines_with_its_chance(capsys, tmp_path, name, text,
                                                                expected):
    levels = _levels(capsys, tmp_path, name, text, *_conds(tmp_path))
    for level in ("L1", "L2"):
        assert math.isclose(levels[level], expected[level], rel_tol=1e-9), level


def test_an_arm_taken_always_moves_every_line(capsys, tmp_path):
    """The same walk with the branch taken at every iteration (1.0): a line per access of
    each array, 4,096 x (64 + 64 + 128) = 1,048,576 B at the L1, as without the branch."""
    path = tmp_path / "always.xml"
    path.write_text('<conds>\n<prop key="w[i][j] > 0.0" val="1.0" />\n</conds>\n')
    levels = _levels(capsys, tmp_path, "masked.c", MASKED_C, "--conds", str(path))
    assert math.isclose(levels["L1"], 4096 * 256, rel_tol=1e-9)


@pytest.mark.libreoffice
def test_editing_the_l2_in_libreoffice_moves_the_arms_lines_there_too(capsys, tmp_path):
    """The masked walk's workbook with the L2 edited from 256 KiB to 16 KiB and
    recalculated: as the command line gives with --set L2KB=16. A step of X (48 KiB) no
    longer stays in the L2 either, so it moves what the L1 moves, 458,752 B (the simulation
    ``cachesim 4096:0:16384:0``: 458,752 at both levels)."""
    from libreoffice import recalculate_edited, value_at

    book = tmp_path / "masked.xlsx"
    conds = _conds(tmp_path)
    (before,) = run_with_machine(capsys, tmp_path, "masked.c", MASKED_C, MACHINE_XML, *conds,
                                 workbook=book)["loops"]
    values = recalculate_edited(book, {"L2KB": 16}, tmp_path / "edit")
    (want,) = run_with_machine(capsys, tmp_path, "masked.c", MASKED_C, MACHINE_XML, *conds,
                               "--set", "L2KB=16")["loops"]
    for level, expected in zip(before["levels"], want["levels"], strict=True):
        got = float(value_at(values, level["cells"]["traffic_gb"]))
        assert math.isclose(got, expected["traffic_gb"], rel_tol=1e-9), level["level"]
    assert want["levels"][1]["traffic_gb"] * 1e9 == pytest.approx(MASKED_BYTES["L1"])


# ---------------------------------------------------------------- row windows per reference
#
# X outermost, offsets j-3, j-1, j along the walk of j (125 iterations a walk, 64 walks,
# 8,000 iterations). Without reuse each iteration moves a's 3 lines and b's line read and
# written back: 5 lines, 320 B. a(j-1) finds the line a(j) touched one iteration before:
# since then b's line and a(j-3)'s (a's 3 rows and b's 1 of one iteration, less the reused
# row: 3 lines, 192 B); a(j-3) the line a(j-1) touched two iterations before: a's rows j-4 ..
# j over two iterations and b's 2, less the reused row: 6 lines, 384 B. Neither finds one
# at the first iterations of a walk (1 for a(j-1), 2 for a(j-3)), where the row was last
# touched by the previous walk.
# 4 KiB L1, both fit: 64 x 64 x (125 x 5 - 124 - 123) = 64 x 64 x 378 = 1,548,288 B.
# 256 B L1 (L1KB = 0.25): only the first fits: 64 x 64 x (625 - 124) = 2,052,096 B.
# (One window for the nest, all or nothing, gave 1,548,288 B at 4 KiB only if its 2
# iterations x 4 lines fit, and 2,560,000 B otherwise.)
# L2 holds everything: a 128 x 64 x 8 = 65,536 B, b 125 x 64 x 16 = 128,000 B: 193,536 B.
# The simulation (trace ``L a+512(j+d)+8i,8`` for d = -3, -1, 0, ``S b+512j+8i,8``, then
# the flush, ``cachesim 4096:0:262144:0`` and ``256:0:262144:0``): 1,548,288 and 193,536 B;
# 2,052,096 and 193,536 B.
GAPS_C = """\
double a[128][64], b[128][64];
void gaps(void)
{
    for (int i = 0; i < 64; i++)
        for (int j = 3; j < 128; j++)
            b[j][i] = a[j - 3][i] + a[j - 1][i] + a[j][i];
}
"""

# A walk along Z (k innermost, inside j, inside i the contiguous axis): a(k-1) finds the
# line a(k+1) touched two iterations before (a's rows k-1 .. k+2 and b's 2 over two
# iterations, less the reused one: 5 lines, 320 B), on 12 of the 14 iterations of each of
# the 64 x 8 = 512 walks. 7,168 iterations of 4 lines (a 2, b 2): 1,835,008 B without
# reuse; with the 4 KiB L1, 1,835,008 - 512 x 12 x 64 = 1,441,792 B. A 128 B L1 (L1KB =
# 0.125) holds no window: 1,835,008 B. L2: a 65,536 B, b 14 x 8 x 64 x 16 = 114,688 B:
# 180,224 B. The simulation (``cachesim 4096:0:262144:0``, ``128:0:262144:0``): 1,441,792
# and 180,224 B; 1,835,008 and 180,224 B.
Z_WALK_C = """\
double a[16][8][64], b[16][8][64];
void zwalk(void)
{
    for (int i = 0; i < 64; i++)
        for (int j = 0; j < 8; j++)
            for (int k = 1; k < 15; k++)
                b[k][j][i] = a[k - 1][j][i] + a[k + 1][j][i];
}
"""

Z_WALK_F90 = """\
subroutine zwalk(a, b)
  integer :: i, j, k
  real(8) :: a(64, 8, 16), b(64, 8, 16)
  do i = 1, 64
    do j = 1, 8
      do k = 2, 15
        b(i, j, k) = a(i, j, k - 1) + a(i, j, k + 1)
      end do
    end do
  end do
end subroutine
"""


@pytest.mark.parametrize(("options", "saved", "simulated"), [
    ((), 124 + 123, 1548288), (("--set", "L1KB=0.25"), 124, 2052096),
], ids=["both-windows", "the-shorter-window"])
def test_each_reference_keeps_its_line_while_its_own_window_fits(capsys, tmp_path, options,
                                                                 saved, simulated):
    levels = _levels(capsys, tmp_path, "gaps.c", GAPS_C, *options)
    assert math.isclose(levels["L1"], 64 * 64 * (125 * 5 - saved), rel_tol=1e-9)
    assert math.isclose(levels["L1"], simulated, rel_tol=1e-9)
    assert math.isclose(levels["L2"], 65536 + 128000, rel_tol=1e-9)


@pytest.mark.parametrize(("name", "text"), [("zwalk.c", Z_WALK_C), ("zwalk.f90", Z_WALK_F90)],
                         ids=["c", "fortran"])
def test_a_walk_along_z_reuses_the_last_planes_lines(capsys, tmp_path, name, text):
    levels = _levels(capsys, tmp_path, name, text)
    assert math.isclose(levels["L1"], 1835008 - 512 * 12 * 64, rel_tol=1e-9)
    assert math.isclose(levels["L2"], 65536 + 114688, rel_tol=1e-9)
    small = _levels(capsys, tmp_path, name, text, "--set", "L1KB=0.125")
    assert math.isclose(small["L1"], 7168 * 4 * 64, rel_tol=1e-9)
