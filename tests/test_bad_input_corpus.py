"""Bad input never crashes satreport: a seeded corpus of broken sources, XML and options.

Every bundled example is mutated in fixed, seeded ways (truncated, a line deleted or
duplicated, a garbage token or garbage bytes inserted, a parenthesis unbalanced, a huge line
added); malformed code descriptions, machine and parameter files (wrong root, missing or bad
attributes, entity-expansion bombs, external entities) and bad option values are added.  Each
run must end with exit status 0 or 2 and no traceback; on status 2 it prints one error line,
leaves the old output file untouched and no temporary file behind; on status 0 the output is
complete.  A Fortran syntax error names the file and a line of it.
"""

from __future__ import annotations

import json
import random
import re
import subprocess
import sys
import zipfile
from dataclasses import dataclass
from pathlib import Path

import pytest

from sat.cli import main

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"
DATA = ROOT / "tests" / "data" / "exasat"
FORTRAN = (".f90", ".f", ".f03", ".f08", ".for", ".ftn")
OLD = "old output, must survive a failed run\n"
HUGE = 200_000  # characters in the "huge line" mutation (a comment)
LONG_STATEMENT = 3_000  # characters in the "long statement" mutation (parsed: kept moderate)


@dataclass(frozen=True)
class Case:
    """One corpus entry: a source file's name and bytes, and extra command-line arguments."""

    ident: str
    name: str
    content: bytes
    args: tuple[str, ...] = ()
    files: tuple[tuple[str, bytes], ...] = ()  # other files the arguments name
    workbook: bool = False  # also ask for a workbook
    mutant: bool = False  # a mutated example: an error must name a line of it

    @property
    def fortran(self) -> bool:
        return Path(self.name).suffix.lower() in FORTRAN


# ---------------------------------------------------------------- mutations (seeded)


def _lines(data: bytes) -> list[bytes]:
    return data.splitlines(keepends=True)


def truncate(data: bytes, rng: random.Random) -> bytes:
    return data[: rng.randrange(1, len(data))]


def delete_line(data: bytes, rng: random.Random) -> bytes:
    lines = _lines(data)
    del lines[rng.randrange(len(lines))]
    return b"".join(lines)


def duplicate_line(data: bytes, rng: random.Random) -> bytes:
    lines = _lines(data)
    at = rng.randrange(len(lines))
    lines.insert(at, lines[at])
    return b"".join(lines)


GARBAGE_TOKENS = [b"@@", b"$%^", b")", b"(", b"end do", b"do i = 1,", b"call", b"=", b"::",
                  b"&", b"if (", b"'unterminated", b'"', b";;", b"1.0d", b"+*", b"contains",
                  b"end subroutine", b"#define", b"!", b"integer ::", b"x(,)", b"%%%"]


def insert_token(data: bytes, rng: random.Random) -> bytes:
    at = rng.randrange(len(data))
    return data[:at] + b" " + rng.choice(GARBAGE_TOKENS) + b" " + data[at:]


def insert_bytes(data: bytes, rng: random.Random) -> bytes:
    at = rng.randrange(len(data))
    junk = bytes(rng.choice([0, 1, 0x7F, 0x80, 0xC3, 0xFF, 0xFE, 0x1B, 0x0C, 0x09])
                 for _ in range(rng.randint(1, 8)))
    return data[:at] + junk + data[at:]


def unbalance(data: bytes, rng: random.Random) -> bytes:
    positions = [i for i, c in enumerate(data) if c in b"()"]
    if not positions:
        return insert_token(data, rng)
    at = rng.choice(positions)
    if rng.random() < 0.5:
        return data[:at] + data[at + 1:]  # drop one parenthesis
    return data[:at] + data[at:at + 1] * 2 + data[at + 1:]  # double it


def huge_line(data: bytes, rng: random.Random) -> bytes:
    """A line of HUGE characters after a random line: a comment, or garbage for C."""
    lines = _lines(data)
    at = rng.randrange(1, len(lines) + 1)
    comment = b"// " if data.lstrip().startswith((b"/", b"#")) else b"! "
    return b"".join(lines[:at] + [comment + b"x" * HUGE + b"\n"] + lines[at:])


def long_statement(data: bytes, rng: random.Random) -> bytes:
    """A statement of LONG_STATEMENT characters (far past Fortran's 132) after a random line."""
    lines = _lines(data)
    at = rng.randrange(1, len(lines) + 1)
    return b"".join(lines[:at] + [b"      y = " + _sum_of_terms(LONG_STATEMENT) + b"\n"]
                    + lines[at:])


