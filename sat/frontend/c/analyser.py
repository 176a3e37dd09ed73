"""C parse trees (pycparser) -> :mod:`sat.ir`: the counting rules of the Fortran front end in C.

Counting rules (the contract with the model, tested in ``tests/test_c_*.py``):

- Flops per loop level, *exclusive* of child loops, only for floating-point operations (one
  operand ``float``/``double``): ``+``/``-`` one add, ``*`` a multiply, ``/`` a divide, a
  comparison of real operands one add; unary minus, casts and integer arithmetic are free.
  An operand of a ``_Complex`` type (``double complex`` with ``<complex.h>``) makes the
  operation complex, counted as the real operations that carry it out (``z * w`` is 4
  multiplies and 2 adds), as in Fortran: the rules are in :mod:`sat.frontend.intrinsics`.
- Compound assignments: ``x += e`` is a read of ``x``, an add and a write (``-=`` an add, ``*=``
  a multiply, ``/=`` a divide); the target's subscripts are evaluated once. ``x++`` on a real
  is a read, an add and a write.
- ``<math.h>`` functions cost what :mod:`sat.frontend.intrinsics` says; ``pow(x, n)`` follows
  the rule of Fortran's ``x**n``: a constant integral ``n >= 2`` is ``n - 1`` multiplies,
  ``n <= -1`` one divide and ``-n - 1`` multiplies, ``0``/``1`` free, anything else
  (``pow(x, 0.5)``, ``pow(x, y)``) one special.
- ``for`` loops with an integer variable, a bound test (``<``, ``<=``, ``>``, ``>=``, ``!=``) and
  a constant or invariant step become loops with Fortran-style bounds: ``for (i = 0; i < n;
  i++)`` is ``lower 0, upper n - 1, stride 1``; ``for (i = n - 1; i >= 0; i--)`` is ``lower
  n - 1, upper 0, stride -1``. Bound expressions are read at the enclosing level; the loop
  variable is written once at its own level. Other loops (``while``, ``for (;;)``) are kind
  ``while`` with a trip count of one, and a warning.
- Subscripts: ``a[k][j][i+1]`` gives offsets ``(0, 0, 1)`` on ``(k, j, i)`` in the order
  written. A one-dimensional index that is a linear combination of loop variables with strides
  that are products of extents (``a[i + N*j + N*M*k]``) is split into dimensions, outermost
  first (``a[k][j][i]``); otherwise it stays one-dimensional (with a warning when it looked
  linearised). ``*(p + i)`` is ``p[i]``. Plain-name and integer subscripts of a reference that
  also uses a loop variable select a component, as in Fortran.
- Linearised indices of C ports of Fortran codes, ``a[IDX(j,k)]`` with ``IDX(j,k) =
  (x_max+5)*((k)-(y_min-2)) + (j)-(x_min-2)``: a row length that is a polynomial but not a
  product of names (``x_max + 5``) is assumed to be the extent of the inner dimension, and the
  parts of the index without loop variables that are not numbers (``-(x_min-2)``, as grouped
  in the source) are where the array starts, not stencil offsets: ``a[IDX(j+1,k)]`` is offset
  ``(0, 1)`` on ``(k, j)``. Both assumptions are stated once per array; an index that cannot
  be split is reported once per array.
- Subscripts chosen at run time are recorded at every choice (the conservative choice: the
  stencil covers every cell the access may touch, and each choice counts the access's reads
  and writes): ``a[c ? j : j+1]``, and an integer variable set from loop variables, ``donor
  = (v > 0) ? j - 1 : j`` or ``j - 1`` and ``j`` on two arms of an if, then ``a[IDX(donor,
  k)]`` (offsets ``-1`` and ``0`` on ``j``). Such a variable is forgotten when it is changed
  otherwise (``donor += 1``) and when the loop whose variable it holds ends.
- Scalars count one read per use and one write per assignment; ``if``/``else if``/``else``,
  ``switch`` and ``?:`` arms are :class:`sat.ir.Branch` bodies whose conditions are counted at
  the enclosing level.
- Names used but never declared (``N``, ``M`` in kernel fragments) are integer constants.
"""

from __future__ import annotations

import itertools

from pycparser import c_ast

