"""The HTML summary (``--html``): one self-contained page rendered from ``templates/``.

Everything the page shows is a model quantity evaluated in Python (the same numbers as the
JSON) or a plain value from the code description; the page only formats, orders and groups
them.  The few aggregates the model has no quantity for (time per procedure, the spilled
share of accesses per pool) are sums of evaluated values, never a re-derivation of a model
formula.  Charts are inline SVG; the only script is a short inline
table sorter; a Content-Security-Policy forbids fetching anything, so the page opens from an
e-mail attachment with no network.
"""

from __future__ import annotations

import datetime
import functools
import math
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import jinja2
from markupsafe import Markup

from sat import __version__, collector
from sat.ir import Program
from sat.model.expr import Env, Known, Quantity, readers, sweep
from sat.model.tables import CellValue, ModelResult, Table
from sat.outputs import atomic_write_text
from sat.report.callgraph import FOLLOWED, MEANING, CallGraph
from sat.report.drawings import Drawings
from sat.report.svg import (
    BarRow,
    LineChart,
    Marker,
    Series,
    heat_map,
    number,
    paired_bars,
    si,
    stacked_bars,
)
from sat.report.template_cache import cached_environment
from sat.resources import templates_dir

REUSE_NAMES = {1: "planes", 2: "pencils", 3: "within pencils", 4: "none"}
CPU_COLOUR, DRAM_COLOUR = "#4c78a8", "#f58518"
TOP_NESTS_CHARTED = 40  # the time chart shows the longest nests; the tables list them all
MAX_OPEN_PROCEDURES = 8  # with more procedures, only the costliest sections start open
IDIOM_ROWS_SHOWN = 500  # a longer idiom table starts folded
CACHE_POINTS_PER_OCTAVE = 2
MAX_CACHE_THRESHOLDS = 40  # distinct working sets sampled exactly in the B:F/cache chart
_WS_KEYS = ("ws_actual_plane_kb", "ws_actual_pencil_kb", "ws_actual_cell_kb")


def _finite(value: float) -> bool:
    return isinstance(value, int | float) and math.isfinite(value)


def _plain(value: float) -> str:
    """A value for a ``data-v`` attribute: exact (round-trips to the same float)."""
    if not _finite(value):
        return ""
    return repr(int(value)) if float(value).is_integer() and abs(value) < 2**53 \
        else repr(float(value))


@dataclass
class Cell:
    """One table cell: display text, sort/test value, CSS class, tooltip."""

    text: str
    value: str
    cls: str = "num"
    title: str = ""
    key: str = ""


@dataclass
class LoopColumn:
    key: str
    header: str
    unit: str
    fmt: Callable[[float], str]
    comment: str = ""


def _seconds(v: float) -> str:
    return si(v, "s")


def _fixed3(v: float) -> str:
    return f"{v:.3g}" if _finite(v) else "n/a"


LOOP_COLUMNS = [
    LoopColumn("line", "Line", "", lambda v: str(int(v)), "Line of the nest's outermost loop"),
    LoopColumn("adds", "Add", "/it", number, "Additions and subtractions per iteration"),
    LoopColumn("multiplies", "Mul", "/it", number, "Multiplications per iteration"),
    LoopColumn("divides", "Div", "/it", number, "Divisions per iteration"),
    LoopColumn("specials", "Special", "/it", number, "exp, log, sqrt... per iteration"),
    LoopColumn("gflops", "Gflop", "", number, "Floating-point operations, 10^9"),
    LoopColumn("traffic_gb", "Traffic", "GB", number, "Memory traffic for the actual reuse"),
    LoopColumn("time_cpu_s", "CPU", "s", _seconds, "Weighted Gflop / (GflopsPerCore x Cores)"),
    LoopColumn("time_dram_s", "DRAM", "s", _seconds, "Traffic / (GBsPerCore x Cores)"),
    LoopColumn("time_s", "Time", "s", _seconds, "MAX(CPU, DRAM), or their sum with no overlap"),
    LoopColumn("bottleneck", "Bound by", "", str, "The larger of CPU and DRAM time"),
    LoopColumn("reuse", "Reuse", "", str, "Best reuse whose working set fits in CacheKB"),
    LoopColumn("bytes_per_flop", "B:F", "B/flop", _fixed3, "Bytes of traffic per weighted flop"),
]


@dataclass
class ProcedureSection:
    name: str
    anchor: str
    file: str
    rows: list[list[Cell]] = field(default_factory=list)
    time_s: float = 0.0
    share_pct: float = 0.0
    graph_svg: Markup | None = None
    dependences: int = 0
    occupancy: dict[str, Any] | None = None
    open: bool = True


def _value(value: CellValue, env: Env) -> Any:
    return value.value(env) if isinstance(value, Quantity) else value


def _bottleneck(cpu: float, dram: float) -> str:
    if not (_finite(cpu) and _finite(dram)):
        return "n/a"
    return "CPU" if cpu >= dram else "DRAM"


