"""Reading untrusted YAML as plain data, every value located (``file:line`` errors).

Machine and scenario files arrive like any other input, possibly by e-mail: PyYAML composes
the document with its safe loader and the values are built here, accepting only YAML's plain
types (mappings, sequences, strings, numbers, booleans, null) and ``!!omap`` lists.  A Python
tag (``!!python/object…``) is refused, as is a file over 1 MiB, nesting deeper than 100, a
recursive alias, or aliases that expand to more than 100 000 values (an "aliases bomb").
Mappings and sequences remember the line of each key and item.

:func:`read_plain_yaml` reads the plain subset of YAML the built-in data files are written in
without PyYAML (start-up time: importing PyYAML costs more than a small run's model).
"""

from __future__ import annotations

import math
import re
import sys
from pathlib import Path
from typing import Any

from sat.quoting import quoted

MAX_FILE_BYTES = 1 << 20  # Kerncraft's largest machine files hold under 300 KB
MAX_DEPTH = 100
MAX_ALIAS_VALUES = 100_000  # values an alias may stand for, in all
_LARGEST = sys.float_info.max  # an integer beyond it has no value in a model of doubles
_MAX_DIGITS = 320  # more digits than any double has: refused before Python's own int limit

_TAG = "tag:yaml.org,2002:"
_TYPED_SCALARS = {_TAG + name for name in ("null", "bool", "int", "float")}
_TEXT_SCALARS = {_TAG + name for name in ("str", "timestamp", "binary")} | {"!prefixed"}
_MAPPINGS = {_TAG + "map", _TAG + "set"}
_SEQUENCES = {_TAG + "seq", _TAG + "omap", _TAG + "pairs"}


class Located(dict):
    """A YAML mapping that remembers its line and the line of each key (1-based)."""

    line: int = 1
    lines: dict[Any, int]


class LocatedList(list):
    """A YAML sequence that remembers its line and the line of each item (1-based)."""

    line: int = 1
    lines: list[int]


# ------------------------------------------------------------------ safe reading


def read_yaml(path: Path, display: str, error: type[Exception], what: str) -> Any:
    """The document of a YAML file as plain located data; ``error(message)`` if refused.

    ``what`` names the file expected, e.g. ``"a machine file"``: messages end with it.
    """
    try:
        with path.open("rb") as stream:
            data = stream.read(MAX_FILE_BYTES + 1)
    except OSError as exc:
        raise error(f"{display}: cannot read file: {exc.strerror or exc}") from None
    if len(data) > MAX_FILE_BYTES:
        raise error(f"{display}:1: file is larger than {MAX_FILE_BYTES // 1024} KiB: "
                    f"expected {what}")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise error(f"{display}:{line}: not UTF-8 text: expected {what}") from None
    import yaml  # here, not at start-up: only YAML inputs need PyYAML

    loader = None
    try:
        # libyaml's parser when PyYAML has it (several times faster); safe either way: only
        # nodes are composed, and the values are built below from plain tags only.
        loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)(text)
        node = loader.get_single_node()
        if node is None:
            raise error(f"{display}:1: empty document: expected {what}")
        return _Builder(loader, display, error, what).build(node, 0)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = mark.line + 1 if mark else 1
        problem = " ".join(str(exc.problem or exc.context or "syntax error").split())
        if exc.context and exc.context_mark and exc.context_mark.line + 1 != line:
            problem += f" ({exc.context} that starts on line {exc.context_mark.line + 1})"
        raise error(f"{display}:{line}: malformed YAML: {problem}") from None
    except yaml.YAMLError as exc:  # e.g. a character YAML does not allow
        position = getattr(exc, "position", 0) or 0
        line = text.count("\n", 0, position) + 1
        reason = getattr(exc, "reason", None) or str(exc).splitlines()[0]
        raise error(f"{display}:{line}: malformed YAML: {reason}") from None
    except RecursionError:
        raise error(f"{display}:1: YAML nested too deeply: expected {what}") from None
    finally:
        if loader is not None:
            loader.dispose()


