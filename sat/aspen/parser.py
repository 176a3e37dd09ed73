"""Parse Aspen text into the model tree (:mod:`sat.aspen.tree`) with a lark LALR grammar.

The grammar covers the language as the Aspen suite's models use it: application models
(``model``, ``param`` with ranges, enums, arrays and tables, ``data``, ``import``, kernels with
``execute`` blocks and the control statements ``iterate map par seq call if probability switch
sample``) and machine files (``include``, parameters and components ``kind name { … }`` with
sub-components, ``property``, ``resource … with traits``, ``conflict``, ``static``/``dynamic
power``).  Comments are ``// …`` (Aspen's own) and ``/* … */``.

The grammar is a little wider than Aspen's (so that every model of Aspen's suite reads, and
so that an error can say more than "syntax error"); :mod:`sat.aspen.conformance` checks each
parsed text against Aspen's own rules.  What Aspen's grammar refuses, the reader refuses too,
with a one-line error (a ``param`` or ``data`` after a kernel, comparisons outside an ``if``,
keywords as names, …), except for a few constructs that models in use rely on, which it reads
and lists in the file's ``leniencies`` (warnings): ``execute`` labels without quotes
(``execute first {…}``, as in the suite's ``exec_names.aspen``), ``param x = {1, 2}`` for
``param x[] = {1, 2}`` (as in ``CoEVP-driver.aspen``), models without declarations, empty
blocks and components, ``power { static [w] dynamic [w] }`` for the two ``… power``
statements, and ``/* … */`` comments.  ``strict=True`` refuses those too.
"""

from __future__ import annotations

import functools
import math
from pathlib import Path

from lark import Lark, Token, Transformer, Tree, v_args
from lark.exceptions import (
    UnexpectedCharacters,
    UnexpectedEOF,
    UnexpectedInput,
    UnexpectedToken,
    VisitError,
)

from sat.aspen import tree as t
from sat.aspen.conformance import leniencies
from sat.aspen.errors import AspenError
from sat.quoting import echoed, quoted

_MAX_DIGITS = 320  # more digits than any double has (checked before float() reads them all)

