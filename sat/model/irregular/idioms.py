"""Loop idioms (PIR's: stream, transpose, gather, scatter, reduction, stencil), user-definable.

An idiom is a pattern over what the code description says of one loop level: for each array
its references (per dimension, what the subscript is: :class:`sat.ir.Subscript`), whether they
are read or written, and for each scalar whether it carries a value from one iteration to the
next. The built-in idioms are data (``sat/data/idioms.yaml``); ``--idioms FILE`` adds or
replaces some in the same form (:mod:`sat.model.irregular.patterns` reads and checks them).

Every loop level of the program is matched against every idiom, for each array (and scalar)
the level's own statements use (its branch arms included, its inner loops not). A subscript
is seen from the loop it is in:

- ``loop``: the loop's own variable (``a(i)`` in an ``i`` loop), with a stride;
- ``outer``: only enclosing loops' variables move it (``y(j)`` in an ``i`` loop);
- ``indirect``: an index array the loop steps through picks it (``x(col(k))``, also after
  ``j = col(k)``);
- ``constant``: no loop variable moves it (``a(3)``, ``a(n)``, ``a(idx(1))``);
- ``irregular``: it cannot be analysed (a function result, a pointer): such an access is
  reported as the idiom ``irregular`` (unclassified) with a warning, never dropped.

A value is *carried* when a reference reads and writes an element no subscript of which
moves with the loop (``y(j) = y(j) + ...`` in an ``i`` loop), or a scalar is read before it is
written in an iteration and its new value is computed, directly or through other scalars of
the loop, from array elements the loop reads or is chosen by a test on them (``s = s + a(i)``;
the arg-max ``if (a(i) > a(k)) k = i``; a counter ``n = n + 1`` is not one).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from sat.ir import Access, Body, Diagnostic, Loop, Procedure, Program, Scalar, Subscript
from sat.model.irregular.patterns import (
    GROUPS,
    Condition,
    IdiomSet,
    builtin_idioms,
)
from sat.model.tables import Column, Table
from sat.model.tables import column as _c
from sat.regex import LazyPattern

# ----------------------------------------------------------------------------- the loops


@dataclass
class _Ref:
    """One reference of an array at a loop level, its subscripts seen from the loop."""

    array: str
    access: Access
    subs: tuple[Subscript, ...]
    kinds: tuple[str, ...]
    line: int
    bound: bool = False  # read only in the bounds of an inner loop (rowptr(i), rowptr(i+1))

    @property
    def read(self) -> bool:
        return self.access.reads > 0

    @property
    def written(self) -> bool:
        return self.access.writes > 0


@dataclass
class _Carrier:
    """A scalar of a loop level: whether it carries a value fed by the loop's arrays."""

    name: str
    carried: bool
    line: int


@dataclass
class _LoopView:
    """A loop as the idiom conditions see it: its references, scalars and what was found."""

    procedure: Procedure
    loop: Loop
    depth: int
    chain: tuple[str, ...]  # loop variables, outermost first (this loop's last)
    refs: dict[str, list[_Ref]]
    scalars: dict[str, _Carrier]
    # what _meets found, by subject and id of the condition: every idiom asks again of each
    # subject for its partners (``with``), and a condition is the same object all the run
    met: dict[tuple[str, int], tuple[int, str] | None] = field(default_factory=dict)
    # positions of each array's body references (_offsets), the same for every condition
    points: dict[str, int] = field(default_factory=dict)
    # each reference's loop variables by dimension and their sorted names (_swapped), by id:
    # every reference is compared with every other one
    induction: dict[int, tuple[list[str | None], list[str]]] = field(default_factory=dict)

    @property
    def var(self) -> str:
        return self.loop.loopvar


@dataclass
class Match:
    """One row of the Idioms table: an idiom of one array (or scalar) in one loop."""

    procedure: str
    file: str
    line: int
    loop_line: int
    depth: int
    idiom: str
    array: str
    detail: str


def loop_levels(program: Program) -> Iterator[tuple[Procedure, Loop, int, tuple[str, ...]]]:
    """Every loop of the program with its depth and the loop variables down to it."""

    def walk(body: Body, depth: int, chain: tuple[str, ...]):
        for loop in body.loops:
            inner = (*chain, loop.loopvar) if loop.loopvar else chain
            yield loop, depth + 1, inner
            yield from walk(loop, depth + 1, inner)
        for branch in body.branches:
            yield from walk(branch, depth, chain)

    for procedure in program.procedures:
        for loop, depth, chain in walk(procedure, 0, ()):
            yield procedure, loop, depth, chain


