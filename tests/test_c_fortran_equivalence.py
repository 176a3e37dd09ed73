"""The 7-point stencil in C (examples/c/stencil7.c) and in Fortran (examples/lap.f90) agree.

Same flops per loop level, same offsets once the layout is accounted for (C's ``a0[k][j][i]``
offsets reversed are Fortran's ``A0(i,j,k)``), and the same model numbers for the same problem
size (64^3 interior points; machine parameters from the reference sheet's top rows).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from reference_sheet import sheet, sheet_parameters

from sat import ir
from sat.frontend import read_sources
from sat.model.build import build_model
from sat.parameter import ParameterSet

ROOT = Path(__file__).resolve().parent.parent
SIZE = 64

def parameters(symbols: dict[str, float]) -> ParameterSet:
    params = sheet_parameters(sheet())
    for symbol, value in symbols.items():
        params.symbol_values[symbol] = (value, "test")
    return params


def only_procedure(path: Path) -> ir.Procedure:
    program = read_sources([str(path)])
    assert [str(w) for w in program.warnings] == []
    assert len(program.procedures) == 1
    return program.procedures[0]


@pytest.fixture(scope="module")
def pair() -> tuple[ir.Procedure, ir.Procedure]:
    return (only_procedure(ROOT / "examples" / "c" / "stencil7.c"),
            only_procedure(ROOT / "examples" / "lap.f90"))


def test_layouts(pair):
    c, fortran = pair
    assert (c.layout, fortran.layout) == ("row-major", "column-major")


def test_same_flops_per_loop_level(pair):
    c, fortran = pair
    c_loops, f_loops = list(c.all_loops()), list(fortran.all_loops())
    assert [lp.loopvar for lp in c_loops] == [lp.loopvar for lp in f_loops] == ["k", "j", "i"]
    for a, b in zip(c_loops, f_loops, strict=True):
        assert (a.adds, a.multiplies, a.divides, a.specials) == \
            (b.adds, b.multiplies, b.divides, b.specials)
    assert (c_loops[-1].adds, c_loops[-1].multiplies) == (6, 2)  # the hand count of lap.f90


def test_same_offsets_once_reversed(pair):
    c, fortran = pair
    c_inner, f_inner = list(c.all_loops())[-1], list(fortran.all_loops())[-1]

    def patterns(loop: ir.Loop, reverse: bool) -> dict[str, set[tuple]]:
        out: dict[str, set[tuple]] = {}
        for array in loop.arrays:
            for access in array.accesses:
                offsets, loopvars = access.offsets, access.loopvars
                if reverse:
                    offsets, loopvars = offsets[::-1], loopvars[::-1]
                out.setdefault(array.name.lower(), set()).add(
                    (offsets, loopvars, access.reads, access.writes))
        return out

    assert patterns(c_inner, reverse=True) == patterns(f_inner, reverse=False)
    expected_a0 = {(0, 0, 0), (1, 0, 0), (-1, 0, 0), (0, 1, 0), (0, -1, 0), (0, 0, 1),
                   (0, 0, -1)}
    assert {p[0] for p in patterns(c_inner, reverse=True)["a0"]} == expected_a0
    c_types = {a.name.lower(): a.accesstype for a in c_inner.arrays}
    f_types = {a.name.lower(): a.accesstype for a in f_inner.arrays}
    assert c_types == f_types == {"a0": "readonly", "anext": "writeonly"}


def test_same_model_numbers(pair):
    c, fortran = pair
    c_result = build_model(ir.Program(procedures=[c]),
                           parameters({"nx": SIZE, "ny": SIZE, "nz": SIZE}))
    f_symbols = {f"lo({d})": 1 for d in (1, 2, 3)} | {f"hi({d})": SIZE for d in (1, 2, 3)}
    f_result = build_model(ir.Program(procedures=[fortran]), parameters(f_symbols))
    c_rows, f_rows = c_result.tables["Loops"].rows, f_result.tables["Loops"].rows
    assert len(c_rows) == len(f_rows) == 1
    c_env, f_env = c_result.env(), f_result.env()
    for key in ("iter_x", "iter_y", "iter_z", "traffic_gb", "time_s"):
        assert c_rows[0][key].value(c_env) == pytest.approx(f_rows[0][key].value(f_env),
                                                             rel=1e-12), key
    assert c_rows[0]["iter_x"].value(c_env) == SIZE
    assert c_rows[0]["traffic_gb"].value(c_env) > 0
