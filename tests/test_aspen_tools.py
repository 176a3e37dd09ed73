"""Aspen's own tools read what --aspen writes (needs Aspen built from source, outside the
project: set ASPEN_BUILD to its folder, see bench/README.md; skipped otherwise).

The fused run of hypterm is the case that matters: its kernel main runs the fusion toggle
through iterate [Fuse_hypterm_1] and iterate [1 - Fuse_hypterm_1], which Aspen's runtime
predictor evaluates (an if there stops it with exit status 255)."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
BUILD = Path(os.environ.get("ASPEN_BUILD", "/nonexistent"))
pytestmark = pytest.mark.skipif(
    not (BUILD / "tools" / "prediction" / "runtime").exists(),
    reason="Aspen's tools are not built (set ASPEN_BUILD: bench/README.md, aspen_tools.py)")
sys.path.insert(0, str(ROOT / "bench"))


@pytest.mark.parametrize("fuse", [False, True])
def test_aspens_tools_agree_with_satreport_on_hypterm(tmp_path, fuse):
    import aspen_tools

    model = tmp_path / "hypterm.aspen"
    aspen_tools.write_model(ROOT / "examples" / "hypterm.f90", model, fuse=fuse)
    assert "iterate [1 - Fuse_hypterm_1] {" in model.read_text()
    rows = aspen_tools.compare(model, BUILD)
    assert len(rows) == 6  # 3 resource counts, 3 sockets
    for quantity, theirs, ours, error in rows:
        assert theirs is not None, f"{quantity}: {error}"
        assert theirs == pytest.approx(ours, rel=1e-9), quantity
    # Aspen's counts are satreport's totals (examples/hypterm.f90 on the default machine, its
    # JSON): flops 0.750780416 Gflop fused or not; loads + stores the traffic, 2.220883968 GB
    # apart (traffic_gb_unfused of the fusion group) and 1.969225728 GB fused
    counts = {q: theirs for q, theirs, _, _ in rows}
    assert counts["resourcecount flops"] == 750_780_416
    traffic = counts["resourcecount loads"] + counts["resourcecount stores"]
    assert traffic == (1_969_225_728 if fuse else 2_220_883_968)
