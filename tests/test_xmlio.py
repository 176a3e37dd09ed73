"""XML code description I/O: reference files, lossless round trips, safety and error messages."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sat.ir import (
    Access,
    Array,
    Branch,
    Call,
    Comm,
    Diagnostic,
    Loop,
    Procedure,
    Program,
    Scalar,
    Variable,
)
from sat.outputs import OutputError
from sat.xmlio import (
    XMLFormatError,
    program_to_xml,
    read_program,
    read_program_text,
    split_list,
    write_program,
)

XML_DIR = Path(__file__).parent / "data" / "exasat" / "xml"
REFERENCE_FILES = sorted(
    [XML_DIR / "hypterm-cns.xml", XML_DIR / "hypterm-cns-fused.xml"]
    + [XML_DIR / "micro" / f"{name}.xml" for name in ("lap", "div", "grad", "lap4")]
)


def _loops(program: Program) -> list[Loop]:
    return [loop for proc in program.procedures for loop in proc.all_loops()]


# --- reading the original tool's files ---------------------------------------------------------


def test_lap_reference_values() -> None:
    program = read_program(str(XML_DIR / "micro" / "lap.xml"))
    (proc,) = program.procedures
    assert proc.name == "laplacian"
    assert [v.name for v in proc.nonlocals] == ["lo", "hi", "A0", "Anext"]
    # function level: lo(3) and hi(3) are read for the k loop bounds
    assert [(a.name, a.accesses[0].offsets, a.accesses[0].loopvars) for a in proc.arrays] == [
        ("lo", (3,), ("",)), ("hi", (3,), ("",))]
    k, j, i = _loops(program)
    assert (k.line, k.loopvar, k.lower, k.upper, k.stride) == (11, "k", "lo(3)", "hi(3)", "1")
    assert (j.loopvar, i.loopvar) == ("j", "i")
    assert (i.adds, i.multiplies, i.divides, i.specials) == (6, 2, 0, 0)
    a0 = next(a for a in i.arrays if a.name == "A0")
    assert a0.accesstype == "readonly" and a0.datatype == "double"
    assert len(a0.accesses) == 7 and a0.reads == 7 and a0.writes == 0
    assert a0.accesses[0] == Access((1, 0, 0), ("i", "j", "k"), 1, 0)
    assert {a.offsets for a in a0.accesses} == {
        (1, 0, 0), (-1, 0, 0), (0, 1, 0), (0, -1, 0), (0, 0, 1), (0, 0, -1), (0, 0, 0)}
    scalar_i = next(s for s in i.scalars if s.name == "i")
    assert scalar_i == Scalar("i", "int", False, "writeread", 8, 1)


def test_hypterm_reference_components() -> None:
    program = read_program(str(XML_DIR / "hypterm-cns.xml"))
    (proc,) = program.procedures
    assert [v.name for v in proc.locals] == ["dxinv"]
    loops = _loops(program)
    # one dxinv loop plus three 3-deep nests
    assert [loop.line for loop in loops] == [41, 46, 47, 48, 103, 104, 105, 160, 161, 162]
    assert loops[0].divides == 1
    x_inner = loops[3]
    assert (x_inner.adds, x_inner.multiplies) == (51, 65)
    cons_imx = next(a for a in x_inner.arrays if a.key == "cons.imx")
    assert cons_imx.accesses[0] == Access((1, 0, 0, "imx"), ("i", "j", "k", ""), 2, 0)
    assert cons_imx.reads == 16  # 8 offsets read twice each
    irho = next(s for s in x_inner.scalars if s.name == "irho")
    assert irho.is_constant and irho.datatype == "int"


def test_fused_reference_has_two_functions() -> None:
    program = read_program(str(XML_DIR / "hypterm-cns-fused.xml"))
    assert [p.name for p in program.procedures] == ["advance", "hypterm"]


@pytest.mark.parametrize("path", REFERENCE_FILES, ids=lambda p: p.name)
def test_reference_round_trip(path: Path, tmp_path: Path) -> None:
    original = read_program(str(path))
    out = tmp_path / "out.xml"
    write_program(original, str(out))
    assert read_program(str(out)) == original
    # and from the written text directly
    assert read_program_text(program_to_xml(original)) == original


@pytest.mark.parametrize("path", REFERENCE_FILES, ids=lambda p: p.name)
def test_reference_written_text_matches_original(path: Path) -> None:
    """Without satreport extensions the output is the original file plus an XML declaration."""
    text = program_to_xml(read_program(str(path)))
    declaration, rest = text.split("\n", 1)
    assert declaration.startswith("<?xml")
    assert rest == path.read_text()


# --- lossless round trip of every IR feature ---------------------------------------------------


def _full_program() -> Program:
    inner = Loop(
        line=12, loopvar="i", lower="lo(1)-ng", upper="hi(1)+ng", stride="2", kind="concurrent",
        file="b.f90", adds=3, multiplies=4, divides=1, specials=2,
        scalars=[Scalar("t", "double", False, "writeread", 2, 1),
                 Scalar("ALP", "double", True, "readonly", 1, 0)],
        arrays=[
            Array("q", "qu", "double", "readonly",
                  [Access((1, 0, "lo(3)", "qu"), ("i", "j", "", "")), Access((-4, 0, 0, "qu"),
                                                                      ("i", "j", "k", ""), 3, 0)],
                  firstaccess="load"),
            Array("flux", "", "real", "readwrite", [Access((0, 0), ("i", "j"), 1, 1)],
                  firstaccess="store"),
            Array("lo", "", "int", "readonly", [Access((3,), ("",), 1, 0)]),
        ],
        calls=[Call("eos", 13, ["q(i,j,k,1)", "'a,(b'", "t"])],
        branches=[
            Branch(condition="q(i,j,k,1) > 0.0d0 .and. t < 1", line=14, arm=0, arms=2, adds=1,
                   arrays=[Array("u", "", "double", "writeonly", [Access((0,), ("i",), 0, 1)])],
                   loops=[Loop(line=15, loopvar="n", lower="1", upper="nspec", adds=1)]),
            Branch(condition="else", line=16, arm=1, arms=2, multiplies=1,
                   branches=[Branch(condition="t /= 0", line=17, arms=2, divides=1)]),
        ],
    )
    outer = Loop(line=11, loopvar="j", lower="lo(2)", upper="hi(2)", loops=[inner], kind="while")
    proc = Procedure(
        name="Hyp&Term", file="a <b>.f90", line=3, layout="row-major", adds=1,
        locals=[Variable("t", "double precision"), Variable("tmp", "real", ("0:n", "m(1,2)"))],
        nonlocals=[Variable("q", "double precision",
                            ("lo(1)-ng:hi(1)+ng", "lo(2):hi(2)", "nc"), "in"),
                   Variable("lo")],
        comms=[Comm("fill_boundary", 9, ["q", "flux"]), Comm("sync", 10)],
        calls=[Call("init", 5), Call("f", 6, ["x", ""])],
        loops=[outer],
        scalars=[Scalar("n", "int", False, "writeonly", 0, 1)],
    )
    empty = Procedure(name="empty")
    return Program(
        procedures=[proc, empty],
        sources=["src/a.f90", "src/b\"c.f90"],
        warnings=[Diagnostic("unknown function 'foo'\nsecond line\twith tab", "a.f90", 7),
                  Diagnostic("no file at all")],
    )


def test_full_ir_round_trip(tmp_path: Path) -> None:
    program = _full_program()
    out = tmp_path / "full.xml"
    write_program(program, str(out))
    assert read_program(str(out)) == program
    # writing the re-read program gives the same text again
    assert program_to_xml(read_program(str(out))) == out.read_text()


def test_write_is_atomic_and_overwrites(tmp_path: Path) -> None:
    out = tmp_path / "p.xml"
    out.write_text("old content")
    write_program(_full_program(), str(out))
    assert read_program(str(out)) == _full_program()
    assert os.listdir(tmp_path) == ["p.xml"]  # no temporary file left behind


def test_write_failure_leaves_no_temp_file(tmp_path: Path) -> None:
    target = tmp_path / "adir"
    target.mkdir()
    with pytest.raises(OutputError, match="is a directory"):
        write_program(_full_program(), str(target))  # cannot replace a directory by a file
    assert sorted(os.listdir(tmp_path)) == ["adir"]


def test_split_list() -> None:
    assert split_list("()") == []
    assert split_list("(i,j,k,)") == ["i", "j", "k", ""]
    assert split_list("(lo(1)-ng:hi(1)+ng, lo(2):hi(2))") == ["lo(1)-ng:hi(1)+ng", "lo(2):hi(2)"]
    assert split_list("('a,)b', c)") == ["'a,)b'", "c"]
    with pytest.raises(ValueError):
        split_list("(a(1)")
    with pytest.raises(ValueError):
        split_list("a,b")


def test_unknown_elements_ignored() -> None:
    text = """<program>
