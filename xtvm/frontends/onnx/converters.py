"""One converter per ONNX op type: the table `CONVERTERS` maps each onto relay ops.

A converter reads its node through a `NodeContext` and returns one entry per node output (a
relay value, a numpy constant, or None for an output it does not produce). Opset differences
(axes, pads, min/max, scales moving from attributes to inputs) are handled inside the row.
Inputs that must be static (shapes, axes, pads) are read with `c.static(i)`; they are constants
or constant expressions folded at import.
"""

from __future__ import annotations

import math
import string
from collections.abc import Callable, Sequence

import numpy as np
from onnx import helper
from xdsl.ir import Operation, SSAValue

from xtvm.dialects import relay
from xtvm.dialects.relay import static_shape
from xtvm.frontends.onnx.context import ConversionError, Converter, NodeContext, Tensor
from xtvm.frontends.onnx.resize import ResizeMode, interpolation_matrix
from xtvm.ir.numpy_types import numpy_dtype

Outputs = list["Tensor | Operation | None"]


# ---------------------------------------------------------------------------------------------
# Helpers


def scalar(c: NodeContext, value: float, dtype: np.dtype) -> SSAValue:
    return c.lift(np.array(value, dtype=dtype))


def reshape(c: NodeContext, x: SSAValue, shape: Sequence[int]) -> SSAValue:
    """`x` as `shape`, given in full (every dimension, no -1)."""
    if tuple(shape) == static_shape(x):
        return x
    if 0 in shape:  # relay.reshape reads 0 as "copy"; a tensor of no elements is a constant
        return c.lift(np.zeros(shape, numpy_dtype(x.type.get_element_type())))  # type: ignore[attr-defined]
    return c.emit(relay.ReshapeOp(x, list(shape)))


def transpose(c: NodeContext, x: SSAValue, perm: Sequence[int]) -> SSAValue:
    if list(perm) == list(range(len(perm))):
        return x
    return c.emit(relay.TransposeOp(x, list(perm)))


def norm_axis(axis: int, rank: int) -> int:
    if not -rank <= axis < max(rank, 1):
        raise ConversionError(f"axis {axis} is out of range for rank {rank}")
    return axis % rank if rank else 0


def np_dtype(onnx_type: int) -> np.dtype:
    try:
        dtype = np.dtype(helper.tensor_dtype_to_np_dtype(onnx_type))
    except (KeyError, TypeError, ValueError):
        dtype = np.dtype(object)
    if dtype.kind not in "biuf" or dtype.name == "bfloat16":
        try:
            name = helper.tensor_dtype_to_string(onnx_type) if onnx_type else "undefined"
        except (KeyError, ValueError):
            raise ConversionError(f"{onnx_type} is not an ONNX element type") from None
        raise ConversionError(f"element type {name} is not supported")
    return dtype


