"""The JSON Schema shipped in the package (sat/data/satreport.schema.json) against the export.

Every bundled example's JSON, and runs of every kind (an Aspen model, a sweep, a scenario, an
offload, fusion, a machine with memory levels), validate against it; every key the code writes
in an object of fixed shape is one the schema documents (so a new field cannot be added
without its description); documents that break it are refused.
"""

from __future__ import annotations

import copy
import json
from importlib import resources
from pathlib import Path

import pytest

from sat.cli import main

jsonschema = pytest.importorskip("jsonschema", reason="jsonschema is a test dependency "
                                 "(pip install '.[test]')")

ROOT = Path(__file__).resolve().parent.parent
SOURCES = (".f90", ".F90", ".f", ".F", ".c")
EXAMPLES = sorted(str(p.relative_to(ROOT)) for p in (ROOT / "examples").rglob("*")
                  if p.suffix in SOURCES)
RUNS = {
    "aspen": ["examples/aspen/stencil.aspen", "-m", "examples/aspen/one_socket.aspen"],
    "aspen-written": ["examples/aspen/lap.aspen"],
    "sweep": ["examples/lap.f90", "--sweep", "CacheKB=16..4096*2", "--sweep", "Cores=1..8:2"],
    "scenario": ["examples/lap.f90", "--scenario", "examples/scenarios/tuner.yaml"],
    "scenario-infeasible": ["examples/triad.f90", "--scenario",
                            "examples/scenarios/architect-infeasible.yaml"],
    "offload": ["examples/spmv.f90", "--accelerator", "h100-pcie"],
    "fusion": ["examples/hypterm.f90", "--fuse", "all"],
    "levels": ["examples/lap.f90", "-m", "xeon-e5-2680"],
}


def schema() -> dict:
    text = resources.files("sat").joinpath("data/satreport.schema.json").read_text("utf-8")
    return json.loads(text)


def export(tmp_path: Path, monkeypatch, *argv: str) -> dict:
    monkeypatch.chdir(ROOT)  # the sources by their relative paths, as a user gives them
    target = tmp_path / "out.json"
    assert main([*argv, "-q", "--json", str(target)]) == 0
    return json.loads(target.read_text())


def undocumented(instance, node: dict, root: dict, path: str = "") -> list[str]:
    """Keys of objects the schema gives a fixed shape (listed properties, any other key
    allowed without a schema of its own) that the schema does not list."""
    if "$ref" in node:
        node = root["$defs"][node["$ref"].rsplit("/", 1)[-1]]
    found = []
    if isinstance(instance, dict):
        properties = node.get("properties", {})
        if properties and node.get("additionalProperties", True) is True:
            found += [f"{path}.{key}" for key in instance if key not in properties]
        for key, value in instance.items():
            if key in properties:
                found += undocumented(value, properties[key], root, f"{path}.{key}")
    elif isinstance(instance, list) and isinstance(node.get("items"), dict):
        for item in instance:
            found += undocumented(item, node["items"], root, f"{path}[]")
    return sorted(set(found))


def check(data: dict) -> None:
    the_schema = schema()
    errors = [f"{list(e.absolute_path)}: {e.message}" for e in
              jsonschema.Draft202012Validator(the_schema).iter_errors(data)]
    assert errors == []
    assert undocumented(data, the_schema, the_schema) == []


def test_the_schema_is_a_2020_12_schema_shipped_in_the_package():
    the_schema = schema()
    assert the_schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    jsonschema.Draft202012Validator.check_schema(the_schema)
    # unknown top-level keys stay allowed: fields are added over versions
    assert the_schema["additionalProperties"] is True


@pytest.mark.parametrize("example", EXAMPLES)
def test_every_bundled_example_validates(tmp_path, monkeypatch, example):
    check(export(tmp_path, monkeypatch, example))


@pytest.mark.parametrize("kind", sorted(RUNS))
def test_every_kind_of_run_validates(tmp_path, monkeypatch, kind):
    data = export(tmp_path, monkeypatch, *RUNS[kind])
    key = {"aspen": "aspen", "aspen-written": "aspen", "sweep": "sweep",
           "scenario": "scenario", "scenario-infeasible": "scenario", "offload": "offload",
           "fusion": "fusion"}.get(kind)
    assert key is None or key in data  # the run exercised the part of the schema it names
    check(data)


def test_the_schema_refuses_what_breaks_the_contract(tmp_path, monkeypatch):
    data = export(tmp_path, monkeypatch, "examples/lap.f90")
    validator = jsonschema.Draft202012Validator(schema())
    for path, value in ((("loops", 0, "line"), "19"), (("totals", "time_s"), "fast"),
                        (("parameters", 0, "defaulted"), "no"),
                        (("fusion", "groups"), {})):
        broken = copy.deepcopy(data)
        target = broken
        for step in path[:-1]:
            target = target[step]
        target[path[-1]] = value
        assert not validator.is_valid(broken), path
    del data["totals"]
    assert not validator.is_valid(data)


def test_bounds_violations_and_parsers_are_typed(tmp_path, monkeypatch):
    data = export(tmp_path, monkeypatch, "examples/lap.f90")
    validator = jsonschema.Draft202012Validator(schema())
    assert data["parsers"] and data["parsers"][0]["parser"] == "tree-sitter"
    data["bounds_violations"] = [
        {"procedure": "lap", "file": "examples/lap.f90", "line": 18, "level": "L2",
         "quantity": "traffic_gb", "value": 2.0, "bound": 1.0, "kind": "upper",
         "message": "traffic_gb 2 GB above its bound 1 GB"},
        {"procedure": "lap", "file": "examples/lap.f90", "line": 18, "level": None,
         "quantity": "time_s", "value": None, "bound": None, "kind": "finite",
         "message": "time_s is not finite"}]
    data["parsers"].append({"file": "other.f", "parser": "fparser",
                            "reason": "tree-sitter: syntax error at other.f:3"})
    data["a_field_of_a_later_version"] = {"anything": [1, 2]}
    assert validator.is_valid(data)
    data["bounds_violations"][0]["value"] = "two"
    assert not validator.is_valid(data)
    data["bounds_violations"][0]["value"] = 2.0
    data["parsers"][0]["parser"] = "a parser of no name"
    assert not validator.is_valid(data)
