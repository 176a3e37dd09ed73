"""The one error type of the Aspen reader."""

from __future__ import annotations

from sat.aspen.tree import Loc


class AspenError(ValueError):
    """A model that cannot be read or evaluated.

    The message is one line, ``file:line:col: what is wrong``, when the place is known.
    ``loc`` and ``reason`` keep the two parts apart for callers that want them.
    """

    def __init__(self, reason: str, loc: Loc | None = None):
        self.reason = " ".join(str(reason).split())
        self.loc = loc
        super().__init__(f"{loc}: {self.reason}" if loc is not None else self.reason)


class DivisionByZero(AspenError):
    """A division by zero in a model's expression: an error wherever it is evaluated."""
