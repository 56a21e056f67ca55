"""The LLVM backend: TE kernels and every relay op, compiled and run natively, checked against
numpy and the relay interpreter; parallel loops, shared libraries, targets and errors."""

from __future__ import annotations

import math
import re
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from xdsl.dialects.builtin import ModuleOp

import xtvm as tvm
from xtvm import relay, te
from xtvm.backends.llvm import CodegenError, LLVMTarget, TargetError, build_module
from xtvm.passes.tir_loop_partition import TirLoopPartitionPass
from xtvm.passes.tir_simplify import TirSimplifyPass
from xtvm.passes.tir_vectorize import TirVectorizePass
from xtvm.runtime.loader import load_module
from xtvm.runtime.module import ArgumentError
from xtvm.runtime.relay_interpreter import evaluate
from xtvm.testing import load_file
from xtvm.testing.passes import CTX, run

RNG = np.random.default_rng(7)


# The per-op relay cases of the convert-relay-to-te tests (one source of truth).
CASES = load_file(
    "relay_to_te_cases", Path(__file__).parents[1] / "passes" / "test_convert_relay_to_te.py"
)


def cpu_pipeline(kernels: ModuleOp) -> ModuleOp:
    """The tir passes a CPU build runs before code generation."""
    return run(kernels, TirSimplifyPass(), TirLoopPartitionPass(), TirVectorizePass())


@pytest.mark.parametrize(
    "case",
    [
        pytest.param(case, id=f"{op.name.removeprefix('relay.')}-{case.name}")
        for op, cases in CASES.CASES.items()
        for case in cases[:2]
    ],
)
def test_relay_op_compiled_matches_relay_interpreter(case: object) -> None:
    module = CASES.function(case.inputs, case.build)  # type: ignore[attr-defined]
    inputs = case.arrays()  # type: ignore[attr-defined]
    params = case.params  # type: ignore[attr-defined]
    expected = evaluate(module, inputs, params=params)
    graph, kernels = CASES.lower(module, "llvm")
    compiled = build_module(cpu_pipeline(kernels))
    got = CASES.run_graph(graph, lambda name, *a: compiled[name](*a), inputs, params)
    assert len(got) == len(expected)
    tolerance = case.rtol if case.rtol > 1e-5 else 1e-4  # type: ignore[attr-defined]
    for g, e in zip(got, expected, strict=True):
        assert g.dtype == e.dtype and g.shape == e.shape
        if e.dtype.kind == "f":
            np.testing.assert_allclose(g, e, rtol=tolerance, atol=tolerance)
        else:
            np.testing.assert_array_equal(g, e)


# ---------------------------------------------------------------------------------------------
# TE kernels through tvm.build


def matmul(n: int, m: int, k_extent: int) -> tuple[te.Tensor, te.Tensor, te.Tensor]:
    A = te.placeholder((n, k_extent), name="A")
    B = te.placeholder((k_extent, m), name="B")
    k = te.reduce_axis((0, k_extent), name="k")
    C = te.compute((n, m), lambda i, j: te.sum(A[i, k] * B[k, j], axis=k), name="C")
    return A, B, C


