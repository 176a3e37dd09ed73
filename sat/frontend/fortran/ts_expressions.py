"""tree-sitter expressions as fparser's expression nodes, for the one analysis that reads them.

The analysis reads fparser's node model (its classes, ``items`` and printed text); this module
builds the same nodes from tree-sitter's expressions without fparser's matching, in the
shapes fparser's matchers give them: ``a + b - c`` is ``Level_2_Expr(Level_2_Expr(a, +, b),
-, c)``, ``x(i)`` a ``Part_Ref``, ``sqrt(x)`` an ``Intrinsic_Function_Reference`` unless a
type declaration in scope declares the name (fparser's rule), ``t%u(i)`` a ``Data_Ref``. A
construct not known here raises :class:`Unsupported`: the file is then read by fparser.
"""

from __future__ import annotations

from collections.abc import Callable

from fparser.two import Fortran2003 as F
from fparser.two import Fortran2008 as F2008

# Intrinsic function names as fparser knows them in the standard it parses (Fortran 2008, as
# parse.py asks: norm2, findloc, erf, hypot, ...), generic and specific, upper case.
_INTRINSICS = frozenset(F2008.Intrinsic_Name.generic_function_names) | frozenset(
    F2008.Intrinsic_Name.specific_function_names)


class Unsupported(Exception):
    """A construct the tree-sitter adapter does not build: fparser reads the file instead."""


def node(cls: type, *items: object) -> object:
    """An fparser node of class ``cls`` with ``items``, made without fparser's matching."""
    obj = object.__new__(cls)
    obj.items = items
    obj.string = None
    obj.item = None
    obj.parent = None
    return obj


def sequence(cls: type, items: list, separator: str = ",") -> object:
    """An fparser list node (``Section_Subscript_List``, ``Entity_Decl_List``, …)."""
    obj = node(cls, *items)
    obj.items = tuple(items)
    obj.separator = separator
    return obj


def word(cls: type, text: str) -> object:
    """An fparser string node (``Name``, ``Intrinsic_Name``, ``Hex_Constant``, …)."""
    obj = object.__new__(cls)
    obj.string = text
    obj.item = None
    obj.parent = None
    return obj


def name(text: str) -> object:
    return word(F.Name, text)


def text(ts_node: object) -> str:
    return ts_node.text.decode("utf-8", "replace")


def named(ts_node: object) -> list:
    """The named children of a tree-sitter node that are not comments."""
    return [c for c in ts_node.named_children if c.type != "comment"]


_BINARY = {"+": F.Level_2_Expr, "-": F.Level_2_Expr, "*": F.Add_Operand, "/": F.Add_Operand,
           "**": F.Mult_Operand}
# fparser's class for each logical operator (the analysis treats them alike)
_LOGICAL = {".AND.": F.Or_Operand, ".OR.": F.Equiv_Operand, ".EQV.": F.Level_5_Expr,
            ".NEQV.": F.Level_5_Expr}


