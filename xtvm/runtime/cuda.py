"""The CUDA runtime: the driver API through ctypes, device arrays, kernel launches and the
graph executor of a cuda `relay.build`.

Everything goes through `libcuda.so.1` (the driver every NVIDIA install has), loaded on first
use: `device_count()` is 0 where it is missing or `cuInit` fails, so `tvm.cuda(0).exist` is a
plain False without a GPU. Kernels are CUDA C compiled to PTX on first launch (`nvcc -ptx`, or
NVRTC's `libnvrtc.so` where nvcc is missing) and loaded with `cuModuleLoadData`; the driver
JIT-compiles the PTX for the device.

A host function of a cuda module is a `HostProgram`: the launches of its kernels in order and
the temporary buffers between them (TVM's host module, without generated host code). Running
it on numpy arrays copies every buffer argument to the device and back (outputs are written in
place); on `DeviceArray`s it launches directly.
"""

from __future__ import annotations

import ctypes
import json
import os
import shutil
import subprocess
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from xtvm.runtime.cuda_driver import (
    MEMSET,
    CUDAError,
    DeviceBuffer,
    NoGPUError,
    check,
    compute_capability,
    device_count,
    require,
    synchronize,
)
from xtvm.runtime.graph_executor import (
    NOP,
    check_all_set,
    input_array,
    input_name,
    plan_memory,
    read_inputs,
)
from xtvm.runtime.module import ArgumentError, Module, Param
from xtvm.runtime.ndarray import Device, DeviceArray, NDArray

# ---------------------------------------------------------------------------------------------
# Kernels: CUDA C → PTX → loaded module


def compile_ptx(source: str, device_id: int = 0) -> bytes:
    """PTX of `source` for the device's architecture: nvcc, else NVRTC."""
    major, minor = compute_capability(device_id)
    arch = f"compute_{major}{minor}"
    if shutil.which("nvcc") is not None:
        return nvcc_ptx(source, arch)
    return nvrtc_ptx(source, arch)


def nvcc_ptx(source: str, arch: str | None) -> bytes:
    """`nvcc -ptx`; an nvcc older than the device gets no -arch (its PTX is JIT-compiled up)."""
    with tempfile.TemporaryDirectory() as folder:
        cu, ptx = Path(folder) / "kernels.cu", Path(folder) / "kernels.ptx"
        cu.write_text(source)
        for flags in ([f"-arch={arch}"] if arch else [], []):
            command = ["nvcc", "-ptx", *flags, "-O3", str(cu), "-o", str(ptx)]
            result = subprocess.run(command, capture_output=True, text=True, check=False)
            if result.returncode == 0:
                return ptx.read_bytes()
        raise CUDAError(f"nvcc failed:\n{result.stderr}")


# NVRTC has no C library headers: the fixed-width types the kernels use, declared.
NVRTC_STDINT = """typedef signed char int8_t;
typedef short int16_t;
typedef int int32_t;
typedef long long int64_t;
typedef unsigned char uint8_t;
typedef unsigned short uint16_t;
typedef unsigned int uint32_t;
typedef unsigned long long uint64_t;"""


def nvrtc_ptx(source: str, arch: str) -> bytes:
    """PTX from NVRTC (`libnvrtc.so`), for machines with a driver but no nvcc."""
    nvrtc = None
    for name in ("libnvrtc.so", "libnvrtc.so.13", "libnvrtc.so.12", "libnvrtc.so.11.2"):
        try:
            nvrtc = ctypes.CDLL(name)
            break
        except OSError:
            continue
    if nvrtc is None:
        raise CUDAError("compiling CUDA C needs nvcc on PATH or libnvrtc.so")
    program = ctypes.c_void_p()
    text = source.replace("#include <stdint.h>", NVRTC_STDINT).encode()
    status = nvrtc.nvrtcCreateProgram(ctypes.byref(program), text, b"kernels.cu", 0, None, None)
    if status != 0:
        raise CUDAError(f"nvrtcCreateProgram failed ({status})")
    flags = [f"--gpu-architecture={arch}"]
    home = os.environ.get("CUDA_HOME") or os.environ.get("CUDA_PATH") or "/usr/local/cuda"
    if (Path(home) / "include" / "cuda_fp16.h").exists():
        flags.append(f"--include-path={Path(home) / 'include'}")
    options = (ctypes.c_char_p * len(flags))(*(f.encode() for f in flags))
    if nvrtc.nvrtcCompileProgram(program, len(flags), options) != 0:
        size = ctypes.c_size_t()
        nvrtc.nvrtcGetProgramLogSize(program, ctypes.byref(size))
        log = ctypes.create_string_buffer(size.value)
        nvrtc.nvrtcGetProgramLog(program, log)
        raise CUDAError(f"NVRTC failed:\n{log.value.decode()}")
    size = ctypes.c_size_t()
    nvrtc.nvrtcGetPTXSize(program, ctypes.byref(size))
    ptx = ctypes.create_string_buffer(size.value)
    nvrtc.nvrtcGetPTX(program, ptx)
    nvrtc.nvrtcDestroyProgram(ctypes.byref(program))
    return ptx.raw


