"""A seeded generator of loop nests, each tagged with its shape classes.

``generate(seed, count)`` returns ``count`` nests; nest ``k`` depends only on ``(seed, k)``,
so a sample is reproducible and any nest can be made again alone.  Families: dense nests
(depth 1-5, loop orders, stencil offsets +-1..+-4, coefficients invariant along loops,
reductions into lower-rank arrays with row-level statements, branches, every bound form),
strided and indirect references (uniform, sorted, clustered index arrays; CSR rows), Fortran
array sections and whole-array statements, scratch copies into tiles; any of them may sit in
a time loop, beside a sibling nest, or in a procedure the time loop calls. Forms of the text
(statement functions, index functions, constant subscripts written as expressions, array
reductions, nested triangular ranges, bounds read from a table) are drawn after the nest on a
stream of their own (:mod:`forms`), so the nests of a seed stay the ones drawn before.
"""

from __future__ import annotations

import random

import forms
from nests import (
    TYPES,
    Array,
    Assign,
    BArr,
    Bin,
    BMin,
    Bound,
    Call,
    Const,
    Fn,
    If,
    Ind,
    Lin,
    Loop,
    Nest,
    Procedure,
    Ref,
)

FAMILIES = ("dense", "dense", "dense", "dense", "strided", "indirect", "csr", "scratch",
            "array-syntax")
BOUND_FORMS = ("constant", "parametric", "triangular", "tile-constant", "tile-runtime",
               "step", "descending")
VARS = ("i", "j", "k", "l", "m")


class Builder:
    def __init__(self, rng: random.Random, ident: str, lang: str, etype: str):
        self.rng = rng
        self.ident = ident
        self.lang = lang
        self.etype = etype
        self.arrays: list[Array] = []
        self.symbols: dict[str, int] = {}
        self.classes: set[str] = {f"lang:{lang}", f"type:{etype}"}
        self.sid = 0
        self.lid = 0
        # how a gathered array's indices run (the generator's parameters, which the harness
        # tells satreport as a user would: the index values are data the source does not show)
        self.index_runs: dict[str, dict[str, str]] = {}

    def array(self, base: str, extents, etype: str | None = None, values=None) -> Array:
        a = Array(f"{base}_{self.ident}", etype or self.etype, tuple(extents), values)
        self.arrays.append(a)
        return a

    def next_sid(self) -> int:
        self.sid += 1
        return self.sid

    def next_lid(self) -> int:
        self.lid += 1
        return self.lid

    def assign(self, lhs: Ref, rhs, acc: bool = False) -> Assign:
        return Assign(lhs, rhs, acc, self.next_sid())

    def branch(self, cond: Ref, then: list, els: list | None) -> If:
        return If(cond, then, els, self.next_sid())

    def loop(self, var: str, lo, hi, body: list, step: int = 1, descending: bool = False,
             form: str = "loop") -> Loop:
        return Loop(var, lo, hi, body, step, descending, form, self.next_lid())

    def const(self) -> Const:
        if self.etype in ("i4", "i8"):
            return Const(float(self.rng.choice((2, 3, 5))))
        return Const(self.rng.choice((0.5, 0.25, 1.5, 2.0, 0.125, 3.0)))

    def combine(self, terms: list):
        """A sum of the terms, some of them scaled by a constant."""
        out = None
        for t in terms:
            if self.rng.random() < 0.35:
                t = Bin("*", self.const(), t)
            out = t if out is None else Bin(self.rng.choice("+-") if self.etype != "c8"
                                            else "+", out, t)
        return out

    def decorate(self, expr):
        """Sometimes a division or a special function (real types only)."""
        if self.etype in ("r4", "r8"):
            r = self.rng.random()
            if r < 0.15:
                return Bin("/", expr, self.const())
            if r < 0.25:
                return Fn("sqrt", Bin("*", expr, expr))
            if r < 0.3:
                return Fn("exp", Bin("*", Const(0.001), expr))
        return expr


