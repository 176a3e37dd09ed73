"""Cache-line granularity of the per-level traffic: how many bytes a reference moves when it
does not walk its array element after element.

The machine is the generated-nest harness's (bench/differential/measure.py): three fully
associative levels of 512 B, 16 KiB and 2 MiB with 64-byte lines.  Every number below is
worked out by hand: a 64-byte line holds 16 4-byte reals or 8 doubles; a read-only array
moves its lines once, a read-and-written one twice (read, then written back), a written
one twice too (read for ownership, written back).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from sat.cli import main

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench" / "differential"))
import measure  # noqa: E402


def levels(tmp_path: Path, name: str, source: str, *options: str,
           procedure: str = "") -> dict[str, float]:
    """Bytes each level moves for the one nest of ``source`` (of ``procedure``)."""
    path, out = tmp_path / name, tmp_path / "out.json"
    path.write_text(source)
    assert main([str(path), "-m", str(measure.machine_file(tmp_path)), "--json", str(out), "-q",
                 "--set", "Cores=1", "--set", "SetupIterations=1", *options]) == 0
    loops = [loop for loop in json.loads(out.read_text())["loops"]
             if procedure in ("", loop["procedure"])]
    assert len(loops) == 1
    return {level["level"]: level["traffic_gb"] * 1e9 for level in loops[0]["levels"]}


def same_at_every_level(found: dict[str, float], expected: float) -> None:
    assert set(found) == {"L1", "L2", "L3"}
    for name, value in found.items():
        assert value == pytest.approx(expected), name


STRIDE_2 = """\
subroutine s2(x, y)
  real(4) :: x(2400), y(1200)
  integer :: i
  do i = 1, 1200
    y(i) = y(i) + x(2*i)
  end do
end subroutine s2
"""

STRIDE_16 = """\
float x[19201];
float y[1200];
void s16(void)
{
    for (int i = 0; i < 1200; i++) {
        y[i] = x[16 * i] + y[i];
    }
}
"""


def test_a_stride_of_2_reals_moves_every_line_of_its_range(tmp_path):
    # x(2*i), i = 1..1200: 2,400 reals of range, every line touched: 2,400 x 4 = 9,600 B;
    # y read and written back: 2 x 1,200 x 4 = 9,600 B; 19,200 B at every level
    # (the elements alone would be 4,800 + 9,600 = 14,400 B)
    same_at_every_level(levels(tmp_path, "s2.f90", STRIDE_2), 9600 + 9600)


def test_a_stride_of_a_whole_line_moves_a_line_per_access(tmp_path):
    # x[16*i]: 16 x 4 B = 64 B, each access a line of its own: 1,200 x 64 = 76,800 B;
    # y read and written back: 9,600 B; 86,400 B at every level (the execution's count)
    same_at_every_level(levels(tmp_path, "s16.c", STRIDE_16), 76800 + 9600)


STEP_3 = {
    "st3.c": """\
float a[3073], b[3073], c[3073];
void st3(void)
{
    for (int i = 0; i < 3072; i += 3) {
        b[i] = a[i] + a[i + 1] + c[i];
    }
}
""",
    "st3.f90": """\
subroutine st3(a, b, c)
  real(4) :: a(3073), b(3073), c(3073)
  integer :: i
  do i = 1, 3072, 3
    b(i) = a(i) + a(i+1) + c(i)
  end do
end subroutine st3
""",
}


@pytest.mark.parametrize("name", sorted(STEP_3))
def test_a_step_of_3_keeps_its_lines_at_a_small_cache(tmp_path, name):
    # 1,024 iterations, each a step of 3 reals: every line of the 3,072-real range is
    # touched, 192 lines per array; a and c read (192 x 64 = 12,288 B each), b read for
    # ownership and written back (24,576 B): 49,152 B.  Four lines live at a time (a's two
    # offsets share one), 256 B: they fit the 512 B level, which moves the same bytes
    # (a line per element of the step would be 786,432 B)
    same_at_every_level(levels(tmp_path, name, STEP_3[name]), 2 * 12288 + 24576)


STEP_3_MANY = """\
float a0[3073], a1[3073], a2[3073], a3[3073], a4[3073], a5[3073], a6[3073], a7[3073],
      a8[3073], b[3073];
