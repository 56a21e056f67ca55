"""Default schedules per target: how each stage of a fused kernel becomes loops.

A schedule function takes the schedule and one root stage's tensor (`s[t]`) and applies
primitives to it; the strategy table (`strategy.py`) picks one per op and target.

- llvm (CPU): injective stages fuse their outer loops into one parallel loop and vectorize
  the innermost when its extent suits vector registers; reductions run their outer spatial
  loops in parallel; dense/matmul/batch_matmul and conv2d get a register tile — the output
  split into a block of rows (or output channels) by a vector of columns, the reduce loops
  outside that block, the vector axis vectorized and the row axis unrolled, the loops outside
  fused and parallel. A product reading an operand transposed ([n, k]) copies it transposed,
  one [k, columns] panel per column block, and vectorizes columns the same way
  (`packs_transposed`).
- cuda (`schedule_cuda.py`): the spatial loops fused and split over `blockIdx.x` x
  `threadIdx.x`, reductions serial in each thread; dense/matmul/batch_matmul and NCHW conv2d
  get shared-memory tiles.
- generic: no primitives; every stage is a plain loop nest.

The tiles are written so that compute_at and cache_write can take them further: a conv2d or
dense output stage can be split the same way and the reduction computed at its outer tile
loop, with the tile cached in registers (TVM's `s[C].compute_at(s[out], xo)` and
`s.cache_write(C, "local")`).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import NamedTuple

from xtvm import te
from xtvm.dialects.tir import MAX_LOAD_STRIDE
from xtvm.te.expr import (
    Binary,
    ComputeOp,
    Const,
    IterVar,
    PrimExpr,
    Read,
    Reduce,
    Var,
    walk,
)
from xtvm.topi import winograd
from xtvm.topi.nn import LAYER_NORM_TAG
from xtvm.topi.schedule_cuda import cuda_conv2d, cuda_default, cuda_dense

ScheduleFn = Callable[[te.Schedule, te.Tensor], None]

VECTOR_LANES = 16  # f32 lanes of AVX-512
MAX_VECTOR_EXTENT = 64  # an innermost loop up to this long is vectorized whole
MIN_VECTOR_EXTENT = 4  # a reduction's output axis shorter than this stays scalar
# A row sum's vector, the first that divides the row: up to four registers of independent
# partial sums (one register would chain every step on the add latency).
ROW_REDUCE_LANES = (4 * VECTOR_LANES, 2 * VECTOR_LANES, VECTOR_LANES)
TRANSPOSE_BLOCK = 8  # square a transposing copy moves through registers (8 x 8 f32)
ROWS_OUTSIDE_BYTES = 1 << 20  # an NHWC conv2d input this large walks rows outside (half L2)
ROW_TILE, COLUMN_TILE = 8, 32  # register tile of a product with contiguous columns
WEIGHT_STREAM_BYTES = 1 << 20  # a product's weight larger is read once, columns outside (L2)
PAGE_BYTES = 4096  # a weight row this long puts each k step of a column panel on its own page
PACK_WIDE_WEIGHTS = False  # packs_weight: a default panel copy of wide weights
K_UNROLL = 4  # reduction steps unrolled in that tile
# A product reading its column operand transposed ([n, k]) copies it transposed into panels
# when it has at least this many rows (see packs_transposed); fewer, and the copy costs more
# than the k-vectorized tile loses.
PACK_MIN_ROWS = 16
K_ROW_TILE, K_COLUMN_TILE = 2, 8  # tile of a product vectorized along k
CONV_CHANNEL_TILE, CONV_COLUMN_TILE = 8, 16  # NCHW conv2d register tile
DEPTHWISE_ROW_TILE = 4  # output rows of an NCHW depthwise conv2d's tile (by CONV_COLUMN_TILE)
# Rows of a grouped NCHW conv2d's tile: the first that divides the channels per group (17
# rows of one vector each fit the registers), else CONV_CHANNEL_TILE with a guard.
GROUP_ROW_TILES = (16, 8, 17, 14, 12, 10, 9, 7, 6)
# NHWC conv2d register tile (see nhwc_tile): output columns, and output channels in whole
# vectors (a 24-lane vector does not vectorize).
NHWC_COLUMNS = ((8, 7, 6, 5, 4), 16)
NHWC_CHANNELS = ((2 * VECTOR_LANES, VECTOR_LANES, 8), 4)


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


def split_exact(stage: te.Stage, axis: IterVar, factor: int) -> tuple[IterVar | None, IterVar]:
    """(outer, inner) of `axis` split by `factor`; (None, axis) when `factor` covers it."""
    if factor >= extent(axis):
        return None, axis
    return stage.split(axis, factor=factor)


Splitter = Callable[[te.Stage, IterVar, int], tuple[IterVar | None, IterVar]]


class ConvTiles(NamedTuple):
    """A tuned conv2d register tile and reduction order (AutoTVM's conv2d templates); the
    defaults of the last four are the default schedule's (but for `plane`, see
    `plane_tile`)."""

    channels: int  # output channels of the tile (within a group), or depthwise NCHW rows
    columns: int  # output columns of the tile
    rows_outside: bool = False  # NHWC: rows outside the channel blocks
    rows: int = 1  # output rows in the tile (not depthwise NCHW), unrolled with the columns
    rc_block: int = 0  # input channels of a reduction block (TVM's ic_bn); 0: not split
    unroll_kw: bool = False  # kernel columns inside the block, unrolled (TVM's unroll_kw)
    plane: bool = False  # NCHW 1x1 on a narrow plane: `channels` by whole planes (whole_plane)


def nhwc_tile(
    stage: te.Stage, axis: IterVar, tile: tuple[tuple[int, ...], int]
) -> tuple[IterVar | None, IterVar]:
    """(outer, inner) of a conv2d register tile axis, for `tile` = (sizes, whole): an axis that
    is one of `sizes` stays whole; else it is split by the first of them that divides it (an
    unguarded tile: 14 columns are two tiles of 7, as a whole row by 32 channels would spill
    registers); an axis no size divides stays whole up to `whole`, longer ones get a guarded
    split by the first size that fits."""
    factor = nhwc_tile_factor(extent(axis), tile)
    return (None, axis) if factor is None else stage.split(axis, factor=factor)


def nhwc_tile_factor(size: int, tile: tuple[tuple[int, ...], int]) -> int | None:
    """The factor `nhwc_tile` splits an axis of `size` by (None: it stays whole)."""
    sizes, whole = tile
    if size in sizes:
        return None
    factor = next((f for f in sizes if size % f == 0), None)
    if factor is None:
        if size <= whole:
            return None
        # a guarded split; loop partition peels the tail off
        factor = next((f for f in sizes if f <= size), sizes[-1])
    return factor


def nhwc_channel_block(out_channels: int) -> int | None:
    """The output-channel tile `cpu_conv2d` splits an NHWC conv2d's channels by, when the split
    is even and leaves more than one tile (None otherwise): the block of its packed kernel,
    `OHWI<block>o`, in which each tile's weights are one contiguous slab."""
    sizes, whole = NHWC_CHANNELS
    if out_channels in sizes or out_channels <= whole:
        return None
    return next((f for f in sizes if out_channels % f == 0), None)


