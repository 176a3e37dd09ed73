"""Dependency graphs: nodes and edges, DOT text, graphviz and our own layered SVG."""

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from lxml import etree

from sat.ir import Access, Array, Loop, Procedure, Program
from sat.report.graph import (
    _layers,
    build_graph,
    layered_svg,
    procedure_svg,
    to_dot,
    write_graphs,
)

SVG = "{http://www.w3.org/2000/svg}"


def read(name: str) -> Array:
    return Array(name, "", "double", "readonly", [Access((0,), ("i",), reads=1)])


def write(name: str) -> Array:
    return Array(name, "", "double", "writeonly", [Access((0,), ("i",), writes=1)])


def loop(line: int, *arrays: Array) -> Loop:
    return Loop(line=line, loopvar="i", lower="1", upper="n", arrays=list(arrays))


def three_loops(name: str = "p") -> Program:
    # 10: a = f(c); d = 0     20: b = g(a)     30: c = 1; d = 2
    # flow   10 -> 20 through a (20 reads what 10 wrote)
    # anti   10 -> 30 through c (30 overwrites what 10 read)
    # output 10 -> 30 through d (30 overwrites what 10 wrote)
    # b is only written once and never read: no edge.
    loops = [loop(10, write("a"), read("c"), write("d")), loop(20, read("a"), write("b")),
             loop(30, write("c"), write("d"))]
    return Program([Procedure(name=name, loops=loops)])


# The graph worked out by hand: an oval per nest, a box per (source, sink, kind) edge,
# ordered by source line, sink line, then kind (flow, anti, output).
NODES = {("L10", "p:10", "loop"), ("L20", "p:20", "loop"), ("L30", "p:30", "loop"),
         ("A1", "a", "array"), ("A2", "c", "array"), ("A3", "d", "array")}
EDGES = {("L10", "A1", "flow"), ("A1", "L20", "flow"), ("L10", "A2", "anti"),
         ("A2", "L30", "anti"), ("L10", "A3", "output"), ("A3", "L30", "output")}


def test_three_loop_graph_has_the_hand_worked_nodes_and_edges():
    graph = build_graph(three_loops(), "p")
    assert {(n.ident, n.label, n.shape) for n in graph.nodes} == NODES
    assert {(e.source, e.target, e.kind) for e in graph.edges} == EDGES
    assert graph.node("A2").kind == "anti"
    assert "anti (write after read) 10 -> 30: c" == graph.node("A2").tooltip


def test_dot_text_lists_every_node_and_edge():
    dot = to_dot(build_graph(three_loops(), "p"))
    nodes = set(re.findall(r"^  (\w+) \[label=\"([^\"]*)\".*shape=(\w+)", dot, re.M))
    assert nodes == {("L10", "p:10", "ellipse"), ("L20", "p:20", "ellipse"),
                     ("L30", "p:30", "ellipse"), ("A1", "a", "box"), ("A2", "c", "box"),
                     ("A3", "d", "box")}
    edges = set(re.findall(r"^  (\w+) -> (\w+) \[color=\"[^\"]+\", style=(\w+)\]", dot, re.M))
    styles = {"flow": "solid", "anti": "dashed", "output": "dotted"}
    assert edges == {(s, t, styles[k]) for s, t, k in EDGES}


@pytest.mark.skipif(not shutil.which("dot"), reason="graphviz dot is not installed")
def test_graphviz_draws_the_dot_text():
    svg = procedure_svg(three_loops(), "p", ident="t")
    root = etree.fromstring(svg.encode())
    groups = root.iter(f"{SVG}g")
    titles = [g.findtext(f"{SVG}title") for g in groups if g.get("class") in ("node", "edge")]
    # graphviz titles: node ids, and "source->target" for edges.
    assert sorted(t for t in titles if "->" not in t) == sorted(n[0] for n in NODES)
    assert sorted(t for t in titles if "->" in t) == sorted(f"{s}->{t}" for s, t, _ in EDGES)
    # Reduced to the <svg> element: no XML prolog, no DOCTYPE pointing at a remote DTD.
    assert svg.startswith("<svg") and "DOCTYPE" not in svg and "<!--" not in svg
    assert all(i.startswith("t-") for i in root.xpath("//@id"))


def test_own_layout_draws_the_same_graph():
    program = three_loops()
    svg = procedure_svg(program, "p", use_dot=False, ident="x")
    root = etree.fromstring(svg.encode())
    ellipses = root.findall(f".//{SVG}g[@class='node loop']")
    boxes = root.findall(f".//{SVG}g[@class='node array']")
    assert sorted(g.findtext(f"{SVG}text") for g in ellipses) == ["p:10", "p:20", "p:30"]
    assert sorted(g.findtext(f"{SVG}text") for g in boxes) == ["a", "c", "d"]
    assert all(g.find(f"{SVG}ellipse") is not None for g in ellipses)
    assert all(g.find(f"{SVG}rect") is not None for g in boxes)
    edges = [p.get("class") for p in root.iter(f"{SVG}path") if "edge" in p.get("class", "")]
    assert sorted(edges) == sorted(["edge flow"] * 2 + ["edge anti"] * 2 + ["edge output"] * 2)
    # Markers are referenced by prefixed ids, unique per graph on a page.
    assert {m.get("id") for m in root.iter(f"{SVG}marker")} == {
        "x-arrow-flow", "x-arrow-anti", "x-arrow-output"}


