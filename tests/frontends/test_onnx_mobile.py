"""Tiny MobileNetV2 / MobileNetV3-small (`benchmarks/mobile.py`: two blocks at 32x32) compiled
against onnxruntime: inverted residual blocks (expand, depthwise, project convs with
BatchNormalization, ReLU6 as Clip, HardSwish, squeeze-excite with HardSigmoid, residual Add)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import numpy as np
import pytest

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"


def mobile() -> ModuleType:
    name = "xtvm_benchmark_mobile"
    if name in sys.modules:
        return sys.modules[name]
    sys.path.insert(0, str(BENCHMARKS))  # mobile.py imports its sibling benchmarks by name
    try:
        spec = importlib.util.spec_from_file_location(name, BENCHMARKS / "mobile.py")
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    finally:
        sys.path.remove(str(BENCHMARKS))
    return module


@pytest.mark.parametrize("model", ["mobilenet_v2", "mobilenet_v3_small"])
def test_tiny_mobilenet_matches_onnxruntime(model: str) -> None:
    ort = pytest.importorskip("onnxruntime")
    import xtvm as tvm
    from xtvm import relay
    from xtvm.api.relay.frontend import from_onnx
    from xtvm.contrib import graph_executor

    onnx_model, shape = getattr(mobile(), model)(32, 2)()
    x = np.random.default_rng(1).standard_normal(shape).astype(np.float32)
    mod, params = from_onnx(onnx_model)
    factory = relay.build(mod, target="llvm", params=params)
    module = graph_executor.GraphModule(factory["default"](tvm.cpu()))
    module.set_input("x", x)
    module.run()
    got = module.get_output(0).numpy()
    session = ort.InferenceSession(
        onnx_model.SerializeToString(), providers=["CPUExecutionProvider"]
    )
    expected = session.run(None, {"x": x})[0]
    assert got.shape == expected.shape == (1, 1000)
    np.testing.assert_allclose(got, expected, rtol=0, atol=1e-4 * np.abs(expected).max())
