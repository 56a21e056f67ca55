"""Cross compilation to aarch64: `llvm -mtriple=aarch64-linux-gnu` kernels and relay graphs
linked with `contrib.cc.cross_compiler("aarch64-linux-gnu-gcc")` are aarch64 shared objects,
and a kernel run under qemu-user through a small C driver matches numpy.

Skips where the cross compiler (gcc-aarch64-linux-gnu) or qemu-aarch64 (qemu-user) is missing.
"""

from __future__ import annotations

import json
import shutil
import struct
import subprocess
from pathlib import Path

import numpy as np
import pytest

import xtvm as tvm
from xtvm import relay, te
from xtvm.contrib import cc

TARGET = "llvm -mtriple=aarch64-linux-gnu"
CROSS_CC = "aarch64-linux-gnu-gcc"
EM_AARCH64 = 183

needs_cross_cc = pytest.mark.skipif(shutil.which(CROSS_CC) is None, reason=f"no {CROSS_CC}")
needs_qemu = pytest.mark.skipif(shutil.which("qemu-aarch64") is None, reason="no qemu-aarch64")


def elf_machine(path: Path) -> tuple[bytes, int, int]:
    """The ELF magic, class (2: 64-bit) and machine of `path`."""
    head = path.read_bytes()[:20]
    return head[:4], head[4], struct.unpack("<H", head[18:20])[0]


def dynamic_symbols(path: Path) -> set[str]:
    nm = subprocess.run(
        ["aarch64-linux-gnu-nm", "-D", "--defined-only", str(path)],
        capture_output=True,
        text=True,
        check=True,
    )
    return {line.split()[-1] for line in nm.stdout.splitlines() if line.strip()}


def muladd(n: int) -> tvm.runtime.Module:
    a = te.placeholder((n,), name="A")
    b = te.placeholder((n,), name="B")
    c = te.compute((n,), lambda i: a[i] * b[i] + 1.0, name="C")
    return tvm.build(te.create_schedule(c.op), [a, b, c], TARGET, name="muladd")


def test_aarch64_target_emits_aarch64_code() -> None:
    assembly = muladd(64).get_source("asm")
    assert "fmla" in assembly or "fmul" in assembly  # NEON, not x86
    assert "xmm" not in assembly and "ymm" not in assembly


DRIVER = r"""
#include <stdint.h>
#include <stdio.h>
int32_t muladd(float *a, float *b, float *c);
int main(void) {
  float a[N], b[N], c[N];
  for (int i = 0; i < N; i++) { a[i] = i * 0.5f - 7.0f; b[i] = 3.0f - i * 0.25f; }
  printf("%d\n", muladd(a, b, c));
  for (int i = 0; i < N; i++) printf("%.9g\n", c[i]);
  return 0;
}
"""


@needs_cross_cc
@needs_qemu
def test_cross_compiled_kernel_runs_under_qemu(tmp_path: Path) -> None:
    n = 67  # a vector body and a remainder
    library = tmp_path / "libkernels.so"
    muladd(n).export_library(library, cc.cross_compiler(CROSS_CC))
    assert elf_machine(library) == (b"\x7fELF", 2, EM_AARCH64)
    assert {"muladd", "xtvm_module_metadata"} <= dynamic_symbols(library)
    driver = tmp_path / "driver.c"
    driver.write_text(DRIVER)
    program = tmp_path / "driver"
    subprocess.run(
        [CROSS_CC, f"-DN={n}", str(driver), str(library), "-Wl,-rpath,$ORIGIN", "-o", str(program)],
        check=True,
    )
    run = subprocess.run(
        ["qemu-aarch64", "-L", "/usr/aarch64-linux-gnu", str(program)],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    status, *values = run.stdout.split()
    i = np.arange(n, dtype="float32")
    a = i * np.float32(0.5) - np.float32(7)
    b = np.float32(3) - i * np.float32(0.25)
    assert status == "0"
    np.testing.assert_allclose(np.array(values, "float32"), a * b + 1, rtol=1e-6, atol=1e-6)


@needs_cross_cc
def test_cross_compiled_relay_library(tmp_path: Path) -> None:
    x = relay.var("x", shape=(1, 2, 8, 8))
    w = relay.var("w", shape=(4, 2, 3, 3))
    y = relay.nn.relu(relay.nn.conv2d(x, w, padding=(1, 1)))
    mod = tvm.IRModule.from_expr(relay.Function([x, w], y))
    params = {"w": np.random.default_rng(0).standard_normal((4, 2, 3, 3)).astype("float32")}
    lib = relay.build(mod, target=TARGET, params=params)
    library = tmp_path / "net.so"
    lib.export_library(library, cc.cross_compiler(CROSS_CC))
    assert elf_machine(library) == (b"\x7fELF", 2, EM_AARCH64)
    symbols = dynamic_symbols(library)
    assert {"xtvm_graph_json", "xtvm_graph_params", "xtvm_module_metadata"} <= symbols
    nodes = json.loads(lib.get_graph_json())["nodes"]
    kernels = {n["attrs"]["func_name"] for n in nodes if n["op"] == "tvm_op"}
    assert kernels and kernels <= symbols
