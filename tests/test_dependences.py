"""Flow, anti and output dependences between loop nests."""

from pathlib import Path

from sat.ir import Access, Array, Branch, Loop, Procedure, Program
from sat.model.context import ModelContext
from sat.model.exasat.dependences import Dependence, dependences, dependences_table
from sat.parameter import ParameterSet
from sat.xmlio import read_program

FUSED = Path(__file__).parent / "data" / "exasat" / "xml" / "hypterm-cns-fused.xml"


def read(name: str, component: str = "") -> Array:
    offsets = (0, component) if component else (0,)
    loopvars = ("i", "") if component else ("i",)
    return Array(name, component, "double", "readonly", [Access(offsets, loopvars, reads=1)])


def write(name: str, component: str = "") -> Array:
    offsets = (0, component) if component else (0,)
    loopvars = ("i", "") if component else ("i",)
    return Array(name, component, "double", "writeonly", [Access(offsets, loopvars, writes=1)])


def loop(line: int, *arrays: Array) -> Loop:
    return Loop(line=line, loopvar="i", lower="1", upper="n", arrays=list(arrays))


def program(*loops: Loop) -> Program:
    return Program([Procedure(name="p", loops=list(loops))])


def edges(prog: Program) -> set[tuple[int, int, str, str]]:
    return {(d.source_line, d.sink_line, d.array, d.kind) for d in dependences(prog)}


def test_one_dependence_of_each_kind():
    # 10: a = f(b)     20: b = g(a)     30: a = h()
    # flow   10 -> 20 through a (20 reads what 10 wrote)
    # anti   10 -> 20 through b (20 overwrites what 10 read)
    # anti   20 -> 30 through a (30 overwrites what 20 read)
    # output 10 -> 30 through a (30 overwrites what 10 wrote)
    prog = program(loop(10, write("a"), read("b")), loop(20, read("a"), write("b")),
                   loop(30, write("a")))
    assert edges(prog) == {(10, 20, "a", "flow"), (10, 20, "b", "anti"),
                           (20, 30, "a", "anti"), (10, 30, "a", "output")}
    assert dependences(prog)[0] == Dependence("p", 10, 20, "a", "flow")


def test_only_the_nearest_writer_feeds_a_reader():
    # 10 and 20 both write x, 30 reads it: flow 20 -> 30 only (20 overwrote 10's values),
    # output 10 -> 20.
    prog = program(loop(10, write("x")), loop(20, write("x")), loop(30, read("x")))
    assert edges(prog) == {(10, 20, "x", "output"), (20, 30, "x", "flow")}


def test_components_are_distinct_data_but_overlap_the_whole_array():
    # 10 writes q.qu; 20 reads q.qv (no edge); 30 reads q (whole array): flow from 10.
    # A branch arm inside a nest counts as part of the nest.
    nest30 = loop(30)
    nest30.branches = [Branch(arrays=[read("q")], condition="flag")]
    prog = program(loop(10, write("q", "qu")), loop(20, read("q", "qv")), nest30)
    assert edges(prog) == {(10, 30, "q.qu", "flow")}


def test_fused_hypterm_and_the_table():
    # dxinv(i) is written by the loop at line 76 and read by the nest at line 81.
    prog = read_program(str(FUSED))
    assert dependences(prog) == [Dependence("hypterm", 76, 81, "dxinv", "flow")]
    ctx = ModelContext(ParameterSet())
    table = dependences_table(prog, ctx)
    assert [(r["source_line"], r["sink_line"], r["kind"]) for r in table.rows] == [
        (76, 81, "flow")]
    assert any("nearest" in n.message for n in ctx.notes)


def test_an_unknown_callee_s_array_arguments_carry_dependences(tmp_path, capsys):
    """``call foo(a)`` in a nest: ``a`` counts as read and written there (one assumption, said
    where the call is read), so the next nest reading ``a`` depends on it (flow); the
    dependence warning only adds what goes unseen, data foo reaches otherwise."""
    from test_cli import run

    source = tmp_path / "u.f90"
    source.write_text("subroutine s(a, b, n)\n  integer :: n, i\n  real(8) :: a(n), b(n)\n"
                      "  do i = 1, n\n    call foo(a)\n  end do\n"
                      "  do i = 1, n\n    b(i) = a(i)\n  end do\nend subroutine\n")
    status, out, err = run(capsys, str(source), "--json", "-", "-q")
    assert status == 0
    import json

    notes = [n["message"] for n in json.loads(out)["notes"]]
    assert any("its array arguments are assumed read and written" in n for n in notes)
    dependence = [n for n in notes if n.startswith("Dependences: the loop nest at line 4")]
    assert len(dependence) == 1 and "other than through their arguments" in dependence[0]
    assert not any("not counted as written" in n for n in notes)
    book = tmp_path / "u.xlsx"
    assert run(capsys, str(source), "-o", str(book), "-q")[0] == 0
    import openpyxl

    rows = list(openpyxl.load_workbook(book)["Dependences"].iter_rows(values_only=True))
    assert ("s", 4, 7, "a", "flow") in [row[:5] for row in rows]
