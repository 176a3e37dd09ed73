"""The cost parameters of a machine: nodes, power, energy per operation, price, area, rack space.

Every machine gets all of them, after its level parameters (sheet order):

- ``Nodes`` (nodes) and ``RackUnitsPerNode`` (U): the size of the system.  Only the system
  results (price, peak speed and power, rack space, memory bandwidth) use ``Nodes``; the
  application model runs on one node's ``Cores``.
- ``StaticPowerW`` (W): power one node draws whatever it does; default 30 % of the TDP.
- ``FlopEnergyPJ`` (pJ per weighted flop) and ``MemByteEnergyPJ`` (pJ per byte between memory
  and the last cache): by default half of the dynamic power, TDP − ``StaticPowerW``, is spent
  at peak flops and half at peak memory bandwidth, so a node at both peaks draws its TDP:
  ``0.5 × (TDP - StaticPowerW) / (Cores × GflopsPerCore)`` W per Gflop/s = nJ per flop.
- ``L1ByteEnergyPJ``, ``L2ByteEnergyPJ``, … (pJ/B), machines with several cache levels only:
  energy per byte over the link from that level to the next one out, for every cache level
  but the last (whose link to memory is ``MemByteEnergyPJ``); default a tenth of
  ``MemByteEnergyPJ``.
- ``ProcessorPriceUSD`` (USD per node), ``MemoryGiB`` (GiB per node) and
  ``MemoryPriceUSDPerGiB`` (USD/GiB): the price of a node.
- ``CoreAreaMM2`` (mm² per core) and ``CacheAreaMM2PerMiB`` (mm² per MiB): the die area.

A machine file gives any of them as ``<prop key=… val=… source=…/>``, and the thermal design
power of one node's processors as ``TDPW`` (W, default 200 assumed), from which the defaults
of the three energy parameters are derived; the rest are the assumptions their source says.
The energies per cache-to-cache byte are derived defaults, ``MemByteEnergyPJ / 10`` (the model
makes the formula live, :func:`sat.model.context.derive_formulas`): an edit of
``MemByteEnergyPJ`` moves them until a value is given for them.  The energies per flop and per
memory byte are plain values computed once from the machine file's figures: they are a
property of the technology calibrated at the machine's own core count and peaks, so ``--set
Cores=…`` and an edit of ``Cores`` leave them as they are (were they to follow ``Cores``, a
node at both peaks would draw its TDP whatever its cores, and an architect's trade-off of cores
against power would vanish).
"""

from __future__ import annotations

from sat.machine.costs import (
    COST_PARAMETERS,
    FLOP_SHARE,
    ON_CHIP_FACTOR,
    STATIC_SHARE,
    TDP,
    cost_spec,
    level_energy_name,
)
from sat.machine.spec import Machine
from sat.parameter import Parameter, ParameterSet

_ROUND = "round figures for a current server process; edit for your technology"
# Sources of the defaults that do not depend on other values.
_ASSUMED = {
    "Nodes": "assumed: one node",
    "RackUnitsPerNode": "assumed: one node per 1U server",
    "ProcessorPriceUSD": "not published: give it with --set",
    "MemoryGiB": "assumed: 64 GiB per node",
    "MemoryPriceUSDPerGiB": "assumed: server DDR5 RDIMM, about 3 USD per GiB",
    "CoreAreaMM2": f"assumed: 5 mm² per core, {_ROUND}",
    "CacheAreaMM2PerMiB": f"assumed: 1.5 mm² per MiB, {_ROUND}",
}
_HOROWITZ = ("on-chip transfers cost about a tenth of a DRAM transfer (Horowitz, ISSCC 2014: "
             "64-bit access to a 1 MB SRAM 100 pJ against 1.3–2.6 nJ for DRAM)")


def has_cost_parameters(paramset: ParameterSet) -> bool:
    """True when ``paramset`` holds every cost parameter its levels call for (a parameter set
    made by hand, as in tests of other parts of the model, may have none)."""
    names = [*COST_PARAMETERS, *map(level_energy_name, _energy_levels(paramset))]
    return all(name in paramset for name in names)


def _energy_levels(paramset: ParameterSet) -> list[str]:
    """The cache levels with a link to a further cache: every level but the last."""
    return [spec.name for spec in paramset.levels[:-1]]


def add_cost_parameters(paramset: ParameterSet, machine: Machine) -> None:
    """Add the cost parameters of ``machine`` to ``paramset`` (after the level parameters:
    the per-level energies follow ``paramset.levels``)."""
    names = list(COST_PARAMETERS)
    at = names.index("MemByteEnergyPJ") + 1
    names[at:at] = [level_energy_name(level) for level in _energy_levels(paramset)]
    derived = _derived_defaults(machine, _energy_levels(paramset))
    for name in names:
        spec = cost_spec(name)
        assert spec is not None
        formula = ""
        if name in machine.costs:
            value, source = machine.costs[name]
        elif name in _ASSUMED:
            value, source = spec.default, _ASSUMED[name]
        else:
            value, source, formula = derived[name]
        paramset.add(Parameter(name, _whole(value), spec.unit, "machine", spec.label, source,
                               spec.kind, formula=formula))


def _derived_defaults(machine: Machine, levels: list[str]) -> dict[str, tuple[float, str, str]]:
    """The energy parameters' defaults, from the machine file's TDP, cores and peaks (a value
    the file gives is used in the others' derivation): (value, source, formula over the other
    parameters when the default stays live, else "")."""
    tdp, tdp_source = machine.costs.get("TDPW", (TDP.default, "assumed"))
    tdp_text = f"TDP {tdp:g} W ({tdp_source})" if tdp_source == "assumed" else f"TDP {tdp:g} W"
    defaults: dict[str, tuple[float, str, str]] = {}

    def given_or(name: str, value: float, source: str) -> float:
        defaults[name] = (value, source, "")
        return machine.costs.get(name, (value, source))[0]

    static = given_or("StaticPowerW", STATIC_SHARE * tdp,
                      f"assumed: 30 % of the {tdp_text}, the idle power of a server node")
    dynamic = max(tdp - static, 0.0)
    cores = machine.value("Cores")
    memory = 0.0
    for name, per_core, unit, what in (("FlopEnergyPJ", "GflopsPerCore", "Gflop/s", "flops"),
                                       ("MemByteEnergyPJ", "GBsPerCore", "GB/s",
                                        "memory bandwidth")):
        peak = cores * machine.value(per_core)
        number = FLOP_SHARE * dynamic / peak * 1000 if peak > 0 else 0.0
        memory = given_or(name, number, f"assumed: half the dynamic power at peak {what}: "
                          f"0.5 × ({tdp_text} − {static:g} W) / ({cores:g} cores × "
                          f"{machine.value(per_core):g} {unit}) × 1000 = {number:.4g} "
                          f"{cost_spec(name).unit}")
    for level in levels:
        defaults[level_energy_name(level)] = (
            memory / ON_CHIP_FACTOR, f"assumed: MemByteEnergyPJ / 10: {_HOROWITZ}",
            f"MemByteEnergyPJ / {float(ON_CHIP_FACTOR)!r}")
    return defaults


def _whole(value: float) -> float | int:
    """Whole numbers as ``int`` so that they print as 1, not 1.0."""
    return int(value) if float(value).is_integer() else value
