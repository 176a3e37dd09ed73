"""Per-level traffic, ECM and scaling, checked against numbers worked out by hand.

The kernel is a 7-point Jacobi sweep over 64^3 points (8-byte words, 64-byte lines: 8
elements per line) on a two-level machine written here: L1 32 KiB and L2 1 MiB per core,
2 GHz, 8 flops per cycle, 2 loads and 1 store of 32 bytes per cycle, L1-L2 64 GB/s per core,
memory 40 GB/s shared by 4 cores.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sat.cli import main

JACOBI = """\
subroutine jacobi(n, a, b)
  integer :: n, i, j, k
  real(8) :: a(0:n+1, 0:n+1, 0:n+1), b(0:n+1, 0:n+1, 0:n+1)
  do k = 1, n
    do j = 1, n
      do i = 1, n
        b(i,j,k) = 0.1d0*(a(i-1,j,k) + a(i+1,j,k) + a(i,j-1,k) + a(i,j+1,k) &
                          + a(i,j,k-1) + a(i,j,k+1)) + 0.4d0*a(i,j,k)
      end do
    end do
  end do
end subroutine
"""

MACHINE = """\
<machine name="two-level" description="a two-level test machine">
  <prop key="Cores" val="4" source="test"/>
  <prop key="GflopsPerCore" val="16" source="test: 2 GHz x 8 flops per cycle"/>
  <prop key="GBsPerCore" val="10" source="test"/>
  <prop key="CacheKB" val="1024" source="test"/>
  <prop key="LineBytes" val="64" source="test"/>
  <prop key="WordBytes" val="8" source="test"/>
  <prop key="ClockGHz" val="2" source="test"/>
  <prop key="FlopsPerCycle" val="8" source="test"/>
  <prop key="LoadsPerCycle" val="2" source="test"/>
  <prop key="StoresPerCycle" val="1" source="test"/>
  <prop key="VectorBytes" val="32" source="test"/>
  <memory>
    <level name="L1" size_kib="32" line_bytes="64" shared_by_cores="1" bandwidth_gbs="128"
           source="test"/>
    <level name="L2" size_kib="1024" line_bytes="64" shared_by_cores="1" bandwidth_gbs="64"
           policy="inclusive" source="test"/>
    <level name="memory" line_bytes="64" shared_by_cores="4" bandwidth_gbs="40" source="test"/>
  </memory>
