"""Loop idioms (PIR's stream, transpose, gather, scatter, reduction, stencil), user patterns.

The kernels in ``tests/data/idioms/`` are labelled by hand: the comment on each loop lists
every idiom it has (``idiom:array``), and the recogniser must find exactly those, in Fortran
and in C, traps included (an invariant indirection is no gather, a counter is no reduction,
a value carried into an array element the inner loop does not move is one).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import openpyxl
import pytest
from test_cli import run

from sat import ir
from sat.cli import main
from sat.frontend import read_sources
from sat.machine import load_machine
from sat.model.build import build_model
from sat.model.irregular.idioms import idiom_tables, recognise
from sat.model.irregular.patterns import (
    BUILTIN_FILE,
    IdiomFileError,
    _read,
    builtin_idioms,
    read_idioms,
)
from sat.parameters import build_parameters
from sat.safeyaml import read_plain_yaml
from sat.xmlio import XMLFormatError, program_to_xml, read_program, read_program_text

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "tests" / "data" / "idioms"
EXAMPLES = ROOT / "examples"
SPARSE = EXAMPLES / "idioms" / "sparse.yaml"
EXASAT_XML = ROOT / "tests" / "data" / "exasat" / "xml"
TRAPS = ["traps.f90", "traps.c"]
_LABEL = re.compile(r"(?:!|/\*)\s*((?:\w+:\w+\s*)+)")


def labels(path: Path) -> set[tuple[int, str, str]]:
    """(loop line, idiom, array) from the comments on the loop statements."""
    found = set()
    for number, text in enumerate(path.read_text().splitlines(), start=1):
        match = _LABEL.search(text)
        if match and re.search(r"\b(do|for)\b", text):
            for pair in match.group(1).split():
                idiom, array = pair.split(":")
                found.add((number, idiom, array))
    return found


def found(program: ir.Program, idioms=None) -> set[tuple[int, str, str]]:
    return {(m.loop_line, m.idiom, m.array) for m in recognise(program, idioms)[0]}


def idioms_of(source: Path, *options: str, capsys) -> list[dict]:
    status, out, err = run(capsys, source, "--json", "-", "-q", *options)
    assert status == 0, err
    return json.loads(out)["idioms"]


# --------------------------------------------------------------- hand-labelled kernels


@pytest.mark.parametrize("name", TRAPS)
def test_hand_labelled_loops(name):
    path = DATA / name
    expected = labels(path)
    assert len(expected) == 26  # 10 loops; 15 streams, 4 reductions, ...
    program = read_sources([str(path)])
    assert program.warnings == []
    assert found(program) == expected


@pytest.mark.parametrize("name, irregular", [("traps.f90", ["pick(i)"]),
                                             ("traps.c", ["pick(i)", "*p"])])
def test_unanalysable_subscripts_are_reported_with_a_warning(name, irregular):
    matches, warnings = recognise(read_sources([str(DATA / name)]))
    (row,) = [m for m in matches if m.idiom == "irregular"]
    assert row.array == "a" and irregular[0] in row.detail
    assert [re.search(r"subscript '(.*?)' of 'a'", w.message).group(1)
            for w in warnings] == irregular
    assert all("unclassified" in w.message and w.line == row.line for w in warnings)


def test_irregular_warnings_reach_the_notes_and_stderr(capsys):
    status, out, err = run(capsys, DATA / "traps.f90", "--json", "-")
    assert status == 0
    assert "traps.f90:41: subscript 'pick(i)' of 'a' cannot be analysed" in err
    warnings = json.loads(out)["warnings"]
    assert [w["line"] for w in warnings if "pick(i)" in w["message"]] == [41]


@pytest.mark.parametrize("name", TRAPS)
def test_details_and_lines(name):
    matches, _ = recognise(read_sources([str(DATA / name)]))
    by = {(m.idiom, m.array, m.loop_line): m for m in matches}
    first = min(m.loop_line for m in matches)
    # a(2*i) (C: b[1][2*i]): a strided stream, in the loop's first statement
    strided = by[("stream", "b", first)]
    assert strided.detail.endswith("stride 2") and strided.line == first + 1
    assert by[("stream", "a", first)].detail.endswith("unit stride")
    gathers = sorted((m.loop_line, m.detail) for m in matches if m.idiom == "gather")
    assert [detail.split(", ")[1] for _, detail in gathers] == ["through col"] * 2
    (stencil,) = [m for m in matches if m.idiom == "stencil"]
    assert stencil.detail == "3 points"
    transposes = [m for m in matches if m.idiom == "transpose"]
    assert {m.array for m in transposes} == {"b", "c"}
    assert all(m.depth == 2 for m in transposes)
    reduction_y = by[("reduction", "y", next(m.loop_line for m in matches
                                              if m.idiom == "reduction" and m.array == "y"))]
    assert reduction_y.depth == 2


def test_the_code_column_is_the_source_line():
    table, counts, _ = idiom_tables(read_sources([str(DATA / "traps.f90")]))
    rows = {(r["idiom"], r["array"], r["loop_line"]): r for r in table.rows}
    assert rows[("reduction", "y", 25)]["code"] == "y(j) = y(j) + c(i,j) * x(i)"
    assert rows[("reduction", "y", 25)]["line"] == 26
    assert rows[("reduction", "m", 53)]["code"] == "if (a(i) > m) m = a(i)"
    # the comment after a loop statement is not code
    assert rows[("stencil", "a", 37)]["code"] == "x(i) = a(i-1) + a(i) + a(i+1)"
    assert {r["idiom"]: r["count"] for r in counts.rows} == {
        "stream": 15, "transpose": 2, "gather": 2, "scatter": 1, "reduction": 4,
        "stencil": 1, "irregular": 1}
    # every loop streams but the transpose
    assert {r["idiom"]: r["loops"] for r in counts.rows}["stream"] == 9


# ------------------------------------------------------------- what the front ends keep


def _subscripts(program: ir.Program, line: int, name: str) -> list[tuple]:
    loop = next(lp for p in program.procedures for lp in p.all_loops() if lp.line == line)
    return [tuple((s.kind, s.var, s.coeff, s.offset, s.index) for s in access.subscripts)
            for array in loop.arrays if array.name == name for access in array.accesses]


def test_fortran_subscript_kinds():
    program = read_sources([str(DATA / "traps.f90")])
    assert _subscripts(program, 18, "a") == [
        (("invariant", "", 1, 0, "idx"),),  # a(idx(1)): an index array at a fixed place
        (("induction", "i", 1, 0, ""),)]
    assert _subscripts(program, 18, "b") == [(("induction", "i", 2, 0, ""),
                                              ("invariant", "", 1, 0, ""))]  # b(2*i, 1)
    assert _subscripts(program, 29, "x") == [(("indirect", "k", 1, 0, "col"),)]
    assert _subscripts(program, 29, "y") == [(("indirect", "k", 1, 0, "row"),)]
    assert _subscripts(program, 37, "a") == [(("induction", "i", 1, o, ""),)
                                             for o in (-1, 0, 1)]
    assert _subscripts(program, 40, "a") == [(("irregular", "", 1, 0, ""),)]
    # x(jj) after jj = col(k): followed to the index array (the offsets stay as written)
    assert _subscripts(program, 48, "x") == [(("indirect", "k", 1, 0, "col"),)]
    loop = next(lp for lp in program.procedures[1].all_loops() if lp.line == 48)
    assert next(a for a in loop.arrays if a.name == "x").accesses[0].offsets == ("jj",)
    assert [(a.name, a.accesses[0].line) for a in loop.arrays] == [
        ("col", 49), ("v", 50), ("x", 50)]



def test_a_followed_scalar_with_a_symbolic_offset_stays_an_induction(tmp_path):
    # As in SMC's compact_diffterm_3d: i = lo(1)+1+iface, so q(i-1) and q(i) move with iface
    # at offsets lo(1) and lo(1)+1; neither is a subscript that cannot be analysed.
    source = tmp_path / "faces.f90"
    source.write_text("""subroutine faces(q, lo, n, t)
  integer, intent(in) :: lo(3), n
  double precision, intent(in) :: q(0:n)
  double precision, intent(out) :: t
  integer :: i, iface
  t = 0.d0
  do iface = 0, 1
     i = lo(1) + 1 + iface
     t = t + q(i-1) + q(i)
  end do
