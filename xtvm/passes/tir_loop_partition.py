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

A select guard (a clamped padding read, `te.ClampedSelect`: `select(inside, x[clamp(i)], 0)`)
is cut only where it leaves an interior: loops over output tiles, not a reduction's. The
border segments keep their selects (they are not cut again), and a parallel loop is not
cut but has its body versioned (`if interior {copy without the guard} else {border}`), one
parallel loop, one dispatch. A depthwise conv2d's code thus grows by about 3-5 copies of
its tile, where branches cut down to every tap grew it 2-6x more.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import arith, func, memref, scf
from xdsl.dialects.builtin import IntegerAttr, IntegerType, ModuleOp, UnitAttr
from xdsl.ir import Block, Operation, Region, SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import PatternRewriteWalker
from xdsl.rewriter import InsertPoint, Rewriter

from xtvm.dialects import tir
from xtvm.passes.canonicalize import CanonicalizationRewritePattern
from xtvm.passes.dead_code import greedy
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


BORDER = "tir.border"  # marks a guard left in place: a border segment's select, a version test


def guard_kind(cmp: arith.CmpiOp) -> str | None:
    """ "branch" when `cmp` decides an `scf.if`, "select" when it decides an `arith.select`
    of a loaded value (a clamped padding read), alone or in a conjunction; else None."""
    pending, seen = [cmp.result], set()
    kind = None
    while pending:
        value = pending.pop()
        for use in value.uses:
            user = use.operation
            if isinstance(user, scf.IfOp):
                return "branch"
            if isinstance(user, arith.SelectOp) and use.index == 0 and loads_a_value(user):
                kind = "select"
            if isinstance(user, arith.AndIOp) and user not in seen:
                seen.add(user)
                pending.append(user.result)
    return kind


def loads_a_value(select: arith.SelectOp) -> bool:
    """Whether one of the values `select` chooses between is read from memory."""
    return any(isinstance(v.owner, memref.LoadOp) for v in (select.lhs, select.rhs))


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
    kind: str  # of guard_kind


def over_tiles(loop: tir.ForOp) -> bool:
    """Whether `loop` runs over output tiles (parallel, or allocating a tile's accumulator):
    the loops a select guard may cut. Cutting a reduction's loops as well cost a 28x28x192
    depthwise conv2d a third of its speed (22 -> 28 us) for more code."""
    if loop.kind.data == "parallel":
        return True
    return any(isinstance(op, memref.AllocOp) for op in loop.body.block.ops)


def find_cut(cmp: arith.CmpiOp, kind: str) -> Cut | None:
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
        if kind == "select" and not over_tiles(loop):
            continue
        for reading in readings:
            cut = cut_loop(loop, lower, upper, cmp, reading, bounds, kind)
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
    kind: str,
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
    return Cut(loop, cmp, first_unknown, first_false, reading.negated, kind)


def mark_border(op: Operation) -> None:
    """Keep the select guards under `op` as they are (a border segment's)."""
    for inner in op.walk():
        if isinstance(inner, arith.CmpiOp) and guard_kind(inner) == "select":
            inner.attributes[BORDER] = UnitAttr()


def versioned_block(cmp: arith.CmpiOp, loop: tir.ForOp) -> Block:
    """The block to version for `cmp`: the decided side of the innermost version test
    around it already (or `loop`'s body), so that a border copy is not copied again."""
    op: Operation | None = cmp
    while op is not None and op is not loop:
        parent = op.parent_op()
        if parent is loop or (isinstance(parent, scf.IfOp) and BORDER in parent.attributes):
            block = op.parent_block()
            assert block is not None
            return block
        op = parent
    return loop.body.block


