"""Solving a scenario: exhaustive vectorised evaluation, or an evolution strategy (ISRES).

Both solvers hand every configuration they evaluate to a :class:`Tally`, which keeps, besides
the best feasible configuration, what the explanation needs (:mod:`sat.explore.explain`): per
constraint the least violation alone, the least violation while all the others hold (the
relaxation that makes the problem feasible), the best objective without it or with it relaxed
by :data:`RELAXATION`, and which pairs of constraints hold together somewhere.

- **Exhaustive** (every variable whole-numbered, at most :data:`MAX_GRID` configurations):
  the grid is evaluated in chunks by the compiled model; the answer is exact on the grid.
- **ISRES**, the improved stochastic ranking evolution strategy of Runarsson and Yao (2005), as
  Aspen's design-space tools use through NLopt, written here over the compiled model: each
  generation's population is evaluated in one call.  Whole-numbered variables are rounded
  before evaluation and a configuration already evaluated is not evaluated again.  It stops at
  the time limit or when the best configuration has not changed for :data:`STALL`
  generations (by more than a relative 1e-6); a pattern search then polishes the best feasible
  point (exact boundaries for continuous variables).  Its answer is the best found, not a
  proven optimum: the explanation covers the configurations it evaluated.  The time limit
  holds inside a generation too (the ranking and the polish look at the clock), so a run
  ends within the limit plus one evaluation of a population.

A configuration whose arithmetic overflows or divides by zero is not valid (its values are not
finite); numpy's warnings about it are never for the user and are silenced
(:func:`quiet_arithmetic`).
"""

from __future__ import annotations

import math
import time
import warnings
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import partial

import numpy as np

from sat.explore.compiled import CompiledModel
from sat.explore.distribute import Mapper, in_process
from sat.explore.scenario import Problem, Variable
from sat.model.tables import ModelResult
from sat.model.validate import stencil_blocks

MAX_GRID = 10_000_000  # configurations an exhaustive solve evaluates at most
CHUNK = 65_536
RELAXATION = 0.10  # "how the objective changes": each constraint relaxed by 10 % of its bound
STALL = 100  # generations without a better configuration before ISRES stops
STALL_GAIN = 1e-6  # relative: a smaller gain is no better configuration (the polish refines)


@contextmanager
def quiet_arithmetic() -> Iterator[None]:
    """No numpy warning about overflow, 0/0 or inf - inf: such a configuration is invalid
    (its values are not finite), which the solvers report in their own words."""
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        yield


@dataclass
class Evaluator:
    """The problem's quantities compiled once; evaluates arrays of configurations.

    It holds only what evaluation needs (no model trees), so that it travels cheaply to the
    workers of a cluster.
    """

    names: list[str]  # the variables, in the order of the points' columns
    signs: np.ndarray  # per constraint: 1 for <=, -1 for >=
    maximize: bool
    base: dict[str, float]
    model: CompiledModel
    spans: list[int]  # per stencil-block check: the span a positive block must reach

    @classmethod
    def of(cls, problem: Problem, result: ModelResult) -> Evaluator:
        quantities = [problem.objective]
        for constraint in problem.constraints:
            quantities += [constraint.left, constraint.right]
        spans = []
        for _row, _axis, block, span in stencil_blocks(result):
            quantities.append(block)
            spans.append(span)
        signs = np.array([1.0 if c.operator == "<=" else -1.0 for c in problem.constraints])
        return cls([v.name for v in problem.variables], signs, problem.maximize,
                   result.inputs(), CompiledModel(quantities, result.defaults()), spans)

    @property
    def constraints(self) -> int:
        return len(self.signs)

    def __call__(self, points: np.ndarray) -> Evaluation:
        """``points``: one row per configuration, one column per variable."""
        with np.errstate(all="ignore"):  # per thread: also on a cluster's workers
            return self._evaluate(points)

    def _evaluate(self, points: np.ndarray) -> Evaluation:
        values = dict(self.base)
        for k, name in enumerate(self.names):
            values[name] = points[:, k]
        size, m = len(points), self.constraints
        out = [np.broadcast_to(column, (size,)) for column in self.model(values)]
        objective = np.asarray(out[0], dtype=float)
        lefts = np.column_stack(out[1:1 + 2 * m:2]) if m else np.zeros((size, 0))
        rights = np.column_stack(out[2:2 + 2 * m:2]) if m else np.zeros((size, 0))
        valid = np.isfinite(objective)
        for block, span in zip(out[1 + 2 * m:], self.spans, strict=True):
            valid &= ~((block > 0) & (block < span))
        # internally everything is minimised
        goal = -objective if self.maximize else objective
        return Evaluation.of(points, goal, lefts, rights, valid, self.signs)