end subroutine faces
""")
    program = read_sources([str(source)])
    assert _subscripts(program, 7, "q") == [(("induction", "iface", 1, "lo(1)", ""),),
                                            (("induction", "iface", 1, "lo(1) + 1", ""),)]
    assert recognise(program)[1] == []

def test_c_subscript_kinds():
    program = read_sources([str(DATA / "traps.c")])
    assert _subscripts(program, 15, "a") == [(("invariant", "", 1, 0, "idx"),),
                                             (("induction", "i", 1, 0, ""),)]
    assert _subscripts(program, 15, "b") == [(("invariant", "", 1, 0, ""),
                                              ("induction", "i", 2, 0, ""))]
    assert _subscripts(program, 22, "x") == [(("indirect", "k", 1, 0, "col"),)]
    kinds = [s[0][0] for s in _subscripts(program, 29, "a")]
    assert kinds == ["irregular", "irregular"]  # a[pick(i)], a[*p]
    assert _subscripts(program, 35, "x") == [(("indirect", "k", 1, 0, "col"),)]  # x[jj]


def test_scalars_keep_their_line_and_sources():
    program = read_sources([str(DATA / "traps.f90")])
    loops = {lp.line: lp for lp in program.procedures[1].all_loops()}
    sums = {s.name: s for s in loops[48].scalars}
    assert (sums["s"].line, set(sums["s"].sources)) == (51, {"s", "t"})
    assert set(sums["t"].sources) == {"v", "k", "x", "jj"}
    assert (sums["jj"].line, sums["jj"].accesstype) == (49, "writeread")
    counter = {s.name: s for s in loops[44].scalars}["cnt"]
    assert (counter.accesstype, counter.sources) == ("readwrite", ("cnt",))  # not fed


def test_strided_loop_and_array_syntax(tmp_path):
    source = """subroutine s(n, a, b, c)
  integer :: n, i
  double precision :: a(n), b(n), c(n, n)
  do i = 1, n, 2
    a(i) = b(i)
  end do
  c(1, :) = b(:)
