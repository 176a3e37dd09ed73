"""Derived-type components have their declared type: ``a%b%c`` is typed by the definition of
``type :: t ... end type`` read from the file or from a module read in the same run.

An integer component's arithmetic is no flop, and its element is 4 bytes; a ``real(4)``
component's 4 bytes; a kind named by a module constant is resolved when that module is read
(else the component stays a double, as the front end takes any unresolved kind); nested and
inherited components are followed. Both Fortran parsers give one description. Costs are per
word as in ``tests/test_element_bytes.py``: a read is the element's size, a read-and-write
or a write twice it (the line read for ownership, then written back).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sat.cli import main
from sat.frontend import read_sources
from sat.xmlio import program_to_xml

MACHINE = ["--set", "BlockX=0", "--set", "BlockY=0", "--set", "BlockZ=0",
           "--set", "CacheKB=1024", "--set", "StreamingWrites=0", "--set", "NTAHints=0",
           "--set", "ReadCost=8", "--set", "ReadWriteCost=16", "--set", "WriteCost=16",
           "--set", "WordBytes=8", "--set", "LineBytes=64"]

GRID = """\
module grid_m
  implicit none
  type :: grid
    integer :: n
    integer, allocatable :: idx(:)
    real(8), allocatable :: w(:)
  end type grid
contains
  subroutine shift(g, a)
    type(grid), intent(inout) :: g
    real(8), intent(inout) :: a(1000)
    integer :: i
    do i = 1, 1000
      g%idx(i) = g%idx(i) + 2 * g%n
      a(i) = a(i) + g%w(i)
    end do
  end subroutine shift
end module grid_m
"""

PARTICLES = """\
module particles_m
  implicit none
  type, public :: particles
    real(4), allocatable :: x(:)
    real(kind=4), dimension(:) , allocatable :: v
    real(4) :: dt
  end type particles
contains
  subroutine push(p)
    type(particles), intent(inout) :: p
    integer :: i
    do i = 1, 1000
      p%x(i) = p%x(i) + p%dt * p%v(i)
    end do
  end subroutine push
end module particles_m
"""

KINDS = """\
module kinds
  implicit none
  integer, parameter :: sp = selected_real_kind(6), dp = kind(1.0d0)
end module kinds
"""

# the type's kinds come from the module kinds; kinds.f90 may or may not be read beside it
FIELD = """\
module field_m
  use kinds
  implicit none
  type :: field
    real(kind=sp), allocatable :: u(:)
    integer, allocatable :: mask(:)
    complex, allocatable :: z(:)
    complex(kind=dp), allocatable :: zz(:)
    logical, allocatable :: on(:)
  end type field
  type :: mesh
    integer :: n
    type(field) :: f
  end type mesh
  type, extends(mesh) :: refined_mesh
    real(kind=dp), allocatable :: h(:)
  end type refined_mesh
contains
  subroutine smooth(m)
    type(mesh), intent(inout) :: m
    integer :: i
    do i = 1, 1000
      m%f%mask(i) = m%f%mask(i) * 3 + m%n
      m%f%u(i) = 0.5 * m%f%u(i)
    end do
  end subroutine smooth
  subroutine refine(r)
    type(refined_mesh), intent(inout) :: r
    integer :: i
    do i = 1, 1000
      r%h(i) = r%h(i) + r%f%u(i) * r%mesh%f%mask(i)
      r%f%on(i) = r%f%z(i) == r%f%zz(i)
    end do
  end subroutine refine
end module field_m
"""

# what a type definition may also hold: sequence, a deferred-length character, an unlimited
# polymorphic pointer, a procedure pointer, bound procedures; a parameterised type
ODD = """\
module odd_m
  implicit none
  type :: base
    integer :: nb
  end type base
  type, extends(base) :: t
    sequence
    character(len=:), allocatable :: name
    character(len=8) :: label
    integer, dimension(3) :: a, b(2)
    class(*), pointer :: any => null()
    procedure(), pointer, nopass :: fp => null()
  contains
    procedure :: go
  end type t
  type :: pt(k, n)
    integer, kind :: k = 4
    integer, len :: n
    real(k) :: v(n)
  end type pt
