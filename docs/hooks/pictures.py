"""The guide's pictures of real workbooks and HTML reports (docs/images/*.png).

    python docs/hooks/pictures.py [--only NAME ...]

Runs satreport on bundled examples, then captures

- workbook sheets: LibreOffice converts the workbook to PDF (``soffice --headless
  --convert-to pdf``), the page whose first line is the sheet's title is rendered to PNG
  (``pdftoppm``: the part of the page that holds the sheet's title and first rows);
- HTML reports: a headless Chromium screenshot (``chromium --headless --screenshot``).

The PNGs are committed; run this again when the outputs change. Needs soffice, pdftoppm,
pdftotext and chromium (installed by ``tests/run.sh`` when run as root).
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
IMAGES = ROOT / "docs" / "images"

#: The part of a page captured, in inches from its top left corner (x, y, width, height), and
#: the resolution: a sheet of text, or the top rows of a wide table.
TEXT, TABLE = ((0.55, 0.55, 9.2, 4.6), 90), ((0.55, 0.6, 6.6, 1.25), 150)
#: name -> (satreport arguments, workbook sheets: {picture: (first line of its page, part)})
WORKBOOKS = {
    "hypterm-xeon": (["examples/hypterm.f90", "-m", "xeon-e5-2680"], {
        "workbook-summary": ("satreport: performance model", TEXT),
        "workbook-parameters": ("Parameters", ((0.55, 0.55, 6.0, 3.0), 120)),
        "workbook-loops": ("Loop analysis", TABLE),
        "workbook-levels": ("Traffic at every cache level", TABLE),
        "workbook-ecm": ("Execution-Cache-Memory model", TABLE),
        "workbook-notes": ("Notes", ((0.55, 0.55, 7.5, 2.0), 90))}),
    "spmv-offload": (["examples/spmv.f90", "-m", "xeon-e5-2680", "--accelerator", "h100-pcie"],
                     {"workbook-idioms": ("Loop idioms", TABLE),
                      "workbook-offload": ("Offload", TABLE)}),
}
#: name -> (satreport arguments of an HTML report, the one <section> shown by id, or "")
HTML = {
    "html-hypterm": (["examples/hypterm.f90"], ""),
    "html-hypterm-charts": (["examples/hypterm.f90"], "charts"),
    "html-lap-sweep": (["examples/lap.f90", "--sweep", "CacheKB=16..4096*2"], "sweep"),
}


def run(argv: list[str], cwd: Path) -> None:
    subprocess.run(argv, cwd=cwd, check=True, capture_output=True, timeout=600)


def first_lines(pdf: Path) -> list[str]:
    """The first line of every page of ``pdf``."""
    pages = int(next(line.split()[-1] for line in subprocess.run(
        ["pdfinfo", str(pdf)], capture_output=True, text=True, check=True).stdout.splitlines()
        if line.startswith("Pages:")))
    lines = []
    for page in range(1, pages + 1):
        text = subprocess.run(["pdftotext", "-f", str(page), "-l", str(page), str(pdf), "-"],
                              capture_output=True, text=True, check=True).stdout
        lines.append(text.strip().splitlines()[0] if text.strip() else "")
    return lines


def workbook_pictures(name: str, work: Path) -> list[Path]:
    arguments, sheets = WORKBOOKS[name]
    workbook = work / f"{name}.xlsx"
    run([sys.executable, "-m", "sat", *arguments, "-q", "-o", str(workbook)], ROOT)
    run(["soffice", "--headless", "--convert-to", "pdf", "--outdir", str(work), str(workbook)],
        work)
    pdf = workbook.with_suffix(".pdf")
    titles = first_lines(pdf)
    made = []
    for picture, (title, ((x, y, width, height), dpi)) in sheets.items():
        page = next(i for i, line in enumerate(titles, 1) if line.startswith(title))
        target = IMAGES / picture
        box = [round(inches * dpi) for inches in (x, y, width, height)]
        run(["pdftoppm", "-png", "-r", str(dpi), "-f", str(page), "-l", str(page),
             "-x", str(box[0]), "-y", str(box[1]), "-W", str(box[2]), "-H", str(box[3]),
             "-singlefile", str(pdf), str(target)], work)
        made.append(target.with_suffix(".png"))
    return made


def html_picture(name: str, work: Path) -> Path:
    page = work / f"{name}.html"
    arguments, section = HTML[name]
    run([sys.executable, "-m", "sat", *arguments, "-q", "--html", str(page)], ROOT)
    target = IMAGES / f"{name}.png"
    browser = shutil.which("chromium") or shutil.which("chromium-browser")
    if section:  # that section alone: the page's other sections hidden by a style
        style = f"<style>body section:not(#{section}) {{ display: none; }}</style>"
        page.write_text(page.read_text().replace("</head>", style + "</head>", 1))
    address = page.as_uri()
    run([browser, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
         "--window-size=900,640", "--virtual-time-budget=3000", f"--screenshot={target}",
         address], work)
    return target


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", nargs="*", help="these workbooks or HTML reports only")
    args = parser.parse_args(argv)
    IMAGES.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as temporary:
        work = Path(temporary)
        made = []
        for name in WORKBOOKS:
            if not args.only or name in args.only:
                made += workbook_pictures(name, work)
        for name in HTML:
            if not args.only or name in args.only:
                made.append(html_picture(name, work))
    for path in made:
        print(f"{path.relative_to(ROOT)}  {path.stat().st_size // 1024} KiB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
