"""Kernel snippets in Kerncraft's style, read as they are through the command line.

A snippet is a C file with declarations and a loop nest at file level, no function around
them, and sizes (``M``, ``N``) that are declared nowhere: Kerncraft gives them with ``-D`` on
its command line, satreport turns them into problem parameters set with ``--set``.  Every
expected number below is counted by hand from the snippet's text.
"""

from __future__ import annotations

import json

import pytest

from sat.cli import main

STENCIL_3D = """\
double a[M][N][N];
double b[M][N][N];
double s;

for(int k=1; k<M-1; ++k)
    for(int j=1; j<N-1; ++j)
        for(int i=1; i<N-1; ++i)
            b[k][j][i] = ( a[k][j][i-1] + a[k][j][i+1]
                         + a[k][j-1][i] + a[k][j+1][i]
                         + a[k-1][j][i] + a[k+1][j][i]) * s;
"""

COPY = """\
double a[N], b[N];

for(int i=0; i<N; ++i)
    a[i] = b[i];
"""

# Comment lines and a pragma before the code: line numbers must still be the file's.
COMMENTED = """\
/* a comment
   over two lines */
float x[N];
#pragma omp parallel for
for(int i=1; i<N; ++i)
    x[i] = x[i-1] * y[i];
"""


def satreport(capsys, tmp_path, name: str, text: str, *sets: str) -> tuple[int, dict, str]:
    path = tmp_path / name
    path.write_text(text)
    argv = [str(path), "--json", "-", "-q"]
    for item in sets:
        argv += ["--set", item]
    status = main(argv)
    out, err = capsys.readouterr()
    return status, (json.loads(out) if status == 0 else {}), err


def problem(data: dict) -> dict[str, tuple[object, str]]:
    # C names keep their case in the code; satreport's parameter names are lower-case
    return {p["name"].upper(): (p["value"], p["source"]) for p in data["parameters"]
            if p["group"] == "problem"}


def test_3d_stencil_snippet_is_one_nest_with_its_flops_and_sizes(capsys, tmp_path):
    status, data, err = satreport(capsys, tmp_path, "3d-7pt.c", STENCIL_3D, "M=50", "N=200")
    assert status == 0, err
    (loop,) = data["loops"]
    assert loop["line"] == 5  # the k loop, the file's line 5
    # six neighbours summed: 5 additions; one multiplication by s
    assert (loop["adds"], loop["multiplies"], loop["divides"]) == (5, 1, 0)
    # i and j run from 1 to N-2: 198 iterations each; k from 1 to M-2: 48
    assert (loop["iter_x"], loop["iter_y"], loop["iter_z"]) == (198, 198, 48)
    # a is read at 6 points, b written at one; s is a scalar
    assert (loop["r_arrays"], loop["w_arrays"], loop["rw_arrays"]) == (1, 1, 0)
    # the undeclared sizes are problem parameters, set from the command line
    assert problem(data) == {"M": (50, "--set"), "N": (200, "--set")}
    assert data["warnings"] == []


def test_snippet_sizes_default_when_not_set(capsys, tmp_path):
    status, data, err = satreport(capsys, tmp_path, "3d-7pt.c", STENCIL_3D, "N=100")
    assert status == 0, err
    (value_m, source_m) = problem(data)["M"]
    assert source_m == "default"
    (loop,) = data["loops"]
    assert loop["iter_z"] == value_m - 2
    assert loop["iter_x"] == 98


def test_copy_snippet_traffic_by_hand(capsys, tmp_path):
    status, data, err = satreport(capsys, tmp_path, "copy.c", COPY, "N=1000000", "Cores=1")
    assert status == 0, err
    (loop,) = data["loops"]
    assert (loop["adds"], loop["multiplies"]) == (0, 0)
    assert loop["iter_x"] == 1_000_000
    # b read once (8 B per element), a written: its line read first, then written back
    # (16 B per element): 24 B x 10**6 = 0.024 GB, in whole 64-byte lines (10**6 / 8).
    assert loop["traffic_gb"] == pytest.approx(0.024)


def test_snippet_diagnostics_point_at_the_files_lines(capsys, tmp_path):
    status, data, err = satreport(capsys, tmp_path, "commented.c", COMMENTED, "N=64")
    assert status == 0, err
    (loop,) = data["loops"]
    assert loop["line"] == 5
    # y is used on line 6 and declared nowhere
    (warning,) = data["warnings"]
    assert warning["line"] == 6 and "'y'" in warning["message"], warning
    # x[i] and x[i-1]: x read and written
    assert loop["rw_arrays"] == 1


def test_snippet_syntax_error_is_reported_at_its_line(capsys, tmp_path):
    broken = COPY.replace("a[i] = b[i];", "a[i] = b[i] +;")
    status, _, err = satreport(capsys, tmp_path, "broken.c", broken, "N=8")
    assert status != 0
    assert "broken.c:4: C syntax error" in err


def test_sizes_differing_only_in_case_are_warned_about(capsys, tmp_path):
    # C tells N and n apart; satreport's parameters (the workbook's names) do not, so both
    # take the last --set value.  The reader must be told.
    text = "double a[N][n];\nfor(int j=0; j<N; ++j)\n    for(int i=0; i<n; ++i)\n" \
           "        a[j][i] = 0.5 * a[j][i];\n"
    status, data, err = satreport(capsys, tmp_path, "cases.c", text, "N=10")
    assert status == 0, err
    messages = [w["message"] for w in data["warnings"]]
    assert messages == ["'N' and 'n' differ only in case: satreport's parameters ignore case, "
                        "so they are one parameter (rename one of them)"]
    # two distinct names: no warning
    clean = text.replace("[n]", "[K]").replace("i<n", "i<K")
    status, data, err = satreport(capsys, tmp_path, "clean.c", clean, "N=10", "K=20")
    assert status == 0, err
    assert data["warnings"] == []
    (loop,) = data["loops"]
    assert (loop["iter_x"], loop["iter_y"]) == (20, 10)
