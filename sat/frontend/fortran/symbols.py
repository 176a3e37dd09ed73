"""Symbol tables for the Fortran front end: declarations, implicit typing, parameters, ``use``.

A :class:`Scope` belongs to a module, a procedure or a main program. Lookups go through the
scope's own declarations, then the modules it ``use``s (found among the sources, in any order),
then its host (a module for module procedures, the containing procedure for internal ones).
Only what the flop and access counts need is kept: base type (``real``/``complex``/``int``/
``bool``/``char``/``struct``), the IR datatype name (``complex`` for single precision,
``double complex`` for ``complex(8)``, ``complex*16`` and ``double complex``: the model moves
16 bytes for those), the declared dimensions, parameter values and intents. A derived-type
definition (``type :: t ... end type``) is kept as its components, each a :class:`Symbol`, so
that a reference ``a%b%c`` gets its component's declared type; types are found as names are.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field

from fparser.two import Fortran2003 as F
from fparser.two.utils import walk

from sat.frontend import subscripts
from sat.ir import element_words

Warn = Callable[[str, object], None]
Where = Callable[[object], tuple[str, int]]

_DEFAULT_IMPLICIT = {c: (("int", "int") if "i" <= c <= "n" else ("real", "float"))
                     for c in "abcdefghijklmnopqrstuvwxyz"}


@dataclass
class Symbol:
    """A declared (or implicitly typed) name."""

    name: str
    base: str = "real"
    datatype: str = "float"
    dims: list[tuple[str, str]] | None = None  # (lower, upper) per dimension; None: scalar
    shape: tuple[str, ...] = ()  # declared "lower:upper" text per dimension
    is_parameter: bool = False
    value: int | float | None = None
    intent: str = ""
    dummy: bool = False
    common: bool = False
    procedure: bool = False  # external, interface or statement-function name
    procedure_pointer: bool = False  # its target is only known at run time
    implicit: bool = False  # typed by implicit rules, not declared
    unknown: bool = False  # not declared anywhere we can see (e.g. from an unknown module)
    specifics: tuple[str, ...] = ()  # module procedures of a generic interface
    definition: object = None  # (dummy names, expression) of a statement function
    defined_at: tuple[str, int] = ("", 0)  # (file, line) of a named constant's definition
    # a named constant's arithmetic over symbols without a value here (lx1 of an include
    # that was not found): kept as text, "" when it has a value or is not plain arithmetic
    expression: str = ""
    type_name: str = ""  # the derived type of a ``type(t)`` or ``class(t)`` declaration
    # a component held through a descriptor ("allocatable", "pointer"): its data lies
    # outside the derived type's storage
    storage: str = ""
    length: int | None = None  # a character's declared length (None: not a literal)
    polymorphic: bool = False  # declared ``class(t)`` or ``class(*)``

    @property
    def is_array(self) -> bool:
        return self.dims is not None

    @property
    def rank(self) -> int:
        return len(self.dims) if self.dims is not None else 0


@dataclass
class Use:
    module: str
    line: int
    only: dict[str, str] | None = None  # local name -> module name (None: everything)
    renames: dict[str, str] = field(default_factory=dict)  # local -> module name


class Scope:
    """Names visible in one program unit."""

    def __init__(self, name: str, kind: str, parent: Scope | None,
                 modules: dict[str, Scope]):
        self.name = name
        self.kind = kind  # "module", "procedure", "program"
        self.parent = parent
        self.modules = modules
        self.symbols: dict[str, Symbol] = {}
        self.types: dict[str, dict[str, Symbol]] = {}  # derived type -> its components
        # derived type -> its storage in order: the parent (extends) first, then its own
        self.layouts: dict[str, list[Symbol]] = {}
        self.implicit: dict[str, tuple[str, str]] | None = None  # None: inherit from host
        self.implicit_none = False
        self.uses: list[Use] = []
        self.unknown_modules: list[Use] = []
        self.dummies: list[str] = []

    # ------------------------------------------------------------------ lookups

    def lookup(self, name: str) -> tuple[Symbol | None, str]:
        """The symbol for ``name`` and where it lives: ``local``, ``module`` or ``host``."""
        return self._lookup(name, set())

    def components(self, type_name: str) -> dict[str, Symbol] | None:
        """The components of the derived type ``type_name`` (``None``: its definition is not
        among the sources read)."""
        return self._lookup(type_name, set(), "types")[0]

    def component(self, sym: Symbol, path: list[str]) -> Symbol | None:
        """The component ``path`` (``["b", "c"]`` for ``a%b%c``) of the variable ``sym``,
        ``None`` when a type on the way is not known."""
        found: Symbol | None = sym
        for part in path:
            components = self.components(found.type_name) if found.type_name else None
            found = components.get(part) if components is not None else None
            if found is None:
                return None
        return found

    def type_bytes(self, type_name: str, depth: int = 0) -> int | None:
        """Bytes of one value of the derived type ``type_name`` as gfortran lays it out (each
        component aligned to its element's size, the whole to its largest alignment; an
        allocatable or pointer component a descriptor), ``None`` when a component's size is
        not known here (an extent or a length that is no constant, a type not read)."""
        layout = self._lookup(type_name, set(), "layouts")[0]
        if layout is None or depth > 8:
            return None
        offset, largest = 0, 1
        for component in layout:
            size_align = self._component_bytes(component, depth)
            if size_align is None:
                return None
            size, align = size_align
            offset = -(-offset // align) * align + size
            largest = max(largest, align)
        return -(-offset // largest) * largest

    def _component_bytes(self, sym: Symbol, depth: int) -> tuple[int, int] | None:
        """(bytes, alignment) of one component within its derived type."""
        if sym.storage:
            # gfortran: an array descriptor is 40 bytes and 24 per dimension; a scalar an
            # address, with its length for a deferred-length character, its dynamic type
            # for a polymorphic one (and that type's length for class(*))
            if sym.is_array:
                return 40 + 24 * sym.rank, 8
            if sym.polymorphic:
                return (16 if sym.type_name else 24), 8
            return (16 if sym.base == "char" and sym.length is None else 8), 8
        if sym.base == "struct":
            element = self.type_bytes(sym.type_name, depth + 1) if sym.type_name else None
            if element is None:
                return None
            align = 8 if element >= 8 else element
        elif sym.base == "char":
            if sym.length is None:
                return None
            element, align = sym.length, 1
        else:
            element = round(8 * element_words(sym.datatype))
            align = min(element, 8)
        count = 1
        for lower, upper in sym.dims or ():
            low, high = self._constant(lower), self._constant(upper)
            if low is None or high is None:
                return None
            count *= max(0, high - low + 1)
        return element * count, max(1, align)

    def _constant(self, text: str) -> int | None:
        """The integer value of a declared bound's text (a literal, a named constant or
        arithmetic over them), else ``None``."""
        if re.fullmatch(r"-?\d+", text.strip()):
            return int(text)
        try:
            value = self.evaluate(subscripts.parse_expr(text))
        except Exception:  # fparser raises many kinds: not a constant we can read
            return None
        return value if isinstance(value, int) else None

    def _lookup(self, name: str, seen: set[int], table: str = "symbols"
                ) -> tuple[object | None, str]:
        if id(self) in seen:
            return None, ""
        seen.add(id(self))
        sym = getattr(self, table).get(name)
        if sym is not None:
            return sym, ("module" if self.kind == "module" else "local")
        for use in self.uses:
            remote = use.renames.get(name, name)
            if use.only is not None:
                if name not in use.only:
                    continue
                remote = use.only[name]
            module = self.modules.get(use.module)
            if module is not None:
                found, _ = module._lookup(remote, seen, table)
                if found is not None:
                    return found, "module"
        if self.parent is not None:
            found, where = self.parent._lookup(name, seen, table)
            if found is not None:
                return found, ("module" if where == "module" else "host")
        return None, ""

    def implicit_rules(self) -> dict[str, tuple[str, str]] | None:
        """The implicit typing map in force (``None``: ``implicit none``)."""
        scope: Scope | None = self
        while scope is not None:
            if scope.implicit_none:
                return None
            if scope.implicit is not None:
                return scope.implicit
            scope = scope.parent
        return _DEFAULT_IMPLICIT

    def has_unknown_modules(self) -> bool:
        scope: Scope | None = self
        while scope is not None:
            if scope.unknown_modules:
                return True
            scope = scope.parent
        return False

    def implicit_symbol(self, name: str) -> Symbol:
        """Declare ``name`` in this scope from the implicit rules (real if there are none)."""
        rules = self.implicit_rules()
        if rules is not None and name[:1] in rules:
            base, datatype = rules[name[0]]
            sym = Symbol(name, base, datatype, implicit=True)
        else:
            sym = Symbol(name, "real", "double", implicit=True, unknown=True)
        self.symbols[name] = sym
        return sym

    def parameter_value(self, name: str) -> int | float | None:
        sym, _ = self.lookup(name)
        return sym.value if sym is not None and sym.is_parameter else None

    def _get(self, name: str) -> Symbol:
        sym = self.symbols.get(name)
        if sym is None:
            rules = self.implicit_rules()
            base, datatype = (rules or {}).get(name[:1], ("real", "double"))
            sym = self.symbols[name] = Symbol(name, base, datatype, implicit=True)
        return sym

    # ------------------------------------------------------------ declarations

    def declare_spec(self, spec: object, where: Where, warn: Warn) -> None:
        """Read a ``Specification_Part`` into this scope (``where``: a node's file and line)."""
        if spec is None:
            return
        for node in _statements(spec):
            handler = _DECLARATIONS.get(type(node).__name__)
            if handler is not None:
                handler(self, node, where, warn)

    def evaluate(self, node: object) -> int | float | None:
        """Value of a constant expression (literals, parameters, + - * / **), else ``None``."""
        try:
            return _evaluate(node, self)
        except (ArithmeticError, ValueError, TypeError):
            return None


def _statements(spec: object):
    """Statements of a specification part, flattening ``Implicit_Part``."""
    for node in getattr(spec, "content", ()) or ():
        if isinstance(node, F.Implicit_Part):
            yield from _statements(node)
        else:
            yield node


def _names(node: object) -> list[str]:
    return [str(n).lower() for n in walk(node, F.Name)]


def type_of(spec: object, scope: Scope) -> tuple[str, str]:
    """``(base, datatype)`` of a type specification."""
    if isinstance(spec, F.Declaration_Type_Spec):
        return "struct", "struct"
    if not isinstance(spec, F.Intrinsic_Type_Spec):
        return "real", "double"
    name = str(spec.items[0]).upper()
    selector = spec.items[1]
    kind = None
    if isinstance(selector, F.Kind_Selector):
        kind_node = selector.items[1]
        kind = scope.evaluate(kind_node)
        if kind is None:
            kind = -1  # a kind we cannot resolve (e.g. from a module not among the sources)
        elif selector.items[0] == "*" and name == "COMPLEX" and isinstance(kind, int):
            kind //= 2  # complex*16 gives the bytes of both parts: kind 8
    if name == "DOUBLE PRECISION":
        return "real", "double"
    if name == "DOUBLE COMPLEX":
        return "complex", "double complex"
    # Unresolved kinds are taken as double: scientific codes name their double kind.
    if name == "REAL":
        return "real", ("float" if kind in (None, 4) else "long double" if kind == 16
                        else "double")
    if name == "COMPLEX":
        return "complex", ("complex" if kind in (None, 4) else "double complex")
    if name == "INTEGER":  # integer(8) (int64): 8 bytes; default integer 4
        return "int", ("long" if kind == 8 else "short" if kind == 2 else "int")
    if name == "LOGICAL":
        return "bool", "bool"
    if name == "CHARACTER":
        return "char", "char"
    return "real", "double"


def datatype_of(kind: str) -> str:
    """The IR datatype of a value of expression kind ``kind`` (double precision for reals)."""
    return {"real": "double", "complex": "double complex"}.get(kind, kind)


def _dims(spec: object) -> tuple[list[tuple[str, str]], tuple[str, ...]]:
    """Dimensions ``(lower, upper)`` and declared ``"lower:upper"`` text of an array spec."""
    dims: list[tuple[str, str]] = []
    shape: list[str] = []
    items = list(getattr(spec, "items", ()) or ())
    if isinstance(spec, F.Assumed_Size_Spec):
        explicit, last_lower = spec.items
        for sub in (explicit.items if explicit is not None else ()):
            _explicit(sub, dims, shape)
        lower = subscripts.expr_text(last_lower) if last_lower is not None else "1"
        dims.append((lower, ""))
        shape.append(f"{subscripts.compact(last_lower) if last_lower is not None else '1'}:*")
        return dims, tuple(shape)
    for sub in items:
        if isinstance(sub, F.Explicit_Shape_Spec):
            _explicit(sub, dims, shape)
        elif isinstance(sub, (F.Assumed_Shape_Spec, F.Deferred_Shape_Spec)):
            lower = sub.items[0] if getattr(sub, "items", None) else None
            dims.append((subscripts.expr_text(lower) if lower is not None else "1", ""))
            shape.append(f"{subscripts.compact(lower)}:" if lower is not None else ":")
        else:  # a single deferred ':' or something unusual: keep its text
            dims.append(("1", ""))
            shape.append(subscripts.compact(sub))
    return dims, tuple(shape)


def _explicit(sub: object, dims: list, shape: list) -> None:
    lower, upper = sub.items
    low_text = subscripts.expr_text(lower) if lower is not None else "1"
    dims.append((low_text, subscripts.expr_text(upper)))
    low_src = subscripts.compact(lower) if lower is not None else "1"
    shape.append(f"{low_src}:{subscripts.compact(upper)}")


def _set_dims(sym: Symbol, spec: object) -> None:
    sym.dims, sym.shape = _dims(spec)


def _type_name(spec: object) -> str:
    """The derived type a ``type(t)``/``class(t)`` specification names (``""`` if none)."""
    if isinstance(spec, F.Declaration_Type_Spec) and isinstance(spec.items[1], F.Type_Name):
        return str(spec.items[1]).lower()
    return ""


def _type_declaration(scope: Scope, node: object, where: Where, warn: Warn) -> None:
    spec, attrs, entities = node.items[0], node.items[1], node.items[2]
    base, datatype = type_of(spec, scope)
    type_name = _type_name(spec)
    is_param = False
    intent = ""
    dim_spec = None
    is_external = False
    for attr in (attrs.items if attrs is not None else ()):
        text = str(attr).upper()
        if isinstance(attr, F.Intent_Attr_Spec):
            intent = str(attr.items[1]).lower().replace(" ", "")
        elif isinstance(attr, F.Dimension_Attr_Spec):
            dim_spec = attr.items[1]
        elif text == "PARAMETER":
            is_param = True
        elif text == "EXTERNAL":
            is_external = True
        elif text == "POINTER":
            warn("pointer variables are analysed as ordinary variables (no aliasing)", node)
    for entity in (entities.items if entities is not None else ()):
        name = str(entity.items[0]).lower()
        sym = scope.symbols.get(name)
        if sym is None or sym.implicit:
            old = sym
            sym = Symbol(name, base, datatype)
            if old is not None:  # a dimension/intent statement came first
                sym.dims, sym.shape, sym.intent = old.dims, old.shape, old.intent
                sym.dummy, sym.common = old.dummy, old.common
            scope.symbols[name] = sym
        else:
            sym.base, sym.datatype, sym.implicit = base, datatype, False
        sym.type_name = type_name
        if name in scope.dummies:
            sym.dummy = True
        if intent:
            sym.intent = intent
        if is_external:
            sym.procedure = True
        shape = entity.items[1] if len(entity.items) > 1 else None
        if shape is not None:
            _set_dims(sym, shape)
        elif dim_spec is not None:
            _set_dims(sym, dim_spec)
        init = entity.items[3] if len(entity.items) > 3 else None
        if is_param:
            sym.is_parameter = True
            sym.defined_at = where(node)
            if init is not None:
                sym.value = scope.evaluate(init.items[1])
                sym.expression = _arithmetic(init.items[1]) if sym.value is None else ""


def _derived_type(scope: Scope, node: object, where: Where, warn: Warn) -> None:
    """``type :: t ... end type``: its data components, each with its type and dimensions."""
    opening = node.content[0]
    if not isinstance(opening, F.Derived_Type_Stmt) or opening.items[2] is not None:
        return  # a parameterised type: its kinds are known only per declaration
    components: dict[str, Symbol] = {}
    layout: list[Symbol] = []
    for attr in getattr(opening.items[0], "items", ()):
        if isinstance(attr, F.Type_Attr_Spec) and str(attr.items[0]).upper() == "EXTENDS":
            # the parent's components, and the parent itself as a component of its name
            parent = str(attr.items[1]).lower()
            components[parent] = Symbol(parent, "struct", "struct", type_name=parent)
            layout.append(components[parent])
            components.update(scope.components(parent) or {})
    for stmt in walk(node, (F.Data_Component_Def_Stmt, F.Proc_Component_Def_Stmt)):
        if isinstance(stmt, F.Proc_Component_Def_Stmt):  # a procedure pointer: an address
            layout.append(Symbol("", "int", "long", storage="pointer"))
            continue
        spec, attrs, decls = stmt.items
        base, datatype = type_of(spec, scope)
        dim_spec = next((attr.items[1] for attr in getattr(attrs, "items", ())
                         if isinstance(attr, (F.Dimension_Component_Attr_Spec,
                                              F.Dimension_Attr_Spec))), None)
        storage = next((str(attr).lower() for attr in getattr(attrs, "items", ())
                        if str(attr).upper() in ("ALLOCATABLE", "POINTER")), "")
        for decl in decls.items:
            name = str(decl.items[0]).lower()
            sym = Symbol(name, base, datatype, type_name=_type_name(spec), storage=storage,
                         length=_length(spec, decl) if base == "char" else None,
                         polymorphic=str(spec).upper().startswith("CLASS"))
            shape = decl.items[1] if decl.items[1] is not None else dim_spec
            if shape is not None:
                _set_dims(sym, shape)
            components[name] = sym
            layout.append(sym)
    scope.types[str(opening.items[1]).lower()] = components
    scope.layouts[str(opening.items[1]).lower()] = layout


def _length(spec: object, decl: object) -> int | None:
    """A character component's literal length (``len=8``, ``character*8``, ``name*8``; 1
    when none is given), else ``None``."""
    given = decl.items[2] if len(decl.items) > 2 else None
    if given is not None:
        text = str(given).strip("()* ")
        return int(text) if text.isdigit() else None
    text = str(spec).lower().replace(" ", "")
    if "(" not in text and "*" not in text:
        return 1
    found = re.search(r"(?:len=|\(|\*)(\d+)\)?$", text)
    return int(found.group(1)) if found else None


def _dimension(scope: Scope, node: object, where: Where, warn: Warn) -> None:
    for name, spec in node.items[0]:
        _set_dims(scope._get(str(name).lower()), spec)


def _parameter(scope: Scope, node: object, where: Where, warn: Warn) -> None:
    for definition in node.items[1].items:
        name, value = definition.items
        sym = scope._get(str(name).lower())
        sym.is_parameter = True
        sym.defined_at = where(node)
        sym.value = scope.evaluate(value)
        sym.expression = _arithmetic(value) if sym.value is None else ""


def _arithmetic(node: object) -> str:
    """Lower-case text of integer arithmetic over names (no calls, no real literals), else ""."""
    text = str(node).lower().replace(" ", "")
    if re.fullmatch(r"[a-z0-9_+\-*/()]+", text) and not re.search(r"\w\(", text) \
            and "**" not in text:
        return text
    return ""


def _intent(scope: Scope, node: object, where: Where, warn: Warn) -> None:
    intent = str(node.items[0]).lower().replace(" ", "")
    for name in _names(node.items[1]):
        scope._get(name).intent = intent


def _common(scope: Scope, node: object, where: Where, warn: Warn) -> None:
    for _block, objects in node.items[0]:
        for obj in (objects.items if objects is not None else ()):
            if isinstance(obj, F.Name):
                scope._get(str(obj).lower()).common = True
            else:  # name(dims)
                items = getattr(obj, "items", ())
                sym = scope._get(str(items[0]).lower())
                sym.common = True
                if len(items) > 1 and items[1] is not None:
                    _set_dims(sym, items[1])


def _external(scope: Scope, node: object, where: Where, warn: Warn) -> None:
    for name in _names(node.items[1]):
        scope._get(name).procedure = True


def _procedure_declaration(scope: Scope, node: object, where: Where, warn: Warn) -> None:
    """``procedure(iface) [, pointer] :: f [=> null()]``: a dummy procedure or a pointer."""
    pointer = "POINTER" in str(node.items[1] or "").upper()
    for decl in getattr(node.items[2], "items", ()):
        name = decl.items[0] if isinstance(decl, F.Proc_Decl) else decl
        sym = scope._get(str(name).lower())
        sym.procedure = True
        sym.procedure_pointer = pointer


def _interface(scope: Scope, node: object, where: Where, warn: Warn) -> None:
    for stmt in walk(node, (F.Subroutine_Stmt, F.Function_Stmt, F.Interface_Stmt)):
        if isinstance(stmt, F.Interface_Stmt):
            generic = stmt.items[0] if stmt.items else None
            if isinstance(generic, (F.Name, F.Generic_Spec)) and str(generic).strip():
                sym = scope._get(str(generic).lower())
                sym.procedure = True
                sym.specifics = tuple(name for procedure in walk(node, F.Procedure_Stmt)
                                      for name in _names(procedure))
            continue
        scope._get(str(stmt.items[1]).lower()).procedure = True


def _implicit(scope: Scope, node: object, where: Where, warn: Warn) -> None:
    if "NONE" in str(node).upper() and not walk(node, F.Implicit_Spec):
        scope.implicit_none = True
        return
    rules = dict(scope.implicit if scope.implicit is not None else _DEFAULT_IMPLICIT)
    for spec in walk(node, F.Implicit_Spec):
        typed = type_of(spec.items[0], scope)
        for letters in walk(spec, F.Letter_Spec):
            first = str(letters.items[0]).lower()
            last = str(letters.items[1] or letters.items[0]).lower()
            for code in range(ord(first), ord(last) + 1):
                rules[chr(code)] = typed
    scope.implicit = rules


def _use(scope: Scope, node: object, where: Where, warn: Warn) -> None:
    module = str(node.items[2]).lower()
    use = Use(module, where(node)[1])
    listing = node.items[4]
    if listing is not None:
        entries: dict[str, str] = {}
        for item in listing.items:
            if isinstance(item, F.Rename):
                entries[str(item.items[1]).lower()] = str(item.items[2]).lower()
            elif isinstance(item, F.Name):
                entries[str(item).lower()] = str(item).lower()
        if "ONLY" in str(node.items[3]).upper():
            use.only = entries
        else:
            use.renames = entries
    scope.uses.append(use)


def _stmt_function(scope: Scope, node: object, where: Where, warn: Warn) -> None:
    sym = scope._get(str(node.items[0]).lower())
    sym.procedure = True
    dummies = tuple(_names(node.items[1])) if node.items[1] is not None else ()
    sym.definition = (dummies, node.items[2])


_DECLARATIONS: dict[str, Callable] = {
    "Type_Declaration_Stmt": _type_declaration,
    "Dimension_Stmt": _dimension,
    "Parameter_Stmt": _parameter,
    "Intent_Stmt": _intent,
    "Common_Stmt": _common,
    "External_Stmt": _external,
    "Interface_Block": _interface,
    "Procedure_Declaration_Stmt": _procedure_declaration,
    "Implicit_Stmt": _implicit,
    "Use_Stmt": _use,
    "Stmt_Function_Stmt": _stmt_function,
    "Derived_Type_Def": _derived_type,
}


def _evaluate(node: object, scope: Scope) -> int | float | None:
    if isinstance(node, F.Int_Literal_Constant):
        return int(str(node.items[0]))
    if isinstance(node, (F.Real_Literal_Constant, F.Signed_Real_Literal_Constant)):
        text = str(node.items[0]).lower()
        # The kind of a real literal: d exponent means double precision.
        return float(text.replace("d", "e"))
    if isinstance(node, F.Name):
        return scope.parameter_value(str(node).lower())
    if isinstance(node, F.Parenthesis):
        return _evaluate(node.items[1], scope)
    if isinstance(node, F.Level_2_Unary_Expr):
        value = _evaluate(node.items[1], scope)
        if value is None:
            return None
        return -value if node.items[0] == "-" else value
    if isinstance(node, (F.Level_2_Expr, F.Add_Operand, F.Mult_Operand)):
        left, op, right = node.items
        a, b = _evaluate(left, scope), _evaluate(right, scope)
        if a is None or b is None:
            return None
        if op == "+":
            return a + b
        if op == "-":
            return a - b
        if op == "*":
            return a * b
        if op == "/":
            return a // b if isinstance(a, int) and isinstance(b, int) else a / b
        if op == "**":
            return a ** b
        return None
    if isinstance(node, F.Intrinsic_Function_Reference):
        name = str(node.items[0]).lower()
        args = node.items[1].items if node.items[1] is not None else ()
        if name == "kind" and args:
            arg = args[0]
            if isinstance(arg, F.Real_Literal_Constant):
                text = str(arg.items[0]).lower()
                return 8 if "d" in text else _literal_kind(arg, scope, 4)
            if isinstance(arg, F.Int_Literal_Constant):
                return 4
            return None
        if name == "selected_real_kind" and args:
            precision = _evaluate(args[0], scope)
            return None if precision is None else (4 if precision <= 6 else 8)
        if name == "selected_int_kind":
            return 4
    return None


def _literal_kind(node: object, scope: Scope, default: int) -> int | None:
    kind = node.items[1]
    if kind is None:
        return default
    try:
        return int(str(kind))
    except ValueError:
        return scope.parameter_value(str(kind).lower())
