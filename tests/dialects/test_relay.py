"""The relay dialect: building, type inference, custom syntax round trip, verifier messages."""

from __future__ import annotations

import inspect
import re
from collections.abc import Callable, Sequence
from io import StringIO

import numpy as np
import pytest
from xdsl.builder import ImplicitBuilder
from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    Builtin,
    IndexType,
    IntegerType,
    ModuleOp,
    Signedness,
    TensorType,
    TupleType,
    f16,
    f32,
    f64,
    i1,
    i32,
    i64,
)
from xdsl.ir import Attribute, Block, Operation, Region
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.utils.exceptions import VerifyException

from xtvm.dialects import relay
from xtvm.dialects.relay import OpPattern, Relay

Q = DYNAMIC_INDEX  # a symbolic size, `?`


def t(*shape: int, elem: Attribute = f32) -> TensorType:
    return TensorType(elem, shape)


Body = Callable[..., Operation]
UI8 = IntegerType(8, Signedness.UNSIGNED)


def function(arg_types: Sequence[Attribute], body: Body) -> tuple[ModuleOp, Operation]:
    """`func.func @main` over `arg_types` returning the results of the op `body` builds."""
    block = Block(arg_types=arg_types)
    with ImplicitBuilder(block) as args:
        op = body(*args)
        func.ReturnOp(*op.results)
    ftype = (list(arg_types), [r.type for r in op.results])
    return ModuleOp([func.FuncOp("main", ftype, Region(block))]), op


def context() -> Context:
    ctx = Context()
    for dialect in (Builtin, func.Func, Relay):
        ctx.load_dialect(dialect)
    return ctx


def print_op(op: Operation, generic: bool = False) -> str:
    stream = StringIO()
    Printer(stream=stream, print_generic_format=generic).print_op(op)
    return stream.getvalue()


def parse(text: str) -> ModuleOp:
    return Parser(context(), text).parse_module()


