"""Physical bounds of every nest: limits that need no model, checked on the evaluated model.

Each bound is worked out from the code description alone (the loops, their trip counts, the
references), never from the model's axes, reuse cases or layer conditions, so that a nest the
model gets wrong by orders of magnitude shows as a violation instead of a number no machine
could produce:

- **upper**: every reference missing at every execution. A level moves at most
  ``max(LineBytes, element)`` bytes per read reference and twice that per reference to a
  written array (the line read, then written back), each time its statement runs; the
  iterations the model counts are at most the runs of the innermost statements (the
  products of the trip counts of the loops around them, summed over the innermost loops);
- **lower**: the traffic to memory is at least the compulsory traffic: the distinct elements
  each array's references touch, once per run of the nest, reads and writes alike. The
  Loops row's traffic (ExaSAT's: every pass of a time loop from memory) counts them once per
  pass of a time loop as well; the last cache level's, whose passes reuse what stays in it,
  once;
- every number finite and >= 0, the time at least ``max(flops / peak, compulsory bytes /
  bandwidth)``.

Compulsory traffic, reference by reference: an affine reference touches as many elements as
the product of the trip counts of the distinct loops its subscripts step through (``b(j)``
in an ``i, j`` nest: the trips of ``j``; ``a(2*i)``: those of ``i``). A reference with no
such subscript (``a(1)``: a register, as are the few elements of ``t(j)`` stepping only
through a short literal loop ``do j = 1, 4``; ``x(col(k))``: a gather may hit one element again and
again), one inside a conditional arm (the arm may never run) or under a loop that may run no
trip counts nothing; an array counts its reference that touches the most. Loops whose range
moves with an enclosing loop are counted at their mean by the model: the upper bounds take
twice the mean plus one, the most an affine range runs; a reference counts one such loop it
steps through (exact), no more. Each bound is thus one the true traffic can never break,
whatever the cache (docs/physical-bounds.md).

A violation is a bug in satreport, not a property of the code: the run reports it (stderr,
the Notes at error level, the JSON's ``bounds_violations``) and leaves every number as the
model computed it.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field

from sat.ir import Body, Branch, InlinedCall, Loop, element_words
from sat.model import expr as E
from sat.model.context import ModelContext
from sat.model.elements import parameter_name
from sat.model.exasat.compulsory import is_repetition, time_passes
from sat.model.exasat.iteration import NestShape, NestSpace, trip_count
from sat.model.exasat.steps import SHORT_LEADING_TRIPS
from sat.model.nests import literal_trips
from sat.model.tables import CellValue, ModelResult
from sat.regex import LazyPattern

# relative slack for rounding: a bound is broken only beyond it
_SLACK = 1e-9


@dataclass
class NestBounds:
    """The bounds of one modelled nest, as expressions over the parameters, beside the
    model's quantities they hold: its Loops row, Levels rows and Arrays rows."""

    procedure: str
    file: str
    line: int
    row: dict[str, CellValue]
    levels: list[dict[str, CellValue]]
    arrays: list[dict[str, CellValue]]
    iterations: E.Quantity  # the model's: sweeps x X x Y x Z
    executed: E.Expr  # the model's iterations times the chance the nest runs
    most_iterations: E.Quantity  # runs of the innermost statements
    most_bytes: E.Quantity  # every reference missing at every run of its statement
    compulsory_bytes: E.Quantity  # distinct elements, each once per repetition
    peak_gflops: E.Expr
    bandwidth_gbs: E.Expr
    warm: E.Expr  # WarmCaches: a level may hold the data from the previous run
    # distinct elements once (the passes of a time loop reuse what stays in the last level)
    distinct_bytes: E.Quantity | None = None


