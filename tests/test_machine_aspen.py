"""Aspen abstract machine models as the machine of a code analysis (sat/machine_aspen.py).

The expected values of Keeneland's two sockets are worked out by hand from Aspen's files
(``../shared/reference/aspen/models/suite/machine``: keeneland.aspen, sockets/, memory/,
interconnects/) and cross-checked against :func:`sat.aspen.peak_rates`; those tests skip when
the reference data is absent.  Error and degenerate cases use small models written here.
"""

from __future__ import annotations

import json
import math
import re
import subprocess
import sys
from pathlib import Path

import pytest
from test_cli import one_error_line, run

from sat import aspen
from sat.machine import MACHINE_SPECS, MachineError, list_machines, load_machine

ROOT = Path(__file__).resolve().parent.parent
REF = Path(__file__).resolve().parents[2] / "shared" / "reference" / "aspen"
MACHINES = REF / "models" / "suite" / "machine"
KEENELAND = MACHINES / "keeneland.aspen"
TRIAD = ROOT / "examples" / "triad.f90"
EXASAT_MACHINE = Path(__file__).parent / "data" / "exasat" / "config" / "machine.xml"

needs_reference = pytest.mark.skipif(not KEENELAND.is_file(),
                                     reason=f"Aspen's reference models are not at {MACHINES}")
DEFAULTS = {spec.name: spec.default for spec in MACHINE_SPECS}

# nvidia_m2090 (sockets/nvidia_m2090.aspen): fCoreClock = 1300 * mega, fSIMD = 32,
# flops(number) [number / fCoreClock] with dp [base * 2], simd [base / fSIMD], fmad [base / 2]:
#   one SM, flops as dp, simd, fmad: 1.3e9 / 2 * 32 * 2 = 41.6e9 flop/s; 16 SMs: 665.6 Gflop/s.
GPU_GFLOPS = 1.3 / 2 * 32 * 2
# gddr5BW = gddr5Clock * gddr5Width * eccPenalty = 3700e6 * 48 * 0.75 = 133.2e9 B/s,
# gddr5Lat = 50 * nano / fSIMD = 1.5625e-9 s; Aspen's peak bandwidth: 1e9 B / (lat + 1e9 / bw).
GPU_SOCKET_GBS = 1e9 / (50e-9 / 32 + 1e9 / (3700e6 * 48 * 0.75)) / 1e9  # 133.19997… GB/s
# intel_xeon_x5660: wmIssueRate = wmCoreClock * 2 = 5.6e9, dp [base * 2], simd [base / 4],
#   fmad [base] (no gain): 5.6e9 / 2 * 4 = 11.2e9 flop/s per core, 67.2 Gflop/s per socket
#   (the file's own comment: "11.2 DP GFLOP/s per core or 67.2 DP GFLOP/s per socket").
CPU_GFLOPS = 2.8 * 2 / 2 * 4
# memory/ddr3_1066.aspen + ddr3.aspen: ddr3BW = 1066e6 * 3 channels * 8 = 25.584e9 B/s,
# ddr3Lat = 10 * nano / wmSIMD = 2.5e-9 s.
CPU_SOCKET_GBS = 1e9 / (10e-9 / 4 + 1e9 / (1066e6 * 3 * 8)) / 1e9  # 25.58399… GB/s


def write(tmp_path: Path, text: str, name: str = "m.aspen") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def approx(value: float) -> object:
    return pytest.approx(value, rel=1e-12)


# ------------------------------------------------------------------ Keeneland, by hand


