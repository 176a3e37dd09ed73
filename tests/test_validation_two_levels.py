"""The two-level validation harness (bench/validation/two_levels.py), piece by piece.

The write-back simulation on a trace counted by hand; Kerncraft's layer conditions evaluated
and read from its JSON layout; satreport's per-level JSON summed; the machine file written
per cache pair read back by satreport; and one small end-to-end measurement (a copy loop
whose traffic is known exactly) through cachegrind, callgrind, lackey and the simulation.
"""

from __future__ import annotations

import importlib.util
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from sat.machine import load_machine

ROOT = Path(__file__).resolve().parent.parent
VALIDATION = ROOT / "bench" / "validation"


def _harness():
    spec = importlib.util.spec_from_file_location("satreport_two_levels",
                                                  VALIDATION / "two_levels.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up
    spec.loader.exec_module(module)
    return module


two_levels = _harness()
needs_gcc = pytest.mark.skipif(shutil.which("gcc") is None, reason="needs gcc")
needs_valgrind = pytest.mark.skipif(shutil.which("gcc") is None or shutil.which("valgrind")
                                    is None, reason="needs gcc and valgrind")


# ---------------------------------------------------------------- the write-back simulation


# one pytest-xdist worker runs this module's tests: the cache simulator compiled once (tests/run.sh)
pytestmark = pytest.mark.xdist_group("validation_two_levels")


@pytest.fixture(scope="module")
def cachesim(tmp_path_factory):
    if shutil.which("gcc") is None:
        pytest.skip("needs gcc")
    return two_levels.build_simulator(tmp_path_factory.mktemp("sim"))


def simulate(cachesim: Path, trace: list[str], *configs: str) -> dict[str, list[int]]:
    done = subprocess.run([str(cachesim), *configs], input="\n".join(trace) + "\n",
                          capture_output=True, text=True, check=True)
    return {line.split()[0]: [int(v) for v in line.split()[1:]]
            for line in done.stdout.splitlines()}


def line(n: int, op: str = "L", offset: int = 0, size: int = 8) -> str:
    return f" {op} {n * 64 + offset:08x},{size}"


@needs_gcc
def test_simulation_counts_misses_and_write_backs_by_hand(cachesim):
    # L1: 2 lines fully associative; L2: 4 lines fully associative.
    trace = [
        "I  04000000,3",  # instruction fetch: ignored
        line(0, "S"),  # L1 miss (write), L2 miss (write); L1 {0*}
        line(1, "S"),  # L1 miss (write), L2 miss (write); L1 {1*, 0*}
        line(1, "M", 8),  # hit, stays dirty
        line(2),  # L1 miss, evicts dirty 0: L1 write-back 1, into L2 (present); L2 miss
        line(3),  # L1 miss, evicts dirty 1: write-back 2; L2 miss; L2 {3, 1*, 2, 0*}
        line(4),  # L1 miss, evicts 2 (clean); L2 miss evicts 0* (dirty): L2 write-back 1
        # spans lines 5 and 6: two L1 misses evicting 3 and 4 (clean); two L2 misses, the
        # first evicting 2 (clean), the second 1* (dirty): L2 write-back 2
        line(5, "L", 60, 8),
        line(1, "S"),  # L1 miss (write), evicts 5 (clean); L2 miss evicts 3 (clean)
    ]
    counts = simulate(cachesim, trace, "128:0:256:0")["128:0:256:0"]
    l1_r, l1_w, l1_wb, l2_r, l2_w, l2_wb, l2_alloc = counts
    assert (l1_r, l1_w, l1_wb) == (5, 3, 2)
    # L2 misses: lines 0,1 (write), 2,3,4,5,6 (read), 1 again (write); write-backs: 0 and 1
    assert (l2_r, l2_w, l2_wb) == (5, 3, 2)
    assert l2_alloc == 0  # both L1 write-backs found their line in L2


@needs_gcc
def test_simulation_set_associative_lines_map_by_line_number(cachesim):
    # 2 sets of 1 way (128 B direct-mapped): lines 0 and 2 share set 0, line 1 is in set 1.
    trace = [line(0), line(1), line(2), line(1), line(0)]
    # fully associative 2 lines: 0,1 miss; 2 evicts 0; 1 hits; 0 misses again (evicts 2): 4
    # direct-mapped: 0,1 miss; 2 evicts 0 (set 0); 1 hits; 0 evicts 2: 4 misses as well.
    direct = simulate(cachesim, trace, "128:1:1024:0", "128:0:1024:0")
    assert direct["128:1:1024:0"][0] == 4
    assert direct["128:0:1024:0"][0] == 4
    # lines 0 and 2 alternating: in the direct-mapped cache they share set 0 and all 4
    # accesses miss; a fully associative cache of 2 lines holds both after 2 misses
    cycle = [line(n) for n in (0, 2, 0, 2)]
    counts = simulate(cachesim, cycle, "128:1:1024:0", "128:0:1024:0")
    assert counts["128:1:1024:0"][0] == 4  # 0 and 2 evict each other in set 0
    assert counts["128:0:1024:0"][0] == 2  # both fit in 2 fully associative lines


@needs_gcc
def test_simulation_refuses_a_set_count_cachegrind_refuses(cachesim):
    done = subprocess.run([str(cachesim), "3072:16:65536:0"], input="", capture_output=True,
                          text=True)
    # 3 KiB / (64 B x 16 ways) = 3 sets, not a power of two
    assert done.returncode == 2
    assert "power of two" in done.stderr


# ---------------------------------------------------------------- Kerncraft's predictions


def test_layer_conditions_are_evaluated_at_the_sizes():
    evaluate = two_levels.evaluate_condition
    # 2*90**2 - 90 = 16110 <= 16384; 2*91**2 - 91 = 16471 > 16384
    assert evaluate("2*M**2 - M <= 16384", {"M": 90})
    assert not evaluate("2*M**2 - M <= 16384", {"M": 91})
    assert evaluate(True, {}) and evaluate("True", {})
    assert not evaluate("M*N < 2048", {"M": 1000, "N": 1000})
    with pytest.raises(two_levels.ValidationError):
        evaluate("__import__('os').getcwd() < 1", {})
    with pytest.raises(two_levels.ValidationError):
        evaluate("K < 1", {"M": 1})  # an unknown symbol is not guessed


def test_kerncraft_json_gives_bytes_per_iteration_per_level():
    # The layout of `kerncraft -p LC --json` for 2d-5pt (two levels).
    data = {"(('pmodel', 'LC'),)": {"cache": [
        [{"condition": "M*N < 2048", "hits": 5, "misses": 0, "evicts": 0},
         {"condition": "2*N <= 2049", "hits": 3, "misses": 2, "evicts": 1},
         {"condition": True, "hits": 1, "misses": 4, "evicts": 1}],
        [{"condition": "M*N < 65536", "hits": 5, "misses": 0, "evicts": 0},
         {"condition": "2*N <= 65537", "hits": 3, "misses": 2, "evicts": 1},
         {"condition": True, "hits": 1, "misses": 4, "evicts": 1}]]}}
    per_level, conditions = two_levels.parse_kerncraft_lc(data, {"M": 1000, "N": 1500},
                                                          ["L1", "L2"])
    # L1: 2*1500 = 3000 > 2049, so no condition but True: (4 misses + 1 evict) x 8 B = 40;
    # L2: M*N = 1.5e6 >= 65536, 3000 <= 65537: (2 + 1) x 8 B = 24
    assert per_level == {"L1": 40, "L2": 24}
    assert conditions == {"L1": "True", "L2": "2*N <= 65537"}


# ---------------------------------------------------------------- satreport's levels


def test_satreport_levels_are_summed_over_nests_per_iteration():
    data = {"loops": [
        {"levels": [{"level": "L1", "traffic_gb": 0.004}, {"level": "L2", "traffic_gb": 0.002}]},
        {"levels": [{"level": "L1", "traffic_gb": 0.001}, {"level": "L2", "traffic_gb": 0.0005}]},
    ]}
    # L1: (0.004 + 0.001) GB = 5e6 B over 250,000 iterations = 20 B; L2: 2.5e6 B -> 10 B
    levels = two_levels.satreport_levels(data, 250_000)
    assert levels == pytest.approx({"L1": 20.0, "L2": 10.0})


def test_satreport_json_without_levels_is_said_so():
    assert two_levels.satreport_levels({"loops": [{"traffic_gb": 1.0}]}, 10) is None
    assert two_levels.satreport_levels({"loops": []}, 10) is None


# ---------------------------------------------------------------- machine files


@pytest.mark.parametrize("pair, l1_sets, l2_sets", [
    # 48 KiB / (64 B x 12) = 64 sets; 1280 KiB / (64 B x 20) = 1024
    (two_levels.CachePair(48, 12, 1280, 20), 64, 1024),
    # 16 KiB / (64 B x 4) = 64; 256 KiB / (64 B x 8) = 512
    (two_levels.CachePair(16, 4, 256, 8), 64, 512),
])
def test_machine_file_per_pair_is_read_by_satreport(tmp_path, pair, l1_sets, l2_sets):
    machine = load_machine(str(two_levels.write_machine(pair, tmp_path)))
    l1, l2 = machine.cache_levels
    assert (l1.name, l1.size_kib, l1.ways, l1.sets) == ("L1", pair.l1_kb, pair.l1_ways, l1_sets)
    assert (l2.name, l2.size_kib, l2.ways, l2.sets) == ("L2", pair.l2_kb, pair.l2_ways, l2_sets)
    assert machine.memory_level is not None
    assert machine.value("Cores") == 1


def test_snippet_goes_into_a_function_with_its_line_numbers(tmp_path):
    snippet = tmp_path / "k.c"
    snippet.write_text("double a[N], b[N];\ndouble s;\n\nfor(int i=0; i<N; ++i)\n"
                       "    a[i] = s * b[i];\n")
    text = two_levels.snippet_kernel(snippet).splitlines()
    assert text[1:3] == ["__attribute__((aligned(64))) double a[N], b[N];",
                         "__attribute__((aligned(64))) double s;"]
    # the for loop is the snippet's line 4
    assert text[text.index("void kernel_sweep(void) {") + 1] == f'#line 4 "{snippet}"'


# ---------------------------------------------------------------- end to end


@needs_valgrind
def test_copy_loop_measured_at_both_levels(tmp_path):
    # a[i] = b[i] over 32,768 doubles: 256 KiB per array, both together twice the 256 KiB L2.
    snippet = tmp_path / "copy.c"
    snippet.write_text("double a[N], b[N];\n\nfor(int i=0; i<N; ++i)\n    a[i] = b[i];\n")
    kernel = two_levels.Kernel("copy", "copy", str(snippet), "snippet", (("N", 32768),),
                               ("N=32768",), 32768)
    pair = two_levels.CachePair(16, 4, 256, 8)
    exe = two_levels.build(kernel, tmp_path, None)
    flush = two_levels.flush_bytes([pair])
    simulator = two_levels.build_simulator(tmp_path)
    simulated = {s: two_levels.simulate(simulator, exe, two_levels.program_args(kernel, s, flush),
                                        [pair]) for s in (1, 2)}
    m = two_levels.measure(kernel, exe, snippet, pair, flush, simulated)
    # Per sweep: 32,768 x 8 B / 64 B = 4,096 lines of b read, 4,096 lines of a read
    # (write-allocate) and 4,096 written back, at both levels (the flush empties both).
    for level in (m.l1, m.l2):
        assert level.misses == pytest.approx(8192, abs=8)
        assert level.writebacks == pytest.approx(4096, abs=8)
        assert not level.conflicts
    # 12,288 lines x 64 B / 32,768 iterations = 24 B per iteration
    row = two_levels.Row("copy", pair, "L1", kernel.iterations, m.l1, None, 24.0)
    assert row.measured_bpi == pytest.approx(24.0, rel=0.002)
    # the simulation agrees with cachegrind's misses and callgrind's write-backs
    assert abs(m.check_misses) < 0.002
    assert abs(m.check_writebacks) < 0.002
