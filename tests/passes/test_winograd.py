"""Winograd conv2d: the numpy algorithm against a direct convolution, the compiled op against
the relay interpreter (odd sizes, batches, fused tails), and relay-alter-op-layout turning
eligible conv2ds into it in relay.build."""

from __future__ import annotations

import threading

import numpy as np
import pytest

import xtvm as tvm
from xtvm import relay as tvm_relay
from xtvm.dialects import relay
from xtvm.driver.relay_build import lower_for_build
from xtvm.ir import winograd
from xtvm.passes.relay_alter_op_layout import RelayAlterOpLayoutPass
from xtvm.runtime.relay_interpreter import evaluate
from xtvm.testing.passes import kernel_argument_shapes, run
from xtvm.testing.relay import interpret, run_factory

RNG = np.random.default_rng(0)


def rand(*shape: int) -> np.ndarray:
    return RNG.standard_normal(shape).astype(np.float32)


def direct_conv(x: np.ndarray, w: np.ndarray, padding: tuple[int, int, int, int]) -> np.ndarray:
    """NHWC x HWIO stride-1 cross-correlation in float64."""
    top, left, bottom, right = padding
    xp = np.pad(x.astype(np.float64), [(0, 0), (top, bottom), (left, right), (0, 0)])
    oh, ow = xp.shape[1] - 2, xp.shape[2] - 2
    out = np.zeros((x.shape[0], oh, ow, w.shape[3]))
    for i in range(3):
        for j in range(3):
            out += xp[:, i : i + oh, j : j + ow] @ w[i, j].astype(np.float64)
    return out


def assert_close(got: np.ndarray, expected: np.ndarray, tolerance: float) -> None:
    """Equal up to `tolerance` of the largest magnitude (winograd's rounding is relative to
    the whole tile, not to each element)."""
    np.testing.assert_allclose(got, expected, atol=tolerance * np.abs(expected).max(), rtol=0)


