"""Variable references: scalars, array elements, whole arrays and sections, derived-type parts."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from fparser.two import Fortran2003 as F

from sat import ir
from sat.frontend import subscripts
from sat.frontend.affine import Linear
from sat.frontend.c.offsets import signed_offset
from sat.frontend.fortran.index_functions import Definition, inline_text, one_line_function
from sat.frontend.fortran.symbols import Symbol
from sat.frontend.fortran.tree import subscript_list
from sat.frontend.kinds import Part, decide, is_whole_number, mentioned

if TYPE_CHECKING:
    from sat.frontend.c.delinearise import Split


class ReferenceAnalysis:
    """The procedure analyser's references: the accesses they make and what their subscripts are."""

    def target(self, lhs: object) -> None:
        """The left-hand side of an assignment: subscripts are read, the element written."""
        if isinstance(lhs, F.Name):
            name = str(lhs).lower()
            sym, _ = self.lookup(name)
            if sym.is_array:
                self._whole_array(sym, reads=0, writes=1)
            else:
                self._scalar(name, sym, True)
        elif isinstance(lhs, F.Part_Ref):
            name = str(lhs.items[0]).lower()
            sym, _ = self.lookup(name)
            if sym.is_array:
                self._array_ref(sym, subscript_list(lhs), reads=0, writes=1)
            else:  # a character substring, or a statement we do not understand
                for sub in subscript_list(lhs):
                    self.expr(sub)
                self._scalar(name, sym, True)
        elif isinstance(lhs, F.Data_Ref):
            self._data_ref(lhs, reads=0, writes=1)
        else:
            self.expr(lhs)

    def _whole_array(self, sym: Symbol, reads: int, writes: int) -> None:
        ctx = self.array_ctx
        rank = sym.rank
        if ctx is not None and ctx.loopvars:
            offsets: list = []
            loopvars: list[str] = []
            kinds_: list[ir.Subscript] = []
            for dim in range(rank):
                if ctx.position < len(ctx.loopvars):
                    var = ctx.loopvars[ctx.position]
                    lower = subscripts.as_expr(sym.dims[dim][0])
                    offsets.append(subscripts.difference(lower, ctx.lowers[ctx.position]))
                    loopvars.append(var)
                    kinds_.append(ir.Subscript("induction", var, 1, offsets[-1], text=":"))
                    self._scalar(var, self.lookup_loopvar(var), False)
                    ctx.position += 1
                else:
                    offsets.append(":")
                    loopvars.append("")
                    kinds_.append(ir.Subscript("invariant", text=":"))
            ctx.position = 0
            self.level.array(sym.name, "", self.element_datatype(sym), tuple(offsets),
                             tuple(loopvars), reads, writes, tuple(kinds_), self.line)
            return
        self.level.array(sym.name, "", self.element_datatype(sym), (":",) * rank, ("",) * rank,
                         reads, writes)

    def element_datatype(self, sym: Symbol) -> str:
        """The IR datatype of one element of ``sym``: ``struct*n`` for a derived type of
        ``n`` bytes (:meth:`Scope.type_bytes`), its declared datatype otherwise."""
        size = self.scope.type_bytes(sym.type_name) if sym.type_name else None
        return ir.struct_datatype(size) if size is not None else sym.datatype

    def lookup_loopvar(self, var: str) -> Symbol:
        """A loop variable's symbol; the synthetic ``_iN`` of array syntax are integers."""
        if var in _SYNTHETIC_NAMES:  # Fortran names cannot start with "_"
            return _SYNTHETIC
        return self.lookup(var)[0]

    def _inlined_index(self, sub: object) -> object:
        """A subscript with its calls of index functions inlined (:mod:`index_functions`)."""
        if isinstance(sub, F.Subscript_Triplet):
            return sub
        text = inline_text(str(sub), self._index_definition)
        if text is None:
            return sub
        try:
            return subscripts.parse_expr(text)
        except Exception:  # fparser raises many kinds: the call stays a call
            return sub

    def _index_definition(self, name: str) -> Definition | None:
        """(dummies, expression) of an integer statement function or one-line function."""
        if name not in self._index_definitions:
            self._index_definitions[name] = None
            sym = self.scope.lookup(name)[0]
            unit = self.program.procedures.get(name)
            if sym is not None and sym.definition is not None and sym.base == "int":
                dummies, expression = sym.definition
                self._index_definitions[name] = (tuple(dummies), str(expression))
            elif (sym is None or not sym.is_array) and unit is not None \
                    and unit.kind == "function" and unit.scope.dummies \
                    and self.program.result_base(name) == "int":
                body = one_line_function(unit.node, unit.result)
                if body is not None:
                    self._index_definitions[name] = (tuple(unit.scope.dummies), body)
        return self._index_definitions[name]

    def _array_ref(self, sym: Symbol, subs: list, reads: int, writes: int) -> None:
        written = subs
        subs = [self._inlined_index(sub) for sub in subs]
        offsets: list = []
        loopvars: list[str] = []
        simple: list[bool] = []
        kinds_: list[ir.Subscript] = []
        ctx = self.array_ctx
        active = tuple(self.loopvars)
        for dim, sub in enumerate(subs):
            if isinstance(sub, F.Subscript_Triplet):
                lower_node = sub.items[0]
                if ctx is not None and ctx.position < len(ctx.loopvars):
                    outer, self.levels = self.levels, self.levels + [ctx.outer]
                    try:
                        for bound in sub.items:
                            if bound is not None:
                                self.expr(bound)
                    finally:
                        self.levels = outer
                    var = ctx.loopvars[ctx.position]
                    declared = (sym.dims[dim][0] if sym.dims and dim < len(sym.dims) else "1")
                    lower = (subscripts.to_value(lower_node) if lower_node is not None
                             else subscripts.as_expr(declared))
                    offsets.append(subscripts.difference(lower, ctx.lowers[ctx.position]))
                    loopvars.append(var)
                    stride = sub.items[2]
                    step = subscripts.to_linear(stride) if stride is not None else None
                    coeff = 1 if step is None or not step.is_constant else step.const
                    kinds_.append(ir.Subscript("induction", var, coeff, offsets[-1],
                                               text=subscripts.compact(sub)))
                    self._scalar(var, _SYNTHETIC, False)
                    ctx.position += 1
                else:
                    for bound in sub.items:
                        if bound is not None:
                            self.expr(bound)
                    offsets.append(subscripts.compact(sub))
                    loopvars.append("")
                    kinds_.append(ir.Subscript("invariant", text=offsets[-1]))
                simple.append(False)
                continue
            self.expr(sub)
            offset, var = subscripts.classify(sub, active)
            offsets.append(offset)
            loopvars.append(var)
            kinds_.append(self._subscript_kind(sub, active))
            # a name, or a whole number however written (z(i,3-1), z(i,2)): a component
            simple.append(isinstance(sub, (F.Name, F.Int_Literal_Constant))
                          or (not var and is_whole_number(kinds_[-1].text)))
        if len(subs) == 1 and sym.dims and sym.dims[-1][1] in ("*", "") and loopvars[0] \
                and not isinstance(offsets[0], int):
            split = _split_linearised(subs[0], active)
            if split is not None:
                offsets, loopvars = split
                kinds_ = [ir.Subscript("induction", var, 1, offset,
                                       text=var + signed_offset(offset)) if var else
                          ir.Subscript("invariant", text=str(offset))
                          for offset, var in zip(offsets, loopvars, strict=True)]
                simple = [False] * len(offsets)
        elif len(subs) == 1 and subs[0] is not written[0] and sym.dims and len(sym.dims) == 1 \
                and loopvars[0] and not isinstance(offsets[0], int):
            rows = _split_declared(subs[0], active, sym.dims[0])
            if rows is not None:  # a one-dimensional array read through an index function
                offsets, loopvars, shape = rows
                self.split_shapes.setdefault(sym.name.lower(), shape)
                kinds_ = [ir.Subscript("induction", var, 1, offset,
                                       text=var + signed_offset(offset)) if var else
                          ir.Subscript("invariant", text=str(offset))
                          for offset, var in zip(offsets, loopvars, strict=True)]
                simple = [False] * len(offsets)
        if ctx is not None:
            ctx.position = 0
        component = _component(offsets, loopvars, simple)
        self.level.array(sym.name, component, self.element_datatype(sym), tuple(offsets),
                         tuple(loopvars),
                         reads, writes, tuple(kinds_), self.line)

    def _subscript_kind(self, node: object, active: tuple[str, ...],
                        depth: int = 0) -> ir.Subscript:
        """What one subscript is, for idiom recognition (see :mod:`sat.frontend.kinds`)."""
        if isinstance(node, F.Name):  # the fast paths: i, n, j set from col(k)
            name = str(node).lower()
            if name in active:
                return ir.Subscript("induction", name, text=name)
            tracked = self.index_values.get(name)
            if tracked is None or depth > 4:
                return ir.Subscript("invariant", text=name)
            value = self._subscript_kind(tracked[0], active, depth + 1)
            return ir.Subscript(value.kind, value.var, value.coeff, value.offset, value.index,
                                text=name)
        if isinstance(node, F.Int_Literal_Constant):
            return ir.Subscript("invariant", text=str(node))
        text = subscripts.compact(node)
        parts: list[Part] = []
        names: set[str] = set()
        self._subscript_parts(node, active, parts, names)
        value: object = subscripts.to_linear(node)
        if value is None:
            try:
                value = subscripts.to_sympy(node)
            except (subscripts.NotAffine, TypeError, ValueError, ZeroDivisionError):
                value = None
        for name in sorted(names & set(self.index_values)):
            if depth > 4:
                break
            known = self._subscript_kind(self.index_values[name][0], active, depth + 1)
            if known.kind == "invariant":
                continue
            followed = self._linear_value(name, known) if isinstance(value, Linear) else None
            if followed is not None:  # i = lo(1)+1+iface: i-1 is lo(1)+iface
                scale = dict(value.terms).get(name, 0)
                value = value - Linear(((name, scale),), 0) + followed * Linear.number(scale)
                continue
            parts.append(Part("value", name, (known.var,) if known.var else (), known))
        return decide(value, parts, active, text)

    def _linear_value(self, name: str, known: ir.Subscript) -> Linear | None:
        """The value of the followed scalar ``name`` as a linear form in a loop variable,
        when it is one (``known``: what that value is as a subscript)."""
        if known.kind != "induction":
            return None
        if isinstance(known.coeff, int) and isinstance(known.offset, int):
            return Linear(((known.var, known.coeff),), known.offset)
        value = subscripts.to_linear(self.index_values[name][0])
        # a symbolic offset (lo(1)+1); a value that follows another scalar stays a part
        if isinstance(value, Linear) and not value.names & set(self.index_values):
            return value
        return None

    def _subscript_parts(self, node: object, active: tuple[str, ...],
                         parts: list[Part], names: set[str]) -> None:
        """The array-like parts of a subscript (index arrays, function results) and the
        plain names outside them."""
        if isinstance(node, F.Name):
            names.add(str(node).lower())
            return
        if isinstance(node, F.Part_Ref | F.Data_Ref | F.Function_Reference
                      | F.Intrinsic_Function_Reference | F.Structure_Constructor):
            text = subscripts.compact(node)
            used = mentioned(text, active)
            if isinstance(node, F.Data_Ref):
                parts.append(Part("array", text.split("(")[0], used))
                return
            name = str(node.items[0]).lower()
            sym = self.scope.lookup(name)[0] if isinstance(node, F.Part_Ref) else None
            if sym is not None and sym.is_array:
                parts.append(Part("array", name, used))
            else:
                parts.append(Part("call", name, used))
            return
        for item in getattr(node, "items", ()) or ():
            if item is not None and not isinstance(item, str | tuple | list):
                self._subscript_parts(item, active, parts, names)

    def _data_ref(self, node: object, reads: int, writes: int) -> str:
        """``t%x(i)``, ``pts(i)%x``, ``g%u``: the access the reference makes
        (:meth:`component_path`); its value's base type."""
        path = self.component_path(node)
        for sub in path.others:
            if not isinstance(sub, F.Subscript_Triplet):
                self.expr(sub)
        if path.subs is not None:
            self._array_ref(path.symbol, path.subs, reads, writes)
        elif path.symbol.is_array:
            self._whole_array(path.symbol, reads, writes)
        else:
            self._scalar(path.symbol.name, path.symbol, writes > 0)
        return path.base

    def component_path(self, node: object) -> ComponentPath:
        """What a component reference accesses.

        An element of an array of derived types whose data lie in it (``pts(i)%x``,
        ``pts(i)%v(2)``, ``pts%x``): the array ``pts``, its element the whole derived type
        (datatype ``struct*n``, ``n`` its bytes), so that ``pts(i)%x`` and ``pts(i)%y`` are
        one element, their lines shared. Otherwise the last component, named by its path, of
        its declared type and shape (``g%u(i)``, ``g%u`` a whole array, ``g%n`` a scalar); a
        double with the subscripts' rank when the derived type's definition was not read.
        """
        parts = list(node.items)
        element = self.element_aliases.get(str(parts[0]).lower()) \
            if isinstance(parts[0], F.Name) else None
        if element is not None:  # p%x in associate (p => pts(i)): pts(i)%x
            parts[0] = element
        names = [str(part.items[0]).lower() if isinstance(part, F.Part_Ref)
                 else subscripts.compact(part) for part in parts]
        declared: list[Symbol | None] = [self.lookup(names[0])[0]]
        for part_name in names[1:]:
            owner = declared[-1]
            components = (self.scope.components(owner.type_name)
                          if owner is not None and owner.type_name else None)
            declared.append(components.get(part_name) if components is not None else None)
        last = declared[-1]
        base = last.base if last is not None else "real"
        for index in range(len(parts) - 1):
            holder = declared[index]
            if holder is None or not holder.is_array or not holder.type_name or any(
                    inner is None or inner.storage for inner in declared[index + 1:]):
                continue
            size = self.scope.type_bytes(holder.type_name)
            if size is None:
                break
            element = Symbol("%".join(names[:index + 1]), "struct", ir.struct_datatype(size))
            element.dims, element.shape = holder.dims, holder.shape
            subs = subscript_list(parts[index]) if isinstance(parts[index], F.Part_Ref) \
                else None
            others = [sub for position, part in enumerate(parts) if position != index
                      and isinstance(part, F.Part_Ref) for sub in subscript_list(part)]
            return ComponentPath(element, subs, base, others)
        name = "%".join(names)
        symbol = Symbol(name, "real", "double") if last is None \
            else Symbol(name, last.base, last.datatype, type_name=last.type_name)
        others = [sub for part in parts[:-1] if isinstance(part, F.Part_Ref)
                  for sub in subscript_list(part)]
        if isinstance(parts[-1], F.Part_Ref):
            subs = subscript_list(parts[-1])
            symbol.dims = (last.dims if last is not None and last.dims
                           and len(last.dims) == len(subs) else [("1", "")] * len(subs))
            return ComponentPath(symbol, subs, base, others)
        if last is not None and last.is_array:
            symbol.dims, symbol.shape = last.dims, last.shape
        return ComponentPath(symbol, None, base, others)


