"""Image operators: `relay.image.resize1d`, `resize2d` and `resize3d` (nearest_neighbor,
linear and cubic methods)."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from xtvm.api.relay.expr import Call, Expr, derive_builders, make_call
from xtvm.dialects import relay as d


def _resize_builder(op: type[d.RelayOp], default_layout: str) -> Callable[..., Call]:
    """TVM's `image.resize<n>d(data, size, roi, layout, method, ...)` building `op`."""

    def resize(
        data: Expr,
        size: Sequence[int],
        roi: Sequence[float] | None = None,
        layout: str = default_layout,
        method: str = "linear",
        coordinate_transformation_mode: str = "half_pixel",
        rounding_method: str = "",
        cubic_alpha: float = -0.5,
        cubic_exclude: int = 0,
        extrapolation_value: float = 0.0,
        out_dtype: str | None = None,
    ) -> Call:
        if roi is not None and any(float(r) for r in roi):
            raise ValueError(f"{op.name}: roi is only supported for tf_crop_and_resize")
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

    resize.__name__ = resize.__qualname__ = op.name.rsplit(".", 1)[-1]
    return resize


resize1d = _resize_builder(d.Resize1dOp, "NCW")
resize2d = _resize_builder(d.Resize2dOp, "NCHW")
resize3d = _resize_builder(d.Resize3dOp, "NCDHW")


derive_builders(globals(), "image.")
