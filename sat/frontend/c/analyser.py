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

from pycparser import c_ast

from sat import ir
from sat.frontend.c.accesses import Accesses
from sat.frontend.c.algebra import extent_text, shape_of
from sat.frontend.c.choices import RuntimeChoices
from sat.frontend.c.expressions import Expressions
from sat.frontend.c.file_scope import CUnit
from sat.frontend.c.index_functions import index_function
from sat.frontend.c.initial_values import initial_constants
from sat.frontend.c.parser import FRAGMENT_FUNCTION
from sat.frontend.c.statements import Statements
from sat.frontend.c.symbols import CSymbol


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
    unit.index_functions = {name: found for name, node in unit.defined.items()
                            if (found := index_function(node)) is not None}
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
    initial_constants(tree, procedures, unit.is_system)
    return procedures


# --------------------------------------------------------------------------- procedures


def _parameters(node: c_ast.FuncDef) -> list[c_ast.Node]:
    """The declarations of a function's parameters, in order; a K&R definition (``scale(a,
    n) double *a; int n;``) declares them after the list, and one it leaves out is an int."""
    args = getattr(node.decl.type, "args", None)
    declared = {decl.name: decl for decl in node.param_decls or ()
                if isinstance(decl, c_ast.Decl)}
    found: list[c_ast.Node] = []
    for param in (args.params if args is not None else ()):
        if isinstance(param, c_ast.ID):
            param = declared.get(param.name) or c_ast.Decl(
                param.name, [], [], [], [], c_ast.TypeDecl(
                    param.name, [], None, c_ast.IdentifierType(["int"], param.coord),
                    param.coord), None, None, param.coord)
        found.append(param)
    return found



class _ProcedureAnalyser(Statements, Accesses, RuntimeChoices, Expressions):
    """Walks one function's statements once and fills its IR."""

    def run(self) -> ir.Procedure:
        self.scopes.append({})
        for param in _parameters(self.node):
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


def _is_function_decl(node: c_ast.Decl) -> bool:
    return isinstance(node.type, c_ast.FuncDecl)
