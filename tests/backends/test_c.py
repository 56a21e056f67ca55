"""The C backend: TE kernels compiled with target="c" (gcc, OpenMP) and checked against numpy;
the emitted source, export/load round trip and located errors."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import xtvm as tvm
from xtvm import te
from xtvm.backends.c import CodegenError, render_c
from xtvm.testing.passes import CTX

RNG = np.random.default_rng(11)


def matmul(n: int, m: int, k_extent: int) -> tuple[te.Tensor, te.Tensor, te.Tensor]:
    A = te.placeholder((n, k_extent), name="A")
    B = te.placeholder((k_extent, m), name="B")
    k = te.reduce_axis((0, k_extent), name="k")
    C = te.compute((n, m), lambda i, j: te.sum(A[i, k] * B[k, j], axis=k), name="C")
    return A, B, C


def test_parallel_tiled_matmul_with_odd_sizes() -> None:
    A, B, C = matmul(37, 29, 33)
    s = te.create_schedule(C.op)
    i, j = C.op.axis
    io, jo, ii, ji = s[C].tile(i, j, 8, 8)
    s[C].reorder(io, jo, C.op.reduce_axis[0], ii, ji)
    s[C].parallel(io)
    s[C].vectorize(ji)
    f = tvm.build(s, [A, B, C], target="c", name="mm")
    a = RNG.standard_normal((37, 33)).astype("float32")
    b = RNG.standard_normal((33, 29)).astype("float32")
    c = tvm.nd.empty((37, 29))
    f(tvm.nd.array(a), tvm.nd.array(b), c)
    np.testing.assert_allclose(c.numpy(), a @ b, rtol=1e-4, atol=1e-4)
    source = f.get_source()
    assert "int32_t mm(float *restrict A, float *restrict B, float *restrict C)" in source
    assert "#pragma omp parallel for\n  for (int64_t i_outer = 0;" in source
    assert "#pragma omp simd" in source


def test_padded_cache_buffer() -> None:
    """A cache whose rows storage_align pads (9 for 5) is one array of the padded span."""
    A = te.placeholder((6, 5), name="A")
    B = te.compute((5, 6), lambda i, j: A[j, i] * 2.0, name="B")
    s = te.create_schedule(B.op)
    AA = s.cache_read(A, "local", [B])
    s[AA].storage_align(AA.op.axis[0], 8, 1)
    f = tvm.build(s, [A, B], target="c", name="transpose")
    source = f.get_source()
    assert "float A_local[50];" in source and "A_local[j * 9 + i]" in source
    a = RNG.standard_normal((6, 5)).astype("float32")
    b = tvm.nd.empty((5, 6))
    f(tvm.nd.array(a), b)
    np.testing.assert_array_equal(b.numpy(), a.T * 2)


def test_intermediate_buffers_reductions_and_math() -> None:
    A = te.placeholder((64, 33), name="A")
    E = te.compute(A.shape, lambda i, j: te.exp(A[i, j]), name="E")
    k = te.reduce_axis((0, 33), name="k")
    S = te.compute((64,), lambda i: te.sum(E[i, k], axis=k), name="S")
    k2 = te.reduce_axis((0, 33), name="k2")
    M = te.compute((64,), lambda i: te.max(A[i, k2], axis=k2), name="M")
    T = te.compute((64,), lambda i: te.tanh(S[i]) + te.sqrt(te.abs(M[i])), name="T")
    s = te.create_schedule(T.op)
    s[S].parallel(S.op.axis[0])
    f = tvm.build(s, [A, T], target="c")
    a = RNG.standard_normal((64, 33)).astype("float32")
    t = np.zeros(64, "float32")
    f(a, t)
    expected = np.tanh(np.exp(a).sum(1)) + np.sqrt(np.abs(a.max(1)))
    np.testing.assert_allclose(t, expected, rtol=1e-5)
    source = f.get_source()
    assert "float E[2112];" in source  # small buffers live on the stack
    for call in ("expf(", "tanhf(", "sqrtf(", "fabsf(", "-INFINITY"):
        assert call in source


def test_trigonometric_intrinsics_call_libm() -> None:
    A = te.placeholder((40,), name="A")
    D = te.placeholder((40,), dtype="float64", name="D")
    B = te.compute((40,), lambda i: te.sin(A[i]) * te.cos(A[i]) + te.atan(A[i]), name="B")
    C = te.compute((40,), lambda i: te.tan(D[i]), name="C")
    f = tvm.build(te.create_schedule([B.op, C.op]), [A, D, B, C], target="c")
    a = RNG.uniform(-10, 10, 40).astype("float32")
    d = RNG.uniform(-1.5, 1.5, 40)
    b, c = np.zeros(40, "float32"), np.zeros(40)
    f(a, d, b, c)
    np.testing.assert_allclose(b, np.sin(a) * np.cos(a) + np.arctan(a), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(c, np.tan(d), rtol=1e-13)
    source = f.get_source()
    for call in ("sinf(", "cosf(", "atanf(", "tan("):
        assert call in source


def test_integer_kernel_and_casts() -> None:
    A = te.placeholder((50,), dtype="int32", name="A")
    B = te.compute((50,), lambda i: A[i] // 3 + A[i] % 5 - (i - 25) // 4, name="B")
    C = te.compute((50,), lambda i: B[i].astype("float32") * 0.5, name="C")
    f = tvm.build(te.create_schedule(C.op), [A, C], target="c")
    a = RNG.integers(-100, 100, 50).astype("int32")
    c = np.zeros(50, "float32")
    f(a, c)
    i = np.arange(50)
    np.testing.assert_array_equal(c, (a // 3 + a % 5 - (i - 25) // 4).astype("float32") * 0.5)
    assert "int32_t *restrict A" in f.get_source()


def test_symbolic_shape_kernel() -> None:
    n = te.var("n")
    A = te.placeholder((n, 4), name="A")
    B = te.compute((n, 4), lambda i, j: A[i, j] * 2.0 + 1.0, name="B")
    s = te.create_schedule(B.op)
    io, _ = s[B].split(B.op.axis[0], factor=8)
    s[B].parallel(io)
    f = tvm.build(s, [A, B], target="c", name="affine")
    assert "int64_t A_dim0" in f.get_source()
    for rows in (3, 13, 16):
        a = RNG.standard_normal((rows, 4)).astype("float32")
        b = np.zeros((rows, 4), "float32")
        f(a, b)
        np.testing.assert_allclose(b, a * 2 + 1, rtol=1e-6)


def test_export_library_and_load_module(tmp_path: Path) -> None:
    A, B, C = matmul(8, 8, 8)
    f = tvm.build(te.create_schedule(C.op), [A, B, C], target="c", name="mm")
    path = tmp_path / "mm.so"
    f.export_library(path)
    loaded = tvm.runtime.load_module(path)
    a, b = np.ones((8, 8), "float32"), np.full((8, 8), 2.0, "float32")
    c = np.zeros((8, 8), "float32")
    loaded["mm"](a, b, c)
    np.testing.assert_allclose(c, 16.0)


def test_untranslatable_op_is_a_located_error() -> None:
    module = CTX.parse(
        """
func.func @k(%A: memref<4xf32>, %B: memref<4xf32>) {
  "memref.copy"(%A, %B) : (memref<4xf32>, memref<4xf32>) -> ()
  func.return
}
""",
        "k.mlir",
    )
    with pytest.raises(CodegenError, match=r"cannot translate 'memref\.copy'"):
        render_c(module)
