"""The model of an Aspen application model: parameters, kernels and totals as live quantities.

An Aspen application model (:mod:`sat.aspen`) given as SOURCE becomes a :class:`ModelResult`
like analysed code, so the workbook, the JSON, the HTML, sweeps and scenarios all work on it:

- its scalar parameters whose values are numbers become problem parameters (rows of the
  Parameters sheet, ``--set``-able); a parameter defined by an expression of others is a
  derived quantity (a formula on the Parameters sheet); a parameter with a range (``param tf =
  32 in 16 .. 64``) keeps it in :attr:`ModelResult.ranges`, where a scenario without
  ``variables`` finds its decision variables;
- each kernel is a row of the **Aspen kernels** sheet: flops, loads, stores, messages and the
  predicted time, as formulas over those parameters; the control flow (``iterate``, ``map``,
  ``probability``, calls) is part of each formula, so it multiplies live;
- the totals are the ``main`` kernel's, under the names code models use (``Total_Time_s``,
  ``Total_GFlops``, ``Total_Traffic_GB``, ``Footprint_GiB``).  A model without ``main`` (a
  library of kernels, such as one written to be imported) has no program and so no totals:
  like Aspen's runtime tool, which then iterates across the kernels, it is every kernel on
  its own, the model's own kernels first, then the imported ones in import order.

Time comes from an Aspen machine model (``-m machine.aspen``, its own rules through
:func:`sat.aspen.runtime_expression`, its parameters machine parameters here), or else from
satreport's machine parameters: flops at ``Cores × GflopsPerCore``, loads and stores at
``Cores × GBsPerCore`` (overlapping when ``Overlap`` is 1), messages at ``NICGBs`` plus
``NICLatencyUs`` per message clause — a roofline with the network added.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass

from sat.aspen import AppModel, AspenError, MachineModel, tree
from sat.aspen.errors import DivisionByZero
from sat.aspen.evaluate import Flow, Leaf, count_leaf, data_set_expression
from sat.aspen.expr import SI_CONSTANTS, Env, names, num
from sat.aspen.machine import check_socket
from sat.aspen.model import MAX_IMPORTED_MODELS
from sat.aspen.runtime import combined_env, time_leaf
from sat.model import expr as E
from sat.model.tables import CellValue, ModelResult, Note, Table, column
from sat.parameter import Parameter, ParameterSet

RESOURCES = ("flops", "loads", "stores", "messages")
GIGA = 1e9
GIB = 2.0 ** 30

KERNEL_COLUMNS = [
    column("kernel", "Kernel", "", "The kernel of the Aspen model (main is the application)."),
    column("file", "File", "", "Model file of the kernel."),
    column("line", "Line", "", "Line of the kernel in its file."),
    column("calls", "Calls", "", "The kernels it calls."),
    column("flops", "Flops", "flop", "Floating-point operations of one execution, with its "
           "control flow and the kernels it calls.", "Resources"),
    column("loads", "Loads", "B", "Bytes loaded.", "Resources"),
    column("stores", "Stores", "B", "Bytes stored.", "Resources"),
    column("messages", "Messages", "B", "Bytes sent in messages.", "Resources"),
    column("time_s", "Time", "s", "Predicted time of one execution on the machine.", "Time"),
]


DATA_COLUMNS = [
    column("data", "Data", "", "A data object of the Aspen model."),
    column("file", "File", "", "Model file of the data object."),
    column("line", "Line", "", "Line of its declaration."),
    column("bytes", "Size", "B", "Its size in bytes (Aspen's memory usage)."),
]


class AspenModelError(ValueError):
    """An Aspen model that cannot be modelled (one line, ``file:line:col: …``)."""


@dataclass
class _Converter:
    """Aspen expressions -> model expressions over the Parameters sheet's names."""

    env: Env
    params: ParameterSet
    pending: dict[str, tree.Expr]  # parameters defined by expressions, not converted yet
    notes: list[Note]

    def __post_init__(self) -> None:
        self.derived: dict[str, E.Quantity] = {}
        self.flows: dict[str, Flow] = {}

    def flow(self, app: AppModel, what: str, leaf: Leaf) -> Flow:
        """The evaluation of the model's kernels for one kind of count (``what``), shared by
        every kernel row: a kernel is evaluated once, not once per row whose kernel calls
        it."""
        if what not in self.flows:
            self.flows[what] = Flow(app, self.env, leaf)
        return self.flows[what]

    def expr(self, node: tree.Expr) -> E.Expr:
        method = getattr(self, "_" + type(node).__name__)
        return method(node)

    def _Num(self, node: tree.Num) -> E.Expr:
        return E.Num(node.value)

    def _Name(self, node: tree.Name) -> E.Expr:
        name = node.name
        if name in self.params:
            return E.Param(name)
        if name in self.pending:  # a derived parameter: a formula on the Parameters sheet
            value = self.pending.pop(name)
            self.derived[name] = E.Quantity(("aspen", "param", name), self.expr(value), "",
                                            name)
        if name in self.derived:
            return E.Ref(self.derived[name])
        if self.env.lookup(name) is None and name in SI_CONSTANTS:
            return E.Num(SI_CONSTANTS[name])
        return E.Num(self.env.scalar(name, node.loc))  # an enum value: its number

    def _Unary(self, node: tree.Unary) -> E.Expr:
        return -self.expr(node.operand)

    def _Binary(self, node: tree.Binary) -> E.Expr:
        left, right = self.expr(node.left), self.expr(node.right)
        op = node.op
        if op == "+":
            return left + right
        if op == "-":
            return left - right
        if op == "*":
            return left * right
        if op == "/":
            return left / right
        if op == "^":
            return E.func("POWER", left, right)
        if op in ("and", "or"):
            return E.func(op.upper(), left, right)
        return E.compare({"==": "=", "!=": "<>"}.get(op, op), left, right)

    def _Cond(self, node: tree.Cond) -> E.Expr:
        return E.if_(self.expr(node.cond), self.expr(node.then), self.expr(node.other))

    def _FuncCall(self, node: tree.FuncCall) -> E.Expr:
        f = node.func
        if f == "lookup":
            return self._number(node)
        args = [self.expr(a) for a in node.args]
        if f == "max":
            return E.maximum(*args)
        if f == "min":
            return E.minimum(*args)
        if f == "ceil":
            return E.ceiling(args[0], 1)
        if f == "floor":
            return E.func("FLOOR", args[0], E.Num(1))
        if f == "sqrt":
            return E.func("SQRT", args[0])
        if f == "log":
            return E.func("LN", args[0])
        if f == "log2":
            return E.func("LN", args[0]) / math.log(2)
        return self._number(node)

    def _Index(self, node: tree.Index) -> E.Expr:
        return self._number(node)

    def _number(self, node: tree.Expr) -> E.Expr:
        """What has no formula (a table lookup, an array element): its value now."""
        from sat.aspen.expr import to_text

        value = self.env.eval(node)
        self.notes.append(Note(f"{to_text(node)} is taken at its value {value:g}: the workbook "
                               "has no formula for table lookups and array elements", "assumption",
                               node.loc.file, node.loc.line))
        return E.Num(value)


