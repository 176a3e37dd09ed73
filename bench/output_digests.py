"""Digests of satreport's text outputs for every bundled example, to prove a change alters none.

    python bench/output_digests.py [--smc PATH] > before.txt
    ... change the code ...
    python bench/output_digests.py [--smc PATH] > after.txt && diff before.txt after.txt

For each bundled Fortran and C example (and, with ``--smc``, a large program such as SMC's
``kernels.f90``) it runs satreport once with ``--json``, ``--xml``, ``--aspen``, ``--html``
and ``-o`` (the workbook) and prints one line per output: the example, the output kind and
the SHA-256 of its bytes. What changes from run to run is blanked first: the JSON's version
field and elapsed times, the Aspen model's ``// Date:`` line, the HTML page's date, the
workbook's document properties (its creation time; the workbook's digest is over the other
parts of the file, uncompressed); nothing else is. Aspen models under ``examples/aspen`` are
run with ``--json`` alone (they have no XML or Aspen output). A failed run prints its exit status
instead of digests.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SOURCES = (".f90", ".F90", ".f", ".F", ".c")


def examples() -> list[Path]:
    """The bundled example programs, sorted."""
    found = [p for p in (ROOT / "examples").rglob("*") if p.suffix in SOURCES]
    return sorted(found) + sorted((ROOT / "examples" / "aspen").glob("*.aspen"))


def stable_json(text: bytes) -> bytes:
    """The JSON with the fields that differ between identical runs blanked."""
    data = json.loads(text)

    def blank(node):
        if isinstance(node, dict):
            return {key: ("-" if key in ("satreport", "elapsed_s", "version") else blank(value))
                    for key, value in node.items()}
        if isinstance(node, list):
            return [blank(item) for item in node]
        return node

    return json.dumps(blank(data), sort_keys=True).encode()


def workbook_parts(path: Path) -> bytes:
    """The workbook's parts but its document properties, by name, uncompressed."""
    with zipfile.ZipFile(path) as book:
        return b"".join(name.encode() + b"\0" + book.read(name)
                        for name in sorted(book.namelist()) if not name.startswith("docProps/"))


def digests(source: Path, work: Path) -> list[str]:
    """One line per output of one run of satreport on ``source``."""
    name = source.relative_to(ROOT) if source.is_relative_to(ROOT) else source
    outputs = {"json": work / "out.json"}
    if source.suffix != ".aspen":
        outputs.update(xml=work / "out.xml", aspen=work / "out.aspen", html=work / "out.html",
                       xlsx=work / "out.xlsx")
    # Run from the checkout with the example's relative path: the outputs name their source,
    # and two checkouts in different folders must name it alike.
    argv = [sys.executable, "-m", "sat", str(name), "-q"]
    for kind, path in outputs.items():
        argv += ["-o" if kind == "xlsx" else f"--{kind}", str(path)]
    status = subprocess.run(argv, cwd=ROOT, capture_output=True).returncode
    if status != 0:
        return [f"{name} exit {status}"]
    lines = []
    for kind, path in outputs.items():
        data = path.read_bytes()
        if kind == "json":
            data = stable_json(data)
        elif kind == "aspen":
            data = re.sub(rb"(?m)^// Date: .*$", b"// Date: -", data)
        elif kind == "html":
            data = re.sub(rb"&middot; \d{4}-\d\d-\d\d &middot;", b"&middot; - &middot;", data)
        elif kind == "xlsx":
            data = workbook_parts(path)
        lines.append(f"{name} {kind} {hashlib.sha256(data).hexdigest()[:16]}")
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--smc", type=Path, help="also a large program, e.g. SMC's kernels.f90")
    args = parser.parse_args()
    sources = examples() + ([args.smc.resolve()] if args.smc else [])
    with tempfile.TemporaryDirectory() as work:
        for source in sources:
            for line in digests(source, Path(work)):
                print(line, flush=True)


if __name__ == "__main__":
    main()
