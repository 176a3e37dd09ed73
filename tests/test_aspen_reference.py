"""The Aspen reader against Aspen's own models and regression outputs.

The data (``../shared/reference/aspen`` beside the repository: the suite's 180-odd model files
and the ``baseline/`` outputs of Aspen's regression tests) stays outside the project; these
tests skip when it is absent.  Expected numbers are read from the baseline files.  Aspen prints
values to 6 significant digits; where a baseline also prints the expression it evaluated
(resource totals, data set sizes, runtimes, machine times), the expression is evaluated here
with the reader's own evaluator and compared to the reader's number to a relative 1e-12.
"""

from __future__ import annotations

import math
import re
from pathlib import Path

import pytest

from sat import aspen
from sat.aspen.machine import idealized_time, total_quantity
from sat.aspen.tree import Trait

REF = Path(__file__).resolve().parents[2] / "shared" / "reference" / "aspen"
MODELS = REF / "models"
BASELINE = REF / "baseline"

pytestmark = pytest.mark.skipif(not REF.is_dir(), reason=f"Aspen's reference data is not at {REF}")

#: Files the reader rejects, with the reason (Aspen rejects them as well).
UNPARSABLE = {
    "suite/lulesh/lulesh-old.aspen":
        "an older dialect: kernels outside any 'model' block and 'loads/caching [..]' clauses, "
        "which Aspen's grammar rejects too",
}

RESOURCES = ("flops", "messages", "loads", "stores")


def _files(folder: str, pattern: str) -> list[Path]:
    root = BASELINE / folder
    return sorted(root.glob(pattern)) if root.is_dir() else []


def _ids(paths):
    return [p.name for p in paths]


def printed(value: float, text: str) -> bool:
    """Whether ``value`` prints as Aspen printed it (C++ stream default: 6 significant
    digits, like ``%g``)."""
    return f"{value:g}" == text or float(f"{value:g}") == float(text)


def close(a: float, b: float, rel: float = 1e-12) -> bool:
    return math.isclose(a, b, rel_tol=rel, abs_tol=1e-300)


# ----------------------------------------------------------------------------------------------
# Which model files a baseline is about
# ----------------------------------------------------------------------------------------------


def _tree_globals(text: str, header: str) -> tuple[str | None, list[str]]:
    """Model name and parameter names in the syntax-tree dump after ``header``."""
    section = text.split(header, 1)[1]
    name = re.search(r"App model (\S+):", section)
    glob = section.split("Globals:", 1)[1]
    glob = re.split(r"\n   (?:Kernels|Components):", glob, maxsplit=1)[0]
    names = re.findall(r"^      Identifier (\S+) = ", glob, flags=re.M)
    return (name.group(1) if name else None), names


def _own_params(app: aspen.AppModel) -> list[str]:
    return [n for n, p in app.params.items() if p.kind != "enum value"]


def app_for(text: str, filename: str) -> aspen.AppModel:
    """The application model a baseline dumps: the file of that name whose model name and
    parameters (in order) are the ones the baseline's syntax tree lists."""
    name, params = _tree_globals(text, "----- Main Application Model -----")
    for path in sorted(MODELS.rglob(filename)):
        app = aspen.load_model(path)
        if app.name == name and _own_params(app) == params:
            return app
    raise AssertionError(f"no model file {filename} with model {name} and parameters {params}")


def machine_for(name: str) -> aspen.MachineModel:
    return aspen.load_machine_model(MODELS / "suite" / "machine" / name)


# ----------------------------------------------------------------------------------------------
# Every model parses
# ----------------------------------------------------------------------------------------------


def _model_params():
    out = []
    # *.aspen and the two *.aspen_template sockets (parameters left as _P1_ … for a fitter)
    for path in sorted(MODELS.rglob("*.aspen*")) if MODELS.is_dir() else []:
        rel = path.relative_to(MODELS).as_posix()
        marks = ()
        if rel in UNPARSABLE:
            marks = pytest.mark.xfail(strict=True, raises=aspen.AspenError,
                                      reason=UNPARSABLE[rel])
        out.append(pytest.param(path, id=rel, marks=marks))
    return out


