"""Calls inside loop nests: the callee's work and accesses counted in the calling nest.

Every expected number is worked out by hand in the comment beside it (default machine:
ReadCost 8 B, WriteCost and ReadWriteCost 16 B per element, 64-B lines of 8-B words).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sat.cli import main
from sat.frontend import read_sources
from sat.model.calls import inline_calls

PROGRAM = """\
module eos
contains
  subroutine pressure(rho, e, p)
    real(8), intent(in) :: rho, e
    real(8), intent(out) :: p
    p = 0.4d0 * rho * e + 1.0d0 / rho
  end subroutine
  subroutine smooth(n, u, v)
    integer, intent(in) :: n
    real(8), intent(in) :: u(n)
    real(8), intent(out) :: v(n)
    integer :: i
    do i = 2, n - 1
      v(i) = 0.25d0 * (u(i-1) + 2.0d0 * u(i) + u(i+1))
    end do
  end subroutine
end module
subroutine driver(nx, ny, rho, e, p, q, r)
  use eos
  integer :: nx, ny, i, j
  real(8) :: rho(nx, ny), e(nx, ny), p(nx, ny), q(nx, ny), r(nx, ny)
  do j = 1, ny
    do i = 1, nx
      call pressure(rho(i, j), e(i, j), p(i, j))
    end do
  end do
  do j = 1, ny
    call smooth(nx, q(:, j), r(:, j))
  end do
  do j = 2, ny
    do i = 1, nx
      q(i, j) = p(i, j) - r(i, j - 1)
    end do
  end do
end subroutine
"""


def run_json(capsys, tmp_path: Path, text: str, *options: str) -> tuple[dict, str]:
    source = tmp_path / "prog.f90"
    source.write_text(text)
    out = tmp_path / "prog.json"
    assert main([str(source), "--json", str(out), *options]) == 0
    return json.loads(out.read_text()), capsys.readouterr().err


def test_a_pointwise_callee_counts_in_the_calling_nest(capsys, tmp_path):
    data, err = run_json(capsys, tmp_path, PROGRAM, "--set", "nx=100", "--set", "ny=50")
    first = data["loops"][0]
    # p = 0.4*rho*e + 1/rho: 2 multiplies, 1 add, 1 divide per point, 100 × 50 points
    assert (first["adds"], first["multiplies"], first["divides"]) == (1, 2, 1)
    assert first["gflops"] == pytest.approx(4 * 5000 / 1e9)
    # rho and e read (8 B each), p written through the dummy (16 B): 32 B per point
    assert first["traffic_gb"] == pytest.approx(32 * 5000 / 1e9)
    assert "not a procedure of the program" not in err


def test_a_callee_loop_over_a_section_runs_inside_the_calling_nest(capsys, tmp_path):
    data, _ = run_json(capsys, tmp_path, PROGRAM, "--set", "nx=100", "--set", "ny=50")
    second = data["loops"][1]
    # smooth's i = 2 .. nx-1 (98 points) on the column q(:, j) of each of 50 rows
    assert (second["iter_x"], second["iter_y"]) == (98, 50)
    # 0.25*(u(i-1) + 2*u(i) + u(i+1)): 2 adds and 2 multiplies per point
    assert second["gflops"] == pytest.approx(4 * 98 * 50 / 1e9)
    # q read over i-1 .. i+1 (100 elements, 104 in whole 8-element lines) and r written
    # (98 → 104): 50 rows × (104 × 8 + 104 × 16) B
    assert second["traffic_gb"] == pytest.approx(50 * (104 * 8 + 104 * 16) / 1e9)


def test_callees_that_only_run_inside_nests_have_no_rows_of_their_own(capsys, tmp_path):
    data, _ = run_json(capsys, tmp_path, PROGRAM)
    assert [loop["procedure"] for loop in data["loops"]] == ["driver"] * 3
    assert any("'smooth' runs only inside loop nests of 'driver'" in n["message"]
               for n in data["notes"])


def test_dependences_follow_writes_through_calls(capsys, tmp_path):
    data, err = run_json(capsys, tmp_path, PROGRAM, "--html", str(tmp_path / "p.html"))
    assert "calls procedures that are not in the sources" not in err
    program = inline_calls(read_sources([str(tmp_path / "prog.f90")])).program
    from sat.model.exasat.dependences import dependences

    edges = {(e.source_line, e.sink_line, e.kind) for e in dependences(program)}
    # p is written in the first nest (inside 'pressure') and read in the third: flow 22 → 30
    assert (22, 30, "flow") in edges
    # r is written in the second nest (inside 'smooth') and read in the third
    assert (27, 30, "flow") in edges


def test_recursion_is_not_followed_and_said_once(capsys, tmp_path):
    data, err = run_json(capsys, tmp_path, """\
