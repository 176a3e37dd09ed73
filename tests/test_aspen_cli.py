"""Aspen application models as SOURCE: the command line, the JSON's aspen object, the live
workbook (recalculated in LibreOffice after an edit), scenarios over their ranges."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from sat.cli import main

ROOT = Path(__file__).resolve().parent.parent
ASPEN = ROOT.parent / "shared" / "reference" / "aspen" / "models" / "suite"
MATMUL = ASPEN / "matmul" / "matmul.aspen"
TILE = ASPEN / "echelon" / "tiling" / "tile.aspen"
KEENELAND = ASPEN / "machine" / "keeneland.aspen"

pytestmark = pytest.mark.skipif(not ASPEN.is_dir(), reason="Aspen's models are not in "
                                "../shared/reference/aspen")


def run_json(capsys, *args: str) -> dict:
    return json.loads(_run(capsys, *args))


def test_matmul_on_the_exascale_node_by_hand(capsys):
    data = run_json(capsys, MATMUL)
    aspen = data["aspen"]
    # n = 1000, 5 multiplications: 5 x 2 n^3 = 1e10 flops; loads 5 x 2 n^2 x 4 B = 4e7 B,
    # stores 5 x n^2 x 4 B = 2e7 B; on 1000 cores x 10 Gflop/s the flops take 1e10 / 1e13 =
    # 1 ms, the bytes 6e7 / 1e12 = 60 us: overlapped, 1 ms
    assert aspen["resources"] == {"flops": 1e10, "loads": 4e7, "stores": 2e7, "messages": 0}
    assert aspen["runtime_s"] == pytest.approx(1e-3, rel=1e-12)
    assert data["totals"]["time_s"] == pytest.approx(1e-3, rel=1e-12)
    assert data["totals"]["gflops"] == 10 and data["totals"]["traffic_gb"] == 0.06
    # matA, matB, matC: 3 x n^2 x 4 B
    assert data["totals"]["footprint_gib"] == pytest.approx(12e6 / 2**30, rel=1e-12)
    assert [(d["name"], d["bytes"]) for d in aspen["data"]] == [
        ("matA", 4e6), ("matB", 4e6), ("matC", 4e6)]
    kernels = {k["name"]: k for k in aspen["kernels"]}
    assert kernels["main"]["calls"] == ["matmul"]
    assert kernels["matmul"]["flops"] == 2e9
    names = {p["name"]: p for p in data["parameters"]}
    assert names["n"]["value"] == 1000 and names["n"]["group"] == "problem"
    # --set changes a parameter of the model: n = 2000 gives 8 times the flops
    bigger = run_json(capsys, MATMUL, "--set", "n=2000")["aspen"]
    assert bigger["resources"]["flops"] == 8e10
    assert bigger["runtime_s"] == pytest.approx(8e-3, rel=1e-12)


def test_tuner_over_an_aspen_range_equals_aspens_own_counts(capsys):
    from sat import aspen

    scenario = run_json(capsys, TILE, "--scenario",
                        ROOT / "examples" / "scenarios" / "aspen-tuner.yaml")["scenario"]
    app = aspen.load_model(TILE)
    flops = {tf: aspen.resources(app, params={"tf": tf}).total["flops"] for tf in range(16, 65)}
    best = min(flops, key=flops.get)
    assert scenario["optimum"]["tf"] == best
    assert scenario["objective_value"] == pytest.approx(flops[best] / 1e9, rel=1e-12)
    assert scenario["solver"]["evaluations"] == 49


def test_a_scenario_without_variables_takes_the_models_ranges(capsys, tmp_path):
    path = tmp_path / "s.yaml"
    path.write_text("objective: minimize Total_GFlops\n")
    scenario = run_json(capsys, TILE, "--scenario", path)["scenario"]
    assert [v["name"] for v in scenario["variables"]] == ["prf", "tf"]
    assert [(v["low"], v["high"]) for v in scenario["variables"]] == [(2000, 4000), (16, 64)]


@pytest.mark.libreoffice
def test_the_workbook_recalculates_to_what_set_prints(capsys, tmp_path):
    from libreoffice import recalculate_edited

    base = tmp_path / "matmul.xlsx"
    data = json.loads(_run(capsys, MATMUL, "-o", base))
    values = recalculate_edited(base, {"n": 1500}, tmp_path / "edit")
    expected = json.loads(_run(capsys, MATMUL, "--set", "n=1500", "-o", tmp_path / "x.xlsx"))
    checked = 0
    for kernel in expected["aspen"]["kernels"]:
        for key, address in kernel["cells"].items():
            sheet_name, ref = address.rsplit("!", 1)
            got = values[sheet_name.strip("'")][ref.replace("$", "")].value
            want = kernel["runtime_s" if key == "time_s" else key]
            assert got == pytest.approx(want, rel=1e-9), (kernel["name"], key)
            checked += 1
    assert checked >= 10
    assert data["aspen"]["resources"]["flops"] != expected["aspen"]["resources"]["flops"]


def _run(capsys, *args) -> str:
    assert main([*map(str, args), "-q", "--json", "-"]) == 0, capsys.readouterr().err
    return capsys.readouterr().out


@pytest.mark.parametrize(("extra", "message"), [
    (["--set", "nope=3"], "--set nope: no such parameter"),
    (["--xml", "x.xml"], "--xml: not for an Aspen model"),
    ([str(ROOT / "examples" / "lap.f90")], "analysed alone"),
])
def test_bad_aspen_runs_are_one_line(capsys, tmp_path, extra, message):
    assert main([str(MATMUL), *extra, "-q", "--json", str(tmp_path / "o.json")]) == 2
    error = capsys.readouterr().err.strip()
    assert message in error and len(error.splitlines()) == 1, error
    assert not (tmp_path / "o.json").exists()


def test_a_syntax_error_names_file_line_and_column(capsys, tmp_path):
    path = tmp_path / "bad.aspen"
    path.write_text("model m {\n  param n = \n  kernel main { }\n}\n")
    assert main([str(path), "-q", "--json", "-"]) == 2
    error = capsys.readouterr().err.strip()
    assert f"{path}:3:" in error and len(error.splitlines()) == 1, error


@pytest.mark.parametrize(("app", "machine", "socket", "seconds"), [
    # Aspen's runtime tool on these models (../shared/reference/aspen/README.md)
    (MATMUL, KEENELAND, "intel_xeon_x5660", 0.446428571429),
    (MATMUL, KEENELAND, "nvidia_m2090", 0.120792939543),
    (ASPEN / "md" / "miniMD.aspen", ASPEN / "machine" / "fermiCluster.aspen", "nvidia_m2090",
     97.1361460793),
])
def test_runtimes_on_aspen_machines_are_aspens(capsys, app, machine, socket, seconds):
    data = run_json(capsys, app, "-m", machine, "--socket", socket)
    assert data["aspen"]["socket"] == socket
    assert data["aspen"]["runtime_s"] == pytest.approx(seconds, rel=1e-11)
    assert data["totals"]["time_s"] == data["aspen"]["runtime_s"]


@pytest.mark.libreoffice
def test_a_workbook_on_an_aspen_machine_recalculates_to_what_set_prints(capsys, tmp_path):
    from libreoffice import recalculate_edited

    base = tmp_path / "matmul.xlsx"
    options = ["-m", KEENELAND, "--socket", "nvidia_m2090"]
    _run(capsys, MATMUL, *options, "-o", base)
    values = recalculate_edited(base, {"nTimes": 7}, tmp_path / "edit")
    expected = json.loads(_run(capsys, MATMUL, *options, "--set", "nTimes=7", "-o",
                               tmp_path / "x.xlsx"))
    address = expected["totals"]["cells"]["time_s"]
    sheet_name, ref = address.rsplit("!", 1)
    got = values[sheet_name.strip("'")][ref.replace("$", "")].value
    # 7 multiplications instead of 5
    assert got == pytest.approx(expected["totals"]["time_s"], rel=1e-9)
    assert got == pytest.approx(0.120792939543 * 7 / 5, rel=1e-9)


def test_a_machine_without_the_resource_is_one_line(capsys, tmp_path):
    app = tmp_path / "talk.aspen"
    app.write_text("model talk {\n  param n = 10\n  kernel main {\n    execute [1] {\n"
                   "      messages [n]\n    }\n  }\n}\n")
    assert main([str(app), "-m", str(ASPEN / "machine" / "simple.aspen"), "-q", "--json",
                 "-"]) == 2
    error = capsys.readouterr().err.strip()
    assert "has no resource 'messages'" in error and f"{app}:5:" in error, error


def test_a_machine_model_alone_gives_its_peak_rates(capsys):
    data = run_json(capsys, "-m", KEENELAND)["aspen_machine"]
    rates = {s["socket"]: s for s in data["sockets"]}
    # Aspen's machine tool on keeneland (baseline/machine/keeneland.aspen.out):
    # peak dp/simd/fmad 16128 and 239616 Gflop/s, bandwidth 6140.16 and 47952 GB/s
    assert rates["intel_xeon_x5660"]["flops_per_s"]["dp/simd/fmad"] == \
        pytest.approx(16128e9, rel=1e-9)
    assert rates["nvidia_m2090"]["flops_per_s"]["dp/simd/fmad"] == pytest.approx(239616e9,
                                                                                  rel=1e-9)
    assert rates["intel_xeon_x5660"]["bandwidth_bytes_per_s"] == pytest.approx(6140.16e9,
                                                                               rel=1e-6)
    assert rates["nvidia_m2090"]["bandwidth_bytes_per_s"] == pytest.approx(47952e9, rel=1e-6)


# ---------------------------------------------------------------- models without kernel main

SIMPLE = ASPEN / "machine" / "simple.aspen"


def test_a_model_without_main_gives_every_kernels_runtime(capsys, tmp_path):
    path = tmp_path / "m.aspen"
    path.write_text("model m { param n = 100  kernel k2 { execute { flops [n] } } }\n")
    workbook = tmp_path / "m.xlsx"
    assert main([str(path), "-m", str(SIMPLE), "--json", "-", "-o", str(workbook)]) == 0
    captured = capsys.readouterr()
    data = json.loads(captured.out)
    aspen = data["aspen"]
    assert aspen["runtime_s"] is None  # no program to time
    assert aspen["resources"] == {"flops": None, "loads": None, "stores": None,
                                  "messages": None}
    # simple: 4 cores at CORECLOCK = 1e9 flop/s; execute without [p]: ceil(1/4) = 1 core,
    # 100 flops / 1e9 = 1e-7 s
    (k2,) = aspen["kernels"]
    assert (k2["name"], k2["flops"], k2["runtime_s"]) == ("k2", 100, pytest.approx(1e-7))
    assert "time_s" not in data["totals"]
    assert "has no kernel 'main'" in captured.err and len(captured.err.splitlines()) == 1
    assert any("has no kernel 'main'" in w["message"] for w in data["warnings"])
    # the workbook's Aspen kernels sheet: k2's time as a live formula with its value
    from openpyxl import load_workbook

    sheet, ref = k2["cells"]["time_s"].rsplit("!", 1)
    formula = load_workbook(workbook)[sheet.strip("'")][ref.replace("$", "")].value
    value = load_workbook(workbook, data_only=True)[sheet.strip("'")][ref.replace("$", "")].value
    assert formula.startswith("=") and "CORECLOCK" in formula
    assert value == pytest.approx(1e-7)


@pytest.mark.parametrize(("model", "expected"), [
    # model3's own kernel k3 (flops [n], then call model2.k2), then the imported model2.k2;
    # on simple every flop takes 1e-9 s (one core of four busy: ceil(1/4) = 1)
    ("import5_c.aspen", [("k3", 1000 + 100), ("model2.k2", 100)]),
    # 'with n=n': model2.n is model3's n = 1000
    ("import6_c.aspen", [("k3", 1000 + 1000), ("model2.k2", 1000)]),
    ("import1_b.aspen", [("k2", 100)]),
    ("import3_b.aspen", [("k2", 1001)]),
])
def test_import_models_without_main_time_their_own_kernels_first(capsys, model, expected):
    aspen = run_json(capsys, ASPEN / "examples" / model, "-m", SIMPLE)["aspen"]
    assert aspen["runtime_s"] is None
    assert [(k["name"], k["flops"]) for k in aspen["kernels"]] == expected
    assert [k["runtime_s"] for k in aspen["kernels"]] == pytest.approx(
        [flops * 1e-9 for _, flops in expected], rel=1e-12)


def test_a_model_without_main_whose_kernels_need_arguments_is_one_line(capsys):
    # import7_b's only kernel is k2(param y): nothing can be timed on its own
    assert main([str(ASPEN / "examples" / "import7_b.aspen"), "-m", str(SIMPLE), "-q",
                 "--json", "-"]) == 2
    error = capsys.readouterr().err.strip()
    assert len(error.splitlines()) == 1
    assert re.search(r"import7_b\.aspen:7:24: undefined name 'y' \(model 'model2' has no "
                     r"kernel 'main'", error), error


def test_html_of_a_model_without_main_lists_every_kernel(capsys, tmp_path, monkeypatch):
    import sat.report.html as html

    # the repository's own templates, wherever satreport is installed from
    monkeypatch.setattr(html, "templates_dir", lambda: ROOT / "templates")
    html._environment.cache_clear()
    try:
        page = tmp_path / "m.html"
        assert main([str(ASPEN / "examples" / "import5_c.aspen"), "-m", str(SIMPLE), "-q",
                     "--html", str(page)]) == 0
    finally:
        html._environment.cache_clear()
    text = page.read_text()
    assert "has no kernel <code>main</code>" in text
    tree = text.split('<section id="aspen">', 1)[1].split("</section>", 1)[0]
    # k3 (with model2.k2 under it), then model2.k2 as a program of its own
    assert re.findall(r"<strong>([\w.]+)</strong>", tree) == ["k3", "model2.k2", "model2.k2"]
    assert "1.1 µs" in tree and "100 ns" in tree


def test_a_construct_aspen_refuses_but_satreport_reads_is_a_warning(capsys):
    run = main([str(ASPEN / "examples" / "exec_names.aspen"), "-m", str(SIMPLE), "--json", "-"])
    captured = capsys.readouterr()
    assert run == 0
    warnings = [w["message"] for w in json.loads(captured.out)["warnings"]]
    assert sum("bare name 'firstblock'" in w for w in warnings) == 1
    assert "exec_names.aspen:7: execute block labelled with the bare name" in captured.err


@pytest.mark.libreoffice
def test_a_workbook_without_main_recalculates_every_kernel(capsys, tmp_path):
    from libreoffice import recalculate_edited

    model = ASPEN / "examples" / "import6_c.aspen"
    base = tmp_path / "lib.xlsx"
    data = json.loads(_run(capsys, model, "-m", SIMPLE, "-o", base))
    values = recalculate_edited(base, {"n": 3000}, tmp_path / "edit")
    expected = json.loads(_run(capsys, model, "-m", SIMPLE, "--set", "n=3000", "-o",
                               tmp_path / "x.xlsx"))["aspen"]["kernels"]
    got = []
    for kernel in data["aspen"]["kernels"]:
        sheet, ref = kernel["cells"]["time_s"].rsplit("!", 1)
        got.append(values[sheet.strip("'")][ref.replace("$", "")].value)
    # n = 3000 (model2.n follows it, 'with n=n'): k3 6000 flops, model2.k2 3000, 1e-9 s each
    assert got == pytest.approx([k["runtime_s"] for k in expected], rel=1e-9)
    assert got == pytest.approx([6e-6, 3e-6], rel=1e-9)
