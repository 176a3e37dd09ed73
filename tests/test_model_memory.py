"""Hand-worked checks of the memory model: gaps, cache lines, variants, reuse cases, blocks,
layouts, branch weights and calls, validation."""

from __future__ import annotations

from pathlib import Path

import pytest

from sat.ir import Access, Array, Branch, Call, Loop, Procedure, Program
from sat.model.build import build_model
from sat.model.exasat.stencil import max_step, pattern_counts, reuse_span, volume_terms
from sat.model.validate import check, empty_nests
from sat.parameter import Parameter, ParameterSet
from sat.xmlio import read_program

DATA = Path(__file__).parent / "data" / "exasat" / "xml"
MACHINE = dict(Cores=1024, GBsPerCore=1, GflopsPerCore=10, IntRegs=16, FPRegs=16, CacheKB=1024,
               WordBytes=8, LineBytes=64, ReadCost=8, ReadWriteCost=16, WriteCost=16,
               DivCost=39, SpecialCost=125, StreamingWrites=0, NTAHints=0, NICGBs=100,
               NICLatencyUs=0.4, Overlap=1, BlockX=16, BlockY=16, BlockZ=128)


def params(x: int = 128, y: int = 128, z: int = 128, **machine) -> ParameterSet:
    ps = ParameterSet()
    for name, value in {**MACHINE, **machine}.items():
        ps.add(Parameter(name, value))
    for k, hi in ((1, x), (2, y), (3, z)):
        ps.symbol_values[f"lo({k})"] = (1, "test")
        ps.symbol_values[f"hi({k})"] = (hi, "test")
    return ps


def loops_row(result, line: int | None = None) -> dict:
    rows = result.tables["Loops"].rows
    return rows[0] if line is None else next(r for r in rows if r["line"] == line)


# ---------------------------------------------------------------- the gap rule


def test_gap_rule_from_the_paper():
    # planes -2, +2: span 4 plus gap 4 = 8 planes; -2..+2: span 4 plus gap 1 = 5 planes
    assert reuse_span({-2, 2}, max_step({-2, 2})) == 8
    assert reuse_span(range(-2, 3), max_step(range(-2, 3))) == 5
    assert max_step({0}) == 1


def test_pattern_counts_seven_point():
    seven = frozenset({(0, 0, 0), (1, 0, 0), (-1, 0, 0), (0, 1, 0), (0, -1, 0), (0, 0, 1),
                       (0, 0, -1)})
    c = pattern_counts(seven, 1, 1)
    # touched: planes z in {-1,0,1}; pencils (0,0),(+-1,0),(0,+-1); 7 cells
    assert (c.planes, c.pencils, c.cells) == (3, 5, 7)
    # planes: span 2 + gap 1 = 3; pencils: plane 0 has y -1..1 -> 3, planes +-1 -> 1 each
    assert (c.ws_planes, c.ws_pencils, c.ws_cells) == (3, 5, 7)
    # reuse only: the pencils of plane 0 only (3); planes reused (3)
    assert (c.reuse_planes, c.reuse_pencils) == (3, 3)
    # a loop-wide gap of 4 (another array reads planes -2,+2) widens every working set
    assert pattern_counts(seven, 4, 1).ws_planes == 2 + 4


def test_union_footprint_of_seven_point():
    # rows of length X+2: H*I (the core, reached by the x offsets);
    # rows of length X: 2*I (y halo) + 2*H (z halo); no corners.
    seven = frozenset({(0, 0, 0), (1, 0, 0), (-1, 0, 0), (0, 1, 0), (0, -1, 0), (0, 0, 1),
                       (0, 0, -1)})
    assert volume_terms(seven) == ((0, (0, 2, 2, 0)), (2, (1, 0, 0, 0)))
    # a full 3x3x3 box: (X+2)*(H+2)*(I+2) = (X+2)*(HI + 2H + 2I + 4)
    box = frozenset((x, y, z) for x in (-1, 0, 1) for y in (-1, 0, 1) for z in (-1, 0, 1))
    assert volume_terms(box) == ((2, (1, 2, 2, 4)),)


