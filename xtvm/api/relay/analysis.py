"""Analyses of relay expressions: free and bound variables (TVM's `relay.analysis`)."""

from __future__ import annotations

from xtvm.api.relay.adt import Match
from xtvm.api.relay.expr import Expr, Function, Let, Var, post_order


def bound_vars(expr: Expr) -> list[Var]:
    """Variables bound inside `expr` (function parameters and let names), in order."""
    found: list[Var] = []
    for node in post_order(expr):
        if isinstance(node, Function):
            found.extend(node.params)
        elif isinstance(node, Let):
            found.append(node.var)
        elif isinstance(node, Match):
            found.extend(v for c in node.clauses for v in c.lhs.variables())
    return list(dict.fromkeys(found))


def all_vars(expr: Expr) -> list[Var]:
    """Every variable `expr` mentions, in post order."""
    return [node for node in post_order(expr) if isinstance(node, Var)]


def free_vars(expr: Expr) -> list[Var]:
    """Variables `expr` reads but does not bind, in order of first appearance."""
    bound = {id(v) for v in bound_vars(expr)}
    return [v for v in all_vars(expr) if id(v) not in bound]
