"""The Aspen reader on small models written here: grammar, semantics, errors, API."""

from __future__ import annotations

import math
import re
from pathlib import Path

import pytest

from sat import aspen
from sat.aspen import tree as t


def write(folder: Path, name: str, text: str) -> Path:
    path = folder / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def app_of(tmp_path: Path, text: str, name: str = "m.aspen") -> aspen.AppModel:
    return aspen.load_model(write(tmp_path, name, text))


def total(tmp_path: Path, text: str, resource: str = "flops", **params) -> float:
    return aspen.resources(app_of(tmp_path, text), params=params or None).total[resource]


def flops_model(body: str, globals_: str = "") -> str:
    return f"model m {{\n{globals_}\nkernel main {{\n{body}\n}}\n}}\n"


SIMPLE_MACHINE = """
param clock = 1 * giga
param bw = 4 * giga
param netbw = 1 * giga
machine M {
  node [nodes] N
  interconnect net
}
param nodes = 2
node N { socket [1] cpu }
socket cpu {
  core [4] c
  memory mem
}
core c {
  resource flops(n) [n / clock] with dp [base * 2], simd [base / 4], fmad [base / 2]
}
memory mem {
  resource loads(b) [b / bw] with stride [base * 2]
  resource stores(b) [b / bw]
  conflict loads, stores
}
interconnect net {
  resource messages(b) [b / netbw] with separate(k) [k * base]
}
"""


# ----------------------------------------------------------------------------------------------
# Grammar
# ----------------------------------------------------------------------------------------------


def test_the_tree_of_an_application_model():
    f = aspen.parse_text("""
// a comment
/* a block
   comment */
model demo {
  param n = 10 in 1 .. 100       // range
  enum kind { a, b }
  param k = b in kind
  param xs[] = {1, 2.5, 3e2}
  param tab[][] = {{1, 2}, {3}}
  param zs = {4, 5}
  data A [n * 8]
  data B as Matrix(n, n, 8)
  import other from "other.aspen" with n = 2*n, m = 3
  kernel work(param p, data d) {
    param local = p * 2
    execute [p] "blk" {
      loads [n] of size [8] from d as stride(1), random
      stores [local] to A
      flops [2*n] as dp, simd
    }
  }
  kernel main {
    sample x from uniform(0, 1)
    iterate i [n] "loop" { call work(i, A) }
    map [2] { call other.k() }
    par { call k1 seq { call k2 } }
    if (n > 5 and k == b) { call k1 } else if (n == 1) { call k2 } else { call k3 }
    probability { [0.25] { call k1 } [0.5] { call k2 } else { call k3 } }
    switch (k) { [a] { call k1 } else { call k2 } }
    execute named [3] { flops [1] }
  }
}
""")
    (model,) = f.items
    assert isinstance(model, t.Model) and model.name == "demo"
    params = {g.name: g for g in model.globals if isinstance(g, t.Param)}
    assert params["n"].range is not None and params["n"].value.value == 10
    assert params["k"].enum == "kind"
    assert [e.value for e in params["xs"].array] == [1, 2.5, 300]
    assert [[e.value for e in row] for row in params["tab"].table] == [[1, 2], [3]]
    assert params["zs"].kind == "array"
    data = {g.name: g for g in model.globals if isinstance(g, t.Data)}
    assert aspen.to_text(data["B"].size_expr) == "n*n*8"
    (imp,) = [g for g in model.globals if isinstance(g, t.Import)]
    assert imp.path == "other.aspen" and [n for n, _ in imp.args] == ["n", "m"]
    work, main = model.kernels
    assert [(a.kind, a.name) for a in work.args] == [("param", "p"), ("data", "d")]
    assert [x.name for x in work.locals] == ["local"]
    (block,) = work.body
    assert block.label == "blk"
    loads = block.clauses[0]
    assert (loads.resource, loads.direction, loads.data) == ("loads", "from", "d")
    assert aspen.to_text(loads.amount) == "n*8"
    assert [(tr.name, tr.arg is not None) for tr in loads.traits] == [("stride", True),
                                                                       ("random", False)]
    kinds = [type(s).__name__ for s in main.body]
    assert kinds == ["Sample", "Iterate", "Map", "Par", "If", "Probability", "Switch", "Execute"]
    assert main.body[1].counter == "i" and main.body[1].label == "loop"
    assert isinstance(main.body[4].other[0], t.If)  # else if
    assert main.body[5].other is not None and len(main.body[5].cases) == 2
    assert main.body[7].label == "named"


