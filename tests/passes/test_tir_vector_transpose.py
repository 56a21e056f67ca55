"""tir-vector-transpose: gathered N x N blocks become row loads and a register transpose.

The lit file's kernels run on the tir interpreter before and after the pass; relay.build's
transposing copies (layout_transform both ways, transpose, with sizes that do and do not split
into 8x8 squares) compile and match numpy."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from xdsl.dialects import vector

import xtvm as tvm
from xtvm import relay
from xtvm.driver.relay_build import lower_for_build
from xtvm.passes.tir_vector_transpose import TirVectorTransposePass
from xtvm.testing.passes import CTX, assert_same_tir_behaviour, count, lit_cases, run

LIT = Path(__file__).parents[2] / "lit_tests/passes/tir-vector-transpose.mlir"
LIT_CASES = lit_cases(LIT)


@pytest.mark.parametrize("index", range(2))
def test_lit_kernels_compute_the_same(index: int) -> None:
    before = CTX.parse(LIT_CASES[index])
    after = run(before.clone(), TirVectorTransposePass())
    assert count(after, vector.TransferReadOp) == 0
    assert count(after, vector.ShuffleOp) > 0
    assert_same_tir_behaviour(before, after)


@pytest.mark.parametrize("index", range(2, 4))
def test_other_loops_are_left_alone(index: int) -> None:
    module = CTX.parse(LIT_CASES[index])
    text = str(module)
    run(module, TirVectorTransposePass())
    assert str(module) == text


def transposing(shape: tuple[int, ...], make: object) -> tvm.IRModule:
    x = relay.var("x", shape=shape)
    return tvm.IRModule.from_expr(relay.Function([x], make(x)))  # type: ignore[operator]


CASES = {
    "nchw_to_nhwc": ((1, 64, 56, 56), lambda x: relay.layout_transform(x, "NCHW", "NHWC"), True),
    "nhwc_to_nchw": ((1, 24, 40, 16), lambda x: relay.layout_transform(x, "NHWC", "NCHW"), True),
    "transpose_2d": ((32, 16), lambda x: relay.transpose(x, (1, 0)), True),
    "transpose_then_relu": (
        (2, 16, 8, 3),
        lambda x: relay.nn.relu(relay.transpose(x, (0, 3, 2, 1))),
        False,  # the copy's innermost axis reads a 3-long axis: no square
    ),
    "odd_sizes": ((1, 13, 7, 9), lambda x: relay.layout_transform(x, "NCHW", "NHWC"), False),
}


@pytest.mark.parametrize("name", CASES)
def test_relay_build_transposes_in_registers(name: str) -> None:
    shape, make, squares = CASES[name]
    _, kernels = lower_for_build(transposing(shape, make))
    assert (count(kernels, vector.ShuffleOp) > 0) == squares
    if squares:
        assert count(kernels, vector.TransferReadOp) == 0
    rng = np.random.default_rng(0)
    x = rng.standard_normal(shape).astype(np.float32)
    module = relay.build(transposing(shape, make), "llvm")["default"](tvm.cpu())
    module.set_input(x=x)
    module.run()
    expected = relay.create_executor(
        "debug", mod=transposing(shape, make), target="llvm"
    ).evaluate()(x)
    np.testing.assert_array_equal(module.get_output(0).numpy(), expected.numpy())
