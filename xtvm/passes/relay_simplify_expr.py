"""`relay-simplify-expr`: algebraic simplifications of relay ops (part of TVM's SimplifyExpr).

- consecutive adds of constants, `(x + c1) + c2`, become `x + (c1 + c2)`, which
  `relay-fold-constant` then folds into one constant (TVM's SimplifyConsecutiveAdd);
- a reshape of a reshape is one reshape of the first's input (SimplifyReshape);
- a reshape or transpose that changes nothing goes (SimplifyNoOpTranspose and the no-op
  reshape of SimplifyReshape).

TVM's other rewrites (casts, clips, zeros_like and full, argmax of dequantize, ...) are not
done.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp, TensorType
from xdsl.ir import SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    GreedyRewritePatternApplier,
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
    op_type_rewrite_pattern,
)

from xtvm.dialects import relay
from xtvm.passes.external_functions import host_functions


def is_const(value: SSAValue) -> bool:
    return isinstance(value.owner, relay.ConstOp)


class ConsecutiveAdd(RewritePattern):
    """`(x + c1) + c2` as `x + (c1 + c2)`, when the inner add has no other use and the
    result keeps its type."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: relay.AddOp, rewriter: PatternRewriter) -> None:
        inner, c2 = op.operands
        if not is_const(c2) and is_const(inner):
            inner, c2 = c2, inner
        if not is_const(c2) or not isinstance(inner.owner, relay.AddOp):
            return
        x, c1 = inner.owner.operands
        if not is_const(c1) and is_const(x):
            x, c1 = c1, x
        if not is_const(c1) or is_const(x) or not inner.has_one_use() or x.type != op.result.type:
            return
        constant = relay.AddOp(c1, c2)
        rewriter.insert(constant)
        rewriter.replace(op, relay.AddOp(x, constant.results[0]))
        rewriter.erase(inner.owner)


class ReshapeOfReshape(RewritePattern):
    """`reshape(reshape(x))` as one reshape of `x` to the outer's (static) shape."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: relay.ReshapeOp, rewriter: PatternRewriter) -> None:
        inner = op.operands[0].owner
        if not isinstance(inner, relay.ReshapeOp):
            return
        out = op.result.type
        assert isinstance(out, TensorType)
        rewriter.replace(op, relay.ReshapeOp(inner.operands[0], newshape=out.get_shape()))
        if not inner.result.uses:
            rewriter.erase(inner)


class NoOpShape(RewritePattern):
    """A reshape to the same shape, or a transpose by the identity permutation, is its input."""

    def match_and_rewrite(self, op: object, rewriter: PatternRewriter) -> None:
        if isinstance(op, relay.ReshapeOp):
            if op.operands[0].type == op.result.type:
                rewriter.replace(op, [], [op.operands[0]])
        elif isinstance(op, relay.TransposeOp):
            data = op.operands[0].type
            assert isinstance(data, TensorType)
            perm = relay.TransposeOp.permutation(op.props(op.properties), data.get_num_dims())
            if list(perm) == sorted(perm):
                rewriter.replace(op, [], [op.operands[0]])


@dataclass(frozen=True)
class RelaySimplifyExprPass(ModulePass):
    """Fold consecutive constant adds, merge reshapes, drop no-op reshapes and transposes."""

    name = "relay-simplify-expr"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        applier = GreedyRewritePatternApplier(
            [NoOpShape(), ConsecutiveAdd(), ReshapeOfReshape()], dce_enabled=False
        )
        for function in host_functions(op):
            PatternRewriteWalker(applier).rewrite_region(function.body)