#: Models that use constructs Aspen's grammar refuses and the reader reads, with a warning.
LENIENT = {
    "suite/examples/exec_names.aspen": ["execute-name-label"] * 2,  # execute firstblock {…}
    "suite/coevp/CoEVP-driver.aspen": ["array-without-brackets"] * 4,  # param x = {…}
}


@pytest.mark.parametrize("path", _model_params())
def test_every_model_parses(path):
    f = aspen.parse_file(path)
    assert f.items, "an empty file"
    rel = path.relative_to(MODELS).as_posix()
    assert [x.code for x in f.leniencies] == LENIENT.get(rel, [])
    if rel not in LENIENT:  # what Aspen's grammar accepts, read strictly
        assert repr(aspen.parse_file(path, strict=True).items) == repr(f.items)


def test_the_model_folders_are_complete():
    files = list(MODELS.rglob("*.aspen*"))
    assert len(list((MODELS / "suite").rglob("*.aspen*"))) >= 116
    assert len(list((MODELS / "mapredict").rglob("*.aspen*"))) >= 42
    assert (MODELS / "test_inputs" / "blackbox_template.aspen") in files


# ----------------------------------------------------------------------------------------------
# baseline/application: counts per kernel, totals, ranges, data sets
# ----------------------------------------------------------------------------------------------

APPLICATION = _files("application", "*.aspen.out")


def _analysis(text: str) -> str:
    return text.split("------  Application Analysis ------", 1)[1]


def _kernel_blocks(text: str) -> dict[str, str]:
    parts = re.split(r"\n>> Kernel (\S+)\n", _analysis(text))
    return dict(zip(parts[1::2], parts[2::2], strict=True))


def _section_values(section: str) -> dict[str, str]:
    return dict(re.findall(r"^(flops|messages|loads|stores)\s*= (\S+)$", section, flags=re.M))


@pytest.fixture(scope="module", params=APPLICATION, ids=_ids(APPLICATION))
def app_baseline(request):
    text = request.param.read_text()
    app = app_for(text, request.param.name.removesuffix(".out"))
    return request.param.name, text, app


def test_application_parameters_in_order(app_baseline):
    _, text, app = app_baseline
    _, names = _tree_globals(text, "----- Main Application Model -----")
    assert _own_params(app) == names


def test_application_counts_per_kernel(app_baseline):
    """Every 'Raw <resource> for kernel' line; where Aspen prints none (a kernel argument has
    no value), the reader reports an error for that resource too."""
    name, text, app = app_baseline
    counts = aspen.resources(app)
    blocks = _kernel_blocks(text)
    assert list(blocks) == list(app.kernels)
    checked = 0
    for kernel, block in blocks.items():
        lines = dict(re.findall(rf"Raw (\w+) for kernel '{re.escape(kernel)}' = (\S+)", block))
        mine = counts.kernels[kernel]
        # Aspen prints flops, loads, stores, messages in that order and stops at the first
        # resource it cannot evaluate: that one is an error here too
        for resource in ("flops", "loads", "stores", "messages"):
            if resource not in lines:
                assert resource in mine.errors, (kernel, resource)
                assert "undefined name" in mine.errors[resource]
                break
            assert resource not in mine.errors, mine.errors.get(resource)
            assert printed(mine.counts[resource], lines[resource]), (
                kernel, resource, mine.counts[resource], lines[resource])
            checked += 1
    assert checked


