"""The worksheet class of the workbook: xlsxwriter's, with short cuts for the model's cells.

A big program's workbook holds tens of thousands of formula, number and text cells, and
xlsxwriter spends most of its time per cell: rewriting each formula for functions newer than
Excel 2007, checking arguments, and assembling each cell's XML from lists of attributes.
:class:`ModelSheet` stores and writes the cells it is given without those general steps, to
the same bytes (``tests/test_sheet.py`` compares its files with plain xlsxwriter's).
"""

from __future__ import annotations

import re
import tempfile
import zipfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from io import StringIO

import xlsxwriter.workbook
from xlsxwriter.packager import Packager
from xlsxwriter.utility import xl_col_to_name
from xlsxwriter.workbook import Format
from xlsxwriter.worksheet import CellFormulaTuple, CellNumberTuple, CellStringTuple, Worksheet


class ModelSheet(Worksheet):
    """A worksheet that stores the model's formulas as printed and writes its cells quickly.

    xlsxwriter rewrites every formula for Excel functions newer than Excel 2007 (``XLOOKUP(``
    to ``_xlfn.XLOOKUP(``) with some thirty regular-expression passes, and looks for dynamic
    array functions (``FILTER(``) in it.  :class:`~sat.report.formula.ExcelPrinter` prints only
    functions that need neither (SUM and :data:`sat.model.expr.FUNCTIONS`; the tests check that
    the rewriting leaves them unchanged and that none counts as a dynamic array function), so
    :meth:`write_model_formula` stores them as they are.  Every other formula (conditional
    formats, charts) still goes through xlsxwriter's passes.
    """

    # Off, the sheet is written by xlsxwriter's own code: the tests compare the two.
    fast_rows = True
    # The XML of the rows, written ahead of the file to a temporary file (stream_rows).
    _written_rows = None
    # While rows are written ahead as they are stored (begin_stream): that temporary file, and
    # the first row not written yet.
    _stream = None
    _streamed_to = 0
    # While rows are streamed: the XML of the cells stored by store_row and not written yet,
    # by row, each cell as (column, '<c r="A1"', its format, the rest of its XML); the rows'
    # cells of other kinds wait in the table as usual.
    _pending: dict[int, list[tuple[int, str, Format | None, str]]] | None = None

    def write_model_formula(self, row: int, col: int, formula: str, fmt: Format | None,
                            value: float) -> None:
        """Store ``formula`` (``=...``, from the printer) with its computed ``value``."""
        if self._check_dimensions(row, col):
            return  # outside the sheet: ignored, as xlsxwriter's write_formula does
        self.table[row][col] = CellFormulaTuple(formula[1:], fmt, value)

    # write_string and write_number for the cells of tables, without the look for A1 notation
    # ("B7") on every call, which costs as much as storing the cell: tables give numbers.
    write_table_string = Worksheet._write_string
    write_table_number = Worksheet._write_number

    def store_row(self, row: int, cells: list[tuple[int, str, object, Format | None, float]]
                  ) -> None:
        """Store one row of a table: ``(col, kind, payload, format, value)`` per cell, columns
        ascending; kind ``f`` a model formula (``=...``) with its computed value, ``n`` a finite
        number, ``s`` a short text (under 16,000 characters).

        One dimension check for the row instead of one per cell: a table row of a big program
        is dozens of cells, and the per-cell checks cost as much as storing them.
        """
        if not cells:
            return
        if not self.fast_rows or self.constant_memory:
            for col, kind, payload, fmt, value in cells:
                if kind == "f":
                    self.write_model_formula(row, col, payload, fmt, value)  # type: ignore
                elif kind == "n":
                    self._write_number(row, col, payload, fmt)  # type: ignore[arg-type]
                else:
                    self._write_string(row, col, payload, fmt)  # type: ignore[arg-type]
            return
        if self._check_dimensions(row, cells[0][0]) or self._check_dimensions(row, cells[-1][0]):
            return  # outside the sheet: ignored, as xlsxwriter does
        if self._pending is not None:
            self._store_row_xml(row, cells)
            return
        shared = self.str_table._get_shared_string_index
        stored = self.table[row]
        for col, kind, payload, fmt, value in cells:
            if kind == "f":
                stored[col] = CellFormulaTuple(payload[1:], fmt, value)  # type: ignore[index]
            elif kind == "n":
                stored[col] = CellNumberTuple(payload, fmt)
            else:
                stored[col] = CellStringTuple(shared(payload), fmt)
        if self._stream is not None and row - self._streamed_to >= STREAM_CHUNK_ROWS:
            self._write_ahead(row - row % 16)  # whole blocks of 16 rows: their spans are known

    def _store_row_xml(self, row: int, cells: list[tuple[int, str, object, Format | None, float]]
                       ) -> None:
        """:meth:`store_row` while rows are streamed: each cell's XML made now, but for its
        style number (numbered in the order the file uses the formats, when written); a cell
        whose style comes from its row or column, or whose value is not a number, waits in
        the table as usual."""
        pending = self._pending.setdefault(row, [])  # type: ignore[union-attr]
        shared = self.str_table._get_shared_string_index
        number = str(row + 1)
        names, col_info, keep = _COLUMNS, self.col_info, self._kept_columns
        info = self.row_info.get(row)
        plain_row = info is None or not info.row_format
        escape = self._escape_data
        stored = None
        for col, kind, payload, fmt, value in cells:
            if kind == "s":
                payload = shared(payload)  # its number among the shared strings, counted once
            if (not fmt and (not plain_row or col in col_info)) or \
                    (kind == "f" and value.__class__ not in _PLAIN_NUMBERS):
                if stored is None:
                    stored = self.table[row]
                stored[col] = _cell_tuple(kind, payload, fmt, value)
            else:
                head = f'<c r="{names.get(col) or column_name(col)}{number}"'
                if kind == "f":
                    text = payload[1:]  # type: ignore[index]
                    if "<" in text or ">" in text or "&" in text:  # most formulas have none
                        text = escape(text)
                    pending.append((col, head, fmt, f"><f>{text}</f><v>{value}</v></c>"))
                elif kind == "n":
                    pending.append((col, head, fmt, f"><v>{payload:.16G}</v></c>"))
                else:
                    pending.append((col, head, fmt, f' t="s"><v>{payload}</v></c>'))
            if keep and col in keep:  # a chart's cached data is read from the cell at the end
                self._kept.setdefault(row, {})[col] = _cell_tuple(kind, payload, fmt, value)
        if self._stream is not None and row - self._streamed_to >= STREAM_CHUNK_ROWS:
            self._write_ahead(row - row % 16)  # whole blocks of 16 rows: their spans are known

    def begin_stream(self, keep_columns: tuple[int, ...] = ()) -> None:
        """From now on, write the XML of the rows ahead as they are stored, every
        :data:`STREAM_CHUNK_ROWS` rows, to a temporary file, and drop their cells; rows are
        then stored in order, below every row stored before (the rows of a table).

        The cells of ``keep_columns`` stay (a chart's cached data is read from them when the
        file is written).  :meth:`stream_rows` writes the last rows.  Formats, widths and
        heights of the columns and rows must be set before (they are part of a row's XML).
        """
        if not self.fast_rows or self.constant_memory or self._written_rows is not None \
                or self._stream is not None:
            return
        self._stream = tempfile.TemporaryFile("w+", encoding="utf-8")
        self._ahead_formats = []
        self._kept_columns = keep_columns
        self._kept: dict[int, dict] = {}
        self._pending = {}
        self._streamed_to = self.dim_rowmin if self.dim_rowmin is not None else 0

    def _write_ahead(self, stop: int) -> None:
        """Write the rows from the last written up to ``stop`` (excluded) to the stream."""
        start = self._streamed_to
        if stop <= start:
            return
        saved, self.fh = self.fh, self._stream
        try:
            self._calculate_spans(start, stop - 1)
            self._write_row_range(start, stop - 1)
        finally:
            self.fh = saved
        table, keep, kept = self.table, self._kept_columns, self._kept
        for row in range(start, stop):
            cells = table.pop(row, None)
            if keep and cells:
                kept.setdefault(row, {}).update(
                    (col, cells[col]) for col in keep if col in cells)
        self._streamed_to = stop

    def stream_rows(self, rows: int) -> None:
        """Write the XML of the rows now, to a temporary file, and drop the cells, when the
        finished sheet is a table of at least :data:`STREAMED_ROWS` ``rows``.

        For a program's tables: their cells would otherwise wait in memory, with every other
        sheet's, until the file is closed (xlsxwriter's ``constant_memory`` mode does the same
        row by row, but writes strings inline, and asks for every sheet to be written strictly
        in row order).  Not for a sheet with charts, whose cached data xlsxwriter reads from
        the cells at the end.  xlsxwriter numbers the styles in the order the file first uses
        them, so the rows written ahead name each format by a placeholder, replaced by its
        number when the file is written (:meth:`_write_rows`): the file is byte for byte the
        one written all at the end.
        """
        if self._stream is not None:
            if self.dim_rowmax is not None:
                self._write_ahead(self.dim_rowmax + 1)
            self._written_rows, self._stream, self._pending = self._stream, None, None
            self.table.clear()
            self.table.update(self._kept)
            return
        if rows < STREAMED_ROWS or not self.fast_rows or self.constant_memory or self.charts \
                or self._written_rows is not None or self.dim_rowmin is None:
            return
        saved, self.fh = self.fh, tempfile.TemporaryFile("w+", encoding="utf-8")
        self._ahead_formats = []
        try:
            self._write_rows()
        finally:
            self._written_rows, self.fh = self.fh, saved
        self.table.clear()

    def release(self) -> None:
        """Drop the cells once the file is written.

        xlsxwriter's workbook and sheets refer to each other, so without this the cells would
        wait for a full pass of the garbage collector.
        """
        self.table.clear()

    # ------------------------------------------------------------ XML of the cells
    # Overrides of xlsxwriter's Worksheet._calculate_spans and _write_rows (3.x) that give the
    # same output; cells of any other kind, or that take their format from their row or
    # column, are left to xlsxwriter's _write_cell.

    def _calculate_spans(self, first: int | None = None, last: int | None = None) -> None:
        """The spans of the blocks of 16 rows from ``first`` to ``last`` (all rows: the
        sheet's); written ahead, ``last`` ends a block or the sheet."""
        if not self.fast_rows or self.constant_memory:
            super()._calculate_spans()
            return
        # "first:last" column (1-based) of the cells and comments of each block of 16 rows
        spans: dict[int, str] = {}
        low = high = None
        first_col, last_col = self.dim_colmin, self.dim_colmax
        first = self.dim_rowmin if first is None else first
        last = self.dim_rowmax if last is None else last
        pending = self._pending or {}
        for row in range(first, last + 1):
            for cells in (self.table.get(row), self.comments.get(row), pending.get(row)):
                if not cells:
                    continue
                columns = [c for c in cells if first_col <= c <= last_col] \
                    if cells.__class__ is dict else [cell[0] for cell in cells]
                if columns:
                    low = min(columns) if low is None else min(low, *columns)
                    high = max(columns) if high is None else max(high, *columns)
            if (row + 1) % 16 == 0 or row == last:
                if low is not None:
                    spans[row // 16] = f"{low + 1}:{high + 1}"
                    low = high = None
        self.row_spans = spans

    # Formats named by a placeholder in rows written ahead, in the order the rows first use
    # them (None: the rows are written into the file, formats by their numbers).
    _ahead_formats: list[Format] | None = None

    def _style_number(self, fmt: Format) -> str:
        """The style number of ``fmt``; while rows are written ahead, its placeholder."""
        formats = self._ahead_formats
        if formats is None:
            return str(fmt._get_xf_index())
        formats.append(fmt)
        return f"\x01{len(formats) - 1}\x02"

    def _write_cell(self, row: int, col: int, cell) -> None:
        """xlsxwriter's cell writer; while rows are written ahead, the cell's, row's and
        column's formats that have no number yet give their placeholders instead."""
        if self._ahead_formats is None:
            super()._write_cell(row, col, cell)
            return
        info, column = self.row_info.get(row), self.col_info.get(col)
        formats = [fmt for fmt in (cell.format, info and info.row_format,
                                   column and column.column_format)
                   if fmt and fmt.xf_index is None]
        for fmt in formats:
            fmt.xf_index = self._style_number(fmt)
        try:
            super()._write_cell(row, col, cell)
        finally:
            for fmt in formats:
                fmt.xf_index = None

    def _copy_written_rows(self) -> None:
        """The rows written ahead into the file, each placeholder replaced by its format's
        style number, numbered now in the order the rows use them."""
        written, self._written_rows = self._written_rows, None
        formats, self._ahead_formats = self._ahead_formats or [], None
        numbers: dict[str, str] = {}  # placeholder's position (text) -> the style number

        def numbered(text: str) -> str:
            pieces = _PLACEHOLDER.split(text)  # odd items: the placeholders' positions
            marks = pieces[1::2]
            if marks:
                # Numbered in the order of their positions, the order the rows first use
                # them: the one xlsxwriter's lazy numbering of the file gives.
                for position in range(len(numbers), max(map(int, set(marks))) + 1):
                    numbers[str(position)] = str(formats[position]._get_xf_index())
                pieces[1::2] = [numbers[mark] for mark in marks]
            return "".join(pieces)

        with written:
            written.seek(0)
            rest = ""
            while chunk := written.read(1 << 20):
                text = rest + chunk
                # up to the last whole row: no placeholder is cut in two
                last = text.rfind("</row>")
                end = last + len("</row>") if last >= 0 else 0
                self.fh.write(numbered(text[:end]))
                rest = text[end:]
            self.fh.write(numbered(rest))

    def _write_rows(self) -> None:
        if self._written_rows is not None:  # written ahead: copied into the file
            self._copy_written_rows()
            return
        if not self.fast_rows or self.constant_memory:
            super()._write_rows()
            return
        self._calculate_spans()
        self._write_row_range(self.dim_rowmin, self.dim_rowmax)

    def _write_row_range(self, first: int, last: int) -> None:
        """The XML of the rows from ``first`` to ``last``, their spans calculated.

        The pieces are gathered in a list and written a few thousand rows at a time: the file
        encodes each text it is given, and one write per cell cost as much as making its XML.
        """
        pieces: list[str] = []
        saved, self.fh = self.fh, _Pieces(pieces)  # xlsxwriter's own writers append too
        try:
            self._gather_row_range(first, last, pieces, saved)
        finally:
            self.fh = saved
        saved.write("".join(pieces))

    def _gather_row_range(self, first: int, last: int, pieces: list[str], target) -> None:
        """The rows' XML appended to ``pieces``, moved to ``target`` every few thousand."""
        write = pieces.append
        table, row_info, comments = self.table, self.row_info, self.comments
        pending = self._pending
        # id(format) -> ' s="its index"': xlsxwriter numbers the formats before the sheets
        styles: dict[int, str] = {}
        for row in range(first, last + 1):
            cells = table.get(row)
            made = pending.pop(row, None) if pending else None
            info = row_info.get(row)
            if not cells and not made:
                if info is not None or row in comments:
                    self._write_empty_row(row, self.row_spans.get(row // 16), info)
                continue
            self._write_row(row, self.row_spans.get(row // 16), info)
            if made and not cells:  # the common row of a streamed table: its XML is made
                for _, head, fmt, tail in made:
                    if fmt:
                        write(head + (styles.get(id(fmt)) or self._style(fmt, styles)) + tail)
                    else:
                        write(head + tail)
            else:
                number = str(row + 1)
                made_at = {cell[0]: cell for cell in made or ()}
                for col in sorted(cells.keys() | made_at.keys()):
                    cell = made_at.get(col)
                    if cell is not None:
                        _, head, fmt, tail = cell
                        write(head + (self._style(fmt, styles) if fmt else "") + tail)
                    else:
                        self._gather_cell(row, col, number, cells[col], styles, write)
            write("</row>")
            if len(pieces) >= _PIECES_PER_WRITE:
                target.write("".join(pieces))
                pieces.clear()

    def _style(self, fmt: Format, styles: dict[int, str]) -> str:
        """The style attribute of a cell of format ``fmt`` (``styles``: those made so far)."""
        style = styles.get(id(fmt))
        if style is None:
            style = styles[id(fmt)] = f' s="{self._style_number(fmt)}"'
        return style

    def _gather_cell(self, row: int, col: int, number: str, cell, styles: dict[int, str],
                     write: Callable[[str], object]) -> None:
        """The XML of one cell of the table, appended by ``write`` (``number``: the row's)."""
        if not self.dim_colmin <= col <= self.dim_colmax:
            return
        fmt = cell.format
        if not fmt:
            info = self.row_info.get(row)
            if (info is not None and info.row_format) or col in self.col_info:
                self._write_cell(row, col, cell)  # the row's or the column's format
                return
        kind = cell.__class__
        style = self._style(fmt, styles) if fmt else ""
        name = _COLUMNS.get(col) or column_name(col)
        if kind is CellFormulaTuple and cell.value.__class__ in _PLAIN_NUMBERS:
            text = cell.formula
            if "<" in text or ">" in text or "&" in text:  # most formulas have none
                text = self._escape_data(text)
            write(f'<c r="{name}{number}"{style}><f>{text}</f><v>{cell.value}</v></c>')
        elif kind is CellNumberTuple:
            write(f'<c r="{name}{number}"{style}><v>{cell.number:.16G}</v></c>')
        elif kind is CellStringTuple:
            write(f'<c r="{name}{number}"{style} t="s"><v>{cell.string}</v></c>')
        else:
            self._write_cell(row, col, cell)


def _cell_tuple(kind: str, payload: object, fmt: Format | None, value: float):
    """xlsxwriter's stored cell for a cell of :meth:`ModelSheet.store_row` (a text by its
    number among the shared strings)."""
    if kind == "f":
        return CellFormulaTuple(payload[1:], fmt, value)  # type: ignore[index]
    if kind == "n":
        return CellNumberTuple(payload, fmt)
    return CellStringTuple(payload, fmt)


class _Pieces:
    """A file to xlsxwriter's XML writers whose every write is appended to a list."""

    __slots__ = ("write",)

    def __init__(self, pieces: list[str]) -> None:
        self.write = pieces.append


# Pieces of XML gathered before they are written to the file in one text.
_PIECES_PER_WRITE = 1 << 14

# A table of this many rows is written ahead (ModelSheet.stream_rows): every table with rows.
STREAMED_ROWS = 1
# Rows streamed (ModelSheet.begin_stream) are written ahead this many at a time.
STREAM_CHUNK_ROWS = 512
# A format's placeholder in rows written ahead: its position in ModelSheet._ahead_formats.
_PLACEHOLDER = re.compile("\x01(\\d+)\x02")

# The classes of a formula's cached value that xlsxwriter writes as they are (a logical, a
# text or an error code takes a type attribute).
_PLAIN_NUMBERS = (float, int)

_COLUMNS: dict[int, str] = {}  # column -> its letters


def column_name(col: int) -> str:
    """The letters of column ``col`` (0-based): ``AT`` for 45."""
    name = _COLUMNS.get(col)
    if name is None:
        name = _COLUMNS[col] = xl_col_to_name(col)
    return name


# zlib's level for the parts of the file: level 1 deflates a big workbook's 12 MB of XML in a
# quarter of the time of the default level 6 (0.05 s instead of 0.2 s) into a third more
# bytes (1.6 MB instead of 1.2 MB).
DEFLATE_LEVEL = 1


class _QuickZipInfo(zipfile.ZipInfo):
    """A member of the file, deflated at :data:`DEFLATE_LEVEL`."""

    __slots__ = ()

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self._compresslevel = DEFLATE_LEVEL  # read by ZipFile.writestr (3.13: an alias)


@contextmanager
def quick_deflate() -> Iterator[None]:
    """While the workbook is closed, its parts are deflated at :data:`DEFLATE_LEVEL`.

    xlsxwriter makes one ``ZipInfo`` per part (and so the zlib level, which ``ZipFile``'s own
    ``compresslevel`` does not reach), by the name its module imported.
    """
    saved = xlsxwriter.workbook.ZipInfo
    xlsxwriter.workbook.ZipInfo = _QuickZipInfo
    try:
        yield
    finally:
        xlsxwriter.workbook.ZipInfo = saved


# A part of the file larger than this waits for the zip on disk rather than in memory.
SPOOLED_PART_BYTES = 1 << 20


class _SpooledPart(StringIO):
    """The text of one part of the file (a sheet's XML, the shared strings ...), kept in a
    temporary file once it is larger than :data:`SPOOLED_PART_BYTES`.

    xlsxwriter's ``in_memory`` mode writes every part into a ``StringIO`` and zips them all
    once the last is written: a big program's sheets all wait in memory together.  This one
    is a ``StringIO`` to xlsxwriter (which writes into it and reads it back whole with
    ``getvalue``), but only the part being zipped is in memory at a time; the zip entries,
    and so the file's bytes, are those of ``in_memory`` mode.
    """

    def __init__(self) -> None:
        super().__init__()
        self._file = tempfile.SpooledTemporaryFile(SPOOLED_PART_BYTES, "w+", encoding="utf-8")

    def write(self, text: str) -> int:  # type: ignore[override]
        return self._file.write(text)

    def getvalue(self) -> str:
        """The part's whole text; the temporary file is closed (each part is read once)."""
        with self._file as part:
            part.seek(0)
            return part.read()


class _SpoolingPackager(Packager):
    """xlsxwriter's packager, with each part of the file in a :class:`_SpooledPart`."""

    def _filename(self, xml_filename: str) -> StringIO:
        part = _SpooledPart()
        self.filenames.append((part, xml_filename, False))
        return part


class ModelBook(xlsxwriter.Workbook):
    """xlsxwriter's workbook (``in_memory`` mode) whose parts wait for the zip on disk."""

    def _get_packager(self) -> Packager:
        return _SpoolingPackager()


def sheet_name(name: str, taken: set[str]) -> str:
    """A valid, unique worksheet name (at most 31 characters, none of ``[]:*?/\\``)."""
    base = "".join("_" if ch in "[]:*?/\\" else ch for ch in name).strip("'") or "Sheet"
    base = base[:31]
    candidate, n = base, 1
    while candidate.lower() in taken:
        n += 1
        candidate = f"{base[:28]} {n}"
    taken.add(candidate.lower())
    return candidate