@dataclass
class Evaluation:
    points: np.ndarray
    goal: np.ndarray  # the objective, negated when maximising
    lefts: np.ndarray
    rights: np.ndarray
    violations: np.ndarray  # >= 0; 0 where the constraint holds
    scale: np.ndarray  # |right side| (1 where it is 0): violations relative to it
    valid: np.ndarray  # the model is defined there

    @classmethod
    def of(cls, points: np.ndarray, goal: np.ndarray, lefts: np.ndarray, rights: np.ndarray,
           valid: np.ndarray, signs: np.ndarray) -> Evaluation:
        """The evaluation with its violations (``signs``: 1 for <=, -1 for >=) and scales;
        a configuration whose constraints do not evaluate is not valid."""
        violations = np.maximum((lefts - rights) * signs, 0.0)  # no tolerance: the optimum
        valid = valid & np.all(np.isfinite(violations), axis=1)  # holds exactly
        scale = np.where(np.abs(rights) > 0, np.abs(rights), 1.0)
        return cls(points, goal, lefts, rights, violations, scale, valid)

    def penalty(self) -> np.ndarray:
        """Sum of squared relative violations (ISRES's ranking); infinite where invalid."""
        relative = self.violations / self.scale
        return np.where(self.valid, np.sum(relative * relative, axis=1), np.inf)


@dataclass
class Tally:
    """What the evaluated configurations say about the problem (see the module's docstring)."""

    constraints: int
    evaluations: int = 0
    best_goal: float = math.inf
    best_point: np.ndarray | None = None
    least_penalty: float = math.inf
    least_penalty_point: np.ndarray | None = None
    alone: np.ndarray = field(init=False)  # least violation of each constraint alone
    alone_point: list = field(init=False)
    relax: np.ndarray = field(init=False)  # least violation while all the others hold
    relax_point: list = field(init=False)
    without: np.ndarray = field(init=False)  # best goal with the others holding
    without_point: list = field(init=False)
    relaxed: np.ndarray = field(init=False)  # best goal with this one relaxed by RELAXATION
    relaxed_point: list = field(init=False)
    together: np.ndarray = field(init=False)  # pairs holding together somewhere

    def __post_init__(self) -> None:
        m = self.constraints
        self.alone = np.full(m, math.inf)
        self.alone_point = [None] * m
        self.relax = np.full(m, math.inf)
        self.relax_point = [None] * m
        self.without = np.full(m, math.inf)
        self.without_point = [None] * m
        self.relaxed = np.full(m, math.inf)
        self.relaxed_point = [None] * m
        self.together = np.zeros((m, m), dtype=bool)

    @property
    def feasible(self) -> bool:
        return self.best_point is not None

    def add(self, e: Evaluation) -> None:
        self.evaluations += len(e.goal)
        valid = e.valid
        holds = (e.violations == 0) & valid[:, None]
        feasible = np.all(holds, axis=1)
        if feasible.any():
            index = int(np.argmin(np.where(feasible, e.goal, np.inf)))
            if e.goal[index] < self.best_goal or self.best_point is None:
                self.best_goal, self.best_point = float(e.goal[index]), e.points[index].copy()
        penalty = e.penalty()
        if len(penalty):
            index = int(np.argmin(penalty))
            if penalty[index] < self.least_penalty:
                self.least_penalty = float(penalty[index])
                self.least_penalty_point = e.points[index].copy()
        failing = np.sum(~holds, axis=1)
        for i in range(self.constraints):
            column = np.where(valid, e.violations[:, i], np.inf)
            self._least(self.alone, self.alone_point, i, column, e.points)
            # all the others hold: nothing fails, or only this one
            others = valid & ((failing == 0) | ((failing == 1) & ~holds[:, i]))
            self._least(self.relax, self.relax_point, i, np.where(others, column, np.inf),
                        e.points)
            self._least(self.without, self.without_point, i,
                        np.where(others, e.goal, np.inf), e.points)
            within = others & (e.violations[:, i] <= RELAXATION * e.scale[:, i])
            self._least(self.relaxed, self.relaxed_point, i, np.where(within, e.goal, np.inf),
                        e.points)
        if self.constraints:
            pairs = holds.T.astype(np.float32) @ holds.astype(np.float32)
            self.together |= pairs > 0

    def merge(self, other: Tally) -> None:
        """Add what ``other`` saw (a chunk evaluated elsewhere)."""
        self.evaluations += other.evaluations
        if other.best_point is not None and (self.best_point is None or
                                             other.best_goal < self.best_goal):
            self.best_goal, self.best_point = other.best_goal, other.best_point
        if other.least_penalty < self.least_penalty:
            self.least_penalty = other.least_penalty
            self.least_penalty_point = other.least_penalty_point
        for i in range(self.constraints):
            for best, points, theirs, their_points in (
                    (self.alone, self.alone_point, other.alone, other.alone_point),
                    (self.relax, self.relax_point, other.relax, other.relax_point),
                    (self.without, self.without_point, other.without, other.without_point),
                    (self.relaxed, self.relaxed_point, other.relaxed, other.relaxed_point)):
                if theirs[i] < best[i]:
                    best[i], points[i] = theirs[i], their_points[i]
        self.together |= other.together

    @staticmethod
    def _least(best: np.ndarray, points: list, i: int, column: np.ndarray,
               candidates: np.ndarray) -> None:
        index = int(np.argmin(column))
        if column[index] < best[i]:
            best[i] = column[index]
            points[i] = candidates[index].copy()


