"""Analysing each procedure into :mod:`sat.ir`: the walk's state, its names and its variables."""

from __future__ import annotations

import math
import re
from collections.abc import Iterator

from fparser.two import Fortran2003 as F

from sat import ir
from sat.frontend.bodies import Level
from sat.frontend.constants import symbols_used
from sat.frontend.fortran.calls import CallAnalysis
from sat.frontend.fortran.expressions import ExpressionAnalysis
from sat.frontend.fortran.loops import ArrayContext, LoopAnalysis
from sat.frontend.fortran.program import FortranProgram, Unit
from sat.frontend.fortran.references import ReferenceAnalysis
from sat.frontend.fortran.statements import StatementAnalysis
from sat.frontend.fortran.symbols import Symbol
from sat.frontend.fortran.tree import first_child


class _ProcedureAnalyser(StatementAnalysis, LoopAnalysis, ReferenceAnalysis, CallAnalysis,
                         ExpressionAnalysis):
    """Walks one procedure's statements once and fills its IR (visitor: ``_s_<Node>``).

    The walk is made of its parts (statements, loops, references, calls, expressions), one
    class each, which share the state set up here.
    """

    def __init__(self, program: FortranProgram, unit: Unit):
        self.program = program
        self.unit = unit
        self.scope = unit.scope
        self.source = unit.source
        self.file, self.line = unit.source.path, unit.line
        self.proc = ir.Procedure(name=unit.name, file=unit.source.path, line=unit.line)
        self.levels: list[Level] = [Level(self.proc)]
        self.loopvars: list[str] = []
        self.array_ctx: ArrayContext | None = None
        self.nonlocal_used: dict[str, Symbol] = {}
        self._lookups: dict[str, tuple[Symbol, str]] = {}
        # associate names of an element of an array of derived types (p => pts(i))
        self.element_aliases: dict[str, object] = {}
        self._expanding: set[str] = set()
        # index functions by name, inlined into subscripts (None: not one)
        self._index_definitions: dict[str, tuple[tuple[str, ...], str] | None] = {}
        # integer scalars set from loop variables (j = col(k)): value and loop depth, so that
        # x(j) is seen as x(col(k)) by idiom recognition (the offsets stay as written)
        self.index_values: dict[str, tuple[object, int]] = {}
        # one-dimensional arrays read through an index function: the shape its split gives
        self.split_shapes: dict[str, tuple[str, ...]] = {}

    @property
    def level(self) -> Level:
        return self.levels[-1]

    def _scalar(self, name: str, sym: Symbol, write: bool) -> None:
        self.level.scalar(name, sym.datatype, sym.is_parameter, write, self.line)

    def warn(self, message: str, line: int | None = None) -> None:
        self.program.warn(message, self.file, self.line if line is None else line)

    # ------------------------------------------------------------------ driver

    def run(self) -> ir.Procedure:
        execution = first_child(self.unit.node, F.Execution_Part)
        if execution is not None:
            self._block(execution.content)
        self.level.finish()
        self._variables()
        self.proc.constants = self._constants()
        self.proc.dummies = list(self.scope.dummies)
        return self.proc

    def _constants(self) -> list[ir.Constant]:
        """The named constants (local, host, module or included) that the procedure's loop
        bounds, array extents and symbolic offsets use, with their values."""
        constants = []
        pending, seen = sorted(symbols_used(self.proc)), set()
        while pending:
            name = pending.pop(0)
            if name in seen:
                continue
            seen.add(name)
            sym, _ = self.scope.lookup(name)
            if sym is None or not sym.is_parameter or sym.is_array:
                continue
            if isinstance(sym.value, int | float) and not isinstance(sym.value, bool):
                constants.append(ir.Constant(name, float(sym.value), *sym.defined_at))
            elif sym.value is None and sym.expression:
                # defined over symbols of a missing include: a formula of them, each of
                # which may itself be a named constant
                constants.append(ir.Constant(name, math.nan, *sym.defined_at,
                                             expression=sym.expression))
                pending.extend(sorted(set(re.findall(r"[a-z_]\w*", sym.expression))))
        return constants

    def _variables(self) -> None:
        scope = self.scope
        by_name = scope.symbols
        for dummy in scope.dummies:
            sym = by_name.get(dummy)
            if sym is not None and not sym.procedure:
                self.proc.nonlocals.append(self._variable(sym))
        seen = set(scope.dummies)
        for name, sym in by_name.items():
            if name in seen or sym.procedure or sym.is_parameter:
                continue
            seen.add(name)
            if sym.common or (sym.unknown and scope.has_unknown_modules()):
                self.proc.nonlocals.append(self._variable(sym))
            else:
                self.proc.locals.append(self._variable(sym))
        for name, sym in self.nonlocal_used.items():
            if name not in seen and not sym.is_parameter and not sym.procedure:
                seen.add(name)
                self.proc.nonlocals.append(self._variable(sym))

    def _variable(self, sym: Symbol) -> ir.Variable:
        """A declared variable; one of a derived type whose size is known is ``struct*n``, as
        the elements of its arrays are."""
        shape = self.split_shapes.get(sym.name.lower()) or (
            tuple(sym.shape) if sym.is_array else ())
        return ir.Variable(sym.name, self.element_datatype(sym), shape, sym.intent)

    # --------------------------------------------------------------- symbols

    def lookup(self, name: str) -> tuple[Symbol, str]:
        """Symbol and origin (``local``/``module``/``host``), declaring undeclared names."""
        hit = self._lookups.get(name)
        if hit is not None:
            return hit
        sym, origin = self.scope.lookup(name)
        if sym is None:
            sym = self.scope.implicit_symbol(name)
            origin = "local"
            if self.scope.has_unknown_modules():
                # Probably a name from a module we cannot see (warned once per use statement).
                origin = "module"
                if sym.unknown:
                    sym.base, sym.datatype = "real", "double"
                sym.unknown = True
            elif sym.unknown:
                self.warn(f"'{name}' is not declared (implicit none): assumed real")
        if origin != "local" and not sym.is_parameter and not sym.procedure:
            self.nonlocal_used.setdefault(name, sym)
        self._lookups[name] = (sym, origin)
        return sym, origin

    def is_function_name(self, name: str) -> bool:
        return name in self.program.procedures




def analyse_units(program: FortranProgram
                  ) -> Iterator[tuple[Unit, ir.Procedure | None, list[ir.Diagnostic]]]:
    """Each unit, its procedure (``None`` if it was skipped) and the warnings it raised."""
    for unit in program.units:
        start = len(program.warnings)
        procedure = None
        try:
            procedure = _ProcedureAnalyser(program, unit).run()
        except RecursionError:
            program.warn(f"procedure '{unit.name}' skipped: expressions nested too deeply",
                         unit.source.path, unit.line)
        except Exception as exc:  # a bug or an unforeseen construct: skip, say so
            program.warn(f"procedure '{unit.name}' skipped: cannot analyse "
                         f"({type(exc).__name__}: {str(exc)[:80]})", unit.source.path,
                         unit.line)
        yield unit, procedure, program.warnings[start:]
