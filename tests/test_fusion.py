"""Loop fusion: candidates, legality with reasons, the fused nest's traffic, live toggles.

Machine: the default exascale node (LineBytes 64, WordBytes 8: 8 elements per line;
ReadCost 8, ReadWriteCost 16, WriteCost 16 bytes per element).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sat.cli import main

# Three nests over one 64^3 grid (n = 64: 262,144 points), sharing the read-only a, b, c and
# accumulating into out at offset 0: one legal group.
THREE = """\
subroutine three(n, a, b, c, out)
  implicit none
  integer, intent(in) :: n
  double precision, intent(in) :: a(0:n+1, 0:n+1, 0:n+1), b(0:n+1, 0:n+1, 0:n+1)
  double precision, intent(in) :: c(0:n+1, 0:n+1, 0:n+1)
  double precision, intent(inout) :: out(n, n, n)
  integer :: i, j, k
  double precision :: s
  s = 2.0d0
  do k = 1, n
    do j = 1, n
      do i = 1, n
        out(i,j,k) = a(i-1,j,k) + a(i+1,j,k) + b(i,j,k)
      end do
    end do
  end do
  do k = 1, n
    do j = 1, n
      do i = 1, n
        out(i,j,k) = out(i,j,k) + a(i,j-1,k) * c(i,j,k)
      end do
    end do
  end do
  do k = 1, n
    do j = 1, n
      do i = 1, n
        out(i,j,k) = out(i,j,k) + b(i,j,k+1) * c(i,j,k) * s
      end do
    end do
  end do
end subroutine three
"""

POINTS = 64**3  # 262,144

# Large cache, reuse between planes: each array's block footprint once, X rows in whole lines.
#   nest 10: a at x-1, x+1: rows of 66 -> 72 elements, 64*64 rows: 294,912 * 8 B = 2,359,296
#            b: 262,144 * 8 = 2,097,152; out written: 262,144 * 16 = 4,194,304  -> 8,650,752
#   nest 17: out read-written 4,194,304; a at y-1 and c: one cell each, 262,144 * 8 =
#            2,097,152 each (the footprint with a halo row, 266,240 elements, is more: the
#            model takes the least traffic of the cases that fit)         -> 8,388,608
#   nest 24: out 4,194,304; b at z+1 and c: 2,097,152 each               -> 8,388,608
UNFUSED_LARGE = 8_650_752 + 2 * 8_388_608  # 25,427,968 B
# Fused: a at x-1, x+1, y-1: per plane one row of 64 (y = -1) and 64 rows of 72:
#        4,672 * 64 planes = 299,008 * 8 = 2,392,064; b at z 0 and +1: 2,129,920; c once:
#        2,097,152; out first written (the later reads come from registers): 4,194,304
FUSED_LARGE = 2_392_064 + 2_129_920 + 2_097_152 + 4_194_304  # 10,813,440 B
# No reuse at all (a cache of 0.01 KiB holds no cell's working set): one element per access.
#   nest 10: a 2 cells * 262,144 * 8 = 4,194,304, b 2,097,152, out 4,194,304 -> 10,485,760
#   nests 17 and 24: out 4,194,304 + two one-cell reads 2 * 2,097,152      ->  8,388,608 each
UNFUSED_SMALL = 10_485_760 + 2 * 8_388_608  # 27,262,976 B
# Fused: a 3 cells 6,291,456, b 2 cells 4,194,304, c 1 cell 2,097,152, out 4,194,304
FUSED_SMALL = 6_291_456 + 4_194_304 + 2_097_152 + 4_194_304  # 16,777,216 B

# A flow dependence at offset +1: the second nest reads t one cell ahead of where the first
# wrote it. The third nest only reads u (written by the second) at offset 0.
BROKEN = """\
subroutine broken(n, a, t, u, v)
  implicit none
  integer, intent(in) :: n
  double precision, intent(in) :: a(n, n, n)
  double precision, intent(inout) :: t(n+1, n, n), u(n, n, n), v(n, n, n)
  integer :: i, j, k
  do k = 1, n
    do j = 1, n
      do i = 1, n
        t(i,j,k) = 2.0d0 * a(i,j,k)
      end do
    end do
  end do
  do k = 1, n
    do j = 1, n
      do i = 1, n
        u(i,j,k) = t(i+1,j,k) + 1.0d0
      end do
    end do
  end do
  do k = 1, n
    do j = 1, n
      do i = 1, n
        v(i,j,k) = u(i,j,k) * 3.0d0
      end do
    end do
  end do
