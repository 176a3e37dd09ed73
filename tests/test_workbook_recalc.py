"""The workbook recalculated in LibreOffice equals the Python model, before and after edits.

For every edit a copy of the workbook gets one parameter changed through its defined name (as
a user would), all copies are recalculated in one LibreOffice call, and every formula cell is
compared with the Python evaluation under the same override.
"""

from __future__ import annotations

import math
import shutil
import subprocess
from pathlib import Path

import openpyxl
import pytest
from libreoffice import export_pdf, ink_fraction, pdf_to_ppm, recalculate
from test_workbook import (
    HAND_TOTAL_TIME,
    META,
    RESULTS,
    cached_values,
    formula_cells,
    hand_result,
    split,
)

from sat.model.expr import Quantity
from sat.model.tables import ModelResult
from sat.report.workbook import CellMap, write_workbook

# The tests of this module run on one worker under pytest-xdist (tests/run.sh): the hand
# workbook and its edited copies go through LibreOffice once for the two tests reading them.
pytestmark = [pytest.mark.libreoffice, pytest.mark.xdist_group("workbook_recalc")]

# Hand fixture: one edit per parameter -> Total_Time_s worked out by hand (test_workbook's
# hand_result; default total 2.176e-6 + 1.024e-6 + 2.56e-6 s for nests A, B, C).
HAND_EDITS: dict[str, tuple[float | bool, float]] = {
    "Cores": (8, HAND_TOTAL_TIME / 2),  # every time halves
    "GflopsPerCore": (1, 6.392e-6 + 1.024e-6 + 2.56e-5),  # A and C become CPU-bound
    "GBsPerCore": (1, 4.352e-6 + 2.048e-6 + 2.56e-6),  # DRAM times double, C stays CPU
    "CacheKB": (2, 5.44e-6 + 1.024e-6 + 2.56e-6),  # A's 3 KiB no longer fit: 544*8*10/1e9 GB
    "WordBytes": (4, 1.088e-6 + 5.12e-7 + 2.56e-6),  # traffic halves
    "DivCost": (1, HAND_TOTAL_TIME),  # A is DRAM-bound anyway
    "FPRegs": (1, HAND_TOTAL_TIME),  # only the spills change (10 accesses)
    "Overlap": (0, 2.8152e-6 + 1.024e-6 + 3.584e-6),  # cpu + dram
    "hi_1": (128, 4.224e-6 + 2.048e-6 + 5.12e-6),  # 1056, 1024, 1024 points
    "ng": (2, 2.112e-6 + 1.024e-6 + 2.56e-6),  # A: 66*8 = 528 points
    "nx1": (4, HAND_TOTAL_TIME / 2),  # half the points everywhere
    "StreamingWrites": (False, 2.72e-6 + 1.024e-6 + 2.56e-6),  # A writes 2 words
    "NTAHints": (True, 2.176e-6 + 7.68e-7 + 2.56e-6),  # B moves 1.5 words per point
    "BlockX": (24, 2.176e-6 + 1.024e-6 + 2.88e-6),  # C: CEILING(64/24)*24*8 = 576 points
}


def hypterm_edits(result: ModelResult) -> dict[str, float | bool]:
    """Each machine parameter, a problem symbol, the block sizes and both booleans."""
    edits: dict[str, float | bool] = {}
    for p in result.parameters:
        if p.group == "machine":
            edits[p.name] = 0 if p.name == "Overlap" else p.value * 2
    edits.update({"hi_1": 256, "BlockX": 32, "BlockY": 8, "BlockZ": 64,
                  "StreamingWrites": True, "NTAHints": True, "CacheKB": 64})
    return {k: v for k, v in edits.items() if any(p.name == k for p in result.parameters)}


def _same(got: object, want: object) -> bool:
    if isinstance(want, (int, float)) and isinstance(got, (int, float)):
        got, want = float(got), float(want)
        return got == want or math.isclose(got, want, rel_tol=1e-9, abs_tol=0)
    return got == want


def _is_error(value: object) -> bool:
    return isinstance(value, str) and (value.startswith("#") or value.startswith("Err:"))


def _expected_workbook(result: ModelResult, name: str, value: float | bool, path: Path
                       ) -> None:
    """The workbook as Python computes it with ``name = value`` (cached values only)."""
    parameter = next(p for p in result.parameters if p.name == name)
    old = parameter.value
    parameter.value = value
    try:
        write_workbook(result, str(path), META)
    finally:
        parameter.value = old


def _edit_copies(base: Path, cells: CellMap, edits: dict[str, float | bool], outdir: Path
                 ) -> dict[str, Path]:
    """One copy of ``base`` per edit, the value typed into the defined name's cell."""
    outdir.mkdir()
    book = openpyxl.load_workbook(base)
    copies = {}
    for i, (name, value) in enumerate(edits.items()):
        sheet, cell = next(iter(book.defined_names[cells.names[name]].destinations))
        ws = book[sheet]
        old = ws[cell].value
        ws[cell].value = value
        copies[name] = outdir / f"edit{i:02d}.xlsx"
        book.save(copies[name])
        ws[cell].value = old
    return copies


def _recalculated(result: ModelResult, edits: dict[str, float | bool], tmp_path: Path
                  ) -> tuple[CellMap, Path, dict[str, Path]]:
    """The workbook of ``result`` (its cell map and path) and the recalculated copies, by edit
    (``""``: no edit), all in one LibreOffice call."""
    base = tmp_path / "base.xlsx"
    cells = write_workbook(result, str(base), META)
    copies = _edit_copies(base, cells, edits, tmp_path / "edited")
    recalculated = recalculate([base, *copies.values()], tmp_path / "recalc")
    return cells, base, dict(zip(["", *copies], recalculated, strict=True))


