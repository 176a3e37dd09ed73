"""The guide's reference pages, generated from the code at every build so they cannot drift.

MkDocs runs this file as a hook (``hooks:`` in ``mkdocs.yml``): ``on_files`` adds the pages
below as generated files. Each page is also a plain function returning Markdown, which the
tests call (``tests/test_docs.py``):

- ``reference/command-line.md``: every option, from the argument parser (``sat.cli``);
- ``reference/parameters.md``: every parameter, from the registry, as the model builds them
  on the built-in machines and for every bundled example (name, unit, group, default or
  derived formula, source, meaning);
- ``reference/json.md``: every key of the JSON export, from its schema
  (``sat/data/satreport.schema.json``);
- ``reference/workbook.md``: every sheet and column, from the model's tables;
- ``reference/machine-files.md``: the machine file formats (``machines/README.md``), the
  built-in machines and accelerators;
- ``reference/code-description.md``: the XML code description, with the one ``--xml`` writes
  for ``examples/lap.f90``;
- ``changelog.md``: ``CHANGELOG.md``.
"""

from __future__ import annotations

import functools
import json
import os
import re
from importlib import resources
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SOURCES = (".f90", ".F90", ".f", ".F", ".c")
NOTICE = ("<!-- Generated from the code at every build of the guide "
          "(docs/hooks/reference.py): do not edit. -->\n\n")


def _cell(text: object) -> str:
    """Text fit for one cell of a Markdown table."""
    return str(text).replace("|", "\\|").replace("\n", " ").strip()


def _examples() -> list[str]:
    return sorted(str(p.relative_to(ROOT)) for p in (ROOT / "examples").rglob("*")
                  if p.suffix in SOURCES)


# ------------------------------------------------------------------------- command line

def command_line() -> str:
    """Every option of ``satreport``, from its argument parser."""
    from sat.cli import build_parser

    parser = build_parser()
    lines = [NOTICE + "# Command line\n", parser.description + "\n", "```text",
             parser.format_usage().strip(), "```\n"]
    for group in parser._action_groups:  # argparse keeps its groups only there
        actions = [a for a in group._group_actions if a.help != "==SUPPRESS=="]
        if not actions:
            continue
        title = {"positional arguments": "sources", "options": "help"}.get(group.title,
                                                                           group.title)
        lines += [f"## {title.capitalize()}\n", "| option | argument | meaning | default |",
                  "| --- | --- | --- | --- |"]
        for action in actions:
            names = ", ".join(f"`{o}`" for o in action.option_strings) or f"`{action.metavar}`"
            argument = "" if action.nargs == 0 else (
                "`{" + ",".join(action.choices) + "}`" if action.choices else
                f"`{action.metavar or action.dest.upper()}`")
            default = action.default
            shown = "" if default in (None, False, [], "==SUPPRESS==") else f"`{default}`"
            lines.append(f"| {names} | {argument} | {_cell(action.help or '')} | {shown} |")
        lines.append("")
    lines += [parser.epilog + "\n", "More on each option, the exit status and the C front "
              "end: [Command line in detail](command-line-details.md).\n"]
    return "\n".join(lines)


# ---------------------------------------------------------------------------- the model

@functools.cache
def _model(sources: tuple[str, ...], machine: str | None = None,
           accelerator: str | None = None, fuse_all: bool = False):
    """The model of ``sources`` on ``machine`` (run from the repository's top)."""
    from sat.frontend import read_sources
    from sat.machine import load_machine
    from sat.model.build import build_model
    from sat.parameters import build_parameters

    here = os.getcwd()
    os.chdir(ROOT)
    try:
        program = read_sources(list(sources))
        device = None
        if accelerator:
            from sat.machine.accelerators import load_accelerator

            device = load_accelerator(accelerator)
        return build_model(program, build_parameters(load_machine(machine), accelerator=device),
                           fuse_all=fuse_all)
    finally:
        os.chdir(here)


def _default(parameter) -> str:
    """A parameter's default: its value, or the formula of a derived default."""
    from sat.report.formula import ExcelPrinter

    if parameter.derived:
        return f"`={ExcelPrinter(lambda q: None).doprint(parameter.default)}` (derived)"
    if parameter.kind == "boolean":
        return "TRUE" if parameter.value else "FALSE"
    return f"{parameter.value:.6g}"


