"""Loops as real codes' authors write them: member-chain bounds, source tiles, comma headers,
stepped and unrolled loops, K&R definitions, MPI and pthread headers, initialised variables.

Every expected number is worked out by hand in the comments.  Traffic is ExaSAT's with the
default machine: a read-only array element costs 8 B, a written-only one 16 B (the write and
its write-allocate read), a read-and-written one 16 B.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sat.cli import main


def source(tmp_path: Path, text: str, name: str = "kernel.c") -> str:
    path = tmp_path / name
    path.write_text(text)
    return str(path)


def run(capsys, path: str, *options: str) -> dict:
    assert main([path, "--json", "-", "-q", *options]) == 0
    return json.loads(capsys.readouterr().out)


def problem(result: dict) -> dict[str, dict]:
    return {p["name"]: p for p in result["parameters"] if p["group"] == "problem"}


def loop(result: dict, line: int) -> dict:
    return next(entry for entry in result["loops"] if entry["line"] == line)


def iterations(entry: dict) -> float:
    return entry["sweeps"] * entry["iter_x"] * entry["iter_y"] * entry["iter_z"]


def bytes_per_iteration(entry: dict) -> float:
    return entry["traffic_gb"] * 1e9 / iterations(entry)


# ------------------------------------------------------------- 1. member-chain bounds

MEMBERS = """\
typedef struct { int lookups; } Inputs;
typedef struct { int nLocalBoxes; } Boxes;
typedef struct { Boxes *boxes; } Sim;
typedef struct { int i, j, k; } dim3;
typedef struct { dim3 dim; } block_t;
typedef struct { block_t *my_blocks; int num_my_blocks; } level_t;
void kern(Inputs in, Sim *s, level_t *level, double *a, double *b)
{
  int i, b2, blk, k, j;
  for (i = 0; i < in.lookups; i++)
    a[i] = 2.0 * b[i];
  for (b2 = 0; b2 < s->boxes->nLocalBoxes; b2++)
    a[b2] = a[b2] + b[b2];
  for (blk = 0; blk < level->num_my_blocks; blk++)
    for (k = 0; k < level->my_blocks[blk].dim.k; k++)
      for (j = 0; j < level->my_blocks[blk].dim.j; j++)
        for (i = 0; i < level->my_blocks[blk].dim.i; i++)
          a[(k*64 + j)*64 + i] = 0.5 * b[(k*64 + j)*64 + i];
}
"""


@pytest.mark.parametrize("spelling", ["in.lookups", "in_lookups"])
def test_c_member_chains_are_problem_parameters(tmp_path, capsys, spelling):
    result = run(capsys, source(tmp_path, MEMBERS), "--set", f"{spelling}=1000")
    params = problem(result)
    lookups = params["in_lookups"]
    assert (lookups["value"], lookups["source"]) == (1000, "--set")
    assert lookups["label"] == "code symbol in.lookups"
    chain = params["s_boxes_nlocalboxes"]  # defaulted as an upper bound: 128
    assert (chain["value"], chain["source"]) == (128, "default")
    assert chain["label"] == "code symbol s->boxes->nLocalBoxes"
    assert {"level_my_blocks_blk_dim_k", "level_my_blocks_blk_dim_j",
            "level_my_blocks_blk_dim_i", "level_num_my_blocks"} <= set(params)
    # a[i] = 2.0*b[i], 1000 trips: 1 multiply; b read 8 B, a written 16 B -> 24 B/iteration.
    first = loop(result, 10)
    assert (iterations(first), first["multiplies"]) == (1000, 1)
    assert bytes_per_iteration(first) == pytest.approx(24)
    # a[b2] = a[b2] + b[b2], 128 trips: 1 add, a read-and-written 16 B + b 8 B = 24 B.
    second = loop(result, 12)
    assert (iterations(second), second["adds"]) == (128, 1)
    assert bytes_per_iteration(second) == pytest.approx(24)
    # Every chain is a whole loop: 128 blocks x 128^3 points, 1 multiply, 24 B each
    # (the inner k, j, i loops are no longer taken as one iteration).
    third = loop(result, 14)
    assert iterations(third) == 128 ** 4
    assert third["traffic_gb"] == pytest.approx(128 ** 4 * 24 / 1e9)
    assert not [w for w in result["warnings"] if "one iteration" in w["message"]]


DERIVED = """\
module gridmod
  type grid_t
    integer :: nx, ny
    integer :: lo(3), hi(3)
  end type
end module
subroutine kern(grid, g, a, b)
  use gridmod
  type(grid_t) :: grid, g
  real(8) :: a(grid%nx, grid%ny), b(grid%nx, grid%ny)
  integer :: i, j
  do j = 1, grid%ny
    do i = g%lo(1), g%hi(1)
      a(i,j) = 2.0d0*b(i,j)
    end do
  end do
end subroutine
"""


def test_fortran_derived_type_components_are_problem_parameters(tmp_path, capsys):
    path = source(tmp_path, DERIVED, "kern.f90")
    result = run(capsys, path, "--set", "g%hi(1)=64", "--set", "grid_ny=10")
    params = problem(result)
    assert params["g_hi_1"]["value"] == 64 and params["g_hi_1"]["label"] == "code symbol g%hi(1)"
    assert params["g_lo_1"]["value"] == 1  # a lower bound's default
    assert params["grid_ny"]["value"] == 10
    # j: 10 trips; i: g%lo(1)..g%hi(1) = 1..64, 64 trips -> 640 iterations of one multiply,
    # 24 B each (b read 8, a written 16).
    entry = loop(result, 12)
    assert iterations(entry) == 640 and entry["multiplies"] == 1
    assert bytes_per_iteration(entry) == pytest.approx(24)
