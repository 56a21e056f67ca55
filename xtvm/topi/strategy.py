"""The operator strategy table: for each relay op class, its TOPI compute and its schedule
per target (TVM's `OpStrategy`, `conv2d_strategy.register("cpu")`).

A row's compute reads the op's properties and calls TOPI on te tensors (`TensorLike`); it
returns a te tensor, or a tuple of them for a relay op with a tuple result. Its schedules map
a target to the function scheduling each root stage the compute made (see `schedule.py`).
Structural ops — `relay.const`, `relay.param`, `relay.tuple`, `relay.tuple_get_item` — have
no row: the lowering handles them itself (`STRUCTURAL`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from xtvm import te
from xtvm.dialects import relay
from xtvm.ir.numpy_types import numpy_dtype
from xtvm.topi import (
    elementwise,
    grid_sample,
    indexing,
    nn,
    reduction,
    signal,
    transform,
    vision,
    winograd,
)
from xtvm.topi.schedule import CONV2D, DEFAULT, DENSE, LAYER_NORM, WINOGRAD, ScheduleFn
from xtvm.topi.tensor import TensorLike, static_shape

Value = TensorLike | tuple["Value", ...]
Compute = Callable[[relay.RelayOp, Sequence[TensorLike]], Value]


@dataclass(frozen=True)
class Strategy:
    """How one relay op becomes te: its compute and, per target, its schedule."""

    compute: Compute
    schedules: Mapping[str, ScheduleFn]


STRUCTURAL = (relay.ConstOp, relay.ParamOp, relay.TupleOp, relay.TupleGetItemOp)


def ints(attr: object) -> tuple[int, ...]:
    return relay.array_values(attr)  # type: ignore[arg-type]


def number(attr: object) -> float:
    return float(attr.value.data)  # type: ignore[attr-defined]


def integer(attr: object) -> int:
    return int(attr.value.data)  # type: ignore[attr-defined]


def floats(attr: object) -> tuple[float, ...]:
    return tuple(float(v) for v in attr.get_values())  # type: ignore[attr-defined]


def flag(attr: object) -> bool:
    return bool(integer(attr))


def result_shape(op: relay.RelayOp) -> tuple[int, ...]:
    return tuple(op.results[0].type.get_shape())  # type: ignore[attr-defined]


def axis_of(op: relay.RelayOp, rank: int) -> int:
    return integer(op.axis) % rank  # type: ignore[attr-defined]


def binary(kind: str) -> Compute:
    return lambda op, x: elementwise.binary(kind, x[0], x[1])


def unary(kind: str) -> Compute:
    return lambda op, x: elementwise.unary(kind, x[0])


def reduce_axes(op: relay.ReduceOp) -> tuple[int, ...] | None:
    return None if op.axis is None else ints(op.axis)


def reducer(fn: Callable[[TensorLike, Sequence[int] | None, bool], te.Tensor]) -> Compute:
    """A reduction row; bools reduce as 0/1 integers and the result is tested `> 0` (a mean
    of bools is then their sum): an empty max holds the smallest int32 and is false, an empty
    min the largest and is true, as ONNX has them."""

    def compute(op: relay.RelayOp, x: Sequence[TensorLike]) -> Value:
        axes, keep = reduce_axes(op), flag(op.keepdims)  # type: ignore[arg-type, attr-defined]
        if x[0].dtype != "bool":
            return fn(x[0], axes, keep)
        total = reduction.sum if fn is reduction.mean else fn
        counts = total(elementwise.cast(x[0], "int32"), axes, keep)
        return te.compute(counts.shape, lambda *i: counts(*i) > 0, name="T_any", tag="injective")

    return compute


def arg_reducer(largest: bool) -> Compute:
    def compute(op: relay.RelayOp, x: Sequence[TensorLike]) -> Value:
        axes = reduce_axes(op)  # type: ignore[arg-type]
        keep = flag(op.keepdims)  # type: ignore[attr-defined]
        data = elementwise.cast(x[0], "int32") if x[0].dtype == "bool" else x[0]
        last = flag(op.select_last_index)  # type: ignore[attr-defined]
        return reduction.arg_extreme(data, axes, keep, largest, last)

    return compute


def conv_window(
    op: relay.Conv1dOp | relay.Conv2dOp | relay.Conv3dOp,
) -> tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...], int, str, str]:
    """A convolution's strides, padding, dilation, groups and data and kernel layouts, in
    topi's argument order."""
    return (
        ints(op.strides),
        ints(op.padding),
        ints(op.dilation),
        integer(op.groups),
        op.data_layout.data,
        op.kernel_layout.data,
    )


