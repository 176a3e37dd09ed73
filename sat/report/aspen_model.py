"""The analysed program as an Aspen application model (``--aspen``), for a modeller to edit.

One ``model`` holds the problem parameters (``param``, their current values), the arrays
(``data``, their size in bytes), one ``kernel`` per loop nest (``execute [iterations]`` with
the nest's flops, loads and stores per iteration) and a ``kernel main`` that runs every nest
once in program order, so that Aspen's totals are satreport's.  Every ``param`` and ``data``
comes before the first kernel, as Aspen's grammar requires (the parameters of each kernel's
quantities in a group of their own): the text parses with ``sat.aspen.parse_text(text,
strict=True)``, which accepts only what Aspen's grammar accepts.

Amounts are the model's own expressions, written over the problem parameters: every other
parameter (the machine's, satreport's software settings) is replaced by its value, and what
then depends on no problem parameter by the number satreport computes
(:class:`~sat.report.aspen_expr.Folder`). A quantity used in several places becomes a ``param``
of its own, named after the model's name for it (``laplacian_L16_iterations``). Aspen
expressions have no conditional: where the model decides between two expressions by a test on
problem parameters (the reuse case whose working set fits in the cache, say), the test is made
at the current values and the expression taken is written, with a comment in the kernel saying
which tests were made. The model is exact as long as those tests come out the same; otherwise
run satreport again.

Traffic: the Loops sheet's actual memory traffic (ExaSAT's reuse case the nest takes), per
array-component pair, split into loads and stores by
:meth:`sat.model.exasat.memory.NestMemory.array_traffic`: a read-only pair's bytes are loads, a
written pair's write-backs (one word per element) are stores and the rest (the read of a
read-write element, the read for ownership of a written one) loads.  The loads and stores of
a nest add up to its traffic, those of the program to ``Total_Traffic_GB``.
"""

from __future__ import annotations

import math
import textwrap
from dataclasses import dataclass, field

from sat import __version__
from sat.model import expr as E
from sat.model.expr import Env, Quantity
from sat.model.tables import FusedWork, ModelResult, NestWork
from sat.parameter import symbol_to_name
from sat.report.aspen_expr import AspenPrinter, Decision, Folder, aspen_name, format_number

GB = 1e9

@dataclass
class _Clause:
    resource: str  # flops, loads, stores
    amount: E.Expr  # per iteration (per run in a kernel without iterations)
    data: str = ""  # the data object (from / to)
    traits: str = ""
    comment: str = ""


@dataclass
class _Kernel:
    name: str
    work: NestWork
    iterations: E.Expr
    clauses: list[_Clause] = field(default_factory=list)
    decisions: list[Decision] = field(default_factory=list)
    per_run: bool = False  # no iterations at the current values: amounts per run
    named: list[Quantity] = field(default_factory=list)  # quantities that must be parameters

    @property
    def ident(self) -> str:
        return f"{self.work.procedure}:{self.work.line}"


class _Names:
    """Unique Aspen names."""

    def __init__(self):
        self.taken: set[str] = set()

    def add(self, text: str) -> str:
        name = aspen_name(text)
        unique, k = name, 2
        while unique in self.taken:
            unique, k = f"{name}_{k}", k + 1
        self.taken.add(unique)
        return unique


def _per_iteration(total: E.Expr, iterations: E.Expr) -> E.Expr:
    """``total / iterations``, without the division where ``total`` is a multiple of it."""
    if isinstance(iterations, E.Num):
        if isinstance(total, E.Num):
            return E.Num(total.value / iterations.value)
        return E.mul(1 / iterations.value, total)
    multiple = _multiple(total, iterations)
    return E.Div(total, iterations) if multiple is None else E.Num(multiple)


def _multiple(expr: E.Expr, of: E.Expr) -> float | None:
    """``c`` when ``expr`` is ``c * of`` (a sum of such terms; quantities looked into)."""
    if isinstance(expr, E.Ref) and isinstance(of, E.Ref) and expr.quantity is of.quantity:
        return 1.0
    if isinstance(expr, E.Num):
        return 0.0 if expr.value == 0 else None
    if isinstance(expr, E.Ref):
        return _multiple(expr.quantity.expr, of)
    if isinstance(expr, E.Add):
        parts = [_multiple(t, of) for t in expr.terms]
        return None if any(p is None for p in parts) else math.fsum(parts)  # type: ignore
    if isinstance(expr, E.Mul) and len(expr.factors) == 2 and isinstance(expr.factors[0], E.Num):
        inner = _multiple(expr.factors[1], of)
        return None if inner is None else expr.factors[0].value * inner
    return None


