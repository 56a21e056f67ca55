"""`canonicalize`: xDSL's pass of that name, with float constants folded as IEEE arithmetic does.

xDSL folds `arith.addf` (subf, mulf, divf) of two constants into a `FloatAttr` of the op's
type, which raises when the result is beyond the type's range (`1.0e+38 - (-3.4e+38) : f32`);
IEEE arithmetic gives an infinity there, and so does the fold here. Reassociating constants
(`fastmath<reassoc>`) is left undone where their fold would overflow. `tir-simplify` and
`tir-loop-partition` canonicalize with the same patterns.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import arith, builtin
from xdsl.ir import Operation
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
    op_type_rewrite_pattern,
)
from xdsl.traits import HasCanonicalizationPatternsTrait
from xdsl.transforms.canonicalization_patterns.arith import (
    FoldConstConstOp,
    FoldConstsByReassociation,
)

from xtvm.passes.dead_code import greedy, region_dce


def float_attr(value: float, typ: builtin.AnyFloat) -> builtin.FloatAttr:
    """`value` as a constant of `typ`, rounded as IEEE arithmetic rounds: a value beyond the
    largest finite one becomes an infinity."""
    try:
        return builtin.FloatAttr(value, typ)
    except OverflowError:
        return builtin.FloatAttr(math.copysign(math.inf, value), typ)


def folded(op: Operation, lhs: float, rhs: float) -> float | None:
    """The value of float op `op` on constants, as IEEE arithmetic computes it."""
    if isinstance(op, arith.AddfOp):
        return lhs + rhs
    if isinstance(op, arith.SubfOp):
        return lhs - rhs
    if isinstance(op, arith.MulfOp):
        return lhs * rhs
    if isinstance(op, arith.DivfOp):
        if rhs != 0.0:
            return lhs / rhs
        if lhs == 0.0 or math.isnan(lhs):
            return math.nan
        return math.copysign(math.inf, lhs) * math.copysign(1.0, rhs)
    return None


class FoldFloatConstants(RewritePattern):
    """`arith.addf` (subf, mulf, divf) of two float constants is the constant of its value."""

    @op_type_rewrite_pattern
    def match_and_rewrite(
        self, op: arith.FloatingPointLikeBinaryOperation, rewriter: PatternRewriter
    ) -> None:
        lhs, rhs = op.lhs.owner, op.rhs.owner
        if not (isinstance(lhs, arith.ConstantOp) and isinstance(rhs, arith.ConstantOp)):
            return
        a, b = lhs.value, rhs.value
        if not (isinstance(a, builtin.FloatAttr) and isinstance(b, builtin.FloatAttr)):
            return
        value = folded(op, a.value.data, b.value.data)
        if value is not None:
            rewriter.replace(op, arith.ConstantOp(float_attr(value, a.type)))


@dataclass
class UnlessOverflowing(RewritePattern):
    """`pattern`, left undone where the constant it folds is beyond its type's range (xDSL
    raises before it changes anything)."""

    pattern: RewritePattern

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        try:
            self.pattern.match_and_rewrite(op, rewriter)
        except OverflowError:
            return


def substitute(pattern: RewritePattern) -> RewritePattern:
    """xtvm's pattern for one of xDSL's canonicalization patterns."""
    if isinstance(pattern, FoldConstConstOp):
        return FoldFloatConstants()
    if isinstance(pattern, FoldConstsByReassociation):
        return UnlessOverflowing(pattern)
    return pattern


class CanonicalizationRewritePattern(RewritePattern):
    """Each op's canonicalization patterns (its traits'), with float folding as above."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        traits = op.get_traits_of_type(HasCanonicalizationPatternsTrait)
        patterns = [substitute(p) for trait in traits for p in trait.get_patterns(type(op))]
        if len(patterns) == 1:
            patterns[0].match_and_rewrite(op, rewriter)
        elif patterns:
            greedy(patterns).match_and_rewrite(op, rewriter)


@dataclass(frozen=True)
class CanonicalizePass(ModulePass):
    """Fold ops and apply each op's canonicalization patterns.

    `%c = arith.addf %a, %b` of two constants becomes one constant (an infinity where the
    sum overflows), `arith.select` of a constant condition its chosen operand, and dead ops go.
    """

    name = "canonicalize"

    def apply(self, ctx: Context, op: builtin.ModuleOp) -> None:
        pattern = greedy([CanonicalizationRewritePattern()], ctx, folding=True)
        PatternRewriteWalker(pattern, post_walk_func=region_dce).rewrite_module(op)
