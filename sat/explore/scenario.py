"""Scenario files (``--scenario FILE.yaml``): an optimisation problem over the model.

::

    objective: minimize Total_Time_s      # minimize | maximize, then an expression
    variables:                            # decision variables: NAME: LO..HI [integer];
                                          # default: the ranges the model declares (Aspen's
                                          # param x = 32 in 16 .. 64), whole-numbered when
                                          # the bounds and the value are
      BlockX: 8..512 integer
    constraints:                          # LEFT <= RIGHT or LEFT >= RIGHT
      - Footprint_GiB <= MemoryGiB
    set:                                  # fixed values, as --set
      hi_1: 512
    solver: auto                          # optional: auto | exhaustive | isres
    time_limit_s: 5                       # optional: the evolution strategy's time limit
    seed: 0                               # optional: its random seed (same seed, same answer)

Names are parameters (``BlockX``, ``GBsPerCore``, ``hi_1`` or ``hi(1)``) or the model's results
(``Total_Time_s``, ``Energy_J``, ``Footprint_GiB``, …: the workbook's defined names).  The file
is read in two steps: :func:`read_scenario` checks its form before the (possibly long) analysis
and gives the ``set`` values to the model; :func:`bind` resolves the names against the built
model.  Every error is one line, ``file:line: what was expected``.
"""

from __future__ import annotations

import math
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path

from sat.explore.expression import (
    ExpressionError,
    did_you_mean,
    parse_expression,
    split_comparison,
)
from sat.machine.spec import parse_number
from sat.model import expr as E
from sat.model.tables import ModelResult
from sat.parameter import check_value
from sat.parameters import ParameterError, find_parameter, spec_of
from sat.parameters.registry import BUILD_SETTINGS, parse_set
from sat.quoting import quoted
from sat.safeyaml import Located, LocatedList, read_yaml

SOLVERS = ("auto", "exhaustive", "isres")
DEFAULT_TIME_LIMIT_S = 5.0  # Aspen's choice: a few seconds of NLopt's ISRES
_KEYS = ("objective", "variables", "constraints", "set", "solver", "time_limit_s", "seed",
         "description")
_RANGE = re.compile(r"\s*(\S+?)\s*\.\.\s*(\S+?)\s*(integer)?\s*$", re.IGNORECASE)
_SENSES = {"minimize": "minimize", "minimise": "minimize", "maximize": "maximize",
           "maximise": "maximize"}


class ScenarioError(ValueError):
    """A scenario that cannot be used: one line, ``file:line: …``."""


@dataclass
class VariableSpec:
    """``NAME: LO..HI [integer]`` as written."""

    written: str
    low: float
    high: float
    integer: bool
    line: int


@dataclass
class ScenarioFile:
    """A scenario file whose form is right; names are resolved by :func:`bind`."""

    display: str
    sense: str  # "minimize" or "maximize"
    objective: str  # the expression's text
    objective_line: int
    variables: list[VariableSpec]
    constraints: list[tuple[str, int]]  # (text, line)
    sets: list[str]  # NAME=VALUE, as --set
    solver: str = "auto"
    time_limit_s: float = DEFAULT_TIME_LIMIT_S
    seed: int = 0
    description: str = ""
    lines: dict[str, int] = field(default_factory=dict)


def _fail(display: str, line: int, message: str) -> ScenarioError:
    return ScenarioError(f"{display}:{line}: {message}")


