"""The te.extern op of a `te.extern` stage: its statements emitted as tir over its buffers.

Each input and output tensor of the stage gets a block argument of the op's body, a memref
of the tensor's shape, which is what the stage's buffers (`ins`, `outs` of its fcompute)
denote; `convert-te-to-tir` binds them to the tensors' actual buffers.
"""

from __future__ import annotations

from xdsl.dialects.builtin import MemRefType
from xdsl.ir import SSAValue

from xtvm.dialects import te
from xtvm.ir.numpy_types import element_type
from xtvm.te.expr_emitter import sanitize, tensor_type
from xtvm.te.stmt import ExternOp
from xtvm.te.stmt_emitter import StmtEmitter


def build_extern(op: ExternOp, tensors: dict[int, SSAValue]) -> te.ExternOp:
    """The te.extern of `op`; defines its outputs' tensors in `tensors`."""
    ins = []
    for tensor in op.inputs:
        if id(tensor) not in tensors:
            raise ValueError(f"extern {op.name}: input {tensor.name} is not an argument or stage")
        ins.append(tensors[id(tensor)])
    buffers = [*op.in_buffers, *op.out_buffers]
    for buffer in buffers:
        if not all(isinstance(d, int) for d in buffer.shape):
            raise NotImplementedError(
                f"extern {op.name}: buffer {buffer.name} has the symbolic shape "
                f"{buffer.shape}; building an extern stage needs static shapes"
            )
    buffer_types = [MemRefType(element_type(b.dtype), list(b.shape)) for b in buffers]
    extern = te.ExternOp(op.name, ins, [tensor_type(t) for t in op.outputs], buffer_types)
    block = extern.body.block
    for buffer, arg in zip(buffers, block.args, strict=True):
        arg.name_hint = sanitize(buffer.name)
    views = {id(b): arg for b, arg in zip(buffers, block.args, strict=True)}
    StmtEmitter(block, {}, views).stmt(op.body)
    block.add_op(te.YieldOp())
    for tensor, result in zip(op.outputs, extern.outs, strict=True):
        result.name_hint = sanitize(tensor.name)
        tensors[id(tensor)] = result
    return extern
