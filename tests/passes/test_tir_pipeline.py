"""The tir passes in the order a build runs them compute what the te schedule means: kernels
lowered from te and run through simplify, loop partition, vectorize, unroll, intrinsic
lowering, storage flattening (and host/device splitting for GPU schedules) agree with the
unoptimized kernel on random inputs."""

from __future__ import annotations

import numpy as np
import pytest
from xdsl.dialects import func, vector
from xdsl.dialects.builtin import ModuleOp, VectorType
from xdsl.ir import Block, Operation
from xdsl.passes import ModulePass

import xtvm as tvm
from xtvm import te
from xtvm.dialects import tir
from xtvm.passes.tir_loop_partition import TirLoopPartitionPass
from xtvm.passes.tir_lower_intrinsics import TirLowerIntrinsicsPass
from xtvm.passes.tir_simplify import TirSimplifyPass
from xtvm.passes.tir_split_host_device import TirSplitHostDevicePass
from xtvm.passes.tir_storage_flatten import TirStorageFlattenPass
from xtvm.passes.tir_unroll import TirUnrollPass
from xtvm.passes.tir_vectorize import TirVectorizePass
from xtvm.runtime.tir_interpreter import compile_module, random_arguments
from xtvm.testing.passes import count, run

CPU = (
    TirSimplifyPass(),
    TirLoopPartitionPass(),
    TirVectorizePass(),
    TirUnrollPass(max_extent=4),
    TirLowerIntrinsicsPass(),
    TirStorageFlattenPass(),
    TirSimplifyPass(),
)
GPU = (
    TirSimplifyPass(),
    TirLoopPartitionPass(),
    TirLowerIntrinsicsPass(),
    TirStorageFlattenPass(),
    TirSplitHostDevicePass(),
    TirSimplifyPass(),
)


def assert_dominance(module: ModuleOp, after: str) -> None:
    """Every operand is defined before its use, in the use's block or one around it.

    xDSL's verifier does not check this; passes that move or create ops can break it.
    """
    for op in module.walk():
        for value in op.operands:
            owner = value.owner
            if isinstance(owner, Block):
                assert owner.is_ancestor(op), f"{op.name} uses an argument out of scope, {after}"
                continue
            assert isinstance(owner, Operation)
            user: Operation | None = op
            while user is not None and user.parent_block() is not owner.parent_block():
                user = user.parent_op()
            block = owner.parent_block()
            assert user is not None and block is not None, f"{op.name} out of scope, {after}"
            order = {id(o): i for i, o in enumerate(block.ops)}
            assert order[id(owner)] < order[id(user)], f"{op.name} before its operand, {after}"


def assert_pipeline_preserves(module: ModuleOp, passes: tuple[ModulePass, ...]) -> ModuleOp:
    before = module.clone()
    for p in passes:
        run(module, p)
        assert_dominance(module, f"after {p.name}")
    rng = np.random.default_rng(0)
    reference, result = compile_module(before), compile_module(module)
    (kernel,) = [f for f in before.ops if isinstance(f, func.FuncOp)]
    expected = random_arguments(kernel, rng)
    actual = [a.copy() for a in expected]
    reference("kernel", *expected)
    result("kernel", *[a.reshape(-1) for a in actual])  # buffers are flat after the pipeline
    for e, a in zip(expected, actual, strict=True):
        np.testing.assert_allclose(a, e, rtol=1e-5, atol=1e-6)
    return module


def conv_like(n: int, factor: int) -> tuple[te.Schedule, list[te.Tensor]]:
    """A 1-d convolution with a bias and tanh; the output axis split and vectorized."""
    A = te.placeholder((n + 2,), name="A")
    W = te.placeholder((3,), name="W")
    r = te.reduce_axis((0, 3), name="r")
    C = te.compute((n,), lambda i: te.sum(A[i + r] * W[r], axis=r), name="C")
    D = te.compute((n,), lambda i: te.tanh(C[i]) + 1.0, name="D")
    s = te.create_schedule(D.op)
    _o, inner = s[D].split(D.op.axis[0], factor=factor)
    s[D].vectorize(inner)
    s[C].unroll(C.op.reduce_axis[0])
    return s, [A, W, D]