GRAMMAR = r"""
start: _top*
_top: model | _global | include | component

// ---------------------------------------------------------------- application models
model: "model" NAME "{" _model_item* "}"
_model_item: _global | kernel
_global: param | enum | data | import_

param: "param" ident "=" expr                                   -> param_scalar
     | "param" ident "=" expr "in" expr ".." expr               -> param_range
     | "param" ident "=" expr "in" NAME                         -> param_enum
     | "param" ident "[" "]" "=" "{" _exprs "}"                 -> param_array
     | "param" ident "=" "{" _exprs "}"                         -> param_array_bare
     | "param" ident "[" "]" "[" "]" "=" "{" row ("," row)* "}" -> param_table
row: "{" _exprs "}"
_exprs: expr ("," expr)*

enum: "enum" NAME "{" NAME ("," NAME)* "}"
data: "data" NAME "[" expr "]"                                  -> data_size
    | "data" NAME "as" NAME "(" [_exprs] ")"                    -> data_as
import_: "import" NAME "from" STRING ["with" named_arg ("," named_arg)*]
named_arg: NAME "=" expr
include: "include" PATH

kernel: "kernel" ident [kernel_args] "{" _kstmt* "}"
kernel_args: "(" [kernel_arg ("," kernel_arg)*] ")"
kernel_arg: "param" NAME -> param_arg
          | "data" NAME  -> data_arg

_kstmt: execute | iterate | map | par | seq | call | if_ | probability | switch | sample
      | param | data
block: "{" _kstmt* "}"

execute: "execute" [NAME] [quantity] [STRING] "{" clause* "}"
clause: NAME quantity [of_size] [direction] [traits]
of_size: "of" "size" quantity
direction: "to" NAME   -> to
         | "from" NAME -> from_
traits: "as" trait ("," trait)*
trait: NAME ["(" expr ")"]

iterate: "iterate" [NAME] quantity [STRING] block
map: "map" [NAME] quantity [STRING] block
par: "par" [STRING] block
seq: "seq" [STRING] block
call: "call" ident [call_args]
call_args: "(" [_exprs] ")"
if_: "if" "(" expr ")" block [else_]
else_: "else" block | "else" if_
probability: "probability" "{" case+ [other] "}"
switch: "switch" "(" ident ")" "{" case+ [other] "}"
other: "else" block
case: quantity block
sample: "sample" NAME "from" NAME "(" [_exprs] ")"

quantity: "[" expr "]"

// ---------------------------------------------------------------- machine components
component: NAME NAME "{" _citem* "}"
_citem: property | resource | conflict | power | subcomponent
property: "property" NAME [quantity]
resource: "resource" NAME "(" NAME ")" quantity ["with" trait_def ("," trait_def)*]
trait_def: NAME ["(" NAME ")"] quantity
conflict: "conflict" NAME "," NAME
power: "static" "power" quantity             -> static_power
     | "dynamic" "power" quantity            -> dynamic_power
     | "power" "{" power_item* "}"           -> power_block
power_item: "static" quantity                -> static_power
          | "dynamic" quantity               -> dynamic_power
subcomponent: NAME [quantity] NAME

// ---------------------------------------------------------------- expressions
?expr: logic
?logic: compare
      | logic "and" compare      -> and_
      | logic "or" compare       -> or_
?compare: sum
        | sum "==" sum           -> eq
        | sum "!=" sum           -> ne
        | sum "<" sum            -> lt
        | sum ">" sum            -> gt
        | sum "<=" sum           -> le
        | sum ">=" sum           -> ge
?sum: product
    | sum "+" product            -> add
    | sum "-" product            -> sub
?product: unary
        | product "*" unary      -> mul
        | product "/" unary      -> div
?unary: power_
      | "-" unary                -> neg
?power_: atom
       | atom "^" unary          -> pow
?atom: INT                       -> int_
     | REAL                      -> real
     | ident                     -> name
     | ident "[" expr "]"        -> index1
     | ident "[" expr "]" "[" expr "]" -> index2
     | NAME "(" [_exprs] ")"     -> func
     | "(" expr ")"              -> paren

ident: NAME ("." NAME)*

// ---------------------------------------------------------------- tokens
NAME: /[A-Za-z_][A-Za-z0-9_]*/
REAL.2: /(\d+\.(?!\.)\d*|\.\d+)([eE][+-]?\d+)?|\d+[eE][+-]?\d+/
INT: /\d+/
STRING: /"([^"\\\n]|\\.)*"/
PATH: /[A-Za-z0-9_.\/\\+~:-]+/

%ignore /[ \t\f\r\n]+/
%ignore /\/\/[^\n]*/
%ignore /\/\*(.|\n)*?\*\//
"""

#: Readable names for the terminals lark reports in syntax errors.
_TOKEN_NAMES = {
    "NAME": "a name",
    "INT": "a number",
    "REAL": "a number",
    "STRING": "a quoted string",
    "PATH": "a file name",
    "$END": "end of file",
}


@functools.lru_cache(maxsize=1)
def _lark() -> Lark:
    return Lark(
        GRAMMAR,
        parser="lalr",
        lexer="contextual",
        start=["start", "expr"],
        propagate_positions=True,
        maybe_placeholders=True,
    )


def _describe(lark: Lark, names) -> str:
    by_name = {term.name: term for term in lark.terminals}
    words: set[str] = set()
    for name in names:
        if name in _TOKEN_NAMES:
            words.add(_TOKEN_NAMES[name])
            continue
        term = by_name.get(name)
        if term is not None and term.pattern.type == "str":
            words.add(f"'{term.pattern.value}'")
        else:
            words.add(name.lower())
    def rank(word: str):
        if not word.startswith("'"):
            return (2, word)  # a name, a number, end of file
        return (0 if not word[1].isalpha() else 1, word)

    ordered = sorted(words, key=rank)
    if len(ordered) == 1:
        return ordered[0]
    if len(ordered) > 16:
        ordered = ordered[:16] + ["…"]
    return "one of " + ", ".join(ordered)


