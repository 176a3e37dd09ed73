"""satreport against Kerncraft: run time per C kernel, side by side.

For each of Kerncraft's example kernels named in ``KERNELS`` (read as they are by both
tools), times in one run, best of ``--repeat`` (default 3) each, as separate processes:

1. ``kerncraft -p LC -m two-level.yml KERNEL.c -D ...`` (layer conditions per cache level);
2. ``kerncraft -p ECM -P LC ...`` (the ECM model on layer conditions; its in-core part runs
   gcc and OSACA, which Kerncraft installs as a dependency), unless ``--no-ecm``;
3. ``python -m sat KERNEL.c --machine two-level.yml --json - -q --set ...``;

and prints the times and Kerncraft's time over satreport's.  Kerncraft lives in its own
virtual environment (``bench/validation/setup_kerncraft.sh``, run when missing), never in
satreport's.

Usage::

    python bench/bench_kerncraft.py [--kerncraft-dir DIR] [--repeat 3] [--no-ecm]
        [--kernels 2d-5pt,3d-7pt]
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
VALIDATION = ROOT / "bench" / "validation"
sys.path.insert(0, str(VALIDATION))
from two_levels import (  # noqa: E402
    DEFAULT_KERNCRAFT_DIR,
    MACHINE_TEMPLATE,
    ValidationError,
    setup_kerncraft,
)

# Kerncraft's example kernels and the sizes given to both tools
KERNELS = {
    "2d-5pt": {"M": 1000, "N": 1000},
    "3d-7pt": {"M": 100, "N": 100},
    "copy": {"N": 1_000_000},
    "triad": {"N": 1_000_000},
    "uxx-stencil": {"M": 72, "N": 72},
    "3d-long-range-stencil": {"M": 72, "N": 72},
    "himeno": {"L": 64, "M": 64, "N": 64},
}


def best_of(command: list[str], repeat: int, env: dict[str, str] | None = None,
            fresh: Path | None = None) -> tuple[float, str]:
    """Best wall time of ``repeat`` runs, and the last line of an error ('' on success).

    ``fresh``: the kernel file Kerncraft reads; its folder of intermediate results
    (``.NAME_kerncraft`` beside it) is removed before each run, or Kerncraft would reuse the
    first run's layer-condition analysis and time only the loading of it.
    """
    best = float("inf")
    for _ in range(repeat):
        if fresh is not None:
            shutil.rmtree(fresh.parent / f".{fresh.name}_kerncraft", ignore_errors=True)
        started = time.perf_counter()
        done = subprocess.run(command, capture_output=True, text=True, env=env)
        elapsed = time.perf_counter() - started
        if done.returncode != 0:
            lines = (done.stderr or done.stdout).strip().splitlines()
            return elapsed, lines[-1] if lines else f"exit status {done.returncode}"
        best = min(best, elapsed)
    return best, ""


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--kerncraft-dir", default=str(DEFAULT_KERNCRAFT_DIR))
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--no-ecm", action="store_true", help="time Kerncraft's LC model only")
    parser.add_argument("--kernels", default=",".join(KERNELS))
    args = parser.parse_args(argv)
    try:
        kerncraft = setup_kerncraft(Path(args.kerncraft_dir))
    except ValidationError as error:
        print(f"bench_kerncraft.py: error: {error}", file=sys.stderr)
        return 2
    names = [n.strip() for n in args.kernels.split(",") if n.strip()]
    unknown = [n for n in names if n not in KERNELS]
    if unknown:
        print(f"bench_kerncraft.py: error: unknown kernels {unknown}", file=sys.stderr)
        return 2
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    machine = str(MACHINE_TEMPLATE)
    print(f"Kerncraft {kerncraft.version} ({kerncraft.command}); machine {machine}; "
          f"best of {args.repeat}")
    header = f"{'kernel':<22} {'satreport s':>11} {'LC s':>7} {'LC/sat':>7}"
    if not args.no_ecm:
        header += f" {'ECM s':>7} {'ECM/sat':>8}"
    print(header)
    for name in names:
        source = kerncraft.kernels / f"{name}.c"
        sizes = KERNELS[name]
        defines = [arg for key, value in sizes.items() for arg in ("-D", key, str(value))]
        sets = [arg for key, value in sizes.items() for arg in ("--set", f"{key}={value}")]
        ours, our_error = best_of([sys.executable, "-m", "sat", str(source), "--machine",
                                   machine, "--json", "-", "-q", *sets], args.repeat, env)
        # Kerncraft reads a copy, beside which it keeps its intermediate files
        copy = Path(args.kerncraft_dir) / "bench" / source.name
        copy.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(source, copy)
        base = [str(kerncraft.command), "-m", machine, str(copy), *defines]
        lc, lc_error = best_of([*base[:1], "-p", "LC", *base[1:]], args.repeat, fresh=copy)
        line = f"{name:<22} {ours:>11.2f} {lc:>7.2f} {lc / ours:>7.1f}"
        errors = [e for e in (our_error and f"satreport: {our_error}",
                              lc_error and f"LC: {lc_error}") if e]
        if not args.no_ecm:
            ecm, ecm_error = best_of([*base[:1], "-p", "ECM", "-P", "LC", *base[1:]],
                                     args.repeat, fresh=copy)
            line += f" {ecm:>7.2f} {ecm / ours:>8.1f}"
            if ecm_error:
                errors.append(f"ECM: {ecm_error}")
        print(line + "".join(f"\n    failed: {e}" for e in errors))
    return 0


if __name__ == "__main__":
    sys.exit(main())
