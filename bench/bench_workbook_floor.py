"""The least time a workbook of a 100,000-line program can take to write, in this Python.

    python bench/bench_workbook_floor.py [--nests 200] [--lines 100000]

Runs satreport on a generated module of ``--nests`` nests (``generate_fortran.py``), counts
the cells of each sheet of its workbook, and scales the count to the nests of a ``--lines``
program (about 11 lines per nest).  Then it writes that many cells as plainly as Python can:
each cell one formatted string of the size of satreport's average cell (a formula and its
value), joined, encoded and deflated into a zip member, with no model, no formula printing,
no evaluation and no styles.  Side by side: satreport's own processor time for the small
module, per nest.  The floor is what any writer in this Python pays for the workbook alone,
whatever else gets faster.
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
import tempfile
import time
import zipfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_end_to_end import installed_environment  # noqa: E402
from generate_fortran import generate_module  # noqa: E402

LINES_PER_NEST = 11  # about, for generate_module


def sheet_cells(workbook: Path) -> tuple[int, int]:
    """(cells, bytes of sheet XML) of every worksheet of ``workbook``."""
    cells = size = 0
    with zipfile.ZipFile(workbook) as book:
        for name in book.namelist():
            if re.fullmatch(r"xl/worksheets/sheet\d+\.xml", name):
                text = book.read(name)
                cells += text.count(b"<c ")
                size += len(text)
    return cells, size


def write_floor(cells: int, cell_bytes: int, target: Path) -> float:
    """Seconds to make ``cells`` cells of about ``cell_bytes`` bytes of XML each, in rows of
    ten, and deflate them into one zip member."""
    filler = "B7*Parameters!$B$12+C7"
    padding = max(0, cell_bytes - len('<c r="AA1000" s="3"><f></f><v>1.2345678</v></c>')
                  - len(filler))
    formula = filler + "+0" * (padding // 2)
    start = time.perf_counter()
    pieces: list[str] = []
    write = pieces.append
    for row in range(1, cells // 10 + 2):
        number = str(row)
        write(f'<row r="{number}">')
        for column in "ABCDEFGHIJ":
            write(f'<c r="{column}{number}" s="3"><f>{formula}</f><v>1.2345678</v></c>')
        write("</row>")
    data = "".join(pieces).encode()
    with zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED) as book:
        book.writestr("xl/worksheets/sheet1.xml", data)
    return time.perf_counter() - start


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--nests", type=int, default=200,
                        help="nests of the generated module satreport runs on (default 200)")
    parser.add_argument("--lines", type=int, default=100_000,
                        help="lines of the program the floor is for (default 100,000)")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as work:
        source = Path(work) / "gen.f90"
        source.write_text(generate_module(args.nests))
        out = Path(work) / "gen.xlsx"
        command = [sys.executable, "-m", "sat", str(source), "-o", str(out), "-q", "-j", "1"]
        subprocess.run(command, check=True, env=installed_environment())  # bytecode cache
        began = time.perf_counter()
        subprocess.run(command, check=True, env=installed_environment())
        wall = time.perf_counter() - began
        cells, size = sheet_cells(out)
        nests = args.lines / LINES_PER_NEST
        scaled = int(cells / args.nests * nests)
        floor = write_floor(scaled, size // max(cells, 1), Path(work) / "floor.zip")
    print(f"satreport on {args.nests} nests: {wall:.1f} s wall ({wall / args.nests * 1000:.1f} ms "
          f"per nest), a workbook of {cells:,} cells ({cells / args.nests:.0f} per nest, "
          f"{size / cells:.0f} B of XML each)")
    print(f"{args.lines:,} lines, about {nests:,.0f} nests: {scaled:,} cells; written and "
          f"deflated as plainly as this Python can: {floor:.1f} s (satreport at its own pace: "
          f"{wall / args.nests * nests:.0f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
