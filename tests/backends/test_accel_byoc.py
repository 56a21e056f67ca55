"""The `accel` codegen: relay GEMMs partitioned for an accel target (the tiny_accel plugin's f32
4x4x4 matmul) run tensorized on its simulator through relay.build and the graph executor,
matching the all-CPU build; the simulator's counters equal the schedule's intrinsic calls and
DMA bytes; ops the target's intrinsic cannot run stay on the host."""

from __future__ import annotations

import ctypes
import shutil
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from xdsl.dialects import func

import xtvm as tvm
from xtvm import relay
from xtvm.api.relay.op.contrib.accel import partition_for_accel
from xtvm.backends.external.accel import (
    NAME,
    TARGET_ATTR,
    AccelKernel,
    gemm_intrinsic,
    offloaded_kernels,
    register_accel_runtime,
    runtime_of,
    unregister_accel_offload,
)
from xtvm.contrib import graph_executor
from xtvm.ir.diagnostics import DiagnosticError
from xtvm.target import AccelTarget, load

ROOT = Path(__file__).parent.parent.parent
TINY = ROOT / "examples" / "plugins" / "tiny_accel" / "tiny_accel"
VTA = ROOT / "examples" / "accelerators" / "vta" / "vta.mlir"
RNG = np.random.default_rng(11)
F32 = 4  # bytes

pytestmark = [
    pytest.mark.skipif(shutil.which("gcc") is None, reason="no C compiler"),
    # The tests load accel targets (their scopes, intrinsics, offload predicates).
    pytest.mark.usefixtures("preserve_registries"),
]


@pytest.fixture
def tiny() -> Iterator[AccelTarget]:
    """The plugin's target; the offload predicates it registers are forgotten afterwards."""
    yield load(TINY / "tiny.mlir")
    unregister_accel_offload()


def rand(*shape: int) -> np.ndarray:
    return RNG.standard_normal(shape).astype("float32")


def run(factory: object, **inputs: np.ndarray) -> np.ndarray:
    module = graph_executor.GraphModule(factory["default"](tvm.cpu()))  # type: ignore[index]
    module.run(**inputs)
    return module.get_output(0).numpy()


def counters(factory: object) -> tuple[int, int]:
    """The tiny simulator's (matmul calls, DMA bytes), linked into the external library."""
    library = factory.get_lib().imported_modules[0]._keepalive  # type: ignore[attr-defined]
    for name in ("tiny_sim_matmul_calls", "tiny_sim_dma_bytes"):
        getattr(library, name).restype = ctypes.c_int64
    return library.tiny_sim_matmul_calls(), library.tiny_sim_dma_bytes()


def accel_functions(mod: tvm.IRModule) -> list[func.FuncOp]:
    return [f for f in mod.xdsl.ops if isinstance(f, func.FuncOp) and "compiler" in f.attributes]


def host_ops(mod: tvm.IRModule) -> list[str]:
    main = mod.xdsl.ops.first
    assert isinstance(main, func.FuncOp)
    return [op.name for op in main.body.block.ops]


