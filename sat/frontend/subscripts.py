"""Subscript and bound expressions: fparser nodes -> sympy, normalised text and stencil offsets.

Array-like terms (``lo(3)``, ``size(a,1)``) become sympy *placeholder symbols* whose name is
their compact source text, so ``lo(3) - ng`` stays ``lo(3) - ng`` when printed back and simple
algebra (``(i+1) - i = 1``) still works. Conversions are cached by source text: sympy is only
used for bounds, extents and subscripts that are not of the plain ``v``, ``v ± c``, ``c`` forms.
"""

from __future__ import annotations

from functools import lru_cache

import sympy
from fparser.two import Fortran2003 as F

Offset = int | str

_ZERO = sympy.Integer(0)


class NotAffine(ValueError):
    """The expression cannot be turned into sympy (strings, logicals, …)."""


def compact(node: object) -> str:
    """Lower-case source text of a node without blanks (``lo(1)-ng``)."""
    return str(node).lower().replace(" ", "")


def _int_literal(node: F.Int_Literal_Constant) -> int:
    return int(str(node.items[0]))


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


def _convert(node: object) -> sympy.Expr:
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
    if isinstance(node, (F.Part_Ref, F.Intrinsic_Function_Reference, F.Data_Ref,
                         F.Structure_Constructor, F.Function_Reference)):
        return sympy.Symbol(compact(node))
    raise NotAffine(str(node))


def expr_text(node: object) -> str:
    """Normalised lower-case text of a bound or stride (``hi(1) + ng``); raw text if not algebra."""
    try:
        return sympy.sstr(to_sympy(node))
    except (NotAffine, TypeError, ValueError, ZeroDivisionError):
        return str(node).lower()


@lru_cache(maxsize=4096)
def normalise(text: str) -> str:
    """Normalise bound text given as a string (``'hi(1)+ ng'`` -> ``'hi(1) + ng'``)."""
    try:
        return sympy.sstr(_parse_text(text))
    except Exception:  # any unreadable text is kept as written
        return text.strip().lower()


_parser_ready = False


def _parse_text(text: str) -> sympy.Expr:
    """Parse plain text with array-like terms kept as placeholder symbols."""
    global _parser_ready
    if not _parser_ready:  # fparser's expression classes need a parser to have been created
        from fparser.two.parser import ParserFactory

        ParserFactory().create(std="f2008")
        _parser_ready = True
    return to_sympy(F.Expr(text))


def difference(a: sympy.Expr, b: sympy.Expr) -> Offset:
    """``a - b`` as an int when it is a constant, else as normalised text."""
    diff = sympy.expand(a - b)
    if diff.is_Integer:
        return int(diff)
    return sympy.sstr(diff)


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
        expr = to_sympy(node)
    except (NotAffine, TypeError, ValueError, ZeroDivisionError):
        return compact(node), ""
    free = {s.name for s in expr.free_symbols}
    for var in reversed(loopvars):
        if var in free:
            return difference(expr, sympy.Symbol(var)), var
    # Array-like placeholders that hide a loop variable (idx(i)) still depend on it.
    text = compact(node)
    for var in reversed(loopvars):
        if _mentions(text, var):
            return difference(expr, sympy.Symbol(var)), var
    if expr.is_Integer:
        return int(expr), ""
    return sympy.sstr(expr), ""


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


def as_expr(text: str) -> sympy.Expr:
    """Bound text (as produced by :func:`expr_text`) back to sympy, for offsets between sections."""
    try:
        return _parse_text(text)
    except Exception:  # unreadable text becomes an opaque symbol
        return sympy.Symbol(text.replace(" ", ""))
