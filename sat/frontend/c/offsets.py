"""One C subscript as an offset on a loop variable: ``a[j+1]`` is offset 1 on ``j``."""

from __future__ import annotations

from pycparser import c_ast

from sat.frontend.affine import Affine
from sat.frontend.c.algebra import NotAffine, compact_text, constant_value, to_affine, to_sympy


def classify(node: c_ast.Node, loopvars: tuple[str, ...]) -> tuple[int | str, str]:
    """Offset and dependent loop variable of one subscript (as :func:`subscripts.classify`)."""
    if isinstance(node, c_ast.ID):
        return (0, node.name) if node.name in loopvars else (node.name, "")
    if isinstance(node, c_ast.Constant):
        value = constant_value(node)
        if isinstance(value, int):
            return value, ""
    if isinstance(node, c_ast.BinaryOp) and node.op in ("+", "-") \
            and isinstance(node.left, c_ast.ID) and node.left.name in loopvars \
            and isinstance(node.right, c_ast.Constant):
        value = constant_value(node.right)
        if isinstance(value, int):
            return (value if node.op == "+" else -value), node.left.name
    affine = to_affine(node)
    if affine is not None:
        if affine.name in loopvars:  # the part beyond the variable: a number or text
            rest = affine - Affine.symbol(affine.name)
            return (rest.const if rest.is_constant else rest.text()), affine.name
        return (affine.const if affine.is_constant else affine.text()), ""
    import sympy

    from sat.frontend import subscripts

    try:
        expr = to_sympy(node)
    except (NotAffine, TypeError, ValueError, ZeroDivisionError):
        return compact_text(node), ""
    free = {s.name for s in expr.free_symbols}
    for var in reversed(loopvars):
        if var in free:
            return subscripts.difference(expr, sympy.Symbol(var)), var
    if expr.is_Integer:
        return int(expr), ""
    return sympy.sstr(expr), ""


def signed_offset(offset: int | str) -> str:
    """``+1``, ``-1``, ``""`` for 0, ``+(n)`` for a symbol: an offset after its loop variable."""
    if isinstance(offset, int):
        return f"{offset:+d}" if offset else ""
    return f"+({offset})"
