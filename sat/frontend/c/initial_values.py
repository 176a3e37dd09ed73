"""Scalars a C file initialises and never changes: their value is the problem size they hold.

``int Nm = OUTER;`` (``OUTER`` a macro) or ``const int nk = 20;`` used as a loop bound is that
number, not a symbol to default, when nothing in the file assigns, increments or takes the
address of the variable afterwards (``scanf("%d", &n)`` does).  :func:`initial_constants`
gives each procedure the :class:`sat.ir.Constant` (kind ``initialised``) of such variables
that its bounds, extents or offsets use; a ``--set`` still overrides them.
"""

from __future__ import annotations

from pycparser import c_ast

from sat import ir
from sat.frontend.c.algebra import constant_value
from sat.frontend.constants import symbols_used

Value = int | float


def _changed(tree: c_ast.Node) -> set[str]:
    """Names assigned, incremented or whose address is taken anywhere in the file."""
    found: set[str] = set()
    stack = [tree]
    while stack:
        node = stack.pop()
        if isinstance(node, c_ast.Assignment) and isinstance(node.lvalue, c_ast.ID):
            found.add(node.lvalue.name)
        elif isinstance(node, c_ast.UnaryOp) and node.op in ("&", "++", "--", "p++", "p--") \
                and isinstance(node.expr, c_ast.ID):
            found.add(node.expr.name)
        stack.extend(child for _name, child in node.children())
    return found


def _value(node: c_ast.Node | None, known: dict[str, Value]) -> Value | None:
    if isinstance(node, c_ast.Constant):
        return constant_value(node)
    if isinstance(node, c_ast.ID):
        return known.get(node.name)
    if isinstance(node, c_ast.Cast):
        return _value(node.expr, known)
    if isinstance(node, c_ast.UnaryOp) and node.op in ("-", "+"):
        inner = _value(node.expr, known)
        return None if inner is None else (-inner if node.op == "-" else inner)
    if isinstance(node, c_ast.BinaryOp) and node.op in ("+", "-", "*", "/"):
        left, right = _value(node.left, known), _value(node.right, known)
        if left is None or right is None or (node.op == "/" and right == 0):
            return None
        if node.op == "/":
            return int(left / right) if isinstance(left, int) and isinstance(right, int) \
                else left / right
        return left + right if node.op == "+" else left - right if node.op == "-" \
            else left * right
    return None


def _initialised(tree: c_ast.FileAST, is_system) -> dict[str, tuple[Value, str, int]]:
    """Scalar declarations with a constant initialiser: name -> (value, file, line); a name
    declared twice with different values is left out."""
    known: dict[str, Value] = {}
    where: dict[str, tuple[str, int]] = {}
    ambiguous: set[str] = set()
    stack: list[c_ast.Node] = list(reversed(tree.ext or []))
    while stack:
        node = stack.pop()
        if isinstance(node, c_ast.Decl) and not is_system(node) \
                and isinstance(node.type, c_ast.TypeDecl) \
                and isinstance(node.type.type, c_ast.IdentifierType) and node.init is not None:
            value = _value(node.init, known)
            if value is not None and node.name in known and known[node.name] != value:
                ambiguous.add(node.name)
            elif value is not None:
                known[node.name] = value
                coord = node.coord
                where[node.name] = (coord.file if coord else "", coord.line if coord else 0)
        stack.extend(reversed([child for _name, child in node.children()]))
    return {name: (known[name], *where[name]) for name in known if name not in ambiguous}


def initial_constants(tree: c_ast.FileAST, procedures: list[ir.Procedure], is_system) -> None:
    """Add to each procedure the initialised, never changed scalars its bounds use."""
    values = _initialised(tree, is_system)
    if not values:
        return
    changed = _changed(tree)
    by_lower: dict[str, list[str]] = {}
    for name in values:
        by_lower.setdefault(name.lower(), []).append(name)
    for procedure in procedures:
        present = {c.name.lower() for c in procedure.constants}
        dummies = {d.lower() for d in procedure.dummies}
        for used in sorted(symbols_used(procedure)):
            names = by_lower.get(used, [])
            if len(names) != 1 or used in present or used in dummies or names[0] in changed:
                continue
            value, file, line = values[names[0]]
            procedure.constants.append(ir.Constant(names[0], float(value), file, line,
                                                   kind="initialised"))
