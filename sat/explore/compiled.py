"""The model's expressions printed as vectorised NumPy code, compiled once.

The tree evaluator (:meth:`sat.model.expr.Quantity.value`) walks the expressions for one
configuration of the parameters at a time.  :class:`CompiledModel` prints the quantities asked
for, and every quantity they refer to, as the statements of one Python function over NumPy
arrays (one element per configuration), in the manner of sympy's code printers: one
``_print_<Node>`` method per expression node.  Calling it evaluates every configuration in one
pass.  It computes what the tree evaluator computes (the same guarded division, CEILING, IF,
comparisons as 1 or 0) up to rounding: sums are added left to right, not exactly (``fsum``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from sat.model.expr import (
    Add,
    Compare,
    Div,
    Expr,
    Func,
    Mul,
    Num,
    Param,
    Quantity,
    Ref,
    direct_refs,
    params_in,
)

CHUNK = 16384  # configurations evaluated together

_COMPARE = {"<": "np.less", "<=": "np.less_equal", ">": "np.greater",
            ">=": "np.greater_equal", "=": "np.equal", "<>": "np.not_equal"}


def _div(num, den):
    nonzero = np.not_equal(den, 0)
    if nonzero.all():  # the common case: one pass
        return np.divide(num, den)
    out = np.zeros(np.broadcast_shapes(np.shape(num), np.shape(den)))
    return np.divide(num, den, out=out, where=nonzero)


def _ceiling(x, step):
    safe = np.where(step == 0, 1.0, step)
    return np.where(step == 0, 0.0, np.ceil(x / safe - 1e-12) * safe)


def _floor(x, step):
    safe = np.where(step == 0, 1.0, step)
    return np.where(step == 0, 0.0, np.floor(x / safe + 1e-12) * safe)


def _maximum(*args):
    result = args[0]
    for arg in args[1:]:
        result = np.maximum(result, arg)
    return result


def _minimum(*args):
    result = args[0]
    for arg in args[1:]:
        result = np.minimum(result, arg)
    return result


def _and(*args):
    result = np.not_equal(args[0], 0)
    for arg in args[1:]:
        result = np.logical_and(result, np.not_equal(arg, 0))
    return result * 1.0


def _or(*args):
    result = np.not_equal(args[0], 0)
    for arg in args[1:]:
        result = np.logical_or(result, np.not_equal(arg, 0))
    return result * 1.0


_FUNCTIONS = {"MAX": "_maximum", "MIN": "_minimum", "CEILING": "_ceiling", "FLOOR": "_floor",
              "ABS": "np.abs", "AND": "_and", "OR": "_or", "POWER": "np.power", "LN": "_ln",
              "SQRT": "_sqrt", "EXP": "np.exp"}
def _ln(x):
    return np.log(np.where(np.greater(x, 0), x, np.nan))


def _sqrt(x):
    return np.sqrt(np.where(np.greater_equal(x, 0), x, np.nan))


def _sum(*terms):
    result = terms[0]
    for term in terms[1:]:
        result = result + term
    return result


def _product(*factors):
    result = factors[0]
    for factor in factors[1:]:
        result = result * factor
    return result


# Terms from which a sum or product is a call: Python compiles "a + b + …" as nested
# operations, and its compiler recurses on their depth (3,000 terms overflow its stack).
_LONG = 32
_NAMESPACE = {"np": np, "_div": _div, "_sum": _sum, "_product": _product, "_ceiling": _ceiling,
              "_floor": _floor,
              "_maximum": _maximum, "_minimum": _minimum, "_and": _and, "_or": _or,
              "_ln": _ln, "_sqrt": _sqrt}


class NumpyPrinter:
    """Expression -> NumPy source over the variables of parameters and quantities."""

    def __init__(self, name_of_param, name_of_quantity):
        self.name_of_param = name_of_param
        self.name_of_quantity = name_of_quantity

    def doprint(self, expr: Expr) -> str:
        return getattr(self, "_print_" + type(expr).__name__)(expr)

    def _print_Num(self, expr: Num) -> str:
        return repr(float(expr.value))

    def _print_Param(self, expr: Param) -> str:
        return self.name_of_param(expr.name)

    def _print_Ref(self, expr: Ref) -> str:
        return self.name_of_quantity(expr.quantity)

    def _print_Add(self, expr: Add) -> str:
        if len(expr.terms) >= _LONG:
            return f"_sum({', '.join(map(self.doprint, expr.terms))})"
        return "(" + " + ".join(map(self.doprint, expr.terms)) + ")"

    def _print_Mul(self, expr: Mul) -> str:
        if len(expr.factors) >= _LONG:
            return f"_product({', '.join(map(self.doprint, expr.factors))})"
        return "(" + " * ".join(map(self.doprint, expr.factors)) + ")"

    def _print_Div(self, expr: Div) -> str:
        return f"_div({self.doprint(expr.num)}, {self.doprint(expr.den)})"

    def _print_Func(self, expr: Func) -> str:
        args = [self.doprint(a) for a in expr.args]
        if expr.name == "IF":
            return f"np.where(np.not_equal({args[0]}, 0), {args[1]}, {args[2]})"
        if expr.name == "NOT":
            return f"(np.equal({args[0]}, 0) * 1.0)"
        return f"{_FUNCTIONS[expr.name]}({', '.join(args)})"

    def _print_Compare(self, expr: Compare) -> str:
        return (f"({_COMPARE[expr.op]}({self.doprint(expr.left)}, "
                f"{self.doprint(expr.right)}) * 1.0)")


class CompiledModel:
    """``quantities`` (and what they refer to) as one compiled NumPy function.

    Call it with a mapping of every parameter name to a number or an array (arrays broadcast
    together: one element per configuration); it returns one array per quantity asked for.
    ``defaults``: parameter -> derived default (an expression over parameters alone): such a
    parameter missing from the mapping is computed from it, so it follows what it derives
    from; given in the mapping, it wins.
    """

    def __init__(self, quantities: Sequence[Quantity],
                 defaults: Mapping[str, Expr] | None = None):
        self.quantities = list(quantities)
        defaults = defaults or {}
        order = _dependency_order(self.quantities)
        names = {id(q): f"q{i}" for i, q in enumerate(order)}
        params: dict[str, str] = {}

        def param(name: str) -> str:
            return params.setdefault(name, f"p{len(params)}")

        printer = NumpyPrinter(param, lambda q: names[id(q)])
        body = [f"    {names[id(q)]} = {printer.doprint(q.expr)}" for q in order]
        # the derived defaults read, with those their own defaults read, in sheet order (each
        # refers only to parameters before it)
        needed: set[str] = set()
        stack = [name for name in params if name in defaults]
        while stack:
            name = stack.pop()
            if name not in needed:
                needed.add(name)
                stack.extend(n for n in params_in(defaults[name]) if n in defaults)
        derived = []
        for name in (n for n in defaults if n in needed):
            variable = param(name)
            derived.append(f"    {variable} = values[{name!r}] if {name!r} in values else "
                           f"{printer.doprint(defaults[name])}")
        head = [f"    {variable} = values[{name!r}]" for name, variable in params.items()
                if name not in needed]
        result = ", ".join(names[id(q)] for q in self.quantities)
        source = "\n".join(["def evaluate(values):", *head, *derived, *body,
                            f"    return [{result}{',' if len(self.quantities) == 1 else ''}]"])
        self.source = source
        self._function = _compile(source)
        self.parameters = [name for name in params if name not in needed]
        self.optional = sorted(needed)  # derived defaults: read when given
        self.statements = len(order)

    def __getstate__(self) -> dict:
        # sent to other processes (a Dask cluster) as its source, compiled again there; the
        # quantities stay behind (big trees only the caller needs)
        return {"source": self.source, "parameters": self.parameters,
                "optional": self.optional, "statements": self.statements,
                "count": len(self.quantities)}

    def __setstate__(self, state: dict) -> None:
        self.source, self.parameters = state["source"], state["parameters"]
        self.optional = state["optional"]
        self.statements = state["statements"]
        self.quantities = [None] * state["count"]  # type: ignore[list-item]
        self._function = _compile(self.source)

    def __call__(self, values: Mapping[str, float | np.ndarray]) -> list[np.ndarray]:
        arrays = {name: np.asarray(values[name], dtype=float) for name in self.parameters}
        arrays.update((name, np.asarray(values[name], dtype=float)) for name in self.optional
                      if name in values)
        size = max((a.size for a in arrays.values() if a.ndim), default=1)
        with np.errstate(all="ignore"):
            if size <= CHUNK:
                return [np.broadcast_to(np.asarray(v, dtype=float), (size,)).copy()
                        if size > 1 else np.asarray(v, dtype=float).reshape(-1)
                        for v in self._function(arrays)]
            # Chunks small enough for their temporaries to stay in cache.
            parts = [self._function({name: a[start:start + CHUNK] if a.ndim else a
                                     for name, a in arrays.items()})
                     for start in range(0, size, CHUNK)]
        return [np.concatenate([np.broadcast_to(np.asarray(part[k], dtype=float),
                                                (min(CHUNK, size - i * CHUNK),))
                                for i, part in enumerate(parts)])
                for k in range(len(self.quantities))]


def _compile(source: str):
    namespace = dict(_NAMESPACE)
    exec(compile(source, "<compiled model>", "exec"), namespace)  # noqa: S102
    return namespace["evaluate"]


def _dependency_order(targets: list[Quantity]) -> list[Quantity]:
    """Every quantity the targets need, each after those it refers to."""
    order: list[Quantity] = []
    state: dict[int, bool] = {}  # id -> finished
    for target in targets:
        stack: list[tuple[Quantity, bool]] = [(target, False)]
        while stack:
            quantity, expanded = stack.pop()
            if expanded:
                if not state.get(id(quantity)):
                    state[id(quantity)] = True
                    order.append(quantity)
                continue
            if id(quantity) in state:
                continue
            state[id(quantity)] = False
            stack.append((quantity, True))
            stack.extend((ref, False) for ref in direct_refs(quantity.expr)
                         if id(ref) not in state)
    return order

