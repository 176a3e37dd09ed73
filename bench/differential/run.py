"""Generated nests against their execution: one command, one Markdown table.

    python bench/differential/run.py [--count 2000] [--seed 0] [--batch 40] [--jobs 2]
        [--satreport PATH] [--markdown docs/accuracy-generated.md] [--results FILE.json]
        [--workdir DIR] [--readme README.md]

Generates ``--count`` nests from ``--seed`` (nest k depends only on the seed and k), measures
each by execution (flops by kind, compulsory bytes, traffic at three cache capacities through
``bench/validation/cachesim.c``), runs satreport (``--satreport``, default the one on PATH)
on the same sources, batch by batch, and writes the table per shape class and the worst
nests with their source.
"""

from __future__ import annotations

import argparse
import datetime
import json
import shutil
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import compare  # noqa: E402
import emit  # noqa: E402
import generate  # noqa: E402
import known  # noqa: E402
import measure  # noqa: E402

ROOT = HERE.parent.parent
WORST = 12


def run(count: int, seed: int, batch: int, jobs: int, satreport: str, workdir: Path,
        start: int = 0) -> list[compare.NestErrors]:
    nests = generate.generate(seed, count, start)
    batches = [nests[k:k + batch] for k in range(0, len(nests), batch)]
    done = []

    def one(index_and_batch):
        index, items = index_and_batch
        outcomes = measure.measure_batch(items, workdir / f"batch{index:04d}", satreport)
        results = [compare.nest_errors(o, emit.source(o.nest)) for o in outcomes]
        done.append(len(results))
        print(f"batch {index + 1}/{len(batches)}: {sum(done)} nests", file=sys.stderr,
              flush=True)
        return results

    with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        parts = list(pool.map(one, enumerate(batches)))
    return [r for part in parts for r in part]


def worst_section(results: list[compare.NestErrors]) -> str:
    crashed = [r for r in results if r.crash]
    wrong_flops = [r for r in results if not r.crash and not r.flops_exact]
    ranked = sorted((r for r in results if not r.crash), key=lambda r: r.worst, reverse=True)
    out = []
    for title, items in (("Crashes and nests not modelled", crashed[:WORST]),
                         ("Flops not exact", wrong_flops[:WORST]),
                         ("Largest traffic errors", ranked[:WORST])):
        out.append(f"### {title}\n")
        if not items:
            out.append("None.\n")
        for r in items:
            errors = ", ".join(f"{k} {compare._pct(v, True)} %" for k, v in r.errors.items())
            out.append(f"- `{r.ident}` ({', '.join(r.classes)}): "
                       + (r.crash or r.flops_detail or errors) + "\n")
            out.append("```\n" + r.source.rstrip() + "\n```\n")
    return "\n".join(out)


def combined_section() -> str:
    """satreport's internal errors on runs of several sources whose nests pass alone."""
    crashes = measure.COMBINED_CRASHES
    if not crashes:
        return ""
    smallest = min(crashes, key=lambda c: len(c[0]))
    messages = sorted({m for _, m in crashes})
    return (f"satreport stopped with an internal error on {len(crashes)} runs of several "
            f"sources, each of whose nests it models alone (smallest such run: "
            f"{', '.join(smallest[0])}): " + "; ".join(f"`{m}`" for m in messages) + ".")


def reasons_section(rows: list[compare.ClassRow]) -> str:
    """Every class whose worst error at some metric exceeds 25 %, with its diagnosis."""
    out = []
    for row in rows:
        worst = [(m, row.stats[m][2]) for m in compare.METRICS
                 if abs(row.stats[m][2]) > 0.25]
        if row.name == "all" or not worst:
            continue
        where = ", ".join(f"{m} {compare._pct(w, True)} %" for m, w in worst)
        reason = known.REASONS.get(row.name, "no failure of its own: its worst nests also "
                                   "carry one of the classes explained here")
        out.append(f"- **{row.name}** (worst {where}): {reason}")
    return "\n".join(out) or "None."


README_BEGIN = "<!-- accuracy table: written by bench/differential/run.py --readme -->"
README_END = "<!-- end of the accuracy table -->"


def readme_section(results: list[compare.NestErrors], args: argparse.Namespace) -> str:
    """The README's accuracy block: the table over all nests, the classes above 25 %."""
    rows = compare.class_rows(results)
    every = rows[0]
    head = "| level | median | 90th percentile | worst |\n|---|---|---|---|\n"
    body = "".join(f"| {metric} | {compare._pct(every.stats[metric][0])} % | "
                   f"{compare._pct(every.stats[metric][1])} % | "
                   f"{compare._pct(every.stats[metric][2], True)} % |\n"
                   for metric in compare.METRICS)
    named = [row for row in rows if row.name in known.REASONS
             and any(abs(row.stats[m][2]) > 0.25 for m in compare.METRICS)]
    reasons = "".join(f"- **{row.name}**: {known.REASONS[row.name]}\n" for row in named)
    return (f"{README_BEGIN}\n"
            f"{len(results)} generated nests (seed {args.seed}): {every.crashes} crashes, "
            f"{every.violations} bound violations, flops by kind exact on "
            f"{100 * every.flops_exact:.1f} % of the nests. Errors of satreport against the "
            f"execution (compulsory bytes; traffic at cache levels of 512 B, 16 KiB and 2 MiB):\n\n"
            f"{head}{body}\nThe shape classes whose worst error stays above 25 %, and "
            f"why:\n\n{reasons or 'None.'}\n{README_END}")


