"""Small ONNX models run by both xtvm (import + relay interpreter) and onnxruntime."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import onnx
from onnx import helper, numpy_helper

from xtvm.frontends.onnx import import_onnx
from xtvm.runtime.relay_interpreter import evaluate


def single_node_model(
    node: onnx.NodeProto,
    feeds: Mapping[str, np.ndarray],
    inits: Mapping[str, np.ndarray] | None = None,
    opset: int = 18,
) -> onnx.ModelProto:
    """A graph of `node` whose inputs are `feeds` (graph inputs) and `inits` (initializers);
    the node's outputs are the graph's, typed by shape inference."""
    infos = [
        helper.make_tensor_value_info(n, helper.np_dtype_to_tensor_dtype(v.dtype), v.shape)
        for n, v in feeds.items()
    ]
    outs = [helper.make_empty_tensor_value_info(o) for o in node.output if o]
    initializers = [numpy_helper.from_array(v, n) for n, v in (inits or {}).items()]
    graph = helper.make_graph([node], node.op_type, infos, outs, initializers)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    model.ir_version = 8  # what the installed onnxruntime reads
    return onnx.shape_inference.infer_shapes(model)


def run_both(
    model: onnx.ModelProto, feeds: Mapping[str, np.ndarray]
) -> tuple[list[np.ndarray], list[np.ndarray]]:
    """(xtvm's outputs, onnxruntime's outputs) of `model` on `feeds`."""
    import onnxruntime

    session = onnxruntime.InferenceSession(
        model.SerializeToString(), providers=["CPUExecutionProvider"]
    )
    expected = session.run(None, dict(feeds))
    module, params = import_onnx(model)
    module.verify()
    got = evaluate(module, list(feeds.values()), params=params)
    return list(got), list(expected)


def max_relative_difference(got: Sequence[np.ndarray], expected: Sequence[np.ndarray]) -> float:
    """The largest |got - expected| over all outputs, relative to the largest |expected|."""
    scale = max(float(np.abs(e).max(initial=0.0)) for e in expected) or 1.0
    return (
        max(
            float(np.abs(g.astype(np.float64) - e).max(initial=0.0))
            for g, e in zip(got, expected, strict=True)
        )
        / scale
    )
