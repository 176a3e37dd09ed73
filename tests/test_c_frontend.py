"""The C front end on small hand-written cases: every expected number is worked out by hand."""

from __future__ import annotations

from pathlib import Path

import pytest

from sat import ir
from sat.frontend import FrontendError, read_sources
from sat.frontend.c import CSourceError, read_c


def c_file(tmp_path: Path, text: str, name: str = "kernel.c") -> str:
    path = tmp_path / name
    path.write_text(text)
    return str(path)


def program(tmp_path: Path, text: str, name: str = "kernel.c", **kwargs) -> ir.Program:
    return read_c(c_file(tmp_path, text, name), **kwargs)


def only(tmp_path: Path, text: str, **kwargs) -> ir.Procedure:
    prog = program(tmp_path, text, **kwargs)
    assert [str(w) for w in prog.warnings] == []
    assert len(prog.procedures) == 1
    return prog.procedures[0]


def flops(body: ir.Body) -> tuple[int, int, int, int]:
    return body.adds, body.multiplies, body.divides, body.specials


def accesses(body: ir.Body, name: str) -> list[tuple]:
    array = next(a for a in body.arrays if a.name == name)
    return [(a.offsets, a.loopvars, a.reads, a.writes) for a in array.accesses]


def scalar(body: ir.Body, name: str) -> ir.Scalar:
    return next(s for s in body.scalars if s.name == name)


def innermost(proc: ir.Procedure) -> ir.Loop:
    return list(proc.all_loops())[-1]


# ----------------------------------------------------------------------------- flops


def test_compound_assignment_is_a_read_an_op_and_a_write(tmp_path):
    proc = only(tmp_path, """
void f(int n, double *a, double *b, double s) {
    for (int i = 0; i < n; i++) {
        a[i] += b[i];
        a[i] -= 2.0;
        b[i] *= s;
        b[i] /= s;
        s += 1.0;
    }
}
""")
    loop = innermost(proc)
    # += and -= are adds, *= a multiply, /= a divide, s += 1.0 one more add
    assert flops(loop) == (3, 1, 1, 0)
    assert accesses(loop, "a") == [((0,), ("i",), 2, 2)]
    assert accesses(loop, "b") == [((0,), ("i",), 3, 2)]  # read by a[i] += b[i] too
    s = scalar(loop, "s")
    assert (s.reads, s.writes, s.accesstype) == (3, 1, "readwrite")  # *=, /=, += read it
    # the target's subscript is evaluated once: i read once per reference
    assert scalar(loop, "i").reads == 5


def test_integer_arithmetic_is_free_and_mixed_is_real(tmp_path):
    proc = only(tmp_path, """
void f(int n, double *a, int *k) {
    for (int i = 0; i < n; i++) {
        int t = i * 2 + n / 3 - 1;
        k[i] = t % 4 + (t << 1);
        a[i] = t + 1.0;
        a[i] = (double) t * 2;
        k[i] += i;
    }
}
""")
    loop = innermost(proc)
    # integer lines: nothing; t + 1.0 one add; (double) t * 2 one multiply
    assert flops(loop) == (1, 1, 0, 0)


def test_float_and_double_datatypes(tmp_path):
    proc = only(tmp_path, """
void f(int n, float *x, double *y, float s) {
    for (int i = 0; i < n; i++)
        x[i] = s * x[i] + (float) y[i];
}
""")
    loop = innermost(proc)
    assert flops(loop) == (1, 1, 0, 0)
    datatypes = {a.name: a.datatype for a in loop.arrays}
    assert datatypes == {"x": "float", "y": "double"}
    assert scalar(loop, "s").datatype == "float"
    assert scalar(loop, "i").datatype == "int"


