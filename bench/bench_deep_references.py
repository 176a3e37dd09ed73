"""Models whose every level refers to the next twice: the time to read and model them.

Four kinds, each at 10, 20 and 40 levels: Aspen kernels that call the next kernel twice (with
an argument passed on), Aspen machine files that include the next file twice, Aspen models
that import the next two models (beyond ``MAX_IMPORTED_MODELS`` copies, a model imported again
with the same arguments is the first copy), and Fortran and C procedures that call the next
twice inside a loop.  The Aspen kernels and includes are evaluated once each, the imported
models held once per level, and the two identical Fortran or C calls of each level written
into the calling nest once and counted twice: every kind costs in proportion to the number of
levels, not to 2^levels.

    python3 bench/bench_deep_references.py [LEVELS ...]
"""

from __future__ import annotations

import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path


def aspen_kernels(depth: int, folder: Path) -> Path:
    """``k0`` calls ``k1(x)`` twice, …, ``k<depth>`` does ``x`` flops: 10 * 2^depth flops."""
    kernels = [f"  kernel k{depth}(param x) {{ execute {{ flops [x] }} }}"]
    kernels += [f"  kernel k{k}(param x) {{ call k{k + 1}(x) call k{k + 1}(x) }}"
                for k in range(depth - 1, -1, -1)]
    path = folder / "kernels.aspen"
    path.write_text("model m {\n  param n = 10\n" + "\n".join(kernels)
                    + "\n  kernel main { call k0(n) }\n}\n")
    return path


def aspen_includes(depth: int, folder: Path) -> Path:
    """``i0.aspen`` includes ``i1.aspen`` twice, …; the last defines ``leafClock = 1``."""
    for k in range(depth, -1, -1):
        (folder / f"i{k}.aspen").write_text(
            "param leafClock = 1\n" if k == depth
            else f"include i{k + 1}.aspen\ninclude i{k + 1}.aspen\n")
    return folder / "i0.aspen"


def aspen_imports(depth: int, folder: Path) -> Path:
    """Models ``a<k>`` and ``b<k>`` each import ``a<k+1>`` and ``b<k+1>``; the last level's
    main does ``n = 1`` flop: 2^depth flops."""
    for k in range(depth, -1, -1):
        for m in "ab":
            if k == depth:
                body = (f"model {m}{k} {{\n  param n = 1\n"
                        "  kernel main { execute { flops [n] } }\n}\n")
            else:
                nxt = k + 1
                body = (f"model {m}{k} {{\n  import a{nxt} from \"a{nxt}.aspen\"\n"
                        f"  import b{nxt} from \"b{nxt}.aspen\"\n  param n = a{nxt}.n + b{nxt}.n\n"
                        f"  kernel main {{ call a{nxt}.main() call b{nxt}.main() }}\n}}\n")
            (folder / f"{m}{k}.aspen").write_text(body)
    return folder / "a0.aspen"


def fortran_calls(depth: int, folder: Path) -> Path:
    """``p0`` calls ``p1`` twice inside a loop of 2, …; ``p<depth>`` updates ``a(i)``."""
    units = []
    for k in range(depth + 1):
        work = ("    a(i) = a(i) * 2.0d0 + 1.0d0\n" if k == depth
                else f"    call p{k + 1}(a, n)\n    call p{k + 1}(a, n)\n")
        units.append(f"subroutine p{k}(a, n)\n  integer :: n, i\n  real(8) :: a(n)\n"
                     f"  do i = 1, 2\n{work}  end do\nend subroutine p{k}\n")
    path = folder / "calls.f90"
    path.write_text("".join(units))
    return path


def c_calls(depth: int, folder: Path) -> Path:
    """The same in C."""
    units = [f"void p{depth}(double *a, int n) {{ for (int i = 0; i < 2; i++) "
             "a[i] = a[i] * 2.0 + 1.0; }\n"]
    units += [f"void p{k}(double *a, int n) {{ for (int i = 0; i < 2; i++) "
              f"{{ p{k + 1}(a, n); p{k + 1}(a, n); }} }}\n" for k in range(depth - 1, -1, -1)]
    path = folder / "calls.c"
    path.write_text("".join(units))
    return path


KINDS: dict[str, Callable[[int, Path], Path]] = {
    "Aspen kernel calls": aspen_kernels,
    "Aspen machine includes": aspen_includes,
    "Aspen imports": aspen_imports,
    "Fortran calls": fortran_calls,
    "C calls": c_calls,
}


def seconds(kind: str, depth: int) -> tuple[float, int]:
    """Wall time of one command-line run (machine includes: reading the machine), and its
    exit status."""
    from sat.aspen.model import load_machine_model
    from sat.cli import main

    with tempfile.TemporaryDirectory() as folder:
        path = KINDS[kind](depth, Path(folder))
        start = time.perf_counter()
        if kind == "Aspen machine includes":
            load_machine_model(path)
            status = 0
        else:
            status = main([str(path), "--json", str(Path(folder) / "out.json"), "-q"])
        return time.perf_counter() - start, status


def main(levels: list[int]) -> None:
    print(f"{'kind':24} " + " ".join(f"{n:>12}" for n in levels))
    for kind in KINDS:
        cells = []
        for depth in levels:
            took, status = seconds(kind, depth)
            cells.append(f"{took:8.2f} s" + (f" ({status})" if status else "    "))
        print(f"{kind:24} " + " ".join(f"{c:>12}" for c in cells), flush=True)


if __name__ == "__main__":
    main([int(a) for a in sys.argv[1:]] or [10, 20, 40])