def _loop_cells(row: dict[str, CellValue], env: Env) -> tuple[list[Cell], dict[str, Any]]:
    values = {c.key: _value(row.get(c.key), env) for c in LOOP_COLUMNS}
    values["bottleneck"] = _bottleneck(values["time_cpu_s"], values["time_dram_s"])
    cells = []
    for column in LOOP_COLUMNS:
        value = values[column.key]
        if column.key == "bottleneck":
            cells.append(Cell(value, value, f"text bound-{value.lower().replace('/', '')}",
                              key=column.key))
        elif column.key == "reuse":
            level = int(value) if _finite(value) else 0
            cells.append(Cell(REUSE_NAMES.get(level, "n/a"), _plain(value), "text",
                              f"reuse level {level}", column.key))
        elif _finite(value):
            cells.append(Cell(column.fmt(value), _plain(value), key=column.key))
        else:
            cells.append(Cell("n/a", "", key=column.key))
    return cells, values


def _slug(text: str, used: set[str]) -> str:
    base = "proc-" + (re.sub(r"[^A-Za-z0-9_-]+", "-", text).strip("-").lower() or "x")
    slug, n = base, 1
    while slug in used:
        n += 1
        slug = f"{base}-{n}"
    used.add(slug)
    return slug


def _percent(share: float) -> str:
    return f"{100 * share:.1f} %" if _finite(share) else "n/a"


def _headline(result: ModelResult, env: Env) -> list[dict[str, Any]]:
    totals = {name: q.value(env) for name, q in result.totals.items()}
    total_time = totals.get("Total_Time_s", float("nan"))
    share = totals.get("Compute_Bound_Share", float("nan"))
    bf_value = totals.get("Total_Bytes_Per_Flop", float("nan"))
    items = [
        ("time_s", "Total time", _seconds(total_time), total_time,
         "ExaSAT bound: the sum over the loop nests of the larger of CPU and memory time, their "
         "sum with Overlap = 0 (Total_Time_s)"),
        ("compute_bound_pct", "Compute-bound", _percent(share), 100 * share,
         "Share of the total time spent in nests whose CPU time is at least their DRAM time "
         "(Compute_Bound_Share)"),
        ("memory_bound_pct", "Memory-bound", _percent(1 - share), 100 * (1 - share),
         "Share of the total time spent in nests whose DRAM time is the larger"),
        ("traffic_gb", "Traffic", f"{number(totals.get('Total_Traffic_GB', math.nan))} GB",
         totals.get("Total_Traffic_GB", math.nan), "Memory traffic (Total_Traffic_GB)"),
        ("gflops", "Work", f"{number(totals.get('Total_GFlops', math.nan))} Gflop",
         totals.get("Total_GFlops", math.nan), "Floating-point operations (Total_GFlops)"),
        ("weighted_gflops", "Weighted work",
         f"{number(totals.get('Total_Weighted_GFlops', math.nan))} Gflop",
         totals.get("Total_Weighted_GFlops", math.nan),
         "Divisions and specials weighted by DivCost and SpecialCost"),
        ("bytes_per_flop", "B:F", f"{_fixed3(bf_value)} B/flop", bf_value,
         "Bytes of memory traffic per weighted flop, whole program"),
        ("footprint_gib", "Footprint", f"{number(totals.get('Footprint_GiB', math.nan))} GiB",
         totals.get("Footprint_GiB", math.nan), "Memory footprint of all arrays (GiB = 2^30 B)"),
    ]
    if "Energy_J" in totals:
        energy, power = totals["Energy_J"], totals.get("Power_W", math.nan)
        price = totals.get("Price_USD", math.nan)
        items += [
            ("energy_j", "Energy", si(energy, "J"), energy,
             "Energy of the run on one node: static power x time + energy per weighted flop "
             "+ energy per byte over each link (Energy_J; an approximation)"),
            ("power_w", "Average power", si(power, "W"), power,
             "Energy / total time (Power_W)"),
            ("price_usd", "Price", f"{number(price)} USD", price,
             "Nodes x (ProcessorPriceUSD + MemoryGiB x MemoryPriceUSDPerGiB) (Price_USD)"),
        ]
    return [{"key": k, "label": label, "text": text, "value": _plain(v), "title": title}
            for k, label, text, v, title in items]


def _time_chart(loop_values: list[dict[str, Any]]) -> tuple[Markup | None, int]:
    ranked = sorted((v for v in loop_values if _finite(v["time_s"])),
                    key=lambda v: -v["time_s"])
    if not ranked:
        return None, 0
    shown = ranked[:TOP_NESTS_CHARTED]
    rows = [BarRow(f"{v['procedure']}:{v['line']}", [v["time_cpu_s"], v["time_dram_s"]],
                   f"{v['procedure']}:{v['line']}  CPU {_seconds(v['time_cpu_s'])}, DRAM "
                   f"{_seconds(v['time_dram_s'])}, time {_seconds(v['time_s'])} "
                   f"({v['bottleneck']}-bound)") for v in shown]
    svg = paired_bars(rows, [("CPU time", CPU_COLOUR), ("DRAM time", DRAM_COLOUR)], _seconds,
                      axis_label="time per nest (s)")
    return Markup(svg), len(ranked)