@needs_reference
def test_keeneland_gpu_socket_by_hand():
    machine = load_machine(str(KEENELAND), "nvidia_m2090")
    value = machine.value
    assert machine.name == "keeneland:nvidia_m2090"
    assert value("Cores") == 16  # core [fNumCores] fermiCore, fNumCores = 16
    assert value("GflopsPerCore") == approx(GPU_GFLOPS)  # 41.6
    assert value("GBsPerCore") == approx(GPU_SOCKET_GBS / 16)  # 8.325
    # cache fermiSP: capacity 48 * kilo = 48,000 B, one in the socket, shared by its 16 SMs
    assert value("CacheKB") == approx(48e3 / 16 / 1024)
    assert value("SpecialCost") == 18  # sin [base * 18]
    assert value("Overlap") == 0  # memory gddr5: conflict loads, flops (Aspen adds them)
    # interconnects/qdrInfiniband.aspen: messages [qdrLatency + msgsize / qdrBW]
    assert value("NICGBs") == approx(4.0)  # qdrBW = 4 * giga
    assert value("NICLatencyUs") == approx(1.07)  # qdrLatency = 1.07 * micro
    assert machine.core.clock_ghz == approx(1.3)  # fCoreClock, on which flops depend
    assert machine.core.flops_per_cycle == approx(32.0)  # 41.6 / 1.3
    # fermiSP gives no cacheline: the default line, no memory levels
    assert value("LineBytes") == 64 and machine.values["LineBytes"][1] == "default"
    assert machine.memory_levels == []
    for name in ("WordBytes", "IntRegs", "FPRegs", "DivCost", "ReadCost", "ReadWriteCost",
                 "WriteCost"):
        assert machine.values[name] == (DEFAULTS[name], "default")
    origin = f"Aspen machine {KEENELAND}, socket nvidia_m2090"
    assert machine.values["GflopsPerCore"][1] == (f"{origin}: peak dp/simd/fmad flops "
                                                  "665.6 Gflop/s / 16 cores")
    assert machine.values["Cores"][1] == f"{origin}: core [fNumCores] fermiCore = 16"
    assert "133.2 GB/s" in machine.values["GBsPerCore"][1]
    assert "memory gddr5" in machine.values["Overlap"][1]
    for name in ("Cores", "GflopsPerCore", "GBsPerCore", "CacheKB", "SpecialCost", "Overlap",
                 "NICGBs", "NICLatencyUs"):
        assert machine.values[name][1].startswith(f"{origin}: "), name
    notes = " | ".join(machine.notes)
    assert "LineBytes 64 B" in notes and "cacheline" in notes
    assert "no socket chosen" not in notes  # --socket was given


@needs_reference
def test_keeneland_cpu_socket_by_hand():
    machine = load_machine(str(KEENELAND), "intel_xeon_x5660")
    value = machine.value
    assert value("Cores") == 6  # core [wmNumCores] westmereCore
    assert value("GflopsPerCore") == approx(CPU_GFLOPS)  # 11.2
    assert value("GBsPerCore") == approx(CPU_SOCKET_GBS / 6)  # 4.264
    # cache wmCache: capacity 12 * mega = 12,000,000 B, cacheline 64, shared by 6 cores
    assert value("CacheKB") == approx(12e6 / 6 / 1024)  # 1953.125 KiB
    assert value("LineBytes") == 64 and "cacheline 64" in machine.values["LineBytes"][1]
    assert value("Overlap") == 1  # ddr3 declares conflict loads, stores only
    assert value("SpecialCost") == 18
    assert machine.core.clock_ghz == approx(2.8)  # wmIssueRate = wmCoreClock * 2
    assert machine.core.flops_per_cycle == approx(4.0)
    assert "peak dp/simd flops 67.2 Gflop/s / 6 cores" in machine.values["GflopsPerCore"][1]
    # one cache with a capacity and a line: ExaSAT's single on-chip cache, then memory
    on_chip, memory = machine.memory_levels
    assert (on_chip.name, on_chip.size_kib, on_chip.line_bytes, on_chip.shared_by_cores) == (
        "on-chip", 12e6 / 1024, 64, 6)
    assert on_chip.size_per_core_kib == approx(value("CacheKB"))
    assert (memory.name, memory.shared_by_cores) == ("memory", 6)
    assert memory.bandwidth_gbs == approx(CPU_SOCKET_GBS)


@needs_reference
@pytest.mark.parametrize("socket", ["nvidia_m2090", "intel_xeon_x5660"])
def test_keeneland_agrees_with_aspen_peak_rates(socket):
    machine = load_machine(str(KEENELAND), socket)
    rates = aspen.peak_rates(aspen.load_machine_model(KEENELAND), socket)
    # peak_rates is over the whole machine: 120 nodes × (3 GPUs or 2 CPUs) × cores
    sockets = 120 * {"nvidia_m2090": 3, "intel_xeon_x5660": 2}[socket]
    assert rates.cores == sockets * machine.value("Cores")
    peak = max(rates.flops[kind] for kind in ("dp", "dp/simd", "dp/simd/fmad"))
    assert machine.value("GflopsPerCore") == approx(peak / rates.cores / 1e9)
    assert machine.value("GBsPerCore") == approx(rates.bandwidth / rates.cores / 1e9)
    # and Aspen's printed machine report (baseline/machine/keeneland.aspen.out)
    printed = {"nvidia_m2090": (239616, 47952), "intel_xeon_x5660": (16128, 6140.16)}[socket]
    whole = machine.value("Cores") * sockets
    assert f"{machine.value('GflopsPerCore') * whole:g}" == f"{printed[0]:g}"
    assert f"{machine.value('GBsPerCore') * whole:g}" == f"{printed[1]:g}"


