"""The alternative block execution scheme: all loops of a procedure run on one block.

Each nest's block grows by whatever its iteration space exceeds the procedure's box (the
smallest iteration space of its nests): a loop over ``lo-ng .. hi+ng`` recomputes its ghost
cells in every block (redundant work, counted in its Gflop).  The block working set is the
block footprint (with halos) of every array live during the nest: accessed in it, or written
or read before it and read again after it.  If it fits in CacheKB, temporaries stay on chip:
the only traffic is reading the procedure's non-local inputs (at their first nest) and writing
its non-local outputs (at their last).  If it does not fit, the scheme brings no cross-loop
reuse and the nest moves what the traditional scheme moves (its Loops traffic); the original
sheet printed "N/A" (and #VALUE! downstream) there.
"""

from __future__ import annotations

from dataclasses import dataclass

from sat.model import expr as E
from sat.model.elements import words_of
from sat.model.exasat.iteration import (
    BLOCK_PARAMS,
    NestShape,
    NestSpace,
    copies_expr,
    pattern_bytes,
)
from sat.model.exasat.lines import round_to_lines
from sat.model.exasat.memory import GB, KIB
from sat.model.exasat.stencil import footprint, volume_terms
from sat.model.tables import Column
from sat.model.tables import column as _c

Kinds = dict[str, str]


@dataclass
class NestRecord:
    """A modelled nest: its shape, iteration space, Loops quantities and flops."""

    shape: NestShape
    space: NestSpace
    loops_q: dict[str, E.Quantity]  # the nest's Loops quantities (traffic_gb, gflops, ...)
    flops_per_iteration: dict[str, float]
    row: dict[str, E.CellValue] | None = None  # its Alternative blocking row, once made


def _nonlocal(shape: NestShape) -> set[str] | None:
    names = {v.name.lower() for v in shape.procedure.nonlocals}
    return names if names or shape.procedure.locals else None  # None: unknown, all streamed


@dataclass
class _Plan:
    """Which arrays one nest of the scheme holds and streams (array-component keys)."""

    resident: list[str]
    r_in: list[str]  # inputs read (at their first nest)
    w_out: list[str]  # outputs written (at their last nest)
    rw_io: list[str]  # read and written in this nest only
    wb_out: list[str]  # outputs read in an earlier nest: only the write-back is left


Uses = dict[str, list[tuple[int, str]]]


def _uses(records: list[NestRecord]) -> Uses:
    """Per array-component key, the nests using it: (index, R/W/RW)."""
    uses: Uses = {}
    for idx, record in enumerate(records):
        for p in record.shape.patterns:
            uses.setdefault(p.key, []).append((idx, p.kind))
    return uses


@dataclass(frozen=True, slots=True)
class _Use:
    """How the nests of a procedure use one array-component key, for every nest's plan."""

    key: str
    nests: frozenset[int]  # the indices of the nests using it
    first: int
    last: int
    last_read: int  # the last nest reading it (R or RW), -1 if none
    streamed: bool  # moved to and from memory (not a local of the procedure)
    stream_in: bool  # its first use reads it
    stream_out: bool  # some nest writes it


def _summaries(uses: Uses, nonlocal_names: set[str] | None) -> list[_Use]:
    """Each key's use, worked out once for the plans of all the procedure's nests."""
    return [_Use(key, frozenset(i for i, _ in use), use[0][0], use[-1][0],
                 max((i for i, k in use if k in ("R", "RW")), default=-1),
                 nonlocal_names is None or key.split(".")[0].lower() in nonlocal_names,
                 use[0][1] in ("R", "RW"), any(k != "R" for _, k in use))
            for key, use in uses.items()]


def _plan(idx: int, summaries: list[_Use]) -> _Plan:
    plan = _Plan([], [], [], [], [])
    for use in summaries:
        key, first, last = use.key, use.first, use.last
        if idx in use.nests or (first < idx and use.last_read > idx):
            plan.resident.append(key)
        if not use.streamed:
            continue
        stream_in, stream_out = use.stream_in, use.stream_out
        if stream_in and stream_out and first == last == idx:
            plan.rw_io.append(key)
        else:
            if stream_in and first == idx:
                plan.r_in.append(key)
            if stream_out and last == idx:
                (plan.wb_out if stream_in else plan.w_out).append(key)
    return plan


