"""Gathers and scatters at every level of the memory hierarchy: the Levels, ECM, Roofline and
Costs models take the Gathers sheet's model at each cache level's capacity.

The machine is tests/data/machines/toy-roofline.yml: 2 cores at 2 GHz, private L1 32 KiB and
L2 256 KiB, 64-byte lines, L1-L2 at 32 B/cycle = 64 GB/s per core, memory 20 GB/s (its load
benchmark; the nests below take its triad benchmark, 20 GB/s too).

The snippet ``y(i) = x(idx(i))`` with n = 1,049,600 = 1024 + 16 x 65,536 iterations and
m = 8192 doubles: x spans 64 KiB, more than L1, less than L2.  Counted by hand, per iteration:

- streams: y written, 16 B (its line read for ownership, then written back); idx, 4-byte
  integers, 4 B; as a stream x would be 8 B: 28 B, the count the gather replaces x's share of;
- the gather: 1,049,600 visits (uniform indices, ClusterElems 1) over 64 KiB / 64 B = 1024
  lines; the nest's other streams keep y's and idx's cells, 8 + 4 = 12 B = 12/1024 KiB;
- L1: left = 32 KiB - 12 B = 32,756 B; miss = 1 - 32,756/65,536 = 32,780/65,536;
  lines = 1024 + (1,049,600 - 1024) x 32,780/65,536 = 1024 + 16 x 32,780 = 525,504;
  x 64 B = 33,632,256 B, 32.04293 B per iteration -> 16 + 4 + 32.04293 = 52.04293 B;
- L2: left = 256 KiB - 12 B > 64 KiB: the range fits, only the 1024 compulsory lines,
  65,536 B, 0.06244 B per iteration -> 16 + 4 + 0.06244 = 20.06244 B, the Loops sheet's
  traffic (CacheKB = L2's 256 KiB).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sat.cli import main

MACHINE = str(Path(__file__).parent / "data" / "machines" / "toy-roofline.yml")
N = 1024 + 16 * 65536

GATHER = """\
subroutine g(n, m, idx, x, y)
  integer :: n, m, i
  integer :: idx(n)
  double precision :: x(m), y(n)
  do i = 1, n
    y(i) = x(idx(i))
  end do