@needs_reference
def test_default_socket_is_the_first_with_a_note():
    machine = load_machine(str(KEENELAND))
    assert machine.name == "keeneland:intel_xeon_x5660"
    note = next(note for note in machine.notes if "no socket chosen" in note)
    assert "intel_xeon_x5660" in note and "nvidia_m2090" in note and "--socket" in note


@needs_reference
@pytest.mark.parametrize("path", sorted(MACHINES.glob("*.aspen")) if MACHINES.is_dir() else [],
                         ids=lambda p: p.name)
def test_every_reference_machine_and_socket_maps(path):
    """Every socket of every machine of Aspen's suite gives valid parameters (a value the
    model cannot give is a default with a note), consistent with peak_rates."""
    model = aspen.load_machine_model(path)
    for socket in aspen.sockets(model):
        machine = load_machine(str(path), socket)
        for spec in MACHINE_SPECS:
            value, source = machine.values[spec.name]
            assert math.isfinite(value) and source
        rates = aspen.peak_rates(model, socket)
        if not machine.values["GflopsPerCore"][1] == "default":
            peak = max(rates.flops[kind] for kind in ("dp", "dp/simd", "dp/simd/fmad"))
            assert machine.value("GflopsPerCore") == approx(peak / rates.cores / 1e9)
        if machine.values["GBsPerCore"][1] != "default":
            assert machine.value("GBsPerCore") == approx(rates.bandwidth / rates.cores / 1e9)


# ------------------------------------------------------------------ end to end


def triad_json(capsys, socket: str, n: int) -> dict:
    status, out, err = run(capsys, TRIAD, "-m", KEENELAND, "--socket", socket, "--set",
                           f"n={n}", "--json", "-", "-q")
    assert status == 0, err
    return json.loads(out)


@needs_reference
def test_triad_on_the_gpu_socket_by_hand(capsys):
    n = 10**7
    data = triad_json(capsys, "nvidia_m2090", n)
    assert data["machine"] == {"name": "keeneland:nvidia_m2090", "source": str(KEENELAND)}
    params = {p["name"]: p for p in data["parameters"]}
    assert params["Cores"]["value"] == 16
    assert params["GflopsPerCore"]["source"].endswith("665.6 Gflop/s / 16 cores")
    (loop,) = data["loops"]
    # triad: 2 flops and 32 B per element (b, c read: 8 B each; a written: 16 B)
    t_cpu = 2 * n / (16 * GPU_GFLOPS * 1e9)  # 16 SMs × 41.6 Gflop/s
    t_dram = 32 * n / (16 * (GPU_SOCKET_GBS / 16) * 1e9)  # 133.2 GB/s
    assert loop["time_cpu_s"] == pytest.approx(t_cpu, rel=1e-9)
    assert loop["time_dram_s"] == pytest.approx(t_dram, rel=1e-9)
    # gddr5's "conflict loads, flops": Overlap 0, the times add up as in Aspen
    assert loop["time_s"] == pytest.approx(t_cpu + t_dram, rel=1e-9)  # 2.4054 ms
    assert any("LineBytes 64 B" in note["message"] for note in data["notes"])


@needs_reference
def test_triad_on_the_cpu_socket_is_memory_bound(capsys):
    n = 10**7
    (loop,) = triad_json(capsys, "intel_xeon_x5660", n)["loops"]
    # no conflict between flops and memory: Overlap 1, time = max = the memory time
    assert loop["time_s"] == pytest.approx(32 * n / (CPU_SOCKET_GBS * 1e9), rel=1e-9)


# ------------------------------------------------------------------ errors


