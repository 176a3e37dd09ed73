"""C declarations, statements and loops: branches as IR branches, counted for loops as IR loops."""

from __future__ import annotations

from pycparser import c_ast

from sat import ir
from sat.frontend.bodies import Arm, Level
from sat.frontend.c.algebra import c_text, extent_text
from sat.frontend.c.for_loops import canonical_for, loop_bounds
from sat.frontend.c.walk import FunctionWalk

_QUIET = (c_ast.Break, c_ast.Continue, c_ast.EmptyStatement, c_ast.Pragma, c_ast.StaticAssert,
          c_ast.Typedef)


class Statements(FunctionWalk):
    """The walk's part that follows declarations and statements (see :meth:`statement`)."""

    def _declaration(self, node: c_ast.Decl, storage: str = "local") -> None:
        self.at(node)
        sym = self.unit.declare(node, storage, extent_text)
        if sym is None:
            return
        if node.storage and "extern" in node.storage and storage == "local":
            sym.storage = "file"
        self.scopes[-1][sym.name] = sym
        self.index_values.pop(sym.name, None)  # a new variable: nothing known of its value
        if sym.is_function:
            return
        if storage == "file":
            self.fragment_globals.append(sym)
        elif sym.storage == "local":
            self.locals.append(sym)
        if node.init is None:
            return
        if isinstance(node.init, c_ast.InitList):
            for item in node.init.exprs:
                self.expr(item)
            if sym.is_array:
                rank = len(sym.dims or ())
                self.level.array(sym.name, "", sym.datatype, (":",) * rank, ("",) * rank, 0, 1)
            else:
                self._scalar(sym, True)
            return
        self.expr(node.init)
        if not sym.is_array:
            self._scalar(sym, True)
            self._track(sym.name, node.init)

    def statement(self, node: c_ast.Node | None) -> None:
        if node is None:
            return
        self.at(node)
        self.level.statement()
        handler = getattr(self, "_s_" + type(node).__name__, None)
        if handler is not None:
            handler(node)
        elif isinstance(node, _QUIET):
            if isinstance(node, c_ast.Typedef):
                self.unit.declare(node, "local", extent_text)
        else:
            self.expr(node)  # an expression statement

    def _s_Compound(self, node: c_ast.Compound) -> None:
        self._block(node.block_items)

    def _block(self, statements: list[c_ast.Node] | None) -> None:
        """Statements in a scope of their own (a compound statement, a switch case)."""
        self.scopes.append({})
        try:
            for item in statements or ():
                self.statement(item)
        finally:
            self.scopes.pop()

    def _s_Decl(self, node: c_ast.Decl) -> None:
        self._declaration(node)

    def _s_DeclList(self, node: c_ast.DeclList) -> None:
        for decl in node.decls:
            self._declaration(decl)

    def _s_Label(self, node: c_ast.Label) -> None:
        self.statement(node.stmt)

    def _s_Goto(self, node: c_ast.Goto) -> None:
        self.warn(f"goto {node.name}: jumps are not followed (a goto loop is not seen as a "
                  "loop); statements are counted once, as written", node)

    def _s_Return(self, node: c_ast.Return) -> None:
        if node.expr is not None:
            self.expr(node.expr)

    def _s_If(self, node: c_ast.If) -> None:
        arms: list[tuple[c_ast.Node | None, c_ast.Node | None, c_ast.Node]] = []
        current: c_ast.Node = node
        while True:
            arms.append((current.cond, current.iftrue, current))
            other = current.iffalse
            if isinstance(other, c_ast.If):
                current = other
                continue
            if other is not None:
                arms.append((None, other, other))
            break
        total = len(arms) + (0 if arms[-1][0] is None else 1)
        for index, (condition, body, where) in enumerate(arms):
            self.at(where)
            if condition is not None:
                self.expr(condition)
            text = c_text(condition) if condition is not None else "else"
            with Arm(self, ir.Branch(condition=text, line=self.line, arm=index, arms=total)):
                self.statement(body)

    def _s_Switch(self, node: c_ast.Switch) -> None:
        self.expr(node.cond)
        items = node.stmt.block_items if isinstance(node.stmt, c_ast.Compound) else [node.stmt]
        cases = [item for item in items or () if isinstance(item, (c_ast.Case, c_ast.Default))]
        has_default = any(isinstance(item, c_ast.Default) for item in cases)
        total = len(cases) + (0 if has_default else 1)
        for index, case in enumerate(cases):
            self.at(case)
            text = "else" if isinstance(case, c_ast.Default) else f"case {c_text(case.expr)}"
            with Arm(self, ir.Branch(condition=text, line=self.line, arm=index, arms=total)):
                self._block(case.stmts)

    def _s_While(self, node: c_ast.While) -> None:
        self.warn("while loop: trip count unknown, counted as one iteration (upper = 1)", node)
        self._open_loop(node, "", "1", "1", "1", "while", node.stmt, before=[node.cond])

    def _s_DoWhile(self, node: c_ast.DoWhile) -> None:
        self.warn("do-while loop: trip count unknown, counted as one iteration (upper = 1)",
                  node)
        self._open_loop(node, "", "1", "1", "1", "while", node.stmt, after=[node.cond])

    def _s_For(self, node: c_ast.For) -> None:
        self.scopes.append({})  # for (int i = ...): i belongs to the loop
        try:
            if isinstance(node.init, c_ast.DeclList):
                header = canonical_for(node, self._declared_loopvar(node.init))
            else:
                header = canonical_for(node, None)
            if isinstance(header, str):
                self._uncounted_for(node, f"for loop {header}")
                return
            var = header.var
            sym = self.lookup(var)
            if sym.base != "int" or sym.is_array:
                self._uncounted_for(node, f"for loop over '{var}', which is not an integer")
                return
            for expression in header.before:  # the header's other initialisers, run once
                self.expr(expression)
            for bound in (header.start, header.end, header.step):
                self.expr(bound)  # evaluated once, at the enclosing level
            self.at(node)
            # a bound held in a scalar set from an enclosing loop's variable (first =
            # rowptr[i]) is that value: the loop moves with the enclosing one
            start, end = (self._single_choice(bound) for bound in (header.start, header.end))
            bounds = loop_bounds(start, end, header.op, header.step)
            if isinstance(bounds, str):
                self.warn(f"for loop over '{var}' {bounds}: counted as one iteration "
                          "(upper = 1)", node)
                self._open_loop(node, var, "1", "1", "1", "while", node.stmt,
                                after=header.after)
                return
            lower, upper, stride = bounds
            for name in header.inductions:  # subscripts through k are subscripts through i
                value = header.induction_value(name)
                if value is not None and not self.lookup(name).is_array:
                    self.index_values[name] = [value]
            self._open_loop(node, var, lower, upper, stride, "do", node.stmt,
                            after=header.after)
        finally:
            self.scopes.pop()

    def _single_choice(self, node: c_ast.Node) -> c_ast.Node:
        choices = self._choices(node)
        return choices[0] if len(choices) == 1 else node

    def _uncounted_for(self, node: c_ast.For, what: str) -> None:
        """A for loop whose trip count is unknown: one iteration, its header run as code."""
        self.warn(f"{what}: trip count unknown, counted as one iteration (upper = 1)", node)
        self.statement(node.init)
        self.at(node)
        self._open_loop(node, "", "1", "1", "1", "while", node.stmt,
                        before=[node.cond], after=[node.next])

    def _declared_loopvar(self, decls: c_ast.DeclList) -> list[tuple[str, c_ast.Node | None]]:
        """Declare the header's variables; their (name, initialiser) pairs."""
        for decl in decls.decls:
            self._declaration_without_init(decl)
        return [(decl.name, decl.init) for decl in decls.decls]

    def _declaration_without_init(self, decl: c_ast.Decl) -> None:
        """Declare a for-loop variable; its initialiser is a loop bound, counted separately."""
        sym = self.unit.declare(decl, "local", extent_text)
        if sym is None:
            return
        self.scopes[-1][sym.name] = sym
        if not sym.is_function:
            self.locals.append(sym)

    def _open_loop(self, node: c_ast.Node, var: str, lower: str, upper: str, stride: str,
                   kind: str, body: c_ast.Node | None, before: list | None = None,
                   after: list | None = None) -> None:
        loop = ir.Loop(line=self.line, loopvar=var, lower=lower, upper=upper, stride=stride,
                       kind=kind, file=self.file)
        self.level.body.loops.append(loop)
        self.levels.append(Level(loop))
        if var:
            self._scalar(self.lookup(var), True)
            self.loopvars.append(var)
        try:
            for expression in before or ():
                if expression is not None:
                    self.expr(expression)
            self.statement(body)
            self.level.statement()
            for expression in after or ():
                if expression is not None:
                    self.expr(expression)
        finally:
            if var:
                self.loopvars.pop()
                self._forget_loop(var)
            self.levels.pop().finish()