@dataclass
class ComponentPath:
    """The variable a component reference accesses: ``symbol`` (named by its path, ``pts``
    or ``g%u``) with ``subs`` its subscripts (``None``: none, a whole array or a scalar),
    ``base`` the base type of the reference's value, ``others`` the subscripts elsewhere on
    the path, read as expressions."""

    symbol: Symbol
    subs: list | None
    base: str
    others: list


_SYNTHETIC = Symbol("_i", "int", "int")
_SYNTHETIC_NAMES = frozenset(f"_i{n}" for n in range(1, 16))


def _component(offsets: list, loopvars: list[str], simple: list[bool]) -> str:
    """The component an array reference selects (``""`` if none).

    The plain loop-free subscripts (a name or an integer literal) after the last subscript that
    involves a loop variable (``q(i,j,k,qu)``), or, if there are none, before the first one
    (``q(qu,i,j,k)``). A loop-free subscript anywhere else is a position, kept as an offset:
    outside an ``i`` loop, ``u(i,j,k,n)`` and ``u(i-1,j,k,n)`` are then one pair ``u``/``n``
    whatever way the position is written.
    """
    dependent = [dim for dim, var in enumerate(loopvars) if var]
    if not dependent:
        return ""
    for dims in (range(dependent[-1] + 1, len(loopvars)), range(dependent[0])):
        picked = [str(offsets[dim]) for dim in dims if simple[dim]]
        if picked:
            return ",".join(picked)
    return ""