def fused(stage: te.Stage, axes: list[IterVar]) -> IterVar | None:
    """The axes fused into one loop (one axis stays itself, none gives None)."""
    if not axes:
        return None
    return stage.fuse(*axes) if len(axes) > 1 else axes[0]


# ---------------------------------------------------------------------------------------------
# CPU


def cpu_injective(s: te.Schedule, t: te.Tensor) -> None:
    """Outer loops fused and parallel, the innermost vectorized (split when long); a
    transposing copy in TRANSPOSE_BLOCK squares (see cpu_transpose)."""
    stage = s[t]
    axes = list(t.op.axis)  # type: ignore[attr-defined]
    if not axes:
        return
    contiguous = transposed_axis(t)
    if contiguous is not None:
        cpu_transpose(stage, axes, contiguous)
        return
    narrow = transposed_axis(t, narrow=True)
    if narrow is not None:
        cpu_narrow_transpose(stage, axes, narrow)
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


def transposed_axis(t: te.Tensor, narrow: bool = False) -> IterVar | None:
    """The output axis along which a transposing copy `t` reads an operand contiguously: an
    operand's innermost index is that axis and another of its indices is `t`'s innermost axis
    (NCHW -> NHWC reads x[n, c, h, w]: w). None unless both axes split into whole blocks
    (TRANSPOSE_BLOCK squares); with `narrow`, for an innermost axis shorter than a square
    (3 channels) whose contiguous axis splits into whole VECTOR_LANES runs."""
    *_, last = t.op.axis  # type: ignore[attr-defined]
    if narrow:
        fits = extent(last) < TRANSPOSE_BLOCK
        block = VECTOR_LANES
    else:
        fits = extent(last) % TRANSPOSE_BLOCK == 0
        block = TRANSPOSE_BLOCK
    if not fits:
        return None
    for node in walk(t.op.body):  # type: ignore[attr-defined]
        if not isinstance(node, Read) or len(node.indices) < 2:
            continue
        *outer, inner = node.indices
        if (
            isinstance(inner, IterVar)
            and inner is not last
            and inner in t.op.axis  # type: ignore[attr-defined]
            and any(i is last for i in outer)
            and extent(inner) % block == 0
        ):
            return inner
    return None


def buffered_transposes(stages: list[te.Stage]) -> list[te.Tensor]:
    """The stages of a fused injective kernel to compute into buffers of their own rather than
    inline: a transpose that moves the innermost axis, and its operand, where that operand is
    computed from more than one tensor (rotary embeddings on Llama's keys, then their
    transpose for Q.K^T). Inlined, every output element of the transpose's vectorized rows
    recomputes the chain from elements a whole source row apart (gathers, 147 us for 8 heads
    of 128x64); buffered, the chain runs on contiguous vectors, and the transpose is a plain
    copy that cpu_transpose moves in register squares (5 + 8 us)."""
    by_op = {id(stage.op): stage for stage in stages}
    kept: list[te.Tensor] = []
    for stage in stages:
        op = stage.op
        if not isinstance(op, ComputeOp) or not op.name.startswith("T_transpose"):
            continue
        body = op.body
        if not isinstance(body, Read) or not body.indices or body.indices[-1] is op.axis[-1]:
            continue
        operand = by_op.get(id(body.tensor.op))
        if operand is None or not isinstance(operand.op, ComputeOp):
            continue
        if len(reads_inlined(by_op, operand)) > 1:
            kept += [op.output(0), body.tensor]
    return kept


def reads_inlined(by_op: dict[int, te.Stage], stage: te.Stage) -> list[te.Tensor]:
    """The tensors that `stage` reads through the injective computes it would inline: the
    first stage on each path that is not an injective compute of the kernel."""
    found: list[te.Tensor] = []
    pending = list(stage.op.input_tensors)
    while pending:
        tensor = pending.pop()
        producer = by_op.get(id(tensor.op))
        if (
            producer is not None
            and isinstance(producer.op, ComputeOp)
            and not producer.op.reduce_axis
        ):
            pending.extend(producer.op.input_tensors)
        elif not any(tensor is t for t in found):
            found.append(tensor)
    return found


def cpu_narrow_transpose(stage: te.Stage, axes: list[IterVar], contiguous: IterVar) -> None:
    """A transposing copy whose innermost axis is shorter than a square (an RGB image from
    NCHW to NHWC): under the outer loops (fused, parallel), runs of VECTOR_LANES along the
    `contiguous` axis for each value of the short axis (unrolled), so that every load reads on
    along a source row; LLVM interleaves the short strided stores. 224x224x3 at 1 thread:
    47 us (a 3-lane gather per pixel) -> 21 us."""
    *_, last = axes
    outer, inner = stage.split(contiguous, factor=VECTOR_LANES)
    others = [a for a in axes if a is not contiguous and a is not last]
    stage.reorder(*others, outer, last, inner)
    head = fused(stage, others)
    if head is not None:
        stage.parallel(head)
    stage.unroll(last)


def cpu_transpose(stage: te.Stage, axes: list[IterVar], contiguous: IterVar) -> None:
    """A transposing copy in squares of TRANSPOSE_BLOCK: the innermost axis vectorized under
    a loop over the `contiguous` axis (each step one column of the square, read along the
    source's rows), the square's outer loops fused and parallel. tir-vector-transpose turns
    each square into row loads and a register transpose."""
    *_, last = axes
    rows_outer, rows = stage.split(contiguous, factor=TRANSPOSE_BLOCK)
    columns_outer, columns = split_inner(stage, last, TRANSPOSE_BLOCK)
    others = [a for a in axes if a is not contiguous and a is not last]
    lead = [*others, *(a for a in (columns_outer,) if a is not None)]
    stage.reorder(*lead, rows_outer, rows, columns)
    outer = fused(stage, lead)
    assert outer is not None
    stage.parallel(outer)
    stage.vectorize(columns)