void st3many(void)
{
    for (int i = 0; i < 3072; i += 3) {
        b[i] = a0[i] + a1[i] + a2[i] + a3[i] + a4[i] + a5[i] + a6[i] + a7[i] + a8[i];
    }
}
"""


def test_a_step_of_3_moves_a_line_per_access_where_its_lines_do_not_fit(tmp_path):
    # ten lines live at a time (640 B) in a level of eight: each access misses, a line per
    # access (not per element of the step): 1,024 x (9 x 64 + 2 x 64) = 720,896 B at L1;
    # L2 and L3 hold them: 9 x 12,288 + 24,576 = 135,168 B
    found = levels(tmp_path, "st3many.c", STEP_3_MANY)
    assert found["L1"] == pytest.approx(1024 * 11 * 64)
    assert found["L2"] == pytest.approx(9 * 12288 + 24576)
    assert found["L3"] == pytest.approx(9 * 12288 + 24576)


WHOLE_ARRAY = """\
module m_rows
  implicit none
  real(4) :: a(24, 16), b(24, 16), c(24, 16)
contains
  subroutine rows()
    a = b + c
  end subroutine rows
end module m_rows
"""

SHORT_ROWS = """\
float a[8][10], b[8][10];
void rows(void)
{
    for (int j = 0; j < 8; j++) {
        for (int i = 0; i < 10; i++) {
            a[j][i] = 2.0f * b[j][i];
        }
    }
}
"""

PART_ROWS = """\
subroutine part(a, b)
  real(4) :: a(48, 16), b(48, 16)
  integer :: i, j
  do j = 1, 16
    do i = 1, 16
      a(i, j) = b(i, j)
    end do
  end do
end subroutine part
"""


def test_a_whole_array_of_short_rows_moves_its_bytes_not_whole_lines_per_row(tmp_path):
    # rows of 24 reals (96 B, a line and a half) lie back to back: each array is 24 x 16 x
    # 4 = 1,536 B = 24 lines; b and c read, a read for ownership and written back:
    # 4 x 1,536 = 6,144 B (whole lines per row: 2 x 64 x 16 = 2,048 B an array, 8,192 B)
    same_at_every_level(levels(tmp_path, "rows.f90", WHOLE_ARRAY), 4 * 1536)


def test_rows_of_ten_reals_share_their_lines(tmp_path):
    # b[8][10]: 80 reals back to back, 320 B = 5 lines; a the same, read and written back:
    # 3 x 320 = 960 B (a line per row of 40 B would be 3 x 8 x 64 = 1,536 B)
    same_at_every_level(levels(tmp_path, "rows.c", SHORT_ROWS), 3 * 320)


def test_a_partial_row_still_pays_its_line(tmp_path):
    # 16 of each row's 48 reals (64 B; rows 192 B apart, the gap longer than a line): a
    # line per row and array, 16 rows: b 16 x 64 = 1,024 B, a twice that: 3,072 B
    same_at_every_level(levels(tmp_path, "part.f90", PART_ROWS), 3 * 16 * 64)


TILES_OF_4 = {
    "tile4.f90": """\
subroutine tile4(a, b)
  real(8) :: a(1000), b(1000)
  integer :: ii, i
  do ii = 1, 1000, 4
    do i = ii, min(ii + 3, 1000)
      b(i) = a(i)
    end do
  end do
end subroutine tile4
""",
    "tile4.c": """\
#define MIN(a, b) ((a) < (b) ? (a) : (b))
double a[1000], b[1000];
void tile4(void)
{
    for (int ii = 0; ii < 1000; ii += 4) {
        for (int i = ii; i < MIN(ii + 4, 1000); i++) {
            b[i] = a[i];
        }
    }
}
""",
}


@pytest.mark.parametrize("name", sorted(TILES_OF_4))
def test_tiles_narrower_than_a_line_share_their_lines(tmp_path, name):
    # tiles of 4 doubles (32 B, half a line) one after the other: the next tile uses the
    # rest of the line the last one loaded.  a: 1,000 x 8 = 8,000 B; b read for ownership
    # and written back: 16,000 B; 24,000 B (a whole line per tile would be 48,000 B)
    same_at_every_level(levels(tmp_path, name, TILES_OF_4[name]), 8000 + 16000)


STRIDE_IN_A_CALLEE = """\
int x[6401];
int y[400];
void sweep(void)
{
    for (int i = 0; i < 400; i++) {
        y[i] = x[16 * i] + 3 * y[i];
    }
}
void kernel(void)
{
    for (int t = 0; t < 3; t++) {
        sweep();
    }
}
"""


def test_a_called_procedure_keeps_its_stride(tmp_path):
    # the callee's nest written into the caller's time loop: x[16*i] of 4-byte integers
    # still moves a 64-byte line per access, 400 x 64 = 25,600 B a step; y read and written
    # back, 3,200 B; the 512 B level keeps nothing from one step to the next: 3 x 28,800 B
    found = levels(tmp_path, "call.c", STRIDE_IN_A_CALLEE, procedure="kernel")
    assert found["L1"] == pytest.approx(3 * (25600 + 3200))


STEPPED_ROWS_INNERMOST = """\
subroutine rows3(a, b)
  real(8) :: a(64, 40), b(64, 40)
  integer :: i, j
  do i = 1, 64
    do j = 2, 37, 3
      b(i, j) = a(i, j - 1) + a(i, j) + a(i, j + 1)
    end do
  end do
