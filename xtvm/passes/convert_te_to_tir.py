"""`convert-te-to-tir`: apply each te kernel's schedule and emit its loop nests in tir.

A te kernel (a `func.func` holding `te.compute` ops) becomes a kernel over buffers: tensor
arguments become memrefs, and the returned tensors become memref arguments appended after the
inputs (destination-passing style, TVM's `tvm.lower(s, [A, B, C])`). Every stage that is not
inlined gets a buffer (its output argument, or a `memref.alloc` for intermediates, in the
memory space of its scope) and a loop nest:

- the stage's axes start as its compute axes then its reduce axes; the `te.schedule`
  primitives rewrite that list of leaf axes in order (`split`, `fuse`, `reorder`) and mark
  loops (`parallel`, `vectorize`, `unroll`, `bind`, `pragma` as `pragma_<key>` loop
  annotations); one `tir.for` per leaf axis results;
- the original indices are rebuilt from the leaf loop variables (`parent = outer * factor +
  inner` for a split, division and remainder for a fuse); a split whose factor does not divide
  the extent (or of a symbolic extent) guards the body with `scf.if parent < extent`;
- a reduction stores the combiner's identity, then accumulates into its buffer; the init sits
  just outside the first reduce loop when every reduce loop is inside every spatial loop (as
  TVM writes it), else in a loop nest of its own before the main one;
- `te.read` of an inlined stage (`compute_inline`) is replaced by that stage's body at the read
  indices; other reads become `memref.load`.

`compute_at` emits a stage's loop nest at the start of its consumer's loop `axis`, over the box
of its tensor that the consumer's iterations inside that loop read (TVM's bound inference):
reads at affine indices (`i * 2 + r - 1`) give per dimension a range whose start depends on
the outer loop variables and whose extent is a constant; other reads need the whole dimension.
The stage then gets a buffer of the box's shape, allocated inside the loop, and its readers
index it relative to the box's start (an output stage writes its argument in place). Box
elements outside the tensor are skipped by a guard unless the ranges prove there are none.

`tensorize` annotates the loop of its axis `tensorize = "<intrinsic>"` for tir-tensorize; the
init of a tensorized reduction goes into that nest, just outside its first reduce loop, under
`scf.if` on the reduce loops outside the nest being at their first iteration.

`cache_read` adds a stage copying a tensor into a buffer of its scope, which the readers read
instead; `cache_write` moves a stage's computation into a new stage of that scope and leaves
the stage a copy out of it. `storage_align` pads a buffer's strides (a `strided<...>` layout).

Symbolic extents are `index` values of the kernel: `te.dim` of an argument becomes
`memref.dim` of its buffer, scalar code computing sizes is copied, and loop extents derived
from them (`ceildiv(n, 8)` for a split) are computed at the top of the kernel.

A schedule that names an unknown stage or axis, splits an axis that is no longer a leaf, fuses
axes that are not adjacent, inlines a reduction, binds one thread to two loops, or computes a
stage at a stage that does not read it is a located error at the primitive.
"""

from __future__ import annotations

import math
from collections.abc import Generator, Mapping, Sequence
from dataclasses import dataclass, field

from xdsl.context import Context
from xdsl.dialects import arith, bufferization, func, memref, scf
from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    AnyFloat,
    DenseArrayBase,
    FloatAttr,
    FunctionType,
    IndexType,
    IntegerAttr,
    IntegerType,
    MemRefType,
    ModuleOp,
    NoneAttr,
    StridedLayoutAttr,
    StringAttr,
    TensorType,
    UnitAttr,
    i1,
    i64,
)
from xdsl.ir import Attribute, Block, BlockArgument, Operation, Region, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from xtvm.dialects import te, tir
from xtvm.ir.numpy_types import index_literal, is_unsigned, orders_unsigned
from xtvm.ir.verify import located_error

# An extent is a constant or an `index` value of the tir kernel.
Extent = int | SSAValue
# The loop annotation naming the tensor intrinsic that computes a loop nest (tir-tensorize).
TENSORIZE_ANNOTATION = "tensorize"

# ---------------------------------------------------------------------------------------------
# Schedules as axis lists


@dataclass
class Axis:
    """One axis of a stage: a root axis or one a primitive created, with its loop's marks."""

    name: str
    reduce: bool
    kind: str = "serial"
    thread: str | None = None
    annotations: dict[str, Attribute] = field(default_factory=dict)


@dataclass(frozen=True)
class Split:
    parent: str
    outer: str
    inner: str
    factor: int | None
    nparts: int | None


@dataclass(frozen=True)
class Fuse:
    parts: tuple[str, ...]
    fused: str


@dataclass(frozen=True)
class Attach:
    """Where `compute_at` put a stage: at the start of loop `axis` of stage `parent`."""

    parent: str
    axis: str
    op: te.ComputeAtOp


@dataclass
class Stage:
    """A stage with its schedule applied: leaf axes in loop order, outermost first.

    Its body is `compute`'s (a te.compute, read positionally: block arguments are the spatial
    roots then, in the te.reduce, the reduce roots), or for a cache stage a copy of `source`.
    Readers read `value`; `redirects` are the tensors `cache_read` made this stage read instead.
    """

    name: str
    value: SSAValue
    anchor: Operation
    roots: list[str]
    extents: list[Extent]
    compute: te.ComputeOp | None
    source: SSAValue | None = None
    reduce_roots: list[str] = field(default_factory=list)
    reduce_extents: list[Extent] = field(default_factory=list)
    axes: dict[str, Axis] = field(default_factory=dict)
    leaves: list[str] = field(default_factory=list)
    relations: dict[str, Split | Fuse] = field(default_factory=dict)  # non-leaf axis -> how
    attach: str | Attach = "root"  # or "inline"
    scope: str | None = None
    align: dict[int, tuple[int, int, Operation]] = field(default_factory=dict)
    redirects: dict[SSAValue, SSAValue] = field(default_factory=dict)
    threads: dict[str, str] = field(default_factory=dict)  # thread tag -> axis
    tensorize: tuple[str, te.TensorizeOp] | None = None  # the tensorized axis
    scheduled: bool = False
    scan: te.ScanOp | None = None  # the scan whose state this is (its loop nest is the scan's)

    def __post_init__(self) -> None:
        for name in [*self.roots, *self.reduce_roots]:
            if name in self.axes:
                raise located_error(
                    self.anchor, f"reduce axis '{name}' has the name of a compute axis"
                )
            self.axes[name] = Axis(name, reduce=name in self.reduce_roots)
            self.leaves.append(name)

    @property
    def inline(self) -> bool:
        return self.attach == "inline"

    @property
    def reduction(self) -> te.ReduceOp | None:
        return self.compute.reduction() if self.compute is not None else None

    def resolve(self, tensor: SSAValue) -> SSAValue:
        """The tensor this stage reads where its body reads `tensor`."""
        while tensor in self.redirects:
            tensor = self.redirects[tensor]
        return tensor

    def unique_relations(self) -> list[Split | Fuse]:
        """Splits and fuses in the order they were applied."""
        seen: list[Split | Fuse] = []
        for relation in self.relations.values():
            if relation not in seen:
                seen.append(relation)
        return seen

    def leaf(self, name: str, primitive: Operation) -> Axis:
        if name not in self.axes:
            known = ", ".join(self.leaves)
            raise located_error(
                primitive, f"stage '{self.name}' has no axis '{name}' (its loops: {known})"
            )
        if name not in self.leaves:
            raise located_error(
                primitive, f"axis '{name}' of stage '{self.name}' was already split or fused"
            )
        return self.axes[name]

    def fresh(self, name: str, primitive: Operation) -> str:
        if name in self.axes:
            raise located_error(primitive, f"stage '{self.name}' already has an axis '{name}'")
        return name


