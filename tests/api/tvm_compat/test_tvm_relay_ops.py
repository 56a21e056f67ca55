"""TVM 0.13's relay op tests (tests/python/relay/test_op_level1/3/4/2.py), adapted: run with
`import xtvm as tvm` on the CPU through the graph executor (the reference interpreter).

Differences from TVM's: no Relay VM and no float16 interpreter runs; the printer checks are
dropped (xtvm prints its own IR text); shapes are static, so TVM's `te.var` dims are numbers.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest
from xtvm.relay.testing import run_infer_type

import xtvm as tvm
from xtvm import relay


def run(func: relay.Function, *args: np.ndarray) -> np.ndarray:
    return relay.create_executor("graph", device=tvm.cpu(0)).evaluate(func)(*args).numpy()


UNARY: dict[str, tuple[Callable[..., relay.Expr], Callable[..., np.ndarray]]] = {
    "log": (relay.log, np.log),
    "exp": (relay.exp, np.exp),
    "sqrt": (relay.sqrt, np.sqrt),
    "rsqrt": (relay.rsqrt, lambda x: 1 / np.sqrt(x)),
    "sigmoid": (relay.sigmoid, lambda x: 1 / (1 + np.exp(-x))),
    "tanh": (relay.tanh, np.tanh),
    "relu": (relay.nn.relu, lambda x: np.maximum(x, 0)),
    "cos": (relay.cos, np.cos),
    "sin": (relay.sin, np.sin),
    "tan": (relay.tan, np.tan),
    "atan": (relay.atan, np.arctan),
    "ceil": (relay.ceil, np.ceil),
    "floor": (relay.floor, np.floor),
    "trunc": (relay.trunc, np.trunc),
    "round": (relay.round, np.round),
    "sign": (relay.sign, np.sign),
}


@pytest.mark.parametrize("name", list(UNARY))
def test_unary_op(name: str) -> None:
    relay_op, ref_func = UNARY[name]
    shape = (10, 4)
    tp = relay.TensorType(shape, dtype="float32")
    x = relay.var("x", type_annotation=tp)
    y = relay_op(x)
    assert run_infer_type(y).checked_type == tp
    data = np.random.rand(*shape).astype("float32")
    np.testing.assert_allclose(run(relay.Function([x], y), data), ref_func(data), rtol=1e-5)


BINARY = {
    "add": (relay.add, np.add),
    "subtract": (relay.subtract, np.subtract),
    "multiply": (relay.multiply, np.multiply),
    "divide": (relay.divide, np.divide),
    "floor_divide": (relay.floor_divide, np.floor_divide),
    "floor_mod": (relay.floor_mod, np.mod),
    "power": (relay.power, np.power),
    "maximum": (relay.maximum, np.maximum),
    "minimum": (relay.minimum, np.minimum),
}


@pytest.mark.parametrize("name", list(BINARY))
def test_binary_op(name: str) -> None:
    opfunc, ref = BINARY[name]
    x = relay.var("x", relay.TensorType((5, 10, 5)))
    y = relay.var("y", relay.TensorType((10, 1)))
    z = opfunc(x, y)
    assert run_infer_type(z).checked_type == relay.TensorType((5, 10, 5))
    x_data = np.random.rand(5, 10, 5).astype("float32") + 0.5
    y_data = np.random.rand(10, 1).astype("float32") + 0.5
    np.testing.assert_allclose(
        run(relay.Function([x, y], z), x_data, y_data), ref(x_data, y_data), rtol=1e-5
    )


COMPARISONS = [
    (relay.greater, np.greater),
    (relay.less, np.less),
    (relay.equal, np.equal),
    (relay.not_equal, np.not_equal),
    (relay.less_equal, np.less_equal),
    (relay.greater_equal, np.greater_equal),
]


@pytest.mark.parametrize("op, ref", COMPARISONS)
def test_cmp_type(op: Callable[..., relay.Expr], ref: Callable[..., np.ndarray]) -> None:
    x = relay.var("x", relay.TensorType((10, 4), "float32"))
    y = relay.var("y", relay.TensorType((5, 10, 1), "float32"))
    z = op(x, y)
    assert run_infer_type(z).checked_type == relay.TensorType((5, 10, 4), "bool")
    x_data = np.random.rand(10, 4).astype("float32")
    y_data = np.random.rand(5, 10, 1).astype("float32")
    np.testing.assert_array_equal(
        run(relay.Function([x, y], z), x_data, y_data), ref(x_data, y_data)
    )


@pytest.mark.parametrize(
    "op, ref",
    [(relay.right_shift, np.right_shift), (relay.left_shift, np.left_shift)],
)
def test_binary_int_broadcast(
    op: Callable[..., relay.Expr], ref: Callable[..., np.ndarray]
) -> None:
    x = relay.var("x", relay.TensorType((10, 4), "int32"))
    y = relay.var("y", relay.TensorType((5, 10, 1), "int32"))
    z = op(x, y)
    assert run_infer_type(z).checked_type == relay.TensorType((5, 10, 4), "int32")
    x_data = np.random.randint(1, 10000, size=(10, 4)).astype("int32")
    y_data = np.random.randint(1, 31, size=(5, 10, 1)).astype("int32")
    np.testing.assert_array_equal(
        run(relay.Function([x, y], z), x_data, y_data), ref(x_data, y_data)
    )


def test_logical_ops() -> None:
    x = relay.var("x", relay.TensorType((4,), "bool"))
    y = relay.var("y", relay.TensorType((4,), "bool"))
    a, b = np.array([1, 0, 1, 0], bool), np.array([1, 1, 0, 0], bool)
    f = relay.Function([x, y], relay.Tuple([relay.logical_and(x, y), relay.logical_or(x, y)]))
    res = relay.create_executor("graph").evaluate(f)(a, b)
    np.testing.assert_array_equal(res[0].numpy(), a & b)
    np.testing.assert_array_equal(res[1].numpy(), a | b)


@pytest.mark.parametrize("dtype", ["int32", "int64"])
def test_shape_of(dtype: str) -> None:
    x = relay.var("x", shape=(10, 5, 12))
    y = relay.shape_of(x, dtype)
    assert run_infer_type(y).checked_type == relay.TensorType((3,), dtype)
    got = run(relay.Function([x], y), np.random.rand(10, 5, 12).astype("float32"))
    np.testing.assert_array_equal(got, np.array([10, 5, 12], dtype))


def test_ndarray_size() -> None:
    x = relay.var("x", shape=(2, 3, 5))
    y = relay.ndarray_size(x, dtype="int64")
    assert run_infer_type(y).checked_type == relay.TensorType((), "int64")
    assert run(relay.Function([x], y), np.zeros((2, 3, 5), "float32")) == 30


@pytest.mark.parametrize("op, ref", [(relay.zeros, np.zeros), (relay.ones, np.ones)])
def test_zeros_ones(op: Callable[..., relay.Expr], ref: Callable[..., np.ndarray]) -> None:
    for shape in [(124, 50), (10,), 10]:
        y = op(shape=shape, dtype="float32")
        expected = (shape,) if isinstance(shape, int) else shape
        assert run_infer_type(y).checked_type == relay.TensorType(expected, "float32")
        np.testing.assert_array_equal(run(relay.Function([], y)), ref(shape, "float32"))


def test_full_and_full_like() -> None:
    x = relay.var("x", shape=(3, 4), dtype="float32")
    fill = relay.var("fill", shape=(), dtype="float32")
    f = relay.Function([x, fill], relay.full_like(x, fill) + relay.full(fill, (3, 4)))
    got = run(f, np.zeros((3, 4), "float32"), np.array(2.5, "float32"))
    np.testing.assert_array_equal(got, np.full((3, 4), 5.0, "float32"))


def test_pad_run_negative_widths() -> None:
    data = np.random.uniform(size=(4, 6, 3, 5)).astype("float32")
    x = relay.var("x", shape=data.shape)
    pads = ((-1, -1), (2, -2), (0, -2), (4, 4))
    y = relay.nn.pad(x, pads)
    ref = np.pad(data[1:-1, :-2, :-2, :], ((0, 0), (2, 0), (0, 0), (4, 4)), "constant")
    assert run_infer_type(y).checked_type == relay.TensorType(ref.shape)
    np.testing.assert_allclose(run(relay.Function([x], y), data), ref)


def test_pad_run_dynamic_pad_value() -> None:
    data = np.random.uniform(size=(4, 6, 3, 5)).astype("float32")
    x = relay.var("x", shape=data.shape)
    pad_value = relay.var("pad_value", "float32")
    y = relay.nn.pad(x, ((1, 1), (2, 2), (0, 0), (4, 4)), pad_value=pad_value)
    ref = np.pad(data, ((1, 1), (2, 2), (0, 0), (4, 4)), "constant", constant_values=2.0)
    got = run(relay.Function([x, pad_value], y), data, np.array(2.0, "float32"))
    np.testing.assert_allclose(got, ref)


def test_pad_value_in_array() -> None:
    a = relay.var("a", shape=(4,), dtype="float32")
    y = relay.nn.pad(a, [[1, 1]], pad_value=relay.const(np.array(5.0, "float32")))
    got = run(relay.Function([a], y), np.ones(4, "float32"))
    np.testing.assert_array_equal(got, [5, 1, 1, 1, 1, 5])


def test_astype_and_scalar_type() -> None:
    x = relay.var("x", shape=(3,), dtype="float32")
    y = x.astype("int32")
    assert run_infer_type(y).checked_type == relay.TensorType((3,), "int32")
    assert relay.scalar_type("int8") == relay.TensorType((), "int8")
    np.testing.assert_array_equal(
        run(relay.Function([x], y), np.array([1.5, -2.5, 3.0], "float32")), [1, -2, 3]
    )


def test_op_make_and_stop_fusion() -> None:
    x = relay.var("x", shape=(2,))
    y = relay.op._make.add(x, relay.annotation.stop_fusion(x))
    np.testing.assert_array_equal(
        run(relay.Function([x], y), np.array([1.0, 2.0], "float32")), [2, 4]
    )
