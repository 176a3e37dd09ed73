"""The HTML summary renders in a real browser: headless Chromium to PNG, the image is not blank."""

from __future__ import annotations

import shutil
import struct
import subprocess
import zlib
from pathlib import Path

import pytest

from sat.frontend import read_sources
from sat.machine import load_machine
from sat.model.build import build_model
from sat.parameters import build_parameters
from sat.report.html import write_html

ROOT = Path(__file__).resolve().parent.parent
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
DRAM_ORANGE = (0xF5, 0x85, 0x18)  # the DRAM bars of the time chart (html.DRAM_COLOUR)

pytestmark = pytest.mark.skipif(not CHROMIUM, reason="chromium is not installed")


def decode_png(data: bytes) -> tuple[int, int, int, list[bytes]]:
    """(width, height, channels, rows) of an 8-bit, non-interlaced PNG (what Chromium writes)."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    pos, idat = 8, []
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            width, height, depth, colour, _c, _f, interlace = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat.append(body)
        pos += 12 + length
    channels = {0: 1, 2: 3, 4: 2, 6: 4}[colour]
    assert depth == 8 and interlace == 0
    raw = zlib.decompress(b"".join(idat))
    stride = width * channels
    prev = bytearray(stride)
    rows = []
    for y in range(height):
        start = y * (stride + 1)
        kind = raw[start]
        line = bytearray(raw[start + 1:start + 1 + stride])
        if kind == 1:  # Sub
            for i in range(channels, stride):
                line[i] = (line[i] + line[i - channels]) & 255
        elif kind == 2:  # Up
            line = bytearray((a + b) & 255 for a, b in zip(line, prev, strict=True))
        elif kind == 3:  # Average
            for i in range(stride):
                left = line[i - channels] if i >= channels else 0
                line[i] = (line[i] + ((left + prev[i]) >> 1)) & 255
        elif kind == 4:  # Paeth
            for i in range(stride):
                a = line[i - channels] if i >= channels else 0
                b, c = prev[i], (prev[i - channels] if i >= channels else 0)
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) \
                    & 255
        rows.append(bytes(line))
        prev = line
    return width, height, channels, rows


def screenshot(page: Path, png: Path, profile: Path) -> None:
    command = [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
               "--no-first-run", "--disable-background-networking",
               "--disable-component-update", "--disable-sync", f"--user-data-dir={profile}",
               f"--screenshot={png}", "--window-size=1280,2000", page.resolve().as_uri()]
    done = subprocess.run(command, capture_output=True, text=True, timeout=180,
                          cwd=png.parent, check=False)
    assert png.is_file(), done.stderr[-2000:]


def test_page_renders_to_a_non_blank_image(tmp_path: Path):
    program = read_sources([str(ROOT / "examples" / "hypterm.f90")])
    result = build_model(program, build_parameters(load_machine(None), None, None, None))
    page = tmp_path / "hypterm.html"
    write_html(program, result, result.env(), str(page), {"sources": ["examples/hypterm.f90"]})
    png = tmp_path / "hypterm.png"
    screenshot(page, png, tmp_path / "profile")
    width, height, channels, rows = decode_png(png.read_bytes())
    assert (width, height) == (1280, 2000)
    pixels = [row[i:i + 3] for row in rows[::4] for i in range(0, len(row), channels * 4)]
    ink = sum(1 for p in pixels if min(p) < 200)  # text, rules, bars, shaded cells
    assert ink > 0.02 * len(pixels), f"only {ink} of {len(pixels)} sampled pixels drawn"
    assert len(set(pixels)) > 30  # text, charts and table shading: many colours
    # The title is drawn at the top, and the time chart's DRAM bars are on screen.
    assert any(min(row[i:i + 3]) < 100 for row in rows[10:60]
               for i in range(0, 600 * channels, channels))
    assert any(tuple(row[i:i + 3]) == DRAM_ORANGE for row in rows
               for i in range(0, len(row), channels))