class KernelLibrary:
    """The kernels of one CUDA C source, compiled and loaded on first use per device."""

    def __init__(self, source: str) -> None:
        self.source = source
        self._modules: dict[int, ctypes.c_void_p] = {}
        self._functions: dict[tuple[int, str], ctypes.c_void_p] = {}

    def function(self, name: str, device_id: int = 0) -> ctypes.c_void_p:
        key = (device_id, name)
        if key in self._functions:
            return self._functions[key]
        lib = require(device_id)
        if device_id not in self._modules:
            ptx = compile_ptx(self.source, device_id)
            module = ctypes.c_void_p()
            check(
                lib.cuModuleLoadData(ctypes.byref(module), ctypes.c_char_p(ptx)), "cuModuleLoadData"
            )
            self._modules[device_id] = module
        function = ctypes.c_void_p()
        status = lib.cuModuleGetFunction(
            ctypes.byref(function), self._modules[device_id], name.encode()
        )
        check(status, f"cuModuleGetFunction({name})")
        self._functions[key] = function
        return function

    def launch(
        self,
        name: str,
        pointers: Sequence[int],
        blocks: Sequence[int],
        threads: Sequence[int],
        device_id: int = 0,
    ) -> None:
        function = self.function(name, device_id)
        values = [ctypes.c_uint64(p) for p in pointers]
        params = (ctypes.c_void_p * max(len(values), 1))(
            *[ctypes.cast(ctypes.byref(v), ctypes.c_void_p) for v in values]
        )
        lib = require(device_id)
        status = lib.cuLaunchKernel(function, *blocks, *threads, 0, None, params, None)
        check(status, f"cuLaunchKernel({name})")


# ---------------------------------------------------------------------------------------------
# Host programs: what a host function of a cuda module does


@dataclass(frozen=True)
class KernelCall:
    """One launch: the kernel and its buffers (slots: the function's params, then temporaries)."""

    kernel: str
    slots: tuple[int, ...]
    blocks: tuple[int, int, int]
    threads: tuple[int, int, int]


@dataclass(frozen=True)
class HostStore:
    """Bytes the host writes into a device buffer (a reduction's initial values)."""

    slot: int
    offset: int  # in bytes
    value: bytes


@dataclass(frozen=True)
class HostFill:
    """Every element of a device buffer set to one value (a reduction's initial value): a
    device memset of `count` elements of `pattern` (one element's bytes)."""

    slot: int
    pattern: bytes
    count: int


@dataclass(frozen=True)
class HostProgram:
    """A host function: its buffer params, temporaries (bytes each) and steps in order.

    `unsupported` says why the function cannot run on a GPU (dynamic shapes, host code other
    than launches and buffers); it is then an error to run it, not to build it.
    """

    params: tuple[Param, ...]
    temporaries: tuple[int, ...]
    steps: tuple[KernelCall | HostStore | HostFill, ...]
    unsupported: str | None = None


