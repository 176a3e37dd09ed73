"""Calls inside loop nests: the callee's work, written into the calling nest.

A nest that calls a procedure of the program does the callee's work at every iteration: its
flops, and its accesses to the arrays it is given. The model sees one nest, so the callee's
body is written into the calling level (inlined, as an :class:`~sat.ir.InlinedCall` arm that is
always taken, so that its share of the nest's work can be told), on a copy of the program:

- a dummy array becomes the actual array: a whole array ``q`` keeps the callee's subscripts;
  a section ``q(:,:,:,n)`` takes them in its ``:`` dimensions and keeps its other subscripts
  (``n``, a loop variable of the caller, stays one); an element ``a(1,j)`` passed to an
  array dummy (sequence association) starts the callee's first dimensions there; an element
  of a one-dimensional array, ``u(ir(k))`` for ``z(n1,n2,n3)`` (a multigrid level), keeps
  all the callee's dimensions, the element the pattern's component;
- a dummy scalar in a bound (``do i = 1, n``) becomes the actual expression; a dummy scalar
  the callee writes, bound to an array element ``p(i,j,k)``, is a write of that element;
- the callee's loop variables and local names are renamed ``name__callee`` so that they
  cannot meet the caller's ``i``; module data keeps its name (it is the same data).

Identical calls at one level (the same procedure, the same arguments) are written in once,
with their number (:attr:`~sat.ir.InlinedCall.count`): a chain of procedures each calling
the next twice is modelled in time linear in its depth, not in 2^depth copies.

Calls are followed transitively, at most ``MAX_DEPTH`` deep, and at most ``MAX_WRITTEN``
callee bodies are written into a program's nests (distinct calls at every level still make
2^depth of them); a call beyond either limit, or a recursive call, is not followed (its cost
counts zero, with a warning). Calls to procedures that are not in the
sources keep today's assumption (zero cost, array arguments read and written). Each call
written in is marked ``followed`` and stays listed, for the Loops sheet's calls column.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Callable
from dataclasses import dataclass, field

from sat import ir
from sat.model.nests import outermost_loops
from sat.regex import LazyPattern

MAX_DEPTH = 64
MAX_WRITTEN = 2**16
_IDENTIFIER = LazyPattern(r"(?<![\w.])([A-Za-z_]\w*)(?!\w)")
_REFERENCE = LazyPattern(r"^\s*([A-Za-z_]\w*)\s*(?:\((.*)\))?\s*$", re.S)
_LOOP_OFFSET = LazyPattern(r"^\s*([A-Za-z_]\w*)\s*(?:([+-])\s*(\d+))?\s*$")


@dataclass
class Inlined:
    """The program with callees written into calling nests, and what was noticed doing it."""

    program: ir.Program
    notes: list[ir.Diagnostic] = field(default_factory=list)  # warnings
    assumptions: list[ir.Diagnostic] = field(default_factory=list)
    written: int = 0  # callee bodies written in so far


def inline_calls(program: ir.Program) -> Inlined:
    """A copy of ``program`` where every call inside a loop nest to a procedure of the
    program carries the callee's work (see the module docstring)."""
    originals = {p.name.lower(): p for p in program.procedures}
    # only procedures whose nests call one of the program's are changed: copy those alone
    result = Inlined(copy.copy(program))
    result.program.procedures = [copy.deepcopy(p) if _calls_the_program(p, originals) else p
                                 for p in program.procedures]
    for procedure in result.program.procedures:
        for loop in outermost_loops(procedure):
            _follow(loop, originals, (procedure.name.lower(),), procedure, result,
                    {lp.loopvar.lower() for lp in (loop, *loop.all_loops()) if lp.loopvar})
    _drop_inner_procedures(result)
    return result


def _calls_the_program(procedure: ir.Procedure, originals: dict[str, ir.Procedure]) -> bool:
    return any(call.name.lower() in originals for loop in outermost_loops(procedure)
               for body in loop.levels() for call in body.calls)


def calls_summary(loop: ir.Loop, known: set[str]) -> str:
    """The calls of a nest for the Loops sheet: ``flux ×2, eos ×1 (not in the sources)``;
    ``known`` holds the (lower-case) names of the program's procedures."""
    sites: dict[str, list[bool]] = {}
    made: dict[str, int] = {}  # calls made per run of the nest body, repeated calls counted
    for body, times in loop.counted_levels():
        for call in body.calls:
            sites.setdefault(call.name, []).append(call.followed)
            made[call.name] = made.get(call.name, 0) + times

    def why(name: str, followed: list[bool]) -> str:
        if all(followed):
            return ""
        return " (not followed)" if name.lower() in known else " (not in the sources)"

    return ", ".join(f"{name} ×{made[name]}{why(name, followed)}"
                     for name, followed in sites.items())


