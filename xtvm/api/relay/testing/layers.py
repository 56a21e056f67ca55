"""TVM's `relay.testing.layers`: layers that make their own weight variables, named after
the layer, so a workload is written as a chain of calls (`create_workload` fills them)."""

from __future__ import annotations

from typing import Any

from xtvm.api.relay.expr import Expr, var
from xtvm.api.relay.op import nn


def batch_norm_infer(data: Expr, name: str, **kwargs: Any) -> Expr:
    """The normalized output of `nn.batch_norm` with `name`'s gamma, beta, mean and var."""
    stats = [var(f"{name}_{p}") for p in ("gamma", "beta", "moving_mean", "moving_var")]
    return nn.batch_norm(data, *stats, **kwargs)[0]


def conv2d(data: Expr, name: str, weight: Expr | None = None, **kwargs: Any) -> Expr:
    """`nn.conv2d` with the weight `{name}_weight` unless one is given."""
    return nn.conv2d(data, weight if weight is not None else var(f"{name}_weight"), **kwargs)


def conv2d_transpose(data: Expr, name: str, weight: Expr | None = None, **kwargs: Any) -> Expr:
    """`nn.conv2d_transpose` with the weight `{name}_weight` unless one is given."""
    w = weight if weight is not None else var(f"{name}_weight")
    return nn.conv2d_transpose(data, w, **kwargs)


def dense_add_bias(data: Expr, name: str, units: int | None = None, **kwargs: Any) -> Expr:
    """`nn.dense` then `nn.bias_add` with `{name}_weight` and `{name}_bias`."""
    out = nn.dense(data, var(f"{name}_weight"), units, **kwargs)
    return nn.bias_add(out, var(f"{name}_bias"), axis=-1)


def conv_kernel_layout(data_layout: str, is_depthwise: bool = False) -> str:
    """The kernel layout that goes with `data_layout` (NCHW or NHWC)."""
    layouts = {"NCHW": "OIHW", "NHWC": "HWOI" if is_depthwise else "HWIO"}
    if data_layout not in layouts:
        raise ValueError(f"unknown data layout {data_layout!r}: expected NCHW or NHWC")
    return layouts[data_layout]
