"""Offload what-ifs: each nest on the accelerator of ``--accelerator`` (the Offload sheet).

PIR's simulator ran a gather/scatter on the accelerator only when that gained; so here, per
nest (live formulas over the Parameters sheet, :mod:`sat.machine.accelerators` for the parameters):

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

Per gather or scatter instance (the Offload idioms sheet), the idiom alone on the device, its
nest staying on the host, as PIR's simulator offloaded them: host time = the gather's time
(Gathers sheet) + its index stream (references x ``WordBytes``) at the host's bandwidth;
device time = ``LaunchUs`` + indices / ``AccGBs`` + gathered bytes / ``BW_gs`` + link (the
range, twice when scattered, the indices and the gathered values); the same decision, and
its own program speedup over the offloaded idioms. A nest's row sums its idioms' gathered
bytes, gather times and ranges.
"""

from __future__ import annotations

from sat.model import expr as E
from sat.model.context import ModelContext
from sat.model.elements import element_bytes
from sat.model.exasat.memory import GB, KIB
from sat.model.irregular.gathers import array_datatype
from sat.model.tables import CellValue, Column, Table, nest_columns
from sat.model.tables import column as _c

NOTE = ("Offload sheet: per nest, the time on the accelerator (Acc* parameters): LaunchUs + "
        "MAX(Gflop/AccGflops, regular GB/AccGBs + gathers' references x element bytes / "
        "BW_gs(RangeKB)) + IF(Resident, 0, link GB/LinkGBs + 2 x LinkLatencyUs), with BW_gs = "
        "IF(RangeKB >= GsHighKB, GsHighGBs, GsSlope x MAX(RangeKB, GsLowKB) x 1024 + "
        "GsInterceptGBs) (PIR's piecewise fit for the Convey HC-1). A nest is offloaded only "
        "when that is faster than the host (Loops sheet); the program's speedup is Amdahl's: "
        "Total_Time_s / (Total_Time_s - the gains). Offload idioms sheet: each gather or "
        "scatter alone on the accelerator, its nest on the host: host = the gather's time "
        "(Gathers sheet) + its index stream at GBsPerCore x Cores; device = LaunchUs + "
        "indices/AccGBs + gathered/BW_gs + IF(Resident, 0, (range, twice when scattered, + "
        "indices + gathered values)/LinkGBs + 2 x LinkLatencyUs); the same decision and "
        "Amdahl speedup over the offloaded idioms.")



def _decision_columns(device: str, per: str) -> list[Column]:
    """The link, device time and decision columns, alike per nest and per idiom."""
    return [
        _c("link_s", "Link", "s", "IF(Resident, 0, link data / LinkGBs + 2 x LinkLatencyUs).",
           "Link"),
        _c("device_s", "Device", "s", device, "Decision"),
        _c("offload", "Offload", "0/1", "1 when the device time is below the host time.",
           "Decision", "0"),
        _c("after_s", "After", "s", "MIN(host, device).", "Decision"),
        _c("gain_s", "Gain", "s", "Host - after.", "Decision"),
        _c("speedup", "Speedup", "x", f"Per {per}: host / after; total: the program's, "
           "Amdahl's law, Total_Time_s / (Total_Time_s - the gains).", "Decision", "0.000"),
    ]


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
    *_decision_columns("LaunchUs + MAX(compute, memory) + link.", "nest"),
]


IDIOM_OFFLOAD_COLUMNS: list[Column] = [
    *nest_columns(),
    _c("loop_line", "Loop line", "", "Line of the loop whose variable steps through the index."),
    _c("idiom", "Idiom", "", "gather or scatter (the Gathers sheet)."),
    _c("array", "Array", "", "The indexed array."),
    _c("index", "Index array", "", "The index array that picks the elements."),
    _c("host_s", "Host", "s", "The gather's time on the host (Gathers sheet) plus its index "
       "stream's, references x WordBytes / (GBsPerCore x Cores).", "Host"),
    _c("index_gb", "Indices", "GB", "References x WordBytes: the index stream.", "Accelerator",
       "0.000000"),
    _c("gather_gb", "Gathered", "GB", "References x element bytes.", "Accelerator",
       "0.000000"),
    _c("bw_gs_gbs", "BW_gs", "GB/s", "The gather/scatter bandwidth for the range: "
       "IF(RangeKB >= GsHighKB, GsHighGBs, GsSlope x MAX(RangeKB, GsLowKB) x 1024 + "
       "GsInterceptGBs).", "Accelerator", "0.00"),
    _c("gather_s", "Gather time", "s", "Gathered / BW_gs.", "Accelerator"),
    _c("memory_s", "Memory", "s", "Indices / AccGBs + gather time.", "Accelerator"),
    _c("range_gb", "Range moved", "GB", "The range over the link: RangeKB x 1024 bytes, twice "
       "when scattered (there and back).", "Link", "0.000000"),
    _c("link_gb", "Link data", "GB", "Range moved + the indices + the gathered values (back "
       "to the host for a gather, to the device for a scatter).", "Link", "0.000000"),
    *_decision_columns("LaunchUs + memory + link.", "idiom"),
]


