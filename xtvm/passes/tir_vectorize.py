"""`tir-vectorize`: turn `vectorized` loops of constant extent into vector code.

TVM's VectorizeLoop, on xDSL's vector dialect. The loop over `v` in [lb, lb + W) disappears and
each op of its body is rewritten once, for all W lanes, according to how its value varies:

- *uniform* values (defined outside the loop, or computed from such values only) stay scalar;
  a vector op that needs one gets it through `vector.broadcast`;
- *linear* index values `base + stride * lane` (the loop variable, and sums and constant
  multiples of it) stay scalar bases until an op needs them as vectors;
- `memref.load`/`memref.store` whose last index is the loop variable plus a uniform offset (and
  whose other indices are uniform) become `vector.load`/`vector.store` of `vector<W x T>`; a
  load whose last index steps by 2 to MAX_LOAD_STRIDE per lane (a strided window) becomes one
  load of the span its lanes cover and a `vector.shuffle` picking every stride-th element;
- arith and math ops with a varying operand become the same op on vectors;
- an accumulation into one element (`X[u] = X[u] + value`, X not otherwise touched in the loop)
  becomes a `vector.reduction` of the lanes into the loaded scalar (the float sum is reassociated);
- a nested loop or an `scf.if` on a uniform condition keeps its structure, its body rewritten.

Anything else — a gather or scatter (index not contiguous along the loop), a branch on a
condition that varies per lane, a call, a store whose lanes may overlap (a buffer written at
indices that differ between its accesses, or that depend on a nested loop) — leaves the loop a
serial loop and emits a `VectorizeRemark` warning naming the loop and the reason, never wrong
code. Run it after `tir-loop-partition`, which removes the guards of non-dividing splits.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field

from xdsl.context import Context
from xdsl.dialects import arith, memref, scf, vector
from xdsl.dialects.builtin import (
    AnyFloat,
    DenseArrayBase,
    DenseIntOrFPElementsAttr,
    FileLineColLoc,
    FloatAttr,
    IndexType,
    IntegerAttr,
    ModuleOp,
    StringAttr,
    VectorType,
    i64,
)
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter
from xdsl.utils.exceptions import VerifyException

from xtvm.dialects import tir
from xtvm.dialects.tir import MAX_LOAD_STRIDE
from xtvm.passes.tir_bounds import constant_value, depends_on, index_constant, linear_form

# Commutative, associative combiners an accumulation may use, by vector.reduction kind.
REDUCTION_KINDS: dict[type[Operation], str] = {
    arith.AddfOp: "add",
    arith.AddiOp: "add",
    arith.MulfOp: "mul",
    arith.MuliOp: "mul",
    arith.MaximumfOp: "maximumf",
    arith.MinimumfOp: "minimumf",
    arith.MaxnumfOp: "maxnumf",
    arith.MinnumfOp: "minnumf",
    arith.MaxSIOp: "maxsi",
    arith.MinSIOp: "minsi",
    arith.MaxUIOp: "maxui",
    arith.MinUIOp: "minui",
    arith.AndIOp: "and",
    arith.OrIOp: "or",
    arith.XOrIOp: "xor",
}


class VectorizeRemark(UserWarning):
    """A `vectorized` loop was left serial; the message says where and why."""


class NotVectorizable(Exception):
    """Raised while rewriting a loop body: `op` cannot be vectorized, for `reason`."""

    def __init__(self, op: Operation, reason: str) -> None:
        super().__init__(reason)
        self.op = op
        self.reason = reason


def where(op: Operation) -> str:
    loc = op.location
    if isinstance(loc, FileLineColLoc):
        return f"{loc.filename.data}:{loc.line.data}:{loc.column.data}"
    return "<unknown>"


@dataclass(frozen=True)
class Uniform:
    """The same scalar in every lane."""

    value: SSAValue


@dataclass(frozen=True)
class Linear:
    """`base + stride * lane`: an index that steps along the lanes."""

    base: SSAValue
    stride: int


@dataclass(frozen=True)
class Varying:
    """One value per lane, as a vector."""

    value: SSAValue


@dataclass(frozen=True)
class Wrapped:
    """`(base + lane) // width` (a row) or `(base + lane) % width` (a `column`): a fused loop
    over whole rows of `width` elements (a 7x7 plane), contiguous in a buffer whose last
    dimension is `width` when both index it, row then column."""

    base: SSAValue
    width: int
    column: bool


Lane = Uniform | Linear | Varying | Wrapped


@dataclass(frozen=True)
class Reduction:
    """`X[u] = combine(X[u], value)`: folded into a `vector.reduction` of `value`'s lanes."""

    load: memref.LoadOp
    combine: Operation
    kind: str


