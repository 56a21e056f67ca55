"""The CPU conv2d schedule's loop order: which operand its parallel loop walks once."""

from __future__ import annotations

import numpy as np
import pytest

import xtvm as tvm
from xtvm import relay
from xtvm.dialects import tir
from xtvm.driver.relay_build import lower_for_build

RNG = np.random.default_rng(0)


@pytest.mark.parametrize(
    ("size", "channels", "rows_first"),
    [(72, 64, True), (14, 512, False)],  # 1.3 MiB of input, 16 KiB of weights; the reverse
)
def test_nhwc_conv2d_walks_the_larger_operand_once(
    size: int, channels: int, rows_first: bool
) -> None:
    # Rows outside channel blocks when the input outgrows the cache and the weights: each
    # row's input stays in cache while the blocks pass. Otherwise blocks outside rows.
    # (1x1: a stride-1 3x3 conv2d this size would become a winograd one.)
    x = relay.var("x", shape=(1, size, size, channels))
    w = relay.const(RNG.standard_normal((1, 1, channels, 64)).astype("float32"))
    y = relay.nn.conv2d(x, w, data_layout="NHWC", kernel_layout="HWIO")
    mod = tvm.IRModule.from_expr(relay.Function([x], y))
    _, kernels = lower_for_build(mod)
    names = {
        op.induction_variable.name_hint
        for op in kernels.walk()
        if isinstance(op, tir.ForOp) and op.kind.data == "parallel"
    }
    expected = "n_y_fused" if rows_first else "n_f_outer_y_fused"
    assert expected in names
    data = RNG.standard_normal((1, size, size, channels)).astype("float32")
    module = relay.build(mod, "llvm")["default"](tvm.cpu())
    module.set_input(x=data)
    module.run()
    expected = relay.create_executor("debug", mod=mod).evaluate()(data)
    np.testing.assert_allclose(module.get_output(0).numpy(), expected.numpy(), rtol=1e-4, atol=1e-3)