def test_application_totals(app_baseline):
    """The main kernel's totals: the printed values, and the raw expressions Aspen printed
    (evaluated here) to 1e-12."""
    _, text, app = app_baseline
    total = aspen.resources(app).total
    analysis = _analysis(text)
    values = _section_values(analysis.split(">> as values, With parameters using default "
                                            "values", 1)[1].split("\n\n", 1)[0])
    assert set(values) == set(RESOURCES)
    for resource, value in values.items():
        assert printed(total[resource], value), (resource, total[resource], value)
    raw = analysis.split(">> Raw expression without variable expansion:", 1)[1]
    raw = raw.split("\n\n", 1)[0]
    exprs = dict(re.findall(r"^(flops|messages|loads|stores)\s*= (.+)$", raw, flags=re.M))
    assert set(exprs) == set(RESOURCES)
    for resource, expr in exprs.items():
        assert close(total[resource], aspen.evaluate(expr, app)), (resource, expr)


def test_application_ranges(app_baseline):
    """Each parameter with a range set to its minimum and to its maximum."""
    _, text, app = app_baseline
    analysis = _analysis(text).split("\n>> Kernel ", 1)[0]
    n = int(re.search(r"There are (\d+) parameters with ranges", analysis).group(1))
    infos = {p.name: p for p in aspen.parameters(app)}
    assert sorted(p for p, i in infos.items() if i.range) == sorted(
        re.findall(r">> with parameter ''(\S+)'' set to its minimum", analysis))
    found = re.findall(
        r">> with parameter ''(\S+)'' set to its minimum of (\S+):\n((?:\w+\s*= \S+\n)+)\n"
        r"-> and now with ''\1'' set to its maximum of (\S+):\n((?:\w+\s*= \S+\n)+)", analysis)
    assert len(found) == n
    for param, low, low_values, high, high_values in found:
        lo, hi = infos[param].range
        assert printed(lo, low) and printed(hi, high)
        for value, expected in ((lo, low_values), (hi, high_values)):
            total = aspen.resources(app, params={param: value}).total
            for resource, text_value in _section_values(expected).items():
                assert printed(total[resource], text_value), (param, value, resource)


def test_application_data_sets(app_baseline):
    """'Exclusive/Inclusive set size is <expression>': Aspen's expression evaluated here equals
    the reader's size.  Aspen prints -9999 when a data name is a kernel's argument; the reader
    gives no size for a kernel whose data arguments are unbound, and sizes a caller that binds
    them (Aspen's -9999 for md's main)."""
    _, text, app = app_baseline
    usage = aspen.memory_usage(app)
    for kernel, block in _kernel_blocks(text).items():
        mine = usage.kernels[kernel]
        for kind, expr in re.findall(r"(Exclusive|Inclusive) set size is (.+)", block):
            value = mine.exclusive_bytes if kind == "Exclusive" else mine.inclusive_bytes
            if expr == "-9999":
                has_data_args = any(a.kind == "data" for a in app.kernels[kernel].args)
                assert (value is None) == has_data_args, (kernel, kind, value)
                continue
            assert value is not None and close(value, aspen.evaluate(expr, app)), (kernel, kind)


def test_application_intensity(app_baseline):
    """'Calculating flops/byte intensity': Aspen's flops / (loads + stores) expression,
    evaluated here, is the reader's ratio (kernels with no bytes are left out)."""
    _, text, app = app_baseline
    counts = aspen.resources(app).kernels
    checked = 0
    for kernel, block in _kernel_blocks(text).items():
        m = re.search(r"Calculating flops/byte intensity for kernel '\S+':\n  = (.+)", block)
        if m is None or counts[kernel].counts.get("bytes", 0) == 0:
            continue
        mine = counts[kernel].counts["flops"] / counts[kernel].counts["bytes"]
        assert close(mine, aspen.evaluate(m.group(1), app)), kernel
        checked += 1
    assert checked or all(counts[k].counts.get("bytes", 0) == 0 for k in counts)


def test_tile_flops_are_not_monotonic_in_the_tiling_factor():
    app = aspen.load_model(MODELS / "suite" / "echelon" / "tiling" / "tile.aspen")
    info = {p.name: p for p in aspen.parameters(app)}
    assert info["tf"].value == 32 and info["tf"].range == (16, 64)
    flops = [aspen.resources(app, params={"tf": tf}, names=["flops"]).total["flops"]
             for tf in range(16, 65)]
    steps = [b - a for a, b in zip(flops, flops[1:], strict=False)]
    assert any(s > 0 for s in steps) and any(s < 0 for s in steps)


