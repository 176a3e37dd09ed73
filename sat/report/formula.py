"""Excel formula printer for model expressions, one ``_print_<Type>`` method per node.

Parameters print as workbook defined names; references to other quantities print as cell
addresses given by a resolver (the workbook layout decides where each quantity lives).
Only constructs that Excel and LibreOffice evaluate identically are emitted.
"""

from __future__ import annotations

from collections.abc import Callable

from sat.model.expr import Add, Compare, Div, Expr, Func, Mul, Num, Param, Quantity, Ref

# Precedence levels: higher binds tighter.
_CMP, _ADD, _MUL, _ATOM = 1, 2, 3, 5


def format_number(value: float) -> str:
    """Shortest exact literal; exponents written ``1E+09`` (some engines reject ``1e9``)."""
    if value == int(value) and abs(value) < 1e15:
        return str(int(value))
    text = repr(float(value))
    if "e" in text:
        mantissa, exponent = text.split("e")
        sign = "-" if exponent.startswith("-") else "+"
        text = f"{mantissa}E{sign}{exponent.lstrip('+-')}"
    return text


class ExcelPrinter:
    """Prints an :class:`~sat.model.expr.Expr` as the text of an Excel formula (no ``=``)."""

    def __init__(
        self,
        cell_of: Callable[[Quantity], str | None],
        name_of: Callable[[str], str] = str,
    ):
        # cell_of gives a quantity's cell address, or None to inline its expression.
        self.cell_of = cell_of
        self.name_of = name_of

    def doprint(self, expr: Expr) -> str:
        return self._print(expr)[0]

    def formula(self, expr: Expr) -> str:
        return "=" + self.doprint(expr)

    # Each _print_X returns (text, precedence of its outermost operator).
    def _print(self, expr: Expr) -> tuple[str, int]:
        return getattr(self, "_print_" + type(expr).__name__)(expr)

    def _wrap(self, expr: Expr, level: int) -> str:
        text, prec = self._print(expr)
        return f"({text})" if prec < level else text

    def _print_Num(self, expr: Num) -> tuple[str, int]:
        text = format_number(expr.value)
        return (text, _ADD) if text.startswith("-") else (text, _ATOM)

    def _print_Param(self, expr: Param) -> tuple[str, int]:
        return self.name_of(expr.name), _ATOM

    def _print_Ref(self, expr: Ref) -> tuple[str, int]:
        cell = self.cell_of(expr.quantity)
        return (cell, _ATOM) if cell else self._print(expr.quantity.expr)

    def _print_Add(self, expr: Add) -> tuple[str, int]:
        text = self._wrap(expr.terms[0], _ADD)
        for term in expr.terms[1:]:
            part = self._wrap(term, _ADD)
            text += part if part.startswith("-") else "+" + part
        return text, _ADD

    def _print_Mul(self, expr: Mul) -> tuple[str, int]:
        factors = list(expr.factors)
        negative = isinstance(factors[0], Num) and factors[0].value == -1
        if negative:
            factors = factors[1:]
        text = "*".join(self._wrap(f, _MUL + (i > 0)) for i, f in enumerate(factors))
        # A leading minus is unary: it binds like a product only inside a sum.
        return ("-" + text, _ADD) if negative else (text, _MUL)

    def _print_Div(self, expr: Div) -> tuple[str, int]:
        num = self._wrap(expr.num, _MUL)
        den = self._wrap(expr.den, _ATOM)
        if isinstance(expr.den, Num):
            return f"{num}/{den}", _MUL
        # Guard: a zero denominator (an edited parameter) gives 0, exactly as in Python.
        return f"IF({self.doprint(expr.den)}=0,0,{num}/{den})", _ATOM

    def _print_Func(self, expr: Func) -> tuple[str, int]:
        return f"{expr.name}({','.join(self.doprint(a) for a in expr.args)})", _ATOM

    def _print_Compare(self, expr: Compare) -> tuple[str, int]:
        return f"{self._wrap(expr.left, _ADD)}{expr.op}{self._wrap(expr.right, _ADD)}", _CMP
