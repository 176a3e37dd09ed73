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
    "section", "whole-array", "scratch-tile", "branch", "statement-function", "index-function",
    "constant-subscript", "array-reduction", "bounds:triangular-nested", "bounds:opaque",
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


# each form of the text (bench/differential/forms.py) and what its source then holds
FORM_TEXT = {
    "statement-function": r"^ *sf\d+\(sa\d+_1[^)]*\) = ",
    "index-function": r"^static inline int ix_\w+\(int i1, int i0\) \{ return ",
    "constant-subscript": r"z_n\d+(\(.*, \(\d - 1\)\)|\[ix_z_n\d+\(\(\d - 1\)|\[\(\d - 1\)\])",
    "array-reduction": r"^ *dot_n\d+\(1\) = (dot_product|sum)\(rp_n\d+(, | \* )rq_n\d+\)$",
    "bounds:triangular-nested": r"(do [ijklm] = [ijklm]\b|for \(int [ijklm] = [ijklm]\b)",
    "bounds:opaque": r"(, sz_n\d+\(\d\) - 1$| < sz_n\d+\[\d\];)",
}


def test_forms_of_the_text_leave_the_nests_drawn_before(monkeypatch):
    import re

    import forms

    written = generate.generate(SEED, SAMPLE)
    for name, pattern in FORM_TEXT.items():
        holders = [n for n in written if name in n.classes]
        assert holders, name
        for nest in holders:
            assert re.search(pattern, emit.source(nest), re.M), (name, nest.ident)
    # without the forms, every nest is drawn as before: the same classes but the forms'
    monkeypatch.setattr(forms, "RATES", dict.fromkeys(forms.RATES, 0.0))
    plain = generate.generate(SEED, SAMPLE)
    assert [n.classes - set(FORM_TEXT) for n in written] == [n.classes for n in plain]


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
    ('all', 'compulsory'): (0.137, 3.013, 79.966),
    ('all', 'L1'): (0.214, 2.522, 9.689),
    ('all', 'L2'): (0.321, 2.680, 92.506),
    ('all', 'L3'): (0.840, 4.936, 92.506),
    ('array-reduction', 'compulsory'): (0.018, 2.511, 3.399),
    ('array-reduction', 'L1'): (0.578, 1.198, 2.077),
    ('array-reduction', 'L2'): (0.043, 6.121, 11.366),
    ('array-reduction', 'L3'): (0.043, 3.704, 5.538),
    ('bounds:constant', 'compulsory'): (0.030, 1.902, 16.763),
    ('bounds:constant', 'L1'): (0.036, 0.833, 3.874),
    ('bounds:constant', 'L2'): (0.114, 1.917, 26.000),
    ('bounds:constant', 'L3'): (0.700, 3.072, 50.882),
    ('bounds:descending', 'compulsory'): (1.648, 41.550, 79.966),
    ('bounds:descending', 'L1'): (0.014, 4.881, 9.689),
    ('bounds:descending', 'L2'): (0.722, 2.479, 2.589),
    ('bounds:descending', 'L3'): (2.057, 41.133, 79.678),
    ('bounds:opaque', 'compulsory'): (0.077, 2.651, 79.966),
    ('bounds:opaque', 'L1'): (0.037, 0.880, 9.689),
    ('bounds:opaque', 'L2'): (0.402, 1.171, 7.195),
    ('bounds:opaque', 'L3'): (0.402, 6.277, 79.678),
    ('bounds:parametric', 'compulsory'): (2.179, 7.340, 7.993),
    ('bounds:parametric', 'L1'): (0.014, 1.994, 4.501),
    ('bounds:parametric', 'L2'): (2.102, 21.439, 26.000),
    ('bounds:parametric', 'L3'): (4.050, 19.187, 26.000),
    ('bounds:step', 'compulsory'): (3.000, 3.292, 3.399),
    ('bounds:step', 'L1'): (0.682, 6.134, 9.689),
    ('bounds:step', 'L2'): (0.525, 8.820, 11.366),
    ('bounds:step', 'L3'): (1.745, 4.400, 5.000),
    ('bounds:tile-constant', 'compulsory'): (0.596, 3.205, 22.940),
    ('bounds:tile-constant', 'L1'): (1.051, 4.954, 5.792),
    ('bounds:tile-constant', 'L2'): (0.780, 10.677, 92.506),
    ('bounds:tile-constant', 'L3'): (1.239, 5.010, 92.506),
    ('bounds:tile-runtime', 'compulsory'): (1.895, 2.906, 3.399),
    ('bounds:tile-runtime', 'L1'): (0.379, 2.710, 4.501),
    ('bounds:tile-runtime', 'L2'): (1.222, 8.452, 11.366),
    ('bounds:tile-runtime', 'L3'): (2.461, 4.519, 5.538),
    ('bounds:triangular', 'compulsory'): (0.233, 0.421, 0.437),
    ('bounds:triangular', 'L1'): (0.309, 0.400, -0.423),
    ('bounds:triangular', 'L2'): (0.508, 1.060, 1.260),
    ('bounds:triangular', 'L3'): (0.842, 3.024, 3.779),
    ('bounds:triangular-nested', 'compulsory'): (1.295, 6.307, 7.194),
    ('bounds:triangular-nested', 'L1'): (0.035, 0.333, -0.415),
    ('bounds:triangular-nested', 'L2'): (1.887, 3.928, 4.968),
    ('bounds:triangular-nested', 'L3'): (2.368, 6.387, 7.333),
    ('branch', 'compulsory'): (2.000, 19.234, 22.940),
    ('branch', 'L1'): (0.480, 5.613, 9.689),
    ('branch', 'L2'): (0.992, 38.556, 92.506),
    ('branch', 'L3'): (2.005, 67.532, 92.506),
    ('constant-subscript', 'compulsory'): (0.117, 2.531, 3.133),
    ('constant-subscript', 'L1'): (0.076, 4.501, 9.689),
    ('constant-subscript', 'L2'): (0.411, 2.368, 5.538),
    ('constant-subscript', 'L3'): (1.000, 5.538, 16.268),
    ('csr', 'compulsory'): (0.161, 0.223, 0.367),
    ('csr', 'L1'): (1.823, 3.135, 3.374),
    ('csr', 'L2'): (0.043, 0.344, 0.966),
    ('csr', 'L3'): (0.001, 0.954, 1.568),
    ('depth:1', 'compulsory'): (0.000, 0.192, -0.541),
    ('depth:1', 'L1'): (0.250, 1.086, 3.874),
    ('depth:1', 'L2'): (0.192, 1.000, 2.092),
    ('depth:1', 'L3'): (0.250, 1.533, 2.000),
    ('depth:2', 'compulsory'): (0.054, 0.281, 1.998),
    ('depth:2', 'L1'): (0.076, 2.430, 3.374),
    ('depth:2', 'L2'): (0.077, 1.047, 2.200),
    ('depth:2', 'L3'): (0.082, 1.991, 2.200),
    ('depth:3', 'compulsory'): (0.642, 3.120, 7.993),
    ('depth:3', 'L1'): (0.033, 0.908, 9.689),
    ('depth:3', 'L2'): (0.737, 5.484, 26.000),
    ('depth:3', 'L3'): (1.996, 4.997, 26.000),
    ('depth:4', 'compulsory'): (0.633, 3.014, 7.194),
    ('depth:4', 'L1'): (0.516, 4.847, 5.792),
    ('depth:4', 'L2'): (0.579, 3.649, 4.806),
    ('depth:4', 'L3'): (1.949, 5.413, 16.268),
    ('depth:5', 'compulsory'): (8.000, 45.751, 79.966),
    ('depth:5', 'L1'): (0.235, 1.568, 2.896),
    ('depth:5', 'L2'): (11.366, 52.603, 92.506),
    ('depth:5', 'L3'): (26.000, 84.809, 92.506),
    ('index-function', 'compulsory'): (1.223, 9.647, 16.763),
    ('index-function', 'L1'): (0.141, 0.512, -0.544),
    ('index-function', 'L2'): (0.764, 2.128, 2.368),
    ('index-function', 'L3'): (2.128, 33.575, 50.882),
    ('indirect:clustered', 'compulsory'): (0.102, 0.197, -0.209),
    ('indirect:clustered', 'L1'): (1.065, 2.819, 3.374),
    ('indirect:clustered', 'L2'): (0.097, 1.151, 2.092),
    ('indirect:clustered', 'L3'): (0.846, 1.722, 1.864),
    ('indirect:scatter', 'compulsory'): (0.172, 0.407, -0.541),
    ('indirect:scatter', 'L1'): (1.342, 2.997, 3.874),
    ('indirect:scatter', 'L2'): (0.124, 1.236, 2.092),
    ('indirect:scatter', 'L3'): (0.493, 1.022, 1.032),
    ('indirect:sorted', 'compulsory'): (0.133, 0.301, 0.367),
    ('indirect:sorted', 'L1'): (1.636, 2.646, 3.874),
    ('indirect:sorted', 'L2'): (0.029, 0.555, 0.966),
    ('indirect:sorted', 'L3'): (0.029, 1.147, 1.568),
    ('indirect:uniform', 'compulsory'): (0.161, 0.223, -0.541),
    ('indirect:uniform', 'L1'): (0.040, 2.142, 3.170),
    ('indirect:uniform', 'L2'): (0.087, 0.435, -0.655),
    ('indirect:uniform', 'L3'): (0.006, 0.222, 0.975),
    ('invariant-coefficient', 'compulsory'): (0.091, 2.839, 7.993),
    ('invariant-coefficient', 'L1'): (0.035, 0.547, 4.501),
    ('invariant-coefficient', 'L2'): (0.264, 2.355, 26.000),
    ('invariant-coefficient', 'L3'): (1.000, 4.298, 26.000),
    ('invariant-loop', 'compulsory'): (2.413, 9.753, 79.966),
    ('invariant-loop', 'L1'): (0.028, 1.315, 9.689),
    ('invariant-loop', 'L2'): (1.260, 20.787, 92.506),
    ('invariant-loop', 'L3'): (3.779, 30.976, 92.506),
    ('lang:c', 'compulsory'): (0.184, 2.424, 79.966),
    ('lang:c', 'L1'): (0.238, 2.114, 9.689),
    ('lang:c', 'L2'): (0.402, 2.158, 26.000),
    ('lang:c', 'L3'): (0.700, 3.357, 79.678),
    ('lang:fortran', 'compulsory'): (0.042, 3.819, 22.940),
    ('lang:fortran', 'L1'): (0.076, 2.652, 4.740),
    ('lang:fortran', 'L2'): (0.200, 4.470, 92.506),
    ('lang:fortran', 'L3'): (0.861, 4.947, 92.506),
    ('offsets', 'compulsory'): (0.437, 7.087, 79.966),
    ('offsets', 'L1'): (0.033, 0.706, 9.689),
    ('offsets', 'L2'): (0.385, 5.869, 92.506),
    ('offsets', 'L3'): (1.887, 9.120, 92.506),
    ('offsets:1', 'compulsory'): (0.043, 2.235, 4.945),
    ('offsets:1', 'L1'): (0.069, 0.419, 4.501),
    ('offsets:1', 'L2'): (0.359, 2.094, 7.195),
    ('offsets:1', 'L3'): (0.712, 3.859, 16.268),
    ('offsets:2', 'compulsory'): (0.481, 5.278, 7.993),
    ('offsets:2', 'L1'): (0.015, 0.545, -0.801),
    ('offsets:2', 'L2'): (0.703, 7.071, 26.000),
    ('offsets:2', 'L3'): (0.996, 7.071, 26.000),
    ('offsets:3', 'compulsory'): (1.998, 9.108, 16.763),
    ('offsets:3', 'L1'): (0.035, 2.322, 9.689),
    ('offsets:3', 'L2'): (0.133, 5.606, 19.484),
    ('offsets:3', 'L3'): (2.137, 16.043, 50.882),
    ('offsets:4', 'compulsory'): (2.179, 28.643, 79.966),
    ('offsets:4', 'L1'): (0.031, 1.117, 2.896),
    ('offsets:4', 'L2'): (1.494, 19.480, 92.506),
    ('offsets:4', 'L3'): (3.640, 80.961, 92.506),
    ('order:column', 'compulsory'): (0.154, 3.591, 4.451),
    ('order:column', 'L1'): (0.274, 0.696, -0.801),
    ('order:column', 'L2'): (0.294, 0.403, 0.430),
    ('order:column', 'L3'): (0.294, 4.164, 5.131),
    ('order:contiguous', 'compulsory'): (0.437, 3.495, 8.000),
    ('order:contiguous', 'L1'): (0.035, 0.417, 9.689),
    ('order:contiguous', 'L2'): (0.423, 2.227, 26.000),
    ('order:contiguous', 'L3'): (1.988, 5.467, 26.000),
    ('order:transposed', 'compulsory'): (1.250, 9.971, 16.763),
    ('order:transposed', 'L1'): (0.029, 0.566, 0.682),
    ('order:transposed', 'L2'): (2.284, 13.801, 19.484),
    ('order:transposed', 'L3'): (2.284, 18.985, 50.882),
    ('reduction-lower-rank', 'compulsory'): (0.154, 1.861, 7.194),
    ('reduction-lower-rank', 'L1'): (0.051, 0.415, -0.801),
    ('reduction-lower-rank', 'L2'): (0.385, 1.988, 1.989),
    ('reduction-lower-rank', 'L3'): (1.887, 3.779, 7.333),
    ('row-level', 'compulsory'): (0.638, 4.777, 7.194),
    ('row-level', 'L1'): (0.209, 0.647, -0.801),
    ('row-level', 'L2'): (0.385, 1.948, 1.989),
    ('row-level', 'L3'): (1.887, 5.196, 7.333),
    ('scratch-tile', 'compulsory'): (0.597, 0.634, 0.635),
    ('scratch-tile', 'L1'): (1.770, 5.221, 5.792),
    ('scratch-tile', 'L2'): (0.971, 4.171, 4.806),
    ('scratch-tile', 'L3'): (1.594, 4.171, 4.806),
    ('section', 'compulsory'): (0.006, 0.016, -0.018),
    ('section', 'L3'): (0.019, 1.404, 1.989),
    ('siblings', 'compulsory'): (0.042, 0.642, 2.531),
    ('siblings', 'L1'): (0.069, 1.508, 2.489),
    ('siblings', 'L2'): (0.179, 1.134, 1.260),
    ('siblings', 'L3'): (1.491, 4.212, 16.268),
    ('statement-function', 'compulsory'): (0.227, 5.666, 22.940),
    ('statement-function', 'L1'): (0.333, 2.378, 2.896),
    ('statement-function', 'L2'): (0.917, 15.300, 92.506),
    ('statement-function', 'L3'): (1.557, 5.471, 92.506),
    ('strided', 'L1'): (0.551, 0.833, -0.833),
    ('strided', 'L2'): (0.700, 0.875, 1.250),
    ('strided', 'L3'): (0.700, 0.875, 1.250),
    ('time-loop', 'compulsory'): (0.074, 2.859, 16.763),
    ('time-loop', 'L1'): (0.058, 1.827, 3.874),
    ('time-loop', 'L2'): (0.586, 2.140, 26.000),
    ('time-loop', 'L3'): (1.793, 12.887, 50.882),
    ('time-loop-call', 'compulsory'): (0.120, 7.994, 16.763),
    ('time-loop-call', 'L1'): (0.064, 0.624, 1.811),
    ('time-loop-call', 'L2'): (0.881, 9.200, 26.000),
    ('time-loop-call', 'L3'): (1.250, 26.000, 50.882),
    ('type:c8', 'compulsory'): (0.267, 4.945, 4.976),
    ('type:c8', 'L1'): (0.011, 1.051, 1.051),
    ('type:c8', 'L2'): (0.024, 0.497, 4.968),
    ('type:c8', 'L3'): (2.000, 4.968, 5.131),
    ('type:i4', 'compulsory'): (0.061, 1.528, 16.763),
    ('type:i4', 'L1'): (0.255, 2.670, 5.792),
    ('type:i4', 'L2'): (0.679, 2.046, 3.500),
    ('type:i4', 'L3'): (0.913, 2.068, 50.882),
    ('type:i8', 'compulsory'): (0.088, 3.120, 79.966),
    ('type:i8', 'L1'): (0.035, 1.903, 3.874),
    ('type:i8', 'L2'): (0.135, 2.892, 11.366),
    ('type:i8', 'L3'): (0.773, 4.751, 79.678),
    ('type:r4', 'compulsory'): (0.153, 4.704, 22.940),
    ('type:r4', 'L1'): (0.074, 3.503, 9.689),
    ('type:r4', 'L2'): (0.966, 10.677, 92.506),
    ('type:r4', 'L3'): (1.118, 9.696, 92.506),
    ('type:r8', 'compulsory'): (0.176, 1.028, 7.993),
    ('type:r8', 'L1'): (0.445, 2.954, 4.501),
    ('type:r8', 'L2'): (0.296, 0.769, 26.000),
    ('type:r8', 'L3'): (0.231, 3.084, 26.000),
    ('whole-array', 'L2'): (0.000, 0.380, 2.000),
    ('whole-array', 'L3'): (0.003, 2.000, 2.000),
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
