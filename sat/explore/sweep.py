"""Parameter sweeps: the program's totals over a grid of parameter values.

``--sweep NAME=LO..HI[:STEPS|*FACTOR]`` gives one axis: ``STEPS`` values evenly spaced from
``LO`` to ``HI`` inclusive, or ``LO``, ``LO*FACTOR``, … up to ``HI`` (geometric), or, with
neither, every whole number from ``LO`` to ``HI`` (at most :data:`MAX_AXIS` of them).  Several
axes give the full grid.  Every configuration is evaluated by the compiled evaluator
(:mod:`sat.explore.compiled`), in chunks, so a grid of millions streams in bounded memory; with
``--dask-scheduler`` the chunks run on a Dask cluster (:mod:`sat.explore.distribute`).

A configuration where the model is undefined is a row marked invalid with the reason, never
an error: a parameter outside its rule (a zero bandwidth, a negative size) or a block narrower
than a nest's stencil (the footprints assume blocks at least as wide as the stencil).
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass

import numpy as np

from sat.explore.compiled import CompiledModel
from sat.explore.distribute import Mapper, in_process
from sat.explore.expression import did_you_mean
from sat.model.tables import ModelResult
from sat.model.validate import stencil_blocks
from sat.parameter import check_value
from sat.parameters import find_parameter, spec_of
from sat.quoting import echoed

MAX_AXIS = 10_000  # values per axis
CHUNK = 65_536  # configurations evaluated at once
RESULTS = ("Total_Time_s", "Total_Traffic_GB", "Total_GFlops", "Total_ECM_Time_s", "Energy_J")


class SweepError(ValueError):
    """A sweep that cannot be run (one-line message)."""


@dataclass(frozen=True)
class Axis:
    """One swept parameter and its values."""

    name: str
    values: tuple[float, ...]


def _number(text: str, what: str, spec: str) -> float:
    shown = echoed(spec)
    try:
        value = float(text)
    except ValueError:
        raise SweepError(f"--sweep {shown}: {what} {text!r} is not a number") from None
    if not math.isfinite(value):
        raise SweepError(f"--sweep {shown}: {what} must be finite")
    return value


def parse_axis(spec: str) -> tuple[str, tuple[float, ...]]:
    """``NAME=LO..HI[:STEPS|*FACTOR]`` -> (name as written, values)."""
    shown = echoed(spec)
    name, equals, rest = spec.partition("=")
    low_text, dots, after = rest.partition("..")
    if not (equals and dots and name.strip()):
        raise SweepError(f"--sweep {spec!r}: expected NAME=LO..HI, NAME=LO..HI:STEPS or "
                         "NAME=LO..HI*FACTOR")
    high_text, kind, step_text = (re.split(r"([:*])", after, maxsplit=1) + ["", ""])[:3]
    low, high = _number(low_text, "LO", spec), _number(high_text, "HI", spec)
    if not math.isfinite(high - low):
        raise SweepError(f"--sweep {shown}: the range {low:g}..{high:g} is wider than a double "
                         "can hold")
    if high < low:
        raise SweepError(f"--sweep {shown}: the range is reversed (HI {high:g} < LO {low:g})")
    if kind == ":":
        steps = _number(step_text, "STEPS", spec)
        if not steps.is_integer() or steps < 1:
            raise SweepError(f"--sweep {shown}: STEPS must be a whole number of at least 1")
        if steps > MAX_AXIS:
            raise SweepError(f"--sweep {shown}: at most {MAX_AXIS:,} values per axis")
        count = int(steps)
        values = [low] if count == 1 else [low + (high - low) * k / (count - 1)
                                           for k in range(count)]
    elif kind == "*":
        factor = _number(step_text, "FACTOR", spec)
        if factor <= 1 or low <= 0:
            raise SweepError(f"--sweep {shown}: a geometric range needs LO > 0 and FACTOR > 1")
        values = [low]
        while values[-1] * factor <= high * (1 + 1e-12):
            values.append(values[-1] * factor)
            if len(values) > MAX_AXIS:
                raise SweepError(f"--sweep {shown}: at most {MAX_AXIS:,} values per axis")
    else:
        if not (low.is_integer() and high.is_integer()):
            raise SweepError(f"--sweep {shown}: give :STEPS or *FACTOR for a range that is not "
                             "of whole numbers")
        if high - low + 1 > MAX_AXIS:
            raise SweepError(f"--sweep {shown}: at most {MAX_AXIS:,} values per axis; give "
                             ":STEPS or *FACTOR")
        values = [float(v) for v in range(int(low), int(high) + 1)]
    return name.strip(), tuple(values)


def axes_for(result: ModelResult, specs: list[str]) -> list[Axis]:
    """The axes of ``--sweep`` options, names checked against the model's parameters."""
    from sat.parameter import ParameterSet

    parameters = ParameterSet({p.name: p for p in result.parameters})
    axes: list[Axis] = []
    for spec in specs:
        written, values = parse_axis(spec)
        shown = echoed(spec)
        parameter = find_parameter(parameters, written)
        if parameter is None:
            raise SweepError(f"--sweep {shown}: no parameter {written!r}"
                             + did_you_mean(written, [p.name for p in result.parameters]))
        if any(axis.name == parameter.name for axis in axes):
            raise SweepError(f"--sweep {shown}: {parameter.name} is swept twice")
        axes.append(Axis(parameter.name, values))
    return axes


