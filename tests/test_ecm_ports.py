"""The ECM model's in-core port model, shared caches and steady state, by hand, on a
two-level test machine written here.

The machine ("ports-test"): 4 cores at 2 GHz, 64-byte lines, 8-byte words; a private 32 KiB
L1, an L2 of 4 MiB shared by the 4 cores (L2KB = 1 MiB per core when all 4 run); memory
40 GB/s shared by the 4 cores.  The core: 32-byte vectors (4 elements), 1 add, 1 multiply and
1 FMA port, 2 FP instructions per cycle; 2 load ports and 1 store port of 16 bytes (a 32-byte
access takes 2 cycles of a port), 2 address units; stores overlap with transfers, address
units do not.  A unit of work is 8 iterations (64 B / 8 B): 2 vector instructions per
operation of an iteration, each load or store 2 port cycles.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from test_c_snippets import STENCIL_3D as STENCIL7  # the 7-point stencil, in C

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
  <prop key="VectorBytes" val="32" source="test"/>
  <prop key="AddPorts" val="1" source="test"/>
  <prop key="MulPorts" val="1" source="test"/>
  <prop key="FMAPorts" val="1" source="test"/>
  <prop key="FPPorts" val="2" source="test"/>
  <prop key="DivCycles" val="16" source="test"/>
  <prop key="LoadsPerCycle" val="2" source="test"/>
  <prop key="LoadBytes" val="16" source="test"/>
  <prop key="StoresPerCycle" val="1" source="test"/>
  <prop key="StoreBytes" val="16" source="test"/>
  <prop key="AGUsPerCycle" val="2" source="test"/>
  <prop key="StoresOverlap" val="1" source="test"/>
  <prop key="AGUsOverlap" val="0" source="test"/>
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


def run_kerncraft_file(tmp_path: Path, machine_text: str, source: str, *options: str) -> dict:
    """satreport's JSON for ``source`` on a Kerncraft-format machine file written here."""
    machine = tmp_path / "machine.yml"
    machine.write_text(machine_text)
    path = tmp_path / "kernel.c"
    path.write_text(source)
    out = tmp_path / "out.json"
    assert main([str(path), "-m", str(machine), "--json", str(out), "-q", *options]) == 0
    return json.loads(out.read_text())


def test_a_kerncraft_file_may_write_cl_size_with_its_unit(tmp_path):
    (loop,) = run_kerncraft_file(tmp_path, KERNCRAFT_ARM_STYLE, ONE_D_3PT)["loops"]
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


TRIAD = """\
double a[N], b[N], c[N], d[N];

for(int i=0; i<N; ++i)
    a[i] = b[i] + c[i] * d[i];
"""

COPY = """\
double a[N], b[N];

for(int i=0; i<N; ++i)
    a[i] = b[i];
"""


def incore(tmp_path: Path, source: str, *options: str) -> dict:
    sizes = ["--set", "N=100", "--set", "M=100"] if "M" in source else ["--set", "N=1000000"]
    data = run(tmp_path, source, *sizes, *options)
    return data["loops"][0]["ecm"]


