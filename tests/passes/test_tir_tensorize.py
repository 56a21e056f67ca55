"""tir-tensorize: a 64x64x64 matmul split by 8 and tensorized with an 8x8x8 gemm intrinsic
computes numpy's result through an extern C function (LLVM build, C backend) and a
Python-registered one (tir interpreter); a split reduction runs reset then update; nests that
do not match the intrinsic are located errors saying why."""

from __future__ import annotations

import ctypes
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

import xtvm as tvm
from xtvm import te
from xtvm.dialects import te as te_dialect
from xtvm.dialects import tir
from xtvm.ir.diagnostics import DiagnosticError
from xtvm.runtime.tir_interpreter import run
from xtvm.te.lower import schedule_to_module

# The tests register intrinsics and global functions of their own.
pytestmark = pytest.mark.usefixtures("preserve_registries")

N = 64
RNG = np.random.default_rng(0)

GEMM_C = r"""
#include <stdint.h>
/* C[i, j] (+)= sum_k A[i, k] * B[j, k] on 8x8 tiles with row strides sa, sb, sc. */
int xtvm_test_gemm_reset(const float *a, const float *b, float *c, int32_t sa, int32_t sb,
                         int32_t sc) {
  for (int i = 0; i < 8; ++i)
    for (int j = 0; j < 8; ++j) c[i * sc + j] = 0.0f;
  return 0;
}
int xtvm_test_gemm_update(const float *a, const float *b, float *c, int32_t sa, int32_t sb,
                          int32_t sc) {
  for (int i = 0; i < 8; ++i)
    for (int j = 0; j < 8; ++j) {
      float acc = c[i * sc + j];
      for (int k = 0; k < 8; ++k) acc += a[i * sa + k] * b[j * sb + k];
      c[i * sc + j] = acc;
    }
  return 0;
}
int xtvm_test_gemm_body(const float *a, const float *b, float *c, int32_t sa, int32_t sb,
                        int32_t sc) {
  xtvm_test_gemm_reset(a, b, c, sa, sb, sc);
  return xtvm_test_gemm_update(a, b, c, sa, sb, sc);
}
"""


def gemm_intrin(
    prefix: str = "xtvm_test_gemm", strides: bool = True, offset_factor: int = 1
) -> te.TensorIntrin:
    """C[i, j] = sum(A[i, k] * B[j, k]) on 8x8 tiles; extern `<prefix>_{body,reset,update}`."""
    a = te.placeholder((8, 8), name="A")
    b = te.placeholder((8, 8), name="B")
    k = te.reduce_axis((0, 8), name="k")
    c = te.compute((8, 8), lambda i, j: te.sum(a[i, k] * b[j, k], axis=k), name="C")

    def lower(ins: list, outs: list) -> tuple:
        aa, bb = ins
        (cc,) = outs

        def call(part: str) -> object:
            ib = tvm.tir.ir_builder.create()
            pointers = aa.access_ptr("r"), bb.access_ptr("r"), cc.access_ptr("w")
            row_strides = [x.strides[0] if x.strides else 8 for x in (aa, bb, cc)]
            ib.emit(tvm.tir.call_extern("int32", f"{prefix}_{part}", *pointers, *row_strides))
            return ib.get()

        return call("body"), call("reset"), call("update")

    binds = {
        t: tvm.tir.decl_buffer(
            t.shape,
            t.dtype,
            t.name,
            offset_factor=offset_factor,
            strides=[te.var(f"{t.name}_s"), 1] if strides else None,
        )
        for t in (a, b, c)
    }
    return te.decl_tensor_intrin(c.op, lower, name="gemm8x8x8", binds=binds)


def matmul(intrin: object, split_k: bool = True, factor: int = 8) -> tuple:
    """C = A @ B.T over 64x64, tiled by `factor` (and k by 8) and tensorized at i.inner."""
    A = te.placeholder((N, N), name="A")
    B = te.placeholder((N, N), name="B")
    k = te.reduce_axis((0, N if split_k else 8), name="k")
    if not split_k:
        A = te.placeholder((N, 8), name="A")
        B = te.placeholder((N, 8), name="B")
    C = te.compute((N, N), lambda i, j: te.sum(A[i, k] * B[j, k], axis=k), name="C")
    s = te.create_schedule(C.op)
    i, j = C.op.axis
    io, ii = s[C].split(i, factor=factor)
    jo, ji = s[C].split(j, factor=8)
    if split_k:
        ko, ki = s[C].split(k, factor=8)
        s[C].reorder(io, jo, ko, ii, ji, ki)
    else:
        s[C].reorder(io, jo, ii, ji, k)
    s[C].tensorize(ii, intrin)
    return s, (A, B, C), io


