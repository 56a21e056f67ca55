"""relay-cse: identical relay ops merged, values unchanged, other dialects left alone."""

from __future__ import annotations

import numpy as np
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp, TensorType, f32

from xtvm.dialects import relay
from xtvm.dialects.registry import default_context
from xtvm.ir.printer import print_ir
from xtvm.ir.verify import verify_diagnostics
from xtvm.passes.relay_cse import RelayCsePass
from xtvm.runtime.relay_interpreter import evaluate
from xtvm.testing.passes import count

CTX = default_context()


def cse(module: ModuleOp) -> ModuleOp:
    RelayCsePass().apply(CTX.xdsl_context, module)
    assert verify_diagnostics(module, {}) == [], print_ir(module, CTX)
    return module


DUPLICATED = """
func.func @main(%x: tensor<2x4xf32>) -> tuple<tensor<2x2xf32>, tensor<2x4xf32>> {
  %c1 = relay.const dense<0.5> : tensor<4xf32>
  %c2 = relay.const dense<0.5> : tensor<4xf32>
  %c3 = relay.const dense<2.0> : tensor<4xf32>
  %w1 = relay.param["w"] : tensor<4xf32>
  %w2 = relay.param["w"] : tensor<4xf32>
  %a1 = relay.multiply %x, %c1 : (tensor<2x4xf32>, tensor<4xf32>) -> tensor<2x4xf32>
  %a2 = relay.multiply %x, %c2 : (tensor<2x4xf32>, tensor<4xf32>) -> tensor<2x4xf32>
  %a3 = relay.multiply %x, %c3 : (tensor<2x4xf32>, tensor<4xf32>) -> tensor<2x4xf32>
  %b1 = relay.add %a1, %w1 : (tensor<2x4xf32>, tensor<4xf32>) -> tensor<2x4xf32>
  %b2 = relay.add %a2, %w2 : (tensor<2x4xf32>, tensor<4xf32>) -> tensor<2x4xf32>
  %t1 = relay.split %b1 {indices_or_sections = 2 : i64, axis = 1 : i64}
      : (tensor<2x4xf32>) -> tuple<tensor<2x2xf32>, tensor<2x2xf32>>
  %t2 = relay.split %b2 {indices_or_sections = 2 : i64, axis = 1 : i64}
      : (tensor<2x4xf32>) -> tuple<tensor<2x2xf32>, tensor<2x2xf32>>
  %f1 = relay.tuple_get_item %t1[0] : (tuple<tensor<2x2xf32>, tensor<2x2xf32>>) -> tensor<2x2xf32>
  %f2 = relay.tuple_get_item %t2[0] : (tuple<tensor<2x2xf32>, tensor<2x2xf32>>) -> tensor<2x2xf32>
  %s = relay.subtract %f1, %f2 : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
  %r = relay.tuple %s, %a3
      : (tensor<2x2xf32>, tensor<2x4xf32>) -> tuple<tensor<2x2xf32>, tensor<2x4xf32>>
  func.return %r : tuple<tensor<2x2xf32>, tensor<2x4xf32>>
}
"""


def test_duplicates_merge_and_values_stay() -> None:
    module = CTX.parse(DUPLICATED)
    rng = np.random.default_rng(0)
    x = rng.standard_normal((2, 4)).astype(np.float32)
    params = {"w": rng.standard_normal(4).astype(np.float32)}
    expected = evaluate(module, [x], params=params)
    cse(module)
    got = evaluate(module, [x], params=params)
    for g, e in zip(got, expected, strict=True):
        np.testing.assert_array_equal(g, e)
    assert count(module, relay.ConstOp) == 2  # 0.5 and 2.0
    assert count(module, relay.ParamOp) == 1
    assert count(module, relay.MultiplyOp) == 2  # by 0.5 and by 2.0
    assert count(module, relay.AddOp) == 1
    assert count(module, relay.SplitOp) == 1
    assert count(module, relay.TupleGetItemOp) == 1
    subtract = next(op for op in module.walk() if isinstance(op, relay.SubtractOp))
    assert subtract.lhs is subtract.rhs


def test_unique_ops_are_unchanged() -> None:
    module = CTX.parse(DUPLICATED)
    cse(module)
    once = print_ir(module, CTX)
    assert print_ir(cse(module), CTX) == once


def test_functions_do_not_share_values() -> None:
    x_type = TensorType(f32, [3])
    functions = []
    for name in ("first", "second"):
        f = func.FuncOp(name, ([x_type], [x_type]))
        c = relay.ConstOp(np.ones(3, np.float32))
        add = relay.AddOp(f.args[0], c)
        f.body.block.add_ops([c, add, func.ReturnOp(add)])
        functions.append(f)
    module = cse(ModuleOp(functions))
    assert count(module, relay.ConstOp) == 2
    for f in functions:
        add = next(op for op in f.walk() if isinstance(op, relay.AddOp))
        assert add.rhs.owner.parent_op() is f  # type: ignore[union-attr]


def test_other_dialects_are_not_merged() -> None:
    text = """
func.func @main() -> (i32, i32) {
  %a = arith.constant 1 : i32
  %b = arith.constant 1 : i32
  func.return %a, %b : i32, i32
}
"""
    module = CTX.parse(text)
    before = print_ir(module, CTX)
    assert print_ir(cse(module), CTX) == before
