"""tir-split-host-device: kernels bound to GPU axes compute the same once outlined (the tir
interpreter runs tir.launch over the grid), launches carry the loop extents, and nests that
cannot be outlined are located errors."""

from __future__ import annotations

from pathlib import Path

import pytest
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp

import xtvm as tvm
from xtvm import te
from xtvm.dialects import tir
from xtvm.dialects.registry import default_context
from xtvm.ir.diagnostics import DiagnosticError
from xtvm.passes.tir_loop_partition import TirLoopPartitionPass
from xtvm.passes.tir_simplify import TirSimplifyPass
from xtvm.passes.tir_split_host_device import TirSplitHostDevicePass
from xtvm.testing.passes import assert_same_tir_behaviour as assert_same_behaviour
from xtvm.testing.passes import count, run

CTX = default_context()
LIT = Path(__file__).resolve().parents[2] / "lit_tests" / "passes" / "tir-split-host-device.mlir"


def split_checked(module: ModuleOp, *passes: object) -> ModuleOp:
    before = module.clone()
    run(module, *passes, TirSplitHostDevicePass())  # type: ignore[arg-type]
    assert not any(isinstance(op, tir.ForOp) and op.thread for op in module.walk())
    assert_same_behaviour(before, module)
    return module


def kernels(module: ModuleOp) -> list[func.FuncOp]:
    return [f for f in module.ops if isinstance(f, func.FuncOp) and "tir.kernel" in f.attributes]


def bound_elementwise(n: int, factor: int) -> ModuleOp:
    A = te.placeholder((n,), name="A")
    B = te.compute((n,), lambda i: te.exp(A[i]) + A[i], name="B")
    s = te.create_schedule(B.op)
    bx, tx = s[B].split(B.op.axis[0], factor=factor)
    s[B].bind(bx, te.thread_axis("blockIdx.x"))
    s[B].bind(tx, te.thread_axis("threadIdx.x"))
    return tvm.lower(s, [A, B], name="main").xdsl


def bound_matmul() -> ModuleOp:
    """2-d blocks of 2-d threads, the reduction serial inside each thread."""
    A = te.placeholder((12, 5), name="A")
    B = te.placeholder((5, 10), name="B")
    k = te.reduce_axis((0, 5), name="k")
    C = te.compute((12, 10), lambda i, j: te.sum(A[i, k] * B[k, j], axis=k), name="C")
    s = te.create_schedule(C.op)
    i, j = C.op.axis
    by, ty = s[C].split(i, factor=4)
    bx, tx = s[C].split(j, factor=5)
    s[C].reorder(by, bx, ty, tx)
    for axis, tag in ((by, "blockIdx.y"), (bx, "blockIdx.x"), (ty, "threadIdx.y")):
        s[C].bind(axis, te.thread_axis(tag))
    s[C].bind(tx, te.thread_axis("threadIdx.x"))
    return tvm.lower(s, [A, B, C], name="main").xdsl


@pytest.mark.parametrize(("n", "factor"), [(96, 32), (100, 32), (7, 4)])
def test_bound_elementwise(n: int, factor: int) -> None:
    module = split_checked(bound_elementwise(n, factor))
    (kernel,) = kernels(module)
    blocks = kernel.attributes["tir.kernel"].data["blocks"]  # type: ignore[attr-defined]
    assert blocks.get_values() == ((n + factor - 1) // factor, 1, 1)
    assert count(module, tir.LaunchOp) == 1


def test_bound_matmul() -> None:
    module = split_checked(bound_matmul())
    (kernel,) = kernels(module)
    threads = kernel.attributes["tir.kernel"].data["threads"]  # type: ignore[attr-defined]
    assert threads.get_values() == (5, 4, 1)


def test_after_simplify_and_partition() -> None:
    """The pipeline order of a GPU build: simplify and partition first, then outline."""
    split_checked(bound_elementwise(100, 32), TirSimplifyPass(), TirLoopPartitionPass())


def test_lit_cases_compute_the_same() -> None:
    for chunk in LIT.read_text().split("// -----"):
        split_checked(CTX.parse(chunk, str(LIT)))


def test_nothing_to_outline_leaves_the_module_alone() -> None:
    A = te.placeholder((8,), name="A")
    B = te.compute((8,), lambda i: A[i] * 2.0, name="B")
    module = tvm.lower(te.create_schedule(B.op), [A, B], name="main").xdsl
    text = str(module)
    run(module, TirSplitHostDevicePass())
    assert str(module) == text


def test_side_effect_between_thread_loops_is_a_located_error() -> None:
    module = CTX.parse(
        """
func.func @f(%A: memref<8xf32>, %x: f32) {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  tir.for %bx = %c0 to %c2 thread_binding "blockIdx.x" {
    memref.store %x, %A[%bx] : memref<8xf32>
    tir.for %tx = %c0 to %c2 thread_binding "threadIdx.x" {
      memref.store %x, %A[%tx] : memref<8xf32>
    }
  }
  func.return
}
""",
        "between.mlir",
    )
    with pytest.raises(DiagnosticError, match="once per thread"):
        TirSplitHostDevicePass().apply(CTX.xdsl_context, module)
