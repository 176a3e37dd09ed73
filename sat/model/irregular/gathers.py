"""The memory traffic of irregular accesses: gathers and scatters (the Gathers sheet).

A gather (``x(col(k))``) or scatter (``y(row(k)) = ...``) moves whole cache lines per
reference unless its indices are clustered, and whether those lines stay in cache depends on
the range of addresses the indices span (PIR's gather/scatter idiom and its address range).
Each gather or scatter instance (per nest and indexed array, as the Idioms sheet finds them)
gets two problem parameters, ``--set``-able and live in the workbook:

- ``RangeKB_<proc>_<line>_<array>``: the KiB the indices span. Default: the indexed array's
  size from its declaration, a derived default over the extents' symbols and ``WordBytes``
  (:func:`sat.model.context.derive_default`: it follows them until a value is given), else,
  with no declared extent, one element per reference.
- ``ClusterElems_<proc>_<line>_<array>``: the locality of the indices, as the elements used
  per cache line fetched: consecutive references that fall on the line the previous one
  brought in. 1 (the default) is uniformly random indices; ``LineBytes/WordBytes`` (8 for
  doubles on 64-byte lines) is unit stride or perfectly clustered indices; a stride of ``s``
  elements is ``MAX(1, LineBytes/(s*WordBytes))``; indices drawn at random in a window of
  ``W`` elements that moves along the array are about ``W*WordBytes/LineBytes`` lines reused
  for every ``W`` references, hence ``ClusterElems`` = the references per line of the window.

With ``V = references / ClusterElems`` line visits and ``L = RangeKB*1024/LineBytes`` lines in
the range, the cache a gather can keep lines in is what the nest's other streams leave of it,
``CacheLeftKB = MAX(0, CacheKB - other)``, ``other`` being the nest's actual working set for
the reuse case it takes minus the indexed array's own share at that level (its cell share when
the level holds only the cell working set). A line is missed the first time
(compulsory: ``MIN(V, L)`` lines) and, on a later visit, with the probability that uniform
indices over the range do not hit a line still in cache:
``MissFraction = IF(RangeKB <= CacheLeftKB, 0, 1 - CacheLeftKB/RangeKB)``. So

    lines = MIN(V, L) + (V - MIN(V, L)) * MissFraction
    bytes = lines * LineBytes * (2 if the array is written through the index else 1)

(a scatter's line is read for ownership and written back). The time is those bytes at the
nest's memory bandwidth (``GBsPerCore * Cores``).

At each level of a machine with several cache levels (the Levels sheet) a gather's lines
compete in an LRU cache of the level's capacity with the lines the nest's other arrays
bring in (:mod:`sat.model.irregular.gather_lru`, from :class:`GatherTraffic`): the distinct
lines of its draws when its range stays, more when the streams push its lines out.

Its compulsory traffic (the Loops sheet's reuse between blocks) is the distinct elements
the indices pick, each once: ``k`` references whose indices are drawn independently and
uniformly over the range's ``m`` elements pick ``m*(1 - (1 - 1/m)^k)`` distinct ones on
average (:func:`distinct_elements`; never more than ``k`` nor ``m``). A loop around the
gather that subscripts nothing reads the same indices again and draws nothing new; each
pass of a time loop counts its distinct elements afresh (:func:`repeated_draws`). Sorted
indices are the same draws in order, the same count; indices clustered in small windows
repeat more and pick fewer, which the model does not know from the code. Those elements
cost what the array's elements cost in the compulsory count: ``ReadCost``, or
``ReadWriteCost`` when written through the index.

On the Loops sheet this replaces what the ExaSAT model counted for the array: it saw
``x(col(k))`` as an array read once per grid point of the nest, ``ReadCost`` bytes per
point like a unit-stride stream, and that share of the nest's actual traffic
(``Replaced GB``) gives way to the gather's bytes when every reference of the array in the
nest goes through an index array (with direct references as well, the gather's bytes are
added on top). Nests without gathers or scatters are unchanged.

A gather or scatter in a procedure the nest calls (its loop written into the nest,
:mod:`sat.model.calls`) is the nest's: the callee's loop is the instance's, and its range
defaults to the callee's declaration of the array (:attr:`ModelContext.read_procedures`).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field, replace

from sat.ir import Body, InlinedCall, Loop, Procedure
from sat.model import expr as E
from sat.model.context import ExpressionError, ModelContext, derive_default
from sat.model.elements import element_bytes
from sat.model.exasat.compulsory import is_repetition, time_passes
from sat.model.exasat.iteration import NestShape, NestSpace, trip_count
from sat.model.exasat.memory import GB, KIB, NestMemory
from sat.model.irregular.gather_lru import RowLevelArray, row_level_arrays
from sat.model.irregular.gather_runs import (
    RUN_NOTE,
    RunsAtLevel,
    entry_for,
    gather_parameter,
    index_runs,
)
from sat.model.tables import ArrayTraffic, CellValue, Column, Table, nest_columns
from sat.model.tables import column as _c
from sat.parameter import symbol_to_name

IDIOMS = ("gather", "scatter")

NOTE = ("Gathers sheet: a gather or scatter moves whole cache lines. Per instance, RangeKB_ "
        "(the KiB its indices span; default the indexed array's declared size) and "
        "ClusterElems_ (elements used per line fetched: 1 uniformly random indices, "
        "LineBytes/WordBytes unit stride or perfectly clustered) give: line visits V = "
        "references / ClusterElems; the cache left = CacheKB minus the nest's other streams' "
        "working set; a miss fraction 1 - left/range (0 when the range fits) of the visits "
        "after the first one to each of the range's lines; bytes = lines x LineBytes (x 2 "
        "when written: read for ownership and write-back). The nest's traffic on the Loops "
        "sheet takes these bytes instead of the ExaSAT count for the array (ReadCost per "
        "point, as a stream) when all its references in the nest are indirect. Its "
        "compulsory traffic (reuse between blocks) is the distinct elements the indices "
        "pick, m x (1 - (1 - 1/m)^k) for k references drawn uniformly over the range's m "
        "elements (a loop around it that subscripts nothing reads the same indices again: no "
        "new draws; each pass of a time loop around a call counts afresh). A gather or "
        "scatter in a procedure the nest calls is the nest's (its range the callee's "
        "declaration of the array). " + RUN_NOTE)

GATHER_COLUMNS: list[Column] = [
    *nest_columns(),
    _c("loop_line", "Loop line", "", "Line of the loop whose variable steps through the index "
       "array."),
    _c("idiom", "Idiom", "", "gather (read through an index array), scatter (written "
       "through one), or both."),
    _c("array", "Array", "", "The indexed array."),
    _c("index", "Index array", "", "The index array that picks the elements."),
    _c("references", "References", "per run", "References through the index per run of the "
       "nest: the trips of the loops down to the instance's loop, times the distinct "
       "indirect references of the array there.", "Accesses"),
    _c("range_kb", "Range", "KiB", "KiB the indices span: the RangeKB_ parameter.", "Indices"),
    _c("cluster", "Cluster", "elements/line", "Elements used per cache line fetched: the "
       "ClusterElems_ parameter (1 uniformly random, LineBytes/WordBytes unit stride); for "
       "an index that picks the start of a contiguous run (x(start(ib)+k), k from 1 to B), "
       "MIN(LineBytes/element bytes, MAX(1, ClusterElems_) x MIN(B, LineBytes/element "
       "bytes)): the run uses that much of each line it fetches. With index runs "
       "(IndexRun_ above 1): MAX(that, IndexRun_ / the lines a run fetches where CacheKB "
       "leaves the cache left), the runs' locality.", "Indices"),
    _c("visits", "Line visits", "lines", "References / MAX(1, Cluster).", "Cache"),
    _c("range_lines", "Range lines", "lines", "Cache lines in the range: Range x 1024 / "
       "LineBytes.", "Cache"),
    _c("other_kb", "Other streams", "KiB", "Working set of the nest's other streams: the "
       "actual working set for the reuse case the nest takes, less the indexed array's own "
       "share.", "Cache"),
    _c("cache_left_kb", "Cache left", "KiB", "MAX(0, CacheKB - other streams).", "Cache"),
    _c("miss_fraction", "Miss fraction", "", "Of the visits after a line's first: "
       "0 when the range fits in the cache left, else 1 - cache left / range (uniform "
       "indices).", "Cache", "0.000"),
    _c("lines", "Lines moved", "lines", "MIN(visits, range lines) compulsory + the other "
       "visits x miss fraction.", "Traffic"),
    _c("traffic_gb", "Traffic", "GB", "Lines x LineBytes, twice when the array is written "
       "through the index (read for ownership and write-back).", "Traffic", "0.000000"),
    _c("distinct", "Distinct", "elements", "Expected distinct elements the references "
       "pick, indices drawn uniformly over the range's m = Range x 1024 / element bytes "
       "elements: m x (1 - (1 - 1/m)^references); in runs of R within windows of W "
       "elements, m x (1 - (1 - p)^(references/R)), p = W/m x (1 - (1 - 1/W)^R).",
       "Compulsory"),
    _c("compulsory_gb", "Compulsory", "GB", "Distinct elements x the array's cost per "
       "element (ReadCost, ReadWriteCost when written through the index, per word of the "
       "element): the gather's share of the reuse-between-blocks traffic.", "Compulsory",
       "0.000000"),
    _c("replaced_gb", "Replaced", "GB", "The ExaSAT traffic of the array in the nest that "
       "this replaces on the Loops sheet (0 when the array also has direct references).",
       "Traffic", "0.000000"),
    _c("time_s", "Time", "s", "Traffic at the nest's memory bandwidth, GBsPerCore x Cores.",
       "Traffic"),
]


@dataclass
class Instance:
    """One gather/scatter of a nest: an array read or written through an index array."""

    array: str
    idioms: set[str]
    loop_line: int
    line: int
    index: str = ""
    references: int = 1  # distinct indirect references per iteration
    written: bool = False
    direct: bool = False  # the array has direct references in the nest too
    run: str = ""  # the loop variable of the contiguous runs the index picks (x(start(ib)+k))
    function: str = ""  # the procedure whose loop holds it (a callee of the nest's, or its own)


@dataclass
class GatherTraffic:
    """One gather's or scatter's cache model, to evaluate at any cache capacity: ``CacheKB``
    on the Gathers sheet, each cache level's capacity on the Levels sheet."""

    visits: E.Quantity
    range_lines: E.Quantity
    range_kb: E.Param
    other: E.Quantity  # the working set of the nest's other streams (KiB)
    factor: int  # 2 when written through the index (read for ownership and write-back)
    replaces: frozenset[str]  # the array keys whose ExaSAT count it replaces (none: on top)
    # passes over the same indices: the trips of the loops around it that draw nothing new
    passes: E.Expr = E.Num(1)
    own: str | None = None  # the indexed array's key among the nest's arrays (its streams)
    # the arrays touched once per trip of a loop around it (a CSR row's rowptr)
    rows: list[RowLevelArray] = field(default_factory=list)
    cluster: E.Expr = E.Num(1)  # elements used per line fetched (MAX(1, the Cluster column))
    runs: RunsAtLevel | None = None  # the index runs, for a level's elements per line

    def at_level(self, left_kb: E.ExprLike | E.Quantity, ctx: ModelContext, key: tuple
                 ) -> GatherTraffic:
        """The gather at a level whose cache leaves it ``left_kb`` KiB: its line visits and
        elements per line there (a run's window kept or not, :mod:`.gather_runs`)."""
        if self.runs is None:
            return self
        _, visits, draws = self.runs.at(left_kb, self.range_lines, ctx, key)
        return replace(self, visits=visits, cluster=E.Ref(draws))

    def left(self, capacity: E.ExprLike | E.Quantity) -> E.Expr:
        """KiB of a cache of ``capacity`` KiB the nest's other streams leave."""
        return E.maximum(0, E.as_expr(capacity) - E.Ref(self.other))

    def miss(self, left: E.ExprLike | E.Quantity) -> E.Expr:
        """Fraction of revisits that miss in ``left`` KiB (uniform indices over the range)."""
        return E.if_(E.compare("<=", self.range_kb, left), 0,
                     1 - E.div(left, self.range_kb))

    def lines(self, miss: E.ExprLike | E.Quantity) -> E.Expr:
        """Cache lines moved: the compulsory first visits plus the revisits that miss."""
        first = E.minimum(self.visits, self.range_lines)
        return first + (E.Ref(self.visits) - first) * E.as_expr(miss)

    def traffic_gb(self, lines: E.ExprLike | E.Quantity, ctx: ModelContext) -> E.Expr:
        return E.mul(self.factor, lines, ctx.param("LineBytes")) / GB


