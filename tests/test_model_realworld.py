"""Model features met in real codes (the SMC chemistry kernels), checked by hand.

The chemistry nests of a combustion code loop over the species *inside* the grid loops:
``do k; do j; do i; ...; do n = 1, nspecies; Y(i,j,k,n) ...; wdot(n) ...``.  Each cell then
touches every species component of Y (nspecies copies of the pair, as ExaSAT's sheet counts
them), the 1-D per-cell tables (``wdot(n)``) are registers/cache-resident state, and the grid
is swept once.
"""

from __future__ import annotations

import pytest

from sat.ir import Access, Array, Loop, Procedure, Program
from sat.model.build import build_model
from sat.parameter import Parameter, ParameterSet

MACHINE = dict(Cores=1024, GBsPerCore=1, GflopsPerCore=10, IntRegs=16, FPRegs=16, CacheKB=1024,
               WordBytes=8, LineBytes=64, ReadCost=8, ReadWriteCost=16, WriteCost=16,
               DivCost=39, SpecialCost=125, StreamingWrites=0, NTAHints=0, NICGBs=100,
               NICLatencyUs=0.4, Overlap=1, BlockX=16, BlockY=16, BlockZ=32)
IJK = ("i", "j", "k")


def params(nspecies: int = 4) -> ParameterSet:
    ps = ParameterSet()
    for name, value in MACHINE.items():
        ps.add(Parameter(name, value))
    for k in (1, 2, 3):
        ps.symbol_values[f"lo({k})"] = (1, "test")
        ps.symbol_values[f"hi({k})"] = (32, "test")
    ps.symbol_values["nspecies"] = (nspecies, "test")
    return ps


def grid(name: str, component: str, accesstype: str = "readonly") -> Array:
    """A grid array read or written at the cell: a(i,j,k,component)."""
    species = component == "n"
    return Array(name, component, accesstype=accesstype,
                 accesses=[Access((0, 0, 0, 0 if species else component),
                                  (*IJK, "n" if species else ""), reads=1)])


def table(name: str, accesstype: str = "readonly") -> Array:
    """A per-cell table indexed by the species loop only: t(n)."""
    return Array(name, accesstype=accesstype, accesses=[Access((0,), ("n",), reads=1)])


def species_loop(line: int, arrays: list[Array], adds: int = 0, muls: int = 0) -> Loop:
    return Loop(line=line, loopvar="n", lower="1", upper="nspecies", adds=adds,
                multiplies=muls, arrays=arrays)


def chemistry_program() -> Program:
    """do k; do j; do i (2 adds): Q(..,qrho); do n (1 add, 1 mul): Y(..,n), t(n), w(n), u(n);
    do n (1 mul): t(n), Up(..,n) read and written."""
    first = species_loop(5, [grid("Y", "n"), table("t", "writeonly"), table("w"), table("u")],
                         adds=1, muls=1)
    second = species_loop(8, [table("t"), grid("Up", "n", "readwrite")], muls=1)
    inner = Loop(line=3, loopvar="i", lower="lo(1)", upper="hi(1)", adds=2,
                 arrays=[grid("Q", "qrho")], loops=[first, second])
    nest = Loop(line=1, loopvar="k", lower="lo(3)", upper="hi(3)", loops=[
        Loop(line=2, loopvar="j", lower="lo(2)", upper="hi(2)", loops=[inner])])
    return Program([Procedure(name="chem", loops=[nest])])


@pytest.fixture(scope="module")
def chemistry():
    result = build_model(chemistry_program(), params())
    return result, result.env()


def test_species_loops_inside_the_grid_are_not_sweeps(chemistry):
    result, env = chemistry
    row = result.tables["Loops"].rows[0]
    # 1-D tables t(n), w(n), u(n) outnumber the grid arrays subscripted by n (4 votes for
    # X against 2 for the 4th dimension): they must not make n the X axis.
    assert [row[k].value(env) for k in ("iter_x", "iter_y", "iter_z", "sweeps")] == \
        [32, 32, 32, 1]
    arrays = {a["array"]: a for a in result.tables["Arrays"].rows}
    assert sorted(arrays) == ["Q.qrho", "Up.n", "Y.n"]  # the tables are not streamed
    assert arrays["Q.qrho"]["copies"] == 1
    assert arrays["Y.n"]["copies"].value(env) == 4  # nspecies components per cell
    assert arrays["Up.n"]["copies"].value(env) == 4


def test_species_copies_in_traffic_and_working_sets(chemistry):
    result, env = chemistry
    row = result.tables["Loops"].rows[0]
    # 32^3 = 32768 cells, single-point stencils, 16-wide blocks fill whole lines: every
    # element once.  Bytes per cell: Q 1 x 8 + Y 4 copies x 8 + Up 4 copies x 16 = 104;
    # 104 * 32768 = 3,407,872 bytes (a sweep per species would give 16 x as much for all).
    assert row["traffic_gb"].value(env) * 1e9 == pytest.approx(3_407_872)
    # per cell: Q 1 + Y 4 read cells, Up 4 written: 9 words = 72 B = 0.0703125 KiB
    assert row["ws_naive_cell_kb"].value(env) == pytest.approx(72 / 1024)
    assert row["ws_stream_cell_kb"].value(env) == pytest.approx(40 / 1024)
    # one plane of a 16 x 16 block per copy: 256 words = 2 KiB, 9 copies = 18 KiB
    assert row["ws_naive_plane_kb"].value(env) == pytest.approx(18)
    # single points: reusing planes or pencils saves nothing, the cell working set stands
    assert row["ws_actual_plane_kb"].value(env) == pytest.approx(72 / 1024)


def test_species_flops_count_every_species(chemistry):
    result, env = chemistry
    row = result.tables["Loops"].rows[0]
    # per cell 2 + nspecies * (1 + 1) + nspecies * 1 = 2 + 8 + 4 = 14 flops; x 32768 cells
    assert row["gflops"].value(env) * 1e9 == pytest.approx(14 * 32768)


def test_block_working_set_holds_every_copy(chemistry):
    result, env = chemistry
    alt = result.tables["Alternative blocking"].rows[0]
    # block 16 x 16 x 32 = 8192 cells; Q once, Y and Up 4 copies each: 9 x 8192 words x 8 B
    # = 589,824 B = 576 KiB
    assert alt["ws_kb"].value(env) == pytest.approx(576)


def test_species_loop_around_the_grid_is_a_sweep():
    # do n = 1, nspecies; do k; do j; do i: U(i,j,k,n) read -> 4 sweeps of one pair
    inner = Loop(line=4, loopvar="i", lower="lo(1)", upper="hi(1)", adds=1,
                 arrays=[grid("U", "n")])
    nest = Loop(line=1, loopvar="n", lower="1", upper="nspecies", loops=[
        Loop(line=2, loopvar="k", lower="lo(3)", upper="hi(3)", loops=[
            Loop(line=3, loopvar="j", lower="lo(2)", upper="hi(2)", loops=[inner])])])
    result = build_model(Program([Procedure(name="p", loops=[nest])]), params())
    env = result.env()
    row = result.tables["Loops"].rows[0]
    assert row["sweeps"].value(env) == 4
    assert result.tables["Arrays"].rows[0]["copies"] == 1
    # 4 sweeps x 32768 cells x 8 B = 1,048,576 B; 4 x 32768 adds
    assert row["traffic_gb"].value(env) * 1e9 == pytest.approx(1_048_576)
    assert row["gflops"].value(env) * 1e9 == pytest.approx(4 * 32768)