def _cache_chart(result: ModelResult, loops: Table | None, env: Env) -> Markup | None:
    """Program B:F evaluated over a range of CacheKB, with each nest's working sets as ticks."""
    if not loops or not loops.rows or not loops.totals:
        return None
    bf = loops.totals.get("bytes_per_flop")
    if not isinstance(bf, Quantity):
        return None
    current = env.param("CacheKB")
    markers: list[Marker] = []
    for row in loops.rows:
        where = f"{row.get('procedure')}:{row.get('line')}"
        for rug, (key, what, colour) in enumerate(
                (("ws_actual_plane_kb", "planes", "#2ca02c"),
                 ("ws_actual_pencil_kb", "pencils", "#9467bd"))):
            q = row.get(key)
            if isinstance(q, Quantity):
                kb = q.value(env)
                if _finite(kb) and kb > 0:
                    markers.append(Marker(kb, colour, f"{where}: working set for reuse "
                                          f"between {what} {number(kb)} KiB: it fits when "
                                          "CacheKB is larger", rug))
    sizes = [m.x for m in markers] + [current]
    low = 2.0 ** math.floor(math.log2(max(min(sizes), 1 / 64)))
    high = 2.0 ** math.ceil(math.log2(max(sizes) * 2))
    steps = int(round(math.log2(high / low) * CACHE_POINTS_PER_OCTAVE))
    grid = {low * 2 ** (i / CACHE_POINTS_PER_OCTAVE) for i in range(steps + 1)} | {current}
    # The reuse level of a nest changes only where CacheKB crosses one of its working sets, so
    # sampling at each working set and just above it draws the exact step function.
    thresholds = {kb for row in loops.rows for key in _WS_KEYS
                  if isinstance(q := row.get(key), Quantity)
                  and _finite(kb := q.value(env)) and low <= kb <= high}
    exact = len(thresholds) <= MAX_CACHE_THRESHOLDS
    if exact:
        grid |= thresholds | {kb * (1 + 1e-9) for kb in thresholds}
    sizes = sorted(grid)
    series = [Series(label, colour, points, step=exact)
              for label, colour, points in _optimised_bf(result, bf, env, sizes)]
    chart = LineChart(series,
                      "CacheKB (KiB, log scale)", "B:F (bytes per weighted flop)",
                      x_log2=True, x_fmt=_kib, y_fmt=_fixed3, markers=markers,
                      marker_rows=["planes WS", "pencils WS"], current_x=current,
                      current_label=f"this machine: {_kib(current)}")
    return Markup(chart.svg())


# Cache blocks tried for the "cache blocking" curves of the B:F/cache chart: square blocks in
# Y and Z (X unblocked, it is the unit-stride axis), the best of them at each cache size.
_CHART_BLOCKS = (4, 8, 16, 32, 64, 128)


def _optimised_bf(result: ModelResult, bf: Quantity, env: Env, sizes: list[float]
                  ) -> list[tuple[str, str, list[tuple[float, float]]]]:
    """ExaSAT's Fig. 17: the program's B:F against CacheKB as it is (every fusion toggle as
    set), with the best of a few cache blocks, with every legal fusion group fused, fused and
    blocked, and with the alternative block execution (all nests per block, the blocks as
    set). Each curve is the model evaluated at those parameters."""
    values = result.inputs()
    toggles = [p.name for p in result.parameters if p.name.startswith("Fuse_")]
    alternative = result.tables.get("Alternative blocking")
    alt_bf = (alternative.totals or {}).get("bytes_per_flop") if alternative else None
    # What no curve's parameter moves comes from one evaluation (the page's, of these inputs).
    plain = env if env.params == values else result.env()
    reads = readers([q for q in (bf, alt_bf) if isinstance(q, Quantity)],
                    {"CacheKB", "BlockX", "BlockY", "BlockZ", *toggles}, plain)
    swept = {ident for ident, read in reads.items() if "CacheKB" in read}
    # parameters set off the inputs' values -> (ids of what reads one, the others' values)
    moving: dict[frozenset[str], tuple[set[int], dict[int, float]]] = {}

    def curve(overrides: dict[str, float], quantity: Quantity = bf) -> list[float]:
        moved = frozenset(k for k, v in overrides.items() if k not in values or values[k] != v)
        if moved not in moving:
            moving[moved] = ({ident for ident, read in reads.items() if read & moved},
                             {ident: plain.memo[ident] for ident, read in reads.items()
                              if ident in plain.memo and not read & moved})
        base = result.env(overrides)
        base.memo.update(moving[moved][1])  # evaluated once: not walked again under each block
        return [v[0] for v in sweep([quantity], base, "CacheKB", sizes,
                                    Known(plain, moving[moved][0], swept))]

    def best_block(overrides: dict[str, float]) -> list[float]:
        tried = [curve({**overrides, "BlockX": 0, "BlockY": b, "BlockZ": b}) for b in _CHART_BLOCKS]
        return [min(column) for column in zip(*tried, strict=True)]

    curves = [("B:F, whole program", "#1f77b4", curve({}))]
    if "BlockY" in values:
        curves.append(("cache blocking (best Y×Z block)", "#ff7f0e", best_block({})))
    if toggles:
        fused = dict.fromkeys(toggles, 1.0)
        curves.append(("fusion (every legal group)", "#2ca02c", curve(fused)))
        curves.append(("fusion + blocking", "#d62728", best_block(fused)))
    if isinstance(alt_bf, Quantity):
        curves.append(("alternative block execution", "#9467bd", curve({}, alt_bf)))
    return [(label, colour, list(zip(sizes, ys, strict=True))) for label, colour, ys in curves]


