"""Loop nests: the unit the model reports on (one row per outermost loop of a procedure).

A nest is *reported* (a row of the Loops sheet) unless it is fixed setup work: every bound
of every loop in it is a literal number (so its cost does not grow with any problem
parameter) and it touches no multi-dimensional array through its loop variables.  The
original tool dropped such nests too (``do i = 1, 3`` filling ``dxinv(i) = 1/dx(i)`` in
hypterm); satreport lists them in the Notes sheet instead of silently ignoring them.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from sat.ir import Body, Branch, Loop, Procedure, Program

_NUMBER = re.compile(r"^\s*[-+]?\d+\s*$")


def outermost_loops(body: Body) -> Iterator[Loop]:
    """Outermost loops of a body in program order, looking through branches."""
    yield from body.loops
    for branch in body.branches:
        yield from outermost_loops(branch)


def program_nests(program: Program) -> Iterator[tuple[Procedure, Loop]]:
    """Every (procedure, outermost loop) pair of the program, in program order."""
    for procedure in program.procedures:
        for loop in sorted(outermost_loops(procedure), key=lambda lp: lp.line):
            yield procedure, loop


def levels(loop: Loop) -> Iterator[Body]:
    """Every body of a nest: the loop levels and the branch arms inside them."""
    stack: list[Body] = [loop]
    while stack:
        body = stack.pop()
        yield body
        stack.extend(reversed(body.branches))
        stack.extend(reversed(body.loops))


def setup_reason(loop: Loop) -> str:
    """Why a nest is fixed setup work and not reported ("" when it is reported)."""
    loops = [loop, *loop.all_loops()]
    if not all(_NUMBER.match(lp.lower) and _NUMBER.match(lp.upper) and _NUMBER.match(lp.stride)
               for lp in loops):
        return ""
    loopvars = {lp.loopvar.lower() for lp in loops}
    for body in levels(loop):
        for array in body.arrays:
            for access in array.accesses:
                if len(access.offsets) > 1 and any(v.lower() in loopvars
                                                   for v in access.loopvars if v):
                    return ""
    return ("constant trip counts and no multi-dimensional array indexed by its loop "
            "variables: fixed setup work that does not grow with the problem size")


def reported_nests(program: Program) -> Iterator[tuple[Procedure, Loop]]:
    """The nests the model reports on: :func:`program_nests` without setup loops."""
    for procedure, loop in program_nests(program):
        if not setup_reason(loop):
            yield procedure, loop


def enclosing_branches(body: Body, target: Loop) -> list[Branch] | None:
    """The branch arms between ``body`` and its outermost loop ``target`` (None: not there)."""
    if any(loop is target for loop in body.loops):
        return []
    for branch in body.branches:
        inner = enclosing_branches(branch, target)
        if inner is not None:
            return [branch, *inner]
    return None
