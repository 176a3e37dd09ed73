"""Complex data: flops of complex arithmetic and the bytes a complex element moves, by hand.

With z = a + bi and w = c + di (the rules of sat/frontend/intrinsics.py):
z ± w 2 adds; z ± x 1 add; z * w 4 multiplies + 2 adds; z * x 2 multiplies;
z / w 6 multiplies + 3 adds + 2 divides; z / x 2 divides; x / w 4 multiplies + 1 add +
2 divides; z**n n-1 complex multiplies; abs(z) 2 multiplies + 1 add + 1 special.
A double-precision complex element is two words (2*WordBytes = 16 bytes).
"""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import openpyxl
import pytest

from sat import ir
from sat.cli import main
from sat.frontend import intrinsics, read_sources
from sat.model.build import build_model
from sat.parameter import Parameter, ParameterSet

# (adds, multiplies, divides, specials)
COMPLEX_MUL = (2, 4, 0, 0)


def flops(body: ir.Body) -> tuple[int, int, int, int]:
    return body.adds, body.multiplies, body.divides, body.specials


def write(tmp_path: Path, name: str, code: str) -> str:
    path = tmp_path / name
    path.write_text(textwrap.dedent(code))
    return str(path)


def analyse(tmp_path: Path, name: str, code: str) -> ir.Program:
    return read_sources([write(tmp_path, name, code)])


def cli_json(capsys, *argv: str) -> dict:
    status = main([*argv, "--json", "-", "-q"])
    out, err = capsys.readouterr()
    assert status == 0, err
    return json.loads(out)


# ---------------------------------------------------------------- the rules themselves


def test_operator_rules():
    assert intrinsics.arithmetic("+", "complex", "complex") == (2, 0, 0, 0)
    assert intrinsics.arithmetic("-", "real", "complex") == (1, 0, 0, 0)
    assert intrinsics.arithmetic("+", "complex", "int") == (1, 0, 0, 0)
    assert intrinsics.arithmetic("*", "complex", "complex") == COMPLEX_MUL
    assert intrinsics.arithmetic("*", "real", "complex") == (0, 2, 0, 0)
    # (ac + bd, bc - ad) / (c² + d²): ac bd bc ad c² d², two adds and c² + d², two divides
    assert intrinsics.arithmetic("/", "complex", "complex") == (3, 6, 2, 0)
    assert intrinsics.arithmetic("/", "complex", "real") == (0, 0, 2, 0)  # a/x, b/x
    # x / w = (xc - xd i) / (c² + d²): xc xd c² d², one add, two divides
    assert intrinsics.arithmetic("/", "real", "complex") == (1, 4, 2, 0)
    assert intrinsics.arithmetic("*", "real", "real") == (0, 1, 0, 0)
    assert intrinsics.arithmetic("*", "int", "int") == (0, 0, 0, 0)
    assert intrinsics.comparison("complex", "complex") == (2, 0, 0, 0)
    assert intrinsics.comparison("real", "int") == (1, 0, 0, 0)
    with pytest.raises(ValueError):
        intrinsics.arithmetic("%", "real", "real")


def test_power_rules():
    assert intrinsics.power("complex", "int", 2) == COMPLEX_MUL
    assert intrinsics.power("complex", "int", 4) == (6, 12, 0, 0)  # 3 complex multiplies
    assert intrinsics.power("complex", "int", 1) == (0, 0, 0, 0)
    assert intrinsics.power("complex", "real", 3.0) == (4, 8, 0, 0)  # integral real literal
    # z**(-2): one complex multiply, then 1/w = (c - di)/(c² + d²): 2 mul, 1 add, 2 div
    assert intrinsics.power("complex", "int", -2) == (3, 6, 2, 0)
    # z**0.5 = exp(0.5*log(z)): log (1 add, 3 mul, 2 special) + real * complex (2 mul)
    # + exp (2 mul, 3 special)
    assert intrinsics.power("complex", "real", 0.5) == (1, 7, 0, 5)
    # x**w = exp(w*log(x)): real log (1 special) + complex * real (2 mul) + exp (2 mul, 3 sp.)
    assert intrinsics.power("real", "complex", None) == (0, 4, 0, 4)
    # z**w: log + complex * complex + exp
    assert intrinsics.power("complex", "complex", None) == (3, 9, 0, 5)
    # the real rules are unchanged
    assert intrinsics.power("real", "int", 3) == (0, 2, 0, 0)
    assert intrinsics.power("real", "int", -3) == (0, 2, 1, 0)
    assert intrinsics.power("real", "real", 0.5) == (0, 0, 0, 1)


