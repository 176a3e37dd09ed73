"""Generated loop nests against their execution (bench/differential/).

The fast tests check the instrument itself: the generator is reproducible and covers every
shape class, its Fortran and C compile, and the truth of small nests worked out by hand.

The slow test runs a fixed sample of generated nests (seed 0, nests 0-119: every shape
class) through satreport and asserts: no crash, flops by kind exact (but for the classes of
FLOPS_FAILING, which must still fail), and for every shape class and metric the accuracy
target (compulsory bytes within 1 % on 99 % of the class's nests; traffic at each level
median |error| <= 2 % and 90th percentile <= 15 %), except the (class, metric) pairs of
EXPECTED_FAILURES, each with the error measured on this sample. A listed pair that meets
its target fails the test too: fixing the model means updating the list.
"""

from __future__ import annotations

import importlib.util
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench" / "differential"))

import compare  # noqa: E402
import emit  # noqa: E402
import generate  # noqa: E402
import known  # noqa: E402
import measure  # noqa: E402
from nests import Array, Assign, Bin, Bound, Const, Lin, Loop, Nest, Procedure, Ref  # noqa: E402

# the harness's run.py under a name of its own: bench/validation has a run.py too, which other
# tests import as ``run``
_spec = importlib.util.spec_from_file_location("differential_run",
                                               ROOT / "bench" / "differential" / "run.py")
differential = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(differential)

SEED, SAMPLE = 0, 120
ALL_CLASSES = {
    *(f"depth:{d}" for d in range(1, 6)), "order:contiguous", "order:transposed",
    "order:column", "bounds:constant", "bounds:parametric", "bounds:triangular",
    "bounds:tile-constant", "bounds:tile-runtime", "bounds:step", "bounds:descending",
    "time-loop", "time-loop-call", "siblings", "offsets", *(f"offsets:{k}" for k in range(1, 5)),
    "invariant-loop", "invariant-coefficient", "reduction-lower-rank", "row-level", "strided",
    "indirect:uniform", "indirect:sorted", "indirect:clustered", "indirect:scatter", "csr",
    "section", "whole-array", "scratch-tile", "branch",
    *(f"type:{t}" for t in ("r4", "r8", "i4", "i8", "c8")), "lang:c", "lang:fortran",
}
TOOLS = all(shutil.which(tool) for tool in ("gcc", "gfortran"))
needs_tools = pytest.mark.skipif(not TOOLS, reason="gcc and gfortran are needed")


def satreport_command() -> str:
    beside = Path(sys.executable).parent / "satreport"
    return str(beside) if beside.exists() else "satreport"


# ---------------------------------------------------------------- the instrument


def test_generator_is_reproducible_and_covers_every_class():
    first = [emit.source(n) for n in generate.generate(SEED, 40)]
    again = [emit.source(n) for n in generate.generate(SEED, 40)]
    assert first == again
    alone = generate.make_nest(SEED, 17)  # nest k depends on (seed, k) only
    assert emit.source(alone) == first[17]
    covered = {c for n in generate.generate(SEED, SAMPLE) for c in n.classes}
    assert covered == ALL_CLASSES


@needs_tools
def test_generated_sources_compile(tmp_path):
    fortran, c = [], []
    for nest in generate.generate(SEED, SAMPLE):
        path = tmp_path / f"{nest.ident}{emit.suffix(nest)}"
        path.write_text(emit.source(nest))
        (fortran if nest.lang == "fortran" else c).append(str(path))
    for command in (["gfortran", "-fsyntax-only", "-J", str(tmp_path), *fortran],
                    ["gcc", "-fsyntax-only", *c]):
        done = subprocess.run(command, capture_output=True, text=True)
        assert done.returncode == 0, done.stderr[-2000:]


def _sweep_nest(repeats: int) -> Nest:
    """``for r < repeats: for i < 1000: y[i] = x[i] + 0.5`` over doubles."""
    x = Array("x_hand", "r8", (1000,))
    y = Array("y_hand", "r8", (1000,))
    i = (Lin("i"),)
    body = [Loop("i", Bound((), 0), Bound((), 1000),
                 [Assign(Ref(y, i), Bin("+", Ref(x, i), Const(0.5)), sid=1)], lid=2)]
    if repeats > 1:
        body = [Loop("r", Bound((), 0), Bound((), repeats), body, lid=1)]
    return Nest("hand", "c", [x, y], [Procedure("kernel_hand", body)])


