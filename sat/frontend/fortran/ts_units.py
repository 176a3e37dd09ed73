"""tree-sitter program units and statements as fparser's nodes, for the one analysis.

Each tree-sitter statement becomes the fparser node the analysis reads (``Assignment_Stmt``,
``If_Construct``, ``Type_Declaration_Stmt``, …) with the items fparser's matchers give it;
statement nodes carry a place (``item.span``, ``item.reader.id``) as fparser's reader lines
do, so :meth:`sat.frontend.fortran.parse.Source.where` finds their file and line. A unit's
leading specification statements form its ``Specification_Part``, the rest its
``Execution_Part``, as fparser splits them. Expressions are built by
:mod:`sat.frontend.fortran.ts_expressions`; anything not known raises ``Unsupported``.
"""

from __future__ import annotations

from dataclasses import dataclass

from fparser.two import Fortran2003 as F
from fparser.two import Fortran2008 as F8

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


@dataclass(frozen=True)
class _Reader:
    id: str


@dataclass(frozen=True)
class Place:
    """Where a statement starts, in the shape of fparser's reader line (``span``, ``reader``)."""

    span: tuple[int, int]
    reader: _Reader
    label: None = None
    name: None = None


def block(cls: type, content: list) -> object:
    obj = object.__new__(cls)
    obj.content = content
    obj.item = None
    obj.parent = None
    obj.string = None
    return obj


_SPECIFICATION = frozenset("""use_statement implicit_statement variable_declaration
parameter_statement common_statement variable_modification data_statement interface
derived_type_definition private_statement public_statement save_statement
equivalence_statement format_statement namelist_statement import_statement
enum""".split())
_QUIET_SPECIFICATION = {"data_statement": F.Data_Stmt, "derived_type_definition":
                        F.Derived_Type_Def, "private_statement": F.Access_Stmt,
                        "public_statement": F.Access_Stmt, "save_statement": F.Save_Stmt,
                        "equivalence_statement": F.Equivalence_Stmt,
                        "format_statement": F.Format_Stmt, "namelist_statement": F.Namelist_Stmt,
                        "import_statement": F.Import_Stmt, "enum": F.Enum_Def}
_QUIET = {"allocate_statement": F.Allocate_Stmt, "deallocate_statement": F.Deallocate_Stmt,
          "nullify_statement": F.Nullify_Stmt, "print_statement": F.Print_Stmt,
          "write_statement": F.Write_Stmt, "read_statement": F.Read_Stmt,
          "open_statement": F.Open_Stmt, "close_statement": F.Close_Stmt,
          "inquire_statement": F.Inquire_Stmt, "rewind_statement": F.Rewind_Stmt,
          "backspace_statement": F.Backspace_Stmt, "endfile_statement": F.Endfile_Stmt,
          "flush_statement": F.Flush_Stmt, "stop_statement": F.Stop_Stmt,
          "format_statement": F.Format_Stmt, "data_statement": F.Data_Stmt,
          "arithmetic_if_statement": F.Arithmetic_If_Stmt,
          "pointer_association_statement": F.Pointer_Assignment_Stmt}
_KEYWORDS = {"continue": F.Continue_Stmt, "exit": F.Exit_Stmt, "cycle": F.Cycle_Stmt,
             "return": F.Return_Stmt, "stop": F.Stop_Stmt}
_TYPE_NAMES = {"integer": "INTEGER", "real": "REAL", "doubleprecision": "DOUBLE PRECISION",
               "complex": "COMPLEX", "doublecomplex": "DOUBLE COMPLEX", "logical": "LOGICAL",
               "character": "CHARACTER"}
_UNITS = {"program", "module", "subroutine", "function"}
_SKIPPED = frozenset({"comment", "statement_label"})


