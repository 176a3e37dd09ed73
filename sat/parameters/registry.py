"""The parameter registry: machine and software parameters, ExaSAT's parameter files, ``--set``.

ExaSAT's files are read as is; each is a root element holding ``<prop key=… val=…/>``:

* ``params.xml``: values of code symbols, ``key="hi(1)" val="128"``, or several at once,
  ``key="(lo(1), hi(1))" val="(1, 128)"``;
* ``block_params.xml``: block bounds for a ``(lo, hi)`` symbol pair,
  ``key="(lo(1), hi(1))" val="(1, 16)"``.  They also give the block sizes ``BlockX``, ``BlockY``,
  ``BlockZ``: the pairs whose symbols end in ``(1)`` / ``1`` are dimension x, and so on; the size
  is ``hi - lo + 1``, and when a file's pairs disagree for a dimension the most common size wins
  (the source of the value says so);
* ``symsubs.xml``: symbols defined by expressions, ``key="dlo(1)" val="lo(1) - ng"``;
* ``conds.xml``: probability that a condition holds, ``key="present(courno)" val="1.0"``;
* ``namesubs.xml``: display substitutions (read by :func:`read_namesubs`).

``--set NAME=VALUE`` overrides a machine or software parameter (``CacheKB=512``, names are
case-insensitive as in Excel) or gives a code symbol's value (``hi(1)=256`` and ``hi_1=256`` are
the same symbol).
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from sat.machine import MACHINE_SPECS, Machine
from sat.machine.spec import parse_number
from sat.model.nests import DEFAULT_SETUP_ITERATIONS
from sat.parameter import Parameter, ParameterSet, ParameterSpec, check_value, symbol_to_name
from sat.parameters.costs import add_cost_parameters, cost_spec
from sat.parameters.levels import add_level_parameters, level_spec
from sat.safexml import read_xml


class ParameterError(ValueError):
    """A parameter file, ``--set`` or value that cannot be used; the message is one line."""


SOFTWARE_SPECS: tuple[ParameterSpec, ...] = (
    ParameterSpec("StreamingWrites", "",
                  "TRUE if array writes bypass the cache (streaming stores), so written data is "
                  "not read into the cache first.", 0, "flag", "boolean"),
    ParameterSpec("NTAHints", "",
                  "TRUE if arrays read without reuse are read with non-temporal hints, so they do "
                  "not push reusable data out of the cache.", 0, "flag", "boolean"),
    ParameterSpec("BlockX", "elements",
                  "Cache block size along x (the unit-stride dimension); 0 means no blocking.",
                  0, "count", "integer"),
    ParameterSpec("BlockY", "elements", "Cache block size along y; 0 means no blocking.",
                  0, "count", "integer"),
    ParameterSpec("BlockZ", "elements", "Cache block size along z; 0 means no blocking.",
                  0, "count", "integer"),
)
SOFTWARE_PARAMETERS = tuple(spec.name for spec in SOFTWARE_SPECS)
SPECS: dict[str, ParameterSpec] = {spec.name: spec for spec in MACHINE_SPECS + SOFTWARE_SPECS}
_BLOCK_NAMES = {1: "BlockX", 2: "BlockY", 3: "BlockZ"}
_TRUE = {"true", "1", "yes"}
_FALSE = {"false", "0", "no"}


# ------------------------------------------------------------------ ExaSAT's files


# The root element of each kind of ExaSAT file, as the original tool writes them.
_ROOTS = {"parameter": "params", "block parameter": "params", "symbol substitution": "symsubs",
          "condition": "conds", "name substitution": "namesubs"}


def _props(path: str | Path, what: str) -> list[tuple[str, str, int]]:
    """(key, val, line) of every ``<prop>`` of an ExaSAT parameter file."""
    display = str(path)
    root = read_xml(Path(path), display, ParameterError)
    if root.tag != _ROOTS[what]:
        raise ParameterError(f"{display}:{root.sourceline or 1}: the root element is "
                             f"<{root.tag}>, but a {what} file is <{_ROOTS[what]}>")
    result = []
    for element in root:
        line = element.sourceline or 0
        if element.tag != "prop":
            raise ParameterError(f"{display}:{line}: unexpected <{element.tag}>: a {what} file "
                                 "holds <prop key=… val=…/> elements")
        key, val = element.get("key"), element.get("val")
        if key is None or not key.strip():
            raise ParameterError(f"{display}:{line}: <prop> without a key")
        if val is None or not val.strip():
            raise ParameterError(f"{display}:{line}: {key.strip()}: no value (val attribute)")
        result.append((" ".join(key.split()), val.strip(), line))
    return result


def split_top_level(text: str) -> list[str] | None:
    """``"(lo(1), hi(1))"`` -> ``["lo(1)", "hi(1)"]``; ``None`` if the text is not a tuple."""
    text = text.strip()
    if not (text.startswith("(") and text.endswith(")")):
        return None
    items, depth, current = [], 0, ""
    for char in text[1:-1]:
        if char == "(":
            depth += 1
        elif char == ")":
            depth -= 1
            if depth < 0:
                return None
        if char == "," and depth == 0:
            items.append(current.strip())
            current = ""
        else:
            current += char
    if depth != 0:
        return None
    items.append(current.strip())
    return items if all(items) else None


def _is_tuple(key: str) -> bool:
    """A parenthesised list of several symbols, as opposed to one symbol such as ``hi(1)``."""
    items = split_top_level(key)
    return items is not None and len(items) > 1


def _store(target: dict, key, value, lines: dict, line: int, display: str) -> None:
    """Record ``key``; a key given twice with different values is an error."""
    if key in target and target[key] != value:
        shown = key if isinstance(key, str) else f"({', '.join(key)})"
        raise ParameterError(f"{display}:{line}: {shown} given twice with different values "
                             f"(also line {lines[key]})")
    target[key] = value
    lines.setdefault(key, line)


def read_params(path: str | Path) -> dict[str, tuple[float, str]]:
    """ExaSAT ``params.xml``: code symbol -> (value, source)."""
    display, source = str(path), f"parameter file {path}"
    values: dict[str, tuple[float, str]] = {}
    lines: dict[str, int] = {}
    for key, val, line in _props(path, "parameter"):
        if _is_tuple(key):
            symbols, raws = split_top_level(key) or [], split_top_level(val)
            if raws is None or len(raws) != len(symbols):
                raise ParameterError(f"{display}:{line}: {key} needs {len(symbols)} values "
                                     f"in parentheses, got {val!r}")
        else:
            symbols, raws = [key], [val]
        for symbol, raw in zip(symbols, raws, strict=True):
            value = parse_number(raw)
            if value is None:
                raise ParameterError(f"{display}:{line}: {symbol}: {raw!r} is not a number")
            _store(values, symbol, (value, source), lines, line, display)
    return values


@dataclass
class BlockParams:
    """What ``block_params.xml`` says: block bounds per (lo, hi) pair, block sizes per dimension."""

    bounds: dict[tuple[str, str], tuple[str, str]] = field(default_factory=dict)
    sizes: dict[str, tuple[int, str]] = field(default_factory=dict)  # BlockX -> (size, source)


_DIMENSION = re.compile(r"(?:\(\s*(\d+)\s*\)|(\d+))$")


def _dimension(symbol: str) -> int | None:
    """1, 2 or 3 for a symbol ending in ``(k)`` or ``k``, else ``None``."""
    match = _DIMENSION.search(symbol.strip())
    if not match:
        return None
    k = int(match.group(1) or match.group(2))
    return k if k in _BLOCK_NAMES else None


def read_block_params(path: str | Path) -> BlockParams:
    """ExaSAT ``block_params.xml``: block bounds, and the block sizes they imply."""
    display, source = str(path), f"parameter file {path}"
    result = BlockParams()
    lines: dict[tuple[str, str], int] = {}
    sizes: dict[int, list[tuple[int, tuple[str, str]]]] = {}
    for key, val, line in _props(path, "block parameter"):
        pair, bounds = split_top_level(key), split_top_level(val)
        if pair is None or len(pair) != 2:
            raise ParameterError(f"{display}:{line}: key {key!r} is not a (lo, hi) pair")
        if bounds is None or len(bounds) != 2:
            raise ParameterError(f"{display}:{line}: {key}: value {val!r} is not a "
                                 "(lo, hi) pair")
        lo, hi = pair[0], pair[1]
        _store(result.bounds, (lo, hi), (bounds[0], bounds[1]), lines, line, display)
        low, high = parse_number(bounds[0]), parse_number(bounds[1])
        if low is None or high is None:
            continue  # symbolic block bounds: no size to derive
        if not (low.is_integer() and high.is_integer()) or high < low:
            raise ParameterError(f"{display}:{line}: {key}: block bounds {val} must be whole "
                                 "numbers with lo <= hi")
        k = _dimension(lo)
        if k is not None and _dimension(hi) == k:
            sizes.setdefault(k, []).append((int(high - low) + 1, (lo, hi)))
    for k, found in sorted(sizes.items()):
        counts = Counter(size for size, _ in found)
        best = max(counts.values())
        size = next(s for s, _ in found if counts[s] == best)  # ties: the first listed
        others = [f"({lo}, {hi}) gives {s}" for s, (lo, hi) in found if s != size]
        detail = f" (most common of {len(found)} pairs; {'; '.join(others)})" if others else ""
        result.sizes[_BLOCK_NAMES[k]] = (size, source + detail)
    return result


def read_symsubs(path: str | Path) -> dict[str, str]:
    """ExaSAT ``symsubs.xml``: symbol -> the expression that defines it."""
    result: dict[str, str] = {}
    lines: dict[str, int] = {}
    for key, val, line in _props(path, "symbol substitution"):
        _store(result, key, val, lines, line, str(path))
    return result


def read_conds(path: str | Path) -> dict[str, float]:
    """ExaSAT ``conds.xml``: condition text -> probability (0..1) that it holds."""
    result: dict[str, float] = {}
    lines: dict[str, int] = {}
    for key, val, line in _props(path, "condition"):
        value = parse_number(val)
        if value is None or not 0 <= value <= 1:
            raise ParameterError(f"{path}:{line}: {key}: probability must be a number from 0 "
                                 f"to 1, got {val!r}")
        _store(result, key, value, lines, line, str(path))
    return result


def read_namesubs(path: str | Path) -> dict[str, str]:
    """ExaSAT ``namesubs.xml``: text -> display name (``qx1+n-1`` -> ``qxn``)."""
    result: dict[str, str] = {}
    lines: dict[str, int] = {}
    for key, val, line in _props(path, "name substitution"):
        _store(result, key, val, lines, line, str(path))
    return result


# ------------------------------------------------------------------ the registry


def _normalise(value: float) -> float:
    """Whole numbers as ``int`` so that they print as 1024, not 1024.0."""
    return int(value) if float(value).is_integer() else value


def build_parameters(machine: Machine, params_file: str | Path | None = None,
                     block_params_file: str | Path | None = None,
                     symsubs_file: str | Path | None = None,
                     conds_file: str | Path | None = None,
                     sets: Iterable[str] | None = (), accelerator=None) -> ParameterSet:
    """Machine and software parameters (sheet order), ExaSAT files, then ``--set`` overrides.
    ``accelerator``: a :class:`sat.machine.accelerators.Accelerator` whose parameters join them."""
    paramset = ParameterSet()
    for spec in MACHINE_SPECS:
        value, source = machine.values[spec.name]
        paramset.add(Parameter(spec.name, _normalise(value), spec.unit, "machine", spec.label,
                               source, spec.kind))
    add_level_parameters(paramset, machine)
    add_cost_parameters(paramset, machine)
    if accelerator is not None:
        from sat.machine.accelerators import add_accelerator_parameters

        add_accelerator_parameters(paramset, accelerator)
    for spec in SOFTWARE_SPECS:
        paramset.add(Parameter(spec.name, _normalise(spec.default), spec.unit, "software",
                               spec.label, "default", spec.kind))
    if params_file:
        for symbol, (value, source) in read_params(params_file).items():
            parameter = find_parameter(paramset, symbol)
            if parameter is not None:  # a params file may also set BlockX, CacheKB, …
                parameter.value, parameter.source = _normalise(value), source
            else:
                paramset.symbol_values[symbol] = (value, source)
    if block_params_file:
        blocks = read_block_params(block_params_file)
        paramset.block_bounds.update(blocks.bounds)
        for name, (size, source) in blocks.sizes.items():
            paramset[name].value, paramset[name].source = size, source
    if symsubs_file:
        paramset.symsubs.update(read_symsubs(symsubs_file))
    if conds_file:
        paramset.conds.update(read_conds(conds_file))
    for text in sets or ():
        apply_set(paramset, text)
    validate(paramset)
    return paramset


def find_parameter(paramset: ParameterSet, name: str) -> Parameter | None:
    """The parameter called ``name`` (case-insensitive, ``hi(1)`` finds ``hi_1``), or ``None``."""
    if name in paramset.parameters:
        return paramset.parameters[name]
    wanted = {name.strip().lower(), symbol_to_name(name)}
    for candidate, parameter in paramset.parameters.items():
        if candidate.lower() in wanted:
            return parameter
    return None


def parse_set(text: str) -> tuple[str, str]:
    """``"NAME=VALUE"`` -> (name, value text), both stripped."""
    name, equals, value = text.partition("=")
    name, value = name.strip(), value.strip()
    if not equals:
        raise ParameterError(f"--set {text!r}: expected NAME=VALUE")
    if not name:
        raise ParameterError(f"--set {text!r}: the name is empty")
    if not value:
        raise ParameterError(f"--set {text!r}: the value is empty")
    if name.count("(") != name.count(")") or not re.fullmatch(r"[\w() ,]+", name):
        raise ParameterError(f"--set {text!r}: {name!r} is neither a parameter name nor a code "
                             "symbol such as hi(1)")
    return name, value


def parse_value(text: str, kind: str, name: str) -> float:
    """A ``--set`` value: booleans accept TRUE/FALSE/yes/no/1/0, numbers any float syntax."""
    if kind == "boolean":
        lowered = text.strip().lower()
        if lowered in _TRUE:
            return 1
        if lowered in _FALSE:
            return 0
        raise ParameterError(f"--set {name}={text}: {name} is TRUE or FALSE (also yes/no, 1/0)")
    value = parse_number(text)
    if value is None:
        raise ParameterError(f"--set {name}={text}: {text!r} is not a finite number")
    return value


def apply_set(paramset: ParameterSet, text: str) -> None:
    """Apply one ``--set NAME=VALUE``: a parameter if one has that name, else a code symbol."""
    name, raw = parse_set(text)
    parameter = find_parameter(paramset, name)
    if parameter is not None:
        parameter.value = _normalise(parse_value(raw, parameter.kind, parameter.name))
        parameter.source = "--set"
        parameter.defaulted = False
        return
    value = parse_value(raw, "number", name)
    wanted = symbol_to_name(name)
    # hi_1 and hi(1) are one symbol: replace the entry a file gave, keeping its spelling.
    key = next((s for s in paramset.symbol_values if symbol_to_name(s) == wanted), name)
    paramset.symbol_values[key] = (value, "--set")


#: ``--set`` names that decide what the model holds rather than a number in it: they are not
#: rows of the Parameters sheet (editing them there could change nothing).
BUILD_SETTINGS = {"SetupIterations": DEFAULT_SETUP_ITERATIONS}


def split_build_settings(sets: Iterable[str]) -> tuple[dict[str, float], list[str]]:
    """``--set`` texts -> (build settings with their defaults filled in, the other texts)."""
    settings: dict[str, float] = dict(BUILD_SETTINGS)
    rest = []
    for text in sets:
        name, raw = parse_set(text)
        known = next((s for s in BUILD_SETTINGS if s.lower() == name.lower()), None)
        if known is None:
            rest.append(text)
            continue
        value = parse_value(raw, "number", known)
        if value < 0 or not float(value).is_integer():
            raise ParameterError(f"--set {name}={raw}: {known} is a whole number of "
                                 "iterations, 0 or more")
        settings[known] = value
    return settings, rest


def unknown_sets(paramset: ParameterSet, set_names: Iterable[str]) -> list[str]:
    """The ``--set`` names that match no parameter (call after the model added the problem ones).

    A name defined by ``--symsubs`` is derived, not an input, so setting it matches nothing.
    """
    unknown = []
    for text in set_names:
        name = text.partition("=")[0].strip()
        if find_parameter(paramset, name) is None:
            unknown.append(name)
    return unknown


def spec_of(name: str) -> ParameterSpec | None:
    """The rule of a machine, software, level, core or cost parameter (None for problem
    symbols)."""
    return SPECS.get(name) or level_spec(name) or cost_spec(name)


def validate(paramset: ParameterSet) -> None:
    """Raise :class:`ParameterError` naming the first parameter whose value cannot be used."""
    for parameter in paramset.parameters.values():
        spec = spec_of(parameter.name)
        value = float(parameter.value)
        if spec is not None:
            problem = check_value(spec, value)
        else:
            problem = None if math.isfinite(value) else "must be a finite number"
        if problem:
            raise ParameterError(f"{parameter.name} = {parameter.value} ({parameter.source}) "
                                 f"{problem}")
    for symbol, (value, source) in paramset.symbol_values.items():
        if not math.isfinite(value):
            raise ParameterError(f"{symbol} = {value} ({source}) must be a finite number")
    for condition, probability in paramset.conds.items():
        if not 0 <= probability <= 1:
            raise ParameterError(f"condition {condition}: probability {probability} must be "
                                 "from 0 to 1")
