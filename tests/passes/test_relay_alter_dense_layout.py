"""relay-alter-dense-layout and the CPU product tile: dense and matmul of many rows by a constant
weight compute the same values after the pass, in the interpreter and compiled, for 2-d to
4-d data, odd row counts and padded columns; the schedule tiles only the last row axis."""

from __future__ import annotations

import tracemalloc
from typing import Any

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper
from xdsl.dialects.builtin import ModuleOp

import xtvm as tvm
from xtvm import relay as tvm_relay
from xtvm.dialects import relay, tir
from xtvm.driver.relay_build import lower_for_build, lower_to_te
from xtvm.passes import tir_serialize_parallel
from xtvm.passes.relay_alter_dense_layout import RelayAlterDenseLayoutPass, padded_columns
from xtvm.runtime.relay_interpreter import evaluate
from xtvm.testing.passes import run
from xtvm.testing.relay import run_factory
from xtvm.topi import schedule

RNG = np.random.default_rng(0)


def rand(*shape: int) -> np.ndarray:
    return RNG.standard_normal(shape).astype(np.float32)


def product(kind: str, data: tuple[int, ...], weight: np.ndarray) -> tvm.IRModule:
    """@main(x) = dense(x, const w), or matmul(x, const w) (transposed when kind says so)."""
    x = tvm_relay.var("x", shape=data)
    w = tvm_relay.const(weight)
    if kind == "dense":
        y = tvm_relay.nn.dense(x, w)
    else:
        y = tvm_relay.nn.matmul(x, w, transpose_b=kind == "matmul_tb")
    return tvm.IRModule.from_expr(tvm_relay.Function([x], y))


def reference(kind: str, x: np.ndarray, w: np.ndarray) -> np.ndarray:
    return x @ (w.T if kind in ("dense", "matmul_tb") else w)


def count(module: ModuleOp, op_type: type) -> int:
    return sum(isinstance(op, op_type) for op in module.walk())


CASES = [
    ("dense", (8, 5), (6, 5)),
    ("dense", (2, 9, 7), (40, 7)),  # padded to 64 columns
    ("matmul", (1, 11, 6), (6, 50)),
    ("matmul", (2, 3, 4, 5), (5, 48)),  # 4-d data: the tile splits the last row axis only
    ("matmul_tb", (16, 3), (33, 3)),
    ("matmul", (1, 37, 24), (24, 70)),
    ("matmul", (1, 9, 8), (8, 1024)),  # rows of whole pages: one more tile (1056)
    ("dense", (10, 6), (2048, 6)),
]


def test_rows_of_whole_pages_get_one_more_tile() -> None:
    assert [padded_columns(n) for n in (1024, 3072, 1056, 768, 50257)] == [
        1056,
        3104,
        1056,
        768,
        50272,
    ]


