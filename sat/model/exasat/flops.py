"""Floating-point work of a nest: counts by kind per iteration, Gflop and weighted Gflop.

Counts in the IR are exclusive per level.  The per-iteration columns add the levels of the
nest once each (the original sheet does the same for literal trip counts, but multiplies a
species loop inside the grid loops by its trips: 8*nspecies + 841 adds where these columns
show 849); the Gflop totals multiply each level's counts by the iterations that level really
runs (the product of its enclosing trip counts), so work placed
in an outer loop is not inflated to every innermost iteration.  A branch arm's work is
weighted by its probability (``--conds``; an else, 1 minus its chain's arms'; else 1/arms);
a call to a procedure of the program arrives here already written into the nest
(:mod:`sat.model.calls`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from sat.ir import Body, Branch, InlinedCall, Loop, Program
from sat.model import expr as E
from sat.model.context import ModelContext
from sat.model.exasat.iteration import trip_count
from sat.regex import LazyPattern

KINDS = ("adds", "multiplies", "divides", "specials")


@dataclass
class FlopSums:
    """Per-iteration counts (plain numbers) and total flop expressions by kind."""

    per_iteration: dict[str, float] = field(default_factory=lambda: dict.fromkeys(KINDS, 0.0))
    totals: dict[str, list[E.Expr]] = field(default_factory=lambda: {k: [] for k in KINDS})
    # flops (all kinds) done inside each procedure the nest calls, by callee
    by_callee: dict[str, list[E.Expr]] = field(default_factory=dict)
    # per iteration, by procedure the nest calls directly: calls, and flops by kind inside it
    calls: dict[str, float] = field(default_factory=dict)
    callee_per_iteration: dict[str, dict[str, float]] = field(default_factory=dict)
    call_lines: dict[str, int] = field(default_factory=dict)  # the first call site


def branch_probability(branch: Branch, ctx: ModelContext, file: str = "",
                       siblings: Sequence[Branch] = ()) -> float:
    """Probability the arm runs: from the conditions file; for the else of a chain whose
    other arms all have one there, what they leave (``1 - p`` after ``if`` with ``p``);
    else 1/arms (noted). A called procedure's work runs every time. ``siblings``: the
    branches of the body that holds the arm (its chain among them)."""
    if isinstance(branch, InlinedCall):
        return 1.0
    condition = branch.condition.strip()
    given = _given_probability(condition, ctx)
    if given is not None:
        return given
    earlier = [_given_probability(arm.condition.strip(), ctx)
               for arm in _earlier_arms(branch, siblings)]
    if earlier and all(p is not None for p in earlier):
        return max(0.0, 1.0 - sum(p for p in earlier if p is not None))
    arms = max(branch.arms, 1)
    ctx.note(f"branch '{condition or 'else'}' taken with probability 1/{arms} "
             "(no value in --conds)", "assumption", file, branch.line)
    return 1.0 / arms


def _given_probability(condition: str, ctx: ModelContext) -> float | None:
    """The conditions file's probability of ``condition``, None when it has none."""
    for text, p in ctx.params.conds.items():
        if text.strip().lower() == condition.lower():
            return float(p)
    return None


def _earlier_arms(branch: Branch, siblings: Sequence[Branch]) -> list[Branch]:
    """The arms before an ``else`` in its chain (arms 0 .. arm-1, written just before it
    among ``siblings``); none for any other arm or when the chain is not found whole."""
    if branch.condition.strip().lower() != "else" or branch.arm < 1:
        return []
    index = next((i for i, arm in enumerate(siblings) if arm is branch), None)
    if index is None or index < branch.arm:
        return []
    earlier = list(siblings[index - branch.arm:index])
    if any(isinstance(arm, InlinedCall) or arm.arm != n or arm.arms != branch.arms
           for n, arm in enumerate(earlier)):
        return []
    return earlier


# the front ends' warning on a call to something not in the sources names its cost parameter
_UNKNOWN_CALLEE = LazyPattern(r"'([^']+)'(?: \([^)]*\))?: it costs CallFlops_")