end subroutine s
"""
    path = tmp_path / "strided.f90"
    path.write_text(source)
    matches, _ = recognise(read_sources([str(path)]))
    details = {(m.loop_line, m.array): m.detail for m in matches}
    assert details[(4, "a")] == "a(i), stride 2"  # coefficient 1 times the loop's step 2
    assert details[(7, "c")] == "c(1,:), along dimension 2"  # a row of a column-major array
    assert details[(7, "b")] == "b(:), unit stride"


# ------------------------------------------------------------------------------- XML


@pytest.mark.parametrize("name", TRAPS)
def test_xml_round_trip_keeps_what_idioms_need(name):
    program = read_sources([str(DATA / name)])
    text = program_to_xml(program)
    assert 'subscripts="(indirect(k,1,0,col,col(k)))"' in text or \
        'subscripts="(indirect(k,1,0,col,col[k]))"' in text
    again = read_program_text(text)
    assert again == program
    assert found(again) == labels(DATA / name)


def test_the_original_tools_files_still_read_and_have_idioms():
    program = read_program(str(EXASAT_XML / "micro" / "lap.xml"))
    access = program.procedures[0].loops[0].loops[0].loops[0].arrays[0].accesses[0]
    assert (access.subscripts, access.line) == ((), 0)
    assert found(program) == {(13, "stream", "Anext"), (13, "stencil", "A0")}
    fused = read_program(str(EXASAT_XML / "hypterm-cns-fused.xml"))
    kinds = {(m.idiom, m.array) for m in recognise(fused)[0]}
    assert {("stencil", "q"), ("stencil", "cons"), ("stream", "flux")} <= kinds


def test_offsets_alone_give_an_indirection():
    text = """<program><function name="f" adds="0" multiplies="0" divides="0" specials="0">
<loop linenum="3" loopvar="k" lowerbound="1" upperbound="n" stride="1" adds="0"
 multiplies="0" divides="0" specials="0">
<array name="x" component="" datatype="double" accesstype="readonly">
<access offset="(col(k) - k)" dependentloopvar="(k)" reads="1" writes="0"/></array>
<array name="w" component="" datatype="double" accesstype="readonly">
<access offset="(idx(1))" dependentloopvar="()" reads="1" writes="0"/></array>
</loop></function></program>"""
    assert found(read_program_text(text)) == {(3, "gather", "x")}


def test_bad_subscripts_attribute_is_a_located_error():
    text = """<program><function name="f" adds="0" multiplies="0" divides="0" specials="0">
<loop linenum="3" loopvar="k" lowerbound="1" upperbound="n" stride="1" adds="0"
 multiplies="0" divides="0" specials="0">