recursive subroutine walk(n, a)
  integer :: n, i
  real(8) :: a(n)
  do i = 1, n
    a(i) = a(i) * 2.0d0
    if (n > 1) call walk(n - 1, a)
  end do
end subroutine
""")
    (loop,) = data["loops"]
    assert loop["gflops"] == pytest.approx(128 / 1e9)  # its own multiply only
    assert err.count("recursive call to 'walk'") == 1


def test_calls_nest_transitively_with_renamed_loop_variables():
    import tempfile

    text = """\
subroutine inner(n, x)
  integer :: n, i
  real(8) :: x(n)
  do i = 1, n
    x(i) = x(i) + 1.0d0
  end do
end subroutine
subroutine middle(n, y)
  integer :: n
  real(8) :: y(n)
  call inner(n, y)
  call inner(n, y)
end subroutine
subroutine top(m, n, z)
  integer :: m, n, i
  real(8) :: z(n, m)
  do i = 1, m
    call middle(n, z(:, i))
  end do
end subroutine
"""
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "t.f90"
        path.write_text(text)
        inlined = inline_calls(read_sources([str(path)]))
    (top,) = inlined.program.procedures  # inner and middle run only inside top's nest
    loop = top.loops[0]
    # middle's work is an arm of the loop, holding inner's loop once for its two identical
    # calls (an arm run twice)
    (middle,) = loop.branches
    assert middle.callee == "middle"
    (inner,) = middle.branches
    assert (inner.callee, inner.count) == ("inner", 2)
    inner_loops = list(loop.all_loops())
    assert [lp.loopvar for lp in inner_loops] == ["i__inner"]
    access = inner_loops[0].arrays[0].accesses[0]
    assert (inner_loops[0].arrays[0].name, access.loopvars) == ("z", ("i__inner", "i"))
    assert all(call.followed for call in loop.calls)


def test_the_calls_column_lists_callees_in_json_and_workbook(capsys, tmp_path):
    import openpyxl

    text = PROGRAM.replace("    call smooth(nx, q(:, j), r(:, j))",
                           "    call smooth(nx, q(:, j), r(:, j))\n    call ckwyr(q)")
    data, err = run_json(capsys, tmp_path, text, "-o", str(tmp_path / "p.xlsx"))
    assert [loop["calls_summary"] for loop in data["loops"]] == [
        "pressure ×1", "smooth ×1, ckwyr ×1 (not in the sources)", ""]
    sheet = openpyxl.load_workbook(tmp_path / "p.xlsx")["Loops"]
    texts = {cell.value for row in sheet.iter_rows() for cell in row}
    assert "smooth ×1, ckwyr ×1 (not in the sources)" in texts
    assert err.count("'ckwyr'") == 1  # one warning for the unknown procedure


GENERIC = """\
module ops
  interface scale
    module procedure scale_int, scale_vec, scale_mat
  end interface
contains
  subroutine scale_int(n, k)
    integer :: n, k
    k = k * n
  end subroutine
  subroutine scale_vec(n, v)
    integer :: n, i
    real(8) :: v(n)
    do i = 1, n
      v(i) = v(i) * 2.0d0
    end do
  end subroutine
  subroutine scale_mat(n, m)
    integer :: n, i, j
    real(8) :: m(n, n)
    do j = 1, n
      do i = 1, n
        m(i, j) = m(i, j) * 3.0d0 + 1.0d0
      end do
    end do
  end subroutine
end module
subroutine user(n, nt, a, b)
  use ops
  integer :: n, nt, t
  real(8) :: a(n, n), b(n)
  do t = 1, nt
    call scale(n, a)
    call scale(n, b)
  end do
