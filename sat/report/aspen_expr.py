"""Model expressions in Aspen's syntax: folded over the problem parameters (every other
parameter by its value, tests between expressions decided at the current values) and printed
with one ``_print_<Type>`` method per node."""

from __future__ import annotations

import math
import re
from collections.abc import Iterable
from dataclasses import dataclass

from sat.model import expr as E
from sat.model.expr import Env, Quantity
from sat.model.tables import ModelResult

# Words an Aspen name must not be: the language's keywords, the functions of its expressions,
# the SI constants every model knows, and the kernel every model runs.
RESERVED = frozenset("""
    model param in enum data as import from with include kernel execute of size to iterate map
    par seq call if else probability switch sample and or property resource conflict static
    dynamic power log log2 ceil floor sqrt max min lookup uniform normal cdf nano micro milli
    kilo mega giga tera peta exa main
""".split())

_NOT_NAME = re.compile(r"[^A-Za-z0-9_]+")


def aspen_name(text: str) -> str:
    """``text`` as an Aspen identifier: other characters become ``_``, a reserved word or a
    leading digit gets ``_`` appended or prepended."""
    name = _NOT_NAME.sub("_", text).strip("_") or "x"
    if name[0].isdigit():
        name = "_" + name
    return name + "_" if name in RESERVED else name


def format_number(value: float, exact: bool = False) -> str:
    """A number as Aspen reads it: whole numbers without a point; others to 15 significant
    digits (``exact``: every digit, for parameter values)."""
    if not math.isfinite(value):
        raise ValueError(f"no Aspen number for {value!r}")
    if value == int(value) and abs(value) < 1e15:
        return str(int(value))
    return repr(float(value)) if exact else format(value, ".15g")


# ---------------------------------------------------------------------------------- folding


@dataclass
class Decision:
    """A test of the model made at the current parameter values: what is tested (a quantity
    with its value), the test (``== 2``, ``< CacheKB (64)``) and what it gave."""

    subject: str
    test: str
    outcome: str


