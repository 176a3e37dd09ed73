"""satreport end to end on a real code against the fparser parse alone, and its start-up time.

    python bench/bench_end_to_end.py [KERNELS_F90]
    python bench/bench_end_to_end.py --startup

Measures in one run, side by side:

1. fparser's parse of ``KERNELS_F90`` alone (best of 3), the floor under any Fortran run;
2. ``python -m sat KERNELS_F90 -o … --json … --html …`` in a subprocess, its wall time, the
   time of each output stage (from ``-v``'s timestamps) and its peak resident memory;
3. the start-up case: ``python -m sat examples/c/stencil7.c --json -`` (best of 5).

It prints each figure with its target: end to end at most 1.3 times the parse, HTML at most
0.5 s, peak memory under 500 MB, start-up at most 0.4 s.  ``KERNELS_F90`` defaults to SMC's
``kernels.f90`` from the shared ExaSAT reference inputs when that file exists.  With
``--startup``, only the start-up case is measured.
"""

from __future__ import annotations

import os
import re
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent
sys.path.insert(0, str(BENCH))

from bench_frontend import best_of, parse_only  # noqa: E402

# the shared reference data sits beside the repository
DEFAULT_KERNELS = ROOT.parent / "shared" / "reference" / "exasat" / "inputs" / "smc-kernels.f90"
STARTUP_SOURCE = ROOT / "examples" / "c" / "stencil7.c"
TARGETS = {"end_to_end_ratio": 1.3, "html_s": 0.5, "peak_mb": 500.0, "startup_s": 0.4}
# where the benches' satreport runs keep their compiled bytecode (mirroring the sources'
# paths, so that trees of the repository side by side do not collide; Python checks each
# file's stamp, so a stale entry is compiled again)
BYTECODE = Path(tempfile.gettempdir()) / "satreport-bench-bytecode"
# -v progress lines: "satreport: [  9.68 s] wrote out.xlsx"
_STEP = re.compile(r"^satreport: \[\s*([\d.]+) s\] (.*)$", re.M)


def stages(verbose_output: str) -> dict[str, float]:
    """Seconds per stage, from the timestamps of ``-v``'s progress lines."""
    at: dict[str, float] = {}
    for seconds, message in _STEP.findall(verbose_output):
        at.setdefault(message, float(seconds))
    found: dict[str, float] = {}
    building = next((t for m, t in at.items() if m.startswith("building the model")), None)
    if building is not None:
        found["front end (parse and analysis)"] = building
        found["model build"] = at.get("evaluating the model", building) - building
    for message, start in at.items():
        if message.startswith("writing ") and not message.startswith("writing the JSON"):
            target = message.removeprefix("writing ")
            end = at.get(f"wrote {target}")
            if end is not None:
                kind = Path(target).suffix.lstrip(".").upper().replace("XLSX", "workbook")
                found[kind] = end - start
    return found


def installed_environment() -> dict[str, str]:
    """The environment of a timed satreport run: this tree's package, run from compiled
    bytecode as an installed package is (kept in :data:`BYTECODE`), even where the
    environment says ``PYTHONDONTWRITEBYTECODE``: otherwise every run would compile
    satreport's sources again (about 130 modules) and count it as its own time."""
    environment = {key: value for key, value in os.environ.items()
                   if key != "PYTHONDONTWRITEBYTECODE"}
    environment["PYTHONPYCACHEPREFIX"] = str(BYTECODE)
    environment["PYTHONPATH"] = str(ROOT)
    return environment


def run_satreport(arguments: list[str]) -> tuple[float, str, float]:
    """(wall seconds, stderr, peak resident MB) of ``python -m sat ARGUMENTS``."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "sat", *arguments], cwd=ROOT,
                          capture_output=True, text=True, check=True,
                          env=installed_environment())
    seconds = time.perf_counter() - start
    # ru_maxrss is the largest child so far, in KiB on Linux: the run is the largest one.
    peak = max(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, before) / 1024
    return seconds, done.stderr, peak


def startup_seconds(repeats: int = 5) -> float:
    run_satreport([str(STARTUP_SOURCE), "-q", "--json", os.devnull])  # fills the bytecode
    return min(run_satreport([str(STARTUP_SOURCE), "-q", "--json", os.devnull])[0]
               for _ in range(repeats))


def verdict(value: float, target: float) -> str:
    return f"{value / target:.2f} of the target ({'met' if value <= target else 'NOT met'})"


def print_startup() -> None:
    startup = startup_seconds()
    print(f"start-up, {STARTUP_SOURCE.relative_to(ROOT)} --json (best of 5): {startup:.2f} s: "
          + verdict(startup, TARGETS["startup_s"]))


def main(argv: list[str]) -> int:
    if argv[1:] == ["--startup"]:
        print_startup()
        return 0
    kernels = Path(argv[1]) if len(argv) > 1 else DEFAULT_KERNELS
    if not kernels.is_file():
        print(f"usage: bench_end_to_end.py KERNELS_F90 ({kernels} not found)")
        return 2
    with tempfile.TemporaryDirectory(prefix="sat-e2e-") as tmp:
        work = Path(tmp)
        parse = best_of(parse_only, str(kernels))
        total, log, peak = run_satreport([
            str(kernels), "-q", "-v", "-o", str(work / "k.xlsx"), "--json", str(work / "k.json"),
            "--html", str(work / "k.html")])
    print(f"source: {kernels}")
    print(f"fparser parse alone (best of 3): {parse:.2f} s")
    print(f"satreport -o --json --html end to end: {total:.2f} s, ratio {total / parse:.2f}: "
          + verdict(total / parse, TARGETS["end_to_end_ratio"]))
    for stage, seconds in stages(log).items():
        print(f"  {stage}: {seconds:.2f} s")
    html = stages(log).get("HTML")
    if html is not None:
        print(f"HTML: {html:.2f} s: {verdict(html, TARGETS['html_s'])}")
    print(f"peak resident memory: {peak:.0f} MB: {verdict(peak, TARGETS['peak_mb'])}")
    print_startup()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