def test_the_tree_of_a_machine_file():
    f = aspen.parse_text(SIMPLE_MACHINE + """
include parts/more.aspen
cache c1 {
  property capacity [12 * mega]
  property shared
  static power [10]
  dynamic power [20]
  power { static [1] dynamic [2] }
}
""")
    comps = {c.name: c for c in f.components}
    assert comps["M"].kind == "machine"
    node = comps["M"].subcomponents[0]
    assert (node.kind, node.name, aspen.to_text(node.count)) == ("node", "N", "nodes")
    flops = comps["c"].resource("flops")
    assert flops.arg == "n" and [tr.name for tr in flops.traits] == ["dp", "simd", "fmad"]
    assert comps["net"].resource("messages").trait("separate").arg == "k"
    assert comps["mem"].conflicts[0].first == "loads"
    cache = comps["c1"]
    assert [p.name for p in cache.properties] == ["capacity", "shared"]
    assert [(p.kind, p.value.value) for p in cache.power] == [
        ("static", 10), ("dynamic", 20), ("static", 1), ("dynamic", 2)]
    assert [i.path for i in f.items if isinstance(i, t.Include)] == ["parts/more.aspen"]


@pytest.mark.parametrize("text, value", [
    ("-2^2", -4.0),            # unary minus binds looser than ^ (Aspen)
    ("2^3^2", 512.0),          # ^ is right-associative
    ("2^-1", 0.5),
    ("10 - 4 - 3", 3.0),
    ("12 / 3 / 2", 2.0),
    ("4/3", 4 / 3),            # doubles, not integer division
    ("-3 * 2", -6.0),
    ("1 + 2 * 3 ^ 2", 19.0),
    ("(1 + 2) * 3", 9.0),
    ("2 < 3", 1.0),
    ("2 == 3 or 3 == 3", 1.0),
    ("1 == 1 and 2 == 3", 0.0),
    ("max(1, 5) + min(2, 7)", 7.0),
    ("ceil(2.1) + floor(2.9)", 5.0),
    ("log2(8) + log(1)", 3.0),
    ("sqrt(16)", 4.0),
    ("3 * mega + 2 * kilo + 5 * nano", 3002000.000000005),
    (".5 + 1.5e1 + 2.", 17.5),
])
def test_expressions(text, value):
    assert aspen.evaluate(text) == pytest.approx(value, rel=1e-15)


def test_a_range_written_without_spaces():
    parsed = aspen.parse_text("model m { param n = 3 in 1..5 kernel main { } }")
    p = parsed.items[0].globals[0]
    assert (p.range.low.value, p.range.high.value) == (1, 5)
    # Aspen reads "1." as a number: read, with a warning
    assert [x.code for x in parsed.leniencies] == ["range-without-spaces", "empty-block"]


def test_printing_keeps_the_meaning():
    from sat.aspen.expr import ParamDef

    values = {"a": 2.0, "b": 3.0, "c": 5.0, "d": 7.0, "i": 0.0, "m.n": 4.0}
    scope = {k: ParamDef(k, "scalar", t.NOWHERE, value=t.Num(v)) for k, v in values.items()}
    scope["x"] = ParamDef("x", "array", t.NOWHERE, array=(t.Num(2.0), t.Num(3.0)))
    env = aspen.Env(scope)
    for text in ["a - (b - c)", "a / (b * c)", "-(a + b)", "(-a)^2", "-a^2", "a^b^c",
                 "(a^b)^c", "max(a, b) * ceil(c / d)", "x[i + 1]", "m.n * 2", "(a < b) == 1"]:
        expr = aspen.parse_expression(text)
        again = aspen.parse_expression(aspen.to_text(expr))
        assert env.eval(again) == env.eval(expr), text


# ----------------------------------------------------------------------------------------------
# Syntax errors
# ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize("text, where, expected", [
    ("model m {\n  param n = 10\n  kernel main { execute { flops [n * ] } }\n}\n", "3:38",
     r"expected one of '\(', '-', a name, a number, found '\]'"),
    ("model m {\n  param n = 10\n  kernel main { execute { flops [n] }\n", "3:38",
     r"expected one of '\}', .*found end of file"),
    ("model m {\n  param = 3\n}\n", "2:9", r"expected a name, found '='"),
    ("model m {\n  param n = 10 $ 3\n}\n", "2:16", r"unexpected character '\$'"),
    ("socket s { core [4] }\n", "1:21", r"expected a name, found '\}'"),
])
def test_syntax_errors_are_one_line(tmp_path, text, where, expected):
    path = write(tmp_path, "bad.aspen", text)
    with pytest.raises(aspen.AspenError) as err:
        aspen.parse_file(path)
    message = str(err.value)
    assert "\n" not in message
    assert message.startswith(f"{path}:{where}: "), message
    assert re.search(expected, message), message


