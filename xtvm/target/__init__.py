"""Targets described as data: `xtvm.target.load("vta.mlir")` registers an accelerator.

A target file holds `accel.target` ops (xtvm/dialects/accel.py). Loading one makes its
memories storage scopes that te's `cache_read`/`cache_write` accept and its intrinsics tensor
intrinsics, and keeps the description for the accel backend (`xtvm.backends.accel`).
"""

from xtvm.target.accel import (
    AccelTarget,
    Dma,
    Intrinsic,
    Memory,
    get_target,
    load,
    load_all,
    registered_targets,
)

__all__ = [
    "AccelTarget",
    "Dma",
    "Intrinsic",
    "Memory",
    "get_target",
    "load",
    "load_all",
    "registered_targets",
]
