"""Nest shapes beyond ExaSAT's streamed 3-D grid, counted by hand.

Arrays written at an outer level of a nest (a reduction into ``tot(j,k)``), accesses that do
not vary with the inner loop (``coef[l][0]`` in the ``j`` loop) and small coefficient arrays
(``w(i)`` in a 3-D nest). Per-level figures on a two-level machine (64-byte lines, 8-byte
words: 8 elements per line); a read moves 8 B per element, a write 16 B (the line read for
ownership, then written back), a read-and-written element 16 B.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from test_levels import MACHINE as LEVELS_MACHINE

from sat.cli import main

# test_levels.py's two-level machine with the cache sizes of each test
MACHINE = LEVELS_MACHINE.replace('size_kib="32"', 'size_kib="{l1}"').replace(
    'size_kib="1024"', 'size_kib="{l2}"')


def run(tmp_path: Path, name: str, source: str, *options: str, l1: int = 16,
        l2: int = 64) -> dict:
    path, machine = tmp_path / name, tmp_path / "machine.xml"
    path.write_text(source)
    machine.write_text(MACHINE.format(l1=l1, l2=l2))
    out = tmp_path / "out.json"
    assert main([str(path), "--machine", str(machine), "--json", str(out), *options]) == 0
    return json.loads(out.read_text())


def per_level(loop: dict) -> dict[str, float]:
    return {row["level"]: row["bytes_per_iteration"] for row in loop["levels"]}


REDUCTION = """\
subroutine reduce(tot, x, n)
  integer :: n, i, j, k
  double precision :: tot(n,n), x(n,n,n)
  do k = 1, n
    do j = 1, n
      do i = 1, n
        tot(j,k) = tot(j,k) + x(i,j,k)
      end do
    end do
  end do
end subroutine
"""

REDUCTION_OUTSIDE = """\
subroutine reduce(tot, x, n)
  integer :: n, i, j, k
  double precision :: tot(n,n), x(n,n,n), s
  do k = 1, n
    do j = 1, n
      s = 0
      do i = 1, n
        s = s + x(i,j,k)
      end do
      tot(j,k) = s
    end do
  end do
end subroutine
"""


@pytest.mark.parametrize("source", [REDUCTION, REDUCTION_OUTSIDE], ids=["inside", "outside"])
def test_reduction_into_a_plane_counts_the_whole_space(tmp_path: Path, source: str) -> None:
    data = run(tmp_path, "reduce.f90", source, "--set", "n=128")
    (loop,) = data["loops"]
    # x(i,j,k) spans the space: i on X, j on Y, k on Z (tot(j,k) does not put j on X)
    assert (loop["iter_x"], loop["iter_y"], loop["iter_z"], loop["sweeps"]) == (128, 128, 128, 1)
    # x: 128^3 x 8 B = 16,777,216; tot, one element per (j,k), read and written (or written:
    # WriteCost) = 128^2 x 16 B = 262,144: 17,039,360 B
    assert loop["traffic_gb"] * 1e9 == pytest.approx(128 ** 3 * 8 + 128 ** 2 * 16)
    assert loop["gflops"] == pytest.approx(128 ** 3 / 1e9)  # one add per point
    # at each level too: (16,777,216 + 262,144) / 128^3 = 8.125 B per iteration
    assert per_level(loop) == pytest.approx({"L1": 8.125, "L2": 8.125})


def test_one_dimensional_result_written_after_the_inner_loop(tmp_path: Path) -> None:
    source = """\
subroutine rowsum(tot, a, n)
  integer :: n, i, j
  double precision :: tot(n), a(n,n), s
  do j = 1, n
    s = 0
    do i = 1, n
      s = s + a(i,j)
    end do
    tot(j) = s
  end do
end subroutine
"""
    (loop,) = run(tmp_path, "rowsum.f90", source, "--set", "n=128")["loops"]
    # a: 128^2 x 8 = 131,072 B; tot: 128 x 16 = 2,048 B -> 133,120 / 128^2 = 8.125 B/it
    # (not 8 + 16: tot is written once per j)
    assert loop["traffic_gb"] * 1e9 == pytest.approx(133_120)
    assert per_level(loop) == pytest.approx({"L1": 8.125, "L2": 8.125})


INVARIANT = """\
double coef[258][2], u[258][512], v[258][512];

