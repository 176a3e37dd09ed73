"""One process's read of Fortran sources: every file parsed, every unit analysed."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from sat.frontend.fortran.analyser import analyse_units
from sat.frontend.fortran.parse import ParseFailure, fortran_parser, parse_file
from sat.frontend.fortran.program import FortranProgram
from sat.frontend.shares import ShareResult


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
