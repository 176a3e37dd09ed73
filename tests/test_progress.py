"""Progress on stderr: a live status line on a terminal, timed lines with -v, else nothing."""

from __future__ import annotations

import io
import os
import struct
import subprocess
import sys
from pathlib import Path

import pytest

from sat.progress import Progress, choose_mode

ROOT = Path(__file__).resolve().parent.parent
pty = pytest.importorskip("pty")
fcntl = pytest.importorskip("fcntl")
termios = pytest.importorskip("termios")


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def run_on_terminal(*args: str) -> tuple[int, str]:
    """Run satreport with stderr on a pseudo-terminal; its exit status and what it showed."""
    master, slave = pty.openpty()
    # 250 columns: long paths fit on the status line (a real terminal may cut them).
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 250, 0, 0))
    process = subprocess.Popen([sys.executable, "-m", "sat", *args], cwd=ROOT,
                               stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                               stderr=slave)
    os.close(slave)
    shown = b""
    while True:
        try:
            chunk = os.read(master, 65536)
        except OSError:  # the terminal closed: the process has ended
            break
        if not chunk:
            break
        shown += chunk
    os.close(master)
    return process.wait(timeout=60), shown.decode()


def test_mode_follows_the_options_and_the_stream():
    assert choose_mode(verbose=True, quiet=False, stream=io.StringIO()) == "log"
    assert choose_mode(verbose=False, quiet=False, stream=_Terminal()) == "live"
    assert choose_mode(verbose=False, quiet=True, stream=_Terminal()) == "off"
    assert choose_mode(verbose=False, quiet=False, stream=io.StringIO()) == "off"


def test_live_line_is_rewritten_in_place_and_cleared():
    stream = _Terminal()
    progress = Progress("live", stream)
    progress.step("parsing a.f90")
    progress.write("satreport: warning: something")
    progress.step("writing a.xlsx")
    progress.close()
    shown = stream.getvalue()
    assert "\rsatreport [00:00] parsing a.f90" in shown
    assert "\rsatreport [00:00] writing a.xlsx" in shown
    assert "satreport: warning: something\n" in shown
    assert "\n" not in shown.replace("satreport: warning: something\n", "")  # in place
    assert shown.endswith("\r")  # the line is blanked when the run ends


def test_off_shows_nothing():
    stream = _Terminal()
    progress = Progress("off", stream)
    progress.step("parsing a.f90")
    progress.close()
    assert stream.getvalue() == ""


def test_a_run_on_a_terminal_shows_each_stage(tmp_path):
    status, shown = run_on_terminal("examples/lap.f90", "examples/c/triad.c",
                                    "-o", str(tmp_path / "a.xlsx"),
                                    "--json", str(tmp_path / "a.json"),
                                    "--html", str(tmp_path / "a.html"))
    assert status == 0
    for stage in ("parsing examples/lap.f90", "read examples/lap.f90: 1 procedure(s), 3 loop(s)",
                  "read examples/c/triad.c: 1 procedure(s), 1 loop(s)",
                  "building the model on machine exascale", f"writing {tmp_path / 'a.xlsx'}",
                  f"writing {tmp_path / 'a.json'}", f"writing {tmp_path / 'a.html'}"):
        assert f"] {stage}" in shown, stage
    assert "\rsatreport [00:0" in shown


def test_quiet_or_redirected_runs_show_no_progress(tmp_path):
    status, shown = run_on_terminal("examples/lap.f90", "-q", "-o", str(tmp_path / "a.xlsx"))
    assert (status, shown) == (0, "")
    piped = subprocess.run([sys.executable, "-m", "sat", "examples/lap.f90", "-o",
                            str(tmp_path / "b.xlsx")], cwd=ROOT, capture_output=True, text=True)
    assert piped.returncode == 0 and piped.stderr == ""
