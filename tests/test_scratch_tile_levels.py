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

- L1 of 0.5 KiB: 0.375 fits, and so does the pencil's working set (the same 6 lines): reuse
  between pencils, the layer condition's count (unchanged, the within-pencil count is the same
  here): per sweep X rounded to 8 elements x 4 copies x 8 B = 256 B per unit of cost, x (1 + 2 +
  2) = 1,280 B, x 9 sweeps = 11,520 B. Before, 0.75 KiB did not fit and every copy moved a line:
  9 x 4 cells x 4 copies x 64 B x 5 = 46,080 B. The write-back LRU simulation of the same nest
  at 512 B (``bench/differential``'s truth program for this nest piped into
  ``bench/validation/cachesim 512:0:16384:0``; nest n00169 of seed 0, the same nest with 64-bit
  integers) moves 12,544 B.
- L1 of 0.25 KiB (4 lines): 0.375 does not fit, no reuse within pencils: each cell's run
  moves (4 - 1 + 8) / 8 = 1.375 lines on average, 2.75 elements per copy: 9 sweeps x 4
  cells x 4 copies x 2.75 x 8 B x 5 = 15,840 B (a line per copy before: 46,080 B).
"""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from machines import run_with_machine, two_level_machine

MACHINE_XML = two_level_machine(32)

SCRATCH_C = """\
double a[14][14], c[14][14], t[5][5];
void run(void)
{
    for (int jj = 0; jj < 12; jj += 4) {
        for (int ii = 0; ii < 12; ii += 4) {
            for (int tj = 0; tj < 4; tj++)
                for (int ti = 0; ti < 4; ti++)
                    t[tj][ti] = a[tj + jj + 1][ti + ii + 1];
            for (int tj = 0; tj < 4; tj++)
                for (int ti = 0; ti < 4; ti++)
                    c[tj + jj + 1][ti + ii + 1] = t[tj][ti] - t[tj][ti + 1];
        }
    }
}
"""

SCRATCH_F90 = """\
subroutine run(a, c)
  integer :: jj, ii, tj, ti
  real(8) :: a(14, 14), c(14, 14), t(5, 5)
  do jj = 1, 12, 4
    do ii = 1, 12, 4
      do tj = 1, 4
        do ti = 1, 4
          t(ti, tj) = a(ti + ii, tj + jj)
        end do
      end do
      do tj = 1, 4
        do ti = 1, 4
          c(ti + ii, tj + jj) = t(ti, tj) - t(ti + 1, tj)
        end do
      end do
    end do
  end do
