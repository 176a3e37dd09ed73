"""The parameters of a run: machine-, level- and cost-derived ones, ExaSAT's files, ``--set``.

:func:`build_parameters` makes a run's :class:`~sat.parameter.ParameterSet` from a machine;
the model adds the problem parameters it meets in the code.
"""

from sat.parameter import ParameterError
from sat.parameters.registry import build_parameters, find_parameter, spec_of, validate

__all__ = ["ParameterError", "build_parameters", "find_parameter", "spec_of", "validate"]
