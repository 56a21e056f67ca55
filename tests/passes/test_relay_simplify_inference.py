"""relay-simplify-inference: batch_norm unpacked and dropout removed, values unchanged."""

from __future__ import annotations

import numpy as np
import pytest
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp, TensorType, f32, f64, i32
from xdsl.ir import Attribute

from xtvm.dialects import relay
from xtvm.dialects.registry import default_context
from xtvm.ir.diagnostics import DiagnosticError
from xtvm.passes.relay_simplify_inference import RelaySimplifyInferencePass
from xtvm.runtime.relay_interpreter import evaluate
from xtvm.testing.passes import count, run

CTX = default_context()


def batch_norm_module(
    shape: tuple[int, ...],
    axis: int,
    elem: Attribute = f32,
    fields: tuple[int, ...] = (0,),
    **props: object,
) -> ModuleOp:
    """@main(x, gamma, beta, mean, var) returning the given fields of one batch_norm."""
    size = shape[axis]
    vector = TensorType(elem, [size])
    inputs = [TensorType(elem, shape), *[vector] * 4]
    outputs = [(inputs[0], vector, vector)[i] for i in fields]
    f = func.FuncOp("main", (inputs, outputs))
    bn = relay.BatchNormOp(*f.args, axis=axis, **props)  # type: ignore[arg-type]
    items = [relay.TupleGetItemOp(bn, i) for i in fields]
    f.body.block.add_ops([bn, *items, func.ReturnOp(*items)])
    return ModuleOp([f])


def random_inputs(shape: tuple[int, ...], axis: int, seed: int) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    size = shape[axis]
    x = rng.standard_normal(shape).astype(np.float32)
    gamma, beta, mean = (rng.standard_normal(size).astype(np.float32) for _ in range(3))
    var = rng.uniform(0.1, 2.0, size).astype(np.float32)
    return [x, gamma, beta, mean, var]


@pytest.mark.parametrize(
    ("shape", "axis"),
    [((2, 3, 5, 5), 1), ((2, 5, 5, 3), 3), ((2, 5, 5, 3), -1), ((4, 2, 3), 0), ((7,), 0)],
)
@pytest.mark.parametrize(("center", "scale"), [(True, True), (False, True), (True, False)])
def test_batch_norm_unpacks_to_the_same_values(
    shape: tuple[int, ...], axis: int, center: bool, scale: bool
) -> None:
    module = batch_norm_module(shape, axis, fields=(0, 1, 2), center=center, scale=scale)
    inputs = random_inputs(shape, axis, seed=len(shape) + axis)
    expected = evaluate(module, inputs)
    run(module, RelaySimplifyInferencePass())
    got = evaluate(module, inputs)
    for g, e in zip(got, expected, strict=True):
        np.testing.assert_allclose(g, e, rtol=1e-5, atol=1e-5)
    assert count(module, relay.BatchNormOp) == 0
    assert count(module, relay.TupleGetItemOp) == 0
    trailing = len(shape) - 1 - axis % len(shape)
    assert count(module, relay.ExpandDimsOp) == (2 if trailing else 0)
    # Only one multiply and one add read the data.
    data = module.body.block.first_op.args[0]  # type: ignore[union-attr]
    assert [type(u.operation) for u in data.uses] == [relay.MultiplyOp]


