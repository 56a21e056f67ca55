"""tir → CUDA C: the C walker with CUDA's tables (tinygrad's CUDARenderer).

Kernels are the `tir.kernel` functions of tir-split-host-device (run first when the module
still has thread-bound loops): `extern "C" __global__` with `__launch_bounds__`, each
`tir.thread_index` read from blockIdx/threadIdx, `__shared__` arrays for "shared" buffers
(16-byte aligned, so that nvcc may load neighbouring elements 4 at a time), registers
(local arrays) for "local" ones, `__syncthreads()` before a read of a shared buffer written
since the last barrier, CUDA's math spellings and `half` for f16.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from xdsl.dialects import arith, func
from xdsl.dialects import math as xmath
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation

from xtvm.backends.c.codegen import MATH, CRenderer, FunctionState
from xtvm.backends.cuda.thread_nests import BARRIER, merge_thread_nests
from xtvm.dialects import tir

# cuda_fp16's half functions; other math on half goes through float.
HALF_MATH: dict[type[Operation], str] = {
    xmath.ExpOp: "hexp({0})",
    xmath.Exp2Op: "hexp2({0})",
    xmath.LogOp: "hlog({0})",
    xmath.Log2Op: "hlog2({0})",
    xmath.Log10Op: "hlog10({0})",
    xmath.SqrtOp: "hsqrt({0})",
    xmath.RsqrtOp: "hrsqrt({0})",
    xmath.SinOp: "hsin({0})",
    xmath.CosOp: "hcos({0})",
    xmath.FloorOp: "hfloor({0})",
    xmath.CeilOp: "hceil({0})",
    xmath.TruncOp: "htrunc({0})",
    xmath.RoundEvenOp: "hrint({0})",
    xmath.AbsFOp: "__habs({0})",
    xmath.FmaOp: "__hfma({0}, {1}, {2})",
}


def through_float(template: str) -> str:
    """A float math format applied to half operands, the result converted back."""
    body = template.replace("{s}", "f")
    for position in range(3):
        body = body.replace(f"{{{position}}}", f"(float){{{position}}}")
    return f"((half){body})"


class CUDARenderer(CRenderer):
    """CUDA C: only the tables differ from C."""

    language: ClassVar[str] = "CUDA"
    # C++ has no compound literals to pun through: a memcpy of the bits, which nvcc folds away.
    bit_cast: ClassVar[str | None] = "xtvm_bit_cast<{t}>({0})"
    prelude: ClassVar[tuple[str, ...]] = (
        "#include <cuda_fp16.h>",
        "#include <stdint.h>",
        "template <typename T, typename S> __device__ __forceinline__ T xtvm_bit_cast(S s) {"
        " T t; memcpy(&t, &s, sizeof(T)); return t; }",
    )
    kernel_prefix: ClassVar[str] = 'extern "C" __global__ '
    launch_bounds: ClassVar[str | None] = "__launch_bounds__({0})"
    kernel_attribute: ClassVar[str | None] = "tir.kernel"
    returns_status: ClassVar[bool] = False  # __global__ kernels return void
    restrict: ClassVar[str] = "__restrict__"
    types: ClassVar[dict[str, str]] = {**CRenderer.types, "f16": "half"}
    math_suffix: ClassVar[dict[str, str]] = {"f32": "f", "f64": ""}
    math_overrides: ClassVar[dict[tuple[type[Operation], str], str]] = {
        (xmath.ExpOp, "f32"): "__expf({0})",
        (xmath.LogOp, "f32"): "__logf({0})",
        (xmath.TanhOp, "f32"): "tanhf({0})",
        (xmath.RsqrtOp, "f32"): "rsqrtf({0})",
        (xmath.RsqrtOp, "f64"): "rsqrt({0})",
        **{(op, "f16"): HALF_MATH.get(op, through_float(t)) for op, t in MATH.items()},
        (arith.MaxnumfOp, "f16"): "__hmax({0}, {1})",
        (arith.MinnumfOp, "f16"): "__hmin({0}, {1})",
    }
    float_literal: ClassVar[dict[str, str]] = {"f16": "(({t}){v}f)", "f32": "{v}f", "f64": "{v}"}
    float_specials: ClassVar[dict[str, str]] = {
        "inf": "(({t})__int_as_float(0x7f800000))",
        "-inf": "(({t})__int_as_float(0xff800000))",
        "nan": "(({t})__int_as_float(0x7fc00000))",
    }
    loop_pragmas: ClassVar[dict[str, str]] = {"unrolled": "#pragma unroll"}
    scope_prefix: ClassVar[dict[str, str]] = {"shared": "__shared__ __align__(16) ", "local": ""}
    barrier: ClassVar[str | None] = "__syncthreads();"
    thread_index: ClassVar[str | None] = "((int64_t){0})"
    heap_alloc: ClassVar[str | None] = None

    def synchronize(self, state: FunctionState, op: Operation) -> None:
        """An explicit barrier (merged thread nests) stands for the one the walk would add."""
        if isinstance(op, tir.CallExternOp) and op.callee.data == BARRIER:
            state.unsynced.clear()
            return
        super().synchronize(state, op)

    def extern_prototypes(self, functions: Sequence[func.FuncOp]) -> list[str]:
        prototypes = super().extern_prototypes(functions)
        return [p for p in prototypes if f" {BARRIER}(" not in p]


def split_if_needed(module: ModuleOp) -> ModuleOp:
    """Outline thread-bound loop nests into kernels (tir-split-host-device) where any remain,
    after merging the thread-bound loops inside a block's nest (`thread_nests.py`)."""
    if any(isinstance(op, tir.ForOp) and op.kind.data == "thread_binding" for op in module.walk()):
        from xdsl.context import Context

        from xtvm.passes.tir_split_host_device import TirSplitHostDevicePass

        merge_thread_nests(module)
        TirSplitHostDevicePass().apply(Context(), module)
    return module


def render_cuda(module: ModuleOp) -> str:
    """The CUDA C of the GPU kernels of `module` (thread-bound loops outlined first)."""
    return CUDARenderer().render(split_if_needed(module))