# ----------------------------------------------------------------------------------------------
# baseline/resource
# ----------------------------------------------------------------------------------------------

RESOURCE = _files("resource", "*.out")


@pytest.mark.parametrize("path", RESOURCE, ids=_ids(RESOURCE))
def test_resource_totals(path):
    model, resource = re.match(r"(.+\.aspen)_(\w+)\.out", path.name).groups()
    app = aspen.load_model(MODELS / "suite" / "examples" / model)
    text = path.read_text()
    if text.startswith("raw expression:"):
        lines = text.split("\n")
        raw = lines[1]
        value = aspen.resources(app).total[resource]
        assert printed(value, lines[-1] or lines[-2])
        assert close(value, aspen.evaluate(raw, app))
    else:  # a table of the resource against the model's parameter
        header = text.split("\n", 1)[0].split("\t")
        param = header[0]
        rows = [r for r in re.findall(r"^(\S+)\t(\S+)$", text, flags=re.M)[1:] if r[0] != "--"]
        assert rows
        for x, y in rows:
            value = aspen.resources(app, params={param: float(x)}).total[resource]
            assert printed(value, y), (x, value, y)


# ----------------------------------------------------------------------------------------------
# baseline/machine (and the machine part of baseline/combined): peak rates per socket
# ----------------------------------------------------------------------------------------------

MACHINE = _files("machine", "*.aspen.out") + _files("combined", "*.out")


def _machine_file(path: Path) -> str:
    return path.name.split(".aspen", 1)[0] + ".aspen"


@pytest.mark.parametrize("path", MACHINE, ids=_ids(MACHINE))
def test_machine_peak_rates(path):
    text = path.read_text()
    mach = machine_for(_machine_file(path))
    env = aspen.Env(mach.params)
    analysis = text.split("------  Machine Analysis ------", 1)[1]
    analysis = analysis.split("------  Combined Analysis ------", 1)[0]
    globals_ = text.split("Machine model:", 1)[1].split("Components:", 1)[0]
    assert set(re.findall(r"^      Identifier (\S+) = ", globals_, flags=re.M)) == set(mach.params)
    blocks = re.split(r"\n>> for socket type '(\S+)' <<\n", analysis)
    sockets = blocks[1::2]
    assert sockets == mach.sockets
    for socket, block in zip(sockets, blocks[2::2], strict=True):
        peaks = aspen.peak_rates(mach, socket)
        cores_expr, cores = re.findall(r"totalcores = (.+)", block)
        assert printed(peaks.cores, cores)
        assert close(peaks.cores, aspen.evaluate(cores_expr, machine=mach))
        for kind, value in re.findall(r"peak (\S+) gflops: (\S+)", block):
            assert printed(peaks.flops[kind] / 1e9, value), (socket, kind)
        assert printed(peaks.bandwidth / 1e9, re.search(r"peak bw in GB/sec: (\S+)", block)[1])
        # the time expressions behind the peaks
        for kind, expr in re.findall(r"time to process 1e9 (\S+) flops in sec: (.+)", block):
            traits = tuple(Trait(x) for x in kind.split("/"))
            mine = idealized_time(mach, "flops", traits, aspen.parse_expression("1e9"), socket)
            assert close(env.eval(mine), aspen.evaluate(expr, machine=mach)), (socket, kind)
            assert close(1e9 / env.eval(mine), peaks.flops[kind])
        expr = re.search(r"time to read 1e9 bytes in sec: (.+)", block)[1]
        assert close(1e9 / aspen.evaluate(expr, machine=mach), peaks.bandwidth)
        assert total_quantity(mach, "flops", socket) is not None


ROOFLINE = _files("rooflineplot", "*.gplot.out")