def version_body(cut: Cut, decided: tuple[int, int, bool], constant: EntryConstants) -> None:
    """Split the body of the parallel `cut.loop` by an `scf.if` on its variable: a copy
    where the guard is `decided` (its range and outcome) and the border copy. Cutting the
    loop instead would make one parallel loop of each segment, each a dispatch to the
    thread pool (several microseconds on a small depthwise conv2d)."""
    loop = cut.loop
    block = versioned_block(cut.cmp, loop)
    variable = loop.induction_variable
    start, stop, outcome = decided
    body = [op for op in block.ops if not isinstance(op, tir.YieldOp | scf.YieldOp)]
    mapping: dict[SSAValue, SSAValue] = {}
    decided_ops = [op.clone(value_mapper=mapping) for op in body]
    for op in body:
        op.detach()
    tests = []
    if start > constant_value(loop.lower_bound):  # type: ignore[operator]
        tests.append(arith.CmpiOp(variable, constant(start), "sge"))
    if stop < constant_value(loop.upper_bound):  # type: ignore[operator]
        tests.append(arith.CmpiOp(variable, constant(stop), "slt"))
    for test in tests:
        test.attributes[BORDER] = UnitAttr()
    condition = tests[0] if len(tests) == 1 else arith.AndIOp(*tests)
    inside = [*tests, *([condition] if condition not in tests else [])]
    branch = scf.IfOp(
        condition,
        [],
        Region(Block([*decided_ops, scf.YieldOp()])),
        Region(Block([*body, scf.YieldOp()])),
    )
    branch.attributes[BORDER] = UnitAttr()
    Rewriter.insert_op([*inside, branch], InsertPoint.before(block.last_op))  # type: ignore[arg-type]
    cmp = mapping[cut.cmp.result].owner
    assert isinstance(cmp, Operation)
    value = arith.ConstantOp(IntegerAttr(int(outcome), IntegerType(1)))
    Rewriter.replace_op(cmp, value)
    for op in body:
        mark_border(op)


def decided_branch(cut: Cut) -> scf.IfOp | None:
    """The scf.if whose condition is `cut.cmp` itself, if any."""
    if cut.kind != "branch":
        return None
    for use in cut.cmp.result.uses:
        if isinstance(use.operation, scf.IfOp) and use.index == 0:
            return use.operation
    return None


def clone_without(loop: tir.ForOp, region: Region) -> tir.ForOp:
    """A clone of `loop` in which `region` (nested in it) is empty: its blocks are set aside
    while cloning, so that they are never copied."""
    blocks = list(region.blocks)
    for block in blocks:
        region.detach_block(block)
    try:
        return loop.clone()
    finally:
        for block in blocks:
            region.add_block(block)


def take_branch(branch: scf.IfOp, outcome: bool) -> None:
    """Replace `branch` by the ops of the region `outcome` chooses, its results by the values
    that region yields (nothing for an absent else)."""
    region = branch.true_region if outcome else branch.false_region
    yielded: list[SSAValue] = []
    if region.blocks:
        for op in list(region.block.ops):
            op.detach()
            if isinstance(op, scf.YieldOp):
                yielded = list(op.operands)
                op.erase()
            else:
                Rewriter.insert_op(op, InsertPoint.before(branch))
    for result, value in zip(branch.results, yielded, strict=True):
        result.replace_all_uses_with(value)
    Rewriter.erase_op(branch)


def partition(
    cut: Cut, constant: EntryConstants, walked: list[Operation]
) -> tuple[list[Operation], bool]:
    """Replace `cut.loop` by its decided and undecided segments (`walked`: the loop's ops in
    walk order); the ops now in its place (the loop itself last), and whether the ops of
    `walked` still in the loop are still in walk order (not so in a versioned loop)."""
    loop = cut.loop
    lower, upper = constant_value(loop.lower_bound), constant_value(loop.upper_bound)
    assert lower is not None and upper is not None
    position = walked.index(cut.cmp)
    segments = [
        (lower, cut.first_unknown, not cut.negated),
        (cut.first_unknown, cut.first_false, None),
        (cut.first_false, upper, cut.negated),
    ]
    decided = [s for s in segments if s[2] is not None and s[0] < s[1]]
    border = cut.first_unknown < cut.first_false
    if cut.kind == "select" and loop.kind.data == "parallel" and len(decided) == 1 and border:
        version_body(cut, decided[0], constant)
        return [loop], False
    # The last segment is the loop itself, its bounds narrowed: one clone fewer per cut.
    # Where the guard decides an scf.if, a decided segment holds only the branch taken: the
    # other is neither cloned nor kept. A concatenate of 64 inputs (an LSTM's outputs) is a
    # chain of 64 branches cut 64 times; cloning the whole chain each time was quadratic.
    kept = [s for s in segments if s[0] < s[1]]
    branch = decided_branch(cut)
    pieces: list[Operation] = []
    for i, (start, stop, outcome) in enumerate(kept):
        if i == len(kept) - 1:
            piece = loop
        elif branch is not None and outcome is not None:
            piece = clone_without(loop, branch.false_region if outcome else branch.true_region)
        else:
            piece = loop.clone()
        if piece is not loop:
            Rewriter.insert_op(piece, InsertPoint.before(loop))
        piece.operands = (constant(start), constant(stop))
        pieces.append(piece)
        if outcome is not None:
            ops = list(piece.walk()) if piece is not loop else walked
            if branch is not None:
                take_branch(ops[walked.index(branch)], outcome)  # type: ignore[arg-type]
            cmp = ops[position]
            if cmp.results[0].uses:
                value = arith.ConstantOp(IntegerAttr(int(outcome), IntegerType(1)))
                Rewriter.replace_op(cmp, value)
            else:  # it decided that branch only: gone, not cloned into every later segment
                Rewriter.erase_op(cmp)
        elif cut.kind == "select":
            # A border (padding) segment keeps its selects: cutting the loops inside it
            # again, down to the reduction's, grew a depthwise conv2d's code 2-6x.
            mark_border(piece)
    return pieces, True


