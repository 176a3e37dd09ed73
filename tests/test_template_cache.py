"""The compiled templates kept on disk: used when the template is unchanged, compiled again
when it changed or the entry is damaged, and never in the way when the folder is unusable."""

from __future__ import annotations

import os
from pathlib import Path

import jinja2
import pytest

from sat.report import html
from sat.report.template_cache import (
    CACHE_VARIABLE,
    bytecode_cache,
    cache_root,
    cached_environment,
)

OPTIONS = {"autoescape": True, "trim_blocks": True}


def environment(templates: Path, compiles: list[str]) -> jinja2.Environment:
    """A fresh environment over ``templates`` that records each template it compiles."""
    made = cached_environment(templates, **OPTIONS)
    compile_source = made.compile

    def counted(source, name=None, filename=None, raw=False, defer_init=False):
        compiles.append(name)
        return compile_source(source, name, filename, raw, defer_init)

    made.compile = counted  # type: ignore[method-assign]
    return made


def render(templates: Path, compiles: list[str]) -> str:
    return environment(templates, compiles).get_template("page.j2").render(name="<b>")


@pytest.fixture
def folders(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Path]:
    templates, cache = tmp_path / "templates", tmp_path / "cache"
    templates.mkdir()
    (templates / "page.j2").write_text("Hello {{ name }}!\n")
    monkeypatch.setenv(CACHE_VARIABLE, str(cache))
    return templates, cache


def test_a_second_run_reads_the_compiled_template_instead_of_compiling(folders):
    templates, cache = folders
    compiles: list[str] = []
    assert render(templates, compiles) == "Hello &lt;b&gt;!"
    assert compiles == ["page.j2"]
    assert len(list(cache.rglob("*.cache"))) == 1
    assert render(templates, compiles) == "Hello &lt;b&gt;!"
    assert compiles == ["page.j2"]  # the second environment compiled nothing


def test_a_changed_template_is_compiled_again(folders):
    templates, _cache = folders
    compiles: list[str] = []
    render(templates, compiles)
    (templates / "page.j2").write_text("Goodbye {{ name }}.\n")
    assert render(templates, compiles) == "Goodbye &lt;b&gt;."
    assert compiles == ["page.j2", "page.j2"]
    assert render(templates, compiles) == "Goodbye &lt;b&gt;."  # the new entry serves
    assert compiles == ["page.j2", "page.j2"]


def test_other_options_use_another_folder(folders):
    _templates, _cache = folders
    first = bytecode_cache(OPTIONS)
    second = bytecode_cache({**OPTIONS, "trim_blocks": False})
    assert first.directory != second.directory  # type: ignore[union-attr]


def test_a_damaged_entry_is_compiled_again_and_replaced(folders):
    templates, cache = folders
    compiles: list[str] = []
    render(templates, compiles)
    for entry in cache.rglob("*.cache"):
        entry.write_bytes(entry.read_bytes()[:-7])  # cut short, as by a full disk
    assert render(templates, compiles) == "Hello &lt;b&gt;!"
    assert compiles == ["page.j2", "page.j2"]
    render(templates, compiles)
    assert compiles == ["page.j2", "page.j2"]


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes into read-only folders")
def test_an_unwritable_folder_costs_only_the_compilation(folders):
    templates, cache = folders
    cache.mkdir()
    cache.chmod(0o500)
    try:
        compiles: list[str] = []
        assert render(templates, compiles) == "Hello &lt;b&gt;!"
        assert render(templates, compiles) == "Hello &lt;b&gt;!"
        assert compiles == ["page.j2", "page.j2"]
    finally:
        cache.chmod(0o700)


def test_a_cache_path_that_is_a_file_costs_only_the_compilation(folders):
    templates, cache = folders
    cache.write_text("not a folder")  # works for root too
    compiles: list[str] = []
    assert render(templates, compiles) == "Hello &lt;b&gt;!"
    assert render(templates, compiles) == "Hello &lt;b&gt;!"
    assert compiles == ["page.j2", "page.j2"]


def test_the_cache_folder_follows_the_environment(monkeypatch):
    monkeypatch.setenv(CACHE_VARIABLE, "")
    assert cache_root() is None and bytecode_cache(OPTIONS) is None
    monkeypatch.delenv(CACHE_VARIABLE)
    monkeypatch.setenv("XDG_CACHE_HOME", "/somewhere")
    assert cache_root() == Path("/somewhere/satreport")
    monkeypatch.delenv("XDG_CACHE_HOME")
    monkeypatch.setenv("HOME", "/home/someone")
    assert cache_root() == Path("/home/someone/.cache/satreport")


def test_the_page_environment_keeps_its_templates_in_the_cache(tmp_path, monkeypatch):
    monkeypatch.setenv(CACHE_VARIABLE, str(tmp_path))
    html._environment.cache_clear()
    try:
        html._environment().get_template("report.html.j2")
        assert list(tmp_path.rglob("*.cache"))
    finally:
        html._environment.cache_clear()
