"""`reconcile-unrealized-casts`: xDSL's pass of that name, on the chains it can unify.

The upstream pattern assumes that every cast of a chain has as many results as the chain's
first cast has inputs; a cast of one value to several, or a cast from nothing
(`builtin.unrealized_conversion_cast to i8`), fails its assertion. Such a chain cannot cancel
out, so it stays, as upstream keeps a chain that does not lead back to its types.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import builtin
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import PatternRewriter, PatternRewriteWalker, op_type_rewrite_pattern
from xdsl.transforms import reconcile_unrealized_casts as upstream


def arities_match(op: builtin.UnrealizedConversionCastOp) -> bool:
    """Whether each cast in the chain from `op` has as many results as `op` has inputs."""
    pending = [op]
    seen: set[builtin.UnrealizedConversionCastOp] = set()
    while pending:
        cast = pending.pop()
        if cast in seen:
            continue
        seen.add(cast)
        if len(cast.results) != len(op.inputs):
            return False
        for result in cast.results:
            pending.extend(
                use.operation
                for use in result.uses
                if isinstance(use.operation, builtin.UnrealizedConversionCastOp)
            )
    return True


@dataclass
class ReconcileUnrealizedCastsPattern(upstream.ReconcileUnrealizedCastsPattern):
    """Upstream's pattern, applied to chains whose casts all keep the number of values."""

    @op_type_rewrite_pattern
    def match_and_rewrite(
        self, op: builtin.UnrealizedConversionCastOp, rewriter: PatternRewriter
    ) -> None:
        if arities_match(op):
            super().match_and_rewrite(op, rewriter)


@dataclass(frozen=True)
class ReconcileUnrealizedCastsPass(ModulePass):
    """Remove chains of unrealized conversion casts that cancel out.

    `%b = cast %a : i32 to i64; %c = cast %b : i64 to i32` reads `%a` where `%c` was read; a
    chain that ends in another type, or changes the number of values, stays.
    """

    name = "reconcile-unrealized-casts"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        pattern = ReconcileUnrealizedCastsPattern(warn_on_failure=True)
        PatternRewriteWalker(pattern).rewrite_module(op)