@pytest.mark.parametrize("threads", [1, 2])
def test_parallel_tiled_matmul_with_odd_sizes(
    threads: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    from xtvm.runtime.threads import set_num_threads

    A, B, C = matmul(37, 29, 23)
    s = te.create_schedule(C.op)
    i, j = C.op.axis
    (k,) = C.op.reduce_axis
    io, jo, ii, ji = s[C].tile(i, j, 8, 8)
    s[C].reorder(io, jo, k, ii, ji)
    s[C].parallel(io)
    s[C].vectorize(ji)
    f = tvm.build(s, [A, B, C], "llvm", name="mm")
    a = RNG.standard_normal((37, 23)).astype("float32")
    b = RNG.standard_normal((23, 29)).astype("float32")
    c = tvm.nd.empty((37, 29))
    set_num_threads(threads)
    try:
        f(tvm.nd.array(a), tvm.nd.array(b), c)
    finally:
        set_num_threads(2)
    np.testing.assert_allclose(c.numpy(), a @ b, rtol=1e-4, atol=1e-4)
    assert "xtvm_parallel_for" in f.get_source()  # kept parallel: the user asked for it


def test_set_num_threads_refuses_non_positive_counts() -> None:
    from xtvm.runtime import set_num_threads
    from xtvm.runtime.threads import num_threads

    for count in (0, -1, 2.0, True, "2"):
        with pytest.raises(ValueError, match="must be a positive integer"):
            set_num_threads(count)  # type: ignore[arg-type]
    set_num_threads(np.int64(num_threads()))  # numpy integers are integers


def test_intermediate_buffers_reductions_and_math() -> None:
    A = te.placeholder((64, 33), name="A")
    E = te.compute(A.shape, lambda i, j: te.exp(A[i, j]), name="E")
    k = te.reduce_axis((0, 33), name="k")
    S = te.compute((64,), lambda i: te.sum(E[i, k], axis=k), name="S")
    k2 = te.reduce_axis((0, 33), name="k2")
    M = te.compute((64,), lambda i: te.max(A[i, k2], axis=k2), name="M")
    T = te.compute((64,), lambda i: te.tanh(S[i]) + te.sqrt(te.abs(M[i])), name="T")
    s = te.create_schedule(T.op)
    s[S].parallel(S.op.axis[0])
    f = tvm.build(s, [A, T], "llvm")
    a = RNG.standard_normal((64, 33)).astype("float32")
    t = np.zeros(64, "float32")
    f(a, t)
    expected = np.tanh(np.exp(a).sum(1)) + np.sqrt(np.abs(a.max(1)))
    np.testing.assert_allclose(t, expected, rtol=1e-5)


def test_large_intermediate_buffer_is_reused_across_calls(tmp_path: Path) -> None:
    # B (256 KiB, over the stack limit) comes from its allocation site's cache: the second
    # call reuses the first call's block, and must not see its old contents.
    A = te.placeholder((256, 256), name="A")
    B = te.compute(A.shape, lambda i, j: A[i, j] * 2.0, name="B")
    C = te.compute((256,), lambda i: B[i, 0] + B[i, 255] + B[255 - i, 7], name="C")
    s = te.create_schedule(C.op)
    s[B].parallel(B.op.axis[0])
    f = tvm.build(s, [A, C], "llvm", name="twice")
    assert "xtvm_release_buffers" in f.get_source()
    path = tmp_path / "twice.so"
    f.export_library(path)
    for module in (f, tvm.runtime.load_module(path)):
        for _ in range(3):
            a = RNG.standard_normal((256, 256)).astype("float32")
            c = np.zeros(256, "float32")
            module["twice"](a, c)
            np.testing.assert_allclose(c, 2 * (a[:, 0] + a[:, 255] + a[::-1, 7]), rtol=1e-6)


def test_integer_kernel_and_casts() -> None:
    A = te.placeholder((50,), dtype="int32", name="A")
    B = te.compute((50,), lambda i: A[i] // 3 + A[i] % 5 - (i - 25) // 4, name="B")
    C = te.compute((50,), lambda i: B[i].astype("float32") * 0.5, name="C")
    s = te.create_schedule(C.op)
    f = tvm.build(s, [A, C])
    a = RNG.integers(-100, 100, 50).astype("int32")
    c = np.zeros(50, "float32")
    f(a, c)
    i = np.arange(50)
    np.testing.assert_array_equal(c, (a // 3 + a % 5 - (i - 25) // 4).astype("float32") * 0.5)


def test_symbolic_shape_kernel() -> None:
    n = te.var("n")
    A = te.placeholder((n, 4), name="A")
    B = te.compute((n, 4), lambda i, j: A[i, j] * 2.0 + 1.0, name="B")
    s = te.create_schedule(B.op)
    io, _ = s[B].split(B.op.axis[0], factor=8)
    s[B].parallel(io)
    f = tvm.build(s, [A, B])
    for rows in (3, 13, 16):
        a = RNG.standard_normal((rows, 4)).astype("float32")
        b = np.zeros((rows, 4), "float32")
        f(a, b)
        np.testing.assert_allclose(b, a * 2 + 1, rtol=1e-6)


def test_export_library_and_load_module(tmp_path: Path) -> None:
    A, B, C = matmul(16, 12, 8)
    s = te.create_schedule(C.op)
    f = tvm.build(s, [A, B, C], name="mm")
    path = tmp_path / "mm.so"
    f.export_library(path)
    loaded = tvm.runtime.load_module(path)
    assert loaded is not None and "mm" in loaded
    a = RNG.standard_normal((16, 8)).astype("float32")
    b = RNG.standard_normal((8, 12)).astype("float32")
    c = np.zeros((16, 12), "float32")
    loaded["mm"](a, b, c)
    np.testing.assert_allclose(c, a @ b, rtol=1e-5, atol=1e-5)
    with pytest.raises(ValueError, match="not written by xtvm"):
        load_module("/lib/x86_64-linux-gnu/libm.so.6")


def test_time_evaluator_reports_seconds() -> None:
    A, B, C = matmul(32, 32, 32)
    f = tvm.build(te.create_schedule(C.op), [A, B, C], name="mm")
    arrays = [np.ones((32, 32), "float32") for _ in range(3)]
    result = f.time_evaluator("mm", tvm.cpu(0), number=3, repeat=2)(*arrays)
    assert len(result.results) == 2 and 0 < result.mean < 1
    np.testing.assert_allclose(arrays[2], 32.0)
    assert "mean (ms)" in str(result)


def test_call_time_errors_name_the_argument() -> None:
    A, B, C = matmul(4, 4, 4)
    f = tvm.build(te.create_schedule(C.op), [A, B, C], name="mm")
    good = np.zeros((4, 4), "float32")
    with pytest.raises(
        ArgumentError, match=r"argument 1 \(B\): expected float32\[4, 4\], got float64"
    ):
        f(good, np.zeros((4, 4)), good)
    with pytest.raises(ArgumentError, match="takes 3 arguments"):
        f(good, good)
    with pytest.raises(ArgumentError, match="C-contiguous"):
        f(good, np.zeros((4, 8), "float32")[:, ::2], good)
    with pytest.raises(AttributeError, match="no function 'nope'"):
        f["nope"]


def test_targets() -> None:
    host = LLVMTarget.host()
    assert LLVMTarget.parse("llvm") == host
    avx2 = LLVMTarget.parse("llvm -mcpu=haswell -mattr=+avx2,+fma -opt-level=2")
    assert (avx2.cpu, avx2.features, avx2.opt_level) == ("haswell", "+avx2,+fma", 2)
    A = te.placeholder((64,), name="A")
    B = te.compute((64,), lambda i: A[i] * 3.0, name="B")
    f = tvm.build(te.create_schedule(B.op), [A, B], "llvm -mcpu=haswell")
    assert "ymm" in f.get_source("asm") or "vmul" in f.get_source("asm")
    a = RNG.standard_normal(64).astype("float32")
    b = np.zeros(64, "float32")
    f(a, b)
    np.testing.assert_allclose(b, a * 3)
    with pytest.raises(TargetError, match="unknown target option '-mfoo'"):
        LLVMTarget.parse("llvm -mfoo=1")
    with pytest.raises(TargetError, match="unknown target 'tpu'"):
        LLVMTarget.parse("tpu")


@pytest.mark.parametrize(
    ("target", "message"),
    [
        ("llvm -mcpu=haswel", "unknown CPU 'haswel' .*; did you mean 'haswell'"),
        ("llvm -mcpu=haswell -mattr=+avx3", "unknown CPU feature '\\+avx3' .*did you mean"),
        ("llvm -mattr=avx2", "CPU feature 'avx2' must start with '\\+' or '-'"),
        ("llvm -mtriple=x86-64-linux-gnu", "unknown target triple 'x86-64-linux-gnu'"),
        # A known CPU that cannot run 64-bit code: LLVM would end the process.
        ("llvm -mcpu=i386", "LLVM cannot generate code .*64-bit code requested"),
    ],
)
def test_unknown_target_names_are_target_errors(target: str, message: str) -> None:
    """LLVM ignores unknown names with a warning, or aborts the process: both are refused."""
    with pytest.raises(TargetError, match=message):
        LLVMTarget.parse(target)
    with pytest.raises(TargetError, match=message):
        LLVMTarget(*target_fields(target)).machine()


def target_fields(target: str) -> tuple[str, str, str]:
    """The (triple, cpu, features) a target string asks for, unchecked."""
    host = LLVMTarget.host()
    fields = {"-mtriple": host.triple, "-mcpu": host.cpu, "-mattr": ""}
    for word in target.split()[1:]:
        key, _, value = word.partition("=")
        fields[key] = value
    if fields["-mcpu"] == host.cpu and "-mattr" not in target:
        fields["-mattr"] = host.features
    return fields["-mtriple"], fields["-mcpu"], fields["-mattr"]


def test_untranslatable_op_is_a_located_error() -> None:
    module = CTX.parse(
        """
func.func @k(%a: memref<4xf32>, %b: memref<4xf32>) {
  "memref.copy"(%a, %b) : (memref<4xf32>, memref<4xf32>) -> ()
  func.return
}
""",
        "k.mlir",
    )
    with pytest.raises(
        CodegenError, match=r"k.mlir:3:3: error: the LLVM backend cannot translate 'memref.copy'"
    ):
        build_module(module)


def test_empty_reduction_is_the_identity_and_f64_to_f16_casts() -> None:
    """Two ONNX conformance defects: reductions over an empty axis, and f64 -> f16 (no
    instruction: it must not call compiler-rt's __truncdfhf2, which the JIT lacks)."""
    A = te.placeholder((3, 0), name="A")
    k = te.reduce_axis((0, 0), name="k")
    S = te.compute((3,), lambda i: te.sum(A[i, k], axis=k), name="S")
    M = te.compute((3,), lambda i: te.max(A[i, k], axis=k), name="M")
    f = tvm.build(te.create_schedule([S.op, M.op]), [A, S, M])
    s, m = np.ones(3, "float32"), np.ones(3, "float32")
    f(np.zeros((3, 0), "float32"), s, m)
    np.testing.assert_array_equal(s, [0, 0, 0])
    assert np.all(np.isneginf(m))

    D = te.placeholder((5,), dtype="float64", name="D")
    H = te.compute((5,), lambda i: D[i].astype("float16"), name="H")
    g = tvm.build(te.create_schedule(H.op), [D, H])
    d = np.array([1.0, -2.5, 65504.0, 1e-8, 3.14159], "float64")
    h = np.zeros(5, "float16")
    g(d, h)
    np.testing.assert_array_equal(h, d.astype("float16"))


@pytest.mark.usefixtures("preserve_registries")  # registers a global function
def test_compiled_code_calls_a_registered_python_function() -> None:
    """TVM's PackedFunc idea: a Python function registered by name, called from a kernel."""
    calls: list[float] = []

    @tvm.register_func("test.llvm.halve_and_log", override=True)
    def halve_and_log(x: float) -> float:
        calls.append(x)
        return x / 2

    module = CTX.parse(
        """
func.func @k(%A: memref<3xf32>, %B: memref<3xf32>) {
  %c0 = arith.constant 0 : index
  %c3 = arith.constant 3 : index
  tir.for %i = %c0 to %c3 serial {
    %a = memref.load %A[%i] : memref<3xf32>
    %h = tir.call_extern "test.llvm.halve_and_log"(%a) : (f32) -> f32
    memref.store %h, %B[%i] : memref<3xf32>
  }
  func.return
}
""",
        "k.mlir",
    )
    compiled = build_module(module)
    a, b = np.array([1, 2, 3], "float32"), np.zeros(3, "float32")
    compiled["k"](a, b)
    np.testing.assert_array_equal(b, [0.5, 1, 1.5])
    assert calls == [1.0, 2.0, 3.0]


# ---------------------------------------------------------------------------------------------
# Pooling and depthwise conv2d with the default CPU schedule


def check_vectorized_build(body: Callable[[Any], Any], data: np.ndarray, tolerance: float) -> None:
    """relay.build of `x -> body(x)` vectorizes every loop it asks to (a VectorizeRemark is an
    error here), and its output for `data` matches the relay interpreter's."""
    from xtvm.contrib import graph_executor
    from xtvm.passes.tir_vectorize import VectorizeRemark

    x = relay.var("x", shape=data.shape)
    mod = tvm.IRModule.from_expr(relay.Function([x], body(x)))
    with warnings.catch_warnings():
        warnings.simplefilter("error", VectorizeRemark)
        factory = relay.build(mod, target="llvm")
    executor = graph_executor.GraphModule(factory["default"](tvm.cpu()))
    executor.set_input("x", data)
    executor.run()
    expected = relay.create_executor("debug", mod=mod).evaluate()(data).numpy()
    got = executor.get_output(0).numpy()
    np.testing.assert_allclose(got, expected, rtol=tolerance, atol=tolerance / 10)


@pytest.mark.parametrize(
    ("layout", "shape", "pool", "strides", "padding", "ceil_mode"),
    [
        ("NCHW", (1, 5, 23, 37), (3, 3), (2, 2), (1, 1), False),
        ("NCHW", (2, 3, 17, 19), (3, 3), (2, 2), (1, 1), True),
        ("NCHW", (1, 4, 13, 29), (2, 3), (1, 3), (0, 1), False),
        ("NCHW", (1, 2, 9, 70), (3, 3), (4, 4), (1, 1), False),
        ("NHWC", (1, 15, 13, 24), (3, 3), (2, 2), (1, 1), False),
    ],
)
@pytest.mark.parametrize("kind", ["max", "avg"])
def test_pool_vectorized_along_strided_windows(
    layout: str,
    shape: tuple[int, ...],
    pool: tuple[int, int],
    strides: tuple[int, int],
    padding: tuple[int, int],
    ceil_mode: bool,
    kind: str,
) -> None:
    """A pool's output columns are vectorized even where their windows step by 2 to 4 input
    columns (strided loads); every result matches the relay interpreter, NaN included (max
    propagates it; the sign of zero is the only freedom the compiled max takes)."""
    op = relay.nn.max_pool2d if kind == "max" else relay.nn.avg_pool2d
    data = RNG.standard_normal(shape).astype("float32")
    data.flat[RNG.choice(data.size, 3, replace=False)] = np.nan
    check_vectorized_build(
        lambda x: op(x, pool, strides, padding=padding, layout=layout, ceil_mode=ceil_mode),
        data,
        1e-5,
    )


@pytest.mark.parametrize(
    ("shape", "kernel", "strides", "padding"),
    [
        ((1, 5, 7, 13), (3, 3), (1, 1), (1, 1)),
        ((1, 3, 14, 31), (3, 3), (2, 2), (1, 1)),
        ((2, 4, 9, 20), (5, 5), (2, 2), (2, 2)),
        ((1, 6, 30, 17), (3, 3), (3, 3), (0, 0)),
    ],
)
def test_depthwise_conv2d_tile_of_rows_by_strided_columns(
    shape: tuple[int, ...],
    kernel: tuple[int, int],
    strides: tuple[int, int],
    padding: tuple[int, int],
) -> None:
    """An NCHW depthwise conv2d (and its fused tail) runs as a tile of output rows by a vector
    of columns, vectorized at strides 1 to 3 too, with rows and columns that no tile divides;
    it matches the relay interpreter."""
    channels = shape[1]
    weight = relay.const(RNG.standard_normal((channels, 1, *kernel)).astype("float32"))
    check_vectorized_build(
        lambda x: relay.nn.relu(
            relay.nn.conv2d(x, weight, strides=strides, padding=padding, groups=channels)
        ),
        RNG.standard_normal(shape).astype("float32"),
        1e-4,
    )


@pytest.mark.parametrize(
    ("shape", "kernel", "strides", "padding"),
    [
        ((1, 9, 11, 24), (3, 3), (1, 1), (1, 1, 1, 1)),
        ((1, 15, 14, 40), (3, 3), (2, 2), (1, 1, 1, 1)),
        ((1, 13, 10, 48), (5, 5), (2, 2), (2, 2, 2, 2)),
        ((1, 7, 7, 96), (5, 5), (1, 1), (2, 2, 2, 2)),
        ((2, 8, 9, 16), (3, 3), (2, 1), (0, 1, 2, 0)),
        ((1, 56, 56, 144), (3, 3), (1, 1), (1, 1, 1, 1)),  # MobileNetV2's
        ((1, 28, 28, 192), (3, 3), (1, 1), (1, 1, 1, 1)),
        ((1, 112, 112, 96), (3, 3), (2, 2), (1, 1, 1, 1)),  # MobileNetV2's stride 2
    ],
)
def test_nhwc_depthwise_conv2d_reads_its_input_through_bounds_checks(
    shape: tuple[int, ...],
    kernel: tuple[int, int],
    strides: tuple[int, int],
    padding: tuple[int, int, int, int],
) -> None:
    """An NHWC depthwise conv2d (MobileNet's) makes no padded copy of its input: the kernel
    allocates nothing of the padded shape, and matches the relay interpreter at strides 1
    and 2, uneven padding, and rows, columns and channels that no tile divides. Its padding
    reads are clamped selects, no branches, in a few copies of the tile (tir-loop-partition
    cut branches down to every tap: 15 copies of the input load for 56x56x144); where rows
    are the parallel loop, one copy, the interior, reads without a select or a clamp."""
    from xtvm.driver.relay_build import lower_for_build

    channels = shape[3]
    weight = relay.const(RNG.standard_normal((*kernel, 1, channels)).astype("float32"))

    def body(x: Any) -> Any:
        conv = relay.nn.conv2d(
            x,
            weight,
            strides=strides,
            padding=padding,
            groups=channels,
            data_layout="NHWC",
            kernel_layout="HWIO",
        )
        return relay.clip(conv, 0.0, 6.0)

    check_vectorized_build(body, RNG.standard_normal(shape).astype("float32"), 1e-4)
    x = relay.var("x", shape=shape)
    _, kernels = lower_for_build(tvm.IRModule.from_expr(relay.Function([x], body(x))))
    n, h, w, c = shape
    padded = f"memref<{n}x{h + padding[0] + padding[2]}x{w + padding[1] + padding[3]}x{c}xf32>"
    allocs = [str(op.results[0].type) for op in kernels.walk() if op.name == "memref.alloc"]
    assert padded not in allocs, allocs
    loads = [
        op
        for op in kernels.walk()
        if op.name in ("vector.load", "memref.load")
        and str(op.operands[0].type).startswith(f"memref<{n}x{h}x{w}x{c}xf32>")
    ]
    assert 1 <= len(loads) <= 6, len(loads)
    selected = [
        load
        for load in loads
        if any(u.operation.name == "arith.select" for u in load.results[0].uses)
    ]
    assert not any(op.name == "scf.if" and op.results for op in kernels.walk())
    if h >= 56:  # rows as the parallel loop: its interior rows and columns read plainly
        assert len(selected) < len(loads), (len(selected), len(loads))
        # ... with no clamp either: the interior's bounds are decided (the interior rows'
        # branch, i >= 1, and the columns' tiles past the first), so the address is affine
        clamps = ("arith.maxsi", "arith.minsi")
        plain = [
            load
            for load in loads
            if load not in selected
            and not any(getattr(i.owner, "name", None) in clamps for i in load.operands[1:])
        ]
        assert plain, [str(load) for load in loads]


@pytest.mark.parametrize("shape", [(1, 3, 20, 32), (2, 1, 3, 48), (1, 4, 5, 16), (1, 7, 2, 64)])
def test_nchw_to_nhwc_of_few_channels_reads_along_rows(shape: tuple[int, ...]) -> None:
    """An image of fewer channels than a transpose square goes NCHW -> NHWC in runs along its
    rows (no gather of a few lanes per pixel), and matches numpy."""
    from xtvm.contrib import graph_executor
    from xtvm.driver.relay_build import lower_for_build

    x = relay.var("x", shape=shape)
    mod = tvm.IRModule.from_expr(relay.Function([x], relay.layout_transform(x, "NCHW", "NHWC")))
    _, kernels = lower_for_build(mod)
    assert not [op for op in kernels.walk() if op.name == "vector.transfer_read"]
    data = RNG.standard_normal(shape).astype("float32")
    module = graph_executor.GraphModule(relay.build(mod, "llvm")["default"](tvm.cpu()))
    module.run(x=data)
    np.testing.assert_array_equal(module.get_output(0).numpy(), data.transpose(0, 2, 3, 1))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("lanes", [1, 8])
def test_trigonometric_intrinsics(dtype: str, lanes: int) -> None:
    """te.sin and te.cos (llvm.sin, llvm.cos), te.tan and te.atan (libm, a call per lane when
    vectorized) against numpy, over several periods; exact at 0, pi/6 and pi/4."""
    n = 64
    A = te.placeholder((n,), dtype=dtype, name="A")
    outs = [
        te.compute((n,), lambda i, fn=fn: fn(A[i]), name=fn.__name__)
        for fn in (te.sin, te.cos, te.tan, te.atan)
    ]
    s = te.create_schedule([t.op for t in outs])
    if lanes > 1:
        for t in outs:
            s[t].vectorize(s[t].split(t.op.axis[0], factor=lanes)[1])
    f = tvm.build(s, [A, *outs], "llvm")
    exact = np.array([0.0, np.pi / 6, -np.pi / 4, 1.0])
    x = np.concatenate([exact, RNG.uniform(-20, 20, n - len(exact))]).astype(dtype)
    got = [np.zeros(n, dtype) for _ in outs]
    f(x, *got)
    tol = 2e-6 if dtype == "float32" else 1e-14
    for g, want in zip(got, (np.sin(x), np.cos(x), np.tan(x), np.arctan(x)), strict=True):
        assert g.dtype == np.dtype(dtype)
        np.testing.assert_allclose(g, want, rtol=tol, atol=tol * np.abs(want).max())
    sin, cos, tan, atan = (g[:3] for g in got)
    np.testing.assert_allclose(sin, [0.0, 0.5, -np.sqrt(0.5)], rtol=tol, atol=tol)
    np.testing.assert_allclose(cos, [1.0, np.sqrt(0.75), np.sqrt(0.5)], rtol=tol, atol=tol)
    np.testing.assert_allclose(tan, [0.0, np.sqrt(1 / 3), -1.0], rtol=tol, atol=tol)
    np.testing.assert_allclose(atan, [0.0, np.arctan(np.pi / 6), -np.arctan(np.pi / 4)], rtol=tol)
    assert atan[0] == 0.0 and tan[0] == 0.0 and sin[0] == 0.0 and cos[0] == 1.0


# ---------------------------------------------------------------------------------------------
# Vector exp, tanh and erf


@pytest.mark.parametrize(
    ("name", "reference"),
    [("exp", np.exp), ("tanh", np.tanh), ("erf", np.vectorize(math.erf, otypes=[np.float64]))],
)
def test_vector_math_within_two_ulp(name: str, reference: Callable[[Any], Any]) -> None:
    """Vectorized exp, tanh and erf (inline polynomials, not a libm call per lane) stay within
    2 ulp of the double-precision result (numpy's, Python's math.erf) over the whole float
    range, are exact on subnormal results to the last unit, and keep the special values: +-0,
    +-inf, NaN, overflow to inf, underflow to 0, erf's saturation at +-1."""
    n = 1 << 16
    A = te.placeholder((n,), name="A")
    B = te.compute((n,), lambda i: getattr(te, name)(A[i]), name="B")
    s = te.create_schedule(B.op)
    _, lanes = s[B].split(B.op.axis[0], factor=16)
    s[B].vectorize(lanes)
    f = tvm.build(s, [A, B], "llvm")
    specials = [0.0, -0.0, np.inf, -np.inf, np.nan, 88.72283, 88.7229, -87.33, -103.97, -110.0]
    specials += [-103.99, -104.0, -104.01, -3.4e38]  # exp's zero branch (a causal mask's -max)
    specials += [1e-30, -1e-40, 0.625, -0.6249, 9.0, -20.0]
    specials += [0.99999994, 1.0, -1.0000001, 2.5, 3.9199998, -3.92, 3.9200003, 1e-8, -3e-39]
    x = np.concatenate(
        [
            specials,
            RNG.uniform(-110, 100, n // 2),
            RNG.standard_normal(n // 4) * 3,
            RNG.uniform(-1, 1, n // 4 - len(specials)),
        ]
    ).astype("float32")
    got = np.zeros(n, "float32")
    f(x, got)
    with np.errstate(over="ignore"):
        exact = reference(x.astype(np.float64))
        rounded = exact.astype(np.float32)
    normal = np.isfinite(rounded) & (np.abs(rounded) >= np.finfo(np.float32).tiny)
    ulps = np.abs(got[normal] - exact[normal]) / np.spacing(np.abs(rounded[normal]))
    assert ulps.max() <= 2.0, f"{ulps.max():.2f} ulp at x = {x[normal][ulps.argmax()]}"
    rest = ~normal
    tiny = np.finfo(np.float32).smallest_subnormal
    np.testing.assert_allclose(got[rest], rounded[rest], rtol=0, atol=tiny)
    np.testing.assert_array_equal(np.signbit(got[:2]), np.signbit(rounded[:2]))  # tanh(-0) = -0


def gelu_models() -> dict[str, Any]:
    """ONNX's Gelu (opset 20, both approximations) and GELU as exporters write it below."""
    from onnx import TensorProto, helper, numpy_helper

    def model(nodes: list[Any], opset: int, constants: dict[str, float]) -> Any:
        graph = helper.make_graph(
            nodes,
            "gelu",
            [helper.make_tensor_value_info("x", TensorProto.FLOAT, [64, 300])],
            [helper.make_tensor_value_info("y", TensorProto.FLOAT, [64, 300])],
            [numpy_helper.from_array(np.array(v, np.float32), k) for k, v in constants.items()],
        )
        made = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
        made.ir_version = 8  # what the installed onnxruntime reads
        return made

    node = helper.make_node
    exported = [
        node("Div", ["x", "sqrt2"], ["d"]),
        node("Erf", ["d"], ["e"]),
        node("Add", ["e", "one"], ["a"]),
        node("Mul", ["x", "a"], ["m"]),
        node("Mul", ["m", "half"], ["y"]),
    ]
    return {
        "none": model([node("Gelu", ["x"], ["y"])], 20, {}),
        "tanh": model([node("Gelu", ["x"], ["y"], approximate="tanh")], 20, {}),
        "exported": model(exported, 17, {"sqrt2": math.sqrt(2.0), "one": 1.0, "half": 0.5}),
    }


@pytest.mark.parametrize("form", ["none", "tanh", "exported"])
def test_gelu_vectorized_matches_onnxruntime(form: str) -> None:
    """GELU compiles to vector polynomials (no libm erf or tanh call per lane), is within 2 ulp
    of |x| of the double-precision GELU (1 + erf(x) cancels for negative x, so the error bound
    scales with x, not with the result) and within 4 of onnxruntime's, over inputs that cover
    erf's two ranges and its saturation."""
    ort = pytest.importorskip("onnxruntime")
    from xtvm.api.relay.frontend import from_onnx
    from xtvm.contrib import graph_executor

    model = gelu_models()[form]
    x = np.concatenate([RNG.uniform(-6, 6, 64 * 150), RNG.standard_normal(64 * 150)]).astype(
        np.float32
    )
    x = x.reshape(64, 300)
    x[0, :6] = [0.0, -0.0, 1.0, -1.0, 3.92, -3.92]
    mod, params = from_onnx(model)
    factory = relay.build(mod, target="llvm", params=params)
    assert not {"erff", "tanhf"} & set(
        re.findall(r"call \w+ @(\w+)", factory.get_lib().get_source())
    )
    executor = graph_executor.GraphModule(factory["default"](tvm.cpu()))
    executor.set_input("x", x)
    executor.run()
    got = executor.get_output(0).numpy()
    session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    (theirs,) = session.run(None, {"x": x})
    v = x.astype(np.float64)
    if form == "tanh":
        exact = 0.5 * v * (1 + np.tanh(math.sqrt(2 / math.pi) * (v + 0.044715 * v**3)))
    else:
        exact = 0.5 * v * (1 + np.vectorize(math.erf)(v / math.sqrt(2)))
    ulp = np.spacing(np.maximum(np.abs(x), np.finfo(np.float32).tiny))
    assert (np.abs(got - exact) / ulp).max() <= 2.0
    assert (np.abs(got - theirs) / ulp).max() <= 4.0
    np.testing.assert_array_equal(np.signbit(got[0, :2]), [False, True])  # gelu(-0) = -0


@pytest.mark.parametrize("shape", [(7, 1000), (3, 1024), (5, 48), (4, 37)])
@pytest.mark.parametrize(
    "body",
    [
        pytest.param(lambda x: relay.sum(x, axis=-1), id="sum"),
        pytest.param(lambda x: relay.mean(x, axis=-1, keepdims=True), id="mean"),
        pytest.param(lambda x: relay.nn.softmax(x), id="softmax"),
        pytest.param(lambda x: relay.nn.log_softmax(x), id="log_softmax"),
    ],
)
def test_row_reductions_vectorized_along_the_row(
    shape: tuple[int, int], body: Callable[[Any], Any]
) -> None:
    """A sum along a contiguous last axis (softmax's, a mean's) runs on vectors of partial
    sums, rows that no vector divides included, and matches the relay interpreter."""
    check_vectorized_build(body, RNG.standard_normal(shape).astype("float32"), 1e-5)


def test_row_sum_reads_whole_vectors_of_the_row() -> None:
    from xtvm.driver.relay_build import lower_for_build

    x = relay.var("x", shape=(7, 1024))
    mod = tvm.IRModule.from_expr(relay.Function([x], relay.sum(x, axis=-1)))
    _, kernels = lower_for_build(mod)
    text = str(kernels)
    assert "vector.load %x" in text and "vector<64xf32>" in text, text
