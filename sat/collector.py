"""When CPython's garbage collector may run during a satreport run.

A run allocates in a few big waves whose objects live on: the parse trees of a read, the
model's expressions, a workbook's cells.  CPython walks every tracked object in a full
collection, and starts one each time the long-lived heap has grown by a quarter; a wave of
survivors therefore sets off full passes that find nothing to free (on SMC's ``kernels.f90``
four of them cost a quarter of a second).  So the collector is paused over each wave
(reference counting still frees everything without cycles), and inside :func:`frozen` what a
wave leaves behind is frozen: later collections do not walk it again.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager

_frozen_depth = 0  # frozen() blocks open


@contextmanager
def frozen() -> Iterator[None]:
    """Collections inside leave alone the objects that exist now (and what waves inside
    leave behind); all are collectable again when the outermost block ends (unless they were
    frozen before it, by whoever froze them)."""
    global _frozen_depth
    unfreeze = not gc.get_freeze_count()
    gc.freeze()
    _frozen_depth += 1
    try:
        yield
    finally:
        _frozen_depth -= 1
        if unfreeze:
            gc.unfreeze()


@contextmanager
def paused(*, survivors: bool = False, cycles: bool = False) -> Iterator[None]:
    """No collection inside; the collector resumes as it was.

    ``survivors``: what the block made lives on, and inside :func:`frozen` it is frozen when
    the block ends (otherwise the first collection after it walks it all).  ``cycles``: the
    block leaves garbage with reference cycles (parse trees), freed by one collection first.
    """
    if not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
        if cycles:
            gc.collect(0)  # all the block made is young: only it is walked
        if survivors and _frozen_depth:
            gc.freeze()
    finally:
        gc.enable()
