"""Two cache levels: satreport's and Kerncraft's per-level traffic against cache simulation.

For each C kernel of ``KERNELS`` and each (L1, L2) size pair of ``PAIRS``, measures the bytes
moved per loop iteration between L1 and L2 and between L2 and memory, and sets beside them
satreport's prediction (the ``levels`` of its JSON) and Kerncraft's layer-condition
prediction (``kerncraft -p LC``), both run with a machine file whose two caches have the
simulated sizes.

Measured, per sweep (every count is the 2-sweep run minus the 1-sweep run; see README.md,
"Two cache levels"):

* cachegrind with ``--D1`` and ``--LL`` set to the pair: L1 misses (lines read from L2) and LL
  misses (lines read from memory), on the lines of the kernel's source;
* L1 write-backs: ``cachesim.c`` replays the data accesses traced by valgrind's lackey
  through the same two caches with dirty bits (cachegrind models none);
* L2 write-backs: callgrind's cache simulator with ``--simulate-wb=yes``, as in run.py.

The simulation also runs every pair fully associative: a level whose set-associative traffic
exceeds the fully associative one by more than ``CONFLICT_FACTOR`` suffers conflict misses,
which layer conditions do not describe; such rows are flagged, not tuned to.

Usage::

    python bench/validation/two_levels.py [--kernels 3d-7pt,copy] [--pairs 32:512,48:2048]
        [--kerncraft-dir DIR] [--jobs 2] [--markdown FILE] [--workdir DIR]

Needs gcc and valgrind; Kerncraft is installed into ``--kerncraft-dir`` by
``setup_kerncraft.sh`` (run automatically when missing), never into satreport's environment.
"""

from __future__ import annotations

import argparse
import ast
import contextlib
import datetime
import io
import json
import operator
import re
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
sys.path.insert(0, str(HERE))
import run as one_level  # noqa: E402  (the one-level harness: cachegrind parsing, machine facts)

LINE_BYTES = 64
MACHINE_TEMPLATE = HERE / "two-level.yml"
DEFAULT_KERNCRAFT_DIR = Path(tempfile.gettempdir()) / "satreport-kerncraft"
# -fno-tree-vectorize: cachegrind counts an access that spans two lines as one miss, and
# vector loads of unaligned rows do; -fno-tree-loop-distribute-patterns: gcc would turn a copy
# loop into a call to memcpy, whose accesses are not on the kernel's lines.
FLAGS = ["-O2", "-g", "-fno-tree-vectorize", "-fno-tree-loop-distribute-patterns", "-std=c99"]
# A level is flagged for conflict misses when its set-associative traffic exceeds the fully
# associative one by more than this factor.
CONFLICT_FACTOR = 1.10
WORD_BYTES = 8  # every kernel here computes in double precision


@dataclass(frozen=True)
class CachePair:
    """An L1 and an L2 (KiB and ways): the caches simulated and described to both tools."""

    l1_kb: int
    l1_ways: int
    l2_kb: int
    l2_ways: int

    @property
    def label(self) -> str:
        return f"{self.l1_kb}/{self.l2_kb}"

    def sets(self, kb: int, ways: int) -> int:
        return kb * 1024 // (LINE_BYTES * ways)

    def cachegrind(self) -> list[str]:
        return [f"--D1={self.l1_kb * 1024},{self.l1_ways},{LINE_BYTES}",
                f"--LL={self.l2_kb * 1024},{self.l2_ways},{LINE_BYTES}"]

    def simulator(self, fully_associative: bool = False) -> str:
        ways1, ways2 = (0, 0) if fully_associative else (self.l1_ways, self.l2_ways)
        return f"{self.l1_kb * 1024}:{ways1}:{self.l2_kb * 1024}:{ways2}"


# Realistic pairs: L1 of 16, 32 and 48 KiB; L2 from 256 KiB to 2 MiB.  Every size gives a
# power-of-two number of sets (cachegrind's condition): 16 KiB 4-way and 32 KiB 8-way and
# 48 KiB 12-way have 64 sets; 1.25 MiB 20-way has 1024.
PAIRS = (CachePair(16, 4, 256, 8), CachePair(32, 8, 512, 8), CachePair(32, 8, 1024, 16),
         CachePair(48, 12, 1280, 20), CachePair(48, 12, 2048, 16))

# The 7-point Laplacian of examples/c/stencil7.c in Kerncraft's form: Kerncraft needs one size
# symbol per dimension (M = n + 2 with the ghost layers) and '<' loop conditions.
STENCIL7_SNIPPET = """\
double a0[M][M][M];
double anext[M][M][M];
double fac, fac2;

for (int k = 1; k < M-1; k++)
    for (int j = 1; j < M-1; j++)
        for (int i = 1; i < M-1; i++)
            anext[k][j][i] = fac * a0[k][j][i]
                           + fac2 * (a0[k][j][i + 1] + a0[k][j][i - 1]
                                   + a0[k][j + 1][i] + a0[k][j - 1][i]
                                   + a0[k + 1][j][i] + a0[k - 1][j][i]);
"""


