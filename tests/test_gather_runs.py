"""A gather's indices described by runs within a window (IndexRun_, IndexWindow_,
IndexSorted_): distinct elements, lines per run and the lines at a level, by hand.

The nest gathers x (8192 doubles, 64 KiB = 1024 lines of 64 B, P = 8 elements per line)
through idx, 4096 references (k) in one pass:

- uniform indices (the default, R = 1): distinct = 8192 x (1 - (1 - 1/8192)^4096)
  = 8192 x (1 - 0.606523) = 3223.45 elements;
- clustered, R = 8 draws within W = 32 elements, in any order:
  p = 32/8192 x (1 - (31/32)^8) = 0.00390625 x (1 - 0.775710) = 0.000876133 per run, over
  4096/8 = 512 runs: distinct = 8192 x (1 - (1 - 0.000876133)^512) = 8192 x (1 - 0.638409)
  = 2962.26 elements;
  a window spans N = (32 + 8 - 1)/8 = 4.875 lines at a random alignment: 2.875 inner lines,
  each drawn with 1 - (1 - 8/32)^8 = 0.899887, and 2 edge lines of 1 to 8 elements, each
  missed with 32/(8 x 9) x ((1 - 0.5/32)^9 - (1 - 8.5/32)^9) = 0.444444 x (0.867850 -
  0.062138) = 0.358094: D = 2.875 x 0.899887 + 2 x 0.641906 = 3.870987 lines per run
  (a simulation of 40,000 runs gives 3.87 for the exact alignment average), so
  8/3.870987 = 2.066663 elements used per line fetched and 4096/2.066663 = 1981.94 visits;
- sorted (one run of the pass over the whole range, ascending): the same 3223.45 distinct
  elements; N = (8192 + 7)/8 = 1024.875 lines, 1022.875 inner lines each drawn with
  1 - (1 - 1/1024)^4096 = 0.981721 and 2 edges missed with 0.191085 each: D = 1005.80,
  4096/1005.80 = 4.0724 elements per line; at every level the pass moves the lines of its
  one run once, D = 1005.80 lines (a monotone walk keeps only its current line; the exact
  expected distinct lines are 1024 x (1 - (1023/1024)^4096) = 1005.28), where uniform
  indices lose their line at each draw at a 512 B L1.

At a level, the LRU rule counts the distinct lines of ``w`` visits as ``L x (1 - EXP(-w x
c/L))``; for runs a visit stands for ``c = -L x LN(1 - D/L) / fetched`` uniform line draws
(``runs`` runs touch ``L x (1 - (1 - D/L)^runs)`` lines): the sorted pass's one run touches
exactly its D lines, and clustered runs fewer lines than their elements drawn uniformly.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sat.cli import main

MACHINE = str(Path(__file__).parent / "data" / "machines" / "toy-roofline.yml")

GATHER_F90 = """\
subroutine gath(idx, x, v, y)
  integer :: idx(4096)
  double precision :: x(8192), v(4096), y(4096)
  integer :: i
  do i = 1, 4096
    y(i) = v(i) * x(idx(i))
  end do
end subroutine gath
"""

GATHER_C = """\
void gath(int idx[4096], double x[8192], double v[4096], double y[4096])
{
    for (int i = 0; i < 4096; i++) {
        y[i] = v[i] * x[idx[i]];
    }
}
"""

UNIFORM_DISTINCT = 8192 * (1 - (1 - 1 / 8192) ** 4096)  # 3223.45
CLUSTERED_DISTINCT = 2962.26
CLUSTERED_CLUSTER = 8 / 3.870987  # 2.066663 elements per line fetched
SORTED_LINES = 1005.80  # D of the one run
X_STREAM = 4096 * 8  # x counted as a stream, which the gather's lines replace (B)


def run(tmp_path: Path, name: str, source: str, *options: str, conds: str | None = None
        ) -> dict:
    path, out = tmp_path / name, tmp_path / f"{name}.json"
    path.write_text(source)
    extra = []
    if conds is not None:
        (tmp_path / "conds.xml").write_text(f"<conds>\n{conds}\n</conds>\n")
        extra = ["--conds", str(tmp_path / "conds.xml")]
    assert main([str(path), "-m", MACHINE, "--set", "L1KB=0.5", "--json", str(out), "-q",
                 "-o", str(tmp_path / f"{name}.xlsx"), *extra, *options]) == 0
    return json.loads(out.read_text())


def gather_lines_at_l1(data: dict) -> float:
    """The gather's lines at L1: its change to the level's traffic plus x's stream bytes."""
    return (data["loops"][0]["levels"][0]["gathers_gb"] * 1e9 + X_STREAM) / 64


