"""tir-vectorize: vectorized kernels compute the same as their loops (tir interpreter on random
inputs, numpy arrays as vectors), refusals leave correct serial loops with a remark."""

from __future__ import annotations

import warnings
from pathlib import Path

import pytest
from xdsl.dialects import vector
from xdsl.dialects.builtin import ModuleOp

import xtvm as tvm
from xtvm import te
from xtvm.dialects import tir
from xtvm.dialects.registry import default_context
from xtvm.passes.tir_loop_partition import TirLoopPartitionPass
from xtvm.passes.tir_simplify import TirSimplifyPass
from xtvm.passes.tir_vectorize import TirVectorizePass, VectorizeRemark
from xtvm.testing.passes import assert_same_tir_behaviour, count, run

CTX = default_context()
LIT = Path(__file__).resolve().parents[2] / "lit_tests" / "passes" / "tir-vectorize.mlir"


def assert_same_behaviour(before: ModuleOp, after: ModuleOp) -> None:
    assert_same_tir_behaviour(before, after, rtol=1e-5, atol=1e-6)


def vectorized_loops(module: ModuleOp) -> int:
    return sum(isinstance(op, tir.ForOp) and op.kind.data == "vectorized" for op in module.walk())


def pipeline_checked(module: ModuleOp, *passes: object) -> ModuleOp:
    before = module.clone()
    run(module, *passes, TirVectorizePass())  # type: ignore[arg-type]
    assert vectorized_loops(module) == 0
    assert_same_behaviour(before, module)
    return module


def matmul(n: int, m: int, factor: int) -> ModuleOp:
    A = te.placeholder((n, 5), name="A")
    B = te.placeholder((5, m), name="B")
    k = te.reduce_axis((0, 5), name="k")
    C = te.compute((n, m), lambda i, j: te.sum(A[i, k] * B[k, j], axis=k), name="C")
    s = te.create_schedule(C.op)
    jo, ji = s[C].split(C.op.axis[1], factor=factor)
    s[C].reorder(C.op.axis[0], jo, k, ji)
    s[C].vectorize(ji)
    return tvm.lower(s, [A, B, C], name="kernel").xdsl


def elementwise(n: int, factor: int) -> ModuleOp:
    A = te.placeholder((n,), name="A")
    B = te.placeholder((n,), name="B")
    C = te.compute((n,), lambda i: te.exp(A[i]) * B[i] + 1.5, name="C")
    s = te.create_schedule(C.op)
    _o, inner = s[C].split(C.op.axis[0], factor=factor)
    s[C].vectorize(inner)
    return tvm.lower(s, [A, B, C], name="kernel").xdsl


def row_sum(n: int) -> ModuleOp:
    """Vectorizing the reduce axis: lanes accumulate into one element per row."""
    A = te.placeholder((3, n), name="A")
    k = te.reduce_axis((0, n), name="k")
    B = te.compute((3,), lambda i: te.sum(A[i, k], axis=k), name="B")
    s = te.create_schedule(B.op)
    s[B].vectorize(k, reduction=True)  # refused without: TVM refuses it
    return tvm.lower(s, [A, B], name="kernel").xdsl


@pytest.mark.parametrize(("m", "factor"), [(8, 4), (8, 8), (12, 8), (10, 4)])
def test_matmul_inner_axis(m: int, factor: int) -> None:
    module = pipeline_checked(matmul(6, m, factor), TirLoopPartitionPass(), TirSimplifyPass())
    assert count(module, vector.LoadOp) > 0 and count(module, vector.StoreOp) > 0


@pytest.mark.parametrize(("n", "factor"), [(16, 4), (13, 4), (7, 8)])
def test_elementwise_split_partitioned(n: int, factor: int) -> None:
    module = pipeline_checked(elementwise(n, factor), TirLoopPartitionPass())
    assert count(module, vector.StoreOp) > 0


def test_without_partition_the_guarded_loop_stays_serial() -> None:
    """A guard on the lane index is a per-lane branch: refused with a remark, still correct."""
    with pytest.warns(VectorizeRemark, match="arith.cmpi"):
        module = pipeline_checked(elementwise(13, 4))
    assert count(module, vector.StoreOp) == 0


@pytest.mark.parametrize("n", [4, 16])
def test_reduction_into_one_element(n: int) -> None:
    module = pipeline_checked(row_sum(n), TirSimplifyPass())
    assert count(module, vector.ReductionOp) == 1


def test_lit_cases_compute_the_same() -> None:
    """Each lit case vectorizes exactly when it expects no remark, and computes the same."""
    for chunk in LIT.read_text().split("// -----"):
        if "%n: index" in chunk:
            continue  # a run-time extent: random arguments may run out of bounds
        module = CTX.parse(chunk, str(LIT))
        before = module.clone()
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            run(module, TirVectorizePass())
        remarks = [w for w in caught if issubclass(w.category, VectorizeRemark)]
        assert bool(remarks) == ("// REMARK: " in chunk), chunk
        assert_same_behaviour(before, module)


def whole_plane(h: int, w: int, factor: int) -> ModuleOp:
    """A loop over whole rows (rows and columns fused, then split): row-major, contiguous."""
    A = te.placeholder((3, h, w), name="A")
    B = te.compute((3, h, w), lambda c, y, x: A[c, y, x] * 2.0 + A[c, 0, 0], name="B")
    s = te.create_schedule(B.op)
    _c, y, x = B.op.axis
    _o, inner = s[B].split(s[B].fuse(y, x), factor=factor)
    s[B].vectorize(inner)
    return tvm.lower(s, [A, B], name="kernel").xdsl


@pytest.mark.parametrize(("h", "w", "factor"), [(7, 7, 16), (4, 4, 16), (5, 3, 4)])
def test_loop_over_whole_rows_is_one_contiguous_vector(h: int, w: int, factor: int) -> None:
    # The lanes' (row, column) = (i // w, i % w) cross rows, yet address consecutive
    # elements: one vector access from the first lane's element, no gather.
    with warnings.catch_warnings():
        warnings.simplefilter("error", VectorizeRemark)
        module = pipeline_checked(whole_plane(h, w, factor), TirLoopPartitionPass())
    loads = [op for op in module.walk() if isinstance(op, vector.LoadOp)]
    assert {op.result.type.get_shape()[0] for op in loads} <= {factor, h * w % factor}
    assert count(module, vector.StoreOp) >= 1
