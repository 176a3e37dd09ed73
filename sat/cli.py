"""``satreport``: the command line (argument parsing, stages, exit statuses).

Exit status 0: done (warnings on stderr and in the workbook's Notes); 2: usage error or
nothing could be analysed.  No Python traceback reaches a user: an unexpected exception is a
bug and is reported in one line (the traceback only with ``-v``), exit status 3.
"""

from __future__ import annotations

import argparse
import math
import os
import re
import sys
import traceback
from pathlib import Path
from typing import TYPE_CHECKING

from sat import __version__, collector
from sat.ir import Diagnostic

if TYPE_CHECKING:  # imported when needed: start-up time of small runs
    from sat.machine import Machine

FORTRAN_SUFFIXES = (".f90", ".f", ".f03", ".f08", ".for", ".ftn")
ASPEN_SUFFIXES = (".aspen",)
SOURCE_SUFFIXES = FORTRAN_SUFFIXES + (".c", ".xml") + ASPEN_SUFFIXES


WARNINGS_PER_KIND = 3
# Messages that differ only in quoted names and numbers are one kind of warning.
_KIND = re.compile(r"'[^']*'|\b\d+(\.\d+)?\b|\bCallFlops_\w+")  # names, numbers, per-callee names
_QUOTED = re.compile(r"'[^']*'")


class UsageError(Exception):
    """A problem with what the user asked for: one line, exit status 2."""


class _Parser(argparse.ArgumentParser):
    """Usage errors in one line, like every other error (no usage dump)."""

    def error(self, message: str):  # type: ignore[override]
        self.exit(2, f"satreport: error: {message} (see satreport --help)\n")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="satreport",
        description="Analytic performance model of the loop nests of Fortran or C sources, "
        "written as a live Excel workbook (formulas over a Parameters sheet), JSON and XML.",
        epilog="Outputs: the workbook is written when -o is given or when no other output "
        "is asked for (default name: the first source's stem + .xlsx). "
        "Example: satreport examples/hypterm.f90 -o hypterm.xlsx --json hypterm.json",
    )
    parser.add_argument("sources", nargs="*", metavar="SOURCE",
                        help="Fortran (.f90 .F90 .f .F .f03 .f08 .for .ftn), C (.c) or a code "
                        "description (.xml); several sources form one program")
    out = parser.add_argument_group("outputs")
    out.add_argument("-o", "--output", metavar="FILE.xlsx", help="the workbook")
    out.add_argument("--json", metavar="FILE", help="JSON export ('-' for standard output)")
    out.add_argument("--xml", metavar="FILE", help="code description (ExaSAT XML schema)")
    out.add_argument("--html", metavar="FILE", help="self-contained HTML summary with charts "
                     "and dependency graphs")
    out.add_argument("--graphs", metavar="DIR", help="dependency graphs: one DOT file per "
                     "procedure")
    out.add_argument("--aspen", metavar="FILE", help="the program as an Aspen application "
                     "model: a kernel per loop nest with its flops, loads and stores ('-' for "
                     "standard output)")
    model = parser.add_argument_group("model inputs")
    model.add_argument("-m", "--machine", metavar="NAME|FILE",
                       help="built-in machine name (see --list-machines) or machine file; "
                       "default: the exascale node of the ExaSAT paper")
    model.add_argument("--accelerator", metavar="NAME|FILE",
                       help="offload what-ifs on an accelerator: a built-in (hc1, h100-pcie) "
                            "or an accelerator file (YAML); adds the Offload sheet and the "
                            "JSON 'offload' object; default: none")
    model.add_argument("--socket", metavar="NAME",
                       help="the socket of an Aspen machine model (-m machine.aspen) to model "
                            "on; default: the machine's first socket type")
    model.add_argument("--params", metavar="FILE", help="ExaSAT params.xml: problem symbols")
    model.add_argument("--block-params", metavar="FILE", help="ExaSAT block_params.xml")
    model.add_argument("--symsubs", metavar="FILE", help="ExaSAT symsubs.xml: derived symbols")
    model.add_argument("--conds", metavar="FILE", help="ExaSAT conds.xml: branch probabilities")
    model.add_argument("--set", dest="sets", action="append", default=[], metavar="NAME=VALUE",
                       help="override a parameter (e.g. CacheKB=512, 'hi(1)=256'); repeatable")
    model.add_argument("--idioms", metavar="FILE.yaml",
                       help="loop idiom patterns added to the built-in ones (stream, transpose, "
                            "gather, scatter, reduction, stencil); one with a built-in's name "
                            "replaces it (Idioms sheet, JSON 'idioms')")
    front = parser.add_argument_group("front end")
    front.add_argument("--functions", metavar="NAME[,NAME...]",
                       help="analyse only these procedures")
    front.add_argument("-D", dest="defines", action="append", default=[],
                       metavar="NAME[=VALUE]", help="preprocessor definition (.F90, .F, .c)")
    front.add_argument("-I", dest="include_dirs", action="append", default=[], metavar="DIR",
                       help="preprocessor include directory")
    front.add_argument("-j", "--jobs", type=_jobs, default=None, metavar="N",
                       help="processes that share the parse of a big Fortran program "
                            "(default: the cores available, at most 4; 1: one process)")
    explore = parser.add_argument_group("exploration")
    explore.add_argument("--sweep", dest="sweeps", action="append", default=[],
                         metavar="NAME=LO..HI[:STEPS|*FACTOR]",
                         help="evaluate the program's totals over a range of a parameter: STEPS "
                              "values from LO to HI, or LO, LO*FACTOR, ... up to HI, or every "
                              "whole number; repeat for the full grid (Sweep sheet, JSON "
                              "'sweep')")
    explore.add_argument("--sweep-csv", metavar="FILE",
                         help="stream every configuration of the sweep to a CSV file")
    explore.add_argument("--scenario", metavar="FILE.yaml",
                         help="solve an optimisation problem over the model (objective, "
                              "variables with ranges, constraints); the outputs show the model "
                              "at the optimum and a Scenario sheet explains the answer; "
                              "without SOURCE, only machine results (peak, power, price) count")
    explore.add_argument("--dask-scheduler", metavar="ADDRESS",
                         help="evaluate the chunks of a sweep or of an exhaustive scenario on "
                              "an existing Dask cluster (e.g. tcp://host:8786; needs "
                              "'satreport[dask]')")
    explore.add_argument("--time-limit", type=_seconds, default=None, metavar="SECONDS",
                         help="time limit of the scenario's evolution strategy (default: the "
                              "file's time_limit_s, else 5)")
    misc = parser.add_argument_group("other")
    misc.add_argument("--list-machines", action="store_true", help="list built-in machines")
    misc.add_argument("--version", action="version", version=f"satreport {__version__}")
    misc.add_argument("-q", "--quiet", action="store_true", help="no warnings on stderr")
    misc.add_argument("-v", "--verbose", action="store_true",
                      help="progress, timings and every repeated warning on stderr")
    return parser