end subroutine broken
"""

# The same work, but the second nest skips the boundary: not one iteration space.
APART = """\
subroutine apart(n, a, b, c)
  implicit none
  integer, intent(in) :: n
  double precision, intent(in) :: a(n, n, n)
  double precision, intent(inout) :: b(n, n, n), c(n, n, n)
  integer :: i, j, k
  do k = 1, n
    do j = 1, n
      do i = 1, n
        b(i,j,k) = 2.0d0 * a(i,j,k)
      end do
    end do
  end do
  do k = 2, n - 1
    do j = 1, n
      do i = 1, n
        c(i,j,k) = a(i,j,k) + 1.0d0
      end do
    end do
  end do
end subroutine apart
"""


def run_json(tmp_path: Path, source: str, *sets: str, extra: tuple[str, ...] = ()) -> dict:
    path = tmp_path / "kernel.f90"
    path.write_text(source)
    out = tmp_path / "out.json"
    args = [str(path), "--json", str(out), "-q", *extra]
    for text in sets:
        args += ["--set", text]
    assert main(args) == 0
    return json.loads(out.read_text())


def test_three_nests_sharing_reads_are_one_legal_group(tmp_path):
    data = run_json(tmp_path, THREE, "n=64", "CacheKB=1000000")
    (group,) = data["fusion"]["groups"]
    assert group["procedure"] == "three"
    assert group["nests"] == [10, 17, 24]
    assert group["legal"] is True and group["reason"] == ""
    assert group["parameter"] == "Fuse_three_1"
    assert group["traffic_gb_unfused"] == pytest.approx(UNFUSED_LARGE / 1e9, rel=1e-12)
    assert group["traffic_gb_fused"] == pytest.approx(FUSED_LARGE / 1e9, rel=1e-12)
    # the nests are memory-bound: time = traffic / (GBsPerCore * Cores) = GB / 1000
    assert group["time_s_fused"] == pytest.approx(FUSED_LARGE / 1e12, rel=1e-12)
    toggle = next(p for p in data["parameters"] if p["name"] == "Fuse_three_1")
    assert (toggle["value"], toggle["group"], toggle["unit"]) == (0, "software", "0/1")
    # toggle at 0: the totals are the sum of the separate nests
    assert data["totals"]["traffic_gb"] == pytest.approx(UNFUSED_LARGE / 1e9, rel=1e-12)


@pytest.mark.parametrize("cache, unfused, fused", [
    ("1000000", UNFUSED_LARGE, FUSED_LARGE), ("0.01", UNFUSED_SMALL, FUSED_SMALL)])
def test_toggle_puts_the_fused_nest_in_the_totals(tmp_path, cache, unfused, fused):
    off = run_json(tmp_path, THREE, "n=64", f"CacheKB={cache}")
    on = run_json(tmp_path, THREE, "n=64", f"CacheKB={cache}", "Fuse_three_1=1")
    assert off["totals"]["traffic_gb"] == pytest.approx(unfused / 1e9, rel=1e-12)
    assert on["totals"]["traffic_gb"] == pytest.approx(fused / 1e9, rel=1e-12)
    assert on["totals"]["gflops"] == pytest.approx(off["totals"]["gflops"], rel=1e-12)
    # the Loops rows stay those of the source nests
    assert [loop["traffic_gb"] for loop in on["loops"]] == \
        [loop["traffic_gb"] for loop in off["loops"]]


def test_fuse_all_sets_every_legal_toggle(tmp_path):
    data = run_json(tmp_path, THREE, "n=64", "CacheKB=1000000", extra=("--fuse", "all"))
    toggle = next(p for p in data["parameters"] if p["name"] == "Fuse_three_1")
    assert (toggle["value"], toggle["source"]) == (1, "--fuse all")
    assert data["totals"]["traffic_gb"] == pytest.approx(FUSED_LARGE / 1e9, rel=1e-12)
    # --set wins over --fuse all
    data = run_json(tmp_path, THREE, "n=64", "CacheKB=1000000", "Fuse_three_1=0",
                    extra=("--fuse", "all"))
    assert data["totals"]["traffic_gb"] == pytest.approx(UNFUSED_LARGE / 1e9, rel=1e-12)


def test_a_toggle_is_zero_or_one(tmp_path, capsys):
    path = tmp_path / "kernel.f90"
    path.write_text(THREE)
    assert main([str(path), "--json", str(tmp_path / "x.json"), "--set", "Fuse_three_1=2"]) == 2
    assert "Fuse_three_1 = 2 (--set) must be 0 or 1" in capsys.readouterr().err


def test_flow_dependence_at_offset_one_breaks_the_run(tmp_path):
    data = run_json(tmp_path, BROKEN, "n=32")
    illegal, legal = data["fusion"]["groups"]
    assert illegal["nests"] == [7, 14, 21] and illegal["legal"] is False
    assert illegal["parameter"] is None and illegal["traffic_gb_fused"] is None
    reason = illegal["reason"]
    assert reason == ("flow dependence: the nest at line 14 reads t(i+1,j,k) at offset +1 "
                      "along i from where the nest at line 7 writes it (i,j,k)")
    # the legal part: the second and third nests (u written and read at offset 0)
    assert legal["nests"] == [14, 21] and legal["legal"] is True
    assert legal["parameter"] == "Fuse_broken_1"


def test_different_iteration_spaces_are_no_candidates(tmp_path):
    data = run_json(tmp_path, APART, "n=32")
    assert data["fusion"]["groups"] == []
    assert not any(p["name"].startswith("Fuse_") for p in data["parameters"])


HYPTERM = Path(__file__).parent.parent / "examples" / "hypterm.f90"


@pytest.mark.libreoffice
def test_editing_a_toggle_in_the_workbook_equals_set_in_json(tmp_path):
    from libreoffice import recalculate_edited

    book = tmp_path / "base.xlsx"
    machine = ("-m", "xeon-e5-2680")  # with cache levels: the ECM and Costs totals too
    assert main([str(HYPTERM), *machine, "-q", "-o", str(book)]) == 0
    edits = {"Fuse_hypterm_1": 1, "CacheKB": 16384}
    values = recalculate_edited(book, edits, tmp_path / "edit")

    def cell(name: str) -> float:
        sheet, address = next(iter(values.defined_names[name].destinations))
        return values[sheet][address.replace("$", "")].value

    sets = [f"{name}={value}" for name, value in edits.items()]
    want = run_json(tmp_path, HYPTERM.read_text(), *sets, extra=machine)
    unfused = run_json(tmp_path, HYPTERM.read_text(), "CacheKB=16384", extra=machine)
    for name, key in (("Total_Time_s", "time_s"), ("Total_Traffic_GB", "traffic_gb"),
                      ("Total_Bytes_Per_Flop", "bytes_per_flop"),
                      ("Total_ECM_Time_s", "ecm_time_s"), ("Energy_J", "energy_j")):
        assert cell(name) == pytest.approx(want["totals"][key], rel=1e-9), name
        assert want["totals"][key] != pytest.approx(unfused["totals"][key], rel=1e-6), name
    # the Fusion sheet follows the edit too: its "Fused?" cell and the fused traffic
    fusion = values["Fusion"]
    header = [c.value for c in fusion[4]]
    row = [c.value for c in fusion[5]]
    assert row[header.index("Fused? (0/1)")] == 1
    (group,) = want["fusion"]["groups"]
    assert row[header.index("Fused (GB)")] == pytest.approx(group["traffic_gb_fused"], rel=1e-9)
    assert row[header.index("Pays from (KiB)")] == pytest.approx(
        group["pays_from_cache_kib"], rel=1e-9)


DATA = Path(__file__).parent / "data" / "exasat"
REFERENCE = ("-m", str(DATA / "config" / "machine.xml"), "--params",
             str(DATA / "config" / "params.xml"), "--symsubs", str(DATA / "config" / "symsubs.xml"))


def reference_json(tmp_path: Path, xml: str, *sets: str) -> dict:
    out = tmp_path / "reference.json"
    args = [str(DATA / "xml" / xml), *REFERENCE, "--json", str(out), "-q"]
    for text in sets:
        args += ["--set", text]
    assert main(args) == 0
    return json.loads(out.read_text())


def test_hypterm_fused_automatically_moves_what_the_hand_fused_hypterm_moves(tmp_path):
    """ExaSAT's code descriptions of CNS hypterm as written (three nests) and as the original
    authors fused it by hand: satreport's automatic fusion of the first moves, at every cache
    size, exactly the bytes the model gives the second (the hand version accumulates the
    fluxes in scalars and writes them once; satreport serves the later nests' reads of flux
    from the first one's write: the same traffic), with the same work."""
    for cache in (16, 64, 512, 4096, 8192, 10304, 10305, 16384, 1 << 20):
        auto = reference_json(tmp_path, "hypterm-cns.xml", f"CacheKB={cache}",
                              "Fuse_hypterm_1=1")
        hand = reference_json(tmp_path, "hypterm-cns-fused.xml", f"CacheKB={cache}")
        (group,) = auto["fusion"]["groups"]
        assert group["nests"] == [46, 103, 160] and group["legal"]
        (nest,) = [loop for loop in hand["loops"] if loop["procedure"] == "hypterm"]
        assert auto["totals"]["traffic_gb"] == pytest.approx(nest["traffic_gb"], rel=1e-12)
        assert auto["totals"]["gflops"] == pytest.approx(nest["gflops"], rel=1e-12)
        assert group["traffic_gb_fused"] == pytest.approx(nest["traffic_gb"], rel=1e-12)


def test_hypterm_fusion_against_the_papers_bound(tmp_path):
    """The paper (section 3.5): the bound of hypterm on Hopper is 8.1 ms, 3.3 ms with its three
    loops fused: a ratio of 0.407. On a cache holding the fused working set (10,304 KiB of
    planes) every nest reads each array once with its halo, 128^3 = 2,097,152 points:

    separate: each nest reads 6 array-components along its own axis, rows of 136 (whole lines)
      6 * 136 * 128 * 128 * 8 B = 106,954,752 B, and writes (or updates) 5 flux components at
      16 B: 167,772,160 B; three nests: 3 * 274,726,912 = 824,180,736 B
    fused: cons.imx, .imy, .imz, .iene and q.qpres are read along x, y and z (a star of radius
      4: 128*128*136 + 2 * 8*128*128 = 2,490,368 elements each), q.qu, .qv, .qw along one axis
      (2,228,224 each): (5 * 2,490,368 + 3 * 2,228,224) * 8 = 153,092,096 B; flux written
      once: 167,772,160 B; in all 320,864,256 B

    The nests are memory-bound, so the time ratio is the traffic ratio, 0.389: 4 % below the
    paper's 0.407, whose Hopper run (its cache per thread, problem size and ghost cells) the
    paper does not give in full.
    """
    data = reference_json(tmp_path, "hypterm-cns.xml", "CacheKB=16384")
    (group,) = data["fusion"]["groups"]
    assert group["traffic_gb_unfused"] * 1e9 == pytest.approx(824_180_736, rel=1e-12)
    assert group["traffic_gb_fused"] * 1e9 == pytest.approx(320_864_256, rel=1e-12)
    ratio = group["time_s_fused"] / group["time_s_unfused"]
    assert ratio == pytest.approx(320_864_256 / 824_180_736, rel=1e-9)  # 0.3893
    assert abs(ratio - 3.3 / 8.1) < 0.02
    # the fused planes need 10,304 KiB; between the separate nests' 8,960 KiB and that, the
    # separate nests reuse planes and the fused one only pencils: fusion pays above 10,304 KiB
    assert group["pays_from_cache_kib"] == pytest.approx(10304)
    small = reference_json(tmp_path, "hypterm-cns.xml", "CacheKB=9000")["fusion"]["groups"][0]
    assert small["traffic_gb_fused"] > small["traffic_gb_unfused"]


@pytest.mark.parametrize("cache, fuse, time_s", [
    # 9,000 KiB: the separate nests reuse planes (8,960 KiB), the fused one only pencils
    # (1.187 GB against 0.824 GB, at 1 TB/s): keep them apart
    (9000, 0, 0.824180736e-3),
    # 16,384 KiB holds the fused planes (10,304 KiB): 0.321 GB
    (16384, 1, 0.320864256e-3)])
def test_a_scenario_chooses_whether_to_fuse_for_a_cache(tmp_path, cache, fuse, time_s):
    scenario = tmp_path / "fuse.yaml"
    scenario.write_text("objective: minimize Total_Time_s\nvariables:\n"
                        "  Fuse_hypterm_1: 0..1 integer\n"
                        f"set:\n  CacheKB: {cache}\n")
    data = run_json(tmp_path, HYPTERM.read_text(), extra=("--scenario", str(scenario)))
    assert data["scenario"]["optimum"]["Fuse_hypterm_1"] == fuse
    assert data["scenario"]["optimum"]["Total_Time_s"] == pytest.approx(time_s, rel=1e-12)


def test_the_html_draws_fig_17s_curves(tmp_path):
    from sat.frontend import read_sources
    from sat.machine import load_machine
    from sat.model.build import build_model
    from sat.parameters import build_parameters
    from sat.report.html import _optimised_bf

    result = build_model(read_sources([str(HYPTERM)]), build_parameters(load_machine("exascale")))
    bf = result.tables["Loops"].totals["bytes_per_flop"]
    curves = {label: dict(points) for label, _, points in
              _optimised_bf(result, bf, result.env(), [64, 16384])}
    assert list(curves) == ["B:F, whole program", "cache blocking (best Y×Z block)",
                            "fusion (every legal group)", "fusion + blocking",
                            "alternative block execution"]
    gflop = 0.750780416  # the three nests' weighted Gflop (no divides or specials)
    # 16 MiB: 0.824 GB separate, 0.321 GB fused (test_hypterm_fusion_against_the_papers_bound)
    assert curves["B:F, whole program"][16384] == pytest.approx(0.824180736 / gflop)
    assert curves["fusion (every legal group)"][16384] == pytest.approx(0.320864256 / gflop)
    # 64 KiB: the x nest reuses planes, the y nest within pencils, the z nest pencils
    # (2.221 GB); the fused nest within pencils: 1.969 GB
    assert curves["B:F, whole program"][64] == pytest.approx(2.220883968 / gflop)
    assert curves["fusion (every legal group)"][64] == pytest.approx(1.969225728 / gflop)


@pytest.mark.parametrize("machine", ["exascale", "xeon-e5-2680"])
def test_fig_17s_curves_are_the_model_evaluated_afresh_at_each_point(machine):
    """Every point of every curve is the value a fresh evaluation of the model gives at that
    cache size with the curve's parameters (the curves reuse the values no parameter of
    theirs reaches instead of evaluating them again: they must not differ by a bit)."""
    from sat.frontend import read_sources
    from sat.machine import load_machine
    from sat.model.build import build_model
    from sat.model.expr import Quantity
    from sat.parameters import build_parameters
    from sat.report.html import _CHART_BLOCKS, _optimised_bf

    result = build_model(read_sources([str(HYPTERM)]), build_parameters(load_machine(machine)))
    bf = result.tables["Loops"].totals["bytes_per_flop"]
    alt_bf = result.tables["Alternative blocking"].totals["bytes_per_flop"]
    sizes = [4.0, 64.0, 1000.0, 16384.0, 1 << 20]
    toggles = {p.name: 1.0 for p in result.parameters if p.name.startswith("Fuse_")}
    assert toggles

    def fresh(overrides, size, quantity=bf):
        return quantity.value(result.env({**overrides, "CacheKB": size}))

    def best(overrides, size):
        return min(fresh({**overrides, "BlockX": 0, "BlockY": b, "BlockZ": b}, size)
                   for b in _CHART_BLOCKS)

    expected = {
        "B:F, whole program": [fresh({}, s) for s in sizes],
        "cache blocking (best Y×Z block)": [best({}, s) for s in sizes],
        "fusion (every legal group)": [fresh(toggles, s) for s in sizes],
        "fusion + blocking": [best(toggles, s) for s in sizes],
        "alternative block execution": [fresh({}, s, alt_bf) for s in sizes],
    }
    env = result.env()
    for table in result.tables.values():  # the page's evaluation, made before its charts
        for row in table.rows:
            for value in row.values():
                if isinstance(value, Quantity):
                    value.value(env)
    curves = {label: [y for _, y in points]
              for label, _, points in _optimised_bf(result, bf, env, sizes)}
    assert curves == expected


def test_the_dependence_graphs_frame_the_fusable_nests(tmp_path):
    graphs = tmp_path / "graphs"
    path = tmp_path / "kernel.f90"
    path.write_text(BROKEN)
    assert main([str(path), "--set", "n=32", "--graphs", str(graphs), "-q",
                 "--json", str(tmp_path / "x.json")]) == 0
    dot = (graphs / "broken.dot").read_text()
    # the legal group (lines 14 and 21) is framed and filled; line 7 is not in it
    assert ('subgraph cluster_fusion_1 { label="Fuse_broken_1"; style="dashed,rounded"; '
            'color="#2ca02c"; fontsize=10; L14; L21; }') in dot
    assert 'L7 [label="broken:7", tooltip="loop nest at line 7 of broken", shape=ellipse, ' \
        'style=filled, fillcolor="#f2f2f2"];' in dot
    assert "fusable with its group: Fuse_broken_1" in dot


# --------------------------------------------------------------- ECM scaling, alternative blocking

def three_workbook(tmp_path: Path, *sets: str) -> Path:
    """THREE on test_levels' two-level machine (L1 32 KiB, L2 1 MiB, memory 40 GB/s shared
    by 4 cores, 2 GHz) with CacheKB = 0.01 (ExaSAT's sheets: no reuse at all)."""
    from test_levels import MACHINE

    source, machine = tmp_path / "three.f90", tmp_path / "two-level.xml"
    source.write_text(THREE)
    machine.write_text(MACHINE)
    book = tmp_path / f"three{len(list(tmp_path.glob('three*.xlsx')))}.xlsx"
    args = [str(source), "-m", str(machine), "--set", "n=64", "--set", "CacheKB=0.01", "-q",
            "-o", str(book)]
    for text in sets:
        args += ["--set", text]
    assert main(args) == 0
    return book


def scaling_and_alternative(book) -> tuple[list[tuple], dict[str, float]]:
    """(the ECM scaling rows, the Alternative blocking totals by column header)."""
    import openpyxl

    if isinstance(book, Path):
        book = openpyxl.load_workbook(book, data_only=True)
    scaling = list(book["ECM scaling"].iter_rows(min_row=4, values_only=True))
    sheet = book["Alternative blocking"]
    rows = list(sheet.iter_rows(values_only=True))
    header = next(row for row in rows if row[0] == "Procedure")
    total = next(row for row in rows if row[0] == "Total/Max")
    return scaling, {h: v for h, v in zip(header, total, strict=True) if v is not None}


# ECM scaling on 4 cores: each nest is memory-bound (T_ECM / 4 < T_L2-MEM: nest 10 has
# T_nOL 3 + T_L1-L2 8.25 + T_L2-MEM 13.2 = 24.45 cycles per 8 iterations, /4 = 6.1 < 13.2), so
# the program time is its memory traffic at 40 GB/s. The L2 (1 MiB) holds every plane working
# set, so the memory traffic is the planes case: UNFUSED_LARGE or FUSED_LARGE bytes.
SCALING_4_UNFUSED = UNFUSED_LARGE / 40e9  # 6.356992e-4 s
SCALING_4_FUSED = FUSED_LARGE / 40e9  # 2.70336e-4 s
# 7 flops per point (2 adds; 1 add 1 mul; 1 add 2 muls) x 262,144 points = 1,835,008 flop
GFLOP = 7 * POINTS / 1e9
# Alternative blocking at CacheKB 0.01: no block working set fits, so each nest (separate or
# fused) moves its Loops traffic with no reuse: UNFUSED_SMALL or FUSED_SMALL bytes, at
# GBsPerCore x Cores = 10 x 4 = 40 GB/s (memory-bound: 7 flops against >= 64 B per point)
ALT_UNFUSED, ALT_FUSED = UNFUSED_SMALL, FUSED_SMALL


@pytest.mark.parametrize("fuse, scaling_4, alternative", [
    (0, SCALING_4_UNFUSED, ALT_UNFUSED), (1, SCALING_4_FUSED, ALT_FUSED)])
def test_the_toggle_moves_ecm_scaling_and_alternative_blocking(tmp_path, fuse, scaling_4,
                                                                alternative):
    scaling, alt = scaling_and_alternative(three_workbook(tmp_path, f"Fuse_three_1={fuse}"))
    assert [row[0] for row in scaling] == [1, 2, 3, 4]
    cores, time, gflop_per_s = scaling[-1]
    assert time == pytest.approx(scaling_4, rel=1e-12)
    assert gflop_per_s == pytest.approx(GFLOP / scaling_4, rel=1e-12)
    assert alt["Total (GB)"] == pytest.approx(alternative / 1e9, rel=1e-12)
    assert alt["Time (s)"] == pytest.approx(alternative / 40e9, rel=1e-12)
    # the work is the same fused or not
    assert alt["Gflop performed (Gflop)"] == pytest.approx(GFLOP, rel=1e-12)


@pytest.mark.libreoffice
def test_editing_the_toggle_moves_ecm_scaling_and_alternative_blocking(tmp_path):
    from libreoffice import recalculate_edited

    book = three_workbook(tmp_path)
    edited = recalculate_edited(book, {"Fuse_three_1": 1}, tmp_path / "edit")
    scaling, alt = scaling_and_alternative(edited)
    want_scaling, want_alt = scaling_and_alternative(three_workbook(tmp_path, "Fuse_three_1=1"))
    assert scaling[-1][1] == pytest.approx(SCALING_4_FUSED, rel=1e-9)
    assert alt["Total (GB)"] == pytest.approx(ALT_FUSED / 1e9, rel=1e-9)
    for row, want in zip(scaling, want_scaling, strict=True):
        assert row == pytest.approx(want, rel=1e-9)
    assert alt.keys() == want_alt.keys()
    for key, value in want_alt.items():
        assert alt[key] == pytest.approx(value, rel=1e-9), key


# --------------------------------------------------------------- a member with a gather

# Two nests over i = 1..n; the second gathers x through idx (its loop at line 11). Fusing is
# legal: y is written by the first and read by the second at offset 0, z read by the first
# and written by the second at offset 0.
GATHER = """\
subroutine g2(n, idx, x, y, z)
  implicit none
  integer, intent(in) :: n
  integer, intent(in) :: idx(n)
  double precision, intent(in) :: x(n)
  double precision, intent(inout) :: y(n), z(n)
  integer :: i
  do i = 1, n
    y(i) = 2.0d0 * z(i){first}
  end do
  do i = 1, n
    z(i) = y(i) + x(idx(i))
  end do
end subroutine g2
"""
# n = 1000; the indices span RangeKB_g2_11_x = 256 KiB = 4,096 lines of 64 B, more than the
# 1,000 references visit: every visit is a first one, 1,000 lines x 64 B = 64,000 B for the
# gather, instead of ExaSAT's stream count of x (1,000 x 8 B = 8,000 B).
#   nest 8:  z read 8,000 + y written 16,000                                    =  24,000 B
#   nest 11: y read 8,000 + x gathered 64,000 + idx 1,000 x 4 B + z written 16,000 = 92,000 B
GATHER_UNFUSED = 24_000 + 92_000  # 116,000 B
# fused: z read and written 16,000; y written 16,000 (its read served by the write); idx
# 4,000; x still gathered, 64,000 (a fused nest that dropped the gather would count 8,000)
GATHER_FUSED = 16_000 + 16_000 + 4_000 + 64_000  # 100,000 B


@pytest.mark.parametrize("fuse, traffic", [(0, GATHER_UNFUSED), (1, GATHER_FUSED)])
def test_a_fused_nest_keeps_its_members_gathers(tmp_path, fuse, traffic):
    data = run_json(tmp_path, GATHER.format(first=""), "n=1000", "RangeKB_g2_11_x=256",
                    f"Fuse_g2_1={fuse}")
    (group,) = data["fusion"]["groups"]
    assert group["nests"] == [8, 11] and group["parameter"] == "Fuse_g2_1"
    assert group["traffic_gb_fused"] == pytest.approx(GATHER_FUSED / 1e9, rel=1e-12)
    assert data["totals"]["traffic_gb"] == pytest.approx(traffic / 1e9, rel=1e-12)
    # the Gathers sheet keeps the source's gather, with the parameter the fused nest uses
    (gather,) = data["gathers"]
    assert (gather["line"], gather["traffic_gb"]) == (11, pytest.approx(64_000e-9))


def test_a_gather_in_two_members_is_one_gather_in_the_fused_nest(tmp_path):
    # both nests gather x(idx(i)): separate, each moves 64,000 B for it (nest 8 then 24,000 +
    # 64,000 + 4,000 for idx = 92,000 B, as nest 11); fused, x(idx(i)) is one reference per
    # iteration, gathered once with the first member's parameters (RangeKB_g2_8_x): the
    # 100,000 B of GATHER_FUSED
    data = run_json(tmp_path, GATHER.format(first=" * x(idx(i))"), "n=1000",
                    "RangeKB_g2_8_x=256", "RangeKB_g2_11_x=256", "Fuse_g2_1=1")
    (group,) = data["fusion"]["groups"]
    assert group["traffic_gb_unfused"] == pytest.approx(2 * 92_000e-9, rel=1e-12)
    assert group["traffic_gb_fused"] == pytest.approx(GATHER_FUSED / 1e9, rel=1e-12)
    assert data["totals"]["traffic_gb"] == pytest.approx(GATHER_FUSED / 1e9, rel=1e-12)


# --------------------------------------------------------------- the Aspen model

@pytest.mark.parametrize("how", [("--set", "Fuse_three_1=1"), ("--fuse", "all")])
def test_the_aspen_model_carries_the_toggle(tmp_path, how):
    """--aspen writes the fused nest as a kernel of its own and the toggle as a param that
    kernel main iterates over: read back by satreport's Aspen reader, main moves FUSED_SMALL bytes
    with the toggle at 1 as written, UNFUSED_SMALL with it set to 0 in the model."""
    from sat import aspen

    source, model = tmp_path / "three.f90", tmp_path / "three.aspen"
    source.write_text(THREE)
    assert main([str(source), "--set", "n=64", "--set", "CacheKB=0.01", *how, "-q",
                 "--aspen", str(model)]) == 0
    text = model.read_text()
    assert "param Fuse_three_1 = 1" in text
    # iterate [toggle] and iterate [1 - toggle]: constructs Aspen's runtime and resourcecount
    # both evaluate (its runtime has no if in a kernel)
    assert "iterate [Fuse_three_1] {\n      call Fuse_three_1_L10\n    }\n" \
        "    iterate [1 - Fuse_three_1] {\n" \
        "      call three_L10\n      call three_L17\n      call three_L24\n    }" in text
    assert "if (" not in text
    assert aspen.parse_text(text, str(model), strict=True).leniencies == ()
    app = aspen.load_model(model)
    fused = aspen.resources(app)
    assert fused.total["bytes"] == pytest.approx(FUSED_SMALL, rel=1e-12)
    assert fused.kernels["Fuse_three_1_L10"]["bytes"] == pytest.approx(FUSED_SMALL, rel=1e-12)
    # 7 flops per point, fused or not
    assert fused.total["flops"] == pytest.approx(7 * POINTS, rel=1e-12)
    apart = aspen.resources(app, params={"Fuse_three_1": 0})
    assert apart.total["bytes"] == pytest.approx(UNFUSED_SMALL, rel=1e-12)
    assert apart.total["flops"] == pytest.approx(7 * POINTS, rel=1e-12)


def test_the_aspen_model_of_a_fused_gather_keeps_its_traffic(tmp_path):
    from sat import aspen

    source, model = tmp_path / "g2.f90", tmp_path / "g2.aspen"
    source.write_text(GATHER.format(first=""))
    assert main([str(source), "--set", "n=1000", "--set", "RangeKB_g2_11_x=256", "--fuse",
                 "all", "-q", "--aspen", str(model)]) == 0
    app = aspen.load_model(model)
    assert aspen.resources(app).total["bytes"] == pytest.approx(GATHER_FUSED, rel=1e-12)
    assert aspen.resources(app, params={"Fuse_g2_1": 0}).total["bytes"] == \
        pytest.approx(GATHER_UNFUSED, rel=1e-12)
