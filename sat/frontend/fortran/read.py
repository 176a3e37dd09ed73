"""Reading Fortran sources as one program: every file parsed, every unit analysed."""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence

from sat import ir
from sat.frontend.bodies import run_with_deep_stack
from sat.frontend.constants import pass_constants, settle_constants
from sat.frontend.fortran.analyser import analyse_units
from sat.frontend.fortran.parse import ParseFailure, Source, fortran_parser, parse_file
from sat.frontend.fortran.program import FortranProgram
from sat.frontend.fortran.shares import ShareResult, Started, start

#: The parsers ``--fortran-parser`` chooses from; the first is the default.
PARSERS = ("tree-sitter", "fparser")


def read_fortran(paths: Sequence[str], defines: Sequence[str] = (),
                 include_dirs: Sequence[str] = (),
                 progress: Callable[[str], None] | None = None,
                 processes: int = 1, started: Started | None = None,
                 parser: str = PARSERS[0]) -> tuple[ir.Program, int]:
    """Read Fortran sources as one program; returns it and the number of files parsed.

    ``parser``: ``tree-sitter`` reads each file with tree-sitter, and with fparser a file
    tree-sitter finds an error in or has a construct the adapter does not build; ``fparser``
    reads every file with fparser. Both give the analysis the same node model.

    fparser and the analysis recurse once per operator of an expression: a statement with a
    few hundred terms needs a deeper stack than Python's default, so the work runs in a thread
    with a large stack and a raised recursion limit.  With ``processes`` > 1 and fparser, a big
    program is read in shares by that many processes (:mod:`sat.frontend.fortran.shares`;
    ``started``: shares already under way), to the same result.
    """
    if started is None and processes > 1 and parser == "fparser":
        started = start(paths, defines, include_dirs, processes, parser)
    return run_with_deep_stack(
        lambda: _read_fortran(paths, defines, include_dirs, progress or (lambda _: None),
                              started, parser),
        "satreport-fortran")


def _read_fortran(paths: Sequence[str], defines: Sequence[str], include_dirs: Sequence[str],
                  progress: Callable[[str], None], started: Started | None, parser: str
                  ) -> tuple[ir.Program, int]:
    read = None
    if started is not None:
        names = ", ".join(os.path.basename(p) for p in paths[:3]) + (", …" if paths[3:] else "")
        progress(f"parsing {names} in {len(started.shares)} processes")
        try:
            own = read_units(paths, defines, include_dirs, started.shares[0].blank,
                             parser=parser)
        except BaseException:
            started.stop()
            raise
        read = started.finish(own)
    if read is None:
        read = read_units(paths, defines, include_dirs, {}, progress, parser)
    procedures = [p for p in read.procedures if p is not None]
    warnings = [*read.prefix, *(w for unit in read.unit_warnings for w in unit)]
    pass_constants(procedures)
    warnings.extend(settle_constants(procedures))
    result = ir.Program(procedures=procedures, sources=list(paths), warnings=warnings,
                        parsed_by=list(read.parsed_by))
    if read.parsed and not any(True for p in procedures for _ in p.all_loops()):
        result.warnings.append(ir.Diagnostic("no loops found in the Fortran sources",
                                             paths[0] if len(paths) == 1 else "", 0))
    return result, read.parsed


def read_units(paths: Sequence[str], defines: Sequence[str], include_dirs: Sequence[str],
               blank: dict[str, list[tuple[int, int]]],
               progress: Callable[[str], None] = lambda _: None,
               parser: str = PARSERS[0]) -> ShareResult:
    """Parse and analyse ``paths``, with ``blank``'s line ranges read as empty lines.

    ``failed`` says whether a file failed to parse while lines were blanked (the caller then
    reads again without blanking, so that what is reported is what a plain read reports).
    """
    program = FortranProgram()
    result = ShareResult(parsed=0, failed=False)
    fparser = None
    for number, path in enumerate(paths, 1):
        progress(f"parsing {path}" + (f" ({number}/{len(paths)})" if len(paths) > 1 else ""))
        try:
            source, parsed_by = _parse(path, parser, defines, include_dirs, program.warnings,
                                       blank.get(path, ()))
            result.parsed_by.append(parsed_by)
            if source is None:
                fparser = fparser or fortran_parser()
                source = parse_file(path, fparser, defines, include_dirs, program.warnings,
                                    blank.get(path, ()))
        except ParseFailure as failure:
            program.warnings.append(failure.diagnostic)
            result.failed = result.failed or bool(blank)
            continue
        result.parsed += 1
        program.add_source(source)
    progress("analysing the Fortran procedures")
    program.declare()
    result.prefix = list(program.warnings)
    for unit, procedure, warnings in analyse_units(program):
        result.units.append((unit.source.path, unit.line))
        result.procedures.append(procedure)
        result.unit_warnings.append(warnings)
    return result


def _parse(path: str, parser: str, defines: Sequence[str], include_dirs: Sequence[str],
           warnings: list[ir.Diagnostic], blank: Sequence[tuple[int, int]]
           ) -> tuple[Source | None, ir.ParsedBy]:
    """The file read by tree-sitter when ``parser`` asks for it and it can (``None``: fparser
    reads it), and which parser that is."""
    if parser == "fparser":
        return None, ir.ParsedBy(path, "fparser")
    try:
        from sat.frontend.fortran import treesitter
    except ImportError as exc:  # a broken install: fparser still reads everything
        return None, ir.ParsedBy(path, "fparser", f"tree-sitter is not installed ({exc})")
    try:
        return (treesitter.parse_file(path, defines, include_dirs, warnings, blank),
                ir.ParsedBy(path, "tree-sitter"))
    except treesitter.Fallback as fallback:
        return None, ir.ParsedBy(path, "fparser", str(fallback))
