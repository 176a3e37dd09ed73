"""tree-sitter executable statements as fparser's nodes, for the one analysis.

Assignments, calls, IF, DO (labelled ones too: loops sharing a label come out flat, as
fparser has them), SELECT CASE, WHERE, FORALL, ASSOCIATE and BLOCK become the constructs and
statements the analysis reads, each statement with its place (``item.span``,
``item.reader.id``) as fparser's reader lines carry it; jumps and input/output become the
quiet statements fparser makes of them. Anything else raises ``Unsupported``.
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

SKIPPED = frozenset({"comment", "statement_label", "block_label_start_expression"})


@dataclass(frozen=True)
class Reader:
    id: str


@dataclass(frozen=True)
class Place:
    """Where a statement starts, in the shape of fparser's reader line (``span``, ``reader``)."""

    span: tuple[int, int]
    reader: Reader
    label: None = None
    name: None = None


def block(cls: type, content: list) -> object:
    obj = object.__new__(cls)
    obj.content = content
    obj.item = None
    obj.parent = None
    obj.string = None
    return obj


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


class StatementBuilder:
    """The executable statements of a unit (a part of :class:`~.ts_units.UnitBuilder`, which
    gives ``specification``, ``is_specification`` and the scopes)."""

    origins: list[tuple[str, int]]
    readers: dict[str, Reader]
    scopes: list[set[str]]
    exprs: ExpressionBuilder

    def place(self, ts: object) -> Place:
        file, line = self.origins[ts.start_point[0]]
        reader = self.readers.get(file)
        if reader is None:
            reader = self.readers[file] = Reader(file)
        return Place((line, line), reader)

    def stmt(self, cls: type, ts: object, *items: object) -> object:
        obj = node(cls, *items)
        obj.item = self.place(ts)
        return obj


    def statements(self, nodes: list) -> list:
        out: list = []
        for child in nodes:
            if child.type in SKIPPED:
                continue
            built = self.statement(child)
            if isinstance(built, list):
                out.extend(built)
            else:
                out.append(built)
        return out

    def statement(self, ts: object) -> object:
        return self.dispatch(ts, "_s_", _QUIET)

    def dispatch(self, ts: object, prefix: str, quiet: dict) -> object:
        """``ts`` built by its handler (``prefix`` + its type), else as the plain statement
        class ``quiet`` gives its type; a type with neither is unsupported."""
        handler = getattr(self, prefix + ts.type, None)
        if handler is not None:
            return handler(ts)
        cls = quiet.get(ts.type)
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
        return self.include(ts)

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
        children = [c for c in named(ts) if c.type not in SKIPPED]
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
                parts = [c for c in named(clause) if c.type not in SKIPPED]
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
        children = [c for c in named(ts) if c.type not in SKIPPED
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
                closing = [c for c in named(end) if c.type not in SKIPPED
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
        parts = [c for c in named(ts) if c.type not in SKIPPED
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
            elif case.type not in ("selector", *SKIPPED):
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
        children = [c for c in named(ts) if c.type not in SKIPPED]
        mask = self.condition(children[0])
        if not children[-1].type == "end_where_statement":
            if len(children) != 2:
                raise Unsupported("where statement")
            return self.stmt(F.Where_Stmt, ts, mask, self.inline(children[1]))
        content = [self.stmt(F.Where_Construct_Stmt, ts, mask)]
        for child in children[1:]:
            if child.type == "elsewhere_clause":
                parts = [c for c in named(child) if c.type not in SKIPPED]
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
        children = [c for c in named(ts) if c.type not in SKIPPED]
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
        children = [c for c in named(ts) if c.type not in SKIPPED
                    and c.type != "end_block_construct_statement"]
        split = next((i for i, c in enumerate(children) if not self.is_specification(c)),
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
