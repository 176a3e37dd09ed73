"""Excel formula printer for model expressions, one ``_print_<Type>`` method per node.

Parameters print as workbook defined names; references to other quantities print as cell
addresses given by a resolver (the workbook layout decides where each quantity lives).
Only constructs that Excel and LibreOffice evaluate identically are emitted.

Excel limits one formula to 8,192 characters, 64 levels of nested functions and 255
arguments per function.  A formula that would pass one of them is split: parts of it move to
cells of their own (:class:`FormulaParts`, rows of the Workings sheet) and the formula refers
to them, so a whole program's totals stay live formulas however many nests they add up.
A formula within the limits prints as it always did.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Collection
from functools import lru_cache

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
    children,
)

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
# Excel's limits on one formula (LibreOffice's are wider): its characters, the levels of
# functions nested in it, the arguments of one function.
MAX_FORMULA_LENGTH = 8192
MAX_NESTING = 64
MAX_ARGUMENTS = 255
_MAX_ARGUMENTS = MAX_ARGUMENTS

# A printed sub-formula is split when it passes these (margins for what encloses it: the
# ``=``, a ``1*(...)``); parentheses are counted, grouping ones too, which bounds the nesting
# of functions from above.
_LENGTH_BUDGET = MAX_FORMULA_LENGTH - 32
_DEPTH_BUDGET = MAX_NESTING - 8
# Texts shorter than this are within every limit (a depth of 56 takes 112 parentheses).
_CHECKED_LENGTH = 100
# Splitting: a sub-formula longer than _PART_LENGTH (or nested deeper than _PART_DEPTH) gets a
# cell of its own; the terms of a long sum are gathered in parts of at most _CHUNK_LENGTH
# characters (so at least two terms each) and MAX_ARGUMENTS terms.
_PART_LENGTH = 1000
_PART_DEPTH = _DEPTH_BUDGET // 2
_CHUNK_LENGTH = 2500
# Functions whose arguments can be gathered in parts: f(a, b, c, d) = f(f(a, b), f(c, d)).
_ASSOCIATIVE = frozenset({"MAX", "MIN", "AND", "OR"})
_NOT_PARENTHESES = re.compile(r"[^()]+")

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


def forget_parsed_cells() -> None:
    """Empty the cache of parsed cell references (a workbook is written)."""
    _cell_parts.cache_clear()


def nesting(text: str) -> int:
    """The deepest nesting of parentheses in a formula's text (it holds no string)."""
    depth = deepest = 0
    for ch in _NOT_PARENTHESES.sub("", text):
        if ch == "(":
            depth += 1
            deepest = max(deepest, depth)
        else:
            depth -= 1
    return deepest