@pytest.mark.parametrize(("source", "instructions", "t_ol", "t_nol"), [
    # Every kernel: 2 vector iterations per unit x the assumed 2 loop instructions (counter
    # increment, fused compare-and-branch) = 4 integer instructions, no address arithmetic;
    # on the assumed 4 integer ports apart from the FP ones they never decide T_OL here.
    # 1d-3pt: 2 adds, 2 multiplies per iteration: 2 FMA (MIN(2, 2)), nothing apart; 3 loads
    # (a at -1, 0, +1), 1 store.  T_fp = MAX(4 FMA / 1, 4 / 2) = 4; 12 load uops / 2 ports
    # = 6; 4 store uops / 1 = 4; addresses MAX(6, 16 / 2) = 8.
    # T_OL = MAX(4, T_store 4) = 4; T_nOL = MAX(6, T_agu 8) = 8
    (ONE_D_3PT, {"add": 0, "mul": 0, "fma": 4, "div": 0, "special": 0, "load": 6,
                 "store": 2, "int": 4}, 4, 8),
    # triad: 1 add, 1 multiply: 1 FMA; 3 loads, 1 store.  T_fp = MAX(2 / 1, 2 / 2) = 2;
    # loads 12 uops / 2 = 6; stores 4; addresses MAX(6, 16 / 2) = 8: T_OL 4, T_nOL 8
    (TRIAD, {"add": 0, "mul": 0, "fma": 2, "div": 0, "special": 0, "load": 6,
             "store": 2, "int": 4}, 4, 8),
    # copy: no arithmetic; 1 load (4 uops / 2 = 2), 1 store (4 uops / 1 = 4), addresses
    # MAX(2, 8 / 2) = 4: T_OL = T_store 4; T_nOL = MAX(2, 4) = 4
    (COPY, {"add": 0, "mul": 0, "fma": 0, "div": 0, "special": 0, "load": 2,
            "store": 2, "int": 4}, 4, 4),
    # 7-point stencil: 5 adds, 1 multiply: 1 FMA and 4 adds; 6 loads, 1 store.
    # T_fp = MAX(8 / 1, 2 / 1, (8 + 2) / 2) = 8; loads 24 uops / 2 = 12; stores 4;
    # addresses MAX(12, 28 / 2) = 14: T_OL = MAX(8, 4) = 8; T_nOL = MAX(12, 14) = 14
    (STENCIL7, {"add": 8, "mul": 0, "fma": 2, "div": 0, "special": 0, "load": 12,
                "store": 2, "int": 4}, 8, 14),
])
def test_port_counts_of_four_kernels(tmp_path, source, instructions, t_ol, t_nol):
    ecm = incore(tmp_path, source)
    assert ecm["incore"] == {"vectorised": True, "vector_elements": 4,
                             "instructions": instructions}
    assert (ecm["t_ol"], ecm["t_nol"]) == (pytest.approx(t_ol), pytest.approx(t_nol))


def test_a_nest_turned_scalar_issues_one_element_per_instruction(tmp_path):
    data = run(tmp_path, STENCIL7, "--set", "N=100", "--set", "M=100")
    (name,) = [p["name"] for p in data["parameters"] if p["name"].startswith("Vectorised_")]
    ecm = incore(tmp_path, STENCIL7, "--set", f"{name}=FALSE")
    # 8 instructions per operation; 8-byte accesses take one port cycle.  4 adds -> 32,
    # 1 FMA -> 8, 6 loads -> 48, 1 store -> 8.  T_fp = MAX(32 / 1, 8 / 1, 40 / 2) = 32;
    # loads 48 / 2 = 24; stores 8; addresses MAX(24, 56 / 2) = 28
    assert ecm["incore"]["vectorised"] is False
    assert ecm["incore"]["instructions"]["add"] == 32
    assert (ecm["t_ol"], ecm["t_nol"]) == (32, 28)


def test_the_vectorised_column_says_what_its_cells_hold():
    # The switch is TRUE/FALSE on the Parameters sheet; the ECM column holds it as 1/0 (a cell
    # never holds a boolean), so its unit reads 0/1.
    from sat.model.hierarchy.incore import incore_columns
    (column,) = [c for c in incore_columns() if c.key == "vectorised"]
    assert column.unit == "0/1"


KAHAN = """\
double a[N], b[N], sum, c, y, t;

for(int i=0; i<N; ++i) {
    y = a[i]*b[i] - c;
    t = sum + y;
    c = (t - sum) - y;
    sum = t;
}
"""


@pytest.mark.parametrize(("source", "why"), [
    ("double a[N], b[N];\nfor(int i=1; i<N; ++i)\n    a[i] = a[i-1] + b[i];\n",
     "a is written and read at other offsets along i"),
    (KAHAN, "c, sum carry a value from one iteration to the next through other scalars"),
])
def test_a_value_carried_from_one_iteration_to_the_next_keeps_the_loop_scalar(
        tmp_path, source, why):
    data = run(tmp_path, source, "--set", "N=1000")
    (switch,) = [p for p in data["parameters"] if p["name"].startswith("Vectorised_")]
    assert switch["value"] is False and why in switch["source"]
    assert data["loops"][0]["ecm"]["incore"]["vector_elements"] == 1