class _Builder:
    """Plain values from composed YAML nodes, refusing anything but plain data."""

    def __init__(self, loader: Any, display: str, error: type[Exception], what: str) -> None:
        self.loader = loader
        self.display = display
        self.error = error
        self.what = what
        self.seen: set[int] = set()  # collection nodes built once: a second visit is an alias
        self.active: set[int] = set()  # collection nodes being built: a visit is a cycle
        self.expanding = 0  # > 0 while an alias is being expanded
        self.alias_values = 0

    def fail(self, node: Any, message: str) -> Exception:
        return self.error(f"{self.display}:{node.start_mark.line + 1}: {message}")

    def build(self, node: Any, depth: int) -> Any:
        if depth > MAX_DEPTH:
            raise self.fail(node, f"nested deeper than {MAX_DEPTH} levels: expected {self.what}")
        if self.expanding:
            self.alias_values += 1
            if self.alias_values > MAX_ALIAS_VALUES:
                raise self.fail(node, f"aliases expand to more than {MAX_ALIAS_VALUES} values: "
                                "an alias bomb?")
        tag = node.tag or ""
        if tag.startswith(_TAG + "python/") or tag.startswith("!!python"):
            raise self.fail(node, f"{tag}: Python tags are not allowed (the file is read "
                            "as plain data)")
        if node.id == "scalar":
            if tag in _TEXT_SCALARS:
                return node.value
            if tag in _TYPED_SCALARS:
                return self._typed(node, tag)
            raise self.fail(node, f"{tag}: unsupported YAML tag: expected plain values")
        key = id(node)
        if key in self.active:
            raise self.fail(node, "recursive alias: expected plain data without cycles")
        alias = key in self.seen
        self.seen.add(key)
        self.active.add(key)
        self.expanding += alias
        try:
            if node.id == "mapping" and tag in _MAPPINGS:
                return self._mapping(node, depth)
            if node.id == "sequence" and tag in _SEQUENCES:
                result = LocatedList(self.build(item, depth + 1) for item in node.value)
                result.line = node.start_mark.line + 1
                result.lines = [item.start_mark.line + 1 for item in node.value]
                return result
            raise self.fail(node, f"{tag}: unsupported YAML tag: expected plain values")
        finally:
            self.expanding -= alias
            self.active.discard(key)

    def _typed(self, node: Any, tag: str) -> Any:
        """A null, boolean, integer or float scalar; the common spellings without PyYAML's
        constructor, which is much slower (benchmark sections hold thousands of numbers).

        A value its tag cannot be (``!!float abc``, ``!!bool maybe``) and a number beyond the
        range of a double (a 400-digit integer, ``1.0e400``) are refused at their line: no
        reader downstream could use them."""
        text = node.value
        digits = sum(c.isdigit() for c in text)
        if tag == _TAG + "int" and digits > _MAX_DIGITS:
            raise self.fail(node, f"a whole number of {digits} digits: out of range (at most "
                            f"about 1.8e308): expected {self.what}")
        try:
            try:
                if tag == _TAG + "int":
                    value = int(text)
                elif tag == _TAG + "float":
                    value = float(text)
                else:
                    value = self.loader.construct_object(node)
            except ValueError:  # 0x1f, 1_000, .inf, 1:30 (base 60), …: YAML's own rules
                value = self.loader.construct_object(node)
        except (ValueError, TypeError, KeyError, IndexError, OverflowError):
            raise self.fail(node, f"{quoted(text)} is not a valid !!{tag[len(_TAG):]} value: "
                            f"expected {self.what}") from None
        if isinstance(value, bool) or value is None:
            return value
        if isinstance(value, int) and abs(value) > _LARGEST:
            raise self.fail(node, f"{quoted(text)}: out of range (at most about 1.8e308): "
                            f"expected {self.what}")
        if isinstance(value, float) and math.isinf(value) and "inf" not in text.lower():
            raise self.fail(node, f"{quoted(text)}: out of range of a double (at most about "
                            f"1.8e308): expected {self.what}")
        return value

    def _mapping(self, node: Any, depth: int) -> Located:
        result = Located()
        result.line = node.start_mark.line + 1
        result.lines = {}
        for key_node, value_node in node.value:
            if key_node.tag == _TAG + "merge":
                raise self.fail(key_node, "merge keys (<<) are not supported: expected plain "
                                "mappings")
            if key_node.id != "scalar":
                raise self.fail(key_node, "a key that is not a plain value: expected field "
                                "names")
            key = self.build(key_node, depth + 1)
            line = key_node.start_mark.line + 1
            if key in result:
                raise self.fail(key_node, f"{key}: given twice (also line {result.lines[key]})")
            value = self.build(value_node, depth + 1)
            if isinstance(value, (Located, LocatedList)):
                value.line = line  # a field missing from it is reported at its key
            result[key] = value
            result.lines[key] = line
        return result


# ------------------------------------------------------------ the plain subset, without PyYAML

# "key:" or "key: value" (the value's text, its comments and continuation lines read apart)
_PLAIN_ENTRY = re.compile(r"( *)([A-Za-z_][A-Za-z0-9_]*):(?: +(.*))?")
# plain scalars that YAML reads as booleans or null (in any of their spellings) or that start
# with an indicator: never taken for text here
_NOT_TEXT = frozenset(("yes", "no", "on", "off", "true", "false", "null"))
_INDICATORS = frozenset("-?:,[]{}#&*!|>'\"%@`")


class _NotPlain(Exception):
    """The text uses more of YAML than :func:`read_plain_yaml` reads."""


def read_plain_yaml(path: Path) -> Located | None:
    """The document of a YAML file written in a plain subset of YAML, as :func:`read_yaml`
    gives it (lines included), read without PyYAML; None for any other file, which is then
    read with :func:`read_yaml` (that one reports what is wrong with it).

    The subset: a block mapping of ``key: value`` entries and nested block mappings (keys are
    names), comment lines, values that are plain text (continued on more indented lines),
    whole numbers, ``true``, ``false``, and one-line flow sequences and mappings of those
    (``[a, b]``, ``{some: loop, none: [a, b]}``).  Anything that might read otherwise in YAML
    (quotes, block sequences, trailing comments, other scalars, tabs, ...) is not in it.
    """
    try:
        data = path.read_bytes()
        # the text as read_yaml sees it: line breaks and a byte order mark included
        text = data.decode("utf-8") if len(data) <= MAX_FILE_BYTES else ""
    except (OSError, UnicodeDecodeError):
        return None
    try:
        return _plain_document(text)
    except _NotPlain:
        return None


