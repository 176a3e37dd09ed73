"""Ghost-cell exchange volume, messages and m/b + l costs, worked by hand."""

from pathlib import Path

import pytest

from sat.ir import Access, Array, Loop, Procedure, Program, Variable
from sat.model.context import ModelContext
from sat.model.exasat.comm import comm_table, ghost_exchanges
from sat.model.expr import Env, Num, Quantity
from sat.parameter import Parameter, ParameterSet
from sat.xmlio import read_program

FUSED = Path(__file__).parent / "data" / "exasat" / "xml" / "hypterm-cns-fused.xml"
IJK = ("i", "j", "k")


def machine() -> ParameterSet:
    params = ParameterSet()
    for name, val in [("WordBytes", 8), ("NICGBs", 100), ("NICLatencyUs", 0.4)]:
        params.add(Parameter(name, val))
    return params


def value(cell, params: ParameterSet) -> float:
    assert isinstance(cell, Quantity)
    return cell.value(Env(params.values()))


def nest3d(arrays: list[Array], line: int = 10) -> Loop:
    """do k / do j / do i = 1, 128, the arrays in the innermost body."""
    inner = Loop(line=line + 2, loopvar="i", lower="1", upper="128", arrays=arrays)
    middle = Loop(line=line + 1, loopvar="j", lower="1", upper="128", loops=[inner])
    return Loop(line=line, loopvar="k", lower="1", upper="128", loops=[middle])


def seven_point() -> Program:
    offsets = [(0, 0, 0), (-1, 0, 0), (1, 0, 0), (0, -1, 0), (0, 1, 0), (0, 0, -1), (0, 0, 1)]
    u = Array("u", "", "double", "readonly", [Access(o, IJK, reads=1) for o in offsets])
    v = Array("v", "", "double", "writeonly", [Access((0, 0, 0), IJK, writes=1)])
    # w: a local temporary read with offsets is computed here, never exchanged.
    w = Array("w", "", "double", "readonly", [Access((2, 0, 0), IJK, reads=1)])
    return Program([Procedure(name="lap", loops=[nest3d([u, v, w])],
                              nonlocals=[Variable("u"), Variable("v")],
                              locals=[Variable("w")])])


def test_seven_point_stencil_on_128_cubed():
    params = machine()
    table = comm_table(seven_point(), ModelContext(params), Num(1e-3))
    assert [r["array"] for r in table.rows] == ["u"]
    u = table.rows[0]
    # 6 faces x depth 1 x 128^2 cells x 8 B = 786432 B = 0.786432 MB, 6 messages.
    assert value(u["volume_mb"], params) == pytest.approx(0.786432)
    assert u["messages"] == 6 and u["faces"] == 6 and u["depth"] == "X 1, Y 1, Z 1"
    # m/b = 786432 / 100e9 = 7.86432e-6 s; l = 6 x 0.4e-6 = 2.4e-6 s; sum 1.026432e-5 s,
    # 1.026432 % of a 1 ms run.
    assert value(u["bandwidth_s"], params) == pytest.approx(7.86432e-6)
    assert value(u["latency_s"], params) == pytest.approx(2.4e-6)
    assert value(u["total_s"], params) == pytest.approx(1.026432e-5)
    assert value(u["fraction_pct"], params) == pytest.approx(1.026432)
    assert value(table.totals["total_s"], params) == pytest.approx(1.026432e-5)
    assert table.totals["messages"] == 6


def test_five_components_depth_four():
    # hypterm-like: cons(i+o, j, k, c) etc. for 5 components c, |o| up to 4 in each
    # dimension.  Per component 6 faces x 4 x 128^2 = 393216 cells; x 5 x 8 B = 15728640 B.
    arrays = []
    for c in ("irho", "imx", "imy", "imz", "iene"):
        accesses = []
        for d in range(3):
            for o in (-4, -3, -2, -1, 1, 2, 3, 4):
                offset = [0, 0, 0, c]
                offset[d] = o
                accesses.append(Access(tuple(offset), (*IJK, ""), reads=1))
        arrays.append(Array("cons", c, "double", "readonly", accesses))
    program = Program([Procedure(name="hypterm", loops=[nest3d(arrays)],
                                 nonlocals=[Variable("cons")])])
    params = machine()
    table = comm_table(program, ModelContext(params), Num(1.0))
    row = table.rows[0]
    assert row["components"] == 5 and row["messages"] == 6
    assert value(row["volume_mb"], params) == pytest.approx(15.72864)
    # 15728640 / 1e11 + 6 x 4e-7 = 1.572864e-4 + 0.024e-4 = 1.596864e-4 s.
    assert value(row["total_s"], params) == pytest.approx(1.596864e-4)


def test_fused_hypterm_exchanges():
    # cons: iene, imx, imy, imz read at depth 4 in X, Y, Z: 4 x 393216 cells x 8 B =
    # 12582912 B.  q: qpres all three dimensions (393216 cells), qu only X, qv only Y,
    # qw only Z (2 x 4 x 128^2 = 131072 cells each): 786432 cells x 8 B = 6291456 B.
    # advance reads no neighbour; flux is only written.  lo = 1, hi = 128 (defaults).
    params = machine()
    program = read_program(str(FUSED))
    ctx = ModelContext(params)
    exchanges = {e.array: e for e in ghost_exchanges(program, ctx)}
    assert sorted(exchanges) == ["cons", "q"]
    assert exchanges["q"].depths["qu"] == {0: 4}
    table = comm_table(program, ctx, Num(1e-3))
    volumes = {r["array"]: value(r["volume_mb"], params) for r in table.rows}
    assert volumes == pytest.approx({"cons": 12.582912, "q": 6.291456})
    assert value(table.totals["volume_mb"], params) == pytest.approx(18.874368)
    assert table.totals["messages"] == 12
    # 18874368 / 1e11 + 12 x 4e-7 = 1.8874368e-4 + 4.8e-6 = 1.9354368e-4 s.
    assert value(table.totals["total_s"], params) == pytest.approx(1.9354368e-4)
    assert value(table.totals["fraction_pct"], params) == pytest.approx(19.354368)


def test_a_float_array_exchanges_four_bytes_a_cell():
    params = machine()
    program = seven_point()
    u = program.procedures[0].loops[0].loops[0].loops[0].arrays[0]
    u.datatype = "float"
    ctx = ModelContext(params)
    (row,) = comm_table(program, ctx, Num(1e-3)).rows
    # 6 faces x depth 1 x 128^2 cells x 4 B (Bytes_u = 0.5 x WordBytes) = 0.393216 MB
    assert params["Bytes_u"].value == 4
    assert value(row["volume_mb"], params) == pytest.approx(0.393216)
    # the size typed over: 2 B a cell
    params["Bytes_u"].value = 2
    assert value(row["volume_mb"], params) == pytest.approx(0.196608)