# One case per op: operand types, the op built on them, and the inferred result type.
CASES: list[tuple[str, list[Attribute], Body, str]] = [
    # Constants, parameters, tuples
    (
        "const",
        [],
        lambda: relay.ConstOp(np.arange(6, dtype=np.float32).reshape(2, 3)),
        "tensor<2x3xf32>",
    ),
    ("const_i1", [], lambda: relay.ConstOp(np.array([True, False, True])), "tensor<3xi1>"),
    ("param", [], lambda: relay.ParamOp("fc.weight", t(3, 5)), "tensor<3x5xf32>"),
    (
        "tuple",
        [t(2), t(3, elem=i32)],
        lambda a, b: relay.TupleOp(a, b),
        "tuple<tensor<2xf32>, tensor<3xi32>>",
    ),
    (
        "tuple_get_item",
        [t(2), t(3, elem=i32)],
        lambda a, b: relay.TupleGetItemOp(relay.TupleOp(a, b), 1),
        "tensor<3xi32>",
    ),
    # Broadcasting binary ops
    *[
        (name, [t(3, 1, 5), t(4, 1)], cls, "tensor<3x4x5xf32>")
        for name, cls in [
            ("add", relay.AddOp),
            ("subtract", relay.SubtractOp),
            ("multiply", relay.MultiplyOp),
            ("divide", relay.DivideOp),
            ("power", relay.PowerOp),
            ("maximum", relay.MaximumOp),
            ("minimum", relay.MinimumOp),
        ]
    ],
    *[
        (name, [t(3, 5, elem=i32), t(5, elem=i32)], cls, "tensor<3x5xi1>")
        for name, cls in [
            ("equal", relay.EqualOp),
            ("less", relay.LessOp),
            ("greater", relay.GreaterOp),
            ("less_equal", relay.LessEqualOp),
            ("greater_equal", relay.GreaterEqualOp),
            ("not_equal", relay.NotEqualOp),
        ]
    ],
    ("less_equal_f32", [t(2, 1, 4), t(3, 1)], relay.LessEqualOp, "tensor<2x3x4xi1>"),
    ("not_equal_bool", [t(3, elem=i1), t(elem=i1)], relay.NotEqualOp, "tensor<3xi1>"),
    *[
        (name, [t(2, 1, 5, elem=i64), t(3, 1, elem=i64)], cls, "tensor<2x3x5xi64>")
        for name, cls in [
            ("floor_divide", relay.FloorDivideOp),
            ("floor_mod", relay.FloorModOp),
            ("mod", relay.ModOp),
            ("left_shift", relay.LeftShiftOp),
            ("right_shift", relay.RightShiftOp),
        ]
    ],
    ("floor_divide_f32", [t(3, 5), t(5)], relay.FloorDivideOp, "tensor<3x5xf32>"),
    ("floor_mod_f16", [t(4, elem=f16), t(elem=f16)], relay.FloorModOp, "tensor<4xf16>"),
    (
        "right_shift_unsigned",
        [t(4, elem=UI8), t(1, elem=UI8)],
        relay.RightShiftOp,
        "tensor<4xui8>",
    ),
    *[
        (name, [t(3, 1, elem=i1), t(4, elem=i1)], cls, "tensor<3x4xi1>")
        for name, cls in [
            ("logical_and", relay.LogicalAndOp),
            ("logical_or", relay.LogicalOrOp),
        ]
    ],
    ("add_scalar", [t(3), t()], relay.AddOp, "tensor<3xf32>"),
    ("where", [t(3, 1, elem=i1), t(5), t()], relay.WhereOp, "tensor<3x5xf32>"),
    # Elementwise unary ops
    *[
        (name, [t(3, 5)], cls, "tensor<3x5xf32>")
        for name, cls in [
            ("negative", relay.NegativeOp),
            ("copy", relay.CopyOp),
            ("stop_fusion", relay.StopFusionOp),
            ("abs", relay.AbsOp),
            ("exp", relay.ExpOp),
            ("log", relay.LogOp),
            ("sqrt", relay.SqrtOp),
            ("rsqrt", relay.RsqrtOp),
            ("tanh", relay.TanhOp),
            ("sigmoid", relay.SigmoidOp),
            ("erf", relay.ErfOp),
            ("relu", relay.ReluOp),
            ("cos", relay.CosOp),
            ("sin", relay.SinOp),
            ("tan", relay.TanOp),
            ("atan", relay.AtanOp),
            ("floor", relay.FloorOp),
            ("ceil", relay.CeilOp),
            ("trunc", relay.TruncOp),
            ("round", relay.RoundOp),
            ("sign", relay.SignOp),
        ]
    ],
    ("cos_f64", [t(2, 1, elem=f64)], relay.CosOp, "tensor<2x1xf64>"),
    ("round_f16", [t(6, elem=f16)], relay.RoundOp, "tensor<6xf16>"),
    ("sign_i32", [t(7, elem=i32)], relay.SignOp, "tensor<7xi32>"),
    ("abs_i32", [t(7, elem=i32)], relay.AbsOp, "tensor<7xi32>"),
    ("logical_not", [t(3, elem=i1)], relay.LogicalNotOp, "tensor<3xi1>"),
    ("isnan", [t(3, 5)], relay.IsnanOp, "tensor<3x5xi1>"),
    ("isinf_f16", [t(3, elem=f16)], relay.IsinfOp, "tensor<3xi1>"),
    ("isfinite_f64", [t(2, 1, elem=f64)], relay.IsfiniteOp, "tensor<2x1xi1>"),
    ("clip", [t(3, 5)], lambda x: relay.ClipOp(x, 0.0, 6.0), "tensor<3x5xf32>"),
    ("cast", [t(3, 5)], lambda x: relay.CastOp(x, "int32"), "tensor<3x5xi32>"),
    ("cast_f16", [t(3, elem=i32)], lambda x: relay.CastOp(x, f16), "tensor<3xf16>"),
    # Activations
    ("leaky_relu", [t(3, 5)], lambda x: relay.LeakyReluOp(x, alpha=0.2), "tensor<3x5xf32>"),
    ("prelu", [t(2, 3, 5), t(3)], relay.PreluOp, "tensor<2x3x5xf32>"),
    ("gelu", [t(3, 5)], relay.GeluOp, "tensor<3x5xf32>"),
    ("gelu_tanh", [t(3, 5)], lambda x: relay.GeluOp(x, "tanh"), "tensor<3x5xf32>"),
    ("softmax", [t(3, 5)], lambda x: relay.SoftmaxOp(x, axis=0), "tensor<3x5xf32>"),
    ("log_softmax", [t(3, 5)], relay.LogSoftmaxOp, "tensor<3x5xf32>"),
    ("dropout", [t(3, 5)], lambda x: relay.DropoutOp(x, 0.25), "tensor<3x5xf32>"),
    # Convolution and matrix products
    (
        "conv2d",
        [t(1, 3, 9, 7), t(4, 3, 3, 3)],
        lambda x, w: relay.Conv2dOp(x, w, padding=(1, 1, 1, 1)),
        "tensor<1x4x9x7xf32>",
    ),
    (
        "conv2d_strided_dilated",
        [t(2, 3, 11, 9), t(5, 3, 3, 2)],
        lambda x, w: relay.Conv2dOp(x, w, strides=(2, 3), padding=(1, 0, 2, 1), dilation=(2, 1)),
        "tensor<2x5x5x3xf32>",
    ),
    (
        "conv2d_grouped_nhwc_hwio",
        [t(1, 9, 7, 6), t(3, 3, 2, 9)],
        lambda x, w: relay.Conv2dOp(
            x, w, groups=3, data_layout="NHWC", kernel_layout="HWIO", padding=(1, 1, 1, 1)
        ),
        "tensor<1x9x7x9xf32>",
    ),
    (
        "conv2d_winograd",
        [t(1, 9, 7, 16), t(6, 6, 2, 16, 8)],
        lambda x, u: relay.Conv2dWinogradOp(x, u, 4, (1, 1, 1, 1)),
        "tensor<1x9x7x16xf32>",
    ),
    (
        "conv2d_transpose",
        [t(1, 4, 3, 5), t(4, 2, 3, 3)],
        lambda x, w: relay.Conv2dTransposeOp(
            x, w, strides=(2, 2), padding=(1, 0, 1, 1), output_padding=(1, 0), groups=2
        ),
        "tensor<1x4x6x10xf32>",
    ),
    (
        "conv1d_nwc_wio",
        [t(2, 9, 4), t(3, 2, 6)],
        lambda x, w: relay.Conv1dOp(
            x, w, strides=(2,), padding=(1, 0), groups=2, data_layout="NWC", kernel_layout="WIO"
        ),
        "tensor<2x4x6xf32>",
    ),
    (
        "conv3d",
        [t(1, 4, 5, 9, 7), t(6, 2, 3, 3, 1)],
        lambda x, w: relay.Conv3dOp(
            x, w, strides=(1, 2, 1), padding=(1, 0, 0, 1, 1, 0), dilation=(1, 1, 2), groups=2
        ),
        "tensor<1x6x5x4x7xf32>",
    ),
    (
        "conv3d_ndhwc_out_dtype",
        [t(1, 5, 6, 7, 3, elem=IntegerType(8)), t(3, 3, 3, 3, 4, elem=UI8)],
        lambda x, w: relay.Conv3dOp(
            x, w, data_layout="NDHWC", kernel_layout="DHWIO", out_dtype="int32"
        ),
        "tensor<1x3x4x5x4xi32>",
    ),
    (
        "conv1d_transpose",
        [t(1, 4, 5), t(4, 3, 3)],
        lambda x, w: relay.Conv1dTransposeOp(
            x, w, strides=(2,), padding=(1, 0), output_padding=(1,), groups=2
        ),
        "tensor<1x6x11xf32>",
    ),
    (
        "conv2d_transpose_nhwc_hwoi",
        [t(1, 3, 5, 4), t(3, 3, 2, 4)],
        lambda x, w: relay.Conv2dTransposeOp(
            x, w, strides=(2, 1), data_layout="NHWC", kernel_layout="HWOI"
        ),
        "tensor<1x7x7x2xf32>",
    ),
    (
        "conv3d_transpose",
        [t(1, 2, 3, 4, 2), t(2, 3, 2, 2, 2)],
        lambda x, w: relay.Conv3dTransposeOp(x, w, strides=(2, 2, 2), padding=(1, 1, 1, 1, 1, 1)),
        "tensor<1x3x4x6x2xf32>",
    ),
    (
        "bitpack",
        [t(32, 32, 4, 4, elem=IntegerType(16))],
        lambda x: relay.BitpackOp(x, bits=1, pack_axis=1, bit_axis=4, pack_type="uint16"),
        "tensor<32x2x4x4x1xui16>",
    ),
    (
        "correlation",
        [t(2, 3, 9, 7), t(2, 3, 9, 7)],
        lambda a, b: relay.CorrelationOp(a, b, 3, 2, 2, 1, (2, 1)),
        "tensor<2x25x4x2xf32>",
    ),
    ("dense", [t(2, 3, 5), t(7, 5)], relay.DenseOp, "tensor<2x3x7xf32>"),
    ("matmul", [t(3, 5), t(5, 7)], relay.MatmulOp, "tensor<3x7xf32>"),
    (
        "matmul_transposed",
        [t(5, 3), t(7, 5)],
        lambda a, b: relay.MatmulOp(a, b, transpose_a=True, transpose_b=True),
        "tensor<3x7xf32>",
    ),
    ("batch_matmul", [t(2, 3, 5), t(1, 7, 5)], relay.BatchMatmulOp, "tensor<2x3x7xf32>"),
    (
        "batch_matmul_nt",
        [t(2, 5, 3), t(2, 5, 7)],
        lambda x, y: relay.BatchMatmulOp(x, y, transpose_a=True, transpose_b=False),
        "tensor<2x3x7xf32>",
    ),
    (
        "bias_add",
        [t(2, 3, 5), t(5)],
        lambda x, b: relay.BiasAddOp(x, b, axis=-1),
        "tensor<2x3x5xf32>",
    ),
    # Normalisation
    (
        "batch_norm",
        [t(2, 3, 5), t(3), t(3), t(3), t(3)],
        relay.BatchNormOp,
        "tuple<tensor<2x3x5xf32>, tensor<3xf32>, tensor<3xf32>>",
    ),
    (
        "layer_norm",
        [t(2, 3, 5), t(3), t(3)],
        lambda x, g, b: relay.LayerNormOp(x, g, b, axis=1, epsilon=1e-3),
        "tensor<2x3x5xf32>",
    ),
    ("lrn", [t(1, 5, 3, 3)], lambda x: relay.LrnOp(x, size=3), "tensor<1x5x3x3xf32>"),
    # Pooling, padding, resizing
    (
        "max_pool2d",
        [t(1, 3, 9, 7)],
        lambda x: relay.MaxPool2dOp(x, (3, 2), strides=(2, 2), padding=(1, 0, 1, 0)),
        "tensor<1x3x5x3xf32>",
    ),
    (
        "max_pool2d_ceil",
        [t(1, 3, 8, 8)],
        lambda x: relay.MaxPool2dOp(x, (3, 3), strides=(2, 2), ceil_mode=True),
        "tensor<1x3x4x4xf32>",
    ),
    (
        "max_pool2d_ceil_drops_window_in_padding",
        [t(1, 3, 9, 10)],
        lambda x: relay.MaxPool2dOp(x, (2, 2), strides=(3, 3), ceil_mode=True),
        "tensor<1x3x3x4xf32>",
    ),
    (
        "avg_pool2d_nhwc",
        [t(2, 7, 5, 3)],
        lambda x: relay.AvgPool2dOp(
            x, (2, 2), dilation=(2, 1), layout="NHWC", count_include_pad=True
        ),
        "tensor<2x5x4x3xf32>",
    ),
    (
        "max_pool1d",
        [t(1, 3, 9)],
        lambda x: relay.MaxPool1dOp(x, (3,), strides=(2,), padding=(1, 0)),
        "tensor<1x3x4xf32>",
    ),
    (
        "avg_pool1d_nwc_ceil",
        [t(2, 9, 3)],
        lambda x: relay.AvgPool1dOp(x, (2,), strides=(2,), layout="NWC", ceil_mode=True),
        "tensor<2x5x3xf32>",
    ),
    (
        "max_pool3d",
        [t(1, 3, 5, 9, 7)],
        lambda x: relay.MaxPool3dOp(x, (2, 3, 2), strides=(1, 2, 2), padding=(0, 1, 0, 1, 1, 0)),
        "tensor<1x3x5x5x3xf32>",
    ),
    (
        "avg_pool3d_ndhwc_ceil",
        [t(2, 5, 6, 7, 3)],
        lambda x: relay.AvgPool3dOp(
            x, (2, 2, 2), strides=(2, 2, 2), layout="NDHWC", ceil_mode=True
        ),
        "tensor<2x3x3x4x3xf32>",
    ),
    (
        "adaptive_max_pool1d",
        [t(2, 3, 10)],
        lambda x: relay.AdaptiveMaxPool1dOp(x, (4,)),
        "tensor<2x3x4xf32>",
    ),
    (
        "adaptive_avg_pool1d_nwc",
        [t(2, 10, 3)],
        lambda x: relay.AdaptiveAvgPool1dOp(x, (4,), layout="NWC"),
        "tensor<2x4x3xf32>",
    ),
    (
        "adaptive_max_pool2d",
        [t(2, 3, 10, 9)],
        lambda x: relay.AdaptiveMaxPool2dOp(x, (4, 2)),
        "tensor<2x3x4x2xf32>",
    ),
    (
        "adaptive_avg_pool2d_nhwc",
        [t(2, 10, 9, 3)],
        lambda x: relay.AdaptiveAvgPool2dOp(x, (4, 2), layout="NHWC"),
        "tensor<2x4x2x3xf32>",
    ),
    (
        "adaptive_max_pool3d",
        [t(1, 3, 4, 10, 9)],
        lambda x: relay.AdaptiveMaxPool3dOp(x, (1, 4, 2)),
        "tensor<1x3x1x4x2xf32>",
    ),
    (
        "adaptive_avg_pool3d_ndhwc",
        [t(1, 4, 10, 9, 3)],
        lambda x: relay.AdaptiveAvgPool3dOp(x, (2, 3, 3), layout="NDHWC"),
        "tensor<1x2x3x3x3xf32>",
    ),
    ("global_avg_pool2d", [t(2, 3, 5, 7)], relay.GlobalAvgPool2dOp, "tensor<2x3x1x1xf32>"),
    (
        "global_max_pool2d",
        [t(2, 5, 7, 3)],
        lambda x: relay.GlobalMaxPool2dOp(x, layout="NHWC"),
        "tensor<2x1x1x3xf32>",
    ),
    (
        "pad",
        [t(3, 5)],
        lambda x: relay.PadOp(x, [(1, 2), (0, 3)], pad_value=-1.5),
        "tensor<6x8xf32>",
    ),
    (
        "pad_reflect",
        [t(3, 5)],
        lambda x: relay.PadOp(x, [1, 2, 4, 0], pad_mode="reflect"),
        "tensor<6x9xf32>",
    ),
    (
        "resize2d",
        [t(1, 2, 3, 5)],
        lambda x: relay.Resize2dOp(x, (7, 4), method="nearest_neighbor"),
        "tensor<1x2x7x4xf32>",
    ),
    (
        "resize1d",
        [t(1, 2, 5)],
        lambda x: relay.Resize1dOp(x, (9,), method="cubic"),
        "tensor<1x2x9xf32>",
    ),
    (
        "resize3d_ndhwc",
        [t(1, 2, 3, 4, 5)],
        lambda x: relay.Resize3dOp(x, (4, 6, 8), layout="NDHWC"),
        "tensor<1x4x6x8x5xf32>",
    ),
    (
        "upsampling",
        [t(1, 2, 3, 5)],
        lambda x: relay.UpsamplingOp(x, 2.0, 1.5, method="bilinear", align_corners=True),
        "tensor<1x2x6x8xf32>",
    ),
    # Reductions
    ("sum", [t(3, 5, 7)], lambda x: relay.SumOp(x, axis=[0, -1]), "tensor<5xf32>"),
    ("sum_all", [t(3, 5)], relay.SumOp, "tensor<f32>"),
    ("mean", [t(3, 5, 7)], lambda x: relay.MeanOp(x, axis=1, keepdims=True), "tensor<3x1x7xf32>"),
    ("max", [t(3, 5)], lambda x: relay.MaxOp(x, axis=[1]), "tensor<3xf32>"),
    ("min", [t(3, 5)], lambda x: relay.MinOp(x, keepdims=True), "tensor<1x1xf32>"),
    ("prod", [t(3, 5)], lambda x: relay.ProdOp(x, axis=0), "tensor<5xf32>"),
    ("argmax", [t(3, 5)], lambda x: relay.ArgmaxOp(x, axis=1), "tensor<3xi32>"),
    ("argmin", [t(3, 5)], lambda x: relay.ArgminOp(x, keepdims=True), "tensor<1x1xi32>"),
    ("argmax_axes", [t(3, 5, 2)], lambda x: relay.ArgmaxOp(x, axis=[2, 0]), "tensor<5xi32>"),
    (
        "argmin_last",
        [t(3, 5)],
        lambda x: relay.ArgminOp(x, axis=0, select_last_index=True),
        "tensor<5xi32>",
    ),
    # Shape manipulation
    ("reshape", [t(2, 3, 5)], lambda x: relay.ReshapeOp(x, (0, -1)), "tensor<2x15xf32>"),
    ("reshape_infer", [t(2, 3, 5)], lambda x: relay.ReshapeOp(x, (-1, 3, 1)), "tensor<10x3x1xf32>"),
    ("transpose", [t(2, 3, 5)], lambda x: relay.TransposeOp(x, (0, 2, 1)), "tensor<2x5x3xf32>"),
    ("transpose_reverse", [t(2, 3, 5)], relay.TransposeOp, "tensor<5x3x2xf32>"),
    (
        "concatenate",
        [t(2, 3), t(2, 1), t(2, 5)],
        lambda a, b, c: relay.ConcatenateOp([a, b, c], axis=1),
        "tensor<2x9xf32>",
    ),
    (
        "split_sections",
        [t(2, 9)],
        lambda x: relay.SplitOp(x, 3, axis=1),
        "tuple<tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>>",
    ),
    (
        "split_indices",
        [t(7, 2)],
        lambda x: relay.SplitOp(x, [2, 3]),
        "tuple<tensor<2x2xf32>, tensor<1x2xf32>, tensor<4x2xf32>>",
    ),
    ("squeeze", [t(1, 3, 1, 5)], relay.SqueezeOp, "tensor<3x5xf32>"),
    ("squeeze_axis", [t(1, 3, 1, 5)], lambda x: relay.SqueezeOp(x, [-2]), "tensor<1x3x5xf32>"),
    (
        "expand_dims",
        [t(3, 5)],
        lambda x: relay.ExpandDimsOp(x, -1, num_newaxis=2),
        "tensor<3x5x1x1xf32>",
    ),
    ("batch_flatten", [t(2, 3, 5)], relay.BatchFlattenOp, "tensor<2x15xf32>"),
    # A symbolic size (`?`) makes the sizes derived from it symbolic; the others stay static.
    ("batch_flatten_symbolic", [t(2, Q, 5)], relay.BatchFlattenOp, "tensor<2x?xf32>"),
    ("add_symbolic", [t(Q, 1), t(3, 4)], relay.AddOp, "tensor<3x4xf32>"),  # TVM's BroadcastRel
    (
        "conv2d_symbolic",  # channels checked when they are known
        [t(Q, Q, Q, 9), t(4, 3, 3, 3)],
        lambda x, w: relay.Conv2dOp(x, w, padding=(1, 1, 1, 1)),
        "tensor<?x4x?x9xf32>",
    ),
    ("tile_symbolic", [t(Q, 4)], lambda x: relay.TileOp(x, (2, 3)), "tensor<?x12xf32>"),
    (
        "max_pool2d_symbolic",
        [t(1, 3, Q, 8)],
        lambda x: relay.MaxPool2dOp(x, (2, 2), strides=(2, 2)),
        "tensor<1x3x?x4xf32>",
    ),
    (
        "concatenate_symbolic_axis",  # TVM's rule: a static size wins off a `?` joined axis
        [t(Q, 3), t(2, Q)],
        lambda a, b: relay.ConcatenateOp([a, b], axis=0),
        "tensor<?x3xf32>",
    ),
    (
        "concatenate_static_axis",  # ... but not off a static one (the `?` is checked late)
        [t(1, 3), t(1, Q), t(2, 3)],
        lambda a, b, c: relay.ConcatenateOp([a, b, c], axis=0),
        "tensor<4x?xf32>",
    ),
    (
        "pad_symbolic",
        [t(Q, 5)],
        lambda x: relay.PadOp(x, [(1, 2), (0, 3)], pad_mode="reflect"),
        "tensor<?x8xf32>",
    ),
    ("reshape_symbolic", [t(Q, 6)], lambda x: relay.ReshapeOp(x, (0, 2, -1)), "tensor<?x2x?xf32>"),
    (
        "split_symbolic_indices",
        [t(4, Q)],
        lambda x: relay.SplitOp(x, [2, 5], axis=1),
        "tuple<tensor<4x2xf32>, tensor<4x3xf32>, tensor<4x?xf32>>",
    ),
    (
        "split_symbolic_sections",
        [t(Q, 4)],
        lambda x: relay.SplitOp(x, 2),
        "tuple<tensor<?x4xf32>, tensor<?x4xf32>>",
    ),
    (
        "strided_slice_symbolic",
        [t(Q, 9)],
        lambda x: relay.StridedSliceOp(x, [1, 1], [-1, 7]),
        "tensor<?x6xf32>",
    ),
    (
        "upsampling_symbolic",
        [t(1, 2, Q, 5)],
        lambda x: relay.UpsamplingOp(x, 2.0, 2.0),
        "tensor<1x2x?x10xf32>",
    ),
    (
        "resize2d_symbolic_size",  # TVM's size may be a variable
        [t(1, 2, 3, 5)],
        lambda x: relay.Resize2dOp(x, (Q, 4)),
        "tensor<1x2x?x4xf32>",
    ),
    (
        "resize2d_linear_integers",  # interpolated in floating point, truncated back
        [t(1, 2, 3, 3, elem=i32)],
        lambda x: relay.Resize2dOp(x, (4, 4)),
        "tensor<1x2x4x4xi32>",
    ),
    ("shape_of", [t(2, 3, 5)], relay.ShapeOfOp, "tensor<3xi32>"),
    ("shape_of_i64", [t(7, 1, elem=i1)], lambda x: relay.ShapeOfOp(x, "int64"), "tensor<2xi64>"),
    ("shape_of_scalar", [t()], relay.ShapeOfOp, "tensor<0xi32>"),
    ("shape_of_f32", [t(2, 3)], lambda x: relay.ShapeOfOp(x, f32), "tensor<2xf32>"),
    ("ndarray_size", [t(2, 3, 5)], relay.NdarraySizeOp, "tensor<i32>"),
    (
        "ndarray_size_i64",
        [t(4, 0, elem=i32)],
        lambda x: relay.NdarraySizeOp(x, i64),
        "tensor<i64>",
    ),
    (
        "strided_slice",
        [t(5, 9)],
        lambda x: relay.StridedSliceOp(x, [1, -1], [4, 0], strides=[2, -3]),
        "tensor<2x3xf32>",
    ),
    (
        "strided_slice_short_bounds",  # TVM's: missing strides are 1, begins 0, ends the size
        [t(5, 9, 3)],
        lambda x: relay.StridedSliceOp(x, [1, 2], [4], strides=[2]),
        "tensor<2x7x3xf32>",
    ),
    (
        "strided_slice_dynamic",
        [t(DYNAMIC_INDEX, 9)],
        lambda x: relay.StridedSliceOp(x, [1, 2], [4, 5]),
        "tensor<?x3xf32>",
    ),
    (
        "strided_slice_axes",
        [t(5, 9, 3)],
        lambda x: relay.StridedSliceOp(x, [2], [100], axes=[1]),
        "tensor<5x7x3xf32>",
    ),
    (
        "take",
        [t(3, 5), t(2, 4, elem=i32)],
        lambda x, i: relay.TakeOp(x, i, axis=1, mode="wrap"),
        "tensor<3x2x4xf32>",
    ),
    ("take_flat", [t(3, 5), t(4, elem=i32)], relay.TakeOp, "tensor<4xf32>"),
    ("broadcast_to", [t(3, 1)], lambda x: relay.BroadcastToOp(x, (2, 3, 5)), "tensor<2x3x5xf32>"),
    ("tile", [t(3, 5)], lambda x: relay.TileOp(x, (2, 1, 3)), "tensor<2x3x15xf32>"),
    (
        "layout_transform",
        [t(1, 8, 3, 5)],
        lambda x: relay.LayoutTransformOp(x, "NCHW", "NCHW4c"),
        "tensor<1x2x3x5x4xf32>",
    ),
    (
        "layout_transform_nhwc",
        [t(1, 2, 3, 5, 4)],
        lambda x: relay.LayoutTransformOp(x, "NCHW4c", "NHWC"),
        "tensor<1x3x5x8xf32>",
    ),
    (
        "nn.depth_to_space",
        [t(1, 8, 3, 3)],
        lambda x: relay.DepthToSpaceOp(x, 2, mode="CDR"),
        "tensor<1x2x6x6xf32>",
    ),
    (
        "nn.space_to_depth_nhwc",
        [t(1, 6, 4, 3)],
        lambda x: relay.SpaceToDepthOp(x, 2, "NHWC"),
        "tensor<1x3x2x12xf32>",
    ),
    (
        "image.crop_and_resize",
        [t(2, 3, 8, 8), t(5, 4), t(5, elem=i32)],
        lambda x, b, i: relay.CropAndResizeOp(x, b, i, (3, 4)),
        "tensor<5x3x3x4xf32>",
    ),
    (
        "image.crop_and_resize_nhwc",
        [t(2, 8, 8, 3), t(5, 4), t(5, elem=i64)],
        lambda x, b, i: relay.CropAndResizeOp(x, b, i, (1, 2), "NHWC", "nearest_neighbor", 1.0),
        "tensor<5x1x2x3xf32>",
    ),
    (
        "nn.deformable_conv2d",
        [t(1, 4, 8, 8), t(1, 36, 8, 8), t(6, 2, 3, 3)],
        lambda x, o, w: relay.DeformableConv2dOp(
            x, o, w, padding=(1, 1, 1, 1), deformable_groups=2, groups=2
        ),
        "tensor<1x6x8x8xf32>",
    ),
    (
        "nn.deformable_conv2d_nhwc",
        [t(2, 9, 9, 3), t(2, 4, 4, 8), t(2, 2, 3, 5)],
        lambda x, o, w: relay.DeformableConv2dOp(
            x, o, w, strides=(2, 2), data_layout="NHWC", kernel_layout="HWIO"
        ),
        "tensor<2x4x4x5xf32>",
    ),
    (
        "image.dilation2d",
        [t(1, 3, 4, 4), t(3, 2, 2)],
        lambda x, w: relay.Dilation2dOp(x, w, padding=(0, 0, 1, 1)),
        "tensor<1x3x4x4xf32>",
    ),
    (
        "image.dilation2d_nhwc",
        [t(2, 9, 7, 3), t(2, 3, 3)],
        lambda x, w: relay.Dilation2dOp(
            x, w, strides=(2, 1), dilations=(2, 2), data_layout="NHWC", kernel_layout="HWI"
        ),
        "tensor<2x4x3x3xf32>",
    ),
    # Gather, scatter and scans
    ("gather_nd", [t(4, 5, 6), t(2, 3, elem=i64)], relay.GatherNdOp, "tensor<3x6xf32>"),
    (
        "gather_nd_batch_dims",
        [t(2, 5, 6), t(1, 2, 3, elem=i32)],
        lambda x, i: relay.GatherNdOp(x, i, batch_dims=1),
        "tensor<2x3x6xf32>",
    ),
    (
        "scatter_nd",
        [t(4, 5), t(1, 3, elem=i64), t(3, 5)],
        lambda x, i, u: relay.ScatterNdOp(x, i, u, "add"),
        "tensor<4x5xf32>",
    ),
    (
        "gather",
        [t(3, 4), t(3, 2, elem=i64)],
        lambda x, i: relay.GatherOp(x, i, axis=1),
        "tensor<3x2xf32>",
    ),
    (
        "scatter_elements",
        [t(3, 3), t(2, 3, elem=i64), t(2, 3)],
        lambda x, i, u: relay.ScatterElementsOp(x, i, u, 0, "max"),
        "tensor<3x3xf32>",
    ),
    ("cumsum", [t(2, 5)], lambda x: relay.CumsumOp(x, 1, exclusive=True), "tensor<2x5xf32>"),
    ("cumsum_flat", [t(2, 5)], relay.CumsumOp, "tensor<10xf32>"),
    ("cumprod", [t(2, 5)], lambda x: relay.CumprodOp(x, 1), "tensor<2x5xf32>"),
    ("slice_like", [t(3, 4, 5), t(1, 2)], relay.SliceLikeOp, "tensor<1x2x5xf32>"),
    (
        "slice_like_axes",
        [t(3, 4, 5), t(1, 2, 3)],
        lambda x, y: relay.SliceLikeOp(x, y, axes=[-1, -3]),
        "tensor<1x4x3xf32>",
    ),
    (
        "reverse_sequence",
        [t(4, 3), t(3, elem=i32)],
        lambda x, n: relay.ReverseSequenceOp(x, n, seq_axis=0, batch_axis=1),
        "tensor<4x3xf32>",
    ),
    ("unravel_index", [t(4, elem=i64), t(2, elem=i64)], relay.UnravelIndexOp, "tensor<2x4xi64>"),
    ("reinterpret", [t(2, 3)], lambda x: relay.ReinterpretOp(x, "int32"), "tensor<2x3xi32>"),
    (
        "correlation",
        [t(5, 1, 6, 4), t(5, 1, 6, 4)],
        lambda a, b: relay.CorrelationOp(a, b, 3, 1, 2, 2, [2], False),
        "tensor<5x1x3x2xf32>",
    ),
    (
        "strided_set",
        [t(8, 2), t(3, 2)],
        lambda x, v: relay.StridedSetOp(x, v, [1], [7], [2]),
        "tensor<8x2xf32>",
    ),
    (
        "strided_set_broadcast",
        [t(4, 5), t(1)],
        lambda x, v: relay.StridedSetOp(x, v, [3, 1], [0, 5], [-1, 1]),
        "tensor<4x5xf32>",
    ),
    (
        "space_to_batch_nd",
        [t(2, 2, 4, 1)],
        lambda x: relay.SpaceToBatchNdOp(x, [2, 2], [[0, 0], [2, 0]]),
        "tensor<8x1x3x1xf32>",
    ),
    (
        "batch_to_space_nd",
        [t(8, 1, 3, 1)],
        lambda x: relay.BatchToSpaceNdOp(x, [2, 2], [[0, 0], [2, 0]]),
        "tensor<2x2x4x1xf32>",
    ),
    ("affine_grid", [t(3, 2, 3)], lambda x: relay.AffineGridOp(x, [4, 5]), "tensor<3x2x4x5xf32>"),
    ("grid_sample", [t(1, 3, 4, 4), t(1, 2, 5, 6)], relay.GridSampleOp, "tensor<1x3x5x6xf32>"),
    (
        "grid_sample_3d",
        [t(2, 3, 4, 4, 4), t(2, 3, 2, 5, 6)],
        lambda x, g: relay.GridSampleOp(x, g, "nearest", "NCDHW", "reflection", False),
        "tensor<2x3x2x5x6xf32>",
    ),
    (
        "unique",
        [t(6, elem=i32)],
        relay.UniqueOp,
        "tuple<tensor<6xi32>, tensor<6xi32>, tensor<6xi32>, tensor<1xi32>>",
    ),
    (
        "unique_counts",
        [t(5)],
        lambda x: relay.UniqueOp(x, sorted=False, return_counts=True),
        "tuple<tensor<5xf32>, tensor<5xi32>, tensor<5xi32>, tensor<1xi32>, tensor<5xi32>>",
    ),
    ("unravel_index_scalar", [t(elem=i32), t(3, elem=i32)], relay.UnravelIndexOp, "tensor<3xi32>"),
    (
        "sparse_reshape",
        [t(5, 3, elem=i32), t(3, elem=i32), t(2, elem=i32)],
        relay.SparseReshapeOp,
        "tuple<tensor<5x2xi32>, tensor<2xi32>>",
    ),
    (
        "sparse_reshape_dynamic",
        [t(DYNAMIC_INDEX, DYNAMIC_INDEX, elem=i64), t(DYNAMIC_INDEX, elem=i64), t(3, elem=i64)],
        relay.SparseReshapeOp,
        "tuple<tensor<?x3xi64>, tensor<3xi64>>",
    ),
    (
        "stft",
        [t(2, 9), t(3, elem=i32)],
        lambda x, w: relay.StftOp(x, w, 4, 2, 3, onesided=False),
        "tensor<2x4x3x2xf32>",
    ),
    ("stft_vector", [t(6), t(3)], lambda x, w: relay.StftOp(x, w, 3, 3, 3), "tensor<2x2x2xf32>"),
    (
        "segment_sum",
        [t(6, 5), t(4, elem=i32)],
        lambda x, s: relay.SegmentSumOp(x, s, num_segments=3),
        "tensor<3x5xf32>",
    ),
    ("segment_sum_counted", [t(6, 5), t(6, elem=i64)], relay.SegmentSumOp, "tensor<?x5xf32>"),
    ("trilu", [t(2, 3, 4)], lambda x: relay.TriluOp(x, k=1, upper=False), "tensor<2x3x4xf32>"),
    # Quantized ops: scales f32 and zero points i32, scalars or per-channel vectors
    (
        "qnn.quantize",
        [t(2, 3), t(), t(elem=i32)],
        lambda x, s, z: relay.QuantizeOp(x, s, z, out_dtype="uint8"),
        "tensor<2x3xui8>",
    ),
    (
        "qnn.dequantize",
        [t(2, 3, elem=UI8), t(3), t(3, elem=i32)],
        lambda q, s, z: relay.DequantizeOp(q, s, z, axis=1),
        "tensor<2x3xf32>",
    ),
    (
        "qnn.requantize",
        [t(4, elem=i32), t(), t(elem=i32), t(), t(elem=i32)],
        lambda q, s, z, s2, z2: relay.RequantizeOp(q, s, z, s2, z2, rounding="TONEAREST"),
        "tensor<4xi8>",
    ),
    *[
        (
            name,
            [t(2, 1, elem=UI8), t(3, elem=UI8), *[t(), t(elem=i32)] * 3],
            cls,
            "tensor<2x3xui8>",
        )
        for name, cls in [("qnn.add", relay.QnnAddOp), ("qnn.mul", relay.QnnMulOp)]
    ],
    (
        "qnn.conv2d",
        [
            t(1, 3, 8, 8, elem=UI8),
            t(4, 3, 3, 3, elem=IntegerType(8)),
            t(elem=i32),
            t(4, elem=i32),
            t(),
            t(4),
        ],
        lambda x, w, zx, zw, sx, sw: relay.QnnConv2dOp(x, w, zx, zw, sx, sw, padding=(1, 1, 1, 1)),
        "tensor<1x4x8x8xi32>",
    ),
    (
        "qnn.concatenate",
        [t(2, elem=UI8), t(3, elem=UI8), t(), t(elem=i32)],
        lambda a, b, s, z: relay.QnnConcatenateOp(
            relay.TupleOp(a, b), relay.TupleOp(s, s), relay.TupleOp(z, z), s, z
        ),
        "tensor<5xui8>",
    ),
    (
        "qnn.dense",
        [
            t(2, 5, elem=IntegerType(8)),
            t(3, 5, elem=IntegerType(8)),
            t(elem=i32),
            t(elem=i32),
            t(),
            t(),
        ],
        relay.QnnDenseOp,
        "tensor<2x3xi32>",
    ),
    (
        "vision.multibox_prior",
        [t(1, 3, 4, 5)],
        lambda x: relay.MultiboxPriorOp(x, (0.5, 0.3), (1.0, 2.0, 0.5), clip=True),
        "tensor<1x80x4xf32>",
    ),
    (
        "vision.yolo_reorg",
        [t(2, 8, 6, 4)],
        lambda x: relay.YoloReorgOp(x, 2),
        "tensor<2x32x3x2xf32>",
    ),
    (
        "vision.roi_align_nhwc",
        [t(2, 8, 8, 3), t(5, 5)],
        lambda x, r: relay.RoiAlignOp(x, r, (2, 3), 0.5, 2, "NHWC", "max"),
        "tensor<5x2x3x3xf32>",
    ),
    (
        "vision.roi_pool",
        [t(2, 3, 8, 8), t(4, 5)],
        lambda x, r: relay.RoiPoolOp(x, r, (3, 3), 1.0),
        "tensor<4x3x3x3xf32>",
    ),
    (
        "vision.get_valid_counts",
        [t(2, 7, 6)],
        lambda x: relay.GetValidCountsOp(x, 0.3, -1, 0),
        "tuple<tensor<2xi32>, tensor<2x7x6xf32>, tensor<2x7xi32>>",
    ),
    (
        "vision.non_max_suppression",
        [t(2, 7, 6), t(2, elem=i32), t(2, 7, elem=i32), t(elem=i32), t()],
        lambda *a: relay.NonMaxSuppressionOp(*a, top_k=3),
        "tuple<tensor<2x7xi32>, tensor<2x1xi32>>",
    ),
    (
        "vision.non_max_suppression_boxes",
        [t(1, 7, 5), t(1, elem=i32), t(1, 7, elem=i32), t(elem=i32), t()],
        lambda *a: relay.NonMaxSuppressionOp(
            *a, coord_start=1, score_index=0, id_index=-1, return_indices=False
        ),
        "tensor<1x7x5xf32>",
    ),
    (
        "vision.multibox_transform_loc",
        [t(2, 3, 5), t(2, 20), t(1, 5, 4)],
        lambda c, p, a: relay.MultiboxTransformLocOp(c, p, a, False, 0.2, (0.1, 0.1, 0.3, 0.3)),
        "tuple<tensor<2x5x6xf32>, tensor<2xi32>>",
    ),
    (
        "vision.proposal",
        [t(2, 12, 3, 4), t(2, 24, 3, 4), t(2, 3)],
        lambda c, d, i: relay.ProposalOp(c, d, i, (1.0, 2.0), rpn_post_nms_top_n=7),
        "tensor<14x5xf32>",
    ),
    (
        "vision.all_class_non_max_suppression",
        [t(2, 6, 4), t(2, 3, 6), t(elem=i64), t(), t()],
        relay.AllClassNonMaxSuppressionOp,
        "tuple<tensor<36x3xi64>, tensor<1xi64>>",
    ),
    (
        "vision.all_class_non_max_suppression_tf",
        [t(2, 6, 4), t(2, 3, 6), t(elem=i32), t(), t()],
        lambda *a: relay.AllClassNonMaxSuppressionOp(*a, output_format="tensorflow"),
        "tuple<tensor<2x18x2xi64>, tensor<2x18xf32>, tensor<2xi64>>",
    ),
]


