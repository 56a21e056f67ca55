"""`tir-unroll`: fully unroll loops marked `unrolled` (and, on request, short serial loops).

TVM's UnrollLoop: a loop with constant bounds is replaced by one copy of its body per iteration,
the loop variable replaced by that iteration's constant, so that later folding sees constant
indices. Loops marked `unrolled` are unrolled whatever their extent (the schedule asked for it);
serial loops are unrolled when `max-extent` is positive and their extent does not exceed it.
A loop whose bounds are not constants is left as it is, and so is one whose unrolling would
make more than `max-ops` ops (counting the unrolling of the loops inside it), with a remark:
a trip count of 10^12 would otherwise fill the memory.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    GreedyRewritePatternApplier,
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
    op_type_rewrite_pattern,
)

from xtvm.dialects import tir
from xtvm.passes.tir_bounds import constant_value, index_constant
from xtvm.passes.unroll_budget import over_budget


@dataclass
class UnrollLoop(RewritePattern):
    """Replace a constant-bound loop chosen for unrolling by its body, once per iteration."""

    max_extent: int
    max_ops: int
    refused: set[tir.ForOp] = field(default_factory=set[tir.ForOp])

    def trips(self, op: Operation) -> int | None:
        """The trip count of `op` if it is a loop chosen for unrolling, else None."""
        if not isinstance(op, tir.ForOp):
            return None
        lower, upper = constant_value(op.lower_bound), constant_value(op.upper_bound)
        if lower is None or upper is None:
            return None
        kind, extent = op.kind.data, max(upper - lower, 0)
        if kind == "unrolled" or (kind == "serial" and extent <= self.max_extent):
            return extent
        return None

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: tir.ForOp, rewriter: PatternRewriter) -> None:
        if op in self.refused or self.trips(op) is None:
            return
        if over_budget(op, self.trips, self.max_ops, self.refused):
            return
        lower, upper = constant_value(op.lower_bound), constant_value(op.upper_bound)
        assert lower is not None and upper is not None
        body = [o for o in op.body.block.ops if not isinstance(o, tir.YieldOp)]
        for value in range(lower, upper):
            rewriter.insert(constant := index_constant(value))
            mapping: dict[SSAValue, SSAValue] = {op.induction_variable: constant.result}
            rewriter.insert([o.clone(value_mapper=mapping) for o in body])
        rewriter.erase(op)


@dataclass(frozen=True)
class TirUnrollPass(ModulePass):
    """Fully unroll `unrolled` loops with constant bounds, and serial ones up to max-extent.

    `tir.for %i = %c0 to %c2 unrolled { store %x, %A[%i] }` becomes
    `store %x, %A[%c0]` and `store %x, %A[%c1]`.
    """

    name = "tir-unroll"
    max_extent: int = 0
    max_ops: int = 65536

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        pattern = GreedyRewritePatternApplier([UnrollLoop(self.max_extent, self.max_ops)])
        PatternRewriteWalker(pattern).rewrite_module(op)