def same_upper_lower(
    auto_pad: str, size: int, kernel: int, stride: int, dilation: int
) -> tuple[int, int]:
    """(begin, end) padding for auto_pad SAME_UPPER / SAME_LOWER."""
    out = -(-size // stride)
    total = max(0, (out - 1) * stride + (kernel - 1) * dilation + 1 - size)
    small, big = total // 2, total - total // 2
    return (small, big) if auto_pad == "SAME_UPPER" else (big, small)


def window_pads(
    c: NodeContext,
    spatial: Sequence[int],
    kernel: Sequence[int],
    strides: Sequence[int],
    dilations: Sequence[int],
) -> list[int]:
    """ONNX pads [b1, b2, ..., e1, e2, ...] after auto_pad."""
    auto_pad = c.str_attr("auto_pad", "NOTSET")
    n = len(spatial)
    if auto_pad in ("SAME_UPPER", "SAME_LOWER"):
        pairs = [
            same_upper_lower(auto_pad, s, k, st, d)
            for s, k, st, d in zip(spatial, kernel, strides, dilations, strict=True)
        ]
        return [p[0] for p in pairs] + [p[1] for p in pairs]
    if auto_pad == "VALID":
        return [0] * (2 * n)
    if auto_pad != "NOTSET":
        raise ConversionError(f"auto_pad '{auto_pad}' is not supported")
    pads = c.ints_attr("pads") or [0] * (2 * n)
    if len(pads) != 2 * n:
        raise ConversionError(f"pads must have {2 * n} entries, got {pads}")
    return pads


def spatial_attrs(c: NodeContext, n: int, kernel: Sequence[int]) -> tuple[list[int], list[int]]:
    strides = c.ints_attr("strides") or [1] * n
    dilations = c.ints_attr("dilations") or [1] * n
    if len(strides) != n or len(dilations) != n or len(kernel) != n:
        raise ConversionError(
            f"strides {strides}, dilations {dilations} and kernel {list(kernel)} must have "
            f"{n} entries"
        )
    return strides, dilations


def as_2d(c: NodeContext, x: SSAValue) -> SSAValue:
    """A 1-d spatial tensor [N, C, W] as [N, C, 1, W]."""
    n, ch, w = static_shape(x)
    return reshape(c, x, [n, ch, 1, w])


def check_spatial(c: NodeContext, rank: int) -> int:
    if rank not in (3, 4, 5):
        raise ConversionError(
            f"only 1-d, 2-d and 3-d {c.op_type} is supported, got a {rank - 2}-d input "
            f"(rank {rank})"
        )
    return rank - 2


# ---------------------------------------------------------------------------------------------
# Elementwise


def unary(op: type[relay.UnaryOp]) -> Converter:
    return lambda c: [c.emit(op(c.value(0)))]


def binary(op: type[relay.ElementwiseBinaryOp]) -> Converter:
    return lambda c: [c.emit(op(c.value(0), c.value(1)))]


def identity(c: NodeContext) -> Outputs:
    return [c.tensor(0)]


def modulo(c: NodeContext) -> Outputs:
    """Mod: the remainder with the divisor's sign (floor_mod), or with `fmod` the dividend's
    (C's fmod: x - trunc(x / y) * y; integer divide already truncates)."""
    x, y = c.value(0), c.value(1)
    if not c.int_attr("fmod", 0):
        return [c.emit(relay.FloorModOp(x, y))]
    quotient = c.emit(relay.DivideOp(x, y))
    if not np.issubdtype(c.dtype(0), np.floating):
        return [c.emit(relay.SubtractOp(x, c.emit(relay.MultiplyOp(quotient, y))))]
    remainder = c.emit(
        relay.SubtractOp(x, c.emit(relay.MultiplyOp(c.emit(relay.TruncOp(quotient)), y)))
    )
    # fmod(x, +-inf) is x for a finite x; the formula gives NaN there.
    edge = relay.LogicalAndOp(c.emit(relay.IsinfOp(y)), c.emit(relay.IsfiniteOp(x)))
    return [c.emit(relay.WhereOp(c.emit(edge), x, remainder))]


def is_inf(c: NodeContext) -> Outputs:
    """IsInf: both signs (relay.isinf), or one (an equality with that infinity)."""
    positive, negative = c.int_attr("detect_positive", 1), c.int_attr("detect_negative", 1)
    if positive and negative:
        return [c.emit(relay.IsinfOp(c.value(0)))]
    if not (positive or negative):  # detects nothing: all false
        return [c.lift(np.zeros(c.shape(0), np.bool_))]
    infinity = scalar(c, math.inf if positive else -math.inf, c.dtype(0))
    return [c.emit(relay.EqualOp(c.value(0), infinity))]


def reciprocal(c: NodeContext) -> Outputs:
    return [c.emit(relay.DivideOp(scalar(c, 1, c.dtype(0)), c.value(0)))]


def power(c: NodeContext) -> Outputs:
    """Pow; a constant float exponent of 1, 2, 3 or 0.5 becomes multiplies or a square root
    (GELU's tanh form cubes, RMS norms square): a pow call per element is ~100x slower."""
    x, known = c.value(0), c.const(1)
    # The result keeps x's shape when the exponent has one element and no more dimensions.
    if known is not None and known.size == 1 and known.ndim <= c.rank(0) and c.dtype(0).kind == "f":
        e = float(known.reshape(()))
        if e in (1.0, 2.0, 3.0):
            y = x
            for _ in range(int(e) - 1):
                y = c.emit(relay.MultiplyOp(y, x))
            return [y]
        if e == 0.5:
            return [c.emit(relay.SqrtOp(x))]
    exponent = c.value(1)
    if c.dtype(1) != c.dtype(0):
        exponent = c.emit(relay.CastOp(exponent, c.dtype(0)))
    return [c.emit(relay.PowerOp(c.value(0), exponent))]


def variadic(op: type[relay.ElementwiseBinaryOp], mean: bool = False) -> Converter:
    def convert(c: NodeContext) -> Outputs:
        values = c.values()
        out = values[0]
        for v in values[1:]:
            out = c.emit(op(out, v))
        if mean and len(values) > 1:
            out = c.emit(relay.DivideOp(out, scalar(c, len(values), c.dtype(0))))
        return [out]

    return convert


def leaky_relu(c: NodeContext) -> Outputs:
    return [c.emit(relay.LeakyReluOp(c.value(0), c.float_attr("alpha", 0.01)))]


def prelu(c: NodeContext) -> Outputs:
    x, shape = c.value(0), c.shape(0)
    slope = c.const(1)
    slope_shape = c.shape(1)
    channels = shape[1] if len(shape) >= 2 else None
    per_channel = (
        channels is not None
        and math.prod(slope_shape) == channels
        and len(slope_shape) <= len(shape) - 1
        and (len(slope_shape) == 1 or slope_shape[0] == channels)
    )
    if per_channel and (slope is None or slope.shape == (channels,)):
        alpha = c.value(1) if slope_shape == (channels,) else reshape(c, c.value(1), [channels])
        return [c.emit(relay.PreluOp(x, alpha, axis=1))]
    # Any other broadcastable slope: where(x < 0, x * slope, x).
    negative = c.emit(relay.LessOp(x, scalar(c, 0, c.dtype(0))))
    scaled = c.emit(relay.MultiplyOp(x, c.value(1)))
    return [c.emit(relay.WhereOp(negative, scaled, x))]


def clip(c: NodeContext) -> Outputs:
    dtype = c.dtype(0)
    if c.opset < 11:
        lo: float | None = c.float_attr("min", -math.inf)
        hi: float | None = c.float_attr("max", math.inf)
        bounds: list[SSAValue | float | None] = [lo, hi]
    else:
        bounds = []
        for i in (1, 2):
            if not c.has(i):
                bounds.append(None)
            elif c.const(i) is not None:
                bounds.append(float(c.static(i, "bound").reshape(())))
            else:
                bounds.append(c.value(i))
    lo_b, hi_b = bounds
    finite = all(isinstance(b, float | type(None)) for b in bounds)
    if finite and dtype.kind == "f":
        big = float(np.finfo(dtype).max)
        lo_f = -big if lo_b is None or lo_b == -math.inf else max(float(lo_b), -big)  # type: ignore[arg-type]
        hi_f = big if hi_b is None or hi_b == math.inf else min(float(hi_b), big)  # type: ignore[arg-type]
        if lo_f <= hi_f:
            return [c.emit(relay.ClipOp(c.value(0), lo_f, hi_f))]
    out = c.value(0)
    for bound, op in ((lo_b, relay.MaximumOp), (hi_b, relay.MinimumOp)):
        if bound is None or (isinstance(bound, float) and math.isinf(bound)):
            continue
        value = bound if isinstance(bound, SSAValue) else scalar(c, bound, dtype)
        out = c.emit(op(out, value))
    return [out]


def cast(c: NodeContext) -> Outputs:
    dtype = np_dtype(c.int_attr("to", 0))
    if dtype == c.dtype(0):
        return [c.tensor(0)]
    return [c.emit(relay.CastOp(c.value(0), dtype))]


def gelu(c: NodeContext) -> Outputs:
    return [c.emit(relay.GeluOp(c.value(0), c.str_attr("approximate", "none")))]


def where(c: NodeContext) -> Outputs:
    return [c.emit(relay.WhereOp(c.value(0), c.value(1), c.value(2)))]


def softmax(op: type[relay.AxisUnaryOp]) -> Converter:
    def convert(c: NodeContext) -> Outputs:
        x, shape = c.value(0), c.shape(0)
        rank = len(shape)
        if c.opset >= 13:
            return [c.emit(op(x, norm_axis(c.int_attr("axis", -1), rank)))]
        # Before opset 13 the input is coerced to 2-d at axis, normalised along the second.
        axis = norm_axis(c.int_attr("axis", 1), rank)
        if axis == rank - 1:
            return [c.emit(op(x, axis))]
        flat = reshape(c, x, [math.prod(shape[:axis]), math.prod(shape[axis:])])
        return [reshape(c, c.emit(op(flat, 1)), shape)]

    return convert


# ---------------------------------------------------------------------------------------------
# Convolution, matrix products, normalisation


def conv(c: NodeContext) -> Outputs:
    x, w = c.value(0), c.value(1)
    n = check_spatial(c, c.rank(0))
    kernel = c.ints_attr("kernel_shape") or list(c.shape(1)[2:])
    strides, dilations = spatial_attrs(c, n, kernel)
    pads = window_pads(c, c.shape(0)[2:], kernel, strides, dilations)
    groups = c.int_attr("group", 1)
    if n == 1:
        x, w = as_2d(c, x), as_2d(c, w)
        strides, dilations, pads = [1, *strides], [1, *dilations], [0, pads[0], 0, pads[1]]
    conv_op = relay.Conv3dOp if n == 3 else relay.Conv2dOp
    y = c.emit(conv_op(x, w, strides, pads, dilations, groups))
    if c.has(2):
        y = c.emit(relay.BiasAddOp(y, c.value(2), axis=1))
    if n == 1:
        n_, o, _, wd = static_shape(y)
        y = reshape(c, y, [n_, o, wd])
    return [y]


def conv_transpose(c: NodeContext) -> Outputs:
    x, w = c.value(0), c.value(1)
    n = check_spatial(c, c.rank(0))
    kernel = c.ints_attr("kernel_shape") or list(c.shape(1)[2:])
    strides, dilations = spatial_attrs(c, n, kernel)
    groups = c.int_attr("group", 1)
    in_spatial = c.shape(0)[2:]
    out_pad = c.ints_attr("output_padding") or [0] * n
    full = [
        (i - 1) * s + (k - 1) * d + 1
        for i, s, k, d in zip(in_spatial, strides, kernel, dilations, strict=True)
    ]
    output_shape = c.ints_attr("output_shape")
    auto_pad = c.str_attr("auto_pad", "NOTSET")
    if output_shape is not None or auto_pad in ("SAME_UPPER", "SAME_LOWER"):
        target = (
            list(output_shape[-n:])
            if output_shape is not None
            else [i * s for i, s in zip(in_spatial, strides, strict=True)]
        )
        begins, ends = [], []
        for f, op_, t in zip(full, out_pad, target, strict=True):
            total = f + op_ - t
            small, big = total // 2, total - total // 2
            begins.append(small if auto_pad == "SAME_UPPER" else big)
            ends.append(big if auto_pad == "SAME_UPPER" else small)
        pads = begins + ends
    elif auto_pad == "VALID":
        pads = [0] * (2 * n)
    else:
        pads = c.ints_attr("pads") or [0] * (2 * n)
    transpose_op = CONV_TRANSPOSE_OPS[n]
    begin, end = pads[:n], pads[n:]
    if all(p >= 0 for p in pads) and all(o >= 0 for o in out_pad):
        y = c.emit(transpose_op(x, w, strides, pads, out_pad, dilations, groups))
    else:
        # The full output, then grown by output_padding and cut (or grown) by the pads.
        y = c.emit(transpose_op(x, w, strides, (0,) * (2 * n), (0,) * n, dilations, groups))
        grow = [(max(-b, 0), o + max(-e, 0)) for b, e, o in zip(begin, end, out_pad, strict=True)]
        if any(v for pair in grow for v in pair):
            y = c.emit(relay.PadOp(y, [(0, 0), (0, 0), *grow]))
        sizes = static_shape(y)[2:]
        starts = [max(b, 0) for b in begin]
        stops = [size - max(e, 0) for size, e in zip(sizes, end, strict=True)]
        y = c.emit(relay.StridedSliceOp(y, starts, stops, axes=list(range(2, 2 + n))))
    if c.has(2):
        y = c.emit(relay.BiasAddOp(y, c.value(2), axis=1))
    return [y]


CONV_TRANSPOSE_OPS = {
    1: relay.Conv1dTransposeOp,
    2: relay.Conv2dTransposeOp,
    3: relay.Conv3dTransposeOp,
}


def gemm(c: NodeContext) -> Outputs:
    a, b = c.value(0), c.value(1)
    ta, tb = bool(c.int_attr("transA", 0)), bool(c.int_attr("transB", 0))
    if c.rank(0) != 2 or c.rank(1) != 2:
        raise ConversionError(f"A and B must be 2-d, got shapes {c.shape(0)} and {c.shape(1)}")
    if tb and not ta:
        y = c.emit(relay.DenseOp(a, b))
    else:
        y = c.emit(relay.MatmulOp(a, b, transpose_a=ta, transpose_b=tb))
    alpha, beta = c.float_attr("alpha", 1.0), c.float_attr("beta", 1.0)
    dtype = c.dtype(0)
    if alpha != 1.0:
        y = c.emit(relay.MultiplyOp(y, scalar(c, alpha, dtype)))
    if c.has(2) and beta != 0.0:
        bias_const = c.const(2)
        if beta != 1.0 and bias_const is not None:
            bias = c.lift((bias_const * beta).astype(dtype))
        else:
            bias = c.value(2)
            if beta != 1.0:
                bias = c.emit(relay.MultiplyOp(bias, scalar(c, beta, dtype)))
        units = static_shape(y)[1]
        if static_shape(bias) == (units,):
            y = c.emit(relay.BiasAddOp(y, bias, axis=1))
        else:
            y = c.emit(relay.AddOp(y, bias))
    return [y]


def matmul_values(c: NodeContext, a: SSAValue, b: SSAValue) -> SSAValue:
    """numpy.matmul of two relay values: nn.matmul, or batch_matmul on 3-d views."""
    sa, sb = static_shape(a), static_shape(b)
    if not sa or not sb:
        raise ConversionError("MatMul operands must have rank >= 1")
    a2 = reshape(c, a, [1, sa[0]]) if len(sa) == 1 else a
    b2 = reshape(c, b, [sb[0], 1]) if len(sb) == 1 else b
    sa2, sb2 = static_shape(a2), static_shape(b2)
    if sa2[-1] != sb2[-2]:
        raise ConversionError(f"inner dimensions differ: {list(sa)} x {list(sb)}")
    batch = list(np.broadcast_shapes(sa2[:-2], sb2[:-2]))
    if len(sb2) == 2:
        y = c.emit(relay.MatmulOp(a2, b2))
    else:
        m, k, n = sa2[-2], sa2[-1], sb2[-1]
        if list(sa2[:-2]) != batch:
            a2 = c.emit(relay.BroadcastToOp(a2, [*batch, m, k]))
        if list(sb2[:-2]) != batch:
            b2 = c.emit(relay.BroadcastToOp(b2, [*batch, k, n]))
        count = math.prod(batch)
        a3, b3 = reshape(c, a2, [count, m, k]), reshape(c, b2, [count, k, n])
        y = c.emit(relay.BatchMatmulOp(a3, b3, transpose_b=False))
        y = reshape(c, y, [*batch, m, n])
    out = [*batch, *([sa[-2]] if len(sa) >= 2 else []), *([sb[-1]] if len(sb) >= 2 else [])]
    if len(sa) >= 2 and len(sb) == 2:
        out = [*sa[:-1], sb[-1]]
    return reshape(c, y, out)


def matmul(c: NodeContext) -> Outputs:
    return [matmul_values(c, c.value(0), c.value(1))]


def batch_norm(c: NodeContext) -> Outputs:
    if c.int_attr("training_mode", 0):
        raise ConversionError("training_mode=1 is not supported (inference only)")
    if any(c.wants_output(i) for i in range(1, c.num_outputs)):
        raise ConversionError("the running mean/variance outputs (training) are not supported")
    x, (scale, bias, mean, var) = c.value(0), [c.value(i) for i in range(1, 5)]
    eps = c.float_attr("epsilon", 1e-5)
    t = c.emit(relay.BatchNormOp(x, scale, bias, mean, var, axis=1, epsilon=eps))
    return [c.emit(relay.TupleGetItemOp(t, 0))]


def layer_norm(c: NodeContext) -> Outputs:
    x, shape = c.value(0), c.shape(0)
    rank, dtype = len(shape), c.dtype(0)
    axis = norm_axis(c.int_attr("axis", -1), rank)
    eps = c.float_attr("epsilon", 1e-5)
    axes = list(range(axis, rank))
    extras = c.wants_output(1) or c.wants_output(2)
    if not extras and axis == rank - 1 and c.shape(1) == (shape[-1],):
        beta = c.value(2) if c.has(2) else c.lift(np.zeros(shape[-1], dtype))
        op = relay.LayerNormOp(x, c.value(1), beta, axis=-1, epsilon=eps, center=c.has(2))
        return [c.emit(op)]
    # Composed: mean, centred, inverse standard deviation over the trailing axes.
    mean = c.emit(relay.MeanOp(x, axes, keepdims=True))
    centred = c.emit(relay.SubtractOp(x, mean))
    var = c.emit(relay.MeanOp(c.emit(relay.MultiplyOp(centred, centred)), axes, keepdims=True))
    inv_std = c.emit(relay.RsqrtOp(c.emit(relay.AddOp(var, scalar(c, eps, dtype)))))
    y = c.emit(relay.MultiplyOp(c.emit(relay.MultiplyOp(centred, inv_std)), c.value(1)))
    if c.has(2):
        y = c.emit(relay.AddOp(y, c.value(2)))
    return [y, mean, inv_std]


def lrn(c: NodeContext) -> Outputs:
    size = c.int_attr("size", 0)
    if size % 2 == 0:
        raise ConversionError(f"only odd LRN sizes are supported, got {size}")
    op = relay.LrnOp(
        c.value(0),
        size=size,
        axis=1,
        alpha=c.float_attr("alpha", 1e-4),
        beta=c.float_attr("beta", 0.75),
        bias=c.float_attr("bias", 1.0),
    )
    return [c.emit(op)]


def dropout(c: NodeContext) -> Outputs:
    ratio = c.float_attr("ratio", 0.5)
    if c.opset >= 12 and c.has(1):
        ratio = float(c.static(1, "ratio").reshape(()))
    training = c.const(2) if c.opset >= 12 else None
    if training is not None and bool(training.reshape(())) and ratio != 0:
        raise ConversionError("training_mode=True with a non-zero ratio is random; not supported")
    mask = np.ones(c.shape(0), dtype=np.bool_) if c.wants_output(1) else None
    return [c.emit(relay.DropoutOp(c.value(0), min(max(ratio, 0.0), 0.99))), mask]


# ---------------------------------------------------------------------------------------------
# Pooling and resizing


def pool(is_max: bool) -> Converter:
    def convert(c: NodeContext) -> Outputs:
        if c.wants_output(1):
            raise ConversionError("the Indices output of MaxPool is not supported")
        x = c.value(0)
        n = check_spatial(c, c.rank(0))
        kernel = c.ints_attr("kernel_shape")
        if kernel is None:
            raise ConversionError("attribute 'kernel_shape' is required")
        strides, dilations = spatial_attrs(c, n, kernel)
        pads = window_pads(c, c.shape(0)[2:], kernel, strides, dilations)
        ceil_mode = bool(c.int_attr("ceil_mode", 0))
        if n == 1:
            x = as_2d(c, x)
            kernel, strides, dilations = [1, *kernel], [1, *strides], [1, *dilations]
            pads = [0, pads[0], 0, pads[1]]
        if is_max:
            max_op = relay.MaxPool3dOp if n == 3 else relay.MaxPool2dOp
            y = c.emit(max_op(x, kernel, strides, pads, dilations, ceil_mode=ceil_mode))
        else:
            include = bool(c.int_attr("count_include_pad", 0))
            avg_op = relay.AvgPool3dOp if n == 3 else relay.AvgPool2dOp
            op = avg_op(
                x, kernel, strides, pads, dilations, ceil_mode=ceil_mode, count_include_pad=include
            )
            y = c.emit(op)
        if n == 1:
            n_, ch, _, w = static_shape(y)
            y = reshape(c, y, [n_, ch, w])
        return [y]

    return convert


def global_pool(is_max: bool) -> Converter:
    def convert(c: NodeContext) -> Outputs:
        rank = c.rank(0)
        if rank == 4:
            op = relay.GlobalMaxPool2dOp if is_max else relay.GlobalAvgPool2dOp
            return [c.emit(op(c.value(0)))]
        reduce = relay.MaxOp if is_max else relay.MeanOp
        return [c.emit(reduce(c.value(0), list(range(2, rank)), keepdims=True))]

    return convert


def resize(c: NodeContext) -> Outputs:
    shape = c.shape(0)
    rank = len(shape)
    roi: np.ndarray | None = None
    sizes: np.ndarray | None = None
    scales: np.ndarray | None = None
    axes = list(range(rank))
    if c.op_type == "Upsample" or c.opset < 11:
        raw = c.attr("scales") if c.op_type == "Upsample" and c.opset < 9 else None
        scales = np.asarray(raw if raw is not None else c.static(1, "scales"), dtype=np.float64)
        mode = ResizeMode(
            mode=c.str_attr("mode", "nearest"),
            coordinate_mode="asymmetric",
            nearest_mode="floor",
        )
    else:
        crop = c.str_attr("coordinate_transformation_mode", "") == "tf_crop_and_resize"
        if crop and c.has(1) and c.static(1, "roi").size:
            roi = c.static(1, "roi").astype(np.float64)
        if c.has(2) and c.static(2, "scales").size:
            scales = c.static(2, "scales").astype(np.float64)
        if c.has(3):
            sizes = c.static(3, "sizes").astype(np.int64)
        given = c.ints_attr("axes")
        if given is not None:
            axes = [norm_axis(a, rank) for a in given]
        mode = ResizeMode(
            mode=c.str_attr("mode", "nearest"),
            coordinate_mode=c.str_attr("coordinate_transformation_mode", "half_pixel"),
            nearest_mode=c.str_attr("nearest_mode", "round_prefer_floor"),
            cubic_a=c.float_attr("cubic_coeff_a", -0.75),
            exclude_outside=bool(c.int_attr("exclude_outside", 0)),
            antialias=bool(c.int_attr("antialias", 0)),
            extrapolation_value=c.float_attr("extrapolation_value", 0.0),
        )
    if mode.mode not in ("nearest", "linear", "cubic", "bilinear"):
        raise ConversionError(f"mode '{mode.mode}' is not supported")
    if mode.mode == "bilinear":
        mode = ResizeMode("linear", mode.coordinate_mode, mode.nearest_mode)
    scale_of = [1.0] * rank
    out_shape = list(shape)
    if sizes is not None:
        factors = [sizes[i] / shape[a] for i, a in enumerate(axes)]
        policy = c.str_attr("keep_aspect_ratio_policy", "stretch")
        if policy != "stretch":
            common = min(factors) if policy == "not_larger" else max(factors)
            factors = [common] * len(axes)
            for a in axes:
                out_shape[a] = int(common * shape[a] + 0.5)
        else:
            for i, a in enumerate(axes):
                out_shape[a] = int(sizes[i])
        for i, a in enumerate(axes):
            scale_of[a] = float(factors[i])
    elif scales is not None:
        if len(scales) != len(axes):
            raise ConversionError(f"scales has {len(scales)} entries for {len(axes)} axes")
        for i, a in enumerate(axes):
            scale_of[a] = float(scales[i])
            out_shape[a] = int(scales[i] * shape[a])
    else:
        raise ConversionError("one of scales and sizes must be given")
    y = c.value(0)
    dtype = c.dtype(0)
    for i, a in enumerate(axes):
        box = (0.0, 1.0) if roi is None else (float(roi[i]), float(roi[len(axes) + i]))
        if out_shape[a] == shape[a] and scale_of[a] == 1.0 and box == (0.0, 1.0):
            continue
        if out_shape[a] < 1:
            raise ConversionError(f"axis {a} of size {shape[a]} resizes to {out_shape[a]}")
        matrix = interpolation_matrix(shape[a], out_shape[a], scale_of[a], mode, box)
        y = apply_along(c, y, a, matrix, dtype, mode)
    return [y]


def apply_along(
    c: NodeContext, x: SSAValue, axis: int, matrix: np.ndarray, dtype: np.dtype, mode: ResizeMode
) -> SSAValue:
    """y[..., o, ...] = sum_i matrix[o, i] * x[..., i, ...] (+ extrapolation where rows are 0)."""
    rows = matrix.sum(axis=1)
    one_hot = np.all((matrix == 0) | (matrix == 1), axis=1) & (rows == 1)
    if bool(np.all(one_hot)):
        indices = c.lift(matrix.argmax(axis=1).astype(np.int64))
        return c.emit(relay.TakeOp(x, indices, axis=axis, mode="clip"))
    rank = len(static_shape(x))
    perm = [i for i in range(rank) if i != axis] + [axis]
    moved = transpose(c, x, perm)
    y = c.emit(relay.DenseOp(moved, c.lift(matrix.astype(dtype))))
    if mode.extrapolation_value != 0 and bool(np.any(rows == 0)):
        fill = ((rows == 0) * mode.extrapolation_value).astype(dtype)
        y = c.emit(relay.AddOp(y, c.lift(fill)))
    return transpose(c, y, list(np.argsort(perm)))


# ---------------------------------------------------------------------------------------------
# Reductions


def reduce(
    op: type[relay.ReduceOp],
    axes_input_from: int = 18,
    before: Callable[[NodeContext, SSAValue], SSAValue] | None = None,
    after: Callable[[NodeContext, SSAValue], SSAValue] | None = None,
) -> Converter:
    """A ReduceX row; `before`/`after` compose ReduceSumSquare, ReduceL2, ReduceLogSum..."""

    def convert(c: NodeContext) -> Outputs:
        if c.opset >= axes_input_from:
            given = c.static(1, "axes").astype(np.int64).tolist() if c.has(1) else None
        else:
            given = c.ints_attr("axes")
        keep = bool(c.int_attr("keepdims", 1))
        if not given:
            if c.int_attr("noop_with_empty_axes", 0):
                return [c.tensor(0)]
            given = None
        x = c.value(0) if before is None else before(c, c.value(0))
        y = c.emit(op(x, given, keepdims=keep))
        return [y if after is None else after(c, y)]

    return convert


def reduce_log_sum_exp(c: NodeContext) -> Outputs:
    """log(sum(exp(x - max))) + max, stable for large inputs."""
    if c.opset >= 18:
        given = c.static(1, "axes").astype(np.int64).tolist() if c.has(1) else None
    else:
        given = c.ints_attr("axes")
    keep = bool(c.int_attr("keepdims", 1))
    if not given and c.int_attr("noop_with_empty_axes", 0):
        return [c.tensor(0)]
    x = c.value(0)
    axes = given or None
    peak = c.emit(relay.MaxOp(x, axes, keepdims=True))
    shifted = c.emit(relay.ExpOp(c.emit(relay.SubtractOp(x, peak))))
    total = c.emit(relay.LogOp(c.emit(relay.SumOp(shifted, axes, keepdims=True))))
    y = c.emit(relay.AddOp(total, peak))
    if not keep:
        y = c.emit(relay.SqueezeOp(y, axes if axes is not None else list(range(c.rank(0)))))
    return [y]


def square(c: NodeContext, x: SSAValue) -> SSAValue:
    return c.emit(relay.MultiplyOp(x, x))


def absolute(c: NodeContext, x: SSAValue) -> SSAValue:
    return c.emit(relay.AbsOp(x))


def square_root(c: NodeContext, x: SSAValue) -> SSAValue:
    return c.emit(relay.SqrtOp(x))


def logarithm(c: NodeContext, x: SSAValue) -> SSAValue:
    return c.emit(relay.LogOp(x))


def arg_reduce(op: type[relay.ArgReduceOp]) -> Converter:
    def convert(c: NodeContext) -> Outputs:
        x, shape = c.value(0), c.shape(0)
        axis = norm_axis(c.int_attr("axis", 0), len(shape))
        keep = bool(c.int_attr("keepdims", 1))
        last = bool(c.int_attr("select_last_index", 0))
        idx = c.emit(op(x, [axis], keepdims=keep, select_last_index=last))
        return [c.emit(relay.CastOp(idx, np.int64))]

    return convert


# ---------------------------------------------------------------------------------------------
# Shapes and data movement


def flatten(c: NodeContext) -> Outputs:
    shape = c.shape(0)
    axis = c.int_attr("axis", 1)
    axis = axis + len(shape) if axis < 0 else axis
    if not 0 <= axis <= len(shape):
        raise ConversionError(f"axis {c.int_attr('axis', 1)} is out of range for rank {len(shape)}")
    return [reshape(c, c.value(0), [math.prod(shape[:axis]), math.prod(shape[axis:])])]


def reshape_target(c: NodeContext, shape: Sequence[int], target: Sequence[int]) -> list[int]:
    allow_zero = bool(c.int_attr("allowzero", 0))
    out = [shape[i] if d == 0 and not allow_zero else int(d) for i, d in enumerate(target)]
    if out.count(-1) > 1:
        raise ConversionError(f"shape {list(target)} has more than one -1")
    if -1 in out:
        known = math.prod(d for d in out if d != -1)
        if known == 0 or math.prod(shape) % known:
            raise ConversionError(f"cannot reshape {list(shape)} to {list(target)}")
        out[out.index(-1)] = math.prod(shape) // known
    if math.prod(out) != math.prod(shape):
        raise ConversionError(f"cannot reshape {list(shape)} to {list(target)}")
    return out


def reshape_op(c: NodeContext) -> Outputs:
    raw = c.ints_attr("shape") if c.opset < 5 else c.static(1, "shape").tolist()
    if raw is None:
        raise ConversionError("the target shape is missing")
    target = reshape_target(c, c.shape(0), raw)
    if 0 in target:  # an empty tensor is a constant (before its input is even a value)
        return [np.zeros(target, c.dtype(0))]
    return [reshape(c, c.value(0), target)]


def concat(c: NodeContext) -> Outputs:
    values = [c.value(i) for i in range(c.num_inputs) if c.has(i)]
    axis = norm_axis(c.int_attr("axis", 0), c.rank(0))
    return [c.emit(relay.ConcatenateOp(values, axis))]


def transpose_op(c: NodeContext) -> Outputs:
    rank = c.rank(0)
    perm = c.ints_attr("perm") or list(reversed(range(rank)))
    if sorted(perm) != list(range(rank)):
        raise ConversionError(f"perm {perm} is not a permutation of the {rank} axes")
    return [transpose(c, c.value(0), perm)]


def split(c: NodeContext) -> Outputs:
    shape = c.shape(0)
    axis = norm_axis(c.int_attr("axis", 0), len(shape))
    size = shape[axis]
    if c.opset >= 13:
        parts = c.static(1, "split").astype(np.int64).tolist() if c.has(1) else None
    else:
        parts = c.ints_attr("split")
    if parts is None:
        count = c.int_attr("num_outputs", c.num_outputs)
        step = -(-size // count)
        parts = [min(step, size - i * step) for i in range(count)]
    if sum(parts) != size or len(parts) != c.num_outputs:
        raise ConversionError(
            f"split sizes {parts} do not cover axis {axis} of size {size} in "
            f"{c.num_outputs} outputs"
        )
    indices = list(np.cumsum(parts)[:-1])
    t = c.emit(relay.SplitOp(c.value(0), [int(i) for i in indices], axis))
    return [c.emit(relay.TupleGetItemOp(t, i)) for i in range(len(parts))]


def axes_of(c: NodeContext, from_opset: int = 13) -> list[int] | None:
    if c.opset >= from_opset:
        return c.static(1, "axes").astype(np.int64).tolist() if c.has(1) else None
    return c.ints_attr("axes")


def squeeze(c: NodeContext) -> Outputs:
    shape = c.shape(0)
    axes = axes_of(c)
    if axes is None:
        axes = [i for i, d in enumerate(shape) if d == 1]
    axes = [norm_axis(a, len(shape)) for a in axes]
    for a in axes:
        if shape[a] != 1:
            raise ConversionError(f"cannot squeeze axis {a} of size {shape[a]}")
    return [reshape(c, c.value(0), [d for i, d in enumerate(shape) if i not in axes])]


def unsqueeze(c: NodeContext) -> Outputs:
    shape = list(c.shape(0))
    axes = axes_of(c)
    if axes is None:
        raise ConversionError("axes are required")
    rank = len(shape) + len(axes)
    positions = sorted(norm_axis(a, rank) for a in axes)
    out = shape[:]
    for p in positions:
        out.insert(p, 1)
    if len(positions) == 1:
        return [c.emit(relay.ExpandDimsOp(c.value(0), positions[0]))]
    return [reshape(c, c.value(0), out)]


def pad(c: NodeContext) -> Outputs:
    shape = c.shape(0)
    rank = len(shape)
    mode = c.str_attr("mode", "constant")
    if mode not in ("constant", "edge", "reflect", "wrap"):
        raise ConversionError(f"mode '{mode}' is not supported")
    if c.opset < 11:
        raw = c.ints_attr("pads") or c.ints_attr("paddings") or []
        value = c.float_attr("value", 0.0)
        axes = list(range(rank))
    else:
        raw = c.static(1, "pads").astype(np.int64).tolist()
        value = float(c.static(2, "constant_value").reshape(())) if c.has(2) else 0.0
        axes = list(range(rank))
        if c.has(3):
            axes = [norm_axis(a, rank) for a in c.static(3, "axes").tolist()]
    if len(raw) != 2 * len(axes):
        raise ConversionError(f"pads must have {2 * len(axes)} entries, got {raw}")
    begin, end = [0] * rank, [0] * rank
    for i, a in enumerate(axes):
        begin[a], end[a] = raw[i], raw[len(axes) + i]
    x = c.value(0)
    if any(p < 0 for p in begin + end):
        starts = [max(-b, 0) for b in begin]
        stops = [d - max(-e, 0) for d, e in zip(shape, end, strict=True)]
        x = c.emit(relay.StridedSliceOp(x, starts, stops))
    widths = [(max(b, 0), max(e, 0)) for b, e in zip(begin, end, strict=True)]
    if not any(v for pair in widths for v in pair):
        return [x]
    if mode == "wrap":
        return [wrap_pad(c, x, widths)]
    return [c.emit(relay.PadOp(x, widths, value, mode))]


def wrap_pad(c: NodeContext, x: SSAValue, widths: Sequence[tuple[int, int]]) -> SSAValue:
    """Pad mode wrap: each axis grows by its own tail before and its head after."""
    for axis, (before, after) in enumerate(widths):
        dim = static_shape(x)[axis]
        if max(before, after) > dim:
            raise ConversionError(
                f"wrap padding of {max(before, after)} exceeds axis {axis} ({dim})"
            )
        parts = []
        if before:
            parts.append(c.emit(relay.StridedSliceOp(x, [dim - before], [dim], axes=[axis])))
        parts.append(x)
        if after:
            parts.append(c.emit(relay.StridedSliceOp(x, [0], [after], axes=[axis])))
        if len(parts) > 1:
            x = c.emit(relay.ConcatenateOp(parts, axis))
    return x


def slice_op(c: NodeContext) -> Outputs:
    shape = c.shape(0)
    rank = len(shape)
    if c.opset < 10:
        starts, ends = c.ints_attr("starts") or [], c.ints_attr("ends") or []
        axes = c.ints_attr("axes")
        steps = None
    else:
        starts = c.static(1, "starts").astype(np.int64).tolist()
        ends = c.static(2, "ends").astype(np.int64).tolist()
        axes = c.static(3, "axes").astype(np.int64).tolist() if c.has(3) else None
        steps = c.static(4, "steps").astype(np.int64).tolist() if c.has(4) else None
    axes = [norm_axis(a, rank) for a in (axes if axes is not None else range(len(starts)))]
    steps = steps or [1] * len(starts)
    if not len(starts) == len(ends) == len(axes) == len(steps):
        raise ConversionError("starts, ends, axes and steps differ in length")
    begin, stop = [], []
    for s, e, a, st in zip(starts, ends, axes, steps, strict=True):
        if st == 0:
            raise ConversionError("steps must not be 0")
        dim = shape[a]
        s, e = s + dim if s < 0 else s, e + dim if e < 0 else e
        if st > 0:
            s, e = min(max(s, 0), dim), min(max(e, 0), dim)
        else:
            s, e = min(max(s, -1), dim - 1), min(max(e, -1), dim - 1)
            s, e = (-(dim + 1) if s == -1 else s), (-(dim + 1) if e == -1 else e)
        begin.append(s)
        stop.append(e)
    return [c.emit(relay.StridedSliceOp(c.value(0), begin, stop, steps, axes))]


def gather(c: NodeContext) -> Outputs:
    axis = norm_axis(c.int_attr("axis", 0), c.rank(0))
    size, indices = c.shape(0)[axis], c.const(1)
    if indices is not None and indices.size and not -size <= indices.min() <= indices.max() < size:
        bad = indices[(indices < -size) | (indices >= size)].flat[0]
        raise ConversionError(f"index {bad} is out of range for axis {axis} of size {size}")
    # "wrap" maps the negative indices ONNX allows onto Python's meaning.
    return [c.emit(relay.TakeOp(c.value(0), c.value(1), axis=axis, mode="wrap"))]


def expand(c: NodeContext) -> Outputs:
    target = c.static(1, "shape").astype(np.int64).tolist()
    try:
        out = list(np.broadcast_shapes(c.shape(0), tuple(target)))
    except ValueError:
        raise ConversionError(f"cannot expand {list(c.shape(0))} to {target}") from None
    if tuple(out) == c.shape(0):
        return [c.tensor(0)]
    return [c.emit(relay.BroadcastToOp(c.value(0), out))]


def tile(c: NodeContext) -> Outputs:
    reps = c.static(1, "repeats").astype(np.int64).tolist()
    if len(reps) != c.rank(0):
        raise ConversionError(f"repeats {reps} must have one entry per axis of rank {c.rank(0)}")
    return [c.emit(relay.TileOp(c.value(0), reps))]


def shape_op(c: NodeContext) -> Outputs:
    shape = c.shape(0)
    start, end = c.int_attr("start", 0), c.attr("end", None)
    return [np.array(shape[start:end], dtype=np.int64)]  # type: ignore[misc]


def size_op(c: NodeContext) -> Outputs:
    return [np.array(math.prod(c.shape(0)), dtype=np.int64)]


def constant(c: NodeContext) -> Outputs:
    for name, dtype in (
        ("value", None),
        ("value_float", np.float32),
        ("value_floats", np.float32),
        ("value_int", np.int64),
        ("value_ints", np.int64),
    ):
        if name in c.attrs:
            value = np.asarray(c.attrs[name], dtype=dtype)
            if value.dtype.kind not in "biuf":
                raise ConversionError(f"a constant of type {value.dtype} is not supported")
            return [value]
    raise ConversionError(f"attributes {sorted(c.attrs)} are not supported (sparse or string?)")


def constant_of_shape(c: NodeContext) -> Outputs:
    """A constant up to the fold limit; above it, a broadcast of the value run at run time."""
    shape = c.static(0, "shape").astype(np.int64).tolist()
    value = c.attr("value")
    fill = np.zeros(1, np.float32) if value is None else np.asarray(value).reshape(-1)
    if fill.dtype.kind not in "biuf":
        raise ConversionError(f"a constant of type {fill.dtype} is not supported")
    if any(d < 0 for d in shape):
        raise ConversionError(f"shape {shape} has a negative dimension")
    if math.prod(shape) > c.state.fold_limit:
        return [c.emit(relay.BroadcastToOp(c.lift(fill[:1].reshape(())), shape))]
    return [np.broadcast_to(fill[:1].reshape(()), shape)]


def einsum(c: NodeContext) -> Outputs:
    equation = c.str_attr("equation", "").replace(" ", "")
    if "..." in equation:
        raise ConversionError(f"ellipsis in equation '{equation}' is not supported")
    lhs, _, rhs = equation.partition("->")
    terms = lhs.split(",")
    values = c.values()
    if len(terms) != len(values):
        raise ConversionError(f"equation '{equation}' has {len(terms)} operands, got {len(values)}")
    if "->" not in equation:
        counts = {ch: lhs.count(ch) for ch in set(lhs) if ch in string.ascii_letters}
        rhs = "".join(sorted(ch for ch, n in counts.items() if n == 1))
    for i, t in enumerate(terms):
        if not t.isalpha() and t:
            raise ConversionError(f"operand '{t}' of equation '{equation}' is not letters")
        if len(t) != len(static_shape(values[i])):
            raise ConversionError(
                f"operand '{t}' of equation '{equation}' has {len(t)} indices but input {i} "
                f"has rank {len(static_shape(values[i]))}"
            )
        if len(set(t)) != len(t):
            raise ConversionError(f"repeated index in '{t}' (diagonals) is not supported")
    if set(rhs) - set(lhs) or len(set(rhs)) != len(rhs):
        raise ConversionError(
            f"the output '{rhs}' of equation '{equation}' must name distinct input indices"
        )
    value, labels = values[0], terms[0]
    for i in range(1, len(values)):
        later = set(rhs).union(*terms[i + 1 :])
        value, labels = einsum_pair(c, value, labels, values[i], terms[i], later)
    value, labels = sum_out(c, value, labels, set(rhs))
    return [transpose(c, value, [labels.index(ch) for ch in rhs])]


def sum_out(c: NodeContext, x: SSAValue, labels: str, keep: set[str]) -> tuple[SSAValue, str]:
    """Sum over the labels of `x` not in `keep`."""
    gone = [i for i, ch in enumerate(labels) if ch not in keep]
    if not gone:
        return x, labels
    return c.emit(relay.SumOp(x, gone)), "".join(ch for ch in labels if ch in keep)


def einsum_pair(
    c: NodeContext, a: SSAValue, la: str, b: SSAValue, lb: str, later: set[str]
) -> tuple[SSAValue, str]:
    """Contract two operands with batch_matmul; the result keeps the labels in `later`."""
    a, la = sum_out(c, a, la, later | set(lb))
    b, lb = sum_out(c, b, lb, later | set(la))
    batch = [ch for ch in la if ch in lb and ch in later]
    contract = [ch for ch in la if ch in lb and ch not in later]
    left = [ch for ch in la if ch not in lb]
    right = [ch for ch in lb if ch not in la]
    size = {
        **dict(zip(lb, static_shape(b), strict=True)),
        **dict(zip(la, static_shape(a), strict=True)),
    }
    for ch in batch + contract:
        if static_shape(a)[la.index(ch)] != static_shape(b)[lb.index(ch)]:
            raise ConversionError(f"index '{ch}' has different sizes in the two operands")
    a = transpose(c, a, [la.index(ch) for ch in batch + left + contract])
    b = transpose(c, b, [lb.index(ch) for ch in batch + right + contract])

    def prod(chars: list[str]) -> int:
        return math.prod(size[ch] for ch in chars)

    a3 = reshape(c, a, [prod(batch), prod(left), prod(contract)])
    b3 = reshape(c, b, [prod(batch), prod(right), prod(contract)])
    y = c.emit(relay.BatchMatmulOp(a3, b3))
    labels = batch + left + right
    return reshape(c, y, [size[ch] for ch in labels]), "".join(labels)


# ---------------------------------------------------------------------------------------------
# Composites: ops relay lacks, built from the ones it has


def boolean(c: NodeContext, value: bool) -> SSAValue:
    return c.lift(np.array(value))


def greater_or_equal(c: NodeContext) -> Outputs:
    a, b = c.value(0), c.value(1)
    gt, eq = c.emit(relay.GreaterOp(a, b)), c.emit(relay.EqualOp(a, b))
    return [c.emit(relay.WhereOp(gt, boolean(c, True), eq))]


def less_or_equal(c: NodeContext) -> Outputs:
    a, b = c.value(0), c.value(1)
    lt, eq = c.emit(relay.LessOp(a, b)), c.emit(relay.EqualOp(a, b))
    return [c.emit(relay.WhereOp(lt, boolean(c, True), eq))]


def logical_and(c: NodeContext) -> Outputs:
    return [c.emit(relay.WhereOp(c.value(0), c.value(1), boolean(c, False)))]


def logical_or(c: NodeContext) -> Outputs:
    return [c.emit(relay.WhereOp(c.value(0), boolean(c, True), c.value(1)))]


def logical_xor(c: NodeContext) -> Outputs:
    return [c.emit(relay.LogicalNotOp(c.emit(relay.EqualOp(c.value(0), c.value(1)))))]


def cast_like(c: NodeContext) -> Outputs:
    """Cast to the type of input 1, whose values do not matter: a constant input 0 folds
    even when input 1 is only known at run time (ONNX functions cast -inf or 0 like Q)."""
    if c.dtype(0) == c.dtype(1):
        return [c.tensor(0)]
    value = c.const(0)
    if value is not None:
        with np.errstate(all="ignore"):
            return [value.astype(c.dtype(1))]  # type: ignore[list-item]
    return [c.emit(relay.CastOp(c.value(0), c.dtype(1)))]


def hard_sigmoid_of(c: NodeContext, x: SSAValue, alpha: float, beta: float) -> SSAValue:
    dtype = c.dtype(0)
    scaled = c.emit(
        relay.AddOp(c.emit(relay.MultiplyOp(x, scalar(c, alpha, dtype))), scalar(c, beta, dtype))
    )
    return c.emit(relay.ClipOp(scaled, 0.0, 1.0))


def hard_sigmoid(c: NodeContext) -> Outputs:
    alpha, beta = c.float_attr("alpha", 0.2), c.float_attr("beta", 0.5)
    return [hard_sigmoid_of(c, c.value(0), alpha, beta)]


def hard_swish(c: NodeContext) -> Outputs:
    x = c.value(0)
    return [c.emit(relay.MultiplyOp(x, hard_sigmoid_of(c, x, 1 / 6, 0.5)))]


def softplus(c: NodeContext) -> Outputs:
    # log(1 + exp(x)) = max(x, 0) + log(1 + exp(-|x|)), without overflow.
    x, dtype = c.value(0), c.dtype(0)
    tail = c.emit(relay.ExpOp(c.emit(relay.NegativeOp(c.emit(relay.AbsOp(x))))))
    log1p = c.emit(relay.LogOp(c.emit(relay.AddOp(tail, scalar(c, 1, dtype)))))
    return [c.emit(relay.AddOp(c.emit(relay.ReluOp(x)), log1p))]


def softsign(c: NodeContext) -> Outputs:
    x, dtype = c.value(0), c.dtype(0)
    denominator = c.emit(relay.AddOp(c.emit(relay.AbsOp(x)), scalar(c, 1, dtype)))
    return [c.emit(relay.DivideOp(x, denominator))]


def elu_of(c: NodeContext, x: SSAValue, alpha: float, gamma: float = 1.0) -> SSAValue:
    """gamma * (x if x > 0 else alpha * (exp(x) - 1)): Elu, and Selu with its gamma."""
    dtype = c.dtype(0)
    expm1 = c.emit(relay.SubtractOp(c.emit(relay.ExpOp(x)), scalar(c, 1, dtype)))
    negative = c.emit(relay.MultiplyOp(expm1, scalar(c, alpha, dtype)))
    y = c.emit(relay.WhereOp(c.emit(relay.GreaterOp(x, scalar(c, 0, dtype))), x, negative))
    return y if gamma == 1.0 else c.emit(relay.MultiplyOp(y, scalar(c, gamma, dtype)))


def elu(c: NodeContext) -> Outputs:
    return [elu_of(c, c.value(0), c.float_attr("alpha", 1.0))]


def selu(c: NodeContext) -> Outputs:
    alpha = c.float_attr("alpha", 1.67326319217681884765625)
    gamma = c.float_attr("gamma", 1.05070102214813232421875)
    return [elu_of(c, c.value(0), alpha, gamma)]


def instance_norm(c: NodeContext) -> Outputs:
    """(x - mean) / sqrt(var + eps) * scale + bias over the spatial axes of each channel."""
    x, shape, dtype = c.value(0), c.shape(0), c.dtype(0)
    axes = list(range(2, len(shape)))
    eps = c.float_attr("epsilon", 1e-5)
    mean = c.emit(relay.MeanOp(x, axes, keepdims=True))
    centred = c.emit(relay.SubtractOp(x, mean))
    var = c.emit(relay.MeanOp(square(c, centred), axes, keepdims=True))
    inv_std = c.emit(relay.RsqrtOp(c.emit(relay.AddOp(var, scalar(c, eps, dtype)))))
    per_channel = [shape[1]] + [1] * len(axes)
    scale, bias = reshape(c, c.value(1), per_channel), reshape(c, c.value(2), per_channel)
    y = c.emit(relay.MultiplyOp(c.emit(relay.MultiplyOp(centred, inv_std)), scale))
    return [c.emit(relay.AddOp(y, bias))]


def depth_to_space(c: NodeContext) -> Outputs:
    n, ch, h, w = c.shape(0)
    b = c.int_attr("blocksize", 0)
    if b < 1 or ch % (b * b):
        raise ConversionError(f"blocksize {b} does not divide the {ch} channels")
    if c.str_attr("mode", "DCR") == "DCR":
        x = reshape(c, c.value(0), [n, b, b, ch // (b * b), h, w])
        x = transpose(c, x, [0, 3, 4, 1, 5, 2])
    else:
        x = reshape(c, c.value(0), [n, ch // (b * b), b, b, h, w])
        x = transpose(c, x, [0, 1, 4, 2, 5, 3])
    return [reshape(c, x, [n, ch // (b * b), h * b, w * b])]


def space_to_depth(c: NodeContext) -> Outputs:
    n, ch, h, w = c.shape(0)
    b = c.int_attr("blocksize", 0)
    if b < 1 or h % b or w % b:
        raise ConversionError(f"blocksize {b} does not divide the spatial size {h}x{w}")
    x = reshape(c, c.value(0), [n, ch, h // b, b, w // b, b])
    crd = c.str_attr("mode", "DCR") == "CRD"
    x = transpose(c, x, [0, 1, 3, 5, 2, 4] if crd else [0, 3, 5, 1, 2, 4])
    return [reshape(c, x, [n, ch * b * b, h // b, w // b])]


GRID_SAMPLE_MODES = {"linear": "bilinear", "cubic": "bicubic"}  # opset 20's names -> TVM's


def grid_sample(c: NodeContext) -> Outputs:
    """GridSample: the grid (N, out..., rank) of (x, y[, z]) moved to TVM's (N, rank, out...)."""
    rank = c.rank(0) - 2
    if rank not in (2, 3) or c.rank(1) != rank + 2 or c.shape(1)[-1] != rank:
        raise ConversionError(
            f"needs 4-d or 5-d data and a grid of {rank} coordinates per point, got "
            f"{list(c.shape(0))} and {list(c.shape(1))}"
        )
    mode = c.str_attr("mode", "linear" if c.opset >= 20 else "bilinear")
    method = GRID_SAMPLE_MODES.get(mode, mode)
    if method not in ("bilinear", "nearest", "bicubic") or (method == "bicubic" and rank == 3):
        raise ConversionError(f"mode '{mode}' is not supported for {rank}-d sampling")
    padding = c.str_attr("padding_mode", "zeros")
    if padding not in ("zeros", "border", "reflection"):
        raise ConversionError(f"padding_mode '{padding}' is not one of zeros, border, reflection")
    grid = transpose(c, c.value(1), [0, rank + 1, *range(1, rank + 1)])
    layout = "NCHW" if rank == 2 else "NCDHW"
    align = bool(c.int_attr("align_corners", 0))
    return [c.emit(relay.GridSampleOp(c.value(0), grid, method, layout, padding, align))]


def affine_grid(c: NodeContext) -> Outputs:
    """AffineGrid: theta (N, rank, rank + 1) applied to the normalized coordinates of every
    point of `size` (N, C, out...): TVM's image.affine_grid for 2-d with align_corners (its
    points from -1 step (2 - 1e-7) / (size - 1)), otherwise theta times a constant matrix of
    the points (pixel centres, (2 i + 1) / size - 1, without align_corners)."""
    size = [int(v) for v in c.static(1, "size")]
    rank = len(size) - 2
    if rank not in (2, 3) or c.shape(0)[1:] != (rank, rank + 1) or min(size[2:]) < 1:
        raise ConversionError(
            f"needs theta (N, {rank}, {rank + 1}) and a size of 4 or 5 positive dimensions, "
            f"got {list(c.shape(0))} and {size}"
        )
    spatial, align = size[2:], bool(c.int_attr("align_corners", 0))
    n, dtype = c.shape(0)[0], c.dtype(0)
    if rank == 2 and align and min(spatial) > 1:
        grid = c.emit(relay.AffineGridOp(c.value(0), spatial))
        return [transpose(c, grid, [0, 2, 3, 1])]
    axes = [np.linspace(-1, 1, d) if align else (2 * np.arange(d) + 1) / d - 1 for d in spatial]
    points = np.meshgrid(*axes, indexing="ij")  # per axis, over out...
    rows = [p.reshape(-1) for p in reversed(points)]  # x first
    base = np.stack([*rows, np.ones_like(rows[0])]).astype(dtype)  # (rank + 1, points)
    theta = reshape(c, c.value(0), [n, rank, rank + 1, 1])
    products = c.emit(relay.MultiplyOp(theta, c.lift(base)))  # (N, rank, rank + 1, points)
    summed = c.emit(relay.SumOp(products, [2]))
    grid = reshape(c, summed, [n, rank, *spatial])
    return [transpose(c, grid, [0, *range(2, rank + 2), 1])]


CONVERTERS: dict[str, Converter] = {
    # Elementwise arithmetic and comparison
    "Add": binary(relay.AddOp),
    "Sub": binary(relay.SubtractOp),
    "Mul": binary(relay.MultiplyOp),
    "Div": binary(relay.DivideOp),
    "Pow": power,
    "Equal": binary(relay.EqualOp),
    "Less": binary(relay.LessOp),
    "Greater": binary(relay.GreaterOp),
    "Not": unary(relay.LogicalNotOp),
    "IsNaN": unary(relay.IsnanOp),
    "IsInf": is_inf,
    "GreaterOrEqual": greater_or_equal,
    "LessOrEqual": less_or_equal,
    "And": logical_and,
    "Or": logical_or,
    "Xor": logical_xor,
    "Where": where,
    "Sum": variadic(relay.AddOp),
    "Max": variadic(relay.MaximumOp),
    "Min": variadic(relay.MinimumOp),
    "Mean": variadic(relay.AddOp, mean=True),
    # Elementwise unary
    "Mod": modulo,
    "Abs": unary(relay.AbsOp),
    "Neg": unary(relay.NegativeOp),
    "Exp": unary(relay.ExpOp),
    "Log": unary(relay.LogOp),
    "Sqrt": unary(relay.SqrtOp),
    "Reciprocal": reciprocal,
    "Erf": unary(relay.ErfOp),
    "Sin": unary(relay.SinOp),
    "Cos": unary(relay.CosOp),
    "Tan": unary(relay.TanOp),
    "Atan": unary(relay.AtanOp),
    "Floor": unary(relay.FloorOp),
    "Ceil": unary(relay.CeilOp),
    "Round": unary(relay.RoundOp),
    "Sign": unary(relay.SignOp),
    "Tanh": unary(relay.TanhOp),
    "Sigmoid": unary(relay.SigmoidOp),
    "Relu": unary(relay.ReluOp),
    "LeakyRelu": leaky_relu,
    "PRelu": prelu,
    "Gelu": gelu,
    "Clip": clip,
    "Cast": cast,
    "CastLike": cast_like,
    "HardSigmoid": hard_sigmoid,
    "HardSwish": hard_swish,
    "Softplus": softplus,
    "Softsign": softsign,
    "Elu": elu,
    "Selu": selu,
    "Identity": identity,
    "Dropout": dropout,
    "Softmax": softmax(relay.SoftmaxOp),
    "LogSoftmax": softmax(relay.LogSoftmaxOp),
    # Convolution, matrix products, normalisation
    "Conv": conv,
    "ConvTranspose": conv_transpose,
    "Gemm": gemm,
    "MatMul": matmul,
    "Einsum": einsum,
    "BatchNormalization": batch_norm,
    "LayerNormalization": layer_norm,
    "LRN": lrn,
    "InstanceNormalization": instance_norm,
    # Pooling and resizing
    "MaxPool": pool(is_max=True),
    "AveragePool": pool(is_max=False),
    "GlobalMaxPool": global_pool(is_max=True),
    "GlobalAveragePool": global_pool(is_max=False),
    "Resize": resize,
    "Upsample": resize,
    # Reductions
    "ReduceSum": reduce(relay.SumOp, axes_input_from=13),
    "ReduceMean": reduce(relay.MeanOp),
    "ReduceMax": reduce(relay.MaxOp),
    "ReduceMin": reduce(relay.MinOp),
    "ReduceProd": reduce(relay.ProdOp),
    "ReduceSumSquare": reduce(relay.SumOp, before=square),
    "ReduceL1": reduce(relay.SumOp, before=absolute),
    "ReduceL2": reduce(relay.SumOp, before=square, after=square_root),
    "ReduceLogSum": reduce(relay.SumOp, after=logarithm),
    "ReduceLogSumExp": reduce_log_sum_exp,
    "ArgMax": arg_reduce(relay.ArgmaxOp),
    "ArgMin": arg_reduce(relay.ArgminOp),
    # Shapes, constants and data movement
    "Constant": constant,
    "ConstantOfShape": constant_of_shape,
    "Shape": shape_op,
    "Size": size_op,
    "Flatten": flatten,
    "Reshape": reshape_op,
    "Concat": concat,
    "Transpose": transpose_op,
    "Split": split,
    "Squeeze": squeeze,
    "Unsqueeze": unsqueeze,
    "Pad": pad,
    "Slice": slice_op,
    "Gather": gather,
    "Expand": expand,
    "Tile": tile,
    "DepthToSpace": depth_to_space,
    "SpaceToDepth": space_to_depth,
    "GridSample": grid_sample,
    "AffineGrid": affine_grid,
}

# Ops whose converter computes its constant outputs itself (never run through numpy folding).
SELF_FOLDING = frozenset({"Constant", "ConstantOfShape", "Shape", "Size", "Identity"})

_: Callable[[NodeContext], Outputs] = conv  # the converter signature, checked by pyright