def _inputs(scopes: list[tuple[str, AppModel | MachineModel]], env: Env, params: ParameterSet
            ) -> tuple[dict[str, tree.Expr], dict[str, tuple[float, float]]]:
    """Add the models' numeric parameters to ``params``; return the others (derived, by
    name) and the ranges."""
    pending: dict[str, tree.Expr] = {}
    ranges: dict[str, tuple[float, float]] = {}
    for group, model in scopes:
        for name, definition in model.params.items():
            if definition.kind != "scalar" or definition.value is None:
                continue
            free = {n for n in names(definition.value) if n not in SI_CONSTANTS
                    or env.lookup(n) is not None}
            if definition.range is not None:
                ranges[name] = (env.eval(definition.range.low), env.eval(definition.range.high))
            if free and name not in params:
                pending[name] = definition.value
                _refuse_division_by_zero(env, tree.Name(name, definition.loc))
                continue
            if name in params:  # a --set value of a machine parameter of the same name
                continue
            value = env.scalar(name, definition.loc)
            params.add(Parameter(name, int(value) if value.is_integer() else value, "",
                                 group, f"Aspen parameter {name} ({_where(definition.loc)}).",
                                 f"{_where(definition.loc)}", "number"))
    return pending, ranges


def _refuse_division_by_zero(env: Env, expr: tree.Expr) -> None:
    """Raise if ``expr`` divides by zero at the current values, as Aspen's evaluator does
    (the workbook's formulas guard a division, which then gives 0).  Anything else wrong
    with it is said where it is used."""
    try:
        env.eval(expr)
    except DivisionByZero:
        raise
    except AspenError:
        pass


def _where(loc: tree.Loc) -> str:
    return f"{loc.file}:{loc.line}"


