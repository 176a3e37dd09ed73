"""Sanity checks on an evaluated model: values that make no sense for the parameters given."""

from __future__ import annotations

import math
from collections.abc import Iterator

from sat.model.expr import Env, Param, Quantity, Ref, children
from sat.model.tables import CellValue, ModelResult

_AXES = ("x", "y", "z")


def _problem_parameters(quantity: Quantity, result: ModelResult) -> list[str]:
    """Names of the problem parameters an expression depends on (for the message)."""
    found: list[str] = []
    stack = [quantity.expr]
    problem = {p.name for p in result.parameters if p.group == "problem"}
    while stack:
        node = stack.pop()
        if isinstance(node, Param):
            if node.name in problem and node.name not in found:
                found.append(node.name)
        elif isinstance(node, Ref):
            stack.append(node.quantity.expr)
        else:
            stack.extend(children(node))
    return sorted(found)


def empty_nests(result: ModelResult, env: Env | None = None) -> list[tuple[str, str, int]]:
    """(message, file, line) for each nest that runs no iteration under the parameters: it is
    shown with zero work, and the message names the parameters its bounds depend on."""
    env = env or result.env()
    found = []
    loops = result.tables.get("Loops")
    for row in loops.rows if loops else []:
        for name, what in (*((f"iter_{a}", f"iterations along {a.upper()}") for a in _AXES),
                           ("sweeps", "sweeps")):
            count = row.get(name)
            if isinstance(count, Quantity) and count.value(env) <= 0:
                names = ", ".join(_problem_parameters(count, result)) or "constant bounds"
                found.append((f"the nest of {row.get('procedure')} runs no iteration: "
                              f"0 {what} (bounds depend on: {names}); shown with zero work",
                              str(row.get("file") or row.get("procedure") or ""),
                              int(row.get("line") or 0)))
                break
    return found


def stencil_blocks(result: ModelResult
                   ) -> Iterator[tuple[dict[str, CellValue], str, Quantity, int]]:
    """(Arrays row, axis, the nest's block along it, the stencil's span along it) for every
    array-component and axis Y, Z with a stencil: footprints are exact only for blocks at
    least as wide as the stencil (an empty nest's block, 0, is reported by empty_nests())."""
    loops, arrays = result.tables.get("Loops"), result.tables.get("Arrays")
    nests = {(r.get("procedure"), r.get("line")): r for r in (loops.rows if loops else [])}
    for row in arrays.rows if arrays else []:
        nest = nests.get((row.get("procedure"), row.get("line")))
        if nest is None:
            continue
        for axis in ("y", "z"):
            block, span = nest.get(f"block_{axis}"), row.get(f"span_{axis}")
            if isinstance(block, Quantity) and isinstance(span, int) and span > 0:
                yield row, axis, block, span


def _narrow_blocks(result: ModelResult, env: Env, whole: bool) -> list[tuple[str, str, int]]:
    """(message, file, line) per array and axis whose block is narrower than its stencil:
    ``whole`` those whose block is the nest's whole extent (a tiny problem), else those a
    block size made narrower."""
    loops = result.tables.get("Loops")
    nests = {(r.get("procedure"), r.get("line")): r for r in (loops.rows if loops else [])}
    found = []
    for row, axis, block, span in stencil_blocks(result):
        size = block.value(env)
        if not 0 < size < span:
            continue
        extent = nests[(row.get("procedure"), row.get("line"))].get(f"iter_{axis}")
        if whole != (isinstance(extent, Quantity) and extent.value(env) <= size):
            continue
        what = "extent" if whole else "block"
        advice = ("a problem this small is fine, its working sets are approximate" if whole
                  else "its footprint is approximate: give a larger block")
        found.append((f"{row.get('array')}: the {what} along {axis.upper()} ({size:g}) is "
                      f"narrower than the stencil ({span}); {advice}",
                      str(row.get("file") or row.get("procedure") or ""),
                      int(row.get("line") or 0)))
    return found


def tiny_extents(result: ModelResult, env: Env | None = None) -> list[tuple[str, str, int]]:
    """(message, file, line) for nests whose whole extent along Y or Z is narrower than an
    array's stencil (a tiny problem such as N = 3): warnings, the model still holds."""
    return _narrow_blocks(result, env or result.env(), whole=True)


def narrow_blocks(result: ModelResult, env: Env | None = None) -> list[tuple[str, str, int]]:
    """(message, file, line) for blocks narrower than an array's stencil where the nest is
    wider than the block: an error when the user chose the block, a warning for a default."""
    return _narrow_blocks(result, env or result.env(), whole=False)


def check(result: ModelResult, env: Env | None = None, blocks_given: bool = True) -> list[str]:
    """Errors (``file:line: message``) for evaluated values that make no sense; a block
    narrower than a stencil is one only when ``blocks_given`` (the user chose the blocks)."""
    env = env or result.env()
    errors: list[str] = [f"{file}:{line}: {message}" for message, file, line
                         in (narrow_blocks(result, env) if blocks_given else [])]
    errors.extend(overflows(result, env))
    for name, quantity in result.totals.items():
        value = quantity.value(env)
        if value < 0:
            errors.append(f"total {name} is {value:g}")
    return errors


def overflows(result: ModelResult, env: Env) -> list[str]:
    """Errors for totals beyond a double (or undefined, ``inf - inf``): each at the first row
    (a nest, a kernel) with a quantity that is, named, else the total alone."""
    errors = []
    for total, quantity in result.totals.items():
        value = quantity.value(env)
        if math.isfinite(value):
            continue
        errors.append(f"total {total} is {value:g}: beyond the range of a double; give "
                      "smaller parameter values")
        for row in (row for table in result.tables.values() for row in table.rows):
            bad = next((key for key, cell in row.items() if isinstance(cell, Quantity)
                        and not math.isfinite(cell.value(env))), None)
            if bad is not None and row.get("line"):
                what = f"kernel {row['kernel']}" if row.get("kernel") else "the nest"
                errors[-1] = (f"{row.get('file') or row.get('procedure')}:{row['line']}: {bad} "
                              f"of {what} is {row[bad].value(env):g}, beyond the range of a "
                              f"double, and total {total} is {value:g}; give smaller "
                              "parameter values")
                break
    return errors
