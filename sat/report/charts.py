"""The charts beside two of the workbook's tables: accesses per state variable (Registers)
and performance against cores (ECM scaling)."""

from __future__ import annotations

from xlsxwriter.utility import quote_sheetname, xl_col_to_name
from xlsxwriter.workbook import Workbook
from xlsxwriter.worksheet import Worksheet

from sat.model.tables import Table
from sat.report.columns import header_text


def _accesses_column(table: Table) -> int | None:
    """The column of accesses the Registers chart draws."""
    return next((i for i, c in enumerate(table.columns) if "access" in c.key), None)


def chart_columns(sheet: str, table: Table) -> tuple[int, ...]:
    """The columns the chart beside ``table`` draws (their cells are kept for its data)."""
    keys = [c.key for c in table.columns]
    if sheet.lower().startswith("registers"):
        accesses = _accesses_column(table)
        return () if accesses is None else (0, accesses)
    if table.name == "ECM scaling" and "gflop_per_s" in keys and "cores" in keys:
        return keys.index("cores"), keys.index("gflop_per_s")
    return ()


def add_chart(book: Workbook, ws: Worksheet, sheet: str, table: Table, header_row: int,
              rows: tuple[int, int]) -> None:
    """The chart beside ``table`` on ``sheet``, if it has one; ``rows``: its first and last
    data rows (0-based)."""
    if sheet.lower().startswith("registers"):
        _registers_chart(book, ws, sheet, table, header_row, rows)
    elif table.name == "ECM scaling":
        _scaling_chart(book, ws, sheet, table, header_row, rows)


def _registers_chart(book: Workbook, ws: Worksheet, sheet: str, table: Table, header_row: int,
                     rows: tuple[int, int]) -> None:
    """Histogram of accesses per state variable, beside the table."""
    accesses = _accesses_column(table)
    if accesses is None or not table.rows:
        return
    chart = book.add_chart({"type": "column"})
    quoted = quote_sheetname(sheet)
    first, last = rows
    chart.add_series({
        "name": header_text(table.columns[accesses]),
        "categories": f"={quoted}!${xl_col_to_name(0)}${first + 1}:"
                      f"${xl_col_to_name(0)}${last + 1}",
        "values": f"={quoted}!${xl_col_to_name(accesses)}${first + 1}:"
                  f"${xl_col_to_name(accesses)}${last + 1}",
        "fill": {"color": "#5B9BD5"}, "gap": 50})
    chart.set_title({"name": "Accesses per state variable"})
    chart.set_legend({"none": True})
    chart.set_y_axis({"name": "accesses"})
    chart.set_size({"width": 720, "height": 360})
    ws.insert_chart(header_row, len(table.columns) + 1, chart)


def _scaling_chart(book: Workbook, ws: Worksheet, sheet: str, table: Table, header_row: int,
                   rows: tuple[int, int]) -> None:
    """Performance against cores, beside the ECM scaling table."""
    columns = [c.key for c in table.columns]
    if not table.rows or "gflop_per_s" not in columns:
        return
    quoted = quote_sheetname(sheet)
    first, last = rows[0] + 1, rows[1] + 1

    def column(key: str) -> str:
        name = xl_col_to_name(columns.index(key))
        return f"={quoted}!${name}${first}:${name}${last}"

    chart = book.add_chart({"type": "scatter", "subtype": "straight_with_markers"})
    chart.add_series({"name": "ECM prediction", "categories": column("cores"),
                      "values": column("gflop_per_s"), "line": {"color": "#5B9BD5"}})
    chart.set_title({"name": "Performance against cores"})
    chart.set_legend({"none": True})
    chart.set_x_axis({"name": "cores", "min": 0})
    chart.set_y_axis({"name": "Gflop/s", "min": 0})
    chart.set_size({"width": 720, "height": 360})
    ws.insert_chart(header_row, len(columns) + 1, chart)
