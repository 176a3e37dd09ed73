"""The benches time satreport from compiled bytecode, as an installed package runs."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))

import bench_end_to_end  # noqa: E402


def test_a_timed_run_keeps_its_bytecode_even_where_the_environment_says_not_to(
        tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("PYTHONDONTWRITEBYTECODE", "1")
    monkeypatch.setattr(bench_end_to_end, "BYTECODE", tmp_path)
    environment = bench_end_to_end.installed_environment()
    assert "PYTHONDONTWRITEBYTECODE" not in environment
    assert environment["PYTHONPYCACHEPREFIX"] == str(tmp_path)
    assert environment["PYTHONPATH"] == str(ROOT)  # this tree's package, not another's
    done = subprocess.run([sys.executable, "-c", "import sat.ir, sys; "
                           "print(sys.flags.dont_write_bytecode, sat.ir.__file__)"],
                          cwd=tmp_path, env=environment, capture_output=True, text=True,
                          check=True)
    flag, module = done.stdout.split()
    assert flag == "0" and Path(module) == ROOT / "sat" / "ir.py"
    # the prefix mirrors the source's absolute path: sat/ir.py's bytecode is there
    cached = list((tmp_path / str(ROOT).lstrip("/") / "sat").glob("ir.*.pyc"))
    assert len(cached) == 1
