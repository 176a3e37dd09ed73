"""How a nest's loops sit on the three axes: loops of one axis nested in each other, the
order of the axes' loops, loops whose range moves with an enclosing one, and tile loops.

:func:`sat.model.exasat.iteration.analyse_nest` maps each loop to an axis (X the unit
stride, then Y and Z) or to a sweep; these functions read the loop structure around that
mapping. They know only the IR's loops.
"""

from __future__ import annotations

import re

from sat.ir import Loop
from sat.model.nests import literal_trips

AXES = ("x", "y", "z")


def moving_loops(axis_loops: list[list[Loop]]) -> list[tuple[Loop, Loop, int]]:
    """(inner, outer, axis) of each loop whose range moves with an enclosing loop that steps
    along the same axis: ``do k = rowptr(i), rowptr(i+1) - 1`` inside ``do i`` (a CSR row).

    ``k`` covers a new stretch of its arrays for every ``i``: it is not another extent of the
    axis (whose grid is the larger trip count) but a component loop, whose trips multiply the
    elements of the arrays it subscripts at each point of ``i``.
    """
    found = []
    for axis, on_axis in enumerate(axis_loops):
        ids = {id(lp) for lp in on_axis}
        for outer in on_axis:
            pattern = re.compile(rf"\b{re.escape(outer.loopvar.lower())}\b", re.I)
            found.extend((inner, outer, axis) for inner in outer.all_loops()
                         if id(inner) in ids and inner is not outer
                         and pattern.search(f"{inner.lower} {inner.upper}"))
    return found


def separate_nested(axis_loops: list[list[Loop]], others: list[Loop]) -> list[str]:
    """Give each loop nested inside another loop of its axis an axis of its own.

    An axis's loops are alternatives whose largest trip count is its extent (two ``j`` loops
    one after the other); two loops of one axis nested one in the other multiply instead. In
    ``c(j,i) += a(k,i)*b(j,k)`` (``do i; do k; do j``) ``k`` subscripts the unit-stride
    dimension of ``a`` and the second of ``b``, a tie that put it on X with ``j``: the nest
    then counted ``max(nk, nj)`` iterations along X in place of ``nk*nj``. The outer loop
    of the two moves to a free axis, else it becomes a sweep (or a component loop inside the
    grid loops); Y and Z swap if the moved loop's axis then runs inside the other's.
    """
    notes = []
    while (pair := nested_pair(axis_loops)) is not None:
        axis, outer, _ = pair
        # the model reads an axis's loop as running inside those of the axes after it: the
        # inner loop keeps the axis (X innermost, the unit stride), the outer one moves
        axis_loops[axis] = [lp for lp in axis_loops[axis] if lp is not outer]
        free = next((a for a in range(3) if not axis_loops[a]), None)
        (others if free is None else axis_loops[free]).append(outer)
        where = "a sweep or component loop" if free is None else f"axis {AXES[free].upper()}"
        notes.append(f"loop {outer.loopvar} (line {outer.line}) is nested with another loop "
                     f"of axis {AXES[axis].upper()}: taken as {where}, whose trips multiply")
    # the model reads its axes innermost first (X, then Y, then Z): a Y loop around the Z
    # loop (gemm's i around k) swaps the two, so that reuse across them is counted
    swapped = [axis_loops[0], axis_loops[2], axis_loops[1]]
    if notes and not in_axis_order(axis_loops) and in_axis_order(swapped):
        axis_loops[1], axis_loops[2] = swapped[1], swapped[2]
        notes.append("axes Y and Z swapped to follow the nesting of their loops")
    return notes


def nested_pair(axis_loops: list[list[Loop]]) -> tuple[int, Loop, Loop] | None:
    """(axis, outer, inner) of the first two loops of one axis, one inside the other.

    An array section of literal bounds inside a loop of its axis (``w = q(i,j-4:j+4,k)``
    inside ``do j``: -4..4) is no such pair: it covers a stencil's offsets around the outer
    loop's point, its trips do not multiply (see :func:`sweeping_loops`)."""
    for axis, on_axis in enumerate(axis_loops):
        for outer in on_axis:
            inside = {id(lp) for lp in outer.all_loops()}
            inner = next((lp for lp in on_axis if id(lp) in inside
                          and not (lp.kind == "array" and literal_trips(lp) is not None)),
                         None)
            if inner is not None:
                return axis, outer, inner
    return None


