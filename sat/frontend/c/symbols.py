"""C names and their types: declared symbols, and declarators resolved against typedefs."""

from __future__ import annotations

from dataclasses import dataclass, field

from pycparser import c_ast

from sat.ir import struct_datatype


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
    """What a C declaration's type says of the declared name: base type, dimensions, qualifiers."""

    base: str
    datatype: str
    dims: list[str] = field(default_factory=list)
    function: bool = False
    const: bool = False  # the object itself (a scalar) is const
    pointee_const: bool = False  # what a pointer or array holds is const
    layout: tuple[int, int] | None = None  # a structure's (bytes, alignment), when known


# bytes of C's scalar types on LP64 systems (x86-64, AArch64), by IR datatype; each aligned
# to its size, a complex to its part's
_C_BYTES = {"double": 8, "float": 4, "long": 8, "int": 4, "short": 2, "char": 1, "bool": 1,
            "complex": 8, "double complex": 16}


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
        # (bytes, alignment) of the structures and unions declared, by tag (None: unknown)
        self.layouts: dict[str, tuple[int, int] | None] = {}

    def record_struct(self, node: c_ast.Struct | c_ast.Union, extent) -> tuple[int, int] | None:
        """Remember a structure's members and its layout; its (bytes, alignment) when every
        member's size is known (no bit field, no extent that is not a number)."""
        self.record_members(node, extent)
        offset, largest = 0, 1
        for decl in node.decls or ():
            if not isinstance(decl, c_ast.Decl) or decl.bitsize is not None:
                offset = 0
                break
            size_align = _member_bytes(self.resolve(decl.type, extent))
            if size_align is None:
                offset = 0
                break
            size, align = size_align
            offset = max(offset, size) if isinstance(node, c_ast.Union) \
                else -(-offset // align) * align + size
            largest = max(largest, align)
        layout = (-(-offset // largest) * largest, largest) if offset else None
        if node.name:
            self.layouts[node.name] = layout
        return layout

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
                                 known.const, known.pointee_const, known.layout)
            else:
                base, datatype = _base_of(names)
                info = _TypeInfo(base, datatype, dims, function)
        elif isinstance(inner, c_ast.Enum):
            info = _TypeInfo("int", "int", dims, function)
        elif isinstance(inner, (c_ast.Struct, c_ast.Union)):
            if inner.decls:
                layout = self.record_struct(inner, extent)
            else:
                layout = self.layouts.get(inner.name) if inner.name else None
            info = _TypeInfo("struct", struct_datatype(layout[0]) if layout else "struct", dims,
                             function, layout=layout)
        else:
            info = _TypeInfo("real", "double", dims, function)
        if "const" in quals:
            if dims:
                info.pointee_const = True
            else:
                info.const = True
        return info


def _member_bytes(info: _TypeInfo) -> tuple[int, int] | None:
    """(bytes, alignment) of a structure's member, None when its size is not known here."""
    if info.function:  # a function pointer
        return 8, 8
    count = 1
    for dim in info.dims:
        if dim == "*":  # pointers (after the extents of an array of them)
            return 8 * count, 8
        if not dim.isdigit():
            return None
        count *= int(dim)
    if info.base == "struct":
        return (info.layout[0] * count, info.layout[1]) if info.layout else None
    size = _C_BYTES.get(info.datatype)
    if size is None:
        return None
    return size * count, (size // 2 if info.base == "complex" else size)
