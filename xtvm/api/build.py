"""TVM's `tvm.lower` and `tvm.build` (xtvm/driver/build.py), with `IRModule` results."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from xtvm.api.ir_module import IRModule
from xtvm.driver import build as driver
from xtvm.runtime.module import Module
from xtvm.te import lower as te_lower
from xtvm.te.expr import Tensor, Var
from xtvm.te.schedule import Schedule


def lower(
    s: Schedule,
    args: Sequence[Tensor | Var],
    name: str = "main",
    binds: object = None,
    simple_mode: bool = False,
) -> IRModule:
    """The tir kernel of schedule `s`: `tvm.lower(s, [A, B, C], simple_mode=True)`.

    Printing the result shows the loop nest; buffers are the arguments in order.
    """
    return IRModule(driver.lower(s, args, name, binds, simple_mode))


def build(
    inputs: Any,
    args: Sequence[Tensor] | None = None,
    target: object = "llvm",
    target_host: object = None,
    runtime: object = None,
    name: str = "default_function",
    binds: object = None,
) -> Module:
    """Compile a schedule or a lowered module: `f = tvm.build(s, [A, B, C], "llvm", name="mm")`.

    The result is called as `f(a, b, c)` (its entry function) or `f["mm"](a, b, c)` on numpy
    or `tvm.nd` arrays, outputs written in place. `target` is a string or a `tvm.target.Target`;
    the host of a CPU target is the target itself.
    """
    if binds:
        raise ValueError("build: binds are not supported; pass the buffers as arguments")
    return driver.build(inputs, args, None if target is None else str(target), name)


def schedule_to_module(
    sch: Schedule,
    args: Sequence[Tensor | Var] | None = None,
    name: str = "main",
    binds: object = None,
) -> IRModule:
    """The schedule as a module before tir's passes (`tvm.driver.build_module`'s)."""
    if binds:
        raise ValueError("schedule_to_module: binds are not supported")
    if args is None:
        raise ValueError("schedule_to_module: give the argument tensors, (s, [A, B, C])")
    return IRModule(te_lower.schedule_to_module(sch, args, name))