def build_aspen_model(app: AppModel, params: ParameterSet, machine: MachineModel | None = None,
                      socket: str | None = None) -> ModelResult:
    """The model of ``app``; ``params`` holds satreport's machine and software parameters and
    receives the Aspen models' own (a value already there, from ``--set``, wins)."""
    from sat.model.context import derive_formulas
    from sat.model.hierarchy.levels import derive_machine_defaults

    derive_machine_defaults(params)
    derive_formulas(params)
    notes: list[Note] = []
    overrides = {name: p.value for name, p in params.parameters.items()
                 if p.source == "--set"}
    scopes: list[tuple[str, AppModel | MachineModel]] = [("problem", app)]
    if machine is not None:
        scopes.append(("machine", machine))
    env = combined_env(app, machine, overrides) if machine is not None else \
        Env(app.params, overrides=overrides)
    try:
        pending, ranges = _inputs(scopes, env, params)
        converter = _Converter(env, params, pending, notes)
        for name in list(pending):  # every derived parameter is shown, used or not
            if name in converter.pending:
                converter.expr(tree.Name(name))
        rows, main = _kernel_rows(app, machine, socket, converter, notes)
        footprint = data_set_expression(app, "main") if app.has_main else None
        data_rows = [{"data": name, "file": data.loc.file, "line": data.loc.line,
                      "bytes": E.Quantity(("aspen", "data", name),
                                          converter.expr(data.size_expr), "B",
                                          f"size of {name}")}
                     for name, data in app.data.items()]
    except AspenError as error:
        raise AspenModelError(str(error)) from None
    notes += leniency_notes(app.leniencies + (machine.leniencies if machine else []))
    if app.aliases:
        first, shared = next(iter(app.aliases.items()))
        notes.append(Note(
            f"the imports would make more than {MAX_IMPORTED_MODELS:,} copies of models: each "
            "model imported again with the same arguments is the copy first imported, whose "
            f"names it takes ({first}.x is {shared}.x; {len(app.aliases)} imports share a copy)",
            "assumption", app.path, 1))
    if not app.has_main:
        model = app.model
        notes.append(Note(
            f"model '{app.name}' has no kernel 'main': there is no program to time, so no "
            f"totals; each of its {len(app.kernels)} kernel(s) is timed on its own, the model's "
            "own first, then the imported ones (as Aspen's runtime tool iterates across the "
            "kernels)", "warning", app.path, model.loc.line if model is not None else 1))
    totals = _totals(main, converter, footprint)
    notes.append(Note(
        f"Aspen model {app.name} ({app.path}): counts and times follow Aspen's tools"
        + (f" on machine {machine.name}, socket {socket}" if machine is not None else
           "; times from satreport's machine parameters: flops at Cores × GflopsPerCore, "
           "loads and stores at Cores × GBsPerCore, messages at NICGBs plus NICLatencyUs "
           "each") + ". sample statements are taken at their expectation.", "assumption",
        app.path, 1))
    table = Table("Aspen kernels", f"Kernels of the Aspen model {app.name}", KERNEL_COLUMNS,
                  rows, None, "One row per kernel: its resources and time for one execution, "
                  "live formulas over the Parameters sheet (the control flow is in them).")
    tables = {table.name: table}
    if data_rows:
        tables["Aspen data"] = Table("Aspen data", f"Data of the Aspen model {app.name}",
                                     DATA_COLUMNS, data_rows, None, "One row per data object: "
                                     "its size, a live formula.")
    return ModelResult(list(params.parameters.values()), tables, totals, notes,
                       list(converter.derived.values()), None,
                       aspen=_summary(app, machine, socket), ranges=ranges)


def _kernel_rows(app: AppModel, machine: MachineModel | None, socket: str | None,
                 converter: _Converter, notes: list[Note]
                 ) -> tuple[list[dict[str, CellValue]], dict[str, E.Quantity]]:
    rows: list[dict[str, CellValue]] = []
    main: dict[str, E.Quantity] = {}
    failed: list[AspenError] = []
    for name in _kernel_order(app):
        kernel = app.kernels[name]
        row: dict[str, CellValue] = {"kernel": name, "file": kernel.loc.file,
                                     "line": kernel.loc.line,
                                     "calls": ", ".join(dict.fromkeys(_calls(kernel.body)))}
        try:
            counts = {r: E.Quantity(("aspen", name, r),
                                    converter.expr(converter.flow(app, r, count_leaf(r))
                                                   .kernel(kernel) or num(0)),
                                    column_unit(r), f"{r} of {name}") for r in RESOURCES}
            if machine is not None:
                leaf = time_leaf(machine, check_socket(machine, socket))
                runtime = converter.flow(app, "time", leaf).kernel(kernel) or num(0)
                _refuse_division_by_zero(converter.env, runtime)  # a rate of 0, say
                time = converter.expr(runtime)
            else:
                time = _roofline(counts, app, name, converter)
        except AspenError as error:
            if name == "main":
                raise
            failed.append(error)
            notes.append(Note(f"kernel {name} is not modelled on its own: {error}", "warning",
                              kernel.loc.file, kernel.loc.line))
            rows.append(row)
            continue
        row.update(counts)
        row["time_s"] = E.Quantity(("aspen", name, "time_s"), time, "s", f"time of {name}")
        rows.append(row)
        if name == "main":
            main = {**counts, "time_s": row["time_s"]}  # type: ignore[dict-item]
    if failed and len(failed) == len(rows) and not app.has_main:  # nothing to show
        raise AspenError(f"{failed[0].reason} (model '{app.name}' has no kernel 'main', and "
                         "none of its kernels can be timed on its own)", failed[0].loc)
    return rows, main


