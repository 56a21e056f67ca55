"""From TVM's Python TE objects to IR: the te-dialect kernel a schedule describes
(`schedule_to_module`), and `tvm.lower`, which applies the schedule into tir.

Symbolic shapes: a dimension that is not an int is `?` in the tensor type. Each `te.var` is
bound as TVM binds it: an argument of the kernel if it is listed in the arguments
(`tvm.lower(s, [n, A, B])`), else the extent of the first placeholder argument that has it as
a dimension (`%n = te.dim %A, 0`). A compute's symbolic extents are computed from those values
at the top of the kernel and passed to its te.compute / te.reduce as size operands.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from xdsl.dialects import func
from xdsl.dialects.builtin import (
    AnyFloat,
    ArrayAttr,
    DenseArrayBase,
    FloatAttr,
    IndexType,
    IntegerAttr,
    IntegerType,
    ModuleOp,
    i64,
)
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue

from xtvm.dialects import te
from xtvm.ir import traversal
from xtvm.ir.errors import TVMError
from xtvm.ir.numpy_types import element_type
from xtvm.runtime.binding import ARG_DIMS_ATTR, BINARY_OPS, Dim, arg_dims_attr
from xtvm.te.expr import (
    Binary,
    CommReducer,
    ComputeOp,
    Const,
    PlaceholderOp,
    PrimExpr,
    Reduce,
    ScanOp,
    Tensor,
    Var,
)
from xtvm.te.expr import Operation as TeOperation
from xtvm.te.expr_emitter import ExprEmitter, sanitize, tensor_type
from xtvm.te.extern_lower import build_extern
from xtvm.te.schedule import CachePrimitive, Schedule, post_order_ops
from xtvm.te.stmt import ExternOp


def build_compute(
    op: ComputeOp, tensors: dict[int, SSAValue], sizes: ExprEmitter, index: int = 0
) -> te.ComputeOp:
    """The te.compute of output `index` of a Python compute operation; `sizes` emits its
    symbolic extents."""
    out = op.output(index)
    dynamic = [sizes.emit(d, IndexType()) for d in out.shape if not isinstance(d, int)]
    compute = te.ComputeOp(
        op.output_names[index],
        tensor_type(out),
        [a.name for a in op.axis],
        tag=op.tag or None,
        sizes=dynamic,
    )
    block = compute.body.block
    axes = dict(sizes.values)
    axes.update({id(a): arg for a, arg in zip(op.axis, block.args, strict=True)})
    for a, arg in zip(op.axis, block.args, strict=True):
        arg.name_hint = sanitize(a.name)
    elem = element_type(out.dtype)
    emitter = ExprEmitter(block, axes, tensors)
    body = op.bodies[index]
    if isinstance(body, Reduce):
        names = [a.name for a in body.axes]
        extents = [a.dom.extent for a in body.axes]
        custom = body.combiner if isinstance(body.combiner, CommReducer) else None
        init = None
        if body.init is not None:  # computed in the compute's axes, where the init is stored
            init_block = Block()
            start = ExprEmitter(init_block, axes, tensors).emit(body.init, elem)
            init_block.add_op(te.YieldOp(start))
            init = Region(init_block)
        reduce = te.ReduceOp(
            body.combiner if custom is None else custom.name,
            [e if isinstance(e, int) else te.DYNAMIC_EXTENT for e in extents],
            names,
            elem,
            sizes=[sizes.emit(e, IndexType()) for e in extents if not isinstance(e, int)],
            **({} if custom is None else reducer_parts(custom, body, axes, tensors)),
            init=init,
        )
        inner_block = reduce.body.block
        inner_axes = dict(axes)
        for a, arg in zip(body.axes, inner_block.args, strict=True):
            inner_axes[id(a)] = arg
            arg.name_hint = sanitize(a.name)
        inner = ExprEmitter(inner_block, inner_axes, tensors)
        values = [inner.emit(v, element_type(v.dtype)) for v in body.sources]
        inner_block.add_op(te.YieldOp(*values))
        block.add_op(reduce)
        block.add_op(te.YieldOp(reduce.result))
    else:
        block.add_op(te.YieldOp(emitter.emit(body, elem)))
    return compute


def reducer_parts(
    reducer: CommReducer,
    body: Reduce,
    values: dict[int, SSAValue],
    tensors: dict[int, SSAValue],
) -> dict[str, Any]:
    """The `combine` region and `identity` of a custom reducer's te.reduce: its combining
    function applied to variables standing for the block arguments, emitted; its identity,
    which must be constant (of a tuple reducer: the region combines every value, the
    identity has one constant per value, and `component` is the reduction's own)."""
    dtypes = [v.dtype for v in body.sources]
    elems = [element_type(d) for d in dtypes]
    lhs = [Var(f"lhs{k}", d) for k, d in enumerate(dtypes)]
    rhs = [Var(f"rhs{k}", d) for k, d in enumerate(dtypes)]
    block = Block(arg_types=[*elems, *elems])
    bound = dict(values)
    bound.update({id(v): a for v, a in zip([*lhs, *rhs], block.args, strict=True)})
    emitter = ExprEmitter(block, bound, tensors)
    if len(dtypes) == 1:
        combined: Sequence[PrimExpr] = [reducer.combine(lhs[0], rhs[0])]
        identities: Sequence[PrimExpr] = [reducer.identity(dtypes[0])]
    else:
        combined = reducer.combine_tuple(lhs, rhs)
        identities = reducer.identity_tuple(dtypes)
    block.add_op(te.YieldOp(*[emitter.emit(c, e) for c, e in zip(combined, elems, strict=True)]))
    attrs = [constant_attr(reducer, v, e) for v, e in zip(identities, elems, strict=True)]
    if len(attrs) == 1:
        return {"combine": Region(block), "identity": attrs[0]}
    return {"combine": Region(block), "identity": ArrayAttr(attrs), "component": body.value_index}


def constant_attr(reducer: CommReducer, value: PrimExpr, elem: Attribute) -> Attribute:
    if not isinstance(value, Const):
        raise NotImplementedError(
            f"te.comm_reducer '{reducer.name}': the identity must be a constant "
            f"(tvm.tir.const), got {type(value).__name__}"
        )
    if isinstance(elem, IntegerType):
        return IntegerAttr(int(value.value), elem)
    return FloatAttr(float(value.value), elem)  # type: ignore[arg-type]


def add_computes(
    op: ComputeOp, block: Block, tensors: dict[int, SSAValue], sizes: ExprEmitter
) -> None:
    """The te.compute ops of `op` (one per output) at the end of `block`."""
    for index, out in enumerate(op.outputs):
        compute = build_compute(op, tensors, sizes, index)
        compute.result.name_hint = sanitize(op.output_names[index])
        block.add_op(compute)
        tensors[id(out)] = compute.result


def scan_bodies(ops: Sequence[TeOperation]) -> set[int]:
    """The ops (by id) inside scans: their state placeholders, and the computes that read a
    state directly or through another such compute (TVM's scan body)."""
    inside: set[int] = set()
    for op in ops:
        if isinstance(op, ScanOp):
            inside.update(id(p.op) for p in op.state_placeholder)
    for op in ops:  # producers first, so one pass finds the chains
        if isinstance(op, ComputeOp) and any(id(t.op) in inside for t in op.input_tensors):
            inside.add(id(op))
    return inside


def build_scan(
    op: ScanOp, tensors: dict[int, SSAValue], sizes: ExprEmitter, in_scans: set[int]
) -> te.ScanOp:
    """The te.scan of `op`: its states are block arguments, its body stages built inside."""
    types = [tensor_type(t) for t in op.outputs]
    dynamic = [
        sizes.emit(d, IndexType()) for t in op.outputs for d in t.shape if not isinstance(d, int)
    ]
    inits = []
    for init in op.init:
        if id(init) not in tensors:
            raise ValueError(f"scan {op.name}: init {init.name} is not computed before it")
        inits.append(tensors[id(init)])
    scan = te.ScanOp(op.name, inits, types, dynamic)
    body = scan.body.block
    for state, arg in zip(op.state_placeholder, body.args, strict=True):
        arg.name_hint = sanitize(f"{op.name}.state")
        tensors[id(state)] = arg
    for inner in post_order_ops([u.op for u in op.update]):
        if id(inner) in in_scans and isinstance(inner, ComputeOp):
            add_computes(inner, body, tensors, sizes)
    missing = [u.name for u in op.update if id(u) not in tensors]
    if missing:
        raise TVMError(f"scan {op.name}: update {', '.join(missing)} does not read a state")
    body.add_op(te.YieldOp(*[tensors[id(u)] for u in op.update]))
    for out, result in zip(op.outputs, scan.outs, strict=True):
        result.name_hint = sanitize(out.name)
        tensors[id(out)] = result
    return scan


def schedule_to_module(s: Schedule, args: Sequence[Tensor | Var], name: str = "main") -> ModuleOp:
    """The te-dialect kernel `@name(inputs) -> outputs` of schedule `s`, schedule included.

    `args` lists the kernel's tensors as `tvm.lower` takes them: inputs (placeholders, and
    symbolic variables to pass as `index` arguments) and outputs, in any order (TVM's
    `[A, B, D, bias]`); the te kernel takes the inputs and returns the outputs, and records
    where each goes in the tir kernel's arguments when that is not inputs then outputs
    (`te.ARG_ORDER_ATTR`).
    """
    inputs = [t for t in args if isinstance(t, Var) or isinstance(t.op, PlaceholderOp)]
    outputs = [
        t for t in args if isinstance(t, Tensor) and isinstance(t.op, ComputeOp | ScanOp | ExternOp)
    ]
    canonical = [*inputs, *outputs]
    if len(canonical) != len(args) or len({id(t) for t in canonical}) != len(canonical):
        raise ValueError("list each placeholder, variable and computed output once")
    order = [next(k for k, c in enumerate(canonical) if c is t) for t in args]
    if not outputs:
        raise ValueError("the argument list has no computed output")
    input_types = [scalar_type(t) if isinstance(t, Var) else tensor_type(t) for t in inputs]
    block = Block(arg_types=input_types)
    tensors: dict[int, SSAValue] = {}
    variables: dict[int, SSAValue] = {}
    for t, arg in zip(inputs, block.args, strict=True):
        arg.name_hint = sanitize(t.name)
        (variables if isinstance(t, Var) else tensors)[id(t)] = arg
    for t, arg in zip(inputs, block.args, strict=True):  # shape variables from placeholders
        for dim, extent in enumerate(t.shape if isinstance(t, Tensor) else ()):
            if isinstance(extent, Var) and id(extent) not in variables:
                bound = te.DimOp(arg, dim)
                bound.result.name_hint = sanitize(extent.name)
                block.add_op(bound)
                variables[id(extent)] = bound.result
    sizes = ExprEmitter(block, variables, tensors)
    ops = scheduled_ops(s, outputs)
    in_scans = scan_bodies(ops)
    for op in ops:
        if id(op) in in_scans:
            continue  # a state, or a stage computed once per step inside its scan
        if isinstance(op, PlaceholderOp):
            if id(op.output(0)) not in tensors:
                raise ValueError(f"placeholder {op.name} is read but missing from the arguments")
            continue
        if isinstance(op, ScanOp):
            block.add_op(build_scan(op, tensors, sizes, in_scans))
            continue
        if isinstance(op, ExternOp):
            block.add_op(build_extern(op, tensors))
            continue
        assert isinstance(op, ComputeOp)
        computed = s.rewritten.get(id(op), op)
        add_computes(computed, block, tensors, sizes)
        for original, result in zip(op.outputs, computed.outputs, strict=True):
            tensors[id(original)] = tensors[id(result)]
    if s.primitives:
        block.add_op(te.ScheduleOp([schedule_op(p, tensors) for p in s.primitives]))
    block.add_op(func.ReturnOp(*[tensors[id(t)] for t in outputs]))
    function = func.FuncOp(name, (input_types, [tensor_type(t) for t in outputs]), Region(block))
    # What each symbolic dimension is, for the argument binder (checked at call time).
    arg_dims = [
        (sanitize(t.name) if isinstance(scalar_type(t), IndexType) else None)
        if isinstance(t, Var)
        else [dim_of_extent(d) for d in t.shape]
        for t in args
    ]
    if any(
        isinstance(d, str) or (d is not None and not all(isinstance(x, int) for x in d))
        for d in arg_dims
    ):
        function.attributes[ARG_DIMS_ATTR] = arg_dims_attr(arg_dims)
    if order != list(range(len(order))):
        function.attributes[te.ARG_ORDER_ATTR] = DenseArrayBase.from_list(i64, order)
    return ModuleOp([function])


def scheduled_ops(s: Schedule, outputs: Sequence[Tensor]) -> list[TeOperation]:
    """The operations the outputs depend on in schedule `s`, producers first: an operation
    `s` rewrote (`Schedule.rewritten`) depends on what its rewritten body reads."""

    def inputs(op: TeOperation) -> list[TeOperation]:
        computed = s.rewritten.get(id(op), op)
        return [tensor.op for tensor in computed.input_tensors]  # type: ignore[attr-defined]

    return traversal.post_order([t.op for t in outputs], inputs)


def scalar_type(v: Var) -> Attribute:
    """The kernel argument type of a variable: `index` for an integer (a size, an index),
    its own type for a float (`te.var("bias", dtype="float32")`)."""
    typ = element_type(v.dtype)
    return typ if isinstance(typ, AnyFloat) else IndexType()


def dim_of_extent(extent: object) -> Dim | None:
    """A tensor dimension for the argument binder: a size, a variable or an expression of
    them (None for anything else, which is not checked)."""
    if isinstance(extent, int):
        return extent
    if isinstance(extent, Const):
        return int(extent.value)
    if isinstance(extent, Var):
        return sanitize(extent.name)
    if isinstance(extent, Binary) and extent.op in BINARY_OPS:
        a, b = dim_of_extent(extent.a), dim_of_extent(extent.b)
        return None if a is None or b is None else [extent.op, a, b]
    return None


def schedule_op(primitive: Operation | CachePrimitive, tensors: dict[int, SSAValue]) -> Operation:
    """The IR op of a recorded primitive; a cache primitive defines its cache's tensor."""
    if not isinstance(primitive, CachePrimitive):
        return primitive.clone()
    source = tensors.get(id(primitive.source))
    if source is None:
        raise ValueError(f"{primitive.source.name} is cached but missing from the arguments")
    op = primitive.build(source)
    op.results[0].name_hint = sanitize(primitive.cache.name)
    tensors[id(primitive.cache)] = op.results[0]
    return op
