"""relay-combine-parallel-dense: parallel products of one input by constant weights (attention's
Q, K, V) compute the same values as one product and slices, in the interpreter and compiled
(where relay.build runs the pass on the CPU), and an attention block imported from ONNX
matches onnxruntime."""

from __future__ import annotations

import gc
import math
import tracemalloc

import numpy as np
import onnx
import onnxruntime as ort
import pytest
from onnx import TensorProto, helper, numpy_helper
from xdsl.rewriter import Rewriter

import xtvm as tvm
from xtvm import relay as tvm_relay
from xtvm.api.relay.frontend import from_onnx
from xtvm.dialects import relay
from xtvm.driver.relay_build import lower_for_build
from xtvm.passes.relay_combine_parallel_dense import RelayCombineParallelDensePass
from xtvm.runtime.relay_interpreter import evaluate
from xtvm.testing.passes import count, run
from xtvm.testing.relay import run_factory

RNG = np.random.default_rng(0)


def rand(*shape: int) -> np.ndarray:
    return RNG.standard_normal(shape).astype(np.float32)


def branches(
    kind: str, data: tuple[int, ...], columns: list[int], bias: list[bool]
) -> tuple[tvm.IRModule, list[np.ndarray], list[np.ndarray | None]]:
    """@main(x) = (product(x, const w_i) [+ const b_i] for each branch), weights as [k, n]."""
    x = tvm_relay.var("x", shape=data)
    k = data[-1]
    weights = [rand(k, n) for n in columns]
    biases = [rand(n) if b else None for n, b in zip(columns, bias, strict=True)]
    outs = []
    for w, b in zip(weights, biases, strict=True):
        if kind == "dense":
            y = tvm_relay.nn.dense(x, tvm_relay.const(np.ascontiguousarray(w.T)))
        else:
            y = tvm_relay.nn.matmul(x, tvm_relay.const(w))
        outs.append(y if b is None else tvm_relay.add(y, tvm_relay.const(b)))
    fn = tvm_relay.Function([x], tvm_relay.Tuple(outs))
    return tvm.IRModule.from_expr(fn), weights, biases


CASES = [
    ("matmul", (1, 16, 8), [8, 8, 8], [True, True, True]),
    ("matmul", (12, 5), [3, 7, 40, 2], [True, False, True, True]),
    ("dense", (2, 9, 6), [5, 16, 4], [True, True, True]),
    ("dense", (1, 6), [4, 4, 4], [False, False, False]),
]


@pytest.mark.parametrize(("kind", "data", "columns", "bias"), CASES, ids=str)
def test_combined_products_compute_the_same(
    kind: str, data: tuple[int, ...], columns: list[int], bias: list[bool]
) -> None:
    mod, weights, biases = branches(kind, data, columns, bias)
    x = rand(*data)
    # compiled first (relay.build runs the pass on a copy), then the pass on the module itself
    compiled = run_factory(tvm_relay.build(mod, "llvm"), x=x)
    for out, w, b in zip(compiled, weights, biases, strict=True):
        np.testing.assert_allclose(out, x @ w + (0 if b is None else b), rtol=1e-4, atol=1e-4)
    module = mod.xdsl
    before = evaluate(module, [x])
    run(module, RelayCombineParallelDensePass())
    product = relay.DenseOp if kind == "dense" else relay.MatmulOp
    assert count(module, product) == 1
    assert count(module, relay.StridedSliceOp) == len(columns)
    # the biases join the product only when every branch has one
    assert count(module, relay.AddOp) == (1 if all(bias) else sum(bias))
    after = evaluate(module, [x])
    for got, expected in zip(after, before, strict=True):
        np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-5)


