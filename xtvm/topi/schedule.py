"""Default schedules per target: how each stage of a fused kernel becomes loops.

A schedule function takes the schedule and one root stage's tensor (`s[t]`) and applies
primitives to it; the strategy table (`strategy.py`) picks one per op and target.

- llvm (CPU): injective stages fuse their outer loops into one parallel loop and vectorize
  the innermost when its extent suits vector registers; reductions run their outer spatial
  loops in parallel; dense/matmul/batch_matmul and conv2d get a register tile — the output
  split into a block of rows (or output channels) by a vector of columns, the reduce loops
  outside that block, the vector axis vectorized and the row axis unrolled, the loops outside
  fused and parallel.
- cuda: the spatial loops fused and split over `blockIdx.x` x `threadIdx.x`; reductions run
  serially in each thread.
- generic: no primitives; every stage is a plain loop nest.

The tiles are written so that compute_at and cache_write can take them further: a conv2d or
dense output stage can be split the same way and the reduction computed at its outer tile
loop, with the tile cached in registers (TVM's `s[C].compute_at(s[out], xo)` and
`s.cache_write(C, "local")`).
"""

from __future__ import annotations

from collections.abc import Callable

from xtvm.api import te
from xtvm.api.te.expr import IterVar

ScheduleFn = Callable[[te.Schedule, te.Tensor], None]

VECTOR_LANES = 16  # f32 lanes of AVX-512
ROW_BLOCK = 4  # rows of a register tile
MAX_VECTOR_EXTENT = 64  # an innermost loop up to this long is vectorized whole
CUDA_THREADS = 256


def extent(axis: IterVar) -> int:
    return int(axis.dom.extent)  # type: ignore[arg-type]


