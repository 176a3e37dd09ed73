"""Writing output files atomically: a failed run never leaves a half-written file."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable
from pathlib import Path


class OutputError(Exception):
    """An output path that cannot be written (one-line message)."""


def check_output_path(path: str, suffix: str | None = None) -> Path:
    """Fail early, before any work, if ``path`` cannot be written."""
    target = Path(path)
    if suffix and target.suffix.lower() != suffix:
        raise OutputError(f"{path}: output name must end in {suffix}")
    directory = target.parent if str(target.parent) else Path(".")
    if not directory.is_dir():
        raise OutputError(f"{path}: directory {directory} does not exist")
    if not os.access(directory, os.W_OK):
        raise OutputError(f"{path}: directory {directory} is not writable")
    if target.is_dir():
        raise OutputError(f"{path}: is a directory")
    if target.exists() and not os.access(target, os.W_OK):
        raise OutputError(f"{path}: file is not writable")
    return target


def atomic_write(path: str, write: Callable[[str], None]) -> None:
    """Call ``write(tmp_path)`` on a temporary file beside ``path``, then rename it over ``path``.

    On any failure the temporary file is removed and ``path`` is left as it was.
    """
    target = check_output_path(path)
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    os.close(fd)
    try:
        write(tmp)
        if target.exists():
            os.chmod(tmp, os.stat(target).st_mode & 0o777)
        else:
            umask = os.umask(0)
            os.umask(umask)
            os.chmod(tmp, 0o666 & ~umask)
        os.replace(tmp, target)
    except OSError as error:
        _remove(tmp)
        raise OutputError(f"{path}: {error.strerror or error}") from None
    except BaseException:
        _remove(tmp)
        raise


def atomic_write_text(path: str, text: str) -> None:
    def write(tmp: str) -> None:
        with open(tmp, "w", encoding="utf-8") as handle:
            handle.write(text)

    atomic_write(path, write)


def _remove(path: str) -> None:
    try:
        os.unlink(path)
    except OSError:
        pass
