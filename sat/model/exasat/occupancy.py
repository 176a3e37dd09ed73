"""Occupancy (liveness) of arrays across the loop nests of each procedure, and the footprint.

For every procedure, the array-component pairs its loop nests use (rows) against its nests in
program order (columns).  A cell is ``R`` (read), ``W`` (written), ``RW`` (read, then written),
``WR`` (written, then read), ``L`` (live: not used by this nest, but used before and after it,
so it stays in memory) or blank (not resident).  Per array: how many nests read and write it,
the elements read and written per procedure call, the read/write ratio and the write access
rate (its share of all element writes of the program), the two NVRAM metrics of the paper.
Per nest: arrays read, written and live, and the footprint of the live arrays.

The memory footprint is the sum of the sizes of the distinct arrays, each element its array's
``Bytes_<array>`` parameter's bytes (:mod:`sat.model.elements`; by default ``WordBytes`` for a
double, ``2*WordBytes`` for a double-precision complex, half of it for a float or an int):
the declared shape when the code description has one, otherwise the extent of the loops that
sweep each dimension plus the span of the stencil offsets (the ghost cells).
"""

from __future__ import annotations

import weakref
from collections.abc import Iterator
from dataclasses import dataclass, field

from sat.ir import Array, Body, Loop, Procedure, Program, Variable, element_words
from sat.model import expr as E
from sat.model.context import ExpressionError, ModelContext
from sat.model.elements import element_bytes
from sat.model.exasat import iteration
from sat.model.nests import program_nests
from sat.model.tables import CellValue, Column, Table
from sat.regex import LazyPattern

GIB = 2**30
_NAME = LazyPattern(r"(?<![\w.])([A-Za-z_]\w*)")
R, W, RW, WR, LIVE = "R", "W", "RW", "WR", "L"


def trip_count(loop: Loop, ctx: ModelContext) -> E.Expr:
    """Iterations of one loop level; one, with a warning, when its bounds cannot be modelled."""
    try:
        return iteration.trip_count(loop, ctx)
    except ExpressionError:
        ctx.note(f"loop at line {loop.line}: cannot model its bounds "
                 f"({loop.lower} .. {loop.upper} step {loop.stride}); one iteration assumed",
                 "warning", loop.file, loop.line)
        return E.Num(1)


def walk(body: Body, chain: tuple[Loop, ...] = ()) -> Iterator[tuple[Body, tuple[Loop, ...]]]:
    """Every level below ``body`` with the loops enclosing it (itself included when a loop)."""
    if isinstance(body, Loop):
        chain = (*chain, body)
    yield body, chain
    for loop in body.loops:
        yield from walk(loop, chain)
    for branch in body.branches:
        yield from walk(branch, chain)


def _component_dim(array: Array) -> int | None:
    """The dimension whose subscript selects the component (``q(i,j,k,qu)`` -> 3)."""
    if not array.component:
        return None
    for access in array.accesses:
        for d, (offset, var) in enumerate(zip(access.offsets, access.loopvars, strict=False)):
            if not var and str(offset).lower() == array.component.lower():
                return d
    return None


@dataclass
class ArrayUse:
    """One array-component pair of a procedure: its use in each nest and its size."""

    name: str
    component: str
    display: str
    local: bool
    cells: dict[int, str] = field(default_factory=dict)  # nest line -> R/W/RW/WR/L
    reads: list[E.Expr] = field(default_factory=list)  # element reads, per level
    writes: list[E.Expr] = field(default_factory=list)
    extents: dict[int, list[E.Expr]] = field(default_factory=dict)  # dim -> candidates
    streamed: bool = False
    component_dim: int | None = None
    size: E.Quantity | None = None  # cells of this pair (component slice)
    element_reads: E.Quantity | None = None
    element_writes: E.Quantity | None = None
    words: float = 1  # words of WordBytes per element (sat.ir.element_words)
    datatype: str = ""  # declared type of the elements
    element: E.Expr = field(default_factory=lambda: E.Param("WordBytes"))  # bytes per element


