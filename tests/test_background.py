"""An output's text made in a forked process (sat.pipeline.background)."""

from __future__ import annotations

import os
import time

import pytest

from sat.outputs import OutputError
from sat.pipeline.background import ForkedText, can_fork

pytestmark = pytest.mark.skipif(not can_fork(), reason="the platform does not fork")


def test_the_text_is_made_in_another_process_and_written_at_the_path(tmp_path):
    target = tmp_path / "page.html"
    page = ForkedText(lambda: f"made by {os.getpid()} — ünïcode\n" * 3)
    page.write(str(target))
    page.close()
    text = target.read_text(encoding="utf-8")
    assert text.count("\n") == 3
    assert text.startswith("made by ") and f"made by {os.getpid()} " not in text
    assert "ünïcode" in text
    assert [p.name for p in tmp_path.iterdir()] == ["page.html"]  # no temporary file left


def test_a_big_text_comes_back_whole(tmp_path):
    line = "x" * 99 + "\n"  # 100 bytes: 3 MB in all, more than any pipe holds
    page = ForkedText(lambda: line * 30_000)
    page.write(str(tmp_path / "big.html"))
    assert (tmp_path / "big.html").stat().st_size == 3_000_000


def test_a_known_error_comes_back_as_itself_and_nothing_is_written(tmp_path):
    def make() -> str:
        raise OutputError("page.html: no room")

    page = ForkedText(make)
    with pytest.raises(OutputError, match="^page.html: no room$"):
        page.write(str(tmp_path / "page.html"))
    page.close()
    assert not list(tmp_path.iterdir())


def test_an_unexpected_error_keeps_its_type_and_message(tmp_path):
    def make() -> str:
        return str(1 / 0)

    page = ForkedText(make)
    with pytest.raises(ZeroDivisionError, match="division by zero"):
        page.write(str(tmp_path / "page.html"))


def test_an_error_that_does_not_pickle_comes_back_by_name(tmp_path):
    class Odd(Exception):
        def __init__(self, a, b):
            super().__init__(f"{a} and {b}")

    def make() -> str:
        raise Odd(1, 2)

    page = ForkedText(make)
    with pytest.raises(RuntimeError, match="^Odd: 1 and 2$"):
        page.write(str(tmp_path / "page.html"))


def test_close_before_the_text_is_wanted_stops_the_child(tmp_path):
    def make() -> str:
        time.sleep(60)
        return "late"

    start = time.monotonic()
    page = ForkedText(make)
    page.close()
    assert time.monotonic() - start < 30
    assert not list(tmp_path.iterdir())