def _sum_of_terms(chars: int) -> bytes:
    return b"+".join(b"x%d" % (i % 97) for i in range(chars // 4))


MUTATIONS = {"truncate": truncate, "delete": delete_line, "duplicate": duplicate_line,
             "token": insert_token, "bytes": insert_bytes, "paren": unbalance,
             "huge": huge_line, "long": long_statement}
# Mutants per example and mutation; the large hypterm example gets fewer (its parse is slow).
PER_MUTATION = {"truncate": 5, "delete": 4, "duplicate": 3, "token": 5, "bytes": 3,
                "paren": 4, "huge": 1, "long": 1}
BIG_EXAMPLE_BYTES = 6000


def examples() -> list[Path]:
    return sorted(p for p in EXAMPLES.rglob("*")
                  if p.is_file() and p.suffix.lower() in FORTRAN + (".c",))


def source_cases() -> list[Case]:
    cases = []
    for path in examples():
        data = path.read_bytes()
        for kind, mutate in MUTATIONS.items():
            count = PER_MUTATION[kind]
            if len(data) > BIG_EXAMPLE_BYTES:
                count = (count + 1) // 2
            for n in range(count):
                rng = random.Random(f"{path.name}/{kind}/{n}")  # str seeds are stable
                ident = f"{path.relative_to(EXAMPLES)}-{kind}-{n}"
                # Every fifth mutant also writes a workbook (slower, exercises that writer).
                cases.append(Case(ident, path.name, mutate(data, rng),
                                  workbook=(len(cases) % 5 == 0), mutant=True))
    return cases


# ---------------------------------------------------------------- XML and options


LAP_XML = (DATA / "xml" / "micro" / "lap.xml").read_bytes()
MACHINE_XML = (DATA / "config" / "machine.xml").read_bytes()
PARAMS_XML = (DATA / "config" / "params.xml").read_bytes()
LAP_F90 = (EXAMPLES / "lap.f90").read_bytes()

BOMB = b"""<?xml version="1.0"?>
<!DOCTYPE program [
 <!ENTITY a "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa">
 <!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">
 <!ENTITY c "&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;">
 <!ENTITY d "&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;">
 <!ENTITY e "&d;&d;&d;&d;&d;&d;&d;&d;&d;&d;&d;&d;&d;&d;&d;&d;&d;&d;&d;&d;">
 <!ENTITY f "&e;&e;&e;&e;&e;&e;&e;&e;&e;&e;&e;&e;&e;&e;&e;&e;&e;&e;&e;&e;">
 <!ENTITY g "&f;&f;&f;&f;&f;&f;&f;&f;&f;&f;&f;&f;&f;&f;&f;&f;&f;&f;&f;&f;">
]>
"""
EXTERNAL = b"""<?xml version="1.0"?>
<!DOCTYPE %s [ <!ENTITY xxe SYSTEM "file:///etc/passwd"> ]>
"""
EXTERNAL_DTD = b"""<?xml version="1.0"?>
<!DOCTYPE %s SYSTEM "http://127.0.0.1:9/evil.dtd">
"""


def _replace(data: bytes, old: bytes, new: bytes) -> bytes:
    assert old in data, old
    return data.replace(old, new, 1)


def xml_variants(root: bytes, good: bytes) -> dict[str, bytes]:
    """Malformed versions of a good XML document whose root element is ``root``."""
    body = good.split(b"?>", 1)[1] if good.startswith(b"<?xml") else good
    return {
        "empty": b"",
        "blank": b"   \n",
        "not-xml": b"this is not XML at all\n",
        "binary": bytes(range(256)),
        "truncated": good[: len(good) // 2],
        "wrong-root": body.replace(b"<" + root, b"<nonsense").replace(b"</" + root,
                                                                      b"</nonsense"),
        "unclosed": good.replace(b"</" + root + b">", b""),
        "bomb": BOMB + b"<" + root + b">&g;</" + root + b">\n",
        "bomb-attribute": BOMB + b'<' + root + b' name="&g;"/>\n',
        "external-entity": EXTERNAL % root + b"<" + root + b">&xxe;</" + root + b">\n",
        "external-dtd": EXTERNAL_DTD % root + body,
        "utf16-garbage": "<\u00e9\u4e2d>".encode("utf-16"),
    }


def xml_cases() -> list[Case]:
    cases = []
    for kind, data in xml_variants(b"program", LAP_XML).items():
        cases.append(Case(f"code-xml-{kind}", "lap.xml", data))
    # code descriptions with bad or missing attributes
    for kind, (old, new) in {
        "loop-no-loopvar": (b' loopvar="k"', b""),
        "loop-no-bounds": (b' lowerbound="lo(3)" upperbound="hi(3)"', b""),
        "bad-bound": (b'upperbound="hi(3)"', b'upperbound="hi(3"'),
        "bad-count": (b'adds="6"', b'adds="six"'),
        "negative-count": (b'adds="6"', b'adds="-6"'),
        "bad-offset": (b'offset="(0,0,0)"', b'offset="(0,,zz"'),
        "offset-rank": (b'offset="(0,0,0)"', b'offset="(0,0,0,0,0,0,0)"'),
        "array-no-name": (b'<array name="A0"', b"<array"),
        "bad-linenum": (b'linenum="16"', b'linenum="-x"'),
        "huge-stride": (b'stride="1"', b'stride="1e999"'),
    }.items():
        if old in LAP_XML:
            cases.append(Case(f"code-xml-{kind}", "lap.xml", _replace(LAP_XML, old, new)))
    for kind, data in xml_variants(b"machine", MACHINE_XML).items():
        cases.append(Case(f"machine-xml-{kind}", "lap.f90", LAP_F90,
                          ("-m", "machine.xml"), (("machine.xml", data),)))
    for kind, (old, new) in {
        "no-val": (b' val="1024"', b""),
        "bad-val": (b'val="1024"', b'val="lots"'),
        "zero-line": (b'val="64"', b'val="0"'),
    }.items():
        cases.append(Case(f"machine-xml-{kind}", "lap.f90", LAP_F90, ("-m", "machine.xml"),
                          (("machine.xml", _replace(MACHINE_XML, old, new)),)))
    for kind, data in xml_variants(b"params", PARAMS_XML).items():
        cases.append(Case(f"params-xml-{kind}", "lap.f90", LAP_F90,
                          ("--params", "params.xml"), (("params.xml", data),)))
    cases.append(Case("params-xml-bad-val", "lap.f90", LAP_F90, ("--params", "params.xml"),
                      (("params.xml", _replace(PARAMS_XML, b'val="128"', b'val="1/0"')),)))
    return cases


BAD_OPTIONS = {
    "set-not-number": ("--set", "CacheKB=abc"),
    "set-negative": ("--set", "CacheKB=-1"),
    "set-zero-cores": ("--set", "Cores=0"),
    "set-zero-line": ("--set", "LineBytes=0"),
    "set-nan": ("--set", "CacheKB=nan"),
    "set-inf": ("--set", "GBsPerCore=inf"),
    "set-overflow": ("--set", "CacheKB=1e400"),
    "set-unknown": ("--set", "NoSuchParameter=1"),
    "set-no-value": ("--set", "CacheKB"),
    "set-empty-value": ("--set", "hi(1)="),
    "set-empty-name": ("--set", "=5"),
    "set-bad-symbol": ("--set", "hi(1=5"),
    "set-negative-size": ("--set", "hi(1)=-100"),
    "set-block-negative": ("--set", "BlockX=-4"),
    "set-bool-garbage": ("--set", "StreamingWrites=maybe"),
    "machine-unknown": ("-m", "no-such-machine"),
    "machine-directory": ("-m", "."),
    "functions-unknown": ("--functions", "no_such_function"),
    "functions-empty": ("--functions", ","),
    "define-garbage": ("-D", "=1"),
    "include-missing": ("-I", "/no/such/dir"),
}


def option_cases() -> list[Case]:
    return [Case(f"option-{kind}", "lap.f90", LAP_F90, args)
            for kind, args in BAD_OPTIONS.items()]


CASES = source_cases() + xml_cases() + option_cases()


# ---------------------------------------------------------------- the checks


def _error_line(err: str) -> str:
    lines = [line for line in err.splitlines() if line.startswith("satreport: error:")]
    assert len(lines) == 1, err
    return lines[0]


def check_run(case: Case, directory: Path, status: int, out: str, err: str) -> None:
    """The properties every run must have, whatever its input."""
    assert status in (0, 2), f"exit {status}: {err[-2000:]}"
    assert "Traceback" not in err and "Traceback" not in out
    assert "internal error" not in err
    expected = {case.name, "out.json", *(name for name, _ in case.files)}
    if case.workbook:
        expected.add("out.xlsx")
    left = {p.name for p in directory.iterdir()}
    assert left == expected, f"files left behind: {sorted(left - expected)}"
    json_out = directory / "out.json"
    if status == 2:
        line = _error_line(err)
        assert json_out.read_text() == OLD, "a failed run changed the old output"
        if case.workbook:
            assert (directory / "out.xlsx").read_text() == OLD
        if case.mutant:
            check_location(case, line)
    else:
        data = json.loads(json_out.read_text())  # complete, not partial
        assert data["sources"] and isinstance(data["loops"], list)
        if case.workbook:
            with zipfile.ZipFile(directory / "out.xlsx") as book:
                assert book.testzip() is None


def check_location(case: Case, line: str) -> None:
    """An error in a source file names the file and a line that exists in it."""
    found = re.search(re.escape(case.name) + r":(\d+)", line)
    assert found, f"no file:line in {line!r}"
    number = int(found.group(1))
    assert 1 <= number <= case.content.count(b"\n") + 1, line


def prepare(case: Case, directory: Path) -> list[str]:
    """Write the case's files into ``directory``; the satreport arguments."""
    (directory / case.name).write_bytes(case.content)
    for name, data in case.files:
        (directory / name).write_bytes(data)
    (directory / "out.json").write_text(OLD)
    argv = [case.name, "--json", "out.json", *case.args]
    if case.workbook:
        (directory / "out.xlsx").write_text(OLD)
        argv += ["-o", "out.xlsx"]
    return argv


# Cases that still fail, with what is wrong; each must keep failing until it is fixed.
KNOWN_FAILURES: dict[str, str] = {}


def _param(case: Case):
    if case.ident in KNOWN_FAILURES:
        return pytest.param(case, id=case.ident, marks=pytest.mark.xfail(
            strict=True, reason=KNOWN_FAILURES[case.ident]))
    return pytest.param(case, id=case.ident)


@pytest.mark.parametrize("case", [_param(c) for c in CASES])
def test_bad_input_ends_cleanly(case, tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    status = main(prepare(case, tmp_path))
    out, err = capsys.readouterr()
    check_run(case, tmp_path, status, out, err)


def test_corpus_is_large_and_covers_every_example():
    names = {c.name for c in CASES}
    assert all(p.name in names for p in examples())
    assert len(CASES) >= 200
    # Deterministic: generating the corpus again gives the same bytes.
    again = source_cases()
    assert [c.content for c in again] == [c.content for c in CASES[:len(again)]]


def test_some_mutants_are_rejected_and_some_accepted(tmp_path, capsys, monkeypatch):
    """Both outcomes happen, and a syntax error points into the broken statement."""
    monkeypatch.chdir(tmp_path)
    # "Anext(i,j,k =": the assignment on lines 19-22 of examples/lap.f90 no longer parses.
    broken = Case("lap-open", "lap.f90", LAP_F90.replace(b"Anext(i,j,k) =", b"Anext(i,j,k =", 1))
    assert main(prepare(broken, tmp_path)) == 2
    line = _error_line(capsys.readouterr().err)
    found = re.search(r"lap\.f90:(\d+)", line)
    assert found and 19 <= int(found.group(1)) <= 22, line
    # A duplicated comment line changes nothing: the run succeeds.
    for path in tmp_path.iterdir():
        path.unlink()
    comment = Case("lap-comment", "lap.f90", LAP_F90.replace(b"!", b"!\n!", 1))
    assert main(prepare(comment, tmp_path)) == 0
    assert json.loads((tmp_path / "out.json").read_text())["loops"][0]["adds"] == 6


# A handful end to end, in a fresh interpreter: nothing reaches the terminal but one line.
SUBPROCESS_IDS = ["lap.f90-paren-0", "hypterm.f90-truncate-0", "code-xml-bomb",
                  "machine-xml-external-entity", "option-set-not-number"]


@pytest.mark.parametrize("ident", SUBPROCESS_IDS)
def test_bad_input_in_a_fresh_process(ident, tmp_path):
    case = next(c for c in CASES if c.ident == ident)
    argv = prepare(case, tmp_path)
    done = subprocess.run([sys.executable, "-m", "sat.cli", *argv], cwd=tmp_path,
                          capture_output=True, text=True, timeout=120)
    check_run(case, tmp_path, done.returncode, done.stdout, done.stderr)


def test_a_huge_statement_ends_quickly(tmp_path):
    """A 30,000-character statement is rejected or analysed within 10 seconds.

    fparser's parse time grows with the square of a statement's length (16,000 characters:
    13 s; 200,000: about half an hour): the Fortran front end refuses statements past its limit.
    """
    lines = _lines(LAP_F90)
    source = b"".join(lines[:18] + [b"      y = " + _sum_of_terms(30_000) + b"\n"] + lines[18:])
    case = Case("lap-huge-statement", "lap.f90", source, mutant=True)
    argv = prepare(case, tmp_path)
    try:
        done = subprocess.run([sys.executable, "-m", "sat.cli", *argv], cwd=tmp_path,
                              capture_output=True, text=True, timeout=10)
    except subprocess.TimeoutExpired:
        pytest.fail("still running after 10 s")
    check_run(case, tmp_path, done.returncode, done.stdout, done.stderr)
