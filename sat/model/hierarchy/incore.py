"""The ECM model's in-core part: a port model of one unit of work, from the flop and access counts.

Per unit of work (one cache line of iterations, ``LineBytes / WordBytes``), the nest's
innermost body becomes instructions by class, each a live formula of the machine's port
parameters (:mod:`sat.parameters.levels`):

- the innermost loop is **vectorised** when it steps along the contiguous dimension of an
  array it touches and carries no array element from one iteration to the next (an array
  element written and read at another offset along it, an element written and read that does
  not move with it) and no scalar recurrence; a scalar reduction such as ``s += a[i]*b[i]``
  does not stop it, see below.  The per-nest switch ``Vectorised_<procedure>_<line>``
  (TRUE/FALSE) holds that default and can be turned off (or on) in the workbook or with
  ``--set``.  A vectorised instruction works on
  ``VectorBytes / WordBytes`` elements, a scalar one on one;
- arithmetic: fused multiply-adds are ``MIN(adds, multiplies)`` per iteration when the core
  has ``FMAPorts`` (the front ends count operations, not which product feeds which sum: this
  is the most a compiler can fuse), the other additions and multiplications apart; divisions
  keep the divider ``DivCycles`` each; a special function (``exp``, ``sqrt``, …) costs
  ``SpecialCost`` additions' worth of floating-point issue, as ExaSAT counts it;
- loads: one per distinct cell of each array read (each neighbour offset is a load, aligned
  or not); stores: one per array written.  A load of ``w`` bytes takes ``MAX(1, w /
  LoadBytes)`` cycles of a load port (``LoadsPerCycle`` ports), a store ``MAX(1, w /
  StoreBytes)`` of a store port; every load and store needs an address: each load's on its
  own port, all of them on ``AGUsPerCycle`` address units.

- integer work: the loop's own instructions, ``LoopOverheadOps`` per iteration of the (vector)
  loop (counter increment, compare and branch; the compiler does not unroll), and
  ``LoadAddressOps`` per load (address arithmetic the addressing mode does not cover: Arm's
  register-offset loads on ThunderX2) run on ``IntPorts`` integer ports, ``SharedIntPorts`` of
  which also serve the floating-point instructions: ``t_int`` = the larger of the integer
  instructions over ``IntPorts`` and of integer and floating-point instructions together over
  the ports serving either (``IntPorts + FPPorts - SharedIntPorts``);
- a reduction (a scalar carried from one iteration to the next, ``s += a[i]*b[i]``) is a
  loop-carried chain: each update of the scalar waits for the previous one's add,
  ``AddLatency`` cycles.  A compiler that may reassociate (``FastMath``: ``-Ofast``,
  ``-ffast-math``) keeps one partial sum per vector lane and per accumulator (``Accumulators``;
  gcc keeps one vector of partial sums), so ``t_chain`` = updates per iteration × unit ×
  ``AddLatency`` / (elements × ``Accumulators``); one that may not adds element after element
  in source order (gcc still vectorises the loads and the other arithmetic, then adds the
  lanes one by one: an in-order reduction), ``t_chain`` = updates × unit × ``AddLatency``, and
  those adds are scalar instructions (not fused); when the chain's adds are the nest's only
  arithmetic, the elements are loaded one by one into them.  A scalar carried only through
  other scalars (Kahan's compensated sum: ``t = sum + y``, ``c = (t - sum) - y``, ``sum =
  t``) is a recurrence compilers do not vectorise: the loop stays scalar, and its chain is the
  longest cycle of assignments back to it (copies adding nothing; each assignment one add,
  so Kahan's four dependent operations count three).  A chain of
  fused multiply-adds takes the FMA's latency where it exceeds the add's (Haswell: 5 against
  3), which ``AddLatency`` can be set to.

The cycles per unit of each resource (``t_fp``, divider, integer ports, load ports, store
ports, address units, the reduction's chain) are combined as the ECM model's two in-core
contributions: ``T_OL`` = the largest of the arithmetic, the integer ports, the chain and of
the store ports and address units when they overlap with transfers (``StoresOverlap``,
``AGUsOverlap``); ``T_nOL`` = the largest of the load ports and of those that do not overlap.
This is the shape of Kerncraft's ECM with OSACA as in-core model (the largest port pressure
among its files' overlapping and non-overlapping ports, or the loop-carried dependence when
longer), computed from the source instead of compiled assembly.
"""

