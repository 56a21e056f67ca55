"""TVM's tensor intrinsics: `te.decl_tensor_intrin`, `s[C].tensorize` and a registry by name.

A tensor intrinsic pairs a computation, declared with `te.compute` over placeholders (an 8x8x8
gemm `C[i, j] = sum(A[i, k] * B[j, k])`), with its lowering: statements, usually extern calls
receiving pointers to the buffers, that compute it on the hardware. For a reduction the
lowering may be a triple (body, reset, update): `body` computes the result from scratch,
`reset` sets the output to the reduction's identity, `update` accumulates into it.

    def gemm_lower(ins, outs):
        a, b = ins
        (c,) = outs
        def call(name):
            ib = tvm.tir.ir_builder.create()
            ptrs = a.access_ptr("r"), b.access_ptr("r"), c.access_ptr("w")
            strides = a.strides[0], b.strides[0], c.strides[0]
            ib.emit(tvm.tir.call_extern("int32", name, *ptrs, *strides))
            return ib.get()
        return call("gemm_body"), call("gemm_reset"), call("gemm_update")

    params = {"offset_factor": 1, "strides": [te.var("s"), 1]}
    gemm = te.decl_tensor_intrin(C.op, gemm_lower, name="gemm", default_buffer_params=params)
    s[D].tensorize(ii, gemm)

Intrinsics are registered by name (`register_tensor_intrin`), which is how the IR refers to
them (`te.tensorize "D" {axis = "i.inner", intrin = "gemm"}`) and how a target declares the
intrinsics of its hardware. `tir-tensorize` matches a tensorized loop nest against the
intrinsic's `description()` and asks it for the `lowering(part, bindings)` of its buffers.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from xdsl.dialects import func
from xdsl.ir import Block, Operation, SSAValue

from xtvm.te.expr import ComputeOp, PlaceholderOp, PrimExpr, Read, Tensor, Var, children
from xtvm.te.intrinsic_registry import (
    BufferBinding,
    TensorIntrinsic,
    TensorizeError,
    register_intrinsic,
)
from xtvm.te.stmt import (
    Buffer,
    Evaluate,
    Stmt,
    decl_buffer,
)
from xtvm.te.stmt_emitter import StmtEmitter

PARTS = ("body", "reset", "update")


class TensorIntrin:
    """A tensor intrinsic: the computation `op` declares, computed by its lowering.

    `buffers` declares the memory of the computation's inputs (`op.input_tensors`, in order)
    then its output; `body`, `reset` and `update` are the statements of the lowering (any may
    be None; see the module docs). Built by `decl_tensor_intrin`, or directly by a target
    that declares the intrinsics of its hardware.
    """

    def __init__(
        self,
        name: str,
        op: ComputeOp,
        buffers: Sequence[Buffer],
        body: Stmt | None = None,
        reset: Stmt | None = None,
        update: Stmt | None = None,
    ) -> None:
        if not isinstance(op, ComputeOp):
            raise TypeError(f"tensor intrinsic {name}: expected a te.compute, got {op!r}")
        for tensor in op.input_tensors:
            if not isinstance(tensor.op, PlaceholderOp):
                raise ValueError(
                    f"tensor intrinsic {name}: input {tensor.name} must be a te.placeholder"
                )
        tensors = self.tensors_of(op)
        if len(buffers) != len(tensors):
            raise ValueError(
                f"tensor intrinsic {name}: {len(buffers)} buffers for {len(tensors)} tensors "
                f"({', '.join(t.name for t in tensors)})"
            )
        for tensor, buffer in zip(tensors, buffers, strict=True):
            if tuple(tensor.shape) != buffer.shape or tensor.dtype != buffer.dtype:
                raise ValueError(
                    f"tensor intrinsic {name}: buffer {buffer.name} {buffer.shape} "
                    f"{buffer.dtype} does not fit tensor {tensor.name} {tensor.shape} "
                    f"{tensor.dtype}"
                )
        if body is None and update is None:
            raise ValueError(f"tensor intrinsic {name}: give a body or an update")
        self.name = name
        self.op = op
        self.buffers = list(buffers)
        self.body, self.reset, self.update = body, reset, update
        self._description: func.FuncOp | None = None

    @staticmethod
    def tensors_of(op: ComputeOp) -> list[Tensor]:
        """The inputs in the order the body first reads them, then the output."""
        inputs: list[Tensor] = []

        def visit(node: PrimExpr) -> None:
            if isinstance(node, Read) and not any(node.tensor is t for t in inputs):
                inputs.append(node.tensor)
            for child in children(node):
                visit(child)

        visit(op.body)
        return [*inputs, op.output(0)]

    @property
    def inputs(self) -> list[Tensor]:
        return self.tensors_of(self.op)[:-1]

    def __repr__(self) -> str:
        return f"TensorIntrin({self.name}, {self.op.name})"

    # -- what tir-tensorize asks ----------------------------------------------------------

    def description(self) -> func.FuncOp:
        """The computation in te without a schedule, over the input buffers then the output
        (tir-tensorize lowers it)."""
        if self._description is None:
            from xtvm.te.lower import schedule_to_module
            from xtvm.te.schedule import create_schedule

            schedule = create_schedule(self.op)
            module = schedule_to_module(schedule, self.tensors_of(self.op), f"{self.name}_desc")
            function = module.body.block.first_op
            assert isinstance(function, func.FuncOp)
            module.body.block.detach_op(function)
            self._description = function
        return self._description

    def lowering(self, part: str, bindings: Sequence[BufferBinding]) -> list[Operation] | None:
        """The ops of the lowering's `part` with the buffers bound (see tir-tensorize)."""
        if part not in PARTS:
            raise ValueError(f"unknown part '{part}' of a tensor intrinsic ({', '.join(PARTS)})")
        variables = self.bind(bindings)  # checks the bindings also for a missing part
        stmt = {"body": self.body, "reset": self.reset, "update": self.update}[part]
        if stmt is None:
            return None
        block = Block()
        views = {id(b): binding.view for b, binding in zip(self.buffers, bindings, strict=True)}
        StmtEmitter(block, variables, views).stmt(stmt)
        ops = list(block.ops)
        for op in ops:
            block.detach_op(op)
        return ops

    def bind(self, bindings: Sequence[BufferBinding]) -> dict[int, SSAValue]:
        """The values of the variables in the buffer declarations (strides, elem_offset), after
        checking the declared constants against the bound regions (TVM's buffer binding)."""
        values: dict[int, SSAValue] = {}
        known: dict[int, int | None] = {}

        def bind_var(var: Var, value: SSAValue, static: int | None, what: str) -> None:
            if id(var) not in values:
                values[id(var)], known[id(var)] = value, static
            elif None not in (static, known[id(var)]) and static != known[id(var)]:
                raise TensorizeError(
                    f"variable {var.name} is bound to {known[id(var)]} and to {static} ({what})"
                )

        for buffer, binding in zip(self.buffers, bindings, strict=True):
            declared = buffer.strides or compact_strides(buffer.shape)
            for dim, (stride, actual) in enumerate(
                zip(declared, binding.static_strides, strict=True)
            ):
                if isinstance(stride, Var):
                    bind_var(stride, binding.strides[dim], actual, f"stride of {buffer.name}")
                elif isinstance(stride, PrimExpr):
                    raise TensorizeError(
                        f"buffer {buffer.name}: strides must be ints or te.vars, got {stride!r}"
                    )
                elif buffer.shape[dim] != 1 and actual != stride:
                    what = "a compact" if not buffer.strides else "the declared"
                    raise TensorizeError(
                        f"buffer {buffer.name} needs {what} stride {stride} in dimension {dim}, "
                        f"the region it is bound to has stride {'?' if actual is None else actual}"
                        " (declare strides with te.var to accept any)"
                    )
            offset, actual = buffer.elem_offset, binding.static_elem_offset
            if isinstance(offset, Var):
                bind_var(offset, binding.elem_offset, actual, f"offset of {buffer.name}")
                factor = buffer.offset_factor
                if factor > 1 and actual is not None and actual % factor:
                    raise TensorizeError(
                        f"buffer {buffer.name}: the region starts at element {actual}, not a "
                        f"multiple of offset_factor {factor}"
                    )
            elif isinstance(offset, int) and actual != offset:
                raise TensorizeError(
                    f"buffer {buffer.name} must start at element {offset} of its buffer, the "
                    f"region starts at {'a variable offset' if actual is None else actual} "
                    "(declare offset_factor or elem_offset)"
                )
        return values