class FlopCounter:
    """Walks a nest summing flops; resolves calls to procedures of the program."""

    def __init__(self, program: Program, ctx: ModelContext):
        self.program = program
        self.ctx = ctx
        # Unknown callees a front end has already warned about: one warning per procedure.
        self._warned = {name for w in program.warnings
                        for name in _UNKNOWN_CALLEE.findall(w.message)}

    def nest(self, loop: Loop, file: str, whole: E.Expr | None = None,
             probability: float = 1.0, repeats: frozenset[int] = frozenset()) -> FlopSums:
        """Sums over a nest; ``whole`` replaces the trip product of a full-depth level.

        ``probability`` is the chance the nest runs at all (it sits inside branch arms);
        ``repeats`` holds the ids of the repeated calls that repeat the grid sweep
        (:attr:`sat.model.exasat.iteration.NestShape.repeats`).
        """
        sums = FlopSums()
        self._body(loop, sums, [], probability, file, whole, len([loop, *loop.all_loops()]),
                   None, repeats)
        return sums

    def _body(self, body: Body, sums: FlopSums, trips: list[E.Expr], prob: float, file: str,
              whole: E.Expr | None, depth: int, callee: str | None = None,
              repeats: frozenset[int] = frozenset()) -> None:
        if isinstance(body, Loop):
            trips = [*trips, trip_count(body, self.ctx)]
        counts = dict(zip(KINDS, (body.adds, body.multiplies, body.divides, body.specials),
                          strict=True))
        mult = self._mult(trips, prob, whole, depth) \
            if body.calls or any(counts.values()) else E.Num(0)
        for call in body.calls:
            if call.followed:  # sat.model.calls wrote the callee's work into this nest
                continue
            # a callee of the program that was not followed (recursion) was reported by
            # sat.model.calls; one that is not in the sources costs CallFlops_<name>
            if self.program.procedure(call.name) is None:
                cost = self.ctx.call_cost(call.name)
                self.ctx.note(f"call to '{call.name}': not a procedure of the program, it "
                              f"costs {cost.name} flops per call (0 unless given with --set "
                              f"{cost.name}=FLOPS)",
                              "assumption" if call.name in self._warned else "warning",
                              file, call.line)
                sums.totals["adds"].append(E.mul(cost, mult))
                sums.by_callee.setdefault(callee or call.name, []).append(E.mul(cost, mult))
                if callee is None:
                    self._count_call(sums, call.name, call.line, prob)
        for kind, n in counts.items():
            if n:
                sums.per_iteration[kind] += prob * n
                sums.totals[kind].append(E.mul(n, mult))
                if callee is not None:
                    sums.by_callee.setdefault(callee, []).append(E.mul(n, mult))
                    kinds = sums.callee_per_iteration.setdefault(callee,
                                                                 dict.fromkeys(KINDS, 0.0))
                    kinds[kind] += prob * n
        for branch in body.branches:
            p = prob * branch_probability(branch, self.ctx, file, body.branches)
            # identical calls written in once (sat.model.calls) run branch.times times: a
            # repetition of the grid sweep (sat.model.exasat.iteration) is a trip count,
            # like a loop's; other repeated work weighs its levels, like a copy of them
            inner_trips = trips
            if id(branch) in repeats:
                inner_trips = [*trips, E.Num(branch.times)]
            p_inner = p if id(branch) in repeats else p * branch.times
            inner = callee
            if isinstance(branch, InlinedCall) and callee is None:
                inner = branch.callee  # work of nested calls counts for the callee the nest calls
                self._count_call(sums, branch.callee, branch.line, p * branch.times)
            self._body(branch, sums, inner_trips, p_inner, file, whole, depth, inner, repeats)
        for loop in body.loops:
            self._body(loop, sums, trips, prob, file, whole, depth, callee, repeats)

    @staticmethod
    def _count_call(sums: FlopSums, callee: str, line: int, probability: float) -> None:
        sums.calls[callee] = sums.calls.get(callee, 0.0) + probability
        sums.call_lines.setdefault(callee, line)
        sums.callee_per_iteration.setdefault(callee, dict.fromkeys(KINDS, 0.0))

    @staticmethod
    def _mult(trips: list[E.Expr], prob: float, whole: E.Expr | None, depth: int) -> E.Expr:
        if whole is not None and len(trips) == depth:
            return E.mul(prob, whole)  # innermost level of a perfect nest: all iterations
        return E.mul(prob, *trips)


# Terms of one sum per formula: a nest of hundreds of levels would otherwise write a
# formula longer than the 8192 characters Excel allows.
TERMS_PER_FORMULA = 16


def long_sum(terms: list[E.Expr], key: tuple, label: str, unit: str = "flops") -> E.Expr:
    """The sum of ``terms``; a long one is split over intermediate quantities (Workings cells)
    and, past a few terms, is itself one quantity, so that formulas using it stay short."""
    if len(terms) <= 4:
        return E.add(*terms) if terms else E.Num(0)
    parts = terms
    level = 0
    while len(parts) > TERMS_PER_FORMULA:
        parts = [E.Ref(E.Quantity((*key, f"part{level}.{k}"),
                                  E.add(*parts[i:i + TERMS_PER_FORMULA]), unit,
                                  f"{label}, partial sum"))
                 for k, i in enumerate(range(0, len(parts), TERMS_PER_FORMULA))]
        level += 1
    return E.Ref(E.Quantity(key, E.add(*parts), unit, label))


def flop_totals(sums: FlopSums, ident: str) -> dict[str, E.Expr]:
    """Flops of each kind per run of the nest ``ident``."""
    return {k: long_sum(sums.totals[k], ("loop", ident, f"{k}_flops"), f"{k} per run")
            for k in KINDS}


def gflop_exprs(totals: dict[str, E.Expr], ctx: ModelContext) -> tuple[E.Expr, E.Expr]:
    """(Gflop performed, weighted Gflop) of a nest per run, from :func:`flop_totals`."""
    adds, muls, divs, specials = (totals[k] for k in KINDS)
    gflops = E.add(adds, muls, divs, specials) / 1e9
    weighted = E.add(adds, muls, E.mul(ctx.param("DivCost"), divs),
                     E.mul(ctx.param("SpecialCost"), specials)) / 1e9
    return gflops, weighted
