"""A reference executor of an accel target on numpy: its intrinsics run their own semantics.

`register_reference(target)` registers, for each intrinsic function of the target, a Python
function (`tvm.register_func`) that the tir interpreter calls for `tir.call_extern`: it runs
the intrinsic's declared te computation (its tir description, interpreted) on the tiles it
receives, which the interpreter passes as numpy views. So a tensorized kernel can be checked
against numpy before any C exists, and the C simulator against the declaration.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from xdsl.dialects.builtin import ModuleOp

from xtvm.dialects import te
from xtvm.runtime.registry import register_func
from xtvm.target.accel import AccelTarget, Intrinsic

IDENTITY: dict[str, Callable[[np.dtype], Any]] = {
    "sum": lambda dtype: 0,
    "prod": lambda dtype: 1,
    "max": lambda dtype: -np.inf if dtype.kind == "f" else np.iinfo(dtype).min,
    "min": lambda dtype: np.inf if dtype.kind == "f" else np.iinfo(dtype).max,
}
COMBINE: dict[str, Callable[[np.ndarray, np.ndarray], np.ndarray]] = {
    "sum": np.add,
    "prod": np.multiply,
    "max": np.maximum,
    "min": np.minimum,
}


def combiner_of(intrinsic: Intrinsic) -> str:
    for value in intrinsic.op.outputs():
        owner = value.owner
        reduction = owner.reduction() if isinstance(owner, te.ComputeOp) else None
        if reduction is not None:
            if reduction.is_custom:
                raise NotImplementedError(
                    f"intrinsic {intrinsic.name}: a reduction by a te.comm_reducer has no "
                    "reference implementation"
                )
            return reduction.combiner.data
    return "sum"


def reference_functions(intrinsic: Intrinsic) -> dict[str, Callable[..., None]]:
    """Python implementations of the intrinsic's body, reset and update (accel's convention:
    outputs, then inputs, then strides; the views carry their strides, so those are unused)."""
    from xtvm.runtime.tir_interpreter import compile_module
    from xtvm.target.tensorize import describe

    name = f"{intrinsic.name}_reference"
    module = compile_module(ModuleOp([describe(intrinsic.op, name)]))
    outputs = len(intrinsic.out_scopes)
    inputs = len(intrinsic.in_scopes)
    combiner = combiner_of(intrinsic)

    def body(*args: Any) -> None:
        outs, ins = args[:outputs], args[outputs : outputs + inputs]
        module(name, *ins, *outs)

    def reset(*args: Any) -> None:
        for out in args[:outputs]:
            out[...] = IDENTITY[combiner](out.dtype)

    def update(*args: Any) -> None:
        outs, ins = args[:outputs], args[outputs : outputs + inputs]
        fresh = [np.empty_like(out) for out in outs]
        module(name, *ins, *fresh)
        for out, value in zip(outs, fresh, strict=True):
            out[...] = COMBINE[combiner](out, value)

    functions = {intrinsic.body: body}
    if intrinsic.reset is not None:
        functions[intrinsic.reset] = reset
    if intrinsic.update is not None:
        functions[intrinsic.update] = update
    return functions


def register_reference(target: AccelTarget) -> None:
    """Make the tir interpreter run `target`'s intrinsic calls by their declared semantics."""
    for intrinsic in target.intrinsics.values():
        for function, implementation in reference_functions(intrinsic).items():
            register_func(function, implementation, override=True)
