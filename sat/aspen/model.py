"""Application and machine models: a parsed file with its ``import``\\s / ``include``\\s resolved.

``import M from "f.aspen" with a = e`` reads ``f.aspen`` (relative to the importing file), checks
that it defines model ``M`` and pulls its parameters, data and kernels in under the prefix
``M.`` (``M.n``, ``M.fftVolume``, ``M.main``; nested imports give ``M.N.x``).  Every name the
imported model uses is prefixed, except its kernels' arguments, loop counters, samples and local
parameters and the SI constants.  ``with a = e`` replaces the value of ``M.a`` by ``e`` (an
expression in the importing model's names); ``M.a`` keeps its own range.  As in Aspen, an
argument that names a *data* object of ``M`` changes nothing.  Imported definitions follow the
importing model's own, in import order.  Models whose imports would make more than
``MAX_IMPORTED_MODELS`` copies share them: a model imported again with the same arguments is
the copy first imported, and names through it are that copy's (:attr:`AppModel.aliases`).

``include f.aspen`` in a machine file reads ``f.aspen`` relative to the including file or, failing
that, to the top-level file's folder (Aspen resolves every include against the folder of the file
it was asked to read: ``memory/ddr3_1066.aspen`` includes ``memory/ddr3.aspen``).

A later definition of a parameter replaces an earlier one (Aspen's behaviour); sub-components
must name a component of the right kind.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path

from sat.aspen import tree as t
from sat.aspen.errors import AspenError
from sat.aspen.expr import SI_CONSTANTS, ParamDef
from sat.aspen.parser import parse_file
from sat.quoting import echoed


@dataclass
class AppModel:
    """An application model with its imports resolved.

    ``params`` (full dotted names, definition order: the model's own, then each import's),
    ``data`` and ``kernels`` are keyed by full name: the model's own kernels first, then each
    import's, in import order.  ``leniencies`` are the places where the files go beyond
    Aspen's grammar and the reader accepts them (:mod:`sat.aspen.conformance`).
    """

    name: str
    path: str
    params: dict[str, ParamDef] = field(default_factory=dict)
    enums: dict[str, t.Enum] = field(default_factory=dict)
    data: dict[str, t.Data] = field(default_factory=dict)
    kernels: dict[str, t.Kernel] = field(default_factory=dict)
    imports: list[tuple[str, str]] = field(default_factory=list)  # (prefix, path)
    model: t.Model | None = None
    leniencies: list[t.Leniency] = field(default_factory=list)
    # an import of a model already imported with the same arguments is that copy: its prefix
    # -> the first import's (``b1.a2`` -> ``a1.a2``); its names are the first import's
    aliases: dict[str, str] = field(default_factory=dict)

    @property
    def has_main(self) -> bool:
        """Whether the model has a ``main`` kernel: the program.  A model without one is a
        library of kernels; Aspen's runtime tool then times every kernel on its own."""
        return "main" in self.kernels

    @property
    def main(self) -> t.Kernel:
        k = self.kernels.get("main")
        if k is None:
            raise AspenError(f"model '{self.name}' has no kernel 'main'",
                             self.model.loc if self.model else None)
        return k

    def kernel(self, name: str, loc: t.Loc | None = None) -> t.Kernel:
        k = self.kernels.get(name)
        if k is None:
            raise AspenError(f"unknown kernel '{name}'", loc)
        return k


@dataclass
class MachineModel:
    """A machine model: its parameters and components (by name), the sockets it defines (in
    file order) and the top-level ``machine`` component."""

    path: str
    params: dict[str, ParamDef] = field(default_factory=dict)
    components: dict[str, t.Component] = field(default_factory=dict)
    sockets: list[str] = field(default_factory=list)
    files: list[str] = field(default_factory=list)
    machine_name: str | None = None
    leniencies: list[t.Leniency] = field(default_factory=list)

    @property
    def machine(self) -> t.Component:
        if self.machine_name is None:
            raise AspenError(f"{self.path} defines no 'machine' component")
        return self.components[self.machine_name]

    @property
    def name(self) -> str:
        return self.machine.name


# ----------------------------------------------------------------------------------------------
# Parameters from statements
# ----------------------------------------------------------------------------------------------


def _param_def(p: t.Param) -> ParamDef:
    return ParamDef(name=p.name, kind=p.kind, loc=p.loc, value=p.value, array=p.array,
                    table=p.table, range=p.range, enum=p.enum)


