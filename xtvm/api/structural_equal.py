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
from xtvm.api.relay.adt import (
    Constructor,
    Match,
    Pattern,
    PatternConstructor,
    PatternTuple,
    PatternVar,
    RefCreate,
    RefRead,
    RefWrite,
    TypeData,
)
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
from xtvm.api.relay.ty import Type, types_equal

Node = Expr | Op


class StructuralEqual:
    """One comparison, with its variable correspondence."""

    def __init__(self, map_free_vars: bool) -> None:
        self.map_free_vars = map_free_vars
        self.var_map: dict[int, Var] = {}
        self.reverse: dict[int, Var] = {}
        self.equal_pairs: set[tuple[int, int]] = set()
        self.type_map: dict[int, Type] = {}  # type parameters of lhs to those of rhs

    def same_type(self, a: Type | None, b: Type | None) -> bool:
        if a is None or b is None:
            return a is b
        return types_equal(a, b, self.type_map)

    def bind(self, lhs: Var, rhs: Var, annotated: bool = True) -> bool:
        """Match two binding occurrences; their annotations must agree (a pattern variable's
        may be left out on one side: the match's data types it)."""
        if annotated and not self.same_type(lhs.type_annotation, rhs.type_annotation):
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
            if len(a.type_params) != len(b.type_params):
                return None
            self.type_map.update(
                {id(x): y for x, y in zip(a.type_params, b.type_params, strict=True)}
            )
            both = a.ret_type is not None and b.ret_type is not None
            if both and not self.same_type(a.ret_type, b.ret_type):
                return None
            if not all(self.bind(x, y) for x, y in zip(a.params, b.params, strict=True)):
                return None
            return [(a.body, b.body)]
        if isinstance(a, Constructor):
            assert isinstance(b, Constructor)
            return [] if (a.name_hint, a.belong_to) == (b.name_hint, b.belong_to) else None
        if isinstance(a, Match):
            assert isinstance(b, Match)
            if a.complete != b.complete or len(a.clauses) != len(b.clauses):
                return None
            pairs: list[tuple[Node, Node]] = [(a.data, b.data)]
            for x, y in zip(a.clauses, b.clauses, strict=True):
                if not self.same_pattern(x.lhs, y.lhs):
                    return None
                pairs.append((x.rhs, y.rhs))
            return pairs
        if isinstance(a, RefCreate | RefRead | RefWrite):
            return self.zip(list(a.children()), list(b.children()))
        raise TypeError(f"cannot compare {type(a).__name__}")

    def same_pattern(self, a: Pattern, b: Pattern) -> bool:
        if type(a) is not type(b):
            return False
        if isinstance(a, PatternVar):
            assert isinstance(b, PatternVar)
            one = a.var.type_annotation is None or b.var.type_annotation is None
            return self.bind(a.var, b.var, annotated=not one)
        if isinstance(a, PatternConstructor):
            assert isinstance(b, PatternConstructor)
            if a.constructor.name_hint != b.constructor.name_hint:
                return False
        if isinstance(a, PatternConstructor | PatternTuple):
            assert isinstance(b, PatternConstructor | PatternTuple)
            return len(a.patterns) == len(b.patterns) and all(
                self.same_pattern(x, y) for x, y in zip(a.patterns, b.patterns, strict=True)
            )
        return True

    @staticmethod
    def zip(xs: list[Expr], ys: list[Expr]) -> list[tuple[Node, Node]] | None:
        return list(zip(xs, ys, strict=True)) if len(xs) == len(ys) else None


def same_attrs(a: Call, b: Call) -> bool:
    """Whether two calls have equal attributes; a call not typed yet compares the arguments its
    builder was given."""
    if has_type(a) and has_type(b):
        return a.attrs == b.attrs
    if a.kwargs is not None and b.kwargs is not None:
        return a.kwargs.keys() == b.kwargs.keys() and all(
            same_value(a.kwargs[k], b.kwargs[k]) for k in a.kwargs
        )
    return a._attrs == b._attrs


def same_value(a: object, b: object) -> bool:
    """Two attribute values as a builder was given them; floats to 1e-9, as TVM compares
    double attributes (an epsilon read back from a float32 constant equals 1e-5)."""
    if isinstance(a, float) or isinstance(b, float):
        return isinstance(a, int | float) and isinstance(b, int | float) and abs(a - b) < 1e-9
    if isinstance(a, list | tuple) and isinstance(b, list | tuple):
        return len(a) == len(b) and all(same_value(x, y) for x, y in zip(a, b, strict=True))
    return bool(a == b)


def same_type_data(a: TypeData, b: TypeData) -> bool:
    """Two definitions of one type: type parameters matched by position."""
    if len(a.type_vars) != len(b.type_vars) or len(a.constructors) != len(b.constructors):
        return False
    bound: dict[int, Type] = {id(x): y for x, y in zip(a.type_vars, b.type_vars, strict=True)}
    for x, y in zip(a.constructors, b.constructors, strict=True):
        if x.name_hint != y.name_hint or len(x.inputs) != len(y.inputs):
            return False
        if not all(types_equal(s, t, bound) for s, t in zip(x.inputs, y.inputs, strict=True)):
            return False
    return True


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
        lhs_types, rhs_types = lhs.type_definitions, rhs.type_definitions
        if sorted(t.name_hint for t in lhs_types) != sorted(t.name_hint for t in rhs_types):
            return False
        if not all(same_type_data(d, rhs_types[h]) for h, d in lhs_types.items()):
            return False
        return all(StructuralEqual(map_free_vars).equal(lhs[n], rhs[n]) for n in names)
    if isinstance(lhs, Type) or isinstance(rhs, Type):
        return isinstance(lhs, Type) and isinstance(rhs, Type) and types_equal(lhs, rhs)
    if isinstance(lhs, int | float | str) or isinstance(rhs, int | float | str):
        return type(lhs) is type(rhs) and lhs == rhs  # plain values, as TVM's IntImm/String
    if isinstance(lhs, list | tuple) or isinstance(rhs, list | tuple):
        return (
            isinstance(lhs, list | tuple)
            and isinstance(rhs, list | tuple)
            and len(lhs) == len(rhs)
            and all(structural_equal(a, b, map_free_vars) for a, b in zip(lhs, rhs, strict=True))
        )
    return StructuralEqual(map_free_vars).equal(lhs, rhs)


def assert_structural_equal(
    lhs: Expr | IRModule, rhs: Expr | IRModule, map_free_vars: bool = False
) -> None:
    """Raise ValueError showing both programs when they differ."""
    if not structural_equal(lhs, rhs, map_free_vars):
        raise ValueError(f"structural equality failed:\n--- lhs ---\n{lhs}\n--- rhs ---\n{rhs}")
