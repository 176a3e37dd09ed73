"""Valid Excel defined names for parameters and results.

A workbook-level name must start with a letter or an underscore, hold only letters, digits and
underscores (periods are legal in Excel but LibreOffice reads them as sheet separators), be at
most 255 characters, and must not look like a cell reference (``A1``, ``NX1``, ``hi3``, ``R1C1``,
``R``, ``C``) or a boolean (``TRUE``).  Names are case-insensitive, so ``hi_1`` and ``HI_1`` clash.
"""

from __future__ import annotations

import re

MAX_LENGTH = 255

_INVALID_CHARS = re.compile(r"[^A-Za-z0-9_]")
# A1 style: 1-3 column letters then a row number (covers every column up to XFD and beyond).
_A1 = re.compile(r"^([A-Za-z]{1,3})(\d+)$")
# R1C1 style: R, C, R12, C3, RC, R1C1, R[1]C... (brackets are already invalid characters).
_R1C1 = re.compile(r"^[Rr]\d*([Cc]\d*)?$|^[Cc]\d*$")
_RESERVED = {"true", "false"}


def is_valid_name(name: str) -> bool:
    """True when ``name`` can be a defined name in both Excel and LibreOffice."""
    return (
        0 < len(name) <= MAX_LENGTH
        and not _INVALID_CHARS.search(name)
        and not name[0].isdigit()
        and not _A1.match(name)
        and not _R1C1.match(name)
        and name.lower() not in _RESERVED
        and not name.lower().startswith("_xl")  # reserved for Excel's own names (_xlnm...)
    )


def excel_name(name: str) -> str:
    """Closest valid defined name: ``NX1`` -> ``NX_1``, ``2d`` -> ``_2d``, ``a.b`` -> ``a_b``."""
    text = _INVALID_CHARS.sub("_", name) or "_"
    if text[0].isdigit():
        text = "_" + text
    cell = _A1.match(text)
    if cell:
        text = f"{cell.group(1)}_{cell.group(2)}"
    elif _R1C1.match(text):
        text += "_"
    if text.lower() in _RESERVED:
        text += "_"
    if text.lower().startswith("_xl"):
        text = "p" + text
    return text[:MAX_LENGTH]


class NameTable:
    """Allocates unique valid names: valid names are kept, invalid ones mapped, clashes numbered.

    Register every name that is already valid first (:meth:`reserve`), so that a mapped name
    never steals the identity of a real parameter (``nx1`` -> ``nx_1`` must not take the name
    of a parameter that really is called ``nx_1``).
    """

    def __init__(self) -> None:
        self._by_source: dict[str, str] = {}
        self._taken: set[str] = set()  # lower-case: Excel names ignore case

    def reserve(self, names: list[str]) -> None:
        """Give every already-valid name in ``names`` to itself (first come, first served)."""
        for name in names:
            if is_valid_name(name) and name.lower() not in self._taken:
                self._by_source[name] = name
                self._taken.add(name.lower())

    def name(self, source: str) -> str:
        """The defined name for ``source`` (allocated on first use)."""
        if source in self._by_source:
            return self._by_source[source]
        base = excel_name(source)
        candidate, n = base, 1
        while candidate.lower() in self._taken:
            n += 1
            suffix = f"_{n}"
            candidate = base[: MAX_LENGTH - len(suffix)] + suffix
        self._by_source[source] = candidate
        self._taken.add(candidate.lower())
        return candidate

    def mapping(self) -> dict[str, str]:
        """Source name -> defined name, for every name handed out so far."""
        return dict(self._by_source)