def test_pow_with_constant_exponents_and_math_functions(tmp_path):
    proc = only(tmp_path, """
#include <math.h>
void f(int n, double *a, double *b, double y) {
    for (int i = 0; i < n; i++) {
        b[i] = pow(a[i], 2);
        b[i] = pow(a[i], 3.0);
        b[i] = pow(a[i], 0.5);
        b[i] = pow(a[i], y);
        b[i] = pow(a[i], -2);
        b[i] = pow(a[i], 1);
    }
}
""")
    # pow(x,2): 1 mul; pow(x,3.0): 2 muls; pow(x,0.5) and pow(x,y): 1 special each;
    # pow(x,-2): 1 divide + 1 mul; pow(x,1): free
    assert flops(innermost(proc)) == (0, 4, 1, 2)


def test_math_library_costs(tmp_path):
    proc = only(tmp_path, """
#include <math.h>
void f(int n, double *a, float *x) {
    for (int i = 0; i < n; i++) {
        a[i] = sqrt(a[i]) + exp(a[i]) + log(a[i]);
        a[i] = fabs(a[i]) + fmax(a[i], 0.0) + fmin(a[i], 1.0);
        x[i] = sqrtf(x[i]) + expf(x[i]) + fabsf(x[i]);
        a[i] = fma(a[i], 2.0, 1.0);
        a[i] = fmod(a[i], 3.0);
    }
}
""")
    # line 1: 3 specials + 2 adds; line 2: fabs free, fmax/fmin 1 add each + 2 adds;
    # line 3: 2 specials + 2 adds; fma: 1 add 1 mul; fmod: 1 div 1 mul 1 add
    assert flops(innermost(proc)) == (2 + 4 + 2 + 1 + 1, 2, 1, 5)


def test_comparison_of_reals_is_an_add_and_branches_are_arms(tmp_path):
    proc = only(tmp_path, """
void f(int n, double *a, double *b) {
    for (int i = 0; i < n; i++) {
        if (a[i] > 0.0)
            b[i] = a[i] * 2.0;
        else if (i > 3)
            b[i] = a[i] + 1.0;
        else
            b[i] = 0.0;
    }
}
""")
    loop = innermost(proc)
    assert flops(loop) == (1, 0, 0, 0)  # a[i] > 0.0; i > 3 is an integer compare
    arms = [(b.condition, b.arm, b.arms, flops(b)) for b in loop.branches]
    assert arms == [("a[i] > 0.0", 0, 3, (0, 1, 0, 0)), ("i > 3", 1, 3, (1, 0, 0, 0)),
                    ("else", 2, 3, (0, 0, 0, 0))]
    assert accesses(loop, "a") == [((0,), ("i",), 1, 0)]  # the conditions' reads
    assert accesses(loop.branches[0], "b") == [((0,), ("i",), 0, 1)]


def test_ternary_is_two_arms(tmp_path):
    proc = only(tmp_path, """
#define MAX(x, y) ((x) > (y) ? (x) : (y))
void f(int n, double *a, double *b) {
    for (int i = 0; i < n; i++)
        b[i] = MAX(a[i], 0.0) * 3.0;
}
""")
    loop = innermost(proc)
    assert flops(loop) == (1, 1, 0, 0)  # the compare and the multiply
    assert [(b.condition, b.arm, b.arms) for b in loop.branches] == [
        ("a[i] > 0.0", 0, 2), ("else", 1, 2)]


# ----------------------------------------------------------------------------- loops


def test_loop_bounds_in_fortran_form(tmp_path):
    proc = only(tmp_path, """
void f(int n, int m, double *a) {
    int i;
    for (i = 0; i < n; i++) a[i] = 1.0;
    for (i = 1; i <= n; ++i) a[i] = 1.0;
    for (i = n - 1; i >= 0; i--) a[i] = 1.0;
    for (i = n; i > m; --i) a[i] = 1.0;
    for (i = 0; i < n; i += 4) a[i] = 1.0;
    for (i = n; i != 0; i -= 2) a[i] = 1.0;
    for (i = 2; m > i; i = i + 3) a[i] = 1.0;
}
""")
    bounds = [(lp.loopvar, lp.lower, lp.upper, lp.stride, lp.kind) for lp in proc.all_loops()]
    assert bounds == [
        ("i", "0", "n - 1", "1", "do"),    # i < n: the last i is n-1
        ("i", "1", "n", "1", "do"),
        ("i", "n - 1", "0", "-1", "do"),   # do i = n-1, 0, -1
        ("i", "n", "m + 1", "-1", "do"),   # i > m counting down: the last i is m+1
        ("i", "0", "n - 1", "4", "do"),
        ("i", "n", "1", "-2", "do"),       # i != 0 counting down by 2
        ("i", "2", "m - 1", "3", "do"),    # m > i is i < m
    ]
    assert [v.name for v in proc.locals] == ["i"]