DOT = """\
double a[N], b[N], s;

for(int i=0; i<N; ++i)
    s += a[i]*b[i];
"""

SUM = """\
double a[N], s;

for(int i=0; i<N; ++i)
    s += a[i];
"""


def test_kahan_summation_is_a_scalar_recurrence_of_three_assignments(tmp_path):
    # c -> y -> t -> c: y = a*b - c, t = sum + y, c = (t - sum) - y, three assignments on the
    # longest cycle (sum = t is a copy).  Scalar: 8 instructions per operation.  4 adds and
    # 1 multiply per iteration, 3 adds in order on the chain: the 1 other add fuses with the
    # multiply: 8 FMA, 3 x 8 = 24 scalar adds.  T_chain = 3 x 8 x AddLatency 4 = 96 (T_fp
    # MAX(24 / 1, 8 / 1, 32 / 2) = 24).  Loads 2 x 8 of 8 B / 2 ports = 8, addresses
    # MAX(8, 16 / 2) = 8: T_OL 96, T_nOL 8 (Kerncraft on Sandy Bridge, 3-cycle adds: 96, 8)
    ecm = incore(tmp_path, KAHAN)
    assert (ecm["incore"]["vectorised"], ecm["chain_updates"]) == (False, 3)
    counts = ecm["incore"]["instructions"]
    assert (counts["add"], counts["fma"], counts["load"]) == (24, 8, 16)
    assert (ecm["t_ol"], ecm["t_nol"]) == (96, 8)


@pytest.mark.parametrize(("source", "options", "add", "fma", "load", "t_ol", "t_nol"), [
    # The dot product in source order (FastMath FALSE, the test machine's default): the loads
    # and the multiply are vector (2 arrays x 2 = 4 loads, 1 x 2 = 2 multiplies), the add of
    # each element to s is scalar and not fused: 8 adds.  The chain: 1 update x 8 elements x
    # AddLatency 4 (assumed) = 32 cycles, above T_fp MAX(8 / 1, 2 / 1, 10 / 2) = 8.  Loads
    # 4 x 2 uops / 2 ports = 4; addresses MAX(4, 8 / 2) = 4: T_nOL 4
    (DOT, (), 8, 0, 4, 32, 4),
    # FastMath: one vector of 4 partial sums, the add fused with the multiply: 2 FMA; the
    # chain 1 x 8 x 4 / (4 lanes x 1 accumulator) = 8
    (DOT, ("FastMath=TRUE",), 0, 2, 4, 8, 4),
    # two accumulators: 8 x 4 / (4 x 2) = 4; T_fp 2 FMA / 1 port = 2, integer work
    # MAX(4 / 4, (4 + 2) / (4 + 2 - 0)) = 1: T_OL 4
    (DOT, ("FastMath=TRUE", "Accumulators=2"), 0, 2, 4, 4, 4),
    # the plain sum in source order: its only arithmetic is the chain, so the elements are
    # loaded one by one into the scalar adds: 8 loads of 8 B, one port cycle each, / 2 = 4;
    # addresses MAX(4, 8 / 2) = 4.  Chain 1 x 8 x 4 = 32
    (SUM, (), 8, 0, 8, 32, 4),
    # with FastMath the sum is vector: 2 loads (2 uops each) / 2 = 2, addresses MAX(2, 4 / 2);
    # chain 8 x 4 / 4 = 8
    (SUM, ("FastMath=TRUE",), 2, 0, 2, 8, 2),
])
def test_a_reduction_is_bound_by_its_chain_of_adds(tmp_path, source, options, add, fma, load,
                                                  t_ol, t_nol):
    ecm = incore(tmp_path, source, *[a for o in options for a in ("--set", o)])
    assert ecm["incore"]["vectorised"] is True
    assert ecm["chain_updates"] == 1
    counts = ecm["incore"]["instructions"]
    assert (counts["add"], counts["fma"], counts["load"]) == (add, fma, load)
    assert (ecm["t_ol"], ecm["t_nol"]) == (pytest.approx(t_ol), pytest.approx(t_nol))