def tile_factor(size: int, preferred: int) -> int | None:
    """A split factor for an axis of `size`: None when the whole axis already fits, else
    `preferred` or its half when they divide `size`, else `preferred` (the split is guarded)."""
    if size <= preferred:
        return None
    for factor in (preferred, preferred // 2):
        if factor > 1 and size % factor == 0:
            return factor
    return preferred


def split_inner(stage: te.Stage, axis: IterVar, preferred: int) -> tuple[IterVar | None, IterVar]:
    """(outer, inner) of `axis` split by `tile_factor`; (None, axis) when it is not split."""
    factor = tile_factor(extent(axis), preferred)
    if factor is None:
        return None, axis
    return stage.split(axis, factor=factor)


def fused(stage: te.Stage, axes: list[IterVar]) -> IterVar | None:
    """The axes fused into one loop (one axis stays itself, none gives None)."""
    if not axes:
        return None
    return stage.fuse(*axes) if len(axes) > 1 else axes[0]


# ---------------------------------------------------------------------------------------------
# CPU


def cpu_injective(s: te.Schedule, t: te.Tensor) -> None:
    """Outer loops fused and parallel, the innermost vectorized (split when long)."""
    stage = s[t]
    axes = list(t.op.axis)  # type: ignore[attr-defined]
    if not axes:
        return
    if len(axes) == 1:
        outer, inner = split_inner(stage, axes[0], VECTOR_LANES * 4)
        if outer is not None:
            stage.parallel(outer)
        stage.vectorize(inner)
        return
    outer = fused(stage, axes[:-1])
    assert outer is not None
    stage.parallel(outer)
    inner = axes[-1]
    if extent(inner) > MAX_VECTOR_EXTENT:
        _, inner = split_inner(stage, inner, VECTOR_LANES)
    stage.vectorize(inner)


def cpu_reduce(s: te.Schedule, t: te.Tensor) -> None:
    """The spatial loops fused and parallel; the reduce loops stay inside, serial."""
    outer = fused(s[t], list(t.op.axis))  # type: ignore[attr-defined]
    if outer is not None:
        s[t].parallel(outer)


def cpu_default(s: te.Schedule, t: te.Tensor) -> None:
    """cpu_reduce for a reduction stage, cpu_injective otherwise."""
    if t.op.reduce_axis:  # type: ignore[attr-defined]
        cpu_reduce(s, t)
    else:
        cpu_injective(s, t)


def cpu_dense(s: te.Schedule, t: te.Tensor) -> None:
    """dense, matmul, batch_matmul: a ROW_BLOCK x VECTOR_LANES register tile.

    Loops: (batch, row blocks) fused and parallel, column blocks, k, rows unrolled, columns
    vectorized.
    """
    if t.op.tag not in ("dense", "matmul", "batch_matmul"):  # type: ignore[attr-defined]
        cpu_default(s, t)
        return
    stage = s[t]
    *rows, column = t.op.axis  # type: ignore[attr-defined]
    batch = rows[:-1] if t.op.tag == "batch_matmul" else []  # type: ignore[attr-defined]
    rows = rows[len(batch) :]
    row = fused(stage, rows)
    row_outer, row_inner = split_inner(stage, row, ROW_BLOCK) if row is not None else (None, None)
    column_outer, column_inner = split_inner(stage, column, VECTOR_LANES)
    order = [*batch, row_outer, column_outer, *t.op.reduce_axis, row_inner, column_inner]  # type: ignore[attr-defined]
    stage.reorder(*[a for a in order if a is not None])
    outer = fused(stage, [a for a in (*batch, row_outer) if a is not None])
    if outer is not None:
        stage.parallel(outer)
    elif column_outer is not None:
        stage.parallel(column_outer)
    if row_inner is not None and row_outer is not None:
        stage.unroll(row_inner)
    stage.vectorize(column_inner)


def cpu_conv2d(s: te.Schedule, t: te.Tensor) -> None:
    """conv2d: output channels x output columns register tile (NCHW vectorizes columns, NHWC
    channels); (batch, channel blocks, rows) fused and parallel outside the reduction."""
    tag = t.op.tag  # type: ignore[attr-defined]
    if not tag.endswith(("conv2d_nchw", "conv2d_nhwc")):
        cpu_default(s, t)
        return
    stage = s[t]
    reduce_axes = list(t.op.reduce_axis)  # type: ignore[attr-defined]
    if tag.endswith("nchw"):
        n, f, y, x = t.op.axis  # type: ignore[attr-defined]
        f_outer, f_inner = split_inner(stage, f, ROW_BLOCK * 2)
        x_outer, x_inner = split_inner(stage, x, VECTOR_LANES)
        outer = [n, f_outer, y, x_outer]
        inner, vector = f_inner, x_inner
    else:
        n, y, x, f = t.op.axis  # type: ignore[attr-defined]
        x_outer, x_inner = split_inner(stage, x, ROW_BLOCK)
        f_outer, f_inner = split_inner(stage, f, VECTOR_LANES)
        outer = [n, y, x_outer, f_outer]
        inner, vector = x_inner, f_inner
    outer = [a for a in outer if a is not None]
    stage.reorder(*outer, *reduce_axes, inner, vector)
    parallel = fused(stage, outer[:3])
    assert parallel is not None
    stage.parallel(parallel)
    if extent(inner) <= ROW_BLOCK * 2:
        stage.unroll(inner)
    stage.vectorize(vector)


# ---------------------------------------------------------------------------------------------
# CUDA


def cuda_default(s: te.Schedule, t: te.Tensor) -> None:
    """Spatial loops fused, split over blocks and threads; reduce loops serial in a thread."""
    stage = s[t]
    outer = fused(stage, list(t.op.axis))  # type: ignore[attr-defined]
    if outer is None:
        return
    threads = min(CUDA_THREADS, extent(outer))
    block, thread = stage.split(outer, factor=threads)
    stage.bind(block, te.thread_axis("blockIdx.x"))
    stage.bind(thread, te.thread_axis("threadIdx.x"))


def no_schedule(s: te.Schedule, t: te.Tensor) -> None:
    """The generic target: plain loop nests."""


TARGETS = ("llvm", "cuda", "generic")
DEFAULT: dict[str, ScheduleFn] = {"llvm": cpu_default, "cuda": cuda_default, "generic": no_schedule}
DENSE: dict[str, ScheduleFn] = {**DEFAULT, "llvm": cpu_dense}
CONV2D: dict[str, ScheduleFn] = {**DEFAULT, "llvm": cpu_conv2d}