def conv2d(op: relay.Conv2dOp, x: Sequence[TensorLike]) -> Value:
    return nn.conv2d(x[0], x[1], *conv_window(op))


def conv_nd(op: relay.Conv1dOp | relay.Conv3dOp, x: Sequence[TensorLike]) -> Value:
    return nn.conv_nd(x[0], x[1], *conv_window(op), op.out_dtype.data)


def conv_transpose(op: relay.RelayOp, x: Sequence[TensorLike]) -> Value:
    assert isinstance(op, relay.ConvTransposeOp)
    return nn.conv_transpose(
        x[0],
        x[1],
        ints(op.strides),
        ints(op.padding),
        ints(op.output_padding),
        ints(op.dilation),
        integer(op.groups),
        op.data_layout.data,
        op.kernel_layout.data,
        op.out_dtype.data,
    )


def pool(kind: str) -> Compute:
    def compute(op: relay.RelayOp, x: Sequence[TensorLike]) -> Value:
        assert isinstance(op, relay.Pool1dOp | relay.Pool2dOp | relay.Pool3dOp)
        average = isinstance(op, relay.AvgPool1dOp | relay.AvgPool2dOp | relay.AvgPool3dOp)
        include_pad = average and flag(op.count_include_pad)  # type: ignore[attr-defined]
        return nn.pool_nd(
            x[0],
            result_shape(op),
            kind,
            ints(op.pool_size),
            ints(op.strides),
            ints(op.padding),
            ints(op.dilation),
            op.layout.data,
            include_pad,
        )

    return compute


def adaptive_pool(kind: str) -> Compute:
    def compute(op: relay.RelayOp, x: Sequence[TensorLike]) -> Value:
        return nn.adaptive_pool(x[0], ints(op.output_size), kind, op.layout.data)  # type: ignore[attr-defined]

    return compute


def pad(op: relay.PadOp, x: Sequence[TensorLike]) -> Value:
    widths = ints(op.pad_width)
    return nn.pad(
        x[0], widths[0::2], widths[1::2], number(op.pad_value), op.pad_mode.data, name="T_pad"
    )


def batch_norm(op: relay.BatchNormOp, x: Sequence[TensorLike]) -> Value:
    return nn.batch_norm(
        *x,
        axis=axis_of(op, len(x[0].shape)),
        epsilon=number(op.epsilon),
        center=flag(op.center),
        scale=flag(op.scale),
    )


def layer_norm(op: relay.LayerNormOp, x: Sequence[TensorLike]) -> Value:
    return nn.layer_norm(
        *x,
        axis=axis_of(op, len(x[0].shape)),
        epsilon=number(op.epsilon),
        center=flag(op.center),
        scale=flag(op.scale),
    )


def lrn(op: relay.LrnOp, x: Sequence[TensorLike]) -> Value:
    return nn.lrn(
        x[0],
        integer(op.size),
        axis_of(op, len(x[0].shape)),
        number(op.alpha),
        number(op.beta),
        number(op.bias),
    )


def resize(op: relay.RelayOp, x: Sequence[TensorLike]) -> Value:
    """image.resize1d, resize2d and resize3d."""
    a = op.attr_values()
    return nn.resize(
        x[0],
        a["size"],
        relay.resize_axes(type(op), a["layout"], len(a["size"])),
        a["method"],
        a["coordinate_transformation_mode"],
        a["rounding_method"],
        a["cubic_alpha"],
        bool(a["cubic_exclude"]),
    )


def upsampling(op: relay.UpsamplingOp, x: Sequence[TensorLike]) -> Value:
    return nn.upsampling(
        x[0], result_shape(op), op.layout.data, op.method.data, flag(op.align_corners)
    )


def reshaped(op: relay.RelayOp, x: Sequence[TensorLike]) -> Value:
    """reshape, squeeze, expand_dims, batch_flatten: the result type has the shape."""
    return transform.reshape(x[0], result_shape(op))


def transpose(op: relay.TransposeOp, x: Sequence[TensorLike]) -> Value:
    perm = relay.TransposeOp.permutation(relay.TransposeOp.props(op.properties), len(x[0].shape))
    return transform.transpose(x[0], perm)


def split(op: relay.SplitOp, x: Sequence[TensorLike]) -> Value:
    axis = axis_of(op, len(x[0].shape))
    props = relay.SplitOp.props(op.properties)
    points = relay.SplitOp.boundaries(props, int(x[0].shape[axis]))  # type: ignore[arg-type]
    return transform.split(x[0], points, axis)


