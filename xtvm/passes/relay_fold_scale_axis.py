"""`relay-fold-scale-axis`: fold per-channel constant scales into conv2d and dense weights.

TVM's FoldScaleAxis, on its common cases. A `relay.multiply` by a constant that varies only
along the channel axis commutes with the linear ops around it, so it can be paid once, at
compile time, on the weight:

- backward: `multiply(conv2d(x, w), s)` (s of shape [O,1,1] in NCHW) becomes
  `conv2d(x, w * s[O,1,1,1])`, also through a chain of `nn.relu` (only when s > 0), and
  `nn.bias_add`/`add`/`subtract` of per-channel constants (which are scaled too); likewise for
  `nn.dense` and a scale per output unit;
- forward: `conv2d(multiply(x, s), w)` (s of shape [C,1,1]) becomes `conv2d(x, w * s[1,C,1,1])`,
  also through `nn.relu` when s > 0; likewise for `nn.dense` and a scale per input feature.

Every op between the scale and the conv2d or dense must have no other user. A weight that is a
`relay.const` is scaled at compile time; any other weight (a `relay.param`, an argument) gets a
`relay.multiply` by a constant that `relay-fold-constant` folds once the weight is known.
Layouts NCHW/OIHW and NHWC/HWIO are understood; forward folding needs `groups = 1`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp, TensorType
from xdsl.ir import Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    GreedyRewritePatternApplier,
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
    op_type_rewrite_pattern,
)
from xdsl.rewriter import InsertPoint

from xtvm.dialects import relay
from xtvm.dialects.relay import static_shape
from xtvm.ir.numpy_types import numpy_dtype
from xtvm.passes.relay_dce import EraseUnusedRelayOp

LinearOp = relay.Conv2dOp | relay.DenseOp
BiasLikeOp = relay.BiasAddOp | relay.AddOp | relay.SubtractOp


@dataclass(frozen=True)
class Axes:
    """Where the channels are: in the data and result, and in the weight (out and in)."""

    data: int
    result: int
    weight_out: int
    weight_in: int


def linear_axes(op: LinearOp) -> Axes | None:
    """The channel axes of `op`; None for a blocked kernel (a channel spans two axes)."""
    if isinstance(op, relay.DenseOp):
        rank = len(static_shape(op.data))
        return Axes(rank - 1, rank - 1, 0, 1)
    kernel_layout = op.kernel_layout.data
    if kernel_layout not in ("OIHW", "HWIO"):
        return None
    data = 1 if op.data_layout.data == "NCHW" else 3
    weight_out, weight_in = (0, 1) if kernel_layout == "OIHW" else (3, 2)
    return Axes(data, data, weight_out, weight_in)


def constant_value(value: SSAValue) -> np.ndarray | None:
    """The value of a float `relay.const`, else None."""
    owner = value.owner
    if not isinstance(owner, relay.ConstOp):
        return None
    array = relay.numpy_from_dense(owner.value)
    return array if np.issubdtype(array.dtype, np.floating) else None


def channel_vector(array: np.ndarray, shape: Sequence[int], axis: int) -> np.ndarray | None:
    """`array` as one number per channel along `axis` of `shape`, if that is all it varies by.

    `array` must broadcast to `shape` without growing it beyond one value per channel.
    """
    if array.ndim > len(shape):
        return None
    padded = (1,) * (len(shape) - array.ndim) + array.shape
    if any(size != 1 for i, size in enumerate(padded) if i != axis):
        return None
    if padded[axis] not in (1, shape[axis]):
        return None
    return np.broadcast_to(array.reshape(padded[axis]), (shape[axis],))


def along(vector: np.ndarray, rank: int, axis: int) -> np.ndarray:
    """`vector` reshaped to broadcast along `axis` of a tensor of `rank` dimensions."""
    shape = [1] * rank
    shape[axis] = vector.size
    return vector.reshape(shape)


def only_user(value: SSAValue) -> Operation | None:
    uses = list(value.uses)
    return uses[0].operation if len(uses) == 1 else None


def split_scale(op: relay.MultiplyOp) -> tuple[SSAValue, np.ndarray] | None:
    """The scaled value and the constant scale of `op`, the result keeping the value's type."""
    for data, scale in ((op.lhs, op.rhs), (op.rhs, op.lhs)):
        array = constant_value(scale)
        if array is not None and data.type == op.result.type:
            return data, array
    return None


def scale_weight(anchor: LinearOp, scale: np.ndarray, axis: int, rewriter: PatternRewriter) -> None:
    """Multiply the weight of `anchor` by `scale` laid along `axis` of the weight."""
    weight = anchor.weight
    factor = along(scale, len(static_shape(weight)), axis)
    array = constant_value(weight)
    if array is not None:
        new_ops: list[Operation] = [relay.ConstOp((array * factor).astype(array.dtype))]
    else:
        assert isinstance(weight.type, TensorType)
        factor_const = relay.ConstOp(factor.astype(numpy_dtype(weight.type.get_element_type())))
        new_ops = [factor_const, relay.MultiplyOp(weight, factor_const)]
    rewriter.insert(new_ops, InsertPoint.before(anchor))
    anchor.operands[1] = new_ops[-1].results[0]
    rewriter.notify_op_modified(anchor)