def _syntax_error(err: UnexpectedInput, path: str, text: str) -> AspenError:
    lark = _lark()
    line = getattr(err, "line", None) or 0
    col = getattr(err, "column", None) or 0
    if isinstance(err, UnexpectedToken):
        tok = err.token
        if tok.type == "$END":
            found = "end of file"
            lines = text.splitlines() or [""]
            line, col = len(lines), len(lines[-1]) + 1
        else:
            found = repr(str(tok))
        return AspenError(f"expected {_describe(lark, err.expected)}, found {found}",
                          t.Loc(path, line, col))
    if isinstance(err, UnexpectedCharacters):
        char = text[err.pos_in_stream] if err.pos_in_stream < len(text) else ""
        return AspenError(f"unexpected character {char!r}", t.Loc(path, line, col))
    if isinstance(err, UnexpectedEOF):
        lines = text.splitlines() or [""]
        return AspenError(f"expected {_describe(lark, err.expected)}, found end of file",
                          t.Loc(path, len(lines), len(lines[-1]) + 1))
    return AspenError(str(err).splitlines()[0], t.Loc(path, line, col))


class _Build(Transformer):
    """lark parse tree -> :mod:`sat.aspen.tree` nodes."""

    def __init__(self, path: str):
        super().__init__()
        self.path = path

    # ------------------------------------------------------------------ helpers
    def _loc(self, meta) -> t.Loc:
        if getattr(meta, "empty", True):
            return t.Loc(self.path, 0, 0)
        return t.Loc(self.path, meta.line, meta.column)

    def _tloc(self, tok: Token) -> t.Loc:
        return t.Loc(self.path, tok.line or 0, tok.column or 0)

    def _string(self, tok: Token | None) -> str | None:
        if tok is None:
            return None
        try:
            return bytes(str(tok)[1:-1], "utf-8").decode("unicode_escape")
        except UnicodeDecodeError as err:  # "\x" without two hex digits, a lone "\"
            raise AspenError(f"bad escape in the string {echoed(str(tok))}: {err.reason}",
                             self._tloc(tok)) from None

    # ------------------------------------------------------------------ top level
    def start(self, items):
        return tuple(items)

    def ident(self, names):
        return ".".join(str(n) for n in names)

    @v_args(meta=True)
    def model(self, meta, items):
        name, *rest = items
        kernels = tuple(i for i in rest if isinstance(i, t.Kernel))
        globals_ = tuple(i for i in rest if not isinstance(i, t.Kernel))
        return t.Model(str(name), globals_, kernels, self._loc(meta))

    @v_args(meta=True)
    def include(self, meta, items):
        return t.Include(str(items[0]), self._loc(meta))

    # ------------------------------------------------------------------ globals
    @v_args(meta=True)
    def param_scalar(self, meta, items):
        return t.Param(items[0], value=items[1], loc=self._loc(meta))

    @v_args(meta=True)
    def param_range(self, meta, items):
        name, value, low, high = items
        return t.Param(name, value=value, range=t.Range(low, high), loc=self._loc(meta))

    @v_args(meta=True)
    def param_enum(self, meta, items):
        name, value, enum = items
        return t.Param(name, value=value, enum=str(enum), loc=self._loc(meta))

    @v_args(meta=True)
    def param_array(self, meta, items):
        name, *values = items
        return t.Param(name, array=tuple(values), loc=self._loc(meta))

    @v_args(meta=True)
    def param_table(self, meta, items):
        name, *rows = items
        return t.Param(name, table=tuple(rows), loc=self._loc(meta))

    param_array_bare = param_array

    def row(self, items):
        return tuple(items)

    @v_args(meta=True)
    def enum(self, meta, items):
        name, *values = items
        return t.Enum(str(name), tuple(str(v) for v in values), self._loc(meta))

    @v_args(meta=True)
    def data_size(self, meta, items):
        return t.Data(str(items[0]), size=items[1], loc=self._loc(meta))

    @v_args(meta=True)
    def data_as(self, meta, items):
        name, func, *args = items
        args = tuple(a for a in args if a is not None)
        loc = self._loc(meta)
        return t.Data(str(name), constructor=t.FuncCall(str(func), args, loc), loc=loc)

    @v_args(meta=True)
    def import_(self, meta, items):
        model, path, *args = items
        args = tuple(a for a in args if a is not None)
        return t.Import(str(model), self._string(path), args, self._loc(meta))

    def named_arg(self, items):
        return (str(items[0]), items[1])

    # ------------------------------------------------------------------ kernels
    @v_args(meta=True)
    def kernel(self, meta, items):
        name, args, *stmts = items
        locals_ = tuple(s for s in stmts if isinstance(s, (t.Param, t.Data)))
        body = tuple(s for s in stmts if not isinstance(s, (t.Param, t.Data)))
        return t.Kernel(name, args or (), body, locals_, self._loc(meta))

    def kernel_args(self, items):
        return tuple(i for i in items if i is not None)

    def param_arg(self, items):
        return t.KernelArg("param", str(items[0]))

    def data_arg(self, items):
        return t.KernelArg("data", str(items[0]))

    def block(self, items):
        return tuple(items)

    def quantity(self, items):
        return items[0]

    @v_args(meta=True)
    def execute(self, meta, items):
        name, par, label, *clauses = items
        text = self._string(label) if label is not None else (str(name) if name else None)
        return t.Execute(par, text, tuple(clauses), self._loc(meta))

    @v_args(meta=True)
    def clause(self, meta, items):
        resource, quantity, size, direction, traits = items
        kind, data = direction if direction is not None else (None, None)
        return t.Clause(str(resource), quantity, size, kind, data, traits or (), self._loc(meta))

    def to(self, items):
        return ("to", str(items[0]))

    def from_(self, items):
        return ("from", str(items[0]))

    def of_size(self, items):
        return items[0]

    def else_(self, items):
        return items[0]

    def other(self, items):
        return items[0]

    def traits(self, items):
        return tuple(items)

    @v_args(meta=True)
    def trait(self, meta, items):
        return t.Trait(str(items[0]), items[1], self._loc(meta))

    @v_args(meta=True)
    def iterate(self, meta, items):
        counter, count, label, body = items
        return t.Iterate(count, body, str(counter) if counter else None, self._string(label),
                         self._loc(meta))

    @v_args(meta=True)
    def map(self, meta, items):
        counter, count, label, body = items
        return t.Map(count, body, str(counter) if counter else None, self._string(label),
                     self._loc(meta))

    @v_args(meta=True)
    def par(self, meta, items):
        return t.Par(items[1], self._string(items[0]), self._loc(meta))

    @v_args(meta=True)
    def seq(self, meta, items):
        return t.Seq(items[1], self._string(items[0]), self._loc(meta))

    @v_args(meta=True)
    def call(self, meta, items):
        name, args = items
        return t.Call(name, args or (), self._loc(meta))

    def call_args(self, items):
        return tuple(i for i in items if i is not None)

    @v_args(meta=True)
    def if_(self, meta, items):
        cond, then, *other = items
        other = other[0] if other else None
        if other is None:
            other = ()
        elif isinstance(other, t.If):
            other = (other,)
        return t.If(cond, then, other, self._loc(meta))

    @v_args(meta=True)
    def probability(self, meta, items):
        *cases, other = items
        return t.Probability(tuple(cases), other, self._loc(meta))

    @v_args(meta=True)
    def switch(self, meta, items):
        name, *cases, other = items
        return t.Switch(name, tuple(cases), other, self._loc(meta))

    @v_args(meta=True)
    def case(self, meta, items):
        return t.Case(items[0], items[1], self._loc(meta))

    @v_args(meta=True)
    def sample(self, meta, items):
        name, func, *args = items
        args = tuple(a for a in args if a is not None)
        loc = self._loc(meta)
        return t.Sample(str(name), t.FuncCall(str(func), args, loc), loc)

    # ------------------------------------------------------------------ machine components
    @v_args(meta=True)
    def component(self, meta, items):
        kind, name, *rest = items
        flat = []
        for item in rest:
            flat.extend(item if isinstance(item, tuple) else (item,))
        return t.Component(str(kind), str(name), tuple(flat), self._loc(meta))

    @v_args(meta=True)
    def property(self, meta, items):
        return t.Property(str(items[0]), items[1], self._loc(meta))

    @v_args(meta=True)
    def resource(self, meta, items):
        name, arg, time, *traits = items
        traits = tuple(x for x in traits if x is not None)
        return t.Resource(str(name), str(arg), time, traits, self._loc(meta))

    @v_args(meta=True)
    def trait_def(self, meta, items):
        name, arg, time = items
        return t.TraitDef(str(name), time, str(arg) if arg else None, self._loc(meta))

    @v_args(meta=True)
    def conflict(self, meta, items):
        return t.Conflict(str(items[0]), str(items[1]), self._loc(meta))

    @v_args(meta=True)
    def static_power(self, meta, items):
        return t.Power("static", items[0], self._loc(meta))

    @v_args(meta=True)
    def dynamic_power(self, meta, items):
        return t.Power("dynamic", items[0], self._loc(meta))

    def power_block(self, items):
        return tuple(items)

    @v_args(meta=True)
    def subcomponent(self, meta, items):
        kind, count, name = items
        return t.SubComponent(str(kind), str(name), count, self._loc(meta))

    # ------------------------------------------------------------------ expressions
    def int_(self, items):
        return self._number(items[0])

    def real(self, items):
        return self._number(items[0])

    def _number(self, tok: Token) -> t.Num:
        """A literal as a double; one beyond a double's range (a 400-digit count, ``1e400``)
        has no value in the model: refused at its place."""
        text = str(tok)
        value = float(text) if sum(c.isdigit() for c in text) <= _MAX_DIGITS else math.inf
        if not math.isfinite(value):
            raise AspenError(f"the number {quoted(text, 40)} is out of range (at most about "
                             "1.8e308)", self._tloc(tok))
        return t.Num(value, text, self._tloc(tok))

    @v_args(meta=True)
    def name(self, meta, items):
        return t.Name(items[0], self._loc(meta))

    @v_args(meta=True)
    def index1(self, meta, items):
        return t.Index(items[0], (items[1],), self._loc(meta))

    @v_args(meta=True)
    def index2(self, meta, items):
        return t.Index(items[0], (items[1], items[2]), self._loc(meta))

    @v_args(meta=True)
    def func(self, meta, items):
        name, *args = items
        args = tuple(a for a in args if a is not None)
        return t.FuncCall(str(name), args, self._loc(meta))

    def paren(self, items):
        return items[0]

    @v_args(meta=True)
    def neg(self, meta, items):
        return t.Unary("-", items[0], self._loc(meta))


