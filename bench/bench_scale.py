"""satreport end to end on generated programs of growing size: time and memory per line.

    python bench/bench_scale.py [LINES ...] [--output README.md --output docs/performance.md]

For each size (default 1,000, 5,000, 20,000, 50,000 and 100,000 lines: the whole range of the
targets in one command) it writes a module of that many lines
with ``generate_fortran.py`` (about 11 lines per nest), runs
``python -m sat FILE -o out.xlsx --json out.json --html out.html -v`` once in a child process
and measures its wall time, the parse (the front end: reading the sources into the code
description, up to the ``read ... procedure(s)`` progress line) apart from the rest (model,
workbook, JSON, HTML), and the child's peak resident memory (``wait4``'s ``ru_maxrss``: the
largest of the run and the processes it waited for).  Then the start-up of a small C kernel
(``examples/c/stencil7.c --json``, best of 5, as ``bench_end_to_end.py --startup``).

A size whose peak memory, extrapolated from the previous size's memory per line, would pass
``--max-mb`` (default: 80 % of the memory the machine has available) is not run, and the table
says so: on a shared machine one run must not push the others out of memory.

The table gives the machine's load average at the end of each run: on a shared machine the
wall times grow with it, the CPU seconds (and CPU milliseconds per line) far less.  It prints
a Markdown table and, with ``--output`` (repeatable), writes it into each file between the markers
``<!-- bench_scale -->`` and ``<!-- /bench_scale -->`` (the rest of the page is kept).
Targets: 100,000 lines in at most 30 s and 1.5 GB; time and memory per line within ±30 % from
the smallest size to the largest; start-up at most 0.16 s.  The runs use compiled bytecode as
an installed package does (``bench_end_to_end.installed_environment``), filled by one untimed
run of a one-nest module first.
"""

from __future__ import annotations

import argparse
import os
import platform
import re
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_end_to_end import installed_environment, startup_seconds  # noqa: E402
from generate_fortran import generate_module  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
SIZES = (1_000, 5_000, 20_000, 50_000, 100_000)
LINES_PER_NEST = 11  # about, for generate_module
TARGETS = {"seconds_100k": 30.0, "peak_mb_100k": 1536.0, "spread": 0.30, "startup_s": 0.16}
START, END = "<!-- bench_scale -->", "<!-- /bench_scale -->"

# -v progress lines: "satreport: [  9.68 s] read 12 procedure(s), 120 loop(s)"
_READ = re.compile(r"^satreport: \[\s*([\d.]+) s\] read \d+ procedure", re.M)


@dataclass
class Run:
    lines: int
    nests: int
    seconds: float
    parse_s: float
    peak_mb: float
    cpu_s: float  # user + system, of the run and the processes it waited for
    load: float  # the machine's load average over the last minute, at the end

    @property
    def rest_s(self) -> float:
        return self.seconds - self.parse_s


def module_of(lines: int) -> tuple[str, int]:
    """A generated module of about ``lines`` lines, and its nests."""
    nests = max(1, round(lines / LINES_PER_NEST))
    return generate_module(nests), nests


def measure(lines: int, work: Path) -> Run:
    """One end-to-end run on a module of about ``lines`` lines."""
    text, nests = module_of(lines)
    source = work / f"gen{lines}.f90"
    source.write_text(text)
    argv = [sys.executable, "-m", "sat", str(source), "-v", "-o", str(work / "out.xlsx"),
            "--json", str(work / "out.json"), "--html", str(work / "out.html")]
    start = time.perf_counter()
    with open(work / "stderr.txt", "w+") as stderr:
        child = subprocess.Popen(argv, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=stderr,
                                 env=installed_environment())
        _, status, usage = os.wait4(child.pid, 0)
        seconds = time.perf_counter() - start
        child.returncode = os.waitstatus_to_exitcode(status)
        stderr.seek(0)
        log = stderr.read()
    if child.returncode != 0:
        raise RuntimeError(f"satreport exit {child.returncode} on {lines} lines: {log[-500:]}")
    read = _READ.search(log)
    parse_s = float(read.group(1)) if read else float("nan")
    return Run(len(text.splitlines()), nests, seconds, parse_s, usage.ru_maxrss / 1024,
               usage.ru_utime + usage.ru_stime, os.getloadavg()[0])


