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


# ---------------------------------------------------------------------------------------------
# A concatenate's chain of branches: each segment keeps only the branch it takes


def concatenate_kernels(inputs: int) -> ModuleOp:
    """The kernel of a concatenate of `inputs` rows (an LSTM's outputs), as tir: a loop over
    the rows holding a chain of `inputs` scf.if branches, before loop partitioning."""
    from xtvm import relay
    from xtvm.driver.relay_build import lower_to_te
    from xtvm.driver.relay_graph import split_kernels
    from xtvm.passes.convert_te_to_tir import ConvertTeToTirPass

    xs = [relay.var(f"x{i}", shape=(1, 1, 16)) for i in range(inputs)]
    y = relay.transpose(relay.concatenate(xs, axis=0), [1, 0, 2])
    mod = tvm.IRModule.from_expr(relay.Function(xs, y))
    _, kernels = split_kernels(lower_to_te(mod, {}))
    run(kernels, ConvertTeToTirPass(), TirSimplifyPass())
    return kernels


def test_concatenate_chain_cut_clones_little(monkeypatch: pytest.MonkeyPatch) -> None:
    """Cutting a chain of 32 branches clones a few times the kernel's ops, not the rest of
    the chain at every cut (6851 ops cloned for a kernel of 228: about n/2 times), and the
    cut kernel computes the concatenation."""
    from xdsl.ir import Operation

    clone = Operation.clone
    cloned = [0]

    def counted(self: Operation, *args: object, **kwargs: object) -> Operation:
        cloned[0] += 1
        return clone(self, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(Operation, "clone", counted)
    kernels = concatenate_kernels(32)
    size = sum(1 for _ in kernels.walk())
    cloned[0] = 0
    run(kernels, TirLoopPartitionPass())
    assert count(kernels, scf.IfOp) == 0
    assert cloned[0] < 6 * size, (cloned[0], size)
    monkeypatch.undo()

    import numpy as np

    from xtvm import relay
    from xtvm.testing.relay import run_factory

    xs = [relay.var(f"x{i}", shape=(1, 1, 16)) for i in range(24)]
    y = relay.transpose(relay.concatenate(xs, axis=0), [1, 0, 2])
    mod = tvm.IRModule.from_expr(relay.Function(xs, y))
    values = {f"x{i}": np.full((1, 1, 16), i, np.float32) for i in range(24)}
    (got,) = run_factory(relay.build(mod, "llvm"), **values)
    np.testing.assert_array_equal(got, np.concatenate(list(values.values())).transpose(1, 0, 2))
