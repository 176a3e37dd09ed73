"""Derived defaults: a parameter whose default is an expression over other parameters follows
them — under ``--set``, in the model's evaluation, in sweeps (the compiled evaluator) and in
the workbook, whose cell holds the formula — until a value is given for it, which wins.

The gather range ``RangeKB_<proc>_<line>_<array>`` is the declared size of the indexed array;
on a machine with several cache levels ``CacheKB`` and ``GBsPerCore`` are the level parameters
they stand for; ExaSAT's one-cache machines keep them as plain inputs.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sat.cli import main
from sat.frontend import read_sources
from sat.machine import load_machine
from sat.machine.accelerators import load_accelerator
from sat.model import expr as E
from sat.model.build import build_model
from sat.model.context import derive_default
from sat.parameter import Parameter, ParameterSet
from sat.parameters import build_parameters

ROOT = Path(__file__).resolve().parent.parent
SPMV = str(ROOT / "examples" / "spmv.f90")
LAP = str(ROOT / "examples" / "lap.f90")
RANGE = "RangeKB_spmv_23_x"
# lap on a 300³ box: at the epyc's CacheKB of 5120 KiB its planes fit, at 2048 KiB they do not
BOX = ["hi_1=300", "hi_2=300", "hi_3=300"]


def run_json(capsys, *argv: str) -> dict:
    assert main([*argv, "-q", "--json", "-"]) == 0
    return json.loads(capsys.readouterr().out)


def parameters(data: dict) -> dict[str, dict]:
    return {p["name"]: p for p in data["parameters"]}


# ------------------------------------------------------------------ the gather range


def test_the_gather_range_is_the_declared_size_of_x_and_follows_n(capsys):
    spmv = [SPMV, "--accelerator", "hc1"]
    # x is declared x(n), double precision: n × 8 B / 1024 = n / 128 KiB.
    # n defaults to 128: 1 KiB; n = 1000: 7.8125 KiB; n = 100000: 781.25 KiB.
    base = run_json(capsys, *spmv)
    assert parameters(base)[RANGE]["value"] == 1
    # (x's element size is its own derived default, Bytes_x = WordBytes: the range reads it)
    assert parameters(base)[RANGE]["source"] == ("derived from n, Bytes_x: the declared "
                                                 "size of x")
    assert parameters(base)[RANGE]["derived_from"] == ["n", "Bytes_x"]
    moved = run_json(capsys, *spmv, "--set", "n=100000")
    assert parameters(moved)[RANGE]["value"] == 781.25
    # the range as if typed by hand: the same model
    typed = run_json(capsys, *spmv, "--set", "n=100000", "--set", f"{RANGE}=781.25")
    assert parameters(typed)[RANGE]["source"] == "--set"
    assert "derived_from" not in parameters(typed)[RANGE]
    assert moved["totals"]["time_s"] == typed["totals"]["time_s"]
    # a range given wins over the declared size, whatever n is
    given = run_json(capsys, *spmv, "--set", "n=100000", "--set", f"{RANGE}=1")
    assert parameters(given)[RANGE]["value"] == 1
    assert given["totals"]["time_s"] != moved["totals"]["time_s"]


# ------------------------------------------------------------------ several cache levels


def test_cachekb_is_the_last_level_per_thread_on_an_inclusive_hierarchy(capsys):
    # xeon-e5-2680: a 20 MiB L3 shared by 8 cores, inclusive: L3KB 2560 × 8 / MAX(1, MIN(8,
    # 8)) = 2560; the memory link, 51.2 GB/s shared by 8 cores: 6.4 GB/s per core
    xeon = [LAP, "-m", "xeon-e5-2680"]
    data = parameters(run_json(capsys, *xeon))
    assert (data["CacheKB"]["value"], data["GBsPerCore"]["value"]) == (2560, 6.4)
    assert data["CacheKB"]["derived_from"] == ["Cores", "L3KB", "L3SharedBy"]
    assert data["GBsPerCore"]["derived_from"] == ["L3GBs"]
    # 4 cores in use share the L3 four ways: 2560 × 8 / 4 = 5120 KiB each
    assert parameters(run_json(capsys, *xeon, "--set", "Cores=4"))["CacheKB"]["value"] == 5120
    moved = parameters(run_json(capsys, *xeon, "--set", "L3KB=640", "--set", "L3GBs=25.6"))
    assert (moved["CacheKB"]["value"], moved["GBsPerCore"]["value"]) == (640, 3.2)


def test_editing_l3kb_moves_the_headline_time_as_cachekb_does(capsys):
    # epyc-9654: L3 a victim cache of L2: CacheKB = L3KB × 8 / MAX(1, MIN(96, 8)) + L2KB
    # = 4096 + 1024 = 5120; L3KB 1024 makes it 2048
    epyc = [LAP, "-m", "epyc-9654", *(f"--set={s}" for s in BOX)]
    base = run_json(capsys, *epyc)
    assert parameters(base)["CacheKB"]["value"] == 5120
    assert parameters(base)["CacheKB"]["derived_from"] == ["Cores", "L2KB", "L3KB",
                                                           "L3SharedBy"]
    moved = run_json(capsys, *epyc, "--set", "L3KB=1024")
    assert parameters(moved)["CacheKB"]["value"] == 2048
    as_cachekb = run_json(capsys, *epyc, "--set", "CacheKB=2048")
    assert moved["totals"]["time_s"] == as_cachekb["totals"]["time_s"]
    assert moved["totals"]["time_s"] > base["totals"]["time_s"]  # the planes no longer fit
    # typing over the derived CacheKB still works and wins over L3KB
    typed = run_json(capsys, *epyc, "--set", "L3KB=1024", "--set", "CacheKB=5120")
    assert parameters(typed)["CacheKB"]["source"] == "--set"
    assert typed["totals"]["time_s"] == base["totals"]["time_s"]


def test_exasat_machines_keep_cachekb_an_input(capsys):
    data = parameters(run_json(capsys, LAP, "-m", "exascale"))
    assert data["CacheKB"]["source"].startswith("machine file")
    assert "derived_from" not in data["CacheKB"] and "derived_from" not in data["GBsPerCore"]


def test_a_sweep_moves_the_derived_defaults(capsys):
    # the compiled evaluator: every row equals the model run with --set of the swept value
    epyc = [LAP, "-m", "epyc-9654", *(f"--set={s}" for s in BOX)]
    rows = run_json(capsys, *epyc, "--sweep", "L3KB=512..4096*2")["sweep"]["rows"]
    times = set()
    for row in rows:
        single = run_json(capsys, *epyc, "--set", f"L3KB={row['L3KB']}")["totals"]
        assert row["Total_Time_s"] == pytest.approx(single["time_s"], rel=1e-12)
        times.add(row["Total_Time_s"])
    assert len(times) > 1
    # and one giving CacheKB keeps it whatever L3KB is
    rows = run_json(capsys, *epyc, "--set", "CacheKB=5120", "--sweep",
                    "L3KB=512..4096*2")["sweep"]["rows"]
    assert {row["Total_Time_s"] for row in rows} == {
        run_json(capsys, *epyc)["totals"]["time_s"]}


def test_a_derived_default_reads_no_parameter_derived_after_it():
    params = ParameterSet()
    for name in ("a", "b", "c"):
        params.add(Parameter(name, 1.0))
    assert derive_default(params, "b", E.Param("a") * 2)
    assert params["b"].value == 2 and params["b"].source == "derived from a"
    with pytest.raises(ValueError, match="may not read b"):
        derive_default(params, "a", E.Param("b") + 1)  # b is derived after a: a cycle
    with pytest.raises(ValueError, match="may not read c"):
        derive_default(params, "c", E.Param("c"))
    params["c"].given = True
    assert not derive_default(params, "c", E.Param("a"))  # a value given stays
    # a derived default may read an input after it (CacheKB reads L3KB), which then cannot
    # become derived from it
    loop = ParameterSet()
    for name in ("x", "y"):
        loop.add(Parameter(name, 2.0))
    assert derive_default(loop, "x", E.Param("y") / 2)
    with pytest.raises(ValueError, match="the default of x reads y"):
        derive_default(loop, "y", E.Param("x") * 2)
    env = E.Env({"a": 5.0, "c": 1.0}, {"b": params["b"].default})
    assert env.param("b") == 10


# ------------------------------------------------------------------ the workbook


def _edits(result) -> dict[str, float]:
    """For every parameter whose default is derived, a new value of each parameter it derives
    from: one that moves a derived default if one does (L3SharedBy moves CacheKB only while
    fewer Cores than it run)."""
    derived = [p for p in result.parameters if p.derived]
    inputs = {p.name: p for p in result.parameters}
    before = result.env()
    edits: dict[str, float] = {}
    for p in derived:
        for name in p.derived_from:
            value = float(inputs[name].value)
            for candidate in (value / 4, value * 3, 1.0):
                if value.is_integer():  # counts stay whole
                    candidate = float(max(1, round(candidate)))
                env = result.env({name: candidate})
                if any(env.param(q.name) != before.param(q.name) for q in derived):
                    edits[name] = candidate
                    break
            edits.setdefault(name, float(max(1, round(value / 4))) if value.is_integer()
                             else value / 4)
    return edits


@pytest.mark.libreoffice
def test_every_derived_default_is_live_in_the_workbook(tmp_path):
    from libreoffice import recalculate
    from test_workbook import META, cached_values, split
    from test_workbook_recalc import _edit_copies, _same

    from sat.model.expr import Quantity
    from sat.report.workbook import write_workbook

    sets = [*BOX, "n=100000"]
    sources = read_sources([LAP, SPMV])

    def model(*more: str):
        return build_model(sources, build_parameters(
            load_machine("epyc-9654"), sets=[*sets, *more], accelerator=load_accelerator("hc1")))

    result = model()
    derived = {p.name for p in result.parameters if p.derived}
    assert {"CacheKB", "GBsPerCore", RANGE} <= derived
    edits = _edits(result)
    assert {"n", "WordBytes", "Cores", "L2KB", "L3KB", "L3SharedBy", "L3GBs"} <= set(edits)
    base = tmp_path / "base.xlsx"
    cells = write_workbook(result, str(base), META)
    copies = _edit_copies(base, cells, edits, tmp_path / "edited")
    recalculated = recalculate([base, *copies.values()], tmp_path / "recalc")
    times = {}
    for (name, path) in zip(["", *copies], recalculated, strict=True):
        got = cached_values(path)
        # the model built with --set of the edit: every parameter's cell (a derived one is its
        # formula) and every total equals it
        with_set = model(f"{name}={edits[name]!r}") if name else result
        env = with_set.env()
        for p in with_set.parameters:
            assert _same(got[split(cells.parameter_cell(p.name))], env.param(p.name)), \
                (name, p.name)
        for total, quantity in with_set.totals.items():
            assert _same(got[split(cells.cell(result.totals[total]))],
                         quantity.value(env)), (name, total)
        times[name] = got[split(cells.cell(result.totals["Total_Time_s"]))]
        # and every cell of every table equals the model evaluated with the edit
        edited = result.env({name: edits[name]} if name else None)
        for table in result.tables.values():
            for row in table.rows + ([table.totals] if table.totals else []):
                for q in row.values():
                    if isinstance(q, Quantity) and cells.cell(q) is not None:
                        assert _same(got[split(cells.cell(q))], q.value(edited)), \
                            (name, q.key)
    # by hand: n 100000 -> 25000 makes the range 25000 × 8 / 1024 = 195.3125 KiB, and L3KB
    # 4096 -> 1024 makes CacheKB 1024 + 1024 = 2048 KiB: lap's planes no longer fit, the
    # headline time grows
    assert edits["n"] == 25000 and edits["L3KB"] == 1024
    assert result.env({"n": 25000}).param(RANGE) == 195.3125
    assert result.env({"L3KB": 1024}).param("CacheKB") == 2048
    assert times["L3KB"] > times[""]


def test_the_core_and_link_figures_follow_what_they_derive_from(capsys):
    # toy-victim-l3.yml: 64 B lines, 2.5 GHz, L2 and L3 deliver a line in 1 and 2 cycles,
    # 32-byte vectors assumed, no load or store widths, flops per cycle but no ports: 2 add,
    # 2 multiply, 2 FMA ports (8 / 4, 8 / 4, 16 / 8), FPPorts MAX of them: 2
    toy = [LAP, "-m", str(ROOT / "tests" / "data" / "machines" / "toy-victim-l3.yml")]
    data = parameters(run_json(capsys, *toy))
    assert (data["L1GBs"]["value"], data["L2GBs"]["value"]) == (160, 80)  # 64 × 2.5 / 1, / 2
    assert data["L1GBs"]["derived_from"] == ["LineBytes", "ClockGHz"]
    assert (data["LoadBytes"]["value"], data["FPPorts"]["value"]) == (32, 2)
    moved = parameters(run_json(capsys, *toy, "--set", "ClockGHz=5", "--set", "VectorBytes=64",
                                "--set", "AddPorts=3"))
    assert (moved["L1GBs"]["value"], moved["L2GBs"]["value"]) == (320, 160)  # 64 × 5 / 1, / 2
    assert (moved["LoadBytes"]["value"], moved["StoreBytes"]["value"]) == (64, 64)
    assert moved["FPPorts"]["value"] == 3  # MAX(3, 2, 2): the FMA units add too
