"""relay-fold-scale-axis: scales move into weights and the values stay the same."""

from __future__ import annotations

import numpy as np
import pytest
from xdsl.dialects.builtin import ModuleOp

from xtvm.dialects import relay
from xtvm.dialects.registry import default_context
from xtvm.ir.printer import print_ir
from xtvm.ir.verify import verify_diagnostics
from xtvm.passes.relay_fold_constant import RelayFoldConstantPass
from xtvm.passes.relay_fold_scale_axis import RelayFoldScaleAxisPass
from xtvm.runtime.relay_interpreter import evaluate
from xtvm.testing.passes import count

CTX = default_context()
RNG = np.random.default_rng(0)


def const(array: np.ndarray) -> str:
    """A `relay.const` line's value and type for `array`."""
    attr = relay.dense_from_numpy(array.astype(np.float32))
    return f"{attr}"


def tensor(shape: tuple[int, ...]) -> str:
    return "tensor<" + "x".join(map(str, shape)) + "xf32>"


def fold_and_compare(text: str, params: dict[str, np.ndarray] | None = None) -> ModuleOp:
    """Fold scales in `text` and check that @main computes what it did on random inputs."""
    module = CTX.parse(text)
    main = module.body.block.first_op
    inputs = [
        RNG.standard_normal(t.get_shape()).astype(np.float32)  # type: ignore[union-attr]
        for t in main.function_type.inputs.data  # type: ignore[union-attr]
    ]
    (before,) = evaluate(module, inputs, params=params)
    RelayFoldScaleAxisPass().apply(CTX.xdsl_context, module)
    assert verify_diagnostics(module, {}) == [], print_ir(module, CTX)
    (after,) = evaluate(module, inputs, params=params)
    np.testing.assert_allclose(after, before, rtol=1e-5, atol=1e-5)
    return module


def conv_program(layout: str, scale_shape: tuple[int, ...], scale: np.ndarray, chain: str) -> str:
    """conv2d with a constant weight and bias, `chain` ops after it, then a multiply by `scale`."""
    nchw = layout == "NCHW"
    data, out = ((1, 3, 6, 6), (1, 4, 6, 6)) if nchw else ((1, 6, 6, 3), (1, 6, 6, 4))
    wshape = (4, 3, 3, 3) if nchw else (3, 3, 3, 4)
    weight = RNG.standard_normal(wshape).astype(np.float32)
    bias = RNG.standard_normal(4).astype(np.float32)
    layouts = "" if nchw else ', data_layout = "NHWC", kernel_layout = "HWIO"'
    t = tensor(out)
    lines = [
        f"func.func @main(%x: {tensor(data)}) -> {t} {{",
        f"  %w = relay.const {const(weight)}",
        f"  %b = relay.const {const(bias)}",
        f"  %s = relay.const {const(scale.reshape(scale_shape))}",
        f"  %v0 = relay.nn.conv2d %x, %w {{padding = array<i64: 1, 1, 1, 1>{layouts}}}"
        f" : ({tensor(data)}, {tensor(wshape)}) -> {t}",
    ]
    axis = 1 if nchw else 3
    for i, op in enumerate(chain.split()):
        if op == "bias_add":
            rhs = f"relay.nn.bias_add %v{i}, %b {{axis = {axis} : i64}} : ({t}, tensor<4xf32>)"
        elif op == "relu":
            rhs = f"relay.nn.relu %v{i} : ({t})"
        else:
            rhs = f"relay.{op} %v{i}, %s : ({t}, {tensor(scale_shape)})"
        lines.append(f"  %v{i + 1} = {rhs} -> {t}")
    n = len(chain.split())
    lines.append(f"  %m = relay.multiply %v{n}, %s : ({t}, {tensor(scale_shape)}) -> {t}")
    lines += [f"  func.return %m : {t}", "}"]
    return "\n".join(lines)


POSITIVE = np.array([0.5, 2.0, 1.5, 3.0], np.float32)
MIXED = np.array([0.5, -2.0, 1.5, -3.0], np.float32)


@pytest.mark.parametrize("layout", ["NCHW", "NHWC"])
@pytest.mark.parametrize("chain", ["", "bias_add", "bias_add relu", "relu", "add", "subtract relu"])
def test_backward_fold_removes_the_multiply(layout: str, chain: str) -> None:
    scale_shape = (4, 1, 1) if layout == "NCHW" else (4,)
    module = fold_and_compare(conv_program(layout, scale_shape, POSITIVE, chain))
    assert count(module, relay.MultiplyOp) == 0, print_ir(module, CTX)


def test_backward_fold_with_negative_scale_stops_at_relu() -> None:
    module = fold_and_compare(conv_program("NCHW", (4, 1, 1), MIXED, "bias_add relu"))
    assert count(module, relay.MultiplyOp) == 1
    module = fold_and_compare(conv_program("NCHW", (4, 1, 1), MIXED, "bias_add"))
    assert count(module, relay.MultiplyOp) == 0


