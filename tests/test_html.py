"""The HTML summary: same numbers as the JSON, self-contained, escaped, graphs included."""

from __future__ import annotations

import math
import re
from pathlib import Path

import lxml.html
import pytest

from sat.frontend import read_sources
from sat.machine import load_machine
from sat.model.build import build_model
from sat.model.tables import Note
from sat.parameters import build_parameters
from sat.report.html import LOOP_COLUMNS, render_html, write_html
from sat.report.json_export import to_json_data
from sat.report.svg import BarRow, LineChart, Series, paired_bars
from sat.xmlio import read_program

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "tests" / "data" / "exasat"
FUSED = DATA / "xml" / "hypterm-cns-fused.xml"
CONFIG = DATA / "config"
SVG = "{http://www.w3.org/2000/svg}"


# one pytest-xdist worker runs this module's tests: the reference model built once (tests/run.sh)
pytestmark = pytest.mark.xdist_group("html")


@pytest.fixture(scope="module")
def reference():
    """hypterm-cns-fused.xml with the reference machine and parameter files."""
    program = read_program(str(FUSED))
    machine = load_machine(str(CONFIG / "machine.xml"))
    params = build_parameters(machine, str(CONFIG / "params.xml"),
                              str(CONFIG / "block_params.xml"), str(CONFIG / "symsubs.xml"))
    result = build_model(program, params)
    env = result.env()
    meta = {"sources": [str(FUSED)], "machine": {"name": machine.name,
                                                 "source": machine.source}}
    data = to_json_data(program, result, env, meta["machine"])
    page = render_html(program, result, env, meta)  # graphviz when installed
    return program, result, data, page, lxml.html.fromstring(page)


def same(html_value: str, json_value) -> bool:
    """data-v attributes round-trip exactly to the float the JSON holds."""
    if json_value is None:
        return html_value == ""
    return float(html_value) == float(json_value)


def test_every_loop_number_equals_the_json(reference):
    _program, _result, data, _page, doc = reference
    assert data["loops"], "the reference program has loop nests"
    rows = doc.xpath("//tr[@class='nest']")
    assert len(rows) == len(data["loops"])
    keys = [c.key for c in LOOP_COLUMNS]
    for loop in data["loops"]:
        [row] = [r for r in rows if r.get("data-procedure") == loop["procedure"]
                 and int(r.get("data-line")) == loop["line"]]
        cells = {td.get("data-key"): td for td in row.xpath("td")}
        assert list(cells) == keys
        for key in keys:
            if key == "bottleneck":
                expected = "CPU" if loop["time_cpu_s"] >= loop["time_dram_s"] else "DRAM"
                assert cells[key].get("data-v") == expected
            else:
                assert same(cells[key].get("data-v"), loop[key]), (loop["line"], key)


def test_headline_numbers_equal_the_json_totals(reference):
    _program, result, data, _page, doc = reference
    headline = {dd.get("data-key"): dd.get("data-v") for dd in doc.xpath("//dl//dd")}
    for key in ("time_s", "traffic_gb", "gflops", "weighted_gflops", "bytes_per_flop"):
        assert same(headline[key], data["totals"][key]), key
    assert same(headline["footprint_gib"], result.totals["Footprint_GiB"].value(result.env()))
    # Compute- and memory-bound shares split the total time between the nests by bottleneck.
    cpu = sum(lp["time_s"] for lp in data["loops"] if lp["time_cpu_s"] >= lp["time_dram_s"])
    total = sum(lp["time_s"] for lp in data["loops"])
    assert math.isclose(float(headline["compute_bound_pct"]), 100 * cpu / total)
    assert math.isclose(float(headline["memory_bound_pct"]), 100 * (total - cpu) / total)


def test_parameters_equal_the_json(reference):
    _program, _result, data, _page, doc = reference
    table = doc.get_element_by_id("all-parameters")
    values = {td.get("data-key"): td.get("data-v") for td in table.xpath(".//td[@data-key]")}
    assert len(values) == len(data["parameters"])
    for p in data["parameters"]:
        assert same(values[p["name"]], float(p["value"])), p["name"]
    # The reference parameter files set hi(1) etc.: they differ from the defaults.
    changed = doc.get_element_by_id("changed-parameters")
    names = {td.get("data-key") for td in changed.xpath(".//td[@data-key]")}
    from_files = {p["name"] for p in data["parameters"]
                  if p["source"].startswith("parameter file")}
    assert from_files and from_files <= names


