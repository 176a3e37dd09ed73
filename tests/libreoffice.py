"""Test helper: recalculate workbooks and export PDFs with headless LibreOffice.

LibreOffice shows the cached values of an xlsx unless told otherwise, so every call runs with a
private profile that forces recalculation on load (see docs: TOOLCHAIN).  Two ``soffice``
processes sharing a profile silently drop outputs, so each call gets its own profile directory.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from collections.abc import Sequence
from pathlib import Path

import pytest

_RECALC_PROFILE = """<?xml version="1.0" encoding="UTF-8"?>
<oor:items xmlns:oor="http://openoffice.org/2001/registry" \
xmlns:xs="http://www.w3.org/2001/XMLSchema" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">
<item oor:path="/org.openoffice.Office.Calc/Formula/Load">\
<prop oor:name="OOXMLRecalcMode" oor:op="fuse"><value>0</value></prop></item>
<item oor:path="/org.openoffice.Office.Calc/Formula/Load">\
<prop oor:name="ODFRecalcMode" oor:op="fuse"><value>0</value></prop></item>
</oor:items>
"""

TIMEOUT_S = 600


def soffice() -> str:
    """Path of ``soffice``; skips the calling test when LibreOffice is not installed."""
    path = shutil.which("soffice") or shutil.which("libreoffice")
    if path is None:
        pytest.skip("LibreOffice (soffice) is not installed")
    return path


def _convert(files: Sequence[Path], outdir: Path, target: str,
             timeout: float = TIMEOUT_S) -> list[Path]:
    """One soffice call converting ``files`` into ``outdir`` with a fresh recalculating profile."""
    if not files:
        return []
    names = [Path(f).stem for f in files]
    if len(set(names)) != len(names):
        raise ValueError("files converted in one call need distinct names")
    binary = soffice()
    outdir.mkdir(parents=True, exist_ok=True)
    profile = Path(tempfile.mkdtemp(prefix="sat-lo-profile-"))
    try:
        (profile / "user").mkdir()
        (profile / "user" / "registrymodifications.xcu").write_text(_RECALC_PROFILE)
        command = [binary, f"-env:UserInstallation={profile.as_uri()}", "--headless",
                   "--norestore", "--convert-to", target, "--outdir", str(outdir)]
        command += [str(f) for f in files]
        env = dict(os.environ, HOME=str(profile))  # keep LibreOffice away from the user's home
        done = subprocess.run(command, capture_output=True, text=True, timeout=timeout,
                              env=env)
    finally:
        shutil.rmtree(profile, ignore_errors=True)
    extension = target.split(":")[0]
    outputs = [outdir / f"{name}.{extension}" for name in names]
    missing = [p.name for p in outputs if not p.exists()]
    if missing:
        raise RuntimeError(f"LibreOffice did not write {missing}: exit {done.returncode}, "
                           f"{done.stderr.strip()[-500:]}")
    return outputs


def recalculate(files: Sequence[Path], outdir: Path, timeout: float = TIMEOUT_S) -> list[Path]:
    """Recalculated copies (same names, in ``outdir``) of the xlsx ``files``, in one call
    (``timeout`` seconds at most: a whole program's workbook takes longer)."""
    return _convert(files, outdir, 'xlsx:Calc MS Excel 2007 XML', timeout)


def recalculate_edited(path: Path, edits: dict[str, object], outdir: Path):
    """The workbook ``path`` with the cells of the defined names in ``edits`` set to their
    values, recalculated by LibreOffice and read back with its values (openpyxl)."""
    import openpyxl

    book = openpyxl.load_workbook(path)
    for name, value in edits.items():
        sheet, cell = next(iter(book.defined_names[name].destinations))
        book[sheet][cell.replace("$", "")].value = value
    outdir.mkdir(parents=True, exist_ok=True)
    edited = outdir / "edited.xlsx"
    book.save(edited)
    (recalculated,) = recalculate([edited], outdir / "recalc")
    return openpyxl.load_workbook(recalculated, data_only=True)


def value_at(book, address: str):
    """The value of the cell at a JSON ``cells`` address (``'ECM'!$AH$5``) in ``book``."""
    sheet, where = address.rsplit("!", 1)
    return book[sheet.strip("'")][where.replace("$", "")].value


def named_value(book, name: str) -> object:
    """The value of the cell the defined name ``name`` points at in the openpyxl ``book``."""
    sheet, cell = next(iter(book.defined_names[name].destinations))
    return book[sheet][cell.replace("$", "")].value


def export_pdf(file: Path, outdir: Path) -> Path:
    """The workbook as a PDF (every sheet, after recalculation)."""
    return _convert([file], outdir, "pdf:calc_pdf_Export")[0]


def pdf_to_ppm(pdf: Path, outdir: Path, first: int = 1, last: int | None = None,
               dpi: int = 60) -> list[Path]:
    """Rasterise pages of ``pdf`` with pdftoppm (PPM files, sorted by page)."""
    binary = shutil.which("pdftoppm")
    if binary is None:
        pytest.skip("pdftoppm is not installed")
    outdir.mkdir(parents=True, exist_ok=True)
    command = [binary, "-r", str(dpi), "-f", str(first)]
    if last is not None:
        command += ["-l", str(last)]
    subprocess.run(command + [str(pdf), str(outdir / "page")], check=True, timeout=TIMEOUT_S)
    return sorted(outdir.glob("page*.ppm"))


def ink_fraction(ppm: Path) -> float:
    """Fraction of the pixels of a binary PPM (P6) that are not near-white."""
    data = ppm.read_bytes()
    fields: list[bytes] = []
    position = 0
    while len(fields) < 4:  # magic, width, height, maxval (no comments from pdftoppm)
        while data[position:position + 1].isspace():
            position += 1
        end = position
        while not data[end:end + 1].isspace():
            end += 1
        fields.append(data[position:end])
        position = end
    pixels = data[position + 1:]
    width, height = int(fields[1]), int(fields[2])
    dark = sum(1 for i in range(0, width * height * 3, 3) if min(pixels[i:i + 3]) < 200)
    return dark / (width * height)