# ----------------------------------------------------------------------------------------------
# What Aspen's grammar refuses (sat.aspen.conformance)
# ----------------------------------------------------------------------------------------------

KERNEL = "kernel main { execute { flops [1] } }"


@pytest.mark.parametrize("text, where, expected", [
    # every import, param, enum and data before the first kernel
    ("model m {\n  param n = 1\n  kernel k { execute { flops [n] } }\n  param late = 2\n"
     f"  {KERNEL}\n}}\n", "4:3", r"'param late' after kernel 'k': Aspen's grammar takes every "
     r"import, param, enum and data of a model before its first kernel$"),
    (f"model m {{\n  param n = 1\n  {KERNEL}\n  data a [8 * n]\n}}\n", "4:3",
     r"'data a' after kernel 'main'"),
    (f'model m {{\n  param n = 1\n  {KERNEL}\n  import o from "o.aspen"\n}}\n', "4:3",
     r"'import o' after kernel 'main'"),
    # a kernel's own param and data first, never in a nested block
    ("model m {\n  param n = 1\n  kernel main {\n    execute { flops [n] }\n"
     "    param k = 2\n  }\n}\n", "5:5", r"'param' after a statement of kernel 'main'"),
    ("model m {\n  param n = 1\n  kernel main {\n    iterate [n] { param k = 2 "
     "execute { flops [k] } }\n  }\n}\n", "4:19", r"'param' inside iterate \{ … \}"),
    # comparisons only as the condition of an if, which must be one, without parentheses
    (f"model m {{\n  param n = 1 < 2\n  {KERNEL}\n}}\n", "2:13",
     r"'<' outside an if condition"),
    ("model m {\n  param n = 1\n  kernel main {\n    if (n) { execute { flops [1] } }\n"
     "  }\n}\n", "4:9", r"an if condition without a comparison"),
    ("model m {\n  param n = 1\n  kernel main {\n    if ((n > 0) and n < 2) "
     "{ execute { flops [1] } }\n  }\n}\n", "4:9", r"a comparison in parentheses"),
    # keywords and constants are no names
    (f"model m {{\n  param size = 1\n  {KERNEL}\n}}\n", "2:9",
     r"'size' is a keyword of Aspen, not a name"),
    (f"model m {{\n  param mega = 1\n  {KERNEL}\n}}\n", "2:9",
     r"'mega' is a keyword of Aspen"),
    ("model m {\n  param n = 1\n  kernel map { execute { flops [n] } }\n}\n", "3:10",
     r"'map' is a keyword of Aspen"),
    # plain names for indices and switch; numbers in tables; arguments in parentheses
    ('model m {\n  import o from "o.aspen"\n  kernel main { execute { flops [o.x[1]] } }\n}\n',
     "3:34", r"'o\.x\[…\]': Aspen's grammar indexes a plain name"),
    (f"model m {{\n  param t[][] = {{{{1, 2}}, {{3, -4}}}}\n  {KERNEL}\n}}\n", "2:30",
     r"a table entry that is not an unsigned number"),
    ("model m {\n  param n = 1\n  kernel k() { execute { flops [n] } }\n"
     f"  {KERNEL}\n}}\n", "3:11", r"kernel 'k\(\)' declares no argument"),
    # an application file is one model and nothing else; a model has kernels
    (f"param n = 1\nmodel m {{\n  param k = 2\n  {KERNEL}\n}}\n", "1:1",
     r"'param' outside the model block"),
    ("model m {\n  param n = 1\n}\n", "1:1", r"model 'm' has no kernel"),
], ids=["param-after-kernel", "data-after-kernel", "import-after-kernel", "kernel-param-late",
        "kernel-param-nested", "comparison", "if-without-comparison", "parenthesised-comparison",
        "keyword", "constant", "keyword-kernel", "dotted-index", "table-expression",
        "empty-arguments", "outside-model", "no-kernel"])
def test_what_aspens_grammar_refuses_the_reader_refuses(tmp_path, text, where, expected):
    path = write(tmp_path, "lenient.aspen", text)
    with pytest.raises(aspen.AspenError) as err:
        aspen.parse_file(path)
    message = str(err.value)
    assert "\n" not in message
    assert message.startswith(f"{path}:{where}: "), message
    assert re.search(expected, message), message


