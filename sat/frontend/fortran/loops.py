"""Loops: DO, DO WHILE, DO CONCURRENT and FORALL, and the implicit loop nests of array syntax."""

from __future__ import annotations

from dataclasses import dataclass

from fparser.two import Fortran2003 as F
from fparser.two.utils import walk

from sat import ir
from sat.frontend import intrinsics, subscripts
from sat.frontend.bodies import Arm, Level
from sat.frontend.fortran.symbols import Symbol
from sat.frontend.fortran.tree import (
    DO_STATEMENTS,
    construct_body,
    opening_statement,
    subscript_list,
    text_of,
)


@dataclass
class ArrayContext:
    """The implicit loop nest of an array-syntax statement."""

    loopvars: list[str]
    lowers: list[subscripts.Algebra]
    outer: Level  # where section bounds are evaluated
    position: int = 0


class LoopAnalysis:
    """The procedure analyser's loops: each opens a loop level, its bounds counted outside it."""

    def _s_Block_Nonlabel_Do_Construct(self, node: object) -> None:
        self._do_construct(node)

    _s_Block_Label_Do_Construct = _s_Block_Nonlabel_Do_Construct
    _s_Action_Term_Do_Construct = _s_Block_Nonlabel_Do_Construct
    _s_Outer_Shared_Do_Construct = _s_Block_Nonlabel_Do_Construct
    _s_Inner_Shared_Do_Construct = _s_Block_Nonlabel_Do_Construct

    def _do_construct(self, node: object) -> None:
        content = list(node.content)
        start = next((i for i, n in enumerate(content) if isinstance(n, DO_STATEMENTS)), None)
        if start is None:
            self.warn("DO construct without a DO statement: body counted once")
            self._block(content)
            return
        for comment in content[:start]:
            self._statement(comment)
        self._loop(content[start], content[start + 1:])

    def _loop(self, stmt: object, body: list[object]) -> None:
        self.file, self.line = self.source.where(stmt)
        control = stmt.items[-1] if isinstance(stmt.items[-1], F.Loop_Control) else None
        if control is None:
            self.warn("DO without control (endless loop): trip count unknown, counted as one "
                      "iteration")
            self._open_loop("", "1", "1", "1", "while", body)
            return
        while_expr, counter, _, concurrent = control.items
        if concurrent is not None:
            self._concurrent(concurrent, body, "concurrent")
        elif counter is not None:
            var = str(counter[0]).lower()
            bounds = list(counter[1])
            for bound in bounds:
                self.expr(bound)
            lower = subscripts.expr_text(bounds[0])
            upper = subscripts.expr_text(bounds[1])
            stride = subscripts.expr_text(bounds[2]) if len(bounds) > 2 else "1"
            self._open_loop(var, lower, upper, stride, "do", body)
        else:
            self.warn("DO WHILE: trip count unknown, counted as one iteration (upper = 1)")
            self._open_loop("", "1", "1", "1", "while", body, condition=while_expr)

    def _concurrent(self, header: object, body: list[object], kind: str) -> None:
        triplets = list(walk(header.items[0], F.Forall_Triplet_Spec))
        mask = header.items[1] if len(header.items) > 1 else None
        specs = []
        for triplet in triplets:
            var, lower, upper, stride = triplet.items
            for bound in (lower, upper, stride):
                if bound is not None:
                    self.expr(bound)
            specs.append((str(var).lower(), subscripts.expr_text(lower),
                          subscripts.expr_text(upper),
                          subscripts.expr_text(stride) if stride is not None else "1"))
        self._nest(specs, body, kind, mask)

    def _nest(self, specs: list, body: list[object], kind: str, mask: object) -> None:
        if not specs:
            self._block(body)
            return
        var, lower, upper, stride = specs[0]
        if len(specs) == 1 and mask is not None:
            def inner() -> None:
                self.expr(mask)
                with Arm(self, ir.Branch(condition=text_of(mask), line=self.line, arm=0,
                                          arms=2)):
                    self._block(body)
            self._open_loop(var, lower, upper, stride, kind, None, run=inner)
            return
        self._open_loop(var, lower, upper, stride, kind, None,
                        run=lambda: self._nest(specs[1:], body, kind, mask))

    def _s_Forall_Construct(self, node: object) -> None:
        header = next(iter(walk(opening_statement(node), F.Forall_Header)))
        self._concurrent(header, construct_body(node), "concurrent")

    def _s_Forall_Stmt(self, node: object) -> None:
        header, action = node.items
        self._concurrent(header, [action], "concurrent")

    def _open_loop(self, var: str, lower: str, upper: str, stride: str, kind: str,
                   body: list[object] | None, condition: object = None, run=None) -> None:
        loop = ir.Loop(line=self.line, loopvar=var, lower=lower, upper=upper, stride=stride,
                       kind=kind, file=self.file)
        self.level.body.loops.append(loop)
        self.levels.append(Level(loop))
        if var:
            self._scalar(var, self.lookup_loopvar(var), True)
            self.loopvars.append(var)
        try:
            if condition is not None:
                self.expr(condition)
            if run is not None:
                run()
            else:
                self._block(body or [])
        finally:
            if var:
                self.loopvars.pop()
            depth = len(self.loopvars)
            for name in [n for n, (_v, d) in self.index_values.items() if d > depth]:
                del self.index_values[name]  # set from the loop's variables: meaningless now
            self.levels.pop().finish()

    # ----------------------------------------------------------- array syntax

    def _section_dims(self, lhs: object) -> tuple[Symbol, list] | None:
        """For an array-valued left-hand side: its symbol and, per dimension, the section."""
        if isinstance(lhs, F.Name):
            sym, _ = self.lookup(str(lhs).lower())
            if sym.is_array and sym.rank:
                return sym, [None] * sym.rank
            return None
        if isinstance(lhs, F.Part_Ref):
            sym, _ = self.lookup(str(lhs.items[0]).lower())
            subs = subscript_list(lhs)
            if sym.is_array and any(isinstance(s, F.Subscript_Triplet) for s in subs):
                return sym, subs
        if isinstance(lhs, F.Data_Ref):  # g%u = 0, g%u(2:n) = ..., pts%x = 0
            path = self.component_path(lhs)
            if path.symbol.is_array and path.symbol.rank and path.subs is None:
                return path.symbol, [None] * path.symbol.rank
            if path.symbol.is_array and path.subs is not None and any(
                    isinstance(s, F.Subscript_Triplet) for s in path.subs):
                return path.symbol, path.subs
        return None

    def _array_assignment(self, node: object, lhs: object, rhs: object, sym: Symbol,
                          subs: list) -> None:
        name = sym.name
        specs = []  # (var, lower text, upper text, stride text, lower algebra), first dim first
        for dim, sub in enumerate(subs):
            if sub is not None and not isinstance(sub, F.Subscript_Triplet):
                continue
            declared = sym.dims[dim] if sym.dims and dim < len(sym.dims) else ("1", "")
            lower_node, upper_node, stride_node = (sub.items if sub is not None
                                                   else (None, None, None))
            for bound in (lower_node, upper_node, stride_node):
                if bound is not None:
                    self.expr(bound)
            lower = (subscripts.expr_text(lower_node) if lower_node is not None
                     else declared[0])
            upper = (subscripts.expr_text(upper_node) if upper_node is not None
                     else (declared[1] or f"ubound({name},{dim + 1})"))
            stride = subscripts.expr_text(stride_node) if stride_node is not None else "1"
            var = f"_i{len(specs) + 1}"
            specs.append((var, lower, upper, stride, subscripts.as_expr(lower)))
        outer = self.level
        context = ArrayContext([s[0] for s in specs], [s[4] for s in specs], outer)

        def innermost() -> None:
            saved = self.array_ctx
            self.array_ctx = context
            try:
                context.position = 0
                self.expr(rhs)
                context.position = 0
                self.target(lhs)
            finally:
                self.array_ctx = saved

        def open_from(index: int) -> None:
            if index < 0:
                innermost()
                return
            var, lower, upper, stride, _ = specs[index]
            self._open_loop(var, lower, upper, stride, "array", None,
                            run=lambda: open_from(index - 1))

        open_from(len(specs) - 1)  # last dimension outermost: Fortran is column-major

    def _element_reduction(self, name: str, args: list[object]) -> str | None:
        """``sum(a*b)``, ``dot_product(a, b)``, ``maxval(a)``, … of whole declared arrays: a
        loop nest over the elements, as an array assignment makes one, with the reduction's
        flops per element (:data:`intrinsics.ELEMENT_REDUCTIONS`); its result kind, or None
        when an argument is not such an array expression or an extent is not declared."""
        count, per_element, once = intrinsics.ELEMENT_REDUCTIONS[name]
        if len(args) != count or self.array_ctx is not None:
            return None
        arrays: list[Symbol] = []
        for arg in args:
            operands = self._whole_operands(arg)
            if operands is None:
                return None
            arrays.extend(operands)
        # complex elements cost more per operation than the table says: not counted here
        if not arrays or len({sym.rank for sym in arrays}) != 1 \
                or not all(upper for _lower, upper in arrays[0].dims) \
                or any(sym.base == "complex" for sym in arrays):
            return None
        sym = arrays[0]
        specs = [(f"_i{dim + 1}", lower, upper) for dim, (lower, upper) in enumerate(sym.dims)]
        context = ArrayContext([s[0] for s in specs],
                               [subscripts.as_expr(s[1]) for s in specs], self.level)
        kinds: list[str] = []

        def innermost() -> None:
            saved = self.array_ctx
            self.array_ctx = context
            try:
                for arg in args:
                    context.position = 0
                    kinds.append(self.expr(arg))
                if any(kind in intrinsics.FLOATING for kind in kinds):
                    self.level.count(per_element)
            finally:
                self.array_ctx = saved

        def open_from(index: int) -> None:
            if index < 0:
                innermost()
                return
            var, lower, upper = specs[index]
            self._open_loop(var, lower, upper, "1", "array", None,
                            run=lambda: open_from(index - 1))

        open_from(len(specs) - 1)  # last dimension outermost: Fortran is column-major
        if any(kind in intrinsics.FLOATING for kind in kinds):
            self.level.count(once)
        return "real" if "real" in kinds else (kinds[0] if kinds else "real")

    def _whole_operands(self, node: object) -> list[Symbol] | None:
        """The whole arrays an expression of whole arrays, scalars and arithmetic names
        (``a*b``, ``g%u``), or None when it is more (an element, a call, a section)."""
        if isinstance(node, F.Name):
            sym = self.lookup(str(node).lower())[0]
            return [sym] if sym.is_array else []
        if isinstance(node, F.Data_Ref):
            path = self.component_path(node)
            if path.subs is not None or path.others:
                return None
            return [path.symbol] if path.symbol.is_array else []
        if isinstance(node, _NOT_WHOLE):
            return None
        found: list[Symbol] = []
        for item in getattr(node, "items", ()) or ():
            if item is None or isinstance(item, str | tuple | list):
                continue
            inner = self._whole_operands(item)
            if inner is None:
                return None
            found.extend(inner)
        return found


# what makes a reduction's argument more than whole arrays, scalars and arithmetic
_NOT_WHOLE = (F.Part_Ref, F.Function_Reference, F.Intrinsic_Function_Reference,
              F.Structure_Constructor, F.Actual_Arg_Spec, F.Array_Constructor)
