"""The C front end's sympy-free path prints what sympy prints, and C runs do not import sympy."""

from __future__ import annotations

import itertools
import subprocess
import sys
from pathlib import Path

import pytest
import sympy
from pycparser import c_parser

from sat.frontend import c_visitors
from sat.frontend.affine import Affine

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
    affine = c_visitors.to_affine(node)
    if affine is not None:
        assert affine.text() == sympy.sstr(c_visitors.to_sympy(node))
    assert c_visitors.expr_text(node) == sympy.sstr(c_visitors.to_sympy(node))


def test_c_run_imports_neither_sympy_nor_fparser() -> None:
    code = ("import sys; from sat.cli import main; main(['examples/c/stencil7.c', '-q', "
            "'--json', '/dev/null']); print(sorted(m for m in ('sympy', 'fparser') "
            "if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True,
                         text=True, check=True).stdout
    assert out.strip().splitlines()[-1] == "[]"