def test_clustered_runs_from_the_conditions_file_fortran(tmp_path: Path) -> None:
    data = run(tmp_path, "g.f90", GATHER_F90,
               conds='<gather array="x" run="8" window="32" sorted="no" />')
    row = data["gathers"][0]
    assert row["distinct"] == pytest.approx(CLUSTERED_DISTINCT, abs=0.01)
    assert row["cluster"] == pytest.approx(CLUSTERED_CLUSTER, rel=1e-5)
    assert row["visits"] == pytest.approx(1981.94, abs=0.01)
    # the compulsory traffic loses the distinct elements the runs no longer pick, 8 B each
    uniform = run(tmp_path, "u.f90", GATHER_F90)
    saved = (uniform["loops"][0]["traffic_blocks_gb"] - data["loops"][0]["traffic_blocks_gb"])
    assert saved * 1e9 == pytest.approx((UNIFORM_DISTINCT - CLUSTERED_DISTINCT) * 8, abs=0.1)
    # L1 (8 lines): the window's 4.875 lines stay during a run; the runs' windows fall at
    # random over 1024 lines, so nearly every one of the 1981.94 visits misses (the cache
    # reaches back a few visits: e^(-u/1024) > 0.99)
    assert gather_lines_at_l1(data) == pytest.approx(1981.94, rel=0.01)
    assert gather_lines_at_l1(data) < 1981.94


def test_clustered_runs_at_a_level_holding_the_range(tmp_path: Path) -> None:
    # L2 (256 KiB) holds x's 64 KiB: the gather moves the distinct lines its 512 runs touch,
    # each run 3.870987 of the 1024 lines: 1024 x (1 - (1 - 3.870987/1024)^512)
    # = 1024 x (1 - 0.143830) = 876.72 lines (uniform draws of its 4096 elements would
    # touch 1024 x (1 - e^-4) = 1005.24)
    data = run(tmp_path, "g.f90", GATHER_F90,
               conds='<gather array="x" run="8" window="32" sorted="no" />')
    level = data["loops"][0]["levels"][1]
    assert level["level"] == "L2"
    assert (level["gathers_gb"] * 1e9 + X_STREAM) / 64 == pytest.approx(876.72, abs=0.01)


def test_clustered_runs_from_set_c(tmp_path: Path) -> None:
    stem = "gath_3_x"  # the C loop is at line 3
    data = run(tmp_path, "g.c", GATHER_C, "--set", f"IndexRun_{stem}=8", "--set",
               f"IndexWindow_{stem}=32")
    row = data["gathers"][0]
    assert row["distinct"] == pytest.approx(CLUSTERED_DISTINCT, abs=0.01)
    assert row["cluster"] == pytest.approx(CLUSTERED_CLUSTER, rel=1e-5)
    sources = {p["name"]: p["source"] for p in data["parameters"]}
    assert sources[f"IndexRun_{stem}"] == "--set"


def test_window_that_does_not_fit_keeps_part_of_it(tmp_path: Path) -> None:
    # L1 of 0.375 KiB = 6 lines; the other streams (v, y, idx) keep a line each: C = 3 lines
    # for a window of N = 4.875 lines. A run fetches D + (R - D) x (1 - C/N) = 3.870987 +
    # 4.129013 x (1 - 3/4.875) = 5.459069 lines, 8/5.459069 = 1.465452 elements per line,
    # 4096/1.465452 = 2795.04 visits, nearly all of them misses (e^(-u/1024) > 0.99)
    part = run(tmp_path, "g.f90", GATHER_F90, "--set", "L1KB=0.375",
               conds='<gather array="x" run="8" window="32" />')
    assert gather_lines_at_l1(part) == pytest.approx(2795.04, rel=0.005)
    assert gather_lines_at_l1(part) < 2795.04
    # uniform indices at that L1: a line per draw, nearly 4096
    uniform = run(tmp_path, "u.f90", GATHER_F90, "--set", "L1KB=0.375")
    assert gather_lines_at_l1(uniform) == pytest.approx(4096, rel=0.005)