@pytest.mark.parametrize("text, codes", [
    # the suite's exec_names.aspen and CoEVP-driver.aspen
    ("model m {\n  param n = 1\n  kernel main { execute first { flops [n] } }\n}\n",
     ["execute-name-label"]),
    (f"model m {{\n  param x = {{1, 2}}\n  {KERNEL}\n}}\n", ["array-without-brackets"]),
    # satreport's own small models
    (f"model m {{\n  {KERNEL}\n}}\n", ["model-without-declarations"]),
    ("model m {\n  param n = 1\n  kernel main { iterate [n] { } execute { } }\n}\n",
     ["empty-block", "empty-block"]),
    (f"/* a comment */\nmodel m {{\n  param n = 1\n  {KERNEL}\n}}\n", ["block-comment"]),
    ("core c { }\nsocket s { power { static [2] } core [1] c }\n",
     ["empty-component", "power-block"]),
], ids=["execute-name", "array-without-brackets", "no-declarations", "empty-blocks",
        "block-comment", "machine"])
def test_what_the_reader_accepts_beyond_aspen_is_listed(text, codes):
    parsed = aspen.parse_text(text, "lenient.aspen")
    assert [x.code for x in parsed.leniencies] == codes
    assert all(str(x).startswith("lenient.aspen:") for x in parsed.leniencies)
    with pytest.raises(aspen.AspenError, match=r"^lenient\.aspen:\d+:\d+: "):
        aspen.parse_text(text, "lenient.aspen", strict=True)


def test_what_aspen_accepts_is_read_strictly():
    text = """model m {
  import o from "o.aspen" with n = 2 * mega
  param n = 10 in 1 .. 100
  param x[] = {1, 2}
  param t[][] = {{1, 2.5}, {3, 4}}
  enum e { a, b }
  data d [n * 8]
  kernel k(param p, data q) { execute [p] "block" { flops [p] as dp } }
  kernel main {
    param local = 2
    iterate i [n] { call k(i + x[1], d) }
    if (n > 2 and n < 5 or n == 7) { execute { loads [t[1][0]] from d } } else { call k(1, d) }
    probability { [0.5] { call k(2, d) } else { call k(3, d) } }
    switch (e) { [a] { call k(local, d) } else { call k(4, d) } }
  }
}
"""
    parsed = aspen.parse_text(text, strict=True)
    assert parsed.leniencies == ()
    machine = "param c = 1 * giga\nsocket s {\n  core [4] k\n  static power [10]\n}\n" \
        "core k {\n  resource flops(n) [n / c] with dp [base * 2]\n  dynamic power [3]\n}\n"
    assert aspen.parse_text(machine, strict=True).leniencies == ()


# ----------------------------------------------------------------------------------------------
# A model without main: a library of kernels
# ----------------------------------------------------------------------------------------------


def test_a_model_without_main_times_every_kernel_own_ones_first(tmp_path, machine):
    write(tmp_path, "other.aspen", "model other {\n  param n = 50\n"
                                   "  kernel k { execute { flops [2 * n] } }\n}\n")
    app = app_of(tmp_path, 'model lib {\n  import other from "other.aspen"\n  param n = 100\n'
                           "  kernel k2 { execute { flops [n] } }\n"
                           "  kernel k1 { execute [16] { flops [n] } call other.k }\n}\n")
    assert not app.has_main
    rt = aspen.runtime(app, machine)
    assert rt.total is None  # no program to time
    # the machine has 8 cores at 1e9 flop/s each (a flop without trait: n / clock):
    # k2: ceil(1/8) * 100 / 1e9 = 1e-7 s; k1: ceil(16/8) * 100 / 1e9 + other.k = 2e-7 + 1e-7;
    # other.k: 2 * 50 flops = 1e-7 s.  The model's own kernels first, then the imported one.
    assert list(rt.kernels) == ["k2", "k1", "other.k"]
    assert rt.kernels == pytest.approx({"k2": 1e-7, "k1": 3e-7, "other.k": 1e-7}, rel=1e-12)
    counts = aspen.resources(app)
    assert counts.total == {}
    assert {name: k["flops"] for name, k in counts.kernels.items()} == {
        "k2": 100, "k1": 16 * 100 + 100, "other.k": 100}
    with pytest.raises(aspen.AspenError, match=r"m\.aspen:1:1: model 'lib' has no kernel "
                                               r"'main'$"):
        aspen.resource_expression(app, "flops")


# ----------------------------------------------------------------------------------------------
# Evaluation errors
# ----------------------------------------------------------------------------------------------


def _error(tmp_path, text, **kw) -> str:
    with pytest.raises(aspen.AspenError) as err:
        aspen.resources(app_of(tmp_path, text), **kw)
    message = str(err.value)
    assert "\n" not in message and "Traceback" not in message
    return message


def test_undefined_name(tmp_path):
    message = _error(tmp_path, flops_model("execute [n] { flops [n * q] }", "param n = 1"))
    assert re.fullmatch(r".*m\.aspen:4:26: undefined name 'q'", message)


