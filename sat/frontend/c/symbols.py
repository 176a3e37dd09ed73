"""C names and their types: declared symbols, and declarators resolved against typedefs."""

from __future__ import annotations

from dataclasses import dataclass, field

from pycparser import c_ast


@dataclass
class CSymbol:
    """A declared (or assumed) C name with what the counts need."""

    name: str
    base: str = "real"  # real / complex / int / bool / struct / void
    datatype: str = "double"
    dims: list[str] | None = None  # extent text per dimension ("*": unknown); None: scalar
    is_constant: bool = False
    storage: str = "local"  # local / param / file / undeclared / function / library
    intent: str = ""
    value: int | float | None = None  # of a const scalar with a constant initialiser

    @property
    def is_array(self) -> bool:
        return self.dims is not None

    @property
    def is_function(self) -> bool:
        return self.storage in ("function", "library")


@dataclass
class _TypeInfo:
    base: str
    datatype: str
    dims: list[str] = field(default_factory=list)
    function: bool = False
    const: bool = False  # the object itself (a scalar) is const
    pointee_const: bool = False  # what a pointer or array holds is const


def _base_of(names: list[str]) -> tuple[str, str]:
    words = set(names)
    if "_Complex" in words:  # double and long double complex move 16 bytes, float 8
        return "complex", ("complex" if "float" in words else "double complex")
    if "double" in words:
        return "real", "double"
    if "float" in words:
        return "real", "float"
    if "_Bool" in words:
        return "bool", "bool"
    if "void" in words:
        return "void", "void"
    if words == {"char"} or words in ({"signed", "char"}, {"unsigned", "char"}):
        return "int", "char"
    if "long" in words:  # long, long long, unsigned long: 8 bytes
        return "int", "long"
    if "short" in words:
        return "int", "short"
    return "int", "int"


class Types:
    """Resolves declarators against the typedefs seen so far."""

    def __init__(self) -> None:
        self.typedefs: dict[str, _TypeInfo] = {}
        # members of the structures and unions declared, by member name: their type when all
        # that declare the name agree on its base (None: they do not)
        self.members: dict[str, _TypeInfo | None] = {}

    def record_members(self, node: c_ast.Struct | c_ast.Union, extent) -> None:
        """Remember the types of a structure's (or union's) members."""
        for decl in node.decls or ():
            if not isinstance(decl, c_ast.Decl) or decl.name is None:
                continue
            info = self.resolve(decl.type, extent)
            known = self.members.get(decl.name, info)
            same = known is not None and (known.base, bool(known.dims)) == (info.base,
                                                                          bool(info.dims))
            self.members[decl.name] = info if same else None

    def resolve(self, node: c_ast.Node, extent) -> _TypeInfo:
        """Base type, datatype and dimensions of a declarator chain (outermost dimension first)."""
        dims: list[str] = []
        function = False
        while True:
            if isinstance(node, c_ast.ArrayDecl):
                dims.append(extent(node.dim) if node.dim is not None else "*")
                node = node.type
            elif isinstance(node, c_ast.PtrDecl):
                dims.append("*")
                node = node.type
            elif isinstance(node, c_ast.FuncDecl):
                function = True
                node = node.type
                if dims:  # a function pointer, not data
                    return _TypeInfo("void", "void", [], True)
            else:
                break
        quals = list(getattr(node, "quals", ()) or ())
        inner = getattr(node, "type", None)
        if isinstance(inner, c_ast.IdentifierType):
            names = list(inner.names)
            if len(names) == 1 and names[0] in self.typedefs:
                known = self.typedefs[names[0]]
                info = _TypeInfo(known.base, known.datatype, dims + list(known.dims), function,
                                 known.const, known.pointee_const)
            else:
                base, datatype = _base_of(names)
                info = _TypeInfo(base, datatype, dims, function)
        elif isinstance(inner, c_ast.Enum):
            info = _TypeInfo("int", "int", dims, function)
        elif isinstance(inner, (c_ast.Struct, c_ast.Union)):
            if inner.decls:
                self.record_members(inner, extent)
            info = _TypeInfo("struct", "struct", dims, function)
        else:
            info = _TypeInfo("real", "double", dims, function)
        if "const" in quals:
            if dims:
                info.pointee_const = True
            else:
                info.const = True
        return info
