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


def run(
    s: te.Schedule, args: list[te.Tensor], *inputs: np.ndarray, shapes: list[tuple] | None = None
) -> list[np.ndarray]:
    """Lower, run the kernel on inputs and fresh output buffers (of `shapes` where symbolic),
    return the outputs."""
    mod = tvm.lower(s, args, name="kernel")
    results = args[len(inputs) :]
    shapes = shapes or [t.shape for t in results]
    outputs = [np.zeros(shape, t.dtype) for shape, t in zip(shapes, results, strict=True)]
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
    with pytest.raises(
        ValueError, match="list each placeholder, variable and computed output once"
    ):
        tvm.lower(s, [A, B, C, A])
    with pytest.raises(ValueError, match="placeholder B is read but missing"):
        tvm.lower(s, [A, C])
    # As in TVM, an impossible attachment is an error of tvm.lower (a TVMError).
    s[C].compute_at(s[C], j)
    with pytest.raises(tvm.error.TVMError, match="cannot compute stage 'C' at itself"):
        tvm.lower(s, [A, B, C])


def test_inlining_a_reduction_is_a_located_error() -> None:
    A, B, C = matmul(4, 4, 4)
    D = te.compute((4, 4), lambda i, j: C[i, j] + 1.0, name="D")
    s = te.create_schedule(D.op)
    s[C].compute_inline()
    with pytest.raises(DiagnosticError, match="cannot inline stage 'C': it is a reduction"):
        tvm.lower(s, [A, B, D])


# ---------------------------------------------------------------------------------------------
# compute_at, cache_read / cache_write, storage_align, pragma


def test_compute_at_computes_the_box_the_consumer_reads() -> None:
    A = te.placeholder((17,), name="A")
    B = te.compute((18,), lambda i: A[te.min(i, 16)] * 2.0, name="B")
    C = te.compute((17,), lambda i: B[i] + B[i + 1], name="C")
    s = te.create_schedule(C.op)
    io, _ = s[C].split(C.op.axis[0], factor=4)
    s[B].compute_at(s[C], io)
    a = rand(17)
    (c,) = run(s, [A, C], a)
    b = np.append(a, a[-1]) * 2
    np.testing.assert_allclose(c, b[:-1] + b[1:], rtol=1e-6)
    text = tvm.lower(s, [A, C]).astext()
    # B's 4 + 1 elements for each i.outer, allocated inside that loop; the last box, [16, 20],
    # leaves B (18 elements) and is guarded
    assert text.index("tir.for %i_outer") < text.index("memref.alloc() : memref<5xf32>")
    assert ", %c18 : index" in text