@dataclass(frozen=True)
class Kernel:
    """One kernel: the source satreport reads and the measured program runs, and Kerncraft's.

    ``source`` is a path under the repository or ``kerncraft:NAME`` (one of Kerncraft's
    example kernels, read as it is by satreport and compiled through ``drivers/snippet.c``).
    ``kerncraft`` is what Kerncraft reads: ``kerncraft:NAME``, ``snippet`` (the text of
    ``snippet``) or "" (a kernel its layer conditions do not describe: tiles, several nests,
    arrays indexed against the loop order).  ``driver`` is a driver of ``drivers/`` for a source in
    function form, run as ``driver N SWEEPS FLUSH``.
    """

    name: str
    title: str
    source: str
    kerncraft: str
    defines: tuple[tuple[str, int], ...]  # Kerncraft's -D, and the snippet's sizes
    sets: tuple[str, ...]  # satreport's --set
    iterations: int  # innermost iterations per sweep
    driver: str = ""
    driver_n: int = 0
    snippet: str = ""


N7 = 96  # box edge of the 7-point Laplacian: three 98**2 planes of a0 (225 KiB) plus anext's
KERNELS = (
    Kernel("stencil7_c", "7-point Laplacian (examples/c/stencil7.c)", "examples/c/stencil7.c",
           "snippet", (("M", N7 + 2),), (f"nx={N7}", f"ny={N7}", f"nz={N7}"), N7 ** 3,
           driver="stencil7_c.c", driver_n=N7, snippet=STENCIL7_SNIPPET),
    Kernel("triad_c", "Schoenauer triad (examples/c/triad.c)", "examples/c/triad.c",
           "kerncraft:triad.c", (("N", N7 ** 3),), (f"n={N7 ** 3}",), N7 ** 3,
           driver="triad_c.c", driver_n=N7),
    Kernel("2d-5pt", "Kerncraft's 2d-5pt", "kerncraft:2d-5pt.c", "kerncraft:2d-5pt.c",
           (("M", 1000), ("N", 1000)), ("M=1000", "N=1000"), 998 * 998),
    Kernel("3d-7pt", "Kerncraft's 3d-7pt", "kerncraft:3d-7pt.c", "kerncraft:3d-7pt.c",
           (("M", 100), ("N", 100)), ("M=100", "N=100"), 98 ** 3),
    Kernel("copy", "Kerncraft's copy", "kerncraft:copy.c", "kerncraft:copy.c",
           (("N", 1_000_000),), ("N=1000000",), 1_000_000),
    Kernel("uxx", "Kerncraft's uxx-stencil", "kerncraft:uxx-stencil.c",
           "kerncraft:uxx-stencil.c", (("M", 72), ("N", 72)), ("M=72", "N=72"), 68 ** 3),
    Kernel("long-range", "Kerncraft's 3d-long-range-stencil",
           "kerncraft:3d-long-range-stencil.c", "kerncraft:3d-long-range-stencil.c",
           (("M", 72), ("N", 72)), ("M=72", "N=72"), 64 ** 3),
    # arrays that skip an axis of the nest: c and b are reused across j when their rows fit
    Kernel("matvec_trans", "Kerncraft's matvec_trans", "kerncraft:matvec_trans.c",
           "kerncraft:matvec_trans.c", (("M", 2001), ("N", 2000)), ("M=2001", "N=2000"),
           2001 * 2000),
    # a column access in the inner loop (c[i] += a[i][j] * b[i], j outer): a line of a per
    # iteration, reused at the next j only where the column's 2,000 lines and b, c fit
    # (Kerncraft's layer conditions fail on it: "Number of multiplications in index term does
    # not match loop counter order")
    Kernel("matvec", "Kerncraft's matvec", "kerncraft:matvec.c", "",
           (("M", 2001), ("N", 2000)), ("M=2001", "N=2000"), 2001 * 2000),
    # a reduction into tot[k][j]: one element per (j, k) beside the 64^3 stream of x
    # (Kerncraft's layer conditions fail on it: "Number of multiplications in index term does
    # not match loop counter order")
    Kernel("reduction", "tot[k][j] += x[k][j][i] (kernels/reduction.c)",
           "bench/validation/kernels/reduction.c", "", (("N", 64),), ("N=64",), 64 ** 3),
    # a nest tiled 16 x 16 beside an untiled sibling, both in a time loop of 2 steps
    Kernel("tiled", "tiled nest and sibling in a time loop (kernels/tiled.c)",
           "bench/validation/kernels/tiled.c", "", (("N", 512), ("S", 16), ("NT", 2)),
           ("N=512", "S=16", "NT=2"), 2 * 2 * 512 ** 2),
    # 4th-order damping: a 13-point star on u with 1-D coefficients strx[i], dcx[i], stry[j],
    # ... that stay in cache (Kerncraft's layer conditions fail on them, as on reduction)
    Kernel("damping4", "4th-order damping (kernels/damping4.c)",
           "bench/validation/kernels/damping4.c", "", (("N", 66),), ("N=66",), 62 ** 3),
)


class ValidationError(Exception):
    """A tool is missing or a step failed: one line for the user."""


