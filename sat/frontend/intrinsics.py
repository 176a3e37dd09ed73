"""What each Fortran intrinsic costs in floating-point operations: the one table that decides it.

Rules (documented choices; ExaSAT's reference data only shows that ``exp``/``log``/``sqrt`` are
specials and that ``a - b`` is one add):

- transcendental and root functions (``sqrt exp log log10 sin cos tan asin acos atan atan2
  sinh cosh tanh …``) are one *special* each;
- ``min``/``max`` of *n* arguments are *n - 1* adds (a floating-point compare-and-select runs on
  the adder, like a subtraction);
- ``abs`` and ``sign`` cost nothing: they only touch the sign bit (a logical mask, not a flop);
- ``mod``/``modulo`` are ``a - int(a/p)*p``: one divide, one multiply, one add; ``dim`` is one
  add; ``dprod`` one multiply;
- type conversions (``real dble int nint floor …``), inquiry functions (``size lbound kind
  present …``) and data movement (``merge reshape transpose …``) cost nothing;
- array reductions (``sum product maxval minval dot_product norm2``) of whole declared arrays
  (``sum(a*b)``, ``dot_product(a, b)``) are a loop over the elements, counted per element
  (:data:`ELEMENT_REDUCTIONS`); any other (``matmul``, a ``dim`` or ``mask`` argument, an
  array of unknown extent) is not counted: the front end warns.

A cost is charged only when the operation is floating-point (some argument is real or complex);
``max(i, j)`` on integers is index arithmetic and free.

Complex arithmetic is counted as the real arithmetic that carries it out, with ``z = a + bi``
and ``w = c + di`` (:func:`arithmetic`, :func:`power`, and the complex-argument table):

- ``z ± w`` is ``(a ± c) + (b ± d)i``: 2 adds; ``z ± x`` with ``x`` real (or integer) touches the
  real part only: 1 add.
- ``z * w`` is ``(ac - bd) + (ad + bc)i``: 4 multiplies, 2 adds; ``z * x``: 2 multiplies.
- ``z / w`` in the textbook form ``((ac + bd) + (bc - ad)i) / (c² + d²)``: 6 multiplies (``ac bd
  bc ad c² d²``), 3 adds and 2 divides (compilers may scale first, as Smith's algorithm does, or
  multiply by ``1/(c² + d²)``; the textbook form is the one the source asks for). ``z / x`` is
  ``a/x + (b/x)i``: 2 divides. ``x / w`` is the textbook form with ``b = 0``: ``(xc - xd i) /
  (c² + d²)``, 4 multiplies, 1 add, 2 divides.
- a comparison ``z == w`` compares both parts: 2 adds (a comparison of reals is one add).
- ``z**n`` with a constant integer ``n >= 2`` is ``n - 1`` complex multiplies (``4(n - 1)``
  multiplies, ``2(n - 1)`` adds); ``z**(-n)`` is ``n - 1`` complex multiplies and the reciprocal
  ``1/w = (c - di)/(c² + d²)``: 2 multiplies, 1 add, 2 divides. Any other power with a complex
  operand is ``exp(w * log(z))``, costed by the rules here (``x**w`` with ``x`` real takes the
  real ``log``, one special).
- ``abs(z) = sqrt(a² + b²)``: 2 multiplies, 1 add, 1 special; ``conjg``/``dconjg`` flip a sign
  and are free, like ``real``, ``dble``, ``aimag``/``dimag`` and ``cmplx``/``dcmplx`` (moves
  between real and complex registers).
- ``exp(z) = e^a (cos b + i sin b)``: 3 specials, 2 multiplies.
- ``log(z) = log(a² + b²)/2 + i atan2(b, a)``: 2 specials, 3 multiplies, 1 add.
- ``sqrt(z)``: ``t = sqrt((|z| + |a|)/2)``, the other part ``b/(2t)``: ``|z|`` (2 multiplies, 1
  add, 1 special), 1 add, 2 multiplies, 1 special and 1 divide: 2 specials, 4 multiplies, 2 adds,
  1 divide.
- ``sin(z) = sin a cosh b + i cos a sinh b`` (and ``cos``, ``sinh``, ``cosh`` alike): 4
  specials, 2 multiplies; ``tan(z) = (sin 2a + i sinh 2b)/(cos 2a + cosh 2b)`` (and ``tanh``):
  4 specials, 2 multiplies (the doublings), 1 add, 2 divides. Any other special of a complex
  argument is two specials, one per part.

The same rules apply to the double-precision forms every compiler accepts (``dcmplx dconjg dimag
cdabs zabs cdexp zexp …``, in :data:`INTRINSICS` like the standard ones) and to C's
``_Complex`` types and ``<complex.h>`` (``cabs creal cimag conj carg cexp clog csqrt cpow csin
…``).
"""