def _spatial(b: Builder, rank: int) -> list[int]:
    """Core extents per axis for a nest of this rank (data kept to some 100 KiB)."""
    r = b.rng
    if rank == 1:
        return [r.choice((300, 500, 700, 1000, 1500, 2000))]
    if rank == 2:
        return [r.choice((24, 32, 40, 48, 60, 72)), r.choice((16, 24, 32, 40))]
    return [r.choice((10, 12, 16, 20)), r.choice((8, 10, 12, 16)), r.choice((6, 8, 10))]


def _bounds(b: Builder, loops: list[tuple[str, int, int, int]], forms: list[str]
            ) -> list[dict]:
    """Loop descriptions (outermost first): var, axis, lo, hi, plus the chosen bound forms."""
    out = [{"var": v, "axis": ax, "lo": Bound((), lo), "hi": Bound((), hi), "step": 1,
            "desc": False, "tile": None} for v, ax, lo, hi in loops]
    r = b.rng
    for form in forms:
        spatial = [d for d in out if d["axis"] is not None]
        d = r.choice(spatial)
        if form == "parametric":
            name = f"n_{b.ident}"
            if name in b.symbols:
                continue
            b.symbols[name] = d["hi"].const - d["lo"].const
            d["hi"] = Bound(((name, 1),), d["lo"].const)
        elif form == "triangular":
            # the inner loop runs up to the outer variable: pairs whose inner range is at
            # least the outer one's
            pairs = [(o, q) for n, o in enumerate(spatial) for q in spatial[n + 1:]
                     if isinstance(o["hi"], Bound) and isinstance(q["hi"], Bound)
                     and not o["hi"].terms and not q["hi"].terms
                     and o["hi"].const - o["lo"].const <= q["hi"].const - q["lo"].const]
            if not pairs:
                continue
            outer, inner = r.choice(pairs)
            inner["hi"] = Bound(((outer["var"], 1),),
                                1 - outer["lo"].const + inner["lo"].const)
        elif form in ("tile-constant", "tile-runtime"):
            if d["tile"] or not isinstance(d["hi"], Bound) or d["hi"].terms or d["step"] != 1 \
                    or d["desc"]:
                continue
            size = r.choice((4, 8, 16, 12))
            if form == "tile-runtime":
                name = f"ts_{b.ident}"
                if name in b.symbols:
                    continue
                b.symbols[name] = size
                d["tile"] = Bound(((name, 1),), 0)
            else:
                d["tile"] = Bound((), size)
        elif form == "step":
            if d["tile"]:
                continue
            d["step"] = r.choice((2, 3))
        elif form == "descending":
            if d["tile"]:
                continue
            d["desc"] = True
    return out


def _nest_loops(b: Builder, descs: list[dict], body: list) -> list:
    """Loops from the descriptions (outermost first) around ``body``."""
    for d in reversed(descs):
        if d["tile"] is not None:
            tv = d["var"] * 2
            size = d["tile"]
            tile_step = size.const if not size.terms else None
            inner = b.loop(d["var"], Bound(((tv, 1),), 0),
                           BMin(Bound(((tv, 1), *size.terms), size.const), d["hi"]), body)
            # a run-time tile size steps by its symbol
            outer = b.loop(tv, d["lo"], d["hi"], [inner],
                           step=tile_step if tile_step is not None else size.terms[0][0])
            body = [outer]
        else:
            body = [b.loop(d["var"], d["lo"], d["hi"], body, d["step"], d["desc"])]
    return body


