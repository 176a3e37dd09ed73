"""Integer expressions ``coeff*name + const`` in at most one variable, without sympy.

Most C bounds, extents and subscripts are of this form (``n``, ``nx + 2``, ``i - 1``,
``2*i``).  Importing sympy costs more than analysing a small kernel, so the C front end
handles these forms here and turns to sympy only for the rest.  :meth:`Affine.text` prints
exactly what ``sympy.sstr`` prints for the same expression, so the outputs do not depend on
which path was taken (``tests/test_affine.py`` checks this against sympy).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Affine:
    """``coeff*name + const`` (``name`` is None, and ``coeff`` 0, for a constant)."""

    name: str | None
    coeff: int
    const: int

    @staticmethod
    def number(value: int) -> Affine:
        return Affine(None, 0, value)

    @staticmethod
    def symbol(name: str) -> Affine:
        return Affine(name, 1, 0)

    @property
    def is_constant(self) -> bool:
        return self.name is None

    def __add__(self, other: Affine | int) -> Affine | None:
        """The sum, or None when it has two different variables."""
        if isinstance(other, int):
            other = Affine.number(other)
        if self.name is not None and other.name is not None and self.name != other.name:
            return None
        return _make(self.name or other.name, self.coeff + other.coeff, self.const + other.const)

    def __neg__(self) -> Affine:
        return _make(self.name, -self.coeff, -self.const)

    def __sub__(self, other: Affine | int) -> Affine | None:
        return self + (-other if isinstance(other, Affine) else Affine.number(-other))

    def __mul__(self, other: Affine) -> Affine | None:
        """The product, or None when both factors have a variable (not linear)."""
        if self.name is not None and other.name is not None:
            return None
        scale, linear = (self.const, other) if self.name is None else (other.const, self)
        return _make(linear.name, scale * linear.coeff, scale * linear.const)

    def text(self) -> str:
        """``sympy.sstr`` of the same expression (``n + 2``, ``1 - n``, ``-3*n - 7``)."""
        if self.name is None:
            return str(self.const)
        if self.coeff == 1:
            term = self.name
        elif self.coeff == -1:
            term = "-" + self.name
        else:
            term = f"{self.coeff}*{self.name}"
        if self.const == 0:
            return term
        if self.coeff < 0 and self.const > 0:  # sympy leads with the positive term
            return f"{self.const} - {term[1:]}"
        return f"{term} + {self.const}" if self.const > 0 else f"{term} - {-self.const}"


def _make(name: str | None, coeff: int, const: int) -> Affine:
    # A variable with a zero coefficient cancels out, as it does in sympy (n - n = 0).
    return Affine(None, 0, const) if coeff == 0 or name is None else Affine(name, coeff, const)
