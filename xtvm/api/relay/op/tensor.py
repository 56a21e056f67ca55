"""Elementwise and broadcasting operators: `relay.add`, `relay.exp`, `relay.clip`, ..."""

from __future__ import annotations

import numpy as np

from xtvm.api.relay.expr import Call, Constant, Expr, const, make_call
from xtvm.api.relay.ty import TensorType, dtype_name
from xtvm.dialects import relay as d


def add(lhs: Expr, rhs: Expr) -> Call:
    return make_call(d.AddOp, lhs, rhs)


def subtract(lhs: Expr, rhs: Expr) -> Call:
    return make_call(d.SubtractOp, lhs, rhs)


def multiply(lhs: Expr, rhs: Expr) -> Call:
    return make_call(d.MultiplyOp, lhs, rhs)


def divide(lhs: Expr, rhs: Expr) -> Call:
    return make_call(d.DivideOp, lhs, rhs)


def power(lhs: Expr, rhs: Expr) -> Call:
    return make_call(d.PowerOp, lhs, rhs)


def maximum(lhs: Expr, rhs: Expr) -> Call:
    return make_call(d.MaximumOp, lhs, rhs)


def minimum(lhs: Expr, rhs: Expr) -> Call:
    return make_call(d.MinimumOp, lhs, rhs)


def equal(lhs: Expr, rhs: Expr) -> Call:
    return make_call(d.EqualOp, lhs, rhs)


def less(lhs: Expr, rhs: Expr) -> Call:
    return make_call(d.LessOp, lhs, rhs)


def greater(lhs: Expr, rhs: Expr) -> Call:
    return make_call(d.GreaterOp, lhs, rhs)


def negative(data: Expr) -> Call:
    return make_call(d.NegativeOp, data)


def abs(data: Expr) -> Call:
    return make_call(d.AbsOp, data)


def exp(data: Expr) -> Call:
    return make_call(d.ExpOp, data)


def log(data: Expr) -> Call:
    return make_call(d.LogOp, data)


def sqrt(data: Expr) -> Call:
    return make_call(d.SqrtOp, data)


def rsqrt(data: Expr) -> Call:
    return make_call(d.RsqrtOp, data)


def tanh(data: Expr) -> Call:
    return make_call(d.TanhOp, data)


def sigmoid(data: Expr) -> Call:
    return make_call(d.SigmoidOp, data)


def erf(data: Expr) -> Call:
    return make_call(d.ErfOp, data)


def logical_not(data: Expr) -> Call:
    return make_call(d.LogicalNotOp, data)


def clip(a: Expr, a_min: float, a_max: float) -> Call:
    return make_call(d.ClipOp, a, a_min=float(a_min), a_max=float(a_max))


def cast(data: Expr, dtype: str) -> Call:
    return make_call(d.CastOp, data, dtype=dtype_name(dtype))


def zeros(shape: tuple[int, ...] | list[int], dtype: str = "float32") -> Constant:
    """A constant of zeros (TVM has an op; with static shapes a constant is the same)."""
    return const(np.zeros(tuple(shape), dtype=dtype_name(dtype)))


def ones(shape: tuple[int, ...] | list[int], dtype: str = "float32") -> Constant:
    return const(np.ones(tuple(shape), dtype=dtype_name(dtype)))


def full(fill_value: float, shape: tuple[int, ...] | list[int], dtype: str = "float32") -> Constant:
    return const(np.full(tuple(shape), fill_value, dtype=dtype_name(dtype)))


def _like(data: Expr) -> TensorType:
    typ = data.checked_type
    if not isinstance(typ, TensorType):
        raise TypeError(f"expected a tensor, got {typ}")
    return typ


def zeros_like(data: Expr) -> Constant:
    typ = _like(data)
    return zeros(typ.shape, typ.dtype)


def ones_like(data: Expr) -> Constant:
    typ = _like(data)
    return ones(typ.shape, typ.dtype)
