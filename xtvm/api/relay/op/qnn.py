"""TVM's quantized operators (`relay.qnn.op.quantize`, `qnn.conv2d`, ...) with TVM's
signatures: integer tensors whose scales (float32) and zero points (int32) are expressions,
scalars or per-channel vectors. `relay.build` rewrites them into ordinary ops
(relay-qnn-canonicalize), as TVM's QNN canonicalization does.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager

from xtvm.api.relay.expr import Call, Expr, Tuple, as_expr, has_type, make_call
from xtvm.api.relay.op.nn import IntOrSeq, check_conv_weight, pad_tuple, pair
from xtvm.dialects import relay as d


def quantize(
    data: Expr,
    output_scale: Expr,
    output_zero_point: Expr,
    axis: int = -1,
    out_dtype: str = "int8",
) -> Call:
    """`clip(round(data / output_scale) + output_zero_point)` as `out_dtype`."""
    return make_call(
        d.QuantizeOp,
        data,
        as_expr(output_scale),
        as_expr(output_zero_point),
        axis=axis,
        out_dtype=out_dtype,
    )


def dequantize(
    data: Expr,
    input_scale: Expr,
    input_zero_point: Expr,
    axis: int = -1,
    out_dtype: str = "float32",
) -> Call:
    """`(data - input_zero_point) * input_scale` in float32."""
    if out_dtype != "float32":
        raise ValueError(f"qnn.dequantize computes float32, got out_dtype={out_dtype}")
    return make_call(
        d.DequantizeOp, data, as_expr(input_scale), as_expr(input_zero_point), axis=axis
    )


# The defaults that `requantize_config` sets for a requantize given rounding="None" (and
# compute_dtype="None"): TVM's, UPWARD in int64.
_REQUANTIZE_DEFAULTS: list[dict[str, str]] = [{"rounding": "UPWARD", "compute_dtype": "int64"}]


@contextmanager
def requantize_config(
    rounding: str | None = None, compute_dtype: str | None = None
) -> Iterator[dict[str, str]]:
    """Within the block, a requantize built with rounding (compute_dtype) "None" takes these."""
    if rounding not in (None, "UPWARD", "TONEAREST"):
        raise ValueError(f"rounding must be UPWARD or TONEAREST, got {rounding}")
    if compute_dtype not in (None, "int64", "float32", "float64"):
        raise ValueError(f"compute_dtype must be int64, float32 or float64, got {compute_dtype}")
    config = dict(_REQUANTIZE_DEFAULTS[-1])
    config.update(
        {k: v for k, v in (("rounding", rounding), ("compute_dtype", compute_dtype)) if v}
    )
    _REQUANTIZE_DEFAULTS.append(config)
    try:
        yield config
    finally:
        _REQUANTIZE_DEFAULTS.pop()


def requantize(
    data: Expr,
    input_scale: Expr,
    input_zero_point: Expr,
    output_scale: Expr,
    output_zero_point: Expr,
    axis: int = -1,
    rounding: str = "None",
    compute_dtype: str = "None",
    out_dtype: str = "int8",
) -> Call:
    """`data` from (input_scale, input_zero_point) to (output_scale, output_zero_point);
    rounding "None" is `requantize_config`'s (UPWARD unless set). xtvm computes the rescaling
    in float64 whatever `compute_dtype` says: exact where TVM's int64 fixed point is."""
    if rounding == "None":
        rounding = _REQUANTIZE_DEFAULTS[-1]["rounding"]
    if compute_dtype == "None":
        compute_dtype = _REQUANTIZE_DEFAULTS[-1]["compute_dtype"]
    return make_call(
        d.RequantizeOp,
        data,
        as_expr(input_scale),
        as_expr(input_zero_point),
        as_expr(output_scale),
        as_expr(output_zero_point),
        axis=axis,
        rounding=rounding,
        compute_dtype=compute_dtype,
        out_dtype=out_dtype,
    )


def _binary(
    op_class: type[d.RelayOp],
    lhs: Expr,
    rhs: Expr,
    params: Sequence[Expr],
    lhs_axis: int,
    rhs_axis: int,
) -> Call:
    return make_call(
        op_class, lhs, rhs, *(as_expr(p) for p in params), lhs_axis=lhs_axis, rhs_axis=rhs_axis
    )


