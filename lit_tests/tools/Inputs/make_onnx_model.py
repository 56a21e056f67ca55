"""Write a small ONNX model for the xtvm-import-onnx lit tests.

    python make_onnx_model.py KIND OUT.onnx

KIND is `cnn` (Conv, Relu, MaxPool, Flatten, Gemm, Softmax; weights as initializers),
`dynamic` (a Relu whose input has a symbolic batch dimension `N`) or `unsupported` (nodes of
two op types xtvm does not convert, Hardmax twice and Shrink once, next to a supported Relu).
"""

from __future__ import annotations

import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper


def cnn() -> onnx.GraphProto:
    rng = np.random.default_rng(0)
    inits = [
        numpy_helper.from_array(rng.standard_normal((4, 3, 3, 3)).astype(np.float32), "conv.w"),
        numpy_helper.from_array(rng.standard_normal(4).astype(np.float32), "conv.b"),
        numpy_helper.from_array(rng.standard_normal((10, 64)).astype(np.float32), "fc.w"),
        numpy_helper.from_array(rng.standard_normal(10).astype(np.float32), "fc.b"),
    ]
    nodes = [
        helper.make_node("Conv", ["x", "conv.w", "conv.b"], ["c"], "conv1", pads=[1, 1, 1, 1]),
        helper.make_node("Relu", ["c"], ["r"], "relu1"),
        helper.make_node("MaxPool", ["r"], ["p"], "pool1", kernel_shape=[2, 2], strides=[2, 2]),
        helper.make_node("Flatten", ["p"], ["f"], "flatten"),
        helper.make_node("Gemm", ["f", "fc.w", "fc.b"], ["logits"], "fc", transB=1),
        helper.make_node("Softmax", ["logits"], ["y"], "softmax", axis=1),
    ]
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, 8, 8])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 10])
    return helper.make_graph(nodes, "cnn", [x], [y], inits)


def dynamic() -> onnx.GraphProto:
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", 3])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, ["N", 3])
    return helper.make_graph([helper.make_node("Relu", ["x"], ["y"], "relu")], "dyn", [x], [y])


def unsupported() -> onnx.GraphProto:
    nodes = [
        helper.make_node("Relu", ["x"], ["a"], "relu"),
        helper.make_node("Hardmax", ["a"], ["b"], "hardmax1"),
        helper.make_node("Hardmax", ["b"], ["c"], "hardmax2"),
        helper.make_node("Shrink", ["c"], ["y"], "shrink"),
    ]
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 3])
    return helper.make_graph(nodes, "unsupported", [x], [y])


def main() -> int:
    kind, out = sys.argv[1:3]
    graph = {"cnn": cnn, "dynamic": dynamic, "unsupported": unsupported}[kind]()
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    onnx.save(model, out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
