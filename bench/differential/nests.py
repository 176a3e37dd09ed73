"""Loop nests described once, printed as Fortran, C and an instrumented C truth program.

A nest is a small tree: loops (bounds linear in outer loop variables and size symbols, or the
``min`` of two such, a step, ascending or descending), branches on a data array, assignments
of an expression of array references to an array element, and calls of procedures.  Array
positions are 0-based storage positions, axis 0 contiguous (C prints the axes reversed,
Fortran 1-based); :mod:`emit` prints the three programs.
"""

from __future__ import annotations

from dataclasses import dataclass, field

# element types: bytes, C type, Fortran type
TYPES = {"r4": (4, "float", "real(4)"), "r8": (8, "double", "real(8)"),
         "i4": (4, "int", "integer(4)"), "i8": (8, "long", "integer(8)"),
         "c8": (16, "", "complex(8)")}


@dataclass
class Array:
    name: str
    etype: str
    extents: tuple[int, ...]  # axis 0 contiguous
    # contents the truth program stores (index arrays, branch data); None: never read for values
    values: list[int] | None = None

    @property
    def size(self) -> int:
        return TYPES[self.etype][0]

    @property
    def elements(self) -> int:
        n = 1
        for e in self.extents:
            n *= e
        return n


@dataclass(frozen=True)
class Lin:
    """``scale * var + var2 + off`` (var None: the constant ``off``; var2 a tile's origin)."""

    var: str | None
    off: int = 0
    scale: int = 1
    var2: str | None = None


@dataclass(frozen=True)
class Ind:
    """The value of an index array's element, plus ``off``."""

    ref: Ref
    off: int = 0


@dataclass(frozen=True)
class Ref:
    array: Array
    idx: tuple  # one Lin or Ind per axis, axis 0 first

    def __hash__(self) -> int:
        return hash((self.array.name, self.idx))

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Ref) and (self.array.name, self.idx) == (other.array.name,
                                                                          other.idx)


@dataclass(frozen=True)
class Const:
    value: float


@dataclass(frozen=True)
class Bin:
    op: str  # + - * /
    a: object
    b: object


@dataclass(frozen=True)
class Fn:
    name: str  # sqrt, exp
    a: object


@dataclass(frozen=True)
class Bound:
    """``sum(coef * name) + const``; names are loop variables or size symbols."""

    terms: tuple[tuple[str, int], ...] = ()
    const: int = 0

    def plus(self, k: int) -> Bound:
        return Bound(self.terms, self.const + k)


@dataclass(frozen=True)
class BMin:
    a: Bound
    b: Bound


@dataclass(frozen=True)
class BArr:
    """An index array's element plus ``off`` (a CSR row's start or end); satreport reads it
    as the problem parameter ``param``, set to ``value``."""

    ref: Ref
    off: int = 0
    param: str = ""
    value: int = 0


@dataclass
class Assign:
    lhs: Ref
    rhs: object
    acc: bool = False  # lhs = lhs + rhs
    sid: int = 0  # statement number, for the truth's counters


@dataclass
class If:
    cond: Ref  # taken when the element is > 0
    then: list
    els: list | None = None
    sid: int = 0


@dataclass
class Loop:
    var: str
    lo: object  # Bound or BMin, first value
    hi: object  # Bound or BMin, exclusive end
    body: list
    step: int | str = 1  # a number, or a size symbol (a run-time tile size)
    descending: bool = False
    # loop, section (Fortran a(lo:hi)), whole (Fortran whole arrays), dot_product or sum
    # (Fortran: the reduction of two whole arrays its statement accumulates)
    form: str = "loop"
    lid: int = 0


@dataclass
class Call:
    name: str


@dataclass
class Procedure:
    name: str
    body: list


@dataclass
class Nest:
    """One generated program: the entry procedure ``kernel_<id>`` and its callees."""

    ident: str
    lang: str  # c or fortran
    arrays: list[Array]
    procedures: list[Procedure]  # the entry first
    symbols: dict[str, int] = field(default_factory=dict)  # run-time sizes and their values
    classes: set[str] = field(default_factory=set)
    seed: int = 0
    # a gathered array's name -> how its indices run (attributes of a <gather> entry)
    index_runs: dict[str, dict[str, str]] = field(default_factory=dict)

    @property
    def entry(self) -> str:
        return self.procedures[0].name


def walk(body: list):
    """Every statement and loop of a body, depth first, with its enclosing loops."""
    stack = [(body, ())]
    while stack:
        items, outer = stack.pop()
        for item in items:
            yield item, outer
            if isinstance(item, Loop):
                stack.append((item.body, (*outer, item)))
            elif isinstance(item, If):
                stack.append((item.then, outer))
                if item.els:
                    stack.append((item.els, outer))


def refs_of(expr) -> list[Ref]:
    """Array references an expression reads, in evaluation order (index arrays first)."""
    if isinstance(expr, Ref):
        inner = [r for ix in expr.idx if isinstance(ix, Ind) for r in refs_of(ix.ref)]
        return [*inner, expr]
    if isinstance(expr, Bin):
        return [*refs_of(expr.a), *refs_of(expr.b)]
    if isinstance(expr, Fn):
        return refs_of(expr.a)
    return []


def index_reads(ref: Ref) -> list[Ref]:
    """The index-array elements read to locate ``ref``."""
    return [r for ix in ref.idx if isinstance(ix, Ind) for r in refs_of(ix.ref)]


def is_complex(expr) -> bool:
    if isinstance(expr, Ref):
        return expr.array.etype == "c8"
    if isinstance(expr, Bin):
        return is_complex(expr.a) or is_complex(expr.b)
    if isinstance(expr, Fn):
        return is_complex(expr.a)
    return False


def flops(expr) -> dict[str, int]:
    """Operations by kind, with satreport's documented rules for complex operands
    (z+w 2 adds, z+x 1 add, z*w 4 multiplies and 2 adds, z*x 2 multiplies)."""
    out = {"adds": 0, "multiplies": 0, "divides": 0, "specials": 0}

    def visit(e) -> None:
        if isinstance(e, Bin):
            visit(e.a)
            visit(e.b)
            both = is_complex(e.a) and is_complex(e.b)
            one = is_complex(e.a) or is_complex(e.b)
            if e.op in "+-":
                out["adds"] += 2 if both else 1
            elif e.op == "*":
                if both:
                    out["multiplies"] += 4
                    out["adds"] += 2
                else:
                    out["multiplies"] += 2 if one else 1
            else:
                out["divides"] += 2 if one else 1
        elif isinstance(e, Fn):
            visit(e.a)
            out["specials"] += 1
        elif isinstance(e, Ref):
            for ix in e.idx:
                if isinstance(ix, Ind):
                    visit(ix.ref)

    visit(expr)
    return out


def statement_flops(stmt: Assign) -> dict[str, int]:
    """Floating-point operations of a statement (integer arithmetic is no flop)."""
    if stmt.lhs.array.etype in ("i4", "i8"):
        return {"adds": 0, "multiplies": 0, "divides": 0, "specials": 0}
    out = flops(stmt.rhs)
    if stmt.acc:
        out["adds"] += 2 if stmt.lhs.array.etype == "c8" and is_complex(stmt.rhs) else 1
    return out