def test_parameter_cycle_names_the_cycle(tmp_path):
    message = _error(tmp_path, flops_model(
        "execute { flops [a] }", "param a = b + 1\nparam b = c * 2\nparam c = a"))
    assert re.fullmatch(r".*m\.aspen:2:1: parameter cycle: a -> b -> c -> a", message)


def test_division_by_zero(tmp_path):
    message = _error(tmp_path, flops_model("execute { flops [10 / z] }", "param z = 0"))
    assert re.fullmatch(r".*m\.aspen:4:18: division by zero in '10 / z'", message)


def test_index_outside_an_array(tmp_path):
    message = _error(tmp_path, flops_model("execute { flops [x[3]] }", "param x[] = {1, 2, 3}"))
    assert message.endswith("index 3 is outside 'x' (3 values, indices 0 to 2)")


@pytest.mark.parametrize("body, globals_, reason", [
    ("call nothere", "", r"4:1: unknown kernel 'nothere'"),
    ("execute { flops [foo(2)] }", "", r"unknown function 'foo'"),
    ("execute { flops [max()] }", "", r"max\(\) takes at least 1 argument"),
    ("execute { flops [log(0)] }", "", r"logarithm of 0"),
    ("execute { flops [x] }", "param x[] = {1, 2}", r"'x' is an array; index it"),
    ("execute { flops [uniform(0, 1)] }", "", r"'uniform' is a distribution"),
    ("sample s from poisson(3)\nexecute { flops [s] }", "", r"cannot sample from 'poisson'"),
])
def test_other_evaluation_errors(tmp_path, body, globals_, reason):
    assert re.search(reason, _error(tmp_path, flops_model(body, globals_)))


def test_recursive_kernels(tmp_path):
    text = "model m { kernel a { call b } kernel b { call a } kernel main { call a } }"
    assert "recursive kernel calls: a -> b -> a" in _error(tmp_path, text)


def test_wrong_number_of_kernel_arguments(tmp_path):
    text = "model m { kernel k(param x) { execute { flops [x] } } kernel main { call k(1, 2) } }"
    assert "kernel 'k' takes 1 argument(s), the call gives 2" in _error(tmp_path, text)


def test_import_errors(tmp_path):
    write(tmp_path, "b.aspen", "model other { param n = 1 kernel main { } }")
    with pytest.raises(aspen.AspenError, match=r"a\.aspen:1:11: expected model 'mb' in "
                                               r"b\.aspen, found 'other'"):
        app_of(tmp_path, 'model m { import mb from "b.aspen" kernel main { } }', "a.aspen")
    with pytest.raises(aspen.AspenError, match=r"cannot find the imported file 'zz\.aspen'"):
        app_of(tmp_path, 'model m { import x from "zz.aspen" kernel main { } }', "c.aspen")
    with pytest.raises(aspen.AspenError, match=r"model 'other' has no parameter 'q' to set"):
        app_of(tmp_path, 'model m { import other from "b.aspen" with q = 1 kernel main { } }',
               "d.aspen")
    write(tmp_path, "loop.aspen", 'model loop { import loop from "loop.aspen" kernel main { } }')
    with pytest.raises(aspen.AspenError, match="import cycle"):
        aspen.load_model(tmp_path / "loop.aspen")


def test_unknown_override(tmp_path):
    assert "cannot set 'nope'" in _error(tmp_path, flops_model("execute { flops [1] }"),
                                         params={"nope": 1})


def test_machine_errors(tmp_path):
    with pytest.raises(aspen.AspenError, match=r"m\.aspen:1:33: socket 's' uses core 'c', "
                                               r"which is not defined"):
        aspen.load_machine_model(write(tmp_path, "m.aspen", "machine M { node n } socket s {"
                                                            " core [2] c }\nnode n { socket s }"))
    with pytest.raises(aspen.AspenError, match=r"'mem' is a memory, not a core"):
        aspen.load_machine_model(write(tmp_path, "k.aspen",
                                       "socket s { core mem }\nmemory mem { property x }"))
    with pytest.raises(aspen.AspenError, match="cannot find the included file 'zz.aspen'"):
        aspen.load_machine_model(write(tmp_path, "i.aspen", "include zz.aspen\n"))
    with pytest.raises(aspen.AspenError, match="holds an application model"):
        aspen.load_machine_model(write(tmp_path, "a.aspen", "model m { kernel main { } }"))