@needs_tools
@pytest.mark.parametrize("repeats", [1, 2])
def test_truth_of_a_sweep_by_hand(tmp_path, repeats):
    nest = _sweep_nest(repeats)
    exe, printers = measure.compile_truth([nest], tmp_path)
    truth = measure.run_truth(exe, measure.simulator(tmp_path), 0, printers[0])
    # 1 add per element per pass
    assert truth.flops == {"adds": 1000 * repeats, "multiplies": 0, "divides": 0,
                           "specials": 0}
    assert truth.per_iteration["adds"] == 1.0
    # distinct bytes: x and y touched (8,000 B each) plus y written (8,000 B), whatever
    # the repetitions (no time loop: one sweep)
    assert truth.compulsory == 24_000
    # x and y are 125 lines each (64-byte aligned). Every capacity: x read, y read for
    # ownership and written back, 375 lines = 24,000 B per pass that misses. L1 (512 B)
    # keeps nothing from one pass to the next; L2 (16 KiB) and L3 hold both arrays.
    assert truth.levels == {"L1": 24_000 * repeats, "L2": 24_000, "L3": 24_000}


# ---------------------------------------------------------------- the sample


# Classes whose nests' flops by kind are not all exact; the reason is known.REASONS'.
FLOPS_FAILING = {"branch"}

