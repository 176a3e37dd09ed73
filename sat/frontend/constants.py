"""Named constants across a program: one parameter per name and value.

The model turns each symbol of a loop bound or an array extent into one parameter of the
whole workbook, named after the symbol. A named constant that has the same value wherever it
is used becomes such a parameter (with that value; ``--set`` can still change it). When two
procedures give the same name different values (``n = 1000`` here, ``n = 64`` there), or
another procedure uses the name as a variable (a dummy size ``n``), one parameter cannot stand
for both: the constant of each procedure is renamed ``name_procedure`` in its bounds and
extents (a parameter of its own, with its value), and conflicting values get a warning.
"""

from __future__ import annotations

import re

from sat import ir

_NAME = re.compile(r"(?<![\w.])([A-Za-z_]\w*)(?![\w(])")


def settle_constants(procedures: list[ir.Procedure]) -> list[ir.Diagnostic]:
    """Rename constants that cannot share one parameter; one warning per conflicting name."""
    by_name: dict[str, dict[float, list[tuple[ir.Procedure, ir.Constant]]]] = {}
    for proc in procedures:
        for constant in proc.constants:
            by_name.setdefault(constant.name, {}).setdefault(constant.value, []).append(
                (proc, constant))
    warnings = []
    for name, by_value in by_name.items():
        holders = {id(proc) for uses in by_value.values() for proc, _ in uses}
        shared = any(id(p) not in holders and name in symbols_used(p) for p in procedures)
        if len(by_value) < 2 and not shared:
            continue
        if len(by_value) > 1:
            places = "; ".join(f"{_literal(value)} in '{uses[0][0].name}'"
                               + (f" and {len(uses) - 1} more" if len(uses) > 1 else "")
                               for value, uses in by_value.items())
            first = next(iter(by_value.values()))[0][1]
            warnings.append(ir.Diagnostic(
                f"named constant '{name}' has different values in different procedures "
                f"({places}): each procedure's bounds use a parameter of its own, "
                f"'{name}_<procedure>'", first.file, first.line))
        for uses in by_value.values():
            for proc, _ in uses:
                _rename(proc, name, f"{name}_{proc.name.lower()}")
    return warnings


def symbols_used(proc: ir.Procedure) -> set[str]:
    """Names (lower case, not array references) used in the procedure's bounds, extents,
    symbolic offsets and call arguments: where the model looks for problem symbols (a callee's
    dummy takes the actual argument's value)."""
    return {name.lower() for text in _texts(proc) for name in _NAME.findall(text)}


def _texts(proc: ir.Procedure) -> list[str]:
    texts = [t for loop in proc.all_loops() for t in (loop.lower, loop.upper, loop.stride)]
    texts += [t for var in (*proc.locals, *proc.nonlocals) for t in var.shape]
    texts += [o for body in (proc, *proc.all_loops()) for array in body.arrays
              for access in array.accesses for o in access.offsets if isinstance(o, str)]
    texts += [arg for body in proc.levels() for call in body.calls for arg in call.args]
    return texts


def _literal(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else repr(float(value))


def _rename(proc: ir.Procedure, name: str, new_name: str) -> None:
    pattern = re.compile(rf"(?<![\w.]){re.escape(name)}(?![\w(])", re.IGNORECASE)

    def put(text: str) -> str:
        return pattern.sub(new_name, text)

    for loop in proc.all_loops():
        loop.lower, loop.upper, loop.stride = put(loop.lower), put(loop.upper), put(loop.stride)
    for var in (*proc.locals, *proc.nonlocals):
        var.shape = tuple(put(text) for text in var.shape)
    for body in (proc, *proc.all_loops()):
        for array in body.arrays:
            for access in array.accesses:
                access.offsets = tuple(put(o) if isinstance(o, str) else o
                                       for o in access.offsets)
    for body in proc.levels():
        for call in body.calls:
            call.args = [put(arg) for arg in call.args]
    for constant in proc.constants:
        if constant.name == name:
            constant.name = new_name
