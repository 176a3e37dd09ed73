"""Model expressions: a tiny immutable expression tree evaluated in Python and printed to Excel.

Every derived number of the model is a :class:`Quantity` whose ``expr`` is built from
:class:`Num` (literals), :class:`Param` (named parameters, Excel defined names), :class:`Ref`
(another quantity, an Excel cell reference) and a handful of operators and functions that
Excel and LibreOffice compute the same way.  Python numbers come from :meth:`Expr.evaluate`;
workbook formulas from :class:`sat.report.formula.ExcelPrinter`.  Both walk the same tree, so
the two renderings cannot drift apart.

A small class of our own instead of sympy: a 400-nest program has tens of thousands of model
expressions, and building and evaluating them must stay small beside the Fortran parse.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Collection, Container, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field

Number = int | float


class Expr:
    """Base of all expression nodes; arithmetic operators build new nodes."""

    __slots__ = ()

    def __add__(self, other: ExprLike) -> Expr:
        return add(self, other)

    def __radd__(self, other: ExprLike) -> Expr:
        return add(other, self)

    def __sub__(self, other: ExprLike) -> Expr:
        return add(self, mul(-1, other))

    def __rsub__(self, other: ExprLike) -> Expr:
        return add(other, mul(-1, self))

    def __mul__(self, other: ExprLike) -> Expr:
        return mul(self, other)

    def __rmul__(self, other: ExprLike) -> Expr:
        return mul(other, self)

    def __truediv__(self, other: ExprLike) -> Expr:
        return div(self, other)

    def __rtruediv__(self, other: ExprLike) -> Expr:
        return div(other, self)

    def __neg__(self) -> Expr:
        return mul(-1, self)

    def evaluate(self, env: Env) -> float:
        raise NotImplementedError


ExprLike = Expr | int | float


class Env:
    """Parameter values plus a memo of evaluated quantities for one evaluation pass.

    ``defaults`` maps a parameter whose value is a derived default to its expression over
    other parameters: a parameter missing from ``params`` takes its value from it, so that
    changing what it derives from moves it, while a value in ``params`` (given) wins.
    """

    __slots__ = ("params", "memo", "defaults", "derived", "numbers")

    def __init__(self, params: Mapping[str, Number],
                 defaults: Mapping[str, Expr] | None = None):
        self.params = params
        self.memo: dict[int, float] = {}
        self.defaults = defaults or {}
        self.derived: dict[str, float] = {}
        self.numbers: dict[str, float] = {}  # every parameter read so far, as a float

    def param(self, name: str) -> float:
        try:
            return float(self.params[name])
        except KeyError:
            default = self.defaults.get(name)
            if default is None:
                raise KeyError(f"no value for parameter {name!r}") from None
        if name not in self.derived:
            self.derived[name] = default.evaluate(self)
        return self.derived[name]



def fsum(terms: Sequence[float]) -> float:
    """``math.fsum``, but an overflowing sum (``inf - inf``, finite terms beyond a double) is
    what plain addition gives, ``nan`` or ``±inf``: the model's checks then name the result
    that overflowed, rather than the sum raising."""
    try:
        return math.fsum(terms)
    except (ValueError, OverflowError):
        return sum(terms, 0.0)

# The nodes are immutable by convention, not ``frozen``: a frozen dataclass's ``__init__`` sets
# each field through ``object.__setattr__``, which doubles the cost of building the tens of
# thousands of nodes a program's model has.  ``unsafe_hash`` gives the same field-wise hash.
# Leaves are built once per value (hash-consing): a program's model has tens of thousands of
# literals and parameters but only a few hundred distinct ones, and a reference to a quantity is
# kept by the quantity.  ``__new__`` hands back the node already built; ``__init__`` then sets
# the same field to an equal value of the same type, so a shared node never changes.  The tables
# are emptied when they grow past _LEAVES_KEPT entries (only sharing is lost, never a value).
_LEAVES_KEPT = 1 << 16
_NUMBERS: dict[tuple, Num] = {}
_PARAMS: dict[str, Param] = {}
_UNPICKLING: object = object()  # the argument-less call of unpickling and copying: a new node


def _shared_leaf(cls: type, table: dict, key: object, given: object) -> Expr:
    """The node ``table`` holds for ``key``, built on first use; a fresh node when unpickling
    or copying (``given`` the sentinel), so a shared node is never overwritten."""
    if given is _UNPICKLING:
        return object.__new__(cls)
    node = table.get(key)
    if node is None:
        if len(table) >= _LEAVES_KEPT:
            table.clear()
        node = table[key] = object.__new__(cls)
    return node


@dataclass(unsafe_hash=True, slots=True)
class Num(Expr):
    """A number."""

    value: float

    def __new__(cls, value: float = _UNPICKLING) -> Num:  # type: ignore[assignment]
        # the type keeps 1 and 1.0 apart, the text of a zero 0.0 and -0.0 (they compare equal)
        key = (type(value), value) if value else (type(value), value, str(value))
        return _shared_leaf(cls, _NUMBERS, key, value)

    def evaluate(self, env: Env) -> float:
        return float(self.value)


@dataclass(unsafe_hash=True, slots=True)
class Param(Expr):
    """A named model input: a row of the Parameters sheet and a workbook defined name."""

    name: str

    def __new__(cls, name: str = _UNPICKLING) -> Param:  # type: ignore[assignment]
        return _shared_leaf(cls, _PARAMS, name, name)

    def evaluate(self, env: Env) -> float:
        value = env.numbers.get(self.name)
        if value is None:
            value = env.numbers[self.name] = env.param(self.name)
        return value


@dataclass(eq=False, slots=True)
class Quantity:
    """A named derived number: one workbook cell, one JSON field.

    ``key`` identifies it (e.g. ``("loop", 3, "time_s")``); ``unit`` is shown in headers.
    """

    key: tuple
    expr: Expr
    unit: str = ""
    label: str = ""
    ref: Ref | None = field(default=None, init=False, repr=False)  # the one Ref to it


    def value(self, env: Env) -> float:
        value = env.memo.get(id(self))
        if value is None:  # values are floats: None is "not evaluated yet"
            value = env.memo[id(self)] = self.expr.evaluate(env)
        return value


@dataclass(slots=True, eq=False)
class Ref(Expr):
    """A reference to another quantity (printed as its cell)."""

    quantity: Quantity

    def __new__(cls, quantity: Quantity = _UNPICKLING) -> Ref:  # type: ignore[assignment]
        if quantity is _UNPICKLING:
            return object.__new__(cls)
        node = quantity.ref
        if node is None:
            node = quantity.ref = object.__new__(cls)
        return node

    def evaluate(self, env: Env) -> float:
        quantity = self.quantity  # Quantity.value inlined: the commonest node of a walk
        value = env.memo.get(id(quantity))
        if value is None:
            value = env.memo[id(quantity)] = quantity.expr.evaluate(env)
        return value


@dataclass(unsafe_hash=True, slots=True)
class Add(Expr):
    """The sum of its terms."""

    terms: tuple[Expr, ...]

    def evaluate(self, env: Env) -> float:
        return fsum([t.evaluate(env) for t in self.terms])


@dataclass(unsafe_hash=True, slots=True)
class Mul(Expr):
    """The product of its factors."""

    factors: tuple[Expr, ...]

    def evaluate(self, env: Env) -> float:
        result = 1.0
        for f in self.factors:
            result *= f.evaluate(env)
        return result


@dataclass(unsafe_hash=True, slots=True)
class Div(Expr):
    """``num / den``; a zero denominator gives 0 (guarded in the formula too)."""

    num: Expr
    den: Expr

    def evaluate(self, env: Env) -> float:
        den = self.den.evaluate(env)
        return 0.0 if den == 0 else self.num.evaluate(env) / den


def _if(args: list[float]) -> float:
    return args[1] if args[0] else args[2]


# name -> Python implementation; the printer emits the same Excel function name.
# Only functions Excel and LibreOffice compute identically (see docs: TOOLCHAIN).
FUNCTIONS: dict[str, Callable[[list[float]], float]] = {
    "MAX": max,
    "MIN": min,
    "CEILING": lambda a: float(math.ceil(a[0] / a[1] - 1e-12) * a[1]) if a[1] else 0.0,
    "FLOOR": lambda a: float(math.floor(a[0] / a[1] + 1e-12) * a[1]) if a[1] else 0.0,
    "GCD": lambda a: float(math.gcd(int(a[0]), int(a[1]))),
    "IF": _if,
    "ABS": lambda a: abs(a[0]),
    "AND": lambda a: float(all(a)),
    "OR": lambda a: float(any(a)),
    "NOT": lambda a: float(not a[0]),
    # for models written in Aspen (powers, logarithms, roots)
    "POWER": lambda a: _real(lambda: math.pow(a[0], a[1])),
    "LN": lambda a: math.log(a[0]) if a[0] > 0 else math.nan,
    "SQRT": lambda a: math.sqrt(a[0]) if a[0] >= 0 else math.nan,
    "EXP": lambda a: _real(lambda: math.exp(a[0])),
}


def _real(compute: Callable[[], float]) -> float:
    """The value, infinite on overflow, NaN where undefined (Excel shows #NUM! there)."""
    try:
        return compute()
    except OverflowError:
        return math.inf
    except (ValueError, ZeroDivisionError):
        return math.nan


@dataclass(unsafe_hash=True, slots=True)
class Func(Expr):
    """A workbook function (MIN, MAX, IF, ...) applied to its arguments."""

    name: str
    args: tuple[Expr, ...]

    def evaluate(self, env: Env) -> float:
        if self.name == "IF":  # lazy: only the taken branch is evaluated
            cond = self.args[0].evaluate(env)
            return self.args[1 if cond else 2].evaluate(env)
        return float(FUNCTIONS[self.name]([a.evaluate(env) for a in self.args]))


COMPARISONS: dict[str, Callable[[float, float], bool]] = {
    "<": lambda a, b: a < b,
    "<=": lambda a, b: a <= b,
    ">": lambda a, b: a > b,
    ">=": lambda a, b: a >= b,
    "=": lambda a, b: a == b,
    "<>": lambda a, b: a != b,
}


@dataclass(unsafe_hash=True, slots=True)
class Compare(Expr):
    """A comparison of two expressions (true 1, false 0)."""

    op: str
    left: Expr
    right: Expr

    def evaluate(self, env: Env) -> float:
        return float(COMPARISONS[self.op](self.left.evaluate(env), self.right.evaluate(env)))


# ---------------------------------------------------------------- constructors


def as_expr(x: ExprLike | Quantity) -> Expr:
    kind = type(x)
    if kind in _EXPRESSIONS:  # the commonest case, one look at the type
        return x  # type: ignore[return-value]
    if kind is Quantity:  # then a quantity or a number, each one look at the type
        return Ref(x)  # type: ignore[arg-type]
    if kind is float or kind is int:
        return Num(x)  # type: ignore[arg-type]
    if isinstance(x, Expr):
        return x
    if isinstance(x, Quantity):
        return Ref(x)
    if isinstance(x, bool):
        return Num(float(x))
    if isinstance(x, (int, float)):
        return Num(x)
    raise TypeError(f"not an expression: {x!r}")


def add(*items: ExprLike | Quantity) -> Expr:
    """Sum, flattening nested sums and folding numeric literals."""
    terms: list[Expr] = []
    const = 0.0
    for item in items:
        kind = type(item)  # the node types are final: one look at each item's type
        if kind is Num:
            const += item.value  # type: ignore[union-attr]
        elif kind is Add:
            for p in item.terms:  # type: ignore[union-attr]
                if type(p) is Num:
                    const += p.value
                else:
                    terms.append(p)
        elif kind in _NODES:
            terms.append(item)  # type: ignore[arg-type]
        elif kind is Quantity:
            terms.append(Ref(item))  # type: ignore[arg-type]
        elif kind is float or kind is int:  # Num(item).value is item itself
            const += item  # type: ignore[operator]
        else:
            e = as_expr(item)
            if type(e) is Num:
                const += e.value  # type: ignore[attr-defined]
            else:
                terms.append(e)
    if const or not terms:
        terms.append(Num(const))
    return terms[0] if len(terms) == 1 else _shared(Add, "", tuple(terms))


def mul(*items: ExprLike | Quantity) -> Expr:
    """Product, flattening nested products and folding numeric literals."""
    factors: list[Expr] = []
    const = 1.0
    for item in items:
        kind = type(item)  # as in add()
        if kind is Num:
            const *= item.value  # type: ignore[union-attr]
        elif kind is Mul:
            for p in item.factors:  # type: ignore[union-attr]
                if type(p) is Num:
                    const *= p.value
                else:
                    factors.append(p)
        elif kind in _NODES:
            factors.append(item)  # type: ignore[arg-type]
        elif kind is Quantity:
            factors.append(Ref(item))  # type: ignore[arg-type]
        elif kind is float or kind is int:  # as in add()
            const *= item  # type: ignore[operator]
        else:
            e = as_expr(item)
            if type(e) is Num:
                const *= e.value  # type: ignore[attr-defined]
            else:
                factors.append(e)
    if const == 0:
        return Num(0)
    if const != 1 or not factors:
        factors.insert(0, Num(const))
    return factors[0] if len(factors) == 1 else _shared(Mul, "", tuple(factors))


# The node types that are neither a literal nor a sum nor a product: add() and mul() take
# them as they are.
_NODES = frozenset({Param, Ref, Div, Func, Compare})
_EXPRESSIONS = _NODES | {Num, Add, Mul}


# Operators are built once per operator and operands (hash-consing): a program's model builds
# the same sub-expression again for many quantities (two-thirds of the operator nodes of SMC's
# kernels.f90 are copies).  The operands are themselves shared, so a node is known by its
# operator and its operands' identities: the key is cheap to make and to hash, however deep the
# tree.  The table keeps the nodes it holds (and so their operands, whose identities it keys
# on) alive; it is emptied when it grows past _OPERATORS_KEPT entries, which bounds what it
# costs and loses only sharing across the cut (copies are mostly built close together).
_OPERATORS_KEPT = 1 << 17
_OPERATORS: dict[tuple, Expr] = {}


def _shared(kind: type, name: str, operands: tuple[Expr, ...]) -> Expr:
    """The ``kind`` node (Add, Mul, Div, Func ``name``, Compare ``name``) over ``operands``."""
    key = (kind, name, *map(id, operands))
    node = _OPERATORS.get(key)
    if node is None:
        if len(_OPERATORS) >= _OPERATORS_KEPT:
            _OPERATORS.clear()
        if kind is Add or kind is Mul:
            node = kind(operands)
        elif kind is Div:
            node = Div(*operands)
        else:
            node = kind(name, operands) if kind is Func else Compare(name, *operands)
        _OPERATORS[key] = node
    return node


def div(num: ExprLike | Quantity, den: ExprLike | Quantity) -> Expr:
    n = num if type(num) in _EXPRESSIONS else as_expr(num)
    d = den if type(den) in _EXPRESSIONS else as_expr(den)
    if type(d) is Num and d.value == 1:  # type: ignore[union-attr]
        return n  # type: ignore[return-value]
    if type(n) is Num and n.value == 0:  # type: ignore[union-attr]
        return Num(0)
    return _shared(Div, "", (n, d))  # type: ignore[arg-type]


def func(name: str, *args: ExprLike | Quantity) -> Expr:
    if name not in FUNCTIONS:
        raise ValueError(f"unsupported function {name}")
    return _shared(Func, name, _as_exprs(args))


def _as_exprs(items: Sequence[ExprLike | Quantity]) -> tuple[Expr, ...]:
    """``as_expr`` of each item: one look at the type of an expression, the commonest item."""
    return tuple([item if type(item) in _EXPRESSIONS else as_expr(item) for item in items])


def maximum(*args: ExprLike | Quantity) -> Expr:
    return args[0] if len(args) == 1 else _shared(Func, "MAX", _as_exprs(args))


def minimum(*args: ExprLike | Quantity) -> Expr:
    return args[0] if len(args) == 1 else _shared(Func, "MIN", _as_exprs(args))


def ceiling(x: ExprLike | Quantity, significance: ExprLike | Quantity = 1) -> Expr:
    """Round ``x`` up to a multiple of ``significance`` (Excel CEILING, positive arguments)."""
    return func("CEILING", x, significance)


def if_(
    cond: ExprLike | Quantity, then: ExprLike | Quantity, otherwise: ExprLike | Quantity
) -> Expr:
    return _shared(Func, "IF", (cond if type(cond) in _EXPRESSIONS else as_expr(cond),
                                then if type(then) in _EXPRESSIONS else as_expr(then),
                                otherwise if type(otherwise) in _EXPRESSIONS
                                else as_expr(otherwise)))


def compare(op: str, left: ExprLike | Quantity, right: ExprLike | Quantity) -> Expr:
    if op not in COMPARISONS:
        raise ValueError(f"unsupported comparison {op}")
    return _shared(Compare, op, (left if type(left) in _EXPRESSIONS else as_expr(left),
                                 right if type(right) in _EXPRESSIONS else as_expr(right)))


def evaluate(expr: ExprLike | Quantity, params: Mapping[str, Number]) -> float:
    """Evaluate one expression with fresh memo (convenience for tests)."""
    return as_expr(expr).evaluate(Env(params))


def sweep(quantities: list[Quantity], base: Env, name: str, values: Iterable[float],
          known: Known | None = None) -> list[list[float]]:
    """The quantities' values with parameter ``name`` set to each of ``values`` in turn.

    Every other parameter is as in ``base``.  The numbers are the very ones a fresh evaluation
    at each point computes: the same operations on the same operands in the same order.  The
    expressions are walked once for all the points together (:class:`_Sweep`): a part that does
    not depend on ``name`` is computed once, a part that does is computed for every point in
    one pass over its node, so a chart over one parameter costs about one evaluation of what
    it shows instead of one per point.

    ``known`` (:class:`Known`) spares the walk of what does not move with ``name``: a quantity
    that reads neither ``name`` nor a parameter ``base`` sets otherwise takes its value from
    another evaluation, so several sweeps of one model share it, and one that reads only the
    latter is evaluated once in ``base``.
    """
    points = _Sweep(base, name, values, known)
    every = range(len(points.values))
    columns = [points.quantity(q, every) for q in quantities]
    return [[c[i] if type(c) is list else c for c in columns] for i in every]


@dataclass(frozen=True, slots=True)
class Known:
    """What a sweep need not walk (:func:`sweep`): ``env`` is an evaluation at other values of
    some parameters, ``moved`` the ids of the quantities whose value may differ from it in the
    sweep's base, ``swept`` those that read the swept parameter (both from :func:`readers`)."""

    env: Env
    moved: Container[int]
    swept: Container[int]


# A value at a set of points: one float when it is the same at every point (nothing it was
# computed from depends on the swept parameter), else a list with one float per point asked.
Values = float | list[float]


class _Sweep:
    """Evaluates expressions at many values of one parameter at once.

    Each method takes the positions (indices into ``values``) of the points wanted and returns
    their values, following :meth:`Expr.evaluate` operation for operation: a sum is one
    ``math.fsum`` per point over the terms in order, a product multiplies 1.0 by each factor in
    turn, and only what a point's evaluation would reach is computed at that point (an
    ``IF``'s other branch, the numerator over a zero denominator are not).  A result that
    involved the swept parameter is always a list, even where every point took the same way,
    so that a float means "independent of the parameter" and can serve any later point.
    """

    def __init__(self, base: Env, name: str, values: Iterable[float],
                 known: Known | None = None):
        self.base = base
        self.known = known
        self.name = name
        self.values = [float(v) for v in values]  # Env.param gives floats
        # quantity id -> its value: a float, or one slot per point (None until computed)
        self.memo: dict[int, float | list[float | None]] = {}
        self.by_type: dict[type, Callable[[Expr, Sequence[int]], Values]] = {
            Num: self._num, Param: self._param, Ref: self._ref, Add: self._add, Mul: self._mul,
            Div: self._div, Func: self._func, Compare: self._compare}

    def quantity(self, quantity: Quantity, at: Sequence[int]) -> Values:
        if self.known is not None and id(quantity) not in self.known.swept:
            return quantity.value(self.base if id(quantity) in self.known.moved
                                  else self.known.env)
        known = self.memo.get(id(quantity))
        if type(known) is float:
            return known
        if known is None:
            value = self.by_type[type(quantity.expr)](quantity.expr, at)
            if type(value) is float:
                self.memo[id(quantity)] = value
                return value
            known = self.memo[id(quantity)] = [None] * len(self.values)
            for i, v in zip(at, value, strict=True):
                known[i] = v
            return value
        missing = [i for i in at if known[i] is None]
        if missing:
            value = self.by_type[type(quantity.expr)](quantity.expr, missing)
            for i, v in zip(missing, _spread(value, len(missing)), strict=True):
                known[i] = v
        return [known[i] for i in at]  # type: ignore[misc]

    def expr(self, node: Expr, at: Sequence[int]) -> Values:
        return self.by_type[type(node)](node, at)

    def _num(self, node: Num, at: Sequence[int]) -> Values:
        return float(node.value)

    def _param(self, node: Param, at: Sequence[int]) -> Values:
        if node.name == self.name:
            return [self.values[i] for i in at]
        default = self.base.defaults.get(node.name)
        if default is not None and node.name not in self.base.params:
            return self.expr(default, at)  # a derived default moves with what it derives from
        return self.base.param(node.name)

    def _ref(self, node: Ref, at: Sequence[int]) -> Values:
        return self.quantity(node.quantity, at)

    def _add(self, node: Add, at: Sequence[int]) -> Values:
        terms = [self.expr(t, at) for t in node.terms]
        if all(type(t) is float for t in terms):
            return fsum(terms)
        return [fsum(column)
                for column in zip(*(_spread(t, len(at)) for t in terms), strict=True)]

    def _mul(self, node: Mul, at: Sequence[int]) -> Values:
        result: Values = 1.0
        for factor in node.factors:
            f = self.expr(factor, at)
            if type(result) is float:
                result = result * f if type(f) is float else [result * x for x in f]
            else:
                result = [r * f for r in result] if type(f) is float \
                    else [r * x for r, x in zip(result, f, strict=True)]
        return result

    def _div(self, node: Div, at: Sequence[int]) -> Values:
        den = self.expr(node.den, at)
        if type(den) is float:
            return 0.0 if den == 0 else _divide(self.expr(node.num, at), den)
        result = [0.0] * len(at)
        taken = [k for k, d in enumerate(den) if d != 0]  # the numerator only where used
        if taken:
            num = _spread(self.expr(node.num, [at[k] for k in taken]), len(taken))
            for k, n in zip(taken, num, strict=True):
                result[k] = n / den[k]
        return result

    def _func(self, node: Func, at: Sequence[int]) -> Values:
        if node.name == "IF":
            cond = self.expr(node.args[0], at)
            if type(cond) is float:
                return self.expr(node.args[1 if cond else 2], at)
            result: list[float] = [0.0] * len(at)
            for arg, wanted in ((node.args[1], True), (node.args[2], False)):
                taken = [k for k, c in enumerate(cond) if bool(c) is wanted]
                if taken:
                    branch = self.expr(arg, [at[k] for k in taken])
                    for k, v in zip(taken, _spread(branch, len(taken)), strict=True):
                        result[k] = v
            return result
        function = FUNCTIONS[node.name]
        args = [self.expr(a, at) for a in node.args]
        if all(type(a) is float for a in args):
            return float(function(args))
        return [float(function(list(column)))
                for column in zip(*(_spread(a, len(at)) for a in args), strict=True)]

    def _compare(self, node: Compare, at: Sequence[int]) -> Values:
        compare = COMPARISONS[node.op]
        left, right = self.expr(node.left, at), self.expr(node.right, at)
        if type(left) is float and type(right) is float:
            return float(compare(left, right))
        return [float(compare(a, b))
                for a, b in zip(_spread(left, len(at)), _spread(right, len(at)), strict=True)]


def readers(quantities: Iterable[Quantity], names: Collection[str], env: Env
            ) -> dict[int, frozenset[str]]:
    """For every quantity the given ones reach (themselves included), by id: which of the
    parameters ``names`` its value reads, through the quantities it refers to and the derived
    defaults ``env`` takes (a parameter ``env`` has a value for reads nothing further)."""
    found: dict[int, frozenset[str]] = {}
    params: dict[str, frozenset[str]] = {}
    nothing: frozenset[str] = frozenset()

    def of_param(name: str) -> frozenset[str]:
        read = params.get(name)
        if read is None:
            read = frozenset((name,)) if name in names else nothing
            default = env.defaults.get(name)
            if default is not None and name not in env.params:
                params[name] = read  # a default that reads itself: no loop
                read = read | of(default)
            params[name] = read
        return read

    def of_quantity(quantity: Quantity) -> frozenset[str]:
        read = found.get(id(quantity))
        if read is None:
            read = found[id(quantity)] = of(quantity.expr)
        return read

    shared: dict[int, frozenset[str]] = {}  # by identity: the model shares sub-expressions

    def of(node: Expr) -> frozenset[str]:
        kind = type(node)
        if kind is Ref:
            return of_quantity(node.quantity)
        if kind is Param:
            return of_param(node.name)
        if kind is Num:
            return nothing
        read = shared.get(id(node))
        if read is None:
            read = nothing
            for child in _CHILDREN[kind](node):
                more = of(child)
                if more:
                    read = read | more
            shared[id(node)] = read
        return read

    for quantity in quantities:
        of_quantity(quantity)
    return found


def _spread(value: Values, count: int) -> list[float]:
    """``value`` at each of ``count`` points."""
    return value if type(value) is list else [value] * count


def _divide(num: Values, den: float) -> Values:
    return num / den if type(num) is float else [n / den for n in num]


def children(node: Expr) -> tuple[Expr, ...]:
    """The sub-expressions of a node (a Ref's quantity is not looked into)."""
    get = _CHILDREN.get(type(node))
    return get(node) if get else ()


# node type -> its sub-expressions; one dictionary look-up per node in whole-model walks
_CHILDREN: dict[type, Callable[[Expr], tuple[Expr, ...]]] = {
    Add: lambda node: node.terms,
    Mul: lambda node: node.factors,
    Func: lambda node: node.args,
    Div: lambda node: (node.num, node.den),
    Compare: lambda node: (node.left, node.right),
}


def params_in(expr: Expr) -> Iterator[str]:
    """The parameter names an expression reads, looking through the quantities it refers to."""
    stack = [expr]
    while stack:
        node = stack.pop()
        if isinstance(node, Param):
            yield node.name
        elif isinstance(node, Ref):
            stack.append(node.quantity.expr)
        else:
            stack.extend(children(node))


def inlined(expr: Expr) -> Expr:
    """``expr`` with every reference to a quantity replaced by the quantity's expression: an
    expression over parameters alone (a derived default's formula)."""
    if isinstance(expr, Ref):
        return inlined(expr.quantity.expr)
    if isinstance(expr, Add):
        return Add(tuple(inlined(t) for t in expr.terms))
    if isinstance(expr, Mul):
        return Mul(tuple(inlined(f) for f in expr.factors))
    if isinstance(expr, Div):
        return Div(inlined(expr.num), inlined(expr.den))
    if isinstance(expr, Func):
        return Func(expr.name, tuple(inlined(a) for a in expr.args))
    if isinstance(expr, Compare):
        return Compare(expr.op, inlined(expr.left), inlined(expr.right))
    return expr


def direct_refs(expr: Expr) -> Iterator[Quantity]:
    """The quantities an expression refers to, without looking inside their own expressions."""
    stack = [expr]
    while stack:
        node = stack.pop()
        if isinstance(node, Ref):
            yield node.quantity
        else:
            stack.extend(children(node))
