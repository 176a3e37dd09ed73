"""``--aspen``: the analysed program as an Aspen application model, read back by ``sat.aspen``.

The round trip is the contract: for every bundled example, each kernel's flops, loads and
stores as Aspen counts them are satreport's numbers for that nest, ``main``'s totals are the
program's, and a problem parameter changed in the Aspen model gives what ``--set`` gives.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from test_cli import run

from sat import aspen
from sat.frontend import read_sources
from sat.machine import load_machine
from sat.model import expr as E
from sat.model.build import build_model
from sat.model.tables import ModelResult
from sat.parameter import Parameter
from sat.parameters import build_parameters
from sat.report.aspen_expr import AspenPrinter, Folder, aspen_name
from sat.report.aspen_model import program_as_aspen

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = sorted(p for p in (ROOT / "examples").rglob("*")
                  if p.suffix.lower() in (".f90", ".f", ".c"))
LAP = ROOT / "examples" / "lap.f90"
TRIAD = ROOT / "examples" / "triad.f90"
COMMITTED = ROOT / "examples" / "aspen" / "lap.aspen"
REL = 1e-9


def model_of(source: Path, *sets: str) -> ModelResult:
    """satreport's model of a source, as the command line builds it (default machine)."""
    program = read_sources([str(source)])
    return build_model(program, build_parameters(load_machine(None), sets=list(sets)))


def nest_kernels(app: aspen.AppModel) -> list[str]:
    """The kernels of the source's nests (not main, nor a fusion group's fused nest)."""
    return [name for name in app.kernels if name != "main" and not name.startswith("Fuse_")]


def aspen_and_json(capsys, tmp_path: Path, source: Path, *extra: str):
    model, data = tmp_path / "model.aspen", tmp_path / "model.json"
    status, out, err = run(capsys, source, "--aspen", model, "--json", data, *extra)
    assert status == 0, err
    return aspen.load_model(model), json.loads(data.read_text())


def test_every_example_is_found():
    assert {"lap.f90", "hypterm.f90", "heat.F90", "jacobi.f", "triad.c", "uxx.c"} <= {
        p.name for p in EXAMPLES}


@pytest.mark.parametrize("source", EXAMPLES, ids=lambda p: p.name)
def test_every_example_reads_back_with_satreport_numbers(capsys, tmp_path, source):
    app, report = aspen_and_json(capsys, tmp_path, source)
    assert not list(tmp_path.glob("*.xlsx"))
    aspen.parse_file(tmp_path / "model.aspen")
    counts = aspen.resources(app)
    kernels = nest_kernels(app)
    result = model_of(source)
    env = result.env()
    assert len(kernels) == len(report["loops"]) == len(result.nests)
    for name, loop, work in zip(kernels, report["loops"], result.nests, strict=True):
        assert name.startswith(aspen_name(f"{loop['procedure']}_L{loop['line']}"))
        kernel = counts.kernels[name]
        assert kernel.errors == {}
        loads = sum(a.loads_gb.value(env) for a in work.arrays) * 1e9
        stores = sum(a.stores_gb.value(env) for a in work.arrays) * 1e9
        assert kernel["flops"] == pytest.approx(loop["gflops"] * 1e9, rel=REL)
        assert kernel["loads"] == pytest.approx(loads, rel=REL)
        assert kernel["stores"] == pytest.approx(stores, rel=REL)
        assert kernel["loads"] + kernel["stores"] == pytest.approx(loop["traffic_gb"] * 1e9,
                                                                   rel=REL)
    totals = report["totals"]
    assert counts.total["flops"] == pytest.approx(totals["gflops"] * 1e9, rel=REL)
    assert counts.total["bytes"] == pytest.approx(totals["traffic_gb"] * 1e9, rel=REL)
    usage = aspen.memory_usage(app)
    assert all(not k.unresolved for k in usage.kernels.values())
    assert usage.total > 0


@pytest.mark.parametrize("source", EXAMPLES, ids=lambda p: p.name)
def test_every_written_model_declares_everything_before_its_first_kernel(source):
    """Aspen's grammar takes a model's import, param, enum and data statements before its
    first kernel (a param after a kernel is a syntax error there); the written model follows
    it, and every other rule of Aspen's grammar (a strict parse)."""
    program = read_sources([str(source)])
    result = build_model(program, build_parameters(load_machine(None)))
    text = program_as_aspen(program, result, result.env(), sources=[str(source)])
    # the rule, read off the text: the first word of each statement line, comments aside
    words = [code.split()[0] for code in (line.split("//")[0] for line in text.splitlines())
             if code.strip()]
    first = words.index("kernel")
    assert not {"import", "param", "enum", "data"} & set(words[first:])
    # one per nest, one per legal fusion group's fused nest, and main
    assert words.count("kernel") == len(result.nests) + len(result.fused) + 1
    parsed = aspen.parse_text(text, str(source), strict=True)
    assert parsed.leniencies == ()