# ----------------------------------------------------------------------------------------------
# Resource counts: control flow as Aspen combines it
# ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize("body, globals_, flops", [
    ("execute [4] { flops [10] flops [5] }", "", 60),
    ("iterate [3] { execute [2] { flops [5] } }", "", 30),
    ("map [3] { execute { flops [5] } }", "", 15),
    ("par { execute { flops [1] } execute { flops [2] } } seq { execute { flops [4] } }", "", 7),
    ("iterate i [4] { execute { flops [v[i]] } }", "param v[] = {1, 10, 100, 1000}", 1111),
    ("iterate i [2.5] { execute { flops [i + 1] } }", "", 6),   # i = 0, 1, 2 (i < 2.5)
    ("probability { [0.8] { execute { flops [100] } } }", "", 80),
    ("probability { [0.3] { execute { flops [100] } } [0.5] { execute { flops [200] } } "
     "else { execute { flops [300] } } }", "", 190),
    ("if (n == 1) { execute { flops [50] } }", "param n = 5", 0),
    ("if (n - 1 == 1) { execute { flops [50] } } else if (n == 7 or n == 8) "
     "{ execute { flops [40] } } else { execute { flops [30] } }", "param n = 8", 40),
    ("switch (alg) { [pencil] { execute { flops [1] } } [slab] { execute { flops [2] } } "
     "else { execute { flops [3] } } }", "enum d { pencil, slab, block }\nparam alg = slab in d",
     2),
    ("switch (alg) { [pencil] { execute { flops [1] } } else { execute { flops [3] } } }",
     "enum d { pencil, slab, block }\nparam alg = block in d", 3),
    ("execute { flops [t[1][2]] flops [lookup(ys, xs, 15)] }",
     "param t[][] = {{1, 2}, {3, 4, 5}}\nparam ys[] = {0, 10, 30}\nparam xs[] = {0, 10, 20}", 25),
    ("execute { flops [lookup(ys, xs, 30)] }",
     "param ys[] = {0, 10, 30}\nparam xs[] = {0, 10, 20}", 50),  # extrapolated, as Aspen
])
def test_control_flow(tmp_path, body, globals_, flops):
    assert total(tmp_path, flops_model(body, globals_)) == pytest.approx(flops, rel=1e-15)


def test_samples_are_replaced_by_their_expectation(tmp_path):
    uniform = flops_model("sample x from uniform(2, 4)\nexecute [10] { flops [x] }")
    assert total(tmp_path, uniform) == 30
    cdf = flops_model("sample x from cdf(c)\nexecute { flops [v[x]] }",
                      "param c[] = {0.75, 0.8, 0.9, 1.0}\nparam v[] = {1, 2, 3, 4}")
    assert total(tmp_path, cdf) == pytest.approx(0.75 * 1 + 0.05 * 2 + 0.1 * 3 + 0.1 * 4)
    normal = flops_model("sample x from normal(5, 2)\nexecute { flops [2 * x] }")
    assert total(tmp_path, normal) == 10


def test_calls_substitute_arguments(tmp_path):
    text = """model m {
      param n = 3
      kernel k(param x) { param y = 2 * x  execute [x] { flops [y] } }
      kernel main { call k(n) call k(n + 1) }
    }"""
    app = app_of(tmp_path, text)
    r = aspen.resources(app)
    assert r.total["flops"] == 3 * 6 + 4 * 8
    assert "undefined name 'x'" in r.kernels["k"].errors["flops"]  # k alone has no x
    assert aspen.to_text(aspen.resource_expression(app, "flops")) == "n*(2*n) + (n + 1)*(2*(n + 1))"


def test_array_arguments(tmp_path):
    text = """model m {
      param xs[] = {1, 2, 3}
      param ys[] = {10, 20, 30}
      kernel k(param a, param b) { execute { flops [a[1] + lookup(b, a, 2.5)] } }
      kernel main { call k(xs, ys) }
    }"""
    assert total(tmp_path, text) == 2 + 25


def test_amounts_of_size_and_bytes(tmp_path):
    text = flops_model("execute [2] { loads [5] of size [8] stores [4] intracomm [7] as copyin }")
    r = aspen.resources(app_of(tmp_path, text))
    assert (r.total["loads"], r.total["stores"], r.total["bytes"]) == (80, 8, 88)
    assert r.total["intracomm"] == 14 and "intracomm" in r.names