end subroutine
"""


def test_generic_interfaces_resolve_by_argument_type_and_rank(capsys, tmp_path):
    data, err = run_json(capsys, tmp_path, GENERIC, "--set", "n=10", "--set", "nt=5")
    # the two kernels called one after the other in the time loop are a nest each
    mat, vec = data["loops"]
    assert (mat["calls_summary"], vec["calls_summary"]) == ("scale_mat ×1", "scale_vec ×1")
    # per pass of t: scale_mat 2 flops × 10 × 10, scale_vec 1 flop × 10; 5 passes
    assert mat["gflops"] == pytest.approx(5 * 200 / 1e9)
    assert vec["gflops"] == pytest.approx(5 * 10 / 1e9)
    assert "generic interface" not in err


def test_a_generic_call_no_specific_takes_is_warned_about(capsys, tmp_path):
    text = GENERIC.replace("    call scale(n, b)", "    call scale(n, 2.5d0)")
    data, err = run_json(capsys, tmp_path, text)
    assert "generic interface 'scale': no specific procedure takes these arguments " \
           "(int rank 0, real rank 0); 'scale_int' stands for it" in err


def test_extra_arguments_are_warned_about(capsys, tmp_path):
    text = PROGRAM.replace("call pressure(rho(i, j), e(i, j), p(i, j))",
                           "call pressure(rho(i, j), e(i, j), p(i, j), q(i, j))")
    data, err = run_json(capsys, tmp_path, text)
    assert "call to 'pressure' passes 4 arguments but it takes 3: the extra ones are " \
           "ignored" in err
    assert data["loops"][0]["calls_summary"] == "pressure ×1"


def calls_sheet(path: Path, data_only: bool = True) -> dict[str, tuple]:
    """Callee -> (nest line, Gflop, share) read from the Calls sheet."""
    import openpyxl

    sheet = openpyxl.load_workbook(path, data_only=data_only)["Calls"]
    rows = [r for r in sheet.iter_rows(values_only=True) if isinstance(r[2], int)]
    return {r[3]: (r[2], r[10], r[11]) for r in rows}


def test_the_calls_sheet_and_the_callee_share(capsys, tmp_path):
    data, _ = run_json(capsys, tmp_path, PROGRAM, "--set", "nx=100", "--set", "ny=50",
                       "-o", str(tmp_path / "p.xlsx"))
    first, second, third = data["loops"]
    assert first["callee_gflops"] == pytest.approx(4 * 5000 / 1e9)  # all of it in pressure
    assert second["callee_gflops"] == pytest.approx(4 * 98 * 50 / 1e9)
    assert third["callee_gflops"] == 0
    assert data["totals"]["callee_gflops"] == pytest.approx((20000 + 19600) / 1e9)
    cached = calls_sheet(tmp_path / "p.xlsx")
    assert cached["pressure"] == (22, pytest.approx(2e-5), pytest.approx(1.0))
    assert cached["smooth"] == (27, pytest.approx(1.96e-5), pytest.approx(1.0))
    formulas = calls_sheet(tmp_path / "p.xlsx", data_only=False)
    assert str(formulas["pressure"][1]).startswith("=")  # live, not a value
    # JSON: each nest's callees as objects (DESIGN §3.2 loops[].calls)
    (pressure,) = first["calls"]
    assert {k: pressure[k] for k in ("callee", "line", "count_per_iteration", "adds",
                                     "multiplies", "divides")} == {
        "callee": "pressure", "line": 24, "count_per_iteration": 1,
        "adds": 1, "multiplies": 2, "divides": 1}  # 0.4*rho*e + 1/rho
    # p(i,j) is also passed (read) by the nest itself: no array is pressure's alone
    assert pressure["traffic_gb"] == 0 and first["callee_traffic_gb"] == 0
    (smooth,) = second["calls"]
    # q and r only smooth touches; reuse between planes moves each row once, X rounded
    # to 8-element cache lines: q i = 1..100 -> 104 x 8 B read, r i = 2..99 -> 104 x 16 B
    # written (WriteCost 16), for each of 50 values of j
    assert smooth["traffic_gb"] == pytest.approx((104 * 8 + 104 * 16) * 50 / 1e9)
    assert smooth["traffic_share"] == pytest.approx(1.0)
    assert second["callee_traffic_gb"] == pytest.approx(second["traffic_gb"])
    assert third["calls"] == [] and third["calls_summary"] == ""


UNKNOWN = """\
subroutine user(n, a, b)
  integer :: n, i
  real(8) :: a(n), b(n)
  do i = 1, n
    call eos_table(a(i), b(i))
    b(i) = b(i) * 2.0d0
  end do
