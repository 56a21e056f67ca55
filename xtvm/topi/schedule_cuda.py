"""Default CUDA schedules: every stage a kernel of blocks x threads.

- injective and reduction stages: the spatial loops fused and split over `blockIdx.x` x
  `threadIdx.x` (CUDA_THREADS a block), reduce loops serial in each thread; a reduction to a
  scalar runs its reduce loops in one thread.
- dense, matmul, batch_matmul: a shared-memory tile (TVM's classic GPU GEMM). A block computes
  a rows x columns tile of the output (`blockIdx.y`, `blockIdx.x`; the batch on `blockIdx.z`),
  each of its threads (`threadIdx.y`, `threadIdx.x`) a 4 x 4 tile of it, unrolled with the
  K_TILE steps so that each shared value loaded serves 4 products. The reduction is split by
  K_TILE; at each step the block's threads copy the two operand tiles into "shared" buffers
  together (`cache_read`, the copy loops bound to the same threads) and then accumulate from
  them, with `__syncthreads()` around the copies (see `xtvm/backends/cuda/thread_nests.py`).
  The running sums stay in registers within a step and go through the output buffer between
  steps (a "local" accumulator over all of k needs bounds relaxed over threads, which te's
  bound inference does not do).
- conv2d (NCHW): the same tiling over output channels x output pixels, with the padded input
  window and the weights of CONV_K_TILE input channels copied into shared memory at each step.

The elementwise tail of a product (bias, relu) is a kernel of its own, reading the product.
Tiles shrink to fit small operands (a 7-row output gets 7 rows of threads, not 16), so odd
sizes run few idle threads; partial tiles are guarded.
"""

from __future__ import annotations

import math

from xtvm import te
from xtvm.te.expr import IterVar

CUDA_THREADS = 256
THREADS_2D = 16  # threads along each of the two tiled axes of a product (16 x 16 a block)
PER_THREAD = 4  # outputs along each tiled axis per thread, when the axis is long enough
K_TILE = 32  # reduction steps per shared-memory tile
CONV_K_TILE = 4  # input channels per shared-memory step of conv2d


def extent(axis: IterVar) -> int:
    return int(axis.dom.extent)  # type: ignore[arg-type]


def fused(stage: te.Stage, axes: list[IterVar]) -> IterVar | None:
    if not axes:
        return None
    return stage.fuse(*axes) if len(axes) > 1 else axes[0]


def bind(stage: te.Stage, axis: IterVar, tag: str) -> None:
    stage.bind(axis, te.thread_axis(tag))


def cuda_default(s: te.Schedule, t: te.Tensor) -> None:
    """Spatial loops fused, split over blocks and threads; reduce loops serial in a thread.
    Nothing for a stage already scheduled (a product's shared-memory copies)."""
    stage = s[t]
    if stage.scheduled:
        return
    outer = fused(stage, list(t.op.axis))  # type: ignore[attr-defined]
    if outer is None:
        reduce_axes = list(t.op.reduce_axis)  # type: ignore[attr-defined]
        if reduce_axes:  # a scalar result: one thread runs the reduction
            single, _ = stage.split(reduce_axes[0], nparts=1)
            bind(stage, single, "threadIdx.x")
        return
    threads = min(CUDA_THREADS, extent(outer))
    block, thread = stage.split(outer, factor=threads)
    bind(stage, block, "blockIdx.x")
    bind(stage, thread, "threadIdx.x")


def thread_tile(size: int) -> tuple[int, int]:
    """(threads, outputs per thread) along an axis of `size`: 16 x 4 for long axes, fewer
    threads of one output each for short ones."""
    if size >= THREADS_2D * PER_THREAD:
        return THREADS_2D, PER_THREAD
    if size > THREADS_2D:
        return THREADS_2D, math.ceil(size / THREADS_2D)
    return size, 1


def tile_axis(stage: te.Stage, axis: IterVar) -> tuple[IterVar, IterVar, IterVar, int]:
    """`axis` split into (block, thread, per-thread) loops; also the thread count."""
    threads, per_thread = thread_tile(extent(axis))
    block, inner = stage.split(axis, factor=threads * per_thread)
    thread, own = stage.split(inner, factor=per_thread)
    return block, thread, own, threads


