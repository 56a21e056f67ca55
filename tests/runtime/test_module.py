"""Calling compiled kernels: the argument binder (symbolic dimensions that must agree),
read-only arrays, and the status a kernel returns when a heap buffer's size overflows or
memory runs out, in the Python path and in the C ABI of the LLVM and C backends."""

from __future__ import annotations

import ctypes
from pathlib import Path

import numpy as np
import pytest

import xtvm as tvm
from xtvm import te
from xtvm.backends.c import render_c
from xtvm.backends.llvm import compile_module
from xtvm.ir.diagnostics import DiagnosticError
from xtvm.runtime.loader import load_module
from xtvm.runtime.module import ArgumentError, KernelError
from xtvm.testing.passes import CTX

RNG = np.random.default_rng(5)
TARGETS = ["llvm", "c"]


def rand(*shape: int) -> np.ndarray:
    return RNG.standard_normal(shape).astype("float32")


def symbolic_matmul(target: str) -> tvm.runtime.Module:
    """C[n, 6] = A[n, 4] @ B[4, 6] with n = te.var("n"): A and C each take a dimension n."""
    n = te.var("n")
    A = te.placeholder((n, 4), name="A")
    B = te.placeholder((4, 6), name="B")
    k = te.reduce_axis((0, 4), name="k")
    C = te.compute((n, 6), lambda i, j: te.sum(A[i, k] * B[k, j], axis=k), name="C")
    s = te.create_schedule(C.op)
    io, _ = s[C].split(C.op.axis[0], factor=8)
    s[C].parallel(io)
    return tvm.build(s, [A, B, C], target=target, name="mm")


@pytest.mark.parametrize("target", TARGETS)
def test_symbolic_dimensions_that_disagree_are_refused(target: str) -> None:
    f = symbolic_matmul(target)
    a, b = rand(13, 4), rand(4, 6)
    c = np.zeros((13, 6), "float32")
    f(a, b, c)
    np.testing.assert_allclose(c, a @ b, rtol=1e-5, atol=1e-5)
    short = np.zeros((5, 6), "float32")
    with pytest.raises(ArgumentError) as info:
        f(a, b, short)
    assert str(info.value) == "mm: argument C: dimension 0 is 5, but n = 13 from argument A"
    assert not short.any()


@pytest.mark.parametrize("target", TARGETS)
def test_kernel_entry_binds_arguments_for_c_callers(target: str, tmp_path: Path) -> None:
    """A C caller of the exported function gets status 1 and the message, not an overflow."""
    symbolic_matmul(target).export_library(tmp_path / "mm.so")
    library = ctypes.CDLL(str(tmp_path / "mm.so"))
    library.mm.restype = ctypes.c_int32
    library.mm.argtypes = [ctypes.c_void_p] * 3 + [ctypes.c_int64] * 2
    library.xtvm_last_error.restype = ctypes.c_char_p
    a, b = rand(13, 4), rand(4, 6)
    guarded = np.zeros((6, 6), "float32")  # C is its first 5 rows; the last must stay 0
    pointers = [x.ctypes.data for x in (a, b, guarded)]
    assert library.mm(*pointers, 13, 5) == 1
    message = library.xtvm_last_error().decode()
    assert message == "mm: argument C: dimension 0 is 5, but n = 13 from argument A"
    assert library.mm(*pointers, -1, -1) == 1
    negative = "mm: argument A: dimension 0 is -1, a negative size"
    assert library.xtvm_last_error().decode() == negative
    assert not guarded.any()
    assert library.mm(*pointers, 6, 6) == 0
    np.testing.assert_allclose(guarded, a[:6] @ b, rtol=1e-5, atol=1e-5)
    # load_module reads which functions return a status: the Python path checks it.
    loaded = load_module(tmp_path / "mm.so")
    assert loaded.status_functions == {"mm"}
    with pytest.raises(ArgumentError, match="dimension 0 is 5, but n = 13"):
        loaded["mm"](a, b, guarded[:5])


@pytest.mark.parametrize("target", TARGETS)
def test_expression_and_scalar_dimensions_are_checked(target: str) -> None:
    """B has n + 2 rows; m is a scalar argument and A's second dimension."""
    n, m = te.var("n"), te.var("m")
    A = te.placeholder((n, m), name="A")
    B = te.compute(
        (n + 2,),
        lambda i: te.if_then_else(
            te.all(i >= 1, i <= n), A[i - 1, m - 1] * m.astype("float32"), 0.0
        ),
        name="B",
    )
    s = te.create_schedule(B.op)
    f = tvm.build(s, [m, A, B], target=target, name="pad")
    a = rand(3, 5)
    b = np.zeros(5, "float32")
    f(5, a, b)
    np.testing.assert_allclose(b, np.pad(a[:, 4] * 5, 1), rtol=1e-6)
    with pytest.raises(ArgumentError) as info:
        f(5, a, np.zeros(4, "float32"))
    assert str(info.value) == (
        "pad: argument B: dimension 0 is 4, but n + 2 = 5 (n = 3 from argument A)"
    )
    with pytest.raises(ArgumentError) as info:
        f(7, a, b)
    assert str(info.value) == "pad: argument A: dimension 1 is 5, but m = 7 from argument m"