def leniency_notes(leniencies) -> list[Note]:
    """A warning for each place where the models go beyond Aspen's grammar (and the reader
    accepts them: :mod:`sat.aspen.conformance`)."""
    return [Note(f"{x.message} (satreport reads it anyway)", "warning",
                 x.loc.file, x.loc.line) for x in leniencies]


def column_unit(resource: str) -> str:
    return "flop" if resource == "flops" else "B"


def _roofline(counts: dict[str, E.Quantity], app: AppModel, kernel: str,
              converter: _Converter) -> E.Expr:
    """Time on satreport's machine parameters (see the module's docstring)."""
    cpu = E.Ref(counts["flops"]) / (E.Param("Cores") * E.Param("GflopsPerCore") * GIGA)
    memory = (E.Ref(counts["loads"]) + E.Ref(counts["stores"])) / \
        (E.Param("Cores") * E.Param("GBsPerCore") * GIGA)
    overlap = E.if_(E.Param("Overlap"), E.maximum(cpu, memory), cpu + memory)
    clauses = converter.expr(_message_clauses(app, kernel, converter))
    network = E.Ref(counts["messages"]) / (E.Param("NICGBs") * GIGA) + \
        clauses * E.Param("NICLatencyUs") * 1e-6
    return overlap + network


def _message_clauses(app: AppModel, kernel: str, converter: _Converter) -> tree.Expr:
    """How many message clauses one execution runs (each pays the latency once)."""

    def leaf(ex: tree.Execute, bind) -> tree.Expr | None:
        count = sum(1 for c in ex.clauses if c.resource == "messages")
        return num(count) if count else None

    k = app.main if kernel == "main" else app.kernel(kernel)
    return converter.flow(app, "message clauses", leaf).kernel(k) or num(0)


def _totals(main: dict[str, E.Quantity], converter: _Converter,
            footprint: tree.Expr | None) -> dict[str, E.Quantity]:
    if not main:  # no kernel main: no program, no totals
        return {}
    flops, loads, stores = (E.Ref(main[r]) for r in ("flops", "loads", "stores"))
    totals = {
        "Total_Time_s": E.Quantity(("aspen", "total", "time_s"), E.Ref(main["time_s"]), "s",
                                   "time of main"),
        "Total_GFlops": E.Quantity(("aspen", "total", "gflops"), flops / GIGA, "Gflop",
                                   "flops of main"),
        "Total_Traffic_GB": E.Quantity(("aspen", "total", "traffic_gb"),
                                       (loads + stores) / GIGA, "GB", "loads and stores of main"),
        "Total_Messages_GB": E.Quantity(("aspen", "total", "messages_gb"),
                                        E.Ref(main["messages"]) / GIGA, "GB",
                                        "messages of main"),
    }
    if footprint is not None:
        totals["Footprint_GiB"] = E.Quantity(("aspen", "total", "footprint_gib"),
                                             converter.expr(footprint) / GIB, "GiB",
                                             "data of the model")
    return totals


def _kernel_order(app: AppModel) -> list[str]:
    """main first, then the kernels in the order main reaches them, then the others; without
    main, the kernels as the model lists them (its own, then the imported ones)."""
    if "main" not in app.kernels:
        return list(app.kernels)
    order: list[str] = []

    def visit(name: str) -> None:
        if name in order or name not in app.kernels:
            return
        order.append(name)
        for callee in _calls(app.kernels[name].body):
            visit(callee)

    visit("main")
    for name in app.kernels:
        visit(name)
    return order


def _calls(body) -> Iterator[str]:
    for statement in body:
        if isinstance(statement, tree.Call):
            yield statement.kernel
        for attribute in ("body", "then", "other"):
            inner = getattr(statement, attribute, None)
            if isinstance(inner, tuple):
                yield from _calls(inner)
        for case in getattr(statement, "cases", ()) or ():
            yield from _calls(case.body)


def _summary(app: AppModel, machine: MachineModel | None, socket: str | None) -> dict:
    """What the JSON's ``aspen`` object and the HTML's kernel tree need besides numbers."""
    return {"model": app.name, "path": app.path, "has_main": app.has_main,
            "machine": machine.name if machine is not None else None, "socket": socket,
            "tree": {name: list(dict.fromkeys(_calls(app.kernels[name].body)))
                     for name in _kernel_order(app)}}


__all__ = ["AspenModelError", "build_aspen_model"]
