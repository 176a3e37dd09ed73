"""Running the system C preprocessor with satreport's stub system headers first on the path."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import tempfile
from collections.abc import Sequence

from sat import ir
from sat.frontend.c.errors import CSourceError
from sat.regex import LazyPattern
from sat.resources import c_include_dir

#: Stub system headers shipped with satreport (searched before any user directory).
STUB_INCLUDE_DIR = str(c_include_dir())

# GNU extensions that pycparser does not know, removed by the preprocessor.
_EXTENSION_DEFINES = ("__attribute__(x)=", "__restrict=restrict", "__restrict__=restrict",
                      "__extension__=", "__inline=inline", "__inline__=inline",
                      "__asm__(x)=", "__asm(x)=", "__volatile__=", "__builtin_expect(x,y)=(x)",
                      "_Pragma(x)=")
_MISSING_HEADER = LazyPattern(r"^(?P<file>.*?):(?P<line>\d+):\d+: fatal error: (?P<header>[^:]+): "
                              r"No such file or directory", re.M)
_CPP_ERROR = LazyPattern(r"^(?P<file>.*?):(?P<line>\d+):(?:\d+:)? (?:fatal )?error: (?P<msg>.*)$",
                         re.M)
_MAX_MISSING_HEADERS = 50


def _preprocessor() -> list[str] | None:
    for name in ("gcc", "cc", "clang"):
        found = shutil.which(name)
        if found:
            return [found, "-E", "-x", "c"]
    found = shutil.which("cpp")
    return [found] if found else None


def preprocess(path: str, defines: Sequence[str], include_dirs: Sequence[str],
               warnings: list[ir.Diagnostic]) -> str:
    """The preprocessed text with line markers; raises :class:`CSourceError` on errors."""
    command = _preprocessor()
    if command is None:
        warnings.append(ir.Diagnostic("no C preprocessor (gcc, cc, clang, cpp) found: "
                                      "#include and #define are not expanded", path))
        return _without_directives(path)
    base = [*command, "-nostdinc", "-undef", "-std=c99", "-I", STUB_INCLUDE_DIR]
    for directory in include_dirs:
        base += ["-I", directory]
    base += [f"-D{d}" for d in _EXTENSION_DEFINES]
    base += [f"-D{d.strip()}" for d in defines if d.strip()]
    empty_dir = None
    missing: list[str] = []
    try:
        while True:
            args = list(base) + (["-I", empty_dir] if empty_dir else []) + [path]
            try:
                done = subprocess.run(args, capture_output=True, timeout=120, check=False)
            except (OSError, subprocess.SubprocessError) as exc:
                raise CSourceError(f"C preprocessor failed: {exc}", path) from None
            stderr = done.stderr.decode("utf-8", "replace")
            if done.returncode == 0:
                return done.stdout.decode("utf-8", "replace")
            match = _MISSING_HEADER.search(stderr)
            if match and len(missing) < _MAX_MISSING_HEADERS \
                    and match.group("header") not in missing \
                    and not os.path.isabs(match.group("header")) \
                    and ".." not in match.group("header"):
                header = match.group("header")
                missing.append(header)
                empty_dir = empty_dir or tempfile.mkdtemp(prefix="satreport-c-")
                target = os.path.join(empty_dir, header)
                os.makedirs(os.path.dirname(target), exist_ok=True)
                open(target, "w").close()
                warnings.append(ir.Diagnostic(
                    f"header '{header}' not found: treated as empty (its declarations are "
                    "unknown)", match.group("file"), int(match.group("line"))))
                continue
            error = _CPP_ERROR.search(stderr)
            if error:
                raise CSourceError(f"C preprocessor: {error.group('msg').strip()}",
                                   error.group("file"), int(error.group("line")))
            first = next((t for t in stderr.splitlines() if t.strip()), "unknown error")
            raise CSourceError(f"C preprocessor: {first.strip()[:160]}", path)
    finally:
        if empty_dir:
            shutil.rmtree(empty_dir, ignore_errors=True)


def _without_directives(path: str) -> str:
    """The source with preprocessor lines blanked (line numbers kept), pragmas kept."""
    with open(path, encoding="utf-8", errors="replace") as handle:
        lines = handle.read().splitlines()
    kept = [line if not line.lstrip().startswith("#") or line.lstrip()[1:].lstrip()
            .startswith("pragma") else "" for line in lines]
    return "\n".join(kept) + "\n"