def _walk(body: Body, chain: tuple[Loop, ...]) -> Iterator[tuple[Loop, tuple[Loop, ...]]]:
    for loop in body.loops:
        yield loop, (*chain, loop)
        yield from _walk(loop, (*chain, loop))
    for branch in body.branches:
        yield from _walk(branch, chain)


def _own_arrays(body: Body) -> Iterator:
    yield from body.arrays
    for branch in body.branches:
        yield from _own_arrays(branch)


def _all_arrays(body: Body) -> Iterator:
    """Every array reference under ``body``: in its loops, its arms and the loops of its arms
    (a callee's loops written into the nest)."""
    yield from body.arrays
    for child in (*body.branches, *body.loops):
        yield from _all_arrays(child)


def array_datatype(nest: Loop, array: str) -> str:
    """The datatype of ``array`` as the nest references it (``double`` when not found)."""
    return next((a.datatype for a in _all_arrays(nest) if a.name.lower() == array.lower()),
                "double")


def nest_instances(procedure: Procedure, nest: Loop, idiom_rows: list[dict[str, CellValue]],
                   lines: dict[int, int] | None = None
                   ) -> list[tuple[Instance, tuple[Loop, ...]]]:
    """The gather/scatter instances of a nest (one per indexed array), with the loops from
    the nest's outermost down to the instance's loop.  ``lines``: the line in ``nest`` of a
    loop of the source at another line (a fused nest's loops are its first member's); an
    instance keeps its source loop's line (its parameters' names)."""
    chains = {loop.line: chain for loop, chain in [(nest, (nest,)), *_walk(nest, (nest,))]}
    # a procedure the nest calls runs its loops inside the nest: its gathers are the nest's
    where = {procedure.name.lower()} | {arm.callee.lower() for arm in nest.levels()
                                        if isinstance(arm, InlinedCall)}
    found: dict[str, tuple[Instance, tuple[Loop, ...]]] = {}
    for row in idiom_rows:
        at = (lines or {}).get(row["loop_line"], row["loop_line"])  # type: ignore[call-overload]
        if (row["idiom"] not in IDIOMS or str(row["function"]).lower() not in where
                or at not in chains):
            continue
        array = str(row["array"])
        chain = chains[at]
        if array in found:
            instance, known = found[array]
            instance.idioms.add(str(row["idiom"]))
            if len(chain) > len(known):  # the deepest loop stepping through the index
                found[array] = (instance, chain)
                instance.loop_line, instance.line = int(row["loop_line"]), int(row["line"])  # type: ignore
            continue
        found[array] = (Instance(array, {str(row["idiom"])}, int(row["loop_line"]),  # type: ignore
                                 int(row["line"]), function=str(row["function"]).lower()),
                        chain)
    for instance, chain in found.values():
        texts: set[tuple[str, ...]] = set()
        for arr in _own_arrays(chain[-1]):
            if arr.name.lower() != instance.array.lower():
                continue
            for access in arr.accesses:
                indirect = [s for s in access.subscripts if s.kind == "indirect"]
                if indirect:
                    instance.index = instance.index or indirect[0].index
                    instance.run = instance.run or indirect[0].run
                    texts.add(tuple(s.text for s in access.subscripts))
                    instance.written = instance.written or access.writes > 0
        instance.references = max(1, len(texts))
        if "scatter" in instance.idioms:
            instance.written = True
        instance.direct = any(
            not any(s.kind == "indirect" for s in access.subscripts)
            for arr in _all_arrays(nest) if arr.name.lower() == instance.array.lower()
            for access in arr.accesses)
    # a callee's gather counts where the nest holds its indirect access (under the same name)
    own = procedure.name.lower()
    return [(i, c) for i, c in found.values() if i.function == own or i.index]