def array_callees(loop: ir.Loop) -> dict[str, set[str]]:
    """For each array-component of a nest, where its accesses are: the procedures the nest
    calls directly ("" for the nest's own statements; a nested call counts for the callee
    the nest calls, as on the Calls sheet)."""
    found: dict[str, set[str]] = {}

    def walk(body: ir.Body, callee: str) -> None:
        for array in body.arrays:
            found.setdefault(array.key, set()).add(callee)
        for branch in body.branches:
            walk(branch, branch.callee if isinstance(branch, ir.InlinedCall) and not callee
                 else callee)
        for inner in body.loops:
            walk(inner, callee)

    walk(loop, "")
    return found


def _drop_inner_procedures(result: Inlined) -> None:
    """A procedure called only inside loop nests runs there: its work is counted in those
    nests, so its own nests are no rows of their own (they would count it twice). Calls made
    by a procedure dropped this way do not keep their callees either."""
    kept = list(result.program.procedures)
    while True:
        inside: dict[str, set[str]] = {}
        elsewhere: set[str] = set()
        for procedure in kept:
            nest_bodies = {id(b) for loop in outermost_loops(procedure) for b in loop.levels()}
            for body in procedure.levels():
                for call in body.calls:
                    if call.followed and id(body) in nest_bodies:
                        inside.setdefault(call.name.lower(), set()).add(procedure.name)
                    else:
                        elsewhere.add(call.name.lower())
        dropped = [p for p in kept if inside.get(p.name.lower())
                   and p.name.lower() not in elsewhere and p.name not in inside[p.name.lower()]]
        if not dropped:
            break
        for procedure in dropped:
            callers = inside[procedure.name.lower()]
            result.assumptions.append(ir.Diagnostic(
                f"'{procedure.name}' runs only inside loop nests of "
                f"{', '.join(repr(c) for c in sorted(callers))}: its work is counted there, "
                "not in rows of its own", procedure.file, procedure.line))
        gone = {id(p) for p in dropped}
        kept = [p for p in kept if id(p) not in gone]
    result.program.procedures = kept


def _follow(body: ir.Body, originals: dict[str, ir.Procedure], chain: tuple[str, ...],
            caller: ir.Procedure, result: Inlined, loopvars: set[str]) -> None:
    """Write the callees of every call at or below ``body`` into their calling levels."""
    for child in (*body.loops, *body.branches):
        inner = loopvars | ({child.loopvar.lower()} if isinstance(child, ir.Loop)
                            and child.loopvar else set())
        _follow(child, originals, chain, caller, result, inner)
    written: dict[tuple[str, tuple[str, ...]], ir.InlinedCall] = {}
    for call in body.calls:
        callee = originals.get(call.name.lower())
        if callee is None or call.followed:
            continue
        same = (call.name.lower(), tuple(re.sub(r"\s+", "", a) for a in call.args))
        if same in written:  # an identical call: the same work once more
            written[same].count += 1
            call.followed = True
            continue
        if call.name.lower() in chain:
            result.notes.append(ir.Diagnostic(
                f"recursive call to '{call.name}' ({' → '.join((*chain, call.name.lower()))}): "
                "not followed, its cost counts zero", caller.file, call.line))
            continue
        if len(chain) >= MAX_DEPTH:
            result.notes.append(ir.Diagnostic(
                f"call to '{call.name}' is {len(chain)} calls deep: not followed, its cost "
                "counts zero", caller.file, call.line))
            continue
        if result.written >= MAX_WRITTEN:
            result.notes.append(ir.Diagnostic(
                f"call to '{call.name}': the nests already hold {MAX_WRITTEN:,} callee bodies "
                "written in: not followed, its cost counts zero", caller.file, call.line))
            continue
        result.written += 1
        work = _callee_work(callee, call, loopvars, result, caller)
        # the callee's own calls first, each in its own terms (chain grows by one)
        _follow(work, originals, (*chain, call.name.lower()), caller, result,
                loopvars | {lp.loopvar.lower() for lp in work.all_loops() if lp.loopvar})
        body.branches.append(work)
        written[same] = work
        call.followed = True


