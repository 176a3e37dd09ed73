"""A tiled nest at a level smaller than a tile: each tile's lines, and the scratch tile read
again (:mod:`sat.model.hierarchy.tile_lines`).

The nest (``tests/test_scratch_tile_levels.py``'s): 12 x 12 doubles of ``a[14][14]`` in
3 x 3 tiles of 4 x 4, each tile copied into a scratch ``t[5][5]`` by one loop nest and
computed from it into ``c[14][14]`` by the next. 8 doubles to a 64-byte line (P = 8).

One tile of each array, its rows starting anywhere in a line (the tile loops set the start):
a row of c elements spans (c - 1 + P) / P lines; each further row adds MIN(c - 1 + P, L) / P
lines, L the array's declared row length (rows closer than a line share it):

- a: c = 4, L = 14: (11 + 3 x MIN(11, 14)) / 8 = 44 / 8 = 5.5 lines = 352 B; c the same;
- t: c = 4, L = 5: (11 + 3 x MIN(11, 5)) / 8 = 26 / 8 = 3.25 lines = 208 B.

One tile of every array: 912 B = 0.89 KiB. The scratch tile beside the largest other tile:
208 + 352 = 560 B = 0.547 KiB. Costs per word: a read 1, c written 2 (read for ownership,
written back), t read and written 2, and read again 1 when it does not stay.

- L1 of 0.25 or 0.5 KiB (holds neither): per tile a 352 + c 2 x 352 + t 3 x 208 = 1,680 B;
  9 tiles: 15,120 B. The write-back LRU simulation of this nest (n00169 of the generated
  sample, with 8-byte integers: ``truth 0 | cachesim 256:0:16384:0 512:0:16384:0``, the
  harness's flush subtracted) moves 15,552 B at 256 B (-2.8 %) and 12,544 B at 512 B, where
  the scratch tile's reuse is at the edge (its 560 B beside 512 B; +20.5 %).
- L1 of 0.75 KiB (holds the scratch beside a tile, not a whole tile): 9 x (352 + 704) = 9,504
  B, t once: 2 x 208 = 416 B: 9,920 B. Simulation at 768 B: 10,368 B (-4.3 %).
- L1 of 1 KiB holds a tile, not a band of 3 tiles (1.16 KiB): each band's rows once, 4,808 B
  (:class:`sat.model.hierarchy.tile_lines.TileBand`; the simulation at 1 KiB: 5,184 B).
"""

from __future__ import annotations

import math

import pytest
from test_scratch_tile_levels import (
    MACHINE_XML,
    SCRATCH_C,
    SCRATCH_F90,
    SOURCES,
    l1,
    scratch_tile_sources,
)

from machines import level_rows, run_with_machine


@pytest.mark.parametrize(("name", "text"), SOURCES)
@pytest.mark.parametrize("kib", ["0.25", "0.5"])
def test_a_level_holding_no_tile_moves_its_lines_and_reads_the_scratch_again(
        capsys, tmp_path, name, text, kib):
    """9 tiles x (352 + 2 x 352 + 3 x 208) B = 15,120 B; reuse between rows (pencils)."""
    level = l1(capsys, tmp_path, name, text, kib)
    assert level["layer_condition"] == "pencils"
    assert level["traffic_gb"] * 1e9 == pytest.approx(15_120)


@pytest.mark.parametrize(("name", "text"), SOURCES)
def test_a_level_holding_the_scratch_beside_a_tile_keeps_it(capsys, tmp_path, name, text):
    """0.547 KiB < 0.75 KiB < 0.89 KiB: 9 x 1,056 B + 416 B = 9,920 B."""
    level = l1(capsys, tmp_path, name, text, "0.75")
    assert level["traffic_gb"] * 1e9 == pytest.approx(9_920)


