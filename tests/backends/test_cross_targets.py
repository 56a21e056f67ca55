"""Cross targets beyond aarch64: `llvm -mtriple=riscv64-linux-gnu` (lp64d, hard float) and
`llvm -mtriple=armv7l-linux-gnueabihf` (VFP/NEON, float arguments in VFP registers) emit code of
their architecture, and their libraries link with the distributions' cross compilers into
objects of that ABI. tests/rpc/test_device.py runs such libraries under qemu.

The linking tests skip where gcc-riscv64-linux-gnu or gcc-arm-linux-gnueabihf is missing.
"""

from __future__ import annotations

import shutil
import struct
from pathlib import Path

import numpy as np
import pytest

import xtvm as tvm
from xtvm import relay, te
from xtvm.backends.llvm.target import LLVMTarget
from xtvm.contrib import cc

RISCV = "llvm -mtriple=riscv64-linux-gnu"
ARMV7 = "llvm -mtriple=armv7l-linux-gnueabihf"
EM_RISCV, EM_ARM = 243, 40
EF_RISCV_FLOAT_ABI_DOUBLE, EF_ARM_ABI_FLOAT_HARD = 0x4, 0x400


def needs(compiler: str) -> pytest.MarkDecorator:
    return pytest.mark.skipif(shutil.which(compiler) is None, reason=f"no {compiler}")


def elf_header(path: Path) -> tuple[int, int, int]:
    """The ELF class (1: 32-bit, 2: 64-bit), machine and flags of `path`."""
    head = path.read_bytes()[:52]
    assert head[:4] == b"\x7fELF"
    flags_at = 48 if head[4] == 2 else 36
    (machine,) = struct.unpack("<H", head[18:20])
    (flags,) = struct.unpack("<I", head[flags_at : flags_at + 4])
    return head[4], machine, flags


def muladd(target: str, n: int = 64) -> tvm.runtime.Module:
    a = te.placeholder((n,), name="A")
    b = te.placeholder((n,), name="B")
    c = te.compute((n,), lambda i: a[i] * b[i] + 1.0, name="C")
    return tvm.build(te.create_schedule(c.op), [a, b, c], target, name="muladd")


def test_riscv64_target_is_lp64d_with_hard_float() -> None:
    target = LLVMTarget.parse(RISCV)
    assert target.abi == "lp64d" and {"+f", "+d"} <= set(target.features.split(","))
    assembly = muladd(RISCV).get_source("asm")
    assert "fmadd.s" in assembly or "fmul.s" in assembly
    assert "xmm" not in assembly and "fmla" not in assembly


def test_armv7_target_uses_vfp() -> None:
    target = LLVMTarget.parse(ARMV7)
    assert target.triple == "armv7l-unknown-linux-gnueabihf"  # LLVM reads gnueabihf there
    assembly = muladd(ARMV7).get_source("asm")
    assert "vmul.f32" in assembly or "vmla.f32" in assembly or "vfma.f32" in assembly


@needs("riscv64-linux-gnu-gcc")
def test_riscv64_libraries_link_as_double_float(tmp_path: Path) -> None:
    library = tmp_path / "muladd.so"
    muladd(RISCV).export_library(library, cc.cross_compiler("riscv64-linux-gnu-gcc"))
    elf_class, machine, flags = elf_header(library)
    assert (elf_class, machine) == (2, EM_RISCV) and flags & EF_RISCV_FLOAT_ABI_DOUBLE
    x = relay.var("x", shape=(1, 2, 6, 6))
    w = relay.var("w", shape=(3, 2, 3, 3))
    mod = tvm.IRModule.from_expr(relay.Function([x, w], relay.nn.conv2d(x, w, padding=(1, 1))))
    params = {"w": np.ones((3, 2, 3, 3), "float32")}
    net = tmp_path / "net.so"
    relay.build(mod, target=RISCV, params=params).export_library(
        net, cc.cross_compiler("riscv64-linux-gnu-gcc")
    )
    assert elf_header(net)[:2] == (2, EM_RISCV)


@needs("arm-linux-gnueabihf-gcc")
def test_armv7_libraries_link_as_hard_float(tmp_path: Path) -> None:
    library = tmp_path / "muladd.so"
    muladd(ARMV7).export_library(library, cc.cross_compiler("arm-linux-gnueabihf-gcc"))
    elf_class, machine, flags = elf_header(library)
    assert (elf_class, machine) == (1, EM_ARM) and flags & EF_ARM_ABI_FLOAT_HARD
