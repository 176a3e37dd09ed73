"""A run's design-space exploration: ``--sweep`` over the model, ``--scenario`` solved."""

from __future__ import annotations

import math

from sat.pipeline.session import Run, UsageError

MAX_SWEEP_ROWS = 100_000  # rows the workbook and the JSON hold; a larger grid goes to --sweep-csv


def sweep(run: Run, result) -> dict:
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


def solve_scenario(run: Run, result, scenario) -> None:
    """Solve ``--scenario``; the parameters are set to the optimum (when there is one), the
    answer goes to ``result.scenario`` and a Scenario table."""
    from sat.explore.explain import answer, region
    from sat.explore.scenario import ScenarioError, bind
    from sat.explore.scenario_sheet import scenario_table
    from sat.explore.solve import (
        MAX_GRID,
        Evaluator,
        exhaustive,
        grid_points,
        isres,
        quiet_arithmetic,
    )
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
    with quiet_arithmetic():
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
                parameter.given, parameter.default = True, None
        result.refresh_derived()
        with quiet_arithmetic():
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