<array name="x"><access offset="(0)" dependentloopvar="(k)" reads="1"
 subscripts="(sideways(k,1,0,,k))"/></array></loop></function></program>"""
    with pytest.raises(XMLFormatError, match=r"^in\.xml:5: <access> subscript 'sideways"):
        read_program_text(text, "in.xml")


def test_xml_source_gets_the_idioms_sheet(capsys, tmp_path):
    xml, book = tmp_path / "spmv.xml", tmp_path / "spmv.xlsx"
    status, _, err = run(capsys, EXAMPLES / "spmv.f90", "--xml", xml)
    assert status == 0, err
    status, out, err = run(capsys, xml, "-o", book, "--json", "-", "-q")
    assert status == 0, err
    rows = json.loads(out)["idioms"]
    assert {(r["idiom"], r["array"]) for r in rows} >= {("gather", "x"), ("reduction", "y")}
    assert all(r["code"] for r in rows)  # the XML names the source file, which is read
    sheet = openpyxl.load_workbook(book, read_only=True)["Idioms"]
    assert [c.value for c in next(sheet.iter_rows(min_row=3, max_row=3))] == [
        "File", "Line", "Function", "Loop line", "Depth", "Idiom", "Array", "Detail", "Code"]


# ---------------------------------------------------------------------- pattern files


def test_builtin_patterns():
    assert list(builtin_idioms().idioms) == ["stream", "transpose", "gather", "scatter",
                                             "reduction", "stencil", "irregular"]
    assert BUILTIN_FILE.parent.name == "data" and BUILTIN_FILE.parent.parent.name == "sat"
    assert all(i.description and i.source == "built-in" for i in builtin_idioms().idioms.values())


def test_builtin_patterns_read_without_pyyaml_are_those_pyyaml_reads():
    """A run reads the built-in file without PyYAML (start-up time); read as a user's file is,
    it gives the same idioms, through the same checks."""
    assert read_plain_yaml(BUILTIN_FILE) is not None, "no longer in the plain subset of YAML"
    assert _read(BUILTIN_FILE, "built-in") == builtin_idioms().idioms


def test_user_defines_histogram_and_csr_row_product(capsys):
    idioms = read_idioms(SPARSE)
    assert list(idioms.idioms)[-2:] == ["histogram", "csr_row_product"]
    assert idioms.files == [str(SPARSE)]
    rows = idioms_of(EXAMPLES / "histogram.f90", "--idioms", SPARSE, capsys=capsys)
    assert {(r["idiom"], r["array"]) for r in rows} == {("stream", "idx"), ("histogram", "h")}
    (histogram,) = [r for r in rows if r["idiom"] == "histogram"]
    assert histogram["code"] == "h(idx(i)) = h(idx(i)) + 1"
    for source, total in ((EXAMPLES / "spmv.f90", "y"), (EXAMPLES / "c" / "spmv.c", "sum")):
        rows = idioms_of(source, "--idioms", SPARSE, capsys=capsys)
        (row,) = [r for r in rows if r["idiom"] == "csr_row_product"]
        assert (row["array"], row["depth"]) == (total, 2)
        assert ("reduction", total) in {(r["idiom"], r["array"]) for r in rows}
    # a reduction without a gather in the loop is no row product
    assert found(read_sources([str(EXAMPLES / "c" / "matvec.c")]), idioms) == found(
        read_sources([str(EXAMPLES / "c" / "matvec.c")]))


def test_without_the_user_file_the_histogram_is_a_gather_and_a_scatter(capsys):
    rows = idioms_of(EXAMPLES / "histogram.f90", capsys=capsys)
    assert {(r["idiom"], r["array"]) for r in rows} == {
        ("stream", "idx"), ("gather", "h"), ("scatter", "h")}


def test_a_user_file_replaces_a_builtin(tmp_path, capsys):
    wide = tmp_path / "wide.yaml"
    wide.write_text("idioms:\n  stencil:\n    description: three points or more\n"
                    "    subscripts: {some: loop}\n    offsets: {min: 3}\n")
    rows = idioms_of(EXAMPLES / "spmv.f90", "--idioms", wide, capsys=capsys)
    assert "stencil" not in {r["idiom"] for r in rows}  # rowptr(i), rowptr(i+1): 2 points
    rows = idioms_of(EXAMPLES / "lap.f90", "--idioms", wide, capsys=capsys)
    assert ("stencil", "a0") in {(r["idiom"], r["array"]) for r in rows}


def test_the_guide_shows_the_shipped_user_file():
    readme = (ROOT / "docs" / "explanation" / "idioms.md").read_text()
    indented = "\n".join("    " + line if line else "" for line in
                         SPARSE.read_text().rstrip("\n").splitlines())
    assert indented in readme


BAD_FILES = [
    ("idioms:\n  foo:\n    subscript: {some: indirect}\n", 3,
     "idiom 'foo': unknown key 'subscript' (did you mean 'subscripts'?)"),
    ("idioms:\n  foo: [\n", 3, "malformed YAML"),
    ("idiom:\n  foo: {access: read}\n", 1, "unknown key 'idiom' (did you mean 'idioms'?)"),
    ("idioms:\n  foo:\n    subject: scalar\n    access: read\n", 4,
     "can never match: access is about array references"),
    ("idioms:\n  foo:\n    subscripts: {some: loop, none: [loop, outer]}\n", 3,
     "can never match: no subscript meets"),
    ("idioms:\n  foo:\n    subscripts: {all: constant}\n    stride: unit\n", 4,
     "can never match: a stride needs"),
    ("idioms:\n  foo:\n    access: writeonly\n    carried: true\n", 4,
     "can never match: a carried value is read and written"),
    ("idioms:\n  foo:\n    offsets: {min: 3}\n    references: 2\n", 3,
     "can never match: more offsets than references"),
    ("idioms:\n  foo:\n    references: {min: 3, max: 2}\n", 3, "can never match"),
    ("idioms:\n  foo:\n    description: nothing else\n", 2, "no condition"),
    ("idioms:\n  foo:\n    subscripts: {some: indrect}\n", 3,
     "'indrect' is not a subscript kind"),
    ("idioms:\n  foo:\n    access: update\n    replaces: [gathr]\n", 4,
     "replaces 'gathr', which is no idiom (did you mean 'gather'?)"),
    ("idioms:\n  Foo:\n    access: read\n", 2, "idiom name 'Foo'"),
    ("idioms:\n  foo:\n    carried: yes please\n", 3, "carried: expected true or false"),
    ("version: 2\nidioms:\n  foo: {access: read}\n", 1, "version: 2 is not 1"),
    ("idioms:\n  foo:\n    with: {acces: read}\n", 3, "with: unknown key 'acces'"),
    ("idioms:\n  foo:\n    subject: scalar\n", 3, "carried: (true or false), which is missing"),
    ("idioms:\n  foo:\n    x: !!python/object:os.system {}\n", 3, "Python tags"),
]


@pytest.mark.parametrize("text, line, message", BAD_FILES, ids=[m for _, _, m in BAD_FILES])
def test_bad_pattern_files_stop_the_run_with_one_line(capsys, tmp_path, text, line, message):
    bad = tmp_path / "bad.yaml"
    bad.write_text(text)
    with pytest.raises(IdiomFileError, match=rf"^{re.escape(str(bad))}:{line}: "):
        read_idioms(bad)
    book = tmp_path / "out.xlsx"
    status, out, err = run(capsys, EXAMPLES / "triad.f90", "--idioms", bad, "-o", book)
    lines = [x for x in err.splitlines() if x.strip()]
    assert status == 2 and out == "" and len(lines) == 1, err
    assert lines[0].startswith(f"satreport: error: {bad}:{line}: ")
    assert message in lines[0]
    assert not book.exists()  # stopped before the analysis


def test_missing_pattern_file(capsys, tmp_path):
    status, _, err = run(capsys, EXAMPLES / "triad.f90", "--idioms", tmp_path / "no.yaml")
    assert status == 2 and "no.yaml: no such idiom pattern file" in err


def test_the_option_is_listed_with_the_model_inputs(capsys):
    with pytest.raises(SystemExit):
        main(["--help"])
    text = capsys.readouterr().out
    inputs = text[text.index("model inputs:"):text.index("front end:")]
    assert "--idioms FILE.yaml" in inputs


# ---------------------------------------------------------------------- the examples


def _model(*sources: Path):
    return build_model(read_sources([str(s) for s in sources]),
                       build_parameters(load_machine(None)))


EXPECTED = {  # example -> (idiom, array) pairs it must have (arrays as the IR names them)
    "lap.f90": {("stencil", "a0"), ("stream", "anext")},
    "lap4.f90": {("stencil", "a0"), ("stream", "anext")},
    "triad.f90": {("stream", "a"), ("stream", "b"), ("stream", "c")},
    "jacobi.f": {("stencil", "u"), ("stream", "unew"), ("stream", "f")},
    "hypterm.f90": {("stencil", "q"), ("stencil", "cons"), ("stream", "flux")},
    # rowptr(i), rowptr(i+1) bound the k loop: read once per i, not a two-point stencil
    "spmv.f90": {("gather", "x"), ("reduction", "y"), ("stream", "a"), ("stream", "col"),
                 ("stream", "rowptr")},
    "histogram.f90": {("gather", "h"), ("scatter", "h"), ("stream", "idx")},
    "c/stencil7.c": {("stencil", "a0"), ("stream", "anext")},
    "c/matvec.c": {("reduction", "sum"), ("stream", "a"), ("stream", "x"), ("stream", "y")},
    "c/kahan.c": {("reduction", "sum"), ("reduction", "c"), ("stream", "a")},
    "c/spmv.c": {("gather", "x"), ("reduction", "sum"), ("stream", "y")},
    "c/jacobi2d.c": {("stencil", "a"), ("stream", "b")},
}


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_examples_have_plausible_idioms(name):
    result = _model(EXAMPLES / name)
    rows = result.tables["Idioms"].rows
    pairs = {(r["idiom"], r["array"]) for r in rows}
    assert EXPECTED[name] <= pairs
    assert not {"gather", "scatter", "irregular"} & {i for i, _ in pairs} or \
        name in ("spmv.f90", "c/spmv.c", "histogram.f90")
    assert all(r["code"] and r["line"] >= r["loop_line"] > 0 for r in rows)


def test_every_example_has_an_idioms_sheet(capsys, tmp_path):
    sources = sorted(p for p in EXAMPLES.rglob("*") if p.suffix.lower() in (".f90", ".f", ".c"))
    assert len(sources) >= 20
    for source in sources:
        result = _model(source)
        assert result.tables["Idioms"].rows, source.name
        assert list(result.tables).index("Idiom counts") == \
            list(result.tables).index("Idioms") + 1


# ------------------------------------------------------------------ the JSON and HTML


def test_json_idioms_follow_the_contract(capsys):
    status, out, err = run(capsys, EXAMPLES / "spmv.f90", "--json", "-", "-q")
    assert status == 0, err
    data = json.loads(out)
    gather = next(r for r in data["idioms"] if r["idiom"] == "gather")
    assert list(gather) == ["file", "line", "function", "loop_line", "depth", "idiom", "array",
                            "detail", "code"]
    assert gather["file"].endswith("spmv.f90")
    assert (gather["line"], gather["function"], gather["loop_line"], gather["depth"],
            gather["array"], gather["code"]) == (
        24, "spmv", 23, 2, "x", "y(i) = y(i) + a(k) * x(col(k))")
    # streams of a, col and rowptr (the bounds of the row loop, not a stencil)
    assert data["idiom_counts"] == {"stream": 3, "transpose": 0, "gather": 1, "scatter": 0,
                                    "reduction": 1, "stencil": 0, "irregular": 0}


def test_html_idioms_section_data():
    from sat.report.html import _idioms

    section = _idioms(_model(EXAMPLES / "spmv.f90"))
    assert [c["idiom"] for c in section["counts"]] == ["stream", "gather",
                                                        "reduction"]  # those found
    assert len(section["rows"]) == 5
    gather = next(r for r in section["rows"] if r["idiom"] == "gather")
    texts = {cell.key: cell.text for cell in gather["cells"]}
    assert texts["array"] == "x" and texts["code"].endswith("x(col(k))")
    assert texts["where"].endswith("spmv.f90:24")


def test_the_repository_template_renders_the_idioms_section():
    """Rendered with this checkout's template (an installed satreport may carry another)."""
    import jinja2

    from sat.report.html import html_context
    from sat.report.svg import si

    program = read_sources([str(DATA / "traps.c")])
    result = build_model(program, build_parameters(load_machine(None)))
    context = html_context(program, result, result.env(), {}, use_dot=False)
    environment = jinja2.Environment(loader=jinja2.FileSystemLoader(str(ROOT / "templates")),
                                     autoescape=True, trim_blocks=True, lstrip_blocks=True,
                                     undefined=jinja2.StrictUndefined)
    environment.filters["si"] = si
    page = environment.get_template("report.html.j2").render(**context)
    section = page[page.index('<section id="idioms">'):]
    section = section[:section.index("</section>")]
    assert '<a href="#idioms">Idioms</a>' in page
    assert section.count('<tr class="idiom">') == 26
    assert "<code>y[row[k]] = v[k] * x[col[k]];</code>" in section
    assert "x[col[k]], through col" in section