# ---------------------------------------------------------------- lap.xml by hand
# A0: 7-point read-only, Anext: written at (0,0,0); block 16 x 16 x 128 of 128^3: 64 blocks.
# Cache lines of 8 elements: J = 16, access X = 16 + 2 = 18 -> O = 24.
# Plane footprint of A0 = O*H + J*2 = 24*16 + 32 = 416; of Anext = 16*16 = 256.
# Working sets (KiB, 8 B words):
#   plane: A0 3 planes * 416 * 8 / 1024 = 9.75, Anext 1 * 256 * 8 / 1024 = 2 -> naive 11.75
#   pencil: A0 5 pencils * 24 * 8 / 1024 = 0.9375, Anext 16 * 8 / 1024 = 0.125 -> 1.0625;
#           reuse only: A0 3 * 24 * 8 / 1024 = 0.5625
#   cell: (7 + 1) * 8 / 1024 = 0.0625
# Traffic (bytes, whole domain):
#   planes:  A0 64*8*(24*16*128 + 16*(2*128 + 2*16)) = 27,525,120 + Anext 64*16*32768
#            = 33,554,432 -> 61,079,552
#   pencils: A0 64*3*8*416*128 = 81,788,928 + 33,554,432 = 115,343,360
#   within:  A0 64*5*8*24*16*128 = 125,829,120 + 33,554,432 = 159,383,552
#   none:    A0 64*7*8*16*16*128 = 117,440,512 + 33,554,432 = 150,994,944


@pytest.fixture(scope="module")
def lap():
    program = read_program(str(DATA / "micro" / "lap.xml"))
    return build_model(program, params())


def test_lap_working_set_variants(lap):
    row = loops_row(lap)
    env = lap.env()
    expected = {"ws_naive_plane_kb": 11.75, "ws_stream_plane_kb": 9.75,
                "ws_reuse_plane_kb": 9.75, "ws_naive_pencil_kb": 1.0625,
                "ws_stream_pencil_kb": 0.9375, "ws_reuse_pencil_kb": 0.5625,
                "ws_naive_cell_kb": 0.0625, "ws_stream_cell_kb": 7 * 8 / 1024}
    for key, value in expected.items():
        assert row[key].value(env) == pytest.approx(value), key
    # the actual variant follows StreamingWrites / NTAHints
    assert row["ws_actual_pencil_kb"].value(env) == pytest.approx(1.0625)
    sw = lap.env({"StreamingWrites": 1})
    assert row["ws_actual_pencil_kb"].value(sw) == pytest.approx(0.9375)
    nta = lap.env({"NTAHints": 1})
    assert row["ws_actual_pencil_kb"].value(nta) == pytest.approx(0.5625)


def test_streaming_writes_halve_write_traffic(lap):
    row = loops_row(lap)
    # Anext: 64 blocks * 32768 elements * 16 B (write-allocate) vs 8 B (bypass)
    default = row["traffic_planes_gb"].value(lap.env()) * 1e9
    streaming = row["traffic_planes_gb"].value(lap.env({"StreamingWrites": 1})) * 1e9
    assert default == pytest.approx(61_079_552)
    assert default - streaming == pytest.approx(64 * 32768 * 8)


@pytest.mark.parametrize("cache_kb, level, traffic", [
    (12, 1, 61_079_552),          # 11.75 < 12: reuse between planes
    (11.75, 2, 115_343_360),      # not strictly below: pencils (1.0625 fits)
    # pencils do not fit; cells (0.0625) do: min(within 159_383_552, none 150_994_944) is the
    # case without reuse, and the level reported is the case whose traffic was taken
    (1.0625, 4, 150_994_944),
    (1, 4, 150_994_944),
    (0.0625, 4, 150_994_944),     # nothing fits: no reuse within pencils
])
def test_reuse_case_on_each_side_of_the_thresholds(lap, cache_kb, level, traffic):
    row = loops_row(lap)
    env = lap.env({"CacheKB": cache_kb})
    assert row["reuse"].value(env) == level
    assert row["traffic_gb"].value(env) * 1e9 == pytest.approx(traffic)


