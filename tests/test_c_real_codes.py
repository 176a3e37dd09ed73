"""C as real codes write it: linearised IDX macros, data-dependent stencils, POSIX headers.

Every expected number is worked out by hand in the comments.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sat import ir
from sat.cli import main
from sat.frontend.c import read_c

DATA = Path(__file__).resolve().parent / "data" / "c"
UPWIND = DATA / "advect_upwind.c"


def c_file(tmp_path: Path, text: str, name: str = "kernel.c") -> str:
    path = tmp_path / name
    path.write_text(text)
    return str(path)


def flops(body: ir.Body) -> tuple[int, int, int, int]:
    return body.adds, body.multiplies, body.divides, body.specials


def stencil(body: ir.Body, name: str) -> list[tuple]:
    array = next(a for a in body.arrays if a.name == name)
    return [(a.offsets, a.loopvars, a.reads, a.writes) for a in array.accesses]


def inner_loops(proc: ir.Procedure) -> list[ir.Loop]:
    return [loop for loop in proc.all_loops() if not loop.loops]


def model(capsys, source: Path | str, *sets: str) -> dict:
    args = [str(source), "--json", "-", "-q"]
    for item in sets:
        args += ["--set", item]
    assert main(args) == 0
    return json.loads(capsys.readouterr().out)


# ------------------------------------------------------------- linearised indices


def test_upwind_fixture_splits_idx_into_two_dimensions():
    prog = read_c(str(UPWIND))
    proc = prog.procedures[0]
    flux, update = inner_loops(proc)
    # Nest 1: "vol_flux > 0.0" compares reals (one add), vol_flux * density one multiply;
    # the ternary's arms j - 1 and j are integer arithmetic (free).
    assert flops(flux) == (1, 1, 0, 0)
    # IDX(j, k) = (x_max+5)*(k - (y_min-2)) + j - (x_min-2): dimension 0 is k, dimension 1
    # j, both at offset 0 (x_min-2 and y_min-2 are where the array starts, not offsets).
    assert stencil(flux, "vol_flux") == [((0, 0), ("k", "j"), 2, 0)]
    assert stencil(flux, "mass_flux") == [((0, 0), ("k", "j"), 0, 1)]
    # donor is j - 1 or j: both are stencil points, each with the read.
    assert stencil(flux, "density") == [((0, -1), ("k", "j"), 1, 0),
                                        ((0, 0), ("k", "j"), 1, 0)]
    # Nest 2: density*volume (1 multiply), + and - (2 adds), / volume (1 divide).
    assert flops(update) == (2, 1, 1, 0)
    assert stencil(update, "mass_flux") == [((0, 0), ("k", "j"), 1, 0),
                                            ((0, 1), ("k", "j"), 1, 0)]
    assert stencil(update, "volume") == [((0, 0), ("k", "j"), 2, 0)]
    assert stencil(update, "density_new") == [((0, 0), ("k", "j"), 0, 1)]
    # the row length x_max + 5 is the extent of the inner dimension: 0 .. x_max + 4
    shapes = {v.name: v.shape for v in proc.nonlocals}
    assert shapes["density"] == ("0:*", "0:x_max+4")


def test_upwind_fixture_says_what_it_assumed_once_per_array():
    prog = read_c(str(UPWIND))
    # five arrays, 13 accesses: one message per array, at its first access
    assert [(w.line, w.message.split("'")[1]) for w in prog.warnings] == [
        (22, "vol_flux"), (23, "density"), (23, "mass_flux"), (29, "volume"),
        (29, "density_new")]
    assert prog.warnings[1].message == (
        "linearised index of 'density' read as density[k][j], assuming that x_max + 5 is the "
        "extent of its inner dimension and that its part without loop variables "
        "(2 - y_min, 2 - x_min) is where the array starts, not a stencil offset (said once "
        "per array)")


@pytest.mark.parametrize(("x_max", "traffic_bytes", "flop_count", "weighted"), [
    # x_min = y_min = 1, y_max = 100, default machine (8-byte words, 64-byte lines: 8 words;
    # ReadCost 8 B, WriteCost 16 B per element; the 2-D nests reuse between planes, so every
    # array moves its block footprint once, its X extent rounded up to whole lines).
    #
    # x_max = 63. Nest 1: j = 1..64 (64), k = 1..100 (100).
    #   vol_flux  R  64 -> 64 words x 100 x 8 B  =  51,200
    #   density   R  offsets -1, 0: 65 -> 72     =  57,600
    #   mass_flux W  64 x 100 x 16 B             = 102,400     nest 1: 211,200
    # Nest 2: j = 1..63 (63 -> 64 per line), k = 1..100.
    #   density R 51,200; volume R 51,200; mass_flux R offsets 0, +1: 64 -> 64 51,200;
    #   density_new W 64 x 100 x 16 = 102,400                  nest 2: 256,000
    # total 467,200 B. Flops: 2 x 6,400 + 4 x 6,300 = 38,000; weighted (divide = 39):
    # 12,800 + (3 + 39) x 6,300 = 277,400.
    (63, 467_200, 38_000, 277_400),
    # x_max = 64. Nest 1: j = 1..65 -> 72 words: vol_flux 57,600; density 66 -> 72
    #   57,600; mass_flux 72 x 100 x 16 = 115,200                nest 1: 230,400
    # Nest 2: j = 1..64: density 51,200; volume 51,200; mass_flux 65 -> 72 57,600;
    #   density_new 102,400                                      nest 2: 262,400
    # total 492,800 B. Flops: 2 x 6,500 + 4 x 6,400 = 38,600; weighted 13,000 + 42 x 6,400
    # = 281,800.
    (64, 492_800, 38_600, 281_800),
])
def test_upwind_fixture_traffic_keeps_both_loops(capsys, x_max, traffic_bytes, flop_count,
                                                  weighted):
    data = model(capsys, UPWIND, "x_min=1", f"x_max={x_max}", "y_min=1", "y_max=100")
    assert [loop["reuse"] for loop in data["loops"]] == [1, 1]
    assert [loop["iter_y"] for loop in data["loops"]] == [100, 100]
    assert data["totals"]["traffic_gb"] == pytest.approx(traffic_bytes / 1e9, rel=1e-12)
    assert data["totals"]["gflops"] == pytest.approx(flop_count / 1e9, rel=1e-12)
    assert data["totals"]["weighted_gflops"] == pytest.approx(weighted / 1e9, rel=1e-12)


def test_donor_chosen_by_if_arms_and_derived_variables(tmp_path):
    path = c_file(tmp_path, """
