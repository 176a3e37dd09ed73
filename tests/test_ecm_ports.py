"""The ECM model's machine side, by hand, on a two-level test machine written here.

The machine ("ports-test"): 4 cores at 2 GHz, 64-byte lines, 8-byte words; a private 32 KiB
L1, an L2 of 4 MiB shared by the 4 cores (L2KB = 1 MiB per core when all 4 run); memory
40 GB/s shared by the 4 cores.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sat.cli import main

MACHINE = """\
<machine name="ports-test" description="a two-level test machine for the ECM model">
  <prop key="Cores" val="4" source="test"/>
  <prop key="GflopsPerCore" val="16" source="test: 2 GHz x 8 flops per cycle"/>
  <prop key="GBsPerCore" val="10" source="test"/>
  <prop key="CacheKB" val="1024" source="test"/>
  <prop key="LineBytes" val="64" source="test"/>
  <prop key="WordBytes" val="8" source="test"/>
  <prop key="ClockGHz" val="2" source="test"/>
  <memory>
    <level name="L1" size_kib="32" line_bytes="64" shared_by_cores="1" bandwidth_gbs="128"
           source="test"/>
    <level name="L2" size_kib="4096" line_bytes="64" shared_by_cores="4" bandwidth_gbs="256"
           policy="inclusive" source="test"/>
    <level name="memory" line_bytes="64" shared_by_cores="4" bandwidth_gbs="40" source="test"/>
  </memory>
</machine>
"""

# 1d-3pt, Kerncraft's example kernel, in C
ONE_D_3PT = """\
double a[N], b[N], c;

for(int i=1; i<N-1; ++i)
    b[i] = c * (a[i-1] - 2.0*a[i] + a[i+1]);
"""

STENCIL7 = """\
double a[M][N][N];
double b[M][N][N];
double s;

for(int k=1; k<M-1; ++k)
    for(int j=1; j<N-1; ++j)
        for(int i=1; i<N-1; ++i)
            b[k][j][i] = ( a[k][j][i-1] + a[k][j][i+1]
                         + a[k][j-1][i] + a[k][j+1][i]
                         + a[k-1][j][i] + a[k+1][j][i]) * s;
"""


def run(tmp_path: Path, source: str, *options: str, name: str = "kernel.c",
        machine: str = MACHINE) -> dict:
    path, machine_file = tmp_path / name, tmp_path / "ports-test.xml"
    path.write_text(source)
    machine_file.write_text(machine)
    out = tmp_path / "out.json"
    assert main([str(path), "-m", str(machine_file), "--json", str(out), "-q",
                 *options]) == 0
    return json.loads(out.read_text())


def parameter(data: dict, name: str):
    return next(p for p in data["parameters"] if p["name"] == name)


@pytest.mark.parametrize(("cores", "l2_kib"), [
    (1, 4096),   # one core alone owns the whole shared L2: 1024 x 4 / MIN(1, 4)
    (2, 2048),   # 1024 x 4 / 2
    (4, 1024),   # every sharing core runs: L2KB
    (8, 1024),   # two instances, each shared by 4: 1024 x 4 / MIN(8, 4)
])
def test_a_shared_cache_is_shared_by_the_cores_in_use(tmp_path, cores, l2_kib):
    data = run(tmp_path, ONE_D_3PT, "--set", "N=1000000", "--set", f"Cores={cores}")
    assert parameter(data, "L2KB")["value"] == 1024
    assert parameter(data, "L2SharedBy")["value"] == 4
    assert "L1SharedBy" not in {p["name"] for p in data["parameters"]}  # a private level
    (loop,) = data["loops"]
    sizes = {level["level"]: level["size_kib"] for level in loop["levels"]}
    assert sizes == {"L1": 32, "L2": l2_kib}


def test_the_shared_capacity_decides_the_layer_condition(tmp_path):
    # 7-point stencil, N = M = 300: rows of 298 iterations spanning 300 elements, rounded to
    # 38 lines = 304 elements.  Reuse between planes keeps 3 planes of a (298 rows + the 2
    # ghost rows, 300 rows of 304) and one of b (298 rows of 304):
    # (3 x 300 x 304 + 298 x 304) x 8 B / 1024 = 2845.25 KiB: it fits the 4 MiB one core
    # owns, not the 1 MiB each of 4 cores has
    one = run(tmp_path, STENCIL7, "--set", "N=300", "--set", "M=300", "--set", "Cores=1")
    four = run(tmp_path, STENCIL7, "--set", "N=300", "--set", "M=300", "--set", "Cores=4")
    (_, l2_one), (_, l2_four) = one["loops"][0]["levels"], four["loops"][0]["levels"]
    assert l2_one["ws_plane_kb"] == pytest.approx(2845.25)
    assert (l2_one["layer_condition"], l2_four["layer_condition"]) == ("planes", "pencils")


KERNCRAFT_ARM_STYLE = """\
# invented figures; the layout of Kerncraft's files, with cl_size written as a quantity
kerncraft version: 0.8.18
model name: test Arm-style machine (invented)
clock: 2.0 GHz
cores per socket: 4
FLOPs per cycle:
  DP: {ADD: INFORMATION_REQUIRED, FMA: INFORMATION_REQUIRED, MUL: INFORMATION_REQUIRED,
    total: INFORMATION_REQUIRED}
cacheline size: 64 B
memory hierarchy:
- level: L1
  cache per group: {
    sets: 64, ways: 8, cl_size: 64 B, replacement_policy: LRU,
    write_allocate: true, write_back: true, load_from: L2, store_to: L2}
  cores per group: 1
  upstream throughput: [architecture code analyzer, ['3', '4', '5']]
- level: L2
  cache per group: {
    sets: 512, ways: 8, cl_size: 64 B, replacement_policy: LRU,
    write_allocate: true, write_back: true}
  cores per group: 1
  upstream throughput: [64 B/cy, half-duplex]
- level: MEM
  upstream throughput: [full socket memory bandwidth, half-duplex]
benchmarks:
  measurements:
    MEM:
      1:
        results:
          load: [20.00 GB/s, 40.00 GB/s]
"""


def test_a_kerncraft_file_may_write_cl_size_with_its_unit(tmp_path):
    machine = tmp_path / "arm-style.yml"
    machine.write_text(KERNCRAFT_ARM_STYLE)
    source = tmp_path / "kernel.c"
    source.write_text(ONE_D_3PT)
    out = tmp_path / "out.json"
    assert main([str(source), "-m", str(machine), "--json", str(out), "-q"]) == 0
    (loop,) = json.loads(out.read_text())["loops"]
    # 64 sets x 8 ways x 64 B = 32 KiB; 512 x 8 x 64 B = 256 KiB
    assert {level["level"]: level["size_kib"] for level in loop["levels"]} == \
        {"L1": 32, "L2": 256}


@pytest.mark.parametrize("n", [0, 1, 2, 3, 10])
def test_tiny_problems_run_with_a_warning(tmp_path, capsys, n):
    data = run(tmp_path, STENCIL7, "--set", f"N={n}", "--set", f"M={n}")
    (loop,) = data["loops"]
    messages = [w["message"] for w in data["warnings"]]
    if n == 3:  # one row and one plane: Y and Z extents of 1, under the stencil's 2
        assert any("extent along Y (1) is narrower than the stencil (2)" in m
                   for m in messages)
    assert loop["ecm"]["t_ecm"] is not None
