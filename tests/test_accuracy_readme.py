"""The README's accuracy block, written by ``bench/differential/run.py --readme``."""

from __future__ import annotations

import argparse

import pytest
from differential_harness import compare, differential

ROOT = differential.ROOT


def nest(ident: str, classes: list[str], error: float) -> compare.NestErrors:
    return compare.NestErrors(ident, classes, flops_exact=True,
                              errors={m: error for m in compare.METRICS})


def test_block_gives_the_levels_over_all_nests_and_names_classes_above_25_percent():
    results = [nest("n0", ["strided"], 0.5), nest("n1", ["depth:1"], 0.0),
               nest("n2", ["depth:1"], -0.01)]
    text = differential.readme_section(results, argparse.Namespace(seed=0))
    # magnitudes 0.5, 0, 0.01: median 1.0 %, worst +50.0 % (the signed largest)
    assert "| L1 | 1.0 % |" in text and "+50.0 % |" in text
    assert "3 generated nests (seed 0): 0 crashes, 0 bound violations" in text
    assert "**strided**" in text          # worst 50 % and a reason of its own
    assert "**depth:1**" not in text      # worst 1 %
    assert text.startswith(differential.README_BEGIN)
    assert text.endswith(differential.README_END)


def test_write_replaces_only_the_marked_block(tmp_path):
    readme = tmp_path / "README.md"
    readme.write_text(f"# t\n\nbefore\n{differential.README_BEGIN}\nold\n"
                      f"{differential.README_END}\nafter\n")
    block = f"{differential.README_BEGIN}\nnew\n{differential.README_END}"
    differential.write_readme(readme, block)
    assert readme.read_text() == f"# t\n\nbefore\n{block}\nafter\n"
    readme.write_text("no block")
    with pytest.raises(SystemExit, match="no accuracy block"):
        differential.write_readme(readme, block)


def test_the_readme_carries_the_block():
    text = (ROOT / "README.md").read_text()
    assert text.count(differential.README_BEGIN) == 1
    assert text.index(differential.README_BEGIN) < text.index(differential.README_END)
