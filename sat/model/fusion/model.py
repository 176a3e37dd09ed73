"""Fusion priced live: the toggles, the program's totals with them, and the Fusion sheet.

Each legal group has a 0/1 parameter ``Fuse_<procedure>_<k>`` (F).  The Loops sheet keeps one
row per source nest; the program's totals are those of the separate nests plus, for each
group, F times (the fused nest's value minus the sum of its members'): with every toggle at 0
they are the totals without fusion, to the last bit.  A working set's total (a maximum) takes
each member's value times (1 - F) and the fused nest's times F.

The Fusion sheet has one row per candidate run: its members, whether fusing them is legal
(else why), and for a legal group the traffic, working sets and time separate and fused, and
the cache size from which fusion pays.  Traffic is a step function of CacheKB for the fused
nest as for each member (a reuse case holds once its working set is below CacheKB), with
steps at the working sets; fusion *pays from* a cache size when, above it, the fused nest moves
fewer bytes than its members together at every cache size.  The sheet finds it by
evaluating both sides just above each working set (and with no cache at all); it is 0 when
fusion pays at every size, -1 when it pays at none beyond the largest working set.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from sat.model import expr as E
from sat.model.context import ModelContext
from sat.model.exasat.memory import CASES, layer_condition
from sat.model.fusion.candidates import Candidate
from sat.model.tables import CellValue, Column, NestWork, Table
from sat.model.tables import column as _c

Row = dict[str, CellValue]
_LEVELS = ("plane", "pencil", "cell")
# capacity just above a working set (KiB): the set fits, as in "working set < CacheKB"
_ABOVE = 1e-6
_NEVER = -1

NOTE = ("Fusion: runs of consecutive loop nests with the same loop tree and nothing between "
        "them are fusion candidates (Fusion sheet). A run is legal when no nest reads or "
        "writes, at another offset along a loop variable, data an earlier nest of the run "
        "writes or reads (flow, anti, output), no scalar carries a value from one nest to a "
        "later one, and no nest calls a procedure that is not in the sources; the rule is "
        "conservative (a read behind the write, a(i-1), would also be legal). The fused nest "
        "holds its members' work: an array several members read is read once with the union "
        "of their stencils, a value one member writes and a later one reads at the same "
        "offset costs no traffic for the read, and every written array is still stored. "
        "Fuse_<procedure>_<k> = 1 replaces the members by the fused nest in the Loops "
        "sheet's totals and every total over them, and in the totals of the ECM, ECM scaling, "
        "Costs and Alternative blocking sheets; the rows of those sheets stay those of the "
        "source.")


@dataclass
class Group:
    """A candidate run with the model's rows: its members' Loops rows and, for a legal group,
    the fused nest's row and quantities (``fused``) and its toggle."""

    candidate: Candidate
    members: list[Row]
    fused: Row | None = None
    toggle: E.Param | None = None
    # the fused nest's (shape, space, Loops row, memory, its gathers' cache models)
    nest: tuple | None = None
    work: NestWork | None = None  # the fused nest as a whole (the Aspen model)
    # other sheets' rows: view -> (the members' rows, the rows that replace them: the fused
    # nest's, and on the Alternative blocking sheet the procedure's other nests' that change)
    views: dict[str, tuple[list[Row], list[Row]]] = field(default_factory=dict)
    cache: dict[str, E.Quantity] = field(default_factory=dict)  # the group's total terms


def toggle(ctx: ModelContext, candidate: Candidate, fuse_all: bool) -> E.Param:
    """The group's 0/1 parameter (1 with ``--fuse all`` unless ``--set`` says otherwise)."""
    lines = ", ".join(map(str, candidate.lines))
    return ctx.switch(candidate.parameter,
                      f"1: fuse the loop nests of {candidate.procedure.name} at lines {lines} "
                      "into one (Fusion sheet); 0: run them one after the other",
                      fuse_all, "--fuse all")


def _on(groups: list[Group]) -> list[Group]:
    return [g for g in groups if g.fused is not None and g.toggle is not None]


