"""Read and evaluate Aspen performance models (application and abstract machine models).

Aspen (Spafford & Vetter, SC12; ranges, user-defined resources and costs: Scientific
Programming 2015) describes an application by its parameters, data and kernels (execute blocks
with flops, loads, stores, messages and other resources, annotated with traits, and control
flow), and a machine by its components (nodes, sockets, cores, memories, caches, links,
interconnects) and the time each resource takes on them.  This package parses the language
(:mod:`sat.aspen.parser`, a lark LALR grammar, into the dataclasses of :mod:`sat.aspen.tree`),
resolves ``import`` and ``include`` (:mod:`sat.aspen.model`) and evaluates the models the way
Aspen's tools do (:mod:`sat.aspen.evaluate`, :mod:`sat.aspen.machine`,
:mod:`sat.aspen.runtime`).  It stands apart from satreport's code IR.

Public API::

    from sat import aspen

    app = aspen.load_model("matmul.aspen")              # -> AppModel
    mach = aspen.load_machine_model("keeneland.aspen")  # -> MachineModel

    aspen.parameters(app)        # [ParameterInfo(name, value, kind, range, enum, file, line, …)]
    r = aspen.resources(app)     # Resources: r.total["flops"] (main kernel),
                                 # r.kernels["matmul"].counts["loads"], per-kernel errors
    aspen.memory_usage(app)      # MemoryUsage: total bytes of the data, per data object,
                                 # per kernel (exclusive / inclusive data sets)
    aspen.sockets(mach)          # socket types in the machine
    aspen.peak_rates(mach, "nvidia_m2090")   # PeakRates: flop/s per flop kind, bytes/s
    rt = aspen.runtime(app, mach, "intel_xeon_x5660")   # Runtime: rt.total seconds (main),
                                                        # rt.kernels[name] seconds

A model without a ``main`` kernel (a library of kernels, written to be imported) has no program:
``r.total`` is empty and ``rt.total`` is None; ``r.kernels`` and ``rt.kernels`` hold every kernel,
the model's own first, then the imported ones (Aspen's runtime tool iterates across them).

The reader follows Aspen's grammar (:mod:`sat.aspen.conformance`): what it refuses is an error,
except a few constructs models in use rely on, which are read and listed in
``app.leniencies`` (warnings); ``aspen.parse_text(text, strict=True)`` refuses those too.

Every function takes ``params={name: value}`` to override parameters (a range keeps its
bounds).  Numbers come from expressions, which are available too, for formulas:
``aspen.resource_expression(app, "flops")``, ``aspen.runtime_expression(app, mach, socket)``
give :mod:`sat.aspen.tree` expressions over the models' parameters; ``aspen.to_text(expr)``
prints one in Aspen syntax and ``aspen.evaluate(expr, app, mach)`` evaluates it.

Errors are :class:`AspenError`, one line ``file:line:col: …``: syntax errors (with the expected
tokens), undefined names, parameter cycles, division by zero, array indices outside the array,
resources the machine does not provide (messages without an interconnect), unknown kernels.

Semantics worth knowing (details in the modules): counts and times of a control flow add up
(``iterate``/``map`` multiply, ``probability`` weighs, ``if``/``switch`` decide); within an
execute block each clause takes ``ceil(parallelism / units) * time``, conflicting resources add
up and the others overlap (maximum); ``sample`` statements, random in Aspen, are replaced by
their expectation, so results are deterministic.
"""

from __future__ import annotations

from collections.abc import Mapping

from sat.aspen import tree
from sat.aspen.errors import AspenError
from sat.aspen.evaluate import (
    KernelData,
    KernelResources,
    MemoryUsage,
    ParameterInfo,
    Resources,
    data_set_expression,
    memory_usage,
    parameters,
    resource_expression,
    resources,
)
from sat.aspen.expr import Env, to_text
from sat.aspen.machine import PeakRates, machine_sockets, peak_rates
from sat.aspen.model import AppModel, MachineModel, load, load_machine_model, load_model
from sat.aspen.parser import parse_expression, parse_file, parse_text
from sat.aspen.runtime import Runtime, data_transfer_time, runtime, runtime_expression

__all__ = [
    "AppModel",
    "AspenError",
    "Env",
    "KernelData",
    "KernelResources",
    "MachineModel",
    "MemoryUsage",
    "ParameterInfo",
    "PeakRates",
    "Resources",
    "Runtime",
    "data_set_expression",
    "data_transfer_time",
    "evaluate",
    "load",
    "load_machine_model",
    "load_model",
    "memory_usage",
    "parameters",
    "parse_expression",
    "parse_file",
    "parse_text",
    "peak_rates",
    "resource_expression",
    "resources",
    "runtime",
    "runtime_expression",
    "sockets",
    "to_text",
    "tree",
]


def sockets(machine: MachineModel) -> list[str]:
    """The socket types of a machine model, in the order its machine contains them."""
    return machine_sockets(machine)


def evaluate(expr: tree.Expr | str, app: AppModel | None = None,
             machine: MachineModel | None = None,
             params: Mapping[str, float | tree.Expr] | None = None) -> float:
    """Evaluate an expression (or Aspen text) with the parameters of the given models."""
    if isinstance(expr, str):
        expr = parse_expression(expr)
    scopes = [m.params for m in (app, machine) if m is not None]
    return Env(*scopes, overrides=params).eval(expr)
