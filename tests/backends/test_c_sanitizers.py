"""The C backend's kernels under AddressSanitizer and UndefinedBehaviorSanitizer.

Each kernel's C is compiled with a small driver (`main` reads the inputs from files into
buffers malloc'd at their exact size, calls the kernel, writes the outputs) using
`-fsanitize=address,undefined`, run, and checked against numpy: a non-dividing split, a
symbolic shape (also called with dimensions that disagree and a negative one: the kernel
returns 1 instead of writing past a buffer), a heap buffer whose size overflows, and a
tensorized kernel calling imported C. Skipped where gcc or the sanitizer runtimes are missing.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Sequence
from functools import cache
from pathlib import Path

import numpy as np
import pytest

import xtvm as tvm
from xtvm import te
from xtvm.testing.passes import CTX

SANITIZE = ("-fsanitize=address,undefined", "-fno-sanitize-recover=all", "-fno-omit-frame-pointer")
CFLAGS = ("-O1", "-g", "-fopenmp", "-std=gnu99", *SANITIZE)
C_TYPES = {"float32": "float", "int32": "int32_t", "int64": "int64_t"}
RNG = np.random.default_rng(11)


@cache
def sanitizers_work(directory: str) -> bool:
    """Whether gcc links and runs a program with both sanitizers here."""
    if shutil.which("gcc") is None:
        return False
    source, program = Path(directory) / "probe.c", Path(directory) / "probe"
    source.write_text("#include <stdlib.h>\nint main(void) { free(malloc(4)); return 0; }\n")
    built = subprocess.run(["gcc", *CFLAGS, "-o", str(program), str(source)], capture_output=True)
    return built.returncode == 0 and subprocess.run([str(program)]).returncode == 0


@pytest.fixture
def sanitized(tmp_path: Path) -> Path:
    if not sanitizers_work(str(tmp_path)):
        pytest.skip("gcc with -fsanitize=address,undefined is not available")
    return tmp_path


def run_sanitized(
    directory: Path,
    source: str,
    function: str,
    args: Sequence[np.ndarray | int],
    dims: Sequence[int],
    extra: str = "",
) -> tuple[int, str, list[np.ndarray]]:
    """Compile `source` with a driver calling `function(args..., dims...)` and run it.

    Returns the kernel's status, the message it left and the arrays after the call. A
    sanitizer report fails the test (the program exits non-zero).
    """
    lines = ["#include <stdio.h>", "#include <stdlib.h>", "#include <stdint.h>", ""]
    lines += [source, extra, "int main(void) {"]
    names: list[str] = []
    for k, arg in enumerate(args):
        if isinstance(arg, np.ndarray):
            ctype = C_TYPES[arg.dtype.name]
            path = directory / f"arg{k}.bin"
            arg.tofile(path)
            lines += [
                f"  {ctype} *a{k} = malloc({arg.nbytes});  /* exactly its size, for ASan */",
                f'  FILE *f{k} = fopen("{path}", "rb");',
                f"  if (fread(a{k}, 1, {arg.nbytes}, f{k}) != {arg.nbytes}) return 3;",
                f"  fclose(f{k});",
            ]
            names.append(f"a{k}")
        else:
            names.append(f"(int64_t){arg}")
    call = ", ".join([*names, *(f"(int64_t){d}" for d in dims)])
    lines += [
        f"  int32_t status = {function}({call});",
        '  printf("%d\\n%s\\n", status, status ? xtvm_last_error() : "");',
    ]
    for k, arg in enumerate(args):
        if isinstance(arg, np.ndarray):
            lines += [
                f'  FILE *o{k} = fopen("{directory / f"out{k}.bin"}", "wb");',
                f"  fwrite(a{k}, 1, {arg.nbytes}, o{k});",
                f"  fclose(o{k});",
                f"  free(a{k});",
            ]
    lines += ["  return 0;", "}"]
    driver, program = directory / "driver.c", directory / "driver"
    driver.write_text("\n".join(lines) + "\n")
    built = subprocess.run(
        ["gcc", *CFLAGS, "-o", str(program), str(driver), "-lm"], capture_output=True, text=True
    )
    assert built.returncode == 0, built.stderr
    env = {**os.environ, "ASAN_OPTIONS": "detect_leaks=1", "OMP_NUM_THREADS": "2"}
    result = subprocess.run([str(program)], capture_output=True, text=True, env=env, timeout=120)
    assert result.returncode == 0, result.stderr  # a sanitizer report
    status, message = [*result.stdout.split("\n"), "", ""][:2]
    outputs = [
        np.fromfile(directory / f"out{k}.bin", dtype=arg.dtype).reshape(arg.shape)
        for k, arg in enumerate(args)
        if isinstance(arg, np.ndarray)
    ]
    return int(status), message, outputs


def test_non_dividing_split_is_clean(sanitized: Path) -> None:
    A = te.placeholder((37, 5), name="A")
    B = te.compute((37, 5), lambda i, j: A[i, j] * 3.0 - 1.0, name="B")
    s = te.create_schedule(B.op)
    io, _ = s[B].split(B.op.axis[0], factor=8)
    s[B].parallel(io)
    _, ji = s[B].split(B.op.axis[1], factor=4)
    s[B].vectorize(ji)
    source = tvm.build(s, [A, B], target="c", name="affine").get_source()
    a = RNG.standard_normal((37, 5)).astype("float32")
    status, _, (_, b) = run_sanitized(sanitized, source, "affine", [a, np.zeros_like(a)], [])
    assert status == 0
    np.testing.assert_allclose(b, a * 3 - 1, rtol=1e-6)


def test_symbolic_shape_is_clean_and_refuses_dimensions_that_disagree(sanitized: Path) -> None:
    n = te.var("n")
    A = te.placeholder((n, 4), name="A")
    B = te.placeholder((4, 6), name="B")
    k = te.reduce_axis((0, 4), name="k")
    C = te.compute((n, 6), lambda i, j: te.sum(A[i, k] * B[k, j], axis=k), name="C")
    s = te.create_schedule(C.op)
    io, _ = s[C].split(C.op.axis[0], factor=8)
    s[C].parallel(io)
    source = tvm.build(s, [A, B, C], target="c", name="mm").get_source()
    a, b = (RNG.standard_normal(shape).astype("float32") for shape in ((13, 4), (4, 6)))
    status, _, (_, _, c) = run_sanitized(
        sanitized, source, "mm", [a, b, np.zeros((13, 6), "float32")], [13, 13]
    )
    assert status == 0
    np.testing.assert_allclose(c, a @ b, rtol=1e-5, atol=1e-5)
    # C of 5 rows: before the binder, a heap-buffer-overflow WRITE.
    status, message, (_, _, c) = run_sanitized(
        sanitized, source, "mm", [a, b, np.zeros((5, 6), "float32")], [13, 5]
    )
    assert (status, message) == (1, "mm: argument C: dimension 0 is 5, but n = 13 from argument A")
    assert not c.any()
    status, message, _ = run_sanitized(
        sanitized, source, "mm", [a, b, np.zeros((5, 6), "float32")], [-3, 5]
    )
    assert (status, message) == (1, "mm: argument A: dimension 0 is -3, a negative size")


def test_heap_buffer_size_overflow_is_an_error_return(sanitized: Path) -> None:
    module = CTX.parse(
        """
