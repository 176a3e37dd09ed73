"""What a subscript is (:class:`sat.ir.Subscript`), the part both front ends share.

A front end hands over a subscript's value with its array-like parts as placeholder symbols
(a :class:`~sat.frontend.affine.Linear` or :class:`~sat.frontend.affine.Affine` form, sympy, or
None when it is not arithmetic) and says what each of those parts is (a :class:`Part`: an
index array's element, a function result, a pointer dereference, or a scalar whose value the
front end followed); :func:`decide` says which kind of subscript it is:

- a function result or a pointer that depends on a loop variable makes it ``irregular``;
- an index array's element chosen by a loop variable makes it ``indirect`` (``x(col(k))``),
  with the ``run`` variable of a contiguous run it starts (``x(start(ib)+k)``: ``k``);
- otherwise a loop variable makes it ``induction``, with the coefficient of the innermost
  one and the rest as the offset (``a(2*i+1)``: var ``i``, coeff 2, offset 1); a coefficient
  that holds a loop variable (``a(i*j)``) is ``irregular``;
- anything else is ``invariant`` (``a(n)``, ``a(idx(1))``: an index array at a fixed place).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from sat.frontend.affine import Affine, Linear
from sat.ir import Subscript


@dataclass(frozen=True)
class Part:
    """An array-like part of a subscript.

    ``kind``: ``array`` (an element of the index array ``name``), ``call`` (the result of the
    function ``name``), ``pointer`` (a dereference) or ``value`` (a scalar whose value the
    front end followed; ``sub`` is what that value is). ``vars``: the loop variables the part
    depends on, outermost first.
    """

    kind: str
    name: str
    vars: tuple[str, ...] = ()
    sub: Subscript | None = None


def mentions(text: str, name: str) -> bool:
    """Whether ``name`` occurs in ``text`` as a whole word."""
    return re.search(r"(?<![\w%.>])" + re.escape(name) + r"(?!\w)", text) is not None


def mentioned(text: str, loopvars: tuple[str, ...]) -> tuple[str, ...]:
    """The loop variables ``text`` mentions, outermost first."""
    return tuple(var for var in loopvars if mentions(text, var))


def decide(value: Any, parts: list[Part], loopvars: tuple[str, ...], text: str) -> Subscript:
    """The kind of a subscript (see the module docstring). ``loopvars``: the active loop
    variables, outermost first."""
    for part in parts:
        if part.kind == "pointer" or (part.kind == "call" and part.vars):
            return Subscript("irregular", text=text)
        if part.kind == "value" and part.sub is not None and part.sub.kind in ("irregular",
                                                                              "induction"):
            # a followed value in a loop variable that the expression does not keep linear
            return Subscript("irregular", text=text)
    order = {var: at for at, var in enumerate(loopvars)}
    indirect = []
    for part in parts:
        if part.kind == "array" and part.vars:
            indirect.append((order.get(part.vars[-1], -1), part.vars[-1], part.name))
        elif part.kind == "value" and part.sub is not None and part.sub.kind == "indirect":
            indirect.append((order.get(part.sub.var, -1), part.sub.var, part.sub.index))
    if indirect:
        at, var, index = max(indirect, key=lambda item: item[0])
        return Subscript("indirect", var=var, index=index, text=text,
                         run=_run(value, loopvars[at + 1:], loopvars) if at >= 0 else "")
    fixed_index = next((p.name for p in parts if p.kind == "array"), "") or next(
        (p.sub.index for p in parts if p.kind == "value" and p.sub is not None
         and p.sub.index), "")
    if value is None:  # not arithmetic: analysable only when it has no loop variable
        if mentioned(text, loopvars):
            return Subscript("irregular", text=text)
        return Subscript("invariant", index=fixed_index, text=text)
    names = _names(value)
    present = [var for var in loopvars if var in names]
    if not present:
        # a constant written as an expression is its value: z[3-1] selects the plane z[2]
        constant = _whole_number(value) if not parts else None
        return Subscript("invariant", index=fixed_index,
                         text=text if constant is None else str(constant))
    var = present[-1]
    split = _split(value, var, loopvars)
    if split is None:
        return Subscript("irregular", text=text)
    coeff, offset = split
    return Subscript("induction", var=var, coeff=coeff, offset=offset, text=text)


def is_whole_number(text: str) -> bool:
    """Whether a subscript's text is a whole number (``2``, ``-1``): a fixed place."""
    return re.fullmatch(r"-?\d+", text) is not None


def _whole_number(value: Any) -> int | None:
    """The value of a constant subscript when it is a whole number (else None)."""
    if isinstance(value, Linear | Affine):
        return value.const if value.is_constant and isinstance(value.const, int) else None
    return int(value) if getattr(value, "is_Integer", False) else None


def _run(value: Any, inner: tuple[str, ...], loopvars: tuple[str, ...]) -> str:
    """The innermost of the ``inner`` loop variables that moves ``value`` by one element per
    step (``start(ib) + k - 1``: ``k``), or "": the index picks the start of a contiguous run."""
    if value is None:
        return ""
    names = _names(value)
    for var in reversed(inner):
        if var in names:
            split = _split(value, var, loopvars)
            return var if split is not None and split[0] in (1, -1) else ""
    return ""


def _names(value: Any) -> set[str]:
    if isinstance(value, Linear):
        return value.names
    if isinstance(value, Affine):
        return {value.name} if value.name else set()
    return {s.name for s in value.free_symbols}


def _split(value: Any, var: str, loopvars: tuple[str, ...]
           ) -> tuple[int | str, int | str] | None:
    """``value`` as ``coeff*var + offset``; None when ``coeff`` holds a loop variable."""
    if isinstance(value, Linear):
        coeff = dict(value.terms)[var]
        rest = value - Linear(((var, coeff),), 0)
        return coeff, (rest.const if rest.is_constant else rest.text())
    if isinstance(value, Affine):
        return value.coeff, value.const
    import sympy

    symbol = sympy.Symbol(var)
    coeff = sympy.expand(sympy.diff(value, symbol))
    if any(s.name in loopvars for s in coeff.free_symbols):
        return None
    rest = sympy.expand(value - coeff * symbol)
    return (int(coeff) if coeff.is_Integer else sympy.sstr(coeff),
            int(rest) if rest.is_Integer else sympy.sstr(rest))
