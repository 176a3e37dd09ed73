"""Loop idioms (PIR's: stream, transpose, gather, scatter, reduction, stencil), user-definable.

An idiom is a pattern over what the code description says of one loop level: for each array
its references (per dimension, what the subscript is: :class:`sat.ir.Subscript`), whether they
are read or written, and for each scalar whether it carries a value from one iteration to the
next. The built-in idioms are data (``sat/data/idioms.yaml``); ``--idioms FILE`` adds or
replaces some in the same form, checked here (one line ``file:line: what is wrong``).

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
the loop, from array elements the loop reads (``s = s + a(i)``; a counter ``n = n + 1`` is
not one).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

from sat.ir import Access, Body, Diagnostic, Loop, Procedure, Program, Scalar, Subscript
from sat.model.tables import Column, Table
from sat.model.tables import column as _c
from sat.resources import data_dir

BUILTIN_FILE = data_dir() / "idioms.yaml"

#: What a subscript is, seen from a loop (the module docstring), and the groups of them.
KINDS = ("loop", "outer", "indirect", "constant", "irregular")
GROUPS = {"invariant": frozenset(("outer", "constant")), "any": frozenset(KINDS)}
SUBJECTS = ("array", "scalar", "any")
ACCESSES = ("any", "read", "write", "update", "readonly", "writeonly")
STRIDES = ("any", "unit", "strided")
_CONDITION_KEYS = ("subject", "access", "subscripts", "stride", "references", "offsets",
                   "carried", "swapped")
_PATTERN_KEYS = ("description", *_CONDITION_KEYS, "with", "replaces")
_ARRAY_ONLY = ("access", "subscripts", "stride", "references", "offsets", "swapped")
_NAME = re.compile(r"[a-z][a-z0-9_]*\Z")


class IdiomFileError(ValueError):
    """A pattern file that cannot be used: one line, ``file:line: what is wrong``."""


# ------------------------------------------------------------------------------ patterns


@dataclass(frozen=True)
class Condition:
    """What one array (or scalar) of a loop must be; None: no condition."""

    subject: str = "array"
    access: str = "any"
    some: frozenset[str] | None = None
    all: frozenset[str] | None = None
    none: frozenset[str] | None = None
    stride: str = "any"
    references: tuple[int, int | None] | None = None
    offsets: tuple[int, int | None] | None = None
    carried: bool | None = None
    swapped: bool | None = None

    @property
    def per_reference(self) -> bool:
        """Whether some reference must meet conditions of its own."""
        return (self.access != "any" or self.some is not None or self.all is not None
                or self.none is not None or self.stride != "any" or self.carried is not None
                or self.swapped is not None)


@dataclass(frozen=True)
class Idiom:
    name: str
    description: str
    condition: Condition
    with_: tuple[Condition, ...] = ()
    replaces: tuple[str, ...] = ()
    source: str = "built-in"  # or the pattern file that defines it


@dataclass
class IdiomSet:
    """The idioms a run recognises, in report order, and the user files they came from."""

    idioms: dict[str, Idiom] = field(default_factory=dict)
    files: list[str] = field(default_factory=list)


def builtin_idioms() -> IdiomSet:
    """The idioms of ``sat/data/idioms.yaml``."""
    return IdiomSet(dict(_builtin()))


@cache
def _builtin() -> tuple[tuple[str, Idiom], ...]:
    from sat.safeyaml import read_plain_yaml

    # read without PyYAML (start-up time of every run), checked as a user's file is
    return tuple(_read(BUILTIN_FILE, "built-in", data=read_plain_yaml(BUILTIN_FILE)).items())


def read_idioms(path: str | Path, base: IdiomSet | None = None) -> IdiomSet:
    """The built-in idioms (or ``base``) with those of the pattern file ``path``: a new name is
    added, a known one replaced. Raises :class:`IdiomFileError`."""
    base = base or builtin_idioms()
    path = Path(path)
    if not path.is_file():
        raise IdiomFileError(f"{path}: no such idiom pattern file")
    read = _read(path, str(path), known=set(base.idioms))
    idioms = dict(base.idioms)
    idioms.update(read)
    return IdiomSet(idioms, [*base.files, str(path)])


def _read(path: Path, source: str, known: set[str] | None = None,
          data: Any = None) -> dict[str, Idiom]:
    """The idioms of the pattern file ``path``; ``data``: its document if already read."""
    from sat.safeyaml import Located, read_yaml

    display = str(path)
    if data is None:
        data = read_yaml(path, display, IdiomFileError,
                         "an idiom pattern file ('idioms:' then NAME: conditions)")
    if not isinstance(data, Located):
        raise _fail(display, getattr(data, "line", 1), "expected a mapping with 'idioms:'")
    for key in data:
        if key not in ("version", "idioms"):
            raise _fail(display, data.lines[key], f"unknown key {key!r}"
                        f"{_suggest(key, ('idioms', 'version'))}; a pattern file has "
                        "'idioms' (and 'version: 1')")
    if "version" in data and data["version"] != 1:
        raise _fail(display, data.lines["version"], f"version: {data['version']!r} is not 1, "
                    "the only version of the format")
    if "idioms" not in data:
        raise _fail(display, data.line, "idioms: missing (the patterns, NAME: conditions)")
    patterns = data["idioms"]
    line = data.lines["idioms"]
    if not isinstance(patterns, Located) or not patterns:
        raise _fail(display, line, "idioms: expected NAME: conditions entries")
    idioms: dict[str, Idiom] = {}
    for name, spec in patterns.items():
        where = patterns.lines[name]
        if not isinstance(name, str) or not _NAME.match(name):
            raise _fail(display, where, f"idiom name {name!r}: expected lower-case letters, "
                        "digits and '_', starting with a letter")
        reader = _PatternReader(display, name)
        idioms[name] = reader.idiom(spec, where, source)
    names = set(idioms) | (known or set())
    for name, spec in patterns.items():
        replaces = spec.get("replaces") if isinstance(spec, Located) else None
        for item, item_line in zip(replaces or (), getattr(replaces, "lines", ()),
                                   strict=False):
            if item == name:
                raise _fail(display, item_line, f"idiom '{name}': replaces itself")
            if item not in names:
                raise _fail(display, item_line, f"idiom '{name}': replaces {item!r}, which is "
                            f"no idiom{_suggest(item, sorted(names))}")
    return idioms


def _fail(display: str, line: int, message: str) -> IdiomFileError:
    return IdiomFileError(f"{display}:{line}: {message}")


def _suggest(word: object, choices) -> str:
    import difflib  # only for an error message: start-up time of every run

    close = difflib.get_close_matches(str(word), list(choices), n=1)
    return f" (did you mean {close[0]!r}?)" if close else ""


class _PatternReader:
    """Checks one idiom's entry: known keys, well-formed values, and that it can match."""

    def __init__(self, display: str, name: str):
        self.display = display
        self.name = name

    def fail(self, line: int, message: str) -> IdiomFileError:
        return _fail(self.display, line, f"idiom '{self.name}': {message}")

    def idiom(self, spec: Any, line: int, source: str) -> Idiom:
        from sat.safeyaml import Located, LocatedList

        if not isinstance(spec, Located):
            raise self.fail(line, "expected a mapping of conditions (subscripts:, access:, "
                            "carried:, ...)")
        for key in spec:
            if key not in _PATTERN_KEYS:
                raise self.fail(spec.lines[key], f"unknown key {key!r}"
                                f"{_suggest(key, _PATTERN_KEYS)}; a pattern has "
                                f"{', '.join(_PATTERN_KEYS)}")
        description = spec.get("description", "")
        if not isinstance(description, str):
            raise self.fail(spec.lines["description"], "description: expected text")
        condition = self.condition(spec, line)
        with_: list[Condition] = []
        if "with" in spec:
            items = spec["with"]
            at = spec.lines["with"]
            if isinstance(items, Located):
                items, lines = [items], [at]
            elif isinstance(items, LocatedList) and items:
                lines = items.lines
            else:
                raise self.fail(at, "with: expected a list of conditions another array or "
                                "scalar of the loop must meet")
            for item, item_line in zip(items, lines, strict=True):
                if not isinstance(item, Located):
                    raise self.fail(item_line, "with: expected conditions (a mapping)")
                for key in item:
                    if key not in _CONDITION_KEYS:
                        raise self.fail(item.lines[key], f"with: unknown key {key!r}"
                                        f"{_suggest(key, _CONDITION_KEYS)}; a condition has "
                                        f"{', '.join(_CONDITION_KEYS)}")
                with_.append(self.condition(item, item_line))
        replaces: tuple[str, ...] = ()
        if "replaces" in spec:
            value = spec["replaces"]
            if not isinstance(value, LocatedList) or not all(isinstance(v, str) for v in value):
                raise self.fail(spec.lines["replaces"], "replaces: expected a list of idiom "
                                "names ([stream])")
            replaces = tuple(value)
        if not condition.per_reference and condition.references is None \
                and condition.offsets is None and not with_:
            raise self.fail(line, "no condition: it would match every array of every loop; "
                            "give at least one (subscripts:, access:, carried:, ...)")
        return Idiom(self.name, " ".join(description.split()), condition, tuple(with_),
                     replaces, source)

    def condition(self, spec: Any, line: int) -> Condition:
        lines = spec.lines
        subject = self.choice(spec, "subject", SUBJECTS, "array")
        if subject == "scalar":
            for key in _ARRAY_ONLY:
                if key in spec:
                    raise self.fail(lines[key], f"can never match: {key} is about array "
                                    "references, and the subject is a scalar")
            if "carried" not in spec:
                raise self.fail(lines["subject"], "can never match: a scalar is matched by "
                                "carried: (true or false), which is missing")
        access = self.choice(spec, "access", ACCESSES, "any")
        stride = self.choice(spec, "stride", STRIDES, "any")
        some = all_ = none = None
        if "subscripts" in spec:
            some, all_, none = self.subscripts(spec["subscripts"], lines["subscripts"])
        references = self.count(spec, "references")
        offsets = self.count(spec, "offsets")
        carried = self.flag(spec, "carried")
        swapped = self.flag(spec, "swapped")
        # conditions that contradict one another: the pattern could never match
        reach = set(KINDS)
        if all_ is not None:
            reach &= all_
        if none is not None:
            reach -= none
        at = lines.get("subscripts", line)
        if not reach or (some is not None and not some & reach):
            raise self.fail(at, "can never match: no subscript meets its subscripts: "
                            "conditions together")
        if carried:
            if access in ("writeonly", "readonly"):
                raise self.fail(lines["carried"], f"can never match: a carried value is read "
                                f"and written, and access is {access}")
            if not reach & GROUPS["invariant"] or (some is not None
                                                    and not some & GROUPS["invariant"]):
                raise self.fail(lines["carried"], "can never match: a carried element has "
                                "only outer and constant subscripts")
            if stride != "any":
                raise self.fail(lines["carried"], "can never match: a carried element does "
                                "not move with the loop, so it has no stride")
        if stride != "any" and "loop" not in reach:
            raise self.fail(lines["stride"], "can never match: a stride needs a subscript in "
                            "the loop's variable, which its subscripts: conditions exclude")
        if swapped and not reach & {"loop", "outer"}:
            raise self.fail(lines["swapped"], "can never match: swapped dimensions are loop "
                            "variables, which its subscripts: conditions exclude")
        if references and offsets and references[1] is not None \
                and offsets[0] > references[1]:
            raise self.fail(lines["offsets"], "can never match: more offsets than references")
        return Condition(subject, access, some, all_, none, stride, references, offsets,
                         carried, swapped)

    def choice(self, spec: Any, key: str, allowed: tuple[str, ...], default: str) -> str:
        if key not in spec:
            return default
        value = spec[key]
        if value not in allowed:
            raise self.fail(spec.lines[key], f"{key}: {value!r} is not one of "
                            f"{', '.join(allowed)}{_suggest(value, allowed)}")
        return value

    def flag(self, spec: Any, key: str) -> bool | None:
        if key not in spec:
            return None
        value = spec[key]
        if not isinstance(value, bool):
            raise self.fail(spec.lines[key], f"{key}: expected true or false, got {value!r}")
        return value

    def count(self, spec: Any, key: str) -> tuple[int, int | None] | None:
        from sat.safeyaml import Located

        if key not in spec:
            return None
        value, line = spec[key], spec.lines[key]
        if isinstance(value, Located):
            for inner in value:
                if inner not in ("min", "max"):
                    raise self.fail(value.lines[inner], f"{key}: unknown key {inner!r}; "
                                    "expected min and max")
            low, high = value.get("min", 1), value.get("max")
        else:
            low = high = value
        for bound in (low, high):
            if bound is not None and (isinstance(bound, bool) or not isinstance(bound, int)
                                      or bound < 1):
                raise self.fail(line, f"{key}: expected a whole number of at least 1, or "
                                f"{{min: N, max: M}}, got {value!r}")
        if high is not None and low > high:
            raise self.fail(line, f"can never match: {key} at least {low} and at most {high}")
        return low, high

    def subscripts(self, value: Any, line: int):
        from sat.safeyaml import Located

        if not isinstance(value, Located):
            raise self.fail(line, "subscripts: expected some:, all: or none: with subscript "
                            f"kinds ({', '.join((*KINDS, *GROUPS))})")
        found: dict[str, frozenset[str]] = {}
        for key, kinds in value.items():
            if key not in ("some", "all", "none"):
                raise self.fail(value.lines[key], f"subscripts: unknown key {key!r}"
                                f"{_suggest(key, ('some', 'all', 'none'))}; expected some, "
                                "all or none")
            items = kinds if isinstance(kinds, list) else [kinds]
            expanded: set[str] = set()
            for kind in items:
                if kind in KINDS:
                    expanded.add(kind)
                elif kind in GROUPS:
                    expanded |= GROUPS[kind]
                else:
                    raise self.fail(value.lines[key], f"subscripts: {key}: {kind!r} is not a "
                                    f"subscript kind ({', '.join((*KINDS, *GROUPS))})"
                                    f"{_suggest(kind, (*KINDS, *GROUPS))}")
            found[key] = frozenset(expanded)
        return found.get("some"), found.get("all"), found.get("none")


