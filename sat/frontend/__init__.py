"""Front ends: source files -> :class:`sat.ir.Program`.

:func:`read_sources` reads several sources as one program and dispatches on the suffix:
Fortran to :mod:`sat.frontend.fortran`, ``.xml`` code descriptions to :mod:`sat.xmlio`, ``.c``
to :mod:`sat.frontend.c` when that front end is installed.
"""

from __future__ import annotations

import importlib
import os
from collections.abc import Callable, Sequence

from sat import ir
from sat.quoting import quoted

__all__ = ["FORTRAN_SUFFIXES", "FrontendError", "is_fortran", "read_sources"]

# Known here rather than in the Fortran front end, so that choosing a front end does not import
# fparser (and sympy) for a run without Fortran sources.
FORTRAN_SUFFIXES = (".f90", ".f", ".f03", ".f08", ".for", ".ftn", ".f95", ".f77")


class FrontendError(Exception):
    """Nothing could be analysed (the CLI prints the one-line message and exits with 2)."""


def read_sources(paths: list[str], defines: Sequence[str] = (), include_dirs: Sequence[str] = (),
                 functions: list[str] | None = None,
                 progress: Callable[[str], None] | None = None,
                 processes: int = 1, fortran_parser: str = "tree-sitter") -> ir.Program:
    """Read ``paths`` as one program; keep only ``functions`` (case-insensitive) if given.

    ``progress`` hears what is being read and, for each file, how many procedures and loops
    were found in it.  Up to ``processes`` processes share the parse of big Fortran sources.
    ``fortran_parser``: ``tree-sitter`` (fparser for the files it cannot read) or ``fparser``.
    """
    progress = progress or (lambda _message: None)
    program = ir.Program(sources=list(paths))
    analysed = 0
    fortran = [p for p in paths if is_fortran(p)]
    if fortran:
        from sat.frontend.fortran.shares import start

        # the workers sharing a big parse start before this process imports the front end;
        # tree-sitter's parse is fast enough that starting them costs more than it saves
        started = start(fortran, defines, include_dirs, processes, fortran_parser) \
            if processes > 1 and fortran_parser == "fparser" else None
        from sat.frontend.fortran import read_fortran

        try:
            part, parsed = read_fortran(fortran, defines, include_dirs, progress,
                                        started=started, parser=fortran_parser)
        except Exception as exc:  # never a traceback: the run reports what went wrong
            program.warnings.append(ir.Diagnostic(
                f"Fortran front end failed: {type(exc).__name__}: {exc}", fortran[0], 0))
        else:
            analysed += parsed
            _tiles(part.procedures, defines)
            program.procedures.extend(part.procedures)
            program.warnings.extend(part.warnings)
            program.parsed_by.extend(part.parsed_by)
            for path in fortran:
                _found(progress, path, [p for p in part.procedures if p.file == path])
    for path in paths:
        if is_fortran(path):
            continue
        suffix = os.path.splitext(path)[1].lower()
        progress(f"reading {path}")
        try:
            if suffix == ".xml":
                part = _read_xml(path)
            elif suffix == ".c":
                part = _read_c(path, defines, include_dirs)
                if part is None:
                    program.warnings.append(ir.Diagnostic("C front end not available", path))
                    continue
            else:
                program.warnings.append(ir.Diagnostic(
                    f"unknown source type '{suffix or path}': skipped", path))
                continue
        except FrontendError as exc:  # a reader may say exactly where (file:line)
            program.warnings.append(getattr(exc, "diagnostic", None)
                                    or ir.Diagnostic(str(exc), path))
            continue
        except Exception as exc:  # a reader's failure is this file's diagnostic only
            message = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
            program.warnings.append(ir.Diagnostic(f"cannot read: {message}", path))
            continue
        analysed += 1
        if suffix != ".xml":  # a code description already says which loops are tiles
            _tiles(part.procedures, defines)
        program.procedures.extend(part.procedures)
        program.warnings.extend(part.warnings)
        _found(progress, path, part.procedures)
    if not analysed:
        reasons = "; ".join(str(d) for d in program.warnings[:3]) or "no sources given"
        raise FrontendError(f"nothing could be analysed: {reasons}".replace("\n", " "))
    if functions is not None:
        _keep(program, functions)
    return program


def is_fortran(path: str) -> bool:
    """Whether ``path`` is read by the Fortran front end (by its suffix, any case)."""
    return os.path.splitext(path)[1].lower() in FORTRAN_SUFFIXES


def _found(progress: Callable[[str], None], path: str, procedures: list[ir.Procedure]) -> None:
    loops = sum(1 for p in procedures for _ in p.all_loops())
    progress(f"read {path}: {len(procedures)} procedure(s), {loops} loop(s)")


def _tiles(procedures: list[ir.Procedure], defines: Sequence[str]) -> None:
    """Loops as written: source tiles, and sizes given with -D (problem sizes, not literals)."""
    from sat.frontend.sizes import mark_sized
    from sat.frontend.tiles import mark_tiles

    mark_sized(procedures, defines)
    for procedure in procedures:
        mark_tiles(procedure)


def _read_xml(path: str) -> ir.Program:
    xmlio = importlib.import_module("sat.xmlio")
    return xmlio.read_program(path)


def _read_c(path: str, defines: Sequence[str], include_dirs: Sequence[str]) -> ir.Program | None:
    try:
        module = importlib.import_module("sat.frontend.c")
    except ImportError:
        return None
    return module.read_c(path, list(defines), list(include_dirs))


def _keep(program: ir.Program, functions: list[str]) -> None:
    wanted = {name.strip().lower() for name in functions if name.strip()}
    present = {proc.name.lower() for proc in program.procedures}
    for name in sorted(wanted - present):
        program.warnings.append(ir.Diagnostic(f"procedure {quoted(name)} not found in the sources"))
    program.procedures = [p for p in program.procedures if p.name.lower() in wanted]
