"""TVM's `relay.testing.mlp`: a three-layer perceptron on 28x28 images, with its weights."""

from __future__ import annotations

from collections.abc import Sequence

from xtvm.api.ir_module import IRModule
from xtvm.api.relay.analysis import free_vars
from xtvm.api.relay.expr import Function, var
from xtvm.api.relay.op import nn
from xtvm.api.relay.testing.init import create_workload
from xtvm.runtime import ndarray as nd


def get_net(
    batch_size: int,
    num_classes: int = 10,
    image_shape: Sequence[int] = (1, 28, 28),
    dtype: str = "float32",
) -> Function:
    """dense-relu, dense-relu, dense and softmax over the flattened image."""
    data = nn.batch_flatten(var("data", shape=(batch_size, *image_shape), dtype=dtype))
    fc1 = nn.bias_add(nn.dense(data, var("fc1_weight"), units=128), var("fc1_bias"), axis=-1)
    fc2 = nn.bias_add(nn.dense(nn.relu(fc1), var("fc2_weight"), units=64), var("fc2_bias"), axis=-1)
    fc3 = nn.dense(nn.relu(fc2), var("fc3_weight"), units=num_classes)
    out = nn.softmax(nn.bias_add(fc3, var("fc3_bias"), axis=-1))
    return Function(free_vars(out), out)


def get_workload(
    batch_size: int,
    num_classes: int = 10,
    image_shape: Sequence[int] = (1, 28, 28),
    dtype: str = "float32",
) -> tuple[IRModule, dict[str, nd.NDArray]]:
    """The network as a module and its random weights (`create_workload`)."""
    return create_workload(get_net(batch_size, num_classes, image_shape, dtype))
