"""TVM's `relay.testing.inception_v3`: Inception v3 (Szegedy et al., "Rethinking the
Inception Architecture for Computer Vision") on 299x299 images, with its weights."""

from __future__ import annotations

from collections.abc import Callable

from xtvm.api.ir_module import IRModule
from xtvm.api.relay.analysis import free_vars
from xtvm.api.relay.expr import Expr, Function, var
from xtvm.api.relay.op import concatenate, nn
from xtvm.api.relay.testing import layers
from xtvm.api.relay.testing.init import create_workload
from xtvm.runtime import ndarray as nd

Pair = tuple[int, int]


def conv(
    data: Expr, name: str, channels: int, kernel: Pair, strides: Pair = (1, 1), pad: Pair = (0, 0)
) -> Expr:
    """A convolution without bias, batch norm and relu: every layer of the network."""
    body = layers.conv2d(
        data, f"{name}_conv1", channels=channels, kernel_size=kernel, strides=strides, padding=pad
    )
    return nn.relu(layers.batch_norm_infer(body, f"{name}_bn", epsilon=2e-5, scale=False))


def pool(data: Expr, kind: str, strides: Pair, pad: Pair) -> Expr:
    """A 3x3 max or average pool."""
    if kind == "max":
        return nn.max_pool2d(data, pool_size=(3, 3), strides=strides, padding=pad)
    return nn.avg_pool2d(data, pool_size=(3, 3), strides=strides, padding=pad)


def chain(data: Expr, name: str, steps: list[tuple[int, Pair, Pair]]) -> Expr:
    """Stride-1 convolutions one after another, each (channels, kernel, padding)."""
    for i, (channels, kernel, pad) in enumerate(steps):
        data = conv(data, f"{name}_conv_{i}", channels, kernel, pad=pad)
    return data


def inception_a(data: Expr, proj: int, name: str) -> Expr:
    """35x35: 1x1, 5x5, double 3x3 and pooled branches."""
    return concatenate(
        [
            conv(data, f"{name}_conv", 64, (1, 1)),
            chain(data, f"{name}_tower", [(48, (1, 1), (0, 0)), (64, (5, 5), (2, 2))]),
            chain(
                data,
                f"{name}_tower_1",
                [(64, (1, 1), (0, 0)), (96, (3, 3), (1, 1)), (96, (3, 3), (1, 1))],
            ),
            conv(pool(data, "avg", (1, 1), (1, 1)), f"{name}_tower_2", proj, (1, 1)),
        ],
        axis=1,
    )


def inception_b(data: Expr, name: str) -> Expr:
    """35x35 to 17x17: strided 3x3, strided double 3x3 and max-pooled branches."""
    tower = chain(data, f"{name}_tower", [(64, (1, 1), (0, 0)), (96, (3, 3), (1, 1))])
    return concatenate(
        [
            conv(data, f"{name}_conv", 384, (3, 3), strides=(2, 2)),
            conv(tower, f"{name}_tower_s2", 96, (3, 3), strides=(2, 2)),
            pool(data, "max", (2, 2), (0, 0)),
        ],
        axis=1,
    )


def inception_c(data: Expr, c7: int, name: str) -> Expr:
    """17x17: 1x1, factorized 7x7 (1x7 then 7x1), doubly factorized 7x7 and pooled."""
    row, col = ((1, 7), (0, 3)), ((7, 1), (3, 0))
    return concatenate(
        [
            conv(data, f"{name}_conv", 192, (1, 1)),
            chain(data, f"{name}_tower", [(c7, (1, 1), (0, 0)), (c7, *row), (192, *col)]),
            chain(
                data,
                f"{name}_tower_1",
                [(c7, (1, 1), (0, 0)), (c7, *col), (c7, *row), (c7, *col), (192, *row)],
            ),
            conv(pool(data, "avg", (1, 1), (1, 1)), f"{name}_tower_2", 192, (1, 1)),
        ],
        axis=1,
    )