# ---------------------------------------------------------------- Kerncraft's environment


@dataclass
class Kerncraft:
    """Kerncraft installed by setup_kerncraft.sh: its command, version and example kernels."""

    workdir: Path

    @property
    def command(self) -> Path:
        return self.workdir / "venv" / "bin" / "kerncraft"

    @property
    def version(self) -> str:
        return (self.workdir / "version").read_text().strip()

    @property
    def kernels(self) -> Path:
        return self.workdir / f"kerncraft-{self.version}" / "examples" / "kernels"


def setup_kerncraft(workdir: Path) -> Kerncraft:
    found = Kerncraft(workdir)
    if not (found.command.exists() and (workdir / "version").exists()
            and found.kernels.is_dir()):
        print(f"installing Kerncraft into {workdir} (setup_kerncraft.sh)", file=sys.stderr)
        done = subprocess.run(["sh", str(HERE / "setup_kerncraft.sh"), str(workdir)],
                              capture_output=True, text=True)
        if done.returncode != 0:
            raise ValidationError(f"setup_kerncraft.sh failed: {done.stderr.strip()[-500:]}")
    return found


# ---------------------------------------------------------------- machine files


def machine_text(pair: CachePair) -> str:
    """The two-level machine file with the pair's sizes (sets x ways x 64 B)."""
    text = MACHINE_TEMPLATE.read_text()
    levels = text.split("- level: ")
    for index, (kb, ways) in ((1, (pair.l1_kb, pair.l1_ways)), (2, (pair.l2_kb, pair.l2_ways))):
        level = levels[index]
        level = re.sub(r"(\n\s+sets: )\d+", rf"\g<1>{pair.sets(kb, ways)}", level, count=1)
        level = re.sub(r"(\n\s+ways: )\d+", rf"\g<1>{ways}", level, count=1)
        level = re.sub(r"(\n\s+size per group: ).*", rf"\g<1>{kb / 1024:.2f} MB" if kb >= 1024
                       else rf"\g<1>{kb:.2f} kB", level, count=1)
        levels[index] = level
    return "- level: ".join(levels)


def write_machine(pair: CachePair, workdir: Path) -> Path:
    path = workdir / f"machine-{pair.l1_kb}k-{pair.l2_kb}k.yml"
    path.write_text(machine_text(pair))
    return path


# ---------------------------------------------------------------- building


def source_path(kernel: Kernel, kerncraft: Kerncraft | None) -> Path:
    if kernel.source.startswith("kerncraft:"):
        if kerncraft is None:
            raise ValidationError(f"{kernel.name}: needs Kerncraft's example kernels")
        return kerncraft.kernels / kernel.source.split(":", 1)[1]
    return ROOT / kernel.source


_STATEMENT = re.compile(r"^\s*(for\b|#\s*pragma\b)")
_DECLARATION = re.compile(r"^(\s*)(double|float|int|long|char|short|unsigned)\b")


def snippet_kernel(snippet: Path) -> str:
    """C text putting a Kerncraft snippet's loops into ``kernel_sweep()``.

    The declarations before the first ``for`` (or pragma) stay at file scope, 64-byte
    aligned as Kerncraft's own benchmark driver allocates its arrays (the model assumes rows
    on line boundaries); ``#line`` keeps the snippet's file and line numbers in the debug
    information, so cachegrind counts the misses on the snippet's lines.
    """
    lines = snippet.read_text().splitlines()
    start = next((n for n, line in enumerate(lines) if _STATEMENT.match(line)), None)
    if start is None:
        raise ValidationError(f"{snippet}: no loop at file level")
    declarations = [_DECLARATION.sub(r"\1__attribute__((aligned(64))) \2", line)
                    for line in lines[:start]]
    quoted = json.dumps(str(snippet))
    return "\n".join([f"#line 1 {quoted}", *declarations, "void kernel_sweep(void) {",
                      f"#line {start + 1} {quoted}", *lines[start:], "}", ""])


def build(kernel: Kernel, workdir: Path, kerncraft: Kerncraft | None) -> Path:
    """Compile the kernel and its driver into ``workdir/<name>/``; return the executable."""
    out = workdir / kernel.name
    out.mkdir(parents=True, exist_ok=True)
    source = source_path(kernel, kerncraft)
    cc = ["gcc", *FLAGS, f"-I{DRIVERS}"]
    steps = [[*cc, "-c", str(DRIVERS / "common.c"), "-o", "common.o"]]
    if kernel.driver:
        steps += [[*cc, "-c", str(source), "-o", "kernel.o"],
                  [*cc, str(DRIVERS / kernel.driver), "common.o", "kernel.o", "-o", "prog"]]
    else:
        (out / "kernel.c").write_text(snippet_kernel(source))
        sizes = [f"-D{name}={value}" for name, value in kernel.defines]
        steps += [[*cc, *sizes, "-c", "kernel.c", "-o", "kernel.o"],
                  [*cc, str(DRIVERS / "snippet.c"), "common.o", "kernel.o", "-o", "prog"]]
    for step in steps:
        done = subprocess.run(step, cwd=out, capture_output=True, text=True)
        if done.returncode != 0:
            raise ValidationError(f"{' '.join(step)} failed: {done.stderr.strip()[-800:]}")
    return out / "prog"