def _group_quantity(group: Group, name: str, make) -> E.Quantity:
    """A per-group quantity made once (the totals of several sheets share nothing else)."""
    if name not in group.cache:
        group.cache[name] = make()
    return group.cache[name]


def change_terms(groups: list[Group], view: str, name: str, value: Callable[[Row], E.Expr],
                 unit: str, label: str | Callable[[Row], str]) -> list[E.Expr]:
    """Terms to add to a sum over the nests of ``view`` (a sheet with a row per nest:
    "loops", "costs", "ecm", ...) of ``value(row)``: per legal group, F x (``value`` of the
    fused nest's row - the sum over its members' rows).  Each is a quantity of its own, so a
    total's formula grows by one reference per group.  ``label``: the quantities' label, or
    a function of the fused nest's row giving it."""
    terms: list[E.Expr] = []
    for group in _on(groups):
        members, fused = _rows(group, view)
        if not members or not fused:
            continue

        def change(group=group, fused=fused, members=members) -> E.Quantity:
            return _q(group, f"{view}_{name}_change",
                      E.mul(group.toggle, E.add(*map(value, fused)) -
                            E.add(*map(value, members))), unit,
                      label if isinstance(label, str) else label(fused[0]))

        terms.append(E.Ref(_group_quantity(group, f"{view}:{name}", change)))
    return terms


def _rows(group: Group, view: str) -> tuple[list[Row], list[Row]]:
    """(the members' rows, the rows replacing them when fused) on a view's sheet."""
    if view == "loops":
        return group.members, [group.fused] if group.fused is not None else []
    return group.views.get(view, ([], []))


def sum_terms(key: str, groups: list[Group], view: str = "loops") -> list[E.Expr]:
    """Terms to add to a summed total of ``key`` (:func:`change_terms` of the column)."""
    on = [g for g in _on(groups) if _has(g, view, key)]
    if not on:
        return []
    unit = _rows(on[0], view)[1][0][key].unit  # type: ignore[union-attr]
    return change_terms(on, view, key, lambda row: E.Ref(row[key]),  # type: ignore[arg-type]
                        unit, lambda row: f"change of the total {row[key].label} when fused")


def _has(group: Group, view: str, key: str) -> bool:
    """Whether the group's rows in ``view`` all have the quantity ``key``."""
    members, fused = _rows(group, view)
    return bool(members) and bool(fused) and \
        all(isinstance(row.get(key), E.Quantity) for row in (*members, *fused))


def max_values(key: str, rows: list[Row], groups: list[Group], view: str = "loops"
               ) -> list[E.Expr]:
    """The values whose maximum is the total of ``key`` (a working set) on a view's sheet:
    every nest's outside the legal groups, and per group IF(F, the largest of the rows
    replacing its members, its members' largest)."""
    on = [g for g in _on(groups) if _has(g, view, key)]
    grouped = {id(m) for g in on for m in _rows(g, view)[0]}
    values: list[E.Expr] = [E.Ref(row[key]) for row in rows  # type: ignore[arg-type]
                            if id(row) not in grouped]
    for group in on:
        members, fused = _rows(group, view)

        def either(group=group, fused=fused, members=members) -> E.Quantity:
            first: E.Quantity = fused[0][key]  # type: ignore[assignment]
            return _q(group, f"{key}_either" if view == "loops" else f"{view}_{key}_either",
                      E.if_(group.toggle, E.maximum(*[r[key] for r in fused]),
                            E.maximum(*[m[key] for m in members])),
                      first.unit, f"{first.label}: the fused nest's, or its members' largest")

        name = key if view == "loops" else f"{view}:{key}"
        values.append(E.Ref(_group_quantity(group, name, either)))
    return values


def bound_terms(groups: list[Group]) -> list[E.Expr]:
    """Terms to add to the time of compute-bound nests: F x (fused - members)."""
    def bound(row: Row) -> E.Expr:
        return E.mul(row["cpu_bound"], row["time_s"])  # type: ignore[arg-type]

    def change(group: Group) -> E.Quantity:
        return _q(group, "bound_time_change", E.mul(
            group.toggle, bound(group.fused) - E.add(*map(bound, group.members))),  # type: ignore
            "s", "change of the time in compute-bound nests when fused")

    return [E.Ref(_group_quantity(g, "bound", lambda g=g: change(g))) for g in _on(groups)]


