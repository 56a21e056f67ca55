"""relay-split-to-slices: a split whose parts only injective ops read becomes slices that fuse
into those readers (GPT-2's Q/K/V heads: no split kernel, the same bits), and a split with a
part read by anything else stays."""

from __future__ import annotations

import numpy as np

import xtvm as tvm
from xtvm import relay as tvm_relay
from xtvm.dialects import relay
from xtvm.driver.relay_build import lower_for_build
from xtvm.passes.relay_split_to_slices import RelaySplitToSlicesPass
from xtvm.testing.passes import count, run
from xtvm.testing.relay import interpret, run_factory

RNG = np.random.default_rng(0)


def attention_heads(heads: int = 4, rows: int = 8, size: int = 16) -> tvm.IRModule:
    """GPT-2's split of the Q/K/V product into three parts, each reshaped into heads (K's
    transposed and scaled), and the scores of Q by K."""
    x = tvm_relay.var("x", shape=(1, rows, 3 * heads * size))
    q, k, v = (tvm_relay.TupleGetItem(tvm_relay.split(x, 3, axis=2).astuple(), i) for i in range(3))
    shape = (1, rows, heads, size)
    q = tvm_relay.reshape(
        tvm_relay.transpose(tvm_relay.reshape(q, shape), (0, 2, 1, 3)), (heads, rows, size)
    )
    k = tvm_relay.reshape(
        tvm_relay.transpose(tvm_relay.reshape(k, shape), (0, 2, 3, 1)), (heads, size, rows)
    )
    v = tvm_relay.reshape(
        tvm_relay.transpose(tvm_relay.reshape(v, shape), (0, 2, 1, 3)), (heads, rows, size)
    )
    scores = tvm_relay.nn.batch_matmul(q, k * tvm_relay.const(0.25), transpose_b=False)
    out = tvm_relay.nn.batch_matmul(scores, v, transpose_b=False)
    return tvm.IRModule.from_expr(tvm_relay.Function([x], out))


def test_split_read_by_reshapes_becomes_slices_fused_into_them() -> None:
    module = run(attention_heads().xdsl, RelaySplitToSlicesPass())
    assert count(module, relay.SplitOp) == 0
    assert count(module, relay.StridedSliceOp) == 3
    x = RNG.standard_normal((1, 8, 192)).astype(np.float32)
    [expected] = interpret(attention_heads(), {}, x)
    _, kernels = lower_for_build(attention_heads())
    names = [f.sym_name.data for f in kernels.ops]
    assert not any("split" in name for name in names), names
    [got] = run_factory(tvm_relay.build(attention_heads(), "llvm"), x=x)
    np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-5)


def test_split_with_a_part_read_by_a_product_or_returned_stays() -> None:
    x = tvm_relay.var("x", shape=(4, 12))
    w = tvm_relay.var("w", shape=(5, 6))
    parts = tvm_relay.split(x, [6], axis=1).astuple()
    dense = tvm_relay.nn.dense(tvm_relay.TupleGetItem(parts, 0), w)
    body = tvm_relay.Tuple([dense, tvm_relay.TupleGetItem(parts, 1)])
    mod = tvm.IRModule.from_expr(tvm_relay.Function([x, w], body))
    module = run(mod.xdsl, RelaySplitToSlicesPass())
    assert count(module, relay.SplitOp) == 1
    assert count(module, relay.StridedSliceOp) == 0
