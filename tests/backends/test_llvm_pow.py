"""pow in the LLVM backend (backends/llvm/power.py): constant exponents as square roots and
products, float32 vectors as an inline exp2(y log2|x|), correctly rounded but for a double
rounding (<= 0.5 ulp + 1e-6 against numpy's double-precision pow; 1 ulp for the odd quarter
powers, x ** 0.75 included), with C99's special values; no libm `powf` call per lane."""

from __future__ import annotations

import numpy as np
import pytest

import xtvm as tvm
from xtvm import relay, te
from xtvm.contrib import graph_executor

RNG = np.random.default_rng(11)
N = 1 << 14
TINY = np.finfo(np.float32).tiny
# Correct rounding of the double result allows 0.5 ulp; the double rounding adds < 2^-28.
ULP_BOUND = 0.5 + 1e-6
SPECIAL_BASES = [0.0, -0.0, np.inf, -np.inf, np.nan, 1.0, -1.0, 2.0, -2.0, 0.5, -0.5]
SPECIAL_BASES += [1e-40, -1e-40, 1.4e-45, 3.4e38, -3.4e38, 1.1754944e-38]
SPECIAL_EXPONENTS = [0.0, -0.0, np.inf, -np.inf, np.nan, 1.0, -1.0, 2.0, 3.0, -3.0, 0.5]
SPECIAL_EXPONENTS += [-0.5, 0.75, 1e10, -1e10, 17.0, 0.3, 16777216.0, 16777215.0, -127.5]


