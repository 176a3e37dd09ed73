"""State variables, register pressure and spills per loop nest (paper section 3.3.2).

The state variables of a nest are what its innermost iteration keeps reusing: the scalars of
its innermost loop levels and the array elements whose subscripts do not move with the
innermost loop variable (``dxinv(1)``), merged by name.  Each streamed array (one whose
elements change every iteration) also needs one integer register for its base address.
Integer-typed variables and base addresses compete for ``IntRegs``; floating-point ones for
``FPRegs``.  The best allocation keeps the most accessed variables in registers; the others
spill, and each of their accesses becomes an L1 access of ``WordBytes`` bytes.

This counting reproduces the original sheet's "GP Regs"/"FP Regs" columns for
``hypterm-cns-fused.xml``: advance 8 integer scalars + 4 streamed arrays = 12 and 3 doubles;
hypterm 12 integer scalars + 3 streamed arrays = 15 and 17 doubles + ``dxinv(1..3)`` = 20.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from sat.ir import Access, Array, Body, Loop, Program
from sat.model import expr as E
from sat.model.context import ModelContext
from sat.model.nests import program_nests
from sat.model.tables import CellValue, Column, Table

# Datatypes held in general-purpose (integer) registers; everything else is floating point.
_INT_TYPES = ("int", "integer", "logical", "bool", "char", "long", "short", "unsigned",
              "size_t", "ptrdiff_t", "signed")

FP, INT = "FP", "Int"
POOL_PARAMETER = {FP: "FPRegs", INT: "IntRegs"}


def pool_of(datatype: str) -> str:
    """Register pool of a datatype: ``Int`` for integer-like types, ``FP`` otherwise."""
    text = datatype.strip().lower()
    return INT if any(text.startswith(t) for t in _INT_TYPES) else FP


@dataclass
class StateVariable:
    """One state variable of a nest, accesses counted per innermost iteration."""

    name: str
    datatype: str
    pool: str
    reads: int = 0
    writes: int = 0
    base_address: bool = False  # the base-address register of a streamed array

    @property
    def accesses(self) -> int:
        return self.reads + self.writes


def leaf_loops(loop: Loop) -> list[Loop]:
    """The innermost levels of a nest: its loops with no loop below them."""
    return [lp for lp in (loop, *loop.all_loops()) if next(lp.all_loops(), None) is None]


def _arms(body: Body, times: int = 1) -> Iterator[tuple[Body, int]]:
    """A loop level and its branch arms (a leaf loop has no loop below, only branches), with
    the runs of each per iteration (a repeated call written in once runs several times)."""
    yield body, times
    for branch in body.branches:
        yield from _arms(branch, times * branch.times)


def _streamed(access: Access, loopvar: str) -> bool:
    """An access moves every innermost iteration when it depends on the innermost variable."""
    if loopvar:
        return loopvar.lower() in (v.lower() for v in access.loopvars)
    return any(access.loopvars)


def _subscript(offset: int | str, loopvar: str) -> str:
    if not loopvar:
        return str(offset)
    if offset == 0 or offset == "0":
        return loopvar
    text = str(offset)
    return f"{loopvar}{text}" if text.startswith(("-", "+")) else f"{loopvar}+{text}"


def element_name(array: Array, access: Access) -> str:
    """``dxinv(1)``, ``coef(k+1,imx)``: the array element an invariant access names."""
    pairs = zip(access.offsets, access.loopvars, strict=False)
    subscripts = ",".join(_subscript(o, v) for o, v in pairs)
    return f"{array.name}({subscripts})"


def state_variables(loop: Loop) -> list[StateVariable]:
    """State variables of a nest (innermost levels, merged by name), in first-seen order."""
    found: dict[str, StateVariable] = {}

    def get(name: str, datatype: str, pool: str, base: bool = False) -> StateVariable:
        key = name.lower()
        if key not in found:
            found[key] = StateVariable(name, datatype, pool, base_address=base)
        return found[key]

    runs = {id(level): times for level, times in loop.counted_levels()}
    for leaf in leaf_loops(loop):
        for level, times in _arms(leaf, runs[id(leaf)]):
            for scalar in level.scalars:
                var = get(scalar.name, scalar.datatype, pool_of(scalar.datatype))
                var.reads += scalar.reads * times
                var.writes += scalar.writes * times
            for array in level.arrays:
                for access in array.accesses:
                    if _streamed(access, leaf.loopvar):
                        var = get(f"{array.name} (base address)", "address", INT, True)
                    else:
                        var = get(element_name(array, access), array.datatype,
                                  pool_of(array.datatype))
                    var.reads += access.reads * times
                    var.writes += access.writes * times
    return list(found.values())


def register_counts(loop: Loop) -> tuple[int, int]:
    """(general-purpose, floating-point) registers the nest's innermost iteration needs."""
    variables = state_variables(loop)
    return (sum(v.pool == INT for v in variables), sum(v.pool == FP for v in variables))


def ranked(variables: list[StateVariable], pool: str) -> list[StateVariable]:
    """Variables of one pool, most accessed first (ties by name, for a stable order)."""
    return sorted((v for v in variables if v.pool == pool),
                  key=lambda v: (-v.accesses, v.name.lower()))


