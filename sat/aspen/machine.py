"""Machine models: how resources map to time on a socket, and peak rates.

The abstract machine is a tree of components below the ``machine`` component (nodes, sockets,
cores, memories, caches, links, interconnects); a sub-component may come in a number
(``socket [2] x``).  For a chosen socket type the other socket types are left out of every
search, as in Aspen:

* the *serial time* of an amount of a resource is given by the first component, searching from
  the machine downwards in order, that defines the resource: its expression with the argument
  replaced by the amount, then modified by each of the clause's traits that the resource
  defines, in the clause's order (``base`` is the time so far; a trait argument takes the
  clause's trait value);
* the *number of units* of a resource is the product of the counts on the path to that
  component (cores for flops: cores per socket x sockets per node x nodes; memories for loads;
  one interconnect for messages);
* two resources *conflict* when any component in the search declares ``conflict a, b``;
* the *idealized time* (used for peak rates) is the serial time divided by the counts on the
  path, i.e. the time when the whole machine works on the amount.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from sat.aspen import tree as t
from sat.aspen.errors import AspenError
from sat.aspen.expr import Env, num, substitute
from sat.aspen.model import MachineModel
from sat.quoting import quoted


def _skip(comp: t.Component, socket: str | None) -> bool:
    return socket is not None and comp.kind == "socket" and comp.name != socket


def _children(m: MachineModel, comp: t.Component):
    for sc in comp.subcomponents:
        yield sc, m.components[sc.name]


def apply_traits(resource: t.Resource, amount: t.Expr, traits: Sequence[t.Trait],
                 loc: t.Loc | None = None) -> t.Expr:
    """A resource's time for ``amount``, modified by the traits it defines (clause order)."""
    expr = substitute(resource.time, {resource.arg: amount})
    for trait in traits:
        tdef = resource.trait(trait.name)
        if tdef is None:
            continue
        bind = {"base": expr}
        if tdef.arg is not None:
            if trait.arg is None:
                raise AspenError(f"trait '{trait.name}' of resource '{resource.name}' needs a "
                                 f"value, as in '{trait.name}(…)'", trait.loc or loc)
            bind[tdef.arg] = trait.arg
        expr = substitute(tdef.time, bind)
    return expr


def serial_time(m: MachineModel, resource: str, traits: Sequence[t.Trait], amount: t.Expr,
                socket: str | None, loc: t.Loc | None = None) -> t.Expr | None:
    """The time one unit of the machine needs for ``amount`` of ``resource`` (None: no unit)."""
    return _serial(m, m.machine, resource, traits, amount, socket, loc, set())


def _serial(m, comp, resource, traits, amount, socket, loc, seen) -> t.Expr | None:
    if _skip(comp, socket) or comp.name in seen:
        return None
    r = comp.resource(resource)
    if r is not None:
        return apply_traits(r, amount, traits, loc)
    seen = seen | {comp.name}
    for _, child in _children(m, comp):
        found = _serial(m, child, resource, traits, amount, socket, loc, seen)
        if found is not None:
            return found
    return None


def total_quantity(m: MachineModel, resource: str, socket: str | None) -> t.Expr | None:
    """How many units of the machine provide ``resource`` (an expression)."""
    return _quantity(m, m.machine, resource, socket, set())


def _quantity(m, comp, resource, socket, seen) -> t.Expr | None:
    if _skip(comp, socket) or comp.name in seen:
        return None
    if comp.resource(resource) is not None:
        return num(1)
    seen = seen | {comp.name}
    for sc, child in _children(m, comp):
        found = _quantity(m, child, resource, socket, seen)
        if found is not None:
            return found if sc.count is None else t.Binary("*", found, sc.count, sc.loc)
    return None


def idealized_time(m: MachineModel, resource: str, traits: Sequence[t.Trait], amount: t.Expr,
                   socket: str | None) -> t.Expr | None:
    """The time for ``amount`` when every unit of the machine shares it."""
    return _ideal(m, m.machine, resource, traits, amount, socket, set())