# ECM contributions: the first bar is the arithmetic (T_OL), the second the data transfers,
# stacked as the machines' usual overlap hypothesis adds them.
_ECM_COLOURS = ("#4c78a8", "#72b7b2", "#f58518", "#e45756", "#b279a2", "#9d755d", "#bab0ac")


def _aspen(result: ModelResult, env: Env) -> dict[str, Any] | None:
    """An Aspen model's kernel tree: main and the kernels it calls, each with its flops,
    bytes and time for one execution (the values of the Aspen kernels sheet)."""
    if result.aspen is None:
        return None
    rows = {row["kernel"]: row for row in result.tables["Aspen kernels"].rows}
    tree = result.aspen["tree"]

    def node(name: str, path: tuple[str, ...]) -> dict[str, Any]:
        row = rows.get(name, {})
        values = {key: _value(row.get(key), env) for key in
                  ("flops", "loads", "stores", "messages", "time_s")}
        shown = {"flops": si(values["flops"], "flop") if _finite(values["flops"]) else "—",
                 "bytes": si(values["loads"] + values["stores"], "B")
                 if _finite(values["loads"]) and _finite(values["stores"]) else "—",
                 "time": _seconds(values["time_s"]) if _finite(values["time_s"]) else "—"}
        children = [node(child, (*path, name)) for child in tree.get(name, [])
                    if child not in path and child != name]  # no recursion in the page
        return {"name": name, "line": row.get("line"), **shown, "children": children}

    # without main, every kernel is a program of its own (Aspen times each on its own)
    roots = ["main"] if "main" in tree else list(tree)
    reached = set()

    def collect(item: dict[str, Any]) -> None:
        reached.add(item["name"])
        for child in item["children"]:
            collect(child)

    trees = [node(root, ()) for root in roots]
    for item in trees:
        collect(item)
    trees += [node(name, ()) for name in tree if name not in reached]  # never called
    return {**result.aspen, "trees": trees}


def _ecm(result: ModelResult, env: Env) -> dict[str, Any] | None:
    """The ECM section: a stacked bar of contributions per nest and the scaling curve."""
    table, scaling = result.tables.get("ECM"), result.tables.get("ECM scaling")
    if table is None or not table.rows:
        return None
    keys = [c.key for c in table.columns if c.key.startswith("t_") and c.key != "t_ecm"]
    names = [table.column(k).header for k in keys]
    series = [(name, _ECM_COLOURS[i % len(_ECM_COLOURS)], 0 if i == 0 else 1)
              for i, name in enumerate(names)]
    values = [(row, [_value(row[k], env) for k in keys], _value(row["t_ecm"], env))
              for row in table.rows]
    values.sort(key=lambda item: -(item[2] if _finite(item[2]) else 0.0))
    shown = values[:TOP_NESTS_CHARTED]
    rows = [BarRow(f"{row['procedure']}:{row['line']}", contributions,
                   f"{row['procedure']}:{row['line']}  T_ECM {number(t_ecm)} cycles: "
                   + ", ".join(f"{n} {number(v)}" for n, v in zip(names, contributions,
                                                                  strict=True)))
            for row, contributions, t_ecm in shown]
    bars = Markup(stacked_bars(rows, series, number,
                               axis_label="cycles per unit of work (one cache line of "
                                          "iterations)"))
    curve = None
    if scaling is not None and scaling.rows:
        points = [(float(row["cores"]), _value(row["gflop_per_s"], env))  # type: ignore[arg-type]
                  for row in scaling.rows]
        curve = Markup(LineChart([Series("ECM prediction", CPU_COLOUR, points)], "cores",
                                 "Gflop/s, whole program", x_fmt=lambda v: f"{v:g}",
                                 y_min=0, height=260).svg())
    return {"bars": bars, "shown": len(shown), "of": len(values), "scaling": curve}


