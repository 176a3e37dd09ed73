"""Model inputs: named parameters with unit, group, value and source.

The names are a contract shared by the workbook's defined names, ``--set`` and the JSON
(see docs: parameter names).  Problem parameters are named after code symbols with ``(k)``
written ``_k``: ``hi(1)`` -> ``hi_1``.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Literal

DEFAULT_SETUP_ITERATIONS = 1000  # SetupIterations unless --set gives another

Group = Literal["machine", "problem", "arrays", "software"]
Kind = Literal["number", "integer", "boolean"]
Rule = Literal["positive", "nonnegative", "count", "positive count", "flag"]


class ParameterError(ValueError):
    """A parameter file, ``--set`` or value that cannot be used; the message is one line."""


@dataclass
class Parameter:
    """One row of the Parameters sheet."""

    name: str
    value: float
    unit: str = ""
    group: Group = "machine"
    label: str = ""
    source: str = "default"
    kind: Kind = "number"
    symbol: str = ""  # the code symbol of a problem parameter, e.g. "hi(1)"
    defaulted: bool = False  # a problem symbol nobody gave a value: a documented default
    # A value given explicitly (a parameter file, --set): a derived default never replaces it.
    given: bool = False
    # A derived default: the expression (a ``sat.model.expr.Expr`` over parameters that come
    # before this one) whose value ``value`` is while nobody gives one.  The workbook's cell
    # then holds its formula, so that editing what it derives from moves it; ``--set`` and
    # sweeps of those parameters move it alike (``derived_from`` names them).
    default: object | None = None
    derived_from: tuple[str, ...] = ()
    # A default the registry derives from other parameters, in their names (``MAX(AddPorts,
    # MulPorts)``, ``LineBytes * ClockGHz / 4``): the model makes it the derived default.
    formula: str = ""

    @property
    def derived(self) -> bool:
        """True while the value is the derived default, not an input."""
        return self.default is not None


@dataclass(frozen=True)
class ParameterSpec:
    """A named model input: unit, kind, allowed values and the value assumed when none is given."""

    name: str
    unit: str
    label: str
    default: float
    rule: Rule
    kind: Kind = "number"


def check_value(spec: ParameterSpec, value: float) -> str | None:
    """What is wrong with ``value`` for ``spec`` (``None`` if nothing)."""
    if not math.isfinite(value):
        return "must be a finite number"
    if spec.rule in ("positive", "positive count") and value <= 0:
        return "must be positive"
    if spec.rule in ("nonnegative", "count") and value < 0:
        return "must not be negative"
    if spec.rule in ("count", "positive count") and not float(value).is_integer():
        return "must be a whole number"
    if spec.rule == "flag" and value not in (0, 1):
        return "must be 0 or 1"
    return None


@dataclass(frozen=True)
class LevelSpec:
    """One cache level as the model sees it: which parameters give its capacity and the
    bandwidth of its link outwards, and the structure the machine file fixes."""

    name: str  # "L1", "L2", … or "on-chip"
    capacity: str  # parameter: capacity per thread when every core sharing it runs (KiB)
    bandwidth: str  # parameter: bandwidth of the link to the next level out (GB/s)
    link: str  # "L1-L2", …, "L3-MEM"
    link_shared_by: float = 1.0  # cores sharing one instance of that link
    adds_inner: bool = False  # exclusive or victim: the inner levels' capacity adds to it
    overlaps: bool = False  # ECM: transfers over the link overlap the other contributions
    ways: int | None = None  # associativity and sets, when the machine file gives them
    sets: int | None = None
    # parameter: cores sharing one instance ("" for a private level): the capacity per thread
    # is then the instance's size over the cores in use that share it
    shared_by: str = ""


@dataclass(frozen=True)
class IndexRunsEntry:
    """A conditions file's description of a gather's indices (``<gather array=… run=…
    window=… sorted=…/>``): runs of ``run`` references drawn from a window of ``window``
    consecutive elements.  ``run`` is a number (or several, space-separated: run lengths
    equally likely) or ``pass`` (every reference of a pass) or
    ``loop`` (the trips of the gather's loop: a CSR row); ``window`` a number or ``range``
    (the whole range); empty: not given.  ``procedure`` empty: every procedure."""

    array: str
    procedure: str = ""
    run: str = ""
    window: str = ""
    sorted: str = ""
    source: str = ""  # file:line


@dataclass
class ParameterSet:
    """Parameters in sheet order, plus the problem knowledge read from ExaSAT's files.

    ``symbol_values`` maps code symbols (``"hi(1)"``, ``"ng"``) to ``(value, source)`` given by
    ``--params`` or ``--set``; the model turns the symbols it meets into problem
    :class:`Parameter` rows.  ``symsubs`` maps symbols to expressions (``"dlo(1)"`` ->
    ``"lo(1) - ng"``): they become derived quantities, not inputs.  ``block_bounds`` maps a
    ``(lo, hi)`` symbol pair to block bounds; ``conds`` maps a condition's text to the
    probability the branch is taken.
    """

    parameters: dict[str, Parameter] = field(default_factory=dict)
    symbol_values: dict[str, tuple[float, str]] = field(default_factory=dict)
    symsubs: dict[str, str] = field(default_factory=dict)
    block_bounds: dict[tuple[str, str], tuple[str, str]] = field(default_factory=dict)
    conds: dict[str, float] = field(default_factory=dict)
    # The gathers' index locality the conditions file describes (runs within windows).
    index_runs: list[IndexRunsEntry] = field(default_factory=list)
    # The machine's cache levels, innermost first, when it has more than one (per-level
    # traffic and ECM); empty for ExaSAT's single on-chip cache (CacheKB).
    levels: list[LevelSpec] = field(default_factory=list)
    # The machine's memory benchmarks by stream mix: the name their parameters carry
    # (``Bench<name>Reads``, ``…Writes``, ``…GBs``) -> the kernel's name in the machine file,
    # in the file's order; empty when it
    # has none (the memory link then has one bandwidth, the last level's LnGBs).
    benchmarks: dict[str, str] = field(default_factory=dict)
    # The bandwidths measured with the data in a level past L1 (the Roofline per level): the
    # outer end of a link ("L2", …, "MEM") -> benchmark name (as in ``benchmarks``) -> the
    # counts of cores measured, each a parameter ``Bench<name><level>GBs<cores>``.
    level_benchmarks: dict[str, dict[str, list[int]]] = field(default_factory=dict)
    # The accelerator of offload what-ifs (sat.machine.accelerators), "" for none: no Offload sheet.
    accelerator: str = ""

    def add(self, parameter: Parameter) -> Parameter:
        self.parameters[parameter.name] = parameter
        return parameter

    def values(self) -> dict[str, float]:
        """Name -> numeric value (booleans as 1/0), the environment expressions evaluate in."""
        return {name: float(p.value) for name, p in self.parameters.items()}

    def __contains__(self, name: str) -> bool:
        return name in self.parameters

    def __getitem__(self, name: str) -> Parameter:
        return self.parameters[name]


def input_values(parameters: Iterable[Parameter]) -> dict[str, float]:
    """Name -> value of the parameters that are inputs: every one but those whose value is a
    derived default (an evaluation computes those from the inputs, :func:`derived_defaults`)."""
    return {p.name: float(p.value) for p in parameters if not p.derived}


def derived_defaults(parameters: Iterable[Parameter]) -> dict[str, object]:
    """Name -> derived default expression of the parameters that take theirs, in sheet order
    (each refers only to parameters before it)."""
    return {p.name: p.default for p in parameters if p.derived}


#: A name with its subscripts (``n``, ``hi(1)``, ``b[k]``), and the selector of a member of a
#: C structure or Fortran derived type: ``in.n``, ``s->b[k].n``, ``g%lo(1)`` are one code
#: symbol (see :func:`symbol_to_name`).
SELECTED_NAME = r"[A-Za-z_]\w*(?:\s*\[[^\[\]]*\]|\s*\([^()]*\))*"
MEMBER_SELECTOR = r"\s*(?:\.|->|%)\s*"

_SUBSCRIPT = re.compile(r"\(\s*([^()]*?)\s*\)|\[\s*([^\[\]]*?)\s*\]")


def symbol_to_name(symbol: str) -> str:
    """Code symbol -> parameter name: ``hi(1)`` -> ``hi_1``, ``a(1,2)`` -> ``a_1_2``.

    Members of structures and derived types are joined by ``_`` whatever their selector:
    ``in.lookups`` -> ``in_lookups``, ``s->boxes->n`` -> ``s_boxes_n``, ``g%lo(1)`` ->
    ``g_lo_1``, ``lv->b[k].dim.k`` -> ``lv_b_k_dim_k``.
    """
    def subscripts(match: re.Match[str]) -> str:
        inside = match.group(1) if match.group(1) is not None else match.group(2)
        return "_" + "_".join(p.strip() for p in inside.split(","))

    name = _SUBSCRIPT.sub(subscripts, symbol.strip().lower().replace("->", "."))
    return re.sub(r"[^A-Za-z0-9_]", "_", name)
