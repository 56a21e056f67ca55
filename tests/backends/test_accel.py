"""The accel backend on the VTA-like example: tiled GEMMs tensorized with the target's 8x8x8
intrinsic run on the C simulator, checked against numpy, with the simulator's DMA and intrinsic
counters equal to the schedule's analytic counts; the emitted C; located errors for scratchpad
overflow, a missing DMA, a tile outside its scratchpad and bad target files."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

import xtvm
from xtvm import te
from xtvm.backends.accel import render_accel
from xtvm.backends.c import CodegenError
from xtvm.ir.diagnostics import DiagnosticError
from xtvm.target import get_target, load
from xtvm.testing import load_file

# The tests load accel targets (their scopes, intrinsics, reference functions).
pytestmark = pytest.mark.usefixtures("preserve_registries")

VTA = Path(__file__).parent.parent.parent / "examples" / "accelerators" / "vta"
run_gemm = load_file("vta_run_gemm", VTA / "run_gemm.py")

CHECKED = (
    "inp_load_bytes",
    "wgt_load_bytes",
    "acc_store_bytes",
    "load_bytes",
    "store_bytes",
    "gemm_calls",
    "gemm_reset_calls",
)


def assert_counts_match(result: dict[str, object]) -> None:
    counted, analytic = result["counted"], result["analytic"]
    assert isinstance(counted, dict) and isinstance(analytic, dict)
    for name in CHECKED:
        assert counted[name] == analytic[name], (name, counted[name], analytic[name])
    assert counted["acc_load_bytes"] == 0


@pytest.mark.parametrize(
    "gemm",
    [
        run_gemm.Gemm(64, 64, 64, 32, 32, 32),
        run_gemm.Gemm(32, 48, 64, 16, 16, 32),  # uneven block counts per dimension
        run_gemm.Gemm(16, 16, 16, 8, 8, 8),  # the smallest tiles: one intrinsic per tile
    ],
    ids=str,
)
def test_tensorized_gemm_matches_numpy_and_the_analytic_dma_counts(gemm: object) -> None:
    result = run_gemm.run_gemm(gemm)
    assert result["correct"]
    assert_counts_match(result)


def test_gemm_256_on_the_simulator() -> None:
    """The example's headline case: 256x256x256 in 64x64x64 scratchpad tiles."""
    gemm = run_gemm.Gemm(256, 256, 256)
    result = run_gemm.run_gemm(gemm)
    assert result["correct"]
    assert_counts_match(result)
    counted = result["counted"]
    assert isinstance(counted, dict)
    assert counted["load_bytes"] == 2 * 256 * 256 * (256 // 64)  # A and B once per block
    assert counted["macs"] == 256**3


def test_conv2d_as_im2col_gemm() -> None:
    result = run_gemm.run_conv2d(size=8, channels=8, filters=16)
    assert result["correct"]
    assert_counts_match(result)


@pytest.mark.parametrize(
    ("size", "channels", "filters", "rows"), [(8, 8, 8, 4), (16, 16, 8, 8)], ids=str
)
def test_direct_conv2d_tensorized_with_the_gemm_intrinsic(
    size: int, channels: int, filters: int, rows: int
) -> None:
    """VTA's convolution: the intrinsic's input tile is a strided window of the input rows
    (its offset moves with kh and kw), weights HWOI; counters equal the schedule's."""
    result = run_gemm.run_conv2d_direct(size, channels, filters, rows)
    assert result["correct"]
    counted, analytic = result["counted"], result["analytic"]
    assert isinstance(counted, dict) and isinstance(analytic, dict)
    assert {name: counted[name] for name in analytic} == analytic


def test_elementwise_add_on_the_alu_intrinsic() -> None:
    """Both operands DMA'd into the accumulator, added by the 1x8 ALU intrinsic."""
    result = run_gemm.run_add(m=8, n=32, tile_n=16)
    assert result["correct"]
    counted, analytic = result["counted"], result["analytic"]
    assert isinstance(counted, dict) and isinstance(analytic, dict)
    assert {name: counted[name] for name in analytic} == analytic


def test_reference_executor_runs_intrinsics_by_their_semantics() -> None:
    """The tir interpreter runs a tensorized kernel, the intrinsic calls evaluated from the
    target's own te declaration (no C involved)."""
    import numpy as np

    from xtvm.runtime.tir_interpreter import run
    from xtvm.target.reference import register_reference

    register_reference(run_gemm.load_target())
    s, args = run_gemm.schedule_gemm(run_gemm.Gemm(16, 8, 32, 8, 8, 16))
    module = xtvm.lower(s, args, name="gemm")
    rng = np.random.default_rng(5)
    a = rng.integers(-128, 128, (16, 32), dtype=np.int8)
    b = rng.integers(-128, 128, (8, 32), dtype=np.int8)
    c = np.zeros((16, 8), dtype=np.int32)
    run(module.xdsl, "gemm", a, b, c)
    np.testing.assert_array_equal(c, a.astype(np.int32) @ b.astype(np.int32).T)


def test_emitted_c_uses_scratchpads_dma_and_intrinsics() -> None:
    source = run_gemm.run_gemm(run_gemm.Gemm(16, 16, 16, 8, 8, 8))["source"]
    assert isinstance(source, str)
    assert '#include "vta_sim.h"' in source
    assert "static int8_t vta_inp[32768] __attribute__((aligned(16)));" in source
    assert "static int32_t vta_acc[32768] __attribute__((aligned(64)));" in source
    assert "vta_load_inp(A_inp, A + " in source
    assert "vta_store_acc(C + " in source
    assert "vta_gemm_reset(C_acc_view, 8);" in source
    assert "vta_gemm_update(C_acc_view, A_inp_view, B_wgt_view, 8, 8, 8);" in source
    # The target's functions come from its header, not from prototypes in the source.
    assert "void vta_gemm_update(" not in source


def test_tile_larger_than_its_scratchpad_is_an_error() -> None:
    target = run_gemm.load_target()
    s, args = run_gemm.schedule_gemm(run_gemm.Gemm(256, 64, 256, 256, 64, 256))
    module = xtvm.lower(s, args, name="too_big")
    with pytest.raises(CodegenError) as info:
        render_accel(module.xdsl, target)
    message = str(info.value)
    assert "'memref.alloc' op buffer 'A.inp' of 65536 bytes does not fit scratchpad 'inp'" in (
        message
    )
    assert "(32768 bytes, 0 in use)" in message


def test_buffers_of_one_scratchpad_do_not_overlap() -> None:
    """Two live tiles of `acc` get disjoint, aligned places."""
    target = run_gemm.load_target()
    A = te.placeholder((64,), "int32", name="A")
    B = te.placeholder((64,), "int32", name="B")
    C = te.compute((64,), lambda i: A[i] + B[i], name="C")
    s = te.create_schedule(C.op)
    s.cache_read(A, "acc", [C])
    s.cache_read(B, "acc", [C])
    source = render_accel(xtvm.lower(s, [A, B, C], name="add").xdsl, target)
    assert "int32_t *restrict B_acc = vta_acc + 0;" in source
    assert "int32_t *restrict A_acc = vta_acc + 64;" in source
    assert "vta_load_acc(A_acc, A, 1, 64, 0, 0);" in source


def test_copy_without_a_dma_function_is_an_error(tmp_path: Path) -> None:
    path = tmp_path / "nodma.mlir"
    path.write_text(
        'accel.target @nodma {\n  accel.memory "nodma_spad" size 1024 align 16 : f32\n'
        '  accel.dma "nodma_load" load "nodma_spad"\n}\n'
    )
    target = load(path)
    A = te.placeholder((16,), name="A")
    B = te.compute((16,), lambda i: A[i] * 2.0, name="B")
    s = te.create_schedule(B.op)
    s.cache_write(B, "nodma_spad")
    with pytest.raises(CodegenError, match="target @nodma has no store DMA for scratchpad"):
        render_accel(xtvm.lower(s, [A, B], name="scale").xdsl, target)


def test_tensorizing_a_tile_outside_its_scratchpad_is_an_error() -> None:
    run_gemm.load_target()
    A = te.placeholder((8, 8), "int8", name="A")
    B = te.placeholder((8, 8), "int8", name="B")
    k = te.reduce_axis((0, 8), name="k")
    C = te.compute(
        (8, 8),
        lambda i, j: te.sum(A[i, k].astype("int32") * B[j, k].astype("int32"), axis=k),
        name="C",
    )
    s = te.create_schedule(C.op)
    s[C].tensorize(C.op.axis[0], "vta_gemm_8x8x8")
    with pytest.raises(DiagnosticError, match="must be in scratchpad 'inp' of target @vta"):
        xtvm.lower(s, [A, B, C], name="uncached")


def test_target_file_errors_are_located(tmp_path: Path) -> None:
    path = tmp_path / "bad.mlir"
    path.write_text(
        'accel.target @bad {\n  accel.memory "bad_spad" size 1024 align 16 : i8\n'
        '  accel.dma "bad_load" load "elsewhere"\n}\n'
    )
    with pytest.raises(DiagnosticError) as info:
        load(path)
    rendered = info.value.render()
    assert "bad.mlir:3:3: error: 'accel.dma' op moves data of unknown memory 'elsewhere'" in (
        rendered
    )
    with pytest.raises(DiagnosticError, match="cannot open target file"):
        load(tmp_path / "missing.mlir")
    again = tmp_path / "vta_again.mlir"
    again.write_text((VTA / "vta.mlir").read_text())
    run_gemm.load_target()
    with pytest.raises(DiagnosticError, match="accel target 'vta' is already registered"):
        load(again)


# ---------------------------------------------------------------------------------------------
# An out-of-tree accelerator: examples/plugins/tiny_accel

PLUGIN = Path(__file__).parent.parent.parent / "examples" / "plugins" / "tiny_accel"


@pytest.fixture
def forget_tiny_predicates() -> Iterator[None]:
    """The plugin's op predicates are global: other tests must not see them."""
    from xtvm.passes.byoc_targets import unregister_target

    yield
    unregister_target("tiny")


@pytest.mark.usefixtures("forget_tiny_predicates")
def test_plugin_found_through_the_entry_point_group(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """An installed package publishing `xtvm.plugins` is loaded by xtvm-opt without a flag
    (installation simulated by a dist-info folder on the path)."""
    from xtvm.tools import opt

    info = tmp_path / "xtvm_tiny_accel-0.1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: xtvm-tiny-accel\nVersion: 0.1.0\n")
    (info / "entry_points.txt").write_text("[xtvm.plugins]\ntiny = tiny_accel:xtvm_plugin\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.syspath_prepend(str(PLUGIN))
    source = tmp_path / "dense.mlir"
    source.write_text(
        "func.func @f(%x: tensor<4x8xf32>, %w: tensor<4x8xf32>) -> tensor<4x4xf32> {\n"
        "  %d = relay.nn.dense %x, %w : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x4xf32>\n"
        "  tiny.fence\n"
        "  func.return %d : tensor<4x4xf32>\n}\n"
    )
    assert opt.main([str(source), "-p", "relay-annotate-target{targets=tiny}"]) == 0
    out = capsys.readouterr().out
    assert '{compiler = "tiny"}' in out and "tiny.fence" in out


@pytest.mark.usefixtures("forget_tiny_predicates")
def test_plugin_accelerator_runs_a_tensorized_matmul(monkeypatch: pytest.MonkeyPatch) -> None:
    """The plugin's own target, intrinsic and simulator: a 16x32x16 f32 matmul, 4x4x4 blocks."""
    import ctypes

    import numpy as np

    from xtvm.backends.accel import build_accel, load_simulator
    from xtvm.tools.opt import Plugins

    monkeypatch.syspath_prepend(str(PLUGIN))
    import tiny_accel

    from xtvm.dialects.registry import default_context

    tiny_accel.xtvm_plugin(Plugins(default_context()))
    target = get_target("tiny")
    sim = load_simulator([tiny_accel.SIMULATOR])
    m, n, k_extent, tile = 16, 16, 32, 8
    A = te.placeholder((m, k_extent), name="A")
    B = te.placeholder((k_extent, n), name="B")
    k = te.reduce_axis((0, k_extent), name="k")
    C = te.compute((m, n), lambda i, j: te.sum(A[i, k] * B[k, j], axis=k), name="C")
    s = te.create_schedule(C.op)
    CL = s.cache_write(C, "tiny_acc")
    AA = s.cache_read(A, "tiny_spad", [CL])
    BB = s.cache_read(B, "tiny_spad", [CL])
    _, jo, _, _ = s[C].tile(*s[C].op.axis, tile, tile)
    s[CL].compute_at(s[C], jo)
    ic, jc = s[CL].op.axis
    ko, ki = s[CL].split(s[CL].op.reduce_axis[0], factor=tile)
    ico, ici = s[CL].split(ic, factor=4)
    jco, jci = s[CL].split(jc, factor=4)
    kio, kii = s[CL].split(ki, factor=4)
    s[CL].reorder(ko, ico, jco, kio, ici, jci, kii)
    s[AA].compute_at(s[CL], ko)
    s[BB].compute_at(s[CL], ko)
    s[CL].tensorize(ici, "tiny_matmul_4x4x4")
    kernel = build_accel(xtvm.lower(s, [A, B, C], name="mm").xdsl, target, sim)
    rng = np.random.default_rng(3)
    a = rng.standard_normal((m, k_extent)).astype(np.float32)
    b = rng.standard_normal((k_extent, n)).astype(np.float32)
    c = np.zeros((m, n), dtype=np.float32)
    sim.tiny_sim_reset()
    kernel(a, b, c)
    np.testing.assert_allclose(c, a @ b, rtol=1e-5, atol=1e-5)
    sim.tiny_sim_dma_bytes.restype = ctypes.c_int64
    sim.tiny_sim_matmul_calls.restype = ctypes.c_int64
    blocks, chunks = (m // tile) * (n // tile), k_extent // tile
    expected = 4 * (blocks * chunks * 2 * tile * tile + m * n)  # A and B tiles in, C out
    assert sim.tiny_sim_dma_bytes() == expected
    assert sim.tiny_sim_matmul_calls() == (m // 4) * (n // 4) * (k_extent // 4)


def test_scratchpad_overflow_points_at_the_allocation_in_the_source() -> None:
    """tir text in, the error at the memref.alloc that does not fit, with file:line:col."""
    from xtvm.dialects.registry import default_context

    target = run_gemm.load_target()
    text = (
        "func.func @big(%A: memref<40000xi8>) {\n"
        '  %small = memref.alloc() : memref<1024xi8, "inp">\n'
        '  %big = memref.alloc() : memref<32000xi8, "inp">\n'
        '  memref.dealloc %big : memref<32000xi8, "inp">\n'
        '  memref.dealloc %small : memref<1024xi8, "inp">\n'
        "  func.return\n}\n"
    )
    module = default_context().parse(text, "kernel.mlir")
    with pytest.raises(CodegenError) as info:
        render_accel(module, target)
    assert info.value.render().startswith(
        "kernel.mlir:3:10: error: 'memref.alloc' op buffer 'big' of 32000 bytes does not fit "
        "scratchpad 'inp' of target @vta (32768 bytes, 1024 in use)"
    )


def test_buffer_of_another_element_type_than_its_scratchpad_is_an_error() -> None:
    from xtvm.dialects.registry import default_context

    text = (
        "func.func @typed() {\n"
        '  %x = memref.alloc() : memref<16xf32, "inp">\n'
        '  memref.dealloc %x : memref<16xf32, "inp">\n'
        "  func.return\n}\n"
    )
    module = default_context().parse(text, "typed.mlir")
    with pytest.raises(CodegenError) as info:
        render_accel(module, run_gemm.load_target())
    assert info.value.render().startswith(
        "typed.mlir:2:8: error: 'memref.alloc' op buffer of f32 cannot live in scratchpad 'inp' "
        "of target @vta, whose elements are i8"
    )


def test_rows_contiguous_on_both_sides_make_one_dma_row() -> None:
    """With TK = K, an input tile is one contiguous block of A: one row of 8 x 16 elements;
    the weight tile (TN = N too) as well, and the output tile's rows are contiguous in C."""
    result = run_gemm.run_gemm(run_gemm.Gemm(16, 8, 16, 8, 8, 16))
    assert result["correct"]
    assert_counts_match(result)
    source = result["source"]
    assert isinstance(source, str)
    assert "vta_load_inp(A_inp, A + (A_inp_ax0_start) * 16, 1, 128, 0, 0);" in source
    assert "vta_load_wgt(B_wgt, B, 1, 128, 0, 0);" in source
