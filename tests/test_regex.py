"""Patterns compiled on first use (sat.regex): the same answers as re.compile, no cost before."""

from __future__ import annotations

import re

import pytest

from sat.regex import LazyPattern


def test_nothing_is_compiled_until_first_use():
    broken = LazyPattern(r"(unclosed")  # re.compile would raise here
    with pytest.raises(re.error):
        broken.search("text")


def test_answers_as_the_compiled_pattern():
    pattern = LazyPattern(r"^\s*([A-Za-z_]\w*)\s*=(?!=)\s*(.*)$", re.S)
    assert pattern.match("n = 100").groups() == ("n", "100")
    assert pattern.match("n == 100") is None
    assert pattern.flags & re.S
    assert pattern.pattern.startswith(r"^\s*(")
    words = LazyPattern(r"[a-z]+", re.I)
    assert words.findall("Ab 12 cD") == ["Ab", "cD"]
    assert words.sub("w", "Ab 12 cD") == "w 12 w"
    assert [m.group() for m in words.finditer("x-y")] == ["x", "y"]


def test_first_use_keeps_the_methods():
    pattern = LazyPattern(r"\d+")
    assert "search" not in vars(pattern)
    assert pattern.search("a12").group() == "12"
    assert "search" in vars(pattern)  # later uses skip __getattr__
