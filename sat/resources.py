"""Run-time data shipped inside the package: built-in machines, HTML templates, C headers.

The repository keeps ``machines/`` and ``templates/`` at its top level; ``pyproject.toml``
installs them as the data packages ``sat.machines`` and ``sat.templates`` (their
``__init__.py`` only marks them as packages). Looking them up through
:mod:`importlib.resources` finds the same files in a wheel, an sdist install and an editable
install, wherever the current directory is.
"""

from __future__ import annotations

from importlib.resources import files
from pathlib import Path


def _folder(package: str) -> Path:
    """A data package's folder as a file-system path.

    The C preprocessor and Jinja read real files, so satreport is installed unzipped (pip
    always unpacks wheels) and the package's location is a directory.
    """
    return Path(str(files(package)))


def machines_dir() -> Path:
    """The built-in machine files (``satreport --list-machines``)."""
    return _folder("sat.machines")


def templates_dir() -> Path:
    """The Jinja templates of the HTML summary."""
    return _folder("sat.templates")


def data_dir() -> Path:
    """The package's own data files (``sat/data``): idioms, accelerators, C headers."""
    return _folder("sat") / "data"


def c_include_dir() -> Path:
    """Stand-in system headers for the C front end (``<math.h>``, ``<stdio.h>``, …)."""
    return data_dir() / "c_include"