def program_args(kernel: Kernel, sweeps: int, flush: int) -> list[str]:
    if kernel.driver:
        return [str(kernel.driver_n), str(sweeps), str(flush)]
    return [str(sweeps), str(flush)]


def flush_bytes(pairs: list[CachePair]) -> int:
    # One flush for every run of a kernel, so that cachegrind and lackey see the same
    # program: reading twice the largest L2 (plus 1 MiB) evicts everything any pair holds.
    return 2 * max(p.l2_kb for p in pairs) * 1024 + 1024 * 1024


# ---------------------------------------------------------------- measuring


def run_checked(command: list[str], **kwargs) -> subprocess.CompletedProcess:
    done = subprocess.run(command, capture_output=True, text=True, **kwargs)
    if done.returncode != 0:
        raise ValidationError(f"{' '.join(command)} failed: {done.stderr.strip()[-500:]}")
    return done


def cachegrind(exe: Path, args: list[str], pair: CachePair, tag: str, source: Path
               ) -> tuple[dict[str, int], dict[str, int]]:
    """Misses on the kernel's lines and whole-program totals of one cachegrind run."""
    out = exe.parent / f"cg.{tag}"
    run_checked(["valgrind", "--tool=cachegrind", "--cache-sim=yes", *pair.cachegrind(),
                 f"--cachegrind-out-file={out}", str(exe), *args])
    text = out.read_text()
    return one_level.parse_cachegrind(text, source), one_level.parse_summary(text)


def callgrind_writebacks(exe: Path, args: list[str], pair: CachePair, tag: str) -> int:
    """Last-level misses that evict a dirty line (whole program)."""
    out = exe.parent / f"cl.{tag}"
    run_checked(["valgrind", "--tool=callgrind", "--cache-sim=yes", "--simulate-wb=yes",
                 *pair.cachegrind(), f"--callgrind-out-file={out}", str(exe), *args])
    summary = one_level.parse_summary(out.read_text())
    return summary.get("DLdmr", 0) + summary.get("DLdmw", 0)


SIM_FIELDS = ("l1_read_misses", "l1_write_misses", "l1_writebacks", "l2_read_misses",
              "l2_write_misses", "l2_writebacks", "l2_writeback_allocations")


def build_simulator(workdir: Path) -> Path:
    exe = workdir / "cachesim"
    if not exe.exists():
        run_checked(["gcc", "-O2", "-o", str(exe), str(HERE / "cachesim.c")])
    return exe


def simulate(simulator: Path, exe: Path, args: list[str], pairs: list[CachePair]
             ) -> dict[str, dict[str, int]]:
    """lackey's trace of one run through cachesim: counts per configuration string."""
    configs = [p.simulator(full) for p in pairs for full in (False, True)]
    # valgrind writes the trace to fd 3, which the shell points at the pipe to cachesim
    command = (f"valgrind --tool=lackey --trace-mem=yes --log-fd=3 "
               f"{' '.join(map(_quote, [str(exe), *args]))} 3>&1 1>/dev/null 2>/dev/null | "
               f"{_quote(str(simulator))} {' '.join(configs)}")
    done = subprocess.run(["bash", "-o", "pipefail", "-c", command], capture_output=True,
                          text=True)
    if done.returncode != 0:
        raise ValidationError(f"lackey | cachesim failed: {done.stderr.strip()[-500:]}")
    counts = {}
    for line in done.stdout.splitlines():
        config, *values = line.split()
        counts[config] = dict(zip(SIM_FIELDS, map(int, values), strict=True))
    if set(counts) != set(configs):
        raise ValidationError(f"cachesim answered for {sorted(counts)}, asked {configs}")
    return counts


def _quote(text: str) -> str:
    return "'" + text.replace("'", "'\"'\"'") + "'"


@dataclass
class LevelMeasurement:
    """Lines per sweep across one boundary (2-sweep run minus 1-sweep run)."""

    misses: int  # cachegrind: lines read into the level, on the kernel's lines
    writebacks: int  # dirty lines written out of the level
    full_lines: int  # the simulation's loads + write-backs, fully associative
    set_lines: int  # the simulation's loads + write-backs, set-associative

    @property
    def lines(self) -> int:
        return self.misses + self.writebacks

    @property
    def lines_fully_associative(self) -> int:
        """``lines`` with fully associative caches.

        The simulation counts the whole program, flush included; the flush reads more than
        twice the L2 and misses on every line whatever the associativity, so the difference
        between the two simulations is the kernel's own.
        """
        return self.lines + self.full_lines - self.set_lines

    @property
    def conflicts(self) -> bool:
        return self.lines > CONFLICT_FACTOR * self.lines_fully_associative


@dataclass
class Measurement:
    l1: LevelMeasurement
    l2: LevelMeasurement
    # cross-checks of the simulation: (cachesim - valgrind) / valgrind, whole program
    check_misses: float = 0.0  # against cachegrind's D1 and LL misses
    check_writebacks: float = 0.0  # against callgrind's LL write-backs


