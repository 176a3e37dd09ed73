"""The Roofline per level with the machine file's measured bandwidths: per link, the benchmark
measured with the data in the link's outer level whose read/write ratio is closest to the
nest's, at Cores cores.

The machine is tests/data/machines/toy-roofline.yml; its header works out the tables by hand
(bytes over the link: measured x write-allocate factor), at 1 and 2 cores:
  L2 (the L1-L2 link):   load 40, 80   copy 45, 90   triad 48, 96 GB/s
  MEM (the L2-MEM link): load 11, 20   copy 12, 21   triad 12, 20 GB/s
Cores is 2 (cores per socket); 2 GHz x 8 flops per cycle = 16 Gflop/s per core.  The
kernels (a triad, a copy, a sum) are test_ecm_stream_mix's.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from test_ecm_stream_mix import KERNELS, ecm_of

from sat.cli import main
from sat.machine import load_machine

DATA = Path(__file__).parent / "data" / "machines"
MACHINE = str(DATA / "toy-roofline.yml")
N = 100_000_000  # every array beyond L2: each level moves every byte

# Bytes per iteration over both links (a written array: its line read for ownership, then
# written back): triad b, c 8 + 8, a 16 = 32 B; copy 8 + 16 = 24 B; the sum 8 B.
BYTES = {"triad": 32, "copy": 24, "sumall": 8}


def run(tmp_path: Path, *options: str, machine: str = MACHINE) -> dict:
    source, out = tmp_path / "k.f90", tmp_path / "k.json"
    source.write_text(KERNELS)
    assert main([str(source), "-m", machine, "--set", f"n={N}", "--json", str(out), "-q",
                 *options]) == 0
    return json.loads(out.read_text())


def test_the_tables_are_read_per_level_and_cores_with_the_write_allocate_factor():
    table = {(b.level, b.kernel): b.bandwidths
             for b in load_machine(MACHINE).level_benchmarks}
    assert table == {("L2", "load"): [(1, 40), (2, 80)], ("L2", "copy"): [(1, 45), (2, 90)],
                     ("L2", "triad"): [(1, 48), (2, 96)], ("MEM", "load"): [(1, 11), (2, 20)],
                     ("MEM", "copy"): [(1, 12), (2, 21)], ("MEM", "triad"): [(1, 12), (2, 20)]}


def test_each_link_takes_its_levels_benchmark_at_cores_cores(tmp_path):
    data = run(tmp_path)
    values = {p["name"]: p["value"] for p in data["parameters"]}
    assert (values["BenchTriadL2GBs1"], values["BenchTriadL2GBs2"],
            values["BenchCopyMEMGBs2"]) == (48, 96, 21)
    for loop in data["loops"]:
        assert [level["bytes_per_iteration"] for level in loop["levels"]] == \
            pytest.approx([BYTES[loop["procedure"]]] * 2)
    ecm = ecm_of(data)
    # streams read : written: triad 3 : 1, copy 2 : 1, the sum 1 : 0 (as the memory link)
    assert {name: e["roofline_benchmark"] for name, e in ecm.items()} == {
        "triad": {"L1-L2": "triad", "L2-MEM": "triad"},
        "copy": {"L1-L2": "copy", "L2-MEM": "copy"},
        "sumall": {"L1-L2": "load", "L2-MEM": "load"}}
    # at 2 cores: triad 96 and 20 GB/s, copy 90 and 21, load 80 and 20
    assert {name: e["roofline_bandwidth_gbs"] for name, e in ecm.items()} == {
        "triad": {"L1-L2": 96, "L2-MEM": 20}, "copy": {"L1-L2": 90, "L2-MEM": 21},
        "sumall": {"L1-L2": 80, "L2-MEM": 20}}
    # memory bounds all three: triad 32 B x 1E8 / 20 GB/s = 0.16 s (L1-L2 0.0333 s, the
    # 2E8 flops at 32 Gflop/s 0.00625 s); copy 2.4 GB / 21 GB/s; the sum 0.8 GB / 20 GB/s
    assert ecm["triad"]["roofline_time_s"] == pytest.approx(0.16)
    assert ecm["copy"]["roofline_time_s"] == pytest.approx(2.4 / 21)
    assert ecm["sumall"]["roofline_time_s"] == pytest.approx(0.04)
    assert {e["roofline_bound"] for e in ecm.values()} == {"L2-MEM"}
    assert data["totals"]["roofline_time_s"] == pytest.approx(0.16 + 2.4 / 21 + 0.04)


@pytest.mark.parametrize("cores, l2, mem", [(1, 48, 12), (2, 96, 20), (3, 96, 20)])
def test_cores_pick_the_measured_entry(tmp_path, cores, l2, mem):
    # 3 cores, beyond the table: the 2-core entry
    triad = ecm_of(run(tmp_path, "--set", f"Cores={cores}"))["triad"]
    assert triad["roofline_bandwidth_gbs"] == {"L1-L2": l2, "L2-MEM": mem}
    assert triad["roofline_time_s"] == pytest.approx(3.2 / mem)


STENCIL = """\
subroutine s2d(a, b, m, n)
  integer :: m, n, i, j
  double precision :: a(m, n), b(m, n)
  do j = 2, n - 1
    do i = 2, m - 1
      b(i, j) = a(i - 1, j) + a(i + 1, j) + a(i, j - 1) + a(i, j + 1)
    end do
  end do