def test_intrinsic_rules():
    def cost(name: str) -> tuple:
        entry = intrinsics.lookup(name, complex_arg=True)
        return intrinsics.flops(entry, 1), entry.result

    assert cost("abs") == ((1, 2, 0, 1), "real")  # sqrt(a² + b²)
    assert cost("cdabs") == ((1, 2, 0, 1), "real")
    assert cost("conjg")[0] == (0, 0, 0, 0)
    assert cost("dconjg")[0] == (0, 0, 0, 0)
    assert cost("exp") == ((0, 2, 0, 3), "complex")  # e^a (cos b + i sin b)
    assert cost("log") == ((1, 3, 0, 2), "complex")  # log(a² + b²)/2 + i atan2(b, a)
    assert cost("sqrt") == ((2, 4, 1, 2), "complex")
    assert cost("sin") == ((0, 2, 0, 4), "complex")  # sin a cosh b + i cos a sinh b
    assert cost("atan") == ((0, 0, 0, 2), "complex")  # any other special: one per part
    assert intrinsics.lookup("cmplx").result == "complex"
    assert intrinsics.lookup("aimag").result == "real"
    assert intrinsics.cost("creal", 1, complex_arg=True) == (0, 0, 0, 0)


# ---------------------------------------------------------------- Fortran


FORTRAN_KERNELS = """\
    subroutine kernels(n, z, w, x, y, s)
      implicit none
      integer, intent(in) :: n
      complex(8), intent(inout) :: z(n)
      double complex, intent(in) :: w(n)
      real(8), intent(inout) :: x(n), y(n)
      complex*16, intent(in) :: s
      integer :: i
      do i = 1, n
        z(i) = s * w(i) + x(i) * z(i)
      end do
      do i = 1, n
        z(i) = z(i) / w(i) + x(i) / w(i) + z(i) / x(i)
      end do
      do i = 1, n
        z(i) = z(i)**3 + w(i)**(-2)
      end do
      do i = 1, n
        x(i) = abs(z(i)) + real(w(i)) * aimag(w(i))
      end do
      do i = 1, n
        z(i) = conjg(z(i)) + dcmplx(x(i), y(i)) + cmplx(x(i), 0.0d0, kind=8)
      end do
      do i = 1, n
        z(i) = exp(z(i)) + log(w(i)) + sqrt(z(i))
      end do
      do i = 1, n
        z(i) = (x(i) + y(i)) * w(i) + 2 * z(i) - 1.0d0
      end do
      do i = 1, n
        if (z(i) == w(i)) x(i) = y(i)
      end do
      do i = 1, n
        z(i) = z(i) * (1.0d0, 2.0d0) + x(i) * y(i) * w(i)
      end do
    end subroutine
    """


