"""The traffic model against cachegrind: the 7-point Laplacian on 64**3 at two cache sizes.

Runs the smallest case of bench/validation/run.py (examples/lap.f90 compiled with its driver,
simulated under valgrind) and checks both sides against numbers worked out by hand, then the
error bound the validation achieves there.
"""

from __future__ import annotations

import importlib.util
import shutil
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
RUN_PY = ROOT / "bench" / "validation" / "run.py"

pytestmark = [
    pytest.mark.skipif(shutil.which("gfortran") is None or shutil.which("valgrind") is None,
                       reason="needs gfortran and valgrind (apt-get install gfortran valgrind)"),
    pytest.mark.xdist_group("validation"),  # one pytest-xdist worker: the harness run once
]

N = 64
LINES = 64  # bytes per cache line


def _validation():
    spec = importlib.util.spec_from_file_location("satreport_validation", RUN_PY)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def rows(tmp_path_factory):
    validation = _validation()
    lap = next(k for k in validation.KERNELS if k.name == "lap")
    rows = validation.run([lap], [64, 1024], N, jobs=2, workdir=tmp_path_factory.mktemp("val"))
    return {row.cache_kb: row for row in rows}


def test_prediction_matches_the_hand_count(rows):
    # 1 MiB holds the 3 planes of A0 (plane reuse): A0's footprint in whole cache lines is
    # 64*64 rows of 66 -> 72 elements plus 4*64 edge rows of 64: 311,296 elements * 8 B;
    # Anext: 64**3 * 16 B (write-allocate + write-back).
    assert rows[1024].prediction.bytes == pytest.approx(311_296 * 8 + 64 ** 3 * 16)
    assert rows[1024].prediction.reuse == "1"
    # 64 KiB holds pencils, not planes: 3 planes touched * one plane's footprint
    # (64 rows * 72 + 2 rows * 64 = 4,736 elements) per k, 64 planes, 8 B; plus Anext.
    assert rows[64].prediction.bytes == pytest.approx(3 * 4_736 * 64 * 8 + 64 ** 3 * 16)
    assert rows[64].prediction.reuse == "2"


def test_measurement_matches_the_hand_count(rows):
    plane = rows[1024].measurement
    # With plane reuse every line of A0 is read once: 66**3 * 8 B / 64 B = 35,937 lines;
    # Anext's 64**3 * 8 / 64 = 32,768 lines are write-allocated once and written back once.
    assert plane.read_misses == pytest.approx(35_937, rel=0.01)
    assert plane.write_misses == pytest.approx(32_768, rel=0.01)
    assert plane.write_backs == pytest.approx(32_768, rel=0.01)
    # Pencil reuse reads more of A0 (the planes k-1 and k+1 once more each), writes the same.
    pencil = rows[64].measurement
    assert 35_937 * 1.5 < pencil.read_misses < 35_937 * 3
    assert pencil.write_backs == pytest.approx(32_768, rel=0.01)


def test_error_bound_achieved(rows):
    # Measured on the reference machine: +2.9% (plane reuse; the model rounds each 66-element
    # row of A0 up to 9 whole lines, memory holds the rows back to back) and +6.6% (pencil
    # reuse; the model charges all 3 planes the centre plane's footprint).
    assert 0 < rows[1024].error < 0.04
    assert 0 < rows[64].error < 0.08