def write_readme(path: Path, section: str) -> None:
    """Replace the marked block of ``path`` by ``section``."""
    text = path.read_text()
    begin, end = text.find(README_BEGIN), text.find(README_END)
    if begin < 0 or end < begin:
        raise SystemExit(f"run.py: error: {path}: no accuracy block marked "
                         f"{README_BEGIN!r} ... {README_END!r}")
    path.write_text(text[:begin] + section + text[end + len(README_END):])


def expected_failures(results: list[compare.NestErrors]) -> str:
    """The (class, metric) pairs missing their target, as the test's literal."""
    lines = ["EXPECTED_FAILURES = {"]
    for row in compare.class_rows(results):
        members = [r for r in results if row.name == "all" or row.name in r.classes]
        for metric in compare.METRICS:
            if compare.target_met(metric, row, members):
                continue
            median, p90, worst = row.stats[metric]
            lines.append(f"    ({row.name!r}, {metric!r}): ({median:.3f}, {p90:.3f}, "
                         f"{worst:.3f}),")
    lines.append("}")
    return "\n".join(lines)


def markdown(results: list[compare.NestErrors], args: argparse.Namespace, seconds: float
             ) -> str:
    rows = compare.class_rows(results)
    timing = "" if seconds != seconds else f", {seconds:.0f} s on this machine"
    capacities = ", ".join(f"{k} {v // 1024 if v >= 1024 else v} "
                           f"{'KiB' if v >= 1024 else 'B'}"
                           for k, v in measure.CAPACITIES.items())
    return f"""# Accuracy on generated loop nests

Regenerate with `python bench/differential/run.py --count {args.count} --seed {args.seed}`
(this page: {len(results)} nests{timing}, {datetime.date.today()}).
What is measured and how: `bench/differential/README.md`.

Errors are (satreport − truth) / truth; median and 90th percentile of the magnitude, worst
with its sign. Flops exact: total flops and the per-iteration adds, multiplies, divides and
specials equal to the executed counts. Compulsory: the JSON's `traffic_blocks_gb` against the
distinct bytes touched plus the distinct bytes written (each pass of a time loop around a
call or several nests afresh).
L1, L2, L3: the Levels traffic (`levels[].traffic_gb`) against the write-back cache
simulation of the nest's address trace ({capacities}; fully associative, LRU, 64-byte
lines, cold at the start, dirty lines written back at the end).

{compare.markdown_table(rows)}

{combined_section()}

## Classes worse than 25 %, and why

{reasons_section(rows)}

## Worst nests

{worst_section(results)}
"""


def load_results(path: Path, seed: int) -> list[compare.NestErrors]:
    """Errors kept by --results, each nest's source made again from the seed."""
    out = []
    for item in json.loads(path.read_text()):
        number = int(item["ident"][1:])
        out.append(compare.NestErrors(
            item["ident"], item["classes"], item["crash"], item["flops_exact"],
            item["flops_detail"], {k: float(v) for k, v in item["errors"].items()},
            emit.source(generate.make_nest(seed, number)), item.get("violations", [])))
    return out


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--count", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--start", type=int, default=0, help="first nest number")
    parser.add_argument("--batch", type=int, default=40, help="nests per satreport run")
    parser.add_argument("--jobs", type=int, default=2, help="batches at once")
    parser.add_argument("--satreport", default=shutil.which("satreport") or "satreport")
    parser.add_argument("--markdown", default=str(ROOT / "docs" / "accuracy-generated.md"))
    parser.add_argument("--results", help="also write every nest's errors as JSON")
    parser.add_argument("--from-results", metavar="FILE.json",
                        help="write the page from the errors a run kept with --results "
                             "(its --count and --seed), without running anything")
    parser.add_argument("--expected-failures", action="store_true",
                        help="print the (class, metric) pairs missing their target as "
                             "tests/test_generated_nests.py lists them")
    parser.add_argument("--readme", metavar="README.md",
                        help="also rewrite the marked accuracy block of this file")
    parser.add_argument("--workdir", help="keep sources, truth programs, conds (default: "
                                          "a temporary folder, removed)")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    if args.from_results:
        results = load_results(Path(args.from_results), args.seed)
        Path(args.markdown).parent.mkdir(parents=True, exist_ok=True)
        Path(args.markdown).write_text(markdown(results, args, float("nan")))
        if args.readme:
            write_readme(Path(args.readme), readme_section(results, args))
        return 0
    workdir = Path(args.workdir) if args.workdir else measure.temporary_workdir()
    started = time.time()
    try:
        results = run(args.count, args.seed, args.batch, args.jobs, args.satreport, workdir,
                      args.start)
    except measure.HarnessError as error:
        print(f"run.py: error: {error}", file=sys.stderr)
        return 2
    finally:
        if not args.workdir:
            shutil.rmtree(workdir, ignore_errors=True)
    seconds = time.time() - started
    if args.results:
        Path(args.results).write_text(json.dumps([r.to_json() for r in results], indent=1))
    Path(args.markdown).parent.mkdir(parents=True, exist_ok=True)
    Path(args.markdown).write_text(markdown(results, args, seconds))
    if args.readme:
        write_readme(Path(args.readme), readme_section(results, args))
    print(compare.markdown_table(compare.class_rows(results)))
    if args.expected_failures:
        print(expected_failures(results))
    return 0


if __name__ == "__main__":
    sys.exit(main())