@dataclass
class Violation:
    """A model number outside its physical bound."""

    procedure: str
    file: str
    line: int
    quantity: str  # the JSON field: traffic_gb, bytes_per_iteration, iterations, time_s, ...
    value: float
    bound: float
    kind: str  # "upper", "lower" or "finite" (a number that is none: inf, NaN)
    why: str = ""  # what the bound is, in words
    level: str | None = None  # a Levels row's level
    array: str | None = None  # an Arrays row's array

    @property
    def message(self) -> str:
        """The one-line message (without the place)."""
        where = f" at level {self.level}" if self.level else \
            f" of array {self.array}" if self.array else ""
        what = f"{self.quantity}{where} of the nest of {self.procedure} is {self.value:g}"
        tail = "a bug in satreport, the number is shown as computed"
        if self.kind == "finite":
            return f"{what}: every number must be finite and >= 0 ({tail})"
        relation = "<=" if self.kind == "upper" else ">="
        return f"{what}, outside its physical bound {relation} {self.bound:g} ({self.why}): {tail}"

    def as_dict(self) -> dict[str, str | int | float | None]:
        """The JSON's ``bounds_violations`` entry."""
        return {"procedure": self.procedure, "file": self.file, "line": self.line,
                "level": self.level, **({"array": self.array} if self.array else {}),
                "quantity": self.quantity, "value": self.value,
                "bound": None if self.kind == "finite" else self.bound, "kind": self.kind,
                "message": self.message}


# ------------------------------------------------------------------ building the bounds


@dataclass
class _Walk:
    """Sums gathered over the bodies of one nest."""

    most_bytes: list[E.Expr] = field(default_factory=list)
    innermost: list[E.Expr] = field(default_factory=list)
    # array key -> the elements each of its (unconditional) references touches
    touched: dict[str, list[E.Expr]] = field(default_factory=dict)
    sizes: dict[str, E.Expr] = field(default_factory=dict)
    written: set[str] = field(default_factory=set)
    # the procedure's own arrays the nest writes: scratch, no compulsory traffic (by name)
    scratch: set[str] = field(default_factory=set)
    # loops whose range moves with an enclosing loop (counted at their mean), by id
    moving: set[int] = field(default_factory=set)
    # the most trips of each loop, by id: a moving loop's at most twice its mean, plus one
    most_trips: dict[int, E.Expr] = field(default_factory=dict)


def _written_arrays(loop: Loop) -> set[str]:
    return {array.key for body in loop.levels() for array in body.arrays if array.writes}


def _scratch_arrays(loop: Loop, procedure) -> set[str]:
    """Arrays local to the procedure that the nest writes (``X = q(i,j,k,1:n)`` then
    ``call f(X)``): the procedure's own data, which dies with it, so nothing of it must
    reach memory, and what the nest writes before reading needs nothing from memory either."""
    local = {v.name.lower() for v in procedure.locals}
    return {array.name.lower() for body in loop.levels() for array in body.arrays
            if array.writes and array.name.lower() in local}


_SECTION_END = LazyPattern(r"^(.*?)([+-]\d+)?$")


def _section_extent(text: str) -> int:
    """Elements of a section ``lo:hi`` whose ends differ by a number (``k-1:k+2``: 4,
    ``-1:2``: 4); 1 for anything else (a single element, an extent only the declaration
    knows)."""
    ends = text.replace(" ", "").split(":")
    if len(ends) != 2 or not all(ends):
        return 1
    if all(re.fullmatch(r"[+-]?\d+", end) for end in ends):
        low, high = int(ends[0]), int(ends[1])
    else:
        (low_base, low_shift), (high_base, high_shift) = (
            _SECTION_END.match(end).groups() for end in ends)  # type: ignore[union-attr]
        if low_base != high_base:
            return 1
        low, high = int(low_shift or 0), int(high_shift or 0)
    return max(1, high - low + 1)


def _section_elements(access) -> int:
    """Elements one run of a reference touches: the product of its sections' extents
    (``cons(i,j,k-1:k+2,n)``, four elements on four planes, is one reference)."""
    return math.prod(_section_extent(offset) for offset in access.offsets
                     if isinstance(offset, str) and ":" in offset)


