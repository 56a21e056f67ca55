"""relay.build on TVM's sparse_reshape, sparse_to_dense, adv_index, matrix_set_diag,
segment_sum, stft, image.dilation2d, crop_and_resize, nn.deformable_conv2d, nll_loss,
conv1d, pool1d, upsampling3d, l2_normalize, fixed_point_multiply, sliding_window and
multi-axis argmax: the graph executor's results against numpy references written from the
definitions."""

from __future__ import annotations

import numpy as np
import pytest

import xtvm as tvm
from xtvm import relay
from xtvm.contrib import graph_executor
from xtvm.topi import testing as topi_testing

RNG = np.random.default_rng(7)


def built(func: relay.Function, *args: np.ndarray) -> list[np.ndarray]:
    lib = relay.build(tvm.IRModule.from_expr(func), target="llvm")
    module = graph_executor.GraphModule(lib["default"](tvm.cpu()))
    for k, value in enumerate(args):
        module.set_input(k, value)
    module.run()
    return [module.get_output(k).numpy() for k in range(module.get_num_outputs())]


def variables(*arrays: np.ndarray) -> list[relay.Var]:
    return [relay.var(f"v{k}", shape=a.shape, dtype=str(a.dtype)) for k, a in enumerate(arrays)]


def test_sparse_reshape_fills_the_inferred_dimension():
    indices = np.array([[0, 0, 0], [0, 0, 1], [0, 1, 0], [1, 0, 0], [1, 2, 3]], np.int64)
    prev, new = np.array([2, 3, 6], np.int64), np.array([9, -1], np.int64)
    i, p, n = variables(indices, prev, new)
    out = built(
        relay.Function([i, p, n], relay.sparse_reshape(i, p, n).astuple()), indices, prev, new
    )
    np.testing.assert_array_equal(out[0], [[0, 0], [0, 1], [1, 2], [4, 2], [8, 1]])
    np.testing.assert_array_equal(out[1], [9, 4])


def test_segment_sum_with_num_segments():
    data = RNG.uniform(size=(6, 3)).astype("float32")
    ids = np.array([3, 0, 3, 1, 0], np.int32)
    x, s = variables(data, ids)
    (out,) = built(relay.Function([x, s], relay.segment_sum(x, s, 5)), data, ids)
    want = np.zeros((5, 3), np.float32)
    for row, seg in enumerate(ids):
        want[seg] += data[row]
    np.testing.assert_allclose(out, want, rtol=1e-6)


def test_segment_sum_without_num_segments_needs_the_interpreter():
    x = relay.var("x", shape=(4, 2))
    s = relay.var("s", shape=(4,), dtype="int32")
    with pytest.raises(Exception, match="dynamic dimension"):
        relay.build(tvm.IRModule.from_expr(relay.Function([x, s], relay.segment_sum(x, s))))