class Folder:
    """Partial evaluation of model expressions at the current parameter values.

    Problem parameters stay names; every other parameter becomes its value (``used`` records
    which); a part that depends on no problem parameter becomes the number satreport computes
    for it; an ``IF`` on problem parameters is decided at the current values (a
    :class:`Decision`).  Quantities fold once each, into a new quantity with the same key and
    label (or into a number, a parameter, or the quantity they merely refer to).  The result
    is a tree of ``Num``, ``Param``, ``Ref``, ``Add``, ``Mul``, ``Div`` and the functions
    ``MAX``, ``MIN``, ``CEILING``, ``FLOOR``, ``ABS``: what Aspen can write.
    """

    def __init__(self, result: ModelResult, env: Env):
        self.env = env
        self.problem = {p.name for p in result.parameters if p.group == "problem"}
        self.used: dict[str, float] = {}
        self.decisions: list[Decision] = []
        self._quantities: dict[int, E.Expr] = {}
        self._depends: dict[int, bool] = {}
        self._machine: dict[int, frozenset[str]] = {}  # quantity id -> its other parameters
        self._made: dict[int, set[int]] = {}  # quantity id -> indices of its decisions
        self._stack: list[set[int]] = [set()]
        self._by_text: dict[tuple[str, str, str], int] = {}  # a decision -> its index
        self._alive: list[object] = []  # keeps the ids above valid

    # -- the decisions behind a set of expressions
    def decisions_of(self, exprs: Iterable[E.Expr | Quantity]) -> list[Decision]:
        self._stack.append(set())
        for expr in exprs:
            self.fold(expr)
        made = self._stack.pop()
        self._stack[-1] |= made
        return [self.decisions[i] for i in sorted(made)]

    def fold(self, expr: E.Expr | Quantity) -> E.Expr:
        if isinstance(expr, Quantity):
            return self._quantity(expr)
        return self._fold(expr)

    def _fold(self, node: E.Expr) -> E.Expr:
        kind = type(node)
        if kind is E.Num:
            return node
        if kind is E.Param:
            if node.name in self.problem:
                return node
            value = self.env.param(node.name)
            self.used[node.name] = value
            return E.Num(value)
        if kind is E.Ref:
            return self._quantity(node.quantity)
        if kind is E.Add:
            terms = [self._fold(t) for t in node.terms]
            return self._number(node) if _constant(terms) else E.add(*terms)
        if kind is E.Mul:
            factors = [self._fold(f) for f in node.factors]
            return self._number(node) if _constant(factors) else E.mul(*factors)
        if kind is E.Div:
            num, den = self._fold(node.num), self._fold(node.den)
            if _constant([num, den]):
                return self._number(node)
            if isinstance(den, E.Num):
                return E.Num(0) if den.value == 0 else E.mul(1 / den.value, num)
            if self._depends_on_problem(node.den) and node.den.evaluate(self.env) == 0:
                # the model's guard: a zero denominator gives 0 (Aspen would stop)
                self._decide(node, self._describe(node.den), "== 0",
                             "true: the quotient is taken as 0, as in satreport")
                return E.Num(0)
            return E.Div(num, den)
        if kind is E.Func:
            return self._function(node)
        # a comparison used as a number
        return self._evaluated(node)

    def _function(self, node: E.Func) -> E.Expr:
        name = node.name
        if name == "IF":
            condition = node.args[0]
            taken = bool(condition.evaluate(self.env))
            if self._depends_on_problem(condition):
                self._decide(condition, *self._test(condition), "true" if taken else "false")
            else:  # the values it was decided with
                self._record(self._parameters(condition))
            return self._fold(node.args[1 if taken else 2])
        if name in ("MAX", "MIN", "CEILING", "FLOOR", "ABS"):
            args = [self._fold(a) for a in node.args]
            if _constant(args):
                return self._number(node)
            if name in ("MAX", "MIN") and len(args) == 1:
                return args[0]
            return E.Func(name, tuple(args))
        return self._evaluated(node)  # AND, OR, NOT as numbers

    def _evaluated(self, node: E.Expr) -> E.Expr:
        value = node.evaluate(self.env)
        if self._depends_on_problem(node):
            self._decide(node, self._describe(node), "",
                         f"evaluated to {format_number(value)} (Aspen cannot write it)")
        else:
            self._record(self._parameters(node))
        return E.Num(value)

    def _number(self, node: E.Expr) -> E.Num:
        """A node of constant parts, as satreport computes it (same operations, same order)."""
        return E.Num(node.evaluate(self.env))

    def _quantity(self, quantity: Quantity) -> E.Expr:
        ident = id(quantity)
        if ident not in self._quantities:
            self._stack.append(set())
            folded = self._fold(quantity.expr)
            if isinstance(folded, E.Num):
                folded = E.Num(quantity.value(self.env))
            elif not isinstance(folded, (E.Param, E.Ref)):
                folded = E.Ref(Quantity(quantity.key, folded, quantity.unit, quantity.label))
            self._made[ident] = self._stack.pop()
            self._quantities[ident] = folded
            self._alive.append(quantity)
        self._stack[-1] |= self._made[ident]
        return self._quantities[ident]

    def _decide(self, node: E.Expr, subject: str, test: str, outcome: str) -> None:
        key = (subject, test, outcome)
        index = self._by_text.get(key)
        if index is None:
            index = self._by_text[key] = len(self.decisions)
            self.decisions.append(Decision(subject, test, outcome))
            self._record(self._parameters(node))  # the values the test depends on
        self._stack[-1].add(index)

    def _record(self, names: Iterable[str]) -> None:
        for name in names:
            self.used[name] = self.env.param(name)

    def _parameters(self, node: E.Expr) -> frozenset[str]:
        """The parameters other than the problem's a node depends on."""
        kind = type(node)
        if kind is E.Param:
            return frozenset() if node.name in self.problem else frozenset((node.name,))
        if kind is E.Ref:
            ident = id(node.quantity)
            if ident not in self._machine:
                self._machine[ident] = self._parameters(node.quantity.expr)
                self._alive.append(node.quantity)
            return self._machine[ident]
        found: frozenset[str] = frozenset()
        for child in E.children(node):
            found |= self._parameters(child)
        return found

    def _depends_on_problem(self, node: E.Expr) -> bool:
        kind = type(node)
        if kind is E.Param:
            return node.name in self.problem
        if kind is E.Ref:
            ident = id(node.quantity)
            if ident not in self._depends:
                self._depends[ident] = self._depends_on_problem(node.quantity.expr)
                self._alive.append(node.quantity)
            return self._depends[ident]
        return any(self._depends_on_problem(child) for child in E.children(node))

    def _describe(self, node: E.Expr) -> str:
        """An expression as a reader can check it: quantities by their label, with values."""
        return _Describer(self.env).side(node)

    def _test(self, condition: E.Expr) -> tuple[str, str]:
        """(subject, test) of a condition: ``a < b`` is ``a`` and ``< b``."""
        describe = _Describer(self.env)
        if type(condition) is E.Compare:
            op = _COMPARE_TEXT.get(condition.op, condition.op)
            return describe.side(condition.left), f"{op} {describe.side(condition.right)}"
        return describe.text(condition), ""


