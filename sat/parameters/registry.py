"""The parameter registry: a run's machine, level, cost, accelerator and software parameters,
ExaSAT's parameter files (:mod:`sat.parameters.files`) applied, then ``--set``.

``--set NAME=VALUE`` overrides a machine or software parameter (``CacheKB=512``, names are
case-insensitive as in Excel) or gives a code symbol's value (``hi(1)=256`` and ``hi_1=256`` are
the same symbol).
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable
from pathlib import Path

from sat.machine import MACHINE_SPECS, Machine
from sat.machine.spec import parse_number
from sat.parameter import (
    DEFAULT_SETUP_ITERATIONS,
    Parameter,
    ParameterError,
    ParameterSet,
    ParameterSpec,
    check_value,
    symbol_to_name,
)
from sat.parameters.accelerator import add_accelerator_parameters
from sat.parameters.costs import add_cost_parameters, cost_spec
from sat.parameters.files import (
    read_block_params,
    read_conds,
    read_index_runs,
    read_params,
    read_symsubs,
)
from sat.parameters.levels import add_level_parameters, level_spec
from sat.quoting import echoed

SOFTWARE_SPECS: tuple[ParameterSpec, ...] = (
    ParameterSpec("StreamingWrites", "",
                  "TRUE if array writes bypass the cache (streaming stores), so written data is "
                  "not read into the cache first.", 0, "flag", "boolean"),
    ParameterSpec("NTAHints", "",
                  "TRUE if arrays read without reuse are read with non-temporal hints, so they do "
                  "not push reusable data out of the cache.", 0, "flag", "boolean"),
    ParameterSpec("BlockX", "elements",
                  "Cache block size along x (the unit-stride dimension); 0 means no blocking.",
                  0, "count", "integer"),
    ParameterSpec("BlockY", "elements", "Cache block size along y; 0 means no blocking.",
                  0, "count", "integer"),
    ParameterSpec("BlockZ", "elements", "Cache block size along z; 0 means no blocking.",
                  0, "count", "integer"),
)
# Software parameters of machines with several cache levels only (ExaSAT's one-cache machines
# keep their parameters)
LEVEL_SOFTWARE_SPECS: tuple[ParameterSpec, ...] = (
    ParameterSpec("WarmCaches", "",
                  "FALSE: every nest sweeps its data from memory once (ExaSAT's model); TRUE: "
                  "steady state, the nest runs again and again, so data that fits in a cache "
                  "level stays there (Kerncraft's ECM model; Levels and ECM sheets).", 0, "flag",
                  "boolean"),
)
SOFTWARE_PARAMETERS = tuple(spec.name for spec in SOFTWARE_SPECS)
SPECS: dict[str, ParameterSpec] = {spec.name: spec for spec in
                                   MACHINE_SPECS + SOFTWARE_SPECS + LEVEL_SOFTWARE_SPECS}
_TRUE = {"true", "1", "yes"}
# Prefixes of the boolean parameters the model creates per nest
MODEL_SWITCHES = ("vectorised_",)
_FALSE = {"false", "0", "no"}


# ------------------------------------------------------------------ the registry


def _normalise(value: float) -> float:
    """Whole numbers as ``int`` so that they print as 1024, not 1024.0."""
    return int(value) if float(value).is_integer() else value


def build_parameters(machine: Machine, params_file: str | Path | None = None,
                     block_params_file: str | Path | None = None,
                     symsubs_file: str | Path | None = None,
                     conds_file: str | Path | None = None,
                     sets: Iterable[str] | None = (), accelerator=None) -> ParameterSet:
    """Machine and software parameters (sheet order), ExaSAT files, then ``--set`` overrides.
    ``accelerator``: a :class:`sat.machine.accelerators.Accelerator` whose parameters join them."""
    paramset = ParameterSet()
    for spec in MACHINE_SPECS:
        value, source = machine.values[spec.name]
        paramset.add(Parameter(spec.name, _normalise(value), spec.unit, "machine", spec.label,
                               source, spec.kind))
    add_level_parameters(paramset, machine)
    add_cost_parameters(paramset, machine)
    if accelerator is not None:
        add_accelerator_parameters(paramset, accelerator)
    for spec in SOFTWARE_SPECS + (LEVEL_SOFTWARE_SPECS if paramset.levels else ()):
        paramset.add(Parameter(spec.name, _normalise(spec.default), spec.unit, "software",
                               spec.label, "default", spec.kind))
    if params_file:
        for symbol, (value, source) in read_params(params_file).items():
            parameter = find_parameter(paramset, symbol)
            if parameter is not None:  # a params file may also set BlockX, CacheKB, …
                parameter.value, parameter.source = _normalise(value), source
                parameter.given = True
            else:
                paramset.symbol_values[symbol] = (value, source)
    if block_params_file:
        blocks = read_block_params(block_params_file)
        paramset.block_bounds.update(blocks.bounds)
        for name, (size, source) in blocks.sizes.items():
            paramset[name].value, paramset[name].source = size, source
            paramset[name].given = True
    if symsubs_file:
        paramset.symsubs.update(read_symsubs(symsubs_file))
    if conds_file:
        paramset.conds.update(read_conds(conds_file))
        paramset.index_runs.extend(read_index_runs(conds_file))
    for text in sets or ():
        apply_set(paramset, text)
    validate(paramset)
    return paramset


def find_parameter(paramset: ParameterSet, name: str) -> Parameter | None:
    """The parameter called ``name`` (case-insensitive, ``hi(1)`` finds ``hi_1``), or the one
    standing for the code text ``name`` (an expression the model cannot read, named
    otherwise), or ``None``."""
    if name in paramset.parameters:
        return paramset.parameters[name]
    wanted = {name.strip().lower(), symbol_to_name(name)}
    for candidate, parameter in paramset.parameters.items():
        if candidate.lower() in wanted:
            return parameter
    for parameter in paramset.parameters.values():
        if parameter.symbol and symbol_to_name(parameter.symbol) in wanted:
            return parameter
    return None


def parse_set(text: str) -> tuple[str, str]:
    """``"NAME=VALUE"`` -> (name, value text), both stripped."""
    name, equals, value = text.partition("=")
    name, value = name.strip(), value.strip()
    if not equals:
        raise ParameterError(f"--set {text!r}: expected NAME=VALUE")
    if not name:
        raise ParameterError(f"--set {text!r}: the name is empty")
    if not value:
        raise ParameterError(f"--set {text!r}: the value is empty")
    if name.count("(") != name.count(")") or name.count("[") != name.count("]") \
            or not re.fullmatch(r"[\w() ,\[\].%]+|[\w() ,\[\].%]*(?:->[\w() ,\[\].%]+)+", name):
        raise ParameterError(f"--set {text!r}: {name!r} is neither a parameter name nor a code "
                             "symbol such as hi(1) or in.n")
    return name, value


def parse_value(text: str, kind: str, name: str) -> float:
    """A ``--set`` value: booleans accept TRUE/FALSE/yes/no/1/0, numbers any float syntax."""
    if kind == "boolean":
        lowered = text.strip().lower()
        if lowered in _TRUE:
            return 1
        if lowered in _FALSE:
            return 0
        raise ParameterError(f"--set {echoed(name + '=' + text)}: {name} is TRUE or FALSE "
                             "(also yes/no, 1/0)")
    value = parse_number(text)
    if value is None:
        raise ParameterError(f"--set {echoed(name + '=' + text)}: {text!r} is not a finite number")
    return value


def apply_set(paramset: ParameterSet, text: str) -> None:
    """Apply one ``--set NAME=VALUE``: a parameter if one has that name, else a code symbol."""
    name, raw = parse_set(text)
    parameter = find_parameter(paramset, name)
    if parameter is not None:
        parameter.value = _normalise(parse_value(raw, parameter.kind, parameter.name))
        parameter.source = "--set"
        parameter.defaulted = False
        parameter.given = True
        return
    # a switch the model creates per nest (Vectorised_<procedure>_<line>) takes TRUE/FALSE
    kind = "boolean" if name.lower().startswith(MODEL_SWITCHES) else "number"
    value = parse_value(raw, kind, name)
    wanted = symbol_to_name(name)
    # hi_1 and hi(1) are one symbol: replace the entry a file gave, keeping its spelling.
    key = next((s for s in paramset.symbol_values if symbol_to_name(s) == wanted), name)
    paramset.symbol_values[key] = (value, "--set")


#: ``--set`` names that decide what the model holds rather than a number in it: they are not
#: rows of the Parameters sheet (editing them there could change nothing).
BUILD_SETTINGS = {"SetupIterations": DEFAULT_SETUP_ITERATIONS}


def split_build_settings(sets: Iterable[str]) -> tuple[dict[str, float], list[str]]:
    """``--set`` texts -> (build settings with their defaults filled in, the other texts)."""
    settings: dict[str, float] = dict(BUILD_SETTINGS)
    rest = []
    for text in sets:
        name, raw = parse_set(text)
        known = next((s for s in BUILD_SETTINGS if s.lower() == name.lower()), None)
        if known is None:
            rest.append(text)
            continue
        value = parse_value(raw, "number", known)
        if value < 0 or not float(value).is_integer():
            raise ParameterError(f"--set {echoed(name + '=' + raw)}: {known} is a whole number of "
                                 "iterations, 0 or more")
        settings[known] = value
    return settings, rest


def unknown_sets(paramset: ParameterSet, set_names: Iterable[str]) -> list[str]:
    """The ``--set`` names that match no parameter (call after the model added the problem ones).

    A name defined by ``--symsubs`` is derived, not an input, so setting it matches nothing.
    """
    unknown = []
    for text in set_names:
        name = text.partition("=")[0].strip()
        if find_parameter(paramset, name) is None:
            unknown.append(name)
    return unknown


#: the rule of every loop fusion toggle ``Fuse_<procedure>_<k>`` (the model makes them)
FUSE_SPEC = ParameterSpec("Fuse_", "0/1", "1: the loop nests of a fusion group run fused", 0,
                          "flag", "integer")


#: the rule of every array's element size ``Bytes_<array>`` (the model makes them,
#: sat.model.elements)
ELEMENT_BYTES_SPEC = ParameterSpec("Bytes_", "B", "bytes of one element of an array", 8,
                                   "positive")


#: A gather's index locality (:mod:`sat.model.irregular.gather_runs`): references per run and
#: elements of a run's window, at least 1; whether a run's indices ascend, 0 or 1.
INDEX_RUNS_SPECS = (ParameterSpec("IndexRun_", "references", "references per run", 1,
                                  "positive"),
                    ParameterSpec("IndexWindow_", "elements", "elements of a run's window", 1,
                                  "positive"),
                    ParameterSpec("IndexSorted_", "0/1", "a run's indices ascend", 0, "flag"))


def spec_of(name: str) -> ParameterSpec | None:
    """The rule of a machine, software, level, core or cost parameter, of a fusion toggle or
    of an element size (None for problem symbols)."""
    if name.startswith(FUSE_SPEC.name):
        return FUSE_SPEC
    if name.startswith(ELEMENT_BYTES_SPEC.name):
        return ELEMENT_BYTES_SPEC
    for spec in INDEX_RUNS_SPECS:
        if name.startswith(spec.name):
            return spec
    return SPECS.get(name) or level_spec(name) or cost_spec(name)


def validate(paramset: ParameterSet) -> None:
    """Raise :class:`ParameterError` naming the first parameter whose value cannot be used."""
    for parameter in paramset.parameters.values():
        spec = spec_of(parameter.name)
        value = float(parameter.value)
        if spec is not None:
            problem = check_value(spec, value)
        else:
            problem = None if math.isfinite(value) else "must be a finite number"
        if problem:
            raise ParameterError(f"{parameter.name} = {parameter.value} ({parameter.source}) "
                                 f"{problem}")
    for symbol, (value, source) in paramset.symbol_values.items():
        if not math.isfinite(value):
            raise ParameterError(f"{symbol} = {value} ({source}) must be a finite number")
    for condition, probability in paramset.conds.items():
        if not 0 <= probability <= 1:
            raise ParameterError(f"condition {condition}: probability {probability} must be "
                                 "from 0 to 1")