@pytest.mark.parametrize("path", ROOFLINE, ids=_ids(ROOFLINE))
def test_roofline_peaks(path):
    """The roofline plots' ceilings: min(peak gflops, intensity * peak GB/s) per flop kind."""
    machine, socket = re.match(r"(.+\.aspen)_(\S+)\.gplot\.out", path.name).groups()
    peaks = aspen.peak_rates(machine_for(machine), socket)
    lines = re.findall(r"^(\w+)_flops\(x\) = min\((\S+), x\*(\S+)\)$", path.read_text(),
                       flags=re.M)
    assert len(lines) == 6
    for kind, gflops, gbs in lines:
        assert printed(peaks.flops[kind.replace("_", "/")] / 1e9, gflops)
        assert printed(peaks.bandwidth / 1e9, gbs)


# ----------------------------------------------------------------------------------------------
# baseline/combined and baseline/exampleruntime: runtimes
# ----------------------------------------------------------------------------------------------

COMBINED = _files("combined", "*.out")


def _pair(path: Path) -> tuple[str, str]:
    return re.match(r"(.+\.aspen)_with_(.+\.aspen)\.out", path.name).groups()


@pytest.mark.parametrize("path", COMBINED, ids=_ids(COMBINED))
def test_combined_runtimes(path):
    """Per kernel and socket: the printed runtime, and Aspen's runtime expression evaluated
    here equal to the reader's runtime to 1e-12; the data transfer time likewise."""
    machine_name, app_name = _pair(path)
    text = path.read_text()
    app = app_for(text, app_name)
    mach = machine_for(machine_name)
    env = aspen.Env(app.params, mach.params)
    cases = re.findall(
        r"\+\+Predicting runtime on kernel '(\S+)' for socket type (\S+)\n"
        r"run time \(expression\) = (.+)\nrun time \(value\)\s*= (\S+)\n"
        r"run time \(value2\)\s*= (\S+)\napp model data transfer time = (.+)", text)
    assert cases
    runtimes = {}
    for kernel, socket, expr, value, value2, transfer in cases:
        if socket not in runtimes:
            runtimes[socket] = aspen.runtime(app, mach, socket)
        mine = runtimes[socket].kernels[kernel]
        assert printed(mine, value) and printed(mine, value2), (kernel, socket, mine, value)
        assert close(mine, env.eval(aspen.parse_expression(expr))), (kernel, socket)
        assert close(mine, env.eval(aspen.runtime_expression(app, mach, socket, kernel)))
        if "-9999" not in transfer:
            assert close(aspen.data_transfer_time(app, mach, socket, kernel),
                         env.eval(aspen.parse_expression(transfer))), (kernel, socket)


@pytest.mark.parametrize("path", [p for p in COMBINED if "Scaling over" in p.read_text()],
                         ids=lambda p: p.name)
def test_combined_scaling_tables(path):
    """'Scaling over param': runtime and data transfer time at 10 points spread
    logarithmically over the parameter's range."""
    machine_name, app_name = _pair(path)
    text = path.read_text()
    app = app_for(text, app_name)
    mach = machine_for(machine_name)
    tables = re.findall(
        r"Predicting runtime on kernel '(\S+)' for socket type (\S+)\n(?:.*\n){4}"
        r"Scaling over param '(\S+)':\nvalue\truntime \tdatatime\tsum\n"
        r"((?:\S+ \t\S+ \t\S+ \t\S+\n)+)",
        text)
    assert tables
    for kernel, socket, param, rows in tables:
        lo, hi = {p.name: p for p in aspen.parameters(app)}[param].range
        rows = [r.split(" \t") for r in rows.strip().split("\n")]
        for i, (x, rt, dt, total) in enumerate(rows):
            # Aspen's steps: exp(log lo + i*step); the last is 10000.00000000001, not 10000,
            # and that matters where a ceil() jumps (main's 11564.8, not 11564.7)
            value = math.exp(math.log(lo) + i * (math.log(hi) - math.log(lo)) / (len(rows) - 1))
            assert printed(value, x)
            mine = aspen.runtime(app, mach, socket, params={param: value}).kernels[kernel]
            transfer = aspen.data_transfer_time(app, mach, socket, kernel, params={param: value})
            assert printed(mine, rt) and printed(transfer, dt), (kernel, x)
            assert printed(mine + transfer, total)