#define IDX(j,k) ((nx + 4)*((k) + 2) + (j) + 2)
void f(int nx, int ny, const double *u, const double *q, double *out) {
    for (int k = 0; k < ny; k++)
        for (int j = 0; j < nx; j++) {
            int donor;
            if (u[IDX(j,k)] > 0.0)
                donor = j;
            else
                donor = j + 1;
            int behind = donor - 1;
            out[IDX(j,k)] = q[IDX(behind,k)] + q[(u[IDX(j,k)] > 0.0) ? IDX(j,k+1) : IDX(j,k)];
        }
}
""")
    prog = read_c(path)
    loop = inner_loops(prog.procedures[0])[0]
    # donor is j or j + 1 (two if arms); behind = donor - 1 is j - 1 or j. The ternary
    # subscript is row k + 1 or row k. IDX's "+ 2"s are whole numbers, so they are stencil
    # offsets like any other (only a part without loop variables that is not a number, such
    # as x_min - 2, is an origin): IDX(j,k) is (2, 2) on (k, j). q[IDX(j,k)] is reached twice
    # (behind = j, and the ternary's else arm): two reads at (2, 2).
    assert stencil(loop, "q") == [((2, 1), ("k", "j"), 1, 0), ((2, 2), ("k", "j"), 2, 0),
                                  ((3, 2), ("k", "j"), 1, 0)]
    assert stencil(loop, "out") == [((2, 2), ("k", "j"), 0, 1)]
    # nx + 4 is a row length that is not a product of names: said once per array, in the
    # order the arrays are first reached (the right-hand side before the target)
    assert [w.message.split("'")[1] for w in prog.warnings] == ["u", "q", "out"]


def test_index_variables_are_forgotten_when_changed_or_out_of_their_loop(tmp_path):
    path = c_file(tmp_path, """
