"""Neural-network operators under TVM's names and signatures: `relay.nn.conv2d`, ...

Arguments TVM accepts but that change nothing for static shapes (`channels`, `kernel_size`,
`out_layout`, `out_dtype` equal to the input dtype) are accepted and checked; padding takes
TVM's 1, 2 or 4 numbers. The builder of an op whose TVM signature is the op's own
(`relay.nn.softmax(data, axis)`) comes from the op's row in the relay dialect.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from xtvm.api.relay.expr import (
    Call,
    Constant,
    Expr,
    OpTypeError,
    RelayTypeError,
    const,
    deferred_until_typed,
    derive_builders,
    has_type,
    infer_untyped,
    make_call,
)
from xtvm.api.relay.op import tensor, transform
from xtvm.api.relay.op.reduce import sum as reduce_sum
from xtvm.api.relay.op.tensor import cast, ones_like
from xtvm.api.relay.op_attrs import recording
from xtvm.api.relay.ty import TensorType
from xtvm.dialects import relay as d
from xtvm.dialects.relay import DYNAMIC_INDEX

SLICE_TO_END = 2**63 - 1  # a strided_slice end past any axis: the slice runs to its end

IntOrSeq = int | Sequence[int]


def pad_tuple(padding: IntOrSeq) -> tuple[int, int, int, int]:
    """TVM's 2-d padding forms as (top, left, bottom, right)."""
    values = [padding] if isinstance(padding, int) else [int(p) for p in padding]
    if len(values) == 1:
        return (values[0],) * 4  # type: ignore[return-value]
    if len(values) == 2:
        return (values[0], values[1], values[0], values[1])
    if len(values) == 4:
        return tuple(values)  # type: ignore[return-value]
    raise ValueError(f"padding must have 1, 2 or 4 values, got {len(values)}")


def pair(value: IntOrSeq) -> tuple[int, int]:
    values = [value] * 2 if isinstance(value, int) else [int(v) for v in value]
    if len(values) != 2:
        raise ValueError(f"expected 2 values, got {len(values)}")
    return values[0], values[1]


def tensor_type(data: Expr) -> TensorType:
    typ = data.checked_type
    if not isinstance(typ, TensorType):
        raise TypeError(f"expected a tensor, got {typ}")
    return typ


def infer_vector(data: Expr, axis: int, *vectors: Expr) -> None:
    """Untyped per-channel operands (bias, gamma, ...) get the size of `data`'s axis."""
    typ = tensor_type(data)
    for v in vectors:
        if not has_type(v):
            infer_untyped(v, TensorType((typ.shape[axis],), typ.dtype))


