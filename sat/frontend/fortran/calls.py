"""Procedure calls: user and unknown procedures, generic interfaces and statement functions."""

from __future__ import annotations

from collections.abc import Sequence

from fparser.two import Fortran2003 as F
from fparser.two.utils import walk

from sat import ir
from sat.frontend import intrinsics, subscripts
from sat.frontend.bodies import Level
from sat.frontend.fortran.index_functions import inline_text
from sat.frontend.fortran.symbols import Scope, Symbol, datatype_of
from sat.frontend.fortran.tree import subscript_list, text_of

_LITERAL_BASES = {"Int_Literal_Constant": "int", "Signed_Int_Literal_Constant": "int",
                  "Real_Literal_Constant": "real", "Signed_Real_Literal_Constant": "real",
                  "Complex_Literal_Constant": "complex", "Logical_Literal_Constant": "logical",
                  "Char_Literal_Constant": "char"}


def _takes(scope: Scope, signatures: list[tuple]) -> bool:
    """Whether a specific procedure's dummies take arguments of these (keyword, base type,
    rank, datatype) signatures."""
    dummies = scope.dummies
    if len(signatures) > len(dummies):
        return False
    for position, (keyword, base, rank, datatype) in enumerate(signatures):
        dummy = keyword or dummies[position]
        if dummy not in dummies:
            return False
        sym = scope.symbols.get(dummy)
        if sym is None:
            continue
        if not _same_type(sym, base, datatype):
            return False
        if rank is not None and rank != sym.rank:
            return False
    return True


def _same_type(dummy: Symbol, base: str | None, datatype: str | None) -> bool:
    """Whether a dummy has an actual argument's type (``None``: unknown, which any takes); the
    kind counts for reals and complexes."""
    if base is None:
        return True
    return base == dummy.base and not (datatype and dummy.datatype and base in ("real", "complex")
                                       and datatype != dummy.datatype)


def _type_mismatch(scope: Scope, signatures: list[tuple]) -> str:
    """The first actual argument whose type the procedure's dummy does not have ("" if none;
    ranks are not compared: an element may start an array dummy)."""
    for position, (keyword, base, _rank, datatype) in enumerate(signatures):
        dummy = keyword or (scope.dummies[position] if position < len(scope.dummies) else "")
        sym = scope.symbols.get(dummy)
        if sym is not None and not _same_type(sym, base, datatype):
            return (f"argument {position + 1} is {datatype or base} but dummy '{dummy}' is "
                    f"{sym.datatype or sym.base}")
    return ""


