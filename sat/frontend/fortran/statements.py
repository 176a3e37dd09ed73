"""Statements and constructs: assignments, calls, IF, SELECT CASE, WHERE, ASSOCIATE and BLOCK."""

from __future__ import annotations

from collections.abc import Sequence

from fparser.two import Fortran2003 as F
from fparser.two.utils import walk

from sat import ir
from sat.frontend import intrinsics, subscripts
from sat.frontend.bodies import Arm
from sat.frontend.fortran.symbols import Symbol, datatype_of
from sat.frontend.fortran.tree import (
    DO_STATEMENTS,
    construct_body,
    first_child,
    opening_statement,
    subscript_list,
    text_of,
)
from sat.frontend.kinds import mentions

_QUIET = frozenset("""Comment Continue_Stmt End_Do_Stmt Return_Stmt Stop_Stmt Error_Stop_Stmt
Exit_Stmt Cycle_Stmt Format_Stmt Write_Stmt Print_Stmt Read_Stmt Open_Stmt Close_Stmt
Allocate_Stmt Deallocate_Stmt Nullify_Stmt Inquire_Stmt Rewind_Stmt Backspace_Stmt Endfile_Stmt
Flush_Stmt Wait_Stmt Data_Stmt Entry_Stmt Sync_All_Stmt Sync_Images_Stmt Sync_Memory_Stmt
Lock_Stmt Unlock_Stmt Event_Post_Stmt Event_Wait_Stmt Fail_Image_Stmt End_If_Stmt End_Select_Stmt
End_Where_Stmt End_Forall_Stmt""".split())
_GOTO = frozenset("Goto_Stmt Computed_Goto_Stmt Assigned_Goto_Stmt Arithmetic_If_Stmt".split())
_CPP = ("Cpp_If_Stmt", "Cpp_Elif_Stmt", "Cpp_Else_Stmt", "Cpp_Endif_Stmt", "Cpp_Macro_Stmt",
        "Cpp_Undef_Stmt", "Cpp_Line_Stmt", "Cpp_Error_Stmt", "Cpp_Warning_Stmt",
        "Cpp_Null_Stmt", "Cpp_Include_Stmt")