_FLOPS = ((("adds", "multiplies"), "dp", "", "additions and multiplications"),
          (("divides",), "dp, div", "divisions", "divisions"),
          (("specials",), "dp, sin", "special functions (exp, log, sqrt, …)",
           "special functions"))


def program_as_aspen(program, result: ModelResult, env: Env, *,
                     sources: list[str] | None = None, machine: str = "",
                     created: str = "") -> str:
    """The Aspen application model of the analysed program: the text of one file.

    ``env`` holds the parameter values (:meth:`ModelResult.env`); ``sources``, ``machine``
    and ``created`` (a date) go into the header comment.
    """
    return _Writer(result, env, sources if sources is not None else list(program.sources),
                   machine, created).text()


class _Writer:
    def __init__(self, result: ModelResult, env: Env, sources: list[str], machine: str,
                 created: str):
        self.result = result
        self.env = env
        self.sources = sources
        self.machine = machine
        self.created = created
        self.folder = Folder(result, env)
        self.names = _Names()

    # -- gathering
    def text(self) -> str:
        result, folder = self.result, self.folder
        self.problem = [p for p in result.parameters if p.group == "problem"]
        self.parameter_names = {p.name: self.names.add(p.name) for p in self.problem}
        self.symbols = [(q, folder.fold(q)) for q in result.derived]
        self.data_decisions = folder.decisions_of(result.data_bytes.values())
        self.data = [(self.names.add(name), folder.fold(q))
                     for name, q in result.data_bytes.items()]
        data_names = {name: aspen for name, (aspen, _) in zip(result.data_bytes, self.data,
                                                               strict=True)}
        self.toggles = {f.parameter: self.names.add(f.parameter) for f in result.fused}
        self.kernels = [self._kernel(work, data_names) for work in result.nests]
        # the fused nests' kernels after the source's (kernel main chooses by the toggles)
        self.fused: dict[int, FusedWork] = {}  # by id of the fused nest's work
        for group in result.fused:
            self.kernels.append(self._kernel(group.work, data_names))
            self.fused[id(group.work)] = group

        # Parameters of their own: the quantities used more than once, the symbols, the
        # iterations and the per-run amounts of the kernels.
        forced = {id(q) for k in self.kernels for q in k.named}
        forced |= {id(e.quantity) for _, e in self.symbols if isinstance(e, E.Ref)}
        roots = [e for _, e in self.symbols] + [e for _, e in self.data]
        for kernel in self.kernels:
            roots += [kernel.iterations, *(c.amount for c in kernel.clauses)]
        uses: dict[int, int] = {}
        order: list[Quantity] = []
        for root in roots:
            _count(root, uses, order)
        kernel_names = {k.ident: k.name for k in self.kernels}
        named: dict[int, str] = {}
        scale: dict[int, float] = {}
        self.groups: dict[str, list[Quantity]] = {}  # kernel ident ("" global) -> quantities
        for quantity in order:
            if id(quantity) in forced or uses[id(quantity)] > 1:
                if quantity.unit == "GB":
                    scale[id(quantity)] = GB
                named[id(quantity)] = self.names.add(_quantity_name(quantity, kernel_names,
                                                                    quantity.unit == "GB"))
                ident = str(quantity.key[1]) if len(quantity.key) > 1 else ""
                self.groups.setdefault(ident if ident in kernel_names else "",
                                       []).append(quantity)
        self.printer = AspenPrinter(named, self.parameter_names, scale)
        return self._render()

    def _kernel(self, work: NestWork, data_names: dict[str, str]) -> _Kernel:
        folder = self.folder
        name = self.names.add(f"{work.procedure}_L{work.line}")
        roots = [work.iterations, *work.flops.values()]
        for array in work.arrays:
            roots += [array.loads_gb, array.stores_gb]
        decisions = folder.decisions_of(roots)
        iterations = folder.fold(work.iterations)
        per_run = iterations.evaluate(self.env) == 0
        kernel = _Kernel(name, work, E.Num(1) if per_run else iterations,
                         decisions=decisions, per_run=per_run)
        if isinstance(iterations, E.Ref) and not per_run:
            kernel.named.append(iterations.quantity)

        def amount(total: E.Expr, key: str, unit: str, label: str) -> E.Expr:
            """Per iteration; a total that is no multiple of the iterations becomes a
            parameter of its own, divided by them."""
            if per_run:
                return total
            each = _per_iteration(total, kernel.iterations)
            if not isinstance(each, E.Div):
                return each
            quantity = total.quantity if isinstance(total, E.Ref) else \
                Quantity(("nest", kernel.ident, key), total, unit, label)
            kernel.named.append(quantity)
            return E.Div(E.Ref(quantity), kernel.iterations)

        flops = {k: folder.fold(q) for k, q in work.flops.items()}
        for kinds, traits, comment, label in _FLOPS:
            total = E.add(*(flops[k] for k in kinds))
            if isinstance(total, E.Num) and total.value == 0:
                continue
            each = amount(total, "_".join(kinds), "flops", f"{label} per run")
            if not comment:
                comment = self._flop_comment(flops, kernel)
            kernel.clauses.append(_Clause("flops", each, "", traits, comment))
        for array in work.arrays:
            data = data_names.get(array.name.lower(), "")
            for resource, quantity in (("loads", array.loads_gb), ("stores", array.stores_gb)):
                folded = folder.fold(quantity)
                if isinstance(folded, E.Num) and folded.value == 0:
                    continue
                total = E.mul(GB, folded)
                if isinstance(folded, E.Ref) and not per_run:
                    kernel.named.append(folded.quantity)
                    each = E.Div(total, kernel.iterations)
                else:
                    each = amount(total, f"{array.key}_{resource}", "B",
                                  f"{resource} of {array.key} per run")
                notes = [array.key if array.key != array.name else ""]
                if resource == "loads" and array.kind != "R":
                    notes.append("read before written" if array.kind == "RW" else
                                 "read for ownership")
                if not data:
                    notes.append(f"array {array.name}: no size known")
                kernel.clauses.append(_Clause(resource, each, data, "",
                                              ", ".join(filter(None, notes))))
        return kernel

    def _flop_comment(self, flops: dict[str, E.Expr], kernel: _Kernel) -> str:
        parts = []
        for kind, word in (("adds", "additions"), ("multiplies", "multiplications")):
            each = flops[kind] if kernel.per_run else _per_iteration(flops[kind],
                                                                      kernel.iterations)
            if not isinstance(each, E.Num):
                parts.append(word)
            elif each.value:
                count = format_number(each.value)
                parts.append(f"{count} {word if count != '1' else word[:-1]}")
        return ", ".join(parts)

    # -- writing
    def _render(self) -> list[str]:
        lines = self._header()
        model = aspen_name(_stem(self.sources[0]) if self.sources else "program")
        lines += [f"model {model} {{", ""]
        # Aspen's grammar takes every param and data of a model before its first kernel
        lines += self._parameters()
        lines += self._toggles()
        lines += self._derived()
        lines += self._data()
        for kernel in self.kernels:
            lines += self._kernel_parameters(kernel)
        for kernel in self.kernels:
            lines += self._kernel_lines(kernel)
        lines += self._main()
        lines.append("}")
        return "\n".join(lines) + "\n"

    def _header(self) -> list[str]:
        sources = ", ".join(self.sources) or "no sources"
        used = ", ".join(f"{name}{_NBSP}={_NBSP}{format_number(value)}"
                         for name, value in sorted(self.folder.used.items()))
        text = [
            f"Aspen application model of {sources}, written by satreport {__version__} "
            f"(--aspen) for machine {self.machine or 'unknown'}.",
            f"Date: {self.created}",
            "",
            "One kernel per loop nest: execute [iterations] with the flops and the memory "
            "traffic per iteration. Flops: additions and multiplications as dp, divisions "
            "with the trait div, special functions with sin. Traffic: satreport's actual "
            "memory traffic (ExaSAT's model: the reuse case whose working set fits in the "
            "cache) per array, in bytes: loads (reads, and the reads for ownership of written "
            "data) and stores (write-backs). Kernel main runs each nest once, so that its "
            "totals are satreport's." + (
                " Each legal loop fusion group has a kernel of its fused nest and a 0/1 param, "
                "its toggle (Fuse_<procedure>_<k>): kernel main runs the fused kernel "
                "[toggle] times and the group's nests [1 - toggle] times: the fused kernel "
                "when the toggle is 1, the group's nests when it is 0."
                if self.toggles else ""),
            "",
            "The amounts are expressions over the problem parameters. Machine and software "
            "parameters are numbers in them" + (f": {used}." if used else " (none is used).")
            + " Where satreport's model tests the problem parameters (which reuse case fits in "
            "the cache), the test is made at the values below and the kernel lists it: the "
            "expressions hold while the tests come out the same; otherwise run satreport "
            "again with --set.",
        ]
        lines = []
        for paragraph in text:
            lines += _comment(paragraph, "") if paragraph else ["//"]
        return lines + [""]

    def _parameters(self) -> list[str]:
        if not self.problem:
            return []
        lines = ["  // Problem parameters (satreport --set NAME=VALUE)"]
        width = max(len(self.parameter_names[p.name]) for p in self.problem)
        for p in self.problem:
            value = format_number(self.env.param(p.name), exact=True)
            note = ", ".join(filter(None, [p.symbol if p.symbol != p.name else "", p.source]))
            lines += _with_comment(f"param {self.parameter_names[p.name]:<{width}} = {value}",
                                   note, "  ")
        return lines + [""]

    def _toggles(self) -> list[str]:
        if not self.toggles:
            return []
        lines = ["  // Loop fusion toggles (satreport --set Fuse_…=1, --fuse all): 1 runs a "
                 "group's fused kernel", "  // in kernel main, 0 its nests one after the other"]
        for group in self.result.fused:
            members = group.members
            lines += _with_comment(
                f"param {self.toggles[group.parameter]} = "
                f"{format_number(self.env.param(group.parameter), exact=True)}",
                f"the nests of {members[0].procedure} at lines "
                f"{', '.join(str(m.line) for m in members)}", "  ")
        return lines + [""]

    def _derived(self) -> list[str]:
        # symbols that are a parameter or a number are written for the reader: used nowhere
        plain = [(q, folded) for q, folded in self.symbols if not isinstance(folded, E.Ref)]
        quantities = self.groups.get("", [])
        if not (plain or quantities):
            return []
        lines = ["  // Derived quantities"]
        lines += [line for q in quantities for line in self._param(q)]
        for q, folded in plain:
            name = self.names.add(_quantity_name(q, {}, False))
            lines += _with_comment(f"param {name} = {self.printer.doprint(folded)}", q.label,
                                   "  ")
        return lines + [""]

    def _data(self) -> list[str]:
        if not self.data:
            return []
        lines = ["  // Data: the arrays, in bytes (WordBytes per element, two words for a "
                 "double-precision complex)"]
        lines += _decision_lines(self.data_decisions, "  ")
        for name, size in self.data:
            lines += _code(f"data {name} [{self.printer.doprint(size)}]", "  ")
        return lines + [""]

    def _param(self, q: Quantity) -> list[str]:
        printer = self.printer
        unit = "bytes" if id(q) in printer.scale else q.unit
        note = q.label + (f" ({unit})" if unit and unit not in q.label else "")
        return _with_comment(f"param {printer.names[id(q)]} = {printer.definition(q)}", note,
                             "  ")

    def _nest(self, kernel: _Kernel) -> str:
        work = kernel.work
        group = self.fused.get(id(work))
        if group is not None:
            lines = ", ".join(str(m.line) for m in group.members)
            return (f"{group.members[0].procedure}: the loop nests at lines {lines} fused "
                    f"(run when {self.toggles[group.parameter]} is 1)")
        return f"{work.procedure}: the loop nest at line {work.line}" + (
            f" of {work.file}" if work.file else "")

    def _kernel_parameters(self, kernel: _Kernel) -> list[str]:
        """The parameters of one kernel's quantities, written before the kernels."""
        params = [line for q in self.groups.get(kernel.ident, []) for line in self._param(q)]
        if not params:
            return []
        return [*_comment(f"Quantities of kernel {kernel.name} ({self._nest(kernel)})", "  "),
                *params, ""]

    def _kernel_lines(self, kernel: _Kernel) -> list[str]:
        printer = self.printer
        lines = [f"  // {self._nest(kernel)}", f"  kernel {kernel.name} {{"]
        lines += _decision_lines(kernel.decisions, "    ")
        if kernel.per_run:
            lines.append("    // No iterations at the values above: the amounts are per run.")
        lines.append(f'    execute [{printer.doprint(kernel.iterations)}] "{kernel.ident}" {{')
        for clause in kernel.clauses:
            text = f"{clause.resource} [{printer.doprint(clause.amount)}]"
            if clause.data:
                text += f" {'from' if clause.resource == 'loads' else 'to'} {clause.data}"
            if clause.traits:
                text += f" as {clause.traits}"
            lines += _with_comment(text, clause.comment, "      ")
        return lines + ["    }", "  }", ""]

    def _main(self) -> list[str]:
        lines = ["  // The program: every nest once, in program order", "  kernel main {"]
        by_work = {id(k.work): k for k in self.kernels}
        group_of = {id(m): group for group in self.result.fused for m in group.members}
        procedure = None
        for kernel in self.kernels:
            if id(kernel.work) in self.fused:
                continue
            if kernel.work.procedure != procedure:
                procedure = kernel.work.procedure
                lines.append(f"    // {procedure}")
            group = group_of.get(id(kernel.work))
            if group is None:
                lines.append(f"    call {kernel.name}")
            elif kernel.work is group.members[0]:  # the group once, at its first nest
                # iterate over the 0/1 toggle, not if/else: Aspen's runtime predictor has
                # no implementation of an if in a kernel, both its tools evaluate iterate
                toggle = self.toggles[group.parameter]
                lines += [f"    iterate [{toggle}] {{",
                          f"      call {by_work[id(group.work)].name}", "    }",
                          f"    iterate [1 - {toggle}] {{",
                          *(f"      call {by_work[id(m)].name}" for m in group.members),
                          "    }"]
        return lines + ["  }"]