def test_fortran_flops_per_loop(tmp_path):
    program = analyse(tmp_path, "kernels.f90", FORTRAN_KERNELS)
    loops = program.procedures[0].loops
    expected = [
        # s*w: 4 mul 2 add; x*z: 2 mul; complex + complex: 2 add
        (4, 6, 0, 0),
        # z/w: 3 add 6 mul 2 div; x/w: 1 add 4 mul 2 div; z/x: 2 div; two complex adds: 4 add
        (3 + 1 + 4, 6 + 4, 2 + 2 + 2, 0),
        # z**3: 2 complex multiplies (4 add 8 mul); w**(-2): 1 complex multiply (2 add 4 mul)
        # and the reciprocal (1 add 2 mul 2 div); complex add: 2 add
        (4 + 3 + 2, 8 + 6, 2, 0),
        # abs(z): 2 mul 1 add 1 special; real(w)*aimag(w): 1 real mul; real add: 1 add
        (1 + 1, 2 + 1, 0, 1),
        # conjg, dcmplx, cmplx are free; two complex adds: 4 adds
        (4, 0, 0, 0),
        # exp: 2 mul 3 sp; log: 1 add 3 mul 2 sp; sqrt: 2 add 4 mul 1 div 2 sp; 2 complex adds
        (1 + 2 + 4, 2 + 3 + 4, 1, 3 + 2 + 2),
        # (x + y): 1 add; real * complex: 2 mul; 2 * z (integer * complex): 2 mul;
        # complex + complex: 2 add; complex - real: 1 add
        (1 + 2 + 1, 2 + 2, 0, 0),
        # z == w compares both parts: 2 adds (the assignment is a branch arm: no flops)
        (2, 0, 0, 0),
        # z * (1, 2): complex multiply; x*y: 1 mul; * w: 2 mul; complex + complex: 2 add
        (2 + 2, 4 + 1 + 2, 0, 0),
    ]
    assert [flops(loop) for loop in loops] == expected
    assert not program.warnings


def test_fortran_complex_datatypes(tmp_path):
    program = analyse(tmp_path, "kinds.f90", """\
        module precision
          integer, parameter :: dp = kind(1.0d0), sp = kind(1.0)
        end module
        subroutine kinds(n, a, b, c, d, e, f, g, h, p, q)
          use precision
          use iso_c_binding, only: c_double_complex
          implicit none
          integer, intent(in) :: n
          complex(8) :: a(n)
          complex(kind=8) :: b(n)
          complex*16 :: c(n)
          double complex :: d(n)
          complex(dp) :: e(n)
          complex(c_double_complex) :: f(n)
          complex :: g(n)
          complex(4) :: h(n)
          complex*8 :: p(n)
          complex(sp) :: q(n)
          integer :: i
          do i = 1, n
            a(i) = b(i) + c(i) + d(i) + e(i) + f(i) + g(i) + h(i) + p(i) + q(i)
          end do
        end subroutine
        """)
    loop = program.procedure("kinds").loops[0]
    types = {array.name: array.datatype for array in loop.arrays}
    assert types == {**dict.fromkeys("abcdef", "double complex"),
                     **dict.fromkeys("ghpq", "complex")}
    assert {name: ir.element_words(t) for name, t in types.items()} == {
        **dict.fromkeys("abcdef", 2), **dict.fromkeys("ghpq", 1)}
    assert flops(loop) == (16, 0, 0, 0)  # 8 complex adds


def test_fortran_complex_odd_input_does_not_crash(tmp_path):
    # an unknown kind (taken as double), a complex exponent, a complex statement function,
    # a complex associate name, a declared vendor intrinsic and a reduction of complex data
    program = analyse(tmp_path, "odd.f90", """\
        subroutine odd(n, z, w, wp)
          use unknown_kinds
          integer :: n, i
          complex(kind=wp) :: z(n)
          complex(8) :: w(n), sq, t
          double complex :: dcmplx
          sq(t) = t * t
          do i = 1, n
            z(i) = z(i)**w(i) + sq(w(i)) - dcmplx(1.0d0, 2.0d0) * z(i)
            associate (u => z(i) + w(i))
              w(i) = u * 0.5d0
            end associate
          end do
          z(1) = sum(z)
        end subroutine
        """)
    loop = program.procedure("odd").loops[0]
    assert {a.name: a.datatype for a in loop.arrays}["z"] == "double complex"
    # z**w: (3, 9, 0, 5); sq(w): a complex multiply (2, 4); dcmplx(...) * z: a complex
    # multiply; two complex adds: 4 adds; the associate expression: 2 adds;
    # u * 0.5d0: 2 multiplies
    assert flops(loop) == (3 + 2 + 2 + 4 + 2, 9 + 4 + 4 + 2, 0, 5)
    assert any("sum" in str(w) for w in program.warnings)
    assert not any("dcmplx" in str(w) for w in program.warnings)


