"""TOPI's elementwise and broadcast computes: one `te.compute` per relay op, numpy semantics.

Binary ops broadcast as numpy does (`broadcast_index`); Python numbers meeting an expression
take its dtype. Where the relay interpreter's numpy rule has a subtlety, the compute follows
it: integer `divide` truncates, integer `power` goes through float64, `clip` of integers
truncates its float bounds, a cast to bool is `!= 0`.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

from xtvm import te
from xtvm.te.expr import PrimExpr
from xtvm.topi.tensor import TensorLike, broadcast_index, broadcast_shape, is_float

Scalar = Callable[..., PrimExpr]


def elementwise(x: TensorLike, fn: Callable[[PrimExpr], object], name: str) -> te.Tensor:
    """`fn` applied to every element of `x`."""
    return te.compute(x.shape, lambda *i: fn(x(*i)), name=name, tag="elemwise")


def broadcast(fn: Scalar, inputs: list[TensorLike], name: str) -> te.Tensor:
    """`fn` of the inputs' elements, broadcast together as numpy does."""
    shape = broadcast_shape(*(x.shape for x in inputs))  # type: ignore[arg-type]

    def body(*i: PrimExpr) -> object:
        return fn(*(x(*broadcast_index(i, x.shape)) for x in inputs))  # type: ignore[arg-type]

    return te.compute(shape, body, name=name, tag="broadcast")


def not_zero(x: PrimExpr) -> PrimExpr:
    """`x != 0` as a bool (te has no `!=`: the negation of `==`)."""
    return x.equal(te.const(0 if not is_float(x.dtype) else 0.0, x.dtype)).equal(False)


def power(a: PrimExpr, b: PrimExpr) -> PrimExpr:
    """`a ** b`; integers through float64 `pow`, rounded to the nearest integer (ties toward
    zero) before the cast: a device `pow` may be a few ulp off (CUDA's gives 3 ** 1 as
    2.9999999999999996), and truncation would turn that into 2. Ties toward zero keep what
    truncation gives for negative exponents (2 ** -1 is 0)."""
    if is_float(a.dtype):
        return te.power(a, b)
    p = te.power(a.astype("float64"), b.astype("float64"))
    nearest = te.if_then_else(p < 0.0, te.floor(p + 0.5), te.ceil(p - 0.5))
    return nearest.astype(a.dtype)


def floor_divide(a: PrimExpr, b: PrimExpr) -> PrimExpr:
    return te.floor(a / b) if is_float(a.dtype) else a // b


def floor_mod(a: PrimExpr, b: PrimExpr) -> PrimExpr:
    """numpy's mod: the remainder with the divisor's sign. A finite `a` modulo an infinite `b`
    is `a` where the signs agree (or `a` is 0), else `b` (the formula alone gives NaN)."""
    if not is_float(a.dtype):
        return a % b
    infinity = te.const(math.inf, a.dtype)
    keep = te.any((a < 0.0).equal(b < 0.0), a.equal(0.0))
    edge = te.all(te.abs(b).equal(infinity), te.abs(a) < infinity)
    return te.if_then_else(edge, te.if_then_else(keep, a, b), a - te.floor(a / b) * b)


def two_to_the(b: PrimExpr) -> PrimExpr:
    return power(te.const(2, b.dtype), b)


BINARY: dict[str, Scalar] = {
    "add": lambda a, b: a + b,
    "subtract": lambda a, b: a - b,
    "multiply": lambda a, b: a * b,
    "divide": lambda a, b: a / b,  # integers truncate toward zero
    "power": power,
    "maximum": lambda a, b: te.max(a, b),
    "minimum": lambda a, b: te.min(a, b),
    "equal": lambda a, b: a.equal(b),
    "less": lambda a, b: a < b,
    "greater": lambda a, b: a > b,
    "less_equal": lambda a, b: a <= b,
    "greater_equal": lambda a, b: a >= b,
    "not_equal": lambda a, b: a.equal(b).equal(False),
    "floor_divide": floor_divide,
    "floor_mod": floor_mod,
    "mod": lambda a, b: te.fmod(a, b) if is_float(a.dtype) else te.truncmod(a, b),
    "left_shift": lambda a, b: a * two_to_the(b),  # wraps as the shift does
    "right_shift": lambda a, b: a // two_to_the(b),  # floor division: arithmetic shift
    # On bools these see 0/1 integers (`on_bools`); the result is tested `!= 0`.
    "logical_and": lambda a, b: a * b,
    "logical_or": lambda a, b: a + b,
}


def on_bools(fn: Scalar) -> Scalar:
    """`fn` as numpy applies it to bools: on 0/1 integers, a non-bool result tested `!= 0`
    (i1 arithmetic would be signed: true is -1)."""

    def promoted(*values: PrimExpr) -> PrimExpr:
        result = fn(*(v.astype("int32") for v in values))
        return result if result.dtype == "bool" else not_zero(result)

    return promoted


def binary(kind: str, a: TensorLike, b: TensorLike) -> te.Tensor:
    """The broadcasting binary op `kind` (a key of BINARY)."""
    fn = BINARY[kind]
    return broadcast(on_bools(fn) if a.dtype == "bool" else fn, [a, b], f"T_{kind}")