def infer_conv_weight(
    data: Expr,
    weight: Expr,
    channels: int | None,
    kernel_size: IntOrSeq | None,
    groups: int,
    data_layout: str,
    kernel_layout: str,
    transpose: bool = False,
) -> None:
    """An untyped conv2d weight from `channels` and `kernel_size`, as TVM's Conv2DRel (with
    `transpose`, Conv2DTransposeRel's: all input channels, `channels / groups` outputs)."""
    if has_type(weight):
        return
    if channels is None or kernel_size is None:
        raise RelayTypeError("conv2d: an untyped weight needs channels= and kernel_size=")
    typ = tensor_type(data)
    in_channels = d.Layout.parse(data_layout).primal_sizes(typ.shape)["C"]
    kh, kw = pair(kernel_size)
    sizes = {"O": int(channels), "I": in_channels // groups, "H": kh, "W": kw}
    if transpose:
        sizes.update(O=int(channels) // groups, I=in_channels)
    infer_untyped(weight, TensorType([sizes[c] for c in kernel_layout], typ.dtype))


def accumulate_in(out_dtype: str, *operands: Expr) -> list[Expr]:
    """The operands of a product op computing in `out_dtype` (TVM's `out_dtype`: int8 data
    accumulated in int32, float16 in float32): each cast to it, as TVM's kernels cast every
    element before multiplying, so the arithmetic is the same."""
    if not out_dtype:
        return list(operands)
    return [x if tensor_type(x).dtype == out_dtype else cast(x, out_dtype) for x in operands]


def check_unused(data: Expr, out_dtype: str = "", out_layout: str = "", layout: str = "") -> None:
    """Reject what xtvm cannot honour instead of silently ignoring it."""
    typ = data.checked_type if out_dtype else None
    if out_dtype and isinstance(typ, TensorType) and out_dtype != typ.dtype:
        raise ValueError(f"out_dtype {out_dtype} differs from the input dtype {typ.dtype}")
    if out_layout and out_layout != layout:
        raise ValueError(f"out_layout {out_layout} differs from the layout {layout}")


@recording("nn.conv2d")
@deferred_until_typed(d.Conv2dOp)
def conv2d(
    data: Expr,
    weight: Expr,
    strides: IntOrSeq = (1, 1),
    padding: IntOrSeq = (0, 0),
    dilation: IntOrSeq = (1, 1),
    groups: int = 1,
    channels: int | None = None,
    kernel_size: IntOrSeq | None = None,
    data_layout: str = "NCHW",
    kernel_layout: str = "OIHW",
    out_layout: str = "",
    out_dtype: str = "",
) -> Call:
    check_unused(data, "", out_layout, data_layout)
    infer_conv_weight(data, weight, channels, kernel_size, groups, data_layout, kernel_layout)
    data, weight = accumulate_in(out_dtype, data, weight)
    call = make_call(
        d.Conv2dOp,
        data,
        weight,
        strides=pair(strides),
        padding=pad_tuple(padding),
        dilation=pair(dilation),
        groups=groups,
        data_layout=data_layout,
        kernel_layout=kernel_layout,
    )
    check_conv_weight(weight, kernel_layout, channels, kernel_size)
    return call


@recording("nn.conv1d")
@deferred_until_typed(d.Conv1dOp)
def conv1d(
    data: Expr,
    weight: Expr,
    strides: IntOrSeq = 1,
    padding: IntOrSeq = 0,
    dilation: IntOrSeq = 1,
    groups: int = 1,
    channels: int | None = None,
    kernel_size: IntOrSeq | None = None,
    data_layout: str = "NCW",
    kernel_layout: str = "OIW",
    out_layout: str = "",
    out_dtype: str = "",
) -> Call:
    """TVM's conv1d: NCW or NWC data; an untyped weight gets its shape from `channels` and
    `kernel_size`; with out_dtype, data and weight are converted to it first."""
    return _convolution(
        d.Conv1dOp,
        data,
        weight,
        (strides, padding, dilation),
        groups,
        channels,
        kernel_size,
        (data_layout, kernel_layout, out_layout),
        out_dtype,
    )


def check_conv_weight(
    weight: Expr, kernel_layout: str, channels: int | None, kernel_size: IntOrSeq | None
) -> None:
    """`channels` and `kernel_size`, where given, against the (typed) weight's shape."""
    wshape = weight.checked_type.shape  # type: ignore[attr-defined]
    sizes = d.Layout.parse(kernel_layout).primal_sizes(wshape)
    if channels is not None and int(channels) != sizes["O"]:
        raise OpTypeError(f"channels={channels} differs from the weight's {wshape}")
    if kernel_size is not None and pair(kernel_size) != (sizes["H"], sizes["W"]):
        raise OpTypeError(f"kernel_size={kernel_size} differs from the weight's {wshape}")


def nll_loss(
    predictions: Expr,
    targets: Expr,
    weights: Expr,
    reduction: str = "mean",
    ignore_index: int = -100,
) -> Expr:
    """TVM's negative log likelihood loss, composed of a gather and selects: -predictions
    [n, t, ...] * weights[t] at each target t (zero where t is ignore_index), summed, or
    summed and divided by the weights counted (mean), or as it is (none)."""
    if reduction not in ("mean", "sum", "none"):
        raise ValueError(f'nll_loss: reduction must be "mean", "sum" or "none", got "{reduction}"')
    dtype = tensor_type(targets).dtype
    kept = tensor.not_equal(targets, const(ignore_index, dtype))
    safe = transform.where(kept, targets, const(0, dtype))  # ignored targets read class 0
    picked = transform.squeeze(
        transform.gather(predictions, 1, transform.expand_dims(safe, 1)), axis=[1]
    )
    weight = transform.take(weights, safe)
    zero = const(0, tensor_type(predictions).dtype)
    loss = transform.where(kept, tensor.negative(tensor.multiply(picked, weight)), zero)
    if reduction == "none":
        return loss
    if reduction == "sum":
        return reduce_sum(loss)
    return tensor.divide(reduce_sum(loss), reduce_sum(transform.where(kept, weight, zero)))


@deferred_until_typed(d.DeformableConv2dOp)
def deformable_conv2d(
    data: Expr,
    offset: Expr,
    weight: Expr,
    strides: IntOrSeq = (1, 1),
    padding: IntOrSeq = (0, 0),
    dilation: IntOrSeq = (1, 1),
    deformable_groups: int = 1,
    groups: int = 1,
    channels: int | None = None,
    kernel_size: IntOrSeq = (3, 3),
    data_layout: str = "NCHW",
    kernel_layout: str = "OIHW",
    out_layout: str = "",
    out_dtype: str = "",
) -> Call:
    """TVM's deformable convolution; an untyped weight or offset gets its shape from
    `channels`, `kernel_size` and the output size, as TVM's type relation gives it."""
    check_unused(data, out_dtype, out_layout, data_layout)
    infer_conv_weight(data, weight, channels, kernel_size, groups, data_layout, kernel_layout)
    if not has_type(offset):
        typ = tensor_type(data)
        layout = d.Layout.parse(data_layout)
        sizes = layout.primal_sizes(typ.shape)
        kh, kw = pair(kernel_size)
        top, left, bottom, right = pad_tuple(padding)
        (sh, sw), (dh, dw) = pair(strides), pair(dilation)
        sizes.update(
            C=2 * kh * kw * deformable_groups,
            H=d.window_out(sizes["H"], top, bottom, kh, sh, dh, False),
            W=d.window_out(sizes["W"], left, right, kw, sw, dw, False),
        )
        infer_untyped(offset, TensorType([sizes[c] for c in data_layout], typ.dtype))
    call = make_call(
        d.DeformableConv2dOp,
        data,
        offset,
        weight,
        strides=pair(strides),
        padding=pad_tuple(padding),
        dilation=pair(dilation),
        deformable_groups=deformable_groups,
        groups=groups,
        data_layout=data_layout,
        kernel_layout=kernel_layout,
    )
    check_conv_weight(weight, kernel_layout, channels, kernel_size)
    return call


@deferred_until_typed(d.Conv2dWinogradOp)
def contrib_conv2d_winograd_without_weight_transform(
    data: Expr,
    weight: Expr,
    tile_size: int,
    strides: IntOrSeq = (1, 1),
    padding: IntOrSeq = (0, 0),
    dilation: IntOrSeq = (1, 1),
    groups: int = 1,
    channels: int | None = None,
    kernel_size: IntOrSeq | None = None,
    data_layout: str = "NHWC",
    kernel_layout: str = "HWIO",
    out_layout: str = "",
    out_dtype: str = "",
) -> Call:
    """A 3x3 stride-1 NHWC conv2d by Winograd F(tile_size, 3) on a kernel transformed ahead
    (`xtvm.ir.winograd.transform_kernel`: [alpha, alpha, C, K], or packed)."""
    check_unused(data, out_dtype, out_layout, data_layout)
    if data_layout != "NHWC":
        raise ValueError(f"winograd conv2d supports data_layout NHWC, got {data_layout}")
    if pair(strides) != (1, 1) or pair(dilation) != (1, 1) or groups != 1:
        raise ValueError("winograd conv2d needs strides 1, dilation 1 and groups 1")
    if kernel_size is not None and pair(kernel_size) != (3, 3):
        raise ValueError(f"winograd conv2d needs a 3x3 kernel, got kernel_size={kernel_size}")
    call = make_call(
        d.Conv2dWinogradOp, data, weight, tile_size=tile_size, padding=pad_tuple(padding)
    )
    out = call.checked_type.shape  # type: ignore[attr-defined]
    if channels is not None and int(channels) != int(out[3]):
        raise OpTypeError(f"channels={channels} differs from the weight's {out[3]} outputs")
    return call


def spatial_values(name: str, value: IntOrSeq, dims: int) -> tuple[int, ...]:
    """A per-spatial-axis attribute of an op over `dims` axes: one int, or `dims` of them."""
    values = [value] * dims if isinstance(value, int) else [int(v) for v in value]
    if len(values) == 1:
        values *= dims
    if len(values) != dims:
        raise ValueError(f"{name} must have 1 or {dims} values, got {values}")
    return tuple(values)


def spatial_padding(padding: IntOrSeq, dims: int) -> tuple[int, ...]:
    """TVM's padding forms over `dims` spatial axes as every before, then every after: one
    value for all, one per axis (both sides), or 2 x dims."""
    values = [padding] if isinstance(padding, int) else [int(p) for p in padding]
    if len(values) == 1:
        values *= dims
    if len(values) == dims:
        values *= 2
    if len(values) != 2 * dims:
        raise ValueError(f"padding must have 1, {dims} or {2 * dims} values, got {len(values)}")
    return tuple(values)


def infer_spatial_weight(
    data: Expr,
    weight: Expr,
    channels: int | None,
    kernel_size: IntOrSeq | None,
    groups: int,
    layouts: tuple[str, str],
    transpose: bool,
) -> None:
    """An untyped convolution weight from `channels` and `kernel_size` (any number of spatial
    axes): a convolution's O is all output channels and I the inputs of one group; a
    transposed one's I is all input channels and O the outputs of one group."""
    if has_type(weight):
        return
    if channels is None or kernel_size is None:
        raise RelayTypeError("an untyped convolution weight needs channels= and kernel_size=")
    data_layout, kernel_layout = layouts
    typ = tensor_type(data)
    in_channels = int(d.Layout.parse(data_layout).primal_sizes(typ.shape)["C"])
    letters = [a for a in "DHW" if a in data_layout]
    sizes = dict(
        zip(letters, spatial_values("kernel_size", kernel_size, len(letters)), strict=True)
    )
    if transpose:
        sizes.update(O=int(channels) // groups, I=in_channels)
    else:
        sizes.update(O=int(channels), I=in_channels // groups)
    infer_untyped(weight, TensorType([sizes[c] for c in kernel_layout], typ.dtype))


def check_spatial_weight(
    weight: Expr,
    kernel_layout: str,
    channels: int | None,
    kernel_size: IntOrSeq | None,
    out_channels: int,
) -> None:
    """`channels` and `kernel_size`, where given, against the typed weight's shape."""
    wshape = weight.checked_type.shape  # type: ignore[attr-defined]
    sizes = d.Layout.parse(kernel_layout).primal_sizes(wshape)
    letters = [a for a in "DHW" if a in kernel_layout]
    if channels is not None and int(channels) != out_channels:
        raise ValueError(f"channels={channels} differs from the weight's {wshape}")
    if kernel_size is not None and spatial_values(
        "kernel_size", kernel_size, len(letters)
    ) != tuple(int(sizes[a]) for a in letters):
        raise ValueError(f"kernel_size={kernel_size} differs from the weight's {wshape}")


def _convolution(
    op_class: type[d.RelayOp],
    data: Expr,
    weight: Expr,
    window: Sequence[IntOrSeq],
    groups: int,
    channels: int | None,
    kernel_size: IntOrSeq | None,
    layouts: tuple[str, str, str],
    out_dtype: str,
) -> Call:
    """A convolution of `op_class` (1 to 3 spatial axes, or a transposed one); `window` is
    (strides, padding, dilation), then output_padding for a transposed one, in TVM's forms."""
    data_layout, kernel_layout, out_layout = layouts
    check_unused(data, "", out_layout, data_layout)
    dims: int = op_class.SPATIAL  # type: ignore[attr-defined]
    transpose = issubclass(op_class, d.ConvTransposeOp)
    strides, padding, dilation = window[:3]
    letters = ("IO" if transpose else "OI") + "DHW"[3 - dims :]
    if sorted(kernel_layout) != sorted(letters):
        raise ValueError(
            f"{op_class.name}: kernel_layout must order {', '.join(letters)}, got {kernel_layout}"
        )
    pair_of_layouts = (data_layout, kernel_layout)
    infer_spatial_weight(data, weight, channels, kernel_size, groups, pair_of_layouts, transpose)
    extra = (
        {"output_padding": spatial_values("output_padding", window[3], dims)} if transpose else {}
    )
    call = make_call(
        op_class,
        data,
        weight,
        strides=spatial_values("strides", strides, dims),
        padding=spatial_padding(padding, dims),
        dilation=spatial_values("dilation", dilation, dims),
        groups=groups,
        data_layout=data_layout,
        kernel_layout=kernel_layout,
        out_dtype=out_dtype,
        **extra,
    )
    out = d.Layout.parse(kernel_layout).primal_sizes(weight.checked_type.shape)["O"]  # type: ignore[attr-defined]
    out_channels = int(out) * groups if transpose else int(out)
    check_spatial_weight(weight, kernel_layout, channels, kernel_size, out_channels)
    return call


@recording("nn.conv3d")
@deferred_until_typed(d.Conv3dOp)
def conv3d(
    data: Expr,
    weight: Expr,
    strides: IntOrSeq = (1, 1, 1),
    padding: IntOrSeq = (0, 0, 0),
    dilation: IntOrSeq = (1, 1, 1),
    groups: int = 1,
    channels: int | None = None,
    kernel_size: IntOrSeq | None = None,
    data_layout: str = "NCDHW",
    kernel_layout: str = "OIDHW",
    out_layout: str = "",
    out_dtype: str = "",
) -> Call:
    """TVM's conv3d: NCDHW or NDHWC data; an untyped weight gets its shape from `channels`
    and `kernel_size`; with out_dtype, data and weight are converted to it first."""
    return _convolution(
        d.Conv3dOp,
        data,
        weight,
        (strides, padding, dilation),
        groups,
        channels,
        kernel_size,
        (data_layout, kernel_layout, out_layout),
        out_dtype,
    )


@recording("nn.conv1d_transpose")
@deferred_until_typed(d.Conv1dTransposeOp)
def conv1d_transpose(
    data: Expr,
    weight: Expr,
    strides: IntOrSeq = (1,),
    padding: IntOrSeq = (0,),
    dilation: IntOrSeq = (1,),
    groups: int = 1,
    channels: int | None = None,
    kernel_size: IntOrSeq | None = None,
    data_layout: str = "NCW",
    kernel_layout: str = "IOW",
    out_layout: str = "",
    output_padding: IntOrSeq = (0,),
    out_dtype: str = "",
) -> Call:
    """TVM's conv1d_transpose: NCW or NWC data, the kernel IOW (or another order)."""
    window = (strides, padding, dilation, output_padding)
    layouts = (data_layout, kernel_layout, out_layout)
    return _convolution(
        d.Conv1dTransposeOp, data, weight, window, groups, channels, kernel_size, layouts, out_dtype
    )


@recording("nn.conv2d_transpose")
@deferred_until_typed(d.Conv2dTransposeOp)
def conv2d_transpose(
    data: Expr,
    weight: Expr,
    strides: IntOrSeq = (1, 1),
    padding: IntOrSeq = (0, 0),
    dilation: IntOrSeq = (1, 1),
    groups: int = 1,
    channels: int | None = None,
    kernel_size: IntOrSeq | None = None,
    data_layout: str = "NCHW",
    kernel_layout: str = "IOHW",
    out_layout: str = "",
    output_padding: IntOrSeq = (0, 0),
    out_dtype: str = "",
) -> Call:
    """TVM's conv2d_transpose: NCHW or NHWC data, the kernel IOHW, OIHW, HWOI, ..."""
    window = (strides, padding, dilation, output_padding)
    layouts = (data_layout, kernel_layout, out_layout)
    return _convolution(
        d.Conv2dTransposeOp, data, weight, window, groups, channels, kernel_size, layouts, out_dtype
    )


@recording("nn.conv3d_transpose")
@deferred_until_typed(d.Conv3dTransposeOp)
def conv3d_transpose(
    data: Expr,
    weight: Expr,
    strides: IntOrSeq = (1, 1, 1),
    padding: IntOrSeq = (0, 0, 0),
    dilation: IntOrSeq = (1, 1, 1),
    groups: int = 1,
    channels: int | None = None,
    kernel_size: IntOrSeq | None = None,
    data_layout: str = "NCDHW",
    kernel_layout: str = "IODHW",
    out_layout: str = "",
    output_padding: IntOrSeq = (0, 0, 0),
    out_dtype: str = "",
) -> Call:
    """TVM's conv3d_transpose: NCDHW or NDHWC data, the kernel IODHW (or another order)."""
    window = (strides, padding, dilation, output_padding)
    layouts = (data_layout, kernel_layout, out_layout)
    return _convolution(
        d.Conv3dTransposeOp, data, weight, window, groups, channels, kernel_size, layouts, out_dtype
    )


def bitpack(
    data: Expr,
    bits: int = 1,
    pack_axis: int = 1,
    bit_axis: int = 2,
    pack_type: str = "uint32",
    name: str = "BitPack",
) -> Call:
    """TVM's bitpack; `name` (TVM's name of the TE stage) changes nothing."""
    return make_call(
        d.BitpackOp,
        data,
        bits=int(bits),
        pack_axis=int(pack_axis),
        bit_axis=int(bit_axis),
        pack_type=pack_type,
    )


def correlation(
    data1: Expr,
    data2: Expr,
    kernel_size: int,
    max_displacement: int,
    stride1: int,
    stride2: int,
    padding: IntOrSeq,
    is_multiply: bool,
    layout: str,
) -> Call:
    """TVM's correlation (FlowNet); padding is one int, (height, width) or (top, left,
    bottom, right)."""
    return make_call(
        d.CorrelationOp,
        data1,
        data2,
        kernel_size=int(kernel_size),
        max_displacement=int(max_displacement),
        stride1=int(stride1),
        stride2=int(stride2),
        padding=[padding] if isinstance(padding, int) else [int(v) for v in padding],
        is_multiply=bool(is_multiply),
        layout=layout,
    )


@recording("nn.dense")
@deferred_until_typed(d.DenseOp)
def dense(data: Expr, weight: Expr, units: int | None = None, out_dtype: str = "") -> Call:
    if not has_type(weight) and units is not None:
        typ = tensor_type(data)
        infer_untyped(weight, TensorType((int(units), typ.shape[-1]), typ.dtype))
    data, weight = accumulate_in(out_dtype, data, weight)
    call = make_call(d.DenseOp, data, weight)
    wshape = weight.checked_type.shape  # type: ignore[attr-defined]
    if units is not None and int(units) != wshape[0]:
        raise OpTypeError(f"units={units} differs from the weight's {wshape}")
    return call


@recording("nn.matmul")
@deferred_until_typed(d.MatmulOp)
def matmul(
    tensor_a: Expr,
    tensor_b: Expr,
    units: int | None = None,
    out_dtype: str = "",
    transpose_a: bool = False,
    transpose_b: bool = False,
) -> Call:
    if not has_type(tensor_b) and units is not None:  # as TVM's MatmulRel assigns it
        typ = tensor_type(tensor_a)
        k = typ.shape[-2] if transpose_a else typ.shape[-1]
        shape = (int(units), k) if transpose_b else (k, int(units))
        infer_untyped(tensor_b, TensorType(shape, typ.dtype))
    tensor_a, tensor_b = accumulate_in(out_dtype, tensor_a, tensor_b)
    call = make_call(
        d.MatmulOp, tensor_a, tensor_b, transpose_a=transpose_a, transpose_b=transpose_b
    )
    n = tensor_b.checked_type.shape[0 if transpose_b else 1]  # type: ignore[attr-defined]
    if units is not None and isinstance(n, int) and int(units) != n:
        raise OpTypeError(f"units={units} differs from the {n} columns of tensor_b")
    return call


@recording("nn.batch_matmul")
@deferred_until_typed(d.BatchMatmulOp)
def batch_matmul(
    tensor_a: Expr,
    tensor_b: Expr,
    out_dtype: str = "",
    transpose_a: bool = False,
    transpose_b: bool = True,
) -> Call:
    tensor_a, tensor_b = accumulate_in(out_dtype, tensor_a, tensor_b)
    return make_call(
        d.BatchMatmulOp, tensor_a, tensor_b, transpose_a=transpose_a, transpose_b=transpose_b
    )


@deferred_until_typed(d.BiasAddOp)
def bias_add(data: Expr, bias: Expr, axis: int = 1) -> Call:
    infer_vector(data, axis, bias)
    return make_call(d.BiasAddOp, data, bias, axis=axis)


@deferred_until_typed(d.PreluOp)
def prelu(data: Expr, alpha: Expr, axis: int = 1) -> Call:
    infer_vector(data, axis, alpha)
    return make_call(d.PreluOp, data, alpha, axis=axis)


@deferred_until_typed(d.BatchNormOp)
def batch_norm(
    data: Expr,
    gamma: Expr,
    beta: Expr,
    moving_mean: Expr,
    moving_var: Expr,
    axis: int = 1,
    epsilon: float = 1e-5,
    center: bool = True,
    scale: bool = True,
) -> Call:
    """A 3-tuple (normalized data, mean, variance); index it with `[0]` as in TVM."""
    infer_vector(data, axis, gamma, beta, moving_mean, moving_var)
    return make_call(
        d.BatchNormOp,
        data,
        gamma,
        beta,
        moving_mean,
        moving_var,
        axis=axis,
        epsilon=float(epsilon),
        center=center,
        scale=scale,
    )


@deferred_until_typed(d.LayerNormOp)
def layer_norm(
    data: Expr,
    gamma: Expr,
    beta: Expr,
    axis: int = -1,
    epsilon: float = 1e-5,
    center: bool = True,
    scale: bool = True,
) -> Call:
    infer_vector(data, axis, gamma, beta)
    return make_call(
        d.LayerNormOp,
        data,
        gamma,
        beta,
        axis=axis,
        epsilon=float(epsilon),
        center=center,
        scale=scale,
    )


def lrn(
    data: Expr,
    size: int = 5,
    axis: int = 1,
    bias: float = 2.0,
    alpha: float = 0.00001,
    beta: float = 0.75,
) -> Call:
    return make_call(
        d.LrnOp,
        data,
        size=size,
        axis=axis,
        alpha=float(alpha),
        beta=float(beta),
        bias=float(bias),
    )


def _pool(
    op_class: type[d.RelayOp],
    data: Expr,
    window: tuple[IntOrSeq, IntOrSeq, IntOrSeq, IntOrSeq],
    layout: str,
    out_layout: str,
    **flags: bool,
) -> Call:
    """A 1-d, 2-d or 3-d pool of `window` (pool_size, strides, dilation, padding in TVM's
    forms)."""
    check_unused(data, "", out_layout, layout)
    dims: int = getattr(op_class, "SPATIAL", 2)
    pool_size, strides, dilation, padding = window
    return make_call(
        op_class,
        data,
        pool_size=spatial_values("pool_size", pool_size, dims),
        strides=spatial_values("strides", strides, dims),
        padding=spatial_padding(padding, dims),
        dilation=spatial_values("dilation", dilation, dims),
        layout=layout,
        **flags,
    )


@recording("nn.max_pool2d")
def max_pool2d(
    data: Expr,
    pool_size: IntOrSeq = (1, 1),
    strides: IntOrSeq = (1, 1),
    dilation: IntOrSeq = (1, 1),
    padding: IntOrSeq = (0, 0),
    layout: str = "NCHW",
    out_layout: str = "",
    ceil_mode: bool = False,
) -> Call:
    window = (pool_size, strides, dilation, padding)
    return _pool(d.MaxPool2dOp, data, window, layout, out_layout, ceil_mode=ceil_mode)


@recording("nn.avg_pool2d")
def avg_pool2d(
    data: Expr,
    pool_size: IntOrSeq = (1, 1),
    strides: IntOrSeq = (1, 1),
    dilation: IntOrSeq = (1, 1),
    padding: IntOrSeq = (0, 0),
    layout: str = "NCHW",
    out_layout: str = "",
    ceil_mode: bool = False,
    count_include_pad: bool = False,
) -> Call:
    window = (pool_size, strides, dilation, padding)
    extra = {"ceil_mode": ceil_mode, "count_include_pad": count_include_pad}
    return _pool(d.AvgPool2dOp, data, window, layout, out_layout, **extra)


def _one_d(layout: str) -> tuple[str, int]:
    """The 2-d layout a 1-d pool runs in (a height of 1 inserted) and where that axis goes."""
    if layout not in ("NCW", "NWC"):
        raise ValueError(f'1-d pooling: layout must be "NCW" or "NWC", got "{layout}"')
    return ("NCHW", 2) if layout == "NCW" else ("NHWC", 1)


def _single_int(name: str, value: IntOrSeq) -> int:
    """A 1-d op's size: an int or a one-element sequence."""
    values = [value] if isinstance(value, int) else [int(v) for v in value]
    if len(values) != 1:
        raise ValueError(f"{name} must have one value for a 1-d op, got {values}")
    return values[0]


def _pool1d(pool2d: Callable[..., Call], data: Expr, layout: str, **attrs: Any) -> Expr:
    """A 1-d pool as the 2-d one over a height of 1: TVM's pool1d in xtvm's pool2d."""
    layout2d, axis = _one_d(layout)
    for name in ("pool_size", "strides", "dilation"):
        if name in attrs:
            attrs[name] = (1, _single_int(name, attrs[name]))
    if "padding" in attrs:
        pad = [attrs["padding"]] if isinstance(attrs["padding"], int) else list(attrs["padding"])
        if len(pad) not in (1, 2):
            raise ValueError(f"1-d pooling: padding must have 1 or 2 values, got {pad}")
        before, after = pad[0], pad[-1]
        attrs["padding"] = (0, int(before), 0, int(after))
    out = pool2d(transform.expand_dims(data, axis), layout=layout2d, **attrs)
    return transform.squeeze(out, axis=[axis])


@recording("nn.max_pool1d")
def max_pool1d(
    data: Expr,
    pool_size: IntOrSeq = (1,),
    strides: IntOrSeq = (1,),
    dilation: IntOrSeq = (1,),
    padding: IntOrSeq = (0,),
    layout: str = "NCW",
    out_layout: str = "",
    ceil_mode: bool = False,
) -> Call:
    window = (pool_size, strides, dilation, padding)
    return _pool(d.MaxPool1dOp, data, window, layout, out_layout, ceil_mode=ceil_mode)


@recording("nn.avg_pool1d")
def avg_pool1d(
    data: Expr,
    pool_size: IntOrSeq = (1,),
    strides: IntOrSeq = (1,),
    dilation: IntOrSeq = (1,),
    padding: IntOrSeq = (0,),
    layout: str = "NCW",
    out_layout: str = "",
    ceil_mode: bool = False,
    count_include_pad: bool = False,
) -> Call:
    window = (pool_size, strides, dilation, padding)
    extra = {"ceil_mode": ceil_mode, "count_include_pad": count_include_pad}
    return _pool(d.AvgPool1dOp, data, window, layout, out_layout, **extra)


def global_max_pool1d(data: Expr, layout: str = "NCW", out_layout: str = "") -> Expr:
    check_unused(data, "", out_layout, layout)
    return _pool1d(global_max_pool2d, data, layout)


def global_avg_pool1d(data: Expr, layout: str = "NCW", out_layout: str = "") -> Expr:
    check_unused(data, "", out_layout, layout)
    return _pool1d(global_avg_pool2d, data, layout)


@recording("nn.max_pool3d")
def max_pool3d(
    data: Expr,
    pool_size: IntOrSeq = (1, 1, 1),
    strides: IntOrSeq = (1, 1, 1),
    dilation: IntOrSeq = (1, 1, 1),
    padding: IntOrSeq = (0, 0, 0),
    layout: str = "NCDHW",
    out_layout: str = "",
    ceil_mode: bool = False,
) -> Call:
    window = (pool_size, strides, dilation, padding)
    return _pool(d.MaxPool3dOp, data, window, layout, out_layout, ceil_mode=ceil_mode)


@recording("nn.avg_pool3d")
def avg_pool3d(
    data: Expr,
    pool_size: IntOrSeq = (1, 1, 1),
    strides: IntOrSeq = (1, 1, 1),
    dilation: IntOrSeq = (1, 1, 1),
    padding: IntOrSeq = (0, 0, 0),
    layout: str = "NCDHW",
    out_layout: str = "",
    ceil_mode: bool = False,
    count_include_pad: bool = False,
) -> Call:
    window = (pool_size, strides, dilation, padding)
    extra = {"ceil_mode": ceil_mode, "count_include_pad": count_include_pad}
    return _pool(d.AvgPool3dOp, data, window, layout, out_layout, **extra)


ADAPTIVE_POOLS = {
    ("max", 1): d.AdaptiveMaxPool1dOp,
    ("avg", 1): d.AdaptiveAvgPool1dOp,
    ("max", 2): d.AdaptiveMaxPool2dOp,
    ("avg", 2): d.AdaptiveAvgPool2dOp,
    ("max", 3): d.AdaptiveMaxPool3dOp,
    ("avg", 3): d.AdaptiveAvgPool3dOp,
}


def _adaptive_pool(kind: str, data: Expr, output_size: Any, layout: str, out_layout: str) -> Call:
    """TVM's output_size: None or empty keeps the input's size, one int is every axis's,
    and an axis given None keeps its input size."""
    check_unused(data, "", out_layout, layout)
    dims = sum(a in layout for a in "DHW")
    if dims not in (1, 2, 3) or not set(layout) <= set("NCDHW"):
        raise ValueError(f"adaptive pooling: unknown layout {layout!r}")
    shape = tensor_type(data).shape
    spatial = [int(shape[layout.index(a)]) for a in "DHW" if a in layout]
    if output_size is None:
        sizes: list[Any] = []
    elif isinstance(output_size, int) or hasattr(output_size, "value"):
        sizes = [output_size] * dims
    else:
        sizes = list(output_size)
    if not sizes:
        sizes = [None] * dims
    if len(sizes) == 1:
        sizes *= dims
    if len(sizes) != dims:
        raise ValueError(f"output_size must have 1 or {dims} values, got {output_size}")
    resolved = [s if v is None else int(v) for s, v in zip(spatial, sizes, strict=True)]
    return make_call(ADAPTIVE_POOLS[kind, dims], data, output_size=resolved, layout=layout)


def _adaptive_builder(kind: str, dims: int) -> Callable[..., Call]:
    """TVM's `adaptive_<kind>_pool<dims>d(data, output_size=None, layout=..., out_layout="")`."""
    default_layout = ("NCW", "NCHW", "NCDHW")[dims - 1]

    def build(
        data: Expr, output_size: Any = None, layout: str = default_layout, out_layout: str = ""
    ) -> Call:
        return _adaptive_pool(kind, data, output_size, layout, out_layout)

    build.__name__ = build.__qualname__ = f"adaptive_{kind}_pool{dims}d"
    build.__doc__ = f"TVM's adaptive {kind} pooling over {dims} spatial axes."
    return build


adaptive_max_pool1d = _adaptive_builder("max", 1)
adaptive_avg_pool1d = _adaptive_builder("avg", 1)
adaptive_max_pool2d = _adaptive_builder("max", 2)
adaptive_avg_pool2d = _adaptive_builder("avg", 2)
adaptive_max_pool3d = _adaptive_builder("max", 3)
adaptive_avg_pool3d = _adaptive_builder("avg", 3)


def global_avg_pool2d(data: Expr, layout: str = "NCHW", out_layout: str = "") -> Call:
    check_unused(data, "", out_layout, layout)
    return make_call(d.GlobalAvgPool2dOp, data, layout=layout)


def global_max_pool2d(data: Expr, layout: str = "NCHW", out_layout: str = "") -> Call:
    check_unused(data, "", out_layout, layout)
    return make_call(d.GlobalMaxPool2dOp, data, layout=layout)


def pad(
    data: Expr,
    pad_width: Sequence[Sequence[int]],
    pad_value: float = 0.0,
    pad_mode: str = "constant",
) -> Call:
    """Pad every axis by (before, after); a negative width crops that side first, and
    `pad_value` may be a scalar expression (a constant one is folded into the attribute)."""
    widths = [tuple(int(v) for v in pair_) for pair_ in pad_width]
    if any(w < 0 for pair_ in widths for w in pair_):
        typ = data.checked_type
        assert isinstance(typ, TensorType)
        begin = [max(-b, 0) for b, _ in widths]
        end = [  # a negative end counts from the end, which a symbolic size needs
            (a if a < 0 else SLICE_TO_END) if not isinstance(dim, int) else dim - max(-a, 0)
            for dim, (_, a) in zip(typ.shape, widths, strict=True)
        ]
        data = make_call(d.StridedSliceOp, data, begin=begin, end=end)
        widths = [(max(b, 0), max(a, 0)) for b, a in widths]
    if isinstance(pad_value, Constant) and pad_value.data.shape == ():
        pad_value = float(pad_value.data.numpy())
    if isinstance(pad_value, Expr):
        if pad_mode != "constant":
            raise ValueError(f"a tensor pad_value needs pad_mode 'constant', got '{pad_mode}'")
        typ = data.checked_type
        assert isinstance(typ, TensorType)
        padded = make_call(d.PadOp, data, pad_width=widths)
        inside = make_call(d.PadOp, ones_like(data), pad_width=widths)
        outside = make_call(d.EqualOp, inside, const(0, typ.dtype))
        return make_call(d.WhereOp, outside, pad_value, padded)
    return make_call(d.PadOp, data, pad_width=widths, pad_value=float(pad_value), pad_mode=pad_mode)


def upsampling(
    data: Expr,
    scale_h: float = 1,
    scale_w: float = 1,
    layout: str = "NCHW",
    method: str = "nearest_neighbor",
    align_corners: bool = False,
) -> Call:
    return make_call(
        d.UpsamplingOp,
        data,
        scale_h=float(scale_h),
        scale_w=float(scale_w),
        layout=layout,
        method=method,
        align_corners=align_corners,
    )


def l2_normalize(data: Expr, eps: float, axis: int | Sequence[int] | None = None) -> Expr:
    """TVM's l2_normalize: data / sqrt(max(sum of squares over `axis`, eps)), composed of
    those ops (all axes when `axis` is None)."""
    squares = reduce_sum(tensor.multiply(data, data), axis=axis, keepdims=True)
    floor = const(float(eps), tensor_type(data).dtype)
    return tensor.divide(data, tensor.sqrt(tensor.maximum(squares, floor)))


def upsampling3d(
    data: Expr,
    scale_d: float,
    scale_h: float,
    scale_w: float,
    layout: str = "NCDHW",
    method: str = "nearest_neighbor",
    coordinate_transformation_mode: str = "half_pixel",
    output_shape: Sequence[int] | None = None,
) -> Call:
    """TVM's upsampling3d: a resize3d to the depth, height and width scaled and rounded
    (trilinear is resize3d's linear), composed as that resize3d."""
    if layout not in ("NCDHW", "NDHWC"):
        raise ValueError(f'upsampling3d: layout must be "NCDHW" or "NDHWC", got "{layout}"')
    if method not in ("nearest_neighbor", "trilinear"):
        raise ValueError(
            f'upsampling3d: method must be "nearest_neighbor" or "trilinear", not {method}'
        )
    shape = tensor_type(data).shape
    axes = (2, 3, 4) if layout == "NCDHW" else (1, 2, 3)
    scales = (scale_d, scale_h, scale_w)
    size = [  # a symbolic size scales to a symbolic one (`?`), as TVM's relation makes it
        round(int(shape[a]) * float(k)) if isinstance(shape[a], int) else DYNAMIC_INDEX
        for a, k in zip(axes, scales, strict=True)
    ]
    if output_shape is not None and list(output_shape) != size:
        raise ValueError(f"upsampling3d: output_shape {output_shape} differs from {size}")
    return make_call(
        d.Resize3dOp,
        data,
        size=size,
        layout=layout,
        method="linear" if method == "trilinear" else method,
        coordinate_transformation_mode=coordinate_transformation_mode,
    )


derive_builders(globals(), "nn.")