# ----------------------------------------------------------------------------- the loops


@dataclass
class _Ref:
    """One reference of an array at a loop level, its subscripts seen from the loop."""

    array: str
    access: Access
    subs: tuple[Subscript, ...]
    kinds: tuple[str, ...]
    line: int

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
    procedure: Procedure
    loop: Loop
    depth: int
    chain: tuple[str, ...]  # loop variables, outermost first (this loop's last)
    refs: dict[str, list[_Ref]]
    scalars: dict[str, _Carrier]

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


def _bodies(loop: Loop) -> Iterator[Body]:
    """The loop level and its branch arms (not its inner loops)."""
    stack: list[Body] = [loop]
    while stack:
        body = stack.pop()
        yield body
        stack.extend(reversed(body.branches))


def _view(procedure: Procedure, loop: Loop, depth: int, chain: tuple[str, ...]) -> _LoopView:
    refs: dict[str, list[_Ref]] = {}
    array_names: set[str] = set()
    bodies = list(_bodies(loop))
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
                    _Ref(array.name, access, subs, kinds, access.line or loop.line))
    return _LoopView(procedure, loop, depth, chain, refs,
                     _carriers(loop, bodies, chain, array_names))


def _kind(sub: Subscript, var: str, chain: tuple[str, ...]) -> str:
    if sub.kind == "irregular":
        return "irregular"
    if sub.kind in ("induction", "indirect") and sub.var:
        if var and sub.var == var:
            return "loop" if sub.kind == "induction" else "indirect"
        if sub.var in chain:
            return "outer"
    return "constant"