def _split_linearised(sub: object, active: tuple[str, ...]) -> tuple[list, list[str]] | None:
    """Offsets and loop variables of an assumed-size array's linearised index split into
    dimensions (``src(x - 1 + nx*(y - 1))`` read as ``src[y - 1][x - 1]``), or None."""
    result = _split(sub, active)
    return None if result is None else (result.offsets, result.loopvars)


def _split(sub: object, active: tuple[str, ...]) -> Split | None:
    """A linearised index split into dimensions, outermost first, or None.

    The terms without loop variables that are not numbers (``- nx``) go to the split as
    origin terms: a whole multiple of a stride is an offset in that dimension.
    """
    import sympy

    from sat.frontend.c.delinearise import delinearise

    try:
        expr = sympy.expand(subscripts.to_sympy(sub))
    except Exception:  # not arithmetic (a call left, a section): stays one-dimensional
        return None
    names = {s.name for s in expr.free_symbols}
    if sum(var in names for var in active) < 2:
        return None
    index, origin = sympy.Integer(0), []
    for term in sympy.Add.make_args(expr):
        if term.is_number or {s.name for s in term.free_symbols} & set(active):
            index += term
        else:
            origin.append(term)
    result = delinearise(index, list(active), origin)
    if isinstance(result, str) or any(result.origin) or result.assumed:
        return None
    return result