end subroutine rows3
"""


def test_a_stepped_row_loop_moves_the_rows_its_offsets_touch(tmp_path):
    # j = 2, 5, ..., 35: 12 trips inside i = 1..64: 768 iterations.  One step of i touches
    # 12 x 3 rows of a and 12 of b, 48 lines: more than the 8 lines of the 512 B level, so
    # every access is a line.  a(i,j-1), a(i,j), a(i,j+1) lie on three rows (the next step,
    # j + 3, starts on row j + 2): 3 lines; b read and written back: 2 lines; 5 x 64 = 320 B
    # an iteration, 768 x 320 = 245,760 B (an LRU simulation of the addresses gives the
    # same).  Three offsets of a step of 3 are three rows, not the two folded offsets (j-1
    # in the step before, j and j+1 in this one) in each of the 3 rows of a step: 6 lines,
    # 393,216 B in all, beyond every reference missing at every iteration (320 B).
    path, out = tmp_path / "rows3.f90", tmp_path / "out.json"
    path.write_text(STEPPED_ROWS_INNERMOST)
    assert main([str(path), "-m", str(measure.machine_file(tmp_path)), "--json", str(out),
                 "-q", "--set", "Cores=1", "--set", "SetupIterations=1"]) == 0
    data = json.loads(out.read_text())
    assert data["bounds_violations"] == []
    l1 = data["loops"][0]["levels"][0]
    assert l1["traffic_gb"] * 1e9 == pytest.approx(245_760)


STEPPED_COLUMNS_OUTERMOST = """\
float out[16][40];
float inp[16][40];
void cols4(void)
{
    for (int i = 0; i < 40; i += 4) {
        for (int j = 0; j < 16; j++) {
            out[j][i] = 2.0f * inp[j][i];
        }
    }
}
"""


def test_a_stepped_contiguous_loop_outside_moves_a_line_per_access(tmp_path):
    # i = 0, 4, ..., 36: 10 trips around j = 0..15: 160 iterations.  One step of i touches
    # 16 rows of each array, 32 lines: more than the 512 B level holds, every access misses.
    # inp[j][i]: a line; out read and written back: 2 lines; 3 x 64 = 192 B an iteration,
    # 160 x 192 = 30,720 B (as simulated).  The 4 floats a step of i spans share the line of
    # the access: not a line each (122,880 B, beyond every reference missing, 192 B an
    # iteration).
    assert levels(tmp_path, "cols4.c", STEPPED_COLUMNS_OUTERMOST)["L1"] == \
        pytest.approx(30_720)


STEPPED_ROWS_OUTERMOST = """\
subroutine rowsx(a, b)
  real(8) :: a(64, 40), b(64, 40)
  integer :: i, j
  do j = 2, 37, 3
    do i = 1, 64
      b(i, j) = a(i, j - 1) + a(i, j) + a(i, j + 1)
    end do
  end do
end subroutine rowsx
"""


def test_a_stepped_row_loop_outside_moves_each_row_it_touches_once(tmp_path):
    # j = 2, 5, ..., 35: 12 steps, each walking rows j-1, j, j+1 of a (64 doubles, 8 lines
    # each) and row j of b along i, a few lines at a time: every level keeps a line from one
    # i to the next, none keeps a row for the next step (its rows are new). Per step: a 3 x
    # 8 lines, b 8 read and 8 written back: 40 x 64 = 2,560 B; 12 steps: 30,720 B at every
    # level (as simulated). Not the 2 folded rows in each of the 3 rows of a step (6 x 8
    # lines of a: 49,152 B at the 512 B level).
    same_at_every_level(levels(tmp_path, "rowsx.f90", STEPPED_ROWS_OUTERMOST), 30_720)
