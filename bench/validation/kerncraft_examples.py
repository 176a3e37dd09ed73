"""satreport on every example kernel of Kerncraft, read as it is, with Kerncraft's flop counts.

Kerncraft's example kernels (``examples/kernels/*.c`` of its source distribution) are C
snippets: declarations and a loop nest at file level, sizes left undeclared.  satreport must
read each of them without a traceback; this script runs ``python -m sat FILE --json -`` on
every one and prints, per file, the nests found, the flops of each nest's innermost body
(additions, multiplications, divisions) and the warnings, beside the flops Kerncraft itself
counts (``kerncraft -p LC -vv``, its "FLOPs" table).

Usage::

    python bench/validation/kerncraft_examples.py [--kerncraft-dir DIR] [--size 100]

Then every machine file of Kerncraft's distribution (``examples/machine-files/*.yml``) is read
by satreport with the copy kernel.  Kerncraft is installed by setup_kerncraft.sh when missing.
Exit status 1 when satreport fails on a file or disagrees with Kerncraft's flop counts.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
sys.path.insert(0, str(HERE))
from two_levels import (  # noqa: E402
    DEFAULT_KERNCRAFT_DIR,
    MACHINE_TEMPLATE,
    ValidationError,
    setup_kerncraft,
)

_OPERATION = re.compile(r"^\s*([-+*/])\s*\|\s*(\d+)\s*$")


def satreport(path: Path, size: int) -> dict:
    """satreport's JSON of one file, or ``{"error": ...}``; undeclared sizes set to ``size``."""
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    done = subprocess.run([sys.executable, "-m", "sat", str(path), "--json", "-", "-q"],
                          capture_output=True, text=True, env=env)
    if done.returncode != 0 or "Traceback" in done.stderr:
        return {"error": (done.stderr.strip().splitlines() or ["exit status "
                                                               f"{done.returncode}"])[-1]}
    data = json.loads(done.stdout)
    symbols = [p["symbol"] or p["name"] for p in data["parameters"] if p["group"] == "problem"]
    if symbols:  # again with the sizes Kerncraft gets, so that the nests have iterations
        sets = [arg for symbol in symbols for arg in ("--set", f"{symbol}={size}")]
        done = subprocess.run([sys.executable, "-m", "sat", str(path), "--json", "-", "-q",
                               *sets], capture_output=True, text=True, env=env)
        if done.returncode != 0 or "Traceback" in done.stderr:
            return {"error": done.stderr.strip().splitlines()[-1]}
        data = json.loads(done.stdout)
    return data


def kerncraft_flops(command: Path, path: Path, size: int) -> tuple[dict[str, int], str]:
    """Kerncraft's FLOPs table (``{"+": 3, "*": 1}``) and its last error line, if it failed.

    The table comes before the layer conditions, so a kernel whose layer conditions Kerncraft
    cannot build still has its flops counted.
    """
    done = subprocess.run([str(command), "-p", "LC", "-m", str(MACHINE_TEMPLATE), str(path),
                           "-D", ".", str(size), "-vv"], capture_output=True, text=True)
    flops: dict[str, int] = {}
    inside = False
    for line in done.stdout.splitlines():
        if line.startswith("FLOPs:"):
            inside = True
            continue
        if inside:
            match = _OPERATION.match(line)
            if match:
                flops[match.group(1)] = int(match.group(2))
            elif "=" in line:
                break
    # satreport counts a subtraction as an addition
    if "-" in flops:
        flops["+"] = flops.get("+", 0) + flops.pop("-")
    error = ""
    if done.returncode != 0:
        lines = (done.stderr or done.stdout).strip().splitlines()
        error = lines[-1] if lines else f"exit status {done.returncode}"
    return flops, error


def satreport_flops(loop: dict) -> dict[str, int]:
    counts = {"+": loop["adds"], "*": loop["multiplies"], "/": loop["divides"]}
    return {op: n for op, n in counts.items() if n}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--kerncraft-dir", default=str(DEFAULT_KERNCRAFT_DIR))
    parser.add_argument("--size", type=int, default=100,
                        help="value of every undeclared size (default 100)")
    args = parser.parse_args(argv)
    try:
        kerncraft = setup_kerncraft(Path(args.kerncraft_dir))
    except ValidationError as error:
        print(f"kerncraft_examples.py: error: {error}", file=sys.stderr)
        return 2
    files = sorted(kerncraft.kernels.glob("*.c"))
    print(f"Kerncraft {kerncraft.version}: {len(files)} example kernels in {kerncraft.kernels}")
    failures = 0
    for path in files:
        data = satreport(path, args.size)
        theirs, kerncraft_error = kerncraft_flops(kerncraft.command, path, args.size)
        if "error" in data:
            failures += 1
            print(f"{path.name}: satreport FAILS: {data['error']}")
            continue
        nests = [satreport_flops(loop) for loop in data["loops"]]
        warnings = [f"line {w['line']}: {w['message']}" for w in data["warnings"]]
        ours = {}
        for nest in nests:
            for op, n in nest.items():
                ours[op] = ours.get(op, 0) + n
        if not theirs and kerncraft_error:
            verdict = "Kerncraft counts no flops"
        elif ours == theirs:
            verdict = "flops agree with Kerncraft"
        else:
            failures += 1
            verdict = f"flops DIFFER from Kerncraft's {theirs}"
        if kerncraft_error:
            verdict += f" (Kerncraft's -p LC fails: {kerncraft_error})"
        print(f"{path.name}: {len(nests)} nest(s), flops {nests}; {verdict}"
              + "".join(f"\n    warning {w}" for w in warnings))
    print(f"{len(files) - failures} of {len(files)} read and agreeing")
    machines = sorted((kerncraft.kernels.parent / "machine-files").glob("*.yml"))
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    unread = 0
    for machine in machines:  # every machine file of the distribution, read as it is
        done = subprocess.run([sys.executable, "-m", "sat", str(kerncraft.kernels / "copy.c"),
                               "-m", str(machine), "--json", "-", "-q", "--set", "n=1000"],
                              capture_output=True, text=True, env=env)
        if done.returncode != 0:
            unread += 1
            print(f"{machine.name}: satreport FAILS: "
                  f"{(done.stderr.strip().splitlines() or ['?'])[-1]}")
    print(f"{len(machines) - unread} of {len(machines)} machine files read")
    return 1 if failures or unread else 0


if __name__ == "__main__":
    sys.exit(main())