def test_nested_imperfect_loops_count_exclusively(tmp_path):
    proc = only(tmp_path, """
void f(int n, double *a, double *b, double *s) {
    for (int j = 0; j < n; j++) {
        s[j] = s[j] * 2.0;
        for (int i = 0; i < n; i++)
            a[i] = a[i] + b[i] * s[j];
        s[j] = s[j] + 1.0;
    }
}
""")
    outer, inner = proc.all_loops()
    assert flops(outer) == (1, 1, 0, 0)
    assert flops(inner) == (1, 1, 0, 0)
    assert accesses(outer, "s") == [((0,), ("j",), 2, 2)]
    # s[j] inside the i loop does not depend on i: its loop variable is j
    assert accesses(inner, "s") == [((0,), ("j",), 1, 0)]
    assert outer.loops == [inner]


def test_loop_bounds_are_read_at_the_enclosing_level(tmp_path):
    proc = only(tmp_path, """
void f(int n, int lo, double *a) {
    for (int i = lo; i < n; i++)
        a[i] = 0.0;
}
""")
    assert (scalar(proc, "n").reads, scalar(proc, "lo").reads) == (1, 1)
    loop = innermost(proc)
    assert (scalar(loop, "i").reads, scalar(loop, "i").writes) == (1, 1)
    assert {s.name for s in loop.scalars} == {"i"}


def test_defines_are_applied(tmp_path):
    text = """
double a[N];
for (int i = 1; i < N - 1; i++)
    a[i] = a[i - 1] + a[i + 1];
"""
    proc = only(tmp_path, text, defines=["N=100"])
    loop = innermost(proc)
    assert (loop.lower, loop.upper) == ("1", "98")
    assert proc.nonlocals[0].shape == ("0:99",)
    assert accesses(loop, "a") == [((-1,), ("i",), 1, 0), ((1,), ("i",), 1, 0),
                                   ((0,), ("i",), 0, 1)]


def test_kernel_fragment_and_function_give_the_same_loop(tmp_path):
    body = """
    for (int j = 1; j < M - 1; ++j)
        for (int i = 1; i < N - 1; ++i)
            b[j][i] = (a[j][i - 1] + a[j][i + 1] + a[j - 1][i] + a[j + 1][i]) * s;
"""
    fragment = only(tmp_path, "double a[M][N], b[M][N], s;\n" + body, name="frag.c")
    function = only(tmp_path, "void sweep(int M, int N, double a[M][N], double b[M][N], "
                              "double s) {\n" + body + "}\n", name="func.c")
    assert (fragment.name, function.name) == ("frag", "sweep")
    for proc in (fragment, function):
        j, i = proc.all_loops()
        assert (j.lower, j.upper, i.lower, i.upper) == ("1", "M - 2", "1", "N - 2")
        assert flops(i) == (3, 1, 0, 0)
        assert accesses(i, "a") == [((0, -1), ("j", "i"), 1, 0), ((0, 1), ("j", "i"), 1, 0),
                                    ((-1, 0), ("j", "i"), 1, 0), ((1, 0), ("j", "i"), 1, 0)]
        assert {v.name: v.shape for v in proc.nonlocals}["a"] == ("0:M-1", "0:N-1")
    # in the fragment M and N are undeclared: integer constants, not variables
    assert [v.name for v in fragment.nonlocals] == ["a", "b", "s"]
    assert [v.name for v in function.nonlocals] == ["M", "N", "a", "b", "s"]


# ----------------------------------------------------------------------------- subscripts