# ---------------------------------------------------------------------------------- layout

WIDTH = 99  # characters per line
_NBSP = "\u00a0"  # a space where a comment line does not break


def _comment(text: str, indent: str) -> list[str]:
    return [line.replace(_NBSP, " ") for line in textwrap.wrap(
        text, WIDTH, initial_indent=f"{indent}// ", subsequent_indent=f"{indent}// ",
        break_long_words=False, break_on_hyphens=False)]


def _with_comment(code: str, comment: str, indent: str) -> list[str]:
    """A line of code with its comment at the end, or above it when that is too long."""
    if not comment:
        return _code(code, indent)
    line = f"{indent}{code}  // {comment}"
    if len(line) <= WIDTH:
        return [line]
    return _comment(comment, indent) + _code(code, indent)


def _code(code: str, indent: str) -> list[str]:
    """A statement over several lines when it is too long, broken before the operators of
    the outermost level that fit (Aspen ignores line breaks)."""
    lines = []
    lead = indent
    while len(lead) + len(code) > WIDTH:
        room = WIDTH - len(lead)
        best, best_depth, depth = -1, 1 << 30, 0
        for i, char in enumerate(code):
            if char in "([":
                depth += 1
            elif char in ")]":
                depth -= 1
            elif (char == " " and code[i + 1:i + 2] in ("+", "-", "*", "/")
                  and code[i + 2:i + 3] == " " and i > 0):
                if i > room and best >= 0:
                    break
                if depth <= best_depth:
                    best, best_depth = i, depth
        if best < 0:
            break
        lines.append(lead + code[:best])
        code = code[best + 1:]
        lead = indent + "    "
    return lines + [lead + code]


