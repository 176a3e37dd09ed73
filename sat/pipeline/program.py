"""A run on source code: the code description, the model on the machine, then the reports."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

from sat import collector
from sat.pipeline.reports import write_reports
from sat.pipeline.session import Run, UsageError
from sat.quoting import echoed

if TYPE_CHECKING:  # imported when needed: start-up time of small runs
    from sat.machine import Machine


def program_outputs(run: Run, program, workbook: str | None, machine: Machine | None,
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


def _model_and_reports(run: Run, program, workbook: str | None,
                       machine: Machine, scenario=None) -> int:
    from sat.model.build import build_model
    from sat.model.hierarchy.aliasing import aliasing_warnings
    from sat.model.tables import Note
    from sat.model.validate import check, empty_nests, narrow_blocks, tiny_extents
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
                             idioms=run.idioms,
                             fuse_all=getattr(args, "fuse", "none") == "all")
        unknown = unknown_sets(params, [s.split("=", 1)[0] for s in sets])
        if unknown:
            raise UsageError(f"--set {echoed(unknown[0])}: no such parameter or code symbol")
        validate(params)  # problem parameters now exist too
        run.progress("evaluating the model")
        env = result.env()  # one evaluation for the checks and every output
    # a default block narrower than a stencil is the model's choice, not the user's: a warning
    blocks_given = bool(args.block_params or args.params) or any(
        s.split("=", 1)[0].strip().lower() in ("blockx", "blocky", "blockz") for s in sets)
    errors = check(result, env, blocks_given)
    if errors:
        raise UsageError(errors[0])
    if not result.tables["Loops"].rows and args.sources:
        skipped = result.unmodelled
        if skipped:
            first = skipped[0]
            if args.verbose:  # every reason, the first one also in the error line
                for entry in skipped[1:]:
                    run.warn(f"{entry['file']}:{entry['line']}: {entry['procedure']}: the nest "
                             f"at line {entry['line']} is not modelled: {entry['reason']}")
            more = "" if len(skipped) == 1 else (
                f" (and {len(skipped) - 1} more nests" + ("" if args.verbose else
                                                          ": -v lists them") + ")")
            raise UsageError(f"{first['file']}:{first['line']}: nothing to model: "
                             f"{first['procedure']}: the nest at line {first['line']} is not "
                             f"modelled: {first['reason']}{more}")
        raise UsageError(f"{args.sources[0]}:1: nothing to model: no loop nest in "
                         f"{', '.join(args.sources)}")
    result.notes.extend(Note(message, "warning", file, line)
                        for message, file, line in empty_nests(result, env))
    result.notes.extend(Note(message, "warning", file, line)
                        for message, file, line in tiny_extents(result, env))
    if not blocks_given:
        result.notes.extend(Note(message, "warning", file, line)
                            for message, file, line in narrow_blocks(result, env))
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
    return write_reports(run, program, result, env, workbook, machine, scenario)