def case_id(case: tuple[str, list[Attribute], Body, str]) -> str:
    return case[0]


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_build_infers_result_type_and_verifies(case: tuple[str, list[Attribute], Body, str]):
    _, arg_types, body, expected = case
    module, op = function(arg_types, body)
    module.verify()
    assert ", ".join(str(r.type) for r in op.results) == expected


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_custom_syntax_round_trips(case: tuple[str, list[Attribute], Body, str]):
    _, arg_types, body, _ = case
    module, op = function(arg_types, body)
    text = print_op(module)
    assert re.search(rf"= {re.escape(op.name)}[ \[]", text)  # custom form, not "relay.x"(...)
    reparsed = parse(text)
    reparsed.verify()
    assert print_op(reparsed) == text


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_generic_form_reads_back_to_the_same_ir(case: tuple[str, list[Attribute], Body, str]):
    _, arg_types, body, _ = case
    module, _ = function(arg_types, body)
    generic = print_op(module, generic=True)
    assert "<{" in generic or '"relay.' in generic
    assert print_op(parse(generic)) == print_op(module)


def split_top_level(text: str) -> list[str]:
    """Split at commas outside <...> and (...)."""
    parts, depth, current = [], 0, ""
    for ch in text:
        depth += 1 if ch in "<(" else -1 if ch in ">)" else 0
        if ch == "," and depth == 0:
            parts.append(current.strip())
            current = ""
        else:
            current += ch
    return [*parts, current.strip()] if current.strip() else parts