@dataclass
class ProcedureOccupancy:
    """The arrays a procedure's nests touch and their sizes."""

    procedure: Procedure
    nests: list[Loop]
    arrays: list[ArrayUse]
    array_sizes: dict[str, E.Quantity]  # distinct array name -> cells (all components)
    footprint_gib: E.Quantity | None = None
    array_words: dict[str, int] = field(default_factory=dict)  # name -> words per element
    array_bytes: dict[str, E.Expr] = field(default_factory=dict)  # name -> bytes per element

    def size_in_bytes(self, name: str) -> E.Expr:
        """Size of a distinct array in bytes: its cells times its element size."""
        return E.mul(self.array_sizes[name], self.array_bytes[name])


@dataclass
class Analysis:
    """Every procedure's occupancy, the program's footprint and its total writes."""

    procedures: list[ProcedureOccupancy]
    footprint_gib: E.Quantity
    total_writes: E.Quantity


def _first_is_write(array: Array) -> bool:
    return (array.accesstype == "writeread" or array.firstaccess == "store"
            or (array.writes > 0 and array.reads == 0))


def procedure_variables(procedure: Procedure) -> dict[str, Variable]:
    return {v.name.lower(): v for v in (*procedure.nonlocals, *procedure.locals)}


def declared_size(variable: Variable | None, ctx: ModelContext,
                  skip: int | None = None) -> E.Expr | None:
    """Product of the declared extents (``lo:hi`` -> ``hi - lo + 1``), or None if unknown."""
    if variable is None or not variable.shape:
        return None
    factors: list[E.Expr] = []
    for d, text in enumerate(variable.shape):
        text = text.strip()
        if d == skip:
            continue
        if text in ("", ":", "*") or text.endswith(":") or text.endswith("*"):
            return None
        try:
            if ":" in text:
                lower, upper = text.split(":", 1)
                factors.append(ctx.expr(upper, "upper") - ctx.expr(lower, "lower") + 1)
            else:
                factors.append(ctx.expr(text, "upper"))
        except ExpressionError:
            return None
    return E.mul(*factors) if factors else E.Num(1)


def _record(use: ArrayUse, array: Array, chain: tuple[Loop, ...], ctx: ModelContext,
            computed: set[str], times: int = 1) -> None:
    """Add one level's accesses of a pair: dynamic counts and extent candidates (``times``:
    runs of the level per run of its loops, a repeated call written in once).

    A subscript over a name in ``computed`` (the code's own values: a loop variable of the
    procedure, a scalar the nest assigns, as ``i = nx - 2`` before ``rhs(m,i,j,k)`` on a
    boundary plane) is no candidate: that name is no problem size to ask a value of."""
    trips = E.mul(*(trip_count(lp, ctx) for lp in chain), times) if chain else E.Num(times)
    if array.reads:
        use.reads.append(E.mul(array.reads, trips))
    if array.writes:
        use.writes.append(E.mul(array.writes, trips))
    loops = {lp.loopvar.lower(): lp for lp in chain if lp.loopvar}
    spans: dict[int, list[int]] = {}
    for access in array.accesses:
        for d, (offset, var) in enumerate(zip(access.offsets, access.loopvars, strict=False)):
            if var:
                use.streamed = True
                if isinstance(offset, int):
                    spans.setdefault(d, []).append(offset)
                    use.extents.setdefault(d, [])
                continue
            if d == use.component_dim or (isinstance(offset, str) and computed.intersection(
                    name.lower() for name in _NAME.findall(offset))):
                continue
            try:
                candidate = (E.Num(max(offset, 1)) if isinstance(offset, int)
                             else ctx.expr(offset, "upper", opaque=False))
            except ExpressionError:
                continue
            if candidate not in use.extents.setdefault(d, []):
                use.extents[d].append(candidate)
    for access in array.accesses:
        for d, var in enumerate(access.loopvars):
            if var and var.lower() in loops and d in spans:
                span = max(spans[d]) - min(spans[d])
                candidate = trip_count(loops[var.lower()], ctx) + span
                if candidate not in use.extents[d]:
                    use.extents[d].append(candidate)