def cpu_reduce(s: te.Schedule, t: te.Tensor) -> None:
    """The spatial loops fused and parallel; the reduce loops stay inside, serial.

    When an operand is read along the output's innermost axis (NHWC pooling's channels, a sum
    over a leading axis), or steps along it by a small constant (NCHW pooling's columns, its
    windows 2 to MAX_LOAD_STRIDE columns apart), that axis moves inside the reduce loops and is
    vectorized: each reduction step updates a vector of outputs.
    """
    axes = list(t.op.axis)  # type: ignore[attr-defined]
    if axes and extent(axes[-1]) >= MIN_VECTOR_EXTENT and column_strided(t):
        padding_at_root(s, s[t])
        # The vector of outputs accumulates in registers (a local tile computed at the
        # parallel loop, initialized there), not in the output buffer.
        outer, inner = register_tiled(s, t)
        *lead, last = outer.op.axis
        last_outer, last_inner = (None, last)
        if extent(last) > MAX_VECTOR_EXTENT:
            last_outer, last_inner = split_inner(outer, last, VECTOR_LANES)
        spatial = [*lead, *(a for a in (last_outer,) if a is not None)]
        outer.reorder(*spatial, last_inner)
        tile_at_parallel_loop(outer, inner, spatial)
        outer.vectorize(last_inner)
        *inner_lead, inner_last = inner.op.axis
        inner.reorder(*inner_lead, *inner.op.reduce_axis, inner_last)
        inner.vectorize(inner_last)
        return
    if reads_along_reduce_axis(t):
        # A row sum (softmax's exp-sum, a mean over the last axis): the reduce axis is split
        # by ROW_REDUCE_LANES and vectorized, each output accumulated in a register tile
        # (tir-vector-accumulate then keeps vectors of partial sums, reduced once).
        outer, inner = register_tiled(s, t)
        tile_at_parallel_loop(outer, inner, list(outer.op.axis))
        *others, k = inner.op.reduce_axis
        lanes = next((f for f in ROW_REDUCE_LANES if extent(k) % f == 0), ROW_REDUCE_LANES[0])
        k_outer, k_inner = split_inner(inner, k, lanes)
        inner.reorder(*others, *(a for a in (k_outer,) if a is not None), k_inner)
        inner.vectorize(k_inner, reduction=True)  # a vector accumulator (not in TVM)
        return
    outer = fused(s[t], list(t.op.axis))  # type: ignore[attr-defined]
    if outer is not None:
        s[t].parallel(outer)


def cpu_layer_norm(s: te.Schedule, t: te.Tensor) -> None:
    """layer_norm along the last axis as one parallel loop over rows: each row's sum and sum
    of centred squares (vector accumulators, the row in L1) computed at the row, then the row
    normalised, vectorized. Along another axis, or a statistics stage met on its own: the
    default schedules."""
    stage = s[t]
    if stage.scheduled:
        return
    if t.op.tag != LAYER_NORM_TAG:  # type: ignore[attr-defined]
        if not layer_norm_statistics(s, t):
            cpu_default(s, t)
        return
    *lead, last = t.op.axis  # type: ignore[attr-defined]
    stats = [r for r in s.reads_through_inlined(stage) if getattr(r.op, "reduce_axis", None)]
    if not lead or not stats or not all(map(reads_along_reduce_axis, stats)):
        for r in stats:
            cpu_default(s, r)
        cpu_injective(s, t)
        return
    row = fused(stage, lead)
    assert row is not None
    stage.parallel(row)
    inner = last
    if extent(last) > MAX_VECTOR_EXTENT:
        _, inner = split_inner(stage, last, VECTOR_LANES)
    stage.vectorize(inner)
    for r in stats:
        st = s[r]
        st.compute_at(stage, row)
        (k,) = st.op.reduce_axis
        lanes = next((f for f in ROW_REDUCE_LANES if extent(k) % f == 0), ROW_REDUCE_LANES[0])
        _, k_inner = split_inner(st, k, lanes)
        st.vectorize(k_inner, reduction=True)  # a vector accumulator (not in TVM)


def layer_norm_statistics(s: te.Schedule, t: te.Tensor) -> bool:
    """Whether `t` is a statistics stage of a layer_norm whose output stage is in `s` (and
    schedules it)."""
    return any(
        s[op].op.tag == LAYER_NORM_TAG and any(r is t for r in s.reads_through_inlined(s[op]))  # type: ignore[attr-defined]
        for op in s.outputs
    )


def tile_at_parallel_loop(outer: te.Stage, inner: te.Stage, axes: list[IterVar]) -> None:
    """`axes` of `outer` fused into one parallel loop, with the register tile `inner` computed
    at it (nothing to fuse: `inner` stays where it is)."""
    loop = fused(outer, axes)
    if loop is not None:
        outer.parallel(loop)
        inner.compute_at(outer, loop)


def reads_along_reduce_axis(t: te.Tensor) -> bool:
    """Whether `t` sums an operand along its last reduce axis (its last index that axis), at
    least VECTOR_LANES long: contiguous vectors of the summed elements. (LLVM vectorizes a
    max or min row itself; a float sum it may not reassociate.)"""
    *_, k = t.op.reduce_axis  # type: ignore[attr-defined]
    body = t.op.body  # type: ignore[attr-defined]
    is_sum = isinstance(body, Reduce) and body.combiner == "sum"
    return (
        is_sum
        and extent(k) >= VECTOR_LANES
        and any(
            isinstance(node, Read) and node.indices and node.indices[-1] is k
            for node in walk(t.op.body)  # type: ignore[attr-defined]
        )
    )


def cpu_default(s: te.Schedule, t: te.Tensor) -> None:
    """cpu_reduce for a reduction stage, cpu_injective otherwise; nothing for a stage already
    scheduled (a product's tile, or a stage made by cache_write)."""
    if s[t].scheduled:
        return
    if t.op.reduce_axis:  # type: ignore[attr-defined]
        cpu_reduce(s, t)
    else:
        cpu_injective(s, t)


def column_step(index: PrimExpr, column: IterVar) -> int | None:
    """The constant by which `index` (sums, differences and constant multiples of axes)
    steps when `column` steps by one; None when it is not of that form."""
    if index is column:
        return 1
    if isinstance(index, IterVar | Const | Var):
        return 0
    if not isinstance(index, Binary):
        return None
    a, b = column_step(index.a, column), column_step(index.b, column)
    if a is None or b is None:
        return None
    if index.op in ("add", "sub"):
        return a + b if index.op == "add" else a - b
    if index.op == "mul":
        constants = [x.value for x in (index.a, index.b) if isinstance(x, Const)]
        return (a or b) * int(constants[0]) if constants else (None if a or b else 0)
    return None


def column_strided(t: te.Tensor) -> bool:
    """Whether an operand that the reduction `t` reduces (read with a reduce axis) is read
    along `t`'s last axis with a small constant step (NCHW pooling's
    `x[n, c, 2 * h + ry, 2 * w + rx]`): a vector of outputs loads the span of its windows and
    picks every step-th element. (Softmax's `max[i]`, read once per row, does not count.)"""
    column = t.op.axis[-1]  # type: ignore[attr-defined]
    reduce_axes = set(map(id, t.op.reduce_axis))  # type: ignore[attr-defined]
    return any(
        isinstance(node, Read)
        and node.indices
        and column_step(node.indices[-1], column) in range(1, MAX_LOAD_STRIDE + 1)
        and any(id(n) in reduce_axes for n in walk(node))
        for node in walk(t.op.body)  # type: ignore[attr-defined]
    )


def column_contiguous(t: te.Tensor) -> bool:
    """Whether an operand of the product `t` is read along `t`'s last (column) axis, so that
    vectors of columns are contiguous loads (matmul's b [k, n]; not dense's weight [n, k])."""
    column = t.op.axis[-1]  # type: ignore[attr-defined]
    return any(
        isinstance(node, Read) and node.indices and node.indices[-1] is column
        for node in walk(t.op.body)  # type: ignore[attr-defined]
    )


