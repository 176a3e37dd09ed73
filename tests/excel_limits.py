"""Test helper: every formula of an xlsx file measured against Excel's limits.

Excel refuses a formula longer than 8,192 characters, with functions nested more than 64
levels deep, or with a function given more than 255 arguments.  The formulas are read from
the file's XML as they are stored (``<f>`` of each sheet, data validations and conditional
formats included) and measured by a small scanner that knows quoted sheet names
(``'Sheet (2)'!A1``) and strings (``"a,b"``), which may hold parentheses and commas.
"""

from __future__ import annotations

import re
import zipfile
from dataclasses import dataclass
from pathlib import Path
from xml.etree import ElementTree

MAX_LENGTH = 8192
MAX_NESTING = 64
MAX_ARGUMENTS = 255

_MAIN = "{http://schemas.openxmlformats.org/spreadsheetml/2006/main}"
_NAME_CHAR = re.compile(r"[A-Za-z0-9_.]")


@dataclass(frozen=True)
class Measure:
    """One formula's length, deepest nesting of function calls and most arguments of one."""

    length: int
    nesting: int
    arguments: int


def measure(formula: str) -> Measure:
    """The measures of one formula (with or without its leading ``=``)."""
    text = formula[1:] if formula.startswith("=") else formula
    stack: list[list[int]] = []  # per open parenthesis: [is a function call, arguments]
    nesting = deepest = most = 0
    i, n = 0, len(text)
    while i < n:
        ch = text[i]
        if ch in "'\"":  # a quoted sheet name or a string: doubled quotes escape
            i += 1
            while i < n:
                if text[i] == ch:
                    if i + 1 < n and text[i + 1] == ch:
                        i += 2
                        continue
                    break
                i += 1
        elif ch == "(":
            call = i > 0 and _NAME_CHAR.match(text[i - 1]) is not None
            stack.append([call, 0 if text[i + 1:i + 2] == ")" else 1])
            if call:
                nesting += 1
                deepest = max(deepest, nesting)
        elif ch == ")":
            call, arguments = stack.pop()
            if call:
                nesting -= 1
                most = max(most, arguments)
        elif ch == "," and stack:
            stack[-1][1] += 1
        i += 1
    if stack:
        raise ValueError(f"unbalanced parentheses in {formula[:80]!r}")
    return Measure(len(formula if formula.startswith("=") else "=" + formula), deepest, most)


def formulas(path: Path) -> dict[str, list[str]]:
    """Every formula of the workbook at ``path``, by sheet part (``xl/worksheets/sheet3.xml``)."""
    found: dict[str, list[str]] = {}
    with zipfile.ZipFile(path) as book:
        for name in book.namelist():
            if not name.startswith("xl/worksheets/sheet"):
                continue
            root = ElementTree.fromstring(book.read(name))
            texts = [f.text or "" for tag in ("f", "formula", "formula1", "formula2")
                     for f in root.iter(_MAIN + tag)]
            found[name] = [t for t in texts if t]
    return found


def violations(path: Path) -> list[str]:
    """A line per formula of the workbook over one of Excel's limits (empty: none)."""
    problems = []
    for sheet, texts in formulas(path).items():
        for text in texts:
            m = measure(text)
            if m.length > MAX_LENGTH or m.nesting > MAX_NESTING or m.arguments > MAX_ARGUMENTS:
                problems.append(f"{sheet}: {m} {text[:120]}")
    return problems


def largest(path: Path) -> Measure:
    """The largest length, nesting and argument count over all the workbook's formulas."""
    measures = [measure(t) for texts in formulas(path).values() for t in texts]
    return Measure(max((m.length for m in measures), default=0),
                   max((m.nesting for m in measures), default=0),
                   max((m.arguments for m in measures), default=0))
