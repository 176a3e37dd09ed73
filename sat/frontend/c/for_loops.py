"""Counted C for loops: ``for (i = a; i < b; i += s)`` read as Fortran-style bounds."""

from __future__ import annotations

from pycparser import c_ast

from sat.frontend.affine import Affine
from sat.frontend.c.algebra import NotAffine, c_text, expr_text, mentions, sstr, to_affine, to_sympy


def canonical_for(node: c_ast.For, declared: str | None):
    """``(var, start, end, op, step)`` of a counted for loop, or why it is not one."""
    init, cond, step_node = node.init, node.cond, node.next
    if isinstance(init, c_ast.DeclList):
        if declared is None:
            return "without a single initialised loop variable"
        var, start = declared, init.decls[0].init
    elif isinstance(init, c_ast.Assignment) and init.op == "=" \
            and isinstance(init.lvalue, c_ast.ID):
        var, start = init.lvalue.name, init.rvalue
    else:
        return "without a loop variable initialisation"
    if not isinstance(cond, c_ast.BinaryOp) or cond.op not in ("<", "<=", ">", ">=", "!="):
        return f"without a bound test on '{var}'"
    flip = {"<": ">", "<=": ">=", ">": "<", ">=": "<=", "!=": "!="}
    if isinstance(cond.left, c_ast.ID) and cond.left.name == var:
        op, end = cond.op, cond.right
    elif isinstance(cond.right, c_ast.ID) and cond.right.name == var:
        op, end = flip[cond.op], cond.left
    else:
        return f"without a bound test on '{var}'"
    if mentions(end, var) or mentions(start, var):
        return f"with bounds that depend on '{var}'"
    step = _step(step_node, var)
    if step is None:
        return f"with an increment of '{var}' that is not '{var} += step'"
    return var, start, end, op, step


def _step(node: c_ast.Node | None, var: str) -> c_ast.Node | None:
    def one(sign: str) -> c_ast.Node:
        value = c_ast.Constant("int", "1", getattr(node, "coord", None))
        return value if sign == "+" else c_ast.UnaryOp("-", value, value.coord)

    if isinstance(node, c_ast.UnaryOp) and isinstance(node.expr, c_ast.ID) \
            and node.expr.name == var:
        if node.op in ("p++", "++"):
            return one("+")
        if node.op in ("p--", "--"):
            return one("-")
        return None
    if isinstance(node, c_ast.Assignment) and isinstance(node.lvalue, c_ast.ID) \
            and node.lvalue.name == var:
        value = node.rvalue
        if node.op == "+=":
            return None if mentions(value, var) else value
        if node.op == "-=":
            return None if mentions(value, var) else c_ast.UnaryOp("-", value, value.coord)
        if node.op == "=" and isinstance(value, c_ast.BinaryOp) and value.op in ("+", "-"):
            left, right = value.left, value.right
            if isinstance(left, c_ast.ID) and left.name == var and not mentions(right, var):
                return right if value.op == "+" else c_ast.UnaryOp("-", right, right.coord)
            if value.op == "+" and isinstance(right, c_ast.ID) and right.name == var \
                    and not mentions(left, var):
                return left
    return None


def loop_bounds(start: c_ast.Node, end: c_ast.Node, op: str,
                 step: c_ast.Node) -> tuple[str, str, str] | str:
    """Fortran-style ``(lower, upper, stride)`` text of ``for (v = start; v op end; v += step)``."""
    try:
        step_expr = to_affine(step) or to_sympy(step)
    except (NotAffine, TypeError, ValueError, ZeroDivisionError):
        return f"with a step '{c_text(step)}' that is not arithmetic"
    if isinstance(step_expr, Affine) and not step_expr.is_constant:
        step_expr = to_sympy(step)  # a symbolic step: its sign needs sympy
    if isinstance(step_expr, Affine):
        if step_expr.const == 0:
            return "with a zero step"
        positive = step_expr.const > 0
    elif step_expr.is_number:
        if step_expr == 0:
            return "with a zero step"
        positive = bool(step_expr > 0)
    else:
        # A symbolic step: its sign is taken from the test (i < n counts up).
        positive = op in ("<", "<=") or (op == "!=" and not step_expr.could_extract_minus_sign())
    if op in ("<", "<=") and not positive or op in (">", ">=") and positive:
        return f"whose test '{op}' and step '{c_text(step)}' go different ways (never runs or " \
               "never ends)"
    lower = expr_text(start)
    try:
        end_expr = to_affine(end) or to_sympy(end)
    except (NotAffine, TypeError, ValueError, ZeroDivisionError):
        end_expr = None
    shift = {"<": -1, "<=": 0, ">": 1, ">=": 0, "!=": -1 if positive else 1}[op]
    if end_expr is not None:
        upper = sstr(end_expr + shift)
    else:
        text = c_text(end)
        upper = text if shift == 0 else f"({text}) {'+' if shift > 0 else '-'} 1"
    return lower, upper, sstr(step_expr)