def _constant(nodes: list[E.Expr]) -> bool:
    return all(isinstance(n, E.Num) for n in nodes)


_LOGICAL = ("AND", "OR", "NOT")
_COMPARE_TEXT = {"=": "==", "<>": "!="}
_SHORT = 90  # characters of a described side before it is shortened


class _Describer:
    """Model expressions as text for comments: a quantity is its label with its value."""

    def __init__(self, env: Env):
        self.env = env

    def text(self, node: E.Expr) -> str:
        kind = type(node)
        if kind is E.Compare:
            op = _COMPARE_TEXT.get(node.op, node.op)
            return f"{self.side(node.left)} {op} {self.side(node.right)}"
        if kind is E.Func and node.name in ("AND", "OR"):
            return f" {node.name.lower()} ".join(f"({self.text(a)})" for a in node.args)
        if kind is E.Func and node.name == "NOT":
            return f"not ({self.text(node.args[0])})"
        return self.side(node)

    def side(self, node: E.Expr) -> str:
        kind = type(node)
        if kind is E.Num:
            return format_number(node.value)
        if kind is E.Param:
            return f"{node.name} ({format_number(self.env.param(node.name))})"
        if kind is E.Ref:
            q = node.quantity
            return f"[{q.label or '_'.join(map(str, q.key))}] ({q.value(self.env):.6g})"
        text = self.plain(node)
        if len(text) > _SHORT:
            text = text[:_SHORT - 1] + "…"
        return f"{text} (= {node.evaluate(self.env):.6g})"

    def plain(self, node: E.Expr) -> str:
        kind = type(node)
        if kind is E.Num:
            return format_number(node.value)
        if kind is E.Param:
            return node.name
        if kind is E.Ref:
            return f"[{node.quantity.label or node.quantity.key[-1]}]"
        if kind is E.Add:
            text = self.plain(node.terms[0])
            for term in node.terms[1:]:
                negated = _negated(term)
                text += f" - {self.plain(negated)}" if negated is not None \
                    else f" + {self.plain(term)}"
            return f"({text})"
        if kind is E.Mul:
            return " * ".join(self.plain(f) for f in node.factors)
        if kind is E.Div:
            return f"{self.plain(node.num)} / ({self.plain(node.den)})"
        if kind is E.Compare:
            op = _COMPARE_TEXT.get(node.op, node.op)
            return f"{self.plain(node.left)} {op} {self.plain(node.right)}"
        return f"{node.name.lower()}({', '.join(self.plain(a) for a in node.args)})"


# ---------------------------------------------------------------------------------- printing