def test_compute_at_box_of_a_tile_index() -> None:
    # The consumer reads T[h // 4, h % 4]; under a split of h by 4, each outer iteration
    # reads one row of T: (ho * 4 + hi) // 4 is ho for every hi.
    A = te.placeholder((4, 4, 8), name="A")
    T = te.compute((4, 4, 8), lambda t, s, c: A[t, s, c] * 2.0, name="T")
    Y = te.compute((16, 8), lambda h, c: T[h // 4, h % 4, c] + 1.0, name="Y")
    s = te.create_schedule(Y.op)
    ho, _ = s[Y].split(Y.op.axis[0], factor=4)
    s[T].compute_at(s[Y], ho)
    a = rand(4, 4, 8)
    (y,) = run(s, [A, Y], a)
    np.testing.assert_allclose(y, a.reshape(16, 8) * 2 + 1, rtol=1e-6)
    assert "memref.alloc() : memref<1x4x8xf32>" in tvm.lower(s, [A, Y]).astext()


def test_compute_at_under_fused_tiles_needs_no_guard() -> None:
    # The blocks of rows and columns fused into one loop: the box's start is derived from it
    # by division and remainder, which stay inside the blocks' extents, so the box is known
    # to lie inside C (no `cmpi ult` guard on the reduction's stores).
    A = te.placeholder((16, 8), name="A")
    B = te.placeholder((8, 32), name="B")
    k = te.reduce_axis((0, 8), name="k")
    C = te.compute((16, 32), lambda i, j: te.sum(A[i, k] * B[k, j], axis=k), name="C")
    s = te.create_schedule(C.op)
    CL = s.cache_write(C, "local")
    io, ii = s[C].split(C.op.axis[0], factor=4)
    jo, ji = s[C].split(C.op.axis[1], factor=8)
    s[C].reorder(io, jo, ii, ji)
    s[CL].compute_at(s[C], s[C].fuse(io, jo))
    a, b = rand(16, 8), rand(8, 32)
    (c,) = run(s, [A, B, C], a, b)
    np.testing.assert_allclose(c, a @ b, rtol=1e-4, atol=1e-5)
    text = tvm.lower(s, [A, B, C]).astext()
    assert 'memref.alloc() : memref<4x8xf32, "local">' in text and "cmpi ult" not in text


def test_compute_at_a_reduction_per_row() -> None:
    A = te.placeholder((5, 7), name="A")
    k = te.reduce_axis((0, 7), name="k")
    M = te.compute((5,), lambda i: te.max(A[i, k], axis=k), name="M")
    E = te.compute((5, 7), lambda i, j: te.exp(A[i, j] - M[i]), name="E")
    s = te.create_schedule(E.op)
    s[M].compute_at(s[E], E.op.axis[0])
    a = rand(5, 7)
    (e,) = run(s, [A, E], a)
    np.testing.assert_allclose(e, np.exp(a - a.max(axis=1, keepdims=True)), rtol=1e-6)
    assert "memref<1xf32>" in tvm.lower(s, [A, E]).astext()


def conv2d_nchw(
    shape: tuple[int, int, int, int], channels: int, kernel: int, stride: int, pad: int
) -> tuple[te.Tensor, te.Tensor, te.Tensor, te.Tensor]:
    n, ci, h, w = shape
    A = te.placeholder(shape, name="A")
    W = te.placeholder((channels, ci, kernel, kernel), name="W")
    Apad = te.compute(
        (n, ci, h + 2 * pad, w + 2 * pad),
        lambda b, c, y, x: te.if_then_else(
            te.all(y >= pad, y < h + pad, x >= pad, x < w + pad), A[b, c, y - pad, x - pad], 0.0
        ),
        name="Apad",
    )
    rc = te.reduce_axis((0, ci), name="rc")
    ry = te.reduce_axis((0, kernel), name="ry")
    rx = te.reduce_axis((0, kernel), name="rx")
    out = (h + 2 * pad - kernel) // stride + 1
    B = te.compute(
        (n, channels, out, out),
        lambda b, f, y, x: te.sum(
            Apad[b, rc, y * stride + ry, x * stride + rx] * W[f, rc, ry, rx], axis=[rc, ry, rx]
        ),
        name="B",
    )
    return A, W, Apad, B


def conv2d_reference(a: np.ndarray, w: np.ndarray, stride: int, pad: int) -> np.ndarray:
    padded = np.pad(a, ((0, 0), (0, 0), (pad, pad), (pad, pad)))
    kernel = w.shape[2]
    out = (padded.shape[2] - kernel) // stride + 1
    result = np.zeros((a.shape[0], w.shape[0], out, out), "float32")
    for y in range(out):
        for x in range(out):
            window = padded[
                :, :, y * stride : y * stride + kernel, x * stride : x * stride + kernel
            ]
            result[:, :, y, x] = np.einsum("ncij,fcij->nf", window, w)
    return result


@pytest.mark.parametrize(("stride", "tile"), [(1, 4), (2, 2), (2, 3)])
def test_conv2d_with_padding_computed_at_the_output_tile(stride: int, tile: int) -> None:
    A, W, Apad, B = conv2d_nchw((1, 2, 9, 9), 3, 3, stride, 1)
    s = te.create_schedule(B.op)
    _, _, y, x = B.op.axis
    _, xo, _, _ = s[B].tile(y, x, tile, tile)
    s[Apad].compute_at(s[B], xo)
    a, w = rand(1, 2, 9, 9), rand(3, 2, 3, 3)
    (b,) = run(s, [A, W, B], a, w)
    np.testing.assert_allclose(b, conv2d_reference(a, w, stride, 1), rtol=1e-5, atol=1e-5)
    halo = (tile - 1) * stride + 3
    assert f"memref<1x2x{halo}x{halo}xf32>" in tvm.lower(s, [A, W, B]).astext()


def test_register_tiled_matmul_with_cache_write_and_shared_cache_read() -> None:
    A, B, C = matmul(16, 16, 16)
    s = te.create_schedule(C.op)
    CC = s.cache_write(C, "local")
    xo, yo, _, _ = s[C].tile(C.op.axis[0], C.op.axis[1], 4, 4)
    s[CC].compute_at(s[C], yo)
    xc, yc = s[CC].op.axis
    (kc,) = s[CC].op.reduce_axis
    ko, ki = s[CC].split(kc, factor=4)
    s[CC].reorder(ko, xc, ki, yc)
    s[CC].unroll(ki)
    s[CC].vectorize(yc)
    AA = s.cache_read(A, "shared", [CC])
    s[AA].compute_at(s[CC], ko)
    s[AA].storage_align(AA.op.axis[0], 8, 1)
    s[C].pragma(xo, "auto_unroll_max_step", 16)
    assert (CC.name, AA.name) == ("C.local", "A.shared")
    assert [v.name for v in s[CC].op.axis] == ["i.c", "j.c"]
    a, b = rand(16, 16), rand(16, 16)
    (c,) = run(s, [A, B, C], a, b)
    np.testing.assert_allclose(c, a @ b, rtol=1e-5, atol=1e-5)
    text = tvm.lower(s, [A, B, C]).astext()
    assert 'memref.alloc() : memref<4x4xf32, "local">' in text
    assert 'memref.alloc() : memref<4x4xf32, strided<[9, 1]>, "shared">' in text
    assert "annotations {pragma_auto_unroll_max_step = 16 : i64}" in text


def test_cache_read_chain_and_cache_write_at_root() -> None:
    A, B, C = matmul(6, 5, 4)
    D = te.compute((6, 5), lambda i, j: C[i, j] * 2.0, name="D")
    s = te.create_schedule(D.op)
    AA = s.cache_read(A, "shared", [C])
    AL = s.cache_read(AA, "local", [C])
    s.cache_write(C, "global")
    assert AL.name == "A.shared.local"
    a, b = rand(6, 4), rand(4, 5)
    (d,) = run(s, [A, B, D], a, b)
    np.testing.assert_allclose(d, 2 * (a @ b), rtol=1e-5, atol=1e-5)  # sums may cancel
    text = tvm.lower(s, [A, B, D]).astext()
    for buffer in (
        'memref<6x4xf32, "shared">',
        'memref<6x4xf32, "local">',
        'memref<6x5xf32, "global">',
    ):
        assert buffer in text


def test_pragma_without_value_is_one() -> None:
    A = te.placeholder((8,), name="A")
    B = te.compute((8,), lambda i: A[i] + 1.0, name="B")
    s = te.create_schedule(B.op)
    s[B].pragma(B.op.axis[0], "unroll_explicit")
    assert "annotations {pragma_unroll_explicit = 1 : i64}" in tvm.lower(s, [A, B]).astext()


def test_schedule_primitive_errors() -> None:
    A, _, C = matmul(8, 8, 8)
    D = te.compute((8, 8), lambda i, j: C[i, j] + 1.0, name="D")
    E = te.compute((8, 8), lambda i, j: A[i, j] * 2.0, name="E")
    s = te.create_schedule([D.op, E.op])
    with pytest.raises(ValueError, match="k is not a loop of stage D"):
        s[C].compute_at(s[D], C.op.reduce_axis[0])
    s[D].bind(D.op.axis[0], te.thread_axis("threadIdx.x"))
    with pytest.raises(ValueError, match=r"threadIdx\.x is already bound to i of stage D"):
        s[D].bind(D.op.axis[1], te.thread_axis("threadIdx.x"))
    with pytest.raises(ValueError, match="unknown storage scope 'sram'"):
        s.cache_read(A, "sram", [C])
    with pytest.raises(ValueError, match="cache_read: D does not read A"):
        s.cache_read(A, "shared", [D])
    with pytest.raises(ValueError, match="call it before the other primitives of stage D"):
        s.cache_write(D, "local")
    with pytest.raises(ValueError, match="not a data-parallel root axis"):
        s[C].storage_align(C.op.reduce_axis[0], 8, 1)
    # As in TVM, computing a stage at one that does not read it fails in tvm.lower.
    s = te.create_schedule([D.op, E.op])
    s[C].compute_at(s[E], E.op.axis[0])
    with pytest.raises(tvm.error.TVMError, match="stage 'E' does not read stage 'C'"):
        tvm.lower(s, [A, _, D, E])


def test_compute_at_a_loop_outside_the_reader() -> None:
    # B's panel packed once per column block, read by the register tile computed at each row
    # block inside it: the box is what the tile reads over all row blocks (TVM allows it).
    A, B, C = matmul(12, 16, 8)
    s = te.create_schedule(C.op)
    CC = s.cache_write(C, "local")
    io, ii = s[C].split(C.op.axis[0], factor=4)
    jo, ji = s[C].split(C.op.axis[1], factor=8)
    s[C].reorder(jo, io, ii, ji)
    s[CC].compute_at(s[C], io)
    BB = s.cache_read(B, "global", [CC])
    s[BB].compute_at(s[C], jo)
    a, b = rand(12, 8), rand(8, 16)
    (c,) = run(s, [A, B, C], a, b)
    np.testing.assert_allclose(c, a @ b, rtol=1e-5, atol=1e-5)
    text = tvm.lower(s, [A, B, C]).astext()
    # the panel: all 8 rows of k by the block's 8 columns, allocated in the column loop
    assert text.index("tir.for %j_outer") < text.index('memref<8x8xf32, "global">')
    assert text.index('memref<8x8xf32, "global">') < text.index("tir.for %i_outer")
    # attached outside a loop that holds no reader: still an error
    s = te.create_schedule(C.op)
    CC = s.cache_write(C, "local")
    io, ii = s[C].split(C.op.axis[0], factor=4)
    s[CC].compute_at(s[C], io)
    BB = s.cache_read(B, "global", [CC])
    s[BB].compute_at(s[C], ii)
    with pytest.raises(tvm.error.TVMError, match=r"stage 'C' does not read stage 'B\.global'"):
        tvm.lower(s, [A, B, C])


def test_registered_scope_is_accepted() -> None:
    from xtvm.dialects import te as te_dialect

    A = te.placeholder((4,), name="A")
    B = te.compute((4,), lambda i: A[i] + 1.0, name="B")
    s = te.create_schedule(B.op)
    te_dialect.register_memory_scope("testaccel")
    try:
        s.cache_read(A, "testaccel.sram", [B])
        a = rand(4)
        (b,) = run(s, [A, B], a)
    finally:
        te_dialect.MEMORY_SCOPES.discard("testaccel")
    np.testing.assert_allclose(b, a + 1.0)


def test_axis_split_after_compute_at_is_a_located_error() -> None:
    A = te.placeholder((8,), name="A")
    B = te.compute((8,), lambda i: A[i] + 1.0, name="B")
    C = te.compute((8,), lambda i: B[i] * 2.0, name="C")
    s = te.create_schedule(C.op)
    s[B].compute_at(s[C], C.op.axis[0])
    s[C].split(C.op.axis[0], factor=2)
    with pytest.raises(DiagnosticError, match="axis 'i' of stage 'C' is no longer a loop"):
        tvm.lower(s, [A, C])


# ---------------------------------------------------------------------------------------------
# Symbolic shapes


@pytest.mark.parametrize("n_value", [1, 7])
def test_symbolic_vector_add(n_value: int) -> None:
    n = te.var("n")
    A = te.placeholder((n,), name="A")
    B = te.placeholder((n,), name="B")
    C = te.compute((n,), lambda i: A[i] + B[i], name="C")
    s = te.create_schedule(C.op)
    text = tvm.lower(s, [A, B, C], name="kernel").astext()
    assert "func.func @kernel(%A: memref<?xf32>, %B: memref<?xf32>, %C: memref<?xf32>)" in text
    assert "%n = memref.dim %A, %c0 : memref<?xf32>" in text
    a, b = rand(n_value), rand(n_value)
    (c,) = run(s, [A, B, C], a, b, shapes=[(n_value,)])
    np.testing.assert_allclose(c, a + b)


def test_symbolic_matmul_rows_split_by_8() -> None:
    n = te.var("n")
    A = te.placeholder((n, 4), name="A")
    B = te.placeholder((4, 6), name="B")
    k = te.reduce_axis((0, 4), name="k")
    C = te.compute((n, 6), lambda i, j: te.sum(A[i, k] * B[k, j], axis=k), name="C")
    s = te.create_schedule(C.op)
    io, ii = s[C].split(C.op.axis[0], factor=8)
    s[C].reorder(io, C.op.axis[1], k, ii)
    s[C].parallel(io)
    text = tvm.lower(s, [A, B, C]).astext()
    assert "arith.ceildivui %n, %c8" in text and "arith.cmpi ult" in text
    mod = tvm.lower(s, [A, B, C], name="kernel")
    for rows in (13, 16):  # one compiled kernel, two sizes
        a, b = rand(rows, 4), rand(4, 6)
        c = np.zeros((rows, 6), "float32")
        tir_interpreter.run(mod.xdsl, "kernel", a, b, c)
        np.testing.assert_allclose(c, a @ b, rtol=1e-5, atol=1e-5)


def test_symbolic_reduction_extent_and_variable_argument() -> None:
    n = te.var("n")
    m = te.var("m")
    A = te.placeholder((n, m), name="A")
    k = te.reduce_axis((0, m), name="k")
    B = te.compute((n,), lambda i: te.sum(A[i, k] * m.astype("float32"), axis=k), name="B")
    s = te.create_schedule(B.op)
    mod = tvm.lower(s, [m, A, B], name="kernel")
    assert "func.func @kernel(%m: index, %A: memref<?x?xf32>, %B: memref<?xf32>)" in mod.astext()
    a = rand(3, 5)
    b = np.zeros(3, "float32")
    tir_interpreter.run(mod.xdsl, "kernel", 5, a, b)
    np.testing.assert_allclose(b, a.sum(axis=1) * 5, rtol=1e-5)


def test_symbolic_padded_extent() -> None:
    n = te.var("n")
    A = te.placeholder((n,), name="A")
    B = te.compute(
        (n + 2,), lambda i: te.if_then_else(te.all(i >= 1, i <= n), A[i - 1], 0.0), name="B"
    )
    s = te.create_schedule(B.op)
    s[B].split(B.op.axis[0], factor=4)
    a = rand(5)
    (b,) = run(s, [A, B], a, shapes=[(7,)])
    np.testing.assert_allclose(b, np.pad(a, 1))


def test_unbound_symbolic_variable_is_an_error() -> None:
    n = te.var("n")
    A = te.placeholder((4,), name="A")
    B = te.compute((n,), lambda i: A[0], name="B")
    s = te.create_schedule(B.op)
    with pytest.raises(ValueError, match="symbolic variable n is not bound"):
        tvm.lower(s, [A, B])


@pytest.mark.parametrize("combiner", ["max", "min"])
def test_bool_reductions_order_false_before_true(combiner: str) -> None:
    # max over bools is `any`, min is `all` (i1 compared signed would make true the smaller)
    A = te.placeholder((4, 3), dtype="bool", name="A")
    k = te.reduce_axis((0, 3), name="k")
    B = te.compute((4,), lambda i: getattr(te, combiner)(A[i, k], axis=k), name="B")
    a = np.array([[0, 0, 0], [0, 1, 0], [1, 1, 1], [1, 0, 1]], dtype=bool)
    expected = a.any(axis=1) if combiner == "max" else a.all(axis=1)
    s = te.create_schedule(B.op)
    (interpreted,) = run(s, [A, B], a)
    compiled = np.zeros(4, bool)
    tvm.build(s, [A, B], target="llvm")(a, compiled)
    np.testing.assert_array_equal(interpreted, expected)
    np.testing.assert_array_equal(compiled, expected)


def test_bool_max_min_and_comparisons_elementwise() -> None:
    A = te.placeholder((4,), dtype="bool", name="A")
    B = te.placeholder((4,), dtype="bool", name="B")
    outs = [
        te.compute((4,), lambda i: te.max(A[i], B[i]), name="M"),
        te.compute((4,), lambda i: te.min(A[i], B[i]), name="N"),
        te.compute((4,), lambda i: A[i] < B[i], name="L"),
        te.compute((4,), lambda i: A[i] >= B[i], name="G"),
    ]
    a = np.array([0, 0, 1, 1], dtype=bool)
    b = np.array([0, 1, 0, 1], dtype=bool)
    expected = [a | b, a & b, ~a & b, a | ~b]
    s = te.create_schedule([t.op for t in outs])
    interpreted = run(s, [A, B, *outs], a, b)
    compiled = [np.zeros(4, bool) for _ in outs]
    tvm.build(s, [A, B, *outs], target="llvm")(a, b, *compiled)
    for got, want in zip(interpreted, expected, strict=True):
        np.testing.assert_array_equal(got, want)
    for got, want in zip(compiled, expected, strict=True):
        np.testing.assert_array_equal(got, want)


def test_arguments_in_any_order_with_a_float_scalar() -> None:
    """As TVM: `tvm.build(s, [C, A, bias, B])` takes its arguments in that order, a float
    variable as a float scalar argument."""
    n = te.var("n")
    A = te.placeholder((n,), name="A")
    B = te.placeholder((n,), name="B")
    bias = te.var("bias", dtype="float32")
    C = te.compute((n,), lambda i: A[i] * B[i] + bias, name="C")
    f = tvm.build(te.create_schedule(C.op), [C, A, bias, B], "llvm")
    a, b = np.arange(6, dtype="float32"), np.full(6, 2.0, "float32")
    c = tvm.nd.array(np.zeros(6, "float32"))
    f(c, tvm.nd.array(a), 0.5, tvm.nd.array(b))
    np.testing.assert_allclose(c.numpy(), a * b + 0.5)
    text = str(tvm.lower(te.create_schedule(C.op), [C, A, bias, B], simple_mode=True))
    assert "@main(%C: memref<?xf32>, %A: memref<?xf32>, %bias: f32, %B: memref<?xf32>)" in text


def test_a_lowered_module_names_its_kernels_and_refuses_primfunc_nodes_clearly() -> None:
    """`tvm.lower(...)["main"]` is TVM's PrimFunc; xtvm's kernel stays in its tir dialect, so
    asking for it is a TVMError saying so (it was a TypeError from deep inside), while the
    module still lists its functions and builds."""
    a = te.placeholder((4, 3), name="A")
    c = te.compute((4, 3), lambda i, j: a[i, j] * 2, name="C")
    mod = tvm.lower(te.create_schedule(c.op), [a, c])
    assert [gv.name_hint for gv in mod.get_global_vars()] == ["main"] and "main" in mod
    with pytest.raises(tvm.error.TVMError, match="@main is a tir function"):
        mod["main"]
    value = np.arange(12, dtype="float32").reshape(4, 3)
    out = tvm.nd.empty((4, 3))
    tvm.build(mod)["main"](tvm.nd.array(value), out)
    np.testing.assert_allclose(out.numpy(), value * 2)