def test_linearised_index_is_split_into_dimensions(tmp_path):
    proc = only(tmp_path, """
void f(int N, int M, int L, double *restrict a, const double *restrict b) {
    for (int k = 1; k < L - 1; k++)
        for (int j = 1; j < M - 1; j++)
            for (int i = 1; i < N - 1; i++)
                a[i + N*j + N*M*k] = b[(i + 1) + N*(j - 1) + N*M*k] + b[i + N*j + N*M*(k + 1)];
}
""")
    loop = innermost(proc)
    # (i+1) + N*(j-1) + N*M*k = i + N*j + N*M*k + 1 - N: offsets (0, -1, +1) on (k, j, i)
    assert accesses(loop, "b") == [((0, -1, 1), ("k", "j", "i"), 1, 0),
                                   ((1, 0, 0), ("k", "j", "i"), 1, 0)]
    assert accesses(loop, "a") == [((0, 0, 0), ("k", "j", "i"), 0, 1)]
    shapes = {v.name: v.shape for v in proc.nonlocals}
    assert shapes["a"] == ("0:*", "0:M-1", "0:N-1")


def test_linearised_index_with_numeric_strides(tmp_path):
    proc = only(tmp_path, """
void f(int m, double *a, double *b) {
    for (int j = 1; j < m; j++)
        for (int i = 1; i < NX - 1; i++)
            a[i + NX * j] = b[i - 1 + NX * (j - 1)];
}
""", defines=["NX=64"])
    loop = innermost(proc)
    # i - 1 + 64*(j - 1) = i + 64*j - 65 = (j - 1)*64 + (i - 1)
    assert accesses(loop, "b") == [((-1, -1), ("j", "i"), 1, 0)]
    assert accesses(loop, "a") == [((0, 0), ("j", "i"), 0, 1)]


def test_index_that_cannot_be_split_warns_and_stays_one_dimensional(tmp_path):
    prog = program(tmp_path, """
void f(int n, int m, double *a, double *b) {
    for (int k = 0; k < n; k++)
        for (int j = 0; j < n; j++)
            for (int i = 0; i < n; i++)
                a[i + n*j + m*k] = b[i*j];
}
""")
    messages = [str(w) for w in prog.warnings]
    assert messages == [
        f"{prog.sources[0]}:6: linearised index 'i * j' of 'b' cannot be split into dimensions "
        "('i' is multiplied by a loop variable): treated as a one-dimensional access",
        f"{prog.sources[0]}:6: linearised index '(i + (n * j)) + (m * k)' of 'a' cannot be "
        "split into dimensions (stride m is not a multiple of n): treated as a "
        "one-dimensional access"]
    loop = innermost(prog.procedures[0])
    # one-dimensional: the offset from the innermost loop variable is the rest, as text
    assert accesses(loop, "a") == [(("j*n + k*m",), ("i",), 0, 1)]
    assert accesses(loop, "b") == [(("i*j - i",), ("i",), 1, 0)]


def test_strided_and_constant_subscripts(tmp_path):
    proc = only(tmp_path, """
void f(int n, double q[][5], double *a) {
    for (int i = 0; i < n; i++)
        a[2 * i] = q[i][3] + a[2 * i + 1];
}
""")
    loop = innermost(proc)
    assert accesses(loop, "a") == [(("i + 1",), ("i",), 1, 0), (("i",), ("i",), 0, 1)]
    # q[i][3]: the constant subscript selects component "3", as q(i,3) does in Fortran
    q = next(a for a in loop.arrays if a.name == "q")
    assert (q.component, q.accesses[0].offsets, q.accesses[0].loopvars) == ("3", (0, 3),
                                                                              ("i", ""))


def test_pointer_offsets_are_subscripts(tmp_path):
    proc = only(tmp_path, """
void f(int n, double *restrict a, const double *restrict b) {
    for (int i = 0; i < n; i++)
        *(a + i + 1) = *(b + i - 2) + *b;
}
""")
    loop = innermost(proc)
    assert accesses(loop, "b") == [((-2,), ("i",), 1, 0), ((0,), ("",), 1, 0)]
    assert accesses(loop, "a") == [((1,), ("i",), 0, 1)]
    assert flops(loop) == (1, 0, 0, 0)


