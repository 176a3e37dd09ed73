"""Offload what-ifs: each nest on the accelerator of ``--accelerator`` (the Offload sheet).

PIR's simulator ran a gather/scatter on the accelerator only when that gained; so here, per
nest (live formulas over the Parameters sheet, :mod:`sat.accelerators` for the parameters):

- host time: the Loops sheet's ``time_s``;
- gathers: per gather or scatter instance of the nest (the Gathers sheet), its references x
  the element's bytes at the range-dependent bandwidth
  ``BW_gs = IF(RangeKB >= GsHighKB, GsHighGBs, GsSlope*MAX(RangeKB, GsLowKB)*1024 +
  GsInterceptGBs)`` (PIR, equations 2 to 4);
- regular bytes: the nest's traffic less its gathers' host traffic, at ``AccGBs``;
- compute: the nest's Gflop at ``AccGflops``;
- link: unless ``Resident`` = 1, the regular bytes and each gathered range (twice when
  scattered: there and back) over ``LinkGBs``, plus ``2 x LinkLatencyUs`` (in and out);
- device time = ``LaunchUs`` + MAX(compute, regular + gathers) + link;
- offload when the device time is below the host time; the time after = the lesser; gain =
  host - after.

The program's speedup (Amdahl's law over every offloaded nest):
``Total_Time_s / (Total_Time_s - sum of gains)``.
"""

from __future__ import annotations

from sat.ir import element_words
from sat.model import expr as E
from sat.model.context import ModelContext
from sat.model.memory import GB, KIB
from sat.model.tables import CellValue, Column, Table, nest_columns
from sat.model.tables import column as _c

NOTE = ("Offload sheet: per nest, the time on the accelerator (Acc* parameters): LaunchUs + "
        "MAX(Gflop/AccGflops, regular GB/AccGBs + gathers' references x element bytes / "
        "BW_gs(RangeKB)) + IF(Resident, 0, link GB/LinkGBs + 2 x LinkLatencyUs), with BW_gs = "
        "IF(RangeKB >= GsHighKB, GsHighGBs, GsSlope x MAX(RangeKB, GsLowKB) x 1024 + "
        "GsInterceptGBs) (PIR's piecewise fit for the Convey HC-1). A nest is offloaded only "
        "when that is faster than the host (Loops sheet); the program's speedup is Amdahl's: "
        "Total_Time_s / (Total_Time_s - the gains).")

OFFLOAD_COLUMNS: list[Column] = [
    *nest_columns(),
    _c("host_s", "Host", "s", "The nest's time on the host: the Loops sheet's time.", "Host"),
    _c("compute_s", "Compute", "s", "Gflop / AccGflops.", "Accelerator"),
    _c("regular_gb", "Regular", "GB", "The nest's traffic less its gathers' and scatters' "
       "host traffic (Gathers sheet).", "Accelerator", "0.000000"),
    _c("gather_gb", "Gathered", "GB", "References through index arrays x element bytes.",
       "Accelerator", "0.000000"),
    _c("gather_s", "Gather time", "s", "Each instance's gathered bytes at BW_gs of its range: "
       "IF(RangeKB >= GsHighKB, GsHighGBs, GsSlope x MAX(RangeKB, GsLowKB) x 1024 + "
       "GsInterceptGBs).", "Accelerator"),
    _c("memory_s", "Memory", "s", "Regular / AccGBs + gather time.", "Accelerator"),
    _c("link_gb", "Link data", "GB", "Regular bytes and each gathered range (twice when "
       "scattered) moved over the link.", "Link", "0.000000"),
    _c("link_s", "Link", "s", "IF(Resident, 0, link data / LinkGBs + 2 x LinkLatencyUs).",
       "Link"),
    _c("device_s", "Device", "s", "LaunchUs + MAX(compute, memory) + link.", "Decision"),
    _c("offload", "Offload", "0/1", "1 when the device time is below the host time.",
       "Decision", "0"),
    _c("after_s", "After", "s", "MIN(host, device).", "Decision"),
    _c("gain_s", "Gain", "s", "Host - after.", "Decision"),
    _c("speedup", "Speedup", "x", "Per nest: host / after; total: the program's, Amdahl's "
       "law, Total_Time_s / (Total_Time_s - the gains).", "Decision", "0.000"),
]


def gather_bandwidth(range_kb: E.Expr, ctx: ModelContext) -> E.Expr:
    """BW_gs (GB/s) for a range of ``range_kb`` KiB: PIR's piecewise fit."""
    p = ctx.param
    return E.if_(E.compare(">=", range_kb, p("GsHighKB")), p("GsHighGBs"),
                 E.mul(p("GsSlope"), E.maximum(range_kb, p("GsLowKB")), KIB)
                 + p("GsInterceptGBs"))


