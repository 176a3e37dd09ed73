"""Whole cache lines: the elements of the lines a reference's extent, stride or rows touch,
as model expressions over ``LineBytes`` and the element size; and what an access says of them
(its stride along the unit-stride dimension, its rows lying back to back)."""

from __future__ import annotations

import re

from sat.model import expr as E
from sat.model.context import ModelContext


def elements_per_line(ctx: ModelContext, size: E.Expr | None = None) -> E.Expr:
    """Array elements per cache line: LineBytes over the element size (``WordBytes`` when
    none is given: the nest's iteration space, counted in double-precision elements)."""
    return ctx.param("LineBytes") / (ctx.param("WordBytes") if size is None else size)


def round_to_lines(x: E.ExprLike | E.Quantity, ctx: ModelContext,
                   size: E.Expr | None = None) -> E.Expr:
    """Round a unit-stride extent (elements of ``size`` bytes) up to whole cache lines
    (optimistic alignment)."""
    return E.ceiling(x, elements_per_line(ctx, size))


def strided_lines(x: E.ExprLike, span: int, stride: int, ctx: ModelContext,
                  size: E.Expr | None = None) -> E.Expr:
    """Elements of the cache lines a reference moving ``stride`` elements per iteration
    touches over ``x`` iterations (offsets ``span`` apart): every line of its range while
    the stride is shorter than a line, one line per iteration and offset once it is not
    (``x(16*i)`` of 4-byte reals: a 64-byte line per access)."""
    per_line = elements_per_line(ctx, size)
    if stride == 1:
        return round_to_lines(E.add(x, span), ctx, size)
    return E.minimum(E.ceiling(E.add(E.mul(stride, x), span), per_line),
                     E.mul(E.add(x, span), per_line))


def ragged_row_lines(x: E.ExprLike, ctx: ModelContext, size: E.Expr | None = None,
                     end: tuple[int, int, bool] | None = None, step: int = 1) -> E.Expr:
    """Elements of the cache lines a row touches on average when its range moves from one
    row to the next (a triangular range, ``j = 1, i``): its start and end fall anywhere in
    a line, so a row of ``x`` elements touches ``(x - 1) / P + 1`` lines of ``P`` elements,
    ``x + P - 1`` elements' worth (not its mean length rounded up once: the mean of the
    rows' lines is not the lines of the mean row). When the source says where one end
    stays (``end``, :func:`ragged_row_end`): :func:`fixed_end_row_lines`. With ``x`` in
    steps of a loop stepping by ``step`` (< P: every line of the range moves; the count is
    multiplied by ``step`` afterwards), the ``P - 1`` elements of the ends count once, not
    once per element of a step: ``x + (P - 1) / step``."""
    if end is not None:
        return fixed_end_row_lines(x, *end, ctx, size)
    ends = elements_per_line(ctx, size) - 1
    return E.add(x, ends if step == 1 else E.div(ends, step))


def ragged_rows(nest, axis_loops: list, tiles: list) -> bool:
    """Whether the rows along X (the unit-stride axis) change their range from one row to
    the next: an X loop one of whose bounds names the variable of a loop around it in the
    nest ``nest`` (triangular: ``do j = 1, i``), outside array references (a CSR row's
    ``rowptr(i)`` is no such range), and not a tile's element loop (a tile's rows keep
    their length)."""
    tiled = {id(inner) for _, inner, _ in tiles}
    for lp in axis_loops[0]:
        if lp.kind == "tile" or lp.tile or id(lp) in tiled:
            continue
        bounds = f"{lp.lower} {lp.upper}"
        if "(" in bounds or "[" in bounds:
            continue
        names = {name.lower() for name in re.findall(r"[A-Za-z_]\w*", bounds)}
        around = {outer.loopvar.lower() for outer in (nest, *nest.all_loops())
                  if outer.loopvar and outer is not lp
                  and any(inner is lp for inner in outer.all_loops())}
        if names & around:
            return True
    return False


def row_lines(lined: E.Expr, row_length: int, elements: E.ExprLike) -> E.Expr:
    """Elements of a row's whole cache lines (``lined``), at most the row's declared length
    when the rows the nest walks lie back to back: the lines a row shares with the next one
    are charged once (a row of ten 4-byte reals: 40 B, not a 64-byte line). Never fewer than
    the ``elements`` the row's loop touches (a loop running past the declared length)."""
    return lined if not row_length else E.minimum(lined, E.maximum(row_length, elements))


