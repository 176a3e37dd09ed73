"""Memory bandwidth by stream mix: the machine file's memory benchmarks as parameters, and per
nest the benchmark closest in read/write ratio setting the ECM model's memory link.

The machine is tests/data/machines/toy-stream-mix.yml (two cache levels, 2 cores in one
memory domain, ClockGHz 2); its header works out the benchmark table by hand, in streams
read (a written array's write-allocate read included) and written over the memory bus:
load 1:0 20 GB/s, copy 2:1 18 GB/s, triad 3:1 21.33 GB/s.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sat.cli import main
from sat.machine import load_machine

DATA = Path(__file__).parent / "data" / "machines"
MACHINE = str(DATA / "toy-stream-mix.yml")

KERNELS = """\
subroutine triad(a, b, c, s, n)
  integer :: n, i
  double precision :: a(n), b(n), c(n), s
  do i = 1, n
    a(i) = b(i) + s * c(i)
  end do
end subroutine triad

subroutine copy(a, b, n)
  integer :: n, i
  double precision :: a(n), b(n)
  do i = 1, n
    a(i) = b(i)
  end do
end subroutine copy

subroutine sumall(b, s, n)
  integer :: n, i
  double precision :: b(n), s
  do i = 1, n
    s = s + b(i)
  end do
end subroutine sumall
"""


def run(tmp_path: Path, *options: str, machine: str = MACHINE) -> dict:
    source, out = tmp_path / "mix.f90", tmp_path / "out.json"
    source.write_text(KERNELS)
    assert main([str(source), "-m", machine, "--set", "n=100000000", "--json", str(out), "-q",
                 *options]) == 0
    return json.loads(out.read_text())


def ecm_of(data: dict) -> dict[str, dict]:
    return {loop["procedure"]: loop["ecm"] for loop in data["loops"]}


def test_the_benchmark_table_is_read_at_one_memory_domains_cores():
    table = {b.name: (b.read_streams, b.write_streams, b.bandwidth_gbs)
             for b in load_machine(MACHINE).memory_benchmarks}
    # the 2-core results times the write-allocate factor (header of the machine file)
    assert table == {"load": (1, 0, 20), "copy": (2, 1, 12 * 1.5),
                     "triad": (3, 1, pytest.approx(16 * 4 / 3))}


def test_each_nest_takes_the_benchmark_closest_in_stream_mix(tmp_path):
    data = run(tmp_path)
    values = {p["name"]: p["value"] for p in data["parameters"]}
    assert (values["BenchCopyReads"], values["BenchCopyWrites"], values["BenchCopyGBs"]) == \
        (2, 1, 18)
    ecm = ecm_of(data)
    # the nests' streams over the bus (WriteCost 16 = 2 words: writes allocate): triad reads
    # b, c and a's line for ownership, writes a: 3:1 -> triad; copy 2:1 -> copy; the sum
    # reads b and writes nothing: 1:0 -> load
    assert {name: e["memory_benchmark"] for name, e in ecm.items()} == \
        {"triad": "triad", "copy": "copy", "sumall": "load"}
    # a unit of work is 64 B / 8 B = 8 iterations; memory bytes per iteration (write-allocate):
    # triad b, c read + a allocated and written back = 32 B -> 256 B per unit, at
    # 21.33 GB/s / 2 GHz = 10.67 B/cycle: 24 cycles (with the load benchmark's 20 GB/s: 25.6)
    assert ecm["triad"]["memory_bandwidth_gbs"] == pytest.approx(64 / 3)
    assert ecm["triad"]["t_data"]["L2-MEM"] == pytest.approx(24)
    # copy: 24 B per iteration, 192 B per unit at 18 / 2 = 9 B/cycle: 21.33 cycles
    assert ecm["copy"]["t_data"]["L2-MEM"] == pytest.approx(192 / 9)
    # the reduction reads b only: 64 B per unit at 20 / 2 = 10 B/cycle: 6.4 cycles
    assert ecm["sumall"]["t_data"]["L2-MEM"] == pytest.approx(6.4)
    # T_ECM adds the memory term (no transfer overlaps on this machine)
    for e in ecm.values():
        assert e["t_ecm"] == pytest.approx(max(e["t_ol"], e["t_nol"] + sum(e["t_data"].values())))


def test_editing_the_table_moves_the_choice_and_the_memory_term(tmp_path):
    ecm = ecm_of(run(tmp_path, "--set", "BenchCopyGBs=9", "--set", "BenchTriadReads=2"))
    # the triad nest's 3:1 is now as close to copy 2:1 as to "triad" 2:1: the first in the
    # table wins
    assert ecm["triad"]["memory_benchmark"] == "copy"
    # copy at half the bandwidth: twice 21.33 cycles
    assert ecm["copy"]["t_data"]["L2-MEM"] == pytest.approx(2 * 192 / 9)
    assert ecm["triad"]["t_data"]["L2-MEM"] == pytest.approx(256 / 4.5)


def test_a_machine_without_benchmarks_keeps_one_memory_bandwidth(tmp_path):
    data = run(tmp_path, machine="xeon-e5-2680")  # an XML machine file: no benchmark table
    assert not [p for p in data["parameters"] if p["name"].startswith("Bench")]
    ecm = ecm_of(data)
    assert all("memory_benchmark" not in e for e in ecm.values())
    # triad's 256 B per unit of work at L3GBs 51.2 GB/s / 2.7 GHz: 13.5 cycles
    assert ecm["triad"]["t_data"]["L3-MEM"] == pytest.approx(256 * 2.7 / 51.2)


@pytest.mark.libreoffice
def test_editing_a_benchmark_bandwidth_in_the_workbook_matches_set(tmp_path):
    from libreoffice import recalculate_edited

    book_path = tmp_path / "mix.xlsx"
    written = run(tmp_path, "-o", str(book_path))
    edits = {"BenchCopyGBs": 9, "BenchTriadReads": 2}
    book = recalculate_edited(book_path, edits, tmp_path / "lo")
    expected = run(tmp_path, *[a for name, value in edits.items()
                               for a in ("--set", f"{name}={value}")])

    def cell(address: str):
        sheet, where = address.rsplit("!", 1)
        return book[sheet.strip("'")][where.replace("$", "")].value

    codes = {"load": 1, "copy": 2, "triad": 3}  # the table's order
    for before, after in zip(written["loops"], expected["loops"], strict=True):
        cells, ecm = before["ecm"]["cells"], after["ecm"]
        assert cell(cells["memory_benchmark"]) == codes[ecm["memory_benchmark"]]
        for key in ("memory_bandwidth_gbs", "t_ecm", "time_s"):
            assert cell(cells[key]) == pytest.approx(ecm[key]), key
        assert cell(cells["t_L2-MEM"]) == pytest.approx(ecm["t_data"]["L2-MEM"])
    assert expected["loops"][0]["ecm"]["memory_benchmark"] == "copy"


def test_streaming_writes_drop_the_write_allocate_read_from_the_mix(tmp_path):
    # benchmarks copy 3:1, triad 2:1.  Writes allocating, the triad nest reads b, c and a's
    # line: 3:1, exactly copy's; with StreamingWrites no read for ownership: 2:1, triad's
    table = ("--set", "BenchTriadReads=2", "--set", "BenchCopyReads=3")
    assert ecm_of(run(tmp_path, *table))["triad"]["memory_benchmark"] == "copy"
    streaming = ecm_of(run(tmp_path, *table, "--set", "StreamingWrites=TRUE"))
    assert streaming["triad"]["memory_benchmark"] == "triad"
