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
  lines; the nest's other streams keep a line each of y and idx, 128 B, and load y's lines
  (half of its 16 B per iteration: the rest are write-backs) and idx's, 12 B per iteration:
  196,800 lines, sigma = 0.1875 lines per visit (tests/test_gather_levels.py: the LRU rule);
- L1: C = 512 - 2 = 510 lines; the cache reaches back u = 526.04 visits (0.1875 x 526.04 +
  1024 (1 - exp(-526.04/1024)) = 98.63 + 411.37 = 510), a visit misses with exp(-526.04/1024)
  = 0.59827: lines = 1024 x 0.40173 + (1,049,600 - 526.04) x 0.59827 = 628,044.3; x 64 B =
  40,194,836 B, 38.2954 B per iteration -> 16 + 4 + 38.2954 = 58.2954 B (the old rule, a
  miss of 1 - left/range = 0.5002, gave 52.04 B);
- L2: C = 4096 - 2 = 4094 lines: u = 16,373 visits, a revisit misses with exp(-16) =
  1.1e-7: 1024.12 lines, 65,544 B, 0.06245 B per iteration -> 20.06245 B, the Loops
  sheet's traffic (CacheKB = L2's 256 KiB) but for 0.12 lines the streams push out.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from test_gather_levels import lru_lines

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
L1_GATHER = lru_lines(510, 196800, 1024, N) * 64 / N  # 38.2954 B per iteration
L2_GATHER = lru_lines(4094, 196800, 1024, N) * 64 / N  # 0.06245 B per iteration


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
    # (but for the 0.12 lines the streams push out: 7.5 B of 21 MB)
    assert levels["L2"]["gathers_gb"] == pytest.approx(gather["traffic_gb"]
                                                       - gather["replaced_gb"], rel=1e-5)
    assert levels["L2"]["traffic_gb"] == pytest.approx(data["loops"][0]["traffic_gb"],
                                                       rel=1e-5)


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
    # link: L1-L2 58.30 B = 7.3 words, y's write-back and 6.3 read: triad's 96 GB/s;
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


def test_a_range_that_fits_moves_its_lines_and_the_few_the_streams_push_out(tmp_path):
    # RangeKB 16: 256 lines, inside L1's 510 lines left.  L1: the streams' 0.1875 lines per
    # visit push a line out when it is not visited for u = 1354.6 visits (0.1875 x 1354.6 +
    # 256 (1 - exp(-5.29)) = 254 + 256 = 510): exp(-1354.6/256) = 0.0049 of the visits miss,
    # 5394.7 lines; L2 (4094 lines) keeps the range: its 256 lines once
    data = run(tmp_path, "--set", "RangeKB_g_5_x=16")
    levels = levels_of(data)
    assert levels["L1"]["bytes_per_iteration"] == pytest.approx(
        20 + lru_lines(510, 196800, 256, N) * 64 / N, rel=1e-6)
    assert lru_lines(510, 196800, 256, N) == pytest.approx(5394.7, abs=0.1)
    assert levels["L2"]["bytes_per_iteration"] == pytest.approx(20 + 256 * 64 / N)


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