@dataclass
class Solution:
    method: str
    tally: Tally
    seconds: float
    grid_points: int = 0
    generations: int = 0


def grid_points(problem: Problem) -> float:
    return math.prod(v.points for v in problem.variables)


def grid_axes(variables: list[Variable]) -> list[np.ndarray]:
    return [np.arange(math.ceil(v.low), math.floor(v.high) + 1, dtype=float) for v in variables]


def _grid_chunk(evaluate: Evaluator, first: int, count: int, axes: list[np.ndarray]) -> Tally:
    """The tally of grid configurations ``first`` to ``first + count - 1`` (C order)."""
    shape = tuple(len(a) for a in axes)
    indices = np.unravel_index(np.arange(first, first + count), shape)
    points = np.column_stack([axis[index] for axis, index in zip(axes, indices, strict=True)])
    tally = Tally(evaluate.constraints)
    with np.errstate(all="ignore"):
        tally.add(evaluate(points))
    return tally


def exhaustive(evaluate: Evaluator, variables: list[Variable],
               progress: Callable[[int, int], None] | None = None,
               mapper: Mapper = in_process) -> Solution:
    """Every configuration of the whole-number grid, in chunks (on a cluster with a Dask
    ``mapper``)."""
    start = time.perf_counter()
    axes = grid_axes(variables)
    total = math.prod(len(a) for a in axes)
    tally = Tally(evaluate.constraints)
    chunks = [(first, min(CHUNK, total - first)) for first in range(0, total, CHUNK)]
    for (first, count), part in zip(chunks, mapper(partial(_grid_chunk, axes=axes),
                                                   evaluate, chunks), strict=True):
        tally.merge(part)
        if progress is not None:
            progress(first + count, total)
    return Solution("exhaustive", tally, time.perf_counter() - start, grid_points=total)


def isres(evaluate: Evaluator, variables: list[Variable], time_limit_s: float, seed: int = 0,
          max_evaluations: int = 1_000_000) -> Solution:
    """Runarsson and Yao's ISRES with a time limit; then a pattern search from the best."""
    start = time.perf_counter()
    deadline = start + time_limit_s
    with quiet_arithmetic():
        tally, generations = _evolve(evaluate, variables, deadline, seed, max_evaluations)
    return Solution("isres", tally, time.perf_counter() - start, generations=generations)


