"""The C front end: preprocess with the system C preprocessor, parse with pycparser, fill sat.ir.

- Preprocessing runs ``gcc -E -nostdinc`` (or ``cpp``) with satreport's stub system headers
  (``sat/data/c_include``: ``<math.h>``, ``<stdio.h>``, …) first on the include path, so that
  ``#include <math.h>`` works on any machine, and keeps the line markers: every line number in
  the IR and in diagnostics refers to the original file. A header that cannot be found is
  treated as empty (with a warning) rather than stopping the run.
- Whole files give one procedure per function definition. A *kernel fragment* (statements and
  declarations at file scope, as Kerncraft accepts them) is wrapped in a function before
  parsing and becomes one procedure named after the file stem; its file-scope variables are
  its nonlocals.
- Every procedure has ``layout="row-major"``: the last subscript of ``a[k][j][i]`` is the
  unit-stride one. The counting rules are those of the Fortran front end (see
  :mod:`sat.frontend.c.analyser`).

Modules, each importing only modules after it in this list:

- ``preprocessor``: the run of the C preprocessor with the stub headers.
- ``analyser``: the counting rules; a walk per function, made of the mixins below.
- ``statements``: declarations, statements and loops.
- ``accesses``: array, pointer and member accesses (with ``delinearise`` and ``offsets``).
- ``index_functions``: small pure functions computing an index, inlined into subscripts.
- ``delinearise``: linearised indices split into dimensions.
- ``offsets``: one subscript as an offset on a loop variable.
- ``choices``: subscripts chosen at run time.
- ``expressions``: the flops, reads and calls of expressions.
- ``walk``: the state the mixins share.
- ``file_scope``, ``symbols``: the file's names and their types.
- ``for_loops``: for-loop headers as Fortran-style bounds.
- ``algebra``: expressions as numbers, affine forms, sympy and text.
- ``parser``, ``syntax_errors``: parsing, and syntax errors a user can act on.
- ``errors``: :class:`CSourceError`.
"""

from __future__ import annotations

import os
from collections.abc import Sequence

from sat import ir
from sat.frontend.bodies import run_with_deep_stack
from sat.frontend.c.analyser import analyse_translation_unit
from sat.frontend.c.errors import CSourceError
from sat.frontend.c.parser import parse
from sat.frontend.c.preprocessor import STUB_INCLUDE_DIR, preprocess

__all__ = ["CSourceError", "STUB_INCLUDE_DIR", "read_c"]


def read_c(path: str, defines: Sequence[str] = (),
           include_dirs: Sequence[str] = ()) -> ir.Program:
    """Read one C source (whole file or kernel fragment) into a :class:`sat.ir.Program`.

    Raises :class:`CSourceError` when nothing of the file can be analysed (unreadable,
    preprocessor error, syntax error); anything analysable comes back with warnings.
    """
    return run_with_deep_stack(lambda: _read_c(path, defines, include_dirs), "satreport-c")


def _read_c(path: str, defines: Sequence[str], include_dirs: Sequence[str]) -> ir.Program:
    if not os.path.isfile(path):
        raise CSourceError("cannot read file: no such file", path)
    warnings: list[ir.Diagnostic] = []
    text = preprocess(path, defines, include_dirs, warnings)
    unit, fragment = parse(path, text)
    stem = os.path.splitext(os.path.basename(path))[0]
    procedures = analyse_translation_unit(unit, path, stem if fragment else None,
                                          STUB_INCLUDE_DIR, warnings)
    warnings.extend(_case_collisions(procedures, path))
    if not any(True for p in procedures for _ in p.all_loops()):
        warnings.append(ir.Diagnostic("no loops found in this file", path))
    return ir.Program(procedures=procedures, sources=[path], warnings=warnings)


def _case_collisions(procedures: list[ir.Procedure], path: str) -> list[ir.Diagnostic]:
    """A warning per group of a procedure's names that differ only in case (``N`` and ``n``).

    C tells them apart, but satreport's parameters do not (their names are those of the
    workbook, where case does not count): a snippet's undeclared sizes ``N`` and ``n`` would
    both be set by ``--set N=...``, silently.
    """
    found: list[ir.Diagnostic] = []
    for procedure in procedures:
        names: dict[str, set[str]] = {}
        variables = [*procedure.nonlocals, *procedure.locals]
        for body in (procedure, *procedure.all_loops()):
            variables += [*body.scalars, *body.arrays]
        for variable in variables:
            names.setdefault(variable.name.lower(), set()).add(variable.name)
        for group in sorted(sorted(g) for g in names.values() if len(g) > 1):
            listed = " and ".join(f"'{name}'" for name in group)
            found.append(ir.Diagnostic(
                f"{listed} differ only in case: satreport's parameters ignore case, so they "
                "are one parameter (rename one of them)", procedure.file or path,
                procedure.line))
    return found