@pytest.mark.parametrize(("name", "text"), SOURCES)
def test_a_level_holding_a_tile_moves_each_band_s_rows_once(capsys, tmp_path, name, text):
    """The 1 KiB L1 holds the 0.89 KiB tile, not the 1.16 KiB band: the tiles along a row
    (ii, the inner tile loop, steps along X) share their edge lines, each of the 3 bands'
    rows moves once: a 3 x (12 - 1 + 8 + 3 x MIN(19, 14)) / 8 = 3 x 7.625 = 22.875 lines =
    1,464 B, c 2 x 1,464 = 2,928 B, t once 2 x 208 = 416 B: 4,808 B, reuse between pencils.
    The simulation at 1 KiB: 5,184 B (-7.3 %; the layer condition's 7,168 B was +38 %)."""
    level = l1(capsys, tmp_path, name, text, "1")
    assert level["layer_condition"] == "pencils"
    assert level["traffic_gb"] * 1e9 == pytest.approx(4_808)


# Tiles of 16 x 16 doubles: the tile's element loop is X and its rows Y (no component loop).
# 2 x 2 tiles of a[34][34]: a's row of 16 spans (15 + 8) / 8 = 2.875 lines, rows 34 apart
# share none: 16 x 2.875 = 46 lines = 2,944 B; c the same. t[17][17], read at ti and ti + 1:
# a row of 17, (16 + 8) = 24 elements of lines, rows 17 apart: (24 + 15 x 17) / 8 = 34.875
# lines = 2,232 B. Per tile 2,944 + 2 x 2,944 + 3 x 2,232 = 15,528 B; 4 tiles: 62,112 B. The
# write-back simulation of the same accesses (64-byte aligned arrays; a lackey trace of the
# loops piped into ``bench/validation/cachesim 512:0:16384:0``, a 2.5 MiB read flush
# subtracted): 62,976 B (-1.4 %). The old count (rows of whole lines, t moved twice): 40,960 B.
TILE16_C, TILE16_F90 = scratch_tile_sources(32, 16)


@pytest.mark.parametrize(("name", "text"), [("tile16.c", TILE16_C), ("tile16.f90", TILE16_F90)])
def test_tile_rows_start_anywhere_in_a_line(capsys, tmp_path, name, text):
    """4 tiles x 15,528 B = 62,112 B at a 0.5 KiB L1 (simulation 62,976 B)."""
    level = l1(capsys, tmp_path, name, text, "0.5")
    assert level["traffic_gb"] * 1e9 == pytest.approx(62_112)


def test_a_nest_without_a_tile_keeps_its_count(capsys, tmp_path):
    """The same product over the whole array, no tile loops and no scratch: unchanged by
    the tile rule (the layer condition's count, rows back to back: a's rows of 33 elements,
    34 apart: 32 x 34 x 8 B = 8,704 B; c's rows of 32 from element 1, 34 apart, start
    anywhere in a line and span 5 lines, at most their 34 elements
    (:func:`sat.model.exasat.lines.row_start`): written, 2 x 32 x 34 x 8 B = 17,408 B;
    26,112 B)."""
    text = """\
double a[34][34], c[34][34];
void run(void)
{
    for (int j = 0; j < 32; j++)
        for (int i = 0; i < 32; i++)
            c[j + 1][i + 1] = a[j + 1][i + 1] - a[j + 1][i + 2];
}
"""
    level = l1(capsys, tmp_path, "whole.c", text, "0.5")
    assert level["traffic_gb"] * 1e9 == pytest.approx(26_112)