def expected_traffic(kernels: list[AccelKernel]) -> tuple[int, int]:
    """Intrinsic calls (4x4x4 blocks of the GEMMs padded to their tiles) and DMA bytes of the
    schedule: A loaded once per column of output tiles, B once per row, G stored once (f32)."""
    calls = sum((t.m // 4) * (t.n // 4) * (t.k // 4) for t in (k.tiling for k in kernels))
    moved = 0
    for t in (k.tiling for k in kernels):
        moved += F32 * (t.m * t.k * (t.n // t.tn) + t.n * t.k * (t.m // t.tm) + t.m * t.n)
    assert calls == sum(k.intrinsic_calls for k in kernels)
    return calls, moved


def mlp() -> tuple[tvm.IRModule, dict[str, np.ndarray]]:
    shapes = {"x": (16, 32), "w1": (24, 32), "b1": (24,), "w2": (8, 24)}
    v = {n: relay.var(n, shape=s) for n, s in shapes.items()}
    y = relay.nn.relu(relay.nn.bias_add(relay.nn.dense(v["x"], v["w1"]), v["b1"]))
    y = relay.nn.dense(y, v["w2"])
    mod = tvm.IRModule.from_expr(relay.Function(list(v.values()), y))
    return mod, {n: rand(*s) for n, s in shapes.items()}


def test_intrinsic_read_from_the_target(tiny: AccelTarget) -> None:
    gemm = gemm_intrinsic(tiny)
    assert gemm is not None
    assert (gemm.block, gemm.a_layout, gemm.b_layout) == ((4, 4, 4), "ik", "kj")
    assert (gemm.a_scope, gemm.b_scope, gemm.out_scope) == ("tiny_spad", "tiny_spad", "tiny_acc")
    vta = gemm_intrinsic(load(VTA))
    assert vta is not None
    assert (vta.block, vta.b_layout, vta.a_dtype, vta.out_dtype) == (
        (8, 8, 8),
        "jk",
        "int8",
        "int32",
    )


def test_dense_bias_relu_dense_runs_on_the_accelerator(tiny: AccelTarget) -> None:
    mod, inputs = mlp()
    partitioned = partition_for_accel(mod, tiny)
    (function,) = accel_functions(partitioned)
    assert function.attributes[TARGET_ATTR].data == "tiny"  # type: ignore[attr-defined]
    assert host_ops(partitioned) == ["func.call", "func.return"]
    kernels = offloaded_kernels(function)
    assert [k.name for k in kernels] == ["accel_dense_0", "accel_dense_1"]
    factory = relay.build(partitioned)
    got = run(factory, **inputs)
    cpu = run(relay.build(mod), **inputs)
    np.testing.assert_allclose(got, cpu, rtol=1e-5, atol=1e-5)
    # 16x24x32 and 16x8x24 in 4x4x4 blocks; each GEMM fits the scratchpads in one tile.
    assert expected_traffic(kernels) == (4 * 6 * 8 + 4 * 2 * 6, 6656 + 2816)
    assert counters(factory) == expected_traffic(kernels)
    source = factory.get_lib().imported_modules[0].get_source()
    assert '#include "tiny_sim.h"' in source
    assert "static int32_t fused_nn_bias_add_nn_relu(" in source  # the host part, as C
    assert "tiny_matmul_acc(" in source and "tiny_load(" in source and "tiny_store(" in source


def test_xtvm_compile_loads_the_target(tiny: AccelTarget, tmp_path: Path) -> None:
    """A partitioned module written as text compiles from the command line with
    `--load-target`; a missing target file is a one-line error."""
    from xtvm.dialects.registry import default_context
    from xtvm.ir.printer import print_ir
    from xtvm.runtime.graph_executor import load_factory
    from xtvm.tools import compile as xtvm_compile

    mod, inputs = mlp()
    source = tmp_path / "mlp.mlir"
    source.write_text(print_ir(partition_for_accel(mod, tiny).xdsl, default_context()))
    weights = {k: v for k, v in inputs.items() if k != "x"}
    np.savez(tmp_path / "w.npz", **weights)
    library = tmp_path / "mlp.so"
    argv = [str(source), "--load-target", str(TINY / "tiny.mlir"), "--params"]
    assert xtvm_compile.main([*argv, str(tmp_path / "w.npz"), "-o", str(library)]) == 0
    np.testing.assert_allclose(
        run(load_factory(library), x=inputs["x"]),
        run(relay.build(mod), **inputs),
        rtol=1e-5,
        atol=1e-5,
    )
    missing = [str(source), "--load-target", str(tmp_path / "none.mlir")]
    assert xtvm_compile.main(missing) == 1


def test_exported_library_carries_the_simulator(tiny: AccelTarget, tmp_path: Path) -> None:
    """export_library links the accel C and the target's runtime into the one .so."""
    from xtvm.runtime.graph_executor import load_factory

    mod, inputs = mlp()
    factory = relay.build(partition_for_accel(mod, tiny))
    factory.export_library(tmp_path / "net.so")
    np.testing.assert_array_equal(
        run(load_factory(tmp_path / "net.so"), **inputs), run(factory, **inputs)
    )


def test_large_padded_dense_is_tiled_to_the_scratchpads(tiny: AccelTarget) -> None:
    """50x90x70 in tiles that fit tiny_acc (4 KiB) and tiny_spad (16 KiB) together; padding to
    whole tiles (56x96x72, not only to whole 4x4x4 blocks, 52x92x72, whose only tiles would be
    4 or 52 rows, 4 or 92 columns) costs 12% more intrinsic calls and saves 2/3 of the DMA."""
    x, w = relay.var("x", shape=(50, 70)), relay.var("w", shape=(90, 70))
    mod = tvm.IRModule.from_expr(relay.Function([x, w], relay.nn.dense(x, w)))
    partitioned = partition_for_accel(mod, tiny)
    (kernel,) = offloaded_kernels(accel_functions(partitioned)[0])
    t = kernel.tiling
    assert t.tm * t.tn * F32 <= 4096 and (t.tm + t.tn) * t.tk * F32 <= 16384
    assert (t.m // t.tm) * (t.n // t.tn) > 1  # more than one output tile
    assert (t.m, t.n, t.k) == (56, 96, 72) and (t.tm, t.tn, t.tk) == (28, 32, 36)
    factory = relay.build(partitioned)
    inputs = {"x": rand(50, 70), "w": rand(90, 70)}
    np.testing.assert_allclose(
        run(factory, **inputs), inputs["x"] @ inputs["w"].T, rtol=1e-4, atol=1e-4
    )
    assert counters(factory) == expected_traffic([kernel]) == (14 * 24 * 18, 125184)
    blocks_only = F32 * (52 * 72 * 1 + 92 * 72 * 13 + 52 * 92)  # 4x92 tiles on 52x92x72
    assert (13 * 23 * 18, blocks_only) == (5382, 378560)


@pytest.mark.parametrize(
    ("batch", "channels", "size", "filters", "stride", "kernel"),
    [(1, 3, 10, 8, 1, 3), (2, 4, 9, 16, 2, 3), (1, 8, 8, 12, 1, 1)],
    ids=str,
)
def test_conv2d_bias_relu_as_im2col_gemm(
    tiny: AccelTarget, batch: int, channels: int, size: int, filters: int, stride: int, kernel: int
) -> None:
    """3x3 convolutions (padded, strided, batched) through an im2col host stage; a 1x1 one
    needs none: its input is B as tiny's intrinsic reads it ([k, j]), DMA'd from the argument."""
    x = relay.var("x", shape=(batch, channels, size, size))
    w = relay.var("w", shape=(filters, channels, kernel, kernel))
    b = relay.var("b", shape=(filters,))
    pad = kernel // 2
    conv = relay.nn.conv2d(x, w, strides=(stride, stride), padding=(pad, pad))
    mod = tvm.IRModule.from_expr(
        relay.Function([x, w, b], relay.nn.relu(relay.nn.bias_add(conv, b)))
    )
    inputs = {
        "x": rand(batch, channels, size, size),
        "w": rand(filters, channels, kernel, kernel),
        "b": rand(filters),
    }
    partitioned = partition_for_accel(mod, tiny)
    (gemm,) = offloaded_kernels(accel_functions(partitioned)[0])
    out = (size - 1) // stride + 1
    sizes = (filters, batch * out * out, channels * kernel * kernel)
    assert (gemm.gemm.m, gemm.gemm.n, gemm.gemm.k) == sizes
    factory = relay.build(partitioned)
    np.testing.assert_allclose(
        run(factory, **inputs), run(relay.build(mod), **inputs), rtol=1e-4, atol=1e-4
    )
    assert counters(factory) == expected_traffic([gemm])
    source = factory.get_lib().imported_modules[0].get_source()
    assert ("float B_kj[" in source) == (kernel != 1)


@pytest.mark.parametrize(("transpose_a", "transpose_b"), [(False, False), (True, True)], ids=str)
def test_matmul_transposed_operands_take_host_stages(
    tiny: AccelTarget, transpose_a: bool, transpose_b: bool
) -> None:
    """tiny's intrinsic reads A[i, k] and B[k, j]: a plain matmul is DMA'd from its arguments,
    transposed operands go through a host transpose first; the results agree."""
    a_shape, b_shape = (
        ((24, 16) if transpose_a else (16, 24)),
        ((8, 24) if transpose_b else (24, 8)),
    )
    a, b = relay.var("a", shape=a_shape), relay.var("b", shape=b_shape)
    call = relay.nn.matmul(a, b, transpose_a=transpose_a, transpose_b=transpose_b)
    mod = tvm.IRModule.from_expr(relay.Function([a, b], call))
    partitioned = partition_for_accel(mod, tiny)
    (kernel,) = offloaded_kernels(accel_functions(partitioned)[0])
    assert (kernel.gemm.m, kernel.gemm.n, kernel.gemm.k) == (16, 8, 24)
    inputs = {"a": rand(*a_shape), "b": rand(*b_shape)}
    factory = relay.build(partitioned)
    lhs = inputs["a"].T if transpose_a else inputs["a"]
    rhs = inputs["b"].T if transpose_b else inputs["b"]
    np.testing.assert_allclose(run(factory, **inputs), lhs @ rhs, rtol=1e-5, atol=1e-5)
    assert (
        counters(factory)
        == expected_traffic([kernel])
        == (4 * 2 * 6, F32 * (16 * 24 + 24 * 8 + 16 * 8))
    )
    source = factory.get_lib().imported_modules[0].get_source()
    assert ("float A_ik[" in source, "float B_kj[" in source) == (transpose_a, transpose_b)


@pytest.mark.parametrize("transpose_a", [False, True], ids=str)
def test_batch_matmul_with_shared_weights_is_one_gemm(tiny: AccelTarget, transpose_a: bool) -> None:
    """x[3, 8, 16] @ y[0].T: one 24x12x16 GEMM (rows (b, m)); a batch-transposed x first goes
    through a host stage. Weights per batch element stay on the host."""
    x_shape = (3, 16, 8) if transpose_a else (3, 8, 16)
    x, y = relay.var("x", shape=x_shape), relay.var("y", shape=(1, 12, 16))
    z = relay.var("z", shape=(2, 12, 16))
    shared = relay.nn.batch_matmul(x, y, transpose_a=transpose_a)
    per_batch = relay.nn.batch_matmul(relay.var("u", shape=(2, 8, 16)), z)
    mod = tvm.IRModule.from_expr(relay.Function([x, y], shared))
    partitioned = partition_for_accel(mod, tiny)
    (kernel,) = offloaded_kernels(accel_functions(partitioned)[0])
    assert (kernel.gemm.m, kernel.gemm.n, kernel.gemm.k) == (24, 12, 16)
    inputs = {"x": rand(*x_shape), "y": rand(1, 12, 16)}
    factory = relay.build(partitioned)
    lhs = inputs["x"].transpose(0, 2, 1) if transpose_a else inputs["x"]
    np.testing.assert_allclose(run(factory, **inputs), lhs @ inputs["y"][0].T, rtol=1e-5, atol=1e-5)
    assert counters(factory) == expected_traffic([kernel])
    unshared = partition_for_accel(
        tvm.IRModule.from_expr(relay.Function([*per_batch.args], per_batch)), tiny
    )
    assert host_ops(unshared).count("relay.nn.batch_matmul") == 1


VTA_COUNTERS = (
    *("load_bytes", "store_bytes", "inp_load_bytes", "wgt_load_bytes", "acc_load_bytes"),
    *("acc_store_bytes", "dma_calls", "gemm_calls", "gemm_reset_calls", "alu_calls", "macs"),
)
"""vta_sim.h's `vta_counters_t`, in order."""


def vta_counters(factory: object) -> dict[str, int]:
    class Counters(ctypes.Structure):
        _fields_ = [(name, ctypes.c_int64) for name in VTA_COUNTERS]

    counted = Counters()
    library = factory.get_lib().imported_modules[0]._keepalive  # type: ignore[attr-defined]
    library.vta_sim_read_counters(ctypes.byref(counted))
    return {name: int(getattr(counted, name)) for name in VTA_COUNTERS}


def test_int8_dense_and_conv2d_on_the_vta_gemm() -> None:
    """relay's dense and conv2d have no out_dtype: int8 models widen with casts, which the
    codegen looks through, so the 8x8x8 int8 GEMM reads the int8 tensors (DMA'd as bytes)."""
    vta = load(VTA)
    x = relay.var("x", shape=(32, 64), dtype="int8")
    w = relay.var("w", shape=(48, 64), dtype="int8")
    b = relay.var("b", shape=(48,), dtype="int32")
    image = relay.var("image", shape=(1, 8, 6, 6), dtype="int8")
    kernel = relay.var("kernel", shape=(16, 8, 3, 3), dtype="int8")
    dense = relay.nn.dense(relay.cast(x, "int32"), relay.cast(w, "int32"))
    conv = relay.nn.conv2d(relay.cast(image, "int32"), relay.cast(kernel, "int32"), padding=(1, 1))
    body = relay.Tuple([relay.nn.relu(relay.nn.bias_add(dense, b)), conv])
    mod = tvm.IRModule.from_expr(relay.Function([x, w, b, image, kernel], body))
    inputs = {
        "x": RNG.integers(-128, 128, (32, 64)).astype("int8"),
        "w": RNG.integers(-128, 128, (48, 64)).astype("int8"),
        "b": RNG.integers(-1000, 1000, (48,)).astype("int32"),
        "image": RNG.integers(-128, 128, (1, 8, 6, 6)).astype("int8"),
        "kernel": RNG.integers(-128, 128, (16, 8, 3, 3)).astype("int8"),
    }
    try:
        partitioned = partition_for_accel(mod, vta)
        kernels = [k for f in accel_functions(partitioned) for k in offloaded_kernels(f)]
    finally:
        unregister_accel_offload()
    assert sorted(k.op_name for k in kernels) == ["nn.conv2d", "nn.dense"]
    assert "relay.cast" not in host_ops(partitioned)
    factory = relay.build(partitioned)
    module = graph_executor.GraphModule(factory["default"](tvm.cpu()))
    module.run(**inputs)
    cpu = graph_executor.GraphModule(relay.build(mod)["default"](tvm.cpu()))
    cpu.run(**inputs)
    for k in range(2):
        np.testing.assert_array_equal(module.get_output(k).numpy(), cpu.get_output(k).numpy())
    counted = vta_counters(factory)
    # dense 32x48x64 and conv2d 16x36x72 (36 pixels padded to 40): one tile each.
    assert counted["gemm_calls"] == 4 * 6 * 8 + 2 * 5 * 9
    assert counted["gemm_reset_calls"] == 4 * 6 + 2 * 5
    assert counted["inp_load_bytes"] == 32 * 64 + 16 * 72  # x; the conv's weights (A)
    assert counted["wgt_load_bytes"] == 48 * 64 + 40 * 72  # w; the conv's patches (B)
    assert counted["acc_store_bytes"] == 4 * (32 * 48 + 16 * 40)
    assert counted["macs"] == 512 * counted["gemm_calls"]


def test_ops_the_intrinsic_cannot_run_stay_on_the_host(tiny: AccelTarget) -> None:
    """softmax (no GEMM), a dense mostly padding (2x5x3 in 4x4x4 blocks: 4.3x the work) and a
    float64 dense are not claimed; the f32 dense is."""
    x, w = relay.var("x", shape=(8, 16)), relay.var("w", shape=(8, 16))
    small, ws = relay.var("s", shape=(2, 3)), relay.var("ws", shape=(5, 3))
    wide, ww = (
        relay.var("d", shape=(4, 4), dtype="float64"),
        relay.var("dw", shape=(4, 4), dtype="float64"),
    )
    body = relay.Tuple(
        [
            relay.nn.softmax(relay.nn.dense(x, w)),
            relay.nn.dense(small, ws),
            relay.nn.dense(wide, ww),
        ]
    )
    mod = tvm.IRModule.from_expr(relay.Function([x, w, small, ws, wide, ww], body))
    partitioned = partition_for_accel(mod, tiny)
    assert len(accel_functions(partitioned)) == 1
    ops = host_ops(partitioned)
    assert ops.count("relay.nn.dense") == 2 and "relay.nn.softmax" in ops
    inputs = {"x": rand(8, 16), "w": rand(8, 16), "s": rand(2, 3), "ws": rand(5, 3)}
    inputs |= {"d": RNG.standard_normal((4, 4)), "dw": RNG.standard_normal((4, 4))}
    factory = relay.build(partitioned)
    module = graph_executor.GraphModule(factory["default"](tvm.cpu()))
    module.run(**inputs)
    logits = inputs["x"] @ inputs["w"].T
    softmax = np.exp(logits - logits.max(-1, keepdims=True))
    np.testing.assert_allclose(
        module.get_output(0).numpy(), softmax / softmax.sum(-1, keepdims=True), rtol=1e-5, atol=1e-6
    )
    np.testing.assert_allclose(
        module.get_output(1).numpy(), inputs["s"] @ inputs["ws"].T, rtol=1e-5
    )
    assert counters(factory)[0] == 2 * 2 * 4


def test_predicates_follow_the_target_dtypes(tiny: AccelTarget) -> None:
    """VTA's GEMM takes int8: an f32 dense offered to it stays on the host."""
    mod, _ = mlp()
    partitioned = partition_for_accel(mod, load(VTA))
    assert host_ops(partitioned).count("relay.nn.dense") == 2


def copy_of_tiny(directory: Path, name: str, spad_bytes: int = 16384) -> AccelTarget:
    """tiny under another name (its own header, its intrinsic renamed), `spad_bytes` of
    tiny_spad."""
    text = (TINY / "tiny.mlir").read_text()
    text = text.replace("@tiny ", f"@{name} ").replace('"tiny_sim.h"', f'"{name}.h"')
    text = text.replace("tiny_matmul_4x4x4", f"{name}_matmul_4x4x4")
    text = text.replace('"tiny_spad" size 16384', f'"tiny_spad" size {spad_bytes}')
    (directory / f"{name}.h").write_text(f'#include "{TINY / "tiny_sim.h"}"\n')
    (directory / f"{name}.mlir").write_text(text)
    return load(directory / f"{name}.mlir")


def test_runtime_given_by_python_registration(tmp_path: Path) -> None:
    """A target whose header has no C file beside it: its simulator is registered in Python."""
    target = copy_of_tiny(tmp_path, "tiny_copy")
    assert runtime_of(target) == ((), (str(tmp_path),))
    register_accel_runtime("tiny_copy", [TINY / "tiny_sim.c"], [TINY])
    assert runtime_of(target) == ((TINY / "tiny_sim.c",), (str(tmp_path), str(TINY)))
    mod, inputs = mlp()
    try:
        partitioned = partition_for_accel(mod, target)
    finally:
        unregister_accel_offload()
    factory = relay.build(partitioned)
    np.testing.assert_allclose(
        run(factory, **inputs), run(relay.build(mod), **inputs), rtol=1e-5, atol=1e-5
    )
    assert counters(factory)[0] == 4 * 6 * 8 + 4 * 2 * 6
    assert "static float tiny_copy_tiny_spad[4096]" in (
        factory.get_lib().imported_modules[0].get_source()
    )


def test_no_tiling_fits_scratchpads_too_small(tmp_path: Path) -> None:
    """64 bytes of tiny_spad hold one 4x4 f32 block, not the A and the B block a GEMM needs
    there together: no dense is claimed."""
    target = copy_of_tiny(tmp_path, "tiny_small", spad_bytes=64)
    mod, _ = mlp()
    try:
        partitioned = partition_for_accel(mod, target)
    finally:
        unregister_accel_offload()
    assert host_ops(partitioned).count("relay.nn.dense") == 2


def test_function_without_a_target_is_a_located_error() -> None:
    from xtvm.backends.external import get_codegen
    from xtvm.dialects.registry import default_context

    unregister_accel_offload()
    module = default_context().parse(
        "func.func private @tvmgen_default_accel_main_0(%x: tensor<4x4xf32>) -> tensor<4x4xf32>"
        ' attributes {compiler = "accel", global_symbol = "tvmgen_default_accel_main_0"} {\n'
        "  %y = relay.nn.dense %x, %x : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>\n"
        "  func.return %y : tensor<4x4xf32>\n}\n"
    )
    function = module.ops.first
    with pytest.raises(DiagnosticError, match="names no accel target"):
        get_codegen(NAME)(function, "llvm")  # type: ignore[arg-type]


@pytest.mark.slow
def test_light_squeezenet_with_its_convolutions_on_the_accelerator(tiny: AccelTarget) -> None:
    from xtvm.api.relay.frontend import from_onnx
    from xtvm.testing.onnx_models import light_model

    model, data, x = light_model("squeezenet", RNG)
    mod, params = from_onnx(model)
    partitioned = partition_for_accel(mod, tiny)
    assert "relay.nn.conv2d" not in {op.name for op in partitioned.xdsl.ops.first.walk()}  # type: ignore[union-attr]
    kernels = [k for f in accel_functions(partitioned) for k in offloaded_kernels(f)]
    factory = relay.build(partitioned, params=params)
    got = run(factory, **{data: x})
    cpu = run(relay.build(mod, params=params), **{data: x})
    np.testing.assert_allclose(got, cpu, rtol=1e-4, atol=1e-5 * np.abs(cpu).max())
    assert counters(factory) == expected_traffic(kernels)
