"""What the model hands to the renderers: tables of quantities, totals, notes.

The model decides *what* each row and column is (and builds every number as an expression);
the renderers decide only *where* it goes.  A cell value is either a :class:`Quantity` (a
formula in the workbook, an evaluated number elsewhere) or a plain constant (text or a number
taken from the code, e.g. a line number or a flop count).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from sat.ir import Program
from sat.model.expr import Env, Expr, Quantity
from sat.parameter import Parameter, derived_defaults, input_values

CellValue = Quantity | str | int | float | bool | None


@dataclass
class Column:
    """One column: ``key`` is the JSON field name (units in the name: ``time_s``)."""

    key: str
    header: str
    unit: str = ""
    comment: str = ""  # one sentence shown as the header's comment in the workbook
    number_format: str = "General"
    band: str = ""  # a header band grouping several columns ("Working set (actual)")
    # A column of codes: code first_code + k means words[k]. The workbook shows the word beside
    # the code (a live formula of it); the JSON gives the word.
    words: tuple[str, ...] = ()
    first_code: int = 1


def column(key: str, header: str, unit: str, comment: str, band: str = "",
           number_format: str = "General", words: tuple[str, ...] = (),
           first_code: int = 1) -> Column:
    """A :class:`Column`, with the band before the number format (the common case)."""
    return Column(key, header, unit, comment, number_format, band, words, first_code)


def nest_columns() -> list[Column]:
    """The columns that say which nest a row is about: procedure, file, line."""
    return [column("procedure", "Procedure", "", "Procedure holding the nest."),
            column("file", "File", "", "Source file of the nest."),
            column("line", "Line", "", "Line of the nest's outermost loop.")]


@dataclass
class Table:
    """One sheet (or one section of a sheet): columns, rows, optional totals row."""

    name: str
    title: str
    columns: list[Column]
    rows: list[dict[str, CellValue]] = field(default_factory=list)
    totals: dict[str, CellValue] | None = None
    description: str = ""

    def column(self, key: str) -> Column:
        return next(c for c in self.columns if c.key == key)


@dataclass
class Note:
    """An assumption, a default that was used, or a source warning (file:line)."""

    message: str
    kind: str = "assumption"  # "warning", "assumption", "default", "parser"
    file: str = ""
    line: int = 0


@dataclass
class ArrayTraffic:
    """One array-component pair's share of a nest's memory traffic (the Loops sheet's actual
    case): ``loads_gb`` plus ``stores_gb`` is the pair's traffic for the reuse case the nest
    takes (see :meth:`sat.model.exasat.memory.NestMemory.array_traffic`)."""

    key: str  # name.component
    name: str  # the array
    kind: str  # R, RW or W
    loads_gb: Quantity
    stores_gb: Quantity


@dataclass
class NestWork:
    """The work of one modelled nest (a Loops row) as a whole, for renderers that describe
    the program's work rather than tabulate it (the Aspen model): the iterations, the flops
    of each kind per run of the nest, the traffic of each array-component pair."""

    procedure: str
    file: str
    line: int
    iterations: Quantity  # sweeps * X * Y * Z
    flops: dict[str, Quantity]  # adds, multiplies, divides, specials: flops per run
    arrays: list[ArrayTraffic] = field(default_factory=list)


@dataclass
class FusedWork:
    """A legal loop fusion group as whole works (the Aspen model): its 0/1 toggle, its
    members (nests of ``ModelResult.nests``) and the fused nest (sat.model.fusion)."""

    parameter: str
    members: list[NestWork]
    work: NestWork


@dataclass
class ModelResult:
    """Everything the renderers need; nothing here is recomputed by them."""

    parameters: list[Parameter]
    tables: dict[str, Table]
    totals: dict[str, Quantity]  # defined name (Total_Time_s, ...) -> quantity
    notes: list[Note] = field(default_factory=list)
    derived: list[Quantity] = field(default_factory=list)  # symsubs symbols, e.g. dlo(1)
    # the program as modelled: callees written into their calling nests (sat.model.calls)
    program: Program | None = None
    # per nest and cache level (the Levels sheet's rows when the machine has several levels)
    levels: list[dict[str, CellValue]] = field(default_factory=list)
    # cache-set aliasing checks, made once the parameters are known (sat.model.hierarchy.aliasing)
    alias_checks: list = field(default_factory=list)
    # the answer to --scenario (sat.explore.explain.answer): the JSON's scenario object
    scenario: dict | None = None
    # an Aspen model as SOURCE (sat.model.aspen_app): model, machine, socket, kernel tree
    aspen: dict | None = None
    # parameter -> (low, high) the model declares (Aspen's ranges): a scenario's default
    # decision variables
    ranges: dict[str, tuple[float, float]] = field(default_factory=dict)
    # every modelled nest as a whole, in the Loops sheet's order (sat.report.aspen_model)
    nests: list[NestWork] = field(default_factory=list)
    # every legal loop fusion group with a fused nest, in the Fusion sheet's order
    fused: list[FusedWork] = field(default_factory=list)
    # the bytes of each distinct array (sat.model.exasat.occupancy's sizes), by array name
    data_bytes: dict[str, Quantity] = field(default_factory=dict)
    # nests the model does not work on: procedure, file, line and reason (also in the Notes)
    unmodelled: list[dict[str, str | int]] = field(default_factory=list)
    # each modelled nest's physical bounds (sat.model.bounds.NestBounds), in the Loops order
    bounds: list = field(default_factory=list)
    # the bounds the run's values break (sat.model.bounds.Violation.as_dict): the JSON's
    # bounds_violations
    bounds_violations: list[dict] = field(default_factory=list)

    def env(self, overrides: dict[str, float] | None = None) -> Env:
        """A fresh evaluation environment over the parameter values (plus overrides)."""
        values = input_values(self.parameters)
        if overrides:
            values.update(overrides)
        return Env(values, self.defaults())

    def refresh_derived(self) -> None:
        """Recompute the value of every parameter that takes its derived default (after an
        input changed, e.g. a scenario's optimum): the JSON and the workbook show the value
        used."""
        env = self.env()
        for parameter in self.parameters:
            if parameter.derived:
                value = env.param(parameter.name)
                parameter.value = int(value) if value.is_integer() else value

    def inputs(self) -> dict[str, float]:
        """The values of the parameters that are inputs (derived defaults left out: an
        evaluation computes them from these, :meth:`defaults`)."""
        return input_values(self.parameters)

    def defaults(self) -> dict[str, Expr]:
        """Parameter -> its derived default expression, for those whose value it is."""
        return derived_defaults(self.parameters)  # type: ignore[return-value]