@pytest.mark.parametrize("suffix, loop, text", [
    (".f90", 5, "subroutine amax(a, n, k)\n  integer :: n, k, i\n  real(8) :: a(n)\n  k = 1\n"
             "  do i = 2, n\n    if (a(i) > a(k)) k = i\n  end do\nend subroutine\n"),
    (".c", 4, "int amax(int n, const double *a)\n{\n  int i, k = 0;\n"
           "  for (i = 1; i < n; i++)\n    if (a[i] > a[k]) k = i;\n  return k;\n}\n")])
def test_an_arg_max_is_a_reduction_of_its_index(tmp_path, suffix, loop, text):
    """``if (a(i) > a(k)) k = i``: k is read and written in each iteration and its new value
    is chosen by a test on the array the loop reads, so it carries a value fed by a: a
    reduction (into k), beside the stream of a. A counter's value depends on no array and
    stays no reduction (test_hand_labelled_loops)."""
    source = tmp_path / f"amax{suffix}"
    source.write_text(text)
    assert found(read_sources([str(source)])) == {(loop, "stream", "a"),
                                                  (loop, "reduction", "k")}


CSR_ROW = """\
void spmv(int n, const int *rowptr, const int *col, const double *val, const double *x,
          double *y)
{
    for (int i = 0; i < n; i++) {
        double t = 0.0;
        for (int k = rowptr[i]; k < rowptr[i+1]; k++)
            t += val[k] * x[col[k]];
        y[i] = t;
    }
}
"""


