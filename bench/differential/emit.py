"""Print a nest as the Fortran or C source satreport reads, and as the C truth program.

The truth program runs the same loops (compiled by gcc) and, beside every array reference
of the source, calls the tracer: it writes the access in valgrind lackey's format (the input
of ``bench/validation/cachesim.c``), marks the element in a shadow array (distinct elements
touched and written), and beside every statement adds the statement's operations to the
counters of their kind.
"""

from __future__ import annotations

from nests import (
    TYPES,
    Assign,
    BArr,
    Bin,
    BMin,
    Call,
    Const,
    Fn,
    If,
    Ind,
    Lin,
    Loop,
    Nest,
    Ref,
    index_reads,
    refs_of,
    statement_flops,
    walk,
)

KIND_INDEX = {"adds": 0, "multiplies": 1, "divides": 2, "specials": 3}


def _lin_text(terms: list[tuple[str, int]], const: int) -> str:
    parts = []
    for name, coef in terms:
        parts.append(name if coef == 1 else f"{coef} * {name}")
    text = " + ".join(parts)
    if not parts:
        return str(const)
    if const > 0:
        return f"{text} + {const}"
    if const < 0:
        return f"{text} - {-const}"
    return text


class Printer:
    """Expressions, references and bounds in one language; ``written`` prints the forms of
    the text the nest's classes ask for (:mod:`forms`), as the source satreport reads."""

    def __init__(self, nest: Nest, lang: str, written: bool = False):
        self.nest = nest
        self.lang = lang
        self.fortran = lang == "fortran"
        self.written = written
        forms = nest.classes if written else set()
        # arrays whose element a function of the subscripts finds (C): one-dimensional
        self.flat = {a.name for a in nest.arrays if len(a.extents) > 1} \
            if "index-function" in forms else set()
        self.spelled = "constant-subscript" in forms
        # a statement function's dummy argument for each reference its expression reads
        self.arguments: dict[Ref, str] = {}

    # -- indices
    def index(self, ix) -> str:
        if isinstance(ix, Ind):
            return _lin_text([(self.ref(ix.ref), 1)], ix.off) if ix.off else self.ref(ix.ref)
        terms = []
        if ix.var:
            terms.append((ix.var, ix.scale))
        if ix.var2:
            terms.append((ix.var2, 1))
        const = ix.off
        if self.fortran:  # 1-based: every loop variable runs one above its C position
            const += 1 - sum(c for _, c in terms)
        return _lin_text(terms, const)

    def ref(self, r: Ref, ranges: dict | None = None) -> str:
        if r in self.arguments:
            return self.arguments[r]
        idx = []
        for ix in r.idx:
            if ranges and isinstance(ix, Lin) and ix.var in ranges:
                lo, hi = ranges[ix.var]
                idx.append(f"{lo + ix.off}:{hi + ix.off}")
            elif self.spelled and r.array.name.startswith("z_") and isinstance(ix, Lin) \
                    and ix.var is None:
                # a plane written as an expression: 2 as (3 - 1)
                idx.append(f"({int(self.index(ix)) + 1} - 1)")
            else:
                idx.append(self.index(ix))
        if self.fortran:
            return f"{r.array.name}({', '.join(idx)})"
        if r.array.name in self.flat:
            return f"{r.array.name}[ix_{r.array.name}({', '.join(reversed(idx))})]"
        return r.array.name + "".join(f"[{i}]" for i in reversed(idx))

    def const(self, c: Const, etype: str) -> str:
        v = c.value
        if etype in ("i4", "i8"):
            return str(int(v))
        if self.fortran:
            return f"{v!r}d0" if etype in ("r8", "c8") else f"{v!r}"
        return f"{v!r}f" if etype == "r4" else repr(v)

    def expr(self, e, etype: str, ranges: dict | None = None, whole: bool = False) -> str:
        if isinstance(e, Ref):
            return e.array.name if whole else self.ref(e, ranges)
        if isinstance(e, Const):
            return self.const(e, etype)
        if isinstance(e, Bin):
            return (f"({self.expr(e.a, etype, ranges, whole)} {e.op} "
                    f"{self.expr(e.b, etype, ranges, whole)})")
        if isinstance(e, Fn):
            name = e.name
            if not self.fortran and etype == "r4":
                name += "f"
            return f"{name}({self.expr(e.a, etype, ranges, whole)})"
        raise TypeError(e)

    # -- bounds
    def is_symbol(self, name: str) -> bool:
        return name in self.nest.symbols

    def position(self, b) -> str:
        """A bound as a position (Fortran: 1-based)."""
        if isinstance(b, BArr):
            return _lin_text([(self.ref(b.ref), 1)], b.off)
        if isinstance(b, BMin):
            return f"{'min' if self.fortran else 'MIN'}({self.position(b.a)}, " \
                   f"{self.position(b.b)})"
        const = b.const
        if self.fortran:
            const += 1 - sum(c for n, c in b.terms if not self.is_symbol(n))
        return _lin_text(list(b.terms), const)

    def last(self, b) -> str:
        """An exclusive end as the last position (Fortran's inclusive upper bound)."""
        if isinstance(b, BMin):
            return f"min({self.last(b.a)}, {self.last(b.b)})"
        if isinstance(b, BArr):
            return _lin_text([(self.ref(b.ref), 1)], b.off - 1)
        return self.position(b.plus(-1))