def test_programs_of_several_nests_are_among_them():
    """hypterm.f90 and jacobi.f have several nests: their quantities' params once came after
    the first kernel."""
    for name in ("hypterm.f90", "jacobi.f"):
        assert len(model_of(ROOT / "examples" / name).nests) >= 2


@pytest.mark.parametrize("source, symbol, name, values", [
    (LAP, "hi(1)", "hi_1", (64, 200, 1000)),
    (LAP, "lo(3)", "lo_3", (-20,)),
    (TRIAD, "n", "n", (1000, 10**7)),
], ids=["lap-hi_1", "lap-lo_3", "triad-n"])
def test_a_changed_problem_parameter_gives_what_set_gives(capsys, tmp_path, source, symbol,
                                                          name, values):
    app, _ = aspen_and_json(capsys, tmp_path, source)
    for value in values:
        counts = aspen.resources(app, params={name: value})
        status, out, err = run(capsys, source, "--set", f"{symbol}={value}", "--json", "-")
        assert status == 0, err
        report = json.loads(out)
        for kernel, loop in zip(nest_kernels(app), report["loops"], strict=True):
            assert counts.kernels[kernel]["flops"] == pytest.approx(loop["gflops"] * 1e9,
                                                                    rel=REL)
            assert counts.kernels[kernel]["bytes"] == pytest.approx(loop["traffic_gb"] * 1e9,
                                                                    rel=REL)
        assert counts.total["flops"] == pytest.approx(report["totals"]["gflops"] * 1e9, rel=REL)
        assert counts.total["bytes"] == pytest.approx(report["totals"]["traffic_gb"] * 1e9,
                                                      rel=REL)


def test_the_model_holds_while_the_reuse_case_does(capsys, tmp_path):
    """lap.f90 on the default machine reuses between pencils for hi(1) from 9 to 1358 (the
    README says so): the Aspen model, written at hi(1) = 128, is exact there, not beyond."""
    app, _ = aspen_and_json(capsys, tmp_path, LAP)
    result = model_of(LAP)
    traffic = result.totals["Total_Traffic_GB"]
    for value, holds in ((8, False), (9, True), (1358, True), (1359, False)):
        bytes_ = aspen.resources(app, params={"hi_1": value}).total["bytes"]
        want = traffic.value(result.env({"hi_1": value})) * 1e9
        assert (bytes_ == pytest.approx(want, rel=REL)) is holds, value


def test_the_reuse_case_taken_is_stated_in_the_kernel():
    result = model_of(LAP)
    text = program_as_aspen(None, result, result.env(), sources=["lap.f90"])
    kernel = text[text.index("kernel laplacian_L16"):]
    assert "Decided at the values above" in kernel
    assert "reuse level" in kernel and "== 2: true" in kernel
    # the cache size the test used is named in the header
    assert "CacheKB = 64" in text


