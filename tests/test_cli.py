"""The command line: outputs, exit statuses and one-line errors (DESIGN §3.1)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from sat import __version__
from sat.cli import main

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "tests" / "data" / "exasat"
FUSED = DATA / "xml" / "hypterm-cns-fused.xml"
CONFIG = DATA / "config"
LAP = ROOT / "examples" / "lap.f90"
REFERENCE_ARGS = [
    str(FUSED), "-m", str(CONFIG / "machine.xml"), "--params", str(CONFIG / "params.xml"),
    "--block-params", str(CONFIG / "block_params.xml"), "--symsubs", str(CONFIG / "symsubs.xml"),
]


def run(capsys, *argv: str) -> tuple[int, str, str]:
    status = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return status, out, err


def one_error_line(err: str) -> str:
    lines = [line for line in err.splitlines() if line.strip()]
    assert len(lines) == 1, err
    assert "Traceback" not in err
    assert lines[0].startswith("satreport: error: ")
    return lines[0]


def test_version(capsys):
    with pytest.raises(SystemExit) as stop:
        main(["--version"])
    assert stop.value.code == 0
    assert capsys.readouterr().out.strip() == f"satreport {__version__}"


def test_list_machines_names_the_default(capsys):
    status, out, _ = run(capsys, "--list-machines")
    assert status == 0
    names = [line.split()[0] for line in out.splitlines()]
    assert "exascale" in names and "exasat-reference" in names


@pytest.mark.parametrize("argv, fragment", [
    ([], "no SOURCE"),
    (["missing.f90"], "missing.f90: no such file"),
    ([str(ROOT / "pyproject.toml")], "unknown source type .toml"),
])
def test_usage_errors_are_one_line(capsys, argv, fragment):
    status, _, err = run(capsys, *argv)
    assert status == 2
    assert fragment in one_error_line(err)


def test_xml_output_holds_the_laplacian_counts(capsys, tmp_path):
    from sat.xmlio import read_program

    out = tmp_path / "lap.xml"
    status, _, _ = run(capsys, LAP, "--xml", out)
    assert status == 0
    assert not list(tmp_path.glob("*.xlsx")), "--xml alone must not write a workbook"
    innermost = list(read_program(str(out)).procedures[0].all_loops())[-1]
    # 6 neighbours summed (5 adds) + fac*centre (1 add) = 6 adds; fac*, fac2* = 2 multiplies
    assert (innermost.adds, innermost.multiplies) == (6, 2)


def reference_json(capsys, *extra: str) -> dict:
    status, out, err = run(capsys, *REFERENCE_ARGS, "--json", "-", *extra)
    assert status == 0, err
    return json.loads(out)


def test_json_reproduces_the_reference_totals(capsys):
    data = reference_json(capsys)
    assert [(lp["procedure"], lp["line"]) for lp in data["loops"]] == [
        ("advance", 43), ("hypterm", 81)]
    # hypterm.values.tsv: Total/Max Gflops 0.813694976 = 0.06291456 + 0.750780416
    assert data["totals"]["gflops"] == pytest.approx(0.813694976, rel=1e-9)
    # original traffic 0.771484375 "GBytes" of 2^30 bytes -> GB of 1e9 bytes
    assert data["totals"]["traffic_gb"] == pytest.approx(0.771484375 * 2**30 / 1e9, rel=1e-6)
    names = {p["name"] for p in data["parameters"]}
    assert {"Cores", "CacheKB", "hi_1", "lo_3", "BlockX"} <= names


def test_set_code_symbol_and_parameter_name_are_the_same(capsys):
    by_symbol = reference_json(capsys, "--set", "hi(1)=256")
    by_name = reference_json(capsys, "--set", "hi_1=256")
    assert by_symbol["totals"]["time_s"] == by_name["totals"]["time_s"]
    base = reference_json(capsys)
    # twice the cells in x: twice the flops of every nest
    assert by_name["totals"]["gflops"] == pytest.approx(2 * base["totals"]["gflops"])


@pytest.mark.parametrize("setting, fragment", [
    ("NoSuchThing=3", "NoSuchThing"),
    ("CacheKB=abc", "CacheKB"),
    ("CacheKB=0", "CacheKB"),
    ("GBsPerCore=-1", "GBsPerCore"),
    ("StreamingWrites=maybe", "StreamingWrites"),
    ("BlockX=-1", "BlockX"),
])
def test_bad_set_values_are_one_line_errors(capsys, setting, fragment):
    status, out, err = run(capsys, *REFERENCE_ARGS, "--json", "-", "--set", setting)
    assert status == 2
    assert out == ""
    assert fragment in one_error_line(err)


def test_unwritable_output_leaves_no_file(capsys, tmp_path):
    target = tmp_path / "missing-dir" / "out.xlsx"
    status, _, err = run(capsys, LAP, "-o", target)
    assert status == 2
    assert "does not exist" in one_error_line(err)
    assert not target.parent.exists()


def test_output_must_be_xlsx(capsys, tmp_path):
    status, _, err = run(capsys, LAP, "-o", tmp_path / "out.xls")
    assert status == 2
    assert ".xlsx" in one_error_line(err)
    assert list(tmp_path.iterdir()) == []


def test_broken_source_is_reported_and_the_rest_analysed(capsys, tmp_path):
    broken = tmp_path / "broken.f90"
    broken.write_text("subroutine s(a)\n  real :: a(10)\n  do i = 1, 10\n    a(i) = = 1\n"
                      "  end do\nend subroutine\n")
    status, out, err = run(capsys, broken, LAP, "--json", "-")
    assert status == 0, err
    assert "broken.f90:" in err
    assert {lp["procedure"] for lp in json.loads(out)["loops"]} == {"laplacian"}
    status, _, err = run(capsys, broken, "--json", "-")
    assert status == 2
    assert "broken.f90" in err and "Traceback" not in err


def test_console_script_runs_without_traceback(tmp_path):
    result = subprocess.run(
        [sys.executable, "-m", "sat.cli", str(tmp_path / "nothing.f90")],
        capture_output=True, text=True, timeout=60)
    assert result.returncode == 2
    assert result.stderr.strip() == f"satreport: error: {tmp_path / 'nothing.f90'}: no such file"


def test_a_small_c_run_imports_only_what_it_needs():
    """Start-up time (bench/bench_end_to_end.py): a C kernel without gathers on the default
    machine (no memory levels) reads neither PyYAML nor the gather and ECM models."""
    lazy = ("yaml", "sat.model.irregular.gathers", "sat.model.hierarchy.ecm")
    code = ("import sys; from sat.cli import main; main([{}, '-q', '--json', '/dev/null'{}]); "
            f"print(sorted(m for m in {lazy!r} if m in sys.modules))")
    for source, machine, imported in (("stencil7.c", "", []),
                                      ("spmv.c", ", '-m', 'xeon-e5-2680'", sorted(lazy[1:]))):
        done = subprocess.run(
            [sys.executable, "-c", code.format(repr(f"examples/c/{source}"), machine)],
            cwd=ROOT, capture_output=True, text=True, check=True)
        assert done.stdout.strip().splitlines()[-1] == str(imported), source


def test_a_small_c_run_imports_no_other_front_end_writer_or_error_path():
    """Start-up time (docs/performance.md): a C kernel written as JSON imports neither the
    Fortran front end (fparser, sympy), nor the other outputs' writers (workbook, HTML, XML,
    Aspen), nor what only an error or a long opaque name needs (traceback, logging, hashlib)."""
    deferred = ("fparser", "sympy", "sat.frontend.fortran", "tree_sitter", "xlsxwriter",
                "openpyxl", "jinja2", "sat.report.workbook", "sat.report.html", "sat.report.sheet",
                "sat.xmlio", "sat.report.aspen_model", "traceback", "logging", "hashlib")
    code = ("import sys; from sat.cli import main; "
            "main(['examples/c/stencil7.c', '-q', '--json', '/dev/null']); "
            f"print(sorted(m for m in {deferred!r} if m in sys.modules))")
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True,
                          text=True, check=True)
    assert done.stdout.strip().splitlines()[-1] == "[]"


def test_unknown_option_is_one_line(capsys):
    with pytest.raises(SystemExit) as stop:
        main(["--no-such-option", str(LAP)])
    assert stop.value.code == 2
    assert "--no-such-option" in one_error_line(capsys.readouterr().err)


def test_repeated_warnings_are_grouped_on_stderr_and_all_kept(capsys, tmp_path):
    import openpyxl

    source = tmp_path / "calls.f90"
    source.write_text("subroutine s(a, n)\n  integer :: n, i\n  real(8) :: a(n)\n"
                      "  do i = 1, n\n    call foo(a)\n    call foo(a)\n    call foo(a)\n"
                      "    a(i) = a(i) * 2.0d0\n  end do\nend subroutine s\n")
    book, data = tmp_path / "calls.xlsx", tmp_path / "calls.json"
    status, _, err = run(capsys, source, "-o", book, "--json", data)
    assert status == 0
    foo = [line for line in err.splitlines() if "'foo'" in line]
    assert len(foo) == 1 and foo[0].endswith("(and 2 more times)")
    assert "calls.f90:5: call to unknown procedure 'foo'" in foo[0]
    listed = [w for w in json.loads(data.read_text())["warnings"]
              if "unknown procedure 'foo'" in w["message"]]
    assert [w["line"] for w in listed] == [5, 6, 7]
    notes = openpyxl.load_workbook(book)["Notes"]
    lines = [row[2].value for row in notes.iter_rows(min_row=4)
             if row[3].value and "unknown procedure 'foo'" in row[3].value]
    assert lines == [5, 6, 7]


TILED_WIDE_STENCIL = """\
subroutine tiled(n, a, b)
  integer :: n, i, j, jt
  real(8) :: a(n, n), b(n, n)
  do jt = 4, n - 4, 4
    do j = jt, min(jt + 3, n - 4)
      do i = 1, n
        b(i, j) = a(i, j - 3) + a(i, j + 3)
      end do
    end do
  end do
end subroutine
"""


def test_a_source_tile_narrower_than_its_stencil_is_a_warning(tmp_path, capsys):
    """The code's own tiles of 4 rows read a(i, j-3) and a(i, j+3), a stencil 6 rows wide:
    the run goes on with a warning; the same block chosen with --set is the user's error."""
    source = tmp_path / "tiled.f90"
    source.write_text(TILED_WIDE_STENCIL)
    assert main([str(source), "--set", "n=1000", "-q", "--json", "-"]) == 0
    notes = json.loads(capsys.readouterr().out)["notes"]
    assert any(n["kind"] == "warning" and n["line"] == 4 and
               "block along Y (4) is narrower than the stencil (6)" in n["message"]
               for n in notes)
    assert main([str(source), "--set", "n=1000", "--set", "BlockY=4", "-q", "--json", "-"]) == 2
    assert "narrower than the stencil (6)" in capsys.readouterr().err
