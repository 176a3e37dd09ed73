"""Physical bounds (sat.model.bounds) on real code: the shapes of ExaSAT's own reference
inputs that the bounds once misread, by hand, and zero violations on every reference input.

The reference inputs live beside the checkout, never in it (``shared/reference/exasat/inputs``
in a folder that holds the checkout, found as tests/test_corpus.py finds the corpus); without
them that test is skipped. The default machine: LineBytes 64, a double 8 B.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from sat.frontend import read_sources
from sat.machine.library import load_machine
from sat.model.bounds import violations
from sat.model.build import build_model
from sat.parameters import build_parameters

ROOT = Path(__file__).resolve().parent.parent


def _reference_inputs() -> Path | None:
    """``shared/reference/exasat/inputs`` in the nearest folder above the checkout."""
    for folder in ROOT.parents:
        inputs = folder / "shared" / "reference" / "exasat" / "inputs"
        if inputs.is_dir():
            return inputs
    return None


INPUTS = _reference_inputs()


def _model(tmp_path: Path, text: str, *sets: str):
    path = tmp_path / "kernel.f90"
    path.write_text(text)
    result = build_model(read_sources([str(path)]),
                         build_parameters(load_machine(None), sets=list(sets)))
    env = result.env()
    return result, env, result.bounds[0]


def test_a_section_reference_counts_each_of_its_elements(tmp_path):
    """``sum(a(i, j-1:j+2))``: one reference of four elements on four columns (SMC's
    ``first_deriv_r3(cons(i,j,k-1:k+2,imz))``). n = 100: j 2..98 (97 trips) x i 1..100 =
    9,700 runs. Every element missing: a 4 lines, b (written) a line read and one written
    back: 64*(4 + 2) = 384 B a run, 3,724,800 B (64*(1 + 2) = 192 B a run before, which
    the model's own traffic of SMC's hypterm_3d broke). Compulsory: a steps through i only
    (the section is no affine subscript): 100 elements; b 9,700; (100 + 9,700)*8 = 78,400 B."""
    result, env, nest = _model(tmp_path, """\
subroutine sec(n, a, b)
  integer :: n, i, j
  real(8) :: a(n, n), b(n, n)
  do j = 2, n - 2
    do i = 1, n
      b(i, j) = sum(a(i, j-1:j+2))
    end do
  end do
end subroutine
""", "n=100")
    assert nest.most_iterations.value(env) == 9_700
    assert nest.most_bytes.value(env) == 3_724_800
    assert nest.compulsory_bytes.value(env) == 78_400
    assert violations(result, env) == []


SCRATCH = """\
subroutine scr({arguments})
  integer :: n, m, i, k
  real(8) :: q(m, n), r(n), x(m)
  do i = 1, n
    do k = 1, m
      x(k) = q(k, i)
    end do
    r(i) = x(1) + x(m)
  end do
end subroutine
"""


def test_a_scratch_array_of_the_procedure_is_no_compulsory_traffic(tmp_path):
    """``x(k) = q(k,i)`` then ``r(i) = x(1) + x(m)``, x local to the procedure (SMC's
    ``X = q(i,j,k,qx1:qx1+nspecies-1)`` in comp_courno_3d): x dies with the procedure and is
    written before it is read, so none of it must reach or leave memory. n = 1000, m = 16:
    q 16,000 elements, r 1,000: 17,000*8 = 136,000 B (the 16 elements of x, 128 B more,
    were counted before: above the model's traffic, which keeps x on chip)."""
    result, env, nest = _model(tmp_path, SCRATCH.format(arguments="n, m, q, r"),
                               "n=1000", "m=16")
    assert nest.compulsory_bytes.value(env) == 136_000
    assert violations(result, env) == []


def test_an_argument_written_in_the_nest_stays_compulsory(tmp_path):
    """The same nest with x a dummy argument: the caller's data, 16 elements written,
    counted: 136,000 + 16*8 = 136,128 B."""
    _, env, nest = _model(tmp_path, SCRATCH.format(arguments="n, m, q, r, x"),
                          "n=1000", "m=16")
    assert nest.compulsory_bytes.value(env) == 136_128


def _reference_cases() -> list:
    if INPUTS is None:
        return [pytest.param(None, marks=pytest.mark.skip(
            reason="no shared/reference/exasat/inputs beside the checkout"))]
    return sorted(INPUTS.glob("*.f90"))


@pytest.mark.parametrize("source", _reference_cases(), ids=lambda p: p.name if p else "none")
def test_every_exasat_reference_input_is_within_its_bounds(source, tmp_path):
    """ExaSAT's own inputs (SMC's kernels, hypterm, advance): no bound violated."""
    out = tmp_path / "out.json"
    done = subprocess.run([sys.executable, "-m", "sat", str(source), "-o",
                           str(tmp_path / "out.xlsx"), "-q", "--json", str(out)],
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    data = json.loads(out.read_text())
    assert data["loops"], "no loop nest"
    assert data["bounds_violations"] == [], [v["message"] for v in data["bounds_violations"]]


@pytest.mark.parametrize("arguments", [["40", "0"], ["--ring", "20"]], ids=["module", "ring"])
def test_the_generated_benchmark_programs_are_within_their_bounds(arguments, tmp_path):
    """bench/generate_fortran.py's CNS/SMC-like module (40 nests) and its ring of calls."""
    source = tmp_path / "generated.f90"
    source.write_text(subprocess.run(
        [sys.executable, str(ROOT / "bench" / "generate_fortran.py"), *arguments],
        capture_output=True, text=True, check=True).stdout)
    out = tmp_path / "out.json"
    done = subprocess.run([sys.executable, "-m", "sat", str(source), "-o",
                           str(tmp_path / "out.xlsx"), "-q", "--json", str(out)],
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    assert json.loads(out.read_text())["bounds_violations"] == []
