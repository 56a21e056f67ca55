"""relay.vision built for llvm: multibox_prior, yolo_reorg, roi_align, roi_pool,
get_valid_counts, non_max_suppression and all_class_non_max_suppression run in the graph
executor against topi.testing's loop references and results worked out by hand; their
Relay text reads back; bad attributes and operands are refused naming the op."""

from __future__ import annotations

import re

import numpy as np
import pytest

import xtvm as tvm
from xtvm import relay
from xtvm.testing.relay import run_factory
from xtvm.topi import testing as topi_testing

RNG = np.random.default_rng(23)


def built(func: relay.Function, *args: np.ndarray) -> list[np.ndarray]:
    """The outputs of `func` built for llvm, its parameters given `args` in order."""
    lib = relay.build(tvm.IRModule.from_expr(func), target="llvm")
    return run_factory(lib, **{p.name_hint: a for p, a in zip(func.params, args, strict=True)})


def variables(*arrays: np.ndarray) -> list[relay.Var]:
    return [relay.var(f"in{k}", shape=a.shape, dtype=str(a.dtype)) for k, a in enumerate(arrays)]


def regions(count: int, batch: int, extent: float) -> np.ndarray:
    corners = RNG.uniform(-2, extent, size=(count, 4)).astype("float32")
    index = RNG.integers(0, batch, (count, 1)).astype("float32")
    return np.concatenate([index, corners], axis=1)


def test_multibox_prior_and_yolo_reorg():
    x = RNG.uniform(size=(1, 16, 4, 6)).astype("float32")
    (v,) = variables(x)
    prior = relay.vision.multibox_prior(v, (0.5, 0.25), (1.0, 2.0), clip=True)
    boxes, reorg = built(
        relay.Function([v], relay.Tuple([prior, relay.vision.yolo_reorg(v, 2)])), x
    )
    assert boxes.shape == (1, 4 * 6 * 3, 4)
    # pixel (0, 0), size 0.5: centre (1/12, 1/8), half sizes (0.5 * 4 / 6 / 2, 0.25)
    np.testing.assert_allclose(boxes[0, 0], [0, 0, 1 / 12 + 1 / 6, 0.375], atol=1e-6)
    # the ratio-2 box of the last pixel: half sizes (0.5 * 4 / 6 * sqrt(2) / 2, 0.25 / sqrt(2))
    half_w, half_h = 0.5 * 4 / 6 * np.sqrt(2) / 2, 0.25 / np.sqrt(2)
    want = [11 / 12 - half_w, 7 / 8 - half_h, 1, 7 / 8 + half_h]
    np.testing.assert_allclose(boxes[0, -1], np.clip(want, 0, 1), atol=1e-6)
    np.testing.assert_array_equal(reorg, topi_testing.reorg_python(x, 2))


@pytest.mark.parametrize(
    ("layout", "mode", "ratio"), [("NCHW", "avg", -1), ("NHWC", "max", 2), ("NCHW", "max", 0)]
)
def test_roi_align(layout: str, mode: str, ratio: int):
    data = RNG.uniform(size=(2, 3, 10, 9)).astype("float32")
    rois = regions(12, 2, 20.0)
    want = topi_testing.roi_align_nchw_python(data, rois, (3, 2), 0.5, ratio, mode)
    rois[3, 0], want[3] = 5, 0  # a region of no image pools to 0
    if layout == "NHWC":
        data, want = data.transpose(0, 2, 3, 1).copy(), want.transpose(0, 2, 3, 1)
    d, r = variables(data, rois)
    z = relay.vision.roi_align(d, r, (3, 2), 0.5, ratio, layout, mode)
    (got,) = built(relay.Function([d, r], z), data, rois)
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-6)


def test_roi_pool():
    data = RNG.uniform(size=(2, 3, 10, 9)).astype("float32")
    rois = regions(12, 2, 20.0)
    want = topi_testing.roi_pool_nchw_python(data, rois, (3, 4), 0.5)
    rois[5, 0], want[5] = -1, 0
    d, r = variables(data, rois)
    (got,) = built(relay.Function([d, r], relay.vision.roi_pool(d, r, (3, 4), 0.5)), data, rois)
    np.testing.assert_array_equal(got, want)


BOXES = np.float32(
    [
        [
            [0, 0.8, 1, 20, 25, 45],
            [1, 0.7, 30, 60, 50, 80],
            [0, 0.4, 4, 21, 19, 40],
            [2, 0.9, 35, 61, 52, 79],
            [1, 0.5, 100, 60, 70, 110],
            [-1, 0.95, 0, 0, 1, 1],
        ]
    ]
)


