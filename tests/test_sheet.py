"""ModelSheet's short cuts write exactly what xlsxwriter's own code writes."""

from __future__ import annotations

import io
import zipfile
from pathlib import Path

import pytest
import xlsxwriter
from xlsxwriter.worksheet import Worksheet, re_dynamic_function

from sat.model import expr as E
from sat.report import workbook as W
from sat.report.sheet import ModelSheet


def test_model_formulas_need_no_rewriting() -> None:
    """xlsxwriter's rewriting of newer functions leaves every function the printer uses as is,
    and none of them is a dynamic array function: storing the printed text is an identity."""
    sheet = Worksheet()
    for name in [*E.FUNCTIONS, "SUM"]:
        formula = f"={name}(1,Loops!$B$5,A1:A9)+{name}(Total_Time_s)"
        assert sheet._prepare_formula(formula) == formula[1:]
        assert sheet._prepare_formula(formula, True) == formula[1:]
        assert not re_dynamic_function.search(formula)


def parts(data: bytes) -> dict[str, bytes]:
    """The parts of an xlsx file, its creation time aside."""
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        return {name: archive.read(name) for name in archive.namelist()
                if name != "docProps/core.xml"}


def every_kind_of_cell(fast: bool, model_formulas: bool) -> dict[str, bytes]:
    """A workbook with each kind of cell, format source, comment and row the writer handles."""
    out = io.BytesIO()
    book = xlsxwriter.Workbook(out, {"in_memory": True, "strings_to_numbers": False,
                                     "strings_to_formulas": False, "strings_to_urls": False})
    bold = book.add_format({"bold": True})
    money = book.add_format({"num_format": "#,##0.00"})
    italic_row = book.add_format({"italic": True})
    ws = book.add_worksheet("Data 1", ModelSheet)
    ws.fast_rows = fast
    ws.set_column(4, 4, 12, money)  # a column format: cells without their own take it
    ws.set_row(7, 30)  # a row height only
    ws.set_row(9, None, italic_row)  # a row format
    ws.set_row(40, 20)  # an empty row with a height
    ws.write_comment(45, 2, "a comment on an empty row")
    ws.write_comment(3, 60, "a comment beyond the cells widens the span")
    formulas = ["=IF(a<b,1,0)", "=SUM(A1:A9)&\"x\"", "=MAX(B2,'Data 1'!C3)", "=1*(x>=2)"]
    values: list[object] = [0.1, 3, 1e-300, -2.5e17, 1 / 3, 123456789.0, float("nan")]
    for row in range(0, 70, 3):
        for col in range(0, 8):
            kind = (row + col) % 7
            fmt = (None, bold, money)[(row * col) % 3]
            if kind == 0:
                ws.write_string(row, col, f"text <{row}> & \"{col}\"", fmt)
            elif kind == 1:
                ws.write_number(row, col, values[(row + col) % 6], fmt)
            elif kind == 2:
                formula, value = formulas[col % 4], values[row % 7]
                if model_formulas:
                    ws.write_model_formula(row, col, formula, fmt, value)
                else:
                    ws.write_formula(row, col, formula, fmt, value)
            elif kind == 3:
                ws.write_boolean(row, col, bool(row % 2), fmt)
            elif kind == 4:
                ws.write_blank(row, col, None, fmt or bold)
            elif kind == 5:
                ws.write_formula(row, col, "=A1", fmt, ("text", True, "#N/A", "")[row % 4])
            else:
                ws.write_string(row, col, "", fmt)
    ws.write_string(9, 1, "in the formatted row")
    ws.write_number(9, 4, 5)  # row and column format: the row's wins
    ws.write_number(30, 4, 7)  # the column's format
    ws.merge_range(60, 1, 61, 3, "merged", bold)
    ws.write_string(1000, 20, "far away")
    empty = book.add_worksheet("Empty", ModelSheet)
    empty.fast_rows = fast
    book.close()
    return parts(out.getvalue())


def test_fast_rows_write_what_xlsxwriter_writes() -> None:
    assert every_kind_of_cell(True, True) == every_kind_of_cell(False, True)


def test_model_formulas_are_stored_as_write_formula_stores_them() -> None:
    assert every_kind_of_cell(False, True) == every_kind_of_cell(False, False)


@pytest.mark.parametrize("builder", ["hand_result", "hypterm_result"])
def test_workbook_is_the_same_without_the_short_cuts(
        builder: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import test_workbook

    result = getattr(test_workbook, builder)()
    W.write_workbook(result, str(tmp_path / "fast.xlsx"), test_workbook.META)
    monkeypatch.setattr(ModelSheet, "fast_rows", False)
    W.write_workbook(result, str(tmp_path / "plain.xlsx"), test_workbook.META)
    fast = parts((tmp_path / "fast.xlsx").read_bytes())
    plain = parts((tmp_path / "plain.xlsx").read_bytes())
    assert fast.keys() == plain.keys()
    for name in fast:
        assert fast[name] == plain[name], name



def _table_book(monkeypatch: pytest.MonkeyPatch, ahead: bool) -> dict[str, bytes]:
    """A table sheet of 2,500 rows (formulas, numbers, texts, a merged band, booleans, three
    formats, a comment), its rows written ahead (or not, the threshold out of reach) once
    finished, after a first sheet written later that uses the formats in another order."""
    import sat.report.sheet as S

    monkeypatch.setattr(S, "STREAMED_ROWS", 1 if ahead else 10**9)
    out = io.BytesIO()
    book = xlsxwriter.Workbook(out, {"in_memory": True})
    bold, money = book.add_format({"bold": True}), book.add_format({"num_format": "0.00"})
    band, italic = book.add_format({"bg_color": "#DDEBF7"}), book.add_format({"italic": True})
    summary = book.add_worksheet("Summary", ModelSheet)
    ws = book.add_worksheet("Loops", ModelSheet)
    ws.write_comment(0, 1, "a header comment")
    ws.merge_range(0, 2, 0, 4, "a band", band)
    for row in range(1, 2501):
        ws.store_row(row, [(0, "s", f"nest <{row}>", bold, 0.0), (1, "n", row / 7, money, 0.0),
                           (2, "f", f"=B{row + 1}*2", None, 2 * row / 7)])
        ws.write_boolean(row, 3, row % 2 == 0, italic if row > 2000 else None)
    ws.stream_rows(2500)
    assert (not ws.table) is ahead  # written ahead, the cells are gone from memory
    summary.write_string(0, 0, "first", italic)  # numbered first in the file
    summary.write_number(1, 0, 3.5, money)
    book.close()
    return parts(out.getvalue())


def test_rows_written_ahead_make_the_same_file(monkeypatch: pytest.MonkeyPatch) -> None:
    assert _table_book(monkeypatch, True) == _table_book(monkeypatch, False)
