"""Each array's element size is an input, Bytes_<array>: its default a formula of WordBytes
from the declared type, typed over by --set or in the workbook, used by every formula."""

import json
import math
from pathlib import Path

import numpy as np
import pytest

from sat.cli import main
from sat.explore.compiled import CompiledModel
from sat.frontend import read_sources
from sat.ir import Access, Array, Loop, Procedure, Program, Scalar
from sat.machine import load_machine
from sat.model.build import build_model
from sat.model.context import ModelContext
from sat.model.exasat.registers import registers_table
from sat.model.expr import Env
from sat.parameter import Parameter, ParameterSet
from sat.parameters import build_parameters

# one sweep from memory, no blocking, costs per word: 8 B a read, 16 B a write (the line is
# read for ownership, then written back), 16 B a read-and-write
MACHINE = ["--set", "BlockX=0", "--set", "BlockY=0", "--set", "BlockZ=0",
           "--set", "CacheKB=1024", "--set", "StreamingWrites=0", "--set", "NTAHints=0",
           "--set", "ReadCost=8", "--set", "ReadWriteCost=16", "--set", "WriteCost=16",
           "--set", "WordBytes=8", "--set", "LineBytes=64", "--set", "n=1000"]

SCALE_F = """\
void scale(int n, float *a, const float *b)
{
  for (int i = 0; i < n; i++)
    a[i] = 2.0f*b[i];
}
"""

# int weights c streamed beside double x and y: 4 + 8 + 16 B per iteration
MIXED = """\
void axpyi(int n, double *y, const double *x, const int *c)
{
  for (int i = 0; i < n; i++)
    y[i] = y[i] + c[i]*x[i];
}
"""


def source(tmp_path: Path, text: str, name: str) -> str:
    path = tmp_path / name
    path.write_text(text)
    return str(path)


def run(capsys, path: str, *options: str) -> dict:
    assert main([path, "--json", "-", "-q", *MACHINE, *options]) == 0
    return json.loads(capsys.readouterr().out)


def element_parameters(result: dict) -> dict[str, dict]:
    return {p["name"]: p for p in result["parameters"] if p["name"].startswith("Bytes_")}


def model(path: str, *options: str):
    """The model of ``path`` as the CLI builds it with MACHINE and ``options`` (--set pairs)."""
    sets = [s for s in (*MACHINE, *options) if s != "--set"]
    return build_model(read_sources([path]), build_parameters(load_machine(None), sets=sets))


def footprint_bytes(path: str, *options: str) -> float:
    result = model(path, *options)
    return result.totals["Footprint_GiB"].value(result.env()) * 2**30


def per_iteration(result: dict) -> float:
    """Bytes per iteration of the one nest (n = 1000 iterations)."""
    return result["loops"][0]["traffic_gb"] * 1e9 / 1000


def test_float_kernel_moves_twelve_bytes_an_iteration(capsys, tmp_path):
    path = source(tmp_path, SCALE_F, "scale.c")
    result = run(capsys, path)
    sizes = element_parameters(result)
    # float: half a word of WordBytes = 8, a default (a formula in the workbook)
    assert {name: (p["value"], p["group"], p["unit"]) for name, p in sizes.items()} == {
        "Bytes_a": (4, "arrays", "B"), "Bytes_b": (4, "arrays", "B")}
    assert sizes["Bytes_a"]["source"] == ("derived from WordBytes: 0.5 x WordBytes, the size of "
                                          "its declared type (float)")
    assert sizes["Bytes_a"]["derived_from"] == ["WordBytes"]
    assert sizes["Bytes_a"]["label"] == "bytes of one element of array a (float: 0.5 x WordBytes)"
    # b read: 8 B per word x 4/8 = 4; a written: 16 x 4/8 = 8 (4 written, 4 read for
    # ownership): 12 B per iteration
    assert per_iteration(result) == pytest.approx(12)
    # the Arrays rows show each array's element size: its parameter
    arrays = model(path).tables["Arrays"].rows
    assert {row["array"]: row["element_bytes"].expr.name for row in arrays} == {  # type: ignore
        "a": "Bytes_a", "b": "Bytes_b"}
    # footprint: 1000 elements of 4 B in each array
    assert footprint_bytes(path) == pytest.approx(8000)

    typed = run(capsys, path, "--set", "Bytes_a=8")
    assert element_parameters(typed)["Bytes_a"]["source"] == "--set"
    # a of 8 B: 16 B written and allocated, b still 4 B read: 20 B; 12000 B of data
    assert per_iteration(typed) == pytest.approx(4 + 16)
    assert footprint_bytes(path, "--set", "Bytes_a=8") == pytest.approx(8000 + 4000)


