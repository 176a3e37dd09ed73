"""Expression nodes are built once per distinct value (hash-consing), and sharing never merges
nodes that print or evaluate differently, nor changes a node already built."""

from __future__ import annotations

import copy
import math
import pickle

from sat.model import expr as E
from sat.report.formula import ExcelPrinter


def formula(node: E.Expr) -> str:
    """The node as a workbook formula, every reference printed inline."""
    return ExcelPrinter(cell_of=lambda quantity: None).doprint(node)


def test_equal_leaves_are_one_node():
    assert E.Num(2.5) is E.Num(2.5)
    assert E.Param("CacheKB") is E.Param("CacheKB")
    q = E.Quantity(("loop", 0, "time_s"), E.Param("A"))
    assert E.Ref(q) is E.Ref(q) is E.as_expr(q)


def test_leaves_that_differ_stay_apart():
    # 1 and 1.0 compare equal but are different Python numbers: distinct nodes, each its type
    one, one_float = E.Num(1), E.Num(1.0)
    assert one is not one_float
    assert type(one.value) is int and type(one_float.value) is float
    assert E.Num(True) is not E.Num(1) and type(E.Num(True).value) is bool
    # 0.0 and -0.0 compare equal: distinct nodes, the sign kept
    assert E.Num(0.0) is not E.Num(-0.0)
    assert math.copysign(1.0, E.Num(-0.0).value) == -1.0
    assert math.copysign(1.0, E.Num(0.0).value) == 1.0
    # quantities with the same key and expression in different places are different cells
    a = E.Quantity(("loop", 0, "flops"), E.Param("N"))
    b = E.Quantity(("loop", 0, "flops"), E.Param("N"))
    assert E.Ref(a) is not E.Ref(b)
    assert E.Ref(a).quantity is a and E.Ref(b).quantity is b
    # parameters of the same name are one parameter (one defined name in the workbook)
    assert E.Param("N") is E.Param("N") and E.Param("N") is not E.Param("n")


def test_equal_operators_over_shared_operands_are_one_node():
    n, m = E.Param("N"), E.Param("M")
    q = E.Quantity(("t", "q"), n * 2)
    assert E.add(n, m, 1) is E.add(n, m, 1)
    assert E.mul(q, 8, n) is E.mul(q, 8, n)
    assert E.div(n, m) is E.div(n, m)
    assert E.maximum(n, q) is E.maximum(n, q) is E.func("MAX", n, q)
    assert E.if_(E.compare("<", n, m), n, m) is E.if_(E.compare("<", n, m), n, m)
    assert E.ceiling(n, 8) is E.ceiling(n, 8)


def test_operators_that_differ_stay_apart():
    n, m = E.Param("N"), E.Param("M")
    # same operands, other operator or other order: other formulas
    assert E.add(n, m) is not E.add(m, n)
    assert formula(E.add(n, m)) == "N+M" and formula(E.add(m, n)) == "M+N"
    assert E.maximum(n, m) is not E.minimum(n, m)
    assert E.compare("<", n, m) is not E.compare("<=", n, m)
    assert E.div(n, m) is not E.div(m, n)
    # a literal 1 and a literal 1.0 make different products' literal factors
    assert E.mul(E.Num(3), n) is not E.mul(E.Num(3.5), n)
    # the same parameter over two different quantities of equal expressions: two nodes
    a = E.Quantity(("a",), n * 2)
    b = E.Quantity(("b",), n * 2)
    assert E.add(a, 1) is not E.add(b, 1)
    assert E.add(a, 1).terms[0].quantity is a and E.add(b, 1).terms[0].quantity is b


def test_shared_nodes_keep_their_values():
    n = E.Param("N")
    shared = E.mul(n, 4)
    before = (shared.factors, formula(shared))
    # building more on the shared node, and the same node again, leaves it as it was
    E.add(shared, 1), E.mul(shared, shared), E.Mul(shared.factors), E.Num(4.0), E.Num(4)
    assert shared.factors == before[0] and formula(shared) == before[1] == "4*N"
    assert shared.factors[0] is E.Num(4.0) and type(shared.factors[0].value) is float
    # N = 3: 4 * 3 = 12, and 12 + 1 = 13
    assert E.evaluate(shared, {"N": 3}) == 12.0
    assert E.evaluate(E.add(shared, 1), {"N": 3}) == 13.0
    # a literal built again with a value of another type does not retype the shared one
    assert type(E.Num(4).value) is int and type(E.Num(4.0).value) is float


def test_copies_are_new_nodes_with_the_same_fields():
    n = E.Param("N")
    q = E.Quantity(("t", "q"), E.add(n, 1.5))
    tree = E.mul(q, E.div(n, 3))
    for copied in (pickle.loads(pickle.dumps(tree)), copy.deepcopy(tree)):
        # N = 2: (2 + 1.5) * (2 / 3) = 7/3
        assert math.isclose(E.evaluate(copied, {"N": 2}), 3.5 * 2 / 3)
        assert copied.factors[0].quantity.key == ("t", "q")
    # unpickling built fresh leaves and never changed the shared ones
    assert E.Param("N").name == "N" and E.Num(1.5).value == 1.5


def test_the_tables_bound_what_they_keep():
    # past the bound the table starts again: equal nodes built on either side of the cut are
    # still equal and evaluate alike, only no longer the same object
    kept = E._OPERATORS_KEPT
    try:
        E._OPERATORS_KEPT = 4
        n = E.Param("N")
        first = E.add(n, 7)
        for k in range(8):
            E.add(n, k + 100)
        again = E.add(n, 7)
        assert again == first and formula(again) == formula(first) == "N+7"
        assert E.evaluate(again, {"N": 1}) == E.evaluate(first, {"N": 1}) == 8.0
        assert len(E._OPERATORS) <= 4
    finally:
        E._OPERATORS_KEPT = kept
