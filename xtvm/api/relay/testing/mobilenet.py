"""TVM's `relay.testing.mobilenet`: MobileNet v1 (Howard et al. 2017), depthwise separable
convolutions with batch norm and relu, with its weights."""

from __future__ import annotations

from xtvm.api.ir_module import IRModule
from xtvm.api.relay.analysis import free_vars
from xtvm.api.relay.expr import Expr, Function, var
from xtvm.api.relay.op import nn
from xtvm.api.relay.testing import layers
from xtvm.api.relay.testing.init import create_workload
from xtvm.runtime import ndarray as nd

# (output channels, stride) of each depthwise separable block after the first convolution
_BLOCKS = [(64, 1), (128, 2), (128, 1), (256, 2), (256, 1), (512, 2)]
_BLOCKS += [(512, 1)] * 5 + [(1024, 2), (1024, 1)]


def conv_block(
    data: Expr,
    name: str,
    channels: int,
    kernel_size: tuple[int, int] = (3, 3),
    strides: tuple[int, int] = (1, 1),
    padding: tuple[int, int] = (1, 1),
    layout: str = "NCHW",
) -> Expr:
    """Convolution, batch norm and relu."""
    conv = layers.conv2d(
        data,
        f"{name}_conv",
        channels=channels,
        kernel_size=kernel_size,
        strides=strides,
        padding=padding,
        data_layout=layout,
        kernel_layout=layers.conv_kernel_layout(layout),
    )
    return nn.relu(
        layers.batch_norm_infer(conv, f"{name}_bn", epsilon=1e-5, axis=layout.index("C"))
    )


def separable_conv_block(
    data: Expr,
    name: str,
    depthwise_channels: int,
    pointwise_channels: int,
    strides: tuple[int, int] = (1, 1),
    layout: str = "NCHW",
) -> Expr:
    """A 3x3 depthwise convolution (one filter per channel) then a 1x1 pointwise one, each
    followed by batch norm and relu."""
    axis = layout.index("C")
    depthwise = layers.conv2d(
        data,
        f"{name}_depthwise_conv1",
        channels=depthwise_channels,
        groups=depthwise_channels,
        kernel_size=(3, 3),
        strides=strides,
        padding=(1, 1),
        data_layout=layout,
        kernel_layout=layers.conv_kernel_layout(layout, is_depthwise=True),
    )
    body = nn.relu(layers.batch_norm_infer(depthwise, f"{name}_bn1", epsilon=1e-5, axis=axis))
    return conv_block(body, name, pointwise_channels, (1, 1), padding=(0, 0), layout=layout)


def mobile_net(
    num_classes: int = 1000,
    data_shape: tuple[int, ...] = (1, 3, 224, 224),
    dtype: str = "float32",
    alpha: float = 1.0,
    layout: str = "NCHW",
) -> Function:
    """The network, its channel counts scaled by the width multiplier `alpha`."""
    body = var("data", shape=data_shape, dtype=dtype)
    channels = int(32 * alpha)
    body = conv_block(body, "conv_block_1", channels, strides=(2, 2), layout=layout)
    for i, (out, stride) in enumerate(_BLOCKS, 1):
        out = int(out * alpha)
        body = separable_conv_block(
            body, f"separable_conv_block_{i}", channels, out, (stride, stride), layout
        )
        channels = out
    pool = nn.global_avg_pool2d(body, layout=layout)
    out = nn.softmax(layers.dense_add_bias(nn.batch_flatten(pool), "fc", units=num_classes))
    return Function(free_vars(out), out)


def get_workload(
    batch_size: int = 1,
    num_classes: int = 1000,
    image_shape: tuple[int, int, int] = (3, 224, 224),
    dtype: str = "float32",
    layout: str = "NCHW",
) -> tuple[IRModule, dict[str, nd.NDArray]]:
    """The network as a module and its random weights (`create_workload`)."""
    net = mobile_net(num_classes, (batch_size, *image_shape), dtype, layout=layout)
    return create_workload(net)
