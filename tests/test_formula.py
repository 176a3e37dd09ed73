"""The Excel formula printer: exact formula text for each node type and for booleans."""

from __future__ import annotations

import pytest

from sat.model import expr as E
from sat.model.expr import Param as P
from sat.model.expr import Quantity
from sat.report.formula import ExcelPrinter, format_number
from sat.report.names import NameTable, excel_name, is_valid_name


def printer(cells: dict[int, str] | None = None, booleans: tuple[str, ...] = ()) -> ExcelPrinter:
    cells = cells or {}
    return ExcelPrinter(lambda q: cells.get(id(q)), booleans=booleans)


@pytest.mark.parametrize("value, text", [
    (3, "3"), (-2.0, "-2"), (0.5, "0.5"), (1e9, "1000000000"), (1e20, "1E+20"),
    (1.5e-7, "1.5E-07"), (2.5e16, "2.5E+16"), (1e15, "1000000000000000"),
])
def test_format_number(value: float, text: str) -> None:
    assert format_number(value) == text


def test_format_number_rejects_non_finite() -> None:
    with pytest.raises(ValueError):
        format_number(float("inf"))


def test_arithmetic_precedence() -> None:
    a, b, c = P("a"), P("b"), P("c")
    p = printer()
    assert p.formula(a + b * c) == "=a+b*c"
    assert p.formula((a + b) * c) == "=(a+b)*c"
    assert p.formula(a - (b + c)) == "=a-(b+c)"
    assert p.formula(a - b * c) == "=a-b*c"
    assert p.formula(-(a + b)) == "=-(a+b)"
    assert p.formula(a * (b / 2)) == "=a*(b/2)"
    assert p.formula((a + b) / 4) == "=(a+b)/4"
    assert p.formula(a - 3) == "=a-3"
    assert p.formula(E.Mul((E.Num(-2), a))) == "=(-2)*a"


def test_division_is_zero_guarded() -> None:
    a, b, c = P("a"), P("b"), P("c")
    p = printer()
    assert p.formula(a / (b * c)) == "=IF(b*c=0,0,a/(b*c))"
    assert p.formula(E.Div(a, E.Num(0))) == "=0"  # Python gives 0 too
    assert E.evaluate(E.Div(a, E.Num(0)), {"a": 5}) == 0


def test_functions_and_comparisons() -> None:
    a, b = P("a"), P("b")
    p = printer()
    assert p.formula(E.maximum(a, b, 0)) == "=MAX(a,b,0)"
    assert p.formula(E.ceiling(a / 16, 1)) == "=CEILING(a/16,1)"
    assert p.formula(E.if_(E.compare("<=", a + 1, b), a, -b)) == "=IF(a+1<=b,a,-b)"
    assert p.formula(E.compare(">", a, -3)) == "=1*(a>-3)"  # a cell holds a number


def test_references_and_inlining() -> None:
    placed = Quantity(("placed",), P("x") * 2)
    hidden = Quantity(("hidden",), P("y") + 1)
    p = printer({id(placed): "Loops!C5"})
    assert p.formula(E.Ref(placed) + E.Ref(hidden)) == "=Loops!C5+y+1"
    assert p.formula(E.Ref(hidden) * 3) == "=3*(y+1)"  # constants lead a product


def test_booleans_are_coerced_where_excel_needs_numbers() -> None:
    sw, nta = P("StreamingWrites"), P("NTAHints")
    p = printer(booleans=("StreamingWrites", "NTAHints"))
    # Arithmetic and conditions take TRUE/FALSE as they are.
    assert p.formula(2 * sw) == "=2*StreamingWrites"
    assert p.formula(E.if_(sw, 1, 2)) == "=IF(StreamingWrites,1,2)"
    assert p.formula(E.func("AND", sw, nta)) == "=1*AND(StreamingWrites,NTAHints)"
    # Excel's MAX skips a logical cell and TRUE=1 is FALSE in Excel: coerce there.
    assert p.formula(E.maximum(sw, 0.5)) == "=MAX(1*StreamingWrites,0.5)"
    assert p.formula(E.compare("=", sw, 1)) == "=1*(1*StreamingWrites=1)"
    assert p.formula(E.div(3, nta)) == "=IF(1*NTAHints=0,0,3/NTAHints)"
    # A cell never holds TRUE/FALSE: it holds 1/0 like the Python evaluation.
    assert p.formula(sw) == "=1*StreamingWrites"
    assert p.formula(E.if_(sw, nta, 0)) == "=1*IF(StreamingWrites,NTAHints,0)"
    assert E.evaluate(E.if_(sw, nta, 0), {"StreamingWrites": 1, "NTAHints": 0}) == 0