contains
  subroutine go(self)
    class(t), intent(inout) :: self
  end subroutine go
  subroutine work(x, p, m)
    type(t), intent(inout) :: x(10)
    type(pt(8, 100)) :: p
    integer :: m, i
    do i = 1, m
      x(i)%a(2) = x(i)%b(1) + x(i)%nb
      p%v(i) = p%v(i) * 2.0
    end do
  end subroutine work
end module odd_m
"""

# arrays of derived types: the element is the whole type, point 16 bytes (x, y), particle
# 40 (id 4 + 4 padding, r(3) 24, m 8: gfortran's storage_size(ps)/8)
POINTS = """\
module points_m
  implicit none
  type :: point
    real(8) :: x, y
  end type point
  type :: particle
    integer :: id
    real(8) :: r(3)
    real(8) :: m
  end type particle
contains
  subroutine norm(pts, d)
    type(point), intent(in) :: pts(1000)
    real(8), intent(out) :: d(1000)
    integer :: i
    do i = 1, 1000
      d(i) = pts(i)%x * pts(i)%x + pts(i)%y * pts(i)%y
    end do
  end subroutine norm
  subroutine shift(pts)
    type(point), intent(inout) :: pts(1000)
    integer :: i
    do i = 1, 1000
      pts(i)%x = pts(i)%x + 1.0d0
    end do
  end subroutine shift
  subroutine weigh(ps, w)
    type(particle), intent(in) :: ps(1000)
    real(8), intent(out) :: w(1000)
    integer :: i
    do i = 1, 1000
      w(i) = ps(i)%m * ps(i)%r(1) + ps(i)%id
    end do
  end subroutine weigh
  subroutine clear(pts)
    type(point), intent(inout) :: pts(1000)
    pts%y = 0.0d0
  end subroutine clear
end module points_m
"""

# whole-array components, sections of them, a reduction over them, associate names of them
FIELDS = """\
module fields_m
  implicit none
  type :: grid
    integer :: n
    real(8) :: u(1000)
    real(4) :: h(1000)
    integer :: idx(1000)
  end type grid
contains
  subroutine zero(g)
    type(grid), intent(inout) :: g
    g%u = 0.0d0
  end subroutine zero
  subroutine total(g, s)
    type(grid), intent(in) :: g
    real(8), intent(out) :: s
    s = sum(g%u * g%h)
  end subroutine total
  subroutine bump(g)
    type(grid), intent(inout) :: g
    g%idx(:) = g%idx(:) + 1
  end subroutine bump
  subroutine scale_alias(g)
    type(grid), intent(inout) :: g
    integer :: i
    associate (u => g%u, h => g%h, idx => g%idx)
      do i = 1, 1000
        u(i) = u(i) * h(i)
        idx(i) = idx(i) + 2
      end do
    end associate
  end subroutine scale_alias
  subroutine scale_direct(g)
    type(grid), intent(inout) :: g
    integer :: i
    do i = 1, 1000
      g%u(i) = g%u(i) * g%h(i)
      g%idx(i) = g%idx(i) + 2
    end do
  end subroutine scale_direct
  subroutine zero_alias(g)
    type(grid), intent(inout) :: g
    associate (h => g%h)
      h = 0.0
    end associate
  end subroutine zero_alias
end module fields_m
"""

# the same arrays of structures in C: point 16 bytes, struct particle 40 (int 4 + 4 padding,
# double r[3] 24, double m 8), as sizeof gives on LP64 systems
C_POINTS = """\
typedef struct { double x, y; } point;
struct particle { int id; double r[3]; double m; };
void norm(point pts[1000], double d[1000]) {
  for (int i = 0; i < 1000; i++)
    d[i] = pts[i].x * pts[i].x + pts[i].y * pts[i].y;
}
void shift(point *pts) {
  for (int i = 0; i < 1000; i++)
    pts[i].x = pts[i].x + 1.0;
}
void weigh(const struct particle *ps, double *w) {
  for (int i = 0; i < 1000; i++)
    w[i] = ps[i].m * ps[i].r[1] + ps[i].id;
}
"""

# a two-dimensional array of types inside a type, a section of an array of types, an
# allocatable component (its data outside the element) and a type whose size is not known
# (m from a module not read)
EDGES = """\
module edge_m
  use sizes_unread
  implicit none
  type :: cell
    real(8) :: rho, e
  end type cell
  type :: mesh
    integer :: n
    type(cell) :: c(100, 100)
  end type mesh
  type :: blk
    real(8), allocatable :: u(:)
  end type blk
  type :: bag
    real(8) :: v(m)
  end type bag