def plans(records: list[NestRecord]) -> list[_Plan]:
    """Per nest of a procedure, the arrays it holds and streams in the scheme: two nests with
    equal plans (and iteration spaces) have equal rows."""
    summaries = _summaries(_uses(records), _nonlocal(records[0].shape) if records else None)
    return [_plan(idx, summaries) for idx in range(len(records))]


def procedure_rows(records: list[NestRecord], ctx, tag: str = "",
                   keep: set[int] | None = None) -> list[dict[str, E.CellValue]]:
    """Rows of the Alternative blocking sheet for the nests of one procedure.

    ``tag``: a prefix of the quantities' names (another run of the procedure's nests, as
    with a fusion group's fused nest); ``keep``: the indices of the records to make rows
    for (default all)."""
    if not records:
        return []
    ident = tag + records[0].shape.procedure.name
    word, cache = ctx.param("WordBytes"), ctx.param("CacheKB")
    box = [E.Quantity(("alt", ident, f"box_{a}"),
                      E.minimum(*[E.Ref(r.space.extent[n]) for r in records]), "iterations",
                      f"box along {a.upper()}") for n, a in enumerate("xyz")]
    box_block = []
    for n in range(3):
        size = ctx.param(BLOCK_PARAMS[n])
        box_block.append(E.if_(E.compare(">", size, 0), E.minimum(size, box[n]), box[n]))
    blocks_expr = E.mul(*[E.Ref(box[n]) / box_block[n] for n in range(3)])

    # array liveness over the procedure's nests
    uses = _uses(records)
    offsets: dict[str, set] = {}
    copies: dict[str, list[E.Expr]] = {}
    element: dict[str, E.Expr] = {}  # bytes per element (sat.model.elements)
    for record in records:
        for p in record.shape.patterns:
            offsets.setdefault(p.key, set()).update(p.offsets)
            element[p.key] = pattern_bytes(ctx, record.shape, p)
            if p.copy_chains:  # components held per cell (component loops)
                copies.setdefault(p.key, []).append(copies_expr(p, ctx))
    summaries = _summaries(uses, _nonlocal(records[0].shape))

    sizes: dict[str, E.Quantity] = {}
    for key, use in uses.items():
        ext = []
        for n in range(3):
            extra = [E.Ref(records[i].space.extent[n]) - E.Ref(box[n]) for i, _ in use]
            ext.append(box_block[n] + E.maximum(*extra))
        expr = footprint(volume_terms(frozenset(offsets[key])), lambda s, g=ext[0]: g + s,
                         ext[1], ext[2])
        if key in copies:
            expr = E.mul(E.maximum(*copies[key]), expr)
        label = f"block footprint of {key} with halos"
        # in words of WordBytes: the working set and the costs below are per word
        expr = E.mul(words_of(ctx, element[key]), expr)
        sizes[key] = E.Quantity(("alt", ident, key, "block_elements"), expr, "elements", label)

    rows = []
    for idx, record in enumerate(records):
        if keep is not None and idx not in keep:
            continue
        shape, space = record.shape, record.space
        plan = _plan(idx, summaries)
        resident, r_in, w_out, rw_io, wb_out = (plan.resident, plan.r_in, plan.w_out,
                                                plan.rw_io, plan.wb_out)

        def q(name: str, expr: E.Expr, unit: str, label: str,
              _ident: str = tag + shape.ident) -> E.Quantity:
            return E.Quantity(("alt", _ident, name), expr, unit, label)

        def total(keys: list[str]) -> E.Expr:
            return E.add(*[sizes[k] for k in keys]) if keys else E.Num(0)

        wblock = [q(f"block_{a}", box_block[n] + (E.Ref(space.extent[n]) - E.Ref(box[n])),
                    "iterations", f"block with redundant halo along {a.upper()}")
                  for n, a in enumerate("xyz")]
        x_lines = q("block_x_lines", round_to_lines(wblock[0], ctx), "elements",
                    "block X rounded to cache lines")
        ws = q("ws_kb", E.mul(word, total(resident)) / KIB, "KiB", "block working set")
        fits = q("fits", E.compare("<", ws, cache), "1/0", "block working set fits in cache")
        blocks = q("blocks", blocks_expr, "blocks", "number of blocks of the box")
        k = E.Ref(blocks)
        read_gb = q("read_gb", E.mul(ctx.param("ReadCost"), k, total(r_in)) / GB, "GB",
                    "traffic of inputs read")
        write_cost = record.loops_q["write_cost"].expr if "write_cost" in record.loops_q \
            else ctx.param("WriteCost")
        write_expr = E.mul(write_cost, k, total(w_out))
        if wb_out:  # outputs read in an earlier nest: only the write-back is left
            write_expr = write_expr + E.mul(ctx.param("ReadWriteCost") - ctx.param("ReadCost"),
                                            k, total(wb_out))
        write_gb = q("write_gb", write_expr / GB, "GB", "traffic of outputs written")
        rw_gb = q("rw_gb", E.mul(ctx.param("ReadWriteCost"), k, total(rw_io)) / GB, "GB",
                  "traffic of arrays read and written")
        traffic = q("traffic_gb", E.if_(fits, E.add(read_gb, write_gb, rw_gb),
                                        record.loops_q["traffic_gb"]),
                    "GB", "memory traffic, all loops per block")
        volume = q("volume_ratio", E.mul(k, *wblock) / E.mul(*space.extent), "",
                   "iterations with redundant halos / iterations")
        gflops = q("gflops", E.mul(record.loops_q["gflops"], volume), "Gflop", "Gflop")
        weighted = q("weighted_gflops", E.mul(record.loops_q["weighted_gflops"], volume),
                     "Gflop", "weighted Gflop")
        bpf = q("bytes_per_flop", E.mul(traffic, GB) / E.mul(weighted, 1e9), "B/flop", "B:F")
        cpu = q("time_cpu_s", E.Ref(weighted) / E.mul(ctx.param("GflopsPerCore"),
                                                       ctx.param("Cores")), "s", "CPU time")
        dram = q("time_dram_s", E.Ref(traffic) / E.mul(ctx.param("GBsPerCore"),
                                                        ctx.param("Cores")), "s", "DRAM time")
        time = q("time_s", overlap_time(cpu, dram, ctx), "s", "time")
        row: dict[str, E.CellValue] = {
            "procedure": shape.procedure.name, "file": shape.file, "line": shape.loop.line,
            "sweeps": q("sweeps", E.Ref(space.sweeps), "", "sweeps"),
            **{f"iter_{a}": q(f"iter_{a}", E.Ref(space.extent[n]), "iterations",
                              f"iterations along {a.upper()}") for n, a in enumerate("xyz")},
            "block_x": wblock[0], "block_y": wblock[1],
            "block_z": wblock[2], "block_x_lines": x_lines, "blocks": blocks,
            **record.flops_per_iteration,
            "resident": len(resident), "read_arrays": len(r_in),
            "write_arrays": len(w_out) + len(wb_out), "rw_arrays": len(rw_io),
            "ws_kb": ws, "fits": fits, "read_gb": read_gb, "write_gb": write_gb,
            "rw_gb": rw_gb, "traffic_gb": traffic, "volume_ratio": volume, "gflops": gflops,
            "weighted_gflops": weighted, "bytes_per_flop": bpf, "time_cpu_s": cpu,
            "time_dram_s": dram, "time_s": time,
        }
        rows.append(row)
    return rows