@pytest.mark.parametrize(("kind", "data", "weight"), CASES, ids=str)
def test_altered_product_computes_the_same(
    kind: str, data: tuple[int, ...], weight: tuple[int, ...]
) -> None:
    w = rand(*weight)
    module = product(kind, data, w).xdsl
    x = rand(*data)
    (before,) = evaluate(module, [x])
    run(module, RelayAlterDenseLayoutPass())
    assert count(module, relay.DenseOp) == 0
    columns = w.shape[1] if kind == "matmul" else w.shape[0]
    assert count(module, relay.StridedSliceOp) == (padded_columns(columns) != columns)
    (after,) = evaluate(module, [x])
    np.testing.assert_allclose(after, before, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize(("kind", "data", "weight"), CASES, ids=str)
def test_compiled_product_matches_numpy(
    kind: str, data: tuple[int, ...], weight: tuple[int, ...]
) -> None:
    w, x = rand(*weight), rand(*data)
    (got,) = run_factory(tvm_relay.build(product(kind, data, w), "llvm"), x=x)
    np.testing.assert_allclose(got, reference(kind, x, w), rtol=1e-4, atol=1e-4)


PACKED_CASES = [  # weights over 1 MB (WEIGHT_STREAM_BYTES): packed into column panels
    ("dense", (3, 5, 600), (450, 600)),  # 450 columns: a last panel of 2 real columns
    ("matmul_tb", (40, 520), (544, 520)),  # 17 whole panels
    ("matmul", (2, 3, 4, 520), (520, 530)),  # 4-d data
]


@pytest.mark.parametrize(("kind", "data", "weight"), PACKED_CASES, ids=str)
def test_packed_product_computes_the_same(
    kind: str, data: tuple[int, ...], weight: tuple[int, ...]
) -> None:
    """A weight over L2 becomes [n / 32, k, 32] panels read by one batch_matmul of the rows;
    the interpreter after the pass and the compiled product match numpy."""
    w, x = rand(*weight), rand(*data)
    module = product(kind, data, w).xdsl
    run(module, RelayAlterDenseLayoutPass())
    assert count(module, relay.DenseOp) + count(module, relay.MatmulOp) == 0
    (bmm,) = [op for op in module.walk() if isinstance(op, relay.BatchMatmulOp)]
    columns = w.shape[1] if kind == "matmul" else w.shape[0]
    assert bmm.operands[1].type.get_shape() == (-(-columns // 32), w.size // columns, 32)
    assert count(module, relay.StridedSliceOp) == (columns % 32 != 0)
    (after,) = evaluate(module, [x])
    expected = reference(kind, x, w)
    np.testing.assert_allclose(after, expected, rtol=1e-4, atol=1e-4)
    (got,) = run_factory(tvm_relay.build(product(kind, data, w), "llvm"), x=x)
    np.testing.assert_allclose(got, expected, rtol=1e-4, atol=1e-4)


def test_few_rows_keep_their_dense() -> None:
    module = run(product("dense", (1, 16), rand(40, 16)).xdsl, RelayAlterDenseLayoutPass())
    assert count(module, relay.DenseOp) == 1


def parallel_loops(mod: tvm.IRModule) -> list[str]:
    _, kernels = lower_for_build(mod)
    return [
        op.induction_variable.name_hint
        for op in kernels.walk()
        if isinstance(op, tir.ForOp) and op.kind.data == "parallel"
    ]


@pytest.mark.parametrize(("rows", "columns_first"), [(64, True), (8192, False)])
def test_product_walks_a_weight_larger_than_the_cache_once(
    rows: int, columns_first: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Column blocks outside row blocks when the weight outgrows the last-level cache (here
    # made 0 bytes) and the rows fit in L2: each weight block is read from memory once while
    # the row blocks pass. Rows outside when they outgrow L2 (8192 x 64 floats).
    monkeypatch.setattr(schedule, "WEIGHT_STREAM_BYTES", 0)
    # 64 rows are too little work for the thread pool: keep the loop parallel to see its order
    monkeypatch.setattr(tir_serialize_parallel, "MIN_PARALLEL_WORK", 0)
    w, x = rand(64, 96), rand(1, rows, 64)
    mod = product("matmul", x.shape, w)
    (name,) = parallel_loops(mod)
    assert name == ("i2_outer_i1_outer_fused" if columns_first else "i1_outer")
    (got,) = run_factory(tvm_relay.build(mod, "llvm"), x=x)
    np.testing.assert_allclose(got, x @ w, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize(
    ("data", "weight", "columns_first"),
    [
        ((1, 24, 704), (704, 400), True),  # 1.1 MB weight: over L2, columns outside
        ((20, 400), (400, 704), True),  # 704 columns: 22 whole tiles, rows not a tile multiple
        ((1, 24, 512), (512, 128), False),  # 256 KB weight stays in L2: rows outside
    ],
    ids=str,
)
def test_default_product_walks_a_weight_larger_than_l2_once(
    data: tuple[int, ...], weight: tuple[int, ...], columns_first: bool
) -> None:
    # Llama's products (128 rows by 512 x 1408, 1408 x 512) scaled down: by default a weight
    # larger than a core's L2 is packed into contiguous column panels, walked once, panels
    # outside and row blocks inside, with padded columns (400 to 416) and a partial row block
    # computing what numpy does.
    w, x = rand(*weight), rand(*data)
    mod = product("matmul", x.shape, w)
    rows = "i1" if len(data) == 3 else "i0"
    (name,) = parallel_loops(mod)
    assert name == ("b_i_outer_fused" if columns_first else f"{rows}_outer")
    module = lower_to_te(mod)
    panels = [
        c.result.type.get_shape()
        for c in module.walk()
        if isinstance(c, relay.ConstOp) and len(c.result.type.get_shape()) == 3
    ]
    k, n = weight
    assert panels == ([(-(-n // 32), k, 32)] if columns_first else [])
    (got,) = run_factory(tvm_relay.build(mod, "llvm"), x=x)
    np.testing.assert_allclose(got, x @ w, rtol=1e-4, atol=1e-4)


def test_product_packs_the_column_panels_of_a_wide_weight_when_asked(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # BERT's feed-forward weight scaled down: walked columns outside (the cache made 0
    # bytes), with rows of 1024 floats (a page each), each 32-column panel of it is copied
    # into a contiguous buffer once per column block, inside the parallel loop, and the row
    # blocks inside read it.
    monkeypatch.setattr(schedule, "WEIGHT_STREAM_BYTES", 0)
    monkeypatch.setattr(tir_serialize_parallel, "MIN_PARALLEL_WORK", 0)
    w, x = rand(64, 1024), rand(1, 24, 64)
    mod = product("matmul", x.shape, w)
    _, kernels = lower_for_build(mod)
    assert 'memref<64x32xf32, "global">' not in str(kernels)  # off by default: see packs_weight
    monkeypatch.setattr(schedule, "PACK_WIDE_WEIGHTS", True)
    _, kernels = lower_for_build(mod)
    text = str(kernels)
    assert 'memref<64x32xf32, "global">' in text
    assert text.index("parallel") < text.index('memref<64x32xf32, "global">')
    (got,) = run_factory(tvm_relay.build(mod, "llvm"), x=x)
    np.testing.assert_allclose(got, x @ w, rtol=1e-4, atol=1e-4)


# ---------------------------------------------------------------------------------------------
# A tied embedding: the output projection reads the token embedding transposed


def tied_embedding(rows: int, vocabulary: int, width: int) -> onnx.ModelProto:
    """ids -> (Gather of the embedding, MatMul of x by the embedding transposed) (GPT-2's
    token embedding and vocabulary projection sharing one weight)."""
    graph = helper.make_graph(
        [
            helper.make_node("Gather", ["wte", "ids"], ["e"]),
            helper.make_node("Transpose", ["wte"], ["wt"], perm=[1, 0]),
            helper.make_node("MatMul", ["x", "wt"], ["y"]),
        ],
        "tied",
        [
            helper.make_tensor_value_info("ids", TensorProto.INT64, [rows]),
            helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, rows, width]),
        ],
        [
            helper.make_tensor_value_info("e", TensorProto.FLOAT, [rows, width]),
            helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, rows, vocabulary]),
        ],
        [numpy_helper.from_array(rand(vocabulary, width), "wte")],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


def test_tied_embedding_matches_onnxruntime_without_a_transpose_kernel() -> None:
    ort = pytest.importorskip("onnxruntime")
    from xtvm.api.relay.frontend import from_onnx

    model = tied_embedding(rows=8, vocabulary=1000, width=24)  # 1000 columns: padded
    mod, params = from_onnx(model)
    main, _ = lower_for_build(mod, params)
    calls = [op.callee.root_reference.data for op in main.walk() if hasattr(op, "callee")]
    assert not any("transpose" in name for name in calls), calls
    ids = RNG.integers(0, 1000, 8)
    x = rand(1, 8, 24)
    got = run_factory(tvm_relay.build(mod, "llvm", params=params), ids=ids, x=x)
    session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    for g, e in zip(got, session.run(None, {"ids": ids, "x": x}), strict=True):
        np.testing.assert_allclose(g, e, rtol=1e-5, atol=1e-5 * np.abs(e).max())


def tied_gemm(rows: int, vocabulary: int, width: int) -> onnx.ModelProto:
    """`tied_embedding` with the projection as Gemm(transB=1) of the embedding itself (an
    `nn.dense` reading it as [n, k], no Transpose)."""
    model = tied_embedding(rows, vocabulary, width)
    graph = model.graph
    matmul = graph.node[2]
    graph.node.remove(graph.node[1])
    graph.node.remove(matmul)
    graph.node.extend(
        [
            helper.make_node("Reshape", ["x", "rows_by_width"], ["x2"]),
            helper.make_node("Gemm", ["x2", "wte"], ["y2"], transB=1),
            helper.make_node("Reshape", ["y2", "out_shape"], ["y"]),
        ]
    )
    graph.initializer.extend(
        [
            numpy_helper.from_array(np.array([rows, width], np.int64), "rows_by_width"),
            numpy_helper.from_array(np.array([1, rows, vocabulary], np.int64), "out_shape"),
        ]
    )
    return model


@pytest.mark.parametrize("make", [tied_embedding, tied_gemm])
@pytest.mark.parametrize("vocabulary", [1000, 96])  # padded to 1024 columns; whole tiles
def test_tied_embedding_keeps_one_weight(make: Any, vocabulary: int) -> None:
    """The gather of a tied embedding reads the product's laid-out (padded) weight: the
    library holds one constant of the embedding's size, not the embedding beside its layout,
    and the rows gathered (negative ids counting from the real end, not from the padding)
    match onnxruntime. (`fold_limit=0`: the importer keeps the Transpose of a weight as large
    as GPT-2's, 38M elements, as an op; a small one it would fold into a second weight.)"""
    ort = pytest.importorskip("onnxruntime")
    from xtvm.api.relay.frontend import from_onnx

    rows, width = 8, 24
    model = make(rows, vocabulary, width)
    mod, params = from_onnx(model, fold_limit=0)
    factory = tvm_relay.build(mod, "llvm", params=params)
    sizes = sorted(v.numpy().size for v in factory.get_params().values())
    big = [s for s in sizes if s >= vocabulary * width]
    assert big == [width * padded_columns(vocabulary)], sizes
    ids = np.array([0, vocabulary - 1, -1, -vocabulary, 5, 7, vocabulary // 2, 3], np.int64)
    x = rand(1, rows, width)
    got = run_factory(factory, ids=ids, x=x)
    session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    for g, e in zip(got, session.run(None, {"ids": ids, "x": x}), strict=True):
        np.testing.assert_allclose(g, e, rtol=1e-5, atol=1e-5 * np.abs(e).max())


def test_laying_out_a_transposed_weight_holds_one_new_copy() -> None:
    """relay-fold-constant (keeping the transpose) and relay-alter-dense-layout add one padded
    copy of a tied 2001 x 300 weight at their peak: neither a transposed copy beside it nor
    the padded array beside its bytes (which together made 3x)."""
    from xtvm.api.relay.frontend import from_onnx
    from xtvm.driver.relay_graph import bind_params
    from xtvm.passes.relay_fold_constant import RelayFoldConstantPass

    vocabulary, width = 2001, 300  # 2.4 MB, 2001 columns padded to 2016
    mod, params = from_onnx(tied_embedding(rows=16, vocabulary=vocabulary, width=width))
    module = mod.xdsl.clone()
    bind_params(module, params)
    del mod, params
    padded = width * padded_columns(vocabulary) * 4
    tracemalloc.start()
    try:
        run(module, RelayFoldConstantPass(keep_weight_transposes=True), RelayAlterDenseLayoutPass())
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert padded <= peak < 1.5 * padded, (peak, padded)
    transposes = [op for op in module.walk() if isinstance(op, relay.TransposeOp)]
    assert not any(isinstance(op.operands[0].owner, relay.ConstOp) for op in transposes)


def test_released_params_are_freed_once_laid_out() -> None:
    """With `release_params` (xtvm-compile) the module's constants are the weights' only
    owners: each weight relay-alter-dense-layout pads is freed once its padded copy exists,
    so the build holds the weights about once, not beside all their new layouts (2x)."""
    x = tvm_relay.var("x", shape=(1, 16, 300))
    shapes = [(300, 1001), (1001, 300), (300, 1001), (1001, 300)]  # every one padded
    y = x
    for i, shape in enumerate(shapes):
        y = tvm_relay.nn.matmul(y, tvm_relay.var(f"w{i}", shape=shape))
    mod = tvm.IRModule.from_expr(tvm_relay.Function(tvm_relay.analysis.free_vars(y), y))
    total = sum(r * c * 4 for r, c in shapes)  # 4.8 MB
    tracemalloc.start()
    try:
        params = {f"w{i}": rand(*shape) for i, shape in enumerate(shapes)}
        module = lower_to_te(mod, params, release_params=True)
        held, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert params == {}
    assert count(module, relay.MatmulOp) == 0  # in kernels now
    assert held < 1.3 * total, (held, total)  # the padded weights
    assert peak < 1.6 * total, (peak, total)  # the params beside their padded copies: 2.1x
