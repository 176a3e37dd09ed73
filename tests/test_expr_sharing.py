"""Expression leaves are built once per distinct value (hash-consing), and sharing never merges
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
