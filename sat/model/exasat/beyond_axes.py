"""Offsets along a loop beyond the three axes: the distinct elements of their union.

ExaSAT's grid has three axes; a nest's other loops are sweeps around them (a stepped loop
over the contiguous dimension outside the others, ``do j = 3, 14, 3`` around ``do k``) or
component loops inside them (a short loop over the contiguous dimension, ``for (k = 2; k <
18; k += 2)`` inside ``i`` and ``j``). Their trips multiply a pattern's elements, which is
exact only when every reference sits at the same offset along that loop. References at
other offsets there (``inp(j - 1, k, i)`` beside ``inp(j, k, i)``; ``a[i][j][k - 2]``)
reach other elements: along such a loop of step ``s`` an offset ``o`` reaches the values of
residue ``o mod s``, shifted by ``floor(o / s)`` steps. The pattern's elements are then the
union of the grid of four axes (X, Y, Z and the loop's trips, in steps) shifted by each
reference's point, one union per residue (:func:`sat.model.exasat.compulsory.
expected_elements`, exact for any offsets, with the chance of each reference's arms).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from sat.ir import Access, Loop
from sat.model import expr as E
from sat.model.exasat.compulsory import expected_elements
from sat.model.exasat.steps import literal_step

# a reference's loop beyond the axes (None: it has none) and its offset along it
Beyond = tuple[Loop, int] | None


def beyond_offset(access: Access, chain: Sequence[Loop], stepping: Sequence[set[str]]
                  ) -> Beyond:
    """The loop around ``access`` (in ``chain``, innermost last) whose variable subscripts
    it but steps along no axis (``stepping``), with the reference's integer offset along it;
    None when there is none, several, or the offset is not a number."""
    axis_vars = set().union(*stepping)
    found = []
    for d, var in enumerate(access.loopvars):
        if not var or var.lower() in axis_vars:
            continue
        loop = next((lp for lp in reversed(chain) if lp.loopvar.lower() == var.lower()), None)
        offset = access.offsets[d] if d < len(access.offsets) else 0
        if loop is None or not isinstance(offset, int):
            return None
        found.append((loop, offset))
    return found[0] if len(found) == 1 else None


def beyond_points(entries: Sequence[Beyond]) -> tuple[Loop, tuple[tuple[int, int], ...]] | None:
    """The loop beyond the axes and, per reference, (residue within its step, offset in whole
    steps), when every reference of a pattern has one, the same loop, of a literal step, at
    offsets not all equal; None otherwise (the trips multiply the elements exactly)."""
    if not entries or any(e is None for e in entries):
        return None
    loops = {id(e[0]) for e in entries}  # type: ignore[index]
    if len(loops) != 1 or len({e[1] for e in entries}) == 1:  # type: ignore[index]
        return None
    loop = entries[0][0]  # type: ignore[index]
    if loop.kind == "tile" or not re.fullmatch(r"-?\d*", loop.stride.strip()):
        return None  # a tile's origin, or a step the source does not give
    step = abs(literal_step(loop))
    return loop, tuple((o % step, o // step) for _, o in entries)  # type: ignore[misc]


def residue_groups(points: Sequence[tuple[int, int]]) -> list[list[int]]:
    """Indexes of the references of each residue (the values of one residue are distinct
    from those of another)."""
    groups: dict[int, list[int]] = {}
    for n, (residue, _) in enumerate(points):
        groups.setdefault(residue, []).append(n)
    return [groups[r] for r in sorted(groups)]


def beyond_union(beyond: tuple[Loop, tuple[tuple[int, int], ...]],
                 points: Sequence[tuple[int, ...]], chances: Sequence[float] | None,
                 base: Sequence[E.Expr], trips: E.Expr, repeats: E.Expr | None) -> E.Expr:
    """Distinct elements of a pattern whose references (``points`` on the three axes, in the
    order of ``beyond``'s offsets) sit at several offsets along a loop beyond the axes of
    ``trips`` trips: per residue of its step, the union of the grid of ``base`` points per
    axis and ``trips`` steps shifted by each reference's point and offset in steps, each
    reference made with its chance (``chances``; None: every iteration)."""
    _, steps = beyond
    terms = []
    for group in residue_groups(steps):
        terms.append(expected_elements(
            [((*points[n], steps[n][1]), 1.0 if chances is None else chances[n]) for n in group],
            [*base, trips], repeats))
    return E.add(*terms)
