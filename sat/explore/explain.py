"""The answer to a scenario, explained: the JSON's ``scenario`` object and its sentences.

Feasible: the optimum, each constraint's value, bound and slack, which constraints bind (the
objective would be better without them) and how the objective moves when each is relaxed by
10 % of its bound.  Infeasible: for each constraint its least violation alone, the pairs that
hold together nowhere, and the smallest relaxation of each that makes the problem feasible
with the others kept.  Everything is over the configurations the solver evaluated: the whole
grid for an exhaustive solve.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from sat.explore.scenario import Problem
from sat.explore.solve import RELAXATION, Evaluator, Solution


def _number(value: float) -> float | int | None:
    if value is None or not math.isfinite(value):
        return None
    value = float(value)
    return int(value) if value.is_integer() and abs(value) < 2**53 else value


def _fmt(value: float) -> str:
    return "—" if value is None or not math.isfinite(value) else f"{value:.6g}"


def _point(problem: Problem, point: np.ndarray) -> dict[str, float | int | None]:
    return {v.name: _number(x) for v, x in zip(problem.variables, point, strict=True)}


def _at(problem: Problem, point: np.ndarray) -> str:
    return ", ".join(f"{v.name} = {_fmt(x)}" for v, x in zip(problem.variables, point,
                                                              strict=True))


def answer(problem: Problem, evaluate: Evaluator, solution: Solution) -> dict[str, Any]:
    """The JSON ``scenario`` object: problem, answer, explanation (``sentences``)."""
    tally = solution.tally
    objective_name = problem.scenario.objective
    sign = -1.0 if problem.maximize else 1.0
    data: dict[str, Any] = {
        "file": problem.scenario.display,
        "objective": problem.objective_text,
        "variables": [{"name": v.name, "low": _number(v.low), "high": _number(v.high),
                       "integer": v.integer} for v in problem.variables],
        "feasible": tally.feasible,
        "solver": {"method": solution.method, "evaluations": tally.evaluations,
                   "seconds": round(solution.seconds, 4),
                   **({"grid_points": solution.grid_points} if solution.grid_points else {}),
                   **({"generations": solution.generations, "seed": problem.scenario.seed,
                       "time_limit_s": problem.scenario.time_limit_s}
                      if solution.method == "isres" else {})},
    }
    scope = "every configuration of the grid" if solution.method == "exhaustive" else \
        f"the {tally.evaluations:,} configurations evaluated"
    sentences: list[str] = []
    if tally.feasible:
        point = tally.best_point
        e = evaluate(point[None, :])
        optimum = _point(problem, point)
        if objective_name not in optimum:
            optimum[objective_name] = _number(sign * tally.best_goal)
        data["optimum"] = optimum
        data["objective_value"] = _number(sign * tally.best_goal)
        gives = "" if objective_name in optimum and len(optimum) == len(problem.variables) \
            else f" gives {objective_name} = {_fmt(sign * tally.best_goal)} " \
            f"{problem.objective.unit}".rstrip()
        sentences.append(f"Optimum: {_at(problem, point)}{gives} ({scope}).")
        rows = []
        for i, c in enumerate(problem.constraints):
            left, right = float(e.lefts[0, i]), float(e.rights[0, i])
            slack = right - left if c.operator == "<=" else left - right
            binding = tally.without[i] < tally.best_goal - 1e-12 * max(1, abs(tally.best_goal))
            relaxed = sign * tally.relaxed[i] if math.isfinite(tally.relaxed[i]) else None
            without = sign * tally.without[i] if math.isfinite(tally.without[i]) else None
            rows.append({"expr": c.text, "line": c.line, "value": _number(left),
                         "bound": _number(right), "slack": _number(slack),
                         "relative_slack": _number(slack / abs(right)) if right else None,
                         "binding": bool(binding),
                         "objective_if_relaxed": _number(relaxed) if binding else None,
                         "objective_without": _number(without) if binding else None})
            if binding:
                sentences.append(
                    f"{c.text} binds ({_fmt(left)} against {_fmt(right)}): relaxed by "
                    f"{RELAXATION:.0%} of its bound, {objective_name} would be "
                    f"{_fmt(relaxed)}; without it, {_fmt(without)}.")
            else:
                sentences.append(f"{c.text} holds with slack {_fmt(slack)}"
                                 + (f" ({slack / abs(right):.0%} of the bound)" if right else "")
                                 + "; it does not limit the optimum.")
        data["constraints"] = rows
    else:
        sentences.append(f"No configuration satisfies every constraint ({scope}).")
        rows = []
        conflicts = []
        for i, c in enumerate(problem.constraints):
            alone = float(tally.alone[i])
            relax = float(tally.relax[i])
            row: dict[str, Any] = {"expr": c.text, "line": c.line,
                                   "holds_alone": alone == 0,
                                   "least_violation_alone": _number(alone),
                                   "relaxation_needed": _number(relax)}
            if alone > 0:
                where = tally.alone_point[i]
                sentences.append(f"{c.text} cannot hold even alone: at best it misses by "
                                 f"{_fmt(alone)} (at {_at(problem, where)}).")
                row["least_violation_at"] = _point(problem, where) if where is not None \
                    else None
            if math.isfinite(relax):
                where = tally.relax_point[i]
                e = evaluate(where[None, :])
                right = float(e.rights[0, i])
                bound = right + relax if c.operator == "<=" else right - relax
                row["relaxed_bound"] = _number(bound)
                row["relaxed_at"] = _point(problem, where)
                change = f" ({(bound - right) / abs(right):+.0%})" if right else ""
                sentences.append(f"Relaxing {c.text} to {c.operator} {_fmt(bound)}{change}, "
                                 f"the others kept, makes the problem feasible (at "
                                 f"{_at(problem, where)}).")
            else:
                sentences.append(f"Relaxing {c.text} alone does not help: the other "
                                 "constraints cannot all hold either.")
            rows.append(row)
            for j in range(i + 1, len(problem.constraints)):
                if tally.alone[i] == 0 and tally.alone[j] == 0 and not tally.together[i, j]:
                    other = problem.constraints[j]
                    conflicts.append([c.text, other.text])
                    sentences.append(f"{c.text} and {other.text} cannot hold together.")
        data["constraints"] = rows
        data["conflicts"] = conflicts
        if tally.least_penalty_point is not None:
            data["least_violation"] = _point(problem, tally.least_penalty_point)
    data["sentences"] = sentences
    return data


def region(problem: Problem, evaluate: Evaluator, at: dict[str, float],
           size: int = 40) -> dict[str, Any] | None:
    """The objective over the first two variables (the others at ``at``): ``objective[i][j]``
    at ``xs[i]``, ``ys[j]``, ``None`` where a constraint fails: the HTML's feasible region."""
    if len(problem.variables) < 2:
        return None
    first, second = problem.variables[:2]
    xs, ys = _axis(first, size), _axis(second, size)
    grid_x, grid_y = np.meshgrid(xs, ys, indexing="ij")
    points = np.column_stack([grid_x.ravel(), grid_y.ravel(),
                              *(np.full(grid_x.size, at[v.name]) for v in problem.variables[2:])])
    e = evaluate(points)
    feasible = e.valid & np.all(e.violations == 0, axis=1)
    sign = -1.0 if problem.maximize else 1.0
    values = np.where(feasible, sign * e.goal, np.nan).reshape(len(xs), len(ys))
    return {"x": first.name, "y": second.name, "xs": [_number(x) for x in xs],
            "ys": [_number(y) for y in ys],
            "objective": [[_number(v) for v in row] for row in values],
            "feasible_share": float(np.mean(feasible))}


def _axis(variable, size: int) -> np.ndarray:
    if variable.integer and variable.points <= size:
        return np.arange(math.ceil(variable.low), math.floor(variable.high) + 1, dtype=float)
    values = np.linspace(variable.low, variable.high, size)
    return np.unique(np.round(values)) if variable.integer else values
