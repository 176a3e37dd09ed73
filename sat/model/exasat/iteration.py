"""Iteration and block space of a loop nest: axes, sweeps, extents, blocks, cache lines.

The model sees a nest as a sweep over a 3-D grid.  Each loop variable that subscripts an
array is mapped to a grid axis by the position of the dimension it subscripts, counted from
the unit-stride end among the dimensions subscripted by loop variables: for Fortran
(column-major) ``a(i,j,k,n)`` puts ``i`` on X, ``j`` on Y, ``k`` on Z; for C (row-major)
``a[k][j][i]`` does the same.  Loop variables that land beyond Z, or subscript no array (``do
n = 1, ncons``), are *sweeps* when their loop encloses grid loops: the whole grid sweep is
repeated for each of their values.  Such a loop inside the grid loops (``do n = 1, nspecies``
in the body of ``do i``) is a *component* loop instead: every cell touches each of its values,
so the array-components it subscripts count once per value (their *copies*), as in the
original sheet, and the other arrays of the nest are not re-read.
Identical calls written into the nest once (:attr:`sat.ir.InlinedCall.count`) are a loop of
``count`` trips around one call: a sweep when the callee has grid loops.
Only the accesses with the most loop-variable subscripts vote for axes (the arrays that span
the whole iteration space); a variable none of them has takes the votes of the others:
``wdot(n)`` (a small per-cell table) does not make ``n`` a grid axis, and ``tot(j,k)`` beside
``x(i,j,k)`` does not put ``j`` on X.
X is the unit-stride axis: its block extent is rounded up to whole cache lines.

A loop whose variable bounds a loop of an axis inside it (``do jt = 1, n, ts`` around ``do j
= jt, jt+ts-1``) is a *tile* loop of that axis, not a sweep: the axis extends over the tile
loop's trips times the tile's, and the tile is the axis's block (the code's own blocking,
in place of BlockX, BlockY or BlockZ).

An array that does not step along an axis of the nest (``tot(j,k)`` written after the ``i``
loop, ``w(i)`` in a 3-D nest, ``b(l,0)`` in the ``j`` loop) is *invariant* along it: its
:attr:`Pattern.invariant` axes are reused across the loop rather than streamed
(:mod:`~sat.model.exasat.memory`).
"""

from __future__ import annotations

import math
import re
from collections import Counter
from dataclasses import dataclass, field

from sat.ir import AccessType, Body, InlinedCall, Loop, Procedure
from sat.model import expr as E
from sat.model.context import ModelContext
from sat.model.elements import element_bytes
from sat.model.exasat import compulsory
from sat.model.exasat.beyond_axes import beyond_offset, beyond_points
from sat.model.exasat.lines import (
    declared_row_length,
    ragged_row_end,
    round_to_lines,
    row_start,
    unit_coefficient,
)
from sat.model.exasat.loop_axes import (
    AXES,
    at_tile_start,
    axes_inside_x,
    in_axis_order,
    moving_loops,
    separate_nested,
    tile_loops,
    x_innermost,
    x_tiles_share_lines,
)
from sat.model.exasat.steps import (
    SHORT_LEADING_TRIPS,
    fold_offset,
    literal_step,
    stepped_factor,
    x_step_span,
)
from sat.model.exasat.windows import window_loops, windowed
from sat.model.nests import literal_trips
from sat.model.sums import stepped_mean_trips, summed_trip_count

BLOCK_PARAMS = ("BlockX", "BlockY", "BlockZ")