def _callee_work(callee: ir.Procedure, call: ir.Call, caller_loopvars: set[str],
                 result: Inlined, caller: ir.Procedure) -> ir.InlinedCall:
    """The callee's body in the caller's terms, for one call."""
    actuals = callee.actuals(call)
    if len(call.args) > len(callee.dummies):
        result.notes.append(ir.Diagnostic(
            f"call to '{callee.name}' passes {len(call.args)} arguments but it takes "
            f"{len(callee.dummies)}: the extra ones are ignored", caller.file, call.line))
    suffix = f"__{callee.name.lower()}"
    own = {v.name.lower() for v in callee.locals}
    own |= {lp.loopvar.lower() for lp in callee.all_loops() if lp.loopvar}
    own -= set(actuals)

    def rename_text(text: str) -> str:
        def one(match: re.Match[str]) -> str:
            name = match.group(1).lower()
            if name in actuals:
                actual = actuals[name].strip()
                # a name or an array reference stands as it is; an expression in parentheses
                return actual if _REFERENCE.match(actual) else f"({actual})"
            return name + suffix if name in own else match.group(0)
        return _IDENTIFIER.sub(one, text)

    def rename(name: str) -> str:
        return name + suffix if name.lower() in own else name

    mapper = _Mapper(actuals, caller_loopvars, rename, rename_text)
    work = mapper.body(callee, ir.InlinedCall(condition=f"call {callee.name}", line=call.line,
                                              callee=callee.name))
    for variable in callee.locals:  # the callee's temporaries are memory of the caller too
        if variable.shape:
            caller.locals.append(ir.Variable(rename(variable.name), variable.datatype,
                                             tuple(rename_text(s) for s in variable.shape)))
    for message in mapper.problems:
        result.notes.append(ir.Diagnostic(f"call to '{callee.name}': {message}", caller.file,
                                          call.line))
    return work


