"""Image operators: `relay.image.resize1d`, `resize2d` and `resize3d` (nearest_neighbor,
linear and cubic methods)."""

from __future__ import annotations

from collections.abc import Sequence

from xtvm.api.relay.expr import Call, Expr, derive_builders, make_call
from xtvm.dialects import relay as d


def _resize(
    op: type[d.RelayOp],
    data: Expr,
    size: Sequence[int],
    roi: Sequence[float] | None,
    layout: str,
    method: str,
    coordinate_transformation_mode: str,
    rounding_method: str,
    cubic_alpha: float,
    cubic_exclude: int,
    extrapolation_value: float,
    out_dtype: str | None,
) -> Call:
    if roi is not None and any(float(r) for r in roi):
        raise ValueError(f"{op.name}: roi is only supported for tf_crop_and_resize, not here")
    if out_dtype not in (None, "", data.checked_type.dtype):  # type: ignore[union-attr]
        raise ValueError(f"{op.name}: out_dtype other than the data's is not supported")
    return make_call(
        op,
        data,
        size=[int(s) for s in size],
        layout=layout,
        method=method,
        coordinate_transformation_mode=coordinate_transformation_mode,
        rounding_method=rounding_method,
        cubic_alpha=float(cubic_alpha),
        cubic_exclude=int(cubic_exclude),
    )


def resize1d(
    data: Expr,
    size: Sequence[int],
    roi: Sequence[float] | None = None,
    layout: str = "NCW",
    method: str = "linear",
    coordinate_transformation_mode: str = "half_pixel",
    rounding_method: str = "",
    cubic_alpha: float = -0.5,
    cubic_exclude: int = 0,
    extrapolation_value: float = 0.0,
    out_dtype: str | None = None,
) -> Call:
    return _resize(
        d.Resize1dOp,
        data,
        size,
        roi,
        layout,
        method,
        coordinate_transformation_mode,
        rounding_method,
        cubic_alpha,
        cubic_exclude,
        extrapolation_value,
        out_dtype,
    )


def resize2d(
    data: Expr,
    size: Sequence[int],
    roi: Sequence[float] | None = None,
    layout: str = "NCHW",
    method: str = "linear",
    coordinate_transformation_mode: str = "half_pixel",
    rounding_method: str = "",
    cubic_alpha: float = -0.5,
    cubic_exclude: int = 0,
    extrapolation_value: float = 0.0,
    out_dtype: str | None = None,
) -> Call:
    return _resize(
        d.Resize2dOp,
        data,
        size,
        roi,
        layout,
        method,
        coordinate_transformation_mode,
        rounding_method,
        cubic_alpha,
        cubic_exclude,
        extrapolation_value,
        out_dtype,
    )


def resize3d(
    data: Expr,
    size: Sequence[int],
    roi: Sequence[float] | None = None,
    layout: str = "NCDHW",
    method: str = "linear",
    coordinate_transformation_mode: str = "half_pixel",
    rounding_method: str = "",
    cubic_alpha: float = -0.5,
    cubic_exclude: int = 0,
    extrapolation_value: float = 0.0,
    out_dtype: str | None = None,
) -> Call:
    return _resize(
        d.Resize3dOp,
        data,
        size,
        roi,
        layout,
        method,
        coordinate_transformation_mode,
        rounding_method,
        cubic_alpha,
        cubic_exclude,
        extrapolation_value,
        out_dtype,
    )


derive_builders(globals(), "image.")