def _fortran_loop_head(p: Printer, loop: Loop) -> str:
    step = loop.step
    if loop.descending:
        step_text = f", -{step}" if step != 1 else ", -1"
        return f"do {loop.var} = {p.last(loop.hi)}, {p.position(loop.lo)}{step_text}"
    step_text = f", {step}" if step != 1 else ""
    return f"do {loop.var} = {p.position(loop.lo)}, {p.last(loop.hi)}{step_text}"


def _c_loop_head(p: Printer, loop: Loop) -> str:
    v = loop.var
    if loop.descending:
        dec = f"{v} -= {loop.step}" if loop.step != 1 else f"{v}--"
        return f"for (int {v} = {p.position(_minus_one(loop.hi))}; {v} >= " \
               f"{p.position(loop.lo)}; {dec})"
    inc = f"{v} += {loop.step}" if loop.step != 1 else f"{v}++"
    return f"for (int {v} = {p.position(loop.lo)}; {v} < {p.position(loop.hi)}; {inc})"


def _minus_one(b):
    if isinstance(b, BMin):
        return BMin(_minus_one(b.a), _minus_one(b.b))
    if isinstance(b, BArr):
        return BArr(b.ref, b.off - 1, b.param, b.value)
    return b.plus(-1)


def _assign_text(p: Printer, s: Assign, ranges: dict | None = None, whole: bool = False
                 ) -> str:
    etype = s.lhs.array.etype
    lhs = s.lhs.array.name if whole else p.ref(s.lhs, ranges)
    rhs = p.expr(s.rhs, etype, ranges, whole)
    if s.acc:
        rhs = f"{lhs} + {rhs}"
    return f"{lhs} = {rhs}" + ("" if p.fortran else ";")


def _section_ranges(p: Printer, loop: Loop) -> dict:
    lo = int(p.position(loop.lo))
    hi = int(p.last(loop.hi))
    return {loop.var: (lo, hi)}


def _function_use(p: Printer, s: Assign) -> str:
    """``s`` with its expression a call of its statement function (:func:`statement_functions`)."""
    lhs = p.ref(s.lhs)
    call = f"sf{s.sid}({', '.join(p.ref(r) for r in _top_refs(s.rhs))})"
    return f"{lhs} = {lhs} + {call}" if s.acc else f"{lhs} = {call}"


def _top_refs(expr) -> list[Ref]:
    """The distinct array references of an expression, outside subscripts, in order."""
    return list(dict.fromkeys(r for r in refs_of(expr) if r not in
                              {x for y in refs_of(expr) for x in index_reads(y)}))


