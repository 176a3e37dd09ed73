"""Code as users bring it: named constants, empty nests, descending loops, literal bounds,
time loops, short contiguous leading dimensions, bounds assigned inside a nest, warnings.

Every expected number is worked out by hand in the comment beside it (default machine:
ReadCost 8 B, WriteCost and ReadWriteCost 16 B per element, 64-B lines of 8-B words).
"""

from __future__ import annotations

import json
from pathlib import Path

import openpyxl
import pytest

from sat.cli import main


def analyse(capsys, tmp_path: Path, name: str, text: str, *options: str) -> tuple[dict, str]:
    """JSON of satreport on a source written to ``tmp_path``, and what it said on stderr."""
    source = tmp_path / name
    source.write_text(text)
    out = tmp_path / (name + ".json")
    status = main([str(source), "--json", str(out), *options])
    err = capsys.readouterr().err
    assert status == 0, err
    return json.loads(out.read_text()), err


def problem(data: dict) -> dict[str, dict]:
    return {p["name"]: p for p in data["parameters"] if p["group"] == "problem"}


# ------------------------------------------------------------------ 1. named constants

WORK = """\
subroutine work(a)
  integer, parameter :: n = 1000, nv = 4
  integer :: i, l
  real(8) :: a(n, nv)
  do l = 1, nv
    do i = 1, n
      a(i,l) = 2.0d0*a(i,l)
    end do
  end do
end subroutine
"""


def test_named_constants_give_bounds_their_values(capsys, tmp_path):
    data, err = analyse(capsys, tmp_path, "work.f90", WORK)
    (loop,) = data["loops"]
    assert loop["iter_x"] * loop["iter_y"] * loop["sweeps"] == 1000 * 4
    assert loop["gflops"] == pytest.approx(4000 / 1e9)  # one multiply per element
    assert loop["traffic_gb"] == pytest.approx(4000 * 16 / 1e9)  # read and written: 16 B
    params = problem(data)
    assert {name: p["value"] for name, p in params.items()} == {"n": 1000, "nv": 4}
    assert params["n"]["source"].startswith("named constant at ") and \
        params["n"]["source"].endswith("work.f90:2")
    assert not any("no value" in n["message"] for n in data["notes"])  # nothing defaulted
    assert "warning" not in err


def test_named_constants_can_be_overridden(capsys, tmp_path):
    data, _ = analyse(capsys, tmp_path, "work.f90", WORK, "--set", "n=10")
    (loop,) = data["loops"]
    assert loop["gflops"] == pytest.approx(10 * 4 / 1e9)
    assert problem(data)["n"]["source"] == "--set"


def test_constants_from_modules_hosts_includes_and_expressions(capsys, tmp_path):
    (tmp_path / "sizes.h").write_text("      integer nz\n      parameter (nz = 20)\n")
    data, _ = analyse(capsys, tmp_path, "mixed.F90", """\
module grid
  integer, parameter :: nx = 30
  integer, parameter :: ny = 2*nx + 4
end module
subroutine outer(a)
  use grid
  include 'sizes.h'
  real(8) :: a(nx, ny, nz)
  call inner()
contains
  subroutine inner()
    integer :: i, j, k
    do k = 1, nz
      do j = 1, ny
        do i = 1, nx
          a(i, j, k) = a(i, j, k) + 1.0d0
        end do
      end do
    end do
  end subroutine
end subroutine
""", "-I", str(tmp_path))
    values = {name: p["value"] for name, p in problem(data).items()}
    assert values == {"nx": 30, "ny": 64, "nz": 20}  # ny = 2*30 + 4
    assert problem(data)["nz"]["source"].endswith("sizes.h:2")
    (loop,) = data["loops"]
    assert loop["gflops"] == pytest.approx(30 * 64 * 20 / 1e9)


def test_a_constant_with_different_values_is_written_into_each_procedure(capsys, tmp_path):
    data, err = analyse(capsys, tmp_path, "two.f90", """\
subroutine big(x)
  integer, parameter :: n = 1000
  real(8) :: x(n, n)
  integer :: i, j
  do j = 1, n
    do i = 1, n
      x(i, j) = x(i, j) + 1.0d0
    end do
  end do
end subroutine
subroutine small(y)
  integer, parameter :: n = 10
  real(8) :: y(n, n)
  integer :: i, j
  do j = 1, n
    do i = 1, n
      y(i, j) = y(i, j) * 2.0d0
    end do
  end do
end subroutine
""")
    gflops = {loop["procedure"]: loop["gflops"] for loop in data["loops"]}
    assert gflops == {"big": pytest.approx(1e6 / 1e9), "small": pytest.approx(100 / 1e9)}
    values = {name: p["value"] for name, p in problem(data).items()}
    assert values == {"n_big": 1000, "n_small": 10}  # one parameter each, still --set-able
    assert "named constant 'n' has different values in different procedures (1000 in 'big'; " \
           "10 in 'small')" in err