def _declared_kb(procedure: Procedure, array: str, ctx: ModelContext, element: E.Expr
                 ) -> E.Expr | None:
    """The array's declared size in KiB as an expression over the problem parameters (its
    extents' symbols) and its element size (``Bytes_``); None without a declared extent."""
    from sat.model.exasat.occupancy import declared_size, procedure_variables

    try:
        size = declared_size(procedure_variables(procedure).get(array.lower()), ctx)
    except ExpressionError:
        return None
    if size is None:
        return None
    return E.mul(size, element) / KIB


def _other_kb(memory: NestMemory, key: str | None) -> E.Expr:
    """The working set of the nest's other streams for the reuse case the nest takes."""
    q = memory.q
    own = next((a for a in memory.arrays if a.key == key), None)

    def level(name: str) -> E.Expr:
        total = E.Ref(q[f"ws_actual_{name}_kb"])
        if own is None:
            return total
        # a level whose reuse saves nothing holds the cell working set (memory.actual_chain):
        # the array's own share is then its cell share
        share = E.if_(E.compare("<=", total, q["ws_actual_cell_kb"]), own.q["ws_cell_kb"],
                      own.q[f"ws_{name}_kb"])
        return E.maximum(0, total - share)

    reuse = q["reuse"]
    return E.if_(E.compare("=", reuse, 1), level("plane"),
                 E.if_(E.compare("=", reuse, 2), level("pencil"),
                       E.if_(E.compare("=", reuse, 3), level("cell"), 0)))


