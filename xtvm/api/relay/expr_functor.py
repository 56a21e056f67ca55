"""`ExprVisitor` and `ExprMutator`: TVM's way of writing analyses and rewrites of relay
expressions in Python, e.g. a custom BYOC annotator.

Both memoize by node, so a shared subexpression is visited once and rewritten once (the DAG
stays a DAG). Override `visit_call`, `visit_var`, ...; the defaults recurse into children.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping
from typing import Any

from xtvm.api.relay.adt import Clause, Constructor, Match, RefCreate, RefRead, RefWrite
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
    as_expr,
    has_type,
)

DEEP_RECURSION = 50_000


class ExprFunctor:
    """Dispatches `visit(expr)` to `visit_<node kind>`, memoizing results by node."""

    def __init__(self) -> None:
        self.memo_map: dict[int, tuple[Expr, Any]] = {}

    def visit(self, expr: Expr | Op) -> Any:
        if sys.getrecursionlimit() < DEEP_RECURSION:
            sys.setrecursionlimit(DEEP_RECURSION)  # graphs of thousands of ops recurse deeply
        key = id(expr)
        if key in self.memo_map:
            return self.memo_map[key][1]
        if isinstance(expr, Call):
            result = self.visit_call(expr)
        elif isinstance(expr, Var):
            result = self.visit_var(expr)
        elif isinstance(expr, Constant):
            result = self.visit_constant(expr)
        elif isinstance(expr, ParamRef):
            result = self.visit_param_ref(expr)
        elif isinstance(expr, Tuple):
            result = self.visit_tuple(expr)
        elif isinstance(expr, TupleGetItem):
            result = self.visit_tuple_getitem(expr)
        elif isinstance(expr, Function):
            result = self.visit_function(expr)
        elif isinstance(expr, Let):
            result = self.visit_let(expr)
        elif isinstance(expr, If):
            result = self.visit_if(expr)
        elif isinstance(expr, GlobalVar):
            result = self.visit_global_var(expr)
        elif isinstance(expr, Op):
            result = self.visit_op(expr)
        elif isinstance(expr, Match):
            result = self.visit_match(expr)
        elif isinstance(expr, Constructor):
            result = self.visit_constructor(expr)
        elif isinstance(expr, RefCreate):
            result = self.visit_ref_create(expr)
        elif isinstance(expr, RefRead):
            result = self.visit_ref_read(expr)
        elif isinstance(expr, RefWrite):
            result = self.visit_ref_write(expr)
        else:
            raise TypeError(f"not a relay expression: {type(expr).__name__}")
        self.memo_map[key] = (expr, result)  # the node is kept alive so its id stays unique
        return result

    def visit_call(self, call: Call) -> Any:
        raise NotImplementedError

    def visit_var(self, var: Var) -> Any:
        raise NotImplementedError

    def visit_constant(self, const: Constant) -> Any:
        raise NotImplementedError

    def visit_param_ref(self, param: ParamRef) -> Any:
        raise NotImplementedError

    def visit_tuple(self, tup: Tuple) -> Any:
        raise NotImplementedError

    def visit_tuple_getitem(self, item: TupleGetItem) -> Any:
        raise NotImplementedError

    def visit_function(self, fn: Function) -> Any:
        raise NotImplementedError

    def visit_let(self, let: Let) -> Any:
        raise NotImplementedError

    def visit_global_var(self, gv: GlobalVar) -> Any:
        raise NotImplementedError

    def visit_if(self, ite: If) -> Any:
        raise NotImplementedError

    def visit_op(self, op: Op) -> Any:
        raise NotImplementedError

    def visit_match(self, match: Match) -> Any:
        raise NotImplementedError

    def visit_constructor(self, constructor: Constructor) -> Any:
        raise NotImplementedError

    def visit_ref_create(self, ref: RefCreate) -> Any:
        raise NotImplementedError

    def visit_ref_read(self, ref: RefRead) -> Any:
        raise NotImplementedError

    def visit_ref_write(self, ref: RefWrite) -> Any:
        raise NotImplementedError


class ExprVisitor(ExprFunctor):
    """Visits every node once; override a `visit_*` and call `super()` to keep recursing."""

    def visit_call(self, call: Call) -> None:
        self.visit(call.op)
        for arg in call.args:
            self.visit(arg)

    def visit_tuple(self, tup: Tuple) -> None:
        for field in tup.fields:
            self.visit(field)

    def visit_tuple_getitem(self, item: TupleGetItem) -> None:
        self.visit(item.tuple_value)

    def visit_function(self, fn: Function) -> None:
        for param in fn.params:
            self.visit(param)
        self.visit(fn.body)

    def visit_let(self, let: Let) -> None:
        self.visit(let.var)
        self.visit(let.value)
        self.visit(let.body)

    def visit_if(self, ite: If) -> None:
        self.visit(ite.cond)
        self.visit(ite.true_branch)
        self.visit(ite.false_branch)

    def visit_var(self, var: Var) -> None:
        pass

    def visit_constant(self, const: Constant) -> None:
        pass

    def visit_param_ref(self, param: ParamRef) -> None:
        pass

    def visit_global_var(self, gv: GlobalVar) -> None:
        pass

    def visit_op(self, op: Op) -> None:
        pass

    def visit_match(self, match: Match) -> None:
        self.visit(match.data)
        for clause in match.clauses:
            for var in clause.lhs.variables():
                self.visit(var)
            self.visit(clause.rhs)

    def visit_constructor(self, constructor: Constructor) -> None:
        pass

    def visit_ref_create(self, ref: RefCreate) -> None:
        self.visit(ref.value)

    def visit_ref_read(self, ref: RefRead) -> None:
        self.visit(ref.ref)

    def visit_ref_write(self, ref: RefWrite) -> None:
        self.visit(ref.ref)
        self.visit(ref.value)


class ExprMutator(ExprFunctor):
    """Rebuilds an expression bottom-up; a node whose children are unchanged is kept as is."""

    def visit_call(self, call: Call) -> Expr:
        if call._pending is not None and not has_type(call):  # its attributes are not made yet
            return call._pending.remake([self.visit(a) for a in call.args])
        op = self.visit(call.op)
        args = [self.visit(a) for a in call.args]
        if op is call.op and all(a is b for a, b in zip(args, call.args, strict=True)):
            return call
        if call.remake is not None:  # a composed op's call: its expression is made again
            new = call.remake(args)
            new.tvm_attrs = new.tvm_attrs or call.tvm_attrs
            return new
        new = Call(op, args, call.attrs, call._type_args, call.span, call.annotations)
        new.tvm_attrs = call.tvm_attrs
        return new

    def visit_tuple(self, tup: Tuple) -> Expr:
        fields = [self.visit(f) for f in tup.fields]
        if all(a is b for a, b in zip(fields, tup.fields, strict=True)):
            return tup
        return Tuple(fields)

    def visit_tuple_getitem(self, item: TupleGetItem) -> Expr:
        value = self.visit(item.tuple_value)
        return item if value is item.tuple_value else TupleGetItem(value, item.index)

    def visit_function(self, fn: Function) -> Expr:
        params = [self.visit(p) for p in fn.params]
        body = self.visit(fn.body)
        if body is fn.body and all(a is b for a, b in zip(params, fn.params, strict=True)):
            return fn
        return Function(params, body, None, fn.type_params, fn.attrs)

    def visit_let(self, let: Let) -> Expr:
        var, value, body = self.visit(let.var), self.visit(let.value), self.visit(let.body)
        if var is let.var and value is let.value and body is let.body:
            return let
        return Let(var, value, body)

    def visit_if(self, ite: If) -> Expr:
        parts = [self.visit(ite.cond), self.visit(ite.true_branch), self.visit(ite.false_branch)]
        if all(
            a is b
            for a, b in zip(parts, (ite.cond, ite.true_branch, ite.false_branch), strict=True)
        ):
            return ite
        return If(*parts)

    def visit_var(self, var: Var) -> Expr:
        return var

    def visit_constant(self, const: Constant) -> Expr:
        return const

    def visit_param_ref(self, param: ParamRef) -> Expr:
        return param

    def visit_global_var(self, gv: GlobalVar) -> Expr:
        return gv

    def visit_op(self, op: Op) -> Op:
        return op

    def visit_match(self, match: Match) -> Expr:
        data = self.visit(match.data)
        rhs = [self.visit(c.rhs) for c in match.clauses]
        if data is match.data and all(a is c.rhs for a, c in zip(rhs, match.clauses, strict=True)):
            return match
        clauses = [Clause(c.lhs, r) for c, r in zip(match.clauses, rhs, strict=True)]
        return Match(data, clauses, match.complete)

    def visit_constructor(self, constructor: Constructor) -> Expr:
        return constructor

    def visit_ref_create(self, ref: RefCreate) -> Expr:
        value = self.visit(ref.value)
        return ref if value is ref.value else RefCreate(value)

    def visit_ref_read(self, ref: RefRead) -> Expr:
        cell = self.visit(ref.ref)
        return ref if cell is ref.ref else RefRead(cell)

    def visit_ref_write(self, ref: RefWrite) -> Expr:
        cell, value = self.visit(ref.ref), self.visit(ref.value)
        return ref if cell is ref.ref and value is ref.value else RefWrite(cell, value)


def bind(expr: Expr, binds: Mapping[Var, object]) -> Expr:
    """TVM's `relay.bind`: `expr` with the variables of `binds` replaced by their values; a
    function loses the parameters that are bound."""

    class Binder(ExprMutator):
        def visit_var(self, var: Var) -> Expr:
            return as_expr(binds[var]) if var in binds else var

    if isinstance(expr, Function):
        params = [p for p in expr.params if p not in binds]
        body = Binder().visit(expr.body)
        return Function(params, body, expr.ret_type, expr.type_params, expr.attrs)
    return Binder().visit(expr)
