"""The model tree of an Aspen file: plain, immutable dataclasses.

The parser (:mod:`sat.aspen.parser`) turns one file into a :class:`File`; the loader
(:mod:`sat.aspen.model`) resolves ``include`` and ``import`` into application and machine
models.  Every node carries its :class:`Loc` (file, line, column) so that evaluation errors can
point at the text that caused them.  Nothing here knows about satreport's code IR.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields


@dataclass(frozen=True, slots=True)
class Loc:
    """A position in a model file (1-based line and column)."""

    file: str
    line: int
    col: int

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.col}"


NOWHERE = Loc("<generated>", 0, 0)


@dataclass(frozen=True)
class Leniency:
    """One place where the text goes beyond Aspen's grammar (:mod:`sat.aspen.conformance`
    finds them): what (``code``), where, why, and whether the reader refuses it."""

    code: str
    loc: Loc
    message: str
    error: bool = True  # False for the few the reader accepts with a warning

    def __str__(self) -> str:
        return f"{self.loc}: {self.message}"


# ----------------------------------------------------------------------------------------------
# Expressions
# ----------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True, eq=False)
class Num:
    """A number as written (``8``, ``2.5``, ``1e6``); ``text`` keeps the spelling."""

    value: float
    text: str = ""
    loc: Loc = NOWHERE

    @property
    def is_int(self) -> bool:
        return bool(self.text) and self.text.isdigit()


@dataclass(frozen=True, slots=True, eq=False)
class Name:
    """An identifier, possibly dotted (``fft1d.n``): a parameter, enum value, constant or local."""

    name: str
    loc: Loc = NOWHERE


@dataclass(frozen=True, slots=True, eq=False)
class Unary:
    """``-x`` (the only unary operator)."""

    op: str
    operand: Expr
    loc: Loc = NOWHERE


@dataclass(frozen=True, slots=True, eq=False)
class Binary:
    """``+ - * / ^``, comparisons ``== != < > <= >=`` and the logical ``and``/``or``."""

    op: str
    left: Expr
    right: Expr
    loc: Loc = NOWHERE


@dataclass(frozen=True, slots=True, eq=False)
class FuncCall:
    """A built-in function: ``log log2 ceil floor max min sqrt lookup`` (``uniform``, ``normal``
    and ``cdf`` only in ``sample`` statements)."""

    func: str
    args: tuple[Expr, ...]
    loc: Loc = NOWHERE


@dataclass(frozen=True, slots=True, eq=False)
class Index:
    """``x[i]`` or ``table[i][j]``: an element of an array (or table) parameter, 0-based."""

    name: str
    indices: tuple[Expr, ...]
    loc: Loc = NOWHERE


@dataclass(frozen=True, slots=True, eq=False)
class Cond:
    """``cond ? then : else`` -- built for ``if`` and ``switch`` when resources are counted."""

    cond: Expr
    then: Expr
    other: Expr
    loc: Loc = NOWHERE


Expr = Num | Name | Unary | Binary | FuncCall | Index | Cond

COMPARISONS = ("==", "!=", "<", ">", "<=", ">=")
LOGICAL = ("and", "or")


# ----------------------------------------------------------------------------------------------
# Global statements (application and machine files)
# ----------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Range:
    """``in lo .. hi`` after a parameter's value."""

    low: Expr
    high: Expr


@dataclass(frozen=True, slots=True)
class Param:
    """``param x = e``, ``param x = e in lo .. hi``, ``param x = v in enumtype``,
    ``param x[] = {…}`` (``array``) and ``param t[][] = {{…}, …}`` (``table``)."""

    name: str
    value: Expr | None = None
    range: Range | None = None
    enum: str | None = None
    array: tuple[Expr, ...] | None = None
    table: tuple[tuple[Expr, ...], ...] | None = None
    loc: Loc = NOWHERE

    @property
    def kind(self) -> str:
        if self.table is not None:
            return "table"
        if self.array is not None:
            return "array"
        return "scalar"


@dataclass(frozen=True, slots=True)
class Enum:
    """``enum decomp { pencil, slab }``: the names get the values 0, 1, …"""

    name: str
    values: tuple[str, ...]
    loc: Loc = NOWHERE


@dataclass(frozen=True, slots=True)
class Data:
    """``data a [bytes]`` or ``data a as Matrix(n, n, wordSize)`` (size: product of the
    arguments, as Aspen defines it)."""

    name: str
    size: Expr | None = None
    constructor: FuncCall | None = None
    loc: Loc = NOWHERE

    @property
    def size_expr(self) -> Expr:
        if self.size is not None:
            return self.size
        assert self.constructor is not None
        args = self.constructor.args
        if not args:
            return Num(0.0, "0", self.loc)
        expr = args[0]
        for arg in args[1:]:
            expr = Binary("*", expr, arg, self.loc)
        return expr


