"""A scratch tile at the cache levels: the short element loop of a tile is a run of
neighbouring elements, not a cache line per element.

The nest (as the generated ``scratch-tile`` class writes it): 12 x 12 elements of ``a``
in 3 x 3 tiles of 4 x 4, each tile copied into a scratch ``t`` and computed from it into
``c``. The element loop ``ti`` (4 trips over the contiguous axis) is a component loop:
the tile's rows are X (4 cells), ``ti`` gives each cell 4 copies, the tile loops are 9
sweeps. Doubles: 8 to a 64-byte line; ``a`` read (cost 1), ``c`` written and ``t`` read
and written (cost 2: the line is read, then written back).

The machine is the two-level test machine (:mod:`machines`) with its L1 set by
``--set L1KB=...``.

A cell's 4 copies of an array are a run of 4 neighbouring doubles: it spans at most
ceil(3 / 8) + 1 = 2 lines, so the working set per cell is a, c, t: 3 x 2 lines = 6 lines =
0.375 KiB (it was 3 x 4 copies x 1 line = 0.75 KiB).

A level smaller than one tile of every array moves each tile's lines
(:mod:`sat.model.hierarchy.tile_lines`, worked out in ``tests/test_tile_reuse.py``): a 912 B
tile (a 352 B, c 352 B, t 208 B), 1,680 B per tile with the scratch tile read again, 15,120 B
at a 0.5 KiB or 0.25 KiB L1.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from machines import level_rows, run_with_machine, two_level_machine

MACHINE_XML = two_level_machine(32)

def scratch_tile_sources(n: int, tile: int) -> tuple[str, str]:
    """(C, Fortran) of a tiled product through a scratch copy: an n x n grid inside arrays of
    n + 2, tiles of tile x tile copied into t of (tile + 1)^2 and read at ti and ti + 1."""
    m, w = n + 2, tile + 1
    c_text = f"""\
double a[{m}][{m}], c[{m}][{m}], t[{w}][{w}];
void run(void)
{{
    for (int jj = 0; jj < {n}; jj += {tile}) {{
        for (int ii = 0; ii < {n}; ii += {tile}) {{
            for (int tj = 0; tj < {tile}; tj++)
                for (int ti = 0; ti < {tile}; ti++)
                    t[tj][ti] = a[tj + jj + 1][ti + ii + 1];
            for (int tj = 0; tj < {tile}; tj++)
                for (int ti = 0; ti < {tile}; ti++)
                    c[tj + jj + 1][ti + ii + 1] = t[tj][ti] - t[tj][ti + 1];
        }}
    }}
}}
"""
    f_text = f"""\
subroutine run(a, c)
  integer :: jj, ii, tj, ti
  real(8) :: a({m}, {m}), c({m}, {m}), t({w}, {w})
  do jj = 1, {n}, {tile}
    do ii = 1, {n}, {tile}
      do tj = 1, {tile}
        do ti = 1, {tile}
          t(ti, tj) = a(ti + ii, tj + jj)
        end do
      end do
      do tj = 1, {tile}
        do ti = 1, {tile}
          c(ti + ii, tj + jj) = t(ti, tj) - t(ti + 1, tj)
        end do
      end do
    end do
  end do
end subroutine
"""
    return c_text, f_text


SCRATCH_C, SCRATCH_F90 = scratch_tile_sources(12, 4)
SOURCES = [("scratch.c", SCRATCH_C), ("scratch.f90", SCRATCH_F90)]


def l1(capsys, tmp_path: Path, name: str, text: str, kib: str) -> dict:
    return level_rows(capsys, tmp_path, name, text, MACHINE_XML, "--set", f"L1KB={kib}")["L1"]


@pytest.mark.parametrize(("name", "text"), SOURCES)
def test_a_tile_row_is_a_run_of_neighbours_in_the_working_set(capsys, tmp_path, name, text):
    """WS/cell 3 arrays x 2 lines x 64 B = 384 B = 0.375 KiB; the 0.5 KiB L1 holds no tile
    (912 B): the tiles' lines, 9 x 1,680 B = 15,120 B, reuse between pencils (rows)."""
    level = l1(capsys, tmp_path, name, text, "0.5")
    assert level["ws_cell_kb"] == pytest.approx(0.375)
    assert level["ws_pencil_kb"] == pytest.approx(0.375)
    assert level["layer_condition"] == "pencils"
    assert level["traffic_gb"] * 1e9 == pytest.approx(15_120)


def test_a_run_of_a_whole_line_spans_two(capsys, tmp_path):
    """Tiles of 8 doubles (``ti`` 8 trips, still a component loop): a run of 8 spans
    ceil(7 / 8) + 1 = 2 lines, the working set stays 6 lines = 0.375 KiB. A tile row of 8
    starting anywhere spans (8 - 1 + 8) / 8 = 1.875 lines; rows 26 apart share none: a and c
    8 x 1.875 = 15 lines (960 B); t's rows 9 apart: (15 + 7 x 9) / 8 = 9.75 lines (624 B).
    9 tiles x (960 + 2 x 960 + 3 x 624) = 42,768 B; the write-back simulation of this nest
    (n01857 of the generated sample, ``truth K | cachesim 512:0:16384:0``) 43,200 B."""
    text, _ = scratch_tile_sources(24, 8)
    level = l1(capsys, tmp_path, "scratch8.c", text, "0.25")
    assert level["ws_cell_kb"] == pytest.approx(0.375)
    assert level["traffic_gb"] * 1e9 == pytest.approx(42_768)


