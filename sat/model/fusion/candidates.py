"""Loop fusion candidates: runs of consecutive nests with one iteration space, and whether
fusing them keeps every dependence.

A *run* is a maximal sequence of two or more consecutive loop nests of a procedure that

- sit directly in the procedure's body (not inside a branch arm),
- have the same loop tree: the same loop variables in the same order, with textually equal
  bounds and strides (whitespace and case aside), level by level, and
- have nothing between them that fusion would have to move across them: the procedure's own
  statements between the first line of one nest and the first line of the next (array
  references, scalars' first uses, calls) touch none of the run's arrays and scalars, and none
  of them is a conditional, a communication or a call to a procedure of the sources (which may
  touch any data).  A call to a procedure that is not in the sources touches its arguments
  only, as the model assumes everywhere (a timer's ``call start(t_loop2)`` moves).

Fusing a run interleaves its nests iteration by iteration.  That keeps the program's meaning
when no data flows between two iterations that change order.  The rule, conservative:

- **flow**: a nest reads data (an array-component pair) an earlier nest of the run writes, at
  a different offset along a loop variable (a fused axis) than the write;
- **anti**: a nest writes data an earlier nest reads, at a different offset;
- **output**: two nests write the same data at different offsets;
- **scalars**: a scalar one nest writes and a later one reads before writing it (or the
  reverse) carries a value across the whole nest, which fusion would cut;
- **calls**: a nest calling a procedure that is not in the sources may write anything.

A symbolic offset along a loop variable counts as different from every other offset.  Equal
offsets (the same element in the same iteration, as ``flux(i,j,k)`` written by one nest and
updated by the next) are legal.  An illegal run is listed with the first conflict as its
reason; it is then split greedily from its first nest into the longest runs with no conflict
inside, and those of two or more nests are candidates of their own.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from sat.ir import Body, Loop, Procedure, Program
from sat.parameter import symbol_to_name

# (lower-case array name, lower-case component or "" for the whole array)
DataKey = tuple[str, str]
# offsets along the loop variables of an access: (loop variable, offset) pairs
Offset = tuple[tuple[str, int | str], ...]


@dataclass
class Candidate:
    """One candidate run of nests; ``parameter`` is its toggle (``""`` when illegal)."""

    procedure: Procedure
    nests: list[Loop]
    legal: bool
    reason: str = ""
    parameter: str = ""
    number: int = 0  # k of Fuse_<procedure>_<k>, legal groups only

    @property
    def lines(self) -> list[int]:
        return [loop.line for loop in self.nests]


def _text(expr: str) -> str:
    return "".join(expr.split()).lower()


def loop_tree(loop: Loop) -> tuple:
    """The loop tree of a nest: variables, bounds and strides level by level."""
    return (loop.loopvar.lower(), _text(loop.lower), _text(loop.upper), _text(loop.stride),
            loop.kind, tuple(loop_tree(child) for child in loop.loops),
            tuple((branch.times, tuple(loop_tree(child) for child in branch.all_loops()))
                  for branch in loop.branches))


_IDENTIFIER = re.compile(r"[A-Za-z_]\w*")


@dataclass
class _Between:
    """The procedure's own statements between two nests: the names they touch, and whether
    one of them cannot be moved at all (a branch, a communication, a call to a procedure of
    the sources, which may touch any data)."""

    names: set[str]
    fixed: str = ""  # what cannot be moved, "" if nothing


def _between(procedure: Procedure, first: Loop, second: Loop, known: set[str]) -> _Between:
    def inside(line: int) -> bool:
        return first.line < line < second.line

    found = _Between(set())
    for array in procedure.arrays:
        if any(inside(access.line) for access in array.accesses):
            found.names.add(array.name.lower())
    found.names.update(s.name.lower() for s in procedure.scalars if inside(s.line))
    for call in procedure.calls:
        if inside(call.line):
            if call.name.lower() in known:
                found.fixed = found.fixed or f"a call to {call.name} at line {call.line}"
            found.names.update(n.lower() for arg in call.args for n in _IDENTIFIER.findall(
                arg.split('"')[0].split("'")[0]))
    for branch in procedure.branches:
        if inside(branch.line):
            found.fixed = found.fixed or f"a conditional at line {branch.line}"
    for comm in procedure.comms:
        if inside(comm.line):
            found.fixed = found.fixed or f"a communication at line {comm.line}"
    return found


def _names(loop: Loop) -> set[str]:
    """Every array and scalar a nest touches (lower case)."""
    return {item.name.lower() for level in loop.levels()
            for item in (*level.arrays, *level.scalars)}


def runs(procedure: Procedure, modelled: set[int], known: set[str] = frozenset()
         ) -> list[list[Loop]]:
    """Maximal runs of two or more consecutive nests with one loop tree and nothing between
    that fusion would have to move across them.

    ``modelled``: ``id`` of the nests the model reports (set-up work breaks a run);
    ``known``: the names of the program's procedures (a call to one cannot be moved)."""
    nests = sorted(procedure.loops, key=lambda lp: lp.line)
    nested = [lp for branch in procedure.branches for lp in _outermost(branch)]
    found: list[list[Loop]] = []
    current: list[Loop] = []
    touched: set[str] = set()  # names the nests of the current run touch
    moved: set[str] = set()  # names the statements between them touch
    for loop in nests:
        joins = bool(current) and id(loop) in modelled and \
            loop_tree(loop) == loop_tree(current[-1]) and \
            not any(current[-1].line < other.line < loop.line for other in nested)
        if joins:
            between = _between(procedure, current[-1], loop, known)
            names = _names(loop)
            joins = not between.fixed and not (
                (moved | between.names) & (touched | names))
        if joins:
            current.append(loop)
            touched |= names
            moved |= between.names
            continue
        if len(current) > 1:
            found.append(current)
        current = [loop] if id(loop) in modelled else []
        touched, moved = (_names(loop) if current else set()), set()
    if len(current) > 1:
        found.append(current)
    return found


