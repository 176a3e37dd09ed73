"""What the analysis reads from fparser's parse trees: a construct's parts, subscripts and text."""

from __future__ import annotations

from fparser.two import Fortran2003 as F

DO_STATEMENTS = (F.Label_Do_Stmt, F.Nonlabel_Do_Stmt)


def first_child(node: object, cls: type) -> object | None:
    """The first child of ``node`` that is a ``cls`` (``None`` if there is none)."""
    for sub in getattr(node, "content", ()) or ():
        if isinstance(sub, cls):
            return sub
    return None


def opening_statement(node: object) -> object:
    """A construct's opening statement: fparser may put comments and blank lines before it."""
    return next(c for c in node.content if not isinstance(c, F.Comment))


def construct_body(node: object) -> list[object]:
    """A construct's statements between its opening and closing statements (the comments
    fparser puts before the opening one are not among them)."""
    opening = opening_statement(node)
    start = next(i for i, child in enumerate(node.content) if child is opening)
    return list(node.content[start + 1:-1])


def subscript_list(node: object) -> list[object]:
    """The subscripts of an array element ``a(i, j)``, or the arguments of a call ``f(x)``."""
    subs = node.items[1] if len(node.items) > 1 else None
    if subs is None:
        return []
    return list(getattr(subs, "items", (subs,)))


def text_of(node: object) -> str:
    """A node's source text in lower case (``""`` for none)."""
    return str(node).lower() if node is not None else ""
