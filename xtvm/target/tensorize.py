"""An accel target's intrinsics as tensor intrinsics of `tir-tensorize`.

`AccelIntrinsic` is what tir-tensorize asks of an intrinsic (its `TensorIntrinsic` protocol),
read from an `accel.intrin` op: the description is the tir of the op's te computation, and the
lowering is one call of the declared extern function. The calling convention is the same for
every accel intrinsic: the output tiles, then the input tiles (pointers to their first
elements), then for each of them in that order the strides in elements of all dimensions but
the innermost, which must be contiguous. `reset` gets the outputs only:

    vta_gemm(acc, inp, wgt, acc_stride0, inp_stride0, wgt_stride0)
    vta_gemm_reset(acc, acc_stride0)

A tile bound to a buffer outside the intrinsic's declared scratchpad is a tensorize error.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects import func
from xdsl.dialects.builtin import FunctionType, MemRefType, ModuleOp, StringAttr
from xdsl.ir import Operation, Region, SSAValue
from xdsl.rewriter import Rewriter

from xtvm.dialects import accel, tir
from xtvm.target.accel import AccelTarget, Intrinsic
from xtvm.te.intrinsic_registry import (
    BufferBinding,
    TensorizeError,
    lookup_intrinsic,
    register_intrinsic,
)


class AccelIntrinsic:
    """A tensor intrinsic of an accel target (see the module docs for its calls): what
    tir-tensorize asks of one (`xtvm.passes.tir_tensorize.TensorIntrinsic`)."""

    def __init__(self, target: AccelTarget, intrinsic: Intrinsic) -> None:
        self.name = intrinsic.name
        self.target = target
        self.intrinsic = intrinsic
        self._description: func.FuncOp | None = None

    def __repr__(self) -> str:
        return f"AccelIntrinsic({self.target.name}.{self.name})"

    def description(self) -> func.FuncOp:
        """The tir of the intrinsic's te computation, over its inputs then its outputs."""
        if self._description is None:
            self._description = describe(self.intrinsic.op, f"{self.name}_desc")
        return self._description

    def lowering(self, part: str, bindings: Sequence[BufferBinding]) -> list[Operation] | None:
        function = {
            "body": self.intrinsic.body,
            "reset": self.intrinsic.reset,
            "update": self.intrinsic.update,
        }[part]
        if function is None:
            return None
        scopes = [*self.intrinsic.in_scopes, *self.intrinsic.out_scopes]
        if len(bindings) != len(scopes):
            raise TensorizeError(
                f"intrinsic '{self.name}' binds {len(scopes)} buffers, got {len(bindings)}"
            )
        for position, (binding, scope) in enumerate(zip(bindings, scopes, strict=True)):
            self.check_binding(position, binding, scope)
        count = len(self.intrinsic.in_scopes)
        tiles = [*bindings[count:]] if part == "reset" else [*bindings[count:], *bindings[:count]]
        args: list[SSAValue] = [b.view for b in tiles]
        for binding in tiles:
            args.extend(binding.strides[:-1])
        return [tir.CallExternOp(function, args)]

    def check_binding(self, position: int, binding: BufferBinding, scope: str) -> None:
        typ = binding.view.type
        actual = ""
        if isinstance(typ, MemRefType) and isinstance(typ.memory_space, StringAttr):
            actual = typ.memory_space.data
        what = f"tile {position} of intrinsic '{self.name}'"
        if actual != scope:
            raise TensorizeError(
                f"{what} must be in scratchpad '{scope}' of target @{self.target.name}, the "
                f"nest accesses a buffer in {repr(actual) if actual else 'main memory'} "
                "(cache it there with cache_read/cache_write)"
            )
        if binding.static_strides and binding.static_strides[-1] not in (1, None):
            raise TensorizeError(f"{what} must be contiguous in its innermost dimension")


def describe(op: accel.IntrinOp, name: str) -> func.FuncOp:
    """The tir kernel of `op`'s te computation (convert-te-to-tir of a function returning it)."""
    from xtvm.dialects.registry import shared_context
    from xtvm.passes.convert_te_to_tir import ConvertTeToTirPass

    inputs = [a.type for a in op.inputs]
    outputs = [v.type for v in op.outputs()]
    region = op.semantics.clone()
    last = region.block.last_op
    assert isinstance(last, accel.YieldOp)
    Rewriter.replace_op(last, func.ReturnOp(*last.values))
    function = func.FuncOp(name, FunctionType.from_lists(inputs, outputs), Region())
    region.move_blocks(function.body)
    module = ModuleOp([function])
    ConvertTeToTirPass().apply(shared_context().xdsl_context, module)
    lowered = module.body.block.first_op
    assert isinstance(lowered, func.FuncOp)
    module.body.block.detach_op(lowered)
    return lowered


def register_target_intrinsics(target: AccelTarget) -> None:
    """Register each intrinsic of `target` under its name (replacing an earlier load)."""
    for intrinsic in target.intrinsics.values():
        known = lookup_intrinsic(intrinsic.name)
        if known is not None and not isinstance(known, AccelIntrinsic):
            raise ValueError(
                f"intrinsic '{intrinsic.name}' of target @{target.name} clashes with a "
                "registered tensor intrinsic"
            )
        register_intrinsic(intrinsic.name, AccelIntrinsic(target, intrinsic), override=True)
