"""Unsigned element types (uint8..uint64) compiled end to end and checked against numpy.

Values keep their `ui8` type down to tir (buffers `memref<..xui8>`); the arith ops whose
meaning depends on signedness are their unsigned variants (divui, remui, cmpi ult, maxui,
extui, uitofp, fptoui). The inputs hold values above the signed range (200 for uint8, above
2**63 for uint64), where reading the bits as signed would give other results. Each kernel is
built once per target: LLVM, the C backend, and the tir interpreter on the same tir.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
import pytest

import xtvm as tvm
from xtvm import relay, te
from xtvm.contrib import graph_executor
from xtvm.runtime import tir_interpreter

RNG = np.random.default_rng(5)
UNSIGNED = ["uint8", "uint16", "uint32", "uint64"]
TARGETS = ["llvm", "c", "tir-interpreter"]


def high_values(dtype: str, shape: Sequence[int], low: int = 0) -> np.ndarray:
    """Random values, half of them above the signed range; the extremes included."""
    info = np.iinfo(dtype)
    half = int(info.max) // 2 + 1
    values = RNG.integers(low, half, shape, dtype=dtype)
    upper = RNG.integers(half, info.max, shape, dtype=dtype, endpoint=True)
    values = np.where(RNG.random(shape) < 0.5, upper, values).astype(dtype)
    values.flat[0] = info.max
    values.flat[-1] = max(low, 0)
    return values


def build_and_run(
    s: te.Schedule, args: Sequence[te.Tensor], arrays: Sequence[np.ndarray], target: str
) -> None:
    """Compile `s` for `target` and run it on `arrays`, outputs written in place."""
    if target == "tir-interpreter":
        tir_interpreter.run(tvm.lower(s, args, name="kernel").xdsl, "kernel", *arrays)
        return
    tvm.build(s, args, target=target, name="kernel")(*arrays)


def outputs_like(tensors: Sequence[te.Tensor]) -> list[np.ndarray]:
    return [np.zeros([int(d) for d in t.shape], t.dtype) for t in tensors]  # type: ignore[arg-type]


# ---------------------------------------------------------------------------------------------
# tvm.build: te.placeholder(..., dtype="uint8")

BINARY: dict[str, tuple[Callable, Callable]] = {
    "add": (lambda a, b: a + b, lambda a, b: a + b),
    "sub": (lambda a, b: a - b, lambda a, b: a - b),
    "mul": (lambda a, b: a * b, lambda a, b: a * b),
    "truncdiv": (lambda a, b: a / b, lambda a, b: a // b),
    "floordiv": (lambda a, b: a // b, lambda a, b: a // b),
    "mod": (lambda a, b: a % b, lambda a, b: a % b),
    "max": (lambda a, b: te.max(a, b), np.maximum),
    "min": (lambda a, b: te.min(a, b), np.minimum),
    "lt": (lambda a, b: a < b, lambda a, b: a < b),
    "le": (lambda a, b: a <= b, lambda a, b: a <= b),
    "gt": (lambda a, b: a > b, lambda a, b: a > b),
    "ge": (lambda a, b: a >= b, lambda a, b: a >= b),
    "eq": (lambda a, b: a.equal(b), lambda a, b: a == b),
    "plus_const": (lambda a, b: a + 7, lambda a, b: a + a.dtype.type(7)),
}


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("dtype", UNSIGNED)
def test_elementwise_and_compare(dtype: str, target: str) -> None:
    n = 37
    A = te.placeholder((n,), dtype, "A")
    B = te.placeholder((n,), dtype, "B")
    outs = [
        te.compute((n,), lambda i, f=f: f(A[i], B[i]), name=f"C_{name}")
        for name, (f, _) in BINARY.items()
    ]
    s = te.create_schedule([c.op for c in outs])
    s[outs[0]].vectorize(outs[0].op.axis[0])
    a, b = high_values(dtype, (n,)), high_values(dtype, (n,), low=1)
    results = outputs_like(outs)
    build_and_run(s, [A, B, *outs], [a, b, *results], target)
    with np.errstate(over="ignore"):
        for (name, (_, ref)), got in zip(BINARY.items(), results, strict=True):
            np.testing.assert_array_equal(got, ref(a, b), err_msg=f"{name} on {dtype}")


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("dtype", UNSIGNED)
def test_casts(dtype: str, target: str) -> None:
    n = 19
    A = te.placeholder((n,), dtype, "A")
    F = te.placeholder((n,), "float32", "F")  # in [0, 250]: representable in every dtype
    S = te.placeholder((n,), "int32", "S")
    to = ["float32", "float64", "int8", "int32", "int64", "uint8", "uint32", "uint64"]
    from_unsigned = [te.compute((n,), lambda i, t=t: A[i].astype(t), name=f"to_{t}") for t in to]
    from_float = te.compute((n,), lambda i: F[i].astype(dtype), name="from_float")
    from_signed = te.compute((n,), lambda i: S[i].astype(dtype), name="from_signed")
    outs = [*from_unsigned, from_float, from_signed]
    s = te.create_schedule([c.op for c in outs])
    a = high_values(dtype, (n,))
    f = np.floor(RNG.uniform(0, 250, n)).astype("float32")
    signed = RNG.integers(-(2**31), 2**31 - 1, n, dtype="int32")
    results = outputs_like(outs)
    build_and_run(s, [A, F, S, *outs], [a, f, signed, *results], target)
    for t, got in zip(to, results, strict=False):
        np.testing.assert_array_equal(got, a.astype(t), err_msg=f"{dtype} -> {t}")
    np.testing.assert_array_equal(results[-2], f.astype(dtype))
    np.testing.assert_array_equal(results[-1], signed.astype(dtype))


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("dtype", UNSIGNED)
def test_reductions(dtype: str, target: str) -> None:
    """max, min and sum over rows; the vectorized max folds lanes with maxui."""
    rows, cols = 5, 24
    A = te.placeholder((rows, cols), dtype, "A")
    outs = []
    for name, reducer in (("max", te.max), ("min", te.min), ("sum", te.sum), ("vmax", te.max)):
        k = te.reduce_axis((0, cols), "k")
        outs.append(te.compute((rows,), lambda i, r=reducer, k=k: r(A[i, k], axis=k), name=name))
    s = te.create_schedule([c.op for c in outs])
    _, inner = s[outs[-1]].split(outs[-1].op.reduce_axis[0], 8)
    s[outs[-1]].vectorize(inner, reduction=True)  # a vector accumulator
    a = high_values(dtype, (rows, cols), low=1)
    results = outputs_like(outs)
    build_and_run(s, [A, *outs], [a, *results], target)
    np.testing.assert_array_equal(results[0], a.max(axis=1))
    np.testing.assert_array_equal(results[1], a.min(axis=1))
    np.testing.assert_array_equal(results[2], a.sum(axis=1, dtype=dtype))
    np.testing.assert_array_equal(results[3], a.max(axis=1))


def test_kernel_signature_says_uint8() -> None:
    A = te.placeholder((4,), "uint8", "A")
    C = te.compute((4,), lambda i: A[i] // 3, name="C")
    f = tvm.build(te.create_schedule(C.op), [A, C], name="kernel")
    assert "memref<4xui8>" in str(tvm.lower(te.create_schedule(C.op), [A, C]))
    with pytest.raises(Exception, match="uint8"):  # an int8 array is not a uint8 buffer
        f(np.zeros(4, "int8"), np.zeros(4, "uint8"))
    c = np.zeros(4, "uint8")
    f(np.array([255, 200, 3, 0], "uint8"), c)
    np.testing.assert_array_equal(c, [85, 66, 1, 0])


# ---------------------------------------------------------------------------------------------
# relay.build: graphs over unsigned tensors, against the relay interpreter and numpy


def build_graph(
    inputs: dict[str, np.ndarray], body: Callable[..., relay.Expr]
) -> tuple[list[np.ndarray], list[np.ndarray]]:
    """The outputs of the graph `body(*vars)` compiled by relay.build, and interpreted."""
    variables = [relay.var(k, shape=v.shape, dtype=str(v.dtype)) for k, v in inputs.items()]
    mod = tvm.IRModule.from_expr(relay.Function(variables, body(*variables)))
    interpreted = relay.create_executor("graph", mod=mod).evaluate()(*inputs.values())
    expected = interpreted if isinstance(interpreted, tuple) else (interpreted,)
    module = graph_executor.GraphModule(relay.build(mod, target="llvm")["default"](tvm.cpu(0)))
    for k, v in inputs.items():
        module.set_input(k, v)
    module.run()
    got = [module.get_output(i).numpy() for i in range(module.get_num_outputs())]
    return got, [e.numpy() for e in expected]


@pytest.mark.parametrize("dtype", ["uint8", "uint64"])
def test_relay_build_graph(dtype: str) -> None:
    x, y = high_values(dtype, (3, 8)), high_values(dtype, (3, 8), low=1)
    big = int(np.iinfo(dtype).max) - 5  # a splat constant above the signed range
    bits = np.iinfo(dtype).bits
    high = 2 ** (bits - 1) + 2 ** (bits - 3)  # a clip bound above it, exact as a float

    def body(a: relay.Expr, b: relay.Expr) -> relay.Expr:
        return relay.Tuple(
            [
                a + relay.const(big, dtype),
                relay.divide(a, b),
                relay.less(a, b),
                relay.maximum(a, b),
                relay.minimum(a, b),
                relay.cast(a, "float64"),
                relay.cast(relay.cast(relay.divide(a, relay.const(2, dtype)), "float64"), dtype),
                relay.clip(a, 3, float(high)),
                relay.max(a, axis=1),
                relay.min(a, axis=1),
                relay.sum(a, axis=0),
            ]
        )

    got, expected = build_graph({"x": x, "y": y}, body)
    with np.errstate(over="ignore"):
        numpy_refs = [
            x + np.array(big, dtype),
            x // y,
            x < y,
            np.maximum(x, y),
            np.minimum(x, y),
            x.astype("float64"),
            (x // 2).astype("float64").astype(dtype),  # halved: rounding up stays in range
            np.clip(x, 3, high),
            x.max(axis=1),
            x.min(axis=1),
            x.sum(axis=0, dtype=dtype),
        ]
    for k, (g, e, ref) in enumerate(zip(got, expected, numpy_refs, strict=True)):
        assert g.dtype == e.dtype, (k, g.dtype, e.dtype)
        np.testing.assert_array_equal(g, ref, err_msg=f"output {k} vs numpy")
        if k != 7 or dtype != "uint64":  # the interpreter clips uint64 in float64: rounded
            np.testing.assert_array_equal(g, e, err_msg=f"output {k} vs the interpreter")


@pytest.mark.parametrize("mode", ["clip", "wrap", "fast"])
def test_relay_build_take_with_uint8_indices(mode: str) -> None:
    """Indices above the int8 range into an axis longer than 256: positions are int64."""
    data = RNG.standard_normal((2, 300)).astype("float32")
    indices = np.array([200, 5, 255, 0, 129], "uint8")
    got, expected = build_graph(
        {"data": data, "indices": indices}, lambda d, i: relay.take(d, i, axis=1, mode=mode)
    )
    np.testing.assert_array_equal(got[0], expected[0])
    np.testing.assert_array_equal(got[0], data[:, indices])
