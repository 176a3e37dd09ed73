"""Counted C for loops: ``for (i = a; i < b; i += s)`` read as Fortran-style bounds."""

from __future__ import annotations

from dataclasses import dataclass, field

from pycparser import c_ast

from sat.frontend.affine import Affine
from sat.frontend.c.algebra import NotAffine, c_text, expr_text, mentions, sstr, to_affine, to_sympy


@dataclass
class ForHeader:
    """A counted for loop ``for (var = start; var op end; var += step)``.

    ``before`` are the header's other initialisers (``temp = 0.0`` in ``for (j = first, temp
    = 0.0; …)``), run once before the loop; ``after`` its other updates (``k++`` in ``i++,
    k++``), run at the end of every iteration.
    """

    var: str
    start: c_ast.Node
    end: c_ast.Node
    op: str
    step: c_ast.Node
    before: list[c_ast.Node] = field(default_factory=list)
    after: list[c_ast.Node] = field(default_factory=list)
    # other variables the header starts and steps with the loop (k in i = 0, k = n-1; …;
    # i++, k--): name -> (start, step)
    inductions: dict[str, tuple[c_ast.Node, c_ast.Node]] = field(default_factory=dict)

    def induction_value(self, name: str) -> c_ast.Node | None:
        """``k`` as an expression of the loop variable (``n - 1 - i``), when the loop steps by
        one (else None)."""
        start, step = self.inductions[name]
        own = to_affine(self.step)
        if own is None or not own.is_constant or abs(own.const) != 1:
            return None
        where = getattr(start, "coord", None)
        scale = c_ast.BinaryOp("*", step if own.const == 1 else c_ast.UnaryOp("-", step, where),
                               c_ast.BinaryOp("-", c_ast.ID(self.var, where), self.start, where),
                               where)
        return c_ast.BinaryOp("+", start, scale, where)


def canonical_for(node: c_ast.For,
                  declared: list[tuple[str, c_ast.Node | None]] | None) -> ForHeader | str:
    """The header of a counted for loop, or why it is not one.

    ``declared`` are the (name, initialiser) pairs of a declaration in the header (``for (int
    i = 0, j = n; …)``); the loop variable is the initialised one the test compares.
    """
    init, cond, step_node = node.init, node.cond, node.next
    starts: dict[str, c_ast.Node] = {}
    items = [] if isinstance(init, c_ast.DeclList) else \
        init.exprs if isinstance(init, c_ast.ExprList) else [init]
    for name, value in declared or ():
        if value is not None:
            starts.setdefault(name, value)
    for item in items:
        if isinstance(item, c_ast.Assignment) and item.op == "=" \
                and isinstance(item.lvalue, c_ast.ID):
            starts.setdefault(item.lvalue.name, item.rvalue)
    if not starts:
        return ("without a single initialised loop variable"
                if isinstance(init, c_ast.DeclList) else "without a loop variable initialisation")
    if not isinstance(cond, c_ast.BinaryOp) or cond.op not in ("<", "<=", ">", ">=", "!="):
        return f"without a bound test on '{next(iter(starts))}'"
    flip = {"<": ">", "<=": ">=", ">": "<", ">=": "<=", "!=": "!="}
    if isinstance(cond.left, c_ast.ID) and cond.left.name in starts:
        var, op, end = cond.left.name, cond.op, cond.right
    elif isinstance(cond.right, c_ast.ID) and cond.right.name in starts:
        var, op, end = cond.right.name, flip[cond.op], cond.left
    else:
        return f"without a bound test on '{next(iter(starts))}'"
    start = starts[var]
    # the header's other initialisers, in their order
    others = [value for name, value in declared or () if name != var and value is not None] + [
        item for item in items if item is not None
        and not (isinstance(item, c_ast.Assignment) and item.rvalue is start)]
    if mentions(end, var) or mentions(start, var):
        return f"with bounds that depend on '{var}'"
    updates = step_node.exprs if isinstance(step_node, c_ast.ExprList) else [step_node]
    steps = [(_step(item, var), item) for item in updates]
    found = [(step, item) for step, item in steps if step is not None]
    if len(found) != 1 or any(mentions(item, var) for step, item in steps if step is None):
        return f"with an increment of '{var}' that is not '{var} += step'"
    step = found[0][0]
    after = [item for item in updates if item is not found[0][1] and item is not None]
    inductions = {}
    for item in after:
        name = _updated(item)
        other = _step(item, name) if name in starts and name != var else None
        if other is not None and to_affine(other) is not None and to_affine(other).is_constant:
            inductions[name] = (starts[name], other)
    return ForHeader(var, start, end, op, step, others, after, inductions)


def _updated(node: c_ast.Node) -> str:
    """The variable an update ``k++``, ``k -= 2`` or ``k = k + 2`` steps ("" for none)."""
    if isinstance(node, c_ast.UnaryOp) and isinstance(node.expr, c_ast.ID):
        return node.expr.name
    if isinstance(node, c_ast.Assignment) and isinstance(node.lvalue, c_ast.ID):
        return node.lvalue.name
    return ""


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