# ---------------------------------------------------------------- the Fusion sheet


COLUMNS: list[Column] = [
    _c("procedure", "Procedure", "", "Procedure holding the run of nests."),
    _c("nests", "Nests (lines)", "", "First lines of the run's loop nests, in source order."),
    _c("legal", "Legal", "", "yes: fusing the run keeps every dependence; no: see Reason."),
    _c("reason", "Reason", "", "Why the run cannot be fused: the first dependence fusion "
       "would break (array, nests, offset); its legal parts are candidates of their own."),
    _c("parameter", "Parameter", "", "The 0/1 toggle on the Parameters sheet: 1 uses the fused "
       "nest in every total."),
    _c("fuse", "Fused?", "0/1", "The toggle's value."),
    _c("gflops", "Gflop", "Gflop", "Work of the run (the same fused or not).", "Work",
       "0.000000"),
    _c("ws_plane_kb_unfused", "WS/plane", "KiB", "Largest actual working set of a member "
       "for reuse between planes.", "Working sets, separate"),
    _c("ws_pencil_kb_unfused", "WS/pencil", "KiB", "Largest actual working set of a member "
       "for reuse between pencils.", "Working sets, separate"),
    _c("ws_plane_kb_fused", "WS/plane", "KiB", "Actual working set of the fused nest for "
       "reuse between planes: the cache reuse between planes needs.", "Working sets, fused"),
    _c("ws_pencil_kb_fused", "WS/pencil", "KiB", "Actual working set of the fused nest for "
       "reuse between pencils.", "Working sets, fused"),
    _c("ws_cell_kb_fused", "WS/cell", "KiB", "Actual working set of the fused nest for "
       "reuse within pencils.", "Working sets, fused"),
    _c("traffic_gb_unfused", "Separate", "GB", "Memory traffic of the members at CacheKB "
       "(the sum of their Loops rows).", "Traffic", "0.000000"),
    _c("traffic_gb_fused", "Fused", "GB", "Memory traffic of the fused nest at CacheKB.",
       "Traffic", "0.000000"),
    _c("reuse_fused", "Fused reuse", "level", "Reuse case the fused nest takes: 1 planes, 2 "
       "pencils, 3 within pencils, 4 none.", "Traffic"),
    _c("time_s_unfused", "Separate", "s", "Time of the members (sum of their Loops rows).",
       "Time", "0.000E+00"),
    _c("time_s_fused", "Fused", "s", "Time of the fused nest.", "Time", "0.000E+00"),
    _c("saving", "Saving", "", "1 - fused / separate time: the share of the run's time "
       "fusion saves (negative: fusion costs time).", "Time", "0.0%"),
    _c("pays_from_cache_kib", "Pays from", "KiB", "Fusion moves fewer bytes than the separate "
       "nests for every CacheKB above this (0: at every size; -1: at no size beyond the "
       "largest working set)."),
]


def _q(group: Group, name: str, expr: E.Expr, unit: str, label: str) -> E.Quantity:
    ident = group.candidate.parameter or \
        f"{group.candidate.procedure.name}:{group.candidate.lines[0]}"
    return E.Quantity(("fusion", ident, name), expr, unit, label)


def _traffic_at(row: Row, capacity: E.ExprLike) -> E.Expr:
    """A nest's traffic (a Loops row's) for a cache of ``capacity`` KiB."""
    working = [row[f"ws_actual_{level}_kb"] for level in _LEVELS]
    cases = [row[f"traffic_{c}_gb"] for c in CASES[1:]]
    traffic, _ = layer_condition(working, capacity, cases)  # type: ignore[arg-type]
    return traffic


