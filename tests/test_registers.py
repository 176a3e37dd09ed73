"""State variables, register counts and spills, against hand counts and the original sheet."""

from pathlib import Path

import pytest

from sat.ir import Access, Array, Loop, Procedure, Program, Scalar
from sat.model.context import ModelContext
from sat.model.exasat.registers import register_counts, registers_table, state_variables
from sat.model.expr import Env, Quantity
from sat.model.nests import program_nests
from sat.parameter import Parameter, ParameterSet
from sat.xmlio import read_program

FUSED = Path(__file__).parent / "data" / "exasat" / "xml" / "hypterm-cns-fused.xml"


def machine(fp_regs: float = 16, int_regs: float = 16) -> ParameterSet:
    params = ParameterSet()
    for name, value in [("FPRegs", fp_regs), ("IntRegs", int_regs), ("WordBytes", 8)]:
        params.add(Parameter(name, value))
    return params


def value(cell, params: ParameterSet, **overrides: float) -> float:
    assert isinstance(cell, Quantity)
    values = params.values()
    values.update(overrides)
    return cell.value(Env(values))


def nest(program: Program, procedure: str, line: int) -> Loop:
    return next(lp for p, lp in program_nests(program) if p.name == procedure and lp.line == line)


def summary(table, procedure: str, line: int, pool: str) -> dict:
    return next(r for r in table.rows if r["row"] == "nest" and r["procedure"] == procedure
                and r["line"] == line and r["pool"] == pool)


def variable(table, procedure: str, line: int, name: str) -> dict:
    return next(r for r in table.rows if r["row"] == "variable" and r["procedure"] == procedure
                and r["line"] == line and r["variable"] == name)


@pytest.fixture(scope="module")
def fused() -> Program:
    return read_program(str(FUSED))


def test_register_counts_match_the_original_sheet(fused):
    # Original LOOP ANALYSIS, columns GP Regs / FP Regs: advance 12 / 3, hypterm 15 / 20.
    # advance: ints irho imx imy imz iene i j k (8) + streamed U difflux flux Unew (4) = 12;
    #          doubles dt a b = 3.
    # hypterm: ints irho imx imy imz iene qu qv qw qpres i j k (12) + cons q flux (3) = 15;
    #          doubles ALP BET GAM DEL, unp1-4, unm1-4, flux{irho,imx,imy,imz,iene} (17)
    #          + dxinv(1) dxinv(2) dxinv(3) = 20.
    assert register_counts(nest(fused, "advance", 43)) == (12, 3)
    assert register_counts(nest(fused, "hypterm", 81)) == (15, 20)
    # dx(i), dxinv(i) move with i: loop counter i + two base addresses, no FP state.
    assert register_counts(nest(fused, "hypterm", 76)) == (3, 0)


def test_access_counts_match_the_state_variable_tables(fused):
    # Original STATE VARIABLE TABLES: hypterm i 198 (197 reads + 1 write), j 197, qpres 48,
    # unp1 18 (15 + 3), dxinv(2,) 5; advance i 26, k 25.
    counts = {v.name: v.accesses for v in state_variables(nest(fused, "hypterm", 81))}
    assert counts["i"] == 198 and counts["j"] == 197 and counts["qpres"] == 48
    assert counts["unp1"] == 18 and counts["dxinv(2)"] == 5 and counts["fluxirho"] == 4
    advance = {v.name: v.accesses for v in state_variables(nest(fused, "advance", 43))}
    assert advance["i"] == 26 and advance["k"] == 25 and advance["dt"] == 5


