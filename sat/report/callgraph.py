"""The call graph of a program: which procedure calls which, and from which loop nest.

It is read from the program as modelled (``ModelResult.program``), where
:mod:`sat.model.calls` wrote the work of each followed callee into the calling nest as an
:class:`~sat.ir.InlinedCall` arm: a call found inside such an arm is made by that callee,
within the nest that runs it.  Every call is one of

- **followed**: the callee is a procedure of the program; its work counts in the nest;
- **recursive**: the callee is already running in the chain of calls: not followed;
- **too deep**: the chain of calls is too long to follow;
- **not in the sources**: the callee is unknown; its cost is not counted;
- **outside loop nests**: a call from straight-line code; the callee's nests are rows of
  their own.

Procedures are drawn as boxes (those only run inside loop nests of their callers in a lighter
fill, unknown callees dashed and grey); each edge joins a caller to a callee, labelled with
the number of calls and where they run (``line 22``: the nest at line 22 of the caller;
``driver:21``: the nest at line 21 of ``driver``, inside which the caller runs).  ``dot`` is
used when installed, through the same machinery as the dependency graphs; otherwise a layered
layout of our own draws the same nodes and edges.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from html import escape

from sat.ir import Body, Call, InlinedCall, Program
from sat.model.nests import program_nests
from sat.report.graph import layers, svg_start

FOLLOWED, RECURSIVE, TOO_DEEP, UNKNOWN, OUTSIDE = (
    "followed", "recursive", "too deep", "not in the sources", "outside loop nests")
STATUSES = (FOLLOWED, OUTSIDE, UNKNOWN, RECURSIVE, TOO_DEEP)
COLOURS = {FOLLOWED: "#1f77b4", OUTSIDE: "#555555", UNKNOWN: "#888888",
           RECURSIVE: "#d62728", TOO_DEEP: "#e6730b"}
DOT_STYLES = {FOLLOWED: "solid", OUTSIDE: "solid", UNKNOWN: "dashed", RECURSIVE: "dashed",
              TOO_DEEP: "dotted"}
DASHES = {FOLLOWED: "", OUTSIDE: "", UNKNOWN: "6,3", RECURSIVE: "6,3", TOO_DEEP: "2,3"}
MEANING = {
    FOLLOWED: "its work counts in the nest",
    OUTSIDE: "a call outside loop nests: the callee's nests are rows of their own",
    UNKNOWN: "not in the sources: its cost is not counted",
    RECURSIVE: "recursive: not followed, its cost counts zero",
    TOO_DEEP: "too many calls deep: not followed, its cost counts zero",
}
# procedure kinds: rows of its own, run only inside loop nests of its callers, not in sources
PROCEDURE, INSIDE, EXTERNAL = "procedure", "inside", "external"
MAX_PLACES = 3  # nests named on an edge; beyond, they are counted


@dataclass
class CallSites:
    """The calls from ``caller`` to ``callee`` inside one loop nest (or outside any)."""

    procedure: str  # the procedure holding the nest (outside nests: the caller)
    line: int  # the line of the nest's outermost loop; outside nests, of the first call
    file: str
    caller: str
    callee: str
    status: str
    calls: int = 0
    # the callee whose work this call's work counts for in the nest (the nest's direct callee)
    counted_in: str = ""

    @property
    def in_nest(self) -> bool:
        return self.status != OUTSIDE

    @property
    def direct(self) -> bool:
        """A call the nest itself makes (not one made by a callee running in it)."""
        return self.in_nest and self.caller == self.procedure

    def place(self) -> str:
        """Where the calls run, as seen from the caller."""
        if not self.in_nest or self.direct:
            return f"line {self.line}"
        return f"{self.procedure}:{self.line}"


@dataclass
class CallNode:
    ident: str
    name: str
    kind: str  # PROCEDURE, INSIDE or EXTERNAL


@dataclass
class CallEdge:
    """The calls from one procedure to another of one status, over every nest."""

    source: str
    target: str
    status: str
    sites: list[CallSites] = field(default_factory=list)

    @property
    def calls(self) -> int:
        return sum(s.calls for s in self.sites)

    def label(self) -> str:
        """``×3 · lines 22, 27``: the number of calls and where they run."""
        if len(self.sites) > MAX_PLACES:
            where = f"{len(self.sites)} nests"
        else:
            own = [str(s.line) for s in self.sites if not s.in_nest or s.direct]
            where = ", ".join(
                ([f"line{'s' if len(own) > 1 else ''} {', '.join(own)}"] if own else [])
                + [s.place() for s in self.sites if s.in_nest and not s.direct])
        prefix = {RECURSIVE: "recursive ", TOO_DEEP: "too deep "}.get(self.status, "")
        return f"{prefix}×{self.calls} · {where}"


@dataclass
class CallGraph:
    nodes: list[CallNode] = field(default_factory=list)
    edges: list[CallEdge] = field(default_factory=list)
    sites: list[CallSites] = field(default_factory=list)  # in program order

    def node(self, ident: str) -> CallNode:
        return next(n for n in self.nodes if n.ident == ident)


def _calls_in(body: Body, chain: tuple[str, ...], times: int = 1
              ) -> Iterator[tuple[Call, tuple[str, ...], int]]:
    """Every call at or below ``body`` with the chain of procedures running there (lower
    case: the nest's procedure, then each callee written into it on the way down) and the
    times it is made per run of ``body`` (identical calls are written in once)."""
    for call in body.calls:
        yield call, chain, times
    for branch in body.branches:
        inner = (*chain, branch.callee.lower()) if isinstance(branch, InlinedCall) else chain
        yield from _calls_in(branch, inner, times * branch.times)
    for loop in body.loops:
        yield from _calls_in(loop, chain, times)


def _straight_line_calls(body: Body) -> Iterator[Call]:
    """The calls of a procedure outside its loop nests (loops at this level are nests)."""
    yield from body.calls
    for branch in body.branches:
        yield from _straight_line_calls(branch)


def _inlined_names(body: Body, names: dict[str, str]) -> None:
    for branch in body.branches:
        if isinstance(branch, InlinedCall):
            names.setdefault(branch.callee.lower(), branch.callee)
        _inlined_names(branch, names)
    for loop in body.loops:
        _inlined_names(loop, names)


def build_call_graph(program: Program) -> CallGraph:
    """The calls of ``program`` (as modelled, callees written into their nests)."""
    own = {p.name.lower(): p.name for p in program.procedures}
    inside: dict[str, str] = {}
    for procedure in program.procedures:
        _inlined_names(procedure, inside)
    known = {**inside, **own}
    written: dict[str, str] = {}  # names of unknown callees as first written
    graph = CallGraph()
    by_key: dict[tuple, CallSites] = {}

    def add(key: tuple, make: CallSites, times: int = 1) -> None:
        if key not in by_key:
            by_key[key] = make
            graph.sites.append(make)
        by_key[key].calls += times

    def name(lower: str, call: Call) -> str:
        return known.get(lower) or written.setdefault(lower, call.name)

    for procedure, loop in program_nests(program):
        file = loop.file or procedure.file
        for call, chain, times in _calls_in(loop, (procedure.name.lower(),)):
            callee = call.name.lower()
            if call.followed:
                status = FOLLOWED
            elif callee in chain:
                status = RECURSIVE
            elif callee in known:
                status = TOO_DEEP
            else:
                status = UNKNOWN
            caller = name(chain[-1], call)
            # a nest's work in callees is told per callee the nest itself calls (chain[1])
            counted_in = "" if status != FOLLOWED else \
                name(chain[1], call) if len(chain) > 1 else name(callee, call)
            add((procedure.name, loop.line, caller, callee, status),
                CallSites(procedure.name, loop.line, file, caller, name(callee, call), status,
                          counted_in=counted_in), times)
    for procedure in program.procedures:
        for call in _straight_line_calls(procedure):
            callee = call.name.lower()
            status = OUTSIDE if callee in known else UNKNOWN
            add((procedure.name, 0, procedure.name, callee, status),
                CallSites(procedure.name, call.line, procedure.file, procedure.name,
                          name(callee, call), status))
    graph.sites.sort(key=lambda s: not s.in_nest)  # stable: nests first, in program order

    idents: dict[str, str] = {}

    def node(display: str) -> str:
        lower = display.lower()
        if lower not in idents:
            idents[lower] = f"P{len(idents) + 1}"
            kind = PROCEDURE if lower in own else INSIDE if lower in inside else EXTERNAL
            graph.nodes.append(CallNode(idents[lower], display, kind))
        return idents[lower]

    for procedure in program.procedures:  # callers in program order, then their callees
        if any(s.caller.lower() == procedure.name.lower() for s in graph.sites):
            node(procedure.name)
    edges: dict[tuple[str, str, str], CallEdge] = {}
    for sites in graph.sites:
        key = (node(sites.caller), node(sites.callee), sites.status)
        if key not in edges:
            edges[key] = CallEdge(*key)
            graph.edges.append(edges[key])
        edges[key].sites.append(sites)
    return graph


def node_tooltip(node: CallNode) -> str:
    return {PROCEDURE: f"{node.name}: a procedure of the program",
            INSIDE: f"{node.name}: runs only inside loop nests of its callers, where its "
                    "work is counted",
            EXTERNAL: f"{node.name}: not in the sources, its cost is not counted"}[node.kind]


def edge_tooltip(graph: CallGraph, edge: CallEdge) -> str:
    source, target = graph.node(edge.source).name, graph.node(edge.target).name
    places = "; ".join(
        f"{s.calls} call{'s' if s.calls > 1 else ''} "
        + (f"in the loop nest at line {s.line} of {s.procedure}" if s.in_nest
           else f"at line {s.line}, outside loop nests") for s in edge.sites)
    return f"{source} → {target} ({MEANING[edge.status]}): {places}"


# --- DOT ----------------------------------------------------------------------------------

def _dot_string(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


_NODE_STYLES = {
    PROCEDURE: 'style="rounded,filled", fillcolor="#f2f2f2"',
    INSIDE: 'style="rounded,filled", fillcolor="#ffffff"',
    EXTERNAL: 'style="rounded,dashed", color="#888888", fontcolor="#555555"',
}


def to_dot(graph: CallGraph) -> str:
    """The call graph as DOT text."""
    out = ["// Calls between the procedures of the program (satreport).",
           "// Boxes: procedures (white: run only inside loop nests of their callers; dashed:",
           "// not in the sources). Edges: calls, labelled with their number and the nests",
           "// they run in; red dashed: recursive, not followed.",
           'digraph "calls" {',
           '  graph [rankdir=TB, nodesep=0.3, ranksep=0.45, '
           'fontname="Helvetica,Arial,sans-serif"];',
           '  node [shape=box, fontname="Helvetica,Arial,sans-serif", fontsize=11];',
           '  edge [arrowsize=0.7, fontname="Helvetica,Arial,sans-serif", fontsize=9];']
    for node in graph.nodes:
        out.append(f"  {node.ident} [label={_dot_string(node.name)}, "
                   f"tooltip={_dot_string(node_tooltip(node))}, {_NODE_STYLES[node.kind]}];")
    for edge in graph.edges:
        out.append(f"  {edge.source} -> {edge.target} [label={_dot_string(edge.label())}, "
                   f"tooltip={_dot_string(edge_tooltip(graph, edge))}, "
                   f'color="{COLOURS[edge.status]}", fontcolor="{COLOURS[edge.status]}", '
                   f"style={DOT_STYLES[edge.status]}];")
    out.append("}")
    return "\n".join(out) + "\n"


# --- our own layered layout ---------------------------------------------------------------

_CHAR_W, _LABEL_CHAR_W, _NODE_H, _GAP_X, _GAP_Y, _MARGIN = 6.6, 5.4, 26, 40, 56, 12
MAX_LABELLED_EDGES = 12  # with more, labels would pile up: tooltips and the table tell them
_FILLS = {PROCEDURE: "#f2f2f2", INSIDE: "#ffffff", EXTERNAL: "#ffffff"}


def layered_svg(graph: CallGraph, ident: str = "calls") -> str:
    """The call graph drawn by a simple layered layout (no graphviz needed)."""
    layer = layers((n.ident for n in graph.nodes), ((e.source, e.target) for e in graph.edges))
    rows: dict[int, list[CallNode]] = {}
    for node in graph.nodes:
        rows.setdefault(layer[node.ident], []).append(node)
    width_of = {n.ident: len(n.name) * _CHAR_W + 20 for n in graph.nodes}
    labelled = len(graph.edges) <= MAX_LABELLED_EDGES
    # room on the right of a box for the loop of a recursive call and its label
    room = {n.ident: 0.0 for n in graph.nodes}
    for edge in graph.edges:
        if edge.source == edge.target:
            room[edge.source] = max(room[edge.source], 34 + labelled * _LABEL_CHAR_W
                                    * len(edge.label()))
    slot = {i: width_of[i] + room[i] for i in width_of}
    row_width = {r: sum(slot[n.ident] for n in ns) + _GAP_X * (len(ns) - 1)
                 for r, ns in rows.items()}
    total_width = max(row_width.values(), default=100) + 2 * _MARGIN
    centre: dict[str, float] = {}
    for r in sorted(rows):
        x = (total_width - row_width[r]) / 2
        for n in rows[r]:
            centre[n.ident] = x + width_of[n.ident] / 2
            x += slot[n.ident] + _GAP_X
    height = (max(rows, default=0) + 1) * (_NODE_H + _GAP_Y) - _GAP_Y + 2 * _MARGIN
    y_of = {n.ident: _MARGIN + layer[n.ident] * (_NODE_H + _GAP_Y) for n in graph.nodes}
    out = svg_start(total_width, height, {f"{ident}-arrow-{status.replace(' ', '-')}":
                                          COLOURS[status] for status in STATUSES})
    for edge in graph.edges:
        colour, marker = COLOURS[edge.status], f"{ident}-arrow-{edge.status.replace(' ', '-')}"
        dash = f' stroke-dasharray="{DASHES[edge.status]}"' if DASHES[edge.status] else ""
        x0, y0 = centre[edge.source], y_of[edge.source]
        if edge.source == edge.target:  # a loop on the right of the box
            right = x0 + width_of[edge.source] / 2
            path = (f"M{right:.1f},{y0 + 7:.1f}C{right + 26:.1f},{y0 + 2:.1f} "
                    f"{right + 26:.1f},{y0 + _NODE_H - 2:.1f} {right:.1f},{y0 + _NODE_H - 7:.1f}")
            lx, ly, anchor = right + 30, y0 + _NODE_H / 2 + 3, "start"
        else:
            x1, y1 = centre[edge.target], y_of[edge.target]
            if y1 > y0:  # downwards, from the bottom of the caller to the top of the callee
                ya, yb = y0 + _NODE_H, y1
            else:  # upwards (a cycle), from the top to the bottom, bent aside
                ya, yb = y0, y1 + _NODE_H
            mid = (ya + yb) / 2
            bend = 0 if y1 > y0 else 40
            path = (f"M{x0:.1f},{ya:.1f}C{x0 + bend:.1f},{mid:.1f} {x1 + bend:.1f},{mid:.1f} "
                    f"{x1:.1f},{yb:.1f}")
            # the label at three quarters of the curve, where edges fanning out are apart
            lx = 0.15625 * x0 + 0.84375 * x1 + 0.5625 * bend + 4
            ly, anchor = 0.015625 * ya + 0.5625 * mid + 0.421875 * yb + 3, "start"
        label = (f'<text x="{lx:.1f}" y="{ly:.1f}" font-size="9" fill="{colour}" '
                 f'text-anchor="{anchor}">{escape(edge.label())}</text>') if labelled else ""
        out.append(f'<g class="edge {edge.status.replace(" ", "-")}">'
                   f"<title>{escape(edge_tooltip(graph, edge))}</title>"
                   f'<path d="{path}" fill="none" stroke="{colour}" stroke-width="1.4"{dash} '
                   f'marker-end="url(#{marker})"/>{label}</g>')
    for node in graph.nodes:
        w, x, y = width_of[node.ident], centre[node.ident], y_of[node.ident]
        stroke = ' stroke="#888888" stroke-dasharray="4,3"' if node.kind == EXTERNAL \
            else ' stroke="#333333"'
        out.append(f'<g class="node {node.kind}"><title>{escape(node_tooltip(node))}</title>'
                   f'<rect x="{x - w / 2:.1f}" y="{y}" width="{w:.1f}" height="{_NODE_H}" '
                   f'rx="5" fill="{_FILLS[node.kind]}"{stroke}/>'
                   f'<text x="{x:.1f}" y="{y + _NODE_H / 2 + 4:.1f}" text-anchor="middle">'
                   f"{escape(node.name)}</text></g>")
    out.append("</svg>")
    return "".join(out)
