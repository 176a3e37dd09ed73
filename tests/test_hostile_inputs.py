"""Inputs written to probe the readers' limits: each ends with exit status 0 or 2 and one line.

One test class per kind of hostile input: typed YAML values, names that hold line breaks,
errors that know their place, huge numbers, invalid Aspen, deep structures, exponential
references, sweeps that overflow, evolution strategies that would never stop.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from sat.cli import main

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"
KERNCRAFT = ROOT / "tests" / "data" / "machines" / "toy-one-cache.yaml"
PLANNER = EXAMPLES / "scenarios" / "machine-planner.yaml"


def run(capsys, *args: str) -> tuple[int, str, str]:
    """Exit status, standard output and standard error of one run of the command line."""
    status = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return status, out, err


def error_line(capsys, *args: str) -> str:
    """The one line a refused run prints (exit status 2), without its 'satreport: error: '."""
    status, _out, err = run(capsys, *args)
    assert status == 2, err
    lines = err.splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("satreport: error: ")
    return lines[0][len("satreport: error: "):]


def aspen(tmp_path: Path, body: str, name: str = "m.aspen") -> Path:
    path = tmp_path / name
    path.write_text(body, encoding="utf-8")
    return path


# ---------------------------------------------------------------- 1. typed YAML values


class TestTypedYamlValues:
    @pytest.mark.parametrize("value, shown", [
        ("!!float abc", "'abc' is not a valid !!float value"),
        ("!!int abc", "'abc' is not a valid !!int value"),
        ("!!bool maybe", "'maybe' is not a valid !!bool value"),
        ('!!int ""', "'' is not a valid !!int value"),
    ])
    def test_a_tag_its_value_cannot_have_is_an_error_at_its_line(self, capsys, tmp_path,
                                                                 value, shown):
        scenario = tmp_path / "s.yaml"
        # line 14: after the 13 lines of the planner
        scenario.write_text(PLANNER.read_text() + f"time_limit_s: {value}\n")
        line = error_line(capsys, EXAMPLES / "triad.f90", "--scenario", scenario,
                          "--json", tmp_path / "o.json")
        assert line.startswith(f"{scenario}:14: {shown}")

    @pytest.mark.parametrize("reader", ["machine", "idioms", "accelerator"])
    def test_every_yaml_reader_refuses_them(self, capsys, tmp_path, reader):
        path = tmp_path / "f.yaml"
        path.write_text("a: 1\nb: !!float x1\n")
        option = {"machine": "-m", "idioms": "--idioms", "accelerator": "--accelerator"}[reader]
        line = error_line(capsys, EXAMPLES / "lap.f90", option, path, "--json",
                          tmp_path / "o.json")
        assert line.startswith(f"{path}:2: 'x1' is not a valid !!float value")

    def test_yaml_spellings_of_numbers_still_read(self, tmp_path):
        from sat.safeyaml import read_yaml

        path = tmp_path / "n.yaml"
        path.write_text("a: !!int 0x1f\nb: 1_000\nc: !!float .inf\nd: !!bool yes\n")
        data = read_yaml(path, "n.yaml", ValueError, "numbers")
        assert data == {"a": 31, "b": 1000, "c": float("inf"), "d": True}


# ---------------------------------------------------------------- 8. one-line errors


class TestOneLineErrors:
    NAME = "a\nb"

    @pytest.mark.parametrize("args, start", [
        (["--socket", NAME], "--socket 'a\\nb': "),
        (["--set", f"n={NAME}"], "--set 'n=a\\nb': "),
        (["--set", f"{NAME}=3"], "--set 'a\\nb=3': "),
        (["--sweep", f"{NAME}=1..3"], "--sweep 'a\\nb=1..3': "),
        (["-m", NAME], "'a\\nb': no such machine"),
        (["--accelerator", NAME], "--accelerator 'a\\nb': "),
    ])
    def test_a_name_with_a_line_break_is_echoed_quoted(self, capsys, tmp_path, args, start):
        line = error_line(capsys, EXAMPLES / "lap.f90", *args, "--json", tmp_path / "o.json")
        assert line.startswith(start)

    def test_a_source_named_with_a_line_break(self, capsys, tmp_path):
        assert error_line(capsys, f"{tmp_path}/{self.NAME}.f90") == \
            f"'{tmp_path}/a\\nb.f90': no such file"

    def test_a_warning_about_a_name_is_one_line(self, capsys, tmp_path):
        status, _out, err = run(capsys, EXAMPLES / "lap.f90", "--functions",
                                f"laplacian,{self.NAME}", "--json", tmp_path / "o.json")
        assert status == 0
        assert "satreport: warning: procedure 'a\\nb' not found in the sources" in \
            err.splitlines()

    def test_a_nested_list_in_an_idiom_file(self, capsys, tmp_path):
        idioms = tmp_path / "i.yaml"
        idioms.write_text("version: 1\nidioms:\n  mine:\n    subscripts: {some: [[loop]]}\n")
        line = error_line(capsys, EXAMPLES / "lap.f90", "--idioms", idioms)
        assert line.startswith(f"{idioms}:4: idiom 'mine': subscripts: some: expected a kind")

    def test_a_bad_escape_in_an_aspen_label(self, capsys, tmp_path):
        model = aspen(tmp_path, 'model m {\n  param n = 10\n'
                      '  kernel main { execute "\\x" { flops [n] } }\n}\n')
        assert error_line(capsys, model) == \
            f'{model}:3:25: bad escape in the string "\\x": truncated \\xXX escape'


# ---------------------------------------------------------------- 9. the place in messages


class TestMessagesWithThePlace:
    def test_a_kerncraft_clock_beyond_a_double(self, capsys, tmp_path):
        machine = tmp_path / "k.yml"
        text = KERNCRAFT.read_text()
        assert "\nclock: 1.5 GHz\n" in text  # line 13
        machine.write_text(text.replace("\nclock: 1.5 GHz\n", "\nclock: 1e400 GHz\n"))
        assert error_line(capsys, EXAMPLES / "lap.f90", "-m", machine) == \
            f"{machine}:13: clock: expected the core clock, e.g. '2.7 GHz', got '1e400 GHz'"

    def test_an_accelerator_value_that_is_not_finite(self, capsys, tmp_path):
        from sat.machine.accelerators import DATA

        device = tmp_path / "a.yaml"
        text = (DATA / "hc1.yaml").read_text()
        assert "\n  AccGBs: {value: 80," in text  # line 15
        device.write_text(text.replace("AccGBs: {value: 80,", "AccGBs: {value: .nan,"))
        assert error_line(capsys, EXAMPLES / "lap.f90", "--accelerator", device) == \
            f"{device}:15: AccGBs: nan is not a finite number"

    @pytest.mark.parametrize("value", ["nan", ".nan", "1e400", "abc"])
    def test_a_scenario_set_value_at_its_line(self, capsys, tmp_path, value):
        scenario = tmp_path / "s.yaml"
        text = PLANNER.read_text()
        assert text.endswith("set:\n  n: 1e9\n")  # n on line 13
        scenario.write_text(text.replace("  n: 1e9\n", f"  n: {value}\n"))
        line = error_line(capsys, EXAMPLES / "triad.f90", "--scenario", scenario)
        assert line.startswith(f"{scenario}:13: set: n: expected a finite number, got ")

    def test_a_byte_order_mark_is_read_by_every_reader(self, capsys, tmp_path):
        bom = b"\xef\xbb\xbf"
        model = tmp_path / "stencil.aspen"
        model.write_bytes(bom + (EXAMPLES / "aspen" / "stencil.aspen").read_bytes())
        machine = tmp_path / "one_socket.aspen"
        machine.write_bytes(bom + (EXAMPLES / "aspen" / "one_socket.aspen").read_bytes())
        plain = tmp_path / "plain.json"
        assert main([str(EXAMPLES / "aspen" / "stencil.aspen"), "-m",
                     str(EXAMPLES / "aspen" / "one_socket.aspen"), "--json", str(plain)]) == 0
        marked = tmp_path / "marked.json"
        assert main([str(model), "-m", str(machine), "--json", str(marked)]) == 0
        capsys.readouterr()
        assert json.loads(marked.read_text())["totals"]["time_s"] == \
            json.loads(plain.read_text())["totals"]["time_s"]
        source = tmp_path / "lap.f90"
        source.write_bytes(bom + (EXAMPLES / "lap.f90").read_bytes())
        kerncraft = tmp_path / "k.yml"
        kerncraft.write_bytes(bom + KERNCRAFT.read_bytes())
        assert main([str(source), "-m", str(kerncraft), "--json", str(marked), "-q"]) == 0

    @pytest.mark.parametrize("statement, kind", [
        ('model m {\n  import x from "{secret}"\n  param n = 1\n'
         '  kernel main { execute { flops [n] } }\n}\n', "imported"),
        ("include {secret}\nmachine M { node [1] n }\n", "included")])
    def test_a_file_outside_the_folder_is_not_quoted(self, capsys, tmp_path, statement, kind):
        secret = tmp_path / "secret.txt"
        secret.write_text("password: hunter2\n")
        folder = tmp_path / "model"
        folder.mkdir()
        model = aspen(folder, statement.replace("{secret}", str(secret)))
        args = [model] if kind == "imported" else [EXAMPLES / "aspen" / "stencil.aspen", "-m",
                                                   model]
        line = error_line(capsys, *args)
        assert "hunter2" not in line and "password" not in line
        place = "2:3" if kind == "imported" else "1:1"
        assert line == (f"{model}:{place}: the {kind} file {secret}, outside the model's "
                        "folder, is not an Aspen model (line 1)")


# ---------------------------------------------------------------- 2. huge numbers


class TestHugeNumbers:
    def test_a_5000_digit_integer_in_a_yaml_file(self, capsys, tmp_path):
        # beyond Python's 4,300-digit int-to-text limit: refused before it is converted
        machine = tmp_path / "k.yml"
        text = KERNCRAFT.read_text()
        assert "\ncores per socket: 2\n" in text  # line 14
        machine.write_text(text.replace("\ncores per socket: 2\n",
                                        "\ncores per socket: 1" + "0" * 4999 + "\n"))
        assert error_line(capsys, EXAMPLES / "lap.f90", "-m", machine) == \
            f"{machine}:14: a whole number of 5000 digits: out of range (at most about " \
            "1.8e308): expected a YAML machine file"

    def test_an_integer_just_beyond_a_double(self, capsys, tmp_path):
        # 2**1024 has 309 digits, fewer than the digit limit: refused by its value
        machine = tmp_path / "k.yml"
        machine.write_text(KERNCRAFT.read_text().replace(
            "\ncores per socket: 2\n", f"\ncores per socket: {2**1024}\n"))
        line = error_line(capsys, EXAMPLES / "lap.f90", "-m", machine)
        assert line.startswith(f"{machine}:14: '1797693134862315907729305190789")
        assert line.endswith("out of range (at most about 1.8e308): expected a YAML machine "
                             "file")

    @pytest.mark.parametrize("literal, shown", [
        ("1" + "0" * 400, "'1" + "0" * 36 + "…'"), ("1e400", "'1e400'"), ("2.5e308", "'2.5e308'")])
    def test_an_aspen_literal_beyond_a_double(self, capsys, tmp_path, literal, shown):
        model = aspen(tmp_path, f"model m {{\n  param n = {literal}\n"
                      "  kernel main { execute { flops [n] } }\n}\n")
        assert error_line(capsys, model) == \
            f"{model}:2:13: the number {shown} is out of range (at most about 1.8e308)"

    def test_a_set_value_whose_model_overflows_names_the_nest(self, capsys, tmp_path):
        # stencil7.c's nest at line 16 sweeps nx*ny*nz = 1e900 points: beyond a double; its
        # sums once raised "-inf + inf in fsum"
        line = error_line(capsys, EXAMPLES / "c" / "stencil7.c", "--set", "nx=1e300",
                          "--set", "ny=1e300", "--set", "nz=1e300", "--json", tmp_path / "o")
        assert line.startswith(f"{EXAMPLES / 'c' / 'stencil7.c'}:16: ")
        assert ", beyond the range of a double, and total Total_Time_s is " in line
        assert not (tmp_path / "o").exists()

    def test_a_large_but_finite_model_still_runs(self, capsys, tmp_path):
        # lap.f90 with hi(1) = 1e300: 1e300 * 128 * 128 points, 8 flops each (6 adds, 2
        # multiplies): 1.31072e305 flops = 1.31072e296 Gflop, finite: an answer, not an error
        out = tmp_path / "o.json"
        status, _out, _err = run(capsys, EXAMPLES / "lap.f90", "--set", "hi_1=1e300",
                                 "--json", out)
        assert status == 0
        assert json.loads(out.read_text())["totals"]["gflops"] == pytest.approx(1.31072e296)

    def test_nested_aspen_iterations_beyond_a_double(self, capsys, tmp_path):
        # 1e300 * 1e300 * 10 flops: the workbook has no literal for it, and the run says so
        model = aspen(tmp_path, "model m {\n  param n = 10\n  kernel main {\n"
                      "    iterate [1e300] { iterate [1e300] { execute { flops [n] } } }\n"
                      "  }\n}\n")
        for output, name in (("-o", "out.xlsx"), ("--json", "out.json")):
            assert error_line(capsys, model, output, tmp_path / name) == \
                f"{model}:3: flops of kernel main is inf, beyond the range of a double, and " \
                "total Total_Time_s is inf; give smaller parameter values"
            assert not (tmp_path / name).exists()


# ---------------------------------------------------------------- 7. invalid Aspen


class TestInvalidAspen:
    @pytest.mark.parametrize("body, message", [
        # a division by zero: in a clause, in a dependent parameter at the values given
        ("kernel main { execute { flops [1/0] } }", "3:34: division by zero in '1 / 0'"),
        ("param r = 1/(n-10)\n  kernel main { execute { flops [r] } }",
         "3:13: division by zero in '1 / (n - 10)'"),
        ("param r = 1/(n-10)\n  kernel main { execute { flops [n] } }",
         "3:13: division by zero in '1 / (n - 10)'"),
        # negative counts and probabilities outside 0..1
        ("kernel main { execute { flops [0-5] } }", "3:27: flops [0 - 5] is -5: expected 0 or "
         "more"),
        ("kernel main { execute [0-2] { flops [n] } }", "3:17: execute [0 - 2] is -2: expected "
         "0 or more"),
        ("kernel main { iterate [n-13] { execute { flops [n] } } }", "3:17: iterate [n - 13] is "
         "-3: expected 0 or more"),
        ("kernel main { probability { [0-0.5] { execute { flops [n] } } } }",
         "3:31: probability [0 - 0.5] is -0.5: expected 0 to 1"),
        ("kernel main { probability { [1.5] { execute { flops [n] } } } }",
         "3:31: probability [1.5] is 1.5: expected 0 to 1"),
        # a negative argument reaches a count through a call: refused at the count
        ("kernel k(param m) { iterate [m] { execute { flops [1] } } }\n"
         "  kernel main { call k(0-n) }", "3:23: iterate [0 - n] is -10: expected 0 or more"),
    ])
    def test_refused_at_its_place(self, capsys, tmp_path, body, message):
        model = aspen(tmp_path, f"model m {{\n  param n = 10\n  {body}\n}}\n")
        assert error_line(capsys, model, "--json", tmp_path / "o.json") == f"{model}:{message}"
        from sat import aspen as library

        # the library says the same: in a parameter's error, or raised by the counts
        app = library.load_model(model)
        errors = [p.error for p in library.parameters(app) if p.error]
        try:
            library.resources(app)
        except library.AspenError as err:
            errors.append(str(err))
        assert any(e.endswith(message.split(": ", 1)[1]) for e in errors)

    def test_a_negative_set_value_is_refused_at_the_count(self, capsys, tmp_path):
        stencil = EXAMPLES / "aspen" / "stencil.aspen"
        assert "iterate [nsteps]" in stencil.read_text().splitlines()[23]  # line 24
        assert error_line(capsys, stencil, "--set", "nsteps=-3") == \
            f"{stencil}:24:5: iterate [nsteps] is -3: expected 0 or more"

    def test_a_branch_not_taken_may_hold_a_negative_count(self, capsys, tmp_path):
        # n = 0: the iterate [n - 1] of the branch not taken counts nothing: 0 flops
        model = aspen(tmp_path, "model m {\n  param n = 0\n  kernel main {\n"
                      "    if (n > 0) { iterate [n-1] { execute { flops [n] } } }\n"
                      "    execute { flops [7] }\n  }\n}\n")
        out = tmp_path / "o.json"
        status, _out, _err = run(capsys, model, "--json", out)
        assert status == 0
        assert json.loads(out.read_text())["aspen"]["resources"]["flops"] == 7


# ---------------------------------------------------------------- 3. deep structures


def _app(tmp_path: Path, body: str) -> Path:
    return aspen(tmp_path, f"model m {{\n  param n = 10\n  kernel k {{ execute {{ flops [n] }} }}"
                 f"\n  kernel main {{\n{body}\n  }}\n}}\n")


class TestDeepStructures:
    @pytest.mark.parametrize("body, flops", [
        # 500 statements in a row: 500 x 10 flops
        ("\n".join("    execute { flops [n] }" for _ in range(500)), 5000),
        # 500 calls of k (10 flops each)
        ("\n".join("    call k()" for _ in range(500)), 5000),
        # a 20,000-term sum: 20,000 x 10
        ("    execute { flops [" + "+".join(["n"] * 20000) + "] }", 200000),
        # a 600-term product of ones, times n
        ("    execute { flops [n*" + "*".join(["1"] * 600) + "] }", 10),
        # a counter over 2,000 iterations: 2,000 x 10
        ("    iterate i [2000] { execute { flops [n] } }", 20000),
    ])
    def test_long_sequences_are_no_nesting(self, capsys, tmp_path, body, flops):
        out = tmp_path / "o.json"
        status, _out, err = run(capsys, _app(tmp_path, body), "--json", out)
        assert status == 0, err
        assert json.loads(out.read_text())["aspen"]["resources"]["flops"] == flops

    @pytest.mark.parametrize("body", [
        "    execute { flops [" + "-" * 20000 + "n] }",
        "    " + "iterate [2] {" * 3000 + " execute { flops [n] } " + "}" * 3000,
        "    if (n > 0) { execute { flops [n] } }" + "".join(
            f" else if (n > {i}) {{ execute {{ flops [n] }} }}" for i in range(3000)),
        "    execute { flops [" + "(" * 5000 + "n" + ")" * 5000 + "] }",
    ])
    def test_nesting_beyond_the_limit_is_an_error_at_its_place(self, capsys, tmp_path, body):
        from sat.aspen.parser import MAX_NESTING

        model = _app(tmp_path, body)
        line = error_line(capsys, model)
        assert line.startswith(f"{model}:5:")  # the body's line
        assert line.endswith(f": nested deeper than {MAX_NESTING} levels (blocks, parentheses, "
                             "operators): simplify the model")

    def test_nesting_within_the_limit_reads(self, capsys, tmp_path):
        # 20 nested iterate [2]: 2^20 x 10 flops
        model = _app(tmp_path, "    " + "iterate [2] {" * 20 + " execute { flops [n] } "
                     + "}" * 20)
        out = tmp_path / "o.json"
        assert run(capsys, model, "--json", out)[0] == 0
        assert json.loads(out.read_text())["aspen"]["resources"]["flops"] == 10 * 2**20

    def test_a_scenario_objective_of_3000_terms(self, capsys, tmp_path):
        # 3,000 x GBsPerCore at the planner's optimum, 3.2 GB/s (README): 9,600
        scenario = tmp_path / "s.yaml"
        scenario.write_text(PLANNER.read_text().replace(
            "objective: minimize GBsPerCore",
            "objective: minimize " + " + ".join(["GBsPerCore"] * 3000)))
        out = tmp_path / "o.json"
        status, _out, err = run(capsys, EXAMPLES / "triad.f90", "--scenario", scenario,
                                "--json", out)
        assert status == 0, err
        assert json.loads(out.read_text())["scenario"]["optimum"]["GBsPerCore"] == \
            pytest.approx(3.2, rel=1e-6)

    def test_a_scenario_objective_nested_100000_deep(self, capsys, tmp_path):
        from sat.explore.expression import MAX_NESTING

        scenario = tmp_path / "s.yaml"
        scenario.write_text(PLANNER.read_text().replace(
            "objective: minimize GBsPerCore",
            "objective: minimize " + "(" * 100000 + "GBsPerCore" + ")" * 100000))
        line = error_line(capsys, EXAMPLES / "triad.f90", "--scenario", scenario)
        assert line.startswith(f"{scenario}:7: objective '((((")
        assert line.endswith(f": nested deeper than {MAX_NESTING} levels (parentheses, signs, "
                             "functions)")
        assert len(line) < 300


# ---------------------------------------------------------------- 6. sweeps that overflow


class TestOverflowingSweeps:
    def test_a_result_beyond_a_double_is_an_invalid_row(self, capsys, tmp_path):
        # lap.f90 sweeps hi(1) x hi(2) x hi(3) points: with hi(2) = 1e300 it is finite at
        # hi(1) = 1 (1e300 * 128 points) and beyond a double at hi(1) = 1e300
        out = tmp_path / "o.json"
        status, _out, err = run(capsys, EXAMPLES / "lap.f90", "--sweep", "hi_1=1..1e300:2",
                                "--sweep", "hi_2=1e300..1e300:1", "--json", out)
        assert status == 0, err
        text = out.read_text()
        assert "NaN" not in text and "Infinity" not in text
        first, second = json.loads(text)["sweep"]["rows"]
        assert first["valid"] and first["Total_GFlops"] == pytest.approx(8 * 1e300 * 128 / 1e9)
        assert not second["valid"] and second["Total_GFlops"] is None
        assert second["reason"].endswith(" beyond the range of a double")

    def test_a_range_wider_than_a_double(self, capsys):
        assert error_line(capsys, EXAMPLES / "lap.f90", "--sweep", "hi_1=-1e308..1e308:3") == \
            "--sweep hi_1=-1e308..1e308:3: the range -1e+308..1e+308 is wider than a double " \
            "can hold"

    def test_the_json_writer_never_writes_nan(self):
        from sat.report.json_export import dumps

        assert json.loads(dumps({"a": [float("nan"), float("inf"), 1.5]})) == \
            {"a": [None, None, 1.5]}

    def test_a_grid_of_1e16_configurations_streams_in_bounded_memory(self):
        # four axes of 10,000 values: the chunks of the grid are made as they are consumed
        # (a list of them alone would hold 1.5e11 entries)
        import itertools
        import tracemalloc

        from sat.explore.sweep import axes_for, prepare
        from sat.explore.sweep import run as run_sweep
        from sat.frontend import read_sources
        from sat.machine import load_machine
        from sat.model.build import build_model
        from sat.parameters import build_parameters

        program = read_sources([str(EXAMPLES / "lap.f90")])
        result = build_model(program, build_parameters(load_machine(None)))
        sweep = prepare(result, axes_for(result, ["hi_1=1..10000", "hi_2=1..10000",
                                                  "hi_3=1..10000", "CacheKB=1..10000"]))
        assert sweep.points == 10**16
        tracemalloc.start()
        rows = list(itertools.islice(run_sweep(sweep), 10_001))
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        assert [rows[0][k] for k in ("hi_1", "hi_2", "hi_3", "CacheKB")] == [1, 1, 1, 1]
        # the grid in itertools.product order: CacheKB fastest, so row 10,001 is the first of
        # the second run of CacheKB = 1..10,000, at hi(3) = 2
        assert [rows[-1][k] for k in ("hi_1", "hi_2", "hi_3", "CacheKB")] == [1, 1, 2, 1]
        assert peak < 200 * 2**20  # one chunk of 65,536 rows


# ---------------------------------------------------------------- 5. evolution strategies


_HUGE_RANGES = """objective: minimize Total_Time_s
solver: isres
time_limit_s: 1
variables:
  BlockY: 1..1e300
  BlockZ: 1..1e300