def _evolve(evaluate: Evaluator, variables: list[Variable], deadline: float, seed: int,
            max_evaluations: int) -> tuple[Tally, int]:
    """The generations until ``deadline`` (a :func:`time.perf_counter` value), then the
    polish while time remains: the tally and the number of generations."""
    n = len(variables)
    low = np.array([v.low for v in variables])
    high = np.array([v.high for v in variables])
    integer = np.array([v.integer for v in variables])
    rng = np.random.default_rng(seed)
    population = 20 * (n + 1)  # NLopt's default
    parents = max(2, population // 7)
    tau, tau_prime = 1 / math.sqrt(2 * math.sqrt(n)), 1 / math.sqrt(2 * n)
    gamma, alpha, pf = 0.85, 0.2, 0.45
    tally = Tally(evaluate.constraints)
    memo = _Memo(evaluate, integer, tally)

    def assess(points: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        e = memo(points)
        return np.where(e.valid, e.goal, np.inf), e.penalty()

    x = low + rng.random((population, n)) * (high - low)
    sigma = np.tile((high - low) / math.sqrt(n), (population, 1))
    goal, penalty = assess(x)
    best_goal, stall, generations = math.inf, 0, 0
    while time.perf_counter() < deadline and tally.evaluations < max_evaluations:
        order = _stochastic_rank(goal, penalty, pf, rng, deadline)
        x, sigma, goal, penalty = x[order], sigma[order], goal[order], penalty[order]
        best = x[0].copy()
        children = np.empty_like(x)
        child_sigma = np.empty_like(sigma)
        # differential variation of the best parents
        children[:parents - 1] = x[:parents - 1] + gamma * (x[0] - x[1:parents])
        child_sigma[:parents - 1] = sigma[:parents - 1]
        mutated = np.arange(parents - 1, population) % parents
        count = len(mutated)
        s = sigma[mutated] * np.exp(tau_prime * rng.standard_normal((count, 1))
                                    + tau * rng.standard_normal((count, n)))
        child = x[mutated] + s * rng.standard_normal((count, n))
        for _ in range(10):  # resample what falls outside the bounds
            outside = (child < low) | (child > high)
            if not outside.any():
                break
            child = np.where(outside, x[mutated] + s * rng.standard_normal((count, n)), child)
        children[parents - 1:] = child
        child_sigma[parents - 1:] = sigma[mutated] + alpha * (s - sigma[mutated])
        children = np.clip(children, low, high)
        x, sigma = children, child_sigma
        x[0] = best  # keep the best ranked (elitism)
        goal, penalty = assess(x)
        generations += 1
        # stalled: no better feasible point, or only better by rounding's worth
        improved = tally.best_goal < best_goal - STALL_GAIN * max(1.0, abs(best_goal)) \
            if math.isfinite(best_goal) else math.isfinite(tally.best_goal)
        stall = 0 if improved else stall + 1
        best_goal = min(best_goal, tally.best_goal)
        if stall >= STALL:
            break
    if tally.best_point is not None:
        _polish(memo, tally.best_point, low, high, integer, feasible, deadline)
        # the explanation's "without it" and "relaxed" optima, sharpened the same way
        for i in range(evaluate.constraints):
            for goals, points, limit in ((tally.without, tally.without_point, math.inf),
                                         (tally.relaxed, tally.relaxed_point, RELAXATION)):
                if points[i] is not None:
                    point, goal = _polish(memo, points[i], low, high, integer,
                                          partial(_others_hold, i=i, limit=limit), deadline)
                    if goal < goals[i]:
                        goals[i], points[i] = goal, point
    return tally, generations


class _Memo:
    """The evaluator for ISRES: rounds whole-numbered variables, evaluates a configuration
    only the first time it is asked for (the tally sees each once) and answers repeats from
    memory.  Continuous configurations practically never repeat: only whole-numbered problems
    are remembered."""

    def __init__(self, evaluate: Evaluator, integer: np.ndarray, tally: Tally):
        self.evaluate, self.integer, self.tally = evaluate, integer, tally
        self.remember = bool(integer.any())
        self.rows: dict[bytes, np.ndarray] = {}  # goal, valid, lefts, rights

    def __call__(self, points: np.ndarray) -> Evaluation:
        points = np.where(self.integer, np.round(points), points)
        if not self.remember:
            e = self.evaluate(points)
            self.tally.add(e)
            return e
        keys = [p.tobytes() for p in points]
        fresh: dict[bytes, int] = {}
        for k, key in enumerate(keys):
            if key not in self.rows and key not in fresh:
                fresh[key] = k
        if fresh:
            e = self.evaluate(points[list(fresh.values())])
            self.tally.add(e)
            packed = np.column_stack([e.goal, e.valid, e.lefts, e.rights])
            self.rows.update(zip(fresh, packed, strict=True))
        packed = np.array([self.rows[key] for key in keys])
        m = self.evaluate.constraints
        return Evaluation.of(points, packed[:, 0], packed[:, 2:2 + m], packed[:, 2 + m:],
                             packed[:, 1].astype(bool), self.evaluate.signs)


def feasible(e: Evaluation) -> np.ndarray:
    return e.valid & np.all(e.violations == 0, axis=1)


def _others_hold(e: Evaluation, i: int, limit: float) -> np.ndarray:
    """Every constraint but ``i`` holds, and ``i`` misses by at most ``limit`` of its bound."""
    others = np.delete(e.violations, i, axis=1)
    return e.valid & np.all(others == 0, axis=1) & \
        (e.violations[:, i] <= limit * e.scale[:, i])


def _stochastic_rank(goal: np.ndarray, penalty: np.ndarray, pf: float,
                     rng: np.random.Generator, deadline: float = math.inf) -> np.ndarray:
    """Runarsson and Yao's stochastic bubble sort: compare by objective when both points are
    feasible or with probability ``pf``, else by penalty.  Its sweeps are quadratic in a big
    population: past ``deadline`` the order reached so far is the ranking."""
    goals, penalties = goal.tolist(), penalty.tolist()  # plain floats: a Python loop
    size = len(goals)
    order = list(range(size))
    # a sweep's draws at a time (a big population's size**2 at once took longer than the
    # deadline); the generator then skips the draws of the sweeps not run, so what follows
    # draws what it drew when all were taken up front
    sweeps_run = 0
    for sweep in range(size):
        if time.perf_counter() >= deadline:
            break
        draws = (rng.random(size) < pf).tolist()
        sweeps_run = sweep + 1
        swapped = False
        for j in range(size - 1):
            a, b = order[j], order[j + 1]
            if (penalties[a] == 0 and penalties[b] == 0) or draws[j]:
                worse = goals[a] > goals[b]
            else:
                worse = penalties[a] > penalties[b]
            if worse:
                order[j], order[j + 1] = b, a
                swapped = True
        if not swapped:
            break
    rng.bit_generator.advance(size * (size - sweeps_run))
    return np.array(order)


def _polish(evaluate: Callable[[np.ndarray], Evaluation], start: np.ndarray, low: np.ndarray,
            high: np.ndarray, integer: np.ndarray,
            accept: Callable[[Evaluation], np.ndarray],
            deadline: float = math.inf) -> tuple[np.ndarray, float]:
    """Compass search from ``start`` over the configurations ``accept`` allows: steps along
    each variable, halved when no step improves, down to a whole number or 1e-10 of the
    range, or until ``deadline``.  Returns the best point and its goal."""
    point = start.copy()
    e = evaluate(point[None, :])
    best_goal = float(e.goal[0]) if accept(e)[0] else math.inf
    step = (high - low) / 4
    floor = np.where(integer, 1.0, (high - low) * 1e-10)
    while np.any(step >= floor) and time.perf_counter() < deadline:
        trial = []
        for k in range(len(point)):
            if step[k] < floor[k]:
                continue
            for sign in (-1, 1):
                candidate = point.copy()
                candidate[k] = min(high[k], max(low[k], point[k] + sign * step[k]))
                trial.append(np.where(integer, np.round(candidate), candidate))
        e = evaluate(np.array(trial))
        goal = np.where(accept(e), e.goal, np.inf)
        index = int(np.argmin(goal))
        if goal[index] < best_goal:
            best_goal, point = float(goal[index]), trial[index]
        else:
            step = np.where(integer & (step > 1), np.maximum(1.0, np.floor(step / 2)), step / 2)
            step = np.where(integer & (step < 1), 0.0, step)
    return point, best_goal
