"""Counting C expressions: flops by the kinds of their operands, reads, calls and their costs."""

from __future__ import annotations

from pycparser import c_ast

from sat import ir
from sat.frontend import intrinsics
from sat.frontend.bodies import Arm
from sat.frontend.c.algebra import c_text, constant_value, extent_text, flatten_ref
from sat.frontend.c.walk import FunctionWalk

_INTEGER_RESULT = frozenset(
    "abs labs llabs lround lroundf lroundl lrint lrintf lrintl ilogb ilogbf ilogbl".split())
_POWER = frozenset(("pow", "powf", "powl", "cpow", "cpowf", "cpowl"))
# MIN/MAX macros of headers satreport does not have: read as the macro would be
_MIN_MAX_MACROS = frozenset(("MIN", "MAX", "min", "max", "Min", "Max"))
_COMPARISONS = frozenset(("<", "<=", ">", ">=", "==", "!="))
_BINARY_OPERATORS = frozenset("+-*/")


def _combine(a: str, b: str) -> str:
    if a == "ptr" or b == "ptr":
        return "ptr"
    if a == "complex" or b == "complex":
        return "complex"
    if a == "real" or b == "real":
        return "real"
    if a == "bool" and b == "bool":
        return "bool"
    return "int"


class Expressions(FunctionWalk):
    """The walk's part that counts expressions and calls (see :meth:`expr`)."""

    # ------------------------------------------------------------------ calls

    def _call(self, node: c_ast.FuncCall) -> str:
        args = list(node.args.exprs) if node.args is not None else []
        if not isinstance(node.name, c_ast.ID):
            self.warn(f"call through '{c_text(node.name)}' not followed: its arguments are "
                      "counted as reads", node)
            for arg in args:
                self.expr(arg)
            return "real"
        name = node.name.name
        defined = name in self.unit.defined
        sym = self.unit.symbols.get(name)
        if not defined and name in intrinsics.C_MATH and (sym is None
                                                          or sym.storage == "library"):
            return self._math(name, args)
        if not defined and sym is not None and sym.storage == "library" \
                and intrinsics.is_comm_call(name.lower()):
            # MPI_Isend(b, …) from <mpi.h>: a communication point, as in Fortran, no flops
            arrays = [arg.name for arg in args
                      if isinstance(arg, c_ast.ID) and self.lookup(arg.name).is_array]
            self.proc.comms.append(ir.Comm(name, self.line, arrays))
        if defined or (sym is not None and sym.storage == "library"):
            if defined:
                self.level.body.calls.append(ir.Call(name, self.line, [c_text(a) for a in args]))
            for arg in args:
                self._argument(arg, conservative=False)
            if defined:
                return self.unit.types.resolve(self.unit.defined[name].decl.type.type,
                                               extent_text).base
            return sym.base
        variable = any(name in scope for scope in self.scopes)
        if not variable and sym is None and name in _MIN_MAX_MACROS and len(args) >= 2:
            return self._min_max(args)
        self.level.body.calls.append(ir.Call(name, self.line, [c_text(a) for a in args]))
        what = f"call through function pointer '{name}' (its target is not followed)" \
            if variable else f"call to unknown function '{name}'"
        self.warn(f"{what}: it costs CallFlops_{name} flops per call (a parameter, 0 unless "
                  "set), its array arguments are assumed read and written", node)
        for arg in args:
            self._argument(arg, conservative=True)
        return sym.base if sym is not None else "real"

    def _min_max(self, args: list[c_ast.Node]) -> str:
        """``MIN(a, b)`` or ``MAX(a, b)`` whose macro lives in a header not read: what the
        usual macro (``a < b ? a : b``) costs, one comparison (an add, for reals) per extra
        argument."""
        kind = "int"
        for arg in args:
            kind = _combine(kind, self.expr(arg))
        if kind in ("real", "complex"):
            self.level.count((len(args) - 1, 0, 0, 0))
        return kind

    def _argument(self, arg: c_ast.Node, conservative: bool) -> None:
        """An argument: a value is read; arrays and addresses go by reference."""
        if isinstance(arg, c_ast.ID) and self.lookup(arg.name).is_array:
            if conservative:
                sym = self.lookup(arg.name)
                rank = len(sym.dims or ())
                self.level.array(sym.name, "", sym.datatype, (":",) * rank, ("",) * rank, 1, 1)
            return
        if isinstance(arg, c_ast.UnaryOp) and arg.op == "&":
            inner = arg.expr
            if isinstance(inner, c_ast.ArrayRef):
                if conservative:
                    self._array_ref(inner, reads=1, writes=1)
                else:
                    for sub in flatten_ref(inner)[1]:
                        self.expr(sub)
                return
            if isinstance(inner, c_ast.ID) and conservative:
                sym = self.lookup(inner.name)
                if not sym.is_array:
                    self._scalar(sym, False)
                    self._scalar(sym, True)
                return
        self.expr(arg)

    def _math(self, name: str, args: list[c_ast.Node]) -> str:
        types = [self.expr(arg) for arg in args]
        if name in ("abs", "labs", "llabs"):  # integer absolute values: free, type kept
            return types[0] if types else "int"
        complex_arg = name in intrinsics.C_COMPLEX or "complex" in types
        if name in _POWER and len(args) == 2:
            # <math.h> takes doubles: pow(i, 2) on integers is floating-point too.
            base = "complex" if name in intrinsics.C_COMPLEX else "real"
            self.level.count(intrinsics.power(base, types[1], self.constant(args[1])))
            return base
        # <math.h> functions take doubles: even fmax(i, j) on integers is floating-point.
        entry = intrinsics.lookup(name, complex_arg)
        self.level.count(intrinsics.cost(name, len(args), complex_arg))
        if complex_arg:
            result = entry.result if entry is not None else "complex"
            return "complex" if result == "arg" else result
        return "int" if name in _INTEGER_RESULT else "real"

    def constant(self, node: c_ast.Node) -> int | float | None:
        """The value of a constant expression (literals, ``-2``, casts, const scalars)."""
        if isinstance(node, c_ast.Constant):
            return constant_value(node)
        if isinstance(node, c_ast.UnaryOp) and node.op in ("-", "+"):
            value = self.constant(node.expr)
            if value is None:
                return None
            return -value if node.op == "-" else value
        if isinstance(node, c_ast.Cast):
            return self.constant(node.expr)
        if isinstance(node, c_ast.ID):
            sym = self.lookup(node.name)
            return sym.value if sym.is_constant else None
        if isinstance(node, c_ast.BinaryOp) and node.op in ("+", "-", "*", "/"):
            left, right = self.constant(node.left), self.constant(node.right)
            if left is None or right is None:
                return None
            if node.op == "+":
                return left + right
            if node.op == "-":
                return left - right
            if node.op == "*":
                return left * right
            if right == 0:
                return None
            if isinstance(left, int) and isinstance(right, int):
                return int(left / right)  # C truncates toward zero
            return left / right
        return None

    # ------------------------------------------------------------ expressions

    def expr(self, node: c_ast.Node | None) -> str:
        """Count the flops and accesses of an expression; return its kind.

        Kinds: ``real``, ``complex``, ``int``, ``bool``, ``struct``, ``void`` and ``ptr`` (an
        address: arithmetic on it is not a flop).
        """
        if node is None:
            return "int"
        handler = _EXPRESSIONS.get(type(node))
        if handler is None:
            kinds = [self.expr(child) for _name, child in node.children()]
            return next((k for k in ("complex", "real") if k in kinds),
                        kinds[0] if kinds else "int")
        return handler(self, node)

    def _e_id(self, node: c_ast.ID) -> str:
        sym = self.lookup(node.name)
        if sym.is_function:
            return "ptr"
        if sym.is_array:
            return "ptr"  # the array's address: its elements are not touched here
        self._scalar(sym, False)
        return sym.base

    def _e_constant(self, node: c_ast.Constant) -> str:
        if node.type == "string":
            return "ptr"
        return "real" if ("double" in node.type or "float" in node.type) else "int"

    def _e_array_ref(self, node: c_ast.ArrayRef) -> str:
        return self._array_ref(node, reads=1, writes=0)

    def _e_struct_ref(self, node: c_ast.StructRef) -> str:
        return self._member(node, reads=1, writes=0)

    def _e_binary(self, node: c_ast.BinaryOp) -> str:
        left, right = self.expr(node.left), self.expr(node.right)
        kind = _combine(left, right)
        op = node.op
        if op in _BINARY_OPERATORS:
            if kind in intrinsics.FLOATING:
                self.level.count(intrinsics.arithmetic(op, left, right))
            return kind
        if op in _COMPARISONS:
            if kind in intrinsics.FLOATING:  # a compare runs on the adder, as in Fortran
                self.level.count(intrinsics.comparison(left, right))
            return "bool"
        if op in ("&&", "||"):
            return "bool"
        return "int" if kind != "ptr" else "ptr"

    def _e_unary(self, node: c_ast.UnaryOp) -> str:
        op = node.op
        if op == "sizeof":
            return "int"
        if op == "&":
            inner = node.expr
            if isinstance(inner, c_ast.ArrayRef):
                for sub in flatten_ref(inner)[1]:
                    self.expr(sub)
            return "ptr"
        if op == "*":
            return self._deref(node, reads=1, writes=0)
        if op in ("p++", "p--", "++", "--"):
            operand = node.expr
            if isinstance(operand, c_ast.ID) and self.lookup(operand.name).is_array:
                self.warn(f"pointer arithmetic '{c_text(node)}': accesses through "
                          f"'{operand.name}' are counted relative to where it points", node)
                return "ptr"
            kind = self.target(operand, read=True)
            if kind in intrinsics.FLOATING:  # z++ adds 1 to the real part only
                self.level.body.adds += 1
            return kind
        kind = self.expr(node.expr)
        if op == "!":
            return "bool"
        if op == "~":
            return "int"
        return kind  # unary minus and plus are free

    def _e_cast(self, node: c_ast.Cast) -> str:
        self.expr(node.expr)
        info = self.unit.types.resolve(node.to_type.type, extent_text)
        if info.dims or info.function:
            return "ptr"
        return info.base

    def _e_assignment(self, node: c_ast.Assignment) -> str:
        if node.op == "=":
            self.expr(node.rvalue)
            kind = self.target(node.lvalue, read=False)
            if isinstance(node.lvalue, c_ast.ID):
                self._track(node.lvalue.name, node.rvalue)
            return kind
        value = self.expr(node.rvalue)
        target = self.target(node.lvalue, read=True)
        op = node.op[:-1]  # "+=" -> "+"
        if _combine(target, value) in intrinsics.FLOATING and op in _BINARY_OPERATORS:
            self.level.count(intrinsics.arithmetic(op, target, value))
        return target

    def _e_ternary(self, node: c_ast.TernaryOp) -> str:
        self.expr(node.cond)
        text = c_text(node.cond)
        kinds = []
        with Arm(self, ir.Branch(condition=text, line=self.line, arm=0, arms=2)):
            kinds.append(self.expr(node.iftrue))
        with Arm(self, ir.Branch(condition="else", line=self.line, arm=1, arms=2)):
            kinds.append(self.expr(node.iffalse))
        return _combine(*kinds)

    def _e_call(self, node: c_ast.FuncCall) -> str:
        return self._call(node)

    def _e_list(self, node: c_ast.ExprList) -> str:
        kind = "int"
        for item in node.exprs:
            kind = self.expr(item)
        return kind

    def _e_init_list(self, node: c_ast.InitList) -> str:
        for item in node.exprs:
            self.expr(item)
        return "struct"

    def _e_typename(self, node: c_ast.Node) -> str:
        return "int"


_EXPRESSIONS = {
    c_ast.ID: Expressions._e_id,
    c_ast.Constant: Expressions._e_constant,
    c_ast.ArrayRef: Expressions._e_array_ref,
    c_ast.StructRef: Expressions._e_struct_ref,
    c_ast.BinaryOp: Expressions._e_binary,
    c_ast.UnaryOp: Expressions._e_unary,
    c_ast.Cast: Expressions._e_cast,
    c_ast.Assignment: Expressions._e_assignment,
    c_ast.TernaryOp: Expressions._e_ternary,
    c_ast.FuncCall: Expressions._e_call,
    c_ast.ExprList: Expressions._e_list,
    c_ast.InitList: Expressions._e_init_list,
    c_ast.Typename: Expressions._e_typename,
}