end subroutine
"""


def test_a_procedure_not_in_the_sources_costs_a_settable_parameter(capsys, tmp_path):
    data, err = run_json(capsys, tmp_path, UNKNOWN, "--set", "n=1000")
    assert "it costs CallFlops_eos_table flops per call" in err
    parameter = next(p for p in data["parameters"] if p["name"] == "CallFlops_eos_table")
    assert (parameter["value"], parameter["defaulted"]) == (0, True)
    assert data["loops"][0]["gflops"] == pytest.approx(1000 / 1e9)  # the multiply alone
    data, _ = run_json(capsys, tmp_path, UNKNOWN, "--set", "n=1000",
                       "--set", "CallFlops_eos_table=50", "-o", str(tmp_path / "p.xlsx"))
    (loop,) = data["loops"]
    # 50 flops per call + 1 multiply, 1000 iterations
    assert loop["gflops"] == pytest.approx(51 * 1000 / 1e9)
    assert loop["callee_gflops"] == pytest.approx(50 * 1000 / 1e9)
    (call,) = loop["calls"]
    assert (call["callee"], call["count_per_iteration"], call["gflops"]) == \
        ("eos_table", 1, pytest.approx(5e-5))
    assert calls_sheet(tmp_path / "p.xlsx")["eos_table"][1:] == \
        (pytest.approx(5e-5), pytest.approx(50 / 51))


@pytest.mark.libreoffice
def test_the_cost_of_an_unknown_call_is_live_in_the_workbook(capsys, tmp_path):
    import openpyxl
    from libreoffice import recalculate

    data, _ = run_json(capsys, tmp_path, UNKNOWN, "--set", "n=1000", "-o",
                       str(tmp_path / "p.xlsx"))
    cell = next(p["cell"] for p in data["parameters"] if p["name"] == "CallFlops_eos_table")
    book = openpyxl.load_workbook(tmp_path / "p.xlsx")
    sheet, address = cell.rsplit("!", 1)
    book[sheet.strip("'")][address.replace("$", "")].value = 20
    book.save(tmp_path / "edited.xlsx")
    (recalculated,) = recalculate([tmp_path / "edited.xlsx"], tmp_path / "out")
    assert calls_sheet(recalculated)["eos_table"][1] == pytest.approx(20 * 1000 / 1e9)


@pytest.mark.libreoffice
def test_the_calls_sheet_recalculates_after_an_edit(capsys, tmp_path):
    import openpyxl
    from libreoffice import recalculate

    data, _ = run_json(capsys, tmp_path, PROGRAM, "--set", "nx=100", "--set", "ny=50",
                       "-o", str(tmp_path / "p.xlsx"))
    cell = next(p["cell"] for p in data["parameters"] if p["name"] == "nx")
    book = openpyxl.load_workbook(tmp_path / "p.xlsx")
    sheet, address = cell.rsplit("!", 1)
    book[sheet.strip("'")][address.replace("$", "")].value = 200
    book.save(tmp_path / "edited.xlsx")
    (recalculated,) = recalculate([tmp_path / "edited.xlsx"], tmp_path / "out")
    values = calls_sheet(recalculated)
    # pressure: 4 flops × 200 × 50; smooth: 4 flops × 198 × 50
    assert values["pressure"][1] == pytest.approx(4 * 200 * 50 / 1e9)
    assert values["smooth"][1] == pytest.approx(4 * 198 * 50 / 1e9)


def test_a_call_inside_a_branch_arm_is_followed_and_noted(capsys, tmp_path):
    data, _ = run_json(capsys, tmp_path, """\
subroutine twice(x)
  real(8) :: x
  x = 2.0d0 * x
end subroutine
subroutine user(n, a)
  integer :: n, i
  real(8) :: a(n)
  do i = 1, n
    if (a(i) > 0.0d0) then
      call twice(a(i))
    end if
  end do
end subroutine
""")
    (loop,) = data["loops"]
    assert loop["calls_summary"] == "twice ×1"
    # per element: the comparison (1 add) always, the multiply in twice half the time
    assert loop["gflops"] == pytest.approx(128 * 1.5 / 1e9)
    assert any(n["message"].startswith("Calls inside a loop nest") for n in data["notes"])


def test_procedure_pointers_and_mismatched_arguments_are_said(capsys, tmp_path):
    source = tmp_path / "pp.f90"
    source.write_text("""\
