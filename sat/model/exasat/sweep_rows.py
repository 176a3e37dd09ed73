"""Rows of a nest's pencils that a cache holds at once: a stepped Y or Z loop's offsets in
their own rows, and the rows a block of pencils shifted by a stencil's offsets covers (the
working set of one step of an outer X loop, :mod:`sat.model.exasat.memory`)."""

from __future__ import annotations

import itertools

from sat.model import expr as E
from sat.model.exasat.iteration import Pattern


def own_row_spans(pattern: Pattern) -> tuple[int, ...]:
    """With a stepped Y or Z loop, the X span of each row (plane) of the step the pattern
    touches, in its own row: ``a[j-2]``, ``a[j]`` and ``a[j+1]`` of ``j += 3`` touch 3 rows
    at once, not the folded offsets' pencils in each of the 3 rows of a step (empty without
    a stepped Y or Z loop)."""
    if pattern.step_rows == 1:
        return ()
    rows: dict[tuple[int, ...], list[int]] = {}
    for point in pattern.step_points:
        rows.setdefault(tuple(point[1:]), []).append(point[0])
    return tuple(sorted(max(xs) - min(xs) for xs in rows.values()))


UNION_PENCILS = 8  # beyond, the box the shifted block spans (2^n subsets otherwise)


def shifted_rows(pencils: tuple[tuple[int, int], ...], h: E.Expr, i: E.Expr) -> E.Expr:
    """Rows of an ``h`` x ``i`` block of pencils shifted by each of ``pencils`` (Y, Z), by
    inclusion and exclusion: the shifted blocks of a subset share ``MAX(0, h - its Y span)
    x MAX(0, i - its Z span)`` rows; the subsets' terms grouped by their spans."""
    terms: dict[tuple[int, int], int] = {}
    for size in range(1, len(pencils) + 1):
        for subset in itertools.combinations(pencils, size):
            ys = [y for y, _ in subset]
            zs = [z for _, z in subset]
            key = (max(ys) - min(ys), max(zs) - min(zs))
            terms[key] = terms.get(key, 0) + (1 if size % 2 else -1)
    parts = [E.mul(count, E.maximum(0, E.add(h, -span_y)), E.maximum(0, E.add(i, -span_z)))
             for (span_y, span_z), count in sorted(terms.items()) if count]
    return E.add(*parts) if parts else E.Num(0)