# (class, metric) pairs missing their target on this sample -> (median |error|, 90th
# percentile, worst error) measured on it.  The reason of each class is in
# bench/differential/known.py (REASONS); a class without one there fails only through its
# nests that also carry a class with a reason.  Regenerate after a model fix with
# ``python bench/differential/run.py --count 120 --seed 0 --expected-failures``.
EXPECTED_FAILURES = {
    ('all', 'compulsory'): (0.001, 3.073, 80.000),
    ('all', 'L1'): (0.206, 2.202, 15.364),
    ('all', 'L2'): (0.196, 2.559, 92.506),
    ('all', 'L3'): (0.820, 4.939, 92.506),
    ('bounds:constant', 'compulsory'): (0.000, 2.000, 17.133),
    ('bounds:constant', 'L1'): (0.058, 0.833, 3.874),
    ('bounds:constant', 'L2'): (0.090, 1.988, 26.000),
    ('bounds:constant', 'L3'): (0.700, 3.182, 50.882),
    ('bounds:descending', 'compulsory'): (1.765, 41.500, 80.000),
    ('bounds:descending', 'L1'): (0.021, 7.718, 15.364),
    ('bounds:descending', 'L2'): (1.373, 3.040, 3.491),
    ('bounds:descending', 'L3'): (2.168, 41.638, 79.785),
    ('bounds:parametric', 'compulsory'): (2.561, 8.000, 8.000),
    ('bounds:parametric', 'L1'): (0.011, 0.477, 0.974),
    ('bounds:parametric', 'L2'): (2.503, 21.439, 26.000),
    ('bounds:parametric', 'L3'): (4.060, 17.792, 26.000),
    ('bounds:step', 'compulsory'): (1.280, 4.708, 6.827),
    ('bounds:step', 'L1'): (0.670, 9.535, 15.364),
    ('bounds:step', 'L2'): (1.746, 8.909, 11.514),
    ('bounds:step', 'L3'): (1.746, 4.558, 5.000),
    ('bounds:tile-constant', 'compulsory'): (0.002, 3.215, 23.040),
    ('bounds:tile-constant', 'L1'): (1.051, 4.954, 5.792),
    ('bounds:tile-constant', 'L2'): (0.089, 9.293, 92.506),
    ('bounds:tile-constant', 'L3'): (0.333, 3.626, 92.506),
    ('bounds:tile-runtime', 'compulsory'): (2.000, 4.913, 6.827),
    ('bounds:tile-runtime', 'L1'): (0.170, 0.822, 0.974),
    ('bounds:tile-runtime', 'L2'): (2.471, 9.205, 11.514),
    ('bounds:tile-runtime', 'L3'): (2.471, 5.395, 6.895),
    ('bounds:triangular', 'compulsory'): (0.203, 0.489, 0.535),
    ('bounds:triangular', 'L1'): (0.309, 0.391, -0.410),
    ('bounds:triangular', 'L2'): (0.503, 1.061, 1.260),
    ('bounds:triangular', 'L3'): (0.835, 3.029, 3.788),
    ('branch', 'compulsory'): (2.000, 19.496, 23.040),
    ('branch', 'L1'): (0.480, 7.883, 15.364),
    ('branch', 'L2'): (1.746, 38.556, 92.506),
    ('branch', 'L3'): (2.005, 67.532, 92.506),
    ('csr', 'compulsory'): (0.001, 0.044, -0.118),
    ('csr', 'L1'): (1.823, 3.135, 3.374),
    ('csr', 'L2'): (0.043, 0.344, 0.966),
    ('csr', 'L3'): (0.001, 0.954, 1.568),
    ('depth:1', 'compulsory'): (0.000, 0.066, -0.224),
    ('depth:1', 'L1'): (0.250, 1.152, 3.874),
    ('depth:1', 'L2'): (0.192, 1.000, 2.147),
    ('depth:1', 'L3'): (0.250, 1.533, 2.000),
    ('depth:2', 'compulsory'): (0.000, 0.075, 2.000),
    ('depth:2', 'L1'): (0.083, 2.430, 3.374),
    ('depth:2', 'L2'): (0.083, 1.047, 2.200),
    ('depth:2', 'L3'): (0.088, 1.991, 2.200),
    ('depth:3', 'compulsory'): (0.713, 2.912, 8.000),
    ('depth:3', 'L1'): (0.031, 0.747, 15.364),
    ('depth:3', 'L2'): (1.503, 7.174, 26.000),
    ('depth:3', 'L3'): (1.996, 6.705, 26.000),
    ('depth:4', 'compulsory'): (0.002, 3.982, 8.000),
    ('depth:4', 'L1'): (0.238, 4.847, 5.792),
    ('depth:4', 'L2'): (0.072, 2.511, 3.491),
    ('depth:4', 'L3'): (0.984, 5.484, 14.274),
    ('depth:5', 'compulsory'): (8.000, 45.824, 80.000),
    ('depth:5', 'L1'): (0.235, 1.560, 2.896),
    ('depth:5', 'L2'): (11.514, 52.603, 92.506),
    ('depth:5', 'L3'): (26.000, 84.874, 92.506),
    ('indirect:clustered', 'compulsory'): (0.013, 0.076, 0.197),
    ('indirect:clustered', 'L1'): (1.072, 2.819, 3.374),
    ('indirect:clustered', 'L2'): (0.097, 1.151, 2.147),
    ('indirect:clustered', 'L3'): (0.846, 1.722, 1.864),
    ('indirect:scatter', 'compulsory'): (0.041, 0.211, -0.224),
    ('indirect:scatter', 'L1'): (1.363, 3.001, 3.874),
    ('indirect:scatter', 'L2'): (0.124, 1.263, 2.147),
    ('indirect:scatter', 'L3'): (0.493, 1.039, 1.064),
    ('indirect:sorted', 'compulsory'): (0.005, 0.150, -0.224),
    ('indirect:sorted', 'L1'): (1.636, 2.646, 3.874),
    ('indirect:sorted', 'L2'): (0.040, 0.555, 0.966),
    ('indirect:sorted', 'L3'): (0.040, 1.147, 1.568),
    ('indirect:uniform', 'compulsory'): (0.001, 0.108, -0.212),
    ('indirect:uniform', 'L1'): (0.040, 2.142, 3.170),
    ('indirect:uniform', 'L2'): (0.087, 0.435, -0.655),
    ('indirect:uniform', 'L3'): (0.007, 0.222, 0.975),
    ('invariant-coefficient', 'compulsory'): (0.000, 3.849, 8.000),
    ('invariant-coefficient', 'L1'): (0.064, 0.317, -0.791),
    ('invariant-coefficient', 'L2'): (0.234, 2.719, 26.000),
    ('invariant-coefficient', 'L3'): (1.000, 4.344, 26.000),
    ('invariant-loop', 'compulsory'): (2.123, 9.827, 80.000),
    ('invariant-loop', 'L1'): (0.032, 0.730, 15.364),
    ('invariant-loop', 'L2'): (1.988, 20.787, 92.506),
    ('invariant-loop', 'L3'): (3.895, 30.976, 92.506),
    ('lang:c', 'compulsory'): (0.001, 2.000, 80.000),
    ('lang:c', 'L1'): (0.238, 1.879, 15.364),
    ('lang:c', 'L2'): (0.333, 2.484, 26.000),
    ('lang:c', 'L3'): (0.410, 3.354, 79.785),
    ('lang:fortran', 'compulsory'): (0.001, 5.000, 23.040),
    ('lang:fortran', 'L1'): (0.083, 2.652, 4.740),
    ('lang:fortran', 'L2'): (0.088, 2.536, 92.506),
    ('lang:fortran', 'L3'): (0.911, 5.012, 92.506),
    ('offsets', 'compulsory'): (0.535, 8.000, 80.000),
    ('offsets', 'L1'): (0.040, 0.569, 15.364),
    ('offsets', 'L2'): (0.251, 7.355, 92.506),
    ('offsets', 'L3'): (1.988, 9.217, 92.506),
    ('offsets:1', 'compulsory'): (0.000, 2.864, 5.000),
    ('offsets:1', 'L1'): (0.069, 0.305, -0.410),
    ('offsets:1', 'L2'): (0.283, 2.681, 7.205),
    ('offsets:1', 'L3'): (0.992, 3.869, 14.274),
    ('offsets:2', 'compulsory'): (0.562, 8.000, 8.000),
    ('offsets:2', 'L1'): (0.018, 0.569, -0.791),
    ('offsets:2', 'L2'): (0.706, 9.757, 26.000),
    ('offsets:2', 'L3'): (0.997, 9.757, 26.000),
    ('offsets:3', 'compulsory'): (2.000, 9.827, 17.133),
    ('offsets:3', 'L1'): (0.035, 3.457, 15.364),
    ('offsets:3', 'L2'): (0.089, 5.606, 19.484),
    ('offsets:3', 'L3'): (2.137, 16.329, 50.882),
    ('offsets:4', 'compulsory'): (2.561, 28.736, 80.000),
    ('offsets:4', 'L1'): (0.053, 1.166, 2.896),
    ('offsets:4', 'L2'): (1.494, 19.614, 92.506),
    ('offsets:4', 'L3'): (3.841, 81.057, 92.506),
    ('order:column', 'compulsory'): (0.234, 4.047, 5.000),
    ('order:column', 'L1'): (0.274, 0.688, -0.791),
    ('order:column', 'L2'): (0.089, 0.190, -0.215),
    ('order:column', 'L3'): (0.215, 4.148, 5.131),
    ('order:contiguous', 'compulsory'): (0.535, 3.982, 8.000),
    ('order:contiguous', 'L1'): (0.051, 0.287, 15.364),
    ('order:contiguous', 'L2'): (0.596, 2.632, 26.000),
    ('order:contiguous', 'L3'): (1.989, 5.538, 26.000),
    ('order:transposed', 'compulsory'): (2.140, 10.740, 17.133),
    ('order:transposed', 'L1'): (0.035, 0.582, 0.670),
    ('order:transposed', 'L2'): (2.846, 13.905, 19.484),
    ('order:transposed', 'L3'): (2.846, 18.985, 50.882),
    ('reduction-lower-rank', 'compulsory'): (0.234, 2.000, 8.000),
    ('reduction-lower-rank', 'L1'): (0.051, 0.274, -0.791),
    ('reduction-lower-rank', 'L2'): (0.143, 1.989, 2.556),
    ('reduction-lower-rank', 'L3'): (1.988, 3.788, 7.691),
    ('row-level', 'compulsory'): (1.000, 5.600, 8.000),
    ('row-level', 'L1'): (0.149, 0.559, -0.791),
    ('row-level', 'L2'): (0.215, 2.329, 2.556),
    ('row-level', 'L3'): (1.989, 5.637, 7.691),
    ('scratch-tile', 'L1'): (1.770, 5.221, 5.792),
    ('scratch-tile', 'L2'): (0.063, 2.137, 2.500),
    ('scratch-tile', 'L3'): (0.446, 2.151, 2.500),
    ('section', 'L3'): (0.042, 1.418, 1.989),
    ('siblings', 'compulsory'): (0.013, 0.713, 3.727),
    ('siblings', 'L1'): (0.069, 1.508, 2.489),
    ('siblings', 'L2'): (0.074, 1.134, 1.260),
    ('siblings', 'L3'): (1.491, 4.216, 14.274),
    ('strided', 'L1'): (0.550, 0.833, -0.833),
    ('strided', 'L2'): (0.700, 0.875, 1.250),
    ('strided', 'L3'): (0.700, 0.875, 1.250),
    ('time-loop', 'compulsory'): (0.002, 2.909, 17.133),
    ('time-loop', 'L1'): (0.058, 1.827, 3.874),
    ('time-loop', 'L2'): (0.524, 2.140, 26.000),
    ('time-loop', 'L3'): (1.645, 11.492, 50.882),
    ('time-loop-call', 'compulsory'): (0.051, 8.000, 17.133),
    ('time-loop-call', 'L1'): (0.064, 0.624, 1.811),
    ('time-loop-call', 'L2'): (0.881, 9.200, 26.000),
    ('time-loop-call', 'L3'): (1.250, 26.000, 50.882),
    ('type:c8', 'compulsory'): (0.000, 5.000, 8.000),
    ('type:c8', 'L1'): (0.011, 1.051, 1.051),
    ('type:c8', 'L2'): (0.024, 0.143, 7.952),
    ('type:c8', 'L3'): (2.000, 5.131, 7.952),
    ('type:i4', 'compulsory'): (0.001, 1.640, 17.133),
    ('type:i4', 'L1'): (0.255, 2.670, 5.792),
    ('type:i4', 'L2'): (0.305, 1.994, 2.147),
    ('type:i4', 'L3'): (0.470, 1.994, 50.882),
    ('type:i8', 'compulsory'): (0.000, 3.448, 80.000),
    ('type:i8', 'L1'): (0.043, 1.903, 3.874),
    ('type:i8', 'L2'): (0.077, 2.892, 11.514),
    ('type:i8', 'L3'): (0.773, 4.751, 79.785),
    ('type:r4', 'compulsory'): (0.005, 5.436, 23.040),
    ('type:r4', 'L1'): (0.083, 3.503, 15.364),
    ('type:r4', 'L2'): (1.000, 9.888, 92.506),
    ('type:r4', 'L3'): (1.118, 8.898, 92.506),
    ('type:r8', 'compulsory'): (0.002, 1.300, 8.000),
    ('type:r8', 'L1'): (0.337, 2.169, 3.374),
    ('type:r8', 'L2'): (0.139, 1.376, 26.000),
    ('type:r8', 'L3'): (0.173, 3.100, 26.000),
    ('whole-array', 'L2'): (0.000, 0.380, 2.000),
    ('whole-array', 'L3'): (0.000, 2.000, 2.000),
}