module m
  abstract interface
    subroutine op(x)
      real(8) :: x
    end subroutine
  end interface
contains
  subroutine twice(x)
    real(8) :: x
    x = 2.0d0 * x
  end subroutine
  subroutine user(n, a, g)
    integer :: n, i
    real(8) :: a(n)
    procedure(op) :: g
    procedure(op), pointer :: f => null()
    f => twice
    do i = 1, n
      call f(a(i))
      call g(a(i))
      call twice(i)
    end do
  end subroutine
end module
""")
    assert main([str(source), "--json", str(tmp_path / "pp.json"), "--set", "n=10"]) == 0
    err = capsys.readouterr().err
    assert "pp.f90:19: call to procedure pointer 'f' (its target is not followed): it costs " \
           "CallFlops_f flops per call" in err
    assert "pp.f90:20: call to dummy procedure 'g' (its target is not followed): it costs " \
           "CallFlops_g flops per call" in err
    assert "pp.f90:21: call to 'twice': argument 1 is int but dummy 'x' is double; the call " \
           "is followed as written" in err
    data = json.loads((tmp_path / "pp.json").read_text())
    # twice's one multiply per iteration is counted; f and g cost their (zero) parameters
    assert data["loops"][0]["gflops"] == pytest.approx(10 / 1e9)
    assert {c["callee"] for c in data["loops"][0]["calls"]} == {"f", "g", "twice"}


def test_c_function_pointers_are_said(capsys, tmp_path):
    source = tmp_path / "fp.c"
    source.write_text("""\
double twice(double x) { return 2.0 * x; }
void user(int n, double *a, double (*f)(double)) {
  for (int i = 0; i < n; i++) {
    a[i] = f(a[i]) + twice(a[i]);
  }
}
""")
    assert main([str(source), "--json", str(tmp_path / "fp.json"), "--set", "n=10",
                 "--set", "CallFlops_f=7"]) == 0
    err = capsys.readouterr().err
    assert "fp.c:4: call through function pointer 'f' (its target is not followed): it costs " \
           "CallFlops_f flops per call" in err
    assert "not a procedure of the program" not in err  # said once, by the front end
    data = json.loads((tmp_path / "fp.json").read_text())
    # per iteration: 7 (f) + 1 multiply (twice) + 1 add
    assert data["loops"][0]["gflops"] == pytest.approx(9 * 10 / 1e9)

# --- the Calls section of the HTML summary -----------------------------------------------

def html_page(capsys, tmp_path: Path, text: str, *options: str):
    import lxml.html

    source = tmp_path / "prog.f90"
    source.write_text(text)
    page = tmp_path / "prog.html"
    assert main([str(source), "-q", "--html", str(page), *options]) == 0, \
        capsys.readouterr().err
    return lxml.html.fromstring(page.read_text(encoding="utf-8"))


def calls_table(doc) -> list[dict[str, tuple[str, str]]]:
    """The rows of the calls table: data-key -> (text, data-v)."""
    return [{td.get("data-key"): (td.text_content(), td.get("data-v")) for td in tr.xpath("td")}
            for tr in doc.xpath("//table[@id='calls-table']/tbody/tr")]


def drawn_texts(doc) -> list[str]:
    """The texts of the call graph drawing (graphviz's, or our own layout's)."""
    [svg] = doc.xpath("//section[@id='calls']//*[local-name()='svg']")
    return [t.text_content().strip() for t in svg.xpath(".//*[local-name()='text']")]


@pytest.mark.parametrize("graphviz", [True, False])
def test_the_html_calls_section_shows_each_call_with_the_callee_work(capsys, tmp_path,
                                                                     monkeypatch, graphviz):
    if not graphviz:  # our own layout draws the graph
        monkeypatch.setenv("PATH", str(tmp_path / "nowhere"))
    text = PROGRAM.replace("    call smooth(nx, q(:, j), r(:, j))",
                           "    call smooth(nx, q(:, j), r(:, j))\n    call ckwyr(q)")
    doc = html_page(capsys, tmp_path, text, "--set", "nx=100", "--set", "ny=50")
    assert doc.xpath("//nav/a[@href='#calls']")
    rows = calls_table(doc)
    assert [(r["caller"][0], r["callee"][0], r["nest"][0], r["calls"][0], r["status"][0])
            for r in rows] == [
        ("driver", "pressure", "driver:22", "1", "followed"),
        ("driver", "smooth", "driver:27", "1", "followed"),
        ("driver", "ckwyr", "driver:27", "1", "not in the sources")]
    pressure, smooth, ckwyr = rows
    # pressure: 4 flops per point, 100 × 50 points, all of the first nest's work
    assert float(pressure["gflops"][1]) == pytest.approx(4 * 5000 / 1e9)
    assert float(pressure["share"][1]) == pytest.approx(1.0)
    assert pressure["share"][0] == "100.0 %"
    # smooth: 4 flops per point over i = 2 .. 99, 50 rows; ckwyr adds nothing to that nest
    assert float(smooth["gflops"][1]) == pytest.approx(4 * 98 * 50 / 1e9)
    assert float(smooth["share"][1]) == pytest.approx(1.0)
    assert (ckwyr["gflops"], ckwyr["share"]) == (("not counted", ""), ("", ""))
    texts = drawn_texts(doc)
    assert {"driver", "pressure", "smooth", "ckwyr"} <= set(texts)
    assert sorted(t for t in texts if t.startswith("×")) == [
        "×1 · line 22", "×1 · line 27", "×1 · line 27"]


MIXED = """\
subroutine inner(n, x)
  integer :: n, i
  real(8) :: x(n)
  do i = 1, n
    x(i) = x(i) + 1.0d0
  end do