def _view(procedure: Procedure, loop: Loop, depth: int, chain: tuple[str, ...]) -> _LoopView:
    refs: dict[str, list[_Ref]] = {}
    array_names: set[str] = set()
    bodies = list(loop.arms())
    # the bounds of the inner loops this level starts, by their line, and the lines of the
    # scalars set from an array there (first = rowptr(i), which the front end follows into
    # the bounds it sets)
    bounds = {inner.line: f"{inner.lower} {inner.upper}" for body in bodies
              for inner in body.loops}
    setting: dict[tuple[int, str], set[str]] = {}
    for body in bodies:
        for scalar in body.scalars:
            for source in scalar.sources:
                setting.setdefault((scalar.line, source.lower()), set()).add(scalar.name)
    for body in bodies:
        for array in body.arrays:
            array_names.add(array.name)
            for access in array.accesses:
                if any(isinstance(o, str) and ":" in o for o in access.offsets):
                    continue  # a section or a whole array: not one element per iteration
                subs = access.subscripts if len(access.subscripts) == len(access.offsets) \
                    else _derived(access, chain)
                kinds = tuple(_kind(sub, loop.loopvar, chain) for sub in subs)
                refs.setdefault(array.name, []).append(
                    _Ref(array.name, access, subs, kinds, access.line or loop.line,
                         _bound(array.name, access, subs, bounds, setting)))
    return _LoopView(procedure, loop, depth, chain, refs,
                     _carriers(loop, bodies, chain, array_names))


def _bound(name: str, access: Access, subs: tuple[Subscript, ...], bounds: dict[int, str],
           setting: dict[tuple[int, str], set[str]]) -> bool:
    """Whether a read bounds an inner loop: in the loop statement itself (``do k =
    rowptr(i), rowptr(i+1)-1``), or through a scalar set from it that a bound names
    (``first = rowptr(i)`` and ``do k = first, last``) or that the front end followed into
    the bound (``rowptr(i)``)."""
    if access.writes:
        return False
    if access.line in bounds:
        return re.search(rf"(?<![\w%]){re.escape(name)}\s*[\[(]", bounds[access.line],
                         re.I) is not None
    scalars = setting.get((access.line, name.lower()))
    if not scalars:
        return False
    text = f"{name}({','.join(sub.text for sub in subs)})".lower().replace(" ", "")
    return any((subs and text in bound.lower().replace(" ", "")) or any(
        re.search(rf"(?<![\w%]){re.escape(scalar)}(?!\w)", bound, re.I) for scalar in scalars)
        for bound in bounds.values())


def _kind(sub: Subscript, var: str, chain: tuple[str, ...]) -> str:
    if sub.kind == "irregular":
        return "irregular"
    if sub.kind == "indirect" and var and sub.run == var:
        return "indirect"  # the run along this loop from an element an index array picks
    if sub.kind in ("induction", "indirect") and sub.var:
        if var and sub.var == var:
            return "loop" if sub.kind == "induction" else "indirect"
        if sub.var in chain:
            return "outer"
    return "constant"


_INDEX = LazyPattern(r"([A-Za-z_][\w%]*)\s*\(")
_NAME = re.compile(r"[A-Za-z_]\w*")


def _derived(access: Access, chain: tuple[str, ...]) -> tuple[Subscript, ...]:
    """Subscripts from the offsets alone (a code description without them: the original
    tool's): ``(0, "i")`` is ``i``, ``("col(k) - k", "k")`` an index array ``col``."""
    subs = []
    for offset, var in zip(access.offsets, access.loopvars, strict=True):
        text = str(offset)
        index = _INDEX.search(text) if isinstance(offset, str) else None
        moving = index is not None and any(re.search(rf"\b{re.escape(v)}\b", text)
                                           for v in chain)
        if moving:
            inner = next((v for v in reversed(chain) if re.search(rf"\b{re.escape(v)}\b",
                                                                 text)), var)
            subs.append(Subscript("indirect", inner, index=index.group(1), text=text))
        elif var:
            subs.append(Subscript("induction", var, 1, offset, text=f"{var}{_signed(offset)}"))
        else:
            subs.append(Subscript("invariant", index=index.group(1) if index else "",
                                  text=text))
    return tuple(subs)


