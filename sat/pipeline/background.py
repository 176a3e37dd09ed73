"""An output's text made in a forked process while this one writes the others.

Once the model is built, the outputs are independent computations over it: the HTML page
(its charts evaluate the model a dozen times over) can be made on a second core while the
workbook and the JSON are written on this one.  A forked child shares the built model
without copying or pickling it; it leaves its text in an anonymous temporary file, and this
process writes the output from there (atomically, as ever), so that a run that fails later
leaves no output the serial run would not have left.  An error in the child comes back as
the very exception, and so the same one-line error (exit 2 or 3).
"""

from __future__ import annotations

import os
import pickle
import shutil
import signal
import sys
import tempfile
import traceback
from collections.abc import Callable

from sat.outputs import atomic_write


def can_fork() -> bool:
    """Whether this platform forks (POSIX)."""
    return hasattr(os, "fork") and sys.platform != "win32"


class ForkedText:
    """``make()`` run in a forked child; :meth:`write` puts its text at a path."""

    def __init__(self, make: Callable[[], str], verbose: bool = False) -> None:
        self._text = tempfile.TemporaryFile("w+b")  # anonymous: nothing is left behind
        self._errors, report = os.pipe()
        self._pid: int | None = os.fork()
        if self._pid == 0:  # the child: never returns
            os.close(self._errors)
            os._exit(_child(make, self._text.fileno(), report, verbose))
        os.close(report)

    def write(self, path: str) -> None:
        """Wait for the text and write it to ``path`` atomically; the child's error raised."""
        with os.fdopen(self._errors, "rb") as errors:
            message = errors.read()
        self._errors = -1
        self._reap()
        if message:
            self._text.close()
            raise pickle.loads(message)

        def copy(tmp: str) -> None:
            with self._text as source, open(tmp, "wb") as target:
                source.seek(0)
                shutil.copyfileobj(source, target, 1 << 20)

        atomic_write(path, copy)

    def close(self) -> None:
        """Stop the child if it still runs (the run failed before its text was wanted)."""
        if self._pid is not None:
            try:
                os.kill(self._pid, signal.SIGTERM)
            except ProcessLookupError:
                pass
            self._reap()
        if self._errors >= 0:
            os.close(self._errors)
            self._errors = -1
        self._text.close()

    def _reap(self) -> None:
        if self._pid is not None:
            os.waitpid(self._pid, 0)
            self._pid = None


def _child(make: Callable[[], str], text: int, report: int, verbose: bool) -> int:
    """The child's work: the text into the file ``text``, or its error down ``report``."""
    try:
        data = make().encode("utf-8")
        view = memoryview(data)
        while view:
            view = view[os.write(text, view):]
        return 0
    except BaseException as error:  # noqa: BLE001 - every error goes back to the parent
        if verbose:
            traceback.print_exc()
        try:
            message = pickle.dumps(error)
            pickle.loads(message)  # some exceptions pickle but do not unpickle
        except Exception:  # noqa: BLE001 - then its type's name and text are what is kept
            message = pickle.dumps(RuntimeError(f"{type(error).__name__}: {error}"))
        view = memoryview(message)
        while view:
            view = view[os.write(report, view):]
        return 1
