"""The stage-split bench: its usage message and how it cuts a run's processor time."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))

import stage_split  # noqa: E402


def test_help_prints_a_usage_message_and_writes_no_file(tmp_path) -> None:
    done = subprocess.run([sys.executable, str(ROOT / "bench" / "stage_split.py"), "--help"],
                          cwd=tmp_path, capture_output=True, text=True)
    assert done.returncode == 0
    assert done.stdout.startswith("usage: stage_split.py")
    assert list(tmp_path.iterdir()) == []  # "--help" was not taken as the times file


def test_the_satreport_arguments_pass_through_options_included() -> None:
    options = stage_split.parse_arguments(
        ["T.json", "g.f90", "-o", "g.xlsx", "--json", "g.json", "--fortran-parser", "fparser"])
    assert options.times == "T.json"
    assert options.arguments == ["g.f90", "-o", "g.xlsx", "--json", "g.json",
                                 "--fortran-parser", "fparser"]


def test_a_missing_times_file_is_a_usage_error() -> None:
    with pytest.raises(SystemExit) as stop:
        stage_split.parse_arguments([])
    assert stop.value.code == 2


def test_the_split_charges_each_interval_to_the_stage_it_began_in() -> None:
    marks = [(0.5, "parsing a.f90"), (0.75, "reading b.f90"), (2.0, "building the model"),
             (2.25, "evaluating"), (5.0, "writing out.xlsx"), (6.5, "writing out.json")]
    # start-up 0 → 0.5; front end 0.5 → 2.0 (the second reading step stays in it);
    # model 2.0 → 5.0 (evaluating is a step within it); xlsx 5.0 → 6.5; json 6.5 → 7.0
    assert stage_split.split(marks, 7.0) == {"start-up": 0.5, "front end": 1.5, "model": 3.0,
                                            "xlsx": 1.5, "json": 0.5}
