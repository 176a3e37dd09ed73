"""Code symbols to problem parameters: names, values, defaults, derived symbols."""

from __future__ import annotations

import pytest

from sat.model.context import ExpressionError, ModelContext
from sat.model.expr import Env, Param
from sat.parameter import ParameterSet, symbol_to_name


@pytest.mark.parametrize("symbol, name", [
    ("hi(1)", "hi_1"), ("HI( 3 )", "hi_3"), ("ng", "ng"), ("a(1,2)", "a_1_2"),
    ("fine_lo(2)", "fine_lo_2"),
])
def test_symbol_names(symbol, name):
    assert symbol_to_name(symbol) == name


def evaluate(ctx: ModelContext, text: str, role="other") -> float:
    return ctx.expr(text, role).evaluate(Env(ctx.params.values()))


def test_given_values_symsubs_and_arithmetic():
    params = ParameterSet(symbol_values={"hi(1)": (64, "params.xml"), "ng": (4, "params.xml")},
                          symsubs={"dhi(1)": "hi(1) + ng", "ncons": "nspecies + 5"})
    ctx = ModelContext(params)
    # dhi(1) - lo(1) + 1 = (64 + 4) - 1 + 1 = 68 (lo(1) defaults to 1)
    assert evaluate(ctx, "dhi(1) - lo(1) + 1", "upper") == 68
    # ncons * 2**2 = (nspecies + 5) * 4 with nspecies defaulted to 1: 24
    assert evaluate(ctx, "ncons*2**2") == 24
    # max/min stay functions, not symbols: max(64, 3) - min(4, 9) = 60
    assert evaluate(ctx, "max(hi(1), 3) - min(ng, 9)") == 60
    assert params["hi_1"].source == "params.xml" and not params["hi_1"].defaulted
    assert [q.label for q in ctx.derived.values()] == ["dhi(1) = hi(1) + ng",
                                                       "ncons = nspecies + 5"]


def test_defaults_are_marked_and_noted():
    params = ParameterSet()
    ctx = ModelContext(params)
    ctx.expr("hi(2) + ng", "upper")  # two symbols: ng is an offset, not a size
    ctx.expr("n", "upper")  # a bound by itself: a problem size
    ctx.expr("m", "lower")
    ctx.expr("ilo1 + ihi1")
    values = {p.name: p.value for p in params.parameters.values()}
    assert values == {"hi_2": 128, "ng": 4, "n": 128, "m": 1, "ilo1": 1, "ihi1": 128}
    assert all(p.defaulted for p in params.parameters.values())
    assert len([n for n in ctx.notes if n.kind == "default"]) == 6


def test_a_second_model_of_the_same_parameters_notes_the_same_defaults():
    """A parameter set filled by one model (build_model adds the program's problem parameters
    to it) and given to another: the second still says which values it assumed."""
    params = ParameterSet(symbol_values={"ng": (4, "params.xml")})
    first = ModelContext(params)
    first.expr("hi(2) + ng", "upper")
    first.symbol("size(q, 1)", opaque=True)
    second = ModelContext(params)
    second.expr("hi(2) + ng", "upper")
    second.expr("hi(2)", "upper")  # noted once
    second.symbol("size(q, 1)", opaque=True)
    messages = [n.message for n in first.notes]
    assert [n.message for n in second.notes] == messages
    assert messages[0] == ("problem symbol hi(2) has no value: assumed 128 "
                           "(give it with --params or --set 'hi(2)=VALUE')")
    assert len(messages) == 2  # ng was given: no note
    assert messages[1].startswith("expression size(q, 1) cannot be modelled")


def test_unreadable_and_self_referencing_expressions():
    ctx = ModelContext(ParameterSet(symsubs={"a": "b + 1", "b": "a * 2"}))
    with pytest.raises(ExpressionError, match="refers to itself"):
        ctx.expr("a")
    # text the model cannot read is one parameter, named after its symbols, with a note; its
    # default is a symbol's (hi_1_2 reads as an upper bound like hi_1: 128; size_a_n: 1)
    for text, name, value in (("hi(1) +* 2", "hi_1_2", 128), ("size(a) ** n", "size_a_n", 1)):
        ctx = ModelContext(ParameterSet())
        assert ctx.expr(text) == Param(name)
        assert ctx.params[name].value == value and ctx.params[name].symbol == text
        assert any(f"expression {text} cannot be modelled: parameter {name}" in n.message
                   for n in ctx.notes)
    # a bound: the upper role's default, 128; only the part it cannot read is a parameter
    ctx = ModelContext(ParameterSet())
    assert evaluate(ctx, "lv->blocks[shape()][nb[b]].dim.i - 2", "upper") == 126  # 128 - 2
    assert "lv_blocks_shape_nb_b_dim_i" in ctx.params
