"""Programs whose nests are of different kinds: every table's totals read each column over the
rows that carry it, whatever kind of nest comes first."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sat.cli import main

MODULE = """module m
  integer, parameter :: n = 1000
  real(8) :: a(n,n), b(n), c(n), d(n), e(n)
  integer :: idx(n)
contains
  subroutine scale(x)
    real(8) :: x
    x = 2.d0 * x
  end subroutine
end module
"""

# One nest of each kind a Loops row can be: its own columns differ (WS/sweep and Strided
# only for the sweep nest; the gather has a Gathers row, the call a Calls row, the two
# adjacent loops over b and c a fusion toggle).
KINDS = {
    "sweep": """  do i = 1, n
    do j = 1, n
      c(i) = c(i) + a(i,j) * b(j)
    end do
  end do
""",
    "ordered": """  do j = 1, n
    do i = 1, n
      a(i,j) = a(i,j) + 1.d0
    end do
  end do
""",
    "gather": """  do i = 1, n
    d(i) = b(idx(i))
  end do
""",
    "call": """  do i = 1, n
    call scale(e(i))
  end do
""",
    "fusable": """  do i = 1, n
    b(i) = b(i) + 1.d0
  end do
  do i = 1, n
    e(i) = e(i) + 1.d0
  end do
""",
}


def program(order: list[str]) -> str:
    body = "".join(KINDS[kind] for kind in order)
    return f"{MODULE}subroutine kinds()\n  use m\n  integer :: i, j\n{body}end subroutine\n"


def rotations() -> list[list[str]]:
    names = list(KINDS)
    return [names[k:] + names[:k] for k in range(len(names))]


@pytest.mark.parametrize("fuse", ["none", "all"])
@pytest.mark.parametrize("order", rotations(), ids=lambda order: order[0] + "-first")
def test_every_kind_of_row_first_or_later(tmp_path: Path, capsys, order, fuse):
    source = tmp_path / "kinds.f90"
    source.write_text(program(order))
    out = tmp_path / "out.json"
    status = main([str(source), "-q", "--json", str(out), "-m", "xeon-8480plus",
                   "--accelerator", "h100-pcie", "--fuse", fuse])
    assert status == 0, capsys.readouterr().err
    data = json.loads(out.read_text())
    rows, totals = data["loops"], data["totals"]
    assert len(rows) == 6
    swept = [r for r in rows if r.get("ws_sweep_kb") is not None]
    assert len(swept) == 1  # the sweep nest alone has a WS/sweep, wherever it stands
    # the total of a column only some rows carry is over those rows: here the one row's
    assert totals["ws_sweep_kb"] == pytest.approx(swept[0]["ws_sweep_kb"])
    assert totals["traffic_strided_gb"] == pytest.approx(swept[0]["traffic_strided_gb"])
    if fuse == "none":  # without the toggle on, the total is the rows' sum
        assert totals["traffic_gb"] == pytest.approx(sum(r["traffic_gb"] for r in rows))
        assert totals["gflops"] == pytest.approx(sum(r["gflops"] for r in rows))
    assert {"gathers", "offload", "fusion"} <= set(data)


def test_the_workbook_of_a_mixed_program(tmp_path: Path, capsys):
    """The workbook's Loops totals row has a WS/sweep cell with the sweep nest not first."""
    from openpyxl import load_workbook
    from openpyxl.utils import get_column_letter

    source = tmp_path / "kinds.f90"
    source.write_text(program(["ordered", "gather", "sweep", "call", "fusable"]))
    book = tmp_path / "out.xlsx"
    assert main([str(source), "-q", "-o", str(book), "-m", "xeon-8480plus"]) == 0, \
        capsys.readouterr().err
    rows = list(load_workbook(book)["Loops"].iter_rows(values_only=True))
    header = next(r for r in rows if "Procedure" in r)
    col = header.index("WS/sweep (KiB)")
    totals = next(r for r in rows if r[0] == "Total/Max")
    body = rows[rows.index(header) + 1:rows.index(totals)]
    assert [r[col] is not None for r in body] == [False, False, True, False, False, False]
    # the maximum of the one row carrying it: that row's cell (sheet row = its index + 1)
    sweep_row = rows.index(body[2]) + 1
    assert totals[col] == f"={get_column_letter(col + 1)}{sweep_row}"