@pytest.mark.libreoffice
def test_editing_the_l1_size_in_libreoffice_recomputes_the_tile_lines(capsys, tmp_path):
    """The workbook written with a 0.5 KiB L1 (15,120 B), its L1KB edited to 0.75 and
    recalculated: 9,920 B (the scratch tile kept), as the command line gives; LineBytes
    edited to 128 (16 doubles to a line): a (19 + 3 x MIN(19, 14)) / 16 = 3.8125 lines of
    128 B = 488 B, t (19 + 3 x 5) / 16 = 2.125 lines = 272 B; the tile 1,248 B and the
    scratch beside a 760 B exceed 0.5 KiB: 9 x (488 + 976 + 816) = 20,520 B."""
    from libreoffice import recalculate_edited, value_at

    book = tmp_path / "scratch.xlsx"
    (before,) = run_with_machine(capsys, tmp_path, "scratch.c", SCRATCH_C, MACHINE_XML,
                                 "--set", "L1KB=0.5", workbook=book)["loops"]
    assert before["levels"][0]["traffic_gb"] * 1e9 == pytest.approx(15_120)
    values = recalculate_edited(book, {"L1KB": 0.75}, tmp_path / "edit")
    (want,) = run_with_machine(capsys, tmp_path, "scratch.c", SCRATCH_C, MACHINE_XML,
                               "--set", "L1KB=0.75")["loops"]
    for level, expected in zip(before["levels"], want["levels"], strict=True):
        got = float(value_at(values, level["cells"]["traffic_gb"]))
        assert math.isclose(got, expected["traffic_gb"], rel_tol=1e-9), level["level"]
    assert float(value_at(values, before["levels"][0]["cells"]["traffic_gb"])) * 1e9 == \
        pytest.approx(9_920)
    lines = recalculate_edited(book, {"LineBytes": 128}, tmp_path / "lines")
    assert float(value_at(lines, before["levels"][0]["cells"]["traffic_gb"])) * 1e9 == \
        pytest.approx(20_520)


def test_fortran_and_c_agree(capsys, tmp_path):
    """The Fortran nest and the C nest of the same tiles give the same L1 bytes."""
    c = l1(capsys, tmp_path, "s.c", SCRATCH_C, "0.5")
    f = l1(capsys, tmp_path, "s.f90", SCRATCH_F90, "0.5")
    assert c["traffic_gb"] == pytest.approx(f["traffic_gb"])


# Bands of tiles: 6 x 6 tiles of 8 x 8 doubles over 48 x 48 elements of a[50][50] (from
# element 1 of each row), copied into t[9][9]. The inner tile loop ii steps along X: a band is
# the 6 tiles of one jj, 8 rows of 8 + (6 - 1) x 8 = 48 elements, 50 apart; each row starts
# anywhere in a line (P = 8): a band of a spans (48 - 1 + 8 + 7 x MIN(55, 50)) / 8 = 405 / 8 =
# 50.625 lines = 3,240 B, c the same, t's tile (15 + 7 x MIN(15, 9)) / 8 = 9.75 lines = 624 B:
# 7,104 B = 6.94 KiB. A tile: a and c 8 x 15 / 8 = 15 lines = 960 B each, t 624 B: 2.48 KiB.
# The whole arrays (2 x 20,000 + 648 B = 39.7 KiB) fit neither level below.
BAND_C, BAND_F90 = scratch_tile_sources(48, 8)
BAND_SOURCES = [("band.c", BAND_C), ("band.f90", BAND_F90)]


def l2(capsys, tmp_path, name: str, text: str, kib: str, *options: str) -> dict:
    return level_rows(capsys, tmp_path, name, text, MACHINE_XML, "--set", "L1KB=0.5",
                      "--set", f"L2KB={kib}", *options)["L2"]


@pytest.mark.parametrize(("name", "text"), BAND_SOURCES)
@pytest.mark.parametrize("kib", ["8", "16"])
def test_a_level_holding_a_band_moves_each_line_of_the_tiled_range_once(
        capsys, tmp_path, name, text, kib):
    """An 8 or 16 KiB L2 holds a band (6.94 KiB): the 48 rows of 48 elements once, the rows
    sharing their lines: a (47 + 8 + 47 x MIN(55, 50)) / 8 = 300.625 lines = 19,240 B, c
    written 2 x 19,240 = 38,480 B, t once 2 x 624 = 1,248 B: 58,968 B, reuse between planes.
    The write-back simulation of this nest (64-byte aligned arrays, at 8 and 16 KiB):
    58,944 B (+0.04 %); the layer condition's count (tile by tile) was 56,320 B (-4.5 %)."""
    level = l2(capsys, tmp_path, name, text, kib)
    assert level["layer_condition"] == "planes"
    assert level["traffic_gb"] * 1e9 == pytest.approx(58_968)