def test_the_page_references_no_external_resource(reference):
    _program, _result, _data, page, doc = reference
    for element in doc.iter():
        if not isinstance(element.tag, str):
            continue
        tag = element.tag.split("}")[-1].lower()
        assert tag not in ("link", "img", "iframe", "object", "embed", "base", "audio",
                           "video", "source", "image", "use", "foreignobject"), tag
        for name, value in element.attrib.items():
            local = name.split("}")[-1].lower()
            if local in ("src", "href", "action", "data", "poster", "srcset", "background"):
                assert value.startswith("#"), (tag, name, value)
    for text in doc.xpath("//style/text()") + doc.xpath("//@style"):
        assert "@import" not in text and not re.search(r"url\(\s*['\"]?(?!#)", text)
    script = "".join(doc.xpath("//script/text()"))
    for api in ("fetch", "XMLHttpRequest", "import(", "WebSocket", "src"):
        assert api not in script
    assert not doc.xpath("//script[@src]")
    csp = doc.xpath("//meta[@http-equiv='Content-Security-Policy']/@content")
    assert csp and "default-src 'none'" in csp[0]
    assert "http://" not in page.replace('xmlns="http://www.w3.org/2000/svg"', "") \
        .replace('xmlns:xlink="http://www.w3.org/1999/xlink"', "")
    assert "https://" not in page


def test_each_procedure_has_its_table_graph_and_occupancy(reference):
    program, result, _data, _page, doc = reference
    for procedure in program.procedures:
        tables = doc.xpath(f"//table[@data-procedure='{procedure.name}']")
        assert len(tables) == 1
        headers = tables[0].xpath("./thead/tr/th")
        assert len(headers) == len(LOOP_COLUMNS)
    graphs = doc.xpath("//div[contains(@class,'graph')]/*[local-name()='svg']")
    with_edges = {row["procedure"] for row in result.tables["Dependences"].rows}
    assert len(graphs) == len(with_edges)
    heat = doc.xpath("//table[contains(@class,'heat')]//td[contains(@class,'occ-rw')]")
    occupancy_rw = sum(1 for row in result.tables["Occupancy"].rows for v in row.values()
                       if v == "RW")
    assert len(heat) == occupancy_rw


def test_text_from_the_code_and_notes_is_escaped(reference, tmp_path: Path):
    program, result, _data, _page, _doc = reference
    result.notes.append(Note("<script>alert(1)</script> & <b>bold</b>", "warning", "x.f90", 3))
    try:
        path = tmp_path / "page.html"
        write_html(program, result, result.env(), str(path), {"sources": ["<odd>.f90"]})
        doc = lxml.html.fromstring(path.read_text(encoding="utf-8"))
    finally:
        result.notes.pop()
    assert len(doc.xpath("//script")) == 1  # only our own sorter
    assert not doc.xpath("//li//b")
    notes = doc.xpath("//details[contains(@class,'warning')]//li")
    assert any("<script>alert(1)</script> & <b>bold</b>" in li.text_content() for li in notes)
    assert "<odd>.f90" in doc.xpath("//title")[0].text


FORTRAN = """\
subroutine three(a, b, c, d, n)
  integer :: n, i, j, k
  double precision :: a(n,n,n), b(n,n,n), c(n,n,n), d(n,n,n)
  do k = 1, n
    do j = 1, n
      do i = 1, n
        a(i,j,k) = c(i,j,k) * 2.0d0
        d(i,j,k) = 0.0d0
      end do
    end do
  end do
  do k = 1, n
    do j = 1, n
      do i = 1, n
        b(i,j,k) = a(i,j,k) + 1.0d0
      end do
    end do
  end do
  do k = 1, n
    do j = 1, n
      do i = 1, n
        c(i,j,k) = 1.0d0
        d(i,j,k) = 2.0d0
      end do
    end do
  end do
end subroutine three
"""


def test_three_loop_fortran_graph_in_the_page(tmp_path: Path):
    # Nests at lines 4, 12 and 19.  flow 4 -> 12 (a), anti 4 -> 19 (c), output 4 -> 19 (d).
    source = tmp_path / "three.f90"
    source.write_text(FORTRAN)
    program = read_sources([str(source)])
    result = build_model(program, build_parameters(load_machine(None), None, None, None))
    doc = lxml.html.fromstring(render_html(program, result, result.env(), {},
                                           use_dot=False))
    [svg] = doc.xpath("//div[contains(@class,'graph')]/*[local-name()='svg']")
    texts = lambda cls: sorted(g.xpath("string(.//*[local-name()='text'])")  # noqa: E731
                               for g in svg.xpath(f".//*[@class='node {cls}']"))
    assert texts("loop") == ["three:12", "three:19", "three:4"]
    assert texts("array") == ["a", "c", "d"]
    kinds = sorted(p.get("class") for p in svg.xpath(".//*[local-name()='path']")
                   if p.get("class", "").startswith("edge"))
    assert kinds == ["edge anti"] * 2 + ["edge flow"] * 2 + ["edge output"] * 2


