"""ONNX RoiAlign against onnxruntime: both coordinate transformations (half_pixel, the
opset-16 default, keeps regions under a pixel), fixed and adaptive sampling, regions
partly outside the image, interpreted and built for LLVM; refusals name what is missing."""

from __future__ import annotations

import numpy as np
import pytest
from onnx import helper

from xtvm.frontends.onnx import OnnxImportError, import_onnx
from xtvm.onnx_backend import XtvmBackend
from xtvm.testing.onnx_compare import run_both, single_node_model

pytest.importorskip("onnxruntime")

RNG = np.random.default_rng(16)


def roi_model(opset: int = 16, **attrs: object) -> tuple[object, dict[str, np.ndarray]]:
    x = RNG.uniform(size=(2, 3, 10, 9)).astype("float32")
    corners = RNG.uniform(-2, 18, size=(7, 2)).astype("float32")
    sizes = RNG.uniform(0.2, 9, size=(7, 2)).astype("float32")  # some under a pixel once scaled
    rois = np.concatenate([corners, corners + sizes], axis=1)
    feeds = {"x": x, "rois": rois, "b": RNG.integers(0, 2, 7).astype("int64")}
    node = helper.make_node("RoiAlign", ["x", "rois", "b"], ["y"], **attrs)
    return single_node_model(node, feeds, opset=opset), feeds


@pytest.mark.parametrize(
    ("opset", "attrs"),
    [
        (16, {"output_height": 3, "output_width": 2, "spatial_scale": 0.5}),
        (16, {"output_height": 2, "output_width": 4, "sampling_ratio": 2}),
        (
            16,
            {
                "output_height": 3,
                "output_width": 3,
                "spatial_scale": 0.5,
                "coordinate_transformation_mode": "output_half_pixel",
            },
        ),
        (10, {"output_height": 2, "output_width": 2, "spatial_scale": 0.25, "sampling_ratio": 3}),
    ],
    ids=["half_pixel_adaptive", "half_pixel_ratio2", "output_half_pixel", "opset10"],
)
def test_roi_align_matches_onnxruntime(opset: int, attrs: dict[str, object]):
    model, feeds = roi_model(opset, **attrs)
    got, want = run_both(model, feeds)
    np.testing.assert_allclose(got[0], want[0], rtol=1e-4, atol=1e-5)
    compiled = XtvmBackend.prepare(model, compiled=True).run(list(feeds.values()))
    np.testing.assert_allclose(compiled[0], want[0], rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize(
    ("attrs", "message"),
    [
        ({"mode": "max"}, "mode 'max' is not supported"),
        ({"coordinate_transformation_mode": "align_corners"}, "unknown coordinate_transformation"),
    ],
)
def test_roi_align_refusals(attrs: dict[str, object], message: str):
    model, _ = roi_model(**attrs)
    with pytest.raises(OnnxImportError, match=message):
        import_onnx(model)
