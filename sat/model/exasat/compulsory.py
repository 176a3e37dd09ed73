"""The elements a pattern touches once per nest: compulsory traffic ("reuse between blocks").

ExaSAT's grid has three axes; the other loops of a nest are sweeps that repeat it. For the
compulsory count (every element once, a lower bound) a sweep repeats a pattern's elements
only when it brings new ones:

* a repetition loop (its variable subscripts no array) brings no new element: the same
  elements are touched again. Only the passes of a time loop (:func:`time_passes`: a
  repetition loop around a call's work, around several nests each a row of its own, or a
  ``do while``) stream every array again, as in the original tool, unless they run inside a
  tile loop of the source: then they repeat one tile, which the code's own blocking keeps
  (the copy into a scratch tile inside ``do it``, which tiles only the product beside it);
* so does a loop around the whole grid (a time loop reading a per-step table, ``fict(t)``;
  a loop over a fourth index, ``u(i,j,k,n)``), as in the original tool;
* a loop beyond the three axes inside a loop of the grid, whose variable subscripts arrays
  (``do p`` around ``do k`` inside ``do q`` and ``do r``, in ``s(p) = s(p) +
  a(k,q,r)*c4(p,k)``) brings new elements of the patterns it subscripts
  (``c4``) and none of the others (``a(k,q,r)`` is read again for every ``p``), nor of a
  pattern whose other accesses run over the same dimension with a loop of an axis
  (``s(p)`` also written in ``do p`` of axis X: the same ``np`` elements).

A sweep whose variable moves some reference of the nest (in an offset: the tile loops ``do
ii = 1, n, 4`` around ``t(ti,tj) = a(ti+ii,tj+jj)``) and no reference of the pattern brings
the pattern no new elements: the scratch tile ``t`` holds the same 16 elements for every
tile, counted once (:func:`unplaced_sweeps`). A sweep whose variable moves nothing (a time
loop, one reading a per-step table ``f(t)``) is a repetition, left to the rules above.
When such a pattern is written before it is read in the nest (a scratch array,
:func:`written_first`), its elements stay in cache from one step of those sweeps to the
next when the block fits (reuse between planes): it moves once.

A pattern subscripted relative to a tile loop's variable (``t(j-jt+1, k-kt+1)``) is a
scratch tile: along those axes it holds one tile's elements, reused by every tile.

A repetition inside tile loops repeats one block: when the block's working set fits (reuse
between planes) its data stays from one repetition to the next as well.
"""

from __future__ import annotations

import dataclasses
import itertools
import math
import re
from collections.abc import Callable, Sequence

from sat.frontend.tiles import linear_form
from sat.ir import Access, Body, Branch, InlinedCall, Loop
from sat.model import expr as E

# (access, enclosing loops inside the nest, outermost first) of one pattern
Item = tuple[Access, tuple[Loop, ...]]
Point = tuple[int, int, int]


def local_axes(items: Sequence[Item], stepping: list[set[str]],
               tile_vars: set[str]) -> frozenset[int]:
    """Axes along which every access of the pattern is offset by a tile loop's variable:
    it holds one tile there."""
    if not tile_vars:
        return frozenset()
    words = re.compile(r"\b(" + "|".join(map(re.escape, sorted(tile_vars))) + r")\b", re.I)
    local: set[int] = set()
    plain: set[int] = set()
    for access, _ in items:
        for d, var in enumerate(access.loopvars):
            axis = next((a for a in range(3) if var and var.lower() in stepping[a]), None)
            if axis is None:
                continue
            offset = access.offsets[d] if d < len(access.offsets) else 0
            (local if isinstance(offset, str) and words.search(offset) else plain).add(axis)
    return frozenset(local - plain)


def is_repetition(sweep: Loop, subscripting: set[str]) -> bool:
    """Whether the sweep loop repeats the same elements: its variable subscripts no array
    (not in ``subscripting``), places no reference (``a(ti+ii)``: a tile's origin) and bounds
    no loop inside it."""
    var = sweep.loopvar.lower()
    if not var or var in subscripting:
        return False
    word = re.compile(rf"\b{re.escape(var)}\b", re.I)
    for body in sweep.levels():
        if body is not sweep and isinstance(body, Loop) and \
                not _trims(word, body) and word.search(f"{body.lower} {body.upper} {body.stride}"):
            return False
        if any(isinstance(offset, str) and word.search(offset) for array in body.arrays
               for access in array.accesses for offset in access.offsets):
            return False
    return True


