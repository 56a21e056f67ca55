"""CUDA modules: the host module (TVM's: its `imported_modules[0]` holds the CUDA C) and the
launch dimensions of each kernel, taken from its thread bindings.

Each host function becomes a `HostProgram` (its launches, temporary buffers and fills) that
`xtvm.runtime.cuda` runs through the CUDA driver; where no GPU exists (`tvm.cuda(0).exist` is
False) calling it raises `NoGPUError`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from xdsl.dialects import arith, func, memref
from xdsl.dialects.builtin import FloatAttr, IntegerAttr, MemRefType, ModuleOp
from xdsl.ir import SSAValue

from xtvm.backends.cuda.codegen import CUDARenderer, split_if_needed
from xtvm.dialects import tir
from xtvm.ir.numpy_types import numpy_dtype
from xtvm.passes.tir_bounds import constant_value
from xtvm.runtime.cuda import (
    CUDAModule,
    HostFill,
    HostProgram,
    HostStore,
    KernelCall,
    NoGPUError,
)
from xtvm.runtime.module import signature_of

__all__ = ["Launch", "NoGPUError", "build_cuda", "host_program", "launches"]


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


INDEX_ARITH = {
    arith.AddiOp: lambda a, b: a + b,
    arith.SubiOp: lambda a, b: a - b,
    arith.MuliOp: lambda a, b: a * b,
    arith.DivUIOp: lambda a, b: a // b,
    arith.CeilDivUIOp: lambda a, b: -(-a // b),
}


def host_program(host: func.FuncOp) -> HostProgram:
    """What `host` does on a GPU: its temporaries and launches (static sizes only)."""
    params = tuple(signature_of(host))
    slots: dict[SSAValue, int] = {a: k for k, a in enumerate(host.body.block.args)}
    values: dict[SSAValue, int | float] = {}
    temporaries: list[int] = []
    steps: list[KernelCall | HostStore | HostFill] = []

    def unsupported(why: str) -> HostProgram:
        return HostProgram(params, (), (), why)

    if any(p.shape is None or None in p.shape for p in params):
        return unsupported("scalar or dynamically shaped parameters")
    for op in host.body.block.ops:
        if isinstance(op, arith.ConstantOp) and isinstance(op.value, IntegerAttr | FloatAttr):
            values[op.result] = op.value.value.data
        elif type(op) in INDEX_ARITH and all(v in values for v in op.operands):
            values[op.results[0]] = INDEX_ARITH[type(op)](*(values[v] for v in op.operands))
        elif isinstance(op, memref.AllocOp) and not op.dynamic_sizes:
            typ = op.memref.type
            assert isinstance(typ, MemRefType)
            count = math.prod(typ.get_shape())
            slots[op.memref] = len(params) + len(temporaries)
            temporaries.append(count * max(1, typ.element_type.bitwidth // 8))  # type: ignore[attr-defined]
        elif isinstance(op, tir.LaunchOp):
            if any(a not in slots for a in op.args):
                return unsupported(f"@{op.kernel.string_value()} takes a scalar argument")
            dims = [values.get(v) for v in (*op.blocks, *op.threads)]
            if any(d is None for d in dims):
                return unsupported(
                    f"@{op.kernel.string_value()} has launch sizes known at run time"
                )
            blocks, threads = tuple(dims[:3]), tuple(dims[3:])
            name = op.kernel.string_value()
            steps.append(KernelCall(name, tuple(slots[a] for a in op.args), blocks, threads))  # type: ignore[arg-type]
        elif isinstance(op, memref.StoreOp) and op.memref in slots and op.value in values:
            typ = op.memref.type
            assert isinstance(typ, MemRefType)
            indices = [values.get(i) for i in op.indices]
            if any(i is None for i in indices):
                return unsupported("a host store at an index known at run time")
            dtype = numpy_dtype(typ.element_type)
            offset = int(np.ravel_multi_index(indices, typ.get_shape())) if indices else 0  # type: ignore[arg-type]
            value = np.array(values[op.value], dtype).tobytes()
            steps.append(HostStore(slots[op.memref], offset * dtype.itemsize, value))
        elif isinstance(op, tir.ForOp) and (fill := constant_fill(op, slots)) is not None:
            steps.append(fill)
        elif not isinstance(op, memref.DeallocOp | func.ReturnOp):
            return unsupported(f"host code '{op.name}' besides kernel launches")
    return HostProgram(params, tuple(temporaries), tuple(steps))


def constant_fill(root: tir.ForOp, slots: dict[SSAValue, int]) -> HostFill | None:
    """A host loop nest that stores one constant into every element of a buffer (a
    reduction's initial value) as a fill of that buffer; None for any other nest."""
    loops = [root]
    while True:
        body = [o for o in loops[-1].body.block.ops if not isinstance(o, tir.YieldOp)]
        if len(body) == 1 and isinstance(body[0], tir.ForOp):
            loops.append(body[0])
            continue
        break
    stores = [o for o in body if isinstance(o, memref.StoreOp)]
    if len(stores) != 1 or any(not isinstance(o, arith.ConstantOp | memref.StoreOp) for o in body):
        return None
    (store,) = stores
    constant = store.value.owner
    typ = store.memref.type
    if not isinstance(constant, arith.ConstantOp) or store.memref not in slots:
        return None
    assert isinstance(typ, MemRefType)
    # Every element: loop k runs over the k-th dimension longer than 1; the others index 0.
    ivs = iter(loops)
    for size, index in zip(typ.get_shape(), store.indices, strict=True):
        if size == 1 and constant_value(index) == 0:
            continue
        loop = next(ivs, None)
        if loop is None or index is not loop.induction_variable:
            return None
        if (constant_value(loop.lower_bound), constant_value(loop.upper_bound)) != (0, size):
            return None
    if next(ivs, None) is not None:
        return None
    dtype = numpy_dtype(typ.element_type)
    value = np.array(constant.value.value.data, dtype)  # type: ignore[attr-defined]
    return HostFill(slots[store.memref], value.tobytes(), math.prod(typ.get_shape()))


def build_cuda(module: ModuleOp) -> CUDAModule:
    """The host module of `module`'s GPU kernels; `imported_modules[0].get_source()` is CUDA C."""
    split_if_needed(module)
    source = CUDARenderer().render(module)
    hosts = [
        f
        for f in module.ops
        if isinstance(f, func.FuncOp) and f.body.blocks and "tir.kernel" not in f.attributes
    ]
    plan = launches(module)

    def host_source(fmt: str) -> str:
        return "".join(f"// {launch.host}: {launch}\n" for launch in plan)

    host = CUDAModule({f.sym_name.data: host_program(f) for f in hosts}, source, host_source)
    host.launches = plan  # type: ignore[attr-defined]
    return host
