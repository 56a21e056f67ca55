"""Buffers, extern calls and statements of `tvm.tir`, as tensor-intrinsic lowerings use them.

A `Buffer` (`tvm.tir.decl_buffer`) declares a region of memory an intrinsic reads or writes:
its shape and dtype, and how it may sit in a larger buffer: `strides` (ints, or `te.var`s
bound to the actual strides when the intrinsic is applied; none means compact), `elem_offset`
(where its first element is; a `te.var` bound likewise, else 0 unless `offset_factor` is given,
which makes it a variable that must be a multiple of the factor). `access_ptr` is the pointer
an extern function receives; `strides[k]` and `elem_offset` are expressions usable as
arguments.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from xtvm.ir.numpy_types import dtype_name
from xtvm.runtime.packed_call import check_packed_name
from xtvm.te.expr import (
    Const,
    Extent,
    IterVar,
    Operation,
    PrimExpr,
    Tensor,
    Var,
    as_expr,
    split_dtype,
    vector_dtype,
)

ACCESS_MASKS = {"r": 1, "w": 2, "rw": 3}


@dataclass(eq=False)
class Buffer:
    """A buffer declaration (`tvm.tir.decl_buffer`)."""

    name: str
    shape: tuple[int, ...]
    dtype: str = "float32"
    strides: list[Extent] = field(default_factory=list)
    elem_offset: Extent = 0
    scope: str = ""
    data_alignment: int = -1
    offset_factor: int = 0

    @property
    def ndim(self) -> int:
        return len(self.shape)

    @property
    def data(self) -> AccessPtr:
        """The buffer's data pointer (TVM's `buffer.data`), as an extern or packed call's
        argument."""
        return AccessPtr(self, ACCESS_MASKS["rw"])

    def access_ptr(
        self,
        access_mask: str | int,
        ptr_type: str = "handle",
        content_lanes: int = 1,
        offset: int = 0,
        extent: object = None,
    ) -> AccessPtr:
        """A pointer to the buffer's first element (plus `offset` elements, along its
        contiguous innermost dimension) for an extern call; `access_mask` ("r", "w", "rw" or
        TVM's bit mask) says how the callee uses it (it is checked, not otherwise used)."""
        if isinstance(access_mask, str):  # letters in any order, as TVM reads them ("wr")
            if not access_mask or set(access_mask) - {"r", "w"}:
                raise ValueError(f"access_ptr: unknown access mask '{access_mask}' (r, w, rw)")
            access_mask = sum(ACCESS_MASKS[c] for c in set(access_mask))
        if not 1 <= access_mask <= 3:
            raise ValueError("access_ptr: the access mask must be 1 (r), 2 (w) or 3 (rw)")
        if not isinstance(offset, int) or offset < 0:
            raise NotImplementedError("access_ptr: the offset must be a non-negative int")
        return AccessPtr(self, access_mask, offset)

    def vload(self, begin: object, dtype: str | None = None) -> BufferLoad:
        """The element at `begin` (indices into this buffer, or one index of a 1-d buffer);
        of a vector dtype (`float32x4`), that many consecutive elements along the last
        dimension."""
        base, lanes = split_dtype(dtype or self.dtype)
        if base != self.dtype:
            raise TypeError(f"vload of {self.name} ({self.dtype}) as {dtype}")
        return BufferLoad(self, self._indices(begin), lanes)

    def vstore(self, begin: object, value: object) -> BufferStore:
        """Store `value` at `begin`; a vector value fills consecutive elements along the last
        dimension."""
        value = as_expr(value, self.dtype)
        if split_dtype(value.dtype)[0] != self.dtype:
            raise TypeError(f"vstore of {value.dtype} into {self.name} ({self.dtype})")
        return BufferStore(self, self._indices(begin), value)

    def _indices(self, begin: object) -> tuple[PrimExpr, ...]:
        items = list(begin) if isinstance(begin, list | tuple) else [begin]
        if len(items) != len(self.shape):
            raise IndexError(
                f"buffer {self.name} has {len(self.shape)} dimensions, indexed with {len(items)}"
            )
        return tuple(as_expr(i) for i in items)

    def __repr__(self) -> str:
        return f"Buffer({self.name}, shape={self.shape}, dtype={self.dtype})"


def decl_buffer(
    shape: Sequence[int] | int,
    dtype: str = "float32",
    name: str = "buffer",
    data: object = None,
    strides: Sequence[Extent] | None = None,
    elem_offset: Extent | None = None,
    scope: str = "",
    data_alignment: int = -1,
    offset_factor: int = 0,
    buffer_type: str = "",
    axis_separators: object = None,
    span: object = None,
) -> Buffer:
    """Declare a buffer (`tvm.tir.decl_buffer`); shapes of intrinsic buffers are static."""
    if data is not None or buffer_type or axis_separators:
        raise NotImplementedError("decl_buffer: data, buffer_type and axis_separators")
    dims = shape if isinstance(shape, list | tuple) else (shape,)
    if not all(isinstance(d, int) or isinstance(d, Const) for d in dims):
        raise NotImplementedError(f"decl_buffer {name}: the shape must be static, got {dims}")
    static = tuple(int(d.value) if isinstance(d, Const) else int(d) for d in dims)
    stride_list = list(strides or [])
    if stride_list and len(stride_list) != len(static):
        raise ValueError(f"decl_buffer {name}: {len(stride_list)} strides for {len(static)} dims")
    if elem_offset is None:
        elem_offset = Var(f"{name}_elem_offset") if offset_factor else 0
    return Buffer(
        name,
        static,
        dtype_name(dtype),
        stride_list,
        elem_offset,
        scope,
        data_alignment,
        offset_factor,
    )


# ---------------------------------------------------------------------------------------------
# Expressions and statements


@dataclass(eq=False)
class AccessPtr(PrimExpr):
    """`buffer.access_ptr(mask)`: the address of the buffer's first element (a handle)."""

    buffer: Buffer
    access_mask: int
    offset: int = 0
    dtype: str = "handle"


@dataclass(eq=False)
class BufferLoad(PrimExpr):
    """The element of `buffer` at `indices`, or `lanes` consecutive ones along its last
    dimension (a vector)."""

    buffer: Buffer
    indices: tuple[PrimExpr, ...]
    lanes: int = 1

    def __post_init__(self) -> None:
        self.dtype = vector_dtype(self.buffer.dtype, self.lanes)


@dataclass(eq=False)
class CallExtern(PrimExpr):
    """`tvm.tir.call_extern(dtype, name, *args)`: a call of a function the target provides;
    `packed` for `tvm.tir.call_packed` (a function registered with `tvm.register_func`)."""

    dtype: str
    name: str
    args: tuple[PrimExpr | Buffer, ...]
    packed: bool = False


def call_extern(dtype: str, func_name: str, *args: object) -> CallExtern:
    """A call of extern function `func_name` returning `dtype`; Python ints are int32."""
    if not isinstance(func_name, str) or not func_name:
        raise ValueError(f"call_extern: the function name must be a string, got {func_name!r}")
    kind = dtype if dtype in ("handle", "void") else dtype_name(dtype)
    return CallExtern(kind, func_name, tuple(as_expr(a) for a in args))


def call_packed(func_name: str, *args: object) -> CallExtern:
    """TVM's `tvm.tir.call_packed(name, *args)`: call the function registered as `name`
    (`tvm.register_func`), looked up when the kernel runs; buffers arrive as `tvm.nd` arrays
    viewing the kernel's memory, scalars as Python numbers. Returns an int32 status."""
    check_packed_name(func_name)
    values = tuple(a if isinstance(a, Buffer) else as_expr(a) for a in args)
    return CallExtern("int32", func_name, values, packed=True)


class Stmt:
    """A statement of an intrinsic lowering."""


@dataclass(eq=False)
class Evaluate(Stmt):
    """An expression evaluated for its effect (`ib.emit(call)`)."""

    value: PrimExpr


@dataclass(eq=False)
class BufferStore(Stmt):
    buffer: Buffer
    indices: tuple[PrimExpr, ...]
    value: PrimExpr


@dataclass(eq=False)
class SeqStmt(Stmt):
    seq: list[Stmt]

    def __getitem__(self, k: int) -> Stmt:
        return self.seq[k]

    def __len__(self) -> int:
        return len(self.seq)


class ForKind:
    """TVM's `tvm.tir.ForKind`: how a loop of `ir_builder.for_range` runs."""

    SERIAL = 0
    PARALLEL = 1
    VECTORIZED = 2
    UNROLLED = 3


# ForKind -> the kind of the tir.for it becomes.
LOOP_KIND_NAMES = {0: "serial", 1: "parallel", 2: "vectorized", 3: "unrolled"}


@dataclass(eq=False)
class For(Stmt):
    """`for loop_var in [min, min + extent)`, run as `kind` says (a ForKind)."""

    loop_var: Var
    min: PrimExpr
    extent: PrimExpr
    kind: int
    body: Stmt


@dataclass(eq=False)
class While(Stmt):
    """Runs `body` as long as `condition` holds (checked before each run)."""

    condition: PrimExpr
    body: Stmt


@dataclass(eq=False)
class IfThenElse(Stmt):
    condition: PrimExpr
    then_case: Stmt
    else_case: Stmt | None = None


@dataclass(eq=False)
class Allocate(Stmt):
    """Memory for `buffer` (of `extents`) while `body` runs; its data is `buffer_var`."""

    buffer: Buffer
    dtype: str
    extents: list[PrimExpr]
    condition: PrimExpr
    body: Stmt

    @property
    def buffer_var(self) -> AccessPtr:
        return self.buffer.data


@dataclass(eq=False)
class AttrStmt(Stmt):
    """`body` under an attribute of `node`: for "thread_extent", `body` runs once per index
    of the thread axis `node` in [0, value) (a GPU kernel's launch dimension)."""

    node: object
    attr_key: str
    value: PrimExpr
    body: Stmt


@dataclass(eq=False)
class LetStmt(Stmt):
    """`var` bound to `value` in `body`."""

    var: Var
    value: PrimExpr
    body: Stmt


@dataclass(eq=False)
class Prefetch(Stmt):
    """A hint to fetch the `bounds` (Ranges) of `buffer` into cache; it computes nothing."""

    buffer: Buffer
    bounds: list[Any]


# ---------------------------------------------------------------------------------------------
# te.extern


class ExternOp(Operation):
    """`te.extern`: tensors computed by statements over their buffers (`body`), usually a
    call of an extern or packed function."""

    def __init__(
        self,
        name: str,
        tag: str,
        inputs: list[Tensor],
        in_buffers: list[Buffer],
        out_buffers: list[Buffer],
        body: Stmt,
        attrs: dict[str, Any] | None = None,
    ) -> None:
        self.name = name
        self.tag = tag
        self.inputs = inputs
        self.in_buffers = in_buffers
        self.out_buffers = out_buffers
        self.body = body
        self.attrs = dict(attrs or {})
        self.axis: list[IterVar] = []
        self.reduce_axis: list[IterVar] = []
        self.outputs = [Tensor(self, b.shape, b.dtype, k) for k, b in enumerate(out_buffers)]

    @property
    def input_tensors(self) -> list[Tensor]:
        return list(self.inputs)


def extern(
    shape: Sequence[int] | Sequence[Sequence[int]],
    inputs: Sequence[Tensor],
    fcompute: Callable[[list[Buffer], list[Buffer]], Stmt | PrimExpr],
    name: str = "extern",
    dtype: str | Sequence[str] | None = None,
    in_buffers: Buffer | Sequence[Buffer] | None = None,
    out_buffers: Buffer | Sequence[Buffer] | None = None,
    tag: str = "",
    attrs: dict[str, Any] | None = None,
) -> Tensor | list[Tensor]:
    """TVM's `te.extern`: output tensors of `shape` (one shape, or a list of them) computed
    by the statement `fcompute(ins, outs)` returns, over buffers of `inputs` and of the
    outputs: `tvm.tir.call_packed("f", ins[0], outs[0])` or `tvm.tir.call_extern(...)`.
    Building needs static shapes; one tensor is returned for one output, else the list."""
    shapes = [shape] if not shape or not isinstance(shape[0], list | tuple) else list(shape)
    static = [tuple(_dim(d, name) for d in s) for s in shapes]  # type: ignore[union-attr]
    inputs = list(inputs)
    if not all(isinstance(t, Tensor) for t in inputs):
        raise TypeError(f"extern {name}: inputs must be tensors")
    if dtype is None:
        dtypes = [inputs[0].dtype if inputs else "float32"] * len(static)
    elif isinstance(dtype, str):
        dtypes = [dtype] * len(static)
    else:
        dtypes = list(dtype)
    if len(dtypes) != len(static):
        raise ValueError(f"extern {name}: {len(dtypes)} dtypes for {len(static)} outputs")
    ins = _buffers(in_buffers, [(t.shape, t.dtype, t.name) for t in inputs], name, "input")
    outs = _buffers(
        out_buffers,
        [
            (s, d, f"{name}.out{k}" if len(static) > 1 else name)
            for k, (s, d) in enumerate(zip(static, dtypes, strict=True))
        ],
        name,
        "output",
    )
    body = fcompute(ins, outs)
    if isinstance(body, PrimExpr):
        body = Evaluate(body)
    if not isinstance(body, Stmt):
        raise TypeError(f"extern {name}: fcompute must return a statement or a call, got {body!r}")
    op = ExternOp(name, tag, inputs, ins, outs, body, attrs)
    return op.outputs[0] if len(op.outputs) == 1 else op.outputs


def _dim(d: object, name: str) -> Extent:
    """A dimension of an extern's buffer: an int, or a symbolic extent (which building
    refuses)."""
    if isinstance(d, Const):
        return int(d.value)
    if isinstance(d, int) and d >= 0:
        return d
    if isinstance(d, PrimExpr) and not isinstance(d, int):
        return d
    raise ValueError(f"extern {name}: {d!r} is not a dimension")


def _buffers(
    given: Buffer | Sequence[Buffer] | None,
    specs: list[tuple[Sequence[object], str, str]],
    name: str,
    what: str,
) -> list[Buffer]:
    if given is None:
        return [Buffer(n, tuple(_dim(x, name) for x in s), dtype_name(d)) for s, d, n in specs]  # type: ignore[misc]
    buffers = [given] if isinstance(given, Buffer) else list(given)
    if len(buffers) != len(specs):
        raise ValueError(f"extern {name}: {len(buffers)} {what} buffers for {len(specs)} tensors")
    for buffer, (shape, dtype, _) in zip(buffers, specs, strict=True):
        dims = [_dim(d, name) for d in shape]
        same = len(dims) == len(buffer.shape) and all(
            a is b or (isinstance(a, int) and isinstance(b, int) and a == b)
            for a, b in zip(buffer.shape, dims, strict=False)
        )
        if not same or buffer.dtype != dtype:
            raise ValueError(
                f"extern {name}: {what} buffer {buffer.name} {buffer.shape} {buffer.dtype} does "
                f"not match its tensor {tuple(shape)} {dtype}"
            )
        if buffer.strides or buffer.elem_offset != 0:
            raise NotImplementedError(f"extern {name}: buffers must be compact")
    return buffers