def dense(b: Builder) -> list:
    r = b.rng
    depth = r.choice((1, 2, 2, 3, 3, 3, 4, 5))
    rank = min(depth, r.choice((1, 2, 3, 3)))
    b.classes.add(f"depth:{depth}")
    core = _spatial(b, rank)
    radius = r.choice((0, 1, 1, 2, 3, 4))
    if radius:
        b.classes.add("offsets")
        b.classes.add(f"offsets:{radius}")
    pads = [radius] * rank
    extents = [n + 2 * p for n, p in zip(core, pads, strict=True)]
    out_a = b.array("out", extents)
    in_a = b.array("inp", extents)
    # loops: repetition loops outermost (arrays invariant along them), then the axes
    order = list(range(rank))
    r.shuffle(order)
    if r.random() < 0.5:
        order = list(reversed(range(rank)))  # axis 0 innermost, the usual order
    if rank > 1:
        b.classes.add("order:contiguous" if order[-1] == 0 else
                      "order:transposed" if order[0] == 0 else "order:column")
    names = iter(VARS)
    axis_var = {}
    loops = []
    for _ in range(depth - rank):
        v = next(names)
        loops.append((v, None, 0, r.choice((2, 3))))
        b.classes.add("invariant-loop")
    for ax in order:
        v = next(names)
        axis_var[ax] = v
        loops.append((v, ax, pads[ax], pads[ax] + core[ax]))
    forms = r.sample(BOUND_FORMS[1:], r.choice((0, 0, 1, 1, 2)))
    descs = _bounds(b, loops, forms)
    for d in descs:
        if d["axis"] is None:
            continue
        if d["tile"] is not None:
            b.classes.add("bounds:tile-runtime" if d["tile"].terms else "bounds:tile-constant")
        if d["step"] != 1:
            b.classes.add("bounds:step")
        if d["desc"]:
            b.classes.add("bounds:descending")
        if isinstance(d["hi"], Bound) and d["hi"].terms:
            b.classes.add("bounds:triangular" if d["hi"].terms[0][0] in VARS
                          else "bounds:parametric")
    if not any(c.startswith("bounds:") for c in b.classes):
        b.classes.add("bounds:constant")

    def at(arr: Array, offs: dict[int, int] | None = None) -> Ref:
        offs = offs or {}
        return Ref(arr, tuple(Lin(axis_var[ax], offs.get(ax, 0)) for ax in range(rank)))

    # the stencil: the centre and points at offsets along random axes
    points = [at(in_a)]
    for _ in range(r.choice((0, 1, 2, 4, 6)) if radius else 0):
        ax = r.randrange(rank)
        off = r.choice([o for o in range(-radius, radius + 1) if o])
        points.append(at(in_a, {ax: off}))
    points = list(dict.fromkeys(points))
    if radius and not any(any(ix.off for ix in p.idx) for p in points):
        points.append(at(in_a, {0: radius}))
    terms = list(points)
    if r.random() < 0.4:  # a coefficient invariant along every axis but one
        ax = r.randrange(rank)
        coef = b.array("coef", (extents[ax],))
        terms.append(Bin("*", Ref(coef, (Lin(axis_var[ax]),)), at(in_a)))
        b.classes.add("invariant-coefficient")
    rhs = b.decorate(b.combine(terms))
    body: list = [b.assign(at(out_a), rhs, acc=r.random() < 0.2)]
    if r.random() < 0.2 and b.etype != "c8":  # a branch on data, a known fraction taken
        p = r.choice((0.25, 0.5, 0.75, 0.1))
        n = 1
        for e in extents:
            n *= e
        w = b.array("w", extents, "i4", [int(r.random() < p) for _ in range(n)])
        els = [b.assign(at(out_a), b.combine([at(in_a)]))] if r.random() < 0.7 else None
        body = [b.branch(at(w), body, els)]
        b.classes.add("branch")
    inner_var = descs[-1]["var"] if descs[-1]["axis"] is not None else None
    row_level = None
    if rank >= 2 and inner_var and r.random() < 0.3:
        # a reduction into an array without the innermost loop's axis
        inner_axis = descs[-1]["axis"]
        keep = [ax for ax in range(rank) if ax != inner_axis]
        red = b.array("red", [extents[ax] for ax in keep])
        red_ref = Ref(red, tuple(Lin(axis_var[ax]) for ax in keep))
        body.append(b.assign(red_ref, Bin("*", b.const(), at(in_a)), acc=True))
        b.classes.add("reduction-lower-rank")
        if r.random() < 0.6:
            row_level = (b.assign(red_ref, Const(0.0)),
                         b.assign(red_ref, Bin("*", red_ref, b.const())))
            b.classes.add("row-level")
    loops_body = _nest_loops(b, descs, body)
    if row_level is not None:
        # the statements around the innermost loop, at the level above it
        holder = loops_body[0]
        while not (len(holder.body) == 1 and isinstance(holder.body[0], Loop)
                   and holder.body[0].var in (inner_var, inner_var * 2)
                   and not any(isinstance(x, Loop) for x in holder.body[0].body
                               if x is not None and holder.body[0].var == inner_var * 2)):
            holder = holder.body[0]
            if not isinstance(holder, Loop) or not holder.body:
                break
        if isinstance(holder, Loop) and holder.var not in (inner_var, inner_var * 2):
            holder.body = [row_level[0], *holder.body, row_level[1]]
        else:
            b.classes.discard("row-level")
    return loops_body


