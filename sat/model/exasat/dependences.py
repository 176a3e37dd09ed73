"""Dependences between the loop nests of a procedure through the arrays they read and write.

Each nest is reduced to the data it reads and the data it writes (array-component pairs, over
all its levels and branches).  Between two nests of one procedure, in program order:

- **flow** (read after write): a nest reads data an earlier nest wrote;
- **anti** (write after read): a nest writes data an earlier nest read;
- **output** (write after write): a nest writes data an earlier nest wrote.

Only the *nearest* edges are kept: a write is assumed to overwrite the whole data it names
(grid loops write every cell), so it hides older writes from later readers.  A flow edge goes
from the last writer before the reader, an anti edge from a reader to the next writer after
it, an output edge from a writer to the next writer.  Every other dependence follows from
these by transitivity, so the graph stays readable (the paper's figure: loops and arrays, with
arrows for reads and writes).  ``q`` (no component: the whole array) and ``q.qu`` name
overlapping data; ``q.qu`` and ``q.qv`` are distinct.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from sat.ir import Loop, Procedure, Program
from sat.model.context import ModelContext
from sat.model.nests import program_nests
from sat.model.tables import Column, Table

Kind = Literal["flow", "anti", "output"]

# (lower-case array name, lower-case component or "" for the whole array)
DataKey = tuple[str, str]


@dataclass(frozen=True)
class Dependence:
    """One edge of the dependency graph: ``source_line`` must run before ``sink_line``."""

    procedure: str
    source_line: int
    sink_line: int
    array: str  # display key, ``name`` or ``name.component``
    kind: Kind


@dataclass
class NestData:
    """What one loop nest reads and writes (display names keyed by :data:`DataKey`)."""

    line: int
    reads: dict[DataKey, str]
    writes: dict[DataKey, str]
    calls: int = 0
    _by_array: dict[str, list[tuple[DataKey, str]]] | None = None

    def writes_of(self, array: str) -> list[tuple[DataKey, str]]:
        """The writes to one array (any component), in order."""
        if self._by_array is None:
            self._by_array = {}
            for key, name in self.writes.items():
                self._by_array.setdefault(key[0], []).append((key, name))
        return self._by_array.get(array, [])


def nest_data(loop: Loop) -> NestData:
    """The data a nest reads and writes, over all its levels."""
    data = NestData(loop.line, {}, {})
    for level in loop.levels():
        data.calls += sum(not call.followed for call in level.calls)
        for array in level.arrays:
            key = (array.name.lower(), array.component.lower())
            if array.reads:
                data.reads.setdefault(key, array.key)
            if array.writes:
                data.writes.setdefault(key, array.key)
    return data


def _overlap(a: DataKey, b: DataKey) -> bool:
    return a[0] == b[0] and (not a[1] or not b[1] or a[1] == b[1])


def _covers(writer: DataKey, other: DataKey) -> bool:
    """A write to ``writer`` overwrites all of ``other``."""
    return writer[0] == other[0] and (not writer[1] or writer[1] == other[1])


def _label(a: tuple[DataKey, str], b: tuple[DataKey, str]) -> str:
    """The more specific of two overlapping names (``q.qu`` rather than ``q``)."""
    return a[1] if a[0][1] or not b[0][1] else b[1]


def procedure_dependences(procedure: Procedure, nests: list[Loop]) -> list[Dependence]:
    """Nearest flow, anti and output edges between the given nests of one procedure."""
    data = [nest_data(loop) for loop in sorted(nests, key=lambda lp: lp.line)]
    edges: dict[tuple[int, int, str, str], Dependence] = {}

    def add(source: NestData, sink: NestData, array: str, kind: Kind) -> None:
        key = (source.line, sink.line, array, kind)
        edges.setdefault(key, Dependence(procedure.name, source.line, sink.line, array, kind))

    def scan_writers(start: NestData, key: DataKey, name: str, later: list[NestData],
                     kind: Kind, forward: bool) -> None:
        # Walk away from `start` through `later`; every overlapping writer is an edge, and
        # the first writer covering the data ends the walk.
        for other in later:
            writes = other.writes_of(key[0])
            for wkey, wname in writes:
                if _overlap(key, wkey):
                    array = _label((key, name), (wkey, wname))
                    if forward:
                        add(start, other, array, kind)
                    else:
                        add(other, start, array, kind)
            if any(_covers(wkey, key) for wkey, _ in writes):
                return

    for index, nest in enumerate(data):
        before = list(reversed(data[:index]))
        after = data[index + 1:]
        for key, name in nest.reads.items():
            scan_writers(nest, key, name, before, "flow", forward=False)
            scan_writers(nest, key, name, after, "anti", forward=True)
        for key, name in nest.writes.items():
            scan_writers(nest, key, name, after, "output", forward=True)
    order = {"flow": 0, "anti": 1, "output": 2}
    return sorted(edges.values(),
                  key=lambda d: (d.source_line, d.sink_line, order[d.kind], d.array))


def _nests_by_procedure(program: Program) -> list[tuple[Procedure, list[Loop]]]:
    grouped: dict[int, tuple[Procedure, list[Loop]]] = {}
    for procedure, loop in program_nests(program):
        grouped.setdefault(id(procedure), (procedure, []))[1].append(loop)
    return list(grouped.values())


def dependences(program: Program) -> list[Dependence]:
    """Every nearest flow, anti and output dependence between loop nests, per procedure."""
    result: list[Dependence] = []
    for procedure, nests in _nests_by_procedure(program):
        result.extend(procedure_dependences(procedure, nests))
    return result


_KIND_TEXT = {
    "flow": "read after write: the sink reads what the source wrote",
    "anti": "write after read: the sink overwrites what the source read",
    "output": "write after write: the sink overwrites what the source wrote",
}


def dependences_table(program: Program, ctx: ModelContext) -> Table:
    """Sheet "Dependences": one row per edge between loop nests."""
    ctx.note("Dependences: only the nearest edges are listed (a write is assumed to overwrite "
             "all the data it names); longer dependences follow by transitivity.")
    ctx.note("Dependences are computed through arrays only (array-component pairs; a whole "
             "array overlaps each of its components); scalars carried from one loop to the "
             "next are not listed.")
    for procedure, nests in _nests_by_procedure(program):
        for loop in nests:
            if nest_data(loop).calls:
                # Their array arguments count as read and written (the front end says so
                # where it reads the call): only what they reach otherwise goes unseen.
                ctx.note(f"Dependences: the loop nest at line {loop.line} of "
                         f"'{procedure.name}' calls procedures that are not in the sources; "
                         "data they reach other than through their arguments (module or "
                         "common variables) is not seen.", "warning",
                         loop.file or procedure.file, loop.line)
    columns = [
        Column("procedure", "Procedure", comment="Procedure holding both loop nests."),
        Column("source_line", "Source loop (line)",
               comment="Line of the outermost loop of the nest that must run first."),
        Column("sink_line", "Sink loop (line)",
               comment="Line of the outermost loop of the nest that depends on the source."),
        Column("array", "Array", comment="Array (or array.component) carrying the dependence."),
        Column("kind", "Kind", comment="flow (read after write), anti (write after read) or "
               "output (write after write)."),
        Column("meaning", "Meaning", comment="The kind of dependence in words."),
    ]
    rows = [
        {"procedure": d.procedure, "source_line": d.source_line, "sink_line": d.sink_line,
         "array": d.array, "kind": d.kind, "meaning": _KIND_TEXT[d.kind]}
        for d in dependences(program)
    ]
    return Table("dependences", "Dependences", columns, rows,
                 description="Flow, anti and output dependences between the loop nests of "
                 "each procedure, through the arrays they read and write (nearest edges "
                 "only). Loops without an edge between them may run in any order or fused.")