def _trims(word: re.Pattern, inner: Loop) -> bool:
    """Whether the sweep's variable (``word``) only moves one end of the inner loop, plainly
    (``do m = k + 2, n``: a triangular range): its trips run over overlapping ranges, the
    same elements again. A tile's element loop (both ends move), a level's size ``m1(k)`` or
    a CSR row's ``rowptr(row)`` (the variable inside a reference) bring new elements."""
    lower, upper = str(inner.lower), str(inner.upper)
    if word.search(str(inner.stride)) or bool(word.search(lower)) == bool(word.search(upper)):
        return False
    moving = lower if word.search(lower) else upper
    return "(" not in moving and "[" not in moving


def time_passes(sweeps: Sequence[Loop], grid: set[int]) -> frozenset[int]:
    """Ids of the sweep loops that are the passes of a time loop: a nest split from a
    repetition loop around several (:class:`sat.model.nests.NestPart`), a ``do while``, or a
    loop whose grid loops are a call's work (``do t; call sweep(); end do``). A repetition
    loop written in the nest itself is one of the nest's own loops instead."""
    found = set()
    for sweep in sweeps:
        called = any(isinstance(arm, InlinedCall) and any(id(lp) in grid
                                                          for lp in arm.all_loops())
                     for arm in sweep.branches)
        if getattr(sweep, "whole", None) is not None or sweep.kind == "while" or called:
            found.add(id(sweep))
    return frozenset(found)


def new_element_sweeps(items: Sequence[Item], sweeps: Sequence[Loop], grid: set[int],
                       subscripting: set[str], tiled: set[int], in_grid: set[int],
                       passes: frozenset[int] = frozenset()) -> tuple[int, ...]:
    """Indexes into ``sweeps`` of the sweep loops that bring the pattern new elements (see
    the module); ``grid``: ids of the axis loops, ``subscripting``: the variables that
    subscript some array of the nest, ``tiled`` and ``in_grid``: ids of the loops inside a
    tile loop, inside an axis loop; ``passes``: ids of the passes of a time loop."""
    found = []
    for n, sweep in enumerate(sweeps):
        var = sweep.loopvar.lower()
        if id(sweep) not in passes and is_repetition(sweep, subscripting):
            continue  # a repetition of the nest's own: the same elements again
        if var not in subscripting or id(sweep) not in in_grid:
            # inside a tile loop, a loop whose variable subscripts no array repeats the tile;
            # one whose variable does (a tile's element loop outside the axis loops) moves on
            if var in subscripting or id(sweep) not in tiled:
                found.append(n)
            continue
        own = {d for access, chain in items for d in _dims(access, chain, {id(sweep)})}
        on_axes = {d for access, chain in items for d in _dims(access, chain, grid)}
        if own - on_axes:
            found.append(n)
    return tuple(found)


def _dims(access: Access, chain: tuple[Loop, ...], wanted: set[int]) -> list[int]:
    """Dimensions of ``access`` whose variable is that of a loop whose id is in ``wanted``
    (the innermost loop of that variable around the access)."""
    found = []
    for d, var in enumerate(access.loopvars):
        if not var:
            continue
        loop = next((lp for lp in reversed(chain) if lp.loopvar.lower() == var.lower()), None)
        if loop is not None and id(loop) in wanted:
            found.append(d)
    return found


def tile_repeats(sweeps: Sequence[Loop], subscripting: set[str], tiled: set[int]
                 ) -> tuple[int, ...]:
    """Indexes into ``sweeps`` of the repetitions (variables that subscript no array) inside
    a tile loop: each repeats one tile of the nest."""
    return tuple(n for n, sweep in enumerate(sweeps) if id(sweep) in tiled
                 and sweep.loopvar.lower() not in subscripting)


