"""Forms of a nest's text that real code writes and the shapes do not: drawn for a generated
nest on a stream of their own, after the nest.

The nest a seed draws stays the nest it drew before these forms existed (its loops, arrays
and statements come from the stream ``(seed, index)``); a form then writes it another way,
or adds a small part to it, from the stream ``(seed, index, "forms")``:

- ``statement-function`` (Fortran): each statement's expression is a statement function of
  its array references, used in the statement; the loop variables are declared after the
  statement functions;
- ``index-function`` (C): each array of two or more axes is one-dimensional, its element
  found by a ``static inline`` function of the subscripts;
- ``constant-subscript``: the main statement also reads two or three planes of an array with
  one more axis, the plane written as an expression (``z[i][3 - 1]``);
- ``array-reduction`` (Fortran): the procedure also computes ``dot_product(p, q)`` or
  ``sum(p * q)`` of two declared arrays;
- ``bounds:triangular-nested``: two loops inside an outer one both start at its variable
  (LU's ``do j = k, n; do i = k, n``), or the second at the first's (a chain);
- ``bounds:opaque``: a loop's end is read from a table of sizes (``do i = 1, sz(3)``), a
  parameter satreport cannot compute, given with ``--set``.
"""

from __future__ import annotations

import random

from nests import Array, Assign, BArr, Bin, Bound, Lin, Loop, Nest, Ref, walk

# the variables of the loops over axes (and of outer loops the data is invariant along)
AXIS_VARS = ("i", "j", "k", "l", "m")

# how often a nest that can take a form takes it
RATES = {"statement-function": 0.3, "index-function": 0.35, "constant-subscript": 0.25,
         "array-reduction": 0.2, "bounds:triangular-nested": 0.6, "bounds:opaque": 0.2}


def add_forms(nest: Nest, new_sid, new_lid) -> None:
    """Draw the forms of ``nest`` (in place); ``new_sid``/``new_lid`` number new statements
    and loops as the nest's builder does."""
    rng = random.Random(f"{nest.seed}:{nest.ident}:forms")
    draws = {name: rng.random() < rate for name, rate in RATES.items()}
    statements = [(s, outer) for proc in nest.procedures for s, outer in walk(proc.body)
                  if isinstance(s, Assign)]
    plain = all(lp.form == "loop" for _, outer in statements for lp in outer)
    timed = any(isinstance(s, Loop) and s.var == "t" for s in nest.procedures[0].body)
    if draws["statement-function"] and nest.lang == "fortran" and plain and statements \
            and "type:c8" not in nest.classes:
        nest.classes.add("statement-function")
    if draws["index-function"] and nest.lang == "c" and any(len(a.extents) > 1
                                                            for a in nest.arrays):
        nest.classes.add("index-function")
    main = next((s for s, _ in statements if s.lhs.array.name.startswith("out_")), None)
    if draws["constant-subscript"] and main is not None and plain:
        _planes(nest, main, rng)
    if draws["array-reduction"] and nest.lang == "fortran" and not timed \
            and "type:c8" not in nest.classes:
        _reduction(nest, rng, new_sid(), new_lid())
    if draws["bounds:triangular-nested"]:
        _triangular_nested(nest, rng)
    if draws["bounds:opaque"]:
        _opaque(nest, rng)


def _planes(nest: Nest, main: Assign, rng: random.Random) -> None:
    """``main`` also reads planes of ``z``, an array with one more (last) axis of 4 planes."""
    lhs = main.lhs
    z = Array(f"z_{nest.ident}", lhs.array.etype, (*lhs.array.extents, 4))
    nest.arrays.append(z)
    rhs = main.rhs
    for plane in rng.sample(range(4), rng.choice((2, 3))):
        rhs = Bin("+", rhs, Ref(z, (*lhs.idx, Lin(None, plane))))
    main.rhs = rhs
    nest.classes.add("constant-subscript")


def _reduction(nest: Nest, rng: random.Random, sid: int, lid: int) -> None:
    """``dot(1) = dot_product(p, q)`` (or ``sum(p * q)``) after the procedure's loops: a loop
    over the elements whose statement accumulates, as the truth runs it."""
    etype = next(c[5:] for c in nest.classes if c.startswith("type:"))
    n = rng.choice((300, 500, 1000))
    p, q = (Array(f"{name}_{nest.ident}", etype, (n,)) for name in ("rp", "rq"))
    red = Array(f"dot_{nest.ident}", etype, (1,))
    nest.arrays += [p, q, red]
    i = Lin("i")
    stmt = Assign(Ref(red, (Lin(None, 0),)), Bin("*", Ref(p, (i,)), Ref(q, (i,))), True, sid)
    form = rng.choice(("dot_product", "sum"))
    nest.procedures[0].body.append(Loop("i", Bound((), 0), Bound((), n), [stmt], form=form,
                                        lid=lid))
    nest.classes.add("array-reduction")


def _spatial(loop: Loop) -> bool:
    """A loop over an axis with constant bounds, step 1, ascending: one a form may change."""
    return (loop.var in AXIS_VARS and loop.form == "loop" and loop.step == 1
            and not loop.descending and isinstance(loop.lo, Bound) and not loop.lo.terms
            and isinstance(loop.hi, Bound) and not loop.hi.terms)


def _triangular_nested(nest: Nest, rng: random.Random) -> None:
    """Two loops in one outer loop both start at its variable (or at each other's): each
    inner range at least as long as the outer one, so every start lies within it."""
    chains = []
    for proc in nest.procedures:
        for item, outer in walk(proc.body):
            chain = (*outer, item)
            if not isinstance(item, Loop) or len(chain) < 3 \
                    or not all(_spatial(lp) for lp in chain[-3:]):
                continue
            span = [lp.hi.const - lp.lo.const for lp in chain[-3:]]
            if span[0] <= span[1] <= span[2]:
                chains.append(chain)
    if not chains:
        return
    # the innermost three loops that can: the axes rather than loops the data is invariant
    # along, where there are both
    top, mid, low = max(chains, key=len)[-3:]
    source = top if rng.random() < 0.5 else mid
    mid.lo = Bound(((top.var, 1),), mid.lo.const - top.lo.const)
    low.lo = Bound(((source.var, 1),), low.lo.const - source.lo.const)
    nest.classes.add("bounds:triangular-nested")


def _opaque(nest: Nest, rng: random.Random) -> None:
    """A loop's end read from a table of sizes ``sz``: satreport's parameter for ``sz(k)``
    (Fortran) or ``sz[k]`` (C), set to the end (Fortran's last index is the end)."""
    loops = [lp for lp, _ in walk(nest.procedures[0].body)
             if isinstance(lp, Loop) and _spatial(lp)]
    if not loops:
        return
    loop = rng.choice(loops)
    slot = rng.randrange(3)
    values = [rng.choice((7, 9, 11)) for _ in range(3)]
    values[slot] = loop.hi.const
    sz = Array(f"sz_{nest.ident}", "i4", (3,), values)
    nest.arrays.append(sz)
    if nest.lang == "fortran":  # do i = lo + 1, sz(slot + 1) - 1: the parameter is sz(...)
        param, value = f"{sz.name}_{slot + 1}", loop.hi.const + 1
    else:
        param, value = f"{sz.name}_{slot}", loop.hi.const
    loop.hi = BArr(Ref(sz, (Lin(None, slot),)), 0, param, value)
    nest.classes.add("bounds:opaque")
