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
    ('all', 'compulsory'): (0.141, 3.065, 79.973),
    ('all', 'L1'): (0.045, 2.120, 5.792),
    ('all', 'L2'): (0.161, 3.492, 29.682),
    ('all', 'L3'): (0.611, 4.814, 79.785),
    ('bounds:constant', 'compulsory'): (0.031, 1.902, 16.763),
    ('bounds:constant', 'L1'): (0.003, 0.726, 3.874),
    ('bounds:constant', 'L2'): (0.032, 1.988, 26.000),
    ('bounds:constant', 'L3'): (0.120, 3.072, 50.882),
    ('bounds:descending', 'compulsory'): (2.237, 41.432, 79.973),
    ('bounds:descending', 'L1'): (0.021, 0.173, 0.273),
    ('bounds:descending', 'L2'): (1.373, 3.040, 3.491),
    ('bounds:descending', 'L3'): (2.168, 41.638, 79.785),
    ('bounds:parametric', 'compulsory'): (2.468, 7.340, 7.993),
    ('bounds:parametric', 'L1'): (0.003, 0.280, 0.316),
    ('bounds:parametric', 'L2'): (1.982, 21.439, 26.000),
    ('bounds:parametric', 'L3'): (3.134, 17.029, 26.000),
    ('bounds:step', 'compulsory'): (2.474, 3.664, 4.107),
    ('bounds:step', 'L1'): (0.544, 0.748, -0.791),
    ('bounds:step', 'L2'): (1.746, 8.974, 11.623),
    ('bounds:step', 'L3'): (1.746, 4.590, 5.000),
    ('bounds:tile-constant', 'compulsory'): (0.598, 3.205, 22.940),
    ('bounds:tile-constant', 'L1'): (0.442, 4.954, 5.792),
    ('bounds:tile-constant', 'L2'): (0.583, 10.677, 29.682),
    ('bounds:tile-constant', 'L3'): (0.639, 5.010, 29.682),
    ('bounds:tile-runtime', 'compulsory'): (1.866, 3.548, 4.107),
    ('bounds:tile-runtime', 'L1'): (0.162, 0.500, 0.684),
    ('bounds:tile-runtime', 'L2'): (1.914, 7.943, 11.623),
    ('bounds:tile-runtime', 'L3'): (1.914, 4.120, 4.263),
    ('bounds:triangular', 'compulsory'): (0.233, 0.421, 0.438),
    ('bounds:triangular', 'L1'): (0.309, 0.391, -0.410),
    ('bounds:triangular', 'L2'): (0.503, 1.061, 1.260),
    ('bounds:triangular', 'L3'): (0.835, 3.029, 3.788),
    ('branch', 'compulsory'): (2.000, 19.234, 22.940),
    ('branch', 'L1'): (0.273, 0.506, 0.544),
    ('branch', 'L2'): (1.746, 13.426, 29.682),
    ('branch', 'L3'): (2.005, 38.162, 50.882),
    ('csr', 'compulsory'): (0.161, 0.223, 0.367),
    ('csr', 'L1'): (1.823, 3.135, 3.374),
    ('csr', 'L2'): (0.043, 0.344, 0.966),
    ('csr', 'L3'): (0.001, 0.954, 1.568),
    ('depth:1', 'compulsory'): (0.000, 0.192, -0.541),
    ('depth:1', 'L1'): (0.001, 1.152, 3.874),
    ('depth:1', 'L2'): (0.006, 1.000, 2.147),
    ('depth:1', 'L3'): (0.018, 1.807, 2.000),
    ('depth:2', 'compulsory'): (0.054, 0.281, 1.998),
    ('depth:2', 'L1'): (0.052, 2.430, 3.374),
    ('depth:2', 'L2'): (0.052, 1.047, 1.989),
    ('depth:2', 'L3'): (0.052, 1.972, 2.000),
    ('depth:3', 'compulsory'): (0.642, 2.999, 7.993),
    ('depth:3', 'L1'): (0.045, 0.312, -0.791),
    ('depth:3', 'L2'): (1.503, 6.985, 26.000),
    ('depth:3', 'L3'): (1.914, 4.964, 26.000),
    ('depth:4', 'compulsory'): (0.633, 3.912, 7.690),
    ('depth:4', 'L1'): (0.442, 4.847, 5.792),
    ('depth:4', 'L2'): (0.579, 3.649, 4.806),
    ('depth:4', 'L3'): (1.949, 5.441, 13.185),
    ('depth:5', 'compulsory'): (8.000, 45.753, 79.973),
    ('depth:5', 'L1'): (0.235, 0.562, 0.684),
    ('depth:5', 'L2'): (11.623, 27.473, 29.682),
    ('depth:5', 'L3'): (26.000, 62.443, 79.785),
    ('indirect:clustered', 'compulsory'): (0.109, 0.197, -0.209),
    ('indirect:clustered', 'L1'): (1.072, 2.819, 3.374),
    ('indirect:clustered', 'L2'): (0.097, 1.151, 2.147),
    ('indirect:clustered', 'L3'): (0.846, 1.722, 1.864),
    ('indirect:scatter', 'compulsory'): (0.172, 0.407, -0.541),
    ('indirect:scatter', 'L1'): (1.363, 3.001, 3.874),
    ('indirect:scatter', 'L2'): (0.124, 1.263, 2.147),
    ('indirect:scatter', 'L3'): (0.493, 1.039, 1.064),
    ('indirect:sorted', 'compulsory'): (0.133, 0.301, 0.367),
    ('indirect:sorted', 'L1'): (1.636, 2.646, 3.874),
    ('indirect:sorted', 'L2'): (0.040, 0.555, 0.966),
    ('indirect:sorted', 'L3'): (0.040, 1.147, 1.568),
    ('indirect:uniform', 'compulsory'): (0.161, 0.223, -0.541),
    ('indirect:uniform', 'L1'): (0.040, 2.142, 3.170),
    ('indirect:uniform', 'L2'): (0.087, 0.435, -0.655),
    ('indirect:uniform', 'L3'): (0.007, 0.222, 0.975),
    ('invariant-coefficient', 'compulsory'): (0.100, 3.264, 7.993),
    ('invariant-coefficient', 'L1'): (0.018, 0.317, -0.791),
    ('invariant-coefficient', 'L2'): (0.215, 2.355, 26.000),
    ('invariant-coefficient', 'L3'): (1.000, 4.377, 26.000),
    ('invariant-loop', 'compulsory'): (2.892, 9.753, 79.973),
    ('invariant-loop', 'L1'): (0.030, 0.349, 0.684),
    ('invariant-loop', 'L2'): (1.746, 20.787, 29.682),
    ('invariant-loop', 'L3'): (3.976, 26.736, 79.785),
    ('lang:c', 'compulsory'): (0.184, 2.808, 79.973),
    ('lang:c', 'L1'): (0.060, 1.797, 5.792),
    ('lang:c', 'L2'): (0.309, 1.989, 26.000),
    ('lang:c', 'L3'): (0.520, 3.498, 79.785),
    ('lang:fortran', 'compulsory'): (0.042, 4.245, 22.940),
    ('lang:fortran', 'L1'): (0.020, 2.273, 4.740),
    ('lang:fortran', 'L2'): (0.096, 4.253, 29.682),
    ('lang:fortran', 'L3'): (0.861, 4.835, 29.682),
    ('offsets', 'compulsory'): (0.438, 7.749, 79.973),
    ('offsets', 'L1'): (0.030, 0.359, -0.791),
    ('offsets', 'L2'): (0.333, 7.355, 29.682),
    ('offsets', 'L3'): (1.746, 8.999, 79.785),
    ('offsets:1', 'compulsory'): (0.052, 2.767, 4.945),
    ('offsets:1', 'L1'): (0.020, 0.305, -0.410),
    ('offsets:1', 'L2'): (0.218, 1.974, 7.205),
    ('offsets:1', 'L3'): (0.898, 3.434, 13.185),
    ('offsets:2', 'compulsory'): (0.540, 7.988, 7.993),
    ('offsets:2', 'L1'): (0.018, 0.569, -0.791),
    ('offsets:2', 'L2'): (0.706, 9.757, 26.000),
    ('offsets:2', 'L3'): (0.997, 9.757, 26.000),
    ('offsets:3', 'compulsory'): (1.998, 9.504, 16.763),
    ('offsets:3', 'L1'): (0.060, 0.316, 0.480),
    ('offsets:3', 'L2'): (0.133, 5.460, 19.484),
    ('offsets:3', 'L3'): (1.995, 16.329, 50.882),
    ('offsets:4', 'compulsory'): (2.468, 28.643, 79.973),
    ('offsets:4', 'L1'): (0.053, 0.353, 0.684),
    ('offsets:4', 'L2'): (1.494, 13.429, 29.682),
    ('offsets:4', 'L3'): (3.882, 34.692, 79.785),
    ('order:column', 'compulsory'): (0.234, 3.607, 4.451),
    ('order:column', 'L1'): (0.274, 0.688, -0.791),
    ('order:column', 'L2'): (0.215, 0.387, 0.430),
    ('order:column', 'L3'): (0.229, 4.150, 5.131),
    ('order:contiguous', 'compulsory'): (0.438, 3.912, 8.000),
    ('order:contiguous', 'L1'): (0.035, 0.273, -0.410),
    ('order:contiguous', 'L2'): (0.596, 2.122, 26.000),
    ('order:contiguous', 'L3'): (1.873, 5.538, 26.000),
    ('order:transposed', 'compulsory'): (2.049, 9.971, 16.763),
    ('order:transposed', 'L1'): (0.035, 0.586, 0.684),
    ('order:transposed', 'L2'): (2.726, 13.981, 19.484),
    ('order:transposed', 'L3'): (2.726, 18.985, 50.882),
    ('reduction-lower-rank', 'compulsory'): (0.234, 1.861, 7.690),
    ('reduction-lower-rank', 'L1'): (0.051, 0.274, -0.791),
    ('reduction-lower-rank', 'L2'): (0.215, 1.988, 1.989),
    ('reduction-lower-rank', 'L3'): (1.700, 3.788, 7.691),
    ('row-level', 'compulsory'): (0.754, 5.278, 7.690),
    ('row-level', 'L1'): (0.063, 0.508, -0.791),
    ('row-level', 'L2'): (0.215, 1.873, 1.989),
    ('row-level', 'L3'): (1.700, 5.410, 7.691),
    ('scratch-tile', 'compulsory'): (0.598, 0.634, 0.635),
    ('scratch-tile', 'L1'): (1.770, 5.221, 5.792),
    ('scratch-tile', 'L2'): (0.583, 4.171, 4.806),
    ('scratch-tile', 'L3'): (1.294, 4.171, 4.806),
    ('section', 'compulsory'): (0.011, 0.021, -0.022),
    ('section', 'L3'): (0.026, 1.408, 1.989),
    ('siblings', 'compulsory'): (0.042, 0.642, 3.654),
    ('siblings', 'L1'): (0.047, 1.508, 2.489),
    ('siblings', 'L2'): (0.087, 1.134, 1.260),
    ('siblings', 'L3'): (1.491, 4.216, 13.185),
    ('strided', 'L2'): (0.000, 0.200, 2.000),
    ('strided', 'L3'): (0.000, 0.200, 2.000),
    ('time-loop', 'compulsory'): (0.074, 3.458, 16.763),
    ('time-loop', 'L1'): (0.025, 1.827, 3.874),
    ('time-loop', 'L2'): (0.587, 2.000, 26.000),
    ('time-loop', 'L3'): (1.912, 10.729, 50.882),
    ('time-loop-call', 'compulsory'): (0.120, 7.994, 16.763),
    ('time-loop-call', 'L1'): (0.051, 0.624, 1.811),
    ('time-loop-call', 'L2'): (0.881, 9.200, 26.000),
    ('time-loop-call', 'L3'): (1.260, 26.000, 50.882),
    ('type:c8', 'compulsory'): (0.267, 4.945, 7.988),
    ('type:c8', 'L1'): (0.020, 1.051, 1.051),
    ('type:c8', 'L2'): (0.024, 0.497, 7.952),
    ('type:c8', 'L3'): (2.000, 5.131, 7.952),
    ('type:i4', 'compulsory'): (0.070, 1.529, 16.763),
    ('type:i4', 'L1'): (0.341, 2.670, 5.792),
    ('type:i4', 'L2'): (0.470, 1.994, 3.500),
    ('type:i4', 'L3'): (0.557, 1.994, 50.882),
    ('type:i8', 'compulsory'): (0.095, 3.332, 79.973),
    ('type:i8', 'L1'): (0.003, 1.903, 3.874),
    ('type:i8', 'L2'): (0.049, 2.900, 11.623),
    ('type:i8', 'L3'): (0.589, 4.751, 79.785),
    ('type:r4', 'compulsory'): (0.234, 5.016, 22.940),
    ('type:r4', 'L1'): (0.040, 1.212, 4.740),
    ('type:r4', 'L2'): (1.000, 10.677, 29.682),
    ('type:r4', 'L3'): (1.118, 8.462, 29.682),
    ('type:r8', 'compulsory'): (0.176, 1.092, 7.993),
    ('type:r8', 'L1'): (0.269, 2.169, 3.374),
    ('type:r8', 'L2'): (0.141, 1.097, 26.000),
    ('type:r8', 'L3'): (0.108, 2.625, 26.000),
    ('whole-array', 'L2'): (0.000, 0.200, 2.000),
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
