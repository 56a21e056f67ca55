"""`convert-te-to-tir`: apply each te kernel's schedule and emit its loop nests in tir.

A te kernel (a `func.func` holding `te.compute` ops) becomes a kernel over buffers: tensor
arguments become memrefs, and the returned tensors become memref arguments appended after the
inputs (destination-passing style, TVM's `tvm.lower(s, [A, B, C])`). Every stage that is not
inlined gets a buffer (its output argument, or a `memref.alloc` for intermediates) and a loop
nest:

- the stage's axes start as its compute axes then its reduce axes; the `te.schedule`
  primitives rewrite that list of leaf axes in order (`split`, `fuse`, `reorder`) and mark
  loops (`parallel`, `vectorize`, `unroll`, `bind`); one `tir.for` per leaf axis results;
- the original indices are rebuilt from the leaf loop variables (`parent = outer * factor +
  inner` for a split, division and remainder for a fuse); a split whose factor does not divide
  the extent guards the body with `scf.if parent < extent`, so nothing is read or written out
  of bounds;
- a reduction stores the combiner's identity, then accumulates into its buffer; the init sits
  just outside the first reduce loop when every reduce loop is inside every spatial loop (as
  TVM writes it), else in a loop nest of its own before the main one;
- `te.read` of an inlined stage (`compute_inline`) is replaced by that stage's body at the read
  indices; other reads become `memref.load`.

A schedule that names an unknown stage or axis, splits an axis that is no longer a leaf, fuses
axes that are not adjacent, or inlines a reduction is a located error at the primitive.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

from xdsl.context import Context
from xdsl.dialects import arith, func, memref, scf
from xdsl.dialects.builtin import (
    FloatAttr,
    FunctionType,
    IndexType,
    IntegerAttr,
    IntegerType,
    MemRefType,
    ModuleOp,
    TensorType,
)
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue
from xdsl.passes import ModulePass

from xtvm.dialects import te, tir
from xtvm.ir.diagnostics import DiagnosticError
from xtvm.passes.relay_infer_types import located_error

# ---------------------------------------------------------------------------------------------
# Schedules as axis lists


@dataclass
class Axis:
    """One axis of a stage: a root axis or one a primitive created."""

    name: str
    extent: int
    reduce: bool
    kind: str = "serial"
    thread: str | None = None


@dataclass(frozen=True)
class Split:
    parent: str
    outer: str
    inner: str


@dataclass(frozen=True)
class Fuse:
    parts: tuple[str, ...]
    fused: str


@dataclass
class Stage:
    """A te.compute with its schedule applied: leaf axes in loop order, outermost first."""

    compute: te.ComputeOp
    axes: dict[str, Axis] = field(default_factory=dict)
    leaves: list[str] = field(default_factory=list)
    relations: dict[str, Split | Fuse] = field(default_factory=dict)  # non-leaf axis -> how
    inline: bool = False

    @property
    def name(self) -> str:
        return self.compute.stage_name.data

    @staticmethod
    def of(compute: te.ComputeOp) -> Stage:
        stage = Stage(compute)
        typ = compute.result.type
        assert isinstance(typ, TensorType)
        for name, extent in zip(te.names_of(compute.axis_names), typ.get_shape(), strict=True):
            stage.add(Axis(name, extent, reduce=False))
        reduction = compute.reduction()
        if reduction is not None:
            names = te.names_of(reduction.axis_names)
            for name, extent in zip(names, reduction.extent_values, strict=True):
                if name in stage.axes:
                    raise located_error(
                        reduction, f"reduce axis '{name}' has the name of a compute axis"
                    )
                stage.add(Axis(name, extent, reduce=True))
        return stage

    def add(self, axis: Axis) -> None:
        self.axes[axis.name] = axis
        self.leaves.append(axis.name)

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
    """Rewrite `stage`'s axes by one schedule primitive."""
    if isinstance(op, te.SplitOp):
        axis = stage.leaf(op.axis.data, op)
        outer, inner = stage.fresh(op.outer.data, op), stage.fresh(op.inner.data, op)
        if op.factor is not None:
            inner_extent = op.factor.value.data
            outer_extent = math.ceil(axis.extent / inner_extent)
        else:
            assert op.nparts is not None
            outer_extent = op.nparts.value.data
            inner_extent = math.ceil(axis.extent / outer_extent)
        position = stage.leaves.index(axis.name)
        stage.axes[outer] = Axis(outer, outer_extent, axis.reduce)
        stage.axes[inner] = Axis(inner, inner_extent, axis.reduce)
        stage.leaves[position : position + 1] = [outer, inner]
        stage.relations[axis.name] = Split(axis.name, outer, inner)
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
        stage.axes[fused] = Axis(fused, math.prod(p.extent for p in parts), parts[0].reduce)
        stage.leaves[first : first + len(names)] = [fused]
        for name in names:
            stage.relations[name] = Fuse(tuple(names), fused)
    elif isinstance(op, te.AxisAnnotationOp):
        stage.leaf(op.axis.data, op).kind = op.KIND
    elif isinstance(op, te.BindOp):
        axis = stage.leaf(op.axis.data, op)
        axis.kind, axis.thread = "thread_binding", op.thread.data
    elif isinstance(op, te.ComputeInlineOp):
        if stage.compute.reduction() is not None:
            raise located_error(op, f"cannot inline stage '{stage.name}': it is a reduction")
        stage.inline = True
    elif isinstance(op, te.ComputeRootOp):
        stage.inline = False
    else:
        raise located_error(op, f"'{op.name}' is not supported by convert-te-to-tir")


