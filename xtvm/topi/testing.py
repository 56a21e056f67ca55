"""`topi.testing`: numpy reference implementations that TVM's tests compare kernels with."""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence

import numpy as np

__all__ = [
    "log_softmax_python",
    "resize1d_python",
    "resize2d_python",
    "resize3d_python",
    "softmax_python",
]


def softmax_python(a_np: np.ndarray, axis: int = 1) -> np.ndarray:
    """Softmax along `axis`, computed stably (the maximum subtracted first)."""
    shifted = a_np - np.max(a_np, axis=axis, keepdims=True)
    e = np.exp(shifted)
    return (e / np.sum(e, axis=axis, keepdims=True)).astype(a_np.dtype)


def log_softmax_python(a_np: np.ndarray, axis: int = 1) -> np.ndarray:
    """Log of the softmax along `axis`, without forming the softmax itself."""
    shifted = a_np - np.max(a_np, axis=axis, keepdims=True)
    return (shifted - np.log(np.sum(np.exp(shifted), axis=axis, keepdims=True))).astype(a_np.dtype)


def _source(o: int, in_size: int, out_size: int, mode: str) -> float:
    """The input coordinate output index `o` samples (TVM's coordinate transformations)."""
    if mode == "align_corners":
        return o * (in_size - 1) / (out_size - 1) if out_size > 1 else 0.0
    if mode == "half_pixel":
        return (o + 0.5) * in_size / out_size - 0.5
    if mode == "asymmetric":
        return o * in_size / out_size
    raise ValueError(f"unknown coordinate transformation mode {mode!r}")


def _taps(c: float, in_size: int, method: str, mode: str) -> list[tuple[int, float]]:
    """(input index, weight) pairs that one output coordinate `c` mixes along an axis."""
    clamp = lambda i: min(max(i, 0), in_size - 1)  # noqa: E731
    if method == "nearest_neighbor":
        return [(clamp(math.floor(c + 0.5) if mode == "align_corners" else math.floor(c)), 1.0)]
    base = math.floor(c)
    t = c - base
    if method == "linear":
        return [(clamp(base), 1.0 - t), (clamp(base + 1), t)]
    if method == "cubic":  # Keys' kernel, a = -0.5, written as the distance to each tap
        a = -0.5

        def kernel(x: float) -> float:
            x = abs(x)
            if x <= 1:
                return (a + 2) * x**3 - (a + 3) * x**2 + 1
            if x < 2:
                return a * x**3 - 5 * a * x**2 + 8 * a * x - 4 * a
            return 0.0

        return [(clamp(base + k), kernel(t - k)) for k in (-1, 0, 1, 2)]
    raise ValueError(f"unknown resize method {method!r}")


def _resize_channels_first(
    data: np.ndarray, scale: Sequence[float], method: str, mode: str
) -> np.ndarray:
    """Resize the trailing spatial axes of an N, C, spatial... array by `scale`."""
    spatial = data.shape[2:]
    out_sizes = [round(n * s) for n, s in zip(spatial, scale, strict=True)]
    per_axis = [
        [_taps(_source(o, n, m, mode), n, method, mode) for o in range(m)]
        for n, m in zip(spatial, out_sizes, strict=True)
    ]
    out = np.zeros(data.shape[:2] + tuple(out_sizes), dtype=np.float64)
    for position in itertools.product(*(range(m) for m in out_sizes)):
        mixes = [per_axis[a][o] for a, o in enumerate(position)]
        for combo in itertools.product(*mixes):
            weight = math.prod(w for _, w in combo)
            out[(slice(None), slice(None), *position)] += (
                weight * data[(slice(None), slice(None), *(i for i, _ in combo))]
            )
    return out.astype(data.dtype)


def _resize_python(
    data: np.ndarray, scale: Sequence[float], layout: str, method: str, mode: str
) -> np.ndarray:
    if layout[1] == "C":
        return _resize_channels_first(data, scale, method, mode)
    to_first = (0, data.ndim - 1, *range(1, data.ndim - 1))
    out = _resize_channels_first(data.transpose(to_first), scale, method, mode)
    return out.transpose((0, *range(2, data.ndim), 1))


def resize1d_python(
    data: np.ndarray,
    scale: Sequence[float],
    layout: str = "NCW",
    method: str = "nearest_neighbor",
    coordinate_transformation_mode: str = "align_corners",
) -> np.ndarray:
    """`data` (NCW or NWC) resized by `scale` along W, as `relay.image.resize1d` does."""
    return _resize_python(data, scale, layout, method, coordinate_transformation_mode)


def resize2d_python(
    data: np.ndarray,
    scale: Sequence[float],
    layout: str = "NCHW",
    method: str = "nearest_neighbor",
    coordinate_transformation_mode: str = "align_corners",
) -> np.ndarray:
    """`data` (NCHW or NHWC) resized by `scale` along H and W, as `relay.image.resize2d`."""
    return _resize_python(data, scale, layout, method, coordinate_transformation_mode)


def resize3d_python(
    data: np.ndarray,
    scale: Sequence[float],
    layout: str = "NCDHW",
    method: str = "nearest_neighbor",
    coordinate_transformation_mode: str = "align_corners",
) -> np.ndarray:
    """`data` (NCDHW or NDHWC) resized by `scale` along D, H and W, as
    `relay.image.resize3d` does."""
    return _resize_python(data, scale, layout, method, coordinate_transformation_mode)
