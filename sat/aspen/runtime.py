"""Runtime of an application model on a machine model (one socket type), as Aspen predicts it.

An execute block ``execute [p] { … }`` takes, for each clause, ``ceil(p / units) * serial``:
``units`` is how many components of the machine provide the clause's resource (cores for
flops, memories for loads and stores, the interconnect for messages, …) and ``serial`` the
resource's time for the clause's amount with its traits (see :mod:`sat.aspen.machine`).  The
clauses of one resource add up.  Resources that conflict (``conflict loads, stores``) add up
too; what is left overlaps, so the block takes the maximum.  The control flow combines blocks
as for resource counts (:mod:`sat.aspen.evaluate`): sums for sequences, ``seq`` and ``par``,
``n *`` for ``iterate [n]`` and ``map [n]``, the expectation for ``probability``.  Aspen's
runtime tool stops on ``if``; here an ``if`` (and a ``switch``) is decided by its condition.

Names in the resulting expressions resolve in the application model first, then in the machine
model (Aspen's order).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from sat.aspen import tree as t
from sat.aspen.errors import AspenError
from sat.aspen.evaluate import Flow
from sat.aspen.expr import Env, num, substitute
from sat.aspen.machine import (
    check_socket,
    conflicts,
    idealized_time,
    serial_time,
    total_quantity,
)
from sat.aspen.model import AppModel, MachineModel


def combined_env(app: AppModel, machine: MachineModel,
                 params: Mapping[str, float | t.Expr] | None = None) -> Env:
    return Env(app.params, machine.params, overrides=params)


def time_leaf(machine: MachineModel, socket: str):
    """The time expression of one execute block on ``socket``."""

    def leaf(ex: t.Execute, bind: Mapping[str, t.Expr]) -> t.Expr | None:
        if not ex.clauses:
            return None
        par = substitute(ex.parallelism, bind) if ex.parallelism is not None else num(1)
        per_resource: dict[str, t.Expr] = {}
        for c in ex.clauses:
            amount = substitute(c.amount, bind)
            traits = tuple(t.Trait(tr.name, substitute(tr.arg, bind) if tr.arg else None,
                                   tr.loc) for tr in c.traits)
            serial = serial_time(machine, c.resource, traits, amount, socket, c.loc)
            units = total_quantity(machine, c.resource, socket)
            if serial is None or units is None:
                raise AspenError(f"machine '{machine.name}' has no resource '{c.resource}' "
                                 f"for socket '{socket}'", c.loc)
            depth = t.FuncCall("ceil", (t.Binary("/", par, units, c.loc),), c.loc)
            time = t.Binary("*", depth, serial, c.loc)
            prev = per_resource.get(c.resource)
            per_resource[c.resource] = time if prev is None else t.Binary("+", prev, time, c.loc)
        return _fold(machine, socket, per_resource, ex.loc)

    return leaf


def _fold(machine: MachineModel, socket: str, times: dict[str, t.Expr], loc: t.Loc) -> t.Expr:
    """Add up the times of conflicting resources; the rest overlap (maximum).

    The grouping follows Aspen's: a resource joins the first group holding a resource it
    conflicts with; otherwise the first conflicting pair (by name) starts a new group.
    """
    single = dict(sorted(times.items()))
    groups: list[tuple[list[str], t.Expr]] = []
    changed = True
    while changed:
        changed = False
        for res in list(single):
            for gi, (members, expr) in sorted(enumerate(groups), key=lambda g: sorted(g[1][0])):
                if any(conflicts(machine, res, other, socket) for other in members):
                    groups[gi] = (members + [res], t.Binary("+", expr, single.pop(res), loc))
                    changed = True
                    break
            if changed:
                break
        if changed:
            continue
        names = list(single)
        for a in names:
            for b in names:
                if a != b and conflicts(machine, a, b, socket):
                    groups.append(([a, b], t.Binary("+", single.pop(a), single.pop(b), loc)))
                    changed = True
                    break
            if changed:
                break
    parts = list(single.values()) + [expr for _, expr in sorted(groups,
                                                                  key=lambda g: sorted(g[0]))]
    out = parts[0]
    for part in parts[1:]:
        out = t.FuncCall("max", (out, part), loc)
    return out


def runtime_expression(app: AppModel, machine: MachineModel, socket: str | None = None,
                       kernel: str = "main", env: Env | None = None) -> t.Expr:
    """The runtime of ``kernel`` on ``socket`` as an expression over both models' parameters."""
    socket = check_socket(machine, socket)
    env = env or combined_env(app, machine)
    k = app.main if kernel == "main" else app.kernel(kernel)
    return Flow(app, env, time_leaf(machine, socket)).kernel(k) or num(0)


@dataclass
class Runtime:
    """Predicted seconds: ``total`` for ``main``, ``kernels`` for each kernel that can be
    evaluated on its own (``errors`` says why the others cannot).  A model without ``main``
    has no program to time: ``total`` is None and ``kernels`` is the answer (Aspen's runtime
    tool then iterates across the kernels: the model's own, then the imported ones)."""

    socket: str
    total: float | None
    kernels: dict[str, float] = field(default_factory=dict)
    errors: dict[str, str] = field(default_factory=dict)


def runtime(app: AppModel, machine: MachineModel, socket: str | None = None,
            params: Mapping[str, float | t.Expr] | None = None,
            kernels: bool = True) -> Runtime:
    """Predict the runtime of the application's ``main`` kernel (and of each kernel, in the
    order of ``app.kernels``; a model without ``main``: of each kernel only, whatever
    ``kernels`` says)."""
    socket = check_socket(machine, socket)
    env = combined_env(app, machine, params)
    flow = Flow(app, env, time_leaf(machine, socket))
    total = None
    if app.has_main:
        main = flow.kernel(app.main)
        total = 0.0 if main is None else env.eval(main)
    result = Runtime(socket, total)
    if kernels or total is None:
        for name, k in app.kernels.items():
            try:
                expr = flow.kernel(k)
                result.kernels[name] = 0.0 if expr is None else env.eval(expr)
            except AspenError as err:
                result.errors[name] = str(err)
    return result


def data_transfer_time(app: AppModel, machine: MachineModel, socket: str | None = None,
                       kernel: str = "main",
                       params: Mapping[str, float | t.Expr] | None = None) -> float | None:
    """Seconds to move a kernel's data (its inclusive data set) over the socket's link
    (``intracomm``) with the whole machine sharing the transfer, as Aspen's combined report
    gives it; None when the socket has no link or the data set cannot be sized."""
    from sat.aspen.evaluate import data_set_expression

    socket = check_socket(machine, socket)
    size = data_set_expression(app, kernel)
    if size is None:
        return None
    expr = idealized_time(machine, "intracomm", (), size, socket)
    if expr is None:
        return None
    return combined_env(app, machine, params).eval(expr)