def _outermost(body: Body) -> list[Loop]:
    out = list(body.loops)
    for branch in body.branches:
        out.extend(_outermost(branch))
    return out


# ---------------------------------------------------------------- what a nest touches


@dataclass
class _Touch:
    """What one nest reads and writes: per data, the offsets along its loop variables."""

    reads: dict[DataKey, set[Offset]]
    writes: dict[DataKey, set[Offset]]
    names: dict[DataKey, str]
    scalars_read_first: set[str]  # read before any write: a value from before the nest
    scalars_written: set[str]
    unknown_calls: list[str]


def _offset(access, loopvars: set[str]) -> Offset:
    return tuple((v.lower(), o) for v, o in zip(access.loopvars, access.offsets, strict=False)
                 if v and v.lower() in loopvars)


def touches(loop: Loop) -> _Touch:
    """The data a nest reads and writes, with offsets along its loop variables."""
    loopvars = {lp.loopvar.lower() for lp in (loop, *loop.all_loops()) if lp.loopvar}
    touch = _Touch({}, {}, {}, set(), set(), [])
    first_type: dict[str, str] = {}
    for level in loop.levels():
        for call in level.calls:
            if not call.followed:
                touch.unknown_calls.append(call.name)
        for scalar in level.scalars:
            name = scalar.name.lower()
            if name in loopvars:
                continue
            first_type.setdefault(name, scalar.accesstype)
            if scalar.writes or scalar.accesstype != "readonly":
                touch.scalars_written.add(name)
        for array in level.arrays:
            key = (array.name.lower(), array.component.lower())
            touch.names.setdefault(key, array.key)
            for access in array.accesses:
                offset = _offset(access, loopvars)
                if access.reads or (not access.writes and array.accesstype != "writeonly"):
                    touch.reads.setdefault(key, set()).add(offset)
                if access.writes or (not access.reads and array.accesstype != "readonly"):
                    touch.writes.setdefault(key, set()).add(offset)
    # depth first, the outer level first: a scalar first met as a read at its first level
    touch.scalars_read_first = {name for name, kind in first_type.items()
                                if kind in ("readonly", "readwrite")}
    return touch


def _overlap(a: DataKey, b: DataKey) -> bool:
    return a[0] == b[0] and (not a[1] or not b[1] or a[1] == b[1])


def _describe(offset: Offset) -> str:
    """``(i+1,j,k)``: the subscripts along the loop variables."""
    parts = [v if o == 0 else f"{v}{o:+d}" if isinstance(o, int) else f"{v}+{o}"
             for v, o in offset]
    return "(" + ",".join(parts) + ")"


