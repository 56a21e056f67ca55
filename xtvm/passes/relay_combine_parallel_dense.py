"""`relay-combine-parallel-dense`: one product for several constant-weight products of one input.

TVM's CombineParallelDense (`to_batch=False`). Attention projects its input three times (Q, K
and V: three 768 x 768 products of the same 128 rows, each with its bias): one 768 x 2304
product reads the rows once, fills the cores with one parallel loop instead of three, and its
bias add stays fused in it. Each branch then reads its columns back with a
`relay.strided_slice`, an injective op that fuses into the branch's consumer (the reshape and
transpose into heads), so no copy is added.

Branches are `relay.nn.dense` or `relay.nn.matmul` ops (a not transposed) of the same data by
constant weights of one dtype, reduction length and layout, at least `min-num-branches` of them
(TVM's default, 3). When every branch is followed only by a `relay.add` of a constant vector
along its columns (a bias), the biases are concatenated and added once after the product.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from xtvm.dialects import relay
from xtvm.dialects.relay import static_shape
from xtvm.passes.external_functions import host_functions
from xtvm.passes.relay_infer_types import infer_op

Product = relay.DenseOp | relay.MatmulOp


def rows_first(op: Product) -> bool:
    """Whether the weight of `op` is [n, k] (dense, matmul with transpose_b), not [k, n]."""
    return isinstance(op, relay.DenseOp) or bool(op.transpose_b.value.data)


def branch_key(op: Operation) -> tuple[object, ...] | None:
    """What branches must share to combine: the data, the op's kind and layout, the weight's
    dtype and reduction length; None for a product that cannot be a branch."""
    if not isinstance(op, Product) or not isinstance(op.operands[1].owner, relay.ConstOp):
        return None
    if isinstance(op, relay.MatmulOp) and op.transpose_a.value.data:
        return None
    weight = op.operands[1]
    if len(static_shape(weight)) != 2:
        return None
    k = static_shape(weight)[1 if rows_first(op) else 0]
    return (op.operands[0], type(op), rows_first(op), weight.type.get_element_type(), k)


def bias_of(op: Product) -> tuple[relay.AddOp, np.ndarray] | None:
    """The lone `relay.add` of a constant [n] vector after `op` and that vector, or None."""
    result = op.results[0]
    users = [use.operation for use in result.uses]
    if len(users) != 1 or not isinstance(users[0], relay.AddOp):
        return None
    add = users[0]
    other = add.rhs if add.lhs is result else add.lhs
    columns = static_shape(result)[-1]
    if not isinstance(other.owner, relay.ConstOp) or static_shape(other) != (columns,):
        return None
    if static_shape(add.result) != static_shape(result):
        return None
    return add, relay.numpy_from_dense(other.owner.value)


def concatenated(parts: list[np.ndarray], axis: int) -> np.ndarray:
    """`parts` joined along `axis`, written once, straight into the bytes of the constant that
    will hold it (not as an array and its copy)."""
    shape = list(parts[0].shape)
    shape[axis] = sum(part.shape[axis] for part in parts)

    def fill(out: np.ndarray) -> None:
        np.concatenate(parts, axis=axis, out=out)

    return relay.filled_bytes(shape, parts[0].dtype, fill)


def combine(branches: list[Product]) -> None:
    """Replace `branches` (in program order) by one product on the concatenated weights, a
    bias add when every branch has one, and a column slice per branch."""
    first = branches[0]
    axis = 0 if rows_first(first) else 1
    weights = [relay.numpy_from_dense(b.operands[1].owner.value, copy=False) for b in branches]  # type: ignore[union-attr]
    weight = relay.ConstOp(concatenated(weights, axis))
    weights.clear()  # views of the constants erase_branch drops
    if isinstance(first, relay.DenseOp):
        product: Operation = relay.DenseOp(first.operands[0], weight.result)
    else:
        product = relay.MatmulOp(first.operands[0], weight.result, transpose_b=axis == 0)
    new_ops: list[Operation] = [weight, product]
    biases = [bias_of(b) for b in branches]
    ends = [b.results[0] for b in branches]
    combined = product.results[0]
    if all(bias is not None for bias in biases):
        vector = relay.ConstOp(np.concatenate([bias[1] for bias in biases]))  # type: ignore[index]
        add = relay.AddOp(combined, vector.result)
        new_ops += [vector, add]
        combined = add.result
        ends = [bias[0].result for bias in biases]  # type: ignore[index]
    for op in new_ops:
        Rewriter.insert_op(op, InsertPoint.before(first))
        if isinstance(op, relay.RelayOp) and not isinstance(op, relay.ConstOp):
            infer_op(op)
    rank = len(static_shape(combined))
    start = 0
    for end in ends:
        columns = static_shape(end)[-1]
        sliced = relay.StridedSliceOp(combined, [start], [start + columns], axes=[rank - 1])
        Rewriter.insert_op(sliced, InsertPoint.before(first))
        infer_op(sliced)
        end.replace_all_uses_with(sliced.result)
        start += columns
    for branch in branches:
        erase_branch(branch)


def erase_branch(product: Product) -> None:
    """Erase `product`, its bias add and the constants nothing else reads."""
    doomed: list[Operation] = []
    bias = bias_of(product)
    if bias is not None:
        doomed.append(bias[0])
    doomed.append(product)
    for op in doomed:
        consts = [o.owner for o in op.operands if isinstance(o.owner, relay.ConstOp)]
        Rewriter.erase_op(op)
        for const in consts:
            if not const.result.uses:
                relay.erase_constant(const)


@dataclass(frozen=True)
class RelayCombineParallelDensePass(ModulePass):
    """Combine dense/matmul products of one input by constant weights into one product.

    Three `relay.nn.matmul %x, %wi` (wi const 768x768), each + bias, become one
    `relay.nn.matmul %x, %w` (w const 768x2304) + bias and three `relay.strided_slice`s.
    """

    name = "relay-combine-parallel-dense"

    min_num_branches: int = 3

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for function in host_functions(op):
            for block in function.body.blocks:
                groups: dict[tuple[object, ...], list[Product]] = {}
                for candidate in block.ops:
                    key = branch_key(candidate)
                    if key is not None:
                        groups.setdefault(key, []).append(candidate)  # type: ignore[arg-type]
                for branches in groups.values():
                    if len(branches) >= self.min_num_branches:
                        combine(branches)