end subroutine
subroutine middle(n, y)
  integer :: n
  real(8) :: y(n)
  call inner(n, y)
  call inner(n, y)
end subroutine
recursive subroutine walk(n, a)
  integer :: n, i
  real(8) :: a(n)
  do i = 1, n
    a(i) = a(i) * 2.0d0
    if (n > 1) call walk(n - 1, a)
  end do
end subroutine
subroutine top(m, n, z, w)
  integer :: m, n, i
  real(8) :: z(n, m), w(n)
  do i = 1, m
    call middle(n, z(:, i))
  end do
  call walk(n, w)
end subroutine
"""


def test_calls_made_by_callees_recursion_and_calls_outside_nests(capsys, tmp_path):
    doc = html_page(capsys, tmp_path, MIXED, "--set", "m=10", "--set", "n=100",
                    "--json", str(tmp_path / "prog.json"))
    rows = calls_table(doc)
    # the calls counted per nest are those of the Loops sheet's calls column
    loops = json.loads((tmp_path / "prog.json").read_text())["loops"]
    for loop in loops:
        counted = ", ".join(f"{r['callee'][0]} ×{r['calls'][0]}" for r in rows
                            if r["nest"][0] == f"{loop['procedure']}:{loop['line']}")
        assert counted == loop["calls_summary"].replace(" (not followed)", "")
    assert [(r["caller"][0], r["callee"][0], r["nest"][0], r["calls"][0], r["status"][0],
             r["gflops"][0]) for r in rows] == [
        ("walk", "walk", "walk:17", "1", "recursive", "not counted"),
        ("top", "middle", "top:25", "1", "followed", "2.000e-06"),
        # inner runs twice in each call of middle; its work counts for middle
        ("middle", "inner", "top:25", "2", "followed", "in middle"),
        ("top", "walk", "line 28, outside loop nests", "1", "outside loop nests",
         "not counted")]
    # middle: inner's one add per element, n = 100 elements, twice per call; m = 10 calls
    assert float(rows[1]["gflops"][1]) == pytest.approx(2 * 100 * 10 / 1e9)
    assert float(rows[1]["share"][1]) == pytest.approx(1.0)  # the nest does nothing else
    texts = drawn_texts(doc)
    assert {"top", "middle", "inner", "walk"} <= set(texts)
    assert {"recursive ×1 · line 17", "×1 · line 25", "×2 · top:25", "×1 · line 28"} <= \
        set(texts)


def test_the_call_graph_draws_kinds_of_procedures_and_calls_apart(tmp_path):
    from sat.report.callgraph import build_call_graph, layered_svg, to_dot

    path = tmp_path / "mixed.f90"
    path.write_text(MIXED.replace("  call walk(n, w)\n", "  call walk(n, w)\n  call mpi_x(w)\n")
                    .replace("    call middle(n, z(:, i))\n",
                             "    call middle(n, z(:, i))\n    call ext(z(:, i))\n"))
    graph = build_call_graph(inline_calls(read_sources([str(path)])).program)
    kinds = {n.name: n.kind for n in graph.nodes}
    assert kinds == {"walk": "procedure", "top": "procedure", "middle": "inside",
                     "inner": "inside", "ext": "external"}
    edges = {(graph.node(e.source).name, graph.node(e.target).name, e.status)
             for e in graph.edges}
    assert edges == {("walk", "walk", "recursive"), ("top", "middle", "followed"),
                     ("middle", "inner", "followed"), ("top", "ext", "not in the sources"),
                     ("top", "walk", "outside loop nests")}
    dot = to_dot(graph)
    ext = next(n.ident for n in graph.nodes if n.name == "ext")
    walk = next(n.ident for n in graph.nodes if n.name == "walk")
    assert f'{ext} [label="ext", ' in dot and 'style="rounded,dashed"' in dot
    assert f'{walk} -> {walk} [label="recursive ×1 · line 17", ' in dot
    svg = layered_svg(graph, "t")
    assert svg.count('class="edge recursive"') == 1 and svg.count('class="node external"') == 1


def test_no_calls_section_without_calls(capsys, tmp_path):
    doc = html_page(capsys, tmp_path, """\
