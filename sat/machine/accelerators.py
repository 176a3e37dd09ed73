"""Accelerators for offload what-ifs: built-ins (``sat/data/accelerators/*.yaml``) or a file.

An accelerator file is YAML: ``name``, ``source`` and ``parameters``, each parameter a mapping
``{value: NUMBER, source: TEXT}``. Its parameters join the Parameters sheet (machine group),
``--set``-able and live in the workbook (see :mod:`sat.model.irregular.offload`):

- ``AccGflops`` (Gflop/s) and ``AccGBs`` (GB/s): the device's peak flop rate and memory
  bandwidth;
- the gather/scatter bandwidth against the range the indices span, PIR's piecewise form:
  ``BW_gs = IF(RangeKB >= GsHighKB, GsHighGBs,
  GsSlope * MAX(RangeKB, GsLowKB) * 1024 + GsInterceptGBs)`` (GB/s, the range in bytes in
  the slope term, as in the PIR fit for the Convey HC-1);
- ``LinkGBs``, ``LinkLatencyUs``: the host link; ``LaunchUs``: the launch overhead;
- ``Resident`` (TRUE/FALSE): TRUE when the data stays on the device (no transfer over the link).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

from sat.quoting import echoed, quoted
from sat.resources import data_dir

DATA = data_dir() / "accelerators"


class AcceleratorError(ValueError):
    """An accelerator name or file that cannot be used."""


#: name -> (unit, label, kind), in sheet order
SPECS: dict[str, tuple[str, str, str]] = {
    "AccGflops": ("Gflop/s", "accelerator peak flop rate", "number"),
    "AccGBs": ("GB/s", "accelerator memory bandwidth", "number"),
    "GsSlope": ("GB/s per byte", "accelerator gather/scatter bandwidth: slope on the range",
                "number"),
    "GsInterceptGBs": ("GB/s", "accelerator gather/scatter bandwidth: intercept", "number"),
    "GsLowKB": ("KiB", "accelerator gather/scatter fit: lowest range (held below)", "number"),
    "GsHighKB": ("KiB", "accelerator gather/scatter fit: range from which the bandwidth is "
                 "GsHighGBs", "number"),
    "GsHighGBs": ("GB/s", "accelerator gather/scatter bandwidth beyond GsHighKB", "number"),
    "LinkGBs": ("GB/s", "host-accelerator link bandwidth (one way)", "number"),
    "LinkLatencyUs": ("µs", "host-accelerator link latency per transfer", "number"),
    "LaunchUs": ("µs", "accelerator launch overhead per run of a nest", "number"),
    "Resident": ("", "TRUE if the data stays on the accelerator (no link transfer).",
                 "boolean"),
}


@dataclass
class Accelerator:
    """An accelerator description: its name, the file it came from and its values."""

    name: str
    source: str
    values: dict[str, tuple[float, str]]


def builtin_accelerators() -> list[str]:
    return sorted(p.stem for p in DATA.glob("*.yaml"))


def load_accelerator(name_or_file: str) -> Accelerator:
    """A built-in accelerator by name (``hc1``, ``h100-pcie``) or an accelerator file."""
    from sat.safeyaml import read_yaml

    path = DATA / f"{name_or_file}.yaml"
    if not path.is_file():
        path = Path(name_or_file)
        if not path.is_file():
            raise AcceleratorError(f"--accelerator {echoed(name_or_file)}: no such built-in "
                                   f"accelerator ({', '.join(builtin_accelerators())}) or file")
    what = "an accelerator file"
    doc = read_yaml(path, str(path), AcceleratorError, what)
    if not isinstance(doc, dict) or not isinstance(doc.get("parameters"), dict):
        raise AcceleratorError(f"{path}:1: no 'parameters' mapping: expected {what}")
    source = str(doc.get("source", path.name))
    parameters = doc["parameters"]
    values: dict[str, tuple[float, str]] = {}
    for key, entry in parameters.items():
        line = parameters.lines.get(key, parameters.line)
        if str(key) not in SPECS:
            raise AcceleratorError(f"{path}:{line}: unknown accelerator parameter "
                                   f"{quoted(key)} (known: {', '.join(SPECS)})")
        raw, where = (entry.get("value"), entry.get("source", source)) \
            if isinstance(entry, dict) else (entry, source)
        try:
            value = float(raw)
        except (TypeError, ValueError, OverflowError):
            value = math.nan
        if not math.isfinite(value):  # .inf, .nan, "1e400": no model can use it
            raise AcceleratorError(f"{path}:{line}: {key}: {quoted(raw)} is not a finite "
                                   "number")
        values[str(key)] = (value, str(where))
    missing = [k for k in SPECS if k not in values]
    if missing:
        raise AcceleratorError(f"{path}:{parameters.line}: missing accelerator parameters: "
                               f"{', '.join(missing)}")
    return Accelerator(str(doc.get("name", path.stem)), source, values)
