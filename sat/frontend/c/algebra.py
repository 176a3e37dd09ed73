"""C expressions as values: constants, affine and sympy forms, normalised text, array extents."""

from __future__ import annotations

from typing import TYPE_CHECKING

from pycparser import c_ast, c_generator

from sat.frontend.affine import Affine

# sympy is imported inside the functions that need it: most C sources never do (their bounds,
# extents and subscripts are Affine), and importing it costs more than analysing a kernel.
if TYPE_CHECKING:
    import sympy

_GENERATOR = c_generator.CGenerator()


class NotAffine(ValueError):
    """A C expression that is not arithmetic over names and numbers."""


def c_text(node: c_ast.Node | None) -> str:
    """The node as C text, written out by pycparser (``""`` for none)."""
    return _GENERATOR.visit(node) if node is not None else ""


def _int_literal(text: str) -> int:
    digits = text.rstrip("uUlL")
    if len(digits) > 1 and digits[0] == "0" and digits[1] not in "xXbB":
        return int(digits, 8)
    return int(digits, 0)


def constant_value(node: c_ast.Constant) -> int | float | None:
    """The value of a numeric literal (``2``, ``0x10``, ``2.5f``, ``'a'``)."""
    text = node.value
    try:
        if node.type in ("char",) and len(text) >= 3:
            return ord(text[1]) if text[1] != "\\" else None
        if any(word in node.type for word in ("double", "float")):
            return float(text.rstrip("fFlL"))
        if "int" in node.type or "long" in node.type or "unsigned" in node.type:
            return _int_literal(text)
    except ValueError:
        return None
    return None


def to_affine(node: c_ast.Node) -> Affine | None:
    """An integer expression ``coeff*name + const`` without sympy; None for anything else.

    Where it is not None it is :func:`to_sympy` of the same node, in a simpler form.
    """
    if isinstance(node, c_ast.ID):
        return Affine.symbol(node.name)
    if isinstance(node, c_ast.Constant):
        value = constant_value(node)
        return Affine.number(value) if isinstance(value, int) else None
    if isinstance(node, c_ast.UnaryOp) and node.op in ("-", "+"):
        operand = to_affine(node.expr)
        return -operand if operand is not None and node.op == "-" else operand
    if isinstance(node, c_ast.Cast):
        return to_affine(node.expr)
    if isinstance(node, c_ast.StructRef):
        return Affine.symbol(member_text(node))
    if isinstance(node, c_ast.BinaryOp) and node.op in ("+", "-", "*"):
        a = to_affine(node.left)
        b = to_affine(node.right) if a is not None else None
        if b is None:
            return None
        return a + b if node.op == "+" else a - b if node.op == "-" else a * b
    return None


def sstr(value: Affine | sympy.Expr) -> str:
    """``sympy.sstr`` of a value from :func:`to_affine` or :func:`to_sympy`."""
    if isinstance(value, Affine):
        return value.text()
    import sympy

    return sympy.sstr(value)


def to_sympy(node: c_ast.Node) -> sympy.Expr:
    """A C expression as sympy; array elements and calls become placeholder symbols ``a(1)``."""
    import sympy

    if isinstance(node, c_ast.ID):
        return sympy.Symbol(node.name)
    if isinstance(node, c_ast.Constant):
        value = constant_value(node)
        if value is None:
            raise NotAffine(node.value)
        return sympy.Integer(value) if isinstance(value, int) else sympy.Float(value)
    if isinstance(node, c_ast.UnaryOp):
        if node.op == "-":
            return -to_sympy(node.expr)
        if node.op == "+":
            return to_sympy(node.expr)
        if node.op == "sizeof":
            return sympy.Symbol(compact_text(node))
        raise NotAffine(node.op)
    if isinstance(node, c_ast.Cast):
        return to_sympy(node.expr)
    if isinstance(node, c_ast.BinaryOp):
        a, b = to_sympy(node.left), to_sympy(node.right)
        if node.op == "+":
            return a + b
        if node.op == "-":
            return a - b
        if node.op == "*":
            return a * b
        if node.op == "/":
            return a / b
        raise NotAffine(node.op)
    if isinstance(node, c_ast.ArrayRef):
        name, subs = flatten_ref(node)
        if isinstance(name, c_ast.ID):
            return sympy.Symbol(f"{name.name}({','.join(compact_text(s) for s in subs)})")
    if isinstance(node, c_ast.StructRef):
        return sympy.Symbol(member_text(node))
    chosen = min_max(node)
    if chosen is not None:
        which, args = chosen
        return (sympy.Min if which == "min" else sympy.Max)(*[to_sympy(a) for a in args])
    if isinstance(node, c_ast.FuncCall) and isinstance(node.name, c_ast.ID):
        args = node.args.exprs if node.args is not None else []
        return sympy.Symbol(f"{node.name.name}({','.join(compact_text(a) for a in args)})")
    raise NotAffine(type(node).__name__)


