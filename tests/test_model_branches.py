"""Nests that run only when a branch is taken count with the branch's probability."""

from __future__ import annotations

import pytest

from sat.machine import load_machine
from sat.model.build import build_model
from sat.parameters import build_parameters
from sat.xmlio import read_program_text

# The original tool's form: a whole nest inside <if>; 3 adds, 1 multiply, 4 divides and
# 1 special per cell over lo..hi = 1..128 in each direction; one read-only array component.
PROGRAM = """<program><function name="advance" adds="0" multiplies="0" divides="0"
    specials="0"><if linenum="99" conditional="present(courno)" adds="0" multiplies="0"
    divides="0" specials="0">
<loop linenum="102" loopvar="k" lowerbound="lo(3)" upperbound="hi(3)" stride="1" adds="0"
    multiplies="0" divides="0" specials="0">
<loop linenum="103" loopvar="j" lowerbound="lo(2)" upperbound="hi(2)" stride="1" adds="0"
    multiplies="0" divides="0" specials="0">
<loop linenum="104" loopvar="i" lowerbound="lo(1)" upperbound="hi(1)" stride="1" adds="3"
    multiplies="1" divides="4" specials="1">
<array name="q" component="1" datatype="double" accesstype="readonly">
<access offset="(0,0,0,1)" dependentloopvar="(i,j,k,)" reads="1" writes="0"/>
</array></loop></loop></loop></if></function></program>"""

CELLS = 128**3  # 2,097,152
FULL_GFLOP = CELLS * (3 + 1 + 4 + 1) / 1e9  # 0.018874368
FULL_TRAFFIC_GB = CELLS * 8 / 1e9  # one 8-byte read per cell (ReadCost 8): 0.016777216


def loop_row(conds: dict[str, float]):
    params = build_parameters(load_machine("exascale"))
    params.conds.update(conds)
    result = build_model(read_program_text(PROGRAM), params)
    (row,) = result.tables["Loops"].rows
    env = result.env()
    return row["gflops"].value(env), row["traffic_gb"].value(env), result.notes


def test_nest_in_an_if_without_probability_counts_half():
    gflop, traffic, notes = loop_row({})
    assert gflop == pytest.approx(FULL_GFLOP / 2)  # an if has two arms: 1/2 by default
    assert traffic == pytest.approx(FULL_TRAFFIC_GB / 2)
    assert any("present(courno)" in n.message and "1/2" in n.message for n in notes)


def test_conds_file_gives_the_probability():
    gflop, traffic, _ = loop_row({"present(courno)": 1.0})
    assert gflop == pytest.approx(FULL_GFLOP)
    assert traffic == pytest.approx(FULL_TRAFFIC_GB)
    gflop, traffic, _ = loop_row({"present(courno)": 0.25})
    assert (gflop, traffic) == (pytest.approx(FULL_GFLOP / 4), pytest.approx(FULL_TRAFFIC_GB / 4))
