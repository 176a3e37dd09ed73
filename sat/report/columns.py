"""How a table's columns read on a sheet: number formats, widths, header texts, and a column
of words beside each column of codes (written as ``=CHOOSE(…)``, so they follow edits)."""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass, replace
from operator import itemgetter
from typing import Any

from sat.model.expr import Env, Quantity
from sat.model.tables import CellValue, Column, Table


def auto_number_format(values: Iterable[Any]) -> str:
    """A format showing meaningful digits for a column's numbers."""
    numbers = [abs(float(v)) for v in values
               if isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)]
    if not numbers:
        return "General"
    if all(v.is_integer() for v in numbers) and max(numbers) < 1e12:
        return "#,##0"
    nonzero = [v for v in numbers if v]
    if not nonzero:
        return "0.00"
    small, big = min(nonzero), max(nonzero)
    if small >= 1 and big < 1e9:
        return "#,##0.00"
    if small >= 0.1 and big < 1e6:
        return "0.000"
    return "0.000E+00"


def filled(columns: list[Column],
            rows: list[dict[str, CellValue]]) -> list[list[tuple[int, CellValue]]]:
    """Per row: (column index, value) of the columns it has a value for, in column order."""
    keys = [column.key for column in columns]
    index = {key: col for col, key in enumerate(keys)}
    unique = len(index) == len(keys)  # no key shared by two columns
    found = []
    for row in rows:
        if unique and 2 * len(row) < len(keys):  # a sparse row of a wide table: read its own
            found.append(sorted(((index[key], value) for key, value in row.items()
                                  if value is not None and key in index), key=itemgetter(0)))
        else:
            found.append([(col, value) for col, value in enumerate(map(row.get, keys))
                           if value is not None])
    return found


def column_width(values: list[Any], header: str) -> float:
    """Characters wide enough for the header's longest word and every text in the column."""
    longest_word = max((len(w) for w in header.split()), default=4)
    texts = [len(v) for v in values if isinstance(v, str)]
    numbers = any(isinstance(v, (int, float)) for v in values)
    width = max([longest_word + 2, 11 if numbers else 6] + [t + 1 for t in texts])
    return float(min(width, 45))


def numeric(values: list[Any]) -> bool:
    """A column of numbers only (the totals row's label aside)."""
    numbers = [v for v in values if v != "Total"]
    return bool(numbers) and all(isinstance(v, (int, float)) for v in numbers)


def header_text(column: Column) -> str:
    return f"{column.header} ({column.unit})" if column.unit else column.header


@dataclass(frozen=True)
class Word:
    """The word a code means, written as ``=CHOOSE(code cell, "planes", …)``: it follows the
    code when an edit changes it."""

    code: Quantity
    words: tuple[str, ...]
    first_code: int = 1

    def text(self, env: Env) -> str:
        index = self.code.value(env) - self.first_code
        inside = math.isfinite(index) and index.is_integer() and 0 <= index < len(self.words)
        return self.words[int(index)] if inside else ""


def with_words(table: Table) -> Table:
    """``table`` with, after each column of codes, a column of the words they mean."""
    if not any(column.words for column in table.columns):
        return table
    columns: list[Column] = []
    rows = [dict(row) for row in table.rows]
    for column in table.columns:
        columns.append(column)
        if not column.words:
            continue
        meaning = ", ".join(f"{k} {word}" for k, word in enumerate(column.words,
                                                                   start=column.first_code))
        key = f"{column.key}_word"
        columns.append(Column(key, column.header, "", f"What the code beside it means: "
                              f"{meaning}.", band=column.band))
        for row in rows:
            code = row.get(column.key)
            if isinstance(code, Quantity):
                row[key] = Word(code, column.words, column.first_code)
            elif isinstance(code, (int, float)) and \
                    0 <= code - column.first_code < len(column.words):
                row[key] = column.words[int(code - column.first_code)]
    return replace(table, columns=columns, rows=rows)