end subroutine
"""

SOURCES = [("scratch.c", SCRATCH_C), ("scratch.f90", SCRATCH_F90)]


def l1(capsys, tmp_path: Path, name: str, text: str, kib: str) -> dict:
    data = run_with_machine(capsys, tmp_path, name, text, MACHINE_XML, "--set", f"L1KB={kib}")
    (loop,) = data["loops"]
    assert data["bounds_violations"] == []
    return next(level for level in loop["levels"] if level["level"] == "L1")


@pytest.mark.parametrize(("name", "text"), SOURCES)
def test_a_tile_row_is_a_run_of_neighbours_in_the_working_set(capsys, tmp_path, name, text):
    """WS/cell 3 arrays x 2 lines x 64 B = 384 B = 0.375 KiB; fits 0.5 KiB: 11,520 B."""
    level = l1(capsys, tmp_path, name, text, "0.5")
    assert level["ws_cell_kb"] == pytest.approx(0.375)
    assert level["ws_pencil_kb"] == pytest.approx(0.375)
    assert level["layer_condition"] == "pencils"
    assert level["traffic_gb"] * 1e9 == pytest.approx(11_520)


@pytest.mark.parametrize(("name", "text"), SOURCES)
def test_without_reuse_a_tile_row_moves_the_lines_of_its_run(capsys, tmp_path, name, text):
    """0.375 KiB does not fit 0.25 KiB: 9 x 4 x 4 x 2.75 x 8 B x 5 = 15,840 B."""
    level = l1(capsys, tmp_path, name, text, "0.25")
    assert level["layer_condition"] == "none"
    assert level["traffic_gb"] * 1e9 == pytest.approx(15_840)


def test_a_run_of_a_whole_line_spans_two(capsys, tmp_path):
    """Tiles of 8 doubles (``ti`` 8 trips, still a component loop): a run of 8 spans
    ceil(7 / 8) + 1 = 2 lines, the working set stays 6 lines = 0.375 KiB; without reuse
    (0.25 KiB) it moves (8 - 1 + 8) / 8 = 1.875 lines, 15 / 8 elements per copy:
    24 x 24 elements in 3 x 3 tiles of 8 x 8: 9 sweeps x 8 cells x 8 copies x 15/8 x 8 B
    x 5 = 43,200 B (a line per copy: 9 x 8 x 8 x 64 x 5 = 184,320 B)."""
    text = SCRATCH_C.replace("[14]", "[26]").replace("[5][5]", "[9][9]") \
        .replace("< 12", "< 24").replace("+= 4", "+= 8").replace("< 4", "< 8")
    level = l1(capsys, tmp_path, "scratch8.c", text, "0.25")
    assert level["ws_cell_kb"] == pytest.approx(0.375)
    assert level["traffic_gb"] * 1e9 == pytest.approx(43_200)


@pytest.mark.libreoffice
def test_editing_the_l1_size_in_libreoffice_recomputes_the_runs(capsys, tmp_path):
    """The workbook written with a 0.5 KiB L1 (11,520 B), its L1KB edited to 0.25 and
    recalculated: 15,840 B, as the command line gives with --set L1KB=0.25."""
    from libreoffice import recalculate_edited, value_at

    book = tmp_path / "scratch.xlsx"
    (before,) = run_with_machine(capsys, tmp_path, "scratch.c", SCRATCH_C, MACHINE_XML,
                                 "--set", "L1KB=0.5", workbook=book)["loops"]
    values = recalculate_edited(book, {"L1KB": 0.25}, tmp_path / "edit")
    (want,) = run_with_machine(capsys, tmp_path, "scratch.c", SCRATCH_C, MACHINE_XML,
                               "--set", "L1KB=0.25")["loops"]
    for level, expected in zip(before["levels"], want["levels"], strict=True):
        got = float(value_at(values, level["cells"]["traffic_gb"]))
        assert math.isclose(got, expected["traffic_gb"], rel_tol=1e-9), level["level"]
    assert float(value_at(values, before["levels"][0]["cells"]["traffic_gb"])) * 1e9 == \
        pytest.approx(15_840)
    assert before["levels"][0]["traffic_gb"] * 1e9 == pytest.approx(11_520)


# A level that holds every array the tiled nest touches (their declared sizes) keeps the lines
# neighbouring tiles share: no array moves more than its declared bytes at its cost per word (a
# scratch tile once, not once per tile). Whole arrays: a and c 14 x 14 x 8 B = 1,568 B each, t 5
# x 5 x 8 B = 200 B: 3,336 B, 3.26 KiB. At most: a read 1,568 B; c written (read for ownership,
# written back) 2 x 1,568 = 3,136 B; t read and written 2 x 200 = 400 B: 5,104 B. The layer
# condition's count at the L2 (reuse between planes, every tile's footprint): 9 tiles x (a: X of
# 4 rounded to a line of 8, x 4 copies x 8 B = 256 B; c twice that, 512 B) + t once, 16 x 16 B =
# 256 B: 7,168 B. The write-back LRU simulation of this nest with 8-byte integers at 16 KiB
# (n00169 of the generated sample, ``truth 0 | cachesim 16384:0:2097152:0``) moves 4,608 B:
# 5,104 B is +11 %, 7,168 B +56 %.


def l2(capsys, tmp_path: Path, name: str, text: str, kib: str) -> dict:
    data = run_with_machine(capsys, tmp_path, name, text, MACHINE_XML, "--set", "L1KB=0.5",
                            "--set", f"L2KB={kib}")
    (loop,) = data["loops"]
    assert data["bounds_violations"] == []
    return next(level for level in loop["levels"] if level["level"] == "L2")


@pytest.mark.parametrize(("name", "text"), SOURCES)
def test_a_level_holding_every_array_moves_each_once(capsys, tmp_path, name, text):
    """The 32 KiB L2 holds the 3.26 KiB of whole arrays: 5,104 B (7,168 B tile by tile)."""
    level = l2(capsys, tmp_path, name, text, "32")
    assert level["layer_condition"] == "planes"
    assert level["traffic_gb"] * 1e9 == pytest.approx(5_104)


@pytest.mark.parametrize(("name", "text"), SOURCES)
def test_a_level_smaller_than_the_arrays_counts_tile_by_tile(capsys, tmp_path, name, text):
    """A 2 KiB L2 does not hold the 3.26 KiB: the layer condition's 7,168 B."""
    level = l2(capsys, tmp_path, name, text, "2")
    assert level["traffic_gb"] * 1e9 == pytest.approx(7_168)


def test_an_array_without_declared_extents_keeps_the_tile_count(capsys, tmp_path):
    """An assumed-size a(*) has no declared size: nothing bounds the count, 7,168 B."""
    text = SCRATCH_F90.replace("real(8) :: a(14, 14), c(14, 14), t(5, 5)",
                               "real(8) :: a(14, *), c(14, 14), t(5, 5)")
    level = l2(capsys, tmp_path, "assumed.f90", text, "32")
    assert level["traffic_gb"] * 1e9 == pytest.approx(7_168)


@pytest.mark.libreoffice
def test_editing_the_l2_size_in_libreoffice_recomputes_the_held_arrays(capsys, tmp_path):
    """The workbook written with the 32 KiB L2 (5,104 B), its L2KB edited to 2 and
    recalculated: 7,168 B, as the command line gives with --set L2KB=2."""
    from libreoffice import recalculate_edited, value_at

    book = tmp_path / "held.xlsx"
    (before,) = run_with_machine(capsys, tmp_path, "scratch.c", SCRATCH_C, MACHINE_XML,
                                 "--set", "L1KB=0.5", workbook=book)["loops"]
    assert before["levels"][1]["traffic_gb"] * 1e9 == pytest.approx(5_104)
    values = recalculate_edited(book, {"L2KB": 2}, tmp_path / "edit")
    assert float(value_at(values, before["levels"][1]["cells"]["traffic_gb"])) * 1e9 == \
        pytest.approx(7_168)