def strided(b: Builder) -> list:
    r = b.rng
    s = r.choice((2, 3, 4, 8, 16))
    n = r.choice((400, 800, 1200, 2000))
    x = b.array("x", (s * n + 1,))
    y = b.array("y", (n,))
    b.classes.update({"strided", "depth:1", "bounds:constant"})
    i = Lin("i")
    rhs = b.combine([Ref(x, (Lin("i", 0, s),)), Ref(y, (i,))])
    return [b.loop("i", Bound((), 0), Bound((), n), [b.assign(Ref(y, (i,)), rhs)])]


WIDTHS = (8, 16, 32)  # clustered indices: half-widths of the windows around a centre
RUNS = (4, 8, 16)  # clustered indices: draws around one centre


def index_runs(kind: str, width: float = 0.0, row: float = 0.0) -> dict[str, str]:
    """How the indices of ``kind`` run, as the generator draws them (the ``<gather>`` entry
    of a conditions file): sorted, one run of a pass (a CSR row: of the row) over the range;
    clustered, runs of 4, 8 or 16 draws within a window of ``2 width + 1`` elements (a CSR
    row of ``row`` columns sorted: its runs cut at the row's end, in ascending order)."""
    if kind == "sorted":
        return {"run": "loop" if row else "pass", "window": "range", "sorted": "yes"}
    if kind != "clustered":
        return {}
    if row:  # runs per row: the mean over RUNS of ceil(row / run)
        per_row = sum(-(-row // run) for run in RUNS) / len(RUNS)
        return {"run": f"{row / per_row:g}", "window": f"{2 * width + 1:g}", "sorted": "yes"}
    return {"run": " ".join(map(str, RUNS)), "window": f"{2 * width + 1:g}", "sorted": "no"}


def _index_values(r: random.Random, kind: str, n: int, m: int,
                  widths: list[int] | None = None) -> list[int]:
    if kind == "uniform":
        return [r.randrange(m) for _ in range(n)]
    if kind == "sorted":
        return sorted(r.randrange(m) for _ in range(n))
    width = r.choice(WIDTHS)  # clustered: runs within windows around random centres
    if widths is not None:
        widths.append(width)
    out = []
    while len(out) < n:
        centre = r.randrange(m)
        for _ in range(r.choice(RUNS)):
            out.append(min(m - 1, max(0, centre + r.randrange(-width, width + 1))))
    return out[:n]


def indirect(b: Builder) -> list:
    r = b.rng
    kind = r.choice(("uniform", "sorted", "clustered"))
    n = r.choice((500, 1000, 2000, 4000))
    m = n * r.choice((1, 2, 4, 8))
    widths: list[int] = []
    idx = b.array("idx", (n,), "i4", _index_values(r, kind, n, m, widths))
    x = b.array("x", (m,))
    b.index_runs[x.name] = index_runs(kind, widths[0] if widths else 0)
    v = b.array("v", (n,))
    b.classes.update({f"indirect:{kind}", "depth:1", "bounds:constant"})
    i = Lin("i")
    gathered = Ref(x, (Ind(Ref(idx, (i,))),))
    if r.random() < 0.3:  # a scatter: x[idx[i]] += v[i]
        b.classes.add("indirect:scatter")
        stmt = b.assign(gathered, Bin("*", b.const(), Ref(v, (i,))), acc=True)
    else:
        y = b.array("y", (n,))
        stmt = b.assign(Ref(y, (i,)), Bin("*", Ref(v, (i,)), gathered), acc=True)
    return [b.loop("i", Bound((), 0), Bound((), n), [stmt])]


def csr(b: Builder) -> list:
    r = b.rng
    rows = r.choice((200, 400, 800))
    per_row = r.choice((2, 4, 6, 8))
    nnz = rows * per_row
    ncols = r.choice((rows, 2 * rows, 4 * rows))
    lengths = [per_row] * rows
    if r.random() < 0.5:  # irregular rows with the same total
        for _ in range(rows):
            a, c = r.randrange(rows), r.randrange(rows)
            if lengths[a] > 1:
                lengths[a] -= 1
                lengths[c] += 1
    rowptr_values = [0]
    for length in lengths:
        rowptr_values.append(rowptr_values[-1] + length)
    kind = r.choice(("uniform", "sorted", "clustered"))
    cols = []
    for length in lengths:
        row = _index_values(r, kind, length, ncols)
        cols.extend(sorted(row) if kind != "uniform" else row)
    rowptr = b.array("rowptr", (rows + 1,), "i4", rowptr_values)
    col = b.array("col", (nnz,), "i4", cols)
    val = b.array("val", (nnz,))
    x = b.array("x", (ncols,))
    b.index_runs[x.name] = index_runs(kind, sum(WIDTHS) / len(WIDTHS), per_row)
    y = b.array("y", (rows,))
    b.classes.update({"csr", f"indirect:{kind}", "depth:2"})
    rv = Lin("r")
    k = Lin("k")
    start = f"{rowptr.name}_r"
    end = f"{rowptr.name}_r_1"
    body = [b.assign(Ref(y, (rv,)), Bin("*", Ref(val, (k,)), Ref(x, (Ind(Ref(col, (k,))),))),
                     acc=True)]
    inner = b.loop("k", BArr(Ref(rowptr, (rv,)), 0, start, 0),
                   BArr(Ref(rowptr, (Lin("r", 1),)), 0, end, per_row), body)
    return [b.loop("r", Bound((), 0), Bound((), rows), [inner])]


def scratch(b: Builder) -> list:
    """A 2-D tile copied into a scratch array, computed from it, written back."""
    r = b.rng
    s = r.choice((4, 8, 16))
    n = s * r.choice((3, 4, 6))
    a = b.array("a", (n + 2, n + 2))
    c = b.array("c", (n + 2, n + 2))
    t = b.array("t", (s + 1, s + 1))
    b.classes.update({"scratch-tile", "depth:4", "bounds:tile-constant"})
    copy = b.assign(Ref(t, (Lin("ti"), Lin("tj"))),
                    Ref(a, (Lin("ti", 1, 1, "ii"), Lin("tj", 1, 1, "jj"))))
    use = b.assign(Ref(c, (Lin("ti", 1, 1, "ii"), Lin("tj", 1, 1, "jj"))),
                   b.combine([Ref(t, (Lin("ti"), Lin("tj"))), Ref(t, (Lin("ti", 1), Lin("tj")))]))

    def tile(body: list) -> Loop:
        return b.loop("tj", Bound((), 0), Bound((), s),
                      [b.loop("ti", Bound((), 0), Bound((), s), body)])

    inner = [tile([copy]), tile([use])]
    return [b.loop("jj", Bound((), 0), Bound((), n),
                   [b.loop("ii", Bound((), 0), Bound((), n), inner, step=s)], step=s)]


def array_syntax(b: Builder) -> list:
    """Fortran array sections (a row at a time) or whole-array statements."""
    r = b.rng
    rank = r.choice((1, 2))
    core = _spatial(b, rank)
    if r.random() < 0.5:
        extents = core
        arrs = [b.array(n, extents) for n in ("out", "p", "q")]
        axes = [Lin(v) for v in ("i", "j")[:rank]]
        refs = [Ref(a, tuple(axes)) for a in arrs]
        stmt = b.assign(refs[0], b.decorate(b.combine(refs[1:])))
        body = [b.loop("i", Bound((), 0), Bound((), extents[0]), [stmt], form="whole")]
        if rank == 2:
            body = [b.loop("j", Bound((), 0), Bound((), extents[1]), body, form="whole")]
        b.classes.update({"whole-array", f"depth:{rank}", "bounds:constant"})
        return body
    pad = r.choice((1, 2))
    extents = [n + 2 * pad for n in core]
    out, p = b.array("out", extents), b.array("p", extents)

    def at(arr, off=0):
        idx = [Lin("i", off)] + ([Lin("j")] if rank == 2 else [])
        return Ref(arr, tuple(idx))

    stmt = b.assign(at(out), b.combine([at(p, -pad), at(p), at(p, pad)]))
    body = [b.loop("i", Bound((), pad), Bound((), pad + core[0]), [stmt], form="section")]
    if rank == 2:
        body = [b.loop("j", Bound((), 0), Bound((), extents[1]), body)]
    b.classes.update({"section", f"depth:{rank}", "bounds:constant", "offsets"})
    return body


def sibling(b: Builder) -> list:
    """A pointwise nest over a new pair of arrays, beside the main one."""
    n = b.rng.choice((500, 1000, 2000))
    u, v = b.array("su", (n,)), b.array("sv", (n,))
    return [b.loop("i", Bound((), 0), Bound((), n),
                   [b.assign(Ref(u, (Lin("i"),)), Bin("+", Ref(v, (Lin("i"),)), b.const()))])]


BUILDERS = {"dense": dense, "strided": strided, "indirect": indirect, "csr": csr,
            "scratch": scratch, "array-syntax": array_syntax}


def make_nest(seed: int, index: int) -> Nest:
    rng = random.Random(f"{seed}:{index}")
    ident = f"n{index:05d}"
    family = rng.choice(FAMILIES)
    lang = "fortran" if family == "array-syntax" else rng.choice(("c", "fortran"))
    types = [t for t in TYPES if lang == "fortran" or t != "c8"]
    if family in ("indirect", "csr", "strided"):
        types = [t for t in types if t != "c8"]
    etype = rng.choice(types)
    b = Builder(rng, ident, lang, etype)
    body = BUILDERS[family](b)
    procedures = []
    if rng.random() < 0.3:
        steps = rng.choice((2, 3))
        b.classes.add("time-loop")
        inside = body
        if rng.random() < 0.5:
            callee = Procedure(f"sweep_{ident}", body)
            procedures.append(callee)
            inside = [Call(callee.name)]
            b.classes.add("time-loop-call")
        if rng.random() < 0.5:
            inside = [*inside, *sibling(b)]
            b.classes.add("siblings")
        body = [b.loop("t", Bound((), 0), Bound((), steps), inside)]
    nest = Nest(ident, lang, b.arrays, [Procedure(f"kernel_{ident}", body), *procedures],
                b.symbols, b.classes, seed, b.index_runs)
    forms.add_forms(nest, b.next_sid, b.next_lid)
    return nest


def generate(seed: int, count: int, start: int = 0) -> list[Nest]:
    return [make_nest(seed, k) for k in range(start, start + count)]
