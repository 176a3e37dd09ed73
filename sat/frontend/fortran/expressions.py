"""Expressions: their base types and the flops of their operators and intrinsic functions."""

from __future__ import annotations

from fparser.two import Fortran2003 as F

from sat.frontend import intrinsics
from sat.frontend.fortran.tree import subscript_list


class ExpressionAnalysis:
    """The procedure analyser's expressions: each one's flops and accesses, and its base type."""

    def expr(self, node: object) -> str:
        """Count the flops and accesses of an expression; return its base type."""
        handler = _EXPRESSIONS.get(type(node))
        if handler is None:
            handler = _expression_handler(type(node))
        return handler(self, node)

    def _e_name(self, node: object) -> str:
        name = str(node).lower()
        sym, _ = self.lookup(name)
        if sym.procedure:
            return sym.base
        if sym.is_array:
            self._whole_array(sym, reads=1, writes=0)
        else:
            self._scalar(name, sym, False)
        return sym.base

    def _e_part_ref(self, node: object) -> str:
        name = str(node.items[0]).lower()
        alias = self._lookups.get(name)
        if alias is not None and alias[0].is_array and alias[0].name != name:
            # an associate name of an array (u => g%u): an element of its target
            self._array_ref(alias[0], subscript_list(node), reads=1, writes=0)
            return alias[0].base
        sym, _ = self.scope.lookup(name)
        # an array declared here is data, even when a procedure elsewhere has its name
        if sym is None or sym.procedure or (name in self.program.procedures
                                            and not sym.is_array):
            return self._call(name, subscript_list(node), "function")
        sym, _ = self.lookup(name)  # records a module/host variable as used
        if sym.is_array:
            self._array_ref(sym, subscript_list(node), reads=1, writes=0)
            return sym.base
        if sym.base == "char" and not sym.procedure and not self.is_function_name(name):
            for sub in subscript_list(node):  # a substring s(1:3)
                self.expr(sub)
            self._scalar(name, sym, False)
            return "char"
        return self._call(name, subscript_list(node), "function")

    def _e_structure_constructor(self, node: object) -> str:
        name = str(node.items[0]).lower()
        args = list(node.items[1].items) if node.items[1] is not None else []
        return self._call(name, args, "function")

    def _e_intrinsic(self, node: object) -> str:
        name = str(node.items[0]).lower()
        args = list(node.items[1].items) if node.items[1] is not None else []
        sym, _ = self.scope.lookup(name)
        if sym is not None and sym.is_array:  # a local array shadowing an intrinsic name
            self._array_ref(sym, args, reads=1, writes=0)
            return sym.base
        if name in self.program.procedures:  # a user procedure shadowing an intrinsic
            return self._call(name, args, "function")
        if name in intrinsics.ELEMENT_REDUCTIONS:
            kind = self._element_reduction(name, args)
            if kind is not None:
                return kind
        return self._intrinsic(name, args)

    def _intrinsic(self, name: str, args: list[object]) -> str:
        """An intrinsic function reference: its arguments, then its cost; its result kind."""
        saved = self.array_ctx
        if name in intrinsics.TRANSFORMATIONAL:
            self.array_ctx = None
        try:
            types = []
            for arg in args:
                value = arg.items[1] if isinstance(arg, F.Actual_Arg_Spec) else arg
                types.append(self.expr(value))
        finally:
            self.array_ctx = saved
        complex_arg = "complex" in types
        entry = intrinsics.lookup(name, complex_arg)
        floating = complex_arg or "real" in types
        if entry is not None and entry.reduction and floating:
            self.warn(f"array reduction '{name}' is not counted as flops (its element count "
                      "is not known here)")
        if entry is not None and (floating or entry.specials):
            self.level.count(intrinsics.flops(entry, len(args)))
        result = entry.result if entry is not None else "arg"
        if result == "arg":
            return types[0] if types else "real"
        return result

    def _e_add(self, node: object) -> str:  # Level_2_Expr: a + b, a - b
        left, op, right = node.items
        left_kind, right_kind = self.expr(left), self.expr(right)
        kind = _combine(left_kind, right_kind)
        if kind in intrinsics.FLOATING:
            self.level.count(intrinsics.arithmetic(op, left_kind, right_kind))
        return kind

    _e_mul = _e_add  # Add_Operand: a * b, a / b

    def _e_power(self, node: object) -> str:  # Mult_Operand: a ** b
        base_node, _op, exponent = node.items
        base = self.expr(base_node)
        exp_kind = self.expr(exponent)
        kind = _combine(base, exp_kind)
        if kind in intrinsics.FLOATING:
            self.level.count(intrinsics.power(base, exp_kind, self.scope.evaluate(exponent)))
        return kind

    def _e_unary(self, node: object) -> str:  # -x is not a flop (see the package docstring)
        return self.expr(node.items[1])

    def _e_paren(self, node: object) -> str:
        return self.expr(node.items[1])

    def _e_compare(self, node: object) -> str:  # Level_4_Expr
        left, _op, right = node.items
        self.level.count(intrinsics.comparison(self.expr(left), self.expr(right)))
        return "bool"

    def _e_logical(self, node: object) -> str:
        for item in node.items:
            if not isinstance(item, str) and item is not None:
                self.expr(item)
        return "bool"

    def _e_concat(self, node: object) -> str:
        self._e_logical(node)
        return "char"

    def _e_data_ref(self, node: object) -> str:
        return self._data_ref(node, reads=1, writes=0)

    def _e_arg(self, node: object) -> str:
        return self.expr(node.items[1])

    def _e_generic(self, node: object) -> str:
        kinds = [self.expr(child) for child in _children(node)]
        return next((k for k in ("complex", "real") if k in kinds), kinds[0] if kinds else "real")