def test_imports_prefix_names_and_keep_ranges(tmp_path):
    write(tmp_path, "sub/b.aspen", """model mb {
      param n = 100 in 99 .. 101
      param w = 8
      data vol [n * w]
      kernel k(param y) { execute { flops [y] loads [n] from vol } }
      kernel main { call k(w) }
    }""")
    write(tmp_path, "sub/c.aspen", 'model mc { import mb from "b.aspen" with n = n\n'
                                   'param n = 1000\nkernel k3 { call mb.main } }')
    app = app_of(tmp_path, """model ma {
      import mb from "sub/b.aspen" with n = 2 * n
      import mc from "sub/c.aspen" with n = n
      param n = 10 in 5 .. 15
      kernel main { call mb.k(n) call mc.k3 call mb.main }
    }""")
    assert list(app.params) == ["n", "mb.n", "mb.w", "mc.n", "mc.mb.n", "mc.mb.w"]
    assert list(app.kernels) == ["main", "mb.k", "mb.main", "mc.k3", "mc.mb.k", "mc.mb.main"]
    info = {p.name: p for p in aspen.parameters(app)}
    assert info["mb.n"].value == 20 and info["mb.n"].range == (99, 101)
    assert info["mc.mb.n"].value == 10 and info["mc.mb.n"].expression == "mc.n"
    r = aspen.resources(app)
    assert r.total["flops"] == 10 + 8 + 8
    # mb.k sees mb.n (= 2*n = 20) twice; mc.mb.k sees mc.mb.n (= mc.n = n = 10)
    assert r.total["loads"] == 20 + 10 + 20
    assert aspen.resources(app, params={"n": 5}).total["loads"] == 10 + 5 + 10
    assert aspen.resources(app, params={"mb.n": 99}).total["loads"] == 99 + 10 + 99
    usage = aspen.memory_usage(app)
    assert usage.data == {"mb.vol": 160, "mc.mb.vol": 80}
    assert usage.kernels["main"].inclusive == ("mb.vol", "mc.mb.vol")


def test_memory_usage(tmp_path):
    app = app_of(tmp_path, """model m {
      param n = 4
      data a as Array(n, 8)
      data b [100]
      data c as Matrix(n, n, 8)
      kernel use(data d) { execute { loads [1] from d stores [1] to c } }
      kernel main { call use(a) execute { loads [1] from b } }
    }""")
    usage = aspen.memory_usage(app)
    assert usage.total == 32 + 100 + 128
    main, use = usage.kernels["main"], usage.kernels["use"]
    assert main.exclusive == ("b",) and main.inclusive == ("a", "b", "c")
    assert (main.exclusive_bytes, main.inclusive_bytes) == (100, 260)
    assert use.exclusive_bytes is None and use.unresolved == ("d",)


# ----------------------------------------------------------------------------------------------
# Machines and runtimes
# ----------------------------------------------------------------------------------------------


@pytest.fixture
def machine(tmp_path):
    return aspen.load_machine_model(write(tmp_path, "machine.aspen", SIMPLE_MACHINE))


def test_peak_rates(machine):
    peaks = aspen.peak_rates(machine)
    assert peaks.socket == "cpu" and peaks.cores == 8
    assert peaks.flops["sp"] == pytest.approx(8e9)
    assert peaks.flops["sp/simd/fmad"] == pytest.approx(64e9)
    assert peaks.flops["dp"] == pytest.approx(4e9)
    assert peaks.bandwidth == pytest.approx(8e9)
    assert aspen.sockets(machine) == ["cpu"]


def test_runtime_overlaps_and_conflicts(tmp_path, machine):
    app = app_of(tmp_path, flops_model(
        "execute [16] { flops [4e9] as simd loads [2e9] as stride(1) stores [1e9] }"))
    rt = aspen.runtime(app, machine)
    # flops: ceil(16/8) * 4e9/1e9/4 = 2 s; loads+stores (conflict): ceil(16/2)*(1 + 0.25) = 10 s
    assert rt.total == pytest.approx(max(2.0, 8 * (2 * 2e9 / 4e9 + 1e9 / 4e9)))
    expr = aspen.to_text(aspen.runtime_expression(app, machine))
    assert expr.startswith("max(ceil(16 / (1*4*1*nodes))*(4e9 / clock / 4), ")


def test_traits_apply_in_the_clause_order_with_arguments(tmp_path, machine):
    app = app_of(tmp_path, flops_model(
        "execute { messages [1e9] as separate(3) flops [1e9] as fmad, dp }"))
    rt = aspen.runtime(app, machine)
    assert rt.total == pytest.approx(max(3.0, 1.0))
    text = aspen.to_text(aspen.runtime_expression(app, machine))
    assert "1e9 / clock / 2*2" in text  # fmad, then dp


def test_trait_without_its_argument(tmp_path, machine):
    app = app_of(tmp_path, flops_model("execute { messages [1] as separate }"))
    with pytest.raises(aspen.AspenError, match="trait 'separate' of resource 'messages' needs"):
        aspen.runtime(app, machine)


def test_control_flow_of_runtimes(tmp_path, machine):
    app = app_of(tmp_path, """model m {
      param n = 3
      kernel k { execute [8] { flops [1e9] } }
      kernel main {
        iterate [n] { call k }
        probability { [0.5] { call k } }
        if (n > 2) { call k } else { iterate [100] { call k } }
      }
    }""")
    rt = aspen.runtime(app, machine)
    assert rt.kernels["k"] == pytest.approx(1.0)
    assert rt.total == pytest.approx(3 + 0.5 + 1)
    assert aspen.runtime(app, machine, params={"n": 1}).total == pytest.approx(1 + 0.5 + 100)