def test_paired_bars_scale_to_the_largest_tick():
    # Values 1 and 2 on an axis whose ticks run 0, 0.5, ... 2: plot width 760-190-20 = 550,
    # so the bars (7 px per series, drawn 6 high) are 275 and 550 pixels long.
    svg = paired_bars([BarRow("n:1", [1.0, 2.0])], [("CPU", "#00f"), ("DRAM", "#f80")], str)
    bars = re.findall(r'<rect x="190" y="\d+" width="([\d.]+)" height="6"', svg)
    widths = [float(w) for w in bars]
    assert widths == [275.0, 550.0]


def test_line_chart_places_log2_points():
    # x from 1 to 16 KiB on a log2 axis: 4 KiB is half-way (2 of 4 octaves) across the
    # plot, which runs from 64 to 760-16 = 744 px: 64 + 680 / 2 = 404.
    chart = LineChart([Series("s", "#000", [(1, 0.0), (4, 1.0), (16, 2.0)])], "x", "y",
                      x_log2=True)
    circles = re.findall(r'<circle cx="([\d.]+)" cy="([\d.]+)"', chart.svg())
    assert [float(c[0]) for c in circles] == [64.0, 404.0, 744.0]


def test_cache_chart_passes_through_the_machine_cache_size(reference):
    _program, result, data, _page, doc = reference
    cache_kb = result.env().param("CacheKB")
    # The point plotted at this machine's CacheKB is the program's B:F of the JSON.
    titles = [t for t in doc.xpath("//*[local-name()='circle']/*[local-name()='title']/text()")
              if t.startswith("B:F, whole program")]
    label = f"{cache_kb / 1024:g} MiB" if cache_kb >= 1024 else f"{cache_kb:g} KiB"
    expected = f"{data['totals']['bytes_per_flop']:.3g}"
    assert f"B:F, whole program: {label} → {expected}" in titles


def test_cli_writes_html_and_graphs_with_the_numbers_of_its_json(tmp_path: Path, capsys):
    from sat.cli import main

    html, js, graphs = tmp_path / "r.html", tmp_path / "r.json", tmp_path / "graphs"
    status = main([str(FUSED), "-m", str(CONFIG / "machine.xml"),
                   "--params", str(CONFIG / "params.xml"),
                   "--block-params", str(CONFIG / "block_params.xml"),
                   "--symsubs", str(CONFIG / "symsubs.xml"), "-q",
                   "--json", str(js), "--html", str(html), "--graphs", str(graphs)])
    assert status == 0, capsys.readouterr().err
    import json

    data = json.loads(js.read_text())
    doc = lxml.html.fromstring(html.read_text(encoding="utf-8"))
    for loop in data["loops"]:
        [row] = doc.xpath(f"//tr[@data-procedure='{loop['procedure']}'"
                          f" and @data-line='{loop['line']}']")
        for td in row.xpath("td[@data-key]"):
            if td.get("data-key") != "bottleneck":
                assert same(td.get("data-v"), loop[td.get("data-key")])
    headline = {dd.get("data-key"): dd.get("data-v") for dd in doc.xpath("//dl//dd")}
    assert same(headline["time_s"], data["totals"]["time_s"])
    # No workbook when only other outputs are asked for; one DOT file per procedure with edges.
    assert not list(tmp_path.glob("*.xlsx")) and not Path("hypterm-cns-fused.xlsx").exists()
    from sat.model.exasat.dependences import dependences

    with_edges = {d.procedure for d in dependences(read_program(str(FUSED)))}
    assert with_edges == {"hypterm"}  # advance has a single nest: nothing to depend on
    assert sorted(p.stem for p in graphs.glob("*.dot")) == sorted(with_edges)


def test_cli_rejects_a_file_as_graph_directory_before_any_work(tmp_path: Path, capsys):
    from sat.cli import main

    target = tmp_path / "taken"
    target.write_text("x")
    assert main([str(FUSED), "--graphs", str(target)]) == 2
    err = capsys.readouterr().err.strip()
    assert err == f"satreport: error: {target}: not a directory"


@pytest.mark.parametrize("name, values", [("CacheKB", [0.5, 3, 64, 1024, 1e6]),
                                          ("FPRegs", [0, 1, 4, 16, 64])])
def test_sweep_gives_what_a_fresh_evaluation_gives(reference, name, values):
    """The charts' sweeps reuse what does not depend on the swept parameter: same numbers."""
    from sat.model.expr import sweep

    _program, result, _data, _page, _doc = reference
    quantities = [q for t in result.tables.values() for r in t.rows + [t.totals or {}]
                  for q in r.values() if hasattr(q, "expr")] + list(result.totals.values())
    base = result.env()
    swept = sweep(quantities, base, name, values)
    for value, got in zip(values, swept, strict=True):
        fresh = result.env({name: value})
        expected = [q.value(fresh) for q in quantities]
        assert [repr(v) for v in got] == [repr(v) for v in expected]


