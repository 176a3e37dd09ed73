"""tree-sitter program units and declarations as fparser's nodes, for the one analysis.

Each tree-sitter unit and declaration becomes the fparser node the analysis reads
(``Subroutine_Subprogram``, ``Type_Declaration_Stmt``, ``Use_Stmt``, …) with the items
fparser's matchers give it; statement nodes carry a place (``item.span``, ``item.reader.id``)
as fparser's reader lines do, so :meth:`sat.frontend.fortran.parse.Source.where` finds their
file and line. A unit's leading specification statements form its ``Specification_Part``, the
rest its ``Execution_Part`` (:mod:`sat.frontend.fortran.ts_statements`), as fparser splits
them. Expressions are built by :mod:`sat.frontend.fortran.ts_expressions`; anything not known
raises ``Unsupported``.
"""

from __future__ import annotations

from fparser.two import Fortran2003 as F

from sat.frontend.fortran.ts_expressions import (
    ExpressionBuilder,
    Unsupported,
    name,
    named,
    node,
    sequence,
    text,
    word,
)
from sat.frontend.fortran.ts_statements import SKIPPED, Reader, StatementBuilder, block

_SPECIFICATION = frozenset("""use_statement implicit_statement variable_declaration
parameter_statement common_statement variable_modification data_statement interface
derived_type_definition private_statement public_statement save_statement
equivalence_statement format_statement namelist_statement import_statement
enum""".split())
_QUIET_SPECIFICATION = {"data_statement": F.Data_Stmt, "private_statement": F.Access_Stmt,
                        "public_statement": F.Access_Stmt, "save_statement": F.Save_Stmt,
                        "equivalence_statement": F.Equivalence_Stmt,
                        "format_statement": F.Format_Stmt, "namelist_statement": F.Namelist_Stmt,
                        "import_statement": F.Import_Stmt, "enum": F.Enum_Def}
_TYPE_NAMES = {"integer": "INTEGER", "real": "REAL", "doubleprecision": "DOUBLE PRECISION",
               "complex": "COMPLEX", "doublecomplex": "DOUBLE COMPLEX", "logical": "LOGICAL",
               "character": "CHARACTER"}
_UNITS = {"program", "module", "subroutine", "function"}
_DEFERRED_LENGTHS = {"assumed_size": "*", "assumed_shape": ":"}


