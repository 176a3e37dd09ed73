"""The analysed program as an Aspen application model (``--aspen``), for a modeller to edit.

One ``model`` holds the problem parameters (``param``, their current values), the arrays
(``data``, their size in bytes), one ``kernel`` per loop nest (``execute [iterations]`` with
the nest's flops, loads and stores per iteration) and a ``kernel main`` that runs every nest
once in program order, so that Aspen's totals are satreport's.  Every ``param`` and ``data``
comes before the first kernel, as Aspen's grammar requires (the parameters of each kernel's
quantities in a group of their own): the text parses with ``sat.aspen.parse_text(text,
strict=True)``, which accepts only what Aspen's grammar accepts.

Amounts are the model's own expressions, written over the problem parameters: every other
parameter (the machine's, satreport's software settings) is replaced by its value, and what
then depends on no problem parameter by the number satreport computes (:class:`_Folder`).  A
quantity used in several places becomes a ``param`` of its own, named after the model's name
for it (``laplacian_L16_iterations``).  Aspen expressions have no conditional: where the
model decides between two expressions by a test on problem parameters (the reuse case whose
working set fits in the cache, say), the test is made at the current values and the
expression taken is written, with a comment in the kernel saying which tests were made.  The
model is exact as long as those tests come out the same; otherwise run satreport again.

Traffic: the Loops sheet's actual memory traffic (ExaSAT's reuse case the nest takes), per
array-component pair, split into loads and stores by
:meth:`sat.model.exasat.memory.NestMemory.array_traffic`: a read-only pair's bytes are loads, a
written pair's write-backs (one word per element) are stores and the rest (the read of a
read-write element, the read for ownership of a written one) loads.  The loads and stores of
a nest add up to its traffic, those of the program to ``Total_Traffic_GB``.
"""

from __future__ import annotations

import math
import re
import textwrap
from collections.abc import Iterable
from dataclasses import dataclass, field

from sat import __version__
from sat.model import expr as E
from sat.model.expr import Env, Quantity
from sat.model.tables import ModelResult, NestWork
from sat.parameter import symbol_to_name

GB = 1e9

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


class _Folder:
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


@dataclass
class _Clause:
    resource: str  # flops, loads, stores
    amount: E.Expr  # per iteration (per run in a kernel without iterations)
    data: str = ""  # the data object (from / to)
    traits: str = ""
    comment: str = ""


@dataclass
class _Kernel:
    name: str
    work: NestWork
    iterations: E.Expr
    clauses: list[_Clause] = field(default_factory=list)
    decisions: list[Decision] = field(default_factory=list)
    per_run: bool = False  # no iterations at the current values: amounts per run
    named: list[Quantity] = field(default_factory=list)  # quantities that must be parameters

    @property
    def ident(self) -> str:
        return f"{self.work.procedure}:{self.work.line}"


class _Names:
    """Unique Aspen names."""

    def __init__(self):
        self.taken: set[str] = set()

    def add(self, text: str) -> str:
        name = aspen_name(text)
        unique, k = name, 2
        while unique in self.taken:
            unique, k = f"{name}_{k}", k + 1
        self.taken.add(unique)
        return unique


def _per_iteration(total: E.Expr, iterations: E.Expr) -> E.Expr:
    """``total / iterations``, without the division where ``total`` is a multiple of it."""
    if isinstance(iterations, E.Num):
        if isinstance(total, E.Num):
            return E.Num(total.value / iterations.value)
        return E.mul(1 / iterations.value, total)
    multiple = _multiple(total, iterations)
    return E.Div(total, iterations) if multiple is None else E.Num(multiple)


def _multiple(expr: E.Expr, of: E.Expr) -> float | None:
    """``c`` when ``expr`` is ``c * of`` (a sum of such terms; quantities looked into)."""
    if isinstance(expr, E.Ref) and isinstance(of, E.Ref) and expr.quantity is of.quantity:
        return 1.0
    if isinstance(expr, E.Num):
        return 0.0 if expr.value == 0 else None
    if isinstance(expr, E.Ref):
        return _multiple(expr.quantity.expr, of)
    if isinstance(expr, E.Add):
        parts = [_multiple(t, of) for t in expr.terms]
        return None if any(p is None for p in parts) else math.fsum(parts)  # type: ignore
    if isinstance(expr, E.Mul) and len(expr.factors) == 2 and isinstance(expr.factors[0], E.Num):
        inner = _multiple(expr.factors[1], of)
        return None if inner is None else expr.factors[0].value * inner
    return None


