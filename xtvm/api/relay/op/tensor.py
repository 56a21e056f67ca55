"""Elementwise and broadcasting operators: `relay.add`, `relay.exp`, `relay.clip`, ...

The builder of an elementwise op whose TVM signature is the op's own (`relay.add(lhs, rhs)`)
comes from the op's row in the relay dialect; those written here differ from their op's.
"""

from __future__ import annotations

import numpy as np

from xtvm.api.relay.expr import HOOKS, Call, Constant, Expr, const, derive_builders, make_call
from xtvm.api.relay.ty import TensorType, dtype_name
from xtvm.dialects import relay as d


def shape_of(data: Expr, dtype: str = "int32") -> Call:
    return make_call(d.ShapeOfOp, data, dtype=dtype_name(dtype))


def ndarray_size(data: Expr, dtype: str = "int32") -> Call:
    return make_call(d.NdarraySizeOp, data, dtype=dtype_name(dtype))


def clip(a: Expr, a_min: float, a_max: float) -> Call:
    return make_call(d.ClipOp, a, a_min=float(a_min), a_max=float(a_max))


def cast(data: Expr, dtype: str) -> Call:
    return make_call(d.CastOp, data, dtype=dtype_name(dtype))


def reinterpret(data: Expr, dtype: str) -> Call:
    """The bits of each element read as `dtype` of the same width."""
    return make_call(d.ReinterpretOp, data, dtype=dtype_name(dtype))


Shape = int | tuple[int, ...] | list[int]


def static_shape(shape: Shape) -> tuple[int, ...]:
    """`shape` as a tuple; an int is a 1-d shape, as in TVM."""
    if isinstance(shape, Expr):
        raise TypeError("a shape given as a relay expression is dynamic: xtvm needs static shapes")
    return (int(shape),) if isinstance(shape, int | np.integer) else tuple(int(d) for d in shape)


def zeros(shape: Shape, dtype: str = "float32") -> Constant:
    """A constant of zeros (TVM has an op; with static shapes a constant is the same)."""
    return const(np.zeros(static_shape(shape)), dtype_name(dtype))


def ones(shape: Shape, dtype: str = "float32") -> Constant:
    return const(np.ones(static_shape(shape)), dtype_name(dtype))


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
    return const(np.full(static_shape(shape), fill_value), dtype_name(dtype or "float32"))


def _like(data: Expr) -> TensorType:
    typ = data.checked_type
    if not isinstance(typ, TensorType):
        raise TypeError(f"expected a tensor, got {typ}")
    return typ


def _filled_like(data: Expr, value: Expr) -> Call:
    """A tensor of `data`'s shape, symbolic dimensions included, holding the scalar `value`
    everywhere: a `where` choosing `value` either way broadcasts it over a mask of that shape
    (TVM has an op, whose TE compute is the same broadcast)."""
    typ = _like(data)
    floating = typ.dtype.startswith("float")
    mask = make_call(d.IsnanOp, data) if floating else make_call(d.EqualOp, data, data)
    return make_call(d.WhereOp, mask, value, value)


def zeros_like(data: Expr) -> Call | Constant:
    typ = _like(data)
    return zeros(typ.shape, typ.dtype) if typ.is_static else full_like(data, 0)


def ones_like(data: Expr) -> Call | Constant:
    typ = _like(data)
    return ones(typ.shape, typ.dtype) if typ.is_static else full_like(data, 1)


def full_like(data: Expr, fill_value: object) -> Expr:
    typ = _like(data)
    if typ.is_static:
        return full(fill_value, typ.shape, typ.dtype)
    if isinstance(fill_value, Expr):
        value_type = _like(fill_value)
        if value_type.shape != ():
            raise TypeError(f"full_like: the fill value must be a scalar, got {value_type}")
        value = fill_value if value_type.dtype == typ.dtype else cast(fill_value, typ.dtype)
    else:
        value = const(np.asarray(fill_value, dtype=typ.dtype))
    return _filled_like(data, value)


derive_builders(globals(), "", families=(d.ElementwiseBinaryOp, d.UnaryOp))

# The builders Python's operators on expressions call (`a + b`, `-a`, `a.astype(t)`).
HOOKS.update(
    {
        name: globals()[name]
        for name in (
            *("add", "subtract", "multiply", "divide", "floor_divide", "floor_mod"),
            *("less", "less_equal", "greater", "greater_equal", "cast", "negative"),
        )
    }
)