def add(
    lhs: Expr,
    rhs: Expr,
    lhs_scale: Expr,
    lhs_zero_point: Expr,
    rhs_scale: Expr,
    rhs_zero_point: Expr,
    output_scale: Expr,
    output_zero_point: Expr,
    lhs_axis: int = -1,
    rhs_axis: int = -1,
) -> Call:
    """The quantized sum, in the output's scale and zero point."""
    params = (lhs_scale, lhs_zero_point, rhs_scale, rhs_zero_point)
    return _binary(
        d.QnnAddOp, lhs, rhs, (*params, output_scale, output_zero_point), lhs_axis, rhs_axis
    )


def mul(
    lhs: Expr,
    rhs: Expr,
    lhs_scale: Expr,
    lhs_zero_point: Expr,
    rhs_scale: Expr,
    rhs_zero_point: Expr,
    output_scale: Expr,
    output_zero_point: Expr,
    lhs_axis: int = -1,
    rhs_axis: int = -1,
) -> Call:
    """The quantized product, in the output's scale and zero point."""
    params = (lhs_scale, lhs_zero_point, rhs_scale, rhs_zero_point)
    return _binary(
        d.QnnMulOp, lhs, rhs, (*params, output_scale, output_zero_point), lhs_axis, rhs_axis
    )


def conv2d(
    data: Expr,
    kernel: Expr,
    input_zero_point: Expr,
    kernel_zero_point: Expr,
    input_scale: Expr,
    kernel_scale: Expr,
    kernel_size: IntOrSeq | None,
    channels: int | None,
    strides: IntOrSeq = (1, 1),
    padding: IntOrSeq = (0, 0),
    dilation: IntOrSeq = (1, 1),
    groups: int = 1,
    data_layout: str = "NCHW",
    kernel_layout: str = "OIHW",
    out_layout: str = "",
    out_dtype: str = "int32",
) -> Call:
    """2-d convolution of `data - input_zero_point` by `kernel - kernel_zero_point`,
    accumulated in `out_dtype`."""
    if out_layout and out_layout != data_layout:
        raise ValueError(f"out_layout {out_layout} differs from the layout {data_layout}")
    call = make_call(
        d.QnnConv2dOp,
        data,
        kernel,
        as_expr(input_zero_point),
        as_expr(kernel_zero_point),
        as_expr(input_scale),
        as_expr(kernel_scale),
        strides=pair(strides),
        padding=pad_tuple(padding),
        dilation=pair(dilation),
        groups=groups,
        data_layout=data_layout,
        kernel_layout=kernel_layout,
        out_dtype=out_dtype,
    )
    if has_type(kernel):
        check_conv_weight(kernel, kernel_layout, channels, kernel_size)
    return call


def dense(
    data: Expr,
    weight: Expr,
    input_zero_point: Expr,
    kernel_zero_point: Expr,
    input_scale: Expr,
    kernel_scale: Expr,
    units: int | None = None,
    out_dtype: str = "int32",
) -> Call:
    """`data - input_zero_point` times `weight - kernel_zero_point` transposed, accumulated in
    `out_dtype`."""
    call = make_call(
        d.QnnDenseOp,
        data,
        weight,
        as_expr(input_zero_point),
        as_expr(kernel_zero_point),
        as_expr(input_scale),
        as_expr(kernel_scale),
        out_dtype=out_dtype,
    )
    if units is not None and has_type(weight):
        shape = weight.checked_type.shape  # type: ignore[attr-defined]
        if int(units) != shape[0]:
            raise ValueError(f"units={units} differs from the weight's {shape}")
    return call


def concatenate(
    data: Sequence[Expr] | Expr,
    input_scales: Sequence[Expr] | Expr,
    input_zero_points: Sequence[Expr] | Expr,
    output_scale: Expr,
    output_zero_point: Expr,
    axis: int,
) -> Call:
    """The tensors of the tuple `data`, each requantized to the output's scale and zero point,
    joined along `axis`; scales and zero points are tuples as long as `data`."""
    tuples = [_tuple(x) for x in (data, input_scales, input_zero_points)]
    sizes = [len(t.fields) for t in tuples if isinstance(t, Tuple)]
    if len(set(sizes)) > 1:
        raise ValueError(
            f"qnn.concatenate: {sizes[0]} tensors, {sizes[1]} scales and {sizes[-1]} zero points"
        )
    return make_call(
        d.QnnConcatenateOp,
        *tuples,
        as_expr(output_scale),
        as_expr(output_zero_point),
        axis=axis,
    )


def _tuple(value: Sequence[Expr] | Expr) -> Expr:
    """A tuple expression: one given, or one of the expressions given."""
    if isinstance(value, Expr):
        return value
    return Tuple([as_expr(v) for v in value])