class FormulaParts:
    """The parts of formulas too long or too deep for one cell, each a quantity of its own.

    Shared by the printers of one workbook, so that a node split on one sheet is split the
    same way, into the same cells, on every other.
    """

    def __init__(self) -> None:
        # id(node) -> (the node, kept alive so that no other takes its id; what replaces it)
        self._splits: dict[int, tuple[Expr, Expr]] = {}
        self.made: list[Quantity] = []

    def replacement(self, node: Expr) -> Expr | None:
        entry = self._splits.get(id(node))
        return entry[1] if entry else None

    def remember(self, node: Expr, replacement: Expr) -> None:
        self._splits[id(node)] = (node, replacement)

    def part(self, expr: Expr, what: str) -> Quantity:
        """A new quantity for ``expr``, a part of a longer formula."""
        quantity = Quantity(("formula part", len(self.made) + 1), expr, "",
                            f"{what}, a part of a formula too long for one cell")
        self.made.append(quantity)
        return quantity


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
        parts: FormulaParts | None = None,
    ):
        # cell_of gives a quantity's cell address, or None to inline its expression.
        self.cell_of = cell_of
        self.name_of = name_of
        self.booleans = frozenset(booleans)
        # where the parts of split formulas are made; their cells come from ``cell_of``
        self.parts = parts if parts is not None else FormulaParts()
        # What was printed, as (text, precedence), by the identity of the node ...
        self._printed: dict[int, tuple[str, int]] = {}
        self._references: dict[int, tuple[str, int]] = {}  # ... of a Ref's quantity
        self._numbers: dict[float, tuple[str, int]] = {}  # ... by value (1 and 1.0 print alike)
        self._names: dict[str, tuple[str, int]] = {}  # ... of a parameter by name
        self._kept: dict[int, tuple[str, int]] = {}  # ... and kept by forget_all_but
        # The nodes and quantities remembered by identity, kept alive so that no other can
        # take one of their ids (formulas for cells away from a quantity's home, for one, print
        # short-lived Ref nodes).
        self._alive: list[object] = []

    def forget_all_but(self, exprs: Collection[Expr]) -> None:
        """Forget the texts of what was printed since the last call but ``exprs``' own, which
        are kept with those kept before (a sheet printed ahead in batches, whose formulas are
        all that is printed again: the Workings sheet's thousands of sub-formulas need not
        wait for it in memory).

        Only the batch's own texts are looked at: the texts kept before stay where they are,
        so that a sheet of n formulas costs n steps however many batches it takes.
        """
        printed, kept = self._printed, self._kept
        for expr in exprs:
            text = printed.get(id(expr))
            if text is not None:
                kept[id(expr)] = text
        self._printed = {}

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
        if printed is None and self._kept and memo is self._printed:
            printed = self._kept.get(key)
        if printed is None:
            replacement = self.parts.replacement(expr) if memo is self._printed else None
            printed = self._printers[type(replacement or expr)](self, replacement or expr)
            if len(printed[0]) > _CHECKED_LENGTH and memo is self._printed \
                    and replacement is None and not _within_limits(expr, printed[0]):
                printed = self._split(expr, printed)
            memo[key] = printed
            if memo is self._printed:
                self._alive.append(expr)
            elif memo is self._references:
                self._alive.append(expr.quantity)
        return printed

    # -------------------------------------------------------------- splitting

    def _split(self, expr: Expr, printed: tuple[str, int]) -> tuple[str, int]:
        """``expr`` printed with parts of it in cells of their own, within Excel's limits
        (``printed`` as it is where that cannot be done: a printer without a workbook; the
        workbook then says which formula is too long)."""
        kind = type(expr)
        items: list[Expr] = []
        for item in children(expr):  # the long and deep sub-formulas first: each gets a cell
            part = self._spilled(item)
            if part is None:
                return printed
            items.append(part)
        if kind is Add or kind is Mul or (kind is Func and expr.name in _ASSOCIATIVE):
            gathered = self._chunked(kind, expr, tuple(items))
            if gathered is not None:
                items = gathered
        if all(a is b for a, b in zip(items, children(expr), strict=False)) \
                and len(items) == len(children(expr)):
            return printed  # nothing moved to a cell of its own
        replacement = _rebuilt(expr, items)
        self.parts.remember(expr, replacement)
        self._alive.append(replacement)
        # printed through _print: a sum of many parts may need a further level of them
        return self._print(replacement)

    def _spilled(self, item: Expr) -> Expr | None:
        """``item``, or a reference to a new cell holding it when it is long or deep; None
        when it cannot have a cell."""
        if type(item) in (Num, Param, Ref):
            return item
        text = self._print(item)[0]
        if len(text) <= _PART_LENGTH and (len(text) <= 2 * _PART_DEPTH
                                          or nesting(text) <= _PART_DEPTH):
            return item
        return self._part(item, "a term")

    def _part(self, expr: Expr, what: str) -> Ref | None:
        quantity = self.parts.part(expr, what)
        return Ref(quantity) if self.cell_of(quantity) is not None else None

    def _chunked(self, kind: type, expr: Expr, items: tuple[Expr, ...]) -> list[Expr] | None:
        """``items`` gathered in consecutive parts of a bounded length and count, a part of
        more than one item a new cell (a sum, product, maximum ... of its items)."""
        if kind is Add or (kind is Func and expr.name in _RANGE_FUNCTIONS):  # type: ignore
            printed = [(text, count) for text, _, count in self._with_ranges(items, kind is Func)]
        else:
            printed = [(self._print(item)[0], 1) for item in items]
        if sum(len(text) + 1 for text, _ in printed) <= _LENGTH_BUDGET \
                and len(printed) <= MAX_ARGUMENTS:
            return list(items)
        chunks: list[list[Expr]] = [[]]
        length = parts = start = 0
        for text, count in printed:
            if chunks[-1] and (length + len(text) + 1 > _CHUNK_LENGTH
                               or parts >= MAX_ARGUMENTS):
                chunks.append([])
                length = parts = 0
            chunks[-1].extend(items[start:start + count])
            start += count
            length += len(text) + 1
            parts += 1
        if len(chunks) == 1:
            return None  # nothing gathered: no shorter way
        what = {Add: "a sum", Mul: "a product"}.get(kind) or \
            f"{expr.name} of some arguments"  # type: ignore[attr-defined]
        gathered: list[Expr] = []
        for chunk in chunks:
            if len(chunk) == 1:
                gathered.append(chunk[0])
                continue
            part = self._part(_rebuilt(expr, chunk), f"{what} of {len(chunk)} terms")
            if part is None:
                return None
            gathered.append(part)
        return gathered

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
        parts = [f"SUM({text})" if is_range else text for text, is_range, _ in
                 self._with_ranges(expr.terms, False)]
        return parts[0] + "".join(part if part.startswith("-") else "+" + part
                                  for part in parts[1:]), _ADD

    def _with_ranges(self, terms: tuple[Expr, ...] | list[Expr], numeric: bool
                     ) -> list[tuple[str, bool, int]]:
        """(text, is a range, terms it holds) per printed term, runs of cells down a column as
        ``A5:A9``.

        Totals over hundreds of rows would otherwise exceed Excel's formula length limit
        and its 255 arguments per function.  Terms that are not cells print as sum terms,
        or as numbers when ``numeric``.
        """
        if len(terms) < _MIN_RANGE:  # too few for a range: the common a+b of a formula
            return [(self._numeric(term)[0] if numeric else self._wrap(term, _ADD), False, 1)
                    for term in terms]
        parts: list[tuple[str, bool, int]] = []
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
            parts.append((self._numeric(term)[0] if numeric else self._wrap(term, _ADD), False,
                          1))
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
            args = [text for text, _, _ in self._with_ranges(expr.args, True)]
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