# A level that holds a band of tiles (the 3 tiles of the inner tile loop ``ii``, every array)
# keeps the lines neighbouring tiles share: each line of the tiled range moves once, the scratch
# tile once in all (:class:`sat.model.hierarchy.tile_lines.TileBand`). The tiled range: rows of
# 4 + (3 - 1) x 4 = 12 elements (the ii tiles start 4 apart), 12 rows (jj likewise), 14 apart,
# each row starting anywhere in a line: (12 - 1 + 8 + 11 x MIN(19, 14)) / 8 = 173 / 8 = 21.625
# lines. A band: 4 rows, (19 + 3 x 14) / 8 = 7.625 lines = 488 B of a and of c, t's tile 208 B:
# 1,184 B = 1.16 KiB. Moved: a read 21.625 x 64 = 1,384 B; c written (read for ownership,
# written back) 2 x 1,384 = 2,768 B; t read and written 2 x 208 = 416 B: 4,568 B. The layer
# condition's count (every tile's footprint): 9 tiles x (a: X of 4 rounded to a line of 8, x 4
# copies x 8 B = 256 B; c twice that, 512 B) + t once, 16 x 16 B = 256 B: 7,168 B. The
# write-back LRU simulation of this nest with 8-byte integers (n00169 of the generated sample,
# ``truth 0 | cachesim 2048:0:16384:0``) moves 4,608 B at 2 KiB and at 16 KiB (4,568 B is
# -0.9 %; 7,168 B was +56 %), 5,184 B at 1 KiB, which holds a tile but not a band.


def l2(capsys, tmp_path: Path, name: str, text: str, kib: str) -> dict:
    return level_rows(capsys, tmp_path, name, text, MACHINE_XML, "--set", "L1KB=0.5",
                      "--set", f"L2KB={kib}")["L2"]


@pytest.mark.parametrize(("name", "text"), SOURCES)
def test_a_level_holding_every_array_moves_each_once(capsys, tmp_path, name, text):
    """The 32 KiB L2 holds the whole arrays and a band: 4,568 B (7,168 B tile by tile)."""
    level = l2(capsys, tmp_path, name, text, "32")
    assert level["layer_condition"] == "planes"
    assert level["traffic_gb"] * 1e9 == pytest.approx(4_568)


@pytest.mark.parametrize(("name", "text"), SOURCES)
def test_a_level_holding_a_band_moves_each_line_once(capsys, tmp_path, name, text):
    """A 2 KiB L2 holds a band (1.16 KiB), not the 3.26 KiB of whole arrays: 4,568 B."""
    level = l2(capsys, tmp_path, name, text, "2")
    assert level["traffic_gb"] * 1e9 == pytest.approx(4_568)


@pytest.mark.parametrize(("name", "text"), SOURCES)
def test_a_level_holding_a_tile_but_no_band_moves_each_band_once(capsys, tmp_path, name, text):
    """A 1.1 KiB L2 holds a tile (0.89 KiB), not a band (1.16 KiB): each of the 3 bands'
    rows once, a 3 x 7.625 lines = 1,464 B, c 2,928 B, t 416 B: 4,808 B (the simulation at
    1.1 KiB, 1,126 B: 4,800 B; the layer condition's 7,168 B was +49 %)."""
    level = l2(capsys, tmp_path, name, text, "1.1")
    assert level["traffic_gb"] * 1e9 == pytest.approx(4_808)


def test_an_array_without_declared_extents_keeps_the_band_count(capsys, tmp_path):
    """An assumed-size a(14, *) has no declared size (no whole array to hold), but its rows
    are 14 apart: the band's count, 4,568 B, at 32 KiB as at 2 KiB."""
    text = SCRATCH_F90.replace("real(8) :: a(14, 14), c(14, 14), t(5, 5)",
                               "real(8) :: a(14, *), c(14, 14), t(5, 5)")
    level = l2(capsys, tmp_path, "assumed.f90", text, "32")
    assert level["traffic_gb"] * 1e9 == pytest.approx(4_568)


@pytest.mark.libreoffice
def test_editing_the_l2_size_in_libreoffice_recomputes_the_held_arrays(capsys, tmp_path):
    """The workbook written with the 32 KiB L2 (4,568 B: a band held), its L2KB edited to
    1.1 and recalculated: 4,808 B (a tile held, not a band), as the command line gives."""
    from libreoffice import recalculate_edited, value_at

    book = tmp_path / "held.xlsx"
    (before,) = run_with_machine(capsys, tmp_path, "scratch.c", SCRATCH_C, MACHINE_XML,
                                 "--set", "L1KB=0.5", workbook=book)["loops"]
    assert before["levels"][1]["traffic_gb"] * 1e9 == pytest.approx(4_568)
    values = recalculate_edited(book, {"L2KB": 1.1}, tmp_path / "edit")
    assert float(value_at(values, before["levels"][1]["cells"]["traffic_gb"])) * 1e9 == \
        pytest.approx(4_808)
