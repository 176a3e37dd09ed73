"""HTML summary size and speed for a big program: render time, page size, browser render time.

Generates an N-nest Fortran module (``bench/generate_fortran.py``), builds the model, writes
the page with ``sat.report.html.write_html`` (graphviz when installed) and, when Chromium is
installed, times a headless screenshot of it (the time a reader waits for the first screen).

Usage: ``python bench/bench_html.py [N_NESTS]`` (default 400)
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from generate_fortran import generate_module  # noqa: E402

from sat.frontend import read_sources  # noqa: E402
from sat.machine import load_machine  # noqa: E402
from sat.model.build import build_model  # noqa: E402
from sat.parameters import build_parameters  # noqa: E402
from sat.report import html  # noqa: E402


def chromium_seconds(page: Path, work: Path) -> float | None:
    browser = shutil.which("chromium") or shutil.which("chromium-browser")
    if not browser:
        return None
    start = time.perf_counter()
    subprocess.run([browser, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
                    "--no-first-run", "--disable-background-networking",
                    "--disable-component-update", "--disable-sync",
                    f"--user-data-dir={work / 'profile'}", f"--screenshot={work / 'page.png'}",
                    "--window-size=1280,2000", page.as_uri()],
                   capture_output=True, timeout=300, check=False, cwd=work)
    return time.perf_counter() - start


def main(argv: list[str]) -> int:
    n_nests = int(argv[1]) if len(argv) > 1 else 400
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        source = work / "generated.f90"
        source.write_text(generate_module(n_nests, seed=0))
        start = time.perf_counter()
        program = read_sources([str(source)])
        result = build_model(program, build_parameters(load_machine(None), None, None, None))
        model_s = time.perf_counter() - start
        env = result.env()
        start = time.perf_counter()
        context = html.html_context(program, result, env, {"sources": [str(source)]})
        context_s = time.perf_counter() - start
        page = work / "page.html"
        start = time.perf_counter()
        html.write_html(program, result, env, str(page), {"sources": [str(source)]})
        write_s = time.perf_counter() - start
        browser_s = chromium_seconds(page, work)
        print(f"nests: {len(context['procedures'])} procedures, {context['nest_count']} nests")
        print(f"model (read + build): {model_s:.2f} s")
        print(f"html context (evaluation, charts, graphs): {context_s:.2f} s")
        print(f"write_html total: {write_s:.2f} s "
              f"(graphviz {'used' if shutil.which('dot') else 'not installed'})")
        print(f"page size: {page.stat().st_size / 1e6:.2f} MB")
        print("chromium screenshot: " + (f"{browser_s:.2f} s" if browser_s is not None
                                         else "skipped (chromium not installed)"))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
