"""relay-convert-layout: conv2d and its neighbours change layout, values and signatures do not."""

from __future__ import annotations

import numpy as np
import pytest
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp, TensorType, f32
from xdsl.ir import Block, Operation, Region, SSAValue

import xtvm as tvm
from xtvm import relay as tvm_relay
from xtvm.dialects import relay
from xtvm.dialects.registry import default_context
from xtvm.ir.diagnostics import DiagnosticError
from xtvm.ir.printer import print_ir
from xtvm.passes import all_passes
from xtvm.passes.pipeline import parse_passes
from xtvm.passes.relay_convert_layout import RelayConvertLayoutPass
from xtvm.runtime.relay_interpreter import evaluate
from xtvm.testing.passes import count, run

CTX = default_context()
RNG = np.random.default_rng(0)


def rand(*shape: int) -> np.ndarray:
    return RNG.standard_normal(shape).astype(np.float32)


def signature(module: ModuleOp) -> list[str]:
    return [str(f.function_type) for f in module.body.block.ops if isinstance(f, func.FuncOp)]


def convert_and_compare(
    module: ModuleOp | str,
    layout: str,
    params: dict[str, np.ndarray] | None = None,
    grouped: bool = True,
    min_channels: int = 0,
    out_block: int = 0,
    depthwise: bool = False,
) -> ModuleOp:
    """Convert @main of `module` to `layout` (verifying after) and check that it computes what
    it did on random inputs, with the same signature."""
    module = CTX.parse(module) if isinstance(module, str) else module
    main = module.body.block.first_op
    assert isinstance(main, func.FuncOp)
    inputs = [rand(*t.get_shape()) for t in main.function_type.inputs.data]  # type: ignore[union-attr]
    before, types = evaluate(module, inputs, params=params), signature(module)
    run(
        module,
        RelayConvertLayoutPass(
            layout=layout,
            grouped=grouped,
            depthwise=depthwise,
            min_channels=min_channels,
            out_block=out_block,
        ),
    )
    after = evaluate(module, inputs, params=params)
    assert signature(module) == types
    for a, b in zip(after, before, strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-4, atol=1e-4, err_msg=print_ir(module, CTX))
    return module


def layouts(module: ModuleOp) -> list[tuple[str, str]]:
    """(data, kernel) layout of every conv2d."""
    return [
        (op.data_layout.data, op.kernel_layout.data)
        for op in module.walk()
        if isinstance(op, relay.Conv2dOp)
    ]


# ---------------------------------------------------------------------------------------------
# A ResNet-like block, in either layout


def resnet_block(layout: str) -> ModuleOp:
    """conv -> bias_add -> batch_norm -> relu -> max_pool -> conv (param weight) -> scale ->
    residual add -> concatenate -> global_avg_pool -> batch_flatten -> dense, all in `layout`."""
    nchw = layout == "NCHW"
    axis, kernel_layout = (1, "OIHW") if nchw else (3, "HWIO")

    def data(c: int, h: int, w: int) -> TensorType:
        return TensorType(f32, (1, c, h, w) if nchw else (1, h, w, c))

    def kernel(o: int, i: int, k: int) -> tuple[int, ...]:
        return (o, i, k, k) if nchw else (k, k, i, o)

    block = Block(arg_types=[data(4, 8, 8)])
    ops: list[Operation] = []

    def emit(op: Operation) -> SSAValue:
        ops.append(op)
        return op.results[0]

    def const(array: np.ndarray) -> SSAValue:
        return emit(relay.ConstOp(array))

    def conv(x: SSAValue, w: SSAValue) -> SSAValue:
        return emit(
            relay.Conv2dOp(
                x, w, padding=(1, 1, 1, 1), data_layout=layout, kernel_layout=kernel_layout
            )
        )

    x = block.args[0]
    c1 = conv(x, const(rand(*kernel(8, 4, 3))))
    b1 = emit(relay.BiasAddOp(c1, const(rand(8)), axis=axis))
    stats = [const(rand(8)), const(rand(8)), const(rand(8)), const(np.abs(rand(8)) + 0.5)]
    bn = emit(relay.TupleGetItemOp(emit(relay.BatchNormOp(b1, *stats, axis=axis)), 0))
    r = emit(relay.ReluOp(bn))
    p = emit(relay.MaxPool2dOp(r, (2, 2), strides=(2, 2), layout=layout))
    c2 = conv(p, emit(relay.ParamOp("w2", TensorType(f32, kernel(8, 8, 3)))))
    scale = rand(8).reshape((8, 1, 1) if nchw else (8,))
    s = emit(relay.MultiplyOp(c2, const(scale)))
    a = emit(relay.AddOp(s, p))
    cat = emit(relay.ConcatenateOp([a, p], axis=axis))
    g = emit(relay.GlobalAvgPool2dOp(cat, layout=layout))
    d = emit(relay.DenseOp(emit(relay.BatchFlattenOp(g)), const(rand(10, 16))))
    block.add_ops([*ops, func.ReturnOp(d)])
    f = func.FuncOp("main", ([block.args[0].type], [d.type]), Region(block))
    return ModuleOp([f])