class UnitBuilder:
    """Builds one file's fparser ``Program`` from its tree-sitter tree."""

    def __init__(self, origins: list[tuple[str, int]]):
        self.origins = origins
        self.readers: dict[str, _Reader] = {}
        self.scopes: list[set[str]] = []
        self.exprs = ExpressionBuilder(self._declared)

    def _declared(self, lowered: str) -> bool:
        return any(lowered in scope for scope in self.scopes)

    def place(self, ts: object) -> Place:
        file, line = self.origins[ts.start_point[0]]
        reader = self.readers.get(file)
        if reader is None:
            reader = self.readers[file] = _Reader(file)
        return Place((line, line), reader)

    def stmt(self, cls: type, ts: object, *items: object) -> object:
        obj = node(cls, *items)
        obj.item = self.place(ts)
        return obj

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
            statements = [c for c in rest if c.type not in _SKIPPED]
            split = next((i for i, c in enumerate(statements)
                          if not self._is_specification(c)), len(statements))
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

    def _is_specification(self, ts: object) -> bool:
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
        handler = getattr(self, "_d_" + ts.type, None)
        if handler is not None:
            return handler(ts)
        cls = _QUIET_SPECIFICATION.get(ts.type)
        if cls is None:
            raise Unsupported(ts.type)
        return self.stmt(cls, ts)

    def type_spec(self, ts: object) -> object:
        if ts.type == "derived_type":
            type_name = next((c for c in named(ts) if c.type == "type_name"), None)
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
            if text(kind).lstrip().startswith("*"):
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

    def _d_include_statement(self, ts: object) -> object:
        path = ts.child_by_field_name("path")
        return self.stmt(F.Include_Stmt, ts, word(F.Include_Filename, text(path)[1:-1]))

    # ------------------------------------------------------------ execution

    def statements(self, nodes: list) -> list:
        out: list = []
        for child in nodes:
            if child.type in _SKIPPED:
                continue
            built = self.statement(child)
            if isinstance(built, list):
                out.extend(built)
            else:
                out.append(built)
        return out

    def statement(self, ts: object) -> object:
        handler = getattr(self, "_s_" + ts.type, None)
        if handler is not None:
            return handler(ts)
        cls = _QUIET.get(ts.type)
        if cls is None:
            raise Unsupported(ts.type)
        return self.stmt(cls, ts)

    def inline(self, ts: object) -> object:
        """The action of a one-line IF, WHERE or FORALL: fparser gives it no line of its own."""
        built = self.statement(ts)
        if isinstance(built, list):
            raise Unsupported("construct as an action")
        built.item = None
        return built

    def _s_include_statement(self, ts: object) -> object:
        return self._d_include_statement(ts)

    def _s_keyword_statement(self, ts: object) -> object:
        words = text(ts).lower().split()
        first = words[0] if words else ""
        if first.startswith("go"):
            spelled = "".join(words)
            cls = F.Computed_Goto_Stmt if "(" in spelled else (
                F.Goto_Stmt if spelled[4:5].isdigit() else F.Assigned_Goto_Stmt)
            return self.stmt(cls, ts)
        first = first.split("(")[0]
        cls = _KEYWORDS.get(first)
        if cls is None:
            raise Unsupported(f"statement {first}")
        return self.stmt(cls, ts)

    def lhs(self, ts: object) -> object:
        """An assignment's target: a name, an element or section, or a component."""
        if ts.type == "identifier":
            return name(text(ts))
        if ts.type == "call_expression":
            callee, args = named(ts)[0], named(ts)[-1]
            if callee.type == "identifier" and args.type == "argument_list":
                return node(F.Part_Ref, name(text(callee)), sequence(
                    F.Section_Subscript_List, [self.exprs.subscript(a) for a in named(args)]))
        if ts.type in ("call_expression", "derived_type_member_expression"):
            return self.exprs.expr(ts)
        raise Unsupported(f"assignment to {ts.type}")

    def _s_assignment_statement(self, ts: object) -> object:
        return self.stmt(F.Assignment_Stmt, ts, self.lhs(ts.child_by_field_name("left")), "=",
                         self.exprs.expr(ts.child_by_field_name("right")))

    def _s_subroutine_call(self, ts: object) -> object:
        callee = ts.child_by_field_name("subroutine")
        if callee is None or callee.type != "identifier":
            raise Unsupported("call form")
        args = next((c for c in named(ts) if c.type == "argument_list"), None)
        listed = self.exprs.actual_args(args) if args is not None and named(args) else None
        return self.stmt(F.Call_Stmt, ts, name(text(callee)), listed)

    def _s_if_statement(self, ts: object) -> object | list:
        children = [c for c in named(ts) if c.type not in _SKIPPED]
        condition = self.condition(children[0])
        if not any(c.type == "then" or text(c).lower() == "then" for c in ts.children
                   if not c.is_named):
            if len(children) != 2:
                raise Unsupported("if statement")
            return self.stmt(F.If_Stmt, ts, condition, self.inline(children[1]))
        content = [self.stmt(F.If_Then_Stmt, ts, condition)]
        content.extend(self.statements(
            [c for c in children[1:] if c.type not in ("elseif_clause", "else_clause",
                                                     "end_if_statement")]))
        for clause in children[1:]:
            if clause.type == "elseif_clause":
                parts = [c for c in named(clause) if c.type not in _SKIPPED]
                content.append(self.stmt(F.Else_If_Stmt, clause, self.condition(parts[0]),
                                         None))
                content.extend(self.statements(parts[1:]))
            elif clause.type == "else_clause":
                content.append(self.stmt(F.Else_Stmt, clause, None))
                content.extend(self.statements(named(clause)))
            elif clause.type == "end_if_statement":
                content.append(self.stmt(F.End_If_Stmt, clause, "IF", None))
        return block(F.If_Construct, content)

    def condition(self, ts: object) -> object:
        """A parenthesised condition's expression (fparser keeps no parentheses there)."""
        if ts.type != "parenthesized_expression":
            raise Unsupported("condition")
        inner = named(ts)
        if len(inner) != 1:
            raise Unsupported("condition")
        return self.exprs.expr(inner[0])

    def _s_do_loop(self, ts: object) -> object | list:
        children = [c for c in named(ts) if c.type not in _SKIPPED
                    and c.type != "block_label_start_expression"]
        opening, body = children[0], children[1:]
        end = body.pop() if body and body[-1].type.startswith("end_do") else None
        label = opening.child_by_field_name("do_label")
        control = self.loop_control(opening)
        if label is not None:
            stmt = self.stmt(F.Label_Do_Stmt, opening, None, word(F.Label, text(label)),
                             control)
        else:
            stmt = self.stmt(F.Nonlabel_Do_Stmt, opening, "DO", control)
        content = [stmt, *self.statements(body)]
        if end is not None:
            if end.type == "end_do_label_loop_statement":
                closing = [c for c in named(end) if c.type not in _SKIPPED
                           and end.field_name_for_named_child(named(end).index(c)) != "do_label"]
                if not any(c.type == "do_label_virtual" for c in named(end)):
                    if len(closing) == 1:
                        content.extend(self.statements(closing))
                    elif closing:
                        raise Unsupported("end of a labelled loop")
                else:
                    return content  # shares its label's statement: flat, as fparser has it
            else:
                content.append(self.stmt(F.End_Do_Stmt, end, "DO", None))
        if label is None:
            return block(F.Block_Nonlabel_Do_Construct, content)
        if isinstance(content[-1], (F.Continue_Stmt, F.End_Do_Stmt)):
            return block(F.Block_Label_Do_Construct, content)
        return block(F.Action_Term_Do_Construct, content)

    def loop_control(self, ts: object) -> object | None:
        parts = [c for c in named(ts) if c.type not in _SKIPPED
                 and c.type != "statement_label_reference"]
        if not parts:
            return None
        control = parts[0]
        if control.type == "loop_control_expression":
            pieces = named(control)
            if len(pieces) not in (3, 4) or pieces[0].type != "identifier":
                raise Unsupported("loop control")
            return node(F.Loop_Control, None, (name(text(pieces[0])),
                                                [self.exprs.expr(p) for p in pieces[1:]]),
                        None, None)
        if control.type == "while_statement":
            return node(F.Loop_Control, self.condition(named(control)[0]), None, None, None)
        if control.type == "concurrent_statement":
            header = named(control)[0]
            triplets, mask = [], None
            for part in named(header):
                if part.type == "concurrent_control":
                    pieces = named(part)
                    triplets.append(node(F.Forall_Triplet_Spec, name(text(pieces[0])),
                                         *[self.exprs.expr(p) for p in pieces[1:3]],
                                         self.exprs.expr(pieces[3]) if len(pieces) > 3
                                         else None))
                elif part.type == "concurrent_mask":
                    mask = self.exprs.expr(named(part)[0])
                else:
                    raise Unsupported("do concurrent")
            return node(F.Loop_Control, None, None, None, node(
                F.Forall_Header, sequence(F.Forall_Triplet_Spec_List, triplets), mask))
        raise Unsupported(f"loop control {control.type}")

    def _s_select_case_statement(self, ts: object) -> object:
        selector = next(c for c in named(ts) if c.type == "selector")
        content = [self.stmt(F.Select_Case_Stmt, ts, self.exprs.expr(named(selector)[0]))]
        for case in named(ts):
            if case.type == "case_statement":
                values = next((c for c in named(case) if c.type == "case_value_range_list"),
                              None)
                if values is None:
                    chosen = node(F.Case_Selector, None)
                else:
                    ranges = [self._case_value(v) for v in named(values)]
                    chosen = node(F.Case_Selector, sequence(F.Case_Value_Range_List, ranges))
                content.append(self.stmt(F.Case_Stmt, case, chosen, None))
                content.extend(self.statements(
                    [c for c in named(case) if c.type not in ("case_value_range_list",
                                                            "default")]))
            elif case.type == "end_select_statement":
                content.append(self.stmt(F.End_Select_Stmt, case, "SELECT", None))
            elif case.type not in ("selector", *_SKIPPED):
                raise Unsupported(f"{case.type} in select case")
        return block(F.Case_Construct, content)

    def _case_value(self, ts: object) -> object:
        if ts.type == "extent_specifier":
            lower, upper, stride = self.exprs.triplet(ts)
            if stride is not None:
                raise Unsupported("case range")
            return node(F.Case_Value_Range, lower, upper)
        return self.exprs.expr(ts)

    def _s_where_statement(self, ts: object) -> object:
        children = [c for c in named(ts) if c.type not in _SKIPPED]
        mask = self.condition(children[0])
        if not children[-1].type == "end_where_statement":
            if len(children) != 2:
                raise Unsupported("where statement")
            return self.stmt(F.Where_Stmt, ts, mask, self.inline(children[1]))
        content = [self.stmt(F.Where_Construct_Stmt, ts, mask)]
        for child in children[1:]:
            if child.type == "elsewhere_clause":
                parts = [c for c in named(child) if c.type not in _SKIPPED]
                if parts and parts[0].type == "parenthesized_expression":
                    content.append(self.stmt(F.Masked_Elsewhere_Stmt, child,
                                             self.condition(parts[0]), None))
                    parts = parts[1:]
                else:
                    content.append(self.stmt(F.Elsewhere_Stmt, child, "ELSEWHERE", None))
                content.extend(self.statements(parts))
            elif child.type == "end_where_statement":
                content.append(self.stmt(F.End_Where_Stmt, child, "WHERE", None))
            else:
                content.extend(self.statements([child]))
        return block(F.Where_Construct, content)

    def _s_forall_statement(self, ts: object) -> object:
        children = [c for c in named(ts) if c.type not in _SKIPPED]
        triplets, mask, body, end = [], None, [], None
        for child in children:
            if child.type == "triplet_spec":
                pieces = named(child)
                if len(pieces) not in (3, 4):
                    raise Unsupported("forall triplet")
                triplets.append(node(F.Forall_Triplet_Spec, name(text(pieces[0])),
                                     *[self.exprs.expr(p) for p in pieces[1:3]],
                                     self.exprs.expr(pieces[3]) if len(pieces) > 3 else None))
            elif child.type == "end_forall_statement":
                end = child
            elif not body and child.type.endswith("_expression"):
                mask = self.exprs.expr(child)
            else:
                body.append(child)
        header = node(F.Forall_Header, sequence(F.Forall_Triplet_Spec_List, triplets), mask)
        if end is None:
            if len(body) != 1:
                raise Unsupported("forall statement")
            return self.stmt(F.Forall_Stmt, ts, header, self.inline(body[0]))
        content = [self.stmt(F.Forall_Construct_Stmt, ts, "FORALL", header),
                   *self.statements(body), self.stmt(F.End_Forall_Stmt, end, "FORALL", None)]
        return block(F.Forall_Construct, content)

    def _s_associate_statement(self, ts: object) -> object:
        associations = []
        listing = next(c for c in named(ts) if c.type == "association_list")
        for association in named(listing):
            target = association.child_by_field_name("selector")
            associations.append(node(F.Association, name(text(
                association.child_by_field_name("name"))), "=>", self.exprs.expr(target)))
        content = [self.stmt(F.Associate_Stmt, ts, "ASSOCIATE",
                             sequence(F.Association_List, associations))]
        content.extend(self.statements([c for c in named(ts) if c.type not in (
            "association_list", "end_associate_statement")]))
        content.append(node(F.End_Associate_Stmt, "ASSOCIATE", None))
        return block(F.Associate_Construct, content)

    def _s_block_construct(self, ts: object) -> object:
        children = [c for c in named(ts) if c.type not in _SKIPPED
                    and c.type != "end_block_construct_statement"]
        split = next((i for i, c in enumerate(children) if not self._is_specification(c)),
                     len(children))
        content = [self.stmt(F8.Block_Stmt, ts, "BLOCK", None)]
        self.scopes.append(set())
        try:
            spec = [self.specification(c) for c in children[:split]]
            if spec:
                content.append(block(F.Specification_Part, spec))
            content.extend(self.statements(children[split:]))
        finally:
            self.scopes.pop()
        content.append(node(F8.End_Block_Stmt, "BLOCK", None))
        return block(F8.Block_Construct, content)


def _intent(ts: object) -> str:
    inside = text(ts).split("(", 1)[1].rsplit(")", 1)[0]
    return " ".join(inside.upper().split())
