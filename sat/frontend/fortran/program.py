"""The program's modules and procedures (its units) and the reading of their declarations."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from fparser.two import Fortran2003 as F
from fparser.two.utils import walk

from sat import ir
from sat.frontend.fortran.parse import Source
from sat.frontend.fortran.symbols import Scope, Symbol, type_of
from sat.frontend.fortran.tree import first_child, merge_parts, opening_statement

# Kinds of the intrinsic modules, so that real(real64) or real(c_double) resolve.
_INTRINSIC_MODULE_KINDS = {
    "iso_fortran_env": {"real32": 4, "real64": 8, "real128": 16, "int8": 1, "int16": 2,
                        "int32": 4, "int64": 8},
    "iso_c_binding": {"c_float": 4, "c_double": 8, "c_long_double": 16, "c_int": 4,
                      "c_long": 8, "c_size_t": 8, "c_bool": 1, "c_float_complex": 4,
                      "c_double_complex": 8, "c_long_double_complex": 16},
}
_SILENT_MODULES = frozenset({"ieee_arithmetic", "ieee_exceptions", "ieee_features", "omp_lib",
                             "omp_lib_kinds", "openacc"})


@dataclass
class Unit:
    """A procedure or main program found in the sources."""

    name: str
    kind: str  # "subroutine", "function", "program"
    node: object
    scope: Scope
    source: Source
    line: int
    result: str = ""  # function result variable


@dataclass
class _Module:
    name: str
    node: object
    scope: Scope
    source: Source
    declared: bool = False
    uses: list[str] = field(default_factory=list)


class FortranProgram:
    """All Fortran sources of one run: their modules and procedures."""

    def __init__(self) -> None:
        self.sources: list[Source] = []
        self.modules: dict[str, Scope] = {}
        self._module_units: dict[str, _Module] = {}
        self.units: list[Unit] = []
        self.procedures: dict[str, Unit] = {}
        self.warnings: list[ir.Diagnostic] = []
        self._warned: set[tuple[str, str, int]] = set()
        for name, kinds in _INTRINSIC_MODULE_KINDS.items():
            scope = Scope(name, "module", None, self.modules)
            for const, value in kinds.items():
                scope.symbols[const] = Symbol(const, "int", "int", is_parameter=True,
                                              value=value)
            self.modules[name] = scope

    def warn(self, message: str, file: str, line: int) -> None:
        key = (message, file, line)
        if key not in self._warned:
            self._warned.add(key)
            self.warnings.append(ir.Diagnostic(message, file, line))

    # ------------------------------------------------------------ collection

    def add_source(self, source: Source) -> None:
        self.sources.append(source)
        found = False
        for node in getattr(source.tree, "content", ()) or ():
            kind = type(node).__name__
            if kind in ("Module", "Submodule"):
                self._add_module(node, source)
                found = True
            elif kind in ("Subroutine_Subprogram", "Function_Subprogram", "Main_Program",
                          "Main_Program0"):
                self._add_unit(node, source, None)
                found = True
        if not found:
            self.warn("no procedures found in this file", source.path, 0)

    def _add_module(self, node: object, source: Source) -> None:
        stmt = opening_statement(node)
        name = _stmt_name(stmt) or "module"
        scope = Scope(name, "module", None, self.modules)
        spec = first_child(node, F.Specification_Part)
        uses = [str(u.items[2]).lower() for u in walk(spec, F.Use_Stmt)] if spec else []
        if name in self._module_units:
            self.warn(f"module '{name}' is defined twice: the first definition is used",
                      *source.where(stmt))
            return
        self.modules[name] = scope
        self._module_units[name] = _Module(name, node, scope, source, uses=uses)
        part = first_child(node, F.Module_Subprogram_Part)
        for sub in (part.content if part is not None else ()):
            if isinstance(sub, (F.Subroutine_Subprogram, F.Function_Subprogram)):
                self._add_unit(sub, source, scope)

    def _add_unit(self, node: object, source: Source, host: Scope | None) -> None:
        merge_parts(node)
        stmt = opening_statement(node)
        if isinstance(node, F.Main_Program0) or not hasattr(stmt, "items"):
            name, kind = "main", "program"
        elif isinstance(node, F.Main_Program):
            name, kind = (_stmt_name(stmt) or "main"), "program"
        elif isinstance(node, F.Function_Subprogram):
            name, kind = _stmt_name(stmt), "function"
        else:
            name, kind = _stmt_name(stmt), "subroutine"
        scope = Scope(name, "procedure" if kind != "program" else "program", host, self.modules)
        file, line = source.where(stmt)
        unit = Unit(name, kind, node, scope, source, line)
        if kind != "program" and len(stmt.items) > 2 and stmt.items[2] is not None:
            scope.dummies = [str(n).lower() for n in stmt.items[2].items]
        if kind == "function":
            unit.result = name
            for suffix in walk(stmt, F.Suffix):
                if suffix.items[0] is not None:
                    unit.result = str(suffix.items[0]).lower()
        if name in self.procedures:
            self.warn(f"procedure '{name}' is defined twice: both are analysed",
                      file, line)
        else:
            self.procedures[name] = unit
        self.units.append(unit)
        inner = first_child(node, F.Internal_Subprogram_Part)
        for sub in (inner.content if inner is not None else ()):
            if isinstance(sub, (F.Subroutine_Subprogram, F.Function_Subprogram)):
                self._add_unit(sub, source, scope)

    def declare(self) -> None:
        """Read every specification part (modules first, in ``use`` order)."""
        for name in list(self._module_units):
            self._declare_module(name, set())
        for unit in self.units:
            self._declare_unit(unit)
        for scope, source in self._scopes_with_sources():
            for use in scope.uses:
                if use.module in self.modules:
                    continue
                scope.unknown_modules.append(use)
                if use.module in _SILENT_MODULES:
                    continue
                self.warn(f"module '{use.module}' is not among the sources: names from it are "
                          f"treated as unknown (assumed real when used as data)",
                          source.path, use.line)

    def _scopes_with_sources(self) -> Iterable[tuple[Scope, Source]]:
        for module in self._module_units.values():
            yield module.scope, module.source
        for unit in self.units:
            yield unit.scope, unit.source

    def _declare_module(self, name: str, visiting: set[str]) -> None:
        module = self._module_units.get(name)
        if module is None or module.declared or name in visiting:
            return
        visiting.add(name)
        for used in module.uses:
            self._declare_module(used, visiting)
        module.declared = True
        self.declare_spec(module.scope, first_child(module.node, F.Specification_Part),
                           module.source)

    def _declare_unit(self, unit: Unit) -> None:
        stmt = opening_statement(unit.node)
        scope = unit.scope
        if unit.kind == "function":
            prefix = next(iter(walk(stmt, F.Prefix)), None)
            spec = next((s for s in (prefix.items if prefix else ())
                         if isinstance(s, (F.Intrinsic_Type_Spec, F.Declaration_Type_Spec))),
                        None)
            if spec is not None:
                base, datatype = type_of(spec, scope)
                scope.symbols[unit.result] = Symbol(unit.result, base, datatype)
        self.declare_spec(scope, first_child(unit.node, F.Specification_Part), unit.source)
        for dummy in scope.dummies:
            sym = scope.symbols.get(dummy)
            if sym is None:
                sym = scope.implicit_symbol(dummy)
            sym.dummy = True
        if unit.kind == "function" and unit.result not in scope.symbols:
            scope.implicit_symbol(unit.result)

    def declare_spec(self, scope: Scope, spec: object, source: Source) -> None:
        def warn(message: str, node: object) -> None:
            self.warn(message, *source.where(node))

        try:
            scope.declare_spec(spec, source.where, warn)
        except Exception as exc:  # a declaration we cannot read must not stop the run
            self.warn(f"declarations of '{scope.name}' only partly read ({type(exc).__name__})",
                      source.path, source.line_of(spec))
        for node in walk(spec, F.Include_Stmt) if spec is not None else ():
            self.warn(f"include file {str(node.items[0])!r} not found: its declarations are "
                      "unknown", *source.where(node))

    def result_base(self, name: str) -> str:
        """Base type of a user function's result."""
        unit = self.procedures.get(name)
        if unit is None or unit.kind != "function":
            return "real"
        sym = unit.scope.symbols.get(unit.result)
        return sym.base if sym is not None else "real"


def _stmt_name(stmt: object) -> str:
    for item in getattr(stmt, "items", ()) or ():
        if isinstance(item, F.Name):
            return str(item).lower()
    return ""