def test_sweep_takes_each_point_its_own_way_through_branches_and_divisions():
    """Branches on the swept parameter, zero denominators at some points and a quantity
    reached at different points by different ways: the values of a fresh evaluation."""
    from sat.model.expr import Env, Param, Quantity, Ref, compare, div, evaluate, if_, sweep

    x, y = Param("x"), Param("y")
    shared = Quantity(("t", "shared"), x * 3 + y)  # reached from both branches below
    steady = Quantity(("t", "steady"), y * 2)  # independent of x
    branch = Quantity(("t", "branch"),
                      if_(compare("<", x, 2), Ref(shared), div(Ref(steady), x - 3)))
    ratio = Quantity(("t", "ratio"), div(Ref(shared), x - 1) + Ref(branch) * Ref(steady))
    roots = [branch, ratio, steady, shared]
    values = [0, 1, 2, 3, 4.5, -1]
    got = sweep(roots, Env({"x": 10, "y": 0.7}), "x", values)
    for value, row in zip(values, got, strict=True):
        expected = [evaluate(Ref(q), {"x": value, "y": 0.7}) for q in roots]
        assert [repr(v) for v in row] == [repr(v) for v in expected], value
    # x = 3: the branch divides by x - 3 = 0 and gives 0; x = 1: ratio's division gives 0
    assert got[3][0] == 0 and got[1][1] == 0 + got[1][0] * 1.4


def test_sweeps_sharing_one_evaluation_give_what_fresh_evaluations_give(reference):
    """The cache chart's sweeps (CacheKB, some with blocks or fusion set) take what none of
    their parameters moves from the page's evaluation: the values of fresh evaluations."""
    from sat.model.expr import Known, readers, sweep

    _program, result, _data, _page, _doc = reference
    quantities = [q for t in result.tables.values() for r in t.rows + [t.totals or {}]
                  for q in r.values() if hasattr(q, "expr")] + list(result.totals.values())
    plain = result.env()
    reads = readers(quantities, {"CacheKB", "BlockY", "BlockZ"}, plain)
    swept = {ident for ident, read in reads.items() if "CacheKB" in read}
    sizes = [0.5, 3, 64, 1024, 1e6]
    for overrides in ({}, {"BlockY": 8, "BlockZ": 8}, {"BlockY": 1, "BlockZ": 64}):
        moved = {ident for ident, read in reads.items() if read & set(overrides)}
        got = sweep(quantities, result.env(overrides), "CacheKB", sizes,
                    Known(plain, moved, swept))
        for size, row in zip(sizes, got, strict=True):
            fresh = result.env({**overrides, "CacheKB": size})
            assert [repr(v) for v in row] == [repr(q.value(fresh)) for q in quantities]
    assert swept and len(swept) < len(reads)  # some quantities read CacheKB, not all


def test_readers_look_through_references_and_derived_defaults():
    """Which parameters a quantity reads: through the quantities it refers to and through a
    parameter whose value is a derived default, not through one given a value."""
    from sat.model.expr import Env, Param, Quantity, Ref, readers

    x, y, z = Param("x"), Param("y"), Param("z")
    derived = Param("d")  # defaults to 2 * x
    near = Quantity(("t", "near"), y * 2)
    far = Quantity(("t", "far"), Ref(near) + derived)
    given = Quantity(("t", "given"), Param("g") + z)  # g defaults to x but is given
    env = Env({"x": 1, "y": 2, "z": 3, "g": 4}, {"d": x * 2, "g": x + 0})
    reads = readers([far, given], {"x", "y"}, env)
    assert reads == {id(far): {"x", "y"}, id(near): {"y"}, id(given): frozenset()}


def test_a_big_program_keeps_closed_sections_tables_in_templates(tmp_path):
    """With more than eight procedures only the three costliest sections start open; the
    others' tables wait in a <template> (no layout until opened), each nest's row once."""
    import sys

    sys.path.insert(0, str(ROOT / "bench"))
    from generate_fortran import generate_ring

    source = tmp_path / "ring.f90"
    source.write_text(generate_ring(12))
    program = read_sources([str(source)])
    params = build_parameters(load_machine(str(CONFIG / "machine.xml")))
    result = build_model(program, params)
    page = render_html(program, result, result.env(), {"sources": [str(source)]},
                       use_dot=False)
    doc = lxml.html.fromstring(page)
    sections = doc.xpath("//details[contains(@class,'procedure')]")
    assert len(sections) == 12
    opened = [s for s in sections if s.get("open") is not None]
    assert len(opened) == 3
    for section in sections:
        later = section.xpath("./template[@class='later']")
        assert len(later) == (0 if section in opened else 1)
    # every one of the 12 nests has its row, in an open section's table or in a template
    assert page.count('<tr class="nest"') == 12
    assert "template.later" in page  # the script that moves them out on opening