def _mentions(access: Access) -> set[str]:
    """Lower-case names a reference's subscripts use: its loop variables and the words of
    its offsets (``a(ti+ii)``: ``ti`` and ``ii``)."""
    words = {v.lower() for v in access.loopvars if v}
    for offset in access.offsets:
        if isinstance(offset, str):
            words.update(w.lower() for w in re.findall(r"[A-Za-z_]\w*", offset))
    return words


def placing_vars(accesses: Sequence[Access]) -> set[str]:
    """Names that move some reference of the nest: the words of its offsets (a tile's origin
    ``ii`` in ``a(ti+ii)``)."""
    return {w.lower() for access in accesses for offset in access.offsets
            if isinstance(offset, str) for w in re.findall(r"[A-Za-z_]\w*", offset)}


def unplaced_sweeps(items: Sequence[Item], sweeps: Sequence[Loop], placing: set[str],
                    key: str = "") -> frozenset[int]:
    """Indexes into ``sweeps`` of the sweeps whose variable moves some reference of the nest
    (``placing``) but none of the pattern's: each step of them touches the pattern's same
    elements again (a scratch tile reused by every tile). The words of the pattern's
    component (``key``, ``u.ir(k)``: a level of a work array, passed as ``u(ir(k))`` to a
    routine) move it too: each level is other elements."""
    if not placing or not any(sweep.loopvar and sweep.loopvar.lower() in placing
                              for sweep in sweeps):
        return frozenset()  # no sweep moves a reference: the pattern's words need not be read
    own = set().union(*(_mentions(access) for access, _ in items)) if items else set()
    component = key.split("@", 1)[0].partition(".")[2]
    own |= {w.lower() for w in re.findall(r"[A-Za-z_]\w*", component)}
    return frozenset(n for n, sweep in enumerate(sweeps) if sweep.loopvar
                     and sweep.loopvar.lower() in placing - own)


def written_first(items: Sequence[Item]) -> bool:
    """Whether the pattern's first reference in the nest only writes it (a scratch array:
    what it holds before the nest is never read)."""
    return bool(items) and items[0][0].writes > 0 and items[0][0].reads == 0


# an arm of a conditional around a reference: the branch and the branches of the body that
# holds it (its if/else chain among them, for an else's probability)
Arm = tuple[Branch, tuple[Branch, ...]]


def arm_paths(body: Body, path: tuple[Arm, ...] = ()) -> dict[int, tuple[Arm, ...]]:
    """The conditional arms around each reference below ``body`` (by the access's id; empty
    for a reference every iteration makes). A called procedure's work is no arm."""
    found: dict[int, tuple[Arm, ...]] = {}
    for array in body.arrays:
        for access in array.accesses:
            found[id(access)] = path
    for branch in body.branches:
        inner = path if isinstance(branch, InlinedCall) else \
            (*path, (branch, tuple(body.branches)))
        found.update(arm_paths(branch, inner))
    for loop in body.loops:
        found.update(arm_paths(loop, path))
    return found


def expected_elements(points: Sequence[tuple[tuple[int, ...], float]], base: Sequence[E.Expr],
                      repeats: E.Expr | None = None) -> E.Expr:
    """Expected distinct elements of a pattern whose references run with probabilities
    (``points``: each offset and the chance one iteration makes it, 1 for an unconditional
    one) over a grid of ``base`` points per axis (the three axes, and a loop beyond them:
    :mod:`sat.model.exasat.beyond_axes`), each iteration taking its arms independently. An
    element reached by references from k iterations is touched with probability
    1 - (1 - p)^k; ``repeats`` iterations (along the axes the pattern does not step; None:
    one) reach each element once more per offset. Along each axis an element is
    either in the interior (every offset reaches it) or one of the few near an edge (some
    offsets do): the sum over elements groups into one term per set of interior axes."""
    chance: dict[tuple[int, ...], float] = {}
    for point, p in points:  # the arms of one chain exclude each other: their chances add
        chance[point] = min(1.0, chance.get(point, 0.0) + p)
    # per axis: (key of the count of positions, the offsets' values that reach them) and
    # each key's count (None: one position)
    positions: list[list[tuple[object, frozenset[int]]]] = []
    counts: list[dict[object, E.Expr | None]] = []
    for a in range(len(base)):
        values = sorted({point[a] for point in chance})
        axis_counts, axis = sparse_axis_positions(values, base[a]) or \
            _dense_axis_positions(values, base[a])
        positions.append(axis)
        counts.append(axis_counts)
    missed: dict[tuple[object, ...], dict[float, int]] = {}
    for combination in itertools.product(*positions):
        miss = math.prod(1.0 - p for point, p in chance.items()
                         if all(point[a] in c[1] for a, c in enumerate(combination)))
        group = missed.setdefault(tuple(c[0] for c in combination), {})
        group[miss] = group.get(miss, 0) + 1
    terms = []
    for keys, group in missed.items():
        touched = E.add(*[E.mul(n, E.add(1, E.mul(-1, E.func("POWER", miss, repeats))))
                          if 0.0 < miss < 1.0 and repeats is not None
                          else E.Num(n * (1.0 - miss))
                          for miss, n in sorted(group.items())])
        if touched == E.Num(0):
            continue
        terms.append(E.mul(touched, *[counts[a][key] for a, key in enumerate(keys)
                                      if counts[a][key] is not None]))
    return E.add(*terms)


