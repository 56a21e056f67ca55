"""relay-fold-constant: values agree with the interpreter, and constant subgraphs become consts."""

from __future__ import annotations

import numpy as np
import pytest
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp, TensorType, f32

from xtvm.dialects import relay
from xtvm.dialects.registry import default_context
from xtvm.ir.diagnostics import DiagnosticError
from xtvm.ir.printer import print_ir
from xtvm.passes.relay_fold_constant import RelayFoldConstantPass
from xtvm.passes.relay_simplify_inference import RelaySimplifyInferencePass
from xtvm.runtime.relay_interpreter import RULES, RelayInterpreterError, evaluate
from xtvm.testing.passes import count, run

CTX = default_context()


def folded_everything_foldable(module: ModuleOp) -> bool:
    """No relay op other than a tuple reads only constants."""
    for op in module.walk():
        if not isinstance(op, relay.RelayOp) or isinstance(op, relay.TupleOp) or not op.operands:
            continue
        if all(isinstance(v.owner, relay.ConstOp) for v in op.operands):
            return False
    return True


MIXED = """
func.func @main(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %a = relay.const dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf32>
  %b = relay.const dense<[0.5, 0.25, 2.0]> : tensor<3xf32>
  %e = relay.exp %b : (tensor<3xf32>) -> tensor<3xf32>
  %m = relay.multiply %a, %e : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %t = relay.transpose %m : (tensor<2x3xf32>) -> tensor<3x2xf32>
  %r = relay.reshape %t {newshape = array<i64: 2, 3>} : (tensor<3x2xf32>) -> tensor<2x3xf32>
  %s = relay.nn.softmax %r : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %y = relay.add %x, %s : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %z = relay.tanh %y : (tensor<2x3xf32>) -> tensor<2x3xf32>
  func.return %z : tensor<2x3xf32>
}
"""


def test_constant_subgraph_folds_to_one_const_with_the_same_values() -> None:
    x = np.random.default_rng(0).standard_normal((2, 3)).astype(np.float32)
    module = CTX.parse(MIXED)
    (expected,) = evaluate(module, [x])
    run(module, RelayFoldConstantPass())
    (got,) = evaluate(module, [x])
    np.testing.assert_allclose(got, expected, rtol=1e-6, atol=1e-6)
    assert count(module, relay.ConstOp) == 1
    assert count(module, relay.RelayOp) == 3  # const, add, tanh
    assert folded_everything_foldable(module)


def test_no_constant_operands_leaves_the_module_unchanged() -> None:
    text = """
func.func @main(%x: tensor<4xf32>, %y: tensor<4xf32>) -> tensor<4xf32> {
  %s = relay.add %x, %y : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %e = relay.exp %s : (tensor<4xf32>) -> tensor<4xf32>
  func.return %e : tensor<4xf32>
}
"""
    module = CTX.parse(text)
    before = print_ir(module, CTX)
    assert print_ir(run(module, RelayFoldConstantPass()), CTX) == before


def test_params_are_not_constants() -> None:
    text = """
func.func @main(%x: tensor<3xf32>) -> tensor<3xf32> {
  %w = relay.param["w"] : tensor<3xf32>
  %c = relay.const dense<2.0> : tensor<3xf32>
  %s = relay.multiply %w, %c : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  %y = relay.add %x, %s : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  func.return %y : tensor<3xf32>
}
"""
    rng = np.random.default_rng(1)
    x, w = (rng.standard_normal(3).astype(np.float32) for _ in range(2))
    module = CTX.parse(text)
    (expected,) = evaluate(module, [x], params={"w": w})
    run(module, RelayFoldConstantPass())
    (got,) = evaluate(module, [x], params={"w": w})
    np.testing.assert_allclose(got, expected)
    assert count(module, relay.MultiplyOp) == 1
    assert count(module, relay.ParamOp) == 1


@pytest.mark.parametrize(("limit", "folded"), [(6, True), (5, False)])
def test_max_elements_bounds_the_constants_materialised(limit: int, folded: bool) -> None:
    text = """
func.func @main() -> tensor<2x3xi32> {
  %a = relay.const dense<[1, 2, 3]> : tensor<3xi32>
  %b = relay.broadcast_to %a {shape = array<i64: 2, 3>} : (tensor<3xi32>) -> tensor<2x3xi32>
  func.return %b : tensor<2x3xi32>
}
"""
    module = CTX.parse(text)
    (expected,) = evaluate(module, [])
    run(module, RelayFoldConstantPass(max_elements=limit))
    (got,) = evaluate(module, [])
    np.testing.assert_array_equal(got, expected)
    assert count(module, relay.BroadcastToOp) == (0 if folded else 1)


