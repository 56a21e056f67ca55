"""relay-infer-types: result types recomputed in program order, signatures following."""

from __future__ import annotations

import numpy as np
import pytest
from xdsl.dialects import func
from xdsl.dialects.builtin import FunctionType, ModuleOp, TensorType, f32
from xdsl.rewriter import Rewriter

from xtvm.dialects import relay
from xtvm.dialects.registry import default_context
from xtvm.ir.diagnostics import DiagnosticError
from xtvm.ir.printer import print_ir
from xtvm.ir.verify import verify_diagnostics
from xtvm.passes.relay_infer_types import RelayInferTypesPass
from xtvm.runtime.relay_interpreter import evaluate

CTX = default_context()


def infer(module: ModuleOp) -> ModuleOp:
    RelayInferTypesPass().apply(CTX.xdsl_context, module)
    assert verify_diagnostics(module, {}) == [], print_ir(module, CTX)
    return module


def function(module: ModuleOp, name: str) -> func.FuncOp:
    return next(
        f for f in module.body.block.ops if isinstance(f, func.FuncOp) and f.sym_name.data == name
    )


CNN = """
func.func @main(%x: tensor<1x3x8x8xf32>) -> tensor<1x10xf32> {
  %w = relay.param["conv.weight"] : tensor<4x3x3x3xf32>
  %c = relay.nn.conv2d %x, %w {padding = array<i64: 1, 1, 1, 1>}
      : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x8x8xf32>
  %r = relay.nn.relu %c : (tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
  %p = relay.nn.max_pool2d %r {pool_size = array<i64: 2, 2>, strides = array<i64: 2, 2>}
      : (tensor<1x4x8x8xf32>) -> tensor<1x4x4x4xf32>
  %f = relay.nn.batch_flatten %p : (tensor<1x4x4x4xf32>) -> tensor<1x64xf32>
  %d = relay.param["fc.weight"] : tensor<10x64xf32>
  %y = relay.nn.dense %f, %d : (tensor<1x64xf32>, tensor<10x64xf32>) -> tensor<1x10xf32>
  func.return %y : tensor<1x10xf32>
}
"""


def test_valid_module_is_unchanged() -> None:
    module = CTX.parse(CNN)
    before = print_ir(module, CTX)
    assert print_ir(infer(module), CTX) == before


@pytest.mark.parametrize("batch", [2, 5])
def test_new_batch_size_flows_to_the_result(batch: int) -> None:
    module = CTX.parse(CNN)
    main = function(module, "main")
    # Retype the input as a user would to batch the model; the body is now stale.
    new_input = TensorType(f32, [batch, 3, 8, 8])
    Rewriter.replace_value_with_new_type(main.args[0], new_input)
    main.function_type = FunctionType.from_lists([new_input], main.function_type.outputs.data)
    assert verify_diagnostics(module, {}) != []
    infer(module)
    assert main.function_type.outputs.data == (TensorType(f32, [batch, 10]),)
    rng = np.random.default_rng(batch)
    params = {
        "conv.weight": rng.standard_normal((4, 3, 3, 3)).astype(np.float32),
        "fc.weight": rng.standard_normal((10, 64)).astype(np.float32),
    }
    xs = rng.standard_normal((batch, 3, 8, 8)).astype(np.float32)
    (batched,) = evaluate(module, [xs], params=params)
    reference = CTX.parse(CNN)
    for i in range(batch):
        (one,) = evaluate(reference, [xs[i : i + 1]], params=params)
        np.testing.assert_allclose(batched[i : i + 1], one, rtol=1e-5, atol=1e-5)


def test_callee_signature_reaches_calls_and_callers() -> None:
    text = """
func.func @main(%x: tensor<6xf32>) -> tensor<1xf32> {
  %c = func.call @helper(%x) : (tensor<6xf32>) -> tensor<1xf32>
  %n = relay.negative %c : (tensor<1xf32>) -> tensor<1xf32>
  func.return %n : tensor<1xf32>
}
func.func @helper(%x: tensor<6xf32>) -> tensor<1xf32> {
  %r = relay.reshape %x {newshape = array<i64: 2, 3>} : (tensor<6xf32>) -> tensor<1xf32>
  %s = relay.sum %r {axis = array<i64: 0>} : (tensor<1xf32>) -> tensor<1xf32>
  func.return %s : tensor<1xf32>
}
"""
    module = infer(CTX.parse(text))
    three = TensorType(f32, [3])
    assert function(module, "helper").function_type.outputs.data == (three,)
    assert function(module, "main").function_type.outputs.data == (three,)
    x = np.arange(6, dtype=np.float32)
    (got,) = evaluate(module, [x])
    np.testing.assert_array_equal(got, -x.reshape(2, 3).sum(axis=0))


def test_tuple_types_are_inferred() -> None:
    text = """
func.func @main(%x: tensor<6xi32>) -> tuple<tensor<2xi32>, tensor<2xi32>> {
  %t = relay.split %x {indices_or_sections = 2 : i64}
      : (tensor<6xi32>) -> tuple<tensor<2xi32>, tensor<2xi32>>
  func.return %t : tuple<tensor<2xi32>, tensor<2xi32>>
}
"""
    module = infer(CTX.parse(text))
    x = np.arange(6, dtype=np.int32)
    got = evaluate(module, [x])
    for g, e in zip(got, np.split(x, 2), strict=True):
        np.testing.assert_array_equal(g, e)


def test_failed_inference_is_located_at_the_op() -> None:
    text = """
func.func @main(%a: tensor<2x3xf32>, %b: tensor<4xf32>) -> tensor<2x3xf32> {
  %e = relay.exp %a : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %c = relay.add %e, %b : (tensor<2x3xf32>, tensor<4xf32>) -> tensor<2x3xf32>
  func.return %c : tensor<2x3xf32>
}
"""
    module = CTX.parse(text, "bad.mlir")
    with pytest.raises(DiagnosticError) as info:
        RelayInferTypesPass().apply(CTX.xdsl_context, module)
    (diagnostic,) = info.value.diagnostics
    assert diagnostic.message == "'relay.add' op operand shapes do not broadcast: 2x3 vs 4"
    assert diagnostic.location is not None
    location = diagnostic.location
    assert (location.filename, location.line, location.column) == ("bad.mlir", 4, 8)


def test_built_ops_are_reinferred_after_an_operand_changes() -> None:
    x_type = TensorType(f32, [4])
    f = func.FuncOp("main", ([x_type], [x_type]))
    exp = relay.ExpOp(f.args[0])
    tanh = relay.TanhOp(exp)
    f.body.block.add_ops([exp, tanh, func.ReturnOp(tanh)])
    module = ModuleOp([f])
    wider = TensorType(f32, [2, 4])
    Rewriter.replace_value_with_new_type(f.args[0], wider)
    f.function_type = FunctionType.from_lists([wider], [x_type])
    infer(module)
    assert tanh.result.type == wider
    assert f.function_type.outputs.data == (wider,)
