"""Parsing one Fortran file with tree-sitter, into the node model the analysis reads.

The text is the one fparser would read (:func:`sat.frontend.fortran.parse.read_text`:
preprocessed, byte order mark dropped, lines blanked for shared reads). Fixed-form text
(told from its content by fparser's own rule) is converted to free form line for line
(:mod:`sat.frontend.fortran.fixedform`); ``include`` lines are replaced by the files they
name, found as fparser finds them, each line remembering its file and line. tree-sitter
then parses the text; a tree with an ERROR or MISSING node, or with a construct the adapter
(:mod:`sat.frontend.fortran.ts_units`) does not build, raises :class:`Fallback`: the caller
reads the file with fparser instead.
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from functools import lru_cache

from sat import ir
from sat.frontend.fortran.fixedform import fixed_to_free
from sat.frontend.fortran.parse import Source, read_text
from sat.frontend.fortran.ts_expressions import Unsupported
from sat.frontend.fortran.ts_units import UnitBuilder

# An include line as fparser's reader recognises it (after the line's comment is dropped).
_INCLUDE = re.compile(r"""^\s*include\s*("[^"]+"|'[^']+')\s*(?:!.*)?$""", re.I)
_MAX_INCLUDE_DEPTH = 16
# The file whose lines are the parsed text: never the name of a real file.
_PARSED_ID = "<tree-sitter>"


class Fallback(Exception):
    """The file is for fparser: tree-sitter found a syntax error or an unknown construct."""


@lru_cache(maxsize=1)
def _parser():
    import tree_sitter
    import tree_sitter_fortran

    return tree_sitter.Parser(tree_sitter.Language(tree_sitter_fortran.language()))


def _is_free(text: str) -> bool:
    """fparser's rule: free form when a code line starts like free form or ends with '&'."""
    from fparser.common.sourceinfo import get_source_info_str

    return get_source_info_str(text).is_free


def _lines(text: str, origins: list[tuple[str, int]], dirs: list[str], depth: int
           ) -> tuple[list[str], list[tuple[str, int]]]:
    """The lines of ``text`` in free form with included files in place, and their origins."""
    if not _is_free(text):
        text = fixed_to_free(text)
    lines: list[str] = []
    places: list[tuple[str, int]] = []
    for number, line in enumerate(text.split("\n")):
        match = _INCLUDE.match(line)
        origin = origins[number] if number < len(origins) else (origins[-1][0], number + 1)
        if match is None:
            lines.append(line)
            places.append(origin)
            continue
        filename = match.group(1)[1:-1]
        found = next((os.path.join(d, filename) for d in dirs
                      if os.path.exists(os.path.join(d, filename))), filename)
        if not os.path.isfile(found):  # kept: the analysis says the file was not found
            lines.append(line)
            places.append(origin)
            continue
        if depth >= _MAX_INCLUDE_DEPTH:
            raise Fallback("includes nested too deeply")
        with open(found, encoding="utf-8", errors="replace") as handle:
            included = handle.read()
        count = included.count("\n") + 1
        sub_lines, sub_places = _lines(included, [(found, n) for n in range(1, count + 1)],
                                       dirs, depth + 1)
        lines.extend(sub_lines)
        places.extend(sub_places)
    return lines, places


def _first_error(root: object) -> object | None:
    if not root.has_error:
        return None
    stack = [root]
    while stack:
        node = stack.pop()
        if node.is_error or node.is_missing:
            return node
        stack.extend(reversed([c for c in node.children if c.has_error or c.is_missing]))
    return root


def parse_file(path: str, defines: Sequence[str], include_dirs: Sequence[str],
               warnings: list[ir.Diagnostic],
               blank: Sequence[tuple[int, int]] = ()) -> Source:
    """Parse one Fortran file with tree-sitter; raises :class:`Fallback` (or
    :class:`~sat.frontend.fortran.parse.ParseFailure` for a file that cannot be read)."""
    heard: list[ir.Diagnostic] = []
    _raw, data, pre = read_text(path, defines, include_dirs, heard, blank)
    text = data.decode("utf-8", "replace")
    if pre is not None:
        origins = [(file or path, line) for file, line in pre.origins]
    else:
        origins = [(path, n) for n in range(1, text.count("\n") + 2)]
    dirs = [os.path.dirname(os.path.abspath(path)), *include_dirs]
    lines, places = _lines(text, origins, dirs, 0)
    tree = _parser().parse("\n".join(lines).encode("utf-8"))
    error = _first_error(tree.root_node)
    if error is not None:
        file, line = places[min(error.start_point[0], len(places) - 1)]
        raise Fallback(f"tree-sitter finds a syntax error at {os.path.basename(file)}:{line}")
    try:
        program = UnitBuilder(places).program(tree.root_node)
    except Unsupported as exc:
        raise Fallback(f"a construct the fast parser does not read ({exc})") from None
    except RecursionError:
        raise Fallback("expression nesting too deep for the fast parser") from None
    except Exception as exc:  # a tree of a shape the adapter does not expect: fparser reads it
        raise Fallback(f"the fast parser's adapter failed ({type(exc).__name__}: "
                       f"{str(exc)[:80]})") from None
    warnings.extend(heard)
    return Source(path, program, _PARSED_ID, None)
