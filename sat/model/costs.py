"""Energy, power, price, die area and rack space: the Costs sheet and the system totals.

Per loop nest (the Costs sheet), on one node, from the Loops sheet's time, weighted Gflop and
memory traffic and, on a machine with several cache levels, the Levels sheet's traffic:

- static energy = ``StaticPowerW`` × time;
- flop energy = ``FlopEnergyPJ`` × weighted Gflop (pJ × 10⁹ = 10⁻³ J);
- memory energy = ``MemByteEnergyPJ`` × memory traffic (GB; the Loops sheet's, ExaSAT's);
- cache energy = Σ ``LnByteEnergyPJ`` × the traffic over the link from Ln to the next cache
  level, for every cache level but the last (whose link to memory is the memory energy);
- energy = their sum; power = energy / time.

The program totals (defined names): ``Energy_J``, ``Power_W`` (average power of the run), and
the machine's own figures: ``Price_USD``, ``Peak_GFlops``, ``Peak_Power_W``, ``Die_Area_mm2``,
``Rack_Units``, ``Memory_Bandwidth_GBs``.  Only these use ``Nodes``: the application model runs
on one node.  The parameters are :mod:`sat.parameters.costs`.
"""

from __future__ import annotations

from collections.abc import Callable

from sat.model import expr as E
from sat.model.context import ModelContext
from sat.model.tables import CellValue, Column, Table, nest_columns
from sat.model.tables import column as _c
from sat.parameter import LevelSpec
from sat.parameters.costs import level_energy_name

PJ_GIGA = 1e-3  # pJ × 10⁹ = 10⁻³ J: an energy per flop or byte in pJ times Gflop or GB

ENERGY_NOTE = ("Costs sheet: the energy of a nest is the node's static power (StaticPowerW) "
               "times its time, plus an energy per weighted flop (FlopEnergyPJ) and per byte "
               "moved over each link: memory traffic (MemByteEnergyPJ) and, on machines with "
               "several cache levels, the traffic between caches (L1ByteEnergyPJ, ...). The "
               "defaults come from the machine file's TDP (TDPW): 30 % of it is static power, "
               "and a node running at peak flops and peak memory bandwidth draws its TDP. "
               "Power = energy "
               "/ time. It is an approximation for comparing machines and codes, not a "
               "measurement: give measured figures with --set or in the machine file.")


def cost_columns(specs: list[LevelSpec]) -> list[Column]:
    """The Costs sheet's columns (a cache energy column on a machine with several levels)."""
    cache = [_c("cache_energy_j", "Caches", "J", "Sum over the links between caches ("
                + ", ".join(spec.link for spec in specs[:-1]) + ") of LnByteEnergyPJ × "
                "the Levels sheet's traffic over that link; the last cache's link to memory "
                "is the memory energy.", "Energy")] if len(specs) > 1 else []
    return [
        *nest_columns(),
        _c("time_s", "Time", "s", "The nest's time on one node (the Loops sheet's Time)."),
        _c("static_energy_j", "Static", "J", "StaticPowerW × time: the power the node draws "
           "whatever it computes, over the nest's time.", "Energy"),
        _c("flop_energy_j", "Flops", "J", "FlopEnergyPJ × the nest's weighted Gflop (Loops): "
           "pJ × 10^9 flops = 10^-3 J.", "Energy"),
        _c("memory_energy_j", "Memory", "J", "MemByteEnergyPJ × the nest's memory traffic "
           "(Loops, Actual, GB).", "Energy"),
        *cache,
        _c("energy_j", "Total", "J", "Static + flops + memory (+ caches): the energy of one "
           "run of the nest on one node.", "Energy"),
        _c("power_w", "Power", "W", "Energy / time: the node's average power during the nest "
           "(0 for a nest that takes no time). Totals row: total energy / total time."),
    ]


def nest_costs(ident: str, loop: dict[str, CellValue], traffic: dict[str, E.Quantity],
               specs: list[LevelSpec], ctx: ModelContext) -> dict[str, CellValue]:
    """The Costs row of one nest from its Loops row and its per-level traffic (by level)."""
    def quantity(name: str, expr: E.Expr, unit: str, label: str) -> E.Quantity:
        return E.Quantity(("costs", ident, name), expr, unit, label)

    time = loop["time_s"]
    assert isinstance(time, E.Quantity)
    row: dict[str, CellValue] = {key: loop[key] for key in ("procedure", "file", "line")}
    row["time_s"] = time
    parts = [
        quantity("static_energy_j", E.mul(ctx.param("StaticPowerW"), time), "J",
                 "static energy"),
        quantity("flop_energy_j", E.mul(ctx.param("FlopEnergyPJ"), loop["weighted_gflops"],
                                        PJ_GIGA), "J", "energy of the flops"),
        quantity("memory_energy_j", E.mul(ctx.param("MemByteEnergyPJ"), loop["traffic_gb"],
                                          PJ_GIGA), "J", "energy of the memory traffic"),
    ]
    if len(specs) > 1:
        parts.append(quantity("cache_energy_j", E.add(*[
            E.mul(ctx.param(level_energy_name(spec.name)), traffic[spec.name], PJ_GIGA)
            for spec in specs[:-1]]), "J", "energy of the traffic between caches"))
    for part in parts:
        row[part.key[-1]] = part
    energy = quantity("energy_j", E.add(*parts), "J", "energy")
    row["energy_j"] = energy
    row["power_w"] = quantity("power_w", E.Ref(energy) / E.Ref(time), "W", "average power")
    return row


