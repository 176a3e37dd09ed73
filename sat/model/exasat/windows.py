"""Stencil windows written as loops: ``a(i, j+jj+1)`` inside ``do jj = -r, r`` (``r`` a constant).

A subscript that adds the variable ``u`` of a short loop of constant range to the variable
``v`` of a loop around it (``v + u + c``) reads along ``v``'s axis at the offsets
``c + lo(u) … c + hi(u)``: the stencil's reach, the same as the array section
``a(i, j-1:j+3)`` (see :func:`sat.model.exasat.loop_axes.sweeping_loops`).  The front ends record
such a subscript with ``u`` as its loop variable and ``v + c`` as its offset; this module
rewrites it into one access per offset along ``v``, so that ``u`` is no axis of the grid but a
loop over the window (its trips still multiply the flops of its body).

A range that is not constant (``do jj = -m, m`` with ``m`` read at run time) is left alone:
the loop keeps being taken as a dimension of its own, which a note says.
"""

from __future__ import annotations

import itertools
import re

from sat.ir import Access, Loop, Procedure
from sat.regex import LazyPattern

# The longest window taken as a stencil's reach: radius 8 either side of the point.  A longer
# constant loop added to an outer variable is more likely a blocked loop than a reach.
WINDOW_TRIPS = 17

# ``v``, ``v + 3``, ``-hs + v - 1``: the offset text the front ends write for ``v + u + c``,
# a sum of names and integers
_SUM = LazyPattern(r"^\s*[+-]?\s*(?:[A-Za-z_]\w*|\d+)(?:\s*[+-]\s*(?:[A-Za-z_]\w*|\d+))*\s*$")
_TERM = LazyPattern(r"([+-]?)\s*([A-Za-z_]\w*|\d+)")
_ARITHMETIC = LazyPattern(r"^[\d\s+\-*()]+$")


def program_constants(procedures: list[Procedure], known: dict[str, float]
                      ) -> dict[str, float]:
    """Named constants of a program with one value wherever they are declared (a module's
    ``hs = 2`` seen from the procedures that use it); ``known``: the code's constants the
    model was given, which count too."""
    values: dict[str, set[float]] = {name: {value} for name, value in known.items()}
    for procedure in procedures:
        for c in procedure.constants:
            if not c.expression and c.value == c.value:
                values.setdefault(c.name.lower(), set()).add(c.value)
    return {name: next(iter(found)) for name, found in values.items() if len(found) == 1}


def constant_range(loop: Loop, constants: dict[str, float]) -> tuple[int, int] | None:
    """First and last values of a stride-1 loop whose bounds are integers once the named
    constants are written as their values (``-r, r`` with ``r = 2``: ``(-2, 2)``)."""
    bounds = []
    for text in (loop.lower, loop.upper):
        for name, value in constants.items():
            if float(value).is_integer():
                text = re.sub(rf"\b{re.escape(name)}\b", str(int(value)), text, flags=re.I)
        if not _ARITHMETIC.match(text):
            return None
        try:  # only digits, blanks, + - * and parentheses: integer arithmetic
            bounds.append(int(eval(text, {"__builtins__": {}}, {})))  # noqa: S307
        except (SyntaxError, ValueError, TypeError):
            return None
    if loop.stride.strip() != "1" or loop.kind != "do" or loop.sized:
        return None
    return (bounds[0], bounds[1]) if bounds[1] >= bounds[0] else None


def _outer(offset: int | str, enclosing: set[str], constants: dict[str, float]
           ) -> tuple[str, int] | None:
    """``(v, c)`` of an offset ``v + c`` whose ``v`` is the variable of an enclosing loop and
    ``c`` an integer, named constants counted (``-hs + i - 1`` with ``hs = 2``: ``i``, -3)."""
    if not isinstance(offset, str) or not _SUM.match(offset):
        return None
    var, c = None, 0
    for sign, term in _TERM.findall(offset):
        name = term.lower()
        value = constants.get(name)
        if term.isdigit() or (value is not None and float(value).is_integer()):
            c += (-1 if sign == "-" else 1) * int(term if term.isdigit() else value)
        elif name in enclosing and var is None and sign != "-":
            var = name
        else:
            return None
    return (var, c) if var is not None else None


def window_loops(loops: list[Loop], accesses: list, constants: dict[str, float]
                 ) -> tuple[dict[str, tuple[int, int]], list[str]]:
    """The window loops of a nest (variable -> first and last value) and notes on loops that
    add to an outer variable over a range that is not constant."""
    by_var = {lp.loopvar.lower(): lp for lp in loops if lp.loopvar}
    added: set[str] = set()  # variables added to an outer loop's variable in a subscript
    other: set[str] = set()  # variables used otherwise alongside another loop variable
    for _, access, chain in accesses:
        lowered = [v.lower() for v in access.loopvars]
        enclosing = {lp.loopvar.lower() for lp in chain if lp.loopvar}
        for d, u in enumerate(lowered):
            if not u or u not in by_var:
                continue
            outer = _outer(access.offsets[d], enclosing - {u}, constants)
            if outer is not None and _encloses(by_var.get(outer[0]), by_var[u]):
                added.add(u)
            elif any(v and v != u for v in lowered):
                other.add(u)
    windows: dict[str, tuple[int, int]] = {}
    notes = []
    for u in sorted(added - other):
        loop = by_var[u]
        bounds = constant_range(loop, constants)
        if bounds is not None and bounds[1] - bounds[0] + 1 <= WINDOW_TRIPS:
            windows[u] = bounds
        else:
            notes.append(f"loop {loop.loopvar} (line {loop.line}) is added to an outer loop's "
                         f"variable in a subscript, but its range {loop.lower} .. {loop.upper} "
                         f"is not a constant of at most {WINDOW_TRIPS} values: taken as a "
                         "dimension of its own, not as a stencil's reach")
    return windows, notes


def _encloses(outer: Loop | None, inner: Loop) -> bool:
    return outer is not None and any(lp is inner for lp in outer.all_loops())


def windowed(accesses: list, windows: dict[str, tuple[int, int]],
             constants: dict[str, float]) -> list:
    """``accesses`` with each subscript ``v + u + c`` of a window loop ``u`` spread into one
    access per offset of the window along ``v``."""
    if not windows:
        return accesses
    out = []
    for array, access, chain in accesses:
        enclosing = {lp.loopvar.lower() for lp in chain if lp.loopvar}
        spread: list[list[tuple[str, int | str]]] = []
        for d, var in enumerate(access.loopvars):
            u = var.lower()
            outer = (_outer(access.offsets[d], enclosing - {u}, constants) if u in windows
                     else None)
            if outer is None:
                spread.append([(var, access.offsets[d])])
                continue
            v, c = outer
            lo, hi = windows[u]
            spread.append([(v, c + k) for k in range(lo, hi + 1)])
        if all(len(options) == 1 for options in spread):
            out.append((array, access, chain))
            continue
        for choice in itertools.product(*spread):
            out.append((array, Access(tuple(o for _, o in choice), tuple(v for v, _ in choice),
                                      access.reads, access.writes, (), access.line), chain))
    return out