def _signed(offset: int | str) -> str:
    if isinstance(offset, int):
        return "" if offset == 0 else f"{offset:+d}"
    return f"+({offset})"


def _carriers(loop: Loop, bodies: list[Body], chain: tuple[str, ...],
              arrays: set[str]) -> dict[str, _Carrier]:
    """The scalars of a loop level that carry a value fed by arrays (the module docstring)."""
    own = {s.name: s for s in loop.scalars}
    arms: dict[str, list[Scalar]] = {}
    for body in bodies[1:]:
        for scalar in body.scalars:
            arms.setdefault(scalar.name, []).append(scalar)
    everything: dict[str, list[Scalar]] = {}
    for body in bodies:
        for scalar in body.scalars:
            everything.setdefault(scalar.name, []).append(scalar)
    sources = {name: {s for sc in found for s in sc.sources} for name, found in
               everything.items()}
    # A value chosen by a test on the loop's arrays is fed by them too (the arg-max
    # ``if (a(i) > a(k)) k = i``): the names of an arm's condition feed what the arm writes.
    for body in bodies[1:]:
        tested = set(_NAME.findall(getattr(body, "condition", "")))
        for scalar in body.scalars:
            if scalar.writes:
                sources.setdefault(scalar.name, set()).update(tested)
    unknown_flow = {name for name, found in everything.items()
                    if all(not sc.sources and not sc.line for sc in found)}
    reads_arrays = any(ref_reads for ref_reads in _array_reads(bodies))
    out: dict[str, _Carrier] = {}
    for name, found in everything.items():
        if name in chain or any(s.is_constant for s in found):
            continue
        mine, theirs = own.get(name), arms.get(name, [])
        if mine is not None:
            carried = mine.accesstype == "readwrite" or (
                mine.accesstype == "readonly" and any(s.writes for s in theirs))
        else:
            carried = any(s.accesstype == "readwrite" for s in theirs)
        if carried:
            carried = reads_arrays if name in unknown_flow else _fed(name, sources, arrays)
        written = [s.line for s in found if s.writes and s.line]
        line = min(written) if written else (mine.line if mine is not None else 0)
        out[name] = _Carrier(name, carried, line or loop.line)
    return out


def carried_scalars(loop: Loop) -> list[str]:
    """The scalars that carry a value fed by arrays from one iteration of ``loop`` to the next
    (a reduction, ``s = s + a(i)``), as the idioms' ``carried: true`` sees them."""
    bodies = list(loop.arms())
    arrays = {array.name for body in bodies for array in body.arrays}
    chain = (loop.loopvar,) if loop.loopvar else ()
    return sorted(name for name, carrier in _carriers(loop, bodies, chain, arrays).items()
                  if carrier.carried)


def _array_reads(bodies: list[Body]) -> Iterator[bool]:
    for body in bodies:
        for array in body.arrays:
            yield array.reads > 0


def _fed(name: str, sources: dict[str, set[str]], arrays: set[str]) -> bool:
    """Whether a scalar's value comes, through the loop's scalars, from the loop's arrays."""
    seen = {name}
    frontier = [name]
    while frontier:
        for source in sources.get(frontier.pop(), ()):
            if source in arrays:
                return True
            if source not in seen and source in sources:
                seen.add(source)
                frontier.append(source)
    return False


# ----------------------------------------------------------------------------- matching


def _matches_kinds(kinds: tuple[str, ...], cond: Condition) -> bool:
    if cond.some is not None and not any(k in cond.some for k in kinds):
        return False
    if cond.all is not None and not all(k in cond.all for k in kinds):
        return False
    return cond.none is None or not any(k in cond.none for k in kinds)


def _access_ok(ref: _Ref, access: str) -> bool:
    read, written = ref.read, ref.written
    return {"any": True, "read": read, "write": written, "update": read and written,
            "readonly": read and not written, "writeonly": written and not read}[access]


def _contiguous(ref: _Ref, layout: str) -> int:
    return 0 if layout == "column-major" else len(ref.subs) - 1


