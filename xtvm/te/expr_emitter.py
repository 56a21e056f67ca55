"""Emitting TVM's Python TE expressions as IR: arith/math ops at the end of a block, each
variable and tensor read bound to a value of the block (`ExprEmitter`), and the names and
tensor types TE objects get in the te dialect."""

from __future__ import annotations

from collections.abc import Generator

from xdsl.dialects import arith, math, scf, vector
from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    DenseIntOrFPElementsAttr,
    FloatAttr,
    IndexType,
    IntegerAttr,
    IntegerType,
    TensorType,
    VectorType,
    i1,
    i64,
)
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue

from xtvm.dialects import te
from xtvm.ir.numpy_types import element_type, index_literal, is_unsigned, orders_unsigned
from xtvm.te.expr import (
    Binary,
    Broadcast,
    Call,
    Cast,
    ClampedSelect,
    Compare,
    Const,
    IterVar,
    PrimExpr,
    Ramp,
    Read,
    Reduce,
    Reinterpret,
    Select,
    Tensor,
    Var,
    split_dtype,
    walk,
)

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
    "round": math.RoundEvenOp,
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
        if isinstance(expr, Reinterpret):
            return self.add(arith.BitcastOp((yield self, expr.value), element_type(expr.dtype)))
        if isinstance(expr, Call):
            return (yield from self.call(expr))
        if isinstance(expr, Broadcast):
            scalar = self.convert((yield self, expr.value), element_type(expr.value.dtype))
            return self.add(vector.BroadcastOp(scalar, value_type(expr.dtype)))
        if isinstance(expr, Ramp):
            return (yield from self.ramp(expr))
        if isinstance(expr, Reduce):
            raise ValueError("a reduction must be the whole body of a compute")
        raise TypeError(f"cannot lower {type(expr).__name__}")

    def select(self, expr: Select) -> EmitSteps:
        """`arith.select`, or an `scf.if` when a branch reads a tensor: as in TVM, only the
        taken branch is evaluated, so a padding condition keeps reads inside the tensor."""
        cond = self.convert((yield self, expr.condition), i1)
        branches = (expr.true_value, expr.false_value)
        reads = any(isinstance(n, Read) for b in branches for n in walk(b))
        if isinstance(expr, ClampedSelect) or not reads:
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

    def ramp(self, expr: Ramp) -> EmitSteps:
        """`base + [0, 1, ..., lanes - 1] * stride`, lane by lane."""
        typ = value_type(expr.dtype)
        assert isinstance(typ, VectorType)
        elem = typ.element_type
        base = self.convert((yield self, expr.base), elem)
        stride = self.convert((yield self, expr.stride), elem)
        steps = self.add(
            arith.ConstantOp(DenseIntOrFPElementsAttr.from_list(typ, list(range(expr.lanes))))
        )
        scaled = self.add(arith.MuliOp(steps, self.add(vector.BroadcastOp(stride, typ))))
        return self.add(arith.AddiOp(self.add(vector.BroadcastOp(base, typ)), scaled))

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


def value_type(dtype: str) -> Attribute:
    """The type of a value of `dtype`: its element type, or a vector of `float32x4`'s."""
    base, lanes = split_dtype(dtype)
    elem = element_type(base)
    return elem if lanes == 1 else VectorType(elem, [lanes])


def tensor_type(t: Tensor) -> TensorType:
    shape = [d if isinstance(d, int) else DYNAMIC_INDEX for d in t.shape]
    return TensorType(element_type(t.dtype), shape)


def sanitize(name: str) -> str:
    cleaned = "".join(c if c.isalnum() or c in "_$.-" else "_" for c in name)
    return cleaned if cleaned and not cleaned[0].isdigit() else f"v{cleaned}"