def test_mixed_int_and_double_kernel(capsys, tmp_path):
    path = source(tmp_path, MIXED, "axpyi.c")
    result = run(capsys, path)
    sizes = {name: p["value"] for name, p in element_parameters(result).items()}
    assert sizes == {"Bytes_y": 8, "Bytes_x": 8, "Bytes_c": 4}
    # c read 4 B, x read 8 B, y read and written 16 B
    assert per_iteration(result) == pytest.approx(4 + 8 + 16)
    # working set per cell: one element of each, 4 + 8 + 8 B
    assert result["loops"][0]["ws_actual_cell_kb"] * 1024 == pytest.approx(20)
    assert footprint_bytes(path) == pytest.approx(1000 * 20)

    # c typed over as 8 B: only c's share moves
    wide = run(capsys, path, "--set", "Bytes_c=8")
    assert per_iteration(wide) == pytest.approx(8 + 8 + 16)
    assert footprint_bytes(path, "--set", "Bytes_c=8") == pytest.approx(1000 * 24)

    # WordBytes keeps ExaSAT's meaning: the double arrays (and c's default, half a word)
    # scale with it; costs are per word, so traffic per element stays ReadCost & co.
    doubled = run(capsys, path, "--set", "WordBytes=16")
    assert {name: p["value"] for name, p in element_parameters(doubled).items()} == {
        "Bytes_y": 16, "Bytes_x": 16, "Bytes_c": 8}
    assert per_iteration(doubled) == pytest.approx(per_iteration(result))
    assert footprint_bytes(path, "--set", "WordBytes=16") == pytest.approx(1000 * 40)
    # ...unless the user typed a number over an array's size
    kept = run(capsys, path, "--set", "WordBytes=16", "--set", "Bytes_c=4")
    assert element_parameters(kept)["Bytes_c"]["value"] == 4
    assert footprint_bytes(path, "--set", "WordBytes=16", "--set", "Bytes_c=4") == \
        pytest.approx(1000 * (16 + 16 + 4))


def test_an_element_size_must_be_positive(capsys, tmp_path):
    path = source(tmp_path, MIXED, "axpyi.c")
    assert main([path, "--json", "-", "-q", *MACHINE, "--set", "Bytes_c=0"]) == 2
    assert "Bytes_c = 0 (--set) must be positive" in capsys.readouterr().err


def test_procedures_that_disagree_on_an_array_get_one_size_each(tmp_path):
    text = """\
subroutine single(n, a)
  integer :: n, i
  real :: a(n)
  do i = 1, n
    a(i) = 2.0*a(i)
  end do
end subroutine
subroutine double(n, a, b)
  integer :: n, i
  double precision :: a(n), b(n)
  do i = 1, n
    a(i) = 0.5d0*(b(i) + a(i))
  end do
end subroutine
"""
    program = read_sources([source(tmp_path, text, "two.f90")])
    params = build_parameters(load_machine(None))
    result = build_model(program, params)
    sizes = {p.name: p.value for p in result.parameters if p.name.startswith("Bytes_")}
    # a is real (4 B) in one and double precision in the other: one parameter per procedure;
    # b is one array everywhere
    assert sizes == {"Bytes_single_a": 4, "Bytes_double_a": 8, "Bytes_b": 8}


def test_the_compiled_evaluator_follows_the_default_formula(tmp_path):
    result = model(source(tmp_path, MIXED, "axpyi.c"))
    footprint = result.totals["Footprint_GiB"]
    compiled = CompiledModel([footprint], result.defaults())
    base = result.inputs()
    # WordBytes 8 and 16 in one call: the defaulted sizes follow it
    (bytes_,) = compiled({**base, "WordBytes": np.array([8.0, 16.0])})
    assert list(bytes_ * 2**30) == pytest.approx([1000 * 20, 1000 * 40])
    # an element size given a value stops following it
    (bytes_,) = compiled({**base, "WordBytes": np.array([8.0, 16.0]), "Bytes_c": 2.0})
    assert list(bytes_ * 2**30) == pytest.approx([1000 * 18, 1000 * 34])
    # the tree evaluator agrees
    assert footprint.value(result.env({"WordBytes": 16})) * 2**30 == pytest.approx(40000)
    assert footprint.value(result.env({"WordBytes": 16, "Bytes_c": 2})) * 2**30 == \
        pytest.approx(34000)


