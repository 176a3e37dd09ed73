"""Codes read as words: beside each column of codes (the Loops sheet's reuse level, the Levels
sheet's layer condition, the ECM sheet's bound and Roofline bound) the workbook shows the word
the code means, as a live formula of the code, so a printout needs no header comment.

lap.f90 on the Xeon E5-2680 (three cache levels). As the JSON says: the nest reuses between
planes (reuse 1) against CacheKB, its L1 condition is reuse between pencils, the ECM bound is
the core (1, ``in-core``: T_OL 16 cycles per unit of work, the address generation of its loads
and stores, above T_nOL 14) and the Roofline bound the memory link (``L3-MEM``).
With CacheKB and L1KB edited down to 0.01 KiB nothing fits: reuse 4 ``none`` in both sheets.
"""

from __future__ import annotations

import json
from pathlib import Path

import openpyxl
import pytest
from test_cli import run

ROOT = Path(__file__).resolve().parent.parent
LAP = ROOT / "examples" / "lap.f90"
MACHINE = ("-m", "xeon-e5-2680")
EDITS = {"CacheKB": 0.01, "L1KB": 0.01}


def words(book: openpyxl.Workbook, sheet: str, code_header: str) -> list[str]:
    """The words of the column after the one headed ``code_header``, top to bottom."""
    ws = book[sheet]
    for header_row in (3, 4):
        headers = [cell.value for cell in ws[header_row]]
        if code_header in headers:
            col = headers.index(code_header) + 2  # the next column, 1-based
            assert headers[col - 1] == code_header.split(" (")[0]
            return [ws.cell(row, col).value for row in range(header_row + 1, ws.max_row + 1)
                    if ws.cell(row, col).value is not None]
    raise AssertionError(f"{sheet}: no column headed {code_header!r}")


def expected(data: dict) -> dict[str, list[str]]:
    """The same words from the JSON: the reuse level by its names, the others as they are."""
    reuse = {1: "planes", 2: "pencils", 3: "within pencils", 4: "none"}
    loops = data["loops"]
    return {"reuse": [reuse[loop["reuse"]] for loop in loops],
            "condition": [level["layer_condition"] for loop in loops for level in loop["levels"]],
            "bound": [loop["ecm"]["bound"] for loop in loops],
            "roofline": [loop["ecm"]["roofline_bound"] for loop in loops]}


def ecm_words(book: openpyxl.Workbook) -> tuple[list[str], list[str]]:
    """The ECM sheet has two columns headed Bound (code): the ECM's and the Roofline's."""
    ws = book["ECM"]
    headers = [cell.value for cell in ws[4]]
    cols = [i + 2 for i, text in enumerate(headers) if text == "Bound (code)"]
    assert len(cols) == 2 and all(headers[c - 1] == "Bound" for c in cols)
    return tuple([ws.cell(row, col).value for row in range(5, ws.max_row + 1)
                  if ws.cell(row, col).value is not None] for col in cols)


def json_of(capsys, *sets: str) -> dict:
    argv = [str(LAP), *MACHINE, "--json", "-", "-q"]
    for text in sets:
        argv += ["--set", text]
    status, out, _ = run(capsys, *argv)
    assert status == 0
    return json.loads(out)


def book_words(book: openpyxl.Workbook) -> dict[str, list[str]]:
    bound, roofline = ecm_words(book)
    return {"reuse": words(book, "Loops", "Reuse (level)"),
            "condition": words(book, "Levels", "Condition (case)"),
            "bound": bound, "roofline": roofline}


def test_the_words_beside_the_codes_are_those_of_the_json(capsys, tmp_path):
    path = tmp_path / "lap.xlsx"
    assert run(capsys, str(LAP), *MACHINE, "-o", str(path), "-q")[0] == 0
    want = expected(json_of(capsys))
    assert want["reuse"] == ["planes"] and want["bound"] == ["in-core"]
    assert want["roofline"] == ["L3-MEM"] and want["condition"][0] == "pencils"
    assert book_words(openpyxl.load_workbook(path, data_only=True)) == want
    formulas = openpyxl.load_workbook(path)
    ws = formulas["Loops"]
    texts = [cell.value for row in ws.iter_rows() for cell in row
             if isinstance(cell.value, str) and cell.value.startswith("=CHOOSE(")]
    assert texts and texts[0].endswith(',"planes","pencils","within pencils","none")')


@pytest.mark.libreoffice
def test_the_words_follow_an_edit_as_set_does(capsys, tmp_path):
    from libreoffice import recalculate_edited

    path = tmp_path / "lap.xlsx"
    assert run(capsys, str(LAP), *MACHINE, "-o", str(path), "-q")[0] == 0
    edited = recalculate_edited(path, EDITS, tmp_path / "edit")
    want = expected(json_of(capsys, *(f"{name}={value}" for name, value in EDITS.items())))
    assert want["reuse"] == ["none"] and want["condition"][0] == "none"
    assert book_words(edited) == want


def test_each_headline_time_names_its_model(capsys, tmp_path):
    """The Summary's three times differ by design; each label says which model it is."""
    path = tmp_path / "lap.xlsx"
    assert run(capsys, str(LAP), *MACHINE, "-o", str(path), "-q")[0] == 0
    labels = [row[0] for row in openpyxl.load_workbook(path)["Summary"].iter_rows(
        min_row=16, max_col=1, values_only=True) if row[0]]
    times = [label for label in labels if label.startswith("Total time")]
    assert [label.split("(")[1].split()[0].strip(":") for label in times] == [
        "ExaSAT", "ECM", "Roofline"]
    assert all(len(label) <= 52 for label in times)  # the Summary's first column holds them