def w2(layout: str) -> dict[str, np.ndarray]:
    return {"w2": rand(8, 8, 3, 3) if layout == "NCHW" else rand(3, 3, 8, 8)}


@pytest.mark.parametrize(("source", "target"), [("NCHW", "NHWC"), ("NHWC", "NCHW")])
def test_resnet_block_converts_with_the_same_values(source: str, target: str) -> None:
    module = convert_and_compare(resnet_block(source), target, w2(source))
    kernel = "HWIO" if target == "NHWC" else "OIHW"
    assert layouts(module) == [(target, kernel)] * 2
    # Transforms only at the boundaries: the input, the param weight, and before batch_flatten.
    transforms = [op for op in module.walk() if isinstance(op, relay.LayoutTransformOp)]
    assert [(t.src_layout.data, t.dst_layout.data) for t in transforms] == [
        (source, target),
        ("OIHW", "HWIO") if target == "NHWC" else ("HWIO", "OIHW"),
        (target, source),
    ], print_ir(module, CTX)
    (last_use,) = transforms[-1].result.uses
    assert isinstance(last_use.operation, relay.BatchFlattenOp)
    pools = [op for op in module.walk() if isinstance(op, relay.Pool2dOp | relay.GlobalPool2dOp)]
    assert {p.layout.data for p in pools} == {target}


@pytest.mark.parametrize("layout", ["NCHW", "NHWC"])
def test_converting_to_the_layout_in_use_changes_nothing(layout: str) -> None:
    module = resnet_block(layout)
    before = print_ir(module, CTX)
    run(module, RelayConvertLayoutPass(layout=layout))
    assert print_ir(module, CTX) == before


def test_converting_back_and_forth_keeps_one_transform_per_boundary() -> None:
    module = convert_and_compare(resnet_block("NCHW"), "NHWC", w2("NCHW"))
    module = convert_and_compare(module, "NCHW", w2("NCHW"))
    # The inverse transforms met and cancelled: what is left is the NCHW block.
    assert count(module, relay.LayoutTransformOp) == 0, print_ir(module, CTX)
    assert layouts(module) == [("NCHW", "OIHW")] * 2


# ---------------------------------------------------------------------------------------------
# One case per rule, NCHW converted to NHWC

CONV = """
  %w = relay.const dense<0.5> : tensor<4x3x1x1xf32>
  %c = relay.nn.conv2d %x, %w : (tensor<1x3x4x6xf32>, tensor<4x3x1x1xf32>) -> tensor<1x4x4x6xf32>
"""
T = "tensor<1x4x4x6xf32>"


def program(body: str, result: str, extra_args: str = "") -> str:
    value = body.strip().splitlines()[-1].split("=")[0].strip()
    return (
        f"func.func @main(%x: tensor<1x3x4x6xf32>{extra_args}) -> {result} {{\n{CONV}"
        f"  {body.strip()}\n  func.return {value} : {result}\n}}"
    )