@dataclass
class NestGathers:
    """The gathers and scatters of one nest: their Gathers rows, the change of the nest's
    traffic (GB; their bytes less the ExaSAT traffic they replace) and their cache models."""

    rows: list[dict[str, CellValue]]
    delta: E.Expr
    models: list[GatherTraffic]
    # the change of the nest's compulsory traffic (GB): the gathers' distinct elements less
    # the ExaSAT count of the arrays they replace
    compulsory_delta: E.Expr = E.Num(0)


def distinct_elements(references: E.ExprLike | E.Quantity,
                      range_elements: E.ExprLike | E.Quantity) -> E.Expr:
    """Expected distinct elements of ``references`` draws uniform over ``range_elements``
    elements: m*(1 - (1 - 1/m)^k), with m at least one element."""
    m = E.maximum(1, range_elements)
    return E.mul(m, 1 - E.func("POWER", 1 - E.div(1, m), references))


def repeated_draws(nest: Loop, shape: NestShape, chain: tuple[Loop, ...]
                   ) -> tuple[list[Loop], list[Loop]]:
    """The loops of ``chain`` that draw no new indices: (repetitions of the nest's own, whose
    variable subscripts no array, :func:`~sat.model.exasat.compulsory.is_repetition`: each
    trip reads the same index elements and picks the same elements again; the passes of a
    time loop, :func:`~sat.model.exasat.compulsory.time_passes`: each pass touches its
    distinct elements anew, as every array of the nest)."""
    grid = {id(lp) for loops in shape.axis_loops for lp in loops}
    passes = time_passes(shape.sweep_loops, grid)
    subscripting = {v.lower() for array in _all_arrays(nest) for access in array.accesses
                    for v in access.loopvars if v}
    again = [lp for lp in chain if id(lp) in passes]
    same = [lp for lp in chain if id(lp) not in passes and is_repetition(lp, subscripting)]
    return same, again