class StatementAnalysis:
    """The procedure analyser's statements: each one's work, and the arms of its branches."""

    def _block(self, nodes: Sequence[object]) -> None:
        for index, node in enumerate(nodes):
            if isinstance(node, DO_STATEMENTS):
                # A DO statement not wrapped in a construct: shared-label DO loops in fixed
                # form come out flat; the rest of the block is this loop's body.
                self._loop(node, list(nodes[index + 1:]))
                return
            self._statement(node)

    def _statement(self, node: object) -> None:
        kind = type(node).__name__
        if getattr(node, "item", None) is not None:
            self.file, self.line = self.source.where(node)
        self.level.statement()
        handler = getattr(self, "_s_" + kind, None)
        if handler is not None:
            handler(node)
        elif kind in _QUIET:
            return
        elif kind in _GOTO:
            self.warn(f"{_readable(kind)}: jumps are not followed (a GO TO loop is not seen as a "
                      "loop); statements are counted once, as written")
        elif kind in _CPP:  # already reported once for the file
            return
        elif kind == "Include_Stmt":
            self.warn(f"include file {str(node.items[0])!r} not found: its statements are not "
                      "counted")
        elif kind.endswith("_Construct") and hasattr(node, "content"):
            self._block(construct_body(node))
        else:
            self.warn(f"statement not analysed ({_readable(kind)})")

    def _s_Assignment_Stmt(self, node: object) -> None:
        lhs, _op, rhs = node.items
        if isinstance(lhs, F.Part_Ref):
            sym, _ = self.scope.lookup(str(lhs.items[0]).lower())
            if sym is not None and not sym.is_array and sym.base != "char" \
                    and not self.loopvars and sym.name != self.unit.result:
                # f(x) = expr on a scalar: a statement function definition, not work.
                sym.procedure = True
                sym.definition = (tuple(subscripts.compact(a) for a in subscript_list(lhs)),
                                  rhs)
                return
        section = self._section_dims(lhs)
        if section is not None:
            self._array_assignment(node, lhs, rhs, *section)
            return
        self.expr(rhs)
        self.target(lhs)
        if isinstance(lhs, F.Name):
            self._track(str(lhs).lower(), rhs)

    def _track(self, name: str, value: object) -> None:
        """Remember an integer scalar's value when it depends on a loop variable (or on such a
        scalar): ``j = col(k)``; forget it otherwise."""
        self.index_values.pop(name, None)
        if not self.loopvars or name in self.loopvars:
            return
        sym, _ = self.lookup(name)
        if sym.base != "int" or sym.is_array:
            return
        text = subscripts.compact(value)
        if any(mentions(text, var) for var in [*self.loopvars, *self.index_values]):
            self.index_values[name] = (value, len(self.loopvars))

    def _s_Pointer_Assignment_Stmt(self, node: object) -> None:
        self.warn("pointer assignment: aliasing is not modelled, the statement is ignored")

    def _s_Call_Stmt(self, node: object) -> None:
        name = str(node.items[0]).lower()
        args = list(node.items[1].items) if node.items[1] is not None else []
        if name in intrinsics.INTRINSIC_SUBROUTINES:
            return
        if intrinsics.is_comm_call(name):
            arrays = [str(a).lower() for a in args
                      if isinstance(a, F.Name) and self.lookup(str(a).lower())[0].is_array]
            self.proc.comms.append(ir.Comm(name, self.line, arrays))
            return
        self._call(name, args, "call")

    def _s_If_Stmt(self, node: object) -> None:
        condition, action = node.items
        self.expr(condition)
        with Arm(self, ir.Branch(condition=text_of(condition), line=self.line, arm=0, arms=2)):
            self._statement_inline(action)

    def _statement_inline(self, node: object) -> None:
        line = self.line
        self._statement(node)
        self.line = line

    def _s_If_Construct(self, node: object) -> None:
        arms: list[tuple[str, object | None, list[object], int]] = []
        for sub in node.content:
            if isinstance(sub, (F.If_Then_Stmt, F.Else_If_Stmt)):
                arms.append(("if", sub.items[0], [], self.source.line_of(sub)))
            elif isinstance(sub, F.Else_Stmt):
                arms.append(("else", None, [], self.source.line_of(sub)))
            elif isinstance(sub, F.End_If_Stmt):
                break
            elif arms:
                arms[-1][2].append(sub)
        self._arms(arms)

    def _arms(self, arms: list[tuple[str, object | None, list[object], int]]) -> None:
        total = len(arms) + (0 if arms and arms[-1][0] == "else" else 1)
        for index, (kind, condition, body, line) in enumerate(arms):
            self.line = line or self.line
            if condition is not None:
                self.expr(condition)
            text = text_of(condition) if kind == "if" else "else"
            branch = ir.Branch(condition=text, line=self.line, arm=index, arms=total)
            with Arm(self, branch):
                self._block(body)

    def _s_Case_Construct(self, node: object) -> None:
        arms: list = []
        for sub in node.content:
            if isinstance(sub, F.Select_Case_Stmt):
                self.line = self.source.line_of(sub) or self.line
                self.expr(sub.items[0])
            elif isinstance(sub, F.Case_Stmt):
                selector = sub.items[0]
                is_default = selector is None or selector.items[0] is None
                line = self.source.line_of(sub)
                if is_default:
                    arms.append(("else", None, [], line))
                else:
                    arms.append(("case", "case " + text_of(selector), [], line))
            elif isinstance(sub, F.End_Select_Stmt):
                break
            elif arms:
                arms[-1][2].append(sub)
        # A default arm may come first in the source; "arms" counts an implicit empty default.
        has_default = any(kind == "else" for kind, *_ in arms)
        total = len(arms) + (0 if has_default else 1)
        for index, (kind, condition, body, line) in enumerate(arms):
            self.line = line or self.line
            branch = ir.Branch(condition=condition if kind == "case" else "else",
                               line=self.line, arm=index, arms=total)
            with Arm(self, branch):
                self._block(body)

    def _s_Where_Construct(self, node: object) -> None:
        arms: list = []
        for sub in node.content:
            if isinstance(sub, (F.Where_Construct_Stmt, F.Masked_Elsewhere_Stmt)):
                arms.append(("if", sub.items[0], [], self.source.line_of(sub)))
            elif isinstance(sub, F.Elsewhere_Stmt):
                arms.append(("else", None, [], self.source.line_of(sub)))
            elif isinstance(sub, F.End_Where_Stmt):
                break
            elif arms:
                arms[-1][2].append(sub)
        self._arms(arms)

    def _s_Where_Stmt(self, node: object) -> None:
        mask, action = node.items
        self.expr(mask)
        with Arm(self, ir.Branch(condition=text_of(mask), line=self.line, arm=0, arms=2)):
            self._statement_inline(action)

    def _s_Associate_Construct(self, node: object) -> None:
        saved, saved_elements = dict(self._lookups), dict(self.element_aliases)
        for association in walk(opening_statement(node), F.Association):
            name = str(association.items[0]).lower()
            target = association.items[2]
            if isinstance(target, F.Name):  # an alias: accesses go to the target
                self._lookups[name] = self.lookup(str(target).lower())
            elif isinstance(target, F.Data_Ref) and self._aliased_component(name, target):
                pass
            elif isinstance(target, F.Part_Ref) and self._aliased_element(name, target):
                pass
            else:  # an expression, evaluated once; the name then reads like a scalar
                kind = self.expr(target)
                self._lookups[name] = (Symbol(name, kind, datatype_of(kind)), "local")
        try:
            self._block(construct_body(node))
        finally:
            self._lookups, self.element_aliases = saved, saved_elements

    def _aliased_element(self, name: str, target: object) -> bool:
        """``p => pts(i)``, an element of an array of derived types: ``p%x`` is then
        ``pts(i)%x``, an access to that element where it is made. False for anything else."""
        sym = self.lookup(str(target.items[0]).lower())[0]
        if not sym.is_array or not sym.type_name or any(
                isinstance(sub, F.Subscript_Triplet) for sub in subscript_list(target)):
            return False
        self.element_aliases[name] = target
        self._lookups[name] = (Symbol(name, "struct", self.element_datatype(sym),
                                      type_name=sym.type_name), "local")
        return True

    def _aliased_component(self, name: str, target: object) -> bool:
        """``u => g%u``: a whole component (array or scalar) is aliased, with its type, kind
        and shape; the subscripts on its path are read once here. False for an element or a
        section (``g%u(i)``): that is an expression."""
        path = self.component_path(target)
        if path.subs is not None:
            return False
        for sub in path.others:
            if not isinstance(sub, F.Subscript_Triplet):
                self.expr(sub)
        self._lookups[name] = (path.symbol, "local")
        return True

    def _s_Block_Construct(self, node: object) -> None:
        spec = first_child(node, F.Specification_Part)
        if spec is not None:
            self.program.declare_spec(self.scope, spec, self.source)
        self._block([n for n in construct_body(node) if not isinstance(n, F.Specification_Part)])


def _readable(kind: str) -> str:
    return kind.replace("_Stmt", "").replace("_", " ").lower()