def _element_size(ctx: ModelContext, procedure: str, name: str, datatype: str) -> E.Expr:
    """The model's element size parameter of the array when it has one, else its declared
    type's words x ``WordBytes`` (no parameter is made here)."""
    parameter = parameter_name(ctx, procedure, name)
    if parameter in ctx.params:
        return E.Param(parameter)
    return E.mul(element_words(datatype), ctx.param("WordBytes"))


def _affine_loop(access, d: int, chain: tuple[Loop, ...]) -> Loop | None:
    """The loop whose variable dimension ``d`` of the reference steps through one element
    per trip (``a(i-1)``, ``a(2*i)``, ``a(i+n*j)``), None for any other subscript (a fixed
    place, a gather ``x(col(k))``, an offset moving with the variable itself)."""
    var = access.loopvars[d]
    if not var:
        return None
    if d < len(access.subscripts):  # what the front end found the subscript to be
        if access.subscripts[d].kind != "induction":
            return None
    else:  # without it (a code description from a file), an offset moving with the variable
        offset = access.offsets[d] if d < len(access.offsets) else 0  # is no step of one
        if isinstance(offset, str) and re.search(rf"\b{re.escape(var)}\b", offset, re.I):
            return None
    return next((lp for lp in reversed(chain) if lp.loopvar.lower() == var.lower()), None)


def _unrolled(loop: Loop) -> bool:
    """A loop of a few trips written as numbers (``do j = 1, 4``), which a compiler unrolls:
    the elements a reference steps through with it alone are as many fixed places."""
    trips = literal_trips(loop)
    return trips is not None and trips <= SHORT_LEADING_TRIPS


def _distinct_elements(access, chain: tuple[Loop, ...], trips: dict[int, E.Expr],
                       moving: set[int]) -> E.Expr:
    """Elements one reference surely touches over a run of the nest: the trips of each
    distinct loop its affine subscripts step through, nothing when none does (an element at
    a fixed place stays in a register, a gather's are its own model's; so do the few elements
    of a reference that steps through short literal loops only, ``avgtime(j)`` with ``do j
    = 1, 4``: fixed places once unrolled), nothing either when
    a loop around it runs no trip. A loop whose range moves with an enclosing loop
    (``moving``, counted at its mean) counts when it is the only one the reference steps
    through: its mean is exact over its enclosing loops. Otherwise the reference counts
    nothing: a product of means may exceed the sum of products, and a moving loop it does not
    step through may run no trip at some places."""
    stepping: list[Loop] = []
    for d in range(len(access.loopvars)):
        loop = _affine_loop(access, d, chain)
        if loop is not None and all(loop is not found for found in stepping):
            stepping.append(loop)
    others = [lp for lp in chain if all(lp is not s for s in stepping)]
    if stepping and all(_unrolled(lp) for lp in stepping):
        return E.Num(0)  # a few fixed places once the short loops are unrolled: registers
    if not stepping or sum(id(lp) in moving for lp in stepping) > 1 or \
            any(id(lp) in moving for lp in others):
        return E.Num(0)
    return E.mul(*[trips[id(lp)] for lp in stepping],
                 *[E.minimum(1, trips[id(lp)]) for lp in others])


