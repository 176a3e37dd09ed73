"""ExaSAT's parameter files, read as is.

Each is a root element holding ``<prop key=… val=…/>``:

* ``params.xml``: values of code symbols, ``key="hi(1)" val="128"``, or several at once,
  ``key="(lo(1), hi(1))" val="(1, 128)"``;
* ``block_params.xml``: block bounds for a ``(lo, hi)`` symbol pair,
  ``key="(lo(1), hi(1))" val="(1, 16)"``.  They also give the block sizes ``BlockX``, ``BlockY``,
  ``BlockZ``: the pairs whose symbols end in ``(1)`` / ``1`` are dimension x, and so on; the size
  is ``hi - lo + 1``, and when a file's pairs disagree for a dimension the most common size wins
  (the source of the value says so);
* ``symsubs.xml``: symbols defined by expressions, ``key="dlo(1)" val="lo(1) - ng"``;
* ``conds.xml``: probability that a condition holds, ``key="present(courno)" val="1.0"``;
  satreport also reads there the locality of a gather's indices, data the source does not
  show (:func:`read_index_runs`): ``<gather array="x" run="8" window="33" sorted="no"/>``;
* ``namesubs.xml``: display substitutions (read by :func:`read_namesubs`).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from sat.machine.spec import parse_number
from sat.parameter import IndexRunsEntry, ParameterError
from sat.regex import LazyPattern
from sat.safexml import read_xml

_BLOCK_NAMES = {1: "BlockX", 2: "BlockY", 3: "BlockZ"}


# The root element of each kind of ExaSAT file, as the original tool writes them.
_ROOTS = {"parameter": "params", "block parameter": "params", "symbol substitution": "symsubs",
          "condition": "conds", "name substitution": "namesubs"}


def _props(path: str | Path, what: str, skip: tuple[str, ...] = ()
           ) -> list[tuple[str, str, int]]:
    """(key, val, line) of every ``<prop>`` of an ExaSAT parameter file (elements named in
    ``skip``: read by another reader of the same file)."""
    display = str(path)
    root = read_xml(Path(path), display, ParameterError)
    if root.tag != _ROOTS[what]:
        raise ParameterError(f"{display}:{root.sourceline or 1}: the root element is "
                             f"<{root.tag}>, but a {what} file is <{_ROOTS[what]}>")
    result = []
    for element in root:
        line = element.sourceline or 0
        if element.tag in skip:
            continue
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


_DIMENSION = LazyPattern(r"(?:\(\s*(\d+)\s*\)|(\d+))$")


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
    for key, val, line in _props(path, "condition", skip=("gather",)):
        value = parse_number(val)
        if value is None or not 0 <= value <= 1:
            raise ParameterError(f"{path}:{line}: {key}: probability must be a number from 0 "
                                 f"to 1, got {val!r}")
        _store(result, key, value, lines, line, str(path))
    return result


_RUN_WORDS = {"run": ("pass", "loop"), "window": ("range",)}
_YES_NO = {"yes": "1", "true": "1", "1": "1", "no": "0", "false": "0", "0": "0"}


def read_index_runs(path: str | Path) -> list[IndexRunsEntry]:
    """The ``<gather>`` entries of a conditions file: how a gather's indices run, as the user
    knows their data (``array`` required; ``procedure`` optional; ``run``: references per
    run, a number at least 1 (or several, equally likely lengths), ``pass`` or ``loop``;
    ``window``: elements of a run's window, a number at least 1 or ``range``; ``sorted``:
    yes/no, a run's indices ascend)."""
    display = str(path)
    root = read_xml(Path(path), display, ParameterError)
    found: list[IndexRunsEntry] = []
    for element in root:
        if element.tag != "gather":
            continue
        line = element.sourceline or 0
        array = (element.get("array") or "").strip()
        if not array:
            raise ParameterError(f"{display}:{line}: <gather> without an array")
        values: dict[str, str] = {}
        for name, words in _RUN_WORDS.items():
            text = (element.get(name) or "").strip()
            # run lengths may vary: several numbers, equally likely ("4 8 16")
            numbers = [parse_number(t) for t in text.replace(",", " ").split()] \
                if name == "run" else [parse_number(text)]
            if text and text.lower() not in words and any(n is None or n < 1 for n in numbers):
                several = " (or several, equally likely: \"4 8 16\")" if name == "run" else ""
                raise ParameterError(f"{display}:{line}: <gather array=\"{array}\">: {name} "
                                     f"must be a number of at least 1{several} or "
                                     f"{' or '.join(words)}, got {text!r}")
            values[name] = text.lower() if text.lower() in words else \
                " ".join(text.replace(",", " ").split())
        flag = (element.get("sorted") or "").strip().lower()
        if flag and flag not in _YES_NO:
            raise ParameterError(f"{display}:{line}: <gather array=\"{array}\">: sorted must "
                                 f"be yes or no, got {flag!r}")
        found.append(IndexRunsEntry(array, (element.get("procedure") or "").strip(),
                                    values["run"], values["window"], _YES_NO.get(flag, ""),
                                    f"{display}:{line}"))
    return found


def read_namesubs(path: str | Path) -> dict[str, str]:
    """ExaSAT ``namesubs.xml``: text -> display name (``qx1+n-1`` -> ``qxn``)."""
    result: dict[str, str] = {}
    lines: dict[str, int] = {}
    for key, val, line in _props(path, "name substitution"):
        _store(result, key, val, lines, line, str(path))
    return result