void f(int n, int m, double *a, double *b) {
    int c;
    for (int j = 1; j < m; j++) {
        for (int i = 1; i < n; i++) {
            c = i + n*j;
            a[c] = b[c + n] + b[c - 1];
            c += 1;
            a[c] = 0.0;
        }
        a[c] = 1.0;
    }
}
""")
    prog = read_c(path)
    assert [str(w) for w in prog.warnings] == []
    j_loop, i_loop = list(prog.procedures[0].all_loops())
    # c = i + n*j: b[c + n] is row j + 1 (n is a whole row, a stride), b[c - 1] column i - 1
    assert stencil(i_loop, "b") == [((1, 0), ("j", "i"), 1, 0), ((0, -1), ("j", "i"), 1, 0)]
    # a[c] before "c += 1" is (0, 0); after it c is unknown: a[c] as written
    assert stencil(i_loop, "a") == [((0, 0), ("j", "i"), 0, 1), (("c",), ("",), 0, 1)]
    # after the i loop, c no longer stands for i + n*j
    assert stencil(j_loop, "a") == [(("c",), ("",), 0, 1)]


def test_three_dimensional_symbolic_strides(tmp_path):
    path = c_file(tmp_path, """
#define ID3(i,j,k) ((i) + (nx+2)*((j) + (ny+2)*(k)))
void f(int nx, int ny, int nz, const double *u, double *v) {
    for (int k = 1; k <= nz; k++)
        for (int j = 1; j <= ny; j++)
            for (int i = 1; i <= nx; i++)
                v[ID3(i,j,k)] = u[ID3(i,j,k-1)] + u[ID3(i+1,j,k)];
}
""")
    prog = read_c(path)
    loop = inner_loops(prog.procedures[0])[0]
    # strides 1, nx+2, (nx+2)*(ny+2): dimensions (k, j, i)
    assert stencil(loop, "u") == [((-1, 0, 0), ("k", "j", "i"), 1, 0),
                                  ((0, 0, 1), ("k", "j", "i"), 1, 0)]
    assert {v.name: v.shape for v in prog.procedures[0].nonlocals}["v"] == (
        "0:*", "0:ny+1", "0:nx+1")
    assert prog.warnings[0].message == (
        "linearised index of 'u' read as u[k][j][i], assuming that nx + 2, ny + 2 are the "
        "extents of its inner dimensions (said once per array)")


def test_an_index_that_cannot_be_split_is_reported_once_per_array(tmp_path):
    statements = "\n".join(f"        a[i + n*j + m*k + {d}] = a[i + n*j + m*k - {d}];"
                           for d in range(1, 12))
    path = c_file(tmp_path, f"""
