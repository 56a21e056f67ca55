"""From TVM's Python TE objects to IR: the te-dialect kernel a schedule describes
(`schedule_to_module`), and `tvm.lower`, which applies the schedule into tir.

Symbolic shapes: a dimension that is not an int is `?` in the tensor type. Each `te.var` is
bound as TVM binds it: an argument of the kernel if it is listed in the arguments
(`tvm.lower(s, [n, A, B])`), else the extent of the first placeholder argument that has it as
a dimension (`%n = te.dim %A, 0`). A compute's symbolic extents are computed from those values
at the top of the kernel and passed to its te.compute / te.reduce as size operands.
"""

from __future__ import annotations

from collections.abc import Generator, Sequence

from xdsl.dialects import arith, func, math, scf
from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    FloatAttr,
    IndexType,
    IntegerAttr,
    IntegerType,
    ModuleOp,
    TensorType,
    i1,
    i64,
)
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue

from xtvm.dialects import te
from xtvm.ir.errors import TVMError
from xtvm.ir.numpy_types import element_type, index_literal, is_unsigned, orders_unsigned
from xtvm.runtime.binding import ARG_DIMS_ATTR, BINARY_OPS, Dim, arg_dims_attr
from xtvm.te.expr import (
    Binary,
    Call,
    Cast,
    CommReducer,
    Compare,
    ComputeOp,
    Const,
    IterVar,
    PlaceholderOp,
    PrimExpr,
    Read,
    Reduce,
    ScanOp,
    Select,
    Tensor,
    Var,
    walk,
)
from xtvm.te.expr import Operation as TeOperation
from xtvm.te.schedule import CachePrimitive, Schedule, post_order_ops

FLOAT_BINARY = {"add": arith.AddfOp, "sub": arith.SubfOp, "mul": arith.MulfOp, "div": arith.DivfOp}
INT_BINARY = {
    "add": arith.AddiOp,
    "sub": arith.SubiOp,
    "mul": arith.MuliOp,
    "div": arith.DivSIOp,
    "and": arith.AndIOp,
    "or": arith.OrIOp,
    "xor": arith.XOrIOp,
    "shl": arith.ShLIOp,
    "shr": arith.ShRSIOp,
    "truncmod": arith.RemSIOp,
}
# Unsigned integers (`ui8`...) keep their type on values; the ops that depend on signedness
# take their unsigned variant. Floor division and modulo of unsigned values are the plain ones.
UNSIGNED_BINARY = {
    **INT_BINARY,
    "div": arith.DivUIOp,
    "floordiv": arith.DivUIOp,
    "floormod": arith.RemUIOp,
    "truncmod": arith.RemUIOp,
    "shr": arith.ShRUIOp,
}
FLOAT_CMP = {"lt": "olt", "le": "ole", "gt": "ogt", "ge": "oge", "eq": "oeq", "ne": "une"}
INT_CMP = {"lt": "slt", "le": "sle", "gt": "sgt", "ge": "sge", "eq": "eq", "ne": "ne"}
UNSIGNED_CMP = {"lt": "ult", "le": "ule", "gt": "ugt", "ge": "uge", "eq": "eq", "ne": "ne"}
MATH = {
    "exp": math.ExpOp,
    "log": math.LogOp,
    "sqrt": math.SqrtOp,
    "rsqrt": math.RsqrtOp,
    "tanh": math.TanhOp,
    "erf": math.ErfOp,
    "sin": math.SinOp,
    "cos": math.CosOp,
    "tan": math.TanOp,
    "atan": math.AtanOp,
    "floor": math.FloorOp,
    "ceil": math.CeilOp,
}


# Emitting one expression node: yields the (emitter, child) pairs whose values it needs, is
# sent each value, returns its own (ExprEmitter.drive runs these without recursion).
EmitSteps = Generator[tuple["ExprEmitter", PrimExpr], SSAValue, SSAValue]


def is_int(typ: Attribute) -> bool:
    return isinstance(typ, IntegerType | IndexType)


