"""Reading a big Fortran program in several processes, with exactly the result of one read.

fparser's parse dominates a Fortran run and uses one core.  A *share* parses every source
whole except the executable parts of the procedures that other shares own: those lines are
blanked (emptied, so every line number stays where it was).  Declarations stay in every
share, so each procedure is analysed against the same names, types and interfaces it sees in
a single read.  The parent process reads one share itself while worker processes read the
others; the procedures and warnings are then taken from their owners in source order and
deduplicated as one read would (:func:`merge`).

Only what can be blanked safely is: free-form files that need no preprocessing, and
procedures without internal procedures whose executable part starts and ends on lines of its
own.  Any failure in any share (a syntax error, a crashed worker) falls back to one read, so
diagnostics are always those of a single read.
"""

from __future__ import annotations

import os
import pickle
import re
import subprocess
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field

from sat import ir

# Below this many lines of executable parts, starting a worker costs more than it saves.
MIN_SHARED_LINES = 1200
# A worker process first imports satreport's front end: worth about this many lines of parse.
WORKER_START_LINES = 300
MAX_SHARES = 4

_FREE_FORM = (".f90", ".f95", ".f03", ".f08")

# First words of statements that may appear in a specification part (or inside an interface
# block or a derived-type definition, which are followed separately).
_SPECIFICATION = frozenset("""
    use import implicit parameter format entry integer real double doubleprecision complex
    doublecomplex logical character type class dimension allocatable asynchronous bind
    codimension contiguous external intent intrinsic optional pointer protected save target
    value volatile common equivalence namelist data procedure enum enumerator generic final
    public private sequence include
""".split())
_FIRST_WORD = re.compile(r"\s*([a-z_]\w*)")
_HEADER = re.compile(
    r"^(?:(?:pure|impure|elemental|recursive|non_recursive|module)\s+"
    r"|(?:integer|real|complex|logical|character|double\s*precision|double\s*complex)"
    r"\s*(?:\*\s*\d+|\([^)]*\))?\s+|(?:type|class)\s*\([^)]*\)\s+)*"
    r"(subroutine|function)\s+([a-z_]\w*)")
_PROGRAM = re.compile(r"^program\s+([a-z_]\w*)")
_UNIT_END = re.compile(r"^end\s*(?:(subroutine|function|program)\b.*)?$")
_CONTAINER = re.compile(r"^(module|submodule)\b(?!\s+(?:procedure|subroutine|function)\b)")
_CONTAINER_END = re.compile(r"^end\s*(module|submodule)\b")
_INTERFACE = re.compile(r"^(?:abstract\s+)?interface\b")
_INTERFACE_END = re.compile(r"^end\s*interface\b")
_TYPE_DEFINITION = re.compile(r"^type\s*(?:,[^:]*)?(?:::)?\s*[a-z_]\w*\s*(?:\([^)]*\))?\s*$")
_TYPE_END = re.compile(r"^end\s*type\b")


@dataclass(frozen=True)
class Body:
    """The executable part of one procedure: lines ``first`` to ``last`` of ``path``."""

    path: str
    header: int  # line of the procedure's first statement: how units are matched
    first: int
    last: int

    @property
    def lines(self) -> int:
        return self.last - self.first + 1


@dataclass
class Share:
    """What one process reads: the sources with other shares' bodies blanked."""

    blank: dict[str, list[tuple[int, int]]] = field(default_factory=dict)
    owned: list[Body] = field(default_factory=list)
    load: int = 0


def eligible(path: str) -> bool:
    """Whether a file's procedures may be shared out (free form, no preprocessing)."""
    from sat.frontend.fortran.preprocess import needs_preprocessing

    return (os.path.splitext(path)[1].lower() in _FREE_FORM and not needs_preprocessing(path)
            and os.path.isfile(path))


def find_bodies(path: str, include_dirs: Sequence[str] = ()) -> list[Body]:
    """The executable parts of ``path``'s procedures that can be blanked safely."""
    from fparser.common.readfortran import FortranFileReader

    dirs = [os.path.dirname(os.path.abspath(path)), *include_dirs]
    reader = FortranFileReader(path, include_dirs=dirs, ignore_comments=True)
    top = getattr(reader, "id", path)
    bodies: list[Body] = []
    # one frame per open program unit: [header line, first executable line or 0,
    # last line ending a statement, whether it can be blanked]
    units: list[list] = []
    nested = 0  # depth of interface blocks and type definitions
    for item in reader:
        span = getattr(item, "span", None)
        text = getattr(item, "line", None)
        if span is None or text is None:
            continue
        if getattr(getattr(item, "reader", None), "id", top) != top:
            if units:  # an included file: its lines are not this file's to blank
                units[-1][3] = False
            continue
        statement = " ".join(text.lower().split())
        if nested:
            if _INTERFACE_END.match(statement) or _TYPE_END.match(statement):
                nested -= 1
            elif _INTERFACE.match(statement):
                nested += 1
            continue
        if _UNIT_END.match(statement) and units:
            header, first, last, safe = units.pop()
            if safe and first and last < span[0]:
                bodies.append(Body(path, header, first, last))
            if units:
                units[-1][2] = span[1]
            continue
        if _CONTAINER.match(statement) or _CONTAINER_END.match(statement):
            continue
        if _HEADER.match(statement) or _PROGRAM.match(statement):
            if units:  # an internal procedure: its host is read whole
                units[-1][3] = False
            units.append([span[0], 0, span[1], True])
            continue
        if not units:
            continue
        unit = units[-1]
        if statement == "contains":
            unit[3] = False
        elif _INTERFACE.match(statement) or (not unit[1] and _TYPE_DEFINITION.match(statement)):
            nested += 1
        elif not unit[1] and not _is_specification(statement):
            # a statement sharing its line with the previous one cannot be cut from it
            unit[1] = span[0]
            if span[0] <= unit[2]:
                unit[3] = False
        unit[2] = span[1]
    return bodies