void f(int n, int m, double *a) {{
    for (int k = 0; k < n; k++)
    for (int j = 0; j < n; j++)
    for (int i = 0; i < n; i++) {{
{statements}
    }}
}}
""")
    prog = read_c(path)
    # 22 accesses, one array: one message
    assert [(w.line, w.message) for w in prog.warnings] == [
        (6, "linearised index '((i + (n * j)) + (m * k)) - 1' of 'a' cannot be split into "
            "dimensions (stride m is not a multiple of n): treated as a one-dimensional "
            "access")]


# ------------------------------------------------------------- headers and types

STREAM = DATA / "stream_like.c"


def test_stream_like_benchmark_reads_as_is():
    prog = read_c(str(STREAM))
    assert [str(w) for w in prog.warnings] == []
    timer, main_proc = prog.procedures
    # (double) now.tv_sec + (double) now.tv_usec * 1.e-6: one add, one multiply; the test
    # status != 0 compares integers (free)
    assert (timer.name, flops(timer)) == ("wall_seconds", (1, 1, 0, 0))
    loops = list(main_proc.all_loops())
    # ARRAY_LENGTH 2000000: j = 0 .. 1999999; NTIMES 10: k = 0 .. 9 and k = 1 .. 9
    assert [(lp.loopvar, lp.lower, lp.upper) for lp in loops] == [
        ("j", "0", "1999999"), ("k", "0", "9"), ("j", "0", "1999999"), ("j", "0", "1999999"),
        ("j", "0", "1999999"), ("j", "0", "1999999"), ("k", "1", "9")]
    init, repeat, copy, scale, add, triad, best = loops
    # copy vc = va: none; scale vb = scalar*vc: a multiply; add vc = va + vb: an add;
    # triad va = vb + scalar*vc: an add and a multiply
    assert [flops(lp) for lp in (copy, scale, add, triad)] == [
        (0, 0, 0, 0), (0, 1, 0, 0), (1, 0, 0, 0), (1, 1, 0, 0)]
    # the four "elapsed[n][k] = wall_seconds() - elapsed[n][k]" subtract reals: four adds,
    # and eight calls to the timer
    assert flops(repeat) == (4, 0, 0, 0)
    assert [c.name for c in repeat.calls] == ["wall_seconds"] * 8
    assert stencil(triad, "va") == [((0,), ("j",), 0, 1)]
    assert [a.name for a in triad.arrays] == ["vb", "vc", "va"]
    # fmin(best, elapsed[3][k]) is one add (min of two); best is a double set from FLT_MAX
    assert flops(best) == (1, 0, 0, 0)
    assert {v.name: v.datatype for v in main_proc.locals}["j"] == "long"  # ssize_t: 8 B


def test_stream_like_benchmark_runs_from_the_command_line(capsys):
    data = model(capsys, STREAM, "Cores=1")
    # the set-up loop at line 44 runs 2,000,000 iterations: work, not set-up; the timing loop
    # at line 50 repeats its four kernels NTIMES = 10 times (elapsed[.][k] is bookkeeping):
    # each kernel is a nest of its own, swept 10 times
    assert [(loop["procedure"], loop["line"], loop["sweeps"]) for loop in data["loops"]] == [
        ("main", 44, 1), ("main", 52, 10), ("main", 57, 10), ("main", 62, 10),
        ("main", 67, 10), ("main", 72, 1)]
    # STREAM's bytes per element, with the read for ownership of the written array: copy and
    # scale 8 + 16, add and triad 8 + 8 + 16 (not the 3 x 16 of one sweep over all three)
    assert [round(loop["traffic_gb"] * 1e9 / 2e7) for loop in data["loops"][1:5]] == [
        24, 24, 32, 32]


def test_defines_size_the_stream_like_benchmark():
    prog = read_c(str(STREAM), defines=["ARRAY_LENGTH=1000", "NTIMES=3"])
    loops = list(prog.procedures[1].all_loops())
    assert [(lp.lower, lp.upper) for lp in loops[:3]] == [("0", "999"), ("0", "2"),
                                                         ("0", "999")]


@pytest.mark.parametrize(("header", "use"), [
    ("unistd.h", "ssize_t got = read(0, buf, 8); long pages = sysconf(_SC_PAGESIZE);"
                 " pid_t me = getpid(); usleep(10);"),
    ("sys/types.h", "ssize_t s = 1; off_t o = 2; size_t z = 3; pid_t p = 4; uid_t u = 5;"
                    " mode_t m = 6; time_t t = 7; suseconds_t us = 8;"),
    ("sys/time.h", "struct timeval tv; struct timezone tz; gettimeofday(&tv, &tz);"
                   " long us = tv.tv_usec;"),
    ("sys/resource.h", "struct rusage ru; getrusage(RUSAGE_SELF, &ru);"
                       " long max = ru.ru_maxrss;"),
    ("errno.h", "int e = errno == EINVAL;"),
    ("stdarg.h", "va_list ap;"),
    ("ctype.h", "int d = isdigit('1') + toupper('a');"),
    ("inttypes.h", "int64_t big = 1; const char *f = \"%\" PRId64;"),
])
def test_posix_headers_have_stand_ins(tmp_path, header, use):
    # <time.h> after <sys/types.h> checks that time_t is declared once
    path = c_file(tmp_path, f"""#include <{header}>
