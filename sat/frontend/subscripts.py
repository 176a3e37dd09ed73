"""Subscript and bound expressions: fparser nodes -> algebra, normalised text, stencil offsets.

Array-like terms (``lo(3)``, ``size(a,1)``) become *placeholder symbols* whose name is their
compact source text, so ``lo(3) - ng`` stays ``lo(3) - ng`` when printed back and simple
algebra (``(i+1) - i = 1``) still works.  Almost every bound, extent and subscript is linear
with integer coefficients: those are handled as :class:`~sat.frontend.affine.Linear`, which
prints what sympy prints; sympy (slow to import) is imported only for the rest.  Conversions
are cached by source text.
"""

from __future__ import annotations

from functools import lru_cache
from typing import TYPE_CHECKING, Union

from fparser.two import Fortran2003 as F

from sat.frontend.affine import Linear

if TYPE_CHECKING:
    import sympy

Offset = int | str
Algebra = Union[Linear, "sympy.Expr"]  # noqa: UP007 (a forward reference)


class NotAffine(ValueError):
    """The expression cannot be turned into sympy (strings, logicals, …)."""


def compact(node: object) -> str:
    """Lower-case source text of a node without blanks (``lo(1)-ng``)."""
    return str(node).lower().replace(" ", "")


def _int_literal(node: F.Int_Literal_Constant) -> int:
    return int(str(node.items[0]))


_ARRAY_LIKE = (F.Part_Ref, F.Intrinsic_Function_Reference, F.Data_Ref, F.Structure_Constructor,
               F.Function_Reference)


def to_linear(node: object) -> Linear | None:
    """An fparser expression as a linear form, or None when it is not one (then sympy)."""
    if isinstance(node, F.Name):
        return Linear.symbol(str(node).lower())
    if isinstance(node, F.Int_Literal_Constant):
        return Linear.number(_int_literal(node))
    if isinstance(node, F.Parenthesis):
        return to_linear(node.items[1])
    if isinstance(node, F.Level_2_Unary_Expr):
        operand = to_linear(node.items[1])
        return None if operand is None else (-operand if node.items[0] == "-" else operand)
    if isinstance(node, (F.Level_2_Expr, F.Add_Operand, F.Mult_Operand)):
        left, op, right = node.items
        if op not in ("+", "-", "*"):
            return None
        a = to_linear(left)
        b = to_linear(right) if a is not None else None
        if b is None:
            return None
        return a + b if op == "+" else a - b if op == "-" else a * b  # type: ignore[operator]
    if isinstance(node, _ARRAY_LIKE):
        return Linear.symbol(compact(node))
    return None


def to_value(node: object) -> Algebra:
    """An fparser expression as a linear form, else as sympy."""
    linear = to_linear(node)
    return linear if linear is not None else to_sympy(node)


def to_sympy(node: object) -> sympy.Expr:
    """An fparser expression as sympy (placeholder symbols for array-like terms)."""
    return _to_sympy_text(compact(node), node)


_cache: dict[str, sympy.Expr] = {}


def _to_sympy_text(key: str, node: object) -> sympy.Expr:
    hit = _cache.get(key)
    if hit is None:
        hit = _convert(node)
        if len(_cache) > 20000:  # bounded: a run never needs more than a few thousand
            _cache.clear()
        _cache[key] = hit
    return hit


def _sympy(value: Algebra) -> sympy.Expr:
    """A value as sympy (a linear form rebuilt term by term)."""
    import sympy

    if not isinstance(value, Linear):
        return value
    return sympy.Add(sympy.Integer(value.const),
                     *[coeff * sympy.Symbol(name) for name, coeff in value.terms])


def _convert(node: object) -> sympy.Expr:
    import sympy

    if isinstance(node, F.Name):
        return sympy.Symbol(str(node).lower())
    if isinstance(node, F.Int_Literal_Constant):
        return sympy.Integer(_int_literal(node))
    if isinstance(node, F.Real_Literal_Constant):
        text = str(node.items[0]).lower().replace("d", "e")
        return sympy.Float(text)
    if isinstance(node, F.Parenthesis):
        return _convert(node.items[1])
    if isinstance(node, F.Level_2_Unary_Expr):
        operand = _convert(node.items[1])
        return -operand if node.items[0] == "-" else operand
    if isinstance(node, (F.Level_2_Expr, F.Add_Operand, F.Mult_Operand)):
        left, op, right = node.items
        a, b = _convert(left), _convert(right)
        if op == "+":
            return a + b
        if op == "-":
            return a - b
        if op == "*":
            return a * b
        if op == "/":
            return a / b
        if op == "**":
            return a ** b
        raise NotAffine(str(node))
    if isinstance(node, _ARRAY_LIKE):
        return sympy.Symbol(compact(node))
    raise NotAffine(str(node))


