"""satreport's ECM model beside Kerncraft's (with OSACA as in-core model), kernel by kernel.

For each of Kerncraft's example kernels (read as they are by both tools) and each machine file
of its distribution named in ``MACHINES`` (one Intel, one AMD, one Arm core), with the sizes
of ``SIZES`` (large enough that the data lives in memory), prints T_OL, T_nOL, T_L3MEM and
T_ECM of one core in cycles per cache line of work, from

1. ``kerncraft -p ECM -P LC -m MACHINE KERNEL.c -D ...`` (its steady state: the kernel runs
   again and again), results kept as JSON in ``WORKDIR/ecm/`` and reused;
2. ``python -m sat KERNEL.c -m MACHINE --json - --set WarmCaches=TRUE --set Cores=1 ...``;

then the median and worst relative difference ((satreport - Kerncraft) / Kerncraft) per
quantity, over the kernels gcc vectorises (Kerncraft reports more than one element per
assembly block) and over all, and per machine over the kernels gcc vectorises.  Kerncraft
compiles each kernel with the machine file's gcc flags; for the Arm file the cross compiler
``aarch64-linux-gnu-gcc-12`` (Debian package ``gcc-12-aarch64-linux-gnu``) is used with the
same flags.  Kerncraft and OSACA live in
their own virtual environment (``setup_kerncraft.sh``), never in satreport's.

Usage::

    python bench/validation/ecm_side_by_side.py [--kerncraft-dir DIR] [--machines A,B]
        [--kernels K1,K2] [--markdown]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
sys.path.insert(0, str(HERE))
from two_levels import DEFAULT_KERNCRAFT_DIR, ValidationError, setup_kerncraft  # noqa: E402

MACHINES = {
    "SandyBridgeEP_E5-2680": None,
    "Zen2_EPYC-7452": None,
    # x86 host: Kerncraft compiles the Arm kernels with a cross compiler, the file's gcc flags
    "ARMv8_ThunderX2-CN9980": ("aarch64-linux-gnu-gcc-12",
                               "-Ofast -march=armv8.1-a -fopenmp -ffreestanding"),
}
# sizes that put every kernel's data in memory (beyond the largest L3 of the machines)
_1D = {"N": 10_000_000}
_2D = {"M": 5000, "N": 5000}
_3D = {"M": 300, "N": 300}
SIZES = {
    "1d-3pt": _1D, "DAXPY": _1D, "add": _1D, "copy": _1D, "scale": _1D, "triad": _1D,
    "scalar_product": _1D, "kahan-dot": _1D, "vector_sum": _1D,
    "2d-5pt": _2D, "2d-5pt-linear": _2D, "matvec": _2D, "matvec_trans": _2D,
    "3d-7pt": _3D, "3d-7pt-constcoef": _3D, "3d-7pt-varcoef": _3D, "3d-27pt": _3D,
    "3d-7pt-2unrolled": _3D, "3d-long-range-stencil": _3D, "uxx-stencil": _3D,
    "himeno": {"L": 200, "M": 200, "N": 200}, "matsq": {"N": 1000},
}
QUANTITIES = ("T_OL", "T_nOL", "T_L3MEM", "T_ECM")


def run_kerncraft(kerncraft, machine: str, kernel: str, source: Path, options: list[str],
                  out: Path) -> dict:
    """Kerncraft on one of its example kernels (copied to ``source``) with the sizes of
    ``SIZES``: its JSON entry, or ``{"error": its last line}``."""
    files = kerncraft.kernels.parent / "machine-files"
    defines = [a for key, value in SIZES[kernel].items() for a in ("-D", key, str(value))]
    out.unlink(missing_ok=True)
    command = [str(kerncraft.command), *options, "-m", str(files / f"{machine}.yml"),
               str(source), *defines, "--json", str(out)]
    done = subprocess.run(command, capture_output=True, text=True)
    if done.returncode != 0 or not out.exists():
        lines = (done.stderr or done.stdout).strip().splitlines()
        return {"error": lines[-1] if lines else f"exit status {done.returncode}"}
    (entry,) = json.loads(out.read_text()).values()
    return entry


def run_satreport(kerncraft, machine: str, kernel: str, options: list[str]) -> dict:
    """satreport's JSON document for one of Kerncraft's example kernels and machine files,
    with the sizes of ``SIZES``, or ``{"error": its last line}``."""
    files = kerncraft.kernels.parent / "machine-files"
    sets = [a for key, value in SIZES[kernel].items() for a in ("--set", f"{key}={value}")]
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    done = subprocess.run([sys.executable, "-m", "sat", str(kerncraft.kernels / f"{kernel}.c"),
                           "-m", str(files / f"{machine}.yml"), "--json", "-", "-q",
                           *options, *sets], capture_output=True, text=True, env=env)
    if done.returncode != 0:
        return {"error": (done.stderr.strip().splitlines() or ["?"])[-1]}
    data = json.loads(done.stdout)
    return data if data["loops"] else {"error": "no nest"}


def kerncraft_ecm(kerncraft, machine: str, kernel: str, workdir: Path) -> dict:
    """Kerncraft's ECM result (its JSON entry), computed once and kept in ``workdir``."""
    cached = workdir / "ecm" / machine / f"{kernel}.json"
    if cached.exists():
        return json.loads(cached.read_text())
    cached.parent.mkdir(parents=True, exist_ok=True)
    copy = workdir / "ecm" / machine / "src" / f"{kernel}.c"
    copy.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(kerncraft.kernels / f"{kernel}.c", copy)
    options = ["-p", "ECM", "-P", "LC"]
    if MACHINES[machine] is not None:
        compiler, flags = MACHINES[machine]
        options += ["--compiler", compiler, f"--compiler-flags={flags}"]
    entry = run_kerncraft(kerncraft, machine, kernel, copy, options,
                          cached.with_suffix(".raw.json"))
    if "error" in entry:
        result = entry
    else:
        cycles = dict(entry["cycles"])
        memory = entry["cycles"][-1][1]
        result = {"T_OL": entry["T_comp"], "T_nOL": entry["T_RegL1"], "T_L3MEM": memory,
                  "T_ECM": float(entry["total cycles"]["cy/CL"].split()[0]),
                  "elements_per_block": entry["elements_per_block"],
                  "links": cycles, "memory_kernel": entry.get("memory bandwidth kernel"),
                  "memory_bandwidth": entry.get("memory bandwidth")}
    cached.write_text(json.dumps(result, indent=1))
    return result