def statement_functions(p: Printer, body: list) -> list[str]:
    """The declarations and statement functions of a body's statements, one per statement:
    ``sf3(sa3_1, sa3_2) = (sa3_1 + (0.5d0 * sa3_2))``, the references as arguments."""
    declarations, functions = [], []
    for item, outer in walk(body):
        if not isinstance(item, Assign) or any(lp.form != "loop" for lp in outer):
            continue  # a reduction's statement is printed as the intrinsic
        refs = _top_refs(item.rhs)
        if not refs:
            continue  # a statement function of no arguments: fparser does not read it
        names = [f"sa{item.sid}_{n}" for n in range(1, len(refs) + 1)]
        etype = item.lhs.array.etype
        declarations.append(f"{TYPES[etype][2]} :: sf{item.sid}")
        declarations += [f"{TYPES[r.array.etype][2]} :: {name}"
                         for r, name in zip(refs, names, strict=True)]
        p.arguments = dict(zip(refs, names, strict=True))
        try:
            functions.append(f"sf{item.sid}({', '.join(names)}) = {p.expr(item.rhs, etype)}")
        finally:
            p.arguments = {}
    return declarations + functions


def source_body(p: Printer, body: list, indent: int) -> list[str]:
    pad = "  " * indent if p.fortran else "    " * indent
    out = []
    for item in body:
        if isinstance(item, Assign):
            functions = p.written and p.fortran and "statement-function" in p.nest.classes \
                and _top_refs(item.rhs)
            out.append(pad + (_function_use(p, item) if functions else _assign_text(p, item)))
        elif isinstance(item, Call):
            args = ", ".join(p.nest.symbols)
            out.append(pad + (f"call {item.name}({args})" if p.fortran
                              else f"{item.name}({args});"))
        elif isinstance(item, If):
            cond = f"{p.ref(item.cond)} > 0"
            if p.fortran:
                out.append(f"{pad}if ({cond}) then")
                out += source_body(p, item.then, indent + 1)
                if item.els:
                    out.append(f"{pad}else")
                    out += source_body(p, item.els, indent + 1)
                out.append(f"{pad}end if")
            else:
                out.append(f"{pad}if ({cond}) {{")
                out += source_body(p, item.then, indent + 1)
                if item.els:
                    out.append(f"{pad}}} else {{")
                    out += source_body(p, item.els, indent + 1)
                out.append(f"{pad}}}")
        elif isinstance(item, Loop):
            if p.fortran and item.form in ("dot_product", "sum"):  # dot(1) = sum(p * q)
                s = item.body[0]
                left, right = (r.array.name for r in refs_of(s.rhs))
                args = f"{left}, {right}" if item.form == "dot_product" else f"{left} * {right}"
                out.append(f"{pad}{p.ref(s.lhs)} = {item.form}({args})")
            elif p.fortran and item.form == "whole":
                inner = item
                while isinstance(inner, Loop):
                    inner = inner.body[0]
                out.append(pad + _assign_text(p, inner, whole=True))
            elif p.fortran and item.form == "section":
                out.append(pad + _assign_text(p, item.body[0], _section_ranges(p, item)))
            elif p.fortran:
                out.append(pad + _fortran_loop_head(p, item))
                out += source_body(p, item.body, indent + 1)
                out.append(f"{pad}end do")
            else:
                out.append(f"{pad}{_c_loop_head(p, item)} {{")
                out += source_body(p, item.body, indent + 1)
                out.append(f"{pad}}}")
    return out


def _loop_vars(nest: Nest) -> list[str]:
    names = []
    for proc in nest.procedures:
        for item, _ in walk(proc.body):
            if isinstance(item, Loop) and item.var not in names:
                names.append(item.var)
    return names


