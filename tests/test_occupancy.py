"""Occupancy (liveness) table, NVRAM metrics and memory footprint, worked by hand."""

from pathlib import Path

import pytest

from sat.ir import Access, Array, Loop, Procedure, Program, Variable
from sat.model.context import ModelContext
from sat.model.exasat.occupancy import footprint, occupancy_table
from sat.model.expr import Env, Quantity
from sat.parameter import Parameter, ParameterSet
from sat.xmlio import read_program

FUSED = Path(__file__).parent / "data" / "exasat" / "xml" / "hypterm-cns-fused.xml"
IJ = ("i", "j")


def machine(**symbols: float) -> ParameterSet:
    params = ParameterSet()
    params.add(Parameter("WordBytes", 8))
    for name, val in symbols.items():
        params.symbol_values[name] = (val, "test")
    return params


def value(cell, params: ParameterSet) -> float:
    assert isinstance(cell, Quantity)
    return cell.value(Env(params.values()))


def nest2d(line: int, arrays: list[Array]) -> Loop:
    """do j = 1, n / do i = 1, n with the given arrays in the inner body."""
    inner = Loop(line=line + 1, loopvar="i", lower="1", upper="n", arrays=arrays)
    return Loop(line=line, loopvar="j", lower="1", upper="n", loops=[inner])


def three_loops() -> Program:
    # line 10: a(i,j) = b(i-1,j) + b(i+1,j)           a W,  b R
    # line 20: c(i,j) = ...; a(i,j) = a(i,j) + c(i,j)   a RW, c WR, b live (used at 10 and 30)
    # line 30: d(i,j) = b(i,j) * c(i,j)               b R,  c R,  d W
    a_w = Array("a", "", "double", "writeonly", [Access((0, 0), IJ, writes=1)])
    b_r = Array("b", "", "double", "readonly",
                [Access((-1, 0), IJ, reads=1), Access((1, 0), IJ, reads=1)])
    a_rw = Array("a", "", "double", "readwrite", [Access((0, 0), IJ, reads=1, writes=1)])
    c_wr = Array("c", "", "double", "readwrite", [Access((0, 0), IJ, reads=1, writes=1)],
                 firstaccess="store")
    b_r0 = Array("b", "", "double", "readonly", [Access((0, 0), IJ, reads=1)])
    c_r = Array("c", "", "double", "readonly", [Access((0, 0), IJ, reads=1)])
    d_w = Array("d", "", "double", "writeonly", [Access((0, 0), IJ, writes=1)])
    proc = Procedure(name="step", loops=[nest2d(10, [a_w, b_r]), nest2d(20, [a_rw, c_wr]),
                                         nest2d(30, [b_r0, c_r, d_w])],
                     nonlocals=[Variable("a", shape=("n", "n")), Variable("b"),
                                Variable("d", shape=("n", "n"))],
                     locals=[Variable("c", shape=("0:n+1", "n"))])
    return Program([proc])


def row(table, procedure: str, array: str) -> dict:
    return next(r for r in table.rows if r["procedure"] == procedure and r["array"] == array)


def test_liveness_cells_of_a_three_loop_procedure():
    params = machine(n=100)
    table = occupancy_table(three_loops(), ModelContext(params))
    cells = {name: [row(table, "step", name)[f"loop_step_{line}"] for line in (10, 20, 30)]
             for name in "abcd"}
    assert cells == {"a": ["W", "RW", ""], "b": ["R", "L", "R"], "c": ["", "WR", "R"],
                     "d": ["", "", "W"]}
    # Per nest: read (R/RW/WR), written (W/RW/WR), live (any non-blank).
    assert [row(table, "step", "Arrays read")[f"loop_step_{n}"] for n in (10, 20, 30)] == [1, 2, 2]
    assert [row(table, "step", "Arrays written")[f"loop_step_{n}"]
            for n in (10, 20, 30)] == [1, 2, 1]
    assert [row(table, "step", "Arrays live")[f"loop_step_{n}"] for n in (10, 20, 30)] == [2, 3, 3]
    a = row(table, "step", "a")
    assert (a["nests_read"], a["nests_written"]) == (1, 2)


