"""`tir-loop-partition`: split loops so that the guards of non-dividing splits leave the hot loop.

A split whose factor does not divide the extent guards its body with `scf.if i < extent`
(`i = outer * factor + inner`). TVM's LoopPartition cuts a loop around such a guard into the
iterations where the guard is surely true, those where it must still be tested, and those where
it is surely false; in the first and last the comparison becomes a constant, so the `scf.if`
folds away (xDSL's canonicalization) and the main loop is branch-free:

    for o in [0, 3): for ii in [0, 4): if o * 4 + ii < 10: body
    ->  for o in [0, 2): for ii in [0, 4): body          (main loop, no guard)
        for o in [2, 3): for ii in [0, 2): body          (tail; ii in [2, 4) does nothing)

A guard is an integer comparison reaching an `scf.if` condition (directly or through
`arith.andi`) between a constant and an `index` expression that is linear in the loop variable
with a positive coefficient, the rest of it not depending on that variable. Loops are tried
outermost first; thread-bound loops are never cut (they are launch dimensions).
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import arith, func, scf
from xdsl.dialects.builtin import IntegerAttr, IntegerType, ModuleOp
from xdsl.ir import SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import GreedyRewritePatternApplier, PatternRewriteWalker
from xdsl.rewriter import InsertPoint, Rewriter

from xtvm.dialects import tir
from xtvm.passes.canonicalize import CanonicalizationRewritePattern
from xtvm.passes.tir_bounds import (
    CMPI_PREDICATES,
    Bounds,
    EntryConstants,
    LinearForm,
    constant_value,
    depends_on,
    form_bounds,
    linear_form,
)
from xtvm.passes.tir_simplify import EraseEmptyLoop, InlineSingleIterationLoop

MAX_PARTITIONS = 256  # per function: a bound on code growth, never reached by te schedules


def is_guard(cmp: arith.CmpiOp) -> bool:
    """Whether `cmp` decides an `scf.if`, alone or in a conjunction."""
    pending, seen = [cmp.result], set()
    while pending:
        value = pending.pop()
        for use in value.uses:
            user = use.operation
            if isinstance(user, scf.IfOp):
                return True
            if isinstance(user, arith.AndIOp) and user not in seen:
                seen.add(user)
                pending.append(user.result)
    return False


@dataclass(frozen=True)
class Comparison:
    """A guard as `expr < bound`, or its negation when `negated`."""

    expr: SSAValue
    bound: int
    negated: bool

    @staticmethod
    def of(cmp: arith.CmpiOp, bounds: Bounds) -> list[Comparison]:
        """The readings of `cmp` with a constant side (both sides may be expressions)."""
        relation, unsigned = CMPI_PREDICATES[cmp.predicate.value.data]
        readings: list[Comparison] = []
        for expr, other, flipped in ((cmp.lhs, cmp.rhs, False), (cmp.rhs, cmp.lhs, True)):
            bound = bounds.of(other)
            expr_bounds = bounds.of(expr)
            if bound is None or bound.constant is None or expr_bounds is None:
                continue
            if unsigned and (expr_bounds.lo < 0 or bound.constant < 0):
                continue
            read = relation
            if flipped:  # `bound REL expr` read as `expr REL' bound`
                read = {"lt": "gt", "le": "ge", "gt": "lt", "ge": "le"}.get(relation, relation)
            c = bound.constant
            reading = {
                "lt": (c, False),
                "le": (c + 1, False),
                "ge": (c, True),
                "gt": (c + 1, True),
            }.get(read)
            if reading is not None:
                readings.append(Comparison(expr, *reading))
        return readings


@dataclass(frozen=True)
class Cut:
    """`loop` cut at `first_unknown` and `first_false`; `cmp` is constant outside that range."""

    loop: tir.ForOp
    cmp: arith.CmpiOp
    first_unknown: int
    first_false: int
    negated: bool


def find_cut(cmp: arith.CmpiOp) -> Cut | None:
    """The outermost loop around `cmp` in which part of the iterations decide it."""
    loops: list[tir.ForOp] = []
    parent = cmp.parent_op()
    while parent is not None and not isinstance(parent, func.FuncOp):
        if isinstance(parent, tir.ForOp) and parent.kind.data != "thread_binding":
            loops.append(parent)
        parent = parent.parent_op()
    bounds = Bounds()
    readings = Comparison.of(cmp, bounds)
    for loop in reversed(loops):
        lower, upper = constant_value(loop.lower_bound), constant_value(loop.upper_bound)
        if lower is None or upper is None or upper - lower < 2:
            continue
        for reading in readings:
            cut = cut_loop(loop, lower, upper, cmp, reading, bounds)
            if cut is not None:
                return cut
    return None


def cut_loop(
    loop: tir.ForOp,
    lower: int,
    upper: int,
    cmp: arith.CmpiOp,
    reading: Comparison,
    bounds: Bounds,
) -> Cut | None:
    """Where `reading` becomes unknown, then false, as `loop`'s variable grows."""
    form = linear_form(reading.expr)
    variable = loop.induction_variable
    coeff = form.terms.get(variable, 0)
    if coeff <= 0:
        return None
    rest = LinearForm({v: k for v, k in form.terms.items() if v is not variable}, form.constant)
    memo: dict[SSAValue, bool] = {}
    if any(depends_on(v, variable, memo) for v in rest.terms):
        return None
    rest_bounds = form_bounds(rest, bounds)
    if rest_bounds is None:
        return None
    # coeff * v + rest < bound holds for every rest when v < first_unknown, for none when
    # v >= first_false.
    first_unknown = (reading.bound - 1 - rest_bounds.hi) // coeff + 1
    first_false = -((rest_bounds.lo - reading.bound) // coeff)
    first_unknown = min(max(first_unknown, lower), upper)
    first_false = min(max(first_false, first_unknown), upper)
    if first_unknown == lower and first_false == upper:
        return None
    return Cut(loop, cmp, first_unknown, first_false, reading.negated)


def partition(cut: Cut, constant: EntryConstants) -> None:
    """Replace `cut.loop` by its decided and undecided segments."""
    loop = cut.loop
    lower, upper = constant_value(loop.lower_bound), constant_value(loop.upper_bound)
    assert lower is not None and upper is not None
    position = [op for op in loop.walk()].index(cut.cmp)
    segments = [
        (lower, cut.first_unknown, not cut.negated),
        (cut.first_unknown, cut.first_false, None),
        (cut.first_false, upper, cut.negated),
    ]
    for start, stop, outcome in segments:
        if start >= stop:
            continue
        clone = loop.clone()
        clone.operands = (constant(start), constant(stop))
        Rewriter.insert_op(clone, InsertPoint.before(loop))
        if outcome is not None:
            cmp = list(clone.walk())[position]
            value = arith.ConstantOp(IntegerAttr(int(outcome), IntegerType(1)))
            Rewriter.replace_op(cmp, value)
    Rewriter.erase_op(loop)


def partition_function(function: func.FuncOp) -> bool:
    """Cut the loops of `function` until no guard can leave a loop; whether any was cut."""
    changed = False
    # Guards that no loop around them decides in part stay so: a cut clones only the loop
    # around its own guard (new ops, looked at afresh). Not asking again made unrolled
    # recurrent layers (thousands of guards) quadratic: 307 of 378 s of an LSTM's build.
    settled: set[arith.CmpiOp] = set()
    for _ in range(MAX_PARTITIONS):
        cut = None
        for op in function.walk():
            if not isinstance(op, arith.CmpiOp) or op in settled or not is_guard(op):
                continue
            cut = find_cut(op)
            if cut is not None:
                break
            settled.add(op)
        if cut is None:
            break
        partition(cut, EntryConstants(function))
        changed = True
    return changed


@dataclass(frozen=True)
class TirLoopPartitionPass(ModulePass):
    """Split loops around split guards into a guard-free main loop and a guarded tail.

    `tir.for %o = 0 to 3 { tir.for %ii = 0 to 4 { scf.if (o*4+ii < 10) {...} } }` becomes a
    loop over o in [0, 2) without the scf.if, then the tail o = 2 with ii in [0, 2).
    """

    name = "tir-loop-partition"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        functions = [f for f in op.walk() if isinstance(f, func.FuncOp)]
        if not any([partition_function(f) for f in functions]):
            return
        # Fold the decided guards away; drop segments left empty and loops of one iteration.
        patterns = [
            CanonicalizationRewritePattern(),
            EraseEmptyLoop(),
            InlineSingleIterationLoop(),
        ]
        applier = GreedyRewritePatternApplier(patterns, ctx=ctx, folding_enabled=True)
        PatternRewriteWalker(applier).rewrite_module(op)
