"""relay.qnn: quantized ops against numpy references, built and interpreted, read back from
text, and their canonicalization; bad operands are clear errors."""

from __future__ import annotations

import numpy as np
import pytest

import xtvm as tvm
from xtvm import relay
from xtvm.api.relay.expr import RelayTypeError
from xtvm.api.relay.testing.temp_op_attr import TempOpAttr
from xtvm.contrib import graph_executor
from xtvm.ir.errors import TVMError

RNG = np.random.default_rng(7)


def conv2d_ref(data: np.ndarray, kernel: np.ndarray, pad: int) -> np.ndarray:
    """NCHW x OIHW, stride 1, in int64."""
    padded = np.pad(data.astype(np.int64), ((0, 0), (0, 0), (pad, pad), (pad, pad)))
    kh, kw = kernel.shape[2:]
    windows = np.lib.stride_tricks.sliding_window_view(padded, (kh, kw), axis=(2, 3))
    return np.einsum("nchwij,ocij->nohw", windows, kernel.astype(np.int64))


def requantize_ref(q: np.ndarray, scale_in, zp_in, scale_out, zp_out, dtype: str) -> np.ndarray:
    """Halves upward, as TVM's default rounding."""
    value = np.floor((q - zp_in) * (np.float64(scale_in) / np.float64(scale_out)) + 0.5) + zp_out
    info = np.iinfo(dtype)
    return np.clip(value, info.min, info.max).astype(dtype)


def chain(x: relay.Var, w: relay.Var) -> relay.Expr:
    kernel_zp = np.array([1, -2, 0, 3], "int32")
    kernel_scale = np.array([0.1, 0.2, 0.05, 0.4], "float32")
    conv = relay.qnn.op.conv2d(
        x,
        w,
        input_zero_point=relay.const(3),
        kernel_zero_point=relay.const(kernel_zp),
        input_scale=relay.const(0.5),
        kernel_scale=relay.const(kernel_scale),
        kernel_size=(3, 3),
        channels=4,
        padding=1,
    )
    scaled = relay.qnn.op.requantize(
        conv,
        relay.const(0.5 * kernel_scale),
        relay.const(np.zeros(4, "int32")),
        relay.const(2.0),
        relay.const(5),
        axis=1,
        out_dtype="uint8",
    )
    doubled = relay.qnn.op.add(
        scaled,
        scaled,
        relay.const(2.0),
        relay.const(5),
        relay.const(2.0),
        relay.const(5),
        relay.const(4.0),
        relay.const(1),
    )
    return relay.qnn.op.dequantize(doubled, relay.const(4.0), relay.const(1))


def chain_ref(xv: np.ndarray, wv: np.ndarray) -> np.ndarray:
    kernel_zp = np.array([1, -2, 0, 3]).reshape(4, 1, 1, 1)
    kernel_scale = np.array([0.1, 0.2, 0.05, 0.4], "float32").reshape(1, 4, 1, 1)
    acc = conv2d_ref(xv.astype(np.int64) - 3, wv.astype(np.int64) - kernel_zp, 1)
    scale_in = (np.float32(0.5) * kernel_scale).astype(np.float64)
    scaled = requantize_ref(acc, scale_in, 0, 2.0, 5, "uint8").astype(np.int64)
    part = np.floor((scaled - 5) * 0.5 + 0.5)
    doubled = np.clip(part + part + 1, 0, 255)
    return ((doubled - 1) * 4.0).astype("float32")


def test_quantized_chain_matches_numpy_built_and_interpreted() -> None:
    x = relay.var("x", shape=(1, 3, 6, 6), dtype="uint8")
    w = relay.var("w", shape=(4, 3, 3, 3), dtype="int8")
    mod = tvm.IRModule.from_expr(relay.Function([x, w], chain(x, w)))
    xv = RNG.integers(0, 256, (1, 3, 6, 6)).astype("uint8")
    wv = RNG.integers(-128, 128, (4, 3, 3, 3)).astype("int8")
    expected = chain_ref(xv, wv)
    assert len(np.unique(expected)) > 5  # not saturated: the values test the arithmetic

    lib = relay.build(mod, "llvm")
    module = graph_executor.GraphModule(lib["default"](tvm.cpu()))
    module.set_input(x=xv, w=wv)
    module.run()
    np.testing.assert_array_equal(module.get_output(0).numpy(), expected)

    interpreted = relay.create_executor("graph", mod=mod).evaluate()(xv, wv)
    np.testing.assert_array_equal(interpreted.numpy(), expected)


@pytest.mark.parametrize(
    ("rounding", "expected"), [("UPWARD", [-1, 0, 1, 2]), ("TONEAREST", [-2, -1, 1, 2])]
)
def test_requantize_rounds_halves_as_asked(rounding: str, expected: list[int]) -> None:
    q = relay.var("q", shape=(4,), dtype="int32")
    one, zero = relay.const(1.0), relay.const(0)
    out = relay.qnn.op.requantize(q, one, zero, relay.const(2.0), zero, rounding=rounding)
    mod = tvm.IRModule.from_expr(relay.Function([q], out))
    result = relay.create_executor("graph", mod=mod).evaluate()(np.array([-3, -1, 1, 3], "int32"))
    np.testing.assert_array_equal(result.numpy(), np.array(expected, "int8"))