def test_sorted_indices_fetch_each_line_once(tmp_path: Path) -> None:
    data = run(tmp_path, "g.f90", GATHER_F90,
               conds='<gather array="x" run="pass" window="range" sorted="yes" />')
    row = data["gathers"][0]
    assert row["distinct"] == pytest.approx(UNIFORM_DISTINCT, abs=0.01)  # the same draws
    assert row["cluster"] == pytest.approx(4096 / 1005.80, rel=1e-4)
    assert gather_lines_at_l1(data) == pytest.approx(SORTED_LINES, abs=0.01)
    values = {p["name"]: p for p in data["parameters"]}
    assert values["IndexRun_gath_5_x"]["value"] == 4096  # derived: the pass's references
    assert values["IndexWindow_gath_5_x"]["value"] == 8192  # derived: the range
    assert values["IndexSorted_gath_5_x"]["value"] == 1


def test_uniform_default_is_the_uniform_model(tmp_path: Path) -> None:
    # R = 1 keeps every number of the uniform model, whatever the window
    plain = run(tmp_path, "g.f90", GATHER_F90)
    one = run(tmp_path, "h.f90", GATHER_F90, conds='<gather array="x" run="1" window="32" />')
    assert plain["gathers"][0]["distinct"] == pytest.approx(UNIFORM_DISTINCT, abs=0.01)
    assert plain["gathers"][0]["cluster"] == 1
    for key in ("distinct", "cluster", "visits", "lines", "traffic_gb", "compulsory_gb"):
        assert one["gathers"][0][key] == plain["gathers"][0][key]
    for a, b in zip(plain["loops"][0]["levels"], one["loops"][0]["levels"], strict=True):
        assert a["traffic_gb"] == b["traffic_gb"]
    assert one["loops"][0]["traffic_blocks_gb"] == plain["loops"][0]["traffic_blocks_gb"]