from __future__ import annotations

from dataclasses import dataclass

#: Flops of one operation: ``(adds, multiplies, divides, specials)``.
Flops = tuple[int, int, int, int]
NO_FLOPS: Flops = (0, 0, 0, 0)
#: Expression kinds (as the front ends name them) that are floating-point.
FLOATING = frozenset(("real", "complex"))


@dataclass(frozen=True)
class Intrinsic:
    """Cost and result type of one intrinsic function.

    ``result`` is ``"arg"`` (the type of the first argument), ``"real"``, ``"complex"``,
    ``"int"``, ``"bool"`` or ``"char"``. ``extra_arg_adds`` adds one add per argument beyond the
    first (``min``/``max``).
    ``reduction`` marks array reductions whose element count is unknown.
    """

    adds: int = 0
    multiplies: int = 0
    divides: int = 0
    specials: int = 0
    result: str = "arg"
    extra_arg_adds: bool = False
    reduction: bool = False


_SPECIAL = Intrinsic(specials=1, result="real")
_FREE_ARG = Intrinsic()
_TO_REAL = Intrinsic(result="real")
_TO_COMPLEX = Intrinsic(result="complex")
_TO_INT = Intrinsic(result="int")
_TO_BOOL = Intrinsic(result="bool")
_TO_CHAR = Intrinsic(result="char")
_MINMAX = Intrinsic(extra_arg_adds=True)
_MOD = Intrinsic(adds=1, multiplies=1, divides=1)
_REDUCTION = Intrinsic(reduction=True)
_INT_REDUCTION = Intrinsic(result="int", reduction=True)

_SPECIAL_NAMES = """
sqrt dsqrt csqrt cdsqrt zsqrt exp dexp cexp cdexp zexp log alog dlog clog cdlog zlog
log10 alog10 dlog10 sin dsin csin cdsin zsin cos dcos ccos cdcos zcos
tan dtan asin dasin acos dacos atan datan atan2 datan2
sinh dsinh cosh dcosh tanh dtanh asinh acosh atanh erf erfc erfc_scaled gamma log_gamma
bessel_j0 bessel_j1 bessel_jn bessel_y0 bessel_y1 bessel_yn hypot
""".split()

INTRINSICS: dict[str, Intrinsic] = {name: _SPECIAL for name in _SPECIAL_NAMES}
INTRINSICS.update({name: _MINMAX for name in
                   "min max amin0 amin1 dmin1 min0 min1 amax0 amax1 dmax1 max0 max1".split()})
INTRINSICS.update({name: _FREE_ARG for name in
                   "abs dabs cabs cdabs zabs iabs sign dsign isign aint anint dint dnint "
                   "conjg dconjg "
                   "huge tiny epsilon merge reshape transpose spread pack unpack cshift eoshift "
                   "transfer nearest spacing rrspacing fraction set_exponent scale".split()})
INTRINSICS.update({name: _TO_REAL for name in
                   "real dble float sngl dfloat aimag dimag imag realpart imagpart".split()})
INTRINSICS.update({name: _TO_COMPLEX for name in "cmplx dcmplx".split()})
INTRINSICS.update({name: _TO_INT for name in
                   "int nint idint idnint ifix floor ceiling size shape lbound ubound len len_trim "
                   "kind selected_real_kind selected_int_kind precision digits range radix "
                   "minexponent maxexponent exponent ichar iachar index scan verify iand ior ieor "
                   "not ishft ishftc ibits ibset ibclr count maxloc minloc findloc storage_size "
                   "leadz trailz popcnt popcnt".split()})