def compact_strides(shape: Sequence[int]) -> list[int]:
    strides: list[int] = []
    running = 1
    for extent in reversed(shape):
        strides.append(running)
        running *= extent
    return strides[::-1]


# ---------------------------------------------------------------------------------------------
# Declaring and registering


Lowering = Stmt | tuple[Stmt | None, Stmt | None, Stmt | None] | None


def decl_tensor_intrin(
    op: ComputeOp,
    fcompute: Callable[[list[Buffer], list[Buffer]], Lowering],
    name: str = "tensor_intrin",
    binds: Mapping[Tensor, Buffer] | None = None,
    scalar_params: Sequence[Var] | None = None,
    default_buffer_params: Mapping[str, Any] | None = None,
) -> TensorIntrin:
    """Declare a tensor intrinsic computing `op` (TVM's `te.decl_tensor_intrin`).

    Each tensor of `op` gets a buffer: `binds[tensor]` if given, else
    `tvm.tir.decl_buffer(shape, dtype, name, **default_buffer_params)`. `fcompute(ins, outs)`
    receives them and returns the lowering: one statement (or extern call), or the triple
    (body, reset, update).
    """
    if scalar_params:
        raise NotImplementedError("decl_tensor_intrin: scalar_params are not supported")
    if not isinstance(op, ComputeOp):
        raise TypeError(f"decl_tensor_intrin: expected a te.compute operation (C.op), got {op!r}")
    binds = dict(binds or {})
    params = dict(default_buffer_params or {})
    buffers = []
    for tensor in TensorIntrin.tensors_of(op):
        bound = next((b for t, b in binds.items() if t is tensor), None)
        if bound is None:
            bound = decl_buffer(tensor.shape, tensor.dtype, tensor.op.name, **params)  # type: ignore[arg-type]
        buffers.append(bound)
    ninputs = len(op.input_tensors)
    lowered = fcompute(buffers[:ninputs], buffers[ninputs:])
    if isinstance(lowered, tuple):
        if len(lowered) != 3:
            raise ValueError(
                "decl_tensor_intrin: fcompute returns a statement or (body, reset, update)"
            )
        body, reset, update = (as_stmt(s) for s in lowered)
    else:
        body, reset, update = as_stmt(lowered), None, None
    return TensorIntrin(name, op, buffers, body, reset, update)


def as_stmt(value: object) -> Stmt | None:
    if value is None or isinstance(value, Stmt):
        return value
    if isinstance(value, PrimExpr):
        return Evaluate(value)
    raise TypeError(f"a tensor intrinsic's lowering must be statements, got {value!r}")


def register_tensor_intrin(name: str, intrin: TensorIntrinsic, override: bool = False) -> None:
    """Make `intrin` known by `name` to `s[C].tensorize(axis, name)` and tir-tensorize."""
    register_intrinsic(name, intrin, override)