class ExprEmitter:
    """Emits scalar expressions as arith/math ops into one block.

    Integer expressions over axes are computed in `index`; a value is converted where its use
    needs another type (an int32 element, a float, an index of a read). Unsigned values keep
    their type (`ui8`); division, modulo, comparison, max/min and conversions from and to
    them take arith's unsigned ops (arith.constant cannot hold one: constants are `index`).
    """

    def __init__(self, block: Block, values: dict[int, SSAValue], tensors: dict[int, SSAValue]):
        self.block = block
        self.values = dict(values)  # IterVar or Var id -> index value
        self.tensors = tensors
        self.memo: dict[int, SSAValue] = {}

    def add(self, op: Operation) -> SSAValue:
        self.block.add_op(op)
        return op.results[0]

    def emit(self, expr: PrimExpr, want: Attribute | None = None) -> SSAValue:
        value = self.memo.get(id(expr))
        if value is None:
            value = self.drive(expr)
        return value if want is None else self.convert(value, want)

    def drive(self, expr: PrimExpr) -> SSAValue:
        """Emit `expr` and every node under it not yet emitted, children first.

        Each node's emission is a generator that yields the (emitter, child) pairs whose
        values it needs, in the order it needs them, and is sent each value; the generators
        wait on an explicit stack, so an expression of any depth (thousands of chained ops)
        needs no Python recursion and ops come out in the same order as a recursive walk."""
        pending = [(self, expr, self.natural(expr))]
        value: SSAValue | None = None
        while pending:
            emitter, node, steps = pending[-1]
            try:
                child_emitter, child = steps.send(value)  # type: ignore[arg-type]
            except StopIteration as done:
                pending.pop()
                value = emitter.memo[id(node)] = done.value
                continue
            value = child_emitter.memo.get(id(child))
            if value is None:
                pending.append((child_emitter, child, child_emitter.natural(child)))
        assert value is not None
        return value

    def natural(self, expr: PrimExpr) -> EmitSteps:
        """The value of `expr` in its natural type (see `drive` for the protocol)."""
        if isinstance(expr, IterVar):
            value = self.values.get(id(expr))
            if value is None:
                raise ValueError(f"axis {expr.name} is used outside the computation it belongs to")
            return value
        if isinstance(expr, Const):
            typ = element_type(expr.dtype)
            if isinstance(typ, IntegerType) and typ != i1:
                literal = index_literal(int(expr.value))
                return self.add(arith.ConstantOp(IntegerAttr(literal, IndexType())))
            if typ == i1:
                return self.add(arith.ConstantOp(IntegerAttr(int(bool(expr.value)), i1)))
            return self.add(arith.ConstantOp(FloatAttr(float(expr.value), typ)))  # type: ignore[arg-type]
        if isinstance(expr, Var):
            value = self.values.get(id(expr))
            if value is None:
                raise ValueError(
                    f"symbolic variable {expr.name} is not bound: make it a dimension of a "
                    "placeholder argument or list it in the arguments"
                )
            return value
        if isinstance(expr, Read):
            tensor = self.tensors.get(id(expr.tensor))
            if tensor is None:
                raise ValueError(f"tensor {expr.tensor.name} is not an input of this kernel")
            indices = []
            for index in expr.indices:
                indices.append(self.convert((yield self, index), IndexType()))
            return self.add(te.ReadOp(tensor, indices))
        if isinstance(expr, Binary):
            return (yield from self.binary(expr))
        if isinstance(expr, Compare):
            a = yield self, expr.a
            b = yield self, expr.b
            a, b = self.unify(a, b)
            if is_int(a.type):
                predicates = UNSIGNED_CMP if orders_unsigned(a.type) else INT_CMP
                return self.add(arith.CmpiOp(a, b, predicates[expr.op]))
            return self.add(arith.CmpfOp(a, b, FLOAT_CMP[expr.op]))
        if isinstance(expr, Select):
            return (yield from self.select(expr))
        if isinstance(expr, Cast):
            return self.convert((yield self, expr.value), element_type(expr.dtype))
        if isinstance(expr, Call):
            return (yield from self.call(expr))
        if isinstance(expr, Reduce):
            raise ValueError("a reduction must be the whole body of a compute")
        raise TypeError(f"cannot lower {type(expr).__name__}")

    def select(self, expr: Select) -> EmitSteps:
        """`arith.select`, or an `scf.if` when a branch reads a tensor: as in TVM, only the
        taken branch is evaluated, so a padding condition keeps reads inside the tensor."""
        cond = self.convert((yield self, expr.condition), i1)
        branches = (expr.true_value, expr.false_value)
        if not any(isinstance(n, Read) for b in branches for n in walk(b)):
            t = yield self, expr.true_value
            f = yield self, expr.false_value
            t, f = self.unify(t, f)
            return self.add(arith.SelectOp(cond, t, f))
        emitters = [ExprEmitter(Block(), self.values, self.tensors) for _ in branches]
        results = []
        for emitter, branch in zip(emitters, branches, strict=True):
            emitter.memo = dict(self.memo)  # values outside the scf.if dominate both branches
            results.append((yield emitter, branch))
        t, f = results
        if t.type != f.type:
            if isinstance(t.type, IndexType):
                t = emitters[0].convert(t, f.type)
            else:
                f = emitters[1].convert(f, t.type)
        for emitter, value in zip(emitters, (t, f), strict=True):
            emitter.block.add_op(scf.YieldOp(value))
        blocks = [Region(e.block) for e in emitters]
        return self.add(scf.IfOp(cond, [t.type], blocks[0], blocks[1]))

    def unify(self, a: SSAValue, b: SSAValue) -> tuple[SSAValue, SSAValue]:
        """Two operands in one type: an index meets a fixed-width integer as that integer."""
        if a.type == b.type:
            return a, b
        if isinstance(a.type, IndexType):
            return self.convert(a, b.type), b
        if isinstance(b.type, IndexType):
            return a, self.convert(b, a.type)
        raise TypeError(f"operand types differ: {a.type} and {b.type}")

    def binary(self, expr: Binary) -> EmitSteps:
        a = yield self, expr.a
        b = yield self, expr.b
        a, b = self.unify(a, b)
        if is_unsigned(a.type):
            return self.add(UNSIGNED_BINARY[expr.op](a, b))
        if is_int(a.type):
            if expr.op in INT_BINARY:
                return self.add(INT_BINARY[expr.op](a, b))
            quotient = self.add(arith.FloorDivSIOp(a, b))
            if expr.op == "floordiv":
                return quotient
            return self.add(arith.SubiOp(a, self.add(arith.MuliOp(quotient, b))))  # floormod
        if expr.op in FLOAT_BINARY:
            return self.add(FLOAT_BINARY[expr.op](a, b))
        if expr.op not in ("floordiv", "floormod", "truncmod"):
            raise TypeError(f"'{expr.op}' needs integer operands, got {a.type}")
        rounding = math.TruncOp if expr.op == "truncmod" else math.FloorOp  # fmod truncates
        quotient = self.add(rounding(self.add(arith.DivfOp(a, b))))
        if expr.op == "floordiv":
            return quotient
        return self.add(arith.SubfOp(a, self.add(arith.MulfOp(quotient, b))))

    def call(self, expr: Call) -> EmitSteps:
        args = []
        for arg in expr.args:
            args.append((yield self, arg))
        x = args[0]
        if expr.name in ("max", "min"):
            a, b = self.unify(x, args[1])
            if orders_unsigned(a.type):
                return self.add((arith.MaxUIOp if expr.name == "max" else arith.MinUIOp)(a, b))
            if is_int(a.type):
                return self.add((arith.MaxSIOp if expr.name == "max" else arith.MinSIOp)(a, b))
            return self.add((arith.MaximumfOp if expr.name == "max" else arith.MinimumfOp)(a, b))
        if expr.name == "popcount":
            return self.popcount(self.convert(x, element_type(expr.dtype)))
        if expr.name == "abs" and is_unsigned(x.type):
            return x
        if expr.name == "abs":
            return self.add(math.AbsIOp(x) if is_int(x.type) else math.AbsFOp(x))
        if is_int(x.type):
            raise TypeError(f"te.{expr.name} needs a float argument, got {x.type}")
        if expr.name == "power":
            return self.add(math.PowFOp(x, self.convert(args[1], x.type)))
        if expr.name == "sigmoid":
            one = self.add(arith.ConstantOp(FloatAttr(1.0, x.type)))  # type: ignore[arg-type]
            e = self.add(math.ExpOp(self.add(arith.NegfOp(x))))
            return self.add(arith.DivfOp(one, self.add(arith.AddfOp(one, e))))
        return self.add(MATH[expr.name](x))

    def popcount(self, x: SSAValue) -> SSAValue:
        """The set bits of integer `x`, summed bit by bit (LLVM recognises the idiom)."""
        typ = x.type
        assert isinstance(typ, IntegerType)
        one = self.add(arith.ConstantOp(IntegerAttr(1, typ)))
        count = self.add(arith.AndIOp(x, one))
        for bit in range(1, typ.width.data):
            shift = self.add(arith.ConstantOp(IntegerAttr(bit, typ)))
            shifted = self.add(arith.ShRUIOp(x, shift))
            count = self.add(arith.AddiOp(count, self.add(arith.AndIOp(shifted, one))))
        return count

    def convert(self, value: SSAValue, want: Attribute) -> SSAValue:
        """`value` as type `want` (numeric conversions of C: unsigned sources zero-extend and
        convert to float as unsigned, unsigned targets take floats as unsigned)."""
        have = value.type
        if have == want:
            return value
        if isinstance(have, IndexType):
            if isinstance(want, IntegerType):
                return self.add(arith.IndexCastOp(value, want))
            value, have = self.add(arith.IndexCastOp(value, i64)), i64
        if isinstance(want, IndexType):
            if not isinstance(have, IntegerType):
                value = self.add(arith.FPToSIOp(value, i64))
            elif is_unsigned(have) and have.width.data < 64:
                value = self.add(arith.ExtUIOp(value, i64))  # index_cast sign-extends
            return self.add(arith.IndexCastOp(value, IndexType()))
        zero_extends = have == i1 or is_unsigned(have)
        if isinstance(have, IntegerType) and isinstance(want, IntegerType):
            if have.width.data < want.width.data:
                return self.add((arith.ExtUIOp if zero_extends else arith.ExtSIOp)(value, want))
            if have.width.data == want.width.data:
                return self.add(arith.BitcastOp(value, want))  # int32 <-> uint32
            return self.add(arith.TruncIOp(value, want))
        if isinstance(have, IntegerType):
            return self.add((arith.UIToFPOp if zero_extends else arith.SIToFPOp)(value, want))
        if isinstance(want, IntegerType):
            return self.add((arith.FPToUIOp if is_unsigned(want) else arith.FPToSIOp)(value, want))
        widen = have.bitwidth < want.bitwidth  # type: ignore[attr-defined]
        return self.add((arith.ExtFOp if widen else arith.TruncFOp)(value, want))