def tile_loops(others: list[Loop], axis_loops: list[list[Loop]]
                ) -> list[tuple[Loop, Loop, int]]:
    """(tile, inner, axis) of each non-axis loop whose variable starts an axis loop inside it
    (``do jt = 1, n, ts`` around ``do j = jt, min(n, jt+ts-1)``; not ``do k = rowptr(i), …``,
    a row of a sparse matrix, which is no tile). A tile loop steps by more than one, or its
    element loop ends within the tile: ``do k = j + 2, n`` inside ``do j = i, 3`` is a
    triangular range, whose count the nested sums take (:mod:`sat.model.sums`)."""
    found = []
    for tile in others:
        if not tile.loopvar:
            continue
        start = re.compile(rf"^\s*{re.escape(tile.loopvar.lower())}\s*([+-][^,]*)?$", re.I)
        named = re.compile(rf"\b{re.escape(tile.loopvar)}\b", re.I)
        unit = tile.stride.strip() in ("1", "")
        inside = {id(lp) for lp in tile.all_loops()}
        for axis, on_axis in enumerate(axis_loops):
            inner = next((lp for lp in on_axis if id(lp) in inside and start.match(lp.lower)
                          and not (unit and not named.search(lp.upper))), None)
            if inner is not None:
                found.append((tile, inner, axis))
                break
    return found


def x_tiles_share_lines(loops: list[Loop], axis_loops: list[list[Loop]]) -> bool:
    """Whether the source tiles X (:mod:`sat.frontend.tiles`) with tile loops that hold no
    loop of Y or Z (``do ii = 1, n, 4; do i = ii, min(ii+3, n)`` alone, or inside the row
    loop): the next tile continues the line the last one ended in, still in every cache."""
    x_tiled = [lp for lp in axis_loops[0] if lp.tile]
    others = {id(lp) for lp in (*axis_loops[1], *axis_loops[2])}
    found = False
    for x_loop in x_tiled:
        for tile in loops:
            inside = {id(lp) for lp in tile.all_loops()}
            if tile.kind == "tile" and id(x_loop) in inside \
                    and tile.stride.strip() == x_loop.tile.strip():
                if not others.isdisjoint(inside):
                    return False
                found = True
    return found


def at_tile_start(inner: Loop, tile: Loop) -> Loop:
    """``inner`` with the tile loop's variable at its first value: one tile's bounds."""
    pattern = re.compile(rf"\b{re.escape(tile.loopvar)}\b", re.I)
    start = f"({tile.lower})"
    return Loop(line=inner.line, loopvar=inner.loopvar, lower=pattern.sub(start, inner.lower),
                upper=pattern.sub(start, inner.upper), stride=inner.stride, file=inner.file)


def sweeping_loops(axis_loops: list[list[Loop]]) -> list[list[Loop]]:
    """Each axis's loops without its windows: a loop inside another loop of its own axis
    covers offsets around that loop's point (``w = q(i,j-4:j+4,k)`` inside ``do j``: a
    stencil's -4..4), it sweeps nothing."""
    def window(loop: Loop, on_axis: list[Loop]) -> bool:
        return any(id(loop) in {id(lp) for lp in outer.all_loops()}
                   for outer in on_axis if outer is not loop)

    return [[lp for lp in on_axis if not window(lp, on_axis)] for on_axis in axis_loops]


def in_axis_order(axis_loops: list[list[Loop]]) -> bool:
    """Whether no loop of an axis encloses a loop of an outer axis (X around Y, Y around Z)."""
    sweeping = sweeping_loops(axis_loops)
    for axis in range(2):
        for loop in sweeping[axis]:
            inside = {id(lp) for lp in loop.all_loops()}
            if any(id(lp) in inside for outer in sweeping[axis + 1:] for lp in outer):
                return False
    return True


def x_innermost(axis_loops: list[list[Loop]]) -> bool:
    """Whether X's loops run inside every loop of Y and Z, whatever the order of those two
    (``do i; do k; do j`` with X on j): an array X does not subscript keeps its element
    through a whole row of X, as in ExaSAT's order."""
    return bool(axis_loops[0]) and not axes_inside_x(axis_loops) and all(
        any(id(x_loop) in {id(inner) for inner in lp.all_loops()} for x_loop in axis_loops[0])
        for a in (1, 2) for lp in axis_loops[a])


def axes_inside_x(axis_loops: list[list[Loop]]) -> frozenset[int]:
    """Axes with a loop inside a loop of X: the loops one step of X sweeps."""
    sweeping = sweeping_loops(axis_loops)
    inside = {id(lp) for x_loop in sweeping[0] for lp in x_loop.all_loops()}
    return frozenset(a for a in (1, 2) if any(id(lp) in inside for lp in sweeping[a]))