def inputs(a_cols: int = N) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    a = RNG.standard_normal((N, a_cols)).astype("float32")
    b = RNG.standard_normal((N, a_cols)).astype("float32")
    return a, b, np.full((N, N), np.nan, dtype="float32")


def register_python_gemm(prefix: str, calls: list[str]) -> None:
    """The gemm parts as Python functions on the numpy views the interpreter passes."""

    def reset(a: np.ndarray, b: np.ndarray, c: np.ndarray, *strides: int) -> None:
        calls.append("reset")
        c[...] = 0

    def update(a: np.ndarray, b: np.ndarray, c: np.ndarray, *strides: int) -> None:
        calls.append("update")
        assert a.shape == b.shape == c.shape == (8, 8) and strides == (a.strides[0] // 4,) * 3
        c += a @ b.T

    def body(a: np.ndarray, b: np.ndarray, c: np.ndarray, *strides: int) -> None:
        calls.append("body")
        c[...] = a @ b.T

    for part, fn in (("reset", reset), ("update", update), ("body", body)):
        tvm.register_func(f"{prefix}_{part}", fn, override=True)


def extern_calls(module: object) -> list[str]:
    return [op.callee.data for op in module.walk() if isinstance(op, tir.CallExternOp)]


# -- numerics -----------------------------------------------------------------------------------


def test_split_reduction_runs_reset_then_update_in_the_interpreter() -> None:
    calls: list[str] = []
    register_python_gemm("py_gemm_split", calls)
    s, args, _ = matmul(gemm_intrin("py_gemm_split"))
    module = tvm.lower(s, list(args)).xdsl
    assert extern_calls(module) == ["py_gemm_split_reset", "py_gemm_split_update"]
    assert not any(isinstance(op, tir.ForOp) and op.annotations for op in module.walk())
    a, b, c = inputs()
    run(module, "main", a, b, c)
    np.testing.assert_allclose(c, a @ b.T, rtol=1e-4, atol=1e-4)
    blocks = (N // 8) ** 2
    assert calls.count("reset") == blocks and calls.count("update") == blocks * (N // 8)


def test_whole_reduction_in_the_nest_runs_the_body() -> None:
    calls: list[str] = []
    register_python_gemm("py_gemm_whole", calls)
    s, args, _ = matmul(gemm_intrin("py_gemm_whole"), split_k=False)
    module = tvm.lower(s, list(args)).xdsl
    assert extern_calls(module) == ["py_gemm_whole_body"]
    a, b, c = inputs(8)
    run(module, "main", a, b, c)
    np.testing.assert_allclose(c, a @ b.T, rtol=1e-4, atol=1e-4)
    assert calls == ["body"] * (N // 8) ** 2


@pytest.fixture(scope="module")
def gemm_c_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("gemm") / "gemm.c"
    path.write_text(GEMM_C)
    return path


@pytest.mark.skipif(shutil.which("gcc") is None, reason="needs gcc")
def test_llvm_build_calls_a_c_library(gemm_c_file: Path) -> None:
    library = gemm_c_file.with_suffix(".so")
    subprocess.run(
        ["gcc", "-O2", "-shared", "-fPIC", "-o", str(library), str(gemm_c_file)], check=True
    )
    ctypes.CDLL(str(library), mode=ctypes.RTLD_GLOBAL)  # the JIT resolves the externs here
    s, args, _ = matmul(gemm_intrin())
    f = tvm.build(s, list(args), "llvm")
    assert "@xtvm_test_gemm_update" in f.get_source()
    a, b, c = inputs()
    f(a, b, c)
    np.testing.assert_allclose(c, a @ b.T, rtol=1e-4, atol=1e-4)


@pytest.mark.skipif(shutil.which("gcc") is None, reason="needs gcc")
def test_c_backend_compiles_the_imported_c_source(gemm_c_file: Path) -> None:
    s, args, io = matmul(gemm_intrin())
    s[args[2]].pragma(io, "import_c", gemm_c_file.read_text())  # TVM's way to ship the C
    f = tvm.build(s, list(args), "c")
    source = f.get_source()
    assert "xtvm_test_gemm_update(A_view, B_view, C_view, 64, 64, 64);" in source
    a, b, c = inputs()
    f(a, b, c)
    np.testing.assert_allclose(c, a @ b.T, rtol=1e-4, atol=1e-4)


def test_one_dimensional_intrinsic_binds_rows_of_a_matrix() -> None:
    """A 16-wide vector add on rows of a 4x64 buffer: the unit row dimension is dropped;
    elem_offset is where the row chunk starts in the buffer."""
    a16 = te.placeholder((16,), name="x")
    b16 = te.placeholder((16,), name="y")
    c16 = te.compute((16,), lambda i: a16[i] + b16[i], name="z")
    intrin = te.decl_tensor_intrin(
        c16.op,
        lambda ins, outs: tvm.tir.call_extern(
            "int32",
            "py_vadd16",
            *(x.access_ptr("r") for x in ins),
            outs[0].access_ptr("w"),
            outs[0].elem_offset,
        ),
        name="vadd16",
        default_buffer_params={"offset_factor": 16},
    )
    offsets: list[int] = []

    def vadd(x: np.ndarray, y: np.ndarray, z: np.ndarray, offset: int) -> None:
        offsets.append(offset)
        z[...] = x + y

    tvm.register_func("py_vadd16", vadd, override=True)
    A = te.placeholder((4, 64), name="A")
    B = te.placeholder((4, 64), name="B")
    C = te.compute((4, 64), lambda i, j: A[i, j] + B[i, j], name="C")
    s = te.create_schedule(C.op)
    _, ji = s[C].split(C.op.axis[1], factor=16)
    s[C].tensorize(ji, intrin)
    module = tvm.lower(s, [A, B, C]).xdsl
    a, b = (RNG.standard_normal((4, 64)).astype("float32") for _ in range(2))
    c = np.zeros((4, 64), "float32")
    run(module, "main", a, b, c)
    np.testing.assert_allclose(c, a + b)
    assert offsets == list(range(0, 256, 16))


# -- the schedule primitive and the registry ----------------------------------------------------


def test_tensorize_is_recorded_in_the_te_schedule() -> None:
    intrin = gemm_intrin("recorded")
    s, args, _ = matmul(intrin)
    module = schedule_to_module(s, list(args))
    [op] = [op for op in module.walk() if isinstance(op, te_dialect.TensorizeOp)]
    assert (op.stage.data, op.axis.data) == ("C", "i.inner")
    assert te.get_tensor_intrin(op.intrin.data) is intrin


def test_registry_by_name() -> None:
    intrin = gemm_intrin("by_name")
    te.register_tensor_intrin("test.gemm_by_name", intrin, override=True)
    assert te.get_tensor_intrin("test.gemm_by_name") is intrin
    with pytest.raises(ValueError, match="already registered"):
        te.register_tensor_intrin("test.gemm_by_name", gemm_intrin("other"))
    with pytest.raises(KeyError, match=r"no tensor intrinsic 'test\.missing'"):
        te.get_tensor_intrin("test.missing")
    s, args, _ = matmul("test.gemm_by_name")
    assert extern_calls(tvm.lower(s, list(args)).xdsl) == ["by_name_reset", "by_name_update"]


def test_description_is_the_computation_lowered_to_tir() -> None:
    from xtvm.passes.tir_tensorize import tir_description

    intrin = gemm_intrin()
    declared = intrin.description()  # te: the computation over its inputs, returning C
    assert [a.name_hint for a in declared.body.block.args] == ["A", "B"]
    description = tir_description(intrin)
    assert tir_description(intrin) is description  # lowered once
    assert [a.name_hint for a in description.body.block.args] == ["A", "B", "C"]
    extents = [
        op.upper_bound.owner.value.value.data  # type: ignore[union-attr]
        for op in description.walk()
        if isinstance(op, tir.ForOp)
    ]
    assert extents == [8, 8, 8]


# -- refusals -----------------------------------------------------------------------------------


def lower_error(intrin: object, **kwargs: object) -> str:
    s, args, _ = matmul(intrin, **kwargs)  # type: ignore[arg-type]
    with pytest.raises(DiagnosticError) as info:
        tvm.lower(s, list(args))
    return str(info.value)


def test_loop_extent_mismatch_names_the_loop() -> None:
    message = lower_error(gemm_intrin(), factor=16)
    assert "cannot tensorize loop 'i_inner' with intrinsic 'gemm8x8x8'" in message
    assert "loop 'i_inner' has extent 16, the intrinsic's loop 'i' has 8" in message


def test_operation_mismatch() -> None:
    a = te.placeholder((8, 8), name="A")
    b = te.placeholder((8, 8), name="B")
    k = te.reduce_axis((0, 8), name="k")
    c = te.compute((8, 8), lambda i, j: te.sum(a[i, k] + b[j, k], axis=k), name="C")
    params = {"offset_factor": 1, "strides": [te.var("s"), 1]}
    intrin = te.decl_tensor_intrin(
        c.op, lambda ins, outs: tvm.tir.call_extern("int32", "f"), default_buffer_params=params
    )
    message = lower_error(intrin)
    assert (
        "the loop nest computes 'arith.mulf' where the intrinsic computes 'arith.addf'" in message
    )


def test_compact_buffer_cannot_bind_a_strided_tile() -> None:
    message = lower_error(gemm_intrin(strides=False))
    assert "buffer A needs a compact stride 8 in dimension 0" in message
    assert "has stride 64" in message


def test_buffer_without_offset_factor_must_start_at_zero() -> None:
    a = te.placeholder((8, 8), name="A")
    b = te.placeholder((8, 8), name="B")
    k = te.reduce_axis((0, 8), name="k")
    c = te.compute((8, 8), lambda i, j: te.sum(a[i, k] * b[j, k], axis=k), name="C")
    params = {"strides": [te.var("s"), 1]}  # elem_offset 0, as TVM declares it by default
    intrin = te.decl_tensor_intrin(
        c.op, lambda ins, outs: tvm.tir.call_extern("int32", "f"), default_buffer_params=params
    )
    message = lower_error(intrin)
    assert "must start at element 0 of its buffer" in message


def test_reduction_split_needs_an_update() -> None:
    a = te.placeholder((8, 8), name="A")
    b = te.placeholder((8, 8), name="B")
    k = te.reduce_axis((0, 8), name="k")
    c = te.compute((8, 8), lambda i, j: te.sum(a[i, k] * b[j, k], axis=k), name="C")
    params = {"offset_factor": 1, "strides": [te.var("s"), 1]}
    intrin = te.decl_tensor_intrin(
        c.op, lambda ins, outs: tvm.tir.call_extern("int32", "f"), default_buffer_params=params
    )
    assert "the intrinsic has no update" in lower_error(intrin)


def add_tile_intrin() -> te.TensorIntrin:
    """C = A + B on a 2x2 tile, lowered to scalar loads and stores of the bound tiles."""
    a = te.placeholder((2, 2), name="A")
    b = te.placeholder((2, 2), name="B")
    c = te.compute((2, 2), lambda i, j: a[i, j] + b[i, j], name="C")

    def lower(ins: list, outs: list) -> object:
        aa, bb = ins
        (cc,) = outs
        ib = tvm.tir.ir_builder.create()
        for i in range(2):
            for j in range(2):
                ib.emit(cc.vstore([i, j], aa.vload([i, j]) + bb.vload([i, j])))
        return ib.get()

    params = {"offset_factor": 1, "strides": [te.var("s"), 1]}
    return te.decl_tensor_intrin(c.op, lower, name="add2x2", default_buffer_params=params)


@pytest.mark.parametrize("target", ["interpreter", "llvm", "c"])
def test_loads_and_stores_of_bound_tiles(target: str) -> None:
    """A lowering that reads and writes its buffers addresses the strided tiles right."""
    A = te.placeholder((4, 8), name="A")
    B = te.placeholder((4, 8), name="B")
    C = te.compute((4, 8), lambda i, j: A[i, j] + B[i, j], name="C")
    s = te.create_schedule(C.op)
    _, _, ii, _ = s[C].tile(C.op.axis[0], C.op.axis[1], 2, 2)
    s[C].tensorize(ii, add_tile_intrin())
    a, b = (RNG.standard_normal((4, 8)).astype("float32") for _ in range(2))
    c = np.zeros((4, 8), "float32")
    if target == "interpreter":
        run(tvm.lower(s, [A, B, C]).xdsl, "main", a, b, c)
    else:
        tvm.build(s, [A, B, C], target)(a, b, c)
    np.testing.assert_allclose(c, a + b)


def test_reduction_tensorized_with_a_reduce_loop_first_is_refused() -> None:
    _, (A, B, C), _ = matmul(gemm_intrin(), split_k=False)
    s2 = te.create_schedule(C.op)
    i, j = C.op.axis
    k = C.op.reduce_axis[0]
    s2[C].reorder(k, i, j)
    s2[C].tensorize(k, gemm_intrin())
    with pytest.raises(DiagnosticError, match="data-parallel axes first, then reduce axes"):
        tvm.lower(s2, [A, B, C])


def test_access_ptr_offset_points_into_the_tile() -> None:
    """A 16-wide add lowered as two 8-wide calls, the second on pointers offset by 8."""
    x = te.placeholder((16,), name="x")
    y = te.placeholder((16,), name="y")
    z = te.compute((16,), lambda i: x[i] + y[i], name="z")

    def lower(ins: list, outs: list) -> object:
        ib = tvm.tir.ir_builder.create()
        for offset in (0, 8):
            pointers = [b.access_ptr("r", offset=offset) for b in (*ins, *outs)]
            ib.emit(tvm.tir.call_extern("int32", "py_add8", *pointers))
        return ib.get()

    intrin = te.decl_tensor_intrin(z.op, lower, default_buffer_params={"offset_factor": 1})
    tvm.register_func("py_add8", lambda a, b, c: c.__setitem__(slice(0, 8), a[:8] + b[:8]), True)
    A = te.placeholder((64,), name="A")
    B = te.placeholder((64,), name="B")
    C = te.compute((64,), lambda i: A[i] + B[i], name="C")
    s = te.create_schedule(C.op)
    _, inner = s[C].split(C.op.axis[0], factor=16)
    s[C].tensorize(inner, intrin)
    a, b = (RNG.standard_normal(64).astype("float32") for _ in range(2))
    c = np.zeros(64, "float32")
    run(tvm.lower(s, [A, B, C]).xdsl, "main", a, b, c)
    np.testing.assert_allclose(c, a + b)


def test_whole_stage_tensorized_at_its_outermost_loop() -> None:
    calls: list[str] = []
    register_python_gemm("py_gemm_all", calls)
    A = te.placeholder((8, 8), name="A")
    B = te.placeholder((8, 8), name="B")
    k = te.reduce_axis((0, 8), name="k")
    C = te.compute((8, 8), lambda i, j: te.sum(A[i, k] * B[j, k], axis=k), name="C")
    s = te.create_schedule(C.op)
    s[C].tensorize(C.op.axis[0], gemm_intrin("py_gemm_all"))
    module = tvm.lower(s, [A, B, C]).xdsl
    assert not any(isinstance(op, tir.ForOp) for op in module.walk())
    a, b = (RNG.standard_normal((8, 8)).astype("float32") for _ in range(2))
    c = np.zeros((8, 8), "float32")
    run(module, "main", a, b, c)
    np.testing.assert_allclose(c, a @ b.T, rtol=1e-5)
    assert calls == ["body"]


def test_a_stage_is_tensorized_once() -> None:
    s, (A, B, C), io = matmul(gemm_intrin())
    s[C].tensorize(io, gemm_intrin())
    already = r"stage 'C' is already tensorized at axis 'i\.inner'"
    with pytest.raises(DiagnosticError, match=already):
        tvm.lower(s, [A, B, C])
    with pytest.raises(KeyError, match="no tensor intrinsic 'missing'"):
        s[C].tensorize(io, "missing")


GEMV_C = r"""
#include <stdint.h>
int xtvm_gemv_update(float *cc, const float *aa, const float *bb, int32_t m, int32_t l,
                     int32_t stride) {
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < l; ++j) cc[i] += aa[j] * bb[i * stride + j];
  return 0;
}
int xtvm_gemv_reset(float *cc, int32_t m) {
  for (int i = 0; i < m; ++i) cc[i] = 0.0f;
  return 0;
}
"""


def intrin_gemv(m: int, l: int) -> te.TensorIntrin:  # noqa: E741  (the tutorial's names)
    """TVM's tensorize tutorial: c[i] = sum(a[k] * b[i, k]) as gemv_update/gemv_reset."""
    a = te.placeholder((l,), name="a")
    b = te.placeholder((m, l), name="b")
    k = te.reduce_axis((0, l), name="k")
    c = te.compute((m,), lambda i: te.sum(a[k] * b[i, k], axis=k), name="c")
    Ab = tvm.tir.decl_buffer(a.shape, a.dtype, name="A", offset_factor=1, strides=[1])
    Bb = tvm.tir.decl_buffer(b.shape, b.dtype, name="B", offset_factor=1, strides=[te.var("s1"), 1])
    Cb = tvm.tir.decl_buffer(c.shape, c.dtype, name="C", offset_factor=1, strides=[1])

    def intrin_func(ins: list, outs: list) -> tuple:
        aa, bb = ins
        cc = outs[0]

        def _body() -> object:
            ib = tvm.tir.ir_builder.create()
            ib.emit(
                tvm.tir.call_extern(
                    "int32", "xtvm_gemv_update", cc.access_ptr("w"), aa.access_ptr("r"),
                    bb.access_ptr("r"), m, l, bb.strides[0],
                )
            )  # fmt: skip
            return ib.get()

        def _reduce_reset() -> object:
            ib = tvm.tir.ir_builder.create()
            ib.emit(tvm.tir.call_extern("int32", "xtvm_gemv_reset", cc.access_ptr("w"), m))
            return ib.get()

        return _body(), _reduce_reset(), _body()

    return te.decl_tensor_intrin(c.op, intrin_func, binds={a: Ab, b: Bb, c: Cb})


@pytest.mark.skipif(shutil.which("gcc") is None, reason="needs gcc")
@pytest.mark.parametrize("target", ["interpreter", "c"])
def test_tvm_tutorial_gemv_with_reduction_update(target: str) -> None:
    """The tutorial's second schedule: the reduction split, reset then update per block."""
    N, M, L = 32, 64, 64
    A = te.placeholder((N, L), name="A")
    B = te.placeholder((M, L), name="B")
    k = te.reduce_axis((0, L), name="k")
    C = te.compute((N, M), lambda i, j: te.sum(A[i, k] * B[j, k], axis=k), name="C")
    s = te.create_schedule(C.op)
    x, y = C.op.axis
    (z,) = C.op.reduce_axis
    yo, yi = s[C].split(y, factor=16)
    zo, zi = s[C].split(z, factor=16)
    s[C].reorder(x, yo, zo, yi, zi)
    s[C].tensorize(yi, intrin_gemv(16, 16))
    a = RNG.standard_normal((N, L)).astype("float32")
    b = RNG.standard_normal((M, L)).astype("float32")
    c = np.full((N, M), np.nan, dtype="float32")
    if target == "interpreter":

        def update(cc: np.ndarray, aa: np.ndarray, bb: np.ndarray, m: int, l: int, _: int) -> None:  # noqa: E741
            cc += bb @ aa

        tvm.register_func("xtvm_gemv_update", update, override=True)
        tvm.register_func("xtvm_gemv_reset", lambda cc, m: cc.fill(0), override=True)
        run(tvm.lower(s, [A, B, C]).xdsl, "main", a, b, c)
    else:
        s[C].pragma(x, "import_c", GEMV_C)
        tvm.build(s, [A, B, C], "c")(a, b, c)
    np.testing.assert_allclose(c, a @ b.T, rtol=1e-4, atol=1e-4)