@dataclass
class Pattern:
    """One streamed array-component pair of a nest: its merged access type and offsets."""

    key: str
    accesstype: AccessType
    datatype: str
    offsets: frozenset[tuple[int, int, int]]
    rank: int
    # chains of component loops enclosing the accesses (empty: one copy per cell)
    copy_chains: tuple[tuple[Loop, ...], ...] = ()
    # axes with loops the pattern does not step along (it sits outside their loops, or its
    # subscripts do not use their variables): the same elements serve every step
    invariant: frozenset[int] = frozenset()
    # along what its unit-stride dimension steps: "x" (the X axis), "other" (another axis:
    # tot(j,k) in an i, j, k nest) or "none" (no loop variable: b(l,1), b[l][0])
    unit: str = "x"
    # elements per iteration of stepped axis loops (i += 4 with a[i..i+3]: 4), see _stepped
    step_copies: int = 1
    array: str = ""  # the array's name (the key without its component)
    # compulsory traffic (sat.model.exasat.compulsory): axes along which it is a scratch tile
    # (one tile's elements), and the sweeps (indexes into NestShape.sweep_loops) that bring it
    # new elements (None: every sweep)
    local: frozenset[int] = frozenset()
    new_sweeps: tuple[int, ...] | None = None
    # written before read, with sweeps that bring it no new elements: it moves once when the
    # block fits (sat.model.exasat.compulsory.written_first)
    scratch: bool = False
    # axes with loops the pattern does not step along, whatever the loops' order: its
    # distinct elements do not grow along them (the compulsory count; ``invariant`` holds
    # only the axes along which the model also reuses it from cache)
    unstepped: frozenset[int] = frozenset()
    # distinct elements one iteration of stepped axis loops touches (a[i] and a[i+1] of
    # i += 3: 2), where step_copies counts what moves (whole lines along X)
    step_elements: int = 1
    # elements its unit-stride subscript moves per step of the X loop (x(16*i): 16; 1 for
    # x(i)): the lines it touches along X, see :func:`sat.model.exasat.lines.strided_lines`
    stride: int = 1
    # of step_copies, the elements one step of a stepped X loop spans (i += 2: 2): they
    # share the line of the access, which moves once per access (not once per element)
    x_step: int = 1
    # declared elements of its unit-stride dimension when the Y loop walks rows that follow
    # each other in memory (a literal extent; 0 otherwise): see
    # :func:`sat.model.exasat.lines.row_lines`
    row_length: int = 0
    # with a stepped Y or Z loop: each offset's folded point and its row or plane in the step
    # (a[j-1], a[j], a[j+1] of j += 3: 3 rows, not 2 folded x 3), and the rows a step covers
    step_points: frozenset[tuple[int, ...]] = frozenset()
    step_rows: int = 1
    # its copies are one contiguous run (val(k) of a CSR row: a moving loop of X subscripts
    # its unit-stride dimension): they share lines, as one stream
    run_copies: bool = False
    # in a nest with a scratch tile or tile loops: its component loops walk its unit-stride
    # dimension one element at a time, so a cell's copies are a short run of neighbouring
    # elements sharing lines (sat.model.hierarchy.runs)
    unit_run_copies: bool = False
    # each reference's offset and the conditional arms around it (compulsory.arm_paths)
    arm_points: tuple[tuple[tuple[int, int, int], tuple[compulsory.Arm, ...]], ...] = ()
    # with stepped axis loops: each reference's residue within a step, per axis, in the order
    # of arm_points (whose points are in whole steps): compulsory.stepped_groups
    step_residues: tuple[tuple[int, int, int], ...] = ()
    # a loop beyond the axes whose references sit at several offsets along it, and each
    # reference's (residue, offset in steps) there (sat.model.exasat.beyond_axes)
    beyond: tuple[Loop, tuple[tuple[int, int], ...]] | None = None
    # where its rows along X start and the declared elements of a row, when the source says
    # (:func:`sat.model.exasat.lines.row_start`): the lines a row straddles
    row_start: tuple[int, int] | None = None
    # where the fixed end of its triangle's rows along X lies, a row's declared elements and
    # whether that end is the last element (:func:`sat.model.exasat.lines.ragged_row_end`)
    ragged_end: tuple[int, int, bool] | None = None

    @property
    def kind(self) -> str:
        """R (read-only), RW (read and written) or W (written first or only)."""
        return {"readonly": "R", "readwrite": "RW"}.get(self.accesstype, "W")


@dataclass
class NestShape:
    """The code facts of one nest the model needs: axes, sweeps and streamed arrays."""

    procedure: Procedure
    loop: Loop
    axis_loops: list[list[Loop]]
    sweep_loops: list[Loop]
    patterns: list[Pattern]
    notes: list[str] = field(default_factory=list)
    copy_loops: list[Loop] = field(default_factory=list)  # component loops inside the grid
    tiles: list[tuple[Loop, Loop, int]] = field(default_factory=list)  # (tile, inner, axis)
    # axes with a loop inside a loop of X (the j-outer matrix-vector product: {Y}): the lines
    # of X are reused at the next step of X only if one sweep of those loops fits
    inside_x: frozenset[int] = frozenset()
    # identical calls written in once around grid loops (sat.model.calls): each repeats the
    # grid sweep InlinedCall.count times, as a loop of that many trips around it would
    repeats: list[InlinedCall] = field(default_factory=list)
    # sweeps (indexes into sweep_loops) that repeat one tile of the source's tile loops
    # around them (sat.model.exasat.compulsory.tile_repeats)
    tile_repeats: tuple[int, ...] = ()
    # the source's tiles of X hold no loop of Y or Z: consecutive tiles walk X one after
    # the other, a tile narrower than a line shares its lines with the next one
    x_tiles_share_lines: bool = False

    @property
    def file(self) -> str:
        return self.loop.file or self.procedure.file

    @property
    def ident(self) -> str:
        return f"{self.procedure.name}:{self.loop.line}"

    def pattern(self, key: str) -> Pattern | None:
        """The streamed pattern of an array model's ``key`` (None: not one of the nest's)."""
        return next((p for p in self.patterns if p.key == key), None)