void smooth(void)
{
  for (int l = 1; l <= 256; l++)
    for (int j = 0; j < 512; j++)
      v[l][j] = coef[l][0] * (u[l-1][j] + u[l+1][j]);
}
"""


def test_loop_invariant_access_moves_once_per_change_of_its_index(tmp_path: Path) -> None:
    """coef[l][0] inside the j loop is a register along j: one line per l, not 8 B per j.

    256 x 512 = 131,072 iterations; j on X (512), l on Y (256).
    - L1 of 16 KiB: no reuse between pencils (the pencils' working set: u 4 pencils, the
      span -1..1 plus the gap of 2, of 512 elements = 16 KiB, v 2 pencils = 8 KiB, coef 2
      lines, 24.1 KiB in all, does not fit), so within pencils: u's two pencils, 2 x 512 x
      256 x 8 B = 2,097,152; v 512 x 256 x 16 B = 2,097,152; coef one line per l, its unit-
      stride subscript a constant: 256 x 64 B = 16,384. 4,210,688 / 131,072 = 32.125 B/it.
    - L2 of 64 KiB: reuse between pencils: u's plane footprint, 258 rows of 512, x 8 B
      = 1,056,768; v and coef as above: 3,170,304 / 131,072 = 24.1875 B/it.
    (Counted as a stream, coef added 8 B per iteration at both levels.)
    """
    (loop,) = run(tmp_path, "smooth.c", INVARIANT, l1=16, l2=64)["loops"]
    assert (loop["iter_x"], loop["iter_y"]) == (512, 256)
    assert per_level(loop) == pytest.approx({"L1": 32.125, "L2": 24.1875})


COEFFICIENTS = """\
subroutine scale(a, b, w, n)
  integer :: n, i, j, k
  double precision :: a(n,n,n), b(n,n,n), w(n)
  do k = 1, n
    do j = 1, n
      do i = 1, n
        b(i,j,k) = w(i) * a(i,j,k)
      end do
    end do
  end do
end subroutine
"""


@pytest.mark.parametrize("l1, expected", [
    # 1 KiB: pencils (a, b and w 512 B each = 1.5 KiB) do not fit, so within pencils: w is
    # read along every pencil like a stream, 8 + 16 + 8 = 32 B/it
    (1, 32.0),
    # 16 KiB: the pencils fit (planes, 64.5 KiB, do not): w's 64 elements stay for every
    # pencil of every plane, 512 B in all: 8 + 16 + 512 / 64^3 = 24.001953125 B/it
    (16, 24.0 + 512 / 64 ** 3),
])
def test_small_coefficient_array_stays_in_cache(tmp_path: Path, l1: int,
                                                expected: float) -> None:
    (loop,) = run(tmp_path, "scale.f90", COEFFICIENTS, "--set", "n=64", l1=l1,
                  l2=16)["loops"]
    assert per_level(loop)["L1"] == pytest.approx(expected)


TILED = """\
subroutine tiled(a, b, n, nt, ts)
  integer :: n, nt, ts, k, jt, it, i, j
  double precision :: a(n,n), b(n,n)
  do k = 1, nt
    do jt = 1, n, ts
      do it = 1, n, ts
        do j = jt, jt+ts-1
          do i = it, it+ts-1
            b(i,j) = b(i,j) + a(i,j)
          end do
        end do
      end do
    end do
    do j = 1, n
      do i = 1, n
        a(i,j) = a(i,j) + 1
      end do
    end do
  end do
end subroutine
"""


def test_tiled_nest_beside_a_sibling_in_a_time_loop(tmp_path: Path) -> None:
    """Each sibling is a nest swept nt times; the tile loops block their own nest."""
    data = run(tmp_path, "tiled.f90", TILED, "--set", "n=1024", "--set", "ts=16",
               "--set", "nt=10")
    tiled, sibling = data["loops"]
    assert (tiled["line"], sibling["line"]) == (5, 14)  # the rows are the siblings'
    # tiled: 64 x 64 tiles of 16 x 16 over the 1024^2 space, 10 times
    assert (tiled["sweeps"], tiled["iter_x"], tiled["iter_y"]) == (10, 1024, 1024)
    assert (tiled["block_x"], tiled["block_y"], tiled["blocks"]) == (16, 16, 64 * 64)
    assert (sibling["sweeps"], sibling["iter_x"], sibling["iter_y"]) == (10, 1024, 1024)
    # tiled: a read 8 B, b read and written 16 B: 10 x 1024^2 x 24 = 251,658,240 B
    # sibling: a read and written: 10 x 1024^2 x 16 = 167,772,160 B; 0.419 GB in all (not
    # 40,960 sweeps of the whole space)
    assert tiled["traffic_gb"] * 1e9 == pytest.approx(10 * 1024 ** 2 * 24)
    assert sibling["traffic_gb"] * 1e9 == pytest.approx(10 * 1024 ** 2 * 16)
    # one add per point in each: 10 x 1024^2 flops each
    assert tiled["gflops"] == sibling["gflops"] == pytest.approx(10 * 1024 ** 2 / 1e9)
    # the tile loops' variables are no problem parameters
    assert not {"jt", "it"} & {p["name"] for p in data["parameters"]}


MATVEC = """\
double a[N][M];
double b[N];
double c[N];

