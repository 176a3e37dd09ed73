"""graphviz's ``dot``: several drawings laid out in a few background processes.

``dot`` lays out the graphs of one input one after another and writes their SVG documents in
the same order, so the drawings of a page go to at most one process per core instead of one
process each (the largest drawings are spread first, so that one big graph does not wait
behind the others).  The processes start at once and run in the background: the caller does
other work meanwhile and collects the SVG when it needs it.  Their input and output go through
anonymous temporary files, so no thread has to keep pipes flowing and nothing is left behind.

Each drawing comes back exactly as a ``dot`` run of its own would draw it (reduced to its
``<svg>`` element), or None when ``dot`` is not installed, fails or runs out of time: the
caller then draws it with a layout of its own.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import tempfile
import time
import weakref
from collections.abc import Sequence
from dataclasses import dataclass
from typing import IO

DOT_TIMEOUT_S = 30
_DOCUMENT = re.compile(r"<\?xml\b")
_COMMENT = re.compile(r"<!--.*?-->", re.S)
# graphviz numbers pages on from one graph of an input to the next, and names the group of a
# graph after a later one "page0,1_graph0" where a run of its own writes "graph0"
_PAGE_PREFIX = re.compile(r'<g id="page\d+,\d+_(graph\d+)" class="graph"')


def reduce_svg(document: str) -> str | None:
    """One SVG document of ``dot -Tsvg`` reduced to its ``<svg>`` element, or None.

    The XML prolog and DOCTYPE go (the DTD address is an external reference), and comments.
    """
    start = document.find("<svg")
    if start < 0 or "</svg>" not in document:
        return None
    return _COMMENT.sub("", document[start:]).strip()


_ID_ATTR = re.compile(r'\bid="([^"]*)"')


def prefix_ids(svg: str, ident: str) -> str:
    """``svg`` with every element id prefixed by ``ident-``: several drawings of ``dot``, whose
    ids repeat from one to the next, can then share one HTML page."""
    return _ID_ATTR.sub(lambda m: f'id="{ident}-{m.group(1)}"', svg)


def dot_svg(dot_text: str, timeout: float = DOT_TIMEOUT_S) -> str | None:
    """``dot -Tsvg`` of one graph reduced to its ``<svg>`` element, or None."""
    return DotRun([dot_text], timeout, processes=1).svgs()[0]


def _cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on every platform
        return os.cpu_count() or 1


def _spread(sizes: Sequence[int], groups: int) -> list[list[int]]:
    """Indices of ``sizes`` in at most ``groups`` groups of about equal total size (the
    largest first, each into the lightest group); each group keeps the input order."""
    loads = [[0, []] for _ in range(max(1, min(groups, len(sizes))))]
    for index in sorted(range(len(sizes)), key=lambda i: -sizes[i]):
        lightest = min(loads, key=lambda load: load[0])
        lightest[0] += sizes[index]
        lightest[1].append(index)
    return [sorted(members) for _load, members in loads if members]


@dataclass
class _Process:
    """One ``dot`` process and the drawings (indices into the run's texts) it lays out."""

    members: list[int]
    process: subprocess.Popen
    output: IO[bytes]


class DotRun:
    """Drawings of ``texts`` (DOT text each) started now in the background.

    :meth:`svgs` waits for them; ``timeout`` counts from the start, for each process.
    :meth:`close` stops what is still running (call it when the drawings are no longer
    wanted; :meth:`svgs` calls it too, and so does the run's end when it is forgotten).
    """

    def __init__(self, texts: Sequence[str], timeout: float = DOT_TIMEOUT_S,
                 processes: int | None = None):
        self.texts = list(texts)
        self.deadline = time.monotonic() + timeout
        self._running: list[_Process] = []
        self._svgs: list[str | None] | None = None
        # Drawings given up on (an error before the page is written) stop with their owner.
        self._stop = weakref.finalize(self, _stop, self._running)
        self.executable = shutil.which("dot") or ""
        if not self.executable or not self.texts:
            self._svgs = [None] * len(self.texts)
            return
        for members in _spread([len(t) for t in self.texts], processes or _cores()):
            started = self._start(members)
            if started is None:
                self.close()
                self._svgs = [None] * len(self.texts)
                return
            self._running.append(started)

    def _start(self, members: list[int]) -> _Process | None:
        output = tempfile.TemporaryFile()
        try:
            with tempfile.TemporaryFile() as source:
                source.write("".join(self.texts[i] for i in members).encode("utf-8"))
                source.seek(0)
                process = subprocess.Popen([self.executable, "-Tsvg"], stdin=source, stdout=output,
                                           stderr=subprocess.DEVNULL)
        except OSError:
            output.close()
            return None
        return _Process(members, process, output)

    def svgs(self) -> list[str | None]:
        """Each drawing's ``<svg>`` element, None where ``dot`` could not draw it."""
        if self._svgs is None:
            svgs: list[str | None] = [None] * len(self.texts)
            for started in self._running:
                for index, svg in zip(started.members, self._collect(started), strict=True):
                    svgs[index] = svg
            self.close()
            self._svgs = svgs
        return self._svgs

    def _collect(self, started: _Process) -> list[str | None]:
        timed_out = False
        try:
            started.process.wait(timeout=max(0.0, self.deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            started.process.kill()
            started.process.wait()
            timed_out = True
        started.output.seek(0)
        text = started.output.read().decode("utf-8", errors="replace")
        bounds = [m.start() for m in _DOCUMENT.finditer(text)] + [len(text)]
        documents = [text[bounds[k]:bounds[k + 1]] for k in range(len(bounds) - 1)]
        svgs = [reduce_svg(d) for d in documents]
        count = len(started.members)
        if not timed_out and (started.process.returncode != 0 or len(svgs) != count
                              or None in svgs):
            if count == 1:
                return [None]
            # Something in the input upset dot: which drawing its output stops at is unsure,
            # so each one is drawn alone (the rare case; what dot cannot draw is None).
            return [self._alone(i) for i in started.members]
        # Killed when its time ran out: the drawings finished by then are whole.
        svgs = (svgs + [None] * count)[:count]
        return [_PAGE_PREFIX.sub(r'<g id="\1" class="graph"', s, count=1) if s else None
                for s in svgs]

    def _alone(self, index: int) -> str | None:
        remaining = self.deadline - time.monotonic()
        if remaining <= 0:
            return None
        try:
            done = subprocess.run([self.executable, "-Tsvg"], input=self.texts[index],
                                  capture_output=True, text=True, encoding="utf-8",
                                  errors="replace", timeout=remaining, check=False)
        except (OSError, subprocess.SubprocessError):
            return None
        return reduce_svg(done.stdout) if done.returncode == 0 else None

    def close(self) -> None:
        """Stop the processes still running and release their output."""
        self._stop()


def _stop(running: list[_Process]) -> None:
    for started in running:
        if started.process.poll() is None:
            started.process.kill()
            started.process.wait()
        started.output.close()
    running.clear()
