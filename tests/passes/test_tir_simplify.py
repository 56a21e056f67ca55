"""tir-simplify: kernels lowered from te schedules and the lit cases compute the same before and
after the pass (tir interpreter on random inputs), and the expected simplifications happen."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from xdsl.dialects import arith, scf
from xdsl.dialects.builtin import ModuleOp

import xtvm as tvm
from xtvm import te
from xtvm.dialects import tir
from xtvm.dialects.registry import default_context
from xtvm.passes.tir_simplify import TirSimplifyPass
from xtvm.testing.passes import assert_same_tir_behaviour as assert_same_behaviour
from xtvm.testing.passes import count, run

CTX = default_context()
LIT = Path(__file__).resolve().parents[2] / "lit_tests" / "passes" / "tir-simplify.mlir"


def simplify_checked(module: ModuleOp) -> ModuleOp:
    before = module.clone()
    run(module, TirSimplifyPass())
    assert_same_behaviour(before, module)
    return module


def split_matmul(factor: int, m: int = 17) -> tuple[te.Schedule, list[te.Tensor]]:
    A = te.placeholder((30, 13), name="A")
    B = te.placeholder((13, m), name="B")
    k = te.reduce_axis((0, 13), name="k")
    C = te.compute((30, m), lambda i, j: te.sum(A[i, k] * B[k, j], axis=k), name="C")
    s = te.create_schedule(C.op)
    i, j = C.op.axis
    io, ii = s[C].split(i, factor=factor)
    jo, ji = s[C].split(j, nparts=3)
    s[C].reorder(io, jo, C.op.reduce_axis[0], ii, ji)
    s[C].parallel(io)
    s[C].vectorize(ji)
    return s, [A, B, C]


def fused_tiles() -> tuple[te.Schedule, list[te.Tensor]]:
    A = te.placeholder((9, 10), name="A")
    B = te.compute(A.shape, lambda i, j: A[i, j] * 2.0, name="B")
    C = te.compute(
        A.shape, lambda i, j: te.exp(B[i, j]) + te.if_then_else(i > j, 1.0, -1.0), name="C"
    )
    s = te.create_schedule(C.op)
    s[B].compute_inline()
    xo, yo, _xi, yi = s[C].tile(C.op.axis[0], C.op.axis[1], 3, 5)
    s[C].parallel(s[C].fuse(xo, yo))
    s[C].unroll(yi)
    return s, [A, C]


def thread_bound() -> tuple[te.Schedule, list[te.Tensor]]:
    A = te.placeholder((96,), name="A")
    B = te.compute((96,), lambda i: A[i] * A[i], name="B")
    s = te.create_schedule(B.op)
    fused = B.op.axis[0]
    bx, tx = s[B].split(fused, factor=32)
    s[B].bind(bx, te.thread_axis("blockIdx.x"))
    s[B].bind(tx, te.thread_axis("threadIdx.x"))
    return s, [A, B]


def conditional_reduction() -> tuple[te.Schedule, list[te.Tensor]]:
    A = te.placeholder((4, 6), name="A")
    k = te.reduce_axis((0, 6), name="k")
    B = te.compute((4,), lambda i: te.max(A[i, k], axis=k, where=k < 4), name="B")
    s = te.create_schedule(B.op)
    s[B].split(k, factor=4)
    return s, [A, B]


def integer_index_arithmetic() -> tuple[te.Schedule, list[te.Tensor]]:
    A = te.placeholder((12,), dtype="int32", name="A")
    B = te.compute((12,), lambda i: A[i] // 3 + A[i] % 5 + (i - 6) // 4, name="B")
    s = te.create_schedule(B.op)
    s[B].split(B.op.axis[0], factor=5)
    return s, [A, B]


def fused_transpose() -> tuple[te.Schedule, list[te.Tensor]]:
    A = te.placeholder((4, 6, 8), name="A")
    B = te.compute((8, 6, 4), lambda i, j, k: A[k, j, i], name="B")
    s = te.create_schedule(B.op)
    fused = s[B].fuse(*B.op.axis)
    s[B].split(fused, factor=4)
    return s, [A, B]


def register_tile() -> tuple[te.Schedule, list[te.Tensor]]:
    """A row sum accumulated in a "local" tile of 4 computed at the outer loop."""
    A = te.placeholder((8, 4), name="A")
    k = te.reduce_axis((0, 4), name="k")
    C = te.compute((8,), lambda i: te.sum(A[i, k], axis=k), name="C")
    s = te.create_schedule(C.op)
    CC = s.cache_write(C, "local")
    outer, inner = s[C].split(C.op.axis[0], factor=4)
    s[CC].compute_at(s[C], outer)
    s[C].unroll(inner)
    return s, [A, C]


SCHEDULES: dict[str, Callable[[], tuple[te.Schedule, list[te.Tensor]]]] = {
    "register_tile": register_tile,
    "matmul_split_overshoots": lambda: split_matmul(7),
    "matmul_split_divides": lambda: split_matmul(5, 18),
    "fused_tiles": fused_tiles,
    "thread_bound": thread_bound,
    "conditional_reduction": conditional_reduction,
    "integer_index_arithmetic": integer_index_arithmetic,
    "fused_transpose": fused_transpose,
}


def lowered(name: str) -> ModuleOp:
    s, args = SCHEDULES[name]()
    return tvm.lower(s, args, name="kernel").xdsl


@pytest.mark.parametrize("name", sorted(SCHEDULES))
def test_te_kernels_compute_the_same(name: str) -> None:
    simplify_checked(lowered(name))


def test_lit_cases_compute_the_same() -> None:
    for chunk in LIT.read_text().split("// -----"):
        simplify_checked(CTX.parse(chunk, str(LIT)))


def test_dividing_split_loses_its_guard_and_overshooting_keeps_it() -> None:
    assert count(simplify_checked(lowered("matmul_split_divides")), scf.IfOp) == 0
    assert count(simplify_checked(lowered("matmul_split_overshoots")), scf.IfOp) > 0


def test_fused_index_arithmetic_disappears() -> None:
    """fuse(i, j, k) split by k's extent: k is the inner loop, (i, j) come from the outer."""
    module = simplify_checked(lowered("fused_transpose"))
    divisions = count(module, arith.DivUIOp) + count(module, arith.RemUIOp)
    assert divisions == 2  # outer / 6 and outer % 6 remain; the inner index is the loop variable


def test_tile_index_less_its_start_is_the_loop_index() -> None:
    """C reads its tile at `(outer * 4 + inner) - outer * 4`: like terms collected, `inner`,
    a constant once the loop is unrolled (a register, not a local-memory array, in CUDA)."""
    before = lowered("register_tile")
    assert count(before, arith.SubiOp) > 0
    assert count(simplify_checked(before), arith.SubiOp) == 0


def test_second_run_changes_nothing() -> None:
    module = simplify_checked(lowered("fused_tiles"))
    text = str(module)
    run(module, TirSimplifyPass())
    assert str(module) == text


def test_loop_invariant_code_leaves_the_loops() -> None:
    module = simplify_checked(lowered("matmul_split_overshoots"))
    for loop in module.walk():
        if isinstance(loop, tir.ForOp) and loop.kind.data != "thread_binding":
            for op in loop.body.block.ops:
                assert not isinstance(op, arith.ConstantOp), "constants are hoisted"
