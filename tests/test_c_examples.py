"""Exact counts for every C example (examples/c), worked out by hand from the source.

Offsets are in the order the subscripts are written (``a[k][j][i]`` -> ``(dk, dj, di)``).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from sat import ir
from sat.frontend import read_sources

EXAMPLES = Path(__file__).resolve().parent.parent / "examples" / "c"
ALL = sorted(p.name for p in EXAMPLES.glob("*.c"))


def read(name: str) -> ir.Procedure:
    program = read_sources([str(EXAMPLES / name)])
    assert [str(w) for w in program.warnings] == []
    assert len(program.procedures) == 1
    return program.procedures[0]


def loops(proc: ir.Procedure) -> list[ir.Loop]:
    return list(proc.all_loops())


def flops(body: ir.Body) -> tuple[int, int, int, int]:
    return body.adds, body.multiplies, body.divides, body.specials


def offsets(body: ir.Body, name: str) -> dict[tuple, tuple[int, int]]:
    array = next(a for a in body.arrays if a.name == name)
    return {a.offsets: (a.reads, a.writes) for a in array.accesses}


def array(body: ir.Body, name: str) -> ir.Array:
    return next(a for a in body.arrays if a.name == name)


def scalar(body: ir.Body, name: str) -> ir.Scalar:
    return next(s for s in body.scalars if s.name == name)


def test_every_example_is_covered():
    assert ALL == ["daxpy.c", "jacobi2d.c", "kahan.c", "longrange.c", "matvec.c", "spmv.c",
                   "stencil7.c", "triad.c", "uxx.c"]


@pytest.mark.parametrize("name", ALL)
def test_examples_have_header_comment_and_row_major_layout(name):
    assert (EXAMPLES / name).read_text().startswith("/*")
    proc = read(name)
    assert proc.layout == "row-major"
    assert loops(proc)


def test_stencil7():
    proc = read("stencil7.c")
    assert proc.name == "laplacian"
    k, j, i = loops(proc)
    assert [(lp.loopvar, lp.lower, lp.upper, lp.stride, lp.line) for lp in (k, j, i)] == [
        ("k", "1", "nz", "1", 16), ("j", "1", "ny", "1", 17), ("i", "1", "nx", "1", 18)]
    # fac*c + fac2*(six neighbours): 5 adds to sum the neighbours + 1, two multiplies.
    assert flops(k) == flops(j) == (0, 0, 0, 0)
    assert flops(i) == (6, 2, 0, 0)
    assert offsets(i, "a0") == {(0, 0, 0): (1, 0), (0, 0, 1): (1, 0), (0, 0, -1): (1, 0),
                                (0, 1, 0): (1, 0), (0, -1, 0): (1, 0), (1, 0, 0): (1, 0),
                                (-1, 0, 0): (1, 0)}
    assert offsets(i, "anext") == {(0, 0, 0): (0, 1)}
    assert array(i, "a0").accesses[0].loopvars == ("k", "j", "i")
    assert array(i, "a0").accesstype == "readonly"
    assert array(i, "anext").accesstype == "writeonly"
    assert array(i, "anext").firstaccess == "store"
    # i, j, k each appear in the 8 array references (7 of a0, 1 of anext)
    assert (scalar(i, "i").reads, scalar(i, "i").writes) == (8, 1)
    assert scalar(i, "i").accesstype == "writeread"
    assert scalar(i, "k").reads == 8
    # the j loop's bound nx is read at the j level (the enclosing level of loop i)
    assert scalar(j, "nx").reads == 1
    shapes = {v.name: v.shape for v in proc.nonlocals}
    assert shapes["a0"] == ("0:nz+1", "0:ny+1", "0:nx+1")
    assert [v.name for v in proc.nonlocals] == ["nx", "ny", "nz", "fac", "fac2", "a0", "anext"]
    assert next(v for v in proc.nonlocals if v.name == "a0").intent == "in"
    assert [v.name for v in proc.locals] == ["k", "j", "i"]


def test_jacobi2d_fragment():
    proc = read("jacobi2d.c")
    assert proc.name == "jacobi2d"  # a fragment is named after its file
    j, i = loops(proc)
    assert (j.lower, j.upper, i.lower, i.upper) == ("1", "M - 2", "1", "N - 2")
    assert flops(i) == (3, 1, 0, 0)  # three adds of four neighbours, one multiply by s
    assert offsets(i, "a") == {(0, -1): (1, 0), (0, 1): (1, 0), (-1, 0): (1, 0), (1, 0): (1, 0)}
    assert offsets(i, "b") == {(0, 0): (0, 1)}
    # file-scope declarations of a fragment are its nonlocals; M, N are no variables
    assert [(v.name, v.shape) for v in proc.nonlocals] == [
        ("a", ("0:M-1", "0:N-1")), ("b", ("0:M-1", "0:N-1")), ("s", ())]
    assert [v.name for v in proc.locals] == ["j", "i"]
    m = scalar(proc, "M")
    assert (m.datatype, m.is_constant, m.reads) == ("int", True, 1)  # j < M - 1: M read once


def test_longrange():
    proc = read("longrange.c")
    k, j, i = loops(proc)
    assert (k.lower, k.upper, j.upper, i.upper) == ("4", "M - 5", "N - 5", "N - 5")
    # lap: 12 pair sums + 12 adds joining 13 terms = 24 adds, 13 multiplies;
    # u = 2*v - u + roc*lap: 2 adds, 2 multiplies.
    assert flops(i) == (26, 15, 0, 0)
    v = offsets(i, "v")
    assert len(v) == 25
    assert v[(0, 0, 0)] == (2, 0)  # c0*v and 2.0*v
    for axis in range(3):
        for distance in (1, 2, 3, 4):
            for sign in (1, -1):
                point = [0, 0, 0]
                point[axis] = sign * distance
                assert v[tuple(point)] == (1, 0)
    assert offsets(i, "u") == {(0, 0, 0): (1, 1)}
    assert array(i, "u").accesstype == "readwrite"
    assert offsets(i, "roc") == {(0, 0, 0): (1, 0)}
    assert scalar(i, "lap").accesstype == "writeread"


def test_uxx():
    proc = read("uxx.c")
    k, j, i = loops(proc)
    # d: 3 adds, 1 multiply; u1: 6 differences + 5 joins + 1 = 12 adds, 6 + 1 multiplies,
    # 1 divide (dth/d)
    assert flops(i) == (15, 8, 1, 0)
    assert offsets(i, "d1") == {(-1, 0, 0): (1, 0), (-1, -1, 0): (1, 0), (0, 0, 0): (1, 0),
                                (0, -1, 0): (1, 0)}
    assert offsets(i, "xx") == {(0, 0, 0): (1, 0), (0, 0, -1): (1, 0), (0, 0, 1): (1, 0),
                                (0, 0, -2): (1, 0)}
    assert offsets(i, "xy") == {(0, 1, 0): (2, 0), (0, -1, 0): (1, 0), (0, -2, 0): (1, 0)}
    assert offsets(i, "xz") == {(0, 0, 0): (1, 0), (-1, 0, 0): (1, 0), (1, 0, 0): (1, 0),
                                (-2, 0, 0): (1, 0)}
    assert offsets(i, "u1") == {(0, 0, 0): (1, 1)}
    assert scalar(i, "d").accesstype == "writeread"


def test_triad():
    proc = read("triad.c")
    (i,) = loops(proc)
    assert (i.lower, i.upper, i.stride) == ("0", "n - 1", "1")
    assert flops(i) == (1, 1, 0, 0)
    for name in "bcd":
        assert offsets(i, name) == {(0,): (1, 0)}
    assert offsets(i, "a") == {(0,): (0, 1)}
    assert {v.name: v.shape for v in proc.nonlocals}["a"] == ("0:*",)


def test_kahan():
    proc = read("kahan.c")
    (i,) = loops(proc)
    # y = a*b - c: 1 mul 1 add; t = sum + y: 1 add; c = (t - sum) - y: 2 adds
    assert flops(i) == (4, 1, 0, 0)
    assert offsets(i, "a") == offsets(i, "b") == {(0,): (1, 0)}
    assert (scalar(i, "c").reads, scalar(i, "c").writes) == (1, 1)
    assert scalar(i, "c").accesstype == "readwrite"  # read before it is written
    assert (scalar(i, "sum").reads, scalar(i, "sum").writes) == (2, 1)
    assert scalar(i, "y").accesstype == "writeread"
    assert flops(proc) == (0, 0, 0, 0)  # sum = 0.0, c = 0.0, return sum


def test_daxpy():
    proc = read("daxpy.c")
    (i,) = loops(proc)
    assert flops(i) == (1, 1, 0, 0)  # y[i] += alpha*x[i]: the += is the add
    assert offsets(i, "y") == {(0,): (1, 1)}
    assert array(i, "y").accesstype == "readwrite"
    assert array(i, "y").firstaccess == "load"
    assert offsets(i, "x") == {(0,): (1, 0)}


def test_spmv_through_an_index_array():
    proc = read("spmv.c")
    rows, row = loops(proc)
    assert (row.lower, row.upper) == ("rowptr(i)", "rowptr(i+1) - 1")
    assert flops(rows) == (0, 0, 0, 0)  # sum = 0.0 and y[i] = sum: no flops
    assert flops(row) == (1, 1, 0, 0)  # sum += a[k]*x[col[k]]
    assert offsets(rows, "rowptr") == {(0,): (1, 0), (1,): (1, 0)}
    assert offsets(rows, "y") == {(0,): (0, 1)}
    assert offsets(row, "a") == offsets(row, "col") == {(0,): (1, 0)}
    assert offsets(row, "x") == {("col(k)",): (1, 0)}
    (kind,) = array(row, "x").accesses[0].subscripts
    assert (kind.kind, kind.index, kind.var) == ("indirect", "col", "k")
    assert scalar(row, "sum").accesstype == "readwrite"  # carried from one k to the next
    assert scalar(rows, "sum").accesstype == "writeread"


def test_matvec_linearised_index():
    proc = read("matvec.c")
    outer, inner = loops(proc)
    assert flops(outer) == (0, 0, 0, 0)
    assert flops(inner) == (1, 1, 0, 0)  # sum += a*x
    a = array(inner, "a")
    assert [(x.offsets, x.loopvars) for x in a.accesses] == [((0, 0), ("i", "j"))]
    assert offsets(inner, "x") == {(0,): (1, 0)}
    assert offsets(outer, "y") == {(0,): (0, 1)}
    # the split gives a its inner extent n; the outer one is unknown
    assert {v.name: v.shape for v in proc.nonlocals}["a"] == ("0:*", "0:n-1")