def test_csr_row_bounds_are_no_stencil(tmp_path, capsys):
    """rowptr[i] and rowptr[i+1] bound the k loop: the i loop reads rowptr once per row (a
    stream), never a two-point stencil; the k loop gathers x through col and reduces into t."""
    path = tmp_path / "csr.c"
    path.write_text(CSR_ROW)
    found = {(r["loop_line"], r["idiom"], r["array"]) for r in idioms_of(path, capsys=capsys)}
    assert found == {(4, "stream", "rowptr"), (4, "stream", "y"), (6, "stream", "col"),
                     (6, "stream", "val"), (6, "gather", "x"), (6, "reduction", "t")}


def test_a_stencil_beside_an_inner_loops_bounds_is_still_one(tmp_path, capsys):
    """Only the references in the bounds are set apart: a(i-1) + a(i+1) in the body stays a
    two-point stencil when a(i) also bounds an inner loop."""
    path = tmp_path / "both.f90"
    path.write_text("subroutine s(a, b, n, m)\n  integer :: n, m, i, k\n"
                    "  double precision :: a(n), b(n)\n"
                    "  do i = 2, n - 1\n    b(i) = a(i-1) + a(i+1)\n"
                    "    do k = 1, int(a(i))\n      b(i) = b(i) + 1\n    end do\n"
                    "  end do\nend subroutine\n")
    found = {(r["idiom"], r["array"], r["detail"]) for r in idioms_of(path, capsys=capsys)
             if r["array"] == "a"}
    assert found == {("stencil", "a", "2 points")}