def _difference(one: dict, two: dict, *keys: str) -> int:
    return sum(two[k] - one[k] for k in keys)


def valgrind_counts(kernel: Kernel, exe: Path, source: Path, pair: CachePair, flush: int
                    ) -> tuple[dict, dict, dict]:
    """cachegrind's kernel-line misses and totals and callgrind's write-backs, per sweep count."""
    kernel_misses, totals, backs = {}, {}, {}
    for sweeps in (1, 2):
        args = program_args(kernel, sweeps, flush)
        tag = f"{pair.l1_kb}k-{pair.l2_kb}k.{sweeps}"
        kernel_misses[sweeps], totals[sweeps] = cachegrind(exe, args, pair, tag, source)
        backs[sweeps] = callgrind_writebacks(exe, args, pair, tag)
    return kernel_misses, totals, backs


def combine(counts: tuple[dict, dict, dict], pair: CachePair,
            simulated: dict[int, dict[str, dict[str, int]]]) -> Measurement:
    """Per-sweep lines at both levels from valgrind's counts and the simulation's."""
    kernel_misses, totals, backs = counts
    sa = {s: simulated[s][pair.simulator()] for s in (1, 2)}
    fa = {s: simulated[s][pair.simulator(True)] for s in (1, 2)}

    def sim(counts: dict, level: str) -> int:
        return _difference(counts[1], counts[2], f"{level}_read_misses", f"{level}_write_misses",
                           f"{level}_writebacks")

    l1 = LevelMeasurement(_difference(kernel_misses[1], kernel_misses[2], "D1mr", "D1mw"),
                          _difference(sa[1], sa[2], "l1_writebacks"), sim(fa, "l1"),
                          sim(sa, "l1"))
    l2 = LevelMeasurement(_difference(kernel_misses[1], kernel_misses[2], "DLmr", "DLmw"),
                          backs[2] - backs[1], sim(fa, "l2"), sim(sa, "l2"))
    valgrind_misses = _difference(totals[1], totals[2], "D1mr", "D1mw", "DLmr", "DLmw")
    sim_misses = _difference(sa[1], sa[2], "l1_read_misses", "l1_write_misses",
                             "l2_read_misses", "l2_write_misses")
    sim_backs = _difference(sa[1], sa[2], "l2_writebacks")
    return Measurement(l1, l2, _relative(sim_misses, valgrind_misses),
                       _relative(sim_backs, l2.writebacks))


def measure(kernel: Kernel, exe: Path, source: Path, pair: CachePair, flush: int,
            simulated: dict[int, dict[str, dict[str, int]]]) -> Measurement:
    return combine(valgrind_counts(kernel, exe, source, pair, flush), pair, simulated)


def _relative(value: float, reference: float) -> float:
    return (value - reference) / reference if reference else float(value != reference)


# ---------------------------------------------------------------- satreport


@dataclass
class Prediction:
    """Bytes per iteration per level (None: satreport's JSON has no levels)."""

    per_level: dict[str, float] | None
    note: str = ""


def satreport_json(argv: list[str]) -> tuple[int, dict, str]:
    from sat.cli import main

    stdout, stderr = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(stdout), contextlib.redirect_stderr(stderr):
        status = main(argv)
    data = json.loads(stdout.getvalue()) if status == 0 else {}
    return status, data, stderr.getvalue().strip()


def satreport_levels(data: dict, iterations: int) -> dict[str, float] | None:
    """Bytes per iteration per cache level from the JSON's ``loops[].levels``, or None.

    Each level's ``traffic_gb`` is the bytes (10^9) one run of the nest moves between that
    level and the next one out; the nests' sums over the kernel's iterations.
    """
    loops = data.get("loops", [])
    if not loops or not all(isinstance(loop.get("levels"), list) for loop in loops):
        return None
    total: dict[str, float] = {}
    for loop in loops:
        for level in loop["levels"]:
            name = str(level.get("level", ""))
            total[name] = total.get(name, 0.0) + float(level["traffic_gb"]) * 1e9
    return {name: value / iterations for name, value in total.items()}


def predict(kernel: Kernel, source: Path, machine: Path, pair: CachePair,
            knows_level_sizes: bool) -> Prediction:
    argv = [str(source), "--machine", str(machine), "--json", "-", "-q", "--set", "Cores=1"]
    if knows_level_sizes:
        argv += ["--set", f"L1KB={pair.l1_kb}", "--set", f"L2KB={pair.l2_kb}"]
    for item in kernel.sets:
        argv += ["--set", item]
    status, data, err = satreport_json(argv)
    if status != 0:
        raise ValidationError(f"satreport {' '.join(argv)}: exit {status}: {err}")
    levels = satreport_levels(data, kernel.iterations)
    if levels is None:
        return Prediction(None, "satreport JSON has no levels")
    return Prediction(levels)


