"""The Fortran front end: fparser's node model -> :mod:`sat.ir`.

:func:`read_fortran` (``read.py``) parses each file with tree-sitter (``treesitter.py``,
``fixedform.py``; ``ts_units.py``, ``ts_statements.py`` and ``ts_expressions.py`` build
fparser's node model from its tree) or with fparser (``parse.py``; ``preprocess.py`` for the
upper-case suffixes, both parsers), gathers the modules and procedures and reads their
declarations (``program.py``, ``symbols.py``), then analyses each procedure (``analyser.py``
and its parts ``statements.py``, ``loops.py``, ``references.py``, ``calls.py``,
``expressions.py``; what they read of fparser's node model is in ``tree.py``). A big program
read by fparser is read in shares by several processes (``shares.py``, ``worker.py``).

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

import logging

__all__ = ["read_fortran"]

# fparser logs through the logging module; satreport reports problems as diagnostics instead.
# Set here, where every import of fparser passes, so that a C run does not import logging.
logging.getLogger("fparser").addHandler(logging.NullHandler())
logging.getLogger("fparser").propagate = False


def __getattr__(name: str) -> object:
    # read_fortran is imported when first asked for: importing the package, as starting the
    # workers of a shared read does (shares.start), must not import fparser.
    if name == "read_fortran":
        from sat.frontend.fortran.read import read_fortran

        return read_fortran
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
