"""The bundled examples through the Fortran front end: flops, offsets and access types by hand.

Every expected number below is worked out from the example's source, arithmetic in the
comment. Counts are per iteration of the loop level they belong to (exclusive of child loops);
subtractions count as adds, exp/log as specials, and a unary minus is no flop (as in ExaSAT).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from sat.ir import Body, Loop, Procedure, Program

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"

Offsets = tuple[int | str, ...]


def _read(name: str, defines: tuple[str, ...] = ()) -> Program:
    from sat.frontend import read_sources

    return read_sources([str(EXAMPLES / name)], defines=defines)


def _proc(program: Program, name: str) -> Procedure:
    proc = program.procedure(name)
    assert proc is not None, f"no procedure {name}: {[p.name for p in program.procedures]}"
    return proc


def _flops(body: Body) -> tuple[int, int, int, int]:
    return (body.adds, body.multiplies, body.divides, body.specials)


def _chain(nest: Loop) -> list[Loop]:
    """The levels of a perfectly nested loop, outermost first."""
    levels = [nest]
    while levels[-1].loops:
        assert len(levels[-1].loops) == 1, "expected a perfect nest"
        levels.append(levels[-1].loops[0])
    return levels


def _norm(item: int | str) -> int | str:
    return item.lower().replace(" ", "") if isinstance(item, str) else item


def _pairs(body: Body) -> dict[tuple[str, str], tuple[str, dict[Offsets, tuple[int, int]]]]:
    """Array-component pairs of a level: access type and {offsets: (reads, writes)}.

    Accesses with the same offsets are summed, so a front end may list a repeated reference
    once with reads=2 (as ExaSAT does) or twice with reads=1.
    """
    result: dict[tuple[str, str], tuple[str, dict[Offsets, tuple[int, int]]]] = {}
    for array in body.arrays:
        key = (array.name.lower(), array.component.lower())
        assert key not in result, f"pair {key} listed twice"
        table: dict[Offsets, tuple[int, int]] = {}
        for access in array.accesses:
            offsets = tuple(_norm(o) for o in access.offsets)
            reads, writes = table.get(offsets, (0, 0))
            table[offsets] = (reads + access.reads, writes + access.writes)
        result[key] = (array.accesstype, table)
    return result


def _star(radius: int, dims: int = 3, centre: bool = True) -> list[Offsets]:
    """Offsets of a star stencil: +-1..radius along each axis (and the centre)."""
    points: list[Offsets] = [tuple([0] * dims)] if centre else []
    for axis in range(dims):
        for step in range(1, radius + 1):
            for sign in (1, -1):
                offset = [0] * dims
                offset[axis] = sign * step
                points.append(tuple(offset))
    return points


def _reads(offsets: list[Offsets], times: int = 1) -> dict[Offsets, tuple[int, int]]:
    return {o: (times, 0) for o in offsets}


WRITE_CENTRE = {(0, 0, 0): (0, 1)}


def _check_3d_nest(nest: Loop, bounds: tuple[str, str] = ("lo", "hi")) -> Loop:
    """k, j, i levels over lo..hi, no flops outside the innermost level; returns it."""
    k, j, i = _chain(nest)
    lo, hi = bounds
    assert [lvl.loopvar.lower() for lvl in (k, j, i)] == ["k", "j", "i"]
    for dim, level in zip((3, 2, 1), (k, j, i), strict=True):
        assert _norm(level.lower) == f"{lo}({dim})"
        assert _norm(level.upper) == f"{hi}({dim})"
        assert _norm(level.stride) == "1"
    assert _flops(k) == (0, 0, 0, 0)
    assert _flops(j) == (0, 0, 0, 0)
    return i


# --- the four micro stencils -------------------------------------------------------------------


def test_lap() -> None:
    proc = _proc(_read("lap.f90"), "laplacian")
    (nest,) = proc.loops
    assert nest.line == 16
    inner = _check_3d_nest(nest)
    # 6 neighbours summed: 5 adds, + fac*centre: 1 add -> 6 adds;
    # fac*A0(i,j,k) and fac2*(sum): 2 multiplies
    assert _flops(inner) == (6, 2, 0, 0)
    pairs = _pairs(inner)
    assert pairs == {
        ("a0", ""): ("readonly", _reads(_star(1))),  # centre + 6 neighbours, once each
        ("anext", ""): ("writeonly", WRITE_CENTRE),
    }


def test_div() -> None:
    proc = _proc(_read("div.f90"), "div")
    (nest,) = proc.loops
    inner = _check_3d_nest(nest)
    # three differences x(+1)-x(-1) etc.: 3 adds, summing the three terms: 2 adds -> 5 adds;
    # alpha*, beta*, gamma*: 3 multiplies
    assert _flops(inner) == (5, 3, 0, 0)
    assert _pairs(inner) == {
        ("x", ""): ("readonly", _reads([(1, 0, 0), (-1, 0, 0)])),
        ("y", ""): ("readonly", _reads([(0, 1, 0), (0, -1, 0)])),
        ("z", ""): ("readonly", _reads([(0, 0, 1), (0, 0, -1)])),
        ("u", ""): ("writeonly", WRITE_CENTRE),
    }


def test_grad() -> None:
    proc = _proc(_read("grad.f90"), "grad")
    (nest,) = proc.loops
    inner = _check_3d_nest(nest)
    # one difference per statement: 3 adds; one coefficient per statement: 3 multiplies
    assert _flops(inner) == (3, 3, 0, 0)
    assert _pairs(inner) == {
        ("u", ""): ("readonly", _reads(_star(1, centre=False))),
        ("x", ""): ("writeonly", WRITE_CENTRE),
        ("y", ""): ("writeonly", WRITE_CENTRE),
        ("z", ""): ("writeonly", WRITE_CENTRE),
    }


def test_lap4() -> None:
    proc = _proc(_read("lap4.f90"), "laplacian4")
    (nest,) = proc.loops
    inner = _check_3d_nest(nest)
    # 24 neighbours summed: 23 adds, + fac*centre: 1 add -> 24 adds;
    # fac*A0(i,j,k) and fac*(sum): 2 multiplies; /12: 1 divide
    assert _flops(inner) == (24, 2, 1, 0)
    assert _pairs(inner) == {
        ("a0", ""): ("readonly", _reads(_star(4))),  # 1 + 3 axes * 8 = 25 points
        ("anext", ""): ("writeonly", WRITE_CENTRE),
    }
    assert len(_star(4)) == 25


# --- CNS-like kernels ----------------------------------------------------------------------------


def _axis_offsets(axis: int, component: str) -> list[Offsets]:
    """Offsets -4..-1, 1..4 along ``axis`` with a component subscript (an 8th-order stencil)."""
    result = []
    for step in (1, 2, 3, 4, -1, -2, -3, -4):
        offset: list[int | str] = [0, 0, 0, component]
        offset[axis] = step
        result.append(tuple(offset))
    return result


@pytest.mark.parametrize(("index", "axis", "momentum", "velocity"),
                         [(0, 0, "imx", "qu"), (1, 1, "imy", "qv"), (2, 2, "imz", "qw")],
                         ids=["x", "y", "z"])
def test_hypterm_nests(index: int, axis: int, momentum: str, velocity: str) -> None:
    proc = _proc(_read("hypterm.f90"), "hypterm")
    assert len(proc.loops) == 4  # the dxinv loop and three 3-deep nests
    nest = proc.loops[1 + index]
    assert nest.line == [43, 91, 139][index]
    inner = _check_3d_nest(nest)
    # Per 4-term bracket (ALP, BET, GAM, DEL terms), then 3 adds joining the 4 terms and
    # 1 multiply by dxinv per flux component:
    #   mass       c(+n)-c(-n)                         1 add  1 mul(coef) -> 4+3=7 adds,  4+1=5 muls
    #   own mom.   c(+n)*u-c(-n)*u + (p(+n)-p(-n))     3 adds 3 muls      -> 12+3=15,     12+1=13
    #   other mom. c(+n)*u-c(-n)*u   (two of them)     1 add  3 muls      -> 4+3=7,       12+1=13
    #   energy     c(+n)*u-c(-n)*u + (p(+n)*u-p(-n)*u) 3 adds 5 muls      -> 12+3=15,     20+1=21
    # adds 7+15+7+7+15 = 51, muls 5+13+13+13+21 = 65; unary minus: no flop.
    # y and z nests update flux (flux = flux - ...): 5 more adds -> 56.
    adds = 51 if index == 0 else 56
    assert _flops(inner) == (adds, 65, 0, 0)
    pairs = _pairs(inner)
    # cons: the momentum component is read twice per offset (mass flux and own momentum flux)
    expected = {("cons", c): ("readonly", _reads(_axis_offsets(axis, c), 2 if c == momentum else 1))
                for c in ("imx", "imy", "imz", "iene")}
    expected[("q", velocity)] = ("readonly", _reads(_axis_offsets(axis, velocity)))
    # pressure: once in the own momentum flux, once in the energy flux
    expected[("q", "qpres")] = ("readonly", _reads(_axis_offsets(axis, "qpres"), 2))
    # dxinv(1|2|3): a constant subscript, read once per flux component
    expected[("dxinv", "")] = ("readonly", {(axis + 1,): (5, 0)})
    for comp in ("irho", "imx", "imy", "imz", "iene"):
        if index == 0:
            expected[("flux", comp)] = ("writeonly", {(0, 0, 0, comp): (0, 1)})
        else:
            expected[("flux", comp)] = ("readwrite", {(0, 0, 0, comp): (1, 1)})
    assert pairs == expected
    scalars = {s.name.lower(): s for s in inner.scalars}
    for name in ("unp1", "unp2", "unp3", "unp4", "unm1", "unm2", "unm3", "unm4"):
        # written once, read 5 times: once in each of the 3 momentum fluxes and twice in
        # the energy flux (cons and pressure terms)
        assert (scalars[name].accesstype, scalars[name].reads, scalars[name].writes) == (
            "writeread", 5, 1)
    for name in ("alp", "bet", "gam", "del"):
        assert scalars[name].is_constant and scalars[name].reads == 5  # once per flux


def test_hypterm_dxinv_loop() -> None:
    proc = _proc(_read("hypterm.f90"), "hypterm")
    loop = proc.loops[0]
    assert (loop.loopvar, _norm(loop.lower), _norm(loop.upper)) == ("i", "1", "3")
    assert _flops(loop) == (0, 0, 1, 0)  # 1.0d0 / dx(i)
    assert _pairs(loop) == {
        ("dx", ""): ("readonly", {(0,): (1, 0)}),
        ("dxinv", ""): ("writeonly", {(0,): (0, 1)}),
    }


def test_ctoprim() -> None:
    proc = _proc(_read("ctoprim.f90"), "ctoprim")
    (nest,) = proc.loops
    k, j, inner = _chain(nest)
    assert (_norm(inner.lower), _norm(inner.upper)) == ("lo(1)-ng", "hi(1)+ng")
    # divides: 1/u(irho), eint/cv -> 2
    # multiplies: ux, vy, wz: 3; eint: *rhoinv, 0.5*, ux*ux, vy*vy, wz*wz: 5;
    #             gamm1*u*eint: 2 -> 10
    # adds: eint: one subtraction + two sums -> 3
    assert _flops(inner) == (3, 10, 2, 0)
    centre = (0, 0, 0)
    expected = {("u", c): ("readonly", {centre + (c,): (1, 0)})
                for c in ("imx", "imy", "imz", "iene")}
    expected[("u", "irho")] = ("readonly", {centre + ("irho",): (3, 0)})  # rhoinv, qrho, qpres
    for c in ("qrho", "qu", "qv", "qw", "qpres", "qtemp"):
        expected[("q", c)] = ("writeonly", {centre + (c,): (0, 1)})
    assert _pairs(inner) == expected


def test_chemistry() -> None:
    proc = _proc(_read("chemistry.f90"), "chemistry")
    (nest,) = proc.loops
    inner = _check_3d_nest(nest)
    # tinv: 1 div; logt: 1 special; kf: exp 1 special, beta*logt and ea_r*tinv 2 muls,
    # + and - 2 adds; kr: 1 div; rate: 4 muls, 1 add -> adds 3, muls 6, divs 2, specials 2
    assert _flops(inner) == (3, 6, 2, 2)
    c = (0, 0, 0)
    assert _pairs(inner) == {
        ("temp", ""): ("readonly", {c: (2, 0)}),
        ("rho", ""): ("readonly", {c: (2, 0)}),
        ("keq", ""): ("readonly", {c: (1, 0)}),
        ("yfuel", ""): ("readonly", {c: (1, 0)}),
        ("yprod", ""): ("readonly", {c: (1, 0)}),
        ("rate", ""): ("writeonly", {c: (0, 1)}),
    }


# --- source forms ---------------------------------------------------------------------------------


def test_jacobi_fixed_form_shared_label() -> None:
    proc = _proc(_read("jacobi.f"), "jacobi")
    assert len(proc.loops) == 2
    sweep, copy = proc.loops
    j, i = _chain(sweep)
    assert (j.loopvar.lower(), i.loopvar.lower()) == ("j", "i")
    assert (j.line, i.line) == (16, 17)
    assert (_norm(j.lower), _norm(j.upper)) == ("2", "m-1")
    assert (_norm(i.lower), _norm(i.upper)) == ("2", "n-1")
    assert _flops(j) == (0, 0, 0, 0)
    # three + and one - : 4 adds; h2*f and 0.25*(...): 2 multiplies
    assert _flops(i) == (4, 2, 0, 0)
    assert _pairs(i) == {
        ("u", ""): ("readonly", _reads([(-1, 0), (1, 0), (0, -1), (0, 1)])),
        ("f", ""): ("readonly", {(0, 0): (1, 0)}),
        ("unew", ""): ("writeonly", {(0, 0): (0, 1)}),
    }
    j2, i2 = _chain(copy)
    assert (j2.line, i2.line) == (21, 22)
    assert _flops(i2) == (0, 0, 0, 0)
    assert _pairs(i2) == {
        ("unew", ""): ("readonly", {(0, 0): (1, 0)}),
        ("u", ""): ("writeonly", {(0, 0): (0, 1)}),
    }


def test_heat_without_define() -> None:
    proc = _proc(_read("heat.F90"), "heat")
    assert _flops(proc) == (0, 1, 1, 0)  # dxinv2 = 1.0d0 / (dx*dx)
    (nest,) = proc.loops
    inner = _check_3d_nest(nest)
    # lap: one + and one -, 2.0d0*centre and *dxinv2: 2 adds, 2 muls;
    # phi_new: + and dt*lap: 1 add, 1 mul -> 3 adds, 3 muls
    assert _flops(inner) == (3, 3, 0, 0)
    assert _pairs(inner) == {
        ("phi_old", ""): ("readonly", {(1, 0, 0): (1, 0), (-1, 0, 0): (1, 0),
                                       (0, 0, 0): (2, 0)}),
        ("phi_new", ""): ("writeonly", WRITE_CENTRE),
    }


def test_heat_with_define() -> None:
    proc = _proc(_read("heat.F90", defines=("HEAT_3D",)), "heat")
    (nest,) = proc.loops
    inner = _check_3d_nest(nest)
    # lap: 5 + and 1 -, 6.0d0*centre and *dxinv2: 6 adds, 2 muls;
    # phi_new: 1 add, 1 mul -> 7 adds, 3 muls
    assert _flops(inner) == (7, 3, 0, 0)
    reads = _reads(_star(1))
    reads[(0, 0, 0)] = (2, 0)  # the centre in lap and in phi_new
    assert _pairs(inner) == {
        ("phi_old", ""): ("readonly", reads),
        ("phi_new", ""): ("writeonly", WRITE_CENTRE),
    }


# --- sparse and indirect accesses ---------------------------------------------------------------


def test_spmv() -> None:
    proc = _proc(_read("spmv.f90"), "spmv")
    (rows,) = proc.loops
    (row,) = rows.loops
    assert (rows.loopvar, row.loopvar) == ("i", "k")
    assert (_norm(row.lower), _norm(row.upper)) == ("rowptr(i)", "rowptr(i+1)-1")
    assert _flops(rows) == (0, 0, 0, 0)
    assert _flops(row) == (1, 1, 0, 0)  # y(i) + a(k)*x(col(k)): 1 add, 1 multiply
    assert _pairs(rows) == {("rowptr", ""): ("readonly", {(0,): (1, 0), (1,): (1, 0)})}
    assert _pairs(row) == {
        ("y", ""): ("readwrite", {(0,): (1, 1)}),  # on i, the outer variable
        ("a", ""): ("readonly", {(0,): (1, 0)}),
        ("col", ""): ("readonly", {(0,): (1, 0)}),
        ("x", ""): ("readonly", {("col(k)-k",): (1, 0)}),  # through col, as written
    }
    x = next(a for a in row.arrays if a.name == "x").accesses[0].subscripts
    assert [(s.kind, s.index, s.var) for s in x] == [("indirect", "col", "k")]


def test_histogram() -> None:
    proc = _proc(_read("histogram.f90"), "histogram")
    (loop,) = proc.loops
    assert _flops(loop) == (1, 0, 0, 0)  # h(...) + 1 on a real h: 1 add
    assert _pairs(loop) == {
        ("idx", ""): ("readonly", {(0,): (2, 0)}),  # in the read and in the write of h
        ("h", ""): ("readwrite", {("-i+idx(i)",): (1, 1)}),
    }


@pytest.mark.parametrize("name", sorted(p.name for p in EXAMPLES.iterdir()
                                        if p.suffix in (".f90", ".f", ".F90")))
def test_examples_read_without_warnings(name: str) -> None:
    """The examples are clean code: the front end should understand every line of them."""
    program = _read(name)
    assert [str(w) for w in program.warnings] == []
    assert program.procedures


@pytest.mark.parametrize("name", sorted(p.name for p in EXAMPLES.iterdir()
                                        if p.suffix in (".f90", ".f", ".F90")))
def test_examples_round_trip_through_xml(name: str, tmp_path: Path) -> None:
    """What the front end finds survives the XML code description unchanged."""
    from sat.xmlio import read_program, write_program

    program = _read(name)
    out = tmp_path / "program.xml"
    write_program(program, str(out))
    assert read_program(str(out)) == program
