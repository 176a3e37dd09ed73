"""The two Fortran parsers side by side: fparser's parse alone, satreport end to end with each.

For SMC's ``kernels.f90`` (ExaSAT's reference input, beside the repository in
``../shared/reference/exasat/inputs/smc-kernels.f90``, or a path given) and modules generated
by ``bench/generate_fortran.py`` (400 and 1,600 nests by default), times in one run:

1. fparser's parse of the file alone (in this process, once);
2. tree-sitter's parse alone (the fast parser's floor);
3. ``satreport FILE -o x.xlsx --json x.json --html x.html -j 1 --fortran-parser fparser``
   (one process, so that its processor time is all of it);
4. the same with ``--fortran-parser tree-sitter`` (the default);
5. the same without ``-j 1``, as a user runs it: with two cores the HTML page is made in a
   forked process while the workbook and the JSON are written, so its wall time is the time a
   user waits (its processor time includes the forked process's);

each satreport run a fresh process, with its processor time (user and system), its wall
time, its peak memory (maximum resident set) and exit status. The parses are timed in this
process, processor time too. On a machine shared with other work the wall time grows with the
load while the processor time does not: the ratios in the last columns are of processor
times (the tree-sitter run against the fparser parse alone, and against the fparser run).
Each measure is repeated (``--repeats``, default 3) and the minimum kept, the repeats of the
four measures interleaved so that a change of load touches all of them alike.

A second table splits the tree-sitter run into its stages (``bench/stage_split.py``):
start-up, front end, model, then each output, processor seconds, minimum over the repeats.

The satreport runs use compiled bytecode as an installed package does (a cache of it in the
system's temporary folder, ``bench_end_to_end.installed_environment``, filled by one untimed
run first), even where the environment says ``PYTHONDONTWRITEBYTECODE``: otherwise each run
would compile satreport's sources again.

Usage: ``python bench/bench_fortran_parsers.py [--kernels PATH] [--repeats N] [--no-generated]
[N_NESTS ...]``
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))

from bench_end_to_end import installed_environment  # noqa: E402
from generate_fortran import generate_module  # noqa: E402

KERNELS = next((p for p in (HERE.parent.parent / "shared", HERE.parent.parent.parent / "shared")
                if p.is_dir()), HERE.parent.parent / "shared") \
    / "reference" / "exasat" / "inputs" / "smc-kernels.f90"


def fparser_parse(path: str) -> float:
    """Processor seconds fparser takes to parse the file (its reader and its f2008 parser)."""
    from fparser.common.readfortran import FortranFileReader
    from fparser.two import symbol_table
    from fparser.two.parser import ParserFactory

    from sat.frontend.bodies import run_with_deep_stack

    def parse() -> float:
        symbol_table.SYMBOL_TABLES.clear()
        parser = ParserFactory().create(std="f2008")
        start = time.process_time()
        parser(FortranFileReader(path, ignore_comments=False))
        return time.process_time() - start

    return run_with_deep_stack(parse, "bench-fparser")


def tree_sitter_parse(path: str) -> float:
    """Processor seconds tree-sitter takes to parse the file's bytes."""
    import tree_sitter
    import tree_sitter_fortran

    parser = tree_sitter.Parser(tree_sitter.Language(tree_sitter_fortran.language()))
    data = Path(path).read_bytes()
    start = time.process_time()
    parser.parse(data)
    return time.process_time() - start


def end_to_end(path: str, parser: str, out: Path, stages: Path | None = None,
               one_process: bool = True) -> tuple[float, float, float, int]:
    """Processor seconds, wall seconds, peak memory (MB) and exit status of one satreport
    run (with the processes it waited for); with ``stages``, the run goes through
    ``stage_split.py``, which writes its stages' processor seconds there.  ``one_process``:
    ``-j 1``; otherwise the processes satreport chooses, as a user runs it."""
    arguments = [path, "-q", *(("-j", "1") if one_process else ()), "--fortran-parser", parser,
                 "-o", str(out / "x.xlsx"), "--json", str(out / "x.json"),
                 "--html", str(out / "x.html")]
    command = [sys.executable, *((str(HERE / "stage_split.py"), str(stages)) if stages
                                 else ("-m", "sat")), *arguments]
    environment = installed_environment()
    start = time.perf_counter()
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                               env=environment)
    _pid, status, usage = os.wait4(process.pid, 0)
    elapsed = time.perf_counter() - start
    return (usage.ru_utime + usage.ru_stime, elapsed, usage.ru_maxrss / 1024,
            os.waitstatus_to_exitcode(status))