#: The runs whose parameters make the machine-wide tables: the default machine, a machine
#: with cache levels (ECM, costs per link) and an accelerator.
MACHINE_RUNS = ((("examples/lap.f90",), None, None),
                (("examples/lap.f90",), "xeon-e5-2680", "h100-pcie"))


def parameters() -> str:
    """Every parameter: those of the machines and software settings, then per example."""
    lines = [NOTICE + "# Parameters\n",
             "Every input of the model is a named parameter: a row of the workbook's "
             "Parameters sheet (its defined name), a `--set NAME=VALUE` name and an entry of "
             "the JSON's `parameters`. This page is made from satreport's parameter registry "
             "at every build of the guide: the tables below are the parameters the model "
             "makes on the default machine (`exascale`), on `xeon-e5-2680` (a machine with "
             "cache levels: the level, in-core and per-link energy parameters) with the "
             "`h100-pcie` accelerator, and for each bundled example. A derived default shows "
             "its formula. What the names mean and how defaults are chosen: "
             "[Parameter names and defaults](parameter-names.md).\n"]
    seen: dict[str, tuple] = {}  # name -> (parameter, default by machine, its latest source)
    for sources, machine, accelerator in MACHINE_RUNS:
        for p in _model(sources, machine, accelerator).parameters:
            if p.group in ("machine", "software"):
                first, defaults, _ = seen.get(p.name, (p, {}, ""))
                defaults[machine or "exascale"] = _default(p)
                seen[p.name] = (first, defaults, p.source)
    for group, title in (("machine", "Machine, cost, level and accelerator parameters"),
                         ("software", "Software settings")):
        lines += [f"## {title}\n",
                  "| name | unit | default on exascale | default on xeon-e5-2680 | source "
                  "(on xeon-e5-2680 where it has one) | meaning |",
                  "| --- | --- | --- | --- | --- | --- |"]
        for name, (p, defaults, source) in seen.items():
            if p.group != group:
                continue
            lines.append(f"| `{name}` | {_cell(p.unit)} | {defaults.get('exascale', '—')} | "
                         f"{defaults.get('xeon-e5-2680', '—')} | {_cell(source)} | "
                         f"{_cell(p.label)} |")
        lines.append("")
    lines += ["## The bundled examples' parameters\n",
              "Problem parameters (the free symbols of loop bounds and extents), array "
              "element sizes (`Bytes_<array>`) and the parameters one nest or group makes "
              "(`Fuse_…`, `RangeKB_…`, `ClusterElems_…`, `IndexRun_…`, `IndexWindow_…`, "
              "`IndexSorted_…`, `CallFlops_…`, `Vectorised_…`), per "
              "example, on `exascale` (`Vectorised_…` on `xeon-e5-2680`).\n"]
    for example in _examples():
        rows = []
        for machine in (None, "xeon-e5-2680"):
            for p in _model((example,), machine).parameters:
                if p.name in seen or any(r[0] == p.name for r in rows):
                    continue
                rows.append((p.name, p.unit, p.group, _default(p), p.source, p.label))
        lines += [f"### `{example}`\n", "| name | unit | group | default | source | meaning |",
                  "| --- | --- | --- | --- | --- | --- |"]
        lines += [f"| `{n}` | {_cell(u)} | {g} | {d} | {_cell(s)} | {_cell(m)} |"
                  for n, u, g, d, s, m in rows]
        lines.append("")
    return "\n".join(lines)


# -------------------------------------------------------------------------------- JSON

def json_schema() -> dict:
    text = resources.files("sat").joinpath("data/satreport.schema.json").read_text("utf-8")
    return json.loads(text)


def _type(node: dict, root: dict) -> str:
    if "$ref" in node:
        node = root["$defs"][node["$ref"].rsplit("/", 1)[-1]]
    kind = node.get("type", "")
    kinds = kind if isinstance(kind, list) else [kind]
    text = " or ".join(k for k in kinds if k) or "any"
    if "enum" in node:
        text += ": " + ", ".join(f"`{v}`" for v in node["enum"])
    if kind == "array" and isinstance(node.get("items"), dict):
        text = f"array of {_type(node['items'], root)}"
    return text