def _binary(op: str):
    @v_args(meta=True)
    def build(self, meta, items):
        return t.Binary(op, items[0], items[1], self._loc(meta))

    return build


for _rule, _op in (("add", "+"), ("sub", "-"), ("mul", "*"), ("div", "/"), ("pow", "^"),
                   ("eq", "=="), ("ne", "!="), ("lt", "<"), ("gt", ">"), ("le", "<="),
                   ("ge", ">="), ("and_", "and"), ("or_", "or")):
    setattr(_Build, _rule, _binary(_op))


def parse_text(text: str, path: str = "<string>", strict: bool = False) -> t.File:
    """Parse the text of one Aspen file (``include`` and ``import`` are not followed).

    The reader accepts a few constructs Aspen's grammar does not (:mod:`sat.aspen.conformance`):
    they are listed in the file's ``leniencies``, except those that are errors
    (:data:`~sat.aspen.conformance.ERRORS`: a declaration after a kernel), which raise.  With
    ``strict``, any of them raises: the text is then one Aspen's own parser accepts.
    """
    lark = _lark()
    try:
        tree = _shaped(lark.parse(text, start="start"), path)
    except UnexpectedInput as err:
        raise _syntax_error(err, path, text) from None
    found = leniencies(tree, text, path)
    refused = [f for f in found if strict or f.error]
    if refused:
        raise AspenError(refused[0].message, refused[0].loc)
    return t.File(path, _build(path, tree), tuple(found))


