"""Solver time per scenario: the bundled examples and a tuner on SMC's kernels.f90.

For each scenario: the model is built once (not timed), then the scenario is bound, compiled
and solved, best of 3 (the evolution strategy with its fixed seed gives the same answer each
time).  Printed per scenario: the solver, configurations evaluated, solve time, the rate
(nest · configurations per second, nests = the program's loop nests, at least 1) and the
answer.

Usage: ``python bench/bench_scenarios.py``
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from sat.explore.explain import answer  # noqa: E402
from sat.explore.scenario import bind, read_scenario  # noqa: E402
from sat.explore.solve import MAX_GRID, Evaluator, exhaustive, grid_points, isres  # noqa: E402
from sat.frontend import read_sources  # noqa: E402
from sat.ir import Program  # noqa: E402
from sat.machine import load_machine  # noqa: E402
from sat.model.build import build_model  # noqa: E402
from sat.parameters import build_parameters  # noqa: E402

EXAMPLES = ROOT / "examples"
SCENARIOS = EXAMPLES / "scenarios"
KERNELS = ROOT.parent / "shared" / "reference" / "exasat" / "inputs" / "smc-kernels.f90"
KERNELS_TUNER = """\
objective: minimize Total_Time_s
variables:
  BlockY: 4..67 integer
  BlockZ: 4..67 integer
set:
  CacheKB: 256
"""

CASES = [  # (label, source or None, scenario file, machine)
    ("tuner (lap.f90)", EXAMPLES / "lap.f90", SCENARIOS / "tuner.yaml", None),
    ("problem-size planner (triad.f90)", EXAMPLES / "triad.f90",
     SCENARIOS / "problem-size-planner.yaml", None),
    ("machine planner (triad.f90)", EXAMPLES / "triad.f90",
     SCENARIOS / "machine-planner.yaml", None),
    ("architect (no source)", None, SCENARIOS / "architect.yaml", "xeon-e5-2680"),
    ("architect, infeasible", None, SCENARIOS / "architect-infeasible.yaml", "xeon-e5-2680"),
]


def solve_once(result, scenario):
    start = time.perf_counter()
    problem = bind(scenario, result)
    evaluate = Evaluator.of(problem, result)
    compiled = time.perf_counter()
    if scenario.solver == "exhaustive" or (scenario.solver == "auto" and
                                           grid_points(problem) <= MAX_GRID):
        solution = exhaustive(evaluate, problem.variables)
    else:
        solution = isres(evaluate, problem.variables, scenario.time_limit_s, scenario.seed)
    data = answer(problem, evaluate, solution)
    return compiled - start, time.perf_counter() - compiled, solution, data


def main() -> int:
    cases = list(CASES)
    if KERNELS.is_file():
        path = Path(tempfile.mkdtemp()) / "kernels-tuner.yaml"
        path.write_text(KERNELS_TUNER)
        cases.append(("tuner (SMC kernels.f90, 84 nests)", KERNELS, path, None))
    print(f"{'scenario':38s} {'solver':10s} {'configs':>9s} {'compile s':>9s} {'solve s':>8s} "
          f"{'nest·configs/s':>15s}  answer")
    for label, source, path, machine in cases:
        scenario = read_scenario(path)
        program = read_sources([str(source)], processes=2) if source else Program()
        params = build_parameters(load_machine(machine), sets=scenario.sets)
        result = build_model(program, params)
        nests = max(1, len(result.tables["Loops"].rows))
        runs = [solve_once(result, scenario) for _ in range(3)]
        compile_s, seconds, solution, data = min(runs, key=lambda r: r[1])
        evaluations = solution.tally.evaluations
        print(f"{label:38s} {solution.method:10s} {evaluations:9,d} {compile_s:9.3f} "
              f"{seconds:8.3f} "
              f"{nests * evaluations / seconds:15,.0f}  {data['sentences'][0]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
