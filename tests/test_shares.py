"""Reading a big Fortran program in several processes gives exactly the result of one read."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

import sat.frontend.fortran.shares as shares
from sat.cli import main
from sat.frontend.fortran import read_fortran
from sat.xmlio import program_to_xml

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "bench"))
from generate_fortran import generate_module  # noqa: E402

TRICKY = """\
module m
  implicit none
  integer, parameter :: n = 3
  type :: point
    real :: x
  contains
    procedure :: norm
  end type point
  interface norms
    module procedure norm
  end interface
contains
  pure real(8) function norm(a, b) result(r)
    real(8), intent(in) :: a; real(8) :: b
    r = a + b
    r = r * 2
  end function norm
  subroutine packed(x)
    real :: x(:)
    integer :: i; x(1) = 0.0
    x(2) = 1.0
  end subroutine
  subroutine host(x)
    real :: x(:)
    x = 1.0
  contains
    subroutine inner()
    end subroutine
  end subroutine host
  subroutine plain(x)
    real :: x(:)
    integer :: i
    interface
      subroutine ext(y)
        real :: y
      end subroutine
    end interface
    outer: do i = 1, 3
      x(i) = 1.0 &
        + 2.0
    end do outer
  end
end module
"""


def test_the_bodies_that_can_be_blanked(tmp_path):
    path = tmp_path / "m.f90"
    path.write_text(TRICKY)
    bodies = shares.find_bodies(str(path))
    # norm: lines 15-16 (its declarations share line 14, the body starts on a line of its
    # own); packed: its first statement shares line 20 with a declaration, so it stays;
    # host has an internal procedure, so it stays; plain: the do loop, lines 38-41 (the
    # interface block belongs to its declarations)
    assert [(b.header, b.first, b.last) for b in bodies] == [(13, 15, 16), (30, 38, 41)]


def _dump(program) -> tuple[str, list[tuple[str, str, int]]]:
    return (program_to_xml(program),
            [(w.message, w.file, w.line) for w in program.warnings])


@pytest.fixture
def always_share(monkeypatch):
    """Share out even small programs, among two processes."""
    monkeypatch.setattr(shares, "MIN_SHARED_LINES", 0)
    monkeypatch.setattr(shares, "WORKER_START_LINES", 0)


def test_a_read_in_shares_equals_one_read(tmp_path, always_share):
    path = tmp_path / "gen.f90"
    path.write_text(generate_module(40, seed=3))
    plan = shares.plan([str(path)], [], 2)
    assert plan is not None and len(plan) == 2 and all(share.owned for share in plan)
    one, parsed_one = read_fortran([str(path)], processes=1, parser="fparser")
    shared, parsed_shared = read_fortran([str(path)], processes=2, parser="fparser")
    assert parsed_shared == parsed_one == 1
    assert len(one.procedures) == 4
    assert _dump(shared) == _dump(one)


def test_a_read_in_shares_keeps_warnings_in_source_order(tmp_path, always_share):
    path = tmp_path / "m.f90"
    path.write_text(TRICKY.replace("x(i) = 1.0", "x(i) = mystery(1.0)"))
    one, _ = read_fortran([str(path)], processes=1, parser="fparser")
    shared, _ = read_fortran([str(path)], processes=3, parser="fparser")
    assert any("mystery" in w.message for w in one.warnings)
    assert _dump(shared) == _dump(one)


def test_a_syntax_error_in_a_share_is_reported_as_by_one_read(tmp_path, always_share):
    path = tmp_path / "gen.f90"
    text = generate_module(20, seed=1).splitlines()
    body = shares.find_bodies
    path.write_text("\n".join(text) + "\n")
    last = body(str(path))[-1]
    text[last.first] = "    x = = 1"  # inside a body only one share parses
    path.write_text("\n".join(text) + "\n")
    one, parsed_one = read_fortran([str(path)], processes=1, parser="fparser")
    shared, parsed_shared = read_fortran([str(path)], processes=2, parser="fparser")
    assert parsed_one == parsed_shared == 0
    assert _dump(shared) == _dump(one)
    assert "syntax error" in one.warnings[0].message


def test_jobs_must_be_a_positive_number(capsys):
    with pytest.raises(SystemExit) as exit_info:
        main(["examples/lap.f90", "-j", "0"])
    assert exit_info.value.code == 2
    assert "expected a number of processes (1 or more), got '0'" in capsys.readouterr().err