def run_program(
    name: str,
    program: HostProgram,
    kernels: KernelLibrary,
    pointers: Sequence[int],
    device_id: int,
    temporaries: Sequence[DeviceBuffer] | None = None,
) -> None:
    """Run `program` on buffers at `pointers`; its temporaries are given, or allocated (and
    freed after a synchronisation) for this call."""
    if program.unsupported:
        raise NotImplementedError(f"cannot run '{name}' on a GPU: {program.unsupported}")
    owned = temporaries is None
    if temporaries is None:
        temporaries = [DeviceBuffer(size, device_id) for size in program.temporaries]
    slots = [*pointers, *(t.pointer for t in temporaries)]
    lib = require(device_id)
    for step in program.steps:
        if isinstance(step, HostFill):
            fill(lib, slots[step.slot], step.pattern, step.count)
            continue
        if isinstance(step, HostStore):
            value = ctypes.create_string_buffer(step.value, len(step.value))
            check(
                lib.cuMemcpyHtoD_v2(slots[step.slot] + step.offset, value, len(step.value)), "HtoD"
            )
            continue
        args = [slots[s] for s in step.slots]
        kernels.launch(step.kernel, args, step.blocks, step.threads, device_id)
    if owned and temporaries:
        synchronize(device_id)  # before the temporaries are freed


def fill(lib: ctypes.CDLL, pointer: int, pattern: bytes, count: int) -> None:
    """`count` copies of `pattern` from `pointer` on: a memset, or an upload for 8 bytes."""
    memset = next((n for n, (size, _) in MEMSET.items() if size == len(pattern)), None)
    if memset is not None:
        value_type = MEMSET[memset][1]
        value = value_type(int.from_bytes(pattern, "little"))
        check(getattr(lib, memset)(ctypes.c_uint64(pointer), value, ctypes.c_size_t(count)), memset)
        return
    values = np.frombuffer(pattern * count, np.uint8)
    check(lib.cuMemcpyHtoD_v2(pointer, values.ctypes.data, values.nbytes), "HtoD")


class CUDAFunction:
    """A host function of a cuda module: `f(a, b, c)` on numpy, CPU or GPU arrays."""

    def __init__(self, name: str, program: HostProgram, kernels: KernelLibrary) -> None:
        self.name = name
        self.program = program
        self.kernels = kernels
        self.params = list(program.params)

    def __call__(self, *args: Any) -> None:
        if len(args) != len(self.params):
            raise ArgumentError(f"{self.name} takes {len(self.params)} arguments, got {len(args)}")
        gpu = next((a.device.device_id for a in args if isinstance(a, DeviceArray)), 0)
        require(gpu)
        staged: list[tuple[np.ndarray, DeviceArray]] = []
        pointers: list[int] = []
        for position, (param, arg) in enumerate(zip(self.params, args, strict=True)):
            if not isinstance(arg, DeviceArray):
                host = arg._data if isinstance(arg, NDArray) else np.asarray(arg)
                arg = DeviceArray.from_numpy(np.array(host, order="C"), Device("cuda", gpu))
                staged.append((host, arg))
            expected = tuple(param.shape or ())
            if arg.shape != expected or arg.dtype != param.dtype:
                raise ArgumentError(
                    f"{self.name}: argument {position} ({param.name}): expected "
                    f"{param.dtype}{list(expected)}, got {arg.dtype}{list(arg.shape)}"
                )
            pointers.append(arg.pointer)
        run_program(self.name, self.program, self.kernels, pointers, gpu)
        synchronize(gpu)
        for host, device_copy in staged:  # outputs are written in place
            if host.flags.writeable:
                host[...] = device_copy.numpy()


class CUDAModule(Module):
    """The host module of a cuda build: host functions by name; `imported_modules[0]` is the
    device module, whose `get_source()` is the CUDA C."""

    def __init__(
        self,
        programs: dict[str, HostProgram],
        source: str,
        host_source: Callable[[str], str],
    ) -> None:
        signatures = {name: list(p.params) for name, p in programs.items()}
        super().__init__(signatures, self._no_address, source=host_source, type_key="cuda_host")
        self.programs = programs
        self.kernels = KernelLibrary(source)
        device = Module({}, self._no_address, source=lambda fmt: source, type_key="cuda")
        self.imported_modules.append(device)

    @staticmethod
    def _no_address(name: str) -> int:
        raise ArgumentError(f"'{name}' is a CUDA function: it has no host address")

    def get_function(self, name: str) -> CUDAFunction:  # type: ignore[override]
        if name not in self.programs:
            known = ", ".join(sorted(self.programs)) or "none"
            raise AttributeError(f"module has no function '{name}' (functions: {known})")
        if device_count() == 0:
            raise NoGPUError(
                f"cannot run '{name}': no CUDA GPU exists here (tvm.cuda(0).exist is False); "
                "get_source() of imported_modules[0] gives the CUDA C"
            )
        return CUDAFunction(name, self.programs[name], self.kernels)

    __getitem__ = get_function

    def __call__(self, *args: Any) -> None:
        name = self.entry_name or (next(iter(self.programs)) if len(self.programs) == 1 else None)
        if name is None:
            raise ValueError("module has several functions: call one by name, m['name'](...)")
        self.get_function(name)(*args)


