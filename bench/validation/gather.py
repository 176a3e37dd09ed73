"""Validation of satreport's gather and scatter model (the Gathers sheet) against valgrind.

Two kernels, each over ``N`` references: the gather ``gather/kernel.c`` sums ``x[idx[i]]``,
the scatter ``gather/scatter.c`` adds 1 to ``x[idx[i]]`` (a histogram's read-modify-write).
The driver (``gather/driver.c``) fills ``idx`` with one of three patterns over an array ``x``
of ``M`` doubles (the range, ``M * 8`` bytes), flushes the cache, runs the kernel once and
flushes the cache again:

* ``uniform``: uniformly random indices over the range (``ClusterElems`` 1);
* ``clustered W``: reference ``i`` falls at random in a window of ``W`` elements, ``W/4``
  references per window, the windows moving along the array (wrapping around);
  ``ClusterElems`` = references per window / the lines of the window they are expected to
  touch, ``(W/4) / (L * (1 - (1 - 1/L)^(W/4)))`` with ``L = W*8/64`` lines per window;
* ``strided S``: ``idx[i] = (i*S) mod M`` (``ClusterElems`` = ``MAX(1, 64/(8*S))``).

Measured: cachegrind's last-level data misses (read plus write) on the kernel's lines, times
64 bytes, with a tiny first level (1 KiB, 2-way) so that the last level (``CacheKB``, 16-way,
64-byte lines, LRU) sees every access. For the scatter, plus the dirty lines written back,
which cachegrind does not model: callgrind's cache simulator (``--simulate-wb=yes``, the same
caches) counts the last-level misses that evict a dirty line, collected in the driver's
``measured()`` only (``--collect-atstart=no --toggle-collect=measured``: the kernel and the
flush after it, which writes back every line the kernel dirtied; the flush before it leaves
only clean lines in the cache), like ``run.py`` for the regular kernels. Predicted:
satreport on the same source with ``--set n=N CacheKB=... Cores=1 RangeKB_...=M*8/1024
ClusterElems_...=...``: the nest's ``traffic_gb`` (the index stream, ``N * 8`` bytes, plus the
gather's or scatter's bytes, the scatter's twice its lines: read for ownership and
write-back). The table shows the indexed array's part alone too (the measured total less the
index stream's ``N * 8`` bytes).

Usage::

    python bench/validation/gather.py [--kinds gather,scatter] [--cache 64] [--refs 131072]
                                      [--markdown FILE]

Needs gcc and valgrind.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
SOURCE = HERE / "gather" / "kernel.c"
SCATTER = HERE / "gather" / "scatter.c"
SOURCES = {"gather": SOURCE, "scatter": SCATTER}
DRIVER = HERE / "gather" / "driver.c"
LINE_BYTES = 64
WORD_BYTES = 8
D1 = "1024,2,64"
LL_WAYS = 16
RANGES_KB = (32, 128, 1024)  # inside, twice, sixteen times a 64 KiB cache
PATTERNS = (("uniform", 0), ("clustered", 512), ("strided", 2), ("strided", 17))


@dataclass
class Case:
    pattern: str
    param: int  # window (clustered) or stride (strided) in elements
    range_kb: int
    refs: int
    cache_kb: int
    kind: str = "gather"  # or "scatter"

    @property
    def source(self) -> Path:
        return SOURCES[self.kind]

    @property
    def label(self) -> str:
        return self.pattern + (f" {self.param}" if self.param else "")

    @property
    def elements(self) -> int:
        return self.range_kb * 1024 // WORD_BYTES

    @property
    def cluster(self) -> float:
        """Elements used per cache line fetched (the ClusterElems_ parameter)."""
        per_line = LINE_BYTES // WORD_BYTES
        if self.pattern == "strided":
            return max(1.0, per_line / self.param)
        if self.pattern == "clustered":
            per_window = max(1, self.param // 4)
            lines = self.param / per_line
            touched = lines * (1 - (1 - 1 / lines) ** per_window)
            return per_window / touched
        return 1.0


@dataclass
class Row:
    case: Case
    predicted: float  # bytes, the nest
    gather_predicted: float  # bytes, the gather or scatter alone
    miss_fraction: float
    measured: float  # bytes, the kernel's lines, write-backs included
    writebacks: float | None = None  # bytes, the dirty lines written back (scatter only)

    @property
    def gather_measured(self) -> float:
        return self.measured - self.case.refs * WORD_BYTES

    @property
    def error(self) -> float:
        return (self.predicted - self.measured) / self.measured

    @property
    def gather_error(self) -> float:
        return (self.gather_predicted - self.gather_measured) / self.gather_measured


def build(workdir: Path) -> Path:
    exe = workdir / "gather"
    subprocess.run(["gcc", "-O2", "-g", "-fno-tree-vectorize", str(SOURCE), str(SCATTER),
                    str(DRIVER), "-o", str(exe)], check=True)
    return exe


def measure(exe: Path, case: Case, workdir: Path) -> tuple[float, float | None]:
    """(bytes the kernel's lines miss in the simulated last level plus the dirty lines written
    back, the write-backs' bytes); write-backs are simulated for the scatter only (the gather
    writes nothing)."""
    sys.path.insert(0, str(HERE))
    import run as one_level  # the one-level harness's cachegrind parsing

    tag = f"{case.kind}.{case.pattern}.{case.param}.{case.range_kb}.{case.cache_kb}"
    flush = 2 * case.cache_kb * 1024 + (1 << 20)
    caches = [f"--D1={D1}", f"--LL={case.cache_kb * 1024},{LL_WAYS},{LINE_BYTES}"]
    args = [str(exe), str(case.refs), str(case.elements), case.pattern, str(case.param),
            str(flush), case.kind]
    out = workdir / f"cg.{tag}"
    subprocess.run(["valgrind", "--tool=cachegrind", "--cache-sim=yes", *caches,
                    f"--cachegrind-out-file={out}", *args], check=True, capture_output=True)
    counts = one_level.parse_cachegrind(out.read_text(), case.source)
    misses = float(counts.get("DLmr", 0) + counts.get("DLmw", 0)) * LINE_BYTES
    if case.kind != "scatter":
        return misses, None
    out = workdir / f"cl.{tag}"
    subprocess.run(["valgrind", "--tool=callgrind", "--cache-sim=yes", "--simulate-wb=yes",
                    *caches, "--collect-atstart=no", "--toggle-collect=measured",
                    f"--callgrind-out-file={out}", *args], check=True, capture_output=True)
    summary = one_level.parse_summary(out.read_text())
    backs = float(summary.get("DLdmr", 0) + summary.get("DLdmw", 0)) * LINE_BYTES
    return misses + backs, backs


def satreport(argv: list[str]) -> dict:
    from sat.cli import main

    stdout, stderr = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(stdout), contextlib.redirect_stderr(stderr):
        status = main(argv)
    if status != 0:
        raise RuntimeError(f"satreport failed: {stderr.getvalue().strip()}")
    return json.loads(stdout.getvalue())


def predict(case: Case) -> tuple[float, float, float]:
    """(nest bytes, gather or scatter bytes, miss fraction) satreport predicts."""
    base = [str(case.source), "--json", "-", "-q", "--set", f"n={case.refs}", "--set",
            f"CacheKB={case.cache_kb}", "--set", "Cores=1"]
    names = [p["name"] for p in satreport(base)["parameters"]]
    range_name = next(n for n in names if n.startswith("RangeKB_"))
    cluster_name = next(n for n in names if n.startswith("ClusterElems_"))
    data = satreport([*base, "--set", f"{range_name}={case.range_kb}", "--set",
                      f"{cluster_name}={case.cluster}"])
    gather = data["gathers"][0]
    return (data["loops"][0]["traffic_gb"] * 1e9, gather["traffic_gb"] * 1e9,
            gather["miss_fraction"])


def run_case(exe: Path, case: Case, workdir: Path) -> Row:
    predicted, gather, miss = predict(case)
    measured, backs = measure(exe, case, workdir)
    return Row(case, predicted, gather, miss, measured, backs)


def cases(cache_kb: int, refs: int, kinds: tuple[str, ...] = ("gather", "scatter")
          ) -> list[Case]:
    return [Case(pattern, param, range_kb, refs, cache_kb, kind) for kind in kinds
            for pattern, param in PATTERNS for range_kb in RANGES_KB]


def markdown(rows: list[Row]) -> str:
    lines = ["| kind | pattern | range KiB | cache KiB | ClusterElems | miss fraction | "
             "predicted KB | measured KB | of which write-back KB | error % | "
             "x predicted KB | x measured KB | x error % |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        c = r.case
        backs = "-" if r.writebacks is None else f"{r.writebacks / 1e3:.1f}"
        lines.append(f"| {c.kind} | {c.label} | {c.range_kb} | {c.cache_kb} | {c.cluster:.2f} "
                     f"| {r.miss_fraction:.3f} | {r.predicted / 1e3:.1f} | "
                     f"{r.measured / 1e3:.1f} | {backs} | "
                     f"{100 * r.error:+.1f} | {r.gather_predicted / 1e3:.1f} | "
                     f"{r.gather_measured / 1e3:.1f} | {100 * r.gather_error:+.1f} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--kinds", default="gather,scatter",
                        help="comma-separated kernels: gather, scatter (default both)")
    parser.add_argument("--cache", type=int, default=64, help="CacheKB (power of two)")
    parser.add_argument("--refs", type=int, default=131072, help="references N")
    parser.add_argument("--markdown", help="write the table to this file too")
    args = parser.parse_args(argv)
    kinds = tuple(k.strip() for k in args.kinds.split(",") if k.strip())
    if not kinds or any(k not in SOURCES for k in kinds):
        parser.error(f"--kinds: choose among {', '.join(SOURCES)}")
    sys.path.insert(0, str(ROOT))
    with tempfile.TemporaryDirectory() as tmp:
        workdir = Path(tmp)
        exe = build(workdir)
        rows = [run_case(exe, case, workdir) for case in cases(args.cache, args.refs, kinds)]
    table = markdown(rows)
    print(table)
    if args.markdown:
        Path(args.markdown).write_text(table + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
