"""TVM's `tvm.tir`: scalar expressions and operators (`IntImm`, `const`, `floordiv`,
`Select`, `call_intrin`, ...: xtvm/api/tir/op.py), and the names tensor intrinsics are written
with: buffer declarations
(`tvm.tir.decl_buffer`), extern calls (`tvm.tir.call_extern`) and the statement builder
(`tvm.tir.ir_builder.create()`).

A tensor intrinsic's lowering function (`te.decl_tensor_intrin`) receives `Buffer`s and returns
statements built from these; tir-tensorize turns them into tir once the buffers are bound to
the regions of a kernel's buffers.
"""

from xtvm.api.relay.ty import Any  # tir.Any and relay.Any are one dimension kind
from xtvm.api.tir import ir_builder
from xtvm.api.tir.op import *  # noqa: F403  (TVM's operators live at tvm.tir.*)
from xtvm.api.tir.op import __all__ as _op_names
from xtvm.te.expr import Broadcast, Ramp, Var
from xtvm.te.stmt import (
    AccessPtr,
    Allocate,
    Buffer,
    BufferLoad,
    BufferStore,
    CallExtern,
    Evaluate,
    For,
    ForKind,
    IfThenElse,
    LetStmt,
    Prefetch,
    SeqStmt,
    Stmt,
    While,
    call_extern,
    call_packed,
    decl_buffer,
)

__all__ = [
    *_op_names,
    "Any",
    "Broadcast",
    "Ramp",
    "Var",
    "AccessPtr",
    "Allocate",
    "Buffer",
    "BufferLoad",
    "BufferStore",
    "CallExtern",
    "Evaluate",
    "For",
    "ForKind",
    "IfThenElse",
    "LetStmt",
    "Prefetch",
    "SeqStmt",
    "Stmt",
    "While",
    "call_extern",
    "call_packed",
    "decl_buffer",
    "ir_builder",
]
