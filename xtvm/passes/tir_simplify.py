"""`tir-simplify`: fold and simplify index arithmetic, guards and loops of tir kernels.

Built on xDSL's canonicalization (constant propagation, `x * 1`, `x + 0`, `scf.if` on a
constant, select folding) plus what a loop nest knows that canonicalize does not: the range of
every loop variable. From those ranges (`tir_bounds.Bounds`) the pass

- folds any integer op whose value is fixed (`%r = arith.remui %c13, %c4` -> 1, a comparison
  the ranges decide, as the guard `i < 12` of a split that divides);
- drops a `max`/`min` the ranges decide (a clamped padding read in a tile inside the border);
- simplifies `(a * c + b) / c` to `a` and `(a * c + b) % c` to `b` when `0 <= b < c` is
  provable (the index splitting and fusing leave behind);
- collects like terms of an index sum or difference (`(o * 4 + i) - o * 4` is `i`: a tile's
  index less its start);
- replaces a loop that runs once by its body and erases one that never runs or does nothing;
- hoists pure, speculatable ops whose operands are defined outside a loop out of it (xDSL's
  `licm` only knows `scf.for`), except out of thread-bound loops, whose bodies become GPU
  kernels and keep their index arithmetic;

then merges common subexpressions (xDSL's cse) and repeats to a fixpoint.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import arith, scf
from xdsl.dialects.builtin import IndexType, IntegerAttr, IntegerType, ModuleOp
from xdsl.ir import BlockArgument, Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
    op_type_rewrite_pattern,
)
from xdsl.rewriter import InsertPoint
from xdsl.traits import is_speculatable
from xdsl.transforms.common_subexpression_elimination import cse
from xdsl.transforms.loop_invariant_code_motion import can_be_hoisted

from xtvm.dialects import tir
from xtvm.passes.canonicalize import CanonicalizationRewritePattern
from xtvm.passes.dead_code import greedy, region_dce, side_effect_free
from xtvm.passes.tir_bounds import (
    Bounds,
    Interval,
    LinearForm,
    constant_value,
    form_bounds,
    index_constant,
    is_index_like,
    linear_form,
)

DIVISIONS = (arith.DivUIOp, arith.DivSIOp, arith.FloorDivSIOp)
REMAINDERS = (arith.RemUIOp, arith.RemSIOp)


def build_linear_form(form: LinearForm) -> tuple[list[Operation], SSAValue]:
    """Ops computing `form` in `index`, and the value they produce (no ops for a lone atom)."""
    ops: list[Operation] = []

    def constant(value: int) -> SSAValue:
        ops.append(op := index_constant(value))
        return op.result

    total: SSAValue | None = None
    for value, coeff in form.terms.items():
        term = value
        if coeff != 1:
            ops.append(scaled := arith.MuliOp(value, constant(coeff)))
            term = scaled.result
        if total is not None:
            ops.append(added := arith.AddiOp(total, term))
            term = added.result
        total = term
    if total is None:
        return ops, constant(form.constant)
    if form.constant:
        ops.append(added := arith.AddiOp(total, constant(form.constant)))
        total = added.result
    return ops, total


class FoldKnownInteger(RewritePattern):
    """Replace an integer arith op, or a comparison, whose value the loop ranges fix."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        if isinstance(op, arith.ConstantOp) or op.dialect_name() != "arith":
            return
        if len(op.results) != 1:
            return
        if isinstance(op, arith.CmpiOp):
            outcome = Bounds().decide(op)
            if outcome is not None:
                rewriter.replace(op, arith.ConstantOp(IntegerAttr(int(outcome), IntegerType(1))))
            return
        result = op.results[0]
        if not is_index_like(result.type):
            return
        interval = Bounds().of(result)
        if interval is not None and interval.constant is not None:
            rewriter.replace(op, arith.ConstantOp(IntegerAttr(interval.constant, result.type)))


