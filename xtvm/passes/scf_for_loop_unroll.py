"""`scf-for-loop-unroll`: xDSL's full unrolling of constant-bound `scf.for` loops, bounded.

Each loop with constant bounds and step becomes one copy of its body per iteration (xDSL's
`UnrollLoopPattern`). A loop whose unrolling would make more than `max-ops` ops (counting the
loops inside it, which are unrolled too) is left as it is with a remark, since a trip count of
10^12 would otherwise fill the memory; a constant step that is not positive is an error.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from xdsl.context import Context
from xdsl.dialects import arith, scf
from xdsl.dialects.builtin import IntegerAttr, ModuleOp
from xdsl.ir import Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import PatternRewriter, PatternRewriteWalker, op_type_rewrite_pattern
from xdsl.transforms.scf_for_loop_unroll import UnrollLoopPattern

from xtvm.ir.verify import located_error
from xtvm.passes.unroll_budget import over_budget


def constant_int(value: SSAValue) -> int | None:
    """The integer `value` is defined as by an `arith.constant`, else None."""
    owner = value.owner
    if isinstance(owner, arith.ConstantOp) and isinstance(owner.value, IntegerAttr):
        return owner.value.value.data
    return None


def trip_count(loop: scf.ForOp) -> int | None:
    """How many times `loop` runs, if its bounds and step are constants."""
    lower, upper, step = (constant_int(v) for v in (loop.lb, loop.ub, loop.step))
    if lower is None or upper is None or step is None:
        return None
    if step <= 0:
        raise located_error(loop, f"'scf.for' op step must be positive to unroll, got {step}")
    return max(0, -(-(upper - lower) // step))


def loop_trips(op: Operation) -> int | None:
    """The trip count of `op` if it is a constant-bound `scf.for`, else None."""
    return trip_count(op) if isinstance(op, scf.ForOp) else None


@dataclass
class BoundedUnrollLoop(UnrollLoopPattern):
    """xDSL's unrolling of a constant-bound loop, for loops of at most `max_ops` unrolled ops."""

    max_ops: int
    refused: set[scf.ForOp] = field(default_factory=set[scf.ForOp])

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: scf.ForOp, rewriter: PatternRewriter) -> None:
        if op in self.refused or trip_count(op) is None:
            return
        if over_budget(op, loop_trips, self.max_ops, self.refused):
            return
        super().match_and_rewrite(op, rewriter)


@dataclass(frozen=True)
class ScfForLoopUnrollPass(ModulePass):
    """Fully unroll scf.for loops with constant trip counts, up to max-ops ops per loop.

    `scf.for %i = %c0 to %c2 step %c1 { store %i }` becomes `store %c0` and `store %c1`.
    """

    name = "scf-for-loop-unroll"
    max_ops: int = 65536

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        PatternRewriteWalker(BoundedUnrollLoop(self.max_ops)).rewrite_module(op)
