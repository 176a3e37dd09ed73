"""The house's rule: imports flow one way, from the command line down to the code description.

Every import of every module of ``sat`` (those inside functions too) is read from the source.
A module may import its own room (folder) and the rooms of lower layers, never a room above it
or beside it, and no chain of imports between modules comes back to where it started.
ARCHITECTURE.md draws the same layers.
"""

from __future__ import annotations

import ast
from pathlib import Path

SAT = Path(__file__).resolve().parent.parent / "sat"

# Lowest first; rooms on one line form one layer and do not import each other.
LAYERS = (
    ("sat.quoting", "sat.regex"),
    ("sat", "sat.ir", "sat.parameter", "sat.safeyaml", "sat.safexml", "sat.outputs",
     "sat.resources", "sat.progress", "sat.collector"),
    ("sat.aspen",),
    ("sat.machine", "sat.xmlio"),
    ("sat.frontend", "sat.parameters"),
    ("sat.model",),
    ("sat.explore", "sat.report"),
    ("sat.pipeline",),
    ("sat.cli",),
    ("sat.__main__",),
)
LAYER_OF = {room: level for level, rooms in enumerate(LAYERS) for room in rooms}


def module_name(path: Path) -> str:
    parts = path.relative_to(SAT.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def room(module: str) -> str:
    """The room of a module: its folder under ``sat`` (``sat.model``), or itself at the top."""
    parts = module.split(".")
    return ".".join(parts[:2]) if len(parts) > 1 else module


def imports() -> dict[str, set[str]]:
    """Module -> the ``sat`` modules it imports (names resolved to modules where they are)."""
    modules = {module_name(path): path for path in SAT.rglob("*.py")}
    found: dict[str, set[str]] = {}
    for name, path in modules.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        targets = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                targets.update(alias.name for alias in node.names)
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    base = ".".join(package.split(".")[:len(package.split(".")) - node.level + 1]
                                    + ([base] if base else []))
                for alias in node.names:  # ``from sat.model import expr`` imports a module
                    full = f"{base}.{alias.name}"
                    targets.add(full if full in modules else base)
        found[name] = {t for t in targets if t == "sat" or t.startswith("sat.")}
    return found


def test_every_room_has_a_layer():
    rooms = {room(module) for module in imports()}
    assert sorted(rooms - set(LAYER_OF)) == []


def test_no_import_runs_up_or_across():
    wrong = []
    for module, targets in imports().items():
        for target in targets:
            here, there = room(module), room(target)
            if here == there or there == "sat":
                continue
            if LAYER_OF[there] >= LAYER_OF[here]:
                wrong.append(f"{module} -> {target}")
    assert wrong == []


def test_no_import_cycle():
    found = imports()
    graph = {module: {t for t in targets if t in found} for module, targets in found.items()}
    for module in graph:  # a package's face imports its modules: not a way back up
        graph[module] = {t for t in graph[module] if not module.startswith(t + ".")}
    state: dict[str, int] = {}
    cycles = []

    def visit(node: str, path: list[str]) -> None:
        state[node] = 1
        for nxt in sorted(graph[node]):
            if state.get(nxt) == 1:
                cycles.append(" -> ".join(path[path.index(nxt):] + [nxt]))
            elif nxt not in state:
                visit(nxt, path + [nxt])
        state[node] = 2

    for module in sorted(graph):
        if module not in state:
            visit(module, [module])
    assert cycles == []