def overlap_time(cpu: E.Quantity, dram: E.Quantity, ctx) -> E.Expr:
    """MAX(cpu, dram) + (1 - Overlap) * MIN(cpu, dram): Overlap 1 gives the max, 0 the sum."""
    return E.maximum(cpu, dram) + (1 - ctx.param("Overlap")) * E.minimum(cpu, dram)



SPACE_COLUMNS: list[Column] = [
    _c("procedure", "Procedure", "", "Procedure holding the nest."),
    _c("file", "File", "", "Source file of the nest."),
    _c("line", "Line", "", "Line of the nest's outermost loop."),
    _c("sweeps", "Sweeps", "", "Repetitions of the grid sweep: product of the trip counts of "
       "loops whose variable is not a grid axis (e.g. a loop over components)."),
    _c("iter_x", "X", "iterations", "Iterations along X (the unit-stride axis).",
       "Iteration space"),
    _c("iter_y", "Y", "iterations", "Iterations along Y.", "Iteration space"),
    _c("iter_z", "Z", "iterations", "Iterations along Z.", "Iteration space"),
]
FLOP_COLUMNS: list[Column] = [
    _c("adds", "Add", "per iteration", "Additions and subtractions per iteration, summed over "
       "the nest's levels (branch arms weighted by probability).", "Flops"),
    _c("multiplies", "Mul", "per iteration", "Multiplications per iteration.", "Flops"),
    _c("divides", "Div", "per iteration", "Divisions per iteration (cost DivCost each).",
       "Flops"),
    _c("specials", "Special", "per iteration", "Intrinsics such as exp, log, sqrt per "
       "iteration (cost SpecialCost each).", "Flops"),
]
TIME_COLUMNS: list[Column] = [
    _c("gflops", "Gflop performed", "Gflop", "Floating-point operations of the nest, 10^9.",
       "Computation", "0.000000"),
    _c("weighted_gflops", "Weighted Gflop", "Gflop", "Gflop with divisions and specials "
       "weighted by DivCost and SpecialCost.", "Computation", "0.000000"),
    _c("bytes_per_flop", "B:F", "B/flop", "Bytes of memory traffic per weighted flop.",
       "Computation", "0.000"),
    _c("time_cpu_s", "Time (CPU)", "s", "Weighted Gflop / (GflopsPerCore x Cores).",
       "Estimated time", "0.000E+00"),
    _c("time_dram_s", "Time (DRAM)", "s", "Traffic GB / (GBsPerCore x Cores).",
       "Estimated time", "0.000E+00"),
    _c("time_s", "Time", "s", "MAX(CPU, DRAM) + (1 - Overlap) x MIN(CPU, DRAM): the maximum "
       "with full overlap, the sum with none.", "Estimated time", "0.000E+00"),
]