@pytest.mark.parametrize("op_type", list(Relay.operations), ids=lambda op: op.name)
def test_documented_syntax_parses_and_verifies(op_type: type[Operation]):
    match = re.search(r"`(%\w+ = .*?)`", op_type.__doc__ or "", re.S)
    assert match, f"{op_type.__name__} documents no syntax line"
    line = " ".join(match.group(1).split())
    assert line.split(" = ", 1)[1].startswith(op_type.name)
    uses, _, types = line.split(" = ", 1)[1].rpartition(" : (")
    operand_types = split_top_level(types.rsplit(") -> ", 1)[0]) if uses else []
    operands = list(dict.fromkeys(re.findall(r"%\w+", uses)))
    assert len(operands) == len(operand_types)
    args = ", ".join(f"{o}: {t}" for o, t in zip(operands, operand_types, strict=True))
    module = parse(f"func.func @doc({args}) {{\n  {line}\n  func.return\n}}")
    module.verify()
    assert any(type(op) is op_type for op in module.walk())


def test_every_op_has_a_case():
    built = set()
    for _, arg_types, body, _ in CASES:
        module, _ = function(arg_types, body)
        built |= {type(op) for op in module.walk()}
    missing = {op.name for op in Relay.operations} - {op.name for op in built}
    assert not missing


