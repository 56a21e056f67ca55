"""tir-loop-partition: kernels with non-dividing splits compute the same after partitioning (tir
interpreter on random inputs), and their main loop nest is branch-free."""

from __future__ import annotations

from pathlib import Path

import pytest
from xdsl.dialects import func, scf
from xdsl.dialects.builtin import ModuleOp

import xtvm as tvm
from xtvm import te
from xtvm.dialects import tir
from xtvm.dialects.registry import default_context
from xtvm.passes.tir_loop_partition import TirLoopPartitionPass
from xtvm.passes.tir_simplify import TirSimplifyPass
from xtvm.testing.passes import assert_same_tir_behaviour as assert_same_behaviour
from xtvm.testing.passes import count, run

CTX = default_context()
LIT = Path(__file__).resolve().parents[2] / "lit_tests" / "passes" / "tir-loop-partition.mlir"


def partition_checked(module: ModuleOp) -> ModuleOp:
    before = module.clone()
    run(module, TirLoopPartitionPass())
    assert_same_behaviour(before, module)
    return module


def matmul(n: int, m: int, factor: int, parts: int) -> ModuleOp:
    A = te.placeholder((n, 7), name="A")
    B = te.placeholder((7, m), name="B")
    k = te.reduce_axis((0, 7), name="k")
    C = te.compute((n, m), lambda i, j: te.sum(A[i, k] * B[k, j], axis=k), name="C")
    s = te.create_schedule(C.op)
    io, ii = s[C].split(C.op.axis[0], factor=factor)
    jo, ji = s[C].split(C.op.axis[1], nparts=parts)
    s[C].reorder(io, jo, k, ii, ji)
    s[C].parallel(io)
    s[C].vectorize(ji)
    return tvm.lower(s, [A, B, C], name="kernel").xdsl


def fused_split(n: int, factor: int) -> ModuleOp:
    A = te.placeholder((n, 3), name="A")
    B = te.compute((n, 3), lambda i, j: te.exp(A[i, j]) * 2.0, name="B")
    s = te.create_schedule(B.op)
    fused = s[B].fuse(*B.op.axis)
    s[B].split(fused, factor=factor)
    return tvm.lower(s, [A, B], name="kernel").xdsl


def first_loop_nest(module: ModuleOp) -> tir.ForOp:
    kernel = next(op for op in module.walk() if isinstance(op, func.FuncOp))
    return next(op for op in kernel.body.block.ops if isinstance(op, tir.ForOp))


@pytest.mark.parametrize(
    ("n", "m", "factor", "parts"), [(30, 17, 7, 3), (10, 9, 4, 2), (9, 11, 2, 4), (8, 8, 4, 2)]
)
def test_split_matmul_main_nest_is_branch_free(n: int, m: int, factor: int, parts: int) -> None:
    module = partition_checked(matmul(n, m, factor, parts))
    main = first_loop_nest(module)
    assert count(main, scf.IfOp) == 0  # type: ignore[arg-type]


@pytest.mark.parametrize(("n", "factor"), [(5, 4), (7, 8), (11, 6)])
def test_fused_then_split(n: int, factor: int) -> None:
    partition_checked(fused_split(n, factor))


def test_all_guards_of_split_kernels_go() -> None:
    """Every guard of these splits is linear in some loop: none is left after the pass."""
    module = partition_checked(matmul(10, 9, 4, 2))
    run(module, TirSimplifyPass())
    assert count(module, scf.IfOp) == 0


def test_lit_cases_compute_the_same() -> None:
    for chunk in LIT.read_text().split("// -----"):
        partition_checked(CTX.parse(chunk, str(LIT)))


def test_nothing_to_do_leaves_the_module_alone() -> None:
    module = matmul(8, 8, 4, 2)
    text = str(module)
    run(module, TirLoopPartitionPass())
    assert str(module) == text