def replace_constant(op: Operation, value: np.ndarray, rewriter: PatternRewriter) -> None:
    """Give the bias-like `op` the constant `value` in place of its constant operand."""
    const = relay.ConstOp(value)
    rewriter.insert(const, InsertPoint.before(op))
    for index, operand in enumerate(op.operands):
        if constant_value(operand) is not None:
            op.operands[index] = const.result
    rewriter.notify_op_modified(op)


def bias_chain_operand(op: Operation) -> SSAValue | None:
    """The one non-constant operand of a bias-like op: the value the chain goes through."""
    if not isinstance(op, BiasLikeOp):
        return None
    non_constant = [v for v in op.operands if constant_value(v) is None]
    return non_constant[0] if len(non_constant) == 1 else None


def scaled_bias(
    op: Operation, vector: np.ndarray, shape: Sequence[int], axis: int
) -> np.ndarray | None:
    """The constant of the bias-like `op` times the per-channel `vector`, if it is per-channel."""
    (bias,) = [a for v in op.operands if (a := constant_value(v)) is not None]
    rank = len(shape)
    if isinstance(op, relay.BiasAddOp):
        if op.axis.value.data % rank != axis:
            return None
        return (bias * vector).astype(bias.dtype)
    if channel_vector(bias, shape, axis) is None:
        return None
    padded = bias.reshape((1,) * (rank - bias.ndim) + bias.shape)
    return (padded * along(vector, rank, axis)).astype(bias.dtype)


class FoldScaleIntoProducerWeight(RewritePattern):
    """Fold `multiply(conv2d(x, w), s)` into `conv2d(x, w * s)`, through relu and biases."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: relay.MultiplyOp, rewriter: PatternRewriter) -> None:
        split = split_scale(op)
        if split is None:
            return
        data, scale = split
        # Walk back from the multiply to the conv2d or dense through single-use ops.
        chain: list[Operation] = []
        value = data
        while not isinstance(producer := value.owner, LinearOp):
            if not isinstance(producer, Operation) or only_user(value) is None:
                return
            if isinstance(producer, relay.ReluOp):
                next_value = producer.data
            else:
                next_value = bias_chain_operand(producer)
            if next_value is None:
                return
            chain.append(producer)
            value = next_value
        anchor = producer
        if only_user(value) is None:
            return
        shape, axes = static_shape(op.result), linear_axes(anchor)
        if axes is None:
            return
        vector = channel_vector(scale, shape, axes.result)
        if vector is None:
            return
        if any(isinstance(c, relay.ReluOp) for c in chain) and not np.all(vector > 0):
            return  # relu(x) * s == relu(x * s) only when s > 0
        biases = {
            c: scaled_bias(c, vector, shape, axes.result)
            for c in chain
            if not isinstance(c, relay.ReluOp)
        }
        if any(b is None for b in biases.values()):
            return
        for bias_op, bias in biases.items():
            assert bias is not None
            replace_constant(bias_op, bias, rewriter)
        scale_weight(anchor, vector, axes.weight_out, rewriter)
        rewriter.replace(op, [], [data])


class FoldScaleIntoConsumerWeight(RewritePattern):
    """Fold `conv2d(multiply(x, s), w)` into `conv2d(x, w * s)`, also through relu."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: relay.Conv2dOp, rewriter: PatternRewriter) -> None:
        fold_scale_into_consumer(op, rewriter)


class FoldScaleIntoDenseWeight(RewritePattern):
    """Fold `dense(multiply(x, s), w)` into `dense(x, w * s)`, also through relu."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: relay.DenseOp, rewriter: PatternRewriter) -> None:
        fold_scale_into_consumer(op, rewriter)


def fold_scale_into_consumer(anchor: LinearOp, rewriter: PatternRewriter) -> None:
    if isinstance(anchor, relay.Conv2dOp) and anchor.groups.value.data != 1:
        return  # each group reads its own input channels
    # Walk back from the data operand through single-use relus to a multiply by a constant.
    relus: list[relay.ReluOp] = []
    value = anchor.data
    while isinstance(relu := value.owner, relay.ReluOp) and only_user(value) is not None:
        relus.append(relu)
        value = relu.data
    multiply = value.owner
    if not isinstance(multiply, relay.MultiplyOp) or only_user(value) is None:
        return
    split = split_scale(multiply)
    if split is None:
        return
    data, scale = split
    axes = linear_axes(anchor)
    if axes is None:
        return
    vector = channel_vector(scale, static_shape(data), axes.data)
    if vector is None or (relus and not np.all(vector > 0)):
        return
    scale_weight(anchor, vector, axes.weight_in, rewriter)
    rewriter.replace(multiply, [], [data])


@dataclass(frozen=True)
class RelayFoldScaleAxisPass(ModulePass):
    """Fold constant per-channel scales before or after conv2d and dense into their weights.

    `multiply(conv2d(%x, const w), const s)` becomes `conv2d(%x, const w*s)`.
    """

    name = "relay-fold-scale-axis"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        # Backward first, as TVM: a scale after a conv2d is folded before one ahead of it.
        for pattern in (
            FoldScaleIntoProducerWeight(),
            GreedyRewritePatternApplier(
                [FoldScaleIntoConsumerWeight(), FoldScaleIntoDenseWeight()]
            ),
        ):
            applier = GreedyRewritePatternApplier(
                [pattern, EraseUnusedRelayOp()], dce_enabled=False
            )
            PatternRewriteWalker(applier).rewrite_module(op)