def gather_bandwidth(range_kb: E.Expr, ctx: ModelContext) -> E.Expr:
    """BW_gs (GB/s) for a range of ``range_kb`` KiB: PIR's piecewise fit."""
    p = ctx.param
    return E.if_(E.compare(">=", range_kb, p("GsHighKB")), p("GsHighGBs"),
                 E.mul(p("GsSlope"), E.maximum(range_kb, p("GsLowKB")), KIB)
                 + p("GsInterceptGBs"))


def _decision(quantity, host: E.Expr, device: E.Expr) -> dict[str, E.Quantity]:
    """Offload, after, gain and speedup: offloaded only when the device is faster."""
    offload = quantity("offload", E.if_(E.compare("<", device, host), 1, 0), "0/1",
                       "1 if offloaded")
    after = quantity("after_s", E.minimum(host, device), "s", "time after offload")
    gain = quantity("gain_s", host - E.Ref(after), "s", "time gained")
    speedup = quantity("speedup", E.div(host, E.Ref(after)), "x", "speedup")
    return {"offload": offload, "after_s": after, "gain_s": gain, "speedup": speedup}


def _link(quantity, link_gb: E.Quantity, ctx: ModelContext) -> E.Quantity:
    p = ctx.param
    return quantity("link_s", E.if_(E.compare("=", p("Resident"), 1), 0,
                                    E.div(E.Ref(link_gb), p("LinkGBs"))
                                    + E.mul(2e-6, p("LinkLatencyUs"))), "s", "link time")


def idiom_offload(nest, gather: dict[str, CellValue], ctx: ModelContext
                  ) -> dict[str, CellValue]:
    """The Offload idioms row of one gather or scatter (``gather``: its Gathers row): the
    idiom alone on the device, its nest staying on the host (PIR's simulator)."""
    ident = ("offload idiom", gather["procedure"], gather["line"], gather["array"])

    def quantity(name: str, expr: E.Expr, unit: str, label: str) -> E.Quantity:
        return E.Quantity((*ident, name), expr, unit, label)

    p = ctx.param
    word = p("WordBytes")
    references = E.Ref(gather["references"])  # type: ignore[arg-type]
    index_gb = quantity("index_gb", E.mul(references, word) / GB, "GB", "index bytes")
    array = str(gather["array"])
    gather_gb = quantity("gather_gb", E.mul(references, element_bytes(
        ctx, str(gather["procedure"]), array, array_datatype(nest, array))) / GB, "GB",
        "gathered bytes")
    range_kb = E.Ref(gather["range_kb"])  # type: ignore[arg-type]
    bandwidth = quantity("bw_gs_gbs", gather_bandwidth(range_kb, ctx), "GB/s",
                         "gather/scatter bandwidth on the accelerator")
    gather_s = quantity("gather_s", E.div(gather_gb, bandwidth), "s",
                        "gather time on the accelerator")
    host = quantity("host_s", E.Ref(gather["time_s"])  # type: ignore[arg-type]
                    + E.div(index_gb, E.mul(p("GBsPerCore"), p("Cores"))), "s",
                    "host time of the idiom")
    memory = quantity("memory_s", E.div(index_gb, p("AccGBs")) + E.Ref(gather_s), "s",
                      "accelerator memory time")
    scattered = "scatter" in str(gather["idiom"])
    range_gb = quantity("range_gb", E.mul(2 if scattered else 1, range_kb, KIB) / GB, "GB",
                        "the range over the link")
    link_gb = quantity("link_gb", E.add(range_gb, gather_gb, index_gb), "GB",
                       "data over the link")
    link = _link(quantity, link_gb, ctx)
    device = quantity("device_s", E.mul(1e-6, p("LaunchUs")) + E.Ref(memory) + E.Ref(link),
                      "s", "accelerator time")
    return {"procedure": gather["procedure"], "file": gather["file"], "line": gather["line"],
            "loop_line": gather["loop_line"], "idiom": gather["idiom"],
            "array": gather["array"], "index": gather["index"], "host_s": host,
            "index_gb": index_gb, "gather_gb": gather_gb, "bw_gs_gbs": bandwidth,
            "gather_s": gather_s, "memory_s": memory, "range_gb": range_gb,
            "link_gb": link_gb, "link_s": link, "device_s": device,
            **_decision(quantity, E.Ref(host), E.Ref(device))}


