"""Shared state while the model is built: code symbols -> parameters, derived symbols, notes.

Loop bounds and array extents arrive from the IR as source text (``"hi(1)+ng"``).
:meth:`ModelContext.expr` turns such text into a model expression: a symbol with a value
(``--params``, ``--set``) or without one becomes a problem :class:`Parameter`; a symbol defined
by ``--symsubs`` becomes a derived :class:`Quantity` over other symbols.
"""

from __future__ import annotations

import ast
import keyword
import re
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from typing import Literal

from sat.ir import Constant, Loop, Procedure
from sat.model import expr as E
from sat.model.opaque import opaque_name, opaque_terms
from sat.model.tables import Note
from sat.parameter import (
    MEMBER_SELECTOR,
    SELECTED_NAME,
    Parameter,
    ParameterSet,
    derived_defaults,
    input_values,
    symbol_to_name,
)
from sat.regex import LazyPattern

Role = Literal["lower", "upper", "other"]

# Documented defaults for problem symbols nobody gave a value (also listed in Notes).
DEFAULT_LOWER = 1.0
DEFAULT_UPPER = 128.0
DEFAULT_OTHER = 1.0
DEFAULT_GHOSTS = 4.0

def _folded(function, fold):
    """A MIN/MAX whose arguments are all numbers is that number (``min(4, 8)`` is 4)."""
    def build(*args: E.Expr) -> E.Expr:
        if args and all(isinstance(a, E.Num) for a in args):
            return E.Num(fold(a.value for a in args))
        return function(*args)
    return build


_FUNCTIONS = {"max": _folded(E.maximum, max), "min": _folded(E.minimum, min),
              "abs": lambda a: E.func("ABS", a)}
_ARRAY_SYMBOL = re.compile(r"\b([A-Za-z_]\w*)\s*\(([^()]*)\)")
# A member chain of a C structure or a Fortran derived type (``in.lookups``, ``s->boxes->n``,
# ``lv->b[k].dim.k``, ``g%lo(1)``): one problem symbol, like an array element.
_MEMBER_CHAIN = re.compile(rf"(?<![\w.]){SELECTED_NAME}(?:{MEMBER_SELECTOR}{SELECTED_NAME})+")
# a Fortran member selector (``a(i)%n``), written without spaces, unlike C's modulo
_SELECTOR_LEFT = re.compile(r"[\w)]%[A-Za-z_]")
_NAME_OR_NUMBER = LazyPattern(r"[A-Za-z_0-9]")
_SHIFTED = LazyPattern(r"(.*\S)\s*([+-])\s*(\d+)")
_KEYWORD = re.compile(r"\b(?:" + "|".join(keyword.kwlist) + r")\b(?!\s*\()")


def _known_operation(node: ast.AST) -> bool:
    """Whether the model reads a parsed node's own operation (its operands aside): a number,
    a name, ``+ - * /``, a whole power up to 8, ``min``, ``max`` or ``abs``."""
    if isinstance(node, ast.Constant):
        return isinstance(node.value, (int, float)) and not isinstance(node.value, bool)
    if isinstance(node, ast.Name):
        return True
    if isinstance(node, ast.UnaryOp):
        return isinstance(node.op, (ast.USub, ast.UAdd))
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Pow):
        power = node.right
        return (isinstance(power, ast.Constant) and isinstance(power.value, (int, float))
                and float(power.value).is_integer() and 0 <= power.value <= 8)
    if isinstance(node, ast.BinOp):
        return isinstance(node.op, (ast.Add, ast.Sub, ast.Mult, ast.Div))
    if isinstance(node, ast.Call):
        return (isinstance(node.func, ast.Name) and node.func.id in _FUNCTIONS
                and not node.keywords and len(node.args) >= 1
                and (node.func.id != "abs" or len(node.args) == 1))
    return False


def _symbols_in(node: ast.AST) -> set[str]:
    """The names a parsed expression reads, a part the model does not read counting as one
    (its text): the symbols that would become parameters."""
    if not _known_operation(node):
        return {ast.unparse(node)}
    if isinstance(node, ast.Name):
        return {node.id}
    found: set[str] = set()
    for child in ast.iter_child_nodes(node):
        if isinstance(child, ast.expr) and not (isinstance(node, ast.Call)
                                                and child is node.func):
            found |= _symbols_in(child)
    return found