def _sweep(result: ModelResult) -> dict[str, Any] | None:
    """The sweep's chart: each total against one swept parameter, or a heat map of the time
    over two (the rows are values satreport computed, from the model's Sweep table)."""
    table = result.tables.get("Sweep")
    if table is None or not table.rows:
        return None
    results = [c.key for c in table.columns if c.key.startswith("Total_") or c.key == "Energy_J"]
    swept = [c.key for c in table.columns if c.key not in results and
             c.key not in ("valid", "reason")]
    invalid = sum(1 for row in table.rows if not row["valid"])
    if len(swept) == 1:
        name = swept[0]
        log = all(float(row[name]) > 0 for row in table.rows) and len(table.rows) > 2 and \
            max(float(r[name]) for r in table.rows) / min(float(r[name]) for r in table.rows) > 16
        charts = []
        for key, colour in zip(results, (CPU_COLOUR, DRAM_COLOUR, "#54a24b", "#b279a2"),
                               strict=False):
            points = [(float(row[name]), float(row[key])) for row in table.rows  # type: ignore
                      if row["valid"] and row[key] is not None]
            if points:
                unit = table.column(key).unit
                charts.append(Markup(LineChart(
                    [Series(key, colour, points)], name + (" (log scale)" if log else ""),
                    f"{key} ({unit})", x_log2=log, y_fmt=lambda v, u=unit: si(v, u),
                    y_min=0, height=240).svg()))
        return {"swept": swept, "points": len(table.rows), "invalid": invalid,
                "charts": charts}
    x_name, y_name = swept[0], swept[1]
    key = results[0]
    xs = sorted({float(row[x_name]) for row in table.rows})  # type: ignore[arg-type]
    ys = sorted({float(row[y_name]) for row in table.rows})  # type: ignore[arg-type]
    values = {}
    for row in table.rows:
        if len(swept) == 2 or all(row[n] == table.rows[0][n] for n in swept[2:]):
            values[(float(row[x_name]), float(row[y_name]))] = \
                row[key] if row["valid"] else None  # type: ignore[assignment]
    unit = table.column(key).unit
    chart = Markup(heat_map(xs, ys, values, lambda v: si(v, unit), x_label=x_name,
                            y_label=y_name, value_label=key))
    return {"swept": swept, "points": len(table.rows), "invalid": invalid, "charts": [chart]}


def _scenario(result: ModelResult) -> dict[str, Any] | None:
    """The scenario's answer and, for two or more variables, the feasible region: the
    objective over the first two (the others at the optimum), grey where a constraint fails."""
    answer = result.scenario
    if answer is None:
        return None
    chart = None
    area = answer.get("region")
    if area is not None:
        values = {(float(x), float(y)): area["objective"][i][j]
                  for i, x in enumerate(area["xs"]) for j, y in enumerate(area["ys"])}
        name = answer["objective"].split(None, 1)[1]
        chart = Markup(heat_map([float(x) for x in area["xs"]], [float(y) for y in area["ys"]],
                                values, lambda v: si(v, ""), x_label=area["x"],
                                y_label=area["y"], value_label=name))
    return {**answer, "chart": chart,
            "others": [v["name"] for v in answer["variables"][2:]]}


def _kib(kb: float) -> str:
    if kb < 1:
        return f"{kb * 1024:g} B"
    if kb >= 1024 * 1024:
        return f"{kb / 1024 / 1024:g} GiB"
    if kb >= 1024:
        return f"{kb / 1024:g} MiB"
    return f"{kb:g} KiB"


def _register_chart(result: ModelResult, env: Env) -> Markup | None:
    """Share of state-variable accesses spilled, evaluated for 0..N registers per pool."""
    table = result.tables.get("Registers")
    if not table:
        return None
    nests = [r for r in table.rows if r.get("row") == "nest"]
    pools = {"FP": "FPRegs", "Int": "IntRegs"}
    accesses = {pool: sum(r.get("accesses") or 0 for r in nests if r.get("pool") == pool)
                for pool in pools}
    most = max((r.get("variables") or 0 for r in nests), default=0)
    if not most or not any(accesses.values()):
        return None
    top = int(min(max(most + 2, env.param("FPRegs") + 2, env.param("IntRegs") + 2), 256))
    series = []
    for pool, colour in (("FP", "#1f77b4"), ("Int", "#e6730b")):
        if not accesses[pool]:
            continue
        spills = [r["spilled_accesses"] for r in nests
                  if r.get("pool") == pool and isinstance(r.get("spilled_accesses"), Quantity)]
        counts = range(0, top + 1)
        points = [(float(regs), 100.0 * sum(spilled) / accesses[pool]) for regs, spilled in
                  zip(counts, sweep(spills, env, pools[pool], counts), strict=True)]
        series.append(Series(f"{pool} ({pools[pool]})", colour, points, step=True))
    current = env.param("FPRegs")
    label = f"FPRegs {current:g}, IntRegs {env.param('IntRegs'):g}"
    chart = LineChart(series, "registers per pool", "accesses spilled (%)",
                      x_fmt=lambda v: f"{v:g}", y_fmt=lambda v: f"{v:g}", current_x=current,
                      current_label=label, y_min=0, y_max=100, height=260)
    return Markup(chart.svg())


