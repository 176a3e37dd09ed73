"""Dependency graphs per procedure: DOT text, and SVG (graphviz's ``dot`` or our own layout).

The drawing follows the ExaSAT paper (Figure 6: ovals for loops, boxes for arrays) and makes
the kind of every dependence explicit:

- an **oval** per loop nest of the procedure, labelled ``procedure:line`` (every nest, so
  that nests with no edge show up as free to run in any order);
- a **box** per dependence carried between two nests, listing the arrays (or
  ``array.component`` pairs) that carry it; the box sits on the arrow ``source nest -> box ->
  sink nest``.  Edges of one kind between the same two nests share one box, so a pair of
  nests has at most three boxes;
- arrows coloured and dashed by kind: **flow** (read after write) solid blue, **anti** (write
  after read) dashed orange, **output** (write after write) dotted red.

One box per edge (rather than one box per array, with read and write arrows) keeps each path
meaningful: ``a -> [q] -> b`` always means "b depends on a through q", never a path that
merely passes through a shared array.

``dot`` is used when it is installed (with a time limit); otherwise, or when it fails, a
simple layered layout of our own draws the same nodes and edges, so graphviz is never needed.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from html import escape
from pathlib import Path

from sat.ir import Procedure, Program
from sat.model.exasat.dependences import Dependence, dependences
from sat.model.nests import program_nests
from sat.model.tables import ModelResult
from sat.outputs import OutputError, atomic_write_text
from sat.report.dot import dot_svg, prefix_ids

KINDS = ("flow", "anti", "output")
COLOURS = {"flow": "#1f77b4", "anti": "#e6730b", "output": "#d62728"}
DASHES = {"flow": "", "anti": "6,3", "output": "2,3"}
DOT_STYLES = {"flow": "solid", "anti": "dashed", "output": "dotted"}
MEANING = {"flow": "read after write", "anti": "write after read",
           "output": "write after write"}
MAX_LABEL_ARRAYS = 3  # arrays named in a box; the rest are counted ("+5 more") and in tooltip
MAX_LABEL_CHARS = 32


@dataclass
class Node:
    """A loop nest (``shape="loop"``) or the arrays carrying one dependence (``"array"``)."""

    ident: str
    label: str
    shape: str
    tooltip: str
    kind: str = ""  # the dependence kind of an array box
    fusion: str = ""  # a loop nest's fusion toggle, when it is in a legal fusion group


@dataclass
class Edge:
    source: str
    target: str
    kind: str


@dataclass
class Graph:
    """The dependency graph of one procedure."""

    procedure: str
    nodes: list[Node] = field(default_factory=list)
    edges: list[Edge] = field(default_factory=list)

    def node(self, ident: str) -> Node:
        return next(n for n in self.nodes if n.ident == ident)


def _short(text: str, limit: int = MAX_LABEL_CHARS) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _find_procedure(program: Program, name: str) -> Procedure | None:
    return next((p for p in program.procedures if p.name == name), None) or \
        program.procedure(name)


Fusions = dict[tuple[str, int], str]  # (procedure, nest line) -> its group's fusion toggle


def fusion_groups(result: ModelResult | None) -> Fusions:
    """The nests of every legal fusion group of the model (its Fusion sheet) and their
    toggles."""
    table = result.tables.get("Fusion") if result is not None else None
    return {(str(row["procedure"]), line): str(row["parameter"])
            for row in (table.rows if table is not None else ()) if row["parameter"]
            for line in row["nest_lines"]}  # type: ignore[union-attr]


def build_graph(program: Program, procedure_name: str,
                edges: list[Dependence] | None = None, fusions: Fusions | None = None
                ) -> Graph:
    """Nodes and edges of one procedure's graph (``edges``: precomputed dependences;
    ``fusions``: the nests of legal fusion groups, marked)."""
    procedure = _find_procedure(program, procedure_name)
    graph = Graph(procedure.name if procedure else procedure_name)
    if procedure is None:
        return graph
    lines = [loop.line for p, loop in program_nests(program) if p is procedure]
    for line in lines:
        toggle = (fusions or {}).get((procedure.name, line), "")
        fusable = f"; fusable with its group: {toggle}" if toggle else ""
        graph.nodes.append(Node(f"L{line}", f"{_short(procedure.name, 30)}:{line}", "loop",
                                f"loop nest at line {line} of {procedure.name}{fusable}",
                                fusion=toggle))
    if edges is None:
        edges = dependences(program)
    grouped: dict[tuple[int, int, str], list[str]] = {}
    for dep in edges:
        if dep.procedure == procedure.name:
            arrays = grouped.setdefault((dep.source_line, dep.sink_line, dep.kind), [])
            if dep.array not in arrays:
                arrays.append(dep.array)
    order = {k: i for i, k in enumerate(KINDS)}
    for index, ((source, sink, kind), arrays) in enumerate(
            sorted(grouped.items(), key=lambda item: (item[0][0], item[0][1],
                                                      order[item[0][2]]))):
        shown = ", ".join(_short(a, 20) for a in arrays[:MAX_LABEL_ARRAYS])
        if len(arrays) > MAX_LABEL_ARRAYS:
            shown += f" +{len(arrays) - MAX_LABEL_ARRAYS} more"
        box = f"A{index + 1}"
        graph.nodes.append(Node(box, shown, "array",
                                f"{kind} ({MEANING[kind]}) {source} -> {sink}: "
                                + ", ".join(arrays), kind))
        graph.edges.append(Edge(f"L{source}", box, kind))
        graph.edges.append(Edge(box, f"L{sink}", kind))
    return graph


# --- DOT ----------------------------------------------------------------------------------

FUSION_COLOUR = "#2ca02c"  # the frame of a fusion group, and a fusable nest's fill below
_FUSABLE_FILL = "#dff0d8"


def _loop_fill(node: Node) -> str:
    return _FUSABLE_FILL if node.fusion else "#f2f2f2"


def _dot_string(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def to_dot(graph: Graph) -> str:
    """The graph as DOT text (``dot -Tsvg file.dot`` draws it)."""
    out = [f"// Dependences between the loop nests of {graph.procedure} (satreport).",
           "// Ovals: loop nests (procedure:line). Boxes: arrays carrying a dependence.",
           "// Edges: flow (read after write) solid blue, anti (write after read) dashed",
           "// orange, output (write after write) dotted red.",
           f"digraph {_dot_string(graph.procedure)} {{",
           '  graph [rankdir=TB, nodesep=0.25, ranksep=0.35, '
           'fontname="Helvetica,Arial,sans-serif"];',
           '  node [fontname="Helvetica,Arial,sans-serif", fontsize=11];',
           '  edge [arrowsize=0.7];']
    for node in graph.nodes:
        if node.shape == "loop":
            attrs = f'shape=ellipse, style=filled, fillcolor="{_loop_fill(node)}"'
        else:
            attrs = (f'shape=box, style="rounded", fontsize=10, '
                     f'color="{COLOURS[node.kind]}", fontcolor="#222222"')
        out.append(f"  {node.ident} [label={_dot_string(node.label)}, "
                   f"tooltip={_dot_string(node.tooltip)}, {attrs}];")
    groups: dict[str, list[str]] = {}
    for node in graph.nodes:
        if node.fusion:
            groups.setdefault(node.fusion, []).append(node.ident)
    for number, (toggle, members) in enumerate(groups.items(), start=1):
        out.append(f"  subgraph cluster_fusion_{number} {{ label={_dot_string(toggle)}; "
                   f'style="dashed,rounded"; color="{FUSION_COLOUR}"; fontsize=10; '
                   + " ".join(f"{m};" for m in members) + " }")
    for edge in graph.edges:
        out.append(f'  {edge.source} -> {edge.target} [color="{COLOURS[edge.kind]}", '
                   f"style={DOT_STYLES[edge.kind]}];")
    out.append("}")
    return "\n".join(out) + "\n"


# --- our own layered layout ---------------------------------------------------------------

_CHAR_W, _NODE_H, _GAP_X, _GAP_Y, _MARGIN = 6.6, 26, 18, 34, 12


def svg_start(width: float, height: float, arrows: dict[str, str]) -> list[str]:
    """The opening of a graph drawing: the ``svg`` element and an arrow head per marker id
    (id -> colour)."""
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" class="graph" width="{width:.0f}" '
           f'height="{height:.0f}" viewBox="0 0 {width:.0f} {height:.0f}" '
           'font-family="Helvetica,Arial,sans-serif" font-size="11"><defs>']
    out.extend(f'<marker id="{marker}" viewBox="0 0 10 10" refX="10" refY="5" '
               'markerWidth="7" markerHeight="7" orient="auto">'
               f'<path d="M0,0L10,5L0,10z" fill="{colour}"/></marker>'
               for marker, colour in arrows.items())
    out.append("</defs>")
    return out


def layers(nodes: Iterable[str], edges: Iterable[tuple[str, str]]) -> dict[str, int]:
    """Longest-path layering: a node sits one layer below its lowest predecessor.

    An edge that closes a cycle (back to a node on the path being followed) is left out."""
    preds: dict[str, list[str]] = {n: [] for n in nodes}
    for source, target in edges:
        preds[target].append(source)
    layer: dict[str, int] = {}

    def depth(ident: str, seen: frozenset[str] = frozenset()) -> int:
        if ident not in layer:
            parents = [p for p in preds[ident] if p not in seen and p != ident]
            layer[ident] = 1 + max((depth(p, seen | {ident}) for p in parents), default=-1)
        return layer[ident]

    for node in preds:
        depth(node)
    return layer


def _layers(graph: Graph) -> dict[str, int]:
    # Dependences always run forward in program order: no cycle to leave out.
    return layers((n.ident for n in graph.nodes), ((e.source, e.target) for e in graph.edges))


def layered_svg(graph: Graph, ident: str = "g") -> str:
    """The graph drawn by a simple layered layout (no graphviz needed)."""
    layer = _layers(graph)
    rows: dict[int, list[Node]] = {}
    for node in graph.nodes:
        rows.setdefault(layer[node.ident], []).append(node)
    width_of = {n.ident: len(n.label) * _CHAR_W + (26 if n.shape == "loop" else 14)
                for n in graph.nodes}
    preds: dict[str, list[str]] = {n.ident: [] for n in graph.nodes}
    for edge in graph.edges:
        preds[edge.target].append(edge.source)
    centre: dict[str, float] = {}
    row_width = {r: sum(width_of[n.ident] for n in ns) + _GAP_X * (len(ns) - 1)
                 for r, ns in rows.items()}
    total_width = max(row_width.values(), default=100) + 2 * _MARGIN
    for r in sorted(rows):
        nodes = rows[r]
        # Barycentre ordering keeps each node under its predecessors; ties keep program order.
        nodes.sort(key=lambda n: (sum(centre[p] for p in preds[n.ident]) / len(preds[n.ident])
                                  if preds[n.ident] else float("inf")))
        x = (total_width - row_width[r]) / 2
        for n in nodes:
            centre[n.ident] = x + width_of[n.ident] / 2
            x += width_of[n.ident] + _GAP_X
    height = (max(rows, default=0) + 1) * (_NODE_H + _GAP_Y) - _GAP_Y + 2 * _MARGIN + 22
    y_of = {n.ident: _MARGIN + layer[n.ident] * (_NODE_H + _GAP_Y) for n in graph.nodes}
    out = svg_start(total_width, height, {f"{ident}-arrow-{kind}": COLOURS[kind]
                                          for kind in KINDS})
    for edge in graph.edges:
        x1, y1 = centre[edge.source], y_of[edge.source] + _NODE_H
        x2, y2 = centre[edge.target], y_of[edge.target]
        mid = (y1 + y2) / 2
        dash = f' stroke-dasharray="{DASHES[edge.kind]}"' if DASHES[edge.kind] else ""
        out.append(f'<path class="edge {edge.kind}" d="M{x1:.1f},{y1:.1f}C{x1:.1f},{mid:.1f} '
                   f'{x2:.1f},{mid:.1f} {x2:.1f},{y2:.1f}" fill="none" '
                   f'stroke="{COLOURS[edge.kind]}" stroke-width="1.4"{dash} '
                   f'marker-end="url(#{ident}-arrow-{edge.kind})"/>')
    for node in graph.nodes:
        w, x, y = width_of[node.ident], centre[node.ident], y_of[node.ident]
        if node.shape == "loop":
            stroke = FUSION_COLOUR if node.fusion else "#333"
            shape = (f'<ellipse cx="{x:.1f}" cy="{y + _NODE_H / 2:.1f}" rx="{w / 2:.1f}" '
                     f'ry="{_NODE_H / 2}" fill="{_loop_fill(node)}" stroke="{stroke}"/>')
        else:
            shape = (f'<rect x="{x - w / 2:.1f}" y="{y}" width="{w:.1f}" height="{_NODE_H}" '
                     f'rx="4" fill="#fff" stroke="{COLOURS[node.kind]}"/>')
        out.append(f'<g class="node {node.shape}"><title>{escape(node.tooltip)}</title>{shape}'
                   f'<text x="{x:.1f}" y="{y + _NODE_H / 2 + 4:.1f}" text-anchor="middle">'
                   f"{escape(node.label)}</text></g>")
    legend_y = height - _MARGIN
    lx = _MARGIN
    for kind in KINDS:
        dash = f' stroke-dasharray="{DASHES[kind]}"' if DASHES[kind] else ""
        out.append(f'<line x1="{lx}" y1="{legend_y - 4}" x2="{lx + 22}" y2="{legend_y - 4}" '
                   f'stroke="{COLOURS[kind]}" stroke-width="1.6"{dash}/>'
                   f'<text x="{lx + 26}" y="{legend_y}" font-size="10">{kind}</text>')
        lx += 72
    if any(node.fusion for node in graph.nodes):
        out.append(f'<ellipse cx="{lx + 11}" cy="{legend_y - 4}" rx="11" ry="6" '
                   f'fill="{_FUSABLE_FILL}" stroke="{FUSION_COLOUR}"/>'
                   f'<text x="{lx + 26}" y="{legend_y}" font-size="10">fusable (hover: its '
                   "toggle)</text>")
    out.append("</svg>")
    return "".join(out)


def procedure_svg(program: Program, procedure_name: str, use_dot: bool | None = None,
                  edges: list[Dependence] | None = None, ident: str = "") -> str:
    """One procedure's dependency graph as an ``<svg>`` element.

    ``use_dot``: None uses graphviz when installed; False forces our own layout.  ``ident``
    prefixes element ids, so that several graphs can share one HTML page.
    """
    graph = build_graph(program, procedure_name, edges)
    ident = ident or "g-" + re.sub(r"[^A-Za-z0-9_-]", "_", graph.procedure)
    if use_dot is not False:
        svg = dot_svg(to_dot(graph))
        if svg is not None:
            return prefix_ids(svg, ident)
    return layered_svg(graph, ident)


def _file_name(name: str, used: set[str]) -> str:
    stem = re.sub(r"[^A-Za-z0-9_.-]", "_", name) or "procedure"
    candidate, number = stem, 1
    while candidate.lower() in used:  # procedures differing only in case, or by odd chars
        number += 1
        candidate = f"{stem}_{number}"
    used.add(candidate.lower())
    return candidate + ".dot"


def write_graphs(program: Program, directory: str, result: ModelResult | None = None
                 ) -> list[str]:
    """One ``.dot`` file per procedure that has dependences; returns the paths written.
    With the model's ``result``, its legal fusion groups are framed."""
    target = Path(directory)
    try:
        target.mkdir(exist_ok=True)
    except OSError as error:
        raise OutputError(f"{directory}: {error.strerror or error}") from None
    if not target.is_dir():
        raise OutputError(f"{directory}: not a directory")
    edges = dependences(program)
    names = list(dict.fromkeys(d.procedure for d in edges))
    written: list[str] = []
    used: set[str] = set()
    for name in names:
        path = str(target / _file_name(name, used))
        atomic_write_text(path, to_dot(build_graph(program, name, edges,
                                                   fusion_groups(result))))
        written.append(path)
    return written


def check_graph_directory(directory: str) -> Path:
    """Fail early, before any work, if ``directory`` cannot hold the graphs."""
    target = Path(directory)
    if target.exists() and not target.is_dir():
        raise OutputError(f"{directory}: not a directory")
    parent = target if target.exists() else (target.parent if str(target.parent) else Path("."))
    if not parent.is_dir():
        raise OutputError(f"{directory}: directory {parent} does not exist")
    if not os.access(parent, os.W_OK):
        raise OutputError(f"{directory}: directory {parent} is not writable")
    return target
