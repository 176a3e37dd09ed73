"""The ECM model's memory penalty: cycles a core loses per cache line it moves to or from memory.

Kerncraft's machine files carry, for the memory level, ``penalty cycles per cacheline load``
and ``… store``: cycles one core spends per cache line read from or written to memory beyond
the transfer time at the measured bandwidth, fitted from one core's against several cores'
bandwidth (Zen 2: 0.585 and 2.57; ThunderX2: 2.56 per line loaded).  They become
``MemLoadPenaltyCycles`` and ``MemStorePenaltyCycles`` (0 when the file gives none), and per
unit of work

    T_penalty = lines over the memory link per unit × (read streams × MemLoadPenaltyCycles
                + write streams × MemStorePenaltyCycles) / (read + write streams)

the lines shared between reads and writes by the nest's streams over the memory bus (arrays
read, R and RW, plus the read for ownership of each array only written when writes allocate;
arrays written, RW and W), as the memory benchmark's choice counts them
(:mod:`sat.model.hierarchy.ecm`).  The penalty adds to the memory link's transfer in the ECM
prediction, not to the link's own time (the memory interface's saturation ignores it, as
Kerncraft's does).
"""

from __future__ import annotations

from sat.model import expr as E
from sat.model.context import ModelContext
from sat.model.exasat.memory import NestMemory, effective_write_cost
from sat.model.tables import Column
from sat.model.tables import column as _c


def penalty_column() -> Column:
    return _c("t_penalty", "T_penalty", "cycles/unit", "Cycles a core loses per cache line "
              "over the memory link: lines per unit x (read streams x MemLoadPenaltyCycles + "
              "write streams x MemStorePenaltyCycles) / all streams.", "ECM contributions",
              "0.00")


def memory_streams(memory: NestMemory, ctx: ModelContext) -> tuple[E.Expr, E.Expr]:
    """The nest's streams read and written over the memory bus (read-for-ownership counted
    as a read when writes allocate)."""
    numbers = memory.numbers
    word = ctx.param("WordBytes")
    allocates = E.maximum(0, E.minimum(1, E.div(effective_write_cost(ctx), word) - 1))
    reads = E.add(numbers["r_arrays"] + numbers["rw_arrays"],
                  E.mul(numbers["w_arrays"], allocates))
    return reads, E.as_expr(numbers["rw_arrays"] + numbers["w_arrays"])


def memory_penalty(ident: tuple, memory: NestMemory, bytes_per_unit: E.Expr,
                   ctx: ModelContext) -> E.Quantity:
    """``T_penalty`` of one nest (module docstring), in cycles per unit of work."""
    reads, writes = memory_streams(memory, ctx)
    lines = E.div(bytes_per_unit, ctx.param("LineBytes"))
    streams = E.add(reads, writes)
    weighted = E.add(E.mul(reads, ctx.param("MemLoadPenaltyCycles")),
                     E.mul(writes, ctx.param("MemStorePenaltyCycles")))
    return E.Quantity(("ecm", ident, "t_penalty"),
                      E.if_(E.compare(">", streams, 0), E.div(E.mul(lines, weighted), streams),
                            0), "cycles/unit", "memory penalty")