def test_hypterm_spills_with_16_and_8_fp_registers(fused):
    params = machine(fp_regs=16)
    table = registers_table(fused, ModelContext(params))
    fp = summary(table, "hypterm", 81, "FP")
    assert fp["variables"] == 20 and fp["accesses"] == 8 * 18 + 4 * 15 + 3 * 5 + 5 * 4  # 239
    # Ranks: unm1-4, unp1-4 (18 each) 1-8; ALP BET DEL GAM (15) 9-12; dxinv(1..3) (5) 13-15;
    # flux* (4) 16-20.  16 registers: ranks 17-20 spill, 4 variables x 4 accesses = 16,
    # 16 x 8 B = 128 B per iteration.
    assert value(fp["spilled_variables"], params) == 4
    assert value(fp["spilled_accesses"], params) == 16
    assert value(fp["spill_bytes"], params) == 128
    # 8 registers: ranks 9-20 spill: 4 x 15 + 3 x 5 + 5 x 4 = 95 accesses, 760 B.
    assert value(fp["spilled_variables"], params, FPRegs=8) == 12
    assert value(fp["spilled_accesses"], params, FPRegs=8) == 95
    assert value(fp["spill_bytes"], params, FPRegs=8) == 760
    # Per variable: ALP (rank 9) keeps its register with 16, spills its 15 accesses with 8.
    alp = variable(table, "hypterm", 81, "ALP")
    assert alp["rank"] == 9
    assert value(alp["in_register"], params) == 1
    assert value(alp["spilled_accesses"], params, FPRegs=8) == 15
    # Integer pool: 15 variables, 16 registers: nothing spills; with 12, ranks 13-15 spill:
    # qw (8), flux base address (5), irho (1) = 14 accesses.
    gp = summary(table, "hypterm", 81, "Int")
    assert gp["variables"] == 15
    assert value(gp["spilled_variables"], params) == 0
    assert value(gp["spilled_accesses"], params, IntRegs=12) == 8 + 5 + 1


def test_twenty_fp_state_variables_on_sixteen_registers():
    # s1..s20 read k times each (s20 the most); with FPRegs = 16 the four least used spill:
    # s1..s4 -> 4 variables, 1+2+3+4 = 10 accesses, 80 bytes per iteration.
    scalars = [Scalar(f"s{k}", "double", reads=k) for k in range(1, 21)]
    inner = Loop(line=2, loopvar="i", lower="1", upper="n", scalars=scalars + [
        Scalar("i", "int", reads=2),
        Scalar("m", "integer", reads=1)])
    inner.arrays = [
        Array("a", "", "double", "readonly", [Access((0, 0), ("i", "j"), reads=2)]),
        # b(j) does not move with i: a state variable of the innermost loop.
        Array("b", "", "double", "readonly", [Access((0,), ("j",), reads=3)]),
    ]
    outer = Loop(line=1, loopvar="j", lower="1", upper="n", loops=[inner],
                 scalars=[Scalar("j", "int", writes=1)])
    program = Program([Procedure(name="p", loops=[outer])])
    # Int: i, m, base address of a = 3; FP: s1..s20 + b(j) = 21.
    assert register_counts(outer) == (3, 21)
    params = machine(fp_regs=16)
    table = registers_table(program, ModelContext(params))
    fp = summary(table, "p", 1, "FP")
    # 21 FP variables by accesses: s20..s5 ranks 1-16, s4 17, b(j) 18 (3 accesses, ties
    # with s3 and "b(j)" < "s3"), s3 19, s2 20, s1 21.  Ranks 17-21 spill: 5 variables,
    # 4 + 3 + 3 + 2 + 1 = 13 accesses.
    assert fp["variables"] == 21
    assert value(fp["spilled_variables"], params) == 5
    assert value(fp["spilled_accesses"], params) == 4 + 3 + 3 + 2 + 1
    assert variable(table, "p", 1, "b(j)")["rank"] == 18
    # Without b: exactly the 20-variable case, 4 spilled and 10 accesses.
    inner.arrays = inner.arrays[:1]
    fp = summary(registers_table(program, ModelContext(params)), "p", 1, "FP")
    assert value(fp["spilled_variables"], params) == 4
    assert value(fp["spilled_accesses"], params) == 1 + 2 + 3 + 4
    assert value(fp["spill_bytes"], params) == 80