@dataclass(frozen=True, slots=True)
class Import:
    """``import M from "file.aspen" with a = e, …``."""

    model: str
    path: str
    args: tuple[tuple[str, Expr], ...] = ()
    loc: Loc = NOWHERE


@dataclass(frozen=True, slots=True)
class Include:
    """``include path/file.aspen`` (machine files)."""

    path: str
    loc: Loc = NOWHERE


# ----------------------------------------------------------------------------------------------
# Kernels and control flow
# ----------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Trait:
    """A trait on a requirement clause: ``as sp, simd``, ``as stride(n)``."""

    name: str
    arg: Expr | None = None
    loc: Loc = NOWHERE


@dataclass(frozen=True, slots=True)
class Clause:
    """A requirement in an ``execute`` block: ``loads [n] of size [w] from a as stride(1)``.

    ``resource`` is any name (``flops``, ``loads``, ``stores``, ``messages``, ``intracomm``, a
    user-defined resource); ``direction`` is ``"to"``, ``"from"`` or ``None``.
    """

    resource: str
    quantity: Expr
    size: Expr | None = None
    direction: str | None = None
    data: str | None = None
    traits: tuple[Trait, ...] = ()
    loc: Loc = NOWHERE

    @property
    def amount(self) -> Expr:
        """The resource amount: the quantity, times the size when ``of size`` is given."""
        if self.size is None:
            return self.quantity
        return Binary("*", self.quantity, self.size, self.loc)

    def trait(self, name: str) -> Trait | None:
        for t in self.traits:
            if t.name == name:
                return t
        return None


@dataclass(frozen=True, slots=True)
class Execute:
    """``execute [parallelism] "label" { clauses }`` (parallelism 1 when absent)."""

    parallelism: Expr | None
    label: str | None
    clauses: tuple[Clause, ...]
    loc: Loc = NOWHERE


@dataclass(frozen=True, slots=True)
class Iterate:
    """``iterate counter [n] "label" { … }``: ``n`` sequential repetitions."""

    count: Expr
    body: tuple[Stmt, ...]
    counter: str | None = None
    label: str | None = None
    loc: Loc = NOWHERE


@dataclass(frozen=True, slots=True)
class Map:
    """``map counter [n] "label" { … }``: ``n`` independent copies."""

    count: Expr
    body: tuple[Stmt, ...]
    counter: str | None = None
    label: str | None = None
    loc: Loc = NOWHERE


@dataclass(frozen=True, slots=True)
class Par:
    """``par { … }``: statements that may run concurrently."""

    body: tuple[Stmt, ...]
    label: str | None = None
    loc: Loc = NOWHERE


@dataclass(frozen=True, slots=True)
class Seq:
    """``seq { … }``: statements in sequence."""

    body: tuple[Stmt, ...]
    label: str | None = None
    loc: Loc = NOWHERE


@dataclass(frozen=True, slots=True)
class Call:
    """``call k``, ``call k(args)``, ``call M.k``."""

    kernel: str
    args: tuple[Expr, ...] = ()
    loc: Loc = NOWHERE


@dataclass(frozen=True, slots=True)
class If:
    """``if (cond) { … } else { … }`` (``else if`` nests another :class:`If` in ``other``)."""

    cond: Expr
    then: tuple[Stmt, ...]
    other: tuple[Stmt, ...] = ()
    loc: Loc = NOWHERE


@dataclass(frozen=True, slots=True)
class Case:
    """``[weight] { … }`` in ``probability`` and ``switch`` blocks."""

    value: Expr
    body: tuple[Stmt, ...]
    loc: Loc = NOWHERE


@dataclass(frozen=True, slots=True)
class Probability:
    """``probability { [p1] {…} [p2] {…} else {…} }``."""

    cases: tuple[Case, ...]
    other: tuple[Stmt, ...] | None = None
    loc: Loc = NOWHERE


@dataclass(frozen=True, slots=True)
class Switch:
    """``switch (x) { [v1] {…} [v2] {…} else {…} }``."""

    name: str
    cases: tuple[Case, ...]
    other: tuple[Stmt, ...] | None = None
    loc: Loc = NOWHERE


@dataclass(frozen=True, slots=True)
class Sample:
    """``sample x from uniform(a, b)`` (also ``normal(m, s)`` and ``cdf(array)``)."""

    name: str
    distribution: FuncCall
    loc: Loc = NOWHERE


Stmt = Execute | Iterate | Map | Par | Seq | Call | If | Probability | Switch | Sample


