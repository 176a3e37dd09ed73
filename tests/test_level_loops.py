"""A level loop: each pass calls a routine on another level of a work array.

Multigrid codes keep every level of a grid in one array and pass a level to a routine as an
element of it with the level's sizes from arrays (NPB MG: ``call zero3(u(ir(k)), m1(k),
m2(k), m3(k))``). The routine's three dimensions stay three dimensions, the level loop ``k``
is no repetition of one level (each pass touches another level's elements) and the element
passed at the call is no gather standing for the routine's own references.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sat.cli import main
from sat.frontend import read_sources
from sat.model.calls import inline_calls

LEVELS = """\
      subroutine vcycle(u, m1, m2, m3, ir, lt)
      implicit none
      integer lt, k
      integer m1(lt), m2(lt), m3(lt), ir(lt)
      double precision u(*)
      do k = 2, lt
         call zero3(u(ir(k)), m1(k), m2(k), m3(k))
      end do
      end

      subroutine zero3(z, n1, n2, n3)
      implicit none
      integer n1, n2, n3, i1, i2, i3
      double precision z(n1, n2, n3)
      do i3 = 1, n3
         do i2 = 1, n2
            do i1 = 1, n1
               z(i1, i2, i3) = 0.0d0
            end do
         end do
      end do
      end
"""


def test_a_level_passed_as_an_element_keeps_the_routine_s_dimensions(tmp_path):
    source = tmp_path / "levels.f"
    source.write_text(LEVELS)
    program = inline_calls(read_sources([str(source)])).program
    nest = next(p for p in program.procedures if p.name == "vcycle").loops[0]
    written = [(access.loopvars, access.offsets) for body in nest.levels()
               for array in body.arrays if array.key == "u.ir(k)" for access in array.accesses]
    assert written == [(("i1__zero3", "i2__zero3", "i3__zero3"), (0, 0, 0))]


def test_each_pass_of_a_level_loop_moves_its_own_level(tmp_path):
    source = tmp_path / "levels.f"
    source.write_text(LEVELS)
    out = tmp_path / "levels.json"
    assert main([str(source), "-q", "--json", str(out), "--set", "lt=5", "--set", "m1(k)=16",
                 "--set", "m2(k)=8", "--set", "m3(k)=4"]) == 0
    data = json.loads(Path(out).read_text())
    row = next(r for r in data["loops"] if r["procedure"] == "vcycle")
    # k = 2..5: 4 passes, each a level of 16 x 8 x 4 = 512 elements written:
    # 16 B each (the line read for ownership, then written back) = 8,192 B per level
    assert row["sweeps"] == 4
    assert (row["iter_x"], row["iter_y"], row["iter_z"]) == (16, 8, 4)
    levels = 4 * 512 * 16  # 32,768 B: every level once, none a repetition of another
    assert row["traffic_planes_gb"] * 1e9 == levels
    # the compulsory count is the levels plus the 4 elements u(ir(k)) read at the call, one
    # drawn at each pass of k, 8 B each (not the levels replaced by those 4 elements)
    assert row["traffic_blocks_gb"] * 1e9 == pytest.approx(levels + 4 * 8, rel=1e-12)
    assert data["bounds_violations"] == []
