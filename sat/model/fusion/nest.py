"""The fused nest of a legal group, as code: one loop tree holding the members' work.

The members share one loop tree (:func:`~sat.model.fusion.candidates.loop_tree`), so the
fused nest is that tree with, at each level, the members' work side by side: the flops add
up, the scalars and calls are put together (the register count merges scalars by name, so a
temporary every member uses is one state variable), and the references to one
array-component pair at one level become one pair with all their accesses.  The model then
sees an array several members read as read once per iteration, with the union of their
stencils, and its working sets grow accordingly.

A value a member writes and a later member reads at the same offset (legal fusion allows no
other) is still in a register or the cache when it is read: the later member's read costs no
traffic, so its reference is taken as written first (``writeread``), and the pair is a
written (W) one rather than read-written (RW).  The written arrays are all still stored:
whether one is dead after the group (and could become a scalar) is not known here.
"""

from __future__ import annotations

from dataclasses import replace

from sat.ir import AccessType, Array, Body, Branch, Loop, Procedure
from sat.model.fusion.candidates import DataKey, touches

_WRITTEN_FIRST = ("writeonly", "writeread")


def _then(first: AccessType, second: AccessType) -> AccessType:
    """The access type of a pair used as ``first`` and then as ``second``."""
    if first in _WRITTEN_FIRST:
        return "writeonly" if first == second == "writeonly" else "writeread"
    if first == "readonly":
        return "readonly" if second == "readonly" else "readwrite"
    return "readwrite"


def _overlaps(key: DataKey, written: set[DataKey]) -> bool:
    return any(key[0] == w[0] and (not key[1] or not w[1] or key[1] == w[1]) for w in written)


def _forwarded(body: Body, written: set[DataKey]) -> Body:
    """A copy of a member's level (and all below) whose reads of data an earlier member wrote
    are served by that write (the pair is written first in the fused nest)."""
    arrays = []
    for array in body.arrays:
        key = (array.name.lower(), array.component.lower())
        if _overlaps(key, written) and array.accesstype not in _WRITTEN_FIRST:
            array = replace(array, accesstype="writeread", firstaccess="store")
        arrays.append(array)
    return replace(body, arrays=arrays,
                   loops=[_forwarded(child, written) for child in body.loops],  # type: ignore
                   branches=[_forwarded(arm, written) for arm in body.branches])  # type: ignore


def _merge(a: Body, b: Body) -> Body:
    """Level ``a`` followed by level ``b`` (same loop header), child loops merged in pairs."""
    arrays: dict[DataKey, Array] = {}
    for array in [*a.arrays, *b.arrays]:
        key = (array.name.lower(), array.component.lower())
        if key in arrays:
            held = arrays[key]
            arrays[key] = replace(held, accesstype=_then(held.accesstype, array.accesstype),
                                  accesses=[*held.accesses, *array.accesses])
        else:
            arrays[key] = array
    branches: list[Branch] = [*a.branches, *b.branches]
    return replace(a, adds=a.adds + b.adds, multiplies=a.multiplies + b.multiplies,
                   divides=a.divides + b.divides, specials=a.specials + b.specials,
                   scalars=[*a.scalars, *b.scalars], arrays=list(arrays.values()),
                   calls=[*a.calls, *b.calls], branches=branches,
                   loops=[_merge(x, y) for x, y in zip(a.loops, b.loops, strict=True)])


def fused_loop(nests: list[Loop]) -> Loop:
    """The fused nest of ``nests`` (a legal group: one loop tree), at the first one's line."""
    written: set[DataKey] = set()
    fused: Body | None = None
    for member in nests:
        copy = _forwarded(member, written) if written else member
        fused = copy if fused is None else _merge(fused, copy)
        written |= set(touches(member).writes)
    return fused  # type: ignore[return-value]


def member_lines(nests: list[Loop], fused: Loop) -> dict[int, int]:
    """The line in the fused nest of each member's loop (a fused level is at its first
    member's line; loops in branch arms keep theirs)."""
    lines: dict[int, int] = {}

    def walk(member: Body, level: Body) -> None:
        for a, b in zip(member.loops, level.loops, strict=True):
            lines[a.line] = b.line
            walk(a, b)

    for member in nests:
        lines[member.line] = fused.line
        walk(member, fused)
    return lines


def fused_procedure(procedure: Procedure, name: str, loops: list[Loop]) -> Procedure:
    """A procedure holding only the fused nests ``loops``, named ``name`` (the toggle's
    name, so that its quantities are told apart from the members'); declarations, layout and
    constants are the original's."""
    return replace(procedure, name=name, loops=loops, branches=[], arrays=[], scalars=[],
                   calls=[], comms=[], adds=0, multiplies=0, divides=0, specials=0)