from sat import ir
from sat.frontend.bodies import Arm, Level
from sat.frontend.c.algebra import (
    NotAffine,
    c_text,
    constant_value,
    extent_text,
    flatten_ref,
    shape_of,
    to_affine,
    to_sympy,
)
from sat.frontend.c.choices import MAX_CHOICES, RuntimeChoices
from sat.frontend.c.delinearise import delinearise, index_parts, split_note
from sat.frontend.c.expressions import Expressions
from sat.frontend.c.file_scope import CUnit
from sat.frontend.c.for_loops import canonical_for, loop_bounds
from sat.frontend.c.offsets import classify, signed_offset
from sat.frontend.c.parser import FRAGMENT_FUNCTION
from sat.frontend.c.symbols import CSymbol
from sat.frontend.kinds import Part, decide, mentioned

_QUIET = (c_ast.Break, c_ast.Continue, c_ast.EmptyStatement, c_ast.Pragma, c_ast.StaticAssert,
          c_ast.Typedef)


def analyse_translation_unit(tree: c_ast.FileAST, path: str, fragment_name: str | None,
                             stub_dir: str, warnings: list[ir.Diagnostic]) -> list[ir.Procedure]:
    """Every function of a whole file, or the one procedure of a kernel fragment."""
    unit = CUnit(path, stub_dir, warnings)
    extent = extent_text
    functions: list[c_ast.FuncDef] = []
    for node in tree.ext or ():
        if isinstance(node, c_ast.FuncDef):
            functions.append(node)
            unit.defined[node.decl.name] = node
        elif isinstance(node, (c_ast.Decl, c_ast.Typedef)):
            sym = unit.declare(node, "file", extent)
            if sym is not None:
                if sym.storage == "function" and sym.name in unit.symbols:
                    continue  # a second prototype
                unit.symbols[sym.name] = sym
                if not sym.is_function:
                    unit.order.append(sym.name)
    procedures: list[ir.Procedure] = []
    for node in functions:
        fragment = fragment_name is not None and node.decl.name == FRAGMENT_FUNCTION
        name = fragment_name if fragment else node.decl.name
        line = 1 if fragment else (node.coord.line if node.coord is not None else 0)
        try:
            procedures.append(_ProcedureAnalyser(unit, node, name, fragment, line).run())
        except RecursionError:
            unit.warn(f"function '{name}' skipped: expressions nested too deeply", path, line)
        except Exception as exc:  # a bug or an unforeseen construct: skip it and say so
            unit.warn(f"function '{name}' skipped: cannot analyse ({type(exc).__name__}: "
                      f"{str(exc)[:80]})", path, line)
    return procedures


# --------------------------------------------------------------------------- procedures