def _jobs(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a number of processes (1 or more), "
                                         f"got {text!r}")
    return value


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = 0.0
    if not 0 < value <= 3600:
        raise argparse.ArgumentTypeError(f"expected seconds, more than 0 and at most 3600, "
                                         f"got {text!r}")
    return value


def available_cores() -> int:
    """The cores this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):  # not Linux
        return os.cpu_count() or 1


class Run:
    """One invocation: holds the options and shows progress and warnings on stderr."""

    def __init__(self, args: argparse.Namespace):
        from sat.progress import Progress, choose_mode

        self.args = args
        self.shown = Progress(choose_mode(args.verbose, args.quiet, sys.stderr))
        self.idioms = None  # the --idioms patterns with the built-in ones (None: built-ins)

        self._mapper = None

    def progress(self, message: str) -> None:
        self.shown.step(message)

    def mapper(self):
        """Where chunks of configurations are evaluated: here, or on ``--dask-scheduler``."""
        if self._mapper is None:
            if self.args.dask_scheduler:
                from sat.explore.distribute import DaskMapper, DistributeError

                try:
                    self._mapper = DaskMapper(self.args.dask_scheduler)
                except DistributeError as error:
                    raise UsageError(str(error)) from None
                self.progress(f"connected to the Dask scheduler at {self.args.dask_scheduler} "
                              f"({self._mapper.workers()} workers)")
            else:
                from sat.explore.distribute import in_process

                self._mapper = in_process
        return self._mapper

    def close(self) -> None:
        if hasattr(self._mapper, "close"):
            self._mapper.close()
        self.shown.close()

    def warn(self, message: str) -> None:
        if not self.args.quiet:
            self.shown.write(f"satreport: warning: {message}")

    def warn_all(self, diagnostics: list[tuple[str, str, int]]) -> None:
        """(message, file, line) warnings, grouped so that what matters stays visible.

        A message repeated at several places is shown once with the count; messages of one
        kind (the same text but for quoted names and numbers) are shown up to
        ``WARNINGS_PER_KIND`` times, then summed up in one line. ``-v`` shows every one; the
        Notes sheet and the JSON always hold them all.
        """
        places: dict[str, list[tuple[str, int]]] = {}
        for message, file, line in diagnostics:
            places.setdefault(message, []).append((file, line))
        kinds: dict[str, list[str]] = {}
        for message in places:
            kinds.setdefault(_KIND.sub("#", message), []).append(message)
        verbose = self.args.verbose
        for messages in kinds.values():
            for message in messages if verbose else messages[:WARNINGS_PER_KIND]:
                where = places[message]
                text = str(Diagnostic(message, *where[0]))
                if len(where) > 1 and not verbose:
                    text += f" (and {len(where) - 1} more time{'s' if len(where) > 2 else ''})"
                self.warn(text)
                if verbose:
                    for file, line in where[1:]:
                        self.warn(str(Diagnostic(message, file, line)))
            hidden = [] if verbose else messages[WARNINGS_PER_KIND:]
            if hidden:
                names = [n for m in hidden for n in _QUOTED.findall(m)[:1]]
                shown = ", ".join(dict.fromkeys(names[:4])) + (", …" if len(names) > 4 else "")
                self.warn(f"… and {len(hidden)} more warning{'s' if len(hidden) > 1 else ''} "
                          "like the one above" + (f" ({shown})" if shown else "")
                          + ": all in the Notes sheet and the JSON, each with -v")


def _list_machines() -> int:
    from sat.machine import list_machines

    for name, description in list_machines():
        print(f"{name:24s} {description}")
    return 0


def _check_sources(sources: list[str]) -> None:
    if not sources:
        raise UsageError("no SOURCE given (try satreport --help)")
    for source in sources:
        path = Path(source)
        if not path.is_file():
            raise UsageError(f"{source}: no such file")
        if path.suffix.lower() not in SOURCE_SUFFIXES:
            raise UsageError(f"{source}: unknown source type {path.suffix or '(none)'} "
                             f"(expected one of {' '.join(SOURCE_SUFFIXES)})")


def _check_socket(args: argparse.Namespace) -> None:
    """--socket chooses a socket type of an Aspen machine model, and of nothing else."""
    if args.socket is None or str(args.machine or "").lower().endswith(".aspen"):
        return
    machine = f"-m {args.machine} is not one" if args.machine else \
        "the default machine (exascale) is not one"
    raise UsageError(f"--socket {args.socket}: only an Aspen machine model (-m FILE.aspen) has "
                     f"socket types to choose from; {machine}")


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
    if args.list_machines:
        return _list_machines()
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
        from sat.model.irregular.idioms import IdiomFileError, read_idioms

        try:  # checked before the (possibly long) analysis
            run.idioms = read_idioms(args.idioms)
        except IdiomFileError as error:
            raise UsageError(str(error)) from None
    if not args.sources and scenario is None and args.json and \
            Path(str(args.machine or "")).suffix.lower() in ASPEN_SUFFIXES:
        return _aspen_machine_report(run)
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
        return _aspen_model_and_reports(run, workbook, machine, scenario)

    from sat.frontend import read_sources

    functions = [f.strip() for f in args.functions.split(",") if f.strip()] \
        if args.functions else None
    # a scenario without sources is about the machine alone (the AMM architect's questions)
    with collector.frozen():  # what the run keeps, collections leave alone
        with collector.paused(survivors=True, cycles=True):  # the parse trees hold cycles
            program = read_sources(args.sources, args.defines, args.include_dirs, functions,
                                   progress=run.progress,
                                   processes=args.jobs or available_cores()) \
                if args.sources else _no_program()
        return _program_outputs(run, program, workbook, machine, scenario)


def _program_outputs(run: Run, program, workbook: str | None, machine: Machine | None,
                     scenario) -> int:
    """The code description, the model and every report of a program read."""
    args = run.args
    run.warn_all([(w.message, w.file, w.line) for w in program.warnings])
    loops = sum(1 for p in program.procedures for _ in p.all_loops())
    run.progress(f"read {len(program.procedures)} procedure(s), {loops} loop(s)")

    if args.xml:
        from sat.xmlio import program_to_xml, write_program

        if args.xml == "-":
            sys.stdout.write(program_to_xml(program))
        else:
            write_program(program, args.xml)
            run.progress(f"wrote {args.xml}")

    if machine is None:
        return 0
    return _model_and_reports(run, program, workbook, machine, scenario)


def _aspen_model_and_reports(run: Run, workbook: str | None, machine: Machine,
                             scenario) -> int:
    """An Aspen application model as SOURCE: its kernels on the machine, every output."""
    from sat import aspen
    from sat.ir import Program
    from sat.model.aspen_app import AspenModelError, build_aspen_model
    from sat.model.tables import Note
    from sat.parameters import build_parameters, validate
    from sat.parameters.registry import split_build_settings

    args = run.args
    if len(args.sources) != 1:
        raise UsageError("an Aspen application model is analysed alone: give one .aspen "
                         "SOURCE")
    for option, given in (("--xml", args.xml), ("--graphs", args.graphs), ("--aspen", args.aspen),
                          ("--params", args.params), ("--block-params", args.block_params),
                          ("--symsubs", args.symsubs), ("--conds", args.conds),
                          ("--idioms", args.idioms)):
        if given:
            raise UsageError(f"{option}: not for an Aspen model (it has no code)")
    run.progress(f"reading the Aspen model {args.sources[0]}")
    try:
        app = aspen.load_model(args.sources[0])
        aspen_machine = socket = None
        if args.machine and Path(args.machine).suffix.lower() in ASPEN_SUFFIXES:
            aspen_machine = aspen.load_machine_model(args.machine)
            socket = aspen.machine.check_socket(aspen_machine, args.socket)
    except aspen.AspenError as error:
        raise UsageError(str(error)) from None
    _settings, sets = split_build_settings(args.sets)
    params = build_parameters(machine, sets=sets)
    # --set of an Aspen parameter arrives as a code symbol's value: it overrides the model's
    for name, (value, _source) in params.symbol_values.items():
        if name not in app.params and (aspen_machine is None or
                                       name not in aspen_machine.params):
            raise UsageError(f"--set {name}: no such parameter of the machine or of the Aspen "
                             f"model {app.name}")
        params.add(_set_parameter(name, value))
    run.progress(f"building the model of {app.name}" + (
        f" on {aspen_machine.name}, socket {socket}" if aspen_machine is not None else
        f" on machine {machine.name}"))
    try:
        result = build_aspen_model(app, params, aspen_machine, socket)
    except AspenModelError as error:
        raise UsageError(str(error)) from None
    validate(params)
    env = result.env()
    for message in machine.notes:
        result.notes.append(Note(message, "assumption"))
    run.warn_all([(n.message, n.file, n.line) for n in result.notes if n.kind == "warning"])
    return _reports(run, Program(sources=list(args.sources)), result, env, workbook, machine,
                    scenario)


def _aspen_machine_report(run: Run) -> int:
    """``-m machine.aspen --json FILE`` without SOURCE: the peak rates of each socket type
    (Aspen's machine tool)."""
    from sat import aspen
    from sat.outputs import atomic_write_text, check_output_path
    from sat.report.json_export import dumps

    args = run.args
    if args.json != "-":
        check_output_path(args.json)
    try:
        machine = aspen.load_machine_model(args.machine)
        sockets = [args.socket] if args.socket else aspen.sockets(machine)
        rates = [aspen.peak_rates(machine, socket) for socket in sockets]
    except aspen.AspenError as error:
        raise UsageError(str(error)) from None
    data = {"satreport": __version__, "aspen_machine": {
        "machine": machine.name, "path": args.machine,
        "sockets": [{"socket": r.socket, "cores": r.cores,
                     "flops_per_s": r.flops, "bandwidth_bytes_per_s": r.bandwidth}
                    for r in rates]}}
    if args.json == "-":
        sys.stdout.write(dumps(data))
    else:
        atomic_write_text(args.json, dumps(data))
        run.progress(f"wrote {args.json}")
    return 0


def _set_parameter(name: str, value: float):
    from sat.parameter import Parameter

    return Parameter(name, int(value) if float(value).is_integer() else value, "", "problem",
                     f"Aspen parameter {name}.", "--set")


def _no_program():
    from sat.ir import Program

    return Program()


def _model_and_reports(run: Run, program, workbook: str | None,
                       machine: Machine, scenario=None) -> int:
    from sat.model.build import build_model
    from sat.model.hierarchy.aliasing import aliasing_warnings
    from sat.model.tables import Note
    from sat.model.validate import check, empty_nests
    from sat.parameters import build_parameters, validate
    from sat.parameters.registry import split_build_settings, unknown_sets

    args = run.args
    settings, sets = split_build_settings(args.sets)
    accelerator = None
    if getattr(args, "accelerator", None):
        from sat.machine.accelerators import AcceleratorError, load_accelerator

        try:
            accelerator = load_accelerator(args.accelerator)
        except AcceleratorError as error:
            raise UsageError(str(error)) from None
    params = build_parameters(machine, args.params, args.block_params, args.symsubs,
                              args.conds, sets, accelerator)
    validate(params)
    run.progress(f"building the model on machine {machine.name}")
    with collector.paused(survivors=True):  # the model's expressions
        result = build_model(program, params, setup_iterations=settings["SetupIterations"],
                             idioms=run.idioms)
        unknown = unknown_sets(params, [s.split("=", 1)[0] for s in sets])
        if unknown:
            raise UsageError(f"--set {unknown[0]}: no such parameter or code symbol")
        validate(params)  # problem parameters now exist too
        run.progress("evaluating the model")
        env = result.env()  # one evaluation for the checks and every output
    errors = check(result, env)
    if errors:
        raise UsageError(errors[0])
    if not result.tables["Loops"].rows and args.sources:
        skipped = [n for n in result.notes if "is not modelled" in n.message]
        if skipped:
            raise UsageError(f"{skipped[0].file}:{skipped[0].line}: nothing to model: "
                             f"{skipped[0].message}" + (f" (and {len(skipped) - 1} more nests)"
                                                        if len(skipped) > 1 else ""))
        raise UsageError(f"{args.sources[0]}:1: nothing to model: no loop nest in "
                         f"{', '.join(args.sources)}")
    result.notes.extend(Note(message, "warning", file, line)
                        for message, file, line in empty_nests(result, env))
    result.notes.extend(Note(message, "warning", file, line) for message, file, line in
                        aliasing_warnings(result.alias_checks, env, env.param("LineBytes")))
    for message in machine.notes:  # defaults taken from the machine file: Notes, not warnings
        if args.verbose:
            run.progress(message)
        result.notes.append(Note(message, "assumption"))
    # The front ends' warnings, which head the notes, were shown after reading.
    shown = {(w.message, w.file, w.line) for w in program.warnings}
    run.warn_all([(n.message, n.file, n.line) for n in result.notes
                  if n.kind == "warning" and (n.message, n.file, n.line) not in shown])
    return _reports(run, program, result, env, workbook, machine, scenario)


def _reports(run: Run, program, result, env, workbook: str | None, machine: Machine,
             scenario) -> int:
    """The scenario, the sweep, then every output asked for."""
    args = run.args
    if scenario is not None:
        _scenario(run, result, scenario)
        env = result.env()  # the model at the optimum
    sweep_rows = _sweep(run, result) if args.sweeps else None

    drawings = None
    if args.html:
        from sat.report.drawings import Drawings

        # graphviz lays out the page's graphs in processes of its own from now on, while the
        # workbook and the JSON are written: a big dependency graph can take seconds
        drawings = Drawings(result.program or program, result)
    cell_of = parameter_cell = lambda _: None  # noqa: E731
    if workbook:
        from sat.report.workbook import WorkbookMeta, write_workbook

        run.progress(f"writing {workbook}")
        meta = WorkbookMeta(sources=list(args.sources), machine_name=machine.name,
                            machine_source=machine.source, version=__version__,
                            created=_today())
        cells = write_workbook(result, workbook, meta, env)
        cell_of, parameter_cell = cells.cell, cells.parameter_cell
        run.progress(f"wrote {workbook}")
    if args.json:
        from sat.outputs import atomic_write_text
        from sat.report.json_export import dumps, to_json_data

        run.progress(f"writing {'the JSON' if args.json == '-' else args.json}")
        data = to_json_data(program, result, env,
                            {"name": machine.name, "source": machine.source},
                            cell_of, parameter_cell)
        if sweep_rows is not None:
            data["sweep"] = sweep_rows
        if result.scenario is not None:
            data["scenario"] = result.scenario
        if args.json == "-":
            sys.stdout.write(dumps(data))
        else:
            atomic_write_text(args.json, dumps(data))
            run.progress(f"wrote {args.json}")
    if args.aspen:
        _write_aspen(run, program, result, env, machine)
    if args.html:
        from sat.report.html import write_html

        run.progress(f"writing {args.html}")
        write_html(result.program or program, result, env, args.html,
                   {"sources": list(args.sources), "version": __version__,
                    "machine": {"name": machine.name, "source": machine.source},
                    "created": _today()}, drawings)
        run.progress(f"wrote {args.html}")
    if args.graphs:
        from sat.report.graph import write_graphs

        run.progress(f"writing graphs to {args.graphs}")
        written = write_graphs(result.program or program, args.graphs)
        run.progress(f"wrote {len(written)} graph(s) to {args.graphs}")
    return 0


def _today() -> str:
    """The date the outputs say they were created on (ISO 8601)."""
    import datetime  # only for the outputs that carry it: start-up time of small runs

    return datetime.date.today().isoformat()


def _write_aspen(run: Run, program, result, env, machine: Machine) -> None:
    """``--aspen``: the program as an Aspen application model."""
    from sat.outputs import atomic_write_text
    from sat.report.aspen_model import program_as_aspen

    path = run.args.aspen
    run.progress(f"writing {'the Aspen model' if path == '-' else path}")
    where = f" ({machine.source})" if machine.source and machine.source != machine.name else ""
    text = program_as_aspen(program, result, env, sources=list(run.args.sources),
                            machine=machine.name + where,
                            created=_today())
    if path == "-":
        sys.stdout.write(text)
    else:
        atomic_write_text(path, text)
        run.progress(f"wrote {path}")


MAX_SWEEP_ROWS = 100_000  # rows the workbook and the JSON hold; a larger grid goes to --sweep-csv


def _sweep(run: Run, result) -> dict:
    """Run ``--sweep``: the JSON's ``sweep`` object; a Sweep table is added to the model's."""
    from sat.explore.sweep import SweepError, axes_for, prepare
    from sat.explore.sweep import run as run_sweep
    from sat.model.tables import Column, Table

    args = run.args
    try:
        axes = axes_for(result, args.sweeps)
    except SweepError as error:
        raise UsageError(str(error)) from None
    sweep = prepare(result, axes)
    points = sweep.points
    if points > MAX_SWEEP_ROWS and not args.sweep_csv:
        raise UsageError(f"--sweep: the grid has {points:,} configurations; the workbook and "
                         f"the JSON hold at most {MAX_SWEEP_ROWS:,}: give --sweep-csv FILE")
    names = [axis.name for axis in axes]
    run.progress(f"sweeping {' x '.join(names)}: {points:,} configurations")

    def progress(done: int, total: int) -> None:
        run.progress(f"swept {done:,} of {total:,} configurations")

    keys = [*names, *sweep.results, "valid", "reason"]
    # the workbook and the JSON keep the rows of a grid they can hold; a CSV takes any grid
    kept: list[dict] | None = [] if points <= MAX_SWEEP_ROWS else None
    invalid = 0

    def consume(write_row=None) -> None:
        nonlocal invalid
        for row in run_sweep(sweep, progress, run.mapper()):
            invalid += not row["valid"]
            if write_row is not None:
                write_row(["" if row[k] is None else row[k] for k in keys])
            if kept is not None:
                kept.append(row)

    if args.sweep_csv:
        from sat.outputs import atomic_write

        def write(tmp: str) -> None:
            import csv

            with open(tmp, "w", newline="", encoding="utf-8") as handle:
                writer = csv.writer(handle)
                writer.writerow(keys)
                consume(writer.writerow)

        atomic_write(args.sweep_csv, write)
        run.progress(f"wrote {args.sweep_csv}")
    else:
        consume()
    if kept is not None:
        columns = [*(Column(n, n, _parameter_unit(result, n)) for n in names),
                   *(Column(n, n, result.totals[n].unit) for n in sweep.results),
                   Column("valid", "Valid", "", "FALSE where the model is undefined."),
                   Column("reason", "Why not valid", "", "What makes the model undefined.")]
        result.tables["Sweep"] = Table(
            "Sweep", "Sweep: values computed by satreport for each configuration (not "
            "formulas: a sheet cannot hold one model per row)", columns, kept)
    return {"parameters": names, "points": points, "results": sweep.results,
            "invalid": invalid, "rows": kept or [], "csv": args.sweep_csv}


def _scenario(run: Run, result, scenario) -> None:
    """Solve ``--scenario``; the parameters are set to the optimum (when there is one), the
    answer goes to ``result.scenario`` and a Scenario table."""
    from sat.explore.explain import answer, region
    from sat.explore.scenario import ScenarioError, bind
    from sat.explore.scenario_sheet import scenario_table
    from sat.explore.solve import MAX_GRID, Evaluator, exhaustive, grid_points, isres
    from sat.model.tables import Note

    try:
        problem = bind(scenario, result)
    except ScenarioError as error:
        raise UsageError(str(error)) from None
    evaluate = Evaluator.of(problem, result)
    points = grid_points(problem)
    method = scenario.solver
    if method == "exhaustive" and points > MAX_GRID:
        raise UsageError(f"{scenario.display}:{scenario.lines.get('solver', 1)}: solver: "
                         f"exhaustive needs whole-numbered variables and at most "
                         f"{MAX_GRID:,} configurations; this grid has "
                         + (f"{points:,.0f}" if math.isfinite(points) else "continuous "
                            "variables"))
    if method == "auto":
        method = "exhaustive" if points <= MAX_GRID else "isres"
    if method == "exhaustive":
        run.progress(f"solving {scenario.display}: every one of {points:,.0f} configurations")
        solution = exhaustive(evaluate, problem.variables, lambda done, total: run.progress(
            f"evaluated {done:,} of {total:,} configurations"), run.mapper())
    else:
        run.progress(f"solving {scenario.display}: evolution strategy (ISRES), at most "
                     f"{scenario.time_limit_s:g} s")
        solution = isres(evaluate, problem.variables, scenario.time_limit_s, scenario.seed)
    data = answer(problem, evaluate, solution)
    if solution.tally.feasible:
        optimum = dict(zip((v.name for v in problem.variables),
                           solution.tally.best_point.tolist(), strict=True))
        for parameter in result.parameters:
            if parameter.name in optimum:
                value = optimum[parameter.name]
                parameter.value = int(value) if float(value).is_integer() else value
                parameter.source = f"scenario optimum ({scenario.display})"
                parameter.defaulted = False
        area = region(problem, evaluate, optimum)
        if area is not None:
            data["region"] = area
    for sentence in data["sentences"]:
        run.progress(sentence)
    result.notes.append(Note(f"Scenario {scenario.display}: " + " ".join(data["sentences"]),
                             "assumption"))
    result.scenario = data
    result.tables["Scenario"] = scenario_table(problem, data)
    run.progress(f"solved in {solution.seconds:.2f} s ({solution.tally.evaluations:,} "
                 "configurations)")


def _parameter_unit(result, name: str) -> str:
    return next((p.unit for p in result.parameters if p.name == name), "")


def _known_errors() -> tuple[type[BaseException], ...]:
    """Exception types that carry a one-line message for the user (exit status 2)."""
    from sat.frontend import FrontendError
    from sat.machine import MachineError
    from sat.model.context import ExpressionError
    from sat.outputs import OutputError  # WorkbookError is one too
    from sat.parameters import ParameterError
    from sat.xmlio import XMLFormatError

    return (UsageError, OutputError, FrontendError, XMLFormatError, MachineError,
            ParameterError, ExpressionError)


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return run(args)
    except KeyboardInterrupt:
        print("satreport: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0
    except Exception as error:  # noqa: BLE001 - the single place errors reach the user
        if isinstance(error, _known_errors()):
            print(f"satreport: error: {error}", file=sys.stderr)
            return 2
        if args.verbose:
            traceback.print_exc()
        print(f"satreport: internal error: {type(error).__name__}: {error} "
              "(this is a bug; rerun with -v for details)", file=sys.stderr)
        return 3


if __name__ == "__main__":
    sys.exit(main())
