"""Validation of satreport's memory-traffic model against cache simulation.

For each kernel of ``KERNELS``: compile the example source together with its driver
(``drivers/<name>.f90``) with gfortran, run it under valgrind's cache simulator with the
last-level cache set to each size of a range, and run satreport on the same source with the
same ``CacheKB``, problem size and ``Cores=1``.  Prints one row per kernel and cache size:
predicted bytes per sweep, measured bytes per sweep and the relative error.

Measured bytes per sweep (all counts are the 2-sweep run minus the 1-sweep run):

* cachegrind: last-level read misses plus write misses (write-allocate) of the lines of the
  kernel's source file, times the line size;
* plus the dirty lines written back, which cachegrind does not model: callgrind's cache
  simulator (the same simulator, with ``--simulate-wb=yes``) counts the misses that evict a
  dirty line.  The drivers flush the cache before every sweep by reading a clean scratch
  array, so every line the sweep dirtied is written back exactly once, during the sweep or
  during the flush that follows it, and the scratch array adds no write-backs.

Usage::

    python bench/validation/run.py [--kernels lap,div] [--caches 4,64,1024] [--size 64]
                                   [--jobs 2] [--markdown FILE] [--workdir DIR]

Needs gfortran, gcc and valgrind (``apt-get install gfortran gcc valgrind``).
"""

from __future__ import annotations

import argparse
import contextlib
import datetime
import io
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
DRIVERS = HERE / "drivers"
LINE_BYTES = 64
# The model assumes a fully associative LRU cache.  cachegrind scans a set linearly, so a
# fully associative simulation is affordable for small caches only: up to FULLY_ASSOCIATIVE_KB
# the last level is fully associative, above it LL_WAYS-way.
FULLY_ASSOCIATIVE_KB = 32
LL_WAYS = 16
# A tiny first level so that the simulated last level sees (almost) every access: the model
# describes one cache, and cachegrind always simulates two.
D1 = "1024,2,64"
DEFAULT_CACHES_KB = tuple(2 ** k for k in range(1, 15))  # 2 KiB ... 16 MiB
# A cache size within this factor of a model working set is "near a threshold".
NEAR_FACTOR = 2.0


@dataclass(frozen=True)
class Kernel:
    """One validated kernel: an example source, its driver, and satreport's --set values."""

    name: str
    title: str
    source: str  # relative to the repository root
    sets: tuple[str, ...]  # format strings over {n} (the box edge) and {cells} (n**3)

    @property
    def language(self) -> str:
        return "c" if self.source.endswith(".c") else "fortran"

    @property
    def driver(self) -> Path:
        return DRIVERS / (f"{self.name}.c" if self.language == "c" else f"{self.name}.f90")

    def satreport_sets(self, n: int) -> list[str]:
        return [s.format(n=n, cells=n ** 3) for s in self.sets]


BOX = ("hi(1)={n}", "hi(2)={n}", "hi(3)={n}")
KERNELS = (
    Kernel("lap", "7-point Laplacian", "examples/lap.f90", BOX),
    Kernel("lap4", "25-point wide-star Laplacian (offsets -4..4)", "examples/lap4.f90", BOX),
    Kernel("div", "divergence", "examples/div.f90", BOX),
    Kernel("grad", "gradient", "examples/grad.f90", BOX),
    Kernel("hypterm", "CNS hypterm (3 nests, 8th order)", "examples/hypterm.f90",
           BOX + ("ng=4",)),
    Kernel("ctoprim", "CNS ctoprim (pointwise, ghost cells included)", "examples/ctoprim.f90",
           BOX + ("ng=4",)),
    Kernel("triad", "streaming triad a = b + s*c (n**3 elements)", "examples/triad.f90",
           ("n={cells}",)),
    Kernel("stencil7_c", "7-point Laplacian in C", "examples/c/stencil7.c",
           ("nx={n}", "ny={n}", "nz={n}")),
    Kernel("triad_c", "Schoenauer triad a = b + c*d in C (n**3 elements)",
           "examples/c/triad.c", ("n={cells}",)),
)


class ValidationError(Exception):
    """A tool is missing or a step failed: one line for the user."""


# ---------------------------------------------------------------- building


def missing_tools(kernels: list[Kernel]) -> list[str]:
    tools = ["valgrind"] + sorted({"gcc" if k.language == "c" else "gfortran" for k in kernels})
    return [t for t in tools if shutil.which(t) is None]


FLAGS = ["-O2", "-g"]