def _stride(ref: _Ref, view: _LoopView) -> tuple[str, str] | None:
    """("unit" or "strided", how) of the loop's variable in a reference; None without it."""
    dims = [d for d, kind in enumerate(ref.kinds) if kind == "loop"]
    if not dims:
        return None
    contiguous = _contiguous(ref, view.procedure.layout)
    step = _int(view.loop.stride)
    if len(dims) == 1:
        coeff = ref.subs[dims[0]].coeff
        stride = coeff * step if isinstance(coeff, int) and step is not None else None
        if dims[0] == contiguous and stride in (1, -1):
            return "unit", "unit stride"
        if dims[0] == contiguous:
            return "strided", f"stride {stride if stride is not None else coeff}"
        return "strided", f"along dimension {dims[0] + 1}"
    return "strided", "along dimensions " + ", ".join(str(d + 1) for d in dims)


def _int(text: str) -> int | None:
    try:
        return int(text)
    except (TypeError, ValueError):
        return None


def _carried(ref: _Ref) -> bool:
    return ref.read and ref.written and all(k in GROUPS["invariant"] for k in ref.kinds)


def _induction(ref: _Ref, view: _LoopView) -> tuple[list[str | None], list[str]]:
    """The loop variable subscripting each dimension of ``ref`` (None for another subscript),
    and those variables sorted."""
    found = view.induction.get(id(ref))
    if found is None:
        by_dim = [s.var if k in ("loop", "outer") and s.kind == "induction" else None
                  for s, k in zip(ref.subs, ref.kinds, strict=True)]
        found = view.induction[id(ref)] = (by_dim, sorted(v for v in by_dim if v))
    return found


def _swapped(ref: _Ref, view: _LoopView) -> _Ref | None:
    """Another reference of the loop with the same loop variables in swapped dimensions, one
    of the two read and the other written (the transpose)."""
    mine, my_vars = _induction(ref, view)
    if sum(v is not None for v in mine) < 2 or view.var not in mine:
        return None
    contiguous = _contiguous(ref, view.procedure.layout)
    for refs in view.refs.values():
        for other in refs:
            if other is ref or not ((ref.written and other.read) or (ref.read
                                                                    and other.written)):
                continue
            theirs, their_vars = _induction(other, view)
            if their_vars != my_vars:
                continue
            there = _contiguous(other, view.procedure.layout)
            if mine[contiguous] and theirs[there] and mine[contiguous] != theirs[there]:
                return other
    return None


def _offsets(refs: list[_Ref]) -> int:
    """Distinct positions at constant offsets from one another: references grouped by what
    their subscripts are apart from whole-number offsets."""
    groups: dict[tuple, set[tuple]] = {}
    for ref in refs:
        shape, offsets = [], []
        for sub, kind in zip(ref.subs, ref.kinds, strict=True):
            if sub.kind == "induction" and isinstance(sub.offset, int) \
                    and isinstance(sub.coeff, int):
                shape.append((kind, sub.var, sub.coeff))
                offsets.append(sub.offset)
            else:
                shape.append((kind, sub.kind, sub.var, sub.index, sub.text, str(sub.offset)))
        groups.setdefault(tuple(shape), set()).add(tuple(offsets))
    return max((len(v) for v in groups.values()), default=0)


def _in(count: int, bounds: tuple[int, int | None] | None) -> bool:
    return bounds is None or (count >= bounds[0] and (bounds[1] is None or count <= bounds[1]))


def _array_match(name: str, cond: Condition, view: _LoopView) -> tuple[_Ref, str] | None:
    """The first reference of array ``name`` meeting ``cond`` and a detail, or None."""
    if cond.subject == "scalar":
        return None
    refs = view.refs.get(name, [])
    if not refs or not _in(len(refs), cond.references):
        return None
    # an inner loop's bounds (rowptr(i), rowptr(i+1)) are read once per iteration: one
    # position, whatever their offsets, never a stencil
    points = view.points.get(name)
    if points is None:
        body = [ref for ref in refs if not ref.bound]
        points = view.points[name] = _offsets(body) if body else 1
    if not _in(points, cond.offsets):
        return None
    for ref in refs:
        if not _access_ok(ref, cond.access) or not _matches_kinds(ref.kinds, cond):
            continue
        stride = _stride(ref, view) if cond.stride != "any" or cond.per_reference else None
        if cond.stride != "any" and (stride is None or stride[0] != cond.stride):
            continue
        if cond.carried is not None and _carried(ref) != cond.carried:
            continue
        partner = _swapped(ref, view) if cond.swapped is not None else None
        if cond.swapped is not None and (partner is not None) != cond.swapped:
            continue
        return ref, _detail(ref, view, cond, points, partner, stride)
    return None


