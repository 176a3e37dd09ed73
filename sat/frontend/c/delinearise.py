"""Linearised indices (``a[i + N*j]``) split into dimensions, outermost first (``a[j][i]``).

C's one-dimensional arrays and pointers, and Fortran's assumed-size arrays (``src(*)``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from pycparser import c_ast

from sat.frontend.c.algebra import extent_text, mentions, to_sympy

# sympy is imported inside the functions (see sat.frontend.c.algebra): affine indices never
# get here.
if TYPE_CHECKING:
    import sympy


def _extent_kind(ratio: sympy.Expr) -> str | None:
    """Whether the ratio of two strides can be the extent of a dimension.

    ``"exact"``: a positive integer above one, or a product of symbols with a positive integer
    factor (``N``, ``2*N*M``): an extent as written. ``"assumed"``: another polynomial in
    symbols that does not look negative (``x_max + 5``, the row length of a C port of a
    Fortran array with ghost cells): taken as an extent, which only the code's author can
    vouch for, so the caller says so. ``None``: not an extent (``m/n``, ``-N``, ``1``).
    """
    import sympy

    if ratio.is_Integer:
        return "exact" if int(ratio) > 1 else None
    numerator, denominator = sympy.fraction(sympy.cancel(ratio))
    if denominator != 1 or not numerator.free_symbols:
        return None
    coeff, rest = numerator.as_coeff_Mul()
    if coeff.is_Integer and coeff > 0 and rest != 1 and all(
            f.is_Symbol or (f.is_Pow and f.base.is_Symbol and f.exp.is_Integer and f.exp > 0)
            for f in sympy.Mul.make_args(rest)):
        return "exact"
    if numerator.is_polynomial(*numerator.free_symbols) \
            and not numerator.could_extract_minus_sign():
        return "assumed"
    return None


def _stride_key(stride: sympy.Expr) -> tuple[int, float]:
    """Order strides from the unit one outwards: by polynomial degree, then by the number.

    ``x_max + 5`` (degree 1) comes before ``(x_max + 5)*(y_max + 5)`` (degree 2) as ``N``
    before ``N*M``.
    """
    import sympy

    degree = 0
    if stride.free_symbols:
        try:
            degree = sympy.Poly(stride, *sorted(stride.free_symbols, key=str)).total_degree()
        except sympy.PolynomialError:
            degree = 0
    coeff = stride.as_coeff_Mul()[0]
    return degree, abs(float(coeff)) if coeff.is_number else 0.0


def _integral(expr: sympy.Expr) -> bool:
    """A polynomial with integer coefficients (``2 - y_min``, ``3``), not ``N/2``."""
    import sympy

    return all(c.is_Integer for c in sympy.expand(expr).as_coefficients_dict().values())


def _by_strides(expr: sympy.Expr, chain: list[sympy.Expr]) -> list[sympy.Expr]:
    """``expr`` as ``sum(parts[d] * chain[d])``; ``chain`` innermost first, ``chain[0] == 1``.

    Symbolic strides divide as polynomials in their own symbols, so ``-x_max - 5`` is ``-1``
    times ``x_max + 5`` and ``(x_max + 5)*(2 - y_min)`` is ``2 - y_min`` times it. Numbers go
    to the outermost numeric stride they reach, rounded to the nearest (``-65`` over strides
    64 and 1 is ``-1`` and ``-1``).
    """
    import sympy

    parts = [sympy.Integer(0)] * len(chain)
    rest = sympy.expand(expr)
    for d in range(len(chain) - 1, 0, -1):
        stride = chain[d]
        quotient = sympy.Integer(0)
        if stride.is_Integer:
            for term in sympy.Add.make_args(rest):
                if term.is_Integer:
                    quotient += int(round(int(term) / int(stride)))
                elif not term.is_number:
                    share = sympy.cancel(term / stride)
                    if sympy.fraction(share)[1] == 1:
                        quotient += share
        elif len(sympy.Add.make_args(stride)) == 1:  # a product (nx*ny): term by term
            for term in sympy.Add.make_args(rest):
                share = sympy.cancel(term / stride)
                if sympy.fraction(share)[1] == 1 and _integral(share):
                    quotient += share
        else:
            try:
                share = sympy.div(rest, stride, *sorted(stride.free_symbols, key=str))[0]
            except (sympy.PolynomialError, TypeError, ValueError):
                share = sympy.Integer(0)
            if _integral(share):
                quotient = share
        parts[d] = sympy.expand(quotient)
        rest = sympy.expand(rest - quotient * stride)
    parts[0] = rest
    return parts


@dataclass
class Split:
    """A linearised index split into dimensions, outermost first (see :func:`delinearise`)."""

    offsets: list  # int, or text when symbolic
    loopvars: list[str]
    extents: list[str]  # of the inner dimensions; "*" for the outermost
    assumed: list[str] = field(default_factory=list)  # extents taken on trust (x_max + 5)
    origin: list[str] = field(default_factory=list)  # per dimension, "" where none


def delinearise(index: sympy.Expr, loopvars: list[str],
                origin_terms: Sequence[sympy.Expr] = ()) -> Split | str:
    """Split a linearised index into dimensions, outermost first, or say why it cannot be.

    Loop variables with the same stride (a tile's origin and element, ``(tj + jj)*66 + ti +
    ii``) share a dimension: the innermost is its variable, the others its offset (``tj``).
    ``index`` holds the loop variables and the whole numbers of the subscript;
    ``origin_terms`` are its parts without loop variables that are not whole numbers
    (``-(x_min - 2)`` in ``(j) - (x_min - 2)``). Such a part is where the array starts, not a
    stencil offset (every access to the array has it), unless it is a whole multiple of a
    stride (``+ nx`` is the next row): it is then added to the offsets.
    """
    import sympy

    symbols = {s.name: s for s in index.free_symbols}
    present = [v for v in reversed(loopvars) if v in symbols]  # innermost first (sort ties)
    strides: dict[sympy.Expr, str] = {}
    rest = sympy.expand(index)
    for var in present:
        sym = symbols[var]
        coefficient = sympy.expand(sympy.diff(index, sym))
        if coefficient.free_symbols & {symbols[v] for v in present}:
            return f"'{var}' is multiplied by a loop variable"
        if coefficient in strides:
            # a tile's origin and its element (tj + jj) in one dimension: the innermost
            # variable is the dimension's, the others stay in its offset (as in a[tj + jj])
            continue
        strides[coefficient] = var
        rest = sympy.expand(rest - coefficient * sym)
    chain = sorted(strides, key=_stride_key)
    if chain[0] != 1:
        chain.insert(0, sympy.Integer(1))
    assumed = []
    for inner, outer in zip(chain, chain[1:], strict=False):
        ratio = sympy.cancel(outer / inner)
        kind = _extent_kind(ratio)
        if kind is None:
            return f"stride {sympy.sstr(outer)} is not a multiple of {sympy.sstr(inner)}"
        if kind == "assumed":
            assumed.append(sympy.sstr(ratio))
    origin = sympy.Integer(0)
    for term in origin_terms:
        if any(sympy.cancel(term / stride).is_Integer for stride in chain):
            rest += term
        else:
            origin += term
    offsets = _by_strides(rest, chain)
    if any(not _integral(part) for part in offsets):
        return "its constant part is not a whole number of elements"
    origins = _by_strides(origin, chain)
    extents = ["*"] + [extent_text(sympy.cancel(chain[d + 1] / chain[d]))
                       for d in range(len(chain) - 2, -1, -1)]
    ordered = list(reversed(range(len(chain))))
    return Split([int(offsets[d]) if offsets[d].is_Integer else sympy.sstr(offsets[d])
                  for d in ordered],
                 [strides.get(chain[d], "") for d in ordered], extents, assumed,
                 [sympy.sstr(origins[d]) if origins[d] != 0 else "" for d in ordered])


def split_note(name: str, split: Split) -> str:
    """What splitting a linearised index assumed, said once per array."""
    dims = "".join(f"[{var or offset}]" for var, offset in zip(split.loopvars, split.offsets,
                                                               strict=True))
    assumptions = []
    if split.assumed:
        lengths = ", ".join(split.assumed)
        assumptions.append(f"that {lengths} {'is' if len(split.assumed) == 1 else 'are'} the "
                           f"extent{'s' if len(split.assumed) > 1 else ''} of its inner "
                           f"dimension{'s' if len(split.assumed) > 1 else ''}")
    if any(split.origin):
        origin = ", ".join(part or "0" for part in split.origin)
        assumptions.append(f"that its part without loop variables ({origin}) is where the "
                           "array starts, not a stencil offset")
    return (f"linearised index of '{name}' read as {name}{dims}, assuming "
            f"{' and '.join(assumptions)} (said once per array)")


def index_parts(node: c_ast.Node, loopvars: Sequence[str]) -> tuple[sympy.Expr,
                                                                    list[sympy.Expr]]:
    """A subscript as its part in loop variables and whole numbers, and its origin terms.

    The origin terms are the largest sub-expressions without a loop variable whose value is
    not a number, with the factors that multiply them: in ``(x_max+5)*((k)-(y_min-2)) +
    (j+1)-(x_min-2)`` they are ``-(x_max+5)*(y_min-2)`` and ``-(x_min-2)``, and the rest is
    ``(x_max+5)*k + j + 1``. The grouping is the source's (a macro's parentheses), so the
    ``2`` of ``x_min-2`` stays with ``x_min`` and the ``+1`` of ``j+1`` is a stencil offset.
    Raises :class:`NotAffine` when the subscript is not arithmetic.
    """
    import sympy

    if not any(mentions(node, var) for var in loopvars):
        value = to_sympy(node)
        return (value, []) if value.is_number else (sympy.Integer(0), [value])
    if isinstance(node, c_ast.BinaryOp) and node.op in ("+", "-"):
        left, left_origin = index_parts(node.left, loopvars)
        right, right_origin = index_parts(node.right, loopvars)
        sign = 1 if node.op == "+" else -1
        return left + sign * right, left_origin + [sign * t for t in right_origin]
    if isinstance(node, c_ast.BinaryOp) and node.op == "*":
        for factor, other in ((node.left, node.right), (node.right, node.left)):
            if not any(mentions(factor, var) for var in loopvars):
                scale = to_sympy(factor)
                inner, origin = index_parts(other, loopvars)
                return scale * inner, [scale * t for t in origin]
    if isinstance(node, c_ast.UnaryOp) and node.op in ("-", "+"):
        inner, origin = index_parts(node.expr, loopvars)
        return (-inner, [-t for t in origin]) if node.op == "-" else (inner, origin)
    if isinstance(node, c_ast.Cast):
        return index_parts(node.expr, loopvars)
    return to_sympy(node), []


def declared_extents(declared: str, split: Split) -> list[str] | None:
    """The extents of a one-dimensional array of ``declared`` elements read through a split
    index (``double a[2240]`` read as ``a[IX(i, j, k)]``, ``IX = (i*16 + j)*14 + k``): the
    split's inner extents and the outermost one they leave (2240 / (16*14) = 10), so that
    its rows have the length the index gives them. None when the split took an extent on
    trust, left an origin out, or the declared extent is no whole multiple of its rows."""
    import sympy

    if len(split.extents) < 2 or split.assumed or any(split.origin) or declared == "*":
        return None
    try:
        total = sympy.sympify(declared)
        inner = sympy.Mul(*(sympy.sympify(extent) for extent in split.extents[1:]))
    except (sympy.SympifyError, TypeError, ValueError):
        return None
    outer = sympy.cancel(total / inner)
    if not _integral(outer) or sympy.fraction(outer)[1] != 1 \
            or (outer.is_number and not outer.is_positive):
        return None
    return [extent_text(outer), *split.extents[1:]]