# ----------------------------------------------------------------------------- files


def test_include_math_with_stubs_keeps_line_numbers(tmp_path):
    prog = program(tmp_path, """#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>
#include <omp.h>

void f(int64_t n, double *a) {
#pragma omp parallel for
    for (size_t i = 0; i < n; i++)
        a[i] = sqrt(a[i]) * M_PI;
    printf("%f\\n", a[0]);
}
""")
    assert [str(w) for w in prog.warnings] == []
    proc = prog.procedures[0]
    assert proc.line == 8
    loop = innermost(proc)
    assert loop.line == 10  # line numbers refer to the original file
    assert loop.file.endswith("kernel.c")
    assert flops(loop) == (0, 1, 0, 1)  # sqrt: a special; * M_PI: a multiply
    assert proc.calls == []  # printf is a library function: neither work nor a call


def test_syntax_error_is_one_diagnostic_with_file_and_line(tmp_path):
    path = c_file(tmp_path, "#include <math.h>\ndouble a[N];\n\nfor (int i = 0; i < N; i++)\n"
                            "    a[i] = sqrt(a[i]) +;\n")
    with pytest.raises(CSourceError) as caught:
        read_c(path)
    assert str(caught.value.diagnostic) == f"{path}:5: C syntax error: Invalid expression " \
                                           "near ';'"
    with pytest.raises(FrontendError) as nothing:
        read_sources([path])
    assert str(nothing.value) == f"nothing could be analysed: {path}:5: C syntax error: " \
                                 "Invalid expression near ';'"


def test_syntax_error_in_a_function_names_its_line(tmp_path):
    path = c_file(tmp_path, "void f(double *a) {\n  int i;\n  for (i = 0; i < 10; i++) {\n"
                            "    a[i] = 1.0\n  }\n}\n")
    with pytest.raises(CSourceError) as caught:
        read_c(path)
    assert (caught.value.diagnostic.line, caught.value.diagnostic.message) == (
        5, "C syntax error before '}'")


def test_a_bad_file_does_not_stop_the_others(tmp_path):
    bad = c_file(tmp_path, "void f( {\n", name="bad.c")
    good = c_file(tmp_path, "void g(int n, double *a) { for (int i = 0; i < n; i++) "
                            "a[i] = 0.0; }\n", name="good.c")
    prog = read_sources([bad, good])
    assert [p.name for p in prog.procedures] == ["g"]
    assert len(prog.warnings) == 1 and prog.warnings[0].file == bad
    assert prog.warnings[0].line == 1


def test_preprocessor_error_and_missing_header(tmp_path):
    path = c_file(tmp_path, "#if BAD\n#error no\n#endif\nvoid f(void) {}\n")
    with pytest.raises(CSourceError) as caught:
        read_c(path, defines=["BAD=1"])
    assert (caught.value.diagnostic.line, caught.value.diagnostic.message) == (
        2, "C preprocessor: #error no")
    prog = program(tmp_path, "#include <sys/vendor_timer.h>\nvoid g(int n, double *a) {\n"
                             "  for (int i = 0; i < n; i++) a[i] = 0.0;\n}\n", name="h.c")
    assert [(w.line, w.message) for w in prog.warnings] == [
        (1, "header 'sys/vendor_timer.h' not found: treated as empty (its declarations are "
            "unknown)")]
    assert prog.procedures[0].name == "g"