def _combine(a: str, b: str) -> str:
    if a == "complex" or b == "complex":  # complex op real (or integer) is complex
        return "complex"
    if a == "real" or b == "real":
        return "real"
    if a == "char" or b == "char":
        return "char"
    if a == "bool" and b == "bool":
        return "bool"
    return "int"


def _children(node: object) -> list[object]:
    items = getattr(node, "items", None)
    if items is None:
        items = getattr(node, "content", None) or ()
    return [c for c in items if c is not None and not isinstance(c, (str, list, tuple))]


def _literal(kind: str):
    return lambda self, node: kind


_HANDLERS_BY_NAME = {
    "Name": ExpressionAnalysis._e_name,
    "Part_Ref": ExpressionAnalysis._e_part_ref,
    "Function_Reference": ExpressionAnalysis._e_part_ref,
    "Structure_Constructor": ExpressionAnalysis._e_structure_constructor,
    "Intrinsic_Function_Reference": ExpressionAnalysis._e_intrinsic,
    "Level_2_Expr": ExpressionAnalysis._e_add,
    "Add_Operand": ExpressionAnalysis._e_mul,
    "Mult_Operand": ExpressionAnalysis._e_power,
    "Level_2_Unary_Expr": ExpressionAnalysis._e_unary,
    "Parenthesis": ExpressionAnalysis._e_paren,
    "Level_4_Expr": ExpressionAnalysis._e_compare,
    "Level_5_Expr": ExpressionAnalysis._e_logical,
    "Equiv_Operand": ExpressionAnalysis._e_logical,
    "Or_Operand": ExpressionAnalysis._e_logical,
    "And_Operand": ExpressionAnalysis._e_logical,
    "Not_Operand": ExpressionAnalysis._e_logical,
    "Level_3_Expr": ExpressionAnalysis._e_concat,
    "Data_Ref": ExpressionAnalysis._e_data_ref,
    "Actual_Arg_Spec": ExpressionAnalysis._e_arg,
    "Component_Spec": ExpressionAnalysis._e_arg,
    "Int_Literal_Constant": _literal("int"),
    "Signed_Int_Literal_Constant": _literal("int"),
    "Boz_Literal_Constant": _literal("int"),
    "Binary_Constant": _literal("int"),
    "Octal_Constant": _literal("int"),
    "Hex_Constant": _literal("int"),
    "Real_Literal_Constant": _literal("real"),
    "Signed_Real_Literal_Constant": _literal("real"),
    "Complex_Literal_Constant": _literal("complex"),
    "Logical_Literal_Constant": _literal("bool"),
    "Char_Literal_Constant": _literal("char"),
}
_EXPRESSIONS: dict[type, object] = {}


def _expression_handler(cls: type):
    handler = _HANDLERS_BY_NAME.get(cls.__name__, ExpressionAnalysis._e_generic)
    _EXPRESSIONS[cls] = handler
    return handler