_INDEX = re.compile(r"([A-Za-z_][\w%]*)\s*\(")


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


def _swapped(ref: _Ref, view: _LoopView) -> _Ref | None:
    """Another reference of the loop with the same loop variables in swapped dimensions, one
    of the two read and the other written (the transpose)."""
    mine = [s.var if k in ("loop", "outer") and s.kind == "induction" else None
            for s, k in zip(ref.subs, ref.kinds, strict=True)]
    if sum(v is not None for v in mine) < 2 or view.var not in mine:
        return None
    contiguous = _contiguous(ref, view.procedure.layout)
    for refs in view.refs.values():
        for other in refs:
            if other is ref or not ((ref.written and other.read) or (ref.read
                                                                    and other.written)):
                continue
            theirs = [s.var if k in ("loop", "outer") and s.kind == "induction" else None
                      for s, k in zip(other.subs, other.kinds, strict=True)]
            if sorted(v for v in theirs if v) != sorted(v for v in mine if v):
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
    points = _offsets(refs)
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
        return f"{text}, through {index.index}"
    if stride is None and "loop" in ref.kinds:
        stride = _stride(ref, view)
    if stride is not None and cond.carried is None:
        return f"{text}, {stride[1]}"
    return text


def _subjects(view: _LoopView) -> list[str]:
    return [*view.refs, *(n for n in view.scalars if n not in view.refs)]


def _meets(name: str, cond: Condition, view: _LoopView) -> tuple[int, str] | None:
    """(line, detail) when the array or scalar ``name`` of the loop meets ``cond``."""
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