@needs_reference
def test_unknown_socket_is_one_line_listing_the_sockets(capsys):
    status, out, err = run(capsys, TRIAD, "-m", KEENELAND, "--socket", "nvidia_k20x",
                           "--json", "-")
    line = one_error_line(err)
    assert status == 2 and out == ""
    assert "no socket 'nvidia_k20x'" in line
    assert "(sockets: intel_xeon_x5660, nvidia_m2090)" in line


@pytest.mark.parametrize("machine", [None, "exascale", str(EXASAT_MACHINE)])
def test_socket_with_a_machine_that_is_not_aspen_is_a_usage_error(capsys, machine):
    argv = [TRIAD, "--socket", "nvidia_m2090", "--json", "-"]
    status, out, err = run(capsys, *argv, *(["-m", machine] if machine else []))
    line = one_error_line(err)
    assert status == 2 and out == ""
    assert "--socket nvidia_m2090: only an Aspen machine model" in line


def test_socket_with_a_machine_file_is_refused_by_load_machine():
    with pytest.raises(MachineError, match="only an Aspen machine model"):
        load_machine(str(EXASAT_MACHINE), "cpu")


APP_MODEL = """\
// not a machine
model tiny {
  param n = 1000
  kernel main {
    execute [1] { flops [n] as dp }
  }
}
"""
SMALL_MACHINE = """\
param clock = 2 * giga
machine Small { node [4] box }
node box { socket [2] chip }
socket chip { core [8] unit memory mem }
core unit { resource flops(n) [n / clock] with dp [base * 2], simd [base / 4] }
core nothing { }
memory mem { resource loads(b) [b / (20 * giga)] }
"""


def test_application_model_as_machine_is_one_line(capsys, tmp_path):
    path = write(tmp_path, APP_MODEL, "tiny.aspen")
    status, out, err = run(capsys, TRIAD, "-m", path, "--json", "-")
    line = one_error_line(err)
    assert status == 2 and out == ""
    assert f"{path}:2:1: 'tiny' is an Aspen application model, not a machine model" in line


def test_syntax_error_is_file_line_col(capsys, tmp_path):
    path = write(tmp_path, SMALL_MACHINE.replace("socket [2] chip", "socket [2 chip"))
    status, out, err = run(capsys, TRIAD, "-m", path, "--json", "-")
    line = one_error_line(err)
    assert status == 2 and out == ""
    assert re.search(rf"{re.escape(str(path))}:3:\d+: ", line), line


@pytest.mark.parametrize("text, fragment", [
    ("socket chip { core [8] unit }\ncore unit { resource flops(n) [n] }\n",
     "no 'machine' component (it defines core, socket components only)"),
    ("machine M { node [1] box }\nnode box { }\n", "machine 'M' has no socket"),
    ("include nowhere.aspen\n" + SMALL_MACHINE, "cannot find the included file"),
])
def test_models_that_are_not_machines_are_one_line(tmp_path, text, fragment):
    with pytest.raises(MachineError) as info:
        load_machine(str(write(tmp_path, text)))
    assert fragment in str(info.value) and "\n" not in str(info.value)


# ------------------------------------------------------------------ small models, by hand


def test_small_machine_by_hand(tmp_path):
    machine = load_machine(str(write(tmp_path, SMALL_MACHINE)))
    assert machine.value("Cores") == 8
    assert machine.value("GflopsPerCore") == approx(2 / 2 * 4)  # clock / dp × simd
    assert machine.value("GBsPerCore") == approx(20 / 8)  # one mem of 20 GB/s per socket
    assert machine.value("Overlap") == 1
    assert machine.core.clock_ghz == approx(2.0)
    notes = " | ".join(machine.notes)
    assert "chip is modelled, the machine's first socket type (its only socket type)" in notes
    for name in ("CacheKB", "SpecialCost", "NICGBs", "NICLatencyUs"):
        assert machine.values[name] == (DEFAULTS[name], "default")
        assert name in notes


def test_memory_outside_the_socket_is_shared_among_the_sockets(tmp_path):
    text = SMALL_MACHINE.replace("socket [2] chip }", "socket [2] chip memory mem }").replace(
        "core [8] unit memory mem", "core [8] unit")
    machine = load_machine(str(write(tmp_path, text)))
    assert machine.value("GBsPerCore") == approx(20 / 2 / 8)  # the node's 20 GB/s, 2 sockets


