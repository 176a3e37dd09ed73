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



def test_forgetting_in_batches_keeps_each_batch_of_formulas_and_drops_their_parts() -> None:
    """The Workings sheet is printed in batches: after each, the texts of its formulas' parts
    are forgotten and the formulas' own texts kept with the earlier batches' ones."""
    p = printer()
    exprs = [(P("a") + k) * P("b") for k in range(1, 7)]  # each with a part of its own, a+k
    for batch in (exprs[:3], exprs[3:]):
        for expr in batch:
            p.formula(expr)
        p.forget_all_but(batch)
    assert set(p._kept) == {id(expr) for expr in exprs}  # six formulas, none of their parts
    assert not p._printed
    assert [p.formula(expr) for expr in exprs] == [f"=(a+{k})*b" for k in range(1, 7)]
    assert not p._printed  # each printed again from what was kept, no part printed anew

class _Workbook:
    """Cells for a printer: the given ones, and a new Workings row for any other quantity
    (the parts of split formulas), as the workbook gives them."""

    def __init__(self, cells: dict[int, str]):
        self.cells = dict(cells)
        self.placed: list[Quantity] = []

    def cell_of(self, quantity: Quantity) -> str:
        if id(quantity) not in self.cells:
            self.placed.append(quantity)
            self.cells[id(quantity)] = f"Workings!B{len(self.placed) + 3}"
        return self.cells[id(quantity)]

    def all_formulas(self, p: ExcelPrinter, expr: E.Expr) -> list[str]:
        """The formula of ``expr`` and those of every part made for it (parts of parts too)."""
        texts = [p.formula(expr)]
        done = 0
        while done < len(self.placed):
            texts.append(p.formula(self.placed[done].expr))
            done += 1
        return texts


def _measures(text: str) -> tuple[int, int, int]:
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).parent))
    from excel_limits import measure

    m = measure(text)
    return m.length, m.nesting, m.arguments


def test_a_sum_too_long_for_one_cell_is_summed_in_parts() -> None:
    # 3000 cells, every other row of two sheets: no run makes a range, 13 characters each
    rows = [Quantity(("row", r), P("x")) for r in range(3000)]
    sheets = ("Loops", "Costs")
    book = _Workbook({id(q): f"{sheets[r % 2]}!AB{2 * r + 5}" for r, q in enumerate(rows)})
    p = ExcelPrinter(book.cell_of)
    texts = book.all_formulas(p, E.add(*rows, P("y")))
    for text in texts:
        length, nesting, arguments = _measures(text)
        assert length <= 8192 and nesting <= 64 and arguments <= 255
    # every row is summed exactly once, in order: the parts hold the rows, the total the parts
    parts = texts[1:]
    cells = [cell for text in parts for cell in text[1:].split("+")]
    assert cells == [f"{sheets[r % 2]}!AB{2 * r + 5}" for r in range(3000)] + ["y"]
    # parts of at most 2500 characters, 13 or 14 a term (and a +): 16 parts of about 180
    # terms, in consecutive rows of the Workings sheet: their sum is a range
    assert len(parts) == 16
    assert texts[0] == "=SUM(Workings!B4:B19)"
    # the parts' values add up to the total: 3000 rows of x = 2, plus y = 1 (in the last)
    env = E.Env({"x": 2, "y": 1})
    assert sum(q.value(env) for q in book.placed) == 6001


def test_a_sum_of_very_many_terms_stays_a_sum_of_a_range_of_parts() -> None:
    # 20,000 terms of 13 characters: about 110 parts, whose sum is one range
    rows = [Quantity(("row", r), P("x")) for r in range(20_000)]
    book = _Workbook({id(q): f"Loops!A{2 * r + 5}" for r, q in enumerate(rows)})
    p = ExcelPrinter(book.cell_of)
    texts = book.all_formulas(p, E.add(*rows))
    assert all(_measures(t)[0] <= 8192 for t in texts)
    assert texts[0] == f"=SUM(Workings!B4:B{len(texts) + 2})"
    # the rows are in the parts of the first level, each once
    rows_in_parts = [cell for text in texts[1:] for cell in text[1:].split("+")
                     if cell.startswith("Loops!")]
    assert len(rows_in_parts) == 20_000 == len(set(rows_in_parts))


def test_deep_nesting_moves_to_cells_of_its_own() -> None:
    # IF(a>1,IF(a>2,...,a),a): 100 levels of functions
    expr: E.Expr = P("a")
    for level in range(100, 0, -1):
        expr = E.if_(E.compare(">", P("a"), level), expr, P("b") * level)
    book = _Workbook({})
    texts = book.all_formulas(ExcelPrinter(book.cell_of), expr)
    assert len(texts) > 1
    assert all(_measures(t)[1] <= 64 for t in texts)
    # the chain of cells computes what the expression does: a = 50 takes the 50th level's
    # otherwise branch, b * 50
    env = E.Env({"a": 50, "b": 3})
    assert expr.evaluate(env) == 150


def test_and_of_many_arguments_is_split_within_255() -> None:
    expr = E.func("AND", *[E.compare(">", P(f"p{i}"), 0) for i in range(600)])
    book = _Workbook({})
    texts = book.all_formulas(ExcelPrinter(book.cell_of), expr)
    assert all(_measures(t)[2] <= 255 for t in texts)
    assert texts[0].startswith("=1*AND(Workings!B4,Workings!B5")


def test_without_cells_for_parts_a_long_formula_prints_whole() -> None:
    # a printer with no workbook behind it cannot split: the workbook's check then names it
    text = printer().formula(E.add(*[P(f"p{i}") for i in range(3000)]))
    assert len(text) > 8192 and text.startswith("=p0+p1+")
