"""ONNX's vision ops on relay.vision: RoiAlign as `vision.roi_align`.

ONNX's regions are (x1, y1, x2, y2) rows with a separate batch index per row; relay's carry
the index in a first column, so the two are joined. Opset 16's default
coordinate_transformation_mode, half_pixel, is the op's `aligned` form; opset 10's (and
"output_half_pixel") is TVM's. Max mode is refused: onnxruntime's max takes the largest
weighted corner of each sample, not the largest sample (its own warning calls that summation
incorrect), so no kernel could agree with both it and the definition.
"""

from __future__ import annotations

import numpy as np

from xtvm.dialects import relay
from xtvm.frontends.onnx.context import ConversionError, Converter, NodeContext
from xtvm.frontends.onnx.converters import Outputs


def roi_align(c: NodeContext) -> Outputs:
    if c.rank(0) != 4:
        raise ConversionError(f"X must be 4-d (N, C, H, W), got {list(c.shape(0))}")
    count = c.shape(1)[0] if c.rank(1) == 2 else -1
    if c.rank(1) != 2 or c.shape(1)[1] != 4 or c.shape(2) != (count,):
        raise ConversionError(
            f"rois must be (num_rois, 4) and batch_indices (num_rois,), got "
            f"{list(c.shape(1))} and {list(c.shape(2))}"
        )
    mode = c.str_attr("mode", "avg")
    if mode != "avg":
        raise ConversionError(
            f"mode '{mode}' is not supported: only avg (onnxruntime's max mode takes the "
            "largest weighted corner of each sample, which no kernel reproduces by definition)"
        )
    default = "half_pixel" if c.opset >= 16 else "output_half_pixel"
    transform = c.str_attr("coordinate_transformation_mode", default)
    if transform not in ("half_pixel", "output_half_pixel"):
        raise ConversionError(f"unknown coordinate_transformation_mode '{transform}'")
    dtype = c.dtype(1)
    index = c.emit(relay.CastOp(c.value(2), dtype))
    column = c.emit(relay.ReshapeOp(index, (count, 1)))
    rois = c.emit(relay.ConcatenateOp([column, c.value(1)], 1))
    pooled = (c.int_attr("output_height", 1), c.int_attr("output_width", 1))
    if c.dtype(0) != dtype:
        rois = c.emit(relay.CastOp(rois, np.dtype(c.dtype(0))))
    out = relay.RoiAlignOp(
        c.value(0),
        rois,
        pooled,
        c.float_attr("spatial_scale", 1.0),
        max(c.int_attr("sampling_ratio", 0), 0),
        aligned=transform == "half_pixel",
    )
    return [c.emit(out)]


CONVERTERS: dict[str, Converter] = {"RoiAlign": roi_align}