def test_stft_matches_the_dft_of_each_frame():
    data = RNG.uniform(size=(2, 12)).astype("float32")
    window = np.array([1.0, 0.5, 0.25, 0.5], np.float32)
    x, w = variables(data, window)
    func = relay.Function([x, w], relay.stft(x, 4, 2, 4, w, normalized=True, onesided=True))
    (out,) = built(func, data, window)
    frames = np.stack([data[:, f * 2 : f * 2 + 4] * window for f in range(5)], axis=1)
    spectrum = np.fft.rfft(frames, axis=-1).transpose(0, 2, 1) / 2.0  # sqrt(n_fft) = 2
    np.testing.assert_allclose(out[..., 0], spectrum.real, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(out[..., 1], spectrum.imag, rtol=1e-5, atol=1e-5)


def test_dilation2d_nhwc():
    data = RNG.uniform(size=(1, 5, 6, 2)).astype("float32")
    kernel = RNG.uniform(size=(2, 3, 2)).astype("float32")
    x, w = variables(data, kernel)
    y = relay.image.dilation2d(
        x, w, strides=[2, 1], padding=[1, 1], data_layout="NHWC", kernel_layout="HWI"
    )
    (out,) = built(relay.Function([x, w], y), data, kernel)
    padded = np.pad(data, [(0, 0), (1, 1), (1, 1), (0, 0)])
    want = np.empty(out.shape, np.float32)
    for i, j, c in np.ndindex(*out.shape[1:]):
        window = padded[0, 2 * i : 2 * i + 2, j : j + 3, c]
        want[0, i, j, c] = (window + kernel[:, :, c]).max()
    np.testing.assert_allclose(out, want, rtol=1e-6)


def test_deformable_conv2d_against_the_reference():
    data = RNG.uniform(size=(1, 4, 6, 6)).astype("float32")
    offset = RNG.uniform(-1, 1, size=(1, 2 * 9 * 2, 6, 6)).astype("float32")
    kernel = RNG.uniform(size=(3, 4, 3, 3)).astype("float32")
    x, o, w = variables(data, offset, kernel)
    y = relay.nn.deformable_conv2d(
        x, o, w, padding=(1, 1), deformable_groups=2, channels=3, kernel_size=(3, 3)
    )
    (out,) = built(relay.Function([x, o, w], y), data, offset, kernel)
    want = topi_testing.deformable_conv2d_nchw_python(data, offset, kernel, 1, 1, 1, 2, 1)
    np.testing.assert_allclose(out, want, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_nll_loss_with_an_ignored_target(reduction: str):
    predictions = RNG.uniform(size=(4, 3, 2)).astype("float32")
    targets = np.array([[0, 2], [-100, 1], [1, 1], [2, -100]], np.int32)
    weights = RNG.uniform(size=(3,)).astype("float32")
    p, t, w = variables(predictions, targets, weights)
    func = relay.Function([p, t, w], relay.nn.nll_loss(p, t, w, reduction, -100))
    (out,) = built(func, predictions, targets, weights)
    want = topi_testing.nll_loss(predictions, targets, weights, reduction, -100)
    np.testing.assert_allclose(out, want, rtol=1e-5)


def test_argmax_over_two_axes_is_the_offset_within_them():
    data = RNG.uniform(size=(3, 4, 5)).astype("float32")
    (x,) = variables(data)
    (out,) = built(relay.Function([x], relay.argmax(x, axis=(2, 0))), data)
    want = [np.argmax(data[:, j, :]) for j in range(4)]  # row-major over (axis 0, axis 2)
    np.testing.assert_array_equal(out, want)


@pytest.mark.parametrize("method", ["bilinear", "nearest_neighbor"])
def test_crop_and_resize_boxes_partly_outside(method: str):
    image = RNG.uniform(size=(2, 9, 8, 3)).astype("float32")
    boxes = np.array([[0.1, 0.2, 0.8, 0.9], [-0.2, 0.3, 0.6, 1.3]], np.float32)
    indices = np.array([1, 0], np.int32)
    x, b, i = variables(image, boxes, indices)
    y = relay.image.crop_and_resize(x, b, i, [4, 5], "NHWC", method, -1.0)
    (out,) = built(relay.Function([x, b, i], y), image, boxes, indices)
    want = topi_testing.crop_and_resize_python(image, boxes, indices, [4, 5], "NHWC", method, -1.0)
    np.testing.assert_allclose(out, want, rtol=1e-5, atol=1e-6)


def test_sparse_to_dense_rows_of_coordinates_and_a_default():
    indices = np.array([[0, 1], [2, 0], [1, 3]], np.int32)
    values = np.array([1.5, -2.0, 4.0], np.float32)
    i, v = variables(indices, values)
    fill = relay.var("fill", shape=(), dtype="float32")
    y = relay.sparse_to_dense(i, [3, 4], v, fill)
    (out,) = built(relay.Function([i, v, fill], y), indices, values, np.float32(7.0))
    want = np.full((3, 4), 7.0, np.float32)
    want[0, 1], want[2, 0], want[1, 3] = 1.5, -2.0, 4.0
    np.testing.assert_array_equal(out, want)


def test_adv_index_broadcasts_the_index_tensors():
    data = RNG.uniform(size=(6, 5, 4)).astype("float32")
    rows = np.array([[0], [5], [2]], np.int64)
    cols = np.array([[1, 4]], np.int32)
    d, r, c = variables(data, rows, cols)
    (out,) = built(relay.Function([d, r, c], relay.adv_index([d, r, c])), data, rows, cols)
    np.testing.assert_array_equal(out, data[rows, cols])


def test_matrix_set_diag_band_as_tensorflow_documents_it():
    data = np.full((1, 3, 4), 7, np.int32)
    bands = np.array([[[0, 9, 1], [6, 5, 8], [1, 2, 3], [4, 5, 0]]], np.int32)
    d, b = variables(data, bands)
    y = relay.matrix_set_diag(d, b, (-1, 2), "RIGHT_LEFT")
    (out,) = built(relay.Function([d, b], y), data, bands)
    want = [[[1, 6, 9, 7], [4, 2, 5, 1], [7, 5, 3, 8]]]  # TensorFlow's documented example
    np.testing.assert_array_equal(out, want)
    np.testing.assert_array_equal(topi_testing.matrix_set_diag(data, bands, (-1, 2)), want)


@pytest.mark.parametrize(
    ("pool", "kind", "window"),
    [
        (relay.nn.max_pool1d, "max", {"pool_size": 3, "strides": 2, "padding": (1, 2)}),
        (relay.nn.avg_pool1d, "avg", {"pool_size": (2,), "strides": (1,), "dilation": (2,)}),
    ],
)
def test_pool1d_as_tvm_pools(pool: object, kind: str, window: dict[str, object]):
    data = RNG.uniform(size=(2, 3, 11)).astype("float32")
    (x,) = variables(data)
    (out,) = built(relay.Function([x], pool(x, **window)), data)  # type: ignore[operator]
    size = window["pool_size"]
    pad = window.get("padding", (0, 0))
    want = topi_testing.poolnd_python(
        data,
        [size if isinstance(size, int) else size[0]],
        [window["strides"] if isinstance(window["strides"], int) else window["strides"][0]],
        [window.get("dilation", (1,))[0]],
        [pad[0]],
        [pad[1]],
        kind,
        count_include_pad=False,
    )
    np.testing.assert_allclose(out, want, rtol=1e-5)


def test_global_pool1d_nwc():
    data = RNG.uniform(size=(2, 7, 3)).astype("float32")
    (x,) = variables(data)
    y = relay.nn.global_max_pool1d(x, layout="NWC")
    (out,) = built(relay.Function([x], y), data)
    np.testing.assert_allclose(out, data.max(axis=1, keepdims=True))


@pytest.mark.parametrize("layout", ["NCW", "NWC"])
def test_conv1d_with_an_untyped_weight(layout: str):
    data = RNG.uniform(-1, 1, size=(2, 4, 13)).astype("float32")  # NCW
    kernel = RNG.uniform(-1, 1, size=(5, 4, 3)).astype("float32")  # OIW
    want = topi_testing.conv1d_ncw_python(data, kernel, 2, (1, 2), 2)
    if layout == "NWC":
        data, kernel, want = (
            data.transpose(0, 2, 1),
            kernel.transpose(2, 1, 0),
            want.transpose(0, 2, 1),
        )
    (x,) = variables(data)
    w = relay.var("w")
    y = relay.nn.conv1d(
        x,
        w,
        strides=2,
        padding=(1, 2),
        dilation=2,
        channels=5,
        kernel_size=3,
        data_layout=layout,
        kernel_layout="OIW" if layout == "NCW" else "WIO",
    )
    (out,) = built(
        relay.Function([x, w], y), np.ascontiguousarray(data), np.ascontiguousarray(kernel)
    )
    np.testing.assert_allclose(out, want, rtol=1e-5, atol=1e-5)


def test_upsampling3d_trilinear_ndhwc():
    data = RNG.uniform(size=(1, 2, 3, 4, 2)).astype("float32")
    (x,) = variables(data)
    y = relay.nn.upsampling3d(x, 2, 1.5, 2, "NDHWC", "trilinear", "align_corners")
    (out,) = built(relay.Function([x], y), data)
    want = topi_testing.resize3d_python(data, (2, 1.5, 2), "NDHWC", "linear", "align_corners")
    np.testing.assert_allclose(out, want, rtol=1e-5, atol=1e-6)


def test_l2_normalize_and_squeeze_of_one_axis():
    data = RNG.uniform(-1, 1, size=(2, 3, 1)).astype("float32")
    (x,) = variables(data)
    y = relay.squeeze(relay.nn.l2_normalize(x, eps=0.01, axis=[1]), axis=2)
    (out,) = built(relay.Function([x], y), data)
    norm = np.sqrt(np.maximum((data.astype(np.float64) ** 2).sum(axis=1, keepdims=True), 0.01))
    np.testing.assert_allclose(out, (data / norm)[:, :, 0], rtol=1e-5)


@pytest.mark.parametrize(
    ("multiplier", "shift"), [(1073741824, -3), (1518500250, 2), (2**30 + 7, 0)]
)
def test_fixed_point_multiply_rounds_half_up(multiplier: int, shift: int):
    data = np.array([23, -23, 0, 1, -1, 2**20, -(2**20), 12345], np.int32)
    (x,) = variables(data)
    (out,) = built(relay.Function([x], relay.fixed_point_multiply(x, multiplier, shift)), data)
    right = 31 + max(-shift, 0)
    want = [((int(v) << max(shift, 0)) * multiplier + (1 << (right - 1))) >> right for v in data]
    np.testing.assert_array_equal(out, want)


def test_sliding_window_matches_numpy_windows():
    data = RNG.uniform(size=(2, 5, 7)).astype("float32")
    (x,) = variables(data)
    (out,) = built(relay.Function([x], relay.sliding_window(x, 1, [2, 3], [2, 2])), data)
    view = np.lib.stride_tricks.sliding_window_view(data, (2, 3), axis=(1, 2))[:, ::2, ::2]
    np.testing.assert_array_equal(out, view)
