"""Front-end overhead: fparser's parse alone against sat.frontend.read_sources, same file.

Generates a module of about 4,000 lines with bench/generate_fortran.py, then times, in one
run and best of 3 each, (a) fparser parsing the file and (b) satreport's Fortran front end
reading it into the code description (which includes the same parse). The parse is the floor
under satreport's run time; the goal is an overhead below 30%.

Usage: ``python bench/bench_frontend.py [LINES]`` (default 4000)
"""

from __future__ import annotations

import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from generate_fortran import generate_module  # noqa: E402

GOAL_OVERHEAD = 0.30
REPEATS = 3


def module_of_lines(lines: int) -> tuple[str, int]:
    """The smallest generated module with at least ``lines`` lines, and its nest count."""
    n_nests = max(1, lines // 12)
    text = generate_module(n_nests)
    while text.count("\n") < lines:
        n_nests += 5
        text = generate_module(n_nests)
    return text, n_nests


def parse_only(path: str) -> None:
    """What fparser alone does with the file (the front end's first step)."""
    from fparser.common.readfortran import FortranFileReader
    from fparser.two import symbol_table
    from fparser.two.parser import ParserFactory

    symbol_table.SYMBOL_TABLES.clear()  # global state kept between parses
    reader = FortranFileReader(path, ignore_comments=False)
    ParserFactory().create(std="f2008")(reader)


def front_end(path: str) -> None:
    from sat.frontend import read_sources

    read_sources([path], fortran_parser="fparser")  # the same parse as parse_only, and more


def best_of(function: Callable[[str], None], path: str, repeats: int = REPEATS) -> float:
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        function(path)
        best = min(best, time.perf_counter() - start)
    return best


def main(argv: list[str]) -> int:
    lines = int(argv[0]) if argv else 4000
    text, n_nests = module_of_lines(lines)
    with tempfile.TemporaryDirectory() as tmp:
        path = str(Path(tmp) / "generated.f90")
        Path(path).write_text(text)
        print(f"module: {text.count(chr(10))} lines, {n_nests} nests ({path})")
        parse = best_of(parse_only, path)
        print(f"fparser parse only:        {parse:8.3f} s (best of {REPEATS})")
        full = best_of(front_end, path)
        print(f"sat.frontend.read_sources: {full:8.3f} s (best of {REPEATS})")
    ratio = full / parse
    overhead = ratio - 1.0
    verdict = "meets" if overhead < GOAL_OVERHEAD else "MISSES"
    print(f"ratio {ratio:.3f}, overhead {overhead:+.1%} ({verdict} the goal of "
          f"< {GOAL_OVERHEAD:.0%})")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