def _ideal(m, comp, resource, traits, amount, socket, seen) -> t.Expr | None:
    if _skip(comp, socket) or comp.name in seen:
        return None
    r = comp.resource(resource)
    if r is not None:
        return apply_traits(r, amount, traits)
    seen = seen | {comp.name}
    for sc, child in _children(m, comp):
        found = _ideal(m, child, resource, traits, amount, socket, seen)
        if found is not None:
            return found if sc.count is None else t.Binary("/", found, sc.count, sc.loc)
    return None


def conflicts(m: MachineModel, a: str, b: str, socket: str | None) -> bool:
    """Whether resources ``a`` and ``b`` cannot overlap (``conflict a, b`` somewhere)."""
    return _conflict(m, m.machine, a, b, socket, set())


def _conflict(m, comp, a, b, socket, seen) -> bool:
    if _skip(comp, socket) or comp.name in seen:
        return False
    for c in comp.conflicts:
        if (c.first, c.second) in ((a, b), (b, a)):
            return True
    seen = seen | {comp.name}
    return any(_conflict(m, child, a, b, socket, seen) for _, child in _children(m, comp))


def machine_sockets(m: MachineModel) -> list[str]:
    """The socket types the machine contains (search order); ``m.sockets`` lists every socket
    the files define, as Aspen's tools do."""
    out: list[str] = []

    def walk(comp, seen):
        if comp.name in seen:
            return
        if comp.kind == "socket" and comp.name not in out:
            out.append(comp.name)
        for _, child in _children(m, comp):
            walk(child, seen | {comp.name})

    walk(m.machine, set())
    return out


def check_socket(m: MachineModel, socket: str | None) -> str:
    """The socket to use: ``socket`` if the machine has it, or the machine's only socket."""
    inside = machine_sockets(m)
    if socket is None:
        if len(inside) == 1:
            return inside[0]
        if not inside:
            raise AspenError(f"machine '{m.name}' has no socket")
        raise AspenError(f"machine '{m.name}' has several socket types; choose one of "
                         f"{', '.join(inside)}")
    if socket not in m.components or m.components[socket].kind != "socket":
        raise AspenError(f"machine '{m.name}' has no socket {quoted(socket)} (sockets: "
                         f"{', '.join(m.sockets) or 'none'})")
    return socket


# ----------------------------------------------------------------------------------------------
# Peak rates
# ----------------------------------------------------------------------------------------------

#: The flop kinds Aspen's machine report lists, as trait combinations.
FLOP_KINDS: tuple[tuple[str, ...], ...] = (
    ("sp",), ("sp", "simd"), ("sp", "simd", "fmad"),
    ("dp",), ("dp", "simd"), ("dp", "simd", "fmad"),
)


@dataclass
class PeakRates:
    """Peak rates of one socket type over the whole machine.

    ``flops`` maps ``"sp"``, ``"sp/simd"``, … ``"dp/simd/fmad"`` to flop/s; ``bandwidth`` is
    the memory bandwidth in bytes/s (``loads``, latency included, as Aspen measures it on 1e9
    bytes); ``cores`` the number of units that execute flops.
    """

    socket: str
    cores: float
    flops: dict[str, float]
    bandwidth: float | None


def peak_rates(m: MachineModel, socket: str | None = None,
               params: Mapping[str, float | t.Expr] | None = None) -> PeakRates:
    socket = check_socket(m, socket)
    env = Env(m.params, overrides=params)
    amount = num(1e9)
    cores_expr = total_quantity(m, "flops", socket)
    if cores_expr is None:
        raise AspenError(f"socket '{socket}' has no resource 'flops'")
    flops = {}
    for kind in FLOP_KINDS:
        traits = tuple(t.Trait(name) for name in kind)
        time = idealized_time(m, "flops", traits, amount, socket)
        assert time is not None
        flops["/".join(kind)] = 1e9 / env.eval(time)
    bw_time = idealized_time(m, "loads", (), amount, socket)
    bandwidth = None if bw_time is None else 1e9 / env.eval(bw_time)
    return PeakRates(socket, env.eval(cores_expr), flops, bandwidth)