def same_indices(a: Operation, b: Operation) -> bool:
    """Whether two accesses use equal index expressions (as linear forms)."""
    ia = a.indices  # type: ignore[attr-defined]
    ib = b.indices  # type: ignore[attr-defined]
    return len(ia) == len(ib) and all(
        linear_form(x) == linear_form(y) for x, y in zip(ia, ib, strict=True)
    )


def accesses(loop: tir.ForOp) -> dict[SSAValue, list[Operation]]:
    """The loads and stores in `loop`, by buffer."""
    found: dict[SSAValue, list[Operation]] = {}
    for op in loop.walk():
        if isinstance(op, memref.LoadOp | memref.StoreOp):
            found.setdefault(op.memref, []).append(op)
    return found


def find_reductions(
    loop: tir.ForOp, by_buffer: dict[SSAValue, list[Operation]]
) -> dict[Operation, Reduction]:
    """Top-level accumulations into one element of a buffer the loop touches nowhere else."""
    variable = loop.induction_variable
    reductions: dict[Operation, Reduction] = {}
    for store in loop.body.block.ops:
        if not isinstance(store, memref.StoreOp) or len(by_buffer[store.memref]) != 2:
            continue
        memo: dict[SSAValue, bool] = {}
        if any(depends_on(i, variable, memo) for i in store.indices):
            continue
        combine = store.value.owner
        kind = REDUCTION_KINDS.get(type(combine))  # type: ignore[arg-type]
        if kind is None or not isinstance(combine, Operation):
            continue
        for operand in combine.operands:
            load = operand.owner
            if (
                isinstance(load, memref.LoadOp)
                and load.memref is store.memref
                and load.parent_block() is loop.body.block
                and same_indices(load, store)
                and load.res.get_user_of_unique_use() is combine
            ):
                reductions[store] = Reduction(load, combine, kind)
                reductions[load] = reductions[store]
                reductions[combine] = reductions[store]
    return reductions


def check_stores(
    loop: tir.ForOp,
    by_buffer: dict[SSAValue, list[Operation]],
    reductions: dict[Operation, Reduction],
) -> None:
    """Refuse a loop whose lanes may write what other lanes read or write.

    Every access to a stored buffer must use the same indices, and those may depend on the
    vectorized variable but on no loop nested in it: lanes then touch disjoint elements.
    """
    nested = [
        op.body.block.args[0]
        for op in loop.walk()
        if isinstance(op, tir.ForOp | scf.ForOp) and op is not loop
    ]
    for ops in by_buffer.values():
        stores = [op for op in ops if isinstance(op, memref.StoreOp)]
        if not stores or stores[0] in reductions:
            continue
        first = stores[0]
        for op in ops:
            if not same_indices(op, first):
                raise NotVectorizable(
                    op,
                    "lanes may overlap: the buffer is stored and accessed "
                    "at different indices in the loop",
                )
        for variable in nested:
            memo: dict[SSAValue, bool] = {}  # answers are per variable
            if any(depends_on(i, variable, memo) for i in first.indices):
                raise NotVectorizable(
                    first, "lanes may overlap: a stored index depends on a nested loop"
                )