def _default_value(name: str, role: Role) -> float:
    """A documented guess for a symbol nobody gave a value.

    Lower-bound-like names (``lo_1``, ``ilo1``) get 1, upper-bound-like ones (``hi_1``) 128,
    ghost-cell depths (``ng``, ``nghost``) 4 as in the ExaSAT paper's SMC study; any other
    symbol that is a whole loop bound by itself gets 1 or 128 by its role, and 1 otherwise.
    """
    stem = re.sub(r"[_\d]+$", "", name)
    if stem.startswith("lo") or stem.endswith("lo"):
        return DEFAULT_LOWER
    if stem.startswith("hi") or stem.endswith("hi"):
        return DEFAULT_UPPER
    if stem in ("ng", "ngc", "nghost", "nghosts", "ghosts", "nghostcells"):
        return DEFAULT_GHOSTS
    return {"lower": DEFAULT_LOWER, "upper": DEFAULT_UPPER}.get(role, DEFAULT_OTHER)


def derive_default(params: ParameterSet, name: str, default: E.Expr, what: str = "") -> bool:
    """Make parameter ``name``'s value its derived default ``default`` (an expression over
    other parameters, quantities inlined), unless a value was given for it (a parameter
    file, ``--set``): then the given value stays.  ``default`` may read only inputs and
    parameters derived before this one, so a chain of derived defaults cannot come back
    to where it started.  ``what`` says in words what the default is (the Source column).
    True if the parameter takes the default."""
    parameter = params[name]
    if parameter.given:
        return False
    default = E.inlined(default)
    order = {other: index for index, other in enumerate(params.parameters)}
    names = tuple(sorted(set(E.params_in(default)), key=lambda n: order.get(n, len(order))))
    for other in names:
        if other not in params or other == name or (
                params[other].derived and order[other] > order[name]):
            raise ValueError(f"the default of {name} may not read {other}")
    for other in params.parameters.values():  # nor may one before it read it (a loop)
        if other.derived and name in other.derived_from and order[other.name] < order[name]:
            raise ValueError(f"the default of {other.name} reads {name}")
    env = E.Env(input_values(params.parameters.values()),
                derived_defaults(params.parameters.values()))  # type: ignore[arg-type]
    value = default.evaluate(env)
    parameter.value = int(value) if value.is_integer() else value
    parameter.default, parameter.derived_from = default, names
    parameter.source = f"derived from {', '.join(names)}" + (f": {what}" if what else "")
    parameter.defaulted = False
    return True


def formula_expr(text: str) -> E.Expr:
    """A registry's formula over parameter names (``+ - * /``, ``MAX``, ``MIN``, numbers) as an
    expression; names keep their case (they are parameter names, not code symbols)."""
    operators = {ast.Add: E.add, ast.Mult: E.mul, ast.Div: E.div,
                 ast.Sub: lambda a, b: E.add(a, E.mul(-1, b))}
    functions = {"MAX": E.maximum, "MIN": E.minimum}

    def node(tree: ast.AST) -> E.Expr:
        if isinstance(tree, ast.Name):
            return E.Param(tree.id)
        if isinstance(tree, ast.Constant) and isinstance(tree.value, (int, float)):
            return E.Num(float(tree.value))
        if isinstance(tree, ast.BinOp) and type(tree.op) in operators:
            return operators[type(tree.op)](node(tree.left), node(tree.right))
        if isinstance(tree, ast.UnaryOp) and isinstance(tree.op, ast.USub):
            return E.mul(-1, node(tree.operand))
        if isinstance(tree, ast.Call) and isinstance(tree.func, ast.Name) \
                and tree.func.id in functions and not tree.keywords:
            return functions[tree.func.id](*map(node, tree.args))
        raise ValueError(f"cannot read the formula {text!r}")

    return node(ast.parse(text, mode="eval").body)


def derive_formulas(params: ParameterSet) -> None:
    """Make every default the registry derived from other parameters (its ``formula``) a
    derived default, in sheet order, unless a value was given for it."""
    for parameter in list(params.parameters.values()):
        if parameter.formula and not parameter.derived:
            derive_default(params, parameter.name, formula_expr(parameter.formula),
                           parameter.source)


class ExpressionError(ValueError):
    """Text that is not an arithmetic expression over symbols."""


class _SelfReference(ExpressionError):
    """A symbol defined, through others, from itself: no parameter can stand for it."""