def test_a_constant_does_not_fix_another_procedures_variable(capsys, tmp_path):
    data, _ = analyse(capsys, tmp_path, "clash.f90", """\
subroutine a1(x)
  integer, parameter :: m = 5
  real(8) :: x(m, m)
  integer :: i, j
  do j = 1, m
    do i = 1, m
      x(i, j) = x(i, j) + 1.0d0
    end do
  end do
end subroutine
subroutine a2(m, y)
  integer :: m, i
  real(8) :: y(m)
  do i = 1, m
    y(i) = y(i) * 2.0d0
  end do
end subroutine
""")
    params = problem(data)
    assert (params["m_a1"]["value"], params["m"]["value"]) == (5, 128)
    assert params["m_a1"]["source"].startswith("named constant at ")
    gflops = {loop["procedure"]: loop["gflops"] for loop in data["loops"]}
    assert gflops == {"a1": pytest.approx(25 / 1e9), "a2": pytest.approx(128 / 1e9)}


# ------------------------------------------------------------------ 2. empty nests

TWO_NESTS = """\
subroutine two(n, m, a, b)
  integer :: n, m, i, j
  real(8) :: a(n, m), b(n, m)
  do j = 1, m
    do i = 1, n
      a(i, j) = a(i, j) + b(i, j) * 2.0d0
    end do
  end do
  do j = 2, m - 1
    do i = 2, n - 1
      b(i, j) = a(i - 1, j) + a(i + 1, j) + a(i, j - 1) + a(i, j + 1)
    end do
  end do
end subroutine
"""


def test_an_empty_nest_is_a_warning_with_zero_work(capsys, tmp_path):
    data, err = analyse(capsys, tmp_path, "two.f90", TWO_NESTS, "--set", "m=2",
                        "-o", str(tmp_path / "two.xlsx"))
    first, second = data["loops"]
    # first nest: n = 128 (default) by m = 2: 2 flops per point
    assert first["gflops"] == pytest.approx(128 * 2 * 2 / 1e9)
    # second nest: j = 2 .. 1 runs no iteration
    assert second["iter_y"] == 0
    for key in ("gflops", "traffic_gb", "time_s", "bytes_per_flop"):
        assert second[key] == 0, key
    assert data["totals"]["time_s"] == first["time_s"]
    assert "two.f90:9: the nest of two runs no iteration: 0 iterations along Y " \
           "(bounds depend on: m)" in err
    book = openpyxl.load_workbook(tmp_path / "two.xlsx", data_only=True)
    sheet, cell = second["cells"]["traffic_gb"].rsplit("!", 1)
    assert book[sheet.strip("'")][cell.replace("$", "")].value == 0


# ------------------------------------------------------------------ 3. descending loops


@pytest.mark.parametrize("header, trips", [
    ("do i = n, 1, -1", 128),          # n is the upper end: 128 by default
    ("do i = n - 1, 1, -1", 127),      # (1 - 127) / -1 + 1
    ("do i = n, 1, -2", 64),           # FLOOR((1 - 128) / -2) + 1 = 63 + 1
])
def test_descending_loops_start_at_their_upper_end(capsys, tmp_path, header, trips):
    data, _ = analyse(capsys, tmp_path, "back.f90", f"""\
subroutine back(n, a)
  integer :: n, i
  real(8) :: a(n)
  {header}
    a(i) = a(i) * 0.5d0
  end do
end subroutine
""")
    assert problem(data)["n"]["value"] == 128
    (loop,) = data["loops"]
    assert loop["gflops"] == pytest.approx(trips / 1e9)


# ------------------------------------------------------------------ 4. literal bounds

LITERAL_C = """\
#define N 1000000
#define NT 10
double a[N], b[N], c[N];
void kern(double s) {
  for (int k = 0; k < NT; k++)
    for (int j = 0; j < N; j++)
      a[j] = b[j] + s * c[j];
}
"""