class CallAnalysis:
    """The procedure analyser's calls: what a called procedure is and what its arguments cost."""

    def _call(self, name: str, args: list[object], how: str) -> str:
        """A user (or unknown) procedure called with ``args``; returns the result's base type."""
        sym, _ = self.scope.lookup(name)
        if sym is not None and sym.definition is not None:
            return self._statement_function(sym, args)
        if sym is not None and name not in self.program.procedures and sym.specifics:
            name = self._specific(name, sym.specifics, args)
        known = name in self.program.procedures
        if not known and how == "function" and (sym is None or not sym.procedure) \
                and intrinsics.lookup(name) is not None:
            # An intrinsic fparser did not take for one: declared in a type statement, as
            # Fortran 77 codes do (double precision dabs, dsqrt), or a compiler extension it
            # does not know (dcmplx, dconjg, cdabs, ...)
            return self._intrinsic(name, args)
        self.level.body.calls.append(ir.Call(name, self.line, [text_of(a) for a in args]))
        if known:
            mismatch = _type_mismatch(self.program.procedures[name].scope,
                                      [(self._keyword(a), *self._signature(a)) for a in args])
            if mismatch:
                self.warn(f"call to '{name}': {mismatch}; the call is followed as written")
        else:
            what = "call to" if how == "call" else "reference to"
            target = " (its target is not followed)"
            if sym is not None and sym.procedure_pointer:
                what = f"{what} procedure pointer '{name}'{target}"
            elif sym is not None and sym.procedure and sym.dummy:
                what = f"{what} dummy procedure '{name}'{target}"
            else:
                what = f"{what} unknown procedure '{name}'"
            self.warn(f"{what}: it costs CallFlops_{name} flops per call (a parameter, 0 unless "
                      "set), its array arguments are assumed read and written"
                      + ("" if how == "call" else ", its result real"))
        for arg in args:
            value = arg.items[1] if isinstance(arg, (F.Actual_Arg_Spec, F.Component_Spec)) \
                else arg
            if not self._is_array_argument(value):
                self.expr(value)
            elif not known:
                self._array_argument(value)
            elif isinstance(value, F.Part_Ref) and not any(
                    isinstance(sub, F.Subscript_Triplet) for sub in subscript_list(value)):
                self.expr(value)  # an element passed by reference: read here
            # A whole array or a section passed to a known procedure: the callee's own
            # description counts what it does with it.
        if known:
            return self.program.result_base(name)
        if sym is not None and not sym.implicit:
            return sym.base
        return "real"

    def _specific(self, generic: str, specifics: Sequence[str], args: list[object]) -> str:
        """The specific procedure of a generic interface that the arguments select: the first
        whose dummies take the actual arguments' types and ranks."""
        candidates = [s for s in specifics if s in self.program.procedures]
        if not candidates:
            return generic
        signatures = [(self._keyword(arg), *self._signature(arg)) for arg in args]
        for candidate in candidates:
            scope = self.program.procedures[candidate].scope
            if _takes(scope, signatures):
                return candidate
        shown = ", ".join(f"{base or '?'} rank {rank if rank is not None else '?'}"
                          for _, base, rank, _ in signatures)
        self.warn(f"generic interface '{generic}': no specific procedure takes these "
                  f"arguments ({shown}); '{candidates[0]}' stands for it")
        return candidates[0]

    @staticmethod
    def _keyword(arg: object) -> str:
        if isinstance(arg, F.Actual_Arg_Spec) and arg.items[0] is not None:
            return str(arg.items[0]).lower()
        return ""

    def _signature(self, arg: object) -> tuple[str | None, int | None, str | None]:
        """(base type, rank, datatype) of an actual argument, where they can be told without
        counting it (``None``: unknown, which any dummy takes)."""
        value = arg.items[1] if isinstance(arg, F.Actual_Arg_Spec) else arg
        if isinstance(value, F.Name | F.Part_Ref):
            name = str(value if isinstance(value, F.Name) else value.items[0]).lower()
            sym, _ = self.scope.lookup(name)
            if sym is None or sym.procedure:
                return None, None, None
            if isinstance(value, F.Name) or not sym.is_array:
                return sym.base, sym.rank, sym.datatype
            subscripts = subscript_list(value)
            return (sym.base, sum(isinstance(s, F.Subscript_Triplet) for s in subscripts),
                    sym.datatype)
        literal = _LITERAL_BASES.get(type(value).__name__)
        if literal is not None:
            return literal, 0, None
        return None, None, None

    def _statement_function(self, sym: Symbol, args: list[object]) -> str:
        """A statement function reference: its arguments, then its expression's flops."""
        kinds = [self.expr(arg) for arg in args]
        dummies, expression = sym.definition
        if sym.name in self._expanding:
            return sym.base
        # The expression's flops are charged here; its accesses are to the dummies.
        self._expanding.add(sym.name)
        scratch = Level(ir.Body())
        self.levels.append(scratch)
        saved = dict(self._lookups)
        for dummy, kind in zip(dummies, kinds, strict=False):
            self._lookups[dummy] = (Symbol(dummy, kind, datatype_of(kind)), "local")
        try:
            self.expr(expression)
        finally:
            self.levels.pop()
            self._lookups = saved
            self._expanding.discard(sym.name)
        work = scratch.body
        self.level.count((work.adds, work.multiplies, work.divides, work.specials))
        self._statement_function_accesses(sym, args)
        return sym.base

    def _named_by(self, sym: Symbol, seen: set[str]) -> set[str]:
        """The names a statement function's expression uses, not its dummies, with those of
        the statement functions it uses (``qs(x, y) = es(x) / y``: those of ``es``)."""
        seen.add(sym.name)
        dummies, expression = sym.definition
        named = {str(n).lower() for n in walk(expression, F.Name)} - set(dummies)
        for name in list(named):
            inner, _ = self.scope.lookup(name)
            if inner is not None and inner.definition is not None and name not in seen:
                named |= self._named_by(inner, seen)
        return named

    def _statement_function_accesses(self, sym: Symbol, args: list[object]) -> None:
        """The arrays and scalars a statement function's expression names itself (``a(1)``,
        ``c(k)`` in ``f(k) = c(k) * k``), read where it is used: the expression with the
        dummies replaced by the arguments is read in a scratch level, and the accesses of
        those names (not those of the arguments, read once already) are made here."""
        dummies, expression = sym.definition
        named = self._named_by(sym, set())
        if not named:
            return
        text = inline_text(f"{sym.name}({', '.join(str(a) for a in args)})",
                           lambda name: (tuple(dummies), str(expression))
                           if name == sym.name else None)
        try:
            expanded = subscripts.parse_expr(text) if text is not None else None
        except Exception:  # fparser raises many kinds: the accesses stay uncounted
            expanded = None
        if expanded is None:
            return
        self._expanding.add(sym.name)
        scratch = Level(ir.Body())
        self.levels.append(scratch)
        try:
            self.expr(expanded)
        finally:
            self.levels.pop()
            self._expanding.discard(sym.name)
        for (name, component), (array, _accesses, _first) in scratch.arrays.items():
            if name.lower() in named:
                for access in array.accesses:
                    self.level.array(name, component, array.datatype, access.offsets,
                                     access.loopvars, access.reads, access.writes,
                                     access.subscripts, access.line)
        for name, (scalar, _first) in scratch.scalars.items():
            if name.lower() in named:
                for _ in range(scalar.reads):
                    self.level.scalar(name, scalar.datatype, scalar.is_constant, False,
                                      self.line)

    def _is_array_argument(self, node: object) -> bool:
        if isinstance(node, F.Name):
            sym, _ = self.lookup(str(node).lower())
            return sym.is_array
        if isinstance(node, F.Part_Ref):
            sym, _ = self.lookup(str(node.items[0]).lower())
            return sym.is_array
        if isinstance(node, F.Data_Ref):  # g%u, g%u(2:n): a whole component or a section
            path = self.component_path(node)
            return path.symbol.is_array and (path.subs is None or any(
                isinstance(sub, F.Subscript_Triplet) for sub in path.subs))
        return False

    def _array_argument(self, node: object) -> None:
        """An array passed to an unknown procedure: conservatively read and written."""
        saved, self.array_ctx = self.array_ctx, None
        try:
            if isinstance(node, F.Name):
                sym, _ = self.lookup(str(node).lower())
                self._whole_array(sym, reads=1, writes=1)
            elif isinstance(node, F.Data_Ref):
                self._data_ref(node, reads=1, writes=1)
            else:
                sym, _ = self.lookup(str(node.items[0]).lower())
                self._array_ref(sym, subscript_list(node), reads=1, writes=1)
        finally:
            self.array_ctx = saved