def nest_gathers(procedure: Procedure, nest: Loop, shape: NestShape, space: NestSpace,
                 memory: NestMemory, ctx: ModelContext, idiom_rows: list[dict[str, CellValue]],
                 where: dict[str, CellValue], lines: dict[int, int] | None = None
                 ) -> NestGathers:
    """The Gathers rows of one nest, the change of its traffic and the gathers' models.
    ``procedure``: the source's (its name and declarations); ``lines``: see
    :func:`nest_instances` (a fused nest)."""
    rows: list[dict[str, CellValue]] = []
    deltas: list[E.Expr] = []
    models: list[GatherTraffic] = []
    compulsory: list[E.Expr] = []
    replaced_keys: set[str] = set()
    line_bytes = ctx.param("LineBytes")
    for instance, chain in nest_instances(procedure, nest, idiom_rows, lines):
        size = element_bytes(ctx, procedure.name, instance.array,
                             array_datatype(nest, instance.array))
        element = float(ctx.params[size.name].value)
        stem = symbol_to_name(f"{procedure.name}_{instance.loop_line}_{instance.array}")
        declared = _declared_kb(procedure, instance.array, ctx, size)
        callee = ctx.read_procedures.get(instance.function)  # a called procedure's gather
        if declared is None and callee is not None:
            declared = _declared_kb(callee, instance.array, ctx, size)
        prefix = ("gather", shape.ident, instance.array)

        def quantity(name: str, expr: E.Expr, unit: str, label: str,
                     _prefix: tuple = prefix) -> E.Quantity:
            return E.Quantity((*_prefix, name), expr, unit, label)

        trips = E.mul(space.probability, *[trip_count(lp, ctx) for lp in chain])
        references = quantity("references", E.mul(instance.references, trips), "",
                              f"references to {instance.array} through {instance.index}")
        if declared is not None:  # a derived default: it follows the extents' symbols
            default, source = 0.0, ""
        else:  # no declared extent: the indices spread over one element per reference
            env = E.Env({name: float(p.value) for name, p in ctx.params.parameters.items()})
            default = references.value(env) * element / KIB
            source = f"default: no declared extent of {instance.array}, one element per " \
                     "reference"
        where_text = f"{instance.array}({instance.index}(...)) in {procedure.name}, loop at " \
                     f"line {instance.loop_line}"
        range_name = f"RangeKB_{stem}"
        fresh = range_name not in ctx.params
        range_kb = gather_parameter(ctx, range_name, round(default, 6), "KiB",
                                    f"KiB the indices of {where_text} span", source)
        if fresh and declared is not None:
            derive_default(ctx.params, range_name, declared,
                           f"the declared size of {instance.array}")
        cluster = gather_parameter(ctx, f"ClusterElems_{stem}", 1, "elements",
                                   f"elements of {where_text} used per cache line fetched (1 "
                                   "uniformly random indices, LineBytes/WordBytes unit stride)",
                                   "default: uniformly random indices")
        shown = _show(cluster, prefix, "cluster", "elements/line")
        run = next((lp for lp in chain if lp.loopvar.lower() == instance.run.lower()), None)
        if instance.run and run is not None:
            # a run of B contiguous elements uses MIN(B, elements per line) of each line it
            # fetches; ClusterElems (1: runs that start at random) multiplies that, up to a
            # whole line
            per_line = E.div(line_bytes, size)
            shown = quantity("cluster", E.minimum(per_line, E.mul(
                E.maximum(1, cluster), E.minimum(trip_count(run, ctx), per_line))),
                "elements/line", f"elements of {instance.array} used per line fetched")
        pattern_key = next((a.key for a in memory.arrays
                            if a.key.split(".", 1)[0].lower() == instance.array.lower()), None)
        other = quantity("other_kb", _other_kb(memory, pattern_key), "KiB",
                         "working set of the nest's other streams")
        left = quantity("cache_left_kb", E.maximum(0, ctx.param("CacheKB") - E.Ref(other)),
                        "KiB", "cache left for the gather")
        draws, passes = repeated_draws(nest, shape, chain)
        picked: E.Expr | E.Quantity = references if not draws and not passes else E.mul(
            instance.references, space.probability,
            *[trip_count(lp, ctx) for lp in chain
              if all(lp is not other for other in (*draws, *passes))])
        range_elements = E.div(E.mul(range_kb, KIB), size)
        runs = index_runs(ctx, stem, where_text, entry_for(
            ctx, instance.array, {procedure.name.lower(), instance.function}), picked,
            trip_count(chain[-1], ctx), range_elements, E.div(line_bytes, size), quantity)
        base = shown.expr  # ClusterElems_ (or a contiguous run's use of its lines)
        shown = quantity("cluster", runs.cluster(base, runs.fetched(left, ctx)), "elements/line",
                         f"elements of {instance.array} used per line fetched")
        visits = quantity("visits", E.div(E.Ref(references), E.maximum(1, shown)), "lines",
                          "line visits")
        range_lines = quantity("range_lines", E.div(E.mul(range_kb, KIB), line_bytes),
                               "lines", "cache lines in the range")
        replaces = frozenset(a.key for a in memory.arrays if a.key.split(".", 1)[0].lower()
                             == instance.array.lower()) \
            if pattern_key is not None and not instance.direct else frozenset()
        model = GatherTraffic(visits, range_lines, range_kb, other, 2 if instance.written
                              else 1, replaces, E.mul(*[trip_count(lp, ctx)
                                                        for lp in (*draws, *passes)]),
                              pattern_key, row_level_arrays(chain, visits, memory, ctx),
                              E.maximum(1, shown), RunsAtLevel(runs, base, references))
        models.append(model)
        miss = quantity("miss_fraction", model.miss(left), "", "fraction of revisits that miss")
        lines = quantity("lines", model.lines(miss), "lines", "cache lines moved")
        traffic = quantity("traffic_gb", model.traffic_gb(lines, ctx), "GB",
                           f"traffic of the {'/'.join(sorted(instance.idioms))} on "
                           f"{instance.array}")
        replaced_expr: E.Expr = memory.traffic_of(set(replaces)) if replaces else E.Num(0)
        replaced = quantity("replaced_gb", replaced_expr, "GB",
                            f"ExaSAT traffic of {instance.array} replaced")
        distinct = quantity("distinct", E.mul(runs.distinct(distinct_elements(
            picked, range_elements), picked, range_elements),
            *[trip_count(lp, ctx) for lp in passes]),
            "elements", f"distinct elements of {instance.array} the indices pick")
        cost = ctx.param("ReadWriteCost" if instance.written else "ReadCost")
        once = quantity("compulsory_gb", E.div(E.mul(distinct, cost, size),
                                               E.mul(ctx.param("WordBytes"), GB)), "GB",
                        f"compulsory traffic of {instance.array}")
        compulsory.append(E.Ref(once))
        replaced_keys.update(replaces)
        time = quantity("time_s", E.Ref(traffic) / E.mul(ctx.param("GBsPerCore"),
                                                          ctx.param("Cores")),
                        "s", "time of the gather's traffic")
        deltas.append(E.Ref(traffic) - E.Ref(replaced))
        rows.append({**where, "loop_line": instance.loop_line,
                     "idiom": ", ".join(i for i in IDIOMS if i in instance.idioms),
                     "array": instance.array, "index": instance.index or "?",
                     "references": references, "range_kb": _show(range_kb, prefix, "range_kb",
                                                                   "KiB"),
                     "cluster": shown,
                     "visits": visits, "range_lines": range_lines, "other_kb": other,
                     "cache_left_kb": left, "miss_fraction": miss, "lines": lines,
                     "traffic_gb": traffic, "distinct": distinct, "compulsory_gb": once,
                     "replaced_gb": replaced, "time_s": time})
    # the arrays the gathers replace leave the compulsory count, once each
    blocks = [a.q["traffic_blocks_gb"] for a in memory.arrays if a.key in replaced_keys]
    compulsory_delta = E.add(*compulsory) - E.mul(memory.sweeps, E.add(*blocks)) \
        if blocks else E.add(*compulsory) if compulsory else E.Num(0)
    return NestGathers(rows, E.add(*deltas) if deltas else E.Num(0), models,
                       compulsory_delta)


