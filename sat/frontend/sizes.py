"""Problem sizes given on the command line: loops whose numeric bounds came from ``-D``.

After preprocessing, ``for (i = 1; i < N-1; i++)`` with ``-D N=10`` reads ``i < 10-1``: a
number, as if the author had written a literal.  A literal short loop over the unit-stride
dimension is a loop over the components of a cell, and a literal nest of few iterations is
set-up work; a size chosen with ``-D`` is neither.  :func:`mark_sized` marks the loops whose
header in the source names a ``-D`` macro (directly or through the file's own ``#define``
of it) as ``sized``: problem sizes, spatial whatever their trip count.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache

from sat import ir
from sat.regex import LazyPattern

_NUMBER = LazyPattern(r"^\s*[-+]?\d+\s*$")
_DEFINE = LazyPattern(r"^[ \t]*#[ \t]*define[ \t]+([A-Za-z_]\w*)(?![\w(])[ \t]*(.*)$", re.M)
_WORD = LazyPattern(r"[A-Za-z_]\w*")
_FOR = LazyPattern(r"\bfor\s*\(")


def defined_names(defines: Sequence[str]) -> frozenset[str]:
    """The macro names of ``-D NAME[=VALUE]`` definitions."""
    return frozenset(d.split("=", 1)[0].strip() for d in defines if d.split("=", 1)[0].strip())


@lru_cache(maxsize=64)
def _source(path: str) -> tuple[str, ...]:
    try:
        with open(path, encoding="utf-8", errors="replace") as handle:
            return tuple(handle.read().splitlines())
    except OSError:
        return ()


def _sizes(path: str, names: frozenset[str]) -> frozenset[str]:
    """``names`` and the file's object-like macros defined from them (``#define NX (N+2)``)."""
    found = set(names)
    bodies = {m.group(1): set(_WORD.findall(m.group(2)))
              for m in _DEFINE.finditer("\n".join(_source(path)))}
    grown = True
    while grown:
        grown = False
        for name, words in bodies.items():
            if name not in found and words & found:
                found.add(name)
                grown = True
    return frozenset(found)


def _header(path: str, line: int) -> str:
    """The loop's header in the source: a C ``for (…)`` (possibly over several lines), else
    the line itself (a Fortran ``do``)."""
    lines = _source(path)
    if not 0 < line <= len(lines):
        return ""
    text = "\n".join(lines[line - 1:line + 4])
    match = _FOR.search(text)
    if match is None:
        return lines[line - 1]
    depth = 0
    for index in range(match.end() - 1, len(text)):
        depth += {"(": 1, ")": -1}.get(text[index], 0)
        if depth == 0:
            return text[match.start():index + 1]
    return text


def mark_sized(procedures: list[ir.Procedure], defines: Sequence[str]) -> int:
    """Mark the loops whose numeric bounds come from ``-D`` definitions; how many."""
    names = defined_names(defines)
    if not names:
        return 0
    marked = 0
    for procedure in procedures:
        for loop in procedure.all_loops():
            path = loop.file or procedure.file
            if not path or not (_NUMBER.match(loop.lower) and _NUMBER.match(loop.upper)):
                continue
            words = set(_WORD.findall(_header(path, loop.line)))
            if words & _sizes(path, names):
                loop.sized = True
                marked += 1
    return marked