from __future__ import annotations

from dataclasses import dataclass

from sat.ir import Body, Loop, Procedure
from sat.model import expr as E
from sat.model.context import ModelContext
from sat.model.exasat.iteration import NestShape
from sat.model.exasat.memory import NestMemory
from sat.model.irregular.idioms import carried_scalars
from sat.model.tables import CellValue, Column
from sat.model.tables import column as _c
from sat.parameter import symbol_to_name

PER_UNIT = "per unit"
INSTRUCTIONS = ("add", "mul", "fma", "div", "special", "load", "store", "int")


def incore_columns() -> list[Column]:
    band = "In core"
    return [
        _c("vectorised", "Vectorised", "0/1", "The nest's Vectorised_ switch (1: TRUE): the "
           "innermost loop runs vector instructions (default: it steps along an array's "
           "contiguous dimension and carries nothing from one iteration to the next).", band),
        _c("vector_elements", "Elements", "per instruction", "Elements one instruction works "
           "on: VectorBytes / WordBytes when vectorised, else 1.", band),
        _c("loads_per_iteration", "Loads", "per iteration", "Elements loaded per iteration: "
           "one per distinct cell of the arrays read.", band),
        _c("stores_per_iteration", "Stores", "per iteration", "Elements stored per "
           "iteration: one per array written.", band),
        *[_c(f"{kind}_instructions", kind.upper() if kind == "fma" else kind.capitalize(),
             PER_UNIT, f"{_WHAT[kind]} instructions per unit of work.", band, "0.00")
          for kind in INSTRUCTIONS],
        _c("t_fp", "T_fp", "cycles/unit", "Floating-point issue: the largest of add / "
           "AddPorts, multiply / MulPorts, FMA / FMAPorts and (add + multiply + FMA + special x "
           "SpecialCost) / FPPorts; the divider: divides x DivCycles.", band, "0.00"),
        _c("t_load", "T_load", "cycles/unit", "Load ports: loads x MAX(1, vector bytes / "
           "LoadBytes) / LoadsPerCycle.", band, "0.00"),
        _c("t_store", "T_store", "cycles/unit", "Store ports: stores x MAX(1, vector bytes / "
           "StoreBytes) / StoresPerCycle.", band, "0.00"),
        _c("t_agu", "T_agu", "cycles/unit", "Address units: the larger of the loads' addresses "
           "on their ports and every load's and store's address over AGUsPerCycle.", band,
           "0.00"),
        _c("t_int", "T_int", "cycles/unit", "Integer ports: the larger of the integer "
           "instructions / IntPorts and of integer and floating-point instructions / (IntPorts "
           "+ FPPorts - SharedIntPorts).", band, "0.00"),
        _c("chain_updates", "Chain", "per iteration", "Updates per iteration of the scalar a "
           "reduction carries from one iteration to the next (0: no reduction).", band),
        _c("t_chain", "T_chain", "cycles/unit", "The reduction's loop-carried chain: updates x "
           "unit x AddLatency / (elements x Accumulators when FastMath, else 1).", band,
           "0.00"),
    ]


_WHAT = {"add": "Vector additions and subtractions (not fused)", "mul": "Vector "
         "multiplications (not fused)", "fma": "Fused multiply-add", "div": "Division",
         "special": "Special-function (exp, log, sqrt, ...)", "load": "Load", "store": "Store",
         "int": "Integer (loop overhead and address arithmetic)"}


