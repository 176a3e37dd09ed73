"""A run on an Aspen model: an application's kernels on a machine, or a machine's peak rates."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING

from sat import __version__
from sat.pipeline.reports import write_reports
from sat.pipeline.session import Run, UsageError
from sat.quoting import echoed

if TYPE_CHECKING:  # imported when needed: start-up time of small runs
    from sat.machine import Machine

ASPEN_SUFFIXES = (".aspen",)


def aspen_model_and_reports(run: Run, workbook: str | None, machine: Machine,
                             scenario) -> int:
    """An Aspen application model as SOURCE: its kernels on the machine, every output."""
    from sat import aspen
    from sat.ir import Program
    from sat.model.aspen_app import AspenModelError, build_aspen_model
    from sat.model.tables import Note
    from sat.model.validate import overflows
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
            raise UsageError(f"--set {echoed(name)}: no such parameter of the machine or of "
                             f"the Aspen model {app.name}")
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
    errors = overflows(result, env)
    if errors:
        raise UsageError(errors[0])
    for message in machine.notes:
        result.notes.append(Note(message, "assumption"))
    run.warn_all([(n.message, n.file, n.line) for n in result.notes if n.kind == "warning"])
    return write_reports(run, Program(sources=list(args.sources)), result, env, workbook, machine,
                    scenario)


def aspen_machine_report(run: Run) -> int:
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