def _walk(body: Body, runs: E.Expr, chain: tuple[Loop, ...], conditional: bool,
          ctx: ModelContext, procedure: str, trips: dict[int, E.Expr], out: _Walk) -> None:
    """Add the bytes and elements of ``body``'s references (its statements run ``runs``
    times) and recurse into its loops and arms."""
    line = ctx.param("LineBytes")
    refs: list[E.Expr] = []
    for array in body.arrays:
        size = out.sizes.setdefault(array.key, _element_size(ctx, procedure, array.name,
                                                             array.datatype))
        per_ref = E.maximum(line, size)
        factor = 2 if array.key in out.written else 1
        count = sum(max(1, a.reads + a.writes) * _section_elements(a) for a in array.accesses)
        refs.append(E.mul(factor * count, per_ref))
        if not conditional and array.name.lower() not in out.scratch:
            out.touched.setdefault(array.key, []).extend(
                _distinct_elements(a, chain, trips, out.moving) for a in array.accesses)
    if refs:
        out.most_bytes.append(E.mul(runs, E.add(*refs)))
    for loop in body.loops:
        inner = E.mul(runs, out.most_trips[id(loop)])
        if not any(True for _ in loop.all_loops()):
            out.innermost.append(inner)
        _walk(loop, inner, (*chain, loop), conditional, ctx, procedure, trips, out)
    for branch in body.branches:
        times = branch.times if isinstance(branch, InlinedCall) else 1
        _walk(branch, E.mul(runs, times), chain,
              conditional or not isinstance(branch, InlinedCall), ctx, procedure, trips, out)


def _repetitions(shape: NestShape, trips: dict[int, E.Expr]) -> E.Expr:
    """Runs of the nest's grid sweep that count the same elements again: the passes of a
    time loop (:func:`sat.model.exasat.compulsory.time_passes`) whose variable subscripts no
    reference, and the calls written in once for several. The nest's own repetition loops
    touch the same elements, counted once."""
    used = {var.lower() for body in shape.loop.levels() for array in body.arrays
            for access in array.accesses for var in access.loopvars if var}
    passes = time_passes(shape.sweep_loops, {id(lp) for a in shape.axis_loops for lp in a})
    loops = [lp for lp in shape.sweep_loops
             if id(lp) in passes and is_repetition(lp, used)]
    return E.mul(*[trips[id(lp)] for lp in loops], *[arm.count for arm in shape.repeats])


def nest_bounds(shape: NestShape, space: NestSpace, row: dict[str, CellValue],
                levels: list[dict[str, CellValue]], arrays: list[dict[str, CellValue]],
                ctx: ModelContext) -> NestBounds:
    """The physical bounds of one nest (see the module's docstring)."""
    loop = shape.loop
    trips = {id(lp): trip_count(lp, ctx) for lp in (loop, *loop.all_loops())}
    for tile, inner, axis in shape.tiles:  # a tile loop and its element loop: the extent
        trips[id(tile)] = E.Num(1)
        trips[id(inner)] = E.Ref(space.extent[axis])
    moving = {id(lp) for lp in (loop, *loop.all_loops()) if id(lp) in ctx.averaged_loops}
    most = {key: E.add(E.mul(2, count), 1) if key in moving else count
            for key, count in trips.items()}
    out = _Walk(written=_written_arrays(loop), moving=moving, most_trips=most,
                scratch=_scratch_arrays(loop, shape.procedure))
    procedure = shape.procedure.name
    _walk(Branch(loops=[loop]), E.Num(1), (), False, ctx, procedure, trips, out)

    def quantity(name: str, expr: E.Expr, unit: str, label: str) -> E.Quantity:
        return E.Quantity(("bounds", shape.ident, name), expr, unit, label)

    distinct = [E.mul(E.maximum(*elements), out.sizes[key])
                for key, elements in out.touched.items() if elements]
    once = E.mul(space.probability, E.add(*distinct))
    compulsory = E.mul(_repetitions(shape, trips), once)
    cores = ctx.param("Cores")
    return NestBounds(
        procedure, shape.file, loop.line, row, levels, arrays, space.iterations,
        E.mul(space.probability, space.iterations),
        quantity("most_iterations", E.add(*out.innermost) if out.innermost else E.Num(1),
                 "iterations", "runs of the innermost statements"),
        quantity("most_bytes", E.add(*out.most_bytes), "B",
                 "every reference missing at every run of its statement"),
        quantity("compulsory_bytes", compulsory, "B", "compulsory traffic"),
        E.mul(ctx.param("GflopsPerCore"), cores), E.mul(ctx.param("GBsPerCore"), cores),
        E.Param("WarmCaches") if "WarmCaches" in ctx.params else E.Num(0),
        quantity("distinct_bytes", once, "B", "distinct bytes touched"))


