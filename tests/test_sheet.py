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



def _table_book(monkeypatch: pytest.MonkeyPatch, ahead: bool, stream: bool = False,
                chart: bool = False) -> dict[str, bytes]:
    """A table sheet of 2,500 rows (formulas, numbers, texts, a merged band, booleans, three
    formats, a comment, a formula with a text value in every other row), its rows written
    ahead (or not, the threshold out of reach) once finished, or (``stream``) 100 at a time
    as they are stored, after a first sheet written later that uses the formats in another
    order; with ``chart``, a chart of columns A and B beside the table (whose cached data
    comes from the cells)."""
    import sat.report.sheet as S

    monkeypatch.setattr(S, "STREAMED_ROWS", 1 if ahead else 10**9)
    monkeypatch.setattr(S, "STREAM_CHUNK_ROWS", 100)
    out = io.BytesIO()
    book = xlsxwriter.Workbook(out, {"in_memory": True})
    bold, money = book.add_format({"bold": True}), book.add_format({"num_format": "0.00"})
    band, italic = book.add_format({"bg_color": "#DDEBF7"}), book.add_format({"italic": True})
    summary = book.add_worksheet("Summary", ModelSheet)
    ws = book.add_worksheet("Loops", ModelSheet)
    ws.write_comment(0, 1, "a header comment")
    ws.merge_range(0, 2, 0, 4, "a band", band)
    ws.set_column(3, 3, 12)  # a width: the column's cells are written by xlsxwriter's code
    ws.set_column(5, 5, 10)  # likewise
    if stream:
        ws.begin_stream((0, 1) if chart else ())
    for row in range(1, 2501):
        ws.store_row(row, [(0, "s", f"nest <{row}>", bold, 0.0), (1, "n", row / 7, money, 0.0),
                           (2, "f", f"=B{row + 1}*2", None, 2 * row / 7),
                           (4, "f", f"=A{row + 1}&\"<\"", money, f"nest <{row}><"),
                           (5, "n", row, None, 0.0)][:5 - row % 2])
        ws.write_boolean(row, 3, row % 2 == 0, italic if row > 2000 else None)
        if stream and row == 1000:  # written ahead in whole blocks of 16 rows, 100 at least
            assert min(ws.table) % 16 == 0 and 1000 - min(ws.table) < 100 + 16
    if chart:
        drawn = book.add_chart({"type": "column"})
        drawn.add_series({"categories": "=Loops!$A$2:$A$2501", "values": "=Loops!$B$2:$B$2501"})
        ws.insert_chart(1, 6, drawn)
    ws.stream_rows(2500)
    if stream:  # only the cells the chart reads are left
        assert {c for cells in ws.table.values() for c in cells} == ({0, 1} if chart else set())
    else:
        assert (not ws.table) is (ahead and not chart)  # written ahead, the cells are gone
    summary.write_string(0, 0, "first", italic)  # numbered first in the file
    summary.write_number(1, 0, 3.5, money)
    book.close()
    return parts(out.getvalue())


def test_rows_written_ahead_make_the_same_file(monkeypatch: pytest.MonkeyPatch) -> None:
    assert _table_book(monkeypatch, True) == _table_book(monkeypatch, False)


@pytest.mark.parametrize("chart", [False, True])
def test_rows_written_as_they_are_stored_make_the_same_file(
        monkeypatch: pytest.MonkeyPatch, chart: bool) -> None:
    """Rows streamed 100 at a time give the file of rows written all at the end; a chart's
    cached data (numbers and texts of columns A and B) is the same from the kept cells."""
    streamed = _table_book(monkeypatch, True, stream=True, chart=chart)
    assert streamed == _table_book(monkeypatch, False, chart=chart)
    if chart:
        chart_xml = streamed["xl/charts/chart1.xml"]
        assert b"nest &lt;2500&gt;" in chart_xml and b"357.142857142857" in chart_xml


def _whole_file(book_class: type, rows: int) -> bytes:
    """A two-sheet file written by ``book_class`` in ``in_memory`` mode, its creation time
    fixed: the bytes of the whole file."""
    import datetime

    out = io.BytesIO()
    book = book_class(out, {"in_memory": True})
    book.set_properties({"created": datetime.datetime(2024, 1, 2, 3, 4, 5)})
    money = book.add_format({"num_format": "0.00"})
    ws = book.add_worksheet("Loops", ModelSheet)
    for row in range(rows):
        ws.store_row(row, [(0, "s", f"nest <{row}>", None, 0.0), (1, "n", row / 7, money, 0.0),
                           (2, "f", f"=B{row + 1}*2", None, 2 * row / 7)])
    ws.stream_rows(rows)
    book.add_worksheet("Notes", ModelSheet).write_string(0, 0, "ü and ∑ in UTF-8")
    book.close()
    return out.getvalue()


def test_parts_waiting_on_disk_make_the_same_file(monkeypatch: pytest.MonkeyPatch) -> None:
    """ModelBook keeps a part larger than a threshold (here 4,000 bytes, so that the sheet of
    3,000 rows, about 190 KB of XML, and the shared strings go to disk while the small parts
    stay in memory) in a temporary file until it is zipped: the file is byte for byte
    xlsxwriter's own in_memory file."""
    import sat.report.sheet as S

    monkeypatch.setattr(S, "SPOOLED_PART_BYTES", 4000)
    spooled = _whole_file(S.ModelBook, 3000)
    assert spooled == _whole_file(xlsxwriter.Workbook, 3000)
    with zipfile.ZipFile(io.BytesIO(spooled)) as archive:
        sheet = archive.read("xl/worksheets/sheet1.xml")
        assert len(sheet) > 150_000 and sheet.count(b"<row ") == 3000
        assert "ü and ∑".encode() in archive.read("xl/sharedStrings.xml")
