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


@dataclass(frozen=True, slots=True)
class Linear:
    """``c1*name1 + c2*name2 + … + const`` with integer coefficients, names sorted.

    The Fortran front end's bounds and subscripts are of this form (``lo(1) - ng``,
    ``hi(1) + ng``, ``i + 1``); :meth:`text` prints what ``sympy.sstr`` prints for it.
    """

    terms: tuple[tuple[str, int], ...]
    const: int

    @staticmethod
    def number(value: int) -> Linear:
        return Linear((), value)

    @staticmethod
    def symbol(name: str) -> Linear:
        return Linear(((name, 1),), 0)

    @property
    def is_constant(self) -> bool:
        return not self.terms

    @property
    def names(self) -> set[str]:
        return {name for name, _ in self.terms}

    def __add__(self, other: Linear) -> Linear:
        coeffs = dict(self.terms)
        for name, coeff in other.terms:
            coeffs[name] = coeffs.get(name, 0) + coeff
        # a name whose coefficient cancels goes, as in sympy (n - n = 0)
        return Linear(tuple(sorted((n, c) for n, c in coeffs.items() if c)),
                      self.const + other.const)

    def __neg__(self) -> Linear:
        return Linear(tuple((name, -coeff) for name, coeff in self.terms), -self.const)

    def __sub__(self, other: Linear) -> Linear:
        return self + (-other)

    def __mul__(self, other: Linear) -> Linear | None:
        """The product, or None when both factors have names (not linear)."""
        if self.terms and other.terms:
            return None
        scale, linear = (self.const, other) if not self.terms else (other.const, self)
        if scale == 0:
            return Linear.number(0)
        return Linear(tuple((n, scale * c) for n, c in linear.terms), scale * linear.const)

    def text(self) -> str:
        """``sympy.sstr`` of the same expression."""
        if len(self.terms) <= 1:  # sympy's univariate order: Affine prints it
            name, coeff = self.terms[0] if self.terms else (None, 0)
            return Affine(name, coeff, self.const).text()
        parts = []
        for index, (name, coeff) in enumerate(self.terms):
            term = name if abs(coeff) == 1 else f"{abs(coeff)}*{name}"
            if index == 0:
                parts.append(term if coeff > 0 else "-" + term)
            else:
                parts.append(f" + {term}" if coeff > 0 else f" - {term}")
        if self.const:
            parts.append(f" + {self.const}" if self.const > 0 else f" - {-self.const}")
        return "".join(parts)