def _merge_type(types: set[str]) -> AccessType:
    if types == {"readonly"}:
        return "readonly"
    if types <= {"writeonly"}:
        return "writeonly"
    if types <= {"writeonly", "writeread"}:
        return "writeread"
    return "readwrite"


def collect_accesses(body: Body, chain: tuple[Loop, ...], out: list) -> None:
    """(array, access, enclosing loops inside the nest) of every access below ``body``."""
    for array in body.arrays:
        for access in array.accesses:
            out.append((array, access, chain))
    for branch in body.branches:
        collect_accesses(branch, chain, out)
    for loop in body.loops:
        collect_accesses(loop, (*chain, loop), out)


def _bookkeeping_vars(loops: list[Loop], accesses: list) -> set[str]:
    """Variables of loops around other loops that subscript arrays only at their own level.

    A time loop that records something per pass (``t[k][0] = …`` beside the inner loops,
    STREAM's ``times[j][k]``) repeats the inner sweep: it is not a spatial dimension. A loop
    whose variable indexes the lower bound of a loop inside it (a CSR row, ``y[row]`` beside
    ``for (k = rowptr[row]; …)``) steps along its arrays with that loop: its accesses cost
    at their level, over the loops around them.
    """
    # the innermost loops around the accesses subscripted by each variable, in one pass
    # over the accesses (not one per loop: nests of many loops have many accesses too)
    users: dict[str, set[int]] = {}
    for _, access, chain in accesses:
        for v in access.loopvars:
            if v:
                users.setdefault(v.lower(), set()).add(id(chain[-1]))
    found = set()
    for lp in loops:
        var = lp.loopvar.lower()
        if var and users.get(var) == {id(lp)} and any(True for _ in lp.all_loops()) \
                and not _bounds_inner(lp):
            found.add(var)
    return found


def _bounds_inner(loop: Loop) -> bool:
    """Whether ``loop``'s variable indexes an array in the lower bound of a loop inside it (a
    CSR row: ``rowptr[row]``), so that the inner loop starts a new stretch at each of its
    points. In the upper bound alone (a level's size ``do i = 1, m1(lt) - lt``, a block's
    ``do i = 1, lv%blocks(lv%perm(b))%n``) the inner loop starts where it started before:
    ``loop`` repeats its sweep over the same elements."""
    reference = re.compile(rf"[A-Za-z_]\w*\s*[(\[][^()\[\]]*\b{re.escape(loop.loopvar)}\b",
                           re.I)
    return any(reference.search(lp.lower) for lp in loop.all_loops())


def _short_leading_vars(loops: list[Loop], accesses: list, loop_dims, row_major: bool,
                        constants: dict[str, float]) -> set[str]:
    """Variables of short loops, literal or over named constants, over the unit-stride
    dimension of grid arrays.

    In ``rhs(m,i,j,k)`` with ``do m = 1, 5`` (or ``do m = 1, block_size``, a named constant
    5) the five components of a cell are contiguous: ``m`` is a component loop (five copies
    of the ``i, j, k`` grid), not the X axis, whose pencils of five elements would each be
    rounded up to a whole cache line.
    """
    trips = {lp.loopvar.lower(): literal_trips(_with_values(lp, constants))
             for lp in loops if lp.loopvar}
    found = set()
    for access in accesses:
        dims = loop_dims(access)
        if len(dims) < 2:
            continue
        var = access.loopvars[dims[-1] if row_major else dims[0]].lower()
        count = trips.get(var)
        if count is not None and count <= SHORT_LEADING_TRIPS:
            found.add(var)
    return found


def _with_values(loop: Loop, constants: dict[str, float]) -> Loop:
    """``loop`` with bounds that are a named constant by themselves written as its value."""
    def value(text: str) -> str:
        found = constants.get(text.strip().lower())
        return str(int(found)) if found is not None and float(found).is_integer() else text

    lower, upper, stride = value(loop.lower), value(loop.upper), value(loop.stride)
    if (lower, upper, stride) == (loop.lower, loop.upper, loop.stride):
        return loop
    return Loop(line=loop.line, loopvar=loop.loopvar, lower=lower, upper=upper, stride=stride,
                kind=loop.kind, file=loop.file)