class UnitBuilder(StatementBuilder):
    """Builds one file's fparser ``Program`` from its tree-sitter tree."""

    def __init__(self, origins: list[tuple[str, int]]):
        self.origins = origins
        self.readers: dict[str, Reader] = {}
        self.scopes: list[set[str]] = []
        self.exprs = ExpressionBuilder(self._declared)

    def _declared(self, lowered: str) -> bool:
        return any(lowered in scope for scope in self.scopes)

    # ------------------------------------------------------------------ units

    def program(self, root: object) -> object:
        units = []
        for child in named(root):
            if child.type not in _UNITS:
                raise Unsupported(f"{child.type} outside a program unit")
            units.append(self.unit(child))
        return block(F.Program, units)

    def unit(self, ts: object) -> object:
        children = named(ts)
        opening, rest = children[0], children[1:]
        kind = ts.type
        header, cls, part = {
            "program": (self._program_stmt, F.Main_Program, F.Internal_Subprogram_Part),
            "module": (self._module_stmt, F.Module, F.Module_Subprogram_Part),
            "subroutine": (self._subroutine_stmt, F.Subroutine_Subprogram,
                           F.Internal_Subprogram_Part),
            "function": (self._function_stmt, F.Function_Subprogram,
                         F.Internal_Subprogram_Part),
        }[kind]
        content = [header(opening)]
        self.scopes.append(set())
        try:
            end = rest.pop() if rest and rest[-1].type.startswith("end_") else None
            inner = rest.pop() if rest and rest[-1].type == "internal_procedures" else None
            statements = [c for c in rest if c.type not in SKIPPED]
            split = next((i for i, c in enumerate(statements)
                          if not self.is_specification(c)), len(statements))
            spec = [self.specification(c) for c in statements[:split]]
            if spec:
                content.append(block(F.Specification_Part, spec))
            if kind == "module" and split < len(statements):
                raise Unsupported("executable statement in a module")
            execution = self.statements(statements[split:])
            if execution:
                content.append(block(F.Execution_Part, execution))
            if inner is not None:
                subs = [self.unit(c) for c in named(inner) if c.type in _UNITS]
                contains = self.stmt(F.Contains_Stmt, inner, "CONTAINS")
                content.append(block(part, [contains, *subs]))
            if end is not None:
                content.append(self.stmt(F.End_Subroutine_Stmt, end, None, None))
        finally:
            self.scopes.pop()
        return block(cls, content)

    def is_specification(self, ts: object) -> bool:
        if ts.type == "include_statement":
            return True
        return ts.type in _SPECIFICATION

    def _program_stmt(self, ts: object) -> object:
        label = next((c for c in named(ts) if c.type == "name"), None)
        return self.stmt(F.Program_Stmt, ts, "PROGRAM", name(text(label) if label else "main"))

    def _module_stmt(self, ts: object) -> object:
        label = next(c for c in named(ts) if c.type == "name")
        return self.stmt(F.Module_Stmt, ts, "MODULE", name(text(label)))

    def _dummies(self, ts: object) -> object | None:
        parameters = ts.child_by_field_name("parameters")
        if parameters is None:
            return None
        names = []
        for child in named(parameters):
            if child.type != "identifier":
                raise Unsupported("alternate return")
            names.append(name(text(child)))
        return sequence(F.Dummy_Arg_List, names) if names else None

    def _subroutine_stmt(self, ts: object) -> object:
        self._no_prefix(ts, allow_type=False)
        return self.stmt(F.Subroutine_Stmt, ts, self._prefix(ts),
                         name(text(ts.child_by_field_name("name"))), self._dummies(ts), None)

    def _function_stmt(self, ts: object) -> object:
        self._no_prefix(ts, allow_type=True)
        result = next((c for c in named(ts) if c.type == "function_result"), None)
        suffix = None
        if result is not None:
            suffix = node(F.Suffix, name(text(named(result)[0])), None)
        return self.stmt(F.Function_Stmt, ts, self._prefix(ts),
                         name(text(ts.child_by_field_name("name"))), self._dummies(ts), suffix)

    def _no_prefix(self, ts: object, allow_type: bool) -> None:
        for child in named(ts):
            if child.type in ("language_binding",) or (
                    child.type in ("intrinsic_type", "derived_type") and not allow_type):
                raise Unsupported(f"{child.type} in a procedure statement")

    def _prefix(self, ts: object) -> object | None:
        specs = []
        for child in named(ts):
            if child.type == "procedure_qualifier":
                specs.append(word(F.Prefix_Spec, text(child).upper()))
            elif child.type in ("intrinsic_type", "derived_type"):
                specs.append(self.type_spec(child))
        return sequence(F.Prefix, specs, " ") if specs else None

    # --------------------------------------------------------- declarations

    def specification(self, ts: object) -> object:
        if ts.type == "include_statement":
            return self.include(ts)
        return self.dispatch(ts, "_d_", _QUIET_SPECIFICATION)

    def type_spec(self, ts: object) -> object:
        if ts.type == "derived_type":
            type_name = next((c for c in named(ts) if c.type == "type_name"), None)
            if any(c.type == "unlimited_polymorphic" for c in named(ts)):
                return node(F.Declaration_Type_Spec, "CLASS", "*")
            if type_name is None:
                raise Unsupported("type specification")
            keyword = text(ts).split("(")[0].strip().upper()
            return node(F.Declaration_Type_Spec, keyword, word(F.Type_Name, text(type_name)))
        if ts.type != "intrinsic_type":
            raise Unsupported(f"type {ts.type}")
        kind = ts.child_by_field_name("kind")
        written = text(ts)
        base = (written[: kind.start_byte - ts.start_byte] if kind is not None else written)
        type_name = _TYPE_NAMES.get("".join(base.lower().split()))
        if type_name is None:
            raise Unsupported(f"type {base}")
        selector = None
        if kind is not None:
            values = named(kind)
            if len(values) != 1:
                raise Unsupported("kind selector")
            value = values[0]
            if value.type == "keyword_argument":
                value = value.child_by_field_name("value")
            cls = F.Length_Selector if type_name == "CHARACTER" else F.Kind_Selector
            if type_name == "CHARACTER" and value.type in _DEFERRED_LENGTHS:
                # character(len=*), character(len=:): fparser's Type_Param_Value
                length = word(F.Type_Param_Value, _DEFERRED_LENGTHS[value.type])
                selector = node(cls, "(", length, ")")
            elif text(kind).lstrip().startswith("*"):
                selector = node(cls, "*", self.exprs.expr(value))
            else:
                selector = node(cls, "(", self.exprs.expr(value), ")")
        return node(F.Intrinsic_Type_Spec, type_name, selector)

    def _d_variable_declaration(self, ts: object) -> object:
        spec_node = ts.child_by_field_name("type")
        if spec_node is not None and spec_node.type == "procedure":
            return self._procedure_declaration(ts, spec_node)
        spec = self.type_spec(spec_node)
        attrs = [self.attribute(a) for a in ts.children_by_field_name("attribute")]
        entities = [self.entity(d) for d in ts.children_by_field_name("declarator")]
        if isinstance(spec, F.Intrinsic_Type_Spec):
            self.scopes[-1].update(str(e.items[0]).lower() for e in entities)
        return self.stmt(F.Type_Declaration_Stmt, ts, spec,
                         sequence(F.Attr_Spec_List, attrs) if attrs else None,
                         sequence(F.Entity_Decl_List, entities))

    def _d_derived_type_definition(self, ts: object) -> object:
        """``type :: t ... end type``: its opening statement and its data components (type
        parameters, private/sequence statements and bound procedures are not read)."""
        children = named(ts)
        opening, content = children[0], []
        attrs, params, type_name = [], None, None
        for child in named(opening):
            if child.type == "type_name":
                type_name = word(F.Type_Name, text(child))
            elif child.type == "base_type_specifier":
                attrs.append(node(F.Type_Attr_Spec, "EXTENDS", name(text(named(child)[0]))))
            elif child.type == "access_specifier":
                attrs.append(word(F.Access_Spec, text(child).upper()))
            elif child.type == "abstract_specifier":
                attrs.append(node(F.Type_Attr_Spec, "ABSTRACT", None))
            elif child.type == "language_binding":
                attrs.append(node(F.Type_Attr_Spec, "BIND", "C"))
            elif child.type == "derived_type_parameter_list":
                params = sequence(F.Type_Param_Name_List, [name(text(c)) for c in named(child)])
        content.append(self.stmt(F.Derived_Type_Stmt, opening,
                                 sequence(F.Type_Attr_Spec_List, attrs) if attrs else None,
                                 type_name, params))
        components = [self._component(c) for c in children[1:]
                      if c.type == "variable_declaration" and params is None]
        if components:
            content.append(block(F.Component_Part, components))
        if children[-1].type == "end_type_statement":
            content.append(self.stmt(F.End_Type_Stmt, children[-1], "TYPE", None))
        return block(F.Derived_Type_Def, content)

    def _component(self, ts: object) -> object:
        """One component declaration of a derived type."""
        spec_node = ts.child_by_field_name("type")
        if spec_node is not None and spec_node.type == "procedure":
            return self.stmt(F.Proc_Component_Def_Stmt, ts)
        attrs = []
        for attr in map(self.attribute, ts.children_by_field_name("attribute")):
            attrs.append(node(F.Dimension_Component_Attr_Spec, "DIMENSION", attr.items[1])
                         if isinstance(attr, F.Dimension_Attr_Spec)
                         else word(F.Component_Attr_Spec, str(attr)))
        decls = []
        for entity in map(self.entity, ts.children_by_field_name("declarator")):
            entity_name, shape, length, init = entity.items
            if init is not None:
                init = node(F.Component_Initialization, *init.items)
            decls.append(node(F.Component_Decl, entity_name, shape, length, init))
        return self.stmt(F.Data_Component_Def_Stmt, ts, self.type_spec(spec_node),
                         sequence(F.Component_Attr_Spec_List, attrs) if attrs else None,
                         sequence(F.Component_Decl_List, decls))

    def _procedure_declaration(self, ts: object, spec: object) -> object:
        interface = next((c for c in named(spec) if c.type == "procedure_interface"), None)
        attrs = [node(F.Proc_Attr_Spec, text(c).upper(), None) for c in named(spec)
                 if c.type == "procedure_attribute"]
        decls = []
        for declarator in ts.children_by_field_name("declarator"):
            target = declarator.child_by_field_name("left")
            if target is None:
                decls.append(name(text(declarator)))
            else:
                decls.append(node(F.Proc_Decl, name(text(target)), "=>",
                                  node(F.Function_Reference, name("null"), None)))
        return self.stmt(F.Procedure_Declaration_Stmt, ts,
                         name(text(interface)) if interface is not None else None,
                         sequence(F.Proc_Attr_Spec_List, attrs) if attrs else None,
                         sequence(F.Proc_Decl_List, decls))

    def attribute(self, ts: object) -> object:
        words = text(ts).split("(", 1)
        keyword = "".join(words[0].upper().split())
        args = next((c for c in named(ts) if c.type == "argument_list"), None)
        if keyword == "INTENT":
            return node(F.Intent_Attr_Spec, "INTENT", word(F.Intent_Spec, _intent(ts)))
        if keyword == "DIMENSION":
            if args is None:
                raise Unsupported("dimension attribute")
            return node(F.Dimension_Attr_Spec, "DIMENSION", self.array_spec(named(args)))
        if len(words) > 1 or named(ts):
            raise Unsupported(f"attribute {text(ts)}")
        return word(F.Attr_Spec, keyword)

    def entity(self, ts: object) -> object:
        init = None
        if ts.type in ("init_declarator", "pointer_init_declarator"):
            value = ts.child_by_field_name("right")
            operator = "=" if ts.type == "init_declarator" else "=>"
            init = node(F.Initialization, operator,
                        self.exprs.expr(value) if value.type != "null_literal"
                        else node(F.Function_Reference, name("null"), None))
            ts = ts.child_by_field_name("left")
        if ts.type == "identifier":
            return node(F.Entity_Decl, name(text(ts)), None, None, init)
        if ts.type == "sized_declarator":
            children = named(ts)
            size = next((c for c in children[1:] if c.type == "size"), None)
            length = next((c for c in children[1:] if c.type == "character_length"), None)
            if children[0].type != "identifier" or len(children) != 1 + (size is not None) + (
                    length is not None):
                raise Unsupported(f"declarator {text(ts)}")
            return node(F.Entity_Decl, name(text(children[0])),
                        self.array_spec(named(size)) if size is not None else None,
                        word(F.Type_Param_Value, text(length).lstrip("*").strip())
                        if length is not None else None, init)
        raise Unsupported(f"declarator {ts.type}")

    def array_spec(self, dims: list) -> object:
        """An array specification from a declarator's dimensions."""
        explicit = []
        for index, dim in enumerate(dims):
            if dim.type == "assumed_size":
                if index != len(dims) - 1:
                    raise Unsupported("assumed size")
                listed = sequence(F.Explicit_Shape_Spec_List, explicit) if explicit else None
                return node(F.Assumed_Size_Spec, listed, None)
            if dim.type == "extent_specifier":
                lower, upper, stride = self.exprs.triplet(dim)
                if stride is not None:
                    raise Unsupported("dimension")
                if upper is None:
                    explicit.append(node(F.Assumed_Shape_Spec, lower, None))
                else:
                    explicit.append(node(F.Explicit_Shape_Spec, lower, upper))
            else:
                explicit.append(node(F.Explicit_Shape_Spec, None, self.exprs.expr(dim)))
        if all(isinstance(d, F.Explicit_Shape_Spec) for d in explicit):
            return sequence(F.Explicit_Shape_Spec_List, explicit)
        if any(isinstance(d, F.Explicit_Shape_Spec) for d in explicit):
            raise Unsupported("mixed array specification")
        return sequence(F.Assumed_Shape_Spec_List, explicit)

    def _d_parameter_statement(self, ts: object) -> object:
        definitions = []
        for assignment in named(ts):
            target, value = named(assignment)
            definitions.append(node(F.Named_Constant_Def, name(text(target)),
                                    self.exprs.expr(value)))
        return self.stmt(F.Parameter_Stmt, ts, "PARAMETER",
                         sequence(F.Named_Constant_Def_List, definitions))

    def _d_common_statement(self, ts: object) -> object:
        groups = []
        for group in named(ts):
            if group.type != "variable_group":
                raise Unsupported("common statement")
            parts = named(group)
            label = parts[0] if parts and parts[0].type == "name" else None
            objects = [self._common_object(o) for o in parts[1 if label else 0:]]
            groups.append((name(text(label)) if label else None,
                           sequence(F.Common_Block_Object_List, objects)))
        return self.stmt(F.Common_Stmt, ts, groups)

    def _common_object(self, ts: object) -> object:
        entity = self.entity(ts)
        if entity.items[1] is None:
            return entity.items[0]
        return node(F.Common_Block_Object, entity.items[0], entity.items[1])

    def _d_variable_modification(self, ts: object) -> object:
        qualifier = next(c for c in named(ts) if c.type == "type_qualifier")
        keyword = "".join(text(qualifier).split("(")[0].upper().split())
        declarators = ts.children_by_field_name("declarator")
        if keyword == "DIMENSION":
            pairs = [(e.items[0], e.items[1]) for e in map(self.entity, declarators)]
            if any(spec is None for _, spec in pairs):
                raise Unsupported("dimension statement")
            return self.stmt(F.Dimension_Stmt, ts, pairs)
        names = [name(text(d)) for d in declarators if d.type == "identifier"]
        if len(names) != len(declarators):
            raise Unsupported(f"{keyword.lower()} statement")
        if keyword == "EXTERNAL":
            return self.stmt(F.External_Stmt, ts, "EXTERNAL",
                             sequence(F.External_Name_List, names))
        if keyword == "INTENT":
            return self.stmt(F.Intent_Stmt, ts, word(F.Intent_Spec, _intent(qualifier)),
                             sequence(F.Dummy_Arg_Name_List, names))
        return self.stmt(F.Save_Stmt, ts)  # attributes the analysis does not read

    def _d_implicit_statement(self, ts: object) -> object:
        parts = named(ts)
        if any(p.type == "none" for p in parts):
            return self.stmt(F.Implicit_Stmt, ts, "NONE")
        specs, current, letters = [], None, []
        for part in parts + [None]:
            if part is None or part.type in ("intrinsic_type", "derived_type"):
                if current is not None:
                    specs.append(node(F.Implicit_Spec, current,
                                      sequence(F.Letter_Spec_List, letters)))
                if part is not None:
                    current, letters = self.type_spec(part), []
            elif part.type == "implicit_range":
                bounds = text(part).replace(" ", "").upper().split("-")
                letters.append(node(F.Letter_Spec, bounds[0],
                                    bounds[1] if len(bounds) > 1 else None))
            else:
                raise Unsupported("implicit statement")
        return self.stmt(F.Implicit_Stmt, ts, sequence(F.Implicit_Spec_List, specs))

    def _d_use_statement(self, ts: object) -> object:
        module = next(c for c in named(ts) if c.type == "module_name")
        listing = next((c for c in named(ts) if c.type == "included_items"), None)
        only = listing is not None and any(c.type == "only" for c in listing.children)
        entries = []
        for item in named(listing) if listing is not None else [c for c in named(ts)
                                                                 if c.type == "use_alias"]:
            if item.type == "use_alias":
                local, remote = named(item)
                entries.append(node(F.Rename, None, name(text(local)), name(text(remote))))
                self.scopes[-1].add(text(local).lower())
            elif item.type == "identifier":
                entries.append(name(text(item)))
                self.scopes[-1].add(text(item).lower())
            else:
                raise Unsupported("use statement")
        if entries and not only and listing is not None:
            raise Unsupported("use statement")
        cls = F.Only_List if only else F.Rename_List
        return self.stmt(F.Use_Stmt, ts, None, None, name(text(module)),
                         ", ONLY:" if only else ("," if entries else ""),
                         sequence(cls, entries) if entries else None)

    def _d_interface(self, ts: object) -> object:
        content = []
        for child in named(ts):
            if child.type == "interface_statement":
                generic = next((c for c in named(child) if c.type == "name"), None)
                if any(c.type in ("operator", "assignment") for c in named(child)):
                    raise Unsupported("operator interface")
                abstract = text(child).lower().startswith("abstract")
                content.append(self.stmt(F.Interface_Stmt, child, name(text(generic)) if generic
                                         else ("ABSTRACT" if abstract else None)))
            elif child.type in ("subroutine", "function"):
                opening = named(child)[0]
                stmt = (self._subroutine_stmt if child.type == "subroutine"
                        else self._function_stmt)(opening)
                body = F.Subroutine_Body if child.type == "subroutine" else F.Function_Body
                content.append(block(body, [stmt]))
            elif child.type == "procedure_statement":
                names = [name(text(c)) for c in named(child) if c.type == "method_name"]
                content.append(self.stmt(F.Procedure_Stmt, child,
                                         sequence(F.Procedure_Name_List, names), "MODULE",
                                         None))
            elif child.type not in ("end_interface_statement", "comment"):
                raise Unsupported(f"{child.type} in an interface")
        return block(F.Interface_Block, content)

    def include(self, ts: object) -> object:
        """An include line whose file was not found (found ones are in the text already)."""
        path = ts.child_by_field_name("path")
        return self.stmt(F.Include_Stmt, ts, word(F.Include_Filename, text(path)[1:-1]))


def _intent(ts: object) -> str:
    inside = text(ts).split("(", 1)[1].rsplit(")", 1)[0]
    return " ".join(inside.upper().split())
