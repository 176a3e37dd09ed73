"""The JSON export (``--json``): every loop nest, the totals, every parameter, the warnings,
the loop idioms.

Numbers are the model's quantities evaluated in Python; ``cells`` maps point at the workbook
cells holding the same quantities (empty when no workbook layout is known).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from sat import __version__
from sat.ir import Program
from sat.model.expr import Env, Quantity
from sat.model.hierarchy.levels import CONDITIONS
from sat.model.tables import CellValue, ModelResult, Table
from sat.report import json_text

CellOf = Callable[[Quantity], "str | None"]


def _number(value: float) -> float | int | None:
    if math.isnan(value) or math.isinf(value):
        return None
    return int(value) if float(value).is_integer() and abs(value) < 2**53 else value


def _row(row: dict[str, CellValue], env: Env, cell_of: CellOf) -> dict[str, Any]:
    out: dict[str, Any] = {}
    cells: dict[str, str] = {}
    for key, value in row.items():
        if isinstance(value, Quantity):
            out[key] = _number(value.value(env))
            cell = cell_of(value)
            if cell:
                cells[key] = cell
        else:
            out[key] = value
    out["cells"] = cells
    return out


def _nest(row: dict[str, CellValue]) -> tuple:
    return row.get("procedure"), row.get("file"), row.get("line")


def _loop(row: dict[str, CellValue], per_nest: dict[str, dict[tuple, Any]], env: Env,
          cell_of: CellOf) -> dict[str, Any]:
    """A Loops row; ``calls`` is the list of the nest's callees (§3.2), the Loops sheet's
    text of them is ``calls_summary``; ``levels``, ``ecm`` and ``costs`` when the model has
    them."""
    out = _row(row, env, cell_of)
    nest = _nest(row)
    if "calls" in out:
        out["calls_summary"] = out["calls"]
        out["calls"] = per_nest["calls"].get(nest, [])
    if nest in per_nest["levels"]:
        out["levels"] = per_nest["levels"][nest]
    if nest in per_nest["ecm"]:
        out["ecm"] = per_nest["ecm"][nest]
    if nest in per_nest["costs"]:
        out["costs"] = per_nest["costs"][nest]
    return out


def _level(row: dict[str, CellValue], env: Env, cell_of: CellOf) -> dict[str, Any]:
    out = _row({key: value for key, value in row.items()
                if key not in ("procedure", "file", "line")}, env, cell_of)
    out["layer_condition"] = CONDITIONS.get(out["layer_condition"], "none")
    return out


def _ecm(row: dict[str, CellValue], links: list[str], bounds: list[str], roofs: list[str],
         benchmarks: tuple[str, ...], env: Env, cell_of: CellOf,
         words: dict[str, tuple[str, ...]] | None = None) -> dict[str, Any]:
    """An ECM row as the contract's ``ecm`` object: the links' times under ``t_data``, the
    Roofline's bandwidths and benchmarks by link under ``roofline_bandwidth_gbs`` and
    ``roofline_benchmark``; ``words`` names the benchmarks of each Roofline benchmark column."""
    out = _row({key: value for key, value in row.items()
                if key not in ("procedure", "file", "line")}, env, cell_of)
    data: dict[str, Any] = {"unit": "cycles per cache line of work"}
    incore: dict[str, Any] = {"instructions": {}}
    for key, value in out.items():
        if key.startswith("t_") and key[2:] in links:
            data.setdefault("t_data", {})[key[2:]] = value
        elif key.startswith("roofline_gbs_"):
            data.setdefault("roofline_bandwidth_gbs", {})[key[len("roofline_gbs_"):]] = value
        elif key.startswith("roofline_benchmark_"):
            data.setdefault("roofline_benchmark", {})[key[len("roofline_benchmark_"):]] = \
                (words or {})[key][int(value) - 1]
        elif key.endswith("_instructions"):
            incore["instructions"][key[: -len("_instructions")]] = value
        elif key in ("vectorised", "vector_elements"):
            incore[key] = bool(value) if key == "vectorised" else value
        else:
            data[key] = value
    data["incore"] = incore
    data["bound"] = bounds[int(out["bound"]) - 1]
    data["roofline_bound"] = roofs[int(out["roofline_bound"]) - 1]
    if "memory_benchmark" in out:
        data["memory_benchmark"] = benchmarks[int(out["memory_benchmark"]) - 1]
    return data


# Calls-sheet columns -> the field names of the contract's loops[].calls objects
_CALL_FIELDS = {"call_line": "line", "calls_per_iteration": "count_per_iteration",
                "callee_adds": "adds", "callee_multiplies": "multiplies",
                "callee_divides": "divides", "callee_specials": "specials"}


def _call(row: dict[str, CellValue], env: Env, cell_of: CellOf) -> dict[str, Any]:
    out = _row({key: value for key, value in row.items()
                if key not in ("procedure", "file", "line")}, env, cell_of)
    return {_CALL_FIELDS.get(key, key): value for key, value in out.items()}


def to_json_data(
    program: Program,
    result: ModelResult,
    env: Env,
    machine: dict[str, str],
    cell_of: CellOf = lambda q: None,
    parameter_cell: Callable[[str], str | None] = lambda name: None,
) -> dict[str, Any]:
    """The JSON document of DESIGN §3.2 as plain Python data."""
    loops = result.tables.get("Loops")
    per_nest: dict[str, dict[tuple, Any]] = {"calls": {}, "levels": {}, "ecm": {}, "costs": {}}
    for row in result.tables["Calls"].rows if "Calls" in result.tables else ():
        per_nest["calls"].setdefault(_nest(row), []).append(_call(row, env, cell_of))
    for row in result.levels:
        per_nest["levels"].setdefault(_nest(row), []).append(_level(row, env, cell_of))
    if "ECM" in result.tables:
        # the ECM model's module, only for a machine with memory levels (start-up time)
        from sat.model.hierarchy.ecm import bound_names, roofline_names

        links = [c.key[2:] for c in result.tables["ECM"].columns
                 if c.key.startswith("t_") and "-" in c.key]
        bounds, roofs = bound_names(links), roofline_names(links)
        benchmarks = next((c.words for c in result.tables["ECM"].columns
                           if c.key == "memory_benchmark"), ())
        words = {c.key: c.words for c in result.tables["ECM"].columns
                 if c.key.startswith("roofline_benchmark_")}
        for row in result.tables["ECM"].rows:
            per_nest["ecm"][_nest(row)] = _ecm(row, links, bounds, roofs, benchmarks, env,
                                               cell_of, words)
    for row in result.tables["Costs"].rows if "Costs" in result.tables else ():
        per_nest["costs"][_nest(row)] = _row({key: value for key, value in row.items()
                                             if key not in ("procedure", "file", "line")},
                                            env, cell_of)
    aspen = _aspen(result, env, cell_of) if result.aspen is not None else None
    # The model's notes include the front ends' warnings (see build_model).
    warnings = [{"file": n.file, "line": n.line, "message": n.message}
                for n in result.notes if n.kind == "warning"]
    return {
        "satreport": __version__,
        "sources": list(program.sources),
        # which parser read each Fortran file ("reason": why not tree-sitter, when it did not)
        "parsers": [{"file": p.file, "parser": p.parser, **({"reason": p.reason} if p.reason
                                                            else {})}
                    for p in program.parsed_by],
        "machine": machine,
        "parameters": [
            {"name": p.name, "label": p.label, "unit": p.unit, "group": p.group,
             "value": bool(p.value) if p.kind == "boolean" else _number(env.param(p.name)),
             "source": p.source, "symbol": p.symbol, "defaulted": p.defaulted,
             "cell": parameter_cell(p.name),
             **({"derived_from": list(p.derived_from)} if p.derived else {})}
            for p in result.parameters
        ],
        "loops": [_loop(row, per_nest, env, cell_of) for row in (loops.rows if loops else [])],
        "totals": _totals(result, env, cell_of),
        **_idioms(result),
        **({"gathers": [_row(row, env, cell_of) for row in result.tables["Gathers"].rows]}
           if "Gathers" in result.tables else {}),
        **({"offload": _offload(result, env, cell_of)} if "Offload" in result.tables else {}),
        **({"fusion": _fusion(result, env, cell_of)} if result.aspen is None else {}),
        "notes": [{"kind": n.kind, "file": n.file, "line": n.line, "message": n.message}
                  for n in result.notes],
        "unmodelled": [dict(entry) for entry in result.unmodelled],
        "warnings": warnings,
        "bounds_violations": [dict(entry) for entry in result.bounds_violations],
        **({"aspen": aspen} if aspen is not None else {}),
    }


def _offload(result: ModelResult, env: Env, cell_of: CellOf) -> dict[str, Any]:
    """``offload`` (DESIGN §3.2): the accelerator, per nest its host and device times and the
    decision, and the program's speedup (Amdahl's law over the offloaded nests); the same per
    gather or scatter (``idioms``, ``idioms_speedup``: the idioms alone offloaded)."""
    table = result.tables["Offload"]

    def rows(of: Table) -> list[dict[str, Any]]:
        found = []
        for row in of.rows:
            out = _row(row, env, cell_of)
            out["offload"] = bool(out["offload"])
            found.append(out)
        return found

    speedup = table.totals["speedup"]  # type: ignore[index]
    out: dict[str, Any] = {"device": table.title.split(": ", 1)[-1], "nests": rows(table),
                           "speedup": _number(speedup.value(env)),  # type: ignore[union-attr]
                           "cells": {"speedup": cell_of(speedup)}}  # type: ignore[arg-type]
    idioms = result.tables.get("Offload idioms")
    if idioms is not None:
        speedup = idioms.totals["speedup"]  # type: ignore[index]
        out["idioms"] = rows(idioms)
        out["idioms_speedup"] = _number(speedup.value(env))  # type: ignore[union-attr]
        out["cells"]["idioms_speedup"] = cell_of(speedup)  # type: ignore[arg-type]
    return out


# Fusion-sheet columns in a group of the contract's fusion.groups (DESIGN §3.2)
_FUSION_FIELDS = ("procedure", "nests", "legal", "reason", "parameter", "traffic_gb_unfused",
                  "traffic_gb_fused", "time_s_unfused", "time_s_fused", "pays_from_cache_kib")


def _fusion(result: ModelResult, env: Env, cell_of: CellOf) -> dict[str, Any]:
    """``fusion``: one group per candidate run; an illegal run has no parameter and no fused
    numbers; ``pays_from_cache_kib`` is null where fusion pays at no cache size."""
    table = result.tables.get("Fusion")
    groups = []
    for row in table.rows if table is not None else ():
        out = _row(row, env, cell_of)
        group = {key: out.get(key) for key in _FUSION_FIELDS}
        group.update(nests=row["nest_lines"], legal=row["legal"] == "yes",
                     parameter=row["parameter"] or None)
        if group["pays_from_cache_kib"] is not None and group["pays_from_cache_kib"] < 0:
            group["pays_from_cache_kib"] = None
        group["cells"] = {key: cell for key, cell in out["cells"].items()
                          if key in _FUSION_FIELDS}
        groups.append(group)
    return {"groups": groups}


def _idioms(result: ModelResult) -> dict[str, Any]:
    """``idioms``: one entry per loop, idiom and array (DESIGN §3.2), with the reference that
    matched (``detail``); ``idiom_counts``: entries per idiom, every idiom listed."""
    table, counts = result.tables.get("Idioms"), result.tables.get("Idiom counts")
    if table is None:  # an Aspen model: no code, no idioms
        return {}
    return {"idioms": [dict(row) for row in table.rows],
            "idiom_counts": {row["idiom"]: row["count"] for row in
                             (counts.rows if counts is not None else [])}}


def _aspen(result: ModelResult, env: Env, cell_of: CellOf) -> dict[str, Any]:
    """An Aspen model's object: its main kernel's runtime and resources, every kernel."""
    summary = result.aspen or {}
    kernels = []
    for row in result.tables["Aspen kernels"].rows:
        out = _row({key: value for key, value in row.items()
                    if key not in ("kernel", "calls")}, env, cell_of)
        kernels.append({"name": row["kernel"], "calls": summary["tree"].get(row["kernel"], []),
                        "runtime_s": out.pop("time_s", None), **out})
    main = next((k for k in kernels if k["name"] == "main"), {})
    data = result.tables.get("Aspen data")
    return {"model": summary["model"], "path": summary["path"], "machine": summary["machine"],
            "socket": summary["socket"], "runtime_s": main.get("runtime_s"),
            "resources": {r: main.get(r) for r in ("flops", "loads", "stores", "messages")},
            "kernels": kernels,
            "data": [{"name": row["data"], **_row({"bytes": row["bytes"]}, env, cell_of)}
                     for row in (data.rows if data else [])]}


# Program totals (defined names) -> their keys in the JSON's totals
ASPEN_TOTALS = {"Total_Time_s": "time_s", "Total_GFlops": "gflops",
                "Total_Traffic_GB": "traffic_gb", "Total_Messages_GB": "messages_gb",
                "Footprint_GiB": "footprint_gib"}
COST_TOTALS = {"Energy_J": "energy_j", "Power_W": "power_w", "Price_USD": "price_usd",
               "Peak_GFlops": "peak_gflops", "Peak_Power_W": "peak_power_w",
               "Die_Area_mm2": "die_area_mm2", "Rack_Units": "rack_units",
               "Memory_Bandwidth_GBs": "memory_bandwidth_gbs"}


def _totals(result: ModelResult, env: Env, cell_of: CellOf) -> dict[str, Any]:
    """The Loops totals row; with the ECM model, its totals too (``ecm_time_s``, …); the
    energy, power and the system's price, peak, area and rack space (``energy_j``, …)."""
    loops = result.tables.get("Loops")
    totals = _row(loops.totals or {}, env, cell_of) if loops else {"cells": {}}
    extras: dict[str, CellValue] = {}
    if result.aspen is not None:  # an Aspen model: its main kernel's totals
        extras.update({key: result.totals[name] for name, key in ASPEN_TOTALS.items()
                       if name in result.totals})
    ecm = result.tables.get("ECM")
    if ecm is not None and ecm.totals:
        extras.update({("ecm_" + key if key.startswith("time") else key): value
                       for key, value in ecm.totals.items() if isinstance(value, Quantity)})
    extras.update({key: result.totals[name] for name, key in COST_TOTALS.items()
                   if name in result.totals})
    if extras:
        extra = _row(extras, env, cell_of)
        cells = {**totals.pop("cells"), **extra.pop("cells")}
        totals.update(extra, cells=cells)
    return totals


def dumps(data: dict[str, Any]) -> str:
    """The JSON text of ``data``, indented by two spaces: a number that is not finite is
    ``null`` (JSON has no NaN or Infinity; where it matters the data says why, as a sweep row's
    ``reason``)."""
    return json_text.dumps(data) + "\n"
