"""Reading Fortran sources as one program: every file parsed, every unit analysed."""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence

from sat import ir
from sat.frontend.bodies import run_with_deep_stack
from sat.frontend.constants import pass_constants, settle_constants
from sat.frontend.fortran.analyser import analyse_units
from sat.frontend.fortran.parse import ParseFailure, fortran_parser, parse_file
from sat.frontend.fortran.program import FortranProgram
from sat.frontend.fortran.shares import ShareResult, Started, start


def read_fortran(paths: Sequence[str], defines: Sequence[str] = (),
                 include_dirs: Sequence[str] = (),
                 progress: Callable[[str], None] | None = None,
                 processes: int = 1, started: Started | None = None) -> tuple[ir.Program, int]:
    """Read Fortran sources as one program; returns it and the number of files parsed.

    fparser and the analysis recurse once per operator of an expression: a statement with a
    few hundred terms needs a deeper stack than Python's default, so the work runs in a thread
    with a large stack and a raised recursion limit.  With ``processes`` > 1 a big program is
    read in shares by that many processes (:mod:`sat.frontend.fortran.shares`; ``started``: shares
    already under way), to the same result.
    """
    if started is None and processes > 1:
        started = start(paths, defines, include_dirs, processes)
    return run_with_deep_stack(
        lambda: _read_fortran(paths, defines, include_dirs, progress or (lambda _: None),
                              started),
        "satreport-fortran")


def _read_fortran(paths: Sequence[str], defines: Sequence[str], include_dirs: Sequence[str],
                  progress: Callable[[str], None], started: Started | None
                  ) -> tuple[ir.Program, int]:
    read = None
    if started is not None:
        names = ", ".join(os.path.basename(p) for p in paths[:3]) + (", …" if paths[3:] else "")
        progress(f"parsing {names} in {len(started.shares)} processes")
        try:
            own = read_units(paths, defines, include_dirs, started.shares[0].blank)
        except BaseException:
            started.stop()
            raise
        read = started.finish(own)
    if read is None:
        read = read_units(paths, defines, include_dirs, {}, progress)
    procedures = [p for p in read.procedures if p is not None]
    warnings = [*read.prefix, *(w for unit in read.unit_warnings for w in unit)]
    pass_constants(procedures)
    warnings.extend(settle_constants(procedures))
    result = ir.Program(procedures=procedures, sources=list(paths), warnings=warnings)
    if read.parsed and not any(True for p in procedures for _ in p.all_loops()):
        result.warnings.append(ir.Diagnostic("no loops found in the Fortran sources",
                                             paths[0] if len(paths) == 1 else "", 0))
    return result, read.parsed


def read_units(paths: Sequence[str], defines: Sequence[str], include_dirs: Sequence[str],
               blank: dict[str, list[tuple[int, int]]],
               progress: Callable[[str], None] = lambda _: None) -> ShareResult:
    """Parse and analyse ``paths``, with ``blank``'s line ranges read as empty lines.

    ``failed`` says whether a file failed to parse while lines were blanked (the caller then
    reads again without blanking, so that what is reported is what a plain read reports).
    """
    program = FortranProgram()
    result = ShareResult(parsed=0, failed=False)
    parser = fortran_parser() if paths else None
    for number, path in enumerate(paths, 1):
        progress(f"parsing {path}" + (f" ({number}/{len(paths)})" if len(paths) > 1 else ""))
        try:
            source = parse_file(path, parser, defines, include_dirs, program.warnings,
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