def satreport_knows_level_sizes(source: Path, machine: Path) -> bool:
    """Whether satreport has the per-level capacity parameters (L1KB, L2KB)."""
    status, data, _ = satreport_json([str(source), "--machine", str(machine), "--json", "-",
                                      "-q"])
    names = {p.get("name") for p in data.get("parameters", [])} if status == 0 else set()
    return {"L1KB", "L2KB"} <= names


# ---------------------------------------------------------------- Kerncraft


@dataclass
class KerncraftPrediction:
    per_level: dict[str, float]  # bytes per iteration
    conditions: dict[str, str]  # the layer condition that holds, per level


_OPERATORS = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul,
              ast.Div: operator.truediv, ast.Pow: operator.pow, ast.USub: operator.neg,
              ast.UAdd: operator.pos, ast.Lt: operator.lt, ast.LtE: operator.le,
              ast.Gt: operator.gt, ast.GtE: operator.ge, ast.Eq: operator.eq}


def evaluate_condition(condition: object, values: dict[str, int]) -> bool:
    """Kerncraft's layer condition (sympy text such as ``2*M**2 - M <= 16384``) at ``values``.

    Parsed with :mod:`ast` and evaluated over numbers only: the text comes from another
    program's output file.
    """
    if isinstance(condition, bool):
        return condition
    text = str(condition).strip()
    if text in ("True", "False"):
        return text == "True"

    def value(node: ast.AST) -> float | bool:
        if isinstance(node, ast.Expression):
            return value(node.body)
        if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)):
            return node.value
        if isinstance(node, ast.Name) and node.id in values:
            return values[node.id]
        if isinstance(node, ast.BinOp) and type(node.op) in _OPERATORS:
            return _OPERATORS[type(node.op)](value(node.left), value(node.right))
        if isinstance(node, ast.UnaryOp) and type(node.op) in _OPERATORS:
            return _OPERATORS[type(node.op)](value(node.operand))
        if isinstance(node, ast.Compare):
            left = value(node.left)
            for op, right_node in zip(node.ops, node.comparators, strict=True):
                right = value(right_node)
                if type(op) not in _OPERATORS or not _OPERATORS[type(op)](left, right):
                    return False
                left = right
            return True
        if isinstance(node, ast.BoolOp):
            results = [bool(value(v)) for v in node.values]
            return all(results) if isinstance(node.op, ast.And) else any(results)
        raise ValidationError(f"Kerncraft condition {text!r}: cannot evaluate "
                              f"{ast.dump(node)[:80]}")

    return bool(value(ast.parse(text.replace("&", " and ").replace("|", " or "),
                                mode="eval")))


def parse_kerncraft_lc(data: dict, defines: dict[str, int], level_names: list[str]
                       ) -> tuple[dict[str, float], dict[str, str]]:
    """Bytes per iteration per level from Kerncraft's ``--json`` of ``-p LC``.

    Per cache level Kerncraft lists layer conditions from the most reuse to none, each with
    the accesses per iteration that miss and the streams evicted (written back); the first
    condition that holds applies.  A missing access or an evicted stream moves one element
    per iteration: one line per 64 B / 8 B = 8 iterations.
    """
    (result,) = data.values()
    per_level, conditions = {}, {}
    for name, table in zip(level_names, result["cache"], strict=False):
        for row in table:
            if evaluate_condition(row["condition"], defines):
                per_level[name] = (row["misses"] + row["evicts"]) * WORD_BYTES
                conditions[name] = str(row["condition"])
                break
    return per_level, conditions


def kerncraft_predict(kerncraft: Kerncraft, kernel: Kernel, machine: Path, workdir: Path
                      ) -> KerncraftPrediction:
    # Kerncraft keeps its layer-condition analysis beside the kernel file
    # (.NAME_kerncraft/CORES/LC_analysis.pickle.lzma) and reuses it whatever the machine file
    # says: every (kernel, cache pair) gets a fresh copy of the kernel in a folder of its own.
    folder = workdir / kernel.name / f"kerncraft-{machine.stem}"
    folder.mkdir(parents=True, exist_ok=True)
    if kernel.kerncraft == "snippet":
        text = kernel.snippet
        source = folder / f"{kernel.name}.c"
    else:
        name = kernel.kerncraft.split(":", 1)[1]
        text = (kerncraft.kernels / name).read_text()
        source = folder / name
    shutil.rmtree(folder / f".{source.name}_kerncraft", ignore_errors=True)
    source.write_text(text)
    out = folder / "lc.json"
    command = [str(kerncraft.command), "-p", "LC", "-m", str(machine), str(source),
               "--json", str(out)]
    for name, value in kernel.defines:
        command += ["-D", name, str(value)]
    run_checked(command, cwd=folder)
    per_level, conditions = parse_kerncraft_lc(json.loads(out.read_text()),
                                               dict(kernel.defines), ["L1", "L2"])
    return KerncraftPrediction(per_level, conditions)


# ---------------------------------------------------------------- the table