def test_unsupported_constructs_warn_and_the_rest_is_analysed(tmp_path):
    prog = program(tmp_path, """
void f(int n, double *a, double s) {
    while (s > 1.0)
        s = s * 0.5;
    for (double r = 0.0; r < 1.0; r += 0.25)
        s += r;
    goto done;
done:
    for (int i = 0; i < n; i++)
        a[i] = s;
}
""")
    messages = [(w.line, w.message) for w in prog.warnings]
    assert messages == [
        (3, "while loop: trip count unknown, counted as one iteration (upper = 1)"),
        (5, "for loop over 'r', which is not an integer: trip count unknown, counted as one "
            "iteration (upper = 1)"),
        (7, "goto done: jumps are not followed (a goto loop is not seen as a loop); "
            "statements are counted once, as written"),
    ]
    loops = list(prog.procedures[0].all_loops())
    assert [(lp.kind, lp.upper) for lp in loops] == [("while", "1"), ("while", "1"),
                                                     ("do", "n - 1")]
    # while: s > 1.0 (1 add) and s * 0.5; the r loop: r < 1.0, r += 0.25, s += r
    assert flops(loops[0]) == (1, 1, 0, 0)
    assert flops(loops[1]) == (3, 0, 0, 0)


def test_calls_user_and_unknown(tmp_path):
    prog = program(tmp_path, """
double twice(double x) { return 2.0 * x; }
void f(int n, double *a, double *b) {
    for (int i = 0; i < n; i++) {
        a[i] = twice(b[i]);
        external_update(a, n);
    }
}
""")
    assert [(w.line, w.message) for w in prog.warnings] == [
        (6, "call to unknown function 'external_update': it costs "
            "CallFlops_external_update flops per call (a parameter, 0 unless set), its array "
            "arguments are assumed read and written")]
    twice, f = prog.procedures
    assert (twice.name, flops(twice)) == ("twice", (0, 1, 0, 0))
    loop = innermost(f)
    assert [(c.name, c.line, c.args) for c in loop.calls] == [("twice", 5, ["b[i]"]),
                                                             ("external_update", 6, ["a", "n"])]
    assert accesses(loop, "a") == [((0,), ("i",), 0, 1), ((":",), ("",), 1, 1)]
    assert flops(loop) == (0, 0, 0, 0)


def test_locals_and_nonlocals(tmp_path):
    prog = program(tmp_path, """
double g[100];
static const double scale = 0.5;
void f(int n, const double *restrict x) {
    double t[4];
    for (int i = 0; i < n; i++) {
        double u = x[i] * scale;
        g[i] = u;
    }
}
""")
    proc = prog.procedures[0]
    assert [(v.name, v.datatype, v.shape, v.intent) for v in proc.nonlocals] == [
        ("n", "int", (), ""), ("x", "double", ("0:*",), "in"), ("scale", "double", (), ""),
        ("g", "double", ("0:99",), "")]
    assert [(v.name, v.shape) for v in proc.locals] == [("t", ("0:3",)), ("i", ()), ("u", ())]
    loop = innermost(proc)
    assert scalar(loop, "scale").is_constant


def test_every_procedure_is_row_major(tmp_path):
    prog = program(tmp_path, "void a(void) {}\nvoid b(int n, double *x) "
                             "{ for (int i = 0; i < n; i++) x[i] = 0; }\n")
    assert [(p.name, p.layout) for p in prog.procedures] == [("a", "row-major"),
                                                             ("b", "row-major")]


def test_switch_arms_struct_members_and_user_headers(tmp_path):
    include = tmp_path / "inc"
    include.mkdir()
    (include / "grid.h").write_text("#define NG 2\nstruct grid { double *u; double h; };\n")
    proc = only(tmp_path, """#include "grid.h"
void f(int n, struct grid *g, double *a) {
    for (int i = NG; i < n - NG; i++) {
        switch (i % 3) {
        case 0: a[i] = g->h * 2.0; break;
        case 1: a[i] = g->u[i] + 1.0; break;
        }
    }
}
""", include_dirs=[str(include)])
    loop = innermost(proc)
    assert (loop.lower, loop.upper, loop.line) == ("2", "n - 3", 3)
    assert [(b.condition, b.arm, b.arms, flops(b)) for b in loop.branches] == [
        ("case 0", 0, 3, (0, 1, 0, 0)), ("case 1", 1, 3, (1, 0, 0, 0))]
    assert scalar(loop.branches[0], "g->h").reads == 1
    assert accesses(loop.branches[1], "g->u") == [((0,), ("i",), 1, 0)]
