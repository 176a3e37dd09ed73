"""Loop fusion as a live what-if: candidates found from the dependences between nests
(:mod:`~sat.model.fusion.candidates`), the fused nest as code (:mod:`~sat.model.fusion.nest`),
its price and the toggles in the totals (:mod:`~sat.model.fusion.model`)."""

from sat.model.fusion.candidates import Candidate, candidates, parameter_name
from sat.model.fusion.model import (
    NOTE,
    Group,
    bound_terms,
    change_terms,
    fusion_table,
    max_values,
    sum_terms,
    toggle,
)
from sat.model.fusion.nest import fused_loop, fused_procedure, member_lines

__all__ = ["NOTE", "Candidate", "Group", "bound_terms", "candidates", "change_terms",
           "fused_loop", "fused_procedure", "fusion_table", "max_values", "member_lines",
           "parameter_name", "sum_terms", "toggle"]