BLOCKS = """\
subroutine blocks(y, x, start, nb, bs, n)
  integer :: nb, bs, n, ib, k
  integer :: start(nb)
  double precision :: y(bs, nb), x(n)
  do ib = 1, nb
    do k = 1, bs
      y(k, ib) = x(start(ib) + k - 1)
    end do
  end do
end subroutine
"""


def test_gather_of_contiguous_blocks(tmp_path, capsys):
    """x(start(ib) + k - 1): start(ib) picks where a run of bs elements along k begins: a
    gather of x through start (contiguous runs along k), in the k loop where it is made."""
    path = tmp_path / "blocks.f90"
    path.write_text(BLOCKS)
    found = {(r["loop_line"], r["idiom"], r["array"], r["detail"])
             for r in idioms_of(path, capsys=capsys)}
    assert found == {(6, "stream", "y", "y(k,ib), unit stride"),
                     (6, "gather", "x", "x(start(ib)+k-1), through start, contiguous runs "
                                        "along k")}
    program = read_sources([str(path)])
    (x,) = [a for a in program.procedures[0].loops[0].loops[0].arrays if a.name == "x"]
    (access,) = x.accesses
    (sub,) = access.subscripts
    assert (sub.kind, sub.var, sub.index, sub.run) == ("indirect", "ib", "start", "k")


def test_an_index_moved_by_an_outer_loop_is_no_run(tmp_path, capsys):
    """x(col(k) + j) with j outside k: the index array's own loop is the innermost, so the
    subscript is the plain gather through col, no run."""
    path = tmp_path / "outer.f90"
    path.write_text("subroutine g(y, x, col, n, m)\n  integer :: n, m, j, k\n"
                    "  integer :: col(n)\n  double precision :: y(n, m), x(n + m)\n"
                    "  do j = 1, m\n    do k = 1, n\n      y(k, j) = x(col(k) + j)\n"
                    "    end do\n  end do\nend subroutine\n")
    details = {r["detail"] for r in idioms_of(path, capsys=capsys) if r["array"] == "x"}
    assert details == {"x(col(k)+j), through col"}


def test_xml_round_trip_keeps_the_run_of_a_gather_of_blocks(tmp_path):
    path = tmp_path / "blocks.f90"
    path.write_text(BLOCKS)
    program = read_sources([str(path)])
    text = program_to_xml(program)
    assert 'subscripts="(indirect(ib,1,0,start,start(ib)+k-1,k))"' in text
    again = read_program_text(text)
    assert again == program
    assert {(m.idiom, m.array, m.detail) for m in recognise(again)[0] if m.array == "x"} == {
        ("gather", "x", "x(start(ib)+k-1), through start, contiguous runs along k")}