def epilogue_stage(s: te.Schedule, t: te.Tensor) -> te.Stage | None:
    """The root stage that ends `t`'s elementwise tail (bias, relu, ... inlined into it): a
    schedule output of `t`'s shape, no reduction, reading `t`; None when there is none."""
    shape = tuple(int(d) for d in t.shape)  # type: ignore[arg-type]
    for op in s.outputs:
        stage = s[op]
        if stage is s[t] or stage.scheduled or stage.op.reduce_axis:
            continue
        if tuple(int(d) for d in stage.op.output(0).shape) != shape:  # type: ignore[arg-type]
            continue
        if any(r is t for r in s.reads_through_inlined(stage)):
            return stage
    return None


def register_tiled(s: te.Schedule, t: te.Tensor) -> tuple[te.Stage, te.Stage]:
    """(outer, inner): the stage whose loops are tiled (the epilogue's, or `t`'s own made a
    copy by cache_write) and the reduction stage computed at its tile."""
    outer = epilogue_stage(s, t)
    if outer is not None:
        return outer, s[t]
    inner = s.cache_write(t, "local")
    return s[t], s[inner]


def cpu_dense(s: te.Schedule, t: te.Tensor) -> None:
    """dense, matmul, batch_matmul: a register tile, the elementwise tail applied in it.

    Columns contiguous in an operand (matmul's b [k, n]): a ROW_TILE x COLUMN_TILE tile of the
    output, its reduction cached in registers (`cache_write` or the tail's stage) and computed
    at the tile, k split by K_UNROLL and unrolled, columns vectorized; (batch, row blocks)
    fused and parallel. An operand read transposed ([n, k]: attention's q @ k^T, dense of two
    activations) with enough rows (`packs_transposed`) is copied transposed, one panel
    of k by COLUMN_TILE per column block, and tiled alike. Otherwise (a few rows): k is the
    contiguous axis, split by VECTOR_LANES and vectorized (an accumulation into lane
    reductions) under a small tile of rows by columns.
    """
    if s[t].scheduled:
        return
    tag = t.op.tag  # type: ignore[attr-defined]
    if tag not in ("dense", "matmul", "batch_matmul"):
        cpu_default(s, t)
        return
    batched = 1 if tag == "batch_matmul" else 0
    columns_first = weight_outgrows_cache(t, batched)
    panels = transpose_operand(s, t) if packs_transposed(t, batched) else None
    outer, inner = register_tiled(s, t)
    if panels is not None:
        tile_product(outer, inner, batched, ROW_TILE, COLUMN_TILE, False, True, panels=panels)
    elif column_contiguous(t):
        pack = packs_weight(t, columns_first)
        tile_product(outer, inner, batched, ROW_TILE, COLUMN_TILE, False, columns_first, pack=pack)
    else:
        tile_product(outer, inner, batched, K_ROW_TILE, K_COLUMN_TILE, True, columns_first)


def weight_outgrows_cache(t: te.Tensor, batched: int) -> bool:
    """Whether the operand of the product `t` read without its rows (a weight [k, n]) is larger
    than a core's L2 (WEIGHT_STREAM_BYTES) while the rows' operand fits in it
    (ROWS_OUTSIDE_BYTES): the weight is then walked once, its column blocks outside the row
    blocks, and the rows are read again from L2 for each column block. With the rows outside,
    every block of 8 rows read the whole weight again from L3, or from memory when a model's
    weights outgrow L3 (a small Llama's 128 rows by 512 x 1408 and 1408 x 512, 94 MB of weights:
    its ratio to onnxruntime went from 1.27-1.30 to 0.97-0.98, BERT-base and GPT-2 small stayed
    where they were; GPT-2's 768 x 50257 projection at 64 rows read its 154 MB from memory 8
    times)."""
    *lead, column = t.op.axis  # type: ignore[attr-defined]
    (k,) = t.op.reduce_axis  # type: ignore[attr-defined]
    rows = math.prod(extent(a) for a in lead[batched:])
    return (
        4 * extent(k) * extent(column) > WEIGHT_STREAM_BYTES
        and 4 * rows * extent(k) <= ROWS_OUTSIDE_BYTES
    )


def packs_weight(t: te.Tensor, columns_first: bool) -> bool:
    """Whether the product `t` (columns contiguous in its weight) copies each column panel of
    the weight (k by a tile's columns) into a contiguous buffer by default: when the weight
    is walked columns outside (`weight_outgrows_cache`) and its rows are a page or longer.
    Unpacked, every k step of a panel then reads another page, more than the TLB holds, and
    defeats the prefetcher: BERT's 768 x 3072 feed-forward weight, a kernel on its own, ran
    at 40 GFLOP/s on one Zen 5 core, packed at 220 (about 80 % of its FMA peak).

    Off unless PACK_WIDE_WEIGHTS: inside whole models the copy made every such product slower
    (BERT-base 110 -> 116 ms, a small Llama 32.5 -> 40.5 ms of kernels at 1 thread), as the
    weights are laid out at compile time and stay in cache between row blocks; the matmul
    and dense templates keep it as their `pack` knob."""
    wide = 4 * extent(t.op.axis[-1]) >= PAGE_BYTES  # type: ignore[attr-defined]
    return PACK_WIDE_WEIGHTS and columns_first and wide


def read_with_last(t: te.Tensor, second: IterVar, last: IterVar) -> te.Tensor | None:
    """The operand the product `t` reads with `second` and `last` (axes of `t`) as its last
    two indices; None when it reads none so."""
    for node in walk(t.op.body):  # type: ignore[attr-defined]
        if isinstance(node, Read) and len(node.indices) >= 2:
            *_, a, b = node.indices
            if a is second and b is last:
                return node.tensor
    return None


def transposed_operand(t: te.Tensor) -> te.Tensor | None:
    """The operand the product `t` reads transposed: indexed [..., column, k] (dense's weight
    [n, k], batch_matmul's y with transpose_b); None when there is none (or `t` is not a
    sum over one axis)."""
    reduce_axes = t.op.reduce_axis  # type: ignore[attr-defined]
    if len(reduce_axes) != 1:
        return None
    return read_with_last(t, t.op.axis[-1], reduce_axes[0])  # type: ignore[attr-defined]


def transposed_rows(t: te.Tensor) -> te.Tensor | None:
    """The operand the product `t` reads with its rows last: indexed [..., k, row]
    (batch_matmul's x with transpose_a); None when there is none."""
    reduce_axes = t.op.reduce_axis  # type: ignore[attr-defined]
    axes = t.op.axis  # type: ignore[attr-defined]
    if len(reduce_axes) != 1 or len(axes) < 2:
        return None
    return read_with_last(t, reduce_axes[0], axes[-2])