def _plain_document(text: str) -> Located:
    # entries: [line, indentation, key, value text or None (a nested mapping follows)]
    entries: list[list[Any]] = []
    continued = False  # whether the last entry's value may go on over the next line
    for number, raw in enumerate(text.split("\n"), 1):
        if not raw.isprintable():
            raise _NotPlain  # also other line breaks, tabs, a byte order mark
        stripped = raw.strip(" ")
        if not stripped or stripped.startswith("#"):
            continued = False  # a blank line would be a line break of the text
            continue
        entry = _PLAIN_ENTRY.fullmatch(raw.rstrip(" "))
        if entry is not None:
            value = entry.group(3)
            entries.append([number, len(entry.group(1)), entry.group(2), value])
            continued = value is not None and value[0] not in "[{"
            continue
        indent = len(raw) - len(raw.lstrip(" "))
        if not continued or indent <= entries[-1][1] or stripped[0] in _INDICATORS:
            raise _NotPlain
        entries[-1][3] += " " + stripped
    if not entries or entries[0][1] != 0:
        raise _NotPlain
    document, end = _plain_mapping(entries, 0)
    if end != len(entries):
        raise _NotPlain
    return document


def _plain_mapping(entries: list[list[Any]], start: int) -> tuple[Located, int]:
    """The block mapping whose first entry is ``entries[start]``, and the entry after it."""
    result = Located()
    result.line = entries[start][0]
    result.lines = {}
    indent = entries[start][1]
    at = start
    while at < len(entries) and entries[at][1] == indent:
        line, _, key, text = entries[at]
        if _plain_scalar(key) != key or key in result:
            raise _NotPlain
        at += 1
        if text is None:  # a nested mapping (an empty value would be null)
            if at == len(entries) or entries[at][1] <= indent:
                raise _NotPlain
            value, at = _plain_mapping(entries, at)
        else:
            value, end = _plain_value(text, 0, line, flow=False)
            if end != len(text):
                raise _NotPlain
        if isinstance(value, (Located, LocatedList)):
            value.line = line
        result[key] = value
        result.lines[key] = line
    if at < len(entries) and entries[at][1] > indent:
        raise _NotPlain
    return result, at


def _plain_value(text: str, at: int, line: int, flow: bool) -> tuple[Any, int]:
    """The value that starts at ``text[at]`` (after spaces) and where it ends; ``flow``:
    inside a flow sequence or mapping, where a comma or a bracket ends a scalar."""
    while at < len(text) and text[at] == " ":
        at += 1
    if at == len(text):
        raise _NotPlain
    if text[at] not in "[{":
        end = at
        while end < len(text) and not (flow and text[end] in ",]}"):
            end += 1
        return _plain_scalar(text[at:end], flow), end
    closing = "]" if text[at] == "[" else "}"
    items: list[Any] = []
    keys: list[Any] = []
    at += 1
    while True:
        if closing == "}":
            end = text.find(":", at)
            if end < 0 or text[end + 1:end + 2] != " ":
                raise _NotPlain
            keys.append(_plain_scalar(text[at:end], flow=True))
            at = end + 1
        item, at = _plain_value(text, at, line, flow=True)
        items.append(item)
        while at < len(text) and text[at] == " ":
            at += 1
        if text[at:at + 1] == closing:
            break
        if text[at:at + 1] != ",":
            raise _NotPlain
        at += 1
    at += 1
    for item in items:
        if isinstance(item, (Located, LocatedList)):
            item.line = line
    if closing == "]":
        sequence = LocatedList(items)
        sequence.line = line
        sequence.lines = [line] * len(items)
        return sequence, at
    if len(set(keys)) != len(keys) or not all(isinstance(key, str) for key in keys):
        raise _NotPlain
    mapping = Located(zip(keys, items, strict=True))
    mapping.line = line
    mapping.lines = dict.fromkeys(keys, line)
    return mapping, at


def _plain_scalar(text: str, flow: bool = False) -> str | int | bool:
    """A plain scalar that YAML reads as text, a whole number, true or false."""
    text = text.strip(" ")
    if not text or "#" in text or ":" in text or text[0] in _INDICATORS \
            or (flow and any(c in text for c in ",[]{}")):
        raise _NotPlain
    if text.isascii() and text.isdigit() and (text == "0" or text[0] != "0"):
        return int(text)
    if text in ("true", "false"):
        return text == "true"
    if not (text[0].isascii() and text[0].isalpha()) or text.lower() in _NOT_TEXT:
        raise _NotPlain  # numbers of other forms, dates, .inf, ~, yes, No, ...
    return text