def test_layers_put_each_node_below_its_predecessors():
    # 10 has no predecessor (layer 0); each box sits one below 10; 20 and 30 below their box.
    layers = _layers(build_graph(three_loops(), "p"))
    assert layers == {"L10": 0, "A1": 1, "A2": 1, "A3": 1, "L20": 2, "L30": 2}


def test_odd_names_are_escaped_in_dot_and_svg():
    program = three_loops('we"ird<name>')
    graph = build_graph(program, 'we"ird<name>')
    dot = to_dot(graph)
    assert 'digraph "we\\"ird<name>"' in dot
    svg = layered_svg(graph, "odd")
    root = etree.fromstring(svg.encode())  # well-formed: < and " escaped
    assert 'we"ird<name>:10' in [t.text for t in root.iter(f"{SVG}text")]
    if shutil.which("dot"):
        done = subprocess.run(["dot", "-Tsvg"], input=dot, capture_output=True, text=True,
                              timeout=30)
        assert done.returncode == 0, done.stderr


def test_long_array_lists_are_shortened_in_the_label_but_kept_in_the_tooltip():
    names = [f"flux{i}" for i in range(6)]
    loops = [loop(1, *[write(n) for n in names]), loop(2, *[read(n) for n in names])]
    graph = build_graph(Program([Procedure(name="p", loops=loops)]), "p")
    box = graph.node("A1")
    assert box.label == "flux0, flux1, flux2 +3 more"
    assert box.tooltip.endswith(", ".join(names))


def test_write_graphs_writes_one_dot_file_per_procedure_with_dependences(tmp_path: Path):
    lonely = Procedure(name="lonely", loops=[loop(5, write("z"))])  # no dependence
    program = Program([three_loops().procedures[0], lonely])
    written = write_graphs(program, str(tmp_path / "graphs"))
    assert written == [str(tmp_path / "graphs" / "p.dot")]
    text = Path(written[0]).read_text()
    assert text == to_dot(build_graph(program, "p"))


def test_write_graphs_refuses_a_file_as_directory(tmp_path: Path):
    from sat.outputs import OutputError

    target = tmp_path / "file"
    target.write_text("x")
    with pytest.raises(OutputError):
        write_graphs(three_loops(), str(target))


# --- graphviz runs: several drawings per process, in the background -----------------------

def bigger(name: str, nests: int) -> Program:
    """A chain of nests, each reading what the one before wrote."""
    loops = [loop(10 * (k + 1), read(f"a{k}"), write(f"a{k + 1}")) for k in range(nests)]
    return Program([Procedure(name=name, loops=loops)])


@pytest.mark.skipif(not shutil.which("dot"), reason="graphviz dot is not installed")
def test_one_dot_process_draws_each_graph_as_a_run_of_its_own():
    from sat.report.dot import DotRun, reduce_svg

    texts = [to_dot(build_graph(three_loops(n), n)) for n in ("p", "q")] + \
        [to_dot(build_graph(bigger("r", 12), "r")), to_dot(build_graph(three_loops("s"), "s"))]
    alone = [reduce_svg(subprocess.run(["dot", "-Tsvg"], input=t, capture_output=True,
                                       text=True, timeout=30, check=True).stdout)
             for t in texts]
    assert all(alone)
    for processes in (1, 2):
        assert DotRun(texts, processes=processes).svgs() == alone


def fake_dot(tmp_path: Path, monkeypatch, script: str) -> None:
    """Put a stand-in for ``dot`` first on the PATH."""
    folder = tmp_path / "bin"
    folder.mkdir()
    (folder / "dot").write_text("#!/bin/sh\n" + script + "\n")
    (folder / "dot").chmod(0o755)
    monkeypatch.setenv("PATH", f"{folder}:{os.environ['PATH']}")


def test_a_dot_that_runs_out_of_time_is_stopped(tmp_path, monkeypatch):
    from sat.report.dot import DotRun

    fake_dot(tmp_path, monkeypatch, "sleep 30")
    run = DotRun(["digraph a {}", "digraph b {}", "digraph c {}"], timeout=0.3)
    started = list(run._running)
    assert started
    assert run.svgs() == [None, None, None]  # the caller draws them with its own layout
    assert all(s.process.returncode is not None for s in started)  # killed, none left
    # drawings given up on (an error before the page) stop with the run that started them
    run = DotRun(["digraph a {}"])
    started = list(run._running)
    del run
    assert all(s.process.returncode is not None for s in started)


def test_a_failing_dot_gives_our_own_layout(tmp_path, monkeypatch):
    from sat.report.drawings import Drawings

    fake_dot(tmp_path, monkeypatch, "echo 'Error: syntax error' >&2; exit 1")
    drawings = Drawings(three_loops())
    svg = drawings.procedure_svg("p", "x")
    assert svg == layered_svg(build_graph(three_loops(), "p"), "x")


def test_without_dot_the_drawings_are_our_own_layout(monkeypatch):
    from sat.report.drawings import Drawings

    monkeypatch.setenv("PATH", "/nonexistent")
    drawings = Drawings(three_loops())
    assert drawings.procedure_svg("p", "x") == layered_svg(build_graph(three_loops(), "p"), "x")
    assert drawings.procedure_svg("nothing", "y") is None  # no dependence, no drawing
    assert drawings.calls_svg() is None  # no call
