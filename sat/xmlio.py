"""Read and write the code description as XML (ExaSAT XML-IR v0.3.1 plus satreport extensions).

The schema is the original tool's: ``program > function > (local | nonlocal | loop | comm |
functioncall | scalar | array)``, ``loop > (loop | scalar | array)``, ``array > access``.
satreport adds attributes and elements the original tool ignores (loop
``file``/``kind``/``tile``/``sized``, array ``firstaccess``, function
``file``/``linenum``/``layout``/``dummies``, variable ``datatype``/``shape``/``intent``,
``branch``, ``constant``, ``source`` and ``warning``
elements), so that writing then reading is lossless for everything in :mod:`sat.ir`. Unknown
elements (e.g. ``pininfo``) are skipped.

For idiom recognition, an ``access`` also has ``line`` (the source line of its first
statement) and ``subscripts``: per dimension ``KIND(var,coeff,offset,index,text)`` (see
:class:`sat.ir.Subscript`), e.g. ``subscripts="(induction(i,2,0,,2*i),indirect(k,1,0,col,
col(k)))"``, with a sixth field, the run variable, for the start of a contiguous run
(``indirect(ib,1,0,start,start(ib)+k-1,k)``); a ``scalar`` has ``line`` and ``sources`` (the
variables its value is computed from, ``(s,a)``). Files without them (the original tool's) read
as before: the recogniser then works from the offsets.

Reading is safe for untrusted input: no entity expansion, no DTD loading, no network, no huge
trees, and any document carrying a DOCTYPE (where entity declarations live) is refused.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import get_args

from lxml import etree

from sat.ir import (
    Access,
    AccessType,
    Array,
    Body,
    Branch,
    Call,
    Comm,
    Constant,
    Diagnostic,
    FirstAccess,
    Layout,
    Loop,
    Procedure,
    Program,
    Scalar,
    Subscript,
    SubscriptKind,
    Variable,
)
from sat.outputs import atomic_write_text
from sat.safexml import parse_xml

__all__ = [
    "XMLFormatError",
    "program_to_xml",
    "read_program",
    "read_program_text",
    "write_program",
]

_ACCESS_TYPES = frozenset(get_args(AccessType))
_FIRST_ACCESS = frozenset(get_args(FirstAccess))
_LAYOUTS = frozenset(get_args(Layout))
_SUBSCRIPT_KINDS = frozenset(get_args(SubscriptKind))
_SUBSCRIPT_RE = re.compile(r"\s*(\w+)\s*\((.*)\)\s*\Z", re.DOTALL)
_COUNTS = ("adds", "multiplies", "divides", "specials")
_INT_RE = re.compile(r"[+-]?\d+\Z")


class XMLFormatError(ValueError):
    """The document is not a readable code description; the message is ``file:line: what``."""


# ---------------------------------------------------------------------------------------------
# Reading


def read_program(path: str) -> Program:
    """Read a code description from an XML file."""
    try:
        with open(path, "rb") as handle:
            data = handle.read()
    except OSError as exc:
        raise XMLFormatError(f"{path}: cannot read: {exc.strerror or exc}") from None
    return read_program_text(data, filename=path)


def read_program_text(text: str | bytes, filename: str = "") -> Program:
    """Read a code description from XML text; ``filename`` only names it in errors."""
    where = filename or "<xml>"
    data = text.encode("utf-8") if isinstance(text, str) else text
    root = parse_xml(data, where, XMLFormatError, " in a code description")
    return _Reader(where).program(root)


class _Reader:
    """Turns a parsed document into :class:`sat.ir.Program`, reporting errors with lines."""

    def __init__(self, where: str) -> None:
        self.where = where

    # -- errors and attributes --------------------------------------------------------------

    def error(self, element: etree._Element, message: str) -> XMLFormatError:
        return XMLFormatError(f"{self.where}:{element.sourceline or 1}: {message}")

    def text(self, element: etree._Element, name: str, default: str | None = None) -> str:
        value = element.get(name)
        if value is None:
            if default is None:
                raise self.error(element, f"<{element.tag}> lacks required attribute '{name}'")
            return default
        return value

    def integer(self, element: etree._Element, name: str, default: int | None = None) -> int:
        value = element.get(name)
        if value is None:
            if default is None:
                raise self.error(element, f"<{element.tag}> lacks required attribute '{name}'")
            return default
        if not _INT_RE.match(value.strip()):
            raise self.error(element, f"<{element.tag}> {name}={value!r} is not an integer")
        return int(value)

    def count(self, element: etree._Element, name: str, default: int | None = None) -> int:
        value = self.integer(element, name, default)
        if value < 0:
            raise self.error(element, f"<{element.tag}> {name}={value} is negative")
        return value

    def boolean(self, element: etree._Element, name: str, default: bool) -> bool:
        value = element.get(name)
        if value is None:
            return default
        lowered = value.strip().lower()
        if lowered in ("true", "1"):
            return True
        if lowered in ("false", "0"):
            return False
        raise self.error(element, f"<{element.tag}> {name}={value!r} is not true or false")

    def choice(self, element: etree._Element, name: str, allowed: frozenset[str],
               default: str) -> str:
        value = element.get(name, default)
        if value not in allowed:
            options = ", ".join(sorted(a for a in allowed if a)) or "''"
            raise self.error(element, f"<{element.tag}> {name}={value!r} is not one of {options}")
        return value

    def items(self, element: etree._Element, name: str, value: str) -> list[str]:
        try:
            return split_list(value)
        except ValueError as exc:
            raise self.error(element, f"<{element.tag}> {name}={value!r}: {exc}") from None

    # -- elements ---------------------------------------------------------------------------

    def program(self, root: etree._Element) -> Program:
        if root.tag != "program":
            raise self.error(root, f"root element is <{root.tag}>, expected <program>")
        program = Program()
        for child in _elements(root):
            if child.tag == "function":
                program.procedures.append(self.procedure(child))
            elif child.tag == "source":
                program.sources.append(self.text(child, "path"))
            elif child.tag == "warning":
                program.warnings.append(Diagnostic(
                    message=self.text(child, "message"),
                    file=child.get("file", ""),
                    line=self.count(child, "line", 0),
                ))
        return program

    def procedure(self, element: etree._Element) -> Procedure:
        proc = Procedure(
            name=self.text(element, "name"),
            file=element.get("file", ""),
            line=self.count(element, "linenum", 0),
            layout=self.choice(element, "layout", _LAYOUTS, "column-major"),  # type: ignore[arg-type]
            dummies=self.items(element, "dummies", element.get("dummies", "()")),
        )
        self.counts(element, proc)
        extra: dict[str, Callable[[etree._Element], None]] = {
            "local": lambda e: proc.locals.append(self.variable(e)),
            "nonlocal": lambda e: proc.nonlocals.append(self.variable(e)),
            "comm": lambda e: proc.comms.append(self.comm(e)),
            "constant": lambda e: proc.constants.append(self.constant(e)),
        }
        self.body(element, proc, proc, extra)
        return proc

    def counts(self, element: etree._Element, body: Body) -> None:
        for name in _COUNTS:
            setattr(body, name, self.count(element, name))

    def body(self, element: etree._Element, body: Body, proc: Procedure,
             extra: dict[str, Callable[[etree._Element], None]] | None = None) -> None:
        """Fill ``body`` from ``element``'s children; a ``comm`` below a loop goes to ``proc``."""
        for child in _elements(element):
            tag = child.tag
            if tag == "scalar":
                body.scalars.append(self.scalar(child))
            elif tag == "array":
                body.arrays.append(self.array(child))
            elif tag == "loop":
                body.loops.append(self.loop(child, proc))
            elif tag == "branch":
                body.branches.append(self.branch(child, proc))
            elif tag == "if":
                body.branches.append(self.exasat_if(child, proc))
            elif tag == "functioncall":
                body.calls.append(self.call(child))
            elif extra and tag in extra:
                extra[tag](child)
            elif tag == "comm":
                proc.comms.append(self.comm(child))
            # anything else (pininfo, future elements) carries nothing satreport models

    def loop(self, element: etree._Element, proc: Procedure) -> Loop:
        loop = Loop(
            line=self.count(element, "linenum"),
            loopvar=self.text(element, "loopvar"),
            lower=self.text(element, "lowerbound"),
            upper=self.text(element, "upperbound"),
            stride=self.text(element, "stride", "1"),
            kind=element.get("kind", "do"),
            file=element.get("file", ""),
            tile=element.get("tile", ""),
            sized=element.get("sized", "") in ("1", "true"),
        )
        self.counts(element, loop)
        self.body(element, loop, proc)
        return loop

    def branch(self, element: etree._Element, proc: Procedure) -> Branch:
        branch = Branch(
            condition=self.text(element, "condition"),
            line=self.count(element, "line", 0),
            arm=self.count(element, "arm", 0),
            arms=self.count(element, "arms", 1),
        )
        for name in _COUNTS:
            setattr(branch, name, self.count(element, name, 0))
        self.body(element, branch, proc)
        return branch

    def exasat_if(self, element: etree._Element, proc: Procedure) -> Branch:
        """The original tool's ``<if linenum conditional>``: an if without else, two arms."""
        branch = Branch(condition=self.text(element, "conditional"),
                        line=self.count(element, "linenum", 0), arm=0, arms=2)
        for name in _COUNTS:
            setattr(branch, name, self.count(element, name, 0))
        self.body(element, branch, proc)
        return branch

    def scalar(self, element: etree._Element) -> Scalar:
        return Scalar(
            name=self.text(element, "name"),
            datatype=element.get("datatype", "double"),
            is_constant=self.boolean(element, "isConstant", False),
            accesstype=self.choice(element, "accesstype", _ACCESS_TYPES, "readonly"),  # type: ignore[arg-type]
            reads=self.count(element, "reads", 0),
            writes=self.count(element, "writes", 0),
            line=self.count(element, "line", 0),
            sources=tuple(self.items(element, "sources", element.get("sources", "()"))),
        )

    def array(self, element: etree._Element) -> Array:
        array = Array(
            name=self.text(element, "name"),
            component=element.get("component", ""),
            datatype=element.get("datatype", "double"),
            accesstype=self.choice(element, "accesstype", _ACCESS_TYPES, "readonly"),  # type: ignore[arg-type]
            firstaccess=self.choice(element, "firstaccess", _FIRST_ACCESS, ""),  # type: ignore[arg-type]
        )
        for child in _elements(element):
            if child.tag == "access":
                array.accesses.append(self.access(child))
        return array

    def access(self, element: etree._Element) -> Access:
        offsets = tuple(_offset(item) for item in self.items(
            element, "offset", self.text(element, "offset")))
        loopvars = tuple(self.items(
            element, "dependentloopvar", self.text(element, "dependentloopvar", "()")))
        if not loopvars:
            loopvars = ("",) * len(offsets)  # "()": no dimension depends on a loop variable
        elif len(loopvars) != len(offsets):
            raise self.error(element, f"<access> has {len(offsets)} offsets but "
                                      f"{len(loopvars)} dependent loop variables")
        kinds: tuple[Subscript, ...] = ()
        written = element.get("subscripts")
        if written is not None:
            kinds = tuple(self.subscript(element, item)
                          for item in self.items(element, "subscripts", written))
            if kinds and len(kinds) != len(offsets):
                raise self.error(element, f"<access> has {len(offsets)} offsets but "
                                          f"{len(kinds)} subscripts")
        return Access(
            offsets=offsets,
            loopvars=loopvars,
            reads=self.count(element, "reads", 0),
            writes=self.count(element, "writes", 0),
            subscripts=kinds,
            line=self.count(element, "line", 0),
        )

    def subscript(self, element: etree._Element, item: str) -> Subscript:
        """``KIND(var,coeff,offset,index,text)`` (see :class:`sat.ir.Subscript`)."""
        match = _SUBSCRIPT_RE.match(item)
        fields = self.items(element, "subscripts", f"({match.group(2)})") if match else []
        if match is None or match.group(1) not in _SUBSCRIPT_KINDS or len(fields) not in (5, 6):
            kinds = ", ".join(sorted(_SUBSCRIPT_KINDS))
            raise self.error(element, f"<access> subscript {item!r} is not KIND(var,coeff,"
                                      f"offset,index,text[,run]) with KIND one of {kinds}")
        var, coeff, offset, index, text = fields[:5]
        return Subscript(match.group(1), var, _offset(coeff or "1"),  # type: ignore[arg-type]
                         _offset(offset or "0"), index, text, fields[5] if len(fields) > 5
                         else "")

    def call(self, element: etree._Element) -> Call:
        return Call(
            name=self.text(element, "name"),
            line=self.count(element, "linenum", 0),
            args=self.items(element, "args", element.get("args", "()")),
        )

    def comm(self, element: etree._Element) -> Comm:
        return Comm(
            name=self.text(element, "name"),
            line=self.count(element, "linenum", 0),
            arrays=self.items(element, "arrays", element.get("arrays", "()")),
        )

    def constant(self, element: etree._Element) -> Constant:
        expression = element.get("expression", "")
        value = element.get("value", "nan" if expression else None)
        if value is None:
            value = self.text(element, "value")
        try:
            number = float(value)
        except ValueError:
            raise self.error(element, f"constant value {value!r} is not a number") from None
        return Constant(name=self.text(element, "name"), value=number,
                        file=element.get("file", ""), line=self.count(element, "linenum", 0),
                        kind=element.get("kind", "parameter"), expression=expression)

    def variable(self, element: etree._Element) -> Variable:
        return Variable(
            name=self.text(element, "name"),
            datatype=element.get("datatype", ""),
            shape=tuple(self.items(element, "shape", element.get("shape", "()"))),
            intent=element.get("intent", ""),
        )