_FLOPS = ((("adds", "multiplies"), "dp", "", "additions and multiplications"),
          (("divides",), "dp, div", "divisions", "divisions"),
          (("specials",), "dp, sin", "special functions (exp, log, sqrt, …)",
           "special functions"))


def program_as_aspen(program, result: ModelResult, env: Env, *,
                     sources: list[str] | None = None, machine: str = "",
                     created: str = "") -> str:
    """The Aspen application model of the analysed program: the text of one file.

    ``env`` holds the parameter values (:meth:`ModelResult.env`); ``sources``, ``machine``
    and ``created`` (a date) go into the header comment.
    """
    return _Writer(result, env, sources if sources is not None else list(program.sources),
                   machine, created).text()


class _Writer:
    def __init__(self, result: ModelResult, env: Env, sources: list[str], machine: str,
                 created: str):
        self.result = result
        self.env = env
        self.sources = sources
        self.machine = machine
        self.created = created
        self.folder = _Folder(result, env)
        self.names = _Names()

    # -- gathering
    def text(self) -> str:
        result, folder = self.result, self.folder
        self.problem = [p for p in result.parameters if p.group == "problem"]
        self.parameter_names = {p.name: self.names.add(p.name) for p in self.problem}
        self.symbols = [(q, folder.fold(q)) for q in result.derived]
        self.data_decisions = folder.decisions_of(result.data_bytes.values())
        self.data = [(self.names.add(name), folder.fold(q))
                     for name, q in result.data_bytes.items()]
        data_names = {name: aspen for name, (aspen, _) in zip(result.data_bytes, self.data,
                                                               strict=True)}
        self.kernels = [self._kernel(work, data_names) for work in result.nests]

        # Parameters of their own: the quantities used more than once, the symbols, the
        # iterations and the per-run amounts of the kernels.
        forced = {id(q) for k in self.kernels for q in k.named}
        forced |= {id(e.quantity) for _, e in self.symbols if isinstance(e, E.Ref)}
        roots = [e for _, e in self.symbols] + [e for _, e in self.data]
        for kernel in self.kernels:
            roots += [kernel.iterations, *(c.amount for c in kernel.clauses)]
        uses: dict[int, int] = {}
        order: list[Quantity] = []
        for root in roots:
            _count(root, uses, order)
        kernel_names = {k.ident: k.name for k in self.kernels}
        named: dict[int, str] = {}
        scale: dict[int, float] = {}
        self.groups: dict[str, list[Quantity]] = {}  # kernel ident ("" global) -> quantities
        for quantity in order:
            if id(quantity) in forced or uses[id(quantity)] > 1:
                if quantity.unit == "GB":
                    scale[id(quantity)] = GB
                named[id(quantity)] = self.names.add(_quantity_name(quantity, kernel_names,
                                                                    quantity.unit == "GB"))
                ident = str(quantity.key[1]) if len(quantity.key) > 1 else ""
                self.groups.setdefault(ident if ident in kernel_names else "",
                                       []).append(quantity)
        self.printer = AspenPrinter(named, self.parameter_names, scale)
        return self._render()

    def _kernel(self, work: NestWork, data_names: dict[str, str]) -> _Kernel:
        folder = self.folder
        name = self.names.add(f"{work.procedure}_L{work.line}")
        roots = [work.iterations, *work.flops.values()]
        for array in work.arrays:
            roots += [array.loads_gb, array.stores_gb]
        decisions = folder.decisions_of(roots)
        iterations = folder.fold(work.iterations)
        per_run = iterations.evaluate(self.env) == 0
        kernel = _Kernel(name, work, E.Num(1) if per_run else iterations,
                         decisions=decisions, per_run=per_run)
        if isinstance(iterations, E.Ref) and not per_run:
            kernel.named.append(iterations.quantity)

        def amount(total: E.Expr, key: str, unit: str, label: str) -> E.Expr:
            """Per iteration; a total that is no multiple of the iterations becomes a
            parameter of its own, divided by them."""
            if per_run:
                return total
            each = _per_iteration(total, kernel.iterations)
            if not isinstance(each, E.Div):
                return each
            quantity = total.quantity if isinstance(total, E.Ref) else \
                Quantity(("nest", kernel.ident, key), total, unit, label)
            kernel.named.append(quantity)
            return E.Div(E.Ref(quantity), kernel.iterations)

        flops = {k: folder.fold(q) for k, q in work.flops.items()}
        for kinds, traits, comment, label in _FLOPS:
            total = E.add(*(flops[k] for k in kinds))
            if isinstance(total, E.Num) and total.value == 0:
                continue
            each = amount(total, "_".join(kinds), "flops", f"{label} per run")
            if not comment:
                comment = self._flop_comment(flops, kernel)
            kernel.clauses.append(_Clause("flops", each, "", traits, comment))
        for array in work.arrays:
            data = data_names.get(array.name.lower(), "")
            for resource, quantity in (("loads", array.loads_gb), ("stores", array.stores_gb)):
                folded = folder.fold(quantity)
                if isinstance(folded, E.Num) and folded.value == 0:
                    continue
                total = E.mul(GB, folded)
                if isinstance(folded, E.Ref) and not per_run:
                    kernel.named.append(folded.quantity)
                    each = E.Div(total, kernel.iterations)
                else:
                    each = amount(total, f"{array.key}_{resource}", "B",
                                  f"{resource} of {array.key} per run")
                notes = [array.key if array.key != array.name else ""]
                if resource == "loads" and array.kind != "R":
                    notes.append("read before written" if array.kind == "RW" else
                                 "read for ownership")
                if not data:
                    notes.append(f"array {array.name}: no size known")
                kernel.clauses.append(_Clause(resource, each, data, "",
                                              ", ".join(filter(None, notes))))
        return kernel

    def _flop_comment(self, flops: dict[str, E.Expr], kernel: _Kernel) -> str:
        parts = []
        for kind, word in (("adds", "additions"), ("multiplies", "multiplications")):
            each = flops[kind] if kernel.per_run else _per_iteration(flops[kind],
                                                                      kernel.iterations)
            if not isinstance(each, E.Num):
                parts.append(word)
            elif each.value:
                count = format_number(each.value)
                parts.append(f"{count} {word if count != '1' else word[:-1]}")
        return ", ".join(parts)

    # -- writing
    def _render(self) -> list[str]:
        lines = self._header()
        model = aspen_name(_stem(self.sources[0]) if self.sources else "program")
        lines += [f"model {model} {{", ""]
        # Aspen's grammar takes every param and data of a model before its first kernel
        lines += self._parameters()
        lines += self._derived()
        lines += self._data()
        for kernel in self.kernels:
            lines += self._kernel_parameters(kernel)
        for kernel in self.kernels:
            lines += self._kernel_lines(kernel)
        lines += self._main()
        lines.append("}")
        return "\n".join(lines) + "\n"

    def _header(self) -> list[str]:
        sources = ", ".join(self.sources) or "no sources"
        used = ", ".join(f"{name}{_NBSP}={_NBSP}{format_number(value)}"
                         for name, value in sorted(self.folder.used.items()))
        text = [
            f"Aspen application model of {sources}, written by satreport {__version__} "
            f"(--aspen) for machine {self.machine or 'unknown'}.",
            f"Date: {self.created}",
            "",
            "One kernel per loop nest: execute [iterations] with the flops and the memory "
            "traffic per iteration. Flops: additions and multiplications as dp, divisions "
            "with the trait div, special functions with sin. Traffic: satreport's actual "
            "memory traffic (ExaSAT's model: the reuse case whose working set fits in the "
            "cache) per array, in bytes: loads (reads, and the reads for ownership of written "
            "data) and stores (write-backs). Kernel main runs each nest once, so that its "
            "totals are satreport's.",
            "",
            "The amounts are expressions over the problem parameters. Machine and software "
            "parameters are numbers in them" + (f": {used}." if used else " (none is used).")
            + " Where satreport's model tests the problem parameters (which reuse case fits in "
            "the cache), the test is made at the values below and the kernel lists it: the "
            "expressions hold while the tests come out the same; otherwise run satreport "
            "again with --set.",
        ]
        lines = []
        for paragraph in text:
            lines += _comment(paragraph, "") if paragraph else ["//"]
        return lines + [""]

    def _parameters(self) -> list[str]:
        if not self.problem:
            return []
        lines = ["  // Problem parameters (satreport --set NAME=VALUE)"]
        width = max(len(self.parameter_names[p.name]) for p in self.problem)
        for p in self.problem:
            value = format_number(self.env.param(p.name), exact=True)
            note = ", ".join(filter(None, [p.symbol if p.symbol != p.name else "", p.source]))
            lines += _with_comment(f"param {self.parameter_names[p.name]:<{width}} = {value}",
                                   note, "  ")
        return lines + [""]

    def _derived(self) -> list[str]:
        # symbols that are a parameter or a number are written for the reader: used nowhere
        plain = [(q, folded) for q, folded in self.symbols if not isinstance(folded, E.Ref)]
        quantities = self.groups.get("", [])
        if not (plain or quantities):
            return []
        lines = ["  // Derived quantities"]
        lines += [line for q in quantities for line in self._param(q)]
        for q, folded in plain:
            name = self.names.add(_quantity_name(q, {}, False))
            lines += _with_comment(f"param {name} = {self.printer.doprint(folded)}", q.label,
                                   "  ")
        return lines + [""]

    def _data(self) -> list[str]:
        if not self.data:
            return []
        lines = ["  // Data: the arrays, in bytes (WordBytes per element, two words for a "
                 "double-precision complex)"]
        lines += _decision_lines(self.data_decisions, "  ")
        for name, size in self.data:
            lines += _code(f"data {name} [{self.printer.doprint(size)}]", "  ")
        return lines + [""]

    def _param(self, q: Quantity) -> list[str]:
        printer = self.printer
        unit = "bytes" if id(q) in printer.scale else q.unit
        note = q.label + (f" ({unit})" if unit and unit not in q.label else "")
        return _with_comment(f"param {printer.names[id(q)]} = {printer.definition(q)}", note,
                             "  ")

    @staticmethod
    def _nest(kernel: _Kernel) -> str:
        work = kernel.work
        return f"{work.procedure}: the loop nest at line {work.line}" + (
            f" of {work.file}" if work.file else "")

    def _kernel_parameters(self, kernel: _Kernel) -> list[str]:
        """The parameters of one kernel's quantities, written before the kernels."""
        params = [line for q in self.groups.get(kernel.ident, []) for line in self._param(q)]
        if not params:
            return []
        return [*_comment(f"Quantities of kernel {kernel.name} ({self._nest(kernel)})", "  "),
                *params, ""]

    def _kernel_lines(self, kernel: _Kernel) -> list[str]:
        printer = self.printer
        lines = [f"  // {self._nest(kernel)}", f"  kernel {kernel.name} {{"]
        lines += _decision_lines(kernel.decisions, "    ")
        if kernel.per_run:
            lines.append("    // No iterations at the values above: the amounts are per run.")
        lines.append(f'    execute [{printer.doprint(kernel.iterations)}] "{kernel.ident}" {{')
        for clause in kernel.clauses:
            text = f"{clause.resource} [{printer.doprint(clause.amount)}]"
            if clause.data:
                text += f" {'from' if clause.resource == 'loads' else 'to'} {clause.data}"
            if clause.traits:
                text += f" as {clause.traits}"
            lines += _with_comment(text, clause.comment, "      ")
        return lines + ["    }", "  }", ""]

    def _main(self) -> list[str]:
        lines = ["  // The program: every nest once, in program order", "  kernel main {"]
        procedure = None
        for kernel in self.kernels:
            if kernel.work.procedure != procedure:
                procedure = kernel.work.procedure
                lines.append(f"    // {procedure}")
            lines.append(f"    call {kernel.name}")
        return lines + ["  }"]


