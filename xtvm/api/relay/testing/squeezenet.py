"""TVM's `relay.testing.squeezenet`: SqueezeNet 1.0 and 1.1 (Iandola et al. 2016), fire
modules of 1x1 squeeze and 1x1 + 3x3 expand convolutions, with its weights."""

from __future__ import annotations

from xtvm.api.ir_module import IRModule
from xtvm.api.relay.analysis import free_vars
from xtvm.api.relay.expr import Expr, Function, var
from xtvm.api.relay.op import concatenate, nn
from xtvm.api.relay.testing import layers
from xtvm.api.relay.testing.init import create_workload
from xtvm.runtime import ndarray as nd

# Per version: the first convolution (channels, kernel) and the layers after it, "pool" for
# a 3x3 stride-2 max pool or the (squeeze, expand) channels of a fire module.
_PLANS: dict[str, tuple[tuple[int, int], list]] = {
    "1.0": ((96, 7), ["pool", (16, 64), (16, 64), (32, 128), "pool", (32, 128), (48, 192),
                      (48, 192), (64, 256), "pool", (64, 256)]),
    "1.1": ((64, 3), ["pool", (16, 64), (16, 64), "pool", (32, 128), (32, 128), "pool",
                      (48, 192), (48, 192), (64, 256), (64, 256)]),
}  # fmt: skip


def conv_relu(data: Expr, name: str, channels: int, kernel: int, **kwargs: object) -> Expr:
    """Convolution with bias, then relu."""
    conv = layers.conv2d(data, name, channels=channels, kernel_size=(kernel, kernel), **kwargs)
    return nn.relu(nn.bias_add(conv, var(f"{name}_bias")))


def fire(data: Expr, name: str, squeeze: int, expand: int) -> Expr:
    """Squeeze to `squeeze` channels, expand by 1x1 and 3x3 convolutions to `expand`
    channels each, and concatenate the two."""
    body = conv_relu(data, f"{name}_input", squeeze, 1)
    left = conv_relu(body, f"{name}_left", expand, 1)
    right = conv_relu(body, f"{name}_right", expand, 3, padding=(1, 1))
    return concatenate([left, right], axis=1)


def get_net(
    batch_size: int,
    image_shape: tuple[int, int, int],
    num_classes: int,
    version: str,
    dtype: str,
) -> Function:
    """The network of `version` ("1.0" or "1.1")."""
    if version not in _PLANS:
        raise ValueError(f"SqueezeNet version {version!r}: expected one of {list(_PLANS)}")
    (channels, kernel), plan = _PLANS[version]
    body = var("data", shape=(batch_size, *image_shape), dtype=dtype)
    body = conv_relu(body, "conv1", channels, kernel, strides=(2, 2))
    for i, step in enumerate(plan):
        if step == "pool":
            body = nn.max_pool2d(body, pool_size=(3, 3), strides=(2, 2))
        else:
            body = fire(body, f"fire{i}", *step)
    body = nn.dropout(body, rate=0.5)
    body = conv_relu(body, "conv_final", num_classes, 1)
    out = nn.softmax(nn.batch_flatten(nn.global_avg_pool2d(body)))
    return Function(free_vars(out), out)


def get_workload(
    batch_size: int = 1,
    num_classes: int = 1000,
    version: str = "1.0",
    image_shape: tuple[int, int, int] = (3, 224, 224),
    dtype: str = "float32",
) -> tuple[IRModule, dict[str, nd.NDArray]]:
    """The network as a module and its random weights (`create_workload`)."""
    return create_workload(get_net(batch_size, image_shape, num_classes, version, dtype))