# ---------------------------------------------------------------- C


C_KERNELS = """\
    #include <complex.h>
    void kernels(int n, double complex *a, const double complex *b, double *x,
                 float complex *f, double complex s) {
      for (int i = 0; i < n; i++)
        a[i] = s * b[i] + x[i] * a[i];
      for (int i = 0; i < n; i++)
        x[i] = cabs(b[i]) + creal(b[i]) * cimag(b[i]);
      for (int i = 0; i < n; i++)
        a[i] /= b[i];
      for (int i = 0; i < n; i++)
        a[i] = cpow(b[i], 2) + I * x[i] + conj(f[i]);
      for (int i = 0; i < n; i++)
        a[i] = cexp(b[i]) - csqrt(a[i]);
    }
    """


def test_c_flops_per_loop(tmp_path):
    program = analyse(tmp_path, "kernels.c", C_KERNELS)
    loops = program.procedures[0].loops
    assert [flops(loop) for loop in loops] == [
        (4, 6, 0, 0),  # as the first Fortran loop
        # cabs: 1 add 2 mul 1 special; creal*cimag: 1 mul; real add: 1 add
        (2, 3, 0, 1),
        (3, 6, 2, 0),  # a /= b: a complex division
        # cpow(b, 2): a complex multiply; I * x: complex * real, 2 mul; conj free;
        # two complex adds: 4 adds
        (2 + 4, 4 + 2, 0, 0),
        # cexp: 2 mul 3 sp; csqrt: 2 add 4 mul 1 div 2 sp; complex subtract: 2 adds
        (2 + 2, 2 + 4, 1, 5),
    ]
    types = {array.name: array.datatype for loop in loops for array in loop.arrays}
    assert types == {"a": "double complex", "b": "double complex", "x": "double",
                     "f": "complex"}
    assert not [w for w in program.warnings if "complex" in str(w) or "cabs" in str(w)]


# ---------------------------------------------------------------- the model

SMOOTH = """\
    subroutine zsmooth(lo, hi, a, b)
      implicit none
      integer, intent(in) :: lo(3), hi(3)
      {kind}, intent(in) :: a(lo(1)-1:hi(1)+1, lo(2):hi(2), lo(3):hi(3))
      {kind}, intent(out) :: b(lo(1):hi(1), lo(2):hi(2), lo(3):hi(3))
      integer :: i, j, k
      do k = lo(3), hi(3)
        do j = lo(2), hi(2)
          do i = lo(1), hi(1)
            b(i,j,k) = 0.5d0 * (a(i-1,j,k) + a(i+1,j,k))
          end do
        end do
      end do
    end subroutine
    """
MACHINE = ["--set", "BlockX=0", "--set", "BlockY=0", "--set", "BlockZ=0",
           "--set", "CacheKB=1024", "--set", "StreamingWrites=0", "--set", "NTAHints=0",
           "--set", "ReadCost=8", "--set", "ReadWriteCost=16", "--set", "WriteCost=16",
           "--set", "WordBytes=8", "--set", "LineBytes=64"]
SETTINGS = ["--set", "hi(1)=16", "--set", "hi(2)=16", "--set", "hi(3)=16", *MACHINE]

# A 16^3 grid, one block (blocks off). a is read at x-1 and x+1, b written at x.
# complex(8): 16 B per element, 4 elements per 64-byte line.
#   a: rows of X + 2 = 18 elements -> CEILING(18, 4) = 20 per row; block footprint
#      20 * 16 * 16 = 5120 elements; traffic 2 * ReadCost = 16 B each: 81,920 B
#   b: rows of 16 (whole lines); 4096 elements * 2 * WriteCost = 32 B: 131,072 B
#   reuse between planes: 212,992 B; no reuse: a 2 cells * 16 B * 4096 + b 131,072
#      = 262,144 B; between blocks: every element once, a's halo too: a 18 * 16 * 16 =
#      4608 elements * 16 B = 73,728 + b 131,072 = 204,800 B
#   working set per plane: a 1 plane * 20 * 16 * 16 B = 5 KiB, b 16 * 16 * 16 B = 4 KiB
#   per cell: (2 + 1) * 16 B = 48 B = 0.046875 KiB
# real(8): 8 B, 8 per line: a 24 * 256 * 8 B = 49,152, b 4096 * 16 B = 65,536: 114,688 B;
#   between blocks a 4608 * 8 B = 36,864 + b 65,536 = 102,400 B
# flops: a + a: 2 adds; 0.5d0 * (complex): 2 multiplies -> 4 per cell * 4096 = 16,384