@pytest.mark.parametrize(("name", "text"), BAND_SOURCES)
def test_a_level_holding_a_tile_not_a_band_moves_each_band_once(capsys, tmp_path, name, text):
    """A 4 KiB L2 holds a tile (2.48 KiB), not a band (6.94 KiB): the tiles along a band's
    rows share their edge lines, nothing stays from band to band: 6 bands x 50.625 lines x
    64 B = 19,440 B of a, 38,880 B of c, t 1,248 B: 59,568 B, reuse between pencils. The
    simulation at 4 KiB: 64,704 B (-7.9 %)."""
    level = l2(capsys, tmp_path, name, text, "4")
    assert level["layer_condition"] == "pencils"
    assert level["traffic_gb"] * 1e9 == pytest.approx(59_568)


# The same tiles with the size read at run time: ``ts`` steps the tile loops and bounds the
# element loops, the scratch tile declared t(17, 17). At ts = 16, 3 x 3 tiles: a's rows of 16
# + 2 x 16 = 48, as above, 19,240 B, c 38,480 B; t's tile, read at ti and ti + 1, rows of 17,
# 17 apart: (16 + 8 + 15 x MIN(24, 17)) / 8 = 34.875 lines = 2,232 B, 2 x 2,232 = 4,464 B:
# 62,184 B at 16 KiB (the simulation: 62,144 B). At ts = 8: t's rows of 9, (16 + 7 x 16) / 8 =
# 16 lines = 1,024 B; a 4 KiB L2 holds a tile (960 + 960 + 1,024 B), not a band (3,240 + 3,240
# + 1,024 B): 19,440 + 38,880 + 2 x 1,024 = 60,368 B (the simulation: 65,536 B, -7.9 %).
RUNTIME_F90 = """\
subroutine run(a, c, ts)
  integer :: jj, ii, tj, ti, ts
  real(8) :: a(50, 50), c(50, 50), t(17, 17)
  do jj = 1, 48, ts
    do ii = 1, 48, ts
      do tj = 1, ts
        do ti = 1, ts
          t(ti, tj) = a(ti + ii, tj + jj)
        end do
      end do
      do tj = 1, ts
        do ti = 1, ts
          c(ti + ii, tj + jj) = t(ti, tj) - t(ti + 1, tj)
        end do
      end do
    end do
  end do
end subroutine
"""


def test_a_tile_size_given_at_run_time_sizes_the_band(capsys, tmp_path):
    """ts = 16 at 16 KiB: 62,184 B; ts = 8 at 4 KiB: 60,368 B (see above)."""
    level = l2(capsys, tmp_path, "rt.f90", RUNTIME_F90, "16", "--set", "ts=16")
    assert level["traffic_gb"] * 1e9 == pytest.approx(62_184)
    level = l2(capsys, tmp_path, "rt.f90", RUNTIME_F90, "4", "--set", "ts=8")
    assert level["traffic_gb"] * 1e9 == pytest.approx(60_368)


