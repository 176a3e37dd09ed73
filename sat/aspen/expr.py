"""Aspen expressions: evaluation against the parameters of a model, substitution, printing.

Values are doubles throughout, as in Aspen (``4/3`` is 1.333…, comparisons give 1 or 0).
Names resolve, in order, to the parameters of the scopes an :class:`Env` is built from (the
application model first, then the machine model, Aspen's order), then to the SI constants
``nano micro milli kilo mega giga tera peta exa``.  Parameters are evaluated lazily and once per
environment; a parameter that depends on itself is reported with the whole cycle.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Mapping
from dataclasses import dataclass

from sat.aspen import tree as t
from sat.aspen.errors import AspenError, DivisionByZero

SI_CONSTANTS: dict[str, float] = {
    "nano": 1e-9,
    "micro": 1e-6,
    "milli": 1e-3,
    "kilo": 1e3,
    "mega": 1e6,
    "giga": 1e9,
    "tera": 1e12,
    "peta": 1e15,
    "exa": 1e18,
}

#: Functions usable in expressions, with their number of arguments (None: one or more).
FUNCTIONS: dict[str, int | None] = {
    "log": 1,
    "log2": 1,
    "ceil": 1,
    "floor": 1,
    "sqrt": 1,
    "max": None,
    "min": None,
    "lookup": 3,
}


@dataclass(frozen=True)
class ParamDef:
    """A parameter as a model defines it (after imports: full dotted name, overridden value).

    ``kind`` is ``"scalar"``, ``"array"``, ``"table"`` or ``"enum value"``.  ``value`` is the
    expression of a scalar, ``array``/``table`` the element expressions.
    """

    name: str
    kind: str
    loc: t.Loc
    value: t.Expr | None = None
    array: tuple[t.Expr, ...] | None = None
    table: tuple[tuple[t.Expr, ...], ...] | None = None
    range: t.Range | None = None
    enum: str | None = None


Value = float | tuple  # a scalar, an array (tuple of floats) or a table (tuple of tuples)


class Env:
    """The parameters visible to an evaluation, with optional overrides.

    ``scopes`` are searched in order; ``overrides`` replace a parameter's value (the range, if
    any, stays the model's): a number, an expression (tree or Aspen text, in the model's names)
    or, for an array, a sequence of numbers.
    """

    def __init__(self, *scopes: Mapping[str, ParamDef],
                 overrides: Mapping[str, float | t.Expr] | None = None):
        self.scopes = scopes
        self.overrides: dict[str, float | t.Expr] = dict(overrides or {})
        for name in self.overrides:
            if self.lookup(name) is None:
                raise AspenError(f"cannot set '{name}': the model has no parameter of that name")
        self._cache: dict[str, Value] = {}
        self._active: list[str] = []

    def lookup(self, name: str) -> ParamDef | None:
        for scope in self.scopes:
            p = scope.get(name)
            if p is not None:
                return p
        return None

    # ------------------------------------------------------------------ parameter values
    def value(self, name: str, loc: t.Loc | None = None) -> Value:
        """The value of a parameter (scalar, array or table), evaluated once."""
        cached = self._cache.get(name)
        if cached is not None:
            return cached
        p = self.lookup(name)
        if p is None:
            if name in SI_CONSTANTS:
                return SI_CONSTANTS[name]
            raise AspenError(f"undefined name '{name}'", loc)
        if name in self._active:
            cycle = self._active[self._active.index(name):] + [name]
            raise AspenError(f"parameter cycle: {' -> '.join(cycle)}", p.loc)
        self._active.append(name)
        try:
            if name in self.overrides:
                val = self._override(self.overrides[name], p)
            elif p.kind == "array":
                val = tuple(self.eval(e) for e in p.array or ())
            elif p.kind == "table":
                val = tuple(tuple(self.eval(e) for e in row) for row in p.table or ())
            else:
                assert p.value is not None
                val = self.eval(p.value)
        finally:
            self._active.pop()
        self._cache[name] = val
        return val

    def _override(self, ov, p: ParamDef) -> Value:
        if isinstance(ov, numbers.Real):
            return float(ov)
        if isinstance(ov, str):
            from sat.aspen.parser import parse_expression

            return self.eval(parse_expression(ov, f"<value of {p.name}>"))
        if isinstance(ov, (list, tuple)):
            return tuple(self._override(x, p) for x in ov)
        return self.eval(ov)

    def scalar(self, name: str, loc: t.Loc | None = None) -> float:
        val = self.value(name, loc)
        if isinstance(val, tuple):
            raise AspenError(f"'{name}' is an array; index it (e.g. {name}[0])", loc)
        return val

    def array(self, name: str, loc: t.Loc | None = None) -> tuple:
        val = self.value(name, loc)
        if not isinstance(val, tuple):
            raise AspenError(f"'{name}' is not an array", loc)
        return val

    # ------------------------------------------------------------------ expressions
    def eval(self, e: t.Expr) -> float:
        """Evaluate an expression to a number (errors: :class:`AspenError` with file:line)."""
        method = _EVAL[type(e)]
        return method(self, e)

    def _num(self, e: t.Num) -> float:
        return e.value

    def _name(self, e: t.Name) -> float:
        return self.scalar(e.name, e.loc)

    def _unary(self, e: t.Unary) -> float:
        return -self.eval(e.operand)

    def _binary(self, e: t.Binary) -> float:
        op = e.op
        if op == "and":
            return 1.0 if (self.eval(e.left) != 0 and self.eval(e.right) != 0) else 0.0
        if op == "or":
            return 1.0 if (self.eval(e.left) != 0 or self.eval(e.right) != 0) else 0.0
        a = self.eval(e.left)
        b = self.eval(e.right)
        if op == "+":
            return a + b
        if op == "-":
            return a - b
        if op == "*":
            return a * b
        if op == "/":
            if b == 0:
                raise DivisionByZero(f"division by zero in '{to_text(e)}'", e.loc)
            return a / b
        if op == "^":
            try:
                return math.pow(a, b)
            except OverflowError:
                return math.inf
            except (ValueError, ZeroDivisionError):
                raise AspenError(f"{a:g} ^ {b:g} is undefined in '{to_text(e)}'",
                                 e.loc) from None
        if op == "==":
            return 1.0 if a == b else 0.0
        if op == "!=":
            return 1.0 if a != b else 0.0
        if op == "<":
            return 1.0 if a < b else 0.0
        if op == ">":
            return 1.0 if a > b else 0.0
        if op == "<=":
            return 1.0 if a <= b else 0.0
        if op == ">=":
            return 1.0 if a >= b else 0.0
        raise AspenError(f"unknown operator '{op}'", e.loc)

    def _cond(self, e: t.Cond) -> float:
        return self.eval(e.then) if self.eval(e.cond) != 0 else self.eval(e.other)

    def _index(self, e: t.Index) -> float:
        val = self.array(e.name, e.loc)
        for depth, ie in enumerate(e.indices):
            i = self.eval(ie)
            k = round(i)
            if abs(i - k) > 1e-9:
                raise AspenError(f"index {i:g} of '{e.name}' is not a whole number", e.loc)
            if not isinstance(val, tuple):
                raise AspenError(f"'{e.name}' has fewer than {depth + 1} dimensions", e.loc)
            if not 0 <= k < len(val):
                raise AspenError(f"index {k} is outside '{e.name}' ({len(val)} values, "
                                 f"indices 0 to {len(val) - 1})", e.loc)
            val = val[k]
        if isinstance(val, tuple):
            raise AspenError(f"'{e.name}' is a table; give both indices", e.loc)
        return val

    def _call(self, e: t.FuncCall) -> float:
        f = e.func
        if f not in FUNCTIONS:
            if f in ("uniform", "normal", "cdf"):
                raise AspenError(f"'{f}' is a distribution, only allowed in 'sample'", e.loc)
            raise AspenError(f"unknown function '{f}'", e.loc)
        arity = FUNCTIONS[f]
        if (arity is not None and len(e.args) != arity) or (arity is None and not e.args):
            want = f"{arity}" if arity is not None else "at least 1"
            raise AspenError(f"{f}() takes {want} argument(s), not {len(e.args)}", e.loc)
        if f == "lookup":
            return self._lookup(e)
        v = [self.eval(a) for a in e.args]
        if f == "max":
            return max(v)
        if f == "min":
            return min(v)
        if f == "ceil":
            return float(math.ceil(v[0])) if math.isfinite(v[0]) else v[0]
        if f == "floor":
            return float(math.floor(v[0])) if math.isfinite(v[0]) else v[0]
        if f == "sqrt":
            if v[0] < 0:
                raise AspenError(f"square root of {v[0]:g} in '{to_text(e)}'", e.loc)
            return math.sqrt(v[0])
        if v[0] <= 0:
            raise AspenError(f"logarithm of {v[0]:g} in '{to_text(e)}'", e.loc)
        return math.log(v[0]) if f == "log" else math.log(v[0]) / math.log(2)

    def _lookup(self, e: t.FuncCall) -> float:
        """``lookup(values, sizes, x)``: piecewise-linear in ``sizes``, extrapolated linearly
        beyond the first and last points (Aspen's interpolation)."""
        names = []
        for a in e.args[:2]:
            if not isinstance(a, t.Name):
                raise AspenError("lookup() takes two array names and a value", e.loc)
            names.append(a.name)
        ys = self.array(names[0], e.loc)
        xs = self.array(names[1], e.loc)
        if len(xs) != len(ys) or len(xs) < 2:
            raise AspenError(f"lookup() needs two arrays of the same length (at least 2): "
                             f"'{names[0]}' has {len(ys)}, '{names[1]}' has {len(xs)}", e.loc)
        x = self.eval(e.args[2])
        n = len(xs)
        for i in range(n - 1):
            if (i == 0 or x >= xs[i]) and (i == n - 2 or x <= xs[i + 1]):
                if xs[i + 1] == xs[i]:
                    raise AspenError(f"lookup(): '{names[1]}' repeats the value {xs[i]:g}",
                                     e.loc)
                slope = (ys[i + 1] - ys[i]) / (xs[i + 1] - xs[i])
                return ys[i] + slope * (x - xs[i])
        raise AspenError(f"lookup(): {x:g} cannot be placed in '{names[1]}' (not sorted?)",
                         e.loc)


_EVAL = {
    t.Num: Env._num,
    t.Name: Env._name,
    t.Unary: Env._unary,
    t.Binary: Env._binary,
    t.Cond: Env._cond,
    t.Index: Env._index,
    t.FuncCall: Env._call,
}


# ----------------------------------------------------------------------------------------------
# Substitution and construction helpers
# ----------------------------------------------------------------------------------------------


def substitute(e: t.Expr, bindings: Mapping[str, t.Expr]) -> t.Expr:
    """Replace the names in ``bindings`` (kernel arguments, loop counters, samples, ``base``)."""
    if not bindings:
        return e
    return _subst(e, bindings)


def _subst(e: t.Expr, b: Mapping[str, t.Expr]) -> t.Expr:
    if isinstance(e, t.Num):
        return e
    if isinstance(e, t.Name):
        return b.get(e.name, e)
    if isinstance(e, t.Binary):
        left, right = _subst(e.left, b), _subst(e.right, b)
        if left is e.left and right is e.right:
            return e
        return t.Binary(e.op, left, right, e.loc)
    if isinstance(e, t.Unary):
        operand = _subst(e.operand, b)
        return e if operand is e.operand else t.Unary(e.op, operand, e.loc)
    if isinstance(e, t.FuncCall):
        args = tuple(_subst(a, b) for a in e.args)
        if e.func == "lookup":  # the array arguments stay names (renamed if bound to a name)
            args = tuple(_rename(a, b) for a in e.args[:2]) + args[2:]
        return t.FuncCall(e.func, args, e.loc)
    if isinstance(e, t.Index):
        target = b.get(e.name)
        name = target.name if isinstance(target, t.Name) else e.name
        return t.Index(name, tuple(_subst(i, b) for i in e.indices), e.loc)
    if isinstance(e, t.Cond):
        return t.Cond(_subst(e.cond, b), _subst(e.then, b), _subst(e.other, b), e.loc)
    raise TypeError(f"not an expression: {e!r}")


def _rename(e: t.Expr, b: Mapping[str, t.Expr]) -> t.Expr:
    if isinstance(e, t.Name) and isinstance(b.get(e.name), t.Name):
        return b[e.name]
    return e


def num(value: float) -> t.Num:
    return t.Num(float(value), repr(float(value)) if value != int(value) else str(int(value)))


def add(a: t.Expr | None, b: t.Expr | None) -> t.Expr | None:
    """``a + b``, where a missing operand is 0."""
    if a is None:
        return b
    if b is None:
        return a
    return t.Binary("+", a, b, a.loc)


def mul(a: t.Expr, b: t.Expr) -> t.Expr:
    return t.Binary("*", a, b, b.loc)


_LONG = 32  # terms from which a sum is built as a balanced tree


def total(terms) -> t.Expr | None:
    """The sum of ``terms`` (``None`` ones left out).  A short sum adds left to right, as
    Aspen does; a long one (a kernel of 500 statements) is a balanced tree of the same terms,
    whose depth is the logarithm of its length: what evaluates it recurses on its depth."""
    present = _repeats_counted([term for term in terms if term is not None])
    if len(present) < _LONG:
        out = None
        for term in present:
            out = add(out, term)
        return out
    while len(present) > 1:
        present = [add(*present[i:i + 2]) if i + 1 < len(present) else present[i]
                   for i in range(0, len(present), 2)]
    return present[0]


def _repeats_counted(terms: list[t.Expr]) -> list[t.Expr]:
    """The same term (the same object: a kernel called twice with the same arguments) ``c``
    times is ``c * term``: a kernel that calls the next twice, 40 deep, is 40 products, not a
    sum of 2^40 terms."""
    counts: dict[int, int] = {}
    for term in terms:
        counts[id(term)] = counts.get(id(term), 0) + 1
    if len(counts) == len(terms):
        return terms
    out = []
    for term in terms:
        c = counts.pop(id(term), 0)
        if c:
            out.append(term if c == 1 else mul(num(c), term))
    return out


def names(e: t.Expr) -> set[str]:
    """The names an expression refers to (array names of indexing and lookup included)."""
    out: set[str] = set()
    stack = [e]
    while stack:
        x = stack.pop()
        if isinstance(x, t.Name):
            out.add(x.name)
        elif isinstance(x, t.Binary):
            stack += (x.left, x.right)
        elif isinstance(x, t.Unary):
            stack.append(x.operand)
        elif isinstance(x, t.FuncCall):
            stack += x.args
        elif isinstance(x, t.Index):
            out.add(x.name)
            stack += x.indices
        elif isinstance(x, t.Cond):
            stack += (x.cond, x.then, x.other)
    return out


# ----------------------------------------------------------------------------------------------
# Printing
# ----------------------------------------------------------------------------------------------

_PREC = {"or": 1, "and": 1, "==": 2, "!=": 2, "<": 2, ">": 2, "<=": 2, ">=": 2,
         "+": 3, "-": 3, "*": 4, "/": 4, "^": 6}


def to_text(e: t.Expr) -> str:
    """Aspen syntax with the parentheses the precedence needs (``2*n^3 / (a + b)``)."""
    return _text(e, 0)


def _fmt_num(e: t.Num) -> str:
    if e.text:
        return e.text
    v = e.value
    if v == int(v) and abs(v) < 1e15:
        return str(int(v))
    return repr(v)


def _text(e: t.Expr, outer: int) -> str:
    if isinstance(e, t.Num):
        s = _fmt_num(e)
        return f"({s})" if s.startswith("-") and outer > 3 else s
    if isinstance(e, t.Name):
        return e.name
    if isinstance(e, t.Index):
        return e.name + "".join(f"[{_text(i, 0)}]" for i in e.indices)
    if isinstance(e, t.FuncCall):
        return f"{e.func}({', '.join(_text(a, 0) for a in e.args)})"
    if isinstance(e, t.Unary):
        s = "-" + _text(e.operand, 5)
        return f"({s})" if outer > 5 else s
    if isinstance(e, t.Cond):
        s = f"{_text(e.cond, 1)} ? {_text(e.then, 1)} : {_text(e.other, 1)}"
        return f"({s})" if outer > 0 else s
    assert isinstance(e, t.Binary)
    p = _PREC[e.op]
    if e.op == "^":  # right-associative
        s = f"{_text(e.left, p + 1)}^{_text(e.right, p)}"
    elif p == 2:
        s = f"{_text(e.left, p + 1)} {e.op} {_text(e.right, p + 1)}"
    else:
        sep = " " if p <= 3 or e.op == "/" else ""
        s = f"{_text(e.left, p)}{sep}{e.op}{sep}{_text(e.right, p + 1)}"
    return f"({s})" if p < outer else s