class _Mapper:
    """Copies a callee's bodies, mapping dummies onto actual arguments."""

    def __init__(self, actuals: dict[str, str], caller_loopvars: set[str],
                 rename: Callable[[str], str], rename_text: Callable[[str], str]):
        self.actuals = actuals
        self.caller_loopvars = caller_loopvars
        self.rename = rename
        self.rename_text = rename_text
        self.problems: list[str] = []

    def body(self, source: ir.Body, target: ir.Body) -> ir.Body:
        target.adds, target.multiplies = source.adds, source.multiplies
        target.divides, target.specials = source.divides, source.specials
        for scalar in source.scalars:
            self.scalar(scalar, target)
        for array in source.arrays:
            mapped = self.array(array)
            if mapped is not None:
                target.arrays.append(mapped)
        target.calls = [ir.Call(c.name, c.line, [self.rename_text(a) for a in c.args])
                        for c in source.calls]
        for branch in source.branches:
            target.branches.append(self.body(branch, ir.Branch(
                condition=self.rename_text(branch.condition), line=branch.line,
                arm=branch.arm, arms=branch.arms)))
        for loop in source.loops:
            target.loops.append(self.body(loop, ir.Loop(
                line=loop.line, loopvar=self.rename(loop.loopvar) if loop.loopvar else "",
                lower=self.rename_text(loop.lower), upper=self.rename_text(loop.upper),
                stride=self.rename_text(loop.stride), kind=loop.kind, file=loop.file,
                tile=self.rename_text(loop.tile) if loop.tile else "", sized=loop.sized)))
        return target

    def scalar(self, scalar: ir.Scalar, target: ir.Body) -> None:
        actual = self.actuals.get(scalar.name.lower())
        if actual is None:
            target.scalars.append(ir.Scalar(self.rename(scalar.name), scalar.datatype,
                                            scalar.is_constant, scalar.accesstype,
                                            scalar.reads, scalar.writes))
            return
        reference = _REFERENCE.match(actual)
        if reference is None:
            return  # an expression: a value in a register, read where the call is
        name, subscripts = reference.group(1), reference.group(2)
        if subscripts is None:
            target.scalars.append(ir.Scalar(name, scalar.datatype, scalar.is_constant,
                                            scalar.accesstype, scalar.reads, scalar.writes))
        elif scalar.writes:  # the element was read at the call; a write lands in the array
            offsets, loopvars = self.element(_split(subscripts))
            target.arrays.append(ir.Array(
                name, "", scalar.datatype, "writeonly",
                [ir.Access(offsets, loopvars, reads=0, writes=scalar.writes)], "store"))

    def array(self, array: ir.Array) -> ir.Array | None:
        actual = self.actuals.get(array.name.lower())
        if actual is None:
            return ir.Array(self.rename(array.name), array.component, array.datatype,
                            array.accesstype,
                            [self.access(a) for a in array.accesses],
                            array.firstaccess)
        reference = _REFERENCE.match(actual)
        if reference is None:
            self.problems.append(f"array argument {actual.strip()!r} is an expression: the "
                                 "callee's accesses to it are not counted")
            return None
        name, subscripts = reference.group(1), reference.group(2)
        if subscripts is None:
            return ir.Array(name, array.component, array.datatype, array.accesstype,
                            [self.access(a) for a in array.accesses],
                            array.firstaccess)
        parts = _split(subscripts)
        fixed = [p for p in parts if ":" not in p and not self._loop_subscript(p)]
        component = ",".join(filter(None, [*fixed, array.component]))
        accesses = [self.section_access(access, parts) for access in array.accesses]
        return ir.Array(name, component, array.datatype, array.accesstype, accesses,
                        array.firstaccess)

    def access(self, access: ir.Access) -> ir.Access:
        return ir.Access(tuple(self.rename_text(o) if isinstance(o, str) else o
                               for o in access.offsets),
                         tuple(self.rename(v) if v else "" for v in access.loopvars),
                         access.reads, access.writes, self.induction_subscripts(access))

    def induction_subscripts(self, access: ir.Access) -> tuple[ir.Subscript, ...]:
        """The access's subscripts when each is a plain induction ``coeff*var + offset`` of
        numbers (a stride the caller's nest keeps) or an element of an index array (a gather
        the caller's nest runs), renamed; else none (unknown)."""
        subs = access.subscripts
        if not subs or any(sub.kind not in ("induction", "indirect") or
                           not isinstance(sub.coeff, int) or not isinstance(sub.offset, int)
                           for sub in subs):
            return ()
        return tuple(ir.Subscript(sub.kind, self.rename(sub.var) if sub.var else "",
                                  sub.coeff, sub.offset,
                                  *((sub.index, sub.text, self.rename(sub.run) if sub.run else "")
                                    if sub.kind == "indirect" else ()))
                     for sub in subs)

    def section_access(self, access: ir.Access, parts: list[str]) -> ir.Access:
        """The callee's access through a section or element of the caller's array."""
        inner = self.access(access)
        sliced = [d for d, p in enumerate(parts) if ":" in p]
        if not sliced and len(parts) == 1 < len(inner.offsets):
            # an element of a one-dimensional array starts a multi-dimensional dummy (a work
            # array's level, u(ir(k)) as z(n1,n2,n3)): the callee's dimensions stay (the
            # element, the array's component, places them); keeping only the first would make
            # the loops of the others repeat the same elements
            start = _int(parts[0])
            first = inner.offsets[0]
            if start is not None and isinstance(first, int):
                first += start - 1  # a(3) as first element: the callee's 1 is 3
            return ir.Access((first, *inner.offsets[1:]), inner.loopvars,
                             access.reads, access.writes)
        # sequence association: an element passed to an array dummy starts its dimensions
        targets = sliced or list(range(min(len(parts), len(inner.offsets))))
        offsets: list[int | str] = []
        loopvars: list[str] = []
        taken = 0
        for d, part in enumerate(parts):
            if d in targets and taken < len(inner.offsets):
                offset, var = inner.offsets[taken], inner.loopvars[taken]
                start = _int(part.split(":")[0]) if ":" in part else _int(part)
                if not sliced and start is not None and isinstance(offset, int):
                    offset += start - 1  # a(3) as first element: the callee's 1 is 3
                offsets.append(offset)
                loopvars.append(var)
                taken += 1
            else:
                element_offsets, element_vars = self.element([part])
                offsets.append(element_offsets[0])
                loopvars.append(element_vars[0])
        return ir.Access(tuple(offsets), tuple(loopvars), access.reads, access.writes)

    def element(self, parts: list[str]) -> tuple[tuple, tuple]:
        """Offsets and loop variables of the caller's subscripts ``parts``."""
        offsets: list[int | str] = []
        loopvars: list[str] = []
        for part in parts:
            loop = self._loop_subscript(part)
            if loop is not None:
                loopvars.append(loop[0])
                offsets.append(loop[1])
            else:
                loopvars.append("")
                value = _int(part)
                offsets.append(value if value is not None else part.strip())
        return tuple(offsets), tuple(loopvars)

    def _loop_subscript(self, part: str) -> tuple[str, int] | None:
        match = _LOOP_OFFSET.match(part)
        if match is None or match.group(1).lower() not in self.caller_loopvars:
            return None
        offset = int(match.group(3) or 0) * (-1 if match.group(2) == "-" else 1)
        return match.group(1).lower(), offset


def _int(text: str) -> int | None:
    try:
        return int(text.strip())
    except ValueError:
        return None


def _split(subscripts: str) -> list[str]:
    """Top-level comma-separated parts of a subscript list."""
    parts, depth, current = [], 0, ""
    for char in subscripts:
        if char == "," and depth == 0:
            parts.append(current)
            current = ""
            continue
        depth += char == "("
        depth -= char == ")"
        current += char
    parts.append(current)
    return [p.strip() for p in parts]
