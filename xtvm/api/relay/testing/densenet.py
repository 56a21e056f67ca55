"""TVM's `relay.testing.densenet`: DenseNet (Huang et al. 2017), each layer of a dense block
fed the concatenation of all earlier ones, with its weights."""

from __future__ import annotations

from xtvm.api.ir_module import IRModule
from xtvm.api.relay.analysis import free_vars
from xtvm.api.relay.expr import Expr, Function, var
from xtvm.api.relay.op import concatenate, nn
from xtvm.api.relay.testing import layers
from xtvm.api.relay.testing.init import create_workload
from xtvm.runtime import ndarray as nd

# layers: (initial features, growth rate, layers per dense block)
_SPECS = {
    121: (64, 32, [6, 12, 24, 16]),
    161: (96, 48, [6, 12, 36, 24]),
    169: (64, 32, [6, 12, 32, 32]),
    201: (64, 32, [6, 12, 48, 32]),
}


def bn_relu_conv(data: Expr, name: str, channels: int, kernel: int, padding: int = 0) -> Expr:
    """Batch norm, relu and a convolution: the pre-activation unit DenseNet is made of."""
    body = nn.relu(layers.batch_norm_infer(data, f"{name}_bn"))
    return layers.conv2d(
        body,
        f"{name}_conv",
        channels=channels,
        kernel_size=(kernel, kernel),
        padding=(padding, padding),
    )


def dense_block(data: Expr, name: str, num_layers: int, bn_size: int, growth_rate: int) -> Expr:
    """`num_layers` bottleneck layers (1x1 to `bn_size * growth_rate`, 3x3 to `growth_rate`),
    each reading the block's input and every earlier layer's output."""
    features = [data]
    for i in range(num_layers):
        inputs = features[0] if len(features) == 1 else concatenate(features, axis=1)
        body = bn_relu_conv(inputs, f"{name}_layer{i}_1", bn_size * growth_rate, 1)
        features.append(bn_relu_conv(body, f"{name}_layer{i}_2", growth_rate, 3, padding=1))
    return concatenate(features, axis=1)


def transition(data: Expr, name: str, channels: int) -> Expr:
    """A 1x1 convolution to `channels` and a 2x2 average pool halving the map."""
    body = bn_relu_conv(data, name, channels, 1)
    return nn.avg_pool2d(body, pool_size=(2, 2), strides=(2, 2))


def get_net(
    batch_size: int,
    num_classes: int = 1000,
    densenet_size: int = 121,
    bn_size: int = 4,
    image_shape: tuple[int, int, int] = (3, 224, 224),
    dtype: str = "float32",
) -> Function:
    """DenseNet-`densenet_size` (121, 161, 169 or 201) with compression 0.5."""
    if densenet_size not in _SPECS:
        raise ValueError(f"no DenseNet-{densenet_size}: expected one of {list(_SPECS)}")
    features, growth_rate, block_sizes = _SPECS[densenet_size]
    data = var("data", shape=(batch_size, *image_shape), dtype=dtype)
    body = layers.conv2d(
        data, "conv1", channels=features, kernel_size=(7, 7), strides=(2, 2), padding=(3, 3)
    )
    body = nn.relu(layers.batch_norm_infer(body, "bn1"))
    body = nn.max_pool2d(body, pool_size=(3, 3), strides=(2, 2), padding=(1, 1))
    for i, size in enumerate(block_sizes, 1):
        body = dense_block(body, f"block{i}", size, bn_size, growth_rate)
        features += size * growth_rate
        if i < len(block_sizes):
            features //= 2
            body = transition(body, f"transition{i}", features)
    body = nn.relu(layers.batch_norm_infer(body, "bn_final"))
    pool = nn.global_avg_pool2d(body)
    out = layers.dense_add_bias(nn.batch_flatten(pool), "classifier", units=num_classes)
    return Function(free_vars(out), out)


def get_workload(
    densenet_size: int = 121,
    classes: int = 1000,
    batch_size: int = 4,
    image_shape: tuple[int, int, int] = (3, 224, 224),
    dtype: str = "float32",
) -> tuple[IRModule, dict[str, nd.NDArray]]:
    """The network as a module and its random weights (`create_workload`)."""
    net = get_net(batch_size, classes, densenet_size, image_shape=image_shape, dtype=dtype)
    return create_workload(net)