class ExpressionBuilder:
    """Builds fparser expression nodes; ``declared(name)``: whether a type declaration in
    scope declares ``name`` (it is then no intrinsic function)."""

    def __init__(self, declared: Callable[[str], bool]):
        self.declared = declared
        self._handlers: dict[str, Callable[[object], object]] = {}

    def expr(self, ts: object) -> object:
        kind = ts.type
        handler = self._handlers.get(kind)
        if handler is None:
            handler = getattr(self, "_" + kind, None)
            if handler is None:
                raise Unsupported(f"expression {kind}")
            self._handlers[kind] = handler
        return handler(ts)

    def _identifier(self, ts: object) -> object:
        return name(text(ts))

    def _number_literal(self, ts: object) -> object:
        return literal(text(ts))

    def _string_literal(self, ts: object) -> object:
        value = text(ts)
        kind = None
        if value[:1] not in "'\"":  # kind_"text"
            kind, _, value = value.partition("_")
        return node(F.Char_Literal_Constant, value, kind)

    def _boolean_literal(self, ts: object) -> object:
        value, _, kind = text(ts).upper().partition("_")
        return node(F.Logical_Literal_Constant, value, kind or None)

    def _complex_literal(self, ts: object) -> object:
        parts = [self._complex_part(part) for part in named(ts)]
        if len(parts) != 2:
            raise Unsupported("complex literal")
        return node(F.Complex_Literal_Constant, *parts)

    def _complex_part(self, ts: object) -> object:
        if ts.type == "number_literal":
            value, kind = _split_kind(text(ts))
            signed = (F.Signed_Int_Literal_Constant if _is_integer(value)
                      else F.Signed_Real_Literal_Constant)
            return node(signed, value.upper(), kind)
        if ts.type == "unary_expression":
            operand = named(ts)
            if len(operand) == 1 and operand[0].type == "number_literal":
                sign = text(ts.child_by_field_name("operator"))
                value, kind = _split_kind(text(operand[0]))
                signed = (F.Signed_Int_Literal_Constant if _is_integer(value)
                          else F.Signed_Real_Literal_Constant)
                return node(signed, sign + value.upper(), kind)
        return self.expr(ts)

    def _math_expression(self, ts: object) -> object:
        left, operator, right = _operands(ts)
        op = text(operator)
        cls = _BINARY.get(op)
        if cls is None:
            raise Unsupported(f"operator {op}")
        return node(cls, self.expr(left), op, self.expr(right))

    def _unary_expression(self, ts: object) -> object:
        op = text(ts.child_by_field_name("operator"))
        if op not in ("-", "+"):
            raise Unsupported(f"unary operator {op}")
        return node(F.Level_2_Unary_Expr, op, self.expr(ts.child_by_field_name("argument")))

    def _parenthesized_expression(self, ts: object) -> object:
        inner = named(ts)
        if len(inner) != 1:
            raise Unsupported("parenthesised list")
        return node(F.Parenthesis, "(", self.expr(inner[0]), ")")

    def _relational_expression(self, ts: object) -> object:
        op = text(ts.child_by_field_name("operator")).upper().replace(" ", "")
        return node(F.Level_4_Expr, self.expr(ts.child_by_field_name("left")), op,
                    self.expr(ts.child_by_field_name("right")))

    def _logical_expression(self, ts: object) -> object:
        op = text(ts.child_by_field_name("operator")).upper().replace(" ", "")
        argument = ts.child_by_field_name("argument")
        if argument is not None:
            if op != ".NOT.":
                raise Unsupported(f"unary operator {op}")
            return node(F.And_Operand, op, self.expr(argument))
        cls = _LOGICAL.get(op)
        if cls is None:
            raise Unsupported(f"operator {op}")
        return node(cls, self.expr(ts.child_by_field_name("left")), op,
                    self.expr(ts.child_by_field_name("right")))

    def _concatenation_expression(self, ts: object) -> object:
        return node(F.Level_3_Expr, self.expr(ts.child_by_field_name("left")), "//",
                    self.expr(ts.child_by_field_name("right")))

    def _array_literal(self, ts: object) -> object:
        opening = text(ts.children[0])
        closing = text(ts.children[-1])
        values = [self.expr(child) for child in named(ts)]
        return node(F.Array_Constructor, opening, sequence(F.Ac_Value_List, values), closing)

    def _derived_type_member_expression(self, ts: object) -> object:
        return sequence(F.Data_Ref, self._parts(ts), "%")

    def _parts(self, ts: object) -> list:
        """The parts of a component path ``t%u(i)%v``, first to last."""
        if ts.type == "derived_type_member_expression":
            base, member = named(ts)
            if member.type != "type_member":
                raise Unsupported("component reference")
            return [*self._parts(base), name(text(member))]
        if ts.type == "call_expression":
            callee, args = _call_parts(ts)
            if callee.type == "derived_type_member_expression":
                parts = self._parts(callee)
                parts[-1] = node(F.Part_Ref, parts[-1], self._subscripts(args))
                return parts
            return [node(F.Part_Ref, self.expr(callee), self._subscripts(args))]
        if ts.type == "identifier":
            return [name(text(ts))]
        raise Unsupported(f"component of {ts.type}")

    def _call_expression(self, ts: object) -> object:
        callee, args = _call_parts(ts)
        if callee.type == "derived_type_member_expression":
            return sequence(F.Data_Ref, self._parts(ts), "%")
        if callee.type != "identifier":
            raise Unsupported(f"reference through {callee.type}")
        called = text(callee)
        arguments = named(args)
        if called.upper() in _INTRINSICS and not self.declared(called.lower()):
            return node(F.Intrinsic_Function_Reference, word(F.Intrinsic_Name, called.upper()),
                        sequence(F.Actual_Arg_Spec_List, [self.actual(a) for a in arguments])
                        if arguments else None)
        if any(a.type == "keyword_argument" or _literal_not_integer(a) for a in arguments):
            # fparser's Part_Ref takes neither: it makes the reference a structure constructor
            specs = [self._component_spec(a) for a in arguments]
            return node(F.Structure_Constructor, word(F.Type_Name, called),
                        sequence(F.Component_Spec_List, specs))
        if not arguments:
            return node(F.Function_Reference, name(called), None)
        return node(F.Part_Ref, name(called), sequence(
            F.Section_Subscript_List, [self.subscript(a) for a in arguments]))

    def _component_spec(self, ts: object) -> object:
        if ts.type == "keyword_argument":
            key = ts.child_by_field_name("name")
            return node(F.Component_Spec, name(text(key)),
                        self.expr(ts.child_by_field_name("value")))
        return self.expr(ts)

    def _subscripts(self, args: object) -> object:
        return sequence(F.Section_Subscript_List, [self.subscript(a) for a in named(args)])

    def subscript(self, ts: object) -> object:
        """One subscript: a triplet ``lo:hi:stride`` or an expression."""
        if ts.type == "extent_specifier":
            return node(F.Subscript_Triplet, *self.triplet(ts))
        if ts.type == "keyword_argument":
            raise Unsupported("keyword in a subscript")
        return self.expr(ts)

    def triplet(self, ts: object) -> list:
        """``[lower, upper, stride]`` of ``lo:hi:stride`` (``None`` for each one left out)."""
        parts: list = [None, None, None]
        position = 0
        for child in ts.children:
            if child.type == ":":
                position += 1
            elif child.is_named and child.type != "comment":
                if position > 2:
                    raise Unsupported("triplet")
                parts[position] = self.expr(child)
        return parts

    def actual_args(self, args: object) -> object:
        """An ``Actual_Arg_Spec_List`` (a call's arguments, keywords kept)."""
        return sequence(F.Actual_Arg_Spec_List, [self.actual(a) for a in named(args)])

    def actual(self, ts: object) -> object:
        if ts.type == "keyword_argument":
            return node(F.Actual_Arg_Spec, name(text(ts.child_by_field_name("name"))),
                        self.expr(ts.child_by_field_name("value")))
        if ts.type == "extent_specifier":
            return node(F.Subscript_Triplet, *self.triplet(ts))
        return self.expr(ts)