def _elements(element: etree._Element):
    """Child elements only (comments, processing instructions and entity nodes are skipped)."""
    return (child for child in element if isinstance(child.tag, str))


def _offset(item: str) -> int | str:
    item = item.strip()
    return int(item) if _INT_RE.match(item) else item


def split_list(value: str) -> list[str]:
    """Split ``"(a,b(1,2),c)"`` into ``["a", "b(1,2)", "c"]`` at top-level commas.

    ``"()"`` is the empty list; a trailing comma gives a last empty item (``"(i,j,k,)"``).
    Commas inside parentheses or quotes do not split.
    """
    text = value.strip()
    if not (text.startswith("(") and text.endswith(")")):
        raise ValueError("expected a parenthesised, comma-separated list")
    inner = text[1:-1]
    if not inner.strip():
        return []
    items: list[str] = []
    depth = 0
    quote = ""
    start = 0
    for index, char in enumerate(inner):
        if quote:
            if char == quote:
                quote = ""
        elif char in "'\"":
            quote = char
        elif char == "(":
            depth += 1
        elif char == ")":
            depth -= 1
            if depth < 0:
                raise ValueError("unbalanced parentheses")
        elif char == "," and depth == 0:
            items.append(inner[start:index].strip())
            start = index + 1
    if depth != 0 or quote:
        raise ValueError("unbalanced parentheses or quotes")
    items.append(inner[start:].strip())
    return items