# Precedence levels: higher binds tighter (Aspen: + - < * / < unary - < ^).
_ADD, _MUL, _UNARY, _POW, _ATOM = 1, 2, 3, 4, 5


class AspenPrinter:
    """Prints folded model expressions in Aspen syntax, one ``_print_<Node>`` per node type.

    ``names`` gives the Aspen name of each quantity written as a ``param`` of its own (the
    others are written in place), ``parameters`` those of the problem parameters.  A quantity
    in GB is a parameter in bytes: ``scale`` holds the factor (1e9) by which its parameter is
    larger than the quantity.
    """

    def __init__(self, names: dict[int, str], parameters: dict[str, str],
                 scale: dict[int, float] | None = None):
        self.names = names
        self.parameters = parameters
        self.scale = scale or {}

    def doprint(self, expr: E.Expr) -> str:
        return self._print(self.flatten(expr))[0]

    def definition(self, quantity: Quantity) -> str:
        """The expression of a quantity's parameter (in bytes for one in GB)."""
        return self.doprint(E.mul(self.scale.get(id(quantity), 1.0), quantity.expr))

    def flatten(self, expr: E.Expr) -> E.Expr:
        """``expr`` with the quantities that are no parameter of their own written in place,
        and sums and products merged again (``1e9 * (2.4e-8 * x)`` is ``24 * x``)."""
        kind = type(expr)
        if kind is E.Ref:
            if id(expr.quantity) in self.names:
                factor = self.scale.get(id(expr.quantity))
                return expr if factor is None else E.mul(1 / factor, expr)
            return self.flatten(expr.quantity.expr)
        if kind is E.Add:
            # like terms together: 8 * x + 8 * x is 16 * x
            like: dict[str, list] = {}  # a term's text without its coefficient -> [sum, term]
            for term in expr.terms:
                coefficient, rest = _coefficient(self.flatten(term))
                text = "" if rest is None else self._print(rest)[0]
                if text in like:
                    like[text][0] += coefficient
                else:
                    like[text] = [coefficient, rest]
            return E.add(*(E.Num(c) if rest is None else E.mul(c, rest)
                           for c, rest in like.values()))
        if kind is E.Mul:
            product = E.mul(*(self.flatten(f) for f in expr.factors))
            # a number times a sum: into the sum, 1e9 * (1e-9 * a - 1e-9 * b) is a - b
            if type(product) is E.Mul and len(product.factors) == 2 \
                    and type(product.factors[0]) is E.Num and type(product.factors[1]) is E.Add:
                return E.add(*(E.mul(product.factors[0], t) for t in product.factors[1].terms))
            return product
        if kind is E.Div:
            return E.Div(self.flatten(expr.num), self.flatten(expr.den))
        if kind is E.Func:
            args = [self.flatten(a) for a in expr.args]
            if expr.name in ("MAX", "MIN"):  # max(x, x) is x
                texts = {self._print(a)[0]: a for a in args}
                if len(texts) == 1:
                    return args[0]
                args = list(texts.values())
            return E.Func(expr.name, tuple(args))
        return expr

    def _print(self, expr: E.Expr) -> tuple[str, int]:
        return getattr(self, f"_print_{type(expr).__name__}")(expr)

    def _wrap(self, expr: E.Expr, minimum: int) -> str:
        text, level = self._print(expr)
        return f"({text})" if level < minimum else text

    def _print_Num(self, expr: E.Num) -> tuple[str, int]:
        return format_number(expr.value), _UNARY if expr.value < 0 else _ATOM

    def _print_Param(self, expr: E.Param) -> tuple[str, int]:
        return self.parameters.get(expr.name, expr.name), _ATOM

    def _print_Ref(self, expr: E.Ref) -> tuple[str, int]:
        return self.names[id(expr.quantity)], _ATOM

    def _print_Add(self, expr: E.Add) -> tuple[str, int]:
        # constants last, as one writes them: hi_1 - lo_1 + 1
        terms = sorted(expr.terms, key=lambda t: isinstance(t, E.Num))
        parts = [self._wrap(terms[0], _ADD)]
        for term in terms[1:]:
            negated = _negated(term)
            if negated is not None:
                parts.append(f"- {self._wrap(negated, _MUL)}")
            else:
                parts.append(f"+ {self._wrap(term, _ADD)}")
        return " ".join(parts), _ADD

    def _print_Mul(self, expr: E.Mul) -> tuple[str, int]:
        factors = list(expr.factors)
        negative = False
        if isinstance(factors[0], E.Num):
            coefficient = factors[0].value
            negative = coefficient < 0
            if format_number(abs(coefficient)) == "1":  # 1e9 * 1e-9 and the like
                factors.pop(0)
            elif negative:
                factors[0] = E.Num(-coefficient)
        # repeated factors as powers: n * n * n -> n^3
        runs: list[list] = []  # [text, precedence, count]
        for factor in factors:
            text, level = self._print(factor)
            if runs and runs[-1][0] == text and not isinstance(factor, E.Num):
                runs[-1][2] += 1
            else:
                runs.append([text, level, 1])
        parts = [(f"{text if level >= _ATOM else f'({text})'}^{count}", _POW) if count > 1
                 else (text, level) for text, level, count in runs]
        if len(parts) == 1:
            text, level = parts[0]
        else:
            text = " * ".join(t if lv >= _MUL else f"({t})" for t, lv in parts)
            level = _MUL
        if negative:
            return (f"-{text}" if level >= _UNARY else f"-({text})"), _UNARY
        return text, level

    def _print_Div(self, expr: E.Div) -> tuple[str, int]:
        return f"{self._wrap(expr.num, _MUL)} / {self._wrap(expr.den, _UNARY)}", _MUL

    def _print_Func(self, expr: E.Func) -> tuple[str, int]:
        name = expr.name
        if name in ("MAX", "MIN"):
            return f"{name.lower()}({', '.join(self._print(a)[0] for a in expr.args)})", _ATOM
        if name in ("CEILING", "FLOOR"):
            function = "ceil" if name == "CEILING" else "floor"
            value, step = expr.args
            if isinstance(step, E.Num) and step.value == 1:
                return f"{function}({self._print(value)[0]})", _ATOM
            return (f"{function}({self._wrap(value, _MUL)} / {self._wrap(step, _UNARY)}) * "
                    f"{self._wrap(step, _MUL)}"), _MUL
        if name == "ABS":
            inner = self._print(expr.args[0])[0]
            return f"max({inner}, -({inner}))", _ATOM
        if name in ("SQRT", "LN"):
            return f"{'sqrt' if name == 'SQRT' else 'log'}({self._print(expr.args[0])[0]})", _ATOM
        if name == "POWER":
            base, exponent = expr.args
            return f"({self._print(base)[0]})^({self._print(exponent)[0]})", _ATOM
        raise ValueError(f"no Aspen function for {name}")


def _coefficient(term: E.Expr) -> tuple[float, E.Expr | None]:
    """(c, rest) with ``term`` = ``c * rest``; ``rest`` is None for a number."""
    if isinstance(term, E.Num):
        return term.value, None
    if isinstance(term, E.Mul) and isinstance(term.factors[0], E.Num):
        rest = term.factors[1:]
        return term.factors[0].value, rest[0] if len(rest) == 1 else E.Mul(rest)
    return 1.0, term


def _negated(term: E.Expr) -> E.Expr | None:
    """``-term`` when ``term`` carries a minus sign (a negative number or coefficient)."""
    if isinstance(term, E.Num) and term.value < 0:
        return E.Num(-term.value)
    if isinstance(term, E.Mul) and isinstance(term.factors[0], E.Num) \
            and term.factors[0].value < 0:
        return E.mul(-term.factors[0].value, *term.factors[1:])
    return None


# ---------------------------------------------------------------------------------- the model
