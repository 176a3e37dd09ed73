"""Evaluation of application models: parameters, resource counts per kernel, data sizes.

Resource counts are built as expressions first (as Aspen does; see :func:`resource_expression`)
and then evaluated, so the same code gives numbers and formulas.  The control flow combines
the counts of its statements as Aspen does:

* ``execute [p] { … }``: ``p`` times the sum of the block's clauses of that resource
  (``loads [n] of size [w]`` counts ``n*w``; ``bytes`` is loads plus stores);
* a sequence, ``seq`` and ``par``: the sum of their statements;
* ``iterate [n]`` and ``map [n]``: ``n`` times their body; with a counter
  (``iterate i [n]``) the body is repeated with ``i = 0, 1, …, n-1``;
* ``call k(args)``: ``k``'s count with its ``param`` arguments replaced by the call's
  expressions (its ``data`` arguments name the data a call works on);
* ``probability { [p1] {A} [p2] {B} else {C} }``: the expectation
  ``p1*A + p2*B + (1 - p1 - p2)*C``;
* ``if (c) {A} else {B}`` and ``switch``: a conditional, decided when evaluated.
* ``sample x from …``: Aspen draws a random number each time the kernel runs, so its outputs
  change from run to run.  Here a sample is replaced by its expectation, which makes every count
  deterministic: ``uniform(a, b)`` by ``(a+b)/2``, ``normal(m, s)`` by ``m`` (exact when the
  counts are linear in the sample, as in the suite's models), ``cdf(c)`` by the weighted sum over
  its outcomes ``0, 1, …`` with the probabilities ``c[0], c[1]-c[0], …`` (exact).

A kernel's ``param`` arguments have no value unless the kernel is called: evaluating such a
kernel on its own reports the argument as an undefined name, as Aspen does.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from sat.aspen import tree as t
from sat.aspen.errors import AspenError, DivisionByZero
from sat.aspen.expr import Env, add, mul, num, substitute, to_text, total
from sat.aspen.model import AppModel

#: The resources every report lists (``bytes`` is loads + stores).
STANDARD_RESOURCES = ("flops", "loads", "stores", "messages")

Leaf = Callable[[t.Execute, Mapping[str, t.Expr]], "t.Expr | None"]


def app_env(app: AppModel, overrides: Mapping[str, float | t.Expr] | None = None) -> Env:
    return Env(app.params, overrides=overrides)


class Flow:
    """Walks a kernel's control flow and combines what ``leaf`` gives for each execute block.

    Results are expressions over the models' parameters (all kernel arguments, counters and
    samples substituted); ``None`` means "nothing" (zero).
    """

    def __init__(self, app: AppModel, env: Env, leaf: Leaf):
        self.app = app
        self.env = env
        self.leaf = leaf
        # a kernel's count, by its text (two kernels that read alike, as those of two models
        # imported with the same text, count alike: one result, whose repeats in a sum are
        # counted), its arguments' expressions (by identity: a call that passes on its own
        # arguments passes the same objects) and whether it is checked
        self._cache: dict[tuple, t.Expr | None] = {}
        self._texts: dict[int, int] = {}
        self._numbers: dict[object, int] = {}
        self._kept: list = []
        self._stack: list[str] = []
        self._unchecked = 0  # > 0 inside a branch not taken at the current values

    def _checked(self, e: t.Expr, loc: t.Loc, what: str, at_most: float | None = None) -> None:
        """Refuse a count (a clause's amount, a parallelism, an iteration count) that is
        negative at the current values, or a probability outside 0..1, at its place; a
        division by zero in it is refused too.  One that cannot be evaluated yet (a kernel
        argument without a value) is checked where the kernel is called."""
        if self._unchecked:
            return
        try:
            value = self.env.eval(e)
        except DivisionByZero:
            raise
        except AspenError:
            return
        if value < 0 or (at_most is not None and value > at_most):
            bounds = f"0 to {at_most:g}" if at_most is not None else "0 or more"
            raise AspenError(f"{what} [{to_text(e)}] is {value:g}: expected {bounds}", loc)

    # ------------------------------------------------------------------ kernels
    def kernel(self, k: t.Kernel, bind: Mapping[str, t.Expr] | None = None,
               loc: t.Loc | None = None) -> t.Expr | None:
        if id(k) not in self._texts:  # a number per distinct text: hashed once
            text = t.structure((k.args, k.locals, k.body))
            self._texts[id(k)] = self._numbers.setdefault(text, len(self._numbers))
            self._kept.append(k)
        key = (self._texts[id(k)],
               tuple((name, id(e)) for name, e in sorted((bind or {}).items())),
               self._unchecked > 0)
        if key in self._cache:
            return self._cache[key]
        if k.name in self._stack:
            chain = " -> ".join(self._stack[self._stack.index(k.name):] + [k.name])
            raise AspenError(f"recursive kernel calls: {chain}", loc or k.loc)
        self._stack.append(k.name)
        try:
            b = dict(bind or {})
            for local in k.locals:
                if isinstance(local, t.Param):
                    if local.kind != "scalar":
                        raise AspenError("arrays inside a kernel are not supported; declare "
                                         f"'{local.name}' in the model", local.loc)
                    assert local.value is not None
                    b[local.name] = substitute(local.value, b)
            result = self.stmts(k.body, b)
        finally:
            self._stack.pop()
        self._cache[key] = result
        # the key holds ids: keep its arguments alive so that no other object takes an id
        self._kept.append(bind)
        return result

    # ------------------------------------------------------------------ statements
    def stmts(self, body: tuple, bind: Mapping[str, t.Expr]) -> t.Expr | None:
        samples = [s for s in body if isinstance(s, t.Sample)]
        rest = tuple(s for s in body if not isinstance(s, t.Sample))
        return self._sampled(samples, rest, bind)

    def _sampled(self, samples, body, bind) -> t.Expr | None:
        if not samples:
            return total(self.stmt(s, bind) for s in body)
        s, more = samples[0], samples[1:]
        d = s.distribution
        args = tuple(substitute(a, bind) for a in d.args)
        if d.func == "uniform" and len(args) == 2:
            mean = t.Binary("/", t.Binary("+", args[0], args[1], d.loc), num(2), d.loc)
            return self._sampled(more, body, {**bind, s.name: mean})
        if d.func == "normal" and len(args) == 2:
            return self._sampled(more, body, {**bind, s.name: args[0]})
        if d.func == "cdf" and len(args) == 1 and isinstance(args[0], t.Name):
            cdf = self.env.array(args[0].name, d.loc)
            out = None
            previous = 0.0
            for i, c in enumerate(cdf):
                p = (1.0 if i == len(cdf) - 1 else c) - previous
                previous = c
                if p <= 0:
                    continue
                term = self._sampled(more, body, {**bind, s.name: num(i)})
                if term is not None:
                    out = add(out, mul(num(p), term))
            return out
        raise AspenError(f"cannot sample from '{d.func}' with {len(d.args)} argument(s); "
                         "use uniform(a, b), normal(mean, sd) or cdf(array)", s.loc)

    def stmt(self, s, bind: Mapping[str, t.Expr]) -> t.Expr | None:
        if isinstance(s, t.Execute):
            if s.parallelism is not None:
                self._checked(substitute(s.parallelism, bind), s.loc, "execute")
            for c in s.clauses:
                self._checked(substitute(c.amount, bind), c.loc, c.resource)
            return self.leaf(s, bind)
        if isinstance(s, (t.Iterate, t.Map)):
            count = substitute(s.count, bind)
            self._checked(count, s.loc, "iterate" if isinstance(s, t.Iterate) else "map")
            if s.counter:
                n = self.env.eval(count)
                terms = []
                i = 0
                while i < n:
                    terms.append(self.stmts(s.body, {**bind, s.counter: num(i)}))
                    i += 1
                return total(terms)
            body = self.stmts(s.body, bind)
            return None if body is None else mul(count, body)
        if isinstance(s, (t.Par, t.Seq)):
            return self.stmts(s.body, bind)
        if isinstance(s, t.Call):
            return self.call(s, bind)
        if isinstance(s, t.If):
            try:
                taken = self.env.eval(substitute(s.cond, bind)) != 0
            except AspenError:
                taken = None  # not decided yet: neither branch is checked
            self._unchecked += taken is not True
            then = self.stmts(s.then, bind)
            self._unchecked += (taken is not False) - (taken is not True)
            other = self.stmts(s.other, bind)
            self._unchecked -= taken is not False
            if then is None and other is None:
                return None
            return t.Cond(substitute(s.cond, bind), then or num(0), other or num(0), s.loc)
        if isinstance(s, t.Switch):
            self._unchecked += 1  # the cases not taken may hold anything
            try:
                return self._switch(s, bind)
            finally:
                self._unchecked -= 1
        if isinstance(s, t.Probability):
            out = None
            weights = None
            for case in s.cases:
                w = substitute(case.value, bind)
                self._checked(w, case.loc, "probability", at_most=1)
                weights = add(weights, w)
                body = self.stmts(case.body, bind)
                if body is not None:
                    out = add(out, mul(w, body))
            if s.other is not None:
                body = self.stmts(s.other, bind)
                if body is not None:
                    rest = t.Binary("-", num(1), weights, s.loc) if weights else num(1)
                    out = add(out, mul(rest, body))
            return out
        raise AspenError(f"unexpected statement {type(s).__name__}", getattr(s, "loc", None))

    def _switch(self, s: t.Switch, bind: Mapping[str, t.Expr]) -> t.Expr | None:
        subject = substitute(t.Name(s.name, s.loc), bind)
        out = self.stmts(s.other, bind) if s.other is not None else None
        for case in reversed(s.cases):
            body = self.stmts(case.body, bind)
            if body is None and out is None:
                continue
            test = t.Binary("==", subject, substitute(case.value, bind), case.loc)
            out = t.Cond(test, body or num(0), out or num(0), case.loc)
        return out

    def call(self, s: t.Call, bind: Mapping[str, t.Expr]) -> t.Expr | None:
        k = self.app.kernel(s.kernel, s.loc)
        if len(s.args) != len(k.args):
            raise AspenError(f"kernel '{k.name}' takes {len(k.args)} argument(s), the call "
                             f"gives {len(s.args)}", s.loc)
        b = {a.name: substitute(e, bind) for a, e in zip(k.args, s.args, strict=True)
             if a.kind == "param"}
        return self.kernel(k, b, s.loc)


# ----------------------------------------------------------------------------------------------
# Resource counts
# ----------------------------------------------------------------------------------------------


def _matches(clause_resource: str, resource: str) -> bool:
    return clause_resource == resource or (
        resource == "bytes" and clause_resource in ("loads", "stores"))


def count_leaf(resource: str) -> Leaf:
    def leaf(ex: t.Execute, bind: Mapping[str, t.Expr]) -> t.Expr | None:
        amounts = total(substitute(c.amount, bind) for c in ex.clauses
                        if _matches(c.resource, resource))
        if amounts is None:
            return None
        if ex.parallelism is None:
            return amounts
        return mul(substitute(ex.parallelism, bind), amounts)

    return leaf


def resource_names(app: AppModel) -> list[str]:
    """The standard resources, ``bytes``, then any other resource the model's clauses use."""
    seen = list(STANDARD_RESOURCES) + ["bytes"]
    for k in app.kernels.values():
        for ex in _executes(k.body):
            for c in ex.clauses:
                if c.resource not in seen:
                    seen.append(c.resource)
    return seen


def _executes(body):
    for s in body:
        if isinstance(s, t.Execute):
            yield s
        elif isinstance(s, (t.Iterate, t.Map, t.Par, t.Seq)):
            yield from _executes(s.body)
        elif isinstance(s, t.If):
            yield from _executes(s.then)
            yield from _executes(s.other)
        elif isinstance(s, (t.Probability, t.Switch)):
            for c in s.cases:
                yield from _executes(c.body)
            yield from _executes(s.other or ())


def resource_expression(app: AppModel, resource: str, kernel: str = "main",
                        env: Env | None = None) -> t.Expr:
    """The count of ``resource`` in ``kernel`` as an expression over the model's parameters."""
    env = env or app_env(app)
    k = app.main if kernel == "main" else app.kernel(kernel)
    return Flow(app, env, count_leaf(resource)).kernel(k) or num(0)


@dataclass
class KernelResources:
    """The resource counts of one kernel; ``errors`` holds the resources that cannot be
    evaluated (a kernel argument without value, say) with the reason."""

    kernel: str
    counts: dict[str, float] = field(default_factory=dict)
    errors: dict[str, str] = field(default_factory=dict)

    def __getitem__(self, resource: str) -> float:
        if resource in self.errors:
            raise AspenError(self.errors[resource])
        return self.counts.get(resource, 0.0)


@dataclass
class Resources:
    """Resource counts: ``total`` for the ``main`` kernel (the application; empty for a model
    without ``main``, a library of kernels), ``kernels`` for every kernel, imported ones
    included (``fft1d.fft``): the model's own first, then each import's."""

    total: dict[str, float]
    kernels: dict[str, KernelResources]
    names: list[str]


def resources(app: AppModel, params: Mapping[str, float | t.Expr] | None = None,
              names: list[str] | None = None) -> Resources:
    """Count flops, loads, stores, messages, bytes (and any other resource) per kernel."""
    env = app_env(app, params)
    names = names or resource_names(app)
    flows = {r: Flow(app, env, count_leaf(r)) for r in names}
    kernels: dict[str, KernelResources] = {}
    for kname, k in app.kernels.items():
        kr = KernelResources(kname)
        for r in names:
            try:
                expr = flows[r].kernel(k)
                kr.counts[r] = 0.0 if expr is None else env.eval(expr)
            except AspenError as err:
                kr.errors[r] = str(err)
        kernels[kname] = kr
    total_counts = {}
    if app.has_main:
        main = app.main
        for r in names:
            expr = flows[r].kernel(main)
            total_counts[r] = 0.0 if expr is None else env.eval(expr)
    return Resources(total_counts, kernels, names)


# ----------------------------------------------------------------------------------------------
# Data (memory) sizes
# ----------------------------------------------------------------------------------------------


@dataclass
class KernelData:
    """The data a kernel touches (``to``/``from`` in its clauses): ``exclusive`` in its own
    execute blocks, ``inclusive`` with the kernels it calls.  A size is ``None`` when a name
    cannot be resolved: a ``data`` argument of a kernel that is not called, or a name that is no
    data object (Aspen prints -9999 then)."""

    kernel: str
    exclusive: tuple[str, ...]
    inclusive: tuple[str, ...]
    exclusive_bytes: float | None
    inclusive_bytes: float | None
    unresolved: tuple[str, ...] = ()


@dataclass
class MemoryUsage:
    """``total``: the bytes of all data objects of the application; ``data`` each object's
    size; ``kernels`` what each kernel touches."""

    total: float
    data: dict[str, float]
    kernels: dict[str, KernelData]


class _DataWalk:
    def __init__(self, app: AppModel):
        self.app = app
        self._cache: dict[str, tuple[set, set, set]] = {}
        self._kept: list = []
        self._stack: list[str] = []

    def kernel(self, k: t.Kernel, dmap: Mapping[str, str | None]) -> tuple[set, set, set]:
        """(exclusive names, inclusive names, unresolved names)."""
        key = k.name if not dmap else None
        if key is not None and key in self._cache:
            return self._cache[key]
        if k.name in self._stack:
            return set(), set(), set()
        self._stack.append(k.name)
        try:
            excl: set[str] = set()
            incl: set[str] = set()
            bad: set[str] = set()
            local_data = {d.name for d in k.locals if isinstance(d, t.Data)}
            args = {a.name for a in k.args if a.kind == "data"}
            self._body(k.body, dmap, args, local_data, excl, incl, bad)
            incl |= excl
        finally:
            self._stack.pop()
        out = (excl, incl, bad)
        if key is not None:
            self._cache[key] = out
        return out

    def _resolve(self, name, dmap, args, bad) -> str | None:
        if name in args:
            target = dmap.get(name)
            if target is None:
                bad.add(name)
            return target
        if name not in self.app.data:
            bad.add(name)
            return None
        return name

    def _body(self, body, dmap, args, local_data, excl, incl, bad) -> None:
        for s in body:
            if isinstance(s, t.Execute):
                for c in s.clauses:
                    if c.data is not None:
                        d = self._resolve(c.data, dmap, args, bad)
                        if d is not None:
                            excl.add(d)
            elif isinstance(s, (t.Iterate, t.Map, t.Par, t.Seq)):
                self._body(s.body, dmap, args, local_data, excl, incl, bad)
            elif isinstance(s, t.If):
                self._body(s.then + s.other, dmap, args, local_data, excl, incl, bad)
            elif isinstance(s, (t.Probability, t.Switch)):
                for case in s.cases:
                    self._body(case.body, dmap, args, local_data, excl, incl, bad)
                self._body(s.other or (), dmap, args, local_data, excl, incl, bad)
            elif isinstance(s, t.Call):
                callee = self.app.kernel(s.kernel, s.loc)
                sub: dict[str, str | None] = {}
                for a, e in zip(callee.args, s.args, strict=False):
                    if a.kind != "data":
                        continue
                    if isinstance(e, t.Name):
                        sub[a.name] = self._resolve(e.name, dmap, args, bad)
                    else:
                        sub[a.name] = None
                _, inner, inner_bad = self.kernel(callee, sub)
                incl |= inner
                bad |= inner_bad


def data_set_expression(app: AppModel, kernel: str = "main", inclusive: bool = True
                        ) -> t.Expr | None:
    """The bytes of the data a kernel touches (with the kernels it calls when ``inclusive``),
    as an expression; None when a data name cannot be resolved."""
    k = app.main if kernel == "main" else app.kernel(kernel)
    excl, incl, bad = _DataWalk(app).kernel(k, {})
    if bad:
        return None
    return total(app.data[d].size_expr for d in sorted(incl if inclusive else excl)) or num(0)


def memory_usage(app: AppModel, params: Mapping[str, float | t.Expr] | None = None
                 ) -> MemoryUsage:
    """Data sizes: every data object, their total, and the data each kernel touches."""
    env = app_env(app, params)
    sizes = {name: env.eval(d.size_expr) for name, d in app.data.items()}
    walk = _DataWalk(app)
    kernels = {}
    for name, k in app.kernels.items():
        excl, incl, bad = walk.kernel(k, {})
        known = not bad
        kernels[name] = KernelData(
            kernel=name,
            exclusive=tuple(sorted(excl)),
            inclusive=tuple(sorted(incl)),
            exclusive_bytes=sum(sizes[d] for d in sorted(excl)) if known else None,
            inclusive_bytes=sum(sizes[d] for d in sorted(incl)) if known else None,
            unresolved=tuple(sorted(bad)),
        )
    return MemoryUsage(sum(sizes.values()), sizes, kernels)


# ----------------------------------------------------------------------------------------------
# Parameters
# ----------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ParameterInfo:
    """One parameter: full name, value (a number, or a tuple for arrays and tables), range
    (``(low, high)``) or enum values, and where it is defined.  ``error`` says why ``value`` is
    ``None`` when the parameter cannot be evaluated."""

    name: str
    value: float | tuple | None
    kind: str
    range: tuple[float, float] | None
    enum: tuple[str, ...] | None
    file: str
    line: int
    expression: str | None = None
    error: str | None = None


def parameters(model, params: Mapping[str, float | t.Expr] | None = None
               ) -> list[ParameterInfo]:
    """The parameters of an application or machine model, in definition order."""
    from sat.aspen.expr import to_text

    env = Env(model.params, overrides=params)
    enums = getattr(model, "enums", {})
    out = []
    for name, p in model.params.items():
        error = None
        try:
            value = env.value(name, p.loc)
        except AspenError as err:
            value, error = None, str(err)
        rng = None
        if p.range is not None:
            try:
                rng = (env.eval(p.range.low), env.eval(p.range.high))
            except AspenError as err:
                error = error or str(err)
        enum_values = None
        if p.enum is not None and p.kind != "enum value" and p.enum in enums:
            enum_values = enums[p.enum].values
        text = to_text(p.value) if p.value is not None else None
        out.append(ParameterInfo(name, value, p.kind, rng, enum_values, p.loc.file, p.loc.line,
                                 text, error))
    return out