def test_quantize_per_channel_and_saturates() -> None:
    data = relay.var("data", shape=(2, 3), dtype="float32")
    scales = relay.const(np.array([0.5, 1.0, 2.0], "float32"))
    zero_points = relay.const(np.array([0, 10, -10], "int32"))
    out = relay.qnn.op.quantize(data, scales, zero_points, axis=1, out_dtype="int8")
    mod = tvm.IRModule.from_expr(relay.Function([data], out))
    values = np.array([[1.25, -2.5, 300.0], [-1000.0, 2.5, -3.0]], "float32")
    result = relay.create_executor("graph", mod=mod).evaluate()(values).numpy()
    scaled = values / np.array([0.5, 1.0, 2.0], "float32")
    rounded = np.sign(scaled) * np.floor(np.abs(scaled) + 0.5)  # halves away from zero
    expected = np.clip(rounded + np.array([0, 10, -10]), -128, 127).astype("int8")
    np.testing.assert_array_equal(result, expected)


def test_qnn_text_reads_back() -> None:
    x = relay.var("x", shape=(1, 3, 6, 6), dtype="uint8")
    w = relay.var("w", shape=(4, 3, 3, 3), dtype="int8")
    mod = tvm.IRModule.from_expr(relay.Function([x, w], chain(x, w)))
    text = mod.astext()
    assert "qnn.conv2d(" in text and "channels=4" in text and "qnn.add(" in text
    assert tvm.ir.structural_equal(tvm.parser.parse(text), mod)


def test_canonicalize_ops_leaves_ordinary_ops() -> None:
    x = relay.var("x", shape=(1, 3, 6, 6), dtype="uint8")
    w = relay.var("w", shape=(4, 3, 3, 3), dtype="int8")
    mod = tvm.IRModule.from_expr(relay.Function([x, w], chain(x, w)))
    canonical = relay.qnn.transform.CanonicalizeOps()(mod)
    text = canonical.astext(show_meta_data=False)
    assert "qnn." not in text and "nn.conv2d(" in text


def test_qnn_concatenate_requantizes_each_input() -> None:
    a = relay.var("a", shape=(2,), dtype="uint8")
    b = relay.var("b", shape=(2,), dtype="uint8")
    out = relay.qnn.op.concatenate(
        (a, b),
        input_scales=(relay.const(1.0), relay.const(0.5)),
        input_zero_points=(relay.const(0), relay.const(10)),
        output_scale=relay.const(1.0),
        output_zero_point=relay.const(0),
        axis=0,
    )
    mod = tvm.IRModule.from_expr(relay.Function([a, b], out))
    run = relay.create_executor("graph", mod=mod).evaluate()
    result = run(np.array([3, 4], "uint8"), np.array([20, 11], "uint8"))
    np.testing.assert_array_equal(result.numpy(), np.array([3, 4, 5, 1], "uint8"))
    text = mod.astext()
    assert "qnn.concatenate((%a, %b), (" in text  # an op of its own, with TVM's tuple operands
    assert tvm.ir.structural_equal(tvm.parser.parse(text), mod)


def test_bad_operands_are_clear_errors() -> None:
    data = relay.var("data", shape=(4,), dtype="float32")
    # ill-typed calls are reported by type inference, as in TVM
    with pytest.raises(RelayTypeError, match="scale must be a float32"):
        relay.qnn.op.quantize(data, relay.const(1), relay.const(0)).checked_type  # noqa: B018
    with pytest.raises(RelayTypeError, match="8, 16 or 32-bit integer"):
        relay.qnn.op.dequantize(data, relay.const(1.0), relay.const(0)).checked_type  # noqa: B018
    q = relay.var("q", shape=(4,), dtype="int32")
    one, zero = relay.const(1.0), relay.const(0)
    with pytest.raises(RelayTypeError, match="rounding must be"):
        relay.qnn.op.requantize(q, one, zero, one, zero, rounding="DOWN").checked_type  # noqa: B018
    with pytest.raises(ValueError, match="rounding must be"):
        with relay.qnn.op.requantize_config(rounding="DOWN"):
            pass
    with pytest.raises(ValueError, match="2 tensors, 1 scales"):
        relay.qnn.op.concatenate((q, q), (one,), (zero, zero), one, zero, axis=0)


def test_a_legalize_hook_that_rewrites_is_refused() -> None:
    with TempOpAttr("qnn.dense", "FTVMQnnLegalize", lambda attrs, inputs, types: None):
        pass
    with pytest.raises(TVMError, match="legalizes no operator"):
        with TempOpAttr("qnn.dense", "FTVMQnnLegalize", lambda attrs, inputs, types: 1):
            pass


def test_quantized_chain_builds_for_c_and_lowers_for_cuda() -> None:
    """Every build pipeline canonicalizes QNN first: C runs it, CUDA lowers it to kernels."""
    from xtvm.driver.relay_build_cuda import lower_for_cuda

    x = relay.var("x", shape=(1, 3, 6, 6), dtype="uint8")
    w = relay.var("w", shape=(4, 3, 3, 3), dtype="int8")
    mod = tvm.IRModule.from_expr(relay.Function([x, w], chain(x, w)))
    xv = RNG.integers(0, 256, (1, 3, 6, 6)).astype("uint8")
    wv = RNG.integers(-128, 128, (4, 3, 3, 3)).astype("int8")

    lib = relay.build(mod, "c")
    module = graph_executor.GraphModule(lib["default"](tvm.cpu()))
    module.set_input(x=xv, w=wv)
    module.run()
    np.testing.assert_array_equal(module.get_output(0).numpy(), chain_ref(xv, wv))

    main, kernels = lower_for_cuda(mod)
    assert "qnn." not in str(main) + str(kernels)
    assert "tir.kernel" in str(kernels) or "gpu" in str(kernels)