end subroutine s2d
"""


def test_each_link_counts_its_own_streams(tmp_path):
    # rows of 2002 doubles, 15.6 KiB: the three rows of a and the row of b the reuse between
    # rows needs do not fit L1 (32 KiB) but fit L2.  Over L1-L2 a is read three times (rows
    # j-1, j, j+1) and b allocated and written back: 24 + 16 = 40 B, 4 reads : 1 write, closest
    # to triad's 3 : 1; from memory 8 + 16 = 24 B, 2 : 1, copy's (the halo rows add 0.1 %)
    source, out = tmp_path / "s2d.f90", tmp_path / "s2d.json"
    source.write_text(STENCIL)
    assert main([str(source), "-m", MACHINE, "--set", "m=2002", "--set", "n=20002",
                 "--json", str(out), "-q"]) == 0
    loop = json.loads(out.read_text())["loops"][0]
    assert [level["bytes_per_iteration"] for level in loop["levels"]] == \
        pytest.approx([40, 24], rel=3e-3)
    ecm = loop["ecm"]
    assert ecm["roofline_benchmark"] == {"L1-L2": "triad", "L2-MEM": "copy"}
    assert ecm["roofline_bandwidth_gbs"] == {"L1-L2": 96, "L2-MEM": 21}
    # the memory link's ECM benchmark takes the nest's arrays: a read, b allocated: 2 : 1
    assert ecm["memory_benchmark"] == "copy"


def test_a_slow_level_bounds_and_is_named(tmp_path):
    # L2's triad at 2 cores edited to 5 GB/s: L1-L2 takes 3.2 GB / 5 GB/s = 0.64 s > 0.16 s
    triad = ecm_of(run(tmp_path, "--set", "BenchTriadL2GBs2=5"))["triad"]
    assert triad["roofline_bound"] == "L1-L2"
    assert triad["roofline_time_s"] == pytest.approx(0.64)


def test_a_level_without_a_table_keeps_the_links_throughput(tmp_path):
    # toy-stream-mix measured memory only (1, 2 cores: triad 9, 16 GB/s x 4/3): L1-L2 at its
    # throughput, L1GBs 64 GB/s per core x 2 cores; memory at the triad's 16 x 4/3 GB/s
    triad = ecm_of(run(tmp_path, machine=str(DATA / "toy-stream-mix.yml")))["triad"]
    assert "L1-L2" not in triad["roofline_benchmark"]
    assert triad["roofline_bandwidth_gbs"] == pytest.approx({"L1-L2": 128, "L2-MEM": 64 / 3})
    assert triad["roofline_time_s"] == pytest.approx(3.2 / (64 / 3))


def test_a_machine_without_benchmarks_keeps_the_levels_times(tmp_path):
    data = run(tmp_path, machine="xeon-e5-2680")  # an XML machine file: no benchmark table
    assert not [p for p in data["parameters"] if p["name"].startswith("Bench")]
    loop = data["loops"][0]
    assert "roofline_bandwidth_gbs" not in loop["ecm"]
    assert loop["ecm"]["roofline_time_s"] == pytest.approx(
        max(loop["time_cpu_s"], *[level["time_s"] for level in loop["levels"]]))


@pytest.mark.libreoffice
def test_editing_cores_and_a_bandwidth_in_the_workbook_matches_set(tmp_path):
    from libreoffice import recalculate_edited, value_at

    book_path = tmp_path / "k.xlsx"
    written = run(tmp_path, "-o", str(book_path))
    edits = {"Cores": 1, "BenchCopyMEMGBs1": 6}
    book = recalculate_edited(book_path, edits, tmp_path / "lo")
    expected = run(tmp_path, *[a for name, value in edits.items()
                               for a in ("--set", f"{name}={value}")])

    def cell(address: str):
        return value_at(book, address)

    codes = {"load": 1, "copy": 2, "triad": 3}  # the table's order
    for before, after in zip(written["loops"], expected["loops"], strict=True):
        cells, ecm = before["ecm"]["cells"], after["ecm"]
        for link in ("L1-L2", "L2-MEM"):
            assert cell(cells[f"roofline_gbs_{link}"]) == pytest.approx(
                ecm["roofline_bandwidth_gbs"][link])
            assert cell(cells[f"roofline_benchmark_{link}"]) == \
                codes[ecm["roofline_benchmark"][link]]
        for key in ("roofline_time_s", "t_ecm", "time_s"):
            assert cell(cells[key]) == pytest.approx(ecm[key]), key
        # the bound's code: 1 core, 2 L1-L2, 3 L2-MEM
        assert cell(cells["roofline_bound"]) == \
            ["core", "L1-L2", "L2-MEM"].index(ecm["roofline_bound"]) + 1
    # copy at one core: 2.4 GB at the edited 6 GB/s
    assert expected["loops"][1]["ecm"]["roofline_time_s"] == pytest.approx(0.4)
