"""End to end: the workbook satreport writes agrees with the JSON it prints, before and after
a user edits parameters in the workbook and LibreOffice recalculates."""

from __future__ import annotations

import json
from pathlib import Path

import openpyxl
import pytest
from libreoffice import recalculate
from test_cli import REFERENCE_ARGS

from sat.cli import main


# One edit per recalculation: every machine parameter (doubled; Overlap switched off), a
# problem-size symbol, the three block sizes and both booleans (switched).
def edits(parameters: list[dict]) -> dict[str, float | bool]:
    chosen: dict[str, float | bool] = {}
    for p in parameters:
        if p["group"] == "machine":
            chosen[p["name"]] = 0 if p["name"] == "Overlap" else p["value"] * 2
        elif p["name"].startswith("Fuse_"):  # a loop fusion toggle: 0 or 1
            chosen[p["name"]] = 1 - p["value"]
        elif p["group"] == "software":
            chosen[p["name"]] = (not p["value"]) if isinstance(p["value"], bool) else 32
    chosen["hi_1"] = 256
    return chosen


def _number(value: object) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def cli_json(capsys, *argv: str) -> dict:
    status = main([*argv, "--json", "-", "-q"])
    out, err = capsys.readouterr()
    assert status == 0, err
    return json.loads(out)


def cell_value(book: openpyxl.Workbook, address: str) -> object:
    sheet, cell = address.rsplit("!", 1)
    return book[sheet.strip("'")][cell.replace("$", "")].value


def numbers_and_cells(data: dict) -> list[tuple[str, float, str]]:
    """(what, value, cell) of every nest's and the totals' cell-backed numbers."""
    rows = [*data["loops"], data["totals"]]
    return [(f"{row.get('procedure')}:{row.get('line')} {key}", row[key], cell)
            for row in rows for key, cell in row["cells"].items()]


def test_cached_values_equal_the_json(capsys, tmp_path):
    book_path, json_path = tmp_path / "ref.xlsx", tmp_path / "ref.json"
    assert main([*REFERENCE_ARGS, "-o", str(book_path), "--json", str(json_path)]) == 0
    data = json.loads(json_path.read_text())
    book = openpyxl.load_workbook(book_path, data_only=True)
    checked = numbers_and_cells(data)
    assert len(checked) > 80  # two nests and the totals, some 30 quantities each
    for what, value, cell in checked:
        assert cell_value(book, cell) == pytest.approx(value, rel=1e-12, abs=1e-300), what
    for parameter in data["parameters"]:
        assert cell_value(book, parameter["cell"]) == parameter["value"], parameter["name"]


HYPTERM = [str(Path(__file__).resolve().parent.parent / "examples" / "hypterm.f90")]


@pytest.mark.libreoffice
@pytest.mark.parametrize("source", [REFERENCE_ARGS, HYPTERM], ids=["reference", "hypterm.f90"])
def test_edited_workbook_recalculates_to_what_set_prints(capsys, tmp_path, source):
    base = tmp_path / "ref.xlsx"
    assert main([*source, "-o", str(base), "--json", str(tmp_path / "ref.json")]) == 0
    data = json.loads((tmp_path / "ref.json").read_text())
    cell_of = {p["name"]: p["cell"] for p in data["parameters"]}
    changes = edits(data["parameters"])
    toggles = sum(name.startswith("Fuse_") for name in changes)  # hypterm's three nests
    assert toggles == (1 if source == HYPTERM else 0)
    # machine, costs, software, the fusion toggles, one problem size
    assert len(changes) == 16 + 10 + 5 + toggles + 1
    copies = []
    book = openpyxl.load_workbook(base)  # read once: each copy is the base with one cell typed
    for name, value in changes.items():
        copy = tmp_path / f"edit-{name}.xlsx"
        sheet, cell = cell_of[name].rsplit("!", 1)
        typed = book[sheet][cell.replace("$", "")]
        old, typed.value = typed.value, value
        book.save(copy)
        typed.value = old
        copies.append(copy)
    recalculated = recalculate(copies, tmp_path / "out")
    changed = 0
    for (name, value), path in zip(changes.items(), recalculated, strict=True):
        expected = cli_json(capsys, *source, "--set", f"{name}={value}")
        book = openpyxl.load_workbook(path, data_only=True)
        for what, number, cell in numbers_and_cells(expected):
            assert cell_value(book, cell) == pytest.approx(number, rel=1e-9, abs=1e-300), \
                f"{name}={value}: {what}"
        changed += expected["totals"]["time_s"] != data["totals"]["time_s"]
    assert changed >= 8  # many edits really change what the user looks at


@pytest.mark.libreoffice
@pytest.mark.slow  # parses a 4,500-line module: about 10 s, plus 5 s in LibreOffice
def test_a_400_nest_program_recalculates_without_errors(tmp_path):
    import sys

    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "bench"))
    from generate_fortran import generate_module

    source = tmp_path / "big.f90"
    source.write_text(generate_module(400))
    book = tmp_path / "big.xlsx"
    assert main([str(source), "-o", str(book), "-q"]) == 0
    (recalculated,) = recalculate([book], tmp_path / "out")
    before = openpyxl.load_workbook(book, data_only=True)
    after = openpyxl.load_workbook(recalculated, data_only=True)
    compared = 0
    for sheet in after.worksheets:
        for row in sheet.iter_rows():
            for cell in row:
                value = cell.value
                assert not (isinstance(value, str) and value.startswith("#")), \
                    f"{sheet.title}!{cell.coordinate} = {value}"
                cached = before[sheet.title][cell.coordinate].value
                if _number(value) and _number(cached):
                    assert value == pytest.approx(cached, rel=1e-9, abs=1e-300)
                    compared += 1
    assert compared > 100_000  # 400 nests, ~40 quantities each, plus the detail sheets
    loops = after["Loops"]
    assert loops.max_row >= 400