INTRINSICS.update({name: _TO_BOOL for name in
                   "present allocated associated btest all any lge lgt lle llt "
                   "is_contiguous same_type_as extends_type_of".split()})
INTRINSICS.update({name: _TO_CHAR for name in
                   "char achar trim adjustl adjustr repeat new_line".split()})
INTRINSICS.update({"mod": _MOD, "amod": _MOD, "dmod": _MOD, "modulo": _MOD,
                   "dim": Intrinsic(adds=1), "ddim": Intrinsic(adds=1), "idim": Intrinsic(adds=1),
                   "dprod": Intrinsic(multiplies=1, result="real")})
INTRINSICS.update({name: _REDUCTION for name in
                   "sum product maxval minval dot_product matmul norm2".split()})
INTRINSICS.update({name: _INT_REDUCTION for name in ("iall", "iany", "iparity")})

#: Reductions of whole arrays counted as a loop over the elements when the extents are known:
#: (arguments, flops per element, flops once). ``sum`` one add per element, ``product`` one
#: multiply, ``maxval``/``minval`` one compare (an add), ``dot_product`` a multiply and an
#: add, ``norm2`` a multiply and an add per element and one square root.
ELEMENT_REDUCTIONS: dict[str, tuple[int, Flops, Flops]] = {
    "sum": (1, (1, 0, 0, 0), NO_FLOPS),
    "product": (1, (0, 1, 0, 0), NO_FLOPS),
    "maxval": (1, (1, 0, 0, 0), NO_FLOPS),
    "minval": (1, (1, 0, 0, 0), NO_FLOPS),
    "dot_product": (2, (1, 1, 0, 0), NO_FLOPS),
    "norm2": (1, (1, 1, 0, 0), (0, 0, 0, 1)),
}

#: Intrinsic subroutines: calling them is neither a user call nor work to count.
INTRINSIC_SUBROUTINES = frozenset(
    "random_number random_seed cpu_time system_clock date_and_time get_command "
    "get_command_argument get_environment_variable execute_command_line move_alloc mvbits "
    "exit abort flush sleep".split())

#: Transformational intrinsics: their array arguments are whole arrays, not elements of an
#: enclosing array-syntax statement.
TRANSFORMATIONAL = frozenset(
    "sum product maxval minval dot_product matmul norm2 maxloc minloc findloc count all any "
    "size shape lbound ubound reshape transpose spread pack unpack cshift eoshift".split())


# Costs when the argument is complex (the rules in the module docstring). A special function
# missing here costs two specials on a complex argument, one per part (see :func:`lookup`).
_COMPLEX_ABS = Intrinsic(adds=1, multiplies=2, specials=1, result="real")
_COMPLEX_EXP = Intrinsic(multiplies=2, specials=3, result="complex")
_COMPLEX_LOG = Intrinsic(adds=1, multiplies=3, specials=2, result="complex")
_COMPLEX_SQRT = Intrinsic(adds=2, multiplies=4, divides=1, specials=2, result="complex")
_COMPLEX_TRIG = Intrinsic(multiplies=2, specials=4, result="complex")
_COMPLEX_TAN = Intrinsic(adds=1, multiplies=2, divides=2, specials=4, result="complex")
_COMPLEX_OTHER = Intrinsic(specials=2, result="complex")
_COMPLEX_ARG: dict[str, Intrinsic] = {}
_COMPLEX_ARG.update({name: _COMPLEX_ABS for name in "abs cabs cdabs zabs".split()})
_COMPLEX_ARG.update({name: _COMPLEX_EXP for name in "exp cexp cdexp zexp".split()})
_COMPLEX_ARG.update({name: _COMPLEX_LOG for name in "log clog cdlog zlog".split()})
_COMPLEX_ARG.update({name: _COMPLEX_SQRT for name in "sqrt csqrt cdsqrt zsqrt".split()})
_COMPLEX_ARG.update({name: _COMPLEX_TRIG for name in
                     "sin csin cdsin zsin cos ccos cdcos zcos sinh csinh cosh ccosh".split()})
