"""Physical bounds of every nest (sat.model.bounds): each bound by hand, a model made
inconsistent on purpose, zero violations on every bundled example, the JSON key.

The default machine (the exascale node of the ExaSAT paper): LineBytes 64, WordBytes 8 (a
double 8 B, an integer 4 B), one on-chip level.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sat.cli import main
from sat.frontend import read_sources
from sat.machine.library import load_machine
from sat.model import expr as E
from sat.model.bounds import violations
from sat.model.build import build_model
from sat.parameters import build_parameters

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


def model(tmp_path: Path, text: str, *sets: str, name: str = "kernel.f90"):
    """(the model of ``text``, its evaluation, its only nest's bounds)."""
    path = tmp_path / name
    path.write_text(text)
    result = build_model(read_sources([str(path)]),
                         build_parameters(load_machine(None), sets=list(sets)))
    env = result.env()
    return result, env, result.bounds[0]


def numbers(nest, env) -> tuple[float, float, float]:
    """(most iterations, most bytes, compulsory bytes) of a nest."""
    return (nest.most_iterations.value(env), nest.most_bytes.value(env),
            nest.compulsory_bytes.value(env))


TRIAD = """\
subroutine triad(n, s, a, b, c)
  integer :: n, i
  real(8) :: s, a(n), b(n), c(n)
  do i = 1, n
    a(i) = b(i) + s*c(i)
  end do
end subroutine
"""


def test_a_stream_bounds_by_hand(tmp_path):
    """n = 1000: 1000 runs of the statement. Every reference missing: b and c one line each,
    a (written) a line read and one written back: 64*(1 + 1 + 2) = 256 B a run, 256,000 B.
    Compulsory: 1000 elements of each of a, b, c, 8 B: 24,000 B. The model's 32 B an
    iteration (b 8, c 8, a 16) = 32,000 B lies between."""
    result, env, nest = model(tmp_path, TRIAD, "n=1000")
    assert numbers(nest, env) == (1000, 256_000, 24_000)
    assert result.tables["Loops"].rows[0]["traffic_gb"].value(env) * 1e9 == pytest.approx(32_000)
    assert violations(result, env) == []


def test_a_reduction_into_a_lower_rank_array(tmp_path):
    """b(j) = b(j) + a(i,j), i 1..100 inside j 1..20: 2,000 runs. Bytes: a one line, b two
    references (read, written) of a written array, 2*2 lines: 64*(1 + 4) = 320 B a run,
    640,000 B. Compulsory: a 2,000 elements, b 20 (only j moves it): 2,020*8 = 16,160 B."""
    _, env, nest = model(tmp_path, """\
subroutine rowsum(a, b, n, m)
  integer :: i, j, n, m
  real(8) :: a(n, m), b(m)
  do j = 1, m
    do i = 1, n
      b(j) = b(j) + a(i,j)
    end do
  end do
end subroutine
""", "n=100", "m=20")
    assert numbers(nest, env) == (2000, 640_000, 16_160)


def test_a_strided_and_a_gathered_reference(tmp_path):
    """y(i) = y(i) + x(col(2*i)), i 1..500. Compulsory: y 500 doubles (4,000 B), col 500
    integers through 2*i (2,000 B), x nothing (a gather may hit one element every time):
    6,000 B. Bytes: y 2 refs of a written array (4 lines), col 1, x 1: 64*6*500 = 192,000."""
    _, env, nest = model(tmp_path, """\
subroutine gather(x, y, col, n)
  integer :: n, col(2*n), i
  real(8) :: x(4000), y(n)
  do i = 1, n
    y(i) = y(i) + x(col(2*i))
  end do
end subroutine
""", "n=500")
    assert numbers(nest, env) == (500, 192_000, 6_000)


def test_a_conditional_reference_and_a_loop_without_trips(tmp_path):
    """i 1..300: c(i) only when a test holds, so it is no compulsory traffic: a 300 doubles,
    2,400 B; its bytes still count: a read twice (the test, the copy), c written (a line read
    and written back): 64*(2 + 2)*300 = 76,800 B. With m = 0 the inner loop runs
    no trip: nothing is compulsory and the statement runs 0 times."""
    text = """\
subroutine cond(a, c, n, m)
  integer :: i, k, n, m
  real(8) :: a(n), c(n)
  do i = 1, n
    do k = 1, m
      if (a(i) > 0) c(i) = a(i)
    end do
  end do
end subroutine
"""
    _, env, nest = model(tmp_path, text, "n=300", "m=1")
    assert numbers(nest, env) == (300, 76_800, 2_400)
    _, env, nest = model(tmp_path, text, "n=300", "m=0")
    assert numbers(nest, env) == (0, 0, 0)


def _tampered(result, key: str, value: float) -> None:
    """Make the model's quantity ``key`` of the first nest a constant: an inconsistent model."""
    quantity = result.tables["Loops"].rows[0][key]
    quantity.expr = E.Num(value)


@pytest.mark.parametrize("key, value, kind, bound", [
    # above every reference missing at every run: 256,000 B = 2.56e-4 GB
    ("traffic_gb", 1e-3, "upper", 2.56e-4),
    # below the compulsory 24,000 B = 2.4e-5 GB
    ("traffic_gb", 1e-5, "lower", 2.4e-5),
    # below max(2,000 flops / 1000 Gflop/s, 24,000 B / 1000 GB/s) = 2.4e-8 s
    ("time_s", 1e-9, "lower", 2.4e-8),
    ("traffic_none_gb", float("inf"), "finite", 0.0),
    ("gflops", -1.0, "lower", 0.0),
])
def test_an_inconsistent_model_is_reported_with_its_place_value_and_bound(
        tmp_path, key, value, kind, bound):
    result, _, _ = model(tmp_path, TRIAD, "n=1000")
    _tampered(result, key, value)
    found = [v for v in violations(result, result.env()) if v.quantity == key and not v.level]
    assert len(found) == 1, found
    violation = found[0]
    assert (violation.file, violation.line) == (str(tmp_path / "kernel.f90"), 4)
    assert violation.kind == kind
    assert violation.value == value  # never clamped
    assert violation.bound == pytest.approx(bound)
    assert f"{key} of the nest of triad is {value:g}" in violation.message


def test_iterations_beyond_the_trip_counts_are_reported(tmp_path):
    result, env, nest = model(tmp_path, TRIAD, "n=1000")
    nest.iterations.expr = E.Num(1e6)  # the model's sweeps x X x Y x Z, against 1000 runs
    found = {v.quantity: v for v in violations(result, result.env())}
    assert found["iterations"].bound == 1000
    # its bytes per iteration are then below the model's, not above: no upper violation
    assert "bytes_per_iteration" not in found


@pytest.mark.parametrize("machine", [None, "xeon-8480plus"])  # one level; L1, L2, L3, memory
@pytest.mark.parametrize("example", sorted(
    str(p.relative_to(EXAMPLES)) for p in EXAMPLES.rglob("*")
    if p.suffix in (".f90", ".F90", ".f", ".c")))
def test_no_bundled_example_breaks_a_bound(example, machine):
    result = build_model(read_sources([str(EXAMPLES / example)]),
                         build_parameters(load_machine(machine)))
    assert result.bounds, "no nest checked"
    assert violations(result, result.env()) == []


def test_the_json_lists_violations_and_the_run_goes_on(tmp_path, capsys, monkeypatch):
    """No violation: an empty list. A bound broken on purpose (every reference missing moves
    1 B): on stderr and in the Notes at error level, in the JSON, exit status 0, the model's
    numbers as they were."""
    path = tmp_path / "triad.f90"
    path.write_text(TRIAD)
    out = tmp_path / "out.json"
    assert main([str(path), "--set", "n=1000", "--json", str(out), "-q"]) == 0
    clean = json.loads(out.read_text())
    assert clean["bounds_violations"] == []
    assert capsys.readouterr().err == ""

    import sat.model.build as build

    original = build.nest_bounds

    def one_byte(*args, **kwargs):
        bounds = original(*args, **kwargs)
        bounds.most_bytes.expr = E.Num(1)
        return bounds

    monkeypatch.setattr(build, "nest_bounds", one_byte)
    assert main([str(path), "--set", "n=1000", "--json", str(out), "-q"]) == 0
    data = json.loads(out.read_text())
    err = capsys.readouterr().err
    assert data["loops"] == clean["loops"]  # not clamped
    quantities = {(v["quantity"], v["level"]) for v in data["bounds_violations"]}
    assert {("traffic_gb", None), ("bytes_per_iteration", "on-chip")} <= quantities
    first = data["bounds_violations"][0]
    assert (first["file"], first["line"], first["kind"]) == (str(path), 4, "upper")
    errors = [n for n in data["notes"] if n["kind"] == "error"]
    assert len(errors) == len(data["bounds_violations"])
    assert f"satreport: error: {path}:4: traffic_gb of the nest of triad is 3.2e-05" in err


TRIANGLE = """\
subroutine tri(a, n)
  integer :: n, i, j
  real(8) :: a(n, n)
  do j = 1, n
    do i = 1, j
      a(i,j) = 2*a(i,j)
    end do
  end do
end subroutine
"""


def test_a_triangular_nest(tmp_path):
    """i runs 1..j: its mean over j = 1..100 is 50.5 trips (the model's count, 5,050 runs in
    all). The most runs take a moving loop at twice its mean plus one: 100*(2*50.5 + 1) =
    10,200 (the exact count, 5,050, lies below). Bytes: a read and written (two references to
    a written array, 4 lines): 64*4*10,200 = 2,611,200 B. Compulsory: a steps through j and
    the one moving loop i: 100*50.5 = 5,050 elements, exact, 40,400 B."""
    result, env, nest = model(tmp_path, TRIANGLE, "n=100")
    assert nest.iterations.value(env) == 5050
    assert numbers(nest, env) == (10_200, 2_611_200, 40_400)
    assert violations(result, env) == []


def test_two_moving_loops_count_no_compulsory_element(tmp_path):
    """k 1..n, j k..n, i 1..k: a(i,j,k) steps through two moving loops, whose product of means
    (n*(n+1)/2*(n+1)/2) may exceed the elements touched; b(k) is under moving loops it does
    not step through, which may run no trip at some k: neither counts. c(k), read beside the
    moving loops, counts n = 50 elements: 400 B."""
    _, env, nest = model(tmp_path, """\
subroutine two(a, b, c, n)
  integer :: n, i, j, k
  real(8) :: a(n, n, n), b(n), c(n)
  do k = 1, n
    c(k) = 0
    do j = k, n
      do i = 1, k
        a(i,j,k) = b(k) + c(k)
      end do
    end do
  end do
end subroutine
""", "n=50")
    assert nest.compulsory_bytes.value(env) == 400


def test_arrays_stepped_only_by_a_short_literal_loop_are_fixed_places(tmp_path):
    """STREAM's summary: k 2..10 (9 passes) around j 1..4. times(j,k) touches 4*9 = 36
    doubles: 288 B compulsory. avgtime(j) and mintime(j) step only through the literal
    4-trip loop j, which a compiler unrolls into avgtime(1) .. avgtime(4): fixed places, held
    in registers like a(1), so no compulsory element (they were 2*4*8 = 64 B more, above the
    model's 288 B). The model moves times only: 36*8 = 288 B, within its bounds."""
    result, env, nest = model(tmp_path, """\
subroutine summary(times, avgtime, mintime)
  integer :: j, k
  real(8) :: times(4, 10), avgtime(4), mintime(4)
  do k = 2, 10
    do j = 1, 4
      avgtime(j) = avgtime(j) + times(j,k)
      mintime(j) = min(mintime(j), times(j,k))
    end do
  end do
end subroutine
""")
    assert nest.compulsory_bytes.value(env) == 288
    assert result.tables["Loops"].rows[0]["traffic_gb"].value(env) * 1e9 == pytest.approx(288)
    assert violations(result, env) == []