@dataclass(frozen=True, slots=True)
class KernelArg:
    """``param x`` or ``data d`` in a kernel's argument list."""

    kind: str
    name: str


@dataclass(frozen=True, slots=True)
class Kernel:
    """``kernel name(args) { statements }``; ``locals`` are the kernel's own param/data."""

    name: str
    args: tuple[KernelArg, ...]
    body: tuple[Stmt, ...]
    locals: tuple[Param | Data, ...] = ()
    loc: Loc = NOWHERE


@dataclass(frozen=True, slots=True)
class Model:
    """``model name { globals and kernels }`` -- an application model as written."""

    name: str
    globals: tuple[Param | Enum | Data | Import, ...]
    kernels: tuple[Kernel, ...]
    loc: Loc = NOWHERE


# ----------------------------------------------------------------------------------------------
# Machine components
# ----------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class SubComponent:
    """``socket [2] intel_xeon_x5660`` or ``memory ddr3`` inside a component."""

    kind: str
    name: str
    count: Expr | None = None
    loc: Loc = NOWHERE


@dataclass(frozen=True, slots=True)
class Property:
    """``property capacity [12 * giga]`` (or a flag, ``property fatTree``)."""

    name: str
    value: Expr | None = None
    loc: Loc = NOWHERE


@dataclass(frozen=True, slots=True)
class TraitDef:
    """``dp [base * 2]`` or ``separate(n) [n * base]`` after ``with`` in a resource."""

    name: str
    time: Expr
    arg: str | None = None
    loc: Loc = NOWHERE


@dataclass(frozen=True, slots=True)
class Resource:
    """``resource flops(number) [number / rate] with dp [base * 2], …``: how an amount of the
    resource maps to seconds, and how traits modify that time."""

    name: str
    arg: str
    time: Expr
    traits: tuple[TraitDef, ...] = ()
    loc: Loc = NOWHERE

    def trait(self, name: str) -> TraitDef | None:
        for t in self.traits:
            if t.name == name:
                return t
        return None


@dataclass(frozen=True, slots=True)
class Conflict:
    """``conflict loads, stores``: two resources that cannot overlap in time."""

    first: str
    second: str
    loc: Loc = NOWHERE


@dataclass(frozen=True, slots=True)
class Power:
    """``static power [w]`` or ``dynamic power [w]``."""

    kind: str
    value: Expr
    loc: Loc = NOWHERE


ComponentItem = SubComponent | Property | Resource | Conflict | Power


@dataclass(frozen=True, slots=True)
class Component:
    """``kind name { … }``: machine, node, socket, core, memory, cache, link, interconnect."""

    kind: str
    name: str
    items: tuple[ComponentItem, ...]
    loc: Loc = NOWHERE

    @property
    def subcomponents(self) -> tuple[SubComponent, ...]:
        return tuple(i for i in self.items if isinstance(i, SubComponent))

    @property
    def resources(self) -> tuple[Resource, ...]:
        return tuple(i for i in self.items if isinstance(i, Resource))

    @property
    def properties(self) -> tuple[Property, ...]:
        return tuple(i for i in self.items if isinstance(i, Property))

    @property
    def conflicts(self) -> tuple[Conflict, ...]:
        return tuple(i for i in self.items if isinstance(i, Conflict))

    @property
    def power(self) -> tuple[Power, ...]:
        return tuple(i for i in self.items if isinstance(i, Power))

    def resource(self, name: str) -> Resource | None:
        for r in self.resources:
            if r.name == name:
                return r
        return None


TopItem = Model | Param | Enum | Data | Include | Component


@dataclass(frozen=True, slots=True)
class File:
    """One parsed file: its top-level items in order, and the places where its text goes
    beyond Aspen's grammar (:mod:`sat.aspen.conformance`), which the reader accepts."""

    path: str
    items: tuple[TopItem, ...] = field(default_factory=tuple)
    leniencies: tuple[Leniency, ...] = field(default_factory=tuple)

    @property
    def models(self) -> tuple[Model, ...]:
        return tuple(i for i in self.items if isinstance(i, Model))

    @property
    def components(self) -> tuple[Component, ...]:
        return tuple(i for i in self.items if isinstance(i, Component))


def structure(node: object) -> object:
    """A node (or a tuple of them) without its places in the sources: equal for nodes that
    read alike (a kernel of two models with the same text, an import argument)."""
    if isinstance(node, (tuple, list)):
        return tuple(structure(x) for x in node)
    if hasattr(node, "__dataclass_fields__") and not isinstance(node, (type, Loc)):
        return (type(node).__name__, *(structure(getattr(node, f.name)) for f in fields(node)
                                       if f.name != "loc"))
    return node
