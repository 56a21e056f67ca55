"""`xtvm.onnx_backend.prepare` compiles by default, as onnxruntime's backend does; the relay
interpreter stays available (`compiled=False` or `XTVM_ONNX_BACKEND=interpreter`)."""

from __future__ import annotations

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper

from xtvm.onnx_backend import ENV_MODE, prepare


@pytest.fixture
def model() -> onnx.ModelProto:
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 3])
    nodes = [
        helper.make_node("Relu", ["x"], ["r"]),
        helper.make_node("Tanh", ["r"], ["y"]),
    ]
    graph = helper.make_graph(nodes, "g", [x], [y])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


def test_prepare_compiles_by_default(
    model: onnx.ModelProto, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv(ENV_MODE, raising=False)
    rep = prepare(model)
    assert rep.compiled
    x = np.linspace(-1, 1, 6, dtype=np.float32).reshape(2, 3)
    (y,) = rep.run([x])
    assert rep.executors, "no graph executor was built"
    np.testing.assert_allclose(y, np.tanh(np.maximum(x, 0)), rtol=1e-6)


def test_interpreter_on_request(model: onnx.ModelProto, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(ENV_MODE, raising=False)
    x = np.linspace(-1, 1, 6, dtype=np.float32).reshape(2, 3)
    rep = prepare(model, compiled=False)
    (y,) = rep.run([x])
    assert not rep.compiled and not rep.executors
    np.testing.assert_allclose(y, np.tanh(np.maximum(x, 0)), rtol=1e-6)
    monkeypatch.setenv(ENV_MODE, "interpreter")
    assert not prepare(model).compiled
    assert prepare(model, compiled=True).compiled  # the argument wins over the environment


def test_unknown_mode_is_refused(model: onnx.ModelProto, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(ENV_MODE, "fast")
    with pytest.raises(ValueError, match="XTVM_ONNX_BACKEND='fast': expected one of"):
        prepare(model)
