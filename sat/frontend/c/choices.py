"""Subscripts chosen at run time: ``?:`` arms, and index variables set from loop variables."""

from __future__ import annotations

import copy
import itertools

from pycparser import c_ast

from sat import ir
from sat.frontend.c.algebra import c_text, mentions
from sat.frontend.c.walk import FunctionWalk

#: Most stencil points one access may stand for (``?:`` arms and index variables set on
#: several if arms, multiplied together); beyond it the access is taken as written.
MAX_CHOICES = 16


class RuntimeChoices(FunctionWalk):
    """The walk's part that knows which values a subscript may take (see :meth:`_choices`)."""

    def _choices(self, node: c_ast.Node) -> list[c_ast.Node]:
        """The expressions a subscript may stand for: ``?:`` arms and tracked index variables.

        ``(v > 0) ? j : j + 1`` is ``[j, j + 1]``; ``upwind + 1`` after ``upwind = j`` or
        ``upwind = j - 1`` on two arms of an if is ``[j + 1, j - 1 + 1]``. Only arithmetic is
        looked through; more than :data:`MAX_CHOICES` choices give up (the expression as
        written).
        """
        if isinstance(node, c_ast.TernaryOp):
            found = self._choices(node.iftrue) + self._choices(node.iffalse)
        elif isinstance(node, c_ast.ID):
            return list(self.index_values.get(node.name, (node,)))
        elif isinstance(node, c_ast.BinaryOp):
            lefts, rights = self._choices(node.left), self._choices(node.right)
            if lefts == [node.left] and rights == [node.right]:
                return [node]
            found = [c_ast.BinaryOp(node.op, left, right, node.coord)
                     for left, right in itertools.product(lefts, rights)]
        elif isinstance(node, (c_ast.UnaryOp, c_ast.Cast)) and (
                isinstance(node, c_ast.Cast) or node.op in ("-", "+")):
            inner = self._choices(node.expr)
            if inner == [node.expr]:
                return [node]
            found = []
            for choice in inner:
                clone = copy.copy(node)
                clone.expr = choice
                found.append(clone)
        else:
            return [node]
        return found if len(found) <= MAX_CHOICES else [node]

    def _track(self, name: str, value: c_ast.Node | None) -> None:
        """Remember the values an integer scalar is given from loop variables (``donor = j+1``).

        An assignment in an if or switch arm adds to the values the variable may hold; one
        outside any arm replaces them. A variable whose values do not involve a loop variable
        is not tracked (its subscripts stay symbolic, as written).
        """
        sym = self.lookup(name)
        in_arm = isinstance(self.level.body, ir.Branch)
        known = self.index_values.pop(name, []) if in_arm else []
        self.index_values.pop(name, None)
        if value is None or sym.base != "int" or sym.is_array or name in self.loopvars:
            return
        choices = list(known)
        texts = {c_text(choice) for choice in choices}
        for choice in self._choices(value):
            if c_text(choice) not in texts:
                texts.add(c_text(choice))
                choices.append(choice)
        if len(choices) <= MAX_CHOICES and any(
                mentions(choice, var) for choice in choices for var in self.loopvars):
            self.index_values[name] = choices

    def _forget_loop(self, var: str) -> None:
        """After a loop, values computed from its variable no longer hold."""
        for name in [n for n, values in self.index_values.items()
                     if any(mentions(v, var) for v in values)]:
            del self.index_values[name]
