"""Check satreport as users install it: from the wheel and from the sdist, outside the checkout.

    python tests/check_package.py [--keep]

Builds the sdist and, from it, the wheel (``python -m build``); installs each into a fresh
virtual environment in a temporary directory; and there, from a working directory outside
the checkout, checks that every run-time data file of the repository (``machines/``,
``templates/``, ``sat/data/``) was installed, that ``satreport --version``,
``python -m sat --help`` and ``satreport --list-machines`` (every built-in) work, and that
every bundled example writes its workbook, JSON and HTML with the same totals as the
satreport this script runs under (the editable install). Exit status 1 on any failure.
"""

from __future__ import annotations

import argparse
import json
import math
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
#: Repository folder -> where it is installed inside the package.
DATA_FOLDERS = {"machines": "sat/machines", "templates": "sat/templates",
                "sat/data": "sat/data"}
EXAMPLE_PATTERNS = ("examples/*.f90", "examples/*.F90", "examples/*.f", "examples/c/*.c")
# Run inside an installed environment: its files under the given folders of the package.
LIST_INSTALLED = """
import sys
from importlib.resources import files
from pathlib import Path
site = Path(str(files("sat"))).parent
for folder in sys.argv[1:]:
    for path in (site / folder).rglob("*"):
        if path.is_file() and "__pycache__" not in path.parts:
            print(path.relative_to(site).as_posix())
"""


class CheckFailed(Exception):
    pass


def run(command: list[str], cwd: Path, **kwargs) -> subprocess.CompletedProcess:
    result = subprocess.run(command, cwd=cwd, capture_output=True, text=True, **kwargs)
    if result.returncode != 0:
        raise CheckFailed(f"{' '.join(map(str, command))} (in {cwd}) exited with "
                          f"{result.returncode}:\n{result.stderr.strip()[-2000:]}")
    return result


def repository_data_files() -> dict[str, str]:
    """The run-time data files of the checkout: path inside the installed package ->
    path in the repository."""
    files = {}
    for folder, installed in DATA_FOLDERS.items():
        for path in (ROOT / folder).rglob("*"):
            if path.is_file() and "__pycache__" not in path.parts:
                inside = path.relative_to(ROOT / folder).as_posix()
                files[f"{installed}/{inside}"] = f"{folder}/{inside}"
    return files


def source_tree(dest: Path) -> Path:
    """The files a fresh clone would have (tracked, plus new files not ignored), copied to
    ``dest``: a local build's leftovers, such as ``satreport.egg-info``, would otherwise add
    files to the sdist that a fresh clone's build leaves out."""
    try:
        listed = subprocess.run(["git", "ls-files", "-z", "--cached", "--others",
                                 "--exclude-standard"], cwd=ROOT, capture_output=True,
                                check=True).stdout.decode().split("\0")
    except (OSError, subprocess.CalledProcessError):
        return ROOT  # not a git checkout (an unpacked sdist): build it as it is
    for name in filter(None, listed):
        source = ROOT / name
        if source.is_file():
            (dest / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, dest / name)
    return dest


def build(out: Path, work: Path) -> tuple[Path, Path]:
    """The sdist and the wheel built from it, as ``python -m build`` makes them."""
    tree = source_tree(work / "source")
    run([sys.executable, "-m", "build", "--outdir", str(out), str(tree)], work)
    wheel, = out.glob("*.whl")
    sdist, = out.glob("*.tar.gz")
    return wheel, sdist


def examples() -> list[Path]:
    return sorted(p for pattern in EXAMPLE_PATTERNS for p in ROOT.glob(pattern))


def totals(command: list[str], example: Path, cwd: Path, stem: str) -> dict:
    """Run ``command`` on ``example`` writing all three outputs; the JSON's totals."""
    outputs = {suffix: cwd / f"{stem}{suffix}" for suffix in (".xlsx", ".json", ".html")}
    run([*command, str(example), "-q", "-o", str(outputs[".xlsx"]),
         "--json", str(outputs[".json"]), "--html", str(outputs[".html"])], cwd)
    for path in outputs.values():
        if not path.is_file() or path.stat().st_size == 0:
            raise CheckFailed(f"{example.name}: {path} was not written")
    return json.loads(outputs[".json"].read_text())["totals"]


def same_totals(installed: dict, editable: dict) -> bool:
    if installed.keys() != editable.keys():
        return False
    return all(a == b or (isinstance(a, float) and isinstance(b, float)
                          and math.isclose(a, b, rel_tol=1e-9))
               for a, b in ((installed[k], editable[k]) for k in editable))


def check_install(kind: str, artefact: Path, work: Path, expected_totals: dict) -> None:
    venv = work / f"venv-{kind}"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    bin_dir = venv / ("Scripts" if sys.platform == "win32" else "bin")
    python, satreport = bin_dir / "python", bin_dir / "satreport"
    run([str(python), "-m", "pip", "install", "-q", "--disable-pip-version-check",
         str(artefact)], work)
    cwd = work / f"run-{kind}"
    cwd.mkdir()

    installed = set(run([str(python), "-c", LIST_INSTALLED, *DATA_FOLDERS.values()],
                        cwd).stdout.split())
    missing = sorted(set(repository_data_files()) - installed)
    if missing:
        raise CheckFailed(f"{kind}: run-time data files not installed: {', '.join(missing)}")

    version = run([str(satreport), "--version"], cwd).stdout.strip()
    help_text = run([str(python), "-m", "sat", "--help"], cwd).stdout
    if not version.startswith("satreport ") or "--machine" not in help_text:
        raise CheckFailed(f"{kind}: --version or python -m sat --help printed {version!r}")
    listed = {line.split()[0] for line in
              run([str(satreport), "--list-machines"], cwd).stdout.splitlines() if line}
    builtins = {p.stem for p in (ROOT / "machines").glob("*.xml")}
    if listed != builtins:
        raise CheckFailed(f"{kind}: --list-machines lists {sorted(listed)}, "
                          f"the repository has {sorted(builtins)}")

    for example in examples():
        stem = example.stem + ("_c" if example.suffix == ".c" else "")
        got = totals([str(satreport)], example, cwd, stem)
        if not same_totals(got, expected_totals[example]):
            raise CheckFailed(f"{kind}: {example.relative_to(ROOT)}: totals {got} differ from "
                              f"the editable install's {expected_totals[example]}")
    print(f"check_package: {kind}: {len(installed)} data files, {len(builtins)} machines, "
          f"{len(examples())} examples × workbook, JSON, HTML: OK", flush=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--keep", action="store_true", help="keep the temporary directory")
    args = parser.parse_args(argv)
    start = time.perf_counter()
    work = Path(tempfile.mkdtemp(prefix="satreport-package-"))
    try:
        wheel, sdist = build(work / "dist", work)
        reference = work / "run-editable"
        reference.mkdir()
        expected = {example: totals([sys.executable, "-m", "sat"], example, reference,
                                    example.stem + ("_c" if example.suffix == ".c" else ""))
                    for example in examples()}
        check_install("wheel", wheel, work, expected)
        check_install("sdist", sdist, work, expected)
    except CheckFailed as failure:
        print(f"check_package: FAILED: {failure}", file=sys.stderr)
        return 1
    finally:
        if args.keep:
            print(f"check_package: kept {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)
    print(f"check_package: passed in {time.perf_counter() - start:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
