"""The light model-zoo models shipped with onnx, made fit for numeric comparisons."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

LIGHT = Path(onnx.__file__).parent / "backend/test/data/light"


def random_weights(model: onnx.ModelProto, seed: int = 0) -> None:
    """Replace the light models' weights by He-scaled random initializers, in place.

    Each weight is a ConstantOfShape node (all 0.02) of a `<name>__SHAPE` initializer: with
    those the outputs are uniform and a comparison proves nothing. 1-d weights are uniform in
    [0.5, 1), positive, so they are also valid batch-norm variances.
    """
    rng = np.random.default_rng(seed)
    graph = model.graph
    shapes = {i.name: numpy_helper.to_array(i) for i in graph.initializer}
    used: set[str] = set()
    for node in list(graph.node):
        if node.op_type != "ConstantOfShape" or node.input[0] not in shapes:
            continue
        shape = [int(d) for d in shapes[node.input[0]]]
        if len(shape) > 1:
            value = rng.standard_normal(shape) * np.sqrt(2.0 / int(np.prod(shape[1:])))
        else:
            value = rng.random(shape) * 0.5 + 0.5
        graph.node.remove(node)
        graph.initializer.append(numpy_helper.from_array(value.astype(np.float32), node.output[0]))
        # IR version 3 models list every initializer among the graph inputs.
        graph.input.append(helper.make_tensor_value_info(node.output[0], TensorProto.FLOAT, shape))
        used.add(node.input[0])
    for init in [i for i in graph.initializer if i.name in used]:
        graph.initializer.remove(init)
    for info in [i for i in graph.input if i.name in used]:
        graph.input.remove(info)


def drop_final_softmax(model: onnx.ModelProto) -> None:
    """Make the input of a final Softmax the graph's output (same shape), in place: compare
    logits, as random weights saturate the softmax to one-hot."""
    graph = model.graph
    last = graph.node[-1]
    if last.op_type == "Softmax" and last.output[0] == graph.output[0].name:
        graph.output[0].name = last.input[0]
        graph.node.remove(last)


def light_model(
    name: str, rng: np.random.Generator, drop_softmax: bool = False
) -> tuple[onnx.ModelProto, str, np.ndarray]:
    """`light_<name>.onnx` with random weights (and without a final Softmax with
    `drop_softmax`), the name of its data input (the graph input that is no initializer) and a
    standard-normal float32 value for it drawn from `rng`."""
    model = onnx.load(str(LIGHT / f"light_{name}.onnx"))
    random_weights(model)
    if drop_softmax:
        drop_final_softmax(model)
    initializers = {i.name for i in model.graph.initializer}
    data = next(i for i in model.graph.input if i.name not in initializers)
    x = rng.standard_normal([d.dim_value for d in data.type.tensor_type.shape.dim])
    return model, data.name, x.astype(np.float32)