# ---------------------------------------------------------------------------------------------
# Writing


def write_program(program: Program, path: str) -> None:
    """Write ``program`` to ``path`` atomically (temporary file beside it, then rename)."""
    atomic_write_text(path, program_to_xml(program))


def program_to_xml(program: Program) -> str:
    """The XML text of ``program`` (one element per line, like the original tool's files)."""
    lines = ['<?xml version="1.0" encoding="UTF-8"?>', "<program>"]
    for path in program.sources:
        lines.append(_tag("source", [("path", path)], close=True))
    for diag in program.warnings:
        attrs = [("file", diag.file), ("line", str(diag.line)), ("message", diag.message)]
        lines.append(_tag("warning", attrs, close=True))
    for proc in program.procedures:
        _write_procedure(proc, lines)
    lines.append("</program>")
    return "\n".join(lines) + "\n"


def _write_procedure(proc: Procedure, lines: list[str]) -> None:
    attrs = [("name", proc.name), *_count_attrs(proc)]
    if proc.file:
        attrs.append(("file", proc.file))
    if proc.line:
        attrs.append(("linenum", str(proc.line)))
    if proc.layout != "column-major":
        attrs.append(("layout", proc.layout))
    if proc.dummies:
        attrs.append(("dummies", _join(proc.dummies)))
    lines.append(_tag("function", attrs))
    _write_body(proc, lines)
    for comm in proc.comms:
        lines.append(_tag("comm", [("name", comm.name), ("linenum", str(comm.line)),
                                   ("arrays", _join(comm.arrays))], close=True))
    for tag, variables in (("local", proc.locals), ("nonlocal", proc.nonlocals)):
        for var in variables:
            vattrs = [("name", var.name)]
            if var.datatype:
                vattrs.append(("datatype", var.datatype))
            if var.shape:
                vattrs.append(("shape", _join(var.shape)))
            if var.intent:
                vattrs.append(("intent", var.intent))
            lines.append(_tag(tag, vattrs, close=True))
    for constant in proc.constants:
        value = float(constant.value)
        exact = str(int(value)) if value.is_integer() and abs(value) < 2**53 else repr(value)
        cattrs = [("name", constant.name)]
        if constant.expression:
            cattrs.append(("expression", constant.expression))
        else:
            cattrs.append(("value", exact))
        if constant.kind != "parameter":
            cattrs.append(("kind", constant.kind))
        if constant.file:
            cattrs.append(("file", constant.file))
        if constant.line:
            cattrs.append(("linenum", str(constant.line)))
        lines.append(_tag("constant", cattrs, close=True))
    lines.append("</function>")


