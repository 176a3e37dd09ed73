"""The C preprocessor for ``.F90``/``.F`` sources, with a map back to the original lines.

``cpp -traditional-cpp`` (or ``gfortran -E -cpp``) is run *with* line markers (``# 12 "a.F90"``);
the markers are blanked out and remembered, so that every line of the output can be traced to
its file and line in the original sources.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from collections.abc import Sequence
from dataclasses import dataclass, field

UPPER_CASE_SUFFIXES = (".F90", ".F", ".F03", ".F08", ".FOR", ".FTN", ".F95", ".F77")

_MARKER = re.compile(r'^#\s*(?:line\s+)?(\d+)\s+"((?:[^"\\]|\\.)*)"')


class PreprocessError(Exception):
    """The preprocessor failed or is missing; ``line`` is 0 when unknown."""

    def __init__(self, message: str, line: int = 0):
        super().__init__(message)
        self.line = line


@dataclass
class Preprocessed:
    """Preprocessed text and, per output line (1-based), the original ``(file, line)``."""

    text: str
    origins: list[tuple[str, int]] = field(default_factory=list)

    def origin(self, line: int) -> tuple[str, int]:
        if 1 <= line <= len(self.origins):
            return self.origins[line - 1]
        return ("", line)


def needs_preprocessing(path: str) -> bool:
    """Upper-case Fortran suffixes (``.F90``, ``.F``) go through the preprocessor."""
    return os.path.splitext(path)[1] in UPPER_CASE_SUFFIXES


def _command(path: str, defines: Sequence[str], include_dirs: Sequence[str]) -> list[str]:
    flags = [f"-D{d}" for d in defines] + [f"-I{d}" for d in include_dirs]
    if shutil.which("cpp"):
        # -undef: no system macros (a variable called "linux" must stay a variable).
        return ["cpp", "-traditional-cpp", "-undef", "-D__GFORTRAN__", *flags, path]
    if shutil.which("gfortran"):
        return ["gfortran", "-E", "-cpp", *flags, path]
    raise PreprocessError("no C preprocessor found (install cpp or gfortran)")


def preprocess(path: str, defines: Sequence[str] = (), include_dirs: Sequence[str] = ()
               ) -> Preprocessed:
    """Run the preprocessor on ``path``; line markers become a line map."""
    try:
        result = subprocess.run(_command(path, defines, include_dirs), capture_output=True,
                                timeout=120, check=False)
    except (OSError, subprocess.SubprocessError) as exc:
        raise PreprocessError(f"preprocessor failed: {exc}") from None
    if result.returncode != 0:
        message, line = _first_error(result.stderr.decode("utf-8", "replace"), path)
        raise PreprocessError(message, line)
    return map_lines(result.stdout.decode("utf-8", "replace"), path)


def map_lines(text: str, path: str) -> Preprocessed:
    """Blank out line markers of preprocessor output and record where each line came from."""
    out: list[str] = []
    origins: list[tuple[str, int]] = []
    current_file, current_line = path, 1
    for raw in text.split("\n"):
        match = _MARKER.match(raw)
        if match:
            current_line = int(match.group(1))
            name = match.group(2)
            # The main file is reported under the path as given by the user.
            current_file = path if _same_file(name, path) else name
            out.append("")
            origins.append((current_file, current_line))
            continue
        out.append(raw)
        origins.append((current_file, current_line))
        current_line += 1
    return Preprocessed("\n".join(out), origins)


def _same_file(a: str, b: str) -> bool:
    try:
        return os.path.samefile(a, b)
    except OSError:
        return os.path.normpath(a) == os.path.normpath(b)


def _first_error(stderr: str, path: str) -> tuple[str, int]:
    for raw in stderr.splitlines():
        match = re.match(r"^(.*?):(\d+):(?:\d+:)?\s*(?:fatal\s+)?error:\s*(.*)$", raw)
        if match:
            return f"preprocessor: {match.group(3).strip()}", int(match.group(2))
    first = next((line for line in stderr.splitlines() if line.strip()), "failed")
    return f"preprocessor: {first.strip()}", 0
