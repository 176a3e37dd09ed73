"""Where a parsed text goes beyond Aspen's grammar.

satreport's reader (:mod:`sat.aspen.parser`) has a grammar a little wider than Aspen's.  This
module finds each place where a text uses what Aspen's own grammar rejects (a
:class:`Leniency`), so that the reader refuses it (most of them: a one-line error) or reads it
with a warning (the :data:`WARNINGS`, which models in use rely on), and so that what satreport
writes (``--aspen``) can be checked against Aspen's grammar: ``parse_text(text, strict=True)``
refuses every leniency.

Aspen's grammar, on the points where the reader's is wider (Spafford & Vetter, SC12, and the
design-space extension; the suite's models follow it):

* an application file is one ``model NAME { … }`` and nothing else; the model holds at least
  one declaration (``import``, ``param``, ``enum``, ``data``), then at least one ``kernel``:
  every declaration comes before the first kernel;
* a kernel's own ``param`` and ``data`` come first in its body, never in a nested block;
  every body (kernel, ``execute``, ``iterate``, ``map``, ``par``, ``seq``, ``if``, ``else``,
  the cases of ``probability`` and ``switch``) holds at least one statement or clause;
  ``kernel k(…)`` declares at least one argument;
* an ``execute`` block's label is a quoted string (``execute [n] "name" { … }``);
* an array is ``param x[] = {…}``; a table's entries (``param t[][] = {{…}, …}``) are
  unsigned numbers; a range after a whole number needs a space (``1 .. 5``: Aspen reads
  ``1.`` as a number);
* comparisons (``== != < > <= >=``), joined by ``and``/``or`` without parentheses, appear
  only as the condition of an ``if``, which must be one;
* an index (``a[i]``) and a ``switch`` take a plain name, not a dotted one;
* machine components hold at least one statement; power is ``static power [w]`` and
  ``dynamic power [w]``;
* keywords (``param``, ``data``, ``size``, ``map``, ``in``, … and the constants ``kilo``,
  ``mega``, …) are no names; comments are ``//`` to the end of the line.
"""

from __future__ import annotations

from collections.abc import Iterator

from lark import Token, Tree

from sat.aspen.tree import Leniency, Loc

#: Aspen's keywords: no parameter, kernel, data, component or resource may be named so.
KEYWORDS = frozenset("""
    param enum sample in with as of size model kernel data import to from call iterate map par
    seq execute if else switch probability resource conflict property power static dynamic
    include and or
""".split())

#: Aspen's constants: keywords too, allowed as numbers in expressions only.
CONSTANTS = frozenset("nano micro milli kilo mega giga tera peta exa".split())

#: Leniencies the reader accepts, with a warning: Aspen's suite or satreport's own tests have
#: models that use them (``execute`` labels without quotes: the suite's ``exec_names.aspen``;
#: arrays without ``[]``: its ``CoEVP-driver.aspen``).  Every other leniency is an error.
WARNINGS = frozenset({"execute-name-label", "array-without-brackets",
                      "model-without-declarations", "empty-block", "empty-component",
                      "power-block", "block-comment", "range-without-spaces"})

_DECLARATIONS = {"param_scalar": "param", "param_range": "param", "param_enum": "param",
                 "param_array": "param", "param_array_bare": "param", "param_table": "param",
                 "enum": "enum", "data_size": "data", "data_as": "data", "import_": "import"}
_COMPARISONS = {"eq": "==", "ne": "!=", "lt": "<", "gt": ">", "le": "<=", "ge": ">="}
_LOGIC = {"and_": "and", "or_": "or"}
_BLOCKS = {"iterate": "iterate", "map": "map", "par": "par", "seq": "seq"}


def leniency(code: str, loc: Loc, message: str) -> Leniency:
    """A :class:`Leniency`, refused unless it is one of the :data:`WARNINGS`."""
    return Leniency(code, loc, message, code not in WARNINGS)


def _loc(path: str, node) -> Loc:
    if isinstance(node, Token):
        return Loc(path, node.line or 0, node.column or 0)
    meta = node.meta
    if getattr(meta, "empty", True):
        return Loc(path, 0, 0)
    return Loc(path, meta.line, meta.column)