def _keys(node: dict, root: dict, path: str, out: list[str]) -> None:
    """One table row per key, depth first."""
    if "$ref" in node:
        node = root["$defs"][node["$ref"].rsplit("/", 1)[-1]]
    if node.get("type") == "array" and isinstance(node.get("items"), dict):
        _keys(node["items"], root, path.rstrip(".") + "[].", out)
        return
    required = set(node.get("required", ()))
    for key, child in node.get("properties", {}).items():
        target = child.get("items", child) if child.get("type") == "array" else child
        target = root["$defs"][target["$ref"].rsplit("/", 1)[-1]] if "$ref" in target \
            else target
        out.append(f"| `{path}{key}` | {_type(child, root)} | "
                   f"{'yes' if key in required else ''} | "
                   f"{_cell(child.get('description') or target.get('description', ''))} |")
        if "properties" in target or target.get("type") == "array":
            _keys(child, root, f"{path}{key}.", out)
    extra = node.get("additionalProperties", True)
    if isinstance(extra, dict) and path:
        out.append(f"| `{path}*` | {_type(extra, root)} | | any other key: "
                   + ("a column of the sheet, see [Workbook](workbook.md)"
                      if "$ref" in extra else "one per name") + " |")


def json_reference() -> str:
    """Every key of the JSON export, from the schema shipped in the package."""
    schema = json_schema()
    rows: list[str] = []
    _keys(schema, schema, "", rows)
    return "\n".join([
        NOTICE + "# JSON export\n",
        schema["description"] + "\n",
        "`satreport SOURCE --json FILE` (`-` for standard output) writes it. The package "
        "ships its JSON Schema (draft 2020-12), the contract this page is made from: "
        "`importlib.resources.files(\"sat\") / \"data/satreport.schema.json\"`. Validate a "
        "file with the `jsonschema` package:\n",
        "```python\nimport json, jsonschema\nfrom importlib import resources\n"
        "schema = json.loads(resources.files(\"sat\").joinpath(\"data/satreport.schema.json\")"
        ".read_text())\njsonschema.validate(json.load(open(\"lap.json\")), schema)\n```\n",
        "Units are in the names (`_gb` 10⁹ bytes, `_s` seconds, `_kb`/`_kib` KiB). Each "
        "`cells` object maps a field of the same object to the workbook cell holding the same "
        "quantity (empty when no workbook was written). Numbers that are not finite are "
        "`null`. Keys not listed are allowed (fields are added over versions, never "
        "renamed).\n",
        "| key | type | always there | meaning |", "| --- | --- | --- | --- |", *rows, ""])


# ---------------------------------------------------------------------------- workbook

#: Sheets that are no table of the model: written by the workbook itself or by a run's option
FIXED_SHEETS = (
    ("Summary", "The headline results: totals, the bottleneck nests, the machine."),
    ("Parameters", "Every input (yellow cells), grouped, with unit, source and meaning: the "
     "defined names every formula refers to. See [Parameters](parameters.md)."),
    ("Sweep", "With `--sweep`: one row per configuration, values computed by satreport."),
    ("Scenario", "With `--scenario`: the problem as live formulas and the solver's answer."),
    ("Aspen kernels, Aspen data", "With an Aspen model as SOURCE: one row per kernel (flops, "
     "loads, stores, messages, time) and per data object."),
    ("Workings", "Intermediate quantities the other sheets' formulas refer to."),
    ("Notes", "Every assumption and warning of the run."),
)


