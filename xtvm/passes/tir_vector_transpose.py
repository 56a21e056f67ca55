"""`tir-vector-transpose`: a block of gathers becomes contiguous loads and a register transpose.

A transposing copy (NCHW -> NHWC, a transpose) that its schedule tiles into N x N blocks reads,
after `tir-vectorize`, one column of the block per step of a loop of N steps: a
`vector.transfer_read` of N lanes along an outer dimension of the buffer (a gather, each lane a
separate cache line), the loop stepping along the buffer's innermost dimension. Together the N
steps read N rows of N contiguous elements. This pass unrolls such a loop and reads the block as
what it is: N contiguous `vector.load`s, joined and shuffled into N columns with
`vector.shuffle` (the 8x8 transpose of MLAS's and TVM's transpose kernels; LLVM lowers it to
unpack/permute instructions). A 64 x 56 x 56 NCHW -> NHWC copy runs twice as fast.

A loop qualifies when its bounds are constants spanning N steps, its body has no regions (no
nested loops or branches) and no write to the buffer read, and the read's innermost index is the
loop variable plus a value that does not change in the loop (or the loop variable alone), every
other index not changing in it (defined outside, or computed inside by pure ops from values
defined outside: a block's start that a compute_at stage adds in its body). The buffer's
innermost dimension must be contiguous (an identity layout). Anything else is left as it is.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import arith, memref, vector
from xdsl.dialects.builtin import DenseArrayBase, MemRefType, ModuleOp, NoneAttr, VectorType, i64
from xdsl.ir import Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter
from xdsl.traits import Pure

from xtvm.dialects import tir
from xtvm.passes.tir_bounds import constant_value, index_constant

# Block sizes transposed in registers (rows of N lanes; N * N lanes in flight).
TRANSPOSE_LANES = (4, 8, 16)


def defined_inside(value: SSAValue, loop: tir.ForOp) -> bool:
    """Whether `value` is the loop's variable or defined by an op in its body."""
    owner = value.owner
    if value is loop.induction_variable:
        return True
    return isinstance(owner, Operation) and loop.is_ancestor(owner)


def varies(value: SSAValue, loop: tir.ForOp) -> bool:
    """Whether `value` may change from one step of the loop to the next: the loop variable,
    or a value defined in its body other than by a pure op of values that do not."""
    if not defined_inside(value, loop):
        return False
    owner = value.owner
    if value is loop.induction_variable or not isinstance(owner, Operation):
        return True
    if not owner.has_trait(Pure) or owner.regions:
        return True
    return any(varies(operand, loop) for operand in owner.operands)


def steps_with(value: SSAValue, loop: tir.ForOp) -> bool:
    """Whether `value` is the loop variable, or it plus a value that does not vary in it."""
    if value is loop.induction_variable:
        return True
    owner = value.owner
    if not isinstance(owner, arith.AddiOp):
        return False
    a, b = owner.lhs, owner.rhs
    return (a is loop.induction_variable and not varies(b, loop)) or (
        b is loop.induction_variable and not varies(a, loop)
    )


def written(loop: tir.ForOp) -> set[SSAValue]:
    """The buffers the loop's body stores into."""
    targets: set[SSAValue] = set()
    for op in loop.body.block.ops:
        if isinstance(op, memref.StoreOp):
            targets.add(op.memref)
        elif isinstance(op, vector.StoreOp | vector.MaskedStoreOp):
            targets.add(op.base)
        elif isinstance(op, vector.TransferWriteOp):
            targets.add(op.source)
    return targets


def block_reads(loop: tir.ForOp, steps: int) -> list[vector.TransferReadOp]:
    """The body's gathers that together read `steps` contiguous rows (see the module doc)."""
    stored = written(loop)
    found = []
    for op in loop.body.block.ops:
        if not isinstance(op, vector.TransferReadOp):
            continue
        dim, typ, source = tir.read_dimension(op), op.result.type, op.source.type
        if dim is None or not isinstance(typ, VectorType) or not isinstance(source, MemRefType):
            continue
        *outer, last = op.indices
        if (
            typ.get_shape() != (steps,)
            or dim == len(op.indices) - 1
            or not isinstance(source.layout, NoneAttr)
            or op.source in stored
            or not steps_with(last, loop)
            or any(varies(i, loop) for i in outer)
        ):
            continue
        found.append(op)
    return found