def build(kernel: Kernel, workdir: Path) -> Path:
    """Compile the example and its driver into ``workdir/<name>/``; return the executable."""
    out = workdir / kernel.name
    out.mkdir(parents=True, exist_ok=True)
    source = ROOT / kernel.source
    if kernel.language == "c":
        cc = ["gcc", *FLAGS, "-std=c99", f"-I{DRIVERS}"]
        steps = [[*cc, "-c", str(DRIVERS / "common.c"), "-o", "common.o"],
                 [*cc, "-c", str(source), "-o", "kernel.o"],
                 [*cc, str(kernel.driver), "common.o", "kernel.o", "-o", kernel.name]]
    else:
        steps = [["gfortran", *FLAGS, "-c", str(DRIVERS / "common.f90"), "-o", "common.o"],
                 ["gfortran", *FLAGS, "-c", str(source), "-o", "kernel.o"],
                 ["gfortran", *FLAGS, "-I.", str(kernel.driver), "common.o", "kernel.o",
                  "-o", kernel.name]]
    for step in steps:
        done = subprocess.run(step, cwd=out, capture_output=True, text=True)
        if done.returncode != 0:
            raise ValidationError(f"{' '.join(step)} failed: {done.stderr.strip()}")
    return out / kernel.name


# ---------------------------------------------------------------- measuring


def parse_cachegrind(text: str, source: Path) -> dict[str, int]:
    """Event totals over the lines of ``source`` in a cachegrind output file."""
    events: list[str] = []
    totals: dict[str, int] = {}
    inside = False
    resolved = str(source.resolve())
    for line in text.splitlines():
        if line.startswith("events:"):
            events = line.split()[1:]
            totals = dict.fromkeys(events, 0)
        elif line.startswith("fl="):
            inside = str(Path(line[3:]).resolve()) == resolved
        elif inside and line[:1].isdigit():
            counts = line.split()[1:]
            for name, count in zip(events, counts, strict=False):
                totals[name] += int(count)
    return totals


def parse_summary(text: str) -> dict[str, int]:
    """The ``summary:`` totals of a cachegrind or callgrind output file."""
    events: list[str] = []
    for line in text.splitlines():
        if line.startswith("events:"):
            events = line.split()[1:]
        elif line.startswith(("summary:", "totals:")):
            return {e: int(c) for e, c in zip(events, line.split()[1:], strict=False)}
    raise ValidationError("no summary line in the simulator's output")


def flush_bytes(cache_kb: int) -> int:
    # Reading twice the cache through an LRU cache evicts everything it held.
    return 2 * cache_kb * 1024 + 1024 * 1024


def ll_ways(cache_kb: int) -> int:
    if cache_kb <= FULLY_ASSOCIATIVE_KB:
        return cache_kb * 1024 // LINE_BYTES
    return LL_WAYS


def simulate(tool: str, exe: Path, n: int, sweeps: int, cache_kb: int, out: Path) -> str:
    """Run ``exe`` under valgrind ``tool`` with a ``cache_kb`` last level; the output file."""
    ll = f"{cache_kb * 1024},{ll_ways(cache_kb)},{LINE_BYTES}"
    command = ["valgrind", f"--tool={tool}", "--cache-sim=yes", f"--D1={D1}", f"--LL={ll}"]
    if tool == "callgrind":
        command += ["--simulate-wb=yes", f"--callgrind-out-file={out}"]
    else:
        command += [f"--cachegrind-out-file={out}"]
    command += [str(exe), str(n), str(sweeps), str(flush_bytes(cache_kb))]
    done = subprocess.run(command, capture_output=True, text=True)
    if done.returncode != 0:
        raise ValidationError(f"{' '.join(command)} failed: {done.stderr.strip()[-500:]}")
    return out.read_text()


@dataclass
class Measurement:
    """Per-sweep counts of one kernel at one cache size (2-sweep run minus 1-sweep run)."""

    read_misses: int  # LL read misses in the kernel's source lines
    write_misses: int  # LL write misses (write-allocate) in the kernel's source lines
    write_backs: int  # dirty lines evicted (whole program; only the kernel writes)

    @property
    def bytes(self) -> int:
        return (self.read_misses + self.write_misses + self.write_backs) * LINE_BYTES


def measure(kernel: Kernel, exe: Path, n: int, cache_kb: int) -> Measurement:
    source = ROOT / kernel.source
    work = exe.parent
    misses: dict[int, dict[str, int]] = {}
    backs: dict[int, int] = {}
    for sweeps in (1, 2):
        tag = f"{cache_kb}k.{sweeps}"
        text = simulate("cachegrind", exe, n, sweeps, cache_kb, work / f"cg.{tag}")
        misses[sweeps] = parse_cachegrind(text, source)
        summary = parse_summary(simulate("callgrind", exe, n, sweeps, cache_kb,
                                         work / f"cl.{tag}"))
        backs[sweeps] = summary.get("DLdmr", 0) + summary.get("DLdmw", 0)
    return Measurement(misses[2]["DLmr"] - misses[1]["DLmr"],
                       misses[2]["DLmw"] - misses[1]["DLmw"], backs[2] - backs[1])