def packs_transposed(t: te.Tensor, batched: int) -> bool:
    """Whether the default schedule of the product `t` copies its transposed operand
    (`transposed_operand`) into panels of [k, columns] and vectorizes columns: when it has
    PACK_MIN_ROWS rows or more, a vector of columns, and whole column tiles. Unpacked, the
    tile vectorizes k and each output ends in a horizontal sum: attention's 12 x 128 x 64 x
    128 scores ran at 97 GFLOP/s on one Zen 5 core, packed at 230 (86 % of its FMA peak),
    the copy included. A guarded column tile (77 columns by 32) does not vectorize: 10
    GFLOP/s packed, 98 not (the templates' `pack` knob offers it with whole tiles, 7 or 11)."""
    if column_contiguous(t) or transposed_operand(t) is None:
        return False
    *lead, column = t.op.axis  # type: ignore[attr-defined]
    rows = math.prod(extent(a) for a in lead[batched:])
    columns = extent(column)
    tile = tile_factor(columns, COLUMN_TILE)
    whole = tile is None or columns % tile == 0
    return rows >= PACK_MIN_ROWS and columns >= VECTOR_LANES and whole


def transpose_operand(s: te.Schedule, t: te.Tensor) -> te.Tensor | None:
    """Make the product `t` read its transposed operand from a transposing copy
    (`Schedule.transpose_read`), its columns then contiguous; the copy's tensor, or None when
    `t` reads no operand transposed."""
    operand = transposed_operand(t)
    return None if operand is None else s.transpose_read(operand, [t])


def schedule_panels(outer: te.Stage, panels: te.Tensor, at: IterVar | None) -> None:
    """Schedule the transposing copy `panels` of a product's operand: computed at the loop of
    a column block `at` (its buffer then one panel, k by the tile's columns), in
    TRANSPOSE_BLOCK squares when both axes divide into them (tir-vector-transpose reads each
    as rows and transposes it in registers), else its columns vectorized; at the root (no
    such loop) as any transposing copy."""
    s = outer.schedule
    stage = s[panels]
    if at is None:
        cpu_injective(s, panels)
        return
    stage.compute_at(outer, at)
    *lead, k, column = panels.op.axis  # type: ignore[attr-defined]
    if extent(k) % TRANSPOSE_BLOCK:
        stage.vectorize(column)
        return
    k_outer, k_inner = stage.split(k, factor=TRANSPOSE_BLOCK)
    column_outer, column_inner = stage.split(column, factor=TRANSPOSE_BLOCK)
    stage.reorder(*lead, column_outer, k_outer, k_inner, column_inner)
    stage.vectorize(column_inner)


def column_operand(stage: te.Stage) -> te.Tensor | None:
    """The tensor the product `stage` reads along its column axis (matmul's b [k, n])."""
    column = stage.op.axis[-1]  # type: ignore[union-attr]
    for node in walk(stage.op.body):  # type: ignore[union-attr]
        if isinstance(node, Read) and node.indices and node.indices[-1] is column:
            return node.tensor
    return None


def tile_product(
    outer: te.Stage,
    inner: te.Stage,
    batched: int,
    rows: int,
    columns: int,
    vector_k: bool,
    columns_first: bool = False,
    k_tile: int | None = None,
    split: Splitter = split_inner,
    pack: bool = False,
    panels: te.Tensor | None = None,
) -> None:
    """Tile `outer`'s (batch, rows, column) loops by `rows` x `columns`, compute `inner` (the
    product's reduction) at the tile; vectorize columns, or k when `vector_k`. The blocks of
    rows and of columns are fused into one parallel loop, column blocks outermost when
    `columns_first`, else the columns stay a serial loop inside. k is split by `k_tile`
    (default VECTOR_LANES when `vector_k`, else K_UNROLL). `split` makes each split (by
    default `split_inner`; the matmul template's `split_exact` takes its sizes as given).
    `pack` (columns vectorized): column blocks outermost and parallel, row blocks a serial
    loop inside, and the panel of the column operand a column block reads (k by `columns`)
    copied into a contiguous buffer once per block (`packs_weight`). `panels` (implies
    `pack`): the transposing copy of the column operand (`transpose_operand`), which is that
    buffer when computed at the block (`schedule_panels`)."""
    *lead, column = outer.op.axis
    # Only the last row axis is split: the tile of a [1, 128, k] product must be 8 rows, and
    # bound inference gives the whole range of axes split after being fused (every tile
    # would compute all 128 rows). The other row axes join the batch.
    batch, row_axes = lead[:batched], lead[batched:]
    # Axes of one iteration go first, so that the others are adjacent to fuse.
    batch = sorted([*batch, *row_axes[:-1]], key=lambda axis: extent(axis) > 1)
    row = row_axes[-1] if row_axes else None
    row_outer, row_inner = split(outer, row, rows) if row is not None else (None, None)
    column_outer, column_inner = split(outer, column, columns)
    pack = pack or panels is not None
    packed = pack and not vector_k and row_outer is not None and column_outer is not None
    first = columns_first or packed
    blocks = (column_outer, row_outer) if first else (row_outer, column_outer)
    loops = [a for a in (*batch, *blocks) if a is not None]
    order = [*loops, *(a for a in (row_inner, column_inner) if a is not None)]
    outer.reorder(*order)
    serial = row_outer if packed else None if columns_first else column_outer
    panel = column_outer  # the loop of a column block
    parallel = fused(outer, [a for a in loops if a is not serial and extent(a) > 1])
    if parallel is not None:
        outer.parallel(parallel)
        loops = [parallel, *(a for a in (serial,) if a is not None)]
        panel = parallel
    elif column_outer is not None:
        outer.parallel(column_outer)
    outer.vectorize(column_inner)
    at_panel = packed and panel is not None and panel is not loops[-1] if loops else False
    if panels is not None:
        schedule_panels(outer, panels, panel if at_panel else None)
    if not loops:
        return
    inner.compute_at(outer, loops[-1])
    operand = column_operand(inner) if packed and panels is None else None
    if operand is not None and at_panel:
        copy = outer.schedule.cache_read(operand, "global", [inner.op])
        outer.schedule[copy].compute_at(outer, panel)
        outer.schedule[copy].vectorize(copy.op.axis[-1])  # type: ignore[attr-defined]
    *inner_lead, inner_column = inner.op.axis
    (k,) = inner.op.reduce_axis
    inner_batch, inner_rows = inner_lead[:batched], inner_lead[batched:]
    if vector_k:
        k_outer, k_inner = split(inner, k, k_tile or VECTOR_LANES)
        inner.reorder(
            *inner_batch,
            *(a for a in (k_outer,) if a is not None),
            *inner_rows,
            inner_column,
            k_inner,
        )
        for axis in (*inner_rows, inner_column):
            inner.unroll(axis)
        inner.vectorize(k_inner, reduction=True)  # a vector accumulator (not in TVM)
        return
    k_outer, k_inner = split(inner, k, k_tile or K_UNROLL)
    inner.reorder(
        *inner_batch, *(a for a in (k_outer,) if a is not None), *inner_rows, k_inner, inner_column
    )
    if k_outer is not None:
        inner.unroll(k_inner)
    inner.vectorize(inner_column)


