"""What the ONNX importer refuses or bounds: shapes given by the caller, negative or huge
dims, tensors whose data does not match their shape, external data outside the model's
directory, and constants too large to fold at import (they stay ops, checked against
onnxruntime)."""

from __future__ import annotations

import os
import time
from pathlib import Path

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

from xtvm.dialects import relay
from xtvm.frontends.onnx import OnnxImportError, import_onnx
from xtvm.frontends.onnx.tensors import tensor_array
from xtvm.runtime.relay_interpreter import evaluate


def make_model(
    nodes: list[onnx.NodeProto],
    inputs: list[onnx.ValueInfoProto],
    outputs: list[onnx.ValueInfoProto],
    inits: list[onnx.TensorProto] = (),  # type: ignore[assignment]
) -> onnx.ModelProto:
    graph = helper.make_graph(nodes, "g", inputs, outputs, list(inits))
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8  # what the installed onnxruntime reads
    return model


def relu_model(dims: list[int | str]) -> onnx.ModelProto:
    return make_model(
        [helper.make_node("Relu", ["x"], ["y"])],
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, dims)],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, dims)],
    )


def bad_tensor(
    name: str, dims: list[int], raw: bytes = b"", floats: list[float] = ()
) -> onnx.TensorProto:  # type: ignore[assignment]
    """A float tensor whose data need not match its dims (onnx.helper would refuse it)."""
    tensor = onnx.TensorProto(name=name, data_type=TensorProto.FLOAT, dims=dims)
    if floats:
        tensor.float_data.extend(floats)
    else:
        tensor.raw_data = raw
    return tensor


def ort_run(model: onnx.ModelProto, feeds: dict[str, np.ndarray]) -> list[np.ndarray]:
    ort = pytest.importorskip("onnxruntime")
    session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    return session.run(None, feeds)


# ---------------------------------------------------------------------------------------------
# Input shapes


def test_negative_input_dim_names_the_input() -> None:
    with pytest.raises(OnnxImportError, match=r"graph input 'x' has a negative dimension -5"):
        import_onnx(relu_model([-5, 3]))


def test_shape_for_an_unknown_input_is_an_error() -> None:
    with pytest.raises(OnnxImportError, match=r"shape given for 'data', which is not a graph "):
        import_onnx(relu_model(["n", 3]), shape={"data": (2, 3)})
    with pytest.raises(OnnxImportError, match=r"dtype given for 'z', which is not"):
        import_onnx(relu_model([2, 3]), dtype={"z": "float32"})


def test_shape_of_the_wrong_rank_is_an_error() -> None:
    with pytest.raises(OnnxImportError, match=r"'x' has rank 2 \(\['n', 3\]\), but the shape"):
        import_onnx(relu_model(["n", 3]), shape={"x": (2, 3, 4)})
    with pytest.raises(OnnxImportError, match="graph input 'x' has a negative dimension -2"):
        import_onnx(relu_model(["n", 3]), shape={"x": (-2, 3)})


def test_huge_input_is_an_error() -> None:
    with pytest.raises(OnnxImportError, match=r"graph input 'x' has 10000000000000 elements"):
        import_onnx(relu_model([10**7, 10**6]))


# ---------------------------------------------------------------------------------------------
# Tensor data


def add_model(init: onnx.TensorProto) -> onnx.ModelProto:
    return make_model(
        [helper.make_node("Add", ["x", init.name], ["y"])],
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 3])],
        [init],
    )


def test_raw_data_shorter_than_the_shape_is_an_error() -> None:
    w = bad_tensor("w", [2, 3], b"\0" * 20)
    with pytest.raises(OnnxImportError, match=r"tensor name: w\) raw_data size \(20 bytes\)"):
        import_onnx(add_model(w))  # the ONNX checker's message
    # What the importer checks itself (the checker skips models over 2 GB):
    with pytest.raises(OnnxImportError, match=r"initializer 'w' holds 20 bytes of data but its "):
        tensor_array(w, "initializer 'w'")
    with pytest.raises(OnnxImportError, match=r"'v' holds 2 values of data but its shape \[4\]"):
        tensor_array(bad_tensor("v", [4], floats=[1.0, 2.0]), "'v'")


def test_huge_declared_shape_is_refused_before_reading() -> None:
    w = bad_tensor("w", [1 << 20, 1 << 20], b"\0" * 8)
    with pytest.raises(OnnxImportError, match=r"'w' has 1099511627776 elements"):
        tensor_array(w, "'w'")
    with pytest.raises(OnnxImportError, match=r"'w' has a negative dimension -3"):
        tensor_array(bad_tensor("w", [-3, -4], b"\0" * 48), "'w'")


# ---------------------------------------------------------------------------------------------
# External data


@pytest.fixture
def external_model(tmp_path: Path) -> Path:
    w = np.arange(6, dtype=np.float32).reshape(2, 3)
    model = add_model(numpy_helper.from_array(w, "w"))
    path = tmp_path / "model" / "model.onnx"
    path.parent.mkdir()
    onnx.save(model, path, save_as_external_data=True, location="w.bin", size_threshold=0)
    return path


def set_location(model: onnx.ModelProto, location: str) -> onnx.ModelProto:
    for entry in model.graph.initializer[0].external_data:
        if entry.key == "location":
            entry.value = location
    return model


