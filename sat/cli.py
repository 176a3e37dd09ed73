"""``satreport``: the command line: its arguments, and the exit status of the run they start.

Exit status 0: done (warnings on stderr and in the workbook's Notes); 2: usage error or
nothing could be analysed.  No Python traceback reaches a user: an unexpected exception is a
bug and is reported in one line (the traceback only with ``-v``), exit status 3.
"""

from __future__ import annotations

import argparse
import sys

from sat import __version__
from sat.pipeline import UsageError, run
from sat.quoting import one_line


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
    model.add_argument("--fuse", choices=["all", "none"], default="none",
                       help="all: every legal loop fusion group's Fuse_ toggle starts at 1 "
                            "(--set Fuse_<procedure>_<k>=0 keeps one apart); none (default): "
                            "every toggle starts at 0 (Fusion sheet, JSON 'fusion')")
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
    front.add_argument("--fortran-parser", choices=["tree-sitter", "fparser"],
                       default="tree-sitter",
                       help="tree-sitter (default): the fast parser, with fparser for any file "
                            "it finds an error in or cannot read whole; fparser: every file "
                            "with fparser (the Notes and JSON 'parsers' say which read each)")
    front.add_argument("-j", "--jobs", type=_jobs, default=None, metavar="N",
                       help="processes that share fparser's parse of a big Fortran program "
                            "(with --fortran-parser fparser), and that write the HTML page "
                            "while the workbook and the JSON are written (default: the cores "
                            "available, at most 4; 1: one process)")
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


def _list_machines() -> int:
    from sat.machine import list_machines

    for name, description in list_machines():
        print(f"{name:24s} {description}")
    return 0


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
        if args.list_machines:
            return _list_machines()
        return run(args)
    except KeyboardInterrupt:
        print("satreport: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0
    except Exception as error:  # noqa: BLE001 - the single place errors reach the user
        if isinstance(error, _known_errors()):
            print(one_line(f"satreport: error: {error}"), file=sys.stderr)
            return 2
        if args.verbose:
            import traceback  # only for a bug's report (start-up time)

            traceback.print_exc()
        print(one_line(f"satreport: internal error: {type(error).__name__}: {error} "
                       "(this is a bug; rerun with -v for details)"), file=sys.stderr)
        return 3


if __name__ == "__main__":
    sys.exit(main())