def fortran_source(nest: Nest) -> str:
    p = Printer(nest, "fortran", written=True)
    lines = [f"module m_{nest.ident}", "  implicit none"]
    for a in nest.arrays:
        lines.append(f"  {TYPES[a.etype][2]} :: {a.name}({', '.join(map(str, a.extents))})")
    lines.append("contains")
    symbols = list(nest.symbols)
    for proc in nest.procedures:
        lines.append(f"  subroutine {proc.name}({', '.join(symbols)})")
        for s in symbols:
            lines.append(f"    integer, intent(in) :: {s}")
        used = [v for v in _loop_vars(nest)]
        if "statement-function" in nest.classes:
            # declared after the statement functions, as codes including headers of them do
            lines += [f"    {line}" for line in statement_functions(p, proc.body)]
        if used:
            lines.append(f"    integer :: {', '.join(used)}")
        lines += source_body(p, proc.body, 2)
        lines.append(f"  end subroutine {proc.name}")
    lines.append(f"end module m_{nest.ident}")
    return "\n".join(part for line in lines for part in _continued(line)) + "\n"


def _continued(line: str, width: int = 100) -> list[str]:
    """A long Fortran line cut at spaces into continuation lines."""
    out = []
    while len(line) > width:
        cut = line.rfind(" ", 0, width - 2)
        out.append(line[:cut] + " &")
        line = "      & " + line[cut + 1:]
    return [*out, line]


def c_source(nest: Nest) -> str:
    p = Printer(nest, "c", written=True)
    lines = ["#define MIN(a, b) ((a) < (b) ? (a) : (b))", ""]
    if any(isinstance(i, Fn) for i in _exprs(nest)):
        lines.insert(0, "#include <math.h>")
    for a in nest.arrays:
        if a.name in p.flat:
            lines.append(f"{TYPES[a.etype][1]} {a.name}[{a.elements}];")
            lines.append(_index_function(a))
            continue
        lines.append(f"{TYPES[a.etype][1]} {a.name}"
                     + "".join(f"[{e}]" for e in reversed(a.extents)) + ";")
    params = ", ".join(f"int {s}" for s in nest.symbols) or "void"
    for proc in reversed(nest.procedures):  # callees first
        lines += ["", f"void {proc.name}({params})", "{"]
        lines += source_body(p, proc.body, 1)
        lines.append("}")
    return "\n".join(lines) + "\n"


def _index_function(a) -> str:
    """``static inline int ix_a(int i2, int i1, int i0) { return (i2*E1 + i1)*E0 + i0; }``:
    the position of an element of ``a`` (C order: the last subscript contiguous)."""
    rank = len(a.extents)
    names = [f"i{d}" for d in reversed(range(rank))]
    text = names[0]
    for d in reversed(range(rank - 1)):
        text = f"({text}) * {a.extents[d]} + i{d}"
    return f"static inline int ix_{a.name}({', '.join(f'int {n}' for n in names)}) " \
           f"{{ return {text}; }}"


def _exprs(nest: Nest):
    stack = []
    for proc in nest.procedures:
        for item, _ in walk(proc.body):
            if isinstance(item, Assign):
                stack.append(item.rhs)
    while stack:
        e = stack.pop()
        yield e
        if isinstance(e, Bin):
            stack += [e.a, e.b]
        elif isinstance(e, Fn):
            stack.append(e.a)


def source(nest: Nest) -> str:
    return fortran_source(nest) if nest.lang == "fortran" else c_source(nest)


def suffix(nest: Nest) -> str:
    return ".f90" if nest.lang == "fortran" else ".c"


# ---------------------------------------------------------------- the truth program