def _split_declared(sub: object, active: tuple[str, ...], bounds: tuple[str, str]
                    ) -> tuple[list, list[str], tuple[str, ...]] | None:
    """Offsets, loop variables and shape, innermost dimension first, of a one-dimensional
    array of literal bounds read through an index function (``a(ix(i, j))``, ``ix = i + 52*(j
    - 1)``, ``a(1248)``: ``a(i, j - 1)`` of shape ``(1:52, 0:23)``, the element ``i + 52*(j -
    1)`` as declared), or None when the index is no whole number of rows of the array."""
    from sat.frontend.c.delinearise import declared_extents

    lower, upper = (bound.strip() for bound in bounds)
    if not (lower or "1").lstrip("-").isdigit() or not upper.lstrip("-").isdigit():
        return None
    first = int(lower or "1")
    result = _split(sub, active)
    extents = None if result is None else declared_extents(str(int(upper) - first + 1),
                                                           result)
    if extents is None or not all(extent.isdigit() for extent in extents):
        return None
    lengths = [int(extent) for extent in reversed(extents)]
    shape = (f"{first}:{first + lengths[0] - 1}",
             *(f"0:{length - 1}" for length in lengths[1:]))
    return list(reversed(result.offsets)), list(reversed(result.loopvars)), shape
