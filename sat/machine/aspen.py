"""Aspen abstract machine models as machines (``satreport code.f90 -m keeneland.aspen``).

An Aspen machine model (:mod:`sat.aspen`) is a tree of components (machine, nodes, sockets,
cores, memories, caches, links, interconnects) whose resources (``flops``, ``loads``,
``messages``, …) map an amount to seconds, modified by traits (``dp``, ``simd``, ``fmad``,
``sin``).  A node may hold several socket types (Keeneland: two Xeon X5660 and three Tesla
M2090), so one is chosen, ``--socket NAME`` (:func:`load_machine`'s ``socket``); without it
the machine's first socket type is used and a note names it and the others.

satreport describes **one socket** of that type, as it does for Kerncraft's files and its own
built-in machines: a node of Keeneland mixes two kinds of processor, and each GPU has a memory
of its own, so a socket is the unit whose cores share one memory and work on one problem.
Everything is evaluated with Aspen's own rules and the model's parameter values (a parameter
with a range takes its value, not its bounds), the same way as :func:`sat.aspen.peak_rates`:

* ``Cores``: the units that execute ``flops`` inside one socket: the product of the counts on
  the path from the socket to the component that defines ``flops``, found as Aspen finds it
  (the first component, searching downwards in order): ``core [fNumCores] fermiCore`` → 16.
* ``GflopsPerCore``: one such unit's peak double-precision rate, the highest of Aspen's three
  (flops ``as dp``; ``as dp, simd``; ``as dp, simd, fmad``): 10⁹ / the unit's time for 10⁹
  flops with those traits.  It is ``peak_rates(…).flops["dp/simd/fmad"] / peak_rates(…).cores``
  (the machine's peak over its flop units); nvidia_m2090: 1.3 GHz / 2 (dp) × 32 (simd) × 2
  (fmad) = 41.6 Gflop/s, 665.6 Gflop/s per socket.
* ``GBsPerCore``: Aspen's peak memory bandwidth, the rate of ``loads`` of 10⁹ bytes with their
  latency over the whole machine (``peak_rates(…).bandwidth``), divided by the machine's flop
  units (``peak_rates(…).cores``): with the memory inside the socket, the socket's memory
  bandwidth / ``Cores``; with a memory outside it (in the node), the socket's share of it.
* ``CacheKB``: the capacity per core of the socket's cache: its ``property capacity`` (bytes;
  Aspen's ``kilo``, ``mega`` are 10³, 10⁶) × its instances in the socket / ``Cores`` / 1024.
  Aspen places a cache in a component, so a cache of the socket is shared by all its cores and
  one of a core is private (a model that puts a per-core scratchpad in the socket, as
  nvidia_m2090 does with Fermi's 48 kB of shared memory per multiprocessor, gets a 16th of it
  per core: ``--set CacheKB=…`` to say otherwise).  With several caches, the one with the most
  capacity per core.  Without a cache with a capacity: 64 KiB, and a note.
* ``LineBytes``: that cache's ``property cacheline``, else 64 B and a note.
* Memory levels: only when the socket has exactly one cache and it gives its capacity and its
  line: ExaSAT's single ``on-chip`` level (size, line, shared by ``Cores`` / instances cores,
  bandwidth from ``property bandwidth`` if given), then ``memory`` (shared by ``Cores``,
  bandwidth ``GBsPerCore × Cores``).  Otherwise none: Aspen does not order several caches nor
  say how they relate (inclusive, victim, …).
* ``ClockGHz`` (:attr:`Machine.core`): Aspen has no clock property; the clock is the one
  parameter whose name contains ``clock`` (any case) that the time of the ``flops`` resource
  depends on, directly or through other parameters (``wmIssueRate = wmCoreClock * 2`` →
  ``wmCoreClock``), in Hz.  ``FlopsPerCycle`` = ``GflopsPerCore`` / ``ClockGHz``.  No such
  parameter, several, or a value outside 1 MHz – 100 GHz: no clock, and a note.
* ``SpecialCost``: the factor of the ``sin`` trait of the ``flops`` resource, time of flops
  ``as dp, sin`` / time ``as dp`` (``sin [base * 18]`` → 18 flop-equivalents); without a
  ``sin`` trait, the default.
* ``Overlap``: 0 when a component of the socket's search declares ``conflict loads, flops``
  (or ``stores, flops``): Aspen then adds the times of computation and memory traffic, which
  is ExaSAT's Overlap 0; else 1 (Aspen overlaps resources that do not conflict: the larger
  time counts).
* ``NICGBs``, ``NICLatencyUs``: from the first component that defines ``messages`` (the
  machine's interconnect): the latency is the time of an empty message, the bandwidth 10⁹ B /
  (time of a 10⁹-byte message − latency).  No interconnect: the defaults, and a note.
* ``WordBytes``, ``IntRegs``, ``FPRegs``, ``DivCost``, ``ReadCost``, ``ReadWriteCost``,
  ``WriteCost``: Aspen machine models do not give them; the exascale node's values, said in
  one note.  The cost parameters (power, prices, …) take their defaults too.

What the model says and satreport does not use (``static``/``dynamic power``, resources such as
``stores``, ``intops``, ``intracomm``, properties such as a memory's ``capacity`` or a cache's
``latency``) is listed in one note.

A value that cannot be derived (a resource the socket lacks, an expression that fails, a
result that is zero, negative or not finite) takes the default and a note says why; it never
stops the run.  What stops it, with one line (``file:line:col: …`` when the place is known):
a file Aspen cannot read (syntax error, undefined include), an application model, a file
without a ``machine`` component or socket, an unknown socket (the line lists the sockets).
Each value's source says where it came from, e.g. ``Aspen machine keeneland.aspen, socket
nvidia_m2090: peak dp/simd/fmad flops 665.6 Gflop/s / 16 cores``.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from pathlib import Path

from sat.aspen import tree as t
from sat.aspen.errors import AspenError
from sat.aspen.expr import Env, names, num
from sat.aspen.machine import (
    FLOP_KINDS,
    conflicts,
    idealized_time,
    machine_sockets,
    serial_time,
    total_quantity,
)
from sat.aspen.model import MachineModel, load_machine_model
from sat.aspen.parser import parse_file
from sat.machine.levels import MEMORY, ON_CHIP, CoreThroughput, MemoryLevel
from sat.machine.spec import MACHINE_SPECS, Machine, MachineError, checked_hierarchy
from sat.quoting import quoted

_SPECS = {spec.name: spec for spec in MACHINE_SPECS}
_BILLION = 1e9
_CACHE_PROPERTIES = ("capacity", "cacheline", "bandwidth")  # what a cache gives
_CLOCK_HZ = (1e6, 1e11)  # a clock parameter outside this range is not taken for a clock in Hz
# What the model failed to give, evaluating an expression or walking the tree.
_FAILURES = (AspenError, RecursionError, ArithmeticError, ValueError, KeyError)


class _Missing(Exception):
    """A value that cannot be derived from the model: the reason, for the note."""


def load_aspen_machine(path: Path, display: str, socket: str | None = None) -> Machine:
    """A :class:`Machine` for one socket type of an Aspen machine model (module docstring)."""
    model = _read(path, display)
    try:
        return _load(model, path, display, socket)
    except RecursionError:
        raise MachineError(f"{display}: components nested too deeply to be read") from None


def _load(model: MachineModel, path: Path, display: str, socket: str | None) -> Machine:
    inside = machine_sockets(model)
    machine_name = model.machine.name
    if not inside:
        raise MachineError(f"{display}: machine '{machine_name}' has no socket (a node needs "
                           "'socket [n] name' with cores, a memory, …)")
    notes = [f"{x} (satreport reads it anyway)" for x in model.leniencies]
    if socket is None:
        socket = inside[0]
        others = (f"the others: {', '.join(inside[1:])}; choose one with --socket"
                  if len(inside) > 1 else "its only socket type")
        notes.append(f"{display}: no socket chosen: {socket} is modelled, the machine's first "
                     f"socket type ({others})")
    elif socket not in inside:
        raise MachineError(f"{display}: machine '{machine_name}' has no socket {quoted(socket)} "
                           f"(sockets: {', '.join(inside)})")
    return _Mapping(model, display, socket, notes).machine(path)


def _read(path: Path, display: str) -> MachineModel:
    """The machine model, every failure as a one-line :class:`MachineError`."""
    try:
        parsed = parse_file(path)
        if parsed.models:
            first = parsed.models[0]
            raise MachineError(f"{first.loc}: '{first.name}' is an Aspen application model, not "
                               "a machine model: -m needs a file with a 'machine' component")
        model = load_machine_model(path)
        if model.machine_name is None:
            kinds = sorted({comp.kind for comp in model.components.values()})
            found = f" (it defines {', '.join(kinds)} components only)" if kinds else ""
            raise MachineError(f"{display}: no 'machine' component{found}: -m needs a machine "
                               "model such as 'machine Name { node [n] nodeName }'")
    except AspenError as exc:
        raise MachineError(str(exc)) from None
    except RecursionError:
        raise MachineError(f"{display}: nested too deeply to be read") from None
    return model


class _Mapping:
    """The mapping of one socket type of ``model`` onto satreport's machine parameters."""

    def __init__(self, model: MachineModel, display: str, socket: str, notes: list[str]):
        self.model = model
        self.display = display
        self.socket = socket
        self.notes = notes
        self.env = Env(model.params)
        self.origin = f"Aspen machine {display}, socket {socket}"
        self.values: dict[str, tuple[float, str]] = {}
        self.core = CoreThroughput()
        self.noted: set[str] = set()  # parameters a note already says are defaults

    # ------------------------------------------------------------------ helpers

    def eval(self, expr: t.Expr | None, what: str) -> float:
        """``expr``'s value; a failure or a value that is not finite raises :class:`_Missing`."""
        if expr is None:
            raise _Missing(f"{what}: not given")
        try:
            value = self.env.eval(expr)
        except _FAILURES as exc:
            raise _Missing(f"{what}: {exc}") from None
        if not math.isfinite(value):
            raise _Missing(f"{what} is not a finite number ({value:g})")
        return value

    def missing(self, names_: str, reason: str) -> None:
        """A note: ``names_`` (comma-separated parameters) take the exascale node's values."""
        self.noted.update(names_.split(", "))
        taken = ", ".join(f"{_SPECS[name].name} {_SPECS[name].default:g}"
                          f"{_unit(_SPECS[name].unit)}" for name in names_.split(", "))
        self.notes.append(f"{self.display}: socket {self.socket}: {reason}: the exascale node's "
                          f"{taken} assumed")

    def children(self, comp: t.Component) -> Iterator[tuple[t.SubComponent, t.Component]]:
        for sub in comp.subcomponents:
            child = self.model.components.get(sub.name)
            if child is not None:
                yield sub, child

    def path(self, resource: str) -> list[tuple[t.SubComponent | None, t.Component]] | None:
        """The components from the machine down to the first that defines ``resource``, in
        Aspen's search order (other socket types left out), each with the sub-component
        statement that brought it in; ``None`` when no component defines it."""

        def walk(comp: t.Component, seen: frozenset[str]):
            if comp.name in seen or (comp.kind == "socket" and comp.name != self.socket):
                return None
            if comp.resource(resource) is not None:
                return []
            for sub, child in self.children(comp):
                found = walk(child, seen | {comp.name})
                if found is not None:
                    return [(sub, child), *found]
            return None

        found = walk(self.model.machine, frozenset())
        return None if found is None else [(None, self.model.machine), *found]

    def count(self, steps: list[tuple[t.SubComponent | None, t.Component]], what: str) -> float:
        """The product of the counts of ``steps`` (a sub-component without a count is one)."""
        total = 1.0
        for sub, _comp in steps:
            if sub is not None and sub.count is not None:
                total *= self.eval(sub.count, what)
        return total

    def socket_index(self, steps: list[tuple[t.SubComponent | None, t.Component]]) -> int | None:
        return next((i for i, (_sub, comp) in enumerate(steps)
                     if comp.kind == "socket" and comp.name == self.socket), None)

    def flop_rate(self, traits: tuple[str, ...]) -> float:
        """Flop/s of one unit that executes flops, with ``traits``."""
        time = serial_time(self.model, "flops", tuple(t.Trait(n) for n in traits), num(1e9),
                           self.socket)
        seconds = self.eval(time, f"time of 1e9 flops as {', '.join(traits) or 'plain'}")
        if seconds <= 0:
            raise _Missing(f"the time of 1e9 flops as {', '.join(traits)} is {seconds:g} s")
        return 1e9 / seconds

    # ------------------------------------------------------------------ the mapping

    def machine(self, path: Path) -> Machine:
        cores = self.compute()
        levels = self.memory(cores)
        self.network()
        self.overlap()
        quiet = {"WordBytes", "IntRegs", "FPRegs", "DivCost", "ReadCost", "ReadWriteCost",
                 "WriteCost"}  # never in an Aspen model: one note for them all
        unexplained = [spec.name for spec in MACHINE_SPECS if spec.name not in self.values
                       and spec.name not in quiet | self.noted]
        if unexplained:
            self.missing(", ".join(unexplained), "not derived from the model")
        defaulted = [spec for spec in MACHINE_SPECS if spec.name not in self.values]
        for spec in defaulted:
            self.values[spec.name] = (spec.default, "default")
        listed = ", ".join(f"{spec.name} {spec.default:g}{_unit(spec.unit)}"
                           for spec in defaulted if spec.name in quiet)
        if listed:
            self.notes.append(f"{self.display}: an Aspen machine model does not give these, the "
                              f"exascale node's values are assumed: {listed}")
        self.notes.extend(self.unused())
        values = {spec.name: self.values[spec.name] for spec in MACHINE_SPECS}
        for level in levels:
            if level.line_bytes is None:
                level.line_bytes = values["LineBytes"][0]
        checked_hierarchy(levels, self.display)
        description = (f"{self.model.machine.name}, socket {self.socket} "
                       "(Aspen machine model)")
        return Machine(f"{path.stem}:{self.socket}", description, self.display, values, levels,
                       list(dict.fromkeys(self.notes)), self.core)

    def compute(self) -> float | None:
        """Cores, GflopsPerCore, ClockGHz and SpecialCost; the socket's cores (or ``None``)."""
        steps = self.path("flops")
        index = None if steps is None else self.socket_index(steps)
        if steps is None or index is None:
            where = ("no component defines the resource 'flops'" if steps is None else
                     f"the resource 'flops' is defined by {steps[-1][1].kind} "
                     f"{steps[-1][1].name}, outside the socket")
            self.missing("Cores, GflopsPerCore, SpecialCost", where)
            self.notes.append(f"{self.display}: socket {self.socket}: no core clock (ClockGHz): "
                              f"{where}")
            return None
        unit = steps[-1][1]
        counted = " × ".join(f"{sub.kind} [{_text(sub.count)}] {sub.name}"
                             for sub, _comp in steps[index + 1:] if sub is not None) or \
            "the socket itself defines flops"
        cores: float | None = None
        try:
            cores = self.count(steps[index + 1:], "the number of cores")
            if cores <= 0:
                raise _Missing(f"{counted} = {cores:g} cores")
            self.values["Cores"] = (cores, f"{self.origin}: {counted} = {cores:g}")
        except _Missing as exc:
            self.missing("Cores", str(exc))
            cores = None
        rates: dict[str, float] = {}
        try:
            rates = {"/".join(kind): self.flop_rate(kind) for kind in FLOP_KINDS
                     if kind[0] == "dp"}
        except _Missing as exc:
            self.missing("GflopsPerCore", str(exc))
        gflops = None
        if rates:
            best = max(rates, key=rates.__getitem__)
            gflops = rates[best] / _BILLION
            how = (f"{gflops * cores:g} Gflop/s / {_cores(cores)}" if cores is not None else
                   f"{gflops:g} Gflop/s for one {unit.kind} {unit.name}")
            self.values["GflopsPerCore"] = (gflops, f"{self.origin}: peak {best} flops {how}")
        self.clock(unit, gflops)
        self.special(unit, rates.get("dp"))
        return cores

    def clock(self, unit: t.Component, gflops: float | None) -> None:
        resource = unit.resource("flops")
        assert resource is not None
        seen: set[str] = set()
        pending = names(resource.time) - {resource.arg}
        while pending:
            name = pending.pop()
            definition = self.model.params.get(name)
            if name in seen or definition is None:
                continue
            seen.add(name)
            for expr in (definition.value, *(definition.array or ()),
                         *(x for row in definition.table or () for x in row)):
                if expr is not None:
                    pending |= names(expr)
        clocks = sorted(name for name in seen if "clock" in name.lower())
        where = f"the time of {unit.kind} {unit.name}'s flops"
        if len(clocks) != 1:
            said = (f"several parameters could be the clock ({', '.join(clocks)})" if clocks
                    else f"no parameter named …clock… in {where}")
            self.notes.append(f"{self.display}: socket {self.socket}: no core clock "
                              f"(ClockGHz): {said}")
            return
        try:
            hertz = self.eval(t.Name(clocks[0]), f"parameter {clocks[0]}")
        except _Missing as exc:
            self.notes.append(f"{self.display}: socket {self.socket}: no core clock: {exc}")
            return
        if not _CLOCK_HZ[0] <= hertz <= _CLOCK_HZ[1]:
            self.notes.append(f"{self.display}: socket {self.socket}: parameter {clocks[0]} = "
                              f"{hertz:g} is not a clock in Hz (1 MHz to 100 GHz): no ClockGHz")
            return
        ghz = hertz / _BILLION
        self.core.clock_ghz = ghz
        self.core.sources["clock_ghz"] = (f"{self.origin}: parameter {clocks[0]} = {ghz:g} GHz, "
                                          f"on which {where} depends")
        if gflops is not None:
            self.core.flops_per_cycle = gflops / ghz
            self.core.sources["flops_per_cycle"] = (f"{self.origin}: GflopsPerCore {gflops:g} / "
                                                    f"clock {ghz:g} GHz")

    def special(self, unit: t.Component, dp_rate: float | None) -> None:
        resource = unit.resource("flops")
        assert resource is not None
        if resource.trait("sin") is None:
            self.missing("SpecialCost", f"{unit.kind} {unit.name}'s flops have no 'sin' trait")
            return
        if dp_rate is None:
            self.missing("SpecialCost", "the 'sin' trait is relative to the rate of flops as dp, "
                         "which is not known")
            return
        try:
            factor = dp_rate / self.flop_rate(("dp", "sin"))
        except _Missing as exc:
            self.missing("SpecialCost", str(exc))
            return
        if not factor > 0:
            self.missing("SpecialCost", f"the 'sin' trait gives a factor of {factor:g}")
            return
        self.values["SpecialCost"] = (factor, f"{self.origin}: flops as dp, sin take {factor:g} "
                                      f"times as long as flops as dp ({unit.kind} {unit.name}, "
                                      "trait sin)")

    def memory(self, cores: float | None) -> list[MemoryLevel]:
        """GBsPerCore, CacheKB, LineBytes and the levels (none unless one cache is described)."""
        socket_gbs = None
        memory_name = ""
        if cores is None:
            self.missing("GBsPerCore", "the bandwidth per core needs the cores")
        else:
            try:
                socket_gbs, memory_name = self.bandwidth(cores)
            except _Missing as exc:
                self.missing("GBsPerCore", str(exc))
        caches = self.caches()
        described = [cache for cache in caches if cache[2] is not None]
        if cores is None or not described:
            unsized = ", ".join(dict.fromkeys(cache[0].name for cache in caches))
            reason = ("the capacity per core needs the cores" if cores is None and described else
                      "the socket has no cache with a capacity" if not caches else
                      f"no capacity for cache {unsized}")
            self.missing("CacheKB, LineBytes", reason)
            return []
        comp, instances, capacity, line = max(described, key=lambda c: c[2] * c[1])
        kib = capacity * instances / cores / 1024
        shared = f"{instances:g} per socket" if instances != 1 else "one per socket"
        self.values["CacheKB"] = (kib, f"{self.origin}: cache {comp.name} {capacity:,.0f} B "
                                  f"({shared}) / {_cores(cores)} / 1024")
        if line is None:
            self.missing("LineBytes", f"cache {comp.name} gives no line size (property "
                         "cacheline), so no memory levels either")
            return []
        self.values["LineBytes"] = (line, f"{self.origin}: cache {comp.name}, property "
                                    f"cacheline {line:g}")
        if len(caches) != 1:
            self.notes.append(f"{self.display}: socket {self.socket}: no memory levels: Aspen "
                              f"does not order the socket's {len(caches)} caches nor say how "
                              "they relate; the model is ExaSAT's single cache (CacheKB)")
            return []
        bandwidth = None
        prop = _property(comp, "bandwidth")
        if prop is not None:
            try:
                bandwidth = self.eval(prop, f"cache {comp.name}'s bandwidth") / _BILLION
            except _Missing:
                bandwidth = None
        source = f"{self.origin}: cache {comp.name}, capacity {capacity:,.0f} B, {shared}"
        levels = [MemoryLevel(ON_CHIP, capacity / 1024, line, cores / instances,
                              bandwidth if bandwidth and bandwidth > 0 else None, source)]
        if socket_gbs is not None:
            levels.append(MemoryLevel(MEMORY, None, line, cores, socket_gbs,
                                      f"{self.origin}: {memory_name}, the socket's share"))
        return levels

    def bandwidth(self, cores: float) -> tuple[float, str]:
        """The socket's peak memory bandwidth (GB/s, as :func:`sat.aspen.peak_rates`), the
        memory's name; sets ``GBsPerCore``."""
        steps = self.path("loads")
        if steps is None:
            raise _Missing("no component defines the resource 'loads' (memory reads)")
        ideal = idealized_time(self.model, "loads", (), num(1e9), self.socket)
        seconds = self.eval(ideal, "the time of loads of 1e9 bytes")
        units = self.eval(total_quantity(self.model, "flops", self.socket), "the flop units")
        if seconds <= 0 or units <= 0:
            raise _Missing(f"loads of 1e9 bytes take {seconds:g} s on {units:g} flop units")
        per_core = 1e9 / seconds / units / _BILLION
        memory = steps[-1][1]
        name = f"{memory.kind} {memory.name}"
        self.values["GBsPerCore"] = (per_core, f"{self.origin}: peak memory bandwidth "
                                     f"{per_core * cores:g} GB/s ({name}: loads of 1e9 B, "
                                     f"latency included, as Aspen measures it) / {_cores(cores)}")
        return per_core * cores, name

    def caches(self) -> list[tuple[t.Component, float, float | None, float | None]]:
        """The caches inside the socket: (component, instances per socket, capacity in bytes,
        line in bytes); a capacity or line that is missing or not positive is ``None``."""
        found: list[tuple[t.Component, float, float | None, float | None]] = []

        def walk(comp: t.Component, instances: float, seen: frozenset[str]) -> None:
            for sub, child in self.children(comp):
                if child.name in seen:
                    continue
                try:
                    count = self.eval(sub.count, "count") if sub.count is not None else 1.0
                except _Missing:
                    continue
                if child.kind == "cache":
                    found.append((child, instances * count, self.positive(child, "capacity"),
                                  self.positive(child, "cacheline")))
                walk(child, instances * count, seen | {child.name})

        walk(self.model.components[self.socket], 1.0, frozenset({self.socket}))
        return found

    def positive(self, comp: t.Component, name: str) -> float | None:
        expr = _property(comp, name)
        if expr is None:
            return None
        try:
            value = self.eval(expr, f"{comp.kind} {comp.name}'s {name}")
        except _Missing as exc:
            self.notes.append(f"{self.display}: {exc}: not used")
            return None
        if value <= 0:
            self.notes.append(f"{self.display}: {comp.kind} {comp.name}: property {name} "
                              f"{value:g} is not positive: not used")
            return None
        return value

    def network(self) -> None:
        steps = self.path("messages")
        if steps is None:
            self.missing("NICGBs, NICLatencyUs", "the machine has no interconnect (no component "
                         "defines the resource 'messages')")
            return
        comp = steps[-1][1]
        try:
            empty = self.eval(serial_time(self.model, "messages", (), num(0), self.socket),
                              "the time of an empty message")
            full = self.eval(serial_time(self.model, "messages", (), num(1e9), self.socket),
                             "the time of a message of 1e9 bytes")
            if empty < 0 or full - empty <= 0:
                raise _Missing(f"messages of 0 and 1e9 bytes take {empty:g} s and {full:g} s")
        except _Missing as exc:
            self.missing("NICGBs, NICLatencyUs", str(exc))
            return
        where = f"{self.origin}: {comp.kind} {comp.name}"
        gbs = 1e9 / (full - empty) / _BILLION
        self.values["NICGBs"] = (gbs, f"{where}: 1e9 B / (time of a 1e9-B message − latency)")
        self.values["NICLatencyUs"] = (empty * 1e6, f"{where}: time of an empty message")

    def overlap(self) -> None:
        for other in ("loads", "stores"):
            if conflicts(self.model, other, "flops", self.socket):
                declared = self.declaring(other, "flops")
                self.values["Overlap"] = (0.0, f"{self.origin}: conflict {other}, flops in "
                                          f"{declared}: Aspen adds the times of flops and "
                                          "memory traffic")
                return
        self.values["Overlap"] = (1.0, f"{self.origin}: no conflict between flops and loads or "
                                  "stores: Aspen overlaps them (the larger time counts)")

    def components(self):
        """Every component of the machine this socket type uses, breadth first, once."""
        stack = [self.model.machine]
        seen: set[str] = set()
        while stack:
            comp = stack.pop(0)
            if comp.name in seen or (comp.kind == "socket" and comp.name != self.socket):
                continue
            seen.add(comp.name)
            yield comp
            stack.extend(child for _sub, child in self.children(comp))

    def declaring(self, first: str, second: str) -> str:
        """The component that declares ``conflict first, second`` (search order)."""
        for comp in self.components():
            if any({c.first, c.second} == {first, second} for c in comp.conflicts):
                return f"{comp.kind} {comp.name}"
        return "the model"

    def unused(self) -> list[str]:
        """One note on what the model says that satreport does not use."""
        used = {"flops", "loads", "messages"}
        ignored: list[str] = []
        for comp in self.components():
            what = f"{comp.kind} {comp.name}"
            ignored += [f"resource {r.name} ({what})" for r in comp.resources if r.name not in used]
            ignored += [f"property {p.name} ({what})" for p in comp.properties
                        if comp.kind != "cache" or p.name not in _CACHE_PROPERTIES]
            ignored += [f"{p.kind} power ({what})" for p in comp.power]
        if not ignored:
            return []
        return [f"{self.display}: socket {self.socket}: Aspen model contents satreport does not "
                f"use, ignored: {', '.join(dict.fromkeys(ignored))}"]


def _property(comp: t.Component, name: str) -> t.Expr | None:
    return next((p.value for p in comp.properties if p.name == name), None)


def _text(expr: t.Expr | None) -> str:
    from sat.aspen.expr import to_text

    return "1" if expr is None else to_text(expr)


def _unit(unit: str) -> str:
    return f" {unit}" if unit and unit not in ("registers", "flop-equivalents", "") else ""


def _cores(count: float) -> str:
    return f"{count:g} core" + ("" if count == 1 else "s")