_OCC_CLASSES = {"R": "occ-r", "W": "occ-w", "RW": "occ-rw", "WR": "occ-wr", "L": "occ-l"}
_OCC_TAIL = (("nests_read", "Nests R"), ("nests_written", "Nests W"),
             ("read_write_ratio", "R/W ratio"), ("write_access_rate_pct", "Write rate %"),
             ("size_gib", "Size GiB"))


def _occupancy(table: Table | None, env: Env) -> dict[str, dict[str, Any]]:
    """Per procedure: loop-nest columns and rows of the occupancy heat map."""
    if not table:
        return {}
    loop_columns = [c for c in table.columns if c.band == "Loop nests"]
    out: dict[str, dict[str, Any]] = {}
    for row in table.rows:
        name = str(row.get("procedure"))
        section = out.setdefault(name, {"columns": None, "rows": []})
        if section["columns"] is None:
            section["columns"] = [{"key": c.key, "header": c.header.rsplit(" ", 1)[-1],
                                   "title": c.header} for c in loop_columns if c.key in row]
        cells = []
        for column in section["columns"]:
            value = _value(row.get(column["key"]), env)
            if isinstance(value, str):
                cells.append(Cell(value, value, "occ " + _OCC_CLASSES.get(value, "occ-none")))
            elif _finite(value):
                cells.append(Cell(number(value), _plain(value)))
            else:
                cells.append(Cell("", ""))
        tail = []
        for key, _header in _OCC_TAIL:
            value = _value(row.get(key), env)
            if isinstance(value, str):
                tail.append(Cell(value, value, "text"))
            elif _finite(value):
                tail.append(Cell(number(value), _plain(value)))
            else:
                tail.append(Cell("", ""))
        # Summary rows (arrays read / written / live, footprints) carry no per-array counts.
        section["rows"].append({"array": str(row.get("array", "")), "cells": cells,
                                "tail": tail, "summary": "nests_read" not in row})
    for section in out.values():
        section["tail_headers"] = [h for _k, h in _OCC_TAIL]
    return out


def _parameters(result: ModelResult, env: Env) -> tuple[list[dict], list[dict]]:
    """(parameters that differ from their defaults, every parameter)."""
    rows = []
    for p in result.parameters:
        value = bool(p.value) if p.kind == "boolean" else env.param(p.name)
        text = ("TRUE" if value else "FALSE") if p.kind == "boolean" else number(value)
        # what the machine file says, or assumes where it says nothing
        machine_default = p.group == "machine" and p.source.startswith(
            ("machine", "assumed", "not published"))
        rows.append({"name": p.name, "label": p.label or p.symbol, "unit": p.unit,
                     "group": p.group, "text": text, "value": _plain(float(value)),
                     "source": p.source + (" (assumed)" if p.defaulted else ""),
                     "changed": not (p.source == "default" or p.defaulted or machine_default
                                     or p.derived)})
    return [r for r in rows if r["changed"]], rows


def _calls(result: ModelResult, graph: CallGraph | None, env: Env,
           loops: Table | None) -> dict[str, Any] | None:
    """The Calls section: one row per caller, callee and nest, with the callee's Gflop and
    share of the nest from the model's Calls table (the drawing is added by the caller)."""
    if graph is None:
        return None
    table = result.tables.get("Calls")
    work = {(r.get("procedure"), r.get("line"), r.get("callee")): r
            for r in (table.rows if table else [])}
    modelled = {(r.get("procedure"), r.get("line")) for r in (loops.rows if loops else [])}
    rows = []
    for sites in graph.sites:
        nest = f"{sites.procedure}:{sites.line}" if sites.in_nest else \
            f"line {sites.line}, outside loop nests"
        row = work.get((sites.procedure, sites.line, sites.callee))
        if sites.status == FOLLOWED and sites.direct and row is not None:
            gflops, share = _value(row.get("gflops"), env), _value(row.get("share"), env)
            work_cells = [Cell(number(gflops), _plain(gflops), key="gflops"),
                          Cell(_percent(share), _plain(share), key="share")]
        else:
            if sites.status != FOLLOWED:
                why = "not counted"
            elif (sites.procedure, sites.line) not in modelled:
                why = "nest not modelled"
            elif not sites.direct:
                why = f"in {sites.counted_in}"
            else:
                why = "no flops"
            work_cells = [Cell(why, "", "text muted", key="gflops"),
                          Cell("", "", key="share")]
        rows.append({"cells": [Cell(sites.caller, sites.caller, "text name", key="caller"),
                               Cell(sites.callee, sites.callee, "text name", key="callee"),
                               Cell(nest, nest, "text", key="nest"),
                               Cell(str(sites.calls), str(sites.calls), key="calls"),
                               *work_cells,
                               Cell(sites.status, sites.status, "text",
                                    MEANING[sites.status], "status")]})
    return {"rows": rows, "svg": None}


