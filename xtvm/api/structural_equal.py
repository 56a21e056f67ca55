"""Structural equality of relay programs (`tvm.ir.structural_equal`).

Two expressions are equal when they have the same shape of nodes, operators, attributes,
constant values and types, with variables matched by where they are bound (function
parameters and let names): names do not matter. Free variables are equal only to themselves,
unless `map_free_vars` lets them match consistently. Modules are equal when they hold equal
functions under the same names.
"""

from __future__ import annotations

import numpy as np

from xtvm.api.ir_module import IRModule
from xtvm.api.relay.expr import (
    Call,
    Constant,
    Expr,
    Function,
    GlobalVar,
    If,
    Let,
    Op,
    ParamRef,
    Tuple,
    TupleGetItem,
    Var,
    has_type,
)

Node = Expr | Op


class StructuralEqual:
    """One comparison, with its variable correspondence."""

    def __init__(self, map_free_vars: bool) -> None:
        self.map_free_vars = map_free_vars
        self.var_map: dict[int, Var] = {}
        self.reverse: dict[int, Var] = {}
        self.equal_pairs: set[tuple[int, int]] = set()

    def bind(self, lhs: Var, rhs: Var) -> bool:
        """Match two binding occurrences; their annotations must agree."""
        if lhs.type_annotation != rhs.type_annotation:
            return False
        known = self.var_map.get(id(lhs))
        if known is not None:
            return known is rhs
        if id(rhs) in self.reverse:
            return False
        self.var_map[id(lhs)] = rhs
        self.reverse[id(rhs)] = lhs
        return True

    def equal(self, lhs: Node, rhs: Node) -> bool:
        stack = [(lhs, rhs)]
        while stack:
            a, b = stack.pop()
            key = (id(a), id(b))
            if key in self.equal_pairs:
                continue
            pairs = self.children_pairs(a, b)
            if pairs is None:
                return False
            self.equal_pairs.add(key)
            stack.extend(reversed(pairs))
        return True

    def children_pairs(self, a: Node, b: Node) -> list[tuple[Node, Node]] | None:
        """The child pairs that must also be equal, or None when `a` and `b` differ here."""
        if type(a) is not type(b):
            return None
        if isinstance(a, Var):
            assert isinstance(b, Var)
            mapped = self.var_map.get(id(a))
            if mapped is not None:
                return [] if mapped is b else None
            if a is b and id(b) not in self.reverse:
                return [] if self.bind(a, b) else None  # the same free variable on both sides
            return [] if self.map_free_vars and self.bind(a, b) else None
        if isinstance(a, Op):
            assert isinstance(b, Op)
            return [] if a.name == b.name else None
        if isinstance(a, GlobalVar):
            return [] if a == b else None
        if isinstance(a, Constant):
            assert isinstance(b, Constant)
            x, y = a.data.numpy(), b.data.numpy()
            same = x.dtype == y.dtype and np.array_equal(x, y, equal_nan=x.dtype.kind == "f")
            return [] if same else None
        if isinstance(a, ParamRef):
            assert isinstance(b, ParamRef)
            same = a.name == b.name and a.type_annotation == b.type_annotation
            return [] if same else None
        if isinstance(a, Tuple):
            assert isinstance(b, Tuple)
            return self.zip(a.fields, b.fields)
        if isinstance(a, TupleGetItem):
            assert isinstance(b, TupleGetItem)
            return [(a.tuple_value, b.tuple_value)] if a.index == b.index else None
        if isinstance(a, Call):
            assert isinstance(b, Call)
            if not same_attrs(a, b):
                return None
            args = self.zip(a.args, b.args)
            return None if args is None else [(a.op, b.op), *args]
        if isinstance(a, Let):
            assert isinstance(b, Let)
            if not self.bind(a.var, b.var):
                return None
            return [(a.value, b.value), (a.body, b.body)]
        if isinstance(a, If):
            assert isinstance(b, If)
            return [
                (a.cond, b.cond),
                (a.true_branch, b.true_branch),
                (a.false_branch, b.false_branch),
            ]
        if isinstance(a, Function):
            assert isinstance(b, Function)
            if len(a.params) != len(b.params) or a.attrs != b.attrs:
                return None
            if not all(self.bind(x, y) for x, y in zip(a.params, b.params, strict=True)):
                return None
            return [(a.body, b.body)]
        raise TypeError(f"cannot compare {type(a).__name__}")

    @staticmethod
    def zip(xs: list[Expr], ys: list[Expr]) -> list[tuple[Node, Node]] | None:
        return list(zip(xs, ys, strict=True)) if len(xs) == len(ys) else None


def same_attrs(a: Call, b: Call) -> bool:
    """Whether two calls have equal attributes; a call not typed yet compares the arguments its
    builder was given."""
    if has_type(a) and has_type(b):
        return a.attrs == b.attrs
    if a.kwargs is not None and b.kwargs is not None:
        return a.kwargs == b.kwargs
    return a._attrs == b._attrs


def structural_equal(
    lhs: Expr | IRModule, rhs: Expr | IRModule, map_free_vars: bool = False
) -> bool:
    """Whether `lhs` and `rhs` are the same program up to variable names."""
    if isinstance(lhs, IRModule) or isinstance(rhs, IRModule):
        if not (isinstance(lhs, IRModule) and isinstance(rhs, IRModule)):
            return False
        names = [gv.name_hint for gv in lhs.get_global_vars()]
        if sorted(names) != sorted(gv.name_hint for gv in rhs.get_global_vars()):
            return False
        return all(StructuralEqual(map_free_vars).equal(lhs[n], rhs[n]) for n in names)
    return StructuralEqual(map_free_vars).equal(lhs, rhs)


def assert_structural_equal(
    lhs: Expr | IRModule, rhs: Expr | IRModule, map_free_vars: bool = False
) -> None:
    """Raise ValueError showing both programs when they differ."""
    if not structural_equal(lhs, rhs, map_free_vars):
        raise ValueError(f"structural equality failed:\n--- lhs ---\n{lhs}\n--- rhs ---\n{rhs}")
