"""One run's session: its options, progress and warnings on stderr, and where sweeps run."""

from __future__ import annotations

import argparse
import os
import sys

from sat.ir import Diagnostic
from sat.quoting import one_line
from sat.regex import LazyPattern

WARNINGS_PER_KIND = 3
# Messages that differ only in quoted names and numbers are one kind of warning.
_KIND = LazyPattern(r"'[^']*'|\b\d+(\.\d+)?\b|\bCallFlops_\w+")  # names, numbers, per-callee names


_QUOTED = LazyPattern(r"'[^']*'")


class UsageError(Exception):
    """A problem with what the user asked for: one line, exit status 2."""


def available_cores() -> int:
    """The cores this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):  # not Linux
        return os.cpu_count() or 1


class Run:
    """One invocation: holds the options and shows progress and warnings on stderr."""

    def __init__(self, args: argparse.Namespace):
        from sat.progress import Progress, choose_mode

        self.args = args
        self.shown = Progress(choose_mode(args.verbose, args.quiet, sys.stderr))
        self.idioms = None  # the --idioms patterns with the built-in ones (None: built-ins)

        self._mapper = None

    def progress(self, message: str) -> None:
        self.shown.step(message)

    def mapper(self):
        """Where chunks of configurations are evaluated: here, or on ``--dask-scheduler``."""
        if self._mapper is None:
            if self.args.dask_scheduler:
                from sat.explore.distribute import DaskMapper, DistributeError

                try:
                    self._mapper = DaskMapper(self.args.dask_scheduler)
                except DistributeError as error:
                    raise UsageError(str(error)) from None
                self.progress(f"connected to the Dask scheduler at {self.args.dask_scheduler} "
                              f"({self._mapper.workers()} workers)")
            else:
                from sat.explore.distribute import in_process

                self._mapper = in_process
        return self._mapper

    def close(self) -> None:
        if hasattr(self._mapper, "close"):
            self._mapper.close()
        self.shown.close()

    def warn(self, message: str) -> None:
        if not self.args.quiet:
            self.shown.write(one_line(f"satreport: warning: {message}"))

    def error(self, message: str) -> None:
        """An error of satreport itself that does not stop the run: shown even with -q."""
        self.shown.write(one_line(f"satreport: error: {message}"))

    def warn_all(self, diagnostics: list[tuple[str, str, int]]) -> None:
        """(message, file, line) warnings, grouped so that what matters stays visible.

        A message repeated at several places is shown once with the count; messages of one
        kind (the same text but for quoted names and numbers) are shown up to
        ``WARNINGS_PER_KIND`` times, then summed up in one line. ``-v`` shows every one; the
        Notes sheet and the JSON always hold them all.
        """
        places: dict[str, list[tuple[str, int]]] = {}
        for message, file, line in diagnostics:
            places.setdefault(message, []).append((file, line))
        kinds: dict[str, list[str]] = {}
        for message in places:
            kinds.setdefault(_KIND.sub("#", message), []).append(message)
        verbose = self.args.verbose
        for messages in kinds.values():
            for message in messages if verbose else messages[:WARNINGS_PER_KIND]:
                where = places[message]
                text = str(Diagnostic(message, *where[0]))
                if len(where) > 1 and not verbose:
                    text += f" (and {len(where) - 1} more time{'s' if len(where) > 2 else ''})"
                self.warn(text)
                if verbose:
                    for file, line in where[1:]:
                        self.warn(str(Diagnostic(message, file, line)))
            hidden = [] if verbose else messages[WARNINGS_PER_KIND:]
            if hidden:
                names = [n for m in hidden for n in _QUOTED.findall(m)[:1]]
                shown = ", ".join(dict.fromkeys(names[:4])) + (", …" if len(names) > 4 else "")
                self.warn(f"… and {len(hidden)} more warning{'s' if len(hidden) > 1 else ''} "
                          "like the one above" + (f" ({shown})" if shown else "")
                          + ": all in the Notes sheet and the JSON, each with -v")
