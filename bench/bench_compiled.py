"""Compiled NumPy evaluator against the tree evaluator on a real program, side by side.

Builds the model of SMC's kernels.f90 (or the file given), compiles every nest's time, and
evaluates it for many configurations with both evaluators in one run: the compiled one over
arrays of configurations, the tree evaluator one configuration at a time.  Prints nest ·
configurations per second for each, for a sweep of one parameter, of three and of every one.

Usage: ``python bench/bench_compiled.py [SOURCE] [CONFIGURATIONS]`` (default 100,000)
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from sat.explore.compiled import CompiledModel  # noqa: E402
from sat.frontend import read_sources  # noqa: E402
from sat.machine import load_machine  # noqa: E402
from sat.model.build import build_model  # noqa: E402
from sat.parameters import build_parameters  # noqa: E402

KERNELS = ROOT.parent / "shared" / "reference" / "exasat" / "inputs" / "smc-kernels.f90"
TARGET = 1e6  # nest · configurations per second
TREE_CONFIGURATIONS = 20


def main(argv: list[str]) -> int:
    source = Path(argv[1]) if len(argv) > 1 else KERNELS
    count = int(argv[2]) if len(argv) > 2 else 100_000
    result = build_model(read_sources([str(source)], processes=2),
                         build_parameters(load_machine(None)))
    times = [row["time_s"] for row in result.tables["Loops"].rows]
    start = time.perf_counter()
    compiled = CompiledModel(times)
    print(f"{source.name}: {len(times)} nests, {compiled.statements:,} statements, "
          f"compiled in {time.perf_counter() - start:.2f} s")
    base = {p.name: float(p.value) for p in result.parameters}
    rng = np.random.default_rng(0)
    for varied in (["CacheKB"], ["CacheKB", "BlockX", "hi_1"], compiled.parameters):
        values: dict[str, object] = dict(base)
        for name in varied:
            if name in compiled.parameters:
                values[name] = base[name] * rng.uniform(0.5, 2.0, count)
        start = time.perf_counter()
        compiled(values)  # type: ignore[arg-type]
        fast = len(times) * count / (time.perf_counter() - start)
        start = time.perf_counter()
        for k in range(TREE_CONFIGURATIONS):
            env = result.env({name: float(values[name][k])  # type: ignore[index]
                              for name in varied if name in compiled.parameters})
            for quantity in times:
                quantity.value(env)
        tree = len(times) * TREE_CONFIGURATIONS / (time.perf_counter() - start)
        print(f"{len(varied)} parameter(s) varied over {count:,} configurations: compiled "
              f"{fast:,.0f} nest·configurations/s, tree {tree:,.0f}/s ({fast / tree:,.0f}x); "
              f"{fast / TARGET:.2f} of the target ({'met' if fast >= TARGET else 'NOT met'})")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
