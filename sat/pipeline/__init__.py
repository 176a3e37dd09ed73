"""One run of satreport: read the sources, build the model on the machine, write the outputs.

:func:`run` takes the parsed command line; each kind of run is a module: source code
(:mod:`~sat.pipeline.program`), an Aspen model (:mod:`~sat.pipeline.aspen`); both end in
:mod:`~sat.pipeline.reports`, which runs sweeps and scenarios (:mod:`~sat.pipeline.explore`)
first.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from sat import collector
from sat.pipeline.aspen import ASPEN_SUFFIXES, aspen_machine_report, aspen_model_and_reports
from sat.pipeline.program import program_outputs
from sat.pipeline.session import Run, UsageError, available_cores
from sat.quoting import echoed

__all__ = ["SOURCE_SUFFIXES", "Run", "UsageError", "run"]

FORTRAN_SUFFIXES = (".f90", ".f", ".f03", ".f08", ".for", ".ftn")
SOURCE_SUFFIXES = FORTRAN_SUFFIXES + (".c", ".xml") + ASPEN_SUFFIXES


def _check_sources(sources: list[str]) -> None:
    if not sources:
        raise UsageError("no SOURCE given (try satreport --help)")
    for source in sources:
        path = Path(source)
        if not path.is_file():
            raise UsageError(f"{echoed(source)}: no such file")
        if path.suffix.lower() not in SOURCE_SUFFIXES:
            raise UsageError(f"{echoed(source)}: unknown source type {path.suffix or '(none)'} "
                             f"(expected one of {' '.join(SOURCE_SUFFIXES)})")


def _check_socket(args: argparse.Namespace) -> None:
    """--socket chooses a socket type of an Aspen machine model, and of nothing else."""
    if args.socket is None or str(args.machine or "").lower().endswith(".aspen"):
        return
    machine = f"-m {echoed(args.machine)} is not one" if args.machine else \
        "the default machine (exascale) is not one"
    raise UsageError(f"--socket {echoed(args.socket)}: only an Aspen machine model "
                     f"(-m FILE.aspen) has socket types to choose from; {machine}")


def _outputs(args: argparse.Namespace) -> str | None:
    """The workbook path, or None when only other outputs were asked for."""
    if args.output:
        return args.output
    if args.json or args.xml or args.html or args.graphs or args.aspen:
        return None
    return Path(args.sources[0] if args.sources else args.scenario).stem + ".xlsx"


def run(args: argparse.Namespace) -> int:
    run = Run(args)
    try:
        return _run(run)
    finally:
        run.close()


def _run(run: Run) -> int:
    from sat.outputs import check_output_path

    args = run.args
    _check_socket(args)
    scenario = None
    if args.scenario:
        from sat.explore.scenario import ScenarioError, read_scenario

        try:  # its form is checked before the (possibly long) analysis
            scenario = read_scenario(args.scenario)
        except ScenarioError as error:
            raise UsageError(str(error)) from None
        args.sets = scenario.sets + args.sets  # --set wins over the file's set:
        if args.time_limit is not None:
            scenario.time_limit_s = args.time_limit
        for option, given in (("--xml", args.xml), ("--aspen", args.aspen)):
            if given and not args.sources:
                raise UsageError(f"{option}: give the SOURCE to describe")
    if args.idioms:
        from sat.model.irregular.patterns import IdiomFileError, read_idioms

        try:  # checked before the (possibly long) analysis
            run.idioms = read_idioms(args.idioms)
        except IdiomFileError as error:
            raise UsageError(str(error)) from None
    if not args.sources and scenario is None and args.json and \
            Path(str(args.machine or "")).suffix.lower() in ASPEN_SUFFIXES:
        return aspen_machine_report(run)
    if args.sources or scenario is None:
        _check_sources(args.sources)
    workbook = _outputs(args)
    # Fail on unwritable outputs before the (possibly long) analysis.
    if workbook:
        check_output_path(workbook, ".xlsx")
    for path in (args.json, args.xml, args.html, args.aspen):
        if path and path != "-":
            check_output_path(path)
    stdout = [option for option, path in (("--json", args.json), ("--xml", args.xml),
                                          ("--aspen", args.aspen)) if path == "-"]
    if len(stdout) > 1:
        raise UsageError(f"{' and '.join(stdout)} cannot both write to standard output")
    if args.dask_scheduler and not (args.sweeps or args.scenario):
        raise UsageError("--dask-scheduler: nothing to distribute: give --sweep or --scenario")
    if args.sweep_csv:
        if not args.sweeps:
            raise UsageError("--sweep-csv: give the grid with --sweep NAME=LO..HI")
        check_output_path(args.sweep_csv, ".csv")
    if args.graphs:
        from sat.report.graph import check_graph_directory

        check_graph_directory(args.graphs)
    machine = None
    if workbook or args.json or args.html or args.graphs or args.aspen:
        # Read before the sources: a bad machine file stops the run before any output
        # (--xml included) is written, and before the (possibly long) analysis.
        from sat.machine import load_machine

        machine = load_machine(args.machine, args.socket)

    if any(Path(source).suffix.lower() in ASPEN_SUFFIXES for source in args.sources):
        return aspen_model_and_reports(run, workbook, machine, scenario)

    from sat.frontend import read_sources

    functions = [f.strip() for f in args.functions.split(",") if f.strip()] \
        if args.functions else None
    # a scenario without sources is about the machine alone (the AMM architect's questions)
    with collector.frozen():  # what the run keeps, collections leave alone
        with collector.paused(survivors=True, cycles=True):  # the parse trees hold cycles
            program = read_sources(args.sources, args.defines, args.include_dirs, functions,
                                   progress=run.progress,
                                   processes=args.jobs or available_cores(),
                                   fortran_parser=args.fortran_parser) \
                if args.sources else _no_program()
        return program_outputs(run, program, workbook, machine, scenario)


def _no_program():
    from sat.ir import Program

    return Program()