def test_every_op_is_a_row_of_the_table_under_its_class_name():
    structural = [relay.ConstOp, relay.ParamOp, relay.TupleOp, relay.TupleGetItemOp]
    assert list(Relay.operations) == [*structural, *relay.OPS]
    for op_type in relay.OPS:
        assert getattr(relay, op_type.__name__) is op_type
        assert op_type.__module__ == relay.__name__
        definition = op_type.get_irdl_definition()
        assert [name for name, _ in definition.operands] == list(op_type.OPERANDS)
        assert list(definition.properties) == [a.name for a in op_type.ATTRS]


def test_builder_signature_is_operands_then_attributes():
    assert str(inspect.signature(relay.AvgPool2dOp)) == (
        "(data: 'Operand', pool_size: 'Sequence[int]', strides: 'Sequence[int]' = (1, 1), "
        "padding: 'Sequence[int]' = (0, 0, 0, 0), dilation: 'Sequence[int]' = (1, 1), "
        "layout: 'str' = 'NCHW', ceil_mode: 'bool' = False, count_include_pad: 'bool' = False) "
        "-> 'None'"
    )
    _, op = function([t(1, 3, 7, 7)], lambda x: relay.AvgPool2dOp(x, (3, 3), (2, 2)))
    assert op.attr_values() == {
        "pool_size": (3, 3),
        "strides": (2, 2),
        "padding": (0, 0, 0, 0),
        "dilation": (1, 1),
        "layout": "NCHW",
        "ceil_mode": False,
        "count_include_pad": False,
    }
    with pytest.raises(TypeError, match="pool_size"):
        relay.MaxPool2dOp(op.results[0])


def test_printed_form_matches_the_documented_syntax():
    module, _ = function(
        [t(1, 3, 8, 8), t(4, 3, 3, 3)],
        lambda x, w: relay.Conv2dOp(x, w, strides=(2, 1), padding=(1, 1, 1, 1)),
    )
    text = print_op(module)
    assert (
        "%2 = relay.nn.conv2d %0, %1 {strides = array<i64: 2, 1>, "
        "padding = array<i64: 1, 1, 1, 1>} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) "
        "-> tensor<1x4x4x8xf32>"
    ) in text


def test_default_properties_are_not_printed():
    module, op = function([t(1, 3, 8, 8), t(4, 3, 3, 3)], relay.Conv2dOp)
    text = print_op(module)
    assert "relay.nn.conv2d %0, %1 : (" in text
    assert relay.array_values(op.strides) == (1, 1)
    assert op.data_layout.data == "NCHW"


def test_special_forms_of_const_param_and_tuple_get_item():
    module, _ = function(
        [t(2), t(3)],
        lambda a, b: relay.TupleGetItemOp(relay.TupleOp(a, relay.ParamOp("w", t(3))), 1),
    )
    text = print_op(module)
    assert 'relay.param["w"] : tensor<3xf32>' in text
    assert "relay.tuple_get_item %3[1] : (tuple<tensor<2xf32>, tensor<3xf32>>)" in text
    module, _ = function([], lambda: relay.ConstOp(np.array([1, -2], dtype=np.int32)))
    assert "relay.const dense<[1, -2]> : tensor<2xi32>" in print_op(module)


def test_parsed_text_builds_the_ops_with_their_properties():
    text = """
    func.func @main(%x: tensor<1x3x7x7xf32>) -> tensor<1x3x4x4xf32> {
      %y = relay.nn.max_pool2d %x {pool_size = array<i64: 3, 3>, strides = array<i64: 2, 2>,
          padding = array<i64: 1, 1, 1, 1>} : (tensor<1x3x7x7xf32>) -> tensor<1x3x4x4xf32>
      func.return %y : tensor<1x3x4x4xf32>
    }
    """
    module = parse(text)
    module.verify()
    pool = next(op for op in module.walk() if isinstance(op, relay.MaxPool2dOp))
    assert relay.array_values(pool.padding) == (1, 1, 1, 1)
    assert pool.ceil_mode.value.data == 0


@pytest.mark.parametrize(
    ("values", "elem"),
    [
        (np.array([[1.5, -2.25, 3.0]], dtype=np.float32), "tensor<1x3xf32>"),
        (np.array([0.1, 1 / 3], dtype=np.float64), "tensor<2xf64>"),
        (np.array([1.5, -0.5], dtype=np.float16), "tensor<2xf16>"),
        (np.array([-128, 5, 127], dtype=np.int8), "tensor<3xi8>"),
        (np.array([0, 255], dtype=np.uint8), "tensor<2xui8>"),
        (np.array([2**40, -3], dtype=np.int64), "tensor<2xi64>"),
        (np.array([[True], [False]]), "tensor<2x1xi1>"),
        (np.array(7.5, dtype=np.float32), "tensor<f32>"),
    ],
)
def test_const_values_survive_print_and_parse(values: np.ndarray, elem: str):
    module, op = function([], lambda: relay.ConstOp(values))
    assert str(op.result.type) == elem
    reparsed = parse(print_op(module))
    const = next(o for o in reparsed.walk() if isinstance(o, relay.ConstOp))
    back = relay.numpy_from_dense(const.value)
    assert back.dtype == values.dtype
    np.testing.assert_array_equal(back, values)


def test_patterns_follow_tvm():
    assert [p.value for p in OpPattern] == [0, 1, 2, 3, 4, 7, 8]
    expected = {
        relay.AddOp: OpPattern.BROADCAST,
        relay.EqualOp: OpPattern.BROADCAST,
        relay.WhereOp: OpPattern.BROADCAST,
        relay.ExpOp: OpPattern.ELEMWISE,
        relay.ReluOp: OpPattern.ELEMWISE,
        relay.CastOp: OpPattern.ELEMWISE,
        relay.BiasAddOp: OpPattern.BROADCAST,
        relay.Conv2dOp: OpPattern.OUT_ELEMWISE_FUSABLE,
        relay.DenseOp: OpPattern.OUT_ELEMWISE_FUSABLE,
        relay.MaxPool2dOp: OpPattern.OUT_ELEMWISE_FUSABLE,
        relay.SoftmaxOp: OpPattern.OUT_ELEMWISE_FUSABLE,
        relay.SumOp: OpPattern.COMM_REDUCE,
        relay.ArgmaxOp: OpPattern.COMM_REDUCE,
        relay.ReshapeOp: OpPattern.INJECTIVE,
        relay.ConcatenateOp: OpPattern.INJECTIVE,
        relay.BroadcastToOp: OpPattern.BROADCAST,
        relay.TupleOp: OpPattern.TUPLE,
        relay.BatchNormOp: OpPattern.OPAQUE,
        relay.DropoutOp: OpPattern.OPAQUE,
    }
    for op_type, pattern in expected.items():
        assert op_type.PATTERN is pattern, op_type.name
    for op_type in Relay.operations:
        assert isinstance(op_type.PATTERN, OpPattern)  # type: ignore[attr-defined]


def test_inference_is_callable_without_an_op():
    types = relay.Conv2dOp.infer_result_types(
        [t(1, 3, 8, 8), t(4, 3, 3, 3)], {"strides": relay.int_array([2, 2])}
    )
    assert types == [t(1, 4, 3, 3)]
    assert relay.SplitOp.infer_result_types([t(4)], {"indices_or_sections": relay.int_attr(2)})
    with pytest.raises(
        VerifyException, match=re.escape("'relay.reshape' op property 'newshape' is missing")
    ):
        relay.ReshapeOp.infer_result_types([t(4)], {})


@pytest.mark.parametrize(
    ("text", "primal", "factors"),
    [("NCHW", "NCHW", {}), ("NCHW8c", "NCHW", {"C": 8}), ("OIHW16i4o", "OIHW", {"I": 16, "O": 4})],
)
def test_layout_parsing(text: str, primal: str, factors: dict[str, int]):
    layout = relay.Layout.parse(text)
    assert layout.primal == primal
    assert dict(layout.factors) == factors


@pytest.mark.parametrize("text", ["NCHW8", "NCHc", "NCHWC", "NCH8W", "NC0c"])
def test_invalid_layouts(text: str):
    with pytest.raises(ValueError, match="invalid layout"):
        relay.Layout.parse(text)


