"""ONNX GridSample (opsets 16 and 20) and AffineGrid (opset 20) against onnxruntime: every
mode, padding mode and align_corners on 2-d data, trilinear and nearest 3-d sampling, and one
model of each compiled for LLVM."""

from __future__ import annotations

import numpy as np
import onnx
import pytest
from onnx import helper

from xtvm.frontends.onnx import OnnxImportError, import_onnx
from xtvm.onnx_backend import XtvmBackend
from xtvm.testing.onnx_compare import run_both, single_node_model

pytest.importorskip("onnxruntime")

RNG = np.random.default_rng(16)


def grid_sample_model(
    data: np.ndarray, grid: np.ndarray, opset: int, **attrs: object
) -> onnx.ModelProto:
    node = helper.make_node("GridSample", ["x", "g"], ["y"], name="grid_sample", **attrs)
    return single_node_model(node, {"x": data, "g": grid}, opset=opset)


def sample_inputs(rank: int) -> tuple[np.ndarray, np.ndarray]:
    data = RNG.standard_normal((2, 3, *([5, 4, 6][-rank:]))).astype("float32")
    grid = RNG.uniform(-1.3, 1.3, size=(2, *([3, 4, 2][-rank:]), rank)).astype("float32")
    return data, grid


@pytest.mark.parametrize("align", [0, 1])
@pytest.mark.parametrize("padding", ["zeros", "border", "reflection"])
@pytest.mark.parametrize(("opset", "mode"), [(16, "bilinear"), (16, "nearest"), (20, "cubic")])
def test_grid_sample_2d(opset: int, mode: str, padding: str, align: int) -> None:
    data, grid = sample_inputs(2)
    model = grid_sample_model(
        data, grid, opset, mode=mode, padding_mode=padding, align_corners=align
    )
    (got,), (want,) = run_both(model, {"x": data, "g": grid})
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize(("mode", "padding"), [("linear", "reflection"), ("nearest", "border")])
def test_grid_sample_3d(mode: str, padding: str) -> None:
    data, grid = sample_inputs(3)
    model = grid_sample_model(data, grid, 20, mode=mode, padding_mode=padding)
    (got,), (want,) = run_both(model, {"x": data, "g": grid})
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("align", [0, 1])
@pytest.mark.parametrize("size", [(2, 3, 4, 5), (2, 1, 3, 4, 2)])
def test_affine_grid(size: tuple[int, ...], align: int) -> None:
    rank = len(size) - 2
    theta = RNG.standard_normal((2, rank, rank + 1)).astype("float32")
    node = helper.make_node("AffineGrid", ["x", "s"], ["y"], align_corners=align)
    model = single_node_model(node, {"x": theta}, {"s": np.array(size, np.int64)}, opset=20)
    (got,), (want,) = run_both(model, {"x": theta})
    assert got.shape == want.shape
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


def test_affine_grid_feeding_grid_sample_compiled_for_llvm() -> None:
    theta = RNG.standard_normal((2, 2, 3)).astype("float32") * 0.5
    data = RNG.standard_normal((2, 3, 6, 6)).astype("float32")
    nodes = [
        helper.make_node("AffineGrid", ["t", "s"], ["g"], align_corners=1),
        helper.make_node("GridSample", ["x", "g"], ["y"], mode="cubic", align_corners=1),
    ]
    inputs = [
        helper.make_tensor_value_info("t", onnx.TensorProto.FLOAT, theta.shape),
        helper.make_tensor_value_info("x", onnx.TensorProto.FLOAT, data.shape),
    ]
    size = onnx.numpy_helper.from_array(np.array([2, 3, 4, 5], np.int64), "s")
    output = helper.make_tensor_value_info("y", onnx.TensorProto.FLOAT, [2, 3, 4, 5])
    graph = helper.make_graph(nodes, "affine_sample", inputs, [output], [size])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 20)])
    model.ir_version = 8
    import onnxruntime

    session = onnxruntime.InferenceSession(model.SerializeToString())
    (want,) = session.run(None, {"t": theta, "x": data})
    (got,) = XtvmBackend.prepare(model, compiled=True).run([theta, data])
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)


def test_cubic_3d_sampling_is_refused_naming_the_node() -> None:
    data, grid = sample_inputs(3)
    model = grid_sample_model(data, grid, 20, mode="cubic")
    with pytest.raises(OnnxImportError, match=r"grid_sample.*mode 'cubic' is not supported"):
        import_onnx(model)