# ---------------------------------------------------------------------------------- layout

WIDTH = 99  # characters per line
_NBSP = "\u00a0"  # a space where a comment line does not break


def _comment(text: str, indent: str) -> list[str]:
    return [line.replace(_NBSP, " ") for line in textwrap.wrap(
        text, WIDTH, initial_indent=f"{indent}// ", subsequent_indent=f"{indent}// ",
        break_long_words=False, break_on_hyphens=False)]


def _with_comment(code: str, comment: str, indent: str) -> list[str]:
    """A line of code with its comment at the end, or above it when that is too long."""
    if not comment:
        return _code(code, indent)
    line = f"{indent}{code}  // {comment}"
    if len(line) <= WIDTH:
        return [line]
    return _comment(comment, indent) + _code(code, indent)


def _code(code: str, indent: str) -> list[str]:
    """A statement over several lines when it is too long, broken before the operators of
    the outermost level that fit (Aspen ignores line breaks)."""
    lines = []
    lead = indent
    while len(lead) + len(code) > WIDTH:
        room = WIDTH - len(lead)
        best, best_depth, depth = -1, 1 << 30, 0
        for i, char in enumerate(code):
            if char in "([":
                depth += 1
            elif char in ")]":
                depth -= 1
            elif (char == " " and code[i + 1:i + 2] in ("+", "-", "*", "/")
                  and code[i + 2:i + 3] == " " and i > 0):
                if i > room and best >= 0:
                    break
                if depth <= best_depth:
                    best, best_depth = i, depth
        if best < 0:
            break
        lines.append(lead + code[:best])
        code = code[best + 1:]
        lead = indent + "    "
    return lines + [lead + code]