@pytest.mark.libreoffice
def test_editing_the_tile_size_and_the_l2_size_in_libreoffice_recomputes_the_band(
        capsys, tmp_path):
    """The workbook written with ts = 16 and a 16 KiB L2 (62,184 B), ts edited to 8 and L2KB
    to 4 and recalculated: 60,368 B, as the command line gives with those values."""
    from libreoffice import recalculate_edited, value_at

    book = tmp_path / "rt.xlsx"
    (before,) = run_with_machine(capsys, tmp_path, "rt.f90", RUNTIME_F90, MACHINE_XML,
                                 "--set", "L1KB=0.5", "--set", "L2KB=16", "--set", "ts=16",
                                 workbook=book)["loops"]
    assert before["levels"][1]["traffic_gb"] * 1e9 == pytest.approx(62_184)
    values = recalculate_edited(book, {"ts": 8, "L2KB": 4}, tmp_path / "edit")
    (want,) = run_with_machine(capsys, tmp_path, "rt.f90", RUNTIME_F90, MACHINE_XML,
                               "--set", "L1KB=0.5", "--set", "L2KB=4", "--set",
                               "ts=8")["loops"]
    for level, expected in zip(before["levels"], want["levels"], strict=True):
        got = float(value_at(values, level["cells"]["traffic_gb"]))
        assert math.isclose(got, expected["traffic_gb"], rel_tol=1e-9), level["level"]
    assert float(value_at(values, before["levels"][1]["cells"]["traffic_gb"])) * 1e9 == \
        pytest.approx(60_368)


# A tile loop around the innermost loop alone walks the elements in the loop's own order:
# the model counts it as the loop untiled. 1,024 doubles of b from a and a 4 further on: a
# reads elements 0 .. 1,027, 129 lines = 8,256 B; b written, 128 lines read and written back,
# 16,384 B: 24,640 B at either level (the whole 16 KiB of data streams through a 0.5 KiB L1
# and, once, through the 16 KiB L2: each line moves once). Counted tile by tile, as before
# (256 tiles of 4: a's 4 + 4 elements with its reach, 64 B; b's 4 read and written back, 64
# B): 32,768 B, +33 %. The write-back simulation of this loop gives the 24,640 B.
X_TILED_C = """\
#define MIN(a, b) ((a) < (b) ? (a) : (b))
double a[1032], b[1024];
void run(int ts)
{
    for (int ii = 0; ii < 1024; ii += ts)
        for (int i = ii; i < MIN(ii + ts, 1024); i++)
            b[i] = a[i] + a[i + 4];
}
"""
X_UNTILED_C = """\
double a[1032], b[1024];
void run(void)
{
    for (int i = 0; i < 1024; i++)
        b[i] = a[i] + a[i + 4];
}
"""


def test_a_tile_of_the_innermost_loop_alone_counts_as_the_loop_untiled(capsys, tmp_path):
    """24,640 B at both levels, tiled (ts = 4) or not; ts stays a parameter of the run."""
    tiled = run_with_machine(capsys, tmp_path, "xt.c", X_TILED_C, MACHINE_XML,
                             "--set", "L1KB=0.5", "--set", "ts=4")
    untiled = level_rows(capsys, tmp_path, "xu.c", X_UNTILED_C, MACHINE_XML,
                         "--set", "L1KB=0.5")
    (loop,) = tiled["loops"]
    assert not tiled["bounds_violations"]
    for row in loop["levels"]:
        assert row["traffic_gb"] * 1e9 == pytest.approx(24_640)
        assert row["traffic_gb"] == pytest.approx(untiled[row["level"]]["traffic_gb"])
    ts = next(p for p in tiled["parameters"] if p["name"] == "ts")
    assert (ts["value"], ts["source"]) == (4, "--set")


def test_a_tile_around_an_outer_loop_keeps_the_tiled_rules(capsys, tmp_path):
    """The element loop holds a loop (tiles of rows, each a whole row of X): the tile is
    kept, its block the tile (ts rows), not the whole range."""
    text = """\
#define MIN(a, b) ((a) < (b) ? (a) : (b))
double a[64][64], b[64][64];
void run(int ts)
{
    for (int jj = 0; jj < 64; jj += ts)
        for (int j = jj; j < MIN(jj + ts, 64); j++)
            for (int i = 0; i < 64; i++)
                b[j][i] = 2.0 * a[j][i];
}
"""
    (loop,) = run_with_machine(capsys, tmp_path, "rows.c", text, MACHINE_XML,
                               "--set", "ts=4")["loops"]
    assert loop["block_y"] == 4