def _dense_axis_positions(values: Sequence[int], n: E.Expr
                          ) -> tuple[dict[object, E.Expr | None], list[tuple[object, frozenset]]]:
    """Positions along an axis of ``n`` points shifted by ``values`` (sorted), when ``n``
    spans the offsets: the interior (every offset reaches it, ``n`` less the span) and the
    few near an edge (one each, reached by the offsets on that side)."""
    lo, hi = values[0], values[-1]
    axis: list[tuple[object, frozenset]] = [("interior", frozenset(values))]
    axis += [("edge", frozenset(v for v in values if v <= lo + t)) for t in range(hi - lo)]
    axis += [("edge", frozenset(v for v in values if v >= lo + t + 1)) for t in range(hi - lo)]
    return {"interior": E.maximum(0, E.add(n, -(hi - lo))) if hi > lo else n,
            "edge": None}, axis


def sparse_axis_positions(values: Sequence[int], n: E.Expr
                          ) -> tuple[dict[object, E.Expr | None],
                                     list[tuple[object, frozenset]]] | None:
    """Positions along an axis of ``n`` points shifted by ``values`` (sorted) some of which
    lie more than one apart (planes read as rows far apart, ``z[ix(2, j, k)]``), grouped by
    the offsets that reach them, for any ``n``: a position ``y`` is reached by the offsets
    ``v`` with ``y - n < v <= y``, a run ``v_a .. v_b`` of consecutive sorted values, for
    ``y`` from ``max(v_b, v_(a-1) + n)`` up to ``min(v_a + n, v_(b+1))`` (exclusive). When
    ``n`` is shorter than a gap the ranges do not overlap and each offset alone reaches its
    ``n`` positions. None when the values are consecutive (:func:`_dense_axis_positions`)."""
    if len(values) < 2 or max(b - a for a, b in zip(values, values[1:], strict=False)) <= 1:
        return None
    counts: dict[object, E.Expr | None] = {}
    axis: list[tuple[object, frozenset]] = []
    m = len(values)
    for a in range(m):
        for b in range(a, m):
            low = E.Num(values[b]) if a == 0 else E.maximum(values[b], E.add(values[a - 1], n))
            high = E.add(values[a], n) if b == m - 1 else \
                E.minimum(E.add(values[a], n), values[b + 1])
            counts[(a, b)] = E.maximum(0, E.add(high, E.mul(-1, low)))
            axis.append(((a, b), frozenset(values[a:b + 1])))
    return counts, axis


