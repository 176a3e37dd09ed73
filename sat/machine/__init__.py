"""Machine descriptions: one module per file format, the built-in library, accelerators.

A run asks :func:`load_machine` for a machine by name or file; each format's reader
(:mod:`~sat.machine.exasat_xml`, :mod:`~sat.machine.kerncraft_yaml`, :mod:`~sat.machine.aspen`)
returns the same :class:`~sat.machine.spec.Machine`.
"""

from sat.machine.library import DEFAULT_MACHINE, builtin_path, list_machines, load_machine
from sat.machine.spec import MACHINE_PARAMETERS, MACHINE_SPECS, Machine, MachineError

__all__ = ["DEFAULT_MACHINE", "MACHINE_PARAMETERS", "MACHINE_SPECS", "Machine", "MachineError",
           "builtin_path", "list_machines", "load_machine"]