def tensor_type(t: Tensor) -> TensorType:
    shape = [d if isinstance(d, int) else DYNAMIC_INDEX for d in t.shape]
    return TensorType(element_type(t.dtype), shape)


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
        reduce = te.ReduceOp(
            body.combiner if custom is None else custom.name,
            [e if isinstance(e, int) else te.DYNAMIC_EXTENT for e in extents],
            names,
            elem,
            sizes=[sizes.emit(e, IndexType()) for e in extents if not isinstance(e, int)],
            **({} if custom is None else reducer_parts(custom, out.dtype, elem, axes, tensors)),
        )
        inner_block = reduce.body.block
        inner_axes = dict(axes)
        for a, arg in zip(body.axes, inner_block.args, strict=True):
            inner_axes[id(a)] = arg
            arg.name_hint = sanitize(a.name)
        inner = ExprEmitter(inner_block, inner_axes, tensors)
        inner_block.add_op(te.YieldOp(inner.emit(body.source, elem)))
        block.add_op(reduce)
        block.add_op(te.YieldOp(reduce.result))
    else:
        block.add_op(te.YieldOp(emitter.emit(body, elem)))
    return compute


def reducer_parts(
    reducer: CommReducer,
    dtype: str,
    elem: Attribute,
    values: dict[int, SSAValue],
    tensors: dict[int, SSAValue],
) -> dict[str, Region | FloatAttr | IntegerAttr]:
    """The `combine` region and `identity` of a custom reducer's te.reduce: its combining
    function applied to variables standing for the block arguments, emitted; its identity,
    which must be a constant."""
    lhs, rhs = Var("lhs", dtype), Var("rhs", dtype)
    block = Block(arg_types=[elem, elem])
    bound = dict(values)
    bound.update({id(lhs): block.args[0], id(rhs): block.args[1]})
    emitter = ExprEmitter(block, bound, tensors)
    block.add_op(te.YieldOp(emitter.emit(reducer.combine(lhs, rhs), elem)))
    value = reducer.identity(dtype)
    if not isinstance(value, Const):
        raise NotImplementedError(
            f"te.comm_reducer '{reducer.name}': the identity must be a constant "
            f"(tvm.tir.const), got {type(value).__name__}"
        )
    identity = (
        IntegerAttr(int(value.value), elem)
        if isinstance(elem, IntegerType)
        else FloatAttr(float(value.value), elem)  # type: ignore[arg-type]
    )
    return {"combine": Region(block), "identity": identity}


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


