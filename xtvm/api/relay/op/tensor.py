"""Elementwise and broadcasting operators: `relay.add`, `relay.exp`, `relay.clip`, ..."""

from __future__ import annotations

import numpy as np

from xtvm.api.relay.expr import HOOKS, Call, Constant, Expr, const, make_call
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


def less_equal(lhs: Expr, rhs: Expr) -> Call:
    return make_call(d.LessEqualOp, lhs, rhs)


def greater_equal(lhs: Expr, rhs: Expr) -> Call:
    return make_call(d.GreaterEqualOp, lhs, rhs)


def not_equal(lhs: Expr, rhs: Expr) -> Call:
    return make_call(d.NotEqualOp, lhs, rhs)


def floor_divide(lhs: Expr, rhs: Expr) -> Call:
    return make_call(d.FloorDivideOp, lhs, rhs)


def floor_mod(lhs: Expr, rhs: Expr) -> Call:
    return make_call(d.FloorModOp, lhs, rhs)


def left_shift(lhs: Expr, rhs: Expr) -> Call:
    return make_call(d.LeftShiftOp, lhs, rhs)


def right_shift(lhs: Expr, rhs: Expr) -> Call:
    return make_call(d.RightShiftOp, lhs, rhs)


def logical_and(lhs: Expr, rhs: Expr) -> Call:
    return make_call(d.LogicalAndOp, lhs, rhs)


def logical_or(lhs: Expr, rhs: Expr) -> Call:
    return make_call(d.LogicalOrOp, lhs, rhs)


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


def cos(data: Expr) -> Call:
    return make_call(d.CosOp, data)


def sin(data: Expr) -> Call:
    return make_call(d.SinOp, data)


def tan(data: Expr) -> Call:
    return make_call(d.TanOp, data)


def atan(data: Expr) -> Call:
    return make_call(d.AtanOp, data)


def floor(data: Expr) -> Call:
    return make_call(d.FloorOp, data)


def ceil(data: Expr) -> Call:
    return make_call(d.CeilOp, data)


def trunc(data: Expr) -> Call:
    return make_call(d.TruncOp, data)


def round(data: Expr) -> Call:
    return make_call(d.RoundOp, data)


def sign(data: Expr) -> Call:
    return make_call(d.SignOp, data)


def shape_of(data: Expr, dtype: str = "int32") -> Call:
    return make_call(d.ShapeOfOp, data, dtype=dtype_name(dtype))


def ndarray_size(data: Expr, dtype: str = "int32") -> Call:
    return make_call(d.NdarraySizeOp, data, dtype=dtype_name(dtype))


def clip(a: Expr, a_min: float, a_max: float) -> Call:
    return make_call(d.ClipOp, a, a_min=float(a_min), a_max=float(a_max))


def cast(data: Expr, dtype: str) -> Call:
    return make_call(d.CastOp, data, dtype=dtype_name(dtype))


Shape = int | tuple[int, ...] | list[int]


def static_shape(shape: Shape) -> tuple[int, ...]:
    """`shape` as a tuple; an int is a 1-d shape, as in TVM."""
    if isinstance(shape, Expr):
        raise TypeError("a shape given as a relay expression is dynamic: xtvm needs static shapes")
    return (int(shape),) if isinstance(shape, int | np.integer) else tuple(int(d) for d in shape)


def zeros(shape: Shape, dtype: str = "float32") -> Constant:
    """A constant of zeros (TVM has an op; with static shapes a constant is the same)."""
    return const(np.zeros(static_shape(shape), dtype=dtype_name(dtype)))


def ones(shape: Shape, dtype: str = "float32") -> Constant:
    return const(np.ones(static_shape(shape), dtype=dtype_name(dtype)))


def full(fill_value: object, shape: Shape = (), dtype: str = "") -> Expr:
    """A tensor of `shape` filled with `fill_value` (a number or a scalar expression)."""
    if isinstance(fill_value, Constant):
        dtype = dtype or fill_value.data.dtype
        fill_value = fill_value.data.numpy().item()
    if isinstance(fill_value, Expr):
        typ = fill_value.checked_type
        assert isinstance(typ, TensorType)
        value = (
            fill_value if not dtype or dtype_name(dtype) == typ.dtype else cast(fill_value, dtype)
        )
        from xtvm.api.relay.op.transform import broadcast_to

        return broadcast_to(value, static_shape(shape))
    return const(np.full(static_shape(shape), fill_value, dtype=dtype_name(dtype or "float32")))


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


def full_like(data: Expr, fill_value: object) -> Expr:
    typ = _like(data)
    return full(fill_value, typ.shape, typ.dtype)


HOOKS.update(
    {
        f.__name__: f
        for f in (add, subtract, multiply, divide, floor_divide, floor_mod, less, less_equal)
    }
    | {f.__name__: f for f in (greater, greater_equal, cast, negative)}
)