EXAMPLE_RUNTIME = _files("exampleruntime", "*.out")


@pytest.mark.parametrize("path", EXAMPLE_RUNTIME, ids=_ids(EXAMPLE_RUNTIME))
def test_example_runtimes(path):
    machine_name, app_name = _pair(path)
    app = aspen.load_model(MODELS / "suite" / "examples" / app_name)
    mach = machine_for(machine_name)
    text = path.read_text()
    expr = re.search(r"Expression for runtime: \n(.+)", text)[1]
    expanded = re.search(r"with parameter expansion: \n(.+)", text)[1]
    value = re.search(r"Value for runtime: (\S+)", text)[1]
    mine = aspen.runtime(app, mach).total
    assert printed(mine, value)
    assert close(mine, aspen.evaluate(expr, app, mach))
    assert close(mine, aspen.evaluate(expanded))


MODELING = _files("modeling", "*.out")


@pytest.mark.parametrize("path", MODELING, ids=_ids(MODELING))
def test_blackbox_modeling(path):
    """The black-box example: the template's parameter with a range (c) is fitted to the
    measurements of a CSV file (flops counts or runtimes on a machine's socket).  The
    predictions are linear in c, so the least-squares fit has a closed form; it gives Aspen's
    fitted value and RMS error (the square root of the sum of squared residuals) to the
    digits Aspen prints, and Aspen's printed prediction expressions equal the reader's
    predictions."""
    import csv

    csv_name, template = re.match(r"(.+\.csv)_(.+\.aspen)\.out", path.name).groups()
    app = aspen.load_model(MODELS / "test_inputs" / template)
    text = path.read_text()
    unknown, low, high, guess = re.search(
        r"^(\w+) in range \[(\S+) \.\. (\S+)\] \(starting guess = (\S+)\)", text,
        flags=re.M).groups()
    info = {p.name: p for p in aspen.parameters(app)}
    assert info[unknown].range == (float(low), float(high))
    assert printed(info[unknown].value, guess)
    rows = list(csv.DictReader((MODELS / "test_inputs" / csv_name).open()))
    printed_predictions = re.findall(r"prediction type '(\w+)' for \S+ (\S+):\n\s+(.+)", text)
    assert len(printed_predictions) == len(rows)

    def predict(row, kind, value):
        values = {k: float(v) for k, v in row.items() if k in app.params}
        values[unknown] = value
        if kind == "flops":
            return aspen.resources(app, params=values, names=["flops"]).total["flops"]
        machine = machine_for(Path(row["machine"]).name)
        return aspen.runtime(app, machine, row["socket"], params=values, kernels=False).total

    measured, unit = [], []
    for row, (kind, socket, expr) in zip(rows, printed_predictions, strict=True):
        row_kind = row.get("type", next(iter(row)))
        assert row_kind == kind and row["socket"] == socket
        measured.append(float(row.get("measurement", row.get(kind))))
        unit.append(predict(row, kind, 1.0))
        assert close(predict(row, kind, 2.0), 2 * unit[-1])  # linear in the unknown
        values = {k: float(v) for k, v in row.items() if k in app.params}
        assert close(predict(row, kind, 1234.5), aspen.evaluate(
            expr, app, params={**values, unknown: 1234.5})), expr
    fitted = sum(u * m for u, m in zip(unit, measured, strict=True)) / sum(u * u for u in unit)
    rms = math.sqrt(sum((m - fitted * u) ** 2 for u, m in zip(unit, measured, strict=True)))
    assert printed(fitted, re.search(rf"^{unknown} = (\S+)", text, flags=re.M)[1])
    assert printed(rms, re.search(r"RMS error:(\S+)", text)[1])