contains
  subroutine heat(g)
    type(mesh), intent(inout) :: g
    integer :: i, j
    do j = 1, 100
      do i = 1, 100
        g%c(i,j)%e = g%c(i,j)%e + g%c(i,j)%rho
      end do
    end do
  end subroutine heat
  subroutine part(cs, n)
    integer :: n
    type(cell), intent(inout) :: cs(n)
    cs(2:n)%rho = cs(1:n-1)%e
  end subroutine part
  subroutine blocks_u(bs, nb)
    integer :: nb, b, i
    type(blk) :: bs(nb)
    do b = 1, nb
      do i = 1, 100
        bs(b)%u(i) = 2.0d0 * bs(b)%u(i)
      end do
    end do
  end subroutine blocks_u
  subroutine bags(x)
    type(bag) :: x(10)
    integer :: i
    do i = 1, 10
      x(i)%v(1) = 0.0d0
    end do
  end subroutine bags
end module edge_m
"""

# an associate name of an element of an array of types, and a whole element copied
ELEMENTS = """\
module ae_m
  implicit none
  type :: point
    real(8) :: x, y
  end type point
contains
  subroutine swap_alias(pts)
    type(point), intent(inout) :: pts(1000)
    integer :: i
    do i = 1, 1000
      associate (p => pts(i))
        p%x = p%x + p%y
      end associate
    end do
  end subroutine swap_alias
  subroutine swap_direct(pts)
    type(point), intent(inout) :: pts(1000)
    integer :: i
    do i = 1, 1000
      pts(i)%x = pts(i)%x + pts(i)%y
    end do
  end subroutine swap_direct
  subroutine copy(pts, qts)
    type(point), intent(inout) :: pts(1000), qts(1000)
    integer :: i
    do i = 1, 1000
      qts(i) = pts(i)
    end do
  end subroutine copy
end module ae_m
"""

# a whole component passed to a procedure among the sources and to an unknown one
CALLS = """\
module cc_m
  implicit none
  type :: grid
    real(8) :: u(1000)
  end type grid
contains
  subroutine work(a)
    real(8), intent(inout) :: a(1000)
    integer :: i
    do i = 1, 1000
      a(i) = a(i) + 1.0d0
    end do
  end subroutine work
  subroutine driver(g)
    type(grid), intent(inout) :: g
    call work(g%u)
    call unknown_thing(g%u)
  end subroutine driver