def partition_function(function: func.FuncOp) -> bool:
    """Cut the loops of `function` until no guard can leave a loop; whether any was cut."""
    # Guards that no loop around them decides in part stay so: a cut clones only the loop
    # around its own guard (new ops, looked at afresh). Not asking again made unrolled
    # recurrent layers (thousands of guards) quadratic: 307 of 378 s of an LSTM's build.
    # The guards wait in walk order; a cut puts those of the ops replacing its loop first,
    # as a fresh walk would meet them (walking the whole function again after each cut was
    # most of what remained of an LSTM's loop partition).
    settled: set[arith.CmpiOp] = set()
    pending = deque(op for op in function.walk() if isinstance(op, arith.CmpiOp))
    dead: set[Operation] = set()
    cuts = 0
    while pending and cuts < MAX_PARTITIONS:
        op = pending.popleft()
        if op in dead or op in settled or BORDER in op.attributes:
            continue
        kind = guard_kind(op)
        cut = find_cut(op, kind) if kind is not None else None
        if cut is None:
            settled.add(op)
            continue
        loop = cut.loop
        walked = list(loop.walk())  # the one walk of the loop per cut: it may be large
        dead.update(inner for inner in walked if isinstance(inner, arith.CmpiOp))
        roots, in_order = partition(cut, EntryConstants(function), walked)
        # The loop itself is one of them: its settled guards are looked at again, as a
        # clone's would be (narrower bounds may decide them).
        settled.difference_update(walked)
        fresh = [
            inner
            for root in roots
            for inner in (
                (op for op in walked if loop.is_ancestor(op))
                if root is loop and in_order
                else root.walk()
            )
            if isinstance(inner, arith.CmpiOp) and inner not in settled
        ]
        dead.difference_update(fresh)  # a versioned loop keeps some of its ops
        pending.extendleft(reversed(fresh))
        cuts += 1
    for op in function.walk():
        op.attributes.pop(BORDER, None)
    return cuts > 0


@dataclass(frozen=True)
class TirLoopPartitionPass(ModulePass):
    """Split loops around split guards into a guard-free main loop and a guarded tail.

    `tir.for %o = 0 to 3 { tir.for %ii = 0 to 4 { scf.if (o*4+ii < 10) {...} } }` becomes a
    loop over o in [0, 2) without the scf.if, then the tail o = 2 with ii in [0, 2).
    """

    name = "tir-loop-partition"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        functions = [f for f in op.walk() if isinstance(f, func.FuncOp)]
        cut = [f for f in functions if partition_function(f)]
        # Fold the decided guards away; drop segments left empty and loops of one iteration.
        # Only in the functions cut: the others have nothing decided (walking them too was
        # a third of this pass on an LSTM's kernels).
        patterns = [
            CanonicalizationRewritePattern(),
            EraseEmptyLoop(),
            InlineSingleIterationLoop(),
        ]
        applier = greedy(patterns, ctx, folding=True)
        for function in cut:
            PatternRewriteWalker(applier).rewrite_region(function.body)