class _Checker:
    def __init__(self, path: str, text: str):
        self.path = path
        self.text = text
        self.found: list[Leniency] = []

    def add(self, code: str, node, message: str) -> None:
        self.found.append(leniency(code, _loc(self.path, node), message))

    # ------------------------------------------------------------------ files and models
    def file(self, tree: Tree) -> None:
        items = [c for c in tree.children if isinstance(c, Tree)]
        models = [i for i in items if i.data == "model"]
        if models:
            for item in items:
                if item.data in _DECLARATIONS:
                    self.add("outside-model", item,
                             f"'{_DECLARATIONS[item.data]}' outside the model block: Aspen "
                             "reads an application file as one 'model { … }' and nothing else")
        for item in items:
            if item.data == "model":
                self.model(item)
            elif item.data == "component":
                self.component(item)
            elif item.data in _DECLARATIONS:
                self.declaration(item)

    def model(self, tree: Tree) -> None:
        name = str(tree.children[0])
        kernel_seen = None
        declarations = 0
        for item in tree.children[1:]:
            if not isinstance(item, Tree):
                continue
            if item.data == "kernel":
                kernel_seen = kernel_seen or item
                self.kernel(item)
                continue
            declarations += 1
            if kernel_seen is not None:
                kernel = _ident(kernel_seen.children[0])
                self.add("declaration-after-kernel", item,
                         f"'{_declared(item)}' after kernel '{kernel}': Aspen's grammar takes "
                         "every import, param, enum and data of a model before its first "
                         "kernel")
            self.declaration(item)
        if not declarations:
            self.add("model-without-declarations", tree,
                     f"model '{name}' declares nothing: Aspen's grammar wants at least one "
                     "import, param, enum or data before the kernels")
        if kernel_seen is None:
            self.add("model-without-kernels", tree,
                     f"model '{name}' has no kernel: Aspen's grammar wants at least one")

    def declaration(self, tree: Tree) -> None:
        kind = tree.data
        if kind == "param_array_bare":
            self.add("array-without-brackets", tree,
                     f"'param {_ident(tree.children[0])} = {{…}}': Aspen's grammar writes an "
                     f"array 'param {_ident(tree.children[0])}[] = {{…}}'")
        if kind == "param_range":
            low = tree.children[2]
            last = list(low.scan_values(lambda v: isinstance(v, Token)))[-1:] \
                if isinstance(low, Tree) else [low]
            if last and last[0].type == "INT" and self.text[last[0].end_pos:][:2] == "..":
                self.add("range-without-spaces", last[0],
                         f"a range '{last[0]}..' without a space: Aspen reads '{last[0]}.' as "
                         f"a number ('{last[0]} ..' is a range)")
        if kind == "param_table":
            for row in tree.children[1:]:
                for entry in row.children:
                    if not (isinstance(entry, Tree) and entry.data in ("int_", "real")):
                        self.add("table-expression", entry if isinstance(entry, Tree) else row,
                                 "a table entry that is not an unsigned number: Aspen's grammar "
                                 "takes only numbers in 'param t[][] = {{…}, …}'")
                        break
                else:
                    continue
                break
        self.expressions(tree)

    # ------------------------------------------------------------------ kernels
    def kernel(self, tree: Tree) -> None:
        name = _ident(tree.children[0])
        args = tree.children[1]
        if isinstance(args, Tree) and not [a for a in args.children if a is not None]:
            self.add("empty-arguments", args,
                     f"kernel '{name}()' declares no argument: Aspen's grammar wants at least "
                     "one inside the parentheses, or no parentheses")
        body = [s for s in tree.children[2:] if isinstance(s, Tree)]
        started = False
        for statement in body:
            if statement.data in _DECLARATIONS:
                if started:
                    self.add("kernel-declaration-order", statement,
                             f"'{_DECLARATIONS[statement.data]}' after a statement of kernel "
                             f"'{name}': Aspen's grammar takes a kernel's param and data "
                             "first")
                self.declaration(statement)
            else:
                started = True
                self.statement(statement)
        if not started:
            self.add("empty-block", tree, f"kernel '{name}' runs nothing: Aspen's grammar wants "
                     "at least one statement in a kernel")

    def block(self, tree: Tree | None, what: str, owner) -> None:
        statements = [s for s in (tree.children if isinstance(tree, Tree) else ())
                      if isinstance(s, Tree)]
        if not statements:
            self.add("empty-block", tree if isinstance(tree, Tree) else owner,
                     f"empty {what} block: Aspen's grammar wants at least one statement in it")
        for statement in statements:
            if statement.data in _DECLARATIONS:
                self.add("kernel-declaration-order", statement,
                         f"'{_DECLARATIONS[statement.data]}' inside {what} {{ … }}: Aspen's "
                         "grammar takes a kernel's param and data only at its start")
                self.declaration(statement)
            else:
                self.statement(statement)

    def statement(self, tree: Tree) -> None:
        kind = tree.data
        if kind == "execute":
            label, quantity, _string, *clauses = tree.children
            if label is not None:
                self.add("execute-name-label", label,
                         f"execute block labelled with the bare name '{label}': Aspen's "
                         f"grammar takes a quoted label (execute [n] \"{label}\" {{ … }})")
            clauses = [c for c in clauses if isinstance(c, Tree)]
            if not clauses:
                self.add("empty-block", tree, "execute block without a clause: Aspen's grammar "
                         "wants at least one (flops [n], loads [n], …)")
            self.expressions(quantity)
            for clause in clauses:
                self.expressions(clause)
        elif kind in _BLOCKS:
            *head, body = tree.children
            for part in head:
                self.expressions(part)
            self.block(body, _BLOCKS[kind], tree)
        elif kind == "call":
            self.expressions(tree.children[1])
        elif kind == "if_":
            condition, then, other = tree.children
            self.condition(condition, tree)
            self.block(then, "if", tree)
            if isinstance(other, Tree):
                inner = other.children[0]
                if isinstance(inner, Tree) and inner.data == "if_":
                    self.statement(inner)
                else:
                    self.block(inner, "else", other)
        elif kind in ("probability", "switch"):
            *cases, other = tree.children
            if kind == "switch":
                subject, cases = cases[0], cases[1:]
                if len(subject.children) > 1:
                    self.add("dotted-name", subject,
                             f"switch ({_ident(subject)}): Aspen's grammar switches on a plain "
                             "name, not a dotted one")
            for case in cases:
                self.expressions(case.children[0])
                self.block(case.children[1], "case", case)
            if isinstance(other, Tree):
                self.block(other.children[0], "else", other)
        elif kind == "sample":
            self.expressions(tree)

    # ------------------------------------------------------------------ expressions
    def condition(self, tree, owner) -> None:
        """An ``if`` condition: comparisons joined by and/or, no parentheses around them."""
        if isinstance(tree, Tree) and tree.data in _LOGIC:
            for side in tree.children:
                self.condition(side, owner)
            return
        if isinstance(tree, Tree) and tree.data == "paren" and _is_comparison(tree.children[0]):
            self.add("parenthesised-comparison", tree,
                     "a comparison in parentheses: Aspen's grammar joins the comparisons of an "
                     "if with and/or, without parentheses")
            self.condition(tree.children[0], owner)
            return
        if isinstance(tree, Tree) and tree.data in _COMPARISONS:
            for side in tree.children:
                self.expressions(side)
            return
        self.add("if-without-comparison", tree if isinstance(tree, Tree) else owner,
                 "an if condition without a comparison: Aspen's grammar wants one "
                 "(if (x != 0) { … })")
        self.expressions(tree)

    def expressions(self, tree) -> None:
        """Comparisons and dotted indices inside the expressions of ``tree``."""
        if not isinstance(tree, Tree):
            return
        for node in _walk(tree):
            kind = node.data
            if kind in _COMPARISONS or kind in _LOGIC:
                op = _COMPARISONS.get(kind) or _LOGIC[kind]
                self.add("comparison-in-expression", node,
                         f"'{op}' outside an if condition: Aspen's grammar has comparisons, and "
                         "'and'/'or', only in if ( … )")
            elif kind in ("index1", "index2") and len(node.children[0].children) > 1:
                self.add("dotted-name", node,
                         f"'{_ident(node.children[0])}[…]': Aspen's grammar indexes a plain "
                         "name, not a dotted one")

    # ------------------------------------------------------------------ machines
    def component(self, tree: Tree) -> None:
        kind, name, *items = tree.children
        items = [i for i in items if isinstance(i, Tree)]
        if not items:
            self.add("empty-component", tree,
                     f"{kind} '{name}' is empty: Aspen's grammar wants at least one property, "
                     "resource, conflict, power or sub-component in it")
        for item in items:
            if item.data == "power_block":
                self.add("power-block", item,
                         "'power { static … dynamic … }': Aspen's grammar writes 'static power "
                         "[w]' and 'dynamic power [w]'")
            self.expressions(item)