def split_tile(
    stage: te.Stage,
    axes: tuple[IterVar, IterVar],
    preferred: tuple[int, int],
    tiles: ConvTiles | None,
) -> list[tuple[IterVar | None, IterVar]]:
    """Split the two axes of a register tile: by `split_inner` of the preferred sizes, or by
    exactly the first two of `tiles` (a tuned config)."""
    if tiles is None:
        return [split_inner(stage, a, p) for a, p in zip(axes, preferred, strict=True)]
    return [split_exact(stage, a, t) for a, t in zip(axes, tiles[:2], strict=True)]


def conv_reduction(inner: te.Stage, nhwc: bool, tiles: ConvTiles | None) -> list[IterVar]:
    """The reduce loops of a conv2d's register tile, outermost first: NCHW (rc, ry, rx), NHWC
    (ry, rx, rc) — input channels innermost: the tile walks one HWIO weight slab (a kernel
    position) at a time instead of all nine per channel, 8x fewer pages per step (TLB misses
    halved the speed of 512-channel layers). A tuned `rc_block` splits the input channels
    into blocks outside the kernel window (TVM's ic_chunk, kh, kw, ic_block), and
    `unroll_kw` moves the kernel columns inside the block, unrolled."""
    reduce_axes = list(inner.op.reduce_axis)
    if nhwc:
        reduce_axes.sort(key=lambda axis: axis.name == "rc")
    rc = next((a for a in reduce_axes if a.name == "rc"), None)
    if tiles is None or rc is None or extent(rc) <= 1 or not (tiles.rc_block or tiles.unroll_kw):
        return reduce_axes
    window = [a for a in reduce_axes if a is not rc]
    block_outer, block = split_exact(inner, rc, tiles.rc_block or extent(rc))
    rx = window[-1] if tiles.unroll_kw and window else None
    order = [
        *(a for a in (block_outer,) if a is not None),
        *(a for a in window if a is not rx),
        block,
        *(a for a in (rx,) if a is not None),
    ]
    if rx is not None:
        inner.unroll(rx)
    return order


def padding_at_root(s: te.Schedule, stage: te.Stage) -> None:
    """A pad stage inlined into `stage` is computed on its own (parallel, vectorized) instead,
    so that the reduction's inner loop reads a plain buffer with no bounds select."""
    for tensor in stage.reads:
        producer = s[tensor] if isinstance(tensor.op, ComputeOp) else None
        if producer is not None and producer.attach == "inline" and "pad" in tensor.op.tag:
            producer.compute_root()
            cpu_injective(s, tensor)


def cpu_conv2d(s: te.Schedule, t: te.Tensor, tiles: ConvTiles | None = None) -> None:
    """conv2d: an output channels x output columns register tile (NCHW vectorizes columns,
    NHWC channels), the reduction cached in registers (`cache_write` or the fused elementwise
    tail's stage) and computed at the tile, reduce loops outside the tile; (batch, channel
    blocks, rows) fused and parallel. A padding stage is computed at root. `tiles` (channels
    within a group, or rows of a depthwise NCHW tile; columns; rows outside, NHWC) replaces the
    chosen tile (AutoTVM's conv2d templates): each axis split by exactly that factor; its
    `rows` add output rows to the tile (unrolled) and `rc_block` / `unroll_kw` reorder the
    reduction (`conv_reduction`)."""
    if s[t].scheduled:
        return
    tag = t.op.tag  # type: ignore[attr-defined]
    if not tag.endswith(("conv2d_nchw", "conv2d_nhwc")):
        cpu_default(s, t)
        return
    if not reads_padding_inline(t):
        padding_at_root(s, s[t])
    outer, inner = register_tiled(s, t)
    depthwise, plane, plane_outer = False, None, None
    row_tile: IterVar | None = None  # output rows in the tile (ConvTiles.rows)
    if tag.endswith("nchw"):
        n, f, y, x = outer.op.axis
        per_group_out = t.op.attrs.get("per_group_out", extent(f))  # type: ignore[attr-defined]
        depthwise = per_group_out == 1 and "depthwise" in tag
        if depthwise:
            # One output channel per input channel: the tile is a block of output rows by a
            # vector of columns (independent accumulators, one weight broadcast per step).
            (y_outer, y_inner), (x_outer, x_inner) = split_tile(
                outer, (y, x), (DEPTHWISE_ROW_TILE, CONV_COLUMN_TILE), tiles
            )
            loops = [n, f, y_outer, x_outer]
            tile, vector = y_inner, x_inner
            last_parallel = y_outer if y_outer is not None else f
        elif (tiles.plane and whole_plane(t)) if tiles else plane_tile(t, per_group_out):
            # A 1x1 conv2d on a plane narrower than a vector (7x7): the tile is a few output
            # channels by the whole plane, one vector of H*W contiguous elements per channel.
            group = None
            if per_group_out < extent(f):
                group, f = outer.split(f, factor=per_group_out)
            channels = tiles.channels if tiles else plane_rows(per_group_out)
            f_outer, f_inner = outer.split(f, factor=channels)
            plane_outer, plane = split_inner(outer, outer.fuse(y, x), VECTOR_LANES)
            loops = [n, group, f_outer]
            tile, vector, last_parallel = f_inner, plane, f_outer
        else:
            group, rows = None, CONV_CHANNEL_TILE
            if per_group_out < extent(f):
                # A grouped conv2d: channel tiles within a group, so that all rows of a tile
                # read the same input channel (one load per step, shared by the tile's rows).
                group, f = outer.split(f, factor=per_group_out)
                rows = group_row_tile(per_group_out)
            (f_outer, f_inner), (x_outer, x_inner) = split_tile(
                outer, (f, x), (rows, CONV_COLUMN_TILE), tiles
            )
            y, row_tile = split_rows(outer, y, tiles)
            loops = [n, group, f_outer, y, x_outer]
            tile, vector, last_parallel = f_inner, x_inner, y
    else:
        n, y, x, f = outer.op.axis
        if tiles is None:
            x_outer, x_inner = nhwc_tile(outer, x, NHWC_COLUMNS)
            f_outer, f_inner = nhwc_tile(outer, f, NHWC_CHANNELS)
        else:
            x_outer, x_inner = split_exact(outer, x, tiles[1])
            f_outer, f_inner = split_exact(outer, f, tiles[0])
        # Channel blocks outside rows: a block's weights stay in cache while the rows pass;
        # rows outside when the input is the larger operand and outgrows the cache, so that
        # a row's input stays in cache while the channel blocks pass.
        outside = rows_outside(t) if tiles is None else tiles[2]
        y, row_tile = split_rows(outer, y, tiles)
        loops = [n, y, f_outer, x_outer] if outside else [n, f_outer, y, x_outer]
        tile, vector, last_parallel = x_inner, f_inner, y
    nhwc = tag.endswith("nhwc")
    loops = [a for a in loops if a is not None]
    if row_tile is not None:  # NCHW: channels, rows, vector of columns; NHWC: rows, columns, vector
        tile_axes = [row_tile, tile] if nhwc else [tile, row_tile]
    else:
        tile_axes = [a for a in (plane_outer, tile) if a is not None]
    outer.reorder(*loops, *tile_axes, vector)
    head = loops[: loops.index(last_parallel) + 1]  # fused and parallel
    parallel = fused(outer, head)
    assert parallel is not None
    outer.parallel(parallel)
    outer.vectorize(vector)
    rest = loops[len(head) :]
    scope = rest[-1] if rest else parallel
    inner.compute_at(outer, scope)
    if not nhwc and vector is plane:
        # Vectors of the plane outside the reduction, so that loop partition cuts off the
        # last, partial one; channels unrolled inside: one accumulator register each.
        n_c, f_c, y_c, x_c = inner.op.axis
        inner.reorder(n_c, f_c, y_c, x_c)
        chunk, lanes = split_inner(inner, inner.fuse(y_c, x_c), VECTOR_LANES)
        inner.reorder(
            n_c, *(a for a in (chunk,) if a is not None), *inner.op.reduce_axis, f_c, lanes
        )
        if chunk is not None:
            inner.unroll(chunk)  # constant offsets: the accumulators stay in registers
        inner.unroll(f_c)
        inner.vectorize(lanes)
        return
    if not nhwc:
        n_c, f_c, y_c, x_c = inner.op.axis
        inner_tile, inner_vector = (y_c, x_c) if depthwise else (f_c, x_c)
        spatial = [n_c, f_c] if depthwise else [n_c, y_c]
    else:
        n_c, y_c, x_c, f_c = inner.op.axis
        inner_tile, inner_vector = x_c, f_c
        spatial = [n_c, y_c]
    inner_tiles = [inner_tile]
    if row_tile is not None:
        spatial = [n_c]
        inner_tiles = [y_c, inner_tile] if nhwc else [inner_tile, y_c]
    reduce_axes = conv_reduction(inner, nhwc, tiles)
    inner.reorder(*spatial, *reduce_axes, *inner_tiles, inner_vector)
    for axis in inner_tiles:
        inner.unroll(axis)
    inner.vectorize(inner_vector)