def program_shapes(procedures) -> dict[str, tuple[str, ...]]:
    """Array name (lower case) -> its declared shape, over every procedure as read that
    declares it alike (a module array a called procedure uses, for the nest of the time loop
    that calls it: the caller does not declare it); names declared with different shapes
    are left out."""
    found: dict[str, set[tuple[str, ...]]] = {}
    for procedure in procedures:
        for v in (*procedure.locals, *procedure.nonlocals):
            if v.shape:
                found.setdefault(v.name.lower(), set()).add(tuple(v.shape))
    return {name: next(iter(shapes)) for name, shapes in found.items() if len(shapes) == 1}


def unit_coefficient(access, row_major: bool) -> int:
    """The literal coefficient of the loop variable in the access's unit-stride subscript
    (``x(16*i)``: 16; 1 when it is 1, symbolic or unknown)."""
    if not access.subscripts or len(access.subscripts) != len(access.loopvars):
        return 1
    sub = access.subscripts[-1 if row_major else 0]
    if sub.kind != "induction" or not isinstance(sub.coeff, int):
        return 1
    return max(1, abs(sub.coeff))


def declared_row_length(access, shape: tuple[str, ...], stepping: list[set[str]],
                row_major: bool) -> int:
    """Declared elements of the access's unit-stride dimension when its next dimension is
    walked by a loop of Y one row after the other (``a(i,j)`` in ``do j; do i``): the rows
    the nest touches lie back to back.  0 when the extent is no literal or the rows are not
    consecutive."""
    if len(shape) < 2 or len(shape) != len(access.loopvars):
        return 0
    unit, following = (-1, -2) if row_major else (0, 1)
    if access.loopvars[following].lower() not in stepping[1] \
            or access.loopvars[unit].lower() not in stepping[0]:
        return 0
    subs = access.subscripts
    if subs and len(subs) == len(shape) and any(
            sub.kind != "induction" or sub.coeff not in (1, -1) for sub in (subs[unit],
                                                                            subs[following])):
        return 0
    bounds = shape[unit].split(":")
    lower, upper = (bounds[0], bounds[1]) if len(bounds) == 2 else ("1", bounds[0])
    if not (re.fullmatch(r"-?\d+", lower.strip()) and re.fullmatch(r"-?\d+", upper.strip())):
        return 0
    return max(0, int(upper) - int(lower) + 1)


def _literal(text: str) -> int | None:
    text = text.strip()
    return int(text) if re.fullmatch(r"-?\d+", text) else None


def _row_frame(access, shape: tuple[str, ...], x_loops: list, row_major: bool
               ) -> tuple[object, int, int, int] | None:
    """(the X loop, the access's literal offset along X, the first declared element of its
    unit-stride dimension, the declared elements of a row, 0 for an array of one axis) when
    one X loop of step 1 or -1 subscripts the access's unit-stride dimension with
    coefficient 1 and a literal offset, and that dimension's declared bounds are literal."""
    if len(x_loops) != 1 or not shape or len(shape) != len(access.loopvars):
        return None
    loop = x_loops[0]
    unit = -1 if row_major else 0
    sub = access.subscripts[unit] if len(access.subscripts) == len(shape) else None
    offset = access.offsets[unit]
    if access.loopvars[unit].lower() != loop.loopvar.lower() or not isinstance(offset, int) \
            or loop.stride.strip() not in ("1", "-1") or loop.tile or loop.kind == "tile" \
            or (sub is not None and (sub.kind != "induction" or sub.coeff != 1)):
        return None
    dims = [d.split(":") for d in shape]
    if any(len(d) > 2 for d in dims):
        return None
    firsts = [_literal(d[0]) if len(d) == 2 else (0 if row_major else 1) for d in dims]
    lasts = [_literal(d[-1]) for d in dims]
    if None in firsts or None in lasts:
        return None
    pitch = lasts[unit] - firsts[unit] + 1 if len(shape) > 1 else 0  # type: ignore[operator]
    return loop, offset, firsts[unit], pitch  # type: ignore[return-value]


def row_start(access, shape: tuple[str, ...], x_loops: list, row_major: bool
              ) -> tuple[int, int] | None:
    """(the element of its row where the access's range along X starts, counted from the
    row's first element; the declared elements of a row, 0 for an array of one axis) when
    the source says both: one X loop of literal bounds and step 1 subscripting the
    access's unit-stride dimension with coefficient 1 and a literal offset, and literal
    declared bounds of that dimension. None otherwise (the row is taken to start a line)."""
    frame = _row_frame(access, shape, x_loops, row_major)
    if frame is None:
        return None
    loop, offset, first, pitch = frame
    bounds = (_literal(loop.lower), _literal(loop.upper))  # type: ignore[attr-defined]
    if None in bounds:
        return None
    start = min(bounds) + offset - first  # type: ignore[type-var,operator]
    return (start, pitch) if start >= 0 else None