def _check(result: ModelResult, edits: dict[str, float | bool], tmp_path: Path,
           recalculated: tuple[CellMap, Path, dict[str, Path]] | None = None) -> dict:
    cells, base, by_name = recalculated or _recalculated(result, edits, tmp_path)
    formulas = formula_cells(base)

    # No edit: every formula cell recalculates to the value Python cached in it.
    cached = cached_values(base)
    got = cached_values(by_name[""])
    errors = [(k, got[k]) for k in formulas if _is_error(got[k])]
    assert not errors
    wrong = [(k, formulas[k], got[k], cached[k]) for k in formulas if not _same(got[k], cached[k])]
    assert not wrong, wrong[:5]

    totals = {}
    for name, value in edits.items():
        expected_path = tmp_path / "expected" / f"{name}.xlsx"
        expected_path.parent.mkdir(exist_ok=True)
        _expected_workbook(result, name, value, expected_path)
        want = cached_values(expected_path)
        got = cached_values(by_name[name])
        errors = [(k, got[k]) for k in formulas if _is_error(got[k])]
        assert not errors, (name, errors[:5])
        wrong = [(k, formulas[k], got[k], want[k]) for k in formulas
                 if not _same(got[k], want[k])]
        assert not wrong, (name, wrong[:5])
        # And directly against result.env({name: value}) for every table quantity and total.
        env = result.env({name: float(value)})
        for table in result.tables.values():
            for row in table.rows + ([table.totals] if table.totals else []):
                for q in row.values():
                    if isinstance(q, Quantity):
                        assert _same(got[split(cells.cell(q))], q.value(env)), (name, q.key)
        totals[name] = {t: got[split(cells.cell(q))] for t, q in result.totals.items()}
    return totals


HAND_EDIT_VALUES = {name: value for name, (value, _) in HAND_EDITS.items()}


@pytest.fixture(scope="module")
def hand(tmp_path_factory) -> tuple[ModelResult, tuple[CellMap, Path, dict[str, Path]]]:
    """The hand result and its workbook recalculated with no edit and with each HAND_EDITS."""
    result = hand_result()
    return result, _recalculated(result, HAND_EDIT_VALUES, tmp_path_factory.mktemp("hand"))


def test_hand_workbook_recalculates(tmp_path: Path, hand) -> None:
    result, recalculated = hand
    totals = _check(result, HAND_EDIT_VALUES, tmp_path, recalculated)
    for name, (_, time) in HAND_EDITS.items():
        assert totals[name]["Total_Time_s"] == pytest.approx(time, rel=1e-12), name
    # DivCost 1: weighted work 9*544/1e9 + 200*512/1e9.
    assert totals["DivCost"]["Total_Weighted_GFlops"] == pytest.approx(4.896e-6 + 1.024e-4)
    # CacheKB 2: traffic 544*8*10/1e9 + 2 * 512*8*2/1e9.
    assert totals["CacheKB"]["Total_Traffic_GB"] == pytest.approx(4.352e-5 + 1.6384e-5)


def test_boolean_coercion_in_libreoffice(hand) -> None:
    """2*StreamingWrites, MAX(1*StreamingWrites, 0.5), =1 comparison, 3/NTAHints guard."""
    result, (cells, _, by_name) = hand
    # the hand workbook as written (StreamingWrites on, NTAHints off) and with each switched
    assert (HAND_EDIT_VALUES["StreamingWrites"], HAND_EDIT_VALUES["NTAHints"]) == (False, True)
    on, off, nta = by_name[""], by_name["StreamingWrites"], by_name["NTAHints"]
    checks = result.derived[1:]
    assert [cached_values(on)[split(cells.cell(q))] for q in checks] == [2, 1, 1, 1, 0]
    assert [cached_values(off)[split(cells.cell(q))] for q in checks] == [0, 0.5, 0, 0, 0]
    assert [cached_values(nta)[split(cells.cell(q))] for q in checks] == [2, 1, 1, 1, 3]


@pytest.mark.slow  # 23 workbooks through LibreOffice: about a minute on 2 cores
def test_hypterm_workbook_recalculates(tmp_path: Path) -> None:
    result = RESULTS["hypterm"]()
    _check(result, hypterm_edits(result), tmp_path)


def _pdf_pages(pdf: Path) -> list[str]:
    text = subprocess.run(["pdftotext", "-layout", str(pdf), "-"], capture_output=True,
                          text=True, check=True).stdout
    return text.split("\f")


@pytest.mark.skipif(shutil.which("pdftotext") is None, reason="pdftotext is not installed")
def test_pdf_export(tmp_path: Path) -> None:
    base = tmp_path / "model.xlsx"
    write_workbook(hand_result(), str(base), META)
    pdf = export_pdf(base, tmp_path / "pdf")
    pages = _pdf_pages(pdf)
    summary = next(i for i, page in enumerate(pages) if "Key results" in page)
    loops = next(i for i, page in enumerate(pages) if "Loop nests" in page)
    assert "Total time" in pages[summary] and "lap.f90" in pages[summary]
    assert "time CPU" in pages[loops] and "flux" in pages[loops]
    for page in (summary, loops):
        images = pdf_to_ppm(pdf, tmp_path / f"png{page}", page + 1, page + 1)
        assert len(images) == 1
        assert ink_fraction(images[0]) > 0.01  # not blank: text, grid and chart
