"""Regular expressions compiled on first use, so that importing a module costs no compilation.

Most of satreport's module-level patterns serve error messages or constructs a given program
may not have; compiling all of them at import was a measurable part of a small run's start-up.
"""

from __future__ import annotations

import re
from typing import Any


class LazyPattern:
    """A :class:`re.Pattern` compiled when one of its attributes is first asked for."""

    def __init__(self, pattern: str | bytes, flags: int = 0) -> None:
        self._source = (pattern, flags)

    def __getattr__(self, name: str) -> Any:
        # Only reached for what the instance does not hold yet: the compiled pattern's methods
        # are then kept in the instance, so later uses cost a plain attribute look-up.
        compiled = re.compile(*self._source)
        for method in ("match", "fullmatch", "search", "sub", "subn", "split", "findall",
                       "finditer", "pattern", "flags", "groups", "groupindex"):
            setattr(self, method, getattr(compiled, method))
        return getattr(compiled, name)