_COMPLEX_ARG.update({name: _COMPLEX_TAN for name in "tan ctan tanh ctanh".split()})
_COMPLEX_ARG.update({name: Intrinsic() for name in "conjg dconjg conj cproj".split()})
_COMPLEX_ARG["carg"] = Intrinsic(specials=1, result="real")  # atan2(b, a)
_COMPLEX_ARG.update({name: _COMPLEX_OTHER for name in
                     "casin cacos catan casinh cacosh catanh".split()})


def lookup(name: str, complex_arg: bool = False) -> Intrinsic | None:
    """The cost entry of an intrinsic (lower-case name), or ``None`` if it is not one we know.

    With ``complex_arg`` (an argument is complex) the complex cost applies: from the complex
    table, else two specials for a special function (one per part), else the real entry
    (conversions and sign flips are free either way).
    """
    entry = INTRINSICS.get(name)
    if not complex_arg:
        return entry
    found = _COMPLEX_ARG.get(name)
    if found is not None:
        return found
    if entry is not None and entry.specials:
        return Intrinsic(specials=2 * entry.specials, result="complex")
    return entry


def flops(entry: Intrinsic, nargs: int) -> Flops:
    """Flops of one floating-point call of ``entry`` with ``nargs`` arguments."""
    adds = entry.adds + (max(nargs - 1, 0) if entry.extra_arg_adds else 0)
    return adds, entry.multiplies, entry.divides, entry.specials


def cost(name: str, nargs: int, complex_arg: bool = False) -> Flops:
    """Flops ``(adds, multiplies, divides, specials)`` of one floating-point call."""
    return flops(lookup(name, complex_arg) or _FREE_ARG, nargs)


def arithmetic(op: str, left: str, right: str) -> Flops:
    """Flops of ``left op right`` for ``op`` in ``+ - * /`` on operands of these kinds.

    Nothing unless an operand is floating-point; complex operands follow the module docstring.
    """
    if left not in FLOATING and right not in FLOATING:
        return NO_FLOPS
    both = left == right == "complex"
    if op in ("+", "-"):
        return (2 if both else 1), 0, 0, 0
    if op == "*":
        if both:
            return 2, 4, 0, 0
        return (0, 2, 0, 0) if "complex" in (left, right) else (0, 1, 0, 0)
    if op == "/":
        if both:
            return 3, 6, 2, 0
        if left == "complex":
            return 0, 0, 2, 0
        return (1, 4, 2, 0) if right == "complex" else (0, 0, 1, 0)
    raise ValueError(f"not an arithmetic operator: {op!r}")


def comparison(left: str, right: str) -> Flops:
    """Flops of comparing operands of these kinds: one add per real part compared."""
    if "complex" in (left, right):
        return 2, 0, 0, 0
    return (1, 0, 0, 0) if left in FLOATING or right in FLOATING else NO_FLOPS


def _sum(*parts: Flops) -> Flops:
    return tuple(sum(values) for values in zip(*parts, strict=True))  # type: ignore[return-value]


def _times(count: int, part: Flops) -> Flops:
    return tuple(count * value for value in part)  # type: ignore[return-value]


