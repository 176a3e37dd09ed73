"""Where each quantity lives in the written workbook, and how a formula refers to it.

Every quantity gets a home cell before any formula is printed (:class:`CellMap`); a quantity
no table shows gets a row of the Workings sheet (:class:`Workings`); a formula refers to a
quantity by the defined name of a total, else by its cell (:class:`References`).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

from xlsxwriter.utility import quote_sheetname, xl_rowcol_to_cell

from sat.model.expr import Quantity
from sat.report.sheet import column_name

Location = tuple[str, int, int]  # sheet, row, column (0-based)


def address(location: Location, absolute: bool = True) -> str:
    sheet, row, col = location
    return f"{quote_sheetname(sheet)}!{xl_rowcol_to_cell(row, col, absolute, absolute)}"


class CellMap:
    """Where each quantity and parameter lives in the written workbook."""

    def __init__(self) -> None:
        self._homes: dict[int, Location] = {}
        self._quantities: dict[int, Quantity] = {}  # keeps ids valid while the map lives
        self._parameters: dict[str, Location] = {}
        self.names: dict[str, str] = {}  # parameter or total name -> workbook defined name

    def place(self, quantity: Quantity, location: Location) -> bool:
        """Make ``location`` the quantity's home unless it already has one."""
        key = id(quantity)  # one int object for both maps: a big workbook has 100,000 homes
        if key in self._homes:
            return False
        self._homes[key] = location
        self._quantities[key] = quantity
        return True

    def forget(self, quantities: list[Quantity]) -> None:
        """Forget the homes of ``quantities`` (and no longer keep them alive)."""
        homes, kept = self._homes, self._quantities
        for quantity in quantities:
            homes.pop(id(quantity), None)
            kept.pop(id(quantity), None)

    def home(self, quantity: Quantity) -> Location | None:
        return self._homes.get(id(quantity))

    def cell(self, quantity: Quantity) -> str | None:
        """Absolute address (``Loops!$AT$38``) of the cell holding ``quantity``, if placed."""
        location = self._homes.get(id(quantity))
        return address(location) if location else None

    def parameter_cell(self, name: str) -> str:
        """Absolute address of a parameter's value cell (``Parameters!$B$7``)."""
        return address(self._parameters[name])


# Where the Workings sheet's values go (title, description, header, then the rows).
_WORKINGS_FIRST_ROW, _WORKINGS_VALUE_COLUMN = 3, 1


class Workings:
    """The Workings sheet's rows: quantities a formula refers to and no table shows.

    Formulas refer to them by cell instead of repeating their expressions, which keeps every
    formula short and lets a reader follow each step.  A row is made when a formula first
    meets the quantity, so the sheet lists them in the order the workbook uses them.
    """

    def __init__(self, cells: CellMap) -> None:
        self.cells = cells
        self.sheet = "Workings"
        self.quantities: list[Quantity] = []

    def place(self, quantity: Quantity) -> None:
        row = _WORKINGS_FIRST_ROW + len(self.quantities)
        self.cells.place(quantity, (self.sheet, row, _WORKINGS_VALUE_COLUMN))
        self.quantities.append(quantity)


class References:
    """How a formula refers to a quantity: by the defined name of a total, else by its cell."""

    def __init__(self, cells: CellMap, total_names: dict[int, str],
                 place: Callable[[Quantity], None]) -> None:
        self.cells = cells
        self.total_names = total_names  # id(total) -> its defined name
        self.place = place  # gives a quantity no table shows a home (a Workings row)
        self._sheet_prefixes: dict[str, str] = {}  # sheet -> "'Its name'!"

    def on(self, sheet: str) -> Callable[[Quantity], str | None]:
        """The reference to a quantity from a formula on ``sheet`` (None: not placed).

        A quantity is referred to from many formulas of a sheet: its spelling there is made
        once, and forgotten with the sheet's resolver (a big program's workbook refers to a
        hundred thousand cells: the spellings of every sheet together would wait in memory).
        """
        return partial(self._reference, sheet, {})

    def _reference(self, current_sheet: str, spellings: dict[int, str],
                   quantity: Quantity) -> str | None:
        spelling = spellings.get(id(quantity))
        if spelling is None:
            spelling = spellings[id(quantity)] = self._spell(current_sheet, quantity)
        return spelling

    def _spell(self, current_sheet: str, quantity: Quantity) -> str:
        name = self.total_names.get(id(quantity))
        if name:
            return name
        location = self.cells.home(quantity)
        if location is None:
            self.place(quantity)
            location = self.cells.home(quantity)
        sheet, row, col = location  # type: ignore[misc]
        cell = column_name(col) + str(row + 1)
        if sheet == current_sheet:
            return cell
        prefix = self._sheet_prefixes.get(sheet)
        if prefix is None:
            prefix = self._sheet_prefixes[sheet] = quote_sheetname(sheet) + "!"
        return prefix + cell
