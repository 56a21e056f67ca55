"""TVM's `relay.vision` operators: `multibox_prior`, `multibox_transform_loc`, `get_valid_counts`,
`non_max_suppression`, `all_class_non_max_suppression`, `roi_align`, `roi_pool`, `proposal`
and `yolo_reorg`, with TVM's signatures (a number given for a scalar tensor operand becomes a
constant, as TVM's builders do)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from xtvm.api.relay.expr import Call, Constant, Expr, const, derive_builders, make_call
from xtvm.api.relay.op.nn import pair
from xtvm.dialects import relay as d


def _scalar(value: object, dtype: str) -> Expr:
    return value if isinstance(value, Expr) else const(np.array(value, dtype=dtype))


def multibox_prior(
    data: Expr,
    sizes: Sequence[float] = (1.0,),
    ratios: Sequence[float] = (1.0,),
    steps: Sequence[float] = (-1.0, -1.0),
    offsets: Sequence[float] = (0.5, 0.5),
    clip: bool = False,
) -> Call:
    """SSD's prior boxes of a feature map, (1, h * w * (sizes + ratios - 1), 4)."""
    return make_call(
        d.MultiboxPriorOp,
        data,
        sizes=[float(s) for s in sizes],
        ratios=[float(r) for r in ratios],
        steps=[float(s) for s in steps],
        offsets=[float(o) for o in offsets],
        clip=bool(clip),
    )


def multibox_transform_loc(
    cls_prob: Expr,
    loc_pred: Expr,
    anchor: Expr,
    clip: bool = True,
    threshold: float = 0.01,
    variances: Sequence[float] = (0.1, 0.1, 0.2, 0.2),
) -> Call:
    """SSD's box decoding: (rows (class, score, corners), count per batch)."""
    return make_call(
        d.MultiboxTransformLocOp,
        cls_prob,
        loc_pred,
        anchor,
        clip=bool(clip),
        threshold=float(threshold),
        variances=[float(v) for v in variances],
    )


def get_valid_counts(
    data: Expr, score_threshold: float | Expr, id_index: int = 0, score_index: int = 1
) -> Call:
    """(count, boxes, indices) of the boxes scoring above score_threshold, moved to the
    front; score_threshold is a number or a constant (xtvm keeps it as an attribute)."""
    if isinstance(score_threshold, Constant):
        score_threshold = float(score_threshold.data.numpy().reshape(-1)[0])
    elif isinstance(score_threshold, Expr):
        raise ValueError(
            "get_valid_counts: score_threshold must be a number or a constant in xtvm, got a "
            f"{type(score_threshold).__name__}"
        )
    return make_call(
        d.GetValidCountsOp,
        data,
        score_threshold=float(score_threshold),
        id_index=int(id_index),
        score_index=int(score_index),
    )


def non_max_suppression(
    data: Expr,
    valid_count: Expr,
    indices: Expr,
    max_output_size: int | Expr = -1,
    iou_threshold: float | Expr = 0.5,
    force_suppress: bool = False,
    top_k: int = -1,
    coord_start: int = 2,
    score_index: int = 1,
    id_index: int = 0,
    return_indices: bool = True,
    invalid_to_bottom: bool = False,
) -> Call:
    """Greedy non-maximum suppression; a (indices, count) tuple when return_indices."""
    return make_call(
        d.NonMaxSuppressionOp,
        data,
        valid_count,
        indices,
        _scalar(max_output_size, "int32"),
        _scalar(iou_threshold, "float32"),
        force_suppress=bool(force_suppress),
        top_k=int(top_k),
        coord_start=int(coord_start),
        score_index=int(score_index),
        id_index=int(id_index),
        return_indices=bool(return_indices),
        invalid_to_bottom=bool(invalid_to_bottom),
    )


def all_class_non_max_suppression(
    boxes: Expr,
    scores: Expr,
    max_output_boxes_per_class: int | Expr = -1,
    iou_threshold: float | Expr = -1.0,
    score_threshold: float | Expr = -1.0,
    output_format: str = "onnx",
) -> Call:
    """Non-maximum suppression per class: ("onnx") selected (batch, class, box) rows and
    their count, or ("tensorflow") per batch rows, scores and counts."""
    return make_call(
        d.AllClassNonMaxSuppressionOp,
        boxes,
        scores,
        _scalar(max_output_boxes_per_class, "int32"),
        _scalar(iou_threshold, "float32"),
        _scalar(score_threshold, "float32"),
        output_format=output_format,
    )


def roi_align(
    data: Expr,
    rois: Expr,
    pooled_size: int | Sequence[int],
    spatial_scale: float,
    sample_ratio: int = -1,
    layout: str = "NCHW",
    mode: str = "avg",
    aligned: bool = False,
) -> Call:
    """Mask R-CNN's roi_align of regions (batch index, x1, y1, x2, y2); `aligned` (an xtvm
    addition) is ONNX's half_pixel: corners shifted by -0.5, sizes below a pixel kept."""
    return make_call(
        d.RoiAlignOp,
        data,
        rois,
        pooled_size=pair(pooled_size),
        spatial_scale=float(spatial_scale),
        sample_ratio=int(sample_ratio),
        layout=layout,
        mode=mode.decode() if isinstance(mode, bytes) else mode,
        aligned=bool(aligned),
    )


def roi_pool(
    data: Expr,
    rois: Expr,
    pooled_size: int | Sequence[int],
    spatial_scale: float,
    layout: str = "NCHW",
) -> Call:
    """Fast R-CNN's roi_pool (max) of regions (batch index, x1, y1, x2, y2)."""
    if layout != "NCHW":
        raise ValueError(f'roi_pool: only the "NCHW" layout is supported, got "{layout}"')
    return make_call(
        d.RoiPoolOp,
        data,
        rois,
        pooled_size=pair(pooled_size),
        spatial_scale=float(spatial_scale),
        layout=layout,
    )


def proposal(
    cls_prob: Expr,
    bbox_pred: Expr,
    im_info: Expr,
    scales: Sequence[float],
    ratios: Sequence[float],
    feature_stride: int,
    threshold: float,
    rpn_pre_nms_top_n: int,
    rpn_post_nms_top_n: int,
    rpn_min_size: int,
    iou_loss: bool,
) -> Call:
    """Faster R-CNN's region proposals: (batch * rpn_post_nms_top_n, 5) rows (batch index,
    x1, y1, x2, y2)."""
    return make_call(
        d.ProposalOp,
        cls_prob,
        bbox_pred,
        im_info,
        scales=[float(s) for s in scales],
        ratios=[float(r) for r in ratios],
        feature_stride=int(feature_stride),
        threshold=float(threshold),
        rpn_pre_nms_top_n=int(rpn_pre_nms_top_n),
        rpn_post_nms_top_n=int(rpn_post_nms_top_n),
        rpn_min_size=int(rpn_min_size),
        iou_loss=bool(iou_loss),
    )


def yolo_reorg(data: Expr, stride: int) -> Call:
    """YOLOv2's reorg layer: (n, c, h, w) -> (n, c * stride^2, h / stride, w / stride)."""
    return make_call(d.YoloReorgOp, data, stride=int(stride))


derive_builders(globals(), "vision.")