subroutine s(n, a)
  integer :: n, i
  real(8) :: a(n)
  do i = 1, n
    a(i) = 2.0d0 * a(i)
  end do
end subroutine
""")
    assert not doc.xpath("//section[@id='calls']") and not doc.xpath("//a[@href='#calls']")


def test_the_page_takes_the_dependences_of_the_model(tmp_path):
    from sat.machine import load_machine
    from sat.model.build import build_model
    from sat.model.exasat.dependences import dependences
    from sat.parameters import build_parameters
    from sat.report.drawings import model_dependences

    path = tmp_path / "prog.f90"
    path.write_text(PROGRAM)
    result = build_model(read_sources([str(path)]),
                         build_parameters(load_machine(None), None, None, None))
    edges = model_dependences(result.program, result)
    assert edges == dependences(result.program)  # written through the calls: 22 → 30
    assert {(e.source_line, e.sink_line, e.kind) for e in edges} >= {(22, 30, "flow"),
                                                                     (27, 30, "flow")}


SWEEP = """module m
contains
subroutine sweep(n, a, b)
  integer :: n, i
  real(8) :: a(n), b(n)
  do i = 2, n - 1
    b(i) = a(i-1) + a(i) + a(i+1)
  end do
end subroutine
end module
program p
  use m
  integer, parameter :: n = 1000
  real(8) :: a(n), b(n)
  integer :: k
  do k = 1, 10
    call sweep(n, a, b)
  end do
end program
"""

SMOOTH = """module st
contains
subroutine smooth(r, n, a, b)
  integer :: r, n, i, j
  real(8) :: a(n), b(n)
  do i = 1 + r, n - r
    b(i) = 0
    do j = -r, r
      b(i) = b(i) + a(i + j)
    end do
  end do
end subroutine
end module
program q
  use st
  integer, parameter :: r = 2, n = 1000
  real(8) :: a(n), b(n)
  integer :: k
  do k = 1, 10
    call smooth(r, n, a, b)
  end do
end program
"""


def test_a_named_constant_passed_to_a_callee_keeps_its_value(capsys, tmp_path):
    """``call sweep(n, a, b)`` with ``n = 1000`` a constant of the caller, ``n`` also the
    callee's dummy: the only call passes sweep's dummy 1000, so both are one parameter n =
    1000, not a defaulted ``n``. By hand: 10 calls x 998 points x 2 adds = 19,960 flops =
    1.996e-05 Gflop (with the default n = 128 it was 2.52e-06)."""
    data, _ = run_json(capsys, tmp_path, SWEEP)
    (loop,) = data["loops"]
    assert loop["gflops"] == pytest.approx(1.996e-05, rel=1e-12)
    problem = {p["name"]: p["value"] for p in data["parameters"] if p["group"] == "problem"}
    assert problem == {"n": 1000}


def test_a_constant_used_only_as_an_argument_reaches_the_callee(capsys, tmp_path):
    """A stencil radius ``r = 2`` the caller uses only as an argument: the callee's loops run
    from 1 + r to n - r with j from -r to r. By hand: 10 calls x 996 points x 5 adds = 49,800
    flops = 4.98e-05 Gflop (r was a defaulted 1 before, giving 3 adds per point)."""
    data, _ = run_json(capsys, tmp_path, SMOOTH)
    (loop,) = data["loops"]
    assert loop["gflops"] == pytest.approx(4.98e-05, rel=1e-12)
    problem = {p["name"]: p["value"] for p in data["parameters"] if p["group"] == "problem"}
    assert problem == {"r": 2, "n": 1000}  # the dummies too: every call passes these


REPEATED = """\
subroutine twice(x)
  real(8) :: x
  x = x * 2.0d0 + 1.0d0
