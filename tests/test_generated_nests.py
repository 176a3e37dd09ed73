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

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from differential_harness import compare, differential, emit, generate, known, measure
from nests import Array, Assign, Bin, Bound, Const, If, Lin, Loop, Nest, Procedure, Ref

ROOT = Path(__file__).resolve().parent.parent

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


@needs_tools
def test_a_loop_that_never_runs_has_no_count_per_iteration_to_check(tmp_path):
    """``for i < 0``: the execution counts no flops and cannot say how many an iteration
    does; satreport's 1 add per iteration of the body is not a wrong count (its total, 0,
    is checked)."""
    nest = _sweep_nest(1)
    body = nest.procedures[0].body
    body[0].hi = Bound((), 0)
    exe, printers = measure.compile_truth([nest], tmp_path)
    truth = measure.run_truth(exe, measure.simulator(tmp_path), 0, printers[0])
    assert sum(truth.flops.values()) == 0 and truth.unmeasured == {"adds"}
    prediction = measure.Prediction(flops_total=0.0, per_iteration={"adds": 1.0},
                                    compulsory=0.0, levels={})
    outcome = measure.Outcome(nest, truth, prediction)
    assert compare.nest_errors(outcome).flops_exact
    truth.unmeasured = frozenset()  # a count the execution made would be checked
    assert not compare.nest_errors(outcome).flops_exact


def _branch_nest() -> Nest:
    """``for j < 4: for i < 10: if (w[j][i] > 0) y[j][i] = x[j][i] + 0.5``, its 2-D arrays
    one-dimensional, each element found by an index function (``w[ix_w(j, i)]``)."""
    w, x, y = (Array(f"{name}_hand", etype, (10, 4)) for name, etype in
               (("w", "i4"), ("x", "r8"), ("y", "r8")))
    ji = (Lin("i"), Lin("j"))
    then = [Assign(Ref(y, ji), Bin("+", Ref(x, ji), Const(0.5)), sid=2)]
    body = [Loop("j", Bound((), 0), Bound((), 4), [
        Loop("i", Bound((), 0), Bound((), 10), [If(Ref(w, ji), then, sid=1)], lid=2)], lid=1)]
    return Nest("hand", "c", [w, x, y], [Procedure("kernel_hand", body)],
                classes={"index-function"})


