"""Chunks of a sweep or of an exhaustive scenario on a Dask cluster (``--dask-scheduler``).

Work is handed out as ``function(shared, *item)`` calls: ``shared`` (the compiled model and
what evaluation needs, a few hundred kilobytes for a large program) goes to every worker once,
each ``item`` is a chunk of the grid.  Without a scheduler, :func:`in_process` runs the same
calls here.  Results come back in the order of the items, with at most :data:`WINDOW` chunks
in flight, so a grid of any size streams in bounded memory.  ``distributed`` is an optional
dependency (``pip install 'satreport[dask]'``), imported only when a scheduler is given.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterable, Iterator

WINDOW = 64  # chunks submitted ahead of the one being consumed

Mapper = Callable[[Callable, object, Iterable[tuple]], Iterator]


class DistributeError(ValueError):
    """A cluster that cannot be used: one line."""


def in_process(function: Callable, shared: object, items: Iterable[tuple]) -> Iterator:
    """Run ``function(shared, *item)`` for each item here, lazily, in order."""
    return (function(shared, *item) for item in items)


class DaskMapper:
    """Runs the calls on the Dask cluster whose scheduler is at ``address``."""

    def __init__(self, address: str, timeout_s: float = 10.0):
        try:
            from distributed import Client
        except ImportError:
            raise DistributeError("--dask-scheduler: the 'distributed' package is not "
                                  "installed (pip install 'satreport[dask]')") from None
        try:
            self.client = Client(address, timeout=timeout_s)
        except (OSError, TimeoutError, ValueError) as error:
            message = " ".join(str(error).split()) or type(error).__name__
            raise DistributeError(f"--dask-scheduler {address}: cannot reach the scheduler: "
                                  f"{message}") from None
        self.address = address

    def workers(self) -> int:
        return len(self.client.scheduler_info().get("workers", {}))

    def __call__(self, function: Callable, shared: object, items: Iterable[tuple]) -> Iterator:
        [remote] = self.client.scatter([shared], broadcast=True)
        pending: deque = deque()
        for item in items:
            pending.append(self.client.submit(function, remote, *item, pure=False))
            if len(pending) >= WINDOW:
                yield pending.popleft().result()
        while pending:
            yield pending.popleft().result()

    def close(self) -> None:
        self.client.close()