def _analyse_procedure(procedure: Procedure, nests: list[Loop],
                       ctx: ModelContext) -> ProcedureOccupancy:
    declared = procedure_variables(procedure)
    local_names = {v.name.lower() for v in procedure.locals}
    uses: dict[tuple[str, str], ArrayUse] = {}
    loopvars = {lp.loopvar.lower() for lp in procedure.all_loops() if lp.loopvar}
    for nest in nests:
        computed = loopvars | {scalar.name.lower() for body in nest.levels()
                               for scalar in body.scalars if scalar.writes}
        firsts: dict[tuple[str, str], bool] = {}
        touched: dict[tuple[str, str], tuple[bool, bool]] = {}
        runs = {id(level): times for level, times in nest.counted_levels()}
        for level, chain in walk(nest):
            for array in level.arrays:
                key = (array.name.lower(), array.component.lower())
                if key not in uses:
                    uses[key] = ArrayUse(array.name, array.component, array.key,
                                         key[0] in local_names,
                                         component_dim=_component_dim(array),
                                         datatype=array.datatype)
                use = uses[key]
                use.words = max(use.words, element_words(array.datatype))
                if use.component_dim is None:
                    use.component_dim = _component_dim(array)
                _record(use, array, chain, ctx, computed, runs[id(level)])
                firsts.setdefault(key, _first_is_write(array))
                read, written = touched.get(key, (False, False))
                touched[key] = (read or array.reads > 0, written or array.writes > 0)
        for key, (read, written) in touched.items():
            if read and written:
                cell = WR if firsts[key] else RW
            else:
                cell = R if read else W
            if read or written:
                uses[key].cells[nest.line] = cell
    arrays = [u for u in uses.values() if u.streamed and u.cells]
    for use in arrays:
        use.element = element_bytes(ctx, procedure.name, use.name, use.datatype)
    skipped = sorted({u.display for u in uses.values() if not u.streamed})
    if skipped:
        ctx.note(f"Occupancy of {procedure.name}: {', '.join(skipped)} indexed only by "
                 "constants, treated as state variables (Registers sheet), not as arrays.")
    lines = [n.line for n in nests]
    for use in arrays:  # live: resident between its first and last use
        used = [i for i, line in enumerate(lines) if line in use.cells]
        for i in range(used[0] + 1, used[-1]):
            use.cells.setdefault(lines[i], LIVE)
    arrays.sort(key=lambda u: (u.name.lower(), u.component.lower()))

    array_sizes: dict[str, E.Quantity] = {}
    array_words: dict[str, int] = {}
    array_bytes: dict[str, E.Expr] = {}
    estimated: list[str] = []
    by_name: dict[str, list[ArrayUse]] = {}
    for use in arrays:
        by_name.setdefault(use.name.lower(), []).append(use)
    for lname, group in by_name.items():
        variable = declared.get(lname)
        full = declared_size(variable, ctx)
        for use in group:
            where = ("occupancy", procedure.name, use.display)
            sliced = declared_size(variable, ctx, use.component_dim) if full else None
            if sliced is None:
                dims = sorted(use.extents)
                sliced = E.mul(*(E.maximum(*use.extents[d]) for d in dims
                                 if use.extents[d])) if dims else E.Num(1)
            use.size = E.Quantity((*where, "cells"), sliced, "cells")
            use.element_reads = E.Quantity((*where, "element_reads"),
                                           E.add(*use.reads) if use.reads else E.Num(0))
            use.element_writes = E.Quantity((*where, "element_writes"),
                                            E.add(*use.writes) if use.writes else E.Num(0))
        if full is None:
            estimated.append(group[0].name)
            full = E.add(*(use.size for use in group))
        array_sizes[lname] = E.Quantity(("occupancy", procedure.name, group[0].name, "size"),
                                        full, "cells")
        array_words[lname] = max(use.words for use in group)
        array_bytes[lname] = group[0].element
    if estimated:
        ctx.note(f"Footprint of {procedure.name}: no declared shape for "
                 f"{', '.join(sorted(estimated))}; each array is sized from the loops that "
                 "sweep it plus the span of its stencil offsets (ghost cells), one component "
                 "per array-component pair used.")
    return ProcedureOccupancy(procedure, nests, arrays, array_sizes, array_words=array_words,
                              array_bytes=array_bytes)


