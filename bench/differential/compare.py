"""Errors of satreport against the truth, per nest, and the table per shape class."""

from __future__ import annotations

import math
import statistics
from dataclasses import dataclass, field

from measure import KINDS, Outcome

LEVELS = ("L1", "L2", "L3")
METRICS = ("compulsory", *LEVELS)


def relative(predicted: float, truth: float) -> float:
    if truth == 0:
        return 0.0 if abs(predicted) < 1e-9 else math.inf
    return (predicted - truth) / truth


@dataclass
class NestErrors:
    ident: str
    classes: list[str]
    crash: str = ""
    flops_exact: bool = False
    flops_detail: str = ""
    errors: dict[str, float] = field(default_factory=dict)  # metric -> relative error
    source: str = ""
    violations: list[str] = field(default_factory=list)  # satreport's bounds_violations

    @property
    def worst(self) -> float:
        return max((abs(e) for e in self.errors.values()), default=0.0)

    def to_json(self) -> dict:
        return {"ident": self.ident, "classes": self.classes, "crash": self.crash,
                "flops_exact": self.flops_exact, "flops_detail": self.flops_detail,
                "errors": {k: (v if math.isfinite(v) else 1e300) for k, v in
                           self.errors.items()}, "violations": self.violations}


def _close(a: float, b: float) -> bool:
    return abs(a - b) <= 1e-6 * max(1.0, abs(b))


def nest_errors(outcome: Outcome, source: str = "") -> NestErrors:
    out = NestErrors(outcome.nest.ident, sorted(outcome.nest.classes), outcome.crash,
                     source=source)
    t, p = outcome.truth, outcome.prediction
    if outcome.crash or p is None or t is None:
        out.crash = out.crash or "no prediction"
        return out
    total = sum(t.flops.values())
    wrong = []
    if not _close(p.flops_total, total):
        wrong.append(f"total {p.flops_total:g} vs {total}")
    for kind in KINDS:
        if kind in t.unmeasured:  # the execution never ran a statement doing this kind
            continue
        if not _close(p.per_iteration.get(kind, 0.0), t.per_iteration[kind]):
            wrong.append(f"{kind}/it {p.per_iteration.get(kind, 0.0):g} vs "
                         f"{t.per_iteration[kind]:g}")
    out.violations = list(p.violations)
    out.flops_exact = not wrong
    out.flops_detail = "; ".join(wrong)
    out.errors["compulsory"] = relative(p.compulsory, t.compulsory)
    for level in LEVELS:
        if level in p.levels:
            out.errors[level] = relative(p.levels[level], t.levels[level])
    return out


def _percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    if not ordered:
        return math.nan
    k = (len(ordered) - 1) * q
    lo, hi = math.floor(k), math.ceil(k)
    return ordered[lo] + (ordered[hi] - ordered[lo]) * (k - lo)


@dataclass
class ClassRow:
    name: str
    count: int
    crashes: int
    violations: int  # nests with a bound violation satreport reports
    flops_exact: float  # share of the modelled nests
    stats: dict[str, tuple[float, float, float]]  # metric -> (median, p90, signed worst)


def class_rows(results: list[NestErrors]) -> list[ClassRow]:
    names = sorted({c for r in results for c in r.classes})
    rows = []
    for name in ["all", *names]:
        members = [r for r in results if name == "all" or name in r.classes]
        modelled = [r for r in members if not r.crash]
        stats = {}
        for metric in METRICS:
            values = [r.errors[metric] for r in modelled if metric in r.errors]
            if not values:
                stats[metric] = (math.nan, math.nan, math.nan)
                continue
            magnitudes = [abs(v) for v in values]
            worst = max(values, key=abs)
            stats[metric] = (statistics.median(magnitudes), _percentile(magnitudes, 0.9),
                             worst)
        exact = sum(r.flops_exact for r in modelled) / len(modelled) if modelled else math.nan
        violated = sum(1 for r in modelled if r.violations)
        rows.append(ClassRow(name, len(members), len(members) - len(modelled), violated,
                             exact, stats))
    return rows


def target_met(metric: str, row: ClassRow, members: list[NestErrors]) -> bool:
    """The accuracy target: compulsory bytes within 1 % on at least 99 % of the class's
    nests; traffic at a level with a median |error| of at most 2 % and a 90th percentile of
    at most 15 %."""
    if metric == "compulsory":
        values = [abs(r.errors["compulsory"]) for r in members if not r.crash]
        return sum(v <= 0.01 for v in values) >= 0.99 * len(values)
    median, p90, _ = row.stats[metric]
    return median <= 0.02 and p90 <= 0.15


def _pct(value: float, signed: bool = False) -> str:
    if math.isnan(value):
        return ""
    if not math.isfinite(value) or abs(value) >= 1e4:
        return "> +10⁶ %" if value > 0 else "< −10⁶ %"
    return f"{100 * value:+.1f}" if signed else f"{100 * value:.1f}"


def markdown_table(rows: list[ClassRow]) -> str:
    head = ["class", "nests", "crashes", "bound violations", "flops exact %"]
    for metric in METRICS:
        head += [f"{metric} median %", f"{metric} p90 %", f"{metric} worst %"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for row in rows:
        cells = [row.name, str(row.count), str(row.crashes), str(row.violations),
                 "" if math.isnan(row.flops_exact) else f"{100 * row.flops_exact:.0f}"]
        for metric in METRICS:
            median, p90, worst = row.stats[metric]
            cells += [_pct(median), _pct(p90), _pct(worst, True)]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)