@pytest.mark.parametrize("tile_size", winograd.TILE_SIZES)
@pytest.mark.parametrize("block", [None, 8])
@pytest.mark.parametrize(
    ("shape", "padding"),
    [((1, 14, 14, 8), (1, 1, 1, 1)), ((2, 9, 7, 8), (2, 0, 1, 1)), ((1, 6, 5, 8), (0, 0, 0, 0))],
    ids=str,
)
def test_numpy_winograd_is_a_convolution(
    tile_size: int, block: int | None, shape: tuple[int, ...], padding: tuple[int, ...]
) -> None:
    x, w = rand(*shape), rand(3, 3, shape[3], 16)
    u = winograd.transform_kernel(w, tile_size, block)
    alpha = tile_size + 2
    assert u.shape == ((alpha, alpha, 16 // 8, 8, 8) if block else (alpha, alpha, 8, 16))
    got = winograd.conv2d_nhwc(x, u, tile_size, padding)  # type: ignore[arg-type]
    assert got.dtype == np.float32
    assert_close(got, direct_conv(x, w, padding), 2e-5)  # type: ignore[arg-type]


def winograd_function(
    shape: tuple[int, ...], out: int, tile_size: int, block: int | None, padding: tuple, tail: str
) -> tuple[tvm.IRModule, np.ndarray]:
    """@main(x[, r]) = tail(winograd conv2d of x), and the HWIO kernel it was made from."""
    w = rand(3, 3, shape[3], out)
    x = tvm_relay.var("x", shape=shape)
    u = tvm_relay.const(winograd.transform_kernel(w, tile_size, block))
    y = tvm_relay.nn.contrib_conv2d_winograd_without_weight_transform(
        x, u, tile_size, padding=padding
    )
    args = [x]
    if tail in ("bias_relu", "residual"):
        y = tvm_relay.nn.relu(tvm_relay.nn.bias_add(y, tvm_relay.const(rand(out)), axis=3))
    if tail == "residual":
        r = tvm_relay.var("r", shape=y.checked_type.shape)  # type: ignore[attr-defined]
        y = tvm_relay.add(y, r)
        args.append(r)
    return tvm.IRModule.from_expr(tvm_relay.Function(args, y)), w


@pytest.mark.parametrize(
    ("shape", "out", "tile_size", "block", "padding", "tail"),
    [
        ((1, 16, 16, 16), 32, 4, 32, (1, 1, 1, 1), "none"),
        ((1, 14, 14, 32), 64, 4, 32, (1, 1, 1, 1), "bias_relu"),  # 14 = 3 tiles and a half
        ((2, 9, 7, 16), 16, 4, None, (2, 0, 1, 1), "residual"),
        ((1, 11, 13, 16), 48, 2, 16, (1, 1, 1, 1), "bias_relu"),
        ((1, 5, 5, 8), 8, 2, None, (0, 0, 0, 0), "none"),
    ],
    ids=str,
)
def test_compiled_winograd_matches_the_interpreter(
    shape: tuple[int, ...],
    out: int,
    tile_size: int,
    block: int | None,
    padding: tuple[int, ...],
    tail: str,
) -> None:
    mod, w = winograd_function(shape, out, tile_size, block, padding, tail)
    inputs = [rand(*shape)]
    if tail == "residual":
        inputs.append(rand(*mod["main"].ret_type.shape))  # type: ignore[attr-defined]
    (expected,) = interpret(mod, {}, *inputs)
    names = ["x", "r"][: len(inputs)]
    (got,) = run_factory(tvm_relay.build(mod, "llvm"), **dict(zip(names, inputs, strict=True)))
    assert_close(got, expected, 1e-5)
    if tail == "none":
        assert_close(got, direct_conv(inputs[0], w, padding), 1e-4)  # type: ignore[arg-type]


def test_compiled_winograd_kernel_runs_on_two_threads_at_once() -> None:
    # Its intermediate buffers (over 64 KiB) come from per-site caches: a call running while
    # another holds them allocates its own.
    mod, _ = winograd_function((1, 28, 28, 32), 32, 4, 32, (1, 1, 1, 1), "none")
    lib = tvm_relay.build(mod, "llvm")
    inputs = [rand(1, 28, 28, 32) for _ in range(2)]
    expected = [interpret(mod, {}, x)[0] for x in inputs]
    failures: list[str] = []

    def work(index: int) -> None:
        module = lib["default"](tvm.cpu())
        for _ in range(20):
            module.set_input(x=inputs[index])
            module.run()
            got = module.get_output(0).numpy()
            if not np.allclose(got, expected[index], atol=1e-4 * np.abs(expected[index]).max()):
                failures.append(f"thread {index}")
                return

    threads = [threading.Thread(target=work, args=(i,)) for i in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not failures


def test_api_rejects_what_winograd_cannot_do() -> None:
    x = tvm_relay.var("x", shape=(1, 8, 8, 16))
    u = tvm_relay.var("u", shape=(6, 6, 16, 8))
    conv = tvm_relay.nn.contrib_conv2d_winograd_without_weight_transform
    # Refused when built or, as in TVM, when type-checked.
    with pytest.raises((ValueError, tvm.error.TVMError), match="data_layout NHWC"):
        conv(x, u, 4, data_layout="NCHW").checked_type  # noqa: B018
    with pytest.raises((ValueError, tvm.error.TVMError), match="strides 1"):
        conv(x, u, 4, strides=2).checked_type  # noqa: B018
    with pytest.raises((ValueError, tvm.error.TVMError), match="channels=16"):
        conv(x, u, 4, padding=1, channels=16).checked_type  # noqa: B018
    assert conv(x, u, 4, padding=1, channels=8).checked_type.shape == (1, 8, 8, 8)  # type: ignore[attr-defined]


def nhwc_conv(h: int, c: int, o: int, stride: int = 1) -> tvm.IRModule:
    x = tvm_relay.var("x", shape=(1, h, h, c))
    w = tvm_relay.const(rand(3, 3, c, o))
    y = tvm_relay.nn.conv2d(
        x, w, strides=stride, padding=(1, 1), data_layout="NHWC", kernel_layout="HWIO"
    )
    return tvm.IRModule.from_expr(tvm_relay.Function([x], y))


@pytest.mark.parametrize(
    ("h", "c", "o", "stride", "block"),
    [(16, 16, 64, 1, 32), (13, 32, 48, 1, 16), (16, 16, 40, 1, None), (16, 8, 32, 1, None)],
    ids=str,
)
def test_alter_op_layout_chooses_winograd(
    h: int, c: int, o: int, stride: int, block: int | None
) -> None:
    # Output channels in whole vectors (blocks of 32, else 16), input channels a multiple of
    # 16: 40 outputs or 8 inputs stay direct.
    module = nhwc_conv(h, c, o, stride).xdsl
    x = rand(1, h, h, c)
    (before,) = evaluate(module, [x])
    run(module, RelayAlterOpLayoutPass())
    convs = [op for op in module.walk() if isinstance(op, relay.Conv2dWinogradOp)]
    if block is None:
        assert not convs
        return
    (conv,) = convs
    assert conv.weight.type.get_shape() == (6, 6, o // block, c, block)  # type: ignore[attr-defined]
    (after,) = evaluate(module, [x])
    assert_close(after, before, 2e-5)
    direct = run(nhwc_conv(h, c, o, stride).xdsl, RelayAlterOpLayoutPass(winograd=False))
    assert not any(isinstance(op, relay.Conv2dWinogradOp) for op in direct.walk())


def test_relay_build_uses_winograd_and_matches_the_direct_conv() -> None:
    # An NCHW model: converted to NHWC, its 3x3 conv2d (28x28: 49 tiles) becomes winograd
    # (a 6x6 transformed kernel reaches the kernel) and computes the direct convolution.
    x = tvm_relay.var("x", shape=(1, 32, 28, 28))
    w = tvm_relay.var("w", shape=(64, 32, 3, 3))
    y = tvm_relay.nn.relu(tvm_relay.nn.conv2d(x, w, padding=(1, 1)))
    mod = tvm.IRModule.from_expr(tvm_relay.Function([x, w], y))
    params = {"w": rand(64, 32, 3, 3)}
    _, kernels = lower_for_build(mod, params)
    shapes = kernel_argument_shapes(kernels)
    assert (6, 6, 2, 32, 32) in shapes
    data = rand(1, 32, 28, 28)
    (got,) = run_factory(tvm_relay.build(mod, "llvm", params=params), x=data)
    (expected,) = interpret(mod, {}, data, params["w"])
    assert_close(got, expected, 1e-5)