TRUTH_PRELUDE = r"""
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
typedef struct { double re, im; } cplx;
#define MIN(a, b) ((a) < (b) ? (a) : (b))
static char outbuf[1 << 16];
static size_t outlen;
static int tracing = 1;
static long double flop_count[4];
static double touched_bytes, written_bytes;
static void out_flush(void) { fwrite(outbuf, 1, outlen, stdout); outlen = 0; }
static void tr(int store, const void *p, unsigned size, unsigned char *shadow, size_t offset)
{
    shadow[offset / size] |= store ? 2 : 1;
    if (!tracing) return;
    if (outlen > sizeof outbuf - 40) out_flush();
    static const char hex[] = "0123456789abcdef";
    char tmp[20]; int n = 0;
    unsigned long a = (unsigned long)p;
    do { tmp[n++] = hex[a & 15]; a >>= 4; } while (a);
    outbuf[outlen++] = ' '; outbuf[outlen++] = store ? 'S' : 'L'; outbuf[outlen++] = ' ';
    while (n) outbuf[outlen++] = tmp[--n];
    outlen += (size_t)sprintf(outbuf + outlen, ",%u\n", size);
}
static void count_shadow(unsigned char *shadow, size_t n, unsigned size)
{
    for (size_t i = 0; i < n; i++) {
        if (shadow[i]) touched_bytes += size;
        if (shadow[i] & 2) written_bytes += size;
    }
    memset(shadow, 0, n);
}
#define FLUSH_BYTES (5u << 19)
static unsigned char flush_area[FLUSH_BYTES] __attribute__((aligned(64)));
static void flush_trace(void)
{
    for (size_t i = 0; i < FLUSH_BYTES; i += 64) {
        if (outlen > sizeof outbuf - 40) out_flush();
        outlen += (size_t)sprintf(outbuf + outlen, " L %lx,1\n",
                                  (unsigned long)(flush_area + i));
    }
    out_flush();
}
"""


class TruthPrinter:
    """The truth program's text for one nest: the loops of the C source with the tracer."""

    def __init__(self, nest: Nest):
        self.nest = nest
        self.p = Printer(nest, "c")
        self.procs = {proc.name: proc for proc in nest.procedures}
        self.statement_loop: dict[int, int] = {}  # statement -> its innermost loop
        self.statement_flops: dict[int, dict[str, int]] = {}
        self.branch_loop: dict[int, int] = {}

    def access(self, r: Ref, store: bool) -> list[str]:
        out = [self.access(x, False)[0] for x in refs_of(r)[:-1]]
        text = self.p.ref(r)
        out.append(f"tr({int(store)}, &{text}, sizeof {text}, sh_{r.array.name}, "
                   f"(size_t)((char *)&{text} - (char *){r.array.name}));")
        return out

    def body(self, items: list, loops: tuple[int, ...], reset: bool, indent: int) -> list[str]:
        pad = "    " * indent
        out = []
        for item in items:
            if isinstance(item, Assign):
                lines = []
                for r in refs_of(item.rhs):
                    lines.append(self.access(r, False)[-1])
                if item.acc:
                    lines += self.access(item.lhs, False)
                else:
                    lines += self.access(item.lhs, False)[:-1]
                lines.append(self.access(item.lhs, True)[-1])
                counts = statement_flops(item)
                self.statement_flops[item.sid] = counts
                self.statement_loop[item.sid] = loops[-1] if loops else 0
                for kind, n in counts.items():
                    if n:
                        lines.append(f"flop_count[{KIND_INDEX[kind]}] += {n};")
                lines.append(f"sc[{item.sid}]++;")
                out += [pad + line for line in lines]
            elif isinstance(item, Call):
                out += self.body(self.procs[item.name].body, loops, False, indent)
            elif isinstance(item, If):
                out += [pad + line for line in self.access(item.cond, False)]
                out.append(f"{pad}if ({self.p.ref(item.cond)} > 0) {{")
                out.append(f"{pad}    bc[{item.sid}]++;")
                self.branch_loop[item.sid] = loops[-1] if loops else 0
                out += self.body(item.then, loops, False, indent + 1)
                if item.els:
                    out.append(f"{pad}}} else {{")
                    out += self.body(item.els, loops, False, indent + 1)
                out.append(f"{pad}}}")
            elif isinstance(item, Loop):
                head = _c_loop_head(self.p, item)
                for bound in (item.lo, item.hi):
                    if isinstance(bound, BArr):  # the row bounds are read too
                        out += [pad + line for line in self.access(bound.ref, False)]
                out.append(f"{pad}{head} {{")
                out.append(f"{pad}    lc[{item.lid}]++;")
                if reset:
                    out.append(f"{pad}    reset_{self.nest.ident}();")
                out += self.body(item.body, (*loops, item.lid), False, indent + 1)
                out.append(f"{pad}}}")
        return out

    def text(self, number: int) -> str:
        nest = self.nest
        ident = nest.ident
        lines = [f"/* {ident} */"]
        for a in nest.arrays:
            ctype = TYPES[a.etype][1] or "cplx"
            dims = "".join(f"[{e}]" for e in reversed(a.extents))
            lines.append(f"static {ctype} {a.name}{dims} __attribute__((aligned(64)));")
            lines.append(f"static unsigned char sh_{a.name}[{a.elements}];")
            if a.values is not None:
                lines.append(f"static const int init_{a.name}[] = {{"
                             + ",".join(map(str, a.values)) + "};")
        for name, value in nest.symbols.items():
            lines.append(f"static const int {name} = {value};")
        lines.append(f"static void reset_{ident}(void) {{")
        for a in nest.arrays:
            lines.append(f"    count_shadow(sh_{a.name}, {a.elements}, sizeof *sh_{a.name} "
                         f"* {a.size});")
        lines.append("}")
        entry = nest.procedures[0].body
        # compulsory per pass of a time loop around a call or several nests (satreport's
        # passes of a time loop): each step starts afresh; a time loop around one nest written
        # in place is that nest's own repetition, whose steps touch the same elements again
        timed = len(entry) == 1 and isinstance(entry[0], Loop) and entry[0].var == "t" and (
            any(isinstance(item, Call) for item in entry[0].body)
            or sum(isinstance(item, Loop) for item in entry[0].body) > 1)
        lines.append(f"static void run_{ident}(long *sc, long *lc, long *bc) {{")
        for a in nest.arrays:
            if a.values is not None:
                lines.append(f"    memcpy({a.name}, init_{a.name}, sizeof init_{a.name});")
        lines += self.body(entry, (), timed, 1)
        lines.append(f"    reset_{ident}();")
        lines.append("}")
        return "\n".join(lines) + "\n"


