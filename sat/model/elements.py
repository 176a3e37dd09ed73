"""Element sizes of arrays: one ``Bytes_`` parameter per array, an input of the model.

Every traffic, working set, footprint, message and register formula that moves an element of
an array multiplies by that array's parameter ``Bytes_<array>`` (bytes per element).  Its
default is the declared type's size in words (:func:`sat.ir.element_words`: 1 for a double,
0.5 for a float or an int, 2 for a double-precision complex) times ``WordBytes``, kept as a
derived default (:func:`sat.model.context.derive_default`): the workbook's cell holds
``=0.5*WordBytes`` until
the user types a number over it, so editing ``WordBytes`` still scales every array as in
ExaSAT, where ``WordBytes`` is the size of every (double-precision) element.

An array name that every procedure declares with one element size has one parameter,
``Bytes_<array>``; a name declared with different sizes in different procedures (a dummy
argument ``a`` that is ``real`` here and ``double precision`` there) has one per procedure,
``Bytes_<procedure>_<array>``.
"""

from __future__ import annotations

from sat.ir import Program, element_words
from sat.model import expr as E
from sat.model.context import ModelContext, derive_default
from sat.parameter import Parameter, ParameterError, check_value, symbol_to_name
from sat.parameters.registry import ELEMENT_BYTES_SPEC as SPEC

PREFIX = SPEC.name


def declared_words(program: Program) -> dict[str, set[float]]:
    """Array name (lower case) -> the element sizes (words) its declarations give, over every
    procedure: the arrays its loop levels use and the variables it declares."""
    words: dict[str, set[float]] = {}
    for procedure in program.procedures:
        for name, datatype in _declared(procedure):
            words.setdefault(name.lower(), set()).add(element_words(datatype))
    return words


def _declared(procedure) -> list[tuple[str, str]]:
    found = [(a.name, a.datatype) for body in procedure.levels() for a in body.arrays]
    found += [(v.name, v.datatype) for v in (*procedure.locals, *procedure.nonlocals)
              if v.shape and v.datatype]
    return found


def parameter_name(ctx: ModelContext, procedure: str, array: str) -> str:
    """``Bytes_<array>``, or ``Bytes_<procedure>_<array>`` when procedures disagree on its size."""
    sizes = ctx.array_words.get(array.lower(), set())
    stem = array if len(sizes) <= 1 else f"{procedure}_{array}"
    return PREFIX + symbol_to_name(stem)


def element_bytes(ctx: ModelContext, procedure: str, array: str, datatype: str) -> E.Param:
    """The parameter holding the bytes of one element of ``array`` (of ``procedure``), made on
    first use: ``--set`` gives its value, else its declared type's words x ``WordBytes``."""
    name = parameter_name(ctx, procedure, array)
    if name in ctx.params:
        return E.Param(name)
    words = element_words(datatype)
    if len(ctx.array_words.get(array.lower(), set())) > 1:
        where = f"array {array} of {procedure}"
    else:
        where = f"array {array}"
    label = f"bytes of one element of {where} ({datatype or 'double'}: {words:g} x WordBytes)"
    given = ctx.given(name)
    if given is not None:
        value, source = given
        problem = check_value(SPEC, value)
        if problem:
            raise ParameterError(f"{name} = {value:g} ({source}) {problem}")
        value = int(value) if float(value).is_integer() else value
        ctx.params.add(Parameter(name, value, "B", "arrays", label, source, "number",
                                 given=True))
        return E.Param(name)
    word = ctx.param("WordBytes")
    ctx.params.add(Parameter(name, 0, "B", "arrays", label, "default", "number"))
    derive_default(ctx.params, name, word if words == 1 else E.mul(words, word),
                   f"{words:g} x WordBytes, the size of its declared type "
                   f"({datatype or 'double'})")
    return E.Param(name)


def words_of(ctx: ModelContext, size: E.Expr) -> E.Expr:
    """An element size in words of ``WordBytes``: the factor ExaSAT's per-word costs
    (``ReadCost`` = ``ld_sf x WordBytes``) take for this array."""
    return E.div(size, ctx.param("WordBytes"))