def sanitize(name: str) -> str:
    cleaned = "".join(c if c.isalnum() or c in "_$.-" else "_" for c in name)
    return cleaned if cleaned and not cleaned[0].isdigit() else f"v{cleaned}"


def schedule_to_module(s: Schedule, args: Sequence[Tensor | Var], name: str = "main") -> ModuleOp:
    """The te-dialect kernel `@name(inputs) -> outputs` of schedule `s`, schedule included.

    `args` lists the kernel's tensors as `tvm.lower` takes them: inputs (placeholders, and
    symbolic variables to pass as `index` arguments) first, then outputs.
    """
    inputs = [t for t in args if isinstance(t, Var) or isinstance(t.op, PlaceholderOp)]
    outputs = [t for t in args if isinstance(t, Tensor) and isinstance(t.op, ComputeOp | ScanOp)]
    if list(args) != inputs + outputs:
        raise ValueError("list the placeholders first, then the computed outputs")
    if not outputs:
        raise ValueError("the argument list has no computed output")
    input_types = [IndexType() if isinstance(t, Var) else tensor_type(t) for t in inputs]
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
    ops = post_order_ops([t.op for t in outputs])
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
        assert isinstance(op, ComputeOp)
        add_computes(op, block, tensors, sizes)
    if s.primitives:
        block.add_op(te.ScheduleOp([schedule_op(p, tensors) for p in s.primitives]))
    block.add_op(func.ReturnOp(*[tensors[id(t)] for t in outputs]))
    function = func.FuncOp(name, (input_types, [tensor_type(t) for t in outputs]), Region(block))
    # What each symbolic dimension is, for the argument binder (checked at call time).
    arg_dims = [
        sanitize(t.name) if isinstance(t, Var) else [dim_of_extent(d) for d in t.shape]
        for t in [*inputs, *outputs]
    ]
    if any(isinstance(d, str) or not all(isinstance(x, int) for x in d) for d in arg_dims):
        function.attributes[ARG_DIMS_ATTR] = arg_dims_attr(arg_dims)
    return ModuleOp([function])


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