def strided_slice(op: relay.StridedSliceOp, x: Sequence[TensorLike]) -> Value:
    slices = relay.StridedSliceOp.slices(op.properties, [int(d) for d in x[0].shape])  # type: ignore[arg-type]
    return transform.strided_slice(x[0], slices)


def take(op: relay.TakeOp, x: Sequence[TensorLike]) -> Value:
    axis = None if op.axis is None else axis_of(op, len(x[0].shape))
    return transform.take(x[0], x[1], axis, op.mode.data)


def cumsum(op: relay.CumsumOp, x: Sequence[TensorLike]) -> Value:
    axis = None if op.axis is None else axis_of(op, len(x[0].shape))
    return indexing.cumsum(x[0], axis, flag(op.exclusive), op.name.removeprefix("relay."))


def segment_sum(op: relay.SegmentSumOp, x: Sequence[TensorLike]) -> Value:
    # without num_segments the count is `?`, which relay.build refuses before lowering
    count = op.result.type.get_shape()[0]  # type: ignore[attr-defined]
    return indexing.segment_sum(x[0], x[1], count)


def deformable_conv2d(op: relay.DeformableConv2dOp, x: Sequence[TensorLike]) -> Value:
    """NHWC data (with an HWIO kernel) computed as NCHW between transposes."""
    nhwc = op.data_layout.data == "NHWC"
    data, offset, weight = x
    if nhwc:
        data, offset = (
            transform.transpose(data, (0, 3, 1, 2)),
            transform.transpose(offset, (0, 3, 1, 2)),
        )
        weight = transform.transpose(weight, (3, 2, 0, 1))
    out = nn.deformable_conv2d_nchw(
        data,
        offset,
        weight,
        ints(op.strides),
        ints(op.padding),
        ints(op.dilation),
        integer(op.deformable_groups),
        integer(op.groups),
    )
    return transform.transpose(out, (0, 2, 3, 1)) if nhwc else out


def cast(op: relay.CastOp, x: Sequence[TensorLike]) -> Value:
    dtype = numpy_dtype(op.dtype)
    return elementwise.cast(x[0], "bool" if dtype.kind == "b" else dtype.name)


def multibox_prior(op: relay.MultiboxPriorOp, x: Sequence[TensorLike]) -> Value:
    return vision.multibox_prior(
        x[0],
        floats(op.sizes),
        floats(op.ratios),
        floats(op.steps),
        floats(op.offsets),
        flag(op.clip),
    )


def roi_align(op: relay.RoiAlignOp, x: Sequence[TensorLike]) -> Value:
    return vision.roi_align(
        x[0],
        x[1],
        ints(op.pooled_size),
        number(op.spatial_scale),
        integer(op.sample_ratio),
        op.layout.data,
        op.mode.data,
        flag(op.aligned),
    )


def non_max_suppression(op: relay.NonMaxSuppressionOp, x: Sequence[TensorLike]) -> Value:
    out = vision.non_max_suppression(
        *x,
        flag(op.force_suppress),
        integer(op.top_k),
        integer(op.coord_start),
        integer(op.score_index),
        integer(op.id_index),
        flag(op.return_indices),
        flag(op.invalid_to_bottom),
    )
    return tuple(out) if isinstance(out, list) else out


def correlation(op: relay.CorrelationOp, x: Sequence[TensorLike]) -> Value:
    padding = relay.correlation_padding(type(op), op.props(op.properties))
    return nn.correlation(
        x[0],
        x[1],
        integer(op.kernel_size),
        integer(op.max_displacement),
        (integer(op.stride1), integer(op.stride2)),
        padding,
        flag(op.is_multiply),
        result_shape(op),
    )


def row(compute: Callable[..., Value], schedules: Mapping[str, ScheduleFn] = DEFAULT) -> Strategy:
    return Strategy(compute, schedules)


