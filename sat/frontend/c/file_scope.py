"""The file scope of a C translation unit: its typedefs, variables, functions and warnings."""

from __future__ import annotations

import os

from pycparser import c_ast

from sat import ir
from sat.frontend.c.algebra import constant_value
from sat.frontend.c.symbols import CSymbol, Types


class CUnit:
    """The file-scope view of one translation unit: variables, typedefs, functions."""

    def __init__(self, path: str, stub_dir: str, warnings: list[ir.Diagnostic]):
        self.path = path
        self.stub_dir = os.path.abspath(stub_dir)
        self.types = Types()
        self.symbols: dict[str, CSymbol] = {}
        self.order: list[str] = []  # file-scope variables in declaration order
        self.defined: dict[str, c_ast.FuncDef] = {}
        # index functions by name: (parameters, returned expression), inlined in subscripts
        self.index_functions: dict[str, tuple[list[str], c_ast.Node]] = {}
        self.warnings = warnings
        self._warned: set[tuple] = set()

    def warn(self, message: str, file: str, line: int, key: tuple | None = None) -> None:
        """Add a warning unless the same one (or one with the same ``key``) was given."""
        key = ("message", message, file, line) if key is None else key
        if key not in self._warned:
            self._warned.add(key)
            self.warnings.append(ir.Diagnostic(message, file, line))

    def is_system(self, node: c_ast.Node) -> bool:
        file = getattr(node.coord, "file", "") if node.coord is not None else ""
        return bool(file) and os.path.abspath(file).startswith(self.stub_dir + os.sep)

    def declare(self, node: c_ast.Node, storage: str, extent) -> CSymbol | None:
        """Record a declaration in the file scope (or return the symbol for a local scope)."""
        if isinstance(node, c_ast.Typedef):
            self.types.typedefs[node.name] = self.types.resolve(node.type, extent)
            return None
        if not isinstance(node, c_ast.Decl):
            return None
        _declare_enumerators(node.type, self.symbols)
        if node.name is None:  # struct s {...}; or enum {...};
            if isinstance(node.type, (c_ast.Struct, c_ast.Union)):
                self.types.record_struct(node.type, extent)
            return None
        info = self.types.resolve(node.type, extent)
        if info.function:
            storage = "library" if self.is_system(node) else "function"
            return CSymbol(node.name, info.base, info.datatype, None, False, storage)
        sym = CSymbol(node.name, info.base, info.datatype, info.dims or None,
                      info.const and node.init is not None, storage,
                      "in" if info.pointee_const else "")
        if sym.is_constant and isinstance(node.init, c_ast.Constant):
            sym.value = constant_value(node.init)
        return sym


def _declare_enumerators(node: c_ast.Node, table: dict[str, CSymbol]) -> None:
    inner = getattr(node, "type", None)
    if isinstance(inner, c_ast.Enum) and inner.values is not None:
        for enumerator in inner.values.enumerators:
            table[enumerator.name] = CSymbol(enumerator.name, "int", "int", None, True,
                                             "undeclared")