_CACHE: weakref.WeakKeyDictionary[ModelContext, tuple[int, Analysis]] = (
    weakref.WeakKeyDictionary())


def analyse(program: Program, ctx: ModelContext) -> Analysis:
    """Occupancy of every procedure and the program footprint (built once per context)."""
    cached = _CACHE.get(ctx)
    if cached and cached[0] == id(program):
        return cached[1]
    grouped: dict[int, tuple[Procedure, list[Loop]]] = {}
    for procedure, loop in program_nests(program):
        grouped.setdefault(id(procedure), (procedure, []))[1].append(loop)
    procedures = [_analyse_procedure(p, nests, ctx) for p, nests in grouped.values()]
    shared: dict[str, list[E.Expr]] = {}
    local_totals: list[E.Expr] = []
    for occ in procedures:
        sizes = {name: occ.size_in_bytes(name) for name in occ.array_sizes}
        occ.footprint_gib = E.Quantity(
            ("occupancy", occ.procedure.name, "footprint_gib"),
            (E.add(*sizes.values()) if sizes else E.Num(0)) / GIB,
            "GiB")
        local_names = [name for name in sizes
                       if any(u.local for u in occ.arrays if u.name.lower() == name)]
        for name, size in sizes.items():
            if name not in local_names:
                shared.setdefault(name, []).append(size)
        if local_names:
            local_totals.append(E.add(*(sizes[name] for name in local_names)))
    data = E.add(*(E.maximum(*sizes) for sizes in shared.values()),
                 E.maximum(*local_totals) if local_totals else 0)
    ctx.note("Footprint: every array takes its element size (its Bytes_ parameter, by default "
             "the declared type's words x WordBytes) per element; nonlocal arrays with "
             "the same name in different procedures are the same data (counted once, "
             "at the largest size seen); local arrays exist only while their procedure "
             "runs (the largest procedure's locals are counted); each procedure's nests "
             "run once per call.")
    if any(occ.array_words.get(name, 1) > 1 for occ in procedures for name in occ.array_words):
        ctx.note("Complex data: a double-precision complex element is two words (2*WordBytes "
                 "bytes) in the working sets, cache lines, traffic (twice the read, read-write "
                 "or write cost, which are per word), footprint and ghost-cell volumes.")
    total = E.Quantity(("occupancy", "footprint_gib"), data / GIB, "GiB",
                       "memory footprint of the program")
    writes = [u.element_writes for occ in procedures for u in occ.arrays]
    total_writes = E.Quantity(("occupancy", "element_writes"),
                              E.add(*writes) if writes else E.Num(0), "elements")
    analysis = Analysis(procedures, total, total_writes)
    _CACHE[ctx] = (id(program), analysis)
    return analysis


def footprint(program: Program, ctx: ModelContext) -> E.Quantity:
    """Memory footprint of the program in GiB (2^30 bytes): the defined name Footprint_GiB."""
    return analyse(program, ctx).footprint_gib


def data_bytes(program: Program, ctx: ModelContext) -> dict[str, E.Quantity]:
    """The bytes of each distinct array (lower-case name), as the footprint counts it: the
    largest size seen in the procedures that use it (its element size per element)."""
    sizes: dict[str, list[E.Expr]] = {}
    for occ in analyse(program, ctx).procedures:
        for name in occ.array_sizes:
            sizes.setdefault(name, []).append(occ.size_in_bytes(name))
    return {name: E.Quantity(("data", name, "bytes"), E.maximum(*each), "B",
                             f"bytes of {name}")
            for name, each in sizes.items()}


def _loop_key(procedure: Procedure, loop: Loop) -> str:
    return f"loop_{procedure.name}_{loop.line}"


