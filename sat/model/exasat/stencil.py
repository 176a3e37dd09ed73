"""The shape of a reference's stencil offsets in plain numbers: the planes, pencils and cells
it touches and keeps for reuse (the paper's span-plus-gap rule), and its footprint over a
block as a polynomial in the block sizes, counted by :mod:`sat.model.exasat.memory`."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache

from sat.model import expr as E
from sat.model.exasat.iteration import NestShape

Point = tuple[int, int, int]


def max_step(values: Iterable[int]) -> int:
    """Largest distance between consecutive distinct values (1 for a single value)."""
    ordered = sorted(set(values))
    if len(ordered) < 2:
        return 1
    return max(b - a for a, b in zip(ordered, ordered[1:], strict=False))


def reuse_span(values: Iterable[int], gap: int) -> int:
    """Working set (in planes or pencils) for reuse: span of the pattern plus the gap."""
    ordered = sorted(set(values))
    return ordered[-1] - ordered[0] + gap


def pencils_by_plane(offsets: Iterable[Point]) -> dict[int, set[int]]:
    planes: dict[int, set[int]] = {}
    for _, y, z in offsets:
        planes.setdefault(z, set()).add(y)
    return planes


@dataclass(frozen=True)
class Counts:
    """Planes, pencils and cells of one array-component pattern."""

    planes: int  # touched per iteration
    pencils: int
    cells: int
    ws_planes: int  # needed in cache for reuse, all data
    ws_pencils: int
    ws_cells: int
    reuse_planes: int  # needed in cache counting only data that is reused
    reuse_pencils: int
    reuse_cells: int
    pencil_x_spans: tuple[int, ...] = ()  # per touched pencil: largest minus smallest X offset


@lru_cache(maxsize=8192)
def pattern_counts(offsets: frozenset[Point], plane_gap: int, pencil_gap: int) -> Counts:
    """The counts of one pattern given the nest's plane and pencil gaps."""
    by_plane = pencils_by_plane(offsets)
    planes = len(by_plane)
    pencils = len({(y, z) for _, y, z in offsets})
    cells = len(offsets)
    ws_planes = reuse_span(by_plane, plane_gap)
    ws_pencils = sum(reuse_span(ys, pencil_gap) for ys in by_plane.values())
    reuse_pencils = sum(reuse_span(ys, pencil_gap) for ys in by_plane.values() if len(ys) > 1)
    # One plane and no reuse between its pencils: nothing is reused across planes.
    reuse_planes = 0 if planes == 1 and reuse_pencils == 0 else ws_planes
    x_by_pencil: dict[tuple[int, int], list[int]] = {}
    for x, y, z in offsets:
        x_by_pencil.setdefault((y, z), []).append(x)
    x_spans = tuple(sorted(max(xs) - min(xs) for xs in x_by_pencil.values()))
    return Counts(planes, pencils, cells, ws_planes, ws_pencils, cells,
                  reuse_planes, reuse_pencils, cells, x_spans)


def nest_gaps(shape: NestShape) -> tuple[int, int]:
    """(plane gap, pencil gap): the largest over the nest's read arrays (1 if none)."""
    read = [p.offsets for p in shape.patterns if p.kind in ("R", "RW")]
    plane_gap = max((max_step(z for _, _, z in o) for o in read), default=1)
    pencil_gap = max((max_step(ys) for o in read for ys in pencils_by_plane(o).values()),
                     default=1)
    return plane_gap, pencil_gap


# ---------------------------------------------------------------- exact footprints


def _classes(values: set[int]) -> list[tuple[bool, frozenset[int]]]:
    """Positions along one axis of a block shifted by ``values``: (interior?, covering).

    The interior (block size minus span positions) is covered by every offset; each of the
    2*span edge positions by a subset of them.
    """
    ordered = sorted(values)
    low, high = ordered[0], ordered[-1]
    classes = [(True, frozenset(ordered))]
    for p in range(low, high):
        classes.append((False, frozenset(v for v in ordered if v <= p)))
        classes.append((False, frozenset(v for v in ordered if v > p)))
    return classes


@lru_cache(maxsize=4096)
def volume_terms(offsets: frozenset[Point]) -> tuple[tuple[int, tuple[int, int, int, int]], ...]:
    """Union of a block shifted by ``offsets``, as rows grouped by their extra X length.

    Returns ``((s, (c_HI, c_H, c_I, c_1)), ...)``: there are ``c_HI*H*I + c_H*H + c_I*I + c_1``
    rows (pencils) of length ``X + s`` for block sizes H (Y) and I (Z).
    """
    ys = {y for _, y, _ in offsets}
    zs = {z for _, _, z in offsets}
    span_y, span_z = max(ys) - min(ys), max(zs) - min(zs)
    terms: dict[int, list[int]] = {}
    for y_in, y_cov in _classes(ys):
        for z_in, z_cov in _classes(zs):
            xs = [x for x, y, z in offsets if y in y_cov and z in z_cov]
            if not xs:
                continue
            c = terms.setdefault(max(xs) - min(xs), [0, 0, 0, 0])
            # rows: (H - span_y or 1) * (I - span_z or 1)
            hy = (1, -span_y) if y_in else (0, 1)
            iz = (1, -span_z) if z_in else (0, 1)
            c[0] += hy[0] * iz[0]
            c[1] += hy[0] * iz[1]
            c[2] += hy[1] * iz[0]
            c[3] += hy[1] * iz[1]
    return tuple((s, tuple(c)) for s, c in sorted(terms.items()) if any(c))  # type: ignore


def plane_terms(offsets: frozenset[Point]) -> tuple[tuple[int, tuple[int, int, int, int]], ...]:
    """Footprint of one plane (the pattern projected on X-Y), in the form of volume_terms."""
    return volume_terms(frozenset((x, y, 0) for x, y, _ in offsets))


def footprint(terms: tuple, length, h, i) -> E.Expr:
    """Elements of a footprint: sum of row counts times ``length(s)`` (s = extra X length)."""
    parts = []
    for s, (c_hi, c_h, c_i, c_1) in terms:
        rows = E.add(E.mul(c_hi, h, i), E.mul(c_h, h), E.mul(c_i, i), c_1)
        parts.append(E.mul(length(s), rows))
    return E.add(*parts) if parts else E.Num(0)


def spans(offsets: frozenset[Point]) -> tuple[int, int, int]:
    return tuple(max(p[a] for p in offsets) - min(p[a] for p in offsets)  # type: ignore
                 for a in range(3))