# ---------------------------------------------------------------- predicting


@dataclass
class Prediction:
    """satreport's per-sweep traffic and the working sets where its reuse case changes."""

    bytes: float
    reuse: str  # reuse level per nest, e.g. "1/1/2" (1 planes, 2 pencils, 3 within, 4 none)
    thresholds_kb: list[float] = field(default_factory=list)


def predict(kernel: Kernel, n: int, cache_kb: int) -> Prediction:
    """Run satreport (in process) on the kernel's source and read its JSON."""
    from sat.cli import main

    argv = [str(ROOT / kernel.source), "--json", "-", "-q", "--set", "Cores=1",
            "--set", f"CacheKB={cache_kb}"]
    for item in kernel.satreport_sets(n):
        argv += ["--set", item]
    stdout, stderr = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(stdout), contextlib.redirect_stderr(stderr):
        status = main(argv)
    if status != 0:
        raise ValidationError(f"satreport {' '.join(argv)}: exit {status}: "
                              f"{stderr.getvalue().strip()}")
    data = json.loads(stdout.getvalue())
    thresholds = sorted({loop[f"ws_actual_{level}_kb"] for loop in data["loops"]
                         for level in ("plane", "pencil", "cell")})
    reuse = "/".join(str(loop["reuse"]) for loop in data["loops"])
    return Prediction(data["totals"]["traffic_gb"] * 1e9, reuse, thresholds)


# ---------------------------------------------------------------- the table


@dataclass
class Row:
    kernel: str
    n: int
    cache_kb: int
    prediction: Prediction
    measurement: Measurement

    @property
    def error(self) -> float:
        """(predicted - measured) / measured."""
        return (self.prediction.bytes - self.measurement.bytes) / self.measurement.bytes

    @property
    def near_threshold(self) -> bool:
        return any(t / NEAR_FACTOR <= self.cache_kb <= t * NEAR_FACTOR
                   for t in self.prediction.thresholds_kb)


HEADER = ("kernel", "n", "cache KiB", "reuse", "predicted MB", "measured MB",
          "of which write-back MB", "error %", "near threshold")


def row_cells(row: Row) -> tuple[str, ...]:
    return (row.kernel, str(row.n), str(row.cache_kb), row.prediction.reuse,
            f"{row.prediction.bytes / 1e6:.3f}", f"{row.measurement.bytes / 1e6:.3f}",
            f"{row.measurement.write_backs * LINE_BYTES / 1e6:.3f}",
            f"{100 * row.error:+.1f}", "yes" if row.near_threshold else "")


def summary_lines(rows: list[Row]) -> list[str]:
    """Median and worst absolute error, over all rows and away from the thresholds."""
    lines = []
    for label, subset in (("all rows", rows),
                          ("away from thresholds", [r for r in rows if not r.near_threshold]),
                          ("near thresholds", [r for r in rows if r.near_threshold])):
        if not subset:
            continue
        errors = [abs(r.error) for r in subset]
        worst = max(subset, key=lambda r: abs(r.error))
        lines.append(f"{label}: {len(subset)} rows, median |error| "
                     f"{100 * statistics.median(errors):.1f}%, worst {100 * worst.error:+.1f}% "
                     f"({worst.kernel}, {worst.cache_kb} KiB)")
    for kernel in dict.fromkeys(r.kernel for r in rows):
        away = [r for r in rows if r.kernel == kernel and not r.near_threshold]
        if away:
            worst = max(away, key=lambda r: abs(r.error))
            lines.append(f"{kernel} away from thresholds: median |error| "
                         f"{100 * statistics.median(abs(r.error) for r in away):.1f}%, "
                         f"worst {100 * worst.error:+.1f}% ({worst.cache_kb} KiB)")
    return lines


def text_table(rows: list[Row]) -> str:
    table = [HEADER, *(row_cells(r) for r in rows)]
    widths = [max(len(line[c]) for line in table) for c in range(len(HEADER))]
    return "\n".join("  ".join(cell.rjust(w) for cell, w in zip(line, widths, strict=True))
                     for line in table)