def _decision_lines(decisions: list[Decision], indent: str) -> list[str]:
    """The tests made at the current values, those of one subject together."""
    if not decisions:
        return []
    subjects: dict[str, list[str]] = {}
    for d in decisions:
        subjects.setdefault(d.subject, []).append(f"{d.test}: {d.outcome}" if d.test
                                                  else d.outcome)
    lines = _comment("Decided at the values above (the expressions hold while these tests "
                     "come out the same):", indent)
    for subject, tests in subjects.items():
        lines += textwrap.wrap(f"{subject} {'; '.join(tests)}", WIDTH,
                               initial_indent=f"{indent}//   ",
                               subsequent_indent=f"{indent}//     ", break_long_words=False,
                               break_on_hyphens=False)
    return lines


def _count(expr: E.Expr, uses: dict[int, int], order: list[Quantity]) -> None:
    """Count the references to each quantity; ``order`` lists them, each after those its
    expression uses."""
    stack: list[tuple[E.Expr, bool]] = [(expr, False)]
    while stack:
        node, done = stack.pop()
        if done:
            order.append(node.quantity)  # type: ignore[attr-defined]
            continue
        if isinstance(node, E.Ref):
            ident = id(node.quantity)
            uses[ident] = uses.get(ident, 0) + 1
            if uses[ident] == 1:
                stack.append((node, True))
                stack.append((node.quantity.expr, False))
            continue
        stack.extend((child, False) for child in reversed(E.children(node)))


def _quantity_name(quantity: Quantity, kernels: dict[str, str], in_bytes: bool) -> str:
    """A quantity's parameter name, from its key: ``("loop", "laplacian:16", "iter_x")`` is
    ``laplacian_L16_iter_x``; a quantity in GB (a parameter in bytes) ends in ``_bytes``."""
    key = quantity.key
    if key[:1] == ("symbol",):
        return symbol_to_name(str(key[1]))
    parts = [kernels.get(str(part), str(part)) for part in key
             if part not in ("loop", "array", "nest")]
    name = "_".join(parts)
    if in_bytes:
        name = name.removesuffix("_gb") + "_bytes"
    return name


def _stem(path: str) -> str:
    name = path.replace("\\", "/").rsplit("/", 1)[-1]
    return name.rsplit(".", 1)[0] if "." in name else name