def shuffle(a: SSAValue, b: SSAValue, mask: list[int]) -> vector.ShuffleOp:
    """`vector.shuffle` of two 1-d vectors: lane `k` of the result is lane `mask[k]` of a ++ b."""
    assert isinstance(a.type, VectorType)
    result = VectorType(a.type.element_type, [len(mask)])
    return vector.ShuffleOp(a, b, DenseArrayBase.from_list(i64, mask), result_type=result)


def joined(rewriter: Rewriter, point: InsertPoint, rows: list[SSAValue]) -> SSAValue:
    """One vector of all `rows`, in order (pairs joined by shuffles, a balanced tree)."""
    while len(rows) > 1:
        pairs = []
        for a, b in zip(rows[::2], rows[1::2], strict=True):
            assert isinstance(a.type, VectorType)
            lanes = a.type.get_shape()[0] * 2
            pair = shuffle(a, b, list(range(lanes)))
            rewriter.insert_op(pair, point)
            pairs.append(pair.result)
        rows = pairs
    return rows[0]


def transpose_block(loop: tir.ForOp, reads: list[vector.TransferReadOp], steps: int) -> None:
    """Unroll `loop` and give each read's copies the columns of one transposed block."""
    lower = constant_value(loop.lower_bound)
    assert lower is not None
    rewriter = Rewriter()
    body = [op for op in loop.body.block.ops if not isinstance(op, tir.YieldOp)]
    copies: dict[Operation, list[Operation]] = {op: [] for op in reads}
    for step in range(steps):
        constant = index_constant(lower + step)
        rewriter.insert_op(constant, InsertPoint.before(loop))
        mapping: dict[SSAValue, SSAValue] = {loop.induction_variable: constant.result}
        for op in body:
            clone = op.clone(value_mapper=mapping)
            rewriter.insert_op(clone, InsertPoint.before(loop))
            if op in copies:
                copies[op].append(clone)
    for clones in copies.values():
        first = clones[0]
        assert isinstance(first, vector.TransferReadOp)
        point = InsertPoint.before(first)
        dim = tir.read_dimension(first)
        assert dim is not None
        rows: list[SSAValue] = []
        for row in range(steps):
            indices = list(first.indices)
            if row:
                offset = index_constant(row)
                moved = arith.AddiOp(indices[dim], offset.result)
                rewriter.insert_op([offset, moved], point)
                indices[dim] = moved.result
            load = vector.LoadOp(first.source, indices, first.result.type)
            rewriter.insert_op(load, point)
            rows.append(load.result)
        block = joined(rewriter, point, rows)
        for column, clone in enumerate(clones):
            mask = [row * steps + column for row in range(steps)]
            pick = shuffle(block, block, mask)
            rewriter.insert_op(pick, InsertPoint.before(clone))
            clone.results[0].replace_all_uses_with(pick.result)
            rewriter.erase_op(clone)
    rewriter.erase_op(loop)


def transpose_loop(loop: tir.ForOp) -> None:
    lower, upper = constant_value(loop.lower_bound), constant_value(loop.upper_bound)
    if lower is None or upper is None or upper - lower not in TRANSPOSE_LANES:
        return
    if loop.kind.data == "parallel" or any(op.regions for op in loop.body.block.ops):
        return
    reads = block_reads(loop, upper - lower)
    if reads:
        transpose_block(loop, reads, upper - lower)


@dataclass(frozen=True)
class TirVectorTransposePass(ModulePass):
    """Read N x N blocks that a loop gathers column by column as N rows and a transpose.

    `tir.for %j = %c0 to %c8 unrolled { %v = vector.transfer_read %x[%c, %h, %w + %j]
    (along dim 0) ... }` becomes eight `vector.load %x[%c + r, %h, %w]`, a tree of
    `vector.shuffle`s joining them, and one shuffle per step picking its column.
    """

    name = "tir-vector-transpose"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        loops = [o for o in op.walk() if isinstance(o, tir.ForOp)]
        for loop in reversed(loops):  # innermost first
            transpose_loop(loop)
