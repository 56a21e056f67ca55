"""TVM's `relay.testing.dcgan`: the generator of DCGAN (Radford et al. 2016), a random code
grown by transposed convolutions into an image, with its weights."""

from __future__ import annotations

from xtvm.api.ir_module import IRModule
from xtvm.api.relay.analysis import free_vars
from xtvm.api.relay.expr import Expr, Function, var
from xtvm.api.relay.op import nn, reshape, tanh
from xtvm.api.relay.testing import layers
from xtvm.api.relay.testing.init import create_workload
from xtvm.runtime import ndarray as nd


def deconv2d(data: Expr, ishape: tuple[int, int], oshape: tuple[int, ...], name: str) -> Expr:
    """A 4x4 stride-2 transposed convolution from an `ishape` map to `oshape` (C, H, W),
    with the padding and output padding that give exactly that size."""
    pads, extra = [], []
    for i, o in zip(ishape, oshape[-2:], strict=True):
        total = (i - 1) * 2 + 4 - o  # what the padding removes on both sides together
        if total < 0:
            raise ValueError(f"{name}: a 4x4 stride-2 deconvolution cannot grow {i} to {o}")
        pads.append((total + 1) // 2)
        extra.append(total % 2)
    return layers.conv2d_transpose(
        data,
        name,
        channels=oshape[0],
        kernel_size=(4, 4),
        strides=(2, 2),
        padding=tuple(pads),
        output_padding=tuple(extra),
    )


def deconv2d_bn_relu(
    data: Expr, ishape: tuple[int, int], oshape: tuple[int, ...], name: str
) -> Expr:
    """`deconv2d`, batch norm and relu."""
    out = deconv2d(data, ishape, oshape, name)
    return nn.relu(layers.batch_norm_infer(out, f"{name}_bn", epsilon=1e-5 + 1e-12))


def get_net(
    batch_size: int,
    random_len: int = 100,
    oshape: tuple[int, int, int] = (3, 64, 64),
    ngf: int = 128,
    code: Expr | None = None,
    dtype: str = "float32",
) -> Function:
    """Code -> dense to a 4x4 map of 8*ngf channels -> four deconvolutions doubling the map
    (8, 16, 32 then 64 pixels) -> tanh. `oshape` must be 64x64."""
    if tuple(oshape[-2:]) != (64, 64):
        raise ValueError(f"the DCGAN generator makes 64x64 images, not {tuple(oshape[-2:])}")
    if code is None:
        code = var("data", shape=(batch_size, random_len), dtype=dtype)
    dense = nn.dense(code, var("dense_weight"), units=4 * 4 * ngf * 8)
    body = reshape(nn.relu(dense), newshape=(-1, ngf * 8, 4, 4))
    size = 4
    for i, channels in enumerate([ngf * 4, ngf * 2, ngf], 2):
        body = deconv2d_bn_relu(body, (size, size), (channels, size * 2, size * 2), f"g{i}")
        size *= 2
    out = tanh(deconv2d(body, (size, size), tuple(oshape), "g5_deconv"))
    return Function(free_vars(out), out)


def get_workload(
    batch_size: int,
    oshape: tuple[int, int, int] = (3, 64, 64),
    ngf: int = 128,
    random_len: int = 100,
    dtype: str = "float32",
) -> tuple[IRModule, dict[str, nd.NDArray]]:
    """The network as a module and its random weights (`create_workload`)."""
    return create_workload(get_net(batch_size, random_len, oshape, ngf, dtype=dtype))
