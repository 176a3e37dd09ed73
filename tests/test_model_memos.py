"""Work the model does once instead of per nest gives the same answers as doing it again."""

from __future__ import annotations

from sat.frontend.tiles import linear_form


def test_linear_form_of_a_text_read_again_is_the_same_and_a_copy() -> None:
    # 2*(i + 3) - j + n: i twice, j once negative, n once, constant 6
    first = linear_form("2*(i + 3) - j + n")
    assert first == {"i": 2, "": 6, "j": -1, "n": 1}
    first["i"] = 99  # a caller changing its form does not change the next caller's
    first.pop("j")
    assert linear_form("2*(i + 3) - j + n") == {"i": 2, "": 6, "j": -1, "n": 1}
    assert linear_form("i*j") is None
    assert linear_form("i*j") is None  # not a linear form, every time

