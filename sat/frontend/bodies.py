"""What both front ends share: filling IR bodies level by level, and running deep parsers.

A front end walks a procedure once; each loop level or branch arm it enters is a
:class:`Level` that collects scalars and array-component pairs in first-access order, with
their read and write counts, and turns them into IR when the level is left.
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable
from typing import Protocol, TypeVar

from sat import ir

T = TypeVar("T")


def access_type(reads: int, writes: int, first_write: bool, scalar: bool) -> ir.AccessType:
    if reads and writes:
        return "writeread" if (scalar and first_write) else "readwrite"
    return "writeonly" if writes else "readonly"


class Level:
    """One body being filled: scalars and array-component pairs in first-access order.

    For idiom recognition it also keeps the source line of each scalar and reference, what
    each subscript is (:class:`sat.ir.Subscript`), and the variables read by the statement
    being analysed (a front end calls :meth:`statement` as each one begins), which become the
    ``sources`` of the scalars it writes.
    """

    __slots__ = ("body", "scalars", "arrays", "read")

    def __init__(self, body: ir.Body):
        self.body = body
        self.scalars: dict[str, tuple[ir.Scalar, bool]] = {}
        self.arrays: dict[tuple[str, str], tuple[ir.Array, dict, bool]] = {}
        self.read: dict[str, None] = {}  # read since the current statement began, in order

    def statement(self) -> None:
        """A statement begins: what it writes is computed from what it reads from now on."""
        self.read.clear()

    def count(self, flops: tuple[int, int, int, int]) -> None:
        """Charge ``(adds, multiplies, divides, specials)`` to this level's body."""
        adds, multiplies, divides, specials = flops
        body = self.body
        body.adds += adds
        body.multiplies += multiplies
        body.divides += divides
        body.specials += specials

    def scalar(self, name: str, datatype: str, is_constant: bool, write: bool,
               line: int = 0) -> None:
        entry = self.scalars.get(name)
        if entry is None:
            entry = self.scalars[name] = (ir.Scalar(name, datatype, is_constant), write)
        scalar = entry[0]
        if write:
            scalar.writes += 1
            if scalar.writes == 1 and line:
                scalar.line = line
            if self.read:
                known = scalar.sources
                new = tuple(n for n in self.read if n not in known)
                if new:
                    scalar.sources = known + new
        else:
            scalar.reads += 1
            if not scalar.line and not scalar.writes:
                scalar.line = line
            self.read[name] = None

    def array(self, name: str, component: str, datatype: str, offsets: tuple,
              loopvars: tuple[str, ...], reads: int, writes: int,
              subscripts: tuple[ir.Subscript, ...] = (), line: int = 0) -> None:
        key = (name, component)
        entry = self.arrays.get(key)
        if entry is None:
            entry = self.arrays[key] = (ir.Array(name, component, datatype), {},
                                        writes > 0 and not reads)
        array, accesses, _first_write = entry
        access = accesses.get((offsets, loopvars))
        if access is None:
            access = accesses[(offsets, loopvars)] = ir.Access(offsets, loopvars,
                                                               subscripts=subscripts, line=line)
            array.accesses.append(access)
        access.reads += reads
        access.writes += writes
        if reads:
            self.read[name] = None

    def finish(self) -> None:
        for scalar, first_write in self.scalars.values():
            scalar.accesstype = access_type(scalar.reads, scalar.writes, first_write, True)
            self.body.scalars.append(scalar)
        for array, _accesses, first_write in self.arrays.values():
            array.accesstype = access_type(array.reads, array.writes, first_write, False)
            array.firstaccess = "store" if first_write else "load"
            self.body.arrays.append(array)


class _Analyser(Protocol):
    levels: list[Level]

    @property
    def level(self) -> Level: ...


class Arm:
    """Context manager: the statements inside are one arm of a conditional."""

    def __init__(self, analyser: _Analyser, branch: ir.Branch):
        self.analyser = analyser
        self.branch = branch

    def __enter__(self) -> ir.Branch:
        self.analyser.level.body.branches.append(self.branch)
        self.analyser.levels.append(Level(self.branch))
        return self.branch

    def __exit__(self, *exc: object) -> None:
        arm = self.analyser.levels.pop()
        arm.finish()
        # what an arm reads flows into what its statement writes (x = c ? a(i) : b(i))
        self.analyser.level.read.update(arm.read)


_STACK_BYTES = 512 * 1024 * 1024  # reserved, not committed: only deep expressions touch it
_RECURSION_LIMIT = 60000


def run_with_deep_stack(work: Callable[[], T], name: str) -> T:
    """Run ``work()`` in a thread with a large stack and a raised recursion limit.

    The parsers and the analyses recurse once per operator of an expression: a statement with
    a few hundred terms needs a deeper stack than Python's default.
    """
    outcome: list = []

    def run() -> None:
        try:
            outcome.append(work())
        except BaseException as exc:  # handed to the calling thread
            outcome.append(exc)

    old_limit = sys.getrecursionlimit()
    old_stack = threading.stack_size()
    try:
        threading.stack_size(_STACK_BYTES)
        sys.setrecursionlimit(max(old_limit, _RECURSION_LIMIT))
        worker = threading.Thread(target=run, name=name)
        worker.start()
    finally:
        threading.stack_size(old_stack)
    worker.join()
    sys.setrecursionlimit(old_limit)
    result = outcome[0]
    if isinstance(result, BaseException):
        raise result
    return result
