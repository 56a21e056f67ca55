"""Partitioning a relay module for an accelerator target described in `accel` IR (the
`accel` codegen, xtvm/backends/external/accel.py), as TVM's `relay.op.contrib` helpers do."""

from __future__ import annotations

from xdsl.dialects.builtin import StringAttr

from xtvm.api.ir_module import IRModule
from xtvm.api.relay import transform
from xtvm.backends.external.accel import (
    MAX_PADDING,
    NAME,
    TARGET_ATTR,
    register_accel_offload,
)
from xtvm.target.accel import AccelTarget, get_target


def partition_for_accel(
    mod: IRModule, target: AccelTarget | str, max_padding: float = MAX_PADDING
) -> IRModule:
    """`mod` (an IRModule) with the ops `target` runs partitioned into `compiler = "accel"`
    functions, each naming the target in its `accel_target` attribute."""
    target = get_target(target) if isinstance(target, str) else target
    register_accel_offload(target, max_padding)
    partitioned = transform.Sequential(
        [
            transform.AnnotateTarget([NAME]),
            transform.MergeCompilerRegions(),
            transform.PartitionGraph(),
        ]
    )(mod)
    for function in partitioned.xdsl.ops:
        compiler = function.attributes.get("compiler")
        if isinstance(compiler, StringAttr) and compiler.data == NAME:
            function.attributes[TARGET_ATTR] = StringAttr(target.name)
    return partitioned
