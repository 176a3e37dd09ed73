"""Arithmetic over parameter and result names, as scenario files write it.

Objectives and constraints (``Total_Time_s <= 10``, ``Footprint_GiB <= 0.8 * MemoryGiB``,
``maximize Peak_GFlops / Price_USD``) are parsed here, never by Python's ``eval``: numbers
(``5e6``), names (``BlockX``, a code symbol ``hi(1)``), ``+ - * /``, parentheses and the
functions ``min``, ``max``, ``abs``.  A name becomes whatever ``resolve`` makes of it (a
parameter or a model result), so the parsed expression is a model expression like any other:
the compiled evaluator computes it for many configurations at once and the workbook prints it
as a formula.
"""

from __future__ import annotations

import difflib
import math
import re
from collections.abc import Callable
from dataclasses import dataclass

from sat.model import expr as E

_TOKEN = re.compile(r"\s*(?:(?P<number>(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)"
                    r"|(?P<name>[A-Za-z_][A-Za-z0-9_]*)"
                    r"|(?P<op><=|>=|==|!=|[-+*/(),<>=^]))")
_FUNCTIONS = {"min": E.minimum, "max": E.maximum, "abs": lambda x: E.func("ABS", x)}
COMPARISONS = ("<=", ">=")
MAX_NESTING = 100  # what parses, compiles and prints an expression recurses on its nesting


class ExpressionError(ValueError):
    """Text that is not an expression; ``column`` is 1-based."""

    def __init__(self, message: str, column: int):
        super().__init__(message)
        self.column = column


@dataclass(frozen=True)
class _Token:
    kind: str  # "number", "name", "op", "end"
    text: str
    column: int


def _tokens(text: str) -> list[_Token]:
    tokens, position = [], 0
    while position < len(text):
        match = _TOKEN.match(text, position)
        if match is None or match.end() == position:
            if text[position:].strip() == "":
                break
            column = position + len(text[position:]) - len(text[position:].lstrip()) + 1
            raise ExpressionError(f"unexpected {text[column - 1]!r}", column)
        kind = match.lastgroup or "op"
        tokens.append(_Token(kind, match.group(kind), match.start(kind) + 1))
        position = match.end()
    tokens.append(_Token("end", "", len(text) + 1))
    return tokens


class _Parser:
    """Recursive descent: sum := product (('+'|'-') product)*; product := unary (('*'|'/')
    unary)*; unary := '-' unary | atom; atom := number | name | name '(' args ')' | '(' sum ')'."""

    def __init__(self, text: str, resolve: Callable[[str, int], E.Expr]):
        self.tokens = _tokens(text)
        self.index = 0
        self.resolve = resolve
        self.depth = 0  # parentheses, signs and calls open around the current token

    def deeper(self) -> None:
        self.depth += 1
        if self.depth > MAX_NESTING:
            raise ExpressionError(f"nested deeper than {MAX_NESTING} levels (parentheses, "
                                  "signs, functions)", self.token.column)

    @property
    def token(self) -> _Token:
        return self.tokens[self.index]

    def take(self, text: str) -> bool:
        if self.token.kind == "op" and self.token.text == text:
            self.index += 1
            return True
        return False

    def expect(self, text: str) -> None:
        if not self.take(text):
            raise ExpressionError(f"expected {text!r}, found {self._shown()}", self.token.column)

    def _shown(self) -> str:
        return "the end" if self.token.kind == "end" else repr(self.token.text)

    def sum(self) -> E.Expr:
        result = self.product()
        while True:
            if self.take("+"):
                result = result + self.product()
            elif self.take("-"):
                result = result - self.product()
            else:
                return result

    def product(self) -> E.Expr:
        result = self.unary()
        while True:
            if self.take("*"):
                result = result * self.unary()
            elif self.take("/"):
                result = result / self.unary()
            elif self.token.kind == "op" and self.token.text == "^":
                raise ExpressionError("powers are not supported: write the product",
                                      self.token.column)
            else:
                return result

    def unary(self) -> E.Expr:
        self.deeper()
        try:
            if self.take("-"):
                return -self.unary()
            if self.take("+"):
                return self.unary()
            return self.atom()
        finally:
            self.depth -= 1

    def atom(self) -> E.Expr:
        token = self.token
        if token.kind == "number":
            self.index += 1
            value = float(token.text)
            if not math.isfinite(value):
                raise ExpressionError(f"the number {token.text} is beyond the range of a double",
                                      token.column)
            return E.Num(value)
        if token.kind == "name":
            self.index += 1
            if self.token.kind == "op" and self.token.text == "(":
                return self.call(token)
            return self.resolve(token.text, token.column)
        if self.take("("):
            inner = self.sum()
            self.expect(")")
            return inner
        raise ExpressionError(f"expected a number, a name or '(', found {self._shown()}",
                              token.column)

    def call(self, name: _Token) -> E.Expr:
        self.expect("(")
        function = _FUNCTIONS.get(name.text.lower())
        if function is None:  # a code symbol such as hi(1): the subscripts are whole numbers
            subscripts = []
            while True:
                if self.token.kind != "number" or not self.token.text.isdigit():
                    raise ExpressionError(f"{name.text}(…): a code symbol's subscripts are whole "
                                          f"numbers, and {name.text} is not one of the "
                                          "functions min, max, abs", self.token.column)
                subscripts.append(self.token.text)
                self.index += 1
                if not self.take(","):
                    break
            self.expect(")")
            return self.resolve(f"{name.text}({','.join(subscripts)})", name.column)
        args = [self.sum()]
        while self.take(","):
            args.append(self.sum())
        self.expect(")")
        if name.text.lower() == "abs" and len(args) != 1:
            raise ExpressionError("abs takes one argument", name.column)
        return function(*args)

    def finish(self) -> None:
        if self.token.kind != "end":
            raise ExpressionError(f"unexpected {self._shown()}", self.token.column)


def parse_expression(text: str, resolve: Callable[[str, int], E.Expr]) -> E.Expr:
    """``text`` as a model expression; ``resolve(name, column)`` gives each name's expression
    (or raises :class:`ExpressionError`)."""
    parser = _Parser(text, resolve)
    if parser.token.kind == "end":
        raise ExpressionError("empty expression", 1)
    result = parser.sum()
    parser.finish()
    return result


def split_comparison(text: str) -> tuple[str, str, str, int]:
    """``"LEFT <= RIGHT"`` -> (left, operator, right, column of the right side)."""
    found = [(m.start(), m.group()) for m in re.finditer(r"<=|>=|==|!=|<|>|=", text)]
    if not found:
        raise ExpressionError("expected a comparison: LEFT <= RIGHT or LEFT >= RIGHT", 1)
    if len(found) > 1:
        raise ExpressionError("one comparison per constraint", found[1][0] + 1)
    start, operator = found[0]
    if operator not in COMPARISONS:
        raise ExpressionError(f"{operator!r}: a constraint compares with <= or >=", start + 1)
    return text[:start], operator, text[start + len(operator):], start + len(operator) + 1


def did_you_mean(name: str, names: list[str]) -> str:
    """`` (did you mean X?)`` with the valid name nearest ``name`` (any case), or ``""``."""
    lowered = {n.lower(): n for n in names}
    close = difflib.get_close_matches(name.lower(), list(lowered), n=1, cutoff=0.6)
    return f" (did you mean {lowered[close[0]]}?)" if close else ""