def tiled_matmul(n: int, m: int) -> tuple[te.Schedule, list[te.Tensor]]:
    A = te.placeholder((n, 6), name="A")
    B = te.placeholder((6, m), name="B")
    k = te.reduce_axis((0, 6), name="k")
    C = te.compute((n, m), lambda i, j: te.sum(A[i, k] * B[k, j], axis=k), name="C")
    s = te.create_schedule(C.op)
    io, jo, ii, ji = s[C].tile(C.op.axis[0], C.op.axis[1], 3, 4)
    s[C].reorder(io, jo, k, ii, ji)
    s[C].parallel(io)
    s[C].unroll(ii)
    s[C].vectorize(ji)
    return s, [A, B, C]


def gpu_softmax_row(rows: int, cols: int) -> tuple[te.Schedule, list[te.Tensor]]:
    A = te.placeholder((rows, cols), name="A")
    k = te.reduce_axis((0, cols), name="k")
    M = te.compute((rows,), lambda i: te.max(A[i, k], axis=k), name="M")
    E = te.compute((rows, cols), lambda i, j: te.exp(A[i, j] - M[i]), name="E")
    s = te.create_schedule(E.op)
    fused = s[E].fuse(*E.op.axis)
    bx, tx = s[E].split(fused, factor=16)
    s[E].bind(bx, te.thread_axis("blockIdx.x"))
    s[E].bind(tx, te.thread_axis("threadIdx.x"))
    return s, [A, E]


@pytest.mark.parametrize(("n", "factor"), [(16, 4), (10, 4), (9, 8)])
def test_cpu_pipeline_conv_like(n: int, factor: int) -> None:
    module = assert_pipeline_preserves(tvm.lower(*conv_like(n, factor), name="kernel").xdsl, CPU)
    assert count(module, vector.StoreOp) > 0
    # tanh is a libm call where scalar, a vector math op (for the backend) where vectorized.
    math_ops = [op for op in module.walk() if op.dialect_name() == "math"]
    assert all(isinstance(op.results[0].type, VectorType) for op in math_ops)


@pytest.mark.parametrize(("n", "m"), [(6, 8), (7, 10)])
def test_cpu_pipeline_tiled_matmul(n: int, m: int) -> None:
    module = assert_pipeline_preserves(tvm.lower(*tiled_matmul(n, m), name="kernel").xdsl, CPU)
    assert count(module, vector.LoadOp) > 0


def test_gpu_pipeline() -> None:
    module = assert_pipeline_preserves(tvm.lower(*gpu_softmax_row(5, 7), name="kernel").xdsl, GPU)
    assert count(module, tir.LaunchOp) == 1


class _DropReturns(ModulePass):
    """Leaves every function without its terminator (an invalid module)."""

    name = "test-drop-returns"

    def apply(self, ctx: object, op: ModuleOp) -> None:
        for ret in [o for o in op.walk() if isinstance(o, func.ReturnOp)]:
            ret.detach()
            ret.erase()


class _AddReturns(ModulePass):
    """Puts the terminators back (a later pass repairing what an earlier one broke)."""

    name = "test-add-returns"

    def apply(self, ctx: object, op: ModuleOp) -> None:
        for function in [o for o in op.walk() if isinstance(o, func.FuncOp)]:
            function.body.block.add_op(func.ReturnOp())


@pytest.mark.parametrize("each", ["0", "1"])
def test_run_passes_verifies_after_each_pass_or_at_the_end(
    each: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`run_passes` verifies the module after its last pass, and after every pass with
    XTVM_VERIFY_EACH_PASS (as the suite runs): a pass breaking the IR is caught at once, even
    if a later one repairs it; without the flag only a module left invalid fails."""
    from xdsl.utils.exceptions import VerifyException

    from xtvm.driver.relay_graph import run_passes

    monkeypatch.setenv("XTVM_VERIFY_EACH_PASS", each)

    def module() -> ModuleOp:
        return ModuleOp([func.FuncOp("f", ((), ()), None)])

    m = module()
    m.ops.first.body.block.add_op(func.ReturnOp())  # type: ignore[union-attr]
    with pytest.raises(VerifyException):
        run_passes(m, [_DropReturns()])
    m = module()
    m.ops.first.body.block.add_op(func.ReturnOp())  # type: ignore[union-attr]
    if each == "1":
        with pytest.raises(VerifyException):
            run_passes(m, [_DropReturns(), _AddReturns()])
    else:
        run_passes(m, [_DropReturns(), _AddReturns()])
