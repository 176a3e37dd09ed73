"""Benchmark: model build + evaluation of a 400-nest program, against parsing its source.

    python bench/bench_model.py [N_NESTS]

Parses the generated Fortran module (bench/generate_fortran.py) when the Fortran front end is
installed; otherwise builds a synthetic 400-nest code description directly and reports the
model time alone.  Goal: the model stays under 20 % of the parse and well under a second.
"""

from __future__ import annotations

import os
import random
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from sat.ir import Access, Array, Loop, Procedure, Program  # noqa: E402
from sat.model.build import build_model  # noqa: E402
from sat.parameter import Parameter, ParameterSet  # noqa: E402

MACHINE = dict(Cores=1024, GBsPerCore=1, GflopsPerCore=10, IntRegs=16, FPRegs=16, CacheKB=1024,
               WordBytes=8, LineBytes=64, ReadCost=8, ReadWriteCost=16, WriteCost=16,
               DivCost=39, SpecialCost=125, StreamingWrites=0, NTAHints=0, NICGBs=100,
               NICLatencyUs=0.4, Overlap=1, BlockX=16, BlockY=16, BlockZ=128)


def parameters() -> ParameterSet:
    ps = ParameterSet()
    for name, value in MACHINE.items():
        ps.add(Parameter(name, value))
    return ps


def synthetic_program(n_nests: int, seed: int = 0) -> Program:
    """A code description of ``n_nests`` random 3-D stencil nests, 20 per procedure."""
    rng = random.Random(seed)
    procedures = []
    for first in range(0, n_nests, 20):
        loops = []
        for n in range(first, min(first + 20, n_nests)):
            arrays = []
            for a in range(rng.randint(2, 8)):
                radius = rng.randint(0, 4)
                offsets = {(0, 0, 0)}
                for axis in range(3):
                    for d in range(1, radius + 1):
                        for sign in (1, -1):
                            point = [0, 0, 0]
                            point[axis] = sign * d
                            offsets.add(tuple(point))
                arrays.append(Array(f"in{a}", "c", accesses=[
                    Access((*o, "c"), ("i", "j", "k", ""), reads=1) for o in offsets]))
            arrays.append(Array("out", str(n), accesstype="writeonly", accesses=[
                Access((0, 0, 0, str(n)), ("i", "j", "k", ""), writes=1)]))
            inner = Loop(line=10 * n + 3, loopvar="i", lower="lo(1)", upper="hi(1)",
                         adds=rng.randint(1, 100), multiplies=rng.randint(1, 100),
                         divides=rng.randint(0, 2), arrays=arrays)
            middle = Loop(line=10 * n + 2, loopvar="j", lower="lo(2)", upper="hi(2)",
                          loops=[inner])
            loops.append(Loop(line=10 * n + 1, loopvar="k", lower="lo(3)", upper="hi(3)",
                              loops=[middle]))
        procedures.append(Procedure(name=f"p{first // 20}", file="synthetic.f90", loops=loops))
    return Program(procedures)


def evaluate_all(result) -> int:
    """Evaluate every quantity of every table once (what JSON/HTML/workbook writers do)."""
    env = result.env()
    count = 0
    for table in result.tables.values():
        for row in [*table.rows, *([table.totals] if table.totals else [])]:
            for value in row.values():
                if hasattr(value, "value"):
                    value.value(env)
                    count += 1
    return count


def main(argv: list[str]) -> int:
    n_nests = int(argv[0]) if argv else 400
    parse_s = None
    program = None
    try:
        import sat.frontend.fortran.read  # noqa: F401  (only the check that it is installed)
        from bench.generate_fortran import generate_module
        from sat.frontend import read_sources
    except ImportError:
        pass
    else:
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "gen.f90")
            with open(path, "w") as f:
                f.write(generate_module(n_nests))
            start = time.perf_counter()
            program = read_sources([path])
            parse_s = time.perf_counter() - start
    if program is None:
        program = synthetic_program(n_nests)
        print("Fortran front end not available: synthetic code description used")
    nests = sum(len(p.loops) for p in program.procedures)
    start = time.perf_counter()
    result = build_model(program, parameters())
    build_s = time.perf_counter() - start
    start = time.perf_counter()
    cells = evaluate_all(result)
    eval_s = time.perf_counter() - start
    model_s = build_s + eval_s
    print(f"nests: {nests}, quantities evaluated: {cells}")
    if parse_s is not None:
        print(f"parse:            {parse_s:8.3f} s")
    print(f"model build:      {build_s:8.3f} s")
    print(f"model evaluation: {eval_s:8.3f} s")
    print(f"model total:      {model_s:8.3f} s")
    if parse_s:
        print(f"model / parse:    {100 * model_s / parse_s:7.1f} %  (goal < 20 %)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
