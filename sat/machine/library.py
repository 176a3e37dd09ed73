"""The built-in machines and loading a machine by name or file, whatever its format."""

from __future__ import annotations

from pathlib import Path

from sat.machine.exasat_xml import load_exasat_xml
from sat.machine.spec import Machine, MachineError
from sat.quoting import echoed
from sat.resources import machines_dir

DEFAULT_MACHINE = "exascale"


# .yml and .yaml: Kerncraft's format; .aspen: an Aspen abstract machine model
MACHINE_SUFFIXES = (".xml", ".yml", ".yaml", ".aspen")
_YAML_SUFFIXES = (".yml", ".yaml")
ASPEN_SUFFIX = ".aspen"


def builtin_path(name: str) -> Path:
    """The built-in machine file called ``name`` (``machines/<name>.xml`` if none exists)."""
    for suffix in MACHINE_SUFFIXES:
        path = machines_dir() / f"{name}{suffix}"
        if path.is_file():
            return path
    return machines_dir() / f"{name}.xml"


def _display(path: Path) -> str:
    """Built-ins are shown as ``machines/<name>.xml``, other files as given."""
    try:
        return str(Path("machines") / path.resolve().relative_to(machines_dir().resolve()))
    except ValueError:
        return str(path)


def load_machine(name_or_path: str | None, socket: str | None = None) -> Machine:
    """A built-in machine by name (``None``: the exascale node) or a machine file by path.

    ``socket`` chooses the socket type of an Aspen machine model (default: its first); it is
    an error with any other kind of machine.
    """
    if name_or_path is None:
        name_or_path = DEFAULT_MACHINE
    text = str(name_or_path)
    looks_like_path = text.lower().endswith(MACHINE_SUFFIXES) or "/" in text or "\\" in text
    if not looks_like_path and builtin_path(text).is_file():
        path = builtin_path(text)
    else:
        path = Path(text)
        if not path.is_file():
            names = ", ".join(name for name, _ in list_machines())
            raise MachineError(f"{echoed(text)}: no such machine file or built-in machine "
                               f"(built-ins: {names})")
    display = _display(path)
    if socket is not None and path.suffix.lower() != ASPEN_SUFFIX:
        raise MachineError(f"{display}: socket {socket!r}: only an Aspen machine model "
                           f"({ASPEN_SUFFIX}) has socket types to choose from")
    return _load_file(path, display, socket)


def _load_file(path: Path, display: str, socket: str | None = None) -> Machine:
    if path.suffix.lower() == ASPEN_SUFFIX:
        # Imported here: the Aspen reader (and its grammar) only when a model is read.
        from sat.machine.aspen import load_aspen_machine

        return load_aspen_machine(path, display, socket)
    if path.suffix.lower() in _YAML_SUFFIXES:
        # Imported here: PyYAML is only loaded when a YAML file is read (start-up time).
        from sat.machine.kerncraft_yaml import load_kerncraft

        return load_kerncraft(path, display)
    return load_exasat_xml(path, display)


def list_machines() -> list[tuple[str, str]]:
    """(name, description) of every built-in machine, for ``--list-machines``."""
    result = []
    paths = [p for p in machines_dir().iterdir() if p.suffix.lower() in MACHINE_SUFFIXES]
    for path in sorted(paths):
        try:
            machine = _load_file(path, _display(path))
        except MachineError as exc:
            result.append((path.stem, f"(unusable: {exc})"))
            continue
        result.append((path.stem, machine.description))
    return result