def best(runs: list[tuple[float, float, float, int]], key: int = 0
         ) -> tuple[float, float, float, int]:
    """The run of least processor time (``key`` 1: of least wall time)."""
    return min(runs, key=lambda run: run[key])


def main() -> None:
    arguments = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    arguments.add_argument("--kernels", default=str(KERNELS), help="SMC's kernels.f90")
    arguments.add_argument("--repeats", type=int, default=3,
                           help="runs of each measure, the minimum kept (default 3)")
    arguments.add_argument("--no-generated", action="store_true",
                           help="SMC's kernels.f90 alone, no generated module")
    arguments.add_argument("nests", nargs="*", type=int, default=[400, 1600])
    args = arguments.parse_args()
    if args.no_generated:
        args.nests = []
    with tempfile.TemporaryDirectory(prefix="satreport-bench-") as work:
        folder = Path(work)
        inputs = []
        if Path(args.kernels).is_file():
            inputs.append(("kernels.f90", args.kernels))
        for count in args.nests:
            path = folder / f"generated_{count}.f90"
            path.write_text(generate_module(count))
            inputs.append((f"generated {count}", str(path)))
        if inputs:  # fills the bytecode cache, as installing the package does
            end_to_end(inputs[0][1], "tree-sitter", folder)
        print("| program | lines | fparser parse | tree-sitter parse | satreport, fparser "
              "(-j 1) | satreport, tree-sitter (-j 1) | tree-sitter run / fparser parse "
              "| tree-sitter run / fparser run | satreport, tree-sitter, as a user runs it "
              "(wall) |")
        print("|---|---|---|---|---|---|---|---|---|")
        splits: list[tuple[str, dict[str, float]]] = []
        for label, path in inputs:
            lines = Path(path).read_text(errors="replace").count("\n")
            parses, fast_parses, slows, fasts, users = [], [], [], [], []
            stages: dict[str, float] = {}
            for _ in range(max(args.repeats, 1)):
                parses.append(fparser_parse(path))
                fast_parses.append(tree_sitter_parse(path))
                slows.append(end_to_end(path, "fparser", folder))
                fasts.append(end_to_end(path, "tree-sitter", folder, folder / "stages.json"))
                users.append(end_to_end(path, "tree-sitter", folder, one_process=False))
                for stage, seconds in json.loads((folder / "stages.json").read_text()).items():
                    stages[stage] = min(stages.get(stage, seconds), seconds)
            parse, fast_parse, slow, fast = min(parses), min(fast_parses), best(slows), best(fasts)
            user = best(users, key=1)
            splits.append((label, stages))

            def run(result: tuple[float, float, float, int]) -> str:
                cpu, wall, megabytes, status = result
                return f"{cpu:.2f} s ({wall:.1f} s wall), {megabytes:.0f} MB" + (
                    f" (exit {status})" if status else "")

            print(f"| {label} | {lines:,} | {parse:.2f} s | {fast_parse:.3f} s | {run(slow)} "
                  f"| {run(fast)} | {fast[0] / parse:.2f} | {fast[0] / slow[0]:.2f} "
                  f"| {user[1]:.2f} s ({user[0]:.2f} s CPU) |",
                  flush=True)
        names = list(dict.fromkeys(stage for _label, stages in splits for stage in stages))
        print("\nStages of the tree-sitter run, processor seconds (minimum over the repeats):\n")
        print("| program | " + " | ".join(names) + " |")
        print("|---|" + "---:|" * len(names))
        for label, stages in splits:
            print(f"| {label} | " + " | ".join(
                f"{stages[name]:.2f}" if name in stages else "" for name in names) + " |")


if __name__ == "__main__":
    main()