</machine>
"""

ITERATIONS = 64 ** 3
# Bytes per iteration of each reuse case (a read: 8 B per element; b written: 16 B, the line
# read for ownership then written back):
# - planes: a's block footprint, X rows in whole lines: 64x64 rows of 66 -> 72 elements, plus
#   the 2x64 rows at y = -1, 64 and the 2x64 at z = -1, 64 of 64 elements = 311,296 elements;
#   b 64^3 elements.  (311296*8 + 262144*16) / 262144 = 25.5
PLANES = (311296 * 8 + ITERATIONS * 16) / ITERATIONS
# - pencils: 3 planes of a per iteration of Z, one plane = 64 rows of 72 + 2 rows of 64
#   = 4,736 elements: (3*4736*64*8 + 262144*16) / 262144 = 43.75
PENCILS = (3 * 4736 * 64 * 8 + ITERATIONS * 16) / ITERATIONS
# - within pencils: 5 pencils of a, 72 elements each per row: (5*72*64*64*8 + 262144*16) /
#   262144 = 61.0
WITHIN = (5 * 72 * 64 * 64 * 8 + ITERATIONS * 16) / ITERATIONS
# - none: every access moves a line: 7 accesses of a x 64 B + b's 2 x 64 B = 576
NONE = 7 * 64 + 2 * 64
# Working sets (KiB): within pencils, whole lines: a's centre pencil spans x -1..1 (2 lines),
# its 4 other pencils one line each, b one line: 7 x 64 B = 0.4375 KiB.  Pencils: a keeps 5
# pencils of 72 elements, b one of 64: (5*72 + 64) * 8 / 1024 = 3.3125 KiB.  Planes: a keeps
# 3 planes of 4,736 elements, b one of 4,096: (3*4736 + 4096) * 8 / 1024 = 143 KiB.
WS_CELL, WS_PENCIL, WS_PLANE = 0.4375, 3.3125, 143.0


def run(tmp_path: Path, *options: str) -> dict:
    source, machine = tmp_path / "jacobi.f90", tmp_path / "two-level.xml"
    source.write_text(JACOBI)
    machine.write_text(MACHINE)
    out = tmp_path / "out.json"
    assert main([str(source), "-m", str(machine), "--set", "n=64", "--json", str(out), "-q",
                 *options]) == 0
    return json.loads(out.read_text())


def levels_of(data: dict) -> dict[str, dict]:
    (loop,) = data["loops"]
    return {level["level"]: level for level in loop["levels"]}


def test_each_level_takes_the_reuse_its_capacity_allows(tmp_path):
    levels = levels_of(run(tmp_path))
    assert list(levels) == ["L1", "L2"]
    l1, l2 = levels["L1"], levels["L2"]
    assert (l1["ws_cell_kb"], l1["ws_pencil_kb"], l1["ws_plane_kb"]) == \
        (WS_CELL, WS_PENCIL, WS_PLANE)
    # 143 KiB of planes do not fit in 32 KiB, 3.3 KiB of pencils do; everything fits in 1 MiB
    assert (l1["layer_condition"], l2["layer_condition"]) == ("pencils", "planes")
    assert l1["bytes_per_iteration"] == pytest.approx(PENCILS)
    assert l2["bytes_per_iteration"] == pytest.approx(PLANES)
    assert l2["traffic_gb"] == pytest.approx(PLANES * ITERATIONS / 1e9)
    # L1-L2: 64 GB/s per core x 4 cores; L2-memory: one interface of 40 GB/s for the 4 cores
    assert l1["time_s"] == pytest.approx(PENCILS * ITERATIONS / 1e9 / 256)
    assert l2["time_s"] == pytest.approx(PLANES * ITERATIONS / 1e9 / 40)


@pytest.mark.parametrize(("l1_kib", "condition", "per_iteration"), [
    (2, "within", WITHIN),      # 3.3 KiB of pencils do not fit, 0.44 KiB of lines do
    (0.25, "none", NONE),       # not even the lines of one iteration fit
])
def test_small_caches_count_whole_lines(tmp_path, l1_kib, condition, per_iteration):
    l1 = levels_of(run(tmp_path, "--set", f"L1KB={l1_kib}"))["L1"]
    assert l1["layer_condition"] == condition
    assert l1["bytes_per_iteration"] == pytest.approx(per_iteration)


def test_ecm_contributions_prediction_and_saturation(tmp_path):
    (loop,) = run(tmp_path)["loops"]
    ecm = loop["ecm"]
    # 8 iterations per unit of work (64 B / 8 B), vectorised 4 elements per 32-byte
    # instruction: 2 instructions per unit for each operation of an iteration.  The machine
    # gives no ports: 1 add, 1 multiply, no FMA, 2 FP instructions per cycle; full-width
    # (32 B) loads and stores, 2 + 1 address units, stores and addresses overlapping.
    # 6 adds and 2 multiplies: MAX(12 / 1, 4 / 1, 16 / 2) = 12 cycles (the add port)
    assert ecm["iterations_per_unit"] == 8
    assert ecm["incore"] == {"vectorised": True, "vector_elements": 4, "instructions": {
        "add": 12, "mul": 4, "fma": 0, "div": 0, "special": 0, "load": 14, "store": 2,
        "int": 4}}  # 2 vector iterations x the assumed 2 loop instructions
    # T_OL = MAX(T_fp 12, T_store 2 / 1, T_agu MAX(14 / 2, 16 / 3)) = 12
    assert ecm["t_ol"] == pytest.approx(12)
    # 7 loads per iteration, 14 per unit on 2 load ports: T_nOL = 7
    assert ecm["t_nol"] == pytest.approx(7)
    # L1-L2: 43.75 B x 8 / (64 GB/s / 2 GHz = 32 B/cycle); memory: 25.5 x 8 / 20 B/cycle
    assert ecm["t_data"] == {"L1-L2": pytest.approx(PENCILS * 8 / 32),
                             "L2-MEM": pytest.approx(PLANES * 8 / 20)}
    t_ecm = 7 + PENCILS * 8 / 32 + PLANES * 8 / 20  # no overlap: 28.1375
    assert ecm["t_ecm"] == pytest.approx(t_ecm)
    assert ecm["bound"] == "in-core"  # T_OL 12 against L1-L2 10.9 and L2-MEM 10.2
    assert ecm["saturation_cores"] == 3  # ceil(28.1375 / 10.2)
    single = ITERATIONS / 8 * t_ecm / 2e9
    assert ecm["time_single_core_s"] == pytest.approx(single)
    # 4 cores: memory-bound, 32,768 units x 10.2 cycles at 2 GHz
    assert ecm["time_s"] == pytest.approx(max(single / 4, ITERATIONS / 8 * 10.2 / 2e9))
    assert ecm["gflop_per_s"] == pytest.approx(8 * ITERATIONS / 1e9 / ecm["time_s"])


def test_a_one_level_machine_keeps_exasat_numbers(tmp_path):
    source = tmp_path / "jacobi.f90"
    source.write_text(JACOBI)
    out = tmp_path / "out.json"
    assert main([str(source), "--set", "n=64", "--json", str(out), "-q"]) == 0
    (loop,) = json.loads(out.read_text())["loops"]
    (level,) = loop["levels"]
    assert level["level"] == "on-chip"
    assert level["traffic_gb"] == loop["traffic_gb"]
    assert "ecm" not in loop
    assert not any(p["name"] in ("L1KB", "ClockGHz") for p in
                   json.loads(out.read_text())["parameters"])


def test_level_parameters_reject_nonsense(tmp_path, capsys):
    source, machine = tmp_path / "jacobi.f90", tmp_path / "two-level.xml"
    source.write_text(JACOBI)
    machine.write_text(MACHINE)
    assert main([str(source), "-m", str(machine), "--json", "-", "--set", "L2KB=-1"]) == 2
    assert "L2KB" in capsys.readouterr().err


def scaling_and_levels(path: Path) -> tuple[dict[str, float], list[tuple]]:
    import openpyxl

    book = openpyxl.load_workbook(path, data_only=True)
    sheet = book["Levels"]
    header = [c.value for c in sheet[4]]
    rows = [dict(zip(header, (c.value for c in row), strict=False))
            for row in sheet.iter_rows(min_row=5) if row[3].value]
    return {r["Level"]: r for r in rows}, list(book["ECM scaling"].iter_rows(min_row=4,
                                                                             values_only=True))


@pytest.mark.libreoffice
def test_editing_l1kb_and_l2kb_in_the_workbook_moves_the_layer_conditions(tmp_path):
    import openpyxl
    from libreoffice import recalculate

    data = run(tmp_path, "-o", str(tmp_path / "j.xlsx"))
    cells = {p["name"]: p["cell"] for p in data["parameters"]}
    book = openpyxl.load_workbook(tmp_path / "j.xlsx")
    for name, value in (("L1KB", 2), ("L2KB", 100)):
        sheet, address = cells[name].rsplit("!", 1)
        book[sheet.strip("'")][address.replace("$", "")].value = value
    book.save(tmp_path / "edited.xlsx")
    (recalculated,) = recalculate([tmp_path / "edited.xlsx"], tmp_path / "out")
    expected = levels_of(run(tmp_path, "--set", "L1KB=2", "--set", "L2KB=100"))
    # 2 KiB: within pencils (code 3); 100 KiB < 143 KiB of planes: pencils (code 2)
    assert (expected["L1"]["layer_condition"], expected["L2"]["layer_condition"]) == \
        ("within", "pencils")
    levels, _ = scaling_and_levels(recalculated)
    for name, code in (("L1", 3), ("L2", 2)):
        assert levels[name]["Condition (case)"] == code
        assert levels[name]["Traffic (GB)"] == pytest.approx(expected[name]["traffic_gb"])


def test_the_scaling_sheet_saturates_at_the_memory_interface(tmp_path):
    import openpyxl

    run(tmp_path, "-o", str(tmp_path / "j.xlsx"))
    rows = list(openpyxl.load_workbook(tmp_path / "j.xlsx", data_only=True)["ECM scaling"]
                .iter_rows(min_row=4, values_only=True))
    units = ITERATIONS / 8
    single = units * (7 + PENCILS * 8 / 32 + PLANES * 8 / 20) / 2e9
    memory = units * PLANES * 8 / 20 / 2e9  # 10.2 cycles per unit at 2 GHz
    # memory shared by 4 cores: one row per core count 1..4
    assert [row[0] for row in rows] == [1, 2, 3, 4]
    for cores, time, gflops in rows:
        assert time == pytest.approx(max(single / cores, memory))
        assert gflops == pytest.approx(8 * ITERATIONS / 1e9 / time)


def test_a_kerncraft_machine_file_gives_every_level_and_ecm(tmp_path):
    machine = Path(__file__).parent / "data" / "machines" / "toy-victim-l3.yml"
    data = run(tmp_path, "-m", str(machine), "-o", str(tmp_path / "j.xlsx"))
    (loop,) = data["loops"]
    sizes = {level["level"]: level["size_kib"] for level in loop["levels"]}
    # L3 8 MiB shared by 4 cores is 2 MiB per core; a victim L3 also holds what L2's 512 KiB
    # does not (L2 is inclusive of L1: L1 adds nothing)
    assert sizes == {"L1": 32, "L2": 512, "L3": 2048 + 512}
    assert set(loop["ecm"]["t_data"]) == {"L1-L2", "L2-L3", "L3-MEM"}
    # every field of a level is a workbook cell on the Levels sheet
    cells = loop["levels"][0]["cells"]
    assert cells["traffic_gb"].startswith("Levels!") and cells["layer_condition"]
    assert loop["ecm"]["cells"]["t_ecm"].startswith("ECM!")


ALIASING = """\
subroutine smooth(a, b)
  integer :: i, j
  real(8) :: a({ld}, 1000), b({ld}, 1000)
  do j = 5, 996
    do i = 1, 64
      b(i,j) = a(i,j-4) + a(i,j-3) + a(i,j-2) + a(i,j-1) + a(i,j) + a(i,j+1) + a(i,j+2) &
               + a(i,j+3) + a(i,j+4)
    end do
  end do