#include <time.h>
#include <stdio.h>
void f(int n, double *a, char *buf) {{
    {use}
    for (int i = 0; i < n; i++)
        a[i] = 0.0;
}}
""")
    prog = read_c(path)
    assert [str(w) for w in prog.warnings] == []
    assert [lp.upper for lp in prog.procedures[0].all_loops()] == ["n - 1"]


# ------------------------------------------------------------- syntax errors


def one_error(capsys, path: str, *extra: str) -> tuple[int, str]:
    status = main([path, "--json", "-", *extra])
    out, err = capsys.readouterr()
    assert out == ""
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err
    return status, err.strip()


@pytest.mark.parametrize(("text", "line", "message"), [
    # a local declaration
    ("void f(int n, double *a) {\n  my_real_t s = 0.0;\n"
     "  for (int i = 0; i < n; i++) s += a[i];\n}\n",
     2, "C syntax error before 's'"),
    # a parameter (pycparser stops at the name itself)
    ("void f(int n, my_real_t *a) {\n  for (int i = 0; i < n; i++) a[i] = 0.0;\n}\n",
     1, "C syntax error: Invalid declaration near 'my_real_t'"),
    # a static array at file scope
    ("static my_real_t a[100];\nvoid f(int n) {\n  for (int i = 0; i < n; i++) a[i] = 0.0;\n}\n",
     1, "C syntax error: Missing type in declaration near 'my_real_t'"),
    # a cast
    ("void f(int n, double *a) {\n  for (int i = 0; i < n; i++)\n"
     "    a[i] = (my_real_t) i;\n}\n",
     3, "C syntax error before 'i'"),
])
def test_unknown_type_name_suggests_a_define(capsys, tmp_path, text, line, message):
    path = c_file(tmp_path, text)
    status, err = one_error(capsys, path)
    assert status == 2
    assert err == (f"satreport: error: nothing could be analysed: {path}:{line}: {message}: "
                   "unknown type name 'my_real_t'? (define it, e.g. -D my_real_t=double)")
    # and the suggestion works
    assert main([path, "--json", "-", "-q", "-D", "my_real_t=double"]) == 0
    capsys.readouterr()


def test_syntax_errors_without_an_unknown_type_name_the_token(capsys, tmp_path):
    # size_t is a known type and n a declared variable: no suggestion
    path = c_file(tmp_path, "#include <stddef.h>\nvoid f(double *a) {\n  size_t n = 1 2;\n"
                            "  for (size_t i = 0; i < n; i++) a[i] = 0.0;\n}\n")
    assert one_error(capsys, path) == (
        2, f"satreport: error: nothing could be analysed: {path}:3: C syntax error before '2'")
    path = c_file(tmp_path, "void f(int n, double *a) {\n  for (int i = 0; i < n; i++)\n"
                            "    a[i] = 1.0 @ 2.0;\n}\n", name="at.c")
    assert one_error(capsys, path) == (
        2, f"satreport: error: nothing could be analysed: {path}:3: C syntax error: "
           "Illegal character '@'")


def test_unknown_type_in_a_pointer_declaration_that_parses_as_an_expression(tmp_path):
    # "my_real_t *p = a;" is valid C if my_real_t is a variable: (my_real_t * p) = a
    prog = read_c(c_file(tmp_path, "void f(int n, double *a) {\n  my_real_t *p = a;\n"
                                   "  for (int i = 0; i < n; i++) a[i] = 0.0;\n}\n"))
    assert [(w.line, w.message) for w in prog.warnings] == [
        (2, "assignment to 'my_real_t * p' not understood: counted as a read (unknown type "
            "name 'my_real_t'? define it, e.g. -D my_real_t=double)")]
