"""The built distributions carry every module and every run-time data file.

A plain ``pip install`` gets only what the wheel holds (built, as users' installers do, from
the sdist): every file under ``machines/``, ``templates/`` and ``sat/data/`` and every module
of ``sat/`` must be in both, at the place satreport looks for it.
"""

from __future__ import annotations

import importlib.util
import sys
import tarfile
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(Path(__file__).resolve().parent))
from check_package import build, repository_data_files  # noqa: E402

pytestmark = [
    pytest.mark.slow,
    pytest.mark.xdist_group("package"),  # one pytest-xdist worker: the wheel and sdist built once
    pytest.mark.skipif(importlib.util.find_spec("build") is None,
                       reason="the 'build' package is not installed (pip install -e .[test])"),
]


@pytest.fixture(scope="module")
def distributions(tmp_path_factory) -> tuple[set[str], set[str]]:
    """Names in the wheel and in the sdist (without the sdist's top folder)."""
    work = tmp_path_factory.mktemp("build")
    wheel, sdist = build(work / "dist", work)
    with zipfile.ZipFile(wheel) as archive:
        in_wheel = set(archive.namelist())
    with tarfile.open(sdist) as archive:
        in_sdist = {name.split("/", 1)[1] for name in archive.getnames() if "/" in name}
    return in_wheel, in_sdist


def test_every_data_file_is_in_the_wheel(distributions):
    in_wheel, _ = distributions
    wanted = set(repository_data_files())
    assert {f for f in wanted if f.startswith("sat/machines/")} >= {
        f"sat/machines/{p.name}" for p in (ROOT / "machines").glob("*.xml")}
    assert "sat/templates/report.html.j2" in wanted and "sat/data/c_include/math.h" in wanted
    assert sorted(wanted - in_wheel) == []


def test_every_module_is_in_the_wheel(distributions):
    in_wheel, _ = distributions
    modules = {p.relative_to(ROOT).as_posix() for p in (ROOT / "sat").rglob("*.py")}
    assert sorted(modules - in_wheel) == []


def test_the_sdist_holds_the_repository_folders(distributions):
    _, in_sdist = distributions
    wanted = set(repository_data_files().values())
    assert "machines/exascale.xml" in wanted and "templates/report.html.j2" in wanted
    assert sorted(wanted - in_sdist) == []
    assert {"pyproject.toml", "README.md"} <= in_sdist