def _write_body(body: Body, lines: list[str]) -> None:
    for scalar in body.scalars:
        lines.append(_tag("scalar", [
            ("name", scalar.name), ("datatype", scalar.datatype),
            ("isConstant", "true" if scalar.is_constant else "false"),
            ("accesstype", scalar.accesstype),
            ("reads", str(scalar.reads)), ("writes", str(scalar.writes)),
            *([("line", str(scalar.line))] if scalar.line else []),
            *([("sources", _join(scalar.sources))] if scalar.sources else []),
        ], close=True))
    for array in body.arrays:
        attrs = [("name", array.name), ("component", array.component),
                 ("datatype", array.datatype), ("accesstype", array.accesstype)]
        if array.firstaccess:
            attrs.append(("firstaccess", array.firstaccess))
        lines.append(_tag("array", attrs))
        for access in array.accesses:
            loopvars = "()" if not any(access.loopvars) else _join(access.loopvars)
            attrs = [("offset", _join(str(o) for o in access.offsets)),
                     ("dependentloopvar", loopvars),
                     ("reads", str(access.reads)), ("writes", str(access.writes))]
            if access.line:
                attrs.append(("line", str(access.line)))
            if access.subscripts:
                attrs.append(("subscripts", _join(
                    f"{k.kind}({k.var},{k.coeff},{k.offset},{k.index},{k.text}"
                    f"{',' + k.run if k.run else ''})" for k in access.subscripts)))
            lines.append(_tag("access", attrs, close=True))
        lines.append("</array>")
    for call in body.calls:
        lines.append(_tag("functioncall", [("name", call.name), ("linenum", str(call.line)),
                                           ("args", _join(call.args))], close=True))
    for branch in body.branches:
        lines.append(_tag("branch", [
            ("condition", branch.condition), ("line", str(branch.line)),
            ("arm", str(branch.arm)), ("arms", str(branch.arms)), *_count_attrs(branch),
        ]))
        _write_body(branch, lines)
        lines.append("</branch>")
    for loop in body.loops:
        attrs = [("linenum", str(loop.line)), ("loopvar", loop.loopvar),
                 ("lowerbound", loop.lower), ("upperbound", loop.upper),
                 ("stride", loop.stride), *_count_attrs(loop)]
        if loop.file:
            attrs.append(("file", loop.file))
        if loop.kind != "do":
            attrs.append(("kind", loop.kind))
        if loop.tile:
            attrs.append(("tile", loop.tile))
        if loop.sized:
            attrs.append(("sized", "1"))
        lines.append(_tag("loop", attrs))
        _write_body(loop, lines)
        lines.append("</loop>")


def _count_attrs(body: Body) -> list[tuple[str, str]]:
    return [(name, str(getattr(body, name))) for name in _COUNTS]


def _join(items) -> str:
    return "(" + ",".join(items) + ")"


# Characters XML 1.0 cannot carry at all; replaced so the output stays well formed.
_INVALID_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")


def _quote(value: str) -> str:
    value = _INVALID_XML.sub("\ufffd", value)
    return (value.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
            .replace('"', "&quot;").replace("\n", "&#10;").replace("\r", "&#13;")
            .replace("\t", "&#9;"))


def _tag(name: str, attrs: list[tuple[str, str]], close: bool = False) -> str:
    body = "".join(f' {key}="{_quote(value)}"' for key, value in attrs)
    return f"<{name}{body}{'/' if close else ''}>"