def test_get_valid_counts_then_non_max_suppression():
    """Box 5 has no class, box 2 scores under 0.45; of the rest in score order (3, 0, 1, 4),
    box 1 overlaps box 3 (IoU 0.62) and is dropped when classes do not count."""
    (x,) = variables(BOXES)
    counts = relay.vision.get_valid_counts(x, 0.45, 0, 1)
    nms = relay.vision.non_max_suppression(
        counts[1], counts[0], counts[2], -1, 0.5, force_suppress=True
    )
    boxes = relay.vision.non_max_suppression(
        counts[1], counts[0], counts[2], 1, 0.5, return_indices=False
    )
    func = relay.Function([x], relay.Tuple([counts[0], counts[2], nms[0], nms[1], boxes]))
    count, valid_indices, kept, total, first = built(func, BOXES)
    assert count.tolist() == [4]
    assert valid_indices.tolist() == [[0, 1, 3, 4, -1, -1]]
    assert kept.tolist() == [[3, 0, 4, -1, -1, -1]] and total.tolist() == [[3]]
    want = np.full((1, 6, 6), -1, np.float32)
    want[0, 0] = BOXES[0, 3]  # max_output_size 1: the best box only, in place
    np.testing.assert_array_equal(first, want)


def test_ssd_decoding_then_suppression():
    """TVM's multibox_transform_loc example: anchor 0 decodes to class 1 (0.7), anchors 1 and
    2 to class 0; anchor 2 lies outside the unit square and clips to its corner. NMS sorts
    them by score and keeps all three."""
    cls_prob = np.float32([[[0.2, 0.5, 0.3], [0.25, 0.3, 0.45], [0.7, 0.1, 0.2]]])
    loc = np.float32([[0.1, -0.2, 0.3, 0.2, 0.2, 0.4, 0.5, -0.3, 0.7, -0.2, -0.4, -0.8]])
    anchors = np.float32([[[-0.1, -0.1, 0.1, 0.1], [-0.2, -0.2, 0.2, 0.2], [1.2, 1.2, 1.5, 1.5]]])
    c, p, a = variables(cls_prob, loc, anchors)
    mtl = relay.vision.multibox_transform_loc(c, p, a)
    nms = relay.vision.non_max_suppression(mtl[0], mtl[1], mtl[0], return_indices=False)
    rows, count, kept = built(
        relay.Function([c, p, a], relay.Tuple([mtl[0], mtl[1], nms])), cls_prob, loc, anchors
    )
    assert count.tolist() == [3]
    want = [
        [1, 0.7, 0, 0, 0.10818365, 0.10008108],
        [0, 0.45, 1, 1, 1, 1],
        [0, 0.3, 0, 0, 0.22903419, 0.20435292],
    ]
    np.testing.assert_allclose(kept[0], want, rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(
        rows[0, 0], [1, 0.7, 0, 0, 0.10818365, 0.10008108], rtol=1e-5, atol=1e-7
    )


def test_all_class_non_max_suppression_onnx_and_tensorflow():
    boxes = np.float32([[[0, 0, 1, 1], [0, 0.1, 1, 1.1], [0, 5, 1, 6], [0, 10, 1, 11]]])
    scores = np.float32([[[0.9, 0.8, 0.7, 0.1], [0.1, 0.95, 0.3, 0.6]]])
    b, s = variables(boxes, scores)
    onnx = relay.vision.all_class_non_max_suppression(b, s, 2, 0.5, 0.2)
    tf = relay.vision.all_class_non_max_suppression(b, s, 1, 0.5, 0.2, "tensorflow")
    func = relay.Function([b, s], relay.Tuple([onnx[0], onnx[1], tf[0], tf[1], tf[2]]))
    rows, count, pairs, kept, per_batch = built(func, boxes, scores)
    assert count.tolist() == [4]
    assert rows[:4].tolist() == [[0, 0, 0], [0, 0, 2], [0, 1, 1], [0, 1, 3]]
    assert per_batch.tolist() == [2]
    assert pairs[0, :2].tolist() == [[0, 0], [1, 1]]
    np.testing.assert_allclose(kept[0, :2], [0.9, 0.95])


def test_vision_calls_read_back_from_relay_text():
    x = relay.var("x", shape=(1, 6, 6), dtype="float32")
    counts = relay.vision.get_valid_counts(x, 0.3, -1, 0)
    nms = relay.vision.non_max_suppression(
        counts[1], counts[0], counts[2], 4, 0.6, top_k=3, return_indices=False
    )
    prior = relay.vision.multibox_prior(relay.var("m", shape=(1, 2, 3, 3)), (0.5, 0.2))
    for expr in (nms, prior):
        text = expr.astext()
        assert "vision." in text
        again = tvm.parser.parse_expr(text.split("\n", 1)[1] if text.startswith("#") else text)
        assert tvm.ir.structural_equal(
            relay.Function(relay.analysis.free_vars(again), again),
            relay.Function(relay.analysis.free_vars(expr), expr),
        )


@pytest.mark.parametrize(
    ("build", "message"),
    [
        (
            lambda: relay.vision.yolo_reorg(relay.var("x", shape=(1, 6, 4, 4)), 2),
            "its square must divide the 6 channels",
        ),
        (
            lambda: relay.vision.roi_align(
                relay.var("x", shape=(1, 3, 8, 8)), relay.var("r", shape=(4, 4)), 2, 1.0
            ),
            "rois must be (rois, 5)",
        ),
        (
            lambda: relay.vision.roi_align(
                relay.var("x", shape=(1, 3, 8, 8)), relay.var("r", shape=(4, 5)), 2, 1.0, mode="sum"
            ),
            'mode must be one of "avg", "max"',
        ),
        (
            lambda: relay.vision.get_valid_counts(
                relay.var("x", shape=(1, 4, 6)), relay.var("t", shape=())
            ),
            "score_threshold must be a number or a constant",
        ),
        (
            lambda: relay.vision.non_max_suppression(
                relay.var("x", shape=(1, 4, 6)),
                relay.var("v", shape=(1,), dtype="int32"),
                relay.var("i", shape=(1, 4), dtype="int32"),
                coord_start=3,
            ),
            "coord_start 3 leaves no 4 coordinates",
        ),
    ],
)
def test_bad_vision_calls_are_refused(build: object, message: str):
    """Refused when built (attributes) or, as in TVM, when type-checked (shapes)."""
    with pytest.raises((tvm.error.TVMError, ValueError), match=re.escape(message)):
        build().checked_type  # type: ignore[operator]  # noqa: B018


PROPOSAL_CLS = np.float32(
    [
        [
            [[0.3, 0.6, 0.2], [0.4, 0.7, 0.5], [0.1, 0.4, 0.3]],
            [[0.7, 0.5, 0.3], [0.6, 0.4, 0.8], [0.9, 0.2, 0.5]],
        ]
    ]
)
PROPOSAL_DELTAS = np.float32(
    [
        [
            [[0.5, 1.0, 0.6], [0.8, 1.2, 2.0], [0.9, 1.0, 0.8]],
            [[0.5, 1.0, 0.7], [0.8, 1.2, 1.6], [2.1, 1.5, 0.7]],
            [[1.0, 0.5, 0.7], [1.5, 0.9, 1.6], [1.4, 1.5, 0.8]],
            [[1.0, 0.5, 0.6], [1.5, 0.9, 2.0], [1.8, 1.0, 0.9]],
        ]
    ]
)


@pytest.mark.parametrize(
    ("iou_loss", "want"),
    [
        (
            False,
            [
                [0.0, 0.0, 2.8451548, 28.38012, 18.154846],
                [0.0, 0.0, 15.354933, 41.96971, 41.245064],
                [0.0, 18.019852, 1.0538368, 51.98015, 25.946163],
                [0.0, 27.320923, -1.266357, 55.0, 24.666357],
            ],
        ),
        (
            True,
            [
                [0.0, -5.25, -2.5, 21.75, 19.0],
                [0.0, 11.25, -2.0, 37.25, 18.5],
                [0.0, 26.849998, -2.3000002, 53.45, 18.6],
                [0.0, -4.95, 13.799999, 22.25, 35.5],
            ],
        ),
    ],
)
def test_proposal(iou_loss: bool, want: list[list[float]]):
    """TVM's proposal example: 9 cells of one anchor; small boxes grow by rpn_min_size / 2."""
    info = np.float32([[48.0, 48.0, 1.0]])
    c, d, i = variables(PROPOSAL_CLS, PROPOSAL_DELTAS, info)
    z = relay.vision.proposal(c, d, i, (0.5,), (0.5,), 16, 0.7, 200, 4, 16, iou_loss)
    (got,) = built(relay.Function([c, d, i], z), PROPOSAL_CLS, PROPOSAL_DELTAS, info)
    np.testing.assert_allclose(got, want, rtol=1e-4)


def test_proposal_repeats_survivors_up_to_the_row_count():
    """Two images, the second small: its boxes are clipped to it and grown to rpn_min_size;
    the survivors of each image fill its 6 rows in turn, as the interpreter has them."""
    cls_prob = np.concatenate([PROPOSAL_CLS, PROPOSAL_CLS[:, ::-1]])
    deltas = np.concatenate([PROPOSAL_DELTAS, PROPOSAL_DELTAS * 0])
    info = np.float32([[48.0, 48.0, 1.0], [8.0, 8.0, 0.5]])
    c, d, i = variables(cls_prob, deltas, info)
    z = relay.vision.proposal(c, d, i, (1.0,), (1.0,), 16, 0.3, -1, 6, 4, False)
    func = relay.Function([c, d, i], z)
    (got,) = built(func, cls_prob, deltas, info)
    want = relay.create_executor("graph").evaluate(func)(cls_prob, deltas, info).numpy()
    np.testing.assert_allclose(got, want, rtol=1e-5)
    assert got[:6, 0].tolist() == [0] * 6 and got[6:, 0].tolist() == [1] * 6
    survivors = len({tuple(row) for row in got[6:, 1:].tolist()})
    assert survivors < 6  # fewer boxes than rows: they repeat in order
    np.testing.assert_array_equal(got[6 + survivors :], got[6 : 12 - survivors])
