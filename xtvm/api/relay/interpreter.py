"""The reference interpreter of relay expressions, for what the relay dialect has no form for:
closures, polymorphic functions, algebraic data types (`ConstructorValue`) and references
(`RefValue`). `create_executor` runs a module with it when the module holds such functions.

Operator calls use the same numpy rules as xtvm's relay interpreter (xtvm/runtime), on an op
built once per call node; calls of the module's lowered functions run in that interpreter.
Evaluation recurses over the expression, as TVM's interpreter does; too deep a recursion is a
clear error, not a crash.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from xdsl.ir import Block, Operation

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
)
from xtvm.api.relay.ty import TupleType, Type
from xtvm.ir.errors import TVMError
from xtvm.runtime import relay_interpreter as oracle


class InterpreterError(TVMError):
    """A relay program failed while it ran (no clause matched, recursion too deep, ...)."""


@dataclass
class ConstructorValue:
    """A value of an algebraic data type: its constructor and field values."""

    tag: int
    fields: list[Any]
    constructor: Constructor

    def __getitem__(self, index: int) -> Any:
        return self.fields[index]

    def __len__(self) -> int:
        return len(self.fields)

    def __repr__(self) -> str:
        return f"{self.constructor.name_hint}({', '.join(map(repr, self.fields))})"


@dataclass(eq=False)
class RefValue:
    """A mutable reference cell."""

    value: Any


@dataclass
class Closure:
    """A function value: a function literal with the environment it was made in."""

    fn: Function
    env: Mapping[int, Any] = field(default_factory=dict)


Value = Any


class ValueExpr(Expr):
    """An interpreter value (an argument) standing in an expression."""

    def __init__(self, value: Value) -> None:
        self.value = value


class Interpreter:
    """Evaluates expressions over one module and params table."""

    def __init__(self, mod: IRModule, params: Mapping[str, np.ndarray] | None = None) -> None:
        self.mod = mod
        self.params = dict(params or {})
        self.ops: dict[int, Operation] = {}

    def run(self, expr: Expr, env: Mapping[int, Value] | None = None) -> Value:
        try:
            with np.errstate(all="ignore"):
                return self.eval(expr, dict(env or {}), {})
        except RecursionError:
            raise InterpreterError(
                "relay interpreter: the recursion is too deep for Python's stack"
            ) from None

    def call_function(self, callee: Value, args: Sequence[Value]) -> Value:
        """Apply a function value (closure, global or constructor) to `args`."""
        if isinstance(callee, Constructor):
            return ConstructorValue(callee.tag, list(args), callee)
        if isinstance(callee, GlobalVar):
            name = callee.name_hint
            if name not in self.mod:
                raise InterpreterError(f"no function @{name} in the module")
            if not self.mod.is_interpreted(name):
                return self.lowered_call(name, args)
            callee = Closure(self.mod[name])
        if not isinstance(callee, Closure):
            raise InterpreterError(f"cannot call a value of kind {type(callee).__name__}")
        fn = callee.fn
        if len(args) != len(fn.params):
            raise InterpreterError(f"function takes {len(fn.params)} arguments, got {len(args)}")
        env = dict(callee.env)
        env.update({id(p): a for p, a in zip(fn.params, args, strict=True)})
        return self.eval(fn.body, env, {})

    def lowered_call(self, name: str, args: Sequence[Value]) -> Value:
        """A call of a function the module holds in the relay dialect: the IR interpreter."""
        fn_type = self.mod[name].checked_type
        results = iter(
            oracle.evaluate(
                self.mod.xdsl, [np.asarray(a) for a in args], entry=name, params=self.params
            )
        )
        return regroup(results, fn_type.ret_type)  # type: ignore[attr-defined]

    # -- expressions -------------------------------------------------------------------------

    def eval(self, e: Expr, env: dict[int, Value], memo: dict[int, Value]) -> Value:
        if id(e) in memo:
            return memo[id(e)]
        value = self.compute(e, env, memo)
        if not isinstance(e, Var | Function):
            memo[id(e)] = value
        return value

    def compute(self, e: Expr, env: dict[int, Value], memo: dict[int, Value]) -> Value:
        if isinstance(e, Var):
            if id(e) not in env:
                raise InterpreterError(f"variable %{e.name_hint} has no value here")
            return env[id(e)]
        if isinstance(e, Constant):
            return e.data.numpy()
        if isinstance(e, ValueExpr):
            return e.value
        if isinstance(e, ParamRef):
            if e.name not in self.params:
                raise InterpreterError(f"param '{e.name}' is missing from the params table")
            return np.asarray(self.params[e.name])
        if isinstance(e, Tuple):
            return tuple(self.eval(f, env, memo) for f in e.fields)
        if isinstance(e, TupleGetItem):
            return self.eval(e.tuple_value, env, memo)[e.index]
        if isinstance(e, Let):
            inner = dict(env)
            if isinstance(e.value, Function):  # its closure sees itself: a recursive let
                inner[id(e.var)] = Closure(e.value, inner)
            else:
                inner[id(e.var)] = self.eval(e.value, env, memo)
            return self.eval(e.body, inner, memo)
        if isinstance(e, If):
            cond = self.eval(e.cond, env, memo)
            return self.eval(e.true_branch if bool(cond) else e.false_branch, env, memo)
        if isinstance(e, Function):
            return Closure(e, env)
        if isinstance(e, GlobalVar | Constructor):
            return e
        if isinstance(e, Call) and e.lowered is not None:  # a composed op: its expression
            return self.eval(e.lowered, env, memo)
        if isinstance(e, Call):
            args = [self.eval(a, env, memo) for a in e.args]
            if isinstance(e.op, Op):
                return self.operator(e, args)
            return self.call_function(self.eval(e.op, env, memo), args)
        if isinstance(e, Match):
            data = self.eval(e.data, env, memo)
            for clause in e.clauses:
                bound: dict[int, Value] = {}
                if matches(clause.lhs, data, bound):
                    return self.eval(clause.rhs, env | bound, memo)
            raise InterpreterError(f"no clause of the match covers the value {data!r}")
        if isinstance(e, RefCreate):
            return RefValue(self.eval(e.value, env, memo))
        if isinstance(e, RefRead):
            return self.eval(e.ref, env, memo).value
        if isinstance(e, RefWrite):
            ref = self.eval(e.ref, env, memo)
            ref.value = self.eval(e.value, env, memo)
            return ()
        raise InterpreterError(f"cannot evaluate a {type(e).__name__}")

    def operator(self, call: Call, args: Sequence[Value]) -> Value:
        op_class = call.op.op_class  # type: ignore[union-attr]
        if call.op.registered_from_python:  # type: ignore[union-attr]
            raise InterpreterError(
                f"operator {call.op.name} was registered from Python: it has no implementation"  # type: ignore[union-attr]
            )
        if op_class is None:  # compiler_begin / compiler_end: the identity
            return args[0]
        op = self.ops.get(id(call))
        if op is None:
            types = [a.checked_type.to_xdsl() for a in call.args]
            block = Block(arg_types=types)
            op = op_class.create(
                operands=list(block.args),
                properties=call.attrs.properties,
                result_types=[call.checked_type.to_xdsl()],
            )
            self.ops[id(call)] = op
        rule = oracle.RULES.get(type(op))
        if rule is None:
            raise InterpreterError(f"no interpreter rule for '{op.name}'")
        (result,) = rule(None, op, list(args))  # type: ignore[arg-type]
        return oracle.conform(result, op.results[0].type, op)


def matches(pattern: Pattern, value: Value, bound: dict[int, Value]) -> bool:
    """Whether `value` matches `pattern`, binding its variables into `bound`."""
    if isinstance(pattern, PatternVar):
        bound[id(pattern.var)] = value
        return True
    if isinstance(pattern, PatternConstructor):
        if not isinstance(value, ConstructorValue) or value.tag != pattern.constructor.tag:
            return False
        return all(
            matches(p, v, bound) for p, v in zip(pattern.patterns, value.fields, strict=True)
        )
    if isinstance(pattern, PatternTuple):
        return all(matches(p, v, bound) for p, v in zip(pattern.patterns, value, strict=True))
    return True  # the wildcard


def regroup(flat: Any, typ: Type) -> Value:
    """Flat results nested as the tuple type `typ` nests."""
    if isinstance(typ, TupleType):
        return tuple(regroup(flat, f) for f in typ.fields)
    return np.asarray(next(flat))
