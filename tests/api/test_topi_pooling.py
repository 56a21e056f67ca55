"""TVM's `topi.nn.pooling.pool2d` (output shape from the window) and `topi.testing`'s numpy
references, checked against numpy."""

import numpy as np
import pytest

import xtvm as tvm
import xtvm.topi.testing
from xtvm import te
from xtvm.topi.nn.pooling import pool2d


def reference_pool(
    x: np.ndarray, k: int, s: int, pad: tuple[int, int, int, int], kind: str, ceil: bool
) -> np.ndarray:
    """NCHW pooling by loops; windows past the padded input (ceil mode) are clipped, and the
    average counts the declared padding (TVM's count_include_pad=True)."""
    pt, pl, pb, pr = pad
    n, c, h, w = x.shape
    fill = -np.inf if kind == "max" else 0.0
    padded = np.full((n, c, h + pt + pb, w + pl + pr), fill, x.dtype)
    padded[:, :, pt : pt + h, pl : pl + w] = x

    def extent(size: int) -> int:
        return (size - k + (s - 1 if ceil else 0)) // s + 1

    oh, ow = extent(padded.shape[2]), extent(padded.shape[3])
    out = np.empty((n, c, oh, ow), x.dtype)
    for i in range(oh):
        for j in range(ow):
            win = padded[:, :, i * s : i * s + k, j * s : j * s + k]
            out[:, :, i, j] = win.max(axis=(2, 3)) if kind == "max" else win.sum(axis=(2, 3))
            if kind == "avg":
                out[:, :, i, j] /= win.shape[2] * win.shape[3]
    return out


@pytest.mark.parametrize("kind", ["max", "avg"])
@pytest.mark.parametrize(("pad", "ceil"), [((0, 0, 0, 0), False), ((1, 0, 1, 2), False)])
def test_pool2d_matches_numpy(kind: str, pad: tuple[int, int, int, int], ceil: bool) -> None:
    x = np.random.default_rng(0).standard_normal((1, 3, 9, 8)).astype("float32")
    A = te.placeholder(x.shape, name="A")
    P = pool2d(A, (3, 3), (2, 2), (1, 1), pad, kind, ceil_mode=ceil)
    ref = reference_pool(x, 3, 2, pad, kind, ceil)
    assert [int(d) for d in P.shape] == list(ref.shape)
    f = tvm.build(te.create_schedule(P.op), [A, P], "llvm")
    out = tvm.nd.empty(ref.shape)
    f(tvm.nd.array(x), out)
    np.testing.assert_allclose(out.numpy(), ref, rtol=1e-5, atol=1e-6)


def test_pool2d_ceil_mode_adds_a_window() -> None:
    A = te.placeholder((1, 1, 8, 8), name="A")
    floor = pool2d(A, (3, 3), (2, 2), (1, 1), (0, 0, 0, 0), "max")
    ceil = pool2d(A, (3, 3), (2, 2), (1, 1), (0, 0, 0, 0), "max", ceil_mode=True)
    assert [int(d) for d in floor.shape] == [1, 1, 3, 3]
    assert [int(d) for d in ceil.shape] == [1, 1, 4, 4]


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"pool_type": "min"}, "pool_type must be 'max' or 'avg'"),
        ({"layout": "NCHW16c"}, "NCHW and NHWC"),
        ({"padding": (0, 0)}, "padding needs 4 values"),
        ({"kernel": (9, 9)}, "exceeds the input"),
    ],
)
def test_pool2d_rejects_bad_arguments(kwargs: dict, message: str) -> None:
    args = {
        "kernel": (3, 3),
        "stride": (1, 1),
        "dilation": (1, 1),
        "padding": (0, 0, 0, 0),
        "pool_type": "max",
    }
    args.update(kwargs)
    with pytest.raises(ValueError, match=message):
        pool2d(te.placeholder((1, 1, 8, 8), name="A"), **args)


def test_softmax_references() -> None:
    x = np.random.default_rng(1).standard_normal((4, 7)).astype("float32") * 30
    e = np.exp(x.astype("float64") - x.max(axis=1, keepdims=True))
    expected = e / e.sum(axis=1, keepdims=True)
    got = tvm.topi.testing.softmax_python(x)
    assert got.dtype == np.float32
    np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-30)
    np.testing.assert_allclose(
        tvm.topi.testing.log_softmax_python(x), np.log(expected), rtol=1e-5, atol=1e-5
    )
