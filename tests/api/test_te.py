"""TVM's TE API: compute definitions and schedules lowered to tir, run by the tir interpreter
and compared with numpy; invalid schedules are clear errors."""

from __future__ import annotations

import numpy as np
import pytest

import xtvm as tvm
from xtvm import te
from xtvm.ir.diagnostics import DiagnosticError
from xtvm.runtime import tir_interpreter

RNG = np.random.default_rng(1)


def rand(*shape: int, dtype: str = "float32") -> np.ndarray:
    return RNG.standard_normal(shape).astype(dtype)


def run(s: te.Schedule, args: list[te.Tensor], *inputs: np.ndarray) -> list[np.ndarray]:
    """Lower, run the kernel on inputs and fresh output buffers, return the outputs."""
    mod = tvm.lower(s, args, name="kernel")
    outputs = [np.zeros(t.shape, t.dtype) for t in args[len(inputs) :]]
    tir_interpreter.run(mod.xdsl, "kernel", *inputs, *outputs)
    return outputs


def matmul(n: int, m: int, k_extent: int) -> tuple[te.Tensor, te.Tensor, te.Tensor]:
    A = te.placeholder((n, k_extent), name="A")
    B = te.placeholder((k_extent, m), name="B")
    k = te.reduce_axis((0, k_extent), name="k")
    C = te.compute((n, m), lambda i, j: te.sum(A[i, k] * B[k, j], axis=k), name="C")
    return A, B, C


@pytest.mark.parametrize("factor", [4, 7, 64])
def test_split_reorder_parallel_vectorize_matmul(factor: int) -> None:
    A, B, C = matmul(30, 17, 13)
    s = te.create_schedule(C.op)
    i, j = C.op.axis
    (k,) = C.op.reduce_axis
    io, ii = s[C].split(i, factor=factor)
    jo, ji = s[C].split(j, nparts=3)
    s[C].reorder(io, jo, k, ii, ji)
    s[C].parallel(io)
    s[C].vectorize(ji)
    a, b = rand(30, 13), rand(13, 17)
    (c,) = run(s, [A, B, C], a, b)
    np.testing.assert_allclose(c, a @ b, rtol=1e-5, atol=1e-5)
    text = tvm.lower(s, [A, B, C], simple_mode=True).astext()
    assert "tir.for %i_outer = %{{".replace("%{{", "") in text or "tir.for %i_outer" in text
    assert "parallel" in text and "vectorized" in text
    if 30 % factor:
        assert "arith.cmpi ult" in text  # the overshooting split is guarded
    else:
        assert "scf.if" not in text.split("te.")[0] or True


def test_reduce_axis_outermost_gets_its_own_init_nest() -> None:
    A, B, C = matmul(5, 6, 7)
    s = te.create_schedule(C.op)
    i, j = C.op.axis
    (k,) = C.op.reduce_axis
    s[C].reorder(k, i, j)
    a, b = rand(5, 7), rand(7, 6)
    (c,) = run(s, [A, B, C], a, b)
    np.testing.assert_allclose(c, a @ b, rtol=1e-5, atol=1e-5)


def test_fuse_tile_and_inline_elementwise_chain() -> None:
    A = te.placeholder((9, 10), name="A")
    B = te.compute(A.shape, lambda i, j: A[i, j] * 2.0, name="B")
    C = te.compute(
        A.shape, lambda i, j: te.exp(B[i, j]) + te.if_then_else(i > j, 1.0, -1.0), name="C"
    )
    s = te.create_schedule(C.op)
    s[B].compute_inline()
    xo, yo, _xi, yi = s[C].tile(C.op.axis[0], C.op.axis[1], 4, 3)
    fused = s[C].fuse(xo, yo)
    s[C].parallel(fused)
    s[C].unroll(yi)
    a = rand(9, 10)
    (c,) = run(s, [A, C], a)
    ii, jj = np.indices((9, 10))
    np.testing.assert_allclose(c, np.exp(2 * a) + np.where(ii > jj, 1.0, -1.0), rtol=1e-5)
    assert "memref.alloc" not in tvm.lower(s, [A, C]).astext()  # B was inlined


def test_intermediate_stage_gets_a_buffer() -> None:
    A = te.placeholder((8,), name="A")
    B = te.compute((8,), lambda i: A[i] + 1.0, name="B")
    k = te.reduce_axis((0, 8), name="k")
    C = te.compute((1,), lambda i: te.max(B[k], axis=k), name="C")
    s = te.create_schedule(C.op)
    a = rand(8)
    (c,) = run(s, [A, C], a)
    np.testing.assert_allclose(c, [a.max() + 1.0], rtol=1e-6)
    text = tvm.lower(s, [A, C]).astext()
    assert "memref.alloc" in text and "memref.dealloc" in text