KERNCRAFT_TX2 = KERNCRAFT_ARM_STYLE + """\
in-core model: !!omap
  - OSACA: TX2
compiler: !!omap
  - gcc: -Ofast -march=armv8.1-a
non-overlapping model:
  ports:
    OSACA: ['3', '4', '5']
"""

FIVE_POINT = """\
double a[M][N], b[M][N], s;

for(int j=1; j<M-1; ++j)
    for(int i=1; i<N-1; ++i)
        b[j][i] = (a[j][i-1] + a[j][i+1] + a[j-1][i] + a[j+1][i]) * s;
"""


@pytest.mark.parametrize(("source", "fma", "integer", "t_ol", "t_nol"), [
    # 2d-5pt on ThunderX2 (the table: 16-byte NEON vectors, 2 elements; a unit of 8
    # iterations is 4 vector iterations).  3 adds, 1 multiply: 1 FMA (4) and 2 adds (8);
    # 4 loads (16), 1 store (4).  Integer: 3 loop instructions x 4 + 1 per register-offset
    # load x 16 = 28.  T_fp = MAX(8 / 2, 4 / 2, 12 / 2) = 6; T_int = MAX(28 / 3, (28 + 12) /
    # (3 + 2 - 2)) = 13.33: T_OL 13.33 (Kerncraft with OSACA, which sees gcc fuse nothing:
    # 14.68).  Loads 16 / 2 = 8, stores 4 / 1, addresses MAX(8, 20 / 2) = 10, neither
    # overlapping (ports 3, 4, 5 listed as non-overlapping): T_nOL 10, as Kerncraft's
    (FIVE_POINT, 4, 28, 40 / 3, 10),
    # the dot product, -Ofast: FastMath, 1 FMA per iteration fused (4); loads 8; integer
    # 3 x 4 + 8 = 20, T_int = MAX(20 / 3, 24 / 3) = 8; the chain 1 x 8 x AddLatency 6 / (2
    # lanes x 1 accumulator) = 24: T_OL 24; loads 8 / 2 = 4, addresses MAX(4, 8 / 2): T_nOL
    # 4 (Kerncraft: 24 and 4)
    (DOT, 4, 20, 24, 4),
])
def test_thunderx2_counts_loop_and_address_instructions(tmp_path, source, fma, integer, t_ol,
                                                        t_nol):
    sizes = ["--set", "N=1000", "--set", "M=1000"] if "M" in source else ["--set", "N=1000"]
    data = run_kerncraft_file(tmp_path, KERNCRAFT_TX2, source, *sizes)
    assert parameter(data, "FastMath")["value"] is True
    ecm = data["loops"][0]["ecm"]
    assert ecm["incore"]["vector_elements"] == 2
    assert ecm["incore"]["instructions"]["fma"] == fma
    assert ecm["incore"]["instructions"]["int"] == integer
    assert (ecm["t_ol"], ecm["t_nol"]) == (pytest.approx(t_ol), pytest.approx(t_nol))