def test_external_data_of_a_path_is_read_from_its_directory(
    external_model: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)  # not the model's directory
    _, params = import_onnx(external_model)
    np.testing.assert_array_equal(params["w"], np.arange(6, dtype=np.float32).reshape(2, 3))


def test_in_memory_model_needs_base_dir(
    external_model: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    proto = onnx.load(str(external_model), load_external_data=False)
    monkeypatch.chdir(external_model.parent)  # where a read relative to the cwd would succeed
    with pytest.raises(OnnxImportError, match=r"initializer 'w' keeps its data in the external "):
        import_onnx(proto)
    _, params = import_onnx(proto, base_dir=external_model.parent)
    assert params["w"][1, 2] == 5


@pytest.mark.parametrize("where", ["../w.bin", "absolute", "sub/../../w.bin"])
def test_external_data_outside_the_directory_is_refused(
    external_model: Path, tmp_path: Path, where: str
) -> None:
    (tmp_path / "w.bin").write_bytes((external_model.parent / "w.bin").read_bytes())
    location = str(tmp_path / "w.bin") if where == "absolute" else where
    proto = set_location(onnx.load(str(external_model), load_external_data=False), location)
    path = external_model.parent / "escape.onnx"
    onnx.save(proto, path)
    with pytest.raises(OnnxImportError, match="initializer 'w': external data location"):
        import_onnx(path)


def test_external_data_shorter_than_declared_is_refused(external_model: Path) -> None:
    (external_model.parent / "w.bin").write_bytes(b"\0" * 8)
    with pytest.raises(OnnxImportError, match=r"'w.bin' holds 8 bytes, fewer than offset 0"):
        import_onnx(external_model)


# ---------------------------------------------------------------------------------------------
# Folding at import


def constant_of_shape(shape: list[int]) -> onnx.ModelProto:
    value = numpy_helper.from_array(np.array([1.5], np.float32), "v")
    return make_model(
        [
            helper.make_node("ConstantOfShape", ["s"], ["c"], value=value),
            helper.make_node("Add", ["c", "x"], ["y"]),
        ],
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, shape)],
        [numpy_helper.from_array(np.array(shape, np.int64), "s")],
    )


def expand(shape: list[int]) -> onnx.ModelProto:
    return make_model(
        [
            helper.make_node("Expand", ["one", "s"], ["c"]),
            helper.make_node("Add", ["c", "x"], ["y"]),
        ],
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, shape)],
        [
            numpy_helper.from_array(np.array([[2.0]], np.float32), "one"),
            numpy_helper.from_array(np.array(shape, np.int64), "s"),
        ],
    )


def tile(shape: list[int]) -> onnx.ModelProto:
    return make_model(
        [helper.make_node("Tile", ["one", "r"], ["c"]), helper.make_node("Add", ["c", "x"], ["y"])],
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, shape)],
        [
            numpy_helper.from_array(np.array([[1.0, 2.0]], np.float32), "one"),
            numpy_helper.from_array(np.array([shape[0], shape[1] // 2], np.int64), "r"),
        ],
    )


GENERATORS = {"ConstantOfShape": constant_of_shape, "Expand": expand, "Tile": tile}


@pytest.mark.parametrize("op", GENERATORS)
def test_large_constants_are_not_folded_at_import(op: str) -> None:
    model = GENERATORS[op]([20000, 20000])
    assert model.ByteSize() < 400
    start = time.perf_counter()
    module, params = import_onnx(model)
    assert time.perf_counter() - start < 10
    assert sum(v.nbytes for v in params.values()) < 1024
    ops = {type(o) for o in module.walk()}
    assert ops & {relay.BroadcastToOp, relay.TileOp}


@pytest.mark.parametrize("op", GENERATORS)
def test_unfolded_ops_match_onnxruntime(op: str) -> None:
    model = GENERATORS[op]([4, 6])
    x = np.array([0.25], np.float32)
    expected = ort_run(model, {"x": x})[0]
    folded, _ = import_onnx(model)
    assert not {relay.BroadcastToOp, relay.TileOp} & {type(o) for o in folded.walk()}
    module, params = import_onnx(model, fold_limit=10)
    assert {relay.BroadcastToOp, relay.TileOp} & {type(o) for o in module.walk()}
    np.testing.assert_allclose(evaluate(module, [x], params=params)[0], expected)


def test_tile_beyond_the_size_limit_names_the_node() -> None:
    model = make_model(
        [helper.make_node("Tile", ["x", "r"], ["y"], name="big")],
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 2])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1 << 21, 1 << 21])],
        [numpy_helper.from_array(np.array([1 << 20, 1 << 20], np.int64), "r")],
    )
    with pytest.raises(OnnxImportError, match=r"node 'big' \(Tile\): output 'y' has 4398"):
        import_onnx(model)


def test_tools_read_no_cwd_data(external_model: Path, tmp_path: Path) -> None:
    """xtvm-import-onnx reads a model's external data next to the model, from any directory."""
    from xtvm.tools.import_onnx import main

    out = tmp_path / "out.mlir"
    cwd = os.getcwd()
    try:
        os.chdir(tmp_path)
        assert main([str(external_model), "-o", str(out)]) == 0
    finally:
        os.chdir(cwd)
    assert 'relay.param["w"]' in out.read_text()