ALT_COLUMNS: list[Column] = [
    *SPACE_COLUMNS,
    _c("block_x", "X", "iterations", "Block X plus the redundant halo (iterations beyond the "
       "procedure's box).", "Block iteration space"),
    _c("block_y", "Y", "iterations", "Block Y plus the redundant halo.",
       "Block iteration space"),
    _c("block_z", "Z", "iterations", "Block Z plus the redundant halo.",
       "Block iteration space"),
    _c("block_x_lines", "X (cache lines)", "elements", "Block X rounded up to whole cache "
       "lines.", "Block iteration space"),
    _c("blocks", "Blocks", "blocks", "Blocks of the procedure's box (box / block per axis)."),
    *FLOP_COLUMNS,
    _c("resident", "Resident", "arrays", "Array-components live in cache during the nest "
       "(accessed, or produced before and read after).", "Arrays"),
    _c("read_arrays", "R", "arrays", "Non-local inputs first read in this nest.", "Arrays"),
    _c("write_arrays", "W", "arrays", "Non-local outputs last written in this nest.",
       "Arrays"),
    _c("rw_arrays", "RW", "arrays", "Non-local arrays read and written only in this nest.",
       "Arrays"),
    _c("ws_kb", "Block working set", "KiB", "Block footprints (with halos, no cache-line "
       "rounding) of the resident arrays."),
    _c("fits", "Fits", "1/0", "1 when the block working set is below CacheKB."),
    _c("read_gb", "R", "GB", "Traffic reading inputs (ReadCost per element).", "Traffic",
       "0.000000"),
    _c("write_gb", "W", "GB", "Traffic writing outputs (write cost per element; only the "
       "write-back for outputs read earlier).", "Traffic", "0.000000"),
    _c("rw_gb", "RW", "GB", "Traffic of arrays read and written (ReadWriteCost).", "Traffic",
       "0.000000"),
    _c("traffic_gb", "Total", "GB", "R + W + RW when the block fits; otherwise the Loops "
       "sheet's traffic (no reuse across loops; the original printed N/A).", "Traffic",
       "0.000000"),
    _c("volume_ratio", "Redundancy", "", "Iterations with halos recomputed per block over the "
       "nest's iterations (1 = no redundant work).", "Computation", "0.000"),
    *TIME_COLUMNS,
]
