"""Two checkouts of satreport timed side by side, runs alternating, so that both see the same
machine load.

    git worktree add /tmp/before <commit>
    python bench/bench_compare.py /tmp/before . [--rounds 5] [--smc PATH]

For each checkout (its ``sat`` package first on ``PYTHONPATH``) and each case, in turn, round
after round: the start-up of a small C run (``examples/c/triad.c --json``), the bundled
``hypterm.f90`` with workbook, JSON and HTML, and with ``--smc`` SMC's ``kernels.f90`` likewise.
Prints the best and the median wall time of each case per checkout and their ratio (after /
before). Nothing is written into either checkout.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def cases(smc: Path | None) -> dict[str, list[str]]:
    found = {"start-up (triad.c --json)": ["examples/c/triad.c", "--json", "{out}/t.json"],
             "hypterm.f90 -o --json --html": ["examples/hypterm.f90", "-o", "{out}/h.xlsx",
                                              "--json", "{out}/h.json", "--html",
                                              "{out}/h.html"]}
    if smc is not None:
        found["kernels.f90 -o --json --html"] = [str(smc), "-o", "{out}/k.xlsx", "--json",
                                                 "{out}/k.json", "--html", "{out}/k.html"]
    return found


def timed(tree: Path, argv: list[str], out: str) -> float:
    env = {**os.environ, "PYTHONPATH": str(tree)}
    command = [sys.executable, "-m", "sat", "-q", *(a.format(out=out) for a in argv)]
    start = time.perf_counter()
    subprocess.run(command, cwd=tree, env=env, check=True, capture_output=True)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("before", type=Path)
    parser.add_argument("after", type=Path)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--smc", type=Path, help="SMC's kernels.f90 (or another big program)")
    args = parser.parse_args()
    trees = {"before": args.before.resolve(), "after": args.after.resolve()}
    times: dict[tuple[str, str], list[float]] = {}
    with tempfile.TemporaryDirectory() as out:
        for _ in range(args.rounds):
            for case, argv in cases(args.smc and args.smc.resolve()).items():
                for name, tree in trees.items():
                    times.setdefault((case, name), []).append(timed(tree, argv, out))
    print(f"{'case':32s} {'before best/median':>20s} {'after best/median':>20s} {'ratio':>6s}")
    for case in cases(args.smc):
        before, after = times[(case, "before")], times[(case, "after")]
        ratio = statistics.median(after) / statistics.median(before)
        print(f"{case:32s} {min(before):9.3f}/{statistics.median(before):6.3f} s "
              f"{min(after):9.3f}/{statistics.median(after):6.3f} s {ratio:6.2f}")


if __name__ == "__main__":
    main()