def keyword_names(tree: Tree, path: str) -> list[Leniency]:
    """Names that are keywords of Aspen; a constant (``mega``) is a number in an expression,
    no name anywhere else."""
    found = []
    reserved = KEYWORDS | CONSTANTS
    stack = [tree]
    while stack:
        node = stack.pop()
        if node.data == "name":
            parts = node.children[0].children
            if len(parts) == 1 and parts[0] in CONSTANTS:
                continue  # a number
        for child in node.children:
            if isinstance(child, Tree):
                stack.append(child)
            elif isinstance(child, Token) and child.type == "NAME" and child in reserved:
                found.append(leniency("keyword-name", _loc(path, child),
                                      f"'{child}' is a keyword of Aspen, not a name"))
    return found


def _walk(tree: Tree) -> Iterator[Tree]:
    stack = [tree]
    while stack:
        node = stack.pop()
        yield node
        stack.extend(c for c in reversed(node.children) if isinstance(c, Tree))


def _is_comparison(tree) -> bool:
    return isinstance(tree, Tree) and (tree.data in _COMPARISONS or tree.data in _LOGIC or (
        tree.data == "paren" and _is_comparison(tree.children[0])))


def _declared(tree: Tree) -> str:
    """``param n``, ``data a``, ``import m``, ``enum e``: what a declaration declares."""
    return f"{_DECLARATIONS.get(tree.data, tree.data)} {_ident(tree.children[0])}"


