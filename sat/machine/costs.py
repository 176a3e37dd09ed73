"""The cost figures a machine file may give: their names, units and rules (nodes, power,
energy per operation, price, area, rack space); :mod:`sat.parameters.costs` makes them
parameters."""

from __future__ import annotations

import re

from sat.parameter import ParameterSpec

STATIC_SHARE = 0.3  # idle power of a node, as a share of its TDP
FLOP_SHARE = 0.5  # share of the dynamic power spent on flops at peak (the rest: memory)
ON_CHIP_FACTOR = 10  # a DRAM byte costs about ten on-chip transfers of a byte

COST_SPECS: tuple[ParameterSpec, ...] = (
    ParameterSpec("Nodes", "nodes",
                  "Nodes of the system; only the system results (price, peak speed and power, "
                  "rack space) use it: the application runs on one node's Cores.",
                  1, "positive count", "integer"),
    ParameterSpec("RackUnitsPerNode", "U", "Rack space one node takes, in rack units (1U = "
                  "44.45 mm of height).", 1, "nonnegative"),
    ParameterSpec("StaticPowerW", "W", "Power one node draws whatever it computes (idle "
                  "power), drawn for the whole run.", STATIC_SHARE * 200, "nonnegative"),
    ParameterSpec("FlopEnergyPJ", "pJ/flop", "Energy of one weighted flop (divisions and "
                  "special functions weighted by DivCost and SpecialCost), beyond the static "
                  "power.", 0, "nonnegative"),
    ParameterSpec("MemByteEnergyPJ", "pJ/B", "Energy of moving one byte between memory and "
                  "the last cache level, beyond the static power.", 0, "nonnegative"),
    ParameterSpec("ProcessorPriceUSD", "USD", "Price of one node's processors.", 0,
                  "nonnegative"),
    ParameterSpec("MemoryGiB", "GiB", "Memory capacity of one node.", 64, "nonnegative"),
    ParameterSpec("MemoryPriceUSDPerGiB", "USD/GiB", "Price of one GiB of the node's memory.",
                  3, "nonnegative"),
    ParameterSpec("CoreAreaMM2", "mm²", "Die area of one core, without its caches.", 5,
                  "nonnegative"),
    ParameterSpec("CacheAreaMM2PerMiB", "mm²/MiB", "Die area of one MiB of cache.", 1.5,
                  "nonnegative"),
)
COST_PARAMETERS = tuple(spec.name for spec in COST_SPECS)
# The machine files' thermal design power: the energy defaults come from it, no formula uses it.
TDP = ParameterSpec("TDPW", "W", "Thermal design power of one node's processors.", 200,
                    "nonnegative")
_SPECS = {spec.name: spec for spec in (*COST_SPECS, TDP)}
_BY_LOWER = {name.lower(): name for name in _SPECS}
_LEVEL_ENERGY = re.compile(r"(L[1-9][0-9]?)ByteEnergyPJ", re.IGNORECASE)


def level_energy_name(level: str) -> str:
    """``"L1"`` -> ``"L1ByteEnergyPJ"``."""
    return f"{level}ByteEnergyPJ"


def cost_name(key: str) -> str | None:
    """The cost parameter a machine-file key names (any case), or ``None``."""
    lowered = key.strip().lower()
    if lowered in _BY_LOWER:
        return _BY_LOWER[lowered]
    match = _LEVEL_ENERGY.fullmatch(key.strip())
    return level_energy_name(match.group(1).upper()) if match else None


def cost_spec(name: str) -> ParameterSpec | None:
    """The rule of a cost parameter (``None`` for any other name)."""
    if name in _SPECS:
        return _SPECS[name]
    match = _LEVEL_ENERGY.fullmatch(name)
    if match and name == level_energy_name(match.group(1)):
        return ParameterSpec(name, "pJ/B", f"Energy of moving one byte over the link from "
                             f"{match.group(1)} to the next cache level out, beyond the static "
                             "power.", 0, "nonnegative")
    return None
