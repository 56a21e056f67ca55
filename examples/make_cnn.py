"""Writes examples/cnn.onnx (a small image classifier with random weights) and
examples/cnn_input.npy, the quick start's model and input. Deterministic: seed 0."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

HERE = Path(__file__).parent


def make_model() -> onnx.ModelProto:
    rng = np.random.default_rng(0)

    def weight(name: str, *shape: int, scale: float = 0.2) -> onnx.TensorProto:
        return numpy_helper.from_array((rng.standard_normal(shape) * scale).astype("float32"), name)

    initializers = [
        weight("conv1.w", 16, 3, 3, 3),
        weight("conv1.b", 16),
        weight("bn.scale", 16, scale=0.1),
        weight("bn.bias", 16),
        weight("bn.mean", 16),
        numpy_helper.from_array(rng.uniform(0.5, 1.5, 16).astype("float32"), "bn.var"),
        weight("conv2.w", 32, 16, 3, 3, scale=0.1),
        weight("fc.w", 10, 32, scale=0.3),
        weight("fc.b", 10),
    ]
    nodes = [
        helper.make_node("Conv", ["data", "conv1.w", "conv1.b"], ["c1"], pads=[1, 1, 1, 1]),
        helper.make_node(
            "BatchNormalization", ["c1", "bn.scale", "bn.bias", "bn.mean", "bn.var"], ["bn"]
        ),
        helper.make_node("Relu", ["bn"], ["r1"]),
        helper.make_node("MaxPool", ["r1"], ["p1"], kernel_shape=[2, 2], strides=[2, 2]),
        helper.make_node("Conv", ["p1", "conv2.w"], ["c2"], pads=[1, 1, 1, 1], strides=[2, 2]),
        helper.make_node("Relu", ["c2"], ["r2"]),
        helper.make_node("GlobalAveragePool", ["r2"], ["g"]),
        helper.make_node("Flatten", ["g"], ["f"]),
        helper.make_node("Gemm", ["f", "fc.w", "fc.b"], ["logits"], transB=1),
        helper.make_node("Softmax", ["logits"], ["prob"], axis=1),
    ]
    graph = helper.make_graph(
        nodes,
        "cnn",
        [helper.make_tensor_value_info("data", TensorProto.FLOAT, [1, 3, 32, 32])],
        [helper.make_tensor_value_info("prob", TensorProto.FLOAT, [1, 10])],
        initializers,
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    onnx.checker.check_model(model)
    return model


if __name__ == "__main__":
    onnx.save(make_model(), HERE / "cnn.onnx")
    data = np.random.default_rng(1).standard_normal((1, 3, 32, 32)).astype("float32")
    np.save(HERE / "cnn_input.npy", data)
