"""The compiled NumPy evaluator agrees with the tree evaluator on every bundled example."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from sat.explore.compiled import CHUNK, CompiledModel
from sat.frontend import read_sources
from sat.machine import load_machine
from sat.model import expr as E
from sat.model.build import build_model
from sat.parameters import build_parameters

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = sorted(p for p in (ROOT / "examples").rglob("*")
                  if p.suffix.lower() in (".f90", ".f", ".c"))
CONFIGURATIONS = 40


def table_quantities(result) -> list[E.Quantity]:
    found = {id(v): v for table in result.tables.values()
             for row in [*table.rows, table.totals or {}] for v in row.values()
             if isinstance(v, E.Quantity)}
    found.update({id(q): q for q in result.totals.values()})
    return list(found.values())


def random_configurations(result, names: list[str], rng: np.random.Generator
                          ) -> dict[str, np.ndarray]:
    """Each parameter between half and twice its value (integers stay integers, flags 0/1)."""
    values = {}
    for parameter in result.parameters:
        if parameter.name not in names:
            continue
        base = float(parameter.value)
        if parameter.kind == "boolean":
            values[parameter.name] = rng.integers(0, 2, CONFIGURATIONS).astype(float)
        elif parameter.kind == "integer" or base.is_integer():
            values[parameter.name] = np.maximum(
                0, np.round(base * rng.uniform(0.5, 2.0, CONFIGURATIONS)))
        else:
            values[parameter.name] = base * rng.uniform(0.5, 2.0, CONFIGURATIONS)
    return values


@pytest.mark.parametrize("source", EXAMPLES, ids=lambda p: p.name)
@pytest.mark.parametrize("machine", ["exascale", "xeon-e5-2680"])
def test_compiled_agrees_with_the_tree_evaluator(source: Path, machine: str) -> None:
    result = build_model(read_sources([str(source)]), build_parameters(load_machine(machine)))
    quantities = table_quantities(result)
    compiled = CompiledModel(quantities)
    values = random_configurations(result, compiled.parameters,
                                   np.random.default_rng(len(source.name)))
    arrays = compiled(values)
    for k in range(CONFIGURATIONS):
        env = result.env({name: float(v[k]) for name, v in values.items()})
        for quantity, array in zip(quantities, arrays, strict=True):
            expected, got = quantity.value(env), float(array[k])
            if got != pytest.approx(expected, rel=1e-12, abs=1e-300) and _tie(quantity, env):
                continue
            assert got == pytest.approx(expected, rel=1e-12, abs=1e-300), \
                (source.name, quantity.key, k)


def _tie(quantity: E.Quantity, env) -> bool:
    """Whether the quantity's own expression compares two sides equal to within rounding: the
    two evaluators add in different orders (exactly rounded sums against NumPy's), so a
    choice between two bounds that are equal in exact arithmetic (T_OL and T_nOL of a
    triad) may go either way, one unit in the last place apart. Only such a tie excuses a
    difference."""
    stack: list = [quantity.expr]
    while stack:
        node = stack.pop()
        if isinstance(node, E.Compare):
            left, right = node.left.evaluate(env), node.right.evaluate(env)
            # whole numbers (a count, a switch against 0) compare exactly in both
            if left == pytest.approx(right, rel=1e-12) and not float(left).is_integer():
                return True
        stack.extend(E.children(node))  # a Ref's quantity is not looked into
    return False


def test_guarded_division_ceiling_and_conditions() -> None:
    x, y = E.Param("x"), E.Param("y")
    quantities = [E.Quantity(("q", 1), E.div(x, y)),
                  E.Quantity(("q", 2), E.ceiling(x, y)),
                  E.Quantity(("q", 3), E.if_(E.compare("<", x, y), x, y)),
                  E.Quantity(("q", 4), E.func("AND", x, E.func("NOT", y)))]
    compiled = CompiledModel(quantities)
    xs, ys = np.array([7.0, 7.0, 3.0]), np.array([2.0, 0.0, 4.0])
    div, ceiling, smaller, both = compiled({"x": xs, "y": ys})
    # 7/2, 7/0 guarded to 0, 3/4; CEILING(7, 2) = 8, step 0 gives 0, CEILING(3, 4) = 4
    assert div.tolist() == [3.5, 0.0, 0.75]
    assert ceiling.tolist() == [8.0, 0.0, 4.0]
    assert smaller.tolist() == [2.0, 0.0, 3.0]
    assert both.tolist() == [0.0, 1.0, 0.0]


def test_many_configurations_are_evaluated_in_chunks() -> None:
    x = E.Param("x")
    twice = E.Quantity(("twice",), E.mul(2, x))
    constant = E.Quantity(("constant",), E.add(E.Param("y"), 1))
    values = np.arange(CHUNK * 2 + 5, dtype=float)
    doubled, plus_one = CompiledModel([twice, constant])({"x": values, "y": 3.0})
    assert doubled.tolist() == (2 * values).tolist()
    assert plus_one.shape == values.shape and set(plus_one.tolist()) == {4.0}