for (int j = 0; j < M; ++j)
    for (int i = 0; i < N; ++i)
        c[i] += a[i][j] * b[i];
"""


@pytest.mark.parametrize("l1, l2, expected", [
    # j (X, the unit stride of a) outside i (Y): one step of j touches one line of a per i,
    # 2,000 x 64 B = 125 KiB, plus b and c, 2,000 x 8 B each: 156.25 KiB.
    # L1 32 KiB: it does not fit. Every a[i][j] moves a whole line, 64 B; b is read again
    # (8 B) and c read and written back (16 B) at every j: 88 B/it. The L2 of 1 MiB holds
    # it: a's lines once, 2001 rounded to 2008 elements (251 lines) x 2000 rows x 8 B =
    # 32,128,000 B, b 2000 x 8 = 16,000, c 2000 x 16 = 32,000: 32,176,000 / (2001 x 2000
    # = 4,002,000) = 8.0400 B/it.
    (32, 1024, {"L1": 88.0, "L2": 32_176_000 / 4_002_000}),
    # 128 KiB / 256 KiB: the sweep (156.25 KiB) fits the L2 only
    (128, 256, {"L1": 88.0, "L2": 32_176_000 / 4_002_000}),
    # 256 KiB / 512 KiB: it fits both
    (256, 512, {"L1": 32_176_000 / 4_002_000, "L2": 32_176_000 / 4_002_000}),
])
def test_large_stride_inner_access_moves_a_line_unless_the_sweep_fits(
        tmp_path: Path, l1: int, l2: int, expected: dict[str, float]) -> None:
    data = run(tmp_path, "matvec.c", MATVEC, "--set", "M=2001", "--set", "N=2000", l1=l1,
               l2=l2)
    (loop,) = data["loops"]
    assert (loop["iter_x"], loop["iter_y"]) == (2001, 2000)
    assert loop["ws_sweep_kb"] == pytest.approx(156.25)
    assert per_level(loop) == pytest.approx(expected)
    fits = {row["level"]: row["layer_condition"] != "none" for row in loop["levels"]}
    assert fits == {name: value < 10 for name, value in expected.items()}


@pytest.mark.parametrize("cache_kb, expected", [
    # ExaSAT's single cache (CacheKB): the same 88 B/it when the sweep does not fit, and when
    # it does, reuse none in words: a 2001 x 2000 x 8 = 32,016,000 B, b 16,000, c 32,000:
    # 32,064,000 / 4,002,000 = 8.0120 B/it
    (16, 88.0), (256, 32_064_000 / 4_002_000)])
def test_large_stride_inner_access_in_exasat_cache(tmp_path: Path, cache_kb: int,
                                                   expected: float) -> None:
    path = tmp_path / "matvec.c"
    path.write_text(MATVEC)
    out = tmp_path / "out.json"
    assert main([str(path), "--json", str(out), "--set", "M=2001", "--set", "N=2000",
                 "--set", f"CacheKB={cache_kb}", "--set", "Cores=1"]) == 0
    (loop,) = json.loads(out.read_text())["loops"]
    assert loop["traffic_gb"] * 1e9 / 4_002_000 == pytest.approx(expected)
    assert loop["reuse"] == 4  # none


@pytest.mark.libreoffice
def test_libreoffice_edit_of_the_capacities_moves_the_sweep_condition(tmp_path: Path) -> None:
    """The sweep condition is live: L1KB and CacheKB edited to 256 in the workbook give
    what --set gives (the sweep of 156.25 KiB then fits: 8.04 B/it at L1 and on the Loops
    sheet, where it was 88)."""
    from libreoffice import recalculate_edited
    from test_workbook import META

    from sat.frontend import read_sources
    from sat.machine import load_machine
    from sat.model.build import build_model
    from sat.parameters import build_parameters
    from sat.report.workbook import write_workbook

    path, machine = tmp_path / "matvec.c", tmp_path / "machine.xml"
    path.write_text(MATVEC)
    machine.write_text(MACHINE.format(l1=32, l2=1024))

    def model(*sets: str):
        result = build_model(read_sources([str(path)]), build_parameters(
            load_machine(str(machine)), sets=["M=2001", "N=2000", *sets]))
        return result, result.env()

    result, env = model()
    level = next(r for r in result.tables["Levels"].rows if r["level"] == "L1")
    loop = result.tables["Loops"].rows[0]
    assert level["traffic_gb"].value(env) * 1e9 / 4_002_000 == pytest.approx(88.0)
    base = tmp_path / "matvec.xlsx"
    cells = write_workbook(result, str(base), META)
    values = recalculate_edited(base, {cells.names["L1KB"]: 256, cells.names["CacheKB"]: 256},
                                tmp_path / "edit")
    edited, edited_env = model("L1KB=256", "CacheKB=256")
    expected_level = next(r for r in edited.tables["Levels"].rows if r["level"] == "L1")
    for quantity, expected in ((level["traffic_gb"], expected_level["traffic_gb"]),
                               (level["layer_condition"], expected_level["layer_condition"]),
                               (loop["traffic_gb"], edited.tables["Loops"].rows[0]["traffic_gb"])):
        sheet, r, c = cells.home(quantity)
        assert values[sheet].cell(r + 1, c + 1).value == pytest.approx(
            expected.value(edited_env), rel=1e-9)
    assert expected_level["traffic_gb"].value(edited_env) * 1e9 / 4_002_000 == pytest.approx(
        32_176_000 / 4_002_000)


WINDOW = """\
subroutine ywin(a, b, n)
  integer :: n, i, j, k
  double precision :: a(n,n,n), b(n,n,n), w(-1:1)
  do k = 2, n-1
    do j = 2, n-1
      do i = 1, n
        w = b(i,j-1:j+1,k)
        a(i,j,k) = w(-1) - 2.0d0*w(0) + w(1)
      end do
    end do
  end do