class ModelContext:
    """Collects problem parameters, derived symbol quantities and notes while building."""

    def __init__(self, params: ParameterSet, constants: Iterable[Constant] = ()):
        self.params = params
        # Named constants of the code: their value, unless --params or --set gives another.
        self._constants = {symbol_to_name(c.name): c for c in constants}
        self.notes: list[Note] = []
        self._messages: set[str] = set()
        self._defaults_noted: set[str] = set()  # problem parameters whose default is noted
        self._indexed = 0
        self.derived: dict[str, E.Quantity] = {}  # symbol -> quantity (symsubs)
        self._symsubs = {symbol_to_name(k): (k, v) for k, v in params.symsubs.items()}
        self._values = {symbol_to_name(k): (k, v) for k, v in params.symbol_values.items()}
        self._cache: dict[tuple[str, str], E.Expr] = {}
        # (lower, upper, stride, whether a tile loop) -> trips
        self.trip_counts: dict[tuple[str, str, str, bool], E.Expr] = {}
        # loops whose bounds move with an enclosing loop's variable, by id, with that
        # variable at its mean, and those enclosing loops (sat.model.nests.averaged_bounds)
        self.averaged_loops: dict[int, tuple[Loop, tuple[Loop, ...]]] = {}
        # loops whose exact mean count is a nested sum, by id, with the loops from their
        # nest's outermost one down to them, and the counts made (sat.model.sums)
        self.summed_paths: dict[int, tuple[Loop, ...]] = {}
        self.summed_counts: dict[tuple, E.Expr | None] = {}
        # nests the model does not work on, with why: the Notes and the JSON's unmodelled
        self.unmodelled: list[dict[str, str | int]] = []
        # array name (lower case) -> element sizes in words its declarations give
        # (sat.model.elements)
        self.array_words: dict[str, set[float]] = {}
        # the procedures as read, before calls were written into the nests (lower-case name
        # -> procedure): the declarations of the arrays a called procedure gathers
        self.read_procedures: dict[str, Procedure] = {}

    # ------------------------------------------------------------ parameters

    def constant_values(self) -> dict[str, float]:
        """The named constants of the code that have a number (lower-case name -> value)."""
        return {c.name.lower(): c.value for c in self._constants.values()
                if not c.expression and c.value == c.value}

    def param(self, name: str) -> E.Param:
        """A machine or software parameter by its contract name (must exist)."""
        if name not in self.params:
            raise KeyError(f"unknown parameter {name}")
        return E.Param(name)

    def given(self, name: str) -> tuple[float, str] | None:
        """(value, source) that ``--params`` or ``--set`` gave ``name``, or ``None``."""
        return self._values.get(symbol_to_name(name), (name, None))[1]

    def call_cost(self, callee: str) -> E.Param:
        """Flops per call of a procedure that is not in the sources: a parameter ``CallFlops_``
        + its name, 0 unless ``--set`` gives it."""
        name = f"CallFlops_{symbol_to_name(callee)}"
        if name not in self.params:
            given = self.given(name)
            value, source = given if given is not None else (0, "assumed: not in the sources")
            self.params.add(Parameter(name, value, "flops", "software",
                                      f"flops per call of {callee} (not in the sources; "
                                      "counted as additions)", source, "number", name,
                                      given is None))
        return E.Param(name)

    def switch(self, name: str, label: str, on: bool = False, source: str = "default",
               kind: str = "integer", off_source: str = "default") -> E.Param:
        """A software switch the model makes (``Fuse_hypterm_1`` 0/1, ``Vectorised_…`` TRUE/
        FALSE): ``--set`` gives its value, else ``on`` (with ``source``, or ``off_source`` when
        off). The model chose it: it is no default a user is asked to set."""
        if name not in self.params:
            given = self.given(name)
            value, source = given if given is not None else (int(on), source if on else
                                                             off_source)
            value = int(value) if float(value).is_integer() else value
            self.params.add(Parameter(name, value, "0/1" if kind == "integer" else "",
                                      "software", label, source, kind))  # type: ignore[arg-type]
        return E.Param(name)

    @contextmanager
    def muted(self) -> Iterator[None]:
        """Notes made inside are dropped (a model built again of code already noted on)."""
        before = len(self.notes)
        try:
            yield
        finally:
            del self.notes[before:]
            self._indexed = min(self._indexed, len(self.notes))

    def note(self, message: str, kind: str = "assumption", file: str = "", line: int = 0) -> None:
        # notes are only ever appended (some directly): index the messages added since
        self._messages.update(n.message for n in self.notes[self._indexed:])
        if message not in self._messages:
            self.notes.append(Note(message, kind, file, line))
            self._messages.add(message)
        self._indexed = len(self.notes)

    def skip_nest(self, procedure: str, file: str, line: int, reason: str,
                  kind: str = "warning") -> None:
        """A nest that is not modelled: a note and an entry of :attr:`unmodelled`."""
        self.unmodelled.append({"procedure": procedure, "file": file, "line": line,
                                "reason": reason})
        self.note(f"{procedure}: the nest at line {line} is not modelled: {reason}", kind, file,
                  line)

    def symbol(self, symbol: str, role: Role = "other", opaque: bool = False) -> E.Expr:
        """A code symbol (``hi(1)``, ``ng``) as a problem parameter or a derived quantity;
        ``opaque``: source text the model cannot read, one parameter all the same."""
        name = opaque_name(symbol) if opaque else symbol_to_name(symbol)
        if name in self._symsubs:
            return self._derived(name)
        if name in self.params:
            known = self.params[name]
            if known.defaulted and name not in self._defaults_noted:
                # defaulted by an earlier model of the same set: this model says so too
                self._note_default(name, known.symbol or symbol, known.value, opaque)
            return E.Param(name)
        given = self._values.get(name, self._values.get(symbol_to_name(symbol),
                                                         (symbol, None)))[1]
        original = symbol  # the code's spelling, whichever spelling --set used
        constant = None if opaque else self._constants.get(name)
        label = f"code symbol {original}"
        if opaque:
            label = f"expression {original} (the model cannot read it: one parameter)"
        if given is not None:
            value, source = given
            defaulted = False
        elif constant is not None and constant.expression:
            return self._constant_formula(name, constant, role)
        elif constant is not None:
            value, defaulted = constant.value, False
            where = f" at {constant.file}:{constant.line}" if constant.file else ""
            if constant.kind == "initialised":
                source = f"initial value{where}, never changed"
                label = f"code symbol {original}, initialised"
            elif constant.kind == "argument":
                source = f"constant argument of every call (first{where})"
                label = f"dummy argument {original}, passed a constant"
            else:
                source, label = f"named constant{where}", f"named constant {original}"
        else:
            value = _default_value(name, role)
            source, defaulted = "default", True
            self._note_default(name, original, value, opaque)
        self.params.add(Parameter(name, value, "", "problem", label, source, "number", original,
                                  defaulted))
        return E.Param(name)

    def _note_default(self, name: str, original: str, value: float, opaque: bool) -> None:
        """The note that problem parameter ``name`` (code text ``original``) takes a default."""
        self._defaults_noted.add(name)
        if opaque:
            self.note(f"expression {original} cannot be modelled: parameter {name} stands "
                      f"for it, assumed {value:g} (give it with --set '{name}=VALUE')",
                      "default")
        else:
            self.note(f"problem symbol {original} has no value: assumed {value:g} "
                      f"(give it with --params or --set '{original}=VALUE')", "default")

    def _constant_formula(self, name: str, constant: Constant, role: Role) -> E.Expr:
        """A named constant defined over symbols without a value: a formula of them, each a
        problem parameter (defaulted once) that the workbook can edit."""
        if name not in self.derived:
            self.derived[name] = None  # type: ignore[assignment]  # cycle guard
            where = f" ({constant.file}:{constant.line})" if constant.file else ""
            self.derived[name] = E.Quantity(
                ("symbol", constant.name), self.expr(constant.expression, role), "",
                f"named constant {constant.name} = {constant.expression}{where}")
        quantity = self.derived[name]
        if quantity is None:
            raise _SelfReference(f"named constant {name} is defined from itself")
        return E.Ref(quantity)

    def _derived(self, name: str) -> E.Expr:
        if name not in self.derived:
            symbol, text = self._symsubs[name]
            self.derived[name] = None  # type: ignore[assignment]  # cycle guard
            quantity = E.Quantity(("symbol", symbol), self.expr(text), "", f"{symbol} = {text}")
            self.derived[name] = quantity
        quantity = self.derived[name]
        if quantity is None:
            raise _SelfReference(f"symbol substitution for {name} refers to itself")
        return E.Ref(quantity)

    # ------------------------------------------------------------ expressions

    def expr(self, text: str, role: Role = "other", opaque: bool = True) -> E.Expr:
        """Source text of a bound, stride or extent -> expression over parameters.

        ``opaque``: what the model cannot read becomes a parameter (see :mod:`opaque`);
        otherwise it raises :class:`ExpressionError` (a guess the caller may do without)."""
        key = (text, role, opaque)
        if key not in self._cache:
            self._cache[key] = self._convert(text, role, opaque)
        return self._cache[key]

    def _convert(self, text: str, role: Role, opaque: bool) -> E.Expr:
        # An expression the model cannot read never drops its nest: first each reference
        # nested too deep becomes a parameter of its own, else the whole text becomes one.
        try:
            return self._read(text, role=role, lenient=opaque)
        except _SelfReference:
            raise
        except ExpressionError:
            if not opaque or not _NAME_OR_NUMBER.search(text):  # ":", "*": no value at all
                raise
        found = opaque_terms(text, frozenset(_FUNCTIONS))
        if found is not None:
            try:
                return self._read(*found, role=role, whole=text)
            except ExpressionError:
                pass
        # a C bound's "- 1" (i < e is upper bound e - 1) stays arithmetic
        shifted = _SHIFTED.fullmatch(text.strip())
        if shifted:
            part = self.symbol(shifted.group(1), role, opaque=True)
            number = E.Num(int(shifted.group(3)))
            return part + number if shifted.group(2) == "+" else part - number
        return self.symbol(text, role, opaque=True)

    def _read(self, text: str, opaque: dict[str, str] | None = None, role: Role = "other",
              whole: str = "", lenient: bool = True) -> E.Expr:
        symbols: dict[str, str] = {}

        def rename(match: re.Match[str]) -> str:
            if match.group(1).lower() in _FUNCTIONS:
                return match.group(0)
            original = f"{match.group(1)}({match.group(2).replace(' ', '')})"
            name = symbol_to_name(original)
            symbols[name] = original
            return name

        def member(match: re.Match[str]) -> str:
            original = re.sub(r"\s+", "", match.group(0))
            name = symbol_to_name(original)
            symbols[name] = original
            return name

        # chains first, keeping the source's spelling in their labels (C is case-sensitive)
        source = _MEMBER_CHAIN.sub(member, text.strip()).lower()
        previous = None
        while previous != source:  # innermost array symbols first: a(b(1)) is unusual but legal
            previous, source = source, _ARRAY_SYMBOL.sub(rename, source)

        def unreserve(match: re.Match[str]) -> str:
            # Fortran names such as ``is`` or ``lambda`` are Python keywords
            symbols[match.group(0) + "_"] = match.group(0)
            return match.group(0) + "_"

        source = _KEYWORD.sub(unreserve, source)
        if _SELECTOR_LEFT.search(source):  # a Fortran member path not read above: no modulo
            raise ExpressionError(f"cannot read expression {text!r}")
        try:
            tree = ast.parse(source, mode="eval").body
        except SyntaxError:
            raise ExpressionError(f"cannot read expression {text!r}") from None
        # Only a bound that is a single symbol says what that symbol is: in ``hi(1)+ng`` the
        # role "upper" belongs to hi(1), not to ng.
        names = _symbols_in(tree)
        symbols.update((name, (term,)) for name, term in (opaque or {}).items())
        return self._node(tree, symbols, role if len(names) == 1 else "other", whole or text,
                          lenient)

    def _node(self, node: ast.AST, symbols: dict[str, str | tuple[str]], role: Role,
              text: str, lenient: bool = True) -> E.Expr:
        def rec(n: ast.AST) -> E.Expr:
            return self._node(n, symbols, role, text, lenient)

        if not _known_operation(node):
            if not lenient:
                raise ExpressionError(f"cannot model expression {text!r}")
            # ``n % 4`` in ``(n % 4) - 1``: that part is one parameter, the rest arithmetic
            # (checked before its operands are read: no parameter is made of a part of it)
            def original(match: re.Match[str]) -> str:
                symbol = symbols.get(match.group(0), match.group(0))
                return symbol[0] if isinstance(symbol, tuple) else symbol

            part = re.sub(r"\b[A-Za-z_]\w*\b", original, ast.unparse(node))
            return self.symbol(part, role, opaque=True)
        if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)):
            return E.Num(node.value)
        if isinstance(node, ast.Name):
            symbol = symbols.get(node.id, node.id)
            if isinstance(symbol, tuple):  # an opaque term
                return self.symbol(symbol[0], role, opaque=True)
            return self.symbol(symbol, role)
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
            operand = rec(node.operand)
            return -operand if isinstance(node.op, ast.USub) else operand
        if isinstance(node, ast.BinOp):
            left, right = rec(node.left), rec(node.right)
            if isinstance(node.op, ast.Add):
                return left + right
            if isinstance(node.op, ast.Sub):
                return left - right
            if isinstance(node.op, ast.Mult):
                return left * right
            if isinstance(node.op, ast.Div):
                return left / right
            if (isinstance(node.op, ast.Pow) and isinstance(right, E.Num)
                    and float(right.value).is_integer() and 0 <= right.value <= 8):
                return E.mul(*([left] * int(right.value)))
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
                and node.func.id in _FUNCTIONS and not node.keywords):
            return _FUNCTIONS[node.func.id](*[rec(a) for a in node.args])
        raise ExpressionError(f"cannot model expression {text!r}")
