"""Targets described as data: `xtvm.target.load("vta.mlir")` registers an accelerator.

As `tvm.target` it also offers TVM's `Target` (`Target("llvm -mcpu=skylake")`, `with
Target(...)`, `Target.current()`), its helpers (`cuda()`, `arm_cpu("rasp4b")`, ...) and
`generic_func` (xtvm/target/target.py).

A target file holds `accel.target` ops (xtvm/dialects/accel.py). Loading one makes its
memories storage scopes that te's `cache_read`/`cache_write` accept and its intrinsics tensor
intrinsics, and keeps the description for the accel backend (`xtvm.backends.accel`).
"""

from xtvm.target import codegen
from xtvm.target.accel import (
    AccelTarget,
    Dma,
    Intrinsic,
    Memory,
    get_target,
    registered_targets,
)
from xtvm.target.loading import load, load_all
from xtvm.target.target import (
    GenericFunc,
    Target,
    TargetKind,
    arm_cpu,
    bifrost,
    create,
    cuda,
    generic_func,
    hexagon,
    intel_graphics,
    mali,
    rasp,
    rocm,
    vta,
)
from xtvm.target.virtual_device import VirtualDevice

__all__ = [
    "AccelTarget",
    "Dma",
    "GenericFunc",
    "Intrinsic",
    "Memory",
    "Target",
    "TargetKind",
    "VirtualDevice",
    "arm_cpu",
    "bifrost",
    "codegen",
    "create",
    "cuda",
    "generic_func",
    "get_target",
    "hexagon",
    "intel_graphics",
    "load",
    "load_all",
    "mali",
    "rasp",
    "registered_targets",
    "rocm",
    "vta",
]