def widest_extents(nest: Loop, axis_loops: Sequence[Sequence[Loop]], sweeps: Sequence[Loop],
                   new_sweeps: Sequence[int], base: list[E.Expr], kept: frozenset[int],
                   trips: Callable[[Loop], E.Expr],
                   summed: Callable[[tuple[Loop, ...]], E.Expr | None]) -> list[E.Expr]:
    """``base`` (a pattern's elements per axis) with the extent of each axis whose range a
    sweep repeating the pattern (not in ``new_sweeps``) moves at one end replaced by the
    widest range it sweeps (:func:`widest_ranges`), except along the ``kept`` axes. A loop
    of another axis whose range moves with a widened one (``do l = k, n`` in ``do k = j + 4,
    n``: a triangle) counts its trips over the widened loops (``summed``: the exact nested
    sum of a path, None when not affine), so the axes multiply to the widest triangle."""
    repeated = [n for n in range(len(sweeps)) if n not in new_sweeps]
    widest = widest_ranges(axis_loops, sweeps, repeated) if repeated else None
    if widest is None:
        return base
    copies = {id(lp): wide for a in range(3)
              for lp, wide in zip(axis_loops[a], widest[a], strict=True) if lp is not wide}
    found = []
    for a in range(3):
        counts = []
        for lp in axis_loops[a]:
            if id(lp) in copies:
                counts.append(trips(copies[id(lp)]))
                continue
            path = _loop_path(nest, lp, ())
            moved = path is not None and any(id(p) in copies for p in path[:-1])
            counts.append(summed(tuple(copies.get(id(p), p) for p in path))
                          if moved and path is not None else None)
        found.append(base[a] if a in kept or all(c is None for c in counts) or
                     None in counts else E.maximum(*counts))
    return found


def widest_across_invariant_axes(axis_loops: Sequence[Sequence[Loop]],
                                 invariant: frozenset[int], base: list[E.Expr],
                                 plain: Sequence[bool], trips: Callable[[Loop], E.Expr]
                                 ) -> list[E.Expr]:
    """``base`` with the extent of each axis whose one loop's range moves at one end with the
    loop of an axis the pattern does not step along (``coef(j)`` in ``do i = 16, 1, -1; do
    j = 1, i``) replaced by the widest of those ranges (:func:`widest_ranges`): the pattern's
    elements along that axis are the union over the other loop's trips, 1 to 16, not the
    mean range. Only the axes whose extent is the plain one (``plain``) change."""
    loops = [lp for a in sorted(invariant) for lp in axis_loops[a]]
    if not loops:
        return base
    others = [[] if a in invariant else list(axis_loops[a]) for a in range(3)]
    widest = widest_ranges(others, loops, range(len(loops)))
    if widest is None:
        return base
    return [trips(widest[a][0]) if plain[a] and len(axis_loops[a]) == 1 and a not in invariant
            and widest[a][0] is not axis_loops[a][0] else base[a] for a in range(3)]


def _loop_path(body: Body, target: Loop, above: tuple[Loop, ...]) -> tuple[Loop, ...] | None:
    """The loops from ``body`` (itself first when a loop) down to ``target``, or None."""
    if isinstance(body, Loop):
        above = (*above, body)
        if body is target:
            return above
    for child in (*body.loops, *body.branches):
        found = _loop_path(child, target, above)
        if found is not None:
            return found
    return None