constraints:
  - Total_Time_s * 1e200 <= 1e-200
set:
  hi_1: 256
  hi_2: 256
  hi_3: 256
"""


class TestEvolutionStrategyStops:
    def test_the_time_limit_holds_however_slow_the_evaluation(self, capsys, tmp_path,
                                                              monkeypatch):
        import time

        from sat.explore.solve import Evaluator

        # every evaluation takes 100 ms: the polish of the best point alone (33 halvings of a
        # range of 1e300 down to 1e-10 of it) would take 3.3 s past the limit
        evaluate = Evaluator.__call__

        def slow(self, points):
            time.sleep(0.1)
            return evaluate(self, points)

        monkeypatch.setattr(Evaluator, "__call__", slow)
        scenario = tmp_path / "s.yaml"
        scenario.write_text(_HUGE_RANGES.replace("constraints:\n  - Total_Time_s * 1e200 "
                                                 "<= 1e-200\n", ""))
        out = tmp_path / "o.json"
        start = time.perf_counter()
        status, _out, err = run(capsys, EXAMPLES / "lap.f90", "--scenario", scenario,
                                "--json", out, "-q")
        elapsed = time.perf_counter() - start
        assert status == 0, err
        # the limit, one population's evaluation after it, the explanation's few
        # evaluations and reading lap.f90
        assert elapsed < 1 + 1.5
        solver = json.loads(out.read_text())["scenario"]["solver"]
        assert solver["method"] == "isres"
        assert solver["seconds"] < 1 + 0.3  # past the limit: at most one 100 ms evaluation

    def test_the_ranking_of_a_huge_population_stops_at_the_deadline(self):
        import time

        import numpy as np

        from sat.explore.solve import _stochastic_rank

        # 3,000 configurations in reverse order: a full bubble sort is 9 million comparisons
        size = 3000
        goal = np.arange(size, 0, -1, dtype=float)
        start = time.perf_counter()
        order = _stochastic_rank(goal, np.zeros(size), 0.45, np.random.default_rng(0),
                                 deadline=start + 0.2)
        assert time.perf_counter() - start < 0.2 + 0.5
        assert sorted(order.tolist()) == list(range(size))  # still a ranking of them all

    def test_no_numpy_warning_reaches_stderr(self, capsys, tmp_path):
        import warnings

        # the constraint's violation relative to 1e-200 overflows a double: an invalid
        # configuration, without numpy's "overflow encountered in divide"
        scenario = tmp_path / "s.yaml"
        scenario.write_text(_HUGE_RANGES)
        out = tmp_path / "o.json"
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")  # what would reach stderr, not pytest's record
            status, _out, err = run(capsys, EXAMPLES / "lap.f90", "--scenario", scenario,
                                    "--json", out)
        assert status == 0, err
        assert [str(w.message) for w in caught] == []
        assert "RuntimeWarning" not in err and "encountered" not in err
        assert "NaN" not in out.read_text() and "Infinity" not in out.read_text()


# ---------------------------------------------------------------- 4. exponential references


def _deep_references():
    import sys

    sys.path.insert(0, str(ROOT / "bench"))
    import bench_deep_references

    return bench_deep_references


class TestExponentialReferences:
    @pytest.mark.parametrize("with_argument", [True, False])
    def test_kernels_that_call_the_next_twice_40_deep(self, capsys, tmp_path, with_argument):
        import time

        model = _deep_references().aspen_kernels(40, tmp_path)
        if not with_argument:  # the same without arguments: k<depth> does n flops
            model.write_text(model.read_text().replace("(param x)", "").replace("(x)", "()")
                             .replace("flops [x]", "flops [n]").replace("k0(n)", "k0()"))
        out = tmp_path / "o.json"
        start = time.perf_counter()
        status, _out, err = run(capsys, model, "--json", out)
        assert status == 0, err
        assert time.perf_counter() - start < 5  # 2^40 calls, each evaluated once
        # 10 flops at the last level, 2^40 times
        assert json.loads(out.read_text())["aspen"]["resources"]["flops"] == 10 * 2**40

    def test_machine_files_that_include_the_next_twice_40_deep(self, tmp_path):
        import time

        from sat.aspen.model import load_machine_model

        top = _deep_references().aspen_includes(40, tmp_path)
        start = time.perf_counter()
        machine = load_machine_model(top)
        assert time.perf_counter() - start < 5
        assert list(machine.params) == ["leafClock"]
        assert len(machine.files) == 41  # each file read once

    def test_an_included_file_included_again_defines_its_names_again(self, tmp_path):
        from sat.aspen.model import load_machine_model

        # what reading it again would do: the second include sets c back to 1
        (tmp_path / "i.aspen").write_text("param c = 1\nparam d = 5\n")
        top = tmp_path / "top.aspen"
        top.write_text("include i.aspen\nparam c = 2\nparam e = 3\ninclude i.aspen\n")
        params = load_machine_model(top).params
        assert {name: params[name].value.value for name in params} == {"c": 1, "d": 5, "e": 3}

    @pytest.mark.parametrize("language", ["fortran", "c"])
    def test_procedures_that_call_the_next_twice_30_deep(self, capsys, tmp_path, language):
        import time

        source = getattr(_deep_references(), f"{language}_calls")(30, tmp_path)
        out = tmp_path / "o.json"
        start = time.perf_counter()
        status, _out, err = run(capsys, source, "--json", out)
        assert status == 0, err
        assert time.perf_counter() - start < 5  # each procedure written in once, not 2^30 times
        (nest,) = json.loads(out.read_text())["loops"]  # p1..p30 run only inside p0's nest
        # p0 .. p30 each loop 2 times and p0 .. p29 call the next twice per iteration: the
        # body of p30 runs 2^31 (trips) * 2^30 (calls) = 2^61 times, 1 add + 1 multiply each
        assert nest["gflops"] * 1e9 == 2 * 2**61
        assert (nest["adds"], nest["multiplies"]) == (1, 1)  # per iteration of the nest
        # each call twice is a loop of 2 trips around it: 2^30 loop trips * 2^30 repeats
        assert nest["sweeps"] == 2**60
        assert nest["calls_summary"].endswith("p29 ×536870912, p30 ×1073741824")  # 2^29, 2^30

    def test_imports_within_the_limit_read(self, capsys, tmp_path):
        # 8 levels of two imports: 2^8 copies of the last model, 1 flop each
        model = _deep_references().aspen_imports(8, tmp_path)
        out = tmp_path / "o.json"
        status, _out, err = run(capsys, model, "--json", out)
        assert status == 0, err
        assert json.loads(out.read_text())["aspen"]["resources"]["flops"] == 2**8

    def test_models_that_import_the_next_two_40_deep(self, capsys, tmp_path):
        import time

        model = _deep_references().aspen_imports(40, tmp_path)
        out = tmp_path / "o.json"
        start = time.perf_counter()
        status, _out, err = run(capsys, model, "--json", out)
        assert status == 0, err
        assert time.perf_counter() - start < 5  # two copies a level, not 2^level
        data = json.loads(out.read_text())
        aspen = data["aspen"]
        # beyond 1,000 copies, imports with the same arguments share one, and the Notes say so
        assert any("share a copy" in note["message"] for note in data["notes"])
        # a<k> and b<k> each call a<k+1>.main and b<k+1>.main: the last level's 1 flop runs
        # 2^40 times
        assert aspen["resources"]["flops"] == 2**40
        kernels = {k["name"]: k for k in aspen["kernels"]}
        # b1 imports a2 and b2 with the same (no) arguments as a1 did: the same copies
        assert kernels["b1.main"]["calls"] == ["a1.a2.main", "a1.b2.main"]
        assert len(kernels) == 2 * 40 + 1  # main, then a<k>.main and b<k>.main per level
        assert kernels["b1.main"]["flops"] == 2**39

    def test_imports_with_arguments_of_their_own_beyond_the_limit(self, capsys, tmp_path):
        import time

        from sat.aspen.model import MAX_IMPORTED_MODELS

        model = _deep_references().aspen_imports(40, tmp_path)
        # each model passes a parameter of its own: every import is a copy of its own
        for path in tmp_path.glob("*.aspen"):
            text = re.sub(r'(import \w+ from "\w+\.aspen")', r"\1 with m = m", path.read_text())
            path.write_text(text.replace("{\n", "{\n  param m = 1\n", 1))
        start = time.perf_counter()
        line = error_line(capsys, model)
        assert time.perf_counter() - start < 5
        assert f"the imports make more than {MAX_IMPORTED_MODELS:,} models" in line
        assert re.search(r"[ab]\d+\.aspen:\d+:3: ", line)

    def test_imports_nested_beyond_the_depth_limit(self, capsys, tmp_path):
        from sat.aspen.model import MAX_IMPORT_DEPTH

        # a chain of distinct files, one import each: no copies to share, but too deep
        depth = MAX_IMPORT_DEPTH + 1
        for k in range(depth + 1):
            body = ("  param n = 1\n" if k == depth else
                    f'  import c{k + 1} from "c{k + 1}.aspen"\n  param n = c{k + 1}.n\n')
            (tmp_path / f"c{k}.aspen").write_text(
                f"model c{k} {{\n{body}  kernel main {{ execute {{ flops [n] }} }}\n}}\n")
        line = error_line(capsys, tmp_path / "c0.aspen")
        assert line.endswith(f":2:3: imports nested more than {MAX_IMPORT_DEPTH} files deep: "
                             "simplify the model")


# ---------------------------------------------------------------- fuzz: mutated real files


def _fuzz_runs() -> list[tuple[Path, list]]:
    """Each bundled file the readers take, with the command line that reads it (``{}`` is the
    mutated copy)."""
    lap, triad = EXAMPLES / "lap.f90", EXAMPLES / "triad.f90"
    stencil = EXAMPLES / "aspen" / "stencil.aspen"
    scenario_sources = {"tuner": [lap], "machine-planner": [triad],
                        "problem-size-planner": [triad], "aspen-tuner": [stencil],
                        "architect": ["-m", "xeon-e5-2680"],
                        "architect-infeasible": ["-m", "xeon-e5-2680"]}
    runs: list[tuple[Path, list]] = []
    for model in sorted((EXAMPLES / "aspen").glob("*.aspen")):
        runs.append((model, [stencil, "-m", "{}"] if model.name == "one_socket.aspen"
                     else ["{}"]))
    for machine in [*sorted((ROOT / "machines").glob("*.xml")),
                    *sorted((ROOT / "tests" / "data" / "machines").glob("*.y*ml"))]:
        runs.append((machine, [lap, "-m", "{}"]))
    for scenario in sorted((EXAMPLES / "scenarios").glob("*.yaml")):
        runs.append((scenario, [*scenario_sources[scenario.stem], "--scenario", "{}",
                                "--time-limit", "0.2"]))
    for idioms in sorted((EXAMPLES / "idioms").glob("*.yaml")):
        runs.append((idioms, [EXAMPLES / "histogram.f90", EXAMPLES / "spmv.f90", "--idioms",
                              "{}"]))
    return runs


_ODD_CHARACTERS = ["\u202e", "\ufeff", "\u00a0", "é", "\U0001d501", "\u2028", "\t", "\r",
                   "\x00", "\\", '"', "'", "#", ":", "{", "<"]
_NUMBER = re.compile(r"\d+(?:\.\d+)?")


def _mutate(text: str, rng) -> str:
    """One to three seeded mutations: a line deleted or repeated, two characters swapped, a
    number made huge, NaN or deeply bracketed, an odd character inserted."""
    for _ in range(rng.randint(1, 3)):
        lines = text.split("\n")
        kind = rng.randrange(7)
        if kind == 0 and len(lines) > 1:
            del lines[rng.randrange(len(lines))]
            text = "\n".join(lines)
        elif kind == 1:
            k = rng.randrange(len(lines))
            lines.insert(k, lines[k])
            text = "\n".join(lines)
        elif kind == 2 and len(text) > 2:
            k = rng.randrange(len(text) - 1)
            text = text[:k] + text[k + 1] + text[k] + text[k + 2:]
        elif kind in (3, 4, 5):
            numbers = list(_NUMBER.finditer(text))
            if numbers:
                found = rng.choice(numbers)
                value = {3: rng.choice(["1" + "0" * 400, "1e400", "-1e308", "9" * 5000]),
                         4: rng.choice(["nan", ".nan", "NaN", "inf", "-.inf"]),
                         5: "(" * 300 + found.group() + ")" * 300}[kind]
                text = text[:found.start()] + value + text[found.end():]
        else:
            k = rng.randrange(len(text) + 1)
            text = text[:k] + rng.choice(_ODD_CHARACTERS) + text[k:]
    return text


def _no_constant(name: str):
    raise ValueError(f"{name} in the JSON")


@pytest.mark.parametrize("seed", range(12))  # about 0.6 s each
def test_fuzz_mutated_bundled_files(capsys, tmp_path, seed):
    """Seeded mutations of every bundled Aspen model, machine file, scenario and idiom file,
    through the command line: exit 0 or 2, one line per message and no traceback, JSON
    without NaN or Infinity, an existing output left alone when the run is refused."""
    import random

    rng = random.Random(seed)
    for original, arguments in _fuzz_runs():
        mutated = tmp_path / f"mutated{original.suffix}"
        text = _mutate(original.read_text(encoding="utf-8"), rng)
        mutated.write_text(text, encoding="utf-8", newline="")
        out = tmp_path / "o.json"
        out.write_text("before")
        argv = [str(mutated) if a == "{}" else str(a) for a in arguments]
        try:
            status = main([*argv, "--json", str(out)])
        except SystemExit as exit:  # the argument parser's own refusals
            status = exit.code
        _out, err = capsys.readouterr()
        what = f"{original.name} mutated (seed {seed}): {err}"
        assert status in (0, 2), what
        assert "Traceback" not in err, what
        assert all(line.startswith("satreport: ") or line.startswith("usage:")
                   for line in err.splitlines()), what
        if status == 2:
            assert out.read_text() == "before", what
        else:
            json.loads(out.read_text(), parse_constant=_no_constant)


def test_a_scenario_number_beyond_a_double_is_an_error_at_its_line(capsys, tmp_path):
    # found by the fuzz test: 1e400 reached the compiled model as the name 'inf'
    scenario = tmp_path / "s.yaml"
    scenario.write_text(PLANNER.read_text().replace("Total_Time_s <= 0.01",
                                                    "Total_Time_s <= 1e400"))
    line = error_line(capsys, EXAMPLES / "triad.f90", "--scenario", scenario)
    assert line.startswith(f"{scenario}:11: constraint ")
    assert line.endswith(": the number 1e400 is beyond the range of a double")
