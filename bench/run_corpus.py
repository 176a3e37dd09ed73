"""Run satreport over a corpus of source files listed in a manifest: one table row per file."""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

MANIFEST_HELP = """\
The manifest is a JSON list, one object per file:

  [{"path": "polybench/gemm/gemm.F90",        the file (relative to the manifest's folder)
    "with": ["polybench/gemm/kernel.F90"],     other sources its build compiles with it
    "flags": ["-I", "utilities", "-D", "N=100"],   satreport options (paths relative to
                                                   the manifest's folder)
    "repo": "owner/name", "commit": "51b3...", "repo_path": "...", "licence": "BSD-3-Clause",
    "kernel": "kernel_gemm:28"}]               procedure:line of the main kernel

Only "path" is required. Without "kernel" the main kernel is the nest with the longest
modelled time. "repo", "commit" and "licence" are printed by --sources.
"""


def load_manifest(path: Path) -> list[dict]:
    """The manifest's entries, each with its path made absolute."""
    entries = json.loads(path.read_text())
    if not isinstance(entries, list) or not all(isinstance(e, dict) and "path" in e
                                                for e in entries):
        raise SystemExit(f"{path}: a manifest is a JSON list of objects with a 'path'")
    return entries


def run_one(entry: dict, root: Path, out_dir: Path, timeout: float) -> dict:
    """satreport on one manifest entry: exit status, nests, defaulted parameters, main kernel."""
    source = entry["path"]
    stem = source.replace("/", "_")
    json_out = out_dir / f"{stem}.json"
    command = [sys.executable, "-m", "sat", source, *entry.get("with", []),
               *entry.get("flags", []), "--json", str(json_out),
               "-o", str(out_dir / f"{stem}.xlsx")]
    try:
        done = subprocess.run(command, cwd=root, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return {"file": source, "exit": "timeout"}
    row: dict = {"file": source, "exit": done.returncode,
                 "stderr": [line for line in done.stderr.splitlines()
                            if "warning" in line or "error" in line]}
    if done.returncode != 0 or not json_out.exists():
        return row
    result = json.loads(json_out.read_text())
    loops = result["loops"]
    row["modelled"] = len(loops)
    row["refused"] = len(result.get("unmodelled", []))
    row["defaulted"] = [p["name"] for p in result["parameters"] if p.get("defaulted")]
    main = _main_kernel(loops, entry.get("kernel"))
    if main is not None:
        iterations = main["sweeps"] * main["iter_x"] * main["iter_y"] * main["iter_z"]
        row["kernel"] = f"{main['procedure']}:{main['line']}"
        row["flops"] = "+".join(f"{main[k]:g}" for k in ("adds", "multiplies", "divides",
                                                          "specials"))
        # all the nest's flops over its iterations (the a+m+d+s columns add each loop
        # level's statements once, ExaSAT's convention)
        row["flops_it"] = main["gflops"] * 1e9 / iterations if iterations else 0.0
        row["bytes_it"] = main["traffic_gb"] * 1e9 / iterations if iterations else 0.0
    return row


def _main_kernel(loops: list[dict], wanted: str | None) -> dict | None:
    """The nest named procedure:line in the manifest, else the longest-running one."""
    if wanted:
        for loop in loops:
            if f"{loop['procedure']}:{loop['line']}" == wanted:
                return loop
    return max(loops, key=lambda loop: loop["time_s"], default=None)


def print_table(rows: list[dict]) -> None:
    """One line per file: exit, nests modelled/refused, main kernel, defaulted parameters."""
    header = (f"{'file':40} {'exit':>4} {'mod/ref':>7}  {'main kernel':22} {'a+m+d+s':>16} "
              f"{'flops/it':>8} {'B/it':>7}  defaulted")
    print(header)
    print("-" * len(header))
    for row in rows:
        nests = f"{row.get('modelled', '-')}/{row.get('refused', '-')}"
        flops_it = f"{row['flops_it']:.3g}" if "flops_it" in row else "-"
        bytes_it = f"{row['bytes_it']:.1f}" if "bytes_it" in row else "-"
        print(f"{row['file'][-40:]:40} {row['exit']!s:>4} {nests:>7}  "
              f"{row.get('kernel', '-')[:22]:22} {row.get('flops', '-'):>16} {flops_it:>8} "
              f"{bytes_it:>7}  {', '.join(row.get('defaulted', [])) or '-'}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, epilog=MANIFEST_HELP,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("manifest", type=Path, help="JSON manifest of the corpus")
    parser.add_argument("--out", type=Path,
                        help="folder for the JSON and workbooks (default: a temporary one)")
    parser.add_argument("--timeout", type=float, default=600.0,
                        help="seconds per file (default 600)")
    parser.add_argument("--warnings", action="store_true", help="also print each file's warnings")
    parser.add_argument("--sources", action="store_true",
                        help="also print each file's repository, commit and licence")
    args = parser.parse_args(argv)
    entries = load_manifest(args.manifest)
    root = args.manifest.resolve().parent
    with tempfile.TemporaryDirectory() as scratch:
        out_dir = (args.out or Path(scratch)).resolve()
        out_dir.mkdir(parents=True, exist_ok=True)
        rows = [run_one(entry, root, out_dir, args.timeout) for entry in entries]
    print_table(rows)
    if args.sources:
        for entry in entries:
            print(f"{entry['path']}: {entry.get('repo', '?')}@{entry.get('commit', '?')[:12]} "
                  f"({entry.get('licence', '?')}) "
                  f"{' '.join([*entry.get('with', []), *entry.get('flags', [])])}")
    if args.warnings:
        for row in rows:
            for line in row.get("stderr", []):
                print(f"{row['file']}: {line}")
    return 0 if all(row["exit"] == 0 for row in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
