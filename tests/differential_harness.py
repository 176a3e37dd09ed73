"""The generated-nest harness of ``bench/differential/`` for the tests: its modules on the
path, and its ``run.py`` loaded under a name of its own (``bench/validation`` has a
``run.py`` too, which other tests import as ``run``)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

HARNESS = Path(__file__).resolve().parent.parent / "bench" / "differential"
sys.path.insert(0, str(HARNESS))

import compare  # noqa: E402,F401  (re-exported for the tests)
import emit  # noqa: E402,F401
import generate  # noqa: E402,F401
import known  # noqa: E402,F401
import measure  # noqa: E402,F401

_spec = importlib.util.spec_from_file_location("differential_run", HARNESS / "run.py")
differential = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(differential)
