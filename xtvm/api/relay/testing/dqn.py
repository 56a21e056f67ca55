"""TVM's `relay.testing.dqn`: the Deep Q-Network of Mnih et al. (Nature 2015) over four
stacked 84x84 frames, with its weights."""

from __future__ import annotations

from xtvm.api.ir_module import IRModule
from xtvm.api.relay.analysis import free_vars
from xtvm.api.relay.expr import Function, var
from xtvm.api.relay.op import nn
from xtvm.api.relay.testing import layers
from xtvm.api.relay.testing.init import create_workload
from xtvm.runtime import ndarray as nd


def get_net(
    batch_size: int,
    num_actions: int = 18,
    image_shape: tuple[int, int, int] = (4, 84, 84),
    dtype: str = "float32",
    layout: str = "NCHW",
) -> Function:
    """Three convolutions (8x8/4, 4x4/2, 3x3/1) with relu, a 512-unit hidden layer and one
    Q-value per action."""
    kernel_layout = layers.conv_kernel_layout(layout)
    body = var("data", shape=(batch_size, *image_shape), dtype=dtype)
    for i, (channels, size, stride) in enumerate([(32, 8, 4), (64, 4, 2), (64, 3, 1)], 1):
        body = layers.conv2d(
            body,
            f"conv{i}",
            channels=channels,
            kernel_size=(size, size),
            strides=(stride, stride),
            data_layout=layout,
            kernel_layout=kernel_layout,
        )
        body = nn.relu(nn.bias_add(body, var(f"conv{i}_bias"), axis=layout.index("C")))
    hidden = nn.relu(layers.dense_add_bias(nn.batch_flatten(body), "dense1", units=512))
    out = layers.dense_add_bias(hidden, "dense2", units=num_actions)
    return Function(free_vars(out), out)


def get_workload(
    batch_size: int = 1,
    num_actions: int = 18,
    image_shape: tuple[int, int, int] = (4, 84, 84),
    dtype: str = "float32",
    layout: str = "NCHW",
) -> tuple[IRModule, dict[str, nd.NDArray]]:
    """The network as a module and its random weights (`create_workload`)."""
    return create_workload(get_net(batch_size, num_actions, image_shape, dtype, layout))