def _build(path: str, tree):
    """The model tree of a parse tree; the builder's own errors (a bad number or escape) as
    they are, not wrapped in lark's ``VisitError``."""
    try:
        return _Build(path).transform(tree)
    except VisitError as err:
        if isinstance(err.orig_exc, AspenError):
            raise err.orig_exc from None
        raise


def parse_file(path: str | Path, strict: bool = False) -> t.File:
    """Parse one Aspen file (``include`` and ``import`` are not followed; ``strict`` as for
    :func:`parse_text`).

    Trees are immutable, so a file read again unchanged (same size and modification time) is
    not parsed again: machine files include the same memories and sockets many times.
    """
    p = Path(path)
    try:
        st = p.stat()
    except OSError as err:
        raise AspenError(f"cannot read {p}: {err.strerror or err}") from None
    return _parse_cached(str(p), st.st_mtime_ns, st.st_size, strict)


@functools.lru_cache(maxsize=512)
def _parse_cached(path: str, mtime_ns: int, size: int, strict: bool = False) -> t.File:
    try:
        text = Path(path).read_text(encoding="utf-8-sig", errors="replace")  # a BOM is no text
    except OSError as err:
        raise AspenError(f"cannot read {path}: {err.strerror or err}") from None
    return parse_text(text, path, strict)


