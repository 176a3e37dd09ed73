"""The error raised for a C source that cannot be read, preprocessed or parsed."""

from __future__ import annotations

from sat import ir
from sat.frontend import FrontendError


class CSourceError(FrontendError):
    """A C file that cannot be read, preprocessed or parsed: one ``file:line: message``."""

    def __init__(self, message: str, file: str, line: int = 0):
        super().__init__(message)
        self.diagnostic = ir.Diagnostic(message, file, line)
