"""Default CUDA schedules: every stage a kernel of blocks x threads.

- injective and reduction stages: the spatial loops fused and split over `blockIdx.x` x
  `threadIdx.x` (CUDA_THREADS a block), reduce loops serial in each thread; a reduction to a
  scalar runs its reduce loops in one thread.
- dense, matmul, batch_matmul: TVM's classic GPU GEMM. A block computes a tile of
  (THREADS_2D x PER_THREAD)^2 outputs (`blockIdx.y`, `blockIdx.x`; leading axes fused on
  `blockIdx.z`), each of its THREADS_2D^2 threads (one `threadIdx.x`) a PER_THREAD x
  PER_THREAD tile of it, accumulated over all of k in registers (`cache_write(C, "local")`
  computed at the thread's loop, C copying the tile out). At each K_TILE step the block's
  threads copy the two operand tiles into "shared" buffers together (`cache_read` computed
  at the step; bound inference gives such a stage the whole block's region, and its loop
  bound to `threadIdx.x` shares the copy among the threads, see
  `xtvm/backends/cuda/thread_nests.py`), then each k of the step copies the thread's
  fragments of both tiles into registers (LOCAL_FRAGMENTS) and multiplies them, the
  thread's tile unrolled (and the step's k loop with UNROLL_K: about 100 registers a thread
  without, two blocks of 256 an SM; 160 with, one).
  Bank conflicts: a warp is WARP_COLUMNS x (32 / WARP_COLUMNS) threads of the tile, and a
  tile read down its columns (an operand whose rows run along k) gets an odd row stride
  (`storage_align`, SHARED_PAD).
- conv2d (NCHW): output channels x output pixels tiled over blocks and threads
  (`threadIdx.y`, `threadIdx.x`: CONV_THREADS_2D each way, CONV_PER_THREAD outputs each),
  the padded input window and the weights of CONV_K_TILE input channels copied into shared
  memory at each step; its running sums stay in registers within a step and go through the
  output buffer between steps.

The elementwise tail of a product (bias, relu) is a kernel of its own, reading the product.
Tiles shrink to fit small operands (a 7-row output gets 7 rows of threads, not 16), so odd
sizes run few idle threads; partial tiles are guarded.
"""

from __future__ import annotations

import math

from xtvm import te
from xtvm.te.expr import IterVar, Read, walk

CUDA_THREADS = 256
# A product's tiles (module-level, so that a sweep can set them): THREADS_2D x THREADS_2D
# threads a block, each PER_THREAD x PER_THREAD outputs in registers, K_TILE steps of the
# reduction per shared-memory tile; a warp is WARP_COLUMNS x (32 / WARP_COLUMNS) threads.
THREADS_2D = 16
PER_THREAD = 8
K_TILE = 8
WARP_COLUMNS = 8
SHARED_PAD = True  # odd row strides for tiles read down their columns
LOCAL_FRAGMENTS = True  # each k step's operand fragments copied into registers
UNROLL_K = False  # unroll each step's k loop too (more loads in flight; 160+ registers a thread)
CONV_THREADS_2D = 16  # conv2d: threads along output channels and output pixels
CONV_PER_THREAD = 4  # conv2d: outputs per thread along each
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


def thread_tile(size: int, threads: int, per_thread: int) -> tuple[int, int]:
    """(threads, outputs per thread) along an axis of `size`: `threads` x `per_thread` for
    long axes, fewer outputs each for shorter ones, fewer threads of one output each for
    short ones."""
    if size >= threads * per_thread:
        return threads, per_thread
    if size > threads:
        return threads, math.ceil(size / threads)
    return size, 1


def tile_axis(
    stage: te.Stage, axis: IterVar, threads: int, per_thread: int
) -> tuple[IterVar, IterVar, IterVar, int]:
    """`axis` split into (block, thread, per-thread) loops; also the thread count."""
    threads, per_thread = thread_tile(extent(axis), threads, per_thread)
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


def warp_shaped(
    stage: te.Stage, rows: IterVar, columns: IterVar, threads_y: int, threads_x: int
) -> IterVar:
    """The thread loops of a product's tile (`rows` x `columns` threads) fused into one,
    ordered so that a warp's 32 threads are WARP_COLUMNS columns x 32 / WARP_COLUMNS rows
    of them (both operands' shared reads of a step then meet few bank conflicts); plain
    row-major when the tile does not hold whole warps of that shape."""
    if WARP_COLUMNS not in (1, 2, 4, 8, 16, 32):
        return stage.fuse(rows, columns)
    warp_rows = 32 // WARP_COLUMNS
    if threads_x % WARP_COLUMNS or threads_y % warp_rows:
        return stage.fuse(rows, columns)
    wy, ly = stage.split(rows, factor=warp_rows)
    wx, lx = stage.split(columns, factor=WARP_COLUMNS)
    stage.reorder(wy, wx, ly, lx)
    return stage.fuse(wy, wx, ly, lx)