@pytest.mark.parametrize("conds, message", [
    ('<gather array="x" run="0" />', 'run must be a number of at least 1 (or several, '
     'equally likely: "4 8 16") or pass or loop'),
    ('<gather array="x" window="-4" />', "window must be a number of at least 1 or range"),
    ('<gather array="x" run="many" />', "got 'many'"),
    ('<gather array="x" sorted="maybe" />', "sorted must be yes or no"),
    ('<gather run="4" />', "<gather> without an array"),
])
def test_bad_conditions_entry_is_one_line(tmp_path: Path, capsys, conds: str,
                                          message: str) -> None:
    (tmp_path / "g.f90").write_text(GATHER_F90)
    (tmp_path / "conds.xml").write_text(f"<conds>\n{conds}\n</conds>\n")
    assert main([str(tmp_path / "g.f90"), "-m", MACHINE, "--conds",
                 str(tmp_path / "conds.xml"), "-q", "-o", str(tmp_path / "g.xlsx")]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "Traceback" not in err
    assert "conds.xml:2:" in err and message in err


@pytest.mark.parametrize("setting, message", [
    ("IndexRun_gath_5_x=0", "must be positive"),
    ("IndexWindow_gath_5_x=-3", "must be positive"),
    ("IndexSorted_gath_5_x=2", "must be 0 or 1"),
    ("IndexRun_gath_5_x=abc", "IndexRun_gath_5_x"),
])
def test_bad_set_value_is_one_line(tmp_path: Path, capsys, setting: str, message: str) -> None:
    (tmp_path / "g.f90").write_text(GATHER_F90)
    assert main([str(tmp_path / "g.f90"), "-m", MACHINE, "--set", setting, "-q",
                 "-o", str(tmp_path / "g.xlsx")]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "Traceback" not in err and message in err


@pytest.mark.libreoffice
def test_workbook_recalculates_after_editing_runs(tmp_path: Path) -> None:
    from libreoffice import recalculate_edited, soffice, value_at

    soffice()
    base = run(tmp_path, "g.f90", GATHER_F90)
    edits = {"IndexRun_gath_5_x": 8, "IndexWindow_gath_5_x": 32, "L1KB": 0.25}
    book = recalculate_edited(tmp_path / "g.f90.xlsx", edits, tmp_path / "edit")
    cli = run(tmp_path, "h.f90", GATHER_F90, *[a for name, value in edits.items()
                                                for a in ("--set", f"{name}={value}")])
    row, cells = cli["gathers"][0], base["gathers"][0]["cells"]
    for key in ("cluster", "visits", "distinct", "lines"):
        assert value_at(book, cells[key]) == pytest.approx(row[key], rel=1e-6)
    level, level_cells = cli["loops"][0]["levels"][0], base["loops"][0]["levels"][0]["cells"]
    for key in ("gathers_gb", "traffic_gb"):
        assert value_at(book, level_cells[key]) == pytest.approx(level[key], rel=1e-6)


# Runs of 4 or 16 draws, equally likely, within W = 32 elements (4096 references, m = 8192):
# a run of 4 draws an element of its window with 1 - (31/32)^4 = 0.119262, p_4 = 32/8192 x
# 0.119262 = 0.000465866; a run of 16 with 1 - (31/32)^16 = 0.398290, p_16 = 0.00155582.
# The mean length is 10, so 4096/10 = 409.6 runs; an element escapes them with
# EXP(409.6 x (LN(1 - p_4) + LN(1 - p_16))/2) = EXP(409.6 x -0.00101150) = 0.660795:
# distinct = 8192 x (1 - 0.660795) = 2778.77 elements. Runs all of the mean length 10 would
# give 8192 x (1 - (1 - 32/8192 x (1 - (31/32)^10))^409.6) = 2892.10: 4 % more.
MIXED_RUNS = '<gather array="x" run="4 16" window="32" sorted="no" />'


def test_runs_of_several_lengths(tmp_path: Path) -> None:
    data = run(tmp_path, "g.f90", GATHER_F90, conds=MIXED_RUNS)
    assert data["gathers"][0]["distinct"] == pytest.approx(2778.77, abs=0.01)
    mean = run(tmp_path, "h.f90", GATHER_F90,
               conds='<gather array="x" run="10" window="32" sorted="no" />')
    assert mean["gathers"][0]["distinct"] == pytest.approx(2892.10, abs=0.01)
    values = {p["name"]: p for p in data["parameters"]}
    assert values["IndexRun1_gath_5_x"]["value"] == 4
    assert values["IndexRun2_gath_5_x"]["value"] == 16
    assert values["IndexRun_gath_5_x"]["value"] == 10  # derived: the lengths' mean
    assert "IndexRun1_gath_5_x" in values["IndexRun_gath_5_x"]["source"]
    # the other per-run quantities use the mean length, as --set IndexRun_=10 gives
    assert data["gathers"][0]["cluster"] == mean["gathers"][0]["cluster"]


def test_run_lengths_in_the_conditions_file(tmp_path: Path, capsys) -> None:
    (tmp_path / "g.f90").write_text(GATHER_F90)
    (tmp_path / "conds.xml").write_text('<conds>\n<gather array="x" run="4 0 16" />\n'
                                        '</conds>\n')
    assert main([str(tmp_path / "g.f90"), "-m", MACHINE, "--conds",
                 str(tmp_path / "conds.xml"), "-q", "-o", str(tmp_path / "g.xlsx")]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "conds.xml:2:" in err and "'4 0 16'" in err
    # commas separate the lengths too
    data = run(tmp_path, "h.f90", GATHER_F90,
               conds='<gather array="x" run="4, 16" window="32" sorted="no" />')
    assert data["gathers"][0]["distinct"] == pytest.approx(2778.77, abs=0.01)


@pytest.mark.libreoffice
def test_workbook_recalculates_after_editing_run_lengths(tmp_path: Path) -> None:
    # lengths 2 and 16 (mean 9 derived live, 4096/9 runs): p_2 = 32/8192 x (1 - (31/32)^2),
    # distinct = 8192 x (1 - EXP(4096/9 x (LN(1 - p_2) + LN(1 - p_16))/2)) = 2749.97
    from libreoffice import recalculate_edited, soffice, value_at

    soffice()
    base = run(tmp_path, "g.f90", GATHER_F90, conds=MIXED_RUNS)
    book = recalculate_edited(tmp_path / "g.f90.xlsx", {"IndexRun1_gath_5_x": 2},
                              tmp_path / "edit")
    cells = base["gathers"][0]["cells"]
    assert value_at(book, cells["distinct"]) == pytest.approx(2749.97, abs=0.01)
    cli = run(tmp_path, "h.f90", GATHER_F90, "--set", "IndexRun1_gath_5_x=2",
              conds=MIXED_RUNS)
    for key in ("cluster", "visits", "distinct", "lines"):
        assert value_at(book, cells[key]) == pytest.approx(cli["gathers"][0][key], rel=1e-6)
