"""Loops that step by a literal other than 1: which offsets fall in one step, and how many
elements (along X) or rows and planes (along Y and Z) one step of the loop touches."""

from __future__ import annotations

import re

from sat.ir import Loop

# A literal loop of at most this many trips over the unit-stride dimension of a grid array
# runs over the components of a cell (one cache line of doubles holds 8).
SHORT_LEADING_TRIPS = 8


def literal_step(loop: Loop) -> int:
    """The loop's step when it is a literal integer other than 1 and -1 (else 1: a loop
    walking down one element at a time visits every element, as one walking up does)."""
    text = loop.stride.strip()
    return int(text) if re.fullmatch(r"-?\d+", text) and int(text) not in (0, 1, -1) else 1


def fold_offset(offset: int, step: int) -> int:
    """An offset of a loop stepping by ``step`` in units of whole steps (towards the loop's
    start): ``a[i+3]`` of ``i += 4`` is in the same step as ``a[i]``."""
    return offset // step if step > 0 else -((-offset) // -step)


def stepped_factor(residues: dict[int, set[int]], steps: dict[int, int]) -> int:
    """Elements one iteration of stepped axis loops touches per element of a unit-step loop.

    Along X a step shorter than a cache line still moves every line: ``s`` elements. Along
    Y and Z the rows (planes) the offsets cover within one step (``a[j]`` and ``a[j+1]`` of
    ``j += 2``: 2; ``a[j]`` alone: 1).
    """
    factor = 1
    for axis, step in steps.items():
        size = abs(step)
        covered = len(residues.get(axis, {0}))
        factor *= size if axis == 0 and size <= SHORT_LEADING_TRIPS else covered
    return factor


def x_step_span(residues: dict[int, set[int]], steps: dict[int, int]) -> int:
    """The X factor of :func:`stepped_factor`: the elements one step of a stepped X loop spans."""
    size = abs(steps.get(0, 1))
    return size if 0 in residues and size <= SHORT_LEADING_TRIPS else 1