def parse_expression(text: str, path: str = "<expression>") -> t.Expr:
    """Parse one expression in Aspen syntax (``2*n^3 / max(1, log(n))``)."""
    lark = _lark()
    try:
        tree = _shaped(lark.parse(text, start="expr"), path)
    except UnexpectedInput as err:
        raise _syntax_error(err, path, text) from None
    return _build(path, tree)


#: Blocks within blocks, parentheses and operators within expressions: the levels of the
#: syntax tree a model may nest (the deepest of Aspen's suite has 17).  What reads, evaluates
#: and prints a model recurses on its nesting; a sum of many terms is no nesting (below).
MAX_NESTING = 100
_CHAIN = 32  # terms of a sum or product from which it is evaluated as a balanced tree


def _shaped(tree: Tree, path: str) -> Tree:
    """``tree`` with its long sums and products (a 20,000-term sum, which the grammar reads
    as 20,000 nested additions) rebuilt as balanced trees of the same terms, so that their
    depth is the logarithm of their length; then refused if it nests deeper than
    :data:`MAX_NESTING`.  Sums of fewer than 32 terms keep their order of addition (and so
    the values Aspen's tools print).  Iterative: no recursion on the input's depth."""
    inside: set[int] = set()  # links of chains already rebuilt from their top
    for node in _subtrees(tree):  # parents before children: a chain from its top, once
        if id(node) not in inside and node.data in ("add", "mul") \
                and _chain_length(node) >= _CHAIN:
            terms, links = _chain(node)
            inside.update(map(id, links))
            node.children = _balanced(node.data, terms, node.meta).children
    depth: dict[int, int] = {}
    for node in reversed(_subtrees(tree)):  # children before parents
        depth[id(node)] = 1 + max((depth[id(c)] for c in node.children if isinstance(c, Tree)),
                                  default=0)
        if depth[id(node)] > MAX_NESTING:
            meta = node.meta
            where = t.Loc(path, meta.line, meta.column) if not meta.empty else None
            raise AspenError(f"nested deeper than {MAX_NESTING} levels (blocks, parentheses, "
                             "operators): simplify the model", where)
    return tree


def _subtrees(tree: Tree) -> list[Tree]:
    order, stack = [], [tree]
    while stack:
        node = stack.pop()
        order.append(node)
        stack.extend(child for child in node.children if isinstance(child, Tree))
    return order


def _chain_length(node: Tree) -> int:
    length = 1
    while isinstance(node, Tree) and node.data in ("add", "mul") and length < _CHAIN:
        child = node.children[0]
        if not (isinstance(child, Tree) and child.data == node.data):
            break
        node, length = child, length + 1
    return length + 1


def _chain(node: Tree) -> tuple[list, list[Tree]]:
    """The operands of a left-nested chain of one operator, left to right, and its links."""
    rights, links = [], []
    rule = node.data
    while isinstance(node, Tree) and node.data == rule:
        links.append(node)
        rights.append(node.children[1])
        node = node.children[0]
    return [node, *reversed(rights)], links


def _balanced(rule: str, terms: list, meta) -> Tree:
    if len(terms) == 1:
        return terms[0]
    middle = len(terms) // 2
    return Tree(rule, [_balanced(rule, terms[:middle], meta),
                       _balanced(rule, terms[middle:], meta)], meta)