def analyse_nest(procedure: Procedure, loop: Loop, shared: dict[str, float] | None = None,
                 shapes: dict[str, tuple[str, ...]] | None = None) -> NestShape:
    """Map the nest's loops to axes and sweeps and collect its streamed array patterns
    (``shared``: the program's named constants, for stencil windows; ``shapes``: the
    program's declared array shapes, for arrays of called procedures)."""
    loops = [loop, *loop.all_loops()]
    loopvars = {lp.loopvar.lower() for lp in loops if lp.loopvar}
    row_major = procedure.layout == "row-major"
    accesses: list = []
    collect_accesses(loop, (loop,), accesses)

    def loop_dims(access) -> list[int]:
        return [d for d, v in enumerate(access.loopvars) if v and v.lower() in loopvars]

    constants = {c.name.lower(): c.value for c in procedure.constants
                 if not c.expression and c.value == c.value}
    # a stencil's reach written as a loop (a(i, j+jj) inside do jj = -2, 2) reads along j
    known = {**(shared or {}), **constants}
    windows, window_notes = window_loops(loops, accesses, known)
    accesses = windowed(accesses, windows, known)
    bookkeeping = _bookkeeping_vars(loops, accesses) | _short_leading_vars(
        loops, [access for _, access, _ in accesses], loop_dims, row_major, constants) | set(
        windows)
    def voting_dims(access) -> list[int]:
        dims = [d for d in loop_dims(access) if access.loopvars[d].lower() not in bookkeeping]
        return dims[::-1] if row_major else dims

    # A grid array has several loop-variable subscripts (a cell's components not counted:
    # u(m,i) with m a component loop is a 1-D grid); 1-D tables indexed by a component loop
    # (wdot(n)) would otherwise outvote the grid arrays for that loop's axis.
    grid = any(len(voting_dims(access)) >= 2 for _, access, _ in accesses)

    votes: dict[str, Counter[int]] = {}
    # the arrays with the most loop-variable subscripts span the iteration space: theirs are
    # the votes; a variable they do not use takes those of the arrays that have it
    ranked = sorted({len(voting_dims(access)) for _, access, _ in accesses}, reverse=True)
    for rank in ranked:
        if grid and rank < 2:
            break
        cast: dict[str, Counter[int]] = {}
        for _, access, _ in accesses:
            dims = voting_dims(access)
            if len(dims) != rank:
                continue
            for position, d in enumerate(dims):
                cast.setdefault(access.loopvars[d].lower(), Counter())[position] += 1
        for var, counter in cast.items():
            votes.setdefault(var, counter)
    axis_of = {var: counter.most_common(1)[0][0] for var, counter in votes.items()}
    notes = window_notes + [f"loop variable {var} subscripts dimensions at different positions; "
             f"taken as axis {AXES[axis_of[var]].upper() if axis_of[var] < 3 else 'sweep'}"
             for var, counter in votes.items() if len(counter) > 1]
    axis_loops: list[list[Loop]] = [[], [], []]
    others: list[Loop] = []
    for lp in loops:
        axis = axis_of.get(lp.loopvar.lower(), 3)
        (axis_loops[axis] if axis < 3 else others).append(lp)
    moved: dict[str, int] = {}  # variable of a moving loop -> the axis its arrays step along
    for inner, outer, axis in moving_loops(axis_loops):
        if inner.loopvar.lower() in moved:
            continue
        moved[inner.loopvar.lower()] = axis
        axis_loops[axis] = [lp for lp in axis_loops[axis] if lp is not inner]
        others.append(inner)
        notes.append(f"the range of loop {inner.loopvar} (line {inner.line}) moves with "
                     f"{outer.loopvar}: a component loop of axis {AXES[axis].upper()}, whose "
                     f"trips multiply the elements of the arrays {inner.loopvar} subscripts "
                     f"at each point of {outer.loopvar}")
    notes.extend(separate_nested(axis_loops, others))
    grid_loops = {id(lp) for a in axis_loops for lp in a}
    tiles = tile_loops(others, axis_loops)
    tile_ids = {id(tile) for tile, _, _ in tiles}
    others = [lp for lp in others if id(lp) not in tile_ids]
    # a non-axis loop around grid loops repeats the sweep; one inside them is a component loop
    sweeps = [lp for lp in others if any(id(inner) in grid_loops for inner in lp.all_loops())]
    copy_loops = [lp for lp in others if lp not in sweeps]
    repeats = [arm for arm in loop.levels() if isinstance(arm, InlinedCall)
               and arm.count > 1 and any(id(inner) in grid_loops for inner in arm.all_loops())]
    copy_ids = {id(lp) for lp in copy_loops}
    axis_vars = [{lp.loopvar.lower() for lp in axis_loops[a]} for a in range(3)]
    spatial = set().union(*axis_vars)
    # an array subscripted by a moving loop steps along that loop's axis (col(k): along X)
    stepping = [axis_vars[a] | {v for v, axis in moved.items() if axis == a} for a in range(3)]
    streamed = spatial | set(moved)

    # a literal step other than 1 on an axis: offsets in whole steps, elements per step
    steps = {a: literal_step(lp) for a in range(3) for lp in axis_loops[a][:1]
             if literal_step(lp) != 1 and len(axis_loops[a]) == 1}
    residues: dict[str, dict[int, set[int]]] = {}
    offsets: dict[str, set[tuple[int, int, int]]] = {}
    in_step: dict[str, set[tuple]] = {}  # (folded point, its rows and planes within the step)
    step_residues: dict[str, list[tuple]] = {}  # each reference's residues in the step
    types: dict[str, set[str]] = {}
    first: dict[str, tuple[str, int]] = {}
    chains: dict[str, dict[tuple[int, ...], tuple[Loop, ...]]] = {}
    stepped: dict[str, set[int]] = {}
    units: dict[str, set[str]] = {}
    strides: dict[str, int] = {}
    rows: dict[str, set[int]] = {}
    starts: dict[str, set[tuple[int, int] | None]] = {}  # lines.row_start of each access
    ends: dict[str, set[tuple[int, int, bool] | None]] = {}  # lines.ragged_row_end of each
    unit_moved: dict[str, bool] = {}  # every access's unit-stride variable moves along X
    declared = {**(shapes or {}), **{v.name.lower(): v.shape for v in (
        *procedure.locals, *procedure.nonlocals) if v.shape}}
    split = _split_arrays(accesses, stepping, streamed)
    items: dict[str, list[compulsory.Item]] = {}
    arms, arm_points = compulsory.arm_paths(loop), {}
    beyond: dict[str, list] = {}
    for array, access, chain in accesses:
        lowered = [v.lower() for v in access.loopvars]
        if not streamed.intersection(lowered):
            continue  # a state array element (dxinv(1)): a register, not a stream
        axes = frozenset(a for a in range(3) if stepping[a].intersection(lowered))
        key = array.key if array.key not in split else \
            f"{array.key}@{''.join(AXES[a] for a in sorted(axes))}"
        stepped.setdefault(key, set()).update(axes)
        items.setdefault(key, []).append((access, chain))
        if lowered:
            unit_var = lowered[-1 if row_major else 0]
            units.setdefault(key, set()).add(
                "x" if unit_var in stepping[0] else
                "other" if any(unit_var in stepping[a] for a in (1, 2)) else "none")
            unit_moved[key] = unit_moved.get(key, True) and moved.get(unit_var) == 0
            if unit_var in stepping[0]:
                strides[key] = max(strides.get(key, 1), unit_coefficient(access, row_major))
            rows.setdefault(key, set()).add(0 if 1 in steps else declared_row_length(
                access, declared.get(array.name.lower(), ()), stepping, row_major))
            starts.setdefault(key, set()).add(None if steps.get(0, -1) != -1 else row_start(
                access, declared.get(array.name.lower(), ()), axis_loops[0], row_major))
            ends.setdefault(key, set()).add(None if steps.get(0, -1) != -1 else ragged_row_end(
                access, declared.get(array.name.lower(), ()), axis_loops[0], row_major))
        point, within, residue = [], [], [0, 0, 0]
        for a in range(3):
            d = next((d for d, v in enumerate(lowered) if v in stepping[a]), None)
            value = access.offsets[d] if d is not None and d < len(access.offsets) else 0
            value = value if isinstance(value, int) else 0
            if a in steps and d is not None:
                residues.setdefault(key, {}).setdefault(a, set()).add(value % steps[a])
                within.extend([value % steps[a]] if a else [])
                residue[a] = value % steps[a]
                value = fold_offset(value, steps[a])
            point.append(value)
        step_residues.setdefault(key, []).append((residue[0], residue[1], residue[2]))
        offsets.setdefault(key, set()).add((point[0], point[1], point[2]))
        arm_points.setdefault(key, []).append((tuple(point), arms.get(id(access), ())))
        beyond.setdefault(key, []).append(beyond_offset(access, chain, stepping))
        in_step.setdefault(key, set()).add((*point, *within))
        types.setdefault(key, set()).add(array.accesstype)
        first.setdefault(key, (array.datatype, len(access.offsets), array.name))
        copies = tuple(lp for lp in chain if id(lp) in copy_ids and lp.loopvar.lower() in lowered)
        if copies:  # loops are not hashable: deduplicate chains by identity
            chains.setdefault(key, {})[tuple(map(id, copies))] = copies
    # reuse across an invariant axis assumes ExaSAT's order, X innermost then Y then Z; with
    # loops of other axes inside the X loop (the j-outer matrix-vector product, whose inner
    # loop steps along Y) an array is reused across X when one sweep of those loops fits
    # (memory.py's sweep condition), and streamed along Y and Z as before
    # (only when X steps some array along its contiguous dimension: with that index fixed, as
    # on a boundary plane, every access is a line of its own in either loop order)
    inside_x = axes_inside_x(axis_loops) if any("x" in u for u in units.values()) else frozenset()
    tile_vars = {lp.loopvar.lower() for lp in loops if lp.kind == "tile" and lp.loopvar}
    tiled = {id(inner) for lp in loops if lp.kind == "tile" for inner in lp.all_loops()}
    subscripting = {v.lower() for _, access, _ in accesses for v in access.loopvars if v}
    in_grid = {id(inner) for lp in loops if id(lp) in grid_loops for inner in lp.all_loops()}
    passes = compulsory.time_passes(sweeps, grid_loops)
    placing = compulsory.placing_vars([access for _, access, _ in accesses])
    with_loops = {a for a in range(3) if axis_loops[a]} if in_axis_order(axis_loops) \
        else {0} if inside_x or x_innermost(axis_loops) else set()
    patterns = [Pattern(key, _merge_type(types[key]), first[key][0], frozenset(offsets[key]),
                        first[key][1], tuple(chains.get(key, {}).values()),
                        frozenset((with_loops | inside_x) - stepped[key]),
                        _unit(units.get(key, set())),
                        stepped_factor(residues.get(key, {}), {a: steps[a] for a in
                                                         residues.get(key, {})}), first[key][2],
                        compulsory.local_axes(items[key], stepping, tile_vars),
                        _new_sweeps(items[key], sweeps, grid_loops, subscripting, tiled,
                                    in_grid, placing, passes, key),
                        compulsory.written_first(items[key])
                        and bool(compulsory.unplaced_sweeps(items[key], sweeps, placing, key)),
                        frozenset(a for a in range(3) if axis_loops[a]) - stepped[key],
                        math.prod(len(r) for r in residues.get(key, {}).values()),
                        strides.get(key, 1), x_step_span(residues.get(key, {}), steps),
                        min(rows.get(key, {0})), frozenset(in_step[key]),
                        math.prod(len(r) for a, r in residues.get(key, {}).items() if a))
                for key in offsets]
    for pattern in patterns:
        pattern.row_start = _row_start(starts.get(pattern.key, {None}))
        pattern.ragged_end = _ragged_end(ends.get(pattern.key, {None}))
        pattern.arm_points = tuple(arm_points[pattern.key])
        pattern.beyond = beyond_points(beyond[pattern.key])
        if pattern.key in residues:
            pattern.step_residues = tuple(step_residues[pattern.key])
        pattern.run_copies = bool(pattern.copy_chains) and unit_moved.get(pattern.key, False) \
            and all(lp.loopvar.lower() in moved for chain in pattern.copy_chains for lp in chain)
    if tiles or tile_vars or any(p.scratch for p in patterns):
        runs = _unit_run_keys(accesses, copy_ids, row_major, split, stepping, streamed)
        for pattern in patterns:
            pattern.unit_run_copies = pattern.key in runs and not pattern.run_copies
    return NestShape(procedure, loop, axis_loops, sweeps, patterns, notes, copy_loops, tiles,
                     inside_x, repeats, compulsory.tile_repeats(sweeps, subscripting, tiled),
                     x_tiles_share_lines(loops, axis_loops))