@pytest.mark.slow
@needs_tools
def test_generated_sample_against_execution(tmp_path):
    results = differential.run(SAMPLE, SEED, 60, 2, satreport_command(), tmp_path)
    crashes = [f"{r.ident}: {r.crash}" for r in results if r.crash]
    assert not crashes, crashes
    inexact = {r.ident: r for r in results if not r.flops_exact}
    for ident, r in inexact.items():
        assert set(r.classes) & set(FLOPS_FAILING), f"{ident}: flops {r.flops_detail}"
    for name in FLOPS_FAILING:
        assert name in known.REASONS
        assert any(name in r.classes for r in inexact.values()), \
            f"flops of class {name} are now exact: take it off FLOPS_FAILING"
    unexpected, fixed = [], []
    for row in compare.class_rows(results):
        members = [r for r in results if row.name == "all" or row.name in r.classes]
        for metric in compare.METRICS:
            ok = compare.target_met(metric, row, members)
            listed = (row.name, metric) in EXPECTED_FAILURES
            median, p90, worst = row.stats[metric]
            summary = (f"{row.name} {metric}: median {100 * median:.1f} %, p90 "
                       f"{100 * p90:.1f} %, worst {100 * worst:+.1f} %")
            if not ok and not listed:
                unexpected.append(summary)
            if ok and listed:
                fixed.append(summary)
    assert not unexpected, "targets missed:\n" + "\n".join(unexpected)
    assert not fixed, "now within target, take off EXPECTED_FAILURES:\n" + "\n".join(fixed)
