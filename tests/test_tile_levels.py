"""The data a repetition of a tiled nest touches at a cache level: the lines neighbouring
tiles share count once.

The machine (written here): one core, 64-byte lines, 8-byte words, an L1 of 4 KiB and an L2
of 32 KiB (the level before memory). Doubles: 8 elements per line; a read array moves 8 B per
element, a written one 16 B (the line read for ownership, then written back).

The nests walk a 32 x 40 array of doubles (rows of 40, back to back) in tiles of 4 columns
across the rows (the contiguous axis outermost), four times over (t subscripts nothing). A
tile's row of 4 doubles is half a line: tile by tile, each array would be 10 tiles x 8
elements (a whole line) x 32 rows x 8 B = 20,480 B, 40 KiB for the two arrays, more than the
L2, so every repetition would move the data again. The tiles share their lines: the whole X
range is 40 elements, 5 lines, the row's declared 40; each array is 40 x 32 x 8 = 10,240 B,
20 KiB for both, which the 32 KiB L2 holds: the first repetition moves the data, the other
three nothing.
"""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from machines import run_with_machine, two_level_machine

MACHINE_XML = two_level_machine(32)

TILED_C = """\
double a[32][40], b[32][40];
void run(void)
{
    for (int t = 0; t < 4; t++)
        for (int kk = 0; kk < 40; kk += 4)
            for (int k = kk; k < kk + 4; k++)
                for (int l = 0; l < 32; l++)
                    b[l][k] = 2.0 * a[l][k];
}
"""

TILED_F90 = """\
subroutine run(a, b)
  integer :: t, kk, k, l
  real(8) :: a(40, 32), b(40, 32)
  do t = 1, 4
    do kk = 1, 40, 4
      do k = kk, kk + 3
        do l = 1, 32
          b(k, l) = 2.0d0 * a(k, l)
        end do
      end do
    end do
  end do
end subroutine
"""

SOURCES = [("tiled.c", TILED_C), ("tiled.f90", TILED_F90)]


def run(capsys, tmp_path: Path, name: str, text: str, *options: str) -> dict:
    return run_with_machine(capsys, tmp_path, name, text, MACHINE_XML, *options)


def levels(loop: dict) -> dict[str, dict]:
    return {level["level"]: level for level in loop["levels"]}


@pytest.mark.parametrize(("name", "text"), SOURCES)
def test_tiles_narrower_than_a_line_share_it_in_the_data_of_a_repetition(
        capsys, tmp_path, name, text):
    """data_kib: 2 arrays x 40 x 32 x 8 B = 20,480 B = 20 KiB (not 40 KiB, tile by tile).
    A sweep at the L2 moves every tile's row as a whole line (the layer condition's
    traffic): a 10 x 8 x 32 x 8 B = 20,480 B, b twice that (read for ownership and written
    back) 40,960 B: 61,440 B. The L2 holds the 20 KiB: the first of the 4 repetitions moves
    the data, the others nothing (4 x 61,440 = 245,760 B before); and since it holds both
    whole arrays (their declared 20 KiB), the tiles' shared lines move once too: a 10,240
    B, b 2 x 10,240 B: 30,720 B, what a write-back LRU cache of 32 KiB moves (each line
    read once, b's written back once)."""
    data = run(capsys, tmp_path, name, text)
    (loop,) = data["loops"]
    assert loop["block_x"] == 4 and loop["blocks"] == 10
    at = levels(loop)
    assert at["L2"]["data_kib"] == pytest.approx(20)
    assert at["L2"]["repeats"] == 1
    assert at["L2"]["traffic_gb"] * 1e9 == pytest.approx(30_720)
    # the L1 (4 KiB) holds no repetition's 20 KiB: all 4 move the data
    assert at["L1"]["repeats"] == 4
    assert data["bounds_violations"] == []


@pytest.mark.parametrize(("name", "text"), SOURCES)
def test_an_l2_smaller_than_the_shared_lines_moves_every_repetition(
        capsys, tmp_path, name, text):
    """An L2 of 16 KiB does not hold the 20 KiB: 4 x 61,440 = 245,760 B."""
    data = run(capsys, tmp_path, name, text, "--set", "L2KB=16")
    (loop,) = data["loops"]
    at = levels(loop)
    assert at["L2"]["repeats"] == 4
    assert at["L2"]["traffic_gb"] * 1e9 == pytest.approx(245_760)


@pytest.mark.libreoffice
def test_editing_the_l2_size_in_libreoffice_recomputes_the_shared_data(capsys, tmp_path):
    """The workbook written with the 32 KiB L2 (30,720 B), its L2KB edited to 16 and
    recalculated: 245,760 B, as the command line gives with --set L2KB=16."""
    from libreoffice import recalculate_edited, value_at

    book = tmp_path / "tiled.xlsx"
    (before,) = run_with_machine(capsys, tmp_path, "tiled.c", TILED_C, MACHINE_XML,
                                 workbook=book)["loops"]
    values = recalculate_edited(book, {"L2KB": 16}, tmp_path / "edit")
    (want,) = run(capsys, tmp_path, "tiled.c", TILED_C, "--set", "L2KB=16")["loops"]
    assert float(value_at(values, before["levels"][0]["cells"]["data_kib"])) == \
        pytest.approx(20)
    for level, expected in zip(before["levels"], want["levels"], strict=True):
        got = float(value_at(values, level["cells"]["traffic_gb"]))
        assert math.isclose(got, expected["traffic_gb"], rel_tol=1e-9), level["level"]
    assert float(value_at(values, before["levels"][1]["cells"]["traffic_gb"])) * 1e9 == \
        pytest.approx(245_760)
    assert before["levels"][1]["traffic_gb"] * 1e9 == pytest.approx(30_720)