# ---------------------------------------------------------------------------------------------
# Emitting tir


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

    def index(self, value: int) -> SSAValue:
        return self.constants.index(value)

    def loop(
        self, extent: int, name: str, kind: str = "serial", thread: str | None = None
    ) -> tuple[SSAValue, BlockBuilder]:
        """A `tir.for` over [0, extent); its induction variable and a builder of its body."""
        loop = tir.ForOp(self.index(0), self.index(extent), kind=kind, thread=thread)
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


def identity(combiner: str, elem: Attribute) -> arith.ConstantOp:
    """The combiner's neutral element of type `elem`."""
    if isinstance(elem, IntegerType):
        width = elem.width.data
        values = {"sum": 0, "prod": 1, "max": -(2 ** (width - 1)), "min": 2 ** (width - 1) - 1}
        return arith.ConstantOp(IntegerAttr(values[combiner], elem))
    values = {"sum": 0.0, "prod": 1.0, "max": -math.inf, "min": math.inf}
    return arith.ConstantOp(FloatAttr(values[combiner], elem))  # type: ignore[arg-type]


def combine(combiner: str, lhs: SSAValue, rhs: SSAValue) -> Operation:
    if isinstance(lhs.type, IntegerType):
        ops: dict[str, type[Operation]] = {
            "sum": arith.AddiOp,
            "prod": arith.MuliOp,
            "max": arith.MaxSIOp,
            "min": arith.MinSIOp,
        }
    else:
        ops = {
            "sum": arith.AddfOp,
            "prod": arith.MulfOp,
            "max": arith.MaximumfOp,
            "min": arith.MinimumfOp,
        }
    return ops[combiner](lhs, rhs)  # type: ignore[call-arg]


def axis_values(
    stage: Stage, builder: BlockBuilder, known: dict[str, SSAValue]
) -> dict[str, SSAValue]:
    """`known` extended with every axis computable from it: split parents, fused parts."""
    values = dict(known)
    changed = True
    while changed:
        changed = False
        for name in stage.axes:
            if name in values:
                continue
            value = derive(stage, name, stage.relations.get(name), values, builder)
            if value is not None:
                value.name_hint = name.replace(".", "_")
                values[name] = value
                changed = True
    return values


def derive(
    stage: Stage,
    name: str,
    relation: Split | Fuse | None,
    values: dict[str, SSAValue],
    builder: BlockBuilder,
) -> SSAValue | None:
    """Axis `name` from the axes it was split or fused into, if those are known."""
    if isinstance(relation, Split):
        if relation.outer not in values or relation.inner not in values:
            return None
        factor = builder.index(stage.axes[relation.inner].extent)
        scaled = builder.add(arith.MuliOp(values[relation.outer], factor))
        return builder.add(arith.AddiOp(scaled, values[relation.inner]))
    if isinstance(relation, Fuse) and relation.fused in values:
        position = relation.parts.index(name)
        stride = math.prod(stage.axes[p].extent for p in relation.parts[position + 1 :])
        value = values[relation.fused]
        if stride != 1:
            value = builder.add(arith.DivUIOp(value, builder.index(stride)))
        if position:
            value = builder.add(arith.RemUIOp(value, builder.index(stage.axes[name].extent)))
        return value
    return None


