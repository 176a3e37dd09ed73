"""Work the model does once instead of per nest gives the same answers as doing it again."""

from __future__ import annotations

from sat.frontend.tiles import linear_form
from sat.ir import Access, Loop
from sat.model.exasat.compulsory import unplaced_sweeps


def test_linear_form_of_a_text_read_again_is_the_same_and_a_copy() -> None:
    # 2*(i + 3) - j + n: i twice, j once negative, n once, constant 6
    first = linear_form("2*(i + 3) - j + n")
    assert first == {"i": 2, "": 6, "j": -1, "n": 1}
    first["i"] = 99  # a caller changing its form does not change the next caller's
    first.pop("j")
    assert linear_form("2*(i + 3) - j + n") == {"i": 2, "": 6, "j": -1, "n": 1}
    assert linear_form("i*j") is None
    assert linear_form("i*j") is None  # not a linear form, every time


def test_unplaced_sweeps_without_a_sweep_that_places_a_reference() -> None:
    time = Loop(line=1, loopvar="t", upper="nt")
    tile = Loop(line=2, loopvar="ii", upper="n", stride="8")
    scratch = [(Access(offsets=(0,), loopvars=("i",), writes=1), ())]
    # no name places a reference: no sweep is unplaced, whatever the sweeps
    assert unplaced_sweeps(scratch, [time, tile], set()) == frozenset()
    # 'ii' places another reference (a(i+ii)) but not the scratch tile's: the tile sweep
    # (index 1) brings the scratch tile no new elements; the time loop places nothing
    assert unplaced_sweeps(scratch, [time, tile], {"ii"}) == frozenset({1})
    # the scratch tile placed by 'ii' itself (s(i+ii)): its sweep is not unplaced
    placed = [(Access(offsets=("ii",), loopvars=("i",), writes=1), ())]
    assert unplaced_sweeps(placed, [time, tile], {"ii"}) == frozenset()
    # a placing name no sweep has: nothing, by the shortcut
    assert unplaced_sweeps(scratch, [time, tile], {"jj"}) == frozenset()