def occupancy_table(program: Program, ctx: ModelContext) -> Table:
    """Sheet "Occupancy": arrays x loop nests (R, W, RW, WR, L), counts, NVRAM metrics, sizes."""
    analysis = analyse(program, ctx)
    columns = [
        Column("procedure", "Procedure", comment="Procedure whose loop nests are the columns."),
        Column("array", "Array", comment="Array-component pair (name.component), or the "
               "summary the row holds."),
    ]
    for occ in analysis.procedures:
        for loop in occ.nests:
            columns.append(Column(
                _loop_key(occ.procedure, loop), f"{occ.procedure.name} {loop.line}",
                comment=f"Loop nest at line {loop.line} of {occ.procedure.name}: R read, W "
                "written, RW read then written, WR written then read, L live (kept in memory "
                "between uses), blank not resident.", band="Loop nests"))
    columns += [
        Column("nests_read", "Nests reading", comment="Loop nests of the procedure that read "
               "the array (R, RW or WR)."),
        Column("nests_written", "Nests writing", comment="Loop nests of the procedure that "
               "write the array (W, RW or WR)."),
        Column("element_reads", "Elements read", "elements", comment="Element reads per "
               "procedure call: reads per iteration times iterations, summed over the nests.",
               number_format="0"),
        Column("element_writes", "Elements written", "elements", comment="Element writes per "
               "procedure call.", number_format="0"),
        Column("read_write_ratio", "Read/write ratio", comment="Elements read per element "
               "written ('read-only' when never written): high ratios suit NVRAM.",
               number_format="0.00"),
        Column("write_access_rate_pct", "Write access rate", "%", comment="Share of all "
               "element writes of the program that go to this array: low rates suit NVRAM.",
               number_format="0.000"),
        Column("size_gib", "Size", "GiB", comment="Memory of this array-component pair "
               "(its element size, the Bytes_ parameter, per element); on "
               "summary rows, the footprint.",
               number_format="0.000000"),
    ]
    rows: list[dict[str, CellValue]] = []
    for occ in analysis.procedures:
        name = occ.procedure.name
        for use in occ.arrays:
            row: dict[str, CellValue] = {"procedure": name, "array": use.display}
            for loop in occ.nests:
                row[_loop_key(occ.procedure, loop)] = use.cells.get(loop.line, "")
            cells = list(use.cells.values())
            row["nests_read"] = sum(c in (R, RW, WR) for c in cells)
            row["nests_written"] = sum(c in (W, RW, WR) for c in cells)
            where = ("occupancy", name, use.display)
            row["element_reads"] = use.element_reads
            row["element_writes"] = use.element_writes
            row["read_write_ratio"] = (
                E.Quantity((*where, "read_write_ratio"),
                           E.div(use.element_reads, use.element_writes))
                if use.writes else "read-only")
            row["write_access_rate_pct"] = E.Quantity(
                (*where, "write_access_rate_pct"),
                E.div(use.element_writes, analysis.total_writes) * 100, "%")
            row["size_gib"] = E.Quantity((*where, "size_gib"),
                                         E.mul(use.size, use.element) / GIB,
                                         "GiB")
            rows.append(row)
        summaries = {"Arrays read": (R, RW, WR), "Arrays written": (W, RW, WR),
                     "Arrays live": (R, W, RW, WR, LIVE)}
        for label, kinds in summaries.items():
            row = {"procedure": name, "array": label}
            for loop in occ.nests:
                row[_loop_key(occ.procedure, loop)] = sum(
                    u.cells.get(loop.line) in kinds for u in occ.arrays)
            rows.append(row)
        row = {"procedure": name, "array": "Live footprint (GiB)"}
        for loop in occ.nests:
            live = [E.mul(u.size, u.element) for u in occ.arrays if loop.line in u.cells]
            row[_loop_key(occ.procedure, loop)] = E.Quantity(
                ("occupancy", name, loop.line, "live_gib"),
                (E.add(*live) if live else E.Num(0)) / GIB, "GiB")
        rows.append(row)
        rows.append({"procedure": name, "array": "Footprint", "size_gib": occ.footprint_gib})
    totals: dict[str, CellValue] = {"procedure": "Total", "array": "Footprint (program)",
                                    "size_gib": analysis.footprint_gib}
    return Table("occupancy", "Occupancy", columns, rows, totals,
                 description="Liveness of every array across the loop nests of each "
                 "procedure (R read, W written, RW read then written, WR written then read, "
                 "L live), the arrays resident per nest, the NVRAM metrics per array and "
                 "the memory footprint.")
