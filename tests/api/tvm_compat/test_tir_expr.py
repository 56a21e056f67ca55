"""TVM v0.13's scalar expressions of `tvm.tir` (tests/python/unittest/test_tir_nodes.py's
constant and dtype checks, test_tir_ops.py's if_then_else), run with `import xtvm as tvm`,
plus the division family, popcount, fmod and calls by name checked on LLVM against numpy.

Left out: TVM's node classes (`tvm.tir.Add`, `tvm.tir.Let`, statements) and constant folding
of expressions: xtvm's expressions are lowered, not folded, in Python.
"""

import numpy as np
import pytest

import xtvm as tvm
from xtvm import te, tir


def test_const():
    x = tvm.tir.const(1, "int32")
    assert x.dtype == "int32"
    assert isinstance(x, tvm.tir.IntImm)


def test_te_const():
    x = tvm.te.const(1, "int32")
    assert x.dtype == "int32"
    assert isinstance(x, tvm.tir.IntImm)


def test_imm_and_default_dtypes():
    assert tir.const(1.5).dtype == "float32" and isinstance(tir.const(1.5), tir.FloatImm)
    assert tir.const(True).dtype == "bool"
    assert tir.IntImm("int64", 3).value == 3
    assert tir.FloatImm("float16", 0.5).dtype == "float16"
    with pytest.raises(tvm.error.TVMError):
        tir.IntImm("float32", 1)


def test_if_then_else():
    cases = [
        [(te.var("cond", dtype="bool"), "bool", "int32"), "int32"],
        [(True, "int32", "float32"), "float32"],
        [(False, "int32", "int64"), "int64"],
    ]
    for (cond, lhs_dtype, rhs_dtype), out_dtype in cases:
        out = tvm.tir.if_then_else(
            cond,
            tir.const(1, lhs_dtype).astype(out_dtype),
            tir.const(2, rhs_dtype).astype(out_dtype),
        )
        assert out.dtype == out_dtype


def test_vector_dtype_is_a_clear_error():
    with pytest.raises(tvm.error.TVMError, match="vector dtype 'float32x2'"):
        te.placeholder((4,), "float32x2")


def test_error_classes():
    assert issubclass(tvm.error.TVMError, RuntimeError)
    assert issubclass(tvm.error.DiagnosticError, tvm.error.TVMError)
    assert tvm._ffi.base.TVMError is tvm.error.TVMError
    assert tvm.__version__ == "0.13.0"
    assert tvm.runtime.convert([1, 2.0])[1].dtype == "float32"


def test_integer_division_family_runs():
    n = 32
    A = te.placeholder((n,), "int32", name="A")
    B = te.placeholder((n,), "int32", name="B")
    ops = [tir.truncdiv, tir.truncmod, tir.floordiv, tir.floormod, tir.indexdiv, tir.indexmod]
    outs = [
        te.compute((n,), lambda i, op=op: op(A[i], B[i]), name=f"C{k}") for k, op in enumerate(ops)
    ]
    P = te.compute((n,), lambda i: tir.popcount(A[i]), name="P")
    s = te.create_schedule([o.op for o in [*outs, P]])
    f = tvm.build(s, [A, B, *outs, P], "llvm")
    a = np.random.randint(-50, 50, n).astype("int32")
    b = np.random.choice([-7, -3, 2, 5], n).astype("int32")
    got = [np.zeros(n, "int32") for _ in range(7)]
    f(a, b, *got)
    trunc = np.trunc(a / b).astype("int32")
    want = [trunc, a - trunc * b, a // b, a % b, a // b, a % b]
    want.append(np.array([bin(int(v) & 0xFFFFFFFF).count("1") for v in a]))
    for g, w in zip(got, want, strict=True):
        np.testing.assert_array_equal(g, w)


def test_float_operators_run():
    n = 16
    X = te.placeholder((n,), name="X")
    Y = te.compute(
        (n,),
        lambda i: (
            te.fmod(X[i], 1.5)
            + tir.Select(X[i] > 0, X[i], 0.0)
            + tir.call_pure_extern("float32", "expf", X[i])
            + tir.call_intrin("float32", "tir.sqrt", te.abs(X[i]))
            + te.power(te.abs(X[i]), 2.0)
            + te.div(X[i], 4.0)
        ),
        name="Y",
    )
    s = te.create_schedule(Y.op)
    f = tvm.build(s, [X, Y], "llvm")
    x = (np.random.randn(n) * 3).astype("float32")
    y = np.zeros(n, "float32")
    f(x, y)
    want = np.fmod(x, 1.5) + np.maximum(x, 0) + np.exp(x) + np.sqrt(abs(x)) + x**2 + x / 4
    np.testing.assert_allclose(y, want, rtol=1e-5)


def test_trigonometric_intrinsics_by_tvm_name():
    n = 16
    X = te.placeholder((n,), name="X")
    Y = te.compute(
        (n,),
        lambda i: (
            tir.call_intrin("float32", "tir.sin", X[i])
            + tir.call_pure_extern("float32", "cosf", X[i])
            + tir.call_llvm_pure_intrin("float32", "llvm.tan", 1, X[i] * 0.25)
            + tir.atan(X[i])
        ),
        name="Y",
    )
    f = tvm.build(te.create_schedule(Y.op), [X, Y], "llvm")
    x = np.linspace(-4.0, 4.0, n).astype("float32")
    y = np.zeros(n, "float32")
    f(x, y)
    want = np.sin(x) + np.cos(x) + np.tan(x * 0.25) + np.arctan(x)
    np.testing.assert_allclose(y, want, rtol=1e-5, atol=1e-6)


def test_unknown_extern_is_a_clear_error():
    x = te.var("x", "float32")
    with pytest.raises(tvm.error.TVMError, match="'my_func' with 1 arguments is not supported"):
        tir.call_pure_extern("float32", "my_func", x)
