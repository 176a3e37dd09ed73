"""A run's outputs of a built model: the workbook, the JSON, the Aspen model, HTML and graphs."""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import TYPE_CHECKING

from sat import __version__
from sat.pipeline.explore import solve_scenario, sweep
from sat.pipeline.session import Run

if TYPE_CHECKING:  # imported when needed: start-up time of small runs
    from sat.machine import Machine


def write_reports(run: Run, program, result, env, workbook: str | None, machine: Machine,
             scenario) -> int:
    """The scenario, the sweep, then every output asked for."""
    args = run.args
    if scenario is not None:
        solve_scenario(run, result, scenario)
        env = result.env()  # the model at the optimum
    _check_bounds(run, result, env)  # on the numbers the outputs show
    sweep_rows = sweep(run, result) if args.sweeps else None

    page = _start_html(run, program, result, env, bool(workbook or args.json or args.aspen),
                       {"sources": list(args.sources), "version": __version__,
                        "machine": {"name": machine.name, "source": machine.source},
                        "created": _today()})
    try:
        cell_of, parameter_cell = lambda _: None, lambda _: None
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
            _write_json(run, program, result, env, machine, sweep_rows, cell_of,
                        parameter_cell)
        if args.aspen:
            _write_aspen(run, program, result, env, machine)
        if page is not None:
            run.progress(f"writing {args.html}")
            page.write(args.html)
            run.progress(f"wrote {args.html}")
    finally:
        if page is not None:
            page.close()
    if args.graphs:
        from sat.report.graph import write_graphs

        run.progress(f"writing graphs to {args.graphs}")
        written = write_graphs(result.program or program, args.graphs, result)
        run.progress(f"wrote {len(written)} graph(s) to {args.graphs}")
    return 0


def _write_json(run: Run, program, result, env, machine: Machine, sweep_rows, cell_of,
                parameter_cell) -> None:
    """``--json``: the model's numbers, naming the workbook's cells that hold them."""
    from sat.outputs import atomic_write_text
    from sat.report.json_export import dumps, to_json_data

    path = run.args.json
    run.progress(f"writing {'the JSON' if path == '-' else path}")
    data = to_json_data(program, result, env, {"name": machine.name, "source": machine.source},
                        cell_of, parameter_cell)
    if sweep_rows is not None:
        data["sweep"] = sweep_rows
    if result.scenario is not None:
        data["scenario"] = result.scenario
    if path == "-":
        sys.stdout.write(dumps(data))
    else:
        atomic_write_text(path, dumps(data))
        run.progress(f"wrote {path}")


class _Page:
    """The HTML page, made when it is written (after the other outputs)."""

    def __init__(self, make: Callable[[], str]) -> None:
        self._make = make

    def write(self, path: str) -> None:
        from sat.outputs import atomic_write_text

        atomic_write_text(path, self._make())

    def close(self) -> None:
        """Nothing runs apart."""


def _start_html(run: Run, program, result, env, others: bool, meta: dict):
    """The page of ``--html`` (None: not asked for), started now in a forked process when
    other outputs are written meanwhile and a second core is there (``-j 1``: never)."""
    if not run.args.html:
        return None
    from sat.pipeline.background import ForkedText, can_fork
    from sat.pipeline.session import available_cores
    from sat.report.drawings import Drawings
    from sat.report.html import render_html

    shown = result.program or program
    apart = others and can_fork() and (run.args.jobs or available_cores()) > 1
    # graphviz lays out the page's graphs in processes of their own from here on, while the
    # page is computed and the workbook and the JSON are written: a big dependency graph can
    # take seconds
    drawings = None if apart else Drawings(shown, result)

    def make() -> str:
        return render_html(shown, result, env, meta,
                           drawings=drawings or Drawings(shown, result))

    return ForkedText(make, run.args.verbose) if apart else _Page(make)


def _today() -> str:
    """The date the outputs say they were created on (ISO 8601)."""
    import datetime  # only for the outputs that carry it: start-up time of small runs

    return datetime.date.today().isoformat()


def _check_bounds(run: Run, result, env) -> None:
    """Every nest held to its physical bounds: each violation on stderr, in the Notes (error
    level, first) and the JSON; the numbers stay as computed and the exit status 0."""
    if not result.bounds:  # an Aspen model: no loop nest of its own (start-up time)
        return
    from sat.model.bounds import violations
    from sat.model.tables import Note

    found = violations(result, env)
    result.bounds_violations = [v.as_dict() for v in found]
    result.notes[:0] = [Note(v.message, "error", v.file, v.line) for v in found]
    for violation in found:
        run.error(f"{violation.file}:{violation.line}: {violation.message}")


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
