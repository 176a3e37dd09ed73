"""Excel formula printer for model expressions, one ``_print_<Type>`` method per node.

Parameters print as workbook defined names; references to other quantities print as cell
addresses given by a resolver (the workbook layout decides where each quantity lives).
Only constructs that Excel and LibreOffice evaluate identically are emitted.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Collection
from functools import lru_cache

from sat.model.expr import Add, Compare, Div, Expr, Func, Mul, Num, Param, Quantity, Ref

# Precedence levels: higher binds tighter.
_CMP, _ADD, _MUL, _ATOM = 1, 2, 3, 5


def format_number(value: float) -> str:
    """Shortest exact literal; exponents written ``1E+09`` (some engines reject ``1e9``)."""
    if not math.isfinite(value):
        raise ValueError(f"no Excel literal for {value!r}")
    if value == int(value) and abs(value) < 1e16:
        return str(int(value))
    text = repr(float(value))
    if "e" in text:
        mantissa, exponent = text.split("e")
        sign = "-" if exponent.startswith("-") else "+"
        text = f"{mantissa}E{sign}{exponent.lstrip('+-')}"
    return text


# Functions whose arguments must be numbers: Excel's MAX/MIN skip a logical value held in a
# referenced cell (a boolean parameter), so a logical argument is coerced with ``1*``.
_NUMERIC_FUNCTIONS = frozenset({"MAX", "MIN", "CEILING", "FLOOR", "ABS", "POWER", "LN", "SQRT",
                                "EXP"})
_LOGICAL_FUNCTIONS = frozenset({"AND", "OR", "NOT"})
_RANGE_FUNCTIONS = frozenset({"MAX", "MIN"})  # take cell ranges as arguments
_MAX_ARGUMENTS = 255  # per function call, in Excel and LibreOffice

# Excel refuses longer formulas.
MAX_FORMULA_LENGTH = 8192

# A plain cell reference, optionally on another sheet: ``B7``, ``Loops!B7``, ``'Sheet 2'!B7``.
_CELL = re.compile(r"^((?:'[^']+'|[A-Za-z0-9_.]+)!)?([A-Z]{1,3})([0-9]+)$")
_MIN_RANGE = 3  # shorter runs read better as plain sums


@lru_cache(maxsize=1 << 16)
def _cell_parts(cell: str) -> tuple[str, str, int] | None:
    """(sheet prefix, column, row) of a plain cell reference; None for anything else.

    Cached: a big workbook's totals and maxima refer to the same cells from many formulas.
    """
    match = _CELL.match(cell)
    return (match.group(1) or "", match.group(2), int(match.group(3))) if match else None


class ExcelPrinter:
    """Prints an :class:`~sat.model.expr.Expr` as the text of an Excel formula (no ``=``).

    ``booleans`` names the parameters whose cells hold TRUE/FALSE.  Excel and LibreOffice agree
    on TRUE/FALSE in arithmetic (``2*StreamingWrites``) and as conditions, but not in comparisons
    (Excel: ``TRUE=1`` is FALSE) nor inside MAX/MIN (Excel ignores a logical cell): there a
    logical operand is printed as ``1*x``.  A cell's formula never yields a logical either, so
    that every model cell holds a number, exactly as the Python evaluation does.

    Printed nodes are remembered by identity: the model shares sub-expressions between
    quantities (a nest's extents appear in most of its formulas), and a big workbook would
    otherwise print them thousands of times.  ``cell_of`` must therefore answer the same for a
    quantity for as long as the printer is used; the workbook makes one printer per sheet.
    """

    def __init__(
        self,
        cell_of: Callable[[Quantity], str | None],
        name_of: Callable[[str], str] = str,
        booleans: Collection[str] = (),
    ):
        # cell_of gives a quantity's cell address, or None to inline its expression.
        self.cell_of = cell_of
        self.name_of = name_of
        self.booleans = frozenset(booleans)
        # What was printed, as (text, precedence), by the identity of the node ...
        self._printed: dict[int, tuple[str, int]] = {}
        self._references: dict[int, tuple[str, int]] = {}  # ... of a Ref's quantity
        self._numbers: dict[float, tuple[str, int]] = {}  # ... by value (1 and 1.0 print alike)
        self._names: dict[str, tuple[str, int]] = {}  # ... of a parameter by name
        # The nodes and quantities remembered by identity, kept alive so that no other can
        # take one of their ids (formulas for cells away from a quantity's home, for one, print
        # short-lived Ref nodes).
        self._alive: list[object] = []

    def doprint(self, expr: Expr) -> str:
        return self._print(expr)[0]

    def formula(self, expr: Expr) -> str:
        """The cell formula ``=...``; a logical result is turned into 1 or 0."""
        return "=" + (self._numeric(expr)[0] if self.is_logical(expr) else self.doprint(expr))

    def is_logical(self, expr: Expr) -> bool:
        """True when Excel would compute TRUE/FALSE (not a number) for ``expr``."""
        kind = type(expr)  # the node types are final, as for the printers
        if kind is Param:
            return expr.name in self.booleans
        if kind is Compare:
            return True
        if kind is Func:
            if expr.name in _LOGICAL_FUNCTIONS:
                return True
            if expr.name == "IF":
                return any(self.is_logical(a) for a in expr.args[1:])
            return False
        if kind is Ref and self.cell_of(expr.quantity) is None:
            return self.is_logical(expr.quantity.expr)
        return False  # placed quantities hold numbers; arithmetic gives numbers

    # Each _print_X returns (text, precedence of its outermost operator).
    def _print(self, expr: Expr) -> tuple[str, int]:
        kind = type(expr)
        # Leaves and references print as their value, name or quantity says: remembered by
        # that (the model makes a new node for most of them); other nodes by identity.
        if kind is Ref:
            memo, key = self._references, id(expr.quantity)
        elif kind is Num:
            memo, key = self._numbers, expr.value
        elif kind is Param:
            memo, key = self._names, expr.name
        else:
            memo, key = self._printed, id(expr)
        printed = memo.get(key)
        if printed is None:
            printed = memo[key] = self._printers[kind](self, expr)
            if memo is self._printed:
                self._alive.append(expr)
            elif memo is self._references:
                self._alive.append(expr.quantity)
        return printed

    def _wrap(self, expr: Expr, level: int) -> str:
        text, prec = self._print(expr)
        return f"({text})" if prec < level else text

    def _numeric(self, expr: Expr) -> tuple[str, int]:
        """``expr`` where a number is required (comparison operand, MAX argument, a cell)."""
        if self.is_logical(expr):
            return "1*" + self._wrap(expr, _ATOM), _MUL
        return self._print(expr)

    def _wrap_numeric(self, expr: Expr, level: int) -> str:
        text, prec = self._numeric(expr)
        return f"({text})" if prec < level else text

    def _print_Num(self, expr: Num) -> tuple[str, int]:
        text = format_number(expr.value)
        return (text, _ADD) if text.startswith("-") else (text, _ATOM)

    def _print_Param(self, expr: Param) -> tuple[str, int]:
        return self.name_of(expr.name), _ATOM

    def _print_Ref(self, expr: Ref) -> tuple[str, int]:
        cell = self.cell_of(expr.quantity)
        return (cell, _ATOM) if cell else self._print(expr.quantity.expr)

    def _print_Add(self, expr: Add) -> tuple[str, int]:
        parts = [f"SUM({text})" if is_range else text for text, is_range in
                 self._with_ranges(expr.terms, False)]
        return parts[0] + "".join(part if part.startswith("-") else "+" + part
                                  for part in parts[1:]), _ADD

    def _with_ranges(self, terms: tuple[Expr, ...], numeric: bool) -> list[tuple[str, bool]]:
        """(text, is a range) per printed term, runs of cells down a column as ``A5:A9``.

        Totals over hundreds of rows would otherwise exceed Excel's formula length limit
        and its 255 arguments per function.  Terms that are not cells print as sum terms,
        or as numbers when ``numeric``.
        """
        if len(terms) < _MIN_RANGE:  # too few for a range: the common a+b of a formula
            return [(self._numeric(term)[0] if numeric else self._wrap(term, _ADD), False)
                    for term in terms]
        parts: list[tuple[str, bool]] = []
        run: list[tuple[str, str, int]] = []  # (sheet prefix, column, row) of a cell run
        cells: list[str] = []  # the run's cells as printed
        for term in terms:
            here = None
            if isinstance(term, Ref):
                cell = self.cell_of(term.quantity)
                here = _cell_parts(cell) if cell else None
            if here:
                if run:
                    last = run[-1]
                    if here[2] != last[2] + 1 or here[1] != last[1] or here[0] != last[0]:
                        _flush(run, cells, parts)
                run.append(here)
                cells.append(cell)
                continue
            if run:
                _flush(run, cells, parts)
            parts.append((self._numeric(term)[0] if numeric else self._wrap(term, _ADD), False))
        if run:
            _flush(run, cells, parts)
        return parts

    def _print_Mul(self, expr: Mul) -> tuple[str, int]:
        factors = expr.factors
        negative = isinstance(factors[0], Num) and factors[0].value == -1
        if negative:
            factors = factors[1:]
        # The first factor needs parentheses only around sums, the others around products too.
        wrap = self._wrap
        text = "*".join([wrap(f, _MUL + 1) if i else wrap(f, _MUL) for i, f in enumerate(factors)])
        # A leading minus is unary: it binds like a product only inside a sum.
        return ("-" + text, _ADD) if negative else (text, _MUL)

    def _print_Div(self, expr: Div) -> tuple[str, int]:
        num = self._wrap(expr.num, _MUL)
        den = self._wrap(expr.den, _ATOM)
        if isinstance(expr.den, Num):
            return ("0", _ATOM) if expr.den.value == 0 else (f"{num}/{den}", _MUL)
        # Guard: a zero denominator (an edited parameter) gives 0, exactly as in Python.
        return f"IF({self._wrap_numeric(expr.den, _ADD)}=0,0,{num}/{den})", _ATOM

    def _print_Func(self, expr: Func) -> tuple[str, int]:
        if expr.name in _RANGE_FUNCTIONS:
            args = [text for text, _ in self._with_ranges(expr.args, True)]
            while len(args) > _MAX_ARGUMENTS:  # nest: MAX(MAX(a1..a255), ...)
                args = [f"{expr.name}({','.join(args[i:i + _MAX_ARGUMENTS])})"
                        for i in range(0, len(args), _MAX_ARGUMENTS)]
        elif expr.name in _NUMERIC_FUNCTIONS:
            args = [self._numeric(a)[0] for a in expr.args]
        else:
            args = [self._print(a)[0] for a in expr.args]
        return f"{expr.name}({','.join(args)})", _ATOM

    def _print_Compare(self, expr: Compare) -> tuple[str, int]:
        left = self._wrap_numeric(expr.left, _ADD)
        right = self._wrap_numeric(expr.right, _ADD)
        return f"{left}{expr.op}{right}", _CMP


def _flush(run: list[tuple[str, str, int]], cells: list[str],
           parts: list[tuple[str, bool]]) -> None:
    """Move a run of cells to ``parts``: a range when long enough, else cell by cell."""
    if len(run) >= _MIN_RANGE:
        prefix, column, first = run[0]
        parts.append((f"{prefix}{column}{first}:{column}{run[-1][2]}", True))
    else:
        parts.extend((cell, False) for cell in cells)
    run.clear()
    cells.clear()


# node type -> its _print_X method, looked up once instead of by name for every node
ExcelPrinter._printers = {
    node: getattr(ExcelPrinter, "_print_" + node.__name__)
    for node in (Add, Compare, Div, Func, Mul, Num, Param, Ref)}