def test_names_are_mapped() -> None:
    p = ExcelPrinter(lambda q: None, name_of={"nx1": "nx_1"}.get)
    assert p.formula(P("nx1") * 2) == "=2*nx_1"


@pytest.mark.parametrize("name, valid", [
    ("hi_1", True), ("Cores", True), ("nspecies", True), ("NX", True), ("ABCD1", True),
    ("NX1", False), ("hi3", False), ("A1", False), ("XFD1048576", False), ("R1C1", False),
    ("R", False), ("c", False), ("RC", False), ("R2", False), ("TRUE", False),
    ("false", False), ("1x", False), ("a.b", False), ("a b", False), ("", False),
    ("x" * 255, True), ("x" * 256, False), ("_xlnm_test", False),
])
def test_valid_names(name: str, valid: bool) -> None:
    assert is_valid_name(name) is valid


@pytest.mark.parametrize("name, mapped", [
    ("NX1", "NX_1"), ("hi3", "hi_3"), ("A1", "A_1"), ("R1C1", "R1C1_"), ("c", "c_"),
    ("TRUE", "TRUE_"), ("2d", "_2d"), ("a.b(1)", "a_b_1_"), ("x" * 300, "x" * 255),
    ("_xlfoo", "p_xlfoo"),
])
def test_excel_name(name: str, mapped: str) -> None:
    assert excel_name(name) == mapped
    assert is_valid_name(mapped)


def test_name_table_keeps_valid_names_and_numbers_clashes() -> None:
    table = NameTable()
    table.reserve(["nx_1", "Cores", "NX1"])
    assert table.name("nx1") == "nx_1_2"  # nx_1 belongs to a real parameter
    assert table.name("NX1") == "NX_1_3"  # names ignore case: NX_1 = nx_1
    assert table.name("nx_1") == "nx_1"
    assert table.name("Cores") == "Cores"
    assert table.name("nx1") == "nx_1_2"  # stable
    assert table.mapping()["NX1"] == "NX_1_3"


def test_runs_of_cells_down_a_column_print_as_sum_ranges() -> None:
    rows = [Quantity(("row", r), P("x")) for r in range(5, 10)]  # Loops!D5 .. Loops!D9
    other = Quantity(("other",), P("x"))
    cells = {id(q): f"Loops!D{r}" for q, r in zip(rows, range(5, 10), strict=True)}
    cells[id(other)] = "'Other sheet'!B2"
    p = printer(cells)
    assert p.formula(E.add(*rows)) == "=SUM(Loops!D5:D9)"
    # a gap breaks the run; runs shorter than three stay plain; other terms keep their place
    terms = [rows[0], rows[1], rows[3], rows[4], other, P("y")]
    assert p.formula(E.add(*terms)) == "=Loops!D5+Loops!D6+Loops!D8+Loops!D9+'Other sheet'!B2+y"
    assert p.formula(E.add(P("y"), *rows[:3], 1)) == "=y+SUM(Loops!D5:D7)+1"
    # a 400-row total stays far below Excel's 8192-character limit
    many = [Quantity(("row", r), P("x")) for r in range(400)]
    long_cells = {id(q): f"Loops!AT{r + 5}" for r, q in enumerate(many)}
    assert printer(long_cells).formula(E.add(*many)) == "=SUM(Loops!AT5:AT404)"


def test_max_over_many_rows_uses_ranges_and_stays_within_255_arguments() -> None:
    many = [Quantity(("row", r), P("x")) for r in range(400)]
    cells = {id(q): f"Loops!X{r + 5}" for r, q in enumerate(many)}
    assert printer(cells).formula(E.maximum(*many)) == "=MAX(Loops!X5:X404)"
    # 400 unplaced (inlined) arguments: nested so no call has more than 255
    text = printer().formula(E.maximum(*[P(f"p{i}") for i in range(400)]))
    assert text.startswith("=MAX(MAX(p0,") and text.count("MAX(") == 3
    inner = text[len("=MAX("):-1]
    assert [part.count(",") + 1 for part in inner[4:-1].split("),MAX(")] == [255, 145]


def test_printed_nodes_are_remembered_without_mixing_up_short_lived_ones() -> None:
    """The printer remembers nodes by identity; a node made for one formula and dropped must
    not pass for the next one (Python reuses the ids of freed objects)."""
    quantities = [Quantity(("row", r), P("x")) for r in range(200)]
    p = printer({id(q): f"Loops!B{r + 5}" for r, q in enumerate(quantities)})
    for r, quantity in enumerate(quantities):
        assert p.formula(E.Ref(quantity)) == f"=Loops!B{r + 5}"
    shared = P("a") + P("b")
    assert p.formula(shared * 2) == "=2*(a+b)"
    assert p.formula(E.div(shared, 3) + shared) == "=(a+b)/3+a+b"
