"""Tensor intrinsics by name: what a tensor intrinsic offers tir-tensorize, and the registry
that `te.decl_tensor_intrin` and accelerator targets fill and the pass reads."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from xdsl.dialects import func
from xdsl.ir import Operation, SSAValue


@dataclass
class BufferBinding:
    """An intrinsic buffer bound to the region of a kernel buffer that the nest accesses.

    `view` is the `memref.subview` of the region (the intrinsic buffer's shape), `elem_offset`
    the linear index of its first element in the kernel buffer and `strides` the strides of
    its dimensions in elements (all `index` values); `static_strides`/`static_elem_offset`
    give them where they are constants (else None), for checking declared ones.
    """

    view: SSAValue
    elem_offset: SSAValue
    strides: list[SSAValue]
    static_strides: list[int | None]
    static_elem_offset: int | None


class TensorIntrinsic(Protocol):
    """What tir-tensorize needs of a tensor intrinsic (`xtvm.te.TensorIntrin` is one; so is an
    accelerator intrinsic, xtvm/target/tensorize.py)."""

    name: str

    def description(self) -> func.FuncOp:
        """The declared computation as a kernel over its input buffers then its output buffer:
        in tir, or in te without a schedule (tir-tensorize converts it)."""
        ...

    def lowering(self, part: str, bindings: Sequence[BufferBinding]) -> list[Operation] | None:
        """The ops of `part` ("body", "reset" or "update") with its buffers bound (in the
        description's argument order), or None when the intrinsic has no such part. Raises
        TensorizeError when the bindings violate the intrinsic's buffer declarations."""
        ...


class TensorizeError(Exception):
    """A tensor intrinsic cannot be applied; the pass reports it at the loop nest."""


_INTRINSICS: dict[str, TensorIntrinsic] = {}


def register_intrinsic(name: str, intrinsic: TensorIntrinsic, override: bool = False) -> None:
    if name in _INTRINSICS and _INTRINSICS[name] is not intrinsic and not override:
        raise ValueError(f"tensor intrinsic '{name}' is already registered")
    _INTRINSICS[name] = intrinsic


def lookup_intrinsic(name: str) -> TensorIntrinsic | None:
    return _INTRINSICS.get(name)


def intrinsic_names() -> list[str]:
    return sorted(_INTRINSICS)


def get_tensor_intrin(name: str) -> TensorIntrinsic:
    """The intrinsic registered as `name`: a `TensorIntrin`, or any object answering what
    tir-tensorize asks (`TensorIntrinsic`)."""
    intrin = lookup_intrinsic(name)
    if intrin is None:
        known = ", ".join(intrinsic_names()) or "none"
        raise KeyError(f"no tensor intrinsic '{name}' is registered (registered: {known})")
    return intrin


def registry_name(intrin: TensorIntrinsic | str) -> str:
    """The name `intrin` is registered under, registering it first (under its own name, or a
    fresh one if another intrinsic has it)."""
    if isinstance(intrin, str):
        get_tensor_intrin(intrin)
        return intrin
    if not all(hasattr(intrin, a) for a in ("name", "description", "lowering")):
        raise TypeError(f"tensorize: expected a TensorIntrin or its name, got {intrin!r}")
    name, count = intrin.name, 0
    while (found := lookup_intrinsic(name)) is not None and found is not intrin:
        count += 1
        name = f"{intrin.name}_{count}"
    register_intrinsic(name, intrin)
    return name
