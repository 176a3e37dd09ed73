"""satreport's code description of the examples against the original ExaSAT's XML for them.

examples/{lap,div,grad,lap4,hypterm}.f90 implement the algorithms of the reference files in
tests/data/exasat/xml/; the reference is read with sat.xmlio. Per loop level (in program
order) the flop counts and the array-component pairs (access type and, per offset, reads and
writes) must be equal. Line numbers are not compared: the examples start with a header
comment the original sources did not have.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from sat.ir import Body, Loop, Procedure
from sat.xmlio import read_program

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"
XML = Path(__file__).resolve().parent / "data" / "exasat" / "xml"

# example file, reference file, procedure name
CASES = [
    ("lap.f90", "micro/lap.xml", "laplacian"),
    ("div.f90", "micro/div.xml", "div"),
    ("grad.f90", "micro/grad.xml", "grad"),
    ("lap4.f90", "micro/lap4.xml", "laplacian4"),
    ("hypterm.f90", "hypterm-cns.xml", "hypterm"),
]
IDS = [case[0] for case in CASES]

Pairs = dict[tuple[str, str], tuple[str, dict[tuple, tuple[int, int]]]]


def _norm(item: int | str) -> int | str:
    return item.lower().replace(" ", "") if isinstance(item, str) else item


def _pairs(body: Body) -> Pairs:
    """Array-component pairs: access type and {offsets: (reads, writes)}, names lower case."""
    result: Pairs = {}
    for array in body.arrays:
        key = (array.name.lower(), array.component.lower())
        table = result.setdefault(key, (array.accesstype, {}))[1]
        for access in array.accesses:
            offsets = tuple(_norm(o) for o in access.offsets)
            reads, writes = table.get(offsets, (0, 0))
            table[offsets] = (reads + access.reads, writes + access.writes)
    return result


def _flops(body: Body) -> tuple[int, int, int, int]:
    return (body.adds, body.multiplies, body.divides, body.specials)


def _procedures(example: str, reference: str, name: str) -> tuple[Procedure, Procedure]:
    from sat.frontend import read_sources

    ours = read_sources([str(EXAMPLES / example)]).procedure(name)
    theirs = read_program(str(XML / reference)).procedure(name)
    assert ours is not None and theirs is not None
    return ours, theirs


def _loops(proc: Procedure) -> list[Loop]:
    return list(proc.all_loops())


@pytest.mark.parametrize(("example", "reference", "name"), CASES, ids=IDS)
def test_loop_structure(example: str, reference: str, name: str) -> None:
    ours, theirs = _procedures(example, reference, name)
    shape = [(lp.loopvar.lower(), _norm(lp.lower), _norm(lp.upper), _norm(lp.stride))
             for lp in _loops(ours)]
    expected = [(lp.loopvar.lower(), _norm(lp.lower), _norm(lp.upper), _norm(lp.stride))
                for lp in _loops(theirs)]
    assert shape == expected


@pytest.mark.parametrize(("example", "reference", "name"), CASES, ids=IDS)
def test_flops_per_loop(example: str, reference: str, name: str) -> None:
    ours, theirs = _procedures(example, reference, name)
    assert [_flops(lp) for lp in _loops(ours)] == [_flops(lp) for lp in _loops(theirs)]


@pytest.mark.parametrize(("example", "reference", "name"), CASES, ids=IDS)
def test_pairs_per_loop(example: str, reference: str, name: str) -> None:
    ours, theirs = _procedures(example, reference, name)
    our_loops, their_loops = _loops(ours), _loops(theirs)
    assert len(our_loops) == len(their_loops)
    for mine, ref in zip(our_loops, their_loops, strict=True):
        assert _pairs(mine) == _pairs(ref), f"loop {mine.loopvar} at line {mine.line}"


@pytest.mark.parametrize(("example", "reference", "name"), CASES, ids=IDS)
def test_innermost_scalars(example: str, reference: str, name: str) -> None:
    """State variables of the innermost loops, loop indices left out."""
    ours, theirs = _procedures(example, reference, name)

    def table(proc: Procedure) -> list[dict[str, tuple]]:
        rows = []
        for loop in proc.all_loops():
            if loop.loops:
                continue
            indices = {lp.loopvar.lower() for lp in proc.all_loops()}
            rows.append({s.name.lower(): (s.is_constant, s.accesstype, s.reads, s.writes)
                         for s in loop.scalars if s.name.lower() not in indices})
        return rows

    assert table(ours) == table(theirs)
