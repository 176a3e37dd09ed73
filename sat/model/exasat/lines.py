"""Whole cache lines: the elements of the lines a reference's extent, stride or rows touch,
as model expressions over ``LineBytes`` and the element size."""

from __future__ import annotations

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


def row_lines(lined: E.Expr, row_length: int, elements: E.ExprLike) -> E.Expr:
    """Elements of a row's whole cache lines (``lined``), at most the row's declared length
    when the rows the nest walks lie back to back: the lines a row shares with the next one
    are charged once (a row of ten 4-byte reals: 40 B, not a 64-byte line). Never fewer than
    the ``elements`` the row's loop touches (a loop running past the declared length)."""
    return lined if not row_length else E.minimum(lined, E.maximum(row_length, elements))
