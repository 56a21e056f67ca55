"""TVM's `tvm.target.VirtualDevice`: where a value lives (a device, the target that compiles
code for it, a memory scope).

xtvm compiles a module for one target and runs it on that target's device, so nothing plans
devices from these; they are values that programs and text metadata can hold and compare.
"""

from __future__ import annotations

from dataclasses import dataclass

from xtvm.runtime.ndarray import Device
from xtvm.target.target import Target


@dataclass(frozen=True)
class VirtualDevice:
    """`VirtualDevice(tvm.cpu(), Target("llvm"))`; no device is TVM's unconstrained one."""

    device: Device | None = None
    target: Target | None = None
    memory_scope: str = ""

    def __post_init__(self) -> None:
        if self.device is not None and not isinstance(self.device, Device):
            raise TypeError(f"VirtualDevice: device must be a tvm device, got {self.device!r}")
        if self.target is not None and not isinstance(self.target, Target):
            raise TypeError(f"VirtualDevice: target must be a Target, got {self.target!r}")
        if not isinstance(self.memory_scope, str):
            raise TypeError("VirtualDevice: memory_scope must be a string")

    @property
    def device_type(self) -> int:
        """TVM's device type code: 1 for cpu, 2 for cuda, -1 when unconstrained."""
        if self.device is None:
            return -1
        return {"cpu": 1, "cuda": 2}.get(self.device.device_type, -1)

    @property
    def virtual_device_id(self) -> int:
        return -1 if self.device is None else self.device.device_id

    def is_fully_unconstrained(self) -> bool:
        return self.device is None and self.target is None and not self.memory_scope