def _add_enum(params: dict[str, ParamDef], enums: dict[str, t.Enum], e: t.Enum) -> None:
    enums[e.name] = e
    for i, value in enumerate(e.values):
        params[value] = ParamDef(name=value, kind="enum value", loc=e.loc,
                                 value=t.Num(float(i), str(i), e.loc), enum=e.name)


# ----------------------------------------------------------------------------------------------
# Namespace prefixing of imported models
# ----------------------------------------------------------------------------------------------


class _Prefixer:
    """Rewrite the names of an imported model under ``prefix.``."""

    def __init__(self, prefix: str):
        self.prefix = prefix

    def name(self, n: str, local: frozenset[str] = frozenset()) -> str:
        if n in local or n in SI_CONSTANTS:
            return n
        return f"{self.prefix}.{n}"

    def expr(self, e, local: frozenset[str] = frozenset()):
        if e is None or isinstance(e, t.Num):
            return e
        if isinstance(e, t.Name):
            return t.Name(self.name(e.name, local), e.loc)
        if isinstance(e, t.Binary):
            return t.Binary(e.op, self.expr(e.left, local), self.expr(e.right, local), e.loc)
        if isinstance(e, t.Unary):
            return t.Unary(e.op, self.expr(e.operand, local), e.loc)
        if isinstance(e, t.FuncCall):
            return t.FuncCall(e.func, tuple(self.expr(a, local) for a in e.args), e.loc)
        if isinstance(e, t.Index):
            return t.Index(self.name(e.name, local),
                           tuple(self.expr(i, local) for i in e.indices), e.loc)
        if isinstance(e, t.Cond):
            return t.Cond(self.expr(e.cond, local), self.expr(e.then, local),
                          self.expr(e.other, local), e.loc)
        raise TypeError(e)

    def param(self, p: t.Param, local: frozenset[str] = frozenset()) -> t.Param:
        rng = p.range and t.Range(self.expr(p.range.low, local), self.expr(p.range.high, local))
        return t.Param(
            name=p.name if p.name in local else self.name(p.name),
            value=self.expr(p.value, local),
            range=rng,
            enum=self.name(p.enum) if p.enum else None,
            array=tuple(self.expr(x, local) for x in p.array) if p.array is not None else None,
            table=(tuple(tuple(self.expr(x, local) for x in row) for row in p.table)
                   if p.table is not None else None),
            loc=p.loc,
        )

    def data(self, d: t.Data, local: frozenset[str] = frozenset()) -> t.Data:
        ctor = d.constructor
        if ctor is not None:
            ctor = t.FuncCall(ctor.func, tuple(self.expr(a, local) for a in ctor.args), ctor.loc)
        return t.Data(d.name if d.name in local else self.name(d.name),
                      self.expr(d.size, local), ctor, d.loc)

    def model(self, m: t.Model) -> t.Model:
        globals_ = []
        for g in m.globals:
            if isinstance(g, t.Param):
                globals_.append(self.param(g))
            elif isinstance(g, t.Data):
                globals_.append(self.data(g))
            elif isinstance(g, t.Enum):
                globals_.append(t.Enum(self.name(g.name), tuple(self.name(v) for v in g.values),
                                       g.loc))
            elif isinstance(g, t.Import):
                globals_.append(t.Import(g.model, g.path,
                                         tuple((n, self.expr(e)) for n, e in g.args), g.loc))
        return t.Model(m.name, tuple(globals_), tuple(self.kernel(k) for k in m.kernels), m.loc)

    def kernel(self, k: t.Kernel) -> t.Kernel:
        local = frozenset(a.name for a in k.args)
        local |= frozenset(x.name for x in k.locals)
        local |= _samples(k.body)
        locals_ = tuple(self.param(x, local) if isinstance(x, t.Param) else self.data(x, local)
                        for x in k.locals)
        return t.Kernel(self.name(k.name), k.args, self.stmts(k.body, local), locals_, k.loc)

    def stmts(self, body, local):
        return tuple(self.stmt(s, local) for s in body)

    def stmt(self, s, local):
        if isinstance(s, t.Execute):
            return t.Execute(self.expr(s.parallelism, local), s.label,
                             tuple(self.clause(c, local) for c in s.clauses), s.loc)
        if isinstance(s, (t.Iterate, t.Map)):
            inner = local | {s.counter} if s.counter else local
            return replace(s, count=self.expr(s.count, local), body=self.stmts(s.body, inner))
        if isinstance(s, (t.Par, t.Seq)):
            return replace(s, body=self.stmts(s.body, local))
        if isinstance(s, t.Call):
            return t.Call(self.name(s.kernel), tuple(self.expr(a, local) for a in s.args), s.loc)
        if isinstance(s, t.If):
            return t.If(self.expr(s.cond, local), self.stmts(s.then, local),
                        self.stmts(s.other, local), s.loc)
        if isinstance(s, (t.Probability, t.Switch)):
            cases = tuple(t.Case(self.expr(c.value, local), self.stmts(c.body, local), c.loc)
                          for c in s.cases)
            other = self.stmts(s.other, local) if s.other is not None else None
            if isinstance(s, t.Switch):
                return t.Switch(self.name(s.name, local), cases, other, s.loc)
            return t.Probability(cases, other, s.loc)
        if isinstance(s, t.Sample):
            d = s.distribution
            return t.Sample(s.name, t.FuncCall(d.func, tuple(self.expr(a, local) for a in d.args),
                                               d.loc), s.loc)
        raise TypeError(s)

    def clause(self, c: t.Clause, local) -> t.Clause:
        data = c.data
        if data is not None:
            data = self.name(data, local)
        traits = tuple(t.Trait(tr.name, self.expr(tr.arg, local), tr.loc) for tr in c.traits)
        return t.Clause(c.resource, self.expr(c.quantity, local), self.expr(c.size, local),
                        c.direction, data, traits, c.loc)


