"""The Scenario sheet: the problem with live formulas, the answer and its explanation.

The objective, each variable and each constraint's two sides are formulas over the Parameters
sheet, which holds the optimum: edit a parameter and the sheet shows whether the constraints
still hold.  What the solver found (binding constraints, the objective with a constraint
relaxed, the explanation) is text computed by satreport at the run: its headers and rows say
so, since an edit cannot change it.
"""

from __future__ import annotations

from typing import Any

from sat.explore.scenario import Problem
from sat.model import expr as E
from sat.model.tables import CellValue, Table, column

COLUMNS = [
    column("item", "Item", "", "Objective, variable, constraint or explanation."),
    column("expression", "Expression", "", "As the scenario file writes it."),
    column("value", "Value", "", "The objective, the variable or the constraint's left side, "
           "live: a formula over the Parameters sheet, which holds the optimum."),
    column("unit", "Unit", "", "Unit of the value and the bound."),
    column("bound", "Bound", "", "A variable's range, or the constraint's right side (live)."),
    column("slack", "Slack", "", "How far the constraint is from its bound (live; negative "
           "when it fails)."),
    column("holds", "Holds", "", "1 if the constraint holds at the parameters' values (live)."),
    column("binding", "Binding at the run", "", "Whether the constraint limited the optimum "
           "the run found (text written by satreport; an edit does not change it)."),
    column("note", "What the solver found at the run", "", "Written by satreport: the "
           "objective with the constraint relaxed, or the relaxation that makes the problem "
           "feasible (an edit does not change it)."),
]


def scenario_table(problem: Problem, answer: dict[str, Any]) -> Table:
    """The Scenario sheet's rows (``answer`` from :func:`sat.explore.explain.answer`)."""
    status = "optimum" if answer["feasible"] else "no feasible configuration"
    rows: list[dict[str, CellValue]] = [{
        "item": "objective", "expression": problem.objective_text,
        "value": problem.objective, "unit": problem.objective.unit,
        "note": f"{status}; solver {answer['solver']['method']}, "
        f"{answer['solver']['evaluations']:,} configurations in "
        f"{answer['solver']['seconds']:.3g} s"}]
    for variable in problem.variables:
        rows.append({"item": "variable", "expression": variable.name,
                     "value": E.Quantity(("scenario", "variable", variable.name),
                                         E.Param(variable.name), "", variable.name),
                     "bound": f"{variable.low:g}..{variable.high:g}"
                     + (" integer" if variable.integer else "")})
    for index, constraint in enumerate(problem.constraints):
        found = answer["constraints"][index]
        left, right = E.Ref(constraint.left), E.Ref(constraint.right)
        slack = right - left if constraint.operator == "<=" else left - right
        if answer["feasible"]:
            binding = "binds" if found["binding"] else "slack"
            note = (f"relaxed 10 %: {found['objective_if_relaxed']}; without it: "
                    f"{found['objective_without']}") if found["binding"] else ""
        else:
            binding = "holds alone" if found["holds_alone"] else "fails even alone"
            note = (f"feasible if relaxed to {constraint.operator} {found['relaxed_bound']:.6g}"
                    if found.get("relaxed_bound") is not None else
                    "relaxing it alone does not help")
        rows.append({
            "item": "constraint", "expression": constraint.text, "value": constraint.left,
            "unit": constraint.left.unit or constraint.right.unit, "bound": constraint.right,
            "slack": E.Quantity(("scenario", index, "slack"), slack, constraint.left.unit,
                                f"slack of {constraint.text}"),
            "holds": E.Quantity(("scenario", index, "holds"),
                                E.compare(constraint.operator, left, right), "",
                                f"{constraint.text} holds"),
            "binding": binding, "note": note})
    rows.extend({"item": "explanation at the run", "expression": sentence}
                for sentence in answer["sentences"])
    return Table("Scenario", f"Scenario {problem.scenario.display}: {problem.objective_text}",
                 COLUMNS, rows, None,
                 "Live formulas for the objective, the variables and the constraints at the "
                 "optimum the Parameters sheet holds (Value, Bound, Slack, Holds follow an "
                 "edit); the solver's findings at the run as text (they do not).")
