"""`tir-vector-accumulate`: lane reductions in a loop accumulate in vectors, reduced once after.

`tir-vectorize` turns an accumulation along a vectorized reduce axis into a `vector.reduction`
of the lanes into the loaded element: `X[u] = reduce(v, X[u])`. Inside an outer serial loop
(dense's `k_outer`, with `k_inner` vectorized) that is a horizontal reduction per step, several
shuffles for one multiply-add. This pass gives the accumulated buffer a vector shadow instead,
as TVM's rfactor does: a buffer `V` of X's shape times the lanes, filled with the combiner's
identity (or X's value, for idempotent max/min) before the loop, `V[u] = combine(V[u], v)` in
the loop, and `X[u] = reduce(V[u], X[u])` for every element after it (reassociating the float
sum, as the lane reduction already did).

It applies to a buffer allocated by the kernel (`memref.alloc`, static shape, at most
`max-elements` elements with the lanes) that a serial or unrolled loop touches only through
such reductions, all of one kind and width; the loop chosen is the outermost such loop below the
allocation with only serial or unrolled loops between it and the reductions. Anything else is
left as it is.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import arith, memref, vector
from xdsl.dialects.builtin import (
    AnyFloat,
    FloatAttr,
    IntegerAttr,
    MemRefType,
    ModuleOp,
    VectorType,
)
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from xtvm.dialects import tir
from xtvm.passes.tir_bounds import index_constant
from xtvm.passes.tir_vectorize import REDUCTION_KINDS

# Kinds whose combiner has an identity the shadow starts from; the others (max, min, and, or)
# are idempotent: the shadow starts from the element itself.
ADDITIVE = {"add": 0, "mul": 1, "xor": 0}


@dataclass(frozen=True)
class Accumulation:
    """`store(reduction(v, load(X[u])), X[u])` in one block."""

    load: memref.LoadOp
    reduction: vector.ReductionOp
    store: memref.StoreOp

    @property
    def kind(self) -> str:
        return str(self.reduction.kind.data)

    @property
    def lanes(self) -> VectorType:
        typ = self.reduction.vector.type
        assert isinstance(typ, VectorType)
        return typ


def accumulation_of(op: vector.ReductionOp) -> Accumulation | None:
    acc = op.acc
    if acc is None or not isinstance(load := acc.owner, memref.LoadOp):
        return None
    store = op.dest.get_user_of_unique_use()
    if (
        not isinstance(store, memref.StoreOp)
        or store.memref is not load.memref
        or store.value is not op.dest
        or store.parent_block() is not load.parent_block()
        or load.res.get_user_of_unique_use() is not op
        or list(store.indices) != list(load.indices)
    ):
        return None
    return Accumulation(load, op, store)


def combiner(kind: str, element: Attribute) -> type[Operation]:
    """The arith op that combines two vectors as `vector.reduction <kind>` does."""
    is_float = isinstance(element, AnyFloat)
    for op_type, op_kind in REDUCTION_KINDS.items():
        if op_kind == kind and (op_type.__name__.endswith(("fOp", "FOp")) == is_float):
            return op_type
    raise KeyError(kind)


def loops_between(op: Operation, ancestor_block: object) -> list[tir.ForOp]:
    """The tir.for ops enclosing `op` below `ancestor_block`, outermost first; [] when `op`
    does not lie under that block."""
    loops: list[tir.ForOp] = []
    parent = op.parent_op()
    while parent is not None:
        if isinstance(parent, tir.ForOp):
            loops.append(parent)
        if parent.parent_block() is ancestor_block:
            return loops[::-1]
        parent = parent.parent_op()
    return []


EmitElement = Callable[[InsertPoint, list[SSAValue], SSAValue], None]
"""Emits, at an insertion point, the work on one buffer element (its indices, an index 0)."""


@dataclass
class VectorAccumulate:
    max_elements: int

    def run(self, module: ModuleOp) -> None:
        by_buffer: dict[SSAValue, list[Accumulation]] = {}
        for op in module.walk():
            if isinstance(op, vector.ReductionOp) and (acc := accumulation_of(op)) is not None:
                by_buffer.setdefault(acc.store.memref, []).append(acc)
        for buffer, found in by_buffer.items():
            loop = self.choose_loop(buffer, found)
            if loop is not None:
                self.rewrite(buffer, [a for a in found if loop.is_ancestor(a.store)], loop)

    def choose_loop(self, buffer: SSAValue, found: list[Accumulation]) -> tir.ForOp | None:
        alloc = buffer.owner
        typ = buffer.type
        if not isinstance(alloc, memref.AllocOp) or not isinstance(typ, MemRefType):
            return None
        if any(d < 0 for d in typ.get_shape()):
            return None
        if len({(a.kind, a.lanes) for a in found}) != 1:
            return None
        lanes = found[0].lanes.get_shape()[0]
        if math.prod(typ.get_shape()) * lanes > self.max_elements:
            return None
        chains = [loops_between(a.reduction, alloc.parent_block()) for a in found]
        if not all(chains):
            return None
        accesses = {a.load for a in found} | {a.store for a in found}
        for depth, loop in enumerate(chains[0]):
            if any(len(c) <= depth or c[depth] is not loop for c in chains):
                return None
            if any(c.kind.data not in ("serial", "unrolled") for c in chains[0][depth:]):
                continue
            if all(
                use.operation in accesses for use in buffer.uses if loop.is_ancestor(use.operation)
            ):
                return loop
        return None

    def rewrite(self, buffer: SSAValue, found: list[Accumulation], loop: tir.ForOp) -> None:
        typ = buffer.type
        assert isinstance(typ, MemRefType)
        lanes = found[0].lanes
        kind = found[0].kind
        element = typ.element_type
        shadow_type = MemRefType(element, [*typ.get_shape(), lanes.get_shape()[0]])
        shadow = memref.AllocOp([], [], shadow_type)
        shadow.memref.name_hint = f"{buffer.name_hint or 'acc'}_lanes"
        Rewriter.insert_op(shadow, InsertPoint.before(loop))

        def over_elements(at: InsertPoint, emit: EmitElement) -> None:
            """Emit `emit(indices)` for every element of the buffer, in unrolled loops."""
            zero = index_constant(0)
            Rewriter.insert_op(zero, at)
            indices: list[SSAValue] = []
            for extent in typ.get_shape():
                upper = index_constant(extent)
                nest = tir.ForOp(zero.result, upper.result, "unrolled")
                Rewriter.insert_op([upper, nest], at)
                nest.induction_variable.name_hint = f"e{len(indices)}"
                indices.append(nest.induction_variable)
                nest.body.block.add_op(tir.YieldOp())
                at = InsertPoint.before(nest.body.block.last_op)  # type: ignore[arg-type]
            emit(at, indices, zero.result)

        def initialize(at: InsertPoint, indices: list[SSAValue], zero: SSAValue) -> None:
            if kind in ADDITIVE:
                identity = ADDITIVE[kind]
                attr = (
                    FloatAttr(float(identity), element)  # type: ignore[arg-type]
                    if isinstance(element, AnyFloat)
                    else IntegerAttr(identity, element)  # type: ignore[arg-type]
                )
                start: Operation = arith.ConstantOp(attr)
                ops: list[Operation] = [start]
            else:
                start = memref.LoadOp.get(buffer, indices)
                ops = [start]
            splat = vector.BroadcastOp(start.results[0], lanes)
            ops += [splat, vector.StoreOp(splat.vector, shadow.memref, [*indices, zero])]
            Rewriter.insert_op(ops, at)

        def finish(at: InsertPoint, indices: list[SSAValue], zero: SSAValue) -> None:
            current = memref.LoadOp.get(buffer, indices)
            lanes_value = vector.LoadOp(shadow.memref, [*indices, zero], lanes)
            total = vector.ReductionOp.create(
                operands=[lanes_value.result, current.res],
                result_types=[element],
                properties=dict(found[0].reduction.properties),
            )
            store = memref.StoreOp.get(total.results[0], buffer, indices)
            Rewriter.insert_op([current, lanes_value, total, store], at)

        over_elements(InsertPoint.before(loop), initialize)
        after = InsertPoint.after(loop)
        free = memref.DeallocOp.get(shadow.memref)
        Rewriter.insert_op(free, after)
        over_elements(InsertPoint.before(free), finish)

        combine = combiner(kind, element)
        for acc in found:
            zero = index_constant(0)
            indices = [*acc.load.indices, zero.result]
            old = vector.LoadOp(shadow.memref, indices, lanes)
            new = combine.create(operands=[old.result, acc.reduction.vector], result_types=[lanes])
            Rewriter.insert_op([zero, old, new], InsertPoint.before(acc.store))
            Rewriter.insert_op(
                vector.StoreOp(new.results[0], shadow.memref, indices),
                InsertPoint.before(acc.store),
            )
            for dead in (acc.store, acc.reduction, acc.load):
                Rewriter.erase_op(dead)


@dataclass(frozen=True)
class TirVectorAccumulatePass(ModulePass):
    """Accumulate lane reductions of a loop in vectors, reduced once after the loop.

    `X[u] = vector.reduction <add>, %v, X[u]` in a serial loop becomes `V[u] = V[u] + %v`
    in the loop, with `V` zero before it and `X[u] = vector.reduction <add>, V[u], X[u]` after.
    """

    name = "tir-vector-accumulate"
    max_elements: int = 4096

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        VectorAccumulate(self.max_elements).run(op)