def _samples(body) -> frozenset[str]:
    out: set[str] = set()
    stack = list(body)
    while stack:
        s = stack.pop()
        if isinstance(s, t.Sample):
            out.add(s.name)
        elif isinstance(s, (t.Iterate, t.Map, t.Par, t.Seq)):
            stack += s.body
        elif isinstance(s, t.If):
            stack += s.then + s.other
        elif isinstance(s, (t.Probability, t.Switch)):
            for c in s.cases:
                stack += c.body
            stack += s.other or ()
    return frozenset(out)


# ----------------------------------------------------------------------------------------------
# Loading
# ----------------------------------------------------------------------------------------------


def _single_model(f: t.File) -> t.Model:
    models = f.models
    if not models:
        raise AspenError(f"{f.path} holds no 'model' (a machine file?)")
    if len(models) > 1:
        raise AspenError(f"more than one model in {f.path}", models[1].loc)
    if f.components:
        raise AspenError("a model file cannot define machine components", f.components[0].loc)
    return models[0]


# Each import is a copy of the imported model under its own names (M.N.x), as in Aspen.  Models
# that each import the next two would hold 2^depth copies: beyond MAX_IMPORTED_MODELS of them,
# an import of a file already imported with the same arguments is that copy (its names are the
# first import's), two copies a level.  Imports whose arguments differ at every level (each
# passing a parameter of its own) still make 2^depth copies: beyond MAX_IMPORTED_MODELS of
# those the model is refused.  A chain of imports deeper than MAX_IMPORT_DEPTH files is
# refused too.
MAX_IMPORTED_MODELS = 1000
MAX_IMPORT_DEPTH = 100


class _TooManyCopies(AspenError):
    """More copies than MAX_IMPORTED_MODELS while every import is a copy of its own."""


def load_model(path: str | Path) -> AppModel:
    """Read an application model and the models it imports."""
    p = Path(path)
    f = parse_file(p)
    model = _single_model(f)
    app = AppModel(name=model.name, path=str(p), model=model, leniencies=list(f.leniencies))
    try:
        _absorb(app, model, p, prefix="", stack=(p.resolve(),), copies=None)
    except _TooManyCopies:  # share the copies of models imported with the same arguments
        app = AppModel(name=model.name, path=str(p), model=model,
                       leniencies=list(f.leniencies))
        _absorb(app, model, p, prefix="", stack=(p.resolve(),), copies={})
        _Canonical(app.aliases).app(app)  # names through a shared import: the first's
    return app


