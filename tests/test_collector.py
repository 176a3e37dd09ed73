"""The garbage collector's pauses and freezes over a run's waves of allocation."""

from __future__ import annotations

import gc
import weakref

from sat import collector


class Node:
    """An object that can sit in a reference cycle and be watched through a weak reference."""

    def __init__(self) -> None:
        self.other: Node | None = None


def _cycle() -> weakref.ref:
    first, second = Node(), Node()
    first.other, second.other = second, first
    return weakref.ref(first)


def test_paused_stops_collections_and_restores_the_collector():
    assert gc.isenabled()
    with collector.paused():
        assert not gc.isenabled()
        with collector.paused():  # nested: still paused after the inner block
            pass
        assert not gc.isenabled()
    assert gc.isenabled()


def test_paused_restores_the_collector_after_an_error():
    try:
        with collector.paused(survivors=True, cycles=True):
            raise ValueError("inside")
    except ValueError:
        pass
    assert gc.isenabled()


def test_cycles_are_collected_when_the_wave_ends():
    with collector.paused(cycles=True):
        watched = _cycle()
        assert watched() is not None  # no collection inside the wave
    assert watched() is None


def test_survivors_are_frozen_inside_frozen_only():
    kept: list[Node] = []
    with collector.paused(survivors=True):
        kept.append(Node())
    assert gc.get_freeze_count() == 0  # outside frozen(): nothing stays frozen
    with collector.frozen():
        before = gc.get_freeze_count()
        assert before > 0
        with collector.paused(survivors=True):
            kept.extend(Node() for _ in range(1000))
        assert gc.get_freeze_count() >= before + 1000
        with collector.frozen():  # nested: the outer block unfreezes
            pass
        assert gc.get_freeze_count() >= before + 1000
    assert gc.get_freeze_count() == 0


def test_garbage_made_inside_frozen_is_still_collected():
    with collector.frozen():
        watched = _cycle()
        gc.collect()
        assert watched() is None


def test_a_freeze_made_before_is_left_to_its_maker():
    gc.freeze()
    try:
        before = gc.get_freeze_count()
        with collector.frozen():
            pass
        assert gc.get_freeze_count() >= before
    finally:
        gc.unfreeze()