def test_nvram_metrics_and_footprint():
    params = machine(n=100)
    program = three_loops()
    ctx = ModelContext(params)
    table = occupancy_table(program, ctx)
    # a: read once per cell in loop 20 (100*100 = 10000), written in 10 and 20 (20000):
    # ratio 0.5.  Writes in the program: a 20000 + c 10000 + d 10000 = 40000, so the write
    # access rate of a is 50 %, of c 25 %.  b is never written.
    a = row(table, "step", "a")
    assert value(a["element_reads"], params) == 10000
    assert value(a["element_writes"], params) == 20000
    assert value(a["read_write_ratio"], params) == pytest.approx(0.5)
    assert value(a["write_access_rate_pct"], params) == pytest.approx(50.0)
    assert value(row(table, "step", "c")["write_access_rate_pct"], params) == pytest.approx(25)
    assert row(table, "step", "b")["read_write_ratio"] == "read-only"
    # Sizes: a declared (n, n) = 10000 cells; b undeclared: i sweeps 1..100 with offsets
    # -1..+1 -> 102, j 100 -> 10200 cells; c declared (0:n+1, n) = 102 * 100 = 10200;
    # d declared (n, n) = 10000.  Total 40400 cells * 8 B = 323200 B.
    gib = 2**30
    assert value(row(table, "step", "b")["size_gib"], params) == pytest.approx(10200 * 8 / gib)
    assert value(row(table, "step", "c")["size_gib"], params) == pytest.approx(10200 * 8 / gib)
    total = footprint(program, ctx)
    assert value(total, params) == pytest.approx(323200 / gib)
    assert table.totals["size_gib"] is total  # one quantity for the sheet and Footprint_GiB
    # Live footprint per nest: loop 10 a + b = 20200 cells; loop 20 a + b + c = 30400.
    live = row(table, "step", "Live footprint (GiB)")
    assert value(live["loop_step_10"], params) == pytest.approx(20200 * 8 / gib)
    assert value(live["loop_step_20"], params) == pytest.approx(30400 * 8 / gib)


def test_component_pairs_and_declared_component_dimension():
    # q(i,j,qu) written, q(i,j,qv) read, q declared (n, n, 5): each pair is an n*n slice,
    # the array takes all 5 components: 5 * 50 * 50 = 12500 cells = 100000 B.
    params = machine(n=50)
    q_u = Array("q", "qu", "double", "writeonly", [Access((0, 0, "qu"), ("i", "j", ""),
                                                          writes=1)])
    q_v = Array("q", "qv", "double", "readonly", [Access((0, 0, "qv"), ("i", "j", ""),
                                                         reads=1)])
    proc = Procedure(name="p", loops=[nest2d(5, [q_u, q_v])],
                     nonlocals=[Variable("q", shape=("n", "n", "5"))])
    program = Program([proc])
    ctx = ModelContext(params)
    table = occupancy_table(program, ctx)
    assert row(table, "p", "q.qu")["loop_p_5"] == "W"
    assert row(table, "p", "q.qv")["loop_p_5"] == "R"
    assert value(row(table, "p", "q.qu")["size_gib"], params) == pytest.approx(2500 * 8 / 2**30)
    assert value(footprint(program, ctx), params) == pytest.approx(100000 / 2**30)


def test_fused_hypterm_against_the_original_read_write_tables():
    params = machine()
    ctx = ModelContext(params)
    program = read_program(str(FUSED))
    table = occupancy_table(program, ctx)
    # Original ARRAY READ-WRITE TABLES: advance line 43 has U.* and difflux.* and flux.* R,
    # Unew.* RW; 20 arrays present ("Footprint 20").
    assert row(table, "advance", "Unew.imx")["loop_advance_43"] == "RW"
    assert row(table, "advance", "difflux.irho")["loop_advance_43"] == "R"
    assert row(table, "advance", "Arrays live")["loop_advance_43"] == 20
    # hypterm line 81: cons.* and q.* R, flux.* W (as the original), plus dxinv read
    # (written by the loop at line 76, which the original does not list).
    assert row(table, "hypterm", "flux.iene")["loop_hypterm_81"] == "W"
    assert row(table, "hypterm", "q.qw")["loop_hypterm_81"] == "R"
    assert row(table, "hypterm", "dxinv")["loop_hypterm_76"] == "W"
    assert row(table, "hypterm", "Arrays read")["loop_hypterm_81"] == 4 + 4 + 1
    assert row(table, "hypterm", "Arrays written")["loop_hypterm_81"] == 5
    assert not any(r["array"] in ("lo", "hi") for r in table.rows)  # constant-indexed
    # Footprint of advance: 20 pairs x 128^3 cells (lo = 1, hi = 128 defaults) x 8 B
    # = 20 x 16 MiB = 0.3125 GiB.
    assert value(row(table, "advance", "Footprint")["size_gib"], params) == pytest.approx(0.3125)
    # cons.iene: offsets -4..4 in every dimension -> 136^3 cells x 8 B.
    assert value(row(table, "hypterm", "cons.iene")["size_gib"], params) == pytest.approx(
        136**3 * 8 / 2**30)