@dataclass
class Row:
    kernel: str
    pair: CachePair
    level: str  # "L1" (L1-L2 traffic) or "L2" (L2-memory traffic)
    iterations: int
    measured: LevelMeasurement
    satreport: float | None  # bytes per iteration
    kerncraft: float | None
    condition: str = ""

    @property
    def measured_bpi(self) -> float:
        return self.measured.lines * LINE_BYTES / self.iterations

    @property
    def writeback_bpi(self) -> float:
        return self.measured.writebacks * LINE_BYTES / self.iterations

    @property
    def full_bpi(self) -> float:
        return self.measured.lines_fully_associative * LINE_BYTES / self.iterations

    def error(self, predicted: float | None) -> float | None:
        if predicted is None or not self.measured.lines:
            return None
        return (predicted - self.measured_bpi) / self.measured_bpi


HEADER = ("kernel", "L1/L2 KiB", "level", "measured B/it", "of which write-back",
          "fully assoc. B/it", "satreport B/it", "satreport error %", "Kerncraft B/it",
          "Kerncraft error %", "Kerncraft condition", "flag")


def _number(value: float | None) -> str:
    return "" if value is None else f"{value:.2f}"


def _percent(value: float | None) -> str:
    return "" if value is None else f"{100 * value:+.1f}"


def row_cells(row: Row) -> tuple[str, ...]:
    return (row.kernel, row.pair.label, row.level, _number(row.measured_bpi),
            _number(row.writeback_bpi), _number(row.full_bpi), _number(row.satreport),
            _percent(row.error(row.satreport)), _number(row.kerncraft),
            _percent(row.error(row.kerncraft)), row.condition,
            "conflicts" if row.measured.conflicts else "")


def summary_lines(rows: list[Row]) -> list[str]:
    """Median and worst absolute error per level per tool, all rows and without conflicts."""
    lines = []
    for tool, get in (("satreport", lambda r: r.satreport), ("Kerncraft", lambda r: r.kerncraft)):
        for level in ("L1", "L2"):
            for label, keep in (("all rows", lambda r: True),
                                ("without conflicts", lambda r: not r.measured.conflicts)):
                subset = [r for r in rows if r.level == level and keep(r)
                          and r.error(get(r)) is not None]
                if not subset:
                    lines.append(f"{tool} {level} ({label}): no prediction")
                    continue
                worst = max(subset, key=lambda r: abs(r.error(get(r))))
                median = statistics.median(abs(r.error(get(r))) for r in subset)
                lines.append(f"{tool} {level} ({label}): {len(subset)} rows, median |error| "
                             f"{100 * median:.1f}%, worst {100 * worst.error(get(worst)):+.1f}% "
                             f"({worst.kernel}, {worst.pair.label} KiB)")
    return lines


def text_table(rows: list[Row]) -> str:
    table = [HEADER, *(row_cells(r) for r in rows)]
    widths = [max(len(line[c]) for line in table) for c in range(len(HEADER))]
    return "\n".join("  ".join(cell.rjust(w) for cell, w in zip(line, widths, strict=True))
                     .rstrip() for line in table)


def markdown_table(rows: list[Row]) -> str:
    lines = ["| " + " | ".join(HEADER) + " |", "|" + "---|" * len(HEADER)]
    condition = HEADER.index("Kerncraft condition")
    for row in rows:
        cells = list(row_cells(row))
        # a condition such as 2*M**2 would read as emphasis in Markdown
        cells[condition] = f"`{cells[condition]}`" if cells[condition] else ""
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


# ---------------------------------------------------------------- driver


@dataclass
class Result:
    rows: list[Row]
    notes: list[str] = field(default_factory=list)
    checks: list[tuple[str, str, Measurement]] = field(default_factory=list)


def run(kernels: list[Kernel], pairs: list[CachePair], jobs: int, workdir: Path,
        kerncraft: Kerncraft | None) -> Result:
    result = Result([])
    simulator = build_simulator(workdir)
    machines = {p: write_machine(p, workdir) for p in pairs}
    flush = flush_bytes(pairs)
    exes = {k.name: build(k, workdir, kerncraft) for k in kernels}
    sources = {k.name: source_path(k, kerncraft) for k in kernels}
    with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        # the slow lackey traces first, one per kernel and sweep count, for every pair at once
        traces = {(k.name, s): pool.submit(simulate, simulator, exes[k.name],
                                           program_args(k, s, flush), pairs)
                  for k in kernels for s in (1, 2)}
        predictions = {}
        if kerncraft is not None:
            predictions = {(k.name, p): pool.submit(kerncraft_predict, kerncraft, k,
                                                    machines[p], workdir)
                           for k in kernels for p in pairs if k.kerncraft}

        def measured(kernel: Kernel, pair: CachePair) -> Measurement:
            counts = valgrind_counts(kernel, exes[kernel.name], sources[kernel.name], pair,
                                     flush)
            # the traces were queued first: by now they are done or running
            return combine(counts, pair, {s: traces[(kernel.name, s)].result() for s in (1, 2)})

        measurements = {(k.name, p): pool.submit(measured, k, p) for k in kernels for p in pairs}
        # satreport runs in this process meanwhile, one case after the other
        knows = satreport_knows_level_sizes(sources[kernels[0].name], machines[pairs[0]])
        satreport = {(k.name, p): predict(k, sources[k.name], machines[p], p, knows)
                     for k in kernels for p in pairs}
        for kernel in kernels:
            for pair in pairs:
                m = measurements[(kernel.name, pair)].result()
                found = predictions.get((kernel.name, pair))
                kc = found.result() if found is not None else None
                sat = satreport[(kernel.name, pair)]
                if sat.note and sat.note not in result.notes:
                    result.notes.append(sat.note)
                result.checks.append((kernel.name, pair.label, m))
                for level, lm in (("L1", m.l1), ("L2", m.l2)):
                    result.rows.append(Row(
                        kernel.name, pair, level, kernel.iterations, lm,
                        sat.per_level.get(level) if sat.per_level else None,
                        kc.per_level.get(level) if kc else None,
                        kc.conditions.get(level, "") if kc else ""))
    return result