def _show(param: E.Param, prefix: tuple, name: str, unit: str) -> E.Quantity:
    """A parameter shown in a row: a cell that refers to it."""
    return E.Quantity((*prefix, name), param, unit, param.name)


def gathers_table(rows: list[dict[str, CellValue]]) -> Table:
    return Table("Gathers", "Irregular accesses: gathers and scatters", GATHER_COLUMNS, rows,
                 _totals(rows), "One row per gather or scatter (per nest and indexed array): "
                 "the cache lines its references move for the range its indices span "
                 "(RangeKB_ parameters) and their locality (ClusterElems_ parameters).")


def _totals(rows: list[dict[str, CellValue]]) -> dict[str, CellValue]:
    totals: dict[str, CellValue] = {"procedure": "Total"}
    for key in ("traffic_gb", "replaced_gb", "time_s"):
        totals[key] = E.Quantity(("gathers", "total", key),
                                 E.add(*[E.Ref(r[key]) for r in rows]),  # type: ignore
                                 rows[0][key].unit, f"total {key}")  # type: ignore[union-attr]
    return totals


def with_gathers(traffic: list[ArrayTraffic], gathers: list[dict[str, CellValue]]
                 ) -> list[ArrayTraffic]:
    """A nest's traffic per array with its gathers' own model: an indexed array's ExaSAT
    share is replaced (or kept, when the array has direct references too: the gather's bytes
    then come on top), as the Loops sheet's traffic does; a written array's bytes are half
    loads (read for ownership), half stores (write-back)."""
    result = list(traffic)
    for row in gathers:
        array = str(row["array"]).lower()
        replaced = row["replaced_gb"]
        if not (isinstance(replaced.expr, E.Num) and replaced.expr.value == 0):
            result = [t for t in result if t.name.lower() != array]
        total = row["traffic_gb"]
        written = "scatter" in str(row["idiom"])
        half = E.Quantity((*total.key[:-1], "half_gb"), E.Ref(total) / 2, "GB",
                          "half of the gather's traffic")
        result.append(ArrayTraffic(f"{row['array']} (indexed)", str(row["array"]),
                                   "RW" if written else "R",
                                   half if written else total,
                                   half if written else E.Quantity(
                                       (*total.key[:-1], "stores_gb"), E.Num(0), "GB",
                                       "no stores")))
    return result