def shared_copies(
    s: te.Schedule, t: te.Tensor, at: IterVar, threads_y: int, threads_x: int
) -> None:
    """Copy each operand `t` reads into shared memory at `at`, all threads of the block
    taking one element each per round."""
    stage = s[t]
    for operand in list(stage.reads):
        copy = s.cache_read(operand, "shared", [stage.op.output(0)])
        s[copy].compute_at(stage, at)
        flat = fused(s[copy], list(s[copy].op.axis))
        assert flat is not None
        _, inner = s[copy].split(flat, factor=threads_y * threads_x)
        ty, tx = s[copy].split(inner, factor=threads_x)
        bind(s[copy], ty, "threadIdx.y")
        bind(s[copy], tx, "threadIdx.x")


def cuda_dense(s: te.Schedule, t: te.Tensor) -> None:
    """dense, matmul, batch_matmul: shared-memory tiles of both operands, a register tile of
    outputs per thread (see the module docstring)."""
    stage = s[t]
    if stage.scheduled:
        return
    tag = t.op.tag  # type: ignore[attr-defined]
    if tag not in ("dense", "matmul", "batch_matmul"):
        cuda_default(s, t)
        return
    *lead, column = list(t.op.axis)  # type: ignore[attr-defined]
    (k,) = t.op.reduce_axis  # type: ignore[attr-defined]
    batch = lead[:1] if tag == "batch_matmul" else []
    rows = fused(stage, lead[len(batch) :])
    ko, ki = stage.split(k, factor=min(K_TILE, extent(k)))
    if rows is None:  # a vector times a matrix: one row
        bx, tx, xi, threads_x = tile_axis(stage, column)
        stage.reorder(*batch, bx, ko, tx, xi, ki)
        stage.unroll(xi)
        bind(stage, bx, "blockIdx.x")
        bind(stage, tx, "threadIdx.x")
        threads_y = 1
    else:
        by, ty, yi, threads_y = tile_axis(stage, rows)
        bx, tx, xi, threads_x = tile_axis(stage, column)
        stage.reorder(*batch, by, bx, ko, ty, tx, yi, xi, ki)
        stage.unroll(yi)
        stage.unroll(xi)
        stage.unroll(ki)
        bind(stage, by, "blockIdx.y")
        bind(stage, bx, "blockIdx.x")
        bind(stage, ty, "threadIdx.y")
        bind(stage, tx, "threadIdx.x")
    if batch:
        bind(stage, batch[0], "blockIdx.z")
    shared_copies(s, t, ko, threads_y, threads_x)


def cuda_conv2d(s: te.Schedule, t: te.Tensor) -> None:
    """conv2d NCHW: output channels x output pixels tiled over blocks and threads, the padded
    input window and the weights of CONV_K_TILE input channels in shared memory per step."""
    stage = s[t]
    if stage.scheduled:
        return
    tag = t.op.tag  # type: ignore[attr-defined]
    if tag != "conv2d_nchw":
        cuda_default(s, t)
        return
    n, f, y, x = list(t.op.axis)  # type: ignore[attr-defined]
    reduce_axes = list(t.op.reduce_axis)  # type: ignore[attr-defined]
    first, *rest = reduce_axes
    step = min(CONV_K_TILE, extent(first)) if first.name.startswith("rc") else 1
    ko, ki = stage.split(first, factor=step)
    pixels = stage.fuse(y, x)
    by, ty, yi, threads_y = tile_axis(stage, f)
    bx, tx, xi, threads_x = tile_axis(stage, pixels)
    stage.reorder(n, by, bx, ko, ty, tx, yi, xi, ki, *rest)
    for axis in (yi, xi, ki, *rest):  # the thread's register tile, in straight-line code
        stage.unroll(axis)
    bind(stage, n, "blockIdx.z")
    bind(stage, by, "blockIdx.y")
    bind(stage, bx, "blockIdx.x")
    bind(stage, ty, "threadIdx.y")
    bind(stage, tx, "threadIdx.x")
    shared_copies(s, t, ko, threads_y, threads_x)