end subroutine g
"""

SCATTER = GATHER.replace("y(i) = x(idx(i))", "x(idx(i)) = y(i)")
L1_GATHER = (1024 + 16 * 32780) * 64 / N  # 32.04293 B per iteration
L2_GATHER = 1024 * 64 / N  # 0.06244 B per iteration


def run(tmp_path: Path, *options: str, source: str = GATHER) -> dict:
    path, out = tmp_path / "g.f90", tmp_path / "g.json"
    path.write_text(source)
    assert main([str(path), "-m", MACHINE, "--set", f"n={N}", "--set", "m=8192", "--json",
                 str(out), "-q", *options]) == 0
    return json.loads(out.read_text())


def levels_of(data: dict) -> dict[str, dict]:
    return {level["level"]: level for level in data["loops"][0]["levels"]}


def test_a_gather_moves_its_lines_at_every_level(tmp_path):
    data = run(tmp_path)
    levels = levels_of(data)
    assert levels["L1"]["bytes_per_iteration"] == pytest.approx(16 + 4 + L1_GATHER)
    assert levels["L2"]["bytes_per_iteration"] == pytest.approx(16 + 4 + L2_GATHER)
    # the Gathers column: the gather's bytes less x's 8 B per iteration as a stream
    assert levels["L1"]["gathers_gb"] == pytest.approx((L1_GATHER - 8) * N / 1e9)
    # the last cache level's traffic is the Loops sheet's, and its gather the Gathers sheet's
    gather = data["gathers"][0]
    assert levels["L2"]["gathers_gb"] == pytest.approx(gather["traffic_gb"]
                                                       - gather["replaced_gb"])
    assert levels["L2"]["traffic_gb"] == pytest.approx(data["loops"][0]["traffic_gb"])


def test_the_ecm_roofline_and_costs_take_the_gathers(tmp_path):
    data = run(tmp_path)
    loop = data["loops"][0]
    ecm = loop["ecm"]
    # a unit of work is 8 iterations; L1-L2 at 64 GB/s / 2 GHz = 32 B/cycle; memory at the
    # triad benchmark's 20 GB/s / 2 GHz = 10 B/cycle (reads x, idx, y's line : writes y = 3:1)
    assert ecm["memory_benchmark"] == "triad"
    assert ecm["t_data"]["L1-L2"] == pytest.approx(8 * (20 + L1_GATHER) / 32)
    assert ecm["t_data"]["L2-MEM"] == pytest.approx(8 * (20 + L2_GATHER) / 10)
    # the Roofline at the machine's measured bandwidths for 2 cores, by the streams over each
    # link: L1-L2 52.04 B = 6.5 words, y's write-back and 5.5 read: triad's 96 GB/s;
    # L2-MEM 20.06 B = 2.51 words, 1.51 read: copy's 2 : 1, 21 GB/s; memory bounds
    assert ecm["roofline_benchmark"] == {"L1-L2": "triad", "L2-MEM": "copy"}
    assert ecm["roofline_time_s"] == pytest.approx((20 + L2_GATHER) * N / 21e9)
    assert ecm["roofline_bound"] == "L2-MEM"
    assert data["totals"]["roofline_time_s"] == pytest.approx(ecm["roofline_time_s"])
    values = {p["name"]: p["value"] for p in data["parameters"]}
    # the energy of the bytes between the caches: L1ByteEnergyPJ pJ per byte over L1-L2
    assert loop["costs"]["cache_energy_j"] == pytest.approx(
        values["L1ByteEnergyPJ"] * 1e-12 * (20 + L1_GATHER) * N)


def test_a_scatter_moves_each_line_twice_at_every_level(tmp_path):
    levels = levels_of(run(tmp_path, source=SCATTER))
    # y read, 8 B, idx 4 B; x written through the index: each line read for ownership and
    # written back, twice the gather's lines, in place of x's 16 B as a stream written
    assert levels["L1"]["bytes_per_iteration"] == pytest.approx(8 + 4 + 2 * L1_GATHER)
    assert levels["L2"]["bytes_per_iteration"] == pytest.approx(8 + 4 + 2 * L2_GATHER)


def test_a_range_that_fits_l1_moves_only_compulsory_lines_past_it(tmp_path):
    # RangeKB 16: 256 lines, inside L1's 32 KiB - 12 B: 256 x 64 B at both levels
    data = run(tmp_path, "--set", "RangeKB_g_5_x=16")
    levels = levels_of(data)
    for name in ("L1", "L2"):
        assert levels[name]["bytes_per_iteration"] == pytest.approx(20 + 256 * 64 / N)


def test_warm_caches_keep_nothing_resident_for_a_large_nest(tmp_path):
    # the nest touches 10,250 KiB per thread: no level holds it, the gathers still count
    levels = levels_of(run(tmp_path, "--set", "WarmCaches=TRUE"))
    assert levels["L1"]["bytes_per_iteration"] == pytest.approx(20 + L1_GATHER)


@pytest.mark.libreoffice
def test_editing_the_range_in_the_workbook_moves_every_level_as_set_does(tmp_path):
    from libreoffice import recalculate_edited, value_at

    book_path = tmp_path / "g.xlsx"
    written = run(tmp_path, "-o", str(book_path))
    edits = {"RangeKB_g_5_x": 512}  # beyond L2 as well
    book = recalculate_edited(book_path, edits, tmp_path / "lo")
    expected = run(tmp_path, "--set", "RangeKB_g_5_x=512")

    def cell(address: str):
        return value_at(book, address)

    for before, after in zip(written["loops"][0]["levels"], expected["loops"][0]["levels"],
                             strict=True):
        for key in ("gathers_gb", "traffic_gb", "time_s"):
            assert cell(before["cells"][key]) == pytest.approx(after[key], rel=1e-9), key
    cells, ecm = written["loops"][0]["ecm"]["cells"], expected["loops"][0]["ecm"]
    for key in ("t_L1-L2", "t_L2-MEM", "t_ecm", "roofline_time_s"):
        want = ecm["t_data"][key[2:]] if key.startswith("t_L") else ecm[key]
        assert cell(cells[key]) == pytest.approx(want, rel=1e-9), key
    assert cell(written["loops"][0]["costs"]["cells"]["energy_j"]) == pytest.approx(
        expected["loops"][0]["costs"]["energy_j"], rel=1e-9)