def split_rows(
    stage: te.Stage, y: IterVar, tiles: ConvTiles | None
) -> tuple[IterVar, IterVar | None]:
    """(row blocks, rows of the tile) of a conv2d's output rows split by a tuned `rows`;
    (y, None) when the tile has one row."""
    if tiles is None or tiles.rows <= 1 or tiles.rows >= extent(y):
        return y, None
    return stage.split(y, factor=tiles.rows)


def whole_plane(conv: te.Tensor) -> bool:
    """Whether an NCHW conv2d is 1x1, stride 1, unpadded, on a plane narrower than a vector
    whose H*W fit one vectorized loop (MAX_VECTOR_EXTENT): its rows are then one contiguous
    run in both input and output, and a tile of whole planes fills vectors (ShuffleNet's 7x7
    stage: 7-lane rows ran at half speed, a 49-lane plane is three full vectors and one
    lane)."""
    workload = conv.op.attrs.get("workload")  # type: ignore[attr-defined]
    if workload is None or workload[7] != "NCHW":
        return False
    _, _, height, width = (int(d) for d in conv.shape)  # type: ignore[arg-type]
    unit = all(extent(a) == 1 for a in conv.op.reduce_axis if a.var.name != "rc")  # type: ignore[attr-defined]
    return (
        unit
        and tuple(workload[3]) == (1, 1)
        and not any(workload[4])
        and 1 < height
        and width < VECTOR_LANES
        and height * width <= MAX_VECTOR_EXTENT
    )


def plane_tile(conv: te.Tensor, per_group_out: int) -> bool:
    """Whether the default schedule of an NCHW conv2d (not depthwise) is a tile of whole
    planes: a 1x1 conv2d on a narrow plane (`whole_plane`) with at least 4 channels a tile."""
    return whole_plane(conv) and plane_rows(per_group_out) >= 4


def plane_rows(per_group_out: int) -> int:
    """Output channels of a whole-plane tile, one accumulator register each: the most up to
    12 that divide the channels per group (a tile of fewer than 4 leaves the FMA units
    waiting: such a conv2d keeps the row tile)."""
    return next(r for r in range(12, 0, -1) if per_group_out % r == 0)


def group_row_tile(per_group_out: int) -> int:
    """Rows of a grouped NCHW conv2d's tile: the first of GROUP_ROW_TILES that divides the
    channels per group, else CONV_CHANNEL_TILE (guarded)."""
    return next((r for r in GROUP_ROW_TILES if per_group_out % r == 0), CONV_CHANNEL_TILE)


def reads_padding_inline(conv: te.Tensor) -> bool:
    """Whether a conv2d reads its padding inline instead of from a padded copy: an NHWC
    depthwise one. It is bound by memory, not arithmetic (one product per input load), and
    the copy triples its traffic (MobileNetV2's 112x112x96 stride-2 layer: 148 us with the
    copy, 62 us without; 56x56x144 stride 1: 92 -> 61 us). Its compute clamps the reads
    (`topi.nn.pad(clamped=True)`): a select per load, one copy of the loop nest, where a
    branch per load made tir-loop-partition grow the kernel's code 2-6x."""
    return conv.op.tag.endswith("depthwise_conv2d_nhwc")  # type: ignore[attr-defined]


def rows_outside(conv: te.Tensor) -> bool:
    """Whether an NHWC conv2d's input (read with the batch axis) is larger than its weights
    and than ROWS_OUTSIDE_BYTES (224x224x64 and 56x56x256 layers; not 28x28x512, whose
    weights are the larger)."""
    batch = conv.op.axis[0]  # type: ignore[attr-defined]
    reads = [n for n in walk(conv.op.body) if isinstance(n, Read)]  # type: ignore[attr-defined]
    data = next((r for r in reads if r.indices and r.indices[0] is batch), None)
    if data is None:
        return False
    weights = math.prod(extent(a) for a in conv.op.reduce_axis) * extent(conv.op.axis[-1])  # type: ignore[attr-defined]
    size = math.prod(int(d) for d in data.tensor.shape)  # type: ignore[arg-type]
    return size > weights and 4 * size > ROWS_OUTSIDE_BYTES


def reader(s: te.Schedule, t: te.Tensor) -> te.Stage:
    """The stage reading `t` (one of a chain of single-use stages)."""
    return next(stage for stage in s.stages if any(r is t for r in stage.reads))


def stage_named(s: te.Schedule, reads: list[te.Tensor], prefix: str) -> te.Stage:
    """The stage of the computed tensor among `reads` whose name starts with `prefix`."""
    return next(s[r] for r in reads if isinstance(r.op, ComputeOp) and r.op.name.startswith(prefix))