def _difference(first: Offset, second: Offset) -> str:
    """How ``second`` is placed from ``first`` along the loop variables ("+1 along j")."""
    a, b = dict(first), dict(second)
    found = []
    for var in dict.fromkeys([*a, *b]):
        x, y = a.get(var, 0), b.get(var, 0)
        if isinstance(x, int) and isinstance(y, int):
            if x != y:
                found.append(f"{y - x:+d} along {var}")
        elif x != y:
            found.append(f"{y} instead of {x} along {var}")
    return ", ".join(found)


def conflict(earlier: Loop, later: Loop, first: _Touch, second: _Touch) -> str:
    """Why ``later`` cannot be fused with ``earlier`` ("" when it can)."""
    for name in second.unknown_calls or first.unknown_calls:
        nest = later if second.unknown_calls else earlier
        return (f"the nest at line {nest.line} calls {name}, which is not in the sources "
                "(it may write any array)")
    checks = (("flow", "reads", first.writes, second.reads, "writes"),
              ("anti", "writes", first.reads, second.writes, "reads"),
              ("output", "writes", first.writes, second.writes, "writes"))
    for kind, verb, before, after, before_verb in checks:
        for key_after, offsets_after in after.items():
            for key_before, offsets_before in before.items():
                if not _overlap(key_after, key_before):
                    continue
                for o_before in sorted(offsets_before, key=str):
                    for o_after in sorted(offsets_after, key=str):
                        moved = _difference(o_before, o_after)
                        if moved:
                            name = second.names.get(key_after) or first.names[key_before]
                            return (f"{kind} dependence: the nest at line {later.line} {verb} "
                                    f"{name}{_describe(o_after)} at offset {moved} from "
                                    f"where the nest at line {earlier.line} {before_verb} it "
                                    f"{_describe(o_before)}")
    for name in sorted(first.scalars_written & second.scalars_read_first):
        return (f"scalar {name}: the nest at line {earlier.line} writes it and the nest at "
                f"line {later.line} reads the value")
    read_before = first.scalars_read_first - first.scalars_written
    for name in sorted(read_before & second.scalars_written):
        return (f"scalar {name}: the nest at line {earlier.line} reads it and the nest at "
                f"line {later.line} writes it")
    return ""


def _first_conflict(nests: list[Loop], data: list[_Touch]) -> tuple[int, str]:
    """(index of the first nest that conflicts with an earlier one, the reason) or (-1, "")."""
    for j in range(1, len(nests)):
        for i in range(j):
            reason = conflict(nests[i], nests[j], data[i], data[j])
            if reason:
                return j, reason
    return -1, ""


def parameter_name(procedure: str, number: int) -> str:
    """``Fuse_<procedure>_<k>``: the toggle of a procedure's k-th legal group."""
    return f"Fuse_{symbol_to_name(procedure)}_{number}"


def procedure_candidates(procedure: Procedure, modelled: set[int],
                         known: set[str] = frozenset()) -> list[Candidate]:
    """The candidate runs of one procedure, legal groups numbered in source order."""
    found: list[Candidate] = []
    for run in runs(procedure, modelled, known):
        data = [touches(loop) for loop in run]
        at, reason = _first_conflict(run, data)
        if at < 0:
            found.append(Candidate(procedure, run, True))
            continue
        found.append(Candidate(procedure, run, False, reason))
        start = 0
        while start < len(run) - 1:
            end = start + 1
            while end < len(run) and _first_conflict(run[start:end + 1],
                                                     data[start:end + 1])[0] < 0:
                end += 1
            if end - start > 1:
                found.append(Candidate(procedure, run[start:end], True))
            start = end
    number = 0
    for candidate in found:
        if candidate.legal:
            number += 1
            candidate.number = number
            candidate.parameter = parameter_name(procedure.name, number)
    return found


def candidates(program: Program, modelled: set[int]) -> list[Candidate]:
    """Every candidate run of the program, procedure by procedure in source order."""
    known = {procedure.name.lower() for procedure in program.procedures}
    return [c for procedure in program.procedures
            for c in procedure_candidates(procedure, modelled, known)]
