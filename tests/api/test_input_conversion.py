"""Arrays of another dtype given to TVM's entry points (`NDArray.copyfrom`,
`GraphModule.set_input`, `create_executor(...).evaluate()(...)`) are converted as TVM converts
them, and refused where the values would not survive; the runtime's own executor and the
reference interpreter keep taking their declared dtypes only."""

from __future__ import annotations

import numpy as np
import pytest

import xtvm as tvm
from xtvm import relay
from xtvm.contrib import graph_executor
from xtvm.runtime.graph_executor import GraphInputError
from xtvm.runtime.ndarray import ConversionError
from xtvm.runtime.relay_interpreter import ArgumentError, evaluate


def scaled(dtype: str) -> tvm.IRModule:
    x = relay.var("x", shape=(2, 3), dtype=dtype)
    return tvm.IRModule.from_expr(relay.Function([x], x + relay.const(1, dtype)))


def test_copyfrom_converts_numpy_data_as_tvm() -> None:
    target = tvm.nd.empty((3,), "int8")
    target.copyfrom(np.array([1.9, -2.9, 127.0]))  # numpy's cast: truncation towards zero
    np.testing.assert_array_equal(target.numpy(), np.array([1, -2, 127], "int8"))
    target.copyfrom([3, 4, 5])
    assert target.numpy().tolist() == [3, 4, 5]


@pytest.mark.parametrize(
    ("values", "message"),
    [
        (
            np.array([1.0, np.nan, 2.0]),
            "float64 values outside int8's range .* \\(NaN or infinity\\)",
        ),
        (np.array([1, 200, 3]), "int64 values outside int8's range \\[-128, 127\\]"),
        (np.array([1j, 2, 3]), "complex128 data cannot become int8"),
        (np.array(["a", "b", "c"]), "<U1 data cannot become int8"),
        (tvm.nd.array(np.ones(3, "int32")), "an NDArray of int32 for int8"),
    ],
)
def test_copyfrom_refuses_values_that_would_not_survive(values: object, message: str) -> None:
    with pytest.raises(ConversionError, match=f"copyfrom: {message}"):
        tvm.nd.empty((3,), "int8").copyfrom(values)


def test_graph_module_set_input_converts() -> None:
    lib = relay.build(scaled("float32"), target="llvm")
    module = graph_executor.GraphModule(lib["default"](tvm.cpu()))
    module.set_input("x", np.arange(6, dtype="float64").reshape(2, 3))
    module.run()
    np.testing.assert_array_equal(module.get_output(0).numpy(), np.arange(1, 7).reshape(2, 3))
    module.run(x=np.ones((2, 3), "int64"))  # by keyword, through run()
    np.testing.assert_array_equal(module.get_output(0).numpy(), np.full((2, 3), 2.0))
    with pytest.raises(ConversionError, match="input 'x': complex128 data cannot become float32"):
        module.set_input(0, np.ones((2, 3), "complex128"))


def test_runtime_executor_refuses_another_dtype() -> None:
    executor = relay.build(scaled("float32"), target="llvm")["default"](tvm.cpu())
    with pytest.raises(GraphInputError, match="expected element type float32, got float64"):
        executor.set_input("x", np.ones((2, 3)))


@pytest.mark.parametrize("kind", ["graph", "debug"])
def test_create_executor_converts_arguments(kind: str) -> None:
    run = relay.create_executor(kind, mod=scaled("uint8"), target="llvm").evaluate()
    result = run(np.array([[0, 1, 2], [3, 4, 254]], "int64")).numpy()
    assert result.dtype == np.uint8
    np.testing.assert_array_equal(result, [[1, 2, 3], [4, 5, 255]])
    with pytest.raises(ConversionError, match="argument 'x': int64 values outside uint8's range"):
        run(np.full((2, 3), -1, "int64"))


def test_reference_interpreter_refuses_another_dtype() -> None:
    with pytest.raises(ArgumentError, match="expected tensor<2x3xf32>"):
        evaluate(scaled("float32").xdsl, [np.ones((2, 3))])