def _scalar_match(name: str, cond: Condition, view: _LoopView) -> _Carrier | None:
    if cond.subject == "array":
        return None
    carrier = view.scalars.get(name)
    if carrier is None or cond.carried is None:
        return None
    return carrier if (carrier.carried == cond.carried) else None


def _ref_text(ref: _Ref, layout: str) -> str:
    texts = [s.text or "?" for s in ref.subs]
    if layout == "row-major":
        return ref.array + "".join(f"[{t}]" for t in texts)
    return f"{ref.array}({','.join(texts)})"


def _detail(ref: _Ref, view: _LoopView, cond: Condition, points: int,
            partner: _Ref | None, stride: tuple[str, str] | None) -> str:
    layout = view.procedure.layout
    text = _ref_text(ref, layout)
    if partner is not None:
        return f"{text} and {_ref_text(partner, layout)}"
    if cond.offsets is not None and cond.offsets[0] >= 2:
        return f"{points} points"
    if "irregular" in ref.kinds:
        what = next(s.text for s, k in zip(ref.subs, ref.kinds, strict=True)
                    if k == "irregular")
        return f"{text}: subscript {what} not analysable"
    index = next((s for s, k in zip(ref.subs, ref.kinds, strict=True) if k == "indirect"),
                 None)
    if index is not None:
        run = f", contiguous runs along {index.run}" if index.run else ""
        return f"{text}, through {index.index}{run}"
    if stride is None and "loop" in ref.kinds:
        stride = _stride(ref, view)
    if stride is not None and cond.carried is None:
        return f"{text}, {stride[1]}"
    return text


def _subjects(view: _LoopView) -> list[str]:
    return [*view.refs, *(n for n in view.scalars if n not in view.refs)]


def _meets(name: str, cond: Condition, view: _LoopView) -> tuple[int, str] | None:
    """(line, detail) when the array or scalar ``name`` of the loop meets ``cond``."""
    key = (name, id(cond))
    if key in view.met:
        return view.met[key]
    met = view.met[key] = _first_meeting(name, cond, view)
    return met


def _first_meeting(name: str, cond: Condition, view: _LoopView) -> tuple[int, str] | None:
    """:func:`_meets` without the memo."""
    found = _array_match(name, cond, view) if name in view.refs else None
    if found is not None:
        return found[0].line, found[1]
    carrier = _scalar_match(name, cond, view) if name in view.scalars else None
    if carrier is not None:
        return carrier.line, f"{name} (a scalar)"
    return None


def recognise(program: Program, idioms: IdiomSet | None = None
              ) -> tuple[list[Match], list[Diagnostic]]:
    """Every idiom of every loop of ``program``, and a warning per access that cannot be
    analysed (reported as the idiom ``irregular``)."""
    idioms = idioms or builtin_idioms()
    matches: list[Match] = []
    warnings: list[Diagnostic] = []
    warned: set[tuple[str, int, str, str]] = set()
    for procedure, loop, depth, chain in loop_levels(program):
        view = _view(procedure, loop, depth, chain)
        file = loop.file or procedure.file
        for refs in view.refs.values():
            for ref in refs:
                for sub, kind in zip(ref.subs, ref.kinds, strict=True):
                    key = (file, ref.line, ref.array, sub.text)
                    if kind == "irregular" and key not in warned:
                        warned.add(key)
                        warnings.append(Diagnostic(
                            f"subscript '{sub.text}' of '{ref.array}' cannot be analysed (a "
                            "function result, a pointer, or not linear in the loop variables): "
                            "the access is reported as an irregular idiom, unclassified", file,
                            ref.line))
        found: list[Match] = []
        for name in _subjects(view):
            here: dict[str, Match] = {}
            for idiom in idioms.idioms.values():
                hit = _meets(name, idiom.condition, view)
                if hit is None or not all(
                        any(_meets(other, cond, view) for other in _subjects(view)
                            if other != name) for cond in idiom.with_):
                    continue
                here[idiom.name] = Match(procedure.name, file, hit[0], loop.line, depth,
                                         idiom.name, name, hit[1])
            dropped = {r for n in here for r in idioms.idioms[n].replaces if r != n}
            found.extend(m for n, m in here.items() if n not in dropped)
        order = {name: at for at, name in enumerate(idioms.idioms)}
        found.sort(key=lambda m: (m.line, order[m.idiom], m.array))
        matches.extend(found)
    return matches, warnings


# ------------------------------------------------------------------------------ tables