def _decision_lines(decisions: list[Decision], indent: str) -> list[str]:
    """The tests made at the current values, those of one subject together."""
    if not decisions:
        return []
    subjects: dict[str, list[str]] = {}
    for d in decisions:
        subjects.setdefault(d.subject, []).append(f"{d.test}: {d.outcome}" if d.test
                                                  else d.outcome)
    lines = _comment("Decided at the values above (the expressions hold while these tests "
                     "come out the same):", indent)
    for subject, tests in subjects.items():
        lines += textwrap.wrap(f"{subject} {'; '.join(tests)}", WIDTH,
                               initial_indent=f"{indent}//   ",
                               subsequent_indent=f"{indent}//     ", break_long_words=False,
                               break_on_hyphens=False)
    return lines


def _count(expr: E.Expr, uses: dict[int, int], order: list[Quantity]) -> None:
    """Count the references to each quantity; ``order`` lists them, each after those its
    expression uses."""
    stack: list[tuple[E.Expr, bool]] = [(expr, False)]
    while stack:
        node, done = stack.pop()
        if done:
            order.append(node.quantity)  # type: ignore[attr-defined]
            continue
        if isinstance(node, E.Ref):
            ident = id(node.quantity)
            uses[ident] = uses.get(ident, 0) + 1
            if uses[ident] == 1:
                stack.append((node, True))
                stack.append((node.quantity.expr, False))
            continue
        stack.extend((child, False) for child in reversed(E.children(node)))


def _quantity_name(quantity: Quantity, kernels: dict[str, str], in_bytes: bool) -> str:
    """A quantity's parameter name, from its key: ``("loop", "laplacian:16", "iter_x")`` is
    ``laplacian_L16_iter_x``; a quantity in GB (a parameter in bytes) ends in ``_bytes``."""
    key = quantity.key
    if key[:1] == ("symbol",):
        return symbol_to_name(str(key[1]))
    parts = [kernels.get(str(part), str(part)) for part in key
             if part not in ("loop", "array", "nest")]
    name = "_".join(parts)
    if in_bytes:
        name = name.removesuffix("_gb") + "_bytes"
    return name


def _stem(path: str) -> str:
    name = path.replace("\\", "/").rsplit("/", 1)[-1]
    return name.rsplit(".", 1)[0] if "." in name else name