def read_scenario(path: str | Path) -> ScenarioFile:
    """The scenario in ``path``, its form checked (names are checked by :func:`bind`)."""
    path = Path(path)
    display = str(path)
    if not path.is_file():
        raise ScenarioError(f"{display}: no such scenario file")
    data = read_yaml(path, display, ScenarioError, "a scenario file (objective, variables, "
                     "constraints)")
    if not isinstance(data, Located):
        raise _fail(display, getattr(data, "line", 1), "expected a scenario: a mapping with "
                    "objective, variables and constraints")
    for key in data:
        if key not in _KEYS:
            raise _fail(display, data.lines[key], f"unknown field {key!r}"
                        + did_you_mean(str(key), list(_KEYS))
                        + f"; a scenario has {', '.join(_KEYS)}")
    if "objective" not in data:
        raise _fail(display, data.line, "objective: missing")
    line = data.lines["objective"]
    objective = data["objective"]
    words = objective.split(None, 1) if isinstance(objective, str) else []
    if len(words) != 2 or words[0].lower() not in _SENSES:
        raise _fail(display, line, "objective: expected 'minimize EXPRESSION' or 'maximize "
                    f"EXPRESSION', got {objective!r}")
    # without variables, the ranges the model declares (an Aspen model's) are the variables
    variables = _variables(data["variables"], data.lines["variables"], display) \
        if "variables" in data else []
    constraints = []
    raw = data.get("constraints")
    if raw is not None:
        if not isinstance(raw, LocatedList):
            raise _fail(display, data.lines["constraints"], "constraints: expected a list, one "
                        "'LEFT <= RIGHT' per item")
        for item, item_line in zip(raw, raw.lines, strict=True):
            if not isinstance(item, str):
                raise _fail(display, item_line, f"constraint {item!r}: expected LEFT <= RIGHT "
                            "or LEFT >= RIGHT")
            constraints.append((item.strip(), item_line))
    sets = []
    raw = data.get("set")
    if raw is not None:
        if not isinstance(raw, Located):
            raise _fail(display, data.lines["set"], "set: expected NAME: VALUE lines")
        for name, value in raw.items():
            try:
                parse_set(f"{name}=0")
            except ParameterError:
                raise _fail(display, raw.lines[name], f"set: {quoted(name)}: expected a "
                            "parameter name or a code symbol such as hi(1)") from None
            # checked here, where the line is known: --set would only know the text
            number = value if isinstance(value, (int, float)) else \
                parse_number(value) if isinstance(value, str) else None
            flag = isinstance(value, str) and value.strip().lower() in ("true", "false",
                                                                          "yes", "no")
            if isinstance(value, bool) or not (flag or (number is not None and
                                                        abs(number) <= sys.float_info.max
                                                        and math.isfinite(number))):
                raise _fail(display, raw.lines[name], f"set: {name}: expected a finite "
                            f"number, got {quoted(value)}")
            sets.append(f"{name}={value}")
    solver = str(data.get("solver", "auto")).strip().lower()
    if solver not in SOLVERS:
        raise _fail(display, data.lines.get("solver", 1), f"solver: expected one of "
                    f"{', '.join(SOLVERS)}, got {solver!r}")
    time_limit = data.get("time_limit_s", DEFAULT_TIME_LIMIT_S)
    if isinstance(time_limit, bool) or not isinstance(time_limit, (int, float)) or \
            not 0 < time_limit <= 3600:
        raise _fail(display, data.lines.get("time_limit_s", 1), "time_limit_s: expected "
                    f"seconds, more than 0 and at most 3600, got {time_limit!r}")
    seed = data.get("seed", 0)
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise _fail(display, data.lines.get("seed", 1), f"seed: expected a whole number, 0 or "
                    f"more, got {seed!r}")
    return ScenarioFile(display, _SENSES[words[0].lower()], words[1].strip(), line, variables,
                        constraints, sets, solver, float(time_limit), seed,
                        str(data.get("description", "")), dict(data.lines))


def _variables(raw: object, line: int, display: str) -> list[VariableSpec]:
    if not isinstance(raw, Located) or not raw:
        raise _fail(display, line, "variables: expected NAME: LO..HI [integer] lines")
    variables = []
    for name, text in raw.items():
        where = raw.lines[name]
        match = _RANGE.match(str(text)) if isinstance(text, str) else None
        if match is None:
            raise _fail(display, where, f"variable {name}: expected LO..HI or LO..HI integer, "
                        f"got {text!r}")
        bounds = []
        for bound, which in ((match.group(1), "LO"), (match.group(2), "HI")):
            try:
                value = float(bound)
            except ValueError:
                value = math.nan
            if not math.isfinite(value):
                raise _fail(display, where, f"variable {name}: {which} {bound!r} is not a "
                            "finite number")
            bounds.append(value)
        low, high = bounds
        if not math.isfinite(high - low):
            raise _fail(display, where, f"variable {name}: the range {low:g}..{high:g} is "
                        "wider than a double can hold")
        if high < low:
            raise _fail(display, where, f"variable {name}: the range is reversed (HI {high:g} "
                        f"< LO {low:g})")
        integer = bool(match.group(3))
        if integer and math.ceil(low) > math.floor(high):
            raise _fail(display, where, f"variable {name}: no whole number from {low:g} to "
                        f"{high:g}")
        if not integer and high == low:
            raise _fail(display, where, f"variable {name}: the range {low:g}..{high:g} is "
                        "empty: give the value under set:")
        variables.append(VariableSpec(str(name), low, high, integer, where))
    return variables


# ------------------------------------------------------------------ names -> model


@dataclass
class Variable:
    """A decision variable: a parameter and its range."""

    name: str  # the parameter's name
    low: float
    high: float
    integer: bool

    @property
    def points(self) -> float:
        """Values on an exhaustive grid (infinite for a continuous variable)."""
        return math.floor(self.high) - math.ceil(self.low) + 1 if self.integer else math.inf


@dataclass
class Constraint:
    text: str
    left: E.Quantity
    operator: str  # "<=" or ">="
    right: E.Quantity
    line: int


@dataclass
class Problem:
    """A scenario bound to a model: quantities the compiled evaluator computes."""

    scenario: ScenarioFile
    objective: E.Quantity
    variables: list[Variable]
    constraints: list[Constraint]

    @property
    def maximize(self) -> bool:
        return self.scenario.sense == "maximize"

    @property
    def objective_text(self) -> str:
        return f"{self.scenario.sense} {self.scenario.objective}"


