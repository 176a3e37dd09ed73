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
- array reductions (``sum product maxval minval dot_product matmul norm2``) are not counted: the
  number of elements is not known at this level (the front end warns).

A cost is charged only when the operation is floating-point (some argument is real or complex);
``max(i, j)`` on integers is index arithmetic and free.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Intrinsic:
    """Cost and result type of one intrinsic function.

    ``result`` is ``"arg"`` (the type of the first argument), ``"real"``, ``"int"``, ``"bool"`` or
    ``"char"``. ``extra_arg_adds`` adds one add per argument beyond the first (``min``/``max``).
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
_TO_INT = Intrinsic(result="int")
_TO_BOOL = Intrinsic(result="bool")
_TO_CHAR = Intrinsic(result="char")
_MINMAX = Intrinsic(extra_arg_adds=True)
_MOD = Intrinsic(adds=1, multiplies=1, divides=1)
_REDUCTION = Intrinsic(reduction=True)
_INT_REDUCTION = Intrinsic(result="int", reduction=True)

_SPECIAL_NAMES = """
sqrt dsqrt csqrt exp dexp cexp log alog dlog clog log10 alog10 dlog10
sin dsin csin cos dcos ccos tan dtan asin dasin acos dacos atan datan atan2 datan2
sinh dsinh cosh dcosh tanh dtanh asinh acosh atanh erf erfc erfc_scaled gamma log_gamma
bessel_j0 bessel_j1 bessel_jn bessel_y0 bessel_y1 bessel_yn hypot
""".split()

INTRINSICS: dict[str, Intrinsic] = {name: _SPECIAL for name in _SPECIAL_NAMES}
INTRINSICS.update({name: _MINMAX for name in
                   "min max amin0 amin1 dmin1 min0 min1 amax0 amax1 dmax1 max0 max1".split()})
INTRINSICS.update({name: _FREE_ARG for name in
                   "abs dabs cabs iabs sign dsign isign aint anint dint dnint conjg aimag dimag "
                   "huge tiny epsilon merge reshape transpose spread pack unpack cshift eoshift "
                   "transfer nearest spacing rrspacing fraction set_exponent scale".split()})
INTRINSICS.update({name: _TO_REAL for name in
                   "real dble float sngl dfloat cmplx dcmplx".split()})
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


def lookup(name: str) -> Intrinsic | None:
    """The cost entry of an intrinsic (lower-case name), or ``None`` if it is not one we know."""
    return INTRINSICS.get(name)


def cost(name: str, nargs: int) -> tuple[int, int, int, int]:
    """Flops ``(adds, multiplies, divides, specials)`` of one floating-point call."""
    entry = INTRINSICS.get(name, _FREE_ARG)
    adds = entry.adds + (max(nargs - 1, 0) if entry.extra_arg_adds else 0)
    return adds, entry.multiplies, entry.divides, entry.specials


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

#: Names the C front end treats as library math functions (unless the program defines them).
C_MATH = frozenset([*_C_ENTRIES, "abs"])
