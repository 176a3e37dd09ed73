"""Index functions: small pure C functions that compute an index, inlined into subscripts.

Lattice-Boltzmann and finite-volume codes write ``src[P(nx, ny, x - 1, y, z, 1)]`` with
``static inline int P(int nx, int ny, int x, int y, int z, int d) { return ((z*ny + y)*nx +
x)*19 + d; }``. A call in a subscript hides the index from the analysis (a function result
is irregular); the function's expression, its parameters replaced by the call's arguments,
is the index the subscript computes. A function is an index function when its body is one
``return`` of an expression without assignments, increments or calls other than to index
functions, its result is an integer and its parameters are scalars (a macro computing an
index needs nothing: the preprocessor expands it).
"""

from __future__ import annotations

import copy

from pycparser import c_ast

#: calls of index functions inside index functions followed at most this deep
MAX_DEPTH = 8
_NOT_INTEGER = {"float", "double", "void", "_Complex", "_Bool", "bool"}
_SIDE_EFFECTS = {"++", "--", "p++", "p--"}


def index_function(node: c_ast.FuncDef) -> tuple[list[str], c_ast.Node] | None:
    """(parameter names, returned expression) of an index function, else None."""
    items = node.body.block_items or []
    if len(items) != 1 or not isinstance(items[0], c_ast.Return) or items[0].expr is None:
        return None
    declared = node.decl.type
    result = getattr(declared, "type", None)
    if not isinstance(result, c_ast.TypeDecl) or not _integer(result):
        return None
    params: list[str] = []
    for param in getattr(getattr(declared, "args", None), "params", None) or []:
        if not (isinstance(param, c_ast.Decl) and isinstance(param.type, c_ast.TypeDecl)
                and _integer(param.type) and param.name):
            return None
        params.append(param.name)
    expression = items[0].expr
    if not _pure(expression):
        return None
    return params, expression


def _integer(declared: c_ast.TypeDecl) -> bool:
    names = getattr(declared.type, "names", None)
    return bool(names) and not _NOT_INTEGER.intersection(names)


def _pure(node: c_ast.Node) -> bool:
    if isinstance(node, c_ast.Assignment) or (isinstance(node, c_ast.UnaryOp)
                                              and node.op in _SIDE_EFFECTS):
        return False
    return all(_pure(child) for _name, child in node.children())


def inline_calls(node: c_ast.Node, functions: dict[str, tuple[list[str], c_ast.Node]],
                 depth: int = 0) -> c_ast.Node:
    """``node`` (a subscript) with every call of an index function replaced by its
    expression over the call's arguments; ``node`` itself when it calls none."""
    if not functions or not _calls(node, functions):
        return node
    return _inlined(copy.deepcopy(node), functions, depth)


def _calls(node: c_ast.Node, functions: dict) -> bool:
    if isinstance(node, c_ast.FuncCall) and isinstance(node.name, c_ast.ID) \
            and node.name.name in functions:
        return True
    return any(_calls(child, functions) for _name, child in node.children())


def _inlined(node: c_ast.Node, functions: dict, depth: int) -> c_ast.Node:
    """``node`` (owned: changed in place) with the calls inlined."""
    if isinstance(node, c_ast.FuncCall) and isinstance(node.name, c_ast.ID) \
            and node.name.name in functions and depth < MAX_DEPTH:
        params, expression = functions[node.name.name]
        args = list(node.args.exprs) if node.args is not None else []
        if len(args) == len(params):
            values = {name: _inlined(arg, functions, depth) for name, arg in zip(params, args,
                                                                                 strict=True)}
            body = _substituted(copy.deepcopy(expression), values)
            return _inlined(body, functions, depth + 1)
    for name, child in node.children():
        _replace(node, name, _inlined(child, functions, depth))
    return node


def _substituted(node: c_ast.Node, values: dict[str, c_ast.Node]) -> c_ast.Node:
    """``node`` (owned) with each parameter name replaced by a copy of its argument."""
    if isinstance(node, c_ast.ID) and node.name in values:
        return copy.deepcopy(values[node.name])
    for name, child in node.children():
        if isinstance(node, c_ast.StructRef) and name == "field":
            continue  # s.x: the member x, not the parameter x
        _replace(node, name, _substituted(child, values))
    return node


def _replace(node: c_ast.Node, name: str, value: c_ast.Node) -> None:
    """Set the child ``name`` of ``node`` as pycparser names it (``left``, ``exprs[2]``)."""
    if name.endswith("]"):
        attribute, index = name[:-1].split("[")
        getattr(node, attribute)[int(index)] = value
    else:
        setattr(node, name, value)