@dataclass
class InCore:
    """One nest's in-core quantities: its ECM-sheet cells and the two contributions."""

    row: dict[str, CellValue]
    t_ol: E.Quantity
    t_nol: E.Quantity


def _innermost(loop: Loop) -> list[Loop]:
    """The loops with no loop inside them (through branch arms too)."""
    inner: list[Loop] = []
    stack: list[Body] = [loop]
    while stack:
        body = stack.pop()
        stack.extend(body.branches)
        stack.extend(body.loops)
        if isinstance(body, Loop) and not any(True for _ in _loops_below(body)):
            inner.append(body)
    return inner


def _loops_below(body: Body):
    stack: list[Body] = list(body.branches)
    yield from body.loops
    while stack:
        arm = stack.pop()
        yield from arm.loops
        stack.extend(arm.branches)


def vectorisable(procedure: Procedure, loop: Loop) -> tuple[bool, str]:
    """Whether compilers vectorise the innermost loops of ``loop``, and why not."""
    contiguous = 0 if procedure.layout == "column-major" else -1
    for inner in _innermost(loop):
        var = inner.loopvar
        accesses = [(array, access) for body in inner.arms() for array in body.arrays
                    for access in array.accesses]
        if not any(access.loopvars and access.loopvars[contiguous] == var
                   for _, access in accesses):
            return False, f"the loop over {var or '?'} steps along no array's contiguous " \
                "dimension"
        written = {(a.name, a.component) for a, x in accesses if x.writes}
        for key in sorted(written):
            mine = [x for a, x in accesses if (a.name, a.component) == key]
            if any(x.reads for x in mine) and any(var not in x.loopvars for x in mine):
                return False, f"{key[0]} is read and written at an element that does not " \
                    f"move with {var}"
            offsets = {x.offsets[x.loopvars.index(var)] for x in mine if var in x.loopvars}
            if len(offsets) > 1:
                return False, f"{key[0]} is written and read at other offsets along {var}"
        recurrences = _Recurrence(inner).through_others()
        if recurrences:
            verb = "carries" if len(recurrences) == 1 else "carry"
            return False, f"{', '.join(recurrences)} {verb} a value from one iteration to " \
                "the next through other scalars (a recurrence, not a reduction)"
    return True, ""


def chain_updates(loop: Loop) -> int:
    """Assignments on the longest loop-carried dependence chain of the innermost loops of
    ``loop`` (0 when none carries a value from one iteration to the next)."""
    return max((_Recurrence(inner).longest() for inner in _innermost(loop)), default=0)


class _Recurrence:
    """The scalars an innermost loop writes, each with the names it is computed from, and the
    dependence cycles through the ones it carries from one iteration to the next.

    A carried scalar computed from itself (``s = s + a[i]*b[i]``) is a reduction: one
    assignment per update on its chain.  One computed only through others (Kahan's ``sum = t``,
    ``t = sum + y``) is a recurrence: its chain is the longest cycle of assignments back to it,
    a plain copy (``sum = t``) adding no latency.  Each assignment counts as one operation."""

    _BUDGET = 10_000  # steps of the cycle search: a body with very many scalars stops early

    def __init__(self, inner: Loop) -> None:
        self.carried = carried_scalars(inner)
        self.sources: dict[str, set[str]] = {}
        self.writes: dict[str, int] = {}
        for body in inner.arms():
            for scalar in body.scalars:
                if scalar.writes:
                    self.sources.setdefault(scalar.name, set()).update(scalar.sources)
                    self.writes[scalar.name] = self.writes.get(scalar.name, 0) + scalar.writes

    def through_others(self) -> list[str]:
        return [name for name in self.carried
                if self.sources.get(name) and name not in self.sources[name]]

    def _weight(self, name: str) -> int:
        deps = self.sources.get(name, set())
        copy = len(deps) == 1 and name not in deps and next(iter(deps)) in self.sources
        return 0 if copy else self.writes.get(name, 1)

    def longest(self) -> int:
        best, steps = 0, 0
        for start in self.carried:
            longest = self._weight(start) if start in self.sources.get(start, set()) else 0
            stack = [(start, self._weight(start), frozenset((start,)))]
            while stack and steps < self._BUDGET:
                steps += 1
                name, weight, seen = stack.pop()
                for source in self.sources.get(name, ()):
                    if source == start:
                        longest = max(longest, weight)
                    elif source in self.sources and source not in seen:
                        stack.append((source, weight + self._weight(source), seen | {source}))
            best = max(best, longest, self.writes.get(start, 1))
        return best