def test_a_condition_through_an_index_function_gets_its_fraction(tmp_path):
    # the fraction 0.25 reaches satreport under the condition's own text,
    # w_hand[ix_w_hand(j, i)] > 0: 40 iterations x 0.25 x 1 add = 10 adds (the default 1/2
    # would give 20)
    nest = _branch_nest()
    source = tmp_path / "hand.c"
    source.write_text(emit.source(nest))
    assert "if (w_hand[ix_w_hand(j, i)] > 0)" in source.read_text()
    truth = measure.Truth({}, {}, 0.0, {}, fractions={1: 0.25})
    conds = measure.write_conds([nest], tmp_path, {nest.ident: truth})
    out = tmp_path / "out.json"
    done = subprocess.run([satreport_command(), str(source), "--conds", str(conds), "--json",
                           str(out), "-q"], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    loop = json.loads(out.read_text())["loops"][0]
    assert loop["adds"] * loop["iter_x"] * loop["iter_y"] == pytest.approx(10)


# ---------------------------------------------------------------- the sample


# Classes whose nests' flops by kind are not all exact; the reason is known.REASONS'.
FLOPS_FAILING: set[str] = set()

# (class, metric) pairs missing their target on this sample -> (median |error|, 90th
# percentile, worst error) measured on it.  The reason of each class is in
# bench/differential/known.py (REASONS); a class without one there fails only through its
# nests that also carry a class with a reason.  Regenerate after a model fix with
# ``python bench/differential/run.py --count 120 --seed 0 --expected-failures``.
EXPECTED_FAILURES = {
    ('array-reduction', 'L2'): (0.009, 0.882, 6.169),
    ('array-reduction', 'L3'): (0.009, 0.178, -0.294),
    ('bounds:descending', 'L1'): (0.049, 2.256, 4.344),
    ('bounds:descending', 'L2'): (0.010, 0.294, 0.444),
    ('bounds:descending', 'L3'): (0.010, 0.258, 0.372),
    ('bounds:opaque', 'L2'): (0.010, 0.312, 0.444),
    ('bounds:opaque', 'L3'): (0.009, 0.169, 0.372),
    ('bounds:parametric', 'L1'): (0.006, 0.188, -0.277),
    ('bounds:parametric', 'L2'): (0.009, 0.192, 0.307),
    ('bounds:step', 'L1'): (0.300, 2.927, 4.344),
    ('bounds:step', 'L2'): (0.294, 3.879, 6.169),
    ('bounds:step', 'L3'): (0.165, 0.341, 0.372),
    ('bounds:tile-runtime', 'L1'): (0.015, 0.155, -0.277),
    ('bounds:tile-runtime', 'L2'): (0.039, 3.211, 6.169),
    ('bounds:triangular-nested', 'L1'): (0.025, 0.127, 0.155),
    ('bounds:triangular-nested', 'L2'): (0.018, 0.170, -0.269),
    ('bounds:triangular-nested', 'L3'): (0.020, 0.180, -0.269),
    ('branch', 'L1'): (0.056, 1.918, 4.344),
    ('branch', 'L2'): (0.004, 0.206, 0.444),
    ('branch', 'L3'): (0.004, 0.177, 0.372),
    ('constant-subscript', 'L1'): (0.007, 0.801, 4.344),
    ('constant-subscript', 'L2'): (0.011, 0.307, 0.444),
    ('constant-subscript', 'L3'): (0.009, 0.294, 0.372),
    ('csr', 'L1'): (0.030, 0.116, 0.163),
    ('depth:3', 'L1'): (0.004, 0.266, 4.344),
    ('depth:3', 'L2'): (0.009, 0.290, 0.444),
    ('depth:5', 'L1'): (0.025, 0.184, -0.235),
    ('depth:5', 'L2'): (0.012, 2.553, 6.169),
    ('depth:5', 'L3'): (0.009, 0.219, -0.298),
    ('index-function', 'L1'): (0.041, 0.104, -0.124),
    ('index-function', 'L2'): (0.015, 0.288, 0.307),
    ('indirect:clustered', 'L1'): (0.034, 0.146, 0.163),
    ('indirect:clustered', 'L2'): (0.021, 0.079, -0.121),
    ('indirect:scatter', 'L2'): (0.030, 0.127, -0.133),
    ('invariant-coefficient', 'L1'): (0.007, 0.208, -0.801),
    ('invariant-loop', 'L1'): (0.005, 0.244, 4.344),
    ('invariant-loop', 'L2'): (0.004, 0.277, 6.169),
    ('invariant-loop', 'L3'): (0.008, 0.186, 0.372),
    ('offsets', 'L1'): (0.005, 0.171, 4.344),
    ('offsets', 'L2'): (0.011, 0.274, 6.169),
    ('offsets:1', 'L2'): (0.015, 0.288, -0.334),
    ('offsets:2', 'L1'): (0.010, 0.350, -0.801),
    ('offsets:2', 'L2'): (0.011, 0.257, -0.294),
    ('offsets:3', 'L1'): (0.005, 0.989, 4.344),
    ('offsets:3', 'L2'): (0.012, 0.203, 0.444),
    ('offsets:3', 'L3'): (0.046, 0.313, 0.372),
    ('offsets:4', 'L2'): (0.003, 0.639, 6.169),
    ('order:column', 'L1'): (0.235, 0.688, -0.801),
    ('order:column', 'L2'): (0.089, 0.253, -0.294),
    ('order:column', 'L3'): (0.112, 0.258, -0.294),
    ('order:contiguous', 'L1'): (0.005, 0.157, 4.344),
    ('order:contiguous', 'L2'): (0.008, 0.168, 0.444),
    ('order:transposed', 'L1'): (0.029, 0.195, 0.300),
    ('order:transposed', 'L2'): (0.095, 2.085, 6.169),
    ('order:transposed', 'L3'): (0.032, 0.205, -0.298),
    ('reduction-lower-rank', 'L1'): (0.021, 0.155, -0.801),
    ('reduction-lower-rank', 'L2'): (0.020, 0.269, -0.294),
    ('reduction-lower-rank', 'L3'): (0.022, 0.269, -0.294),
    ('row-level', 'L1'): (0.085, 0.543, -0.801),
    ('row-level', 'L2'): (0.020, 0.284, -0.294),
    ('row-level', 'L3'): (0.046, 0.284, -0.294),
    ('statement-function', 'L1'): (0.006, 0.153, -0.167),
    ('type:r4', 'L1'): (0.007, 0.157, 4.344),
    ('type:r4', 'L2'): (0.003, 0.279, 0.444),
    ('type:r4', 'L3'): (0.003, 0.279, 0.372),
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


@pytest.mark.slow
@pytest.mark.parametrize("harness_machine", [False, True])
def test_generated_sample_without_conds_has_no_bound_violation(tmp_path, harness_machine):
    """The bounds hold in every run, not only the harness's: the sample's sources alone (no
    --conds, no --set, run-time sizes at their defaults), on the default machine and on the
    harness's three levels. n00026 (a stepped tile over a run-time extent) once broke L3."""
    sources = []
    for nest in generate.generate(SEED, SAMPLE):
        path = tmp_path / f"{nest.ident}{emit.suffix(nest)}"
        path.write_text(emit.source(nest))
        sources.append(str(path))
    machine = ["--machine", str(measure.machine_file(tmp_path))] if harness_machine else []
    done = subprocess.run([satreport_command(), *sources, *machine, "--json", "-", "-q",
                           "-j", "1"], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert len(report["loops"]) >= SAMPLE  # every modelled nest was checked
    assert report["bounds_violations"] == []
