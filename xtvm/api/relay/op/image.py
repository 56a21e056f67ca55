"""Image operators: `relay.image.resize1d`, `resize2d` and `resize3d` (nearest_neighbor,
linear and cubic methods), `crop_and_resize` and `dilation2d`."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from xtvm.api.relay.expr import Call, Expr, derive_builders, make_call
from xtvm.api.relay.op.nn import pad_tuple, pair
from xtvm.api.relay.ty import Dim, dim_value
from xtvm.dialects import relay as d


def symbolic_sizes(sizes: Sequence[Dim]) -> list[int]:
    """Sizes as a relay attribute holds them: a symbolic one (a `te.var`, a size variable,
    `relay.Any()`) is `?`."""
    return [dim_value(s) for s in sizes]


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
            size=symbolic_sizes(size),
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


def crop_and_resize(
    data: Expr,
    boxes: Expr,
    box_indices: Expr,
    crop_size: Sequence[int],
    layout: str = "NCHW",
    method: str = "bilinear",
    extrapolation_value: float = 0.0,
    out_dtype: str | None = None,
) -> Call:
    """TensorFlow's crop_and_resize: boxes (y1, x1, y2, x2) of images box_indices, each
    resized to crop_size."""
    if out_dtype not in (None, "", data.checked_type.dtype):  # type: ignore[union-attr]
        raise ValueError("crop_and_resize: out_dtype other than the data's is not supported")
    return make_call(
        d.CropAndResizeOp,
        data,
        boxes,
        box_indices,
        crop_size=[int(s) for s in crop_size],
        layout=layout,
        method=method,
        extrapolation_value=float(extrapolation_value),
    )


def _pair_of(name: str, values: int | Sequence[int]) -> tuple[int, int]:
    """TVM's strides or dilations of dilation2d: 2 values; a 4-value form only when its
    entries agree, where TVM's type relation (reading the first two) and the layout reading
    (the spatial two) give the same answer."""
    if not isinstance(values, int) and len(values) == 4:
        if len({int(v) for v in values}) != 1:
            raise ValueError(f"dilation2d: {name} must have 2 values, got {list(values)}")
        values = list(values)[:2]
    return pair(values)


def dilation2d(
    data: Expr,
    weight: Expr,
    strides: int | Sequence[int] = (1, 1),
    padding: int | Sequence[int] = (0, 0),
    dilations: int | Sequence[int] = (1, 1),
    data_layout: str = "NCHW",
    kernel_layout: str = "IHW",
    out_dtype: str = "",
) -> Call:
    """Morphological dilation: max over the window of data + weight, per channel."""
    if out_dtype not in ("", data.checked_type.dtype):  # type: ignore[union-attr]
        raise ValueError("dilation2d: out_dtype other than the data's is not supported")
    return make_call(
        d.Dilation2dOp,
        data,
        weight,
        strides=_pair_of("strides", strides),
        padding=pad_tuple(padding),
        dilations=_pair_of("dilations", dilations),
        data_layout=data_layout,
        kernel_layout=kernel_layout,
    )


derive_builders(globals(), "image.")
