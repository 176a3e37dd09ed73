"""A worker process of a shared read: reads the share described on stdin, pickles the result."""

from __future__ import annotations

import gc
import pickle
import sys
from collections.abc import Sequence

from sat.frontend.bodies import run_with_deep_stack
from sat.frontend.fortran.read import read_units
from sat.frontend.fortran.shares import ShareResult


def read_share(paths: Sequence[str], defines: Sequence[str], include_dirs: Sequence[str],
               blank: dict[str, list[tuple[int, int]]], parser: str = "tree-sitter"
               ) -> ShareResult:
    """Read one share in this process (with the deep stack the parse needs)."""
    return run_with_deep_stack(
        lambda: read_units(paths, defines, include_dirs, blank, parser=parser),
        "satreport-fortran-share")


def _serve() -> None:
    """A worker process: read the share described on stdin, write the result to stdout."""
    gc.disable()  # the process ends with the read: its garbage goes with it (sat.collector)
    paths, defines, include_dirs, blank, parser = pickle.load(sys.stdin.buffer)
    result = read_share(paths, defines, include_dirs, blank, parser)
    pickle.dump(result, sys.stdout.buffer, protocol=pickle.HIGHEST_PROTOCOL)
    sys.stdout.buffer.flush()


if __name__ == "__main__":
    _serve()