def apply_primitive(stage: Stage, op: te.PrimitiveOp) -> None:
    """Rewrite `stage`'s axes by one schedule primitive that concerns it alone."""
    stage.scheduled = True
    if isinstance(op, te.SplitOp):
        axis = stage.leaf(op.axis.data, op)
        outer, inner = stage.fresh(op.outer.data, op), stage.fresh(op.inner.data, op)
        factor = op.factor.value.data if op.factor is not None else None
        nparts = op.nparts.value.data if op.nparts is not None else None
        position = stage.leaves.index(axis.name)
        stage.axes[outer] = Axis(outer, axis.reduce)
        stage.axes[inner] = Axis(inner, axis.reduce)
        stage.leaves[position : position + 1] = [outer, inner]
        stage.relations[axis.name] = Split(axis.name, outer, inner, factor, nparts)
    elif isinstance(op, te.ReorderOp):
        names = te.names_of(op.order)
        if len(set(names)) != len(names):
            raise located_error(op, f"reorder names an axis twice: {names}")
        positions = sorted(stage.leaves.index(stage.leaf(n, op).name) for n in names)
        for position, name in zip(positions, names, strict=True):
            stage.leaves[position] = name
    elif isinstance(op, te.FuseOp):
        names = te.names_of(op.axes)
        parts = [stage.leaf(n, op) for n in names]
        first = stage.leaves.index(names[0])
        if len(names) < 2 or stage.leaves[first : first + len(names)] != names:
            raise located_error(
                op,
                f"fuse needs at least two adjacent axes, outermost first; loops are "
                f"{', '.join(stage.leaves)}",
            )
        if len({p.reduce for p in parts}) != 1:
            raise located_error(op, "fuse cannot mix reduce axes with data-parallel axes")
        fused = stage.fresh(op.fused.data, op)
        stage.axes[fused] = Axis(fused, parts[0].reduce)
        stage.leaves[first : first + len(names)] = [fused]
        for name in names:
            stage.relations[name] = Fuse(tuple(names), fused)
    elif isinstance(op, te.AxisAnnotationOp):
        stage.leaf(op.axis.data, op).kind = op.KIND
    elif isinstance(op, te.BindOp):
        axis = stage.leaf(op.axis.data, op)
        thread = op.thread.data
        bound = stage.threads.get(thread)
        if bound is not None and bound != axis.name:
            raise located_error(
                op, f"thread '{thread}' is already bound to axis '{bound}' of stage '{stage.name}'"
            )
        stage.threads[thread] = axis.name
        axis.kind, axis.thread = "thread_binding", thread
    elif isinstance(op, te.PragmaOp):
        value = op.value if op.value is not None else IntegerAttr(1, i64)
        stage.leaf(op.axis.data, op).annotations[f"pragma_{op.key.data}"] = value
    elif isinstance(op, te.TensorizeOp):
        axis = stage.leaf(op.axis.data, op)
        if stage.tensorize is not None:
            raise located_error(
                op, f"stage '{stage.name}' is already tensorized at axis '{stage.tensorize[0]}'"
            )
        axis.annotations[TENSORIZE_ANNOTATION] = op.intrin
        stage.tensorize = (axis.name, op)
    elif isinstance(op, te.StorageAlignOp):
        name = op.axis.data
        if name not in stage.roots:
            raise located_error(
                op,
                f"storage_align needs a data-parallel root axis of stage '{stage.name}' "
                f"({', '.join(stage.roots)}), got '{name}'",
            )
        stage.align[stage.roots.index(name)] = (op.factor.value.data, op.offset.value.data, op)
    elif isinstance(op, te.ComputeInlineOp):
        if stage.reduction is not None:
            raise located_error(op, f"cannot inline stage '{stage.name}': it is a reduction")
        stage.attach = "inline"
    elif isinstance(op, te.ComputeRootOp):
        stage.attach = "root"
    elif isinstance(op, te.SetScopeOp):
        stage.scope = op.scope.data
    else:
        raise located_error(op, f"'{op.name}' is not supported by convert-te-to-tir")


# ---------------------------------------------------------------------------------------------
# Affine index ranges (bound inference for compute_at)


