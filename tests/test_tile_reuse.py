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

from machines import run_with_machine


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
