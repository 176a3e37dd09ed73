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
    ('all', 'compulsory'): (0.036, 0.542, 1.000),
    ('all', 'L1'): (0.206, 2.202, 15.364),
    ('all', 'L2'): (0.086, 1.152, 11.623),
    ('all', 'L3'): (0.058, 0.833, 4.806),
    ('bounds:constant', 'compulsory'): (0.013, 0.162, -0.541),
    ('bounds:constant', 'L1'): (0.058, 0.833, 3.874),
    ('bounds:constant', 'L2'): (0.038, 0.783, 7.205),
    ('bounds:constant', 'L3'): (0.017, 0.622, 1.064),
    ('bounds:descending', 'compulsory'): (0.001, 0.382, 0.737),
    ('bounds:descending', 'L1'): (0.021, 7.718, 15.364),
    ('bounds:descending', 'L2'): (0.133, 0.285, 0.373),
    ('bounds:descending', 'L3'): (0.133, 0.285, 0.373),
    ('bounds:parametric', 'compulsory'): (0.008, 0.059, -0.104),
    ('bounds:parametric', 'L1'): (0.011, 0.477, 0.974),
    ('bounds:parametric', 'L2'): (0.069, 1.064, 1.276),
    ('bounds:parametric', 'L3'): (0.062, 0.501, 0.974),
    ('bounds:step', 'compulsory'): (0.234, 0.895, 1.000),
    ('bounds:step', 'L1'): (0.684, 9.535, 15.364),
    ('bounds:step', 'L2'): (0.235, 7.123, 11.623),
    ('bounds:step', 'L3'): (0.215, 0.318, 0.373),
    ('bounds:tile-constant', 'compulsory'): (0.592, 0.633, 0.635),
    ('bounds:tile-constant', 'L1'): (1.051, 4.954, 5.792),
    ('bounds:tile-constant', 'L2'): (1.162, 3.798, 4.806),
    ('bounds:tile-constant', 'L3'): (0.780, 3.798, 4.806),
    ('bounds:tile-runtime', 'compulsory'): (0.045, 0.110, -0.149),
    ('bounds:tile-runtime', 'L1'): (0.170, 0.829, 0.974),
    ('bounds:tile-runtime', 'L2'): (0.260, 6.298, 11.623),
    ('bounds:tile-runtime', 'L3'): (0.130, 0.621, 0.974),
    ('bounds:triangular', 'compulsory'): (0.043, 0.075, -0.085),
    ('bounds:triangular', 'L1'): (0.309, 0.391, -0.410),
    ('bounds:triangular', 'L2'): (0.272, 0.387, -0.410),
    ('bounds:triangular', 'L3'): (0.272, 0.387, -0.410),
    ('branch', 'compulsory'): (0.013, 0.357, 0.737),
    ('branch', 'L1'): (0.480, 7.883, 15.364),
    ('branch', 'L2'): (0.196, 1.382, 2.896),
    ('branch', 'L3'): (0.196, 1.382, 2.896),
    ('csr', 'compulsory'): (0.161, 0.223, 0.367),
    ('csr', 'L1'): (1.823, 3.135, 3.374),
    ('csr', 'L2'): (0.020, 0.265, -0.351),
    ('depth:1', 'compulsory'): (0.000, 0.192, -0.541),
    ('depth:1', 'L1'): (0.250, 1.152, 3.874),
    ('depth:1', 'L2'): (0.078, 0.803, 2.147),
    ('depth:1', 'L3'): (0.030, 0.700, 1.064),
    ('depth:2', 'compulsory'): (0.046, 0.199, 0.367),
    ('depth:2', 'L1'): (0.083, 2.430, 3.374),
    ('depth:2', 'L2'): (0.015, 0.311, 1.118),
    ('depth:3', 'compulsory'): (0.048, 0.264, 1.000),
    ('depth:3', 'L1'): (0.031, 0.747, 15.364),
    ('depth:3', 'L2'): (0.138, 0.424, 7.205),
    ('depth:3', 'L3'): (0.105, 0.326, 0.974),
    ('depth:4', 'compulsory'): (0.548, 0.633, 0.635),
    ('depth:4', 'L1'): (0.238, 4.847, 5.792),
    ('depth:4', 'L2'): (0.497, 3.649, 4.806),
    ('depth:4', 'L3'): (0.497, 3.649, 4.806),
    ('depth:5', 'compulsory'): (0.013, 0.122, -0.149),
    ('depth:5', 'L1'): (0.235, 1.569, 2.896),
    ('depth:5', 'L2'): (0.042, 6.387, 11.623),
    ('depth:5', 'L3'): (0.039, 1.337, 2.896),
    ('indirect:clustered', 'compulsory'): (0.109, 0.197, -0.209),
    ('indirect:clustered', 'L1'): (1.072, 2.819, 3.374),
    ('indirect:clustered', 'L2'): (0.097, 1.151, 2.147),
    ('indirect:clustered', 'L3'): (0.045, 0.852, 1.064),
    ('indirect:scatter', 'compulsory'): (0.172, 0.407, -0.541),
    ('indirect:scatter', 'L1'): (1.363, 3.001, 3.874),
    ('indirect:scatter', 'L2'): (0.124, 1.263, 2.147),
    ('indirect:scatter', 'L3'): (0.008, 0.594, 1.064),
    ('indirect:sorted', 'compulsory'): (0.133, 0.301, 0.367),
    ('indirect:sorted', 'L1'): (1.636, 2.646, 3.874),
    ('indirect:sorted', 'L2'): (0.020, 0.359, -0.380),
    ('indirect:uniform', 'compulsory'): (0.161, 0.223, -0.541),
    ('indirect:uniform', 'L1'): (0.040, 2.142, 3.170),
    ('indirect:uniform', 'L2'): (0.087, 0.435, -0.655),
    ('indirect:uniform', 'L3'): (0.007, 0.320, -0.589),
    ('invariant-coefficient', 'compulsory'): (0.015, 0.129, 0.267),
    ('invariant-coefficient', 'L1'): (0.064, 0.317, -0.791),
    ('invariant-coefficient', 'L2'): (0.059, 0.307, 11.623),
    ('invariant-coefficient', 'L3'): (0.059, 0.226, -0.333),
    ('invariant-loop', 'compulsory'): (0.018, 0.128, 1.000),
    ('invariant-loop', 'L1'): (0.032, 0.742, 15.364),
    ('invariant-loop', 'L2'): (0.036, 1.034, 11.623),
    ('invariant-loop', 'L3'): (0.036, 0.313, 2.896),
    ('lang:c', 'compulsory'): (0.091, 0.586, 1.000),
    ('lang:c', 'L1'): (0.238, 1.879, 15.364),
    ('lang:c', 'L2'): (0.212, 1.153, 7.205),
    ('lang:c', 'L3'): (0.077, 0.823, 3.500),
    ('lang:fortran', 'compulsory'): (0.020, 0.287, 0.635),
    ('lang:fortran', 'L1'): (0.083, 2.652, 4.740),
    ('lang:fortran', 'L2'): (0.056, 1.045, 11.623),
    ('lang:fortran', 'L3'): (0.034, 0.753, 4.806),
    ('offsets', 'compulsory'): (0.027, 0.128, 0.737),
    ('offsets', 'L1'): (0.040, 0.572, 15.364),
    ('offsets', 'L2'): (0.046, 1.002, 11.623),
    ('offsets', 'L3'): (0.046, 0.305, 2.896),
    ('offsets:1', 'compulsory'): (0.020, 0.099, -0.123),
    ('offsets:1', 'L1'): (0.069, 0.305, -0.410),
    ('offsets:1', 'L2'): (0.080, 0.764, 7.205),
    ('offsets:1', 'L3'): (0.063, 0.301, -0.410),
    ('offsets:2', 'compulsory'): (0.021, 0.116, -0.234),
    ('offsets:2', 'L1'): (0.018, 0.569, -0.791),
    ('offsets:2', 'L2'): (0.017, 0.236, -0.251),
    ('offsets:2', 'L3'): (0.017, 0.217, -0.235),
    ('offsets:3', 'compulsory'): (0.091, 0.361, 0.737),
    ('offsets:3', 'L1'): (0.035, 3.457, 15.364),
    ('offsets:3', 'L2'): (0.046, 0.599, 1.276),
    ('offsets:3', 'L3'): (0.046, 0.313, 0.373),
    ('offsets:4', 'compulsory'): (0.026, 0.105, -0.149),
    ('offsets:4', 'L1'): (0.053, 1.166, 2.896),
    ('offsets:4', 'L2'): (0.030, 3.769, 11.623),
    ('offsets:4', 'L3'): (0.029, 1.166, 2.896),
    ('order:column', 'compulsory'): (0.154, 0.218, -0.234),
    ('order:column', 'L1'): (0.274, 0.688, -0.791),
    ('order:column', 'L2'): (0.215, 0.387, 0.430),
    ('order:column', 'L3'): (0.215, 0.226, 0.229),
    ('order:contiguous', 'compulsory'): (0.035, 0.152, 1.000),
    ('order:contiguous', 'L1'): (0.051, 0.287, 15.364),
    ('order:contiguous', 'L2'): (0.046, 0.341, 1.118),
    ('order:contiguous', 'L3'): (0.046, 0.281, -0.410),
    ('order:transposed', 'compulsory'): (0.074, 0.118, -0.149),
    ('order:transposed', 'L1'): (0.035, 0.586, 0.684),
    ('order:transposed', 'L2'): (0.243, 8.530, 11.623),
    ('order:transposed', 'L3'): (0.132, 0.254, -0.298),
    ('reduction-lower-rank', 'compulsory'): (0.046, 0.154, -0.234),
    ('reduction-lower-rank', 'L1'): (0.051, 0.274, -0.791),
    ('reduction-lower-rank', 'L2'): (0.036, 0.215, 0.430),
    ('reduction-lower-rank', 'L3'): (0.036, 0.215, 0.229),
    ('row-level', 'compulsory'): (0.113, 0.189, -0.234),
    ('row-level', 'L1'): (0.149, 0.559, -0.791),
    ('row-level', 'L2'): (0.034, 0.203, -0.215),
    ('row-level', 'L3'): (0.034, 0.203, -0.215),
    ('scratch-tile', 'compulsory'): (0.598, 0.634, 0.635),
    ('scratch-tile', 'L1'): (1.770, 5.221, 5.792),
    ('scratch-tile', 'L2'): (1.162, 4.171, 4.806),
    ('scratch-tile', 'L3'): (1.162, 4.171, 4.806),
    ('section', 'compulsory'): (0.011, 0.021, -0.022),
    ('siblings', 'compulsory'): (0.014, 0.158, 0.308),
    ('siblings', 'L1'): (0.069, 1.508, 2.489),
    ('siblings', 'L2'): (0.064, 0.785, 1.151),
    ('siblings', 'L3'): (0.041, 0.302, 0.559),
    ('strided', 'L1'): (0.550, 0.833, -0.833),
    ('strided', 'L2'): (0.550, 0.833, -0.833),
    ('strided', 'L3'): (0.550, 0.833, -0.833),
    ('time-loop', 'compulsory'): (0.013, 0.271, 1.000),
    ('time-loop', 'L1'): (0.058, 1.827, 3.874),
    ('time-loop', 'L2'): (0.039, 0.541, 1.151),
    ('time-loop', 'L3'): (0.013, 0.318, -0.589),
    ('time-loop-call', 'compulsory'): (0.013, 0.223, 1.000),
    ('time-loop-call', 'L1'): (0.064, 0.624, 1.811),
    ('time-loop-call', 'L2'): (0.042, 0.492, 1.118),
    ('time-loop-call', 'L3'): (0.020, 0.268, -0.589),
    ('type:c8', 'compulsory'): (0.001, 0.633, 0.633),
    ('type:c8', 'L1'): (0.011, 1.051, 1.051),
    ('type:c8', 'L2'): (0.011, 0.497, 0.497),
    ('type:c8', 'L3'): (0.011, 0.497, 0.497),
    ('type:i4', 'compulsory'): (0.030, 0.567, 0.635),
    ('type:i4', 'L1'): (0.255, 2.670, 5.792),
    ('type:i4', 'L2'): (0.068, 1.594, 3.500),
    ('type:i4', 'L3'): (0.074, 1.200, 3.500),
    ('type:i8', 'compulsory'): (0.044, 0.284, 1.000),
    ('type:i8', 'L1'): (0.043, 1.903, 3.874),
    ('type:i8', 'L2'): (0.049, 0.490, 11.623),
    ('type:i8', 'L3'): (0.008, 0.284, -0.700),
    ('type:r4', 'compulsory'): (0.018, 0.594, 0.737),
    ('type:r4', 'L1'): (0.083, 3.503, 15.364),
    ('type:r4', 'L2'): (0.185, 1.924, 4.806),
    ('type:r4', 'L3'): (0.116, 1.855, 4.806),
    ('type:r8', 'compulsory'): (0.120, 0.267, 0.635),
    ('type:r8', 'L1'): (0.337, 2.169, 3.374),
    ('type:r8', 'L2'): (0.207, 0.719, 0.974),
    ('type:r8', 'L3'): (0.058, 0.724, 0.974),
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
