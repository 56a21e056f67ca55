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

Only constant weights change (transposed and padded at compile time); products of fewer rows
(the CNN classifiers' one) and batched products stay as they are.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp, TensorType
from xdsl.ir import SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from xtvm.dialects import relay
from xtvm.passes.external_functions import host_functions
from xtvm.passes.relay_infer_types import infer_op
from xtvm.topi.schedule import COLUMN_TILE, ROW_TILE


def shape_of(value: SSAValue) -> tuple[int, ...]:
    assert isinstance(value.type, TensorType)
    return tuple(value.type.get_shape())


def constant_weight(op: relay.DenseOp | relay.MatmulOp) -> np.ndarray | None:
    """The weight of a many-row product as a [k, n] array, or None when it is not constant or
    the product has fewer than ROW_TILE rows (or a transposed a)."""
    if isinstance(op, relay.MatmulOp) and op.transpose_a.value.data:
        return None
    data, weight = op.operands
    if not isinstance(weight.owner, relay.ConstOp) or math.prod(shape_of(data)[:-1]) < ROW_TILE:
        return None
    array = relay.numpy_from_dense(weight.owner.value, copy=False)  # read, never written
    transposed = isinstance(op, relay.DenseOp) or op.transpose_b.value.data
    return array.T if transposed else array


def padded_columns(columns: int) -> int:
    """`columns` rounded up to whole COLUMN_TILEs when no half tile divides them, else itself
    (the schedule splits evenly by COLUMN_TILE or its half)."""
    if columns <= COLUMN_TILE or columns % (COLUMN_TILE // 2) == 0:
        return columns
    return -(-columns // COLUMN_TILE) * COLUMN_TILE


def alter(op: relay.DenseOp | relay.MatmulOp, weight: np.ndarray) -> None:
    """Replace `op` by an `nn.matmul` of its data and the [k, n] `weight` padded to whole
    tiles, followed by a slice of the real columns when padded."""
    columns = weight.shape[1]
    padded = padded_columns(columns)
    unchanged = isinstance(op, relay.MatmulOp) and not op.transpose_b.value.data
    if unchanged and padded == columns:
        return
    old = op.operands[1].owner
    # A transposed weight is laid out row-major by the constant's one copy of it.
    padding = [(0, 0), (0, padded - columns)]
    const = relay.ConstOp(weight if padded == columns else np.pad(weight, padding))
    product = relay.MatmulOp(op.operands[0], const.result)
    Rewriter.insert_op(const, InsertPoint.before(op))
    Rewriter.insert_op(product, InsertPoint.before(op))
    infer_op(product)
    result = product.result
    if padded > columns:
        rank = len(shape_of(result))
        sliced = relay.StridedSliceOp(result, [0], [columns], axes=[rank - 1])
        Rewriter.insert_op(sliced, InsertPoint.before(op))
        infer_op(sliced)
        result = sliced.result
    op.results[0].replace_all_uses_with(result)
    Rewriter.erase_op(op)
    if isinstance(old, relay.ConstOp) and not old.result.uses:
        Rewriter.erase_op(old)


@dataclass(frozen=True)
class RelayAlterDenseLayoutPass(ModulePass):
    """Turn dense and matmul products of at least ROW_TILE rows by a constant weight into
    nn.matmul on the weight as [k, n], padded to whole column tiles.

    `relay.nn.dense %x, %w` (x 128x768, w const 3072x768) becomes `relay.nn.matmul %x, %wt`
    with %wt const 768x3072; n = 50257 becomes 50272 and a `relay.strided_slice` follows.
    """

    name = "relay-alter-dense-layout"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for function in host_functions(op):
            products = [p for p in function.walk() if isinstance(p, relay.DenseOp | relay.MatmulOp)]
            for product in products:
                weight = constant_weight(product)
                if weight is not None:
                    alter(product, weight)