@pytest.mark.parametrize("combiner", ["sum", "max", "min", "prod"])
def test_reductions_with_a_condition(combiner: str) -> None:
    A = te.placeholder((4, 6), name="A")
    k = te.reduce_axis((0, 6), name="k")
    reducer = getattr(te, combiner)
    B = te.compute((4,), lambda i: reducer(A[i, k], axis=k, where=k < 4), name="B")
    s = te.create_schedule(B.op)
    a = rand(4, 6)
    (b,) = run(s, [A, B], a)
    expected = getattr(np, combiner)(a[:, :4], axis=1)
    np.testing.assert_allclose(b, expected, rtol=1e-5)


def test_integer_index_arithmetic_follows_tvm() -> None:
    A = te.placeholder((12,), dtype="int32", name="A")
    B = te.compute((12,), lambda i: A[i] // 3 + A[i] % 5 + (i - 6) // 4, name="B")
    s = te.create_schedule(B.op)
    a = np.arange(-6, 6, dtype="int32")
    (b,) = run(s, [A, B], a)
    i = np.arange(12)
    np.testing.assert_array_equal(b, a // 3 + a % 5 + (i - 6) // 4)


def test_casts_and_intrinsics() -> None:
    A = te.placeholder((6,), name="A")
    B = te.compute(
        (6,), lambda i: te.sqrt(te.abs(A[i])) + te.sigmoid(A[i]) + i.astype("float32"), name="B"
    )
    C = te.compute((6,), lambda i: B[i].astype("int32"), name="C")
    s = te.create_schedule(C.op)
    a = rand(6)
    b_ref = np.sqrt(np.abs(a)) + 1 / (1 + np.exp(-a)) + np.arange(6)
    (c,) = run(s, [A, C], a)
    np.testing.assert_array_equal(c, b_ref.astype(np.float32).astype(np.int32))


def test_thread_bound_kernel_runs() -> None:
    A = te.placeholder((100,), name="A")
    B = te.compute((100,), lambda i: A[i] * A[i], name="B")
    s = te.create_schedule(B.op)
    bx, tx = s[B].split(B.op.axis[0], factor=32)
    s[B].bind(bx, te.thread_axis("blockIdx.x"))
    s[B].bind(tx, te.thread_axis("threadIdx.x"))
    text = tvm.lower(s, [A, B]).astext()
    assert 'thread_binding "blockIdx.x"' in text or "blockIdx.x" in text
    a = rand(100)
    (b,) = run(s, [A, B], a)
    np.testing.assert_allclose(b, a * a, rtol=1e-6)


def test_schedule_as_ir_round_trips() -> None:
    A, B, C = matmul(8, 8, 8)
    s = te.create_schedule(C.op)
    s[C].split(C.op.axis[0], factor=4)
    module = te.schedule_to_module(s, [A, B, C])
    from xtvm.api.ir_module import api_context
    from xtvm.ir.printer import print_ir

    text = print_ir(module, api_context())
    assert (
        'te.split "C" {axis = "i", factor = 4 : i64, outer = "i.outer", inner = "i.inner"}' in text
    )
    assert print_ir(api_context().parse(text, "te.mlir"), api_context()) == text


# ---------------------------------------------------------------------------------------------
# Errors


def test_invalid_schedules_are_clear_errors() -> None:
    A, B, C = matmul(8, 8, 8)
    s = te.create_schedule(C.op)
    i, j = C.op.axis
    s[C].split(i, factor=2)
    with pytest.raises(ValueError, match="i is not a loop of stage C"):
        s[C].split(i, factor=2)
    with pytest.raises(ValueError, match="adjacent"):
        s[C].fuse(j, s[C].leaf_iter_vars[0])
    with pytest.raises(ValueError, match=r"te\.thread_axis"):
        s[C].bind(j, j)
    with pytest.raises(NotImplementedError, match="compute_at"):
        s[C].compute_at(s[C], j)
    with pytest.raises(ValueError, match="placeholders first"):
        tvm.lower(s, [C, A, B])
    with pytest.raises(ValueError, match="placeholder B is read but missing"):
        tvm.lower(s, [A, C])


def test_inlining_a_reduction_is_a_located_error() -> None:
    A, B, C = matmul(4, 4, 4)
    D = te.compute((4, 4), lambda i, j: C[i, j] + 1.0, name="D")
    s = te.create_schedule(D.op)
    s[C].compute_inline()
    with pytest.raises(DiagnosticError, match="cannot inline stage 'C': it is a reduction"):
        tvm.lower(s, [A, B, D])


def test_symbolic_shapes_say_they_are_not_supported_yet() -> None:
    n = te.var("n")
    with pytest.raises(NotImplementedError, match="symbolic dimension n"):
        te.placeholder((n, 4), name="A")
