"""relay-dce: unused relay ops erased transitively; values and other dialects untouched."""

from __future__ import annotations

import numpy as np
from xdsl.dialects.builtin import ModuleOp

from xtvm.dialects import relay
from xtvm.dialects.registry import default_context
from xtvm.ir.printer import print_ir
from xtvm.ir.verify import verify_diagnostics
from xtvm.passes.relay_dce import RelayDcePass
from xtvm.runtime.relay_interpreter import evaluate

CTX = default_context()


def dce(module: ModuleOp) -> ModuleOp:
    RelayDcePass().apply(CTX.xdsl_context, module)
    assert verify_diagnostics(module, {}) == [], print_ir(module, CTX)
    return module


def op_names(module: ModuleOp) -> list[str]:
    return [op.name for op in module.walk() if isinstance(op, relay.RelayOp)]


def test_unused_chains_go_and_values_stay() -> None:
    text = """
func.func @main(%x: tensor<2x3xf32>, %y: tensor<3xf32>) -> tensor<2x3xf32> {
  %w = relay.param["unused.weight"] : tensor<3xf32>
  %dead1 = relay.multiply %x, %w : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %dead2 = relay.sum %dead1 {axis = array<i64: 1>} : (tensor<2x3xf32>) -> tensor<2xf32>
  %a = relay.add %x, %y : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %t = relay.split %a {indices_or_sections = 3 : i64, axis = 1 : i64}
      : (tensor<2x3xf32>) -> tuple<tensor<2x1xf32>, tensor<2x1xf32>, tensor<2x1xf32>>
  %unused_field = relay.tuple_get_item %t[2]
      : (tuple<tensor<2x1xf32>, tensor<2x1xf32>, tensor<2x1xf32>>) -> tensor<2x1xf32>
  %s = relay.nn.softmax %a : (tensor<2x3xf32>) -> tensor<2x3xf32>
  func.return %s : tensor<2x3xf32>
}
"""
    module = CTX.parse(text)
    rng = np.random.default_rng(0)
    x = rng.standard_normal((2, 3)).astype(np.float32)
    y = rng.standard_normal(3).astype(np.float32)
    w = rng.standard_normal(3).astype(np.float32)
    (expected,) = evaluate(module, [x, y], params={"unused.weight": w})
    dce(module)
    (got,) = evaluate(module, [x, y])  # the dead param is no longer needed
    np.testing.assert_array_equal(got, expected)
    assert op_names(module) == ["relay.add", "relay.nn.softmax"]


def test_live_module_is_unchanged() -> None:
    text = """
func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  %c = relay.const dense<1.0> : tensor<4xf32>
  %a = relay.add %x, %c : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  func.return %a : tensor<4xf32>
}
"""
    module = CTX.parse(text)
    before = print_ir(module, CTX)
    assert print_ir(dce(module), CTX) == before


def test_other_dialects_and_functions_are_kept() -> None:
    text = """
func.func private @unused(%x: tensor<4xf32>) -> tensor<4xf32> {
  %c = arith.constant 0 : i32
  func.return %x : tensor<4xf32>
}
"""
    module = dce(CTX.parse(text))
    assert [op.name for op in module.walk()] == [
        "builtin.module",
        "func.func",
        "arith.constant",
        "func.return",
    ]