def test_per_case_traffic(lap):
    row = loops_row(lap)
    env = lap.env()
    for key, value in (("traffic_pencils_gb", 115_343_360), ("traffic_within_gb", 159_383_552),
                       ("traffic_none_gb", 150_994_944)):
        assert row[key].value(env) * 1e9 == pytest.approx(value), key


@pytest.mark.parametrize("block_x, line_bytes, lines", [(16, 64, 16), (20, 64, 24),
                                                         (20, 128, 32), (5, 8, 5)])
def test_cache_line_rounding(lap, block_x, line_bytes, lines):
    # 8-byte words: 64-byte lines hold 8 elements (20 -> 24), 128-byte lines 16 (20 -> 32)
    env = lap.env({"BlockX": block_x, "LineBytes": line_bytes})
    assert loops_row(lap)["block_x_lines"].value(env) == lines


@pytest.mark.parametrize("hi1, block_x, block, blocks", [
    (100, 16, 16, 100 / 16 * 8),   # partial blocks count by their fraction: 6.25 * 8 * 1
    (100, 0, 100, 8),              # 0 = no blocking along X
    (100, 256, 100, 8),            # a block never exceeds the extent
    (128, 32, 32, 4 * 8),
])
def test_block_counts(hi1, block_x, block, blocks):
    result = build_model(read_program(str(DATA / "micro" / "lap.xml")), params(x=hi1))
    env = result.env({"BlockX": block_x})
    row = loops_row(result)
    assert row["iter_x"].value(env) == hi1
    assert row["block_x"].value(env) == block
    assert row["blocks"].value(env) == pytest.approx(blocks)


# ---------------------------------------------------------------- layouts


def seven_point_program(layout: str) -> Program:
    """A hand-built 7-point stencil over nx x ny x nz, in either layout."""
    def access(dx: int, dy: int, dz: int) -> Access:
        if layout == "row-major":  # a[k][j][i]
            return Access((dz, dy, dx), ("k", "j", "i"), reads=1)
        return Access((dx, dy, dz), ("i", "j", "k"), reads=1)

    offsets = [(0, 0, 0), (1, 0, 0), (-1, 0, 0), (0, 1, 0), (0, -1, 0), (0, 0, 1), (0, 0, -1)]
    inner = Loop(line=3, loopvar="i", lower="1", upper="nx", adds=6, multiplies=1,
                 arrays=[Array("a", accesses=[access(*o) for o in offsets]),
                         Array("b", accesstype="writeonly",
                               accesses=[Access((0, 0, 0), ("k", "j", "i") if layout ==
                                                "row-major" else ("i", "j", "k"), writes=1)])])
    middle = Loop(line=2, loopvar="j", lower="1", upper="ny", loops=[inner])
    outer = Loop(line=1, loopvar="k", lower="1", upper="nz", loops=[middle])
    return Program([Procedure(name="st", file="st.c", layout=layout, loops=[outer])])


@pytest.mark.parametrize("layout", ["column-major", "row-major"])
def test_both_layouts_give_the_same_model(layout):
    ps = params(BlockX=0, BlockY=0, BlockZ=0)
    for name, value in (("nx", 64), ("ny", 32), ("nz", 16)):
        ps.symbol_values[name] = (value, "test")
    result = build_model(seven_point_program(layout), ps)
    env = result.env()
    row = loops_row(result)
    # the i loop is X (unit stride) in both layouts
    assert [row[f"iter_{a}"].value(env) for a in "xyz"] == [64, 32, 16]
    arrays = {r["array"]: r for r in result.tables["Arrays"].rows}
    assert (arrays["a"]["planes"], arrays["a"]["pencils"], arrays["a"]["cells"]) == (3, 5, 7)
    # unblocked: one block of 64 x 32 x 16; a's footprint 16*(64+2->72 lines... 72 is 9 lines)
    # = 72*32*16 + 64*(2*16 + 2*32) = 36864 + 6144 = 43008 elements
    assert arrays["a"]["block_elements"].value(env) == 43008
    # flops: 7 per iteration over 64*32*16 iterations
    assert row["gflops"].value(env) == pytest.approx(7 * 64 * 32 * 16 / 1e9)