class _ProcedureAnalyser(RuntimeChoices, Expressions):
    """Walks one function's statements once and fills its IR."""

    def run(self) -> ir.Procedure:
        self.scopes.append({})
        decl_type = self.node.decl.type
        args = getattr(decl_type, "args", None)
        for param in (args.params if args is not None else ()):
            if not isinstance(param, c_ast.Decl) or param.name is None:
                continue  # (void) or ...
            sym = self.unit.declare(param, "param", extent_text)
            if sym is not None:
                sym.is_constant = False
                self.scopes[-1][sym.name] = sym
                self.params.append(sym)
                self.proc.dummies.append(sym.name)
        body = self.node.body
        if self.fragment:
            for item in body.block_items or ():
                if isinstance(item, (c_ast.Decl, c_ast.Typedef)) and (
                        self.unit.is_system(item) or isinstance(item, c_ast.Typedef)
                        or _is_function_decl(item)):
                    sym = self.unit.declare(item, "file", extent_text)
                    if sym is not None and sym.name not in self.unit.symbols:
                        self.unit.symbols[sym.name] = sym
                    continue
                if isinstance(item, c_ast.Decl):
                    self._declaration(item, "file")
                else:
                    self.statement(item)
        else:
            self.statement(body)
        self.level.finish()
        self._variables()
        return self.proc

    def _variables(self) -> None:
        def variable(sym: CSymbol) -> ir.Variable:
            shape = self.derived_shapes.get(sym.name) or (shape_of(sym.dims) if sym.dims else ())
            return ir.Variable(sym.name, sym.datatype, shape, sym.intent)

        seen: set[str] = set()
        for sym in [*self.params, *self.fragment_globals, *self.nonlocal_used.values()]:
            if sym.name not in seen:
                seen.add(sym.name)
                self.proc.nonlocals.append(variable(sym))
        for sym in self.locals:
            if sym.name not in seen:
                seen.add(sym.name)
                self.proc.locals.append(variable(sym))

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

    # ------------------------------------------------------------ statements

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
            var, start, end, op, step = header
            sym = self.lookup(var)
            if sym.base != "int" or sym.is_array:
                self._uncounted_for(node, f"for loop over '{var}', which is not an integer")
                return
            for bound in (start, end, step):
                self.expr(bound)  # evaluated once, at the enclosing level
            self.at(node)
            bounds = loop_bounds(start, end, op, step)
            if isinstance(bounds, str):
                self.warn(f"for loop over '{var}' {bounds}: counted as one iteration "
                          "(upper = 1)", node)
                self._open_loop(node, var, "1", "1", "1", "while", node.stmt)
                return
            lower, upper, stride = bounds
            self._open_loop(node, var, lower, upper, stride, "do", node.stmt)
        finally:
            self.scopes.pop()

    def _uncounted_for(self, node: c_ast.For, what: str) -> None:
        """A for loop whose trip count is unknown: one iteration, its header run as code."""
        self.warn(f"{what}: trip count unknown, counted as one iteration (upper = 1)", node)
        self.statement(node.init)
        self.at(node)
        self._open_loop(node, "", "1", "1", "1", "while", node.stmt,
                        before=[node.cond], after=[node.next])

    def _declared_loopvar(self, decls: c_ast.DeclList) -> str | None:
        for decl in decls.decls:
            self._declaration_without_init(decl)
        if len(decls.decls) == 1 and decls.decls[0].init is not None:
            return decls.decls[0].name
        return None

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

    # ------------------------------------------------------------- references

    def target(self, node: c_ast.Node, read: bool) -> str:
        """The left-hand side of an assignment: written (and read first when ``read``)."""
        if isinstance(node, c_ast.ID):
            if read:  # x += 1, x++: no longer a known index value (x = e is tracked)
                self.index_values.pop(node.name, None)
            sym = self.lookup(node.name)
            if sym.storage == "undeclared":
                self.warn(f"'{node.name}' is assigned but not declared: assumed an integer",
                          node)
            if sym.is_array:
                self.warn(f"pointer '{node.name}' is reassigned: accesses through it are "
                          "counted as accesses to '" + node.name + "'", node)
                return "ptr"
            if read:
                self._scalar(sym, False)
            self._scalar(sym, True)
            return sym.base
        if isinstance(node, c_ast.ArrayRef):
            return self._array_ref(node, reads=1 if read else 0, writes=1)
        if isinstance(node, c_ast.UnaryOp) and node.op == "*":
            return self._deref(node, reads=1 if read else 0, writes=1)
        if isinstance(node, c_ast.StructRef):
            return self._member(node, reads=1 if read else 0, writes=1)
        hint = ""
        if isinstance(node, c_ast.BinaryOp) and node.op == "*" \
                and isinstance(node.left, c_ast.ID) \
                and self.lookup(node.left.name).storage == "undeclared":
            # "T *p = a;" with T unknown reads as the expression (T * p) = a
            name = node.left.name
            hint = f" (unknown type name '{name}'? define it, e.g. -D {name}=double)"
        self.warn(f"assignment to '{c_text(node)}' not understood: counted as a read{hint}",
                  node)
        return self.expr(node)

    def _array_ref(self, node: c_ast.ArrayRef, reads: int, writes: int) -> str:
        base, subs = flatten_ref(node)
        for sub in subs:
            self.expr(sub)
        if isinstance(base, c_ast.ID):
            sym = self.lookup(base.name)
            if sym.storage == "undeclared":
                self.warn(f"array '{base.name}' is not declared: assumed double", node)
                sym.base, sym.datatype, sym.dims, sym.is_constant = "real", "double", ["*"], False
                sym.storage = "file"
                self.nonlocal_used.setdefault(base.name, sym)
            name, datatype, rank = sym.name, sym.datatype, len(sym.dims or ())
            element = sym.base if len(subs) >= rank else "ptr"
        elif isinstance(base, c_ast.StructRef):
            name, datatype, rank, element = _compact_member(base), "double", len(subs), "real"
            self._member_bases(base)
        else:
            self.warn(f"array reference '{c_text(node)}' not understood: counted as a read of "
                      "its parts", node)
            self.expr(base)
            return "real"
        self._record(name, datatype, subs, rank, reads, writes, node)
        return element

    def _record(self, name: str, datatype: str, subs: list[c_ast.Node], rank: int,
                reads: int, writes: int, node: c_ast.Node) -> None:
        """Record an access; a subscript chosen at run time is recorded at every choice.

        ``a[IDX(upwind,k)]`` after ``upwind = (v > 0) ? j - 1 : j`` touches ``j - 1`` on some
        iterations and ``j`` on others: over the sweep it touches both, so both are stencil
        points (the conservative choice: the working set holds every cell it may read, and
        the reads are counted at each).
        """
        combos: list[tuple[c_ast.Node, ...]] = []
        seen: set[str] = set()
        for combo in itertools.product(*(self._choices(sub) for sub in subs)):
            text = "][".join(c_text(sub) for sub in combo)
            if text not in seen:
                seen.add(text)
                combos.append(combo)
            if len(combos) > MAX_CHOICES:
                combos = [tuple(subs)]
                break
        for combo in combos:
            self._record_one(name, datatype, list(combo), rank, reads, writes, node)

    def _record_one(self, name: str, datatype: str, subs: list[c_ast.Node], rank: int,
                    reads: int, writes: int, node: c_ast.Node) -> None:
        active = tuple(self.loopvars)
        if len(subs) == 1 and rank <= 1:
            split = self._delinearise(name, subs[0], active, node)
            if split is not None:
                offsets, loopvars = split
                kinds = tuple(ir.Subscript("induction", var, 1, offset,
                                           text=var + signed_offset(offset)) if var else
                              ir.Subscript("invariant", text=str(offset))
                              for offset, var in zip(offsets, loopvars, strict=True))
                self.level.array(name, "", datatype, tuple(offsets), tuple(loopvars), reads,
                                 writes, kinds, self.line)
                return
        offsets, loopvars, simple = [], [], []
        kinds_: list[ir.Subscript] = []
        for sub in subs:
            offset, var = classify(sub, active)
            offsets.append(offset)
            loopvars.append(var)
            simple.append(isinstance(sub, c_ast.ID) or (
                isinstance(sub, c_ast.Constant) and isinstance(constant_value(sub), int)))
            kinds_.append(self._subscript_kind(sub, active))
        component = ""
        if any(loopvars):
            component = ",".join(str(off) for off, var, plain in zip(offsets, loopvars, simple,
                                                                           strict=True)
                                 if not var and plain)
        self.level.array(name, component, datatype, tuple(offsets), tuple(loopvars), reads,
                         writes, tuple(kinds_), self.line)

    def _subscript_kind(self, sub: c_ast.Node, active: tuple[str, ...]) -> ir.Subscript:
        """What one subscript is, for idiom recognition (see :mod:`sat.frontend.kinds`);
        an index variable set from loop variables was replaced by its value already."""
        if isinstance(sub, c_ast.ID):
            if sub.name in active:
                return ir.Subscript("induction", sub.name, text=sub.name)
            return ir.Subscript("invariant", text=sub.name)
        if isinstance(sub, c_ast.Constant):
            return ir.Subscript("invariant", text=sub.value)
        parts: list[Part] = []
        self._subscript_parts(sub, active, parts)
        value: object = to_affine(sub)
        if value is None:
            try:
                value = to_sympy(sub)
            except (NotAffine, TypeError, ValueError, ZeroDivisionError):
                value = None
        return decide(value, parts, active, c_text(sub).replace(" ", ""))

    def _subscript_parts(self, node: c_ast.Node, active: tuple[str, ...],
                         parts: list[Part]) -> None:
        """The index arrays, function results and dereferences inside a subscript."""
        if isinstance(node, c_ast.ArrayRef):
            base, _subs = flatten_ref(node)
            used = mentioned(c_text(node), active)
            if isinstance(base, c_ast.ID) and self.lookup(base.name).is_array:
                parts.append(Part("array", base.name, used))
            elif isinstance(base, c_ast.StructRef):
                parts.append(Part("array", _compact_member(base), used))
            else:
                parts.append(Part("pointer", c_text(base), used))
            return
        if isinstance(node, c_ast.FuncCall):
            parts.append(Part("call", c_text(node.name), mentioned(c_text(node), active)))
            return
        if isinstance(node, c_ast.UnaryOp) and node.op == "*":
            parts.append(Part("pointer", c_text(node.expr), mentioned(c_text(node), active)))
            return
        for _name, child in node.children():
            self._subscript_parts(child, active, parts)

    def _delinearise(self, name: str, sub: c_ast.Node, active: tuple[str, ...],
                     node: c_ast.Node) -> tuple[list, list[str]] | None:
        """Offsets and loop variables of a linearised index split into dimensions, or None.

        What the split assumes (a row length that is not a product of names, an origin left
        out of the offsets) and why an index cannot be split are said once per array: a C
        port of a Fortran code has hundreds of ``a[IDX(j,k)]`` that all say the same.
        """
        if isinstance(sub, (c_ast.ID, c_ast.Constant)) or not active:
            return None
        if to_affine(sub) is not None:  # one variable at most, times a number: not linearised
            return None
        import sympy

        try:
            index, origin = index_parts(sub, active)
        except (NotAffine, TypeError, ValueError, ZeroDivisionError):
            return None
        names = {s.name for s in index.free_symbols}
        present = [v for v in active if v in names]
        if not present:
            return None
        coefficients = []
        for var in present:
            coefficient = sympy.expand(sympy.diff(index, sympy.Symbol(var)))
            coefficients.append(coefficient)
        if all(c == 1 for c in coefficients) and len(present) == 1:
            return None  # a plain i + c
        if all(c.is_number for c in coefficients) and len(present) == 1:
            return None  # a strided access (2*i): one dimension
        result = delinearise(index, list(active), origin)
        if isinstance(result, str):
            self.warn_once(("unsplit", name),
                           f"linearised index '{c_text(sub)}' of '{name}' cannot be split into "
                           f"dimensions ({result}): treated as a one-dimensional access", node)
            return None
        if result.assumed or any(result.origin):
            self.warn_once(("split", name), split_note(name, result), node)
        sym = self.lookup(name) if name.isidentifier() else None
        if sym is not None and sym.dims in (["*"], None) and name not in self.derived_shapes:
            self.derived_shapes[name] = shape_of(result.extents)
        return result.offsets, result.loopvars

    def _deref(self, node: c_ast.UnaryOp, reads: int, writes: int) -> str:
        """``*p`` and ``*(p + e)`` are ``p[0]`` and ``p[e]``; other forms are not modelled."""
        terms = _additive_terms(node.expr, "+")
        pointers = [(sign, term) for sign, term in terms if sign == "+"
                    and isinstance(term, c_ast.ID) and self.lookup(term.name).is_array]
        if len(pointers) != 1:
            self.warn(f"pointer dereference '{c_text(node)}' not understood: counted as a read "
                      "of its operands", node)
            self.expr(node.expr)
            return "real"
        base = pointers[0][1]
        index: c_ast.Node | None = None
        for sign, term in terms:
            if term is base:
                continue
            if index is None:
                index = term if sign == "+" else c_ast.UnaryOp("-", term, term.coord)
            else:
                index = c_ast.BinaryOp(sign, index, term, term.coord)
        if index is None:
            index = c_ast.Constant("int", "0", base.coord)
        return self._array_ref(c_ast.ArrayRef(base, index, node.coord), reads, writes)

    def _member(self, node: c_ast.StructRef, reads: int, writes: int) -> str:
        """``s.x`` / ``p->x``: a scalar named by its path (type unknown: assumed double)."""
        self._member_bases(node)
        sym = CSymbol(_compact_member(node), "real", "double")
        if reads:
            self._scalar(sym, False)
        if writes:
            self._scalar(sym, True)
        return "real"

    def _member_bases(self, node: c_ast.StructRef) -> None:
        """Subscripts inside a member path (``s[i].x``) are read."""
        inner = node.name
        while True:
            if isinstance(inner, c_ast.ArrayRef):
                _base, subs = flatten_ref(inner)
                for sub in subs:
                    self.expr(sub)
                inner = _base
            elif isinstance(inner, c_ast.StructRef):
                inner = inner.name
            else:
                break
        if isinstance(inner, c_ast.ID):
            self.lookup(inner.name)  # records a file-scope struct as used


def _compact_member(node: c_ast.StructRef) -> str:
    return c_text(node).replace(" ", "")


def _is_function_decl(node: c_ast.Decl) -> bool:
    return isinstance(node.type, c_ast.FuncDecl)


def _additive_terms(node: c_ast.Node, sign: str) -> list[tuple[str, c_ast.Node]]:
    """``a + i - 1`` -> ``[("+", a), ("+", i), ("-", 1)]``."""
    if isinstance(node, c_ast.BinaryOp) and node.op in ("+", "-"):
        right_sign = sign if node.op == "+" else ("-" if sign == "+" else "+")
        return _additive_terms(node.left, sign) + _additive_terms(node.right, right_sign)
    return [(sign, node)]
