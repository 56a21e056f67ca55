"""Emitting the statements of a tensor intrinsic's lowering or a `te.extern` stage as tir:
extern and packed calls, loads and stores of the buffers, each bound to a memref view, and
the control flow of `tvm.tir.ir_builder` bodies: loops (`tir.for`), `scf.if`, `scf.while`,
stack buffers (`memref.alloca`) and lets."""

from __future__ import annotations

from collections.abc import Mapping

from xdsl.dialects import arith, memref, scf, vector
from xdsl.dialects.builtin import IndexType, MemRefType, StridedLayoutAttr, StringAttr, i1
from xdsl.ir import Block, Region, SSAValue

from xtvm.dialects import tir
from xtvm.ir.numpy_types import element_type
from xtvm.runtime.packed_call import HANDLE
from xtvm.te.expr import Const, IterVar, PrimExpr, Var, as_expr, split_dtype
from xtvm.te.expr_emitter import EmitSteps, ExprEmitter, sanitize, value_type
from xtvm.te.intrinsic_registry import TensorizeError
from xtvm.te.stmt import (
    LOOP_KIND_NAMES,
    AccessPtr,
    Allocate,
    AttrStmt,
    Buffer,
    BufferLoad,
    BufferStore,
    CallExtern,
    Evaluate,
    For,
    IfThenElse,
    LetStmt,
    Prefetch,
    SeqStmt,
    Stmt,
    While,
)