@pytest.mark.parametrize(("options", "t_penalty", "t_ecm"), [
    # triad, N = 1,000,000, one core: a, b, c read and d read for ownership (WriteCost 16 B
    # over WordBytes 8: writes allocate) and written back: 5 lines per unit of 8 iterations,
    # 320 B: L1-L2 320 / (256 GB/s / 4 cores / 2 GHz = 32 B/cycle) = 10, L2-MEM 320 / 20 = 16.
    # No penalty: T_ECM = T_nOL 8 + 10 + 16 = 34
    ((), 0, 34),
    # 5 lines x (4 read streams x 0.5 + 1 write stream x 2) / 5 streams = 4: 8 + 10 + 16 + 4
    (("MemLoadPenaltyCycles=0.5", "MemStorePenaltyCycles=2"), 4, 38),
    # the load ports overlapping: MAX(T_OL 4, T_nOL 8, 10 + 16 + 4) = 30
    (("MemLoadPenaltyCycles=0.5", "MemStorePenaltyCycles=2", "LoadsOverlap=TRUE"), 4, 30),
])
def test_memory_penalty_and_overlapping_loads(tmp_path, options, t_penalty, t_ecm):
    data = run(tmp_path, TRIAD, "--set", "N=1000000", "--set", "Cores=1",
               *[a for o in options for a in ("--set", o)])
    ecm = data["loops"][0]["ecm"]
    assert (ecm["t_nol"], ecm["t_data"]) == (8, {"L1-L2": 10, "L2-MEM": 16})
    assert (ecm["t_penalty"], ecm["t_ecm"]) == (pytest.approx(t_penalty), pytest.approx(t_ecm))


def test_a_kerncraft_file_gives_memory_penalties_and_the_loads_overlap(tmp_path):
    text = KERNCRAFT_TX2.replace(
        "  upstream throughput: [architecture code analyzer, ['3', '4', '5']]\n",
        "  upstream throughput: [architecture code analyzer, ['3', '4', '5']]\n"
        "  transfers overlap: true\n").replace(
        "  upstream throughput: [full socket memory bandwidth, half-duplex]\n",
        "  upstream throughput: [full socket memory bandwidth, half-duplex]\n"
        "  penalty cycles per cacheline load: 2.56\n"
        "  penalty cycles per cachlinie store: 2.56\n")
    data = run_kerncraft_file(tmp_path, text, TRIAD)
    # the misspelt store key is not the penalty (Kerncraft ignores it too)
    assert [parameter(data, name)["value"] for name in (
        "MemLoadPenaltyCycles", "MemStorePenaltyCycles", "LoadsOverlap")] == [2.56, 0, True]
    assert "penalty cycles per cachlinie store" in " ".join(n["message"] for n in data["notes"])


def test_warm_caches_keep_what_fits(tmp_path):
    # 1d-3pt with N = 100,000: a spans 100,000 elements, b's 99,998 round to 100,000 (whole
    # lines): 200,000 x 8 B / 1024 = 1562.5 KiB of data.  It does not fit the 32 KiB L1, it
    # fits the 4 MiB L2 one core owns.
    cold = run(tmp_path, ONE_D_3PT, "--set", "N=100000", "--set", "Cores=1")
    warm = run(tmp_path, ONE_D_3PT, "--set", "N=100000", "--set", "Cores=1",
               "--set", "WarmCaches=TRUE")
    (l1_cold, l2_cold), (l1_warm, l2_warm) = cold["loops"][0]["levels"], \
        warm["loops"][0]["levels"]
    assert l1_warm["data_kib"] == pytest.approx(1562.5)
    # L1: the same either way: a read once (8 B), b read for ownership and written back
    # (16 B): 24 B per iteration (x 100,000 / 99,998 iterations for the rounding)
    for level in (l1_cold, l1_warm):
        assert level["bytes_per_iteration"] == pytest.approx(24 * 100000 / 99998)
    # memory: cold, the same 24 B; warm, nothing (the data stays in L2)
    assert l2_cold["bytes_per_iteration"] == pytest.approx(24 * 100000 / 99998)
    assert (l2_warm["traffic_gb"], l2_warm["layer_condition"]) == (0, "resident")
    assert warm["loops"][0]["ecm"]["t_data"]["L2-MEM"] == 0
    # 4 cores: 390.6 KiB each, against 1 MiB of L2 each: still resident
    four = run(tmp_path, ONE_D_3PT, "--set", "N=100000", "--set", "Cores=4",
               "--set", "WarmCaches=TRUE")
    assert four["loops"][0]["levels"][1]["layer_condition"] == "resident"
    assert parameter(warm, "WarmCaches")["value"] is True


