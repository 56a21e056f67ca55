"""tir-unroll: unrolled kernels compute the same (tir interpreter on random inputs), unrolled
loops are gone, and max-extent picks the serial loops to unroll."""

from __future__ import annotations

from pathlib import Path

import pytest
from xdsl.dialects.builtin import ModuleOp

import xtvm as tvm
from xtvm import te
from xtvm.dialects import tir
from xtvm.dialects.registry import default_context
from xtvm.passes.tir_simplify import TirSimplifyPass
from xtvm.passes.tir_unroll import TirUnrollPass
from xtvm.testing.passes import assert_same_tir_behaviour as assert_same_behaviour
from xtvm.testing.passes import count, run

CTX = default_context()
LIT = Path(__file__).resolve().parents[2] / "lit_tests" / "passes" / "tir-unroll.mlir"


def loop_kinds(module: ModuleOp) -> list[str]:
    return [op.kind.data for op in module.walk() if isinstance(op, tir.ForOp)]


def unrolled_matmul(factor: int) -> ModuleOp:
    A = te.placeholder((9, 6), name="A")
    B = te.placeholder((6, 5), name="B")
    k = te.reduce_axis((0, 6), name="k")
    C = te.compute((9, 5), lambda i, j: te.sum(A[i, k] * B[k, j], axis=k), name="C")
    s = te.create_schedule(C.op)
    _ko, ki = s[C].split(k, factor=factor)
    _io, ii = s[C].split(C.op.axis[0], factor=4)
    s[C].unroll(ki)
    s[C].unroll(ii)
    return tvm.lower(s, [A, B, C], name="kernel").xdsl


@pytest.mark.parametrize("factor", [2, 4])
def test_te_kernel_unrolled_computes_the_same(factor: int) -> None:
    module = unrolled_matmul(factor)
    before = module.clone()
    run(module, TirUnrollPass())
    assert "unrolled" not in loop_kinds(module)
    assert_same_behaviour(before, module)


@pytest.mark.parametrize("max_extent", [0, 3, 5, 100])
def test_max_extent_unrolls_short_serial_loops(max_extent: int) -> None:
    module = unrolled_matmul(3)
    extents = sorted(
        {
            op.upper_bound.owner.value.value.data  # type: ignore[union-attr]
            for op in module.walk()
            if isinstance(op, tir.ForOp) and op.kind.data == "serial"
        }
    )
    before = module.clone()
    run(module, TirUnrollPass(max_extent=max_extent))
    expected = sum(1 for e in extents if e > max_extent)
    assert len(set(loop_kinds(module))) <= 1 and "unrolled" not in loop_kinds(module)
    assert (count(module, tir.ForOp) > 0) == (expected > 0)
    assert_same_behaviour(before, module)


def test_unroll_then_simplify_gives_constant_indices() -> None:
    module = unrolled_matmul(2)
    before = module.clone()
    run(module, TirUnrollPass(max_extent=100), TirSimplifyPass())
    assert count(module, tir.ForOp) == 0
    assert_same_behaviour(before, module)


def test_lit_cases_compute_the_same() -> None:
    for chunk in LIT.read_text().split("// -----"):
        module = CTX.parse(chunk, str(LIT))
        before = module.clone()
        run(module, TirUnrollPass(max_extent=3))
        assert_same_behaviour(before, module)