def _is_specification(statement: str) -> bool:
    match = _FIRST_WORD.match(statement)
    if match is None:
        return False
    word = match.group(1)
    # "type is" and "class is" open arms of select type, which is executable
    return word in _SPECIFICATION and not re.match(r"(type|class)\s+(is|default)\b", statement)


def plan(paths: Sequence[str], include_dirs: Sequence[str], workers: int) -> list[Share] | None:
    """How to share out the reading of ``paths`` among up to ``workers`` processes.

    Bodies go to the least loaded share, biggest first; the shares started in new processes
    begin with the cost of that start.  ``None`` when one read is as fast.
    """
    if workers < 2:
        return None
    try:
        bodies = [body for path in paths if eligible(path)
                  for body in find_bodies(path, include_dirs)]
    except Exception:  # a file the reader trips on: one read reports it properly
        return None
    total = sum(body.lines for body in bodies)
    if total < MIN_SHARED_LINES:
        return None
    count = min(workers, MAX_SHARES, len(bodies))
    shares = [Share(load=0 if index == 0 else WORKER_START_LINES) for index in range(count)]
    for body in sorted(bodies, key=lambda b: -b.lines):
        chosen = min(shares, key=lambda share: share.load)
        chosen.owned.append(body)
        chosen.load += body.lines
    shares = [share for share in shares if share.owned]
    if len(shares) < 2:
        return None
    for share in shares:
        for other in shares:
            if other is not share:
                for body in other.owned:
                    share.blank.setdefault(body.path, []).append((body.first, body.last))
    return shares


# ------------------------------------------------------------------------- reading


@dataclass
class ShareResult:
    """One share's read: the warnings before analysis, and per unit its procedure and warnings."""

    parsed: int
    failed: bool
    prefix: list[ir.Diagnostic] = field(default_factory=list)
    units: list[tuple[str, int]] = field(default_factory=list)  # (file, line) of each unit
    parsed_by: list[ir.ParsedBy] = field(default_factory=list)  # which parser read each file
    procedures: list[ir.Procedure | None] = field(default_factory=list)
    unit_warnings: list[list[ir.Diagnostic]] = field(default_factory=list)


class Started:
    """Shares whose worker processes are running; the caller reads the first one itself."""

    def __init__(self, shares: list[Share], workers: list[subprocess.Popen]):
        self.shares = shares
        self.workers = workers

    def stop(self) -> None:
        _stop(self.workers)

    def finish(self, own: ShareResult) -> ShareResult | None:
        """The merged read, given the first share's; ``None`` if any share failed."""
        results = [own]
        for worker in self.workers:
            assert worker.stdout is not None
            output = worker.stdout.read()
            if worker.wait() != 0:
                _stop(self.workers)
                return None
            results.append(pickle.loads(output))
        if any(result.failed for result in results):
            return None
        return merge(results, self.shares)


def start(paths: Sequence[str], defines: Sequence[str], include_dirs: Sequence[str],
          processes: int, parser: str = "tree-sitter") -> Started | None:
    """Plan the shares and start a worker process for each but the first (``None`` when one
    read is as fast, or no process can be started).

    Each worker is a new interpreter (``python -m sat.frontend.fortran.worker``) that reads its
    task from stdin and writes its result to stdout, pickled: a fresh process rather than a
    fork, since forking a process that runs threads is unsafe, and a plain subprocess rather
    than multiprocessing, which would import the caller's main script again.  Call this before
    importing the Fortran front end: the workers' start-up then overlaps the caller's.
    """
    shares = plan(paths, include_dirs, processes)
    if shares is None:
        return None
    package_root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(
        os.path.abspath(__file__)))))
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(
        [package_root, *filter(None, [os.environ.get("PYTHONPATH")])])}
    workers: list[subprocess.Popen] = []
    for share in shares[1:]:
        try:
            worker = subprocess.Popen([sys.executable, "-m", "sat.frontend.fortran.worker"],
                                      env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                      stderr=subprocess.DEVNULL)
            assert worker.stdin is not None
            with worker.stdin:
                pickle.dump((list(paths), list(defines), list(include_dirs), share.blank,
                             parser), worker.stdin)
        except OSError:  # no new process: one read does it all
            _stop(workers)
            return None
        workers.append(worker)
    return Started(shares, workers)


def _stop(workers: list[subprocess.Popen]) -> None:
    for worker in workers:
        worker.kill()
        worker.wait()


def merge(results: list[ShareResult], shares: list[Share]) -> ShareResult | None:
    """Each unit's procedure and warnings from the share that owns it, in source order."""
    units = results[0].units
    if any(result.units != units for result in results):
        return None
    owner = {(body.path, body.header): index
             for index, share in enumerate(shares) for body in share.owned}
    if any(result.parsed_by != results[0].parsed_by for result in results):
        return None  # a file read by another parser in another share: read once instead
    merged = ShareResult(parsed=results[0].parsed, failed=False, units=units,
                         prefix=list(results[0].prefix), parsed_by=list(results[0].parsed_by))
    seen = {_key(warning) for warning in merged.prefix}
    for index, unit in enumerate(units):
        result = results[owner.get(unit, 0)]
        warnings = [w for w in result.unit_warnings[index] if _key(w) not in seen]
        seen.update(_key(w) for w in warnings)
        merged.procedures.append(result.procedures[index])
        merged.unit_warnings.append(warnings)
    return merged


def _key(warning: ir.Diagnostic) -> tuple[str, str, int]:
    return warning.message, warning.file, warning.line
