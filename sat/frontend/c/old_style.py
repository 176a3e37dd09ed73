"""Pre-standard C that compilers still accept: implicit ``int`` written out before parsing.

gcc (up to version 13) reads K&R function definitions without a return type (``scale(a, n)
double *a; int n; { … }``) and declarations with a storage class but no type (``static
count;``, ``register i;``) as ``int``.  pycparser does not, so :func:`explicit_int` inserts
the ``int`` the compiler assumes.  Only words are inserted, within their lines: every line
number stays that of the source.
"""

from __future__ import annotations

import re

from sat.regex import LazyPattern

_KEYWORDS = frozenset("""
auto break case char const continue default do double else enum extern float for goto if
inline int long register restrict return short signed sizeof static struct switch typedef
union unsigned void volatile while _Bool _Complex _Alignas _Alignof _Atomic _Generic
_Noreturn _Static_assert _Thread_local __attribute__ __extension__ __inline __restrict
""".split())
_TYPES = frozenset("char double float int long short signed unsigned void _Bool _Complex "
                   "struct union enum".split())
_STORAGE = r"(?:static|register|auto|extern|const|volatile)"
# a storage class or qualifier, then straight away the declared name: ``static count;``
_TYPELESS = LazyPattern(rf"\b({_STORAGE}(?:\s+{_STORAGE})*)(\s+)([A-Za-z_]\w*)(?=\s*[;,=\[])")
# at file scope, a name and its parameter list where a declaration starts: ``scale(a, n)``
_DEFINITION = LazyPattern(r"(\s*)([A-Za-z_]\w*)(?=\s*\()")
_SKIP = LazyPattern(r'"(?:[^"\\\n]|\\.)*"|\'(?:[^\'\\\n]|\\.)*\'|^[ \t]*#[^\n]*', re.M)


def explicit_int(text: str) -> str:
    """``text`` with the implicit ``int`` of K&R definitions and typeless declarations."""
    return _file_scope_definitions(_TYPELESS.sub(_typeless, text))


def _typeless(match: re.Match[str]) -> str:
    storage, space, name = match.groups()
    if name in _KEYWORDS or name in _TYPES:
        return match.group(0)
    return f"{storage} int{space}{name}"


def _file_scope_definitions(text: str) -> str:
    """Insert ``int`` before a function name that starts a file-scope declaration."""
    out: list[str] = []
    depth = 0
    start_of_declaration = True
    position = 0
    skips = {m.start(): m.end() for m in _SKIP.finditer(text)}
    while position < len(text):
        end = skips.get(position)
        if end is not None:  # strings, characters and line markers are copied as they are
            out.append(text[position:end])
            position = end
            continue
        if depth == 0 and start_of_declaration:
            match = _DEFINITION.match(text, position)
            if match is not None and match.group(2) not in _KEYWORDS:
                out.append(f"{match.group(1)}int {match.group(2)}")
                position = match.end()
                start_of_declaration = False
                continue
        char = text[position]
        if char == "{":
            depth += 1
        elif char == "}":
            depth = max(0, depth - 1)
        if not char.isspace():
            start_of_declaration = depth == 0 and char in ";}"
        out.append(char)
        position += 1
    return "".join(out)
