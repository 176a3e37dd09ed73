"""Lines a walk across rows moves for references inside if/else arms.

A nest whose X loop (the unit-stride axis) encloses loops of Y or Z (a transposed or column
walk) moves a whole line per access once one step of X does not stay in the cache (the sweep
condition of :mod:`sat.model.exasat.memory`): the next element of that line is reached only
at the next step of X, after the line has gone. Each access then stands alone, so a
reference inside an ``if``/``else`` arm moves its line only on the iterations that take the
arm: per iteration, a pencil (row) of the pattern moves a line with the chance that the
iteration touches it, not always.

In the order of ExaSAT's nests (X innermost) the neighbours along X share the line within a
few iterations, and some iteration among them almost surely takes the arm: the whole line
moves, as counted without arms; this rule is only for the walk across rows.

The chance an iteration touches a pencil: 1 when a reference to it runs at every iteration;
else the sum of the chances of the arm paths of its references (the arms of one ``if`` /
``else`` chain exclude each other, so their chances add; a path inside another one adds
nothing), at most 1. Two separate ``if`` statements are taken as exclusive too, which counts
at most the product of their chances more than independent ones would.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from sat.model import expr as E
from sat.model.context import ModelContext
from sat.model.exasat.flops import branch_probability


def path_chance(path: Sequence, ctx: ModelContext, file: str) -> float:
    """Chance an iteration runs a reference inside the arms ``path`` (their product)."""
    return math.prod(branch_probability(branch, ctx, file, siblings)
                     for branch, siblings in path)


def pencil_chance(paths: Sequence[tuple], ctx: ModelContext, file: str) -> float:
    """Chance an iteration touches a pencil whose references sit inside the arms ``paths``
    (one per reference; an empty path runs at every iteration)."""
    distinct = {tuple(id(branch) for branch, _ in p): p for p in paths}  # arms by identity
    if () in distinct:
        return 1.0
    # a path that extends another one touches the pencil only when that one does
    outer = [p for key, p in distinct.items()
             if not any(k != key and key[:len(k)] == k for k in distinct)]
    return min(1.0, sum(path_chance(p, ctx, file) for p in outer))


def pencil_chances(pattern, ctx: ModelContext, file: str) -> dict[tuple[int, int], float]:
    """Each (Y, Z) pencil of ``pattern`` and the chance an iteration touches it
    (:func:`pencil_chance`; 1 for every pencil of a pattern outside arms)."""
    by_pencil: dict[tuple[int, int], list[tuple]] = {}
    for point, path in pattern.arm_points:
        by_pencil.setdefault((point[1], point[2]), []).append(path)
    if not by_pencil:
        return {(point[1], point[2]): 1.0 for point in pattern.offsets}
    return {pencil: pencil_chance(paths, ctx, file) for pencil, paths in by_pencil.items()}


def touched_pencils(pattern, ctx: ModelContext, file: str) -> E.Expr | None:
    """Expected pencils of ``pattern`` an iteration touches (each moving its line when a
    step of X does not fit), counting the arms around its references; None when every
    reference runs at every iteration, or when a stepped loop folds its rows (the count of
    :func:`sat.model.exasat.memory._accessed` stands)."""
    if pattern.step_rows != 1 or not pattern.arm_points \
            or all(not path for _, path in pattern.arm_points):
        return None
    return E.Num(sum(pencil_chances(pattern, ctx, file).values()))