# Invalid ops: operand types, the builder call, the exact message.
INVALID: list[tuple[str, list[Attribute], Body, str]] = [
    (
        "add_broadcast",
        [t(2, 3), t(4)],
        relay.AddOp,
        "'relay.add' op operand shapes do not broadcast: 2x3 vs 4",
    ),
    (
        "add_element_types",
        [t(3), t(3, elem=i32)],
        relay.AddOp,
        "'relay.add' op operand element types differ: f32 vs i32",
    ),
    (
        "less_broadcast",
        [t(5, 2), t(3, 1, 3)],
        relay.LessOp,
        "'relay.less' op operand shapes do not broadcast: 5x2 vs 3x1x3",
    ),
    (
        "where_condition",
        [t(3), t(3), t(3)],
        relay.WhereOp,
        "'relay.where' op condition must have element type i1, got f32",
    ),
    (
        "where_broadcast",
        [t(3, elem=i1), t(2, 1), t(4)],
        relay.WhereOp,
        "'relay.where' op operand shapes do not broadcast: 3 vs 2x1 vs 4",
    ),
    (
        "exp_integer",
        [t(3, elem=i32)],
        relay.ExpOp,
        "'relay.exp' op operand element type must be a float type, got i32",
    ),
    (
        "isnan_integer",
        [t(3, elem=i32)],
        relay.IsnanOp,
        "'relay.isnan' op operand element type must be a float type, got i32",
    ),
    (
        "logical_not_float",
        [t(3)],
        relay.LogicalNotOp,
        "'relay.logical_not' op operand element type must be i1, got f32",
    ),
    (
        "left_shift_float",
        [t(3), t(3)],
        relay.LeftShiftOp,
        "'relay.left_shift' op operand element type must be an integer type, got f32",
    ),
    (
        "right_shift_bool",
        [t(3, elem=i1), t(3, elem=i1)],
        relay.RightShiftOp,
        "'relay.right_shift' op operand element type must be an integer type, got i1",
    ),
    (
        "logical_and_integer",
        [t(3, elem=i32), t(3, elem=i32)],
        relay.LogicalAndOp,
        "'relay.logical_and' op operand element type must be i1, got i32",
    ),
    (
        "floor_mod_element_types",
        [t(3, elem=i32), t(3, elem=i64)],
        relay.FloorModOp,
        "'relay.floor_mod' op operand element types differ: i32 vs i64",
    ),
    (
        "not_equal_broadcast",
        [t(2, 3), t(2)],
        relay.NotEqualOp,
        "'relay.not_equal' op operand shapes do not broadcast: 2x3 vs 2",
    ),
    (
        "sin_integer",
        [t(3, elem=i32)],
        relay.SinOp,
        "'relay.sin' op operand element type must be a float type, got i32",
    ),
    (
        "round_integer",
        [t(3, elem=i64)],
        relay.RoundOp,
        "'relay.round' op operand element type must be a float type, got i64",
    ),
    (
        "shape_of_bool_dtype",
        [t(3)],
        lambda x: relay.ShapeOfOp(x, i1),
        "'relay.shape_of' op dtype must be an integer or float type, got i1",
    ),
    (
        "ndarray_size_bool_dtype",
        [t(3)],
        lambda x: relay.NdarraySizeOp(x, i1),
        "'relay.ndarray_size' op dtype must be an integer or float type, got i1",
    ),
    (
        "clip_bounds",
        [t(3)],
        lambda x: relay.ClipOp(x, 2.0, 1.0),
        "'relay.clip' op a_min 2.0 is greater than a_max 1.0",
    ),
    (
        "cast_index",
        [t(3)],
        lambda x: relay.CastOp(x, IndexType()),
        "'relay.cast' op dtype must be an integer or float type, got index",
    ),
    (
        "softmax_axis",
        [t(3, 5)],
        lambda x: relay.SoftmaxOp(x, axis=2),
        "'relay.nn.softmax' op axis 2 is out of range for rank 2",
    ),
    (
        "dropout_rate",
        [t(3)],
        lambda x: relay.DropoutOp(x, 1.0),
        "'relay.nn.dropout' op rate must be in [0, 1), got 1.0",
    ),
    (
        "gelu_approximate",
        [t(3)],
        lambda x: relay.GeluOp(x, "fast"),
        '\'relay.nn.gelu\' op approximate must be one of "none", "tanh", got "fast"',
    ),
    (
        "lrn_size",
        [t(1, 3, 2, 2)],
        lambda x: relay.LrnOp(x, size=0),
        "'relay.nn.lrn' op size must be positive, got 0",
    ),
    (
        "conv2d_channels",
        [t(1, 3, 8, 8), t(4, 2, 3, 3)],
        relay.Conv2dOp,
        "'relay.nn.conv2d' op data has 3 channels but weight expects 2 (2 per group x 1 groups)",
    ),
    (
        "conv2d_strides",
        [t(1, 3, 8, 8), t(4, 3, 3, 3)],
        lambda x, w: relay.Conv2dOp(x, w, strides=(1, 0)),
        "'relay.nn.conv2d' op strides must be 2 positive integers, got [1, 0]",
    ),
    (
        "conv2d_padding",
        [t(1, 3, 8, 8), t(4, 3, 3, 3)],
        lambda x, w: relay.Conv2dOp(x, w, padding=(1, 1)),
        "'relay.nn.conv2d' op padding must be 4 non-negative integers (top, left, bottom, "
        "right), got [1, 1]",
    ),
    (
        "conv2d_layout",
        [t(1, 3, 8, 8), t(4, 3, 3, 3)],
        lambda x, w: relay.Conv2dOp(x, w, data_layout="NCWH"),
        '\'relay.nn.conv2d\' op data_layout must be one of "NCHW", "NHWC", got "NCWH"',
    ),
    (
        "conv2d_kernel_too_large",
        [t(1, 1, 5, 5), t(1, 1, 3, 3)],
        lambda x, w: relay.Conv2dOp(x, w, dilation=(3, 1)),
        "'relay.nn.conv2d' op dilated kernel 7x3 is larger than padded input 5x5",
    ),
    (
        "conv2d_groups",
        [t(1, 4, 5, 5), t(3, 2, 3, 3)],
        lambda x, w: relay.Conv2dOp(x, w, groups=2),
        "'relay.nn.conv2d' op groups 2 must be positive and divide output channels 3",
    ),
    (
        "conv2d_rank",
        [t(3, 8, 8), t(4, 3, 3, 3)],
        relay.Conv2dOp,
        "'relay.nn.conv2d' op data and weight must be 4-d, got 3x8x8 and 4x3x3x3",
    ),
    (
        "conv2d_element_types",
        [t(1, 3, 8, 8), t(4, 3, 3, 3, elem=f16)],
        relay.Conv2dOp,
        "'relay.nn.conv2d' op weight element type differs from data's: f16 vs f32",
    ),
    (
        "conv2d_transpose_output_padding",
        [t(1, 4, 3, 3), t(4, 2, 3, 3)],
        lambda x, w: relay.Conv2dTransposeOp(x, w, strides=(2, 2), output_padding=(-1, 0)),
        "'relay.nn.conv2d_transpose' op output_padding must be 2 non-negative integers, got "
        "[-1, 0]",
    ),
    (
        "conv3d_channels",
        [t(1, 4, 3, 3, 3), t(2, 3, 1, 1, 1)],
        relay.Conv3dOp,
        "'relay.nn.conv3d' op data has 4 channels but weight expects 3 (3 per group x 1 groups)",
    ),
    (
        "conv3d_padding",
        [t(1, 3, 3, 3, 3), t(2, 3, 1, 1, 1)],
        lambda x, w: relay.Conv3dOp(x, w, padding=(1, 1, 1, 1)),
        "'relay.nn.conv3d' op padding must be 6 non-negative integers (before, then after each "
        "spatial axis), got [1, 1, 1, 1]",
    ),
    (
        "conv3d_mixed_elements_need_out_dtype",
        [t(1, 3, 3, 3, 3, elem=IntegerType(8)), t(2, 3, 1, 1, 1)],
        relay.Conv3dOp,
        "'relay.nn.conv3d' op weight element type differs from data's: f32 vs i8",
    ),
    (
        "conv1d_transpose_layout",
        [t(1, 4, 3), t(4, 2, 3)],
        lambda x, w: relay.Conv1dTransposeOp(x, w, data_layout="NCHW"),
        ''''relay.nn.conv1d_transpose' op layout must be "NCW" or "NWC", got "NCHW"''',
    ),
    (
        "conv3d_transpose_kernel_layout",
        [t(1, 4, 3, 3, 3), t(4, 2, 3, 3, 3)],
        lambda x, w: relay.Conv3dTransposeOp(x, w, kernel_layout="IOHW"),
        ''''relay.nn.conv3d_transpose' op kernel_layout must order O, I, D, H, W, got "IOHW"''',
    ),
    (
        "max_pool3d_window",
        [t(1, 3, 2, 5, 5)],
        lambda x: relay.MaxPool3dOp(x, (3, 2, 2)),
        "'relay.nn.max_pool3d' op dilated window 3x2x2 is larger than padded input 2x5x5",
    ),
    (
        "adaptive_avg_pool2d_size",
        [t(1, 3, 5, 5)],
        lambda x: relay.AdaptiveAvgPool2dOp(x, (3,)),
        "'relay.nn.adaptive_avg_pool2d' op output_size must be 2 positive integers, got [3]",
    ),
    (
        "bitpack_word",
        [t(2, 12, elem=i32)],
        lambda x: relay.BitpackOp(x, pack_type="uint8"),
        "'relay.nn.bitpack' op axis 1 of size 12 does not pack into uint8 words of 8 elements",
    ),
    (
        "conv2d_transpose_channels",
        [t(1, 4, 3, 3), t(3, 2, 3, 3)],
        relay.Conv2dTransposeOp,
        "'relay.nn.conv2d_transpose' op data has 4 channels but weight expects 3",
    ),
    (
        "dense_features",
        [t(2, 7), t(3, 5)],
        relay.DenseOp,
        "'relay.nn.dense' op data has 7 input features but weight 3x5 expects 5",
    ),
    (
        "matmul_reduction",
        [t(2, 7), t(5, 3)],
        relay.MatmulOp,
        "'relay.nn.matmul' op reduction sizes differ: 7 vs 5 (shapes 2x7 and 5x3)",
    ),
    (
        "matmul_transpose_a_rank",
        [t(5), t(5, 7)],
        lambda a, b: relay.MatmulOp(a, b, transpose_a=True),
        "'relay.nn.matmul' op b must be 2-d and a at least 2-d, got 5 and 5x7",
    ),
    (
        "argmin_no_axes",
        [t(3, 5)],
        lambda x: relay.ArgminOp(x, axis=[]),
        "'relay.argmin' op takes one axis or more (or none for all), got []",
    ),
    (
        "batch_matmul_batch",
        [t(2, 3, 5), t(3, 4, 5)],
        relay.BatchMatmulOp,
        "'relay.nn.batch_matmul' op batch sizes do not broadcast: 2 vs 3",
    ),
    (
        "bias_add_size",
        [t(1, 4, 5, 5), t(3)],
        relay.BiasAddOp,
        "'relay.nn.bias_add' op bias must have shape 4 (axis 1 of data 1x4x5x5), got 3",
    ),
    (
        "prelu_axis",
        [t(2, 3), t(3)],
        lambda x, a: relay.PreluOp(x, a, axis=-3),
        "'relay.nn.prelu' op axis -3 is out of range for rank 2",
    ),
    (
        "batch_norm_gamma",
        [t(2, 3, 5), t(5), t(3), t(3), t(3)],
        relay.BatchNormOp,
        "'relay.nn.batch_norm' op gamma must have shape 3 (axis 1 of data 2x3x5), got 5",
    ),
    (
        "layer_norm_axis",
        [t(2, 5), t(5), t(5)],
        lambda x, g, b: relay.LayerNormOp(x, g, b, axis=2),
        "'relay.nn.layer_norm' op axis 2 is out of range for rank 2",
    ),
    (
        "max_pool2d_pool_size",
        [t(1, 3, 8, 8)],
        lambda x: relay.MaxPool2dOp(x, (2, 2, 2)),
        "'relay.nn.max_pool2d' op pool_size must be 2 positive integers, got [2, 2, 2]",
    ),
    (
        "avg_pool2d_layout",
        [t(1, 3, 8, 8)],
        lambda x: relay.AvgPool2dOp(x, (2, 2), layout="NCDHW"),
        '\'relay.nn.avg_pool2d\' op layout must be "NCHW" or "NHWC", got "NCDHW"',
    ),
    (
        "max_pool2d_window",
        [t(1, 3, 2, 8)],
        lambda x: relay.MaxPool2dOp(x, (3, 3)),
        "'relay.nn.max_pool2d' op dilated window 3x3 is larger than padded input 2x8",
    ),
    (
        "global_pool_rank",
        [t(3, 8, 8)],
        relay.GlobalAvgPool2dOp,
        "'relay.nn.global_avg_pool2d' op data must be 4-d, got 3x8x8",
    ),
    (
        "pad_width",
        [t(3, 5)],
        lambda x: relay.PadOp(x, [1, 1]),
        "'relay.nn.pad' op pad_width must be 4 non-negative integers (before, after per axis "
        "of 3x5), got [1, 1]",
    ),
    (
        "pad_reflect_too_wide",
        [t(3, 5)],
        lambda x: relay.PadOp(x, [(3, 0), (0, 0)], pad_mode="reflect"),
        "'relay.nn.pad' op reflect padding of 3 is too wide for axis 0 of size 3",
    ),
    (
        "resize2d_method",
        [t(1, 2, 3, 3)],
        lambda x: relay.Resize2dOp(x, (4, 4), method="bicubic"),
        '\'relay.image.resize2d\' op method must be one of "nearest_neighbor", "linear", '
        '"cubic", got "bicubic"',
    ),
    (
        "resize2d_linear_booleans",
        [t(1, 2, 3, 3, elem=i1)],
        lambda x: relay.Resize2dOp(x, (4, 4)),
        "'relay.image.resize2d' op linear resize needs a number type, got i1",
    ),
    (
        "resize2d_size",
        [t(1, 2, 3, 3)],
        lambda x: relay.Resize2dOp(x, (4, 0)),
        "'relay.image.resize2d' op size must be 2 positive integers or ?, got [4, 0]",
    ),
    (
        "concatenate_static_sizes_differ_beside_a_symbolic_one",
        [t(Q, 3), t(Q, 2), t(1, Q)],
        lambda a, b, c: relay.ConcatenateOp([a, b, c], axis=0),
        "'relay.concatenate' op operand shapes differ outside axis 0: ?x3 vs ?x2",
    ),
    (
        "upsampling_method",
        [t(1, 2, 3, 3)],
        lambda x: relay.UpsamplingOp(x, 2.0, 2.0, method="bicubic"),
        '\'relay.nn.upsampling\' op method must be one of "nearest_neighbor", "bilinear", '
        'got "bicubic"',
    ),
    (
        "sum_repeated_axis",
        [t(3, 5)],
        lambda x: relay.SumOp(x, axis=[1, -1]),
        "'relay.sum' op axis -1 is repeated in [1, -1]",
    ),
    (
        "mean_axis_range",
        [t(3, 5)],
        lambda x: relay.MeanOp(x, axis=[2]),
        "'relay.mean' op axis 2 is out of range for rank 2",
    ),
    (
        "reshape_count",
        [t(2, 3)],
        lambda x: relay.ReshapeOp(x, (4, 2)),
        "'relay.reshape' op cannot reshape 2x3 (6 elements) to 4x2 (8 elements)",
    ),
    (
        "reshape_infer",
        [t(2, 3)],
        lambda x: relay.ReshapeOp(x, (4, -1)),
        "'relay.reshape' op cannot reshape 2x3 (6 elements) to [4, -1]",
    ),
    (
        "reshape_two_unknowns",
        [t(2, 3)],
        lambda x: relay.ReshapeOp(x, (-1, -1)),
        "'relay.reshape' op newshape [-1, -1] has more than one -1",
    ),
    (
        "reshape_special",
        [t(2, 3)],
        lambda x: relay.ReshapeOp(x, (-2,)),
        "'relay.reshape' op newshape entry -2 is not supported (only sizes, 0 and -1)",
    ),
    (
        "transpose_permutation",
        [t(2, 3, 5)],
        lambda x: relay.TransposeOp(x, (0, 0, 1)),
        "'relay.transpose' op axis 0 is repeated in [0, 0, 1]",
    ),
    (
        "transpose_length",
        [t(2, 3, 5)],
        lambda x: relay.TransposeOp(x, (1, 0)),
        "'relay.transpose' op axes [1, 0] must have one entry per axis of rank 3",
    ),
    (
        "concatenate_shapes",
        [t(2, 3), t(3, 1)],
        lambda a, b: relay.ConcatenateOp([a, b], axis=1),
        "'relay.concatenate' op operand shapes differ outside axis 1: 2x3 vs 3x1",
    ),
    (
        "concatenate_element_types",
        [t(2, 3), t(2, 3, elem=f64)],
        lambda a, b: relay.ConcatenateOp([a, b]),
        "'relay.concatenate' op operand 1 element type differs from operand 0's: f64 vs f32",
    ),
    (
        "split_sections",
        [t(2, 6)],
        lambda x: relay.SplitOp(x, 4, axis=1),
        "'relay.split' op 4 sections do not divide axis of size 6",
    ),
    (
        "split_indices",
        [t(2, 6)],
        lambda x: relay.SplitOp(x, [3, 1], axis=1),
        "'relay.split' op indices [3, 1] must be ascending within [0, 6]",
    ),
    (
        "squeeze_size",
        [t(1, 3)],
        lambda x: relay.SqueezeOp(x, [1]),
        "'relay.squeeze' op cannot squeeze axis 1 of size 3",
    ),
    (
        "expand_dims_axis",
        [t(3, 5)],
        lambda x: relay.ExpandDimsOp(x, 3),
        "'relay.expand_dims' op axis 3 is out of range for rank 2 (inserting)",
    ),
    (
        "strided_slice_zero_stride",
        [t(3, 5)],
        lambda x: relay.StridedSliceOp(x, [0], [2], strides=[0]),
        "'relay.strided_slice' op strides must not be 0, got [0]",
    ),
    (
        "strided_slice_lengths",
        [t(3, 5)],
        lambda x: relay.StridedSliceOp(x, [0, 1], [2], axes=[0, 1]),
        "'relay.strided_slice' op axes, begin, end and strides differ in length: 2, 2, 1, 2",
    ),
    (
        "strided_slice_past_the_rank",
        [t(3, 5)],
        lambda x: relay.StridedSliceOp(x, [0, 1, 0], [2]),
        "'relay.strided_slice' op 3 slice bounds for rank 2",
    ),
    (
        "gather_nd_too_many_components",
        [t(4, 5), t(3, 2, elem=i64)],
        relay.GatherNdOp,
        "'relay.gather_nd' op 3 index components and 0 batch dims do not fit data of rank 2",
    ),
    (
        "gather_nd_batch_mismatch",
        [t(2, 5), t(1, 3, elem=i64)],
        lambda x, i: relay.GatherNdOp(x, i, batch_dims=1),
        "'relay.gather_nd' op batch dims of indices 3 differ from data's 2",
    ),
    (
        "scatter_nd_updates_shape",
        [t(4, 5), t(1, 3, elem=i64), t(3, 4)],
        relay.ScatterNdOp,
        "'relay.scatter_nd' op updates shape 3x4 must be 3x5 (index dims, then data's "
        "trailing dims)",
    ),
    (
        "scatter_nd_mode",
        [t(4), t(1, 3, elem=i64), t(3)],
        lambda x, i, u: relay.ScatterNdOp(x, i, u, "mean"),
        '\'relay.scatter_nd\' op mode must be one of "update", "add", "mul", "min", "max", '
        'got "mean"',
    ),
    (
        "gather_rank",
        [t(3, 4), t(3, elem=i64)],
        relay.GatherOp,
        "'relay.gather' op indices rank 1 differs from data rank 2",
    ),
    (
        "gather_float_indices",
        [t(3, 4), t(3, 4)],
        relay.GatherOp,
        "'relay.gather' op indices must have an integer element type, got f32",
    ),
    (
        "scatter_elements_updates_shape",
        [t(3, 3), t(2, 3, elem=i64), t(3, 3)],
        relay.ScatterElementsOp,
        "'relay.scatter_elements' op updates shape 3x3 differs from indices shape 2x3",
    ),
    (
        "scatter_elements_indices_exceed",
        [t(3, 3), t(2, 4, elem=i64), t(2, 4)],
        relay.ScatterElementsOp,
        "'relay.scatter_elements' op indices shape 2x4 exceeds data shape 3x3 off axis 0",
    ),
    (
        "slice_like_longer",
        [t(3, 4), t(3, 5)],
        relay.SliceLikeOp,
        "'relay.slice_like' op shape_like's axis 1 (5) is longer than data's (4)",
    ),
    (
        "correlation_even_kernel",
        [t(1, 3, 8, 8), t(1, 3, 8, 8)],
        lambda a, b: relay.CorrelationOp(a, b, 2, 1, 1, 1, [1]),
        "'relay.nn.correlation' op needs an odd kernel_size, max_displacement >= 0 and "
        "positive strides, got 2, 1, 1, 1",
    ),
    (
        "reinterpret_width",
        [t(3)],
        lambda x: relay.ReinterpretOp(x, "int64"),
        "'relay.reinterpret' op cannot reinterpret f32 as i64: they differ in width",
    ),
    (
        "strided_set_value_shape",
        [t(8, 2), t(4, 2)],
        lambda x, v: relay.StridedSetOp(x, v, [1], [7], [2]),
        "'relay.strided_set' op v of shape 4x2 does not broadcast to the slice 3x2",
    ),
    (
        "space_to_batch_nd_not_multiple",
        [t(2, 3, 4, 1)],
        lambda x: relay.SpaceToBatchNdOp(x, [2, 2], [[0, 0], [2, 0]]),
        "'relay.nn.space_to_batch_nd' op axis 1 padded to 3 is not a multiple of 2",
    ),
    (
        "batch_to_space_nd_batch",
        [t(6, 1, 3, 1)],
        lambda x: relay.BatchToSpaceNdOp(x, [2, 2], [[0, 0], [0, 0]]),
        "'relay.nn.batch_to_space_nd' op batch 6 is not a multiple of the block count 4",
    ),
    (
        "affine_grid_size",
        [t(3, 2, 3)],
        lambda x: relay.AffineGridOp(x, [1, 5]),
        "'relay.image.affine_grid' op target_shape must be 2 sizes above 1, got [1, 5]",
    ),
    (
        "grid_sample_bicubic_3d",
        [t(2, 3, 4, 4, 4), t(2, 3, 2, 5, 6)],
        lambda x, g: relay.GridSampleOp(x, g, "bicubic", "NCDHW"),
        "'relay.image.grid_sample' op bicubic sampling is 2-d only (NCHW)",
    ),
    (
        "unique_matrix",
        [t(2, 3, elem=i32)],
        relay.UniqueOp,
        "'relay.unique' op data must be a vector, got tensor<2x3xi32>",
    ),
    (
        "reverse_sequence_same_axes",
        [t(4, 3), t(3, elem=i32)],
        lambda x, n: relay.ReverseSequenceOp(x, n, seq_axis=-1, batch_axis=1),
        "'relay.reverse_sequence' op seq_axis and batch_axis must differ, both are 1",
    ),
    (
        "unravel_index_matrix",
        [t(2, 2, elem=i32), t(3, elem=i32)],
        relay.UnravelIndexOp,
        "'relay.unravel_index' op indices must be a scalar or vector and shape a vector, got 2x2 "
        "and 3",
    ),
    (
        "sparse_reshape_rank",
        [t(5, elem=i32), t(3, elem=i32), t(2, elem=i32)],
        relay.SparseReshapeOp,
        "'relay.sparse_reshape' op sparse_indices must have rank 2, got 5",
    ),
    (
        "sparse_reshape_columns",
        [t(5, 2, elem=i32), t(3, elem=i32), t(2, elem=i32)],
        relay.SparseReshapeOp,
        "'relay.sparse_reshape' op sparse_indices has 2 columns but prev_shape has 3 dims",
    ),
    (
        "sparse_reshape_float_shape",
        [t(5, 3, elem=i32), t(3), t(2, elem=i32)],
        relay.SparseReshapeOp,
        "'relay.sparse_reshape' op prev_shape must have an integer element type, got f32",
    ),
    (
        "stft_win_length",
        [t(2, 9), t(5)],
        lambda x, w: relay.StftOp(x, w, 4, 2, 5),
        "'relay.stft' op n_fft 4 and hop_length 2 must be positive and win_length 5 in [1, n_fft]",
    ),
    (
        "stft_short_window",
        [t(2, 9), t(2)],
        lambda x, w: relay.StftOp(x, w, 4, 2, 3),
        "'relay.stft' op window must be a vector of win_length 3 or more, got tensor<2xf32>",
    ),
    (
        "stft_short_data",
        [t(2, 3), t(4)],
        lambda x, w: relay.StftOp(x, w, 4, 2, 4),
        "'relay.stft' op data length 3 is shorter than n_fft 4",
    ),
    (
        "segment_sum_ids_too_long",
        [t(3, 5), t(4, elem=i32)],
        relay.SegmentSumOp,
        "'relay.segment_sum' op segment_ids must be a vector no longer than data's axis 0, "
        "got 4 for data 3x5",
    ),
    (
        "segment_sum_count",
        [t(3, 5), t(3, elem=i32)],
        lambda x, s: relay.SegmentSumOp(x, s, num_segments=0),
        "'relay.segment_sum' op num_segments must be positive, got 0",
    ),
    (
        "nn.depth_to_space_channels",
        [t(1, 6, 3, 3)],
        lambda x: relay.DepthToSpaceOp(x, 2),
        "'relay.nn.depth_to_space' op channels 6 are not a multiple of 2x2",
    ),
    (
        "nn.space_to_depth_size",
        [t(1, 2, 5, 4)],
        lambda x: relay.SpaceToDepthOp(x, 2),
        "'relay.nn.space_to_depth' op height and width 5x4 are not multiples of 2",
    ),
    (
        "image.crop_and_resize_boxes",
        [t(2, 3, 8, 8), t(5, 3), t(5, elem=i32)],
        lambda x, b, i: relay.CropAndResizeOp(x, b, i, (3, 4)),
        "'relay.image.crop_and_resize' op boxes must be (boxes, 4): y1, x1, y2, x2, got "
        "tensor<5x3xf32>",
    ),
    (
        "image.crop_and_resize_indices",
        [t(2, 3, 8, 8), t(5, 4), t(4, elem=i32)],
        lambda x, b, i: relay.CropAndResizeOp(x, b, i, (3, 4)),
        "'relay.image.crop_and_resize' op box_indices must be a vector of one image index per "
        "box, got tensor<4xi32>",
    ),
    (
        "nn.deformable_conv2d_offset",
        [t(1, 4, 8, 8), t(1, 18, 8, 8), t(4, 4, 3, 3)],
        relay.DeformableConv2dOp,
        "'relay.nn.deformable_conv2d' op offset must have shape 1x18x6x6 (2 x kernel "
        "positions x deformable groups per output pixel), got 1x18x8x8",
    ),
    (
        "nn.deformable_conv2d_kernel_layout",
        [t(1, 4, 8, 8), t(1, 18, 6, 6), t(3, 3, 4, 4)],
        lambda x, o, w: relay.DeformableConv2dOp(x, o, w, kernel_layout="HWIO"),
        "'relay.nn.deformable_conv2d' op kernel_layout must be \"OIHW\" with data_layout "
        '"NCHW", got "HWIO"',
    ),
    (
        "nn.deformable_conv2d_groups",
        [t(1, 4, 8, 8), t(1, 54, 6, 6), t(4, 4, 3, 3)],
        lambda x, o, w: relay.DeformableConv2dOp(x, o, w, deformable_groups=3),
        "'relay.nn.deformable_conv2d' op deformable_groups 3 must be positive and divide the "
        "4 input channels",
    ),
    (
        "image.dilation2d_channels",
        [t(1, 3, 4, 4), t(2, 2, 2)],
        relay.Dilation2dOp,
        "'relay.image.dilation2d' op data has 3 channels but weight has 2",
    ),
    (
        "image.dilation2d_kernel_layout",
        [t(1, 3, 4, 4), t(3, 2, 2)],
        lambda x, w: relay.Dilation2dOp(x, w, kernel_layout="OIHW"),
        '\'relay.image.dilation2d\' op kernel_layout must be one of "IHW", "HWI", got "OIHW"',
    ),
    (
        "image.dilation2d_too_large",
        [t(1, 3, 2, 2), t(3, 3, 3)],
        relay.Dilation2dOp,
        "'relay.image.dilation2d' op dilated kernel 3x3 is larger than padded input 2x2",
    ),
    (
        "cumsum_axis",
        [t(3, 3)],
        lambda x: relay.CumsumOp(x, 2),
        "'relay.cumsum' op axis 2 is out of range for rank 2",
    ),
    (
        "trilu_rank",
        [t(3)],
        relay.TriluOp,
        "'relay.trilu' op data must have rank 2 or more, got 3",
    ),
    (
        "take_float_indices",
        [t(3, 5), t(2)],
        relay.TakeOp,
        "'relay.take' op indices must have an integer element type, got f32",
    ),
    (
        "take_mode",
        [t(3, 5), t(2, elem=i32)],
        lambda x, i: relay.TakeOp(x, i, mode="nan"),
        '\'relay.take\' op mode must be one of "clip", "wrap", "fast", got "nan"',
    ),
    (
        "broadcast_to_shape",
        [t(2, 3)],
        lambda x: relay.BroadcastToOp(x, (4, 3)),
        "'relay.broadcast_to' op cannot broadcast 2x3 to 4x3",
    ),
    (
        "tile_reps",
        [t(2, 3)],
        lambda x: relay.TileOp(x, (2, 0)),
        "'relay.tile' op reps must be positive integers, got [2, 0]",
    ),
    (
        "layout_transform_factor",
        [t(1, 8, 3, 3)],
        lambda x: relay.LayoutTransformOp(x, "NCHW", "NCHW3c"),
        "'relay.layout_transform' op axis C of size 8 does not split by 3",
    ),
    (
        "layout_transform_primal",
        [t(1, 8, 3, 3)],
        lambda x: relay.LayoutTransformOp(x, "NCHW", "NCDW"),
        "'relay.layout_transform' op layouts NCHW and NCDW have different primal axes",
    ),
    (
        "layout_transform_rank",
        [t(1, 8, 3)],
        lambda x: relay.LayoutTransformOp(x, "NCHW", "NHWC"),
        "'relay.layout_transform' op layout NCHW needs rank 4, got 3",
    ),
    (
        "tuple_get_item_index",
        [t(2), t(3)],
        lambda a, b: relay.TupleGetItemOp(relay.TupleOp(a, b), 2),
        "'relay.tuple_get_item' op index 2 is out of range for a tuple of 2 fields",
    ),
    (
        "unsupported_element_type",
        [TensorType(IndexType(), [3]), TensorType(IndexType(), [3])],
        relay.AddOp,
        "'relay.add' op lhs element type must be an integer or float type, got index",
    ),
    (
        "vision.yolo_reorg_channels",
        [t(1, 6, 4, 4)],
        lambda x: relay.YoloReorgOp(x, 2),
        "'relay.vision.yolo_reorg' op stride 2 must be positive, its square must divide the 6 "
        "channels and it must divide height and width 4x4",
    ),
    (
        "vision.multibox_prior_steps",
        [t(1, 3, 4, 4)],
        lambda x: relay.MultiboxPriorOp(x, steps=(0.5,)),
        "'relay.vision.multibox_prior' op steps must have 2 values (height, width), got (0.5,)",
    ),
    (
        "vision.roi_align_rois",
        [t(1, 3, 8, 8), t(4, 4)],
        lambda x, r: relay.RoiAlignOp(x, r, (2, 2), 1.0),
        "'relay.vision.roi_align' op rois must be (rois, 5): batch index, x1, y1, x2, y2, got "
        "tensor<4x4xf32>",
    ),
    (
        "vision.roi_pool_layout",
        [t(1, 8, 8, 3), t(4, 5)],
        lambda x, r: relay.RoiPoolOp(x, r, (2, 2), 1.0, "NHWC"),
        '\'relay.vision.roi_pool\' op layout must be one of "NCHW", got "NHWC"',
    ),
    (
        "vision.get_valid_counts_index",
        [t(1, 4, 5)],
        lambda x: relay.GetValidCountsOp(x, 0.0, 0, 5),
        "'relay.vision.get_valid_counts' op score_index 5 is out of range for boxes of 5 values",
    ),
    (
        "vision.non_max_suppression_threshold",
        [t(1, 7, 6), t(1, elem=i32), t(1, 7, elem=i32), t(elem=i32), t(2)],
        relay.NonMaxSuppressionOp,
        "'relay.vision.non_max_suppression' op iou_threshold must be a scalar of a float type, "
        "got tensor<2xf32>",
    ),
    (
        "vision.non_max_suppression_indices",
        [t(1, 7, 6), t(1, elem=i32), t(1, 6, elem=i32), t(elem=i32), t()],
        relay.NonMaxSuppressionOp,
        "'relay.vision.non_max_suppression' op indices must have shape (1x7), got tensor<1x6xi32>",
    ),
    (
        "vision.multibox_transform_loc_anchor",
        [t(1, 3, 5), t(1, 20), t(1, 4, 4)],
        relay.MultiboxTransformLocOp,
        "'relay.vision.multibox_transform_loc' op anchor must be (1, 5, 4) for 5 anchors, got "
        "tensor<1x4x4xf32>",
    ),
    (
        "vision.proposal_anchors",
        [t(1, 4, 3, 3), t(1, 8, 3, 3), t(1, 3)],
        relay.ProposalOp,
        "'relay.vision.proposal' op cls_prob must have 2 x 12 anchors (scales x ratios) "
        "channels, got tensor<1x4x3x3xf32>",
    ),
    (
        "vision.all_class_non_max_suppression_scores",
        [t(1, 6, 4), t(1, 2, 5), t(elem=i64), t(), t()],
        relay.AllClassNonMaxSuppressionOp,
        "'relay.vision.all_class_non_max_suppression' op scores must be (1, classes, 6), got "
        "tensor<1x2x5xf32>",
    ),
]