def _absorb(app: AppModel, model: t.Model, path: Path, prefix: str,
            stack: tuple[Path, ...], copies: dict[tuple, str] | None) -> None:
    """Add ``model`` (its names under ``prefix``) and its imports to ``app``.  ``copies``
    (when imports share their copies): the prefix of each model imported so far, by file and
    arguments; ``None``: each import is a copy of its own."""
    imports: list[t.Import] = []
    for g in model.globals:
        if isinstance(g, t.Param):
            app.params[g.name] = _param_def(g)
        elif isinstance(g, t.Enum):
            _add_enum(app.params, app.enums, g)
        elif isinstance(g, t.Data):
            app.data.setdefault(g.name, g)
        elif isinstance(g, t.Import):
            imports.append(g)
    for k in model.kernels:
        app.kernels[k.name] = k
    for imp in imports:
        target = (path.parent / imp.path)
        if not target.is_file():
            raise AspenError(f"cannot find the imported file '{imp.path}' "
                             f"(looked for {target})", imp.loc)
        if target.resolve() in stack:
            raise AspenError(f"import cycle: {imp.path} imports itself (through "
                             f"{' -> '.join(s.name for s in stack)})", imp.loc)
        full = f"{prefix}{imp.model}" if not prefix else f"{prefix}.{imp.model}"
        if copies is not None:
            canonical = _Canonical(app.aliases)
            same = (target.resolve(), imp.model,
                    tuple((name, t.structure(canonical.expr(value))) for name, value in imp.args))
            if same in copies:  # the same model with the same arguments: that copy again
                if copies[same] != full:
                    app.aliases[full] = copies[same]
                continue
            copies[same] = full
        if len(app.imports) >= MAX_IMPORTED_MODELS:
            error = AspenError if copies is not None else _TooManyCopies
            raise error(f"the imports make more than {MAX_IMPORTED_MODELS:,} models (each "
                        "import of a model with other arguments is a copy of it with names of "
                        "its own): simplify the model", imp.loc)
        if len(stack) > MAX_IMPORT_DEPTH:
            raise AspenError(f"imports nested more than {MAX_IMPORT_DEPTH} files deep: "
                             "simplify the model", imp.loc)
        parsed = _parse_referred(target, stack[0].parent, "imported", imp)
        sub = _single_model(parsed)
        app.leniencies += [x for x in parsed.leniencies if x not in app.leniencies]
        if sub.name != imp.model:
            raise AspenError(f"expected model '{imp.model}' in {imp.path}, found "
                             f"'{sub.name}'", imp.loc)
        sub = _Prefixer(full).model(sub)
        app.imports.append((full, str(target)))
        # with-arguments: replace the imported parameters' values (ranges stay)
        data_names = {g.name for g in sub.globals if isinstance(g, t.Data)}
        overrides = {}
        param_names = {g.name for g in sub.globals if isinstance(g, t.Param)}
        for name, value in imp.args:
            qual = f"{full}.{name}"
            if qual in param_names:
                overrides[qual] = value
            elif qual in data_names:
                continue  # Aspen ignores data arguments of an import
            else:
                raise AspenError(f"model '{imp.model}' has no parameter '{name}' to set",
                                 value.loc)
        if overrides:
            sub = t.Model(sub.name, tuple(
                replace(g, value=overrides[g.name])
                if isinstance(g, t.Param) and g.name in overrides else g
                for g in sub.globals), sub.kernels, sub.loc)
        _absorb(app, sub, target, full, stack + (target.resolve(),), copies)


class _Canonical(_Prefixer):
    """Rewrite names through shared imports (``b1.a2.n``) as the first import's
    (``a1.a2.n``): :attr:`AppModel.aliases`."""

    def __init__(self, aliases: dict[str, str]):
        super().__init__("")
        self.aliases = aliases

    def name(self, n: str, local: frozenset[str] = frozenset()) -> str:
        if n in local or not self.aliases or "." not in n:
            return n
        parts = n.split(".")
        i = 1
        while i < len(parts):
            head = ".".join(parts[:i])
            if head in self.aliases:
                # an alias names a copy whose prefix is no alias: look on past it
                target = self.aliases[head].split(".")
                parts = target + parts[i:]
                i = len(target)
            i += 1
        return ".".join(parts)

    def app(self, app: AppModel) -> None:
        """Rewrite every definition of ``app`` in place."""
        for name, p in app.params.items():
            app.params[name] = replace(
                p, value=self.expr(p.value),
                array=tuple(self.expr(x) for x in p.array) if p.array is not None else None,
                table=(tuple(tuple(self.expr(x) for x in row) for row in p.table)
                       if p.table is not None else None),
                range=p.range and t.Range(self.expr(p.range.low), self.expr(p.range.high)),
                enum=self.name(p.enum) if p.enum else None)
        app.data = {name: self.data(d) for name, d in app.data.items()}
        app.kernels = {name: self.kernel(k) for name, k in app.kernels.items()}


