"""One satreport run with the processor time of each of its stages, for the benches.

    python bench/stage_split.py TIMES.json SATREPORT_ARGUMENTS...

runs ``satreport SATREPORT_ARGUMENTS...`` in this process and writes to ``TIMES.json`` the
processor seconds (all threads, ``time.process_time``) of each stage: start-up (the
interpreter and the imports, up to the first progress step), the front end (reading the
sources), the model (building and evaluating it), then each output written, in the order the
run writes them, named by its file's suffix (``xlsx``, ``json``, ``html``, ...). The stages are
cut where the run's own progress steps begin ("building the model", "writing FILE"), so the
split costs nothing and changes nothing in the run.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))


def stage_of(message: str) -> str | None:
    """The stage a progress step begins, or None for a step within a stage."""
    if message.startswith("parsing") or message.startswith("reading"):
        return "front end"
    if message.startswith("building the model"):
        return "model"
    if message.startswith("writing "):
        return Path(message.removeprefix("writing ").strip()).suffix.lstrip(".") or "output"
    return None


def split(marks: list[tuple[float, str]], end: float) -> dict[str, float]:
    """Processor seconds per stage from the (time, message) of every step and the run's end."""
    stages: dict[str, float] = {}
    current, since = "start-up", 0.0
    for at, message in marks:
        stage = stage_of(message)
        if stage is None or stage == current:
            continue
        stages[current] = stages.get(current, 0.0) + at - since
        current, since = stage, at
    stages[current] = stages.get(current, 0.0) + end - since
    return stages


def parse_arguments(argv: list[str]) -> argparse.Namespace:
    """The times file and the satreport arguments, or a usage message for --help."""
    parser = argparse.ArgumentParser(
        prog="stage_split.py",
        description="Run satreport once in this process and write the processor seconds "
        "of each stage (start-up, front end, model, each output) to a JSON file.",
    )
    parser.add_argument("times", metavar="TIMES.json", help="where the stage times go")
    parser.add_argument(
        "arguments",
        nargs=argparse.REMAINDER,
        metavar="SATREPORT_ARGUMENTS",
        help="the arguments of the satreport run, as on its command line",
    )
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    options = parse_arguments(sys.argv[1:] if argv is None else argv)
    target, arguments = options.times, options.arguments
    from sat import progress

    marks: list[tuple[float, str]] = []
    step = progress.Progress.step

    def timed_step(self: progress.Progress, message: str) -> None:
        marks.append((time.process_time(), message))
        step(self, message)

    progress.Progress.step = timed_step  # type: ignore[method-assign]
    from sat.cli import main as satreport

    status = satreport(arguments)
    Path(target).write_text(json.dumps(split(marks, time.process_time())))
    return status


if __name__ == "__main__":
    sys.exit(main())
