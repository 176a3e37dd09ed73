"""What a run is doing, on standard error, for the person watching it.

Three ways to show it, chosen once per run:

- ``log`` (``-v``): one timed line per step, kept in the scroll-back;
- ``live`` (standard error is a terminal, no ``-q``): one status line, rewritten in place
  at every step with the elapsed time, gone when the run ends;
- ``off`` (``-q``, or standard error is a file or a pipe): nothing.

The live line is drawn by tqdm, imported only when it is needed: it is small, has no
dependencies of its own, and its ``write`` prints a warning above the status line without
tearing it.
"""

from __future__ import annotations

import io
import os
import sys
import threading
import time
from typing import Literal, TextIO

Mode = Literal["log", "live", "off"]
TICK_SECONDS = 1.0  # how often the live line's clock is redrawn during a long stage


def choose_mode(verbose: bool, quiet: bool, stream: TextIO) -> Mode:
    if verbose:
        return "log"
    if quiet:
        return "off"
    isatty = getattr(stream, "isatty", None)
    return "live" if isatty is not None and isatty() else "off"


def _terminal_size(stream: TextIO) -> tuple[int, int]:
    """Columns and lines of the terminal ``stream`` shows on; 80 × 24 when it does not say
    (a bare pseudo-terminal reports 0 × 0, on which tqdm would draw nothing)."""
    try:
        size = os.get_terminal_size(stream.fileno())
    except (AttributeError, OSError, ValueError, io.UnsupportedOperation):
        return 80, 24
    return size.columns or 80, size.lines or 24


class Progress:
    """Progress of one run: :meth:`step` for each stage, :meth:`write` for other lines."""

    def __init__(self, mode: Mode, stream: TextIO | None = None):
        self.mode = mode
        self.stream = stream or sys.stderr
        self.start = time.perf_counter()
        self._line = None  # the tqdm status line, made on the first step
        self._ticking = threading.Event()

    def step(self, message: str) -> None:
        if self.mode == "log":
            print(f"satreport: [{time.perf_counter() - self.start:6.2f} s] {message}",
                  file=self.stream)
        elif self.mode == "live":
            if self._line is None:
                self._open_line(message)
            else:
                self._line.set_description_str(message)

    def _open_line(self, message: str) -> None:
        from tqdm import tqdm

        columns, lines = _terminal_size(self.stream)
        self._line = tqdm(total=None, file=self.stream, leave=False, desc=message,
                          ncols=columns, nrows=lines, mininterval=0,
                          bar_format="satreport [{elapsed}] {desc}")
        # One stage (parsing a large file) can last many seconds: keep its clock moving.
        threading.Thread(target=self._tick, args=(self._line, self._ticking), daemon=True,
                         name="satreport-progress").start()

    @staticmethod
    def _tick(line, stop: threading.Event) -> None:
        while not stop.wait(TICK_SECONDS):
            line.refresh()

    def write(self, text: str) -> None:
        """A line of its own (a warning), above the status line when there is one."""
        if self._line is not None:
            self._line.write(text, file=self.stream)
        else:
            print(text, file=self.stream)

    def close(self) -> None:
        if self._line is not None:
            self._ticking.set()
            self._line.close()
            self._line = None