def _unit_run_keys(accesses: list, copy_ids: set[int], row_major: bool, split: set[str],
                   stepping: list[set[str]], streamed: set[str]) -> set[str]:
    """Keys of the arrays whose every access subscripts its unit-stride dimension by a
    component loop with coefficient 1 (``t(ti, tj) = a(ti + ii, tj + jj)`` inside ``do ti``):
    the copies of a cell lie next to each other in memory."""
    runs: dict[str, bool] = {}
    for array, access, chain in accesses:
        lowered = [v.lower() for v in access.loopvars]
        if not streamed.intersection(lowered):
            continue  # not a stream (as in nest_shape)
        axes = frozenset(a for a in range(3) if stepping[a].intersection(lowered))
        key = array.key if array.key not in split else \
            f"{array.key}@{''.join(AXES[a] for a in sorted(axes))}"
        copy_vars = {lp.loopvar.lower() for lp in chain if id(lp) in copy_ids}
        unit_var = lowered[-1 if row_major else 0] if lowered else ""
        runs[key] = runs.get(key, True) and unit_var in copy_vars \
            and unit_coefficient(access, row_major) == 1
    return {key for key, run in runs.items() if run}


def _new_sweeps(items: list[compulsory.Item], sweeps: list[Loop], grid_loops: set[int],
                subscripting: set[str], tiled: set[int], in_grid: set[int],
                placing: set[str], passes: frozenset[int], key: str) -> tuple[int, ...]:
    """The sweeps that bring a pattern new elements (:mod:`sat.model.exasat.compulsory`)."""
    found = compulsory.new_element_sweeps(items, sweeps, grid_loops, subscripting, tiled,
                                          in_grid, passes)
    unplaced = compulsory.unplaced_sweeps(items, sweeps, placing, key)
    return tuple(n for n in found if n not in unplaced)


