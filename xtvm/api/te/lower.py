"""From TVM's Python TE objects to IR: the te-dialect kernel a schedule describes
(`schedule_to_module`), and `tvm.lower`, which applies the schedule into tir."""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects import arith, func, math
from xdsl.dialects.builtin import (
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

from xtvm.api.ir_module import IRModule, api_context
from xtvm.api.te.expr import (
    Binary,
    Call,
    Cast,
    Compare,
    ComputeOp,
    Const,
    IterVar,
    PlaceholderOp,
    PrimExpr,
    Read,
    Reduce,
    Select,
    Tensor,
    Var,
)
from xtvm.api.te.schedule import Schedule, post_order_ops
from xtvm.dialects import te
from xtvm.ir.numpy_types import element_type
from xtvm.ir.verify import verify_diagnostics

FLOAT_BINARY = {"add": arith.AddfOp, "sub": arith.SubfOp, "mul": arith.MulfOp, "div": arith.DivfOp}
INT_BINARY = {"add": arith.AddiOp, "sub": arith.SubiOp, "mul": arith.MuliOp, "div": arith.DivSIOp}
FLOAT_CMP = {"lt": "olt", "le": "ole", "gt": "ogt", "ge": "oge", "eq": "oeq"}
INT_CMP = {"lt": "slt", "le": "sle", "gt": "sgt", "ge": "sge", "eq": "eq"}
MATH = {
    "exp": math.ExpOp,
    "log": math.LogOp,
    "sqrt": math.SqrtOp,
    "rsqrt": math.RsqrtOp,
    "tanh": math.TanhOp,
    "erf": math.ErfOp,
    "floor": math.FloorOp,
    "ceil": math.CeilOp,
}


def is_int(typ: Attribute) -> bool:
    return isinstance(typ, IntegerType | IndexType)


class ExprEmitter:
    """Emits scalar expressions as arith/math ops into one block.

    Integer expressions over axes are computed in `index`; a value is converted where its use
    needs another type (an int32 element, a float, an index of a read).
    """

    def __init__(self, block: Block, values: dict[int, SSAValue], tensors: dict[int, SSAValue]):
        self.block = block
        self.values = dict(values)  # IterVar id -> index value
        self.tensors = tensors
        self.memo: dict[int, SSAValue] = {}

    def add(self, op: Operation) -> SSAValue:
        self.block.add_op(op)
        return op.results[0]

    def emit(self, expr: PrimExpr, want: Attribute | None = None) -> SSAValue:
        value = self.memo.get(id(expr))
        if value is None:
            value = self.natural(expr)
            self.memo[id(expr)] = value
        return value if want is None else self.convert(value, want)

    def natural(self, expr: PrimExpr) -> SSAValue:
        if isinstance(expr, IterVar):
            value = self.values.get(id(expr))
            if value is None:
                raise ValueError(f"axis {expr.name} is used outside the computation it belongs to")
            return value
        if isinstance(expr, Const):
            typ = element_type(expr.dtype)
            if isinstance(typ, IntegerType) and typ != i1:
                return self.add(arith.ConstantOp(IntegerAttr(int(expr.value), IndexType())))
            if typ == i1:
                return self.add(arith.ConstantOp(IntegerAttr(int(bool(expr.value)), i1)))
            return self.add(arith.ConstantOp(FloatAttr(float(expr.value), typ)))  # type: ignore[arg-type]
        if isinstance(expr, Var):
            raise NotImplementedError(
                f"scalar variable {expr.name}: symbolic values are not supported yet"
            )
        if isinstance(expr, Read):
            tensor = self.tensors.get(id(expr.tensor))
            if tensor is None:
                raise ValueError(f"tensor {expr.tensor.name} is not an input of this kernel")
            indices = [self.emit(i, IndexType()) for i in expr.indices]
            return self.add(te.ReadOp(tensor, indices))
        if isinstance(expr, Binary):
            return self.binary(expr)
        if isinstance(expr, Compare):
            a, b = self.unify(self.emit(expr.a), self.emit(expr.b))
            if is_int(a.type):
                return self.add(arith.CmpiOp(a, b, INT_CMP[expr.op]))
            return self.add(arith.CmpfOp(a, b, FLOAT_CMP[expr.op]))
        if isinstance(expr, Select):
            cond = self.emit(expr.condition, i1)
            t, f = self.unify(self.emit(expr.true_value), self.emit(expr.false_value))
            return self.add(arith.SelectOp(cond, t, f))
        if isinstance(expr, Cast):
            return self.convert(self.emit(expr.value), element_type(expr.dtype))
        if isinstance(expr, Call):
            return self.call(expr)
        if isinstance(expr, Reduce):
            raise ValueError("a reduction must be the whole body of a compute")
        raise TypeError(f"cannot lower {type(expr).__name__}")

    def unify(self, a: SSAValue, b: SSAValue) -> tuple[SSAValue, SSAValue]:
        """Two operands in one type: an index meets a fixed-width integer as that integer."""
        if a.type == b.type:
            return a, b
        if isinstance(a.type, IndexType):
            return self.convert(a, b.type), b
        if isinstance(b.type, IndexType):
            return a, self.convert(b, a.type)
        raise TypeError(f"operand types differ: {a.type} and {b.type}")

    def binary(self, expr: Binary) -> SSAValue:
        a, b = self.unify(self.emit(expr.a), self.emit(expr.b))
        if is_int(a.type):
            if expr.op in INT_BINARY:
                return self.add(INT_BINARY[expr.op](a, b))
            quotient = self.add(arith.FloorDivSIOp(a, b))
            if expr.op == "floordiv":
                return quotient
            return self.add(arith.SubiOp(a, self.add(arith.MuliOp(quotient, b))))  # floormod
        if expr.op in FLOAT_BINARY:
            return self.add(FLOAT_BINARY[expr.op](a, b))
        quotient = self.add(math.FloorOp(self.add(arith.DivfOp(a, b))))
        if expr.op == "floordiv":
            return quotient
        return self.add(arith.SubfOp(a, self.add(arith.MulfOp(quotient, b))))

    def call(self, expr: Call) -> SSAValue:
        args = [self.emit(a) for a in expr.args]
        x = args[0]
        if expr.name in ("max", "min"):
            a, b = self.unify(x, args[1])
            if is_int(a.type):
                return self.add((arith.MaxSIOp if expr.name == "max" else arith.MinSIOp)(a, b))
            return self.add((arith.MaximumfOp if expr.name == "max" else arith.MinimumfOp)(a, b))
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

    def convert(self, value: SSAValue, want: Attribute) -> SSAValue:
        """`value` as type `want` (numeric conversions of C)."""
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
            return self.add(arith.IndexCastOp(value, IndexType()))
        if isinstance(have, IntegerType) and isinstance(want, IntegerType):
            if have.width.data < want.width.data:
                op = arith.ExtUIOp if have == i1 else arith.ExtSIOp
                return self.add(op(value, want))
            return self.add(arith.TruncIOp(value, want))
        if isinstance(have, IntegerType):
            return self.add((arith.UIToFPOp if have == i1 else arith.SIToFPOp)(value, want))
        if isinstance(want, IntegerType):
            return self.add(arith.FPToSIOp(value, want))
        widen = have.bitwidth < want.bitwidth  # type: ignore[attr-defined]
        return self.add((arith.ExtFOp if widen else arith.TruncFOp)(value, want))


def tensor_type(t: Tensor) -> TensorType:
    return TensorType(element_type(t.dtype), t.shape)


def build_compute(op: ComputeOp, tensors: dict[int, SSAValue]) -> te.ComputeOp:
    """The te.compute of a Python compute operation."""
    out = op.output(0)
    compute = te.ComputeOp(op.name, tensor_type(out), [a.name for a in op.axis], tag=op.tag or None)
    block = compute.body.block
    axes = {id(a): arg for a, arg in zip(op.axis, block.args, strict=True)}
    for a, arg in zip(op.axis, block.args, strict=True):
        arg.name_hint = sanitize(a.name)
    elem = element_type(out.dtype)
    emitter = ExprEmitter(block, axes, tensors)
    body = op.body
    if isinstance(body, Reduce):
        names = [a.name for a in body.axes]
        reduce = te.ReduceOp(body.combiner, [a.dom.extent for a in body.axes], names, elem)
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


def sanitize(name: str) -> str:
    cleaned = "".join(c if c.isalnum() or c in "_$.-" else "_" for c in name)
    return cleaned if cleaned and not cleaned[0].isdigit() else f"v{cleaned}"


def schedule_to_module(s: Schedule, args: Sequence[Tensor], name: str = "main") -> ModuleOp:
    """The te-dialect kernel `@name(inputs) -> outputs` of schedule `s`, schedule included.

    `args` lists the kernel's tensors as `tvm.lower` takes them: inputs (placeholders) first,
    then outputs.
    """
    inputs = [t for t in args if isinstance(t.op, PlaceholderOp)]
    outputs = [t for t in args if isinstance(t.op, ComputeOp)]
    if list(args) != inputs + outputs:
        raise ValueError("list the placeholders first, then the computed outputs")
    if not outputs:
        raise ValueError("the argument list has no computed output")
    block = Block(arg_types=[tensor_type(t) for t in inputs])
    tensors: dict[int, SSAValue] = {}
    for t, arg in zip(inputs, block.args, strict=True):
        arg.name_hint = sanitize(t.name)
        tensors[id(t)] = arg
    for op in post_order_ops([t.op for t in outputs]):
        out = op.output(0)
        if isinstance(op, PlaceholderOp):
            if id(out) not in tensors:
                raise ValueError(f"placeholder {op.name} is read but missing from the arguments")
            continue
        assert isinstance(op, ComputeOp)
        compute = build_compute(op, tensors)
        compute.result.name_hint = sanitize(op.name)
        block.add_op(compute)
        tensors[id(out)] = compute.result
    if s.primitives:
        block.add_op(te.ScheduleOp([p.clone() for p in s.primitives]))
    block.add_op(func.ReturnOp(*[tensors[id(t)] for t in outputs]))
    function = func.FuncOp(
        name,
        ([tensor_type(t) for t in inputs], [tensor_type(t) for t in outputs]),
        Region(block),
    )
    return ModuleOp([function])


def lower(
    s: Schedule,
    args: Sequence[Tensor],
    name: str = "main",
    binds: object = None,
    simple_mode: bool = False,
) -> IRModule:
    """The tir kernel of schedule `s`: `tvm.lower(s, [A, B, C], simple_mode=True)`.

    Printing the result shows the loop nest; buffers are the arguments in order.
    """
    from xtvm.passes.convert_te_to_tir import ConvertTeToTirPass

    if binds:
        raise ValueError("lower: binds are not supported")
    module = schedule_to_module(s, args, name)
    ConvertTeToTirPass().apply(api_context().xdsl_context, module)
    diagnostics = verify_diagnostics(module, {})
    if diagnostics:
        raise RuntimeError("lowering produced invalid IR:\n" + "\n".join(map(str, diagnostics)))
    return IRModule(module)
