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
from sat.regex import LazyPattern

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


def pass_constants(procedures: list[ir.Procedure]) -> None:
    """Give a dummy argument the constant every call of the program passes it.

    ``call kernel_gemm(NI, NJ, NK, ...)`` at the top of a main program (``NI`` a ``#define``
    or a named constant) runs the callee's nests with ``ni = 4000``; only calls inside a loop
    nest were written into the calling nest with their actual arguments
    (:mod:`sat.model.calls`), so the callee's own nests defaulted ``ni``. A dummy scalar that
    the callee never assigns and that every call passes the same number (a literal, a named
    constant of the caller, or a constant the caller was itself passed) becomes a constant of
    the callee (``kind="argument"``, at the first call). Procedures that nobody calls, or
    that calls give different values, keep their dummies as problem parameters.
    """
    by_name = {p.name.lower(): p for p in procedures}
    sites: dict[str, list[tuple[ir.Procedure, ir.Call]]] = {}
    for caller in procedures:
        for body in caller.levels():
            for call in body.calls:
                if call.name.lower() in by_name:
                    sites.setdefault(call.name.lower(), []).append((caller, call))
    changed = True
    while changed:  # a constant passed on: main -> solve -> sweep
        changed = False
        for name, calls in sites.items():
            callee = by_name[name]
            fixed = {c.name.lower() for c in callee.constants}
            written = {s.name.lower() for body in callee.levels() for s in body.scalars
                       if s.writes}
            for dummy in (d.lower() for d in callee.dummies):
                if dummy in fixed or dummy in written:
                    continue
                values = {_passed_value(caller, callee.actuals(call).get(dummy, ""))
                          for caller, call in calls}
                value = values.pop() if len(values) == 1 else None
                if value is not None:
                    caller, call = calls[0]
                    callee.constants.append(ir.Constant(dummy, value, caller.file, call.line,
                                                        "argument"))
                    changed = True


_NUMBER = LazyPattern(r"^\s*([-+]?(?:\d+\.?\d*|\.\d+)(?:[eEdD][-+]?\d+)?)(?:_\w+)?\s*$")


def _passed_value(caller: ir.Procedure, text: str) -> float | None:
    """The number an actual argument is: a literal or a constant of the caller (else None)."""
    number = _NUMBER.match(text)
    if number:
        return float(number.group(1).replace("d", "e").replace("D", "e"))
    name = text.strip().lower()
    constant = next((c for c in caller.constants if c.name.lower() == name), None)
    if constant is None or constant.expression or constant.value != constant.value:
        return None
    return constant.value


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