def bases(n: int) -> np.ndarray:
    """The special bases, then magnitudes from subnormal to near overflow, both signs."""
    rest = n - len(SPECIAL_BASES)
    return np.concatenate(
        [
            SPECIAL_BASES,
            np.exp(RNG.uniform(-103, 88, rest // 2)),
            -np.exp(RNG.uniform(-20, 20, rest // 4)),
            RNG.uniform(0, 2e-38, rest - rest // 2 - rest // 4),  # subnormal and tiny normal
        ]
    ).astype(np.float32)


def check_pow(got: np.ndarray, x: np.ndarray, y: np.ndarray, bound: float = ULP_BOUND) -> None:
    """`got` is numpy's double-precision pow rounded to float32: within `bound` ulp where that
    is a normal float, to the last subnormal unit below, exactly at 0, inf and NaN, signs of
    zeros included."""
    with np.errstate(all="ignore"):
        exact = np.power(x.astype(np.float64), y.astype(np.float64))
        rounded = exact.astype(np.float32)
    normal = np.isfinite(rounded) & (np.abs(rounded) >= TINY)
    ulps = np.abs(got[normal] - exact[normal]) / np.spacing(np.abs(rounded[normal]))
    worst = ulps.argmax()
    where = f"x = {x[normal][worst]!r}, y = {y[normal][worst]!r}"
    assert ulps.max() <= bound, f"{ulps.max():.6f} ulp at {where}"
    rest = ~normal
    np.testing.assert_array_equal(np.isnan(got[rest]), np.isnan(rounded[rest]))
    finite = rest & ~np.isnan(rounded)
    tiny = np.finfo(np.float32).smallest_subnormal
    np.testing.assert_allclose(got[finite], rounded[finite], rtol=0, atol=tiny)
    np.testing.assert_array_equal(np.signbit(got[finite]), np.signbit(rounded[finite]))


def build_pow(exponent: float | None, lanes: int) -> tuple[tvm.runtime.Module, list[te.Tensor]]:
    """x ** y elementwise, y the constant `exponent` or a second input (None)."""
    A = te.placeholder((N,), name="A")
    if exponent is None:
        Y = te.placeholder((N,), name="Y")
        B = te.compute((N,), lambda i: te.power(A[i], Y[i]), name="B")
        args = [A, Y, B]
    else:
        B = te.compute((N,), lambda i: te.power(A[i], te.const(exponent, "float32")), name="B")
        args = [A, B]
    s = te.create_schedule(B.op)
    if lanes > 1:
        s[B].vectorize(s[B].split(B.op.axis[0], factor=lanes)[1])
    return tvm.build(s, args, "llvm"), args


def assert_no_pow_call(source: str, by_constant: bool = False) -> None:
    """No pow call in `source`; `by_constant`: square roots, not the general pow (whose
    exp2 rounds with llvm.rint)."""
    assert "powf" not in source and "llvm.pow" not in source, "a pow call is left"
    if by_constant:
        assert "llvm.sqrt" in source and "llvm.rint" not in source


EXPONENTS = [0.5, 0.75, 0.25, 1.5, 2.0, 3.0, 4.0, -1.0, -0.5, -0.75, -0.25, -2.0, -4.0]
EXPONENTS += [3.75, -3.75, 2.5, 0.0, 1.0]


@pytest.mark.parametrize("lanes", [1, 16])
@pytest.mark.parametrize("exponent", EXPONENTS)
def test_pow_by_constant_is_correctly_rounded(exponent: float, lanes: int) -> None:
    """x ** c for c a multiple of 1/4 with |c| <= 4: square roots and products, scalar and
    vector, no pow call; correctly rounded but for a double rounding, within 1 ulp for the odd
    quarters (their inner float32 sqrt); -0 and -inf bases as pow gives them (+0 / +inf where
    sqrt would give -0 / NaN), subnormal bases and results exact."""
    f, _ = build_pow(exponent, lanes)
    assert_no_pow_call(f.get_source(), by_constant=exponent % 1 != 0)
    x = bases(N)
    got = np.zeros(N, np.float32)
    f(x, got)
    odd_quarter = (4 * exponent) % 2 == 1
    check_pow(got, x, np.full(N, exponent, np.float32), 1.0 if odd_quarter else ULP_BOUND)


@pytest.mark.parametrize("exponent", [0.3, 7.0, -2.2, 1 / 3, 4.25, -9.5, 100.0])
def test_vector_pow_by_other_constants(exponent: float) -> None:
    """A constant without the cheap form takes the inline vector pow, not powf per lane."""
    f, _ = build_pow(exponent, 16)
    assert_no_pow_call(f.get_source())
    x = bases(N)
    got = np.zeros(N, np.float32)
    f(x, got)
    check_pow(got, x, np.full(N, exponent, np.float32))


def test_vector_pow_special_values_and_range() -> None:
    """The vector pow of two inputs: every pair of special base and exponent (C99's table:
    pow(x, 0) = pow(1, y) = 1 with NaN, pow(-1, inf) = 1, negative bases to odd, even and
    non-integer powers, zeros and infinities to either sign), bases near 1 to large powers
    (results down to subnormals and up to overflow), and random pairs over the float range."""
    f, _ = build_pow(None, 16)
    assert_no_pow_call(f.get_source())
    grid_x, grid_y = np.meshgrid(
        np.array(SPECIAL_BASES, np.float32), np.array(SPECIAL_EXPONENTS, np.float32)
    )
    near_one = 4096
    rest = N - grid_x.size - near_one
    x = np.concatenate([grid_x.ravel(), RNG.uniform(0.8, 1.25, near_one), bases(rest)]).astype(
        np.float32
    )
    y = np.concatenate(
        [
            grid_y.ravel(),
            RNG.uniform(-1000, 1000, near_one),
            np.where(RNG.random(rest) < 0.5, RNG.integers(-12, 13, rest), RNG.uniform(-8, 8, rest)),
        ]
    ).astype(np.float32)
    got = np.zeros(N, np.float32)
    f(x, y, got)
    check_pow(got, x, y)
    assert np.isinf(got).any() and (got == 0).any() and np.isnan(got).any()
    assert ((np.abs(got) < TINY) & (got != 0)).any()  # subnormal results


def test_scalar_pow_by_a_variable_stays_libm() -> None:
    """Without a vector or a constant exponent, pow is libm's (one call; glibc's powf is
    within 1 ulp, not always correctly rounded)."""
    f, _ = build_pow(None, 1)
    assert "pow" in f.get_source()
    x, y = bases(N), RNG.uniform(-4, 4, N).astype(np.float32)
    got = np.zeros(N, np.float32)
    f(x, y, got)
    check_pow(got, x, y, bound=1.0)


def test_lrn_runs_without_pow_calls() -> None:
    """Local response normalization, x / (bias + alpha / n * sum) ** 0.75 (Inception's), has no
    pow call left and matches the relay interpreter."""
    x = relay.var("x", shape=(1, 24, 14, 14))
    body = relay.nn.lrn(x, size=5, alpha=1e-4, beta=0.75, bias=1.0)
    mod = tvm.IRModule.from_expr(relay.Function([x], body))
    factory = relay.build(mod, "llvm")
    assert_no_pow_call(factory.get_lib().get_source(), by_constant=True)
    data = (RNG.standard_normal((1, 24, 14, 14)) * 30).astype(np.float32)
    module = graph_executor.GraphModule(factory["default"](tvm.cpu()))
    module.run(x=data)
    want = relay.create_executor("debug", mod=mod).evaluate()(data).numpy()
    np.testing.assert_allclose(module.get_output(0).numpy(), want, rtol=2e-6, atol=0)


def pow_model(exponent: float | None) -> object:
    """An ONNX Pow of x by a constant exponent (an initializer) or by a second input."""
    from onnx import TensorProto, helper, numpy_helper

    shape = [8, 300]
    inputs = [helper.make_tensor_value_info("x", TensorProto.FLOAT, shape)]
    initializers = []
    if exponent is None:
        inputs.append(helper.make_tensor_value_info("y", TensorProto.FLOAT, shape))
    else:
        initializers.append(numpy_helper.from_array(np.array(exponent, np.float32), "y"))
    graph = helper.make_graph(
        [helper.make_node("Pow", ["x", "y"], ["z"])],
        "pow",
        inputs,
        [helper.make_tensor_value_info("z", TensorProto.FLOAT, shape)],
        initializers,
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 15)])
    model.ir_version = 8  # what the installed onnxruntime reads
    return model


@pytest.mark.parametrize("exponent", [0.5, 2.0, 3.0, 0.75, -0.5, 1.7, None])
def test_onnx_pow_matches_onnxruntime_without_pow_calls(exponent: float | None) -> None:
    """ONNX Pow by a constant (0.5, 2 and 3 as the importer's sqrt and products, the others
    through relay's power) and by a tensor compile with no pow call; the results are within
    ULP_BOUND of the exact power (1.5 ulp for the importer's x * x * x, two roundings, as
    onnxruntime computes it too; 1 for x ** 0.75) and within 1 ulp of onnxruntime's."""
    ort = pytest.importorskip("onnxruntime")
    from xtvm.api.relay.frontend import from_onnx

    model = pow_model(exponent)
    x = np.abs(RNG.standard_normal((8, 300)) * 4).astype(np.float32)
    x[0, :4] = [0.0, 1.0, 1e-40, 3e4]
    feeds = {"x": x}
    if exponent is None:
        feeds["y"] = RNG.uniform(-6, 6, (8, 300)).astype(np.float32)
    mod, params = from_onnx(model)
    factory = relay.build(mod, target="llvm", params=params)
    assert_no_pow_call(factory.get_lib().get_source(), by_constant=exponent in (0.75, -0.5))
    executor = graph_executor.GraphModule(factory["default"](tvm.cpu()))
    for name, value in feeds.items():
        executor.set_input(name, value)
    executor.run()
    got = executor.get_output(0).numpy()
    y = feeds.get("y", np.full(x.shape, exponent, np.float32))
    bound = {3.0: 1.5, 0.75: 1.0}.get(exponent, ULP_BOUND)  # type: ignore[arg-type]
    check_pow(got.ravel(), x.ravel(), y.ravel(), bound)
    session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    (theirs,) = session.run(None, feeds)
    normal = np.isfinite(theirs) & (np.abs(theirs) >= TINY)
    spacing = np.spacing(np.abs(theirs[normal]))
    assert (np.abs(got[normal] - theirs[normal]) / spacing).max() <= 1.0
    np.testing.assert_array_equal(got[~normal], theirs[~normal])
