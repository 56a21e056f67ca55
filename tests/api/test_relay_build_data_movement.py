"""relay.build (llvm, and C where noted) on TVM's reinterpret, strided_set, strided_slice with
short bounds, nn.space_to_batch_nd / batch_to_space_nd, image.affine_grid / grid_sample,
unique and nn.correlation: the graph executor's results against numpy references written
from the definitions (`topi.testing`'s loops) and numpy's own functions."""

from __future__ import annotations

import numpy as np
import pytest

import xtvm as tvm
from xtvm import relay
from xtvm.contrib import graph_executor
from xtvm.topi import testing as topi_testing

RNG = np.random.default_rng(23)


def built(func: relay.Function, *args: np.ndarray, target: str = "llvm") -> list[np.ndarray]:
    lib = relay.build(tvm.IRModule.from_expr(func), target=target)
    module = graph_executor.GraphModule(lib["default"](tvm.cpu()))
    for k, value in enumerate(args):
        module.set_input(k, value)
    module.run()
    return [module.get_output(k).numpy() for k in range(module.get_num_outputs())]


def variables(*arrays: np.ndarray) -> list[relay.Var]:
    return [relay.var(f"v{k}", shape=a.shape, dtype=str(a.dtype)) for k, a in enumerate(arrays)]


@pytest.mark.parametrize("target", ["llvm", "c"])
def test_reinterpret_is_a_bit_cast_both_ways(target: str):
    data = (RNG.standard_normal(64) * 1000).astype("float32")
    (x,) = variables(data)
    bits = relay.reinterpret(x, "int32")
    back = relay.reinterpret(relay.add(bits, relay.const(1, "int32")), "float32")
    out = built(relay.Function([x], relay.Tuple([bits, back])), data, target=target)
    np.testing.assert_array_equal(out[0], data.view("int32"))
    np.testing.assert_array_equal(out[1], (data.view("int32") + 1).view("float32"))


def test_reinterpret_refuses_another_width():
    x = relay.var("x", shape=(3,), dtype="float32")
    with pytest.raises(tvm.error.TVMError, match="differ in width"):
        relay.reinterpret(x, "float64").checked_type  # noqa: B018


def test_strided_set_with_negative_strides_and_broadcast():
    data = RNG.uniform(size=(5, 6, 3)).astype("float32")
    value = RNG.uniform(size=(3, 2, 1)).astype("float32")
    x, v = variables(data, value)
    y = relay.strided_set(x, v, begin=[4, 0], end=[-6, 6], strides=[-2, 3])
    (out,) = built(relay.Function([x, v], y), data, value)
    want = topi_testing.strided_set_python(data, value, [4, 0], [-6, 6], [-2, 3])
    np.testing.assert_array_equal(out, want)
    assert (out != data).any()


def test_strided_set_takes_constant_tensors_as_tvm_does():
    data = np.zeros((4, 4), "float32")
    value = np.ones((2, 4), "float32")
    x, v = variables(data, value)
    begin, end = relay.const([1], "int32"), relay.const([3], "int32")
    (out,) = built(relay.Function([x, v], relay.strided_set(x, v, begin, end)), data, value)
    np.testing.assert_array_equal(out, [[0] * 4, [1] * 4, [1] * 4, [0] * 4])


def test_strided_slice_with_bounds_shorter_than_the_rank():
    data = RNG.uniform(size=(3, 4, 3)).astype("float32")
    (x,) = variables(data)
    y = relay.strided_slice(x, begin=[1, 1], end=[4, 4, 3], strides=[2])
    (out,) = built(relay.Function([x], y), data)
    np.testing.assert_array_equal(out, data[1:4:2, 1:4, 0:3])


@pytest.mark.parametrize(
    ("shape", "block", "paddings"),
    [((2, 2, 4, 3), [2, 2], [[0, 0], [2, 0]]), ((3, 5, 2), [3], [[1, 0]])],
)
def test_space_to_batch_nd_and_back(shape: tuple[int, ...], block: list[int], paddings: list):
    data = RNG.uniform(size=shape).astype("float32")
    (x,) = variables(data)
    before, after = (list(p) for p in zip(*paddings, strict=True))
    packed = relay.nn.space_to_batch_nd(x, block, paddings, pad_value=-1.0)
    restored = relay.nn.batch_to_space_nd(packed, block, paddings)
    out = built(relay.Function([x], relay.Tuple([packed, restored])), data)
    want = topi_testing.space_to_batch_nd_python(data, block, before, after, -1.0)
    np.testing.assert_array_equal(out[0], want)
    np.testing.assert_array_equal(out[1], data)