end subroutine
"""


@pytest.mark.parametrize("cache_kb", [16, 4096])
def test_a_section_window_inside_x_is_a_stencil_not_a_sweep(tmp_path: Path,
                                                            cache_kb: int) -> None:
    # The section j-1:j+1 is a loop of Y inside the X loop, but inside ``do j`` too: the
    # offsets -1..1 of a 3-point stencil, not a sweep of Y at every step of X. ExaSAT order
    # holds; three pencils of b (3 x 128 x 8 B = 3 KiB) fit either cache. By hand: a written,
    # 16 B/it; b read once, its rows 1..128 for the 126 rows of j: 8 x 128 / 126 = 8.127 B/it;
    # 24.127 B/it (ExaSAT's block halo accounting lands within 0.6 % of it).
    path = tmp_path / "ywin.f90"
    path.write_text(WINDOW)
    out = tmp_path / "out.json"
    assert main([str(path), "--json", str(out), "--set", "n=128",
                 "--set", f"CacheKB={cache_kb}", "-q"]) == 0
    (loop,) = json.loads(out.read_text())["loops"]
    assert "ws_sweep_kb" not in loop and loop["reuse"] != 4
    iterations = 128 * 126 * 126
    assert loop["traffic_gb"] * 1e9 / iterations == pytest.approx(16 + 8 * 128 / 126,
                                                                  rel=0.006)


BOUNDARY_PLANE = """\
subroutine plane(a, b, n, m)
  integer :: n, m, i, j, k, c
  double precision :: a(n,n,n,m), b(n,n,n,m)
  i = 1
  do k = 1, n
    do j = 1, n
      do c = 1, m
        a(i,j,k,c) = 2.0d0 * b(i,j,k,c) + b(i+1,j,k,c)
      end do
    end do
  end do
end subroutine
"""


def test_no_sweep_condition_when_x_steps_no_contiguous_dimension(tmp_path: Path) -> None:
    # i is fixed (a boundary plane): X is j, and the c loop inside it is no reason to charge
    # whole lines only when a step of j does not fit, because no array steps along its
    # contiguous dimension at all. The nest keeps ExaSAT's element count at any cache:
    # a written (16 B) and b at two offsets (8 B each): 32 B per point of 128 x 128 x 200.
    path = tmp_path / "plane.f90"
    path.write_text(BOUNDARY_PLANE)
    traffic = []
    for cache_kb in (16, 4096):
        out = tmp_path / f"out{cache_kb}.json"
        assert main([str(path), "--json", str(out), "--set", "n=128", "--set", "m=200",
                     "--set", f"CacheKB={cache_kb}", "-q"]) == 0
        (loop,) = json.loads(out.read_text())["loops"]
        assert "ws_sweep_kb" not in loop
        traffic.append(loop["traffic_gb"] * 1e9 / (128 * 128 * 200))
    assert traffic == pytest.approx([32, 32])