end subroutine
subroutine sweep(n, y)
  integer :: n, i
  real(8) :: y(n)
  do i = 1, n
    y(i) = y(i) * 0.5d0
  end do
end subroutine
subroutine top(n, nt, a, b)
  integer :: n, nt, i, t
  real(8) :: a(n), b(n)
  do i = 1, n
    call twice(a(i))
    call twice(a(i))
  end do
  do t = 1, nt
    call sweep(n, b)
    call sweep(n, b)
  end do
end subroutine
"""


def test_identical_calls_are_written_in_once_and_counted(capsys, tmp_path):
    data, _err = run_json(capsys, tmp_path, REPEATED, "--set", "n=1000", "--set", "nt=10")
    pointwise, repeated = data["loops"]
    # twice(a(i)) twice per point: 2 adds + 2 multiplies per iteration, 1000 points,
    # 4 * 1000 flops; one sweep, its two calls per iteration on the Calls sheet
    assert (pointwise["adds"], pointwise["multiplies"], pointwise["sweeps"]) == (2, 2, 1)
    assert pointwise["gflops"] * 1e9 == pytest.approx(4000)
    assert pointwise["calls"][0]["count_per_iteration"] == 2
    assert pointwise["calls_summary"] == "twice ×2"
    # sweep(n, b) twice per t: a loop of 2 trips around one sweep of b, 10 * 2 sweeps of
    # 1000 points, 1 multiply each: 20000 flops; b read and written once per sweep,
    # 16 bytes a point: 20 * 1000 * 16 bytes
    assert (repeated["multiplies"], repeated["sweeps"]) == (1, 20)
    assert repeated["gflops"] * 1e9 == pytest.approx(20000)
    assert repeated["traffic_gb"] * 1e9 == pytest.approx(20 * 1000 * 16)
    assert repeated["calls_summary"] == "sweep ×2"


def test_identical_calls_count_in_the_call_graph(tmp_path):
    from sat.report.callgraph import build_call_graph

    source = tmp_path / "prog.f90"
    source.write_text(REPEATED)
    graph = build_call_graph(inline_calls(read_sources([str(source)])).program)
    # each of the two nests calls its procedure twice per iteration, written in once
    assert {(s.callee, s.calls) for s in graph.sites} == {("twice", 2), ("sweep", 2)}


@pytest.mark.libreoffice
def test_identical_calls_recalculate_in_the_workbook(capsys, tmp_path):
    import math

    from libreoffice import recalculate_edited

    source = tmp_path / "prog.f90"
    source.write_text(REPEATED)
    book = tmp_path / "base.xlsx"
    assert main([str(source), "-q", "-o", str(book)]) == 0
    values = recalculate_edited(book, {"n": 500, "nt": 3}, tmp_path / "edit")

    def total(name: str) -> float:
        sheet, cell = next(iter(values.defined_names[name].destinations))
        return values[sheet][cell.replace("$", "")].value

    data, _err = run_json(capsys, tmp_path, REPEATED, "--set", "n=500", "--set", "nt=3")
    # 4 flops a point over 500 points, then 3 passes of 2 sweeps of 500 points: 5000 flops
    assert data["totals"]["gflops"] * 1e9 == pytest.approx(5000)
    for name, key in (("Total_GFlops", "gflops"), ("Total_Traffic_GB", "traffic_gb"),
                      ("Total_Time_s", "time_s")):
        assert math.isclose(total(name), data["totals"][key], rel_tol=1e-9), name
