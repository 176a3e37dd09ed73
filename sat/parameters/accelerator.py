"""The parameters of the accelerator of offload what-ifs (``--accelerator``)."""

from __future__ import annotations

from sat.machine.accelerators import SPECS, Accelerator
from sat.parameter import Parameter, ParameterSet


def add_accelerator_parameters(paramset: ParameterSet, accelerator: Accelerator) -> None:
    paramset.accelerator = accelerator.name
    for name, (unit, label, kind) in SPECS.items():
        value, source = accelerator.values[name]
        value = int(value) if float(value).is_integer() else value
        paramset.add(Parameter(name, value, unit, "machine", label, source, kind))  # type: ignore