def pays_from(group: Group) -> E.Expr:
    """The cache size (KiB) above which the fused nest moves fewer bytes than its members at
    every size (0: always; -1: never beyond the largest working set)."""
    members, fused = group.members, group.fused or {}
    points = [fused[f"ws_actual_{level}_kb"] for level in _LEVELS] + \
        [m[f"ws_actual_{level}_kb"] for m in members for level in _LEVELS]
    lowers: list[E.Expr] = []  # per region: its lower end where fusion does not pay, else -1
    for n, point in enumerate([None, *points]):
        capacity: E.ExprLike = 0 if point is None else E.Ref(point) + _ABOVE
        where = "with no cache" if point is None else f"just above working set {n}"
        separate = _q(group, f"separate_{n}_gb", E.add(*[_traffic_at(m, capacity)
                                                        for m in members]),
                      "GB", f"traffic of the separate nests {where}")
        together = _q(group, f"fused_{n}_gb", _traffic_at(fused, capacity), "GB",
                      f"traffic of the fused nest {where}")
        # fewer bytes by more than rounding (equal sums may differ in a last bit)
        lowers.append(E.if_(E.compare(">=", together, E.mul(1 - 1e-12, separate)),
                            0 if point is None else point, _NEVER))
    worst = _q(group, "no_gain_from_kb", E.maximum(*lowers), "KiB",
               "largest cache size (region's lower end) at which fusion does not pay")
    above = E.minimum(*[E.if_(E.compare(">", point, worst), point, 1e300) for point in points])
    return E.if_(E.compare("<", worst, 0), 0,
                 E.if_(E.compare(">=", above, 1e300), _NEVER, above))


def _sum(group: Group, key: str, unit: str, label: str) -> E.Quantity:
    return _q(group, key, E.add(*[m[key] for m in group.members]), unit,  # type: ignore[misc]
              label)


def fusion_rows(groups: list[Group]) -> list[Row]:
    """The Fusion sheet's rows: one per candidate run."""
    rows = []
    for group in groups:
        candidate = group.candidate
        row: Row = {"procedure": candidate.procedure.name,
                    "nests": ", ".join(map(str, candidate.lines)),
                    "nest_lines": candidate.lines,  # type: ignore[dict-item]
                    "legal": "yes" if candidate.legal else "no", "reason": candidate.reason,
                    "parameter": candidate.parameter,
                    "gflops": _sum(group, "gflops", "Gflop", "Gflop of the run"),
                    "traffic_gb_unfused": _sum(group, "traffic_gb", "GB",
                                               "traffic of the separate nests"),
                    "time_s_unfused": _sum(group, "time_s", "s", "time of the separate nests")}
        for level in ("plane", "pencil"):
            row[f"ws_{level}_kb_unfused"] = _q(
                group, f"ws_{level}_kb_unfused",
                E.maximum(*[m[f"ws_actual_{level}_kb"] for m in group.members]),  # type: ignore
                "KiB", f"largest member working set per {level}")
        if group.fused is not None and group.toggle is not None:
            fused = group.fused
            row.update({
                "fuse": _q(group, "fuse", E.mul(1, group.toggle), "0/1", "the toggle"),
                **{f"ws_{level}_kb_fused": fused[f"ws_actual_{level}_kb"] for level in _LEVELS},
                "traffic_gb_fused": fused["traffic_gb"], "reuse_fused": fused["reuse"],
                "time_s_fused": fused["time_s"],
                "pays_from_cache_kib": _q(group, "pays_from_cache_kib", pays_from(group),
                                          "KiB", "cache size from which fusion pays"),
            })
            # equal times (to rounding) save nothing: LibreOffice rounds such a difference
            # to 0 where Python keeps a last bit
            separate, together = row["time_s_unfused"], fused["time_s"]
            same = E.compare("<=", E.func("ABS", E.Ref(separate) - E.Ref(together)),
                             E.mul(1e-12, separate))
            row["saving"] = _q(group, "saving", E.if_(same, 0, 1 - E.div(together, separate)),
                               "", "share of the time fusion saves")
        rows.append(row)
    return rows


def fusion_table(groups: list[Group]) -> Table:
    """Sheet "Fusion"."""
    return Table("Fusion", "Loop fusion: candidate runs of nests, legal or why not, priced",
                 COLUMNS, fusion_rows(groups), None,
                 "One row per run of consecutive nests with the same loop tree. Set a legal "
                 "group's Fuse_ parameter to 1 (Parameters sheet) and every total uses the "
                 "fused nest instead of its members.")