class DropDecidedClamp(RewritePattern):
    """`max(a, b)` -> `a` when `a >= b` over the loop ranges (and `min` alike): a clamped
    padding read's bounds in the interior pieces loop partition cuts off the border (the
    column `2 * x + rx - 1` of a stride-2 depthwise conv2d's interior tiles is in range)."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        if not isinstance(op, arith.MaxSIOp | arith.MinSIOp):
            return
        bounds = Bounds(memo=branch_assumptions(op))
        lhs, rhs = bounds.of(op.lhs), bounds.of(op.rhs)
        if lhs is None or rhs is None:
            return
        larger = isinstance(op, arith.MaxSIOp)
        if (lhs.lo >= rhs.hi) if larger else (lhs.hi <= rhs.lo):
            rewriter.replace(op, [], [op.lhs])
        elif (rhs.lo >= lhs.hi) if larger else (rhs.hi <= lhs.lo):
            rewriter.replace(op, [], [op.rhs])


# `iv <pred> c` narrows iv to (lowest, highest) offsets from c: sge c -> [c, ...], ...
NARROWING = {"sge": (0, None), "sgt": (1, None), "sle": (None, 0), "slt": (None, -1)}
NEGATED = {"sge": "slt", "sgt": "sle", "sle": "sgt", "slt": "sge"}


def branch_assumptions(op: Operation) -> dict[SSAValue, Interval | None]:
    """Loop variables' ranges narrowed by the `scf.if` branches around `op` whose condition
    compares one with a constant (the interior rows' branch of a parallel loop's split body,
    `i >= 1`): seeds for `Bounds` at `op`."""
    narrowed: dict[SSAValue, Interval | None] = {}
    child, parent = op, op.parent_op()
    while parent is not None:
        if isinstance(parent, scf.IfOp) and isinstance(cond := parent.cond.owner, arith.CmpiOp):
            iv, bound = cond.lhs, constant_value(cond.rhs)
            predicate = arith.CMPI_COMPARISON_OPERATIONS[cond.predicate.value.data]
            if isinstance(iv, BlockArgument) and bound is not None and predicate in NARROWING:
                within_then = child.parent_region() is parent.true_region
                if not within_then:
                    predicate = NEGATED[predicate]
                current = narrowed.get(iv) or Bounds().of(iv)
                if current is not None:
                    low, high = NARROWING[predicate]
                    lo = current.lo if low is None else max(current.lo, bound + low)
                    hi = current.hi if high is None else min(current.hi, bound + high)
                    if lo <= hi:
                        narrowed[iv] = Interval(lo, hi)
        child, parent = parent, parent.parent_op()
    return narrowed


class SimplifyDivisionOfMultiple(RewritePattern):
    """`(a * c + b) / c` -> `a` and `(a * c + b) % c` -> `b` when `0 <= b < c` is provable.

    Also with a coefficient `c1` that divides `c` (TVM's rule for split-of-fused indices):
    `(a * c1 + b) / c` -> `a / (c / c1)` and `(a * c1 + b) % c` -> `(a % (c / c1)) * c1 + b`
    when `0 <= b < c1`.
    """

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        if not isinstance(op, DIVISIONS + REMAINDERS) or not isinstance(op.lhs.type, IndexType):
            return
        divisor = constant_value(op.rhs)
        if divisor is None or divisor <= 1:
            return
        form, bounds = linear_form(op.lhs), Bounds()
        if not isinstance(op, arith.FloorDivSIOp):
            # Truncating and unsigned division agree with floor division on non-negatives.
            total = form_bounds(form, bounds)
            if total is None or total.lo < 0:
                return
        coefficients = [*form.terms.values(), form.constant]
        candidates = {math.gcd(divisor, k) for k in coefficients} | {divisor}
        for step in sorted(candidates - {1}, reverse=True):
            high = LinearForm(
                {v: k // step for v, k in form.terms.items() if k % step == 0},
                form.constant // step,
            )
            low = LinearForm(
                {v: k for v, k in form.terms.items() if k % step}, form.constant % step
            )
            low_bounds = form_bounds(low, bounds)
            if low_bounds is not None and 0 <= low_bounds.lo and low_bounds.hi < step:
                rewriter.replace(op, *self.rewritten(op, high, low, divisor // step, step))
                return

    @staticmethod
    def rewritten(
        op: Operation, high: LinearForm, low: LinearForm, divisor: int, step: int
    ) -> tuple[list[Operation], list[SSAValue]]:
        """`op`'s value as `high / divisor` or `(high % divisor) * step + low`."""
        ops, value = build_linear_form(high)
        if divisor != 1:
            constant = index_constant(divisor)
            ops += [constant, reduced := type(op)(value, constant.result)]
            value = reduced.results[0]
        if isinstance(op, DIVISIONS):
            return ops, [value]
        low_ops, low_value = build_linear_form(low)
        if divisor == 1:  # a multiple of `step` contributes nothing to the remainder
            return low_ops, [low_value]
        scale = index_constant(step)
        scaled = arith.MuliOp(value, scale.result)
        ops += [scale, scaled, *low_ops, total := arith.AddiOp(scaled.result, low_value)]
        return ops, [total.result]


class CollectLikeTerms(RewritePattern):
    """`a + b` or `a - b` where the linear forms of `a` and `b` share atoms: one linear
    form, each atom once (a tile's global index less the tile's start becomes the loop index
    inside the tile: a register array's constant index once unrolled)."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        if not isinstance(op, arith.AddiOp | arith.SubiOp):
            return
        if not isinstance(op.result.type, IndexType):
            return
        lhs, rhs = linear_form(op.lhs), linear_form(op.rhs)
        if not set(lhs.terms) & set(rhs.terms):
            return
        form = lhs.plus(rhs.scaled(-1) if isinstance(op, arith.SubiOp) else rhs)
        form = LinearForm({v: k for v, k in form.terms.items() if k}, form.constant)
        ops, value = build_linear_form(form)
        rewriter.replace(op, ops, [value])


class InlineSingleIterationLoop(RewritePattern):
    """Replace a loop that runs once by its body; erase a loop that never runs."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: tir.ForOp, rewriter: PatternRewriter) -> None:
        if op.kind.data == "thread_binding":
            return  # a launch dimension, even of extent 1
        bounds = Bounds()
        lower, upper = bounds.of(op.lower_bound), bounds.of(op.upper_bound)
        if lower is None or upper is None:
            return
        if upper.hi <= lower.lo:
            rewriter.erase(op)
            return
        if lower.constant is None or upper.constant != lower.constant + 1:
            return
        block = op.body.block
        assert block.last_op is not None
        rewriter.erase(block.last_op)
        rewriter.inline_block(block, InsertPoint.before(op), [op.lower_bound])
        rewriter.erase(op)


class EraseEmptyLoop(RewritePattern):
    """Erase a loop whose body does nothing."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: tir.ForOp, rewriter: PatternRewriter) -> None:
        if isinstance(op.body.block.first_op, tir.YieldOp):
            rewriter.erase(op)


def is_speculatable_division(op: Operation) -> bool:
    """A division or remainder by a nonzero constant (xDSL declares `arith.remui` impure)."""
    if not isinstance(op, DIVISIONS + REMAINDERS + (arith.CeilDivSIOp, arith.CeilDivUIOp)):
        return False
    divisor = constant_value(op.rhs)
    return divisor is not None and divisor != 0


class EraseUnusedArith(RewritePattern):
    """Erase an arith op whose results are unused (xDSL's dce keeps `arith.remui`)."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        if op.dialect_name() == "arith" and op.results and not any(r.uses for r in op.results):
            rewriter.erase(op)


class HoistLoopInvariant(RewritePattern):
    """Move pure, speculatable ops whose operands come from outside a loop before it."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: tir.ForOp, rewriter: PatternRewriter) -> None:
        if op.kind.data == "thread_binding":
            return
        # In block order, so that a chain of invariant ops moves out in one sweep.
        for child in list(op.body.block.ops):
            pure = side_effect_free(child) and is_speculatable(child)
            if (pure or is_speculatable_division(child)) and can_be_hoisted(child, op.body):
                child.detach()
                rewriter.insert(child, InsertPoint.before(op))


def simplify_patterns() -> list[RewritePattern]:
    return [
        FoldKnownInteger(),
        DropDecidedClamp(),
        SimplifyDivisionOfMultiple(),
        CollectLikeTerms(),
        InlineSingleIterationLoop(),
        EraseEmptyLoop(),
        EraseUnusedArith(),
        HoistLoopInvariant(),
        CanonicalizationRewritePattern(),
    ]


def simplify(ctx: Context, module: ModuleOp) -> None:
    """Run the simplification patterns, cse, and the patterns again on what cse merged."""
    applier = greedy(simplify_patterns(), ctx, folding=True)
    walker = PatternRewriteWalker(applier, post_walk_func=region_dce)
    walker.rewrite_module(module)
    cse(module)
    walker.rewrite_module(module)


@dataclass(frozen=True)
class TirSimplifyPass(ModulePass):
    """Fold index arithmetic and guards from loop ranges, drop trivial loops, hoist invariants.

    `%q = arith.divui %i, %c4` with `%i = o * 4 + ii`, `ii` in [0, 4), becomes `%o`; a guard
    `arith.cmpi ult, %i, %c12` with `%i` in [0, 12) folds to `true` and its `scf.if` goes.
    """

    name = "tir-simplify"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        simplify(ctx, op)
