"""All of satreport's speed figures in one run.

    python bench/run_all.py [--lines 4000] [--nests 400] [--skip-recalc]

Runs, each in its own process (so that its peak memory is its own):

1. ``bench_frontend.py``: the Fortran front end on a generated module of about 4,000 lines
   against fparser's parse alone (times and their ratio, same run);
2. ``bench_model.py``: model build and evaluation for a 400-nest program;
3. ``bench_workbook.py``: workbook write time and size, LibreOffice recalculation time;
4. satreport end to end on the same generated 4,000-line module (workbook and JSON), and
   LibreOffice's forced recalculation of that real workbook;
5. ``bench_end_to_end.py``: satreport on SMC's kernels.f90 (workbook, JSON and HTML) against
   the fparser parse alone, per-stage times, peak memory, and the start-up time of a small C
   run (skipped when the shared reference input is missing).

Prints every script's own output, then a summary with the wall time and peak resident memory
of each step.  Nothing is written into the repository.
"""

from __future__ import annotations

import argparse
import os
import platform
import re
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent
sys.path.insert(0, str(BENCH))
sys.path.insert(0, str(ROOT / "tests"))


@dataclass
class Step:
    """One benchmark process: its output, exit status, wall time and peak memory."""

    name: str
    output: str
    status: int
    seconds: float
    peak_mib: float


def run_step(name: str, command: list[str], cwd: Path = ROOT) -> Step:
    """Run ``command``; its peak resident memory comes from wait4's resource usage."""
    with tempfile.TemporaryFile("w+") as out:
        start = time.perf_counter()
        process = subprocess.Popen(command, cwd=cwd, stdout=out, stderr=subprocess.STDOUT,
                                   env={**os.environ, "PYTHONPATH": str(ROOT)})
        _, status, usage = os.wait4(process.pid, 0)
        seconds = time.perf_counter() - start
        process.returncode = os.waitstatus_to_exitcode(status)  # already reaped
        out.seek(0)
        output = out.read()
    # ru_maxrss is in KiB on Linux
    return Step(name, output, process.returncode, seconds, usage.ru_maxrss / 1024)


def find(pattern: str, text: str) -> str:
    found = re.search(pattern, text)
    return found.group(1) if found else "n/a"


def end_to_end(lines: int, workdir: Path, recalc: bool) -> list[Step]:
    """satreport on the generated module: workbook + JSON; then LibreOffice's recalculation."""
    from bench_frontend import module_of_lines

    text, nests = module_of_lines(lines)
    source = workdir / "generated.f90"
    source.write_text(text)
    workbook = workdir / "generated.xlsx"
    size = f"{text.count(chr(10))} lines, {nests} nests"
    command = [sys.executable, "-m", "sat.cli", str(source), "-q", "-v"]
    steps = [run_step(f"satreport --json on {size}",
                      [*command, "--json", str(workdir / "generated.json")], cwd=workdir),
             run_step(f"satreport -o (workbook) on {size}",
                      [*command, "-o", str(workbook)], cwd=workdir)]
    if workbook.exists():
        steps[1].output += f"workbook size: {workbook.stat().st_size / 1e6:.2f} MB\n"
    if recalc and workbook.exists():
        if shutil.which("soffice") is None:
            steps[1].output += "LibreOffice recalculation: skipped (soffice not installed)\n"
        else:
            script = ("import sys; from pathlib import Path; sys.path.insert(0, sys.argv[3]); "
                      "from libreoffice import recalculate; "
                      "recalculate([Path(sys.argv[1])], Path(sys.argv[2]))")
            steps.append(run_step("LibreOffice recalculation of that workbook",
                                  [sys.executable, "-c", script, str(workbook),
                                   str(workdir / "recalc"), str(ROOT / "tests")]))
    return steps


def summary(steps: list[Step]) -> list[str]:
    """The figures the guide quotes (docs/explanation/run-time.md), from the scripts' outputs."""
    by = {s.name.split()[0]: s.output for s in steps}
    front = by.get("bench_frontend.py", "")
    model = by.get("bench_model.py", "")
    book = by.get("bench_workbook.py", "")
    full = next((s.output for s in steps if s.name.startswith("satreport -o")), "")
    lines = find(r"module: (\d+) lines", front)
    parse = find(r"parse only:\s+([\d.]+) s", front)
    read = find(r"read_sources:\s+([\d.]+) s", front)
    ratio = find(r"ratio ([\d.]+)", front)
    nests = find(r"nests: (\d+)", model)
    build = find(r"model build:\s+([\d.]+) s", model)
    evaluation = find(r"model evaluation:\s+([\d.]+) s", model)
    write = find(r"write time: ([\d.]+) s", book)
    size = find(r"size: ([\d.]+) MB", book)
    recalc = find(r"recalculation \+ save: ([\d.]+) s", book)
    real_size = find(r"workbook size: ([\d.]+) MB", full)
    return [
        f"front end, {lines} lines: fparser parse {parse} s, read_sources {read} s, "
        f"ratio {ratio}",
        f"model ({nests} nests): build {build} s, evaluation {evaluation} s",
        f"synthetic workbook ({nests} nests): write {write} s, size {size} MB, "
        f"LibreOffice recalculation {recalc} s",
        f"end to end on the generated module: workbook {real_size} MB",
    ]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Run all satreport benchmarks.")
    parser.add_argument("--lines", type=int, default=4000, help="generated module size")
    parser.add_argument("--nests", type=int, default=400, help="nests for model and workbook")
    parser.add_argument("--skip-recalc", action="store_true",
                        help="skip LibreOffice's recalculation of the end-to-end workbook")
    args = parser.parse_args(argv)
    python = sys.executable
    print(f"satreport benchmarks, {time.strftime('%Y-%m-%d %H:%M')}, "
          f"{platform.python_implementation()} {platform.python_version()}, "
          f"{os.cpu_count()} logical CPUs", flush=True)
    steps: list[Step] = []
    scripts = [("bench_frontend.py", [str(args.lines)]), ("bench_model.py", [str(args.nests)]),
               ("bench_workbook.py", [str(args.nests)])]
    from bench_end_to_end import DEFAULT_KERNELS

    if DEFAULT_KERNELS.is_file():
        scripts.append(("bench_end_to_end.py", [str(DEFAULT_KERNELS)]))
    for script, script_args in scripts:
        steps.append(run_step(f"{script} {' '.join(script_args)}",
                              [python, str(BENCH / script), *script_args]))
        print(f"\n== {steps[-1].name}\n{steps[-1].output.rstrip()}", flush=True)
    with tempfile.TemporaryDirectory(prefix="satbench-") as tmp:
        for step in end_to_end(args.lines, Path(tmp), not args.skip_recalc):
            steps.append(step)
            # -v progress lines carry the per-stage timings of the real run
            print(f"\n== {step.name}\n{step.output.rstrip()}", flush=True)
    print("\n== summary")
    width = max(len(s.name) for s in steps)
    for step in steps:
        status = "" if step.status == 0 else f"  EXIT STATUS {step.status}"
        print(f"{step.name:<{width}}  {step.seconds:8.2f} s  peak {step.peak_mib:7.1f} MiB"
              f"{status}")
    for line in summary(steps):
        print(line)
    return 0 if all(s.status == 0 for s in steps) else 1


if __name__ == "__main__":
    sys.exit(main())