end module cc_m
"""


def write(tmp_path: Path, **files: str) -> list[str]:
    paths = []
    for stem, text in files.items():
        path = tmp_path / f"{stem}.f90"
        path.write_text(text)
        paths.append(str(path))
    return paths


def run(capsys, paths: list[str]) -> dict:
    assert main([*paths, "--json", "-", "-q", *MACHINE]) == 0
    return json.loads(capsys.readouterr().out)


def loop(data: dict, procedure: str) -> dict:
    [row] = [r for r in data["loops"] if r["procedure"] == procedure]
    return row


def element_bytes(data: dict) -> dict[str, float]:
    return {p["name"]: p["value"] for p in data["parameters"] if p["name"].startswith("Bytes_")}


def test_integer_components_count_no_flops_and_four_bytes(tmp_path, capsys):
    data = run(capsys, write(tmp_path, grid=GRID))
    row = loop(data, "shift")
    # g%idx(i) + 2*g%n: integer arithmetic, no flop; a(i) + g%w(i): 1 add per i
    assert (row["adds"], row["multiplies"]) == (1, 0)
    assert row["gflops"] == pytest.approx(1000 / 1e9)
    assert element_bytes(data)["Bytes_g_idx"] == 4 and element_bytes(data)["Bytes_g_w"] == 8
    # g%idx read and written 2 x 4 B, a read and written 2 x 8 B, g%w read 8 B: 32 B per i
    assert row["levels"][0]["bytes_per_iteration"] == pytest.approx(32)
    # compulsory: 1000 i x 32 B = 32,000 B
    assert row["traffic_blocks_gb"] == pytest.approx(32_000 / 1e9)


def test_real4_components_are_four_bytes(tmp_path, capsys):
    data = run(capsys, write(tmp_path, particles=PARTICLES))
    row = loop(data, "push")
    # p%x(i) + p%dt * p%v(i): 1 add, 1 multiply per i (single precision)
    assert (row["adds"], row["multiplies"]) == (1, 1)
    assert element_bytes(data)["Bytes_p_x"] == 4 and element_bytes(data)["Bytes_p_v"] == 4
    # p%x read and written 2 x 4 B, p%v read 4 B: 12 B per i; 1000 i: 12,000 B
    assert row["levels"][0]["bytes_per_iteration"] == pytest.approx(12)
    assert row["traffic_blocks_gb"] == pytest.approx(12_000 / 1e9)


def test_nested_components_with_a_kind_from_a_module_read_in_the_same_run(tmp_path, capsys):
    data = run(capsys, write(tmp_path, kinds=KINDS, field=FIELD))
    row = loop(data, "smooth")
    # m%f%mask(i)*3 + m%n: integers, no flop; 0.5 * m%f%u(i): 1 multiply per i
    assert (row["adds"], row["multiplies"]) == (0, 1)
    sizes = element_bytes(data)
    # sp = selected_real_kind(6): 4 B; mask an integer: 4 B
    assert sizes["Bytes_m_f_u"] == 4 and sizes["Bytes_m_f_mask"] == 4
    # mask and u each read and written: 2 x 4 + 2 x 4 = 16 B per i; 16,000 B for 1000 i
    assert row["levels"][0]["bytes_per_iteration"] == pytest.approx(16)
    assert row["traffic_blocks_gb"] == pytest.approx(16_000 / 1e9)


def test_extended_type_inherits_its_parents_components(tmp_path, capsys):
    data = run(capsys, write(tmp_path, kinds=KINDS, field=FIELD))
    row = loop(data, "refine")
    # r%h(i) + r%f%u(i) * r%mesh%f%mask(i): 1 add, 1 multiply (real times integer);
    # r%f%z(i) == r%f%zz(i): complex operands, one add per part compared: 2; 3 adds in all
    assert (row["adds"], row["multiplies"]) == (3, 1)
    sizes = element_bytes(data)
    # h real(dp) 8 B, u real(sp) 4 B, mask (through the parent, by its name) 4 B,
    # z default complex 2 x 4 = 8 B, zz complex(dp) 2 x 8 = 16 B, on a logical 4 B
    assert (sizes["Bytes_r_h"], sizes["Bytes_r_f_u"], sizes["Bytes_r_mesh_f_mask"],
            sizes["Bytes_r_f_z"], sizes["Bytes_r_f_zz"], sizes["Bytes_r_f_on"]) == (
        8, 4, 4, 8, 16, 4)
    # h read and written 16 B, u 4, mask 4, z 8, zz 16 read, on written 2 x 4 = 8: 56 B per i
    assert row["levels"][0]["bytes_per_iteration"] == pytest.approx(56)


def test_without_the_kinds_module_an_unresolved_kind_stays_a_double(tmp_path, capsys):
    data = run(capsys, write(tmp_path, field=FIELD))
    sizes = element_bytes(data)
    # sp unknown: u taken as a double (8 B) as any unresolved kind; mask still an integer
    assert sizes["Bytes_m_f_u"] == 8 and sizes["Bytes_m_f_mask"] == 4
    # the one warning is the one of the module not read, as before
    field = str(tmp_path / "field.f90")
    assert [(w["file"], w["line"]) for w in data["warnings"]] == [(field, 2)]
    assert "module 'kinds' is not among the sources" in data["warnings"][0]["message"]


def test_a_type_not_among_the_sources_keeps_components_double(tmp_path, capsys):
    text = ("subroutine s(a)\n  use elsewhere\n  type(unseen) :: a\n  integer :: i\n"
            "  do i = 1, 1000\n    a%x(i) = a%x(i) + a%k(i)\n  end do\nend subroutine s\n")
    data = run(capsys, write(tmp_path, unseen=text))
    row = loop(data, "s")
    # both components taken as doubles: 1 add; x read and written 16 B, k read 8 B
    assert (row["adds"], row["multiplies"]) == (1, 0)
    assert row["levels"][0]["bytes_per_iteration"] == pytest.approx(24)


def test_both_parsers_give_one_description(tmp_path):
    typed = {"grid": '<array name="g%idx" component="" datatype="int"',
             "particles": '<array name="p%v" component="" datatype="float"',
             "field": '<array name="r%f%zz" component="" datatype="double complex"'}
    for files in ({"grid": GRID}, {"particles": PARTICLES}, {"kinds": KINDS, "field": FIELD}):
        paths = write(tmp_path, **files)
        fast = read_sources(paths, processes=1, fortran_parser="tree-sitter")
        slow = read_sources(paths, processes=1, fortran_parser="fparser")
        assert [p.parser for p in fast.parsed_by] == ["tree-sitter"] * len(paths)
        assert program_to_xml(fast) == program_to_xml(slow)
        assert typed[Path(paths[-1]).stem] in program_to_xml(fast)


def test_other_contents_of_a_definition_read_alike(tmp_path):
    paths = write(tmp_path, odd=ODD)
    fast = read_sources(paths, processes=1, fortran_parser="tree-sitter")
    slow = read_sources(paths, processes=1, fortran_parser="fparser")
    assert [p.parser for p in fast.parsed_by] == ["tree-sitter"]
    xml = program_to_xml(fast)
    assert xml == program_to_xml(slow)
    # x(i)%b(1) + x(i)%nb: integer components (nb inherited from base), no flop; the
    # parameterised type's p%v keeps the double of a type not known: 1 multiply per i
    [work] = [p for p in fast.procedures if p.name == "work"]
    assert (work.loops[0].adds, work.loops[0].multiplies) == (0, 1)
    # x is an array of t: its element is the whole derived type, 88 bytes as gfortran lays
    # it out (storage_size(x)/8): the parent base 4 (nb) + 4 padding, name (deferred length:
    # address and length) 16, label 8, a(3) 12, b(2) 8 + 4 padding, class(*) pointer 24,
    # procedure pointer 8: 8 + 16 + 8 + 12 + 12 + 24 + 8 = 88
    assert '<array name="x" component="" datatype="struct*88"' in xml
    assert '<array name="p%v" component="" datatype="double"' in xml


def test_an_element_of_an_array_of_derived_types_is_the_whole_type(tmp_path, capsys):
    data = run(capsys, write(tmp_path, points=POINTS))
    sizes = element_bytes(data)
    assert (sizes["Bytes_pts"], sizes["Bytes_ps"]) == (16, 40)
    norm = loop(data, "norm")
    # x*x + y*y: 1 add, 2 multiplies per i, 3,000 flops
    assert (norm["adds"], norm["multiplies"]) == (1, 2)
    assert norm["gflops"] == pytest.approx(3000 / 1e9)
    # pts(i)%x and pts(i)%y are one element of 16 B read; d(i) written 2 x 8 B: 32 B per i
    assert norm["levels"][0]["bytes_per_iteration"] == pytest.approx(32)
    # compulsory: 1000 x 16 B of pts (each 64-byte line holds 4 points) + 1000 x 16 B of d
    assert norm["traffic_blocks_gb"] == pytest.approx(32_000 / 1e9)


def test_one_component_of_a_small_type_still_moves_every_line(tmp_path, capsys):
    data = run(capsys, write(tmp_path, points=POINTS))
    shift = loop(data, "shift")
    # pts(i)%x + 1: 1 add per i; only x is touched, but with a stride of 16 B every 64-byte
    # line holds four x: the element (16 B) read and written, 2 x 16 = 32 B per i
    assert (shift["adds"], shift["multiplies"]) == (1, 0)
    assert shift["levels"][0]["bytes_per_iteration"] == pytest.approx(32)
    assert shift["traffic_blocks_gb"] == pytest.approx(32_000 / 1e9)


def test_mixed_components_of_an_array_element(tmp_path, capsys):
    data = run(capsys, write(tmp_path, points=POINTS))
    weigh = loop(data, "weigh")
    # ps(i)%m * ps(i)%r(1) + ps(i)%id: 1 multiply, 1 add (real plus integer) per i
    assert (weigh["adds"], weigh["multiplies"]) == (1, 1)
    # the 40-byte particle read, w written 2 x 8: 56 B per i; 1000 i: 56,000 B
    assert weigh["levels"][0]["bytes_per_iteration"] == pytest.approx(56)
    assert weigh["traffic_blocks_gb"] == pytest.approx(56_000 / 1e9)


def test_a_component_of_a_whole_array_of_derived_types_is_an_array_statement(tmp_path, capsys):
    data = run(capsys, write(tmp_path, points=POINTS))
    clear = loop(data, "clear")
    # pts%y = 0: a loop over the 1000 points, each 16-byte element written (2 x 16 B)
    assert clear["levels"][0]["bytes_per_iteration"] == pytest.approx(32)
    assert clear["traffic_blocks_gb"] == pytest.approx(32_000 / 1e9)


def test_whole_array_components_are_whole_array_statements(tmp_path, capsys):
    data = run(capsys, write(tmp_path, fields=FIELDS))
    # g%u = 0: 1000 doubles written, 2 x 8 = 16 B each, no flop: 16,000 B
    zero = loop(data, "zero")
    assert zero["gflops"] == 0
    assert zero["levels"][0]["bytes_per_iteration"] == pytest.approx(16)
    assert zero["traffic_blocks_gb"] == pytest.approx(16_000 / 1e9)
    # sum(g%u * g%h): 1 multiply and 1 add per element, 2,000 flops; u 8 B and the real(4)
    # h 4 B read: 12 B per element, 12,000 B
    total = loop(data, "total")
    assert (total["adds"], total["multiplies"]) == (1, 1)
    assert total["gflops"] == pytest.approx(2000 / 1e9)
    assert total["levels"][0]["bytes_per_iteration"] == pytest.approx(12)
    assert total["traffic_blocks_gb"] == pytest.approx(12_000 / 1e9)
    # g%idx(:) = g%idx(:) + 1: integers, no flop; read and written 2 x 4 = 8 B each
    bump = loop(data, "bump")
    assert bump["gflops"] == 0
    assert bump["levels"][0]["bytes_per_iteration"] == pytest.approx(8)


def test_associate_names_carry_the_components_type_kind_and_shape(tmp_path, capsys):
    data = run(capsys, write(tmp_path, fields=FIELDS))
    alias, direct = loop(data, "scale_alias"), loop(data, "scale_direct")
    # u(i) * h(i): 1 multiply (idx(i) + 2 is integer: none); u read and written 2 x 8, h
    # (real(4)) read 4, idx (integer) read and written 2 x 4: 28 B per i, 28,000 B
    assert (alias["adds"], alias["multiplies"]) == (0, 1)
    assert alias["levels"][0]["bytes_per_iteration"] == pytest.approx(28)
    assert alias["traffic_blocks_gb"] == pytest.approx(28_000 / 1e9)
    for key in ("adds", "multiplies", "gflops", "traffic_blocks_gb"):
        assert alias[key] == direct[key]
    # h = 0 through the name: 1000 real(4) written, 2 x 4 = 8 B each
    zero = loop(data, "zero_alias")
    assert zero["levels"][0]["bytes_per_iteration"] == pytest.approx(8)
    assert zero["traffic_blocks_gb"] == pytest.approx(8_000 / 1e9)


def test_both_parsers_read_arrays_of_types_components_and_associate_alike(tmp_path):
    for files in ({"points": POINTS}, {"fields": FIELDS}):
        paths = write(tmp_path, **files)
        fast = read_sources(paths, processes=1, fortran_parser="tree-sitter")
        slow = read_sources(paths, processes=1, fortran_parser="fparser")
        assert [p.parser for p in fast.parsed_by] == ["tree-sitter"]
        assert program_to_xml(fast) == program_to_xml(slow)
    xml = program_to_xml(fast)
    # the alias's accesses are to the component itself, not to a call of 'u'
    assert '<functioncall name="u"' not in xml and xml.count('<array name="g%u"') >= 3


def test_c_arrays_of_structures_are_read_as_fortran_arrays_of_types(tmp_path, capsys):
    path = tmp_path / "points.c"
    path.write_text(C_POINTS)
    data = run(capsys, [str(path)])
    sizes = element_bytes(data)
    assert (sizes["Bytes_pts"], sizes["Bytes_ps"]) == (16, 40)
    norm, shift, weigh = (loop(data, name) for name in ("norm", "shift", "weigh"))
    # pts[i].x*pts[i].x + pts[i].y*pts[i].y: 1 add, 2 multiplies; one 16-byte element read,
    # d written 2 x 8: 32 B per i, 32,000 B for 1000 i
    assert (norm["adds"], norm["multiplies"]) == (1, 2)
    assert norm["levels"][0]["bytes_per_iteration"] == pytest.approx(32)
    assert norm["traffic_blocks_gb"] == pytest.approx(32_000 / 1e9)
    # pts[i].x + 1.0 through a pointer: the element read and written, 2 x 16 = 32 B per i
    assert shift["levels"][0]["bytes_per_iteration"] == pytest.approx(32)
    # ps[i].m * ps[i].r[1] + ps[i].id: 1 multiply, 1 add; 40 B read + 16 B written per i
    assert (weigh["adds"], weigh["multiplies"]) == (1, 1)
    assert weigh["levels"][0]["bytes_per_iteration"] == pytest.approx(56)
    assert weigh["traffic_blocks_gb"] == pytest.approx(56_000 / 1e9)


def test_arrays_of_types_inside_types_sections_and_what_stays_as_before(tmp_path, capsys):
    paths = write(tmp_path, edge=EDGES)
    fast = read_sources(paths, processes=1, fortran_parser="tree-sitter")
    xml = program_to_xml(fast)
    assert xml == program_to_xml(read_sources(paths, processes=1, fortran_parser="fparser"))
    # mesh: n 4 B + 4 B padding + c(100,100) of 16-byte cells: 8 + 160,000 = 160,008 B
    assert '<nonlocal name="g" datatype="struct*160008"' in xml
    # bs(b)%u(i): u is allocatable, its data are not in the element: the array bs%u
    assert '<array name="bs%u" component="" datatype="double"' in xml
    # bag's size depends on m, not known: x(i)%v(1) is the component array x%v as before
    assert '<array name="x%v" component="" datatype="double"' in xml
    data = run(capsys, [*paths, "--set", "n=1001"])
    heat, part = loop(data, "heat"), loop(data, "part")
    # g%c(i,j)%e + g%c(i,j)%rho: 1 add; the 16-byte cell read and written, 2 x 16 = 32 B per
    # (i,j); 100 x 100 cells: 320,000 B
    assert heat["gflops"] == pytest.approx(10_000 / 1e9)
    assert heat["levels"][0]["bytes_per_iteration"] == pytest.approx(32)
    assert heat["traffic_blocks_gb"] == pytest.approx(320_000 / 1e9)
    # cs(2:n)%rho = cs(1:n-1)%e over 1000 elements: cs read at -1 and written at 0, one
    # array of 16-byte cells: 1001 cells read and written, 1001 x 2 x 16 = 32,032 B
    assert part["traffic_blocks_gb"] == pytest.approx(32_032 / 1e9)


def test_an_associate_name_of_an_element_is_that_element(tmp_path, capsys):
    paths = write(tmp_path, elements=ELEMENTS)
    xml = program_to_xml(read_sources(paths, processes=1, fortran_parser="tree-sitter"))
    assert xml == program_to_xml(read_sources(paths, processes=1, fortran_parser="fparser"))
    data = run(capsys, paths)
    alias, direct, copy = (loop(data, name) for name in ("swap_alias", "swap_direct", "copy"))
    # p%x = p%x + p%y with p => pts(i): 1 add; the 16-byte element read and written, 32 B
    assert alias["adds"] == 1
    assert alias["levels"][0]["bytes_per_iteration"] == pytest.approx(32)
    for key in ("adds", "gflops", "traffic_blocks_gb"):
        assert alias[key] == direct[key]
    # qts(i) = pts(i): the whole 16-byte element read (16 B) and written (2 x 16 B): 48 B
    assert copy["gflops"] == 0
    assert copy["levels"][0]["bytes_per_iteration"] == pytest.approx(48)
    assert copy["traffic_blocks_gb"] == pytest.approx(48_000 / 1e9)


def test_a_whole_component_passed_to_a_procedure_is_an_array_argument(tmp_path):
    paths = write(tmp_path, calls=CALLS)
    program = read_sources(paths, processes=1, fortran_parser="tree-sitter")
    assert program_to_xml(program) == program_to_xml(
        read_sources(paths, processes=1, fortran_parser="fparser"))
    [driver] = [p for p in program.procedures if p.name == "driver"]
    # work(g%u): the callee's own loop counts what it does with it, nothing here; the
    # unknown procedure's argument is assumed read and written, once, as a whole array
    [array] = driver.arrays
    assert (array.name, array.datatype, array.reads, array.writes) == ("g%u", "double", 1, 1)
    assert array.accesses[0].offsets == (":",)
