"""relay-alter-op-layout: NHWC conv2d kernels packed into the CPU tile's channel blocks compute
the same values, in the interpreter and compiled, and relay.build packs them."""

from __future__ import annotations

import numpy as np
import pytest
from xdsl.dialects.builtin import ModuleOp

import xtvm as tvm
from xtvm import relay as tvm_relay
from xtvm.dialects import relay
from xtvm.dialects.registry import default_context
from xtvm.driver.relay_build import lower_for_build
from xtvm.passes.relay_alter_op_layout import RelayAlterOpLayoutPass, channel_blocking
from xtvm.passes.relay_convert_layout import RelayConvertLayoutPass
from xtvm.passes.relay_fold_scale_axis import RelayFoldScaleAxisPass
from xtvm.runtime.relay_interpreter import evaluate
from xtvm.testing.passes import kernel_argument_shapes, run
from xtvm.testing.relay import interpret, run_factory
from xtvm.topi.schedule import nhwc_channel_block

CTX = default_context()
RNG = np.random.default_rng(0)


def rand(*shape: int) -> np.ndarray:
    return RNG.standard_normal(shape).astype(np.float32)


def nhwc_conv(
    h: int, c: int, o: int, k: int, stride: int = 1, groups: int = 1, scale: bool = False
) -> ModuleOp:
    """@main(x) = conv2d(x, const w) in NHWC/HWIO, optionally times a per-channel constant."""
    x = tvm_relay.var("x", shape=(1, h, h, c))
    w = tvm_relay.const(rand(k, k, c // groups, o))
    y = tvm_relay.nn.conv2d(
        x,
        w,
        strides=(stride, stride),
        padding=(k // 2, k // 2),
        groups=groups,
        data_layout="NHWC",
        kernel_layout="HWIO",
    )
    if scale:
        y = tvm_relay.multiply(y, tvm_relay.const(rand(o)))
    return tvm.IRModule.from_expr(tvm_relay.Function([x], y)).xdsl


def kernel_layouts(module: ModuleOp) -> list[str]:
    return [op.kernel_layout.data for op in module.walk() if isinstance(op, relay.Conv2dOp)]


@pytest.mark.parametrize(
    ("h", "c", "o", "k", "stride", "layout"),
    [
        (5, 3, 64, 3, 1, "OHWI32o"),
        (6, 8, 48, 3, 2, "OHWI16o"),
        (4, 16, 24, 1, 1, "OHWI8o"),
        (7, 5, 96, 1, 2, "OHWI32o"),
        # Padded to whole 32-channel blocks, the extra channels sliced off after the conv2d.
        (5, 4, 40, 3, 1, "OHWI32o"),
        (4, 3, 100, 1, 1, "OHWI32o"),
    ],
)
def test_packed_kernel_computes_the_same(
    h: int, c: int, o: int, k: int, stride: int, layout: str
) -> None:
    module = nhwc_conv(h, c, o, k, stride)
    x = rand(1, h, h, c)
    (before,) = evaluate(module, [x])
    run(module, RelayAlterOpLayoutPass())
    assert kernel_layouts(module) == [layout]
    slices = [op for op in module.walk() if isinstance(op, relay.StridedSliceOp)]
    assert len(slices) == (o in (40, 100))
    (after,) = evaluate(module, [x])
    np.testing.assert_allclose(after, before, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize(("o", "groups"), [(32, 1), (16, 1), (20, 1), (4, 1), (64, 2)], ids=str)
def test_kernels_the_tile_reads_whole_stay_hwio(o: int, groups: int) -> None:
    module = run(nhwc_conv(4, 4, o, 1, groups=groups), RelayAlterOpLayoutPass())
    assert kernel_layouts(module) == ["HWIO"]


def test_channel_block_is_the_schedules_tile() -> None:
    channels = (64, 256, 48, 24, 32, 16, 8, 20, 4, 1000)
    assert [nhwc_channel_block(o) for o in channels] == [
        32, 32, 16, 8, None, None, None, None, None, 8
    ]  # fmt: skip
    # Packing pads what would be half-vector blocks to whole 32-channel ones.
    assert [channel_blocking(o) for o in channels] == [
        (32, 64), (32, 256), (16, 48), (8, 24), None, None, None, None, None, (32, 1024)
    ]  # fmt: skip


def test_layout_and_scale_passes_leave_a_packed_conv2d_alone() -> None:
    # A blocked kernel has no single channel axis: relay-convert-layout keeps the conv2d's
    # layouts (transforming its data back) and relay-fold-scale-axis does not fold into it.
    module = run(nhwc_conv(5, 3, 64, 3, scale=True), RelayAlterOpLayoutPass())
    x = rand(1, 5, 5, 3)
    (before,) = evaluate(module, [x])
    run(module, RelayFoldScaleAxisPass(), RelayConvertLayoutPass("NCHW"))
    assert kernel_layouts(module) == ["OHWI32o"]
    assert any(isinstance(op, relay.MultiplyOp) for op in module.walk())
    (after,) = evaluate(module, [x])
    np.testing.assert_allclose(after, before, rtol=1e-5, atol=1e-5)


def test_relay_build_packs_and_matches_the_interpreter() -> None:
    # An NCHW model: relay.build converts it to NHWC, packs the 64-channel kernel (a 5-d
    # constant reaches the kernel) and computes what the interpreter does.
    x = tvm_relay.var("x", shape=(1, 4, 9, 9))
    w = tvm_relay.var("w", shape=(64, 4, 3, 3))
    b = tvm_relay.var("b", shape=(64,))
    y = tvm_relay.nn.relu(tvm_relay.nn.bias_add(tvm_relay.nn.conv2d(x, w, padding=(1, 1)), b))
    mod = tvm.IRModule.from_expr(tvm_relay.Function([x, w, b], y))
    params = {"w": rand(64, 4, 3, 3), "b": rand(64)}
    _, kernels = lower_for_build(mod, params)
    shapes = kernel_argument_shapes(kernels)
    assert (2, 3, 3, 4, 32) in shapes
    data = rand(1, 4, 9, 9)
    (got,) = run_factory(tvm_relay.build(mod, "llvm", params=params), x=data)
    (expected,) = interpret(mod, {}, data, params["w"], params["b"])
    np.testing.assert_allclose(got, expected, rtol=1e-4, atol=1e-4)


def test_tvm_alter_op_layout_after_convert_layout() -> None:
    x = tvm_relay.var("x", shape=(1, 3, 8, 8))
    y = tvm_relay.nn.relu(tvm_relay.nn.conv2d(x, tvm_relay.const(rand(64, 3, 3, 3)), padding=1))
    mod = tvm.IRModule.from_expr(tvm_relay.Function([x], y))
    with tvm.transform.PassContext(opt_level=3):
        altered = tvm.transform.Sequential(
            [
                tvm_relay.transform.ConvertLayout({"nn.conv2d": ["NHWC", "default"]}),
                tvm_relay.transform.AlterOpLayout(),
            ]
        )(mod)
    assert 'kernel_layout = "OHWI32o"' in str(altered)
    data = rand(1, 3, 8, 8)
    np.testing.assert_allclose(
        interpret(altered, {}, data)[0], interpret(mod, {}, data)[0], rtol=1e-4, atol=1e-5
    )