def sstr(value: Algebra) -> str:
    """``sympy.sstr`` of a value, without sympy for a linear form."""
    if isinstance(value, Linear):
        return value.text()
    import sympy

    return sympy.sstr(value)


def expr_text(node: object) -> str:
    """Normalised lower-case text of a bound or stride (``hi(1) + ng``); raw text if not algebra."""
    try:
        return sstr(to_value(node))
    except (NotAffine, TypeError, ValueError, ZeroDivisionError):
        return str(node).lower()


@lru_cache(maxsize=4096)
def normalise(text: str) -> str:
    """Normalise bound text given as a string (``'hi(1)+ ng'`` -> ``'hi(1) + ng'``)."""
    try:
        return sstr(_parse_text(text))
    except Exception:  # any unreadable text is kept as written
        return text.strip().lower()


_parser_ready = False


def parse_expr(text: str) -> object:
    """A Fortran expression's fparser node, also when no file went through fparser."""
    global _parser_ready
    if not _parser_ready:  # fparser's expression classes need a parser to have been created
        from fparser.two.parser import ParserFactory

        ParserFactory().create(std="f2008")
        _parser_ready = True
    return F.Expr(text)


def _parse_text(text: str) -> Algebra:
    """Parse plain text with array-like terms kept as placeholder symbols."""
    return to_value(parse_expr(text))


def difference(a: Algebra, b: Algebra) -> Offset:
    """``a - b`` as an int when it is a constant, else as normalised text."""
    if isinstance(a, Linear) and isinstance(b, Linear):
        diff = a - b
        return diff.const if diff.is_constant else diff.text()
    import sympy

    expanded = sympy.expand(_sympy(a) - _sympy(b))
    if expanded.is_Integer:
        return int(expanded)
    return sympy.sstr(expanded)


def classify(node: object, loopvars: tuple[str, ...]) -> tuple[Offset, str]:
    """Offset and dependent loop variable of one subscript.

    ``i`` -> ``(0, "i")``, ``i-1`` -> ``(-1, "i")``, ``3`` -> ``(3, "")``, ``imx`` (not a loop
    variable) -> ``("imx", "")``, ``2*i`` -> ``("i", "i")`` (the part beyond the variable, as
    text), ``lo(3)`` -> ``("lo(3)", "")``. ``loopvars`` lists the enclosing loop variables,
    innermost last; the innermost one a subscript depends on is its dependent variable.
    """
    # Fast paths: the forms that make up almost every stencil subscript.
    if isinstance(node, F.Name):
        name = str(node).lower()
        return (0, name) if name in loopvars else (name, "")
    if isinstance(node, F.Int_Literal_Constant):
        return _int_literal(node), ""
    if isinstance(node, F.Level_2_Expr):
        left, op, right = node.items
        if isinstance(left, F.Name) and isinstance(right, F.Int_Literal_Constant):
            name = str(left).lower()
            if name in loopvars:
                value = _int_literal(right)
                return (value if op == "+" else -value), name
    try:
        expr = to_value(node)
    except (NotAffine, TypeError, ValueError, ZeroDivisionError):
        return compact(node), ""
    free = expr.names if isinstance(expr, Linear) else {s.name for s in expr.free_symbols}
    for var in reversed(loopvars):
        if var in free:
            return difference(expr, Linear.symbol(var)), var
    # Array-like placeholders that hide a loop variable (idx(i)) still depend on it.
    text = compact(node)
    for var in reversed(loopvars):
        if _mentions(text, var):
            return difference(expr, Linear.symbol(var)), var
    if isinstance(expr, Linear):
        return (expr.const if expr.is_constant else expr.text()), ""
    if expr.is_Integer:
        return int(expr), ""
    return sstr(expr), ""


def _mentions(text: str, name: str) -> bool:
    start = 0
    while True:
        at = text.find(name, start)
        if at < 0:
            return False
        end = at + len(name)
        before = text[at - 1] if at else " "
        after = text[end] if end < len(text) else " "
        if not (before.isalnum() or before == "_") and not (after.isalnum() or after == "_"):
            return True
        start = end


@lru_cache(maxsize=4096)
def as_expr(text: str) -> Algebra:
    """Bound text (as produced by :func:`expr_text`) back to algebra, for offsets between
    sections.

    Remembered by text (the algebra is immutable): a program's declarations and loops repeat
    a few bounds (``lo(1)-ng``, ``1``) hundreds of times, each an fparser parse.
    """
    try:
        return _parse_text(text)
    except Exception:  # unreadable text becomes an opaque symbol
        return Linear.symbol(text.replace(" ", ""))