def nest_offload(procedure, nest, row: dict[str, CellValue],
                 gathers: list[dict[str, CellValue]], ctx: ModelContext
                 ) -> dict[str, CellValue]:
    """The Offload row of one nest (``row``: its Loops row; ``gathers``: its Gathers rows)."""
    from sat.model.irregular import _all_arrays

    ident = ("offload", row["procedure"], row["line"])

    def quantity(name: str, expr: E.Expr, unit: str, label: str) -> E.Quantity:
        return E.Quantity((*ident, name), expr, unit, label)

    p = ctx.param
    host = quantity("host_s", E.Ref(row["time_s"]), "s", "host time")  # type: ignore[arg-type]
    compute = quantity("compute_s", E.div(E.Ref(row["gflops"]), p("AccGflops")), "s",
                       "accelerator compute time")
    gathered, gather_times, host_gather, link_ranges = [], [], [], []
    for g in gathers:
        datatype = next((a.datatype for a in _all_arrays(nest)
                         if a.name.lower() == str(g["array"]).lower()), "double")
        elem = E.mul(element_words(datatype), p("WordBytes"))
        gb = E.mul(E.Ref(g["references"]), elem) / GB  # type: ignore[arg-type]
        gathered.append(gb)
        range_kb = E.Ref(g["range_kb"])  # type: ignore[arg-type]
        gather_times.append(E.div(gb, gather_bandwidth(range_kb, ctx)))
        host_gather.append(E.Ref(g["traffic_gb"]))  # type: ignore[arg-type]
        link_ranges.append(E.mul(2 if "scatter" in str(g["idiom"]) else 1, range_kb, KIB) / GB)
    regular = quantity("regular_gb", E.maximum(0, E.Ref(row["traffic_gb"])  # type: ignore
                                               - E.add(*host_gather)) if gathers
                       else E.Ref(row["traffic_gb"]), "GB",  # type: ignore[arg-type]
                       "regular traffic on the accelerator")
    gather_gb = quantity("gather_gb", E.add(*gathered) if gathered else E.Num(0), "GB",
                         "gathered bytes")
    gather_s = quantity("gather_s", E.add(*gather_times) if gather_times else E.Num(0), "s",
                        "gather time on the accelerator")
    memory = quantity("memory_s", E.div(E.Ref(regular), p("AccGBs")) + E.Ref(gather_s), "s",
                      "accelerator memory time")
    link_gb = quantity("link_gb", E.add(E.Ref(regular), *link_ranges), "GB",
                       "data over the link")
    link = quantity("link_s", E.if_(E.compare("=", p("Resident"), 1), 0,
                                    E.div(E.Ref(link_gb), p("LinkGBs"))
                                    + E.mul(2e-6, p("LinkLatencyUs"))), "s", "link time")
    device = quantity("device_s", E.mul(1e-6, p("LaunchUs")) + E.maximum(compute, memory)
                      + E.Ref(link), "s", "accelerator time")
    offload = quantity("offload", E.if_(E.compare("<", device, host), 1, 0), "0/1",
                       "1 if offloaded")
    after = quantity("after_s", E.minimum(host, device), "s", "time after offload")
    gain = quantity("gain_s", E.Ref(host) - E.Ref(after), "s", "time gained")
    speedup = quantity("speedup", E.div(E.Ref(host), E.Ref(after)), "x", "nest speedup")
    return {"procedure": row["procedure"], "file": row["file"], "line": row["line"],
            "host_s": host, "compute_s": compute, "regular_gb": regular,
            "gather_gb": gather_gb, "gather_s": gather_s, "memory_s": memory,
            "link_gb": link_gb, "link_s": link, "device_s": device, "offload": offload,
            "after_s": after, "gain_s": gain, "speedup": speedup}


def offload_table(rows: list[dict[str, CellValue]], total_time: E.Quantity,
                  device: str) -> Table:
    totals: dict[str, CellValue] = {"procedure": "Total"}
    for key in ("host_s", "after_s", "gain_s", "offload"):
        totals[key] = E.Quantity(("offload", "total", key),
                                 E.add(*[E.Ref(r[key]) for r in rows]),  # type: ignore
                                 rows[0][key].unit, f"total {key}")  # type: ignore[union-attr]
    totals["speedup"] = E.Quantity(
        ("offload", "total", "speedup"),
        E.div(E.Ref(total_time), E.Ref(total_time) - E.Ref(totals["gain_s"])),  # type: ignore
        "x", "program speedup with the offloaded nests (Amdahl)")
    return Table("Offload", f"Offload what-if: {device}", OFFLOAD_COLUMNS, rows, totals,
                 "One row per nest: its time on the host and on the accelerator (compute, "
                 "memory with the range-dependent gather bandwidth, link unless resident), "
                 "offloaded only when that gains; the total's speedup is Amdahl's law over "
                 "the offloaded nests.")