@pytest.mark.parametrize("case", INVALID, ids=case_id)
def test_invalid_ops_are_rejected_with_a_located_message(
    case: tuple[str, list[Attribute], Body, str],
):
    _, arg_types, body, message = case
    with pytest.raises(VerifyException) as info:
        function(arg_types, body)
    assert str(info.value) == message


def test_verifier_rejects_a_result_type_that_differs_from_the_inferred_one():
    block = Block(arg_types=[t(2, 3), t(3)])
    op = relay.AddOp.create(operands=list(block.args), result_types=[t(9)])
    block.add_op(op)
    with pytest.raises(VerifyException) as info:
        op.verify()
    assert str(info.value) == (
        "'relay.add' op result type tensor<9xf32> does not match the inferred type tensor<2x3xf32>"
    )


def test_tuple_types_compare_equal_however_they_were_built():
    # xDSL keeps the sequence a TupleType was built from; [a] and (a,) must still agree.
    block = Block(arg_types=[t(2), t(3)])
    op = relay.TupleOp.create(operands=list(block.args), result_types=[TupleType([t(2), t(3)])])
    block.add_op(op)
    op.verify()


def test_verifier_checks_properties_changed_after_building():
    _, op = function([t(1, 3, 8, 8), t(4, 3, 3, 3)], relay.Conv2dOp)
    op.properties["strides"] = relay.int_array([2, 2])
    with pytest.raises(VerifyException, match="result type tensor<1x4x6x6xf32> does not match"):
        op.verify()


def test_parsed_op_with_a_wrong_result_type_fails_verification():
    text = """
    func.func @main(%x: tensor<2x3xf32>) -> tensor<3x3xf32> {
      %y = relay.reshape %x {newshape = array<i64: 3, -1>} : (tensor<2x3xf32>) -> tensor<3x3xf32>
      func.return %y : tensor<3x3xf32>
    }
    """
    module = parse(text)
    with pytest.raises(VerifyException, match=re.escape("'relay.reshape' op result type")):
        module.verify()


def test_param_name_must_not_be_empty():
    _, op = function([], lambda: relay.ParamOp("", t(3)))
    with pytest.raises(VerifyException, match=re.escape("'relay.param' op name must not be empty")):
        op.verify()


def test_element_type_of_numpy_dtypes():
    assert relay.element_type("float32") == f32
    assert relay.element_type(np.bool_) == i1
    assert relay.element_type(np.uint16) == IntegerType(16, Signedness.UNSIGNED)
    with pytest.raises(ValueError, match="no element type"):
        relay.element_type(np.complex64)
