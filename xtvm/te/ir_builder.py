"""TVM's `tvm.tir.ir_builder`: statements written imperatively, as te.extern bodies and
tensor intrinsics are.

    ib = tvm.tir.ir_builder.create()
    a = ib.buffer_ptr(ins[0])
    tmp = ib.allocate("float32", (1,), name="tmp", scope="local")
    with ib.for_range(0, n, name="i") as i:
        with ib.if_scope(a[i] > 0):
            tmp[0] = tmp[0] + a[i]
        with ib.else_scope():
            ...
    body = ib.get()

Each scope collects its statements; leaving it wraps them (a For, IfThenElse, While). An
allocation or a `let` covers the statements emitted after it in its scope, as in TVM.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager
from typing import Any

from xtvm.te.expr import (
    Const,
    Extent,
    IterVar,
    PrimExpr,
    Ramp,
    Var,
    as_expr,
    as_extent,
    dtype_name,
    floordiv,
    floormod,
    split_dtype,
)
from xtvm.te.expr import max as te_max
from xtvm.te.stmt import (
    Allocate,
    AttrStmt,
    Buffer,
    BufferLoad,
    BufferStore,
    Evaluate,
    For,
    ForKind,
    IfThenElse,
    LetStmt,
    SeqStmt,
    Stmt,
    While,
)

FOR_KINDS = {
    "serial": ForKind.SERIAL,
    "parallel": ForKind.PARALLEL,
    "vectorize": ForKind.VECTORIZED,
    "unroll": ForKind.UNROLLED,
}

# An entry of a scope: a statement, or a function wrapping the statements after it.
Entry = Stmt | Callable[[Stmt], Stmt]


class BufferVar:
    """A buffer indexed like an array: `x[i]` loads, `x[i] = v` emits a store."""

    def __init__(self, builder: IRBuilder, buffer: Buffer, content_type: str) -> None:
        self._builder = builder
        self._buffer = buffer
        self._content_type = content_type

    def asobject(self) -> Buffer:
        return self._buffer

    @property
    def dtype(self) -> str:
        return self._content_type

    def _normalize_index(self, index: object) -> tuple[PrimExpr, ...]:
        """The indices of `index`; one flat index into a multi-dimensional buffer is
        unravelled in row-major order."""
        items = list(index) if isinstance(index, tuple | list) else [index]
        exprs = [as_expr(x) for x in items]
        shape = self._buffer.shape
        if len(exprs) == 1 and len(shape) > 1:
            flat, unravelled = exprs[0], []
            for extent in reversed(shape[1:]):
                unravelled.append(floormod(flat, extent))
                flat = floordiv(flat, extent)
            exprs = [flat, *reversed(unravelled)]
        if len(exprs) != len(shape):
            raise IndexError(
                f"buffer {self._buffer.name} has {len(shape)} dimensions, indexed with {len(exprs)}"
            )
        return tuple(exprs)

    def __getitem__(self, index: object) -> BufferLoad:
        indices, lanes = self._vector_index(self._normalize_index(index))
        return BufferLoad(self._buffer, indices, lanes)

    def _vector_index(self, indices: tuple[PrimExpr, ...]) -> tuple[tuple[PrimExpr, ...], int]:
        """A unit-stride Ramp as the last index addresses that many consecutive elements."""
        if not indices:  # a 0-d buffer
            return indices, 1
        *outer, last = indices
        if not any(isinstance(i, Ramp) for i in indices):
            return indices, 1
        if any(isinstance(i, Ramp) for i in outer) or not (
            isinstance(last, Ramp) and isinstance(last.stride, Const) and last.stride.value == 1
        ):
            raise NotImplementedError(
                f"buffer {self._buffer.name}: a vector index must be a Ramp of stride 1 in "
                "the last dimension"
            )
        return (*outer, last.base), last.lanes

    def __setitem__(self, index: object, value: object) -> None:
        indices, lanes = self._vector_index(self._normalize_index(index))
        value = as_expr(value, self._content_type)
        if split_dtype(value.dtype) == (self._content_type, lanes):
            self._builder.emit(BufferStore(self._buffer, indices, value))
            return
        if value.dtype != self._content_type or lanes != 1:
            if not isinstance(value, Const):
                raise ValueError(
                    f"data type does not match content type {value.dtype} vs {self._content_type}"
                )
            value = as_expr(value.value, self._content_type)
        self._builder.emit(BufferStore(self._buffer, indices, value))


class IRBuilder:
    """Builds a statement scope by scope (see the module's docstring)."""

    def __init__(self) -> None:
        self._seq_stack: list[list[Entry]] = [[]]
        self.nidx = 0

    def _pop_seq(self) -> Stmt:
        seq = self._seq_stack.pop()
        if not seq or callable(seq[-1]):
            seq.append(Evaluate(as_expr(0)))
        result: list[Stmt] = []
        for entry in reversed(seq):
            if isinstance(entry, Stmt):
                result.insert(0, entry)
            else:
                result = [entry(_wrap(result))]
        return _wrap(result)

    def emit(self, stmt: Entry | PrimExpr) -> None:
        """Append a statement, an expression (a call, evaluated for its effect), or a
        function that wraps the statements emitted after it."""
        if isinstance(stmt, PrimExpr):
            stmt = Evaluate(stmt)
        if not isinstance(stmt, Stmt) and not callable(stmt):
            raise TypeError(f"ir_builder.emit: expected a statement or a call, got {stmt!r}")
        self._seq_stack[-1].append(stmt)

    @contextmanager
    def _scope(self, value: object, close: Callable[[Stmt], Stmt]) -> Iterator[Any]:
        self._seq_stack.append([])
        yield value
        self.emit(close(self._pop_seq()))

    def for_range(
        self,
        begin: object,
        end: object,
        name: str = "i",
        dtype: str | None = None,
        kind: str = "serial",
    ) -> AbstractContextManager[Var]:
        """A loop over [begin, end); `kind`: serial, parallel, vectorize or unroll."""
        if kind not in FOR_KINDS:
            raise ValueError(f"for_range: unknown loop kind '{kind}' ({', '.join(FOR_KINDS)})")
        if name == "i":
            name = chr(ord("i") + self.nidx) if self.nidx < 3 else f"i_{self.nidx - 3}"
            self.nidx += 1
        lo, hi = as_expr(begin), as_expr(end)
        for bound in (lo, hi):
            if not bound.dtype.startswith("int"):
                raise NotImplementedError(
                    f"for_range: loop bounds must be integers, got {bound.dtype}"
                )
        if dtype is None:
            dtype = "int64" if "int64" in (lo.dtype, hi.dtype) else "int32"
        loop_var = Var(name, dtype)
        zero = isinstance(lo, Const) and lo.value == 0
        extent = hi if zero else hi - lo
        return self._scope(loop_var, lambda body: For(loop_var, lo, extent, FOR_KINDS[kind], body))

    def while_loop(self, condition: PrimExpr) -> AbstractContextManager[None]:
        """A loop running while `condition` holds."""
        return self._scope(None, lambda body: While(as_expr(condition, "bool"), body))

    def if_scope(self, cond: PrimExpr) -> AbstractContextManager[None]:
        return self._scope(None, lambda body: IfThenElse(as_expr(cond, "bool"), body, None))

    def else_scope(self) -> AbstractContextManager[None]:
        """The else branch of the if_scope just closed."""
        seq = self._seq_stack[-1]
        prev = seq[-1] if seq else None
        if not isinstance(prev, IfThenElse) or prev.else_case is not None:
            raise RuntimeError("else_scope can only follow an if_scope")
        seq.pop()
        return self._scope(None, lambda body: IfThenElse(prev.condition, prev.then_case, body))

    def new_scope(self) -> AbstractContextManager[None]:
        """A scope that bounds the allocations and lets made in it."""
        return self._scope(None, lambda body: body)

    def let(self, var_name: str, value: object) -> Var:
        """A variable bound to `value` in the statements emitted after it."""
        value = as_expr(value)
        var = Var(var_name, value.dtype)
        self.emit(lambda body: LetStmt(var, value, body))
        return var

    def allocate(
        self,
        dtype: str,
        shape: Extent | Sequence[Extent],
        name: str = "buf",
        axis_separators: object = None,
        scope: str = "",
    ) -> BufferVar:
        """A buffer live for the statements emitted after it in this scope."""
        if axis_separators:
            raise NotImplementedError("ir_builder.allocate: axis_separators")
        dims = list(shape) if isinstance(shape, list | tuple) else [shape]
        extents = tuple(as_extent(d, f"allocate {name}") for d in dims)
        dtype = dtype_name(dtype)
        buffer = Buffer(name, extents, dtype, scope=scope)  # type: ignore[arg-type]
        condition = as_expr(True)
        self.emit(
            lambda body: Allocate(buffer, dtype, [as_expr(d) for d in extents], condition, body)
        )
        return BufferVar(self, buffer, dtype)

    def pointer(self, content_type: str, name: str = "ptr", scope: str = "") -> BufferVar:
        """A pointer to `content_type` values, not bound to any memory."""
        buffer = Buffer(name, (1,), dtype_name(content_type), scope=scope)
        return BufferVar(self, buffer, buffer.dtype)

    def buffer_ptr(self, buf: Buffer, shape: Sequence[int] | None = None) -> BufferVar:
        """`buf` (an extern's or intrinsic's buffer) indexed like an array."""
        if shape is not None and tuple(shape) != tuple(buf.shape):
            raise NotImplementedError("ir_builder.buffer_ptr: viewing a buffer in another shape")
        return BufferVar(self, buf, buf.dtype)

    def likely(self, expr: PrimExpr) -> PrimExpr:
        """`expr`, marked as usually true (a hint; xtvm keeps the expression as is)."""
        return expr

    def scope_attr(self, node: object, attr_key: str, value: object) -> None:
        """An attribute of `node` over the statements emitted after it in this scope; for
        "thread_extent" (`node` a te.thread_axis), they run once per thread index."""
        value = as_expr(value)
        if attr_key == "thread_extent":
            if not isinstance(node, IterVar) or not node.thread_tag:
                raise TypeError("scope_attr thread_extent: the node must be a te.thread_axis")
            value = te_max(as_expr(1, value.dtype), value)
        self.emit(lambda body: AttrStmt(node, attr_key, value, body))

    def get(self) -> Stmt:
        """The statement built; every scope must be closed."""
        seq = self._pop_seq()
        if self._seq_stack:
            raise RuntimeError("cannot call get inside construction scope")
        return seq


def _wrap(stmts: list[Stmt]) -> Stmt:
    return stmts[0] if len(stmts) == 1 else SeqStmt(stmts)


def create() -> IRBuilder:
    return IRBuilder()


__all__ = ["BufferVar", "IRBuilder", "create"]