@pytest.mark.parametrize("kind, traffic, blocks_b, none_b, plane_kb, cell_kb, adds, muls", [
    ("complex(8)", 212_992, 204_800, 262_144, 9, 48 / 1024, 2, 2),
    ("real(8)", 114_688, 102_400, 131_072, 5, 24 / 1024, 1, 1),
    # single precision complex: 8 bytes, one word, the numbers of real(8)
    ("complex(4)", 114_688, 102_400, 131_072, 5, 24 / 1024, 2, 2),
])
def test_smooth_traffic_and_working_sets(capsys, tmp_path, kind, traffic, blocks_b, none_b,
                                        plane_kb, cell_kb, adds, muls):
    source = write(tmp_path, "zsmooth.f90", SMOOTH.format(kind=kind))
    data = cli_json(capsys, source, *SETTINGS)
    loop = data["loops"][0]
    assert (loop["adds"], loop["multiplies"]) == (adds, muls)
    assert loop["gflops"] == pytest.approx((adds + muls) * 4096 / 1e9)
    assert loop["reuse"] == 1
    assert loop["traffic_gb"] * 1e9 == pytest.approx(traffic)
    assert loop["traffic_planes_gb"] * 1e9 == pytest.approx(traffic)
    assert loop["traffic_blocks_gb"] * 1e9 == pytest.approx(blocks_b)
    assert loop["traffic_none_gb"] * 1e9 == pytest.approx(none_b)
    assert loop["ws_naive_plane_kb"] == pytest.approx(plane_kb)
    assert loop["ws_naive_cell_kb"] == pytest.approx(cell_kb)


def smooth_model(tmp_path: Path, kind: str = "complex(8)"):
    program = analyse(tmp_path, "zsmooth.f90", SMOOTH.format(kind=kind))
    params = ParameterSet()
    for name, value in dict(Cores=1, GBsPerCore=1, GflopsPerCore=10, IntRegs=16, FPRegs=16,
                            CacheKB=1024, WordBytes=8, LineBytes=64, ReadCost=8,
                            ReadWriteCost=16, WriteCost=16, DivCost=39, SpecialCost=125,
                            StreamingWrites=0, NTAHints=0, NICGBs=100, NICLatencyUs=0.4,
                            Overlap=1, BlockX=0, BlockY=0, BlockZ=0).items():
        params.add(Parameter(name, value))
    for k in (1, 2, 3):
        params.symbol_values[f"lo({k})"] = (1, "test")
        params.symbol_values[f"hi({k})"] = (16, "test")
    return program, params


def test_smooth_footprint_communication_and_alternative_blocking(tmp_path):
    program, params = smooth_model(tmp_path)
    result = build_model(program, params)
    env = result.env()
    # declared shapes: a 18 * 16 * 16 = 4608 cells, b 4096; 16 B each: 139,264 B
    assert result.totals["Footprint_GiB"].value(env) * 2**30 == pytest.approx(139_264)
    # ghost cells of a: 2 faces * depth 1 * 16 * 16 = 512 cells * 16 B = 8192 B
    comm = result.tables["Communication"]
    assert [row["array"] for row in comm.rows] == ["a"]
    assert comm.rows[0]["volume_mb"].value(env) * 1e6 == pytest.approx(8192)
    # all loops per block, one block: a (16 + 2) * 16 * 16 = 4608 elements = 9216 words,
    # b 4096 elements = 8192 words; working set 17,408 words * 8 B = 136 KiB (fits);
    # traffic: a read 9216 * ReadCost 8 = 73,728 B, b written 8192 * WriteCost 16 = 131,072 B
    alt = result.tables["Alternative blocking"].rows[0]
    assert alt["ws_kb"].value(env) == pytest.approx(136)
    assert alt["traffic_gb"].value(env) * 1e9 == pytest.approx(73_728 + 131_072)
    # the WordBytes parameter stays live: 4-byte words halve every byte count above
    halved = result.env({"WordBytes": 4, "ReadCost": 4, "WriteCost": 8, "ReadWriteCost": 8})
    assert result.totals["Footprint_GiB"].value(halved) * 2**30 == pytest.approx(69_632)
    assert alt["ws_kb"].value(halved) == pytest.approx(68)


