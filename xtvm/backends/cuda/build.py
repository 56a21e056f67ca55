"""CUDA modules: the host module (TVM's: its `imported_modules[0]` holds the CUDA C) and the
launch dimensions of each kernel, taken from its thread bindings.

Running a CUDA module needs a GPU; where none exists (`tvm.cuda(0).exist` is False) calling it
raises `NoGPUError`. Launching from xtvm on a GPU is not implemented yet either.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp

from xtvm.backends.cuda.codegen import CUDARenderer, split_if_needed
from xtvm.dialects import tir
from xtvm.runtime.module import Module, signatures_of


class NoGPUError(RuntimeError):
    """A CUDA module was called where it cannot run."""


@dataclass(frozen=True)
class Launch:
    """One kernel launch of a host function: grid and block extents (-1: known at run time)."""

    host: str
    kernel: str
    args: tuple[str, ...]
    blocks: tuple[int, int, int]
    threads: tuple[int, int, int]

    def __str__(self) -> str:
        return f"{self.kernel}<<<{self.blocks}, {self.threads}>>>({', '.join(self.args)})"


def launches(module: ModuleOp) -> list[Launch]:
    """The launches of every host function, with the extents of each kernel's bindings."""
    kernels = {
        f.sym_name.data: f
        for f in module.ops
        if isinstance(f, func.FuncOp) and "tir.kernel" in f.attributes
    }
    found: list[Launch] = []
    for host in module.ops:
        if not isinstance(host, func.FuncOp) or host.sym_name.data in kernels:
            continue
        for op in host.walk():
            if isinstance(op, tir.LaunchOp):
                name = op.kernel.string_value()
                info = kernels[name].attributes["tir.kernel"].data  # type: ignore[attr-defined]
                blocks = tuple(info["blocks"].get_values())
                threads = tuple(info["threads"].get_values())
                args = tuple(a.name_hint or f"arg{i}" for i, a in enumerate(op.args))
                found.append(Launch(host.sym_name.data, name, args, blocks, threads))  # type: ignore[arg-type]
    return found


def build_cuda(module: ModuleOp) -> Module:
    """The host module of `module`'s GPU kernels; `imported_modules[0].get_source()` is CUDA C."""
    from xtvm.api.nd import cuda

    split_if_needed(module)
    source = CUDARenderer().render(module)
    kernels = {
        f.sym_name.data
        for f in module.ops
        if isinstance(f, func.FuncOp) and "tir.kernel" in f.attributes
    }
    signatures = {n: p for n, p in signatures_of(module).items() if n not in kernels}
    plan = launches(module)

    def unavailable(name: str) -> int:
        if not cuda(0).exist:
            raise NoGPUError(
                f"cannot run '{name}': no CUDA GPU exists here (tvm.cuda(0).exist is False); "
                "get_source() of imported_modules[0] gives the CUDA C"
            )
        raise NoGPUError(f"cannot run '{name}': launching CUDA kernels is not implemented yet")

    def host_source(fmt: str) -> str:
        return "".join(f"// {launch.host}: {launch}\n" for launch in plan)

    host = Module(signatures, unavailable, source=host_source, type_key="llvm")
    device = Module({}, unavailable, source=lambda fmt: source, type_key="cuda")
    host.imported_modules.append(device)
    host.launches = plan  # type: ignore[attr-defined]
    return host
