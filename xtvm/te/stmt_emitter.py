"""Emitting the statements of a tensor intrinsic's lowering or a `te.extern` stage as tir:
extern and packed calls, loads and stores of the buffers, each bound to a memref view."""

from __future__ import annotations

from collections.abc import Mapping

from xdsl.dialects import memref
from xdsl.dialects.builtin import MemRefType, StridedLayoutAttr, StringAttr
from xdsl.ir import Block, SSAValue

from xtvm.dialects import tir
from xtvm.ir.numpy_types import element_type
from xtvm.runtime.packed_call import HANDLE
from xtvm.te.expr import PrimExpr, Var
from xtvm.te.expr_emitter import EmitSteps, ExprEmitter
from xtvm.te.intrinsic_registry import TensorizeError
from xtvm.te.stmt import (
    AccessPtr,
    Buffer,
    BufferLoad,
    BufferStore,
    CallExtern,
    Evaluate,
    SeqStmt,
    Stmt,
)


class StmtEmitter(ExprEmitter):
    """Emits a lowering's statements as tir: extern calls, loads and stores of bound views."""

    def __init__(
        self, block: Block, variables: dict[int, SSAValue], views: Mapping[int, SSAValue]
    ) -> None:
        super().__init__(block, variables, {})
        self.views = views

    def view(self, buffer: Buffer) -> SSAValue:
        view = self.views.get(id(buffer))
        if view is None:
            raise TensorizeError(f"buffer {buffer.name} is not a buffer of this intrinsic")
        return view

    def stmt(self, stmt: Stmt) -> None:
        if isinstance(stmt, SeqStmt):
            for inner in stmt.seq:
                self.stmt(inner)
        elif isinstance(stmt, Evaluate) and isinstance(stmt.value, CallExtern):
            self.block.add_op(self.call(stmt.value, with_result=False))
        elif isinstance(stmt, Evaluate):
            self.emit(stmt.value)
        elif isinstance(stmt, BufferStore):
            indices = [self.emit(i, element_type("int64")) for i in stmt.indices]
            value = self.emit(stmt.value, element_type(stmt.buffer.dtype))
            view = self.view(stmt.buffer)
            self.block.add_op(memref.StoreOp.get(value, view, self.index(indices)))
        else:
            raise TypeError(f"cannot lower statement {stmt!r}")

    def index(self, values: list[SSAValue]) -> list[SSAValue]:
        from xdsl.dialects.builtin import IndexType

        return [self.convert(v, IndexType()) for v in values]

    def call(self, call: CallExtern, with_result: bool) -> tir.CallExternOp:
        """The call; a buffer argument is its view (its first element's address, or for a
        packed call the whole array), a packed call always returns its int32 status."""
        args = [
            self.pointer(a)
            if isinstance(a, AccessPtr)
            else self.view(a)
            if isinstance(a, Buffer)
            else self.emit(a, element_type(a.dtype))
            for a in call.args
        ]
        if call.packed:
            declared = [
                StringAttr(HANDLE) if isinstance(a, AccessPtr) else v.type
                for a, v in zip(call.args, args, strict=True)
            ]
            return tir.CallExternOp(call.name, args, [element_type("int32")], packed=declared)
        returns = with_result and call.dtype not in ("handle", "void")
        return tir.CallExternOp(call.name, args, [element_type(call.dtype)] if returns else [])

    def pointer(self, access: AccessPtr) -> SSAValue:
        """The bound view; with an offset, the view starting `offset` elements further along
        its innermost dimension (the pointer plus offset when that dimension is contiguous)."""
        view = self.view(access.buffer)
        if not access.offset:
            return view
        typ = view.type
        assert isinstance(typ, MemRefType)
        shape = typ.get_shape()
        strides = typ.get_strides()
        if not shape or access.offset >= shape[-1] or not strides or strides[-1] != 1:
            raise TensorizeError(
                f"access_ptr of {access.buffer.name}: offset {access.offset} must stay in its "
                "contiguous innermost dimension"
            )
        offsets = [0] * (len(shape) - 1) + [access.offset]
        sizes = [*shape[:-1], shape[-1] - access.offset]
        result = MemRefType(
            typ.element_type,
            sizes,
            StridedLayoutAttr(strides, None),
            typ.memory_space,
        )
        return self.add(memref.SubviewOp.get(view, offsets, sizes, [1] * len(sizes), result))

    def natural(self, expr: PrimExpr) -> EmitSteps:
        """As ExprEmitter's, with extern calls, buffer loads and buffer variables."""
        if isinstance(expr, CallExtern):
            op = self.call(expr, with_result=True)
            if not op.res:
                raise TensorizeError(f"extern call {expr.name} returning {expr.dtype} has no value")
            return self.add(op)
        if isinstance(expr, BufferLoad):
            from xdsl.dialects.builtin import IndexType

            indices = []
            for index in expr.indices:
                indices.append(self.convert((yield self, index), IndexType()))
            return self.add(memref.LoadOp.get(self.view(expr.buffer), indices))
        if isinstance(expr, AccessPtr):
            raise TensorizeError("access_ptr is an argument of an extern call only")
        if isinstance(expr, Var) and id(expr) not in self.values:
            raise TensorizeError(
                f"variable {expr.name} is neither a stride nor the elem_offset of a buffer"
            )
        return (yield from super().natural(expr))
