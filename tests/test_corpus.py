"""Real public HPC code: every entry of the corpus's ``manifest.json`` through satreport.

The corpus (files of public codes, each under its own licence) is a test input that lives
beside the checkout, never in it: ``shared/corpus`` in a folder that holds the checkout (in CI
the checkout is ``X/main`` and the corpus ``X/shared/corpus``). Without it the test is
skipped. Each entry runs from the corpus folder, as its README says, with the entry's flags:

- exit status 0, no traceback, at least one loop nest;
- no Fortran ``parameter`` of the file or of the files it includes left as a defaulted
  problem parameter (the front end must read every named constant it meets);
- every nest within its physical bounds (``bounds_violations`` empty, sat.model.bounds).

The entries run once, two at a time (two cores), before the first check.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def _corpus() -> Path | None:
    """``shared/corpus`` in the nearest folder above the checkout that has one."""
    for folder in ROOT.parents:
        if (folder / "shared" / "corpus" / "manifest.json").is_file():
            return folder / "shared" / "corpus"
    return None


CORPUS = _corpus()
ENTRIES = json.loads((CORPUS / "manifest.json").read_text())["files"] if CORPUS else []

# Entries satreport gets wrong today, with what goes wrong: each must fail (a fix makes its
# test pass, and then it leaves this table).
KNOWN: dict[str, str] = {}

FORTRAN = (".f", ".f90", ".F", ".F90", ".for", ".f77")
_INCLUDE = re.compile(r"^\s*(?:#\s*)?include\s*['\"<]([^'\">]+)['\">]", re.I | re.M)
# ``parameter (a = 1, b = 2)`` and ``integer, parameter :: a = 1, b = 2``
_PARAMETER_F77 = re.compile(r"\bparameter\s*\((.*)\)", re.I)
_PARAMETER_F90 = re.compile(r",\s*parameter\b[^:]*::(.*)", re.I)


def _statements(text: str, fixed: bool) -> list[str]:
    """Fortran statements with comments dropped and continuation lines joined."""
    statements: list[str] = []
    for raw in text.splitlines():
        if fixed and raw[:1] in ("c", "C", "*", "!"):
            continue
        line = raw.split("!", 1)[0].rstrip()
        if fixed and len(line) > 5 and line[5] not in (" ", "0") and statements:
            statements[-1] += line[6:]
            continue
        if statements and statements[-1].endswith("&"):
            statements[-1] = statements[-1][:-1] + line.lstrip().lstrip("&")
        else:
            statements.append(line)
    return statements


def _names(assignments: str) -> set[str]:
    """The names on the left of ``a = 1, b = f(2, 3)`` (commas inside brackets kept)."""
    depth, start, parts = 0, 0, []
    for i, char in enumerate(assignments):
        depth += char in "(["
        depth -= char in ")]"
        if char == "," and depth == 0:
            parts.append(assignments[start:i])
            start = i + 1
    parts.append(assignments[start:])
    return {m.group(1).lower() for part in parts
            if (m := re.match(r"\s*([A-Za-z_]\w*)\s*=", part))}


def _included(path: Path, include_dirs: list[Path]) -> list[Path]:
    """The files ``path`` includes that exist beside it or in an include folder."""
    found = []
    for name in _INCLUDE.findall(path.read_text(errors="replace")):
        for folder in (path.parent, *include_dirs):
            if (folder / name).is_file():
                found.append(folder / name)
                break
    return found


def fortran_parameters(source: Path, include_dirs: list[Path]) -> set[str]:
    """Names of the Fortran named constants of ``source`` and of the files it includes."""
    names: set[str] = set()
    seen: set[Path] = set()
    pending = [source]
    while pending:
        path = pending.pop()
        if path in seen:
            continue
        seen.add(path)
        fixed = path.suffix.lower() in (".f", ".for", ".f77", ".h")
        for statement in _statements(path.read_text(errors="replace"), fixed):
            for pattern in (_PARAMETER_F77, _PARAMETER_F90):
                match = pattern.search(statement)
                if match:
                    names |= _names(match.group(1))
        pending.extend(_included(path, include_dirs))
    return names


def _flag_values(flags: list[str], flag: str) -> list[str]:
    return [flags[i + 1] for i, f in enumerate(flags[:-1]) if f == flag]


def _run(entry: dict, out: Path) -> dict:
    """One entry through satreport from the corpus folder: exit status, stderr, its JSON."""
    json_path = out / f"{entry['id']}.json"
    done = subprocess.run([sys.executable, "-m", "sat", entry["source"], *entry["flags"],
                           "-q", "--json", str(json_path)], cwd=CORPUS, capture_output=True,
                          text=True, timeout=600)
    data = json.loads(json_path.read_text()) if json_path.is_file() else None
    return {"status": done.returncode, "stderr": done.stderr, "json": data}


# one pytest-xdist worker runs this module's tests: each corpus entry through satreport once
pytestmark = pytest.mark.xdist_group("corpus")


@pytest.fixture(scope="module")
def results(tmp_path_factory) -> dict[str, dict]:
    out = tmp_path_factory.mktemp("corpus")
    with ThreadPoolExecutor(2) as pool:
        return dict(zip([e["id"] for e in ENTRIES],
                        pool.map(lambda entry: _run(entry, out), ENTRIES), strict=True))


def _cases() -> list:
    if CORPUS is None:
        return [pytest.param(None, marks=pytest.mark.skip(
            reason="no shared/corpus beside the checkout"))]
    return [pytest.param(e, id=e["id"], marks=[pytest.mark.xfail(
        reason=KNOWN[e["id"]], strict=True)] if e["id"] in KNOWN else [])
        for e in ENTRIES]


@pytest.mark.parametrize("entry", _cases())
def test_a_corpus_entry_runs_within_its_bounds(entry, results):
    got = results[entry["id"]]
    where = f"{entry['source']} {' '.join(entry['flags'])}"
    assert "Traceback" not in got["stderr"], f"{where}: {got['stderr']}"
    assert got["status"] == 0, f"{where}: exit {got['status']}: {got['stderr'][-2000:]}"
    data = got["json"]
    assert data["loops"], f"{where}: no loop nest"
    source = CORPUS / entry["source"]
    if source.suffix in FORTRAN:
        constants = fortran_parameters(
            source, [CORPUS / d for d in _flag_values(entry["flags"], "-I")])
        defaulted = sorted(p["symbol"] for p in data["parameters"] if p["defaulted"]
                           and str(p["symbol"]).lower() in constants)
        assert not defaulted, f"{where}: Fortran parameters left defaulted: {defaulted}"
    assert data["bounds_violations"] == [], \
        f"{where}: " + "; ".join(f"{v['file']}:{v['line']}: {v['message']}"
                                 for v in data["bounds_violations"][:5])


def test_fortran_parameters_are_found_in_both_forms_and_through_includes(tmp_path):
    """The check's own reading of named constants: fixed form with a continuation, free form
    with two on one line, an included file's."""
    (tmp_path / "sizes.h").write_text("      integer nx\n      parameter (nx = 64)\n")
    (tmp_path / "a.f").write_text(
        "      include 'sizes.h'\n"
        "      integer ny, nz\n"
        "      parameter (ny = 2*nx,\n"
        "     >           nz = max(ny, 3))\n"
        "c     parameter (ignored = 1)\n")
    (tmp_path / "b.f90").write_text(
        "integer, parameter :: lx = 8, ly = lx + 1 ! parameter (no = 2)\n"
        "real(8), parameter :: pi = &\n  3.14d0\n")
    assert fortran_parameters(tmp_path / "a.f", []) == {"nx", "ny", "nz"}
    assert fortran_parameters(tmp_path / "b.f90", []) == {"lx", "ly", "pi"}
