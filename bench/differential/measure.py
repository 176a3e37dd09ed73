"""The truth of a batch of nests by execution, and satreport's prediction of the same nests.

Truth: the batch's truth program (:func:`emit.truth_program`) is compiled once; ``prog K``
runs nest K from a cold cache, writing its address trace, which ``cachesim.c`` replays
through fully associative LRU write-back caches of ``CAPACITIES`` (then a flush of 2.5 MiB
writes every dirty line back; its own reads are subtracted), and prints the operations by
kind, the distinct bytes touched and written, and how often each statement, branch and loop
body ran.

Prediction: one satreport process for the whole batch (every nest's source on one command
line, a machine file with the simulated capacities, the branches' measured fractions as
``--conds``); a batch that fails is run again nest by nest, so a crash names its nest.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

import emit
from nests import Assign, BArr, If, Loop, Nest, walk

HERE = Path(__file__).resolve().parent
VALIDATION = HERE.parent / "validation"
LINE = 64
# the three simulated capacities, bytes: L1 too small for any reuse beyond a line's
# neighbours, L2 in between, L3 holding every nest's data
CAPACITIES = {"L1": 512, "L2": 16 * 1024, "L3": 2 * 1024 * 1024}
FLUSH_LINES = (5 << 19) // LINE
CFLAGS = ["-O1", "-w"]
KINDS = ("adds", "multiplies", "divides", "specials")


@dataclass
class Truth:
    flops: dict[str, int]
    per_iteration: dict[str, float]  # satreport's definition: each level once, by fraction
    compulsory: float  # bytes: distinct elements touched + distinct elements written
    levels: dict[str, float]  # bytes moved across each level's boundary
    fractions: dict[int, float] = field(default_factory=dict)  # branch -> fraction taken
    # kinds of flop a statement whose loop never ran holds: no count per iteration to check
    unmeasured: frozenset[str] = frozenset()


@dataclass
class Prediction:
    flops_total: float = 0.0
    weighted: float = 0.0
    per_iteration: dict[str, float] = field(default_factory=dict)
    compulsory: float = 0.0
    levels: dict[str, float] = field(default_factory=dict)
    rows: int = 0
    violations: list[str] = field(default_factory=list)  # the JSON's bounds_violations


class HarnessError(Exception):
    """A step of the harness itself failed (not satreport)."""


def simulator(workdir: Path) -> Path:
    exe = workdir / "cachesim"
    if not exe.exists():
        done = subprocess.run(["gcc", "-O2", "-o", str(exe), str(VALIDATION / "cachesim.c")],
                              capture_output=True, text=True)
        if done.returncode:
            raise HarnessError(done.stderr)
    return exe


def machine_file(workdir: Path) -> Path:
    """Kerncraft-style machine file with three levels of the simulated capacities."""
    path = workdir / "three-level.yml"
    if path.exists():
        return path
    text = (VALIDATION / "two-level.yml").read_text()
    head, rest = text.split("memory hierarchy:\n", 1)
    levels, tail = rest.split("- level: MEM", 1)
    l1 = levels.split("- level: L2")[0]

    def level(name: str, size: int, ways: int) -> str:
        block = l1.replace("- level: L1", f"- level: {name}")
        block = re.sub(r"sets: \d+", f"sets: {size // (LINE * ways)}", block)
        block = re.sub(r"ways: \d+", f"ways: {ways}", block)
        block = re.sub(r"size per group: .*", f"size per group: {size / 1024:.2f} kB", block)
        nxt = {"L1": "L2", "L2": "L3", "L3": None}[name]
        if nxt:
            block = re.sub(r"load_from: \w+", f"load_from: {nxt}", block)
            block = re.sub(r"store_to: \w+", f"store_to: {nxt}", block)
        else:
            block = re.sub(r"\n\s+load_from: \w+", "", block)
            block = re.sub(r"\n\s+store_to: \w+", "", block)
        if name != "L1":
            block = block.replace("[architecture code analyzer, ['7', '8', '9']]",
                                  "[32 B/cy, half-duplex]")
        return block

    body = "".join(level(n, s, 8 if n == "L1" else 16) for n, s in CAPACITIES.items())
    path.write_text(head + "memory hierarchy:\n" + body + "- level: MEM" + tail)
    return path


def compile_truth(nests: list[Nest], workdir: Path) -> tuple[Path, list]:
    text, printers = emit.truth_program(nests)
    src = workdir / "truth.c"
    src.write_text(text)
    exe = workdir / "truth"
    done = subprocess.run(["gcc", *CFLAGS, "-o", str(exe), str(src)], capture_output=True,
                          text=True)
    if done.returncode:
        raise HarnessError(f"truth program: {done.stderr[-2000:]}")
    return exe, printers


def _configs() -> list[str]:
    c = CAPACITIES
    return [f"{c['L1']}:0:{c['L2']}:0", f"{c['L2']}:0:{c['L3']}:0"]


def run_truth(exe: Path, sim: Path, k: int, printer) -> Truth:
    prog = subprocess.Popen([str(exe), str(k)], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE)
    cache = subprocess.run([str(sim), *_configs()], stdin=prog.stdout, capture_output=True,
                           text=True)
    prog.stdout.close()
    err = prog.stderr.read().decode()
    if prog.wait() or cache.returncode:
        raise HarnessError(f"truth run {k}: {err[-500:]} {cache.stderr[-500:]}")
    fields = {line.split()[0]: line.split()[1:] for line in err.splitlines() if line.strip()}
    flops = dict(zip(KINDS, (int(x) for x in fields["flops"]), strict=True))
    touched, written = (float(x) for x in fields["compulsory"])
    sc = [int(x) for x in fields["sc"]]
    bc = [int(x) for x in fields["bc"]]
    lc = [int(x) for x in fields["lc"]]
    counts = {}
    for line in cache.stdout.splitlines():
        config, *values = line.split()
        counts[config] = [int(v) for v in values]
    a, b = (counts[c] for c in _configs())
    levels = {"L1": LINE * (a[0] + a[1] - FLUSH_LINES + a[2]),
              "L2": LINE * (a[3] + a[4] - FLUSH_LINES + a[5]),
              "L3": LINE * (b[3] + b[4] - FLUSH_LINES + b[5])}
    per_iteration = dict.fromkeys(KINDS, 0.0)
    unmeasured: set[str] = set()
    for sid, loop in printer.statement_loop.items():
        runs = lc[loop] if loop else 1
        if not runs:
            unmeasured.update(kind for kind, n in printer.statement_flops[sid].items() if n)
            continue
        for kind, n in printer.statement_flops[sid].items():
            per_iteration[kind] += n * sc[sid] / runs
    fractions = {}
    for sid, loop in printer.branch_loop.items():
        runs = lc[loop] if loop else 1
        fractions[sid] = bc[sid] / runs if runs else 0.0
    return Truth(flops, per_iteration, touched + written, levels, fractions,
                 frozenset(unmeasured))


# ---------------------------------------------------------------- satreport


def condition_texts(nest: Nest, branch: If, callee: str = "") -> list[str]:
    """The branch's condition as satreport may render it (spacing and case vary; inside a
    called procedure satreport renames the loop variables ``var__callee``), in the source's
    own text too (an element found by an index function: ``w[ix_w(k, j, i)] > 0``)."""
    forms = set()
    for written in (False, True):
        ref = emit.Printer(nest, nest.lang, written).ref(branch.cond)
        forms |= {f"{ref} > 0", f"({ref}) > 0", f"{ref}>0", ref.replace(" ", "") + " > 0",
                  ref.replace(" ", "") + ">0"}
    if callee:
        forms |= {re.sub(r"\b([a-z]{1,2})\b(?![_(\[])", rf"\1__{callee.lower()}", f)
                  for f in forms}
    return sorted(forms | {f.lower() for f in forms})


def sets_for(nest: Nest) -> list[str]:
    """--set values: run-time sizes, and a CSR row's bounds (satreport names them after the
    index array and the loop variable, renamed ``var__callee`` inside a called procedure)."""
    out = [f"{name}={value}" for name, value in nest.symbols.items()]
    for number, proc in enumerate(nest.procedures):
        for item, _ in walk(proc.body):
            if isinstance(item, Loop):
                for bound in (item.lo, item.hi):
                    if isinstance(bound, BArr):
                        name = bound.param
                        if number:
                            base = f"{bound.ref.array.name}_r"
                            name = f"{base}__{proc.name.lower()}{name[len(base):]}"
                        out.append(f"{name}={bound.value}")
    return out


def write_conds(nests: list[Nest], workdir: Path, truths: dict[str, Truth]) -> Path:
    """The branches' measured fractions as ExaSAT's conds.xml, and how each gather's
    indices run as the generator draws them (``<gather>`` entries)."""
    conds = ['<conds>']
    for nest in nests:
        truth = truths.get(nest.ident)
        for number, proc in enumerate(nest.procedures):
            for item, _ in walk(proc.body):
                if isinstance(item, If) and truth is not None:
                    p = truth.fractions.get(item.sid, 0.5)
                    for text in condition_texts(nest, item, proc.name if number else ""):
                        conds.append(f'<prop key="{_xml(text)}" val="{p!r}" />')
        for array, runs in nest.index_runs.items():  # the index values are data: told
            if runs:
                attributes = " ".join(f'{k}="{_xml(v)}"' for k, v in runs.items())
                conds.append(f'<gather array="{_xml(array)}" {attributes} />')
    conds.append('</conds>')
    path = workdir / f"conds-{nests[0].ident}.xml"
    path.write_text("\n".join(conds) + "\n")
    return path


def satreport_command(nests: list[Nest], sources: list[Path], workdir: Path,
                      truths: dict[str, Truth], satreport: str,
                      dropped: frozenset[str] = frozenset()) -> list[str]:
    # SetupIterations=1: every nest is modelled, however short
    command = [satreport, *map(str, sources), "--machine", str(machine_file(workdir)),
               "--json", "-", "-q", "-j", "1", "--conds", str(write_conds(nests, workdir, truths)),
               "--set", "Cores=1", "--set", "SetupIterations=1"]
    for nest in nests:
        for item in sets_for(nest):
            if item.split("=")[0] not in dropped:
                command += ["--set", item]
    return command


def _xml(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace('"', "&quot;")


def predictions(data: dict, nests: list[Nest]) -> dict[str, Prediction]:
    out = {n.ident: Prediction() for n in nests}
    entry = {n.entry.lower(): n.ident for n in nests}
    for loop in data.get("loops", []):
        ident = entry.get(str(loop.get("procedure", "")).lower())
        if ident is None:
            continue
        p = out[ident]
        p.rows += 1
        p.flops_total += float(loop["gflops"]) * 1e9
        p.weighted += float(loop["weighted_gflops"]) * 1e9
        for kind in KINDS:
            p.per_iteration[kind] = p.per_iteration.get(kind, 0.0) + float(loop[kind])
        p.compulsory += float(loop["traffic_blocks_gb"]) * 1e9
        for level in loop.get("levels", []):
            name = str(level["level"])
            p.levels[name] = p.levels.get(name, 0.0) + float(level["traffic_gb"]) * 1e9
    for violation in data.get("bounds_violations", []):
        ident = entry.get(str(violation.get("procedure", "")).lower())
        if ident is not None:
            out[ident].violations.append(str(violation.get("message", violation)))
    return out


def run_satreport(command: list[str], timeout: float = 600) -> tuple[int, dict, str]:
    env = dict(os.environ, PYTHONHASHSEED="0")
    done = subprocess.run(command, capture_output=True, text=True, timeout=timeout, env=env)
    data = {}
    if done.returncode == 0:
        try:
            data = json.loads(done.stdout)
        except json.JSONDecodeError:
            return 3, {}, "satreport printed no JSON"
    return done.returncode, data, done.stderr.strip()


@dataclass
class Outcome:
    nest: Nest
    truth: Truth | None = None
    prediction: Prediction | None = None
    crash: str = ""  # satreport's exit status and last stderr line when it failed


# satreport runs of several sources that stopped with an internal error (exit 3): (the
# nests of the run, the message); the nests are then modelled in smaller runs
COMBINED_CRASHES: list[tuple[list[str], str]] = []
_UNKNOWN_SET = re.compile(r"--set '?([\w()]+)'?: no such parameter")
_FILE_ERROR = re.compile(r"/(n\d{5})\.(?:c|f90)\b")


def predict(nests: list[Nest], sources: dict[str, Path], workdir: Path,
            truths: dict[str, Truth], satreport: str, outcomes: dict[str, Outcome]) -> None:
    """satreport on the nests, in one process when it can; a nest that fails it alone is
    set aside with the error, and a problem size satreport does not know is left out."""
    dropped: set[str] = set()
    while nests:
        command = satreport_command(nests, [sources[n.ident] for n in nests], workdir,
                                    truths, satreport, frozenset(dropped))
        status, data, err = run_satreport(command)
        if status == 0:
            found = predictions(data, nests)
            for nest in nests:
                outcomes[nest.ident].prediction = found[nest.ident]
                if not found[nest.ident].rows:
                    outcomes[nest.ident].crash = "not modelled: " + "; ".join(
                        str(u.get("reason", u)) for u in data.get("unmodelled", [])
                        if nest.ident in json.dumps(u))[:300]
            return
        last = err.splitlines()[-1] if err else f"exit {status}"
        unknown = _UNKNOWN_SET.search(last)
        if unknown and unknown.group(1) not in dropped:
            dropped.add(unknown.group(1))
            continue
        culprit = _FILE_ERROR.search(last)
        if len(nests) == 1 or culprit:
            ident = culprit.group(1) if culprit else nests[0].ident
            if ident in outcomes and any(n.ident == ident for n in nests):
                outcomes[ident].crash = f"exit {status}: {last[:300]}"
                nests = [n for n in nests if n.ident != ident]
                continue
        if len(nests) == 1:
            outcomes[nests[0].ident].crash = f"exit {status}: {last[:300]}"
            return
        if status == 3:
            COMBINED_CRASHES.append(([n.ident for n in nests], last[:300]))
        half = len(nests) // 2  # an internal error names no file: halve the batch
        predict(nests[:half], sources, workdir, truths, satreport, outcomes)
        predict(nests[half:], sources, workdir, truths, satreport, outcomes)
        return


def measure_batch(nests: list[Nest], workdir: Path, satreport: str) -> list[Outcome]:
    """Truth and prediction of every nest of the batch."""
    workdir.mkdir(parents=True, exist_ok=True)
    sim = simulator(workdir.parent)
    exe, printers = compile_truth(nests, workdir)
    outcomes = {n.ident: Outcome(n) for n in nests}
    for k, printer in enumerate(printers):
        outcomes[printer.nest.ident].truth = run_truth(exe, sim, k, printer)
    truths = {ident: o.truth for ident, o in outcomes.items()}
    sources = {}
    for nest in nests:
        path = workdir / f"{nest.ident}{emit.suffix(nest)}"
        path.write_text(emit.source(nest))
        sources[nest.ident] = path
    predict(list(nests), sources, workdir, truths, satreport, outcomes)
    return [outcomes[n.ident] for n in nests]


def temporary_workdir() -> Path:
    return Path(tempfile.mkdtemp(prefix="satdiff-"))


__all__ = ["Assign", "HarnessError", "Outcome", "measure_batch", "temporary_workdir"]