def test_batch_norm_used_as_a_whole_tuple_becomes_a_relay_tuple() -> None:
    text = """
func.func @main(
    %x: tensor<4x2xf32>,
    %g: tensor<2xf32>,
    %b: tensor<2xf32>,
    %m: tensor<2xf32>,
    %v: tensor<2xf32>
) -> tuple<tensor<4x2xf32>, tensor<2xf32>, tensor<2xf32>> {
  %t = relay.nn.batch_norm %x, %g, %b, %m, %v {axis = 1 : i64}
      : (tensor<4x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>)
      -> tuple<tensor<4x2xf32>, tensor<2xf32>, tensor<2xf32>>
  func.return %t : tuple<tensor<4x2xf32>, tensor<2xf32>, tensor<2xf32>>
}
"""
    module = CTX.parse(text)
    inputs = random_inputs((4, 2), 1, seed=7)
    expected = evaluate(module, inputs)
    run(module, RelaySimplifyInferencePass())
    got = evaluate(module, inputs)
    for g, e in zip(got, expected, strict=True):
        np.testing.assert_allclose(g, e, rtol=1e-5, atol=1e-5)
    assert count(module, relay.BatchNormOp) == 0
    assert count(module, relay.TupleOp) == 1


def test_float64_batch_norm_keeps_its_precision() -> None:
    module = batch_norm_module((3, 4), 1, elem=f64, epsilon=1e-7)
    inputs = [a.astype(np.float64) for a in random_inputs((3, 4), 1, seed=3)]
    (expected,) = evaluate(module, inputs)
    run(module, RelaySimplifyInferencePass())
    (got,) = evaluate(module, inputs)
    np.testing.assert_allclose(got, expected, rtol=1e-12, atol=1e-12)


def test_dropout_is_removed() -> None:
    text = """
func.func @main(%x: tensor<3x4xf32>) -> tensor<3x4xf32> {
  %d = relay.nn.dropout %x {rate = 0.5 : f64} : (tensor<3x4xf32>) -> tensor<3x4xf32>
  %r = relay.nn.relu %d : (tensor<3x4xf32>) -> tensor<3x4xf32>
  %e = relay.nn.dropout %r : (tensor<3x4xf32>) -> tensor<3x4xf32>
  func.return %e : tensor<3x4xf32>
}
"""
    module = CTX.parse(text)
    x = np.random.default_rng(4).standard_normal((3, 4)).astype(np.float32)
    (expected,) = evaluate(module, [x])
    run(module, RelaySimplifyInferencePass())
    (got,) = evaluate(module, [x])
    np.testing.assert_array_equal(got, expected)
    assert count(module, relay.DropoutOp) == 0
    assert count(module, relay.RelayOp) == 1


@pytest.mark.parametrize(
    "shape, axis, center, scale",
    [((2, 5), -1, True, True), ((1, 3, 2, 2), 1, False, True), ((4, 3, 2), 0, True, False)],
)
def test_layer_norm_unpacks_to_the_same_values(
    shape: tuple[int, ...], axis: int, center: bool, scale: bool
) -> None:
    n, t = shape[axis], tensor(shape)
    text = f"""
func.func @main(%x: {t}, %g: tensor<{n}xf32>, %b: tensor<{n}xf32>) -> {t} {{
  %y = relay.nn.layer_norm %x, %g, %b {{axis = {axis} : i64, center = {str(center).lower()},
    scale = {str(scale).lower()}}} : ({t}, tensor<{n}xf32>, tensor<{n}xf32>) -> {t}
  func.return %y : {t}
}}
"""
    module = CTX.parse(text)
    rng = np.random.default_rng(5)
    x, g, b = (rng.standard_normal(s).astype(np.float32) for s in (shape, (n,), (n,)))
    (expected,) = evaluate(module, [x, g, b])
    run(module, RelaySimplifyInferencePass())
    assert count(module, relay.LayerNormOp) == 0
    (got,) = evaluate(module, [x, g, b])
    np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-5)


def tensor(shape: tuple[int, ...]) -> str:
    return f"tensor<{'x'.join(map(str, shape))}xf32>"


def test_integer_batch_norm_is_a_located_error() -> None:
    module = batch_norm_module((2, 3), 1, elem=i32)
    with pytest.raises(DiagnosticError) as info:
        run(module, RelaySimplifyInferencePass())
    (diagnostic,) = info.value.diagnostics
    assert diagnostic.message == (
        "'relay.nn.batch_norm' op cannot be simplified: element type i32 is not a float type"
    )
