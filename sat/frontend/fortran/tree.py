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


def merge_parts(node: object) -> None:
    """Make a unit's declarations one ``Specification_Part`` and its statements one
    ``Execution_Part``, in their order.

    A statement function followed by a declaration (``f(x) = ...`` then ``real :: y``, as
    weather codes include statement-function headers between declarations) is valid Fortran,
    but fparser takes the definition for an assignment: it opens an execution part, and the
    declaration after it a second specification part, which would hide every statement after
    it. The definitions then lead the merged statements, where the analysis knows them for
    what they are (a scalar's name with arguments, assigned outside loops)."""
    content = getattr(node, "content", None)
    if not content:
        return
    for cls in (F.Specification_Part, F.Execution_Part):
        parts = [child for child in content if isinstance(child, cls)]
        if len(parts) < 2:
            continue
        first = parts[0]
        for part in parts[1:]:
            first.content.extend(part.content)
            for child in part.content:
                if hasattr(child, "parent"):
                    child.parent = first
        content[:] = [child for child in content if not any(child is p for p in parts[1:])]


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