def _idioms(result: ModelResult) -> dict[str, Any] | None:
    """The Idioms section: the counts per idiom (those found), then one row per loop, idiom
    and array, as on the Idioms sheet (None for a model without code: an Aspen model)."""
    table, counts = result.tables.get("Idioms"), result.tables.get("Idiom counts")
    if table is None:
        return None
    rows = []
    for row in table.rows:
        where = _where(str(row.get("file", "")), int(row.get("line") or 0))
        cells = [Cell(str(row["idiom"]), str(row["idiom"]), "text name", key="idiom"),
                 Cell(str(row["array"]), str(row["array"]), "text name", key="array"),
                 Cell(str(row["function"]), str(row["function"]), "text", key="function"),
                 Cell(where, where, "text", key="where"),
                 Cell(str(row["loop_line"]), str(row["loop_line"]), key="loop_line"),
                 Cell(str(row["depth"]), str(row["depth"]), key="depth"),
                 Cell(str(row["detail"]), str(row["detail"]), "text", key="detail"),
                 Cell(str(row["code"]), str(row["code"]), "text code", key="code")]
        rows.append({"idiom": row["idiom"], "cells": cells})
    found = [{"idiom": r["idiom"], "count": r["count"], "loops": r["loops"],
              "description": r["description"], "source": r["source"]}
             for r in (counts.rows if counts is not None else []) if r["count"]]
    return {"rows": rows, "counts": found}


def _offload_cell(key: str, value: CellValue, env: Env) -> Cell:
    """One cell of the Offload section's tables."""
    if key in ("procedure", "idiom", "array", "index"):
        return Cell(str(value), str(value), "text name", key=key)
    if key in ("line", "loop_line"):
        return Cell(str(value), str(value), key=key)
    number_value = _value(value, env)
    if key == "offload":
        text = "yes" if number_value else "no"
        return Cell(text, _plain(number_value), f"text offload-{text}", key=key)
    if not _finite(number_value):
        return Cell("n/a", "", key=key)
    text = f"{number_value:.3g}×" if key == "speedup" else \
        _seconds(number_value) if key.endswith("_s") else number(number_value)
    return Cell(text, _plain(number_value), key=key)


def _offload(result: ModelResult, env: Env) -> dict[str, Any] | None:
    """The Offload section (``--accelerator``): per nest and per gather or scatter, the host
    and device times and the decision, and the program's speedups, from the Offload and
    Offload idioms tables (None without an accelerator)."""
    nests = result.tables.get("Offload")
    if nests is None:
        return None
    idioms = result.tables.get("Offload idioms")

    def rows(table: Table | None, keys: tuple[str, ...]) -> list[list[Cell]]:
        return [[_offload_cell(key, row[key], env) for key in keys]
                for row in (table.rows if table is not None else [])]

    def speedup(table: Table) -> dict[str, float]:
        totals = table.totals or {}
        return {"value": _value(totals["speedup"], env),
                "offloaded": int(_value(totals["offloaded"], env))}

    return {"device": nests.title.split(": ", 1)[-1],
            "nests": rows(nests, ("procedure", "line", "host_s", "compute_s", "memory_s",
                                  "link_s", "device_s", "offload", "speedup")),
            "idioms": rows(idioms, ("procedure", "loop_line", "idiom", "array", "index",
                                    "bw_gs_gbs", "host_s", "memory_s", "link_s", "device_s",
                                    "offload", "speedup")),
            "nest_speedup": speedup(nests),
            "idiom_speedup": speedup(idioms) if idioms is not None else None}


def _notes(result: ModelResult) -> list[dict[str, Any]]:
    groups = {"error": [], "warning": [], "default": [], "assumption": []}
    for n in result.notes:
        groups.setdefault(n.kind, []).append({"where": _where(n.file, n.line),
                                              "message": n.message})
    titles = {"error": "Errors of satreport (numbers outside their physical bounds)",
              "warning": "Warnings", "default": "Defaults used", "assumption": "Assumptions",
              "parser": "Parsers"}
    return [{"kind": k, "title": titles.get(k, k.title()), "entries": items}
            for k, items in groups.items() if items]


def _where(file: str, line: int) -> str:
    return f"{file}:{line}" if file and line else file


def html_context(program: Program, result: ModelResult, env: Env,
                 meta: dict[str, Any], use_dot: bool | None = None,
                 drawings: Drawings | None = None) -> dict[str, Any]:
    """Everything the template shows, evaluated and formatted.

    ``drawings``: the graphs, laid out since the model was built (started here otherwise).
    """
    own = drawings is None
    if drawings is None:
        drawings = Drawings(program, result, use_dot)
    try:
        with collector.frozen():
            return _page(program, result, env, meta, drawings)
    finally:
        if own:
            drawings.close()


