"""`topi.nn.pooling`: TVM's pooling entry point, which takes the window and computes the
output shape itself (the relay lowering passes `nn.pool2d` the shape type inference found)."""

from __future__ import annotations

from collections.abc import Sequence

from xtvm import te
from xtvm.topi import nn
from xtvm.topi.tensor import TensorLike, static_shape

__all__ = ["pool2d"]


def pooled_size(size: int, kernel: int, stride: int, dilation: int, pad: int, ceil: bool) -> int:
    """Output extent of one pooled dimension (TVM's rule, `ceil_mode` rounding up)."""
    span = size + pad - (dilation * (kernel - 1) + 1)
    if span < 0:
        raise ValueError(f"pooling window {kernel} (dilation {dilation}) exceeds the input {size}")
    return (span + (stride - 1 if ceil else 0)) // stride + 1


def pool2d(
    data: TensorLike,
    kernel: Sequence[int],
    stride: Sequence[int],
    dilation: Sequence[int],
    padding: Sequence[int],
    pool_type: str,
    ceil_mode: bool = False,
    layout: str = "NCHW",
    count_include_pad: bool = True,
) -> te.Tensor:
    """Max or average pooling over the height and width of `data` (`layout` NCHW or NHWC);
    `padding` is (top, left, bottom, right), as in TVM."""
    if pool_type not in ("max", "avg"):
        raise ValueError(f"pool_type must be 'max' or 'avg', not {pool_type!r}")
    if layout not in ("NCHW", "NHWC"):
        raise ValueError(f"pool2d supports the NCHW and NHWC layouts, not {layout!r}")
    for name, value, count in (
        ("kernel", kernel, 2),
        ("stride", stride, 2),
        ("dilation", dilation, 2),
        ("padding", padding, 4),
    ):
        if len(value) != count:
            raise ValueError(f"pool2d's {name} needs {count} values, got {list(value)}")
    shape = list(static_shape(data))
    if len(shape) != 4:
        raise ValueError(f"pool2d needs a 4-d input, got shape {shape}")
    h_axis, w_axis = nn.spatial(layout)
    pt, pl, pb, pr = (int(p) for p in padding)
    out_shape = list(shape)
    out_shape[h_axis] = pooled_size(
        shape[h_axis], kernel[0], stride[0], dilation[0], pt + pb, ceil_mode
    )
    out_shape[w_axis] = pooled_size(
        shape[w_axis], kernel[1], stride[1], dilation[1], pl + pr, ceil_mode
    )
    return nn.pool_nd(
        data,
        out_shape,
        pool_type,
        kernel,
        stride,
        (pt, pl, pb, pr),
        dilation,
        layout,
        count_include_pad,
    )
