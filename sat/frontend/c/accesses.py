"""C accesses: array elements as stencil offsets, ``*(p + i)`` as ``p[i]``, members as scalars."""

from __future__ import annotations

import itertools

from pycparser import c_ast

from sat import ir
from sat.frontend.c.algebra import (
    NotAffine,
    c_text,
    constant_value,
    flatten_ref,
    shape_of,
    to_affine,
    to_sympy,
)
from sat.frontend.c.choices import MAX_CHOICES
from sat.frontend.c.delinearise import (
    declared_extents,
    delinearise,
    index_parts,
    split_note,
)
from sat.frontend.c.index_functions import inline_calls
from sat.frontend.c.offsets import classify, signed_offset
from sat.frontend.c.symbols import CSymbol
from sat.frontend.c.walk import FunctionWalk
from sat.frontend.kinds import Part, decide, is_whole_number, mentioned


class Accesses(FunctionWalk):
    """The walk's part that records the accesses of references read and written."""

    def target(self, node: c_ast.Node, read: bool) -> str:
        """The left-hand side of an assignment: written (and read first when ``read``)."""
        if isinstance(node, c_ast.ID):
            if read:  # x += 1, x++: no longer a known index value (x = e is tracked)
                self.index_values.pop(node.name, None)
            sym = self.lookup(node.name)
            if sym.storage == "undeclared":
                self.warn(f"'{node.name}' is assigned but not declared: assumed an integer",
                          node)
            if sym.is_array:
                self.warn(f"pointer '{node.name}' is reassigned: accesses through it are "
                          "counted as accesses to '" + node.name + "'", node)
                return "ptr"
            if read:
                self._scalar(sym, False)
            self._scalar(sym, True)
            return sym.base
        if isinstance(node, c_ast.ArrayRef):
            return self._array_ref(node, reads=1 if read else 0, writes=1)
        if isinstance(node, c_ast.UnaryOp) and node.op == "*":
            return self._deref(node, reads=1 if read else 0, writes=1)
        if isinstance(node, c_ast.StructRef):
            return self._member(node, reads=1 if read else 0, writes=1)
        hint = ""
        if isinstance(node, c_ast.BinaryOp) and node.op == "*" \
                and isinstance(node.left, c_ast.ID) \
                and self.lookup(node.left.name).storage == "undeclared":
            # "T *p = a;" with T unknown reads as the expression (T * p) = a
            name = node.left.name
            hint = f" (unknown type name '{name}'? define it, e.g. -D {name}=double)"
        self.warn(f"assignment to '{c_text(node)}' not understood: counted as a read{hint}",
                  node)
        return self.expr(node)

    def _array_ref(self, node: c_ast.ArrayRef, reads: int, writes: int) -> str:
        base, subs = flatten_ref(node)
        if isinstance(base, c_ast.StructRef):
            element = self._struct_element(node)
            if element is not None:  # p[i].v[k]: an element of p
                declared = self.unit.types.members.get(base.field.name)
                self._element_access(*element, reads, writes)
                return declared.base if declared is not None else "real"
        subs = [inline_calls(sub, self.unit.index_functions) for sub in subs]
        for sub in subs:
            self.expr(sub)
        if isinstance(base, c_ast.ID):
            sym = self.lookup(base.name)
            if sym.storage == "undeclared":
                self.warn(f"array '{base.name}' is not declared: assumed double", node)
                sym.base, sym.datatype, sym.dims, sym.is_constant = "real", "double", ["*"], False
                sym.storage = "file"
                self.nonlocal_used.setdefault(base.name, sym)
            name, datatype, rank = sym.name, sym.datatype, len(sym.dims or ())
            element = sym.base if len(subs) >= rank else "ptr"
        elif isinstance(base, c_ast.StructRef):
            name, datatype, rank, element = _compact_member(base), "double", len(subs), "real"
            declared = self.unit.types.members.get(base.field.name)
            if declared is not None and declared.dims \
                    and declared.base in ("int", "real", "complex", "bool"):
                datatype, element = declared.datatype, declared.base  # float *x: floats
            self._member_bases(base)
        else:
            self.warn(f"array reference '{c_text(node)}' not understood: counted as a read of "
                      "its parts", node)
            self.expr(base)
            return "real"
        self._record(name, datatype, subs, rank, reads, writes, node)
        return element

    def _record(self, name: str, datatype: str, subs: list[c_ast.Node], rank: int,
                reads: int, writes: int, node: c_ast.Node) -> None:
        """Record an access; a subscript chosen at run time is recorded at every choice.

        ``a[IDX(upwind,k)]`` after ``upwind = (v > 0) ? j - 1 : j`` touches ``j - 1`` on some
        iterations and ``j`` on others: over the sweep it touches both, so both are stencil
        points (the conservative choice: the working set holds every cell it may read, and
        the reads are counted at each).
        """
        combos: list[tuple[c_ast.Node, ...]] = []
        seen: set[str] = set()
        for combo in itertools.product(*(self._choices(sub) for sub in subs)):
            text = "][".join(c_text(sub) for sub in combo)
            if text not in seen:
                seen.add(text)
                combos.append(combo)
            if len(combos) > MAX_CHOICES:
                combos = [tuple(subs)]
                break
        for combo in combos:
            self._record_one(name, datatype, list(combo), rank, reads, writes, node)

    def _record_one(self, name: str, datatype: str, subs: list[c_ast.Node], rank: int,
                    reads: int, writes: int, node: c_ast.Node) -> None:
        active = tuple(self.loopvars)
        if len(subs) == 1 and rank <= 1:
            split = self._delinearise(name, subs[0], active, node)
            if split is not None:
                offsets, loopvars = split
                kinds = tuple(ir.Subscript("induction", var, 1, offset,
                                           text=var + signed_offset(offset)) if var else
                              ir.Subscript("invariant", text=str(offset))
                              for offset, var in zip(offsets, loopvars, strict=True))
                self.level.array(name, "", datatype, tuple(offsets), tuple(loopvars), reads,
                                 writes, kinds, self.line)
                return
        offsets, loopvars, simple = [], [], []
        kinds_: list[ir.Subscript] = []
        for sub in subs:
            offset, var = classify(sub, active)
            offsets.append(offset)
            loopvars.append(var)
            kinds_.append(self._subscript_kind(sub, active))
            # a name, or a whole number however written (z[2], z[3-1]): a component
            simple.append(isinstance(sub, c_ast.ID) or (
                isinstance(sub, c_ast.Constant) and isinstance(constant_value(sub), int))
                or (not var and is_whole_number(kinds_[-1].text)))
        component = ""
        if any(loopvars):
            component = ",".join(str(off) for off, var, plain in zip(offsets, loopvars, simple,
                                                                           strict=True)
                                 if not var and plain)
        self.level.array(name, component, datatype, tuple(offsets), tuple(loopvars), reads,
                         writes, tuple(kinds_), self.line)

    def _subscript_kind(self, sub: c_ast.Node, active: tuple[str, ...]) -> ir.Subscript:
        """What one subscript is, for idiom recognition (see :mod:`sat.frontend.kinds`);
        an index variable set from loop variables was replaced by its value already."""
        if isinstance(sub, c_ast.ID):
            if sub.name in active:
                return ir.Subscript("induction", sub.name, text=sub.name)
            return ir.Subscript("invariant", text=sub.name)
        if isinstance(sub, c_ast.Constant):
            return ir.Subscript("invariant", text=sub.value)
        parts: list[Part] = []
        self._subscript_parts(sub, active, parts)
        value: object = to_affine(sub)
        if value is None:
            try:
                value = to_sympy(sub)
            except (NotAffine, TypeError, ValueError, ZeroDivisionError):
                value = None
        return decide(value, parts, active, c_text(sub).replace(" ", ""))

    def _subscript_parts(self, node: c_ast.Node, active: tuple[str, ...],
                         parts: list[Part]) -> None:
        """The index arrays, function results and dereferences inside a subscript."""
        if isinstance(node, c_ast.ArrayRef):
            base, _subs = flatten_ref(node)
            used = mentioned(c_text(node), active)
            if isinstance(base, c_ast.ID) and self.lookup(base.name).is_array:
                parts.append(Part("array", base.name, used))
            elif isinstance(base, c_ast.StructRef):
                parts.append(Part("array", _compact_member(base), used))
            else:
                parts.append(Part("pointer", c_text(base), used))
            return
        if isinstance(node, c_ast.FuncCall):
            parts.append(Part("call", c_text(node.name), mentioned(c_text(node), active)))
            return
        if isinstance(node, c_ast.UnaryOp) and node.op == "*":
            parts.append(Part("pointer", c_text(node.expr), mentioned(c_text(node), active)))
            return
        for _name, child in node.children():
            self._subscript_parts(child, active, parts)

    def _delinearise(self, name: str, sub: c_ast.Node, active: tuple[str, ...],
                     node: c_ast.Node) -> tuple[list, list[str]] | None:
        """Offsets and loop variables of a linearised index split into dimensions, or None.

        What the split assumes (a row length that is not a product of names, an origin left
        out of the offsets) and why an index cannot be split are said once per array: a C
        port of a Fortran code has hundreds of ``a[IDX(j,k)]`` that all say the same.
        """
        if isinstance(sub, (c_ast.ID, c_ast.Constant)) or not active:
            return None
        if to_affine(sub) is not None:  # one variable at most, times a number: not linearised
            return None
        import sympy

        try:
            index, origin = index_parts(sub, active)
        except (NotAffine, TypeError, ValueError, ZeroDivisionError):
            return None
        names = {s.name for s in index.free_symbols}
        present = [v for v in active if v in names]
        if not present:
            return None
        coefficients = []
        for var in present:
            coefficient = sympy.expand(sympy.diff(index, sympy.Symbol(var)))
            coefficients.append(coefficient)
        if all(c == 1 for c in coefficients) and len(present) == 1:
            return None  # a plain i + c
        if all(c.is_number for c in coefficients) and len(present) == 1:
            return None  # a strided access (2*i): one dimension
        result = delinearise(index, list(active), origin)
        if isinstance(result, str):
            self.warn_once(("unsplit", name),
                           f"linearised index '{c_text(sub)}' of '{name}' cannot be split into "
                           f"dimensions ({result}): treated as a one-dimensional access", node)
            return None
        if result.assumed or any(result.origin):
            self.warn_once(("split", name), split_note(name, result), node)
        sym = self.lookup(name) if name.isidentifier() else None
        if sym is not None and sym.dims in (["*"], None) and name not in self.derived_shapes:
            self.derived_shapes[name] = shape_of(result.extents)
        elif sym is not None and sym.dims is not None and len(sym.dims) == 1 \
                and name not in self.derived_shapes:
            # a one-dimensional array read through an index function: its rows are as long
            # as the index makes them (the rows' starts in their lines depend on it)
            extents = declared_extents(sym.dims[0], result)
            if extents is not None:
                self.derived_shapes[name] = shape_of(extents)
        return result.offsets, result.loopvars

    def _deref(self, node: c_ast.UnaryOp, reads: int, writes: int) -> str:
        """``*p`` and ``*(p + e)`` are ``p[0]`` and ``p[e]``; other forms are not modelled."""
        terms = _additive_terms(node.expr, "+")
        pointers = [(sign, term) for sign, term in terms if sign == "+"
                    and isinstance(term, c_ast.ID) and self.lookup(term.name).is_array]
        if len(pointers) != 1:
            self.warn(f"pointer dereference '{c_text(node)}' not understood: counted as a read "
                      "of its operands", node)
            self.expr(node.expr)
            return "real"
        base = pointers[0][1]
        index: c_ast.Node | None = None
        for sign, term in terms:
            if term is base:
                continue
            if index is None:
                index = term if sign == "+" else c_ast.UnaryOp("-", term, term.coord)
            else:
                index = c_ast.BinaryOp(sign, index, term, term.coord)
        if index is None:
            index = c_ast.Constant("int", "0", base.coord)
        return self._array_ref(c_ast.ArrayRef(base, index, node.coord), reads, writes)

    def _member(self, node: c_ast.StructRef, reads: int, writes: int) -> str:
        """``s.x`` / ``p->x``: a scalar named by its path, of the type the structures declare
        for ``x`` (assumed double when they do not say or disagree); ``p[i].x``, a member
        of an element of an array of structures, an access to that element."""
        declared = self.unit.types.members.get(node.field.name)
        base, datatype = ("real", "double") if declared is None or declared.dims \
            or declared.base not in ("int", "real", "complex", "bool") \
            else (declared.base, declared.datatype)
        element = self._struct_element(node)
        if element is not None:
            self._element_access(*element, reads, writes)
            return base
        self._member_bases(node)
        sym = CSymbol(_compact_member(node), base, datatype)
        if reads:
            self._scalar(sym, False)
        if writes:
            self._scalar(sym, True)
        return base

    def _struct_element(self, node: c_ast.Node
                        ) -> tuple[CSymbol, c_ast.ArrayRef, list[c_ast.Node]] | None:
        """``p[i].x``, ``p[i].a.b``, ``p[i].v[k]``: the array of structures ``p`` (its
        size known), the reference to its element, and the subscripts read inside the
        element; None when the member is reached through a pointer (``->``, a pointer
        member) or the array's elements are not structures of a known size."""
        inner, inside = node, []
        while True:
            if isinstance(inner, c_ast.StructRef):
                if inner.type != ".":
                    return None
                inner = inner.name
                continue
            if not isinstance(inner, c_ast.ArrayRef):
                return None
            base, subs = flatten_ref(inner)
            if isinstance(base, c_ast.ID):
                sym = self.lookup(base.name)
                if inner is node or not sym.is_array or not sym.datatype.startswith("struct*"):
                    return None
                return sym, inner, inside
            declared = self.unit.types.members.get(base.field.name) \
                if isinstance(base, c_ast.StructRef) else None
            if declared is None or "*" in declared.dims:
                return None  # a pointer member: its data lie outside the element
            inside += subs
            inner = base

    def _element_access(self, sym: CSymbol, ref: c_ast.ArrayRef, inside: list[c_ast.Node],
                        reads: int, writes: int) -> None:
        """An access to one element of an array of structures (the whole structure)."""
        for sub in inside:
            self.expr(sub)
        _base, subs = flatten_ref(ref)
        subs = [inline_calls(sub, self.unit.index_functions) for sub in subs]
        for sub in subs:
            self.expr(sub)
        self._record(sym.name, sym.datatype, subs, len(sym.dims or ()), reads, writes, ref)

    def _member_bases(self, node: c_ast.StructRef) -> None:
        """Subscripts inside a member path (``s[i].x``) are read."""
        inner = node.name
        while True:
            if isinstance(inner, c_ast.ArrayRef):
                _base, subs = flatten_ref(inner)
                for sub in subs:
                    self.expr(sub)
                inner = _base
            elif isinstance(inner, c_ast.StructRef):
                inner = inner.name
            else:
                break
        if isinstance(inner, c_ast.ID):
            self.lookup(inner.name)  # records a file-scope struct as used


def _compact_member(node: c_ast.StructRef) -> str:
    return c_text(node).replace(" ", "")


def _additive_terms(node: c_ast.Node, sign: str) -> list[tuple[str, c_ast.Node]]:
    """``a + i - 1`` -> ``[("+", a), ("+", i), ("-", 1)]``."""
    if isinstance(node, c_ast.BinaryOp) and node.op in ("+", "-"):
        right_sign = sign if node.op == "+" else ("-" if sign == "+" else "+")
        return _additive_terms(node.left, sign) + _additive_terms(node.right, right_sign)
    return [(sign, node)]