def test_caches_per_core_and_several_caches(tmp_path):
    text = SMALL_MACHINE.replace("core [8] unit memory mem",
                                 "core [8] unit memory mem cache llc") + """
cache llc { property capacity [16 * mega] property cacheline [128] }
"""
    machine = load_machine(str(write(tmp_path, text)))
    assert machine.value("CacheKB") == approx(16e6 / 8 / 1024)
    assert machine.value("LineBytes") == 128
    assert [level.name for level in machine.memory_levels] == ["on-chip", "memory"]
    # a private cache in each core as well: two caches, no order given, no levels
    text = text.replace("core unit {", "core unit { cache l1 ").replace(
        "cache llc {", "cache l1 { property capacity [32 * kilo] }\ncache llc {")
    machine = load_machine(str(write(tmp_path, text)))
    assert machine.value("CacheKB") == approx(16e6 / 8 / 1024)  # the most per core
    assert machine.memory_levels == []
    assert any("does not order the socket's 2 caches" in note for note in machine.notes)


@pytest.mark.parametrize("change, names", [
    (("2 * giga", "0"), ["GflopsPerCore", "SpecialCost"]),  # n / 0: division by zero
    (("core [8] unit", "core [0] unit"), ["Cores", "GBsPerCore"]),
    (("core [8] unit", "core [8] nothing"), ["Cores", "GflopsPerCore", "GBsPerCore"]),
    (("memory mem {", "memory mem { property capacity [1] }\nmemory other {"), ["GBsPerCore"]),
    (("[b / (20 * giga)]", "[b / (-20 * giga)]"), ["GBsPerCore"]),
    (("[n / clock]", "[n / undefinedRate]"), ["GflopsPerCore"]),
])
def test_values_the_model_cannot_give_are_defaults_with_a_note(tmp_path, change, names):
    machine = load_machine(str(write(tmp_path, SMALL_MACHINE.replace(*change))))
    for name in names:
        assert machine.values[name] == (DEFAULTS[name], "default"), name
        assert any(name in note and "assumed" in note for note in machine.notes), name


def test_a_bad_interconnect_is_a_default_with_a_note(tmp_path):
    text = SMALL_MACHINE.replace("machine Small { node [4] box }",
                                 "machine Small { node [4] box interconnect net }")
    good = text + "interconnect net { resource messages(b) [2 * micro + b / (25 * giga)] }\n"
    machine = load_machine(str(write(tmp_path, good)))
    assert machine.value("NICGBs") == approx(25.0)
    assert machine.value("NICLatencyUs") == approx(2.0)
    bad = text + "interconnect net { resource messages(b) [2 * micro - b] }\n"
    machine = load_machine(str(write(tmp_path, bad)))
    assert machine.values["NICGBs"] == (DEFAULTS["NICGBs"], "default")
    assert any("NICGBs" in note for note in machine.notes)


def test_no_clock_parameter_or_several(tmp_path):
    machine = load_machine(str(write(tmp_path, SMALL_MACHINE.replace("clock", "rate"))))
    assert machine.core.clock_ghz is None
    assert any("no core clock" in note for note in machine.notes)
    text = SMALL_MACHINE.replace("param clock = 2 * giga",
                                 "param memClock = 1 * giga\nparam coreClock = 2 * giga\n"
                                 "param clock = coreClock * memClock / giga")
    machine = load_machine(str(write(tmp_path, text)))
    assert machine.core.clock_ghz is None
    assert any("several parameters could be the clock (clock, coreClock, memClock)" in note
               for note in machine.notes)


# ------------------------------------------------------------------ the rest unaffected


def test_list_machines_is_unaffected(capsys):
    status, out, _ = run(capsys, "--list-machines")
    assert status == 0
    assert [line.split()[0] for line in out.splitlines()] == [n for n, _ in list_machines()]
    assert "aspen" not in out.lower() and "unusable" not in out


def test_the_aspen_reader_is_only_imported_for_an_aspen_machine(tmp_path):
    path = write(tmp_path, SMALL_MACHINE)
    code = ("import sys; from sat.machine import load_machine; import sat.cli; "
            "load_machine('exascale'); assert 'sat.aspen' not in sys.modules, 'eager'; "
            f"load_machine({str(path)!r}); assert 'sat.aspen' in sys.modules")
    subprocess.run([sys.executable, "-c", code], check=True, cwd=ROOT)
