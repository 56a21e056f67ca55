"""TVM's `relay.testing.resnet`: pre-activation ResNet (He et al., "Identity Mappings in
Deep Residual Networks") for ImageNet-sized or CIFAR-sized images, with its weights."""

from __future__ import annotations

from xtvm.api.ir_module import IRModule
from xtvm.api.relay.analysis import free_vars
from xtvm.api.relay.expr import Expr, Function, var
from xtvm.api.relay.op import add, nn
from xtvm.api.relay.testing import layers
from xtvm.api.relay.testing.init import create_workload
from xtvm.runtime import ndarray as nd

_IMAGENET_UNITS = {
    18: [2, 2, 2, 2],
    34: [3, 4, 6, 3],
    50: [3, 4, 6, 3],
    101: [3, 4, 23, 3],
    152: [3, 8, 36, 3],
    200: [3, 24, 36, 3],
    269: [3, 30, 48, 8],
}


def residual_unit(
    data: Expr,
    num_filter: int,
    stride: tuple[int, int],
    dim_match: bool,
    name: str,
    bottle_neck: bool = True,
    data_layout: str = "NCHW",
    kernel_layout: str = "OIHW",
) -> Expr:
    """One unit: (batch norm, relu, conv) twice, or three times with a 1x1-3x3-1x1
    bottleneck, plus the input (through a 1x1 conv when the shape changes)."""
    axis = data_layout.index("C")
    conv_args = {"data_layout": data_layout, "kernel_layout": kernel_layout}
    if bottle_neck:
        plan = [
            (num_filter // 4, (1, 1), stride, (0, 0)),
            (num_filter // 4, (3, 3), (1, 1), (1, 1)),
            (num_filter, (1, 1), (1, 1), (0, 0)),
        ]
    else:
        plan = [(num_filter, (3, 3), stride, (1, 1)), (num_filter, (3, 3), (1, 1), (1, 1))]
    body, first_act = data, None
    for i, (channels, kernel, strides, padding) in enumerate(plan, 1):
        act = nn.relu(layers.batch_norm_infer(body, f"{name}_bn{i}", epsilon=2e-5, axis=axis))
        first_act = act if first_act is None else first_act
        body = layers.conv2d(
            act,
            f"{name}_conv{i}",
            channels=channels,
            kernel_size=kernel,
            strides=strides,
            padding=padding,
            **conv_args,
        )
    shortcut = data
    if not dim_match:
        shortcut = layers.conv2d(
            first_act,
            f"{name}_sc",
            channels=num_filter,
            kernel_size=(1, 1),
            strides=stride,
            **conv_args,
        )
    return add(body, shortcut)


def get_net(
    batch_size: int,
    num_classes: int,
    num_layers: int = 50,
    image_shape: tuple[int, int, int] = (3, 224, 224),
    layout: str = "NCHW",
    dtype: str = "float32",
) -> Function:
    """The network for `num_layers` (18 to 269 for ImageNet; 6n+2 or 9n+2 for CIFAR)."""
    height = image_shape[0] if layout == "NHWC" else image_shape[1]
    if height <= 28:
        if (num_layers - 2) % 9 == 0 and num_layers >= 164:
            units, filters, bottle_neck = [(num_layers - 2) // 9] * 3, [16, 64, 128, 256], True
        elif (num_layers - 2) % 6 == 0 and num_layers < 164:
            units, filters, bottle_neck = [(num_layers - 2) // 6] * 3, [16, 16, 32, 64], False
        else:
            raise ValueError(f"no CIFAR ResNet has {num_layers} layers")
    else:
        if num_layers not in _IMAGENET_UNITS:
            raise ValueError(f"no ImageNet ResNet has {num_layers} layers: {list(_IMAGENET_UNITS)}")
        units = _IMAGENET_UNITS[num_layers]
        bottle_neck = num_layers >= 50
        filters = [64, 256, 512, 1024, 2048] if bottle_neck else [64, 64, 128, 256, 512]
    kernel_layout = "OIHW" if layout == "NCHW" else "HWIO"
    axis = layout.index("C")
    data = var("data", shape=(batch_size, *image_shape), dtype=dtype)
    body = layers.batch_norm_infer(data, "bn_data", epsilon=2e-5, axis=axis, scale=False)
    conv_args = {"data_layout": layout, "kernel_layout": kernel_layout}
    if height <= 32:
        body = layers.conv2d(
            body, "conv0", channels=filters[0], kernel_size=(3, 3), padding=(1, 1), **conv_args
        )
    else:
        body = layers.conv2d(
            body,
            "conv0",
            channels=filters[0],
            kernel_size=(7, 7),
            strides=(2, 2),
            padding=(3, 3),
            **conv_args,
        )
        body = nn.relu(layers.batch_norm_infer(body, "bn0", epsilon=2e-5, axis=axis))
        body = nn.max_pool2d(body, pool_size=(3, 3), strides=(2, 2), padding=(1, 1), layout=layout)
    for stage, count in enumerate(units):
        for unit in range(count):
            step = 2 if stage > 0 and unit == 0 else 1
            body = residual_unit(
                body,
                filters[stage + 1],
                (step, step),
                unit > 0,
                f"stage{stage + 1}_unit{unit + 1}",
                bottle_neck,
                layout,
                kernel_layout,
            )
    body = nn.relu(layers.batch_norm_infer(body, "bn1", epsilon=2e-5, axis=axis))
    flat = nn.batch_flatten(nn.global_avg_pool2d(body, layout=layout))
    out = nn.softmax(layers.dense_add_bias(flat, "fc1", units=num_classes))
    return Function(free_vars(out), out)


def get_workload(
    batch_size: int = 1,
    num_classes: int = 1000,
    num_layers: int = 18,
    image_shape: tuple[int, int, int] = (3, 224, 224),
    layout: str = "NCHW",
    dtype: str = "float32",
) -> tuple[IRModule, dict[str, nd.NDArray]]:
    """The network as a module and its random weights (`create_workload`)."""
    net = get_net(batch_size, num_classes, num_layers, image_shape, layout, dtype)
    return create_workload(net)
