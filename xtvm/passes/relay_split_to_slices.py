"""`relay-split-to-slices`: a split whose parts are read only by injective ops becomes one
`strided_slice` per part, so that relay-fuse-ops fuses each part into its readers.

A `split` is one kernel with several outputs: it copies every part out of its input, and the
kernels that read the parts copy them again. GPT-2's attention splits the [64, 2304] product
of its Q/K/V projection into three [64, 768] parts, each then reshaped and transposed into
heads by a kernel of its own: 590 KB copied twice per layer. As three slices, each head
transpose reads its columns of the product directly (one kernel and one copy fewer per
layer; the LSTM's gates, split out of each step's product, fuse into their sigmoids and
tanh). A split with a part read by anything else (a conv2d, a product, a graph output, an
add to a product's result, which joins the product's kernel) is left alone: a slice there
would be a kernel of its own, one per part instead of one for all.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp, TensorType
from xdsl.ir import Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
    op_type_rewrite_pattern,
)

from xtvm.dialects import relay
from xtvm.dialects.relay import OpPattern
from xtvm.passes.external_functions import host_functions


def injective(op: Operation) -> bool:
    """Whether fusion treats `op` as injective (or more regular: elementwise, broadcast)."""
    pattern = getattr(op, "PATTERN", None)
    return pattern is not None and pattern <= OpPattern.INJECTIVE


def made_injectively(value: SSAValue) -> bool:
    """Whether `value` is an argument, a constant or the result of an injective op."""
    owner = value.owner
    return not isinstance(owner, Operation) or isinstance(owner, relay.ConstOp) or injective(owner)


def fuses_into(reader: Operation, part: SSAValue) -> bool:
    """Whether a slice read by `reader` joins its kernel: `reader` is injective (or more
    regular) and reads nothing else that a product, conv or reduction makes (an add of the
    part to a product's result joins the product's kernel, where a slice cannot: each part
    would be a kernel of its own, as the LSTM's per-step input gates were)."""
    return injective(reader) and all(made_injectively(v) for v in reader.operands if v is not part)


class SplitToSlices(RewritePattern):
    """`split(x)[i]` as `strided_slice(x)` for every part, when all parts' readers fuse."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: relay.SplitOp, rewriter: PatternRewriter) -> None:
        data = op.operands[0]
        data_type = data.type
        if not isinstance(data_type, TensorType):
            return
        parts = [use.operation for use in op.results[0].uses]
        if not parts or not all(isinstance(p, relay.TupleGetItemOp) for p in parts):
            return
        if not all(
            fuses_into(use.operation, p.results[0]) for p in parts for use in p.results[0].uses
        ):
            return
        rank = data_type.get_num_dims()
        axis = op.axis.value.data % rank
        size = data_type.get_shape()[axis]
        points = relay.SplitOp.boundaries(relay.SplitOp.props(op.properties), size)
        for part in parts:
            assert isinstance(part, relay.TupleGetItemOp)
            index = part.index.value.data
            piece = relay.StridedSliceOp(data, [points[index]], [points[index + 1]], axes=[axis])
            rewriter.replace(part, piece)
        rewriter.erase(op)


@dataclass(frozen=True)
class RelaySplitToSlicesPass(ModulePass):
    """Rewrite a split whose parts only injective ops read into one strided_slice per part."""

    name = "relay-split-to-slices"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for function in host_functions(op):
            PatternRewriteWalker(SplitToSlices()).rewrite_region(function.body)