def _within_limits(expr: Expr, text: str) -> bool:
    """Whether ``text``, printed for ``expr``, fits in one cell's formula."""
    if len(text) > _LENGTH_BUDGET:
        return False
    if type(expr) is Func and len(expr.args) > MAX_ARGUMENTS and expr.name not in _RANGE_FUNCTIONS:
        return False
    return len(text) <= 2 * _DEPTH_BUDGET or nesting(text) <= _DEPTH_BUDGET


def _rebuilt(expr: Expr, items: tuple[Expr, ...] | list[Expr]) -> Expr:
    """A node like ``expr`` over other children."""
    kind = type(expr)
    if kind is Add:
        return Add(tuple(items))
    if kind is Mul:
        return Mul(tuple(items))
    if kind is Func:
        return Func(expr.name, tuple(items))  # type: ignore[attr-defined]
    if kind is Div:
        return Div(*items)
    return Compare(expr.op, *items)  # type: ignore[attr-defined]


def _flush(run: list[tuple[str, str, int]], cells: list[str],
           parts: list[tuple[str, bool, int]]) -> None:
    """Move a run of cells to ``parts``: a range when long enough, else cell by cell."""
    if len(run) >= _MIN_RANGE:
        prefix, column, first = run[0]
        parts.append((f"{prefix}{column}{first}:{column}{run[-1][2]}", True, len(run)))
    else:
        parts.extend((cell, False, 1) for cell in cells)
    run.clear()
    cells.clear()


# node type -> its _print_X method, looked up once instead of by name for every node
ExcelPrinter._printers = {
    node: getattr(ExcelPrinter, "_print_" + node.__name__)
    for node in (Add, Compare, Div, Func, Mul, Num, Param, Ref)}