@dataclass
class LoopVectorizer:
    """Rewrites the body of one `vectorized` loop of `lanes` iterations into vector code."""

    loop: tir.ForOp
    lanes: int
    values: dict[SSAValue, Lane] = field(default_factory=dict)
    reductions: dict[Operation, Reduction] = field(default_factory=dict)
    broadcasts: dict[tuple[SSAValue, Block], SSAValue] = field(default_factory=dict)
    block: Block = field(default_factory=Block)

    def run(self) -> Block:
        """The vector code replacing the loop, in a detached block; NotVectorizable if none."""
        by_buffer = accesses(self.loop)
        self.reductions = find_reductions(self.loop, by_buffer)
        check_stores(self.loop, by_buffer, self.reductions)
        self.values[self.loop.induction_variable] = Linear(self.loop.lower_bound, 1)
        self.body(self.loop.body.block, self.block)
        return self.block

    # -- building ------------------------------------------------------------------------

    def add(self, op: Operation) -> SSAValue:
        self.block.add_op(op)
        return op.results[0] if op.results else None  # type: ignore[return-value]

    def lane(self, value: SSAValue) -> Lane:
        return self.values.get(value, Uniform(value))

    def vector_type(self, element: Attribute) -> VectorType:
        return VectorType(element, [self.lanes])

    def as_vector(self, value: SSAValue) -> SSAValue:
        """`value` with one element per lane, broadcasting or stepping what is scalar."""
        return self.lane_vector(self.lane(value))

    def lane_vector(self, lane: Lane) -> SSAValue:
        if isinstance(lane, Varying):
            return lane.value
        if isinstance(lane, Wrapped):
            steps = self.lane_vector(Linear(lane.base, 1))
            width = self.lane_vector(Uniform(self.add(index_constant(lane.width))))
            split = arith.RemUIOp if lane.column else arith.DivUIOp
            return self.add(split(steps, width))
        base = lane.value if isinstance(lane, Uniform) else lane.base
        key = (base, self.block)
        if key not in self.broadcasts:
            self.broadcasts[key] = self.add(vector.BroadcastOp(base, self.vector_type(base.type)))
        splat = self.broadcasts[key]
        if isinstance(lane, Uniform):
            return splat
        steps = DenseIntOrFPElementsAttr.from_list(
            self.vector_type(IndexType()), [lane.stride * k for k in range(self.lanes)]
        )
        return self.add(arith.AddiOp(splat, self.add(arith.ConstantOp(steps))))

    def uniform(self, value: SSAValue, op: Operation, what: str) -> SSAValue:
        lane = self.lane(value)
        if not isinstance(lane, Uniform):
            raise NotVectorizable(op, f"{what} varies across lanes")
        return lane.value

    # -- ops -----------------------------------------------------------------------------

    def body(self, source: Block, target: Block) -> None:
        outer, self.block = self.block, target
        for op in source.ops:
            if not isinstance(op, tir.YieldOp | scf.YieldOp):
                self.op(op)
        self.block = outer

    def op(self, op: Operation) -> None:
        if op in self.reductions and op is self.reductions[op].combine:
            self.reduce(op, self.reductions[op])
        elif isinstance(op, memref.LoadOp):
            self.load(op)
        elif isinstance(op, memref.StoreOp):
            self.store(op)
        elif isinstance(op, tir.ForOp):
            self.nested_loop(op)
        elif isinstance(op, scf.IfOp):
            self.branch(op)
        elif op.dialect_name() in ("arith", "math") and not op.regions:
            self.compute(op)
        else:
            raise NotVectorizable(op, f"'{op.name}' op cannot be vectorized")

    def scalar_clone(self, op: Operation) -> None:
        mapping = {v: self.uniform(v, op, "an operand") for v in op.operands}
        clone = op.clone(value_mapper=mapping)
        self.add(clone)
        for old, new in zip(op.results, clone.results, strict=True):
            self.values[old] = Uniform(new)

    def access(self, op: memref.LoadOp | memref.StoreOp) -> list[SSAValue] | None:
        """Indices of a contiguous vector access, or None when every index is uniform."""
        lanes = [self.lane(i) for i in op.indices]
        if all(isinstance(lane, Uniform) for lane in lanes):
            return None
        wrapped = self.whole_rows(op, lanes)
        if wrapped is not None:
            return wrapped
        *outer, last = lanes
        if not all(isinstance(lane, Uniform) for lane in outer):
            raise NotVectorizable(op, "strided access: an outer index varies across lanes")
        if not isinstance(last, Linear) or last.stride != 1:
            raise NotVectorizable(op, "gather or scatter: the index is not contiguous")
        return [lane.value for lane in outer] + [last.base]  # type: ignore[union-attr]

    def whole_rows(
        self, op: memref.LoadOp | memref.StoreOp, lanes: list[Lane]
    ) -> list[SSAValue] | None:
        """Indices of an access whose last two indices are the row and column of a fused
        loop over whole rows of the buffer (`Wrapped`): its lanes are consecutive elements
        of the row-major buffer, read from the first lane's element on (a vector that runs on
        past the end of a row). None for any other access."""
        if len(lanes) < 2:
            return None
        *outer, row, column = lanes
        shape = op.memref.type.get_shape()  # type: ignore[attr-defined]
        if not (
            isinstance(row, Wrapped)
            and isinstance(column, Wrapped)
            and not row.column
            and column.column
            and row.base is column.base
            and row.width == column.width == shape[-1]
            and all(isinstance(lane, Uniform) for lane in outer)
        ):
            return None
        # Row 0, column `base`: the same element as row base // width, column base % width,
        # in address arithmetic LLVM sees through (accumulators a constant distance apart).
        first = [self.add(index_constant(0)), row.base]
        return [lane.value for lane in outer] + first  # type: ignore[union-attr]

    def transposed(self, op: memref.LoadOp) -> tuple[int, list[SSAValue]] | None:
        """(dimension, indices) of a load whose lanes step by one along an outer dimension of
        a buffer of 32- or 64-bit elements (a transposing copy's read), else None."""
        lanes = [self.lane(i) for i in op.indices]
        varying = [k for k, lane in enumerate(lanes) if not isinstance(lane, Uniform)]
        if len(varying) != 1 or varying[0] == len(lanes) - 1:
            return None
        dim = varying[0]
        lane = lanes[dim]
        bits = getattr(op.res.type, "bitwidth", None)
        if not isinstance(lane, Linear) or lane.stride != 1 or bits not in (32, 64):
            return None
        return dim, [lane.base if isinstance(lane, Linear) else lane.value for lane in lanes]  # type: ignore[union-attr]

    def load(self, op: memref.LoadOp) -> None:
        transposed = self.transposed(op)
        if transposed is not None:
            dim, indices = transposed
            element = op.res.type
            zero = (
                FloatAttr(0.0, element)
                if isinstance(element, AnyFloat)
                else IntegerAttr(0, element)
            )  # type: ignore[arg-type]
            padding = self.add(arith.ConstantOp(zero))
            read = tir.transposed_read(op.memref, indices, dim, padding, self.vector_type(element))
            self.values[op.res] = Varying(self.add(read))
            return
        strided = self.strided(op)
        if strided is not None:
            indices, stride = strided
            span = VectorType(op.res.type, [(self.lanes - 1) * stride + 1])
            loaded = self.add(vector.LoadOp(op.memref, indices, span))
            picks = DenseArrayBase.from_list(i64, [stride * k for k in range(self.lanes)])
            typ = self.vector_type(op.res.type)
            picked = vector.ShuffleOp(loaded, loaded, picks, result_type=typ)
            self.values[op.res] = Varying(self.add(picked))
            return
        indices = self.access(op)
        if indices is None:
            self.scalar_clone(op)
            return
        typ = self.vector_type(op.res.type)
        self.values[op.res] = Varying(self.add(vector.LoadOp(op.memref, indices, typ)))

    def strided(self, op: memref.LoadOp) -> tuple[list[SSAValue], int] | None:
        """(indices, stride) of a load whose lanes step by a small constant along the last
        dimension (a stride-2 window's taps), else None. It becomes one contiguous load of
        the span the lanes cover (no element past the last lane's) and a shuffle picking
        every `stride`-th element."""
        if not op.indices:  # a 0-d buffer (a shared scalar constant) is uniform
            return None
        *outer, last = (self.lane(i) for i in op.indices)
        if not isinstance(last, Linear) or not 1 < last.stride <= MAX_LOAD_STRIDE:
            return None
        if not all(isinstance(lane, Uniform) for lane in outer):
            return None
        return [lane.value for lane in outer] + [last.base], last.stride  # type: ignore[union-attr]

    def store(self, op: memref.StoreOp) -> None:
        indices = self.access(op)
        if indices is None:
            if op not in self.reductions:
                raise NotVectorizable(op, "every lane stores to the same element")
            self.scalar_clone(op)
            return
        self.add(vector.StoreOp(self.as_vector(op.value), op.memref, indices))

    def reduce(self, op: Operation, reduction: Reduction) -> None:
        acc, value = op.operands
        if acc is not reduction.load.res:
            acc, value = value, acc
        props = {"kind": vector.CombiningKindAttr(vector.CombiningKindFlag(reduction.kind))}
        total = vector.ReductionOp.create(
            operands=[self.as_vector(value), self.uniform(acc, op, "the accumulator")],
            result_types=[op.results[0].type],
            properties=props,
        )
        self.values[op.results[0]] = Uniform(self.add(total))

    def nested_loop(self, op: tir.ForOp) -> None:
        lower = self.uniform(op.lower_bound, op, "a nested loop bound")
        upper = self.uniform(op.upper_bound, op, "a nested loop bound")
        thread = op.thread.data if op.thread is not None else None
        annotations = dict(op.annotations.data) if op.annotations is not None else None
        loop = tir.ForOp(lower, upper, op.kind.data, thread, annotations=annotations)
        loop.attributes.update(op.attributes)
        body = loop.body.block
        body.args[0].name_hint = op.induction_variable.name_hint
        self.values[op.induction_variable] = Uniform(body.args[0])
        self.add(loop)
        self.body(op.body.block, body)
        body.add_op(tir.YieldOp())

    def branch(self, op: scf.IfOp) -> None:
        """A branch on a uniform condition: both sides vectorized, its results vectors (a
        padding stage's `if (row inside) load else 0` under a partitioned column loop)."""
        condition = self.uniform(op.cond, op, "a branch condition")
        regions = []
        for region in (op.true_region, op.false_region):
            if not region.blocks:
                regions.append(Region())
                continue
            block = Block()
            self.body(region.block, block)
            outer, self.block = self.block, block
            yielded = [self.as_vector(v) for v in region.block.ops.last.operands]  # type: ignore[union-attr]
            self.block = outer
            block.add_op(scf.YieldOp(*yielded))
            regions.append(Region(block))
        result_types = [self.vector_type(r.type) for r in op.results]
        new = scf.IfOp(condition, result_types, regions[0], regions[1])
        self.add(new)
        for old, result in zip(op.results, new.results, strict=True):
            self.values[old] = Varying(result)

    def compute(self, op: Operation) -> None:
        lanes = [self.lane(v) for v in op.operands]
        if all(isinstance(lane, Uniform) for lane in lanes):
            self.scalar_clone(op)
            return
        if self.wrapped(op, lanes) or self.linear(op, lanes):
            return
        if isinstance(op, arith.SelectOp) and isinstance(lanes[0], Uniform):
            # One condition for every lane (a clamped padding read's): a scalar i1 selects
            # whole vectors (no vector form of i1 broadcasts in xDSL's verifier).
            true, false = (self.as_vector(v) for v in op.operands[1:])
            self.values[op.result] = Varying(self.add(arith.SelectOp(op.cond, true, false)))
            return
        operands = [self.as_vector(v) for v in op.operands]
        result_types = [self.vector_type(r.type) for r in op.results]
        new = type(op).create(
            operands=operands,
            result_types=result_types,
            properties=dict(op.properties),
            attributes=dict(op.attributes),
        )
        try:
            new.verify()
        except VerifyException:  # xDSL 0.74 has no vector form of some ops (index_cast)
            raise NotVectorizable(op, f"'{op.name}' op has no vector form") from None
        self.add(new)
        for old, result in zip(op.results, new.results, strict=True):
            self.values[old] = Varying(result)

    def wrapped(self, op: Operation, lanes: list[Lane]) -> bool:
        """Keep the row and column of a contiguous index split by a constant width
        (`Wrapped`) scalar, and through adding or subtracting 0 (a tile's start at 0)."""
        if isinstance(op, arith.DivUIOp | arith.RemUIOp):
            step, by = lanes
            width = constant_value(by.value) if isinstance(by, Uniform) else None
            if not isinstance(step, Linear) or step.stride != 1 or not width or width < 0:
                return False
            self.values[op.result] = Wrapped(step.base, width, isinstance(op, arith.RemUIOp))
            return True
        if isinstance(op, arith.AddiOp | arith.SubiOp):
            a, b = lanes
            if isinstance(op, arith.AddiOp) and isinstance(a, Uniform):
                a, b = b, a
            if isinstance(a, Wrapped) and isinstance(b, Uniform) and constant_value(b.value) == 0:
                self.values[op.result] = a
                return True
        return False

    def linear(self, op: Operation, lanes: list[Lane]) -> bool:
        """Keep `base + stride * lane` scalar through index adds, subtracts and scalings."""
        if not isinstance(op, arith.AddiOp | arith.SubiOp | arith.MuliOp):
            return False
        if any(isinstance(x, Wrapped) for x in lanes):
            return False
        if not isinstance(op.result.type, IndexType) or any(isinstance(x, Varying) for x in lanes):
            return False
        a, b = lanes
        if isinstance(op, arith.MuliOp):
            if isinstance(a, Uniform):
                a, b = b, a
            factor = constant_value(b.value) if isinstance(b, Uniform) else None
            if factor is None or not isinstance(a, Linear):
                return False
            base = self.add(arith.MuliOp(a.base, b.value))  # type: ignore[union-attr]
            self.values[op.result] = Linear(base, a.stride * factor)
            return True
        stride_a = a.stride if isinstance(a, Linear) else 0
        stride_b = b.stride if isinstance(b, Linear) else 0
        base_a = a.base if isinstance(a, Linear) else a.value  # type: ignore[union-attr]
        base_b = b.base if isinstance(b, Linear) else b.value  # type: ignore[union-attr]
        a_value, b_value = constant_value(base_a), constant_value(base_b)
        if b_value == 0:  # the lower bound is often 0: x + 0 and x - 0 are x
            base = base_a
        elif a_value == 0 and isinstance(op, arith.AddiOp):
            base = base_b
        elif a_value is not None and b_value is not None:
            folded = a_value + b_value if isinstance(op, arith.AddiOp) else a_value - b_value
            base = self.add(index_constant(folded))
        else:
            base = self.add(type(op)(base_a, base_b))
        stride = stride_a + stride_b if isinstance(op, arith.AddiOp) else stride_a - stride_b
        self.values[op.result] = Linear(base, stride) if stride else Uniform(base)
        return True