def test_different_inputs_or_reduction_lengths_stay_apart() -> None:
    x, y = tvm_relay.var("x", shape=(8, 4)), tvm_relay.var("y", shape=(8, 4))
    z = tvm_relay.var("z", shape=(8, 6))
    products = [
        tvm_relay.nn.matmul(v, tvm_relay.const(rand(4 if v is not z else 6, 3))) for v in (x, y, z)
    ]
    mod = tvm.IRModule.from_expr(tvm_relay.Function([x, y, z], tvm_relay.Tuple(products)))
    module = run(mod.xdsl, RelayCombineParallelDensePass(min_num_branches=2))
    assert count(module, relay.MatmulOp) == 3
    assert count(module, relay.StridedSliceOp) == 0


def attention_projections(seq: int, hidden: int, heads: int) -> onnx.ModelProto:
    """ONNX: Q, K, V projections of x (MatMul + Add each), split into heads, Q Kᵀ, softmax, V."""
    d = hidden // heads
    nodes: list[onnx.NodeProto] = []
    inits: list[onnx.TensorProto] = []

    def const(name: str, value: np.ndarray) -> str:
        inits.append(numpy_helper.from_array(value, name))
        return name

    shape = const("shape", np.array([1, seq, heads, d], np.int64))
    projected = []
    for i, perm in enumerate(([0, 2, 1, 3], [0, 2, 3, 1], [0, 2, 1, 3])):
        w = const(f"w{i}", rand(hidden, hidden) / math.sqrt(hidden))
        b = const(f"b{i}", rand(hidden))
        nodes += [
            helper.make_node("MatMul", ["x", w], [f"m{i}"]),
            helper.make_node("Add", [f"m{i}", b], [f"a{i}"]),
            helper.make_node("Reshape", [f"a{i}", shape], [f"r{i}"]),
            helper.make_node("Transpose", [f"r{i}"], [f"t{i}"], perm=perm),
        ]
        projected.append(f"t{i}")
    nodes += [
        helper.make_node("MatMul", projected[:2], ["scores"]),
        helper.make_node("Softmax", ["scores"], ["probs"], axis=-1),
        helper.make_node("MatMul", ["probs", projected[2]], ["y"]),
    ]
    graph = helper.make_graph(
        nodes,
        "attention",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, seq, hidden])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, heads, seq, d])],
        inits,
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


def test_attention_matches_onnxruntime_with_one_projection_kernel() -> None:
    model = attention_projections(seq=16, hidden=64, heads=4)
    mod, params = from_onnx(model)
    main, _ = lower_for_build(mod, params)
    calls = [op.callee.root_reference.data for op in main.walk() if hasattr(op, "callee")]
    assert sum(name.startswith("fused_nn_matmul") for name in calls) == 1
    x = rand(1, 16, 64)
    (got,) = run_factory(tvm_relay.build(mod, "llvm", params=params), x=x)
    session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    (expected,) = session.run(None, {"x": x})
    np.testing.assert_allclose(got, expected, rtol=1e-4, atol=1e-4)


def test_combined_weights_replace_their_parts_in_memory() -> None:
    """The combined weight is written once, and the constants it replaces are dropped at once
    (not left to the cycle collector): the pass leaves the module's memory as it found it."""
    columns = [384, 384, 384]
    total = 256 * sum(columns) * 4  # 1.2 MB of f32 weights
    tracemalloc.start()
    try:
        mod, _, _ = branches("matmul", (1, 16, 256), columns, [False, False, False])
        module = mod.xdsl.clone()
        del mod
        for const in [op for op in module.walk() if isinstance(op, relay.ConstOp)]:
            own = relay.ConstOp(relay.numpy_from_dense(const.value))  # bytes of the module's own
            Rewriter.replace_op(const, own)
        del const, own
        gc.collect()
        gc.disable()  # the erased constants' cycles would only go when the collector runs
        before, _ = tracemalloc.get_traced_memory()
        tracemalloc.reset_peak()
        run(module, RelayCombineParallelDensePass())
        after, peak = tracemalloc.get_traced_memory()
    finally:
        gc.enable()
        tracemalloc.stop()
    assert count(module, relay.MatmulOp) == 1
    assert after - before < 0.2 * total, (after - before, total)  # the parts kept: 1x more
    assert peak - before < 1.2 * total, (peak - before, total)  # copies of the parts: 2x
