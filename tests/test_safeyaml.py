"""The plain subset of YAML read without PyYAML (``sat.safeyaml.read_plain_yaml``): whatever it
reads is what PyYAML's reading (``read_yaml``) gives, lines included; anything else it leaves
to ``read_yaml``."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from sat.safeyaml import Located, LocatedList, read_plain_yaml, read_yaml

ROOT = Path(__file__).resolve().parent.parent
BUILTIN = ROOT / "sat" / "data" / "idioms.yaml"


def located(value):
    """A value with the lines it was read at, comparable with ``==``."""
    if isinstance(value, Located):
        return ("map", value.line, [(key, value.lines[key], located(item))
                                    for key, item in value.items()])
    if isinstance(value, LocatedList):
        return ("seq", value.line, list(zip(value.lines, map(located, value), strict=True)))
    return (type(value).__name__, value)


def both(path: Path):
    """(plain reading or None, PyYAML's reading or the message it refuses the file with)."""
    try:
        strict = located(read_yaml(path, "f", ValueError, "a file"))
    except ValueError as error:
        strict = str(error)
    plain = read_plain_yaml(path)
    return (None if plain is None else located(plain)), strict


READ = [
    "a: 1\n",
    "# a comment\n\nversion: 1\nidioms:\n  x:\n    description: text, with commas (a(i), b)\n"
    "      and a second line\n    subscripts: {some: loop, none: [indirect, irregular]}\n"
    "    offsets: {min: 2}\n    replaces: [stream]\n    swapped: true\n    carried: false\n",
    "a:\n  b:\n    c: 0\n  d: [x, {y: 10}]\nz: it's *text* & more! - with % and ? marks\n",
]
LEFT = [
    "",
    "# only a comment\n",
    "---\na: 1\n",
    "a: 1.5\n", "a: 012\n", "a: 1_000\n", "a: -1\n", "a: 0x1f\n", "a: 2001-12-14\n",
    "a: yes\n", "a: No\n", "a: True\n", "a: on\n", "a: null\n", "a: ~\n", "on: 1\n",
    "a:\n", "a:\nb: 1\n",
    "a: 'quoted'\n", 'a: "quoted"\n', "a: |\n  text\n", "a: >\n  text\n",
    "a: &anchor x\nb: *anchor\n", "a: !!str 1\n",
    "a: text # a comment\n", "a: text\n\n  after a blank line\n",
    "a: text\n  b: 1\n", "a:\n  - item\n", "- item\n",
    "a: [x, y\n", "a: [x, y]z\n", "a: [x,]\n", "a: []\n", "a: {x:1}\n", "a: {x: 1, x: 2}\n",
    "a: 1\na: 2\n", " a: 1\n", "a:\n    b: 1\n  c: 2\n",
    "a:\tb\n", "a: b\r\n", "\ufeffa: 1\n", "a: b\u2028c\n", "a: key: value\n",
]


@pytest.mark.parametrize("text", READ)
def test_the_subset_is_read_as_pyyaml_reads_it(tmp_path, text):
    path = tmp_path / "f.yaml"
    path.write_text(text, encoding="utf-8")
    plain, strict = both(path)
    assert plain is not None and plain == strict


@pytest.mark.parametrize("text", LEFT)
def test_anything_else_is_left_to_pyyaml(tmp_path, text):
    path = tmp_path / "f.yaml"
    path.write_text(text, encoding="utf-8")
    assert read_plain_yaml(path) is None


def test_the_shipped_yaml_files_read_alike_or_are_left_to_pyyaml():
    paths = [p for pattern in ("sat/**/*.yaml", "examples/**/*.yaml", "tests/data/**/*.y*ml")
             for p in ROOT.glob(pattern)]
    assert BUILTIN in paths
    for path in paths:
        plain, strict = both(path)
        assert plain is None or plain == strict, path


def test_edited_builtin_files_read_alike_or_are_left_to_pyyaml(tmp_path):
    """Random edits of the built-in idioms: never a reading PyYAML would not give."""
    base = BUILTIN.read_text(encoding="utf-8")
    pieces = [*" \n:,[]{}#-?&*!|>'\"%@`~.+_=<0123456789aeyno", ": ", " #", "- ", "\n  ",
              "yes", "null", "1.5", "012", "true", "\t", "\r"]
    chooser = random.Random(11)
    path = tmp_path / "f.yaml"
    read = 0
    for _ in range(400):
        text = base
        for _ in range(chooser.randint(1, 3)):
            at = chooser.randrange(len(text) + 1)
            if chooser.random() < 0.6:
                text = text[:at] + chooser.choice(pieces) + text[at:]
            else:
                text = text[:at] + text[at + chooser.randint(1, 4):]
        path.write_text(text, encoding="utf-8")
        plain, strict = both(path)
        assert plain is None or plain == strict, text
        read += plain is not None
    assert read > 50  # the edits that stay in the subset are read