def test_committed_lap_model_is_what_the_command_writes(capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(ROOT)
    out = tmp_path / "lap.aspen"
    status, _, err = run(capsys, "examples/lap.f90", "--aspen", out)
    assert status == 0, err

    def without_date(text: str) -> list[str]:
        return [line for line in text.splitlines() if not line.startswith("// Date: ")]

    assert without_date(out.read_text()) == without_date(COMMITTED.read_text()), (
        "regenerate it: satreport examples/lap.f90 --aspen examples/aspen/lap.aspen")


def test_handwritten_examples_run_on_the_handwritten_machine():
    app = aspen.load_model(ROOT / "examples" / "aspen" / "stencil.aspen")
    machine = aspen.load_machine_model(ROOT / "examples" / "aspen" / "one_socket.aspen")
    points = 128**3 * 10  # grid points times time steps
    counts = aspen.resources(app).total
    assert (counts["flops"], counts["loads"], counts["stores"]) == (8 * points, 16 * points,
                                                                    8 * points)
    # memory-bound: 24 bytes a point at 100 GB/s
    assert aspen.runtime(app, machine).total == pytest.approx(24 * points / 100e9)
    generated = aspen.load_model(COMMITTED)
    assert aspen.runtime(generated, machine).total > 0


# ---------------------------------------------------------------- the command line


def test_aspen_alone_writes_no_workbook(capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    status, out, err = run(capsys, LAP, "--aspen", "lap.aspen")
    assert status == 0, err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["lap.aspen"]


def test_aspen_to_standard_output(capsys):
    status, out, err = run(capsys, TRIAD, "--aspen", "-")
    assert status == 0, err
    assert out.startswith("// Aspen application model of ")
    app = aspen.parse_text(out)
    assert [m.name for m in app.models] == ["triad"]


def test_two_outputs_cannot_share_standard_output(capsys):
    status, out, err = run(capsys, LAP, "--json", "-", "--aspen", "-")
    assert status == 2 and out == ""
    assert "--json and --aspen cannot both write to standard output" in err


def test_unwritable_aspen_output_fails_before_the_analysis(capsys, tmp_path):
    target = tmp_path / "missing" / "lap.aspen"
    status, _, err = run(capsys, LAP, "--aspen", target)
    assert status == 2 and "does not exist" in err
    assert not target.parent.exists()


def test_a_nest_without_iterations_has_its_amounts_per_run(capsys, tmp_path):
    source = tmp_path / "edge.f90"
    source.write_text("""\
subroutine edge(n, w)
  integer, intent(in) :: n
  double precision, intent(inout) :: w(n)
  integer :: i
  do i = 2, n - 1
    w(i) = w(i-1) + 0.5d0 * w(i+1)
  end do
end subroutine edge
""")
    app, report = aspen_and_json(capsys, tmp_path, source, "--set", "n=2")
    text = (tmp_path / "model.aspen").read_text()
    assert "execute [1]" in text and "amounts are per run" in text
    counts = aspen.resources(app)
    assert counts.total["flops"] == report["totals"]["gflops"] == 0
    more = aspen.resources(app, params={"n": 100}).total
    assert more["flops"] == 2 * 98


# ---------------------------------------------------------------- expressions


def _values(text: str, params: dict[str, float], tmp_path: Path) -> float:
    lines = [f"param {name} = {value!r}" for name, value in params.items()]
    path = tmp_path / "e.aspen"
    path.write_text("model e {\n" + "\n".join(lines) + f"\nparam result = {text}\n"
                    "kernel main { }\n}\n")
    app = aspen.load_model(path)
    return next(p.value for p in aspen.parameters(app) if p.name == "result")


a, b = E.Param("a"), E.Param("b")


@pytest.mark.parametrize("expr", [
    a - b + 1, -(a * b), 2 * a * a * a, (a + b) / (a - b), a / (b * 2), a / b / 3,
    E.ceiling(a, 8), E.ceiling(a / 3), E.func("FLOOR", a, 4), E.maximum(0, a - b),
    E.minimum(a, b, 3), E.func("ABS", a - b), -a + -b, -3 * a - 0.5 * b, a * (b - a) * -2,
    (a - b) * (a - b), E.Num(-2.5), 1e20 * a, a * 1e-12,
])
def test_printed_expressions_evaluate_alike_in_aspen(tmp_path, expr):
    printer = AspenPrinter({}, {})
    text = printer.doprint(expr)
    for values in ({"a": 7.0, "b": 3.0}, {"a": 2.5, "b": 11.0}, {"a": -4.0, "b": 0.5}):
        want = expr.evaluate(E.Env(values))
        assert _values(text, values, tmp_path) == pytest.approx(want, rel=1e-12, abs=1e-30), text


def test_printer_writes_what_one_would():
    printer = AspenPrinter({}, {"hi_1": "hi_1", "lo_1": "lo_1"})
    hi, lo = E.Param("hi_1"), E.Param("lo_1")
    assert printer.doprint(hi - lo + 1) == "hi_1 - lo_1 + 1"
    assert printer.doprint(hi * hi * hi) == "hi_1^3"
    assert printer.doprint(E.ceiling(hi, 8)) == "ceil(hi_1 / 8) * 8"
    assert printer.doprint(8 * hi + 8 * hi) == "16 * hi_1"
    assert printer.doprint(E.maximum(hi, hi)) == "hi_1"
    assert printer.doprint(1e9 * (1e-9 * hi - 1e-9 * lo)) == "hi_1 - lo_1"


def _result(**problem: float) -> ModelResult:
    parameters = [Parameter(name, value, group="problem") for name, value in problem.items()]
    parameters.append(Parameter("CacheKB", 64))
    return ModelResult(parameters, {}, {})


def test_machine_parameters_fold_into_numbers_and_problem_tests_are_decided():
    result = _result(n=100)
    folder = Folder(result, result.env())
    n, cache = E.Param("n"), E.Param("CacheKB")
    # a test of machine parameters only: decided silently
    assert folder.fold(E.if_(E.compare(">", cache, 32), 2 * n, n)) == E.mul(2, n)
    assert folder.decisions == [] and folder.used == {"CacheKB": 64}
    # a test of a problem parameter: the branch taken at n = 100, and the test recorded
    work = E.Quantity(("loop", "p:1", "ws_kb"), 8 * n / 1024, "KiB", "working set")
    assert folder.fold(E.if_(E.compare("<", work, cache), n, 3 * n)) == n
    [decision] = folder.decisions
    assert (decision.subject, decision.test, decision.outcome) == (
        "[working set] (0.78125)", "< CacheKB (64)", "true")


def test_a_zero_denominator_and_a_comparison_as_a_number_are_decided():
    result = _result(n=0, m=5)
    folder = Folder(result, result.env())
    n, m = E.Param("n"), E.Param("m")
    assert folder.fold(E.div(m, n)) == E.Num(0)  # satreport's guard, not Aspen's error
    assert folder.fold(E.compare(">", m, 3) * m) == m  # the test at m = 5: 1
    outcomes = [d.outcome for d in folder.decisions]
    assert any("quotient is taken as 0" in o for o in outcomes)
    assert any("evaluated to 1" in o for o in outcomes)
