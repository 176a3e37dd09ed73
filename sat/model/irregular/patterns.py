"""Idiom patterns: the built-in ones (``sat/data/idioms.yaml``) and ``--idioms FILE``, checked.

An idiom is a pattern over what the code description says of one loop level (see
:mod:`sat.model.irregular.idioms`, which matches them). ``--idioms FILE`` adds or replaces some
in the same form as the built-in file, checked here (one line ``file:line: what is wrong``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

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
    """A named access idiom: the conditions a loop meets to be one."""

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
                if not isinstance(kind, str):  # a nested list or mapping names no kind
                    raise self.fail(value.lines[key], f"subscripts: {key}: expected a kind "
                                    f"or a list of kinds ({', '.join((*KINDS, *GROUPS))}), "
                                    f"got {kind!r}")
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