def _split_arrays(accesses: list, stepping: list[set[str]], streamed: set[str]) -> set[str]:
    """Arrays whose accesses step along disjoint axes: each such set is a pattern of its own.

    dtrsv's ``x(i) = x(i) - temp*a(i,j)`` inside ``do j`` beside ``x(j) = x(j)/a(j,j)``
    steps along X in the inner loop and along Y in the outer one. One pattern stepping along
    both would stream ``x`` at every iteration (16 B), though the inner loop re-reads the same
    ``n`` elements for each ``j``: ``x@x`` is invariant along Y (reused while its pencil
    fits), ``x@y`` counts once per ``j``.
    """
    found: dict[str, set[frozenset[int]]] = {}
    for array, access, _ in accesses:
        lowered = {v.lower() for v in access.loopvars}
        if streamed.intersection(lowered):
            found.setdefault(array.key, set()).add(
                frozenset(a for a in range(3) if stepping[a].intersection(lowered)))
    return {key for key, sets in found.items() if len(sets) > 1 and all(sets)
            and all(a.isdisjoint(b) for a in sets for b in sets if a is not b)}


def _row_start(found: set[tuple[int, int] | None]) -> tuple[int, int] | None:
    """A pattern's row start (the first its accesses start at) and row length, when every
    access says where and its rows have one length."""
    if None in found or len({pitch for _, pitch in found}) != 1:  # type: ignore[misc]
        return None
    return min(found)  # type: ignore[type-var]