def power(base: str, exponent: str, value: int | float | None) -> Flops:
    """Flops of ``base ** exponent``; ``value`` is the exponent's constant value, if known.

    A real base: ``x**n`` is ``n - 1`` multiplies (``n >= 2``), ``x**0`` and ``x**1`` are free,
    ``x**(-n)`` one divide and ``n - 1`` multiplies, any other exponent one special. A complex
    base or exponent follows the module docstring.
    """
    if base not in FLOATING and exponent not in FLOATING:
        return NO_FLOPS
    if isinstance(value, float) and value.is_integer() and abs(value) <= 64:
        value = int(value)
    integral = isinstance(value, int) and not isinstance(value, bool) and exponent != "complex"
    if base != "complex" and exponent != "complex":
        if not integral:
            return 0, 0, 0, 1
        if value >= 2:
            return 0, value - 1, 0, 0
        return (0, -value - 1, 1, 0) if value <= -1 else NO_FLOPS
    if base == "complex" and integral:
        multiplies = _times(abs(value) - 1, arithmetic("*", "complex", "complex")) \
            if value else NO_FLOPS
        if value <= -1:  # the reciprocal 1/w = (c - di)/(c² + d²)
            return _sum(multiplies, (1, 2, 2, 0))
        return multiplies
    # exp(w * log(z)): log of the base, a multiply by the exponent, a complex exp
    log = cost("log", 1, complex_arg=base == "complex")
    scaled = arithmetic("*", exponent, "complex" if base == "complex" else "real")
    return _sum(log, scaled, cost("exp", 1, complex_arg=True))


def is_comm_call(name: str) -> bool:
    """Calls that are communication points (MPI, ghost-cell fills), recorded as comms."""
    return name.startswith("mpi_") or "fill_boundary" in name or name.startswith("shmem_")


# C math library (<math.h>, abs from <stdlib.h>): the same rules under C names. ``f``/``l``
# suffixed forms cost what the double form costs. ``pow`` is one special here; the C front end
# applies the constant-exponent rule of Fortran's ``**`` first (``pow(x, 2)`` is one multiply).
# ``fma`` is one add and one multiply; ``fmod``/``remainder`` cost like ``mod``; ``fdim`` like
# ``dim``. Existing (Fortran) entries of the same name are kept.
_C_SPECIAL_NAMES = """
sqrt cbrt exp exp2 expm1 log log10 log2 log1p sin cos tan asin acos atan atan2 sinh cosh tanh
asinh acosh atanh erf erfc tgamma lgamma hypot pow""".split()
_C_FREE_NAMES = """
fabs ceil floor trunc round rint nearbyint copysign ldexp scalbn frexp modf lround lrint ilogb
logb nextafter""".split()


def _c_forms(names: list[str]) -> list[str]:
    return [name + suffix for name in names for suffix in ("", "f", "l")]


_C_ENTRIES: dict[str, Intrinsic] = {}
_C_ENTRIES.update({name: _SPECIAL for name in _c_forms(_C_SPECIAL_NAMES)})
_C_ENTRIES.update({name: _FREE_ARG for name in _c_forms(_C_FREE_NAMES) + ["labs", "llabs"]})
_C_ENTRIES.update({name: _MINMAX for name in _c_forms(["fmin", "fmax"])})
_C_ENTRIES.update({name: _MOD for name in _c_forms(["fmod", "remainder"])})
_C_ENTRIES.update({name: Intrinsic(adds=1) for name in _c_forms(["fdim"])})
_C_ENTRIES.update({name: Intrinsic(adds=1, multiplies=1) for name in _c_forms(["fma"])})
for _name, _entry in _C_ENTRIES.items():
    INTRINSICS.setdefault(_name, _entry)

# <complex.h>: functions whose arguments are always complex (C converts a real argument).
# ``cpow`` follows :func:`power`; the others cost what the complex table says.
_C_COMPLEX_NAMES = """
cabs creal cimag conj carg cproj cexp clog csqrt cpow csin ccos ctan csinh ccosh ctanh casin
cacos catan casinh cacosh catanh""".split()
for _name in _c_forms(["creal", "cimag"]):
    _COMPLEX_ARG[_name] = _TO_REAL
for _name in _C_COMPLEX_NAMES:
    for _suffix in ("f", "l"):
        _COMPLEX_ARG.setdefault(_name + _suffix, _COMPLEX_ARG.get(_name, _TO_COMPLEX))
#: <complex.h> functions: the C front end charges their complex-argument cost.
C_COMPLEX = frozenset(_c_forms(_C_COMPLEX_NAMES))

#: Names the C front end treats as library math functions (unless the program defines them).
C_MATH = frozenset([*_C_ENTRIES, *C_COMPLEX, "abs"])