@dataclass
class Sweep:
    """A sweep ready to run: the axes, the results evaluated and the validity checks."""

    axes: list[Axis]
    results: list[str]
    model: CompiledModel
    # (reason, stencil span) per block-narrower-than-stencil check; the block quantities are
    # the model's outputs after the results
    checks: list[tuple[str, int]]
    # every input parameter's value: the configuration the axes vary (derived defaults follow
    # them unless an axis sets them)
    base: dict[str, float]

    @property
    def points(self) -> int:
        return math.prod(len(axis.values) for axis in self.axes)


def prepare(result: ModelResult, axes: list[Axis]) -> Sweep:
    """Compile the program totals and the checks that make a configuration invalid."""
    results = [name for name in RESULTS if name in result.totals]
    quantities = [result.totals[name] for name in results]
    checks: list[tuple[str, int]] = []
    for row, axis, block, span in stencil_blocks(result):
        checks.append((f"{row.get('procedure')}:{row.get('line')}: block along "
                       f"{axis.upper()} narrower than the stencil of {row.get('array')} "
                       f"({span})", span))
        quantities.append(block)
    return Sweep(axes, results, CompiledModel(quantities, result.defaults()), checks,
                 result.inputs())


def _rule_problems(axes: list[Axis], columns: dict[str, np.ndarray]) -> list[np.ndarray]:
    """Per axis, the reason (or "") each configuration's value breaks the parameter's rule."""
    reasons = []
    for axis in axes:
        spec, values = spec_of(axis.name), columns[axis.name]
        reason = np.full(values.shape, "", dtype=object)
        for value in np.unique(values) if spec is not None else ():
            problem = check_value(spec, float(value))
            if problem:
                reason[values == value] = f"{axis.name} = {value:g} {problem}"
        reasons.append(reason)
    return reasons


def run(sweep: Sweep, progress: Callable[[int, int], None] | None = None,
        mapper: Mapper = in_process) -> Iterator[dict[str, object]]:
    """Every configuration of the grid as a row: swept values, results, ``valid``,
    ``reason``; evaluated in chunks of :data:`CHUNK` (on a cluster with a Dask ``mapper``)."""
    total = sweep.points

    def chunks() -> Iterator[tuple[int, int]]:  # lazily: a grid may have 10^16 points
        return ((first, min(CHUNK, total - first)) for first in range(0, total, CHUNK))

    for (first, count), rows in zip(chunks(), mapper(_rows, sweep, chunks()), strict=True):
        yield from rows
        if progress is not None:
            progress(first + count, total)


def _rows(sweep: Sweep, first: int, count: int) -> list[dict[str, object]]:
    """The rows of configurations ``first`` to ``first + count - 1`` of the grid (the order of
    ``itertools.product`` over the axes)."""
    names = [axis.name for axis in sweep.axes]
    indices = np.unravel_index(np.arange(first, first + count),
                               tuple(len(axis.values) for axis in sweep.axes))
    columns = {axis.name: np.asarray(axis.values, dtype=float)[index]
               for axis, index in zip(sweep.axes, indices, strict=True)}
    evaluated = sweep.model({**sweep.base, **columns})
    outputs = evaluated[:len(sweep.results)]
    blocks = evaluated[len(sweep.results):]
    reasons = _rule_problems(sweep.axes, columns)
    rows = []
    for index in range(count):
        reason = next((r[index] for r in reasons if r[index]), "")
        if not reason:
            reason = next((text for (text, span), block in zip(sweep.checks, blocks,
                                                               strict=True)
                           if 0 < block[index] < span), "")
        row: dict[str, object] = {name: _plain(columns[name][index]) for name in names}
        values = [float(column[index]) for column in outputs]
        if not reason:  # a result beyond a double (or inf - inf) is no result
            reason = next((f"{name} is {value:g}: beyond the range of a double" for name, value
                           in zip(sweep.results, values, strict=True)
                           if not math.isfinite(value)), "")
        for name, value in zip(sweep.results, values, strict=True):
            row[name] = None if reason else value
        row["valid"] = not reason
        row["reason"] = reason
        rows.append(row)
    return rows


def _plain(value: float) -> float | int:
    value = float(value)
    return int(value) if value.is_integer() and abs(value) < 2**53 else value