def inception_d(data: Expr, name: str) -> Expr:
    """17x17 to 8x8: strided 3x3 after a 1x1, strided 3x3 after a 7x7, max-pooled."""
    tower = conv(data, f"{name}_tower", 192, (1, 1))
    tower_1 = chain(
        data,
        f"{name}_tower_1",
        [(192, (1, 1), (0, 0)), (192, (1, 7), (0, 3)), (192, (7, 1), (3, 0))],
    )
    return concatenate(
        [
            conv(tower, f"{name}_tower_s2", 320, (3, 3), strides=(2, 2)),
            conv(tower_1, f"{name}_tower_1_s2", 192, (3, 3), strides=(2, 2)),
            pool(data, "max", (2, 2), (0, 0)),
        ],
        axis=1,
    )


def inception_e(data: Expr, pool_kind: str, name: str) -> Expr:
    """8x8: 1x1, a 1x1 split into 1x3 and 3x1, a 3x3 split likewise, and pooled."""

    def split(x: Expr, tower: str) -> list[Expr]:
        return [
            conv(x, f"{tower}_mixed_conv", 384, (1, 3), pad=(0, 1)),
            conv(x, f"{tower}_mixed_conv_1", 384, (3, 1), pad=(1, 0)),
        ]

    tower = conv(data, f"{name}_tower", 384, (1, 1))
    tower_1 = chain(data, f"{name}_tower_1", [(448, (1, 1), (0, 0)), (384, (3, 3), (1, 1))])
    pooled = pool(data, pool_kind, (1, 1), (1, 1))
    return concatenate(
        [
            conv(data, f"{name}_conv", 320, (1, 1)),
            *split(tower, f"{name}_tower"),
            *split(tower_1, f"{name}_tower_1"),
            conv(pooled, f"{name}_tower_2", 192, (1, 1)),
        ],
        axis=1,
    )


def get_net(
    batch_size: int,
    num_classes: int,
    image_shape: tuple[int, int, int],
    dtype: str,
) -> Function:
    """The stem, then 3 A, B, 4 C, D and 2 E blocks, global pooling and the classifier."""
    body = var("data", shape=(batch_size, *image_shape), dtype=dtype)
    body = conv(body, "conv", 32, (3, 3), strides=(2, 2))
    body = conv(body, "conv_1", 32, (3, 3))
    body = conv(body, "conv_2", 64, (3, 3), pad=(1, 1))
    body = pool(body, "max", (2, 2), (0, 0))
    body = conv(body, "conv_3", 80, (1, 1))
    body = conv(body, "conv_4", 192, (3, 3))
    body = pool(body, "max", (2, 2), (0, 0))
    blocks: list[Callable[[Expr, str], Expr]] = [
        lambda x, n: inception_a(x, 32, n),
        lambda x, n: inception_a(x, 64, n),
        lambda x, n: inception_a(x, 64, n),
        inception_b,
        *(lambda x, n, c=c: inception_c(x, c, n) for c in (128, 160, 160, 192)),
        inception_d,
        lambda x, n: inception_e(x, "avg", n),
        lambda x, n: inception_e(x, "max", n),
    ]
    for i, block in enumerate(blocks):
        body = block(body, f"mixed{'_' + str(i) if i else ''}")
    flat = nn.batch_flatten(nn.global_avg_pool2d(body))
    out = nn.softmax(layers.dense_add_bias(flat, "fc1", units=num_classes))
    return Function(free_vars(out), out)


def get_workload(
    batch_size: int = 1,
    num_classes: int = 1000,
    image_shape: tuple[int, int, int] = (3, 299, 299),
    dtype: str = "float32",
) -> tuple[IRModule, dict[str, nd.NDArray]]:
    """The network as a module and its random weights (`create_workload`)."""
    return create_workload(get_net(batch_size, num_classes, image_shape, dtype))