def load_machine_model(path: str | Path) -> MachineModel:
    """Read a machine model and the files it includes."""
    p = Path(path)
    mach = MachineModel(path=str(p))
    _include(mach, p, p.parent, stack=())
    for comp in mach.components.values():
        for sc in comp.subcomponents:
            target = mach.components.get(sc.name)
            if target is None:
                raise AspenError(f"{comp.kind} '{comp.name}' uses {sc.kind} '{sc.name}', "
                                 "which is not defined", sc.loc)
            if target.kind != sc.kind:
                raise AspenError(f"'{sc.name}' is a {target.kind}, not a {sc.kind}", sc.loc)
    return mach


def _parse_referred(target: Path, folder: Path, how: str, item: t.Import | t.Include) -> t.File:
    """The file an ``import`` or ``include`` names.  One outside the model's folder may be any
    file at all (``/etc/passwd``): what is wrong with it is said at the statement, without the
    text a syntax error would quote from it."""
    try:
        return parse_file(target)
    except AspenError as err:
        if target.resolve().is_relative_to(folder.resolve()):
            raise
        where = f" (line {err.loc.line})" if err.loc is not None and err.loc.line else ""
        raise AspenError(f"the {how} file {echoed(item.path)}, outside the model's folder, is "
                         f"not an Aspen model{where}", item.loc) from None


def _include(mach: MachineModel, path: Path, top: Path, stack: tuple[Path, ...],
             item: t.Include | None = None,
             done: dict[Path, list] | None = None) -> list:
    """Read ``path`` into ``mach``; the definitions it made (its includes' too), in order.

    A file included again is not read again: its definitions are made again from ``done``
    (the same assignments, in the same order), so files that each include the next twice
    cost what their size does, not 2^depth readings."""
    done = {} if done is None else done
    f = parse_file(path) if item is None else _parse_referred(path, top, "included", item)
    if f.models:
        raise AspenError(f"{path} holds an application model, not a machine model",
                         f.models[0].loc)
    mach.files.append(str(path))
    mach.leniencies += [x for x in f.leniencies if x not in mach.leniencies]
    made: list = []
    for item in f.items:
        if isinstance(item, t.Include):
            target = path.parent / item.path
            if not target.is_file():
                target = top / item.path
            if not target.is_file():
                raise AspenError(f"cannot find the included file '{item.path}'", item.loc)
            resolved = target.resolve()
            if resolved in stack or resolved == path.resolve():
                raise AspenError(f"include cycle: {item.path} includes itself", item.loc)
            if resolved in done:
                for definition in done[resolved]:
                    _define(mach, definition)
                made += done[resolved]
            else:
                made += _include(mach, target, top, stack + (path.resolve(),), item, done)
        elif isinstance(item, t.Data):
            raise AspenError("'data' belongs in an application model", item.loc)
        elif isinstance(item, (t.Param, t.Enum, t.Component)):
            _define(mach, item)
            made.append(item)
    # made again, only the last definition of each name matters, in the order of the last
    last: dict = {}
    for definition in reversed(made):
        last.setdefault((type(definition), definition.name), definition)
    done[path.resolve()] = list(reversed(last.values()))
    return done[path.resolve()]


def _define(mach: MachineModel, item: t.Param | t.Enum | t.Component) -> None:
    if isinstance(item, t.Param):
        mach.params[item.name] = _param_def(item)
    elif isinstance(item, t.Enum):
        _add_enum(mach.params, {}, item)
    else:
        mach.components[item.name] = item
        if item.kind == "socket" and item.name not in mach.sockets:
            mach.sockets.append(item.name)
        if item.kind == "machine":
            mach.machine_name = item.name


def load(path: str | Path) -> AppModel | MachineModel:
    """Read an application or a machine model, whichever the file holds."""
    f = parse_file(path)
    if f.models:
        return load_model(path)
    return load_machine_model(path)