def ragged_row_end(access, shape: tuple[str, ...], x_loops: list, row_major: bool
                   ) -> tuple[int, int, bool] | None:
    """(the element of its row where the fixed end of the access's range along X lies,
    counted from the row's first element; the declared elements of a row, 0 for an array
    of one axis; whether that end is the range's last element) when the X loop has one
    literal bound and the other moves from row to row (a triangle: ``do j = 1, i`` fixes
    the first element, ``for (k = j; k >= 0; k--)`` too, ``do j = i, 48`` the last), under
    the conditions of :func:`row_start` for the rest. None otherwise."""
    frame = _row_frame(access, shape, x_loops, row_major)
    if frame is None:
        return None
    loop, offset, first, pitch = frame
    lower, upper = _literal(loop.lower), _literal(loop.upper)  # type: ignore[attr-defined]
    if (lower is None) == (upper is None):
        return None
    descending = loop.stride.strip() == "-1"  # type: ignore[attr-defined]
    fixed = lower if lower is not None else upper
    end = fixed + offset - first  # type: ignore[operator]
    last = (lower is None) != descending  # the literal bound is the range's top
    return (end, pitch, last) if end >= 0 else None


def fixed_end_row_lines(x: E.ExprLike, end: int, pitch: int, last: bool, ctx: ModelContext,
                        size: E.Expr | None = None) -> E.Expr:
    """Elements of the cache lines a row of a triangle touches on average, ``x`` elements
    its mean length, when one end of the row stays at element ``end`` of rows ``pitch``
    elements long (``last``: the row's last element; pitch 0: an array of one axis), the
    array starting on a line of P elements. That end takes the places ``a, a + g, ...,
    a + P - g`` of a line, g = GCD(pitch, P), as in :func:`started_row_lines` (a = the end
    mod g, or g - 1 - that for a last element, its distance to the end of a line), and the
    moving end falls anywhere in a line: a row touches ``(x + a + P - (g + 1) / 2) / P``
    lines on average. Rows from element 0 of 48 reals (g = P = 16): ``x + 7.5`` elements,
    not the ``x + 15`` of a row whose both ends move (:func:`ragged_row_lines`, the case
    g = 1). Not capped at a row's length here: only rows walked one after the other share
    their end lines (:func:`row_lines`); rows a step apart do not."""
    per_line = elements_per_line(ctx, size)
    cycle = E.func("GCD", pitch, per_line)
    residue = E.add(end, E.mul(-1, E.func("FLOOR", end, cycle)))  # end mod g
    place = E.add(cycle, -1, E.mul(-1, residue)) if last else residue
    return E.add(x, place, per_line, E.mul(-0.5, E.add(cycle, 1)))


def started_row_lines(x: E.ExprLike, start: int, pitch: int, ctx: ModelContext,
                      size: E.Expr | None = None) -> E.Expr:
    """Elements of the whole cache lines a row of ``x`` elements touches on average when it
    starts at element ``start`` of rows ``pitch`` elements long (0: an array of one axis),
    the array starting on a line of P elements. Row after row the start moves by ``pitch``
    elements: it takes the values ``a, a + g, ..., a + P - g`` of a line, g = GCD(pitch, P),
    a = start mod g, each as often, and a row from ``s`` touches FLOOR((s + x - 1) / P) + 1
    lines, which averages to ``(FLOOR(x - 1 + a, g) + P) / P`` lines. Rows a whole number
    of lines long all start at ``start`` mod P (g = P): a row of 48 doubles from element 4
    touches 7 lines, not 6; rows of 60 reals (g = 4) from element 0, 12 elements each, touch
    1.5 lines on average (1, 2, 2, 1 from bytes 0, 48, 32, 16 of a line). Never fewer than
    ``x`` rounded up to lines (the row that starts a line), nor more than a row's length
    (rows walked one after the other share the lines at their ends: :func:`row_lines`)."""
    per_line = elements_per_line(ctx, size)
    cycle = E.func("GCD", pitch, per_line)
    offset = E.add(start, E.mul(-1, E.func("FLOOR", start, cycle)))  # start mod g
    mean = E.add(E.func("FLOOR", E.add(x, -1, offset), cycle), per_line)
    if pitch:
        mean = E.minimum(mean, E.maximum(pitch, x))
    return E.maximum(round_to_lines(x, ctx, size), mean)
