"""The live Excel workbook: a Parameters sheet of inputs and every model number as a formula.

Layout first, then writing: every quantity gets a home cell (Parameters for derived symbols,
its table sheet, or the Summary for a total no table shows) before any formula is printed, so
a formula can refer to a quantity on any sheet.  Each formula cell also carries the value
Python computed for it, for viewers that do not recalculate.
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from xlsxwriter.exceptions import XlsxWriterException
from xlsxwriter.utility import xl_col_to_name
from xlsxwriter.workbook import Format

from sat import collector
from sat.model import expr as E
from sat.model.expr import Env, Quantity
from sat.model.tables import CellValue, Column, ModelResult, Table
from sat.outputs import OutputError, atomic_write, check_output_path
from sat.parameter import Parameter
from sat.report.cells import CellMap, References, Workings, address
from sat.report.charts import add_chart, chart_columns
from sat.report.columns import (
    Word,
    auto_number_format,
    column_width,
    filled,
    header_text,
    numeric,
    with_words,
)
from sat.report.formula import (
    MAX_FORMULA_LENGTH,
    ExcelPrinter,
    FormulaParts,
    forget_parsed_cells,
)
from sat.report.names import NameTable
from sat.report.sheet import ModelBook, ModelSheet, quick_deflate, sheet_name


class WorkbookError(OutputError):
    """The workbook cannot be written (one-line message)."""


@dataclass
class WorkbookMeta:
    """What the Summary sheet says about the run."""

    sources: list[str]
    machine_name: str
    machine_source: str
    version: str
    created: str  # ISO date

    @property
    def machine_only(self) -> bool:
        """A run about the machine alone (a scenario without SOURCE): no application."""
        return not self.sources

    @property
    def title(self) -> str:
        if self.machine_only:
            return f"satreport: machine model of {self.machine_name}"
        return "satreport: performance model of " + ", ".join(self.sources)


# ------------------------------------------------------------------ styles

_INPUT = {"bg_color": "#FFF2CC", "font_color": "#0000FF", "border": 1, "border_color": "#BFBFBF"}
_DEFAULTED = {**_INPUT, "bg_color": "#F8CBAD"}
# an input whose cell holds the formula of its derived default until a value is typed over it
_DERIVED = {**_INPUT, "italic": True}
_HEADER = {"bold": True, "text_wrap": True, "valign": "top", "bg_color": "#D9D9D9",
           "bottom": 1}
_BAND = {"bold": True, "align": "center", "bg_color": "#DDEBF7", "border": 1}
_TOTAL = {"bold": True, "top": 1}
_TITLE = {"bold": True, "font_size": 14}
_GROUP = {"bold": True, "bg_color": "#EDEDED"}
_CPU_BOUND = {"bg_color": "#F4CCCC"}
_DRAM_BOUND = {"bg_color": "#CFE2F3"}

_GROUPS = (("machine", "Machine"), ("problem", "Problem size (code symbols)"),
           ("arrays", "Array element sizes (a formula of WordBytes until a number is typed)"),
           ("software", "Software and optimisation"))

# Texts shorter than this need no check against Excel's 32,767-character cell limit.
_SHORT_TEXT = 16000

# The Summary's key results: total name -> (label, unit).
_TOTAL_LABELS = {
    "Total_Time_s": ("Total time (ExaSAT bound: max of CPU, memory time)", "s"),
    "Total_Traffic_GB": ("Memory traffic", "GB"),
    "Total_GFlops": ("Work", "Gflop"),
    "Total_Weighted_GFlops": ("Weighted work (division and special costs)", "Gflop"),
    "Total_Bytes_Per_Flop": ("Bytes per weighted flop (B:F)", "B/flop"),
    "Compute_Bound_Share": ("Share of the time in compute-bound nests (CPU ≥ DRAM)", "fraction"),
    "Footprint_GiB": ("Memory footprint", "GiB"),
    "Total_ECM_Time_s": ("Total time (ECM on Cores cores)", "s"),
    "Total_Roofline_Time_s": ("Total time (Roofline over each level)", "s"),
    "Energy_J": ("Energy of the run on one node (Costs sheet)", "J"),
    "Power_W": ("Average power of the run (energy / time)", "W"),
    "Price_USD": ("Price of the system: Nodes × (processors + memory)", "USD"),
    "Peak_GFlops": ("Peak speed of the system (Nodes × Cores × GflopsPerCore)", "Gflop/s"),
    "Peak_Power_W": ("Power of the system at peak flops and peak memory bandwidth", "W"),
    "Die_Area_mm2": ("Die area of one node's cores and caches", "mm²"),
    "Rack_Units": ("Rack space of the system (Nodes × RackUnitsPerNode)", "U"),
    "Memory_Bandwidth_GBs": ("Memory bandwidth of the system (Nodes × Cores × GBsPerCore)",
                             "GB/s"),
}

_HOW_TO = [
    "Edit the yellow cells on the Parameters sheet (orange ones are defaults nobody set).",
    "Every other number is a formula over those cells: the whole workbook recalculates.",
    "LibreOffice shows the values stored in the file: after an edit press Ctrl+Shift+F9 "
    "(Data > Calculate > Recalculate Hard) if a number looks stale.",
    "Each column header has a comment explaining it; the Notes sheet lists assumptions.",
]

# The Workings sheet's formulas are printed this many at a time, the texts of their parts
# forgotten after each batch: only the formulas' own texts wait for the sheet to be written.
_WORKINGS_BATCH = 2000

# Column width (characters) that still prints legibly on one landscape page.
_PRINT_WIDTH = 220

_RESERVED_SHEETS = {"summary", "parameters", "notes"}
# What a machine-only workbook shows besides Summary, Parameters and Notes: the sheets and the
# totals about the question and the system, none about an application.
_MACHINE_SHEETS = frozenset(("Scenario", "Sweep"))
_SYSTEM_TOTALS = frozenset(("Price_USD", "Peak_GFlops", "Peak_Power_W", "Die_Area_mm2",
                            "Rack_Units", "Memory_Bandwidth_GBs"))


@dataclass
class _TableLayout:
    sheet: str
    table: Table
    band_row: int | None
    header_row: int
    first_row: int
    totals_row: int | None
    # per row: (column index, value) of its cells that hold something, in column order
    cells: list[list[tuple[int, CellValue]]] = field(default_factory=list)
    totals: list[tuple[int, CellValue]] = field(default_factory=list)  # likewise

    @property
    def last_row(self) -> int:
        return self.first_row + len(self.table.rows) - 1

    def column_index(self, key: str) -> int | None:
        return next((i for i, c in enumerate(self.table.columns) if c.key == key), None)


class _Writer:
    """Lays out and writes one workbook."""

    def __init__(self, result: ModelResult, meta: WorkbookMeta, env: Env):
        self.result = result
        self.meta = meta
        self.env = env
        self.cells = CellMap()
        self.names = NameTable()
        self.current_sheet = ""
        self.total_names: dict[int, str] = {}
        self.booleans = [p.name for p in result.parameters if p.kind == "boolean"]
        self.workings = Workings(self.cells)
        self.references = References(self.cells, self.total_names, self.workings.place)
        # parts of formulas too long for one cell (Workings rows), one set for every sheet
        self.parts = FormulaParts()
        self.printer = self._printer("")
        self._formats: dict[tuple, Format] = {}
        self.tables: list[_TableLayout] = []
        self._layout()

    # -------------------------------------------------------------- layout

    def _layout(self) -> None:
        result = self.result
        # Valid names keep their identity; only invalid ones are mapped (and numbered on clash).
        self.names.reserve([p.name for p in result.parameters] + list(result.totals))
        for p in result.parameters:
            self.cells.names[p.name] = self.names.name(p.name)
        for name, quantity in result.totals.items():
            self.total_names[id(quantity)] = self.names.name(name)
            self.cells.names[name] = self.names.name(name)

        taken = set(_RESERVED_SHEETS)
        self.summary_sheet, self.parameters_sheet = "Summary", "Parameters"
        self._layout_parameters()
        for key, table in result.tables.items():
            if self.meta.machine_only and key not in _MACHINE_SHEETS:
                continue  # an application sheet with no application
            self._layout_table(sheet_name(key, taken), table)
        self.notes_sheet = sheet_name("Notes", taken - {"notes"})
        self._layout_summary()
        self.workings.sheet = sheet_name("Workings", taken)

    def _layout_table(self, sheet: str, table: Table) -> None:
        table = with_words(table)
        has_band = any(c.band for c in table.columns)
        header_row = 3 if has_band else 2
        first = header_row + 1
        totals_row = first + len(table.rows) if table.totals is not None else None
        layout = _TableLayout(sheet, table, 2 if has_band else None, header_row, first,
                              totals_row, filled(table.columns, table.rows),
                              filled(table.columns, [table.totals or {}])[0])
        self.tables.append(layout)
        for r, cells in enumerate(layout.cells, start=first):
            self._place_row(sheet, r, cells)
        if totals_row is not None:
            self._place_row(sheet, totals_row, layout.totals)

    def _workings_table(self) -> Table:
        """The Workings sheet: every quantity placed there, those its own formulas refer to
        included (placed while they are printed here)."""
        printer, placed = self.printer, self.workings.quantities
        done = kept = 0
        for quantity in placed:  # the list grows while it is printed: those are printed too
            printer.formula(quantity.expr)
            done += 1
            if done % _WORKINGS_BATCH == 0:  # the texts of their parts are not kept for all
                printer.forget_all_but([q.expr for q in placed[kept:done]])
                kept = done
        printer.forget_all_but([quantity.expr for quantity in placed[kept:]])
        rows: list[dict[str, CellValue]] = [
            {"quantity": " ".join(map(str, quantity.key)), "value": quantity,
             "unit": quantity.unit, "meaning": quantity.label} for quantity in placed]
        columns = [
            Column("quantity", "Quantity", "", "Which intermediate quantity this row holds."),
            Column("value", "Value", "", "Its value: a formula over parameters and other cells."),
            Column("unit", "Unit", "", "Unit of the value."),
            Column("meaning", "Meaning", "", "What the quantity is."),
        ]
        return Table("Workings", "Workings: intermediate quantities the other sheets refer to",
                     columns, rows)

    def _place_row(self, sheet: str, row: int, cells: list[tuple[int, CellValue]]) -> None:
        place = self.cells.place
        for col, value in cells:
            if isinstance(value, Quantity):
                place(value, (sheet, row, col))

    def _layout_parameters(self) -> None:
        row = 4  # title, help, blank, header
        self.parameter_rows: list[tuple[int, Parameter | str]] = []
        for group, label in _GROUPS:
            members = [p for p in self.result.parameters if p.group == group]
            if not members:
                continue
            self.parameter_rows.append((row, label))
            row += 1
            for p in members:
                self.parameter_rows.append((row, p))
                self.cells._parameters[p.name] = (self.parameters_sheet, row, 1)
                row += 1
        self.derived_header_row = row + 1
        self.derived_rows: list[tuple[int, Quantity]] = []
        row = self.derived_header_row + 1
        for quantity in self.result.derived:
            if self.cells.place(quantity, (self.parameters_sheet, row, 1)):
                self.derived_rows.append((row, quantity))
                row += 1

    def _layout_summary(self) -> None:
        """Key results start at row 15; totals no table shows live there."""
        self.key_rows: list[tuple[int, str, Quantity]] = []
        row = 15
        for name, quantity in self.result.totals.items():
            if self.meta.machine_only and name not in _SYSTEM_TOTALS:
                # of no application: kept (a formula may name it) but not among the results
                self.workings.place(quantity)
                continue
            self.cells.place(quantity, (self.summary_sheet, row, 1))
            self.key_rows.append((row, name, quantity))
            row += 1
        self.summary_next_row = row

    # -------------------------------------------------------------- printing

    def _begin_sheet(self, sheet: str) -> None:
        """Formulas from now on are written on ``sheet`` (by the sheet's own printer)."""
        if sheet != self.current_sheet:
            self.current_sheet = sheet
            self.printer = self._printer(sheet)

    def _printer(self, sheet: str) -> ExcelPrinter:
        # A printer remembers what it printed, references included: one per sheet, since a
        # reference to a cell of the same sheet is spelt without the sheet name.  It holds
        # nothing of the writer: without a cycle, the writer is freed once the file is written.
        return ExcelPrinter(self.references.on(sheet), self.names.name, self.booleans,
                            self.parts)

    def _formula(self, expr: E.Expr, what: str) -> str:
        text = self.printer.formula(expr)
        if len(text) > MAX_FORMULA_LENGTH:
            raise WorkbookError(f"the formula for {what} is longer than Excel's limit of "
                                f"{MAX_FORMULA_LENGTH} characters")
        return text

    def _value(self, quantity: Quantity) -> float:
        value = quantity.value(self.env)
        return value if math.isfinite(value) else 0.0

    def _format(self, **props: Any) -> Format:
        key = tuple(sorted(props.items()))
        if key not in self._formats:
            self._formats[key] = self.book.add_format(props)
        return self._formats[key]

    def _write_quantity(self, ws: ModelSheet, row: int, col: int, quantity: Quantity,
                        fmt: Format, what: str) -> None:
        """The quantity's formula at its home, a reference to the home anywhere else."""
        if self.cells.home(quantity) == (self.current_sheet, row, col):
            formula = self._formula(quantity.expr, what)
        else:
            formula = self._formula(E.Ref(quantity), what)
        ws.write_model_formula(row, col, formula, fmt, self._value(quantity))

    def _write_value(self, ws: ModelSheet, row: int, col: int, value: CellValue, fmt: Format,
                     what: str) -> None:
        if isinstance(value, Quantity):
            self._write_quantity(ws, row, col, value, fmt, what)
        elif isinstance(value, bool):
            ws.write_boolean(row, col, value, fmt)
        elif isinstance(value, (int, float)):
            if math.isfinite(value):
                ws.write_table_number(row, col, value, fmt)
        elif isinstance(value, str):
            ws.write_table_string(row, col, value, fmt)
        elif isinstance(value, Word):
            code = self._formula(E.Ref(value.code), what)[1:]
            if value.first_code != 1:  # CHOOSE counts from 1
                code = f"{code}{1 - value.first_code:+d}"
            words = ",".join('"' + word.replace('"', '""') + '"' for word in value.words)
            ws.write_model_formula(row, col, f"=CHOOSE({code},{words})", fmt,
                                   value.text(self.env))  # type: ignore[arg-type]
        elif value is not None:
            ws.write_string(row, col, str(value), fmt)

    # -------------------------------------------------------------- writing

    def write(self, path: str) -> None:
        self.book = ModelBook(path, {
            "in_memory": True, "strings_to_numbers": False, "strings_to_formulas": False,
            "strings_to_urls": False})
        self.book.set_properties({
            "title": self.meta.title,
            "comments": f"Written by satreport {self.meta.version}"})
        summary = self.book.add_worksheet(self.summary_sheet, ModelSheet)
        parameters = self.book.add_worksheet(self.parameters_sheet, ModelSheet)
        sheets = [(self.book.add_worksheet(t.sheet, ModelSheet), t) for t in self.tables]
        self._write_parameters(parameters)
        for ws, layout in sheets:
            self._write_table(ws, layout)
        self._write_summary(summary)
        # Last of the formulas: every other sheet has placed what it refers to there.
        self._begin_sheet(self.workings.sheet)
        workings = self._workings_table()
        if workings.rows:
            self._layout_table(self.workings.sheet, workings)
            self._write_table(self.book.add_worksheet(self.workings.sheet, ModelSheet),
                              self.tables[-1])
        self._write_notes(self.book.add_worksheet(self.notes_sheet, ModelSheet))
        for name, quantity in self.result.totals.items():
            location = self.cells.home(quantity)
            if location is not None:  # always: unplaced totals live on the Summary
                self.book.define_name(self.names.name(name), "=" + address(location))
        summary.activate()
        with quick_deflate():
            self.book.close()
        for ws in self.book.worksheets():
            ws.release()
        # The map written says where the tables' quantities, the totals and the parameters
        # are (what the JSON names): the Workings sheet's intermediate quantities and formula
        # parts, tens of thousands in a big program, need not wait in memory for the outputs
        # written next, nor the cells the printers parsed.
        self.cells.forget([q for q in self.workings.quantities if id(q) not in self.total_names])
        forget_parsed_cells()

    def _write_parameters(self, ws: ModelSheet) -> None:
        self._begin_sheet(ws.name)
        ws.write_string(0, 0, "Parameters", self._format(**_TITLE))
        ws.write_string(1, 0, "Yellow cells are inputs: edit them and the whole workbook "
                              "recalculates. Orange cells are defaults nobody set. Italic "
                              "ones hold the formula of a default derived from other "
                              "parameters (Source: derived from …): it follows them until a "
                              "value is typed over it.")
        headers = ["Name", "Value", "Unit", "Description", "Source", "Defined name"]
        comments = [
            "Parameter name, as used by satreport --set NAME=VALUE and in the JSON output.",
            "The input value. Formulas everywhere refer to this cell by its defined name.",
            "Unit of the value.",
            "What the parameter means.",
            "Where the value comes from: a machine file, a parameter file, --set, or a default.",
            "The workbook-level defined name of the value cell. It differs from the parameter "
            "name only when that name is not a valid Excel name (e.g. NX1 looks like a cell).",
        ]
        header = self._format(**_HEADER)
        for col, (text, comment) in enumerate(zip(headers, comments, strict=True)):
            ws.write_string(3, col, text, header)
            ws.write_comment(3, col, comment, {"x_scale": 2})
        input_fmt = self._format(**_INPUT)
        default_fmt = self._format(**_DEFAULTED)
        derived_fmt = self._format(**_DERIVED)
        group_fmt = self._format(**_GROUP)
        for row, item in self.parameter_rows:
            if isinstance(item, str):
                ws.merge_range(row, 0, row, 5, item, group_fmt)
                continue
            p = item
            name = self.names.name(p.name)
            fmt = default_fmt if p.defaulted else input_fmt
            ws.write_string(row, 0, p.name)
            if p.kind == "boolean":
                ws.write_boolean(row, 1, bool(p.value), fmt)
                ws.data_validation(row, 1, row, 1, {
                    "validate": "list", "source": ["TRUE", "FALSE"],
                    "error_message": "Choose TRUE or FALSE."})
            elif p.derived:
                ws.write_model_formula(row, 1, self._formula(p.default, f"parameter {p.name}"),
                                       derived_fmt, self.env.param(p.name))
            else:
                ws.write_number(row, 1, float(p.value), fmt)
            ws.write_string(row, 2, p.unit)
            label = p.label or (f"code symbol {p.symbol}" if p.symbol else "")
            ws.write_string(row, 3, label)
            source = "default — please set" if p.defaulted else p.source
            ws.write_string(row, 4, source, default_fmt if p.defaulted else None)
            ws.write_string(row, 5, name, None if name == p.name else self._format(italic=True))
            self.book.define_name(name, "=" + self.cells.parameter_cell(p.name))
        if self.derived_rows:
            row = self.derived_header_row
            ws.merge_range(row, 0, row, 5,
                           "Derived quantities (symbol substitutions): formulas, not inputs",
                           group_fmt)
            values = [q.value(self.env) for _, q in self.derived_rows]
            number = self._format(num_format=auto_number_format(values))
            for row, q in self.derived_rows:
                name = self._derived_name(q)
                ws.write_string(row, 0, name)
                self._write_quantity(ws, row, 1, q, number, f"derived quantity {name}")
                ws.write_string(row, 2, q.unit)
                ws.write_string(row, 3, q.label)
                ws.write_string(row, 4, "formula")
        names = [p.name for p in self.result.parameters]
        labels = [p.label for p in self.result.parameters] + [q.label for q in self.result.derived]
        sources = [p.source for p in self.result.parameters]
        derived_names = [self._derived_name(q) for q in self.result.derived]
        ws.set_column(0, 0, min(max(map(len, names + derived_names), default=0) + 2, 40))
        ws.set_column(1, 1, 14)
        ws.set_column(2, 2, 10)
        ws.set_column(3, 3, min(max(map(len, labels), default=0) + 2, 60))
        ws.set_column(4, 4, min(max(map(len, sources + ["default — please set"])) + 2, 40))
        ws.set_column(5, 5, min(max(map(len, self.cells.names.values()), default=0) + 2, 40))
        ws.freeze_panes(4, 1)
        self._print_setup(ws, 3)

    @staticmethod
    def _derived_name(quantity: Quantity) -> str:
        """``("symbol", "dlo(1)")`` -> ``dlo(1)``; otherwise the label."""
        key = quantity.key
        return key[1] if len(key) == 2 and isinstance(key[1], str) else quantity.label

    def _write_table(self, ws: ModelSheet, layout: _TableLayout) -> None:
        self._begin_sheet(ws.name)
        table = layout.table
        columns = table.columns
        ws.write_string(0, 0, table.title or layout.sheet, self._format(**_TITLE))
        if table.description:
            ws.write_string(1, 0, table.description)
        if not columns:
            return
        if layout.band_row is not None:
            self._write_bands(ws, layout.band_row, columns)
        # Numbers sit at the right of their cells: so do the headers over them, or a printout
        # reads each number as belonging to the column on its right.
        header, number_header = self._format(**_HEADER), self._format(**_HEADER, align="right")
        widths = []
        values = self._column_values(layout)
        for col, column in enumerate(columns):
            text = header_text(column)
            ws.write_string(layout.header_row, col, text,
                            number_header if numeric(values[col]) else header)
            if column.comment:
                ws.write_comment(layout.header_row, col, column.comment,
                                 {"x_scale": 2, "y_scale": 1 + len(column.comment) // 120})
            widths.append(column_width(values[col], text))
        formats = [self._column_format(column, values[col]) for col, column in enumerate(columns)]
        data_formats = [fmt for fmt, _ in formats]
        whats = [f"{layout.sheet} {column.header}" for column in columns]
        # the columns' widths and the header's height before the rows, written as they come
        for col, width in enumerate(widths):
            ws.set_column(col, col, width)
        lines = max(math.ceil(len(header_text(c)) / max(w - 2, 1)) for c, w in
                    zip(columns, widths, strict=True))
        ws.set_row(layout.header_row, 15 * min(lines, 6))
        ws.begin_stream(chart_columns(layout.sheet, table))
        self._write_rows(ws, layout, data_formats, whats)
        layout.cells = []  # written: a big program's tables are not held twice till the end
        if layout.totals_row is not None:
            first_key = columns[0].key
            totals = dict(table.totals or {})
            if totals.get(first_key) is None:
                totals[first_key] = "Total"
            for col, column in enumerate(columns):
                self._write_value(ws, layout.totals_row, col, totals.get(column.key),
                                  formats[col][1], f"{layout.sheet} total {column.header}")
        if table.rows:
            ws.autofilter(layout.header_row, 0, layout.last_row, len(columns) - 1)
            self._mark_bottlenecks(ws, layout)
        frozen = 0
        while frozen < min(3, len(columns) - 1) and not any(
                isinstance(row.get(columns[frozen].key), Quantity) for row in table.rows):
            frozen += 1
        ws.freeze_panes(layout.header_row + 1, max(frozen, 1))
        self._print_setup(ws, layout.header_row, layout.band_row)
        # A wide table fitted to one page prints unreadably small: split it across pages,
        # each repeating the identifying columns.
        pages = math.ceil(sum(widths) / _PRINT_WIDTH)
        if pages > 1:
            ws.fit_to_pages(pages, 0)
            ws.repeat_columns(0, max(frozen, 1) - 1)
        add_chart(self.book, ws, layout.sheet, table, layout.header_row,
                  (layout.first_row, layout.last_row))
        ws.stream_rows(len(table.rows))

    def _write_rows(self, ws: ModelSheet, layout: _TableLayout, formats: list[Format],
                    whats: list[str]) -> None:
        """The table's data rows: what :meth:`_write_value` does per cell, a row at a time
        (a big program's workbook has a hundred thousand of these cells)."""
        formula, home, sheet = self.printer.formula, self.cells.home, self.current_sheet
        env, isfinite = self.env, math.isfinite
        for r, cells in enumerate(layout.cells, start=layout.first_row):
            row: list[tuple[int, str, Any, Format, float]] = []
            for col, value in cells:
                kind = value.__class__
                if kind is Quantity:
                    text = formula(value.expr if home(value) == (sheet, r, col)  # type: ignore
                                   else E.Ref(value))  # type: ignore[arg-type]
                    if len(text) > MAX_FORMULA_LENGTH:
                        raise WorkbookError(f"the formula for {whats[col]} is longer than "
                                            f"Excel's limit of {MAX_FORMULA_LENGTH} characters")
                    number = value.value(env)  # type: ignore[union-attr]
                    row.append((col, "f", text, formats[col],
                                number if isfinite(number) else 0.0))
                elif (kind is float or kind is int) and isfinite(value):  # type: ignore
                    row.append((col, "n", value, formats[col], 0.0))
                elif kind is str and len(value) < _SHORT_TEXT:  # type: ignore[arg-type]
                    row.append((col, "s", value, formats[col], 0.0))
                else:  # booleans, long texts, anything else: the general path
                    ws.store_row(r, row)
                    row = []
                    self._write_value(ws, r, col, value, formats[col], whats[col])
            ws.store_row(r, row)

    def _write_bands(self, ws: ModelSheet, row: int, columns: list[Column]) -> None:
        band = self._format(**_BAND)
        start = 0
        for col in range(1, len(columns) + 1):
            if col == len(columns) or columns[col].band != columns[start].band:
                text = columns[start].band
                if text and col - 1 > start:
                    ws.merge_range(row, start, row, col - 1, text, band)
                elif text:
                    ws.write_string(row, start, text, band)
                start = col

    def _column_values(self, layout: _TableLayout) -> list[list[Any]]:
        """Per column, its values (a quantity's evaluated), totals included; no empty cells."""
        values: list[list[Any]] = [[] for _ in layout.table.columns]
        for cells in [*layout.cells, layout.totals]:
            for col, value in cells:
                if isinstance(value, Quantity):
                    value = self._value(value)
                elif isinstance(value, Word):
                    value = value.text(self.env)
                values[col].append(value)
        return values

    def _column_format(self, column: Column, values: list[Any]) -> tuple[Format, Format]:
        """(data format, totals format) for one column."""
        number = column.number_format
        if number == "General":
            number = auto_number_format(values)
        return self._format(num_format=number), self._format(num_format=number, **_TOTAL)

    def _mark_bottlenecks(self, ws: ModelSheet, layout: _TableLayout) -> None:
        """Colour the larger of each nest's CPU and DRAM time (by formula: it follows edits)."""
        cpu, dram = layout.column_index("time_cpu_s"), layout.column_index("time_dram_s")
        if cpu is None or dram is None:
            return
        first, last = layout.first_row, layout.last_row
        c, d = f"${xl_col_to_name(cpu)}{first + 1}", f"${xl_col_to_name(dram)}{first + 1}"
        ws.conditional_format(first, cpu, last, cpu, {
            "type": "formula", "criteria": f"={c}>={d}", "format": self._format(**_CPU_BOUND)})
        ws.conditional_format(first, dram, last, dram, {
            "type": "formula", "criteria": f"={d}>{c}", "format": self._format(**_DRAM_BOUND)})

    def _write_notes(self, ws: ModelSheet) -> None:
        self._begin_sheet(ws.name)
        ws.write_string(0, 0, "Notes: warnings, defaults and assumptions", self._format(**_TITLE))
        header = self._format(**_HEADER)
        wrap = self._format(text_wrap=True, valign="top")
        top = self._format(valign="top")
        for col, text in enumerate(["Kind", "File", "Line", "Message"]):
            ws.write_string(2, col, text, header)
        notes = self.result.notes
        for r, note in enumerate(notes, start=3):
            ws.write_string(r, 0, note.kind, top)
            ws.write_string(r, 1, note.file, top)
            if note.line:
                ws.write_number(r, 2, note.line, top)
            ws.write_string(r, 3, note.message, wrap)
        ws.set_column(0, 0, 12)
        ws.set_column(1, 1, max([len(n.file) for n in notes] + [10]) + 2)
        ws.set_column(2, 2, 7)
        ws.set_column(3, 3, 100)
        if notes:
            ws.autofilter(2, 0, 2 + len(notes), 3)
        ws.freeze_panes(3, 0)
        self._print_setup(ws, 2)

    def _write_summary(self, ws: ModelSheet) -> None:
        self._begin_sheet(ws.name)
        meta = self.meta
        bold = self._format(bold=True)
        ws.write_string(0, 0, meta.title, self._format(**_TITLE))
        sources = ", ".join(meta.sources) or "none: the machine alone"
        facts = [("Sources", sources), ("Machine", meta.machine_name),
                 ("Machine file", meta.machine_source), ("Created", meta.created),
                 ("satreport version", meta.version)]
        for r, (label, text) in enumerate(facts, start=2):
            ws.write_string(r, 0, label, bold)
            ws.write_string(r, 1, text)
        ws.write_string(8, 0, "How to use this workbook", bold)
        wrap = self._format(text_wrap=True, valign="top")
        for r, text in enumerate(_HOW_TO, start=9):
            ws.merge_range(r, 0, r, 3, "• " + text, wrap)
            if len(text) > 90:  # widths below hold about 95 characters
                ws.set_row(r, 30)
        header = self._format(**_HEADER)
        ws.write_string(14, 0, "Key results", header)
        ws.write_string(14, 1, "Value", header)
        ws.write_string(14, 2, "Unit", header)
        for row, name, quantity in self.key_rows:
            label, unit = _TOTAL_LABELS.get(name, (quantity.label or name, quantity.unit))
            ws.write_string(row, 0, label)
            value = self._value(quantity)
            number_format = "0.0%" if unit == "fraction" else auto_number_format([value])
            fmt = self._format(num_format=number_format, bold=True)
            self._write_quantity(ws, row, 1, quantity, fmt, f"total {name}")
            ws.write_string(row, 2, unit)
        row = self._write_ratios(ws, self.summary_next_row)
        ws.set_column(0, 0, 52)
        ws.set_column(1, 1, 16)
        ws.set_column(2, 3, 14)
        self._write_nest_times(ws, row + 1)
        ws.set_landscape()
        ws.fit_to_pages(1, 0)

    def _write_ratios(self, ws: ModelSheet, row: int) -> int:
        """The memory-bound share, the complement of the model's compute-bound share."""
        share = self.result.totals.get("Compute_Bound_Share")
        if share is None or self.meta.machine_only:  # no nest: no share of anything
            return row
        ws.write_string(row, 0, "Share of the time in memory-bound nests")
        memory_bound = E.add(1, E.mul(-1, share))
        ws.write_model_formula(row, 1, self._formula(memory_bound, "memory-bound share"),
                         self._format(num_format="0.0%", bold=True),
                         memory_bound.evaluate(self.env))
        ws.write_string(row, 2, "fraction")
        return row + 1

    def _loops_layout(self) -> _TableLayout | None:
        for layout in self.tables:
            if layout.column_index("time_cpu_s") is not None and \
                    layout.column_index("time_dram_s") is not None:
                return layout
        return None

    def _write_nest_times(self, ws: ModelSheet, row: int) -> None:
        """Per-nest CPU and DRAM time (references into Loops) and a bar chart of them."""
        loops = self._loops_layout()
        if loops is None or not loops.table.rows:
            return
        header = self._format(**_HEADER)
        ws.write_string(row, 0, "Loop nest", header)
        ws.write_string(row, 1, "CPU time (s)", header)
        ws.write_string(row, 2, "DRAM time (s)", header)
        times = [self._value(r[k]) for r in loops.table.rows for k in ("time_cpu_s", "time_dram_s")
                 if isinstance(r.get(k), Quantity)]
        number = self._format(num_format=auto_number_format(times))
        first = row + 1
        for i, values in enumerate(loops.table.rows):
            r = first + i
            label = ":".join(str(values[k]) for k in ("procedure", "line") if k in values)
            ws.write_string(r, 0, label or f"nest {i + 1}")
            for col, key in ((1, "time_cpu_s"), (2, "time_dram_s")):
                self._write_value(ws, r, col, values.get(key), number, f"Summary {key}")
        last = first + len(loops.table.rows) - 1
        ws.conditional_format(first, 1, last, 1, {
            "type": "formula", "criteria": f"=$B{first + 1}>=$C{first + 1}",
            "format": self._format(**_CPU_BOUND)})
        ws.conditional_format(first, 2, last, 2, {
            "type": "formula", "criteria": f"=$C{first + 1}>$B{first + 1}",
            "format": self._format(**_DRAM_BOUND)})
        chart = self.book.add_chart({"type": "bar"})
        for col, name, color in ((1, "CPU time", "#E06666"), (2, "DRAM time", "#6FA8DC")):
            chart.add_series({
                "name": name,
                "categories": ["Summary", first, 0, last, 0],
                "values": ["Summary", first, col, last, col],
                "fill": {"color": color}, "gap": 60})
        chart.set_title({"name": "Time per loop nest: CPU vs DRAM"})
        chart.set_x_axis({"name": "time (s)", "num_format": "0.0E+00"})
        chart.set_y_axis({"reverse": True})
        chart.set_legend({"position": "top"})
        n = len(loops.table.rows)
        chart.set_size({"width": 640, "height": max(320, min(6000, 60 + 22 * n))})
        ws.insert_chart(1, 4, chart)

    @staticmethod
    def _print_setup(ws: ModelSheet, header_row: int, band_row: int | None = None) -> None:
        ws.set_landscape()
        ws.fit_to_pages(1, 0)
        ws.repeat_rows(band_row if band_row is not None else header_row, header_row)


def _lock_file(target: Path) -> Path | None:
    """The lock file Excel (``~$name``) or LibreOffice (``.~lock.name#``) keeps beside it."""
    for name in (f"~${target.name}", f".~lock.{target.name}#"):
        candidate = target.parent / name
        if candidate.exists():
            return candidate
    return None


def write_workbook(result: ModelResult, path: str, meta: WorkbookMeta,
                   env: Env | None = None) -> CellMap:
    """Write the live workbook for ``result`` to ``path`` atomically; return where things are.

    ``env`` is an evaluation of ``result`` already made (its cached values are reused).
    """
    try:
        target = check_output_path(path, ".xlsx")
    except OutputError as error:
        raise WorkbookError(str(error)) from None
    lock = _lock_file(target)
    if lock is not None:
        raise WorkbookError(f"{path}: the file is open in another program ({lock.name} exists); "
                            "close it first")
    try:
        # The write's objects are freed by reference counting (the writer holds no cycle,
        # and ModelSheet.release cuts the cells loose from xlsxwriter's): no collection.
        with collector.paused():
            return _write(result, os.fspath(target), meta, env or result.env())
    except OutputError as error:
        raise WorkbookError(str(error)) from None
    except XlsxWriterException as error:
        raise WorkbookError(f"{path}: {error}") from None


def _write(result: ModelResult, path: str, meta: WorkbookMeta, env: Env) -> CellMap:
    # Apart, so that what the write made is garbage by the time the collector resumes: its
    # first pass then frees xlsxwriter's few reference cycles while they are young.
    writer = _Writer(result, meta, env)
    atomic_write(path, writer.write)
    return writer.cells
