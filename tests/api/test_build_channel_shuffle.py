"""Reshapes that split or merge axes, and ShuffleNet's channel shuffle fused into the padded
copy of the depthwise conv2d after it: built for LLVM, against the relay interpreter."""

from __future__ import annotations

import numpy as np
import pytest
from xdsl.dialects import func

import xtvm as tvm
from xtvm import relay
from xtvm.driver.relay_build import lower_for_build
from xtvm.testing.relay import interpret, run_factory
from xtvm.topi.transform import aligned_runs

RNG = np.random.default_rng(0)


def build_and_compare(f: relay.Function, x: np.ndarray) -> None:
    mod = tvm.IRModule.from_expr(f)
    got = run_factory(relay.build(mod, "llvm"), x=x)[0]
    np.testing.assert_allclose(got, interpret(mod, {}, x)[0], rtol=1e-5, atol=1e-6)


def test_aligned_runs() -> None:
    assert aligned_runs((1, 112, 56, 56), (1, 4, 28, 56, 56)) == [
        (range(0, 1), range(0, 1)),
        (range(1, 2), range(1, 3)),
        (range(2, 3), range(3, 4)),
        (range(3, 4), range(4, 5)),
    ]
    assert aligned_runs((1, 28, 4, 7, 7), (1, 112, 7, 7))[1] == (range(1, 3), range(1, 2))
    assert aligned_runs((2, 3), (2, 3, 1)) == [
        (range(0, 1), range(0, 1)),
        (range(1, 2), range(1, 3)),
    ]
    # no boundary in common: one run of everything
    assert aligned_runs((4, 6), (3, 8)) == [(range(0, 2), range(0, 2))]
    assert aligned_runs((0, 3), (0, 1, 3)) == [(range(0, 2), range(0, 3))]


@pytest.mark.parametrize(
    ("shape", "newshape"),
    [
        ((1, 12, 5, 7), (1, 3, 4, 5, 7)),
        ((1, 4, 3, 5, 7), (1, 12, 5, 7)),
        ((2, 3, 4), (6, 4)),
        ((6, 4), (2, 3, 2, 2)),
        ((2, 1, 3), (2, 3)),
        ((4, 6), (3, 8)),
        ((2, 3), (2, 3, 1)),
        ((1, 6), (6,)),
    ],
)
def test_reshape(shape: tuple[int, ...], newshape: tuple[int, ...]) -> None:
    x = relay.var("x", shape=shape)
    y = relay.reshape(relay.exp(x), newshape)
    build_and_compare(relay.Function([x], y), RNG.standard_normal(shape).astype("float32"))


def shuffle_then_depthwise(channels: int, groups: int, size: int, stride: int) -> relay.Function:
    x = relay.var("x", shape=(1, channels, size, size))
    r = relay.reshape(x, (1, groups, channels // groups, size, size))
    s = relay.reshape(relay.transpose(r, (0, 2, 1, 3, 4)), (1, channels, size, size))
    w = relay.const(RNG.standard_normal((channels, 1, 3, 3)).astype("float32"))
    y = relay.nn.conv2d(s, w, strides=(stride, stride), padding=(1, 1), groups=channels)
    return relay.Function([x], relay.nn.relu(y))


@pytest.mark.parametrize(("channels", "size", "stride"), [(12, 14, 1), (12, 14, 2), (8, 7, 1)])
def test_channel_shuffle_then_depthwise_conv2d(channels: int, size: int, stride: int) -> None:
    f = shuffle_then_depthwise(channels, 4, size, stride)
    build_and_compare(f, RNG.standard_normal((1, channels, size, size)).astype("float32"))


def test_channel_shuffle_is_read_by_rows_in_the_padded_copy() -> None:
    # One kernel; the shuffle's rows are read whole (a vector), not one element at a time
    # through a linear index divided back into four axes.
    _, kernels = lower_for_build(tvm.IRModule.from_expr(shuffle_then_depthwise(12, 4, 14, 1)))
    (kernel,) = [f for f in kernels.ops if isinstance(f, func.FuncOp)]
    text = str(kernel)
    assert "transpose" in kernel.sym_name.data and "conv2d" in kernel.sym_name.data
    assert "vector.load %p0" in text or "vector.load %x" in text, text
    assert text.count("floordivsi") <= 1, text