def where(condition: TensorLike, x: TensorLike, y: TensorLike) -> te.Tensor:
    return broadcast(lambda c, a, b: te.if_then_else(c, a, b), [condition, x, y], "T_where")


def gelu(x: PrimExpr, approximate: str) -> PrimExpr:
    if approximate == "tanh":
        inner = math.sqrt(2 / math.pi) * (x + 0.044715 * x * x * x)
        return 0.5 * x * (1.0 + te.tanh(inner))
    return 0.5 * x * (1.0 + te.erf(x * (1 / math.sqrt(2))))


def trunc(x: PrimExpr) -> PrimExpr:
    return te.if_then_else(x < 0.0, te.ceil(x), te.floor(x))


def round_half_even(x: PrimExpr) -> PrimExpr:
    """Nearest integer, halves to the even one (numpy's `round`)."""
    r = te.floor(x + 0.5)
    odd = (r - te.floor(r * 0.5) * 2.0).equal(1.0)
    tie = (r - x).equal(0.5)
    return te.if_then_else(te.all(tie, odd), r - 1.0, r)


def sign(x: PrimExpr) -> PrimExpr:
    zero = te.const(0, x.dtype)
    one, minus_one = te.const(1, x.dtype), te.const(-1, x.dtype)
    return te.if_then_else(x > zero, one, te.if_then_else(x < zero, minus_one, zero))


UNARY: dict[str, Callable[[PrimExpr], PrimExpr]] = {
    "negative": lambda x: -x,
    "copy": lambda x: x,
    "abs": te.abs,
    "exp": te.exp,
    "log": te.log,
    "sqrt": te.sqrt,
    "rsqrt": te.rsqrt,
    "tanh": te.tanh,
    "sigmoid": te.sigmoid,
    "erf": te.erf,
    "cos": te.cos,
    "sin": te.sin,
    "tan": te.tan,
    "atan": te.atan,
    "logical_not": lambda x: x.equal(False),
    # Ordered comparisons are false on NaN: x == x fails only there, |x| < inf also there.
    "isnan": lambda x: x.equal(x).equal(False),
    "isinf": lambda x: te.abs(x).equal(te.const(math.inf, x.dtype)),
    "isfinite": lambda x: te.abs(x) < te.const(math.inf, x.dtype),
    "floor": te.floor,
    "ceil": te.ceil,
    "trunc": trunc,
    "round": round_half_even,
    "sign": sign,
    "relu": lambda x: te.max(x, 0),
    "identity": lambda x: x,
}


def unary(kind: str, x: TensorLike) -> te.Tensor:
    """The elementwise op `kind` (a key of UNARY)."""
    fn = UNARY[kind]
    promote = x.dtype == "bool" and kind not in ("logical_not", "identity")
    return elementwise(x, on_bools(fn) if promote else fn, f"T_{kind}")


def leaky_relu(x: TensorLike, alpha: float) -> te.Tensor:
    # max(x, 0) + alpha * min(x, 0): exactly x or alpha * x, without a select.
    return elementwise(x, lambda v: te.max(v, 0.0) + alpha * te.min(v, 0.0), "T_leaky_relu")


def clip(x: TensorLike, a_min: float, a_max: float) -> te.Tensor:
    if is_float(x.dtype):
        low, high = a_min, a_max
    else:  # numpy clips in float and the result is cast back: truncated bounds, in range
        info = np.iinfo(x.dtype)
        low = int(min(max(math.trunc(max(a_min, info.min)), info.min), info.max))
        high = int(min(max(math.trunc(min(a_max, info.max)), info.min), info.max))
    return elementwise(x, lambda v: te.min(te.max(v, low), high), "T_clip")


def cast(x: TensorLike, dtype: str) -> te.Tensor:
    if dtype == "bool" and x.dtype != "bool":
        return elementwise(x, not_zero, "T_cast")
    return elementwise(x, lambda v: v.astype(dtype), "T_cast")


def reinterpret(x: TensorLike, dtype: str) -> te.Tensor:
    """Each element's bits read as `dtype` of the same width."""
    return elementwise(x, lambda v: te.reinterpret(dtype, v), "T_reinterpret")


def gelu_op(x: TensorLike, approximate: str) -> te.Tensor:
    return elementwise(x, lambda v: gelu(v, approximate), "T_gelu")


def copy(x: TensorLike, name: str = "T_copy") -> te.Tensor:
    """A compute holding `x`'s elements: what a kernel returns where an output is an input."""
    return elementwise(x, lambda v: v, name)


def shape_of(shape: tuple[int, ...], dtype: str) -> te.Tensor:
    """The static `shape` as a 1-d tensor of `dtype`."""

    def body(i: PrimExpr) -> PrimExpr:
        value: PrimExpr = te.const(0, dtype)
        for k, extent in enumerate(shape):
            value = te.if_then_else(i.equal(k), te.const(extent, dtype), value)
        return value

    return te.compute((len(shape),), body, name="T_shape_of", tag="injective")


def ndarray_size(shape: tuple[int, ...], dtype: str) -> te.Tensor:
    size = math.prod(shape)
    return te.compute((), lambda: te.const(size, dtype), name="T_ndarray_size", tag="injective")
