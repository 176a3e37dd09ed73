"""The code description (IR): plain dataclasses, the only thing front ends and the model share.

program -> procedures -> loops -> (scalars, array-component pairs -> accesses, calls, branches).

Counts on a :class:`Body` (a loop level, a branch arm, a procedure's straight-line code) are
*exclusive*: they describe the statements of that level only, never those of child loops.
Expressions (loop bounds, strides, symbolic offsets, array extents) are kept as source-like
strings in lower case (``"lo(3)"``, ``"hi(1)+ng"``); :mod:`sat.frontend.subscripts` turns them
into sympy when a consumer needs algebra.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Literal

from sat.regex import LazyPattern

AccessType = Literal["readonly", "writeonly", "readwrite", "writeread"]
SubscriptKind = Literal["induction", "indirect", "invariant", "irregular"]
FirstAccess = Literal["load", "store", ""]
Layout = Literal["column-major", "row-major"]
# an actual argument given by keyword: ``n=100`` (not ``n==100``)
_KEYWORD_ARGUMENT = LazyPattern(r"^\s*([A-Za-z_]\w*)\s*=(?!=)\s*(.*)$", re.S)


def element_words(datatype: str) -> float:
    """Words of ``WordBytes`` (the size of a double-precision real) one element takes.

    A double-precision complex (Fortran ``complex(8)``, ``complex*16``, ``double complex``; C
    ``double _Complex``) and a quadruple-precision real (``long double``) are two words, 16
    bytes; a single-precision real or complex (``float``, Fortran ``real``, ``complex``) and
    a ``long`` (Fortran ``integer(8)``) one; an ``int`` (Fortran ``integer``, ``logical``)
    half a word, 4 bytes; a ``short`` a quarter, a ``char`` an eighth; a derived type or
    structure of ``n`` bytes, ``struct*n``, ``n``/8 words.  Element sizes are
    fractions of ``WordBytes`` so that ExaSAT's meaning of ``WordBytes`` (the size of every
    double-precision element) still scales every array with it.
    """
    text = datatype.lower()
    if "complex" in text:
        return 2 if any(t in text for t in ("double", "long", "16")) else 1
    if text in ("long double", "quad"):
        return 2
    if text.startswith("struct*") and text[7:].isdigit() and int(text[7:]) > 0:
        return int(text[7:]) / 8
    return _WORDS.get(text, 1)


def struct_datatype(size: int) -> str:
    """The datatype of an element that is a derived type (a C structure) of ``size`` bytes."""
    return f"struct*{size}"


# element sizes in words of 8 bytes, by IR datatype (anything else: one word)
_WORDS: dict[str, float] = {"double": 1, "float": 0.5, "long": 1, "int": 0.5, "bool": 0.5,
                            "short": 0.25, "char": 0.125}


@dataclass(frozen=True)
class Subscript:
    """What one subscript of an access is, for recognising idioms
    (:mod:`sat.model.irregular.idioms`).

    - ``induction``: ``coeff*var + offset`` in the loop variable ``var`` (``a(i-1)``: coeff 1,
      offset -1; ``a(2*i)``: coeff 2, a strided access). ``coeff`` and ``offset`` are text
      where they are symbolic (``a(i+n*j)`` in an ``i`` loop: offset ``"j*n"``).
    - ``indirect``: an element of the index array ``index`` picked by the loop variable
      ``var`` (``x(col(k))``: index ``col``, var ``k``), also through a scalar set from one
      (``j = col(k)`` then ``x(j)``).
      When a loop variable inside the index's one also moves it with coefficient 1 or -1
      (``x(start(ib)+k-1)``: index ``start``, var ``ib``), the element picked starts a
      contiguous run along that variable, ``run`` (``k``): a gather of blocks.
    - ``invariant``: no loop variable (``a(3)``, ``a(n)``); an index array read at a fixed
      place (``a(idx(1))``) keeps its name in ``index``, and is no gather.
    - ``irregular``: depends on a loop variable in a way that cannot be analysed (a function
      result, a pointer dereference, ``a(i*i)``).

    ``text`` is the subscript as written (compact, lower case in Fortran).
    """

    kind: SubscriptKind
    var: str = ""
    coeff: int | str = 1
    offset: int | str = 0
    index: str = ""
    text: str = ""
    run: str = ""


@dataclass
class Access:
    """One reference pattern of an array-component pair inside one loop level.

    ``offsets[d]`` is the offset in dimension ``d`` (array dimension order) relative to
    ``loopvars[d]``; where ``loopvars[d]`` is ``""`` the subscript does not depend on a loop
    variable and ``offsets[d]`` is the subscript itself (an int or a symbol such as ``"imx"``).

    For idiom recognition, the front ends add per dimension what the subscript is
    (``subscripts``, empty when unknown: a code description of the original tool) and the
    source line of the first statement with this reference (``line``, 0 when unknown).
    """

    offsets: tuple[int | str, ...]
    loopvars: tuple[str, ...]
    reads: int = 0
    writes: int = 0
    subscripts: tuple[Subscript, ...] = ()
    line: int = 0


@dataclass
class Array:
    """An array-component pair as used in one loop level (``q(:,:,:,qu)`` is ``q``/``qu``)."""

    name: str
    component: str = ""
    datatype: str = "double"
    accesstype: AccessType = "readonly"
    accesses: list[Access] = field(default_factory=list)
    firstaccess: FirstAccess = ""

    @property
    def key(self) -> str:
        """Display key of the pair, ``name.component`` as in the original sheet."""
        return f"{self.name}.{self.component}" if self.component else self.name

    @property
    def reads(self) -> int:
        return sum(a.reads for a in self.accesses)

    @property
    def writes(self) -> int:
        return sum(a.writes for a in self.accesses)


@dataclass
class Scalar:
    """A scalar (state variable) as used in one loop level.

    For idiom recognition (a value carried across iterations): ``line`` is the first line
    that writes it at this level (else the first that reads it; 0 when unknown), ``sources``
    the variables (scalars and arrays) read by the statements that write it at this level.
    """

    name: str
    datatype: str = "double"
    is_constant: bool = False
    accesstype: AccessType = "readonly"
    reads: int = 0
    writes: int = 0
    line: int = 0
    sources: tuple[str, ...] = ()


@dataclass
class Call:
    """A call to a user procedure (or an unknown function) from this level."""

    name: str
    line: int = 0
    args: list[str] = field(default_factory=list)
    # set by the model when it writes the callee's work into the calling nest
    followed: bool = False


@dataclass
class Comm:
    """A communication point (e.g. a ghost-cell exchange) named in the source."""

    name: str
    line: int = 0
    arrays: list[str] = field(default_factory=list)


@dataclass
class Constant:
    """A named constant (Fortran ``parameter``) used in a loop bound or an array extent.

    The model gives the symbol this value instead of a guessed default; a user can still
    override it like any problem parameter.

    ``kind`` is ``parameter`` (a Fortran named constant), ``initialised`` (a C variable
    initialised with a constant and never changed: ``int nm = OUTER;``) or ``argument`` (a
    dummy argument every call passes the same constant: ``call kernel(4000, a)``, at the
    first call's place).  A constant defined
    from symbols that have no value here (``parameter (lt = 4*lx1*lelt)`` with ``lx1`` from
    an include that was not found) keeps its ``expression`` over them (``value`` is then
    NaN): the model makes it a formula of those symbols.
    """

    name: str
    value: float
    file: str = ""
    line: int = 0
    kind: str = "parameter"
    expression: str = ""


@dataclass
class Body:
    """Straight-line work at one level: flops by kind, scalars, arrays, calls, branches, loops."""

    adds: int = 0
    multiplies: int = 0
    divides: int = 0
    specials: int = 0
    scalars: list[Scalar] = field(default_factory=list)
    arrays: list[Array] = field(default_factory=list)
    calls: list[Call] = field(default_factory=list)
    branches: list[Branch] = field(default_factory=list)
    loops: list[Loop] = field(default_factory=list)

    def all_loops(self) -> Iterator[Loop]:
        """Every loop below this level, depth first in program order (branches included)."""
        for loop in self.loops:
            yield loop
            yield from loop.all_loops()
        for branch in self.branches:
            yield from branch.all_loops()

    def levels(self) -> Iterator[Body]:
        """This body and every body below it: the loop levels and the branch arms, depth
        first in program order."""
        stack: list[Body] = [self]
        while stack:
            body = stack.pop()
            yield body
            stack.extend(reversed(body.branches))
            stack.extend(reversed(body.loops))

    def counted_levels(self) -> Iterator[tuple[Body, int]]:
        """:meth:`levels` with how many times each runs per run of this body: the product
        of the :attr:`InlinedCall.count` of the written-in calls between them (1 for this
        body)."""
        stack: list[tuple[Body, int]] = [(self, 1)]
        while stack:
            body, times = stack.pop()
            yield body, times
            stack.extend((b, times * b.times) for b in reversed(body.branches))
            stack.extend((b, times) for b in reversed(body.loops))

    @property
    def times(self) -> int:
        """Runs of this body per run of the level that holds it, branch probability apart:
        1, except for a call written in once for several identical calls."""
        return 1

    def arms(self) -> Iterator[Body]:
        """This level and its branch arms, nested ones too, in program order (not its inner
        loops): where the level's own statements are."""
        stack: list[Body] = [self]
        while stack:
            body = stack.pop()
            yield body
            stack.extend(reversed(body.branches))


@dataclass
class Branch(Body):
    """One arm of a conditional: its work happens with some probability.

    ``arm``/``arms`` place it in its if/else-if/else chain (``arms`` counts an implicit empty
    else); ``condition`` is the source text of the test (``"else"`` for the else arm).
    """

    condition: str = ""
    line: int = 0
    arm: int = 0
    arms: int = 1


@dataclass
class InlinedCall(Branch):
    """The work of a called procedure written into the calling level: an arm taken every
    time. The model makes these (``sat.model.calls``); front ends and files never hold them.

    ``count`` identical calls at one level (the same callee, the same arguments) are written
    in once and run ``count`` times, as a loop of ``count`` trips around one call would: the
    callee is modelled once per distinct call, not once per call, so that a chain of
    procedures each calling the next twice costs its depth, not 2^depth.
    """

    callee: str = ""
    count: int = 1

    @property
    def times(self) -> int:
        return self.count


@dataclass
class Loop(Body):
    """One loop level. ``kind`` is ``do``, ``concurrent``, ``while``, ``array`` (array syntax)
    or ``tile``.

    A ``tile`` loop steps over the blocks of a loop written tiled in the source; its element
    loops carry the whole range (``lower .. upper``) and the block size in ``tile``
    (:mod:`sat.frontend.tiles`), so a tile loop adds no iterations of its own.
    """

    line: int = 0
    loopvar: str = ""
    lower: str = "1"
    upper: str = "1"
    stride: str = "1"
    kind: str = "do"
    file: str = ""
    tile: str = ""  # block size of the source's own tiling ("" when not tiled)
    # bounds that are numbers only because a -D definition made them so (-D N=10 in i < N):
    # problem sizes, not literals (sat.frontend.sizes)
    sized: bool = False


@dataclass
class Variable:
    """A variable of a procedure, local or nonlocal (dummy argument, module variable)."""

    name: str
    datatype: str = ""
    shape: tuple[str, ...] = ()
    intent: str = ""


@dataclass
class Procedure(Body):
    """A subroutine or function with its straight-line work, loops, locals and nonlocals."""

    name: str = ""
    file: str = ""
    line: int = 0
    locals: list[Variable] = field(default_factory=list)
    nonlocals: list[Variable] = field(default_factory=list)
    comms: list[Comm] = field(default_factory=list)
    layout: Layout = "column-major"
    constants: list[Constant] = field(default_factory=list)
    dummies: list[str] = field(default_factory=list)  # dummy arguments (parameters), in order

    def actuals(self, call: Call) -> dict[str, str]:
        """Dummy name (lower case) -> the call's actual argument text (positional, then
        ``name=value``)."""
        found: dict[str, str] = {}
        position = 0
        dummies = [d.lower() for d in self.dummies]
        for text in call.args:
            keyword = _KEYWORD_ARGUMENT.match(text)
            if keyword and keyword.group(1).lower() in dummies:
                found[keyword.group(1).lower()] = keyword.group(2)
            elif position < len(dummies):
                found[dummies[position]] = text
                position += 1
        return found


@dataclass
class ParsedBy:
    """Which parser read one source file, and why the fast one did not (``reason``)."""

    file: str
    parser: str  # "tree-sitter" or "fparser"
    reason: str = ""


@dataclass
class Diagnostic:
    """A diagnostic tied to a place in the sources."""

    message: str
    file: str = ""
    line: int = 0

    def __str__(self) -> str:
        where = f"{self.file}:{self.line}: " if self.file and self.line else (
            f"{self.file}: " if self.file else "")
        return f"{where}{self.message}"


@dataclass
class Program:
    """Everything read from the sources of one run."""

    procedures: list[Procedure] = field(default_factory=list)
    sources: list[str] = field(default_factory=list)
    warnings: list[Diagnostic] = field(default_factory=list)
    # Fortran files: which parser read each (not part of the code description: not compared)
    parsed_by: list[ParsedBy] = field(default_factory=list, compare=False)

    def procedure(self, name: str) -> Procedure | None:
        name = name.lower()
        return next((p for p in self.procedures if p.name.lower() == name), None)