def test_param_weight_gets_a_scaling_multiply() -> None:
    text = """
func.func @main(%x: tensor<2x5xf32>) -> tensor<2x3xf32> {
  %w = relay.param["w"] : tensor<3x5xf32>
  %s = relay.const dense<[[2.0, -1.0, 0.25]]> : tensor<1x3xf32>
  %d = relay.nn.dense %x, %w : (tensor<2x5xf32>, tensor<3x5xf32>) -> tensor<2x3xf32>
  %m = relay.multiply %d, %s : (tensor<2x3xf32>, tensor<1x3xf32>) -> tensor<2x3xf32>
  func.return %m : tensor<2x3xf32>
}
"""
    params = {"w": RNG.standard_normal((3, 5)).astype(np.float32)}
    module = fold_and_compare(text, params)
    (multiply,) = [op for op in module.walk() if isinstance(op, relay.MultiplyOp)]
    assert isinstance(multiply.lhs.owner, relay.ParamOp)
    assert [use.operation.name for use in multiply.result.uses] == ["relay.nn.dense"]


def test_forward_fold_into_conv2d_and_dense() -> None:
    w = const(RNG.standard_normal((4, 3, 3, 3)).astype(np.float32))
    s = const(np.array([0.5, 2.0, 4.0], np.float32).reshape(3, 1, 1))
    dw = const(RNG.standard_normal((2, 4 * 16)).astype(np.float32))
    ds = const(np.array([3.0] * 32 + [0.25] * 32, np.float32))
    text = f"""
func.func @main(%x: tensor<1x3x4x4xf32>) -> tensor<1x2xf32> {{
  %w = relay.const {w}
  %s = relay.const {s}
  %dw = relay.const {dw}
  %ds = relay.const {ds}
  %m = relay.multiply %x, %s : (tensor<1x3x4x4xf32>, tensor<3x1x1xf32>) -> tensor<1x3x4x4xf32>
  %r = relay.nn.relu %m : (tensor<1x3x4x4xf32>) -> tensor<1x3x4x4xf32>
  %c = relay.nn.conv2d %r, %w {{padding = array<i64: 1, 1, 1, 1>}}
    : (tensor<1x3x4x4xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x4x4xf32>
  %f = relay.nn.batch_flatten %c : (tensor<1x4x4x4xf32>) -> tensor<1x64xf32>
  %fm = relay.multiply %ds, %f : (tensor<64xf32>, tensor<1x64xf32>) -> tensor<1x64xf32>
  %d = relay.nn.dense %fm, %dw : (tensor<1x64xf32>, tensor<2x64xf32>) -> tensor<1x2xf32>
  func.return %d : tensor<1x2xf32>
}}
"""
    module = fold_and_compare(text)
    assert count(module, relay.MultiplyOp) == 0, print_ir(module, CTX)


def test_forward_fold_needs_groups_one_and_a_positive_scale_through_relu() -> None:
    text = """
func.func @main(%x: tensor<1x2x4x4xf32>, %w: tensor<2x1x1x1xf32>, %v: tensor<1x2x1x1xf32>)
    -> tensor<1x1x4x4xf32> {
  %s = relay.const dense<[[[2.0]], [[-1.0]]]> : tensor<2x1x1xf32>
  %m = relay.multiply %x, %s : (tensor<1x2x4x4xf32>, tensor<2x1x1xf32>) -> tensor<1x2x4x4xf32>
  %c = relay.nn.conv2d %m, %w {groups = 2 : i64}
    : (tensor<1x2x4x4xf32>, tensor<2x1x1x1xf32>) -> tensor<1x2x4x4xf32>
  %r = relay.nn.relu %c : (tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  %m2 = relay.multiply %r, %s : (tensor<1x2x4x4xf32>, tensor<2x1x1xf32>) -> tensor<1x2x4x4xf32>
  %r2 = relay.nn.relu %m2 : (tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  %d = relay.nn.conv2d %r2, %v : (tensor<1x2x4x4xf32>, tensor<1x2x1x1xf32>) -> tensor<1x1x4x4xf32>
  func.return %d : tensor<1x1x4x4xf32>
}
"""
    module = fold_and_compare(text)
    assert count(module, relay.MultiplyOp) == 2, print_ir(module, CTX)


def test_folded_constants_fold_further() -> None:
    module = fold_and_compare(conv_program("NCHW", (4, 1, 1), POSITIVE, "bias_add relu"))
    RelayFoldConstantPass().apply(CTX.xdsl_context, module)
    assert count(module, relay.ConstOp) == 2  # the scaled weight and the scaled bias