<function name="f" adds="0" multiplies="0" divides="0" specials="0">
<pininfo foo="bar"><x/></pininfo>
<loop linenum="3" loopvar="i" lowerbound="1" upperbound="n" stride="1"
      adds="1" multiplies="0" divides="0" specials="0">
<pininfo/>
<!-- a comment -->
</loop>
</function>
<somethingelse/>
</program>"""
    (proc,) = read_program_text(text).procedures
    assert proc.loops == [Loop(line=3, loopvar="i", lower="1", upper="n", adds=1)]


# --- safety -------------------------------------------------------------------------------------

BILLION_LAUGHS = """<?xml version="1.0"?>
<!DOCTYPE program [
 <!ENTITY lol "lol">
 <!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">
 <!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">
 <!ENTITY lol4 "&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;">
 <!ENTITY lol5 "&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;">
 <!ENTITY lol6 "&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;">
 <!ENTITY lol7 "&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;">
 <!ENTITY lol8 "&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;">
 <!ENTITY lol9 "&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;">
]>
<program><function name="&lol9;" adds="0" multiplies="0" divides="0" specials="0"/></program>
"""

EXTERNAL_ENTITY = """<?xml version="1.0"?>
<!DOCTYPE program [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>
<program><function name="f" adds="0" multiplies="0" divides="0" specials="0">
<local name="&xxe;"/></function></program>
"""


def test_billion_laughs_rejected() -> None:
    with pytest.raises(XMLFormatError) as info:
        read_program_text(BILLION_LAUGHS, "bomb.xml")
    assert str(info.value) == (
        "bomb.xml:2: DOCTYPE and entity declarations are not allowed in a code description")


def test_external_entity_rejected() -> None:
    with pytest.raises(XMLFormatError) as info:
        read_program_text(EXTERNAL_ENTITY, "xxe.xml")
    message = str(info.value)
    assert message.startswith("xxe.xml:2: DOCTYPE")
    assert "root:" not in message  # nothing of /etc/passwd leaks into the message


def test_external_dtd_rejected() -> None:
    text = '<!DOCTYPE program SYSTEM "http://example.invalid/x.dtd">\n<program/>'
    with pytest.raises(XMLFormatError, match=r"^x\.xml:1: DOCTYPE"):
        read_program_text(text, "x.xml")


# --- error messages -------------------------------------------------------------------------------

_FUNC = '<function name="f" adds="0" multiplies="0" divides="0" specials="0">'


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("<program>\n<function name='f'>\n</program>",
         r"^bad\.xml:3: malformed XML: .+"),
        ("<programme/>", r"^bad\.xml:1: root element is <programme>, expected <program>$"),
        (f"<program>\n{_FUNC}\n<loop linenum='3' loopvar='i' lowerbound='1' stride='1' "
         "adds='0' multiplies='0' divides='0' specials='0'/>\n</function></program>",
         r"^bad\.xml:3: <loop> lacks required attribute 'upperbound'$"),
        ("<program>\n<function adds='0' multiplies='0' divides='0' specials='0'/></program>",
         r"^bad\.xml:2: <function> lacks required attribute 'name'$"),
        (f"<program>\n{_FUNC}\n<loop linenum='3' loopvar='i' lowerbound='1' upperbound='n' "
         "adds='2.5' multiplies='0' divides='0' specials='0'/>\n</function></program>",
         r"^bad\.xml:3: <loop> adds='2\.5' is not an integer$"),
        (f"<program>\n{_FUNC}\n<scalar name='x' reads='-1'/>\n</function></program>",
         r"^bad\.xml:3: <scalar> reads=-1 is negative$"),
        (f"<program>\n{_FUNC}\n<array name='a'>\n<access offset='(1,0)' "
         "dependentloopvar='(i)'/>\n</array>\n</function></program>",
         r"^bad\.xml:4: <access> has 2 offsets but 1 dependent loop variables$"),
        (f"<program>\n{_FUNC}\n<array name='a'>\n<access offset='1,0' "
         "dependentloopvar='(i,j)'/>\n</array>\n</function></program>",
         r"^bad\.xml:4: <access> offset='1,0': expected a parenthesised"),
        (f"<program>\n{_FUNC}\n<array name='a' accesstype='sometimes'/>\n</function></program>",
         r"^bad\.xml:3: <array> accesstype='sometimes' is not one of readonly, readwrite, "
         r"writeonly, writeread$"),
        (f"<program>\n{_FUNC}\n<scalar name='x' isConstant='maybe'/>\n</function></program>",
         r"^bad\.xml:3: <scalar> isConstant='maybe' is not true or false$"),
        ("<program>\n<function name='f' adds='0' multiplies='0' divides='0' specials='0' "
         "layout='diagonal'/></program>",
         r"^bad\.xml:2: <function> layout='diagonal' is not one of"),
        ("", r"^bad\.xml:1: malformed XML: "),
    ],
    ids=["malformed", "wrong-root", "missing-bound", "missing-name", "non-integer-count",
         "negative-count", "loopvar-count", "offset-syntax", "bad-accesstype", "bad-boolean",
         "bad-layout", "empty"],
)
def test_format_errors(text: str, expected: str) -> None:
    with pytest.raises(XMLFormatError, match=expected) as info:
        read_program_text(text, "bad.xml")
    assert "\n" not in str(info.value)


def test_error_without_filename_and_missing_file(tmp_path: Path) -> None:
    with pytest.raises(XMLFormatError, match=r"^<xml>:1: root element"):
        read_program_text("<nope/>")
    missing = tmp_path / "missing.xml"
    with pytest.raises(XMLFormatError, match=r"missing\.xml: cannot read: "):
        read_program(str(missing))


def test_error_line_from_file(tmp_path: Path) -> None:
    path = tmp_path / "broken.xml"
    path.write_text(f"<program>\n{_FUNC}\n\n\n<loop loopvar='i'/>\n</function>\n</program>\n")
    with pytest.raises(XMLFormatError) as info:
        read_program(str(path))
    assert str(info.value) == f"{path}:5: <loop> lacks required attribute 'linenum'"


def test_utf16_doctype_rejected() -> None:
    """A DOCTYPE the byte scan cannot see (UTF-16) is still refused after a safe parse."""
    text = ('<?xml version="1.0" encoding="UTF-16"?>\n'
            '<!DOCTYPE program [<!ENTITY a "b">]>\n<program/>')
    with pytest.raises(XMLFormatError, match=r"^u16\.xml:1: DOCTYPE"):
        read_program_text(text.encode("utf-16"), "u16.xml")


# --- property: any IR round-trips ---------------------------------------------------------------

_ident = st.from_regex(r"[a-z][a-z0-9_]{0,6}", fullmatch=True)
# any text XML 1.0 can carry (control characters other than tab, newline, return cannot be)
_text = st.text(st.characters(blacklist_categories=("Cs", "Cc"),
                              blacklist_characters="\ufffe\uffff")
                | st.sampled_from("\n\t\r"), max_size=12)
_count = st.integers(0, 99)


@st.composite
def _accesses(draw) -> Access:
    dims = draw(st.integers(1, 4))
    offsets = tuple(draw(st.lists(st.integers(-5, 5) | _ident, min_size=dims, max_size=dims)))
    loopvars = tuple(draw(st.lists(st.just("") | _ident, min_size=dims, max_size=dims)))
    return Access(offsets, loopvars, draw(_count), draw(_count))


_arrays = st.builds(Array, _ident, st.just("") | _ident, _ident,
                    st.sampled_from(["readonly", "writeonly", "readwrite", "writeread"]),
                    st.lists(_accesses(), max_size=3), st.sampled_from(["", "load", "store"]))
_scalars = st.builds(Scalar, _ident, _ident, st.booleans(),
                     st.sampled_from(["readonly", "writeonly", "readwrite", "writeread"]),
                     _count, _count)
_calls = st.builds(Call, _ident, _count, st.lists(_ident, max_size=3))


def _body_kwargs(children: st.SearchStrategy) -> dict:
    return dict(adds=_count, multiplies=_count, divides=_count, specials=_count,
                scalars=st.lists(_scalars, max_size=2), arrays=st.lists(_arrays, max_size=2),
                calls=st.lists(_calls, max_size=1), loops=children)


_loops_tree = st.recursive(
    st.just([]),
    lambda inner: st.lists(st.builds(Loop, line=_count, loopvar=_ident, lower=_text,
                                     upper=_text, stride=_text, kind=_ident, file=_text,
                                     branches=st.lists(st.builds(
                                         Branch, condition=_text, line=_count, arm=_count,
                                         arms=_count, **_body_kwargs(inner)), max_size=1),
                                     **_body_kwargs(inner)), max_size=2),
    max_leaves=4,
)
_variables = st.builds(Variable, _ident, _text, st.lists(_ident, max_size=3).map(tuple), _text)
_procedures = st.builds(
    Procedure, name=_text, file=_text, line=_count,
    locals=st.lists(_variables, max_size=2), nonlocals=st.lists(_variables, max_size=2),
    comms=st.lists(st.builds(Comm, _ident, _count, st.lists(_ident, max_size=2)), max_size=1),
    layout=st.sampled_from(["column-major", "row-major"]), **_body_kwargs(_loops_tree))
_programs = st.builds(Program, st.lists(_procedures, max_size=2), st.lists(_text, max_size=2),
                      st.lists(st.builds(Diagnostic, _text, _text, _count), max_size=2))


@settings(max_examples=60, deadline=None)
@given(_programs)
def test_any_program_round_trips(program: Program) -> None:
    assert read_program_text(program_to_xml(program)) == program


def test_written_file_has_usual_permissions(tmp_path: Path) -> None:
    out = tmp_path / "perm.xml"
    write_program(Program(), str(out))
    mask = os.umask(0)
    os.umask(mask)
    assert out.stat().st_mode & 0o777 == 0o666 & ~mask
    assert read_program(str(out)) == Program()


def test_original_if_element_is_a_two_armed_branch() -> None:
    # The original tool writes a conditional region as <if linenum conditional counts>; its
    # loops and work happen only when the branch is taken.
    program = read_program_text("""<program><function name="advance" adds="0" multiplies="0"
        divides="0" specials="0">
      <if linenum="99" conditional="present(courno)" adds="1" multiplies="0" divides="2"
          specials="0">
        <loop linenum="102" loopvar="k" lowerbound="lo(3)" upperbound="hi(3)" stride="1"
              adds="3" multiplies="1" divides="4" specials="1"/>
      </if></function></program>""")
    (branch,) = program.procedures[0].branches
    assert (branch.condition, branch.line, branch.arm, branch.arms) == ("present(courno)", 99,
                                                                         0, 2)
    assert (branch.adds, branch.divides) == (1, 2)
    assert [(lp.line, lp.divides, lp.specials) for lp in branch.loops] == [(102, 4, 1)]