STRATEGIES: dict[type[relay.RelayOp], Strategy] = {
    # Broadcasting binary ops and select
    relay.AddOp: row(binary("add")),
    relay.SubtractOp: row(binary("subtract")),
    relay.MultiplyOp: row(binary("multiply")),
    relay.DivideOp: row(binary("divide")),
    relay.PowerOp: row(binary("power")),
    relay.MaximumOp: row(binary("maximum")),
    relay.MinimumOp: row(binary("minimum")),
    relay.EqualOp: row(binary("equal")),
    relay.LessOp: row(binary("less")),
    relay.GreaterOp: row(binary("greater")),
    relay.LessEqualOp: row(binary("less_equal")),
    relay.GreaterEqualOp: row(binary("greater_equal")),
    relay.NotEqualOp: row(binary("not_equal")),
    relay.FloorDivideOp: row(binary("floor_divide")),
    relay.FloorModOp: row(binary("floor_mod")),
    relay.ModOp: row(binary("mod")),
    relay.LeftShiftOp: row(binary("left_shift")),
    relay.RightShiftOp: row(binary("right_shift")),
    relay.LogicalAndOp: row(binary("logical_and")),
    relay.LogicalOrOp: row(binary("logical_or")),
    relay.WhereOp: row(lambda op, x: elementwise.where(*x)),
    # Elementwise unary ops
    relay.NegativeOp: row(unary("negative")),
    relay.CopyOp: row(unary("copy")),
    relay.AbsOp: row(unary("abs")),
    relay.ExpOp: row(unary("exp")),
    relay.LogOp: row(unary("log")),
    relay.SqrtOp: row(unary("sqrt")),
    relay.RsqrtOp: row(unary("rsqrt")),
    relay.TanhOp: row(unary("tanh")),
    relay.SigmoidOp: row(unary("sigmoid")),
    relay.ErfOp: row(unary("erf")),
    relay.LogicalNotOp: row(unary("logical_not")),
    relay.IsnanOp: row(unary("isnan")),
    relay.IsinfOp: row(unary("isinf")),
    relay.IsfiniteOp: row(unary("isfinite")),
    relay.CosOp: row(unary("cos")),
    relay.SinOp: row(unary("sin")),
    relay.TanOp: row(unary("tan")),
    relay.AtanOp: row(unary("atan")),
    relay.FloorOp: row(unary("floor")),
    relay.CeilOp: row(unary("ceil")),
    relay.TruncOp: row(unary("trunc")),
    relay.RoundOp: row(unary("round")),
    relay.SignOp: row(unary("sign")),
    relay.ShapeOfOp: row(
        lambda op, x: elementwise.shape_of(tuple(x[0].shape), numpy_dtype(op.dtype).name)
    ),
    relay.NdarraySizeOp: row(
        lambda op, x: elementwise.ndarray_size(tuple(x[0].shape), numpy_dtype(op.dtype).name)
    ),
    relay.ClipOp: row(lambda op, x: elementwise.clip(x[0], number(op.a_min), number(op.a_max))),
    relay.CastOp: row(cast),
    relay.ReinterpretOp: row(
        lambda op, x: elementwise.reinterpret(x[0], numpy_dtype(op.dtype).name)
    ),
    # Activations
    relay.ReluOp: row(unary("relu")),
    relay.LeakyReluOp: row(lambda op, x: elementwise.leaky_relu(x[0], number(op.alpha))),
    relay.PreluOp: row(lambda op, x: nn.prelu(x[0], x[1], axis_of(op, len(x[0].shape)))),
    relay.GeluOp: row(lambda op, x: elementwise.gelu_op(x[0], op.approximate.data)),
    relay.SoftmaxOp: row(lambda op, x: nn.softmax(x[0], axis_of(op, len(x[0].shape)))),
    relay.LogSoftmaxOp: row(lambda op, x: nn.softmax(x[0], axis_of(op, len(x[0].shape)), log=True)),
    relay.DropoutOp: row(lambda op, x: x[0]),  # the identity at inference
    # Convolution and matrix products
    relay.Conv2dOp: row(conv2d, CONV2D),
    relay.Conv1dOp: row(conv_nd),
    relay.Conv3dOp: row(conv_nd),
    relay.Conv1dTransposeOp: row(conv_transpose),
    relay.Conv2dTransposeOp: row(conv_transpose, CONV2D),
    relay.Conv3dTransposeOp: row(conv_transpose),
    relay.BitpackOp: row(
        lambda op, x: nn.bitpack(
            x[0],
            integer(op.bits),
            integer(op.pack_axis),
            integer(op.bit_axis),
            op.pack_type.data,
        )
    ),
    relay.CropAndResizeOp: row(
        lambda op, x: nn.crop_and_resize(
            *x,
            ints(op.crop_size),
            op.layout.data == "NHWC",
            op.method.data,
            number(op.extrapolation_value),
        )
    ),
    relay.DeformableConv2dOp: row(deformable_conv2d),
    relay.CorrelationOp: row(correlation),
    relay.DepthToSpaceOp: row(
        lambda op, x: transform.depth_to_space(
            x[0], integer(op.block_size), op.layout.data == "NHWC", op.mode.data
        )
    ),
    relay.SpaceToDepthOp: row(
        lambda op, x: transform.space_to_depth(
            x[0], integer(op.block_size), op.layout.data == "NHWC"
        )
    ),
    relay.Dilation2dOp: row(
        lambda op, x: nn.dilation2d(
            x[0],
            x[1],
            ints(op.strides),
            ints(op.padding),
            ints(op.dilations),
            op.data_layout.data == "NHWC",
            op.kernel_layout.data == "HWI",
        )
    ),
    relay.Conv2dWinogradOp: row(
        lambda op, x: winograd.conv2d_winograd_nhwc(
            x[0], x[1], integer(op.tile_size), ints(op.padding)
        ),
        WINOGRAD,
    ),
    relay.DenseOp: row(lambda op, x: nn.dense(x[0], x[1]), DENSE),
    relay.MatmulOp: row(
        lambda op, x: nn.matmul(x[0], x[1], flag(op.transpose_a), flag(op.transpose_b)),
        DENSE,
    ),
    relay.BatchMatmulOp: row(
        lambda op, x: nn.batch_matmul(x[0], x[1], flag(op.transpose_a), flag(op.transpose_b)),
        DENSE,
    ),
    relay.BiasAddOp: row(lambda op, x: nn.bias_add(x[0], x[1], axis_of(op, len(x[0].shape)))),
    # Normalisation
    relay.BatchNormOp: row(batch_norm),
    relay.LayerNormOp: row(layer_norm, LAYER_NORM),
    relay.LrnOp: row(lrn),
    # Pooling, padding, resizing
    relay.MaxPool1dOp: row(pool("max")),
    relay.AvgPool1dOp: row(pool("avg")),
    relay.MaxPool2dOp: row(pool("max")),
    relay.AvgPool2dOp: row(pool("avg")),
    relay.MaxPool3dOp: row(pool("max")),
    relay.AvgPool3dOp: row(pool("avg")),
    relay.AdaptiveMaxPool1dOp: row(adaptive_pool("max")),
    relay.AdaptiveAvgPool1dOp: row(adaptive_pool("avg")),
    relay.AdaptiveMaxPool2dOp: row(adaptive_pool("max")),
    relay.AdaptiveAvgPool2dOp: row(adaptive_pool("avg")),
    relay.AdaptiveMaxPool3dOp: row(adaptive_pool("max")),
    relay.AdaptiveAvgPool3dOp: row(adaptive_pool("avg")),
    relay.GlobalAvgPool2dOp: row(lambda op, x: nn.global_pool2d(x[0], "avg", op.layout.data)),
    relay.GlobalMaxPool2dOp: row(lambda op, x: nn.global_pool2d(x[0], "max", op.layout.data)),
    relay.PadOp: row(pad),
    relay.Resize1dOp: row(resize),
    relay.Resize2dOp: row(resize),
    relay.Resize3dOp: row(resize),
    relay.UpsamplingOp: row(upsampling),
    # Reductions
    relay.SumOp: row(reducer(reduction.sum)),
    relay.MeanOp: row(reducer(reduction.mean)),
    relay.MaxOp: row(reducer(reduction.max)),
    relay.MinOp: row(reducer(reduction.min)),
    relay.ProdOp: row(reducer(reduction.prod)),
    relay.ArgmaxOp: row(arg_reducer(largest=True)),
    relay.ArgminOp: row(arg_reducer(largest=False)),
    # Shape manipulation
    relay.ReshapeOp: row(reshaped),
    relay.SqueezeOp: row(reshaped),
    relay.ExpandDimsOp: row(reshaped),
    relay.BatchFlattenOp: row(reshaped),
    relay.TransposeOp: row(transpose),
    relay.ConcatenateOp: row(lambda op, x: transform.concatenate(x, integer(op.axis))),
    relay.SplitOp: row(split),
    relay.StridedSliceOp: row(strided_slice),
    relay.TakeOp: row(take),
    relay.BroadcastToOp: row(lambda op, x: transform.broadcast_to(x[0], ints(op.shape))),
    relay.TileOp: row(lambda op, x: transform.tile(x[0], ints(op.reps))),
    relay.LayoutTransformOp: row(
        lambda op, x: transform.layout_transform(x[0], op.src_layout.data, op.dst_layout.data)
    ),
    # Gather, scatter and scans
    relay.GatherNdOp: row(lambda op, x: indexing.gather_nd(x[0], x[1], integer(op.batch_dims))),
    relay.ScatterNdOp: row(lambda op, x: indexing.scatter_nd(*x, op.mode.data)),
    relay.GatherOp: row(lambda op, x: indexing.gather(x[0], x[1], axis_of(op, len(x[0].shape)))),
    relay.ScatterElementsOp: row(
        lambda op, x: indexing.scatter_elements(*x, axis_of(op, len(x[0].shape)), op.reduction.data)
    ),
    relay.CumsumOp: row(cumsum),
    relay.CumprodOp: row(cumsum),
    relay.SegmentSumOp: row(segment_sum),
    relay.SliceLikeOp: row(
        lambda op, x: te.compute(
            result_shape(op), lambda *i: x[0](*i), name="T_slice_like", tag="injective"
        )
    ),
    relay.StridedSetOp: row(
        lambda op, x: transform.strided_set(
            x[0], x[1], relay.StridedSetOp.slices(op.properties, static_shape(x[0]))
        )
    ),
    relay.SpaceToBatchNdOp: row(
        lambda op, x: transform.space_to_batch_nd(
            x[0], ints(op.block_shape), ints(op.paddings), number(op.pad_value)
        )
    ),
    relay.BatchToSpaceNdOp: row(
        lambda op, x: transform.batch_to_space_nd(x[0], ints(op.block_shape), ints(op.crops))
    ),
    relay.AffineGridOp: row(lambda op, x: grid_sample.affine_grid(x[0], ints(op.target_shape))),
    relay.GridSampleOp: row(
        lambda op, x: grid_sample.grid_sample(
            x[0], x[1], op.method.data, op.padding_mode.data, flag(op.align_corners)
        )
    ),
    relay.UniqueOp: row(
        lambda op, x: indexing.unique(x[0], flag(op.sorted), flag(op.return_counts))
    ),
    relay.ReverseSequenceOp: row(
        lambda op, x: indexing.reverse_sequence(
            x[0],
            x[1],
            integer(op.seq_axis) % len(x[0].shape),
            integer(op.batch_axis) % len(x[0].shape),
        )
    ),
    relay.UnravelIndexOp: row(lambda op, x: indexing.unravel_index(x[0], x[1])),
    relay.SparseReshapeOp: row(lambda op, x: indexing.sparse_reshape(*x)),
    relay.StftOp: row(
        lambda op, x: signal.stft(
            x[0],
            x[1],
            integer(op.n_fft),
            integer(op.hop_length),
            integer(op.win_length),
            flag(op.normalized),
            flag(op.onesided),
        )
    ),
    relay.TriluOp: row(lambda op, x: indexing.trilu(x[0], integer(op.k), flag(op.upper))),
    # Vision: index maps, and te.extern stages (their loops are fixed; nothing schedules them)
    relay.MultiboxPriorOp: row(multibox_prior),
    relay.YoloReorgOp: row(lambda op, x: vision.yolo_reorg(x[0], integer(op.stride))),
    relay.RoiAlignOp: row(roi_align),
    relay.RoiPoolOp: row(
        lambda op, x: vision.roi_pool(x[0], x[1], ints(op.pooled_size), number(op.spatial_scale))
    ),
    relay.GetValidCountsOp: row(
        lambda op, x: tuple(
            vision.get_valid_counts(
                x[0], number(op.score_threshold), integer(op.id_index), integer(op.score_index)
            )
        )
    ),
    relay.NonMaxSuppressionOp: row(non_max_suppression),
    relay.MultiboxTransformLocOp: row(
        lambda op, x: tuple(
            vision.multibox_transform_loc(
                *x, flag(op.clip), number(op.threshold), floats(op.variances)
            )
        )
    ),
    relay.ProposalOp: row(
        lambda op, x: vision.proposal(
            *x,
            floats(op.scales),
            floats(op.ratios),
            integer(op.feature_stride),
            number(op.threshold),
            integer(op.rpn_pre_nms_top_n),
            integer(op.rpn_post_nms_top_n),
            integer(op.rpn_min_size),
            flag(op.iou_loss),
        )
    ),
    relay.AllClassNonMaxSuppressionOp: row(
        lambda op, x: tuple(vision.all_class_non_max_suppression(*x, op.output_format.data))
    ),
}


def strategy_for(op: relay.RelayOp) -> Strategy | None:
    """The row of `op`'s class, or None when it has none."""
    return STRATEGIES.get(type(op))