end subroutine
"""


@pytest.mark.parametrize("ld", [1024, 1032])
def test_rows_that_alias_in_a_cache_set_are_warned_about(tmp_path, capsys, ld):
    source = tmp_path / "smooth.f90"
    source.write_text(ALIASING.format(ld=ld))
    assert main([str(source), "-m", "xeon-e5-2680", "--json", str(tmp_path / "s.json")]) == 0
    err = capsys.readouterr().err
    # L1: 32 KiB, 8-way, 64-byte lines: 64 sets.  Rows of 1024 doubles are 8192 B = 128 lines
    # apart, a multiple of 64: the 9 rows of a the stencil keeps start in the same set, and
    # each uses 64 doubles = 8 lines, so 9 rows share each of 8 sets: more than 8 ways.
    # 1032 doubles = 129 lines: row m starts at set m, and no set holds more than 8 rows.
    if ld == 1024:
        assert f"{source}:4: smooth: at L1 (8-way, 64 sets) the rows of a" in err
        assert "up to 9 of them share a cache set" in err
        assert "padding the leading dimension by 8 elements (to 1032)" in err
    else:
        assert "share a cache set" not in err


def test_the_program_totals_carry_the_ecm_and_roofline_times(tmp_path):
    data = run(tmp_path, "-o", str(tmp_path / "j.xlsx"))
    (loop,) = data["loops"]
    totals = data["totals"]
    assert totals["ecm_time_s"] == pytest.approx(loop["ecm"]["time_s"])
    assert totals["roofline_time_s"] == pytest.approx(loop["ecm"]["roofline_time_s"])
    assert totals["cells"]["ecm_time_s"].startswith("ECM!")
    assert {"Total_ECM_Time_s", "Total_Roofline_Time_s"} <= \
        {p["name"] for p in data["parameters"]} | set(_defined_names(tmp_path / "j.xlsx"))


def _defined_names(path: Path) -> list[str]:
    import openpyxl

    return list(openpyxl.load_workbook(path).defined_names.keys())


def test_a_c_kernel_gets_every_level_the_ecm_and_the_html_section(tmp_path):
    root = Path(__file__).resolve().parent.parent
    out, page = tmp_path / "s.json", tmp_path / "s.html"
    assert main([str(root / "examples" / "c" / "stencil7.c"), "-m", "xeon-e5-2680", "-q",
                 "--json", str(out), "--html", str(page)]) == 0
    (loop,) = json.loads(out.read_text())["loops"]
    assert [level["level"] for level in loop["levels"]] == ["L1", "L2", "L3"]
    # 7 loads per iteration of 8 B over 32-byte loads at 1 per cycle: 8 x 8 / 32 x 7 = 14
    assert loop["ecm"]["t_nol"] == pytest.approx(14)
    html = page.read_text()
    section = html[html.index('<section id="ecm">'):]
    section = section[:section.index("</section>")]
    assert section.count("<svg") == 2  # the contributions and the scaling curve
    assert "T_L3-MEM" in section
