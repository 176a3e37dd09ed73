"""The state of the walk through one C function: its IR levels, scopes, loop variables, warnings."""

from __future__ import annotations

from pycparser import c_ast

from sat import ir
from sat.frontend.bodies import Level
from sat.frontend.c.file_scope import CUnit
from sat.frontend.c.symbols import CSymbol


class FunctionWalk:
    """What the walk through one function knows, and the look-ups and warnings it shares.

    The parts of the walk (statements, accesses, run-time choices, expressions) are mixins of
    this class that call one another through ``self``: :mod:`sat.frontend.c.analyser` puts
    them together.
    """

    def __init__(self, unit: CUnit, node: c_ast.FuncDef, name: str, fragment: bool, line: int):
        self.unit = unit
        self.node = node
        self.fragment = fragment
        self.file, self.line = unit.path, line
        file = unit.path if fragment or node.coord is None else (node.coord.file or unit.path)
        self.proc = ir.Procedure(name=name, file=file, line=line, layout="row-major")
        self.levels: list[Level] = [Level(self.proc)]
        self.loopvars: list[str] = []
        self.scopes: list[dict[str, CSymbol]] = []
        self.params: list[CSymbol] = []
        self.fragment_globals: list[CSymbol] = []
        self.locals: list[CSymbol] = []
        self.nonlocal_used: dict[str, CSymbol] = {}
        self.undeclared: dict[str, CSymbol] = {}
        self.derived_shapes: dict[str, tuple[str, ...]] = {}
        # integer scalars set from loop variables (donor = j + 1): their possible values
        self.index_values: dict[str, list[c_ast.Node]] = {}

    @property
    def level(self) -> Level:
        return self.levels[-1]

    def _scalar(self, sym: CSymbol, write: bool) -> None:
        self.level.scalar(sym.name, sym.datatype, sym.is_constant, write, self.line)

    def warn(self, message: str, node: c_ast.Node | None = None) -> None:
        self.unit.warn(message, *self._place(node))

    def warn_once(self, key: tuple, message: str, node: c_ast.Node | None = None) -> None:
        """A warning given once per ``key`` in the file (the first place it applies)."""
        self.unit.warn(message, *self._place(node), key=key)

    def _place(self, node: c_ast.Node | None) -> tuple[str, int]:
        file, line = self.file, self.line
        if node is not None and node.coord is not None:
            file, line = node.coord.file or file, node.coord.line
        return file, line

    def at(self, node: c_ast.Node) -> None:
        if node.coord is not None and node.coord.line:
            self.file, self.line = node.coord.file or self.file, node.coord.line

    def lookup(self, name: str) -> CSymbol:
        """The symbol of a name; undeclared names are integer constants (``N`` in fragments)."""
        for scope in reversed(self.scopes):
            sym = scope.get(name)
            if sym is not None:
                return sym
        sym = self.unit.symbols.get(name)
        if sym is not None:
            if sym.storage == "file":
                self.nonlocal_used.setdefault(name, sym)
            return sym
        sym = self.undeclared.get(name)
        if sym is None:
            sym = self.undeclared[name] = CSymbol(name, "int", "int", None, True, "undeclared")
        return sym
