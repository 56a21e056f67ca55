"""`relay-alter-dense-layout`: give the constant weight of a many-row product the CPU tile's layout.

The CPU schedule of a product (`cpu_dense`) has two tiles: for a weight read along its columns
(`nn.matmul`'s b [k, n]) an 8-row by 32-column register tile with the columns vectorized,
which reaches several times the speed of the tile for a weight read along k (`nn.dense`'s
[n, k], k vectorized into lane sums: the right one for a single row, a matrix-vector product).
A product of at least ROW_TILE rows (`nn.Linear` on a sequence, an ONNX Gemm with transB on a
batch) becomes an `nn.matmul` on the weight transposed here, once.

Columns that no half tile divides (GPT-2's 50257 words) make every column block a vector of 17
lanes and a guarded scalar tail: the weight is padded with zero columns to whole tiles and a
`relay.strided_slice` after the product drops them again (768 x 50257 at 64 rows: 925 to 65 ms).
A weight whose rows are whole 4 KB pages (1024, 3072, 4096 columns) gets one tile of zero
columns more, so that successive rows of a column panel do not share their L1 cache sets.

A constant weight of at least 1 MB read by this product alone is packed instead, as
[n / 32, k, 32] column panels (`alter_packed`, TVM's dense_pack layout): the product becomes
an `nn.batch_matmul` of the rows by the panels and a transpose back, fused with what follows.
Each panel is then one contiguous run of memory rather than a slice of every weight row.

Only constant weights change (transposed and padded at compile time); products of fewer rows
(the CNN classifiers' one) and batched products stay as they are. A weight that is a transpose
of a constant (GPT-2's vocabulary projection by its token embedding), which relay-fold-constant
leaves here with `keep_weight_transposes`, is laid out (or, for those products, folded) from
the constant directly; a padded weight is written straight into the constant's bytes, and the
replaced constant's bytes go at once, so a 154 MB weight is never held three times.

A tied weight is kept once: when the only other readers of the product's constant are row
gathers (GPT-2's token embedding), they read the laid-out weight instead (a column of it, in
the real columns), and the constant goes. GPT-2 small's library: 651 to 496 MB; its gather
reads 64 strided columns instead of 64 rows (about 0.2-0.4 ms more of a run of 100+ ms).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from xtvm.dialects import relay
from xtvm.dialects.relay import static_shape
from xtvm.passes.external_functions import host_functions
from xtvm.passes.relay_infer_types import infer_op
from xtvm.topi.schedule import COLUMN_TILE, ROW_TILE, WEIGHT_STREAM_BYTES

PAGE_COLUMNS = 4096 // 4  # f32 columns in a 4 KB page


def weight_transpose(op: Operation) -> bool:
    """Whether `op` swaps the axes of a constant matrix read only as the weight of products:
    relay-fold-constant (`keep_weight_transposes`) leaves it to this pass, which lays the
    weight out from the constant itself (GPT-2's vocabulary projection reads its token
    embedding transposed: no 154 MB transposed copy beside the padded one)."""
    if not isinstance(op, relay.TransposeOp) or not isinstance(op.data.owner, relay.ConstOp):
        return False
    if len(static_shape(op.data)) != 2:
        return False
    perm = relay.TransposeOp.permutation(relay.TransposeOp.props(op.properties), 2)
    return tuple(perm) == (1, 0) and all(
        isinstance(use.operation, relay.DenseOp | relay.MatmulOp)
        and use.index == 1
        and not isinstance(use.operation.operands[0].owner, relay.ConstOp)  # else it folds
        for use in op.result.uses
    )


def weight_array(op: relay.DenseOp | relay.MatmulOp) -> np.ndarray | None:
    """The weight of `op` as stored (read, never written): a constant, or a transposed view of
    the constant a `weight_transpose` reads; None otherwise."""
    owner = op.operands[1].owner
    if isinstance(owner, relay.ConstOp):
        return relay.numpy_from_dense(owner.value, copy=False)
    if weight_transpose(owner):
        assert isinstance(owner, relay.TransposeOp) and isinstance(owner.data.owner, relay.ConstOp)
        return relay.numpy_from_dense(owner.data.owner.value, copy=False).T
    return None


def constant_weight(op: relay.DenseOp | relay.MatmulOp) -> np.ndarray | None:
    """The weight of a many-row product as a [k, n] array, or None when it is not constant or
    the product has fewer than ROW_TILE rows (or a transposed a)."""
    if isinstance(op, relay.MatmulOp) and op.transpose_a.value.data:
        return None
    array = weight_array(op)
    if array is None or math.prod(static_shape(op.operands[0])[:-1]) < ROW_TILE:
        return None
    transposed = isinstance(op, relay.DenseOp) or op.transpose_b.value.data
    return array.T if transposed else array


def padded_columns(columns: int) -> int:
    """`columns` rounded up to whole COLUMN_TILEs when no half tile divides them (the schedule
    splits evenly by COLUMN_TILE or its half), and one COLUMN_TILE more when a weight row is a
    whole number of pages (PAGE_COLUMNS): the tile's loads at successive k would all fall in
    the same few L1 sets, so the column panel never stays in L1 (128 rows by 512 x 1024 or
    768 x 3072 ran at 0.6-0.75 of the speed of 1056 or 3104 columns; at most 3 % more work)."""
    if columns > COLUMN_TILE and columns % (COLUMN_TILE // 2) != 0:
        columns = -(-columns // COLUMN_TILE) * COLUMN_TILE
    if columns % PAGE_COLUMNS == 0:
        columns += COLUMN_TILE
    return columns


def packs(op: relay.DenseOp | relay.MatmulOp, weight: np.ndarray, pack_bytes: int) -> bool:
    """Whether `op` reads its weight as column panels packed at compile time (`alter_packed`):
    a constant read by this product alone (not a tied or transposed one: GPT-2's vocabulary
    weight keeps its row-major layout for the gathers), of at least `pack_bytes`. Packed,
    512 x 512 weights (1 MB: a small Llama's output projection) ran 21 % faster in a chain
    of 16 at 128 rows, read from L3; weights of 0.5 MB gained nothing. Rows that outgrow L2
    are read again from L3 for each panel, and still gain: BERT's 3072 x 768 at 128 rows
    (1.5 MB of rows) 2.90 -> 2.57 ms, 768 x 3072 / 3072 x 768 at 512 rows 11.0 / 10.9 ->
    10.2 / 10.0 ms."""
    owner = op.operands[1].owner
    if not isinstance(owner, relay.ConstOp) or not owner.result.has_one_use():
        return False
    return weight.nbytes >= pack_bytes


def alter_packed(op: relay.DenseOp | relay.MatmulOp, weight: np.ndarray) -> None:
    """Replace `op` by a product on the [k, n] `weight` packed as [n / COLUMN_TILE, k,
    COLUMN_TILE] (zero columns added to whole panels): an `nn.batch_matmul` of the rows as one
    batch by the panels, each panel's output rows moved back in place by a transpose (fused
    with what follows the product) and a reshape, then a slice of the real columns.

    Row-major, a panel's k steps are a whole weight row apart (2 to 12 KB), every step on
    another page, which the hardware prefetcher does not follow: a weight read from memory
    (a model's weights outgrow L3, and each is read once a run) stalled the first row block
    of every panel. Packed, each panel is one contiguous run. A chain of 8 layers of
    products at 128 rows, 1 thread, weights from memory: 512 x 1408 / 1408 x 512 (a small
    Llama's MLP) 0.78 / 0.85 -> 0.78 / 0.77 ms, 768 x 3072 / 3072 x 768 (BERT's) 2.69 / 2.90
    -> 2.64 / 2.57 ms, 512 x 1024 / 1024 x 512 0.61 / 0.62 -> 0.58 / 0.57 ms (each with its
    slice or transpose)."""
    k, columns = weight.shape
    padded = -(-columns // COLUMN_TILE) * COLUMN_TILE
    panels = padded // COLUMN_TILE

    def fill(out: np.ndarray) -> None:  # a panel at a time: no temporary copy of the weight
        for panel in range(panels):
            part = weight[:, panel * COLUMN_TILE : (panel + 1) * COLUMN_TILE]
            out[panel, :, : part.shape[1]] = part
            out[panel, :, part.shape[1] :] = 0

    old = op.operands[1].owner
    const = relay.ConstOp(relay.filled_bytes((panels, k, COLUMN_TILE), weight.dtype, fill))
    Rewriter.insert_op(const, InsertPoint.before(op))
    shape = static_shape(op.operands[0])
    lead = list(shape[:-1])
    rows = emit(relay.ReshapeOp(op.operands[0], newshape=[1, math.prod(lead), k]), op)
    product = emit(relay.BatchMatmulOp(rows, const.result, transpose_b=False), op)
    in_place = emit(relay.TransposeOp(product, axes=[1, 0, 2]), op)
    result = emit(relay.ReshapeOp(in_place, newshape=[*lead, padded]), op)
    if padded > columns:
        result = emit(relay.StridedSliceOp(result, [0], [columns], axes=[len(lead)]), op)
    op.results[0].replace_all_uses_with(result)
    Rewriter.erase_op(op)
    release(old)


def alter(op: relay.DenseOp | relay.MatmulOp, weight: np.ndarray) -> None:
    """Replace `op` by an `nn.matmul` of its data and the [k, n] `weight` padded to whole
    tiles, followed by a slice of the real columns when padded."""
    columns = weight.shape[1]
    padded = padded_columns(columns)
    unchanged = isinstance(op, relay.MatmulOp) and not op.transpose_b.value.data
    if unchanged and padded == columns and isinstance(op.operands[1].owner, relay.ConstOp):
        return
    old = op.operands[1].owner
    read_transposed = isinstance(op, relay.DenseOp) or op.transpose_b.value.data
    # A transposed weight is laid out row-major by the constant's one copy of it; a padded one
    # is written straight into the constant's bytes (GPT-2's 154 MB vocabulary weight: not
    # also as an array to copy from).
    if padded == columns:
        const = relay.ConstOp(weight)
    else:

        def fill(out: np.ndarray) -> None:
            out[:, :columns] = weight
            out[:, columns:] = 0

        const = relay.ConstOp(relay.filled_bytes((weight.shape[0], padded), weight.dtype, fill))
    Rewriter.insert_op(const, InsertPoint.before(op))
    result = emit(relay.MatmulOp(op.operands[0], const.result), op)
    if padded > columns:
        rank = len(static_shape(result))
        result = emit(relay.StridedSliceOp(result, [0], [columns], axes=[rank - 1]), op)
    op.results[0].replace_all_uses_with(result)
    Rewriter.erase_op(op)
    gather_from(old, const.result, columns, read_transposed)
    release(old)


def gather_from(
    old: Operation | None, laid_out: SSAValue, columns: int, read_transposed: bool
) -> None:
    """Let the row gathers (`take` on axis 0) of the constant matrix that the product's weight
    `old` read (the constant, or a `weight_transpose` of it) read its laid-out weight instead,
    so that the constant is freed: GPT-2's vocabulary projection is tied to its token
    embedding, which would otherwise stay beside its padded layout (154 MB twice).

    `laid_out` is [k, padded], the weight's `columns` first; `read_transposed` says whether
    the product read `old` as [n, k] (dense, or matmul with transpose_b). A gather reads the
    real columns (a strided_slice, inlined into the gather's kernel, so that `wrap` indices
    count from the real end), along axis 1 and transposed back when the constant's rows are
    the weight's columns. Nothing changes while the constant has other readers (it stays)."""
    if isinstance(old, relay.ConstOp):
        source, rows_are_columns = old, read_transposed
    elif isinstance(old, relay.TransposeOp) and isinstance(old.data.owner, relay.ConstOp):
        source, rows_are_columns = old.data.owner, not read_transposed
    else:
        return
    gathers = [use.operation for use in source.result.uses if use.operation is not old]
    if not gathers or not all(row_gather(g) for g in gathers):
        return
    # The laid-out constant was put before the product; the gathers may come earlier.
    const = laid_out.owner
    assert isinstance(const, relay.ConstOp)
    const.detach()
    Rewriter.insert_op(const, InsertPoint.before(source))
    for gather in gathers:
        assert isinstance(gather, relay.TakeOp)
        data = laid_out
        if static_shape(laid_out)[1] != columns:
            data = emit(relay.StridedSliceOp(laid_out, [0], [columns], axes=[1]), gather)
        axis = int(rows_are_columns)
        take = relay.TakeOp(data, gather.operands[1], axis=axis, mode=gather.mode.data)
        result = emit(take, gather)
        if rows_are_columns:  # [k, *indices] -> [*indices, k]
            rank = len(static_shape(result))
            result = emit(relay.TransposeOp(result, axes=[*range(1, rank), 0]), gather)
        gather.results[0].replace_all_uses_with(result)
        Rewriter.erase_op(gather)


def emit(op: Operation, before: Operation) -> SSAValue:
    """Insert `op` before `before`, infer its type; its result."""
    Rewriter.insert_op(op, InsertPoint.before(before))
    infer_op(op)
    return op.results[0]


def row_gather(op: Operation) -> bool:
    """Whether `op` gathers whole rows of a matrix (`take` along axis 0)."""
    if not isinstance(op, relay.TakeOp) or op.axis is None:
        return False
    return op.axis.value.data % 2 == 0


def release(op: Operation | None) -> None:
    """Erase the weight `op` (a constant, or a transpose and then its constant) if unused."""
    if isinstance(op, relay.TransposeOp) and not op.result.uses:
        source = op.data.owner
        Rewriter.erase_op(op)
        op = source
    if isinstance(op, relay.ConstOp) and not op.result.uses:
        relay.erase_constant(op)


def fold_transposed(op: relay.DenseOp | relay.MatmulOp, folded: dict[SSAValue, SSAValue]) -> None:
    """Give a product this pass leaves alone its transposed constant weight, computed once."""
    weight = op.operands[1]
    if not weight_transpose(weight.owner):
        return
    if weight not in folded:
        array = weight_array(op)
        assert array is not None
        const = relay.ConstOp(array)  # tobytes: one row-major copy
        Rewriter.insert_op(const, InsertPoint.before(weight.owner))  # type: ignore[arg-type]
        folded[weight] = const.result
    op.operands[1] = folded[weight]
    release(weight.owner)  # type: ignore[arg-type]


@dataclass(frozen=True)
class RelayAlterDenseLayoutPass(ModulePass):
    """Turn dense and matmul products of at least ROW_TILE rows by a constant weight into
    nn.matmul on the weight as [k, n], padded to whole column tiles.

    `relay.nn.dense %x, %w` (x 128x768, w const 3072x768) becomes `relay.nn.matmul %x, %wt`
    with %wt const 768x3072; n = 50257 becomes 50272 and a `relay.strided_slice` follows.
    A weight of at least `pack_bytes` is packed into column panels instead
    (`alter_packed`): x [128, 1408] by w [1408, 512] becomes a batch_matmul by a constant
    [16, 1408, 32].
    """

    name = "relay-alter-dense-layout"
    pack_bytes: int = WEIGHT_STREAM_BYTES

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for function in host_functions(op):
            products = [p for p in function.walk() if isinstance(p, relay.DenseOp | relay.MatmulOp)]
            folded: dict[SSAValue, SSAValue] = {}
            for product in products:
                weight = constant_weight(product)
                if weight is not None and packs(product, weight, self.pack_bytes):
                    alter_packed(product, weight)
                elif weight is not None:
                    alter(product, weight)
                else:
                    fold_transposed(product, folded)
                del weight  # a view of the replaced constant's bytes