# ---------------------------------------------------------------- flops


def test_branches_weighted_and_calls_added():
    # do i = 1, n: 2 adds; if (c) 10 multiplies (probability 0.25 from --conds), else arm
    # 4 divides with no probability of its own: it runs what the if leaves, 1 - 0.25 = 0.75;
    # call f: f does 3 specials.
    arm = Branch(multiplies=10, condition="c", arm=0, arms=2)
    other = Branch(divides=4, condition="else", arm=1, arms=2)
    loop = Loop(line=5, loopvar="i", lower="1", upper="n", adds=2, branches=[arm, other],
                calls=[Call("f", 6)],
                arrays=[Array("a", accesses=[Access((0,), ("i",), reads=1)])])
    caller = Procedure(name="p", file="p.f90", loops=[loop])
    callee = Procedure(name="f", file="p.f90", specials=3)
    ps = params()
    ps.symbol_values["n"] = (1000, "test")
    ps.conds["c"] = 0.25
    result = build_model(Program([caller, callee]), ps)
    row = loops_row(result)
    assert (row["adds"], row["multiplies"], row["divides"], row["specials"]) == (2, 2.5, 3, 3)
    # per iteration 2 + 2.5 + 3 + 3 = 10.5 flops; weighted 2 + 2.5 + 39*3 + 125*3 = 496.5
    env = result.env()
    assert row["gflops"].value(env) == pytest.approx(10.5 * 1000 / 1e9)
    assert row["weighted_gflops"].value(env) == pytest.approx(496.5 * 1000 / 1e9)
    # nothing is assumed: no note of a 1/2 weight
    assert not any("1/2" in n.message for n in result.notes)


def test_outer_level_flops_run_once_per_outer_iteration():
    inner = Loop(line=2, loopvar="i", lower="1", upper="10", adds=1,
                 arrays=[Array("a", accesses=[Access((0, 0), ("i", "j"), reads=1)])])
    outer = Loop(line=1, loopvar="j", lower="1", upper="m", multiplies=5, loops=[inner])
    ps = params()
    ps.symbol_values["m"] = (100, "test")
    result = build_model(Program([Procedure(name="p", loops=[outer])]), ps)
    # 1 add * 10 * 100 + 5 multiplies * 100 = 1500 flops
    assert loops_row(result)["gflops"].value(result.env()) == pytest.approx(1500 / 1e9)


# ---------------------------------------------------------------- validation


def test_an_empty_nest_is_a_warning_that_names_the_nest_and_parameters():
    result = build_model(read_program(str(DATA / "micro" / "lap.xml")), params())
    assert check(result) == [] and empty_nests(result) == []
    env = result.env({"hi_2": 0})
    assert check(result, env) == []
    (message, where, line), = empty_nests(result, env)
    assert (where, line) == ("laplacian", 11)  # no file name in the XML: the procedure
    assert "0 iterations along Y" in message and "hi_2, lo_2" in message
    # shown with zero work, and nothing undefined (0/0 blocks) anywhere
    row = loops_row(result)
    for key in ("gflops", "traffic_gb", "time_s", "bytes_per_flop", "blocks"):
        assert row[key].value(env) == 0, key
    # a block narrower than the stencil span is flagged
    narrow = build_model(read_program(str(DATA.parent / "xml" / "hypterm-cns-fused.xml")),
                         params(BlockX=2, BlockY=2, BlockZ=2))
    assert any("narrower than the stencil" in e and "cons.iene" in e for e in check(narrow))