CSR_SCALARS = """\
subroutine spmv(n, rowptr, col, val, x, y)
  integer :: n, i, k, first, last
  integer :: rowptr(n+1), col(*)
  double precision :: val(*), x(n), y(n), t, s
  do i = 2, n
    first = rowptr(i)
    last = rowptr(i+1) - 1
    s = x(i-1) + x(i+1)
    t = 0
    do k = first, last
      t = t + val(k) * x(col(k))
    end do
    y(i) = t + s
  end do
end subroutine
"""


def test_csr_row_bounds_read_into_scalars_are_no_stencil(tmp_path, capsys):
    """first = rowptr(i), last = rowptr(i+1) - 1 set the k loop's bounds: rowptr is a stream
    of the i loop (Fortran, the bounds naming the scalars; C, the front end following them
    into the bounds). x(i-1) + x(i+1), read into s which no bound names, stays a stencil."""
    from test_authored_forms import CSR

    path = tmp_path / "csr.f90"
    path.write_text(CSR_SCALARS)
    found = {(r["loop_line"], r["idiom"], r["array"]) for r in idioms_of(path, capsys=capsys)}
    assert found == {(5, "stream", "rowptr"), (5, "stencil", "x"), (5, "stream", "y"),
                     (10, "stream", "col"), (10, "stream", "val"), (10, "gather", "x"),
                     (10, "reduction", "t")}
    path = tmp_path / "csr.c"
    path.write_text(CSR)
    found = {(r["idiom"], r["array"]) for r in idioms_of(path, capsys=capsys)
             if r["array"] == "rowptr"}
    assert found == {("stream", "rowptr")}


def test_the_match_memo_is_kept_per_loop_subject_and_condition(tmp_path):
    # a(i) = b(idx(i)): 'b' is gathered through idx, 'a' is streamed.  The memo of a loop's
    # matches answers each (subject, condition) as the uncached search does, and a second
    # condition or subject is never answered from another's entry.
    from sat.model.irregular import idioms as module

    source = tmp_path / "g.f90"
    source.write_text("subroutine g(a, b, idx, n)\n  integer :: n, i, idx(n)\n"
                      "  real(8) :: a(n), b(n)\n  do i = 1, n\n     a(i) = b(idx(i))\n"
                      "  end do\nend subroutine g\n")
    program = read_sources([str(source)])
    (procedure, loop, depth, chain), = module.loop_levels(program)
    view = module._view(procedure, loop, depth, chain)
    conditions = [idiom.condition for idiom in builtin_idioms().idioms.values()]
    for name in ("a", "b"):
        for cond in conditions:
            assert module._meets(name, cond, view) == module._first_meeting(name, cond, view)
    assert len(view.met) == 2 * len(conditions)  # one entry per subject and condition
    gather = builtin_idioms().idioms["gather"].condition
    assert view.met[("b", id(gather))] is not None and view.met[("a", id(gather))] is None
    assert set(view.points) <= {"a", "b"}
    fresh = module._view(procedure, loop, depth, chain)  # a new loop view: a new memo
    assert fresh.met == {}


def test_each_loop_pairs_its_own_references_for_the_transpose(tmp_path):
    """The loop variables of each reference are remembered per loop and per reference: two
    nests of the same shape over other arrays pair their own references, and a read in the
    written array's order (``c(j,i)`` beside ``b(j,i)``) is no transpose."""
    source = tmp_path / "twice.f90"
    source.write_text("""subroutine twice(n, a, b, c, p, q, r)
  integer :: n, i, j
  real(8) :: a(n,n), b(n,n), c(n,n), p(n,n), q(n,n), r(n,n)
  do j = 1, n
    do i = 1, n
      b(j,i) = a(i,j) + c(j,i)
    end do
  end do
  do j = 1, n
    do i = 1, n
      q(j,i) = p(i,j) + r(j,i)
    end do
  end do
end subroutine twice
""")
    matches, _ = recognise(read_sources([str(source)]))
    transposes = {(m.loop_line, m.array, m.detail) for m in matches if m.idiom == "transpose"}
    assert transposes == {(5, "b", "b(j,i) and a(i,j)"), (5, "a", "a(i,j) and b(j,i)"),
                          (10, "q", "q(j,i) and p(i,j)"), (10, "p", "p(i,j) and q(j,i)")}
