"""The accel backend: tir for an accelerator described in `accel` IR, rendered as C that keeps
tiles in the target's scratchpads, moves them with its DMA functions and calls its intrinsics;
compiled against a simulator (or driver) of the target."""

from xtvm.backends.accel.build import build_accel, load_simulator
from xtvm.backends.accel.codegen import AccelRenderer, render_accel

__all__ = ["AccelRenderer", "build_accel", "load_simulator", "render_accel"]
