"""Named constants across a program: one parameter per name, or the value written in.

The model turns each symbol of a loop bound or an array extent into one parameter of the
whole workbook, named after the symbol. A named constant that has the same value wherever it
is used becomes such a parameter (with that value; ``--set`` can still change it). When two
procedures give the same name different values (``n = 1000`` here, ``n = 64`` there), one
parameter cannot stand for both: each procedure gets its own value written into its bounds
and extents, and a warning says so.
"""

from __future__ import annotations

import re

from sat import ir


def settle_constants(procedures: list[ir.Procedure]) -> list[ir.Diagnostic]:
    """Write conflicting named constants into the procedures' texts; one warning per name."""
    by_name: dict[str, dict[float, list[tuple[ir.Procedure, ir.Constant]]]] = {}
    for proc in procedures:
        for constant in proc.constants:
            by_name.setdefault(constant.name, {}).setdefault(constant.value, []).append(
                (proc, constant))
    warnings = []
    for name, by_value in by_name.items():
        if len(by_value) < 2:
            continue
        places = "; ".join(f"{_literal(value)} in '{uses[0][0].name}'"
                           + (f" and {len(uses) - 1} more" if len(uses) > 1 else "")
                           for value, uses in by_value.items())
        first = next(iter(by_value.values()))[0][1]
        warnings.append(ir.Diagnostic(
            f"named constant '{name}' has different values in different procedures "
            f"({places}): each procedure's bounds use its own value, not a parameter",
            first.file, first.line))
        for value, uses in by_value.items():
            for proc, _ in uses:
                _write_value(proc, name, value)
    return warnings


def _literal(value: float) -> str:
    text = str(int(value)) if float(value).is_integer() else repr(float(value))
    return f"({text})" if value < 0 else text


def _write_value(proc: ir.Procedure, name: str, value: float) -> None:
    pattern = re.compile(rf"(?<![\w.]){re.escape(name)}(?![\w(])", re.IGNORECASE)
    literal = _literal(value)

    def put(text: str) -> str:
        return pattern.sub(literal, text)

    for loop in proc.all_loops():
        loop.lower, loop.upper, loop.stride = put(loop.lower), put(loop.upper), put(loop.stride)
    for var in (*proc.locals, *proc.nonlocals):
        var.shape = tuple(put(text) for text in var.shape)
    for body in (proc, *proc.all_loops()):
        for array in body.arrays:
            for access in array.accesses:
                access.offsets = tuple(
                    _number_or_text(put(o)) if isinstance(o, str) else o for o in access.offsets)
    proc.constants = [c for c in proc.constants if c.name != name]


def _number_or_text(text: str) -> int | str:
    try:
        return int(text)
    except ValueError:
        return text