def _ragged_end(found: set[tuple[int, int, bool] | None]) -> tuple[int, int, bool] | None:
    """A pattern's fixed end of its triangle's rows (the outermost its accesses reach: the
    first start, the last end), when every access says where, at the same end of rows of
    one length."""
    if None in found or len({(pitch, last) for _, pitch, last in found}) != 1:  # type: ignore[misc]
        return None
    return (max if next(iter(found))[2] else min)(found)  # type: ignore[index,type-var]


def _unit(found: set[str]) -> str:
    """The pattern's unit-stride stepping, the most regular of its accesses'."""
    return next((u for u in ("x", "other", "none") if u in found), "x")


# ---------------------------------------------------------------- expressions


# an upper bound that is the lower bound (one name) plus something: ``jt + ts - 1``
_SPAN = re.compile(r"^\s*([A-Za-z_]\w*)\s*([+-].*)$")


def trip_count(loop: Loop, ctx: ModelContext) -> E.Expr:
    """Iterations of one loop: ``upper - lower + 1`` (stride 1) or ``FLOOR((u-l)/s) + 1``;
    for a loop whose bounds move with an enclosing loop, its average over that loop (an
    exact nested sum when several loops of its path move, :mod:`sat.model.sums`)."""
    if loop.kind == "tile":  # once: its element loops count the range, a triangular one too
        return E.Num(1)
    path = ctx.summed_paths.get(id(loop))
    summed = None if path is None else summed_trip_count(path, ctx,
                                                         lambda lp: trip_count(lp, ctx))
    if summed is not None:
        return summed
    averaged = id(loop) in ctx.averaged_loops
    if averaged:
        written = loop
        loop, enclosing = ctx.averaged_loops[id(loop)]
        # bounds that cross for some sizes: the mean over the range where the loop runs
        clipped = summed_trip_count((*enclosing, written), ctx, lambda lp: trip_count(lp, ctx),
                                    only_clipped=True)
        if clipped is not None:
            return clipped
        for outer in enclosing:  # the sizes take the roles of the enclosing loops' bounds
            trip_count(outer, ctx)
        key = ("stepped", written.lower, written.upper, written.stride,
               *((lp.loopvar, lp.lower, lp.upper, lp.stride) for lp in enclosing))
        if key not in ctx.summed_counts:
            ctx.summed_counts[key] = stepped_mean_trips(written, enclosing, ctx)
        stepped = ctx.summed_counts[key]
        if stepped is not None:
            return stepped
    key = (loop.lower, loop.upper, loop.stride, loop.kind == "tile")
    if key not in ctx.trip_counts:  # many nests share bounds: build each expression once
        ctx.trip_counts[key] = _trip_count(loop, ctx, averaged)
    return ctx.trip_counts[key]


def _trip_count(loop: Loop, ctx: ModelContext, averaged: bool = False) -> E.Expr:
    # ``do i = n, 1, -1`` starts at its upper end: n gets an upper bound's default.
    descending = loop.stride.strip().startswith("-")
    span = _SPAN.match(loop.upper)
    if span and span.group(1).lower() == loop.lower.strip().lower() and not descending:
        # ``do j = jt, jt+ts-1`` (a tile, a block): jt cancels, and is no problem symbol
        lower, upper = E.Num(0), ctx.expr("0" + span.group(2), "upper")
    else:
        lower = ctx.expr(loop.lower, "upper" if descending else "lower")
        upper = ctx.expr(loop.upper, "lower" if descending else "upper")
    if loop.stride.strip() in ("", "1"):
        trips = upper - lower + 1
    elif averaged and loop.stride.strip() == "-1":  # a mean count need not be whole
        trips = lower - upper + 1
    else:
        trips = E.func("FLOOR", (upper - lower) / ctx.expr(loop.stride), 1) + 1
    # A loop whose bounds cross runs no iteration (not a negative number of them).
    if isinstance(trips, E.Num):
        return E.Num(max(0, trips.value))
    return E.maximum(0, trips)


