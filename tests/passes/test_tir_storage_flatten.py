"""tir-storage-flatten: kernels compute the same on flattened buffers (tir interpreter on random
inputs, the flat buffers being views of the original arrays), and no multi-dimensional buffer is
left."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest
from xdsl.dialects import func
from xdsl.dialects.builtin import MemRefType, ModuleOp

import xtvm as tvm
from xtvm import te
from xtvm.dialects.registry import default_context
from xtvm.ir.diagnostics import DiagnosticError
from xtvm.passes.tir_simplify import TirSimplifyPass
from xtvm.passes.tir_storage_flatten import TirStorageFlattenPass
from xtvm.runtime.tir_interpreter import compile_module, random_arguments
from xtvm.testing.passes import run

CTX = default_context()
LIT = Path(__file__).resolve().parents[2] / "lit_tests" / "passes" / "tir-storage-flatten.mlir"


def assert_same_on_flat_buffers(before: ModuleOp, after: ModuleOp, seed: int = 0) -> None:
    """Each function of `before` and its flattened form write the same values."""
    rng = np.random.default_rng(seed)
    reference, result = compile_module(before), compile_module(after)
    for function in before.walk():
        if not isinstance(function, func.FuncOp) or not function.body.blocks:
            continue
        name = function.sym_name.data
        expected = random_arguments(function, rng)
        actual = [a.copy() if isinstance(a, np.ndarray) else a for a in expected]
        reference(name, *expected)
        result(name, *[a.reshape(-1) if isinstance(a, np.ndarray) else a for a in actual])
        for e, a in zip(expected, actual, strict=True):
            np.testing.assert_array_equal(a, e, err_msg=f"@{name}")


def flatten_checked(module: ModuleOp) -> ModuleOp:
    before = module.clone()
    run(module, TirStorageFlattenPass())
    assert_same_on_flat_buffers(before, module)
    for op in module.walk():
        for value in (*op.results, *(a for r in op.regions for b in r.blocks for a in b.args)):
            if isinstance(value.type, MemRefType):
                assert value.type.get_num_dims() == 1, f"{op.name} keeps {value.type}"
    return module


def tiled_matmul() -> ModuleOp:
    A = te.placeholder((10, 7), name="A")
    B = te.placeholder((7, 9), name="B")
    k = te.reduce_axis((0, 7), name="k")
    C = te.compute((10, 9), lambda i, j: te.sum(A[i, k] * B[k, j], axis=k), name="C")
    s = te.create_schedule(C.op)
    s[C].tile(C.op.axis[0], C.op.axis[1], 4, 4)
    return tvm.lower(s, [A, B, C], name="kernel").xdsl


def staged_3d() -> ModuleOp:
    A = te.placeholder((2, 3, 4), name="A")
    B = te.compute((2, 3, 4), lambda i, j, k: A[i, j, k] + 1.0, name="B")
    r = te.reduce_axis((0, 4), name="r")
    C = te.compute((2, 3), lambda i, j: te.sum(B[i, j, r], axis=r), name="C")
    s = te.create_schedule(C.op)
    return tvm.lower(s, [A, C], name="kernel").xdsl  # B gets an intermediate buffer


@pytest.mark.parametrize("build", [tiled_matmul, staged_3d])
def test_te_kernels_compute_the_same(build: Callable[[], ModuleOp]) -> None:
    flatten_checked(build())


def test_after_simplify_too() -> None:
    module = run(tiled_matmul(), TirSimplifyPass())
    flatten_checked(module)


def test_lit_cases_compute_the_same() -> None:
    for chunk in LIT.read_text().split("// -----")[:3]:  # the last one calls an external
        flatten_checked(CTX.parse(chunk, str(LIT)))


def test_dynamic_shape_is_a_located_error() -> None:
    module = CTX.parse(
        """
func.func @f(%A: memref<?x4xf32>, %i: index) {
  %x = memref.load %A[%i, %i] : memref<?x4xf32>
  func.return
}
""",
        "dynamic.mlir",
    )
    with pytest.raises(DiagnosticError, match="dynamic shape"):
        TirStorageFlattenPass().apply(CTX.xdsl_context, module)