def guard(stage: Stage, builder: BlockBuilder, values: dict[str, SSAValue]) -> BlockBuilder:
    """Guard with `parent < extent` every split that overshoots and whose parent is known."""
    conditions: list[SSAValue] = []
    for parent, relation in stage.relations.items():
        if not isinstance(relation, Split) or parent not in values:
            continue
        extent = stage.axes[parent].extent
        if stage.axes[relation.outer].extent * stage.axes[relation.inner].extent == extent:
            continue
        bound = builder.index(extent)
        conditions.append(builder.add(arith.CmpiOp(values[parent], bound, "ult")))
    if not conditions:
        return builder
    condition = conditions[0]
    for other in conditions[1:]:
        condition = builder.add(arith.AndIOp(condition, other))
    return builder.when(condition)


@dataclass
class KernelLowering:
    """Lowers one te kernel function into a tir kernel."""

    function: func.FuncOp
    stages: dict[str, Stage] = field(default_factory=dict)
    by_value: dict[SSAValue, Stage] = field(default_factory=dict)
    buffers: dict[SSAValue, SSAValue] = field(default_factory=dict)  # tensor -> buffer

    def lower(self) -> func.FuncOp:
        old = self.function.body.block
        computes = [op for op in old.ops if isinstance(op, te.ComputeOp)]
        for compute in computes:
            stage = Stage.of(compute)
            if stage.name in self.stages:
                raise located_error(compute, f"two stages are named '{stage.name}'")
            self.stages[stage.name] = stage
            self.by_value[compute.result] = stage
        for schedule in [op for op in old.ops if isinstance(op, te.ScheduleOp)]:
            for primitive in schedule.body.block.ops:
                assert isinstance(primitive, te.PrimitiveOp)
                stage = self.stages.get(primitive.stage.data)
                if stage is None:
                    raise located_error(
                        primitive,
                        f"no stage named '{primitive.stage.data}' "
                        f"(stages: {', '.join(self.stages)})",
                    )
                apply_primitive(stage, primitive)
        ret = old.last_op
        if not isinstance(ret, func.ReturnOp):
            raise located_error(self.function, "a te kernel must end with func.return")
        outputs = list(ret.operands)
        for value in outputs:
            stage = self.by_value.get(value)
            if stage is None:
                raise located_error(ret, "a te kernel returns tensors its te.compute ops define")
            if stage.inline:
                raise located_error(ret, f"output stage '{stage.name}' cannot be inlined")

        arg_types = [memref_of(a.type, self.function) for a in old.args]
        arg_types += [memref_of(v.type, self.function) for v in outputs]
        block = Block(arg_types=arg_types)
        for new, arg in zip(block.args, old.args, strict=False):
            new.name_hint = arg.name_hint
            self.buffers[arg] = new
        for new, value in zip(block.args[len(old.args) :], outputs, strict=True):
            new.name_hint = self.by_value[value].name
            self.buffers[value] = new
        builder = BlockBuilder(block, ConstantPool(block))
        allocated: list[SSAValue] = []
        for compute in computes:
            stage = self.by_value[compute.result]
            if not stage.inline and compute.result not in self.buffers:
                buffer = builder.add(memref.AllocOp([], [], memref_of(compute.result.type)))
                buffer.name_hint = stage.name
                self.buffers[compute.result] = buffer
                allocated.append(buffer)
        for compute in computes:
            stage = self.by_value[compute.result]
            if not stage.inline:
                self.emit_stage(stage, builder)
        for buffer in allocated:
            builder.add(memref.DeallocOp.get(buffer))
        builder.add(func.ReturnOp())
        visibility = self.function.sym_visibility
        return func.FuncOp(
            self.function.sym_name.data,
            FunctionType.from_lists(arg_types, []),
            Region(block),
            visibility.data if visibility else None,
        )

    # -- loop nests ------------------------------------------------------------------------

    def emit_stage(self, stage: Stage, builder: BlockBuilder) -> None:
        compute = stage.compute
        buffer = self.buffers[compute.result]
        spatial_roots = te.names_of(compute.axis_names)
        reduction = compute.reduction()
        if reduction is None:
            body, values = self.emit_loops(stage, stage.leaves, builder, {})
            body = guard(stage, body, values)
            indices = [values[n] for n in spatial_roots]
            element = self.emit_block(
                compute.body.block, dict(zip(compute.axes, indices, strict=True)), body
            )
            body.add(memref.StoreOp.get(element, buffer, indices))
            return

        combiner = reduction.combiner.data
        first_reduce = next(i for i, n in enumerate(stage.leaves) if stage.axes[n].reduce)
        spatial_outside = all(
            stage.leaves.index(n) < first_reduce for n in stage.leaves if not stage.axes[n].reduce
        )
        if spatial_outside:  # init just outside the first reduce loop, as TVM writes it
            outer, values = self.emit_loops(stage, stage.leaves[:first_reduce], builder, {})
            init = guard(stage, outer, values)
            indices = [values[n] for n in spatial_roots]
            init.add(
                memref.StoreOp.get(
                    init.add(identity(combiner, reduction.result.type)), buffer, indices
                )
            )
            inner, values = self.emit_loops(stage, stage.leaves[first_reduce:], outer, values)
        else:  # reduce loops outside some spatial loops: a loop nest of its own for the init
            init = builder
            indices = []
            for name in spatial_roots:
                var, init = init.loop(stage.axes[name].extent, name)
                indices.append(var)
            init.add(
                memref.StoreOp.get(
                    init.add(identity(combiner, reduction.result.type)), buffer, indices
                )
            )
            inner, values = self.emit_loops(stage, stage.leaves, builder, {})
        body = guard(stage, inner, values)
        indices = [values[n] for n in spatial_roots]
        reduce_roots = [values[n] for n in te.names_of(reduction.axis_names)]
        mapping = dict(zip(compute.axes, indices, strict=True))
        mapping.update(zip(reduction.body.block.args, reduce_roots, strict=True))
        source = self.emit_block(reduction.body.block, mapping, body)
        acc = body.add(memref.LoadOp.get(buffer, indices))
        body.add(memref.StoreOp.get(body.add(combine(combiner, acc, source)), buffer, indices))

    def emit_loops(
        self,
        stage: Stage,
        names: Sequence[str],
        builder: BlockBuilder,
        known: dict[str, SSAValue],
    ) -> tuple[BlockBuilder, dict[str, SSAValue]]:
        """One tir.for per leaf axis in `names`, nested; the innermost body and axis values."""
        values = dict(known)
        for name in names:
            axis = stage.axes[name]
            values[name], builder = builder.loop(axis.extent, name, axis.kind, axis.thread)
        return builder, axis_values(stage, builder, values)

    # -- bodies ----------------------------------------------------------------------------

    def emit_block(
        self, block: Block, mapping: dict[SSAValue, SSAValue], builder: BlockBuilder
    ) -> SSAValue:
        """Clone `block`'s scalar ops into `builder` under `mapping`; the value it yields."""
        mapping = dict(mapping)
        for op in block.ops:
            if isinstance(op, te.YieldOp | te.ReduceOp):
                continue  # a reduce is emitted by its stage, around this body
            if isinstance(op, te.ReadOp):
                indices = [mapping.get(i, i) for i in op.indices]
                mapping[op.result] = self.read(op, indices, builder)
                continue
            clone = op.clone(value_mapper=mapping)
            builder.add(clone)
            mapping.update(zip(op.results, clone.results, strict=True))
        last = block.last_op
        assert isinstance(last, te.YieldOp)
        return mapping.get(last.values[0], last.values[0])

    def read(self, op: te.ReadOp, indices: list[SSAValue], builder: BlockBuilder) -> SSAValue:
        stage = self.by_value.get(op.tensor)
        if stage is not None and stage.inline:
            compute = stage.compute
            return self.emit_block(
                compute.body.block, dict(zip(compute.axes, indices, strict=True)), builder
            )
        buffer = self.buffers.get(op.tensor)
        if buffer is None:
            raise located_error(op, "te.read of a tensor that is neither an argument nor a stage")
        return builder.add(memref.LoadOp.get(buffer, indices))


def memref_of(typ: Attribute, where: Operation | None = None) -> MemRefType:
    if not isinstance(typ, TensorType) or not typ.has_static_shape():
        message = f"te kernels take statically shaped tensors, got {typ}"
        raise located_error(where, message) if where else DiagnosticError.at(None, message)
    return MemRefType(typ.get_element_type(), typ.get_shape())


def is_te_kernel(function: func.FuncOp) -> bool:
    return any(isinstance(op, te.ComputeOp) for op in function.walk())


@dataclass(frozen=True)
class ConvertTeToTirPass(ModulePass):
    """Apply te schedules and emit tir loop nests over buffers."""

    name = "convert-te-to-tir"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for function in [f for f in op.ops if isinstance(f, func.FuncOp)]:
            if not is_te_kernel(function):
                continue
            lowered = KernelLowering(function).lower()
            op.body.block.insert_op_before(lowered, function)
            op.body.block.erase_op(function)
