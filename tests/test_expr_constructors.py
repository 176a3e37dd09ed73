"""The expression constructors' fast paths build the very trees the general path builds."""

from __future__ import annotations

from sat.model import expr as E


def shape(node: E.Expr) -> tuple:
    """The tree as nested tuples, a reference as the key of its quantity (a Ref compares by
    identity)."""
    if isinstance(node, E.Ref):
        return ("Ref", node.quantity.key)
    if isinstance(node, (E.Num, E.Param)):
        return (type(node).__name__, node.value if isinstance(node, E.Num) else node.name,
                type(node.value).__name__ if isinstance(node, E.Num) else "")
    return (type(node).__name__, getattr(node, "name", getattr(node, "op", "")),
            tuple(shape(child) for child in E.children(node)))


def test_numbers_and_quantities_fold_as_their_expressions_do():
    q = E.Quantity(("t", "q"), E.Param("A"))
    p = E.Param("B")
    # 2 + 3.5 + B + q: the literals fold to 5.5 at the end, the quantity is a reference
    assert shape(E.add(2, 3.5, p, q)) == shape(E.Add((p, E.Ref(q), E.Num(5.5))))
    assert shape(E.add(2, 3.5, p, q)) == shape(E.add(E.Num(2), E.Num(3.5), p, E.Ref(q)))
    # 2 * 3.5 * B * q = 7 * B * q, the literal first
    assert shape(E.mul(2, 3.5, p, q)) == shape(E.Mul((E.Num(7.0), p, E.Ref(q))))
    assert shape(E.mul(0, p)) == shape(E.Num(0)) and E.mul(True, p) is p
    assert shape(E.add(True, 1)) == shape(E.Num(2.0))  # True counts 1.0
    assert shape(E.add(q)) == ("Ref", ("t", "q"))


def test_functions_and_comparisons_take_numbers_and_quantities():
    q = E.Quantity(("t", "q"), E.Num(4))
    assert shape(E.if_(q, 1, 2.5)) == shape(E.Func("IF", (E.Ref(q), E.Num(1), E.Num(2.5))))
    assert shape(E.minimum(q, 3)) == shape(E.Func("MIN", (E.Ref(q), E.Num(3))))
    assert shape(E.maximum(q, 3)) == shape(E.func("MAX", q, 3))
    assert shape(E.compare("<", q, 5)) == shape(E.Compare("<", E.Ref(q), E.Num(5)))
    assert shape(E.add(q, 1)) != shape(E.add(q, 2))  # the helper tells trees apart
    # min(4, 3) = 3; IF(4 < 5, 1, 2.5) = 1
    assert E.evaluate(E.minimum(q, 3), {}) == 3.0
    assert E.evaluate(E.if_(E.compare("<", q, 5), 1, 2.5), {}) == 1.0
