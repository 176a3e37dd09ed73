"""The Alternative blocking scheme's plan of each nest of a procedure: which arrays it holds
and which it streams in and out, from how the procedure's nests use each array (worked out
once per procedure, then read for every nest)."""

from __future__ import annotations

from sat.model.exasat.blocking import _Plan, _plan, _summaries


def test_each_nest_plans_from_the_uses_of_its_procedure():
    # a read by nests 0 and 2; b written by 0 and read by 1; t a local of nest 1; u read and
    # written by nest 1 alone; v read by 0 and written by 2
    uses = {"a": [(0, "R"), (2, "R")], "b": [(0, "W"), (1, "R")], "t": [(1, "RW")],
            "u": [(1, "RW")], "v": [(0, "R"), (2, "W")]}
    summaries = _summaries(uses, {"a", "b", "u", "v"})
    # nest 0: holds what it uses (a, b, v), streams in what is read first there (a, v)
    assert _plan(0, summaries) == _Plan(["a", "b", "v"], ["a", "v"], [], [], [])
    # nest 1: a stays held for nest 2's read; b's last use writes it back (written first in
    # nest 0); t is held but never streamed; u is streamed in and out in this nest alone;
    # v is not held (read last in nest 0)
    assert _plan(1, summaries) == _Plan(["a", "b", "t", "u"], [], ["b"], ["u"], [])
    # nest 2: v, read in nest 0, has only its write-back left
    assert _plan(2, summaries) == _Plan(["a", "v"], [], [], [], ["v"])


def test_unknown_locals_stream_every_array():
    """Without the procedure's declarations (None) every array is streamed: t too."""
    summaries = _summaries({"t": [(1, "RW")]}, None)
    assert _plan(1, summaries) == _Plan(["t"], [], [], ["t"], [])
    assert _plan(0, summaries) == _Plan([], [], [], [], [])