_MIN_MAX_CALLS = {"min": "min", "max": "max", "fmin": "min", "fmax": "max", "fminf": "min",
                  "fmaxf": "max", "imin": "min", "imax": "max"}


def min_max(node: c_ast.Node) -> tuple[str, list[c_ast.Node]] | None:
    """``("min", [a, b])`` for ``MIN(a, b)``, ``fmin(a, b)`` or ``a < b ? a : b`` (the
    expansion of the usual ``MIN`` macro), likewise ``"max"``; None for anything else."""
    if isinstance(node, c_ast.FuncCall) and isinstance(node.name, c_ast.ID) \
            and node.name.name.lower() in _MIN_MAX_CALLS and node.args is not None \
            and len(node.args.exprs) >= 2:
        return _MIN_MAX_CALLS[node.name.name.lower()], list(node.args.exprs)
    if isinstance(node, c_ast.TernaryOp) and isinstance(node.cond, c_ast.BinaryOp) \
            and node.cond.op in ("<", "<=", ">", ">="):
        left, right = c_text(node.cond.left), c_text(node.cond.right)
        true, false = c_text(node.iftrue), c_text(node.iffalse)
        smaller_first = node.cond.op in ("<", "<=")
        if (true, false) == (left, right):
            return ("min" if smaller_first else "max"), [node.iftrue, node.iffalse]
        if (true, false) == (right, left):
            return ("max" if smaller_first else "min"), [node.iftrue, node.iffalse]
    return None


def member_text(node: c_ast.StructRef) -> str:
    """A member chain (``in.n``, ``s->boxes->n``, ``lv->b[k].dim.k``) as compact C text: one
    problem symbol to the model."""
    return c_text(node).replace(" ", "")


def compact_text(node: c_ast.Node) -> str:
    try:
        return sstr(to_affine(node) or to_sympy(node)).replace(" ", "")
    except (NotAffine, TypeError, ValueError, ZeroDivisionError):
        return c_text(node).replace(" ", "")


def expr_text(node: c_ast.Node | sympy.Expr) -> str:
    """Normalised text of a bound, stride or extent (``N - 1``); C text if not arithmetic."""
    if not isinstance(node, c_ast.Node):  # already sympy
        return sstr(node)
    try:
        return sstr(to_affine(node) or to_sympy(node))
    except (NotAffine, TypeError, ValueError, ZeroDivisionError):
        return c_text(node)


def flatten_ref(node: c_ast.ArrayRef) -> tuple[c_ast.Node, list[c_ast.Node]]:
    """``a[k][j][i]`` -> ``(a, [k, j, i])``."""
    subs: list[c_ast.Node] = []
    while isinstance(node, c_ast.ArrayRef):
        subs.append(node.subscript)
        node = node.name
    subs.reverse()
    return node, subs


_EXTENTS: dict[str, Affine | sympy.Expr] = {}  # extent text -> its algebra, for shapes


def extent_text(node: c_ast.Node | sympy.Expr) -> str:
    """Text of an array extent, remembering its algebra for :func:`shape_of`."""
    try:
        value = (to_affine(node) or to_sympy(node)) if isinstance(node, c_ast.Node) else node
    except (NotAffine, TypeError, ValueError, ZeroDivisionError):
        return c_text(node)
    text = sstr(value)
    if len(_EXTENTS) > 10000:  # bounded: a run never needs more than a few hundred
        _EXTENTS.clear()
    _EXTENTS[text] = value
    return text


def shape_of(dims: list[str]) -> tuple[str, ...]:
    """Declared extents as ``"0:upper"`` per dimension (``"0:*"`` when unknown)."""
    shape = []
    for extent in dims:
        value = _EXTENTS.get(extent)
        if extent == "*":
            shape.append("0:*")
        elif value is not None:
            shape.append("0:" + sstr(value - 1).replace(" ", ""))
        else:  # an extent that is not arithmetic: keep it readable
            shape.append(f"0:({extent})-1".replace(" ", ""))
    return tuple(shape)


def mentions(node: c_ast.Node | None, name: str) -> bool:
    """Whether the name occurs anywhere in the expression."""
    if node is None:
        return False
    if isinstance(node, c_ast.ID):
        return node.name == name
    if isinstance(node, c_ast.StructRef):  # the member name of s.k is no variable k
        return mentions(node.name, name)
    return any(mentions(child, name) for _n, child in node.children())
