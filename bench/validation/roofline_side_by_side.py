"""satreport's Roofline per level beside Kerncraft's RooflineFLOP, kernel by kernel.

For each of Kerncraft's example kernels and machine files of ``ecm_side_by_side`` (data in
memory), and each count of cores of ``--cores``, prints per link (Kerncraft's level past L1:
L2 is satreport's L1-L2 link, …, MEM the link to memory) the bytes per iteration, the
benchmark and the bandwidth each tool takes, then the bounding level and the predicted
cycles per iteration of each, from

1. ``kerncraft -p RooflineFLOP -P LC -m MACHINE KERNEL.c -D ... -c CORES`` (results kept as
   JSON in ``WORKDIR/roofline/`` and reused);
2. ``python -m sat KERNEL.c -m MACHINE --json - --set WarmCaches=TRUE --set Cores=CORES``:
   ``loops[0].levels[].bytes_per_iteration`` and ``loops[0].ecm.roofline_…``.

Kerncraft's own L1 level (registers to L1 at the L1 table) has no counterpart: satreport's
in-core bound is the CPU time.  Usage::

    python bench/validation/roofline_side_by_side.py [--kerncraft-dir DIR] [--machines A,B]
        [--kernels K1,K2] [--cores 1,4]
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
sys.path.insert(0, str(HERE))
from ecm_side_by_side import MACHINES, SIZES, run_kerncraft, run_satreport  # noqa: E402
from two_levels import DEFAULT_KERNCRAFT_DIR, ValidationError, setup_kerncraft  # noqa: E402


def _number(text: str) -> float:
    """'30.80 GB/s' -> 30.8 (GB/s), '2.10 cy/It' -> 2.1."""
    value, unit = text.split()[:2]
    scale = {"kB/s": 1e-6, "MB/s": 1e-3, "GB/s": 1.0, "TB/s": 1e3}.get(unit, 1.0)
    return float(value) * scale


def kerncraft_roofline(kerncraft, machine: str, kernel: str, cores: int, workdir: Path
                       ) -> dict:
    """Kerncraft's Roofline per level (computed once and kept in ``workdir``)."""
    cached = workdir / "roofline" / machine / f"{kernel}-{cores}.json"
    if cached.exists():
        return json.loads(cached.read_text())
    cached.parent.mkdir(parents=True, exist_ok=True)
    entry = run_kerncraft(kerncraft, machine, kernel, kerncraft.kernels / f"{kernel}.c",
                          ["-p", "RooflineFLOP", "-P", "LC", "-c", str(cores)],
                          cached.with_suffix(".raw.json"))
    if "error" in entry:
        result = entry
    else:
        levels = entry["mem bottlenecks"]
        bound = entry["bottleneck level"]
        result = {"levels": {level["level"]: {
            "bytes_per_iteration": 1 / level["arithmetic intensity"],
            "benchmark": level["bw kernel"], "gbs": _number(level["bandwidth"])}
            for level in levels[1:]},
            "bound": levels[bound]["level"] if bound is not None else "CPU",
            "cy_per_it": _number(entry["min performance"]["cy/It"])}
    cached.write_text(json.dumps(result, indent=1))
    return result


def satreport_roofline(kerncraft, machine: str, kernel: str, cores: int) -> dict:
    data = run_satreport(kerncraft, machine, kernel,
                         ["--set", "WarmCaches=TRUE", "--set", f"Cores={cores}"])
    if "error" in data:
        return data
    loop = data["loops"][0]
    ecm = loop["ecm"]
    clock = next(p["value"] for p in data["parameters"] if p["name"] == "ClockGHz")
    iterations = loop["levels"][0]["traffic_gb"] * 1e9 / loop["levels"][0][
        "bytes_per_iteration"]
    levels = {}
    for level in loop["levels"]:
        link = next(link for link in ecm["t_data"] if link.startswith(level["level"] + "-"))
        levels[link.split("-", 1)[1]] = {
            "bytes_per_iteration": level["bytes_per_iteration"],
            "benchmark": ecm.get("roofline_benchmark", {}).get(link, "-"),
            "gbs": ecm.get("roofline_bandwidth_gbs", {}).get(link, level["bandwidth_gbs"])}
    bound = ecm["roofline_bound"]
    return {"levels": levels, "bound": "CPU" if bound == "core" else bound.split("-", 1)[1],
            "cy_per_it": ecm["roofline_time_s"] * clock * 1e9 / iterations}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--kerncraft-dir", default=str(DEFAULT_KERNCRAFT_DIR))
    parser.add_argument("--machines", default="SandyBridgeEP_E5-2680,Zen2_EPYC-7452")
    parser.add_argument("--kernels", default=",".join(SIZES))
    parser.add_argument("--cores", default="1,4")
    args = parser.parse_args(argv)
    try:
        kerncraft = setup_kerncraft(Path(args.kerncraft_dir))
    except ValidationError as error:
        print(f"roofline_side_by_side.py: error: {error}", file=sys.stderr)
        return 2
    machines = [m for m in args.machines.split(",") if m]
    kernels = [k for k in args.kernels.split(",") if k]
    unknown = [m for m in machines if m not in MACHINES] + [k for k in kernels if k not in SIZES]
    if unknown:
        print(f"roofline_side_by_side.py: error: unknown {unknown}", file=sys.stderr)
        return 2
    print(f"Kerncraft {kerncraft.version} RooflineFLOP -P LC; satreport WarmCaches=TRUE. Per "
          "level: bytes/it, benchmark, GB/s as satreport / Kerncraft; then bound and cy/It")
    same_bw = same_bound = total = 0
    errors: list[float] = []
    for machine in machines:
        for cores in [int(c) for c in args.cores.split(",") if c]:
            for kernel in kernels:
                theirs = kerncraft_roofline(kerncraft, machine, kernel, cores,
                                            Path(args.kerncraft_dir))
                ours = satreport_roofline(kerncraft, machine, kernel, cores)
                head = f"{machine} c={cores} {kernel}:"
                if "error" in theirs or "error" in ours:
                    print(head, theirs.get("error", ""), ours.get("error", ""), flush=True)
                    continue
                cells = []
                for level, kc in theirs["levels"].items():
                    sat = ours["levels"].get(level)
                    if sat is None:
                        cells.append(f"{level} -/{kc['gbs']:.1f}")
                        continue
                    total += 1
                    same_bw += abs(sat["gbs"] - kc["gbs"]) <= 0.01 * kc["gbs"]
                    cells.append(f"{level} {sat['bytes_per_iteration']:.1f}/"
                                 f"{kc['bytes_per_iteration']:.1f}B "
                                 f"{sat['benchmark']}/{kc['benchmark']} "
                                 f"{sat['gbs']:.1f}/{kc['gbs']:.1f}")
                same_bound += ours["bound"] == theirs["bound"]
                error = (ours["cy_per_it"] - theirs["cy_per_it"]) / theirs["cy_per_it"]
                errors.append(error)
                print(head, "; ".join(cells), f"| bound {ours['bound']}/{theirs['bound']} "
                      f"| {ours['cy_per_it']:.2f}/{theirs['cy_per_it']:.2f} cy/It "
                      f"({100 * error:+.0f} %)", flush=True)
    if errors:
        magnitudes = sorted(abs(e) for e in errors)
        print(f"\nbandwidth within 1 %: {same_bw} of {total} links; same bound: {same_bound} "
              f"of {len(errors)}; cy/It median |error| {100 * magnitudes[len(errors) // 2]:.0f}"
              f" %, worst {100 * max(errors, key=abs):+.0f} %")
    return 0


if __name__ == "__main__":
    sys.exit(main())
