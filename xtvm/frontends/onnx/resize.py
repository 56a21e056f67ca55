"""ONNX Resize and Upsample as per-axis interpolation matrices.

ONNX interpolation is separable: each resized axis maps an input line of length n to an output
line of length m by a fixed m x n matrix that depends only on the sizes and the attributes
(mode, coordinate transformation, rounding, cubic coefficient, antialias, roi). Building that
matrix in numpy at import time reproduces every ONNX variant exactly; the graph then applies it
with `relay.take` (nearest: one source index per output) or `relay.nn.dense` (linear, cubic).
The formulas mirror `onnx.reference.ops.op_resize`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class ResizeMode:
    """The attributes of one Resize that shape its interpolation matrices."""

    mode: str = "nearest"  # nearest, linear, cubic
    coordinate_mode: str = "half_pixel"
    nearest_mode: str = "round_prefer_floor"
    cubic_a: float = -0.75
    exclude_outside: bool = False
    antialias: bool = False
    extrapolation_value: float = 0.0


def source_coordinate(
    x: int, scale: float, in_size: int, out_size: int, mode: str, roi: tuple[float, float]
) -> float:
    """The input coordinate sampled by output index `x` (ONNX's coordinate transformations)."""
    out_width = scale * in_size
    if mode == "align_corners":
        return 0.0 if out_width == 1 else x * (in_size - 1) / (out_width - 1)
    if mode == "asymmetric":
        return x / scale
    if mode == "tf_crop_and_resize":
        start, end = roi
        if out_width == 1:
            return (end - start) * (in_size - 1) / 2 + start * (in_size - 1)
        return x * (end - start) * (in_size - 1) / (out_width - 1) + start * (in_size - 1)
    if mode == "pytorch_half_pixel":
        return -0.5 if out_width == 1 else (x + 0.5) / scale - 0.5
    if mode == "half_pixel":
        return (x + 0.5) / scale - 0.5
    if mode == "half_pixel_symmetric":
        offset = in_size / 2 * (1 - out_size / out_width)
        return offset + (x + 0.5) / scale - 0.5
    raise ValueError(f"coordinate_transformation_mode '{mode}' is not supported")


def tap_weights(ratio: float, scale: float, m: ResizeMode) -> tuple[int, np.ndarray]:
    """(first tap offset from floor, weights) for a source point `ratio` in (0, 1] past it."""
    if m.mode == "nearest":
        if ratio == 1:
            return 0, np.array([0.0, 1.0])
        pick_right = {
            "round_prefer_floor": ratio > 0.5,
            "round_prefer_ceil": ratio >= 0.5,
            "floor": False,
            "ceil": True,
        }.get(m.nearest_mode)
        if pick_right is None:
            raise ValueError(f"nearest_mode '{m.nearest_mode}' is not supported")
        return 0, np.array([0.0, 1.0]) if pick_right else np.array([1.0, 0.0])
    s = min(scale, 1.0) if m.antialias else 1.0
    if m.mode == "linear":
        start = math.floor(-1 / s) + 1
        args = (np.arange(start, 2 - start) - ratio) * s
        w = np.clip(1 - np.abs(args), 0, 1)
        return start, w / w.sum()
    if m.mode == "cubic":
        a = m.cubic_a
        start = math.floor(-2 / s) + 1
        x = np.abs((np.arange(start, 2 - start) - ratio) * s)
        w = np.where(
            x <= 1,
            (a + 2) * x**3 - (a + 3) * x**2 + 1,
            np.where(x < 2, a * x**3 - 5 * a * x**2 + 8 * a * x - 4 * a, 0.0),
        )
        return start, w / w.sum() if m.antialias else w
    raise ValueError(f"mode '{m.mode}' is not supported")


def interpolation_matrix(
    in_size: int, out_size: int, scale: float, m: ResizeMode, roi: tuple[float, float] = (0, 1)
) -> np.ndarray:
    """The out_size x in_size matrix of one axis; rows outside a crop's roi are zero."""
    matrix = np.zeros((out_size, in_size))
    for o in range(out_size):
        x = source_coordinate(o, scale, in_size, out_size, m.coordinate_mode, roi)
        if m.coordinate_mode == "tf_crop_and_resize" and not 0 <= x <= in_size - 1:
            continue  # extrapolated
        base = math.floor(x)
        ratio = x - base
        if ratio == 0:
            base, ratio = base - 1, 1.0
        start, weights = tap_weights(ratio, scale, m)
        taps = base + start + np.arange(len(weights))
        if m.exclude_outside and m.mode != "nearest":
            weights = np.where((taps < 0) | (taps >= in_size), 0.0, weights)
            weights = weights / weights.sum()
        for tap, w in zip(np.clip(taps, 0, in_size - 1), weights, strict=True):
            matrix[o, tap] += w
    return matrix