def _page(program: Program, result: ModelResult, env: Env, meta: dict[str, Any],
          drawings: Drawings) -> dict[str, Any]:
    loops = result.tables.get("Loops")
    sections: dict[str, ProcedureSection] = {}
    used: set[str] = set()
    for procedure in program.procedures:
        sections.setdefault(procedure.name, ProcedureSection(
            procedure.name, _slug(procedure.name, used), procedure.file))
    loop_values: list[dict[str, Any]] = []
    for row in loops.rows if loops else []:
        name = str(row.get("procedure"))
        section = sections.setdefault(name, ProcedureSection(name, _slug(name, used),
                                                             str(row.get("file", ""))))
        cells, values = _loop_cells(row, env)
        values["procedure"] = name
        section.rows.append(cells)
        loop_values.append(values)
        if _finite(values["time_s"]):
            section.time_s += values["time_s"]
    edges = drawings.dependences
    occupancy = _occupancy(result.tables.get("Occupancy"), env)
    total_time = result.totals["Total_Time_s"].value(env) if "Total_Time_s" in result.totals \
        else 0.0
    for section in sections.values():
        section.share_pct = 100 * section.time_s / total_time if total_time else 0.0
        section.dependences = sum(1 for d in edges if d.procedure == section.name)
        section.occupancy = occupancy.get(section.name)
    shown = [s for s in sections.values() if s.rows or s.dependences or s.occupancy]
    by_time = sorted(shown, key=lambda s: -s.time_s)
    if len(shown) > MAX_OPEN_PROCEDURES:
        costly = {s.name for s in sorted(shown, key=lambda s: -s.time_s)[:3]}
        for s in shown:
            s.open = s.name in costly
    time_chart, charted_of = _time_chart(loop_values)
    changed, parameters = _parameters(result, env)
    machine = {"name": "", "source": "", **(meta.get("machine") or {})}
    context = {
        "title": "satreport: " + ", ".join(Path(s).name for s in meta.get("sources")
                                             or program.sources or ["program"]),
        "version": meta.get("version", __version__),
        "created": meta.get("created", datetime.date.today().isoformat()),
        "sources": list(meta.get("sources") or program.sources),
        "machine": machine,
        "machine_parameters": [p for p in parameters if p["group"] == "machine"],
        "changed_parameters": changed,
        "parameters": parameters,
        "headline": _headline(result, env),
        "nest_count": len(loop_values),
        "procedures": shown,
        "procedures_by_time": by_time,
        "max_share_pct": max((s.share_pct for s in shown), default=0.0) or 1.0,
        "several_files": len({s.file for s in shown}) > 1,
        "columns": LOOP_COLUMNS,
        "time_chart": time_chart,
        "time_chart_shown": min(charted_of, TOP_NESTS_CHARTED),
        "time_chart_of": charted_of,
        "cache_chart": _cache_chart(result, loops, env),
        "register_chart": _register_chart(result, env),
        "calls": _calls(result, drawings.calls, env, loops),
        "ecm": _ecm(result, env),
        "aspen": _aspen(result, env),
        "sweep": _sweep(result),
        "scenario": _scenario(result),
        "idioms": _idioms(result),
        "idioms_shown": IDIOM_ROWS_SHOWN,
        "offload": _offload(result, env),
        "notes": _notes(result),
    }
    # Last, so that graphviz had all the rest of the page's time to lay them out.
    for section in shown:
        svg = drawings.procedure_svg(section.name, section.anchor + "-graph")
        section.graph_svg = Markup(svg) if svg is not None else None
    if context["calls"] is not None:
        context["calls"]["svg"] = Markup(drawings.calls_svg("calls-graph"))
    return context


@functools.cache  # one per process; the compiled templates are kept on disk between runs
def _environment() -> jinja2.Environment:
    environment = cached_environment(templates_dir(), autoescape=True, trim_blocks=True,
                                     lstrip_blocks=True, undefined=jinja2.StrictUndefined)
    environment.filters["si"] = si
    return environment


def render_html(program: Program, result: ModelResult, env: Env, meta: dict[str, Any],
                use_dot: bool | None = None, drawings: Drawings | None = None) -> str:
    """The page as text (``drawings``: see :func:`html_context`)."""
    with collector.frozen():
        context = html_context(program, result, env, meta, use_dot, drawings)
        return _environment().get_template("report.html.j2").render(**context)


def write_html(program: Program, result: ModelResult, env: Env, path: str,
               meta: dict[str, Any], drawings: Drawings | None = None) -> None:
    """Write the page to ``path`` atomically."""
    atomic_write_text(path, render_html(program, result, env, meta, drawings=drawings))