def test_tuple_results_fold_to_a_tuple_of_constants() -> None:
    text = """
func.func @main() -> tuple<tensor<2xi32>, tensor<2xi32>> {
  %a = relay.const dense<[5, -7, 9, -11]> : tensor<4xi32>
  %b = relay.const dense<[2, 2, -4, 3]> : tensor<4xi32>
  %q = relay.divide %a, %b : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  %t = relay.split %q {indices_or_sections = 2 : i64}
      : (tensor<4xi32>) -> tuple<tensor<2xi32>, tensor<2xi32>>
  func.return %t : tuple<tensor<2xi32>, tensor<2xi32>>
}
"""
    module = CTX.parse(text)
    expected = evaluate(module, [])
    run(module, RelayFoldConstantPass())
    got = evaluate(module, [])
    for g, e in zip(got, expected, strict=True):
        np.testing.assert_array_equal(g, e)
    np.testing.assert_array_equal(np.concatenate(got), [2, -3, -2, -3])  # truncating division
    assert count(module, relay.ConstOp) == 2
    assert count(module, relay.TupleOp) == 1
    assert count(module, relay.SplitOp) == 0


def test_folds_batch_norm_statistics_after_simplify_inference() -> None:
    rng = np.random.default_rng(2)
    module = ModuleOp([])
    stats = [rng.uniform(0.5, 1.5, 4).astype(np.float32) for _ in range(4)]
    x_type = TensorType(f32, [2, 4, 3, 3])
    f = func.FuncOp("main", ([x_type], [x_type]))
    consts = [relay.ConstOp(s) for s in stats]
    bn = relay.BatchNormOp(f.args[0], *consts, axis=1, epsilon=1e-3)
    out = relay.TupleGetItemOp(bn, 0)
    f.body.block.add_ops([*consts, bn, out, func.ReturnOp(out)])
    module.body.block.add_op(f)
    x = rng.standard_normal((2, 4, 3, 3)).astype(np.float32)
    (expected,) = evaluate(module, [x])
    run(module, RelaySimplifyInferencePass(), RelayFoldConstantPass())
    (got,) = evaluate(module, [x])
    np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-5)
    # What is left is one multiply and one add on the data, by two folded constants.
    kinds = sorted(type(op).__name__ for op in module.walk() if isinstance(op, relay.RelayOp))
    assert kinds == ["AddOp", "ConstOp", "ConstOp", "MultiplyOp"]


def test_an_op_without_an_interpreter_rule_is_a_located_error(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    text = """
func.func @main() -> tensor<2xf32> {
  %a = relay.const dense<[1.0, 2.0]> : tensor<2xf32>
  %e = relay.erf %a : (tensor<2xf32>) -> tensor<2xf32>
  func.return %e : tensor<2xf32>
}
"""
    monkeypatch.delitem(RULES, relay.ErfOp)
    module = CTX.parse(text, "erf.mlir")
    with pytest.raises(DiagnosticError) as info:
        run(module, RelayFoldConstantPass())
    (diagnostic,) = info.value.diagnostics
    assert diagnostic.message == "'relay.erf' op has no interpreter rule to fold it with"
    assert diagnostic.location is not None
    assert (diagnostic.location.filename, diagnostic.location.line) == ("erf.mlir", 4)


def test_invalid_constants_leave_the_op_to_report_when_it_runs() -> None:
    """An index out of bounds is not folded away nor an error of the pass: the op stays, and
    running the module reports it."""
    module = CTX.parse(
        """
func.func @main() -> tensor<1x3xf32> {
  %d = relay.const dense<0.0> : tensor<1x3xf32>
  %i = relay.const dense<[[1]]> : tensor<1x1xi64>
  %u = relay.const dense<1.0> : tensor<1x3xf32>
  %s = relay.scatter_nd %d, %i, %u
    : (tensor<1x3xf32>, tensor<1x1xi64>, tensor<1x3xf32>) -> tensor<1x3xf32>
  func.return %s : tensor<1x3xf32>
}
"""
    )
    run(module, RelayFoldConstantPass())
    assert count(module, relay.ScatterNdOp) == 1
    with pytest.raises(RelayInterpreterError, match="out of bounds"):
        evaluate(module, [])
