"""Property tests: monotonicity of traffic and time, totals equal to the sum of the rows."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sat.model.build import build_model
from sat.parameter import Parameter, ParameterSet
from sat.xmlio import read_program

DATA = Path(__file__).parent / "data" / "exasat" / "xml"
MACHINE = dict(Cores=1024, GBsPerCore=1, GflopsPerCore=10, IntRegs=16, FPRegs=16, CacheKB=1024,
               WordBytes=8, LineBytes=64, ReadCost=8, ReadWriteCost=16, WriteCost=16,
               DivCost=39, SpecialCost=125, StreamingWrites=0, NTAHints=0, NICGBs=100,
               NICLatencyUs=0.4, Overlap=1, BlockX=16, BlockY=16, BlockZ=128)
FILES = ["hypterm-cns-fused.xml", "hypterm-cns.xml", "micro/lap4.xml", "micro/div.xml"]


def _build(name: str):
    ps = ParameterSet()
    for key, value in MACHINE.items():
        ps.add(Parameter(key, value))
    for k in (1, 2, 3):
        ps.symbol_values[f"lo({k})"] = (1, "test")
        ps.symbol_values[f"hi({k})"] = (128, "test")
    ps.symbol_values["ng"] = (4, "test")
    return build_model(read_program(str(DATA / name)), ps)


MODELS = {name: _build(name) for name in FILES}
settings_ = settings(max_examples=60, deadline=None)
caches = st.floats(min_value=0.01, max_value=1e5, allow_nan=False)
blocks = st.sampled_from([0, 4, 8, 16, 32, 128])
switches = st.sampled_from([0, 1])


def _total(model, key: str, env) -> float:
    return model.tables["Loops"].totals[key].value(env)


@settings_
@given(name=st.sampled_from(FILES), small=caches, large=caches, bx=blocks, by=blocks,
       sw=switches, nta=switches)
def test_traffic_never_grows_with_the_cache(name, small, large, bx, by, sw, nta):
    small, large = sorted((small, large))
    model = MODELS[name]
    base = {"BlockX": bx, "BlockY": by, "StreamingWrites": sw, "NTAHints": nta}
    env_small = model.env({**base, "CacheKB": small})
    env_large = model.env({**base, "CacheKB": large})
    for row in model.tables["Loops"].rows:
        assert row["traffic_gb"].value(env_large) <= row["traffic_gb"].value(env_small) * (
            1 + 1e-12)
    assert _total(model, "traffic_gb", env_large) <= _total(model, "traffic_gb", env_small) * (
        1 + 1e-12)


@settings_
@given(name=st.sampled_from(FILES), bw=st.floats(0.01, 100), bw2=st.floats(0.01, 100),
       gf=st.floats(0.1, 1000), gf2=st.floats(0.1, 1000), overlap=st.floats(0, 1),
       cache=caches)
def test_time_never_grows_with_bandwidth_or_flop_rate(name, bw, bw2, gf, gf2, overlap, cache):
    model = MODELS[name]
    (bw, bw2), (gf, gf2) = sorted((bw, bw2)), sorted((gf, gf2))
    base = {"Overlap": overlap, "CacheKB": cache}
    slow = model.env({**base, "GBsPerCore": bw, "GflopsPerCore": gf})
    faster_memory = model.env({**base, "GBsPerCore": bw2, "GflopsPerCore": gf})
    faster_cpu = model.env({**base, "GBsPerCore": bw, "GflopsPerCore": gf2})
    for table in ("Loops", "Alternative blocking"):
        for row in model.tables[table].rows:
            t = row["time_s"].value(slow)
            assert row["time_s"].value(faster_memory) <= t * (1 + 1e-12)
            assert row["time_s"].value(faster_cpu) <= t * (1 + 1e-12)


@settings_
@given(name=st.sampled_from(FILES), cache=caches, bx=blocks, bz=blocks, sw=switches)
def test_totals_equal_the_sum_of_the_rows(name, cache, bx, bz, sw):
    model = MODELS[name]
    env = model.env({"CacheKB": cache, "BlockX": bx, "BlockZ": bz, "StreamingWrites": sw})
    for table in ("Loops", "Alternative blocking"):
        rows = model.tables[table].rows
        totals = model.tables[table].totals
        for key in ("traffic_gb", "gflops", "weighted_gflops", "time_cpu_s", "time_dram_s",
                    "time_s"):
            assert totals[key].value(env) == pytest.approx(
                sum(r[key].value(env) for r in rows), rel=1e-12), (table, key)
    assert model.totals["Total_Time_s"].value(env) == pytest.approx(
        sum(r["time_s"].value(env) for r in model.tables["Loops"].rows), rel=1e-12)


def test_every_file_has_rows():
    assert all(MODELS[name].tables["Loops"].rows for name in FILES)
    # hypterm-cns.xml: three nests reported, the setup loop (line 41) noted
    assert [r["line"] for r in MODELS["hypterm-cns.xml"].tables["Loops"].rows] == [46, 103, 160]