def vectorize(loop: tir.ForOp) -> None:
    """Replace `loop` by vector code, or make it serial with a remark."""
    lower, upper = constant_value(loop.lower_bound), constant_value(loop.upper_bound)
    try:
        if lower is None or upper is None:
            raise NotVectorizable(loop, "the loop's extent is not a constant")
        if upper <= lower:
            Rewriter.erase_op(loop)
            return
        block = LoopVectorizer(loop, upper - lower).run()
    except NotVectorizable as refusal:
        loop.kind = StringAttr("serial")
        warnings.warn(
            VectorizeRemark(
                f"loop at {where(loop)} not vectorized: {refusal.reason} "
                f"('{refusal.op.name}' at {where(refusal.op)})"
            ),
            stacklevel=2,
        )
        return
    ops = list(block.ops)
    for op in ops:
        op.detach()
    Rewriter.insert_op(ops, InsertPoint.before(loop))
    Rewriter.erase_op(loop)


@dataclass(frozen=True)
class TirVectorizePass(ModulePass):
    """Turn vectorized loops of constant extent into vector ops (serial, with a remark, if not).

    `tir.for %v = %c0 to %c4 vectorized { %x = memref.load %A[%v]; memref.store %x, %B[%v] }`
    becomes `%x = vector.load %A[%c0] : vector<4xf32>` and `vector.store %x, %B[%c0]`.
    """

    name = "tir-vectorize"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        # Innermost first: an outer vectorized loop then sees its inner ones already done.
        loops = [o for o in op.walk() if isinstance(o, tir.ForOp)]
        for loop in reversed(loops):
            if loop.kind.data == "vectorized":
                vectorize(loop)
