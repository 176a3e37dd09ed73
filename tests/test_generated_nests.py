"""Generated loop nests against their execution (bench/differential/).

The fast tests check the instrument itself: the generator is reproducible and covers every
shape class, its Fortran and C compile, and the truth of small nests worked out by hand.

The slow test runs a fixed sample of generated nests (seed 0, nests 0-119: every shape class
at least twice) through satreport and asserts: no crash, flops by kind exact (but for the
classes listed in FLOPS_FAILING), and for every shape class and metric the accuracy target
(compulsory bytes within 1 % on every nest of the class; traffic at each level median
|error| <= 2 % and 90th percentile <= 15 %), except the (class, metric) pairs of
EXPECTED_FAILURES, each given with the error measured on this sample and the reason.  A
listed pair that meets its target fails the test too: fixing the model means updating the
list.
"""

from __future__ import annotations

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
import measure  # noqa: E402
import run as differential  # noqa: E402
from nests import Array, Assign, Bin, Bound, Const, Lin, Loop, Nest, Procedure, Ref  # noqa: E402

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


def target_met(metric: str, row: compare.ClassRow, members: list[compare.NestErrors]) -> bool:
    if metric == "compulsory":
        values = [abs(r.errors["compulsory"]) for r in members if not r.crash]
        return sum(v <= 0.01 for v in values) >= 0.99 * len(values)
    median, p90, _ = row.stats[metric]
    return median <= 0.02 and p90 <= 0.15


# Classes whose nests' flops by kind are not all exact, with the reason.
FLOPS_FAILING = {
    "branch": "an else arm is weighted 1/arms (0.5), not 1 - p of its if, whose p --conds "
              "gives (e.g. p = 0.28: multiplies per iteration 0.78 where 1 runs)",
}

# (class, metric) -> (measured on this sample: median, p90, worst error), and the reason.
EXPECTED_FAILURES: dict[tuple[str, str], str] = {}


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
        assert any(name in r.classes for r in inexact.values()), \
            f"flops of class {name} are now exact: take it off FLOPS_FAILING"
    met, unexpected, fixed = {}, [], []
    for row in compare.class_rows(results):
        members = [r for r in results if row.name == "all" or row.name in r.classes]
        for metric in compare.METRICS:
            ok = target_met(metric, row, members)
            met[row.name, metric] = ok
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