def truth_program(nests: list[Nest]) -> tuple[str, list[TruthPrinter]]:
    """One C file for a batch: ``prog K`` runs nest K, its trace on stdout, counts on stderr."""
    printers = [TruthPrinter(n) for n in nests]
    parts = [TRUTH_PRELUDE]
    for k, printer in enumerate(printers):
        parts.append(printer.text(k))
    sizes = []
    for printer in printers:
        sids = max([0, *(s.sid for pr in printer.nest.procedures for s, _ in walk(pr.body)
                         if isinstance(s, (Assign, If)))])
        lids = max([0, *(s.lid for pr in printer.nest.procedures for s, _ in walk(pr.body)
                         if isinstance(s, Loop))])
        sizes.append((sids + 1, lids + 1))
    cases = "\n".join(f"    case {k}: run_{pr.nest.ident}(sc, lc, bc); nsc = {s}; nlc = {lc}; "
                      "break;" for k, (pr, (s, lc)) in enumerate(zip(printers, sizes,
                                                                       strict=True)))
    parts.append(f"""
int main(int argc, char **argv)
{{
    static long sc[4096], lc[4096], bc[4096];
    int nsc = 0, nlc = 0;
    if (argc > 2) tracing = 0;
    switch (atoi(argv[1])) {{
{cases}
    default: return 2;
    }}
    if (tracing) flush_trace();
    fprintf(stderr, "flops %.0Lf %.0Lf %.0Lf %.0Lf\\n", flop_count[0], flop_count[1],
            flop_count[2], flop_count[3]);
    fprintf(stderr, "compulsory %.0f %.0f\\n", touched_bytes, written_bytes);
    fprintf(stderr, "sc");
    for (int i = 0; i < nsc; i++) fprintf(stderr, " %ld", sc[i]);
    fprintf(stderr, "\\nbc");
    for (int i = 0; i < nsc; i++) fprintf(stderr, " %ld", bc[i]);
    fprintf(stderr, "\\nlc");
    for (int i = 0; i < nlc; i++) fprintf(stderr, " %ld", lc[i]);
    fprintf(stderr, "\\n");
    return 0;
}}
""")
    return "".join(parts), printers
