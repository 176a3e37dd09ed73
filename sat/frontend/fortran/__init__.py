"""The Fortran front end: fparser parse trees -> :mod:`sat.ir`.

Counting rules (the contract with the model, tested in ``tests/test_fortran_*.py``):

- Flops are counted per loop level, *exclusive* of child loops, and only for floating-point
  operations: an operation is floating-point when one of its operands is real or complex.
  Index arithmetic on integers (``i+1``, ``lo(1)-ng``) is free. An operation with a complex
  operand is complex (``z * x`` with ``x`` real is complex) and counts the real operations
  that carry it out (``z * w`` is 4 multiplies and 2 adds): the rules are in
  :mod:`sat.frontend.intrinsics`; the rules below are those of real operands.
- ``a + b`` and ``a - b`` are one add; a unary minus is not counted (as in ExaSAT's reference
  data: a negation folds into the neighbouring add or is a sign-bit flip). ``*`` is a multiply,
  ``/`` a divide. A comparison of real operands (``x > y``) is one add, like ``max``.
- ``x**n`` with a constant integer ``n >= 2`` is ``n - 1`` multiplies, ``x**1`` and ``x**0`` are
  free, ``x**(-n)`` is one divide and ``n - 1`` multiplies; any other exponent (``x**0.5``,
  ``x**y``) is one special. A real literal with an integral value (``x**2.0``) counts as integral.
- Intrinsic functions cost what :mod:`sat.frontend.intrinsics` says.
- Array syntax (``a(:,:) = b + c``, ``a = 2*a``) is an implicit loop nest of kind ``array``: one
  loop per section dimension, the last dimension outermost (column-major), loop variables
  ``_i1`` (first, fastest dimension), ``_i2``, … The element work goes to the innermost level.
- Subscripts: ``v ± c`` with ``v`` a loop variable is an offset ``±c`` on ``v``; a subscript
  not involving a loop variable is kept as itself (an int or text) with no loop variable. When
  an array reference involves at least one loop variable, its loop-free subscripts that are a
  single name or integer literal select an array *component* (``q(i,j,k,qu)`` is ``q``/``qu``):
  those after the last loop-dependent subscript, or else those before the first (``q(qu,i,j,k)``);
  any other loop-free subscript is a position (see
  :func:`sat.frontend.fortran.references._component`). Whole arrays or sections outside array
  syntax are accesses with ``":"`` (or the section text) in each dimension.
- Scalars (including loop variables and named constants used as subscripts) count one read per
  use and one write per assignment; a loop's own variable is written once at its level. Loop
  bounds are evaluated at the *enclosing* level. IF/ELSE IF/ELSE, SELECT CASE and WHERE arms
  are :class:`sat.ir.Branch` bodies; their conditions are counted at the enclosing level.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence

from sat import ir
from sat.frontend.bodies import run_with_deep_stack
from sat.frontend.constants import settle_constants
from sat.frontend.fortran.read import read_units
from sat.frontend.shares import Started, start


def read_fortran(paths: Sequence[str], defines: Sequence[str] = (),
                 include_dirs: Sequence[str] = (),
                 progress: Callable[[str], None] | None = None,
                 processes: int = 1, started: Started | None = None) -> tuple[ir.Program, int]:
    """Read Fortran sources as one program; returns it and the number of files parsed.

    fparser and the analysis recurse once per operator of an expression: a statement with a
    few hundred terms needs a deeper stack than Python's default, so the work runs in a thread
    with a large stack and a raised recursion limit.  With ``processes`` > 1 a big program is
    read in shares by that many processes (:mod:`sat.frontend.shares`; ``started``: shares
    already under way), to the same result.
    """
    if started is None and processes > 1:
        started = start(paths, defines, include_dirs, processes)
    return run_with_deep_stack(
        lambda: _read_fortran(paths, defines, include_dirs, progress or (lambda _: None),
                              started),
        "satreport-fortran")


def _read_fortran(paths: Sequence[str], defines: Sequence[str], include_dirs: Sequence[str],
                  progress: Callable[[str], None], started: Started | None
                  ) -> tuple[ir.Program, int]:
    read = None
    if started is not None:
        names = ", ".join(os.path.basename(p) for p in paths[:3]) + (", …" if paths[3:] else "")
        progress(f"parsing {names} in {len(started.shares)} processes")
        try:
            own = read_units(paths, defines, include_dirs, started.shares[0].blank)
        except BaseException:
            started.stop()
            raise
        read = started.finish(own)
    if read is None:
        read = read_units(paths, defines, include_dirs, {}, progress)
    procedures = [p for p in read.procedures if p is not None]
    warnings = [*read.prefix, *(w for unit in read.unit_warnings for w in unit)]
    warnings.extend(settle_constants(procedures))
    result = ir.Program(procedures=procedures, sources=list(paths), warnings=warnings)
    if read.parsed and not any(True for p in procedures for _ in p.all_loops()):
        result.warnings.append(ir.Diagnostic("no loops found in the Fortran sources",
                                             paths[0] if len(paths) == 1 else "", 0))
    return result, read.parsed