def workbook() -> str:
    """Every sheet the model makes, with its columns (header, JSON key, unit, meaning)."""
    tables: dict[str, object] = {}
    for run in ((("examples/lap.f90", "examples/spmv.f90"), "xeon-e5-2680", "h100-pcie", False),
                (("examples/hypterm.f90",), None, None, True)):
        for name, table in _model(*run).tables.items():
            tables.setdefault(name, table)
    lines = [NOTICE + "# Workbook\n",
             "The workbook (`-o FILE.xlsx`) is the product: every derived number is a live "
             "formula over the Parameters sheet, holding the value satreport computed. Which "
             "sheets appear depends on the run: Levels, ECM and ECM scaling with a machine "
             "of two or more cache levels, Fusion with fusion candidates, Gathers with "
             "gathers or scatters, Offload and Offload idioms with `--accelerator`. Each "
             "column's header carries its unit and a comment saying what it means (the "
             "same sentence as below); its JSON key is the field of the JSON export's object "
             "for the row. This page is made from the model's tables at every build.\n",
             "## Sheets that are not tables of the model\n", "| sheet | what it holds |",
             "| --- | --- |", *(f"| {n} | {_cell(d)} |" for n, d in FIXED_SHEETS), ""]
    for name, table in tables.items():
        lines += [f"## {name}\n", f"**{_cell(table.title)}.** {table.description}\n",
                  "| column | JSON key | unit | meaning |", "| --- | --- | --- | --- |"]
        for column in table.columns:
            header = f"{column.band}: {column.header}" if column.band else column.header
            lines.append(f"| {_cell(header)} | `{column.key}` | {_cell(column.unit)} | "
                         f"{_cell(column.comment)} |")
        lines.append("")
    return "\n".join(lines)


# ------------------------------------------------------------------------ machine files

def machine_files() -> str:
    """The machine file formats, the built-in machines and accelerators."""
    from sat.machine import list_machines

    text = (ROOT / "machines" / "README.md").read_text()
    text = re.sub(r"^#", "##", text, flags=re.M)  # one page: the file's title becomes a section
    machines = "\n".join(f"| `{name}` | {_cell(description)} |"
                         for name, description in list_machines())
    accelerators = "\n".join(f"- `{p.stem}`: `sat/data/accelerators/{p.name}`" for p in sorted(
        (ROOT / "sat" / "data" / "accelerators").glob("*.yaml")))
    return (NOTICE + "# Machine files\n\n`satreport --list-machines` prints the built-in "
            "machines:\n\n| name | description |\n| --- | --- |\n" + machines + "\n\n"
            "Built-in accelerators (`--accelerator NAME`; their parameters: "
            "[Parameters](parameters.md), the model: [Idioms, gathers and offload]"
            "(../explanation/idioms.md)):\n\n" + accelerators + "\n\n"
            "The rest of this page is `machines/README.md` of the package.\n\n" + text)


# --------------------------------------------------------------------- code description

def code_description() -> str:
    """The XML code description, with what ``--xml`` writes for ``examples/lap.f90``."""
    from sat.frontend import read_sources
    from sat.xmlio import program_to_xml

    here = os.getcwd()
    os.chdir(ROOT)
    try:
        xml = program_to_xml(read_sources(["examples/lap.f90"]))
    finally:
        os.chdir(here)
    return (NOTICE + "# Code description (XML)\n\n`satreport SOURCE --xml FILE` writes what "
            "the front ends found in the code: procedures, loops with their bounds, "
            "statements with their flops by kind, array accesses with their offsets, calls, "
            "branches. The format is ExaSAT's XML schema v0.3.1, which ExaSAT's own files "
            "also use, plus attributes the original ignores (see [Outputs](outputs.md)). "
            "satreport reads it back as a SOURCE (`satreport code.xml`): edit the "
            "description to model code that does not exist yet.\n\n"
            "What `satreport examples/lap.f90 --xml lap.xml` writes:\n\n```xml\n" + xml.strip()
            + "\n```\n")


def changelog() -> str:
    """CHANGELOG.md of the repository, as a page of the guide."""
    return (ROOT / "CHANGELOG.md").read_text()


PAGES = {
    "changelog.md": changelog,
    "reference/command-line.md": command_line,
    "reference/parameters.md": parameters,
    "reference/json.md": json_reference,
    "reference/workbook.md": workbook,
    "reference/machine-files.md": machine_files,
    "reference/code-description.md": code_description,
}


def on_files(files, config):
    """MkDocs hook: add the generated pages."""
    from mkdocs.structure.files import File

    for uri, make in PAGES.items():
        files.append(File.generated(config, uri, content=make()))
    return files