def vectorised_parameter(ctx: ModelContext, shape: NestShape) -> E.Param:
    """The nest's ``Vectorised_<procedure>_<line>`` switch, created with its default."""
    name = f"Vectorised_{symbol_to_name(shape.procedure.name)}_{shape.loop.line}"
    if name in ctx.params:
        return E.Param(name)
    default, why = vectorisable(shape.procedure, shape.loop)
    return ctx.switch(name, f"TRUE: the innermost loop of the nest at {shape.file}:"
                      f"{shape.loop.line} runs vector instructions (ECM in-core model).",
                      default, "default: no array element carried from one iteration to the "
                      "next along a contiguous dimension", "boolean", f"default: {why}")


def nest_incore(shape: NestShape, memory: NestMemory, flops: dict[str, CellValue],
                unit: E.Expr, ctx: ModelContext) -> InCore:
    """The port model of one nest (module docstring), per unit of work."""
    ident = shape.ident

    def quantity(name: str, expr: E.Expr, qunit: str, label: str) -> E.Quantity:
        return E.Quantity(("ecm", ident, name), expr, qunit, label)

    p = ctx.param
    vectorised = quantity("vectorised", vectorised_parameter(ctx, shape), "", "vectorised")
    elements = quantity("vector_elements", E.if_(E.Ref(vectorised), p("VectorBytes")
                                                 / p("WordBytes"), 1), "per instruction",
                        "elements per instruction")
    loads = quantity("loads_per_iteration", E.add(*[
        E.mul(a.counts.cells, a.copies) for a in memory.arrays if a.kind in ("R", "RW")]),
        "per iteration", "elements loaded per iteration")
    stores = quantity("stores_per_iteration", E.add(*[
        a.copies for a in memory.arrays if a.kind != "R"]), "per iteration",
        "elements stored per iteration")
    adds, muls = E.as_expr(flops["adds"]), E.as_expr(flops["multiplies"])
    updates = chain_updates(shape.loop)
    chain = quantity("chain_updates", E.as_expr(updates), "per iteration", "reduction updates per "
                     "iteration")
    fast_math = p("FastMath")
    # in source order (no FastMath) the chain's adds are scalar and cannot fuse
    in_order = E.if_(fast_math, 0, E.Ref(chain))
    vector_adds = E.add(adds, E.mul(-1, in_order))
    fused = E.if_(E.compare(">", p("FMAPorts"), 0), E.minimum(vector_adds, muls), 0)
    per_iteration = {"add": E.add(vector_adds, E.mul(-1, fused)),
                     "mul": E.add(muls, E.mul(-1, fused)),
                     "fma": fused, "div": E.as_expr(flops["divides"]),
                     "special": E.as_expr(flops["specials"]), "load": E.Ref(loads),
                     "store": E.Ref(stores)}
    per_instruction = E.div(unit, E.Ref(elements))
    iterations = {kind: per_instruction for kind in per_iteration}
    load_elements: E.Expr = E.Ref(elements)
    if updates:
        # an in-order chain that is the nest's only arithmetic adds elements loaded one by one
        arithmetic = E.add(adds, muls, E.as_expr(flops["divides"]),
                           E.as_expr(flops["specials"]))
        plain = E.compare("=", arithmetic, E.Ref(chain))
        load_elements = E.if_(fast_math, E.Ref(elements), E.if_(plain, 1, E.Ref(elements)))
        iterations["load"] = E.div(unit, load_elements)
    count = {kind: quantity(f"{kind}_instructions", E.mul(per_iteration[kind], iterations[kind]),
                            PER_UNIT, f"{kind} instructions per unit")
             for kind in INSTRUCTIONS if kind != "int"}
    if updates:
        count["add"] = quantity("add_instructions", E.add(
            E.mul(per_iteration["add"], per_instruction), E.mul(in_order, unit)), PER_UNIT,
            "add instructions per unit")
    count["int"] = quantity("int_instructions", E.add(
        E.mul(p("LoopOverheadOps"), per_instruction),
        E.mul(p("LoadAddressOps"), E.Ref(count["load"]))), PER_UNIT,
        "integer instructions per unit")
    issue = E.add(count["add"], count["mul"], count["fma"],
                  E.mul(count["special"], p("SpecialCost")))
    t_fp = quantity("t_fp", E.maximum(
        E.div(count["add"], p("AddPorts")), E.div(count["mul"], p("MulPorts")),
        E.div(count["fma"], p("FMAPorts")), E.div(issue, p("FPPorts")),
        E.mul(count["div"], p("DivCycles"))), "cycles/unit", "floating-point cycles")
    width = E.mul(E.Ref(elements), p("WordBytes"))
    load_uops = E.mul(count["load"], E.maximum(1, E.div(E.mul(load_elements, p("WordBytes")),
                                                        p("LoadBytes"))))
    store_uops = E.mul(count["store"], E.maximum(1, E.div(width, p("StoreBytes"))))
    t_load = quantity("t_load", E.div(load_uops, p("LoadsPerCycle")), "cycles/unit",
                      "load-port cycles")
    t_store = quantity("t_store", E.div(store_uops, p("StoresPerCycle")), "cycles/unit",
                       "store-port cycles")
    t_agu = quantity("t_agu", E.maximum(E.Ref(t_load), E.div(E.add(load_uops, store_uops),
                                                              p("AGUsPerCycle"))),
                     "cycles/unit", "address-unit cycles")
    t_int = quantity("t_int", E.maximum(
        E.div(count["int"], p("IntPorts")),
        E.div(E.add(count["int"], issue), E.add(p("IntPorts"), p("FPPorts"),
                                                E.mul(-1, p("SharedIntPorts"))))),
        "cycles/unit", "integer-port cycles")
    lanes = E.if_(fast_math, E.mul(E.Ref(elements), p("Accumulators")), 1)
    t_chain = quantity("t_chain", E.div(E.mul(E.Ref(chain), unit, p("AddLatency")), lanes),
                       "cycles/unit", "reduction chain cycles")
    stores_overlap, agus_overlap = p("StoresOverlap"), p("AGUsOverlap")
    t_ol = quantity("t_ol", E.maximum(t_fp, t_int, t_chain, E.if_(stores_overlap, t_store, 0),
                                      E.if_(agus_overlap, t_agu, 0)), "cycles/unit", "T_OL")
    t_nol = quantity("t_nol", E.maximum(t_load, E.if_(stores_overlap, 0, t_store),
                                        E.if_(agus_overlap, 0, t_agu)), "cycles/unit", "T_nOL")
    row: dict[str, CellValue] = {
        "vectorised": vectorised, "vector_elements": elements, "loads_per_iteration": loads,
        "stores_per_iteration": stores,
        **{f"{kind}_instructions": count[kind] for kind in INSTRUCTIONS},
        "t_fp": t_fp, "t_load": t_load, "t_store": t_store, "t_agu": t_agu, "t_int": t_int,
        "chain_updates": chain, "t_chain": t_chain}
    return InCore(row, t_ol, t_nol)
