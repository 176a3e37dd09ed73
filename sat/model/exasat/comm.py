"""Ghost-cell communication: exchange volume, messages and time ``m/b + l`` per array.

A nonlocal array read with non-zero stencil offsets needs its ghost cells filled from the
neighbouring boxes before the procedure runs.  Assumptions (also written to the Notes sheet):
one box per node, the domain decomposed along every dimension the array is swept in, and in
each such dimension two faces exchanged, each ``depth`` cells thick (the largest
``|offset|`` read in that dimension) and as large as the box's other dimensions (the
iteration space of the loops sweeping them).  Edges and corners are not exchanged (a star
stencil needs none).  Each component that is read with offsets travels; all components of
one array share one message per face; an element is the array's ``Bytes_<array>`` parameter's
bytes (:mod:`sat.model.elements`: by default ``WordBytes`` for a double, ``2*WordBytes`` for a
double-precision complex, half of it for a float or an int).  Time: bytes / (NICGBs * 10^9)
+ messages * NICLatencyUs * 10^-6.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from sat.ir import Array, Loop, Procedure, Program
from sat.model import expr as E
from sat.model.context import ModelContext
from sat.model.elements import element_bytes
from sat.model.exasat.occupancy import trip_count, walk
from sat.model.nests import program_nests
from sat.model.tables import CellValue, Column, Table

_AXES = "XYZ"


@dataclass
class GhostExchange:
    """The exchange one array needs before one procedure runs."""

    procedure: str
    line: int  # the first loop nest reading the array with offsets
    array: str
    # component -> dimension -> depth (cells)
    depths: dict[str, dict[int, int]] = field(default_factory=dict)
    extents: dict[int, E.Expr] = field(default_factory=dict)  # dimension -> box extent
    size: E.Expr = field(default_factory=lambda: E.Param("WordBytes"))  # bytes per element

    @property
    def dims(self) -> list[int]:
        """Dimensions exchanged (depth > 0 for some component), in array order."""
        return sorted({d for per_dim in self.depths.values() for d, n in per_dim.items() if n})

    @property
    def messages(self) -> int:
        return 2 * len(self.dims)

    def depth(self, dim: int) -> int:
        return max((per_dim.get(dim, 0) for per_dim in self.depths.values()), default=0)

    def cells(self) -> E.Expr:
        """Ghost cells sent: per component, per exchanged dimension, 2 faces x depth x face."""
        terms: list[E.Expr] = []
        for per_dim in self.depths.values():
            for d, depth in sorted(per_dim.items()):
                if depth:
                    face = [self.extents[e] for e in sorted(self.extents) if e != d]
                    terms.append(E.mul(2 * depth, *face))
        return E.add(*terms) if terms else E.Num(0)


def _ghost_reads(array: Array) -> dict[int, int]:
    """Dimension -> largest |offset| among the reads of an array-component pair."""
    depth: dict[int, int] = {}
    for access in array.accesses:
        if not access.reads:
            continue
        for d, (offset, var) in enumerate(zip(access.offsets, access.loopvars, strict=False)):
            if var and isinstance(offset, int) and offset:
                depth[d] = max(depth.get(d, 0), abs(offset))
    return depth


def _extents(array: Array, chain: tuple[Loop, ...], ctx: ModelContext) -> dict[int, E.Expr]:
    """Box extent of every swept dimension: the trip count of the loop sweeping it."""
    loops = {lp.loopvar.lower(): lp for lp in chain if lp.loopvar}
    extents: dict[int, E.Expr] = {}
    for access in array.accesses:
        for d, var in enumerate(access.loopvars):
            if var and var.lower() in loops and d not in extents:
                extents[d] = trip_count(loops[var.lower()], ctx)
    return extents


def ghost_exchanges(program: Program, ctx: ModelContext) -> list[GhostExchange]:
    """The exchanges of every procedure, one per nonlocal array read with offsets."""
    found: dict[tuple[int, str], GhostExchange] = {}
    procedures: dict[int, Procedure] = {}
    for procedure, nest in program_nests(program):
        procedures[id(procedure)] = procedure
        local = {v.name.lower() for v in procedure.locals}
        for level, chain in walk(nest):
            for array in level.arrays:
                if array.name.lower() in local:
                    continue
                depth = _ghost_reads(array)
                if not any(depth.values()):
                    continue
                key = (id(procedure), array.name.lower())
                if key not in found:
                    found[key] = GhostExchange(procedure.name, nest.line, array.name, size=(
                        element_bytes(ctx, procedure.name, array.name, array.datatype)))
                exchange = found[key]
                per_dim = exchange.depths.setdefault(array.component or array.name, {})
                for d, n in depth.items():
                    per_dim[d] = max(per_dim.get(d, 0), n)
                for d, extent in _extents(array, chain, ctx).items():
                    exchange.extents.setdefault(d, extent)
    return list(found.values())


def _axis(dim: int) -> str:
    return _AXES[dim] if dim < len(_AXES) else f"dim {dim + 1}"


def comm_table(program: Program, ctx: ModelContext, total_time: E.Expr) -> Table:
    """Sheet "Communication": ghost exchanges, volume, bandwidth and latency cost, fraction."""
    ctx.note("Communication: one box per node, decomposed along every dimension an array is "
             "swept in; per exchanged dimension 2 faces of depth = largest |offset| read, "
             "face = the box's other extents (loop iteration space); no edges or corners; "
             "components read with offsets share one message per face; one exchange per "
             "array before each procedure that reads it with offsets. Time = bytes / "
             "(NICGBs * 1e9) + messages * NICLatencyUs * 1e-6.")
    ctx.note("Communication: the original ExaSAT sheet lists only the exchanges named in the "
             "code description (its hypterm example has none, and the totals of its empty "
             "COMM ANALYSIS evaluate to #VALUE!); satreport derives the exchanges from the "
             "stencil offsets of the nonlocal arrays instead.")
    bandwidth = ctx.param("NICGBs")
    latency = ctx.param("NICLatencyUs")
    columns = [
        Column("procedure", "Procedure", comment="Procedure that reads the array with "
               "offsets (the exchange happens before it runs)."),
        Column("line", "Line", comment="First loop nest reading the array with offsets."),
        Column("array", "Array", comment="Nonlocal array whose ghost cells are exchanged."),
        Column("components", "Components", comment="Components read with offsets; each "
               "travels."),
        Column("depth", "Ghost depth", "cells", comment="Largest |offset| read, per "
               "exchanged dimension (X = first array dimension)."),
        Column("extent_x", "X", "cells", comment="Box extent in X: the iteration space of "
               "the loop sweeping it.", band="Iteration space"),
        Column("extent_y", "Y", "cells", comment="Box extent in Y.", band="Iteration space"),
        Column("extent_z", "Z", "cells", comment="Box extent in Z.", band="Iteration space"),
        Column("faces", "Faces", comment="Faces exchanged: 2 per exchanged dimension."),
        Column("volume_mb", "Off-node volume", "MB", comment="Bytes sent per exchange "
               "(10^6 B): faces x depth x face area x components x the array's element size "
               "(its Bytes_ parameter).",
               number_format="0.000"),
        Column("messages", "Messages", comment="One message per face (components packed)."),
        Column("bandwidth_s", "Bandwidth cost", "s", comment="Volume / NIC bandwidth "
               "(m/b).", number_format="0.000E+00"),
        Column("latency_s", "Latency cost", "s", comment="Messages x NIC latency (l).",
               number_format="0.000E+00"),
        Column("total_s", "Total cost", "s", comment="Bandwidth cost plus latency cost.",
               number_format="0.000E+00"),
        Column("fraction_pct", "Fraction of run time", "%", comment="Communication time "
               "as a share of the total (compute and memory) time of the program.",
               number_format="0.00"),
    ]
    rows: list[dict[str, CellValue]] = []
    volumes: list[E.Quantity] = []
    bw_costs: list[E.Quantity] = []
    lat_costs: list[E.Quantity] = []
    totals_s: list[E.Quantity] = []
    message_total = 0
    for ex in ghost_exchanges(program, ctx):
        where = ("comm", ex.procedure, ex.array)
        volume_b = E.mul(ex.cells(), ex.size)
        volume = E.Quantity((*where, "volume_mb"), volume_b / 1e6, "MB")
        bw = E.Quantity((*where, "bandwidth_s"), E.div(volume_b, bandwidth * 1e9), "s")
        lat = E.Quantity((*where, "latency_s"), E.mul(ex.messages, latency, 1e-6), "s")
        total = E.Quantity((*where, "total_s"), E.add(bw, lat), "s")
        row: dict[str, CellValue] = {
            "procedure": ex.procedure, "line": ex.line, "array": ex.array,
            "components": len(ex.depths),
            "depth": ", ".join(f"{_axis(d)} {ex.depth(d)}" for d in ex.dims),
            "faces": ex.messages, "volume_mb": volume, "messages": ex.messages,
            "bandwidth_s": bw, "latency_s": lat, "total_s": total,
            "fraction_pct": E.Quantity((*where, "fraction_pct"),
                                       E.div(total, total_time) * 100, "%"),
        }
        for d, extent in sorted(ex.extents.items()):
            if d < len(_AXES):
                row[f"extent_{_AXES[d].lower()}"] = E.Quantity((*where, f"extent_{d}"),
                                                               extent, "cells")
        rows.append(row)
        volumes.append(volume)
        bw_costs.append(bw)
        lat_costs.append(lat)
        totals_s.append(total)
        message_total += ex.messages

    def total_of(items: list[E.Quantity], key: str, unit: str) -> E.Quantity:
        return E.Quantity(("comm", "total", key), E.add(*items) if items else E.Num(0), unit)

    total_s = total_of(totals_s, "total_s", "s")
    totals: dict[str, CellValue] = {
        "procedure": "Total", "volume_mb": total_of(volumes, "volume_mb", "MB"),
        "messages": message_total, "bandwidth_s": total_of(bw_costs, "bandwidth_s", "s"),
        "latency_s": total_of(lat_costs, "latency_s", "s"), "total_s": total_s,
        "fraction_pct": E.Quantity(("comm", "total", "fraction_pct"),
                                   E.div(total_s, total_time) * 100, "%"),
    }
    return Table("communication", "Communication", columns, rows, totals,
                 description="Ghost-cell exchanges before each procedure: volume from the "
                 "stencil depth, time m/b + l over the NIC bandwidth and latency, and the "
                 "share of the program's run time.")