IDIOM_COLUMNS: list[Column] = [
    _c("file", "File", "", "Source file of the loop."),
    _c("line", "Line", "", "Line of the statement where the idiom is (the first one)."),
    _c("function", "Function", "", "Procedure holding the loop."),
    _c("loop_line", "Loop line", "", "Line of the loop the idiom is in."),
    _c("depth", "Depth", "", "Nesting depth of that loop in its procedure (1: outermost)."),
    _c("idiom", "Idiom", "", "stream, transpose, gather, scatter, reduction, stencil, "
       "irregular (unclassified), or a name from an --idioms file."),
    _c("array", "Array", "", "The array (or scalar, for a reduction) the idiom is about."),
    _c("detail", "Detail", "", "The reference that matched: its stride, index array, "
       "number of stencil points or transposed partner."),
    _c("code", "Code", "", "The source line, as written."),
]

COUNT_COLUMNS: list[Column] = [
    _c("idiom", "Idiom", "", "The idiom."),
    _c("count", "Count", "", "Rows of the Idioms sheet: loops times arrays."),
    _c("loops", "Loops", "", "Loops where it occurs at least once."),
    _c("description", "Description", "", "What the pattern recognises."),
    _c("source", "Defined in", "", "built-in (sat/data/idioms.yaml) or the --idioms file."),
]


def idiom_tables(program: Program, idioms: IdiomSet | None = None
                 ) -> tuple[Table, Table, list[Diagnostic]]:
    """The Idioms table (one row per loop, idiom and array), the counts per idiom, and the
    warnings about accesses that cannot be analysed."""
    idioms = idioms or builtin_idioms()
    matches, warnings = recognise(program, idioms)
    lines = _SourceLines()
    rows = [{"file": m.file, "line": m.line, "function": m.procedure,
             "loop_line": m.loop_line, "depth": m.depth, "idiom": m.idiom, "array": m.array,
             "detail": m.detail, "code": lines.code(m.file, m.line)} for m in matches]
    counts = []
    for idiom in idioms.idioms.values():
        mine = [m for m in matches if m.idiom == idiom.name]
        counts.append({"idiom": idiom.name, "count": len(mine),
                       "loops": len({(m.file, m.procedure, m.loop_line) for m in mine}),
                       "description": idiom.description, "source": idiom.source})
    files = f" and {', '.join(idioms.files)}" if idioms.files else ""
    table = Table("Idioms", "Loop idioms", IDIOM_COLUMNS, rows, None,
                  "One row per loop, idiom and array (after PIR's idiom recognizer): the "
                  f"patterns of sat/data/idioms.yaml{files}.")
    count_table = Table("Idiom counts", "Idioms found, per idiom", COUNT_COLUMNS, counts, None,
                        "How often each idiom occurs; every pattern is listed, found or not.")
    return table, count_table, warnings


class _SourceLines:
    """The text of source lines, read once per file (missing files give empty text)."""

    MAX_LENGTH = 200

    def __init__(self) -> None:
        self.files: dict[str, list[str]] = {}

    def code(self, path: str, line: int) -> str:
        if not path or line < 1:
            return ""
        lines = self.files.get(path)
        if lines is None:
            try:
                lines = Path(path).read_text(encoding="utf-8", errors="replace").splitlines()
            except OSError:
                lines = []
            self.files[path] = lines
        if line > len(lines):
            return ""
        fortran = not path.lower().endswith((".c", ".h"))
        text = _strip_comment(lines[line - 1], fortran)
        more = line
        # a statement continued on the following lines (Fortran '&', C up to ';' or '{')
        while more < len(lines) and more - line < 5 and (
                (fortran and text.rstrip().endswith("&"))
                or (not fortran and text.strip() and not text.rstrip().endswith((";", "{",
                                                                                 "}", ")")))):
            text = text.rstrip().rstrip("&") + " " + _strip_comment(lines[more], fortran
                                                                   ).strip().lstrip("&")
            more += 1
        text = " ".join(text.split())
        return text if len(text) <= self.MAX_LENGTH else text[:self.MAX_LENGTH - 1] + "…"


def _strip_comment(text: str, fortran: bool) -> str:
    if fortran:
        quote = ""
        for at, char in enumerate(text):
            if quote:
                quote = "" if char == quote else quote
            elif char in "'\"":
                quote = char
            elif char == "!":
                return text[:at]
        return text
    text = re.sub(r"/\*.*?\*/", " ", text)
    return text.split("//", 1)[0]