# ---------------------------------------------------------------------------------------------
# The graph executor on a GPU


class CUDAGraphExecutor:
    """Runs a cuda `relay.build`'s graph on a GPU: planned storage in device memory, kernels
    launched in node order; `set_input` copies to the device, `get_output` back."""

    def __init__(self, graph_json: str, lib: CUDAModule, dev: Device) -> None:
        if dev.device_type != "cuda":
            raise ValueError(f"a cuda graph runs on a cuda device, not {dev}")
        require(dev.device_id)
        self.graph = json.loads(graph_json)
        self.lib = lib
        self.device = dev
        nodes, row_ptr = self.graph["nodes"], self.graph["node_row_ptr"]
        shapes, dtypes = self.graph["attrs"]["shape"][1], self.graph["attrs"]["dltype"][1]
        self.plan = plan_memory(self.graph)
        storages = [DeviceBuffer(size, dev.device_id) for size in self.plan.storage_bytes]
        self.entries = []
        for sid, shape, dtype in zip(self.plan.storage_ids, shapes, dtypes, strict=True):
            self.entries.append(DeviceArray(shape, dtype, dev, storages[sid]))
        self.inputs = {nodes[n]["name"]: row_ptr[n] for n in self.graph["arg_nodes"]}
        self.input_order = [nodes[n]["name"] for n in self.graph["arg_nodes"]]
        self.unset = read_inputs(self.graph)  # inputs never given a value that a run reads
        self.outputs = [row_ptr[n] + i for n, i, _ in self.graph["heads"]]
        # Each call: its kernel's name, buffers and temporaries (allocated once, here).
        self.calls: list[tuple[str, list[int], list[DeviceBuffer]]] = []
        for nid, node in enumerate(nodes):
            if node["op"] != "tvm_op" or node["attrs"]["func_name"] == NOP:
                continue  # a __nop's output shares its input's buffer
            name = node["attrs"]["func_name"]
            entries = [row_ptr[n] + i for n, i, _ in node["inputs"]]
            entries += list(range(row_ptr[nid], row_ptr[nid + 1]))
            program = lib.programs[name]
            temporaries = [DeviceBuffer(size, dev.device_id) for size in program.temporaries]
            self.calls.append((name, [self.entries[e].pointer for e in entries], temporaries))

    def set_input(self, key: str | int | None = None, value: Any = None, **params: Any) -> None:
        if key is not None:
            self._set(key, value)
        for name, array in params.items():
            self._set(name, array)

    def _set(self, key: str | int, value: Any) -> None:
        if isinstance(key, int):
            key = self.input_order[key]
        key = input_name(key, self.inputs, self.input_order)
        target = self.entries[self.inputs[key]]
        target.copyfrom(input_array(key, value, target.shape, target.dtype))
        self.unset.discard(key)

    def run(self, **inputs: Any) -> None:
        if inputs:
            self.set_input(**inputs)
        check_all_set(self.unset, self.input_order)
        for name, pointers, temporaries in self.calls:
            program = self.lib.programs[name]
            device = self.device.device_id
            run_program(name, program, self.lib.kernels, pointers, device, temporaries)
        synchronize(self.device.device_id)

    def get_num_inputs(self) -> int:
        return len(self.input_order)

    def get_num_outputs(self) -> int:
        return len(self.outputs)

    def get_input(self, key: str | int) -> NDArray:
        name = self.input_order[key] if isinstance(key, int) else key
        return NDArray(self.entries[self.inputs[name]].numpy())

    def get_output(self, index: int, out: NDArray | None = None) -> NDArray:
        if not 0 <= index < len(self.outputs):
            raise IndexError(f"output index {index} out of range ({len(self.outputs)} outputs)")
        value = self.entries[self.outputs[index]].numpy()
        return out.copyfrom(value) if out is not None else NDArray(value)

    def benchmark(self, number: int = 10, repeat: int = 3) -> Any:
        from xtvm.runtime.module import time_function

        return time_function(lambda: self.run(), number=number, repeat=repeat)