def test_runtimes_stated_in_the_readme():
    """The runtimes the reference README states to 12 digits."""
    keeneland = machine_for("keeneland.aspen")
    matmul = aspen.load_model(MODELS / "suite" / "matmul" / "matmul.aspen")
    assert close(aspen.runtime(matmul, keeneland, "intel_xeon_x5660").total, 0.446428571429,
                 1e-11)
    assert close(aspen.runtime(matmul, keeneland, "nvidia_m2090").total, 0.120792939543, 1e-11)
    md = aspen.load_model(MODELS / "suite" / "md" / "miniMD.aspen")
    assert close(aspen.runtime(md, machine_for("fermiCluster.aspen")).total, 97.1361460793,
                 1e-11)


def test_messages_on_a_machine_without_interconnect():
    app = aspen.load_model(MODELS / "suite" / "examples" / "messages_1.aspen")
    with pytest.raises(aspen.AspenError) as err:
        aspen.runtime(app, machine_for("simple.aspen"))
    message = str(err.value)
    assert "\n" not in message
    assert re.match(r".*messages_1\.aspen:9:7: machine 'SimpleMachine' has no resource "
                    r"'messages' for socket 'SimpleCPU'$", message)


def test_array_index_outside_the_array():
    """array.aspen says 'include out of range test': indices[3] is 100000."""
    app = aspen.load_model(MODELS / "suite" / "examples" / "array.aspen")
    with pytest.raises(aspen.AspenError, match=r"array\.aspen:25:18: index 100000 is outside "
                                               r"'numiters' \(10 values"):
        aspen.resources(app, params={"index": 3})


def test_models_without_main_give_each_kernels_runtime():
    """The suite's import*_b and import*_c models are libraries of kernels (no main): every
    kernel is timed on its own, the model's own first.  On simple a flop takes 1e-9 s."""
    simple = machine_for("simple.aspen")
    found = {}
    for path in sorted((MODELS / "suite" / "examples").glob("import*_[bc].aspen")):
        app = aspen.load_model(path)
        assert not app.has_main
        rt = aspen.runtime(app, simple)
        assert rt.total is None
        found[path.name] = {name: round(seconds / 1e-9, 6) for name, seconds in
                            rt.kernels.items()}
    assert found == {
        "import1_b.aspen": {"k2": 100}, "import2_b.aspen": {"k2": 100},
        "import3_b.aspen": {"k2": 1001}, "import5_b.aspen": {"k2": 100},
        "import5_c.aspen": {"k3": 1100, "model2.k2": 100}, "import6_b.aspen": {"k2": 100},
        "import6_c.aspen": {"k3": 2000, "model2.k2": 1000},
        # kernels with a param argument cannot be timed on their own ('y', 'z' undefined)
        "import7_b.aspen": {}, "import7_c.aspen": {},
    }


def test_every_application_on_every_machine_gives_a_runtime_or_a_clear_error():
    """Wider than the baselines: each application of the suite on each socket of each machine
    of the suite.  Aspen's tools answer with a runtime or stop with an error (an undefined
    name, messages without an interconnect); so must the reader, with AspenError only."""
    apps, machines = [], []
    for path in sorted((MODELS / "suite").rglob("*.aspen")):
        try:
            model = aspen.load(path)
        except aspen.AspenError:
            continue  # parse failures are test_every_model_parses's business
        if isinstance(model, aspen.MachineModel):
            if path.parent.name == "machine":
                machines.append(model)
        elif "main" in model.kernels:
            apps.append(model)
    runtimes = errors = 0
    for app in apps:
        for machine in machines:
            for socket in aspen.sockets(machine):
                try:
                    seconds = aspen.runtime(app, machine, socket, kernels=False).total
                except aspen.AspenError as error:
                    assert str(error).count("\n") == 0
                    errors += 1
                    continue
                assert seconds >= 0 and not math.isnan(seconds)
                runtimes += 1
    assert len(apps) >= 20 and len(machines) >= 7
    # most pairs give a runtime; the rest are the models' own gaps (messages on a machine
    # without interconnect, names only some machines define)
    assert runtimes > 3 * errors, (runtimes, errors)