CASES = {
    "unary_and_cast": (
        f"%r = relay.sigmoid %c : ({T}) -> {T}\n"
        f"%y = relay.cast %r {{dtype = f64}} : ({T}) -> tensor<1x4x4x6xf64>",
        "tensor<1x4x4x6xf64>",
    ),
    "mean_over_space": (
        f"%y = relay.mean %c {{axis = array<i64: 2, 3>}} : ({T}) -> tensor<1x4xf32>",
        "tensor<1x4xf32>",
    ),
    "sum_over_height_kept": (
        f"%y = relay.sum %c {{axis = array<i64: -2>, keepdims = true}}"
        f" : ({T}) -> tensor<1x4x1x6xf32>",
        "tensor<1x4x1x6xf32>",
    ),
    "max_over_height_dropped": (
        f"%m = relay.max %c {{axis = array<i64: 2>}} : ({T}) -> tensor<1x4x6xf32>\n"
        "%y = relay.nn.softmax %m {axis = 1 : i64} : (tensor<1x4x6xf32>) -> tensor<1x4x6xf32>",
        "tensor<1x4x6xf32>",
    ),
    "argmax_over_channels_and_all": (
        f"%a = relay.argmax %c {{axis = array<i64: 1>}} : ({T}) -> tensor<1x4x6xi32>\n"
        f"%b = relay.argmin %c : ({T}) -> tensor<i32>\n"
        "%y = relay.add %a, %b : (tensor<1x4x6xi32>, tensor<i32>) -> tensor<1x4x6xi32>",
        "tensor<1x4x6xi32>",
    ),
    "global_pool_squeeze": (
        f"%g = relay.nn.global_max_pool2d %c : ({T}) -> tensor<1x4x1x1xf32>\n"
        "%y = relay.squeeze %g {axis = array<i64: 2, 3>}"
        " : (tensor<1x4x1x1xf32>) -> tensor<1x4xf32>",
        "tensor<1x4xf32>",
    ),
    "squeeze_all": (
        f"%g = relay.nn.global_avg_pool2d %c : ({T}) -> tensor<1x4x1x1xf32>\n"
        "%y = relay.squeeze %g : (tensor<1x4x1x1xf32>) -> tensor<4xf32>",
        "tensor<4xf32>",
    ),
    "pad_then_avg_pool": (
        f"%p = relay.nn.pad %c {{pad_width = array<i64: 0, 0, 1, 2, 0, 1, 3, 0>}}"
        f" : ({T}) -> tensor<1x7x5x9xf32>\n"
        "%y = relay.nn.avg_pool2d %p {pool_size = array<i64: 3, 3>, count_include_pad = true}"
        " : (tensor<1x7x5x9xf32>) -> tensor<1x7x3x7xf32>",
        "tensor<1x7x3x7xf32>",
    ),
    "softmax_lrn_layer_norm_prelu": (
        f"%s = relay.nn.softmax %c {{axis = 1 : i64}} : ({T}) -> {T}\n"
        f"%l = relay.nn.lrn %s {{size = 3 : i64}} : ({T}) -> {T}\n"
        "%g = relay.const dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>\n"
        f"%n = relay.nn.layer_norm %l, %g, %g {{axis = 1 : i64}}"
        f" : ({T}, tensor<4xf32>, tensor<4xf32>) -> {T}\n"
        f"%y = relay.nn.prelu %n, %g : ({T}, tensor<4xf32>) -> {T}",
        T,
    ),
    "resize_and_upsampling": (
        f"%r = relay.image.resize2d %c {{size = array<i64: 5, 7>}} : ({T}) -> tensor<1x4x5x7xf32>\n"
        "%y = relay.nn.upsampling %r {scale_h = 2.0 : f64, scale_w = 1.0 : f64}"
        " : (tensor<1x4x5x7xf32>) -> tensor<1x4x10x7xf32>",
        "tensor<1x4x10x7xf32>",
    ),
    "transpose_to_nhwc_is_gone": (
        f"%y = relay.transpose %c {{axes = array<i64: 0, 2, 3, 1>}} : ({T}) -> tensor<1x4x6x4xf32>",
        "tensor<1x4x6x4xf32>",
    ),
    "transpose_other": (
        f"%y = relay.transpose %c {{axes = array<i64: 3, 1, 0, 2>}} : ({T}) -> tensor<6x4x1x4xf32>",
        "tensor<6x4x1x4xf32>",
    ),
    "layout_transform_to_blocked": (
        f'%y = relay.layout_transform %c {{src_layout = "NCHW", dst_layout = "NCHW2c"}}'
        f" : ({T}) -> tensor<1x2x4x6x2xf32>",
        "tensor<1x2x4x6x2xf32>",
    ),
    "conv2d_transpose_is_a_boundary": (
        "%v = relay.const dense<0.25> : tensor<4x2x3x3xf32>\n"
        f"%y = relay.nn.conv2d_transpose %c, %v : ({T}, tensor<4x2x3x3xf32>)"
        " -> tensor<1x2x6x8xf32>",
        "tensor<1x2x6x8xf32>",
    ),
    "broadcast_arguments_and_where": (
        f"%s = relay.subtract %v, %c : (tensor<4x1x1xf32>, {T}) -> {T}\n"
        f"%a = relay.add %s, %z : ({T}, {T}) -> {T}\n"
        f"%k = relay.greater %a, %v : ({T}, tensor<4x1x1xf32>) -> tensor<1x4x4x6xi1>\n"
        f"%y = relay.where %k, %a, %u : (tensor<1x4x4x6xi1>, {T}, tensor<6xf32>) -> {T}",
        T,
        f", %v: tensor<4x1x1xf32>, %z: {T}, %u: tensor<6xf32>",
    ),
    "concatenate_with_an_argument": (
        f"%y = relay.concatenate %z, %c {{axis = 1 : i64}} : ({T}, {T}) -> tensor<1x8x4x6xf32>",
        "tensor<1x8x4x6xf32>",
        f", %z: {T}",
    ),
    "depthwise_conv_after_conv": (
        "%d = relay.const dense<0.75> : tensor<4x1x3x3xf32>\n"
        "%y = relay.nn.conv2d %c, %d {groups = 4 : i64, padding = array<i64: 1, 1, 1, 1>}"
        f" : ({T}, tensor<4x1x3x3xf32>) -> {T}",
        T,
    ),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_rule_keeps_values(case: str) -> None:
    body, result, *args = CASES[case]
    module = convert_and_compare(program(body, result, *args), "NHWC")
    assert layouts(module)[0] == ("NHWC", "HWIO")


def test_rules_propagate_without_transforms_between_converted_ops() -> None:
    # Only the input and the result cross a layout_transform; the constant weight and the
    # broadcast constant are transposed at compile time.
    for case in ("pad_then_avg_pool", "softmax_lrn_layer_norm_prelu", "resize_and_upsampling"):
        module = convert_and_compare(program(*CASES[case]), "NHWC")
        assert count(module, relay.LayoutTransformOp) == 2, print_ir(module, CTX)
    module = convert_and_compare(program(*CASES["transpose_to_nhwc_is_gone"]), "NHWC")
    assert count(module, relay.TransposeOp) == 0
    assert count(module, relay.LayoutTransformOp) == 1  # the input's only
    module = convert_and_compare(program(*CASES["mean_over_space"]), "NHWC")
    assert count(module, relay.LayoutTransformOp) == 1  # N x C reads the same in both layouts


def test_two_convolutions_of_one_argument_share_its_transform() -> None:
    text = """
func.func @main(%x: tensor<1x3x4x4xf32>, %w: tensor<2x3x1x1xf32>)
    -> (tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>) {
  %a = relay.nn.conv2d %x, %w : (tensor<1x3x4x4xf32>, tensor<2x3x1x1xf32>) -> tensor<1x2x4x4xf32>
  %b = relay.nn.conv2d %x, %w : (tensor<1x3x4x4xf32>, tensor<2x3x1x1xf32>) -> tensor<1x2x4x4xf32>
  %r = relay.nn.relu %a : (tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  func.return %r, %a : tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>
}
"""
    module = convert_and_compare(text, "NHWC")
    # x and w in, r and a out (b is dead: the pass leaves it to relay-dce).
    assert count(module, relay.LayoutTransformOp) == 4, print_ir(module, CTX)


@pytest.mark.parametrize("grouped", [True, False])
def test_grouped_convolutions_convert_unless_asked_not_to(grouped: bool) -> None:
    text = """
func.func @main(%x: tensor<1x4x6x6xf32>, %w: tensor<4x4x1x1xf32>, %d: tensor<4x2x3x3xf32>)
    -> tensor<1x4x6x6xf32> {
  %c = relay.nn.conv2d %x, %w : (tensor<1x4x6x6xf32>, tensor<4x4x1x1xf32>) -> tensor<1x4x6x6xf32>
  %r = relay.nn.relu %c : (tensor<1x4x6x6xf32>) -> tensor<1x4x6x6xf32>
  %g = relay.nn.conv2d %r, %d {padding = array<i64: 1, 1, 1, 1>, groups = 2 : i64}
    : (tensor<1x4x6x6xf32>, tensor<4x2x3x3xf32>) -> tensor<1x4x6x6xf32>
  func.return %g : tensor<1x4x6x6xf32>
}
"""
    module = convert_and_compare(text, "NHWC", grouped=grouped)
    grouped_layout = ("NHWC", "HWIO") if grouped else ("NCHW", "OIHW")
    assert layouts(module) == [("NHWC", "HWIO"), grouped_layout]


@pytest.mark.parametrize("first_converted", [True, False])
def test_depthwise_convolutions_convert_after_converted_data(first_converted: bool) -> None:
    # MobileNet's expand, depthwise, project: with grouped=False and depthwise=True the
    # depthwise conv2d (a group a channel) converts where its data is converted already, and the
    # grouped one (two channels a group) keeps NCHW.
    text = """
func.func @main(%x: tensor<1x4x6x6xf32>, %w: tensor<4x4x1x1xf32>, %d: tensor<4x1x3x3xf32>,
    %e: tensor<4x2x3x3xf32>) -> tensor<1x4x6x6xf32> {
  %c = relay.nn.conv2d %x, %w : (tensor<1x4x6x6xf32>, tensor<4x4x1x1xf32>) -> tensor<1x4x6x6xf32>
  %r = relay.clip %c {a_min = 0.0 : f64, a_max = 6.0 : f64}
    : (tensor<1x4x6x6xf32>) -> tensor<1x4x6x6xf32>
  %g = relay.nn.conv2d DATA, %d {padding = array<i64: 1, 1, 1, 1>, groups = 4 : i64}
    : (tensor<1x4x6x6xf32>, tensor<4x1x3x3xf32>) -> tensor<1x4x6x6xf32>
  %h = relay.nn.conv2d %g, %e {padding = array<i64: 1, 1, 1, 1>, groups = 2 : i64}
    : (tensor<1x4x6x6xf32>, tensor<4x2x3x3xf32>) -> tensor<1x4x6x6xf32>
  func.return %h : tensor<1x4x6x6xf32>
}
"""
    text = text.replace("DATA", "%r" if first_converted else "%x")
    module = convert_and_compare(text, "NHWC", grouped=False, depthwise=True)
    nchw, nhwc = ("NCHW", "OIHW"), ("NHWC", "HWIO")
    assert layouts(module)[-2:] == [nhwc if first_converted else nchw, nchw]


@pytest.mark.parametrize(
    ("min_channels", "out_block", "kept"),
    [(0, 0, False), (3, 0, False), (4, 0, True), (4, 8, True), (4, 4, False), (4, 2, False)],
)
def test_a_conv2d_of_few_input_channels_keeps_its_layout_when_asked(
    min_channels: int, out_block: int, kept: bool
) -> None:
    text = """
func.func @main(%x: tensor<1x3x9x9xf32>, %w: tensor<4x3x3x3xf32>, %v: tensor<4x4x1x1xf32>)
    -> tensor<1x4x4x4xf32> {
  %c = relay.nn.conv2d %x, %w {strides = array<i64: 2, 2>}
    : (tensor<1x3x9x9xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x4x4xf32>
  %r = relay.nn.relu %c : (tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
  %d = relay.nn.conv2d %r, %v : (tensor<1x4x4x4xf32>, tensor<4x4x1x1xf32>) -> tensor<1x4x4x4xf32>
  func.return %d : tensor<1x4x4x4xf32>
}
"""
    module = convert_and_compare(text, "NHWC", min_channels=min_channels, out_block=out_block)
    first = ("NCHW", "OIHW") if kept else ("NHWC", "HWIO")
    assert layouts(module) == [first, ("NHWC", "HWIO")]


def test_a_join_with_an_unconverted_branch_stays_in_the_original_layout() -> None:
    # ShuffleNet's shape: a converted conv's output meets a grouped conv's (left NCHW) in a
    # residual add and a concatenate. Both stay NCHW: the converted value goes back once
    # (shared with the grouped conv's input), and the next grouped conv reads the add as it is.
    text = """
func.func @main(%x: tensor<1x4x6x6xf32>, %w: tensor<4x4x1x1xf32>, %d: tensor<4x2x1x1xf32>)
    -> (tensor<1x4x6x6xf32>, tensor<1x8x6x6xf32>) {
  %c = relay.nn.conv2d %x, %w : (tensor<1x4x6x6xf32>, tensor<4x4x1x1xf32>) -> tensor<1x4x6x6xf32>
  %r = relay.nn.relu %c : (tensor<1x4x6x6xf32>) -> tensor<1x4x6x6xf32>
  %g = relay.nn.conv2d %r, %d {groups = 2 : i64}
    : (tensor<1x4x6x6xf32>, tensor<4x2x1x1xf32>) -> tensor<1x4x6x6xf32>
  %a = relay.add %g, %r : (tensor<1x4x6x6xf32>, tensor<1x4x6x6xf32>) -> tensor<1x4x6x6xf32>
  %h = relay.nn.conv2d %a, %d {groups = 2 : i64}
    : (tensor<1x4x6x6xf32>, tensor<4x2x1x1xf32>) -> tensor<1x4x6x6xf32>
  %t = relay.concatenate %r, %h {axis = 1 : i64}
    : (tensor<1x4x6x6xf32>, tensor<1x4x6x6xf32>) -> tensor<1x8x6x6xf32>
  func.return %h, %t : tensor<1x4x6x6xf32>, tensor<1x8x6x6xf32>
}
"""
    module = convert_and_compare(text, "NHWC", grouped=False)
    # x and w in, r back out: the add and the concatenate need no transform of their own.
    assert count(module, relay.LayoutTransformOp) == 3, print_ir(module, CTX)
    assert layouts(module) == [("NHWC", "HWIO"), ("NCHW", "OIHW"), ("NCHW", "OIHW")]


def test_external_function_is_skipped() -> None:
    text = """
func.func private @ext(%x: tensor<1x3x4x4xf32>, %w: tensor<2x3x1x1xf32>) -> tensor<1x2x4x4xf32>
    attributes {compiler = "ccompiler"} {
  %c = relay.nn.conv2d %x, %w : (tensor<1x3x4x4xf32>, tensor<2x3x1x1xf32>) -> tensor<1x2x4x4xf32>
  func.return %c : tensor<1x2x4x4xf32>
}
"""
    module = CTX.parse(text)
    before = print_ir(module, CTX)
    run(module, RelayConvertLayoutPass(layout="NHWC"))
    assert print_ir(module, CTX) == before


def test_unsupported_layout_is_a_clear_error() -> None:
    with pytest.raises(DiagnosticError, match='layout must be "NHWC" or "NCHW", got "NCWH"'):
        parse_passes("relay-convert-layout{layout=NCWH}", all_passes())
    (p,) = parse_passes("relay-convert-layout{layout=NCHW}", all_passes())
    assert p == RelayConvertLayoutPass(layout="NCHW")


# ---------------------------------------------------------------------------------------------
# TVM's Python API


def test_tvm_convert_layout() -> None:
    x = tvm_relay.var("x", shape=(1, 3, 8, 8))
    w = tvm_relay.const(rand(8, 3, 3, 3))
    b = tvm_relay.const(rand(8))
    y = tvm_relay.nn.relu(tvm_relay.nn.bias_add(tvm_relay.nn.conv2d(x, w, padding=1), b))
    y = tvm_relay.nn.max_pool2d(y, pool_size=(2, 2), strides=(2, 2))
    mod = tvm.IRModule.from_expr(tvm_relay.Function([x], y))
    with tvm.transform.PassContext(opt_level=3):
        converted = tvm.transform.Sequential(
            [tvm_relay.transform.ConvertLayout({"nn.conv2d": ["NHWC", "default"]})]
        )(mod)
    text = str(converted)
    assert 'data_layout = "NHWC"' in text and 'kernel_layout = "HWIO"' in text
    assert text.count("relay.layout_transform") == 2
    data = rand(1, 3, 8, 8)

    def run(m: tvm.IRModule) -> np.ndarray:
        return tvm_relay.create_executor("graph", mod=m).evaluate()(data).numpy()

    np.testing.assert_allclose(run(converted), run(mod), rtol=1e-4, atol=1e-5)
    with pytest.raises(ValueError, match="unsupported layouts"):
        tvm_relay.transform.ConvertLayout({"nn.conv2d": ["NCWH", "default"]})


# ---------------------------------------------------------------------------------------------
# The channels a conv2d reads, when converted data arrives NHWC already


@pytest.mark.parametrize(
    ("channels", "size", "kept"),
    [(2, 8, True), (4, 2, False)],  # the NHWC type's axis 1 (the height) said the opposite
)
def test_min_channels_counts_the_channels_of_converted_data(
    channels: int, size: int, kept: bool
) -> None:
    # a converted 1x1 conv2d of 4 channels, then one reading its `channels` over a size x size
    # image: with min_channels=4 the second keeps NCHW exactly when it reads fewer than 4
    x_shape, w_shape, v_shape = (1, 4, size, size), (channels, 4, 1, 1), (3, channels, 1, 1)
    hidden, out = (1, channels, size, size), (1, 3, size, size)

    def t(shape: tuple[int, ...]) -> str:
        return f"tensor<{'x'.join(map(str, shape))}xf32>"

    text = f"""
func.func @main(%x: {t(x_shape)}, %w: {t(w_shape)}, %v: {t(v_shape)}) -> {t(out)} {{
  %c = relay.nn.conv2d %x, %w : ({t(x_shape)}, {t(w_shape)}) -> {t(hidden)}
  %d = relay.nn.conv2d %c, %v : ({t(hidden)}, {t(v_shape)}) -> {t(out)}
  func.return %d : {t(out)}
}}
"""
    module = convert_and_compare(text, "NHWC", min_channels=4)
    second = ("NCHW", "OIHW") if kept else ("NHWC", "HWIO")
    assert layouts(module) == [("NHWC", "HWIO"), second], print_ir(module, CTX)

    # compiled through relay.build's pipeline (min_channels and out_block of the CPU), against
    # numpy
    from xtvm.contrib import graph_executor

    x, w, v = rand(*x_shape), rand(*w_shape), rand(*v_shape)
    xv = tvm_relay.var("x", shape=x_shape)
    y = tvm_relay.nn.conv2d(tvm_relay.nn.conv2d(xv, tvm_relay.const(w)), tvm_relay.const(v))
    factory = tvm_relay.build(tvm.IRModule.from_expr(tvm_relay.Function([xv], y)), "llvm")
    graph = graph_executor.GraphModule(factory["default"](tvm.cpu()))
    graph.set_input("x", x)
    graph.run()
    expected = np.einsum(
        "oc,nchw->nohw", v[:, :, 0, 0], np.einsum("oc,nchw->nohw", w[:, :, 0, 0], x)
    )
    np.testing.assert_allclose(graph.get_output(0).numpy(), expected, rtol=1e-5, atol=1e-5)