@pytest.mark.libreoffice
def test_editing_ports_cores_and_warm_caches_in_the_workbook_matches_set(tmp_path):
    from libreoffice import recalculate_edited

    book_path = tmp_path / "k.xlsx"
    written = run(tmp_path, STENCIL7, "--set", "N=300", "--set", "M=300", "-o", str(book_path))
    cells = written["loops"][0]
    edits = {"AddPorts": 2, "LoadBytes": 32, "Cores": 1, "WarmCaches": True}
    book = recalculate_edited(book_path, edits, tmp_path / "lo")
    expected = run(tmp_path, STENCIL7, "--set", "N=300", "--set", "M=300",
                   *[a for name, value in edits.items()
                     for a in ("--set", f"{name}={str(value).upper()}")])
    (loop,) = expected["loops"]
    # by hand: adds 8 / 2 ports = 4, FMA 2 / 1, (8 + 2) / 2 = 5 -> T_fp 5; 32-byte loads take
    # one cycle: 12 / 2 = 6; stores 4 (16-byte port); addresses MAX(6, (12 + 4) / 2) = 8
    assert (loop["ecm"]["t_ol"], loop["ecm"]["t_nol"]) == (5, 8)
    # one core owns the 4 MiB L2, the 2845 KiB of planes fit: condition planes
    assert loop["levels"][1]["layer_condition"] == "planes"

    def cell(address: str):
        sheet, where = address.rsplit("!", 1)
        return book[sheet.strip("'")][where.replace("$", "")].value

    for key in ("t_ol", "t_nol", "t_ecm", "time_s", "roofline_time_s"):
        assert cell(cells["ecm"]["cells"][key]) == pytest.approx(loop["ecm"][key]), key
    for level, where in zip(loop["levels"], cells["levels"], strict=True):
        for key in ("size_kib", "traffic_gb", "layer_condition", "data_kib"):
            assert cell(where["cells"][key]) == pytest.approx(level[key] if key !=
                                                              "layer_condition" else
                                                              {"resident": 0, "planes": 1,
                                                               "pencils": 2, "within": 3,
                                                               "none": 4}[level[key]]), key


@pytest.mark.libreoffice
def test_editing_the_reduction_and_penalty_parameters_in_the_workbook_matches_set(tmp_path):
    from libreoffice import recalculate_edited

    book_path = tmp_path / "dot.xlsx"
    written = run(tmp_path, DOT, "--set", "N=1000000", "-o", str(book_path))
    cells = written["loops"][0]["ecm"]["cells"]
    edits = {"FastMath": True, "Accumulators": 2, "AddLatency": 6, "MemLoadPenaltyCycles": 1.5,
             "LoadsOverlap": True}
    book = recalculate_edited(book_path, edits, tmp_path / "lo")
    expected = run(tmp_path, DOT, "--set", "N=1000000",
                   *[a for name, value in edits.items()
                     for a in ("--set", f"{name}={str(value).upper()}")])
    ecm = expected["loops"][0]["ecm"]
    # by hand: the chain 1 update x 8 elements x 6 cycles / (4 lanes x 2 accumulators) = 6,
    # above T_fp (2 FMA / 1 port = 2): T_OL 6; T_nOL 4 (4 loads x 2 uops / 2 ports)
    assert (ecm["t_chain"], ecm["t_ol"], ecm["t_nol"]) == (6, 6, 4)
    # memory: a and b read, 2 lines (128 B) per unit: L1-L2 128 / 32 = 4, L2-MEM 128 / 20 =
    # 6.4, the penalty 2 lines x 1.5 = 3; the loads overlapping: MAX(6, 4, 4 + 6.4 + 3) = 13.4
    assert (ecm["t_penalty"], ecm["t_ecm"]) == (pytest.approx(3), pytest.approx(13.4))

    def cell(address: str):
        sheet, where = address.rsplit("!", 1)
        return book[sheet.strip("'")][where.replace("$", "")].value

    for key in ("t_chain", "t_int", "t_ol", "t_nol", "t_penalty", "t_ecm", "time_s"):
        assert cell(cells[key]) == pytest.approx(ecm[key]), key