def reads_along_rows(op: te.ComputeOp, tensor: te.Tensor, k: IterVar) -> bool:
    """Whether `op` reads `tensor` with the reduction along its last axis (a tile of it in
    shared memory is then read down a column by the threads of a warp)."""
    return any(
        isinstance(node, Read) and node.tensor is tensor and node.indices[-1] is k
        for node in walk(op.body)
    )


def cuda_dense(s: te.Schedule, t: te.Tensor) -> None:
    """dense, matmul, batch_matmul: each thread's tile of outputs accumulated in registers
    over all of k, from shared-memory tiles of both operands (see the module docstring)."""
    stage = s[t]
    if stage.scheduled:
        return
    tag = t.op.tag  # type: ignore[attr-defined]
    if tag not in ("dense", "matmul", "batch_matmul"):
        cuda_default(s, t)
        return
    local = s.cache_write(t, "local")
    *lead, column = list(t.op.axis)  # type: ignore[attr-defined]
    # leading axes but the row axis: one block per index (blockIdx.z)
    batch = fused(stage, lead[:-1])
    rows = lead[-1] if lead else None
    bx, tx, xi, threads_x = tile_axis(stage, column, THREADS_2D, PER_THREAD)
    if rows is None:  # a vector times a matrix: one row
        stage.reorder(bx, tx, xi)
        threads_y, thread = 1, tx
        bind(stage, bx, "blockIdx.x")
    else:
        by, ty, yi, threads_y = tile_axis(stage, rows, THREADS_2D, PER_THREAD)
        stage.reorder(*([] if batch is None else [batch]), by, bx, ty, tx, yi, xi)
        stage.unroll(yi)
        bind(stage, by, "blockIdx.y")
        bind(stage, bx, "blockIdx.x")
        thread = warp_shaped(stage, ty, tx, threads_y, threads_x)
    stage.unroll(xi)
    if batch is not None:
        bind(stage, batch, "blockIdx.z")
    bind(stage, thread, "threadIdx.x")
    # the register tile: computed by each thread at its loop, over all of k
    cache = s[local]
    cache.compute_at(stage, thread)
    spatial = list(local.op.axis)  # type: ignore[attr-defined]
    (k,) = local.op.reduce_axis  # type: ignore[attr-defined]
    ko, ki = cache.split(k, factor=min(K_TILE, extent(k)))
    cache.reorder(ko, ki, *spatial)
    for axis in (ki, *spatial) if UNROLL_K else spatial:
        cache.unroll(axis)
    threads = threads_y * threads_x
    for operand in list(cache.reads):
        tile = s.cache_read(operand, "shared", [local.op.output(0)])
        s[tile].compute_at(cache, ko)
        if SHARED_PAD and len(operand.shape) > 1 and reads_along_rows(local.op, operand, k):
            # an odd row stride: the rows of a column lie in different banks
            s[tile].storage_align(s[tile].op.axis[-2], 2, 1)
        flat = fused(s[tile], list(s[tile].op.axis))
        assert flat is not None
        _, inner = s[tile].split(flat, factor=threads)
        bind(s[tile], inner, "threadIdx.x")
        if LOCAL_FRAGMENTS:  # the step's fragment of the tile in registers
            fragment = s.cache_read(tile, "local", [local.op.output(0)])
            s[fragment].compute_at(cache, ki)
            for axis in s[fragment].op.axis:
                s[fragment].unroll(axis)


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
    by, ty, yi, threads_y = tile_axis(stage, f, CONV_THREADS_2D, CONV_PER_THREAD)
    bx, tx, xi, threads_x = tile_axis(stage, pixels, CONV_THREADS_2D, CONV_PER_THREAD)
    stage.reorder(n, by, bx, ko, ty, tx, yi, xi, ki, *rest)
    for axis in (yi, xi, ki, *rest):  # the thread's register tile, in straight-line code
        stage.unroll(axis)
    bind(stage, n, "blockIdx.z")
    bind(stage, by, "blockIdx.y")
    bind(stage, bx, "blockIdx.x")
    bind(stage, ty, "threadIdx.y")
    bind(stage, tx, "threadIdx.x")
    shared_copies(s, t, ko, threads_y, threads_x)