def costs_table(rows: list[dict[str, CellValue]], total_time: E.Quantity,
                specs: list[LevelSpec],
                more: Callable[[str], list[E.Expr]] = lambda key: []) -> Table:
    """The Costs sheet: one row per nest, and totals (sums; power = energy / time).
    ``more(key)``: terms added to a total (a fusion toggle's, :mod:`sat.model.fusion`)."""
    totals: dict[str, CellValue] = {"procedure": "Total", "time_s": total_time}
    columns = cost_columns(specs)
    for column in columns:
        if column.key.endswith("_energy_j") or column.key == "energy_j":
            terms = [*(E.Ref(row[column.key]) for row in rows),  # type: ignore[arg-type]
                     *more(column.key)]
            totals[column.key] = E.Quantity(
                ("costs", "total", column.key), E.add(*terms) if terms else E.Num(0), "J",
                f"total {column.header.lower()} energy" if column.key != "energy_j"
                else "total energy")
    totals["power_w"] = E.Quantity(("costs", "total", "power_w"),
                                   E.Ref(totals["energy_j"]) / E.Ref(total_time),  # type: ignore
                                   "W", "average power of the run")
    return Table("Costs", "Energy and power", columns, rows, totals,
                 "Per nest, on one node: the energy the model's time, flops and traffic cost "
                 "(static power × time, energy per flop and per byte over each link) and the "
                 "average power.")


def cost_totals(table: Table, specs: list[LevelSpec], ctx: ModelContext
                ) -> dict[str, E.Quantity]:
    """The program's energy and power, and the system's price, peak, area and rack space."""
    totals = table.totals or {}
    nodes, cores = ctx.param("Nodes"), ctx.param("Cores")
    peak_flops = E.mul(cores, ctx.param("GflopsPerCore"))
    peak_bandwidth = E.mul(cores, ctx.param("GBsPerCore"))
    per_core_kib = E.add(*[ctx.param(spec.capacity) for spec in specs]) if specs \
        else ctx.param("CacheKB")
    cache_mib = E.mul(cores, per_core_kib, 1 / 1024)

    def total(name: str, expr: E.Expr, unit: str, label: str) -> E.Quantity:
        return E.Quantity(("costs", name), expr, unit, label)

    return {
        "Energy_J": totals["energy_j"],  # type: ignore[dict-item]
        "Power_W": totals["power_w"],  # type: ignore[dict-item]
        "Price_USD": total("Price_USD", E.mul(nodes, E.add(
            ctx.param("ProcessorPriceUSD"),
            E.mul(ctx.param("MemoryGiB"), ctx.param("MemoryPriceUSDPerGiB")))), "USD",
            "price of the system's processors and memory"),
        "Peak_GFlops": total("Peak_GFlops", E.mul(nodes, peak_flops), "Gflop/s",
                             "peak speed of the system"),
        "Peak_Power_W": total("Peak_Power_W", E.mul(nodes, E.add(
            ctx.param("StaticPowerW"),
            E.mul(ctx.param("FlopEnergyPJ"), peak_flops, PJ_GIGA),
            E.mul(ctx.param("MemByteEnergyPJ"), peak_bandwidth, PJ_GIGA))), "W",
            "power of the system at peak flops and peak memory bandwidth"),
        "Die_Area_mm2": total("Die_Area_mm2", E.add(
            E.mul(cores, ctx.param("CoreAreaMM2")),
            E.mul(cache_mib, ctx.param("CacheAreaMM2PerMiB"))), "mm²",
            "die area of one node's cores and caches"),
        "Rack_Units": total("Rack_Units", E.mul(nodes, ctx.param("RackUnitsPerNode")), "U",
                            "rack space of the system"),
        "Memory_Bandwidth_GBs": total("Memory_Bandwidth_GBs", E.mul(nodes, peak_bandwidth),
                                      "GB/s", "memory bandwidth of the system"),
    }