def markdown_table(rows: list[Row]) -> str:
    lines = ["| " + " | ".join(HEADER) + " |", "|" + "---|" * len(HEADER)]
    lines += ["| " + " | ".join(row_cells(r)) + " |" for r in rows]
    return "\n".join(lines)


def machine_description() -> str:
    model = platform.processor() or platform.machine()
    with contextlib.suppress(OSError, subprocess.SubprocessError):
        for line in subprocess.run(["lscpu"], capture_output=True, text=True).stdout.splitlines():
            if line.startswith("Model name:"):
                model = line.split(":", 1)[1].strip()
    memory = ""
    with contextlib.suppress(OSError):
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal:"):
                memory = f", {int(line.split()[1]) / 2 ** 20:.1f} GiB memory"
    return f"{model}, {os.cpu_count()} logical CPUs{memory}"


def tool_versions() -> str:
    versions = []
    for command in (["valgrind", "--version"], ["gfortran", "--version"], ["gcc", "--version"]):
        with contextlib.suppress(OSError):
            out = subprocess.run(command, capture_output=True, text=True).stdout
            versions.append(out.splitlines()[0] if out else command[0])
    return ", ".join(versions)


# ---------------------------------------------------------------- driver


def run(kernels: list[Kernel], caches_kb: list[int], n: int, jobs: int,
        workdir: Path) -> list[Row]:
    """Build, simulate and predict every (kernel, cache size); rows in table order."""
    executables = {k.name: build(k, workdir) for k in kernels}
    cases = [(k, c) for k in kernels for c in caches_kb]
    with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        measured = list(pool.map(lambda kc: measure(kc[0], executables[kc[0].name], n, kc[1]),
                                 cases))
    # satreport runs in this process, one case after the other (its parser is not reentrant).
    return [Row(k.name, n, c, predict(k, n, c), m) for (k, c), m in zip(cases, measured,
                                                                          strict=True)]


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--kernels", default=",".join(k.name for k in KERNELS),
                        help="comma-separated kernel names (default: all)")
    parser.add_argument("--caches", default=",".join(map(str, DEFAULT_CACHES_KB)),
                        help="comma-separated last-level cache sizes in KiB (powers of two)")
    parser.add_argument("--size", type=int, default=64, help="box edge n (default 64)")
    parser.add_argument("--jobs", type=int, default=2, help="simulations run at once")
    parser.add_argument("--markdown", metavar="FILE", help="also write the table as Markdown")
    parser.add_argument("--workdir", metavar="DIR",
                        help="keep binaries and simulator outputs here (default: temporary)")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    by_name = {k.name: k for k in KERNELS}
    try:
        kernels = [by_name[name.strip()] for name in args.kernels.split(",") if name.strip()]
        caches = [int(c) for c in args.caches.split(",") if c.strip()]
    except (KeyError, ValueError) as error:
        print(f"run.py: error: bad --kernels or --caches: {error}", file=sys.stderr)
        return 2
    if any(c < 2 or c & (c - 1) for c in caches):
        print("run.py: error: cache sizes must be powers of two, at least 2 KiB "
              "(cachegrind needs a power-of-two number of sets)", file=sys.stderr)
        return 2
    if missing_tools(kernels):
        print(f"run.py: error: not installed: {', '.join(missing_tools(kernels))}",
              file=sys.stderr)
        return 2
    sys.path.insert(0, str(ROOT))
    started = datetime.datetime.now()
    try:
        with contextlib.ExitStack() as stack:
            workdir = Path(args.workdir) if args.workdir else Path(
                stack.enter_context(tempfile.TemporaryDirectory(prefix="satval-")))
            rows = run(kernels, caches, args.size, args.jobs, workdir)
    except ValidationError as error:
        print(f"run.py: error: {error}", file=sys.stderr)
        return 2
    elapsed = (datetime.datetime.now() - started).total_seconds()
    heading = [f"Date: {started:%Y-%m-%d %H:%M}", f"Machine: {machine_description()}",
               f"Tools: {tool_versions()}",
               f"Simulated caches: D1 {D1}; LL of the given size, {LINE_BYTES} B lines, LRU, "
               f"write-allocate, fully associative up to {FULLY_ASSOCIATIVE_KB} KiB and "
               f"{LL_WAYS}-way above; problem {args.size}^3, Cores=1; "
               f"run time {elapsed:.0f} s"]
    print("\n".join(heading))
    print(text_table(rows))
    print("\n".join(summary_lines(rows)))
    if args.markdown:
        Path(args.markdown).write_text("\n\n".join(["\n".join(f"{h}  " for h in heading),
                                                     markdown_table(rows),
                                                     "\n".join(f"- {s}" for s in
                                                               summary_lines(rows))]) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
