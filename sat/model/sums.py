"""Exact trip counts of loops whose ranges move with enclosing loops nested several deep.

A loop whose bound uses one enclosing loop's variable (``do i = k + 1, n`` inside ``do k``)
runs, on average over that loop, its count at the variable's mean
(:func:`sat.model.nests.averaged_bounds`): exact, because the count is affine in ``k``.  Two
such loops on one path (LU's ``do k; do j = k+1, n; do i = k+1, n``) run ``(n-k)**2`` times
together: the product of the two means (``n**3/4``) is not the mean of the product
(``n**3/3``).  Nor is a loop whose range moves with a loop whose range moves itself (``do i;
do j = 1, i; do k = 1, j``): the mean of ``j`` over the executions of ``k``'s loop is not the
midpoint of ``j``'s range.

For such a loop the model takes, as its trip count, the number of executions of its body
over the number of executions of its parent's body: both nested sums of polynomials in the
enclosing variables, summed in closed form (sympy's Faulhaber sums, exact for affine bounds)
over the bounds' own expressions.  The counts of the loops on a path then multiply to the
exact number of iterations of its innermost body, whatever the depth, and every count stays
a formula over the problem's parameters.  A range clipped at zero (a loop whose bounds
cross for some values of the enclosing variables) is summed as if negative counts were
allowed, unless the bounds involved are numbers: then the enclosing loop's range is
narrowed to where the inner loop runs (``do l = k, 14; do m = l + 4, 16``: l up to 12).
The sums are exact when every range is empty or forward, as in LU and triangular solves,
and where such numbers clip them.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING

from sat.frontend.tiles import linear_form
from sat.ir import Body, Loop, Program
from sat.model import expr as E

if TYPE_CHECKING:
    import sympy

    from sat.model.context import ModelContext

# the bounds of a loop on a summed path: (coefficient per enclosing variable, the rest's text)
_Bound = tuple[dict[str, int], str]


def summed_paths(program: Program, averaged: dict[int, tuple[Loop, tuple[Loop, ...]]]
                 ) -> dict[int, tuple[Loop, ...]]:
    """Each loop whose count needs an exact nested sum, by ``id``: the loops from its nest's
    outermost loop down to it (it last).

    Those are the loops in ``averaged`` (their ranges move with an enclosing loop) with
    another such loop above them on their path; the first one's mean is already exact.
    """
    found: dict[int, tuple[Loop, ...]] = {}
    for procedure in program.procedures:
        for path in _paths(procedure, ()):
            moving = [lp for lp in path if id(lp) in averaged]
            if len(moving) > 1 and path[-1] is not moving[0] and id(path[-1]) in averaged:
                found[id(path[-1])] = path
    return found


def _paths(body: Body, above: tuple[Loop, ...]) -> Iterator[tuple[Loop, ...]]:
    for branch in body.branches:
        yield from _paths(branch, above)
    for loop in body.loops:
        path = (*above, loop)
        yield path
        yield from _paths(loop, path)


def summed_trip_count(path: tuple[Loop, ...], ctx: ModelContext,
                      trips: Callable[[Loop], E.Expr], only_clipped: bool = False
                      ) -> E.Expr | None:
    """The mean trip count of ``path[-1]`` per execution of its parent's body: the executions
    of the innermost body over those of the one around it, or None when a bound is not
    affine in the enclosing variables (the caller keeps the mean of the range). ``trips``
    counts a loop of the path that no other's range depends on. ``only_clipped``: None
    unless a range is narrowed (the mean of the range is exact otherwise)."""
    key = (only_clipped, *((lp.loopvar, lp.lower, lp.upper, lp.stride, lp.kind)
                           for lp in path))
    if key in ctx.summed_counts:
        return ctx.summed_counts[key]
    if only_clipped and not _may_cross(path):
        ctx.summed_counts[key] = None
        return None
    import sympy  # only programs with such nests pay for it

    symbols: dict[str, tuple[sympy.Symbol, E.Expr]] = {}
    inner, outer = (_executions(part, ctx, trips, symbols) for part in (path, path[:-1]))
    result = None
    if inner is not None and outer is not None:
        # where a range may cross for some sizes (a loop bound by a number inside one bound
        # by the problem's size), the sums over the ranges narrowed to where the loops run
        clipped = [_executions(part, ctx, trips, symbols, clip=True, named=True)
                   for part in (path, path[:-1])]
        clips = {symbol for key, (symbol, _) in symbols.items() if key.startswith("clip:")}
        if all(c is not None for c in clipped) and any(c.free_symbols & clips
                                                         for c in clipped):
            inner, outer = clipped
        elif only_clipped:
            inner = None
    if inner is not None and outer is not None:
        ratio = sympy.factor(sympy.cancel(inner / outer)) if outer != 0 else inner
        values = {symbol: value for symbol, value in symbols.values()}
        try:
            result = _to_expr(ratio, values)
        except ValueError:  # not a quotient of polynomials: the mean of the range stays
            result = None
    ctx.summed_counts[key] = result
    return result


def summed_executions(path: tuple[Loop, ...], ctx: ModelContext,
                      trips: Callable[[Loop], E.Expr]) -> E.Expr | None:
    """Executions of the innermost body of ``path`` (its loops outermost first, each inside
    the one before) summed exactly over every enclosing variable, or None when a bound is
    not affine in them."""
    key = ("executions", *((lp.loopvar, lp.lower, lp.upper, lp.stride, lp.kind)
                           for lp in path))
    if key in ctx.summed_counts:
        return ctx.summed_counts[key]
    symbols: dict[str, tuple[sympy.Symbol, E.Expr]] = {}
    total = _executions(path, ctx, trips, symbols, clip=True)
    result = None
    if total is not None:
        try:
            result = _to_expr(total, {symbol: value for symbol, value in symbols.values()})
        except ValueError:
            result = None
    ctx.summed_counts[key] = result
    return result


def _executions(path: tuple[Loop, ...], ctx: ModelContext, trips: Callable[[Loop], E.Expr],
                symbols: dict[str, tuple[sympy.Symbol, E.Expr]], clip: bool = False,
                named: bool = False) -> sympy.Expr | None:
    """Executions of the innermost body of ``path``, summed over every enclosing variable;
    ``clip``: ranges narrowed where the loops inside run whatever the problem's sizes
    (:func:`_clipped_live`); ``named``: each narrowed end a symbol of its own, so the sums
    stay polynomials (fast, and their quotient cancels)."""
    import sympy

    variables = {lp.loopvar.lower(): sympy.Symbol(f"_v{n}") for n, lp in enumerate(path)
                 if lp.loopvar}
    counts: list[tuple[sympy.Symbol | None, sympy.Expr, sympy.Expr, sympy.Expr]] = []
    names = [lp.loopvar for lp in path if lp.loopvar]
    for n, lp in enumerate(path):
        if lp.kind == "tile":  # once: its element loops count the whole range
            continue
        var = variables.get(lp.loopvar.lower()) if lp.loopvar else None
        if not _mentions(lp, names[:n]) and not _used_below(lp, path):
            # a loop of its own count, independent of the others: a factor of the sum
            counts.append((None, sympy.Integer(0), sympy.Integer(0),
                           _symbol(f"trips:{lp.lower}:{lp.upper}:{lp.stride}:{lp.kind}",
                                   trips(lp), symbols)))
            continue
        bounds = _bounds(lp, set(variables))
        stride = lp.stride.strip()
        if bounds is None or stride not in ("", "1", "-1"):
            return None
        lower, upper = (_symbolic(b, role, variables, ctx, symbols)
                        for b, role in zip(bounds, ("lower", "upper"), strict=True))
        if stride == "-1":
            lower, upper = upper, lower
        counts.append((var, lower, upper, upper - lower + 1))
    total: sympy.Expr = sympy.Integer(1)
    for n in reversed(range(len(counts))):
        var, lower, upper, count = counts[n]
        if var is not None and total.has(var):
            written = lower, upper
            lower, upper = (_clipped_live if clip else _clipped)(
                var, lower, upper, [c[3] for c in counts[n + 1:]])
            if named:  # an end clipped by a loop's variable stays as written (too slow to sum)
                ends = [_named_ends(end, symbols) for end in (lower, upper)]
                lower, upper = (was if end.has(sympy.Min, sympy.Max) else end
                                for was, end in zip(written, ends, strict=True))
            counts[n] = (var, lower, upper, upper - lower + 1)
            total = sympy.expand(sympy.summation(total, (var, lower, upper)))
        else:
            total = sympy.expand(total * count)
    return total


def _clipped(var: sympy.Symbol, lower: sympy.Expr, upper: sympy.Expr,
             inner: list[sympy.Expr]) -> tuple[sympy.Expr, sympy.Expr]:
    """``var``'s range narrowed to where the loops inside it run (``do l = k, 14`` around
    ``do m = l + 4, 16``: l up to 12, where l = 14 would count -1 trips), when the range's
    end and the inner counts are numbers and affine in ``var`` alone (else unchanged)."""
    import sympy

    for count in inner:
        if count.free_symbols != {var} or sympy.degree(count, var) != 1:
            continue
        a, b = sympy.Poly(count, var).all_coeffs()  # the count a*var + b >= 0
        if a < 0 and upper.is_Integer:
            upper = sympy.Min(upper, sympy.floor(-b / a))
        elif a > 0 and lower.is_Integer:
            lower = sympy.Max(lower, sympy.ceiling(-b / a))
    if lower.is_Integer and upper.is_Integer:
        upper = sympy.Max(upper, lower - 1)  # an empty range, not a negative one
    return lower, upper


def _clipped_live(var: sympy.Symbol, lower: sympy.Expr, upper: sympy.Expr,
                  inner: list[sympy.Expr]) -> tuple[sympy.Expr, sympy.Expr]:
    """``var``'s range narrowed to where the loops inside it run, as :func:`_clipped`, also
    when its ends or the inner counts hold the problem's sizes: ``MIN`` and ``MAX`` of them,
    so the count stays exact for any size (an inner count ``a*var + b`` with ``a`` of 1 or
    -1, or ``b`` a number; none that moves with another loop's variable)."""
    import sympy

    for count in inner:
        if var not in count.free_symbols or count.has(sympy.Min, sympy.Max) \
                or sympy.degree(count, var) != 1:  # an inner range clipped itself: as it is
            continue
        a, b = sympy.Poly(count, var).all_coeffs()  # the count a*var + b >= 0
        if not (a.is_Integer and _loop_free(b) and (abs(a) == 1 or b.is_Integer)):
            continue
        bound = -b / a if abs(a) == 1 else sympy.floor(-b / a) if a < 0 else \
            sympy.ceiling(-b / a)
        if a < 0:
            upper = sympy.Min(upper, bound)
        else:
            lower = sympy.Max(lower, bound)
    if _loop_free(lower) and _loop_free(upper):
        upper = sympy.Max(upper, lower - 1)  # an empty range, not a negative one
    return lower, upper


def _loop_free(node: sympy.Expr) -> bool:
    """Whether ``node`` holds no loop variable (``_v…``), only the problem's sizes."""
    return not any(str(s).startswith("_v") for s in node.free_symbols)


def _may_cross(path: tuple[Loop, ...]) -> bool:
    """Whether the last loop's range may cross for some of the problem's sizes: one of its
    bounds a number, and an enclosing loop's bound a size (``do i = 1, n; do j = i, 8``)."""
    def number(text: str) -> bool:
        return text.strip().lstrip("+-").isdigit()

    last = path[-1]
    return any(map(number, (last.lower, last.upper))) and any(
        not number(bound) for lp in path[:-1] for bound in (lp.lower, lp.upper))


def _named_ends(end: sympy.Expr, symbols: dict[str, tuple[sympy.Symbol, E.Expr]]
                ) -> sympy.Expr:
    """``end`` with each ``MIN``/``MAX`` of the problem's sizes (no loop variable) replaced by
    a symbol standing for it (``clip:`` in ``symbols``, its value the clipped formula)."""
    import sympy

    values = {symbol: value for symbol, value in symbols.values()}
    swaps = {node: _symbol(f"clip:{node}", _to_expr(node, values), symbols)
             for node in end.atoms(sympy.Min, sympy.Max)
             if _loop_free(node)}
    return end.xreplace(swaps) if swaps else end


def _mentions(loop: Loop, names: list[str]) -> bool:
    """Whether a bound of ``loop`` names one of ``names`` (enclosing loops' variables)."""
    return any(re.search(rf"\b{re.escape(name)}\b", f"{loop.lower} {loop.upper}", re.I)
               for name in names)


def _used_below(loop: Loop, path: tuple[Loop, ...]) -> bool:
    """Whether a loop below ``loop`` on ``path`` names its variable in a bound."""
    if not loop.loopvar:
        return False
    word = re.compile(rf"\b{re.escape(loop.loopvar)}\b", re.I)
    index = next(n for n, lp in enumerate(path) if lp is loop)
    return any(word.search(f"{lp.lower} {lp.upper}") for lp in path[index + 1:])


def _bounds(loop: Loop, variables: set[str]) -> tuple[_Bound, _Bound] | None:
    """Each bound as (its coefficients of the path's variables, the text of the rest)."""
    found = []
    for text in (loop.lower, loop.upper):
        form = linear_form(text)
        if form is None:
            return None
        terms = {name.lower(): coeff for name, coeff in form.items() if name}
        if any(re.search(rf"\b{re.escape(v)}\b", name) for name in terms
               for v in variables if name != v):
            return None  # a variable inside a term (rowptr(i)): not affine in it
        word = re.compile(r"\b(" + "|".join(map(re.escape, variables)) + r")\b", re.I) \
            if variables else None
        rest = word.sub("0", text) if word else text
        found.append(({v: terms[v] for v in variables if v in terms}, rest))
    return found[0], found[1]


def _symbolic(bound: _Bound, role: str, variables: dict[str, sympy.Symbol],
              ctx: ModelContext, symbols: dict[str, tuple[sympy.Symbol, E.Expr]]
              ) -> sympy.Expr:
    import sympy

    coefficients, rest = bound
    value = ctx.expr(rest, role)  # type: ignore[arg-type]
    term = sympy.Integer(int(value.value)) if isinstance(value, E.Num) and float(
        value.value).is_integer() else _symbol(f"{role}:{rest}", value, symbols)
    return term + sum((coeff * variables[v] for v, coeff in coefficients.items()),
                      sympy.Integer(0))


def _symbol(key: str, value: E.Expr, symbols: dict[str, tuple[sympy.Symbol, E.Expr]]
            ) -> sympy.Symbol:
    import sympy

    if key not in symbols:
        symbols[key] = (sympy.Symbol(f"_s{len(symbols)}"), value)
    return symbols[key][0]


def _to_expr(node: sympy.Expr, values: dict[sympy.Symbol, E.Expr]) -> E.Expr:
    """A polynomial (or a quotient of them) of sympy's as a model expression: a rational
    coefficient ``p/q`` as a product by ``p`` over ``q``, so the workbook reads whole numbers."""
    import sympy

    if node.is_Symbol:
        return values[node]
    if node.is_Rational:
        return E.div(E.Num(int(node.p)), E.Num(int(node.q)))
    if node.is_Add:
        return E.add(*[_to_expr(arg, values) for arg in node.args])
    if node.is_Mul:
        coeff, rest = node.as_coeff_Mul()
        numerator = [_to_expr(arg, values) for arg in sympy.Mul.make_args(rest)
                     if not (arg.is_Pow and arg.exp.is_negative)]
        denominator = [_to_expr(1 / arg, values) for arg in sympy.Mul.make_args(rest)
                       if arg.is_Pow and arg.exp.is_negative]
        product = E.mul(int(sympy.Rational(coeff).p), *numerator)
        over = E.mul(int(sympy.Rational(coeff).q), *denominator)
        return E.div(product, over)
    if isinstance(node, (sympy.Min, sympy.Max)):  # a range clipped for any size
        pick = E.minimum if isinstance(node, sympy.Min) else E.maximum
        return pick(*[_to_expr(arg, values) for arg in node.args])
    if node.is_Pow and node.exp.is_Integer:
        if node.exp > 0:
            return E.mul(*[_to_expr(node.base, values)] * int(node.exp))
        return E.div(1, _to_expr(1 / node, values))
    raise ValueError(f"not a polynomial quotient: {node}")


def stepped_mean_trips(loop: Loop, enclosing: tuple[Loop, ...], ctx: ModelContext
                       ) -> E.Expr | None:
    """The exact mean trip count of a loop stepping by a number other than 1 whose range
    moves with one enclosing loop of step 1 (``do k = 1, j, 2`` in ``do j = 1, n``), or None
    for any other loop.

    Its count ``FLOOR(m/s) + 1`` (``m`` = upper - lower, 0 when negative) is not affine in the
    enclosing variable, so its count at the variable's mean is not its mean.  ``m`` runs
    through consecutive integers as the enclosing loop does (its coefficient there is 1 or
    -1), and ``F(N)``, the counts summed for ``m`` = 0 .. N, has a closed form: with ``q =
    FLOOR(N/s)``, ``F(N) = s q (q+1)/2 + (N - s q + 1)(q + 1)`` (``F(-1) = 0``). The mean is
    ``(F(m_hi) - F(m_lo - 1))`` over the enclosing loop's trips."""
    stride = loop.stride.strip()
    if len(enclosing) != 1 or not re.fullmatch(r"-?\d+", stride) or abs(int(stride)) < 2:
        return None
    outer = enclosing[0]
    if outer.stride.strip() not in ("", "1") or not outer.loopvar or outer.kind == "tile":
        return None
    step = abs(int(stride))
    first, last = (loop.upper, loop.lower) if int(stride) < 0 else (loop.lower, loop.upper)
    form = linear_form(f"({last}) - ({first})")
    if form is None:
        return None
    var = outer.loopvar.lower()
    terms = {name.lower(): coeff for name, coeff in form.items()}
    coeff = terms.pop(var, 0)
    if coeff not in (1, -1) or any(re.search(rf"\b{re.escape(var)}\b", name) for name in terms):
        return None
    rest = " + ".join(f"({c})*({name})" if name else f"({c})" for name, c in terms.items())
    offset = ctx.expr(rest or "0", "upper")
    low, high = ctx.expr(outer.lower, "lower"), ctx.expr(outer.upper, "upper")
    if coeff == 1:
        m_low, m_high = low + offset, high + offset
    else:
        m_low, m_high = offset - high, offset - low

    def summed(n: E.Expr) -> E.Expr:  # F(N), every m below 0 counting nothing
        n = E.maximum(n, -1)
        q = E.func("FLOOR", n / step, 1)
        return E.add(E.mul(step * 0.5, q, q + 1), E.mul(n - E.mul(step, q) + 1, q + 1))

    return (summed(m_high) - summed(m_low - 1)) / E.maximum(1, high - low + 1)
