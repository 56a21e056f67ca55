"""Workloads: functions of JSON-able arguments that return te tensors.

`@auto_scheduler.register_workload` registers `func` under its name; a workload key is the JSON
list `[name, *args]`, which is how records name what they measured. The function returns its
inputs and outputs (`[A, B, C]`), the arguments of the built kernel in order.

A kernel of a relay model has no function: `register_workload_tensors(key, tensors)` registers
its tensors under a key made of the hash of its computation (`relay_integration`).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import Any

from xtvm.te.expr import Tensor

WORKLOADS: dict[str, Callable[..., Sequence[Tensor]]] = {}
WORKLOAD_TENSORS: dict[str, list[Tensor]] = {}  # key -> a relay kernel's arguments and outputs


def register_workload(
    func_name: str | Callable[..., Sequence[Tensor]] | None = None,
    f: Callable[..., Sequence[Tensor]] | None = None,
    override: bool = False,
) -> Any:
    """`@register_workload`, `@register_workload("name")` or `register_workload("name", f)`."""

    def register(func: Callable[..., Sequence[Tensor]], name: str | None = None) -> Any:
        key = name or func.__name__
        if key in WORKLOADS and WORKLOADS[key] is not func and not override:
            raise RuntimeError(f"auto_scheduler workload '{key}' is already registered")
        WORKLOADS[key] = func
        return func

    if callable(func_name):
        return register(func_name)
    if f is not None:
        return register(f, func_name)
    return lambda func: register(func, func_name)


def make_workload_key(func: str | Callable[..., Any], args: Sequence[Any]) -> str:
    name = func if isinstance(func, str) else func.__name__
    if name not in WORKLOADS:
        raise KeyError(f"auto_scheduler workload '{name}' is not registered (register_workload)")
    return json.dumps([name, *args])


def register_workload_tensors(workload_key: str, tensors: Sequence[Tensor]) -> str:
    """Register the tensors (arguments, then outputs) of a computation under its key."""
    WORKLOAD_TENSORS[workload_key] = list(tensors)
    return workload_key


def workload_tensors(workload_key: str) -> list[Tensor]:
    """The tensors of a workload: made afresh by its function, or those registered under the
    key (schedules never change the tensors they schedule)."""
    if workload_key in WORKLOAD_TENSORS:
        return list(WORKLOAD_TENSORS[workload_key])
    name, *args = json.loads(workload_key)
    if name not in WORKLOADS:
        known = ", ".join(sorted(WORKLOADS)) or "none"
        raise KeyError(f"auto_scheduler workload '{name}' is not registered (known: {known})")
    return list(WORKLOADS[name](*args))
