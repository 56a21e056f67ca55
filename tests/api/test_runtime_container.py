"""TVM's runtime containers: values that compare as the built-in types they stand for."""

import pytest

import xtvm as tvm
from xtvm import relay
from xtvm.contrib import graph_executor


def test_containers_are_their_builtin_types() -> None:
    shape = tvm.runtime.container.ShapeTuple([tvm.tir.IntImm("int64", 2), 3])
    assert shape == (2, 3) and hash(shape) == hash((2, 3))
    assert tvm.container.String("float32") == "float32"
    assert tvm.container.Map({"a": 1})["a"] == 1
    with pytest.raises(ValueError, match="negative dimension"):
        tvm.runtime.container.ShapeTuple([-1])


def test_input_info_of_a_graph_module() -> None:
    x = relay.var("x", shape=(2, 5), dtype="int8")
    lib = relay.build(tvm.IRModule.from_expr(relay.Function([x], relay.abs(x))), "llvm")
    shapes, dtypes = graph_executor.GraphModule(lib["default"](tvm.cpu())).get_input_info()
    assert isinstance(shapes, tvm.container.Map) and isinstance(dtypes, tvm.container.Map)
    assert shapes["x"] == tvm.runtime.container.ShapeTuple([2, 5])
    assert isinstance(dtypes["x"], tvm.runtime.container.String) and dtypes["x"] == "int8"