def _ident(tree) -> str:
    if isinstance(tree, Token):
        return str(tree)
    return ".".join(str(t) for t in tree.children)


def block_comments(text: str, path: str) -> list[Leniency]:
    """``/* … */`` comments (Aspen's comments are ``//`` to the end of the line)."""
    found = []
    i, line, col = 0, 1, 1
    n = len(text)
    while i < n:
        char = text[i]
        if char == '"':  # a string: skip to its end
            j = i + 1
            while j < n and text[j] not in '"\n':
                j += 2 if text[j] == "\\" else 1
            col += j + 1 - i
            i = j + 1
            continue
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            col += j - i
            i = j
            continue
        if text.startswith("/*", i):
            found.append(leniency("block-comment", Loc(path, line, col),
                                  "a /* … */ comment: Aspen's comments are // to the end of "
                                  "the line"))
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            chunk = text[i:j]
            if "\n" in chunk:
                line += chunk.count("\n")
                col = len(chunk) - chunk.rfind("\n")
            else:
                col += len(chunk)
            i = j
            continue
        if char == "\n":
            line, col = line + 1, 1
        else:
            col += 1
        i += 1
    return found


def leniencies(tree: Tree, text: str, path: str) -> list[Leniency]:
    """Every place where the parsed ``text`` (its lark ``tree``) goes beyond Aspen's grammar,
    in the order of the text."""
    checker = _Checker(path, text)
    checker.file(tree)
    found = checker.found + keyword_names(tree, path)
    if "/*" in text:
        found += block_comments(text, path)
    unique = {(f.code, f.loc.line, f.loc.col): f for f in found}
    return sorted(unique.values(), key=lambda f: (f.loc.line, f.loc.col, f.code))