def copies_expr(pattern: Pattern, ctx: ModelContext) -> E.Expr:
    """Copies of a pattern per cell: the trips of its component loops (the most, if several),
    times the elements each iteration of a stepped loop touches (``step_copies``)."""
    if not pattern.copy_chains:
        return E.Num(pattern.step_copies)
    products = [E.mul(*[trip_count(lp, ctx) for lp in chain]) for chain in pattern.copy_chains]
    copies = products[0] if len(products) == 1 else E.maximum(*products)
    return copies if pattern.step_copies == 1 else E.mul(pattern.step_copies, copies)


def pattern_bytes(ctx: ModelContext, shape: NestShape, pattern: Pattern) -> E.Param:
    """The element size parameter of a pattern's array (:mod:`sat.model.elements`)."""
    return element_bytes(ctx, shape.procedure.name, pattern.array, pattern.datatype)


@dataclass
class NestSpace:
    """Quantities of the iteration and block space of one nest."""

    extent: list[E.Quantity]  # iterations along X, Y, Z
    sweeps: E.Quantity
    block: list[E.Quantity]  # block iteration space along X, Y, Z
    x_lines: E.Quantity  # block X rounded up to whole cache lines
    blocks: E.Quantity  # number of blocks
    iterations: E.Quantity  # sweeps * X * Y * Z
    probability: float = 1.0  # the nest runs only when its enclosing branch arms are taken


def _key(shape: NestShape, name: str) -> tuple:
    return ("loop", shape.ident, name)


def nest_space(shape: NestShape, ctx: ModelContext, probability: float = 1.0) -> NestSpace:
    """Build the iteration-space quantities of a nest (extents, blocks, cache lines).

    ``probability`` is the chance the nest runs at all (it sits inside conditional arms).
    """
    tile_of: dict[int, tuple[Loop, E.Expr]] = {}
    for tile, inner, _ in shape.tiles:
        size = trip_count(at_tile_start(inner, tile), ctx)
        # the inner loop runs one tile wherever it is met (the flop counts too), not a count
        # depending on the tile loop's variable
        ctx.trip_counts[(inner.lower, inner.upper, inner.stride)] = size
        tile_of[id(inner)] = (tile, size)
    tiled = {axis: tile_of[id(inner)][1] for _, inner, axis in shape.tiles}

    def trips(lp: Loop) -> E.Expr:
        if id(lp) in tile_of:
            tile, size = tile_of[id(lp)]
            return E.mul(trip_count(tile, ctx), size)
        return trip_count(lp, ctx)

    extents = []
    for a, loops in enumerate(shape.axis_loops):
        expr = E.maximum(*[trips(lp) for lp in loops]) if loops else E.Num(1)
        extents.append(E.Quantity(_key(shape, f"iter_{AXES[a]}"), expr, "iterations",
                                  f"iterations along {AXES[a].upper()}"))
    sweep_expr = E.mul(*[trip_count(lp, ctx) for lp in shape.sweep_loops],
                       *[arm.count for arm in shape.repeats])
    sweeps = E.Quantity(_key(shape, "sweeps"), sweep_expr, "", "sweeps")
    blocks_along = []
    block = []
    for a, extent in enumerate(extents):
        tiles = [lp.tile for lp in shape.axis_loops[a] if lp.tile]
        size = ctx.expr(tiles[0], "upper") if tiles else ctx.param(BLOCK_PARAMS[a])
        # 0 (or less) means no blocking along the axis; a block never exceeds the extent.
        # A tile written in the source is the block along its axis.
        expr = E.minimum(tiled[a], extent) if a in tiled else \
            E.if_(E.compare(">", size, 0), E.minimum(size, extent), extent)
        block.append(E.Quantity(_key(shape, f"block_{AXES[a]}"), expr, "iterations",
                                f"block iterations along {AXES[a].upper()}"))
        # MAX(…, 1): an empty nest (extent 0) has no block, not 0/0 of them.
        blocks_along.append(E.Ref(extent) / E.maximum(E.Ref(block[a]), 1))
    x_lines = E.Quantity(_key(shape, "block_x_lines"), round_to_lines(block[0], ctx),
                         "elements", "block X rounded up to whole cache lines")
    blocks = E.Quantity(_key(shape, "blocks"), E.mul(*blocks_along), "blocks",
                        "number of blocks")
    iterations = E.Quantity(_key(shape, "iterations"), E.mul(sweeps, *extents), "iterations",
                            "iterations of the nest")
    return NestSpace(extents, sweeps, block, x_lines, blocks, iterations, probability)
