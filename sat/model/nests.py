"""Loop nests: the unit the model reports on (one row per outermost loop of a procedure)."""

from __future__ import annotations

from collections.abc import Iterator

from sat.ir import Body, Loop, Procedure, Program


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