def table(runs: list[Run], startup: float | None,
          skipped: list[tuple[int, float]] = ()) -> str:
    """The Markdown table of the runs, the per-line spread and the targets."""
    rows = ["| lines | nests | end to end (s) | parse (s) | rest (s) | CPU (s) "
            "| peak memory (MB) | ms per line | rest, ms per line | CPU ms per line "
            "| KB per line | load |",
            "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for r in runs:
        rows.append(f"| {r.lines:,} | {r.nests:,} | {r.seconds:.1f} | {r.parse_s:.1f} "
                    f"| {r.rest_s:.1f} | {r.cpu_s:.1f} | {r.peak_mb:.0f} "
                    f"| {1000 * r.seconds / r.lines:.2f} | {1000 * r.rest_s / r.lines:.2f} "
                    f"| {1000 * r.cpu_s / r.lines:.2f} "
                    f"| {1024 * r.peak_mb / r.lines:.1f} | {r.load:.1f} |")
    for lines_skipped, predicted_mb in skipped:
        rows.append(f"| {lines_skipped:,} | not run: about {predicted_mb:,.0f} MB expected, "
                    f"more than --max-mb | | | | | | | | | | |")
    lines = ["\n".join(rows), ""]
    if len(runs) > 1:
        def spread(values: list[float]) -> str:
            middle = (max(values) + min(values)) / 2
            return f"±{100 * (max(values) - min(values)) / 2 / middle:.0f} %"

        big = [r for r in runs if r.lines >= 10_000]
        tail = "" if len(big) < 2 or len(big) == len(runs) else (
            f"; from {big[0].lines:,} lines on: time {spread([r.seconds / r.lines for r in big])}"
            f", memory {spread([r.peak_mb / r.lines for r in big])}")
        lines.append("Spread of the per-line figures around their middle, "
                     f"{runs[0].lines:,} to {runs[-1].lines:,} lines: time "
                     f"{spread([r.seconds / r.lines for r in runs])}, time without the parse "
                     f"{spread([r.rest_s / r.lines for r in runs])}, CPU time "
                     f"{spread([r.cpu_s / r.lines for r in runs])}, memory "
                     f"{spread([r.peak_mb / r.lines for r in runs])}{tail} "
                     f"(target ±{100 * TARGETS['spread']:.0f} %).")
    largest = runs[-1]
    lines.append(f"Largest run: {largest.seconds:.1f} s end to end ({largest.rest_s:.1f} s "
                 f"without the parse), {largest.peak_mb:.0f} MB (targets for 100,000 lines: "
                 f"{TARGETS['seconds_100k']:.0f} s, {TARGETS['peak_mb_100k']:.0f} MB).")
    if startup is not None:
        lines.append(f"Start-up of a small C kernel (examples/c/stencil7.c --json, best of 5): "
                     f"{startup:.2f} s (target {TARGETS['startup_s']} s).")
    lines.append(f"Machine: {platform.machine()}, {os.cpu_count()} cores, Python "
                 f"{platform.python_version()}; {time.strftime('%Y-%m-%d')}.")
    return "\n".join(lines) + "\n"


def available_mb() -> float:
    """The memory the machine has available now (``MemAvailable``), in MB; inf if unknown."""
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemAvailable:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return float("inf")


def expected_mb(lines: int, runs: list[Run]) -> float:
    """Peak memory of a run on ``lines`` lines, from the last run's memory per line (which
    falls with size: an overestimate); 0 before any run."""
    return 0.0 if not runs else runs[-1].peak_mb / runs[-1].lines * lines


def write_into(path: Path, text: str) -> None:
    """``text`` between the markers of ``path`` (made if missing), the rest kept."""
    block = f"{START}\n{text}{END}"
    page = path.read_text() if path.exists() else ""
    if START in page and END in page:
        page = page[:page.index(START)] + block + page[page.index(END) + len(END):]
    else:
        page = page + ("\n" if page else "") + block + "\n"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(page)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("lines", nargs="*", type=int, default=list(SIZES))
    parser.add_argument("--output", type=Path, action="append", default=[],
                        help="Markdown page to write the table into (repeatable: the README "
                             "and docs/performance.md from one run)")
    parser.add_argument("--no-startup", action="store_true", help="skip the C start-up")
    parser.add_argument("--max-mb", type=float, default=None,
                        help="skip a size expected to need more memory than this (default: "
                             "80 %% of the memory available)")
    args = parser.parse_args(argv)
    runs: list[Run] = []
    skipped: list[tuple[int, float]] = []
    with tempfile.TemporaryDirectory() as work:
        measure(11, Path(work))  # untimed: fills the bytecode cache, as installing does
        for lines in sorted(args.lines):
            limit = args.max_mb if args.max_mb is not None else 0.8 * available_mb()
            if expected_mb(lines, runs) > limit:
                skipped.append((lines, expected_mb(lines, runs)))
                print(f"{lines:,} lines: not run, about {expected_mb(lines, runs):,.0f} MB "
                      f"expected (limit {limit:,.0f} MB)", file=sys.stderr, flush=True)
                continue
            run = measure(lines, Path(work))
            print(f"{run.lines:,} lines: {run.seconds:.1f} s (parse {run.parse_s:.1f} s), "
                  f"{run.peak_mb:.0f} MB", file=sys.stderr, flush=True)
            runs.append(run)
    startup = None if args.no_startup else startup_seconds()
    text = table(runs, startup, skipped)
    print(text)
    for path in args.output:
        write_into(path, text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
