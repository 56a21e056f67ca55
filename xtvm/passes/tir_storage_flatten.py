"""`tir-storage-flatten`: multi-dimensional buffers become 1-d, as a backend addresses them.

TVM's StorageFlatten: every statically shaped memref of rank other than 1 becomes a 1-d memref
of as many elements (same element type and memory space), and each access computes its
row-major linear index `sum(index_k * stride_k)`. Function signatures, `memref.alloc`/`alloca`
and everything that only passes a buffer along (`func.call`, `func.return`, `memref.dealloc`,
`memref.copy`, `tir.call_extern`, `tir.launch`) follow the new type; `memref.dim` of a flattened
buffer becomes its original extent. A buffer of dynamic shape or with a layout, or one used by
an op the pass does not know (a subview, a reshape), is a located error: its linear index
cannot be written.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from xdsl.context import Context
from xdsl.dialects import arith, func, memref, vector
from xdsl.dialects.builtin import FunctionType, MemRefType, ModuleOp, NoneAttr
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter
from xdsl.transforms.common_subexpression_elimination import cse

from xtvm.dialects import tir
from xtvm.ir.verify import located_error, refuse_multiple_blocks
from xtvm.passes.tir_bounds import EntryConstants, constant_value

ACCESSES = (memref.LoadOp, memref.StoreOp, vector.LoadOp, vector.StoreOp)
# Ops that only pass a buffer along: its new type is all they need.
PASS_ALONG = (
    memref.AllocOp,
    memref.AllocaOp,
    memref.DeallocOp,
    memref.CopyOp,
    func.CallOp,
    func.ReturnOp,
    tir.CallExternOp,
    tir.LaunchOp,
)


def needs_flattening(typ: Attribute) -> bool:
    return isinstance(typ, MemRefType) and typ.get_num_dims() != 1


def flat_type(typ: MemRefType, where: Operation) -> MemRefType:
    """The 1-d memref holding `typ`'s elements in row-major order."""
    if not typ.has_static_shape():
        raise located_error(where, f"cannot flatten buffer of dynamic shape {typ}")
    if not isinstance(typ.layout, NoneAttr):
        raise located_error(where, f"cannot flatten buffer with a layout {typ}")
    size = 1
    for extent in typ.get_shape():
        size *= extent
    return MemRefType(typ.element_type, [size], memory_space=typ.memory_space)


def strides(shape: Sequence[int]) -> list[int]:
    """Row-major strides of `shape`, in elements."""
    result = [1] * len(shape)
    for k in range(len(shape) - 2, -1, -1):
        result[k] = result[k + 1] * shape[k + 1]
    return result


@dataclass
class Flattener:
    """Flattens the buffers of one function; index constants are shared at its entry."""

    function: func.FuncOp
    constant: EntryConstants = field(init=False)

    def __post_init__(self) -> None:
        self.constant = EntryConstants(self.function)

    def linear_index(
        self, op: Operation, buffer: SSAValue, indices: Sequence[SSAValue]
    ) -> SSAValue:
        """The row-major linear index of `indices` into `buffer`, computed just before `op`."""
        typ = buffer.type
        assert isinstance(typ, MemRefType)
        offset, terms = 0, []
        for index, stride in zip(indices, strides(typ.get_shape()), strict=True):
            if (c := constant_value(index)) is not None:
                offset += c * stride
            else:
                terms.append((index, stride))
        value: SSAValue | None = None
        for index, stride in terms:
            term = index
            if stride != 1:
                term = self.insert(arith.MuliOp(index, self.constant(stride)), op)
            value = term if value is None else self.insert(arith.AddiOp(value, term), op)
        if value is None:
            return self.constant(offset)
        if offset:
            value = self.insert(arith.AddiOp(value, self.constant(offset)), op)
        return value

    @staticmethod
    def insert(new: Operation, before: Operation) -> SSAValue:
        Rewriter.insert_op(new, InsertPoint.before(before))
        return new.results[0]

    def access(self, op: Operation) -> None:
        """Rewrite a load or store of a multi-dimensional buffer to use one linear index."""
        assert isinstance(op, ACCESSES)
        buffer = op.memref if isinstance(op, memref.LoadOp | memref.StoreOp) else op.base
        if not needs_flattening(buffer.type):
            return
        flat_type(buffer.type, op)  # type: ignore[arg-type]  # rejects what cannot be flattened
        index = self.linear_index(op, buffer, op.indices)
        if isinstance(op, memref.LoadOp):
            new: Operation = memref.LoadOp.get(buffer, [index])
        elif isinstance(op, memref.StoreOp):
            new = memref.StoreOp.get(op.value, buffer, [index])
        elif isinstance(op, vector.LoadOp):
            new = vector.LoadOp(buffer, [index], op.result.type)  # type: ignore[arg-type]
        else:
            new = vector.StoreOp(op.vector, buffer, [index])
        new.attributes.update(op.attributes)
        Rewriter.replace_op(op, new)

    def dim(self, op: memref.DimOp) -> None:
        """`memref.dim` of a buffer about to be flattened: its original, static extent."""
        typ = op.source.type
        if not needs_flattening(typ):
            return
        axis = constant_value(op.index)
        if axis is None:
            raise located_error(op, "memref.dim of a flattened buffer needs a constant axis")
        assert isinstance(typ, MemRefType)
        Rewriter.replace_op(op, [], [self.constant(typ.get_shape()[axis])])

    def run(self) -> None:
        function = self.function
        for op in list(function.walk()):
            if isinstance(op, ACCESSES):
                self.access(op)
            elif isinstance(op, memref.DimOp):
                self.dim(op)
        for arg in function.body.block.args:
            retype(arg, function)
        for op in function.walk():
            for result in op.results:
                retype(result, op)
        flatten_declaration(function)
        cse(function)  # accesses at the same indices share their linear index


def check_uses(value: SSAValue) -> None:
    for use in value.uses:
        user = use.operation
        if not isinstance(user, ACCESSES + PASS_ALONG):
            raise located_error(
                user, f"'{user.name}' op uses a buffer tir-storage-flatten cannot flatten"
            )


def retype(value: SSAValue, where: Operation) -> None:
    if needs_flattening(value.type):
        check_uses(value)
        Rewriter.replace_value_with_new_type(value, flat_type(value.type, where))  # type: ignore[arg-type]


def flatten_declaration(function: func.FuncOp) -> None:
    """Flatten the buffer types of `function`'s signature."""
    kind = function.function_type
    inputs = [flat_type(t, function) if needs_flattening(t) else t for t in kind.inputs]
    outputs = [flat_type(t, function) if needs_flattening(t) else t for t in kind.outputs]
    function.function_type = FunctionType.from_lists(inputs, outputs)


@dataclass(frozen=True)
class TirStorageFlattenPass(ModulePass):
    """Flatten multi-dimensional buffers to 1-d with row-major linear indices.

    `memref.load %A[%i, %j] : memref<4x8xf32>` becomes `%k = %i * 8 + %j` and
    `memref.load %A[%k] : memref<32xf32>`; `%A`'s argument type becomes `memref<32xf32>`.
    """

    name = "tir-storage-flatten"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        refuse_multiple_blocks(op, f"'{self.name}'")
        for function in [f for f in op.walk() if isinstance(f, func.FuncOp)]:
            if function.body.blocks:
                Flattener(function).run()
            else:
                flatten_declaration(function)