class StmtEmitter(ExprEmitter):
    """Emits a lowering's statements as tir: extern calls, loads and stores of bound views."""

    def __init__(
        self, block: Block, variables: dict[int, SSAValue], views: Mapping[int, SSAValue]
    ) -> None:
        super().__init__(block, variables, {})
        self.views = dict(views)

    def view(self, buffer: Buffer) -> SSAValue:
        view = self.views.get(id(buffer))
        if view is None:
            raise TensorizeError(
                f"buffer {buffer.name} is neither a buffer of this stage or intrinsic nor "
                "allocated in its body"
            )
        return view

    def stmt(self, stmt: Stmt) -> None:
        """Emit `stmt` at the end of the current block. Values are not reused from one
        statement to the next: a load must see the stores before it."""
        self.memo = {}
        if isinstance(stmt, SeqStmt):
            for inner in stmt.seq:
                self.stmt(inner)
        elif isinstance(stmt, Evaluate) and isinstance(stmt.value, CallExtern):
            self.block.add_op(self.extern_call(stmt.value, with_result=False))
        elif isinstance(stmt, Evaluate):
            self.emit(stmt.value)
        elif isinstance(stmt, BufferStore):
            indices = self.index([self.emit(i, element_type("int64")) for i in stmt.indices])
            view = self.view(stmt.buffer)
            if split_dtype(stmt.value.dtype)[1] > 1:  # consecutive elements
                value = self.emit(stmt.value)
                self.block.add_op(vector.StoreOp(value, view, indices))
            else:
                value = self.emit(stmt.value, element_type(stmt.buffer.dtype))
                self.block.add_op(memref.StoreOp.get(value, view, indices))
        elif isinstance(stmt, For):
            self.loop(stmt)
        elif isinstance(stmt, IfThenElse):
            cond = self.emit(stmt.condition, i1)
            branches = [stmt.then_case] + ([stmt.else_case] if stmt.else_case else [])
            regions = [Region(self.nested(s, scf.YieldOp())) for s in branches]
            self.block.add_op(scf.IfOp(cond, [], *regions))
        elif isinstance(stmt, While):
            before = Block()
            outer, self.block = self.block, before
            cond = self.emit(stmt.condition, i1)
            self.block = outer
            before.add_op(scf.ConditionOp(cond))
            self.memo = {}
            after = self.nested(stmt.body, scf.YieldOp())
            self.block.add_op(scf.WhileOp([], [], Region(before), Region(after)))
        elif isinstance(stmt, Allocate):
            self.allocate(stmt)
        elif isinstance(stmt, LetStmt):
            self.values[id(stmt.var)] = self.emit(stmt.value)
            self.stmt(stmt.body)
        elif isinstance(stmt, AttrStmt):
            self.attribute(stmt)
        elif isinstance(stmt, Prefetch):
            pass  # a cache hint: nothing to compute
        else:
            raise TypeError(f"cannot lower statement {stmt!r}")

    def nested(self, stmt: Stmt, terminator: object) -> Block:
        """A new block holding `stmt`, then `terminator`."""
        block = Block()
        outer, self.block = self.block, block
        try:
            self.stmt(stmt)
        finally:
            self.block, self.memo = outer, {}
        block.add_op(terminator)  # type: ignore[arg-type]
        return block

    def loop(self, stmt: For) -> None:
        lower = self.emit(stmt.min, IndexType())
        upper = self.emit(stmt.extent, IndexType())
        if not (isinstance(stmt.min, Const) and stmt.min.value == 0):
            upper = self.add(arith.AddiOp(lower, upper))
        self.add_loop(lower, upper, stmt.loop_var, stmt.loop_var.name, stmt.body, stmt.kind)

    def attribute(self, stmt: AttrStmt) -> None:
        """A thread extent: a loop bound to the thread axis (the GPU's launch dimension)."""
        node = stmt.node
        if stmt.attr_key != "thread_extent" or not isinstance(node, IterVar):
            raise TensorizeError(
                f"attribute '{stmt.attr_key}' of an ir_builder body is not supported (only "
                "thread_extent of a te.thread_axis)"
            )
        if node.thread_tag not in tir.THREAD_TAGS:
            raise TensorizeError(f"thread_extent: unknown thread axis '{node.thread_tag}'")
        lower = self.emit(as_expr(0), IndexType())
        upper = self.emit(stmt.value, IndexType())
        self.add_loop(lower, upper, node, node.thread_tag, stmt.body, None, node.thread_tag)

    def add_loop(
        self,
        lower: SSAValue,
        upper: SSAValue,
        var: PrimExpr,
        name: str,
        body_stmt: Stmt,
        kind: int | None,
        thread: str | None = None,
    ) -> None:
        """A tir.for over [lower, upper) whose variable is `var`, running `body_stmt`: of
        ForKind `kind`, or bound to GPU axis `thread`."""
        body = Block(arg_types=[IndexType()])
        self.values[id(var)] = body.args[0]
        body.args[0].name_hint = sanitize(name)
        outer, self.block = self.block, body
        try:
            self.stmt(body_stmt)
        finally:
            self.block, self.memo = outer, {}
        body.add_op(tir.YieldOp())
        loop_kind = "thread_binding" if kind is None else LOOP_KIND_NAMES[kind]
        self.block.add_op(tir.ForOp(lower, upper, loop_kind, thread, Region(body)))

    def allocate(self, stmt: Allocate) -> None:
        """A stack buffer of static shape for the allocation's body."""
        shape = []
        for extent in stmt.extents:
            if not isinstance(extent, Const):
                raise TensorizeError(
                    f"allocate {stmt.buffer.name}: the shape must be static, got {extent}"
                )
            shape.append(int(extent.value))
        typ = MemRefType(element_type(stmt.dtype), shape)
        alloca = memref.AllocaOp.get(typ.element_type, shape=shape)
        alloca.memref.name_hint = sanitize(stmt.buffer.name)
        self.views[id(stmt.buffer)] = self.add(alloca)
        self.stmt(stmt.body)

    def index(self, values: list[SSAValue]) -> list[SSAValue]:
        return [self.convert(v, IndexType()) for v in values]

    def extern_call(self, call: CallExtern, with_result: bool) -> tir.CallExternOp:
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
            op = self.extern_call(expr, with_result=True)
            if not op.res:
                raise TensorizeError(f"extern call {expr.name} returning {expr.dtype} has no value")
            return self.add(op)
        if isinstance(expr, BufferLoad):
            indices = []
            for index in expr.indices:
                indices.append(self.convert((yield self, index), IndexType()))
            if expr.lanes > 1:
                typ = value_type(expr.dtype)
                return self.add(vector.LoadOp(self.view(expr.buffer), indices, typ))  # type: ignore[arg-type]
            return self.add(memref.LoadOp.get(self.view(expr.buffer), indices))
        if isinstance(expr, AccessPtr):
            raise TensorizeError("access_ptr is an argument of an extern call only")
        if isinstance(expr, Var) and id(expr) not in self.values:
            raise TensorizeError(
                f"variable {expr.name} is neither a stride nor the elem_offset of a buffer"
            )
        return (yield from super().natural(expr))