def bind(scenario: ScenarioFile, result: ModelResult) -> Problem:
    """Resolve the scenario's names against the model's parameters and results."""
    from sat.parameter import ParameterSet

    parameters = ParameterSet({p.name: p for p in result.parameters})
    totals = {name.lower(): name for name in result.totals}
    known = [p.name for p in result.parameters] + list(result.totals)
    display = scenario.display

    def unit(expr: E.Expr) -> str:
        if isinstance(expr, E.Ref):
            return expr.quantity.unit
        return parameters[expr.name].unit if isinstance(expr, E.Param) else ""

    def resolve(name: str, column: int) -> E.Expr:
        parameter = find_parameter(parameters, name)
        if parameter is not None:
            return E.Param(parameter.name)
        total = totals.get(name.lower())
        if total is not None:
            return E.Ref(result.totals[total])
        raise ExpressionError(f"no parameter or result {name!r}" + did_you_mean(name, known),
                              column)

    def expression(text: str, line: int, what: str, offset: int = 0) -> E.Expr:
        try:
            return parse_expression(text, resolve)
        except ExpressionError as error:
            raise _fail(display, line, f"{what} {quoted(text.strip(), 80)}: column "
                        f"{error.column + offset}: {error}") from None

    variables = []
    specs = scenario.variables or [
        VariableSpec(name, low, high, float(low).is_integer() and float(high).is_integer()
                     and float(parameters[name].value).is_integer(), scenario.lines.get(
                         "objective", 1)) for name, (low, high) in result.ranges.items()
        if name in parameters]
    if not specs:
        raise _fail(display, 1, "variables: missing (give NAME: LO..HI lines; only a model "
                    "that declares ranges, such as an Aspen model's 'param x = 1 in 0 .. 2', "
                    "can do without)")
    for spec in specs:
        parameter = find_parameter(parameters, spec.written)
        if parameter is None:
            hint = " (it is a result: results follow from the parameters)" \
                if spec.written.lower() in totals else did_you_mean(spec.written, known)
            raise _fail(display, spec.line, f"variable {spec.written}: no such parameter"
                        + hint)
        if parameter.name in BUILD_SETTINGS:
            raise _fail(display, spec.line, f"variable {parameter.name}: a build setting, not "
                        "a parameter of the model")
        if any(v.name == parameter.name for v in variables):
            raise _fail(display, spec.line, f"variable {parameter.name}: given twice")
        integer = spec.integer or parameter.kind in ("integer", "boolean")
        low, high = (math.ceil(spec.low), math.floor(spec.high)) if integer else \
            (spec.low, spec.high)
        if low > high:
            raise _fail(display, spec.line, f"variable {parameter.name} takes whole numbers: "
                        f"none from {spec.low:g} to {spec.high:g}")
        rule = spec_of(parameter.name)
        for bound in (low, high):
            problem = check_value(rule, bound) if rule is not None else None
            if problem:
                raise _fail(display, spec.line, f"variable {parameter.name}: {bound:g} "
                            f"{problem}")
        variables.append(Variable(parameter.name, float(low), float(high), integer))

    objective_expr = expression(scenario.objective, scenario.objective_line, "objective")
    objective = E.Quantity(("scenario", "objective"), objective_expr,
                           unit(objective_expr), f"{scenario.sense} {scenario.objective}")
    names = {v.name for v in variables}
    if not names & _parameters_of(objective):
        raise _fail(display, scenario.objective_line, f"objective {scenario.objective!r} does "
                    f"not depend on any variable ({', '.join(sorted(names))}): nothing to "
                    "optimise")
    constraints = []
    for index, (text, line) in enumerate(scenario.constraints):
        try:
            left_text, operator, right_text, column = split_comparison(text)
        except ExpressionError as error:
            raise _fail(display, line, f"constraint {quoted(text, 80)}: column {error.column}: "
                        f"{error}") from None
        left = expression(left_text, line, "constraint")
        right = expression(right_text, line, "constraint", column - 1)
        constraints.append(Constraint(
            " ".join(text.split()),
            E.Quantity(("scenario", index, "left"), left, unit(left), left_text.strip()),
            operator,
            E.Quantity(("scenario", index, "right"), right, unit(right), right_text.strip()),
            line))
    return Problem(scenario, objective, variables, constraints)


def _parameters_of(quantity: E.Quantity) -> set[str]:
    """The parameters ``quantity`` depends on, through every quantity it refers to."""
    seen: set[int] = set()
    found: set[str] = set()
    stack = [quantity.expr]
    while stack:
        node = stack.pop()
        if isinstance(node, E.Param):
            found.add(node.name)
        elif isinstance(node, E.Ref):
            if id(node.quantity) not in seen:
                seen.add(id(node.quantity))
                stack.append(node.quantity.expr)
        else:
            stack.extend(E.children(node))
    return found