def test_workbook_formulas_of_the_complex_array(capsys, tmp_path):
    source = write(tmp_path, "zsmooth.f90", SMOOTH.format(kind="complex(8)"))
    book_path = tmp_path / "zsmooth.xlsx"
    cli_json(capsys, source, *SETTINGS, "-o", str(book_path))
    sheet = openpyxl.load_workbook(book_path)["Arrays"]
    header = next(row for row in sheet.iter_rows(values_only=True)
                  if row and row[0] == "Procedure")
    rows = {row[3]: row for row in sheet.iter_rows(values_only=True)
            if row and row[0] == "zsmooth"}
    column = {name: header.index(name) for name in
              ("X (cache lines) (elements)", "WS/cell (KiB)", "Reuse between planes (GB)",
               "Block footprint (elements)")}
    a = rows["a"]
    # the element size is the parameter Bytes_a, by default two words
    parameters = {row[0]: row[1] for row in openpyxl.load_workbook(book_path)["Parameters"]
                  .iter_rows(values_only=True) if row}
    assert parameters["Bytes_a"] == "=2*WordBytes"
    # working set per cell: 2 cells of Bytes_a bytes
    assert a[column["WS/cell (KiB)"]] == "=2*(Bytes_a/1024)"
    # cache lines hold LineBytes/Bytes_a complex elements
    assert "LineBytes/Bytes_a" in a[column["X (cache lines) (elements)"]]
    assert "LineBytes/Bytes_a" in a[column["Block footprint (elements)"]]
    # traffic: Bytes_a/WordBytes words per element at ReadCost (bytes per word) each
    assert "ReadCost*Bytes_a/WordBytes" in a[column["Reuse between planes (GB)"]]


def test_complex_note_only_with_complex_data(capsys, tmp_path):
    complex_run = cli_json(capsys, write(tmp_path, "z.f90", SMOOTH.format(kind="complex(8)")),
                           *SETTINGS)
    real_run = cli_json(capsys, write(tmp_path, "r.f90", SMOOTH.format(kind="real(8)")),
                        *SETTINGS)

    def complex_notes(data: dict) -> list[str]:
        return [n["message"] for n in data["notes"] if "complex" in n["message"]]

    assert complex_notes(complex_run) and "2*WordBytes" in complex_notes(complex_run)[0]
    assert not complex_notes(real_run)


def test_c_complex_traffic(capsys, tmp_path):
    source = write(tmp_path, "zaxpy.c", """\
        #include <complex.h>
        void zaxpy(int n, double complex *a, const double complex *b, const double *x,
                   double complex s) {
          for (int i = 0; i < n; i++)
            a[i] = s * b[i] + x[i] * a[i];
        }
        """)
    data = cli_json(capsys, source, "--set", "n=64", *MACHINE)
    loop = data["loops"][0]
    assert (loop["adds"], loop["multiplies"]) == (4, 6)
    # 64 elements: a read-write 2 * ReadWriteCost 16 = 32 B each: 2048; b 2 * 8 = 16 B
    # each: 1024; x real 8 B each: 512 -> 3584 B (64 is whole lines for both sizes)
    assert loop["traffic_gb"] * 1e9 == pytest.approx(3584)
