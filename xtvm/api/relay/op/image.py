"""Image operators: `relay.image.resize2d` (nearest_neighbor and linear methods)."""

from __future__ import annotations

from collections.abc import Sequence

from xtvm.api.relay.expr import Call, Expr, derive_builders, make_call
from xtvm.dialects import relay as d


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
    if roi is not None and any(float(r) for r in roi):
        raise ValueError("resize2d: roi is only supported for tf_crop_and_resize, not here")
    return make_call(
        d.Resize2dOp,
        data,
        size=[int(s) for s in size],
        layout=layout,
        method=method,
        coordinate_transformation_mode=coordinate_transformation_mode,
        rounding_method=rounding_method,
    )


derive_builders(globals(), "image.")
