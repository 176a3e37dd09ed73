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


def levels(tmp_path: Path, name: str, source: str, *options: str) -> dict[str, float]:
    """Bytes each level moves for the one nest of ``source``."""
    path, out = tmp_path / name, tmp_path / "out.json"
    path.write_text(source)
    assert main([str(path), "-m", str(measure.machine_file(tmp_path)), "--json", str(out), "-q",
                 "--set", "Cores=1", "--set", "SetupIterations=1", *options]) == 0
    loops = json.loads(out.read_text())["loops"]
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