_COLUMNS = [
    Column("procedure", "Procedure", comment="Procedure holding the loop nest."),
    Column("line", "Line", comment="Line of the nest's outermost loop."),
    Column("row", "Row", comment="'variable' for one state variable, 'nest' for the summary "
           "of one register pool of the nest."),
    Column("variable", "State variable",
           comment="Scalar, loop-invariant array element, or base address of a streamed array."),
    Column("datatype", "Datatype", comment="Declared type ('address' for a base address)."),
    Column("pool", "Register pool", comment="Int (IntRegs) or FP (FPRegs)."),
    Column("reads", "Reads", "per iteration",
           comment="Reads per innermost iteration."),
    Column("writes", "Writes", "per iteration",
           comment="Writes per innermost iteration."),
    Column("accesses", "Accesses", "per iteration",
           comment="Reads plus writes per innermost iteration: the histogram of the chart."),
    Column("rank", "Rank", comment="Position in the pool by accesses (1 = most accessed); "
           "the variables ranked up to the register count get a register."),
    Column("cumulative_pct", "Cumulative accesses", "%", comment="Share of the pool's "
           "accesses served when every variable ranked up to this one has a register.",
           number_format="0.0"),
    Column("in_register", "In register", "1/0",
           comment="1 when the rank is within the register count of the pool."),
    Column("variables", "State variables", comment="Number of state variables in the pool."),
    Column("registers", "Registers", comment="Registers of the pool (IntRegs or FPRegs)."),
    Column("spilled_variables", "Spilled variables",
           comment="MAX(0, state variables - registers)."),
    Column("spilled_accesses", "Spilled accesses", "per iteration",
           comment="Accesses of the variables ranked beyond the register count: L1 accesses."),
    Column("spill_bytes", "Spill traffic to L1", "B/iteration",
           comment="Spilled accesses times WordBytes, per innermost iteration."),
]


def registers_table(program: Program, ctx: ModelContext) -> Table:
    """Sheet "Registers": state variables of every nest, their ranks and the spills."""
    ctx.note("Registers: state variables are the scalars and loop-invariant array elements of "
             "a nest's innermost loop levels (merged by name; all branch arms counted), plus "
             "one integer register per streamed array for its base address; outer-level "
             "loop counters and bounds are not counted, as in the original tool.")
    ctx.note("Registers: the most accessed variables get the registers; each access of a "
             "spilled variable is one L1 access of WordBytes bytes (integers too).")
    word = ctx.param("WordBytes")
    rows: list[dict[str, CellValue]] = []
    for procedure, loop in program_nests(program):
        variables = state_variables(loop)
        if len(leaf_loops(loop)) > 1:
            ctx.note(f"Registers: the nest at line {loop.line} of {procedure.name} has "
                     "several innermost loops; their state variables are merged (an upper "
                     "bound on the registers any one of them needs).", "assumption",
                     loop.file or procedure.file, loop.line)
        for pool in (INT, FP):
            regs = ctx.param(POOL_PARAMETER[pool])
            pool_vars = ranked(variables, pool)
            total = sum(v.accesses for v in pool_vars)
            spilled: list[E.Quantity] = []
            running = 0
            where = (procedure.name, loop.line, pool)
            for rank, var in enumerate(pool_vars, start=1):
                running += var.accesses
                beyond = E.compare(">", rank, regs)
                in_reg = E.Quantity(("registers", *where, var.name, "in_register"),
                                    E.if_(beyond, 0, 1), "1/0")
                spill = E.Quantity(("registers", *where, var.name, "spilled_accesses"),
                                   E.if_(beyond, var.accesses, 0), "per iteration")
                spilled.append(spill)
                rows.append({
                    "procedure": procedure.name, "line": loop.line, "row": "variable",
                    "variable": var.name, "datatype": var.datatype, "pool": pool,
                    "reads": var.reads, "writes": var.writes, "accesses": var.accesses,
                    "rank": rank,
                    "cumulative_pct": 100.0 * running / total if total else 0.0,
                    "in_register": in_reg, "spilled_accesses": spill,
                })
            n = len(pool_vars)
            spilled_total = E.Quantity(("registers", *where, "spilled_accesses"),
                                       E.add(*spilled) if spilled else E.Num(0),
                                       "per iteration")
            rows.append({
                "procedure": procedure.name, "line": loop.line, "row": "nest",
                "variable": f"all {pool} state variables", "pool": pool,
                "reads": sum(v.reads for v in pool_vars),
                "writes": sum(v.writes for v in pool_vars), "accesses": total,
                "variables": n,
                "registers": E.Quantity(("registers", *where, "registers"), regs, ""),
                "spilled_variables": E.Quantity(("registers", *where, "spilled_variables"),
                                                E.maximum(0, n - regs), ""),
                "spilled_accesses": spilled_total,
                "spill_bytes": E.Quantity(("registers", *where, "spill_bytes"),
                                          E.mul(spilled_total, word), "B/iteration"),
            })
    return Table("registers", "Registers", list(_COLUMNS), rows,
                 description="State variables of each loop nest ranked by accesses per "
                 "innermost iteration; with IntRegs / FPRegs registers the top-ranked ones "
                 "stay in registers and the rest spill to L1. Chart: accesses by rank.")
