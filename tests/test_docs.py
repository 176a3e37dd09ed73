"""The user guide (docs/, mkdocs.yml): it builds strictly, its reference covers every option
and every parameter, every command of a tutorial runs and gives what the page says, and the
README is a front page whose links lead into the guide."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from sat.cli import build_parser, main

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
sys.path.insert(0, str(DOCS / "hooks"))
import reference  # noqa: E402  (the generator of the reference pages, docs/hooks/reference.py)

SOURCES = (".f90", ".F90", ".f", ".F", ".c")
EXAMPLES = sorted(str(p.relative_to(ROOT)) for p in (ROOT / "examples").rglob("*")
                  if p.suffix in SOURCES)
TUTORIALS = sorted((DOCS / "tutorials").glob("*.md"))


def _nav_pages(node) -> list[str]:
    if isinstance(node, str):
        return [node]
    if isinstance(node, dict):
        return [page for value in node.values() for page in _nav_pages(value)]
    return [page for item in node for page in _nav_pages(item)]


def test_the_guide_builds_strictly(tmp_path):
    pytest.importorskip("mkdocs", reason="the guide's tools are the docs extra "
                        "(pip install '.[docs]')")
    pytest.importorskip("material", reason="the Material theme is in the docs extra")
    site = tmp_path / "site"
    done = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--quiet",
                           "--site-dir", str(site)], cwd=ROOT, capture_output=True, text=True,
                          env={**os.environ, "NO_MKDOCS_2_WARNING": "1"}, timeout=900)
    assert done.returncode == 0, done.stderr[-3000:]
    # the generated reference pages are there, and nothing was written into the checkout
    for page in reference.PAGES:
        assert (site / Path(page).with_suffix("") / "index.html").is_file(), page
    assert not (ROOT / "site").exists()


def test_every_page_of_the_navigation_exists_or_is_generated():
    yaml = pytest.importorskip("yaml")
    config = yaml.safe_load((ROOT / "mkdocs.yml").read_text())
    pages = _nav_pages(config["nav"])
    assert len(pages) >= 30
    missing = [p for p in pages if not (DOCS / p).is_file() and p not in reference.PAGES]
    assert missing == []
    # a generated page never shadows a file of the tree
    assert [p for p in reference.PAGES if (DOCS / p).exists()] == []


def test_every_option_of_the_help_is_in_the_command_line_reference():
    help_text = build_parser().format_help()
    options = set(re.findall(r"(?<![\w-])(--?[a-zA-Z][\w-]*)", help_text))
    page = reference.command_line()
    assert len(options) > 30
    assert sorted(o for o in options if f"`{o}`" not in page) == []


def test_every_parameter_of_the_examples_is_in_the_parameter_reference(tmp_path, monkeypatch):
    page = reference.parameters()
    monkeypatch.chdir(ROOT)
    names = set()
    for example in EXAMPLES:
        target = tmp_path / "out.json"
        assert main([example, "-q", "--json", str(target)]) == 0
        names |= {p["name"] for p in json.loads(target.read_text())["parameters"]}
    assert {"CacheKB", "hi_1", "Fuse_hypterm_1", "Bytes_a0"} <= names
    assert sorted(name for name in names if f"`{name}`" not in page) == []


def test_the_json_reference_lists_every_key_of_the_schema():
    page = reference.json_reference()
    for key in ("satreport", "loops[].ecm.t_data", "fusion.groups[].pays_from_cache_kib",
                "bounds_violations[].quantity", "parsers", "sweep.rows[].valid",
                "aspen.resources.flops"):
        assert f"`{key}`" in page, key


def test_the_workbook_reference_lists_the_sheets_and_their_columns():
    page = reference.workbook()
    for sheet in ("Loops", "Levels", "ECM", "Fusion", "Gathers", "Offload", "Costs"):
        assert f"\n## {sheet}\n" in page, sheet
    assert "`time_s`" in page and "`traffic_gb`" in page


# ------------------------------------------------------------------ the tutorials' commands

def _commands(page: Path) -> list[tuple[str, list[str]]]:
    """(command, the lines the page shows under it) of every ``console`` block."""
    found: list[tuple[str, list[str]]] = []
    for block in re.findall(r"```console\n(.*?)```", page.read_text(), flags=re.S):
        for line in block.splitlines():
            if line.startswith("$ "):
                found.append((line[2:], []))
            elif line.strip():
                found[-1][1].append(line.strip())
    return found


def test_every_tutorial_shows_commands():
    assert len(TUTORIALS) == 5
    for page in TUTORIALS:
        assert _commands(page), page.name


@pytest.mark.parametrize("page", TUTORIALS, ids=[p.stem for p in TUTORIALS])
def test_every_command_of_a_tutorial_gives_what_the_page_says(tmp_path, page):
    """Each command runs in a fresh folder holding the examples (as at the repository's
    top), in the order of the page, and each line the page shows under it is a line of its
    output."""
    shutil.copytree(ROOT / "examples", tmp_path / "examples")
    path = os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")])
    env = {**os.environ, "PATH": path}
    for command, expected in _commands(page):
        done = subprocess.run(["bash", "-c", command], cwd=tmp_path, env=env,
                              capture_output=True, text=True, timeout=600)
        assert done.returncode == 0, f"{command}\n{done.stderr[-2000:]}"
        lines = [line.strip() for line in done.stdout.splitlines()]
        assert [line for line in expected if line not in lines] == [], command


# ---------------------------------------------------------------------------- the README

def test_the_readme_is_a_front_page_leading_into_the_guide():
    readme = (ROOT / "README.md").read_text()
    assert len(readme.splitlines()) <= 200
    # the two set-up commands, exactly
    assert "    python3 -m pip install . && satreport examples/hypterm.f90 -o hypterm.xlsx\n" \
        in readme
    assert "    bash tests/run.sh\n" in readme
    links = re.findall(r"\]\(([^)#]+)", readme)
    assert len([link for link in links if link.startswith("docs/")]) >= 15
    assert [link for link in links if not (ROOT / link).exists()] == []


def test_the_licence_and_the_changelog():
    licence = (ROOT / "LICENSE").read_text()
    assert "BSD 3-Clause License" in licence and "the satreport developers" in licence
    from sat import __version__

    assert f"## {__version__}" in (ROOT / "CHANGELOG.md").read_text()
