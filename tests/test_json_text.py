"""The JSON writer gives json.dumps(indent=2, ensure_ascii=False)'s very text, non-finite
floats as null."""

from __future__ import annotations

import enum
import json
import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sat.report.json_text import dumps


def reference(data) -> str:
    return json.dumps(data, indent=2, ensure_ascii=False, allow_nan=False)


class Level(enum.IntEnum):
    L1 = 1


class Text(str):
    pass


SAMPLES = [
    {}, [], {"a": []}, {"a": {}}, [[], {}], 0, -7, 10**30, 0.1, -0.0, 1e300, 5e-324, 1.0,
    "", "é ü \u2028 \x00 \x1f \" \\ / \n\t", None, True, False,
    {"nested": [1, 2.5, [3, {"x": None, "y": [True, False]}]], "n": 3},
    {7: "int key", 2.5: "float key", None: "null key", "s": 1}, {True: "t", False: "f"},
    (1, (2, 3)), {"level": Level.L1, "text": Text("sub"), "flag": [Level.L1, Text("t")]},
]


@pytest.mark.parametrize("data", SAMPLES, ids=range(len(SAMPLES)))
def test_the_text_is_json_dumps_text(data):
    assert dumps(data) == reference(data)


def test_non_finite_floats_are_null():
    data = {"a": math.inf, "b": [math.nan, -math.inf, 1.5]}
    assert dumps(data) == reference({"a": None, "b": [None, None, 1.5]})


def test_what_json_refuses_is_refused():
    with pytest.raises(TypeError):
        dumps({"a": object()})
    with pytest.raises(TypeError):
        dumps({(1, 2): 3})
    with pytest.raises(ValueError):
        dumps({math.nan: 1})


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text()
    | st.floats(allow_nan=False, allow_infinity=False),
    lambda children: st.lists(children, max_size=4)
    | st.dictionaries(st.text(max_size=5), children, max_size=4),
    max_leaves=30)


@settings(max_examples=300, deadline=None)
@given(json_values)
def test_any_json_value_reads_as_json_dumps_writes_it(data):
    assert dumps(data) == reference(data)
