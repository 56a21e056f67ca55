"""`relay-canonicalize-ops`: rewrite ops into simpler ones that later passes know (TVM's
CanonicalizeOps).

`nn.bias_add(x, b, axis)` becomes `add(x, expand_dims(b, axis=1, num_newaxis=k))`, `k` the
axes of `x` after `axis`, so that the bias broadcasts along `axis`: the form TVM's BYOC
patterns (`dnnl.conv2d_bias_relu`: a conv2d, an `add`, a relu) and FoldScaleAxis work on.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp, TensorType
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
    op_type_rewrite_pattern,
)

from xtvm.dialects import relay
from xtvm.passes.external_functions import host_functions


class BiasAddToAdd(RewritePattern):
    """`bias_add(x, b, axis)` as `x + expand_dims(b)`."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: relay.BiasAddOp, rewriter: PatternRewriter) -> None:
        data_type = op.data.type
        assert isinstance(data_type, TensorType)
        rank = data_type.get_num_dims()
        trailing = rank - 1 - op.axis.value.data % rank
        bias = op.bias
        if trailing:
            expand = relay.ExpandDimsOp(bias, axis=1, num_newaxis=trailing)
            rewriter.insert(expand)
            bias = expand.results[0]
        rewriter.replace(op, relay.AddOp(op.data, bias))


@dataclass(frozen=True)
class RelayCanonicalizeOpsPass(ModulePass):
    """Rewrite `nn.bias_add` into `expand_dims` and `add`."""

    name = "relay-canonicalize-ops"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for function in host_functions(op):
            PatternRewriteWalker(BiasAddToAdd()).rewrite_region(function.body)