@pytest.mark.parametrize("target", TARGETS)
def test_read_only_arrays_are_refused_for_written_arguments(target: str) -> None:
    A = te.placeholder((8,), name="A")
    B = te.compute((8,), lambda i: A[i] * 2.0, name="B")
    f = tvm.build(te.create_schedule(B.op), [A, B], target=target, name="twice")
    a = np.arange(8, dtype="float32")
    a.flags.writeable = False  # inputs may be read-only
    frozen = np.frombuffer(bytes(32), dtype="float32")  # immutable bytes underneath
    with pytest.raises(ArgumentError) as info:
        f(a, frozen)
    assert str(info.value) == (
        "twice: argument 1 (B): the kernel writes this argument, but the array is read-only"
    )
    assert not frozen.any()
    b = np.zeros(8, "float32")
    f(a, b)
    np.testing.assert_allclose(b, a * 2)


HEAP_KERNELS = """
func.func @scratch(%A: memref<?xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %m = memref.dim %A, %c0 : memref<?xf32>
  %T = memref.alloc(%n, %n) : memref<?x?xf32>
  %one = arith.constant 1.0 : f32
  memref.store %one, %T[%c0, %c0] : memref<?x?xf32>
  tir.for %i = %c0 to %m serial {
    %t = memref.load %T[%c0, %c0] : memref<?x?xf32>
    memref.store %t, %A[%i] : memref<?xf32>
  }
  memref.dealloc %T : memref<?x?xf32>
  func.return
}

func.func @scratch_in_parallel(%A: memref<?xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %m = memref.dim %A, %c0 : memref<?xf32>
  tir.for %i = %c0 to %m parallel {
    %T = memref.alloc(%n) : memref<?xf32>
    %one = arith.constant 1.0 : f32
    memref.store %one, %T[%c0] : memref<?xf32>
    %t = memref.load %T[%c0] : memref<?xf32>
    memref.store %t, %A[%i] : memref<?xf32>
    memref.dealloc %T : memref<?xf32>
  }
  func.return
}
"""


@pytest.mark.parametrize("target", TARGETS)
def test_heap_buffer_size_overflow_and_out_of_memory_are_errors(target: str) -> None:
    f = tvm.build(CTX.parse(HEAP_KERNELS, "heap.mlir"), target=target)
    a = np.zeros(4, "float32")
    f["scratch"](a, 3)
    np.testing.assert_array_equal(a, 1.0)
    with pytest.raises(KernelError, match=r"^scratch: buffer 'T': its size overflows$"):
        f["scratch"](a, 1 << 40)  # 2^80 elements: the product wraps
    with pytest.raises(KernelError, match=r"scratch: buffer 'T': (its size overflows|out of mem)"):
        f["scratch"](a, 1 << 31)  # 2^64 bytes
    with pytest.raises(KernelError, match=r"^scratch: buffer 'T': out of memory"):
        f["scratch"](a, 1 << 29)  # 2^60 bytes: no allocator gives that
    with pytest.raises(KernelError, match=r"^scratch_in_parallel: buffer 'T': out of memory"):
        f["scratch_in_parallel"](a, 1 << 60)
    a[:] = 0
    f["scratch_in_parallel"](a, 16)  # the failure left nothing behind
    np.testing.assert_array_equal(a, 1.0)


@pytest.mark.parametrize("target", TARGETS)
def test_oversized_static_buffer_is_a_located_error(target: str) -> None:
    """IR that never went through the verifier: the backend refuses the buffer itself."""
    module = CTX.parse(
        """
func.func @huge(%A: memref<4xf32>) {
  %B = memref.alloc() : memref<4611686018427387905xf32>
  %c0 = arith.constant 0 : index
  %x = memref.load %A[%c0] : memref<4xf32>
  memref.store %x, %B[%c0] : memref<4611686018427387905xf32>
  memref.dealloc %B : memref<4611686018427387905xf32>
  func.return
}
""",
        "huge.mlir",
    )
    with pytest.raises(DiagnosticError) as info:
        compile_module(module) if target == "llvm" else render_c(module)
    assert str(info.value) == (
        "huge.mlir:3:8: error: memref<4611686018427387905xf32> needs 18446744073709551620 bytes, "
        "more than 4611686018427387904"
    )