def test_a_spilled_access_moves_the_size_of_what_it_spills():
    inner = Loop(line=2, loopvar="i", lower="1", upper="n", scalars=[
        Scalar("f", "float", reads=3), Scalar("d", "double", reads=2),
        Scalar("i", "int", reads=2), Scalar("m", "long", reads=1)])
    inner.arrays = [
        Array("a", "", "double", "readonly", [Access((0,), ("i",), reads=2)]),
        # w(j) does not move with i: a float state variable
        Array("w", "", "float", "readonly", [Access((0,), ("j",), reads=1)]),
    ]
    outer = Loop(line=1, loopvar="j", lower="1", upper="n", loops=[inner])
    program = Program([Procedure(name="p", loops=[outer])])
    params = ParameterSet()
    for name, value in (("FPRegs", 0), ("IntRegs", 0), ("WordBytes", 8)):
        params.add(Parameter(name, value))

    def spill_bytes(context: ModelContext) -> dict[str, float]:
        table = registers_table(program, context)
        env = Env(context.params.values())
        return {row["pool"]: row["spill_bytes"].value(env) for row in table.rows
                if row["row"] == "nest"}

    # no registers, everything spills. FP: f 3 x 4 B + d 2 x 8 B + w(j) 1 x Bytes_w (4 B) =
    # 32 (48 when every access was WordBytes). Int: i 2 x 4 B + m 1 x 8 B + the base address
    # of a 2 x WordBytes = 32 (40 before).
    assert spill_bytes(ModelContext(params)) == {"FP": 32, "Int": 32}
    assert params["Bytes_w"].value == 4
    # the array element spills at the size typed over its array's
    typed = ParameterSet(symbol_values={"Bytes_w": (8, "--set")})
    for name, value in (("FPRegs", 0), ("IntRegs", 0), ("WordBytes", 8)):
        typed.add(Parameter(name, value))
    assert spill_bytes(ModelContext(typed)) == {"FP": 36, "Int": 32}


@pytest.mark.libreoffice
def test_editing_an_element_size_in_libreoffice_equals_set(capsys, tmp_path):
    from libreoffice import named_value, recalculate_edited

    path = source(tmp_path, MIXED, "axpyi.c")
    book = tmp_path / "axpyi.xlsx"
    assert main([path, "-q", *MACHINE, "-o", str(book)]) == 0
    # c typed over; WordBytes doubled: x and y follow their default formula
    edits = {"Bytes_c": 2, "WordBytes": 16}
    values = recalculate_edited(book, edits, tmp_path / "edit")

    def total(name: str) -> float:
        return float(named_value(values, name))  # type: ignore[arg-type]

    sets = [item for name, value in edits.items() for item in ("--set", f"{name}={value}")]
    want = run(capsys, path, *sets)
    for name, key in (("Total_Traffic_GB", "traffic_gb"), ("Total_Time_s", "time_s")):
        assert math.isclose(total(name), want["totals"][key], rel_tol=1e-9), name
    assert math.isclose(total("Footprint_GiB") * 2**30, footprint_bytes(path, *sets),
                        rel_tol=1e-9)
    assert total("Bytes_x") == 16 and total("Bytes_c") == 2
    # by hand: 1000 x (16 + 16 + 2) B; traffic c 8 x 2/16 + x 8 + y 16 = 25 B per iteration
    assert total("Footprint_GiB") * 2**30 == pytest.approx(34000)
    assert per_iteration(want) == pytest.approx(25)


def test_a_float_kernel_has_twice_the_iterations_per_unit_of_work(capsys, tmp_path):
    path = source(tmp_path, SCALE_F, "scale.c")

    def ecm(*options: str) -> dict:
        assert main([path, "-m", "xeon-e5-2680", "--set", "n=100000", "--json", "-", "-q",
                     *options]) == 0
        return json.loads(capsys.readouterr().out)["loops"][0]["ecm"]

    floats, doubles = ecm(), ecm("--set", "Bytes_a=8", "--set", "Bytes_b=8")
    # one 64 B line of 4 B floats is 16 iterations, a 32 B vector 8 of them; of doubles 8, 4
    assert (floats["iterations_per_unit"], floats["incore"]["vector_elements"]) == (16, 8)
    assert (doubles["iterations_per_unit"], doubles["incore"]["vector_elements"]) == (8, 4)
    # either way a unit is 2 vector multiplies, loads and stores, and 3 lines over each link
    # (b read, a read for ownership and written back): the same cycles per unit...
    for run_ in (floats, doubles):
        # (and the loop's overhead, LoopOverheadOps 2 per vector iteration: 2 x 2 = 4)
        assert run_["incore"]["instructions"] == {"add": 0, "mul": 2, "fma": 0, "div": 0,
                                                  "special": 0, "load": 2, "store": 2,
                                                  "int": 4}
        assert run_["t_data"]["L1-L2"] == pytest.approx(3 * 64 / 32)  # 32 B per cycle
    assert floats["t_ecm"] == pytest.approx(doubles["t_ecm"])
    # ...so half the units, and half the time, for the floats
    assert floats["time_single_core_s"] == pytest.approx(doubles["time_single_core_s"] / 2)
