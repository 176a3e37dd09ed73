"""Loop nests: the unit the model reports on (one row per outermost loop of a procedure).

A repetition loop (a time loop: its variable subscripts no array and bounds no loop inside it;
a DO WHILE, which has no variable) around several sibling loops runs each of them in turn:
each sibling, with the repetition loops that enclose it, is a nest of its own
(:class:`NestPart`, its row at the sibling's line), whose sweeps are the loops around *it*;
the repetition loop's own statements count with its first sibling.  The siblings are found
through the arms between the repetition loop and them as well: a kernel called in the loop
(the callee's work written in, :mod:`sat.model.calls`) and a nest inside an ``if`` or
``else`` are siblings like the loops written in the loop itself, each its own nest, which
keeps the arms on its way (a call's work is still the callee's; an arm's statements count
with its first sibling).  An arm whose condition is on the repetition loop's own variable
(``if (ncycle > 1)``) is no probability: its nest is the repetition loop over the passes it
runs on (:mod:`sat.model.conditions`); any other arm keeps its probability
(:attr:`NestPart.guards`).  Two other loops split the same way (:func:`_splits`): one whose
variable only sizes or places its siblings (NPB MG's level loop, ``u(ir(k))``, ``m1(k)``),
and one with a sibling inside a conditional arm; a grid loop around a single loop that
splits is around each of its parts.

A nest is *reported* (a row of the Loops sheet) unless it is fixed setup work: every bound
of every loop in it is a literal number (so its cost does not grow with any problem
parameter), it runs fewer iterations than ``SetupIterations`` (1000 unless set) and it touches
no multi-dimensional array through its loop variables.  The
original tool dropped such nests too (``do i = 1, 3`` filling ``dxinv(i) = 1/dx(i)`` in
hypterm); satreport lists them in the Notes sheet instead of silently ignoring them.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterator
from typing import TypeVar

from sat.ir import Body, Branch, Call, InlinedCall, Loop, Procedure, Program
from sat.model.conditions import arm_range
from sat.regex import LazyPattern

B = TypeVar("B", bound=Body)
_NUMBER = re.compile(r"^\s*[-+]?\d+\s*$")


def outermost_loops(body: Body) -> Iterator[Loop]:
    """Outermost loops of a body in program order, looking through branches."""
    yield from body.loops
    for branch in body.branches:
        yield from outermost_loops(branch)


@dataclasses.dataclass
class NestPart(Loop):
    """A repetition loop around one of its sibling loops: a nest of its own (its ``line`` is
    the sibling's). ``whole`` is the repetition loop of the source; ``guards``, the conditional
    arms between the repetition loop and the sibling that the part keeps (their probability
    is the chance the sibling runs on a pass)."""

    whole: Loop | None = None
    guards: tuple[Branch, ...] = ()

def program_nests(program: Program) -> Iterator[tuple[Procedure, Loop]]:
    """Every (procedure, nest) pair of the program in program order: the outermost loops, a
    repetition loop around sibling loops as one nest per sibling (:func:`nest_parts`)."""
    for procedure in program.procedures:
        for loop in sorted(outermost_loops(procedure), key=lambda lp: lp.line):
            for part in nest_parts(loop):
                yield procedure, _repeat_unused_tiles(part)


def _uses(name: str, loop: Loop) -> bool:
    """Whether any array subscript or loop bound below ``loop`` uses the variable ``name``.

    A table indexed by the pass alone, read beside arrays that other loops' variables
    subscript (PolyBench's ``ey(j,1) = fict(t)``, a boundary value per time step), does not
    count: the loop still repeats each of its sibling loops."""
    word = re.compile(rf"\b{re.escape(name)}\b", re.I)
    for body in loop.levels():
        subscripts = [{v.lower() for v in access.loopvars if v} for array in body.arrays
                      for access in array.accesses] if body is not loop else []
        in_sweep = any(used - {name} for used in subscripts)
        if any(name in used and (used - {name} or not in_sweep) for used in subscripts):
            return True
        if body is not loop and isinstance(body, Loop) and \
                word.search(f"{body.lower} {body.upper} {body.stride}"):
            return True
        if any(isinstance(o, str) and word.search(o) for array in body.arrays
               for access in array.accesses for o in access.offsets):
            return True
    return False


_OWN_WORK = ("adds", "multiplies", "divides", "specials", "scalars", "arrays", "calls")


def _has_loops(body: Body) -> bool:
    return bool(body.loops) or any(_has_loops(branch) for branch in body.branches)


def _siblings(body: Body) -> list[tuple[tuple[Branch, ...], Loop]]:
    """The outermost loops below ``body`` with the arms on the way to each, in program order
    (a loop inside an arm at the place of the arm)."""
    found: list[tuple[int, tuple[tuple[Branch, ...], Loop]]] = \
        [(loop.line, ((), loop)) for loop in body.loops]
    found.extend((branch.line, ((branch, *path), loop)) for branch in body.branches
                 for path, loop in _siblings(branch))
    return [item for _, item in sorted(found, key=lambda pair: pair[0])]


def _chains(body: Body) -> dict[int, list[Branch]]:
    """The if/else-if/else chain of each arm of ``body``, by ``id`` of the arm."""
    chains: dict[int, list[Branch]] = {}
    chain: list[Branch] = []
    for branch in body.branches:
        if branch.arm == 0 or isinstance(branch, InlinedCall) or not chain:
            chain = []
        chain.append(branch)
        chains[id(branch)] = chain
    return chains


def _call_arm(body: Body, call: Call) -> InlinedCall | None:
    """The arm of ``body`` holding the work of its followed ``call`` (identical calls share
    the first one's arm)."""
    arms = [b for b in body.branches if isinstance(b, InlinedCall)
            and b.callee.lower() == call.name.lower() and b.line <= call.line]
    return max(arms, key=lambda arm: arm.line) if call.followed and arms else None


def _with_only(body: Body, keep_own: bool, loops: list[Loop], branches: list[Branch],
               arm: Branch | None = None) -> Body:
    """A copy of ``body`` holding ``loops`` and ``branches`` below it (through its ``arm``),
    with its own statements and loop-free arms when ``keep_own`` (else none of its work).
    A call whose work has loops is listed by every part below its arm (its work is in the
    arm, counted there)."""
    def kept(call: Call) -> bool:
        holder = _call_arm(body, call)
        if holder is not None and _has_loops(holder):
            return holder is arm
        return keep_own

    own = [b for b in body.branches if not _has_loops(b)] if keep_own else []
    fields = {} if keep_own else {name: type(getattr(body, name))() for name in _OWN_WORK}
    fields["calls"] = [call for call in body.calls if kept(call)]
    return dataclasses.replace(body, **fields, loops=loops, branches=[*own, *branches])


def _part(loop: Loop, path: tuple[Branch, ...], inner: Loop, first: bool,
          counted: set[int]) -> NestPart:
    """The nest of the repetition ``loop`` around its sibling ``inner``, reached through the
    arms ``path``; ``first``: the part counts the repetition loop's own statements;
    ``counted``: the arms whose own statements a part counts already (updated)."""
    lower, upper = loop.lower, loop.upper
    below: Body = Body(loops=[inner])  # what the part holds below the repetition loop
    kept: list[Branch] = []
    new = {id(arm): id(arm) not in counted for arm in path}
    counted.update(new)
    for depth in range(len(path) - 1, -1, -1):
        arm = path[depth]
        inner_arm = path[depth + 1] if depth + 1 < len(path) else None
        copy = _with_only(arm, new[id(arm)], below.loops, below.branches, inner_arm)
        passes = None if depth or isinstance(arm, InlinedCall) else \
            arm_range(arm, _chains(loop)[id(arm)], loop)
        if passes is not None:  # the arm is the passes it runs on: no branch, no probability
            (lower, upper), below = passes, copy
            continue
        if not isinstance(arm, InlinedCall):
            kept.insert(0, copy)
        below = Body(branches=[copy])
    fields = {f.name: getattr(loop, f.name) for f in dataclasses.fields(Loop)}
    level = _with_only(loop, first, [], [], path[0] if path else None)
    for name in _OWN_WORK:  # the repetition loop's own work and a lifted arm's
        fields[name] = getattr(level, name) + getattr(below, name)
    return NestPart(**{**fields, "loops": below.loops,
                       "branches": [*level.branches, *below.branches],
                       "line": inner.line, "file": inner.file or loop.file,
                       "lower": lower, "upper": upper,
                       "whole": getattr(loop, "whole", None) or loop,
                       "guards": (*getattr(loop, "guards", ()), *kept)})


def _subscripts(name: str, loop: Loop) -> bool:
    """Whether the variable ``name`` steps through a dimension of an array below ``loop``
    (rather than only sizing loops or placing a reference: ``m1(k)``, ``u(ir(k))``)."""
    return any(v and v.lower() == name for body in loop.levels() for array in body.arrays
               for access in array.accesses for v in access.loopvars)


def _splits(loop: Loop, siblings: list[tuple[tuple[Branch, ...], Loop]]) -> bool:
    """Whether ``loop`` runs each of its sibling loops as a nest of its own: it repeats them
    (a time loop), its variable only sizes or places them (a level loop), or a sibling is
    inside a conditional arm (each arm's loops their own nest, weighted by the arm)."""
    if len(siblings) < 2:
        return False
    if not loop.loopvar:  # a DO WHILE has no variable: it repeats what it holds
        return loop.kind == "while"
    name = loop.loopvar.lower()
    return not _uses(name, loop) or not _subscripts(name, loop) or any(
        not isinstance(arm, InlinedCall) for path, _ in siblings for arm in path)


def nest_parts(loop: Loop) -> list[Loop]:
    """``loop``, or one :class:`NestPart` per sibling loop when it runs several as nests of
    their own (:func:`_splits`; through the arms between them too: see the module
    docstring); a grid loop (its variable subscripts an array) around a single sibling that
    splits is around each of its parts, as a repetition loop around one loop stays one nest.

    A tile loop (``kind="tile"``, :mod:`sat.frontend.tiles`) around several loops (a copy
    into a scratch tile, then the product over the tile) is split the same way: each sibling
    is a nest of its own inside the tile loops (:func:`_repeat_unused_tiles`)."""
    siblings = _siblings(loop)
    tile = loop.kind == "tile"
    if len(siblings) == 1 and (tile or loop.loopvar and _subscripts(loop.loopvar.lower(), loop)):
        path, child = siblings[0]
        inner = nest_parts(child)
        if len(inner) < 2:
            return [loop]
        counted: set[int] = set()
        return [_part(loop, path, part, not index, counted) for index, part in enumerate(inner)]
    if not (tile and len(siblings) > 1 or _splits(loop, siblings)):
        return [loop]
    parts: list[Loop] = []
    counted: set[int] = set()
    for path, child in siblings:
        for inner in nest_parts(child):
            parts.append(_part(loop, path, inner, not parts, counted))
    return parts


def _repeat_unused_tiles(part: Loop) -> Loop:
    """A part split from tile loops, with the tile loops none of its loops are elements of
    made plain loops: the copy into a scratch tile inside ``do it`` (which tiles only the
    product beside it) runs once per tile of ``it``.

    Element loops are matched to the tile loops of the same range and step, outermost tile
    first (the front end gives each element loop its tile loop's range: the pairs themselves
    are not recorded)."""
    chain: list[Loop] = []
    body = part
    while isinstance(body, NestPart) and body.kind == "tile" and len(body.loops) == 1:
        chain.append(body)
        body = body.loops[0]
    if not chain:
        return part
    elements = [lp for lp in (body, *body.all_loops()) if lp.tile]
    for tile in chain:
        match = next((lp for lp in elements if lp.tile == tile.stride
                      and (lp.lower, lp.upper) == (tile.lower, tile.upper)), None)
        if match is None:
            tile.kind = "do"  # a NestPart of this part alone
        else:
            elements.remove(match)
    return part


def untiled_program(program: Program) -> tuple[Program, list[str]]:
    """(``program`` with its order-keeping tiles untiled (:func:`untile_order_keeping`), the
    sizes of those tiles as the source writes them: a size given at run time stays a
    parameter of the run, though no number depends on it)."""
    sizes = [loop.stride for procedure in program.procedures for loop in procedure.all_loops()
             if loop.kind == "tile" and order_keeping_tile(loop, frozenset())]
    return dataclasses.replace(program, procedures=[
        untile_order_keeping(procedure) for procedure in program.procedures]), sizes


def untile_order_keeping(body: B, above: frozenset[tuple[str, str, str]] = frozenset()) -> B:
    """``body`` (a procedure, loop or arm) with every tile loop that holds nothing but its
    element loop, an innermost loop, written as that element loop alone (``do ii = 1, n, 8;
    do i = ii, min(ii + 7, n)`` as ``do i = 1, n``): such a tile walks the same elements in
    the same order as the loop untiled, so the model counts it as the loop untiled (each
    tile's footprint along the row, rounded to lines with its own reach of offsets, would
    count again the lines the tiles share at their edges). A tile of an outer loop keeps
    the tiled nests' rules (:mod:`sat.model.hierarchy.held_arrays`). The IR is left as it is: what
    changes is copied (``body`` itself when nothing does). ``above``: the ranges and steps
    of the tile loops around ``body``."""
    inside = above | {_tile_key(body)} if isinstance(body, Loop) and body.kind == "tile" \
        else above
    loops = [untile_order_keeping(child, inside) for child in body.loops]
    branches = [untile_order_keeping(arm, inside) for arm in body.branches]
    if any(new is not old for new, old in zip(loops, body.loops, strict=True)) or \
            any(new is not old for new, old in zip(branches, body.branches, strict=True)):
        body = dataclasses.replace(body, loops=loops, branches=branches)
    if isinstance(body, Loop) and order_keeping_tile(body, above):
        return dataclasses.replace(body.loops[0], tile="", line=body.line)  # type: ignore
    return body


def order_keeping_tile(loop: Loop, above: frozenset[tuple[str, str, str]]) -> bool:
    """Whether ``loop`` is a tile loop around its element loop and nothing else that moves
    data or computes (its own variable, and the arms of a ``MIN`` bound, read scalars only).
    The front end gives an element loop its tile loop's range and the tile's size: with a
    tile loop of the same range and step around it (``above``), the loop inside may be the
    outer tile's element loop, and the tile is not taken for one that keeps the order."""
    if loop.kind != "tile" or len(loop.loops) != 1 or _works(loop) or _tile_key(loop) in above \
            or any(_works(arm) or arm.loops or arm.branches for arm in loop.branches):
        return False
    element = loop.loops[0]
    return not any(element.all_loops()) and element.tile.strip() == loop.stride.strip() and \
        (element.lower, element.upper) == (loop.lower, loop.upper)


def _tile_key(loop: Loop) -> tuple[str, str, str]:
    return loop.lower.strip(), loop.upper.strip(), loop.stride.strip()


def _works(body: Body) -> bool:
    """Whether ``body`` itself touches an array, calls or computes."""
    return bool(body.arrays or body.calls or body.adds or body.multiplies or body.divides
                or body.specials)


def literal_trips(loop: Loop) -> int | None:
    """Trip count of a loop whose bounds and stride are numbers written in the source (else
    None: a bound from a -D definition is a problem size, ``loop.sized``)."""
    if loop.sized or not (_NUMBER.match(loop.lower) and _NUMBER.match(loop.upper)
            and _NUMBER.match(loop.stride)) or int(loop.stride) == 0:
        return None
    lower, upper, stride = int(loop.lower), int(loop.upper), int(loop.stride)
    return max(0, (upper - lower + stride) // stride)


def literal_iterations(loop: Loop) -> int | None:
    """Executions of every loop body of a nest whose bounds are all numbers (else None)."""
    trips = literal_trips(loop)
    if trips is None:
        return None
    inner = [(literal_iterations(child), times) for child, times in _outermost_counted(loop)]
    if any(count is None for count, _ in inner):
        return None
    return trips * (1 + sum(count * times for count, times in inner))  # type: ignore[misc]


def _outermost_counted(body: Body, times: int = 1) -> Iterator[tuple[Loop, int]]:
    """:func:`outermost_loops` with the runs of each per run of ``body`` (a call written in
    once for several identical calls runs several times)."""
    for loop in body.loops:
        yield loop, times
    for branch in body.branches:
        yield from _outermost_counted(branch, times * branch.times)


def setup_reason(loop: Loop, threshold: float) -> str:
    """Why a nest is fixed setup work and not reported ("" when it is reported).

    ``threshold`` is ``SetupIterations``: a literal nest running at least that many
    iterations is work (after preprocessing, ``#define N 1000000`` is a literal bound).
    """
    loops = [loop, *loop.all_loops()]
    iterations = literal_iterations(loop)
    if iterations is None or iterations >= threshold:
        return ""
    loopvars = {lp.loopvar.lower() for lp in loops}
    for body in loop.levels():
        for array in body.arrays:
            for access in array.accesses:
                if len(access.offsets) > 1 and any(v.lower() in loopvars
                                                   for v in access.loopvars if v):
                    return ""
    return (f"constant trip counts ({iterations} iterations, fewer than SetupIterations = "
            f"{threshold:.0f}: change it with --set) and no multi-dimensional array indexed by "
            "its loop variables: fixed setup work that does not grow with the problem size")


_IDENTIFIER = re.compile(r"[A-Za-z_]\w*")


def bounds_assigned_inside(loop: Loop) -> list[tuple[Loop, str]]:
    """(loop, symbol) for each loop of the nest whose bounds use a scalar the nest assigns.

    FFT stages halve one bound and double another in each pass (``li = li/2``): such a trip
    count changes from pass to pass, and one parameter value stands for all passes.
    """
    loops = [loop, *loop.all_loops()]
    loopvars = {lp.loopvar.lower() for lp in loops if lp.loopvar}
    assigned = {s.name.lower() for body in loop.levels() for s in body.scalars
                if s.writes and s.name.lower() not in loopvars}
    found = []
    for lp in loops:
        for name in dict.fromkeys(_IDENTIFIER.findall(f"{lp.lower} {lp.upper} {lp.stride}")):
            if name.lower() in assigned:
                found.append((lp, name.lower()))
    return found


def enclosing_branches(body: Body, target: Loop) -> list[Branch] | None:
    """The branch arms between ``body`` and its outermost loop ``target`` (None: not there)."""
    if isinstance(target, NestPart) and target.whole is not None:
        target = target.whole
    if any(loop is target for loop in body.loops):
        return []
    for branch in body.branches:
        inner = enclosing_branches(branch, target)
        if inner is not None:
            return [branch, *inner]
    return None


# an array reference or a function call with no other inside it: ``rowptr(i+1)``, ``a[j]``
_INNER_CALL = re.compile(r"[A-Za-z_]\w*\s*[(\[][^()\[\]]*[)\]]")
_MARK = LazyPattern(r"(?<!\w)_ref(\d+)_(?!\w)")


def averaged_bounds(program: Program) -> dict[int, tuple[Loop, tuple[Loop, ...]]]:
    """Loops whose trip count moves with an enclosing loop's variable, by ``id``: each with
    that variable replaced by its mean over the enclosing loop's range, and the enclosing
    loops whose variables it used (their bounds name the problem sizes first).

    A triangular loop ``do i = j + 1, n`` inside ``do j = 1, n`` runs ``n - j`` times: over
    all ``j`` that averages ``n - (1 + n)/2``, its count at the mean ``j``, because the count
    is affine in ``j`` (the nest runs ``n (n - 1) / 2`` iterations). Only a variable that one
    bound uses outside array references and calls is replaced: ``do k = rowptr(i),
    rowptr(i+1) - 1`` (a sparse row, :mod:`sat.model.exasat.iteration`) and ``do j = jt, jt +
    ts - 1`` (a tile, whose count does not move) keep their text.
    """
    found: dict[int, tuple[Loop, tuple[Loop, ...]]] = {}
    for procedure in program.procedures:
        _average_below(procedure, {}, found)
    return found


def _average_below(body: Body, enclosing: dict[str, tuple[str, Loop]],
                   found: dict[int, tuple[Loop, tuple[Loop, ...]]]) -> None:
    for branch in body.branches:
        _average_below(branch, enclosing, found)
    for loop in body.loops:
        averaged, used = loop, []
        for var, (mean, outer) in enclosing.items():
            moved = _at_mean(averaged, var, mean)
            if moved is not averaged:
                averaged = moved
                used.append(outer)
        if used:
            found[id(loop)] = (averaged, tuple(used))
        inner = dict(enclosing)
        if loop.loopvar and loop.kind != "tile":
            # times 0.5, not / 2: a Fortran or C division of integers would truncate
            inner[loop.loopvar.lower()] = (f"(({averaged.lower}) + ({_last_value(averaged)}))"
                                           "*0.5", loop)
        _average_below(loop, inner, found)


def _last_value(loop: Loop) -> str:
    """The last value the loop's variable takes: its end as written, but for a step other
    than 1 between numbers written in the source, where it stops short of it (``do l = 4,
    15, 3``: 13)."""
    trips = literal_trips(loop)
    if not trips:
        return loop.upper  # not numbers, or no iteration: no mean to take
    return str(int(loop.lower) + int(loop.stride) * (trips - 1))


def _at_mean(loop: Loop, var: str, mean: str) -> Loop:
    """``loop`` with ``var`` replaced by ``mean`` when exactly one of its bounds uses it, and
    only where it stands outside array references and calls (else ``loop`` itself): in
    ``m1(b) - b`` the size ``m1(b)`` of level ``b`` stays one symbol, the ``- b`` moves."""
    # a member of a structure (``lv->b``, ``g%b``, ``s.b``) is not the variable ``b``
    word = re.compile(rf"(?<![\w.%])(?<!->){re.escape(var)}(?!\w)", re.I)
    bounds = (loop.lower, loop.upper)
    uses = [len(word.findall(text)) for text in bounds]
    masked = [_masked(text) for text in bounds]
    if uses.count(0) != 1 or not any(word.search(text) for text, _ in masked):
        return loop
    lower, upper = (_unmasked(word.sub(f"({mean})", text), references)
                    for text, references in masked)
    return dataclasses.replace(loop, lower=lower, upper=upper)


def _masked(text: str) -> tuple[str, list[str]]:
    """``text`` with each array reference and call, innermost first, replaced by a mark
    ``_ref<k>_`` (a name, so that in ``x[f()][b]`` the mark of ``x[f()]`` and ``[b]`` are one
    reference again: the second subscript of a chain is inside a reference too), and the
    references the marks stand for."""
    references: list[str] = []

    def mark(match: re.Match[str]) -> str:
        references.append(match.group(0))
        return f"_ref{len(references) - 1}_"

    previous = None
    while previous != text:
        previous, text = text, _INNER_CALL.sub(mark, text)
    return text, references


def _unmasked(text: str, references: list[str]) -> str:
    """The text :func:`_masked` marked, with its references back."""
    previous = None
    while previous != text:
        previous, text = text, _MARK.sub(lambda m: references[int(m.group(1))], text)
    return text