def parse_pairs(text: str) -> list[CachePair]:
    known = {(p.l1_kb, p.l2_kb): p for p in PAIRS}
    pairs = []
    for item in text.split(","):
        if not item.strip():
            continue
        l1, l2 = (int(v) for v in item.split(":"))
        if (l1, l2) in known:
            pairs.append(known[(l1, l2)])
            continue
        # other sizes: 64 sets in L1 and 16 ways in L2, when that is a power-of-two set count
        pair = CachePair(l1, max(1, l1 * 1024 // (64 * LINE_BYTES)), l2, 16)
        for kb, ways in ((pair.l1_kb, pair.l1_ways), (pair.l2_kb, pair.l2_ways)):
            sets = pair.sets(kb, ways)
            if sets * ways * LINE_BYTES != kb * 1024 or sets & (sets - 1):
                raise ValueError(f"{kb} KiB with {ways} ways is not a power-of-two set count")
        pairs.append(pair)
    return pairs


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--kernels", default=",".join(k.name for k in KERNELS),
                        help="comma-separated kernel names (default: all)")
    parser.add_argument("--pairs", default=",".join(f"{p.l1_kb}:{p.l2_kb}" for p in PAIRS),
                        help="comma-separated L1:L2 sizes in KiB")
    parser.add_argument("--kerncraft-dir", default=str(DEFAULT_KERNCRAFT_DIR),
                        help="where setup_kerncraft.sh installs Kerncraft")
    parser.add_argument("--no-kerncraft", action="store_true",
                        help="leave Kerncraft out (and the kernels taken from its examples)")
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
        pairs = parse_pairs(args.pairs)
    except (KeyError, ValueError) as error:
        print(f"two_levels.py: error: bad --kernels or --pairs: {error}", file=sys.stderr)
        return 2
    missing = [t for t in ("valgrind", "gcc") if shutil.which(t) is None]
    if missing:
        print(f"two_levels.py: error: not installed: {', '.join(missing)}", file=sys.stderr)
        return 2
    sys.path.insert(0, str(ROOT))
    started = datetime.datetime.now()
    try:
        kerncraft = None
        if args.no_kerncraft:
            kernels = [k for k in kernels if not k.source.startswith("kerncraft:")]
        else:
            kerncraft = setup_kerncraft(Path(args.kerncraft_dir))
        with contextlib.ExitStack() as stack:
            workdir = Path(args.workdir) if args.workdir else Path(
                stack.enter_context(tempfile.TemporaryDirectory(prefix="satval2-")))
            workdir.mkdir(parents=True, exist_ok=True)
            result = run(kernels, pairs, args.jobs, workdir.resolve(), kerncraft)
    except ValidationError as error:
        print(f"two_levels.py: error: {error}", file=sys.stderr)
        return 2
    elapsed = (datetime.datetime.now() - started).total_seconds()
    worst_misses = max(abs(m.check_misses) for _, _, m in result.checks)
    worst_backs = max(abs(m.check_writebacks) for _, _, m in result.checks)
    heading = [
        f"Date: {started:%Y-%m-%d %H:%M}", f"Machine: {one_level.machine_description()}",
        f"Tools: {one_level.tool_versions()}"
        + (f", kerncraft {kerncraft.version}" if kerncraft else ""),
        "Simulated caches (L1/L2 KiB, ways): " + ", ".join(
            f"{p.l1_kb} {p.l1_ways}-way / {p.l2_kb} {p.l2_ways}-way" for p in pairs)
        + f"; {LINE_BYTES} B lines, LRU, write-allocate; compiled {' '.join(FLAGS)}",
        f"Simulation against valgrind (whole program, per sweep): misses within "
        f"{100 * worst_misses:.2f}%, L2 write-backs within {100 * worst_backs:.2f}%",
        f"Run time {elapsed:.0f} s",
    ]
    heading += result.notes
    print("\n".join(heading))
    print(text_table(result.rows))
    print("\n".join(summary_lines(result.rows)))
    if args.markdown:
        Path(args.markdown).write_text("\n\n".join([
            "\n".join(f"{h}  " for h in heading), markdown_table(result.rows),
            "\n".join(f"- {s}" for s in summary_lines(result.rows))]) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