def test_literal_bounds_of_a_large_loop_are_work(capsys, tmp_path):
    data, _ = analyse(capsys, tmp_path, "lit.c", LITERAL_C)
    (loop,) = data["loops"]
    assert (loop["sweeps"], loop["iter_x"]) == (10, 1_000_000)
    assert loop["gflops"] == pytest.approx(10 * 1e6 * 2 / 1e9)  # one add, one multiply
    # b and c read (8 B each), a written (16 B): 32 B per point, 10 sweeps of 10^6 points
    assert loop["traffic_gb"] == pytest.approx(10 * 1e6 * 32 / 1e9)
    assert loop["bytes_per_flop"] == pytest.approx(16)


def test_the_setup_threshold_is_a_setting_and_nothing_to_model_is_an_error(capsys, tmp_path):
    source = tmp_path / "lit.c"
    source.write_text(LITERAL_C)
    # 10 × (1 + 10^6) = 10,000,010 loop-body executions, fewer than 10^8
    assert main([str(source), "--json", "-", "--set", "SetupIterations=100000000"]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.startswith(f"satreport: error: {source}:5: nothing to model")
    assert "10000010 iterations, fewer than SetupIterations = 100000000" in captured.err
    assert main([str(source), "--json", "-", "--set", "SetupIterations=-3"]) == 2
    assert "whole number" in capsys.readouterr().err


def test_small_literal_loops_stay_setup_work(capsys, tmp_path):
    data, _ = analyse(capsys, tmp_path, "setup.f90", """\
subroutine setup(n, dx, dxinv, a)
  integer :: n, i
  real(8) :: dx(3), dxinv(3), a(n)
  do i = 1, 3
    dxinv(i) = 1.0d0 / dx(i)
  end do
  do i = 1, n
    a(i) = a(i) * dxinv(1)
  end do
end subroutine
""")
    assert [loop["line"] for loop in data["loops"]] == [7]
    assert any("line 4 is not modelled" in n["message"] and "3 iterations" in n["message"]
               for n in data["notes"])


# ------------------------------------------------------------------ 5. time loops


def test_a_time_loop_that_records_per_pass_stays_a_sweep(capsys, tmp_path):
    data, _ = analyse(capsys, tmp_path, "tl.c", """\
void kern(int n, int nt, double s, double *a, double *b, double *c, double t[][4]) {
  for (int k = 0; k < nt; k++) {
    for (int j = 0; j < n; j++)
      a[j] = b[j] + s * c[j];
    t[k][0] = t[k][0] + 1.0;
  }
}
""", "--set", "n=1000000", "--set", "nt=10")
    (loop,) = data["loops"]
    assert (loop["sweeps"], loop["iter_x"]) == (10, 1_000_000)
    # 10 × 10^6 × 32 B over 10 × (2 × 10^6 + 1) flops
    assert loop["traffic_gb"] == pytest.approx(0.32)
    assert loop["bytes_per_flop"] == pytest.approx(3.2e8 / (10 * (2e6 + 1)))


# ------------------------------------------------------------------ 9. consistent traffic

COPY5 = """\
subroutine copy5(nx, ny, nz, rhs, forcing)
  integer :: nx, ny, nz, i, j, k, m
  real(8) :: rhs(5, nx, ny, nz), forcing(5, nx, ny, nz)
  do k = 1, nz
    do j = 1, ny
      do i = 1, nx
        do m = 1, 5
          rhs(m, i, j, k) = forcing(m, i, j, k)
        end do
      end do
    end do
  end do
end subroutine
"""


@pytest.mark.parametrize("cache_kb", ["64", "0.01"])
def test_short_contiguous_leading_dimension_and_consistent_columns(capsys, tmp_path, cache_kb):
    data, _ = analyse(capsys, tmp_path, "copy5.f90", COPY5, "--set", "nx=10",
                      "--set", "CacheKB=" + cache_kb)
    (loop,) = data["loops"]
    # m is a component loop: the grid is 10 × 128 × 128 cells of 5 contiguous elements
    assert (loop["iter_x"], loop["iter_y"], loop["iter_z"], loop["sweeps"]) == (10, 128, 128, 1)
    # every element once: 5 × 10 × 128 × 128 × (8 B read + 16 B written)
    compulsory = 5 * 10 * 128 * 128 * 24 / 1e9
    assert loop["traffic_blocks_gb"] == pytest.approx(compulsory)
    assert loop["traffic_blocks_gb"] <= loop["traffic_gb"] * (1 + 1e-12)
    cases = {1: "planes", 2: "pencils", 3: "within", 4: "none"}
    assert loop["traffic_gb"] == pytest.approx(loop[f"traffic_{cases[loop['reuse']]}_gb"])


def test_reported_reuse_is_the_case_taken(capsys, tmp_path):
    data, _ = analyse(capsys, tmp_path, "two.f90", TWO_NESTS, "--set", "CacheKB=0.0001")
    for loop in data["loops"]:
        cases = {1: "planes", 2: "pencils", 3: "within", 4: "none"}
        assert loop["traffic_gb"] == pytest.approx(loop[f"traffic_{cases[loop['reuse']]}_gb"])
        assert loop["traffic_blocks_gb"] <= loop["traffic_gb"] * (1 + 1e-12)


# ------------------------------------------------------------------ 10. bounds assigned inside


def test_bounds_assigned_inside_the_nest_are_warned_about(capsys, tmp_path):
    _, err = analyse(capsys, tmp_path, "fft.f90", """\
subroutine stages(m, n, x, y)
  integer :: m, n, l, i, j, li, lj
  real(8) :: x(n), y(n)
  li = n / 2
  lj = 1
  do l = 1, m
    do j = 1, lj
      do i = 1, li
        y(i + (j - 1) * li) = x(i) + x(i + li)
      end do
    end do
    li = li / 2
    lj = lj * 2
  end do
end subroutine
""")
    assert "fft.f90:8: 'stages': a bound of the loop at line 8 uses 'li', which the nest " \
           "itself assigns" in err
    assert "(parameter li = 128, a default)" in err and "--set li=VALUE" in err
    assert "fft.f90:7: 'stages': a bound of the loop at line 7 uses 'lj'" in err


# ------------------------------------------------------------------ 11. warnings


def test_one_warning_per_unknown_procedure_and_kinds_grouped(capsys, tmp_path):
    calls = "\n".join(f"    call helper{k}(a)" for k in range(6))
    _, err = analyse(capsys, tmp_path, "calls.f90", f"""\
subroutine many(n, a)
  integer :: n, i
  real(8) :: a(n)
  do i = 1, n
    a(i) = a(i) + unknown_f(a(i))
  end do
  do i = 1, n
{calls}
  end do
end subroutine
""")
    lines = err.splitlines()
    assert sum("'unknown_f'" in line for line in lines) == 1  # not three
    assert sum("helper" in line for line in lines) == 4  # three shown, one summary line
    assert "… and 3 more warnings like the one above ('helper3', 'helper4', 'helper5')" in err
    assert all("'" in line for line in lines if "call" in line)  # names quoted


# ------------------------------------------------------------------ the workbook stays live


@pytest.mark.libreoffice
def test_empty_nest_and_constants_recalculate_like_set(capsys, tmp_path):
    """Recalculated as written (m = 2: an empty nest), and after editing m to 10 and the
    named constant n to 50, every cell equals what ``--set`` prints; no cell is an error."""
    from libreoffice import recalculate

    source = tmp_path / "two.f90"
    source.write_text(TWO_NESTS.replace("subroutine two(n, m, a, b)\n  integer :: n, m",
                                        "subroutine two(m, a, b)\n  integer, parameter :: "
                                        "n = 40\n  integer :: m"))
    book = tmp_path / "base.xlsx"
    assert main([str(source), "--set", "m=2", "-o", str(book), "--json",
                 str(tmp_path / "base.json")]) == 0
    base = json.loads((tmp_path / "base.json").read_text())
    cells = {p["name"]: p["cell"] for p in base["parameters"]}
    edited = tmp_path / "edited.xlsx"
    workbook = openpyxl.load_workbook(book)
    for name, value in (("m", 10), ("n", 50)):
        sheet, cell = cells[name].rsplit("!", 1)
        workbook[sheet.strip("'")][cell.replace("$", "")].value = value
    workbook.save(edited)
    capsys.readouterr()
    for path, options in zip(recalculate([book, edited], tmp_path / "out"),
                             (["--set", "m=2"], ["--set", "m=10", "--set", "n=50"]),
                             strict=True):
        expected, _ = analyse(capsys, tmp_path, "two.f90", source.read_text(), *options)
        values = openpyxl.load_workbook(path, data_only=True)
        for row in [*expected["loops"], expected["totals"]]:
            for key, address in row["cells"].items():
                sheet, cell = address.rsplit("!", 1)
                got = values[sheet.strip("'")][cell.replace("$", "")].value
                assert got == pytest.approx(row[key], rel=1e-9, abs=1e-300), (options, key)
        errors = [c.coordinate for sheet in values.worksheets for r in sheet.iter_rows()
                  for c in r if isinstance(c.value, str) and c.value.startswith("#")]
        assert errors == [], options


# ------------------------------------------------------------------ found on real codes


def test_an_array_named_like_a_procedure_is_data(capsys, tmp_path):
    data, err = analyse(capsys, tmp_path, "shadow.f", """\
      subroutine user(n, x, w)
      integer n, k
      double precision x(n), w(n)
      do 10 k = 1, n
         x(k) = 2.0d0*w(k)
   10 continue
      end
      subroutine w(m, a)
      integer m, j
      double precision a(m)
      do 20 j = 1, m
         a(j) = a(j)*a(j)/3.0d0
   20 continue
      end
""")
    user = data["loops"][0]
    assert (user["procedure"], user["multiplies"], user["calls_summary"]) == ("user", 1, "")
    assert user["gflops"] == pytest.approx(128 / 1e9)  # one multiply per element, no call
    assert user["traffic_gb"] == pytest.approx(128 * (8 + 16) / 1e9)  # w read, x written


def test_intrinsics_declared_in_a_type_statement_are_intrinsics(capsys, tmp_path):
    data, err = analyse(capsys, tmp_path, "intr.f", """\
      subroutine intr(n, x, z)
      integer n, i
      double precision x(n), z(n), dabs, dsqrt
      do 10 i = 1, n
         z(i) = dsqrt(x(i)) + dabs(x(i))
   10 continue
      end
""")
    (loop,) = data["loops"]
    assert (loop["adds"], loop["specials"]) == (1, 1)  # dsqrt a special, dabs free
    assert "unknown procedure" not in err


def test_fortran_names_that_are_python_keywords(capsys, tmp_path):
    data, _ = analyse(capsys, tmp_path, "kw.f90", """\
subroutine kw(n, is, x)
  integer :: n, is, js
  real(8) :: x(n, n)
  do js = is, n
     x(js, js) = 2.0d0 * x(js, js)
  end do
end subroutine
""", "--set", "is=29")
    (loop,) = data["loops"]
    assert loop["gflops"] == pytest.approx(100 / 1e9)  # js = 29 .. 128
    assert problem(data)["is"]["value"] == 29


def test_a_nest_of_hundreds_of_levels_stays_within_excels_formula_length(capsys, tmp_path):
    levels = "\n".join(f"    do j{k} = 1, n{k}\n      a(i) = a(i) + {k}.0d0 * a(i)\n    end do"
                       for k in range(300))
    data, _ = analyse(capsys, tmp_path, "deep.f90", f"""\
subroutine deep(a, n, {", ".join(f"n{k}" for k in range(300))})
  integer :: n, i, {", ".join(f"j{k}, n{k}" for k in range(300))}
  real(8) :: a(n)
  do i = 1, n
{levels}
  end do
end subroutine
""", "-o", str(tmp_path / "deep.xlsx"))
    (loop,) = data["loops"]
    # 300 levels of 1 add and 1 multiply, each 128 × 128 times
    assert loop["gflops"] == pytest.approx(300 * 2 * 128 * 128 / 1e9)
    book = openpyxl.load_workbook(tmp_path / "deep.xlsx")
    longest = max(len(str(c.value)) for sheet in book.worksheets for row in sheet.iter_rows()
                  for c in row if isinstance(c.value, str) and c.value.startswith("="))
    assert longest < 8192


def test_a_fixed_form_comment_ending_in_an_ampersand(capsys, tmp_path):
    data, _ = analyse(capsys, tmp_path, "amp.f", """\
c     Dept. of Physics &
c     Astronomy
      subroutine amp(n, x)
      integer n, i
      double precision x(n)
      do 10 i = 1, n
         x(i) = 2.0d0*x(i)
   10 continue
      end
""")
    assert [(loop["line"], loop["multiplies"]) for loop in data["loops"]] == [(6, 1)]