def test_a_resource_the_machine_lacks(tmp_path, machine):
    app = app_of(tmp_path, flops_model("execute { flops [1] }\nexecute { intops [5] }"))
    with pytest.raises(aspen.AspenError) as err:
        aspen.runtime(app, machine)
    assert re.fullmatch(r".*m\.aspen:5:11: machine 'M' has no resource 'intops' for socket "
                        r"'cpu'", str(err.value))


def test_messages_on_a_machine_without_interconnect(tmp_path):
    lone = aspen.load_machine_model(write(tmp_path, "lone.aspen", """
machine M { node [4] N }
node N { socket [1] s }
socket s { core [2] c }
core c { resource flops(n) [n / giga] }
"""))
    app = app_of(tmp_path, flops_model("execute [8] {\n flops [1]\n messages [1e6]\n}"))
    with pytest.raises(aspen.AspenError) as err:
        aspen.runtime(app, lone)
    assert re.fullmatch(r".*m\.aspen:6:2: machine 'M' has no resource 'messages' for socket "
                        r"'s'", str(err.value))
    assert aspen.resources(app).total["messages"] == 8e6  # counting needs no machine


def test_socket_choice(tmp_path):
    two = aspen.load_machine_model(write(tmp_path, "two.aspen", """
machine M { node [1] N }
node N { socket [1] a socket [2] b }
socket a { core [1] c }
socket b { core [1] c }
core c { resource flops(n) [n] }
"""))
    app = app_of(tmp_path, flops_model("execute [2] { flops [3] }"))
    with pytest.raises(aspen.AspenError, match="several socket types; choose one of a, b"):
        aspen.runtime(app, two)
    with pytest.raises(aspen.AspenError, match="has no socket 'z'"):
        aspen.runtime(app, two, "z")
    assert aspen.runtime(app, two, "a").total == 6  # one core: two rounds of 3
    assert aspen.runtime(app, two, "b").total == 3  # two cores


def test_include_resolution(tmp_path):
    write(tmp_path, "parts/mem.aspen", "param bw = 2\nmemory mem { resource loads(b) [b / bw] }")
    write(tmp_path, "parts/fast.aspen", "include parts/mem.aspen\nparam bw = 4")
    path = write(tmp_path, "m.aspen", "include parts/fast.aspen\nmachine M { node [1] N }\n"
                                      "node N { socket [1] s }\nsocket s { memory mem }")
    mach = aspen.load_machine_model(path)
    assert [Path(f).name for f in mach.files] == ["m.aspen", "fast.aspen", "mem.aspen"]
    assert mach.params["bw"].value.value == 4  # the later definition wins


def test_load_dispatches(tmp_path, machine):
    assert isinstance(aspen.load(write(tmp_path, "a.aspen", flops_model(""))), aspen.AppModel)
    assert isinstance(aspen.load(tmp_path / "machine.aspen"), aspen.MachineModel)


def test_parameters_list(tmp_path):
    app = app_of(tmp_path, "model m {\n  param n = 8 in 2 .. 16\n  param w = n * 2\n"
                           "  enum e { x, y }\n  param pick = y in e\n  param a[] = {1, 2}\n"
                           "  kernel main { }\n}\n")
    infos = aspen.parameters(app)
    assert [(p.name, p.value, p.kind) for p in infos] == [
        ("n", 8, "scalar"), ("w", 16, "scalar"), ("x", 0, "enum value"),
        ("y", 1, "enum value"), ("pick", 1, "scalar"), ("a", (1, 2), "array")]
    n = infos[0]
    assert n.range == (2, 16) and n.line == 2 and n.file.endswith("m.aspen")
    assert infos[4].enum == ("x", "y")
    assert aspen.parameters(app, params={"n": 3})[1].value == 6


def test_expressions_are_shared_between_counts_and_formulas(tmp_path):
    app = app_of(tmp_path, flops_model("iterate [k] { execute [n] { flops [2 * n^2] } }",
                                       "param n = 4\nparam k = 3"))
    expr = aspen.resource_expression(app, "flops")
    assert aspen.to_text(expr) == "k*(n*(2*n^2))"
    assert aspen.evaluate(expr, app) == 3 * 4 * 32
    assert aspen.evaluate(expr, app, params={"k": 1}) == 128
    assert aspen.evaluate(expr, app, params={"k": "n - 2"}) == 256
    assert math.isclose(aspen.evaluate("k * n", app), 12)
