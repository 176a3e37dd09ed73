"""The in-core port figures of known micro-architectures, with their sources (double precision).

A machine file that names its micro-architecture but not its ports and load/store widths
(Kerncraft's files give ``FLOPs per cycle`` and port *names*, never the bytes a load moves)
takes them from here.  Keys are the names Kerncraft's files use for their in-core model
(``in-core model: OSACA: SNB``).  Per core and cycle:

- ``AddPorts``, ``MulPorts``, ``FMAPorts``: vector add/subtract, multiply and fused
  multiply-add instructions issued; ``FPPorts``: all three together (the ports they share);
- ``DivCycles``: cycles one vector divide keeps the divider busy (reciprocal throughput);
- ``VectorBytes``: the vector width compilers use on this core (gcc's default tuning);
- ``LoadsPerCycle`` × ``LoadBytes``, ``StoresPerCycle`` × ``StoreBytes``: load and store ports
  and the bytes each moves per cycle (a wider access takes several cycles of a port);
- ``AGUsPerCycle``: addresses generated per cycle for loads and stores together;
- ``IntPorts``: integer ALU ports (loop counter, compare and branch, address arithmetic);
  ``SharedIntPorts``: how many of them are also floating-point ports (the two kinds of work
  then compete for them);
- ``LoopOverheadOps``: integer instructions per iteration of gcc's (vector) loop: counter
  increment, compare and branch, a compare fused with its branch counting one (Intel's and
  AMD's cores fuse ``cmp``/``jne``; Arm's cores issue ``add``, ``cmp``, ``b.ne``);
- ``LoadAddressOps``: integer instructions a load needs for its address on top of the address
  unit (x86's base + index addressing costs none);
- ``AddLatency``: cycles of a vector floating-point add, one link of a reduction's chain;
- ``store_ports``, ``agu_ports``: the port names (as in Kerncraft's port lists) of the store
  data path and of the address units: whether a Kerncraft file lists them as non-overlapping
  decides ``StoresOverlap`` and ``AGUsOverlap``.

Sources: Intel 64 and IA-32 Architectures Optimization Reference Manual (execution ports and
L1 data-cache bandwidth of each core generation); AMD Software Optimization Guides for the
17h family (Zen, Zen 2: four FP pipes, two for add, two for multiply/FMA; 2 loads and 1 store
per cycle); Marvell/Cavium ThunderX2 (Vulcan) and Fujitsu A64FX micro-architecture manuals;
divider throughputs and add latencies from Agner Fog's instruction tables, where measured
there, else marked assumed.  ThunderX2's integer figures are the port assignment OSACA 0.7.1
reports for gcc 12's loops on that core (``bench/validation/ecm_side_by_side.py``: a load
with a register offset takes a third of each of the integer ports 0, 1, 2, as do the counter
increment and compare; the branch takes port 2; the fadd/fmla chain is 6 cycles long).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class MicroArchitecture:
    """The port figures of one micro-architecture (module docstring) and where they come from."""

    name: str
    values: dict[str, float]
    source: str
    store_ports: tuple[str, ...] = ()
    agu_ports: tuple[str, ...] = ()


_INTEL = "Intel Optimization Reference Manual"
_AGNER = "Agner Fog, Instruction tables"
TABLE: dict[str, MicroArchitecture] = {}


def _add(names: tuple[str, ...], values: dict[str, float], source: str,
         store_ports: tuple[str, ...], agu_ports: tuple[str, ...]) -> None:
    entry = MicroArchitecture(names[0], values, source, store_ports, agu_ports)
    for name in names:
        TABLE[name] = entry


_add(("SNB", "IVB"), {
    "VectorBytes": 32, "AddPorts": 1, "MulPorts": 1, "FMAPorts": 0, "FPPorts": 2,
    "DivCycles": 44, "LoadsPerCycle": 2, "LoadBytes": 16, "StoresPerCycle": 1,
    "StoreBytes": 16, "AGUsPerCycle": 2, "IntPorts": 3, "SharedIntPorts": 2,
    "LoopOverheadOps": 2, "LoadAddressOps": 0, "AddLatency": 3},
    f"{_INTEL}, Sandy Bridge: AVX add on port 1, multiply on port 0, no FMA; two 16-byte load "
    "ports (2, 3) that also generate store addresses, one 16-byte store-data port (4): a 32-byte "
    f"access takes two cycles of a port; {_AGNER}: VDIVPD ymm 44 cycles, VADDPD latency 3 "
    "(Sandy Bridge); integer ALUs on ports 0, 1 (shared with multiply and add) and 5; cmp/jne "
    "macro-fused",
    ("4",), ("2", "3"))
_add(("HSW", "BDW"), {
    "VectorBytes": 32, "AddPorts": 1, "MulPorts": 2, "FMAPorts": 2, "FPPorts": 2,
    "DivCycles": 16, "LoadsPerCycle": 2, "LoadBytes": 32, "StoresPerCycle": 1,
    "StoreBytes": 32, "AGUsPerCycle": 3, "IntPorts": 4, "SharedIntPorts": 2,
    "LoopOverheadOps": 2, "LoadAddressOps": 0, "AddLatency": 3},
    f"{_INTEL}, Haswell: FMA and multiply on ports 0 and 1, add on port 1; two 32-byte load "
    "ports (2, 3), one 32-byte store-data port (4), a third address unit for stores (7); "
    f"{_AGNER}: VDIVPD ymm 16 cycles and more, VADDPD latency 3 (Haswell, Broadwell); integer "
    "ALUs on ports 0, 1 (shared with FMA) and 5, 6; cmp/jne macro-fused",
    ("4",), ("2", "3", "7"))
_add(("SKX", "CSX"), {
    "VectorBytes": 64, "AddPorts": 2, "MulPorts": 2, "FMAPorts": 2, "FPPorts": 2,
    "DivCycles": 16, "LoadsPerCycle": 2, "LoadBytes": 64, "StoresPerCycle": 1,
    "StoreBytes": 64, "AGUsPerCycle": 3, "IntPorts": 4, "SharedIntPorts": 2,
    "LoopOverheadOps": 2, "LoadAddressOps": 0, "AddLatency": 4},
    f"{_INTEL}, Skylake Server: AVX-512 add, multiply and FMA on ports 0 (fused with 1) and 5; "
    "two 64-byte load ports (2, 3), one 64-byte store-data port (4), store addresses also on "
    f"port 7; {_AGNER}: VDIVPD zmm 16 cycles, VADDPD latency 4 (Skylake-X); integer ALUs on "
    "ports 0, 5 (shared with the vector pipes) and 1, 6; cmp/jne macro-fused",
    ("4",), ("2", "3", "7"))
_add(("ZEN1", "ZEN"), {
    "VectorBytes": 16, "AddPorts": 2, "MulPorts": 2, "FMAPorts": 2, "FPPorts": 4,
    "DivCycles": 5, "LoadsPerCycle": 2, "LoadBytes": 16, "StoresPerCycle": 1,
    "StoreBytes": 16, "AGUsPerCycle": 2, "IntPorts": 4, "SharedIntPorts": 0,
    "LoopOverheadOps": 2, "LoadAddressOps": 0, "AddLatency": 3},
    "AMD Software Optimization Guide for family 17h (Zen): four 128-bit FP pipes, add on two "
    "(FP2, FP3), multiply and FMA on two (FP0, FP1); gcc's znver1 tuning uses 128-bit vectors; "
    f"two 16-byte loads and one 16-byte store per cycle, two address units; {_AGNER}: VDIVPD "
    "xmm 4 to 5 cycles, VADDPD latency 3 (Zen); four integer ALUs apart from the FP pipes; "
    "cmp/jne fused",
    ("10",), ("8", "9"))
_add(("ZEN2",), {
    "VectorBytes": 32, "AddPorts": 2, "MulPorts": 2, "FMAPorts": 2, "FPPorts": 4,
    "DivCycles": 5, "LoadsPerCycle": 2, "LoadBytes": 32, "StoresPerCycle": 1,
    "StoreBytes": 32, "AGUsPerCycle": 3, "IntPorts": 4, "SharedIntPorts": 0,
    "LoopOverheadOps": 2, "LoadAddressOps": 0, "AddLatency": 3},
    "AMD Software Optimization Guide for family 17h models 30h (Zen 2): four 256-bit FP pipes, "
    "add on two, multiply and FMA on two; two 32-byte loads and one 32-byte store per cycle, "
    f"three address units; {_AGNER}: VDIVPD ymm 5 cycles, VADDPD latency 3 (Zen 2); four integer "
    "ALUs apart from the FP pipes; cmp/jne fused",
    ("10",), ("8", "9"))
_add(("TX2",), {
    "VectorBytes": 16, "AddPorts": 2, "MulPorts": 2, "FMAPorts": 2, "FPPorts": 2,
    "DivCycles": 16, "LoadsPerCycle": 2, "LoadBytes": 16, "StoresPerCycle": 1,
    "StoreBytes": 16, "AGUsPerCycle": 2, "IntPorts": 3, "SharedIntPorts": 2,
    "LoopOverheadOps": 3, "LoadAddressOps": 1, "AddLatency": 6},
    "Marvell ThunderX2 (Vulcan) core: two 128-bit NEON pipes (ports 0, 1) for add, multiply and "
    "FMA; two load/store ports (3, 4) with their address units, 16 bytes each, one store-data "
    "port (5); DivCycles assumed (16: not published); integer ports 0, 1 (shared with NEON) and "
    "2, a register-offset load taking one integer instruction, loop add, cmp, b.ne, FADD "
    "latency 6: OSACA 0.7.1's ThunderX2 report (module docstring)",
    ("5",), ("3", "4"))
_add(("A64FX",), {
    "VectorBytes": 64, "AddPorts": 2, "MulPorts": 2, "FMAPorts": 2, "FPPorts": 2,
    "DivCycles": 64, "LoadsPerCycle": 2, "LoadBytes": 64, "StoresPerCycle": 1,
    "StoreBytes": 64, "AGUsPerCycle": 2, "IntPorts": 2, "SharedIntPorts": 0,
    "LoopOverheadOps": 3, "LoadAddressOps": 0, "AddLatency": 9},
    "Fujitsu A64FX Microarchitecture Manual: two 512-bit SVE pipes (FLA, FLB) for add, multiply "
    "and FMA; two 64-byte loads or one 64-byte store per cycle through two address units; "
    "DivCycles assumed (64); FADD latency 9 (same manual); two integer pipes (EXA, EXB) apart "
    "from the FP pipes; loop add, cmp, b.ne; LoadAddressOps assumed 0",
    ("7",), ("5", "6"))


def lookup(name: str | None) -> MicroArchitecture | None:
    """The table's entry for a micro-architecture name (case-insensitive), else ``None``."""
    if not name:
        return None
    return TABLE.get(name.strip().upper())