func.func @scratch(%A: memref<4xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %one = arith.constant 1.0 : f32
  %T = memref.alloc(%n, %n) : memref<?x?xf32>
  memref.store %one, %T[%c0, %c0] : memref<?x?xf32>
  %t = memref.load %T[%c0, %c0] : memref<?x?xf32>
  memref.store %t, %A[%c0] : memref<4xf32>
  memref.dealloc %T : memref<?x?xf32>
  func.return
}
""",
        "scratch.mlir",
    )
    source = tvm.build(module, target="c").get_source()
    a = np.zeros(4, "float32")
    status, _, (out,) = run_sanitized(sanitized, source, "scratch", [a, 3], [])
    assert status == 0 and out[0] == 1.0
    status, message, _ = run_sanitized(sanitized, source, "scratch", [a, 1 << 40], [])
    assert (status, message) == (1, "scratch: buffer 'T': its size overflows")


VADD_C = """
void xtvm_test_vadd4(float *x, float *y, float *z) {
  for (int i = 0; i < 4; ++i) z[i] = x[i] + y[i];
}
"""


@pytest.mark.usefixtures("preserve_registries")  # it registers its intrinsic
def test_tensorized_kernel_is_clean(sanitized: Path) -> None:
    x4 = te.placeholder((4,), name="x")
    y4 = te.placeholder((4,), name="y")
    z4 = te.compute((4,), lambda i: x4[i] + y4[i], name="z")
    intrin = te.decl_tensor_intrin(
        z4.op,
        lambda ins, outs: tvm.tir.call_extern(
            "int32",
            "xtvm_test_vadd4",
            *(t.access_ptr("r") for t in ins),
            outs[0].access_ptr("w"),
        ),
        name="vadd4",
        default_buffer_params={"offset_factor": 4},
    )
    A = te.placeholder((6, 12), name="A")
    B = te.placeholder((6, 12), name="B")
    C = te.compute((6, 12), lambda i, j: A[i, j] + B[i, j], name="C")
    s = te.create_schedule(C.op)
    _, ji = s[C].split(C.op.axis[1], factor=4)
    s[C].tensorize(ji, intrin)
    s[C].pragma(C.op.axis[0], "import_c", VADD_C)
    f = tvm.build(s, [A, B, C], target="c", name="vadd")
    source = f.get_source()
    assert "xtvm_test_vadd4(" in source
    a, b = (RNG.standard_normal((6, 12)).astype("float32") for _ in range(2))
    status, _, (_, _, c) = run_sanitized(
        sanitized, source, "vadd", [a, b, np.zeros((6, 12), "float32")], [], extra=VADD_C
    )
    assert status == 0
    np.testing.assert_allclose(c, a + b)
    got = np.zeros((6, 12), "float32")
    f(a, b, got)  # the same kernel through the runtime
    np.testing.assert_allclose(got, a + b)
