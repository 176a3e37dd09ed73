"""The drawings of the HTML summary: each procedure's dependency graph, and the call graph.

:class:`Drawings` hands them to graphviz (:mod:`sat.report.dot`) in background processes
as soon as the program is modelled: laying out a big dependency graph can take longer than
all the rest of the page, and it then runs while the page is computed, or while the workbook
and the JSON are written before it.  The page collects the SVG when it is rendered; where
graphviz is missing or fails, and for graphs of more than ``DOT_MAX_NODES`` nodes, our own
layered layouts draw the same graphs.
"""

from __future__ import annotations

import re

from sat.ir import Program
from sat.model.exasat.dependences import Dependence, dependences
from sat.model.tables import ModelResult
from sat.report import callgraph
from sat.report import graph as graphs
from sat.report.dot import DotRun, prefix_ids

# graphviz takes seconds to lay out a dependency graph of a few hundred nests, and its drawing
# is no easier to read than our own layered one, which takes milliseconds
DOT_MAX_NODES = 150


def model_dependences(program: Program, result: ModelResult | None) -> list[Dependence]:
    """The dependences of the model's Dependences table (computed for the program when the
    result has no such table)."""
    table = result.tables.get("Dependences") if result is not None else None
    if table is None:
        return dependences(program)
    return [Dependence(str(r["procedure"]), int(r["source_line"]), int(r["sink_line"]),
                       str(r["array"]), r["kind"]) for r in table.rows]  # type: ignore[arg-type]


class Drawings:
    """The page's graphs, laid out from the moment this is made; :meth:`close` when done.

    ``use_dot``: None uses graphviz when it is installed, False draws with our own layouts.
    """

    def __init__(self, program: Program, result: ModelResult | None = None,
                 use_dot: bool | None = None):
        self.dependences = model_dependences(program, result)
        # only procedures with a dependence show a drawing
        names = dict.fromkeys(d.procedure for d in self.dependences)
        fusions = graphs.fusion_groups(result)
        self.graphs = {name: graphs.build_graph(program, name, self.dependences, fusions)
                       for name in names}
        calls = callgraph.build_call_graph(program)
        self.calls = calls if calls.edges else None
        # graph key (procedure name, or None for the call graph) -> its place in the dot run
        self._order: dict[str | None, int] = {}
        texts = []
        for name, graph in self.graphs.items():
            if len(graph.nodes) <= DOT_MAX_NODES:
                self._order[name] = len(texts)
                texts.append(graphs.to_dot(graph))
        if self.calls is not None:
            self._order[None] = len(texts)
            texts.append(callgraph.to_dot(self.calls))
        self._run = DotRun(texts) if use_dot is not False and texts else None

    def _dot(self, key: str | None, ident: str) -> str | None:
        index = self._order.get(key)
        svg = self._run.svgs()[index] if self._run is not None and index is not None else None
        return prefix_ids(svg, ident) if svg is not None else None

    def procedure_svg(self, name: str, ident: str = "") -> str | None:
        """The dependency graph of procedure ``name`` (None: it has no dependence); ``ident``
        prefixes the element ids, so that several drawings can share one page."""
        if name not in self.graphs:
            return None
        ident = ident or "g-" + re.sub(r"[^A-Za-z0-9_-]", "_", name)
        return self._dot(name, ident) or \
            graphs.layered_svg(self.graphs[name], ident)

    def calls_svg(self, ident: str = "calls") -> str | None:
        """The call graph (None: the program makes no call)."""
        if self.calls is None:
            return None
        return self._dot(None, ident) or callgraph.layered_svg(self.calls, ident)

    def close(self) -> None:
        """Stop graphviz where it still runs (the drawings are not wanted any more)."""
        if self._run is not None:
            self._run.close()

