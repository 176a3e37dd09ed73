"""The locality of a gather's indices: runs of references within a window of the array.

The index values are data the source does not show, like a branch's probability; the user
describes them per gather (the Gathers sheet's instances), ``--set`` or a ``<gather>`` entry
of the conditions file giving three problem parameters:

- ``IndexRun_<stem>`` (``R``): consecutive references drawn from one window; 1 (the
  default) is uniformly random indices;
- ``IndexWindow_<stem>`` (``W``): the consecutive elements a run's window spans (at most the
  range's ``m``); default the whole range;
- ``IndexSorted_<stem>``: 1 when a run's indices ascend (sorted indices, a CSR row's columns
  sorted within the row), 0 (the default) when they come in any order.

Sorted indices are one run of every reference of a pass over the range
(``run="pass"``); CSR columns sorted within a row, a run of the row over the range
(``run="loop"``: the trips of the gather's loop); clustered indices (a mesh's neighbour list
after reordering), runs of a few draws within a window of a few tens of elements; a window
is placed at random over the range, each draw uniform within it.

From ``R`` (at most the ``k`` references of a pass), ``W`` and ``P`` elements per line:

- **distinct elements** (compulsory): an element lies in a run's window with probability
  ``W/m`` and is drawn by the run with ``1 - (1 - 1/W)^R``; over ``k/R`` runs
  ``m x (1 - (1 - p)^(k/R))``, ``p = W/m x (1 - (1 - 1/W)^R)`` (``R = 1``: the uniform draws'
  ``m x (1 - (1 - 1/m)^k)``; ``R = k``, ``W = m``: the same, sorted); runs of several
  lengths ``R1 … Rn``, equally likely (``run="4 8 16"``: parameters ``IndexRun1_`` …, and
  ``IndexRun_`` their mean), ``m x (1 - EXP(k/R x mean(LN(1 - p_i))))``, ``p_i`` the ``p`` of
  length ``Ri``: an element escapes each run with its own length's chance, and the mean
  length's ``p`` would overstate the elements drawn (``p`` is concave in ``R``);
- **lines a run fetches** ``D``: the window, at a random alignment, spans on average
  ``N = (W + P - 1)/P`` lines: ``N - 2`` inner lines of ``P`` elements, each drawn with
  ``1 - (1 - P/W)^R``, and two edge lines holding ``s`` elements, ``s`` uniform from 1 to
  ``MIN(P, W)``, each drawn with ``1 - mean((1 - s/W)^R)``, the mean taken by the midpoint
  integral ``W/(S (R+1)) x ((1 - 0.5/W)^(R+1) - (1 - (S + 0.5)/W)^(R+1))``, ``S = MIN(P, W)``;
  at least 1 and at most ``MIN(R, N)`` lines;
- **the lines a run needs resident**: the window's ``N`` lines when its draws come in any
  order, one line when they ascend. A level that leaves the gather fewer lines ``C`` than
  that keeps ``C/N`` of them: a run fetches ``D + (R - D) x (1 - C/N)`` lines there;
- **elements used per line fetched** at a level, ``R / lines fetched per run`` (never fewer
  than ``ClusterElems_``): the line visits ``references / that`` of the level and LRU rules
  of :mod:`~sat.model.irregular.gather_lru`;
- **the uniform line draws a visit stands for** in the LRU rule's distinct lines
  ``L x (1 - EXP(-visits x c/L))``: a run touches each of the range's ``L`` lines with
  probability ``D/L``, ``n`` runs ``L x (1 - (1 - D/L)^n)`` lines, so
  ``c = -L x LN(1 - D/L) / lines fetched per run``.

With ``R = 1`` every number is the uniform model's, to the last digit (each formula keeps
it in an ``IF``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from sat.model import expr as E
from sat.model.context import ModelContext, derive_default
from sat.model.exasat.memory import KIB
from sat.parameter import IndexRunsEntry, Parameter

RUN_NOTE = ("Index runs: IndexRun_ (R, references per run; 1 uniformly random), IndexWindow_ (W, "
            "elements a run's window spans; default the range) and IndexSorted_ (1: a run's "
            "indices ascend) describe a gather's indices (--set or a <gather> entry of the "
            "conditions file). Distinct elements m x (1 - (1 - p)^(k/R)), p = W/m x (1 - (1 - "
            "1/W)^R) (runs of several equally likely lengths, IndexRun1_ …: m x (1 - EXP(k/R x "
            "mean(LN(1 - p_i))))); a run fetches D lines of the window's N = (W + P - 1)/P (inner"
            " and edge lines, P elements per line), needs N lines resident (one when sorted), and"
            " where a level leaves C < N lines fetches D + (R - D) x (1 - C/N); elements used per"
            " line fetched = R / lines per run, at least ClusterElems_; n runs touch L x (1 - (1 "
            "- D/L)^n) of the range's L lines.")


@dataclass
class IndexRuns:
    """The index runs of one gather: its parameters and the per-run quantities."""

    run: E.Param  # IndexRun_
    per_run: E.Quantity  # R: references per run, at most a pass's references
    window: E.Quantity  # W: elements of a run's window, at most the range
    window_lines: E.Quantity  # N: lines a window spans at a random alignment
    run_lines: E.Quantity  # D: distinct lines a run's draws fall on
    need_lines: E.Quantity  # lines a run needs resident (N; 1 when sorted)
    # runs of several lengths, equally likely (empty: every run is R long)
    lengths: tuple[E.Quantity, ...] = ()

    def uniform(self) -> E.Expr:
        """True (1) when the indices are uniformly random (R = 1): the uniform model."""
        return E.compare("<=", self.run, 1)

    def distinct(self, uniform: E.Expr, picked: E.ExprLike | E.Quantity,
                 range_elements: E.ExprLike) -> E.Expr:
        """Distinct elements ``picked`` references pick (``uniform``: the uniform draws')."""
        m = E.maximum(1, range_elements)

        def hit(length: E.Quantity) -> E.Expr:
            return E.mul(E.div(self.window, m), 1 - E.func("POWER", 1 - E.div(1, self.window),
                                                           length))
        runs = E.div(picked, self.per_run)
        if not self.lengths:
            return E.if_(self.uniform(), uniform,
                         E.mul(m, 1 - E.func("POWER", 1 - hit(self.per_run), runs)))
        # runs of several lengths: an element escapes a run of each with its own chance,
        # so the escapes' logarithms average over the lengths (not the mean length's)
        escape = E.div(E.add(*[E.func("LN", E.maximum(1e-300, 1 - hit(length)))
                               for length in self.lengths]), len(self.lengths))
        return E.if_(self.uniform(), uniform,
                     E.mul(m, 1 - E.func("EXP", E.mul(runs, escape))))

    def fetched(self, left_kb: E.ExprLike | E.Quantity, ctx: ModelContext) -> E.Expr:
        """Lines a run fetches where the cache leaves the gather ``left_kb`` KiB: ``D`` when
        the lines it needs stay, else ``D + (R - D) x (1 - C/need)``."""
        left = E.div(E.mul(left_kb, KIB), ctx.param("LineBytes"))
        return E.if_(E.compare("<=", self.need_lines, left), self.run_lines,
                     E.Ref(self.run_lines) + (E.Ref(self.per_run) - E.Ref(self.run_lines))
                     * (1 - E.div(left, self.need_lines)))

    def cluster(self, base: E.ExprLike | E.Quantity, fetched: E.ExprLike | E.Quantity
                ) -> E.Expr:
        """Elements used per line fetched: ``base`` (ClusterElems_) for uniform indices, else
        ``R`` / the ``fetched`` lines of a run."""
        return E.if_(self.uniform(), base, E.maximum(E.maximum(1, base), E.div(
            self.per_run, E.maximum(1, fetched))))

    def draws_per_visit(self, base: E.ExprLike | E.Quantity, fetched: E.ExprLike | E.Quantity,
                        range_lines: E.ExprLike | E.Quantity) -> E.Expr:
        """The uniform line draws one visit stands for in the LRU rule's distinct lines
        ``L x (1 - EXP(-visits x c/L))``: a run fetches ``fetched`` lines and touches each
        of the range's ``L`` lines with probability ``D/L``, so ``runs`` runs touch
        ``L x (1 - (1 - D/L)^runs)`` lines: ``c = -L x LN(1 - D/L) / fetched``."""
        lines = E.maximum(1, range_lines)
        share = E.minimum(1 - 1e-12, E.div(self.run_lines, lines))
        return E.if_(self.uniform(), E.maximum(1, base), E.maximum(E.maximum(1, base), E.div(
            E.mul(-1, lines, E.func("LN", 1 - share)), E.maximum(1, fetched))))


def run_lines(run: E.ExprLike, window: E.ExprLike, per_line: E.ExprLike
              ) -> tuple[E.Expr, E.Expr]:
    """(the lines a window of ``window`` elements spans at a random alignment, the distinct
    lines ``run`` draws uniform within it fall on), ``per_line`` elements per line."""
    spans = E.div(E.as_expr(window) + per_line - 1, per_line)
    inner = E.maximum(0, spans - 2)
    inner_hit = 1 - E.func("POWER", 1 - E.minimum(1, E.div(per_line, window)), run)
    edge = E.minimum(per_line, window)  # an edge line holds 1 to MIN(P, W) of the window
    power = E.as_expr(run) + 1
    missed = E.div(E.mul(window, E.func("POWER", 1 - E.div(0.5, window), power)
                         - E.func("POWER", E.maximum(0, 1 - E.div(E.as_expr(edge) + 0.5,
                                                                   window)), power)),
                   E.mul(edge, power))
    lines = E.mul(inner, inner_hit) + E.mul(E.minimum(2, spans), 1 - missed)
    return spans, E.maximum(1, E.minimum(E.minimum(run, spans), lines))


def entry_for(ctx: ModelContext, array: str, procedures: set[str]) -> IndexRunsEntry | None:
    """The conditions file's ``<gather>`` entry for ``array`` in one of ``procedures``."""
    for entry in reversed(ctx.params.index_runs):  # the last entry given wins
        if entry.array.lower() == array.lower() and (
                not entry.procedure or entry.procedure.lower() in procedures):
            return entry
    return None


def gather_parameter(ctx: ModelContext, name: str, value: float, unit: str, label: str,
                     source: str, kind: str = "number") -> E.Param:
    """A problem parameter of a gather, made once: ``--set`` first, then ``value`` from
    ``source`` (a conditions file's entry, or a default: ``source`` empty or ``default: …``,
    marked as a documented default)."""
    if name not in ctx.params:
        given = ctx.given(name)
        if given is not None:
            value, source = given
        value = int(value) if float(value).is_integer() else value
        defaulted = given is None and (not source or source.startswith("default"))
        ctx.params.add(Parameter(name, value, unit, "problem", label, source, kind, name,
                                 defaulted, given=given is not None))  # type: ignore[arg-type]
    return E.Param(name)


def index_runs(ctx: ModelContext, stem: str, where_text: str, entry: IndexRunsEntry | None,
               picked: E.ExprLike | E.Quantity, loop_trips: E.ExprLike,
               range_elements: E.Expr, per_line: E.Expr,
               quantity: Callable[[str, E.Expr, str, str], E.Quantity]) -> IndexRuns:
    """The runs of one gather: its ``IndexRun_``/``IndexWindow_``/``IndexSorted_`` parameters
    (``--set``, else ``entry``, else uniform) and the quantities of a run. ``picked``: the
    references of a pass; ``loop_trips``: the trips of the gather's loop (``run="loop"``)."""
    source = f"conditions file {entry.source}" if entry is not None else ""
    run_text = entry.run if entry is not None else ""
    window_text = entry.window if entry is not None else ""
    numeric = run_text not in ("", "pass", "loop")
    lengths = [float(t) for t in run_text.split()] if numeric else []
    run_name, window_name = f"IndexRun_{stem}", f"IndexWindow_{stem}"
    fresh = run_name not in ctx.params
    length_params = [gather_parameter(
        ctx, f"IndexRun{number}_{stem}", length, "references",
        f"references of {where_text} in a run of the {_ordinal(number)} length (equally "
        "likely)", source) for number, length in enumerate(lengths, 1)] \
        if len(lengths) > 1 else []
    run = gather_parameter(
        ctx, run_name, sum(lengths) / len(lengths) if numeric else 1, "references",
        f"references of {where_text} per run within a window (1 uniformly random indices)",
        source if numeric else "default: uniformly random indices")
    if fresh and length_params:
        derive_default(ctx.params, run_name, E.div(E.add(*length_params), len(length_params)),
                       "the mean of the run lengths")
    if fresh and run_text in ("pass", "loop"):
        derive_default(ctx.params, run_name, E.as_expr(picked if run_text == "pass"
                                                       else loop_trips),
                       f"{run_text} (conditions file {entry.source})"  # type: ignore[union-attr]
                       )
    fresh = window_name not in ctx.params
    window_given = window_text not in ("", "range")
    window = gather_parameter(
        ctx, window_name, float(window_text) if window_given else 1, "elements",
        f"consecutive elements a run of {where_text} is drawn from",
        source if window_given else "default: the range")
    if fresh and not window_given:
        derive_default(ctx.params, window_name, range_elements, "the range's elements")
    flag = entry.sorted if entry is not None else ""
    ascending = gather_parameter(
        ctx, f"IndexSorted_{stem}", int(flag or 0), "0/1",
        f"1 when the indices of a run of {where_text} ascend",
        source if flag else "default: in any order")
    per_run = quantity("index_run", E.minimum(E.maximum(1, run), E.maximum(1, picked)),
                       "references", "references per run (at most a pass's)")
    run_lengths = tuple(
        quantity(f"index_run{number}", E.minimum(E.maximum(1, length), E.maximum(1, picked)),
                 "references", f"references of a run of the {_ordinal(number)} length")
        for number, length in enumerate(length_params, 1))
    span = quantity("index_window", E.maximum(1, E.minimum(window, range_elements)),
                    "elements", "elements of a run's window (at most the range)")
    spans, lines = run_lines(E.Ref(per_run), E.Ref(span), per_line)
    window_lines = quantity("window_lines", spans, "lines", "lines a run's window spans")
    fetched = quantity("run_lines", lines, "lines", "distinct lines of a run's draws")
    need = quantity("need_lines", E.if_(E.compare("=", ascending, 1), 1, E.Ref(window_lines)),
                    "lines", "lines a run needs resident (one when its indices ascend)")
    return IndexRuns(run, per_run, span, window_lines, fetched, need, run_lengths)


def _ordinal(number: int) -> str:
    return {1: "first", 2: "second", 3: "third"}.get(number, f"{number}th")


@dataclass
class RunsAtLevel:
    """What a gather's level rules need of its runs: the runs, ClusterElems_ (``base``) and
    the references, to work out its elements per line and line visits at any level."""

    runs: IndexRuns
    base: E.Expr
    references: E.Quantity

    def at(self, left_kb: E.ExprLike | E.Quantity, range_lines: E.Quantity, ctx: ModelContext,
           key: tuple) -> tuple[E.Quantity, E.Quantity, E.Quantity]:
        """(elements used per line fetched, line visits, uniform line draws per visit) where
        the cache leaves the gather ``left_kb`` KiB."""
        fetched = E.Quantity((*key, "run_fetched"), self.runs.fetched(left_kb, ctx), "lines",
                             "lines a run fetches")
        cluster = E.Quantity((*key, "cluster"), self.runs.cluster(self.base, fetched),
                             "elements/line", "elements used per line fetched")
        visits = E.Quantity((*key, "visits"), E.div(E.Ref(self.references),
                                                     E.maximum(1, cluster)),
                            "lines", "line visits")
        draws = E.Quantity((*key, "draws_per_visit"), self.runs.draws_per_visit(
            self.base, fetched, range_lines), "", "uniform line draws per visit")
        return cluster, visits, draws