def nest_offload(row: dict[str, CellValue], gathers: list[dict[str, CellValue]],
                 idioms: list[dict[str, CellValue]], ctx: ModelContext
                 ) -> dict[str, CellValue]:
    """The Offload row of one nest (``row``: its Loops row; ``gathers``: its Gathers rows;
    ``idioms``: their Offload idioms rows, whose device figures it sums)."""
    ident = ("offload", row["procedure"], row["line"])

    def quantity(name: str, expr: E.Expr, unit: str, label: str) -> E.Quantity:
        return E.Quantity((*ident, name), expr, unit, label)

    def total(rows: list[dict[str, CellValue]], key: str) -> E.Expr:
        return E.add(*[E.Ref(r[key]) for r in rows]) if rows else E.Num(0)  # type: ignore

    p = ctx.param
    host = quantity("host_s", E.Ref(row["time_s"]), "s", "host time")  # type: ignore[arg-type]
    compute = quantity("compute_s", E.div(E.Ref(row["gflops"]), p("AccGflops")), "s",
                       "accelerator compute time")
    traffic = E.Ref(row["traffic_gb"])  # type: ignore[arg-type]
    regular = quantity("regular_gb", E.maximum(0, traffic - total(gathers, "traffic_gb"))
                       if gathers else traffic, "GB", "regular traffic on the accelerator")
    gather_gb = quantity("gather_gb", total(idioms, "gather_gb"), "GB", "gathered bytes")
    gather_s = quantity("gather_s", total(idioms, "gather_s"), "s",
                        "gather time on the accelerator")
    memory = quantity("memory_s", E.div(E.Ref(regular), p("AccGBs")) + E.Ref(gather_s), "s",
                      "accelerator memory time")
    link_gb = quantity("link_gb", E.Ref(regular) + total(idioms, "range_gb"), "GB",
                       "data over the link")
    link = _link(quantity, link_gb, ctx)
    device = quantity("device_s", E.mul(1e-6, p("LaunchUs")) + E.maximum(compute, memory)
                      + E.Ref(link), "s", "accelerator time")
    return {"procedure": row["procedure"], "file": row["file"], "line": row["line"],
            "host_s": host, "compute_s": compute, "regular_gb": regular,
            "gather_gb": gather_gb, "gather_s": gather_s, "memory_s": memory,
            "link_gb": link_gb, "link_s": link, "device_s": device,
            **_decision(quantity, E.Ref(host), E.Ref(device))}


def _totals(rows: list[dict[str, CellValue]], total_time: E.Quantity, what: str
            ) -> dict[str, CellValue]:
    ident = ("offload", what, "total")
    totals: dict[str, CellValue] = {"procedure": "Total"}
    for key in ("host_s", "after_s", "gain_s"):
        totals[key] = E.Quantity((*ident, key), E.add(*[E.Ref(r[key]) for r in rows]),  # type: ignore
                                 rows[0][key].unit, f"total {key}")  # type: ignore[union-attr]
    # How many are offloaded: no column's total (a sum of 0/1 decisions under "Offload" reads
    # as a decision), but the HTML says it.
    totals["offloaded"] = E.Quantity((*ident, "offloaded"),
                                     E.add(*[E.Ref(r["offload"]) for r in rows]),  # type: ignore
                                     f"{what}", f"{what} offloaded")
    totals["speedup"] = E.Quantity(
        (*ident, "speedup"),
        E.div(E.Ref(total_time), E.Ref(total_time) - E.Ref(totals["gain_s"])),  # type: ignore
        "x", f"Program speedup with the offloaded {what} (Amdahl)")
    return totals


def offload_table(rows: list[dict[str, CellValue]], total_time: E.Quantity,
                  device: str) -> Table:
    return Table("Offload", f"Offload what-if: {device}", OFFLOAD_COLUMNS, rows,
                 _totals(rows, total_time, "nests"),
                 "One row per nest: its time on the host and on the accelerator (compute, "
                 "memory with the range-dependent gather bandwidth, link unless resident), "
                 "offloaded only when that gains; the total's speedup is Amdahl's law over "
                 "the offloaded nests.")


def idiom_offload_table(rows: list[dict[str, CellValue]], total_time: E.Quantity,
                        device: str) -> Table:
    return Table("Offload idioms", f"Offload what-if per idiom: {device}",
                 IDIOM_OFFLOAD_COLUMNS, rows, _totals(rows, total_time, "idioms"),
                 "One row per gather or scatter (the Gathers sheet): the idiom alone on the "
                 "accelerator, its nest staying on the host, offloaded only when that gains; "
                 "the total's speedup is Amdahl's law over the offloaded idioms.")
