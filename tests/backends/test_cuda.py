"""The CUDA backend: kernels from thread-bound TE schedules rendered as CUDA C, every one
compiled with `nvcc -ptx` (skipped without nvcc); launch dimensions; no-GPU errors; numerical
runs marked `cuda` (skipped without a GPU)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

import xtvm as tvm
from xtvm import te
from xtvm.backends.cuda import NoGPUError


def check_ptx(source: str, tmp_path: Path) -> None:
    """Compile `source` with nvcc -ptx: its syntax and types are checked."""
    if shutil.which("nvcc") is None:
        pytest.skip("nvcc not found: the CUDA source is not compiled")
    path = tmp_path / "kernel.cu"
    path.write_text(source)
    result = subprocess.run(
        ["nvcc", "-ptx", str(path), "-o", str(tmp_path / "kernel.ptx")],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stderr + "\n" + source


def elementwise(n: int = 1000, dtype: str = "float32") -> tvm.runtime.Module:
    A = te.placeholder((n,), name="A", dtype=dtype)
    B = te.compute((n,), lambda i: te.exp(A[i]) + te.tanh(A[i]), name="B")
    s = te.create_schedule(B.op)
    bx, tx = s[B].split(B.op.axis[0], factor=64)
    s[B].bind(bx, te.thread_axis("blockIdx.x"))
    s[B].bind(tx, te.thread_axis("threadIdx.x"))
    return tvm.build(s, [A, B], target="cuda", name="ew")


def matmul() -> tvm.runtime.Module:
    A = te.placeholder((12, 5), name="A")
    B = te.placeholder((5, 10), name="B")
    k = te.reduce_axis((0, 5), name="k")
    C = te.compute((12, 10), lambda i, j: te.sum(A[i, k] * B[k, j], axis=k), name="C")
    s = te.create_schedule(C.op)
    i, j = C.op.axis
    by, ty = s[C].split(i, factor=4)
    bx, tx = s[C].split(j, factor=5)
    s[C].reorder(by, bx, ty, tx)
    for axis, tag in ((by, "blockIdx.y"), (bx, "blockIdx.x"), (ty, "threadIdx.y")):
        s[C].bind(axis, te.thread_axis(tag))
    s[C].bind(tx, te.thread_axis("threadIdx.x"))
    return tvm.build(s, [A, B, C], target="cuda", name="mm")


def test_elementwise_kernel_source_and_launch(tmp_path: Path) -> None:
    f = elementwise()
    source = f.imported_modules[0].get_source()
    assert 'extern "C" __global__ void __launch_bounds__(64) ew_kernel0(' in source
    assert "float *__restrict__ A, float *__restrict__ B" in source
    assert "((int64_t)blockIdx.x) * 64" in source
    assert "__expf(" in source and "tanhf(" in source
    (launch,) = f.launches  # type: ignore[attr-defined]
    assert (launch.kernel, launch.blocks, launch.threads) == ("ew_kernel0", (16, 1, 1), (64, 1, 1))
    assert "ew_kernel0<<<(16, 1, 1), (64, 1, 1)>>>(A, B)" in f.get_source()
    check_ptx(source, tmp_path)


def test_2d_grid_matmul_compiles(tmp_path: Path) -> None:
    f = matmul()
    source = f.imported_modules[0].get_source()
    assert "__launch_bounds__(20)" in source
    assert "threadIdx.y" in source and "blockIdx.y" in source
    (launch,) = f.launches  # type: ignore[attr-defined]
    assert launch.blocks == (2, 3, 1) and launch.threads == (5, 4, 1)
    check_ptx(source, tmp_path)


def test_half_kernel_compiles(tmp_path: Path) -> None:
    source = elementwise(256, "float16").imported_modules[0].get_source()
    assert "half *__restrict__ A" in source and "hexp(" in source
    check_ptx(source, tmp_path)


@pytest.mark.skipif(tvm.cuda(0).exist, reason="a GPU exists here")
def test_calling_without_a_gpu_is_a_clear_error() -> None:
    f = elementwise()
    a, b = np.zeros(1000, "float32"), np.zeros(1000, "float32")
    with pytest.raises(NoGPUError, match="no CUDA GPU exists"):
        f(a, b)


@pytest.mark.cuda
def test_elementwise_runs_on_the_gpu() -> None:
    if not tvm.cuda(0).exist:
        pytest.skip("no CUDA GPU")
    f = elementwise()
    a = np.random.default_rng(0).standard_normal(1000).astype("float32")
    b = np.zeros(1000, "float32")
    f(a, b)
    # __expf is within 2 ulp of exp: where exp(a) + tanh(a) cancels to near 0, that is an
    # absolute error of about 1e-7 against a tiny sum, so the bound is absolute as well.
    np.testing.assert_allclose(b, np.exp(a) + np.tanh(a), rtol=1e-5, atol=1e-6)