class WinogradTiles(NamedTuple):
    """A tuned register tile of a winograd conv2d's batched product (AutoTVM's
    `conv2d_winograd_nhwc.llvm`); `columns_outside` defaults to the default schedule's order."""

    rows: int  # rows (input tiles) of the register tile
    columns: int  # output channels of the register tile
    unroll: int  # reduction steps unrolled
    columns_outside: bool = False  # channel blocks outside row blocks, both parallel
    unroll_input: bool = False  # input transform unrolled over alpha, B's entries folded
    unroll_output: bool = False  # output transform unrolled over alpha, A's entries folded
    block: int = 0  # tiles whose input transform is computed per product block (0: all first)


def cpu_conv2d_winograd(s: te.Schedule, t: te.Tensor, tiles: WinogradTiles | None = None) -> None:
    """Winograd conv2d (`topi.winograd`), scheduled whole when its product stage comes
    (`tiles` replaces the product's register tile: AutoTVM's `conv2d_winograd_nhwc.llvm`):

    - the constant matrices and the padded input computed first, on their own;
    - the input transform parallel over tiles, channels vectorized, its first half computed
      per tile and channel vector;
    - the alpha^2 products as a batched matrix product: a ROWS x COLUMNS register tile,
      (position, row blocks) fused and parallel, the reduction unrolled by K_UNROLL;
    - the output transform as a register tile of the output (or its fused elementwise
      tail): an m x m tile of one channel vector, its first half computed per tile.

    The tuned knobs beyond the product's tile (all off by default) reach the transforms, most
    of a large layer's time (224x224x64: the input transform alone 4.2 of 12.2 ms):
    `unroll_input` / `unroll_output` unroll a transform over its alpha positions with the
    matrix stage inlined, so its entries fold to constants (B's and A's zeros drop out), and
    `block` computes the input transform per block of that many tiles, outermost in the
    product, so the transformed tiles stay in cache instead of going through memory (at the
    cost of reading the weights once a block: a win where the tiles outweigh them).
    """
    if t.op.tag != winograd.PRODUCT_TAG:  # type: ignore[attr-defined]
        return  # the product's schedule covers the op's other stages
    product = s[t]
    tiles_v = stage_named(s, product.reads, "winograd_input")
    half = stage_named(s, tiles_v.reads, "winograd_rows")
    padded = stage_named(s, half.reads, "winograd_pad")
    columns = reader(s, t)
    output = reader(s, columns.tensor)
    rows, columns_tile, unroll, columns_outside, fold_in, fold_out, block = tiles or WinogradTiles(
        winograd.ROWS, winograd.COLUMNS, winograd.K_UNROLL
    )
    folded = [*(half.reads if fold_in else []), *(columns.reads + output.reads if fold_out else [])]
    folded = [f for f in folded if s[f].op.tag == winograd.MATRIX_TAG]  # type: ignore[attr-defined]
    for stage in (*(s[r] for r in half.reads + columns.reads + output.reads), padded):
        if any(stage.tensor is f for f in folded):
            stage.compute_inline()
        elif stage.op.tag == winograd.MATRIX_TAG or stage is padded:  # type: ignore[attr-defined]
            stage.compute_root()
    cpu_injective(s, padded.tensor)

    if not block:
        tiles_v.compute_root()
    nu, mu, r, c = tiles_v.op.axis
    c_outer, c_inner = split_inner(tiles_v, c, winograd.LANES)
    tile = [r, *(a for a in (c_outer,) if a is not None)]
    tiles_v.reorder(*tile, nu, mu, c_inner)
    if not block:
        tiles_v.parallel(r)
    tiles_v.vectorize(c_inner)
    half.compute_at(tiles_v, tile[-1])
    half.vectorize(half.op.axis[-1])
    if fold_in:
        tiles_v.unroll(nu)
        tiles_v.unroll(mu)
        half.unroll(half.op.axis[1])
        half.unroll(half.op.axis[2])

    local = s[s.cache_write(t, "local")]
    nu, mu, r, k = product.op.axis
    r_outer, r_inner = product.split(r, factor=rows)
    blocks = []
    if block:
        r_block, r_outer = product.split(r_outer, factor=max(1, block // rows))
        blocks = [r_block]
    split = split_inner if tiles is None else split_exact
    k_outer, k_inner = split(product, k, columns_tile)
    loops = [a for a in (k_outer,) if a is not None]
    if columns_outside and loops:
        # Each block of a position's weights stays in cache while the row blocks pass.
        product.reorder(*blocks, nu, mu, *loops, r_outer, r_inner, k_inner)
        loops = [product.fuse(nu, mu, *loops, r_outer)]
        parallel = loops[0]
    else:
        product.reorder(*blocks, nu, mu, r_outer, *loops, r_inner, k_inner)
        parallel = product.fuse(nu, mu, r_outer)
    if blocks:
        product.parallel(blocks[0])
        tiles_v.compute_at(product, blocks[0])
    else:
        product.parallel(parallel)
    product.vectorize(k_inner)
    local.compute_at(product, loops[-1] if loops else parallel)
    *_, local_r, local_k = local.op.axis
    (rc,) = local.op.reduce_axis
    rc_outer, rc_inner = split(local, rc, unroll)
    local.reorder(*(a for a in (rc_outer,) if a is not None), local_r, rc_inner, local_k)
    local.unroll(rc_inner)
    local.vectorize(local_k)

    tile_size = int(t.op.attrs["tile_size"])  # type: ignore[attr-defined]
    outer = epilogue_stage(s, output.tensor) if output.attach == "inline" else output
    if outer is None:  # a tail that is not elementwise: the output transform stays inlined
        columns.compute_root()
        cpu_injective(s, columns.tensor)
        return
    n, y, x, f = outer.op.axis
    y_outer, y_inner = outer.split(y, factor=tile_size)
    x_outer, x_inner = outer.split(x, factor=tile_size)
    f_outer, f_inner = split_inner(outer, f, winograd.LANES)
    tile = [n, y_outer, x_outer, *(a for a in (f_outer,) if a is not None)]
    outer.reorder(*tile, y_inner, x_inner, f_inner)
    outer.parallel(outer.fuse(n, y_outer))
    outer.unroll(y_inner)
    outer.unroll(x_inner)
    outer.vectorize(f_inner)
    columns.compute_at(outer, tile[-1])
    columns.vectorize(columns.op.axis[-1])
    if fold_out:
        columns.unroll(columns.op.axis[1])
        columns.unroll(columns.op.axis[2])


def no_schedule(s: te.Schedule, t: te.Tensor) -> None:
    """The generic target: plain loop nests."""


TARGETS = ("llvm", "cuda", "generic")
DEFAULT: dict[str, ScheduleFn] = {"llvm": cpu_default, "cuda": cuda_default, "generic": no_schedule}
DENSE: dict[str, ScheduleFn] = {**DEFAULT, "llvm": cpu_dense, "cuda": cuda_dense}
CONV2D: dict[str, ScheduleFn] = {**DEFAULT, "llvm": cpu_conv2d, "cuda": cuda_conv2d}
LAYER_NORM: dict[str, ScheduleFn] = {**DEFAULT, "llvm": cpu_layer_norm}
WINOGRAD: dict[str, ScheduleFn] = {**DEFAULT, "llvm": cpu_conv2d_winograd}