# ------------------------------------------------------------------ checking them

# numbers that are changes, of either sign: a level's traffic of the gathers less the streams
# they replace
_SIGNED = frozenset({"gathers_gb"})
# the Loops row's traffic in every reuse case, and the one the nest takes
_TRAFFIC = ("traffic_blocks_gb", "traffic_planes_gb", "traffic_pencils_gb", "traffic_within_gb",
            "traffic_none_gb", "traffic_gb")


def _value(cell: CellValue, env: E.Env) -> float | None:
    return cell.value(env) if isinstance(cell, E.Quantity) else None


def _nest_violations(nest: NestBounds, env: E.Env) -> list[Violation]:
    """Every bound one nest breaks."""
    found: list[Violation] = []

    def broken(quantity: str, value: float | None, kind: str, bound: float, why: str,
               level: str | None = None) -> None:
        if value is None:
            return
        slack = _SLACK * abs(bound)
        if (kind == "upper" and value > bound + slack) or \
                (kind == "lower" and value < bound - slack):
            found.append(Violation(nest.procedure, nest.file, nest.line, quantity, value,
                                   bound, kind, why, level))

    rows = [(None, None, nest.row), *((str(r.get("level")), None, r) for r in nest.levels),
            *((None, str(r.get("array")), r) for r in nest.arrays)]
    for level, array, row in rows:
        for key, cell in row.items():
            value = _value(cell, env)
            if value is not None and not math.isfinite(value) or \
                    value is not None and value < 0 and key not in _SIGNED:
                found.append(Violation(nest.procedure, nest.file, nest.line, key, value, 0.0,
                                       "finite" if not math.isfinite(value) else "lower",
                                       "every number >= 0", level, array))
    if found:  # the bounds below compare numbers that are not numbers
        return found
    most_bytes = nest.most_bytes.value(env)
    compulsory = nest.compulsory_bytes.value(env)
    broken("iterations", nest.iterations.value(env), "upper", nest.most_iterations.value(env),
           "the runs of the innermost statements: the products of the trip counts of the "
           "loops around them")
    executed = nest.executed.evaluate(env)
    miss = "every reference missing at every run, a write-back for each to a written array"
    least = "compulsory traffic: the distinct elements the nest touches, each once"
    if executed > 0:
        for level in nest.levels:
            broken("bytes_per_iteration", _value(level.get("bytes_per_iteration"), env),
                   "upper", most_bytes / executed, miss, str(level.get("level")))
    for key in _TRAFFIC:
        broken(key, _value(nest.row.get(key), env), "upper", most_bytes / 1e9, miss)
        broken(key, _value(nest.row.get(key), env), "lower", compulsory / 1e9, least)
    if nest.levels and not nest.warm.evaluate(env):
        memory = nest.levels[-1]
        once = nest.distinct_bytes.value(env) if nest.distinct_bytes is not None else \
            compulsory
        broken("traffic_gb", _value(memory.get("traffic_gb"), env), "lower", once / 1e9,
               least, str(memory.get("level")))
    time = _value(nest.row.get("time_s"), env)
    gflops = _value(nest.row.get("gflops"), env) or 0.0
    peak, bandwidth = nest.peak_gflops.evaluate(env), nest.bandwidth_gbs.evaluate(env)
    floor = max(gflops / peak if peak > 0 else 0.0,
                compulsory / 1e9 / bandwidth if bandwidth > 0 else 0.0)
    broken("time_s", time, "lower", floor, "max(flops / peak, compulsory bytes / bandwidth)")
    return found


def violations(result: ModelResult, env: E.Env | None = None) -> list[Violation]:
    """Every physical bound a modelled nest breaks, in the Loops sheet's order."""
    env = env or result.env()
    return [v for nest in result.bounds for v in _nest_violations(nest, env)]