class Lin:
    """`const + sum(coefficient * value)`: an index affine in values of the tir kernel."""

    def __init__(self, const: int = 0, terms: Mapping[SSAValue, int] | None = None) -> None:
        self.const = const
        self.terms = {v: k for v, k in (terms or {}).items() if k}

    @staticmethod
    def of(extent: Extent) -> Lin:
        return Lin(extent) if isinstance(extent, int) else Lin(0, {extent: 1})

    def __add__(self, other: Lin) -> Lin:
        terms = dict(self.terms)
        for v, k in other.terms.items():
            terms[v] = terms.get(v, 0) + k
        return Lin(self.const + other.const, terms)

    def scale(self, factor: int) -> Lin:
        return Lin(self.const * factor, {v: k * factor for v, k in self.terms.items()})

    def __sub__(self, other: Lin) -> Lin:
        return self + other.scale(-1)

    def constant(self) -> int | None:
        return None if self.terms else self.const

    def floordiv(self, divisor: int) -> Lin | None:
        """`floor(self / divisor)` where every coefficient is a multiple of `divisor` (then
        exact: the tile start `(o * 4 + i) // 4` of a split axis is `o`), else None."""
        if any(k % divisor for k in self.terms.values()):
            return None
        return Lin(self.const // divisor, {v: k // divisor for v, k in self.terms.items()})


# An inclusive range [low, high] of an index, or None where nothing is known.
Interval = tuple[Lin, Lin] | None


def point(value: Lin) -> Interval:
    return (value, value)


def full(extent: Extent) -> Interval:
    return (Lin(0), Lin.of(extent) - Lin(1))


def shift(interval: Interval, offset: Lin) -> Interval:
    return None if interval is None else (interval[0] + offset, interval[1] + offset)


def hull(a: Interval, b: Interval) -> Interval:
    """The smallest interval holding both, where their bounds differ by constants."""
    if a is None or b is None:
        return None
    low, high = (b[0] - a[0]).constant(), (b[1] - a[1]).constant()
    if low is None or high is None:
        return None
    return (b[0] if low < 0 else a[0], b[1] if high > 0 else a[1])


def relax(interval: Interval, ranges: Mapping[SSAValue, tuple[int, int]]) -> Interval:
    """`interval` over every value of the terms that `ranges` gives ranges of."""
    if interval is None:
        return None
    low, high = Lin(interval[0].const), Lin(interval[1].const)
    for bound, side, pick in ((interval[0], low, min), (interval[1], high, max)):
        for term, k in bound.terms.items():
            if term in ranges:
                first, last = ranges[term]
                side.const += pick(k * first, k * last)
            else:
                side.terms[term] = side.terms.get(term, 0) + k
    return (low, high)


def is_block_thread(tag: str | None) -> bool:
    """Whether a loop bound to `tag` runs over the threads of one block."""
    return tag is not None and (tag.startswith("threadIdx.") or tag == "vthread")


def index_interval(op: Operation, ranges: Sequence[Interval]) -> Interval:
    """The range of `op`'s result from its operands' ranges, for affine index arithmetic."""
    if isinstance(op, arith.ConstantOp) and isinstance(op.value, IntegerAttr):
        return point(Lin(op.value.value.data))
    if isinstance(op, arith.IndexCastOp | arith.ExtSIOp | arith.TruncIOp):
        return ranges[0]
    if len(ranges) != 2 or ranges[0] is None or ranges[1] is None:
        return None
    (a_low, a_high), (b_low, b_high) = ranges
    if isinstance(op, arith.AddiOp):
        return (a_low + b_low, a_high + b_high)
    if isinstance(op, arith.SubiOp):
        return (a_low - b_high, a_high - b_low)
    if isinstance(op, arith.MuliOp):  # by a constant
        for (low, high), (k_low, k_high) in (
            ((a_low, a_high), (b_low, b_high)),
            ((b_low, b_high), (a_low, a_high)),
        ):
            k = k_low.constant()
            if k is not None and k_high.constant() == k:
                return (low.scale(k), high.scale(k)) if k >= 0 else (high.scale(k), low.scale(k))
    if isinstance(op, arith.FloorDivSIOp | arith.DivUIOp):  # by a positive constant
        k = b_low.constant()
        if k is not None and k > 0 and b_high.constant() == k:
            low, high = a_low.floordiv(k), a_high.floordiv(k)
            if low is not None and high is not None:
                return (low, high)
    return None


@dataclass
class Box:
    """The part of a stage's tensor computed at an attach point.

    Per dimension: where it starts (`lower`; `starts` holds it as a value, None for 0), its
    extent, and whether it may leave the tensor (`checked`: such elements are skipped).
    """

    lower: list[Lin]
    starts: list[SSAValue | None]
    extents: list[Extent]
    checked: list[bool]


@dataclass
class Placement:
    """A stage's buffer; `starts` are the box starts when it holds only a box (else None)."""

    buffer: SSAValue
    starts: list[SSAValue | None] | None = None


@dataclass
class Nest:
    """A stage being emitted: the extents of all its axes, and its box when computed at."""

    stage: Stage
    extents: dict[str, Extent]
    box: Box | None


# ---------------------------------------------------------------------------------------------
# Emitting tir


def is_sibling(stage: Stage, stages: Mapping[str, Stage]) -> bool:
    """Whether `stage` is a further output (`C.v1`, ...) of a multi-output compute `C`,
    scheduled as its first output is."""
    base, dot, suffix = stage.name.rpartition(".v")
    return bool(dot) and suffix.isdigit() and base in stages


class ConstantPool:
    """`index` constants of one kernel, created once each at the top of its entry block."""

    def __init__(self, entry: Block) -> None:
        self.entry = entry
        self.values: dict[int, SSAValue] = {}
        self.last: Operation | None = None

    def index(self, value: int) -> SSAValue:
        if value not in self.values:
            op = arith.ConstantOp(IntegerAttr(value, IndexType()))
            op.result.name_hint = f"c{value}" if value >= 0 else f"c_minus{-value}"
            if self.last is not None:
                self.entry.insert_op_after(op, self.last)
            elif self.entry.first_op is not None:
                self.entry.insert_op_before(op, self.entry.first_op)
            else:
                self.entry.add_op(op)
            self.last = op
            self.values[value] = op.result
        return self.values[value]


class BlockBuilder:
    """Adds ops to a block, before its terminator if it has one; `index(n)` is a constant."""

    def __init__(self, block: Block, constants: ConstantPool) -> None:
        self.block = block
        self.constants = constants

    def add(self, op: Operation) -> SSAValue:
        last = self.block.last_op
        if isinstance(last, tir.YieldOp | scf.YieldOp):
            self.block.insert_op_before(op, last)
        else:
            self.block.add_op(op)
        return op.results[0] if op.results else None  # type: ignore[return-value]

    def index(self, value: Extent) -> SSAValue:
        return self.constants.index(value) if isinstance(value, int) else value

    def loop(
        self,
        extent: Extent,
        name: str,
        kind: str = "serial",
        thread: str | None = None,
        annotations: dict[str, Attribute] | None = None,
    ) -> tuple[SSAValue, BlockBuilder]:
        """A `tir.for` over [0, extent); its induction variable and a builder of its body."""
        loop = tir.ForOp(
            self.index(0), self.index(extent), kind=kind, thread=thread, annotations=annotations
        )
        self.add(loop)
        body = loop.body.block
        body.add_op(tir.YieldOp())
        var = body.args[0]
        var.name_hint = name.replace(".", "_")
        return var, BlockBuilder(body, self.constants)

    def when(self, condition: SSAValue) -> BlockBuilder:
        """An `scf.if` on `condition`; a builder of its then-block."""
        block = Block([scf.YieldOp()])
        self.add(scf.IfOp(condition, [], Region(block)))
        return BlockBuilder(block, self.constants)

    def ceildiv(self, extent: Extent, divisor: int) -> Extent:
        if isinstance(extent, int):
            return -(-extent // divisor)
        return self.add(arith.CeilDivUIOp(extent, self.index(divisor)))

    def product(self, extents: Sequence[Extent]) -> Extent:
        constant = math.prod(e for e in extents if isinstance(e, int))
        values = [e for e in extents if not isinstance(e, int)]
        if not values:
            return constant
        result = values[0]
        for value in values[1:]:
            result = self.add(arith.MuliOp(result, value))
        return result if constant == 1 else self.add(arith.MuliOp(result, self.index(constant)))

    def offset(self, value: SSAValue, start: SSAValue | None, subtract: bool = False) -> SSAValue:
        if start is None:
            return value
        return self.add((arith.SubiOp if subtract else arith.AddiOp)(value, start))


def identity(combiner: str, elem: Attribute, builder: BlockBuilder) -> SSAValue:
    """The combiner's neutral element of type `elem`, added by `builder`. An unsigned one
    (`ui8`: arith.constant takes signless integers only) is an `index` constant cast to it."""
    if isinstance(elem, IntegerType) and is_unsigned(elem):
        values = {"sum": 0, "prod": 1, "max": 0, "min": 2**elem.width.data - 1}
        literal = builder.index(index_literal(values[combiner]))
        return builder.add(arith.IndexCastOp(literal, elem))
    if elem == i1:  # bool orders false < true: max is `or`, min is `and`
        values = {"sum": 0, "prod": 1, "max": 0, "min": 1}
        return builder.add(arith.ConstantOp(IntegerAttr(values[combiner], elem)))
    if isinstance(elem, IntegerType):
        width = elem.width.data
        values = {"sum": 0, "prod": 1, "max": -(2 ** (width - 1)), "min": 2 ** (width - 1) - 1}
        return builder.add(arith.ConstantOp(IntegerAttr(values[combiner], elem)))
    values = {"sum": 0.0, "prod": 1.0, "max": -math.inf, "min": math.inf}
    return builder.add(arith.ConstantOp(FloatAttr(values[combiner], elem)))  # type: ignore[arg-type]


def combine(combiner: str, lhs: SSAValue, rhs: SSAValue) -> Operation:
    if isinstance(lhs.type, IntegerType):
        unsigned = orders_unsigned(lhs.type)
        ops: dict[str, type[Operation]] = {
            "sum": arith.AddiOp,
            "prod": arith.MuliOp,
            "max": arith.MaxUIOp if unsigned else arith.MaxSIOp,
            "min": arith.MinUIOp if unsigned else arith.MinSIOp,
        }
    else:
        ops = {
            "sum": arith.AddfOp,
            "prod": arith.MulfOp,
            "max": arith.MaximumfOp,
            "min": arith.MinimumfOp,
        }
    return ops[combiner](lhs, rhs)  # type: ignore[call-arg]


def axis_extents(
    stage: Stage, roots: Mapping[str, Extent], builder: BlockBuilder
) -> dict[str, Extent]:
    """The extent of every axis of `stage` from those of its roots."""
    extents = dict(roots)
    for relation in stage.unique_relations():
        if isinstance(relation, Fuse):
            extents[relation.fused] = builder.product([extents[p] for p in relation.parts])
        elif relation.factor is not None:
            extents[relation.inner] = relation.factor
            extents[relation.outer] = builder.ceildiv(extents[relation.parent], relation.factor)
        else:
            assert relation.nparts is not None
            extents[relation.outer] = relation.nparts
            extents[relation.inner] = builder.ceildiv(extents[relation.parent], relation.nparts)
    return extents


def axis_values(
    nest: Nest, builder: BlockBuilder, known: dict[str, SSAValue]
) -> dict[str, SSAValue]:
    """`known` extended with every axis computable from it: split parents, fused parts."""
    values = dict(known)
    changed = True
    while changed:
        changed = False
        for name in nest.stage.axes:
            if name in values:
                continue
            value = derive(nest, name, nest.stage.relations.get(name), values, builder)
            if value is not None:
                value.name_hint = name.replace(".", "_")
                values[name] = value
                changed = True
    return values


def derive(
    nest: Nest,
    name: str,
    relation: Split | Fuse | None,
    values: Mapping[str, SSAValue],
    builder: BlockBuilder,
) -> SSAValue | None:
    """Axis `name` from the axes it was split or fused into, if those are known."""
    extents = nest.extents
    if isinstance(relation, Split):
        if relation.outer not in values or relation.inner not in values:
            return None
        factor = builder.index(extents[relation.inner])
        scaled = builder.add(arith.MuliOp(values[relation.outer], factor))
        return builder.add(arith.AddiOp(scaled, values[relation.inner]))
    if isinstance(relation, Fuse) and relation.fused in values:
        position = relation.parts.index(name)
        stride = builder.product([extents[p] for p in relation.parts[position + 1 :]])
        value = values[relation.fused]
        if stride != 1:
            value = builder.add(arith.DivUIOp(value, builder.index(stride)))
        if position:
            value = builder.add(arith.RemUIOp(value, builder.index(extents[name])))
        return value
    return None


def overshoots(split: Split, extents: Mapping[str, Extent]) -> bool:
    """Whether the loops of a split run past its parent's extent."""
    parent, outer, inner = (extents[n] for n in (split.parent, split.outer, split.inner))
    if isinstance(parent, int) and isinstance(outer, int) and isinstance(inner, int):
        return outer * inner != parent
    return True


# A read of an inlined stage met while emitting a body: the stage, the indices it is read at
# and the builder to emit its body into.
InlineRead = tuple[Stage, list[SSAValue], BlockBuilder]
# Emitting a body: yields the inlined reads it meets, is sent their values, returns its value.
EmitSteps = Generator[InlineRead, SSAValue, SSAValue]


@dataclass
class KernelLowering:
    """Lowers one te kernel function into a tir kernel."""

    function: func.FuncOp
    stages: dict[str, Stage] = field(default_factory=dict)
    order: list[Stage] = field(default_factory=list)
    by_value: dict[SSAValue, Stage] = field(default_factory=dict)
    buffers: dict[SSAValue, SSAValue] = field(default_factory=dict)  # argument tensor -> buffer
    values: dict[SSAValue, SSAValue] = field(default_factory=dict)  # te scalar -> tir value
    outputs: dict[SSAValue, SSAValue] = field(default_factory=dict)  # returned tensor -> buffer
    placements: dict[str, Placement] = field(default_factory=dict)
    attached: dict[tuple[str, str], list[Stage]] = field(default_factory=dict)
    ranges: dict[SSAValue, tuple[int, int]] = field(default_factory=dict)
    deallocs: list[tuple[BlockBuilder, SSAValue]] = field(default_factory=list)
    argument_extents: dict[SSAValue, list[Extent]] = field(default_factory=dict)
    # values of loops bound to a block's threads, and values derived from them: their ranges
    thread_ranges: dict[SSAValue, tuple[int, int]] = field(default_factory=dict)

    def lower(self) -> func.FuncOp:
        old = self.function.body.block
        ret = old.last_op
        if not isinstance(ret, func.ReturnOp):
            raise located_error(self.function, "a te kernel must end with func.return")
        returned = list(ret.operands)
        arg_types = [kernel_type(a.type, self.function) for a in old.args]
        arg_types += [kernel_type(v.type, self.function) for v in returned]
        order = self.argument_order(len(arg_types))
        arg_types = [arg_types[k] for k in order]
        block = Block(arg_types=arg_types)
        args = [block.args[order.index(k)] for k in range(len(order))]  # te kernel's order
        for new, arg in zip(args, old.args, strict=False):
            new.name_hint = arg.name_hint
            (self.buffers if isinstance(arg.type, TensorType) else self.values)[arg] = new
        builder = BlockBuilder(block, ConstantPool(block))
        self.entry = builder

        schedules: list[te.ScheduleOp] = []
        for op in old.ops:
            if isinstance(op, te.ComputeOp):
                self.add_stage(self.compute_stage(op), len(self.order))
            elif isinstance(op, te.ScanOp):
                self.add_scan(op)
            elif isinstance(op, te.ExternOp):
                self.add_extern(op)
            elif isinstance(op, te.ScheduleOp):
                schedules.append(op)
            elif isinstance(op, te.DimOp):
                extent = self.extents_of(op.tensor)[op.dim.value.data]
                if not isinstance(extent, int) and not extent.name_hint:
                    extent.name_hint = op.result.name_hint
                self.values[op.result] = builder.index(extent)
            elif op is not ret:
                clone = op.clone(value_mapper=self.values)
                builder.add(clone)
                self.values.update(zip(op.results, clone.results, strict=True))
        for schedule in schedules:
            for primitive in schedule.body.block.ops:
                self.apply(primitive)

        for new, value in zip(args[len(old.args) :], returned, strict=True):
            stage = self.by_value.get(value)
            if stage is None:
                raise located_error(ret, "a te kernel returns tensors its te.compute ops define")
            if stage.align:
                _, _, align_op = next(iter(stage.align.values()))
                raise located_error(
                    align_op, f"stage '{stage.name}' is an output: its buffer is an argument"
                )
            new.name_hint = stage.name
            self.outputs[value] = new
        self.check_attachments()

        for stage in self.order:
            if stage.value in self.outputs:
                self.placements[stage.name] = Placement(self.outputs[stage.value])
            elif stage.attach == "root":
                buffer = self.allocate(stage, stage.extents, builder)
                self.placements[stage.name] = Placement(buffer)
                self.deallocs.append((builder, buffer))
        for stage in self.order:
            # an inlined stage that is also an output is inlined into its readers and
            # computed into its argument as well
            if stage.scan is not None:
                if stage.value is stage.scan.outs[0]:
                    self.emit_scan(stage.scan, builder)
            elif isinstance(stage.anchor, te.ExternOp):
                if stage.value is stage.anchor.outs[0]:
                    self.emit_extern(stage.anchor, builder)
            elif stage.attach == "root" or (stage.inline and stage.value in self.outputs):
                self.emit_stage(stage, builder, None)
        for scope_builder, buffer in self.deallocs:
            scope_builder.add(memref.DeallocOp.get(buffer))
        builder.add(func.ReturnOp())
        visibility = self.function.sym_visibility
        kernel = func.FuncOp(
            self.function.sym_name.data,
            FunctionType.from_lists(arg_types, []),
            Region(block),
            visibility.data if visibility else None,
        )
        kernel.attributes.update(self.function.attributes)  # the argument binder's dims
        kernel.attributes.pop(te.ARG_ORDER_ATTR, None)
        return kernel

    def argument_order(self, count: int) -> list[int]:
        """Which argument or result of the te kernel each tir argument is (te.ARG_ORDER_ATTR)."""
        attr = self.function.attributes.get(te.ARG_ORDER_ATTR)
        if attr is None:
            return list(range(count))
        order = attr.get_values() if isinstance(attr, DenseArrayBase) else None
        if order is None or sorted(order) != list(range(count)):
            raise located_error(
                self.function, f"{te.ARG_ORDER_ATTR} must order the {count} arguments and results"
            )
        return list(order)

    # -- stages ----------------------------------------------------------------------------

    def compute_stage(self, compute: te.ComputeOp) -> Stage:
        typ = compute.result.type
        assert isinstance(typ, TensorType)
        sizes = iter(self.values[s] for s in compute.sizes)
        extents: list[Extent] = [d if d >= 0 else next(sizes) for d in typ.get_shape()]
        reduce_roots: list[str] = []
        reduce_extents: list[Extent] = []
        reduction = compute.reduction()
        if reduction is not None:
            reduce_sizes = iter(self.values[s] for s in reduction.sizes)
            reduce_roots = te.names_of(reduction.axis_names)
            reduce_extents = [
                e if e != te.DYNAMIC_EXTENT else next(reduce_sizes) for e in reduction.extent_values
            ]
        return Stage(
            compute.stage_name.data,
            compute.result,
            reduction or compute,
            te.names_of(compute.axis_names),
            extents,
            compute,
            reduce_roots=reduce_roots,
            reduce_extents=reduce_extents,
        )

    def add_scan(self, op: te.ScanOp) -> None:
        """Stages of a te.scan: its body's computes, emitted once per step (attach "scan"),
        then one per state, whose buffer the body reads its block arguments from."""
        for inner in op.body.block.ops:
            if isinstance(inner, te.ComputeOp):
                stage = self.compute_stage(inner)
                stage.attach = "scan"
                self.add_stage(stage, len(self.order))
            elif not isinstance(inner, te.YieldOp):
                raise located_error(inner, "a te.scan body holds te.compute ops only")
        sizes = iter(self.values[s] for s in op.sizes)
        name = op.stage_name.data
        for k, (result, state) in enumerate(zip(op.outs, op.body.block.args, strict=True)):
            typ = result.type
            assert isinstance(typ, TensorType)
            extents: list[Extent] = [d if d >= 0 else next(sizes) for d in typ.get_shape()]
            roots = [f"ax{d}" for d in range(len(extents))]
            stage = Stage(name if k == 0 else f"{name}.v{k}", result, op, roots, extents, None)
            stage.scan = op
            self.add_stage(stage, len(self.order))
            self.by_value[state] = stage

    def add_extern(self, op: te.ExternOp) -> None:
        """One stage per result of a te.extern: their buffers are what its body writes."""
        name = op.stage_name.data
        for k, result in enumerate(op.outs):
            typ = result.type
            assert isinstance(typ, TensorType)
            extents: list[Extent] = list(typ.get_shape())
            roots = [f"ax{d}" for d in range(len(extents))]
            stage = Stage(name if k == 0 else f"{name}.v{k}", result, op, roots, extents, None)
            self.add_stage(stage, len(self.order))

    def emit_extern(self, op: te.ExternOp, builder: BlockBuilder) -> None:
        """The body of a te.extern, its buffers bound to the inputs' and results' buffers."""
        mapping: dict[SSAValue, SSAValue] = dict(self.values)
        for arg, tensor in zip(op.body.block.args, [*op.ins, *op.outs], strict=True):
            if tensor in self.buffers:
                mapping[arg] = self.buffers[tensor]
                continue
            stage = self.by_value[tensor]
            placement = self.placements.get(stage.name)
            if placement is None or placement.starts is not None:
                raise located_error(
                    op,
                    f"extern '{op.stage_name.data}' needs all of '{stage.name}' in a buffer "
                    "(it cannot be inlined or computed at a loop)",
                )
            mapping[arg] = placement.buffer
        for inner in op.body.block.ops:
            if isinstance(inner, te.YieldOp):
                continue
            clone = inner.clone(value_mapper=mapping)
            builder.add(clone)
            mapping.update(zip(inner.results, clone.results, strict=True))

    def emit_scan(self, op: te.ScanOp, builder: BlockBuilder) -> None:
        """Copy the inits into the states' first rows, then one loop over the remaining rows
        whose body emits the scan's stages over row `t` (the yielded ones into the states)."""
        states = [self.by_value[r] for r in op.outs]
        for state, init in zip(states, op.inits, strict=True):
            copy = Stage(
                f"{state.name}.init",
                state.value,
                op,
                [f"{state.name}.init.ax{d}" for d in range(len(state.extents))],
                self.extents_of(init),
                None,
                source=init,
            )
            self.placements[copy.name] = self.placements[state.name]
            self.emit_stage(copy, builder, None)
        first = self.extents_of(op.inits[0])[0]
        rows = states[0].extents[0]
        if isinstance(first, int) and isinstance(rows, int):
            trip: Extent = rows - first
        else:
            trip = builder.add(arith.SubiOp(builder.index(rows), builder.index(first)))
        step, body = builder.loop(trip, f"{op.stage_name.data}.idx")
        t = body.offset(step, None if first == 0 else body.index(first))
        updates = dict(zip(op.body.block.last_op.operands, states, strict=True))  # type: ignore[union-attr]
        for stage in self.order:
            if (
                stage.attach != "scan"
                or stage.compute is None
                or stage.compute.parent_op() is not op
            ):
                continue
            rank = len(stage.extents)
            box = Box(
                [Lin.of(t), *[Lin()] * (rank - 1)],
                [t, *[None] * (rank - 1)],
                [1, *stage.extents[1:]],
                [False] * rank,
            )
            if stage.value in updates:
                self.placements[stage.name] = self.placements[updates[stage.value].name]
            else:
                buffer = self.allocate(stage, box.extents, body)
                self.deallocs.append((body, buffer))
                self.placements[stage.name] = Placement(buffer, box.starts)
            self.emit_stage(stage, body, box)

    def add_stage(self, stage: Stage, position: int) -> None:
        if stage.name in self.stages:
            raise located_error(stage.anchor, f"two stages are named '{stage.name}'")
        self.stages[stage.name] = stage
        self.order.insert(position, stage)
        self.by_value[stage.value] = stage

    def stage_named(self, name: str, op: Operation) -> Stage:
        stage = self.stages.get(name)
        if stage is None:
            raise located_error(op, f"no stage named '{name}' (stages: {', '.join(self.stages)})")
        return stage

    def extents_of(self, tensor: SSAValue) -> list[Extent]:
        """The extents of a tensor of the kernel; an argument's `?` dims are read once each."""
        stage = self.by_value.get(tensor)
        if stage is not None:
            return stage.extents
        if tensor not in self.argument_extents:
            typ = tensor.type
            assert isinstance(typ, TensorType)
            buffer, entry = self.buffers[tensor], self.entry
            self.argument_extents[tensor] = [
                d if d >= 0 else entry.add(memref.DimOp(buffer, entry.index(k)))
                for k, d in enumerate(typ.get_shape())
            ]
        return self.argument_extents[tensor]

    def apply(self, op: Operation) -> None:
        """Apply one schedule primitive."""
        if isinstance(op, te.CacheReadOp):
            self.cache_read(op)
        elif isinstance(op, te.CacheWriteOp):
            self.cache_write(op)
        elif isinstance(op, te.ComputeAtOp):
            stage = self.stage_named(op.stage.data, op)
            parent = self.stage_named(op.parent_stage.data, op)
            if parent is stage:
                raise located_error(op, f"cannot compute stage '{stage.name}' at itself")
            parent.leaf(op.axis.data, op)
            stage.attach = Attach(parent.name, op.axis.data, op)
            stage.scheduled = True
        else:
            assert isinstance(op, te.PrimitiveOp)
            apply_primitive(self.stage_named(op.stage.data, op), op)

    def cache_read(self, op: te.CacheReadOp) -> None:
        """A stage copying the tensor into a buffer of the scope; readers read it instead."""
        readers = [self.stage_named(name, op) for name in te.names_of(op.readers)]
        for reader in readers:
            if op.tensor not in self.direct_reads(reader):
                raise located_error(
                    op, f"stage '{reader.name}' does not read the tensor cache_read caches"
                )
        rank = len(self.extents_of(op.tensor))
        stage = Stage(
            op.stage_name.data,
            op.result,
            op,
            [f"ax{d}" for d in range(rank)],
            self.extents_of(op.tensor),
            None,
            source=op.tensor,
            scope=op.scope.data,
        )
        producer = self.by_value.get(op.tensor)
        self.add_stage(stage, self.order.index(producer) + 1 if producer else 0)
        for reader in readers:
            reader.redirects[op.tensor] = op.result

    def cache_write(self, op: te.CacheWriteOp) -> None:
        """Move a stage's computation into a new stage of the scope; it becomes a copy of it."""
        stage = self.by_value.get(op.tensor)
        if stage is None or stage.compute is None:
            raise located_error(op, "cache_write needs a tensor that a te.compute defines")
        if stage.scheduled:
            raise located_error(
                op, f"cache_write of stage '{stage.name}' must come before its other primitives"
            )
        cache = Stage(
            op.stage_name.data,
            op.result,
            op,
            [f"{name}.c" for name in stage.roots],
            stage.extents,
            stage.compute,
            reduce_roots=stage.reduce_roots,
            reduce_extents=stage.reduce_extents,
            scope=op.scope.data,
            redirects=stage.redirects,
        )
        self.add_stage(cache, self.order.index(stage))
        stage.compute, stage.source, stage.redirects = None, op.result, {}
        stage.reduce_roots, stage.reduce_extents = [], []
        stage.axes = {name: stage.axes[name] for name in stage.roots}
        stage.leaves = list(stage.roots)

    def direct_reads(self, stage: Stage) -> list[SSAValue]:
        """The tensors `stage`'s body reads (through its redirects)."""
        if stage.compute is None:
            return [] if stage.source is None else [stage.resolve(stage.source)]
        return [
            stage.resolve(op.tensor)
            for op in stage.compute.body.walk()
            if isinstance(op, te.ReadOp)
        ]

    def readers_of(self, stage: Stage) -> list[Stage]:
        """The stages with loops that read `stage`, directly or through inlined stages."""

        def reads(reader: Stage) -> set[SSAValue]:
            found: set[SSAValue] = set()
            pending = [reader]  # a worklist: chains of inlined stages may be long
            while pending:
                for tensor in self.direct_reads(pending.pop()):
                    producer = self.by_value.get(tensor)
                    if tensor in found:
                        continue
                    found.add(tensor)
                    if producer is not None and producer.inline:
                        pending.append(producer)
            return found

        return [r for r in self.order if not r.inline and stage.value in reads(r)]

    def check_attachments(self) -> None:
        for stage in self.order:
            attach = stage.attach
            if not isinstance(attach, Attach):
                continue
            parent = self.stages[attach.parent]
            if attach.axis not in parent.leaves:
                raise located_error(
                    attach.op,
                    f"axis '{attach.axis}' of stage '{parent.name}' is no longer a loop: it was "
                    "split or fused after this compute_at",
                )
            if parent.inline:
                raise located_error(
                    attach.op,
                    f"cannot compute stage '{stage.name}' at inlined stage '{parent.name}'",
                )
            readers = self.readers_of(stage)
            if not readers and stage.value not in self.outputs and is_sibling(stage, self.stages):
                continue  # an unused output of a multi-output compute: nothing to compute
            reader = parent if parent in readers else self.attached_reader(stage, readers)
            if reader is None:
                raise located_error(
                    attach.op,
                    f"stage '{parent.name}' does not read stage '{stage.name}': compute_at "
                    "needs a consumer, or a stage computed inside that loop which reads it",
                )
            others = [r.name for r in readers if r is not reader]
            if others:
                raise located_error(
                    attach.op,
                    f"stage '{stage.name}' is also read by {', '.join(others)}: compute_at "
                    f"needs '{parent.name}' to be its only reader",
                )
            self.attached.setdefault((parent.name, attach.axis), []).append(stage)

    def attached_reader(self, stage: Stage, readers: Sequence[Stage]) -> Stage | None:
        """The reader of `stage` computed (by compute_at) inside the loop `stage` is attached
        at, when `stage` is attached at a loop of its reader's parent (TVM's bound inference
        allows that: a packed copy of a weight panel computed at a column block and read by
        the register tile computed at each row block inside it); None when there is none."""
        attach = stage.attach
        assert isinstance(attach, Attach)
        parent = self.stages[attach.parent]
        for reader in readers:
            inside = reader.attach
            if (
                isinstance(inside, Attach)
                and inside.parent == attach.parent
                and inside.axis in parent.leaves
                and parent.leaves.index(inside.axis) >= parent.leaves.index(attach.axis)
            ):
                return reader
        return None

    # -- buffers ---------------------------------------------------------------------------

    def allocate(self, stage: Stage, extents: Sequence[Extent], builder: BlockBuilder) -> SSAValue:
        """A buffer of `extents` in the stage's scope, with its aligned strides."""
        compute_type = stage.value.type
        assert isinstance(compute_type, TensorType)
        shape = [e if isinstance(e, int) else DYNAMIC_INDEX for e in extents]
        layout: StridedLayoutAttr | NoneAttr = NoneAttr()
        if stage.align:
            if any(d < 0 for d in shape):
                _, _, align_op = next(iter(stage.align.values()))
                raise located_error(align_op, "storage_align needs a buffer of static shape")
            layout = StridedLayoutAttr(aligned_strides(shape, stage.align))
        space = StringAttr(stage.scope) if stage.scope else NoneAttr()
        typ = MemRefType(compute_type.get_element_type(), shape, layout, space)
        dynamic = [e for e in extents if not isinstance(e, int)]
        buffer = builder.add(memref.AllocOp(dynamic, [], typ))
        buffer.name_hint = stage.name
        return buffer

    # -- loop nests ------------------------------------------------------------------------

    def emit_stage(self, stage: Stage, builder: BlockBuilder, box: Box | None) -> None:
        roots = dict(zip(stage.roots, box.extents if box else stage.extents, strict=True))
        roots.update(zip(stage.reduce_roots, stage.reduce_extents, strict=True))
        nest = Nest(stage, axis_extents(stage, roots, builder), box)
        placement = self.placements[stage.name]
        reduction = stage.reduction
        if reduction is None:
            body, values = self.emit_loops(nest, stage.leaves, builder, {})
            body, indices, stored = self.guard(nest, body, values)
            element = self.emit_body(stage, indices, [], body)
            body.add(memref.StoreOp.get(element, placement.buffer, stored))
            return

        if stage.tensorize is not None:
            if len(reduction.value_types) > 1 or reduction.init is not None:
                raise located_error(
                    stage.tensorize[1],
                    f"stage '{stage.name}' reduces a tuple or from an init: not tensorized",
                )
            self.emit_tensorized_reduction(nest, builder)
            return
        accumulators = self.accumulators(stage, placement.buffer, builder)
        has_init = reduction.init is not None
        first_reduce = next(i for i, n in enumerate(stage.leaves) if stage.axes[n].reduce)
        spatial_outside = all(
            stage.leaves.index(n) < first_reduce for n in stage.leaves if not stage.axes[n].reduce
        )
        if spatial_outside:  # init just outside the first reduce loop, as TVM writes it
            outer, values = self.emit_loops(nest, stage.leaves[:first_reduce], builder, {})
            init, starts, stored = self.guard(nest, outer, values, init=not has_init)
            self.store_identities(stage, accumulators, starts, stored, init)
            inner, values = self.emit_loops(nest, stage.leaves[first_reduce:], outer, values)
        else:  # reduce loops outside some spatial loops: a loop nest of its own for the init
            init = builder
            known: dict[str, SSAValue] = {}
            spatial = [stage.axes[n] for n in stage.leaves if not stage.axes[n].reduce]
            # a register tile's init is unrolled with it (its indices constants)
            unrolled = all(a.kind == "unrolled" for a in spatial) and all(
                isinstance(nest.extents[n], int) for n in stage.roots
            )
            kind = "unrolled" if unrolled else "serial"
            for name in stage.roots:
                known[name], init = init.loop(nest.extents[name], name, kind)
            init, starts, stored = self.guard(
                nest, init, known, check_splits=False, init=not has_init
            )
            self.store_identities(stage, accumulators, starts, stored, init)
            inner, values = self.emit_loops(nest, stage.leaves, builder, {})
        self.emit_update(nest, inner, values, accumulators)

    def accumulators(self, stage: Stage, buffer: SSAValue, builder: BlockBuilder) -> list[SSAValue]:
        """The buffers a reduction accumulates in: its own; of a tuple reducer, one per
        value reduced together, the others allocated in `buffer`'s shape (each output of a
        tuple reduction is computed by its own loop nest)."""
        reduction = stage.reduction
        assert reduction is not None
        types = reduction.value_types
        if len(types) == 1:
            return [buffer]
        typ = buffer.type
        assert isinstance(typ, MemRefType)
        dynamic = [
            builder.add(memref.DimOp(buffer, builder.index(d)))
            for d, extent in enumerate(typ.get_shape())
            if extent == DYNAMIC_INDEX
        ]
        result = []
        for k, elem in enumerate(types):
            if k == reduction.component_index:
                result.append(buffer)
                continue
            companion = builder.add(memref.AllocOp(dynamic, [], MemRefType(elem, typ.get_shape())))
            companion.name_hint = f"{stage.name}.acc{k}"
            self.deallocs.append((builder, companion))
            result.append(companion)
        return result

    def store_identities(
        self,
        stage: Stage,
        accumulators: Sequence[SSAValue],
        indices: Sequence[SSAValue],
        stored: Sequence[SSAValue],
        builder: BlockBuilder,
    ) -> None:
        """Start each accumulator at its identity, or at the reduction's init (an expression
        of the spatial `indices`)."""
        reduction = stage.reduction
        assert reduction is not None
        if reduction.init is not None:
            block = reduction.init.block
            values = self.drive(self.body_steps(stage, indices, [], builder, block))
        else:
            values = self.identities_of(stage, builder)
        for value, buffer in zip(values, accumulators, strict=True):
            builder.add(memref.StoreOp.get(value, buffer, stored))

    def emit_tensorized_reduction(self, nest: Nest, builder: BlockBuilder) -> None:
        """A reduction whose loops from the tensorized axis inward form the intrinsic's nest:
        the init sits in that nest just outside its first reduce loop (as in the intrinsic's
        own lowering), guarded by `scf.if` on the reduce loops outside the nest being at
        their first iteration (tir-tensorize makes that the intrinsic's reset)."""
        stage, placement = nest.stage, self.placements[nest.stage.name]
        assert stage.tensorize is not None and stage.reduction is not None
        axis, op = stage.tensorize
        position = stage.leaves.index(axis)
        inside = stage.leaves[position:]
        first_reduce = next((i for i, n in enumerate(inside) if stage.axes[n].reduce), None)
        if first_reduce is None or any(not stage.axes[n].reduce for n in inside[first_reduce:]):
            raise located_error(
                op,
                f"tensorize of reduction stage '{stage.name}' needs the loops inside "
                f"'{axis}' to hold its data-parallel axes first, then reduce axes; they are "
                f"{', '.join(inside)}",
            )
        outer, values = self.emit_loops(nest, stage.leaves[:position], builder, {})
        outer_reduce = [values[n] for n in stage.leaves[:position] if stage.axes[n].reduce]
        spatial, values = self.emit_loops(nest, inside[:first_reduce], outer, values)
        init = spatial
        if outer_reduce:
            zero = init.index(0)
            first = [init.add(arith.CmpiOp(v, zero, "eq")) for v in outer_reduce]
            condition = first[0]
            for other in first[1:]:
                condition = init.add(arith.AndIOp(condition, other))
            init = init.when(condition)
        init, _, stored = self.guard(nest, init, values, init=True)
        self.store_identities(stage, [placement.buffer], [], stored, init)
        inner, values = self.emit_loops(nest, inside[first_reduce:], spatial, values)
        self.emit_update(nest, inner, values, [placement.buffer])

    def emit_update(
        self,
        nest: Nest,
        inner: BlockBuilder,
        values: dict[str, SSAValue],
        accumulators: Sequence[SSAValue],
    ) -> None:
        """A reduction's update in its innermost loop `inner` (guarded): the stored elements
        combined with the stage's body at the loop values `values`."""
        stage = nest.stage
        assert stage.reduction is not None
        body, indices, stored = self.guard(nest, inner, values)
        reduce_indices = [values[n] for n in stage.reduce_roots]
        sources = self.emit_values(stage, indices, reduce_indices, body)
        accs = [body.add(memref.LoadOp.get(b, stored)) for b in accumulators]
        combined = self.combine_of(stage, accs, sources, body)
        for value, buffer in zip(combined, accumulators, strict=True):
            body.add(memref.StoreOp.get(value, buffer, stored))

    def emit_loops(
        self,
        nest: Nest,
        names: Sequence[str],
        builder: BlockBuilder,
        known: dict[str, SSAValue],
    ) -> tuple[BlockBuilder, dict[str, SSAValue]]:
        """One tir.for per leaf axis in `names`, nested, each starting with the stages computed
        at it; the innermost body and the axis values."""
        values = dict(known)
        for name in names:
            axis = nest.stage.axes[name]
            extent = nest.extents[name]
            var, builder = builder.loop(extent, name, axis.kind, axis.thread, axis.annotations)
            values[name] = var
            if isinstance(extent, int):
                self.ranges[var] = (0, extent - 1)
                if is_block_thread(axis.thread):
                    self.thread_ranges[var] = (0, extent - 1)
            for child in self.attached.get((nest.stage.name, name), []):
                self.emit_attached(child, nest, name, builder, values)
        return builder, axis_values(nest, builder, values)

    def guard(
        self,
        nest: Nest,
        builder: BlockBuilder,
        values: dict[str, SSAValue],
        check_splits: bool = True,
        init: bool = False,
    ) -> tuple[BlockBuilder, list[SSAValue], list[SSAValue]]:
        """Skip the iterations that leave the stage's domain: overshooting splits, box elements
        outside the tensor. The guarded builder, the spatial indices (global) and the indices
        to store at (relative to the box for a buffer that holds one). An `init` store needs
        no global indices unless it stores at them."""
        stage, box = nest.stage, nest.box
        boxed = self.placements[stage.name].starts is not None
        local = [values[n] for n in stage.roots]
        indices = local
        if box is not None and any(box.starts) and (not init or not boxed or any(box.checked)):
            indices = [builder.offset(v, s) for v, s in zip(local, box.starts, strict=True)]
        conditions: list[SSAValue] = []
        for relation in stage.unique_relations() if check_splits else []:
            if isinstance(relation, Split) and relation.parent in values:
                if overshoots(relation, nest.extents):
                    bound = builder.index(nest.extents[relation.parent])
                    conditions.append(
                        builder.add(arith.CmpiOp(values[relation.parent], bound, "ult"))
                    )
        if box is not None:
            for index, checked, extent in zip(indices, box.checked, stage.extents, strict=True):
                if checked:
                    bound = builder.index(extent)
                    conditions.append(builder.add(arith.CmpiOp(index, bound, "ult")))
        stored = local if boxed else indices
        if not conditions:
            return builder, indices, stored
        condition = conditions[0]
        for other in conditions[1:]:
            condition = builder.add(arith.AndIOp(condition, other))
        return builder.when(condition), indices, stored

    # -- compute_at ------------------------------------------------------------------------

    def emit_attached(
        self,
        child: Stage,
        parent: Nest,
        axis: str,
        builder: BlockBuilder,
        values: dict[str, SSAValue],
    ) -> None:
        """Emit `child` at the start of `parent`'s loop `axis`, over the box it reads there."""
        box = self.infer_box(child, parent, axis, builder, values)
        if child.value in self.outputs:
            self.placements[child.name] = Placement(self.outputs[child.value])
        else:
            buffer = self.allocate(child, box.extents, builder)
            self.deallocs.append((builder, buffer))
            self.placements[child.name] = Placement(buffer, box.starts)
        self.emit_stage(child, builder, box)

    def infer_box(
        self,
        child: Stage,
        parent: Nest,
        axis: str,
        builder: BlockBuilder,
        values: dict[str, SSAValue],
    ) -> Box:
        """The box of `child`'s tensor that `parent` reads while the loops of `axis` and
        outside it are fixed and the loops inside run (TVM's bound inference); where
        `child`'s reader is a stage computed inside that loop, what the reader reads over
        the whole box of it computed there (its reduction entire)."""
        stage = parent.stage
        readers = self.readers_of(child)
        if stage not in readers:
            reader = self.attached_reader(child, readers)
            assert reader is not None  # check_attachments made sure
            region = self.infer_box(reader, parent, axis, builder, values)
            spatial = [
                (low, low + Lin(extent - 1)) if isinstance(extent, int) else None
                for low, extent in zip(region.lower, region.extents, strict=True)
            ]
            reduce = [full(e) for e in reader.reduce_extents]
            found: list[list[Interval]] = []
            self.collect_reads(reader, spatial, reduce, child.value, found)
            return self.box_of(child, found, builder)
        fixed = stage.leaves.index(axis)
        ranges: dict[str, Interval] = {}
        for position, leaf in enumerate(stage.leaves):
            ranges[leaf] = (
                point(Lin.of(values[leaf])) if position <= fixed else full(parent.extents[leaf])
            )
        for relation in reversed(stage.unique_relations()):
            if isinstance(relation, Split):
                outer, inner = ranges[relation.outer], ranges[relation.inner]
                factor = parent.extents[relation.inner]
                if outer is None or inner is None or not isinstance(factor, int):
                    ranges[relation.parent] = full(parent.extents[relation.parent])
                else:
                    ranges[relation.parent] = (
                        outer[0].scale(factor) + inner[0],
                        outer[1].scale(factor) + inner[1],
                    )
                continue
            fused = ranges[relation.fused]
            if fused is not None and (fused[1] - fused[0]).constant() == 0:
                known = {relation.fused: self.materialize(fused[0], builder)}
                of_threads = known[relation.fused] in self.thread_ranges
                for part in relation.parts:
                    value = (
                        values[part]
                        if part in values
                        else derive(parent, part, relation, known, builder)
                    )
                    assert value is not None
                    if relation.fused in values:  # the parent's own loop: its nest reuses it
                        values.setdefault(part, value)
                    ranges[part] = point(Lin.of(value))
                    extent = parent.extents[part]
                    if isinstance(extent, int):  # a part of a fused loop stays in its loop
                        self.ranges.setdefault(value, (0, extent - 1))
                        if of_threads:
                            self.thread_ranges.setdefault(value, (0, extent - 1))
            else:
                for part in relation.parts:
                    ranges[part] = full(parent.extents[part])
        lower = parent.box.lower if parent.box else [Lin()] * len(stage.roots)
        spatial = [shift(ranges[r], low) for r, low in zip(stage.roots, lower, strict=True)]
        reduce = [ranges[r] for r in stage.reduce_roots]
        found = []
        self.collect_reads(stage, spatial, reduce, child.value, found)
        return self.box_of(child, found, builder)

    def box_of(self, child: Stage, found: list[list[Interval]], builder: BlockBuilder) -> Box:
        """The box of `child`'s tensor that holds every read of `found` (index ranges).

        A "shared" stage is computed once for all the threads of a block: its reads are
        relaxed over the thread loops enclosing its attach point (TVM's InferBound relaxes
        threadIdx and vthread for the shared scope), so that it holds what every thread of
        the block reads there; its own thread-bound loops share out that work."""
        if child.scope == "shared":
            found = [[self.relaxed(i) for i in read] for read in found]
        box = Box([], [], [], [])
        for dim, extent in enumerate(child.extents):
            interval: Interval = found[0][dim]
            for read in found[1:]:
                interval = hull(interval, read[dim])
            width = None if interval is None else (interval[1] - interval[0]).constant()
            if width is None or width < 0 or (isinstance(extent, int) and width + 1 >= extent):
                box.lower.append(Lin())
                box.starts.append(None)
                box.extents.append(extent)
                box.checked.append(False)
                continue
            assert interval is not None
            low = interval[0]
            bounds = self.bounds(low)
            start = None if low.constant() == 0 else self.materialize(low, builder)
            if start is not None and start.name_hint is None:
                start.name_hint = f"{child.name}_{child.roots[dim]}_start".replace(".", "_")
            if start is not None and bounds is not None:
                self.ranges[start] = bounds
            box.lower.append(low)
            box.starts.append(start)
            box.extents.append(width + 1)
            box.checked.append(
                not (
                    bounds is not None
                    and isinstance(extent, int)
                    and bounds[0] >= 0
                    and bounds[1] + width < extent
                )
            )
        return box

    def relaxed(self, interval: Interval) -> Interval:
        """`interval` over all the threads of a block; unknown (the whole dimension) where
        it depends on a thread otherwise than through the loops and parts of fused loops
        whose ranges are known."""
        interval = relax(interval, self.thread_ranges)
        if interval is None:
            return None
        terms = [*interval[0].terms, *interval[1].terms]
        return None if any(self.on_threads(v) for v in terms) else interval

    def on_threads(self, value: SSAValue) -> bool:
        """Whether `value` is computed from a loop over a block's threads."""
        pending, seen = [value], set()
        while pending:
            value = pending.pop()
            if value in seen:
                continue
            seen.add(value)
            if value in self.thread_ranges:
                return True
            if isinstance(value, BlockArgument):
                loop = value.block.parent_op()
                if isinstance(loop, tir.ForOp) and is_block_thread(
                    loop.thread.data if loop.thread else None
                ):
                    return True
                continue
            pending.extend(value.owner.operands)  # type: ignore[union-attr]
        return False

    def collect_reads(
        self,
        stage: Stage,
        spatial: Sequence[Interval],
        reduce: Sequence[Interval],
        target: SSAValue,
        found: list[list[Interval]],
    ) -> None:
        """Append to `found` the index ranges of every read of `target` in `stage`'s body,
        given the ranges of its axes; reads of inlined stages are followed (from a worklist,
        so that a chain of inlined stages of any length needs no recursion)."""
        pending: list[tuple[Stage, Sequence[Interval], Sequence[Interval]]] = [
            (stage, spatial, reduce)
        ]
        while pending:
            stage, spatial, reduce = pending.pop()
            for tensor, indices in self.reads_in(stage, spatial, reduce):
                tensor = stage.resolve(tensor)
                producer = self.by_value.get(tensor)
                if tensor is target:
                    found.append(indices)
                elif producer is not None and producer.inline:
                    pending.append((producer, indices, []))

    def reads_in(
        self, stage: Stage, spatial: Sequence[Interval], reduce: Sequence[Interval]
    ) -> list[tuple[SSAValue, list[Interval]]]:
        """The tensors `stage`'s body reads, each with its index ranges given the ranges of
        the stage's axes."""
        if stage.compute is None:
            assert stage.source is not None
            return [(stage.source, list(spatial))]
        reads: list[tuple[SSAValue, list[Interval]]] = []
        ranges: dict[SSAValue, Interval] = dict(zip(stage.compute.axes, spatial, strict=True))

        def walk(block: Block) -> None:
            for op in block.ops:
                if isinstance(op, te.ReduceOp):
                    ranges.update(zip(op.body.block.args, reduce, strict=True))
                if isinstance(op, te.ReadOp):
                    reads.append((op.tensor, [lookup(i) for i in op.indices]))
                for region in op.regions:
                    for nested in region.blocks:
                        walk(nested)
                if len(op.results) == 1:
                    ranges[op.results[0]] = index_interval(op, [lookup(v) for v in op.operands])

        def lookup(value: SSAValue) -> Interval:
            if value in ranges:
                return ranges[value]
            kernel_value = self.values.get(value)
            return point(Lin.of(kernel_value)) if kernel_value is not None else None

        walk(stage.compute.body.block)
        return reads

    def bounds(self, value: Lin) -> tuple[int, int] | None:
        """The least and greatest value of `value` over the known ranges of its terms."""
        low = high = value.const
        for term, k in value.terms.items():
            known = self.ranges.get(term)
            if known is None:
                return None
            low += min(k * known[0], k * known[1])
            high += max(k * known[0], k * known[1])
        return low, high

    def materialize(self, value: Lin, builder: BlockBuilder) -> SSAValue:
        result: SSAValue | None = None
        for term, k in value.terms.items():
            if k != 1:
                term = builder.add(arith.MuliOp(term, builder.index(k)))
            result = term if result is None else builder.add(arith.AddiOp(result, term))
        if result is None:
            return builder.index(value.const)
        if value.const:
            result = builder.add(arith.AddiOp(result, builder.index(value.const)))
        return result

    # -- bodies ----------------------------------------------------------------------------

    def emit_body(
        self,
        stage: Stage,
        indices: Sequence[SSAValue],
        reduce_indices: Sequence[SSAValue],
        builder: BlockBuilder,
    ) -> SSAValue:
        """The element of `stage` at `indices` (see `emit_values`)."""
        return self.emit_values(stage, indices, reduce_indices, builder)[0]

    def emit_values(
        self,
        stage: Stage,
        indices: Sequence[SSAValue],
        reduce_indices: Sequence[SSAValue],
        builder: BlockBuilder,
    ) -> list[SSAValue]:
        """The element of `stage` at `indices`, or with reduce indices, the values its
        te.reduce body yields (several for a tuple reducer).

        The body of an inlined producer is emitted where it is read. Each body is a generator
        that yields the inlined reads it meets and resumes with their values; the generators
        wait on an explicit stack, so a chain of inlined stages of any length (a fused group
        of thousands of elementwise ops) needs no Python recursion."""
        return self.drive(self.body_steps(stage, indices, reduce_indices, builder))

    def drive(self, steps: Generator[InlineRead, SSAValue, list[SSAValue]]) -> list[SSAValue]:
        """Run a body's emission, emitting the inlined producers it reads (see
        `emit_values`)."""
        pending = [steps]
        value: list[SSAValue] | None = None
        while pending:
            try:
                sent = None if value is None else value[0]
                producer, at, where = pending[-1].send(sent)  # type: ignore[arg-type]
            except StopIteration as done:
                pending.pop()
                value = done.value
                continue
            pending.append(self.body_steps(producer, at, [], where))
            value = None
        assert value is not None
        return value

    def body_steps(
        self,
        stage: Stage,
        indices: Sequence[SSAValue],
        reduce_indices: Sequence[SSAValue],
        builder: BlockBuilder,
        block: Block | None = None,
    ) -> Generator[InlineRead, SSAValue, list[SSAValue]]:
        """`emit_body` of one stage, yielding its reads of inlined stages (see there); with
        `block`, that block of the stage's compute (its reduction's init) at `indices`."""
        if stage.compute is None:
            assert stage.source is not None
            return [(yield from self.read(stage, stage.source, list(indices), builder))]
        mapping = dict(zip(stage.compute.axes, indices, strict=True))
        reduction = stage.reduction
        if block is None:
            block = stage.compute.body.block
        if reduction is not None and reduce_indices:
            mapping.update(zip(reduction.body.block.args, reduce_indices, strict=True))
            block = reduction.body.block
        mapping = {**self.values, **mapping}
        yield from self.emit_ops(stage, block, mapping, builder)
        last = block.last_op
        assert isinstance(last, te.YieldOp)
        return [mapping.get(v, v) for v in last.values]

    def identities_of(self, stage: Stage, builder: BlockBuilder) -> list[SSAValue]:
        """The identity element of each value `stage`'s reduction reduces, added by
        `builder`."""
        reduction = stage.reduction
        assert reduction is not None
        if reduction.identity is None:
            return [identity(reduction.combiner.data, reduction.result.type, builder)]
        return [builder.add(arith.ConstantOp(a)) for a in reduction.identities]  # type: ignore[arg-type]

    def combine_of(
        self,
        stage: Stage,
        lhs: Sequence[SSAValue],
        rhs: Sequence[SSAValue],
        builder: BlockBuilder,
    ) -> list[SSAValue]:
        """The accumulated values `lhs` combined with the new values `rhs` by `stage`'s
        reducer, added by `builder`."""
        reduction = stage.reduction
        assert reduction is not None
        if reduction.combine is None:
            return [builder.add(combine(reduction.combiner.data, lhs[0], rhs[0]))]
        block = reduction.combine.block
        return self.emit_scalar(
            stage, block, dict(zip(block.args, (*lhs, *rhs), strict=True)), builder
        )

    def emit_scalar(
        self,
        stage: Stage,
        block: Block,
        mapping: dict[SSAValue, SSAValue],
        builder: BlockBuilder,
    ) -> list[SSAValue]:
        """The values a custom reducer's combine region yields, its ops cloned into
        `builder`."""
        mapping = {**self.values, **mapping}
        steps = self.emit_ops(stage, block, mapping, builder)
        try:
            next(steps)
        except StopIteration:
            last = block.last_op
            assert isinstance(last, te.YieldOp)
            return [mapping.get(v, v) for v in last.operands]
        raise located_error(
            block.parent_op() or block, "a reducer's combine region reads a computed tensor"
        )

    def emit_ops(
        self,
        stage: Stage,
        block: Block,
        mapping: dict[SSAValue, SSAValue],
        builder: BlockBuilder,
    ) -> Generator[InlineRead, SSAValue, None]:
        """Clone `block`'s ops into `builder`, reads becoming loads (also in scf.if branches);
        `mapping` grows by the values they define."""
        for op in block.ops:
            if isinstance(op, te.YieldOp | te.ReduceOp):
                continue  # a reduce is emitted by its stage, around this body
            if isinstance(op, te.ReadOp):
                indices = [mapping.get(i, i) for i in op.indices]
                mapping[op.result] = yield from self.read(stage, op.tensor, indices, builder)
                continue
            if isinstance(op, scf.IfOp):
                branches = [Region(Block()) for region in op.regions if region.blocks]
                new = scf.IfOp(mapping.get(op.cond, op.cond), op.result_types, *branches)
                builder.add(new)
                for old_region, new_region in zip(op.regions, new.regions, strict=False):
                    branch = BlockBuilder(new_region.block, builder.constants)
                    yield from self.emit_ops(stage, old_region.block, mapping, branch)
                mapping.update(zip(op.results, new.results, strict=True))
                continue
            clone = op.clone(value_mapper=mapping)
            builder.add(clone)
            mapping.update(zip(op.results, clone.results, strict=True))

    def read(
        self, stage: Stage, tensor: SSAValue, indices: list[SSAValue], builder: BlockBuilder
    ) -> EmitSteps:
        """The element of `tensor` at `indices` as `stage` reads it; the read of an inlined
        stage is yielded, to be emitted by `emit_body`."""
        tensor = stage.resolve(tensor)
        producer = self.by_value.get(tensor)
        if producer is None:
            return builder.add(memref.LoadOp.get(self.buffers[tensor], indices))
        if producer.inline:
            return (yield (producer, indices, builder))
        placement = self.placements[producer.name]
        if placement.starts is not None:
            indices = [
                builder.offset(i, s, subtract=True)
                for i, s in zip(indices, placement.starts, strict=True)
            ]
        return builder.add(memref.LoadOp.get(placement.buffer, indices))


def aligned_strides(
    shape: Sequence[int], align: Mapping[int, tuple[int, int, Operation]]
) -> list[int]:
    """Row-major strides where the stride of each aligned dimension is raised to the next
    `factor * k + offset` (TVM's storage_align)."""
    strides: list[int] = []
    stride = 1
    for dim in reversed(range(len(shape))):
        if dim in align:
            factor, offset, _ = align[dim]
            stride += (factor + offset - stride % factor) % factor
        strides.append(stride)
        stride *= shape[dim]
    return strides[::-1]


def kernel_type(typ: Attribute, where: Operation) -> Attribute:
    """The tir type of a te kernel's argument or result: a memref for a tensor; index and
    float scalars as they are."""
    if isinstance(typ, TensorType):
        return MemRefType(typ.get_element_type(), typ.get_shape())
    if isinstance(typ, IndexType | AnyFloat):
        return typ
    raise located_error(where, f"te kernels take tensors, index and float values, got {typ}")


def is_te_kernel(function: func.FuncOp) -> bool:
    return any(isinstance(op, te.ComputeOp | te.ExternOp) for op in function.walk())


def rewrite_kernel_call(call: func.CallOp, kernel: func.FuncOp) -> None:
    """Make `call` of a te kernel a call of its destination-passing tir form.

    The caller keeps its tensors: each tensor operand is passed as a read-only buffer
    (`bufferization.to_buffer`), each result becomes a `memref.alloc` passed after the
    inputs and read back as a tensor (`bufferization.to_tensor`), as MLIR's bufferization
    writes the boundary between tensor and buffer code."""
    operands: list[SSAValue] = []
    for value in call.arguments:
        if isinstance(value.type, TensorType):
            buffer = bufferization.ToBufferOp.create(
                operands=[value],
                result_types=[kernel_type(value.type, call)],
                properties={"read_only": UnitAttr()},
            )
            Rewriter.insert_op(buffer, InsertPoint.before(call))
            value = buffer.memref
        operands.append(value)
    tensors: list[SSAValue] = []
    for result in call.results:
        typ = kernel_type(result.type, call)
        assert isinstance(typ, MemRefType)
        if any(d < 0 for d in typ.get_shape()):
            raise located_error(
                call,
                f"cannot allocate the result of @{kernel.sym_name.data} for its caller: "
                f"{result.type} has a dynamic shape",
            )
        output = memref.AllocOp([], [], typ)
        if result.name_hint:
            output.memref.name_hint = f"{result.name_hint}_buffer"
        Rewriter.insert_op(output, InsertPoint.before(call))
        operands.append(output.memref)
        tensors.append(bufferization.ToTensorOp(output.memref, restrict=True).tensor)
    Rewriter.insert_op(func.CallOp(call.callee, operands, []), InsertPoint.before(call))
    Rewriter.insert_op([t.owner for t in tensors], InsertPoint.before(call))  # type: ignore[misc]
    for old, new in zip(call.results, tensors, strict=True):
        new.name_hint = old.name_hint
        old.replace_all_uses_with(new)
    Rewriter.erase_op(call)


@dataclass(frozen=True)
class ConvertTeToTirPass(ModulePass):
    """Apply te schedules and emit tir loop nests over buffers.

    Calls of the kernels (from `@main`) pass buffers: `%y = func.call @k(%x)` becomes
    `%xb = bufferization.to_buffer %x`, `%yb = memref.alloc()`, `func.call @k(%xb, %yb)`
    and `%y = bufferization.to_tensor %yb`.
    """

    name = "convert-te-to-tir"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        lowered: dict[str, func.FuncOp] = {}
        for function in [f for f in op.ops if isinstance(f, func.FuncOp)]:
            if not is_te_kernel(function):
                continue
            kernel = KernelLowering(function).lower()
            kernel.location = function.location  # errors about the kernel point at its source
            op.body.block.insert_op_before(kernel, function)
            op.body.block.erase_op(function)
            lowered[kernel.sym_name.data] = kernel
        calls = [
            call
            for call in op.walk()
            if isinstance(call, func.CallOp) and call.callee.string_value() in lowered
        ]
        for call in calls:
            rewrite_kernel_call(call, lowered[call.callee.string_value()])
