"""Aspen's own tools on what ``--aspen`` writes, against satreport's reading of the same model.

    python bench/aspen_tools.py [--aspen-build DIR] [--keep DIR] [--markdown]

For every bundled Fortran and C example (and, for each that has legal loop fusion groups, a
second run with ``--fuse all``, so that the toggles' ``iterate [Fuse_…]`` blocks run both
ways) it writes the program as an Aspen model with ``satreport --aspen``, then

- runs Aspen's ``runtime APP MACHINE SOCKET`` on Aspen's machine models: keeneland's CPU socket
  (``intel_xeon_x5660``) and GPU socket (``nvidia_m2090``), and ``simple`` (``SimpleCPU``);
- runs Aspen's ``resourcecount APP flops|loads|stores`` (``resourcecount17``, the same tool
  printing 17 digits, when it was built: see ``/work/shared/docs/ASPEN_BUILD.md``);
- evaluates the same model and machines with satreport's Aspen reader (``sat.aspen``:
  ``runtime`` and ``resources``),

and prints one row per example, quantity and tool with both values and their relative
difference. Aspen's tools are built from source outside the project (a cache such as
``/work/cache/aspen/aspen-hybrid``: ``--aspen-build`` or ``$ASPEN_BUILD``); they are a tool to
compare with, never a dependency of satreport. Exit status 1 when an Aspen tool fails on a
model or a value differs by more than 1e-9 relative (``runtime`` prints 12 digits), else 0.
"""

from __future__ import annotations

import argparse
import math
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SOURCES = (".f90", ".F90", ".f", ".F", ".c")
#: (machine file under the build's models/, socket): keeneland's CPU and GPU sockets, simple
MACHINES = (("machine/keeneland.aspen", "intel_xeon_x5660"),
            ("machine/keeneland.aspen", "nvidia_m2090"),
            ("machine/simple.aspen", "SimpleCPU"))
RESOURCES = ("flops", "loads", "stores")
TOLERANCE = 1e-9
_NUMBER = re.compile(r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?|[-+]?(?:inf|nan)")


def examples() -> list[Path]:
    """The bundled Fortran and C example programs, sorted."""
    return sorted(p for p in (ROOT / "examples").rglob("*") if p.suffix in SOURCES)


def write_model(source: Path, target: Path, fuse: bool) -> None:
    """``satreport SOURCE --aspen TARGET`` (with ``--fuse all`` when asked)."""
    argv = [sys.executable, "-m", "sat", str(source.relative_to(ROOT)), "-q",
            "--aspen", str(target), *(["--fuse", "all"] if fuse else [])]
    subprocess.run(argv, cwd=ROOT, check=True, capture_output=True, text=True)


def last_number(text: str) -> float:
    """The number a line holds (its last)."""
    found = _NUMBER.findall(text)
    if not found:
        raise ValueError(f"no number in {text.strip()[-200:]!r}")
    return float(found[-1])


def aspen_tool(argv: list[str], cwd: Path) -> tuple[float | None, str]:
    """The number an Aspen tool prints, or None and why it failed."""
    done = subprocess.run(argv, cwd=cwd, capture_output=True, text=True, timeout=600)
    if done.returncode != 0:
        tail = (done.stderr.strip() or done.stdout.strip()).splitlines()[-1:] or [""]
        return None, f"exit {done.returncode}: {tail[0][:120]}"
    lines = [line for line in done.stdout.splitlines() if line.strip()]
    try:  # both tools print their answer alone on the last line
        return last_number(lines[-1] if lines else ""), ""
    except ValueError as error:
        return None, str(error)


def relative(a: float, b: float) -> float:
    """|a - b| relative to the larger of the two (0 when both are 0)."""
    scale = max(abs(a), abs(b))
    return 0.0 if scale == 0 else abs(a - b) / scale


def compare(model: Path, build: Path) -> list[tuple[str, float | None, float, str]]:
    """(quantity, Aspen's value, satreport's value, Aspen's error) for one model."""
    from sat import aspen

    models = build / "models"
    count_tool = build / "tools" / "analysis" / "resourcecount17"
    if not count_tool.exists():
        count_tool = build / "tools" / "analysis" / "resourcecount"
    app = aspen.load_model(model)
    rows = []
    counted = aspen.resources(app, names=list(RESOURCES)).total
    for resource in RESOURCES:
        value, error = aspen_tool([str(count_tool), str(model), resource], models)
        rows.append((f"resourcecount {resource}", value, counted[resource], error))
    for machine_file, socket in MACHINES:
        machine = aspen.load_machine_model(models / machine_file)
        ours = aspen.runtime(app, machine, socket, kernels=False).total
        value, error = aspen_tool([str(build / "tools" / "prediction" / "runtime"), str(model),
                                   machine_file, socket], models)
        rows.append((f"runtime {Path(machine_file).stem} {socket}", value, ours, error))
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--aspen-build", type=Path,
                        default=Path(os.environ.get("ASPEN_BUILD",
                                                    "/work/cache/aspen/aspen-hybrid")),
                        help="Aspen's build folder (tools/ and models/ inside)")
    parser.add_argument("--keep", type=Path, help="keep the written models in this folder")
    parser.add_argument("--markdown", action="store_true", help="print a Markdown table")
    args = parser.parse_args(argv)
    build = args.aspen_build.resolve()
    if not (build / "tools" / "prediction" / "runtime").exists():
        print(f"aspen_tools: no Aspen build in {build} (see ASPEN_BUILD.md)", file=sys.stderr)
        return 2
    failures, worst, compared = 0, 0.0, 0
    with tempfile.TemporaryDirectory() as temporary:
        folder = args.keep or Path(temporary)
        folder.mkdir(parents=True, exist_ok=True)
        if args.markdown:
            print("| example | quantity | Aspen's tool | satreport | relative difference |")
            print("| --- | --- | --- | --- | --- |")
        for source in examples():
            runs = [False]
            model = folder / f"{source.stem}.aspen"
            write_model(source, model, fuse=False)
            if "param Fuse_" in model.read_text():
                runs.append(True)
            for fuse in runs:
                label = str(source.relative_to(ROOT / "examples")) + (" --fuse all" if fuse else "")
                if fuse:
                    model = folder / f"{source.stem}.fused.aspen"
                    write_model(source, model, fuse=True)
                for quantity, theirs, ours, error in compare(model, build):
                    if theirs is None:
                        failures += 1
                        diff_text = f"FAILED ({error})"
                    else:
                        diff = relative(theirs, ours)
                        compared += 1
                        worst = max(worst, diff)
                        failures += diff > TOLERANCE or math.isnan(diff)
                        diff_text = f"{diff:.1e}"
                    shown = "—" if theirs is None else f"{theirs:.12g}"
                    if args.markdown:
                        print(f"| {label} | {quantity} | {shown} | {ours:.12g} | {diff_text} |")
                    else:
                        print(f"{label:28s} {quantity:38s} {shown:>20s} {ours:>20.12g} "
                              f"{diff_text}")
    print(f"\n{compared} values compared, largest relative difference {worst:.1e}, "
          f"{failures} failures", file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
