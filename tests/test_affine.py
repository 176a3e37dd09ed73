"""The C front end's sympy-free path prints what sympy prints, and C runs do not import sympy."""

from __future__ import annotations

import itertools
import subprocess
import sys
from pathlib import Path

import pytest
import sympy
from pycparser import c_parser

from sat.frontend.affine import Affine
from sat.frontend.c import algebra

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.parametrize("name", ["n", "N", "nx", "_a", "Z9", "zeta", "E", "I", "S", "lambda"])
def test_text_is_sympy_sstr(name: str) -> None:
    symbol = sympy.Symbol(name)
    for coeff, const in itertools.product(range(-4, 5), range(-9, 10)):
        affine = Affine(name, coeff, 0) + const if coeff else Affine.number(const)
        assert affine.text() == sympy.sstr(coeff * symbol + const), (coeff, const)


def test_arithmetic() -> None:
    n, m = Affine.symbol("n"), Affine.symbol("m")
    assert (n - n).is_constant and (n - n).const == 0
    assert n + m is None and n * m is None
    assert (Affine.number(3) * (n + 2)).text() == "3*n + 6"
    assert (-(n * Affine.number(2)) + 1).text() == "1 - 2*n"


@pytest.mark.parametrize("text", [
    "n", "n + 2", "2 - n", "-n - 1", "2*n + 1", "n*2 - 3", "-(n - 4)", "(int)(n + 1)", "3",
    "0*n + 5", "n - n", "4 * (1 - n)", "n + m", "n * m", "n / 2", "a[i] + 1", "2.5", "f(n)",
])
def test_to_affine_agrees_with_to_sympy(text: str) -> None:
    node = c_parser.CParser().parse(f"int x = {text};").ext[0].init
    affine = algebra.to_affine(node)
    if affine is not None:
        assert affine.text() == sympy.sstr(algebra.to_sympy(node))
    assert algebra.expr_text(node) == sympy.sstr(algebra.to_sympy(node))


def test_c_run_imports_neither_sympy_nor_fparser() -> None:
    code = ("import sys; from sat.cli import main; main(['examples/c/stencil7.c', '-q', "
            "'--json', '/dev/null']); print(sorted(m for m in ('sympy', 'fparser') "
            "if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True,
                         text=True, check=True).stdout
    assert out.strip().splitlines()[-1] == "[]"


def test_linear_text_is_sympy_sstr() -> None:
    import random

    from sat.frontend.affine import Linear

    names = ["i", "j", "n", "ng", "lo(1)", "hi(1)", "a_1", "a1", "a(1)", "dlo(3)", "nx"]
    chooser = random.Random(7)
    for _ in range(3000):
        picked = chooser.sample(names, chooser.randint(0, 3))
        coeffs = [chooser.choice([-3, -2, -1, 1, 2, 3]) for _ in picked]
        const = chooser.randint(-5, 5)
        linear, expr = Linear.number(const), sympy.Integer(const)
        for name, coeff in zip(picked, coeffs, strict=True):
            linear = linear + Linear.symbol(name) * Linear.number(coeff)
            expr += coeff * sympy.Symbol(name)
        assert linear.text() == sympy.sstr(expr), (picked, coeffs, const)


@pytest.mark.parametrize("text", [
    "i", "i+1", "lo(1)-ng", "hi(1)+ng-1", "2*(n-1)", "-(ng+lo(3))", "ng-ng+4", "n*m", "n/2",
    "2.5", "n**2", "idx(i)+1", "3*i-2*j", "size(a,1)",
])
def test_fortran_linear_forms_agree_with_sympy(text: str) -> None:
    from fparser.two import Fortran2003 as F
    from fparser.two.parser import ParserFactory

    from sat.frontend import subscripts

    ParserFactory().create(std="f2008")
    node = F.Expr(text)
    linear = subscripts.to_linear(node)
    if linear is not None:
        assert linear.text() == sympy.sstr(subscripts.to_sympy(node))
    assert subscripts.expr_text(node) == sympy.sstr(subscripts.to_sympy(node))


def test_a_fortran_stencil_run_does_not_import_sympy() -> None:
    code = ("import sys; from sat.cli import main; main(['examples/hypterm.f90', '-q', "
            "'--json', '/dev/null', '-j', '1']); print('sympy' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True,
                         text=True, check=True).stdout
    assert out.strip().splitlines()[-1] == "False"
