"""Parsing untrusted XML safely: no DTD, no entities, no network; errors as ``file:line: …``.

Entity declarations (billion laughs, external entities) can only come with a DOCTYPE, so any
document carrying one is refused before parsing, and again after parsing for encodings the
byte scan cannot see (e.g. UTF-16).
"""

from __future__ import annotations

import re
from pathlib import Path

from lxml import etree

from sat.regex import LazyPattern

_DOCTYPE = re.compile(rb"<!DOCTYPE|<!ENTITY", re.IGNORECASE)
_LXML_POSITION = LazyPattern(r",? line \d+, column \d+$")  # lxml's suffix; the line leads


def parse_xml(data: bytes, where: str, error: type[Exception],
              what: str = "") -> etree._Element:
    """The root element of ``data``; ``error(message)`` is raised for anything refused.

    ``where`` names the document in messages; ``what`` ends the DOCTYPE message (e.g.
    ``" in a code description"``).
    """
    refused = f"DOCTYPE and entity declarations are not allowed{what}"
    found = _DOCTYPE.search(data)
    if found:
        line = data.count(b"\n", 0, found.start()) + 1
        raise error(f"{where}:{line}: {refused}")
    parser = etree.XMLParser(resolve_entities=False, no_network=True, load_dtd=False,
                             dtd_validation=False, huge_tree=False, remove_comments=True,
                             remove_pis=True)
    try:
        root = etree.fromstring(data, parser)
    except etree.XMLSyntaxError as exc:
        line = exc.lineno or (exc.position[0] if exc.position else 1) or 1
        text = str(exc.msg or exc)
        message = _LXML_POSITION.sub("", text.splitlines()[0]) if text else "syntax error"
        raise error(f"{where}:{line}: malformed XML: {message}") from None
    except ValueError as exc:  # e.g. an encoding lxml does not know
        raise error(f"{where}:1: unreadable XML: {exc}") from None
    docinfo = root.getroottree().docinfo
    if docinfo.doctype or docinfo.internalDTD is not None or docinfo.externalDTD is not None:
        raise error(f"{where}:1: {refused}")
    return root


def read_xml(path: Path, display: str, error: type[Exception]) -> etree._Element:
    """Parse an XML file safely (no DTD, entities or network); errors as ``display:line: …``."""
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise error(f"{display}: cannot read file: {exc.strerror or exc}") from None
    return parse_xml(data, display, error)