def widest_ranges(axis_loops: Sequence[Sequence[Loop]], sweeps: Sequence[Loop],
                  repeated: Sequence[int]) -> list[list[Loop]] | None:
    """Each axis's loops with the variables of the ``repeated`` sweeps (indexes into
    ``sweeps``: they bring the pattern no new elements) at the value where the loop's range
    is widest, or None when no axis loop's range moves with one of them.

    A repetition that only moves one end of an axis loop's range (``do i = 0, 2; do j = i+1,
    8``) sweeps nested ranges: over all its trips the pattern touches the widest range (j
    from 1 to 8), not the mean one. When each range moved by such a sweep is widest at the
    same end of the sweep (every one shrinks as ``i`` grows, or every one grows), the union
    of the boxes is the box at that end: the product of the widest ranges. A range that
    also moves with a loop of another axis (a triangle), a sweep stepping by other than 1
    or whose own bounds move, or ranges widest at opposite ends keep the mean (None)."""
    names = {lp.loopvar.lower() for lp in (*sweeps, *(lp for a in axis_loops for lp in a))
             if lp.loopvar}
    ends: dict[str, str] = {}  # a sweep's variable -> the text of its value where ranges widen
    wanted: dict[str, int] = {}  # a sweep's variable -> +1 at its largest value, -1 smallest
    candidates = {}
    for n in sorted(repeated):  # outermost first: a range that moves with one before it
        sweep = sweeps[n]
        var = sweep.loopvar.lower()
        stride = sweep.stride.strip()
        if not var or sweep.kind == "tile" or stride not in ("", "1", "-1"):
            continue
        descending = stride == "-1"
        ends = {1: _at_extreme(sweep.lower if descending else sweep.upper, 1, candidates),
                -1: _at_extreme(sweep.upper if descending else sweep.lower, -1, candidates)}
        if all(end is not None and not any(re.search(rf"\b{re.escape(other)}\b", end, re.I)
                                           for other in names) for end in ends.values()):
            candidates[var] = ends  # type: ignore[assignment]
    widened = False
    found: list[list[Loop]] = []
    for loops in axis_loops:
        axis: list[Loop] = []
        for lp in loops:
            bounds = f"{lp.lower} {lp.upper} {lp.stride}"
            moving = [v for v in candidates if re.search(rf"\b{re.escape(v)}\b", bounds, re.I)]
            if not moving:
                axis.append(lp)
                continue
            if len(moving) > 1 or any(re.search(rf"\b{re.escape(other)}\b", bounds, re.I)
                                      for other in names - {moving[0]}):
                return None
            var = moving[0]
            sign = _growth(lp, var)
            if sign is None or wanted.setdefault(var, sign) != sign:
                return None
            ends[var] = candidates[var][sign]
            word = re.compile(rf"\b{re.escape(var)}\b", re.I)
            axis.append(dataclasses.replace(lp, lower=word.sub(f"({ends[var]})", lp.lower),
                                            upper=word.sub(f"({ends[var]})", lp.upper)))
            widened = True
        found.append(axis)
    return found if widened else None


def _at_extreme(bound: str, end: int, known: dict[str, dict[int, str]]) -> str | None:
    """``bound`` (affine in the variables of ``known``: each one's text at its largest, +1,
    and smallest, -1, value) at its largest value (``end`` +1) or smallest (-1): each
    variable at the end its coefficient's sign calls for; None when not affine."""
    used = [v for v in known if re.search(rf"\b{re.escape(v)}\b", bound, re.I)]
    if not used:
        return bound
    form = linear_form(bound)
    if form is None:
        return None
    text = bound
    for v in used:
        coefficient = next((c for name, c in form.items() if name.lower() == v), 0)
        if not coefficient:
            return None
        value = known[v][end if coefficient > 0 else -end]
        text = re.sub(rf"\b{re.escape(v)}\b", f"({value})", text, flags=re.I)
    return text


def _growth(loop: Loop, var: str) -> int | None:
    """+1 when ``loop``'s trip count grows with ``var`` (one end of its range moves with it,
    plainly), -1 when it shrinks, None otherwise."""
    word = re.compile(rf"\b{re.escape(var)}\b", re.I)
    if not _trims(word, loop):
        return None
    upper_moves = bool(word.search(str(loop.upper)))
    form = linear_form(str(loop.upper if upper_moves else loop.lower))
    coefficient = None if form is None else \
        next((c for name, c in form.items() if name.lower() == var), None)
    if not coefficient:
        return None
    descending = loop.stride.strip().startswith("-")
    sign = (1 if coefficient > 0 else -1) * (1 if upper_moves else -1)
    return -sign if descending else sign


def stepped_groups(step_offsets: Sequence[tuple[Point, Point]]) -> list[list[int]]:
    """A stepped pattern's references (indexes into ``step_offsets``: each one's offset in
    whole steps and its residue within a step), one list per residue.

    A loop stepping by ``s`` visits one element in ``s``; its references at offsets of the
    same residue modulo ``s`` touch the same elements shifted by whole steps, those of
    different residues disjoint elements (``a[k]`` and ``a[k-1]`` of ``k += 3``: two
    elements of each step, never the same). The distinct elements are the sum over the
    residues of the union of that residue's offsets over the grid of steps: empty when no
    loop of the nest steps by other than 1, or when one residue and no offset along any
    axis leave nothing to unite (the plain count)."""
    groups: dict[Point, list[int]] = {}
    for n, (_, residue) in enumerate(step_offsets):
        groups.setdefault(residue, []).append(n)
    if len(groups) == 1 and all(len({point[a] for point, _ in step_offsets}) == 1
                                for a in range(3)):
        return []
    return [groups[r] for r in sorted(groups)]