def test_affine_grid_feeds_grid_sample_identity():
    """The identity transform's grid samples every pixel at itself (align_corners)."""
    data = RNG.uniform(size=(2, 3, 5, 5)).astype("float32")
    theta = np.tile(np.array([[1, 0, 0], [0, 1, 0]], "float32"), (2, 1, 1))
    x, t = variables(data, theta)
    grid = relay.image.affine_grid(t, (5, 5))
    y = relay.image.grid_sample(x, grid, method="bilinear", align_corners=True)
    out = built(relay.Function([x, t], relay.Tuple([grid, y])), data, theta)
    np.testing.assert_allclose(out[0], topi_testing.affine_grid_python(theta, (5, 5)), atol=1e-6)
    np.testing.assert_allclose(out[1], data, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("method", ["nearest", "bilinear", "bicubic"])
@pytest.mark.parametrize("padding_mode", ["zeros", "border", "reflection"])
def test_grid_sample_2d(method: str, padding_mode: str):
    data = RNG.uniform(size=(2, 3, 6, 5)).astype("float32")
    where = RNG.uniform(-1.4, 1.4, size=(2, 2, 4, 7)).astype("float32")
    x, g = variables(data, where)
    y = relay.image.grid_sample(x, g, method=method, padding_mode=padding_mode, align_corners=False)
    (out,) = built(relay.Function([x, g], y), data, where)
    want = topi_testing.grid_sample_python(data, where, method, "NCHW", padding_mode, False)
    np.testing.assert_allclose(out, want, rtol=1e-5, atol=1e-5)


def test_grid_sample_3d_trilinear():
    data = RNG.uniform(size=(1, 2, 3, 4, 5)).astype("float32")
    where = RNG.uniform(-1.2, 1.2, size=(1, 3, 2, 3, 4)).astype("float32")
    x, g = variables(data, where)
    y = relay.image.grid_sample(x, g, layout="NCDHW", padding_mode="border")
    (out,) = built(relay.Function([x, g], y), data, where)
    want = topi_testing.grid_sample_python(data, where, "bilinear", "NCDHW", "border", True)
    np.testing.assert_allclose(out, want, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("is_sorted", [True, False])
def test_unique_against_numpy(is_sorted: bool):
    data = RNG.integers(-4, 5, size=20).astype("int32")
    (x,) = variables(data)
    out = built(relay.Function([x], relay.unique(x, is_sorted, return_counts=True).astuple()), data)
    values, first, inverse, counts = np.unique(
        data, return_index=True, return_inverse=True, return_counts=True
    )
    if not is_sorted:
        order = np.argsort(first)
        values, first, counts = values[order], first[order], counts[order]
        inverse = np.argsort(order)[inverse]
    k = len(values)
    assert out[3].tolist() == [k]
    np.testing.assert_array_equal(out[0][:k], values)
    np.testing.assert_array_equal(out[1][:k], first)
    np.testing.assert_array_equal(out[2], inverse)
    np.testing.assert_array_equal(out[4][:k], counts)
    assert not out[0][k:].any() and not out[4][k:].any()


@pytest.mark.parametrize(
    ("kernel", "displacement", "stride1", "stride2", "padding", "multiply"),
    [(1, 3, 1, 1, 3, True), (3, 2, 2, 2, 2, False)],
)
def test_correlation_against_the_loops(
    kernel: int, displacement: int, stride1: int, stride2: int, padding: int, multiply: bool
):
    first = RNG.uniform(size=(2, 3, 8, 7)).astype("float32")
    second = RNG.uniform(size=(2, 3, 8, 7)).astype("float32")
    a, b = variables(first, second)
    y = relay.nn.correlation(
        a, b, kernel, displacement, stride1, stride2, padding, multiply, "NCHW"
    )
    (out,) = built(relay.Function([a, b], y), first, second)
    want = topi_testing.correlation_nchw_python(
        first, second, kernel, displacement, stride1, stride2, padding, multiply
    )
    np.testing.assert_allclose(out, want, rtol=1e-5, atol=1e-6)