def _literal_not_integer(ts: object) -> bool:
    """Whether an argument is a literal constant other than an integer."""
    if ts.type in ("string_literal", "boolean_literal", "complex_literal"):
        return True
    return ts.type == "number_literal" and not isinstance(literal(text(ts)), F.Int_Literal_Constant)


def _operands(ts: object) -> tuple[object, object, object]:
    """A binary expression's left operand, operator and right operand."""
    children = ts.children
    if len(children) == 3:
        return children[0], children[1], children[2]
    return (ts.child_by_field_name("left"), ts.child_by_field_name("operator"),
            ts.child_by_field_name("right"))


def _call_parts(ts: object) -> tuple[object, object]:
    children = named(ts)
    if len(children) != 2 or children[1].type != "argument_list":
        raise Unsupported("call form")
    return children[0], children[1]


def _split_kind(value: str) -> tuple[str, str | None]:
    if "_" in value:
        number, _, kind = value.partition("_")
        return number, kind
    return value, None


def _is_integer(value: str) -> bool:
    return value.lstrip("+-").isdigit()


def literal(value: str) -> object:
    """A number literal as fparser's node (integer, real or BOZ constant)."""
    upper = value.upper()
    if upper[:1] in "BOZ" and "'" in upper or '"' in upper:
        cls = {"B": F.Binary_Constant, "O": F.Octal_Constant, "Z": F.Hex_Constant}.get(upper[:1])
        if cls is None:
            raise Unsupported("BOZ literal")
        return word(cls, upper)
    number, kind = _split_kind(value)
    if _is_integer(number):
        return node(F.Int_Literal_Constant, number, kind)
    if not any(c.isdigit() for c in number):
        raise Unsupported(f"literal {value}")
    return node(F.Real_Literal_Constant, number.upper(), kind)