def satreport_ecm(kerncraft, machine: str, kernel: str) -> dict:
    """satreport's ECM object of the kernel's (first) nest, with its steady state."""
    data = run_satreport(kerncraft, machine, kernel,
                         ["--set", "WarmCaches=TRUE", "--set", "Cores=1"])
    if "error" in data:
        return data
    ecm = data["loops"][0]["ecm"]
    memory_link = [link for link in ecm["t_data"] if link.endswith("MEM")][0]
    return {"T_OL": ecm["t_ol"], "T_nOL": ecm["t_nol"], "T_L3MEM": ecm["t_data"][memory_link],
            "T_ECM": ecm["t_ecm"], "memory_kernel": ecm.get("memory_benchmark")}


def relative(ours: float, theirs: float) -> float | None:
    if theirs == 0:
        return 0.0 if abs(ours) < 1e-9 else None
    return (ours - theirs) / theirs


def summary(errors: list[float]) -> str:
    if not errors:
        return "–"
    magnitudes = [abs(e) for e in errors]
    worst = max(errors, key=abs)
    return f"{100 * statistics.median(magnitudes):.0f} % / {100 * worst:+.0f} %"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--kerncraft-dir", default=str(DEFAULT_KERNCRAFT_DIR))
    parser.add_argument("--machines", default=",".join(MACHINES))
    parser.add_argument("--kernels", default=",".join(SIZES))
    parser.add_argument("--kerncraft-only", action="store_true",
                        help="only compute (and keep) Kerncraft's results")
    parser.add_argument("--markdown", action="store_true", help="print a Markdown table")
    args = parser.parse_args(argv)
    try:
        kerncraft = setup_kerncraft(Path(args.kerncraft_dir))
    except ValidationError as error:
        print(f"ecm_side_by_side.py: error: {error}", file=sys.stderr)
        return 2
    workdir = Path(args.kerncraft_dir)
    machines = [m for m in args.machines.split(",") if m]
    kernels = [k for k in args.kernels.split(",") if k]
    unknown = [m for m in machines if m not in MACHINES] + [k for k in kernels if k not in SIZES]
    if unknown:
        print(f"ecm_side_by_side.py: error: unknown {unknown}", file=sys.stderr)
        return 2
    sep = " | " if args.markdown else "  "
    header = ["machine", "kernel", "vec", *[f"{q} sat/KC" for q in QUANTITIES], "memory bench"]
    print(f"Kerncraft {kerncraft.version} + OSACA; satreport with WarmCaches=TRUE, Cores=1; "
          "cycles per cache line")
    if args.markdown:
        print("| " + " | ".join(header) + " |")
        print("|" + "---|" * len(header))
    else:
        print(sep.join(header))
    errors: dict[tuple[str, bool], list[float]] = {}
    for machine in machines:
        for kernel in kernels:
            theirs = kerncraft_ecm(kerncraft, machine, kernel, workdir)
            if args.kerncraft_only:
                print(machine, kernel, theirs.get("error") or
                      {q: theirs[q] for q in QUANTITIES}, flush=True)
                continue
            ours = satreport_ecm(kerncraft, machine, kernel)
            vectorised = theirs.get("elements_per_block", 1) > 1
            cells = [machine, kernel, "yes" if vectorised else "no"]
            if "error" in theirs or "error" in ours:
                cells += [f"Kerncraft: {theirs['error']}" if "error" in theirs else "",
                          f"satreport: {ours['error']}" if "error" in ours else "", "", "", ""]
            else:
                for quantity in QUANTITIES:
                    error = relative(ours[quantity], theirs[quantity])
                    shown = f"{ours[quantity]:.2f}/{theirs[quantity]:.2f}"
                    if error is not None:
                        for key in ((quantity, True), (quantity, False)) if vectorised else \
                                ((quantity, False),):
                            errors.setdefault(key, []).append(error)
                        if vectorised:
                            errors.setdefault((machine, quantity), []).append(error)
                        shown += f" ({100 * error:+.0f} %)"
                    cells.append(shown)
                cells.append(f"{ours.get('memory_kernel')}/{theirs.get('memory_kernel')}")
            line = sep.join(cells)
            print(f"| {line} |" if args.markdown else line, flush=True)
    if not args.kerncraft_only:
        print("\nmedian |error| / worst error, vectorised kernels; all kernels")
        for quantity in QUANTITIES:
            print(f"{quantity:8} {summary(errors.get((quantity, True), []))}; "
                  f"{summary(errors.get((quantity, False), []))}")
        print("\nper machine, vectorised kernels: kernels, then median |error| / worst error "
              f"of {', '.join(QUANTITIES)}")
        for machine in machines:
            counts = len(errors.get((machine, QUANTITIES[0]), []))
            print(f"{machine}: {counts}; " + "; ".join(
                summary(errors.get((machine, quantity), [])) for quantity in QUANTITIES))
    return 0


if __name__ == "__main__":
    sys.exit(main())