def sparse_axis_union(offsets: frozenset[Point], base: Sequence[E.Expr]) -> E.Expr | None:
    """Distinct elements of a grid of ``base`` points per axis shifted by ``offsets`` that
    differ along one axis only, some by more than one (planes of a 3-D array read through an
    index function as rows 34 apart, ``z[ix(2, j, k)]``): along that axis ``n`` points
    shifted by sorted offsets cover ``n`` plus, per gap to the next offset, ``MIN(n, gap)``
    (the shifted ranges overlap only when the gap is shorter than ``n``). None for any other
    set of offsets (the stencil's union of :func:`sat.model.exasat.memory.stencil_union`)."""
    moving = [a for a in range(3) if len({point[a] for point in offsets}) > 1]
    if len(moving) != 1:
        return None
    axis = moving[0]
    values = sorted({point[axis] for point in offsets})
    gaps = [high - low for low, high in zip(values, values[1:], strict=False)]
    if max(gaps) == 1:
        return None
    n = base[axis]
    along = E.add(n, *[E.minimum(n, gap) for gap in gaps])
    return E.mul(along, *[base[a] for a in range(3) if a != axis])


def triangle_halo(nest: Loop, axis_loops: Sequence[Sequence[Loop]], offsets: frozenset[Point],
                  invariant: frozenset[int], plain: bool,
                  terms: Sequence[tuple[int, tuple[int, int, int, int]]], planes: E.Expr
                  ) -> tuple[Loop, E.Expr] | None:
    """A halo along Y over a triangle (the X loop's range moving at one end with the Y loop's
    variable only, ``do j = 3, i`` in ``do i = 3, 42``) lengthens each column of the
    triangle, one per element of the widest X range, where the stencil's union (its ``terms``,
    :func:`sat.model.exasat.stencil.volume_terms`) counts rows of the mean length: the X loop
    at the Y variable's end where it is widest, and the rows the halo adds (per Z plane of
    ``planes``). None when the pattern is not stepped along X and Y, its references spread
    along X too (their halos meet on the diagonal), X's extent is not its plain mean
    (``plain``), or a bound uses another of the nest's loop variables."""
    if not plain or 0 in invariant or 1 in invariant or \
            len({point[0] for point in offsets}) > 1 or \
            len(axis_loops[0]) != 1 or len(axis_loops[1]) != 1:
        return None
    (x,), (y,) = axis_loops[0], axis_loops[1]
    others = {lp.loopvar.lower() for lp in (nest, *nest.all_loops()) if lp.loopvar} - \
        {y.loopvar.lower()}
    if any(re.search(rf"\b{re.escape(name)}\b", f"{lp.lower} {lp.upper} {lp.stride}", re.I)
           for name in others for lp in (x, y)):
        return None
    widest = widest_ranges([axis_loops[0], [], []], [y], [0])
    if widest is None:
        return None
    rows = sum(c_i + c_1 for _, (_, _, c_i, c_1) in terms)
    in_planes = sum(c_i for _, (_, _, c_i, _) in terms)
    extra = E.add(E.mul(in_planes, planes), rows - in_planes) if in_planes else E.Num(rows)
    return widest[0][0], extra


def stepped_union(points: Sequence[Point], groups: Sequence[Sequence[int]],
                  union: Callable[[frozenset[Point]], E.Expr],
                  chances: Sequence[tuple[Point, float]] | None, base: Sequence[E.Expr],
                  repeats: E.Expr | None) -> E.Expr:
    """Distinct elements of a stepped pattern: the ``union`` of each residue's references
    (``groups`` of indexes into ``points``, :func:`stepped_groups`) over the grid of steps,
    their expected elements when some sit in if/else arms (:func:`expected_elements`,
    ``chances`` in the order of ``points``)."""
    terms = []
    for group in groups:
        count = union(frozenset(points[n] for n in group))
        if chances is not None and any(chances[n][1] < 1.0 for n in group):
            count = E.minimum(expected_elements([chances[n] for n in group], base, repeats),
                              count)
        terms.append(count)
    return E.add(*terms)
