"""Model files read with their large weights apart from the protobuf (frontends/onnx/lean.py)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

from xtvm.dialects import relay
from xtvm.frontends.onnx import OnnxImportError, import_onnx
from xtvm.frontends.onnx.lean import APART_BYTES, read_lean

RNG = np.random.default_rng(3)


def dense_model(weight: np.ndarray, bias: np.ndarray) -> onnx.ModelProto:
    nodes = [
        helper.make_node("MatMul", ["x", "w"], ["h"]),
        helper.make_node("Add", ["h", "b"], ["y"]),
    ]
    graph = helper.make_graph(
        nodes,
        "dense",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, weight.shape[0]])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, weight.shape[1]])],
        [numpy_helper.from_array(weight, "w"), numpy_helper.from_array(bias, "b")],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


def test_large_weights_are_read_apart_and_imported_alike(tmp_path: Path) -> None:
    weight = RNG.standard_normal((256, 96)).astype("float32")  # over APART_BYTES
    bias = RNG.standard_normal(96).astype("float32")  # stays in the proto
    assert weight.nbytes > APART_BYTES > bias.nbytes
    model = dense_model(weight, bias)
    path = tmp_path / "dense.onnx"
    onnx.save(model, path)

    lean, apart = read_lean(path)
    assert list(apart) == [0]
    np.testing.assert_array_equal(apart[0], weight)
    assert relay.viewed_bytes(apart[0]) is not None  # its own bytes, shared by relay.const
    assert not lean.graph.initializer[0].HasField("raw_data")
    assert numpy_helper.to_array(lean.graph.initializer[1]).tolist() == bias.tolist()
    assert lean.graph.node == model.graph.node and lean.graph.output == model.graph.output

    from_file, file_params = import_onnx(path)
    from_proto, proto_params = import_onnx(model)
    assert str(from_file) == str(from_proto)
    assert file_params.keys() == proto_params.keys()
    for name, value in proto_params.items():
        np.testing.assert_array_equal(file_params[name], value)


def test_weights_of_the_wrong_size_are_refused(tmp_path: Path) -> None:
    model = dense_model(np.zeros((256, 96), "float32"), np.zeros(96, "float32"))
    model.graph.initializer[0].dims[0] = 255  # the data holds 256 rows
    path = tmp_path / "bad.onnx"
    onnx.save(model, path)
    with pytest.raises(OnnxImportError, match=r"initializer 'w' holds 98304 bytes of data"):
        import_onnx(path)


def test_a_file_the_walk_cannot_read_is_left_to_onnx(tmp_path: Path) -> None:
    path = tmp_path / "garbage.onnx"
    path.write_bytes(b"\x0f" * 64)  # wire type 7: no protobuf
    with pytest.raises(OnnxImportError, match="cannot read ONNX model"):
        import_onnx(path)
