"""tir-vector-accumulate: lane reductions accumulate in vectors and are reduced after the loop.

Each case runs the lit file's kernels (and relay.build's dense and pooling kernels) on the tir
interpreter before and after the pass, and compiles the dense kernel to check the result."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from xdsl.dialects import vector

import xtvm as tvm
from xtvm import relay
from xtvm.driver.relay_build import lower_for_build
from xtvm.passes.tir_vector_accumulate import TirVectorAccumulatePass
from xtvm.testing.passes import CTX, assert_same_tir_behaviour, count, lit_cases, run

LIT = Path(__file__).parents[2] / "lit_tests/passes/tir-vector-accumulate.mlir"
LIT_CASES = lit_cases(LIT)


@pytest.mark.parametrize("index", range(3))
def test_lit_kernels_compute_the_same(index: int) -> None:
    before = CTX.parse(LIT_CASES[index])
    after = run(before.clone(), TirVectorAccumulatePass())
    assert_same_tir_behaviour(before, after, rtol=1e-5, atol=1e-5)


def test_unsafe_cases_are_left_alone() -> None:
    module = CTX.parse(LIT_CASES[2])
    text = str(module)
    run(module, TirVectorAccumulatePass())
    assert str(module) == text


def test_the_shadow_respects_max_elements() -> None:
    module = CTX.parse(LIT_CASES[0])
    text = str(module)
    run(module, TirVectorAccumulatePass(max_elements=4))  # 1x2 tile x 4 lanes = 8 > 4
    assert str(module) == text


def dense_module() -> tvm.IRModule:
    x = relay.var("x", shape=(1, 96))
    w = relay.var("w", shape=(40, 96))
    b = relay.var("b", shape=(40,))
    y = relay.nn.relu(relay.nn.bias_add(relay.nn.dense(x, w), b))
    return tvm.IRModule.from_expr(relay.Function([x, w, b], y))


def test_relay_build_dense_reduces_once_per_element() -> None:
    # The pass runs in relay.build: the only lane reductions left are after the k loop, one
    # per element of the register tile, and the compiled dense matches numpy.
    _, kernels = lower_for_build(dense_module())
    reductions = [op for op in kernels.walk() if isinstance(op, vector.ReductionOp)]
    assert reductions and count(kernels, vector.ReductionOp) == len(reductions)
    for op in reductions:
        loop = op.parent_op()
        assert loop is not None and loop.kind.data == "unrolled"  # type: ignore[attr-defined]
    rng = np.random.default_rng(0)
    x = rng.standard_normal((1, 96)).astype(np.float32)
    w = rng.standard_normal((40, 96)).astype(np.float32)
    b = rng.standard_normal(40).astype(np.float32)
    module = relay.build(dense_module(), "llvm")["default"](tvm.cpu())
    module.set_input(x=x, w=w, b=b)
    module.run()
    np.testing.assert_allclose(
        module.get_output(0).numpy(), np.maximum(x @ w.T + b, 0), rtol=1e-4, atol=1e-4
    )
